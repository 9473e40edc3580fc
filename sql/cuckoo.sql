-- The cuckoofilter type: sizing, random add / remove sequences against the exact
-- multiset (no false negatives, a removal never takes another element, the count
-- exact), determinism (same insert sequence, same bytes), the full filter, refused
-- removals, the false-positive rate against 2b * load / 2^f, aggregates (parallel
-- plans hold the same multiset), equality, input errors.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;

-- ---- sizing: fp_bits = ceil(log2(8 / fp_rate)), buckets = pow2 >= n / 3.8 -----------
SELECT n, rate, split_part(cuckoo_empty(n, rate)::text, ':', 1) AS params,
       cuckoo_capacity(cuckoo_empty(n, rate)) AS slots
FROM (VALUES (1::bigint, 0.5::float8), (10, 0.01), (1000, 0.01), (3891, 0.001),
             (3892, 0.001), (100000, 0.0001)) v(n, rate);
SELECT cuckoo_empty(10, 0.01, -3);
SELECT c, c::text::cuckoofilter = c AS round_trips, cuckoo_count(c) AS items
FROM (SELECT cuckoo_add(cuckoo_add(cuckoo_empty(10, 0.01, 5), 42), 'hello'::text) c) s;

-- ---- random add / remove sequences against the exact multiset -----------------------
-- about `target` of 3 * target elements present (load about 0.8: kicks happen); after each operation the touched
-- element must be a member if present, and every 5,000 operations every present
-- element must be a member and cuckoo_count must equal the multiset's size
CREATE FUNCTION ck_sequence(seed float8, nops int, capacity int, fp float8, target int,
                            OUT false_negatives int, OUT count_mismatches int,
                            OUT max_load float8)
LANGUAGE plpgsql AS $$
DECLARE
    cf cuckoofilter := cuckoo_empty(capacity, fp, 11);
    universe int := 3 * target;
    mult int[] := array_fill(0, ARRAY[3 * target]);
    present int[] := '{}';
    np int := 0;
    x int;
    j int;
    p_add float8;
BEGIN
    false_negatives := 0; count_mismatches := 0; max_load := 0;
    PERFORM setseed(seed);
    FOR op IN 1 .. nops LOOP
        p_add := CASE WHEN np < target THEN 0.7 ELSE 0.3 END;
        IF np = 0 OR random() < p_add THEN
            x := floor(random() * universe)::int;
            cf := cuckoo_add(cf, 'e' || x);
            np := np + 1;
            present[np] := x;
            mult[x + 1] := mult[x + 1] + 1;
        ELSE
            j := 1 + floor(random() * np)::int;
            x := present[j];
            present[j] := present[np];
            np := np - 1;
            cf := cuckoo_remove(cf, 'e' || x);
            mult[x + 1] := mult[x + 1] - 1;
        END IF;
        IF mult[x + 1] > 0 AND NOT cf @> ('e' || x) THEN
            false_negatives := false_negatives + 1;
        END IF;
        max_load := greatest(max_load, cuckoo_load(cf));
        IF op % 5000 = 0 THEN
            false_negatives := false_negatives +
                (SELECT count(*) FROM generate_subscripts(mult, 1) i
                 WHERE mult[i] > 0 AND NOT cf @> ('e' || (i - 1)));
            IF cuckoo_count(cf) <> np THEN
                count_mismatches := count_mismatches + 1;
            END IF;
        END IF;
    END LOOP;
    max_load := round(max_load::numeric, 1);
END $$;
SELECT * FROM ck_sequence(0.25, 50000, 3766, 0.01, 3276);
SELECT * FROM ck_sequence(-0.75, 50000, 906, 0.1, 820);
DROP FUNCTION ck_sequence;

-- ---- determinism, removal, the full filter -------------------------------------------
-- cuckoo_empty(97) has 32 buckets (128 slots); the same insert sequence gives the
-- same bytes, kicks included (load 0.93)
CREATE FUNCTION ck_fill(cf cuckoofilter, lo bigint, hi bigint) RETURNS cuckoofilter
LANGUAGE plpgsql AS $$
BEGIN
    FOR x IN lo .. hi LOOP
        cf := cuckoo_add(cf, x);
    END LOOP;
    RETURN cf;
