-- bloomsample install script, part 1b: what the planner knows of bloomfilter values
-- (docs/planner.md): statistics from ANALYZE, the selectivity of @> / <@ (restriction
-- and join), and the cost of the functions that read a whole filter.  Every statement
-- here is also in the upgrade script from 1.0.

-- ANALYZE keeps, per parameter set, a bounded bit-sliced sample of the column's filters
CREATE FUNCTION bloomfilter_typanalyze(internal) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C STRICT STABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloomfilter_typanalyze(internal) IS
    'ANALYZE of bloomfilter columns: per parameter set, fills and a bounded sample of the filters for the planner';
ALTER TYPE bloomfilter SET (ANALYZE = bloomfilter_typanalyze);

CREATE FUNCTION bloom_contsel(internal, oid, internal, integer) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C STRICT STABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_contsel(internal, oid, internal, integer) IS
    'restriction selectivity of filter @> element and element <@ filter, from the column''s statistics';
CREATE FUNCTION bloom_contjoinsel(internal, oid, internal, smallint, internal) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C STRICT STABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_contjoinsel(internal, oid, internal, smallint, internal) IS
    'join selectivity of filter @> element and element <@ filter: the filter column''s sample against the element column''s common values and histogram';
CREATE FUNCTION bloomfilter_support(internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C STRICT STABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloomfilter_support(internal) IS
    'planner support of the functions reading filters: their cost (detoasting included); for bloom_contains / bloom_contained also selectivity and bloofi index conditions';

DO $$
DECLARE
    elem text;
BEGIN
    FOREACH elem IN ARRAY ARRAY['bigint', 'text', 'bytea', 'uuid'] LOOP
        EXECUTE format('ALTER OPERATOR @> (bloomfilter, %s) SET (RESTRICT = bloom_contsel, JOIN = bloom_contjoinsel)', elem);
        EXECUTE format('ALTER OPERATOR <@ (%s, bloomfilter) SET (RESTRICT = bloom_contsel, JOIN = bloom_contjoinsel)', elem);
        EXECUTE format('ALTER FUNCTION bloom_contains(bloomfilter, %s) COST 20 SUPPORT bloomfilter_support', elem);
        EXECUTE format('ALTER FUNCTION bloom_contained(%s, bloomfilter) COST 20 SUPPORT bloomfilter_support', elem);
    END LOOP;
END
$$;

-- procost: an in-line filter (the support function charges TOAST fetches and decompression)
ALTER FUNCTION bloom_m(bloomfilter) COST 10 SUPPORT bloomfilter_support;
ALTER FUNCTION bloom_k(bloomfilter) COST 10 SUPPORT bloomfilter_support;
ALTER FUNCTION bloom_seed(bloomfilter) COST 10 SUPPORT bloomfilter_support;
ALTER FUNCTION bloom_hash(bloomfilter) COST 10 SUPPORT bloomfilter_support;
ALTER FUNCTION bloom_popcount(bloomfilter) COST 20 SUPPORT bloomfilter_support;
ALTER FUNCTION bloom_fill_ratio(bloomfilter) COST 20 SUPPORT bloomfilter_support;
ALTER FUNCTION bloom_fp_rate(bloomfilter) COST 20 SUPPORT bloomfilter_support;
ALTER FUNCTION bloom_cardinality(bloomfilter) COST 20 SUPPORT bloomfilter_support;
ALTER FUNCTION bloomfilter_hash(bloomfilter) COST 20 SUPPORT bloomfilter_support;
ALTER FUNCTION bloom_fold(bloomfilter, integer) COST 30 SUPPORT bloomfilter_support;
ALTER FUNCTION bloom_eq(bloomfilter, bloomfilter) COST 20 SUPPORT bloomfilter_support;
ALTER FUNCTION bloom_ne(bloomfilter, bloomfilter) COST 20 SUPPORT bloomfilter_support;
ALTER FUNCTION bloom_intersect(bloomfilter, bloomfilter) COST 30 SUPPORT bloomfilter_support;
ALTER FUNCTION bloom_union(bloomfilter, bloomfilter) COST 30 SUPPORT bloomfilter_support;
ALTER FUNCTION bloom_intersection_cardinality(bloomfilter, bloomfilter) COST 40 SUPPORT bloomfilter_support;
ALTER FUNCTION bloom_union_cardinality(bloomfilter, bloomfilter) COST 40 SUPPORT bloomfilter_support;
ALTER FUNCTION bloom_jaccard(bloomfilter, bloomfilter) COST 40 SUPPORT bloomfilter_support;

CREATE FUNCTION bloom_column_stats(tab regclass, col name,
    OUT m bigint, OUT k integer, OUT seed integer, OUT hash text,
    OUT row_fraction float8, OUT mean_fill float8, OUT fp_rate float8,
    OUT mean_cardinality float8, OUT sample_distinct_elements float8,
    OUT analyzed_rows bigint, OUT sample_filters integer, OUT sample_bits bigint,
    OUT null_fraction float8, OUT toasted_fraction float8, OUT compressed_fraction float8,
    OUT mean_bytes float8)
    RETURNS SETOF record
    AS 'MODULE_PATHNAME' LANGUAGE C STRICT STABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_column_stats(regclass, name) IS
    'what ANALYZE keeps of a bloomfilter column, one row per parameter set: its share of the rows, mean fill, false-positive rate, elements per filter, distinct elements of the sample (NULL: too many to tell), rows analyzed, the planner''s sample (filters, bits each) and how the column stores its values';
