-- BloomSampleTree: reconstruction against the dictionary attack, HashInvert,
-- pruned trees and bst_extend, chi-squared uniformity of samples, persistence
-- catalog, and every bad-input error (README.md, Reference > Errors).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;
SET bloomsample.bst_random_seed = 12345;

-- the paper's sizing (Tables 2 and 3: n = 1000, accuracy 0.9, k = 3)
SELECT m BETWEEN 60800 AND 60940 AS m_1e6_ok, expected_fp > 0 AS fp_ok,
       nodes = (2::bigint << depth) - 1 AS nodes_ok
FROM bst_plan(1000, 1000000, 0.9);
SELECT m BETWEEN 132800 AND 133070 AS m_1e7_ok,
       abs(1000 / (1000 + (1e7 - 1000) * expected_fp) - 0.9) < 0.001 AS accuracy_ok,
       memory_bytes <= 160 * 1024 * 1024 AS fits
FROM bst_plan(1000, 10000000, 0.9);

-- query sets over [1000, 21000): uniform and clustered (paper, section 7.1)
CREATE TEMP TABLE sets AS
SELECT 'uniform' AS kind, x FROM (
    SELECT x FROM generate_series(1000, 20999) x ORDER BY md5(x::text) LIMIT 200) u
UNION ALL
SELECT 'clustered', x FROM bst_clustered_ids(200, 1000, 21000, 0.1, 42) x;
SELECT kind, count(*), count(DISTINCT x), min(x) >= 1000 AND max(x) < 21000 AS in_range
FROM sets GROUP BY kind ORDER BY kind;
-- clustered sets have much smaller gaps than uniform ones
SELECT kind, percentile_cont(0.5) WITHIN GROUP (ORDER BY gap) < 20 AS small_median_gap
FROM (SELECT kind, x - lag(x) OVER (PARTITION BY kind ORDER BY x) AS gap FROM sets) g
WHERE gap IS NOT NULL GROUP BY kind ORDER BY kind;

-- full trees: xxh3 (planned leaf size) and linear (explicit leaf size)
SELECT bst_create('u_xxh3', 1000, 21000, 4000, 3, 7);
SELECT bst_create('u_lin', 1000, 21000, 4000, 3, 7, 'linear', 500);
SELECT name, kind, namespace_lo, namespace_hi, m, k, seed, hash, leaf_size, depth, ids
FROM bst_trees ORDER BY name;
SELECT tree_name, kind, depth, leaf_size, nodes = 2 * leaves - 1 AS complete, ids,
       memory_bytes > nodes * 500 AS memory_reported
FROM bst_info('u_lin');

CREATE TEMP TABLE q AS
SELECT s.kind, h.hash, bloom_agg(s.x, 4000, 3, 7, h.hash) AS q
FROM sets s, (VALUES ('xxh3'), ('linear')) h(hash) GROUP BY s.kind, h.hash;

-- reconstruction = dictionary attack, ascending, and contains the set
SELECT q.kind, q.hash,
       (SELECT array_agg(x) FROM bst_reconstruct(CASE q.hash WHEN 'xxh3' THEN 'u_xxh3' ELSE 'u_lin' END, q.q) x)
     = (SELECT array_agg(x ORDER BY x) FROM bloom_dictionary_attack(q.q, 1000, 21000) x) AS equals_da,
       (SELECT count(*) FROM bst_reconstruct(CASE q.hash WHEN 'xxh3' THEN 'u_xxh3' ELSE 'u_lin' END, q.q)) >= 200 AS has_all,
       NOT EXISTS (SELECT x FROM sets s WHERE s.kind = q.kind
                   EXCEPT SELECT x FROM bst_reconstruct(CASE q.hash WHEN 'xxh3' THEN 'u_xxh3' ELSE 'u_lin' END, q.q) x) AS no_false_negative
FROM q ORDER BY 1, 2;
-- the same with the tree walk instead of the index
SET bloomsample.bst_reconstruct_method = 'tree';
SELECT q.kind, q.hash,
       (SELECT array_agg(x) FROM bst_reconstruct(CASE q.hash WHEN 'xxh3' THEN 'u_xxh3' ELSE 'u_lin' END, q.q) x)
     = (SELECT array_agg(x ORDER BY x) FROM bloom_dictionary_attack(q.q, 1000, 21000) x) AS tree_equals_da
