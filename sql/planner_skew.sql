-- Row estimates of @> on columns whose filters have very skewed sizes (issue 21):
-- a few heavy (saturated) filters pass every lookup, and the statistics keep the
-- distribution of per-filter pass probabilities (the heaviest exactly) apart from the
-- sample of the light filters.  Estimates are checked within 3x of the true counts for
-- constants, a generic plan's $1 and a join of 600 probes, on filters of both stored
-- forms (sparse and dense); and the plans chosen.  Tables stay below 30,000 rows, so
-- ANALYZE reads every row and the results are deterministic.
-- the extension and pg_temp.plan_top(q, field) (sql/include/plan_top.sql)
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/plan_top.sql

-- the planner's row estimate of a query (its top node)
CREATE FUNCTION skew_est(q text) RETURNS float8 LANGUAGE sql AS $$
    SELECT pg_temp.plan_top(q, 'Plan Rows')::float8
$$;
-- 'ok' when est is within a factor of 3 of actual (below one row, one row is right)
CREATE FUNCTION within_3x(est float8, actual float8) RETURNS text LANGUAGE sql AS $$
    SELECT CASE WHEN est BETWEEN greatest(actual, 1) / 3.0 AND greatest(actual, 1) * 3.0
                THEN 'ok' ELSE format('estimate %s, actual %s', est, actual) END
