-- Bloofi index access method: amvalidate, results equal to a sequential scan
-- for every element type (after build, inserts, deletes + VACUUM), plan
-- shapes, reloption bounds, introspection and errors.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;

-- the operator class passes PostgreSQL's validation; build phases are named
SELECT opcname, amvalidate(c.oid)
FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
WHERE a.amname = 'bloofi';
SELECT amopstrategy, amoplefttype::regtype, amoprighttype::regtype
FROM pg_amop o JOIN pg_am a ON a.oid = o.amopmethod
WHERE a.amname = 'bloofi' ORDER BY 3;
SELECT p, pg_indexam_progress_phasename(a.oid, p) AS phase
FROM pg_am a, generate_series(1, 6) p WHERE amname = 'bloofi';

-- 3000 rows: row i holds the integers [10 i, 10 i + 10), the texts 't<i>',
-- the bytea of i and the uuid md5(i); every 10th row a NULL filter.
CREATE TABLE bt (id int PRIMARY KEY, f bloomfilter);
INSERT INTO bt
SELECT i, CASE WHEN i % 10 = 0 THEN NULL ELSE
       bloom_add(bloom_add(bloom_add(
           bloom_from_array(ARRAY(SELECT 10 * i + j FROM generate_series(0, 9) j)::bigint[], 1024, 5),
           't' || i), int4send(i)), md5(i::text)::uuid) END
FROM generate_series(1, 3000) i;
CREATE INDEX bt_f ON bt USING bloofi (f) WITH (order = 4);
ANALYZE bt;
SELECT bloofi_check('bt_f');
-- a tree of order 4: bottom nodes of d + 1 = 5 leaves (as a split leaves
-- them), inner nodes of 4..8 children, and one wide root over the first
-- level whose values are all saturated (no-split rule, section 3.4)
SELECT height, nodes, leaves, inner_nodes, bottom_nodes, "order", m, k FROM bloofi_stats('bt_f');

-- one probe table per element type; results through the index and through
-- a sequential scan must be the same sets of (element, row)
CREATE TEMP TABLE px AS SELECT (x * 7)::bigint AS x FROM generate_series(0, 4400) x;
CREATE TEMP TABLE pt AS SELECT 't' || x AS x FROM generate_series(0, 3300, 3) x;
CREATE TEMP TABLE pb AS SELECT int4send(x) AS x FROM generate_series(0, 3300, 3) x;
CREATE TEMP TABLE pu AS SELECT md5(x::text)::uuid AS x FROM generate_series(0, 3300, 3) x;

CREATE FUNCTION bt_results(use_index boolean)
RETURNS TABLE (kind text, x text, id int) LANGUAGE plpgsql AS $$
BEGIN
    PERFORM set_config('enable_seqscan', (NOT use_index)::text, true);
    PERFORM set_config('enable_bitmapscan', use_index::text, true);
    PERFORM set_config('enable_indexscan', 'off', true);
    RETURN QUERY
        SELECT 'bigint', p.x::text, bt.id FROM px p JOIN bt ON bt.f @> p.x
        UNION ALL SELECT 'text', p.x, bt.id FROM pt p JOIN bt ON bt.f @> p.x
        UNION ALL SELECT 'bytea', p.x::text, bt.id FROM pb p JOIN bt ON bt.f @> p.x
        UNION ALL SELECT 'uuid', p.x::text, bt.id FROM pu p JOIN bt ON bt.f @> p.x;
END $$;

CREATE FUNCTION bt_compare() RETURNS TABLE (kind text, via_index bigint, via_seqscan bigint,
                                            only_index bigint, only_seqscan bigint)
LANGUAGE sql AS $$
    WITH i AS (SELECT * FROM bt_results(true)), s AS (SELECT * FROM bt_results(false))
    SELECT k.kind,
           (SELECT count(*) FROM i WHERE i.kind = k.kind),
           (SELECT count(*) FROM s WHERE s.kind = k.kind),
           (SELECT count(*) FROM (SELECT * FROM i WHERE i.kind = k.kind EXCEPT ALL
                                  SELECT * FROM s WHERE s.kind = k.kind) d),
           (SELECT count(*) FROM (SELECT * FROM s WHERE s.kind = k.kind EXCEPT ALL
                                  SELECT * FROM i WHERE i.kind = k.kind) d)
    FROM (VALUES ('bigint'), ('text'), ('bytea'), ('uuid')) k(kind)
