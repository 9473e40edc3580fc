-- topk bounds, exact mode and the incremental functions (issues 32, 37),
-- against independent oracles: exact GROUP BY counts, the aggregates.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;
SET max_parallel_workers_per_gather = 0;

-- ---------------------------------------------------------------------------
-- exact mode: a small group counts every element; forms round-trip
-- ---------------------------------------------------------------------------
SELECT topk_agg(x % 4, 2) FROM generate_series(1, 10) x;
SELECT topk_is_exact(t), topk_total(t), topk_threshold(t), t::text::topk = t
FROM (SELECT topk_agg(x % 4, 2) t FROM generate_series(1, 10) x) q;
SELECT * FROM topk_items((SELECT topk_agg(x % 4, 2) FROM generate_series(1, 10) x));
SELECT topk_send(topk_agg(x % 2, 1)) FROM generate_series(1, 3) x;
-- one element of 5 in 10: guaranteed (5 > floor(10/3)); a tie of two at 3: none
SELECT * FROM topk_items((SELECT topk_agg(e, 2) FROM unnest('{a,a,a,a,a,b,b,c,d,e}'::text[]) e));
SELECT count(*) AS vouched FROM topk_heavy_hitters((SELECT topk_agg(e, 2) FROM unnest('{a,a,a,b,b,b,c,d,e}'::text[]) e));
SELECT count(*) AS candidates FROM topk_heavy_hitters((SELECT topk_agg(e, 2) FROM unnest('{a,a,a,b,b,b,c,d,e}'::text[]) e), true);
-- the group outgrows the exact capacity max(k, w*d/8) = 8: the sketch
SELECT topk_is_exact(topk_agg(x, 2, 16, 4)) FROM generate_series(1, 8) x;
SELECT topk_is_exact(topk_agg(x, 2, 16, 4)) FROM generate_series(1, 9) x;
SELECT t::text::topk = t FROM (SELECT topk_agg(x % 20, 2, 16, 4) t FROM generate_series(1, 100) x) q;
-- bad exact text forms
SELECT 'k=1,w=8,d=1,seed=0,v=1:exact|2/1:00000000000000000000000000000000:31'::topk;  -- lower <> count
SELECT 'k=1,w=8,d=1,seed=0,v=1:exact|1/1:00000000000000000000000000000000:31,1/1:00000000000000000000000000000001:32'::topk;
SELECT 'k=1,w=1,d=1,seed=0,v=1:1|1/2:00000000000000000000000000000000:31'::topk;  -- lower > estimate
-- the form without lower bounds (before issue 32) is read with lower bounds 0
SELECT * FROM topk_items('k=2,w=1,d=1,seed=0,v=1:3|3:00000000000000000000000000000000:31'::topk);
SELECT 'k=2,w=1,d=1,seed=0,v=1:3|3:00000000000000000000000000000000:31,0/0:00000000000000000000000000000001:32'::topk;  -- mixed
-- ... and stored in that layout (flags 0, 8 bytes less per item), as values of
-- that version are: every operation reads it as it is, like the same value
-- with lower bounds 0 in the new layout (the oracle)
CREATE TEMP TABLE legacy AS
SELECT t AS old, t::text::topk AS new
FROM (SELECT topk_agg(x % 40, 3, 16, 2)::text AS s FROM generate_series(1, 500) x) q,
     LATERAL (SELECT regexp_replace(q.s, '(^|[|,])([0-9]+)/[0-9]+:', '\1\2:', 'g')::topk AS t) r;
SELECT pg_column_size(new) - pg_column_size(old) AS bytes_saved, old = new AS equal,
       substr(topk_send(old)::text, 1, 6) AS sent_flags,
       (SELECT array_agg(i ORDER BY i) FROM topk_items(old) i) = (SELECT array_agg(i ORDER BY i) FROM topk_items(new) i) AS items,
       topk_threshold(old) = topk_threshold(new) AS threshold, topk_total(old) = topk_total(new) AS total,
       topk_add(old, 7) = topk_add(new, 7) AS add,
       topk_merge(old, new) = topk_merge(new, new) AS merge_left, topk_merge(new, old) = topk_merge(new, new) AS merge_right,
       (SELECT topk_union_agg(t) FROM (VALUES (old), (new)) v(t)) = topk_merge(new, new) AS union_agg
FROM legacy;
SELECT i.lower_bound, i.guaranteed, count(*) FROM legacy, topk_items(old) i GROUP BY 1, 2;

-- ---------------------------------------------------------------------------
-- incremental functions equal the aggregates
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE seq AS
SELECT i, (i * i % 101)::bigint AS x, (i % 7 = 0) AS odd_part FROM generate_series(1, 2000) i;
CREATE FUNCTION pg_temp.fold(k int, w int, d int) RETURNS topk LANGUAGE plpgsql AS $$
DECLARE
    t topk := topk_empty(k, w, d);
    r record;
