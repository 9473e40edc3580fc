-- test/fuzz/calls.sql
--   Calls at the edges.  sqlsmith composes large queries that mostly fail on
--   type errors before they reach the extension; test/fuzz/run.sh therefore
--   also runs statements generated here, each one calling one function of the
--   extension (or one aggregate over a table of elements, or setting one of its
--   GUCs, or a VACUUM of a fuzzed table) with arguments drawn from pools of edge
--   values of each argument type:
--   zero, one, negative, the limits of m and k and of the integer types, NaN
--   and the infinities, NULL, empty, huge and multi-dimensional arrays, arrays
--   with a lower bound other than 1, unknown tree names, source queries that
--   are not queries, filters of every parameter set (the largest m included).
--   fuzzgen.calls(seed, n) returns n statements, the same for the same seed.
--
--   Loaded after setup.sql, as a superuser, into schema fuzzgen (out of
--   sqlsmith's sight).  The functions called are found through pg_depend, so
--   functions added to the extension later are called too, as long as each of
--   their argument types has a pool below.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;

CREATE SCHEMA fuzzgen;
CREATE TABLE fuzzgen.pool (typ regtype, expr text);
INSERT INTO fuzzgen.pool
SELECT u.typ::regtype, u.expr FROM (
SELECT 'integer', v FROM unnest(ARRAY['NULL', '0', '1', '-1', '2', '3', '7', '8', '9', '31', '32', '33',
    '63', '64', '65', '100', '1000', '1024', '4096', '65536', '1048576', '16777216', '67108863',
    '67108864', '1073741824', '2147483647', '-2147483648']) v
UNION ALL
SELECT 'bigint', v FROM unnest(ARRAY['NULL', '0', '1', '-1', '2', '8', '63', '64', '100', '1000',
    '20000', '1000000', '4294967294', '4294967295', '4294967296', '1099511627776',
    '4611686018427387904', '9223372036854775807', '-9223372036854775808', '-1000']) v
UNION ALL
SELECT 'double precision', v FROM unnest(ARRAY['NULL', '0', '1', '-1', '0.5', '0.9', '0.999', '0.1',
    '2', '1e-10', '1e-300', '5e-324', '1e300', $$'NaN'$$, $$'Infinity'$$, $$'-Infinity'$$]) v
UNION ALL
SELECT 'text', v FROM unnest(ARRAY['NULL', $$''$$, $$'xxh3'$$, $$'linear'$$, $$'XXH3'$$, $$'Linear'$$,
    $$'full_x'$$, $$'full_lin'$$, $$'full_k1'$$, $$'pruned_x'$$, $$'pruned_empty'$$, $$'no_such'$$,
    $$repeat('x', 100000)$$, $$'SELECT 1::bigint'$$, $$'SELECT x FROM fuzz.elems WHERE x >= 0'$$,
    $$'SELECT x::bigint FROM generate_series(1, 100000) x'$$, $$'SELECT -1::bigint'$$,
    $$'SELECT NULL::bigint'$$, $$'SELECT 1::bigint, 2::bigint'$$, $$'SELECT'$$, $$'SELECT 1/0'$$,
    $$'not sql at all'$$, $$'Ωmega'$$, $$(SELECT f::text FROM fuzz.filters WHERE id = 7)$$,
    $$(SELECT f::text FROM fuzz.filters WHERE id = 40)$$, $$'m=64,k=3,seed=0,hash=xxh3,v=1:'$$]) v
UNION ALL
SELECT 'bytea', v FROM unnest(ARRAY['NULL', $$'\x'$$, $$'\xdeadbeef'$$,
    $$decode(repeat('ff', 10000), 'hex')$$]) v
UNION ALL
SELECT 'uuid', v FROM unnest(ARRAY['NULL', $$'00000000-0000-0000-0000-000000000000'$$, $$md5('x')::uuid$$]) v
UNION ALL
SELECT 'bloomfilter', v FROM unnest(ARRAY['NULL', 'bloom_empty(8, 1)', $$bloom_empty(64, 32, -1, 'linear')$$,
    'bloom_empty(16777216, 3)', 'bloom_empty(2147483647, 1)',
    $$(SELECT q FROM fuzz.queries WHERE name = 'full_x' LIMIT 1)$$,
    $$(SELECT q FROM fuzz.queries WHERE name = 'full_lin' LIMIT 1)$$,
    $$(SELECT q FROM fuzz.queries WHERE name = 'pruned_x' LIMIT 1)$$,
    '(SELECT f FROM fuzz.typed WHERE id = 5)', '(SELECT f FROM fuzz.indexed_pending WHERE id = 5)']) v
UNION ALL
SELECT 'bloomfilter', format('(SELECT f FROM fuzz.filters WHERE id = %s)', i) FROM generate_series(1, 90, 3) i
UNION ALL
SELECT 'bigint[]', v FROM unnest(ARRAY['NULL', $$'{}'$$, $$'{1,2,3}'$$, $$'{-1,5}'$$, $$'{NULL}'$$,
    $$'{1,NULL}'$$, $$'{{1,2},{3,4}}'$$, $$'[5:7]={1,2,3}'$$, 'ARRAY(SELECT generate_series(1, 100000)::bigint)',
    $$'{9223372036854775807,0,4611686018427387904}'$$, 'ARRAY(SELECT x FROM fuzz.elems WHERE x >= 0)',
    'ARRAY(SELECT g * 1000000007 FROM generate_series(1, 5000) g)']) v
UNION ALL
SELECT 'text[]', v FROM unnest(ARRAY['NULL', $$'{}'$$, $$'{a,b}'$$, $$'{NULL}'$$, $$'{{a,b},{c,d}}'$$,
    'ARRAY(SELECT t FROM fuzz.elems)']) v
UNION ALL
SELECT 'regclass', v FROM unnest(ARRAY['NULL', $$'fuzz.indexed_pending_bloofi'$$, $$'fuzz.indexed_tree_bloofi'$$,
    $$'fuzz.typed_bloofi'$$, $$'fuzz.filters'$$, $$'pg_class'$$, '0', $$'pg_class_oid_index'$$]) v
UNION ALL
SELECT 'boolean', v FROM unnest(ARRAY['NULL', 'true', 'false']) v
UNION ALL
SELECT 'oid', v FROM unnest(ARRAY['NULL', '0', '1', '23']) v
UNION ALL
SELECT 'cstring', v FROM unnest(ARRAY['NULL', $$''::cstring$$, $$'m=8,k=1,seed=0,hash=xxh3,v=1:00'::cstring$$,
    $$'m=8,k=1,seed=0,hash=xxh3,v=1:ff'::cstring$$, $$'garbage'::cstring$$,
    '(SELECT f::text FROM fuzz.filters WHERE id = 13)::cstring']) v
UNION ALL
SELECT 'integer[]', v FROM unnest(ARRAY['NULL', $$'{}'$$, $$'{64}'$$, $$'{64,8}'$$, $$'{256,16}'$$,
    $$'{1024,16,4}'$$, $$'{8,8,8,8,8,8,8,8}'$$, $$'{8,8,8,8,8,8,8,8,8}'$$, $$'{0}'$$, $$'{-1,8}'$$,
    $$'{2147483647}'$$, $$'{65536,65536}'$$, $$'{3,2}'$$, $$'{1,1,1}'$$, $$'{32,32}'$$, $$'{33}'$$,
    $$'{NULL}'$$, $$'{{64,8}}'$$, $$'[2:3]={64,8}'$$]) v
UNION ALL
SELECT 'bloomtree', v FROM unnest(ARRAY['NULL', $$bloomtree_empty('{64,8}', '{3,2}')$$,
    $$bloomtree_empty('{4096,64}', '{1,1}', -5)$$]) v
UNION ALL
SELECT 'bloomtree', format('(SELECT t FROM fuzz.bloomtrees WHERE id = %s)', i) FROM generate_series(1, 6) i
UNION ALL
SELECT 'name', v FROM unnest(ARRAY['NULL', $$'f'$$, $$'id'$$, $$'nope'$$]) v
UNION ALL
SELECT 'cstring[]', v FROM unnest(ARRAY['NULL', $$'{1024,3}'::cstring[]$$, $$'{8,1}'::cstring[]$$,
    $$'{1}'::cstring[]$$, $$'{0,0}'::cstring[]$$, $$'{a,b}'::cstring[]$$, $$'{67108864,3}'::cstring[]$$,
    $$'{1024,33}'::cstring[]$$, $$'{1,2,3}'::cstring[]$$]) v
) u(typ, expr);

-- rows to aggregate over, by element type
CREATE TABLE fuzzgen.rows (typ regtype, source text);
INSERT INTO fuzzgen.rows VALUES
    ('bigint', 'SELECT x AS v FROM fuzz.elems'),
    ('bigint', 'SELECT g::bigint AS v FROM generate_series(1, 100000) g'),
    ('bigint', 'SELECT NULL::bigint AS v'), ('bigint', 'SELECT 1::bigint AS v WHERE false'),
    ('text', 'SELECT t AS v FROM fuzz.elems'), ('text', 'SELECT NULL::text AS v'),
    ('bytea', 'SELECT b AS v FROM fuzz.elems'), ('uuid', 'SELECT u AS v FROM fuzz.elems'),
    ('bloomfilter', 'SELECT f AS v FROM fuzz.filters'),
    ('bloomfilter', $$SELECT f AS v FROM fuzz.filters WHERE bloom_m(f) = 1024 AND bloom_k(f) = 3 AND bloom_hash(f) = 'xxh3'$$),
    ('bloomfilter', 'SELECT f AS v FROM fuzz.typed'), ('bloomfilter', 'SELECT NULL::bloomfilter AS v'),
    ('bloomtree', 'SELECT t AS v FROM fuzz.bloomtrees'),
    ('bloomtree', $$SELECT t AS v FROM fuzz.bloomtrees WHERE bloomtree_m(t) = '{64,8}'$$);

-- the functions to call: the extension's whose arguments all have pools, and
-- the wrappers that write trees through the superuser's right (fuzz.*_owned)
CREATE VIEW fuzzgen.targets AS
SELECT p.oid, p.prokind, p.proretset, p.prorettype,
       ARRAY(SELECT a.t FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY a(t, i) ORDER BY a.i) AS args
FROM pg_proc p
WHERE (p.oid IN (SELECT d.objid FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
                 WHERE d.classid = 'pg_proc'::regclass AND d.deptype = 'e' AND e.extname = 'bloomsample')
       OR (p.pronamespace = 'fuzz'::regnamespace AND p.proname LIKE '%\_owned'))
  AND p.prokind IN ('f', 'a')
  AND NOT EXISTS (SELECT 1 FROM unnest(p.proargtypes::oid[]) a(t)
                  WHERE a.t NOT IN (SELECT typ FROM fuzzgen.pool))
  AND (p.prokind <> 'a' OR p.proargtypes[0] IN (SELECT typ FROM fuzzgen.rows));

CREATE FUNCTION fuzzgen.calls(seed double precision, n integer) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
    t record;
    fns oid[];
    pick oid;
    args text[];
    fn text;
    src text;
    gucs text[] := ARRAY[
        $g$SET bloomsample.bst_sample_method = 'descent'$g$, $g$SET bloomsample.bst_sample_method = 'enumerate'$g$,
        $g$SET bloomsample.bst_sample_method = 'auto'$g$, $g$SET bloomsample.bst_reconstruct_method = 'tree'$g$,
        $g$SET bloomsample.bst_reconstruct_method = 'index'$g$, $g$SET bloomsample.bst_reconstruct_method = 'auto'$g$,
        'SET bloomsample.bst_random_seed = 7', 'SET bloomsample.bst_random_seed = -1',
        $g$SET bloomsample.bst_memory_limit = '1MB'$g$, $g$SET bloomsample.bst_memory_limit = '256MB'$g$,
        'SET enable_seqscan = off', 'SET enable_seqscan = on',
        -- VACUUM here, at fixed points, rather than autovacuum at random ones
        -- (the cluster runs without it): after sqlsmith's rolled-back writes
        -- it removes their dead entries from the Bloofi indexes
        'VACUUM fuzz.indexed_pending', 'VACUUM fuzz.indexed_tree', 'VACUUM fuzz.typed',
        'VACUUM fuzz.filters'];
BEGIN
    PERFORM setseed(mod(seed::numeric, 1000003) / 1000003);
    SELECT array_agg(g.oid ORDER BY g.oid::regprocedure::text) INTO fns FROM fuzzgen.targets g;
    FOR i IN 1 .. n LOOP
        IF random() < 0.04 THEN
            RETURN NEXT gucs[1 + floor(random() * array_length(gucs, 1))::int] || ';';
            CONTINUE;
        END IF;
        pick := fns[1 + floor(random() * array_length(fns, 1))::int];
        SELECT * INTO t FROM fuzzgen.targets g WHERE g.oid = pick;
        fn := t.oid::regproc::text;
        args := ARRAY[]::text[];
        FOR j IN 1 .. coalesce(array_length(t.args, 1), 0) LOOP
            IF t.prokind = 'a' AND j = 1 THEN
                args := args || 's.v'::text;
            ELSE
                args := args || (SELECT format('(%s)::%s', p.expr, p.typ) FROM fuzzgen.pool p
                                 WHERE p.typ = t.args[j] ORDER BY random() LIMIT 1);
            END IF;
        END LOOP;
        IF t.prokind = 'a' THEN
            SELECT r.source INTO src FROM fuzzgen.rows r WHERE r.typ = t.args[1] ORDER BY random() LIMIT 1;
            RETURN NEXT format('SELECT length(%s(%s)::text) FROM (%s) s;', fn, array_to_string(args, ', '), src);
        ELSIF t.proretset OR t.prorettype = 'record'::regtype THEN
            RETURN NEXT format('SELECT count(*), sum(length(r::text)) FROM %s(%s) r;', fn,
                               array_to_string(args, ', '));
        ELSE
            RETURN NEXT format('SELECT length(%s(%s)::text);', fn, array_to_string(args, ', '));
        END IF;
    END LOOP;
END $$;
