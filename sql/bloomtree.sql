-- The bloomtree type: text and binary forms, building, every operator for every
-- element type, aggregates (also in parallel plans), introspection, the false-
-- positive figures, and every error with its SQLSTATE.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;

-- the SQLSTATE and message of a statement that must fail
CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE q;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

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

-- ---- union, intersection, equality, hashing ---------------------------------------
SELECT (a | b) @> 1 AND (a | b) @> 2 AS union_has_both,
       bloomtree_union(a, b) = (a | b) AS fn_union,
       bloomtree_intersect(a, b) = (a & b) AS fn_inter,
       (a & a) = a AS and_idempotent, (a | a) = a AS or_idempotent,
       ((a | b) & a) = a AS absorption,
       a <> b AS differ, a = a AS equal, (a & b) = (b & a) AS commutes
FROM (SELECT bloomtree_from_array(ARRAY[1]::bigint[], ARRAY[512, 4, 3], ARRAY[4, 2, 2]) a,
             bloomtree_from_array(ARRAY[2]::bigint[], ARRAY[512, 4, 3], ARRAY[4, 2, 2]) b) s;
-- an AND clears the bits whose filters became empty: root bit 0 is set in both, its
-- filter is [1,0] in a and [0,1] in b, so the AND is the empty tree
SELECT a & b AS pruned_and, (a & b) = bloomtree_empty(ARRAY[2, 2], ARRAY[1, 1]) AS is_empty
FROM (SELECT 'm={2,2},k={1,1},seed=0,v=1:05'::bloomtree a, 'm={2,2},k={1,1},seed=0,v=1:09'::bloomtree b) s;
-- same bits, other seed: not equal
SELECT bloomtree_empty(ARRAY[64], ARRAY[3], 1) = bloomtree_empty(ARRAY[64], ARRAY[3], 2) AS seeds_equal;
-- GROUP BY / DISTINCT use the hash opclass
SET enable_sort = off;
SELECT count(*) AS distinct_trees FROM (SELECT DISTINCT t FROM (SELECT bloomtree_from_array(ARRAY[g % 3]::bigint[], ARRAY[64, 4], ARRAY[3, 2]) t
      FROM generate_series(1, 30) g) s) d;
SELECT count(*) AS groups FROM (SELECT t FROM (SELECT bloomtree_from_array(ARRAY[g % 5]::bigint[], ARRAY[64, 4], ARRAY[3, 2]) t
      FROM generate_series(1, 30) g) s GROUP BY t) g;
RESET enable_sort;

-- ---- large sets: no false negatives, intersection keeps the common elements ------------
-- the paper's d = 3, rho_1 = 1 configuration at n = n_max = 100,000
CREATE TABLE bt_big AS
    SELECT bloomtree_agg(x, ARRAY[100000, 4, 3], ARRAY[6, 3, 2]) AS t
    FROM generate_series(1, 100000) x;
SELECT count(*) FILTER (WHERE NOT t @> x) AS false_negatives
FROM bt_big, generate_series(1, 100000) x;
-- the measured false-positive rate over 100,000 non-members is close to the expected
-- rate (standard error ~1%) and far above the paper's posterior (equations 11-12)
SELECT abs(measured / expected - 1) < 0.08 AS measured_matches_expected,
       posterior < expected / 10 AS posterior_far_below
FROM (SELECT count(*) FILTER (WHERE t @> x)::float8 / 100000 AS measured,
             bloomtree_expected_fp(t) AS expected, bloomtree_fp_rate(t) AS posterior
      FROM bt_big, generate_series(1000001, 1100000) x GROUP BY t) s;
SELECT bloomtree_storage_bits(t) AS storage_bits, bloomtree_compressed_bytes(t) < 1700000 / 8 AS compressed,
       bloomtree_compressed_bytes(t) < bloomtree_entropy_bytes(t) AS below_thm41
FROM bt_big;
-- A = 1..60000, B = 40001..100000: A & B holds all of 40001..60000, A | B all of 1..100000
CREATE TABLE bt_ab AS
    SELECT (SELECT bloomtree_agg(x, ARRAY[60000, 4, 3], ARRAY[6, 3, 2]) FROM generate_series(1, 60000) x) AS a,
           (SELECT bloomtree_agg(x, ARRAY[60000, 4, 3], ARRAY[6, 3, 2]) FROM generate_series(40001, 100000) x) AS b;