BEGIN
    FOR r IN SELECT x FROM seq ORDER BY i LOOP
        t := topk_add(t, r.x);
    END LOOP;
    RETURN t;
END $$;
-- repeated topk_add = topk_agg over the same elements in the same order (51
-- distinct): exact to the end (capacity 256), and converted to the sketch
-- (capacity 24)
SELECT pg_temp.fold(3, 2048, 1) = (SELECT topk_agg(x, 3, 2048, 1 ORDER BY i) FROM seq) AS exact_equal,
       topk_is_exact(pg_temp.fold(3, 2048, 1)) AS was_exact;
SELECT pg_temp.fold(3, 64, 3) = (SELECT topk_agg(x, 3, 64, 3 ORDER BY i) FROM seq) AS sketch_equal,
       topk_is_exact(pg_temp.fold(3, 64, 3)) AS was_exact;
SELECT topk_empty(3) = topk_empty(3, 2048, 5, 0), topk_empty(200) = topk_empty(200, 3200, 5);
-- counts: exact mode, topk_add(t, x, c) = c rows of x
SELECT topk_add(topk_add(topk_empty(2), '7'::text, 3), 'x'::text, 2)
     = (SELECT topk_agg(e, 2 ORDER BY o) FROM (VALUES (1, '7'), (2, '7'), (3, '7'), (4, 'x'), (5, 'x')) v(o, e));
-- NULL element or count: the value unchanged (as the aggregates skip NULL rows)
SELECT topk_add(t, NULL::bigint) = t, topk_add(t, 'a'::text, NULL) = t, topk_add(NULL::topk, 1) IS NULL
FROM (SELECT topk_agg(x, 2) t FROM generate_series(1, 5) x) q;
SELECT topk_add(topk_empty(2), 1, -1);
SELECT topk_merge(topk_empty(2), topk_empty(3));
SELECT topk_empty(0);
-- topk_merge(a, b) = topk_union_agg of a then b, in both modes; merging exact
-- parts = the aggregate over the whole
WITH parts AS (
    SELECT w, topk_agg(x, 3, w, 3 ORDER BY i) FILTER (WHERE odd_part) AS a,
              topk_agg(x, 3, w, 3 ORDER BY i) FILTER (WHERE NOT odd_part) AS b,
              topk_agg(x, 3, w, 3 ORDER BY i) AS whole
    FROM seq, (VALUES (64), (4096)) ws(w) GROUP BY w)
SELECT w, topk_is_exact(topk_merge(a, b)) AS exact,
       topk_merge(a, b) = (SELECT topk_union_agg(t ORDER BY o) FROM (VALUES (1, a), (2, b)) v(o, t)) AS merge_is_union,
       topk_merge(a, b) = whole AS merge_is_whole,
       topk_total(topk_merge(a, b)) = topk_total(whole) AS totals
FROM parts ORDER BY w;
-- cms_merge = cms_union_agg = cms_agg over the whole
SELECT cms_merge(a, b) = whole, cms_merge(a, b) = (SELECT cms_union_agg(s) FROM (VALUES (a), (b)) v(s))
FROM (SELECT cms_agg(x, 64, 3) FILTER (WHERE odd_part) a, cms_agg(x, 64, 3) FILTER (WHERE NOT odd_part) b,
             cms_agg(x, 64, 3) whole FROM seq) q;
-- cms_error: ceil(e N / w); estimate - error <= count for at least 1 - delta
-- of the elements (delta = e^-3 = 5%), estimate >= count for all
WITH s AS (SELECT cms_agg(x, 64, 3) s FROM seq), f AS (SELECT x, count(*) f FROM seq GROUP BY x)
SELECT bool_and(cms_error(s) = ceil(exp(1) * cms_total(s) / cms_w(s))) AS formula,
       count(*) FILTER (WHERE cms_estimate(s, x) - cms_error(s) > f) <= 0.05 * count(*) AS lower_ok,
       count(*) FILTER (WHERE cms_estimate(s, x) < f) AS below
FROM s, f;
SELECT cms_merge(cms_empty(8, 2), cms_empty(8, 3));
SELECT cms_merge(cms_add(cms_empty(4, 2), 1, 9223372036854775807), cms_add(cms_empty(4, 2), 2, 1));

-- ---------------------------------------------------------------------------
-- per-group heavy hitters on a skewed stream (1/10 of the bench's shape:
-- 5,000 tags of log-uniform popularity, 20,000 users, 170,000 events; within
-- a tag users are log-uniform (tag % 3 = 0) or more skewed), against the
-- exact GROUP BY counts, with the defaults
-- ---------------------------------------------------------------------------
SELECT setseed(0.25);
CREATE TEMP TABLE ev AS
SELECT tag, (floor(exp(ln(20000) * random() ^ (1 + tag % 3)))::bigint * 7919 + tag::bigint * 104729) % 20000 AS usr
FROM (SELECT g AS tag FROM generate_series(1, 5000) g
      UNION ALL
      SELECT floor(exp(random() * ln(5001)))::int FROM generate_series(1, 165000)) t;
