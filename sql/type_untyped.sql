-- Element typing (issue 32): every element-taking function, operator and the
-- Bloofi index scan, with the element typed, as an untyped literal, as an
-- untyped PREPARE parameter and as a text parameter, over filters of
-- integers, of strings (that look like numbers) and of uuids.  Each cell is
-- compared row by row with an oracle that does not go through the text
-- overloads: the typed bigint/uuid overload when the server's own input
-- function reads the probe as that type, else the bytea overload of the
-- probe's bytes (the same hash as the string).  Every cell must report 0
-- differences; a NULL element leaves bloom_add's filter unchanged.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;
-- (enable_seqscan = off below would make every plan costly enough to JIT-compile)
SET jit = off;
CREATE SCHEMA untyped;
SET search_path = untyped, public;

-- the server's own reading of a probe (an error is "not of that type")
CREATE FUNCTION pg_temp.as_int(p text) RETURNS bigint LANGUAGE plpgsql AS
$$BEGIN RETURN p::bigint; EXCEPTION WHEN others THEN RETURN NULL; END$$;
CREATE FUNCTION pg_temp.as_uuid(p text) RETURNS uuid LANGUAGE plpgsql AS
$$BEGIN RETURN p::uuid; EXCEPTION WHEN others THEN RETURN NULL; END$$;

-- 60 filters per table over the same integers: as bigint, as their decimal
-- strings, as uuids (md5 of the decimal)
CREATE TABLE elems AS
    SELECT g AS id, (g * 37 + i * 101) % 400 AS x
    FROM generate_series(1, 60) g, generate_series(1, 25) i;
CREATE TABLE t_int AS
    SELECT id, bloom_agg(x::bigint, 2048, 3) AS f FROM elems GROUP BY id;
CREATE TABLE t_txt AS
    SELECT id, bloom_agg(x::text, 2048, 3) AS f FROM elems GROUP BY id;
CREATE TABLE t_uuid AS
    SELECT id, bloom_agg(md5(x::text)::uuid, 2048, 3) AS f FROM elems GROUP BY id;
-- counting filters of the same integers and strings
CREATE TABLE t_cb_int AS
    SELECT id, cbloom_agg(x::bigint, 2048, 3) AS f FROM elems GROUP BY id;
CREATE TABLE t_cb_txt AS
    SELECT id, cbloom_agg(x::text, 2048, 3) AS f FROM elems GROUP BY id;
-- Count-Min sketches of the same integers and strings (narrow: collisions)
CREATE TABLE t_cms_int AS SELECT id, cms_agg(x::bigint, 16, 2) AS f FROM elems GROUP BY id;
CREATE TABLE t_cms_txt AS SELECT id, cms_agg(x::text, 16, 2) AS f FROM elems GROUP BY id;
-- the same filters in the text form: values that record no element types (as
-- restored from a dump, or stored before 1.2)
CREATE TABLE t_untyped AS SELECT id, f::text::bloomfilter AS f FROM t_int;

-- probes: members, non-members, bigint's input syntax (white space, sign,
-- leading zeros), out of range, strings, uuids in uuid's input forms
CREATE TABLE probes(p text PRIMARY KEY);
INSERT INTO probes VALUES
    ('138'), ('175'), ('4242'), ('-17'), (' 138 '), ('+175'), ('00138'),
    ('9223372036854775807'), ('9223372036854775808'), ('138.0'), ('abc'), (''),
    (md5('138')::uuid::text), (md5('175')), ('{' || md5('239')::uuid::text || '}'),
    (upper(md5('138')::uuid::text)), (md5('77777')::uuid::text);
SELECT count(*) AS probes, count(pg_temp.as_int(p)) AS integers,
       count(pg_temp.as_uuid(p)) AS uuids FROM probes;

