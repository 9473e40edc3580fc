-- The countingbloom type: positions identical to bloomfilter's, random add / remove
-- sequences against the exact multiset (no false negatives, cbloom_to_bloom equal to
-- the bloomfilter of the present elements while nothing saturated), saturation,
-- refused removals, the false-positive rate against (1 - e^(-kn/m))^k, typmod,
-- the cast to bloomfilter, aggregates (parallel plans give the serial result).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;

-- ---- text form, positions = bloomfilter positions ------------------------------
SELECT cbloom_empty(16, 3);
SELECT cbloom_add(cbloom_add(cbloom_empty(16, 3), 42), 'hello'::text) AS two;
SELECT c::text::countingbloom = c AS round_trips
FROM (SELECT cbloom_add(cbloom_add(cbloom_empty(1001, 5, -7, 'linear'), 42), 'x'::text) c) s;
-- every element type, both families, several parameter sets: one element, same bits
SELECT count(*) AS cases,
       count(*) FILTER (WHERE cbloom_to_bloom(cbloom_add(cbloom_empty(m, k, seed, h), e))
                              = bloom_add(bloom_empty(m, k, seed, h), e)) AS bigint_equal,
       count(*) FILTER (WHERE cbloom_to_bloom(cbloom_add(cbloom_empty(m, k, seed, h), e::text))
                              = bloom_add(bloom_empty(m, k, seed, h), e::text)) AS text_equal,
       count(*) FILTER (WHERE cbloom_to_bloom(cbloom_add(cbloom_empty(m, k, seed, h), int8send(e)))
                              = bloom_add(bloom_empty(m, k, seed, h), int8send(e))) AS bytea_equal,
       count(*) FILTER (WHERE cbloom_to_bloom(cbloom_add(cbloom_empty(m, k, seed, h), md5(e::text)::uuid))
                              = bloom_add(bloom_empty(m, k, seed, h), md5(e::text)::uuid)) AS uuid_equal
FROM (VALUES (64, 3, 0, 'xxh3'), (1000, 7, -12345, 'xxh3'), (64, 3, 0, 'linear'),
             (1000, 5, 7, 'linear'), (8, 32, 1, 'xxh3')) p(m, k, seed, h),
     (VALUES (0::bigint), (42), (-1), (9223372036854775807)) e(e);
-- int2 / int4 / varchar elements are the int8 / text elements
SELECT cbloom_add(cbloom_empty(64, 3), 42::int4) = cbloom_add(cbloom_empty(64, 3), 42::bigint) AS int4_is_int8,
       cbloom_add(cbloom_empty(64, 3), 'a'::varchar) = cbloom_add(cbloom_empty(64, 3), 'a'::text) AS varchar_is_text;

-- ---- random add / remove sequences against the exact multiset --------------------
-- elements are 0 .. universe - 1; adds and removals of present elements, drawn so
-- that about `target` elements are present; after each operation the touched
-- element, every 5,000 operations every present element, must be a member, and
-- while no counter saturated cbloom_to_bloom must equal bloom_from_array of the
-- present elements, bit for bit
CREATE FUNCTION cb_sequence(seed float8, nops int, m int, k int, universe int, target int,
                            hash text,
                            OUT false_negatives int, OUT unsaturated_checks int,
                            OUT bits_mismatches int, OUT saturated_at_end boolean)
LANGUAGE plpgsql AS $$
DECLARE
    cb countingbloom := cbloom_empty(m, k, 0, hash);
    mult int[] := array_fill(0, ARRAY[universe]);
    present int[] := '{}';
    np int := 0;
    x int;
    j int;
    p_add float8;
