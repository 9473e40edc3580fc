-- Shared setting of the regression files that check a parallel plan gives
-- the serial result (bloomtree_agg, cbloom, cuckoo, type_agg), included with
--   \getenv abs_srcdir PG_ABS_SRCDIR
--   \i :abs_srcdir/sql/include/parallel_plans.sql
-- Parallel plans at any size, with the workers doing every transition; the
-- including file sets its table's parallel_workers and resets what it needs.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