$$;

-- the join through the index really uses it (parameterised bitmap scan)
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT bt.id FROM px p JOIN bt ON bt.f @> p.x;
RESET enable_seqscan;

-- counts are of true members plus a few false positives (m = 1024, k = 5)
SELECT kind, via_index >= CASE kind WHEN 'bigint' THEN 3900 ELSE 880 END AS enough_matches, via_index = via_seqscan AS same_count,
       only_index, only_seqscan FROM bt_compare();

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

-- filters larger than a page (the paper's m = 100,992 bits, k = 7)
CREATE TABLE big (id int, f bloomfilter);
INSERT INTO big
SELECT i, bloom_from_array(ARRAY(SELECT 100 * i + j FROM generate_series(0, 99) j)::bigint[], 100992, 7)
FROM generate_series(1, 300) i;
CREATE INDEX big_f ON big USING bloofi (f) WITH (order = 2);   -- the paper's d
INSERT INTO big
SELECT i, bloom_from_array(ARRAY(SELECT 100 * i + j FROM generate_series(0, 99) j)::bigint[], 100992, 7)
FROM generate_series(301, 400) i;
SELECT bloofi_check('big_f');
SELECT leaves, height, m, k FROM bloofi_stats('big_f');
SET enable_seqscan = off;
SELECT id FROM big WHERE f @> 25050::bigint;
SELECT id FROM big WHERE f @> 39999::bigint;
SELECT count(*) FROM big WHERE f @> 40000::bigint;
RESET enable_seqscan;
-- the paper's search cost: one path of about d * log_d(N) filters, not N
SELECT matches, nodes_checked, nodes_checked < 40 AS pruned FROM bloofi_probe('big_f', 25050::bigint);
SELECT matches, nodes_checked FROM bloofi_probe('big_f', -1::bigint);

-- CREATE INDEX orders filters by similarity: two interleaved clusters (rows
-- of a cluster share 30 elements) end up in separate subtrees, so a lookup
-- of an element common to one cluster checks about half of the tree (in heap
-- order every node would hold both clusters: every node checked)
CREATE TABLE clus (id int, f bloomfilter);
INSERT INTO clus
SELECT i, bloom_from_array(ARRAY(SELECT 1000000 * (i % 2) + j FROM generate_series(1, 30) j) ||
                           ARRAY(SELECT 10 * i + j FROM generate_series(0, 4) j)::bigint[], 4096, 3)
FROM generate_series(1, 512) i;
CREATE INDEX clus_f ON clus USING bloofi (f) WITH (order = 2);
SELECT nodes FROM bloofi_stats('clus_f');
SELECT p.matches, p.nodes_checked < 0.6 * s.nodes AS half_the_tree
FROM bloofi_probe('clus_f', 1000005::bigint) p, bloofi_stats('clus_f') s;
SELECT p.matches, p.nodes_checked < 0.6 * s.nodes AS half_the_tree
FROM bloofi_probe('clus_f', 5::bigint) p, bloofi_stats('clus_f') s;
DROP TABLE clus;

-- empty and unlogged indexes; NULLs are not indexed
CREATE UNLOGGED TABLE ul (f bloomfilter);
CREATE INDEX ul_f ON ul USING bloofi (f);
SELECT height, leaves, inner_nodes, bottom_nodes, m FROM bloofi_stats('ul_f');
SELECT * FROM bloofi_probe('ul_f', 1::bigint);
INSERT INTO ul VALUES (NULL), (bloom_add(bloom_empty(64, 2), 5::bigint));
SELECT bloofi_check('ul_f');
SET enable_seqscan = off;
SELECT count(*) FROM ul WHERE f @> 5::bigint;
RESET enable_seqscan;

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
-- test/t/014_bloofi_churn.pl)
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

