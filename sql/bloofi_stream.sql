-- Bloofi lookups whose slice pages are read through a read stream
-- (bloomsample.bloofi_read_stream; PostgreSQL 17 and later, no effect on 15
-- and 16, so the output is the same on every major).  A new session knows
-- where no page is, so with the setting on every node visit of its first
-- lookups reads through the stream.  Results must be those of a sequential
-- scan, with the setting on and off: one key and two keys (2k positions), a
-- text key with two readings, wide saturated nodes whose AND switches to the
-- sparse continuation (> 16,384 leaves), and nodes written after the build.
-- Page by page, a wide node's slices are ANDed a cache line at a time across
-- all of them, their pages locked together (bloofi_and_together), or with the
-- developer setting bloomsample.bloofi_and_lines off one whole slice after
-- another, or (contended) that after a lock found taken: all must give the
-- sequential scan's rows too.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;

-- 20,000 dense filters (m = 2,397, k = 17, about half the bits set): one
-- saturated root over wide bottom nodes; row i holds 100 i .. 100 i + 99
-- and the text 'r<i>'; elements of rows, and elements of none
CREATE TABLE rs (id int, f bloomfilter);
INSERT INTO rs
SELECT i, bloom_add(bloom_from_array(ARRAY(SELECT 100 * i + j FROM generate_series(0, 99) j)::bigint[],
                                     2397, 17), 'r' || i)
FROM generate_series(1, 20000) i;
CREATE INDEX rs_f ON rs USING bloofi (f);
ANALYZE rs;
SELECT height, leaves, bottom_nodes > 0 AS has_bottom_nodes FROM bloofi_stats('rs_f');
CREATE TABLE rs_probe (q int, x bigint, y bigint, t text);
INSERT INTO rs_probe
SELECT q, 100 * ((q * 7919) % 20000 + 1) + q % 100,
       CASE WHEN q % 2 = 0 THEN 100 * ((q * 7919) % 20000 + 1) + (q + 1) % 100 ELSE (1::bigint << 41) + q END,
       CASE WHEN q % 3 = 0 THEN ((q * 7919) % 20000 + 1)::text ELSE 'r' || ((q * 7919) % 20000 + 1) END
FROM generate_series(1, 60) q
UNION ALL SELECT q, (1::bigint << 41) + q, (1::bigint << 42) + q, 'none' || q FROM generate_series(61, 80) q;

-- rs_lookups: (kind, probe, row) of the three kinds of lookup
CREATE VIEW rs_lookups AS
    SELECT 'one key' AS kind, p.q, rs.id FROM rs_probe p JOIN rs ON rs.f @> p.x
    UNION ALL SELECT 'two keys', p.q, rs.id FROM rs_probe p JOIN rs ON rs.f @> p.x AND rs.f @> p.y
    UNION ALL SELECT 'text', p.q, rs.id FROM rs_probe p JOIN rs ON rs.f @> p.t;
-- the oracle, once: a sequential scan
SET enable_bitmapscan = off;
SET enable_indexscan = off;
CREATE TABLE rs_seq AS SELECT * FROM rs_lookups;
RESET enable_bitmapscan;
RESET enable_indexscan;
SELECT kind, count(*) FROM rs_seq GROUP BY kind ORDER BY kind;

-- rs_compare(): per kind, rows through the index against the oracle
CREATE FUNCTION rs_compare() RETURNS TABLE (kind text, via_index bigint, only_index bigint,
                                            only_seqscan bigint)
LANGUAGE sql SET enable_seqscan = off SET enable_indexscan = off AS $$
    WITH i AS MATERIALIZED (SELECT * FROM rs_lookups)
    SELECT k.kind, (SELECT count(*) FROM i WHERE i.kind = k.kind),
           (SELECT count(*) FROM (SELECT * FROM i WHERE i.kind = k.kind EXCEPT ALL
                                  SELECT * FROM rs_seq s WHERE s.kind = k.kind) d),
           (SELECT count(*) FROM (SELECT * FROM rs_seq s WHERE s.kind = k.kind EXCEPT ALL
                                  SELECT * FROM i WHERE i.kind = k.kind) d)
    FROM (VALUES ('one key'), ('text'), ('two keys')) k(kind)
