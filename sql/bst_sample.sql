-- BloomSampleTree: samples are positives; n = 0 or an empty filter gives
-- nothing; the dictionary sample baseline.
-- the extension, the query sets and the trees u_xxh3 and u_lin (sql/include/bst_trees.sql)
\getenv abs_srcdir PG_ABS_SRCDIR
\set bst_trees :abs_srcdir '/sql/include/bst_trees.sql'
\i :bst_trees

-- samples are positives; n = 0 gives nothing; an empty filter gives nothing
SELECT bool_and(x IN (SELECT bloom_dictionary_attack(q.q, 1000, 21000))) AS all_positive, count(*)
FROM q, bst_sample('u_xxh3', q.q, 50) x WHERE q.kind = 'uniform' AND q.hash = 'xxh3';
SELECT count(*) FROM q, bst_sample('u_xxh3', q.q, 0) WHERE q.hash = 'xxh3';
SELECT count(*) FROM bst_sample('u_xxh3', bloom_empty(4000, 3, 7), 10);
SELECT count(*) FROM bst_reconstruct('u_xxh3', bloom_empty(4000, 3, 7));
SELECT count(*), count(DISTINCT x) > 1 AS varied
FROM q, bloom_dictionary_sample(q.q, 1000, 21000, 100) x WHERE q.kind = 'uniform' AND q.hash = 'xxh3';

-- the trees are dropped: every bst_* file starts from none
SELECT bst_drop('u_xxh3'), bst_drop('u_lin');
