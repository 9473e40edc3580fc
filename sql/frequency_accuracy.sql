-- countmin and topk against exact counts (GROUP BY) on Zipf streams:
-- s = 0.8, 1.1, 1.5, two seeds each, 5*10^4 events over 10^4 elements.
-- Oracle: GROUP BY counts, the exact join size, the sketch of the whole.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;
SET extra_float_digits = 0;
-- events by the inverse CDF: the first element whose cumulative weight reaches u
CREATE TABLE zipf_cdf (s float8, r bigint, c float8);
INSERT INTO zipf_cdf
SELECT s, r, sum(r ^ -s) OVER (PARTITION BY s ORDER BY r) / sum(r ^ -s) OVER (PARTITION BY s)
FROM unnest(ARRAY[0.8, 1.1, 1.5]) s, generate_series(1, 10000) r;
CREATE INDEX ON zipf_cdf (s, c);
CREATE TABLE ev (s float8, seed int, x bigint);
SELECT setseed(0.23);
INSERT INTO ev
SELECT s, seed, coalesce((SELECT r FROM zipf_cdf z WHERE z.s = g.s AND z.c >= u ORDER BY c LIMIT 1), 10000)
FROM (SELECT s, seed, random() AS u
      FROM unnest(ARRAY[0.8, 1.1, 1.5]) s, generate_series(1, 2) seed, generate_series(1, 50000)) g;
ANALYZE ev;
CREATE TABLE exact AS SELECT s, seed, x, count(*) AS f FROM ev GROUP BY s, seed, x;

-- one sketch per stream, eps = delta = 0.01 (w = 272, d = 5), the stream's seed;
-- built serially, so that each topk sees its stream in one order (a parallel plan
-- merges partial candidate sets, whose near-equal elements may tie differently)
SET max_parallel_workers_per_gather = 0;
CREATE TABLE sk AS
SELECT s, seed, cms_agg(x, 272, 5, seed) AS cm, topk_agg(x, 10, 2048, 5, seed) AS tk, count(*) AS n
FROM ev GROUP BY s, seed;
RESET max_parallel_workers_per_gather;

-- no estimate below the true count; at most a delta fraction above f + eps*N
-- (3-sigma binomial tolerance)
SELECT e.s, e.seed,
       count(*) FILTER (WHERE cms_estimate(cm, x) < f) AS below,
       count(*) FILTER (WHERE cms_estimate(cm, x) > f + 0.01 * n)::float8 / count(*)
         <= 0.01 + 3 * sqrt(0.01 * 0.99 / count(*)) AS above_within_delta
FROM exact e JOIN sk USING (s, seed) GROUP BY e.s, e.seed ORDER BY 1, 2;

-- N is the row count; absent elements estimate within eps*N of 0
SELECT bool_and(cms_total(cm) = n) FROM sk;
SELECT s, seed, count(*) FILTER (WHERE cms_estimate(cm, x) > 0.01 * n)::float8 / count(*) <= 0.05
FROM sk, generate_series(20001, 21000) x GROUP BY s, seed ORDER BY 1, 2;

-- merge of partial sketches (one per 1/4 of the rows) = the sketch of the whole
SELECT s, seed, cms_union_agg(part) = (SELECT cm FROM sk WHERE sk.s = p.s AND sk.seed = p.seed)
FROM (SELECT s, seed, cms_agg(x, 272, 5, seed) AS part FROM ev GROUP BY s, seed, hashint8(x) % 4) p
GROUP BY s, seed ORDER BY 1, 2;
-- cms_agg with counts = cms_agg of the rows
SELECT s, seed, cms_agg(x, f, 272, 5, seed) = (SELECT cm FROM sk WHERE sk.s = e.s AND sk.seed = e.seed)
FROM exact e GROUP BY s, seed ORDER BY 1, 2;

-- top 10: recall of the true top 10 (elements whose count reaches the 10th largest)
-- >= 0.95 at s >= 1.1 over the two streams of each s (each stream at least 9 of 10:
-- the 10th and 11th elements may differ by less than eps*N); at s = 0.8 the recall
-- depends on the order of near-equal elements, not shown; estimates never below
-- the count
WITH kth AS (SELECT s, seed, min(f) AS f10
             FROM (SELECT s, seed, f, row_number() OVER (PARTITION BY s, seed ORDER BY f DESC) rn FROM exact) q
             WHERE rn <= 10 GROUP BY s, seed),
     got AS (SELECT sk.s, sk.seed, i.item::bigint AS x, i.estimate FROM sk, topk_items(sk.tk) i)
SELECT g.s, g.seed, count(*) AS items,
       (g.s < 1.1 OR count(*) FILTER (WHERE e.f >= k.f10) >= 9) AS recall_ok,
       bool_and(g.estimate >= e.f) AS no_underestimate
