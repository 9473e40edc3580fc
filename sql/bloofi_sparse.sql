-- Bloofi index: SPARSE bottom nodes (small sparse filters stored as lists
-- position -> slots).  The build puts filters of a few set bits into one
-- wide SPARSE node; lookups, inserts through the pending list and directly,
-- deletes, VACUUM and REINDEX keep every answer equal to a sequential scan,
-- and bloofi_check verifies the lists after every step.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;

CREATE TABLE sp (id int, f bloomfilter);
INSERT INTO sp SELECT i, bloom_from_array(ARRAY[i, i / 10, i % 97]::bigint[], 1024, 3)
FROM generate_series(1, 4000) i;
CREATE INDEX sp_f ON sp USING bloofi (f);
-- one wide bottom node (4,000 leaves, more than 2d = 64, unsaturated value)
-- in fewer pages than its dense slices would take (1,024 slices of 4,096
-- slots: over 60 pages)
SELECT height, leaves, bottom_nodes, pages < 30 AS small FROM bloofi_stats('sp_f');
SELECT bloofi_check('sp_f');
-- bloofi_probe counts the filters a lookup examines (issue 37): in a SPARSE
-- node, the entries of the position lists it reads, not all 4,000 filters.
-- When some filter matches, every list of the element's positions is read:
-- the count is then the number of (filter, position) pairs with the bit set,
-- sum(popcount(f & {e})); when none matches, the lookup may stop earlier
SELECT e, p.matches = (SELECT count(*) FROM sp WHERE f @> e) AS matches_ok,
       CASE WHEN p.matches > 0 THEN p.nodes_checked = o.entries
            ELSE p.nodes_checked <= o.entries END AS checked_ok,
       p.nodes_checked < 400 AS pruned
FROM (VALUES (5::bigint), (42), (96), (3999), (123456)) v(e), bloofi_probe('sp_f', e) p,
     LATERAL (SELECT sum(bloom_popcount(sp.f & bloom_from_array(ARRAY[e], 1024, 3))) AS entries FROM sp) o
ORDER BY e;

-- the index against a sequential scan, for 300 elements
CREATE TABLE sp_el AS SELECT i::bigint AS e FROM generate_series(-5, 4100, 14) i;
CREATE FUNCTION sp_diff() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  SET LOCAL enable_seqscan = off;
  SET LOCAL enable_indexscan = off;
  CREATE TEMP TABLE sp_idx ON COMMIT DROP AS
    SELECT e, s.id FROM sp_el, LATERAL (SELECT id FROM sp WHERE f @> e) s;
  SET LOCAL enable_seqscan = on;
  SET LOCAL enable_bitmapscan = off;
  CREATE TEMP TABLE sp_seq ON COMMIT DROP AS
    SELECT e, s.id FROM sp_el, LATERAL (SELECT id FROM sp WHERE f @> e) s;
  SELECT count(*) INTO n FROM ((SELECT * FROM sp_idx EXCEPT SELECT * FROM sp_seq)
                               UNION ALL (SELECT * FROM sp_seq EXCEPT SELECT * FROM sp_idx)) d;
  RETURN n + CASE WHEN (SELECT count(*) FROM sp_seq) > 300 THEN 0 ELSE 1000000 END;
END $$;
SELECT sp_diff() AS differences;

-- inserts through the pending list, flushed by VACUUM: the node is
-- rewritten with the new leaves (the old copy retired) and stays SPARSE
INSERT INTO sp SELECT i, bloom_from_array(ARRAY[i, i / 10]::bigint[], 1024, 3)
FROM generate_series(4001, 4500) i;
VACUUM sp;
SELECT leaves, pending FROM bloofi_stats('sp_f');
SELECT bloofi_check('sp_f');
SELECT sp_diff() AS differences;

-- inserts one at a time, deletes, VACUUM (dead TIDs cleared in place), and
-- inserts into the reused slots
ALTER INDEX sp_f SET (fastupdate = off);
INSERT INTO sp SELECT i, bloom_from_array(ARRAY[i]::bigint[], 1024, 3) FROM generate_series(4501, 4530) i;
SELECT bloofi_check('sp_f');
DELETE FROM sp WHERE id % 3 = 0;
VACUUM sp;
SELECT bloofi_check('sp_f');
SELECT sp_diff() AS differences;
INSERT INTO sp SELECT i, bloom_from_array(ARRAY[i, 7]::bigint[], 1024, 3) FROM generate_series(5001, 5040) i;
SELECT bloofi_check('sp_f');
SELECT sp_diff() AS differences;
SELECT leaves FROM bloofi_stats('sp_f');