-- the oracle: per table, row and probe, membership and bloom_add's result
CREATE TABLE oracle AS
    SELECT 'int' AS tbl, t.id, p.p,
           CASE WHEN pg_temp.as_int(p.p) IS NOT NULL THEN t.f @> pg_temp.as_int(p.p)
                ELSE t.f @> convert_to(p.p, 'UTF8') END AS want,
           CASE WHEN pg_temp.as_int(p.p) IS NOT NULL THEN bloom_add(t.f, pg_temp.as_int(p.p))
                ELSE bloom_add(t.f, convert_to(p.p, 'UTF8')) END AS added
    FROM t_int t, probes p
    UNION ALL
    SELECT 'txt', t.id, p.p, t.f @> convert_to(p.p, 'UTF8'), bloom_add(t.f, convert_to(p.p, 'UTF8'))
    FROM t_txt t, probes p
    UNION ALL
    SELECT 'uuid', t.id, p.p,
           CASE WHEN pg_temp.as_uuid(p.p) IS NOT NULL THEN t.f @> pg_temp.as_uuid(p.p)
                ELSE t.f @> convert_to(p.p, 'UTF8') END,
           CASE WHEN pg_temp.as_uuid(p.p) IS NOT NULL THEN bloom_add(t.f, pg_temp.as_uuid(p.p))
                ELSE bloom_add(t.f, convert_to(p.p, 'UTF8')) END
    FROM t_uuid t, probes p
    UNION ALL
    SELECT 'cb_int', t.id, p.p,
           CASE WHEN pg_temp.as_int(p.p) IS NOT NULL THEN t.f @> pg_temp.as_int(p.p)
                ELSE t.f @> convert_to(p.p, 'UTF8') END, NULL
    FROM t_cb_int t, probes p
    UNION ALL
    SELECT 'cb_txt', t.id, p.p, t.f @> convert_to(p.p, 'UTF8'), NULL
    FROM t_cb_txt t, probes p
    UNION ALL
    SELECT 'cms_int', t.id, p.p,
           coalesce(cms_estimate(t.f, pg_temp.as_int(p.p)),
                    cms_estimate(t.f, convert_to(p.p, 'UTF8'))) > 0, NULL
    FROM t_cms_int t, probes p
    UNION ALL
    SELECT 'cms_txt', t.id, p.p, cms_estimate(t.f, convert_to(p.p, 'UTF8')) > 0, NULL
    FROM t_cms_txt t, probes p;
-- the oracle is not trivial: members hit in every table
CREATE INDEX ON oracle (tbl, p);
SELECT tbl, count(*) FILTER (WHERE want) >= 8 AS members_found,
       count(*) FILTER (WHERE NOT want) >= 500 AS non_members
FROM oracle GROUP BY tbl ORDER BY tbl;

CREATE TABLE cells(tbl text, fn text, mode text, scan text, p text, diff bigint);
CREATE TABLE fns(family text, fn text, expr text);
-- E is the element, T the table; membership cells count the rows of the
-- symmetric difference with the oracle's, bloom_add cells the rows whose
-- result differs from the typed bloom_add's
INSERT INTO fns VALUES
    ('bloom', 'f @> e', 'f @> E'), ('bloom', 'e <@ f', 'E <@ f'),
    ('bloom', 'bloom_contains', 'bloom_contains(f, E)'),
    ('bloom', 'bloom_contained', 'bloom_contained(E, f)'),
    ('cbloom', 'f @> e', 'f @> E'), ('cbloom', 'e <@ f', 'E <@ f'),
    ('cbloom', 'cbloom_contains', 'cbloom_contains(f, E)'),
    ('cbloom', 'cbloom_contained', 'cbloom_contained(E, f)'),
    ('cbloom', 'cbloom_count > 0', 'cbloom_count(f, E) > 0'),
    ('cms', 'cms_estimate > 0', 'cms_estimate(f, E) > 0');
CREATE TABLE tbls(family text, tbl text, rel text);
INSERT INTO tbls VALUES ('bloom', 'int', 't_int'), ('bloom', 'txt', 't_txt'),
    ('bloom', 'uuid', 't_uuid'), ('cbloom', 'cb_int', 't_cb_int'), ('cbloom', 'cb_txt', 't_cb_txt'),
    ('cms', 'cms_int', 't_cms_int'), ('cms', 'cms_txt', 't_cms_txt');

-- the statements of the membership cells, for a scan labelled `scan`:
-- typed (the type the filter holds, where the probe is one), untyped literal,
-- and prepared with an untyped parameter ($1 typed by the operator's
-- resolution: text) and with a text parameter
CREATE FUNCTION pg_temp.cell(tbl text, fn text, mode text, scan text, rel text, expr text,
                             p text) RETURNS text LANGUAGE sql AS
$f$SELECT format($q$INSERT INTO cells SELECT %L, %L, %L, %L, %s, count(*)
    FROM (SELECT id FROM %I WHERE %s) s FULL JOIN
         (SELECT id FROM oracle WHERE tbl = %L AND p = %s AND want) o USING (id)
    WHERE s.id IS NULL OR o.id IS NULL$q$, tbl, fn, mode, scan, p, rel, expr, tbl, p)$f$;
CREATE FUNCTION pg_temp.membership_cells(scan text) RETURNS SETOF text LANGUAGE sql AS
$f$
SELECT pg_temp.cell(t.tbl, f.fn, 'typed', scan, t.rel,
    replace(f.expr, 'E', quote_literal(p.p) || CASE WHEN t.tbl LIKE '%int' THEN '::bigint'
                                                    WHEN t.tbl = 'uuid' THEN '::uuid' ELSE '::text' END),
    quote_literal(p.p))
