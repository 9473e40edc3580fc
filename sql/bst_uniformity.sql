-- BloomSampleTree: samples are uniform over the positives (chi-squared, paper
-- Table 5) for every sampling method, and stay so when bst_memory_limit
-- makes the backend drop and rebuild trees.
-- the extension, the query sets and the trees u_xxh3 and u_lin (sql/include/bst_trees.sql)
\getenv abs_srcdir PG_ABS_SRCDIR
\set bst_trees :abs_srcdir '/sql/include/bst_trees.sql'
\i :bst_trees

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

-- the trees are dropped: every bst_* file starts from none
SELECT bst_drop('u_xxh3'), bst_drop('u_lin'), bst_drop('chi_1e5');
