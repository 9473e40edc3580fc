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
-- Descriptions of the internal helpers (README.md, Reference: Support objects)
-- ---------------------------------------------------------------------------
COMMENT ON FUNCTION _bst_full_depth(text, bigint, bigint, integer, integer, integer, text, bigint) IS
    'internal: validates a full BloomSampleTree''s parameters and memory, returns its depth';
COMMENT ON FUNCTION _bst_collect_ids(text) IS
    'internal: the ids source_query returns, sorted and distinct, validated';
COMMENT ON FUNCTION _bst_pruned_leaf_size(text, bigint[], integer, integer, integer, text, bigint) IS
    'internal: validates a pruned BloomSampleTree''s parameters and memory, returns its leaf size';
COMMENT ON FUNCTION _bst_extend(text, bigint[]) IS
    'internal: the ids of the array a pruned BloomSampleTree does not hold yet, sorted, after a memory check of the extended tree';
COMMENT ON FUNCTION _bst_store_ids(text, bigint[], integer) IS
    'internal: stores a pruned BloomSampleTree''s ids in bst_tree_ids, in chunks; returns the chunks written';
COMMENT ON FUNCTION _bst_set_generation(text, bigint) IS
    'internal: a BloomSampleTree was extended (or not): every session rebuilds it from the catalog at its next call';
COMMENT ON FUNCTION _bst_forget(text) IS
    'internal: a BloomSampleTree was dropped: forgets it in this backend and its shared image';
COMMENT ON FUNCTION _bst_new_generation() IS
    'internal: a random generation number for a BloomSampleTree definition';