FROM tbls t JOIN fns f USING (family), probes p
WHERE CASE WHEN t.tbl LIKE '%int' THEN pg_temp.as_int(p.p) IS NOT NULL
           WHEN t.tbl = 'uuid' THEN pg_temp.as_uuid(p.p) IS NOT NULL ELSE true END
UNION ALL
SELECT pg_temp.cell(t.tbl, f.fn, 'literal', scan, t.rel, replace(f.expr, 'E', quote_literal(p.p)),
                    quote_literal(p.p))
FROM tbls t JOIN fns f USING (family), probes p
UNION ALL
SELECT format('DEALLOCATE ALL')
UNION ALL
SELECT format('PREPARE %s_%s_%s%s AS ', m.mode, t.tbl, f.n, m.sig) ||
       pg_temp.cell(t.tbl, f.fn, m.mode, scan, t.rel, replace(f.expr, 'E', '$1'), '$2')
FROM tbls t JOIN (SELECT row_number() OVER (ORDER BY family, fn) AS n, * FROM fns) f USING (family),
     (VALUES ('param', ''), ('textparam', '(text, text)')) m(mode, sig)
UNION ALL
SELECT format('EXECUTE %s_%s_%s(%L, %L)', m.mode, t.tbl, f.n, p.p, p.p)
FROM tbls t JOIN (SELECT row_number() OVER (ORDER BY family, fn) AS n, family FROM fns) f
     USING (family), probes p, (VALUES ('param'), ('textparam')) m(mode)
$f$;

-- membership, sequential scan
SET enable_bitmapscan = off;
\set ECHO none
SELECT pg_temp.membership_cells('seq')
\gexec
\set ECHO all
-- the untyped parameter was typed text (the case of the issue)
SELECT DISTINCT parameter_types FROM pg_prepared_statements WHERE name LIKE 'param%';
RESET enable_bitmapscan;

-- the same cells through the Bloofi index: the literal's and each
-- parameter's plan is a bitmap scan of the index (the parameters' in a
-- generic plan); the index must find every row the recheck keeps
SET enable_seqscan = off;
SET plan_cache_mode = force_generic_plan;
CREATE INDEX ON t_int USING bloofi (f);
CREATE INDEX ON t_txt USING bloofi (f);
CREATE INDEX ON t_uuid USING bloofi (f);
EXPLAIN (COSTS OFF) SELECT id FROM t_int WHERE f @> '138';
PREPARE plan_param AS SELECT id FROM t_int WHERE $1 <@ f;
EXPLAIN (COSTS OFF) EXECUTE plan_param('138');
PREPARE plan_text(text) AS SELECT id FROM t_int WHERE f @> $1;
EXPLAIN (COSTS OFF) EXECUTE plan_text('138');
\set ECHO none
SELECT pg_temp.membership_cells('bloofi')
\gexec
\set ECHO all
RESET enable_seqscan;
RESET plan_cache_mode;
DEALLOCATE ALL;

-- bloom_add: the untyped and text forms add what the typed form adds
\set ECHO none
SELECT format($q$INSERT INTO cells SELECT %L, 'bloom_add', 'literal', 'seq', %L,
        count(*) FILTER (WHERE (bloom_add(t.f, %L) = o.added) IS NOT TRUE)
    FROM %I t JOIN oracle o ON o.tbl = %L AND o.id = t.id AND o.p = %L$q$,
    t.tbl, p.p, p.p, t.rel, t.tbl, p.p)
FROM tbls t, probes p WHERE t.family = 'bloom'
\gexec
SELECT format($q$PREPARE add_%s_%s%s AS INSERT INTO cells SELECT %L, 'bloom_add', %L, 'seq', $2,
        count(*) FILTER (WHERE (bloom_add(t.f, $1) = o.added) IS NOT TRUE)
    FROM %I t JOIN oracle o ON o.tbl = %L AND o.id = t.id AND o.p = $2$q$,
    m.mode, t.tbl, m.sig, t.tbl, m.mode, t.rel, t.tbl)
FROM tbls t, (VALUES ('param', ''), ('textparam', '(text, text)')) m(mode, sig)
WHERE t.family = 'bloom'
\gexec
SELECT format('EXECUTE add_%s_%s(%L, %L)', m.mode, t.tbl, p.p, p.p)
FROM tbls t, probes p, (VALUES ('param'), ('textparam')) m(mode) WHERE t.family = 'bloom'
\gexec
\set ECHO all

-- the matrix: cells run per function, mode and scan, and rows that differ
SELECT tbl, fn, mode, scan, count(*) AS probes, sum(diff) AS rows_differing
FROM cells GROUP BY tbl, fn, mode, scan ORDER BY tbl, fn, mode, scan;