FROM q ORDER BY 1, 2;
RESET bloomsample.bst_reconstruct_method;
-- HashInvert = dictionary attack (linear family)
SELECT q.kind,
       (SELECT array_agg(x) FROM bloom_hashinvert(q.q, 1000, 21000) x)
     = (SELECT array_agg(x ORDER BY x) FROM bloom_dictionary_attack(q.q, 1000, 21000) x) AS hi_equals_da,
       (SELECT array_agg(x) FROM bloom_hashinvert(q.q, -50000, 50000) x)
     = (SELECT array_agg(x ORDER BY x) FROM bloom_dictionary_attack(q.q, -50000, 50000) x) AS hi_wide_equals_da
FROM q WHERE q.hash = 'linear' ORDER BY 1;
-- dense filter: HashInvert inverts the unset bits
WITH d AS (SELECT bloom_agg(x, 1000, 2, 3, 'linear') AS q FROM generate_series(0, 2999) x)
SELECT (SELECT array_agg(x) FROM d, bloom_hashinvert(d.q, 0, 5000) x)
     = (SELECT array_agg(x ORDER BY x) FROM d, bloom_dictionary_attack(d.q, 0, 5000) x) AS dense_hi_equals_da;

-- work counters: the index examines a small part of the namespace
SELECT q.kind, s.memberships < 20000 / 4 AS fewer_than_quarter, s.intersections = 0 AS no_intersections
FROM q, bst_reconstruct_stats('u_xxh3', q.q) s WHERE q.hash = 'xxh3' ORDER BY 1;
SET bloomsample.bst_sample_method = 'descent';
SELECT q.kind, s.intersections > 0 AS intersects, s.nodes_visited > 0 AS visits
FROM q, bst_sample_stats('u_xxh3', q.q, 10) s WHERE q.hash = 'xxh3' ORDER BY 1;
RESET bloomsample.bst_sample_method;

-- samples are positives; n = 0 gives nothing; an empty filter gives nothing
SELECT bool_and(x IN (SELECT bloom_dictionary_attack(q.q, 1000, 21000))) AS all_positive, count(*)
FROM q, bst_sample('u_xxh3', q.q, 50) x WHERE q.kind = 'uniform' AND q.hash = 'xxh3';
SELECT count(*) FROM q, bst_sample('u_xxh3', q.q, 0) WHERE q.hash = 'xxh3';
SELECT count(*) FROM bst_sample('u_xxh3', bloom_empty(4000, 3, 7), 10);
SELECT count(*) FROM bst_reconstruct('u_xxh3', bloom_empty(4000, 3, 7));
SELECT count(*), count(DISTINCT x) > 1 AS varied
FROM q, bloom_dictionary_sample(q.q, 1000, 21000, 100) x WHERE q.kind = 'uniform' AND q.hash = 'xxh3';

-- chi-squared uniformity (paper, Table 5): T = 130 |positives| samples,
-- Q = sum (o - e)^2 / e against the critical value at p = 0.001
-- (Wilson-Hilferty), for both sampling methods and the baseline
CREATE TEMP TABLE chi AS
WITH pos AS (SELECT q.kind, x FROM q, bst_reconstruct('u_xxh3', q.q) x WHERE q.hash = 'xxh3')
SELECT kind, count(*) AS npos FROM pos GROUP BY kind;
CREATE FUNCTION pg_temp.chi2(tree text, qf bloomfilter, npos bigint) RETURNS TABLE(q float8, crit float8, all_members boolean)
LANGUAGE sql AS $$
  WITH s AS (SELECT x FROM bst_sample(tree, qf, (130 * npos)::int) x),
       pos AS (SELECT x FROM bst_reconstruct(tree, qf) x),
       o AS (SELECT p.x, count(s.x) AS o FROM pos p LEFT JOIN s USING (x) GROUP BY p.x)
  SELECT sum((o - 130.0) ^ 2 / 130.0),
         (npos - 1) * (1 - 2.0 / (9 * (npos - 1)) + 3.09 * sqrt(2.0 / (9 * (npos - 1)))) ^ 3,
         (SELECT count(*) FROM s) = 130 * npos AND NOT EXISTS (SELECT x FROM s EXCEPT SELECT x FROM pos)
  FROM o