-- REINDEX (fastupdate off now: the paper's tree of small nodes, each in its
-- smaller form)
REINDEX INDEX sp_f;
SELECT bottom_nodes > 1 AS tree FROM bloofi_stats('sp_f');
SELECT bloofi_check('sp_f');
SELECT sp_diff() AS differences;

-- full SPARSE nodes split: leaf_capacity 512, inserts through the pending
-- list past it; the halves (more than 2d leaves each) stay SPARSE
CREATE TABLE lc (id int, f bloomfilter);
INSERT INTO lc SELECT i, bloom_from_array(ARRAY[i, i / 5]::bigint[], 1024, 3) FROM generate_series(1, 3000) i;
CREATE INDEX lc_f ON lc USING bloofi (f) WITH (leaf_capacity = 512);
SELECT leaves, bottom_nodes FROM bloofi_stats('lc_f');
INSERT INTO lc SELECT i, bloom_from_array(ARRAY[i, i / 5]::bigint[], 1024, 3) FROM generate_series(3001, 6000) i;
VACUUM lc;
SELECT leaves, bottom_nodes > 6 AS split FROM bloofi_stats('lc_f');
SELECT bloofi_check('lc_f');
SET enable_seqscan = off;
CREATE TEMP TABLE lc_idx AS SELECT e, s.id FROM sp_el, LATERAL (SELECT id FROM lc WHERE f @> e) s;
RESET enable_seqscan;
SET enable_bitmapscan = off;
CREATE TEMP TABLE lc_seq AS SELECT e, s.id FROM sp_el, LATERAL (SELECT id FROM lc WHERE f @> e) s;
RESET enable_bitmapscan;
SELECT (SELECT count(*) FROM lc_seq) > 100 AS found,
       (SELECT count(*) FROM ((SELECT * FROM lc_idx EXCEPT SELECT * FROM lc_seq)
                              UNION ALL (SELECT * FROM lc_seq EXCEPT SELECT * FROM lc_idx)) d) AS differences;

-- wide filters at large m (issue 33): a skewed column sized for its largest
-- set (m = 433,039, k = 3), so every node's lists are few against m: SPARSE
-- nodes in the LISTED form, wide; inserts rebuild their lists as lists;
-- deletes, VACUUM and reinserts; every step against a sequential scan
SELECT setseed(0.25) IS NULL AS seeded;
CREATE TABLE wd (id int, f bloomfilter);
INSERT INTO wd SELECT i, bloom_from_array(ARRAY(SELECT floor(20000 * random())::bigint
                 FROM generate_series(1, least(3000, floor(3 / random()))::int + 0 * i)), 433039, 3)
  FROM generate_series(1, 1500) i;
CREATE TEMP TABLE wd_el AS SELECT DISTINCT x AS e FROM wd, generate_series(0, 19999, 41) x;
CREATE FUNCTION wd_diff() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE d bigint;
BEGIN
  SET LOCAL enable_seqscan = off;
  CREATE TEMP TABLE wd_idx ON COMMIT DROP AS SELECT e, s.id FROM wd_el, LATERAL (SELECT id FROM wd WHERE f @> e) s;
  SET LOCAL enable_seqscan = on;
  SET LOCAL enable_bitmapscan = off;
  SET LOCAL enable_indexscan = off;
  CREATE TEMP TABLE wd_seq ON COMMIT DROP AS SELECT e, s.id FROM wd_el, LATERAL (SELECT id FROM wd WHERE f @> e) s;
  SELECT count(*) INTO d FROM ((SELECT * FROM wd_idx EXCEPT SELECT * FROM wd_seq)
                               UNION ALL (SELECT * FROM wd_seq EXCEPT SELECT * FROM wd_idx)) x;
  IF (SELECT count(*) FROM wd_seq) < 100 THEN RETURN -1; END IF;
  DROP TABLE wd_idx, wd_seq;
  RETURN d;
