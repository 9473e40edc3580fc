-- The bloomtree type: bloomtree_agg for every element type, per group, the
-- union and intersection aggregates against the operators, parallel plans, and
-- membership in scans of many trees and of one.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;

-- ---- aggregates ------------------------------------------------------------------
CREATE TABLE bt_src AS
    SELECT g AS x, 'w' || g AS w, ('\x' || lpad(to_hex(g), 8, '0'))::bytea AS b,
           md5(g::text)::uuid AS u, g % 4 AS grp
    FROM generate_series(1, 3000) g;
SELECT (SELECT bloomtree_agg(x, ARRAY[3000, 4, 3], ARRAY[5, 3, 2]) FROM bt_src)
       = bloomtree_from_array(ARRAY(SELECT x FROM bt_src)::bigint[], ARRAY[3000, 4, 3], ARRAY[5, 3, 2]) AS agg_int8,
       (SELECT bloomtree_agg(w, ARRAY[3000, 4, 3], ARRAY[5, 3, 2], 11) FROM bt_src)
       = bloomtree_from_array(ARRAY(SELECT w FROM bt_src), ARRAY[3000, 4, 3], ARRAY[5, 3, 2], 11) AS agg_text;
SELECT bool_and(tb @> b) AS bytea_members, bool_and(tu @> u) AS uuid_members
FROM bt_src,
     (SELECT bloomtree_agg(b, ARRAY[3000, 4], ARRAY[4, 2]) tb, bloomtree_agg(u, ARRAY[3000, 4], ARRAY[4, 2]) tu FROM bt_src) s;
-- per group, and union / intersection aggregates against the operators
CREATE TABLE bt_groups AS
    SELECT grp, bloomtree_agg(x, ARRAY[1000, 4, 3], ARRAY[5, 3, 2]) AS t FROM bt_src GROUP BY grp;
SELECT (SELECT bloomtree_union_agg(t) FROM bt_groups)
       = (SELECT bloomtree_agg(x, ARRAY[1000, 4, 3], ARRAY[5, 3, 2]) FROM bt_src) AS union_agg_is_agg_of_all,
       (SELECT bloomtree_intersect_agg(t) FROM bt_groups)
       = (SELECT a.t & b.t & c.t & d.t FROM bt_groups a, bt_groups b, bt_groups c, bt_groups d
          WHERE a.grp = 0 AND b.grp = 1 AND c.grp = 2 AND d.grp = 3) AS intersect_agg_is_and;
SELECT bloomtree_agg(x, ARRAY[64], ARRAY[2]) IS NULL AS empty_group_null FROM bt_src WHERE false;
SELECT bloomtree_agg(NULL::bigint, ARRAY[64], ARRAY[2]) = bloomtree_empty(ARRAY[64], ARRAY[2]) AS all_null_empty;
SELECT bloomtree_union_agg(t) IS NULL AS union_of_nothing FROM bt_groups WHERE false;

-- parallel plans give the serial result
-- parallel plans at any size, the workers doing every transition
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/parallel_plans.sql
ALTER TABLE bt_src SET (parallel_workers = 2);
ALTER TABLE bt_groups SET (parallel_workers = 2);
EXPLAIN (COSTS OFF) SELECT bloomtree_agg(x, ARRAY[3000, 4, 3], ARRAY[5, 3, 2]) FROM bt_src;
SELECT (SELECT bloomtree_agg(x, ARRAY[3000, 4, 3], ARRAY[5, 3, 2]) FROM bt_src)
       = bloomtree_from_array(ARRAY(SELECT x FROM bt_src ORDER BY x)::bigint[], ARRAY[3000, 4, 3], ARRAY[5, 3, 2]) AS parallel_agg,
       (SELECT bloomtree_union_agg(t) FROM bt_groups)
       = (SELECT bloomtree_agg(x, ARRAY[1000, 4, 3], ARRAY[5, 3, 2]) FROM bt_src) AS parallel_union;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;

-- membership in a scan of many trees and of one tree (the per-call-site cache)
SELECT grp, count(*) FILTER (WHERE t @> x) AS members
FROM bt_groups JOIN bt_src USING (grp) GROUP BY grp ORDER BY grp;
SELECT count(*) AS members_of_group_0
FROM bt_src WHERE (SELECT t FROM bt_groups WHERE grp = 0) @> x AND grp = 0;