BEGIN
    false_negatives := 0; unsaturated_checks := 0; bits_mismatches := 0;
    PERFORM setseed(seed);
    FOR op IN 1 .. nops LOOP
        p_add := CASE WHEN np < target THEN 0.7 ELSE 0.3 END;
        IF np = 0 OR random() < p_add THEN
            x := floor(random() * universe)::int;
            cb := cbloom_add(cb, x::bigint);
            np := np + 1;
            present[np] := x;
            mult[x + 1] := mult[x + 1] + 1;
        ELSE
            j := 1 + floor(random() * np)::int;
            x := present[j];
            present[j] := present[np];
            np := np - 1;
            cb := cbloom_remove(cb, x::bigint);
            mult[x + 1] := mult[x + 1] - 1;
        END IF;
        IF mult[x + 1] > 0 AND NOT cb @> x::bigint THEN
            false_negatives := false_negatives + 1;
        END IF;
        IF op % 5000 = 0 THEN
            false_negatives := false_negatives +
                (SELECT count(*) FROM generate_subscripts(mult, 1) i
                 WHERE mult[i] > 0 AND NOT cb @> (i - 1)::bigint);
            IF cbloom_saturated(cb) = 0 THEN
                unsaturated_checks := unsaturated_checks + 1;
                IF cbloom_to_bloom(cb) <> bloom_from_array(
                       ARRAY(SELECT (i - 1)::bigint FROM generate_subscripts(mult, 1) i
                             WHERE mult[i] > 0), m, k, 0, hash) THEN
                    bits_mismatches := bits_mismatches + 1;
                END IF;
            END IF;
        END IF;
    END LOOP;
    saturated_at_end := cbloom_saturated(cb) > 0;
END $$;
-- large filters: nothing saturates (10 checkpoints each, all bit-exact)
SELECT * FROM cb_sequence(0.11, 50000, 8192, 4, 3000, 1000, 'xxh3');
SELECT * FROM cb_sequence(-0.5, 50000, 4099, 3, 2000, 500, 'linear');
-- a tiny filter over few elements: counters saturate, still no false negatives
SELECT * FROM cb_sequence(0.7, 20000, 64, 3, 40, 300, 'xxh3');
DROP FUNCTION cb_sequence;

-- ---- saturation and refused removals --------------------------------------------
-- 20 copies of one element: its counters stop at 15 and never decrement again, so
-- after 20 removals it is still a member (the price of no false negatives)
CREATE FUNCTION cb_repeat(cb countingbloom, x bigint, n int, add boolean) RETURNS countingbloom
LANGUAGE plpgsql AS $$
BEGIN
    FOR i IN 1 .. n LOOP
        cb := CASE WHEN add THEN cbloom_add(cb, x) ELSE cbloom_remove(cb, x) END;
    END LOOP;
    RETURN cb;
END $$;
SELECT cbloom_count(c, 42::bigint) AS count_14, cbloom_saturated(c) AS saturated_0
FROM (SELECT cb_repeat(cbloom_empty(1000, 4), 42, 14, true) c) s;
SELECT cbloom_count(c, 42::bigint) AS count_15, cbloom_saturated(c) AS saturated_4,
       cbloom_count(cb_repeat(c, 42, 20, false), 42::bigint) AS still_15,
       cb_repeat(c, 42, 20, false) @> 42::bigint AS still_member
FROM (SELECT cb_repeat(cbloom_empty(1000, 4), 42, 20, true) c) s;
-- 3 copies, 3 removals: empty again; a fourth removal is refused (22023)
SELECT cb_repeat(cb_repeat(cbloom_empty(1000, 4), 7, 3, true), 7, 3, false) = cbloom_empty(1000, 4) AS empty_again;
SELECT cbloom_remove(cb_repeat(cbloom_empty(1000, 4), 7, 3, false), 7::bigint);
SELECT cbloom_remove(cbloom_add(cbloom_empty(1000, 4), 'a'::text), 'b'::text);
-- the count is an upper bound of the multiplicity, exact for a lone element
SELECT cbloom_count(cb_repeat(cbloom_empty(1000, 4), 5, 3, true), 5::bigint) AS three,
       cbloom_count(cbloom_empty(1000, 4), 5::bigint) AS zero;
DROP FUNCTION cb_repeat;

-- ---- false-positive rate: (1 - e^(-kn/m))^k within 15% ---------------------------
-- 20,000 members at m = bloom_optimal_m(20000, 0.01), k = 7, 200,000 non-members;
-- then 4,000 members removed: the filter must behave like one of 16,000
CREATE TEMP TABLE fp AS
    SELECT cbloom_agg(x, bloom_optimal_m(20000, 0.01)::int, 7) AS cb FROM generate_series(1, 20000) x;
