-- BloomSampleTree: every bad-input error (README.md, Reference > Errors;
-- those of pruned trees: bst_pruned).
-- the extension, the query sets and the trees u_xxh3 and u_lin (sql/include/bst_trees.sql)
\getenv abs_srcdir PG_ABS_SRCDIR
\set bst_trees :abs_srcdir '/sql/include/bst_trees.sql'
\i :bst_trees

-- ---------------------------------------------------------------------------
-- bad input
-- ---------------------------------------------------------------------------
\set VERBOSITY default
\set SHOW_CONTEXT never
-- unknown tree
SELECT * FROM bst_sample('nope', bloom_empty(4000, 3, 7));
SELECT * FROM bst_reconstruct('nope', bloom_empty(4000, 3, 7));
SELECT * FROM bst_info('nope');
SELECT bst_drop('nope');
SELECT bst_extend('nope', ARRAY[1]::bigint[]);
-- query filter with other parameters
SELECT * FROM bst_reconstruct('u_xxh3', bloom_empty(4001, 3, 7));
SELECT * FROM bst_sample('u_xxh3', bloom_empty(4000, 2, 7));
SELECT * FROM bst_sample('u_xxh3', bloom_empty(4000, 3, 8));
SELECT * FROM bst_sample('u_xxh3', bloom_empty(4000, 3, 7, 'linear'));
-- empty or reversed namespace
SELECT bst_create('bad', 10, 10, 4000, 3);
SELECT bst_create('bad', 10, 5, 4000, 3);
SELECT * FROM bloom_dictionary_attack(bloom_empty(64, 3), 5, 1);
SELECT * FROM bloom_dictionary_sample(bloom_empty(64, 3), 5, 5);
SELECT * FROM bloom_hashinvert(bloom_empty(64, 3, 0, 'linear'), 9, 1);
-- bad parameters
SELECT bst_create('bad', 0, 100, 4, 3);
SELECT bst_create('bad', 0, 100, 64, 40);
SELECT bst_create('bad', 0, 100, 64, 3, 0, 'md5');
SELECT bst_create('bad', 0, 100, 64, 3, 0, 'xxh3', 0);
SELECT bst_create('bad', 0, 100, 64, 3, 0, 'xxh3', 101);
SELECT bst_create('', 0, 100, 64, 3);
-- names over 1,000 bytes are refused up front (SQLSTATE 42622; the catalog's
-- primary key could not hold one of ~2,700 bytes); 1,000 bytes work
\set VERBOSITY sqlstate
SELECT bst_create(repeat('n', 1001), 0, 100, 64, 3);
SELECT bst_create(repeat('n', 2800), 0, 100, 64, 3);
SELECT bst_create_pruned(repeat('n', 1001), 'SELECT 1::bigint', 64, 3);
SELECT * FROM bst_reconstruct(repeat('n', 1001), bloom_empty(64, 3));
SELECT * FROM bst_sample(repeat('n', 1001), bloom_empty(64, 3));
SELECT * FROM bst_reconstruct_stats(repeat('n', 1001), bloom_empty(64, 3));
SELECT * FROM bst_info(repeat('n', 1001));
\set VERBOSITY default
SELECT bst_create(repeat('é', 501), 0, 100, 64, 3);
SELECT bst_create(repeat('n', 1000), 0, 100, 64, 3);
SELECT name = repeat('n', 1000) AS kept, namespace_hi FROM bst_tree_catalog WHERE length(name) >= 1000;
SELECT array(SELECT bst_reconstruct(repeat('n', 1000), q)) = array(SELECT bloom_dictionary_attack(q, 0, 100)) AS same
FROM bloom_from_array(ARRAY[5, 7]::bigint[], 64, 3) q;
SELECT bst_drop(repeat('n', 1000));
SELECT * FROM bst_plan(1000, 1000000, 1.0);
SELECT * FROM bst_plan(1000, 1000, 0.9);
-- too large for memory: error with the estimated size, nothing created
SET bloomsample.bst_memory_limit = '1MB';
SELECT bst_create('huge', 0, 100000000, 2000000, 3, 0, 'xxh3', 1000);
SELECT bst_create('huge', 0, 10000000000, 2000000, 3);
RESET bloomsample.bst_memory_limit;
SELECT count(*) FROM bst_trees WHERE name IN ('bad', 'huge', '');
-- source_query: not one bigint column, negatives, NULLs, not a query
SELECT bst_create_pruned('bad', 'SELECT 1::bigint, 2::bigint', 1024, 3);
SELECT bst_create_pruned('bad', 'SELECT 1::integer', 1024, 3);
SELECT bst_create_pruned('bad', 'SELECT x::bigint FROM generate_series(-1, 5) x', 1024, 3);
SELECT bst_create_pruned('bad', 'SELECT NULL::bigint', 1024, 3);
SELECT bst_create_pruned('bad', 'CREATE TABLE zz(a int)', 1024, 3);
SELECT bst_create_pruned('bad', 'SELECT nonsense', 1024, 3);
SELECT bst_extend('u_xxh3', ARRAY[5]::bigint[]);
-- n < 0 or absurdly large
SELECT * FROM q, bst_sample('u_xxh3', q.q, -1) WHERE q.kind = 'uniform' AND q.hash = 'xxh3';
SELECT * FROM q, bst_sample('u_xxh3', q.q, 2000000000) WHERE q.kind = 'uniform' AND q.hash = 'xxh3';
SELECT * FROM bloom_dictionary_sample(bloom_empty(64, 3), 0, 10, -3);
-- HashInvert needs the linear family
SELECT * FROM bloom_hashinvert(bloom_empty(64, 3), 0, 10);
-- creating a tree that exists
SELECT bst_create('u_xxh3', 1000, 21000, 4000, 3, 7);
SELECT count(*) FROM bst_trees WHERE name = 'bad';
-- statement_timeout cancels a long dictionary attack
SET statement_timeout = '200ms';
SELECT count(*) FROM bloom_dictionary_attack(bloom_empty(64, 3), 0, 1000000000000);
RESET statement_timeout;

-- the trees are dropped: every bst_* file starts from none
SELECT bst_drop('u_xxh3'), bst_drop('u_lin');
