-- test/demo/40_bloomtree.sql -- the bloomtree type on the Debian dependency graph:
-- a semi-join between two package families that live on different nodes.
-- Run by test/demo/run.sh after loading
--   pkg(name, id, deps bloomfilter, dep_ids bigint[])  and  pkg_dep(pkg_id, dep_id).
-- Node A holds the python3-* packages, node B the r-cran-* packages; which
-- dependencies do the two families share?  Each node summarises the set of
-- dependencies of its family, ships the summary, and the shared dependencies
-- are read off the intersection of the summaries (the paper's section 4.6).
-- A BloomTree and a standard Bloom filter of the same transmitted size are
-- compared side by side, against the exact answer from the edges.
\set QUIET on
CREATE TEMP TABLE fam AS
    SELECT CASE WHEN name LIKE 'python3-%' THEN 'A' ELSE 'B' END AS node, id, name
    FROM pkg WHERE name LIKE 'python3-%' OR name LIKE 'r-cran-%';
CREATE TEMP TABLE famdep AS
    SELECT DISTINCT f.node, d.dep_id FROM fam f JOIN pkg_dep d ON d.pkg_id = f.id;
CREATE TEMP TABLE shared AS
    SELECT dep_id FROM famdep WHERE node = 'A' INTERSECT SELECT dep_id FROM famdep WHERE node = 'B';
\set QUIET off

\echo
\echo '## The two families and their dependency sets (exact, from the edges)'
SELECT node, CASE node WHEN 'A' THEN 'python3-*' ELSE 'r-cran-*' END AS family,
       (SELECT count(*) FROM fam WHERE fam.node = f.node) AS packages,
       count(*) AS distinct_dependencies
FROM famdep f GROUP BY node ORDER BY node;
SELECT count(*) AS shared_dependencies FROM shared;

\echo
\echo '## What each node sends: a BloomTree sized for n_max = the larger set, the paper''s'
\echo '## d = 3, rho_1 = 1 configuration (m = n_max, 4, 3; k = 6, 3, 2), and a standard Bloom'
\echo '## filter (optimal k for n_max) as large as the smaller of the two trees'' coded forms (the'
\echo '## paper''s section 8.2.1 protocol; the two filters need the same m to be ANDed)'
SELECT max(c) AS n_max FROM (SELECT count(*) AS c FROM famdep GROUP BY node) s \gset
\set QUIET on
CREATE TEMP TABLE msg AS
    SELECT node, bloomtree_agg(dep_id, ARRAY[:n_max, 4, 3], ARRAY[6, 3, 2]) AS t, count(*) AS n
    FROM famdep GROUP BY node;
SELECT 8 * min(bloomtree_compressed_bytes(t)) AS sbf_m FROM msg \gset
ALTER TABLE msg ADD COLUMN f bloomfilter;
UPDATE msg SET f = s.f
FROM (SELECT node, bloom_agg(dep_id, :sbf_m, bloom_optimal_k(:sbf_m, :n_max)) AS f FROM famdep GROUP BY node) s
WHERE msg.node = s.node;
\set QUIET off
SELECT node, n AS elements, bloomtree_storage_bits(t) / 8 AS tree_bytes_uncompressed,
       bloomtree_compressed_bytes(t) AS tree_bytes_sent,
       round(bloomtree_entropy_bytes(t)) AS theorem_4_1_bytes,
       (bloom_m(f) + 7) / 8 AS filter_bytes_sent, bloom_k(f) AS filter_k
FROM msg ORDER BY node;
SELECT node, level, m, k, filters, round(fill::numeric, 4) AS fill, mode, coded_bytes
FROM msg, bloomtree_levels(t) ORDER BY node, level;

\echo
\echo '## One summary alone: the rate at which a non-member passes it.  bloomtree_expected_fp'
\echo '## predicts the measured rate; the paper''s posterior (equations 11-12, bloomtree_fp_rate)'
\echo '## does not: it is a geometric mean of per-query probabilities, far below their mean.'
\echo '## (Measured over every package id that is not a dependency of the family.)'
SELECT m.node, round(100 * x.tree_fp, 3) AS tree_fp_pct,
       round(100 * bloomtree_expected_fp(m.t)::numeric, 3) AS tree_expected_pct,
       round(100 * bloomtree_fp_rate(m.t)::numeric, 5) AS tree_posterior_pct,
       round(100 * x.filter_fp, 3) AS filter_fp_pct,
       round(100 * bloom_fp_rate(m.f)::numeric, 3) AS filter_expected_pct
FROM msg m,
     LATERAL (SELECT avg((m.t @> p.id)::int)::numeric AS tree_fp, avg((m.f @> p.id)::int)::numeric AS filter_fp
              FROM pkg p
              WHERE NOT EXISTS (SELECT 1 FROM famdep d WHERE d.node = m.node AND d.dep_id = p.id)) x
ORDER BY m.node;

\echo
\echo '## 1. The one-way semi-join: node A sends its summary, node B keeps the dependencies'
\echo '## of its own family that A''s summary reports (no false negatives: every shared'
\echo '## dependency is kept; the extra ones are false positives)'
SELECT 'BloomTree' AS summary,
       count(*) FILTER (WHERE a.t @> b.dep_id) AS kept,
       count(*) FILTER (WHERE a.t @> b.dep_id AND b.dep_id IN (SELECT dep_id FROM shared)) AS shared_kept,
       count(*) FILTER (WHERE a.t @> b.dep_id AND b.dep_id NOT IN (SELECT dep_id FROM shared)) AS false_positives,
       (SELECT count(*) FROM shared) AS exact_shared
FROM msg a, famdep b WHERE a.node = 'A' AND b.node = 'B'
UNION ALL
SELECT 'Bloom filter',
       count(*) FILTER (WHERE a.f @> b.dep_id),
       count(*) FILTER (WHERE a.f @> b.dep_id AND b.dep_id IN (SELECT dep_id FROM shared)),
       count(*) FILTER (WHERE a.f @> b.dep_id AND b.dep_id NOT IN (SELECT dep_id FROM shared)),
       (SELECT count(*) FROM shared)
FROM msg a, famdep b WHERE a.node = 'A' AND b.node = 'B';

\echo
\echo '## 2. Both nodes send their summaries; a third node ANDs them (a & b) and probes every'
\echo '## package id: the ids reported are the estimated shared dependencies'
\set QUIET on
CREATE TEMP TABLE both_ AS
    SELECT (SELECT t FROM msg WHERE node = 'A') & (SELECT t FROM msg WHERE node = 'B') AS t,
           (SELECT f FROM msg WHERE node = 'A') & (SELECT f FROM msg WHERE node = 'B') AS f;
\set QUIET off
SELECT 'BloomTree a & b' AS summary,
       count(*) FILTER (WHERE b.t @> p.id) AS reported,
       count(*) FILTER (WHERE b.t @> p.id AND s.dep_id IS NOT NULL) AS shared_reported,
       count(*) FILTER (WHERE b.t @> p.id AND s.dep_id IS NULL) AS false_positives,
       count(*) FILTER (WHERE s.dep_id IS NOT NULL) AS exact_shared,
       round(100.0 * count(*) FILTER (WHERE b.t @> p.id AND s.dep_id IS NULL)
             / count(*) FILTER (WHERE s.dep_id IS NULL), 4) AS fp_pct_of_non_shared
FROM both_ b CROSS JOIN pkg p LEFT JOIN shared s ON s.dep_id = p.id
UNION ALL
SELECT 'Bloom filter a & b',
       count(*) FILTER (WHERE b.f @> p.id),
       count(*) FILTER (WHERE b.f @> p.id AND s.dep_id IS NOT NULL),
       count(*) FILTER (WHERE b.f @> p.id AND s.dep_id IS NULL),
       count(*) FILTER (WHERE s.dep_id IS NOT NULL),
       round(100.0 * count(*) FILTER (WHERE b.f @> p.id AND s.dep_id IS NULL)
             / count(*) FILTER (WHERE s.dep_id IS NULL), 4)
FROM both_ b CROSS JOIN pkg p LEFT JOIN shared s ON s.dep_id = p.id;
\echo 'the false positives by kind: ids that are dependencies of one family only, and the rest'
SELECT kind,
       count(*) AS ids,
       count(*) FILTER (WHERE b.t @> p.id) AS tree_false_positives,
       count(*) FILTER (WHERE b.f @> p.id) AS filter_false_positives
FROM (SELECT p.id, CASE WHEN a.dep_id IS NOT NULL THEN 'python3-* only'
                        WHEN r.dep_id IS NOT NULL THEN 'r-cran-* only' ELSE 'neither' END AS kind
      FROM pkg p
      LEFT JOIN famdep a ON a.node = 'A' AND a.dep_id = p.id
      LEFT JOIN famdep r ON r.node = 'B' AND r.dep_id = p.id
      WHERE p.id NOT IN (SELECT dep_id FROM shared)) p, both_ b
GROUP BY kind ORDER BY kind;
SELECT bloomtree_compressed_bytes(t) AS and_tree_bytes, bloomtree_expected_fp(t)::numeric(10, 8) AS and_tree_expected_fp,
       bloomtree_fp_rate(t)::numeric(10, 8) AS and_tree_posterior, bloom_fp_rate(f)::numeric(10, 8) AS and_filter_fill_pow_k
FROM both_;

\echo
\echo '## A few of the shared dependencies the AND of the trees reports (and whether they are)'
SELECT * FROM (
    SELECT p.name, (s.dep_id IS NOT NULL) AS really_shared, b.f @> p.id AS filter_says,
           (SELECT count(*) FROM fam f JOIN pkg_dep d ON d.pkg_id = f.id WHERE f.node = 'A' AND d.dep_id = p.id) AS python3_users,
           (SELECT count(*) FROM fam f JOIN pkg_dep d ON d.pkg_id = f.id WHERE f.node = 'B' AND d.dep_id = p.id) AS r_cran_users
    FROM both_ b CROSS JOIN pkg p LEFT JOIN shared s ON s.dep_id = p.id
    WHERE b.t @> p.id) r
ORDER BY python3_users + r_cran_users DESC, name LIMIT 12;
\echo '(the last ones: reported by the tree although only one family depends on them)'
SELECT name, python3_users, r_cran_users FROM (
    SELECT p.name,
           (SELECT count(*) FROM fam f JOIN pkg_dep d ON d.pkg_id = f.id WHERE f.node = 'A' AND d.dep_id = p.id) AS python3_users,
           (SELECT count(*) FROM fam f JOIN pkg_dep d ON d.pkg_id = f.id WHERE f.node = 'B' AND d.dep_id = p.id) AS r_cran_users
    FROM both_ b CROSS JOIN pkg p LEFT JOIN shared s ON s.dep_id = p.id
    WHERE b.t @> p.id AND s.dep_id IS NULL) r
ORDER BY name LIMIT 5;

\echo
\echo '## Summary: at the same transmitted size the standard filter has the lower false-positive'
\echo '## rate, for one summary and for the AND of two; the BloomTree''s advantage in the paper'
\echo '## comes from judging it by the posterior of equations 11-12 (see docs/bloomtree.md).'