CREATE TABLE bt_ab2 AS SELECT a, b, a & b AS i, a | b AS u FROM bt_ab;
-- (and, being bitwise below both, A & B reports nothing that A and B do not both report)
SELECT count(*) FILTER (WHERE NOT i @> x AND x BETWEEN 40001 AND 60000) AS and_false_negatives,
       count(*) FILTER (WHERE NOT u @> x AND x <= 100000) AS or_false_negatives,
       count(*) FILTER (WHERE i @> x AND NOT (a @> x AND b @> x)) AS and_beyond_both,
       count(*) FILTER (WHERE (a @> x OR b @> x) AND NOT u @> x) AS or_misses
FROM bt_ab2, generate_series(1, 150000) x;

-- ---- aggregates ------------------------------------------------------------------
CREATE TABLE bt_src AS
    SELECT g AS x, 'w' || g AS w, ('\x' || lpad(to_hex(g), 8, '0'))::bytea AS b,
           md5(g::text)::uuid AS u, g % 4 AS grp
    FROM generate_series(1, 3000) g;
SELECT (SELECT bloomtree_agg(x, ARRAY[3000, 4, 3], ARRAY[5, 3, 2]) FROM bt_src)
       = bloomtree_from_array(ARRAY(SELECT x FROM bt_src)::bigint[], ARRAY[3000, 4, 3], ARRAY[5, 3, 2]) AS agg_int8,
       (SELECT bloomtree_agg(w, ARRAY[3000, 4, 3], ARRAY[5, 3, 2], 11) FROM bt_src)
       = bloomtree_from_array(ARRAY(SELECT w FROM bt_src), ARRAY[3000, 4, 3], ARRAY[5, 3, 2], 11) AS agg_text;
SELECT bool_and(tb @> b) AS bytea_members, bool_and(tu @> u) AS uuid_members
FROM bt_src,
     (SELECT bloomtree_agg(b, ARRAY[3000, 4], ARRAY[4, 2]) tb, bloomtree_agg(u, ARRAY[3000, 4], ARRAY[4, 2]) tu FROM bt_src) s;
-- per group, and union / intersection aggregates against the operators
CREATE TABLE bt_groups AS
    SELECT grp, bloomtree_agg(x, ARRAY[1000, 4, 3], ARRAY[5, 3, 2]) AS t FROM bt_src GROUP BY grp;
SELECT (SELECT bloomtree_union_agg(t) FROM bt_groups)
       = (SELECT bloomtree_agg(x, ARRAY[1000, 4, 3], ARRAY[5, 3, 2]) FROM bt_src) AS union_agg_is_agg_of_all,
       (SELECT bloomtree_intersect_agg(t) FROM bt_groups)
       = (SELECT a.t & b.t & c.t & d.t FROM bt_groups a, bt_groups b, bt_groups c, bt_groups d
          WHERE a.grp = 0 AND b.grp = 1 AND c.grp = 2 AND d.grp = 3) AS intersect_agg_is_and;
SELECT bloomtree_agg(x, ARRAY[64], ARRAY[2]) IS NULL AS empty_group_null FROM bt_src WHERE false;
SELECT bloomtree_agg(NULL::bigint, ARRAY[64], ARRAY[2]) = bloomtree_empty(ARRAY[64], ARRAY[2]) AS all_null_empty;
SELECT bloomtree_union_agg(t) IS NULL AS union_of_nothing FROM bt_groups WHERE false;

-- parallel plans give the serial result
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
ALTER TABLE bt_src SET (parallel_workers = 2);
ALTER TABLE bt_groups SET (parallel_workers = 2);
EXPLAIN (COSTS OFF) SELECT bloomtree_agg(x, ARRAY[3000, 4, 3], ARRAY[5, 3, 2]) FROM bt_src;
SELECT (SELECT bloomtree_agg(x, ARRAY[3000, 4, 3], ARRAY[5, 3, 2]) FROM bt_src)
       = bloomtree_from_array(ARRAY(SELECT x FROM bt_src ORDER BY x)::bigint[], ARRAY[3000, 4, 3], ARRAY[5, 3, 2]) AS parallel_agg,
       (SELECT bloomtree_union_agg(t) FROM bt_groups)
       = (SELECT bloomtree_agg(x, ARRAY[1000, 4, 3], ARRAY[5, 3, 2]) FROM bt_src) AS parallel_union;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;

-- membership in a scan of many trees and of one tree (the per-call-site cache)
SELECT grp, count(*) FILTER (WHERE t @> x) AS members
FROM bt_groups JOIN bt_src USING (grp) GROUP BY grp ORDER BY grp;
SELECT count(*) AS members_of_group_0
FROM bt_src WHERE (SELECT t FROM bt_groups WHERE grp = 0) @> x AND grp = 0;

