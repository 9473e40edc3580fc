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
    owner        regrole NOT NULL,  -- the creating role (a name in dumps)
    grantees     regrole[] NOT NULL DEFAULT '{}',  -- may use it; '-' (0) is PUBLIC
    CHECK (kind = 'pruned' OR (namespace_lo < namespace_hi AND depth >= 0))
);
COMMENT ON TABLE bst_tree_catalog IS 'BloomSampleTree definitions (managed by bst_create, bst_create_pruned, bst_extend, bst_drop, bst_grant, bst_revoke)';

CREATE TABLE bst_tree_ids (
    name  text NOT NULL,
    chunk integer NOT NULL,
    ids   bigint[] NOT NULL,
    PRIMARY KEY (name, chunk)
);
-- read back whole on every (re)build: stored uncompressed for speed
ALTER TABLE bst_tree_ids ALTER COLUMN ids SET STORAGE EXTERNAL;
COMMENT ON TABLE bst_tree_ids IS 'Occupied ids of pruned BloomSampleTrees, in chunks';

-- private to their owner: the extension's C code reads and writes them as
-- their owner after checking the caller's privileges on the tree (README,
-- Security); the extension's owner may read them, so that it can pg_dump
GRANT SELECT ON bst_tree_catalog, bst_tree_ids TO @extowner@;

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
    'BloomSampleTree parameters for a target accuracy n / (n + (M - n) FP) (Sengupta et al., section 5.4) with k hash functions (3 by default: faster sampling than the optimal k); m = bloom_optimal_m(n, FP, k)';

-- ---------------------------------------------------------------------------
-- Internal helpers (tests and cache maintenance; the catalog's owner only)
-- ---------------------------------------------------------------------------
CREATE FUNCTION _bst_store_ids(name text, ids bigint[], first_chunk integer) RETURNS integer
    AS 'MODULE_PATHNAME', 'bst_store_ids'
    LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
CREATE FUNCTION _bst_forget(name text) RETURNS void
    AS 'MODULE_PATHNAME', 'bst_forget'
    LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
REVOKE ALL ON FUNCTION _bst_store_ids(text, bigint[], integer), _bst_forget(text) FROM PUBLIC;
CREATE FUNCTION _bst_may_use(kind text, owner regrole, grantees regrole[]) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bst_may_use'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION _bst_may_use(text, regrole, regrole[]) IS
    'may the current user use a BloomSampleTree of this kind, owner and grantees? (the filter of bst_trees)';

-- ---------------------------------------------------------------------------
-- Managing trees: the creating role owns a tree; the owner extends, drops
-- and grants it (README.md, Security)
-- ---------------------------------------------------------------------------
CREATE FUNCTION bst_create(name text, namespace_lo bigint, namespace_hi bigint,
                           m integer, k integer, seed integer DEFAULT 0,
                           hash text DEFAULT 'xxh3', leaf_size bigint DEFAULT NULL)
    RETURNS void AS 'MODULE_PATHNAME', 'bst_create_sql'
    LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION bst_create(text, bigint, bigint, integer, integer, integer, text, bigint) IS
    'create a full BloomSampleTree over [namespace_lo, namespace_hi)';

CREATE FUNCTION bst_create_pruned(name text, source_query text, m integer, k integer,
                                  seed integer DEFAULT 0, hash text DEFAULT 'xxh3',
                                  leaf_size bigint DEFAULT NULL)
    RETURNS void AS 'MODULE_PATHNAME', 'bst_create_pruned_sql'
    LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION bst_create_pruned(text, text, integer, integer, integer, text, bigint) IS
    'create a pruned BloomSampleTree over the ids source_query returns (one bigint column)';

CREATE FUNCTION bst_extend(name text, ids bigint[]) RETURNS bigint
    AS 'MODULE_PATHNAME', 'bst_extend_sql'
    LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION bst_extend(text, bigint[]) IS
    'add occupied ids to a pruned BloomSampleTree; returns how many were new';

CREATE FUNCTION bst_drop(name text) RETURNS void
    AS 'MODULE_PATHNAME', 'bst_drop_sql'
    LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION bst_drop(text) IS 'drop a BloomSampleTree';

CREATE FUNCTION bst_grant(name text, grantee text) RETURNS void
    AS 'MODULE_PATHNAME', 'bst_grant'
    LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION bst_grant(text, text) IS
    'let a role (or PUBLIC) use a BloomSampleTree: sample, reconstruct, see its ids (its owner only)';

CREATE FUNCTION bst_revoke(name text, grantee text) RETURNS void
    AS 'MODULE_PATHNAME', 'bst_revoke'
    LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION bst_revoke(text, text) IS
    'take back the use of a BloomSampleTree granted by bst_grant (its owner only)';

CREATE FUNCTION bst_set_owner(name text, new_owner regrole) RETURNS void
    AS 'MODULE_PATHNAME', 'bst_set_owner'
    LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION bst_set_owner(text, regrole) IS
    'give a BloomSampleTree to another role (as ALTER TABLE ... OWNER TO)';

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

-- every role sees the full trees and the pruned trees it may use; the
-- barrier keeps a caller's leaky functions from seeing the others' rows
CREATE VIEW bst_trees WITH (security_barrier) AS
SELECT c.name, c.kind, c.namespace_lo, c.namespace_hi, c.m, c.k, c.seed, c.hash,
       c.leaf_size, c.depth,
       CASE c.kind WHEN 'full' THEN c.namespace_hi - c.namespace_lo
            ELSE (SELECT coalesce(sum(cardinality(t.ids)), 0)::bigint
                  FROM @extschema@.bst_tree_ids t WHERE t.name = c.name) END AS ids,
       c.created, c.owner, c.grantees
FROM @extschema@.bst_tree_catalog c
WHERE @extschema@._bst_may_use(c.kind, c.owner, c.grantees);
GRANT SELECT ON bst_trees TO PUBLIC;
COMMENT ON VIEW bst_trees IS 'the BloomSampleTrees of this database that the current user may use';

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

-- distinct samples (issue 37): a sibling function, since DISTINCT is a
-- reserved word (a parameter named so could not be passed as distinct => true)
CREATE FUNCTION bst_sample_distinct(name text, q bloomfilter, n integer DEFAULT 1) RETURNS SETOF bigint
    AS 'MODULE_PATHNAME', 'bst_sample_distinct_sql'
    LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bst_sample_distinct(text, bloomfilter, integer) IS
    'min(n, members) distinct ids, uniform among the subsets of that size of the tree''s ids that q reports as members';

CREATE FUNCTION bst_sample_distinct_stats(name text, q bloomfilter, n integer DEFAULT 1)
    RETURNS TABLE(intersections bigint, memberships bigint, nodes_visited bigint, backtracks bigint)
    AS 'MODULE_PATHNAME', 'bst_sample_distinct_stats'
    LANGUAGE C VOLATILE STRICT PARALLEL SAFE ROWS 1;
COMMENT ON FUNCTION bst_sample_distinct_stats(text, bloomfilter, integer) IS
    'the work one bst_sample_distinct call does';

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
COMMENT ON FUNCTION _bst_store_ids(text, bigint[], integer) IS
    'internal: stores a pruned BloomSampleTree''s ids in bst_tree_ids, in chunks; returns the chunks written';
COMMENT ON FUNCTION _bst_forget(text) IS
    'internal: a BloomSampleTree was dropped: forgets it in this backend and its shared image';
