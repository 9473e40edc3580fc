-- Row estimates on small real-shaped columns in the default stored form (issue 36):
-- two deterministic generators that mimic the shapes measured on Debian's metadata by
-- test/bench/17_real_columns.sh (no package list is read: the columns do not move
-- when the machine's packages do):
--   rc_files  packages -> paths (dpkg's *.list): Zipf-sized sets (3,001 down to 3
--             paths), each path its package's own but for the shared directories,
--             d1 in every set, dJ in the sets of at least ~J^2 paths
--   rc_rdeps  a dependency -> the packages depending on it: Zipf-sized sets (1 to
--             600), members drawn skewed among 6,000 packages (setseed)
-- filters sized as a user would, for the largest set at 1% (bloom_optimal_m/_k).
-- Each estimator: lookups of elements with >= 10 rows, a generic plan's $1 against
-- the mean over the column's distinct elements, a join of probes drawn among them;
-- within 2x, and the plans use the index.  Tables stay below 30,000 rows, so ANALYZE
-- reads every row and the results are deterministic.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/plan_top.sql

-- 'ok' when the planner's estimate of q is within 2x of actual (default: count(*) of q)
CREATE FUNCTION rc_check(q text, actual float8 DEFAULT NULL) RETURNS text LANGUAGE plpgsql AS $$
DECLARE est float8 := pg_temp.plan_top(q, 'Plan Rows')::float8;
BEGIN
    IF actual IS NULL THEN
        EXECUTE 'SELECT count(*) FROM (' || q || ') s' INTO actual;
    END IF;
    IF est BETWEEN greatest(actual, 1) / 2.0 AND greatest(actual, 1) * 2.0 THEN
        RETURN 'ok';
    END IF;
    RETURN format('estimate %s, actual %s', est, round(actual::numeric, 2));
END $$;
-- the column t of filters over raw_t's sets, its bloofi index, the elements with
-- their set counts (el_t), and 200 probes drawn among them (pr_t)
CREATE FUNCTION rc_make(t text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE nmax bigint; m bigint; k int;
BEGIN
    EXECUTE format('SELECT max(cardinality(els)) FROM raw_%s', t) INTO nmax;
    m := bloom_optimal_m(nmax, 0.01);
    k := bloom_optimal_k(m, nmax);
    EXECUTE format('CREATE TABLE %s AS SELECT id, bloom_from_array(els, %s, %s) AS f FROM raw_%s', t, m, k, t);
    EXECUTE format('CREATE INDEX %s_f ON %s USING bloofi (f)', t, t);
    EXECUTE format('ANALYZE %s', t);
    EXECUTE format('CREATE TABLE el_%s AS SELECT e, count(*) AS n FROM raw_%s, unnest(els) e GROUP BY e', t, t);
    EXECUTE format('CREATE TABLE pr_%s AS SELECT e AS x FROM el_%s ORDER BY md5(e) LIMIT 200', t, t);
    EXECUTE format('ANALYZE pr_%s', t);
END $$;

CREATE TABLE raw_rc_files AS
SELECT i AS id, ARRAY(SELECT 'p' || i || '/f' || j FROM generate_series(1, n) j)
                || ARRAY(SELECT 'd' || j FROM generate_series(1, 1 + floor(sqrt(n))::int) j) AS els
FROM (SELECT i, floor(3000 / i ^ 1.1)::int + 2 AS n FROM generate_series(1, 1000) i) s;
SELECT setseed(0.36);
CREATE TABLE raw_rc_rdeps AS
SELECT i AS id, ARRAY(SELECT DISTINCT 'q' || floor(6000 * random() ^ 2)::int + 0 * i
                      FROM generate_series(1, n)) AS els
FROM (SELECT i, least(600, floor(600 / i ^ 0.95))::int + 1 AS n FROM generate_series(1, 3000) i) s;
SELECT rc_make('rc_files'), rc_make('rc_rdeps');
-- the shapes: long-tailed set sizes and element counts, sparse filters
SELECT t, count(*) AS sets, max(n) AS largest, percentile_disc(0.5) WITHIN GROUP (ORDER BY n) AS median
FROM (SELECT 'rc_files' AS t, cardinality(els) AS n FROM raw_rc_files
      UNION ALL SELECT 'rc_rdeps', cardinality(els) FROM raw_rc_rdeps) s GROUP BY t ORDER BY t;
SELECT t, count(*) AS elements, max(n) AS most_sets, count(*) FILTER (WHERE n >= 10) AS in_10_or_more
FROM (SELECT 'rc_files' AS t, n FROM el_rc_files UNION ALL SELECT 'rc_rdeps', n FROM el_rc_rdeps) s
GROUP BY t ORDER BY t;
SELECT count(*) FILTER (WHERE bloom_fill_ratio(f) < 0.2) AS sparse, count(*) AS all_rows FROM rc_rdeps;

-- lookups of elements held by >= 10 sets: 12 per column, spread over their counts.
-- rc_files' directories d10-d27, which only the largest sets hold, have no hit in the
-- light filters' sample: their heavy filters' own sample counts them (1-12 rows were
-- estimated for 10-27 before it)
SELECT t, n, rc_check(format('SELECT * FROM %s WHERE f @> %L::text', t, e))
FROM (SELECT t, e, n, row_number() OVER (PARTITION BY t, b ORDER BY md5(e)) AS r
      FROM (SELECT 'rc_files' AS t, e, n, ntile(12) OVER (ORDER BY n, md5(e)) AS b FROM el_rc_files WHERE n >= 10
            UNION ALL
            SELECT 'rc_rdeps', e, n, ntile(12) OVER (ORDER BY n, md5(e)) FROM el_rc_rdeps WHERE n >= 10) s) x
WHERE r = 1 ORDER BY t, n, e;

-- a generic plan's $1 against the mean rows of the probes, and the join of the probes.
-- The statistics' own estimate of $1 (the index's probes off: with them on, this
-- backend's probes of the index estimate it, tested at the end)
CREATE TABLE rc_join AS
SELECT 'rc_files' AS t, count(*)::float8 AS actual FROM pr_rc_files p JOIN rc_files c ON c.f @> p.x
UNION ALL
SELECT 'rc_rdeps', count(*) FROM pr_rc_rdeps p JOIN rc_rdeps c ON c.f @> p.x;
SET plan_cache_mode = force_generic_plan;
SET bloomsample.plan_probe = off;
PREPARE rc_qf(text) AS SELECT * FROM rc_files WHERE f @> $1;
PREPARE rc_qr(text) AS SELECT * FROM rc_rdeps WHERE f @> $1;
SELECT t, rc_check(format('EXECUTE %s(''x'')', q), actual / 200) AS generic
FROM rc_join JOIN (VALUES ('rc_files', 'rc_qf'), ('rc_rdeps', 'rc_qr')) v(t, q) USING (t) ORDER BY t;
SELECT pg_temp.plan_top('EXECUTE rc_qr(''x'')', 'Plan Rows') AS statistics_qr \gset
EXPLAIN (COSTS OFF) EXECUTE rc_qf('x');
EXPLAIN (COSTS OFF) EXECUTE rc_qr('x');
RESET bloomsample.plan_probe;
RESET plan_cache_mode;
SELECT t, rc_check(format('SELECT * FROM pr_%s p JOIN %s c ON c.f @> p.x', t, t), actual) AS join_estimate
FROM rc_join ORDER BY t;
-- lookups and the join use the index
EXPLAIN (COSTS OFF) SELECT * FROM rc_rdeps WHERE f @> 'q10'::text;
EXPLAIN (COSTS OFF) SELECT * FROM pr_rc_rdeps p JOIN rc_rdeps c ON c.f @> p.x;

-- the index probe (issue 36): a constant's rows counted in the bloofi index at plan
-- time.  rc_tags: 20,000 items with 3 tags each among 6,000 (10-25 items a tag) and one
-- wide set of 2,000 that sizes the filters (m = 19,171): the statistics' sample folds
-- its 14,848 filters to 110 bits, whose false hits put some tags far off (15 of 200
-- outside 2x, one at 46x); the index counts every tag's rows
SELECT setseed(0.5);
CREATE TABLE raw_rc_tags AS
SELECT i AS id, ARRAY(SELECT DISTINCT 'g' || floor(6000 * random())::int + 0 * i
                      FROM generate_series(1, 3)) AS els FROM generate_series(1, 20000) i
UNION ALL SELECT 20001, ARRAY(SELECT 'w' || j FROM generate_series(1, 2000) j);
SELECT rc_make('rc_tags');
SELECT sample_filters < analyzed_rows AS sample_thinned FROM bloom_column_stats('rc_tags', 'f');
CREATE FUNCTION rc_est(q text) RETURNS float8 LANGUAGE sql AS $$
    SELECT pg_temp.plan_top(q, 'Plan Rows')::float8 $$;
CREATE TABLE rc_tag_lookups AS
SELECT e, n, format('SELECT * FROM rc_tags WHERE f @> %L::text', e) AS q
FROM el_rc_tags WHERE n >= 10 ORDER BY md5(e) LIMIT 200;
-- every lookup within 2x with the probe (the default); the statistics alone
-- (bloomsample.plan_probe off) put some outside
SELECT count(*) FILTER (WHERE rc_check(q) = 'ok') AS within_2x, count(*) AS lookups
FROM rc_tag_lookups;
SET bloomsample.plan_probe = off;
ALTER TABLE rc_tag_lookups ADD stats_est float8;
UPDATE rc_tag_lookups SET stats_est = rc_est(q);
SELECT count(*) FILTER (WHERE stats_est NOT BETWEEN n / 2.0 AND n * 2.0) > 0 AS statistics_outside_2x
FROM rc_tag_lookups;
RESET bloomsample.plan_probe;
-- a probe stopped at its node limit keeps the statistics' estimate (or the matches it
-- counted, if more): on the paper's tree (without fast update the build writes no
-- wide node, and a probe of one node would not stop)
ALTER INDEX rc_tags_f SET (fastupdate = off);
REINDEX INDEX rc_tags_f;
SELECT bottom_nodes > 1 AS tree FROM bloofi_stats('rc_tags_f');
SET bloomsample.plan_probe_nodes = 1;
SELECT count(*) FILTER (WHERE rc_est(q) >= stats_est) AS at_least_statistics, count(*) AS lookups
FROM rc_tag_lookups;
RESET bloomsample.plan_probe_nodes;
ALTER INDEX rc_tags_f SET (fastupdate = on);
REINDEX INDEX rc_tags_f;
-- with the probe off the estimates are the statistics' own: the same as without the index
BEGIN;
DROP INDEX rc_tags_f;
SELECT count(*) FILTER (WHERE rc_est(q) = stats_est) AS same_as_without_index, count(*) AS lookups
FROM rc_tag_lookups;
ROLLBACK;
-- the probe counts the pending list too: 30 rows inserted after ANALYZE, of a tag the
-- statistics never saw, wait there (fastupdate) and are counted; once deleted and
-- vacuumed with their index entries they are not (index entries are counted: before,
-- they were; a VACUUM that bypasses the index for a few dead rows leaves them counted)
INSERT INTO rc_tags SELECT 30000 + i, bloom_add(bloom_empty(bloom_m(f)::int, bloom_k(f)), 'fresh'::text)
FROM (SELECT f FROM rc_tags LIMIT 1) s, generate_series(1, 30) i;
SELECT pending AS pending_entries FROM bloofi_stats('rc_tags_f');
SELECT rc_check('SELECT * FROM rc_tags WHERE f @> ''fresh''::text') AS fresh_rows;
DELETE FROM rc_tags WHERE id > 30000;
VACUUM (INDEX_CLEANUP ON) rc_tags;
SELECT rc_check('SELECT * FROM rc_tags WHERE f @> ''fresh''::text') AS after_vacuum;
-- a text or untyped element that is also a number is searched under both readings, as
-- the scan does, and counted by the one with more matches: on a column of integer
-- elements its estimate is the integer's (its string reading alone counts nothing)
CREATE TABLE rc_ints AS SELECT i AS id, bloom_from_array(ARRAY[(i % 50)::bigint, 1000 + i % 7], 4096, 3) AS f
FROM generate_series(1, 2000) i;
CREATE INDEX rc_ints_f ON rc_ints USING bloofi (f);
ANALYZE rc_ints;
SELECT rc_est('SELECT * FROM rc_ints WHERE f @> 17::bigint') >= 40 AS integer_counted,
       rc_est('SELECT * FROM rc_ints WHERE f @> ''17''') = rc_est('SELECT * FROM rc_ints WHERE f @> 17::bigint') AS untyped_as_integer,
       rc_est('SELECT * FROM rc_ints WHERE f @> ''17''::text') = rc_est('SELECT * FROM rc_ints WHERE f @> 17::bigint') AS text_as_integer;
