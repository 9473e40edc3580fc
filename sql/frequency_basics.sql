-- countmin and topk: forms, parameters, errors, the column vectors of
-- docs/hashing.md, equality, remove and overflow (oracle: the documented
-- scheme and hand-computed counters).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;
SET extra_float_digits = 0;

-- text form round trip, the documented columns of 42 at w = 272, d = 5, seed 0:
-- 103, 269, 162, 56, 221 (docs/hashing.md): the counters set are exactly those
WITH s AS (SELECT cms_add(cms_empty(272, 5), 42::bigint, 7) AS s),
     cells AS (SELECT row - 1 AS row, col - 1 AS col, v::bigint AS v
               FROM s, regexp_split_to_table(split_part(s::text, ':', 2), ';') WITH ORDINALITY r(line, row),
                    regexp_split_to_table(line, ',') WITH ORDINALITY c(v, col))
SELECT row, col, v FROM cells WHERE v <> 0 ORDER BY row;
SELECT cms_add(cms_add(cms_empty(4, 2, -3), 42), 'hello', 3);
SELECT s::text::countmin = s, s = cms_add(cms_empty(4, 2, -3), 42) FROM (SELECT cms_add(cms_add(cms_empty(4, 2, -3), 42), 'hello', 3) s) q;
-- int4, int8 and the same bytes as text and bytea are one element each
SELECT cms_estimate(cms_add(cms_empty(64, 3), 42::int4, 5), 42::bigint),
       cms_estimate(cms_add(cms_empty(64, 3), 'abc'::text, 2), '\x616263'::bytea),
       cms_estimate(cms_add(cms_empty(64, 3), 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid), 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid);
SELECT cms_w(s), cms_d(s), cms_seed(s), cms_total(s)
FROM (SELECT cms_add(cms_add(cms_for_error(0.01, 0.01, 9), 1), 2, 40) s) q;
SELECT cms_w(cms_for_error(0.001, 0.5)), cms_d(cms_for_error(0.001, 0.5));
SELECT countmin_send(cms_add(cms_empty(2, 1), 1::bigint));

-- parameters out of range, incompatible sketches, bad counts
SELECT cms_empty(0, 3);
SELECT cms_empty(1 << 24, 2);
SELECT cms_empty(16, 33);
SELECT cms_for_error(0, 0.1);
SELECT cms_for_error(0.1, 1);
SELECT cms_for_error(1e-9, 0.1);
SELECT cms_add(cms_empty(8, 2), 1, -1);
SELECT cms_inner_product(cms_empty(8, 2), cms_empty(8, 2, 1));
SELECT cms_union_agg(s) FROM (VALUES (cms_empty(8, 2)), (cms_empty(16, 2))) v(s);
SELECT cms_agg(x, 8, x::int) FROM generate_series(1, 2) x;
SELECT cms_agg(x, NULL::int, 2) FROM generate_series(1, 2) x;
SELECT cms_agg(x, -1::bigint, 8, 2) FROM generate_series(1, 2) x;

-- malformed text input
SELECT 'w=2,d=2,seed=0,v=1:1,2;2,0'::countmin;     -- rows sum differently
SELECT 'w=2,d=2,seed=0,v=1:1,2;3'::countmin;       -- short row
SELECT 'w=2,d=1,seed=0,v=1:-1,1'::countmin;        -- negative counter
SELECT 'w=2,d=1,seed=0,v=2:0,0'::countmin;         -- unknown scheme
SELECT 'w=0,d=1,seed=0,v=1:'::countmin;
SELECT 'w=2,d=1,seed=0,v=1:9223372036854775807,1'::countmin;   -- a row beyond bigint
SELECT 'w=1,d=1,seed=0,v=1:9223372036854775808'::countmin;

-- remove: the inverse of add; never below zero (22023, nothing changed)
SELECT cms_remove(cms_add(cms_empty(4, 2), 42, 5), 42, 5) = cms_empty(4, 2);
SELECT cms_remove(cms_add(cms_empty(4, 2), 42, 5), 42, 6);
SELECT cms_remove(cms_empty(4, 2), 'x', 0) = cms_empty(4, 2);

-- overflow: an error, never a wrap
SELECT cms_add(cms_add(cms_empty(4, 2), 1, 9223372036854775807), 2, 1);
SELECT cms_union_agg(s) FROM (VALUES (cms_add(cms_empty(4, 2), 1, 9223372036854775807)),
                                     (cms_add(cms_empty(4, 2), 1, 1))) v(s);
