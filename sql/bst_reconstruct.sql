-- BloomSampleTree: bst_reconstruct (index and tree walk) and HashInvert equal
-- the dictionary attack and hold the set.
-- the extension, the query sets and the trees u_xxh3 and u_lin (sql/include/bst_trees.sql)
\getenv abs_srcdir PG_ABS_SRCDIR
\set bst_trees :abs_srcdir '/sql/include/bst_trees.sql'
\i :bst_trees

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

-- the trees are dropped: every bst_* file starts from none
SELECT bst_drop('u_xxh3'), bst_drop('u_lin');