-- reloption bounds
CREATE INDEX ON ul USING bloofi (f) WITH (order = 1);
CREATE INDEX ON ul USING bloofi (f) WITH (order = 1001);
CREATE INDEX ON ul USING bloofi (f) WITH (leaf_capacity = 7);
CREATE INDEX ON ul USING bloofi (f) WITH (leaf_capacity = 70000);
CREATE INDEX ON ul USING bloofi (f) WITH (fanout = 4);
CREATE INDEX ON ul USING bloofi (f) WITH (fastupdate = maybe);
CREATE INDEX ul_f64 ON ul USING bloofi (f) WITH (order = 64);
SELECT "order", leaf_capacity FROM bloofi_stats('ul_f64');
CREATE INDEX ul_f100 ON ul USING bloofi (f) WITH (order = 3, leaf_capacity = 100);
SELECT "order", leaf_capacity FROM bloofi_stats('ul_f100');

-- dense filters (an OR of a few is nearly all ones): the no-split rule keeps
-- one wide bit-sliced bottom node instead of a tree that would prune nothing
CREATE TABLE dense (id int, f bloomfilter);
INSERT INTO dense SELECT i, bloom_from_array(ARRAY(SELECT 1000 * i + j FROM generate_series(1, 40) j)::bigint[], 256, 4)
FROM generate_series(1, 300) i;
CREATE INDEX dense_f ON dense USING bloofi (f);
SELECT height, bottom_nodes, inner_nodes, leaves, root_fill > 0.99 AS saturated FROM bloofi_stats('dense_f');
INSERT INTO dense SELECT i, bloom_from_array(ARRAY(SELECT 1000 * i + j FROM generate_series(1, 40) j)::bigint[], 256, 4)
FROM generate_series(301, 1000) i;
VACUUM dense;
SELECT height, bottom_nodes, leaves FROM bloofi_stats('dense_f');
SELECT bloofi_check('dense_f');
SET enable_seqscan = off;
SELECT count(*) FROM dense WHERE f @> 500010::bigint;
RESET enable_seqscan;
SELECT count(*) FROM dense WHERE bloom_contains(f, 500010::bigint);
-- leaf_capacity bounds the growth: full wide nodes split (in halves) instead,
-- at build and on inserts (fastupdate off: one leaf at a time)
CREATE INDEX dense_f64 ON dense USING bloofi (f) WITH (leaf_capacity = 64, fastupdate = off);
SELECT bottom_nodes >= 1000 / 64 AS bounded, leaves FROM bloofi_stats('dense_f64');
INSERT INTO dense SELECT i, bloom_from_array(ARRAY(SELECT 1000 * i + j FROM generate_series(1, 40) j)::bigint[], 256, 4)
FROM generate_series(1001, 1300) i;
SELECT bottom_nodes >= 1300 / 64 AS bounded, leaves, retired_nodes > 0 AS split FROM bloofi_stats('dense_f64');
SELECT bloofi_check('dense_f64');
DROP INDEX dense_f;
SET enable_seqscan = off;
SELECT count(*) FROM dense WHERE f @> 1200010::bigint;
RESET enable_seqscan;
SELECT count(*) FROM dense WHERE bloom_contains(f, 1200010::bigint);
DROP TABLE dense;

-- errors
INSERT INTO ul VALUES (bloom_empty(128, 2));
INSERT INTO ul VALUES (bloom_empty(64, 2, 9));
CREATE TABLE notbloom (x int);
CREATE INDEX ON notbloom USING bloofi (x);
CREATE INDEX ON bt USING bloofi (f, f);
CREATE UNIQUE INDEX ON bt USING bloofi (f);
SELECT bloofi_check('bt_pkey');
SELECT * FROM bloofi_stats('bt');
SELECT * FROM bloofi_probe('bt_pkey', 1::bigint);
SELECT bloofi_check(0);
SELECT * FROM bloofi_probe('bt_f', NULL::bigint);

-- filters whose parameters differ from the index's fail the build too
CREATE TABLE mixed (f bloomfilter);
INSERT INTO mixed VALUES (bloom_empty(64, 2)), (bloom_empty(64, 3));
CREATE INDEX ON mixed USING bloofi (f);

DROP TABLE bt, bt_common, big, ul, notbloom, mixed;
DROP FUNCTION bt_compare(), bt_results(boolean);