DROP TABLE rc_ints;
-- the probe counts index entries the way the scan finds rows: the same on rc_rdeps and
-- rc_files, where the statistics were within 2x already
SELECT t, count(*) FILTER (WHERE rc_check(format('SELECT * FROM %s WHERE f @> %L::text', t, e)) = 'ok') AS ok,
       count(*) AS lookups
FROM (SELECT 'rc_files' AS t, e FROM el_rc_files WHERE n >= 10
      UNION ALL SELECT 'rc_rdeps', e FROM el_rc_rdeps WHERE n >= 10) s GROUP BY t ORDER BY t;
-- the lookups use the index
EXPLAIN (COSTS OFF) SELECT * FROM rc_tags WHERE f @> 'g77'::text;
-- the plan choice follows: the tag the statistics put furthest off, its items joined
-- with their rows elsewhere, is a nested loop over its rows with the probe (the right
-- plan for its 10-odd rows: an index lookup each) and a hash join over a sequential scan
-- of the other table with the statistics alone
CREATE INDEX raw_rc_tags_id ON raw_rc_tags (id);
ANALYZE raw_rc_tags;
SELECT e AS worst_tag, n, round((stats_est / n)::numeric) AS statistics_over_actual
FROM rc_tag_lookups ORDER BY stats_est / n DESC, e LIMIT 1 \gset
SELECT :n AS rows, :statistics_over_actual > 2 AS statistics_outside_2x;
EXPLAIN (COSTS OFF) SELECT r.els FROM rc_tags t JOIN raw_rc_tags r USING (id) WHERE t.f @> :'worst_tag'::text;
SET bloomsample.plan_probe = off;
EXPLAIN (COSTS OFF) SELECT r.els FROM rc_tags t JOIN raw_rc_tags r USING (id) WHERE t.f @> :'worst_tag'::text;
RESET bloomsample.plan_probe;

