-- | and & on sparse values without expanding them (merge of positions,
-- sparse positions tested in dense bits): every crossing of forms against
-- the dense oracle (the same sets written with bloomsample.filter_storage =
-- dense), in an m where unions of sparse values stay sparse, and the form of
-- each result (the smaller one, as for every new value).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;
CREATE CAST (bloomfilter AS bytea) WITHOUT FUNCTION;
CREATE CAST (bytea AS bloomfilter) WITHOUT FUNCTION;
CREATE FUNCTION form(f bloomfilter) RETURNS text LANGUAGE sql IMMUTABLE AS
$$ SELECT CASE get_byte(f::bytea, 3) & 1 WHEN 0 THEN 'dense' WHEN 1 THEN 'sparse' ELSE '?' END $$;
CREATE FUNCTION try(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

SELECT setseed(0.7);
CREATE TABLE so AS
SELECT i, ARRAY(SELECT (random() * 1000000)::bigint FROM generate_series(1, n)) AS a
FROM (SELECT i, (ARRAY[0, 1, 3, 40, 300, 1500, 6000])[1 + i % 7] AS n
      FROM generate_series(0, 20) i) s;
ALTER TABLE so ADD fa bloomfilter, ADD fd bloomfilter;
UPDATE so SET fa = bloom_from_array(a, 60000, 3);
SET bloomsample.filter_storage = dense;
UPDATE so SET fd = bloom_from_array(a, 60000, 3);
RESET bloomsample.filter_storage;
SELECT form(fa), form(fd), count(*) FROM so GROUP BY 1, 2 ORDER BY 1, 2;

-- every pair, every crossing: sparse|sparse, sparse|dense, dense|sparse
-- equal the dense oracle bit for bit, and take the smaller form
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE (x.fa | y.fa)::text = o.u AND (x.fa | y.fd)::text = o.u
                        AND (x.fd | y.fa)::text = o.u) AS or_same,
       count(*) FILTER (WHERE (x.fa & y.fa)::text = o.i AND (x.fa & y.fd)::text = o.i
                        AND (x.fd & y.fa)::text = o.i) AS and_same,
       count(*) FILTER (WHERE form(x.fa | y.fa) = o.uform AND form(x.fa | y.fd) = o.uform
                        AND form(x.fd | y.fa) = o.uform AND form(x.fa & y.fa) = o.iform
                        AND form(x.fa & y.fd) = o.iform AND form(x.fd & y.fa) = o.iform) AS smaller_form,
       count(*) FILTER (WHERE o.uform = 'sparse') AS sparse_unions,
       count(*) FILTER (WHERE o.iform = 'sparse') AS sparse_intersections,
       count(*) FILTER (WHERE bloom_popcount(x.fa | y.fa) = bloom_popcount(x.fd | y.fd)
                        AND bloom_popcount(x.fa & y.fd) = bloom_popcount(x.fd & y.fd)) AS popcount_same
FROM so x, so y,
     LATERAL (SELECT (x.fd | y.fd)::text AS u, (x.fd & y.fd)::text AS i,
                     form(x.fd | y.fd) AS uform, form(x.fd & y.fd) AS iform) o;
-- the same under filter_storage = dense: every result is dense, bit for bit
SET bloomsample.filter_storage = dense;
SELECT count(*) FILTER (WHERE form(x.fa | y.fa) = 'dense' AND form(x.fa & y.fa) = 'dense'
                        AND form(x.fa & y.fd) = 'dense' AND (x.fa | y.fa) = (x.fd | y.fd)
                        AND (x.fa & y.fd) = (x.fd & y.fd)) = count(*) AS dense_setting
FROM so x, so y;
RESET bloomsample.filter_storage;
-- random mixed-form folds: OR and AND of 8 random rows, forms mixed at random
SELECT count(*) AS trials, count(*) FILTER (WHERE ok) AS equal
FROM (SELECT t, bloom_union_agg(CASE WHEN random() < 0.5 THEN fa ELSE fd END) = bloom_union_agg(fd)
                AND bloom_intersect_agg(CASE WHEN random() < 0.5 THEN fa ELSE fd END) = bloom_intersect_agg(fd) AS ok
      FROM generate_series(1, 30) t, LATERAL (SELECT * FROM so ORDER BY random() LIMIT 8) r
      GROUP BY t) s;

-- corrupted sparse values on either side of | and &, against a sparse and a
-- dense partner: a clear error (SQLSTATE XX001), never a bad read
-- ({42} in m = 64: see type_storage.sql; 'out of order' and 'extra high bit'
-- pass the length checks and are found by the decode)
SELECT name, try(format('SELECT %L::bytea::bloomfilter | bloom_from_array(ARRAY[7], 64, 3)', b)) AS or_sparse,
       try(format('SELECT bloom_from_array(ARRAY[7], 64, 3) & %L::bytea::bloomfilter', b)) AS and_sparse,
       try(format($q$SELECT %L::bytea::bloomfilter & bloom_from_array(ARRAY(SELECT generate_series(1, 40)), 64, 3)$q$, b)) AS and_dense,
       try(format($q$SELECT bloom_union_agg(f) FROM (VALUES (bloom_empty(64, 3)), (%L::bytea::bloomfilter)) v(f)$q$, b)) AS union_agg
FROM (VALUES
  ('valid', '\x0100030100000000400000000300000004680f2a'::bytea),
  ('out of order', '\x0100030100000000400000000300000004680f26'),
  ('extra high bit', '\x0100030100000000400000000300000004680f2b'),
  ('one byte short', '\x0100030100000000400000000300000004680f')) v(name, b);

-- BloomSampleTree reads a sparse query as its positions: a corrupted one is
-- the same clear error, the valid one samples and reconstructs {42}
SELECT bst_create('tso', 0, 1000, 64, 3);
SELECT name, try(format('SELECT bst_sample(%L, %L::bytea::bloomfilter, 1)', 'tso', b)) AS sample,
       try(format('SELECT bst_reconstruct(%L, %L::bytea::bloomfilter)', 'tso', b)) AS reconstruct
FROM (VALUES
  ('valid', '\x0100030100000000400000000300000004680f2a'::bytea),
  ('out of order', '\x0100030100000000400000000300000004680f26'),
  ('extra high bit', '\x0100030100000000400000000300000004680f2b')) v(name, b);
-- (the valid value is sparse: {42} written in the sparse form by hand; the
-- writer stores it dense, the tie's form)
SELECT array_agg(x ORDER BY x) = ARRAY(SELECT bloom_dictionary_attack(bloom_from_array(ARRAY[42], 64, 3), 0, 1000))
         AS reconstruct_is_dictionary_attack,
       count(*) > 0 AS some_ids
FROM bst_reconstruct('tso', '\x0100030100000000400000000300000004680f2a'::bytea::bloomfilter) x;
SELECT bst_drop('tso');

DROP TABLE so;
DROP FUNCTION form(bloomfilter);
DROP FUNCTION try(text);
DROP CAST (bloomfilter AS bytea);
DROP CAST (bytea AS bloomfilter);
