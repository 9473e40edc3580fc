-- BloomSampleTree: the query sets of the paper's workload (uniform and
-- clustered) and full trees as bst_trees and bst_info describe them.
-- the extension, the query sets and the trees u_xxh3 and u_lin (sql/include/bst_trees.sql)
\getenv abs_srcdir PG_ABS_SRCDIR
\set bst_trees :abs_srcdir '/sql/include/bst_trees.sql'
\i :bst_trees

-- clustered sets have much smaller gaps than uniform ones
SELECT kind, percentile_cont(0.5) WITHIN GROUP (ORDER BY gap) < 20 AS small_median_gap
FROM (SELECT kind, x - lag(x) OVER (PARTITION BY kind ORDER BY x) AS gap FROM sets) g
WHERE gap IS NOT NULL GROUP BY kind ORDER BY kind;

SELECT name, kind, namespace_lo, namespace_hi, m, k, seed, hash, leaf_size, depth, ids
FROM bst_trees ORDER BY name;
SELECT tree_name, kind, depth, leaf_size, nodes = 2 * leaves - 1 AS complete, ids,
       memory_bytes > nodes * 500 AS memory_reported
FROM bst_info('u_lin');

-- the trees are dropped: every bst_* file starts from none
SELECT bst_drop('u_xxh3'), bst_drop('u_lin');