SELECT cms_inner_product(s, s) FROM (SELECT cms_add(cms_empty(4, 2), 1, 4000000000) s) q;

-- aggregates: NULL over no rows, empty over NULL elements; counts; equality
SELECT cms_agg(x, 8, 2) IS NULL FROM generate_series(1, 0) x;
SELECT cms_agg(NULL::bigint, 8, 2) = cms_empty(8, 2);
SELECT (SELECT cms_agg(x, 3::bigint, 8, 2) FROM generate_series(1, 10) x)
     = (SELECT cms_agg(x, 8, 2) FROM generate_series(1, 10) x, generate_series(1, 3));
SELECT cms_empty(8, 2) <> cms_empty(8, 2, 1), cms_empty(8, 2) <> cms_add(cms_empty(8, 2), 1, 0);

-- topk
SELECT topk_agg((x % 3)::text, 2, 4, 2) FROM generate_series(1, 100) x;
SELECT * FROM topk_items((SELECT topk_agg((x % 3)::text, 2, 4, 2) FROM generate_series(1, 100) x));
SELECT t::text::topk = t, t <> t FROM (SELECT topk_agg(x % 5, 3, 16, 2) t FROM generate_series(1, 50) x) q;
SELECT item, estimate FROM topk_items((SELECT topk_agg(decode('00ff', 'hex'), 1)));
SELECT item, estimate FROM topk_items((SELECT topk_agg('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, 1)));
SELECT item, estimate FROM topk_items((SELECT topk_agg(-42::int4, 1)));
SELECT topk_agg(x, 0) FROM generate_series(1, 2) x;
SELECT topk_agg(x, 10001) FROM generate_series(1, 2) x;
SELECT topk_agg(repeat('x', 1025), 3);
SELECT topk_agg(decode(repeat('ab', 512), 'hex'), 3);
SELECT topk_union_agg(t) FROM (SELECT topk_agg(1, 2, 8, 2) FROM generate_series(1, 1)
                               UNION ALL SELECT topk_agg(1, 3, 8, 2) FROM generate_series(1, 1)) v(t);
-- topk_union_agg of per-group values = topk_agg of all rows when the heavy hitters are clear
-- ('a' 300 times, 'b' 200, 'c' 100, then 400 distinct elements)
CREATE TEMP TABLE hh AS
SELECT x, CASE WHEN x <= 300 THEN 'a' WHEN x <= 500 THEN 'b' WHEN x <= 600 THEN 'c' ELSE x::text END AS e
FROM generate_series(1, 1000) x;
SELECT (SELECT array_agg(item ORDER BY estimate DESC, item) FROM topk_items(u)) AS merged,
       (SELECT array_agg(item ORDER BY estimate DESC, item) FROM topk_items(w)) AS whole
FROM (SELECT topk_union_agg(t) u FROM (SELECT topk_agg(e, 3, 64, 3) t FROM hh GROUP BY x % 5) g) a,
     (SELECT topk_agg(e, 3, 64, 3) w FROM hh) b;
SELECT 'k=1,w=1,d=1,seed=0,v=1:1|2:00000000000000000000000000000000:31'::topk;   -- estimate above the sketch's
SELECT 'k=1,w=1,d=1,seed=0,v=1:2|1:00000000000000000000000000000000:31,1:00000000000000000000000000000001:32'::topk;
SELECT 'k=2,w=1,d=1,seed=0,v=1:2|1:00000000000000000000000000000000:31,1:00000000000000000000000000000000:32'::topk;
SELECT 'k=2,w=1,d=1,seed=0,v=1:2|1:00000000000000000000000000000000:32,1:00000000000000000000000000000001:31'::topk;
SELECT 'k=2,w=1,d=1,seed=0,v=1:2|1:00000000000000000000000000000000:00'::topk;
SELECT 'k=2,w=1,d=1,seed=0,v=1:2|1:00000000000000000000000000000000:ff'::topk;
SELECT * FROM topk_items('k=2,w=1,d=1,seed=0,v=1:2|1:00000000000000000000000000000000:31,1:00000000000000000000000000000001:32'::topk);
SELECT topk_send('k=2,w=1,d=1,seed=0,v=1:2|1:00000000000000000000000000000000:31'::topk);
