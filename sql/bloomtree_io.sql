-- The bloomtree type: text and binary forms, building, the element types and
-- NULLs, introspection.  (Operators: bloomtree_ops; aggregates: bloomtree_agg;
-- parameter search: bloomtree_optimize; errors: bloomtree_errors.)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;

-- ---- text form: parameters and the uncompressed breadth-first array --------------
-- storage M = 16 + 16*4 + 64*3 = 272 bits = 34 bytes
SELECT bloomtree_empty(ARRAY[16, 4, 3], ARRAY[3, 2, 2]);
SELECT bloomtree_add(bloomtree_empty(ARRAY[16, 4, 3], ARRAY[3, 2, 2]), 42) AS with_42;
SELECT t::text::bloomtree = t AS round_trip, t = t::text::bloomtree::text::bloomtree AS again
FROM (SELECT bloomtree_from_array(ARRAY[1, 2, 3]::bigint[], ARRAY[16, 4, 3], ARRAY[3, 2, 2], -9) t) s;
SELECT ' m={16,4,3},k={3,2,2},seed=0,v=1:70000000a20a000000000000000000003080a1180200000000000000000000000000 '::bloomtree
       = bloomtree_add(bloomtree_empty(ARRAY[16, 4, 3], ARRAY[3, 2, 2]), 42) AS whitespace_and_case_ok;
SELECT 'm={16,4,3},k={3,2,2},seed=0,v=1:70000000A20A000000000000000000003080A1180200000000000000000000000000'::bloomtree::text;
-- one level is a plain filter with this scheme's hashing
SELECT bloomtree_add(bloomtree_empty(ARRAY[64], ARRAY[3]), 42);

-- ---- binary form: the level-wise coded form --------------------------------------
SELECT bloomtree_send(bloomtree_empty(ARRAY[16, 4, 3], ARRAY[3, 2, 2], 7));
SELECT length(bloomtree_send(t)) = bloomtree_compressed_bytes(t) AS send_is_compressed_form
FROM (SELECT bloomtree_from_array(ARRAY(SELECT generate_series(1, 500))::bigint[], ARRAY[500, 4, 3], ARRAY[6, 3, 2]) t) s;

-- ---- element types: int2/int4/int8 are one element; text, bytea, uuid ---------------
SELECT bloomtree_add(t, 42::int4) = bloomtree_add(t, 42::int8) AS int_same,
       bloomtree_add(t, 42::int2) @> 42::bigint AS int2_member,
       bloomtree_add(t, 'abc'::text) = bloomtree_add(t, 'abc'::bytea) AS text_bytea_same
FROM (SELECT bloomtree_empty(ARRAY[256, 4], ARRAY[4, 2]) t) s;
SELECT t @> 'apple'::text AS has_apple, t @> 'pear'::text AS has_pear,
       'apple'::text <@ t AS contained, bloomtree_contains(t, 'apple'::text) AS fn,
       t @> 'apple' AS untyped_literal
FROM (SELECT bloomtree_add(bloomtree_empty(ARRAY[1024, 4, 3], ARRAY[4, 2, 2]), 'apple'::text) t) s;
SELECT t @> '\xdeadbeef'::bytea, t @> '\xdeadbeee'::bytea, '\xdeadbeef'::bytea <@ t,
       bloomtree_contains(t, '\xdeadbeef'::bytea)
FROM (SELECT bloomtree_add(bloomtree_empty(ARRAY[1024, 4, 3], ARRAY[4, 2, 2]), '\xdeadbeef'::bytea) t) s;
SELECT t @> 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid,
       t @> 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12'::uuid,
       'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid <@ t,
       bloomtree_contains(t, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid)
