-- bloomfilter storage forms: dense (the bits, the only form before 1.2) and
-- sparse (the set positions, Elias-Fano coded: src/core/bs_sparse.h).  A new
-- value takes the smaller form; both are one logical value.  The oracle is
-- the dense form that bloomsample.filter_storage = dense writes, which is
-- byte for byte the form 1.1 wrote (checked against values captured from
-- 1.1 below).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;

-- raw access to the stored bytes, for this test only
CREATE CAST (bloomfilter AS bytea) WITHOUT FUNCTION;
CREATE CAST (bytea AS bloomfilter) WITHOUT FUNCTION;
CREATE FUNCTION form(f bloomfilter) RETURNS text LANGUAGE sql AS $$
  SELECT CASE get_byte(f::bytea, 3) & 1 WHEN 0 THEN 'dense' WHEN 1 THEN 'sparse' END $$;
CREATE FUNCTION try(q text, detail boolean DEFAULT false) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  d text;
BEGIN
  EXECUTE q;
  RETURN 'ok';
EXCEPTION WHEN others THEN
  GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
  RETURN SQLSTATE || CASE WHEN detail THEN ': ' || SQLERRM || ' ' || d ELSE '' END;
END $$;

-- the form follows the size: sparse while the positions take fewer bytes
-- than the bits (a fill under about a fifth), dense above; and from 64 kB of
-- bits, dense once the sparse form would take over 0.527 of them (over about
-- 10% full: pglz leaves such a dense value uncompressed, probed by slices)
SELECT m, n, form(f), pg_column_size(f) AS bytes, 16 + 8 * ((m + 63) / 64) AS dense_bytes,
       round(bloom_fill_ratio(f)::numeric, 3) AS fill
FROM (VALUES (64, 0), (64, 1), (64, 5), (1024, 0), (1024, 2), (1024, 50), (1024, 80),
             (1024, 300), (132933, 1000), (132933, 12000), (132933, 40000),
             (1048576, 25000), (1048576, 36000), (1048576, 50000)) v(m, n),
     LATERAL (SELECT bloom_from_array(ARRAY(SELECT generate_series(1, n)::bigint), m, 3) AS f) s;

-- ---- values written by bloomsample 1.1 ---------------------------------
-- captured from the 1.1 code: bloom_from_array(ARRAY[1, 2, 3, 42], 64, 3) and
-- bloom_from_array(ARRAY(SELECT generate_series(1, 5)), 1024, 3), as raw bytes
CREATE TABLE v11 (name text, f bloomfilter, elems bigint[], m int);
INSERT INTO v11 VALUES
  ('m64', '\x0100030000000000400000000020804540810086'::bytea::bloomfilter, '{1,2,3,42}', 64),
  ('m1024', '\x010003000000000000040000000000100000000000000000000000000040000000000000000000400000000000000000000000000000000000000800000004000a000000000000008010000000000000000000000020000000000000400000000000000000000000000001000000000000000000000000000000000000020001040000000000000000000000'::bytea::bloomfilter,
   '{1,2,3,4,5}', 1024);
SELECT name, form(f), f = n AS equal, f::text = n::text AS same_text,
       bloomfilter_hash(f) = bloomfilter_hash(n) AS same_hash,
       bloomfilter_send(f) = bloomfilter_send(n) AS same_binary, form(n) AS new_form,
       bloom_popcount(f) = bloom_popcount(n) AS same_popcount,
       (SELECT bool_and(f @> e) FROM unnest(elems) e) AS members,
       form(bloom_add(f, 7)) AS form_after_add, bloom_add(f, 7) = bloom_add(n, 7) AS add_equal,
       bloom_union(f, n) = n AND bloom_intersect(n, f) = f AS union_intersect
FROM v11, LATERAL (SELECT bloom_from_array(elems, m, 3) AS n) s ORDER BY name;
-- the dense setting writes exactly the bytes of 1.1
SET bloomsample.filter_storage = dense;
SELECT name, bloom_from_array(elems, m, 3)::bytea = f::bytea AS same_bytes_as_1_1,
       form(bloom_from_array(elems, m, 3)) FROM v11 ORDER BY name;
RESET bloomsample.filter_storage;
SHOW bloomsample.filter_storage;

-- ---- both forms of the same sets, against the dense oracle ---------------
SELECT setseed(0.2);
CREATE TABLE fs AS
SELECT i, ARRAY(SELECT (random() * 100000)::bigint FROM generate_series(1, n)) AS a
FROM (SELECT i, (ARRAY[0, 1, 2, 5, 20, 60, 150, 400, 700])[1 + i % 9] AS n
      FROM generate_series(0, 44) i) s;
