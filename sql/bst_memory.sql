-- Issue 14: a BloomSampleTree's memory figures against what the backend
-- really allocates (pg_backend_memory_contexts: each tree has a context named
-- after it), trees at bloomsample.bst_memory_limit refused before allocation,
-- and the smaller fixes (hash family names, source_query's shape checked
-- before it runs, bst_plan of a meaningless accuracy, Jaccard of saturated
-- filters).  Errors are shown with their SQLSTATE.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;
\set SHOW_CONTEXT never
-- the memory figures are checked against this backend's memory contexts:
-- trees built in the backend (a shared image is checked at the end)
SET bloomsample.bst_shared = off;

-- the SQLSTATE, message and detail of a statement's error ('ok' if none)
CREATE FUNCTION pg_temp.err(stmt text, OUT state text, OUT message text, OUT detail text)
LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE stmt;
    state := 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT,
                            detail = PG_EXCEPTION_DETAIL;
END $$;

-- a tree's figures and its memory context as the backend measures it: the
-- chunks in use hold the tree, its index and the cache entry (a few hundred
-- bytes, plus chunk headers and the rounding of small chunks)
CREATE FUNCTION pg_temp.mem(tree text)
RETURNS TABLE(nodes bigint, memory_bytes bigint, index_bytes bigint, context_bytes bigint)
LANGUAGE sql AS $$
    SELECT i.nodes, i.memory_bytes, i.index_bytes,
           (SELECT sum(c.used_bytes)::bigint FROM pg_backend_memory_contexts c
            WHERE c.name = 'BloomSampleTree' AND c.ident = tree)
    FROM bst_info(tree) i
$$;
CREATE FUNCTION pg_temp.agrees(tree text) RETURNS TABLE(nodes bigint, agrees boolean)
LANGUAGE sql AS $$
    SELECT nodes, context_bytes - (memory_bytes + index_bytes) BETWEEN 0 AND 16384
    FROM pg_temp.mem(tree)
$$;

-- ---------------------------------------------------------------------------
-- tiny trees of huge filters: one node is one filter, not sixteen
-- ---------------------------------------------------------------------------
SELECT bst_create('vm1', 0, 1000, 1073741824, 3, 0, 'xxh3', 1000);
SELECT nodes, memory_bytes BETWEEN 1073741824 / 8 AND 1073741824 / 8 + 1024 AS one_filter,
       context_bytes - (memory_bytes + index_bytes) BETWEEN 0 AND 16384 AS agrees
FROM pg_temp.mem('vm1');
SELECT bst_drop('vm1');
SELECT count(*) FROM pg_backend_memory_contexts WHERE ident = 'vm1';

-- a tree at the limit is refused before allocation, with its real size:
-- one 2^31 - 1 bit filter takes 256 MB and a few hundred bytes
SET bloomsample.bst_memory_limit = '256MB';
SELECT * FROM pg_temp.err($$SELECT bst_create('e10', 0, 1000, 2147483647, 32)$$);
SELECT count(*) FROM pg_backend_memory_contexts WHERE ident = 'e10';
SELECT count(*) FROM bst_trees WHERE name = 'e10';
SET bloomsample.bst_memory_limit = '257MB';
SELECT bst_create('e10', 0, 1000, 2147483647, 32);
SELECT nodes, (memory_bytes + (1 << 20) - 1) >> 20 AS mb_as_refused,
       memory_bytes + index_bytes <= 257 * 1048576 AS within_limit,
       context_bytes - (memory_bytes + index_bytes) BETWEEN 0 AND 16384 AS agrees
FROM pg_temp.mem('e10');
SELECT bst_drop('e10');
RESET bloomsample.bst_memory_limit;

-- ---------------------------------------------------------------------------
-- big trees: 131071 nodes with the index built in the same pass; pruned
-- trees, extended; the index built on demand
-- ---------------------------------------------------------------------------
SELECT bst_create('big', 0, 4194304, 4096, 3, 0, 'xxh3', 64);
SELECT m.nodes, index_bytes > 0 AS has_index, agrees
FROM pg_temp.mem('big') m, pg_temp.agrees('big') a;
SELECT bst_drop('big');