-- filters that record no element types (text input): a text that is also an
-- integer is a member when either reading is (no false negative for either
-- type: bloom_add of such a text adds both readings)
SELECT count(*) FILTER (WHERE (u.f @> p.p) IS DISTINCT FROM
                              (u.f @> convert_to(p.p, 'UTF8') OR
                               coalesce(u.f @> pg_temp.as_int(p.p), false) OR
                               coalesce(u.f @> pg_temp.as_uuid(p.p), false))) AS differing,
       count(*) FILTER (WHERE u.f @> p.p) >= 12 AS members_found
FROM t_untyped u, probes p;
SELECT bool_and(bloom_add(u.f, '4242') @> 4242::bigint AND bloom_add(u.f, '4242') @> '4242'::bytea) AS both_found
FROM t_untyped u;

-- a filter records its types: a string added to a filter of integers stays a
-- string (the filter then holds both), a union holds both sides' types
SELECT f @> '4242' AS int_read, f @> 'abc' AS str_read, f @> 'abd' AS other
FROM (SELECT bloom_add(bloom_add(bloom_empty(4096, 4), 4242::bigint), 'abc') AS f) s;
SELECT bloom_union(a, b) @> '7' AS from_ints, bloom_union(a, b) @> 'seven' AS from_strings
FROM (SELECT bloom_from_array(ARRAY[7]::bigint[], 4096, 4) AS a,
             bloom_from_array(ARRAY['seven'], 4096, 4) AS b) s;
-- an empty filter of bloom_empty holds no integers: the text is a string
SELECT bloom_add(bloom_empty(4096, 4), '42') @> 42::bigint AS as_int,
       bloom_add(bloom_empty(4096, 4), '42') @> '42'::bytea AS as_string;
-- with filter_storage = dense values are written as 1.1 writes them: no types
-- recorded, both readings found
SET bloomsample.filter_storage = dense;
SELECT bloom_add(bloom_empty(4096, 4), 42::bigint) @> '42' AS int_found,
       bloom_add(f, '43') @> 43::bigint AS added_int, bloom_add(f, '43') @> '43'::bytea AS added_str
FROM (SELECT bloom_add(bloom_empty(4096, 4), 42::bigint) AS f) s;
RESET bloomsample.filter_storage;

-- countingbloom: counts, adding and removing through a text read as the
-- filter's type give the typed results; a text read two ways (a counting
-- filter that records no types) cannot be counted, added or removed: an
-- error naming the cast, while membership answers for either reading
SELECT t.tbl, count(*) FILTER (WHERE cbloom_count(c.f, p.p) IS DISTINCT FROM
           CASE WHEN t.tbl = 'cb_int' AND pg_temp.as_int(p.p) IS NOT NULL
                THEN cbloom_count(c.f, pg_temp.as_int(p.p))
                ELSE cbloom_count(c.f, convert_to(p.p, 'UTF8')) END) AS counts_differing,
       count(*) FILTER (WHERE (cbloom_add(c.f, p.p) =
           CASE WHEN t.tbl = 'cb_int' AND pg_temp.as_int(p.p) IS NOT NULL
                THEN cbloom_add(c.f, pg_temp.as_int(p.p))
                ELSE cbloom_add(c.f, convert_to(p.p, 'UTF8')) END) IS NOT TRUE) AS adds_differing,
       count(*) FILTER (WHERE (cbloom_remove(cbloom_add(c.f, p.p), p.p) = c.f) IS NOT TRUE)
           AS add_remove_not_identity,
       count(*) FILTER (WHERE cbloom_count(c.f, p.p) > 0) >= 8 AS members_found
FROM (SELECT 'cb_int' AS tbl UNION ALL SELECT 'cb_txt') t,
     LATERAL (SELECT * FROM t_cb_int WHERE t.tbl = 'cb_int'
              UNION ALL SELECT * FROM t_cb_txt WHERE t.tbl = 'cb_txt') c, probes p
GROUP BY t.tbl ORDER BY t.tbl;
SELECT cbloom_count(f::text::countingbloom, '138') FROM t_cb_int WHERE id = 1;
SELECT cbloom_add(f::text::countingbloom, '138') FROM t_cb_int WHERE id = 1;
SELECT cbloom_remove(f::text::countingbloom, '138') FROM t_cb_int WHERE id = 1;
SELECT cbloom_count(f::text::countingbloom, 'abc') AS one_reading,
       cbloom_count(f::text::countingbloom, 138::bigint) AS typed,
       f::text::countingbloom @> '138' AS either_reading
FROM t_cb_int WHERE f @> 138::bigint LIMIT 1;
SELECT cbloom_to_bloom(f) @> '138' = cbloom_to_bloom(f) @> 138::bigint AS bloom_keeps_types
FROM t_cb_int WHERE id = 1;