END $$;
-- (room for one bottom node of all the rows as dense rows: 1,500 x 54 kB)
SET maintenance_work_mem = '256MB';
CREATE INDEX wd_f ON wd USING bloofi (f);
-- one node, far below the 4 (m + 1) bytes of offsets of the direct form
SELECT bottom_nodes, height, pg_relation_size('wd_f') < 4 * 433040 AS compact FROM bloofi_stats('wd_f');
SELECT bloofi_check('wd_f');
SELECT wd_diff() AS differences;
INSERT INTO wd SELECT i, bloom_from_array(ARRAY[i, i + 1, i * 7]::bigint[], 433039, 3) FROM generate_series(1501, 1800) i;
SELECT bloofi_check('wd_f');
SELECT wd_diff() AS differences;
UPDATE wd SET f = bloom_add(f, 77777::bigint) WHERE id % 50 = 0;
DELETE FROM wd WHERE id % 7 = 0;
VACUUM wd;
INSERT INTO wd SELECT i, bloom_from_array(ARRAY[i, 77777]::bigint[], 433039, 3) FROM generate_series(2001, 2100) i;
SELECT bloofi_check('wd_f');
SELECT wd_diff() AS differences;
SELECT count(*) FROM wd WHERE f @> 77777::bigint;
RESET maintenance_work_mem;

-- a LISTED node of large sets (issue 33): 300 filters of 1,000 elements at
-- m = 433,039 in one node, ~5,600 blocks at the default cut, whose fences
-- take several pages, which a lookup searches page by page, keeping the
-- pages it read; positions fall in every block, before the first fence and
-- past the last; every lookup against a sequential scan
SELECT setseed(0.5) IS NULL AS seeded;
CREATE TABLE wf (id int, f bloomfilter);
INSERT INTO wf SELECT i, bloom_from_array(ARRAY(SELECT floor(1000000 * random())::bigint + 0 * i
                 FROM generate_series(1, 1000)), 433039, 3)
  FROM generate_series(1, 300) i;
CREATE TEMP TABLE wf_el AS SELECT x::bigint AS e FROM generate_series(0, 999999, 331) x;
SET maintenance_work_mem = '64MB';
CREATE INDEX wf_f ON wf USING bloofi (f);
RESET maintenance_work_mem;
-- one bottom node of all 300
SELECT bottom_nodes, pg_relation_size('wf_f') > 100000 AS wide FROM bloofi_stats('wf_f');
SELECT bloofi_check('wf_f');
SET enable_seqscan = off;
CREATE TEMP TABLE wf_idx AS SELECT e, s.id FROM wf_el, LATERAL (SELECT id FROM wf WHERE f @> e) s;
RESET enable_seqscan;
SET enable_bitmapscan = off;
SET enable_indexscan = off;
CREATE TEMP TABLE wf_seq AS SELECT e, s.id FROM wf_el, LATERAL (SELECT id FROM wf WHERE f @> e) s;
RESET enable_bitmapscan;
RESET enable_indexscan;
SELECT (SELECT count(*) FROM wf_seq) > 500 AS found,
       (SELECT count(*) FROM ((SELECT * FROM wf_idx EXCEPT SELECT * FROM wf_seq)
                              UNION ALL (SELECT * FROM wf_seq EXCEPT SELECT * FROM wf_idx)) d) AS differences;

-- the same node with its blocks cut for one page of fences (the developer
-- setting on): blocks of ~6 times the default, a lookup skipping hundreds of
-- lists in a block; the same answers
SELECT pg_relation_size('wf_f') AS default_cut \gset
SET bloomsample.bloofi_listed_fence_page = on;
REINDEX INDEX wf_f;
RESET bloomsample.bloofi_listed_fence_page;
SELECT pg_relation_size('wf_f') < :default_cut AS larger_blocks_fewer_fences;
SELECT bloofi_check('wf_f');
SET enable_seqscan = off;
CREATE TEMP TABLE wf_idx2 AS SELECT e, s.id FROM wf_el, LATERAL (SELECT id FROM wf WHERE f @> e) s;
RESET enable_seqscan;
SELECT (SELECT count(*) FROM ((SELECT * FROM wf_idx2 EXCEPT SELECT * FROM wf_seq)
                              UNION ALL (SELECT * FROM wf_seq EXCEPT SELECT * FROM wf_idx2)) d) AS differences;

-- wide SPARSE nodes past what maintenance_work_mem holds as rows (issue
-- 33): at m = 65,536 one filter is 8 kB, so 1MB holds 63 rows, but the build
-- holds small filters as positions and writes nodes of up to leaf_capacity
-- leaves; inserts through the tree grow and split them, and VACUUM merges
-- them, as lists (never as rows); every step against a sequential scan
CREATE TABLE ww (id int, f bloomfilter);
INSERT INTO ww SELECT i, bloom_from_array(ARRAY[i, i / 3, 100000 + i % 97]::bigint[], 65536, 3)
  FROM generate_series(1, 1500) i;
CREATE TEMP TABLE ww_el AS SELECT x::bigint AS e FROM generate_series(0, 2600, 7) x
  UNION ALL SELECT 100000 + x FROM generate_series(0, 96, 5) x;
