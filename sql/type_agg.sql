-- Aggregates: bloom_agg, bloom_union_agg, bloom_intersect_agg; NULL handling,
-- parameter errors, GROUP BY, and parallel plans giving the serial result.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;

CREATE TABLE agg_src AS
    SELECT i::bigint AS x, 'v' || i AS t, sha256(i::text::bytea) AS b,
           md5(i::text)::uuid AS u, i % 10 AS g
    FROM generate_series(1, 200000) i;
ANALYZE agg_src;

-- bloom_agg equals the filter built element by element
SELECT bloom_agg(x, 4096, 3) = bloom_from_array(array_agg(x), 4096, 3) AS int8_eq,
       bloom_agg(t, 4096, 3, 5) = bloom_from_array(array_agg(t), 4096, 3, 5) AS text_eq,
       bloom_agg(x, 4096, 3, 5, 'linear') = bloom_from_array(array_agg(x), 4096, 3, 5, 'linear') AS linear_eq
FROM agg_src WHERE x <= 1000;
SELECT bloom_agg(b, 4096, 3) @> sha256('7'::bytea) AS bytea_member,
       bloom_agg(u, 4096, 3) @> md5('7')::uuid AS uuid_member
FROM agg_src WHERE x <= 1000;
SELECT bloom_agg(x::int, 4096, 3) = bloom_agg(x, 4096, 3) AS int4_is_int8 FROM agg_src WHERE x <= 1000;

-- empty group: NULL; only NULL elements: the empty filter
SELECT bloom_agg(x, 64, 3) IS NULL AS empty_is_null FROM agg_src WHERE false;
SELECT bloom_agg(NULL::bigint, 64, 3) = bloom_empty(64, 3) AS nulls_give_empty FROM generate_series(1, 3);

-- union / intersect aggregates vs the binary operators
CREATE TEMP TABLE parts AS
    SELECT g, bloom_agg(x, 8192, 4) AS f FROM agg_src WHERE x <= 5000 GROUP BY g;
SELECT bloom_union_agg(f) = (SELECT bloom_agg(x, 8192, 4) FROM agg_src WHERE x <= 5000) AS union_is_all
FROM parts;
SELECT bloom_intersect_agg(f) = (SELECT f FROM parts WHERE g = 0) & (SELECT f FROM parts WHERE g = 1)
       & (SELECT f FROM parts WHERE g = 2) & (SELECT f FROM parts WHERE g = 3)
       & (SELECT f FROM parts WHERE g = 4) & (SELECT f FROM parts WHERE g = 5)
       & (SELECT f FROM parts WHERE g = 6) & (SELECT f FROM parts WHERE g = 7)
       & (SELECT f FROM parts WHERE g = 8) & (SELECT f FROM parts WHERE g = 9) AS intersect_is_and
FROM parts;
SELECT bloom_union_agg(f) IS NULL, bloom_intersect_agg(f) IS NULL FROM parts WHERE false;
SELECT bloom_union_agg(f) = (SELECT f FROM parts WHERE g = 3) AS nulls_skipped
FROM (SELECT f FROM parts WHERE g = 3 UNION ALL SELECT NULL) s;
-- as window functions
SELECT g, bloom_popcount(bloom_union_agg(f) OVER (ORDER BY g)) >= bloom_popcount(f) AS grows
FROM parts ORDER BY g LIMIT 3;

-- errors
SELECT bloom_agg(x, (x % 2)::int + 64, 3) FROM agg_src WHERE x <= 10;
SELECT bloom_agg(x, 64, 3, 0, CASE WHEN x < 5 THEN 'xxh3' ELSE 'linear' END) FROM agg_src WHERE x <= 10;
SELECT bloom_agg(x, NULL, 3) FROM agg_src WHERE x <= 10;
SELECT bloom_agg(x, 64, 3, 0, NULL) FROM agg_src WHERE x <= 10;
SELECT bloom_agg(x, 4, 3) FROM agg_src WHERE x <= 10;
SELECT bloom_agg(x, 64, 3, 0, 'murmur') FROM agg_src WHERE x <= 10;
SELECT bloom_union_agg(f) FROM (VALUES (bloom_empty(64, 3)), (bloom_empty(128, 3))) v(f);
SELECT bloom_intersect_agg(f) FROM (VALUES (bloom_empty(64, 3)), (bloom_empty(64, 3, 1))) v(f);

-- grouping by filters uses the hash opclass
SELECT count(*) AS distinct_filters, sum(n) AS total FROM (SELECT f, count(*) AS n FROM (SELECT f FROM parts UNION ALL SELECT f FROM parts) s GROUP BY f) d;

-- ---- parallel plans give the serial result ------------------------------------
CREATE TEMP TABLE serial_result AS
    SELECT bloom_agg(x, 1 << 20, 5) AS fx, bloom_agg(t, 1 << 16, 3, 7) AS ft,
           bloom_agg(u, 1 << 16, 3, 7, 'linear') AS fu
    FROM agg_src;
CREATE TEMP TABLE serial_groups AS
    SELECT g, bloom_agg(x, 1 << 14, 4) AS f FROM agg_src GROUP BY g;
CREATE TEMP TABLE serial_union AS
    SELECT bloom_union_agg(f) AS fu, bloom_intersect_agg(f) AS fi
    FROM (SELECT bloom_add(bloom_empty(4096, 3), x % 97) AS f FROM agg_src) s;

-- parallel plans at any size, the workers doing every transition
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/parallel_plans.sql
ALTER TABLE agg_src SET (parallel_workers = 2);

-- the parallel plan shape and the workers it launched
CREATE FUNCTION workers_launched(q text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    plan json;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) ' || q INTO plan;
    RETURN (SELECT max((p->>'Workers Launched')::int)
            FROM jsonb_path_query(plan::jsonb, 'strict $.**') p
            WHERE jsonb_typeof(p) = 'object' AND p ? 'Workers Launched');
END $$;
EXPLAIN (COSTS OFF) SELECT bloom_agg(x, 1 << 20, 5) FROM agg_src;
SELECT workers_launched('SELECT bloom_agg(x, 1 << 20, 5) FROM agg_src') > 0 AS ran_in_parallel;

SELECT (SELECT bloom_agg(x, 1 << 20, 5) FROM agg_src) = fx AS int8_parallel_eq_serial,
       (SELECT bloom_agg(t, 1 << 16, 3, 7) FROM agg_src) = ft AS text_parallel_eq_serial,
       (SELECT bloom_agg(u, 1 << 16, 3, 7, 'linear') FROM agg_src) = fu AS uuid_parallel_eq_serial
FROM serial_result;
EXPLAIN (COSTS OFF) SELECT g, bloom_agg(x, 1 << 14, 4) FROM agg_src GROUP BY g;
SELECT count(*) AS groups_equal
FROM (SELECT g, bloom_agg(x, 1 << 14, 4) AS f FROM agg_src GROUP BY g) p
JOIN serial_groups s USING (g) WHERE p.f = s.f;
SELECT (SELECT bloom_union_agg(bloom_add(bloom_empty(4096, 3), x % 97)) FROM agg_src) = fu AS union_parallel_eq,
       (SELECT bloom_intersect_agg(bloom_add(bloom_empty(4096, 3), x % 97)) FROM agg_src) = fi AS intersect_parallel_eq
FROM serial_union;

RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
DROP FUNCTION workers_launched(text);
DROP TABLE agg_src;