-- countmin: the same for estimates, cms_add and cms_remove
SELECT t.tbl, count(*) FILTER (WHERE cms_estimate(c.f, p.p) IS DISTINCT FROM
           coalesce(CASE WHEN t.tbl = 'cms_int' THEN cms_estimate(c.f, pg_temp.as_int(p.p)) END,
                    cms_estimate(c.f, convert_to(p.p, 'UTF8')))) AS estimates_differing,
       count(*) FILTER (WHERE (cms_add(c.f, p.p, 3) =
           CASE WHEN t.tbl = 'cms_int' AND pg_temp.as_int(p.p) IS NOT NULL
                THEN cms_add(c.f, pg_temp.as_int(p.p), 3)
                ELSE cms_add(c.f, convert_to(p.p, 'UTF8'), 3) END) IS NOT TRUE) AS adds_differing,
       count(*) FILTER (WHERE (cms_remove(cms_add(c.f, p.p, 3), p.p, 3) = c.f) IS NOT TRUE)
           AS add_remove_not_identity,
       count(*) FILTER (WHERE cms_estimate(c.f, p.p) > 0) >= 8 AS members_found
FROM (SELECT 'cms_int' AS tbl UNION ALL SELECT 'cms_txt') t,
     LATERAL (SELECT * FROM t_cms_int WHERE t.tbl = 'cms_int'
              UNION ALL SELECT * FROM t_cms_txt WHERE t.tbl = 'cms_txt') c, probes p
GROUP BY t.tbl ORDER BY t.tbl;
SELECT cms_estimate(f::text::countmin, '138') FROM t_cms_int WHERE id = 1;
SELECT cms_add(f::text::countmin, '138') FROM t_cms_int WHERE id = 1;
SELECT cms_estimate(f::text::countmin, 'abc') = cms_estimate(f, convert_to('abc', 'UTF8')) AS one_reading
FROM t_cms_int WHERE id = 1;

-- NULL elements: bloom_add returns the filter unchanged (as bloom_agg skips
-- NULLs), for every element type; a NULL filter stays NULL; membership of
-- NULL is NULL
SELECT bloom_add(f, NULL::bigint) = f AS int8, bloom_add(f, NULL::text) = f AS text,
       bloom_add(f, NULL::bytea) = f AS bytea, bloom_add(f, NULL::uuid) = f AS uuid,
       bloom_add(f, NULL) = f AS untyped,
       bloom_add(NULL::bloomfilter, 1::bigint) IS NULL AS null_filter,
       (f @> NULL::bigint) IS NULL AS member_null, bloom_contains(f, NULL::text) IS NULL AS fn_null
FROM (SELECT bloom_add(bloom_empty(64, 2), 1::bigint) AS f) s;
CREATE TABLE upd AS SELECT 1 AS id, bloom_add(bloom_empty(256, 3), 5::bigint) AS f;
UPDATE upd SET f = bloom_add(f, x) FROM (VALUES (NULL::bigint)) v(x);
SELECT f IS NOT NULL AS kept, f @> 5::bigint AS still_member FROM upd;
-- the same rule for every function that adds or removes an element, for
-- every element type: the value unchanged (cms_add/cms_remove also for a NULL
-- count), NULL for a NULL value; lookups of NULL are NULL
SELECT e AS elem,
       cbloom_add(cb, x) = cb AS cbloom_add, cbloom_remove(cb, x) = cb AS cbloom_remove,
       cuckoo_add(cf, x) = cf AS cuckoo_add, cuckoo_remove(cf, x) = cf AS cuckoo_remove,
       cms_add(s, x) = s AS cms_add, cms_remove(s, x) = s AS cms_remove,
       bloomtree_add(t, x) = t AS bloomtree_add,
       cbloom_add(NULL::countingbloom, x) IS NULL AND cuckoo_add(NULL::cuckoofilter, x) IS NULL
           AND cms_add(NULL::countmin, x) IS NULL AND bloomtree_add(NULL::bloomtree, x) IS NULL
           AS null_values,
       (cb @> x) IS NULL AND (cf @> x) IS NULL AND cms_estimate(s, x) IS NULL AND (t @> x) IS NULL
           AND cbloom_count(cb, x) IS NULL AS null_lookups
FROM (SELECT cbloom_add(cbloom_empty(256, 3), 5::bigint) AS cb,
             cuckoo_add(cuckoo_empty(100), 5::bigint) AS cf,
             cms_add(cms_empty(64, 3), 5::bigint) AS s,
             bloomtree_add(bloomtree_empty(ARRAY[256, 4], ARRAY[3, 2]), 5::bigint) AS t) v,
     LATERAL (VALUES ('bigint', NULL::bigint)) n(e, x)