ALTER TABLE fs ADD fa bloomfilter, ADD fd bloomfilter;
UPDATE fs SET fa = bloom_from_array(a, 1024, 3);
SET bloomsample.filter_storage = dense;
UPDATE fs SET fd = bloom_from_array(a, 1024, 3);
RESET bloomsample.filter_storage;
SELECT form(fa), form(fd), count(*) FROM fs GROUP BY 1, 2 ORDER BY 1, 2;

-- one logical value: =, text, hash, binary send, popcount and estimates
SELECT count(*) AS rows, count(*) FILTER (WHERE fa = fd AND NOT fa <> fd) AS equal,
       count(*) FILTER (WHERE fa::text = fd::text) AS same_text,
       count(*) FILTER (WHERE bloomfilter_hash(fa) = bloomfilter_hash(fd)) AS same_hash,
       count(*) FILTER (WHERE bloomfilter_send(fa) = bloomfilter_send(fd)) AS same_binary,
       count(*) FILTER (WHERE bloom_popcount(fa) = bloom_popcount(fd)
                        AND bloom_cardinality(fa) = bloom_cardinality(fd)
                        AND bloom_fill_ratio(fa) = bloom_fill_ratio(fd)
                        AND bloom_fp_rate(fa) = bloom_fp_rate(fd)) AS same_estimates,
       count(*) FILTER (WHERE bloom_m(fa) = 1024 AND bloom_k(fa) = 3 AND bloom_seed(fa) = 0
                        AND bloom_hash(fa) = 'xxh3') AS same_parameters
FROM fs;
-- grouping and hash joins see one value per set, whatever the form
SELECT (SELECT count(*) FROM (SELECT fa FROM fs GROUP BY fa) g) AS groups_fa,
       (SELECT count(*) FROM (SELECT fd FROM fs GROUP BY fd) g) AS groups_fd,
       (SELECT count(*) FROM (SELECT fa AS f FROM fs UNION SELECT fd FROM fs) u) AS groups_both,
       (SELECT count(DISTINCT fd::text) FROM fs) AS oracle;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SELECT (SELECT count(*) FROM fs x JOIN fs y ON x.fa = y.fd) AS hash_join_matches,
       (SELECT count(*) FROM fs x JOIN fs y ON x.fd::text = y.fd::text) AS oracle;
RESET enable_mergejoin;
RESET enable_nestloop;

-- membership: the same answers in both forms, no false negative
SELECT count(*) AS probes, count(*) FILTER (WHERE (fa @> x) = (fd @> x)
                                            AND (x <@ fa) = (x <@ fd)) AS same,
       count(*) FILTER (WHERE x = ANY(a) AND NOT fa @> x) AS false_negatives,
       -- a text is read as the integer in fa, which records its element types;
       -- fd (dense: the 1.1 bytes, no types) reads it both ways, never losing it
       count(*) FILTER (WHERE (fa @> x::text) <> (fa @> x)) AS text_not_int,
       count(*) FILTER (WHERE fa @> x::text AND NOT fd @> x::text) AS text_lost
FROM fs, generate_series(0, 100000, 50) x;
SELECT count(*) FILTER (WHERE fa @> x) = count(*) AS all_members FROM fs, unnest(a) x;

-- every pair of rows, every mix of forms: union, intersection and the pair
-- estimates equal the dense oracle's
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE bloom_union(x.fa, y.fa)::text = o.u AND bloom_union(x.fa, y.fd)::text = o.u
                        AND bloom_union(x.fd, y.fa)::text = o.u) AS union_same,
       count(*) FILTER (WHERE bloom_intersect(x.fa, y.fa)::text = o.i AND bloom_intersect(x.fa, y.fd)::text = o.i
                        AND bloom_intersect(x.fd, y.fa)::text = o.i) AS intersect_same,
       count(*) FILTER (WHERE (x.fa = y.fa) = o.eq AND (x.fa = y.fd) = o.eq AND (x.fd = y.fa) = o.eq) AS eq_same,
       count(*) FILTER (WHERE bloom_intersection_cardinality(x.fa, y.fa) IS NOT DISTINCT FROM o.ic
                        AND bloom_intersection_cardinality(x.fa, y.fd) IS NOT DISTINCT FROM o.ic
                        AND bloom_intersection_cardinality(x.fd, y.fa) IS NOT DISTINCT FROM o.ic
                        AND bloom_union_cardinality(x.fa, y.fd) IS NOT DISTINCT FROM o.uc
                        AND bloom_union_cardinality(x.fa, y.fa) IS NOT DISTINCT FROM o.uc
                        AND bloom_jaccard(x.fa, y.fa) IS NOT DISTINCT FROM o.j
                        AND bloom_jaccard(x.fd, y.fa) IS NOT DISTINCT FROM o.j) AS estimates_same,
       count(*) FILTER (WHERE pg_column_size(bloom_union(x.fa, y.fa)) <= 16 + 128
                        AND pg_column_size(bloom_intersect(x.fa, y.fa)) <= 16 + 128) AS never_larger
