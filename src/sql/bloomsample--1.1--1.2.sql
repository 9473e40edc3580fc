-- bloomsample upgrade from 1.1 to 1.2 (ALTER EXTENSION bloomsample UPDATE TO '1.2').
-- 1.2 is not released yet: every change to the install script's parts
-- (src/sql/[0-9][0-9]_*.sql) goes here too, until it is.  test/t/003_upgrade.pl
-- installs 1.0 and 1.1, runs ALTER EXTENSION ... UPDATE and compares every object
-- of the extension (and its properties) with a fresh install of 1.2.

\echo Use "ALTER EXTENSION bloomsample UPDATE TO '1.2'" to load this file. \quit

-- ==== trees' owners and privileges (issue 19: trees private like tables) ====
-- every existing tree is owned by the extension's owner; the catalog tables
-- become private (read and written by the extension's C code as their owner,
-- after checking the caller's privileges on the tree)
ALTER TABLE bst_tree_catalog ADD COLUMN owner regrole;
UPDATE bst_tree_catalog
SET owner = (SELECT e.extowner FROM pg_catalog.pg_extension e
             WHERE e.extname OPERATOR(pg_catalog.=) 'bloomsample')::pg_catalog.regrole;
ALTER TABLE bst_tree_catalog ALTER COLUMN owner SET NOT NULL;
ALTER TABLE bst_tree_catalog ADD COLUMN grantees regrole[] NOT NULL DEFAULT '{}';
COMMENT ON TABLE bst_tree_catalog IS 'BloomSampleTree definitions (managed by bst_create, bst_create_pruned, bst_extend, bst_drop, bst_grant, bst_revoke)';
REVOKE SELECT ON bst_tree_catalog, bst_tree_ids FROM PUBLIC;
GRANT SELECT ON bst_tree_catalog, bst_tree_ids TO @extowner@;

-- the management functions are C: they check the caller, then write the
-- catalog as its owner (no PL/pgSQL helper left that any role could call)
DROP FUNCTION _bst_full_depth(text, bigint, bigint, integer, integer, integer, text, bigint);
DROP FUNCTION _bst_collect_ids(text);
DROP FUNCTION _bst_pruned_leaf_size(text, bigint[], integer, integer, integer, text, bigint);
DROP FUNCTION _bst_extend(text, bigint[]);
DROP FUNCTION _bst_set_generation(text, bigint);
REVOKE ALL ON FUNCTION _bst_store_ids(text, bigint[], integer), _bst_forget(text) FROM PUBLIC;
CREATE FUNCTION _bst_may_use(kind text, owner regrole, grantees regrole[]) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bst_may_use'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION _bst_may_use(text, regrole, regrole[]) IS
    'may the current user use a BloomSampleTree of this kind, owner and grantees? (the filter of bst_trees)';

CREATE OR REPLACE FUNCTION bst_create(name text, namespace_lo bigint, namespace_hi bigint,
                           m integer, k integer, seed integer DEFAULT 0,
                           hash text DEFAULT 'xxh3', leaf_size bigint DEFAULT NULL)
    RETURNS void AS 'MODULE_PATHNAME', 'bst_create_sql'
    LANGUAGE C VOLATILE PARALLEL UNSAFE;
CREATE OR REPLACE FUNCTION bst_create_pruned(name text, source_query text, m integer, k integer,
                                  seed integer DEFAULT 0, hash text DEFAULT 'xxh3',
                                  leaf_size bigint DEFAULT NULL)
    RETURNS void AS 'MODULE_PATHNAME', 'bst_create_pruned_sql'
    LANGUAGE C VOLATILE PARALLEL UNSAFE;
CREATE OR REPLACE FUNCTION bst_extend(name text, ids bigint[]) RETURNS bigint
    AS 'MODULE_PATHNAME', 'bst_extend_sql'
    LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
CREATE OR REPLACE FUNCTION bst_drop(name text) RETURNS void
    AS 'MODULE_PATHNAME', 'bst_drop_sql'
    LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
DROP FUNCTION _bst_new_generation();

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

CREATE OR REPLACE VIEW bst_trees WITH (security_barrier) AS
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
