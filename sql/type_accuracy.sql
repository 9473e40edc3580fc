-- Accuracy of the type against exact answers: no false negatives, the
-- false-positive rate of a filter sized for 1%, the cardinality estimate at
-- n = 100k and the intersection / union / Jaccard estimates against exact set
-- arithmetic.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;

-- 100k distinct bigints, scattered over a large range
CREATE TEMP TABLE ints AS
    SELECT (i * 2654435761 % 1000000007)::bigint AS x FROM generate_series(1, 100000) i;
SELECT count(DISTINCT x) AS distinct_members FROM ints;
CREATE TEMP TABLE fi AS
    SELECT bloom_agg(x, bloom_optimal_m(100000, 0.01)::int,
                     bloom_optimal_k(bloom_optimal_m(100000, 0.01), 100000)) AS f
    FROM ints;
SELECT bloom_m(f), bloom_k(f) FROM fi;
SELECT count(*) FILTER (WHERE NOT f @> x) AS false_negatives FROM ints, fi;
-- measured false-positive rate over 200k non-members (negative numbers) within
-- +-15% of the 1% the filter was sized for
SELECT abs(fp - 0.01) / 0.01 <= 0.15 AS fp_within_15pct,
       abs(fp - bloom_expected_fp(bloom_m(f), bloom_k(f), 100000)) < 0.0015 AS fp_matches_formula
FROM (SELECT count(*) FILTER (WHERE (SELECT f FROM fi) @> -i::bigint)::float8 / count(*) AS fp
      FROM generate_series(1, 200000) i) t, fi;
-- cardinality within 2% at n = 100k
SELECT abs((# f) - 100000) / 100000 < 0.02 AS card_within_2pct FROM fi;
-- fill ratio and posterior fp rate are consistent
SELECT abs(bloom_fp_rate(f) - bloom_fill_ratio(f) ^ bloom_k(f)) < 1e-12 AS fp_rate_is_fill_pow_k FROM fi;

-- 10k text, bytea and uuid elements: no false negatives
CREATE TEMP TABLE strs AS
    SELECT 'user-' || i AS t, sha256(i::text::bytea) AS b, md5(i::text)::uuid AS u
    FROM generate_series(1, 10000) i;
SELECT count(*) FILTER (WHERE NOT ft @> t) AS text_fn,
       count(*) FILTER (WHERE NOT fb @> b) AS bytea_fn,
       count(*) FILTER (WHERE NOT fu @> u) AS uuid_fn,
       count(*) FILTER (WHERE NOT t <@ ft) AS text_fn2
FROM strs,
     (SELECT bloom_agg(t, 95851, 7) ft, bloom_agg(b, 95851, 7) fb, bloom_agg(u, 95851, 7) fu FROM strs) f;
-- the same through bloom_from_array and bloom_add
SELECT bloom_from_array(array_agg(t), 95851, 7) = bloom_agg(t, 95851, 7) AS from_array_eq_agg FROM strs;
SELECT count(*) FILTER (WHERE NOT bloom_contains(bloom_add(bloom_empty(4096, 5, 3, 'linear'), i), i)) AS linear_fn
FROM generate_series(-500, 500) i;

-- intersection, union and Jaccard estimates: |A| = |B| = 30k, |A n B| = 10k
CREATE TEMP TABLE ab AS
    SELECT (SELECT bloom_agg(i, 287552, 7) FROM generate_series(1, 30000) i) AS a,
           (SELECT bloom_agg(i, 287552, 7) FROM generate_series(20001, 50000) i) AS b;
SELECT abs(bloom_intersection_cardinality(a, b) - 10000) / 10000 < 0.10 AS inter_within_10pct,
       abs(bloom_union_cardinality(a, b) - 50000) / 50000 < 0.05 AS union_within_5pct,
       abs(bloom_jaccard(a, b) - 0.2) / 0.2 < 0.10 AS jaccard_within_10pct,
       (# (a & b)) > 1.3 * bloom_intersection_cardinality(a, b) AS and_filter_overcounts,
       (a | b) = (SELECT bloom_agg(i, 287552, 7) FROM generate_series(1, 50000) i) AS or_is_union_filter
FROM ab;
-- every member of A n B is in a & b
SELECT count(*) FILTER (WHERE NOT (a & b) @> i::bigint) AS and_false_negatives
FROM ab, generate_series(20001, 30000) i;
-- disjoint sets: estimate close to 0
SELECT bloom_intersection_cardinality(
           (SELECT bloom_agg(i, 287552, 7) FROM generate_series(1, 30000) i),
           (SELECT bloom_agg(i, 287552, 7) FROM generate_series(30001, 60000) i)) < 300 AS disjoint_near_zero;

-- fold keeps every member
CREATE TEMP TABLE folded AS SELECT bloom_fold(bloom_agg(x, 958512, 7), 2) AS f FROM ints;
SELECT bloom_m(f) FROM folded;
SELECT count(*) FILTER (WHERE NOT f @> x) AS fold_false_negatives FROM ints, folded;
