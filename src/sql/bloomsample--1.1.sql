-- bloomsample install script, part 1: the bloomfilter type (README.md, Reference).
-- The parts src/sql/[0-9][0-9]_*.sql are concatenated in name order into the install
-- script of the current version (Makefile: EXTVERSION); changes also go into the upgrade script.

\echo Use "CREATE EXTENSION bloomsample" to load this file. \quit

-- ---------------------------------------------------------------------------
-- The type
-- ---------------------------------------------------------------------------
CREATE TYPE bloomfilter;

CREATE FUNCTION bloomfilter_in(cstring, oid, integer) RETURNS bloomfilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloomfilter_out(bloomfilter) RETURNS cstring
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloomfilter_recv(internal, oid, integer) RETURNS bloomfilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloomfilter_send(bloomfilter) RETURNS bytea
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloomfilter_typmod_in(cstring[]) RETURNS integer
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloomfilter_typmod_out(integer) RETURNS cstring
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE bloomfilter (
    INPUT = bloomfilter_in,
    OUTPUT = bloomfilter_out,
    RECEIVE = bloomfilter_recv,
    SEND = bloomfilter_send,
    TYPMOD_IN = bloomfilter_typmod_in,
    TYPMOD_OUT = bloomfilter_typmod_out,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = int4,
    STORAGE = extended
);
COMMENT ON TYPE bloomfilter IS
    'Bloom filter of m bits and k hash functions (with seed and hash family); typmod bloomfilter(m, k)';

-- length coercion: makes a bloomfilter(m, k) column reject other parameters
CREATE FUNCTION bloomfilter(bloomfilter, integer, boolean) RETURNS bloomfilter
    AS 'MODULE_PATHNAME', 'bloomfilter_enforce_typmod'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (bloomfilter AS bloomfilter)
    WITH FUNCTION bloomfilter(bloomfilter, integer, boolean) AS IMPLICIT;

-- ---------------------------------------------------------------------------
-- Building filters
-- ---------------------------------------------------------------------------
CREATE FUNCTION bloom_empty(m integer, k integer, seed integer DEFAULT 0,
                            hash text DEFAULT 'xxh3') RETURNS bloomfilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_for_capacity(n bigint, fp_rate float8, seed integer DEFAULT 0)
    RETURNS bloomfilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_add(bloomfilter, bigint) RETURNS bloomfilter
    AS 'MODULE_PATHNAME', 'bloom_add_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_add(bloomfilter, text) RETURNS bloomfilter
    AS 'MODULE_PATHNAME', 'bloom_add_bytes' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_add(bloomfilter, bytea) RETURNS bloomfilter
    AS 'MODULE_PATHNAME', 'bloom_add_bytes' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_add(bloomfilter, uuid) RETURNS bloomfilter
    AS 'MODULE_PATHNAME', 'bloom_add_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_from_array(bigint[], m integer, k integer, seed integer DEFAULT 0,
                                 hash text DEFAULT 'xxh3') RETURNS bloomfilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_from_array(text[], m integer, k integer, seed integer DEFAULT 0,
                                 hash text DEFAULT 'xxh3') RETURNS bloomfilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- bloom_agg: one transition function per element type and arity,
-- (state, elem, m, k [, seed [, hash]]), all backed by one C function per type
DO $$
DECLARE
    elem text;
    args text;
    csym text;
BEGIN
    FOR elem, csym IN VALUES ('bigint', 'bloom_agg_trans_int8'), ('text', 'bloom_agg_trans_bytes'),
                             ('bytea', 'bloom_agg_trans_bytes'), ('uuid', 'bloom_agg_trans_uuid') LOOP
        FOREACH args IN ARRAY ARRAY['integer, integer', 'integer, integer, integer',
                                    'integer, integer, integer, text'] LOOP
            EXECUTE format($f$
                CREATE FUNCTION bloom_agg_trans(internal, %1$s, %2$s) RETURNS internal
                    AS 'MODULE_PATHNAME', %3$L LANGUAGE C IMMUTABLE PARALLEL SAFE$f$,
                elem, args, csym);
        END LOOP;
    END LOOP;
END
$$;