$$;
SET bloomsample.bst_sample_method = 'descent';
SELECT c.kind, r.q < r.crit AS uniform_descent, r.all_members
FROM chi c JOIN q ON q.kind = c.kind AND q.hash = 'xxh3', pg_temp.chi2('u_xxh3', q.q, c.npos) r ORDER BY 1;
SET bloomsample.bst_sample_method = 'enumerate';
SELECT c.kind, r.q < r.crit AS uniform_enumerate, r.all_members
FROM chi c JOIN q ON q.kind = c.kind AND q.hash = 'xxh3', pg_temp.chi2('u_xxh3', q.q, c.npos) r ORDER BY 1;
RESET bloomsample.bst_sample_method;
-- larger sets: ~100 and ~1000 positives in a namespace of 10^5
SELECT bst_create('chi_1e5', 0, 100000, 40000, 3);
CREATE TEMP TABLE q2 AS
SELECT n, bloom_agg(x, 40000, 3) AS q
FROM (VALUES (100), (1000)) v(n),
     LATERAL (SELECT x FROM generate_series(0, 99999) x ORDER BY md5((x * n)::text) LIMIT n) s
GROUP BY n;
SET bloomsample.bst_sample_method = 'descent';
SELECT n, r.q < r.crit AS uniform_descent, r.all_members
FROM q2, LATERAL (SELECT count(*) AS npos FROM bst_reconstruct('chi_1e5', q2.q)) p,
     pg_temp.chi2('chi_1e5', q2.q, p.npos) r ORDER BY 1;
RESET bloomsample.bst_sample_method;
SELECT n, r.q < r.crit AS uniform_auto, r.all_members
FROM q2, LATERAL (SELECT count(*) AS npos FROM bst_reconstruct('chi_1e5', q2.q)) p,
     pg_temp.chi2('chi_1e5', q2.q, p.npos) r ORDER BY 1;
-- a backend keeps at most bst_memory_limit of trees: with room for one tree
-- at a time, alternating trees are dropped and rebuilt, answers unchanged
SET bloomsample.bst_memory_limit = '10MB';
SELECT i, (SELECT array_agg(x) FROM q2, bst_reconstruct('chi_1e5', q2.q) x WHERE q2.n = 100 AND i > 0)
        = (SELECT array_agg(x ORDER BY x) FROM q2, bloom_dictionary_attack(q2.q, 0, 100000) x WHERE q2.n = 100) AS big_ok,
          (SELECT array_agg(x) FROM q, bst_reconstruct('u_xxh3', q.q) x WHERE q.kind = 'uniform' AND q.hash = 'xxh3' AND i > 0)
        = (SELECT array_agg(x ORDER BY x) FROM q, bloom_dictionary_attack(q.q, 1000, 21000) x WHERE q.kind = 'uniform' AND q.hash = 'xxh3') AS small_ok
FROM generate_series(1, 2) i;
RESET bloomsample.bst_memory_limit;

-- ~10000 positives (T = 1.3 million samples), default method
SELECT bst_create('chi_1e4', 0, 100000, 200000, 3);
CREATE TEMP TABLE q3 AS
SELECT bloom_agg(x, 200000, 3) AS q
FROM (SELECT x FROM generate_series(0, 99999) x ORDER BY md5((x * 7)::text) LIMIT 10000) s;
SELECT p.npos BETWEEN 10000 AND 11000 AS about_10000, r.q < r.crit AS uniform_auto, r.all_members
FROM q3, LATERAL (SELECT count(*) AS npos FROM bst_reconstruct('chi_1e4', q3.q)) p,
     pg_temp.chi2('chi_1e4', q3.q, p.npos) r;
SELECT bst_drop('chi_1e4');

-- pruned trees over sparse ids, and bst_extend
CREATE TEMP TABLE occ AS
SELECT DISTINCT (c * 1000003 % 2000000000) + o AS id
FROM generate_series(1, 20) c, generate_series(0, 999) o
UNION SELECT (x * 7919 % 2147483647)::bigint FROM generate_series(1, 3000) x;
SELECT bst_create_pruned('sparse', 'SELECT id FROM occ WHERE id % 2 = 0', 30011, 3, 1);
SELECT kind, ids = (SELECT count(*) FROM occ WHERE id % 2 = 0) AS ids_ok FROM bst_trees WHERE name = 'sparse';
CREATE TEMP TABLE pq AS
SELECT bloom_agg(id, 30011, 3, 1) AS q FROM (SELECT id FROM occ ORDER BY md5(id::text) LIMIT 300) s;
-- reconstruction = dictionary attack over the occupied ids
SELECT (SELECT array_agg(x) FROM pq, bst_reconstruct('sparse', pq.q) x)
     = (SELECT array_agg(id ORDER BY id) FROM occ, pq WHERE id % 2 = 0 AND pq.q @> id) AS pruned_equals_da;