$$;
-- the estimate of q against what count(*) of it returns
CREATE FUNCTION skew_check(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE actual bigint;
BEGIN
    EXECUTE 'SELECT count(*) FROM (' || q || ') s' INTO actual;
    RETURN within_3x(skew_est(q), actual);
END $$;
-- the plan's node types, outermost first
CREATE FUNCTION skew_nodes(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE line text; nodes text := '';
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        IF line ~ '^\s*(->\s*)?[A-Z][A-Za-z ]+( on |$| using|  )' AND line !~ ':' THEN
            nodes := nodes || CASE WHEN nodes = '' THEN '' ELSE ' / ' END ||
                     regexp_replace(line, '^\s*(->\s*)?([A-Za-z ]+?)( on .*| using .*)?$', '\2');
        END IF;
    END LOOP;
    RETURN nodes;
END $$;

SELECT setseed(0.21);
-- 10,000 Pareto-sized sets (2 to 100,000 elements) of elements below 10^6, m = 19,171,
-- k = 13: each stored in the default form (sparse when that is smaller)
CREATE TABLE skew_pareto AS
SELECT id, n, bloom_from_array(ARRAY(SELECT floor(random() * 1000000)::bigint + 0 * id
                                     FROM generate_series(1, n)), 19171, 13) AS f
FROM (SELECT id, least(100000, floor(2 / random() ^ 1.1))::int AS n
      FROM generate_series(1, 10000) id) s;
-- the same filters, all stored dense
SET bloomsample.filter_storage = dense;
CREATE TABLE skew_dense AS SELECT id, n, f::text::bloomfilter AS f FROM skew_pareto;
RESET bloomsample.filter_storage;
-- 10,000 filters (m = 4,096, k = 7): 1% saturated (3,000 elements), the rest holding
-- 1 to 3 elements, element 7 in a tenth of the rows
CREATE TABLE skew_sat AS
SELECT i AS id, bloom_from_array(
           ARRAY(SELECT floor(random() * 1000000)::bigint + 0 * i
                 FROM generate_series(1, CASE WHEN i % 100 = 0 THEN 3000 ELSE 1 + i % 3 END))
           || CASE WHEN i % 10 = 1 THEN ARRAY[7::bigint] ELSE '{}' END, 4096, 7) AS f
FROM generate_series(1, 10000) i;
-- 600 probes: elements below 10^6
CREATE TABLE skew_probes AS SELECT floor(random() * 1000000)::bigint AS x
FROM generate_series(1, 600);
ANALYZE skew_pareto, skew_dense, skew_sat, skew_probes;

-- the columns are skewed: saturated filters, most holding at most 10 elements; the
-- default form stores the sparse ones (under a fifth of the bits set) as positions
SELECT count(*) FILTER (WHERE bloom_fill_ratio(f) > 0.9) AS saturated,
       count(*) FILTER (WHERE n <= 10) AS small,
       count(*) FILTER (WHERE bloom_fill_ratio(f) < 0.2) AS sparse_form
FROM skew_pareto;
-- the dense copy holds the same filters
SELECT count(*) AS same FROM skew_pareto a JOIN skew_dense b USING (id) WHERE a.f = b.f;
-- the sample (of the light filters: the heavy ones are described apart) holds more
-- than 1,000 filters
SELECT sample_filters > 1000 AS large_sample FROM bloom_column_stats('skew_pareto', 'f');

-- lookups of constants: present, absent, common
SELECT t, x, skew_check(format('SELECT * FROM %s WHERE f @> %s::bigint', t, x))
FROM (VALUES ('skew_pareto'), ('skew_dense'), ('skew_sat')) v(t),
     (SELECT x FROM skew_probes LIMIT 3) p
UNION ALL
SELECT t, x, skew_check(format('SELECT * FROM %s WHERE f @> %s::bigint', t, x))
FROM (VALUES ('skew_pareto'), ('skew_dense'), ('skew_sat')) v(t),
     (VALUES (-5), (7)) p(x)
ORDER BY 1, 2;

-- bloofi indexes (the joins below count through them: 600 lookups each, not 6,000,000
-- tests of every pair)
CREATE INDEX skew_pareto_f ON skew_pareto USING bloofi (f);
CREATE INDEX skew_dense_f ON skew_dense USING bloofi (f);
CREATE INDEX skew_sat_f ON skew_sat USING bloofi (f);
ANALYZE skew_pareto, skew_dense, skew_sat;

-- the true counts of the joins of the 600 probes against each column
CREATE TABLE skew_join (t text, actual bigint);
INSERT INTO skew_join
SELECT 'skew_pareto', count(*) FROM skew_probes p JOIN skew_pareto t ON t.f @> p.x
UNION ALL
SELECT 'skew_dense', count(*) FROM skew_probes p JOIN skew_dense t ON t.f @> p.x
UNION ALL
SELECT 'skew_sat', count(*) FROM skew_probes p JOIN skew_sat t ON t.f @> p.x;

-- a generic plan's $1: the estimate against the mean count over the probes
SET plan_cache_mode = force_generic_plan;
PREPARE skew_q(bigint) AS SELECT * FROM skew_pareto WHERE f @> $1;
PREPARE skew_qd(bigint) AS SELECT * FROM skew_dense WHERE f @> $1;
PREPARE skew_qs(bigint) AS SELECT * FROM skew_sat WHERE f @> $1;
SELECT t, within_3x(skew_est(format('EXECUTE %s(1)', q)), actual / 600.0)
FROM skew_join JOIN (VALUES ('skew_pareto', 'skew_q'), ('skew_dense', 'skew_qd'),
                            ('skew_sat', 'skew_qs')) v(t, q) USING (t)
ORDER BY 1;
RESET plan_cache_mode;

-- a join of 600 probes against each column
SELECT t, within_3x(skew_est(format('SELECT * FROM skew_probes p JOIN %s t ON t.f @> p.x', t)),
                    actual)
FROM skew_join ORDER BY 1;

-- with a bloofi index: lookups and the join use it, and the estimates stay within 3x
SELECT skew_nodes('SELECT * FROM skew_pareto WHERE f @> 123::bigint');
SELECT skew_nodes('SELECT * FROM skew_sat WHERE f @> 123::bigint');
SELECT skew_nodes('SELECT * FROM skew_probes p JOIN skew_pareto t ON t.f @> p.x');
SELECT skew_nodes('SELECT * FROM skew_probes p JOIN skew_dense t ON t.f @> p.x');

DROP TABLE skew_pareto, skew_dense, skew_sat, skew_probes, skew_join;
DROP FUNCTION skew_est(text), within_3x(float8, float8), skew_check(text), skew_nodes(text);