UNION ALL
SELECT e, cbloom_add(cb, x) = cb, cbloom_remove(cb, x) = cb, cuckoo_add(cf, x) = cf,
       cuckoo_remove(cf, x) = cf, cms_add(s, x) = s, cms_remove(s, x) = s, bloomtree_add(t, x) = t,
       cbloom_add(NULL::countingbloom, x) IS NULL, (cb @> x) IS NULL AND cms_estimate(s, x) IS NULL
FROM (SELECT cbloom_add(cbloom_empty(256, 3), 'a'::text) AS cb, cuckoo_add(cuckoo_empty(100), 'a'::text) AS cf,
             cms_add(cms_empty(64, 3), 'a'::text) AS s,
             bloomtree_add(bloomtree_empty(ARRAY[256, 4], ARRAY[3, 2]), 'a'::text) AS t) v,
     LATERAL (VALUES ('text', NULL::text)) n(e, x)
UNION ALL
SELECT e, cbloom_add(cb, x) = cb, cbloom_remove(cb, x) = cb, cuckoo_add(cf, x) = cf,
       cuckoo_remove(cf, x) = cf, cms_add(s, x) = s, cms_remove(s, x) = s, bloomtree_add(t, x) = t,
       cbloom_add(NULL::countingbloom, x) IS NULL, (cb @> x) IS NULL AND cms_estimate(s, x) IS NULL
FROM (SELECT cbloom_empty(256, 3) AS cb, cuckoo_empty(100) AS cf, cms_empty(64, 3) AS s,
             bloomtree_empty(ARRAY[256, 4], ARRAY[3, 2]) AS t) v,
     LATERAL (VALUES ('bytea', NULL::bytea)) n(e, x)
UNION ALL
SELECT e, cbloom_add(cb, x) = cb, cbloom_remove(cb, x) = cb, cuckoo_add(cf, x) = cf,
       cuckoo_remove(cf, x) = cf, cms_add(s, x) = s, cms_remove(s, x) = s, bloomtree_add(t, x) = t,
       cbloom_add(NULL::countingbloom, x) IS NULL, (cb @> x) IS NULL AND cms_estimate(s, x) IS NULL
FROM (SELECT cbloom_empty(256, 3) AS cb, cuckoo_empty(100) AS cf, cms_empty(64, 3) AS s,
             bloomtree_empty(ARRAY[256, 4], ARRAY[3, 2]) AS t) v,
     LATERAL (VALUES ('uuid', NULL::uuid)) n(e, x);
SELECT cms_add(s, 7::bigint, NULL) = s AS cms_add_null_count,
       cms_remove(s, 5::bigint, NULL) = s AS cms_remove_null_count
FROM (SELECT cms_add(cms_empty(64, 3), 5::bigint) AS s) v;
-- the aggregates skip NULL elements: the same value with and without them
SELECT bloom_agg(x, 256, 3) = bloom_agg(x, 256, 3) FILTER (WHERE x IS NOT NULL) AS bloom_agg,
       cbloom_agg(x, 256, 3) = cbloom_agg(x, 256, 3) FILTER (WHERE x IS NOT NULL) AS cbloom_agg,
       cuckoo_agg(x, 100) = cuckoo_agg(x, 100) FILTER (WHERE x IS NOT NULL) AS cuckoo_agg,
       cms_agg(x, 64, 3) = cms_agg(x, 64, 3) FILTER (WHERE x IS NOT NULL) AS cms_agg,
       topk_agg(x, 3) = topk_agg(x, 3) FILTER (WHERE x IS NOT NULL) AS topk_agg,
       bloomtree_agg(x, ARRAY[256, 4], ARRAY[3, 2]) =
           bloomtree_agg(x, ARRAY[256, 4], ARRAY[3, 2]) FILTER (WHERE x IS NOT NULL) AS bloomtree_agg
FROM (VALUES (1::bigint), (NULL), (2), (NULL), (2)) v(x);

-- cuckoofilter and bloomtree record no element types: a text is read every
-- way it parses, a member when any reading is (the typed answer, or a false
-- positive of the other reading: never a false negative).  The oracle goes
-- through the typed and bytea overloads only; each cell counts the rows that
-- differ from it, over a literal, an untyped and a text parameter
CREATE TABLE t_ck_int AS SELECT id, cuckoo_agg(x::bigint, 100) AS f FROM elems GROUP BY id;
CREATE TABLE t_ck_txt AS SELECT id, cuckoo_agg(x::text, 100) AS f FROM elems GROUP BY id;
CREATE TABLE t_bt_int AS
    SELECT id, bloomtree_agg(x::bigint, ARRAY[512, 4], ARRAY[3, 2]) AS f FROM elems GROUP BY id;
