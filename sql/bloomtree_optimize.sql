-- bloomtree_optimize: the fronts of the parameter search (order,
-- non-domination, constraints, a configuration that measures as predicted) and
-- its errors with their SQLSTATEs.
-- the extension and pg_temp.err(q), the SQLSTATE and message of a statement
-- that must fail (sql/include/err.sql)
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/err.sql

-- ---- parameter search ------------------------------------------------------------
-- d = 2 is searched exhaustively: the front is sorted by the objective's rate, no
-- configuration of it is dominated by another, every one has the root of rho1 * n_max
-- bits and the lower filters inside C2; the measured-rate figure is never below the
-- paper's posterior (a geometric mean of the same per-query probabilities)
CREATE TABLE bt_front AS SELECT row_number() OVER () AS i, * FROM bloomtree_optimize(3000, 2);
SELECT count(*) > 10 AS long_front,
       bool_and(m[1] = 3000 AND m[2] BETWEEN 2 AND 8 AND k[1] BETWEEN 1 AND 8 AND k[2] BETWEEN 1 AND 4) AS inside,
       bool_and(storage_bits = 3000 + 3000 * m[2]) AS storage,
       bool_and(expected_fp >= fp_rate) AS expected_above_posterior,
       bool_and(sbf_bits > 0 AND compressed_bits > 0) AS sizes
FROM bt_front;
SELECT count(*) AS out_of_order FROM bt_front a JOIN bt_front b ON b.i = a.i + 1 WHERE b.expected_fp < a.expected_fp;
SELECT count(*) AS dominated FROM bt_front a, bt_front b
WHERE a.i <> b.i AND b.expected_fp <= a.expected_fp AND b.compressed_bits <= a.compressed_bits
  AND (b.expected_fp < a.expected_fp OR b.compressed_bits < a.compressed_bits);
-- the paper's objective gives another front, sorted by the posterior
SELECT count(*) FILTER (WHERE b.fp_rate < a.fp_rate) AS out_of_order_posterior
FROM (SELECT row_number() OVER () AS i, * FROM bloomtree_optimize(3000, 2, 0.5, 'posterior')) a
JOIN (SELECT row_number() OVER () AS i, * FROM bloomtree_optimize(3000, 2, 0.5, 'posterior')) b ON b.i = a.i + 1;
-- a configuration of the front builds a tree whose measured rate is near the predicted one
SELECT abs(measured / expected_fp - 1) < 0.15 AS front_config_measures_as_predicted
FROM (SELECT f.expected_fp,
             (SELECT count(*) FILTER (WHERE t @> x)::float8 / 50000
              FROM (SELECT bloomtree_agg(g, f.m, f.k) t FROM generate_series(1, 3000) g) s,
                   generate_series(1000001, 1050000) x) AS measured
      FROM bt_front f WHERE f.expected_fp BETWEEN 0.02 AND 0.2 ORDER BY f.i LIMIT 1) s;
SELECT pg_temp.err($$SELECT * FROM bloomtree_optimize(0, 2)$$);
SELECT pg_temp.err($$SELECT * FROM bloomtree_optimize(1000, 0)$$);
SELECT pg_temp.err($$SELECT * FROM bloomtree_optimize(1000, 2, 0)$$);
SELECT pg_temp.err($$SELECT * FROM bloomtree_optimize(1000, 2, 'NaN')$$);
SELECT pg_temp.err($$SELECT * FROM bloomtree_optimize(1000, 2, 1, 'geometric')$$);
SELECT pg_temp.err($$SELECT * FROM bloomtree_optimize(2000000000, 1, 2)$$);
SELECT count(*) AS nothing_fits FROM bloomtree_optimize(1000, 4, 200);