FROM fs x, fs y,
     LATERAL (SELECT bloom_union(x.fd, y.fd)::text AS u, bloom_intersect(x.fd, y.fd)::text AS i,
                     x.fd = y.fd AS eq, bloom_intersection_cardinality(x.fd, y.fd) AS ic,
                     bloom_union_cardinality(x.fd, y.fd) AS uc, bloom_jaccard(x.fd, y.fd) AS j) o;

-- results take the smaller form: a union of sparse values turns dense when full
SELECT form(bloom_union_agg(fa)) AS all_rows, form(bloom_intersect_agg(fa)) AS intersection,
       form(bloom_union_agg(fa) FILTER (WHERE i % 9 < 4)) AS small_rows FROM fs;

-- add, fold, text round trip
SELECT count(*) FILTER (WHERE bloom_add(fa, 77)::text = bloom_add(fd, 77)::text
                        AND bloom_add(fa, 'x'::text)::text = bloom_add(fd, 'x'::text)::text) AS add_same,
       count(*) FILTER (WHERE bloom_fold(fa, 2)::text = bloom_fold(fd, 2)::text
                        AND bloom_fold(fa, 8)::text = bloom_fold(fd, 8)::text) AS fold_same,
       count(*) FILTER (WHERE (fa::text)::bloomfilter = fd AND (fd::text)::bloomfilter = fa
                        AND form((fd::text)::bloomfilter) = form(fa)) AS text_round_trip,
       count(*) FILTER (WHERE fa::bloomfilter(1024, 3) = fd) AS typmod_cast
FROM fs;

-- aggregates over sparse rows, dense rows and both mixed
SELECT i % 3 AS g, bloom_union_agg(fa)::text = bloom_union_agg(fd)::text AS union_agg,
       bloom_intersect_agg(fa)::text = bloom_intersect_agg(fd)::text AS intersect_agg,
       bloom_union_agg(CASE WHEN i % 2 = 0 THEN fa ELSE fd END) = bloom_union_agg(fd) AS union_mixed,
       bloom_intersect_agg(CASE WHEN i % 2 = 0 THEN fd ELSE fa END) = bloom_intersect_agg(fd) AS intersect_mixed
FROM fs GROUP BY 1 ORDER BY 1;
-- intersections of overlapping sets (every set holds 5 and 6, one in three 1..60)
SELECT bloom_intersect_agg(bloom_add(bloom_add(fa, 5), 6))
         = bloom_intersect_agg(bloom_add(bloom_add(fd, 5), 6)) AS intersect_common,
       bloom_intersect_agg(bloom_add(bloom_add(fa, 5), 6)) @> 5::bigint AS holds_5
FROM fs;
SELECT count(*) AS rows,
       count(*) FILTER (WHERE b = fd) AS bloom_agg_equal,
       count(*) FILTER (WHERE form(b) = form(fa)) AS bloom_agg_form
FROM fs, LATERAL (SELECT bloom_agg(e, 1024, 3) AS b FROM unnest(a) e) s
WHERE cardinality(a) > 0;

-- binary COPY: the binary form is the dense bits in either form, and what
-- comes back is stored in the smaller form
COPY (SELECT i, fa, fd FROM fs) TO PROGRAM 'cat > type_storage.copy' WITH (FORMAT binary);
CREATE TABLE fs2 (i int, fa bloomfilter, fd bloomfilter);
COPY fs2 FROM 'type_storage.copy' WITH (FORMAT binary);
SELECT count(*) AS rows, count(*) FILTER (WHERE fs2.fa = fs.fa AND fs2.fd = fs.fd) AS equal,
       -- (the binary form carries no element types: the flags byte compared without them)
       count(*) FILTER (WHERE set_byte(fs2.fa::bytea, 3, get_byte(fs2.fa::bytea, 3) & 1) =
                              set_byte(fs.fa::bytea, 3, get_byte(fs.fa::bytea, 3) & 1)
                        AND form(fs2.fd) = form(fs.fa)) AS smaller_form
FROM fs2 JOIN fs USING (i);