FROM got g JOIN exact e USING (s, seed, x) JOIN kth k USING (s, seed)
GROUP BY g.s, g.seed ORDER BY 1, 2;
WITH kth AS (SELECT s, seed, min(f) AS f10
             FROM (SELECT s, seed, f, row_number() OVER (PARTITION BY s, seed ORDER BY f DESC) rn FROM exact) q
             WHERE rn <= 10 GROUP BY s, seed),
     got AS (SELECT sk.s, sk.seed, i.item::bigint AS x FROM sk, topk_items(sk.tk) i)
SELECT g.s, count(*) FILTER (WHERE e.f >= k.f10) >= 0.95 * 20 AS recall_ok
FROM got g JOIN exact e USING (s, seed, x) JOIN kth k USING (s, seed)
WHERE g.s >= 1.1 GROUP BY g.s ORDER BY 1;
-- the guarantee: every element with f > (N + k*eps*N)/(k+1) is reported (eps = e/w)
SELECT e.s, e.seed, count(*) AS heavy,
       count(*) FILTER (WHERE e.x::text IN (SELECT item FROM topk_items(sk.tk))) AS reported
FROM exact e JOIN sk USING (s, seed)
WHERE e.f > (sk.n + 10 * (exp(1) / 2048) * sk.n) / 11
GROUP BY e.s, e.seed ORDER BY 1, 2;

-- inner product: within [join, join + eps*Na*Nb] (streams of seed 1 and 2 of each s)
WITH j AS (SELECT a.s, sum(a.f * b.f) AS join_size
           FROM exact a JOIN exact b ON a.s = b.s AND a.x = b.x AND a.seed = 1 AND b.seed = 2
           GROUP BY a.s),
     p AS (SELECT s, cms_inner_product(cms_agg(x, 272, 5) FILTER (WHERE seed = 1),
                                       cms_agg(x, 272, 5) FILTER (WHERE seed = 2)) AS est,
                  count(*) FILTER (WHERE seed = 1) AS na, count(*) FILTER (WHERE seed = 2) AS nb
           FROM ev GROUP BY s)
SELECT s, est >= join_size AS above_join, est <= join_size + 0.01 * na * nb AS within_bound
FROM j JOIN p USING (s) ORDER BY s;

-- remove: removing each element's exact count empties the sketch; every
-- counter stays >= 0; removing one more of a removed element is refused
DO $$
DECLARE
    sketch countmin := (SELECT cm FROM sk WHERE s = 1.1 AND seed = 1);
    r record;
    refused int := 0;
BEGIN
    FOR r IN SELECT x, f FROM exact WHERE s = 1.1 AND seed = 1 ORDER BY f DESC, x LIMIT 100 LOOP
        sketch := cms_remove(sketch, r.x, r.f);
        IF sketch::text ~ '[-]' THEN RAISE EXCEPTION 'negative counter'; END IF;
    END LOOP;
    FOR r IN SELECT x, f FROM exact WHERE s = 1.1 AND seed = 1 ORDER BY f DESC, x OFFSET 100 LOOP
        sketch := cms_remove(sketch, r.x, r.f);
    END LOOP;
    BEGIN
        sketch := cms_remove(sketch, 1, 1);
    EXCEPTION WHEN invalid_parameter_value THEN
        refused := refused + 1;
    END;
    RAISE NOTICE 'empty after removing everything: %, over-removal refused: %',
        sketch = cms_empty(272, 5, 1), refused > 0;
END
$$;

-- parallel aggregation (Partial Aggregate in workers) = serial
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT cms_agg(x, 272, 5) FROM ev;
EXPLAIN (COSTS OFF) SELECT topk_agg(x, 10) FROM ev;
CREATE TEMP TABLE par AS
SELECT cms_agg(x, 272, 5) AS cm, topk_agg(x, 10) AS tk,
       cms_union_agg(cms_add(cms_empty(272, 5), x)) AS un FROM ev WHERE s = 1.5;
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT cms_agg(x, 272, 5) FROM ev;
SELECT p.cm = q.cm AS cms_equal, p.un = q.cm AS union_equal,
       (SELECT array_agg(item || ':' || estimate ORDER BY estimate DESC, item) FROM topk_items(p.tk))
     = (SELECT array_agg(item || ':' || estimate ORDER BY estimate DESC, item) FROM topk_items(q.tk)) AS topk_equal
FROM par p, (SELECT cms_agg(x, 272, 5) AS cm, topk_agg(x, 10) AS tk FROM ev WHERE s = 1.5) q;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

DROP TABLE zipf_cdf, ev, exact, sk;
