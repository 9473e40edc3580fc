-- test/demo/30_bloofi.sql -- the Bloofi index on the Debian dependency graph.
-- Run by test/demo/run.sh after loading
--   pkg(name, id, deps bloomfilter, dep_ids bigint[])  and  pkg_dep(pkg_id, dep_id).
-- "Which packages depend on X?" answered through a bloofi index on deps,
-- checked against the true reverse dependencies (the edges), and timed next
-- to a sequential scan of the filters and a GIN index on dep_ids.

\echo
\echo '## Bloofi: CREATE INDEX ... USING bloofi (deps), then f @> id uses it'
CREATE INDEX pkg_deps_bloofi ON pkg USING bloofi (deps);
CREATE INDEX pkg_dep_ids_gin ON pkg USING gin (dep_ids);
ANALYZE pkg;
-- bloofi_check returns nothing and raises an error on the first inconsistency
SELECT 'passed' AS bloofi_check FROM (SELECT bloofi_check('pkg_deps_bloofi')) c;
SELECT height, nodes, leaves, inner_nodes, bottom_nodes, "order", pages,
       pg_size_pretty(pg_relation_size('pkg_deps_bloofi')) AS bloofi_size,
       pg_size_pretty(pg_relation_size('pkg_dep_ids_gin')) AS gin_size,
       round(avg_bottom_fill::numeric, 3) AS bottom_fill, round(root_fill::numeric, 3) AS root_fill
FROM bloofi_stats('pkg_deps_bloofi');

EXPLAIN (COSTS OFF)
SELECT name FROM pkg WHERE deps @> (SELECT id FROM pkg WHERE name = 'libpq5');

\echo
\echo '## Which packages depend on libpq5?  (through the index; * = not a true dependent)'
SELECT p.name, CASE WHEN x.id = ANY (p.dep_ids) THEN '' ELSE '*' END AS false_positive
FROM pkg x JOIN pkg p ON p.deps @> x.id
WHERE x.name = 'libpq5'
ORDER BY 1;

\echo
\echo '## Reverse dependencies of popular packages: index answer vs true reverse dependencies.'
\echo '## missed must be 0 (a Bloom filter has no false negatives, and neither has the index);'
\echo '## extra are the filters'' false positives, exactly those a sequential scan also returns.'
\echo '## (the planner picks the index by itself: one bitmap index scan per target package)'
EXPLAIN (COSTS OFF)
SELECT x.name AS target, p.id
FROM pkg x JOIN pkg p ON p.deps @> x.id
WHERE x.name IN ('libc6', 'python3', 'perl', 'libglib2.0-0', 'zlib1g', 'libpq5', 'libssl3', 'r-base-core');
CREATE TEMP TABLE via_index AS
SELECT x.name AS target, p.id
FROM pkg x JOIN pkg p ON p.deps @> x.id
WHERE x.name IN ('libc6', 'python3', 'perl', 'libglib2.0-0', 'zlib1g', 'libpq5', 'libssl3', 'r-base-core');
SET enable_bitmapscan = off;
CREATE TEMP TABLE via_seqscan AS
SELECT x.name AS target, p.id
FROM pkg x JOIN pkg p ON p.deps @> x.id
WHERE x.name IN ('libc6', 'python3', 'perl', 'libglib2.0-0', 'zlib1g', 'libpq5', 'libssl3', 'r-base-core');
RESET enable_bitmapscan;
SELECT x.name AS target,
       (SELECT count(*) FROM via_index v WHERE v.target = x.name) AS index_rows,
       (SELECT count(*) FROM pkg_dep d WHERE d.dep_id = x.id) AS true_dependents,
       (SELECT count(*) FROM pkg_dep d WHERE d.dep_id = x.id
          AND NOT EXISTS (SELECT 1 FROM via_index v WHERE v.target = x.name AND v.id = d.pkg_id)) AS missed,
       (SELECT count(*) FROM via_index v WHERE v.target = x.name
          AND NOT EXISTS (SELECT 1 FROM pkg_dep d WHERE d.dep_id = x.id AND d.pkg_id = v.id)) AS extra,
       (SELECT count(*) FROM (SELECT id FROM via_index v WHERE v.target = x.name
                              EXCEPT SELECT id FROM via_seqscan s WHERE s.target = x.name) a) +
       (SELECT count(*) FROM (SELECT id FROM via_seqscan s WHERE s.target = x.name
                              EXCEPT SELECT id FROM via_index v WHERE v.target = x.name) b) AS differs_from_seqscan
FROM pkg x
WHERE x.name IN ('libc6', 'python3', 'perl', 'libglib2.0-0', 'zlib1g', 'libpq5', 'libssl3', 'r-base-core')
ORDER BY true_dependents DESC;

\echo
\echo '## The search cost of one lookup (bloofi_probe): filters tested, matches'
SELECT x.name AS target, p.nodes_checked, p.matches
FROM pkg x, LATERAL bloofi_probe('pkg_deps_bloofi', x.id) p
WHERE x.name IN ('libpq5', 'libgtk2.0-0', 'r-base-core')
ORDER BY 1;

\echo
\echo '## Timing one reverse-dependency lookup of libpq5 (ms, median of 15 runs):'
\echo '## the bloofi index vs a sequential scan of the filters vs GIN on dep_ids (exact)'
CREATE TEMP TABLE timing (method text, ms float8);
DO $$
DECLARE
    x bigint := (SELECT id FROM pkg WHERE name = 'libpq5');
    t0 timestamptz;
    n bigint;
BEGIN
    FOR i IN 1 .. 15 LOOP
        t0 := clock_timestamp();
        SELECT count(*) INTO n FROM pkg WHERE deps @> x;
        INSERT INTO timing VALUES ('bloofi index', 1000 * extract(epoch FROM clock_timestamp() - t0));
        t0 := clock_timestamp();
        SELECT count(*) INTO n FROM pkg WHERE dep_ids @> ARRAY[x];
        INSERT INTO timing VALUES ('GIN on dep_ids', 1000 * extract(epoch FROM clock_timestamp() - t0));
        PERFORM set_config('enable_bitmapscan', 'off', true);
        t0 := clock_timestamp();
        SELECT count(*) INTO n FROM pkg WHERE deps @> x;
        INSERT INTO timing VALUES ('sequential scan', 1000 * extract(epoch FROM clock_timestamp() - t0));
        PERFORM set_config('enable_bitmapscan', 'on', true);
    END LOOP;
END $$;
SELECT method, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 3) AS median_ms
FROM timing GROUP BY method ORDER BY 2;

DROP INDEX pkg_dep_ids_gin;
