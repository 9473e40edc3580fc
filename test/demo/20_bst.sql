-- test/demo/20_bst.sql -- BloomSampleTree on the Debian dependency graph.
-- Run by test/demo/run.sh after loading
--   pkg(name, id, deps bloomfilter, dep_ids bigint[])  and  pkg_dep(pkg_id, dep_id)
-- (filters of m = :demo_m bits, k = :demo_k, seed 0, xxh3).  Every sample and
-- every reconstruction is checked against the exact edges.

\echo
\echo '## A BloomSampleTree over the package ids, with the filters'' parameters'
SELECT bst_create('debian', 0, (SELECT max(id) + 1 FROM pkg), :demo_m, :demo_k);
SELECT tree_name, namespace_lo, namespace_hi, m, k, depth, leaf_size, nodes,
       round(memory_bytes / 1048576.0, 1) AS tree_mb, round(index_bytes / 1048576.0, 1) AS index_mb
FROM bst_info('debian');

\echo
\echo '## 1. A random dependency of a package: bst_sample(tree, filter, 1)'
\echo '##    (is_true_dependency: the sample is in the exact set.  A sample is drawn from every id'
\echo '##    the filter holds, false positives included: fp_share is the expected share of false'
\echo '##    positives among them, (M - n) * fp_rate / ((M - n) * fp_rate + n) for n dependencies'
\echo '##    among M ids.  A package with many dependencies fills its m = 1024 filter so far that'
\echo '##    a good part of its ids are false: size filters for the largest set (bloom_for_capacity))'
SELECT p.name AS package, d.name AS random_dependency, s = ANY (p.dep_ids) AS is_true_dependency,
       e.n, round(e.fp::numeric, 5) AS fp_rate,
       round(((e.ids - e.n) * e.fp / ((e.ids - e.n) * e.fp + e.n))::numeric, 2) AS fp_share
FROM pkg p
     CROSS JOIN LATERAL (SELECT cardinality(p.dep_ids) AS n, bloom_fp_rate(p.deps) AS fp,
                                (SELECT max(id) + 1 FROM pkg) AS ids) e,
     LATERAL bst_sample('debian', p.deps, 1) s JOIN pkg d ON d.id = s
WHERE p.name IN ('postgresql-15', 'gimp', 'python3', 'git', 'openssh-server')
ORDER BY 1;

\echo
\echo '## The samples are uniform: 20000 samples of gimp''s dependencies, per-dependency counts'
WITH g AS (SELECT * FROM pkg WHERE name = 'gimp'),
     s AS (SELECT x FROM g, bst_sample('debian', g.deps, 20000) x),
     c AS (SELECT x, count(*) AS o FROM s GROUP BY x),
     pos AS (SELECT x FROM g, bst_reconstruct('debian', g.deps) x)
SELECT count(*) AS positives, min(coalesce(c.o, 0)) AS min_count, max(c.o) AS max_count,
       round(20000.0 / count(*), 1) AS expected_count,
       round(sum((coalesce(c.o, 0) - 20000.0 / n) ^ 2 / (20000.0 / n))::numeric, 1) AS chi2,
       count(*) - 1 AS degrees_of_freedom
FROM pos LEFT JOIN c USING (x), (SELECT count(*) AS n FROM pos) nn;

\echo
\echo '## 2. A random walk of length 20 along dependencies (recursive CTE over bst_sample);'
\echo '##    at a package without dependencies the walk restarts from postgresql-15'
WITH RECURSIVE walk(step, id, via_true_edge, restart) AS (
    SELECT 0, id, NULL::boolean, false FROM pkg WHERE name = 'postgresql-15'
  UNION ALL
    SELECT w.step + 1, coalesce(s.x, (SELECT id FROM pkg WHERE name = 'postgresql-15')),
           CASE WHEN s.x IS NOT NULL THEN s.x = ANY (p.dep_ids) END, s.x IS NULL
    FROM walk w JOIN pkg p ON p.id = w.id
         LEFT JOIN LATERAL (SELECT x FROM bst_sample('debian', p.deps, 1) x) s ON true
    WHERE w.step < 20
)
SELECT w.step, k.name AS package, w.via_true_edge, w.restart, cardinality(k.dep_ids) AS its_deps
FROM walk w JOIN pkg k ON k.id = w.id ORDER BY w.step;

\echo
\echo '## 3. Reconstruct every package''s dependency set from its filter alone'
\echo '##    precision = true dependencies / reconstructed ids, recall = found / true (always 1)'
\timing on
CREATE TEMP TABLE recon AS
SELECT p.id, cardinality(p.dep_ids) AS true_n,
       count(r.x) AS reconstructed,
       count(r.x) FILTER (WHERE r.x = ANY (p.dep_ids)) AS true_found
FROM pkg p LEFT JOIN LATERAL bst_reconstruct('debian', p.deps) r(x) ON true
GROUP BY p.id, p.dep_ids;
\timing off
SELECT count(*) AS packages, sum(true_n) AS true_edges, sum(reconstructed) AS reconstructed_ids,
       round(sum(true_found)::numeric / nullif(sum(reconstructed), 0), 4) AS precision,
       round(sum(true_found)::numeric / nullif(sum(true_n), 0), 4) AS recall,
       count(*) FILTER (WHERE reconstructed = true_n) AS exact_sets
FROM recon;
\echo '## precision and recall by set size'
SELECT CASE WHEN true_n = 0 THEN '0' WHEN true_n <= 2 THEN '1-2' WHEN true_n <= 10 THEN '3-10'
            WHEN true_n <= 50 THEN '11-50' ELSE '> 50' END AS deps,
       count(*) AS packages,
       round(sum(true_found)::numeric / nullif(sum(reconstructed), 0), 4) AS precision,
       round(sum(true_found)::numeric / nullif(sum(true_n), 0), 4) AS recall
FROM recon GROUP BY 1 ORDER BY min(true_n);

\echo
\echo '## The same sets by the dictionary attack (every id tested), on 500 packages: same answer, slower'
\timing on
CREATE TEMP TABLE da AS
SELECT p.id, array(SELECT bloom_dictionary_attack(p.deps, 0, (SELECT max(id) + 1 FROM pkg))) AS ids
FROM pkg p ORDER BY p.id LIMIT 500;
CREATE TEMP TABLE bst AS
SELECT p.id, array(SELECT bst_reconstruct('debian', p.deps)) AS ids
FROM pkg p ORDER BY p.id LIMIT 500;
\timing off
SELECT count(*) AS packages, bool_and(da.ids = bst.ids) AS identical FROM da JOIN bst USING (id);
SELECT s.* FROM pkg p, bst_reconstruct_stats('debian', p.deps) s WHERE p.name = 'gimp';

SELECT bst_drop('debian');
