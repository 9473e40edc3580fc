-- BloomSampleTree: pruned trees over sparse ids and bst_extend answer as the
-- dictionary attack over the ids; their bad input.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;
SET bloomsample.bst_random_seed = 12345;

-- pruned trees over sparse ids, and bst_extend
CREATE TEMP TABLE occ AS
SELECT DISTINCT (c * 1000003 % 2000000000) + o AS id
FROM generate_series(1, 20) c, generate_series(0, 999) o
UNION SELECT (x * 7919 % 2147483647)::bigint FROM generate_series(1, 3000) x;
SELECT bst_create_pruned('sparse', 'SELECT id FROM occ WHERE id % 2 = 0', 30011, 3, 1);
SELECT kind, ids = (SELECT count(*) FROM occ WHERE id % 2 = 0) AS ids_ok FROM bst_trees WHERE name = 'sparse';
CREATE TEMP TABLE pq AS
SELECT bloom_agg(id, 30011, 3, 1) AS q FROM (SELECT id FROM occ ORDER BY md5(id::text) LIMIT 300) s;
-- reconstruction = dictionary attack over the occupied ids
SELECT (SELECT array_agg(x) FROM pq, bst_reconstruct('sparse', pq.q) x)
     = (SELECT array_agg(id ORDER BY id) FROM occ, pq WHERE id % 2 = 0 AND pq.q @> id) AS pruned_equals_da;
SELECT bst_extend('sparse', ARRAY(SELECT id FROM occ WHERE id % 2 = 1)) = (SELECT count(*) FROM occ WHERE id % 2 = 1) AS all_new;
SELECT bst_extend('sparse', ARRAY[4611686018427387904, 4611686018427387905, 4611686018427387904]) AS beyond_root;
SELECT bst_extend('sparse', ARRAY(SELECT id FROM occ LIMIT 10)) AS nothing_new;
SELECT (SELECT array_agg(x) FROM pq, bst_reconstruct('sparse', pq.q) x)
     = (SELECT array_agg(id ORDER BY id) FROM (SELECT id FROM occ UNION SELECT 4611686018427387904 UNION SELECT 4611686018427387905) o, pq
        WHERE pq.q @> o.id) AS extended_equals_da;
SELECT tree_name, kind, ids, leaves > 0 AS has_leaves FROM bst_info('sparse');
SET bloomsample.bst_sample_method = 'descent';
SELECT bool_and(pq.q @> x) AS samples_are_members, count(*) FROM pq, bst_sample('sparse', pq.q, 200) x;
RESET bloomsample.bst_sample_method;
-- an empty pruned tree, extended
SELECT bst_create_pruned('empty', 'SELECT 1::bigint WHERE false', 1024, 2);
SELECT count(*) FROM bst_reconstruct('empty', bloom_from_array(ARRAY[1,2,3]::bigint[], 1024, 2));
SELECT bst_extend('empty', ARRAY[1, 2, 3, 99]::bigint[]);
SELECT array_agg(x) FROM bst_reconstruct('empty', bloom_from_array(ARRAY[1,2,3]::bigint[], 1024, 2)) x;

-- bad input
\set VERBOSITY default
\set SHOW_CONTEXT never
SELECT bst_extend('sparse', ARRAY[-5]::bigint[]);
SELECT bst_extend('sparse', ARRAY[5, NULL]::bigint[]);
-- extending beyond the memory limit: refused before allocating, tree unchanged
SET bloomsample.bst_memory_limit = '1MB';
SELECT bst_extend('sparse', ARRAY(SELECT x * 1000003 FROM generate_series(1, 2000) x));
RESET bloomsample.bst_memory_limit;
SELECT ids FROM bst_trees WHERE name = 'sparse';
-- creating a tree that exists
SELECT bst_create_pruned('sparse', 'SELECT 1::bigint', 1024, 3);

-- the trees are dropped: every bst_* file starts from none
SELECT bst_drop('sparse'), bst_drop('empty');