-- a join counted in the index (issue 36): the element column's statistics values
-- (its most common values first, then histogram bounds, 100 at most) are counted in
-- the filter column's bloofi index, where the statistics' sample sees a tag of 10-25
-- items as a fraction of a hit.  24 tags, each in 2 or 3 rows of the element table,
-- are all its most common values: the estimate is the join's rows
CREATE TABLE rc_tag_probes AS
SELECT 'g' || (j * 241) % 6000 AS x FROM generate_series(1, 24) j, generate_series(1, 2 + j % 2) r;
ANALYZE rc_tag_probes;
SELECT count(*) AS join_rows FROM rc_tag_probes p JOIN rc_tags t ON t.f @> p.x \gset
SELECT :join_rows AS join_rows,
       round((rc_est('SELECT * FROM rc_tag_probes p JOIN rc_tags t ON t.f @> p.x') / :join_rows)::numeric, 2)
           AS counted_over_actual;
SET bloomsample.plan_probe = off;
SELECT round((rc_est('SELECT * FROM rc_tag_probes p JOIN rc_tags t ON t.f @> p.x') / :join_rows)::numeric, 2)
           AS statistics_over_actual;
RESET bloomsample.plan_probe;
-- more element values than probes: 300 tags, one row each (101 histogram bounds, no
-- common values): 100 bounds counted stand for all, within 2x
CREATE TABLE rc_tag_probes2 AS SELECT 'g' || (j * 59) % 6000 AS x FROM generate_series(1, 300) j;
ANALYZE rc_tag_probes2;
SELECT rc_check('SELECT * FROM rc_tag_probes2 p JOIN rc_tags t ON t.f @> p.x') AS histogram_join;
-- semi- and anti-joins with the elements outside: the share of element rows with a
-- match, counted the same way: 24 tags all held and 12 strings none holds, two rows
-- each, all most common values, so the estimates are the 48 and 24 rows
CREATE TABLE rc_tag_probes3 AS
SELECT x FROM (SELECT 'g' || (j * 241) % 6000 AS x FROM generate_series(1, 24) j
               UNION ALL SELECT 'absent' || j FROM generate_series(1, 12) j) s, generate_series(1, 2) r;
