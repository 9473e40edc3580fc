-- Shared setup of the Bloofi regression files bloofi_build and bloofi_dml,
-- included by each (after sql/include/bloofi_bt.sql) with
--   \set bloofi_probes :abs_srcdir '/sql/include/bloofi_probes.sql'
--   \i :bloofi_probes
-- It makes the session's probe tables px, pt, pb, pu and the functions
-- bt_results and bt_compare, which the including file drops.
-- one probe table per element type; results through the index and through
-- a sequential scan must be the same sets of (element, row)
CREATE TEMP TABLE px AS SELECT (x * 7)::bigint AS x FROM generate_series(0, 4400) x;
CREATE TEMP TABLE pt AS SELECT 't' || x AS x FROM generate_series(0, 3300, 3) x;
CREATE TEMP TABLE pb AS SELECT int4send(x) AS x FROM generate_series(0, 3300, 3) x;
CREATE TEMP TABLE pu AS SELECT md5(x::text)::uuid AS x FROM generate_series(0, 3300, 3) x;

CREATE FUNCTION bt_results(use_index boolean)
RETURNS TABLE (kind text, x text, id int) LANGUAGE plpgsql AS $$
BEGIN
    PERFORM set_config('enable_seqscan', (NOT use_index)::text, true);
    PERFORM set_config('enable_bitmapscan', use_index::text, true);
    PERFORM set_config('enable_indexscan', 'off', true);
    RETURN QUERY
        SELECT 'bigint', p.x::text, bt.id FROM px p JOIN bt ON bt.f @> p.x
        UNION ALL SELECT 'text', p.x, bt.id FROM pt p JOIN bt ON bt.f @> p.x
        UNION ALL SELECT 'bytea', p.x::text, bt.id FROM pb p JOIN bt ON bt.f @> p.x
        UNION ALL SELECT 'uuid', p.x::text, bt.id FROM pu p JOIN bt ON bt.f @> p.x;
END $$;

CREATE FUNCTION bt_compare() RETURNS TABLE (kind text, via_index bigint, via_seqscan bigint,
                                            only_index bigint, only_seqscan bigint)
LANGUAGE sql AS $$
    WITH i AS (SELECT * FROM bt_results(true)), s AS (SELECT * FROM bt_results(false))
    SELECT k.kind,
           (SELECT count(*) FROM i WHERE i.kind = k.kind),
           (SELECT count(*) FROM s WHERE s.kind = k.kind),
           (SELECT count(*) FROM (SELECT * FROM i WHERE i.kind = k.kind EXCEPT ALL
                                  SELECT * FROM s WHERE s.kind = k.kind) d),
           (SELECT count(*) FROM (SELECT * FROM s WHERE s.kind = k.kind EXCEPT ALL
                                  SELECT * FROM i WHERE i.kind = k.kind) d)
    FROM (VALUES ('bigint'), ('text'), ('bytea'), ('uuid')) k(kind)
$$;