CREATE TEMP TABLE tk AS SELECT tag, topk_agg(usr, 10) AS t FROM ev GROUP BY tag;
CREATE TEMP TABLE truth AS SELECT tag, usr, count(*) AS f FROM ev GROUP BY tag, usr;
ANALYZE tk, truth;
CREATE TEMP TABLE rep AS
SELECT tk.tag, topk_threshold(tk.t) AS threshold, topk_is_exact(tk.t) AS exact, i.*, truth.f
FROM tk, topk_items(tk.t) i, truth
WHERE truth.tag = tk.tag AND truth.usr = i.item::bigint;
-- both modes occur; every reported item is a real element of its group
SELECT count(*) FILTER (WHERE topk_is_exact(t)) > 0 AS some_exact,
       count(*) FILTER (WHERE NOT topk_is_exact(t)) > 0 AS some_sketch,
       (SELECT count(*) FROM tk, topk_items(tk.t)) = (SELECT count(*) FROM rep) AS all_items_real
FROM tk;
-- the bounds hold for every item; an exact group's items are its exact counts
SELECT count(*) FILTER (WHERE NOT (lower_bound <= f AND f <= upper_bound AND estimate = upper_bound)) AS bounds_violated,
       count(*) FILTER (WHERE exact AND NOT (lower_bound = f AND upper_bound = f)) AS exact_wrong
FROM rep;
-- exact groups report exactly the k largest counts
WITH tenth AS (SELECT tag, min(f) AS f10
               FROM (SELECT tag, f, row_number() OVER (PARTITION BY tag ORDER BY f DESC) rn FROM truth) q
               WHERE rn <= 10 GROUP BY tag)
SELECT count(*) AS exact_groups_not_top FROM rep JOIN tenth USING (tag) WHERE rep.exact AND rep.f < tenth.f10;
-- no item reported as guaranteed whose count is at or below its threshold;
-- recall of the true heavy hitters (count above the threshold) >= 0.95;
-- no false negatives in topk_heavy_hitters(t, true)
CREATE TEMP TABLE thr AS SELECT tag, topk_threshold(t) AS threshold FROM tk;
CREATE TEMP TABLE heavy AS
SELECT truth.tag, truth.usr FROM truth JOIN thr USING (tag) WHERE truth.f > thr.threshold;
CREATE TEMP TABLE hh AS
SELECT tk.tag, h.item::bigint AS usr, nfn FROM tk, LATERAL (VALUES (false), (true)) m(nfn), topk_heavy_hitters(tk.t, nfn) h;
SELECT (SELECT count(*) FROM rep WHERE guaranteed AND f <= threshold) AS false_positives,
       (SELECT count(*) FROM heavy) > 100 AS many_heavy,
       (SELECT count(*) FROM rep JOIN heavy ON rep.tag = heavy.tag AND rep.item::bigint = heavy.usr WHERE rep.guaranteed)
           >= 0.95 * (SELECT count(*) FROM heavy) AS recall_ok,
       (SELECT count(*) FROM heavy LEFT JOIN hh ON hh.nfn AND hh.tag = heavy.tag AND hh.usr = heavy.usr
        WHERE hh.usr IS NULL) AS false_negatives,
       (SELECT count(*) FROM hh JOIN thr USING (tag) JOIN truth USING (tag, usr)
        WHERE NOT hh.nfn AND truth.f <= thr.threshold) AS hh_false_positives;
-- a group without any element above its threshold says so: no guaranteed row
SELECT count(*) > 0 AS groups_without_heavy_hitters
FROM tk WHERE NOT EXISTS (SELECT 1 FROM rep WHERE rep.tag = tk.tag AND guaranteed)
          AND NOT EXISTS (SELECT 1 FROM heavy WHERE heavy.tag = tk.tag);
-- partial aggregates merged (4 parts per tag) keep the bounds and the guarantee
CREATE TEMP TABLE tkm AS
SELECT tag, topk_union_agg(t) AS t
FROM (SELECT tag, topk_agg(usr, 10) t FROM ev GROUP BY tag, usr % 4) p GROUP BY tag;
SELECT count(*) FILTER (WHERE NOT (i.lower_bound <= truth.f AND truth.f <= i.upper_bound)) AS bounds_violated,
       count(*) FILTER (WHERE i.guaranteed AND truth.f <= topk_threshold(tkm.t)) AS false_positives
FROM tkm, topk_items(tkm.t) i, truth WHERE truth.tag = tkm.tag AND truth.usr = i.item::bigint;
SELECT count(*) AS heavy_missing
FROM (SELECT truth.* FROM truth JOIN tkm USING (tag) WHERE truth.f > topk_threshold(tkm.t)) h
LEFT JOIN (SELECT tkm.tag, i.item::bigint AS usr FROM tkm, topk_items(tkm.t) i) r USING (tag, usr)
WHERE r.usr IS NULL;
