-- BloomSampleTree: the automatic method choice (issue 37).  bst_reconstruct
-- and bst_sample use the index or test every id ('scan'), whichever the cost
-- model says is cheaper; every way gives exactly the dictionary attack's set,
-- on both sides of the crossover (a sparse filter: the index; a filter 70%
-- full: the scan), for a full and a pruned tree, and the scan's samples are
-- uniform (chi-squared, as in bst_uniformity).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;
SET bloomsample.bst_random_seed = 4711;
SELECT bst_create('meth', 0, 100000, 20000, 3);
SELECT bst_create_pruned('methp', 'SELECT x::bigint * 7 FROM generate_series(0, 29999) x', 20000, 3);
-- sparse (50 members, fill ~0.7%) and dense (8000 members, fill ~70%) filters
CREATE TEMP TABLE qm AS
SELECT t.tree, d.density, bloom_agg(x, 20000, 3) AS q
FROM (VALUES ('meth', 1, 100000), ('methp', 7, 210000)) t(tree, step, hi),
     (VALUES ('sparse', 50), ('dense', 8000)) d(density, n),
     LATERAL (SELECT x * t.step AS x FROM generate_series(0, t.hi / t.step - 1) x
              ORDER BY md5(x::text) LIMIT d.n) s
GROUP BY t.tree, d.density;
SELECT tree, density, round(bloom_fill_ratio(q)::numeric, 2) AS fill FROM qm ORDER BY 1, 2;
-- the oracle: the dictionary attack over the tree's ids
CREATE TEMP TABLE oracle AS
SELECT tree, density, array_agg(x ORDER BY x) AS ids
FROM qm, bloom_dictionary_attack(q, 0, 210000) x
WHERE qm.tree = 'meth' AND x < 100000 OR qm.tree = 'methp' AND x % 7 = 0
GROUP BY tree, density;

-- which way auto takes: the scan examines every id (memberships = ids of the tree)
SELECT qm.tree, qm.density, s.memberships = b.ids AS scanned
FROM qm, bst_reconstruct_stats(qm.tree, qm.q) s,
     LATERAL (SELECT ids FROM bst_info(qm.tree)) b
ORDER BY 1, 2;
-- every method gives the dictionary attack's set
SELECT m.meth, qm.tree, qm.density,
       (SELECT array_agg(x) FROM bst_reconstruct(qm.tree, qm.q) x) = o.ids AS exact
FROM (VALUES ('auto'), ('index'), ('tree'), ('scan')) m(meth),
     LATERAL set_config('bloomsample.bst_reconstruct_method', m.meth, false) c,
     qm JOIN oracle o USING (tree, density)
ORDER BY 1, 2, 3;
RESET bloomsample.bst_reconstruct_method;

-- sampling: a few samples always from the index; 10^5 from the dense filter
-- by the scan (the trials would exceed an eighth of the candidates); all members
SELECT qm.tree, qm.density, n, s.memberships >= b.ids AS scanned
FROM qm, (VALUES (10), (100000)) v(n), bst_sample_stats(qm.tree, qm.q, n) s,
     LATERAL (SELECT ids FROM bst_info(qm.tree)) b
ORDER BY 1, 2, 3;
CREATE TEMP TABLE omem AS SELECT tree, density, unnest(ids) AS x FROM oracle;
SELECT qm.tree, qm.density, count(*) AS samples, count(m.x) = count(*) AS all_members
FROM qm CROSS JOIN LATERAL bst_sample(qm.tree, qm.q, 100000) s(x)
     LEFT JOIN omem m ON m.tree = qm.tree AND m.density = qm.density AND m.x = s.x
GROUP BY 1, 2 ORDER BY 1, 2;

-- the scan's samples are uniform: T = 130 |positives| samples of the sparse
-- filter in one call, chi-squared against the critical value at p = 0.001
CREATE FUNCTION pg_temp.uniform(tree text, qf bloomfilter, pos bigint[]) RETURNS boolean
LANGUAGE sql AS $$
  WITH s AS (SELECT x FROM bst_sample(tree, qf, 130 * cardinality(pos)) x),
       o AS (SELECT p.x, count(s.x) AS o FROM unnest(pos) p(x) LEFT JOIN s USING (x) GROUP BY p.x)
  SELECT sum((o - 130.0) ^ 2 / 130.0)
           < (n - 1) * (1 - 2.0 / (9 * (n - 1)) + 3.09 * sqrt(2.0 / (9 * (n - 1)))) ^ 3
         AND (SELECT count(*) FROM s) = 130 * n
         AND NOT EXISTS (SELECT x FROM s EXCEPT SELECT unnest(pos))
  FROM o, (SELECT cardinality(pos) AS n) c GROUP BY n
$$;
SET bloomsample.bst_sample_method = 'scan';
SELECT tree, cardinality(o.ids) > 40 AS enough, pg_temp.uniform(tree, qm.q, o.ids) AS uniform_scan
FROM qm JOIN oracle o USING (tree, density)
WHERE density = 'sparse' ORDER BY 1;
RESET bloomsample.bst_sample_method;

SELECT bst_drop('meth'), bst_drop('methp');
