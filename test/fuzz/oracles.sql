-- test/fuzz/oracles.sql: the fixed-seed oracles of CI's fuzz stage (issue 34).
--
-- Run by test/fuzz/run.sh once per seed (psql variable :seed, an integer) in
-- its throwaway cluster, after the sqlsmith and edge-call stages; each oracle
-- compares the extension with an exact computation done here in SQL and
-- raises an exception naming the seed and the violation, which fails the run:
--   1. countingbloom add / remove sequences against the exact multiset: no
--      false negative, cbloom_count >= the multiplicity, removals of present
--      elements succeed, cbloom_to_bloom = the bloomfilter of the present
--      elements while nothing saturated;
--   2. cuckoofilter add / remove sequences, in both layouts (version 2, any
--      bucket count; version 1, a power of two), against the exact multiset:
--      no false negative, cuckoo_count = the multiset's size, removals of
--      present elements succeed;
--   3. Count-Min merges against exact counts: the union of partial sketches
--      equals the sketch of the whole stream byte for byte, its total is N and
--      every estimate is at least the exact count;
--   4. top-k merges against exact counts: the union of partial top-k values
--      keeps every element with f > (N + k·ε·N)/(k + 1) (README's guarantee);
--   5. sparse and dense stored forms of the same sets give the same answer to
--      every operator (=, |, &, @>, the counts and estimates, fold, text, hash).
-- Sizes are small: the whole file takes a few seconds per seed.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SET search_path = public;
SELECT setseed(((:seed % 1000) + 0.5) / 1000.0);

CREATE TEMP TABLE oracle_seed AS SELECT :seed::int AS seed;

-- 1. countingbloom sequences
DO $$
DECLARE
    s int := (SELECT seed FROM oracle_seed);
    cb countingbloom := cbloom_empty(2048, 3, s);
    universe int := 600;
    mult int[] := array_fill(0, ARRAY[600]);
    present bigint[] := '{}';
    np int := 0;
    x bigint;
    j int;
    p_add float8;
BEGIN
    FOR op IN 1 .. 2500 LOOP
        p_add := CASE WHEN np < 250 THEN 0.7 ELSE 0.35 END;
        IF np = 0 OR random() < p_add THEN
            x := floor(random() * universe);
            cb := cbloom_add(cb, x);
            np := np + 1;
            present[np] := x;
            mult[x + 1] := mult[x + 1] + 1;
        ELSE
            j := 1 + floor(random() * np)::int;
            x := present[j];
            present[j] := present[np];
            present := present[1:np - 1];
            np := np - 1;
            cb := cbloom_remove(cb, x);
            mult[x + 1] := mult[x + 1] - 1;
        END IF;
        IF mult[x + 1] > 0 AND NOT cb @> x THEN
            RAISE EXCEPTION 'oracle countingbloom (seed %): false negative for % after op %', s, x, op;
        END IF;
        IF cbloom_saturated(cb) = 0 AND cbloom_count(cb, x) < mult[x + 1] THEN
            RAISE EXCEPTION 'oracle countingbloom (seed %): count % < multiplicity % of %',
                s, cbloom_count(cb, x), mult[x + 1], x;
        END IF;
        IF op % 500 = 0 AND cbloom_saturated(cb) = 0 AND
           cbloom_to_bloom(cb) <> bloom_from_array(present[1:np], 2048, 3, s) THEN
            RAISE EXCEPTION 'oracle countingbloom (seed %): cbloom_to_bloom differs from the bloomfilter of the % present elements', s, np;
        END IF;
    END LOOP;
END $$;

-- 2. cuckoofilter sequences, both layouts
CREATE FUNCTION pg_temp.cuckoo_sequence(cf cuckoofilter, label text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    s int := (SELECT seed FROM oracle_seed);
    slots bigint := cuckoo_capacity(cf);
    high int := (0.85 * cuckoo_capacity(cf))::int;
    universe int := 3 * cuckoo_capacity(cf)::int;
    mult int[] := array_fill(0, ARRAY[3 * cuckoo_capacity(cf)::int]);
    present int[] := '{}';
    np int := 0;
    x int;
    j int;
    p_add float8;
BEGIN
    FOR op IN 1 .. 3000 LOOP
        p_add := CASE WHEN np < high / 2 THEN 0.7 ELSE 0.5 END;
        IF np = 0 OR (np < high AND random() < p_add) THEN
            x := floor(random() * universe);
            BEGIN
                cf := cuckoo_add(cf, 'e' || x);
                np := np + 1;
                present[np] := x;
                mult[x + 1] := mult[x + 1] + 1;
            EXCEPTION WHEN program_limit_exceeded THEN
                NULL;           -- full: the filter is unchanged (checked below)
            END;
        ELSE
            j := 1 + floor(random() * np)::int;
            x := present[j];
            present[j] := present[np];
            np := np - 1;
            cf := cuckoo_remove(cf, 'e' || x);
            mult[x + 1] := mult[x + 1] - 1;
        END IF;
        IF mult[x + 1] > 0 AND NOT cf @> ('e' || x) THEN
            RAISE EXCEPTION 'oracle cuckoofilter % (seed %): false negative for e% after op %', label, s, x, op;
        END IF;
        IF cuckoo_count(cf) <> np THEN
            RAISE EXCEPTION 'oracle cuckoofilter % (seed %): cuckoo_count % <> % present after op %',
                label, s, cuckoo_count(cf), np, op;
        END IF;
    END LOOP;
    FOR i IN 1 .. np LOOP
        IF NOT cf @> ('e' || present[i]) THEN
            RAISE EXCEPTION 'oracle cuckoofilter % (seed %): false negative for e% at the end', label, s, present[i];
        END IF;
    END LOOP;
    IF cf::text::cuckoofilter <> cf THEN
        RAISE EXCEPTION 'oracle cuckoofilter % (seed %): text form does not round-trip', label, s;
    END IF;
END $$;
SELECT pg_temp.cuckoo_sequence(cuckoo_empty(300 + seed % 97, 0.01, seed), 'version 2') FROM oracle_seed;
SELECT pg_temp.cuckoo_sequence(('buckets=64,fp_bits=9,seed=' || seed || ',v=1:' || repeat('00', 64 * 4 * 9 / 8))::cuckoofilter,
                               'version 1') FROM oracle_seed;

-- 3. and 4. Count-Min and top-k merges against exact counts
CREATE TEMP TABLE stream AS
SELECT g AS i, floor(power(random(), 3) * 400)::bigint AS x, floor(random() * 4)::int AS part
FROM generate_series(1, 6000) g;
CREATE TEMP TABLE exact AS SELECT x, count(*) AS f FROM stream GROUP BY x;
DO $$
DECLARE
    s int := (SELECT seed FROM oracle_seed);
    whole countmin;
    merged countmin;
    n bigint := (SELECT count(*) FROM stream);
    bad bigint;
    tk topk;
    k int := 10;
    eps float8 := exp(1.0) / 2048;
    missing text;
BEGIN
    whole := (SELECT cms_agg(x, 512, 4, s) FROM stream);
    merged := (SELECT cms_union_agg(c) FROM (SELECT cms_agg(x, 512, 4, s) c FROM stream GROUP BY part) p);
    IF merged <> whole THEN
        RAISE EXCEPTION 'oracle countmin (seed %): the union of partial sketches differs from the whole stream''s', s;
    END IF;
    IF cms_total(merged) <> n THEN
        RAISE EXCEPTION 'oracle countmin (seed %): total % <> %', s, cms_total(merged), n;
    END IF;
    SELECT count(*) INTO bad FROM exact WHERE cms_estimate(merged, x) < f;
    IF bad > 0 THEN
        RAISE EXCEPTION 'oracle countmin (seed %): % estimates below the exact count', s, bad;
    END IF;
    tk := (SELECT topk_union_agg(t) FROM (SELECT topk_agg(x, k, 2048, 5, s) t FROM stream GROUP BY part) p);
    SELECT string_agg(e.x || ':' || e.f, ', ') INTO missing
    FROM exact e
    WHERE e.f > (n + k * eps * n) / (k + 1)
      AND e.x::text NOT IN (SELECT item FROM topk_items(tk));
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'oracle topk (seed %): merged top-% misses guaranteed heavy hitters %', s, k, missing;
    END IF;
END $$;

-- 5. sparse and dense stored forms: every operator gives the same answer
CREATE TEMP TABLE sets AS
SELECT i, ARRAY(SELECT floor(random() * 1000000)::bigint FROM generate_series(1, n)) AS a
FROM (SELECT i, (ARRAY[0, 1, 5, 60, 400, 3000])[1 + (i + (SELECT seed FROM oracle_seed)) % 6] AS n
      FROM generate_series(0, 11) i) s;
ALTER TABLE sets ADD fa bloomfilter, ADD fd bloomfilter;
UPDATE sets SET fa = bloom_from_array(a, 40000, 3, (SELECT seed FROM oracle_seed));
SET bloomsample.filter_storage = dense;
UPDATE sets SET fd = bloom_from_array(a, 40000, 3, (SELECT seed FROM oracle_seed));
RESET bloomsample.filter_storage;
DO $$
DECLARE
    s int := (SELECT seed FROM oracle_seed);
    bad text;
BEGIN
    -- one value against itself in the other form
    SELECT string_agg(i::text, ',') INTO bad FROM sets
    WHERE NOT (fa = fd AND fa::text = fd::text AND bloomfilter_hash(fa) = bloomfilter_hash(fd)
               AND bloom_popcount(fa) = bloom_popcount(fd)
               AND bloom_cardinality(fa) IS NOT DISTINCT FROM bloom_cardinality(fd)
               AND bloom_fp_rate(fa) = bloom_fp_rate(fd)
               AND bloom_fold(fa, 4)::text = bloom_fold(fd, 4)::text
               AND (SELECT bool_and((fa @> p) = (fd @> p) AND (p <@ fa) = (p <@ fd))
                    FROM generate_series(0, 1000000, 997) p)
               AND (SELECT bool_and(fa @> e) FROM unnest(a) e) IS NOT FALSE);
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'oracle sparse/dense (seed %): a unary operator differs between forms for sets %', s, bad;
    END IF;
    -- every pair, every crossing of forms, against the dense pair
    SELECT string_agg(x.i || '/' || y.i, ',') INTO bad
    FROM sets x, sets y
    WHERE NOT ((x.fa | y.fa)::text = (x.fd | y.fd)::text AND (x.fa | y.fd)::text = (x.fd | y.fd)::text
               AND (x.fd | y.fa)::text = (x.fd | y.fd)::text
               AND (x.fa & y.fa)::text = (x.fd & y.fd)::text AND (x.fa & y.fd)::text = (x.fd & y.fd)::text
               AND (x.fd & y.fa)::text = (x.fd & y.fd)::text
               AND (x.fa = y.fa) = (x.fd = y.fd) AND (x.fa = y.fd) = (x.fd = y.fd)
               AND bloom_union_cardinality(x.fa, y.fa) IS NOT DISTINCT FROM bloom_union_cardinality(x.fd, y.fd)
               AND bloom_intersection_cardinality(x.fa, y.fd) IS NOT DISTINCT FROM bloom_intersection_cardinality(x.fd, y.fd)
               AND bloom_jaccard(x.fd, y.fa) IS NOT DISTINCT FROM bloom_jaccard(x.fd, y.fd));
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'oracle sparse/dense (seed %): a binary operator differs between forms for pairs %', s, bad;
    END IF;
END $$;
SELECT 'oracles: passed (seed ' || seed || ')' FROM oracle_seed;
