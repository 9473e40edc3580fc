-- The bloomfilter type: text I/O, introspection, building, operators, typmod,
-- and every error of the type's functions.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;

-- text form: readable parameters, hex payload of ceil(m/8) bytes, exact round trip
SELECT bloom_empty(64, 3);
SELECT bloom_empty(100, 2, -7, 'linear');
SELECT 'm=64,k=3,seed=0,hash=xxh3,v=1:0000000140000080'::bloomfilter;
SELECT ' m=64,k=3,seed=0,hash=xxh3,v=1:0000000140000080 '::bloomfilter = bloom_add(bloom_empty(64, 3), 42) AS whitespace_ok;
SELECT 'm=64,k=3,seed=0,hash=xxh3,v=1:00000001400000AB'::bloomfilter::text;
SELECT bloom_add(bloom_empty(64, 3), 42) = 'm=64,k=3,seed=0,hash=xxh3,v=1:0000000140000080';

-- introspection
SELECT bloom_m(f), bloom_k(f), bloom_seed(f), bloom_hash(f), bloom_popcount(f),
       bloom_fill_ratio(f), round(bloom_fp_rate(f)::numeric, 6) AS fp_rate
FROM (SELECT bloom_add(bloom_add(bloom_empty(64, 3, 5), 1), 2) AS f) s;
SELECT bloom_m(bloom_empty(16777219, 1)), bloom_popcount(bloom_empty(16777219, 1));
SELECT bloom_hash(bloom_empty(64, 1, 0, 'linear'));

-- element types: int2/int4/int8 are the same element; text, bytea, uuid
SELECT bloom_add(bloom_empty(256, 4), 42::int4) = bloom_add(bloom_empty(256, 4), 42::int8) AS int_same,
       bloom_add(bloom_empty(256, 4), 42::int2) @> 42::bigint AS int2_member;
SELECT f @> 'apple'::text AS has_apple, f @> 'pear'::text AS has_pear,
       'apple' <@ f AS contained, bloom_contains(f, 'apple'::text) AS fn
FROM (SELECT bloom_add(bloom_empty(1024, 5), 'apple'::text) AS f) s;
SELECT f @> '\xdeadbeef'::bytea, f @> '\xdeadbeee'::bytea,
       '\xdeadbeef'::bytea <@ f, bloom_contains(f, '\xdeadbeef'::bytea)
FROM (SELECT bloom_add(bloom_empty(1024, 5), '\xdeadbeef'::bytea) AS f) s;
SELECT f @> 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid,
       f @> 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12'::uuid,
       'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid <@ f
FROM (SELECT bloom_add(bloom_empty(1024, 5), 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid) AS f) s;
-- text and bytea with the same bytes are the same element (documented)
SELECT bloom_add(bloom_empty(1024, 5), 'abc'::text) = bloom_add(bloom_empty(1024, 5), 'abc'::bytea);
-- an untyped literal resolves to text
SELECT bloom_add(bloom_empty(1024, 5), 'abc') @> 'abc';

-- NULLs: strict functions
SELECT bloom_add(NULL::bloomfilter, 1) IS NULL, bloom_empty(64, 3) @> NULL::bigint IS NULL;
SELECT bloom_from_array(ARRAY[1, NULL, 3]::bigint[], 64, 3) = bloom_from_array(ARRAY[1, 3]::bigint[], 64, 3);

-- union, intersection, equality
SELECT (a | b) @> 1 AND (a | b) @> 2 AS union_has_both,
       bloom_union(a, b) = (a | b) AS fn_union,
       bloom_intersect(a, b) = (a & b) AS fn_inter,
       (a & a) = a AS idempotent, a <> b AS differ, a = a AS equal
FROM (SELECT bloom_from_array(ARRAY[1]::bigint[], 512, 4) a,
             bloom_from_array(ARRAY[2]::bigint[], 512, 4) b) s;
-- same bits but other seed: not equal
SELECT bloom_empty(64, 3, 1) = bloom_empty(64, 3, 2);