CREATE FUNCTION bloom_union_trans(internal, bloomfilter) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION bloom_intersect_trans(internal, bloomfilter) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION bloom_union_combine(internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION bloom_intersect_combine(internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION bloom_agg_serial(internal) RETURNS bytea
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_agg_deserial(bytea, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_agg_final(internal) RETURNS bloomfilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

DO $$
DECLARE
    elem text;
    args text;
BEGIN
    FOREACH elem IN ARRAY ARRAY['bigint', 'text', 'bytea', 'uuid'] LOOP
        FOREACH args IN ARRAY ARRAY['integer, integer', 'integer, integer, integer',
                                    'integer, integer, integer, text'] LOOP
            EXECUTE format($f$
                CREATE AGGREGATE bloom_agg(%1$s, %2$s) (
                    SFUNC = bloom_agg_trans, STYPE = internal,
                    COMBINEFUNC = bloom_union_combine,
                    SERIALFUNC = bloom_agg_serial, DESERIALFUNC = bloom_agg_deserial,
                    FINALFUNC = bloom_agg_final, PARALLEL = SAFE)$f$, elem, args);
        END LOOP;
    END LOOP;
END
$$;

CREATE AGGREGATE bloom_union_agg(bloomfilter) (
    SFUNC = bloom_union_trans, STYPE = internal,
    COMBINEFUNC = bloom_union_combine,
    SERIALFUNC = bloom_agg_serial, DESERIALFUNC = bloom_agg_deserial,
    FINALFUNC = bloom_agg_final, PARALLEL = SAFE);
CREATE AGGREGATE bloom_intersect_agg(bloomfilter) (
    SFUNC = bloom_intersect_trans, STYPE = internal,
    COMBINEFUNC = bloom_intersect_combine,
    SERIALFUNC = bloom_agg_serial, DESERIALFUNC = bloom_agg_deserial,
    FINALFUNC = bloom_agg_final, PARALLEL = SAFE);

-- ---------------------------------------------------------------------------
-- Membership, combination, equality
-- ---------------------------------------------------------------------------
CREATE FUNCTION bloom_contains(bloomfilter, bigint) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bloom_contains_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_contains(bloomfilter, text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bloom_contains_bytes' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_contains(bloomfilter, bytea) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bloom_contains_bytes' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_contains(bloomfilter, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bloom_contains_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_contained(bigint, bloomfilter) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bloom_contained_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_contained(text, bloomfilter) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bloom_contained_bytes' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_contained(bytea, bloomfilter) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bloom_contained_bytes' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_contained(uuid, bloomfilter) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bloom_contained_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_intersect(bloomfilter, bloomfilter) RETURNS bloomfilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_union(bloomfilter, bloomfilter) RETURNS bloomfilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_eq(bloomfilter, bloomfilter) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_ne(bloomfilter, bloomfilter) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

DO $$
DECLARE
    elem text;
BEGIN
    FOREACH elem IN ARRAY ARRAY['bigint', 'text', 'bytea', 'uuid'] LOOP
        EXECUTE format($f$
            CREATE OPERATOR @> (LEFTARG = bloomfilter, RIGHTARG = %1$s,
                                FUNCTION = bloom_contains, COMMUTATOR = <@,
                                RESTRICT = contsel, JOIN = contjoinsel)$f$, elem);
        EXECUTE format($f$
            CREATE OPERATOR <@ (LEFTARG = %1$s, RIGHTARG = bloomfilter,
                                FUNCTION = bloom_contained, COMMUTATOR = @>,
                                RESTRICT = contsel, JOIN = contjoinsel)$f$, elem);
    END LOOP;
END
$$;

CREATE OPERATOR & (LEFTARG = bloomfilter, RIGHTARG = bloomfilter,
                   FUNCTION = bloom_intersect, COMMUTATOR = &);
CREATE OPERATOR | (LEFTARG = bloomfilter, RIGHTARG = bloomfilter,
                   FUNCTION = bloom_union, COMMUTATOR = |);
CREATE OPERATOR = (LEFTARG = bloomfilter, RIGHTARG = bloomfilter,
                   FUNCTION = bloom_eq, COMMUTATOR = =, NEGATOR = <>,
                   RESTRICT = eqsel, JOIN = eqjoinsel, HASHES);
CREATE OPERATOR <> (LEFTARG = bloomfilter, RIGHTARG = bloomfilter,
                    FUNCTION = bloom_ne, COMMUTATOR = <>, NEGATOR = =,
                    RESTRICT = neqsel, JOIN = neqjoinsel);

-- hash support: GROUP BY, DISTINCT and hash joins on filters
CREATE FUNCTION bloomfilter_hash(bloomfilter) RETURNS integer
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR CLASS bloomfilter_hash_ops DEFAULT FOR TYPE bloomfilter USING hash AS
    OPERATOR 1 = (bloomfilter, bloomfilter),
    FUNCTION 1 bloomfilter_hash(bloomfilter);

-- ---------------------------------------------------------------------------
-- Introspection, estimates, sizing
-- ---------------------------------------------------------------------------
CREATE FUNCTION bloom_m(bloomfilter) RETURNS bigint
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_k(bloomfilter) RETURNS integer
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_seed(bloomfilter) RETURNS integer
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_hash(bloomfilter) RETURNS text
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_popcount(bloomfilter) RETURNS bigint
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_fill_ratio(bloomfilter) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_fp_rate(bloomfilter) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_cardinality(bloomfilter) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR # (RIGHTARG = bloomfilter, FUNCTION = bloom_cardinality);
CREATE FUNCTION bloom_intersection_cardinality(bloomfilter, bloomfilter) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_union_cardinality(bloomfilter, bloomfilter) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_jaccard(bloomfilter, bloomfilter) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_optimal_m(n bigint, fp_rate float8) RETURNS bigint
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_optimal_k(m bigint, n bigint) RETURNS integer
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_expected_fp(m bigint, k integer, n bigint) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_fold(f bloomfilter, factor integer DEFAULT 2) RETURNS bloomfilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
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
-- bloomsample install script, part 10: BloomSampleTree sampling and
-- reconstruction (README.md, Reference; design: docs/bloomsampletree.md).

-- ---------------------------------------------------------------------------
-- Catalog: tree definitions persist here (dumped by pg_dump, dropped with
-- the extension).  A full tree is rebuilt from its row; a pruned tree's
-- occupied ids are stored in bst_tree_ids in chunks.  `generation` is a
-- random number changed by every bst_extend: a tree's shared image file is
-- named by it, and backends reload a tree whose generation changed (they
-- look only after bst_extend or bst_drop sent an invalidation).
-- ---------------------------------------------------------------------------
CREATE TABLE bst_tree_catalog (
    name         text PRIMARY KEY CHECK (name <> ''),
    kind         text NOT NULL CHECK (kind IN ('full', 'pruned')),
    namespace_lo bigint,            -- full trees: [namespace_lo, namespace_hi)
    namespace_hi bigint,
    m            integer NOT NULL,
    k            integer NOT NULL,
    seed         integer NOT NULL,
    hash         text NOT NULL,
    leaf_size    bigint NOT NULL,   -- full: ids per leaf; pruned: leaf span (2^b)
    depth        integer,           -- full: levels below the root
    generation   bigint NOT NULL,
    created      timestamptz NOT NULL DEFAULT now(),
    CHECK (kind = 'pruned' OR (namespace_lo < namespace_hi AND depth >= 0))
);
COMMENT ON TABLE bst_tree_catalog IS 'BloomSampleTree definitions (managed by bst_create, bst_create_pruned, bst_extend, bst_drop)';

CREATE TABLE bst_tree_ids (
    name  text NOT NULL,
    chunk integer NOT NULL,
    ids   bigint[] NOT NULL,
    PRIMARY KEY (name, chunk)
);
-- read back whole on every (re)build: stored uncompressed for speed
ALTER TABLE bst_tree_ids ALTER COLUMN ids SET STORAGE EXTERNAL;
COMMENT ON TABLE bst_tree_ids IS 'Occupied ids of pruned BloomSampleTrees, in chunks';

-- every role may use the trees (sampling reads the catalog as the caller);
-- creating, extending and dropping trees needs write access to these tables
-- (the extension's owner, or GRANT INSERT, UPDATE, DELETE to trusted roles)
GRANT SELECT ON bst_tree_catalog, bst_tree_ids TO PUBLIC;

SELECT pg_catalog.pg_extension_config_dump('bst_tree_catalog', '');
SELECT pg_catalog.pg_extension_config_dump('bst_tree_ids', '');

-- ---------------------------------------------------------------------------
-- Sizing
-- ---------------------------------------------------------------------------
CREATE FUNCTION bst_plan(n bigint, namespace_size bigint, accuracy float8, k integer DEFAULT 3)
    RETURNS TABLE(m bigint, depth integer, leaf_size bigint, nodes bigint,
                  memory_bytes bigint, expected_fp float8)
    AS 'MODULE_PATHNAME', 'bst_plan_sql'
    LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 1;
COMMENT ON FUNCTION bst_plan(bigint, bigint, float8, integer) IS
    'BloomSampleTree parameters for a target accuracy n / (n + (M - n) FP) (Sengupta et al., section 5.4)';

-- ---------------------------------------------------------------------------
-- Internal helpers (validation, memory checks, cache maintenance)
-- ---------------------------------------------------------------------------
CREATE FUNCTION _bst_full_depth(name text, lo bigint, hi bigint, m integer, k integer,
                                seed integer, hash text, leaf_size bigint)
    RETURNS integer AS 'MODULE_PATHNAME', 'bst_full_depth'
    LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION _bst_collect_ids(source_query text) RETURNS bigint[]
    AS 'MODULE_PATHNAME', 'bst_collect_ids'
    LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
CREATE FUNCTION _bst_pruned_leaf_size(name text, ids bigint[], m integer, k integer,
                                      seed integer, hash text, leaf_size bigint)
    RETURNS bigint AS 'MODULE_PATHNAME', 'bst_pruned_leaf_size'
    LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION _bst_extend(name text, ids bigint[]) RETURNS bigint[]
    AS 'MODULE_PATHNAME', 'bst_extend_ids'
    LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
CREATE FUNCTION _bst_store_ids(name text, ids bigint[], first_chunk integer) RETURNS integer
    AS 'MODULE_PATHNAME', 'bst_store_ids'
    LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
CREATE FUNCTION _bst_set_generation(name text, generation bigint) RETURNS void
    AS 'MODULE_PATHNAME', 'bst_set_generation'
    LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
CREATE FUNCTION _bst_forget(name text) RETURNS void
    AS 'MODULE_PATHNAME', 'bst_forget'
    LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
CREATE FUNCTION _bst_new_generation() RETURNS bigint
    LANGUAGE sql VOLATILE PARALLEL SAFE
    AS $$ SELECT (floor(random() * 4611686018427387904)::bigint << 1) # floor(random() * 1048576)::bigint $$;

-- ---------------------------------------------------------------------------
-- Managing trees
-- ---------------------------------------------------------------------------
CREATE FUNCTION bst_create(name text, namespace_lo bigint, namespace_hi bigint,
                           m integer, k integer, seed integer DEFAULT 0,
                           hash text DEFAULT 'xxh3', leaf_size bigint DEFAULT NULL)
    RETURNS void LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
AS $$
DECLARE
    d integer;
BEGIN
    d := @extschema@._bst_full_depth(name, namespace_lo, namespace_hi, m, k, seed, hash, leaf_size);
    BEGIN
        INSERT INTO @extschema@.bst_tree_catalog
            (name, kind, namespace_lo, namespace_hi, m, k, seed, hash, leaf_size, depth, generation)
        VALUES (name, 'full', namespace_lo, namespace_hi, m, k, seed, hash,
                ((namespace_hi - namespace_lo) + (1::bigint << d) - 1) >> d, d,
                @extschema@._bst_new_generation());
    EXCEPTION WHEN unique_violation THEN
        RAISE EXCEPTION 'BloomSampleTree "%" already exists', name
            USING ERRCODE = 'duplicate_object',
                  HINT = 'Drop it with bst_drop() first, or choose another name.';
    END;
    -- build it now: errors surface here, and this backend has it cached
    PERFORM * FROM @extschema@.bst_info(name);
END;
$$;
COMMENT ON FUNCTION bst_create(text, bigint, bigint, integer, integer, integer, text, bigint) IS
    'create a full BloomSampleTree over [namespace_lo, namespace_hi)';

CREATE FUNCTION bst_create_pruned(name text, source_query text, m integer, k integer,
                                  seed integer DEFAULT 0, hash text DEFAULT 'xxh3',
                                  leaf_size bigint DEFAULT NULL)
    RETURNS void LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
AS $$
DECLARE
    ids bigint[];
    span bigint;
BEGIN
    IF name IS NULL OR source_query IS NULL THEN
        RAISE EXCEPTION 'bst_create_pruned: name and source_query must not be NULL'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF EXISTS (SELECT 1 FROM @extschema@.bst_tree_catalog c WHERE c.name = bst_create_pruned.name) THEN
        RAISE EXCEPTION 'BloomSampleTree "%" already exists', name
            USING ERRCODE = 'duplicate_object',
                  HINT = 'Drop it with bst_drop() first, or choose another name.';
    END IF;
    ids := @extschema@._bst_collect_ids(source_query);
    span := @extschema@._bst_pruned_leaf_size(name, ids, m, k, seed, hash, leaf_size);
    BEGIN
        INSERT INTO @extschema@.bst_tree_catalog
            (name, kind, m, k, seed, hash, leaf_size, generation)
        VALUES (name, 'pruned', m, k, seed, hash, span, @extschema@._bst_new_generation());
    EXCEPTION WHEN unique_violation THEN
        RAISE EXCEPTION 'BloomSampleTree "%" already exists', name
            USING ERRCODE = 'duplicate_object',
                  HINT = 'Drop it with bst_drop() first, or choose another name.';
    END;
    PERFORM @extschema@._bst_store_ids(name, ids, 0);
    PERFORM * FROM @extschema@.bst_info(name);
END;
$$;
COMMENT ON FUNCTION bst_create_pruned(text, text, integer, integer, integer, text, bigint) IS
    'create a pruned BloomSampleTree over the ids source_query returns (one bigint column)';

CREATE FUNCTION bst_extend(name text, ids bigint[]) RETURNS bigint
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
AS $$
DECLARE
    knd text;
    fresh bigint[];
    gen bigint;
BEGIN
    SELECT c.kind INTO knd FROM @extschema@.bst_tree_catalog c
    WHERE c.name = bst_extend.name FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'BloomSampleTree "%" does not exist', name
            USING ERRCODE = 'undefined_object',
                  HINT = 'The view bst_trees lists the trees.';
    END IF;
    fresh := @extschema@._bst_extend(name, ids);
    IF coalesce(cardinality(fresh), 0) = 0 THEN
        PERFORM @extschema@._bst_set_generation(name,
            (SELECT c.generation FROM @extschema@.bst_tree_catalog c WHERE c.name = bst_extend.name));
        RETURN 0;
    END IF;
    INSERT INTO @extschema@.bst_tree_ids (name, chunk, ids)
    SELECT bst_extend.name, coalesce(max(t.chunk) + 1, 0), fresh
    FROM @extschema@.bst_tree_ids t WHERE t.name = bst_extend.name;
    gen := @extschema@._bst_new_generation();
    UPDATE @extschema@.bst_tree_catalog c SET generation = gen WHERE c.name = bst_extend.name;
    PERFORM @extschema@._bst_set_generation(name, gen);
    RETURN cardinality(fresh);
END;
$$;
COMMENT ON FUNCTION bst_extend(text, bigint[]) IS
    'add occupied ids to a pruned BloomSampleTree; returns how many were new';

CREATE FUNCTION bst_drop(name text) RETURNS void
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
AS $$
BEGIN
    DELETE FROM @extschema@.bst_tree_catalog c WHERE c.name = bst_drop.name;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'BloomSampleTree "%" does not exist', name
            USING ERRCODE = 'undefined_object',
                  HINT = 'The view bst_trees lists the trees.';
    END IF;
    DELETE FROM @extschema@.bst_tree_ids t WHERE t.name = bst_drop.name;
    PERFORM @extschema@._bst_forget(name);
END;
$$;
COMMENT ON FUNCTION bst_drop(text) IS 'drop a BloomSampleTree';

CREATE FUNCTION bst_info(name text,
    OUT tree_name text, OUT kind text, OUT namespace_lo bigint, OUT namespace_hi bigint,
    OUT m integer, OUT k integer, OUT seed integer, OUT hash text, OUT depth integer,
    OUT leaf_size bigint, OUT nodes bigint, OUT leaves bigint, OUT ids bigint,
    OUT memory_bytes bigint, OUT index_bytes bigint, OUT shared boolean,
    OUT image_bytes bigint)
    AS 'MODULE_PATHNAME', 'bst_info'
    LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION bst_info(text) IS
    'shape and size of a BloomSampleTree (ids: namespace size or occupied ids; shared: one image file per cluster)';

CREATE VIEW bst_trees AS
SELECT c.name, c.kind, c.namespace_lo, c.namespace_hi, c.m, c.k, c.seed, c.hash,
       c.leaf_size, c.depth,
       CASE c.kind WHEN 'full' THEN c.namespace_hi - c.namespace_lo
            ELSE (SELECT coalesce(sum(cardinality(t.ids)), 0)::bigint
                  FROM @extschema@.bst_tree_ids t WHERE t.name = c.name) END AS ids,
       c.created
FROM @extschema@.bst_tree_catalog c;
COMMENT ON VIEW bst_trees IS 'the BloomSampleTrees of this database';

-- ---------------------------------------------------------------------------
-- Sampling and reconstruction
-- ---------------------------------------------------------------------------
CREATE FUNCTION bst_sample(name text, q bloomfilter, n integer DEFAULT 1) RETURNS SETOF bigint
    AS 'MODULE_PATHNAME', 'bst_sample_sql'
    LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bst_sample(text, bloomfilter, integer) IS
    'n independent samples, each uniform over the tree''s ids that q reports as members';

CREATE FUNCTION bst_reconstruct(name text, q bloomfilter) RETURNS SETOF bigint
    AS 'MODULE_PATHNAME', 'bst_reconstruct_sql'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bst_reconstruct(text, bloomfilter) IS
    'every id of the tree that q reports as a member, ascending (= the dictionary attack)';

CREATE FUNCTION bst_sample_stats(name text, q bloomfilter, n integer DEFAULT 1)
    RETURNS TABLE(intersections bigint, memberships bigint, nodes_visited bigint, backtracks bigint)
    AS 'MODULE_PATHNAME', 'bst_sample_stats'
    LANGUAGE C VOLATILE STRICT PARALLEL SAFE ROWS 1;
COMMENT ON FUNCTION bst_sample_stats(text, bloomfilter, integer) IS
    'the work one bst_sample call does';

CREATE FUNCTION bst_reconstruct_stats(name text, q bloomfilter)
    RETURNS TABLE(intersections bigint, memberships bigint, nodes_visited bigint, backtracks bigint)
    AS 'MODULE_PATHNAME', 'bst_reconstruct_stats'
    LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 1;
COMMENT ON FUNCTION bst_reconstruct_stats(text, bloomfilter) IS
    'the work one bst_reconstruct call does';

-- ---------------------------------------------------------------------------
-- Baselines (paper, section 4) and the clustered query-set generator (7.1)
-- ---------------------------------------------------------------------------
CREATE FUNCTION bloom_dictionary_attack(q bloomfilter, lo bigint, hi bigint) RETURNS SETOF bigint
    AS 'MODULE_PATHNAME', 'bloom_dictionary_attack'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_dictionary_attack(bloomfilter, bigint, bigint) IS
    'baseline: every x in [lo, hi) that q reports as a member, ascending';

CREATE FUNCTION bloom_dictionary_sample(q bloomfilter, lo bigint, hi bigint, n integer DEFAULT 1)
    RETURNS SETOF bigint
    AS 'MODULE_PATHNAME', 'bloom_dictionary_sample'
    LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_dictionary_sample(bloomfilter, bigint, bigint, integer) IS
    'baseline: n independent uniform samples of the members in [lo, hi), by reservoir sampling';

CREATE FUNCTION bloom_hashinvert(q bloomfilter, lo bigint, hi bigint) RETURNS SETOF bigint
    AS 'MODULE_PATHNAME', 'bloom_hashinvert'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_hashinvert(bloomfilter, bigint, bigint) IS
    'baseline for hash ''linear'': the members in [lo, hi) by inverting set (or unset) bits';

CREATE FUNCTION bst_clustered_ids(n bigint, lo bigint, hi bigint, p float8 DEFAULT 0.1,
                                  seed bigint DEFAULT 0) RETURNS SETOF bigint
    AS 'MODULE_PATHNAME', 'bst_clustered_ids'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bst_clustered_ids(bigint, bigint, bigint, float8, bigint) IS
    'n distinct clustered ids of [lo, hi), ascending (the BloomSampleTree paper''s generator, section 7.1)';
-- ---------------------------------------------------------------------------
-- Bloofi: an index access method over bloomfilter columns answering
-- `f @> elem` (elem bigint, text, bytea, uuid).  Design notes:
-- docs/bloofi.md.
-- ---------------------------------------------------------------------------

CREATE FUNCTION bloofi_handler(internal) RETURNS index_am_handler
    AS 'MODULE_PATHNAME' LANGUAGE C STRICT;

CREATE ACCESS METHOD bloofi TYPE INDEX HANDLER bloofi_handler;
COMMENT ON ACCESS METHOD bloofi IS
    'Bloofi: index of Bloom filters answering filter @> element (bit-sliced groups under OR summaries)';

CREATE OPERATOR CLASS bloomfilter_bloofi_ops
    DEFAULT FOR TYPE bloomfilter USING bloofi AS
        OPERATOR 1 @> (bloomfilter, bigint),
        OPERATOR 1 @> (bloomfilter, text),
        OPERATOR 1 @> (bloomfilter, bytea),
        OPERATOR 1 @> (bloomfilter, uuid);

CREATE FUNCTION bloofi_stats(index regclass,
    OUT height integer, OUT nodes bigint, OUT leaves bigint, OUT pages bigint,
    OUT inner_nodes bigint, OUT bottom_nodes bigint, OUT "order" integer,
    OUT leaf_capacity integer, OUT slots bigint, OUT free_slots bigint,
    OUT m bigint, OUT k integer, OUT avg_bottom_fill float8, OUT root_fill float8,
    OUT pending bigint, OUT flushing bigint, OUT retired_nodes bigint, OUT free_nodes bigint,
    OUT retired_pages bigint, OUT free_pages bigint)
    RETURNS record
    AS 'MODULE_PATHNAME' LANGUAGE C STRICT VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION bloofi_stats(regclass) IS
    'shape of a bloofi index: height (levels, leaves included), nodes (inner + bottom nodes + leaves, as the paper counts), leaves (in the tree and pending), pages, inner nodes, bottom nodes (whose children are leaves), order d, leaf_capacity, slots and free slots of the nodes, m, k, mean fill of the bottom nodes'' values, fill of the root''s value, leaves in the pending list, pending entries of a flush that was interrupted (finished by the next flush), nodes retired by splits and merges (freed by VACUUM once no scan can read them), runs of free pages, pages of the retired nodes, free pages (reused by new nodes of any size, cut off the end of the file by VACUUM)';

CREATE FUNCTION bloofi_check(index regclass) RETURNS void
    AS 'MODULE_PATHNAME' LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION bloofi_check(regclass) IS
    'verifies every invariant of a bloofi index against its table (takes a SHARE lock on the table); raises an error naming the first violation';

DO $$
DECLARE
    elem text;
BEGIN
    FOREACH elem IN ARRAY ARRAY['bigint', 'text', 'bytea', 'uuid'] LOOP
        EXECUTE format($f$
            CREATE FUNCTION bloofi_probe(index regclass, elem %1$s)
                RETURNS TABLE(nodes_checked bigint, matches bigint)
                AS 'MODULE_PATHNAME', 'bloofi_probe'
                LANGUAGE C STRICT VOLATILE PARALLEL SAFE ROWS 1$f$, elem);
        EXECUTE format($f$
            COMMENT ON FUNCTION bloofi_probe(regclass, %1$s) IS
                'search cost of one lookup as the Bloofi paper counts it (filters tested: the root''s value unless it is saturated, then every child of every node visited, leaves included) and the leaves matched'$f$, elem);
    END LOOP;
END
$$;
-- ---------------------------------------------------------------------------
-- BloomTree: the tree-structured, level-wise compressed
-- Bloom filter of Fu & Biersack.  See docs/bloomtree.md and src/bloomtree*.c.
-- ---------------------------------------------------------------------------

CREATE TYPE bloomtree;

CREATE FUNCTION bloomtree_in(cstring) RETURNS bloomtree
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomtree_in(cstring) IS
    'bloomtree text input: m={..},k={..},seed=..,v=1:<hex of the uncompressed bit array>';
CREATE FUNCTION bloomtree_out(bloomtree) RETURNS cstring
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomtree_out(bloomtree) IS
    'bloomtree text output: parameters and the uncompressed breadth-first bit array in hex';
CREATE FUNCTION bloomtree_recv(internal) RETURNS bloomtree
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomtree_recv(internal) IS
    'bloomtree binary input: the level-wise range-coded form, validated by decoding';
CREATE FUNCTION bloomtree_send(bloomtree) RETURNS bytea
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomtree_send(bloomtree) IS
    'bloomtree binary output: the level-wise range-coded form (what a node transmits)';

CREATE TYPE bloomtree (
    INPUT = bloomtree_in,
    OUTPUT = bloomtree_out,
    RECEIVE = bloomtree_recv,
    SEND = bloomtree_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = int4,
    STORAGE = external          -- stored range-coded already: TOAST compression would not help
);
COMMENT ON TYPE bloomtree IS
    'BloomTree (Fu & Biersack): d levels of small Bloom filters, one below every bit, stored range-coded level by level';

-- ---------------------------------------------------------------------------
-- Building trees
-- ---------------------------------------------------------------------------
CREATE FUNCTION bloomtree_empty(m integer[], k integer[], seed integer DEFAULT 0)
    RETURNS bloomtree
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomtree_empty(integer[], integer[], integer) IS
    'empty bloomtree: m[i] bits and k[i] hash functions per filter of level i, 1 to 8 levels';

CREATE FUNCTION bloomtree_from_array(bigint[], m integer[], k integer[], seed integer DEFAULT 0)
    RETURNS bloomtree
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomtree_from_array(bigint[], integer[], integer[], integer) IS
    'bloomtree of the non-NULL elements of a bigint array';
CREATE FUNCTION bloomtree_from_array(text[], m integer[], k integer[], seed integer DEFAULT 0)
    RETURNS bloomtree
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomtree_from_array(text[], integer[], integer[], integer) IS
    'bloomtree of the non-NULL elements of a text array';

-- per element type: add, membership (both argument orders), aggregate transition
DO $$
DECLARE
    elem text;
    suffix text;
BEGIN
    FOR elem, suffix IN VALUES ('bigint', 'int8'), ('text', 'bytes'), ('bytea', 'bytes'),
                               ('uuid', 'uuid') LOOP
        EXECUTE format($f$
            CREATE FUNCTION bloomtree_add(t bloomtree, elem %1$s) RETURNS bloomtree
                AS 'MODULE_PATHNAME', 'bloomtree_add_%2$s' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE$f$,
            elem, suffix);
        EXECUTE format($f$
            COMMENT ON FUNCTION bloomtree_add(bloomtree, %1$s) IS 'copy of the bloomtree with the element added'$f$,
            elem);
        EXECUTE format($f$
            CREATE FUNCTION bloomtree_contains(t bloomtree, elem %1$s) RETURNS boolean
                AS 'MODULE_PATHNAME', 'bloomtree_contains_%2$s' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE$f$,
            elem, suffix);
        EXECUTE format($f$
            COMMENT ON FUNCTION bloomtree_contains(bloomtree, %1$s) IS
                'membership: every filter the query visits has all its positions set'$f$, elem);
        EXECUTE format($f$
            CREATE FUNCTION bloomtree_contained(elem %1$s, t bloomtree) RETURNS boolean
                AS 'MODULE_PATHNAME', 'bloomtree_contained_%2$s' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE$f$,
            elem, suffix);
        EXECUTE format($f$
            COMMENT ON FUNCTION bloomtree_contained(%1$s, bloomtree) IS 'membership, element first (for <@)'$f$,
            elem);
        EXECUTE format($f$
            CREATE OPERATOR @> (LEFTARG = bloomtree, RIGHTARG = %1$s,
                                FUNCTION = bloomtree_contains, COMMUTATOR = <@,
                                RESTRICT = contsel, JOIN = contjoinsel)$f$, elem);
        EXECUTE format($f$
            CREATE OPERATOR <@ (LEFTARG = %1$s, RIGHTARG = bloomtree,
                                FUNCTION = bloomtree_contained, COMMUTATOR = @>,
                                RESTRICT = contsel, JOIN = contjoinsel)$f$, elem);
        EXECUTE format($f$
            CREATE FUNCTION bloomtree_agg_trans(internal, %1$s, integer[], integer[]) RETURNS internal
                AS 'MODULE_PATHNAME', 'bloomtree_agg_trans_%2$s' LANGUAGE C IMMUTABLE PARALLEL SAFE$f$,
            elem, suffix);
        EXECUTE format($f$
            COMMENT ON FUNCTION bloomtree_agg_trans(internal, %1$s, integer[], integer[]) IS
                'bloomtree_agg transition: insert the element'$f$, elem);
        EXECUTE format($f$
            CREATE FUNCTION bloomtree_agg_trans(internal, %1$s, integer[], integer[], integer) RETURNS internal
                AS 'MODULE_PATHNAME', 'bloomtree_agg_trans_%2$s' LANGUAGE C IMMUTABLE PARALLEL SAFE$f$,
            elem, suffix);
        EXECUTE format($f$
            COMMENT ON FUNCTION bloomtree_agg_trans(internal, %1$s, integer[], integer[], integer) IS
                'bloomtree_agg transition: insert the element'$f$, elem);
    END LOOP;
END
$$;

CREATE FUNCTION bloomtree_union_trans(internal, bloomtree) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloomtree_union_trans(internal, bloomtree) IS
    'bloomtree_union_agg transition: OR the tree into the state';
CREATE FUNCTION bloomtree_intersect_trans(internal, bloomtree) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloomtree_intersect_trans(internal, bloomtree) IS
    'bloomtree_intersect_agg transition: AND the tree into the state';
CREATE FUNCTION bloomtree_union_combine(internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloomtree_union_combine(internal, internal) IS
    'bloomtree_agg / bloomtree_union_agg combine: OR of two states';
CREATE FUNCTION bloomtree_intersect_combine(internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloomtree_intersect_combine(internal, internal) IS
    'bloomtree_intersect_agg combine: AND of two states';
CREATE FUNCTION bloomtree_agg_serial(internal) RETURNS bytea
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomtree_agg_serial(internal) IS
    'bloomtree aggregates: state to bytes (parameters and the uncompressed array)';
CREATE FUNCTION bloomtree_agg_deserial(bytea, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomtree_agg_deserial(bytea, internal) IS
    'bloomtree aggregates: bytes to state';
CREATE FUNCTION bloomtree_agg_final(internal) RETURNS bloomtree
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloomtree_agg_final(internal) IS
    'bloomtree_agg / bloomtree_union_agg final: the coded tree';
CREATE FUNCTION bloomtree_intersect_final(internal) RETURNS bloomtree
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloomtree_intersect_final(internal) IS
    'bloomtree_intersect_agg final: the AND, bits above empty filters cleared, coded';

DO $$
DECLARE
    elem text;
    args text;
BEGIN
    FOREACH elem IN ARRAY ARRAY['bigint', 'text', 'bytea', 'uuid'] LOOP
        FOREACH args IN ARRAY ARRAY['integer[], integer[]', 'integer[], integer[], integer'] LOOP
            EXECUTE format($f$
                CREATE AGGREGATE bloomtree_agg(%1$s, %2$s) (
                    SFUNC = bloomtree_agg_trans, STYPE = internal,
                    COMBINEFUNC = bloomtree_union_combine,
                    SERIALFUNC = bloomtree_agg_serial, DESERIALFUNC = bloomtree_agg_deserial,
                    FINALFUNC = bloomtree_agg_final, PARALLEL = SAFE)$f$, elem, args);
            EXECUTE format($f$
                COMMENT ON AGGREGATE bloomtree_agg(%1$s, %2$s) IS
                    'bloomtree of the group''s non-NULL elements (m, k [, seed] as in bloomtree_empty)'$f$,
                elem, args);
        END LOOP;
    END LOOP;
END
$$;

CREATE AGGREGATE bloomtree_union_agg(bloomtree) (
    SFUNC = bloomtree_union_trans, STYPE = internal,
    COMBINEFUNC = bloomtree_union_combine,
    SERIALFUNC = bloomtree_agg_serial, DESERIALFUNC = bloomtree_agg_deserial,
    FINALFUNC = bloomtree_agg_final, PARALLEL = SAFE);
COMMENT ON AGGREGATE bloomtree_union_agg(bloomtree) IS
    'filter-wise OR of the group''s non-NULL bloomtrees';
CREATE AGGREGATE bloomtree_intersect_agg(bloomtree) (
    SFUNC = bloomtree_intersect_trans, STYPE = internal,
    COMBINEFUNC = bloomtree_intersect_combine,
    SERIALFUNC = bloomtree_agg_serial, DESERIALFUNC = bloomtree_agg_deserial,
    FINALFUNC = bloomtree_intersect_final, PARALLEL = SAFE);
COMMENT ON AGGREGATE bloomtree_intersect_agg(bloomtree) IS
    'filter-wise AND of the group''s non-NULL bloomtrees (as a & b)';

-- ---------------------------------------------------------------------------
-- Combination, equality
-- ---------------------------------------------------------------------------
CREATE FUNCTION bloomtree_intersect(a bloomtree, b bloomtree) RETURNS bloomtree
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomtree_intersect(bloomtree, bloomtree) IS
    'filter-wise AND (section 4.6; bits above empty filters cleared): a tree of the intersection';
CREATE FUNCTION bloomtree_union(a bloomtree, b bloomtree) RETURNS bloomtree
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomtree_union(bloomtree, bloomtree) IS
    'filter-wise OR: the tree of the union';
CREATE FUNCTION bloomtree_eq(bloomtree, bloomtree) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomtree_eq(bloomtree, bloomtree) IS
    'same parameters and same bits';
CREATE FUNCTION bloomtree_ne(bloomtree, bloomtree) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomtree_ne(bloomtree, bloomtree) IS
    'different parameters or bits';

CREATE OPERATOR & (LEFTARG = bloomtree, RIGHTARG = bloomtree,
                   FUNCTION = bloomtree_intersect, COMMUTATOR = &);
CREATE OPERATOR | (LEFTARG = bloomtree, RIGHTARG = bloomtree,
                   FUNCTION = bloomtree_union, COMMUTATOR = |);
CREATE OPERATOR = (LEFTARG = bloomtree, RIGHTARG = bloomtree,
                   FUNCTION = bloomtree_eq, COMMUTATOR = =, NEGATOR = <>,
                   RESTRICT = eqsel, JOIN = eqjoinsel, HASHES);
CREATE OPERATOR <> (LEFTARG = bloomtree, RIGHTARG = bloomtree,
                    FUNCTION = bloomtree_ne, COMMUTATOR = <>, NEGATOR = =,
                    RESTRICT = neqsel, JOIN = neqjoinsel);

CREATE FUNCTION bloomtree_hash(bloomtree) RETURNS integer
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomtree_hash(bloomtree) IS
    'hash of a bloomtree (GROUP BY, DISTINCT, hash joins)';
CREATE OPERATOR CLASS bloomtree_hash_ops DEFAULT FOR TYPE bloomtree USING hash AS
    OPERATOR 1 = (bloomtree, bloomtree),
    FUNCTION 1 bloomtree_hash(bloomtree);

-- ---------------------------------------------------------------------------
-- Introspection, sizes, false positives
-- ---------------------------------------------------------------------------
CREATE FUNCTION bloomtree_m(t bloomtree) RETURNS integer[]
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomtree_m(bloomtree) IS 'bits per filter of each level';
CREATE FUNCTION bloomtree_k(t bloomtree) RETURNS integer[]
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomtree_k(bloomtree) IS 'hash functions per filter of each level';
CREATE FUNCTION bloomtree_seed(t bloomtree) RETURNS integer
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomtree_seed(bloomtree) IS 'hash seed';
CREATE FUNCTION bloomtree_fill(t bloomtree) RETURNS float8[]
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomtree_fill(bloomtree) IS 'fraction of ones of each level';
CREATE FUNCTION bloomtree_fp_rate(t bloomtree) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomtree_fp_rate(bloomtree) IS
    'the paper''s posterior false-positive probability (eq. 11-12, geometric mean over query processes), exact';
CREATE FUNCTION bloomtree_expected_fp(t bloomtree) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomtree_expected_fp(bloomtree) IS
    'probability that a random non-member is reported a member (what a measurement converges to)';
CREATE FUNCTION bloomtree_storage_bits(t bloomtree) RETURNS bigint
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomtree_storage_bits(bloomtree) IS
    'uncompressed size M_BT = m1 + m1*m2 + ... in bits';
CREATE FUNCTION bloomtree_compressed_bytes(t bloomtree) RETURNS bigint
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomtree_compressed_bytes(bloomtree) IS
    'bytes of the level-wise range-coded form, headers included (= length(bloomtree_send(t)))';
CREATE FUNCTION bloomtree_entropy_bytes(t bloomtree) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomtree_entropy_bytes(bloomtree) IS
    'Theorem 4.1: sum over levels of bits * H(fill) / 8, the order-0 level-wise bound';
CREATE FUNCTION bloomtree_levels(t bloomtree)
    RETURNS TABLE(level integer, m integer, k integer, filters bigint, bits bigint, ones bigint,
                  fill float8, coded_bits bigint, mode text, coded_bytes bigint,
                  entropy_bytes float8, coded_entropy_bytes float8)
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 3;
COMMENT ON FUNCTION bloomtree_levels(bloomtree) IS
    'per level: shape, ones, fill, bits coded, coding mode, coded bytes and entropy bounds';

-- ---------------------------------------------------------------------------
-- Parameter search (sections 5-6)
-- ---------------------------------------------------------------------------
CREATE FUNCTION bloomtree_optimize(n_max bigint, d integer, rho1 float8 DEFAULT 1.0,
                                   objective text DEFAULT 'expected')
    RETURNS TABLE(m integer[], k integer[], fp_rate float8, storage_bits bigint,
                  compressed_bits float8, expected_fp float8, sbf_bits float8)
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 100000 ROWS 20;
COMMENT ON FUNCTION bloomtree_optimize(bigint, integer, float8, text) IS
    'Pareto front of (false-positive rate, compressed size) over BloomTree configurations: exhaustive for d <= 2, NSGA-II above';
