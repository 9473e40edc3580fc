-- The query shapes applications send (issue 10), each planned with a bloofi index on
-- TOASTed filters and on in-line ones: a literal, $1 in a prepared statement's generic
-- plan, an InitPlan, LATERAL, a batch join, EXISTS, the function form, the commuted
-- operator, every element type; a sequential scan when every row matches.  The
-- answers through the index equal a sequential scan's.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;

-- 2,000 filters (m = 19,171, k = 13) of 300 elements, plus an element every row holds,
-- and text, bytea and uuid elements of their own, in the default stored form: sparse
-- (1.9 kB, in line; 2.4 kB dense and TOASTed before 1.2: planner_stats keeps a TOASTed
-- column)
CREATE TABLE pt (id int, f bloomfilter);
-- out of line as the type's storage before 1.2 put them (1.2's default is main)
ALTER TABLE pt ALTER f SET STORAGE EXTENDED;
INSERT INTO pt
SELECT i, bloom_add(bloom_add(bloom_add(
          bloom_from_array(ARRAY(SELECT i::bigint * 300 + j FROM generate_series(0, 299) j)
                           || ARRAY[-1::bigint], 19171, 13),
          't' || i), decode(md5(i::text), 'hex')), md5(i::text)::uuid)
FROM generate_series(1, 2000) i;
CREATE INDEX pt_f ON pt USING bloofi (f);
ANALYZE pt;
SELECT toasted_fraction FROM bloom_column_stats('pt', 'f');

CREATE TABLE probes (pid int, e bigint, t text);
INSERT INTO probes SELECT p, (p * 17 % 2000 + 1)::bigint * 300 + p % 300, 't' || (p * 17 % 2000 + 1)
FROM generate_series(1, 100) p;
ANALYZE probes;

-- a literal
EXPLAIN (COSTS OFF) SELECT id FROM pt WHERE f @> 123456::bigint;
SELECT id FROM pt WHERE f @> 123456::bigint;
-- every element type, and the commuted operator
EXPLAIN (COSTS OFF) SELECT id FROM pt WHERE f @> 't77'::text;
EXPLAIN (COSTS OFF) SELECT id FROM pt WHERE f @> decode(md5('77'), 'hex');
EXPLAIN (COSTS OFF) SELECT id FROM pt WHERE f @> md5('77')::uuid;
EXPLAIN (COSTS OFF) SELECT id FROM pt WHERE 123456::bigint <@ f;
SELECT (SELECT id FROM pt WHERE f @> 't77'::text), (SELECT id FROM pt WHERE f @> decode(md5('77'), 'hex')),
       (SELECT id FROM pt WHERE f @> md5('77')::uuid), (SELECT id FROM pt WHERE 123456::bigint <@ f);
-- the function form is an index condition too
EXPLAIN (COSTS OFF) SELECT id FROM pt WHERE bloom_contains(f, 123456::bigint);
EXPLAIN (COSTS OFF) SELECT id FROM pt WHERE bloom_contained('t77'::text, f);
SELECT id FROM pt WHERE bloom_contains(f, 123456::bigint);

-- $1: the custom plans, then the generic plan, keep the index
PREPARE lookup(bigint) AS SELECT id FROM pt WHERE f @> $1;
EXPLAIN (COSTS OFF) EXECUTE lookup(123456);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE lookup(123456);
EXECUTE lookup(123456);
RESET plan_cache_mode;
-- left to itself, the plan cache switches to the generic plan after five custom ones
-- (the generic plan is costed no higher than the custom ones) when the statistics
-- estimate the custom plans
SET bloomsample.plan_probe = off;
EXECUTE lookup(300);
EXECUTE lookup(600);
EXECUTE lookup(900);
EXECUTE lookup(1200);
EXECUTE lookup(1500);
EXPLAIN (COSTS OFF) EXECUTE lookup(1800);
SELECT generic_plans >= 1 AS went_generic FROM pg_prepared_statements WHERE name = 'lookup';
DEALLOCATE lookup;
RESET bloomsample.plan_probe;
-- with the index probe (the default, issue 36) each custom plan counts its element's
-- one row; the statistics' estimate of an element nothing is known of (3 rows) would
-- cost the generic plan above them and keep custom plans, planning each execution,
-- but the five probes' mean (1 row) estimates it: the plan cache goes generic
PREPARE lookup(bigint) AS SELECT id FROM pt WHERE f @> $1;
EXECUTE lookup(300);
EXECUTE lookup(600);
EXECUTE lookup(900);
EXECUTE lookup(1200);
EXECUTE lookup(1500);
EXECUTE lookup(1800);
SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'lookup';
DEALLOCATE lookup;
PREPARE lookup_text(text) AS SELECT id FROM pt WHERE f @> $1;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE lookup_text('t77');
RESET plan_cache_mode;
DEALLOCATE lookup_text;