$$;

-- rs_compare's lookups go through the index: a Bloofi scan for each kind
CREATE FUNCTION rs_bloofi_scans() RETURNS int LANGUAGE plpgsql
SET enable_seqscan = off SET enable_indexscan = off AS $$
DECLARE
    l text;
    n int := 0;
BEGIN
    FOR l IN EXPLAIN (COSTS OFF) SELECT * FROM rs_lookups LOOP
        n := n + (l LIKE '%Bitmap Index Scan on rs_f%')::int;
    END LOOP;
    RETURN n;
END $$;
SELECT rs_bloofi_scans();

-- a new session, stream on; again; then page by page
\c
SET bloomsample.bloofi_read_stream = on;
SELECT * FROM rs_compare();
SELECT * FROM rs_compare();
\c
SET bloomsample.bloofi_read_stream = off;
SELECT * FROM rs_compare();
SET bloomsample.bloofi_and_lines = off;
SELECT * FROM rs_compare();
-- contended: every line-at-a-time visit finds its last slice page's lock
-- taken, lets go of its pins and locks and ANDs a page at a time (a pin or
-- lock kept would show as a warning, or as a lookup waiting forever)
SET bloomsample.bloofi_and_lines = contended;
SELECT * FROM rs_compare();
SELECT * FROM rs_compare();
RESET bloomsample.bloofi_and_lines;

-- a temporary table's index (local buffers) is read page by page, the
-- setting on or not; its node of 5,000 leaves is wide enough to be ANDed a
-- line at a time (local buffers need no lock)
SET bloomsample.bloofi_read_stream = on;
CREATE TEMP TABLE rs_temp AS SELECT * FROM rs WHERE id <= 5000;
CREATE INDEX rs_temp_f ON rs_temp USING bloofi (f);
SET enable_seqscan = off;
SELECT count(*) FROM rs_probe p JOIN rs_temp t ON t.f @> p.x;
SET bloomsample.bloofi_read_stream = off;
SELECT count(*) FROM rs_probe p JOIN rs_temp t ON t.f @> p.x;
SET bloomsample.bloofi_and_lines = off;
SELECT count(*) FROM rs_probe p JOIN rs_temp t ON t.f @> p.x;
SET bloomsample.bloofi_and_lines = contended;
SELECT count(*) FROM rs_probe p JOIN rs_temp t ON t.f @> p.x;
RESET bloomsample.bloofi_and_lines;
RESET enable_seqscan;
SELECT count(*) FROM rs_probe p JOIN rs_temp t ON bloom_contains(t.f, p.x);
DROP TABLE rs_temp;
RESET bloomsample.bloofi_read_stream;

-- nodes written after the build (inserts through the tree, VACUUM's
-- rewrites): their pages are new to the session
ALTER INDEX rs_f SET (fastupdate = off);
INSERT INTO rs
SELECT i, bloom_from_array(ARRAY(SELECT 100 * i + j FROM generate_series(0, 99) j)::bigint[], 2397, 17)
FROM generate_series(20001, 20300) i;
DELETE FROM rs WHERE id % 5 = 0;
VACUUM rs;
SELECT bloofi_check('rs_f');
DROP TABLE rs_seq;
SET enable_bitmapscan = off;
SET enable_indexscan = off;
CREATE TABLE rs_seq AS SELECT * FROM rs_lookups;
RESET enable_bitmapscan;
RESET enable_indexscan;
\c
SET bloomsample.bloofi_read_stream = on;
SELECT * FROM rs_compare();
\c
SET bloomsample.bloofi_read_stream = off;
SELECT * FROM rs_compare();
SET bloomsample.bloofi_and_lines = off;
SELECT * FROM rs_compare();
RESET bloomsample.bloofi_and_lines;

DROP FUNCTION rs_compare(), rs_bloofi_scans();
DROP VIEW rs_lookups;
DROP TABLE rs, rs_probe, rs_seq;