CREATE TABLE t_bt_txt AS
    SELECT id, bloomtree_agg(x::text, ARRAY[512, 4], ARRAY[3, 2]) AS f FROM elems GROUP BY id;
CREATE TABLE untyped_oracle AS
    SELECT tbl, id, p.p, coalesce(f @> pg_temp.as_int(p.p), false)
                         OR coalesce(f @> pg_temp.as_uuid(p.p), false)
                         OR f @> convert_to(p.p, 'UTF8') AS want,
           coalesce(f @> CASE WHEN tbl LIKE '%int' THEN pg_temp.as_int(p.p) END,
                    f @> convert_to(p.p, 'UTF8')) AS typed
    FROM (SELECT 'ck_int' AS tbl, id, f FROM t_ck_int UNION ALL SELECT 'ck_txt', id, f FROM t_ck_txt) t,
         probes p
    UNION ALL
    SELECT tbl, id, p.p, coalesce(f @> pg_temp.as_int(p.p), false)
                         OR coalesce(f @> pg_temp.as_uuid(p.p), false)
                         OR f @> convert_to(p.p, 'UTF8'),
           coalesce(f @> CASE WHEN tbl LIKE '%int' THEN pg_temp.as_int(p.p) END,
                    f @> convert_to(p.p, 'UTF8'))
    FROM (SELECT 'bt_int' AS tbl, id, f FROM t_bt_int UNION ALL SELECT 'bt_txt', id, f FROM t_bt_txt) t,
         probes p;
-- not trivial: the typed members are found in every table; the typed answer
-- is kept (no false negative by construction of `want`, checked here too)
SELECT tbl, count(*) FILTER (WHERE typed) >= 8 AS members_found,
       count(*) FILTER (WHERE typed AND NOT want) AS typed_members_lost,
       count(*) FILTER (WHERE want AND NOT typed) <= 10 AS few_other_readings
FROM untyped_oracle GROUP BY tbl ORDER BY tbl;
CREATE TABLE untyped_cells(tbl text, fn text, mode text, p text, diff bigint);
\set ECHO none
SELECT CASE m.mode
       WHEN 'literal' THEN format($q$INSERT INTO untyped_cells SELECT %L, %L, 'literal', %L, count(*)
            FROM (SELECT id FROM %I WHERE %s) s FULL JOIN
                 (SELECT id FROM untyped_oracle WHERE tbl = %L AND p = %L AND want) o USING (id)
            WHERE s.id IS NULL OR o.id IS NULL$q$,
            t.tbl, f.fn, p.p, t.rel, replace(f.expr, 'E', quote_literal(p.p)), t.tbl, p.p)
       ELSE format($q$PREPARE uc%s%s AS INSERT INTO untyped_cells SELECT %L, %L, %L, $2, count(*)
            FROM (SELECT id FROM %I WHERE %s) s FULL JOIN
                 (SELECT id FROM untyped_oracle WHERE tbl = %L AND p = $2 AND want) o USING (id)
            WHERE s.id IS NULL OR o.id IS NULL; EXECUTE uc%s(%L, %L); DEALLOCATE uc%s$q$,
            m.mode, CASE m.mode WHEN 'textparam' THEN '(text, text)' ELSE '' END,
            t.tbl, f.fn, m.mode, t.rel, replace(f.expr, 'E', '$1'), t.tbl,
            m.mode, p.p, p.p, m.mode)
       END
FROM (VALUES ('ck_int', 't_ck_int', 'cuckoo'), ('ck_txt', 't_ck_txt', 'cuckoo'),
             ('bt_int', 't_bt_int', 'bloomtree'), ('bt_txt', 't_bt_txt', 'bloomtree')) t(tbl, rel, family)
JOIN (VALUES ('cuckoo', 'f @> e', 'f @> E'), ('cuckoo', 'e <@ f', 'E <@ f'),
             ('cuckoo', 'cuckoo_contains', 'cuckoo_contains(f, E)'),
             ('cuckoo', 'cuckoo_contained', 'cuckoo_contained(E, f)'),
             ('bloomtree', 'f @> e', 'f @> E'), ('bloomtree', 'e <@ f', 'E <@ f'),
             ('bloomtree', 'bloomtree_contains', 'bloomtree_contains(f, E)'),
             ('bloomtree', 'bloomtree_contained', 'bloomtree_contained(E, f)')) f(family, fn, expr)
     USING (family),
     probes p, (VALUES ('literal'), ('param'), ('textparam')) m(mode)
