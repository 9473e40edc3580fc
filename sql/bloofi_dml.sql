-- Bloofi index: inserts, deletes and updates after the build (through the
-- pending list and with fastupdate off), VACUUM between them, bloofi_probe
-- and REINDEX: results stay those of a sequential scan and bloofi_check
-- passes after every step.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;

-- the table bt and its index bt_f (sql/include/bloofi_bt.sql)
\getenv abs_srcdir PG_ABS_SRCDIR
\set bloofi_bt :abs_srcdir '/sql/include/bloofi_bt.sql'
\i :bloofi_bt

-- probe tables and bt_compare (sql/include/bloofi_probes.sql)
\set bloofi_probes :abs_srcdir '/sql/include/bloofi_probes.sql'
\i :bloofi_probes

-- inserts after the build (closest-child descent, splits), deletes, VACUUM
-- (dead leaves removed, values recomputed, underfull nodes merged)
INSERT INTO bt
SELECT i, bloom_add(bloom_add(bloom_add(
           bloom_from_array(ARRAY(SELECT 10 * i + j FROM generate_series(0, 9) j)::bigint[], 1024, 5),
           't' || i), int4send(i)), md5(i::text)::uuid)
FROM generate_series(3001, 4400) i;
SELECT bloofi_check('bt_f');
-- the 1,400 inserts went through the pending list, flushed every 256 entries
SELECT pending, pending < 256 AS flushed, leaves FROM bloofi_stats('bt_f');
SELECT kind, via_index = via_seqscan AS same_count, only_index, only_seqscan FROM bt_compare();
DELETE FROM bt WHERE id % 3 = 0;
UPDATE bt SET f = bloom_add(f, -1::bigint) WHERE id % 100 = 1;
VACUUM bt;
SELECT bloofi_check('bt_f');
SELECT leaves, free_slots > 0 AS has_free_slots, pending FROM bloofi_stats('bt_f');
SELECT kind, via_index = via_seqscan AS same_count, only_index, only_seqscan FROM bt_compare();
SELECT count(*) FROM bt WHERE f @> -1::bigint;
INSERT INTO bt
SELECT i, bloom_from_array(ARRAY(SELECT 10 * i + j FROM generate_series(0, 9) j)::bigint[], 1024, 5)
FROM generate_series(5001, 5500) i;
SELECT bloofi_check('bt_f');
SELECT leaves FROM bloofi_stats('bt_f');
SELECT kind, via_index = via_seqscan AS same_count, only_index, only_seqscan FROM bt_compare();

-- bloofi_probe: matches = rows whose filter contains the element
SELECT p.matches = (SELECT count(*) FROM bt WHERE bloom_contains(f, 77::bigint)) AS probe_matches,
       p.nodes_checked > 0 AS checked
FROM bloofi_probe('bt_f', 77::bigint) p;
SELECT (SELECT matches FROM bloofi_probe('bt_f', 't101'::text)) =
       (SELECT count(*) FROM bt WHERE bloom_contains(f, 't101'::text)) AS text_ok,
       (SELECT matches FROM bloofi_probe('bt_f', int4send(101))) =
       (SELECT count(*) FROM bt WHERE bloom_contains(f, int4send(101))) AS bytea_ok,
       (SELECT matches FROM bloofi_probe('bt_f', md5('101')::uuid)) =
       (SELECT count(*) FROM bt WHERE bloom_contains(f, md5('101')::uuid)) AS uuid_ok,
       (SELECT matches FROM bloofi_probe('bt_f', md5('101')::uuid)) > 0 AS found;

-- REINDEX gives an equivalent index, without retired or free nodes
REINDEX INDEX bt_f;
SELECT bloofi_check('bt_f');
SELECT leaves, retired_nodes, free_nodes, free_pages FROM bloofi_stats('bt_f');
SELECT kind, via_index = via_seqscan AS same_count, only_index, only_seqscan FROM bt_compare();

-- fastupdate = off inserts into the tree directly; ALTER INDEX switches it
CREATE TABLE fu (id int, f bloomfilter);
CREATE INDEX fu_on ON fu USING bloofi (f);
CREATE INDEX fu_off ON fu USING bloofi (f) WITH (fastupdate = off);
INSERT INTO fu SELECT i, bloom_add(bloom_empty(512, 3), i) FROM generate_series(1, 100) i;
SELECT pending, leaves, bottom_nodes FROM bloofi_stats('fu_on');
SELECT pending, leaves, bottom_nodes > 1 AS split FROM bloofi_stats('fu_off');
SELECT bloofi_check('fu_on'), bloofi_check('fu_off');
SET enable_seqscan = off;
SELECT id FROM fu WHERE f @> 42::bigint;
DROP INDEX fu_off;
SELECT id FROM fu WHERE f @> 42::bigint;
RESET enable_seqscan;
SELECT matches FROM bloofi_probe('fu_on', 42::bigint);
ALTER INDEX fu_on SET (fastupdate = off);
INSERT INTO fu VALUES (101, bloom_add(bloom_empty(512, 3), 101));
SELECT pending, leaves FROM bloofi_stats('fu_on');
VACUUM fu;
SELECT pending, leaves FROM bloofi_stats('fu_on');
SELECT bloofi_check('fu_on');
DROP TABLE fu;

DROP TABLE bt;
DROP FUNCTION bt_compare(), bt_results(boolean);
