-- BloomSampleTree: the work counters of bst_reconstruct_stats and
-- bst_sample_stats.
-- the extension, the query sets and the trees u_xxh3 and u_lin (sql/include/bst_trees.sql)
\getenv abs_srcdir PG_ABS_SRCDIR
\set bst_trees :abs_srcdir '/sql/include/bst_trees.sql'
\i :bst_trees

-- work counters: the index examines a small part of the namespace
SELECT q.kind, s.memberships < 20000 / 4 AS fewer_than_quarter, s.intersections = 0 AS no_intersections
FROM q, bst_reconstruct_stats('u_xxh3', q.q) s WHERE q.hash = 'xxh3' ORDER BY 1;
SET bloomsample.bst_sample_method = 'descent';
SELECT q.kind, s.intersections > 0 AS intersects, s.nodes_visited > 0 AS visits
FROM q, bst_sample_stats('u_xxh3', q.q, 10) s WHERE q.hash = 'xxh3' ORDER BY 1;
RESET bloomsample.bst_sample_method;

-- the trees are dropped: every bst_* file starts from none
SELECT bst_drop('u_xxh3'), bst_drop('u_lin');