CREATE TEMP TABLE occ AS
SELECT (x * 7919 % 1000003)::bigint * 64 AS id FROM generate_series(1, 20000) x;
SELECT bst_create_pruned('pr', 'SELECT id FROM occ WHERE id % 128 = 0', 1024, 3, 0, 'xxh3', 256);
SELECT nodes > 10000 AS many_nodes, agrees FROM pg_temp.agrees('pr');
SELECT bst_extend('pr', ARRAY(SELECT id FROM occ WHERE id % 128 = 64)) > 0 AS extended;
-- an extension: the tree is rebuilt from the catalog at its next use (index
-- included, since it fits), still as allocated
SELECT index_bytes > 0 AS has_index, agrees FROM pg_temp.mem('pr'), pg_temp.agrees('pr');
SET bloomsample.bst_reconstruct_method = 'index';
SELECT count(*) >= 5 AS found
FROM bst_reconstruct('pr', bloom_from_array(ARRAY(SELECT id FROM occ ORDER BY id LIMIT 5), 1024, 3));
RESET bloomsample.bst_reconstruct_method;
SELECT index_bytes > 0 AS has_index, agrees FROM pg_temp.mem('pr'), pg_temp.agrees('pr');
-- as another backend sees it: rebuilt from the catalog, the same figures
SELECT memory_bytes AS before_bytes FROM bst_info('pr') \gset
SELECT _bst_forget('pr');
SELECT memory_bytes = :before_bytes AS same_bytes, agrees FROM pg_temp.mem('pr'), pg_temp.agrees('pr');

-- an extension past the limit is refused with the size it would really take
CREATE TEMP TABLE far AS SELECT x * 1000000007 AS id FROM generate_series(1, 3000::bigint) x;
SET bloomsample.bst_memory_limit = '20MB';
SELECT state, message, detail FROM pg_temp.err($$SELECT bst_extend('pr', ARRAY(SELECT id FROM far))$$);
SELECT memory_bytes = :before_bytes AS unchanged FROM bst_info('pr');
RESET bloomsample.bst_memory_limit;
SELECT bst_extend('pr', ARRAY(SELECT id FROM far));
SELECT (memory_bytes + (1 << 20) - 1) >> 20 AS mb_as_refused, agrees
FROM pg_temp.mem('pr'), pg_temp.agrees('pr');
SELECT bst_drop('pr');

-- a pruned tree at the limit is refused with the size it then takes
SET bloomsample.bst_memory_limit = '1MB';
SELECT state, message FROM pg_temp.err($$SELECT bst_create_pruned('pr1', 'SELECT id FROM occ', 1024, 3, 0, 'xxh3', 4096)$$);
RESET bloomsample.bst_memory_limit;
SELECT bst_create_pruned('pr1', 'SELECT id FROM occ', 1024, 3, 0, 'xxh3', 4096);
SELECT (memory_bytes + (1 << 20) - 1) >> 20 AS mb_as_refused, agrees
FROM pg_temp.mem('pr1'), pg_temp.agrees('pr1');
SELECT bst_drop('pr1');

-- ---------------------------------------------------------------------------
-- results are bounded by bloomsample.bst_memory_limit: a saturated filter
-- matches every id of its namespace
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE sat AS
SELECT bloom_from_array(ARRAY(SELECT generate_series(1, 1000)::bigint), 64, 1) AS q;
SELECT bloom_popcount(q) = 64 AS saturated FROM sat;
SELECT bst_create('sat', 0, 1000000, 64, 1, 0, 'xxh3', 250000);
SET bloomsample.bst_memory_limit = '1MB';
SELECT * FROM pg_temp.err($$SELECT count(*) FROM sat, bloom_dictionary_attack(sat.q, 0, 4611686018427387904)$$);
SELECT * FROM pg_temp.err($$SELECT count(*) FROM sat, bst_reconstruct('sat', sat.q)$$);
-- sampling without the index draws from every positive: bounded alike (the
-- tree is rebuilt, and under this limit without its index)
SELECT _bst_forget('sat');
SELECT * FROM pg_temp.err($$SELECT count(*) FROM sat, bst_sample('sat', sat.q, 5)$$);
SELECT index_bytes FROM bst_info('sat');
RESET bloomsample.bst_memory_limit;
-- within the limit: every id
SELECT count(*) FROM sat, bloom_dictionary_attack(sat.q, 0, 1000000);
SELECT count(*) FROM sat, bst_reconstruct('sat', sat.q);
SELECT count(*) FROM sat, bst_sample('sat', sat.q, 5);
SELECT bst_drop('sat');

-- ---------------------------------------------------------------------------
-- negative ids: refused where ids are stored, reported as corrupt when read
-- back from a catalog written around the functions
-- ---------------------------------------------------------------------------
SELECT bst_create_pruned('neg', 'SELECT x::bigint FROM generate_series(1, 100) x', 1024, 3);
SELECT * FROM pg_temp.err($$SELECT _bst_store_ids('neg', '{5,-5}', 7)$$);
BEGIN;
INSERT INTO bst_tree_ids VALUES ('neg', 9, '{-3}');
SELECT _bst_forget('neg');
SELECT * FROM pg_temp.err($$SELECT * FROM bst_info('neg')$$);
ROLLBACK;
SELECT ids FROM bst_info('neg');
SELECT bst_drop('neg');