FROM (SELECT bloomtree_add(bloomtree_empty(ARRAY[1024, 4, 3], ARRAY[4, 2, 2]),
                           'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid) t) s;
SELECT t @> 7::bigint, 7::bigint <@ t, t @> 8::bigint, bloomtree_contains(t, 7::bigint)
FROM (SELECT bloomtree_add(bloomtree_empty(ARRAY[1024, 4, 3], ARRAY[4, 2, 2]), 7) t) s;

-- NULLs: strict functions; NULL array elements are skipped
SELECT bloomtree_add(NULL::bloomtree, 1) IS NULL AS add_null,
       bloomtree_empty(ARRAY[16], ARRAY[2]) @> NULL::bigint IS NULL AS contains_null;
SELECT bloomtree_from_array(ARRAY[1, NULL, 3]::bigint[], ARRAY[64, 4], ARRAY[3, 2])
       = bloomtree_from_array(ARRAY[1, 3]::bigint[], ARRAY[64, 4], ARRAY[3, 2]) AS nulls_skipped;
SELECT bloomtree_from_array(ARRAY['x', NULL, 'y'], ARRAY[64, 4], ARRAY[3, 2])
       = bloomtree_add(bloomtree_add(bloomtree_empty(ARRAY[64, 4], ARRAY[3, 2]), 'x'::text), 'y'::text) AS text_array;

-- ---- introspection -----------------------------------------------------------------
SELECT bloomtree_m(t), bloomtree_k(t), bloomtree_seed(t), bloomtree_storage_bits(t),
       bloomtree_fill(t), bloomtree_compressed_bytes(t), bloomtree_fp_rate(t), bloomtree_expected_fp(t)
FROM (SELECT bloomtree_empty(ARRAY[100, 4, 3], ARRAY[6, 3, 2], 5) t) s;
SELECT level, m, k, filters, bits, ones, round(fill::numeric, 4) AS fill, coded_bits, mode, coded_bytes,
       round(entropy_bytes::numeric, 2) AS entropy_bytes, round(coded_entropy_bytes::numeric, 2) AS coded_entropy
FROM bloomtree_levels(bloomtree_from_array(ARRAY(SELECT generate_series(1, 1000))::bigint[],
                                           ARRAY[1000, 4, 3], ARRAY[6, 3, 2]));
-- Theorem 4.1 is the sum of the levels' terms; the coded form stays within a few
-- bytes of the entropy of what it codes (and below Theorem 4.1: children of zero
-- bits are not coded); a level that is all zeros or all ones costs no byte
WITH t AS (SELECT bloomtree_from_array(ARRAY(SELECT generate_series(1, 1000))::bigint[],
                                       ARRAY[1000, 4, 3], ARRAY[6, 3, 2]) t),
     l AS (SELECT sum(entropy_bytes) e, sum(coded_entropy_bytes) ce, sum(coded_bytes) cb FROM t, bloomtree_levels(t))
SELECT abs(bloomtree_entropy_bytes(t) - e) < 1e-9 AS thm41_is_sum,
       cb <= ce + 5 * 3 AS coded_near_entropy,
       bloomtree_compressed_bytes(t) = 8 + 12 * 3 + cb AS compressed_is_headers_plus_streams,
       bloomtree_compressed_bytes(t) < bloomtree_entropy_bytes(t) AS below_thm41
FROM t, l;
SELECT array_agg(mode ORDER BY level) AS modes
FROM bloomtree_levels('m={8,2},k={1,1},seed=0,v=1:ff0000'::bloomtree);
SELECT array_agg(mode ORDER BY level) AS modes
FROM bloomtree_levels('m={8,2},k={1,1},seed=0,v=1:ffffff'::bloomtree);
-- the posterior of equations 11-12 by hand: root 2 bits k=1 both set; children [1,0] and [1,1]
-- with k = 1: sqrt(1/2); the expected rate: (1/2 + 1) / 2 = 3/4
SELECT round(bloomtree_fp_rate(t)::numeric, 12) AS posterior, bloomtree_expected_fp(t) AS expected
FROM (SELECT 'm={2,2},k={1,1},seed=0,v=1:37'::bloomtree t) s;