SELECT bst_extend('sparse', ARRAY(SELECT id FROM occ WHERE id % 2 = 1)) = (SELECT count(*) FROM occ WHERE id % 2 = 1) AS all_new;
SELECT bst_extend('sparse', ARRAY[4611686018427387904, 4611686018427387905, 4611686018427387904]) AS beyond_root;
SELECT bst_extend('sparse', ARRAY(SELECT id FROM occ LIMIT 10)) AS nothing_new;
SELECT (SELECT array_agg(x) FROM pq, bst_reconstruct('sparse', pq.q) x)
     = (SELECT array_agg(id ORDER BY id) FROM (SELECT id FROM occ UNION SELECT 4611686018427387904 UNION SELECT 4611686018427387905) o, pq
        WHERE pq.q @> o.id) AS extended_equals_da;
SELECT tree_name, kind, ids, leaves > 0 AS has_leaves FROM bst_info('sparse');
SET bloomsample.bst_sample_method = 'descent';
SELECT bool_and(pq.q @> x) AS samples_are_members, count(*) FROM pq, bst_sample('sparse', pq.q, 200) x;
RESET bloomsample.bst_sample_method;
-- an empty pruned tree, extended
SELECT bst_create_pruned('empty', 'SELECT 1::bigint WHERE false', 1024, 2);
SELECT count(*) FROM bst_reconstruct('empty', bloom_from_array(ARRAY[1,2,3]::bigint[], 1024, 2));
SELECT bst_extend('empty', ARRAY[1, 2, 3, 99]::bigint[]);
SELECT array_agg(x) FROM bst_reconstruct('empty', bloom_from_array(ARRAY[1,2,3]::bigint[], 1024, 2)) x;

