-- BloomSampleTree: bst_drop removes a tree, its ids and its catalog row.
-- the extension, the query sets and the trees u_xxh3 and u_lin (sql/include/bst_trees.sql)
\getenv abs_srcdir PG_ABS_SRCDIR
\set bst_trees :abs_srcdir '/sql/include/bst_trees.sql'
\i :bst_trees

-- a pruned tree with ids
SELECT bst_create_pruned('empty', 'SELECT 1::bigint WHERE false', 1024, 2);
SELECT bst_extend('empty', ARRAY[1, 2, 3, 99]::bigint[]);

-- drop
\set SHOW_CONTEXT never
SELECT bst_drop('u_lin');
SELECT bst_drop('empty');
SELECT name FROM bst_trees ORDER BY name;
SELECT count(*) FROM bst_tree_ids WHERE name = 'empty';
SELECT * FROM bst_info('u_lin');

-- the trees are dropped: every bst_* file starts from none
SELECT bst_drop('u_xxh3');