-- ---- parameter search ------------------------------------------------------------
-- d = 2 is searched exhaustively: the front is sorted by the objective's rate, no
-- configuration of it is dominated by another, every one has the root of rho1 * n_max
-- bits and the lower filters inside C2; the measured-rate figure is never below the
-- paper's posterior (a geometric mean of the same per-query probabilities)
CREATE TABLE bt_front AS SELECT row_number() OVER () AS i, * FROM bloomtree_optimize(3000, 2);
SELECT count(*) > 10 AS long_front,
       bool_and(m[1] = 3000 AND m[2] BETWEEN 2 AND 8 AND k[1] BETWEEN 1 AND 8 AND k[2] BETWEEN 1 AND 4) AS inside,
       bool_and(storage_bits = 3000 + 3000 * m[2]) AS storage,
       bool_and(expected_fp >= fp_rate) AS expected_above_posterior,
       bool_and(sbf_bits > 0 AND compressed_bits > 0) AS sizes
FROM bt_front;
SELECT count(*) AS out_of_order FROM bt_front a JOIN bt_front b ON b.i = a.i + 1 WHERE b.expected_fp < a.expected_fp;
SELECT count(*) AS dominated FROM bt_front a, bt_front b
WHERE a.i <> b.i AND b.expected_fp <= a.expected_fp AND b.compressed_bits <= a.compressed_bits
  AND (b.expected_fp < a.expected_fp OR b.compressed_bits < a.compressed_bits);
-- the paper's objective gives another front, sorted by the posterior
SELECT count(*) FILTER (WHERE b.fp_rate < a.fp_rate) AS out_of_order_posterior
FROM (SELECT row_number() OVER () AS i, * FROM bloomtree_optimize(3000, 2, 0.5, 'posterior')) a
JOIN (SELECT row_number() OVER () AS i, * FROM bloomtree_optimize(3000, 2, 0.5, 'posterior')) b ON b.i = a.i + 1;
-- a configuration of the front builds a tree whose measured rate is near the predicted one
SELECT abs(measured / expected_fp - 1) < 0.15 AS front_config_measures_as_predicted
FROM (SELECT f.expected_fp,
             (SELECT count(*) FILTER (WHERE t @> x)::float8 / 50000
              FROM (SELECT bloomtree_agg(g, f.m, f.k) t FROM generate_series(1, 3000) g) s,
                   generate_series(1000001, 1050000) x) AS measured
      FROM bt_front f WHERE f.expected_fp BETWEEN 0.02 AND 0.2 ORDER BY f.i LIMIT 1) s;
SELECT pg_temp.err($$SELECT * FROM bloomtree_optimize(0, 2)$$);
SELECT pg_temp.err($$SELECT * FROM bloomtree_optimize(1000, 0)$$);
SELECT pg_temp.err($$SELECT * FROM bloomtree_optimize(1000, 2, 0)$$);
SELECT pg_temp.err($$SELECT * FROM bloomtree_optimize(1000, 2, 'NaN')$$);
SELECT pg_temp.err($$SELECT * FROM bloomtree_optimize(1000, 2, 1, 'geometric')$$);
SELECT pg_temp.err($$SELECT * FROM bloomtree_optimize(2000000000, 1, 2)$$);
SELECT count(*) AS nothing_fits FROM bloomtree_optimize(1000, 4, 200);

