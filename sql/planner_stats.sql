-- The planner's statistics of bloomfilter columns (issue 10): what ANALYZE keeps,
-- row estimates of @> / <@ against the true counts, joins, a constant filter against
-- an element column, NULLs and parameter sets, and that planning reads no index page.
-- Tables stay below 30,000 rows, so ANALYZE reads every row and the results are
-- deterministic.
-- the extension and pg_temp.plan_top(q, field) (sql/include/plan_top.sql)
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/plan_top.sql

-- the planner's row estimate of a query (its top node)
CREATE FUNCTION est_rows(q text) RETURNS float8 LANGUAGE sql AS $$
    SELECT pg_temp.plan_top(q, 'Plan Rows')::float8
$$;
-- the estimate of q is within a factor of 2 of what count(*) of it returns (below one
-- row, the planner's one-row minimum is right)
CREATE FUNCTION est_within_2x(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE est float8 := est_rows(q); actual bigint;
BEGIN
    EXECUTE 'SELECT count(*) FROM (' || q || ') s' INTO actual;
    IF est BETWEEN greatest(actual, 1) / 2.0 AND greatest(actual, 1) * 2.0 THEN
        RETURN 'ok';
    END IF;
    RETURN format('estimate %s, actual %s', est, actual);
END $$;

-- 3,000 filters (m = 1024, k = 4) holding elements of every element type:
-- unique ones per row, and common ones in 50%, 25%, 33% and 1% of the rows
CREATE TABLE ps (id int, f bloomfilter);
INSERT INTO ps
SELECT i, bloom_add(bloom_add(bloom_add(
          bloom_from_array(ARRAY(SELECT i::bigint * 10 + j FROM generate_series(0, 7) j)
                           || CASE WHEN i % 2 = 0 THEN ARRAY[-1::bigint] ELSE '{}' END
                           || CASE WHEN i % 100 = 0 THEN ARRAY[-2::bigint] ELSE '{}' END, 1024, 4),
          CASE WHEN i % 4 = 0 THEN 'common' ELSE 't' || i END),
          decode(md5(i::text), 'hex')),
          CASE WHEN i % 3 = 0 THEN '00000000-0000-0000-0000-000000000003'::uuid ELSE md5(i::text)::uuid END)
FROM generate_series(1, 3000) i;

-- not analyzed: no statistics, the default estimate
SELECT count(*) AS sets FROM bloom_column_stats('ps', 'f');
ANALYZE ps;
SELECT m, k, seed, hash, row_fraction, round(mean_fill::numeric, 4) AS mean_fill,
       round(mean_cardinality::numeric, 1) AS mean_cardinality,
       sample_distinct_elements IS NULL AS distinct_unknown, analyzed_rows,
       sample_filters, sample_bits, null_fraction, toasted_fraction,
       round(mean_bytes::numeric, 1) AS mean_bytes
FROM bloom_column_stats('ps', 'f');
-- the slot is a private stakind with one bytea per parameter set
SELECT stakind1, array_length(stanumbers1, 1) AS numbers,
       pg_typeof(stavalues1)::text AS values_type
FROM pg_statistic WHERE starelid = 'ps'::regclass AND staattnum = 2;

-- row estimates within 2x: selective and common elements of each type, an absent one
SELECT q, est_within_2x(q) FROM (VALUES
    ('SELECT * FROM ps WHERE f @> 12345::bigint'),
    ('SELECT * FROM ps WHERE f @> (-1)::bigint'),
    ('SELECT * FROM ps WHERE f @> (-2)::bigint'),
    ('SELECT * FROM ps WHERE f @> 999999::bigint'),
    ('SELECT * FROM ps WHERE f @> 123::int4'),
    ('SELECT * FROM ps WHERE f @> ''t77''::text'),
    ('SELECT * FROM ps WHERE f @> ''common''::text'),
    ('SELECT * FROM ps WHERE f @> ''t77''::varchar'),
    ('SELECT * FROM ps WHERE f @> decode(md5(''77''), ''hex'')'),
    ('SELECT * FROM ps WHERE f @> md5(''77'')::uuid'),
    ('SELECT * FROM ps WHERE f @> ''00000000-0000-0000-0000-000000000003''::uuid'),
    ('SELECT * FROM ps WHERE (-1)::bigint <@ f'),
    ('SELECT * FROM ps WHERE ''common''::text <@ f'),
    ('SELECT * FROM ps WHERE bloom_contains(f, (-1)::bigint)'),
    ('SELECT * FROM ps WHERE bloom_contained(''common''::text, f)'),
    ('SELECT * FROM ps WHERE f @> (-1)::bigint AND f @> ''common''::text'),
    ('SELECT * FROM ps WHERE NOT (f @> (-1)::bigint)')
) t(q);
SELECT est_rows('SELECT * FROM ps WHERE f @> NULL::bigint') AS null_element;

-- the estimate comes from the statistics: without them, the default fraction
-- (0.001) of the planner's estimate of the table's rows (which depends on the
-- PostgreSQL major: the lookup's 9 rows on 15, 16 on 17 and 18)
CREATE TABLE ps_noanalyze AS SELECT * FROM ps;
SELECT est_rows('SELECT * FROM ps_noanalyze WHERE f @> (-1)::bigint')
       = greatest(1, round(0.001 * est_rows('SELECT * FROM ps_noanalyze'))) AS default_fraction,
       est_rows('SELECT * FROM ps_noanalyze') > 1000 AS table_estimated;
DROP TABLE ps_noanalyze;

-- joins: probes of elements present once, elements absent, and the common element
CREATE TABLE probes (e bigint);
INSERT INTO probes SELECT i::bigint * 10 + 3 FROM generate_series(1, 200) i;
INSERT INTO probes SELECT 1000000 + i FROM generate_series(1, 200) i;
ANALYZE probes;
SELECT est_within_2x('SELECT * FROM probes p JOIN ps ON ps.f @> p.e') AS join_estimate,
       est_within_2x('SELECT * FROM probes p JOIN ps ON p.e <@ ps.f') AS commuted;
INSERT INTO probes SELECT -1 FROM generate_series(1, 40);
ANALYZE probes;
SELECT est_within_2x('SELECT * FROM probes p JOIN ps ON ps.f @> p.e') AS with_common_element;
-- semi- and anti-joins: the probes that some filter holds, and those none holds
SELECT est_within_2x('SELECT * FROM probes p WHERE EXISTS (SELECT FROM ps WHERE ps.f @> p.e)') AS semi,
       est_within_2x('SELECT * FROM probes p WHERE NOT EXISTS (SELECT FROM ps WHERE ps.f @> p.e)') AS anti;
-- an int4 element column joins through the int8 operator with its own statistics,
-- the cast implicit or written
CREATE TABLE probes4 (e int4);
INSERT INTO probes4 SELECT i * 10 + 3 FROM generate_series(1, 200) i;
ANALYZE probes4;
SELECT est_within_2x('SELECT * FROM probes4 p JOIN ps ON ps.f @> p.e') AS int4_join,
       est_within_2x('SELECT * FROM probes4 p JOIN ps ON ps.f @> p.e::bigint') AS int4_join_cast;

-- a constant filter against an element column
CREATE TABLE elems (e bigint);
INSERT INTO elems SELECT i FROM generate_series(1, 20000) i;
ANALYZE elems;
SELECT bloom_from_array(ARRAY(SELECT generate_series(1, 5000)::bigint), 65536, 5) AS quarter_filter \gset
SELECT est_within_2x(format('SELECT * FROM elems WHERE %L::bloomfilter @> e', :'quarter_filter')) AS quarter,
       est_within_2x('SELECT * FROM elems WHERE e <@ bloom_from_array(ARRAY[7, 8, 9]::bigint[], 65536, 5)') AS three,
       est_within_2x('SELECT * FROM elems WHERE bloom_from_array(ARRAY[-7, -8]::bigint[], 65536, 5) @> e') AS none;

-- NULL filters and a second parameter set
CREATE TABLE pn (id int, f bloomfilter);
INSERT INTO pn SELECT i, CASE WHEN i % 5 = 0 THEN NULL
                              WHEN i % 5 = 1 THEN bloom_from_array(ARRAY[i, -1]::bigint[], 2048, 3)
                              ELSE bloom_from_array(ARRAY[i, -1]::bigint[], 1024, 4) END
FROM generate_series(1, 2000) i;
ANALYZE pn;
SELECT m, k, round(row_fraction::numeric, 3) AS row_fraction, round(null_fraction::numeric, 3) AS null_fraction,
       analyzed_rows FROM bloom_column_stats('pn', 'f') ORDER BY m;
SELECT est_within_2x('SELECT * FROM pn WHERE f @> (-1)::bigint') AS common_over_sets,
       est_within_2x('SELECT * FROM pn WHERE f @> 17::bigint') AS selective,
       est_within_2x('SELECT * FROM pn WHERE f IS NULL') AS nulls;

-- a larger column than the sample holds: common elements still within 2x, a rare
-- one below the sample's resolution, far below the common ones
CREATE TABLE pl (id int, f bloomfilter);
INSERT INTO pl SELECT i, bloom_from_array(ARRAY(SELECT i::bigint * 20 + j FROM generate_series(0, 19) j)
                                          || CASE WHEN i % 2 = 0 THEN ARRAY[-1::bigint] ELSE '{}' END
                                          || CASE WHEN i % 50 = 0 THEN ARRAY[-2::bigint] ELSE '{}' END, 4096, 5)
FROM generate_series(1, 20000) i;
ANALYZE pl;
SELECT sample_filters < analyzed_rows AS sampled, analyzed_rows FROM bloom_column_stats('pl', 'f');
SELECT est_within_2x('SELECT * FROM pl WHERE f @> (-1)::bigint') AS half,
       est_within_2x('SELECT * FROM pl WHERE f @> (-2)::bigint') AS two_percent,
       est_rows('SELECT * FROM pl WHERE f @> 4242::bigint') < 100 AS rare_is_rare;

-- the cost of reading a filter follows how the column stores it: TOASTed filters
-- cost a TOAST fetch each, so a sequential scan over them is costed as such
CREATE TABLE pt (id int, f bloomfilter);
-- out of line as the type's storage before 1.2 put them (1.2's default is main); 600
-- elements fill a third of the bits, so the default form stores them dense (2.4 kB)
ALTER TABLE pt ALTER f SET STORAGE EXTENDED;
INSERT INTO pt SELECT i, bloom_from_array(ARRAY(SELECT i::bigint * 600 + j FROM generate_series(0, 599) j), 19171, 13)
FROM generate_series(1, 200) i;
ANALYZE pt;
SELECT toasted_fraction, mean_bytes FROM bloom_column_stats('pt', 'f');
-- the cost of the qual per row of a sequential scan: the cost with it less the cost with
-- id = 0 instead (one cheap operator), per row, in units of cpu_operator_cost
CREATE FUNCTION qual_cost(tab text, qual text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE j1 json; j2 json;
BEGIN
    EXECUTE format('EXPLAIN (FORMAT JSON) SELECT * FROM %s WHERE %s', tab, qual) INTO j1;
    EXECUTE format('EXPLAIN (FORMAT JSON) SELECT * FROM %s WHERE id = 0', tab) INTO j2;
    RETURN ((j1->0->'Plan'->>'Total Cost')::float8 - (j2->0->'Plan'->>'Total Cost')::float8)
           / (SELECT reltuples FROM pg_class WHERE oid = tab::regclass)
           / current_setting('cpu_operator_cost')::float8 + 1;
END $$;
-- a TOASTed filter costs a TOAST fetch: over 20 times an in-line one (a call, hashing
-- the element, k bit tests: a few operators, as test/bench/18_costs.sh measures); the
-- functions that read a whole filter are costed likewise
SELECT qual_cost('ps', 'f @> 1::bigint') BETWEEN 2 AND 50 AS inline_cost_sane,
       qual_cost('pt', 'f @> 1::bigint') / qual_cost('ps', 'f @> 1::bigint') > 20 AS toast_costs_more,
       qual_cost('pt', 'bloom_popcount(f) = 0') > qual_cost('pt', 'f @> 1::bigint') AS popcount_reads_more,
       qual_cost('pt', 'f = f') > qual_cost('pt', 'f @> 1::bigint') AS equality_reads_two;
-- a column of small sparse values (in line) and a few big dense ones (out of line), as
-- the default stored form leaves a long-tailed column: a row costs the mix of the two,
-- each by its own size (issue 36: the TOAST fetch was charged by the mean size of all
-- the values, which the small ones pull far below the big ones', half the mix's cost)
CREATE TABLE pm_small (id int, f bloomfilter);
ALTER TABLE pm_small ALTER f SET STORAGE EXTENDED;
INSERT INTO pm_small SELECT i, bloom_from_array(ARRAY(SELECT i::bigint * 10 + j FROM generate_series(0, 9) j), 65536, 7)
FROM generate_series(1, 190) i;
CREATE TABLE pm_big (id int, f bloomfilter);
ALTER TABLE pm_big ALTER f SET STORAGE EXTENDED;
INSERT INTO pm_big SELECT i, bloom_from_array(ARRAY(SELECT i::bigint * 5000 + j FROM generate_series(0, 4999) j), 65536, 7)
FROM generate_series(1, 10) i;
CREATE TABLE pm (id int, f bloomfilter);
ALTER TABLE pm ALTER f SET STORAGE EXTENDED;
INSERT INTO pm SELECT * FROM pm_small UNION ALL SELECT * FROM pm_big;
ANALYZE pm_small, pm_big, pm;
SELECT round(toasted_fraction::numeric, 3) AS toasted_fraction FROM bloom_column_stats('pm', 'f');
-- the mixed column's cost per row over 0.95 small + 0.05 big: 1.0 (0.5 before)
SELECT round((qual_cost('pm', 'f @> 1::bigint') /
              (0.95 * qual_cost('pm_small', 'f @> 1::bigint') + 0.05 * qual_cost('pm_big', 'f @> 1::bigint')))::numeric, 1)
       AS mixed_over_mix;
DROP TABLE pm_small, pm_big, pm;

SELECT p.proname, p.procost, p.prosupport::regproc
FROM pg_proc p WHERE p.oid = 'bloom_contains(bloomfilter, bigint)'::regprocedure;

-- with the statistics alone (bloomsample.plan_probe off), planning a lookup reads no
-- index page (and no other page): after a first planning
-- of each query shape (which builds the relcache's profile of the index and fills the
-- catalog caches: 18 looks up a catalog entry for the join that no statement above
-- needed), the planning of EXPLAIN ANALYZE reports no buffer at all, hit or read
CREATE INDEX ps_f ON ps USING bloofi (f);
CREATE FUNCTION planning_buffers(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE j json;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ' || q INTO j;
    RETURN coalesce((j->0->'Planning'->>'Shared Hit Blocks')::bigint, 0) +
           coalesce((j->0->'Planning'->>'Shared Read Blocks')::bigint, 0);
END $$;
SELECT planning_buffers('SELECT * FROM ps WHERE f @> 12345::bigint') >= 0 AS warm_up,
       planning_buffers('SELECT * FROM probes p JOIN ps ON ps.f @> p.e') >= 0 AS warm_up_join;
SET bloomsample.plan_probe = off;
SELECT planning_buffers('SELECT * FROM ps WHERE f @> 12345::bigint') AS lookup,
       planning_buffers('SELECT * FROM ps WHERE f @> 54321::bigint') AS another_element,
       planning_buffers('SELECT * FROM probes p JOIN ps ON ps.f @> p.e') AS join_plan;
RESET bloomsample.plan_probe;
-- the index probe (issue 36, on by default) reads a lookup's index pages at plan time:
-- the metapage, the pending list and the nodes it opens (at most
-- bloomsample.plan_probe_nodes); a join probes at most 100 of the element column's
-- statistics values, each as a lookup's probe
SELECT planning_buffers('SELECT * FROM ps WHERE f @> 12345::bigint') BETWEEN 1 AND 200 AS probe_reads_few,
       planning_buffers('SELECT * FROM probes p JOIN ps ON ps.f @> p.e') BETWEEN 1 AND 100 * 200
           AS join_probes_read_few;
-- and the lookup uses the index
EXPLAIN (COSTS OFF) SELECT * FROM ps WHERE f @> 12345::bigint;
-- a join's probes stop once their searches have tested 10^6 node values: on a dense
-- node of 20,000 filters (each probe tests every leaf) about 50 of the 100 values
-- of a 300-value element column are counted, each reading what one lookup reads
SELECT setseed(0.7);
CREATE TABLE pdense AS SELECT i AS id, bloom_from_array(ARRAY(SELECT floor(random() * 20000)::bigint + 0 * i
                                                              FROM generate_series(1, 40)), 1024, 3) AS f
FROM generate_series(1, 20000) i;
CREATE INDEX pdense_f ON pdense USING bloofi (f);
ANALYZE pdense;
CREATE TABLE pdense_el AS SELECT (i * 61) % 20000 AS e FROM generate_series(1, 300) i;
ANALYZE pdense_el;
SELECT planning_buffers('SELECT * FROM pdense WHERE f @> 77::bigint') > 0 AS warm_up,
       planning_buffers('SELECT * FROM pdense_el p JOIN pdense d ON d.f @> p.e') > 0 AS warm_up_join;
SELECT planning_buffers('SELECT * FROM pdense_el p JOIN pdense d ON d.f @> p.e') /
       planning_buffers('SELECT * FROM pdense WHERE f @> 77::bigint') BETWEEN 30 AND 70 AS join_probes_within_budget;
DROP TABLE pdense, pdense_el;

-- statistics of a table the user may not read are not shown
CREATE ROLE planner_stats_nobody;
SET ROLE planner_stats_nobody;
SELECT * FROM bloom_column_stats('ps', 'f');
RESET ROLE;
DROP ROLE planner_stats_nobody;
SELECT * FROM bloom_column_stats('ps', 'nosuchcolumn');

DROP TABLE ps, probes, probes4, elems, pn, pl, pt;
DROP FUNCTION est_rows(text), est_within_2x(text), qual_cost(text, text), planning_buffers(text);