ANALYZE rc_tag_probes3;
SELECT rc_est('SELECT * FROM rc_tag_probes3 p WHERE EXISTS (SELECT FROM rc_tags t WHERE t.f @> p.x)') AS semi,
       rc_est('SELECT * FROM rc_tag_probes3 p WHERE NOT EXISTS (SELECT FROM rc_tags t WHERE t.f @> p.x)') AS anti;
SET bloomsample.plan_probe = off;
SELECT rc_est('SELECT * FROM rc_tag_probes3 p WHERE EXISTS (SELECT FROM rc_tags t WHERE t.f @> p.x)') AS statistics_semi,
       rc_est('SELECT * FROM rc_tag_probes3 p WHERE NOT EXISTS (SELECT FROM rc_tags t WHERE t.f @> p.x)') AS statistics_anti;
RESET bloomsample.plan_probe;
-- with the filters outside (the items holding any of those tags): each filter meets
-- the 36 distinct values (not the 72 rows: a value's rows add one chance), counted
SELECT count(*) AS items_with_a_tag FROM rc_tags t WHERE EXISTS (SELECT FROM rc_tag_probes3 p WHERE t.f @> p.x);
SELECT rc_check('SELECT * FROM rc_tags t WHERE EXISTS (SELECT FROM rc_tag_probes3 p WHERE t.f @> p.x)') AS filters_outside,
       rc_est('SELECT * FROM rc_tags t WHERE EXISTS (SELECT FROM rc_tag_probes3 p WHERE t.f @> p.x)') AS counted;
SET bloomsample.plan_probe = off;
SELECT rc_est('SELECT * FROM rc_tags t WHERE EXISTS (SELECT FROM rc_tag_probes3 p WHERE t.f @> p.x)') AS statistics;
RESET bloomsample.plan_probe;
DROP TABLE rc_tag_probes, rc_tag_probes2, rc_tag_probes3;

-- the probes' mean estimates $1 (issue 36): a prepared statement's custom plans each
-- probe the index, and once five probes of it are known a generic plan's element is
-- estimated by their mean (the statistics' estimate of an element nothing is known
-- of, above the custom plans' rows, kept the plan cache on custom plans, each one
-- planned and probed again).  A fresh session, whose backend has probed nothing
DEALLOCATE rc_qf;
DEALLOCATE rc_qr;
\c
\set ECHO none
\i :abs_srcdir/sql/include/plan_top.sql
\set ECHO all
CREATE FUNCTION pg_temp.rc_run(q text, t text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE x text;
BEGIN
    FOR x IN EXECUTE format('SELECT x FROM pr_%s', t) LOOP
        EXECUTE format('EXECUTE %s(%L)', q, x);
    END LOOP;
END $$;
PREPARE rc_qf(text) AS SELECT * FROM rc_files WHERE f @> $1;
PREPARE rc_qr(text) AS SELECT * FROM rc_rdeps WHERE f @> $1;
-- left to itself, the plan cache goes generic after five custom plans
SELECT pg_temp.rc_run('rc_qf', 'rc_files'), pg_temp.rc_run('rc_qr', 'rc_rdeps');
SELECT name, generic_plans > 0 AS went_generic, custom_plans
FROM pg_prepared_statements ORDER BY name;
-- with all 200 probes of each column known, a new generic plan's estimate is within
-- 2x of the mean rows of their lookups, and the plan the index
SET plan_cache_mode = force_custom_plan;
SELECT pg_temp.rc_run('rc_qf', 'rc_files'), pg_temp.rc_run('rc_qr', 'rc_rdeps');
DEALLOCATE ALL;
PREPARE rc_qf(text) AS SELECT * FROM rc_files WHERE f @> $1;
PREPARE rc_qr(text) AS SELECT * FROM rc_rdeps WHERE f @> $1;
SET plan_cache_mode = force_generic_plan;
SELECT t, rc_check(format('EXECUTE %s(''x'')', q), actual / 200) AS generic_from_probes
FROM rc_join JOIN (VALUES ('rc_files', 'rc_qf'), ('rc_rdeps', 'rc_qr')) v(t, q) USING (t) ORDER BY t;
SELECT rc_est('EXECUTE rc_qr(''x'')') AS from_probes, :'statistics_qr' AS statistics;
EXPLAIN (COSTS OFF) EXECUTE rc_qr('x');
-- the probes off, the statistics estimate it again
SET bloomsample.plan_probe = off;
DEALLOCATE rc_qr;
PREPARE rc_qr(text) AS SELECT * FROM rc_rdeps WHERE f @> $1;
SELECT rc_est('EXECUTE rc_qr(''x'')') = :'statistics_qr' AS statistics_estimate_again;
RESET bloomsample.plan_probe;
RESET plan_cache_mode;
DEALLOCATE rc_qf;
DEALLOCATE rc_qr;
DROP TABLE raw_rc_files, raw_rc_rdeps, rc_files, rc_rdeps, el_rc_files, el_rc_rdeps,
           pr_rc_files, pr_rc_rdeps, rc_join, raw_rc_tags, rc_tags, el_rc_tags, pr_rc_tags,
           rc_tag_lookups;
DROP FUNCTION rc_check(text, float8), rc_make(text), rc_est(text);