-- large values out of line: a sparse value of 30,000 positions and a dense one
CREATE TABLE big (name text, f bloomfilter);
INSERT INTO big VALUES
  ('sparse', bloom_from_array(ARRAY(SELECT generate_series(1, 10000)::bigint), 1048576, 3)),
  ('dense', bloom_from_array(ARRAY(SELECT generate_series(1, 300000)::bigint), 1048576, 3));
SELECT name, form(f), pg_column_size(f) < 16 + 131072 AS smaller,
       f = bloom_from_array(ARRAY(SELECT generate_series(1, CASE name WHEN 'sparse' THEN 10000 ELSE 300000 END)::bigint), 1048576, 3) AS equal,
       (SELECT count(*) FROM generate_series(1, 10000) x WHERE NOT f @> x::bigint) AS false_negatives,
       bloom_popcount(f) = bloom_popcount(bloom_union(f, bloom_empty(1048576, 3))) AS popcount
FROM big ORDER BY name;

-- large dense values out of line uncompressed: membership reads only the
-- bytes of the element's k bits (slices); the same answers as the whole value
CREATE TABLE bigd (i int, f bloomfilter);
INSERT INTO bigd SELECT i, bloom_from_array(ARRAY(SELECT i * 1000000 + generate_series(1, 150000)::bigint), 524288, 3)
FROM generate_series(1, 4) i;
SELECT count(*) AS rows, bool_and(form(f) = 'dense') AS dense,
       pg_relation_size((SELECT reltoastrelid FROM pg_class WHERE oid = 'bigd'::regclass)) > 4 * 65536 AS out_of_line
FROM bigd;
SELECT count(*) AS probes, count(*) FILTER (WHERE sliced = whole) AS same, sum(sliced) AS hits
FROM (SELECT (SELECT count(*) FROM bigd WHERE f @> x) AS sliced,
             (SELECT count(*) FROM bigd WHERE bloom_union(f, f) @> x) AS whole
      FROM (SELECT generate_series(1000001, 1000100)::bigint UNION ALL
            SELECT generate_series(4000001, 4000100) UNION ALL
            SELECT generate_series(900000001, 900000100)) p(x)) s;

-- the type's storage is main: sparse filters of a few kB stay in line (no
-- TOAST fetch to read them)
SELECT typstorage FROM pg_type WHERE typname = 'bloomfilter';
CREATE TABLE inl (f bloomfilter);
INSERT INTO inl SELECT bloom_from_array(ARRAY(SELECT g * 1000 + generate_series(1, 1000)::bigint), 132933, 3)
FROM generate_series(1, 5) g;
SELECT count(*) AS rows, bool_and(form(f) = 'sparse' AND pg_column_size(f) > 2100) AS sparse_above_2kB,
       pg_relation_size((SELECT reltoastrelid FROM pg_class WHERE oid = 'inl'::regclass)) AS toast_bytes
FROM inl;

-- BloomSampleTree, the dictionary attack and a Bloofi index read both forms
SELECT bst_create('storage_t', 0, 100000, 1024, 3);
SELECT count(*) AS rows,
       count(*) FILTER (WHERE ARRAY(SELECT bst_reconstruct('storage_t', fa) ORDER BY 1)
                            = ARRAY(SELECT bst_reconstruct('storage_t', fd) ORDER BY 1)) AS reconstruct_same,
       count(*) FILTER (WHERE ARRAY(SELECT bloom_dictionary_attack(fa, 0, 100000) ORDER BY 1)
                            = ARRAY(SELECT bst_reconstruct('storage_t', fa) ORDER BY 1)) AS attack_same,
       count(*) FILTER (WHERE (SELECT count(*) FROM bst_sample('storage_t', fa, 3) x
                               WHERE NOT fd @> x) = 0) AS samples_members
FROM fs;
SELECT bst_drop('storage_t');
CREATE TABLE fi AS SELECT i, CASE WHEN i % 2 = 0 THEN fa ELSE fd END AS f FROM fs;
CREATE INDEX fi_f ON fi USING bloofi (f);
SET enable_seqscan = off;
SELECT count(*) AS probes, count(*) FILTER (WHERE idx = seq) AS index_equals_scan
FROM generate_series(0, 100000, 997) x,
     LATERAL (SELECT array_agg(i ORDER BY i) AS idx FROM fi WHERE f @> x::bigint) a,
     LATERAL (SELECT array_agg(i ORDER BY i) AS seq FROM fs WHERE fd @> x::bigint) b;
