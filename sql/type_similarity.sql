-- Similarity search (issue 37): f && q (filters sharing a set bit) and its
-- GIN operator class (bloomfilter_bits_ops: the keys are the set positions,
-- bloom_positions(f)) find the filters sharing a bit with a query, which
-- are all the filters of estimated similarity above 0.  Oracles: the bits of
-- the text form, popcount(f & q) over a sequential scan, and the ranking of
-- the whole table.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;
SELECT setseed(0.42);
CREATE TABLE sim (id int PRIMARY KEY, f bloomfilter);
-- 400 sets in 40 groups: most ids from the group's 60, a few from anywhere
INSERT INTO sim
SELECT g, bloom_from_array(ARRAY(SELECT CASE WHEN random() < 0.8 THEN (g % 40) * 60 + floor(random() * 60)::bigint
                                            ELSE floor(random() * 100000)::bigint END
                                 FROM generate_series(1, 1 + (g * 7919) % 90)), 4096, 3)
FROM generate_series(1, 400) g;
-- an empty filter, a dense one, a full one
INSERT INTO sim VALUES
  (401, bloom_empty(4096, 3)),
  (402, bloom_from_array(ARRAY(SELECT generate_series(1, 800)::bigint), 4096, 3)),
  (403, bloom_from_array(ARRAY(SELECT generate_series(1, 20000)::bigint), 4096, 3));
-- sparse filters (stored sparse) and dense ones
SELECT count(*) FILTER (WHERE bloom_fill_ratio(f) < 0.1) AS sparse_ones,
       count(*) FILTER (WHERE bloom_fill_ratio(f) > 0.3) AS dense_ones
FROM sim;

-- positions: ascending set bits, equal to the bits of the text form
SELECT count(*) AS filters,
       count(*) FILTER (WHERE bloom_positions(f) =
                        ARRAY(SELECT p FROM generate_series(0, 4095) p
                              WHERE get_bit(decode(split_part(f::text, ':', 2), 'hex'), p) = 1)) AS equal_to_text_bits,
       count(*) FILTER (WHERE cardinality(bloom_positions(f)) = bloom_popcount(f)) AS popcount_many
FROM sim;
SELECT bloom_positions(bloom_empty(64, 3)) = '{}' AS empty, bloom_positions(NULL::bloomfilter) IS NULL AS null_in,
       bloom_positions(bloom_from_array(ARRAY[1, 2, 3]::bigint[], 64, 3)) AS small;

-- the property that makes the search exact: no common bit, similarity 0
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE bloom_popcount(bloom_intersect(a.f, b.f)) = 0) AS disjoint,
       count(*) FILTER (WHERE bloom_popcount(bloom_intersect(a.f, b.f)) = 0
                        AND (bloom_jaccard(a.f, b.f) <> 0 OR bloom_intersection_cardinality(a.f, b.f) <> 0)) AS disjoint_but_similar
FROM sim a, sim b WHERE a.id < b.id;

-- && without an index: the same rows as popcount(f & q) > 0, both ways round
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE (a.f && b.f) = (bloom_popcount(bloom_intersect(a.f, b.f)) > 0)
                        AND (a.f && b.f) = (b.f && a.f)) AS same_answer
FROM sim a, sim b WHERE a.id % 7 = 0;

-- through the GIN index: the rows sharing a bit, for every query row
CREATE INDEX sim_bits ON sim USING gin (f);
ANALYZE sim;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF)
SELECT s.id FROM sim s, (SELECT f AS q FROM sim WHERE id = 7) q WHERE s.f && q.q;
CREATE TEMP TABLE by_index AS
SELECT q.id AS qid, array_agg(s.id ORDER BY s.id) AS ids
FROM sim q JOIN sim s ON s.f && q.f GROUP BY q.id;
RESET enable_seqscan;
SET enable_bitmapscan = off;
SET enable_indexscan = off;
CREATE TEMP TABLE by_scan AS
SELECT q.id AS qid, array_agg(s.id ORDER BY s.id) AS ids
FROM sim q JOIN sim s ON bloom_popcount(bloom_intersect(s.f, q.f)) > 0 GROUP BY q.id;
RESET enable_bitmapscan;
RESET enable_indexscan;
SELECT (SELECT count(*) FROM by_scan) AS queries_with_candidates,
       (SELECT count(*) FROM by_index i JOIN by_scan s USING (qid) WHERE i.ids = s.ids) AS same_rows,
       (SELECT count(*) FROM by_index) AS index_queries;

-- the 10 most similar by bloom_jaccard: through the index, as the whole ranking
-- gives them (the rows of similarity above 0; ties by id)
SET enable_seqscan = off;
CREATE TEMP TABLE top_index AS
SELECT q.id AS qid, ARRAY(SELECT s.id FROM sim s
                          WHERE s.f && q.f AND s.id <> q.id
                          ORDER BY bloom_jaccard(s.f, q.f) DESC, s.id LIMIT 10) AS ids
FROM sim q;
RESET enable_seqscan;
CREATE TEMP TABLE top_all AS
SELECT q.id AS qid, ARRAY(SELECT s.id FROM sim s WHERE s.id <> q.id AND bloom_jaccard(s.f, q.f) > 0
                          ORDER BY bloom_jaccard(s.f, q.f) DESC, s.id LIMIT 10) AS ids