-- ---------------------------------------------------------------------------
-- hash family names: case-sensitive, lowercase as output; the error names
-- the value
-- ---------------------------------------------------------------------------
SELECT * FROM pg_temp.err($$SELECT 'm=64,k=3,seed=0,hash=XXH3,v=1:0000000000000000'::bloomfilter$$);
SELECT * FROM pg_temp.err($$SELECT 'm=64,k=3,seed=0,hash=murmur3,v=1:0000000000000000'::bloomfilter$$);
SELECT * FROM pg_temp.err($$SELECT 'm=64,k=3,seed=0,hash=,v=1:0000000000000000'::bloomfilter$$);
SELECT * FROM pg_temp.err($$SELECT 'm=64,k=3,seed=0,hash=xxh3'::bloomfilter$$);
SELECT * FROM pg_temp.err($$SELECT bloom_empty(64, 3, 0, 'Linear')$$);
SELECT * FROM pg_temp.err($$SELECT bst_create('h', 0, 100, 64, 3, 0, 'XXH3')$$);
\set VERBOSITY sqlstate
SELECT 'm=64,k=3,seed=0,hash=XXH3,v=1:0000000000000000'::bloomfilter;
SELECT bloom_agg(x, 64, 3, 0, 'LINEAR') FROM generate_series(1, 3) x;
\set VERBOSITY default
SELECT 'm=64,k=3,seed=0,hash=linear,v=1:0000000000000000'::bloomfilter = bloom_empty(64, 3, 0, 'linear') AS lowercase_ok;

-- ---------------------------------------------------------------------------
-- bst_create_pruned checks source_query's result shape before running it:
-- the division by zero is never reached
-- ---------------------------------------------------------------------------
SELECT * FROM pg_temp.err($$SELECT bst_create_pruned('p', 'SELECT (x / 0)::integer FROM generate_series(1, 10) x', 1024, 3)$$);
SELECT * FROM pg_temp.err($$SELECT bst_create_pruned('p', 'SELECT x / 0, x FROM generate_series(1, 10) x', 1024, 3)$$);
-- even when it returns no rows, and with no columns at all
SELECT * FROM pg_temp.err($$SELECT bst_create_pruned('p', 'SELECT 1::integer WHERE false', 1024, 3)$$);
SELECT * FROM pg_temp.err($$SELECT bst_create_pruned('p', 'SELECT', 1024, 3)$$);
-- a bigint column runs (and here fails in the query itself)
SELECT * FROM pg_temp.err($$SELECT bst_create_pruned('p', 'SELECT (x / 0)::bigint FROM generate_series(1, 10) x', 1024, 3)$$);
SELECT count(*) FROM bst_trees WHERE name = 'p';

-- ---------------------------------------------------------------------------
-- bst_plan: an accuracy of n / namespace_size or less needs no filter
-- ---------------------------------------------------------------------------
SELECT * FROM pg_temp.err($$SELECT * FROM bst_plan(4611686018427387904, 9223372036854775807, 0.5)$$);
SELECT * FROM pg_temp.err($$SELECT * FROM bst_plan(10, 100, 0.1)$$);
SELECT m > 8 AS has_m, expected_fp < 1 AS fp_below_1 FROM bst_plan(10, 100, 0.11);

-- ---------------------------------------------------------------------------
-- Jaccard: a filter against itself is 1, saturated or not; a small filter
-- against a saturated one is # small / # saturated (sql/type_estimates.sql)
-- ---------------------------------------------------------------------------
SELECT bloom_popcount(f) = bloom_m(f) AS saturated, bloom_jaccard(f, f) AS self,
       abs(bloom_jaccard(f, g) - (# g) / (# f)) < 1e-12 AS against_other, bloom_jaccard(g, g) AS other_self
FROM (SELECT bloom_from_array(ARRAY(SELECT generate_series(1, 1000)::bigint), 64, 3) AS f,
             bloom_from_array(ARRAY[1, 2]::bigint[], 64, 3) AS g) s;
SELECT bloom_jaccard(bloom_empty(64, 3), bloom_empty(64, 3)) AS empty;

-- ---------------------------------------------------------------------------
-- Introspection of an index OID that does not exist: 42P01, not an internal error
-- ---------------------------------------------------------------------------
SELECT * FROM pg_temp.err($$SELECT * FROM bloofi_stats(0)$$);
SELECT * FROM pg_temp.err($$SELECT * FROM bloofi_probe(0, 1::bigint)$$);
SELECT * FROM pg_temp.err($$SELECT bloofi_check(0)$$);

-- ---------------------------------------------------------------------------
-- A shared tree: its image file holds the tree and its index, the backend's
-- context only the cache entry
-- ---------------------------------------------------------------------------
RESET bloomsample.bst_shared;
SELECT bst_create('shr', 0, 100000, 20000, 3);
SELECT shared, image_bytes - (memory_bytes + index_bytes) BETWEEN -1024 AND 4096 AS image_holds_tree,
       (SELECT sum(c.used_bytes) FROM pg_backend_memory_contexts c
        WHERE c.name = 'BloomSampleTree' AND c.ident = 'shr') < 16384 AS backend_holds_little
FROM bst_info('shr');
SELECT bst_drop('shr');
