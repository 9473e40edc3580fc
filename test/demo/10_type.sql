-- test/demo/10_type.sql -- the bloomfilter type on the Debian dependency graph.
-- Run by test/demo/run.sh after loading
--   pkg(name, id, deps bloomfilter, dep_ids bigint[])  and  pkg_dep(pkg_id, dep_id).
-- Every estimate is shown next to the exact answer computed from the edges.

\echo
\echo '## The data: one row per Debian package, its dependencies as a Bloom filter'
SELECT count(*) AS packages,
       (SELECT count(*) FROM pkg_dep) AS dependency_edges,
       (SELECT bloom_m(deps) FROM pkg LIMIT 1) AS m, (SELECT bloom_k(deps) FROM pkg LIMIT 1) AS k,
       (SELECT pg_column_size(deps) FROM pkg LIMIT 1) AS bytes_per_filter,
       round(avg(cardinality(dep_ids)), 2) AS avg_deps,
       percentile_disc(0.5) WITHIN GROUP (ORDER BY cardinality(dep_ids)) AS median_deps,
       max(cardinality(dep_ids)) AS max_deps
FROM pkg;

SELECT name, id, bloom_popcount(deps) AS bits_set, round(bloom_fill_ratio(deps)::numeric, 4) AS fill,
       round((# deps)::numeric, 2) AS est_deps, cardinality(dep_ids) AS true_deps
FROM pkg WHERE name IN ('postgresql-15', 'python3', 'gimp', 'libc6') ORDER BY name;

\echo
\echo '## 1. Membership: does a package depend on another?  (f @> id, id <@ f, bloom_contains)'
SELECT p.name, d.name AS dependency,
       p.deps @> d.id AS filter_says, d.id <@ p.deps AS same_commuted,
       bloom_contains(p.deps, d.id) AS same_function,
       d.id = ANY (p.dep_ids) AS truth
FROM pkg p, pkg d
WHERE p.name IN ('postgresql-15', 'gimp')
  AND d.name IN ('libc6', 'libpq5', 'libssl3', 'libgtk2.0-0', 'python3', 'perl')
ORDER BY 1, 2;

\echo
\echo '## Reverse dependencies: which packages depend on X?  Filter scan vs exact edges.'
\echo '## A Bloom filter never misses a dependency (false_negatives = 0); the extra rows are'
\echo '## its false positives, at a rate close to the one predicted from each filter''s fill.'
WITH probe AS (SELECT id, name FROM pkg
               WHERE name IN ('libc6', 'python3', 'perl', 'libglib2.0-0', 'zlib1g', 'libpq5', 'r-base-core')),
     counts AS (
    SELECT probe.name,
           count(*) FILTER (WHERE p.deps @> probe.id) AS filter_rows,
           count(*) FILTER (WHERE probe.id = ANY (p.dep_ids)) AS exact_rows,
           count(*) FILTER (WHERE probe.id = ANY (p.dep_ids) AND NOT p.deps @> probe.id) AS false_negatives,
           count(*) FILTER (WHERE p.deps @> probe.id AND NOT probe.id = ANY (p.dep_ids)) AS false_positives,
           count(*) FILTER (WHERE NOT probe.id = ANY (p.dep_ids)) AS non_dependents,
           sum(bloom_fp_rate(p.deps)) FILTER (WHERE NOT probe.id = ANY (p.dep_ids)) AS expected_fp
    FROM probe CROSS JOIN pkg p GROUP BY probe.name)
SELECT name, filter_rows, exact_rows, false_negatives, false_positives,
       round(expected_fp::numeric, 1) AS expected_false_positives,
       round(1e6 * false_positives / non_dependents, 1) AS fp_per_million
FROM counts ORDER BY exact_rows DESC;

\echo
\echo '## 2. Cardinality: # deps (estimated from the fill ratio) vs the true number of dependencies'
WITH e AS (SELECT cardinality(dep_ids) AS truth, # deps AS est FROM pkg)
SELECT CASE WHEN truth = 0 THEN '0' WHEN truth < 5 THEN '1-4' WHEN truth < 20 THEN '5-19'
            WHEN truth < 100 THEN '20-99' ELSE '100+' END AS true_deps,
       count(*) AS packages,
       round(avg(est - truth)::numeric, 3) AS mean_error,
       round(avg(abs(est - truth))::numeric, 3) AS mean_abs_error,
       round(sqrt(avg((est - truth) ^ 2))::numeric, 3) AS rmse,
       round(max(abs(est - truth))::numeric, 2) AS max_abs_error,
       round(100.0 * avg((round(est) = truth)::int), 1) AS pct_exact_after_rounding,
       round(100 * avg(abs(est - truth) / nullif(truth, 0))::numeric, 2) AS mean_rel_error_pct
FROM e GROUP BY 1 ORDER BY min(truth);

\echo 'all packages:'
SELECT count(*) AS packages,
       round(avg(abs((# deps) - cardinality(dep_ids)))::numeric, 3) AS mean_abs_error,
       round(100.0 * avg((round(# deps) = cardinality(dep_ids))::int), 2) AS pct_exact_after_rounding,
       round(sum(# deps)::numeric) AS sum_of_estimates, sum(cardinality(dep_ids)) AS true_edges
FROM pkg;

\echo
\echo '## 3. Shared dependencies: bloom_intersection_cardinality(a, b) vs the exact |A n B|'
\echo '## (a) well-known pairs'
\set QUIET on
CREATE TEMP TABLE demo_pairs AS
SELECT a.name AS a, b.name AS b, a.deps AS fa, b.deps AS fb,
       (SELECT count(*) FROM pkg_dep x JOIN pkg_dep y ON x.dep_id = y.dep_id
        WHERE x.pkg_id = a.id AND y.pkg_id = b.id) AS shared,
       (SELECT count(DISTINCT dep_id) FROM pkg_dep WHERE pkg_id IN (a.id, b.id)) AS union_size
FROM (VALUES ('postgresql-15', 'mariadb-server'), ('gimp', 'inkscape'),
             ('firefox-esr', 'thunderbird'), ('libreoffice-core', 'libreoffice-calc'),
             ('vlc', 'mpv'), ('emacs-gtk', 'vim-gtk3'), ('openjdk-17-jdk', 'openjdk-17-jre'),
             ('python3-numpy', 'python3-scipy'), ('gnome-shell', 'plasma-desktop'),
             ('qgis', 'grass-gui')) AS v(x, y)
JOIN pkg a ON a.name = v.x JOIN pkg b ON b.name = v.y;

\echo '## (b) the 8 most-overlapping pairs among the 150 packages with the most dependencies'
INSERT INTO demo_pairs
SELECT a.name, b.name, a.deps, b.deps, s.shared,
       cardinality(a.dep_ids) + cardinality(b.dep_ids) - s.shared
FROM (SELECT x.pkg_id AS ia, y.pkg_id AS ib, count(*) AS shared
      FROM (SELECT id FROM pkg ORDER BY cardinality(dep_ids) DESC, id LIMIT 150) top
      JOIN pkg_dep x ON x.pkg_id = top.id
      JOIN pkg_dep y ON y.dep_id = x.dep_id AND y.pkg_id > x.pkg_id
      WHERE y.pkg_id IN (SELECT id FROM pkg ORDER BY cardinality(dep_ids) DESC, id LIMIT 150)
      GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2 LIMIT 8) s
JOIN pkg a ON a.id = s.ia JOIN pkg b ON b.id = s.ib;
\set QUIET off

SELECT a, b, round((# fa)::numeric, 1) AS est_a, round((# fb)::numeric, 1) AS est_b,
       round(bloom_intersection_cardinality(fa, fb)::numeric, 1) AS est_shared, shared AS exact_shared,
       round((bloom_intersection_cardinality(fa, fb) - shared)::numeric, 1) AS error
FROM demo_pairs ORDER BY shared DESC, a;

\echo
\echo '## 4. Union and Jaccard similarity: bloom_union_cardinality, bloom_jaccard, a | b, a & b'
SELECT a, b,
       round(bloom_union_cardinality(fa, fb)::numeric, 1) AS est_union, union_size AS exact_union,
       round((# (fa | fb))::numeric, 1) AS card_of_or,
       round(bloom_jaccard(fa, fb)::numeric, 3) AS est_jaccard,
       round(shared::numeric / nullif(union_size, 0), 3) AS exact_jaccard,
       round((# (fa & fb))::numeric, 1) AS card_of_and_naive
FROM demo_pairs ORDER BY shared DESC, a;
\echo 'card_of_and_naive: # (a & b) over-counts the intersection (bits set by different'
\echo 'elements of A and B collide); bloom_intersection_cardinality corrects for that.'

\echo
\echo '## Error of the intersection estimate over every pair of the 150 packages with most deps'
WITH top AS (SELECT id, deps, dep_ids FROM pkg ORDER BY cardinality(dep_ids) DESC, id LIMIT 150),
     pairs AS (
    SELECT bloom_intersection_cardinality(a.deps, b.deps) AS est,
           (SELECT count(*) FROM (SELECT unnest(a.dep_ids) INTERSECT SELECT unnest(b.dep_ids)) s) AS exact
    FROM top a JOIN top b ON a.id < b.id)
SELECT count(*) AS pairs, round(avg(exact), 2) AS avg_exact_shared,
       round(avg(est - exact)::numeric, 3) AS mean_error,
       round(avg(abs(est - exact))::numeric, 3) AS mean_abs_error,
       round(max(abs(est - exact))::numeric, 2) AS max_abs_error,
       round(100 * avg(abs(est - exact) / exact) FILTER (WHERE exact >= 20)::numeric, 2)
           AS mean_rel_error_pct_when_20_or_more
FROM pairs;

\echo
\echo '## 5. Aggregates: the union of the dependencies of a package family (bloom_union_agg),'
\echo '## and bloom_agg building the same filter straight from the edges'
SELECT f.family, count(*) AS packages,
       round((# bloom_union_agg(p.deps))::numeric, 1) AS est_distinct_deps,
       (SELECT count(DISTINCT e.dep_id) FROM pkg_dep e JOIN pkg q ON q.id = e.pkg_id
        WHERE q.name LIKE f.pattern) AS exact_distinct_deps
FROM (VALUES ('postgresql-15*', 'postgresql-15%'), ('libreoffice-*', 'libreoffice-%'),
             ('python3-django*', 'python3-django%')) AS f(family, pattern)
JOIN pkg p ON p.name LIKE f.pattern
GROUP BY f.family, f.pattern ORDER BY 1;

SELECT p.name,
       (SELECT bloom_agg(e.dep_id, :demo_m, :demo_k) FROM pkg_dep e WHERE e.pkg_id = p.id) = p.deps
           AS bloom_agg_equals_stored_filter
FROM pkg p WHERE p.name IN ('postgresql-15', 'gimp', 'python3') ORDER BY 1;

\echo
\echo '## The text form of a filter (m, k, seed and hash are readable; bits in hex)'
SELECT name, left(deps::text, 90) || '...' AS deps_as_text FROM pkg WHERE name = 'postgresql-15';