SELECT abs(measured / bloom_expected_fp(bloom_optimal_m(20000, 0.01), 7, 20000) - 1) < 0.15 AS fp_within_15pct
FROM (SELECT count(*) FILTER (WHERE cb @> x)::float8 / 200000 AS measured
      FROM fp, generate_series(1000001, 1200000) x) s;
DO $$
DECLARE
    c countingbloom := (SELECT cb FROM fp);
BEGIN
    FOR x IN 16001 .. 20000 LOOP
        c := cbloom_remove(c, x::bigint);
    END LOOP;
    UPDATE fp SET cb = c;
END $$;
SELECT abs(measured / bloom_expected_fp(bloom_optimal_m(20000, 0.01), 7, 16000) - 1) < 0.15 AS fp_after_removal_within_15pct,
       members = 16000 AS no_false_negatives
FROM (SELECT count(*) FILTER (WHERE cb @> x)::float8 / 200000 AS measured
      FROM fp, generate_series(1000001, 1200000) x) s,
     (SELECT count(*) FILTER (WHERE cb @> x) AS members FROM fp, generate_series(1, 16000) x) t;
-- and it is the bloomfilter of the 16,000 remaining elements
SELECT (SELECT cb FROM fp)::bloomfilter
       = (SELECT bloom_agg(x, bloom_optimal_m(20000, 0.01)::int, 7) FROM generate_series(1, 16000) x)
       AS equals_rebuilt_bloom;
DROP TABLE fp;

-- ---- typmod and the assignment cast ----------------------------------------------
CREATE TEMP TABLE typed (c countingbloom(64, 3), b bloomfilter);
INSERT INTO typed VALUES (cbloom_add(cbloom_empty(64, 3), 1), NULL);
INSERT INTO typed VALUES (cbloom_empty(64, 4), NULL);
INSERT INTO typed (b) SELECT cbloom_add(cbloom_empty(64, 3), 1);   -- assignment cast
SELECT count(*) AS rows, bool_and(b = bloom_add(bloom_empty(64, 3), 1)) FILTER (WHERE b IS NOT NULL) AS cast_ok
FROM typed;
SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'typed'::regclass AND attname = 'c';
DROP TABLE typed;

-- ---- aggregates -----------------------------------------------------------------------
-- cbloom_agg = repeated cbloom_add; NULL over no rows; union adds counters
SELECT cbloom_agg(x, 512, 3) = cbloom_add(cbloom_add(cbloom_add(cbloom_empty(512, 3), 1), 2), 2) AS agg_is_adds
FROM (VALUES (1::bigint), (2), (NULL), (2)) v(x);
SELECT cbloom_agg(x, 512, 3) IS NULL AS empty_group FROM generate_series(1, 0) x;
SELECT (SELECT cbloom_union_agg(c) FROM (SELECT cbloom_agg(x % 100, 4096, 3, 5, 'linear') c
                                        FROM generate_series(1, 300) x GROUP BY x % 3) s)
       = (SELECT cbloom_agg(x % 100, 4096, 3, 5, 'linear') FROM generate_series(1, 300) x)
       AS union_adds_counters;
SELECT cbloom_agg(x, 512, 3) FROM (VALUES (1, 512), (2, 256)) v(x, m);
SELECT cbloom_agg(x, m, 3) FROM (VALUES (1, 512), (2, 256)) v(x, m);
SELECT cbloom_union_agg(c) FROM (VALUES (cbloom_empty(64, 3)), (cbloom_empty(64, 4))) v(c);
-- equality, GROUP BY through the hash opclass
SELECT count(*) AS distinct_filters FROM (SELECT c FROM (SELECT cbloom_add(cbloom_empty(64, 3), g % 4) c
                                           FROM generate_series(1, 40) g) s GROUP BY c) d;

-- parallel plans give the serial result (combine adds counters, saturating)
CREATE TABLE cb_src AS SELECT x, x % 7 AS g, 'e' || (x % 5000) AS t FROM generate_series(1, 100000) x;
CREATE TEMP TABLE serial_cb AS
    SELECT cbloom_agg(x % 20000, 1 << 16, 4) AS cx, cbloom_agg(t, 2048, 3) AS ct FROM cb_src;
