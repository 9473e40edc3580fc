-- Bloofi index: plans.  A selective lookup (and a join probing the index)
-- uses a bitmap scan on the index with both operator forms; a lookup most
-- rows match is a sequential scan.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;

-- the table bt and its index bt_f (sql/include/bloofi_bt.sql)
\getenv abs_srcdir PG_ABS_SRCDIR
\set bloofi_bt :abs_srcdir '/sql/include/bloofi_bt.sql'
\i :bloofi_bt

CREATE TEMP TABLE px AS SELECT (x * 7)::bigint AS x FROM generate_series(0, 4400) x;

-- the join through the index really uses it (parameterised bitmap scan)
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT bt.id FROM px p JOIN bt ON bt.f @> p.x;
RESET enable_seqscan;

-- plan shapes: a selective lookup uses the index, with both operator forms
EXPLAIN (COSTS OFF) SELECT id FROM bt WHERE f @> 12345::bigint;
EXPLAIN (COSTS OFF) SELECT id FROM bt WHERE 12345::bigint <@ f;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM bt WHERE f @> 't77'::text AND f @> 771::bigint;
SELECT id FROM bt WHERE f @> 't77'::text AND f @> 771::bigint;
RESET enable_seqscan;
SELECT id FROM bt WHERE f @> 12345::bigint;
SELECT id FROM bt WHERE 12345::bigint <@ f;
SELECT count(*) FROM bt WHERE f @> NULL::bigint;

-- ... and a lookup most rows match is a sequential scan
CREATE TABLE bt_common (id int, f bloomfilter);
INSERT INTO bt_common
SELECT i, bloom_from_array(ARRAY[0, i]::bigint[], 4096, 3) FROM generate_series(1, 5000) i;
CREATE INDEX bt_common_f ON bt_common USING bloofi (f);
ANALYZE bt_common;
EXPLAIN (COSTS OFF) SELECT id FROM bt_common WHERE f @> 0::bigint;
EXPLAIN (COSTS OFF) SELECT id FROM bt_common WHERE f @> 4321::bigint;
SELECT count(*) FROM bt_common WHERE f @> 0::bigint;

-- the scan counts its searches where EXPLAIN ANALYZE shows them (PostgreSQL
-- 18's "Index Searches"; earlier servers have no such field): one for a
-- lookup, also of two keys, and one per outer row of the join
CREATE FUNCTION pg_temp.index_searches(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	j jsonb;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || q INTO j;
	RETURN (SELECT sum(v::text::bigint) FROM jsonb_path_query(j, 'strict $.**."Index Searches"') v);
END $$;
SET enable_seqscan = off;
SELECT current_setting('server_version_num')::int < 180000
	OR (lookup = 1 AND two_keys = 1 AND join_searches = outer_rows) AS searches_counted
FROM (SELECT pg_temp.index_searches('SELECT id FROM bt WHERE f @> 12345::bigint') AS lookup,
		pg_temp.index_searches($q$SELECT id FROM bt WHERE f @> 't77'::text AND f @> 771::bigint$q$) AS two_keys,
		pg_temp.index_searches('SELECT bt.id FROM px p JOIN bt ON bt.f @> p.x') AS join_searches,
		(SELECT count(*) FROM px) AS outer_rows) s;
RESET enable_seqscan;

-- exact matches (docs/bloofi.md, "Exact matches"): a match found in a bottom
-- node is the heap operator's answer, so the bitmap scan evaluates @> on no
-- row; a text that is also an integer is read by each row's own types, so
-- its matches are rechecked (track_functions counts the operator's calls in
-- the executor: the recheck's)
BEGIN;
SET LOCAL track_functions = 'all';
SET LOCAL enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM bt WHERE f @> 12345::bigint;
SELECT count(*) AS found FROM bt WHERE f @> 12345::bigint;
-- (the same, the scan searching instead of taking the planner probe's TIDs)
SET LOCAL bloomsample.plan_probe_reuse = off;
SELECT count(*) AS found FROM bt WHERE f @> 12345::bigint;
RESET bloomsample.plan_probe_reuse;
SELECT count(*) AS functions_called FROM pg_stat_xact_user_functions WHERE funcname = 'bloom_contains';
SELECT count(*) AS found FROM bt WHERE f @> '12345'::text;
SELECT sum(calls) > 0 AS rechecked FROM pg_stat_xact_user_functions WHERE funcname = 'bloom_contains';
COMMIT;

DROP TABLE bt, bt_common;