RESET enable_seqscan;
-- ANALYZE: the same statistics from either form
ANALYZE fs;
SELECT a.mean_fill = d.mean_fill AND a.mean_cardinality = d.mean_cardinality
       AND a.sample_bits = d.sample_bits AS same_stats, a.mean_bytes < d.mean_bytes AS sparse_smaller
FROM bloom_column_stats('fs', 'fa') a, bloom_column_stats('fs', 'fd') d;

-- ---- corrupted sparse values: a clear error, never a bad read ------------
-- (a probe checks only the lengths, in constant time, and reads inside them:
-- its answer on a value whose positions are corrupted is unspecified, every
-- function that decodes the value reports the corruption)
-- {42} in m = 64, k = 3 sets positions 24, 38, 63: n = 3, l = 4, low bits
-- 8, 6, 15 (bytes 68 0f), high bits 1, 3, 5 (byte 2a)
SELECT '\x0100030100000000400000000300000004680f2a'::bytea::bloomfilter
         = bloom_from_array(ARRAY[42], 64, 3) AS valid_encoding;
SELECT name, try(format('SELECT (%L::bytea::bloomfilter)::text', b), true) AS text_out,
       try(format('SELECT bloom_union(%L::bytea::bloomfilter, bloom_empty(64, 3))', b)) AS union_,
       try(format('SELECT %L::bytea::bloomfilter @> 42::bigint', b)) AS probe
FROM (VALUES
  ('flags byte 34', '\x0100032200000000400000000300000004680f2a'::bytea),
  ('flags byte 5', '\x0100030500000000400000000300000004680f2a'),
  ('header only', '\x010003010000000040000000'),
  ('one byte short', '\x0100030100000000400000000300000004680f'),
  ('one byte long', '\x0100030100000000400000000300000004680f2a00'),
  ('n > m', '\x0100030100000000400000004100000004680f2a'),
  ('l = 32', '\x0100030100000000400000000300000020680f2a'),
  ('out of order', '\x0100030100000000400000000300000004680f26'),
  ('stray high bit', '\x0100030100000000400000000300000004680faa'),
  ('missing high bit', '\x0100030100000000400000000300000004680f0a'),
  ('extra high bit', '\x0100030100000000400000000300000004680f2b')) v(name, b);

-- ---- membership keeps a checked dense header across rows -----------------
-- After rows of one in-line dense header, `@>` tests a row of the same header
-- and length by its probed bytes alone: a row of another header or length
-- still gets every check (a corrupted one its error, as when it comes alone)
-- and a valid one of other parameters its own answer.
SET bloomsample.filter_storage = dense;
CREATE TABLE fpath AS SELECT bloom_from_array(ARRAY[42, 7], 64, 3)::bytea AS good,
                             bloom_from_array(ARRAY[42], 64, 3, 1)::bytea AS seed1_with,
                             bloom_from_array(ARRAY[43], 64, 3)::bytea AS without,
                             bloom_from_array(ARRAY[42], 128, 3)::bytea AS m128_with;
RESET bloomsample.filter_storage;
SELECT name, try(format('SELECT array_agg(b::bloomfilter @> 42::bigint ORDER BY i) FROM '
                        '(VALUES (1, %L::bytea), (2, %L), (3, %L), (4, %L)) v(i, b)',
                        good, good, good, b), true) AS after_good_rows,
       try(format('SELECT %L::bytea::bloomfilter @> 42::bigint', b), true) AS alone
FROM fpath, LATERAL (VALUES ('k = 0', set_byte(good, 2, 0)),
                            ('flags byte 32', set_byte(good, 3, 32)),
                            ('flags byte 4', set_byte(good, 3, 4)),
                            ('scheme version 2', set_byte(good, 0, 2)),
                            ('m = 65', set_byte(good, 8, 65)),
                            ('one byte long', good || '\x00'::bytea),
                            ('one byte short', substr(good, 1, length(good) - 1))) c(name, b);
SELECT name, (SELECT array_agg(b::bloomfilter @> 42::bigint ORDER BY i)
              FROM (VALUES (1, good), (2, good), (3, good), (4, v), (5, good)) x(i, b)) =
             ARRAY[true, true, true, v::bloomfilter @> 42::bigint, true] AS same_answers,
       v::bloomfilter @> 42::bigint AS answer
FROM fpath, LATERAL (VALUES ('seed 1, holding 42', seed1_with), ('not holding 42', without),
                            ('m = 128, holding 42', m128_with)) c(name, v);

DROP TABLE v11, fs, fs2, big, bigd, inl, fi, fpath;
DROP FUNCTION form(bloomfilter);
DROP FUNCTION try(text, boolean);
DROP CAST (bloomfilter AS bytea);
DROP CAST (bytea AS bloomfilter);
