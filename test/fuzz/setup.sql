-- test/fuzz/setup.sql
--   The database sqlsmith fuzzes (test/fuzz/run.sh loads it as a superuser
--   into a fresh database bs_fuzz): every kind of object of bloomsample with
--   the fuzzing role bs_fuzzer owning the data.
--
--   - filters of mixed parameters (m from 8 to 2^16, k from 1 to 32, seeds,
--     both hash families; empty, sparse and saturated) and NULLs;
--   - typmod columns bloomfilter(m, k), and bloomtree values of a few shapes;
--   - countingbloom and cuckoofilter values (saturated, nearly full, NULL);
--   - Bloofi indexes with and without the pending list (fastupdate), the
--     pending list holding entries, over multi-level trees;
--   - full BloomSampleTrees ('xxh3' and 'linear') and a pruned one, with
--     query filters that match them and some that do not;
--   - SQL wrappers (schema fuzz): sqlsmith never calls set-returning or
--     record-returning functions, so each one of the extension gets a wrapper
--     returning its rows as text; tree creation runs through SECURITY DEFINER
--     wrappers (the fuzzing role may not write the tree catalog, so that
--     nothing it does can write garbage there: an error about corrupt data is
--     always a bug);
--   - schema smith with a view named pg_proc: the extension's functions, the
--     wrappers and a few core functions.  Put first on sqlsmith's search_path
--     it is the routine catalog sqlsmith draws from.
--
--   These wrappers belong to the fuzz database, never to the extension.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;

CREATE EXTENSION bloomsample;
CREATE SCHEMA fuzz AUTHORIZATION bs_fuzzer;
CREATE SCHEMA smith;
GRANT USAGE ON SCHEMA smith TO bs_fuzzer;

-- ---------------------------------------------------------------------------
-- trees (created by the superuser, the pruned ones granted to the fuzzing role;
-- it may create its own trees, read the catalog and set the memory limit)
-- ---------------------------------------------------------------------------
SELECT bst_create('full_x', 0, 20000, 4096, 3);
SELECT bst_create('full_lin', -500, 5000, 1000, 2, 7, 'linear', 64);
SELECT bst_create('full_k1', 1000000, 1000300, 64, 1, -3, 'xxh3', 1);
SELECT bst_create_pruned('pruned_x',
    'SELECT (x * 7919 % 1000003)::bigint * 4096 FROM generate_series(1, 3000) x', 2048, 3, 5);
SELECT bst_create_pruned('pruned_empty', 'SELECT 1::bigint WHERE false', 512, 4);
SELECT bst_grant('pruned_x', 'bs_fuzzer'), bst_grant('pruned_empty', 'bs_fuzzer');
GRANT CREATE ON SCHEMA public TO bs_fuzzer;
GRANT SELECT ON bst_tree_catalog, bst_tree_ids TO bs_fuzzer;
GRANT SET ON PARAMETER bloomsample.bst_memory_limit TO bs_fuzzer;

SET ROLE bs_fuzzer;
SET search_path = fuzz, public;

-- ---------------------------------------------------------------------------
-- elements and filters
-- ---------------------------------------------------------------------------
CREATE TABLE elems (id int, x bigint, i int, s smallint, t text, b bytea, u uuid, v varchar);
INSERT INTO elems
SELECT g, CASE WHEN g % 11 = 0 THEN NULL WHEN g % 13 = 0 THEN -g ELSE g * 7 END,
       g, (g % 300)::smallint, CASE WHEN g % 17 = 0 THEN NULL ELSE 'e' || g END,
       decode(md5(g::text), 'hex'), md5(g::text)::uuid,
       CASE WHEN g % 5 = 0 THEN '' ELSE repeat('v', g % 40) END
FROM generate_series(1, 400) g;
INSERT INTO elems VALUES (0, 9223372036854775807, 2147483647, 32767, repeat('long', 300), '\x', NULL, NULL),
                         (-1, -9223372036854775808, -2147483648, -32768, '', NULL, '00000000-0000-0000-0000-000000000000', 'Ωmega');

CREATE TABLE params (m int, k int, seed int, hash text);
INSERT INTO params VALUES (8, 1, 0, 'xxh3'), (64, 3, 0, 'xxh3'), (100, 2, -7, 'linear'),
    (1024, 3, 0, 'xxh3'), (1024, 3, 0, 'linear'), (4096, 7, 42, 'xxh3'), (65536, 32, -1, 'linear'),
    (4096, 3, 0, 'xxh3'), (1000, 2, 7, 'linear'), (2048, 3, 5, 'xxh3'), (512, 4, 0, 'xxh3');