END $$;
SELECT a = b AS same_bytes, cuckoo_load(a) AS load, a = c AS agg_same_bytes
FROM (SELECT ck_fill(cuckoo_empty(97, 0.01), 1, 119) a, ck_fill(cuckoo_empty(97, 0.01), 1, 119) b,
             (SELECT cuckoo_agg(x, 97, 0.01 ORDER BY x) FROM generate_series(1, 119) x) c) s;
-- filling 128 slots: an error naming the load, with the way out (54000)
SELECT ck_fill(cuckoo_empty(97, 0.01), 1, 300);
SELECT cuckoo_agg(x, 10) FROM generate_series(1, 100) x;
-- removing absent elements (22023); removing present ones keeps the others
SELECT cuckoo_remove(cuckoo_empty(10), 42);
SELECT cuckoo_remove(cuckoo_add(cuckoo_empty(1000), 1), 2);
SELECT cuckoo_count(r) AS left_over, bool_and(r @> x) AS others_kept
FROM (SELECT cuckoo_remove(cuckoo_remove(ck_fill(cuckoo_empty(97, 0.01), 1, 110), 5), 100) r) s,
     generate_series(1, 110) x WHERE x NOT IN (5, 100) GROUP BY r;
-- duplicates are stored as copies: two adds, two removals
SELECT cuckoo_count(c) AS two, cuckoo_remove(c, 9) @> 9::bigint AS one_left,
       cuckoo_remove(cuckoo_remove(c, 9), 9) = cuckoo_empty(10) AS empty_again
FROM (SELECT cuckoo_add(cuckoo_add(cuckoo_empty(10), 9), 9) c) s;
DROP FUNCTION ck_fill;

-- ---- false-positive rate: 2b * load / 2^f within 15% -------------------------------
-- 8-bit fingerprints (fp_rate 0.04), 4096 slots at load 0.9; 200,000 non-members
CREATE TEMP TABLE fp AS SELECT cuckoo_agg(x, 3891, 0.04) AS cf FROM generate_series(1, 3700) x;
SELECT split_part(cf::text, ':', 1) AS params, round(cuckoo_load(cf)::numeric, 3) AS load,
       abs(cuckoo_fp_rate(cf) / (8 * cuckoo_load(cf) / 256) - 1) < 0.02 AS fp_rate_is_formula
FROM fp;
SELECT abs(measured / (8 * cuckoo_load(cf) / 256) - 1) < 0.15 AS fp_within_15pct,
       members = 3700 AS no_false_negatives
FROM fp, (SELECT count(*) FILTER (WHERE cf @> x)::float8 / 200000 AS measured
          FROM fp, generate_series(1000001, 1200000) x) s,
     (SELECT count(*) FILTER (WHERE cf @> x) AS members FROM fp, generate_series(1, 3700) x) t;
DROP TABLE fp;

-- ---- aggregates ------------------------------------------------------------------------
SELECT cuckoo_agg(x, 10) IS NULL AS empty_group FROM generate_series(1, 0) x;
SELECT cuckoo_count(cuckoo_agg(x, 10)) AS nulls_skipped FROM (VALUES (1::bigint), (NULL), (2)) v(x);
SELECT cuckoo_agg(x, n) FROM (VALUES (1, 10), (2, 20)) v(x, n);
SELECT cuckoo_count(cuckoo_agg(t, 100, 0.001, 3)) AS text_items, cuckoo_count(cuckoo_agg(t::bytea, 100)) AS bytea_items,
       cuckoo_count(cuckoo_agg(md5(t)::uuid, 100)) AS uuid_items
FROM (SELECT 'x' || g AS t FROM generate_series(1, 90) g) s;
-- equality and GROUP BY through the hash opclass
SELECT count(*) AS distinct_filters FROM (SELECT c FROM (SELECT cuckoo_add(cuckoo_empty(64), g % 4) c
                                           FROM generate_series(1, 40) g) s GROUP BY c) d;
SELECT cuckoo_empty(64, 0.01, 1) <> cuckoo_empty(64, 0.01, 2) AS seeds_differ;

