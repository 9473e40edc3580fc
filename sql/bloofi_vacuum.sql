-- Bloofi index: VACUUM's restructuring.  After inserts one at a time
-- (splits up to new roots) and mass deletes, VACUUM removes dead leaves,
-- recomputes values, merges underfull nodes, frees retired nodes, moves
-- nodes to the front and truncates the file; lookups stay exact.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;

-- inserts one at a time (fastupdate off): the paper's insert, descending
-- to the closest bottom node and splitting full nodes up to new roots
CREATE TABLE mg (id int, f bloomfilter);
CREATE INDEX mg_f ON mg USING bloofi (f) WITH (order = 2, fastupdate = off);
INSERT INTO mg SELECT i, bloom_add(bloom_add(bloom_empty(1024, 4), i), -i) FROM generate_series(1, 3000) i;
SELECT height, leaves, inner_nodes, bottom_nodes, retired_nodes > 0 AS copied
FROM bloofi_stats('mg_f');
SELECT bloofi_check('mg_f');
-- VACUUM after deleting 90% of the first 900 rows: dead leaves removed,
-- values recomputed, underfull nodes merged or redistributed (copies: the
-- old nodes are retired; VACUUM frees them at once when it gets the index's
-- lock for a moment, as here where no other session uses it, else once no
-- snapshot older than the copy is left), nodes moved to the front of the
-- file and its free end cut off
DELETE FROM mg WHERE id <= 900 AND id % 10 <> 0;
CREATE TEMP TABLE mg_before AS SELECT * FROM bloofi_stats('mg_f');
VACUUM mg;
SELECT s.leaves, s.bottom_nodes < b.bottom_nodes AS merged, s.retired_nodes, s.retired_pages,
       s.pages < b.pages AS truncated, s.pages = pg_relation_size('mg_f') / 8192 AS pages_are_the_file
FROM bloofi_stats('mg_f') s, mg_before b;
SELECT bloofi_check('mg_f');
SELECT txid_current() > 0 AS xid_consumed;
VACUUM mg;
SELECT leaves, pending FROM bloofi_stats('mg_f');
SELECT bloofi_check('mg_f');
SET enable_seqscan = off;
SELECT count(*) AS via_index FROM generate_series(1, 3000) x JOIN mg ON mg.f @> x::bigint;
SELECT count(*) AS moved_rows_found FROM generate_series(1, 900) x JOIN mg ON mg.f @> x::bigint AND mg.id = x;
RESET enable_seqscan;
SELECT count(*) AS via_seqscan FROM generate_series(1, 3000) x JOIN mg ON bloom_contains(mg.f, x::bigint);
-- through the pending list this time (reuse of free pages by new nodes:
-- test/t/034_bloofi_churn.pl)
ALTER INDEX mg_f SET (fastupdate = on);
INSERT INTO mg SELECT i, bloom_add(bloom_add(bloom_empty(1024, 4), i), -i) FROM generate_series(3001, 4500) i;
DELETE FROM mg WHERE id BETWEEN 1000 AND 2400 AND id % 10 <> 0;
VACUUM mg;
SELECT bloofi_check('mg_f');
SELECT txid_current() > 0 AS xid_consumed;
VACUUM mg;
SELECT bloofi_check('mg_f');
VACUUM mg;
SELECT leaves, pending FROM bloofi_stats('mg_f');
SELECT bloofi_check('mg_f');
SET enable_seqscan = off;
SELECT count(*) AS via_index FROM generate_series(1, 4500) x JOIN mg ON mg.f @> x::bigint;
RESET enable_seqscan;
SELECT count(*) AS via_seqscan FROM generate_series(1, 4500) x JOIN mg ON bloom_contains(mg.f, x::bigint);
DROP TABLE mg;