-- an InitPlan
EXPLAIN (COSTS OFF) SELECT id FROM pt WHERE f @> (SELECT e FROM probes WHERE pid = 7);
SELECT id FROM pt WHERE f @> (SELECT e FROM probes WHERE pid = 7);

-- a batch join: one parameterized index scan per probe
EXPLAIN (COSTS OFF) SELECT p.pid, pt.id FROM probes p JOIN pt ON pt.f @> p.e;
EXPLAIN (COSTS OFF) SELECT p.pid, pt.id FROM probes p JOIN pt ON p.t <@ pt.f;
-- LATERAL, and EXISTS
EXPLAIN (COSTS OFF) SELECT p.pid, s.id FROM probes p, LATERAL (SELECT id FROM pt WHERE pt.f @> p.e LIMIT 5) s;
EXPLAIN (COSTS OFF) SELECT p.pid FROM probes p WHERE EXISTS (SELECT FROM pt WHERE pt.f @> p.e);
-- the answers equal a sequential scan's (and every probe matches its own row)
CREATE TEMP TABLE via_index AS SELECT p.pid, pt.id FROM probes p JOIN pt ON pt.f @> p.e;
SET enable_bitmapscan = off;
SET enable_indexscan = off;
CREATE TEMP TABLE via_seqscan AS SELECT p.pid, pt.id FROM probes p JOIN pt ON pt.f @> p.e;
RESET enable_bitmapscan;
RESET enable_indexscan;
SELECT (SELECT count(*) FROM via_index) AS index_rows,
       (SELECT count(*) FROM (SELECT * FROM via_index EXCEPT SELECT * FROM via_seqscan) a) +
       (SELECT count(*) FROM (SELECT * FROM via_seqscan EXCEPT SELECT * FROM via_index) b) AS differ,
       (SELECT count(*) FROM probes p WHERE NOT EXISTS
          (SELECT FROM via_index v JOIN pt ON pt.id = v.id
           WHERE v.pid = p.pid AND pt.id = p.e / 300)) AS probes_missing_their_row;

-- an element every row holds: a sequential scan
EXPLAIN (COSTS OFF) SELECT count(*) FROM pt WHERE f @> (-1)::bigint;
SELECT count(*) FROM pt WHERE f @> (-1)::bigint;

-- small filters (m = 1,024, k = 4: 144 bytes dense, sparse in the default form): the
-- same shapes
CREATE TABLE pi (id int, f bloomfilter);
INSERT INTO pi SELECT i, bloom_from_array(ARRAY(SELECT i::bigint * 10 + j FROM generate_series(0, 9) j)
                                          || ARRAY[-1::bigint], 1024, 4)
FROM generate_series(1, 20000) i;
CREATE INDEX pi_f ON pi USING bloofi (f);
ANALYZE pi;
SELECT toasted_fraction FROM bloom_column_stats('pi', 'f');
EXPLAIN (COSTS OFF) SELECT id FROM pi WHERE f @> 12345::bigint;
PREPARE lookup_inline(bigint) AS SELECT id FROM pi WHERE f @> $1;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE lookup_inline(12345);
EXECUTE lookup_inline(12345);
RESET plan_cache_mode;
DEALLOCATE lookup_inline;
EXPLAIN (COSTS OFF) SELECT id FROM pi WHERE f @> (SELECT e FROM probes WHERE pid = 7);
EXPLAIN (COSTS OFF) SELECT p.pid, pi.id FROM probes p JOIN pi ON pi.f @> p.e;
EXPLAIN (COSTS OFF) SELECT count(*) FROM pi WHERE f @> (-1)::bigint;

DROP TABLE pt, pi, probes;
