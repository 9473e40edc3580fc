-- Shared setup of the Bloofi regression files bloofi_build, bloofi_dml and
-- bloofi_plans, included by each with
--   \getenv abs_srcdir PG_ABS_SRCDIR
--   \set bloofi_bt :abs_srcdir '/sql/include/bloofi_bt.sql'
--   \i :bloofi_bt
-- (pg_regress sets PG_ABS_SRCDIR to its --inputdir; the statements are
-- echoed into each file's output).  It makes the table bt and its Bloofi
-- index bt_f, which the including file drops.
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