-- estimates on tiny exact cases
SELECT # bloom_empty(1024, 3) AS empty_card, bloom_cardinality(bloom_empty(1024, 3)) AS fn;
SELECT round(# bloom_from_array(ARRAY[1,2,3,4,5]::bigint[], 4096, 3)) AS five;
-- a full filter: finite, ln(1/(2m)) / (k ln(1 - 1/m)) = ln(1/16) / ln(7/8) = 20.7636
SELECT round((# f)::numeric, 4) AS full_card FROM (SELECT ('m=8,k=1,seed=0,hash=xxh3,v=1:ff')::bloomfilter AS f) s;
SELECT bloom_intersection_cardinality(a, b) AS disjoint_est,
       round(bloom_union_cardinality(a, b)) AS union_est,
       round(bloom_jaccard(a, a)::numeric, 6) AS self_jaccard
FROM (SELECT bloom_from_array(ARRAY[1,2,3]::bigint[], 65536, 3) a,
             bloom_from_array(ARRAY[4,5]::bigint[], 65536, 3) b) s;

-- sizing helpers (lecture notes: m = -n ln p / ln^2 2, k = m/n ln 2)
SELECT bloom_optimal_m(1000, 0.01), bloom_optimal_k(9586, 1000),
       round(bloom_expected_fp(10000, 7, 1000)::numeric, 6);
SELECT bloom_m(f), bloom_k(f), bloom_seed(f), bloom_hash(f)
FROM (SELECT bloom_for_capacity(1000, 0.01, 3) AS f) s;
SELECT bloom_m(bloom_for_capacity(1, 0.5));  -- at least 8 bits

-- fold: every element stays a member; equals the filter built directly at m/factor
SELECT bloom_fold(f) = bloom_from_array(ARRAY(SELECT generate_series(1, 50)::bigint), 512, 3) AS fold_xxh3,
       bloom_fold(f, 4) = bloom_from_array(ARRAY(SELECT generate_series(1, 50)::bigint), 256, 3) AS fold4
FROM (SELECT bloom_from_array(ARRAY(SELECT generate_series(1, 50)::bigint), 1024, 3) AS f) s;
SELECT bloom_fold(f, 3) = bloom_from_array(ARRAY(SELECT generate_series(-5, 50)::bigint), 300, 4, 9, 'linear') AS fold_linear
FROM (SELECT bloom_from_array(ARRAY(SELECT generate_series(-5, 50)::bigint), 900, 4, 9, 'linear') AS f) s;
SELECT bloom_fold(bloom_empty(64, 3), 1) = bloom_empty(64, 3) AS fold1;

-- typmod: bloomfilter(m, k) columns reject other parameters
CREATE TABLE typed (f bloomfilter(1024, 5));
\d typed
INSERT INTO typed VALUES (bloom_empty(1024, 5)), (bloom_empty(1024, 5, 7, 'linear'));
INSERT INTO typed VALUES (bloom_empty(1024, 4));
INSERT INTO typed VALUES (bloom_empty(2048, 5));
INSERT INTO typed VALUES ('m=64,k=3,seed=0,hash=xxh3,v=1:0000000000000000');
SELECT count(*) FROM typed;
SELECT bloom_empty(64, 3)::bloomfilter(64, 3) = bloom_empty(64, 3);
SELECT bloom_empty(64, 3)::bloomfilter(64, 4);
CREATE TABLE bad_typmod (f bloomfilter(1024));
CREATE TABLE bad_typmod (f bloomfilter(4, 3));
CREATE TABLE bad_typmod (f bloomfilter(1024, 33));
CREATE TABLE bad_typmod (f bloomfilter(67108864, 3));
DROP TABLE typed;

-- storage: a sparse filter compresses under TOAST (125 kB of bits, three elements)
CREATE TEMP TABLE sparse AS SELECT bloom_from_array(ARRAY[1, 2, 3]::bigint[], 1000000, 3) AS f;
SELECT pg_column_size(f) < 4000 AS compressed, bloom_popcount(f), f @> 2 AS member FROM sparse;

-- ---- errors ------------------------------------------------------------------
-- parameters
SELECT bloom_empty(7, 3);
SELECT bloom_empty(64, 0);
SELECT bloom_empty(64, 33);
SELECT bloom_empty(64, 3, 0, 'md5');
SELECT bloom_from_array(ARRAY[1]::bigint[], 4, 3);
SELECT bloom_from_array(ARRAY['a'], 64, 3, 0, 'sha1');
SELECT bloom_for_capacity(0, 0.01);
SELECT bloom_for_capacity(100, 0);
SELECT bloom_for_capacity(100, 1);
SELECT bloom_for_capacity(100, 'NaN');
SELECT bloom_for_capacity(1000000000000, 0.0001);
SELECT bloom_optimal_m(-1, 0.1);
SELECT bloom_optimal_m(9223372036854775807, 1e-300);
SELECT bloom_optimal_k(0, 10);
SELECT bloom_optimal_k(10, 0);
SELECT bloom_expected_fp(0, 3, 10);
SELECT bloom_expected_fp(100, 0, 10);
SELECT bloom_expected_fp(100, 3, -1);
SELECT bloom_fold(bloom_empty(64, 3), 3);
SELECT bloom_fold(bloom_empty(64, 3), 0);
SELECT bloom_fold(bloom_empty(64, 3), -2);
SELECT bloom_fold(bloom_empty(64, 3), 16);
-- incompatible filters, each operation names both parameter sets
SELECT bloom_empty(64, 3) & bloom_empty(128, 3);
SELECT bloom_empty(64, 3) | bloom_empty(64, 4);
SELECT bloom_intersection_cardinality(bloom_empty(64, 3, 1), bloom_empty(64, 3, 2));
SELECT bloom_union_cardinality(bloom_empty(64, 3), bloom_empty(64, 3, 0, 'linear'));
SELECT bloom_jaccard(bloom_empty(64, 3), bloom_empty(72, 3));
-- malformed text input
SELECT ''::bloomfilter;
SELECT 'garbage'::bloomfilter;
SELECT 'm=64'::bloomfilter;
SELECT 'm=,k=3,seed=0,hash=xxh3,v=1:00'::bloomfilter;
SELECT 'm=7,k=3,seed=0,hash=xxh3,v=1:00'::bloomfilter;
SELECT 'm=2147483649,k=3,seed=0,hash=xxh3,v=1:00'::bloomfilter;
SELECT 'm=99999999999999999999,k=3,seed=0,hash=xxh3,v=1:00'::bloomfilter;
SELECT 'm=64,k=0,seed=0,hash=xxh3,v=1:0000000000000000'::bloomfilter;
SELECT 'm=64,k=3,seed=2147483648,hash=xxh3,v=1:0000000000000000'::bloomfilter;
SELECT 'm=64,k=3,seed=0,hash=md5,v=1:0000000000000000'::bloomfilter;
SELECT 'm=64,k=3,seed=0,hash=xxh3,v=2:0000000000000000'::bloomfilter;
SELECT 'm=64,k=3,seed=0,hash=xxh3,v=1:00000000000000'::bloomfilter;
SELECT 'm=64,k=3,seed=0,hash=xxh3,v=1:000000000000000000'::bloomfilter;
SELECT 'm=64,k=3,seed=0,hash=xxh3,v=1:00000000000000zz'::bloomfilter;
SELECT 'm=64,k=3,seed=0,hash=xxh3,v=1:0000000000000000 x'::bloomfilter;
SELECT 'm=60,k=3,seed=0,hash=xxh3,v=1:00000000000000f0'::bloomfilter;
SELECT 'k=3,m=64,seed=0,hash=xxh3,v=1:0000000000000000'::bloomfilter;
-- a huge claimed m with a short payload is rejected before any allocation
SELECT 'm=2147483648,k=3,seed=0,hash=xxh3,v=1:00'::bloomfilter;
-- bloomfilter_hash hashes the bits in interruptible chunks: the same value as
-- hash_any over them (hashtext of the same bytes, 'U' = 0x55), in the first
-- chunk, across chunk boundaries and at every word count mod 3
SELECT n, bloomfilter_hash(('m=' || 8 * n || ',k=1,seed=0,hash=xxh3,v=1:' || repeat('55', n))::bloomfilter)
        = (hashtext(repeat('U', n)) # hashint4((8 * n) # (1 << 24)) # hashint4(0)) AS same_as_hash_any
FROM unnest(ARRAY[8, 16, 24, 1048576, 1048584, 3145736]) n;