CREATE TABLE filters (id serial, f bloomfilter, note text);
-- empty, sparse (bigint, text, bytea, uuid elements), dense and saturated filters of every parameter set
INSERT INTO filters (f, note)
SELECT bloom_empty(m, k, seed, hash), 'empty' FROM params
UNION ALL
SELECT bloom_agg(x, m, k, seed, hash), 'bigint' FROM params, elems WHERE elems.id % 9 = 0 GROUP BY m, k, seed, hash
UNION ALL
SELECT bloom_agg(t, m, k, seed, hash), 'text' FROM params, elems WHERE elems.id % 7 = 0 GROUP BY m, k, seed, hash
UNION ALL
SELECT bloom_agg(b, m, k, seed, hash), 'bytea' FROM params, elems WHERE elems.id % 5 = 0 GROUP BY m, k, seed, hash
UNION ALL
SELECT bloom_agg(u, m, k, seed, hash), 'uuid' FROM params, elems WHERE elems.id % 3 = 0 GROUP BY m, k, seed, hash
UNION ALL
SELECT bloom_agg(g, m, k, seed, hash), 'dense' FROM params, generate_series(1, 5000) g GROUP BY m, k, seed, hash
UNION ALL
SELECT bloom_from_array(ARRAY(SELECT generate_series(1, 100000)::bigint), m, k, seed, hash), 'saturated'
FROM params WHERE m <= 4096;
INSERT INTO filters (f, note) VALUES (NULL, 'null'), (NULL, NULL);

-- typmod columns
CREATE TABLE typed (id int, f bloomfilter(1024, 3), g bloomfilter(64, 1));
INSERT INTO typed
SELECT g, bloom_from_array(ARRAY(SELECT generate_series(g, g + 20)::bigint), 1024, 3),
       CASE WHEN g % 4 = 0 THEN NULL ELSE bloom_add(bloom_empty(64, 1), g::bigint) END
FROM generate_series(1, 200) g;

-- BloomTrees of a few shapes (one to three levels), empty, filled and NULL
CREATE TABLE bloomtrees (id int, t bloomtree);
INSERT INTO bloomtrees
SELECT row_number() OVER (), t FROM (
    SELECT bloomtree_empty('{64,8}', '{3,2}') AS t
    UNION ALL SELECT bloomtree_from_array(ARRAY(SELECT generate_series(1, 200)::bigint), '{256,16}', '{3,2}')
    UNION ALL SELECT bloomtree_from_array(ARRAY(SELECT 'e' || generate_series(1, 50)), '{1024,16,4}', '{3,2,1}', 7)
    UNION ALL SELECT bloomtree_agg(x, '{512}', '{4}') FROM elems
    UNION ALL SELECT bloomtree_from_array(ARRAY(SELECT generate_series(1, 20000)::bigint), '{64,8}', '{3,2}')
    UNION ALL SELECT NULL) s;

-- Deletable filters: counting filters (empty, saturated, both families, a typmod
-- column) and cuckoo filters (empty, nearly full, 4- and 32-bit fingerprints), NULLs
CREATE TABLE countingblooms (id int, c countingbloom, ct countingbloom(64, 3));
INSERT INTO countingblooms
SELECT row_number() OVER (), c, ct FROM (
    SELECT cbloom_empty(64, 3) AS c, cbloom_empty(64, 3) AS ct
    UNION ALL SELECT cbloom_agg(x % 7, 64, 3), cbloom_agg(x, 64, 3) FROM generate_series(1, 300) x
    UNION ALL SELECT cbloom_agg(x, 1000, 5, -3, 'linear'), NULL FROM generate_series(1, 100) x
    UNION ALL SELECT cbloom_agg('e' || x, 8, 32), NULL FROM generate_series(1, 20) x
    UNION ALL SELECT NULL, NULL) s;
CREATE TABLE cuckoofilters (id int, f cuckoofilter);
INSERT INTO cuckoofilters
SELECT row_number() OVER (), f FROM (
    SELECT cuckoo_empty(10) AS f
    UNION ALL SELECT cuckoo_agg(x, 126, 0.01 ORDER BY x) FROM generate_series(1, 120) x
    UNION ALL SELECT cuckoo_agg('e' || x, 20, 0.5, 7) FROM generate_series(1, 15) x
    UNION ALL SELECT cuckoo_agg(x, 1000, 2e-9) FROM generate_series(1, 500) x
    UNION ALL SELECT NULL) s;

