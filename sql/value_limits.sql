-- bloomsample.max_value_memory and the input rule cover every type (issue 34):
-- under a 1 MB limit each constructor, input, output, copy and aggregate state
-- of the countingbloom, cuckoofilter, countmin and topk types refuses with 54000
-- naming the bytes it needs, before allocating; a text declaring more than it
-- holds is refused with 22P02 first; calls that read a value in place (counts,
-- inner products, equality) and values within the limit work.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;
-- the SQLSTATE and message of a statement, or 'ok'
CREATE FUNCTION state_of(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE q;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
RESET bloomsample.max_value_memory;
-- tk: 20000 distinct elements, past the exact mode's 131072/8 = 16384, so a
-- sketch of 2^17 counters
CREATE TABLE big AS
  SELECT cbloom_empty(2097152, 3) cb, cms_empty(131072, 1) cm,
         cuckoo_empty(1000000, 0.001::float8) cf,
         (SELECT topk_agg(x::bigint, 5, 131072, 1) FROM generate_series(1, 20000) x) tk;
SELECT topk_is_exact(tk) AS tk_is_exact FROM big;
SET bloomsample.max_value_memory = '1MB';
SELECT what, state_of(q) FROM (VALUES
  -- constructors: 2^21 counters of 4 bits are 1 MiB + 16 bytes; 2^17 of 8 bytes 1 MiB + 32
  ('cbloom_empty', $$SELECT cbloom_empty(2097152, 3)$$),
  ('cbloom_empty within', $$SELECT cbloom_empty(2097120, 3)$$),
  ('cms_empty', $$SELECT cms_empty(131072, 1)$$),
  ('cms_empty within', $$SELECT cms_empty(131068, 1)$$),
  ('cms_for_error', $$SELECT cms_for_error(0.00001::float8, 0.5::float8)$$),
  ('cuckoo_empty', $$SELECT cuckoo_empty(1000000, 0.001::float8)$$),
  ('cuckoo_empty within', $$SELECT cuckoo_empty(100000, 0.001::float8)$$),
  -- aggregates' states
  ('cbloom_agg', $$SELECT cbloom_agg(x::bigint, 4194304, 3) FROM generate_series(1, 3) x$$),
  ('cms_agg', $$SELECT cms_agg(x::bigint, 262144, 1) FROM generate_series(1, 3) x$$),
  ('cuckoo_agg', $$SELECT cuckoo_agg(x::bigint, 1000000, 0.001::float8) FROM generate_series(1, 3) x$$),
  -- topk_agg counts a small group exactly, without counters; past 262144/8 =
  -- 32768 distinct elements it converts to the sketch's 2^18 counters
  ('topk_agg, exact', $$SELECT topk_agg(x::bigint, 5, 262144, 1) FROM generate_series(1, 3) x$$),
  ('topk_agg', $$SELECT topk_agg(x::bigint, 5, 262144, 1) FROM generate_series(1, 40000) x$$),
  -- exact mode of a sketch of 2^24 counters: its arrays double within the limit too
  ('topk_agg, exact, 40000 distinct', $$SELECT topk_agg(x::bigint, 5, 16777216, 1) FROM generate_series(1, 40000) x$$),
  ('topk_agg, exact, 1000 distinct', $$SELECT topk_is_exact(topk_agg(x::bigint, 5, 16777216, 1)) FROM generate_series(1, 1000) x$$),
  ('cms_union_agg', $$SELECT cms_union_agg(cm) FROM big$$),
  ('cbloom_union_agg', $$SELECT cbloom_union_agg(cb) FROM big$$),
  ('topk_union_agg', $$SELECT topk_union_agg(tk) FROM big$$),
  -- text input: the declared size against the input's length (22P02), then the limit
  ('countmin in, 27 bytes', $$SELECT 'w=16777216,d=1,seed=0,v=1:1'::countmin$$),
  ('topk in, short', $$SELECT 'k=5,w=16777216,d=1,seed=0,v=1:1|'::topk$$),
  ('topk in, exact (no counters)', $$SELECT 'k=5,w=16777216,d=1,seed=0,v=1:exact|'::topk$$),
  ('countingbloom in, short', $$SELECT 'm=2097152,k=1,seed=0,hash=xxh3,v=1:00'::countingbloom$$),
  ('cuckoofilter in, short', $$SELECT 'buckets=300000,fp_bits=8,seed=0,v=2:00'::cuckoofilter$$),
  ('countmin in', $$SELECT ('w=131072,d=1,seed=0,v=1:' || repeat('0,', 131071) || '0')::countmin$$),
  ('topk in', $$SELECT ('k=5,w=131072,d=1,seed=0,v=1:' || repeat('0,', 131071) || '0|')::topk$$),
  ('countingbloom in', $$SELECT ('m=2097152,k=1,seed=0,hash=xxh3,v=1:' || repeat('0', 2097152))::countingbloom$$),
  ('cuckoofilter in', $$SELECT ('buckets=300000,fp_bits=8,seed=0,v=2:' || repeat('00', 1200000))::cuckoofilter$$),
  -- whole-value calls on values built under the default limit
  ('cbloom_add', $$SELECT cbloom_add(cb, 1::bigint) FROM big$$),
  ('countingbloom out', $$SELECT length(cb::text) FROM big$$),
  ('countingbloom_send', $$SELECT length(countingbloom_send(cb)) FROM big$$),
  ('cbloom_to_bloom', $$SELECT cbloom_to_bloom(cb) FROM big$$),
  ('cbloom_saturated (in place)', $$SELECT cbloom_saturated(cb) FROM big$$),
  ('countingbloom = (in place)', $$SELECT cb = cb FROM big$$),
  ('cms_add', $$SELECT cms_add(cm, 1::bigint) FROM big$$),
  ('countmin out', $$SELECT length(cm::text) FROM big$$),
  ('countmin_send', $$SELECT length(countmin_send(cm)) FROM big$$),
  ('cms_inner_product (in place)', $$SELECT cms_inner_product(cm, cm) FROM big$$),
  ('countmin = (in place)', $$SELECT cm = cm FROM big$$),
  ('topk out', $$SELECT length(tk::text) FROM big$$),
  ('topk_send', $$SELECT length(topk_send(tk)) FROM big$$),
  ('cuckoo_add', $$SELECT cuckoo_add(cf, 1::bigint) FROM big$$),
  ('cuckoofilter out', $$SELECT length(cf::text) FROM big$$),
  ('cuckoofilter_send', $$SELECT length(cuckoofilter_send(cf)) FROM big$$),
  ('cuckoo_count (in place)', $$SELECT cuckoo_count(cf) FROM big$$),
  ('cuckoofilter = (in place)', $$SELECT cf = cf FROM big$$)
) v(what, q);
RESET bloomsample.max_value_memory;
SELECT cuckoo_count(cuckoo_add(cf, 1::bigint)) AS add_at_default_limit FROM big;
-- only a superuser sets the limit
CREATE ROLE value_limits_plain;
SET ROLE value_limits_plain;
SELECT state_of($$SET bloomsample.max_value_memory = '4GB'$$);
RESET ROLE;
DROP ROLE value_limits_plain;
DROP TABLE big;
DROP FUNCTION state_of;
