-- bloomsample install script, part 1: the bloomfilter type (README.md, Reference).
-- The parts in src/sql/ are concatenated in name order into bloomsample--1.0.sql.

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
-- bloomsample install script, part 10: BloomSampleTree sampling and
-- reconstruction (README.md, Reference).

-- ---------------------------------------------------------------------------
-- Catalog: tree definitions persist here (dumped by pg_dump, dropped with
-- the extension).  A full tree is rebuilt from its row; a pruned tree's
-- occupied ids are stored in bst_tree_ids in chunks.  `generation` is a
-- random number changed by every bst_extend: backends rebuild a cached tree
-- whose generation differs.
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
    OUT memory_bytes bigint, OUT index_bytes bigint)
    AS 'MODULE_PATHNAME', 'bst_info'
    LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION bst_info(text) IS
    'shape and in-memory size of a BloomSampleTree (ids: namespace size or occupied ids)';

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
    LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION bst_sample(text, bloomfilter, integer) IS
    'n independent samples, each uniform over the tree''s ids that q reports as members';

CREATE FUNCTION bst_reconstruct(name text, q bloomfilter) RETURNS SETOF bigint
    AS 'MODULE_PATHNAME', 'bst_reconstruct_sql'
    LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION bst_reconstruct(text, bloomfilter) IS
    'every id of the tree that q reports as a member, ascending (= the dictionary attack)';

CREATE FUNCTION bst_sample_stats(name text, q bloomfilter, n integer DEFAULT 1)
    RETURNS TABLE(intersections bigint, memberships bigint, nodes_visited bigint, backtracks bigint)
    AS 'MODULE_PATHNAME', 'bst_sample_stats'
    LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED ROWS 1;
COMMENT ON FUNCTION bst_sample_stats(text, bloomfilter, integer) IS
    'the work one bst_sample call does';

CREATE FUNCTION bst_reconstruct_stats(name text, q bloomfilter)
    RETURNS TABLE(intersections bigint, memberships bigint, nodes_visited bigint, backtracks bigint)
    AS 'MODULE_PATHNAME', 'bst_reconstruct_stats'
    LANGUAGE C STABLE STRICT PARALLEL RESTRICTED ROWS 1;
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
-- `f @> elem` (elem bigint, text, bytea, uuid).  See README.md and
-- src/bloofi*.c.
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

-- Selectivity of f @> elem: probes a bloofi index on the column when there is one.
CREATE FUNCTION bloofi_contsel(internal, oid, internal, integer) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C STRICT STABLE PARALLEL SAFE;

DO $$
DECLARE
    elem text;
BEGIN
    FOREACH elem IN ARRAY ARRAY['bigint', 'text', 'bytea', 'uuid'] LOOP
        EXECUTE format('ALTER OPERATOR @> (bloomfilter, %s) SET (RESTRICT = bloofi_contsel)', elem);
        EXECUTE format('ALTER OPERATOR <@ (%s, bloomfilter) SET (RESTRICT = bloofi_contsel)', elem);
    END LOOP;
END
$$;

CREATE FUNCTION bloofi_stats(index regclass,
    OUT height integer, OUT nodes bigint, OUT leaves bigint, OUT pages bigint,
    OUT inner_nodes bigint, OUT bottom_nodes bigint, OUT "order" integer,
    OUT leaf_capacity integer, OUT slots bigint, OUT free_slots bigint,
    OUT m bigint, OUT k integer, OUT avg_bottom_fill float8, OUT root_fill float8,
    OUT pending bigint, OUT flushing bigint, OUT retired_nodes bigint, OUT free_nodes bigint)
    RETURNS record
    AS 'MODULE_PATHNAME' LANGUAGE C STRICT VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION bloofi_stats(regclass) IS
    'shape of a bloofi index: height (levels, leaves included), nodes (inner + bottom nodes + leaves, as the paper counts), leaves (in the tree and pending), pages, inner nodes, bottom nodes (whose children are leaves), order d, leaf_capacity, slots and free slots of the nodes, m, k, mean fill of the bottom nodes'' values, fill of the root''s value, leaves in the pending list, pending entries of a flush that was interrupted (finished by the next flush), nodes retired by splits and merges (freed by VACUUM once no scan can read them), free nodes (reused by new nodes)';

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