-- ---- errors ----------------------------------------------------------------------
-- parameters
SELECT pg_temp.err($$SELECT bloomtree_empty(ARRAY[]::integer[], ARRAY[]::integer[])$$);
SELECT pg_temp.err($$SELECT bloomtree_empty(ARRAY[2,2,2,2,2,2,2,2,2], ARRAY[1,1,1,1,1,1,1,1,1])$$);
SELECT pg_temp.err($$SELECT bloomtree_empty(ARRAY[16, 4], ARRAY[3])$$);
SELECT pg_temp.err($$SELECT bloomtree_empty(ARRAY[16, 0], ARRAY[3, 2])$$);
SELECT pg_temp.err($$SELECT bloomtree_empty(ARRAY[16, 4], ARRAY[3, 33])$$);
SELECT pg_temp.err($$SELECT bloomtree_empty(ARRAY[16, 4], ARRAY[0, 1])$$);
SELECT pg_temp.err($$SELECT bloomtree_empty(ARRAY[16, NULL], ARRAY[3, 2])$$);
SELECT pg_temp.err($$SELECT bloomtree_empty(ARRAY[[16, 4]], ARRAY[[3, 2]])$$);
SELECT pg_temp.err($$SELECT bloomtree_empty(ARRAY[100000, 100000], ARRAY[1, 1])$$);
SELECT pg_temp.err($$SELECT bloomtree_empty(ARRAY[2, 2, 2, 2], ARRAY[32, 32, 32, 32])$$);
SELECT bloomtree_empty(ARRAY[100000, 100000], ARRAY[1, 1]);
SELECT pg_temp.err($$SELECT bloomtree_from_array(ARRAY[1.5]::numeric[], ARRAY[16], ARRAY[2])$$);
SELECT pg_temp.err($$SELECT bloomtree_from_array(ARRAY[1]::bigint[], ARRAY[16], ARRAY[0])$$);
SELECT pg_temp.err($$SELECT bloomtree_agg(x, ARRAY[64], ARRAY[x::int % 2 + 1]) FROM generate_series(1, 3) x$$);
SELECT pg_temp.err($$SELECT bloomtree_agg(x, NULL::integer[], ARRAY[1]) FROM generate_series(1, 3) x$$);
SELECT pg_temp.err($$SELECT bloomtree_agg(x, ARRAY[64], ARRAY[1], NULL) FROM generate_series(1, 3) x$$);
-- incompatible trees: every operation names both parameter sets
SELECT bloomtree_empty(ARRAY[64, 4], ARRAY[3, 2]) & bloomtree_empty(ARRAY[64, 5], ARRAY[3, 2]);
SELECT pg_temp.err($$SELECT bloomtree_empty(ARRAY[64], ARRAY[3]) | bloomtree_empty(ARRAY[64], ARRAY[3], 1)$$);
SELECT pg_temp.err($$SELECT bloomtree_union_agg(t) FROM (VALUES (bloomtree_empty(ARRAY[64], ARRAY[3])),
                                                          (bloomtree_empty(ARRAY[64, 2], ARRAY[3, 1]))) v(t)$$);
SELECT pg_temp.err($$SELECT bloomtree_intersect_agg(t) FROM (VALUES (bloomtree_empty(ARRAY[64], ARRAY[3])),
                                                          (bloomtree_empty(ARRAY[64], ARRAY[4]))) v(t)$$);
-- malformed text input
SELECT pg_temp.err($$SELECT ''::bloomtree$$);
SELECT pg_temp.err($$SELECT 'garbage'::bloomtree$$);
SELECT pg_temp.err($$SELECT 'm={16}'::bloomtree$$);
SELECT pg_temp.err($$SELECT 'm={},k={},seed=0,v=1:'::bloomtree$$);
SELECT pg_temp.err($$SELECT 'm={16,4},k={3},seed=0,v=1:00'::bloomtree$$);
SELECT pg_temp.err($$SELECT 'm={0},k={1},seed=0,v=1:'::bloomtree$$);
SELECT pg_temp.err($$SELECT 'm={8},k={33},seed=0,v=1:00'::bloomtree$$);
SELECT pg_temp.err($$SELECT 'm={8},k={1},seed=2147483648,v=1:00'::bloomtree$$);
SELECT pg_temp.err($$SELECT 'm={1,1,1,1,1,1,1,1,1},k={1,1,1,1,1,1,1,1,1},seed=0,v=1:00'::bloomtree$$);
SELECT pg_temp.err($$SELECT 'm={99999999999999},k={1},seed=0,v=1:00'::bloomtree$$);
SELECT pg_temp.err($$SELECT 'm={65536,65536},k={1,1},seed=0,v=1:00'::bloomtree$$);
SELECT pg_temp.err($$SELECT 'm={8},k={1},seed=0,v=2:00'::bloomtree$$);
SELECT pg_temp.err($$SELECT 'm={8},k={1},seed=0,v=1:000'::bloomtree$$);
SELECT pg_temp.err($$SELECT 'm={8},k={1},seed=0,v=1:00 x'::bloomtree$$);
SELECT pg_temp.err($$SELECT 'm={12},k={1},seed=0,v=1:0010'::bloomtree$$);
-- a filter below a zero bit holding a one: root bit 1 is zero, its child (bits 10, 11) is not
SELECT 'm={8,2},k={1,1},seed=0,v=1:fd0400'::bloomtree;
SELECT pg_temp.err($$SELECT 'm={8,2},k={1,1},seed=0,v=1:fd0400'::bloomtree$$);