-- ---------------------------------------------------------------------------
-- Bloofi indexes: with the pending list (holding entries) and without
-- ---------------------------------------------------------------------------
CREATE TABLE indexed_pending (id int, f bloomfilter);
INSERT INTO indexed_pending
SELECT g, bloom_from_array(ARRAY(SELECT generate_series(g * 10, g * 10 + (g % 50))::bigint), 2048, 3, 5)
FROM generate_series(1, 1500) g;
INSERT INTO indexed_pending VALUES (0, NULL);
CREATE INDEX indexed_pending_bloofi ON indexed_pending USING bloofi (f) WITH (fastupdate = on, "order" = 2);
-- these stay in the pending list
INSERT INTO indexed_pending
SELECT g, bloom_from_array(ARRAY[g::bigint, -g], 2048, 3, 5) FROM generate_series(2000, 2050) g;

CREATE TABLE indexed_tree (id int, f bloomfilter);
INSERT INTO indexed_tree
SELECT g, bloom_from_array(ARRAY(SELECT 'w' || generate_series(g, g + 30)), 4096, 3)
FROM generate_series(1, 2000) g;
CREATE INDEX indexed_tree_bloofi ON indexed_tree USING bloofi (f) WITH (fastupdate = off, "order" = 3);
INSERT INTO indexed_tree VALUES (3000, bloom_empty(4096, 3)), (3001, NULL);

CREATE INDEX typed_bloofi ON typed USING bloofi (f);

-- regclass values for bloofi_check / bloofi_stats / bloofi_probe
CREATE TABLE regs (r regclass);
INSERT INTO regs VALUES ('indexed_pending_bloofi'), ('indexed_tree_bloofi'), ('typed_bloofi'),
                        ('indexed_tree'), ('filters'), (NULL);

-- query filters of the trees' parameters, and tree names (some unknown)
CREATE TABLE queries (name text, q bloomfilter);
INSERT INTO queries
SELECT 'full_x', bloom_from_array(ARRAY(SELECT generate_series(1, 20000, 97)::bigint), 4096, 3)
UNION ALL SELECT 'full_x', bloom_empty(4096, 3)
UNION ALL SELECT 'full_x', bloom_from_array(ARRAY(SELECT generate_series(1, 20000)::bigint), 4096, 3)
UNION ALL SELECT 'full_lin', bloom_from_array(ARRAY(SELECT generate_series(-500, 5000, 41)::bigint), 1000, 2, 7, 'linear')
UNION ALL SELECT 'full_k1', bloom_from_array(ARRAY[1000001, 1000299]::bigint[], 64, 1, -3)
UNION ALL SELECT 'pruned_x', bloom_from_array(ARRAY(SELECT (x * 7919 % 1000003)::bigint * 4096 FROM generate_series(1, 3000, 13) x), 2048, 3, 5)
UNION ALL SELECT 'pruned_empty', bloom_empty(512, 4)
UNION ALL SELECT 'no_such_tree', bloom_empty(64, 3)
UNION ALL SELECT NULL, NULL;

RESET ROLE;
ANALYZE;

-- ---------------------------------------------------------------------------
-- wrappers: every set- or record-returning function of the extension, as text
-- ---------------------------------------------------------------------------
DO $$
DECLARE
    r record;
    argtypes text;
    args text;
BEGIN
    FOR r IN
        SELECT p.oid, p.proname, n.nspname, p.pronargs, p.proargtypes, p.prorettype
        FROM pg_proc p
        JOIN pg_namespace n ON n.oid = p.pronamespace
        JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
        JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'bloomsample'
        WHERE (p.proretset OR p.prorettype IN ('record'::regtype, 'void'::regtype))
          AND p.prokind = 'f'
          -- these write the tree catalog: the SECURITY DEFINER wrappers below call them
          AND p.proname NOT IN ('bst_create', 'bst_create_pruned', 'bst_drop')
          AND NOT EXISTS (SELECT 1 FROM unnest(p.proargtypes::oid[]) a(t)
                          JOIN pg_type ty ON ty.oid = a.t WHERE ty.typtype = 'p')
    LOOP
        SELECT coalesce(string_agg(format_type(t, NULL), ', ' ORDER BY i), ''),
               coalesce(string_agg('$' || i, ', ' ORDER BY i), '')
        INTO argtypes, args
        FROM unnest(r.proargtypes::oid[]) WITH ORDINALITY a(t, i);
        EXECUTE format('CREATE FUNCTION fuzz.%I(%s) RETURNS text LANGUAGE sql VOLATILE AS %L',
                       r.proname || '_w', argtypes,
                       CASE WHEN r.prorettype = 'void'::regtype
                            THEN format('SELECT %I.%I(%s)::text', r.nspname, r.proname, args)
                            ELSE format('SELECT string_agg(t::text, '' '') FROM (SELECT * FROM %I.%I(%s) LIMIT 1000) t',
                                        r.nspname, r.proname, args) END);
    END LOOP;
END
$$;

