-- Shared setup of the planner regression files planner_costs, planner_skew
-- and planner_stats, included with
--   \getenv abs_srcdir PG_ABS_SRCDIR
--   \i :abs_srcdir/sql/include/plan_top.sql
-- It creates the extension and pg_temp.plan_top(q, field): the field (e.g.
-- 'Plan Rows', 'Total Cost') of the top node of q's plan, from EXPLAIN
-- (FORMAT JSON), as text (dropped with the session).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;
CREATE FUNCTION pg_temp.plan_top(q text, field text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE j json;
BEGIN
    EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
    RETURN j->0->'Plan'->>field;
END $$;
