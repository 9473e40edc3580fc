-- The bloomtree type: union, intersection, equality and hashing; on large sets
-- no false negatives, the false-positive rate measured against the expected one,
-- and AND / OR keeping the common / all elements.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;

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