-- the text input function on near-valid text: a filter's text form with a
-- piece overwritten (sqlsmith cannot call the input function, cstring being
-- a pseudo-type)
CREATE FUNCTION fuzz.bloomfilter_from_text(t text) RETURNS bloomfilter
LANGUAGE sql IMMUTABLE STRICT AS 'SELECT $1::bloomfilter';
CREATE FUNCTION fuzz.bloomfilter_mutated(f bloomfilter, pos integer, piece text) RETURNS bloomfilter
LANGUAGE sql IMMUTABLE STRICT AS 'SELECT overlay($1::text placing $3 from greatest($2, 1))::bloomfilter';

-- trees with fuzzed parameters, built and dropped again by the superuser's right
CREATE FUNCTION fuzz.bst_create_owned(name text, lo bigint, hi bigint, m integer, k integer,
                                  seed integer, hash text, leaf_size bigint) RETURNS text
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public, pg_catalog AS $$
DECLARE
    s text;
BEGIN
    PERFORM bst_create(name, lo, hi, m, k, seed, hash, leaf_size);
    SELECT i::text INTO s FROM bst_info(name) i;
    PERFORM bst_drop(name);
    RETURN s;
END $$;
CREATE FUNCTION fuzz.bst_create_pruned_owned(name text, ids bigint[], m integer, k integer,
                                         seed integer, hash text, leaf_size bigint) RETURNS text
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public, pg_catalog AS $$
DECLARE
    s text;
BEGIN
    CREATE TEMP TABLE IF NOT EXISTS fuzz_ids (id bigint);
    TRUNCATE fuzz_ids;
    INSERT INTO fuzz_ids SELECT unnest(ids);
    PERFORM bst_create_pruned(name, 'SELECT id FROM fuzz_ids', m, k, seed, hash, leaf_size);
    SELECT i::text INTO s FROM bst_info(name) i;
    PERFORM bst_drop(name);
    RETURN s;
END $$;
CREATE FUNCTION fuzz.bst_extend_owned(name text, ids bigint[]) RETURNS text
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public, pg_catalog AS $$
DECLARE
    s text;
BEGIN
    -- extends a copy of the tree, so that the shared trees stay as they are
    PERFORM bst_create_pruned('fuzz_copy', format('SELECT unnest(ids) FROM bst_tree_ids WHERE name = %L', bst_extend_owned.name),
                              c.m, c.k, c.seed, c.hash, c.leaf_size)
    FROM bst_tree_catalog c WHERE c.name = bst_extend_owned.name AND c.kind = 'pruned';
    s := bst_extend('fuzz_copy', ids)::text;
    SELECT s || ' ' || i::text INTO s FROM bst_info('fuzz_copy') i;
    PERFORM bst_drop('fuzz_copy');
    RETURN s;
END $$;
REVOKE ALL ON FUNCTION fuzz.bst_create_owned, fuzz.bst_create_pruned_owned, fuzz.bst_extend_owned FROM PUBLIC;
GRANT EXECUTE ON FUNCTION fuzz.bst_create_owned, fuzz.bst_create_pruned_owned, fuzz.bst_extend_owned TO bs_fuzzer;

-- ---------------------------------------------------------------------------
-- the routines sqlsmith sees
-- ---------------------------------------------------------------------------
-- (no routines of pseudo-types: the wrappers above stand for those that
-- return void, sets or records; polymorphic ones only make type errors)
CREATE VIEW smith.pg_proc AS
SELECT p.*
FROM pg_catalog.pg_proc p
WHERE (p.oid IN (SELECT d.objid FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
                 WHERE d.classid = 'pg_proc'::regclass AND d.deptype = 'e' AND e.extname = 'bloomsample')
       OR p.pronamespace = 'fuzz'::regnamespace
       OR (p.pronamespace = 'pg_catalog'::regnamespace AND p.proname IN
           ('repeat', 'md5', 'lower', 'upper', 'length', 'substr', 'concat', 'abs', 'int8', 'int4',
            'int2', 'array_length', 'cardinality', 'gen_random_uuid', 'decode', 'encode', 'sha256',
            'textlen', 'string_agg', 'sum', 'generate_series', 'random', 'hashint8', 'left', 'right')))
  AND NOT EXISTS (SELECT 1 FROM unnest(p.proargtypes::oid[] || p.prorettype) a(t)
                  JOIN pg_catalog.pg_type ty ON ty.oid = a.t WHERE ty.typtype = 'p');
GRANT SELECT ON smith.pg_proc TO bs_fuzzer;

-- bounds on what one fuzzed statement may take
ALTER ROLE bs_fuzzer SET bloomsample.bst_memory_limit = '256MB';
ALTER ROLE bs_fuzzer SET statement_timeout = '2s';
ALTER ROLE bs_fuzzer SET work_mem = '16MB';