FROM sim q;
SELECT count(*) AS queries, count(*) FILTER (WHERE a.ids = i.ids[1:cardinality(a.ids)]) AS same_top,
       count(*) FILTER (WHERE cardinality(a.ids) = 10) AS with_ten_similar
FROM top_all a JOIN top_index i USING (qid);
-- the index after updates and deletes; an empty query matches nothing
UPDATE sim SET f = bloom_add(f, 424242) WHERE id % 5 = 0;
DELETE FROM sim WHERE id % 11 = 0;
SET enable_seqscan = off;
SELECT (SELECT array_agg(id ORDER BY id) FROM sim WHERE f && (SELECT f FROM sim WHERE id = 10))
     = (SELECT array_agg(id ORDER BY id) FROM sim WHERE bloom_popcount(bloom_intersect(f, (SELECT f FROM sim WHERE id = 10))) > 0)
       AS same_after_updates,
       (SELECT count(*) FROM sim WHERE f && bloom_empty(4096, 3)) AS empty_query;
-- a filter of other parameters: an error, through the index as in a scan
INSERT INTO sim VALUES (500, bloom_from_array(ARRAY[1, 2, 3]::bigint[], 2048, 3));
SELECT count(*) FROM sim WHERE f && (SELECT f FROM sim WHERE id = 10);
RESET enable_seqscan;
SELECT count(*) FROM sim WHERE f && (SELECT f FROM sim WHERE id = 10);
DROP TABLE sim;

-- a query of more than 16,384 set bits: the index returns every row, each
-- rechecked (the same rows as a scan)
CREATE TABLE wide (id int PRIMARY KEY, f bloomfilter);
INSERT INTO wide SELECT g, bloom_from_array(ARRAY(SELECT g * 1000 + generate_series(1, 1 + g % 40)::bigint), 65536, 3)
FROM generate_series(1, 200) g;
INSERT INTO wide VALUES (0, bloom_from_array(ARRAY(SELECT generate_series(1, 7000)::bigint * 7), 65536, 3));
CREATE INDEX wide_bits ON wide USING gin (f);
SELECT bloom_popcount(f) > 16384 AS many_bits FROM wide WHERE id = 0;
SET enable_seqscan = off;
CREATE TEMP TABLE wide_index AS SELECT id FROM wide WHERE f && (SELECT f FROM wide WHERE id = 0);
RESET enable_seqscan;
SELECT count(*) AS rows_found,
       count(*) = (SELECT count(*) FROM wide WHERE bloom_popcount(bloom_intersect(f, (SELECT f FROM wide WHERE id = 0))) > 0) AS same_count,
       bool_and(id IN (SELECT id FROM wide WHERE bloom_popcount(bloom_intersect(f, (SELECT f FROM wide WHERE id = 0))) > 0)) AS same_rows
FROM wide_index;
DROP TABLE wide;

-- a sparse query stored out of line (decoded once for the scan) against
-- sparse rows, by the operator alone and through the index
CREATE TABLE tall (id int PRIMARY KEY, f bloomfilter);
INSERT INTO tall SELECT g, bloom_from_array(ARRAY(SELECT (g * 37 + i * 1009) % 5000::bigint FROM generate_series(1, 1 + g % 9) i), 433039, 3)
FROM generate_series(1, 300) g;
-- (over 8 kB: the column's storage is main, so a smaller value stays in line)
INSERT INTO tall VALUES (0, bloom_from_array(ARRAY(SELECT generate_series(1, 4000)::bigint), 433039, 3));
SELECT (SELECT pg_relation_size(reltoastrelid) > 0 FROM pg_class WHERE relname = 'tall') AS out_of_line,
       bloom_fill_ratio(f) < 0.05 AS sparse FROM tall WHERE id = 0;
SELECT count(*) FILTER (WHERE f && (SELECT f FROM tall WHERE id = 0)) AS sharing,
       count(*) FILTER (WHERE (f && (SELECT f FROM tall WHERE id = 0))
                        = (bloom_popcount(bloom_intersect(f, (SELECT f FROM tall WHERE id = 0))) > 0)) AS same_answer
FROM tall;
-- the pair estimates against it (decoded and counted once) equal those
-- against a fresh copy of it (not cached: its positions merged with each
-- row's), the query on either side
SELECT count(*) AS estimated,
       count(*) FILTER (WHERE bloom_jaccard(f, (SELECT f FROM tall WHERE id = 0))
                              = bloom_jaccard(f, (SELECT bloom_union(f, f) FROM tall WHERE id = 0))
                          AND bloom_intersection_cardinality((SELECT f FROM tall WHERE id = 0), f)
                              = bloom_intersection_cardinality((SELECT bloom_union(f, f) FROM tall WHERE id = 0), f)
                          AND bloom_union_cardinality(f, (SELECT f FROM tall WHERE id = 0))
                              = bloom_union_cardinality(f, (SELECT bloom_union(f, f) FROM tall WHERE id = 0))) AS same_estimate
FROM tall WHERE id > 0;
CREATE INDEX tall_bits ON tall USING gin (f);
SET enable_seqscan = off;
SELECT count(*) AS sharing_through_index FROM tall WHERE f && (SELECT f FROM tall WHERE id = 0);
RESET enable_seqscan;
DROP TABLE tall;