-- parallel plans at any size, the workers doing every transition
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/parallel_plans.sql
ALTER TABLE cb_src SET (parallel_workers = 2);
EXPLAIN (COSTS OFF) SELECT cbloom_agg(x % 20000, 1 << 16, 4) FROM cb_src;
SELECT (SELECT cbloom_agg(x % 20000, 1 << 16, 4) FROM cb_src) = cx AS int8_parallel_eq_serial,
       (SELECT cbloom_agg(t, 2048, 3) FROM cb_src) = ct AS text_parallel_eq_serial,
       cbloom_saturated(ct) > 0 AS text_saturated
FROM serial_cb;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
DROP TABLE cb_src;

-- ---- BloomSampleTree and Bloofi on a counting column, through cbloom_to_bloom -----------
-- 300 sets of 21 consecutive ids; then id 150 removed from the sets that held it
CREATE TABLE cb_sets AS
    SELECT g AS id, cbloom_agg(x, 1024, 3) AS c
    FROM generate_series(1, 300) g, generate_series(g, g + 20) x GROUP BY g;
CREATE INDEX cb_sets_bloofi ON cb_sets USING bloofi ((cbloom_to_bloom(c)));
UPDATE cb_sets SET c = cbloom_remove(c, 150::bigint) WHERE id BETWEEN 130 AND 150;
-- the index answers exactly what a sequential scan answers, before and after removals
SET enable_seqscan = off;
CREATE TEMP TABLE via_index AS
    SELECT x, array_agg(id ORDER BY id) AS ids
    FROM generate_series(100, 200) x, cb_sets WHERE cbloom_to_bloom(c) @> x GROUP BY x;
EXPLAIN (COSTS OFF) SELECT id FROM cb_sets WHERE cbloom_to_bloom(c) @> 150::bigint;
RESET enable_seqscan;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SELECT count(*) AS probes,
       count(*) FILTER (WHERE i.ids IS NOT DISTINCT FROM
                        (SELECT array_agg(id ORDER BY id) FROM cb_sets WHERE cbloom_to_bloom(c) @> x)) AS index_equals_seqscan
FROM generate_series(100, 200) x LEFT JOIN via_index i USING (x);
RESET enable_indexscan;
RESET enable_bitmapscan;
SELECT bloofi_check('cb_sets_bloofi');   -- no error: every invariant holds
-- a BloomSampleTree reconstructs, from the counting filter, exactly what the dictionary
-- attack finds, every current element among them (150 gone where it was removed)
SELECT bst_create('cb_tree', 0, 512, 1024, 3);
SELECT count(*) AS sets,
       count(*) FILTER (WHERE rec = dict) AS reconstruct_equals_dictionary_attack,
       count(*) FILTER (WHERE rec @> exact) AS hold_every_element,
       count(*) FILTER (WHERE id BETWEEN 130 AND 150 AND 150 = ANY (rec)) AS removed_150_still_there
FROM (SELECT id, array(SELECT bst_reconstruct('cb_tree', cbloom_to_bloom(c))) AS rec,
             array(SELECT bloom_dictionary_attack(cbloom_to_bloom(c), 0, 512)) AS dict,
             array(SELECT x::bigint FROM generate_series(id, id + 20) x WHERE x <> 150 OR id > 150) AS exact
      FROM cb_sets) s;
SELECT bst_drop('cb_tree');
DROP TABLE cb_sets;

-- ---- parameter and input errors ------------------------------------------------------
SELECT cbloom_empty(4, 3);
SELECT cbloom_empty(1 << 30, 3);
SELECT cbloom_empty(64, 0);
SELECT cbloom_empty(64, 3, 0, 'XXH3');
SELECT 'm=16,k=3,seed=0,hash=xxh3,v=1:000000000000000'::countingbloom;
SELECT 'm=16,k=3,seed=0,hash=xxh3,v=1:000000000000000g'::countingbloom;
SELECT 'm=16,k=3,seed=0,hash=xxh3,v=2:0000000000000000'::countingbloom;
SELECT 'm=16,k=3,seed=0,hash=md5,v=1:0000000000000000'::countingbloom;
SELECT 'k=3,m=16,seed=0,hash=xxh3,v=1:0000000000000000'::countingbloom;
SELECT NULL::countingbloom(64, 0);