-- ---------------------------------------------------------------------------
-- bad input
-- ---------------------------------------------------------------------------
\set VERBOSITY default
\set SHOW_CONTEXT never
-- unknown tree
SELECT * FROM bst_sample('nope', bloom_empty(4000, 3, 7));
SELECT * FROM bst_reconstruct('nope', bloom_empty(4000, 3, 7));
SELECT * FROM bst_info('nope');
SELECT bst_drop('nope');
SELECT bst_extend('nope', ARRAY[1]::bigint[]);
-- query filter with other parameters
SELECT * FROM bst_reconstruct('u_xxh3', bloom_empty(4001, 3, 7));
SELECT * FROM bst_sample('u_xxh3', bloom_empty(4000, 2, 7));
SELECT * FROM bst_sample('u_xxh3', bloom_empty(4000, 3, 8));
SELECT * FROM bst_sample('u_xxh3', bloom_empty(4000, 3, 7, 'linear'));
-- empty or reversed namespace
SELECT bst_create('bad', 10, 10, 4000, 3);
SELECT bst_create('bad', 10, 5, 4000, 3);
SELECT * FROM bloom_dictionary_attack(bloom_empty(64, 3), 5, 1);
SELECT * FROM bloom_dictionary_sample(bloom_empty(64, 3), 5, 5);
SELECT * FROM bloom_hashinvert(bloom_empty(64, 3, 0, 'linear'), 9, 1);
-- bad parameters
SELECT bst_create('bad', 0, 100, 4, 3);
SELECT bst_create('bad', 0, 100, 64, 40);
SELECT bst_create('bad', 0, 100, 64, 3, 0, 'md5');
SELECT bst_create('bad', 0, 100, 64, 3, 0, 'xxh3', 0);
SELECT bst_create('bad', 0, 100, 64, 3, 0, 'xxh3', 101);
SELECT bst_create('', 0, 100, 64, 3);
-- names over 1,000 bytes are refused up front (SQLSTATE 42622; the catalog's
-- primary key could not hold one of ~2,700 bytes); 1,000 bytes work
\set VERBOSITY sqlstate
SELECT bst_create(repeat('n', 1001), 0, 100, 64, 3);
SELECT bst_create(repeat('n', 2800), 0, 100, 64, 3);
SELECT bst_create_pruned(repeat('n', 1001), 'SELECT 1::bigint', 64, 3);
SELECT * FROM bst_reconstruct(repeat('n', 1001), bloom_empty(64, 3));
SELECT * FROM bst_sample(repeat('n', 1001), bloom_empty(64, 3));
SELECT * FROM bst_reconstruct_stats(repeat('n', 1001), bloom_empty(64, 3));
SELECT * FROM bst_info(repeat('n', 1001));
\set VERBOSITY default
SELECT bst_create(repeat('é', 501), 0, 100, 64, 3);
SELECT bst_create(repeat('n', 1000), 0, 100, 64, 3);
SELECT name = repeat('n', 1000) AS kept, namespace_hi FROM bst_tree_catalog WHERE length(name) >= 1000;
SELECT array(SELECT bst_reconstruct(repeat('n', 1000), q)) = array(SELECT bloom_dictionary_attack(q, 0, 100)) AS same
FROM bloom_from_array(ARRAY[5, 7]::bigint[], 64, 3) q;
SELECT bst_drop(repeat('n', 1000));
SELECT * FROM bst_plan(1000, 1000000, 1.0);
SELECT * FROM bst_plan(1000, 1000, 0.9);
-- too large for memory: error with the estimated size, nothing created
SET bloomsample.bst_memory_limit = '1MB';
SELECT bst_create('huge', 0, 100000000, 2000000, 3, 0, 'xxh3', 1000);
SELECT bst_create('huge', 0, 10000000000, 2000000, 3);
RESET bloomsample.bst_memory_limit;
SELECT count(*) FROM bst_trees WHERE name IN ('bad', 'huge', '');
-- source_query: not one bigint column, negatives, NULLs, not a query
SELECT bst_create_pruned('bad', 'SELECT 1::bigint, 2::bigint', 1024, 3);
SELECT bst_create_pruned('bad', 'SELECT 1::integer', 1024, 3);
SELECT bst_create_pruned('bad', 'SELECT x::bigint FROM generate_series(-1, 5) x', 1024, 3);
SELECT bst_create_pruned('bad', 'SELECT NULL::bigint', 1024, 3);
SELECT bst_create_pruned('bad', 'CREATE TABLE zz(a int)', 1024, 3);
SELECT bst_create_pruned('bad', 'SELECT nonsense', 1024, 3);
SELECT bst_extend('sparse', ARRAY[-5]::bigint[]);
SELECT bst_extend('sparse', ARRAY[5, NULL]::bigint[]);
SELECT bst_extend('u_xxh3', ARRAY[5]::bigint[]);
-- extending beyond the memory limit: refused before allocating, tree unchanged
SET bloomsample.bst_memory_limit = '1MB';
SELECT bst_extend('sparse', ARRAY(SELECT x * 1000003 FROM generate_series(1, 2000) x));
RESET bloomsample.bst_memory_limit;
SELECT ids FROM bst_trees WHERE name = 'sparse';
-- n < 0 or absurdly large
SELECT * FROM q, bst_sample('u_xxh3', q.q, -1) WHERE q.kind = 'uniform' AND q.hash = 'xxh3';
SELECT * FROM q, bst_sample('u_xxh3', q.q, 2000000000) WHERE q.kind = 'uniform' AND q.hash = 'xxh3';
SELECT * FROM bloom_dictionary_sample(bloom_empty(64, 3), 0, 10, -3);
-- HashInvert needs the linear family
SELECT * FROM bloom_hashinvert(bloom_empty(64, 3), 0, 10);
-- creating a tree that exists
SELECT bst_create('u_xxh3', 1000, 21000, 4000, 3, 7);
SELECT bst_create_pruned('sparse', 'SELECT 1::bigint', 1024, 3);
SELECT count(*) FROM bst_trees WHERE name = 'bad';
-- statement_timeout cancels a long dictionary attack
SET statement_timeout = '200ms';
SELECT count(*) FROM bloom_dictionary_attack(bloom_empty(64, 3), 0, 1000000000000);
RESET statement_timeout;

-- drop
SELECT bst_drop('u_lin');
SELECT bst_drop('empty');
SELECT name FROM bst_trees ORDER BY name;
SELECT count(*) FROM bst_tree_ids WHERE name = 'empty';
SELECT * FROM bst_info('u_lin');
