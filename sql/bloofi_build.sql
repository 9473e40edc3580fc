-- Bloofi index: the build.  amvalidate; a built index answers as a
-- sequential scan does, for every element type; the tree's shape (order,
-- similarity ordering, the no-split rule for dense filters); filters larger
-- than a page; empty and unlogged indexes.  (Plans: bloofi_plans; inserts,
-- deletes and VACUUM: bloofi_dml, bloofi_vacuum; errors: bloofi_errors.)
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

-- the table bt and its index bt_f (sql/include/bloofi_bt.sql)
\getenv abs_srcdir PG_ABS_SRCDIR
\set bloofi_bt :abs_srcdir '/sql/include/bloofi_bt.sql'
\i :bloofi_bt
SELECT bloofi_check('bt_f');
-- a tree of order 4: bottom nodes of d + 1 = 5 leaves (as a split leaves
-- them), inner nodes of 4..8 children, and one wide root over the first
-- level whose values are all saturated (no-split rule, section 3.4)
SELECT height, nodes, leaves, inner_nodes, bottom_nodes, "order", m, k FROM bloofi_stats('bt_f');

-- probe tables and bt_compare (sql/include/bloofi_probes.sql)
\set bloofi_probes :abs_srcdir '/sql/include/bloofi_probes.sql'
\i :bloofi_probes

-- counts are of true members plus a few false positives (m = 1024, k = 5)
SELECT kind, via_index >= CASE kind WHEN 'bigint' THEN 3900 ELSE 880 END AS enough_matches, via_index = via_seqscan AS same_count,
       only_index, only_seqscan FROM bt_compare();

-- filters larger than a page (the paper's m = 100,992 bits, k = 7)
CREATE TABLE big (id int, f bloomfilter);
INSERT INTO big
SELECT i, bloom_from_array(ARRAY(SELECT 100 * i + j FROM generate_series(0, 99) j)::bigint[], 100992, 7)
FROM generate_series(1, 300) i;
CREATE INDEX big_f ON big USING bloofi (f) WITH (order = 2);   -- the paper's d
-- (the paper's insert, one leaf into the tree at a time; with fastupdate on
-- these filters would wait in the pending list: sql/bloofi_wide_pending.sql)
ALTER INDEX big_f SET (fastupdate = off);
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

DROP TABLE bt, big, ul;
DROP FUNCTION bt_compare(), bt_results(boolean);