CREATE FUNCTION ww_diff() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE d bigint;
BEGIN
  SET LOCAL enable_seqscan = off;
  CREATE TEMP TABLE ww_idx ON COMMIT DROP AS SELECT e, s.id FROM ww_el, LATERAL (SELECT id FROM ww WHERE f @> e) s;
  SET LOCAL enable_seqscan = on;
  SET LOCAL enable_bitmapscan = off;
  SET LOCAL enable_indexscan = off;
  CREATE TEMP TABLE ww_seq ON COMMIT DROP AS SELECT e, s.id FROM ww_el, LATERAL (SELECT id FROM ww WHERE f @> e) s;
  SELECT count(*) INTO d FROM ((SELECT * FROM ww_idx EXCEPT SELECT * FROM ww_seq)
                               UNION ALL (SELECT * FROM ww_seq EXCEPT SELECT * FROM ww_idx)) x;
  IF (SELECT count(*) FROM ww_seq) < 20 THEN RETURN -1; END IF;
  DROP TABLE ww_idx, ww_seq;
  RETURN d;
END $$;
SET maintenance_work_mem = '1MB';
CREATE INDEX ww_f ON ww USING bloofi (f) WITH (leaf_capacity = 1000);
SELECT bottom_nodes, leaves / bottom_nodes > 63 AS wider_than_rows FROM bloofi_stats('ww_f');
SELECT bloofi_check('ww_f');
SELECT ww_diff() AS differences;
-- one leaf at a time through the tree: growths, then splits at 1,000
ALTER INDEX ww_f SET (fastupdate = off);
INSERT INTO ww SELECT i, bloom_from_array(ARRAY[i, i / 3, 100000 + i % 97]::bigint[], 65536, 3)
  FROM generate_series(1501, 2600) i;
SELECT bottom_nodes > 2 AS split, leaves FROM bloofi_stats('ww_f');
SELECT bloofi_check('ww_f');
SELECT ww_diff() AS differences;
-- most rows gone: VACUUM merges the under-full wide nodes as lists
DELETE FROM ww WHERE id % 25 <> 0;
SELECT bottom_nodes AS before_vacuum FROM bloofi_stats('ww_f') \gset
VACUUM ww;
SELECT bottom_nodes < :before_vacuum AS merged, leaves FROM bloofi_stats('ww_f');
SELECT bloofi_check('ww_f');
SELECT ww_diff() AS differences;
INSERT INTO ww SELECT i, bloom_from_array(ARRAY[i, i / 3, 100000 + i % 97]::bigint[], 65536, 3)
  FROM generate_series(2601, 2700) i;
SELECT bloofi_check('ww_f');
SELECT ww_diff() AS differences;
-- a wide root that VACUUM repacks as lists: 5,000 leaves of m = 1,024 (more
-- than the 3,900 rows 1MB holds), all but one in 40 deleted
CREATE TABLE wr (id int, f bloomfilter);
INSERT INTO wr SELECT i, bloom_from_array(ARRAY[i, i + 7]::bigint[], 1024, 3) FROM generate_series(1, 5000) i;
CREATE INDEX wr_f ON wr USING bloofi (f);
SELECT bottom_nodes, height FROM bloofi_stats('wr_f');
SELECT pg_relation_size('wr_f') AS before_repack \gset
DELETE FROM wr WHERE id % 40 <> 0;
VACUUM wr;
SELECT leaves, slots < 1000 AS repacked, pg_relation_size('wr_f') - retired_pages * 8192 - free_pages * 8192 < :before_repack / 2 AS smaller
  FROM bloofi_stats('wr_f');
SELECT bloofi_check('wr_f');
SET enable_seqscan = off;
SELECT count(*) AS found, count(*) FILTER (WHERE id % 40 <> 0) AS deleted_found
  FROM generate_series(1, 5007) x, LATERAL (SELECT id FROM wr WHERE f @> x::bigint) s;
RESET enable_seqscan;
SET enable_bitmapscan = off;
SET enable_indexscan = off;
SELECT count(*) AS scanned FROM generate_series(1, 5007) x, LATERAL (SELECT id FROM wr WHERE f @> x::bigint) s;
RESET enable_bitmapscan;
RESET enable_indexscan;
RESET maintenance_work_mem;

DROP TABLE wr, ww, ww_el, sp, sp_el, lc, lc_idx, lc_seq, wd, wd_el, wf, wf_el, wf_idx, wf_seq, wf_idx2;
DROP FUNCTION sp_diff();
DROP FUNCTION wd_diff();
DROP FUNCTION ww_diff();
