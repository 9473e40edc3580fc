-- The bloomtree type: every error with its SQLSTATE (parameters, incompatible
-- trees, malformed text input).
-- the extension and pg_temp.err(q), the SQLSTATE and message of a statement
-- that must fail (sql/include/err.sql)
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/err.sql

-- ---- errors ----------------------------------------------------------------------
-- parameters
SELECT pg_temp.err($$SELECT bloomtree_empty(ARRAY[]::integer[], ARRAY[]::integer[])$$);
SELECT pg_temp.err($$SELECT bloomtree_empty(ARRAY[2,2,2,2,2,2,2,2,2], ARRAY[1,1,1,1,1,1,1,1,1])$$);
SELECT pg_temp.err($$SELECT bloomtree_empty(ARRAY[16, 4], ARRAY[3])$$);
SELECT pg_temp.err($$SELECT bloomtree_empty(ARRAY[16, 0], ARRAY[3, 2])$$);
SELECT pg_temp.err($$SELECT bloomtree_empty(ARRAY[16, 4], ARRAY[3, 33])$$);
SELECT pg_temp.err($$SELECT bloomtree_empty(ARRAY[16, 4], ARRAY[0, 1])$$);
SELECT pg_temp.err($$SELECT bloomtree_empty(ARRAY[16, NULL], ARRAY[3, 2])$$);
SELECT pg_temp.err($$SELECT bloomtree_empty(ARRAY[[16, 4]], ARRAY[[3, 2]])$$);
SELECT pg_temp.err($$SELECT bloomtree_empty(ARRAY[100000, 100000], ARRAY[1, 1])$$);
SELECT pg_temp.err($$SELECT bloomtree_empty(ARRAY[2, 2, 2, 2], ARRAY[32, 32, 32, 32])$$);
SELECT bloomtree_empty(ARRAY[100000, 100000], ARRAY[1, 1]);
SELECT pg_temp.err($$SELECT bloomtree_from_array(ARRAY[1.5]::numeric[], ARRAY[16], ARRAY[2])$$);
SELECT pg_temp.err($$SELECT bloomtree_from_array(ARRAY[1]::bigint[], ARRAY[16], ARRAY[0])$$);
SELECT pg_temp.err($$SELECT bloomtree_agg(x, ARRAY[64], ARRAY[x::int % 2 + 1]) FROM generate_series(1, 3) x$$);
SELECT pg_temp.err($$SELECT bloomtree_agg(x, NULL::integer[], ARRAY[1]) FROM generate_series(1, 3) x$$);
SELECT pg_temp.err($$SELECT bloomtree_agg(x, ARRAY[64], ARRAY[1], NULL) FROM generate_series(1, 3) x$$);
-- incompatible trees: every operation names both parameter sets
SELECT bloomtree_empty(ARRAY[64, 4], ARRAY[3, 2]) & bloomtree_empty(ARRAY[64, 5], ARRAY[3, 2]);
SELECT pg_temp.err($$SELECT bloomtree_empty(ARRAY[64], ARRAY[3]) | bloomtree_empty(ARRAY[64], ARRAY[3], 1)$$);
SELECT pg_temp.err($$SELECT bloomtree_union_agg(t) FROM (VALUES (bloomtree_empty(ARRAY[64], ARRAY[3])),
                                                          (bloomtree_empty(ARRAY[64, 2], ARRAY[3, 1]))) v(t)$$);
SELECT pg_temp.err($$SELECT bloomtree_intersect_agg(t) FROM (VALUES (bloomtree_empty(ARRAY[64], ARRAY[3])),
                                                          (bloomtree_empty(ARRAY[64], ARRAY[4]))) v(t)$$);
-- malformed text input
SELECT pg_temp.err($$SELECT ''::bloomtree$$);
SELECT pg_temp.err($$SELECT 'garbage'::bloomtree$$);
SELECT pg_temp.err($$SELECT 'm={16}'::bloomtree$$);
SELECT pg_temp.err($$SELECT 'm={},k={},seed=0,v=1:'::bloomtree$$);
SELECT pg_temp.err($$SELECT 'm={16,4},k={3},seed=0,v=1:00'::bloomtree$$);
SELECT pg_temp.err($$SELECT 'm={0},k={1},seed=0,v=1:'::bloomtree$$);
SELECT pg_temp.err($$SELECT 'm={8},k={33},seed=0,v=1:00'::bloomtree$$);
SELECT pg_temp.err($$SELECT 'm={8},k={1},seed=2147483648,v=1:00'::bloomtree$$);
SELECT pg_temp.err($$SELECT 'm={1,1,1,1,1,1,1,1,1},k={1,1,1,1,1,1,1,1,1},seed=0,v=1:00'::bloomtree$$);
SELECT pg_temp.err($$SELECT 'm={99999999999999},k={1},seed=0,v=1:00'::bloomtree$$);
SELECT pg_temp.err($$SELECT 'm={65536,65536},k={1,1},seed=0,v=1:00'::bloomtree$$);
SELECT pg_temp.err($$SELECT 'm={8},k={1},seed=0,v=2:00'::bloomtree$$);
SELECT pg_temp.err($$SELECT 'm={8},k={1},seed=0,v=1:000'::bloomtree$$);
SELECT pg_temp.err($$SELECT 'm={8},k={1},seed=0,v=1:00 x'::bloomtree$$);
SELECT pg_temp.err($$SELECT 'm={12},k={1},seed=0,v=1:0010'::bloomtree$$);
-- a filter below a zero bit holding a one: root bit 1 is zero, its child (bits 10, 11) is not
SELECT 'm={8,2},k={1,1},seed=0,v=1:fd0400'::bloomtree;
SELECT pg_temp.err($$SELECT 'm={8,2},k={1,1},seed=0,v=1:fd0400'::bloomtree$$);
