-- BloomSampleTree: distinct samples (issue 37).  bst_sample_distinct(t, q, n)
-- returns min(n, P) distinct members of the P ids the tree reports for q,
-- uniform among the subsets of that size: 10^4 draws of n = 10 from a
-- 23-member filter, checked against the dictionary attack's set (every draw
-- distinct members) and by chi-squared tests over members and pairs.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;
SET bloomsample.bst_random_seed = 3737;
SELECT bst_create('dist', 0, 200000, 40000, 3);
CREATE TEMP TABLE f23 AS
SELECT bloom_agg(x, 40000, 3) AS q
FROM (SELECT x FROM generate_series(0, 199999) x ORDER BY md5(x::text) LIMIT 23) s;
-- the members as the tree sees them: the dictionary attack's set (the oracle)
CREATE TEMP TABLE mem AS SELECT x FROM f23, bloom_dictionary_attack(q, 0, 200000) x;
SELECT count(*) AS members FROM mem;

-- 10^4 draws of n = 10 by the default method (the index: repeats rejected)
CREATE TEMP TABLE draws AS
SELECT d, x FROM generate_series(1, 10000) d, f23, bst_sample_distinct('dist', f23.q, 10 + 0 * d) x;
-- chi-squared over the members (o ~ Binomial(T, n/P): each term divided by
-- 1 - n/P) and over the pairs (likewise with the pair's probability), against
-- the critical value at p = 0.001 (Wilson-Hilferty)
CREATE FUNCTION pg_temp.crit(df float8) RETURNS float8 LANGUAGE sql AS
$$ SELECT df * (1 - 2.0 / (9 * df) + 3.09 * sqrt(2.0 / (9 * df))) ^ 3 $$;
CREATE FUNCTION pg_temp.check_draws(n int) RETURNS TABLE(draws bigint, all_distinct_members boolean,
    members_uniform boolean, pairs_uniform boolean)
LANGUAGE sql AS $$
  WITH p AS (SELECT count(*)::float8 AS p FROM mem),
       per AS (SELECT d, count(*) AS c, count(DISTINCT x) AS cd,
                      bool_and(x IN (SELECT x FROM mem)) AS members
               FROM draws GROUP BY d),
       o AS (SELECT m.x, count(dr.x) AS o FROM mem m LEFT JOIN draws dr USING (x) GROUP BY m.x),
       pairs AS (SELECT a.x AS a, b.x AS b FROM mem a, mem b WHERE a.x < b.x),
       o2 AS (SELECT pr.a, pr.b, count(j.d) AS o
              FROM pairs pr LEFT JOIN (SELECT a.d, a.x AS a, b.x AS b FROM draws a JOIN draws b
                                       ON a.d = b.d AND a.x < b.x) j
                ON j.a = pr.a AND j.b = pr.b
              GROUP BY pr.a, pr.b),
       e AS (SELECT (SELECT count(*) FROM per) * n / p AS e1, n / p AS p1,
                    (SELECT count(*) FROM per) * n * (n - 1) / (p * (p - 1)) AS e2,
                    n * (n - 1) / (p * (p - 1)) AS p2, p FROM p)
  SELECT (SELECT count(*) FROM per),
         (SELECT bool_and(c = n AND cd = n AND members) FROM per),
         (SELECT sum((o - e1) ^ 2 / (e1 * (1 - p1))) FROM o) < pg_temp.crit(p - 1),
         (SELECT sum((o - e2) ^ 2 / (e2 * (1 - p2))) FROM o2) < pg_temp.crit(p * (p - 1) / 2 - 1)
  FROM e
$$;

SELECT * FROM pg_temp.check_draws(10);
-- 500 draws of n = 10 by each other method: n distinct members every time
DROP TABLE draws;
CREATE TEMP TABLE draws (method text, d int, x bigint);
DO $$
DECLARE meth text;
BEGIN
  FOREACH meth IN ARRAY ARRAY['enumerate', 'scan', 'descent'] LOOP
    PERFORM set_config('bloomsample.bst_sample_method', meth, true);
    INSERT INTO draws SELECT meth, d, x
    FROM generate_series(1, 500) d, f23, bst_sample_distinct('dist', f23.q, 10 + 0 * d) x;
  END LOOP;
END $$;
SELECT method, count(DISTINCT d) AS draws,
       bool_and(c = 10 AND cd = 10) AND bool_and(members) AS all_distinct_members
FROM (SELECT method, d, count(*) AS c, count(DISTINCT x) AS cd,
             bool_and(x IN (SELECT x FROM mem)) AS members
      FROM draws GROUP BY method, d) s
GROUP BY method ORDER BY method;

-- n beyond the members: all of them, once each, whatever the method
SELECT m.meth, (SELECT array_agg(x ORDER BY x) FROM f23, bst_sample_distinct('dist', f23.q, 30) x)
             = (SELECT array_agg(x ORDER BY x) FROM mem) AS all_members
FROM (VALUES ('auto'), ('enumerate'), ('scan'), ('descent')) m(meth),
     LATERAL set_config('bloomsample.bst_sample_method', m.meth, false) s
ORDER BY 1;
RESET bloomsample.bst_sample_method;

-- n = 0 and an empty filter give nothing; the same seed, the same draws
SELECT count(*) FROM f23, bst_sample_distinct('dist', f23.q, 0);
SELECT count(*) FROM bst_sample_distinct('dist', bloom_empty(40000, 3), 10);
SET bloomsample.bst_random_seed = 5;
CREATE TEMP TABLE s1 AS SELECT array_agg(x) AS a FROM f23, bst_sample_distinct('dist', f23.q, 10) x;
SET bloomsample.bst_random_seed = 5;
SELECT a = (SELECT array_agg(x) FROM f23, bst_sample_distinct('dist', f23.q, 10) x) AS same_draws FROM s1;
-- bst_sample keeps its three-argument form (with replacement)
SELECT count(*) FROM f23, bst_sample('dist', f23.q, 100);
SELECT memberships > 0 AS worked FROM f23, bst_sample_distinct_stats('dist', f23.q, 10);
-- errors: a negative n, a query filter of other parameters
SELECT bst_sample_distinct('dist', f23.q, -1) FROM f23;
SELECT bst_sample_distinct('dist', bloom_empty(4000, 3), 1);

SELECT bst_drop('dist');