\gexec
\set ECHO all
-- (the PREPAREs above: 'param' leaves $1 untyped; 'textparam' is the same
-- text the untyped parameter resolves to, sent by a driver as text)
SELECT tbl, fn, mode, count(*) AS probes, sum(diff) AS rows_differing
FROM untyped_cells GROUP BY tbl, fn, mode ORDER BY tbl, fn, mode;
-- adding or removing must choose one key: a text that is also an integer or
-- a uuid is an error naming the cast for cuckoo_add and cuckoo_remove; any
-- other text is the string.  bloomtree_add adds every reading.
\set VERBOSITY default
SELECT cuckoo_add(cuckoo_empty(100), '4242');
SELECT cuckoo_remove(cuckoo_add(cuckoo_empty(100), 4242::bigint), '4242');
SELECT cuckoo_add(cuckoo_empty(100), md5('1')::uuid::text);
\set VERBOSITY terse
-- topk_add reads a text by the types its candidates show (each keeps its key
-- and its text): in a topk of integers '138' is the integer, in one of
-- strings (or one without candidates) the string, in one of both an error;
-- the untyped literal, the untyped and the text parameter against the typed
-- topk_add (exact mode, and sketch mode with 40 candidates of 400 elements)
CREATE TABLE t_tk AS
    SELECT 'int' AS tbl, topk_agg(x::bigint, 3) AS t FROM elems
    UNION ALL SELECT 'txt', topk_agg(x::text, 3) FROM elems
    UNION ALL SELECT 'int_sketch', topk_agg(x::bigint, 40, 64, 2) FROM elems
    UNION ALL SELECT 'uuid', topk_agg(md5(x::text)::uuid, 3) FROM elems
    UNION ALL SELECT 'empty', topk_empty(3);
PREPARE tk_param AS SELECT topk_add(t, $1, 5) FROM t_tk WHERE tbl = $2;
PREPARE tk_text(text, text) AS SELECT topk_add(t, $1, 5) FROM t_tk WHERE tbl = $2;
-- (a text has two readings only: a topk of strings must not take the
-- integer's, so its result differs from the typed integer add)
SELECT k.tbl, topk_is_exact(k.t) AS exact, p.p,
       CASE WHEN k.tbl LIKE 'int%' THEN topk_add(k.t, p.p, 5) = topk_add(k.t, p.p::bigint, 5)
            ELSE topk_add(k.t, p.p, 5) <> topk_add(k.t, p.p::bigint, 5) END AS literal,
       CASE WHEN k.tbl LIKE 'int%' THEN (SELECT topk_add(t, p.p, 5) FROM t_tk WHERE tbl = k.tbl)
                                        = topk_add(k.t, p.p::bigint, 5)
            ELSE (SELECT topk_add(t, p.p, 5) FROM t_tk WHERE tbl = k.tbl)
                 <> topk_add(k.t, p.p::bigint, 5) END AS text_param
FROM t_tk k, (VALUES ('138'), ('4242')) p(p)
WHERE k.tbl <> 'uuid'
ORDER BY 1, 3;
EXECUTE tk_param('138', 'int') \gset tkp_
SELECT :'tkp_topk_add'::topk = topk_add(t, 138::bigint, 5) AS untyped_param_int FROM t_tk WHERE tbl = 'int';
EXECUTE tk_text('138', 'txt') \gset tkt_
SELECT :'tkt_topk_add'::topk = topk_add(t, '138'::text, 5) AS text_param_txt,
       (SELECT item FROM topk_items(:'tkt_topk_add'::topk) WHERE item = '138') = '138' AS item_is_the_string
FROM t_tk WHERE tbl = 'txt';
SELECT topk_add(t, md5('138')::uuid::text, 5) = topk_add(t, md5('138')::uuid, 5) AS uuid_reading
FROM t_tk WHERE tbl = 'uuid';
DEALLOCATE tk_param;
DEALLOCATE tk_text;
\set VERBOSITY default
SELECT topk_add(topk_add(topk_add(topk_empty(3), 7::bigint), 'x'::text), '4242');
\set VERBOSITY terse
SELECT cuckoo_add(cuckoo_empty(100), 'abc') = cuckoo_add(cuckoo_empty(100), convert_to('abc', 'UTF8'))
           AS cuckoo_string_is_bytes,
       (SELECT item FROM topk_items(topk_add(topk_empty(3), 'abc'))) = 'abc' AS topk_string,
       bloomtree_add(t, '4242') @> 4242::bigint AS bloomtree_int_reading,
       bloomtree_add(t, '4242') @> convert_to('4242', 'UTF8') AS bloomtree_string_reading,
       bloomtree_add(t, '4242') = bloomtree_add(bloomtree_add(t, 4242::bigint), convert_to('4242', 'UTF8'))
           AS bloomtree_both_readings
FROM (SELECT bloomtree_empty(ARRAY[256, 4], ARRAY[3, 2]) AS t) v;

RESET search_path;
RESET jit;
SET client_min_messages = warning;
DROP SCHEMA untyped CASCADE;
RESET client_min_messages;