-- parallel plans: the combine re-inserts one partial filter's fingerprints into the
-- other, so the result holds the same multiset as the serial one (the bytes may differ)
CREATE TABLE ck_src AS SELECT x FROM generate_series(1, 60000) x;
CREATE TEMP TABLE serial_ck AS SELECT cuckoo_agg(x, 60000) AS cf FROM ck_src;
-- parallel plans at any size, the workers doing every transition
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/parallel_plans.sql
ALTER TABLE ck_src SET (parallel_workers = 2);
EXPLAIN (COSTS OFF) SELECT cuckoo_agg(x, 60000) FROM ck_src;
CREATE TEMP TABLE parallel_ck AS SELECT cuckoo_agg(x, 60000) AS cf FROM ck_src;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
SELECT cuckoo_count(p.cf) = cuckoo_count(s.cf) AS same_count,
       cuckoo_capacity(p.cf) = cuckoo_capacity(s.cf) AS same_capacity,
       (SELECT count(*) FROM ck_src WHERE NOT p.cf @> x) AS parallel_false_negatives,
       (SELECT count(*) FILTER (WHERE p.cf @> x) = count(*) FILTER (WHERE s.cf @> x)
        FROM generate_series(1000001, 1100000) x) AS same_answers_on_non_members
FROM parallel_ck p, serial_ck s;
DROP TABLE ck_src;

-- ---- parameter and input errors --------------------------------------------------------
SELECT cuckoo_empty(0);
SELECT cuckoo_empty(10, 1.0);
SELECT cuckoo_empty(10, 1e-12);
SELECT cuckoo_empty(1000000000000);
SELECT 'buckets=3,fp_bits=8,seed=0,v=1:0000000000000000'::cuckoofilter;
SELECT 'buckets=2,fp_bits=3,seed=0,v=1:000000'::cuckoofilter;
SELECT 'buckets=2,fp_bits=8,seed=0,v=1:00000000000000'::cuckoofilter;
SELECT 'buckets=2,fp_bits=8,seed=0,v=3:0000000000000000'::cuckoofilter;
SELECT 'buckets=2,fp_bits=5,seed=0,v=1:0000000000'::cuckoofilter;
SELECT cuckoo_count('buckets=2,fp_bits=5,seed=0,v=1:ffffffffff'::cuckoofilter) AS full_table;
SELECT 'fp_bits=8,buckets=2,seed=0,v=1:0000000000000000'::cuckoofilter;

-- ---- any bucket count (version 2, issue 34) -------------------------------------------
-- sizing follows the request: ceil(capacity / (4 * 0.95)) + 1 + ceil(sqrt(capacity) / 2)
-- buckets, not a power of two;
-- cuckoo_empty(10^6, 0.001) holding 10^6 elements is smaller than the Bloom filter of
-- the same capacity and rate (bloom_optimal_m bits), and holds every one of them
SELECT cuckoo_capacity(cuckoo_empty(1000000, 0.001)) AS slots,
       cuckoo_capacity(cuckoo_empty(1000000, 0.001)) * 13 < bloom_optimal_m(1000000, 0.001)
         AS smaller_than_bloom;
-- the false-positive guarantee: 10^5 members of a filter for 10^5 at 1%, then 2 * 10^5
-- non-members; the measured rate is at most the requested one, no false negative
WITH f AS (SELECT cuckoo_agg(x, 100000, 0.01) cf FROM generate_series(1, 100000) x)
SELECT cuckoo_count(cf) AS items,
       (SELECT count(*) FROM generate_series(1, 100000) x WHERE NOT cf @> x) AS false_negatives,
       (SELECT count(*) FROM generate_series(100001, 300000) x WHERE cf @> x) / 200000.0
         <= 0.01 AS fp_within_target
FROM f;
-- a version 1 value (power of two, XOR) is read and updated as 1.1 did it, bit for bit:
-- 1.1's cuckoo_empty(10, 0.01, 5) with 42 and 'hello' added was
-- buckets=4,fp_bits=10,seed=5,v=1:0000000000f40000000000000000000100000000
SELECT cuckoo_add(cuckoo_add(('buckets=4,fp_bits=10,seed=5,v=1:' || repeat('0', 40))::cuckoofilter,
                             42), 'hello'::text)::text
       = 'buckets=4,fp_bits=10,seed=5,v=1:0000000000f40000000000000000000100000000' AS v1_bit_identical;
-- version 2 round-trips through text; the header must match the payload
SELECT c = c::text::cuckoofilter AS v2_round_trips, cuckoo_capacity(c) AS slots
FROM (SELECT cuckoo_add(cuckoo_empty(50, 0.01, 3), 7) c) s;
SELECT 'buckets=3,fp_bits=8,seed=0,v=2:00'::cuckoofilter;
SELECT 'buckets=1,fp_bits=8,seed=0,v=2:0000000000000000'::cuckoofilter;
