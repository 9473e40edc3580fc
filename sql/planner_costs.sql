-- The charge of `f @> x` per row against its measured CPU (issue 21, constants from
-- test/bench/18_costs.sh): over 100,000 sets of 100 elements, a sequential scan of
-- filters of 959 bits (k = 7) measures about 3x faster per row than `x = ANY(arr)` over
-- the same sets (and 18x per qual); at default settings it is costed below the ANY
-- scan, and planned serial (a parallel plan measured slower than the serial one on the
-- 2-core test machine), whether the filters and the arrays are in separate tables or
-- in one.  Deterministic data (setseed); the plans depend on costs only.
-- the extension and pg_temp.plan_top(q, field) (sql/include/plan_top.sql)
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/plan_top.sql

-- the total cost of a query's plan, and whether it has a Gather node
CREATE FUNCTION costs_total(q text) RETURNS float8 LANGUAGE sql AS $$
    SELECT pg_temp.plan_top(q, 'Total Cost')::float8
$$;
CREATE FUNCTION costs_has_gather(q text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE j text;
BEGIN
    EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
    RETURN j LIKE '%"Gather%';
END $$;

SELECT setseed(0.37);
CREATE TABLE costs_arr AS
SELECT i AS id, ARRAY(SELECT floor(random() * 1e12)::bigint + 0 * i
                      FROM generate_series(1, 100)) AS arr
FROM generate_series(1, 100000) i;
CREATE TABLE costs_f AS SELECT id, bloom_from_array(arr, 959, 7) AS f FROM costs_arr;
VACUUM ANALYZE costs_arr, costs_f;
-- no false negative: every set holding the element passes (and 1% false positives)
SELECT (SELECT count(*) FROM costs_f WHERE f @> 12345::bigint) >=
       (SELECT count(*) FROM costs_arr WHERE 12345::bigint = ANY(arr)) AS no_false_negative;

-- at default settings: the f @> x scan is serial and costed below the ANY scan
RESET max_parallel_workers_per_gather;
SELECT costs_has_gather('SELECT * FROM costs_f WHERE f @> 12345::bigint') AS gather,
       costs_total('SELECT * FROM costs_f WHERE f @> 12345::bigint') <
       costs_total('SELECT * FROM costs_arr WHERE 12345::bigint = ANY(arr)') AS cheaper_than_any;
-- one table holding both the arrays and the filters of the same sets: PostgreSQL
-- charges `x = ANY(arr)` 5 operators a row (10 elements assumed, half compared),
-- `f @> x` is charged less (its fast path measures about 4 operators a row, the ANY
-- scan over these arrays about 100), so the serial f @> x scan is costed below the
-- serial ANY scan, and it stays serial at default settings, costed below the plan
-- chosen for the ANY query there (parallel)
CREATE TABLE costs_both AS SELECT id, arr, f FROM costs_arr JOIN costs_f USING (id);
VACUUM ANALYZE costs_both;
SELECT costs_has_gather('SELECT * FROM costs_both WHERE f @> 12345::bigint') AS gather,
       costs_total('SELECT * FROM costs_both WHERE f @> 12345::bigint') <
       costs_total('SELECT * FROM costs_both WHERE 12345::bigint = ANY(arr)') AS cheaper_than_any;
SET max_parallel_workers_per_gather = 0;
SELECT costs_total('SELECT * FROM costs_both WHERE f @> 12345::bigint') <
       costs_total('SELECT * FROM costs_both WHERE 12345::bigint = ANY(arr)') AS serial_cheaper_than_any;
RESET max_parallel_workers_per_gather;
-- the charge per row of the qual, in units of cpu_operator_cost: a call and 7 bit
-- tests on the fast path (the constant is hashed once per scan; about 4 measured),
-- not a pass over the filter's bytes
SET max_parallel_workers_per_gather = 0;
SELECT round(((costs_total('SELECT * FROM costs_f WHERE f @> 12345::bigint') -
               costs_total('SELECT * FROM costs_f')) / 100000 /
              current_setting('cpu_operator_cost')::float8)::numeric, 1) AS charged_units;
RESET max_parallel_workers_per_gather;

DROP TABLE costs_arr, costs_f, costs_both;
DROP FUNCTION costs_total(text), costs_has_gather(text);
