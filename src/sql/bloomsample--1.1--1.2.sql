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

-- ==== countingbloom and cuckoofilter (1.2) ====
-- ---- countingbloom: the type ----------------------------------------------
CREATE TYPE countingbloom;

CREATE FUNCTION countingbloom_in(cstring, oid, integer) RETURNS countingbloom
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION countingbloom_in(cstring, oid, integer) IS
    'countingbloom text input: m=..,k=..,seed=..,hash=..,v=1:<one hex digit per counter>';
CREATE FUNCTION countingbloom_out(countingbloom) RETURNS cstring
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION countingbloom_out(countingbloom) IS
    'countingbloom text output: parameters and one hex digit per counter';
CREATE FUNCTION countingbloom_recv(internal, oid, integer) RETURNS countingbloom
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION countingbloom_recv(internal, oid, integer) IS
    'countingbloom binary input: header and counters packed two per byte, validated';
CREATE FUNCTION countingbloom_send(countingbloom) RETURNS bytea
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION countingbloom_send(countingbloom) IS
    'countingbloom binary output: header and counters packed two per byte';
CREATE FUNCTION countingbloom_typmod_in(cstring[]) RETURNS integer
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION countingbloom_typmod_in(cstring[]) IS
    'countingbloom(m, k) type modifier input';
CREATE FUNCTION countingbloom_typmod_out(integer) RETURNS cstring
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION countingbloom_typmod_out(integer) IS
    'countingbloom(m, k) type modifier output';

CREATE TYPE countingbloom (
    INPUT = countingbloom_in,
    OUTPUT = countingbloom_out,
    RECEIVE = countingbloom_recv,
    SEND = countingbloom_send,
    TYPMOD_IN = countingbloom_typmod_in,
    TYPMOD_OUT = countingbloom_typmod_out,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = int4,
    STORAGE = extended
);
COMMENT ON TYPE countingbloom IS
    'counting Bloom filter: m saturating 4-bit counters at the positions of a bloomfilter with the same m, k, seed and hash family; typmod countingbloom(m, k)';

CREATE FUNCTION countingbloom(countingbloom, integer, boolean) RETURNS countingbloom
    AS 'MODULE_PATHNAME', 'countingbloom_enforce_typmod'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION countingbloom(countingbloom, integer, boolean) IS
    'length coercion: makes a countingbloom(m, k) column reject other parameters';
CREATE CAST (countingbloom AS countingbloom)
    WITH FUNCTION countingbloom(countingbloom, integer, boolean) AS IMPLICIT;

-- ---- countingbloom: functions ---------------------------------------------
CREATE FUNCTION cbloom_empty(m integer, k integer, seed integer DEFAULT 0,
                             hash text DEFAULT 'xxh3') RETURNS countingbloom
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_empty(integer, integer, integer, text) IS
    'empty counting filter of m counters and k hash functions';

DO $$
DECLARE
    elem text;
    suffix text;
BEGIN
    FOR elem, suffix IN VALUES ('bigint', 'int8'), ('text', 'bytes'), ('bytea', 'bytes'),
                               ('uuid', 'uuid') LOOP
        EXECUTE format($f$
            CREATE FUNCTION cbloom_add(cb countingbloom, elem %1$s) RETURNS countingbloom
                AS 'MODULE_PATHNAME', 'cbloom_add_%2$s' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE$f$,
            elem, suffix);
        EXECUTE format($f$
            COMMENT ON FUNCTION cbloom_add(countingbloom, %1$s) IS
                'copy with the element added: its k counters incremented (15 saturates)'$f$, elem);
        EXECUTE format($f$
            CREATE FUNCTION cbloom_remove(cb countingbloom, elem %1$s) RETURNS countingbloom
                AS 'MODULE_PATHNAME', 'cbloom_remove_%2$s' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE$f$,
            elem, suffix);
        EXECUTE format($f$
            COMMENT ON FUNCTION cbloom_remove(countingbloom, %1$s) IS
                'copy with the element removed (saturated counters stay); error 22023 if certainly absent'$f$, elem);
        EXECUTE format($f$
            CREATE FUNCTION cbloom_contains(cb countingbloom, elem %1$s) RETURNS boolean
                AS 'MODULE_PATHNAME', 'cbloom_contains_%2$s' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE$f$,
            elem, suffix);
        EXECUTE format($f$
            COMMENT ON FUNCTION cbloom_contains(countingbloom, %1$s) IS
                'membership: every counter of the element is non-zero'$f$, elem);
        EXECUTE format($f$
            CREATE FUNCTION cbloom_contained(elem %1$s, cb countingbloom) RETURNS boolean
                AS 'MODULE_PATHNAME', 'cbloom_contained_%2$s' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE$f$,
            elem, suffix);
        EXECUTE format($f$
            COMMENT ON FUNCTION cbloom_contained(%1$s, countingbloom) IS
                'membership, element first (for <@)'$f$, elem);
        EXECUTE format($f$
            CREATE OPERATOR @> (LEFTARG = countingbloom, RIGHTARG = %1$s,
                                FUNCTION = cbloom_contains, COMMUTATOR = <@,
                                RESTRICT = contsel, JOIN = contjoinsel)$f$, elem);
        EXECUTE format($f$
            CREATE OPERATOR <@ (LEFTARG = %1$s, RIGHTARG = countingbloom,
                                FUNCTION = cbloom_contained, COMMUTATOR = @>,
                                RESTRICT = contsel, JOIN = contjoinsel)$f$, elem);
        EXECUTE format($f$
            CREATE FUNCTION cbloom_count(cb countingbloom, elem %1$s) RETURNS integer
                AS 'MODULE_PATHNAME', 'cbloom_count_%2$s' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE$f$,
            elem, suffix);
        EXECUTE format($f$
            COMMENT ON FUNCTION cbloom_count(countingbloom, %1$s) IS
                'smallest counter at the element''s positions: an upper bound of its multiplicity'$f$, elem);
    END LOOP;
END
$$;

CREATE FUNCTION cbloom_to_bloom(cb countingbloom) RETURNS bloomfilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_to_bloom(countingbloom) IS
    'the bloomfilter of the non-zero counters: the bloomfilter of the elements the counting filter holds';
CREATE CAST (countingbloom AS bloomfilter) WITH FUNCTION cbloom_to_bloom(countingbloom) AS ASSIGNMENT;

CREATE FUNCTION cbloom_saturated(cb countingbloom) RETURNS bigint
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_saturated(countingbloom) IS
    'number of saturated counters (at 15: they never decrement again)';

CREATE FUNCTION cbloom_eq(countingbloom, countingbloom) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_eq(countingbloom, countingbloom) IS 'same parameters and counters';
CREATE FUNCTION cbloom_ne(countingbloom, countingbloom) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_ne(countingbloom, countingbloom) IS 'different parameters or counters';
CREATE OPERATOR = (LEFTARG = countingbloom, RIGHTARG = countingbloom,
                   FUNCTION = cbloom_eq, COMMUTATOR = =, NEGATOR = <>,
                   RESTRICT = eqsel, JOIN = eqjoinsel, HASHES);
CREATE OPERATOR <> (LEFTARG = countingbloom, RIGHTARG = countingbloom,
                    FUNCTION = cbloom_ne, COMMUTATOR = <>, NEGATOR = =,
                    RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE FUNCTION countingbloom_hash(countingbloom) RETURNS integer
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION countingbloom_hash(countingbloom) IS
    'hash of a countingbloom (GROUP BY, DISTINCT, hash joins)';
CREATE OPERATOR CLASS countingbloom_hash_ops DEFAULT FOR TYPE countingbloom USING hash AS
    OPERATOR 1 = (countingbloom, countingbloom),
    FUNCTION 1 countingbloom_hash(countingbloom);

-- ---- countingbloom: aggregates --------------------------------------------
CREATE FUNCTION cbloom_union_trans(internal, countingbloom) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_union_trans(internal, countingbloom) IS
    'cbloom_union_agg transition: add the counters (saturating)';
CREATE FUNCTION cbloom_agg_combine(internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_agg_combine(internal, internal) IS
    'cbloom_agg / cbloom_union_agg combine: counters added, saturating at 15';
CREATE FUNCTION cbloom_agg_serial(internal) RETURNS bytea
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_agg_serial(internal) IS
    'countingbloom aggregates: state to bytes';
CREATE FUNCTION cbloom_agg_deserial(bytea, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_agg_deserial(bytea, internal) IS
    'countingbloom aggregates: bytes to state';
CREATE FUNCTION cbloom_agg_final(internal) RETURNS countingbloom
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_agg_final(internal) IS
    'countingbloom aggregates: the counting filter';

DO $$
DECLARE
    elem text;
    csym text;
    args text;
BEGIN
    FOR elem, csym IN VALUES ('bigint', 'cbloom_agg_trans_int8'), ('text', 'cbloom_agg_trans_bytes'),
                             ('bytea', 'cbloom_agg_trans_bytes'), ('uuid', 'cbloom_agg_trans_uuid') LOOP
        FOREACH args IN ARRAY ARRAY['integer, integer', 'integer, integer, integer',
                                    'integer, integer, integer, text'] LOOP
            EXECUTE format($f$
                CREATE FUNCTION cbloom_agg_trans(internal, %1$s, %2$s) RETURNS internal
                    AS 'MODULE_PATHNAME', %3$L LANGUAGE C IMMUTABLE PARALLEL SAFE$f$,
                elem, args, csym);
            EXECUTE format($f$
                COMMENT ON FUNCTION cbloom_agg_trans(internal, %1$s, %2$s) IS
                    'cbloom_agg transition: add the element'$f$, elem, args);
            EXECUTE format($f$
                CREATE AGGREGATE cbloom_agg(%1$s, %2$s) (
                    SFUNC = cbloom_agg_trans, STYPE = internal,
                    COMBINEFUNC = cbloom_agg_combine,
                    SERIALFUNC = cbloom_agg_serial, DESERIALFUNC = cbloom_agg_deserial,
                    FINALFUNC = cbloom_agg_final, PARALLEL = SAFE)$f$, elem, args);
            EXECUTE format($f$
                COMMENT ON AGGREGATE cbloom_agg(%1$s, %2$s) IS
                    'counting filter of the group''s non-NULL elements (m, k [, seed [, hash]] as in cbloom_empty)'$f$,
                elem, args);
        END LOOP;
    END LOOP;
END
$$;

CREATE AGGREGATE cbloom_union_agg(countingbloom) (
    SFUNC = cbloom_union_trans, STYPE = internal,
    COMBINEFUNC = cbloom_agg_combine,
    SERIALFUNC = cbloom_agg_serial, DESERIALFUNC = cbloom_agg_deserial,
    FINALFUNC = cbloom_agg_final, PARALLEL = SAFE);
COMMENT ON AGGREGATE cbloom_union_agg(countingbloom) IS
    'multiset union of the group''s counting filters: counters added, saturating at 15';

-- ---- cuckoofilter: the type -----------------------------------------------
CREATE TYPE cuckoofilter;

CREATE FUNCTION cuckoofilter_in(cstring) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoofilter_in(cstring) IS
    'cuckoofilter text input: buckets=..,fp_bits=..,seed=..,v=1:<hex of the fingerprint table>';
CREATE FUNCTION cuckoofilter_out(cuckoofilter) RETURNS cstring
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoofilter_out(cuckoofilter) IS
    'cuckoofilter text output: parameters and the fingerprint table in hex';
CREATE FUNCTION cuckoofilter_recv(internal) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoofilter_recv(internal) IS
    'cuckoofilter binary input: header and fingerprint table, validated';
CREATE FUNCTION cuckoofilter_send(cuckoofilter) RETURNS bytea
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoofilter_send(cuckoofilter) IS
    'cuckoofilter binary output: header and fingerprint table';

CREATE TYPE cuckoofilter (
    INPUT = cuckoofilter_in,
    OUTPUT = cuckoofilter_out,
    RECEIVE = cuckoofilter_recv,
    SEND = cuckoofilter_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = int4,
    STORAGE = extended
);
COMMENT ON TYPE cuckoofilter IS
    'cuckoo filter (Fan et al. 2014): a (2,4) cuckoo table of f-bit fingerprints with partial-key cuckoo hashing; supports removal';

-- ---- cuckoofilter: functions ----------------------------------------------
CREATE FUNCTION cuckoo_empty(capacity bigint, fp_rate float8 DEFAULT 0.01, seed integer DEFAULT 0)
    RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_empty(bigint, float8, integer) IS
    'empty cuckoo filter for capacity items: fp_bits = ceil(log2(8 / fp_rate)), buckets = power of two >= capacity / (4 * 0.95)';

DO $$
DECLARE
    elem text;
    suffix text;
BEGIN
    FOR elem, suffix IN VALUES ('bigint', 'int8'), ('text', 'bytes'), ('bytea', 'bytes'),
                               ('uuid', 'uuid') LOOP
        EXECUTE format($f$
            CREATE FUNCTION cuckoo_add(cf cuckoofilter, elem %1$s) RETURNS cuckoofilter
                AS 'MODULE_PATHNAME', 'cuckoo_add_%2$s' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE$f$,
            elem, suffix);
        EXECUTE format($f$
            COMMENT ON FUNCTION cuckoo_add(cuckoofilter, %1$s) IS
                'copy with the element''s fingerprint stored; error 54000 when full'$f$, elem);
        EXECUTE format($f$
            CREATE FUNCTION cuckoo_remove(cf cuckoofilter, elem %1$s) RETURNS cuckoofilter
                AS 'MODULE_PATHNAME', 'cuckoo_remove_%2$s' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE$f$,
            elem, suffix);
        EXECUTE format($f$
            COMMENT ON FUNCTION cuckoo_remove(cuckoofilter, %1$s) IS
                'copy with one copy of the element''s fingerprint removed; error 22023 when absent'$f$, elem);
        EXECUTE format($f$
            CREATE FUNCTION cuckoo_contains(cf cuckoofilter, elem %1$s) RETURNS boolean
                AS 'MODULE_PATHNAME', 'cuckoo_contains_%2$s' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE$f$,
            elem, suffix);
        EXECUTE format($f$
            COMMENT ON FUNCTION cuckoo_contains(cuckoofilter, %1$s) IS
                'membership: one of the element''s two buckets holds its fingerprint'$f$, elem);
        EXECUTE format($f$
            CREATE FUNCTION cuckoo_contained(elem %1$s, cf cuckoofilter) RETURNS boolean
                AS 'MODULE_PATHNAME', 'cuckoo_contained_%2$s' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE$f$,
            elem, suffix);
        EXECUTE format($f$
            COMMENT ON FUNCTION cuckoo_contained(%1$s, cuckoofilter) IS
                'membership, element first (for <@)'$f$, elem);
        EXECUTE format($f$
            CREATE OPERATOR @> (LEFTARG = cuckoofilter, RIGHTARG = %1$s,
                                FUNCTION = cuckoo_contains, COMMUTATOR = <@,
                                RESTRICT = contsel, JOIN = contjoinsel)$f$, elem);
        EXECUTE format($f$
            CREATE OPERATOR <@ (LEFTARG = %1$s, RIGHTARG = cuckoofilter,
                                FUNCTION = cuckoo_contained, COMMUTATOR = @>,
                                RESTRICT = contsel, JOIN = contjoinsel)$f$, elem);
    END LOOP;
END
$$;

CREATE FUNCTION cuckoo_count(cf cuckoofilter) RETURNS bigint
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_count(cuckoofilter) IS 'items stored (fingerprints, duplicates included)';
CREATE FUNCTION cuckoo_load(cf cuckoofilter) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_load(cuckoofilter) IS 'load factor: items / slots';
CREATE FUNCTION cuckoo_fp_rate(cf cuckoofilter) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_fp_rate(cuckoofilter) IS
    'expected false-positive rate at the current load: 1 - (1 - 1/(2^f - 1))^(8 load) ~ 8 load / 2^f';
CREATE FUNCTION cuckoo_capacity(cf cuckoofilter) RETURNS bigint
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_capacity(cuckoofilter) IS
    'slots (4 per bucket): the most items the table can hold';

CREATE FUNCTION cuckoo_eq(cuckoofilter, cuckoofilter) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_eq(cuckoofilter, cuckoofilter) IS 'same parameters and table bytes';
CREATE FUNCTION cuckoo_ne(cuckoofilter, cuckoofilter) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_ne(cuckoofilter, cuckoofilter) IS 'different parameters or table bytes';
CREATE OPERATOR = (LEFTARG = cuckoofilter, RIGHTARG = cuckoofilter,
                   FUNCTION = cuckoo_eq, COMMUTATOR = =, NEGATOR = <>,
                   RESTRICT = eqsel, JOIN = eqjoinsel, HASHES);
CREATE OPERATOR <> (LEFTARG = cuckoofilter, RIGHTARG = cuckoofilter,
                    FUNCTION = cuckoo_ne, COMMUTATOR = <>, NEGATOR = =,
                    RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE FUNCTION cuckoofilter_hash(cuckoofilter) RETURNS integer
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoofilter_hash(cuckoofilter) IS
    'hash of a cuckoofilter (GROUP BY, DISTINCT, hash joins)';
CREATE OPERATOR CLASS cuckoofilter_hash_ops DEFAULT FOR TYPE cuckoofilter USING hash AS
    OPERATOR 1 = (cuckoofilter, cuckoofilter),
    FUNCTION 1 cuckoofilter_hash(cuckoofilter);

-- ---- cuckoofilter: the aggregate ------------------------------------------
CREATE FUNCTION cuckoo_agg_combine(internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_combine(internal, internal) IS
    'cuckoo_agg combine: re-insert the fingerprints of one partial filter into the other (error 54000 when full)';
CREATE FUNCTION cuckoo_agg_serial(internal) RETURNS bytea
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_serial(internal) IS 'cuckoo_agg: state to bytes';
CREATE FUNCTION cuckoo_agg_deserial(bytea, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_deserial(bytea, internal) IS 'cuckoo_agg: bytes to state';
CREATE FUNCTION cuckoo_agg_final(internal) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_agg_final(internal) IS 'cuckoo_agg final: the filter';

DO $$
DECLARE
    elem text;
    csym text;
    args text;
BEGIN
    FOR elem, csym IN VALUES ('bigint', 'cuckoo_agg_trans_int8'), ('text', 'cuckoo_agg_trans_bytes'),
                             ('bytea', 'cuckoo_agg_trans_bytes'), ('uuid', 'cuckoo_agg_trans_uuid') LOOP
        FOREACH args IN ARRAY ARRAY['bigint', 'bigint, float8', 'bigint, float8, integer'] LOOP
            EXECUTE format($f$
                CREATE FUNCTION cuckoo_agg_trans(internal, %1$s, %2$s) RETURNS internal
                    AS 'MODULE_PATHNAME', %3$L LANGUAGE C IMMUTABLE PARALLEL SAFE$f$,
                elem, args, csym);
            EXECUTE format($f$
                COMMENT ON FUNCTION cuckoo_agg_trans(internal, %1$s, %2$s) IS
                    'cuckoo_agg transition: insert the element (error 54000 when full)'$f$, elem, args);
            EXECUTE format($f$
                CREATE AGGREGATE cuckoo_agg(%1$s, %2$s) (
                    SFUNC = cuckoo_agg_trans, STYPE = internal,
                    COMBINEFUNC = cuckoo_agg_combine,
                    SERIALFUNC = cuckoo_agg_serial, DESERIALFUNC = cuckoo_agg_deserial,
                    FINALFUNC = cuckoo_agg_final, PARALLEL = SAFE)$f$, elem, args);
            EXECUTE format($f$
                COMMENT ON AGGREGATE cuckoo_agg(%1$s, %2$s) IS
                    'cuckoo filter of the group''s non-NULL elements (capacity [, fp_rate [, seed]] as in cuckoo_empty)'$f$,
                elem, args);
        END LOOP;
    END LOOP;
END
$$;

-- descriptions of the countingbloom and cuckoofilter operators, casts and operator classes
COMMENT ON OPERATOR @> (countingbloom, bigint) IS 'membership: the counting filter reports the element (may be a false positive, never a false negative)';
COMMENT ON OPERATOR <@ (bigint, countingbloom) IS 'membership: the element is reported by the counting filter (commutator of @>)';
COMMENT ON OPERATOR @> (countingbloom, text) IS 'membership: the counting filter reports the element (may be a false positive, never a false negative)';
COMMENT ON OPERATOR <@ (text, countingbloom) IS 'membership: the element is reported by the counting filter (commutator of @>)';
COMMENT ON OPERATOR @> (countingbloom, bytea) IS 'membership: the counting filter reports the element (may be a false positive, never a false negative)';
COMMENT ON OPERATOR <@ (bytea, countingbloom) IS 'membership: the element is reported by the counting filter (commutator of @>)';
COMMENT ON OPERATOR @> (countingbloom, uuid) IS 'membership: the counting filter reports the element (may be a false positive, never a false negative)';
COMMENT ON OPERATOR <@ (uuid, countingbloom) IS 'membership: the element is reported by the counting filter (commutator of @>)';
COMMENT ON OPERATOR = (countingbloom, countingbloom) IS 'same parameters and contents';
COMMENT ON OPERATOR <> (countingbloom, countingbloom) IS 'different parameters or contents';
COMMENT ON OPERATOR CLASS countingbloom_hash_ops USING hash IS 'hash equality of countingbloom values (hash joins, hash aggregation)';
COMMENT ON OPERATOR FAMILY countingbloom_hash_ops USING hash IS 'hash equality of countingbloom values';
COMMENT ON OPERATOR @> (cuckoofilter, bigint) IS 'membership: the cuckoo filter reports the element (may be a false positive, never a false negative)';
COMMENT ON OPERATOR <@ (bigint, cuckoofilter) IS 'membership: the element is reported by the cuckoo filter (commutator of @>)';
COMMENT ON OPERATOR @> (cuckoofilter, text) IS 'membership: the cuckoo filter reports the element (may be a false positive, never a false negative)';
COMMENT ON OPERATOR <@ (text, cuckoofilter) IS 'membership: the element is reported by the cuckoo filter (commutator of @>)';
COMMENT ON OPERATOR @> (cuckoofilter, bytea) IS 'membership: the cuckoo filter reports the element (may be a false positive, never a false negative)';
COMMENT ON OPERATOR <@ (bytea, cuckoofilter) IS 'membership: the element is reported by the cuckoo filter (commutator of @>)';
COMMENT ON OPERATOR @> (cuckoofilter, uuid) IS 'membership: the cuckoo filter reports the element (may be a false positive, never a false negative)';
COMMENT ON OPERATOR <@ (uuid, cuckoofilter) IS 'membership: the element is reported by the cuckoo filter (commutator of @>)';
COMMENT ON OPERATOR = (cuckoofilter, cuckoofilter) IS 'same parameters and contents';
COMMENT ON OPERATOR <> (cuckoofilter, cuckoofilter) IS 'different parameters or contents';
COMMENT ON OPERATOR CLASS cuckoofilter_hash_ops USING hash IS 'hash equality of cuckoofilter values (hash joins, hash aggregation)';
COMMENT ON OPERATOR FAMILY cuckoofilter_hash_ops USING hash IS 'hash equality of cuckoofilter values';
COMMENT ON CAST (countingbloom AS bloomfilter) IS 'cbloom_to_bloom: the Bloom filter of the elements the counting filter holds (assignment)';
COMMENT ON CAST (countingbloom AS countingbloom) IS 'typmod coercion: checks countingbloom(m, k)';

-- ==== countmin and topk (1.2) ====
-- ---------------------------------------------------------------------------
-- Frequencies: the countmin type (Count-Min sketch, Cormode & Muthukrishnan)
-- and the topk type (heavy hitters: a sketch plus the candidate min-heap).
-- See README.md ("Frequencies") and src/countmin*.c, src/topk*.c.
-- ---------------------------------------------------------------------------

CREATE TYPE countmin;

CREATE FUNCTION countmin_in(cstring) RETURNS countmin
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION countmin_in(cstring) IS
    'countmin text input: w=..,d=..,seed=..,v=1:<row>;<row>... (decimal counters, comma-separated)';
CREATE FUNCTION countmin_out(countmin) RETURNS cstring
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION countmin_out(countmin) IS 'countmin text output';
CREATE FUNCTION countmin_recv(internal) RETURNS countmin
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION countmin_recv(internal) IS 'countmin binary input, validated like the text input';
CREATE FUNCTION countmin_send(countmin) RETURNS bytea
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION countmin_send(countmin) IS 'countmin binary output';

CREATE TYPE countmin (
    INPUT = countmin_in,
    OUTPUT = countmin_out,
    RECEIVE = countmin_recv,
    SEND = countmin_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = double,
    STORAGE = extended
);
COMMENT ON TYPE countmin IS
    'Count-Min sketch: d rows of w 64-bit counters with a seed; point and inner-product estimates';

CREATE FUNCTION cms_empty(w integer, d integer, seed integer DEFAULT 0) RETURNS countmin
    AS 'MODULE_PATHNAME', 'countmin_empty' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cms_empty(integer, integer, integer) IS
    'empty Count-Min sketch of d rows of w counters';
CREATE FUNCTION cms_for_error(epsilon float8, delta float8, seed integer DEFAULT 0) RETURNS countmin
    AS 'MODULE_PATHNAME', 'countmin_for_error' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cms_for_error(float8, float8, integer) IS
    'empty sketch with w = ceil(e/epsilon), d = ceil(ln(1/delta)): estimates within epsilon*N with probability 1 - delta';

DO $$
DECLARE
    elem text;
    csym text;
BEGIN
    FOR elem, csym IN VALUES ('bigint', 'int8'), ('text', 'bytes'), ('bytea', 'bytes'), ('uuid', 'uuid') LOOP
        EXECUTE format($f$
            CREATE FUNCTION cms_add(s countmin, elem %1$s, count bigint DEFAULT 1) RETURNS countmin
                AS 'MODULE_PATHNAME', %2$L LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
            COMMENT ON FUNCTION cms_add(countmin, %1$s, bigint) IS
                'copy of the sketch with count (>= 0) added for elem';
            CREATE FUNCTION cms_remove(s countmin, elem %1$s, count bigint DEFAULT 1) RETURNS countmin
                AS 'MODULE_PATHNAME', %3$L LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
            COMMENT ON FUNCTION cms_remove(countmin, %1$s, bigint) IS
                'copy of the sketch with count subtracted for elem; error 22023 if a counter would go negative';
            CREATE FUNCTION cms_estimate(s countmin, elem %1$s) RETURNS bigint
                AS 'MODULE_PATHNAME', %4$L LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
            COMMENT ON FUNCTION cms_estimate(countmin, %1$s) IS
                'estimated count of elem: the minimum over rows, never below the true count';
            CREATE FUNCTION cms_agg_trans(internal, %1$s, integer, integer) RETURNS internal
                AS 'MODULE_PATHNAME', %5$L LANGUAGE C IMMUTABLE PARALLEL SAFE;
            COMMENT ON FUNCTION cms_agg_trans(internal, %1$s, integer, integer) IS
                'cms_agg transition function';
            CREATE FUNCTION cms_agg_trans(internal, %1$s, integer, integer, integer) RETURNS internal
                AS 'MODULE_PATHNAME', %5$L LANGUAGE C IMMUTABLE PARALLEL SAFE;
            COMMENT ON FUNCTION cms_agg_trans(internal, %1$s, integer, integer, integer) IS
                'cms_agg transition function';
            CREATE FUNCTION cms_agg_trans(internal, %1$s, bigint, integer, integer) RETURNS internal
                AS 'MODULE_PATHNAME', %6$L LANGUAGE C IMMUTABLE PARALLEL SAFE;
            COMMENT ON FUNCTION cms_agg_trans(internal, %1$s, bigint, integer, integer) IS
                'cms_agg transition function (with counts)';
            CREATE FUNCTION cms_agg_trans(internal, %1$s, bigint, integer, integer, integer) RETURNS internal
                AS 'MODULE_PATHNAME', %6$L LANGUAGE C IMMUTABLE PARALLEL SAFE;
            COMMENT ON FUNCTION cms_agg_trans(internal, %1$s, bigint, integer, integer, integer) IS
                'cms_agg transition function (with counts)';
            $f$, elem, 'countmin_add_' || csym, 'countmin_remove_' || csym,
            'countmin_estimate_' || csym, 'countmin_agg_trans_' || csym,
            'countmin_agg_count_trans_' || csym);
    END LOOP;
END
$$;

CREATE FUNCTION cms_total(s countmin) RETURNS bigint
    AS 'MODULE_PATHNAME', 'countmin_total' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cms_total(countmin) IS 'N: the sum of the counts added to the sketch';
CREATE FUNCTION cms_w(s countmin) RETURNS integer
    AS 'MODULE_PATHNAME', 'countmin_w' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cms_w(countmin) IS 'counters per row (w)';
CREATE FUNCTION cms_d(s countmin) RETURNS integer
    AS 'MODULE_PATHNAME', 'countmin_d' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cms_d(countmin) IS 'rows (d)';
CREATE FUNCTION cms_seed(s countmin) RETURNS integer
    AS 'MODULE_PATHNAME', 'countmin_seed' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cms_seed(countmin) IS 'the hash seed';
CREATE FUNCTION cms_inner_product(a countmin, b countmin) RETURNS bigint
    AS 'MODULE_PATHNAME', 'countmin_inner_product' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cms_inner_product(countmin, countmin) IS
    'estimated join size sum f_a(x)*f_b(x): at least the true size, at most epsilon*N_a*N_b above with probability 1 - delta';

CREATE FUNCTION countmin_eq(countmin, countmin) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION countmin_eq(countmin, countmin) IS 'same parameters and counters';
CREATE FUNCTION countmin_ne(countmin, countmin) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION countmin_ne(countmin, countmin) IS 'different parameters or counters';
CREATE OPERATOR = (LEFTARG = countmin, RIGHTARG = countmin,
                   FUNCTION = countmin_eq, COMMUTATOR = =, NEGATOR = <>,
                   RESTRICT = eqsel, JOIN = eqjoinsel);
COMMENT ON OPERATOR = (countmin, countmin) IS 'same parameters and counters';
CREATE OPERATOR <> (LEFTARG = countmin, RIGHTARG = countmin,
                    FUNCTION = countmin_ne, COMMUTATOR = <>, NEGATOR = =,
                    RESTRICT = neqsel, JOIN = neqjoinsel);
COMMENT ON OPERATOR <> (countmin, countmin) IS 'different parameters or counters';

CREATE FUNCTION cms_union_trans(internal, countmin) RETURNS internal
    AS 'MODULE_PATHNAME', 'countmin_union_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cms_union_trans(internal, countmin) IS 'cms_union_agg transition function';
CREATE FUNCTION cms_agg_combine(internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME', 'countmin_agg_combine' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cms_agg_combine(internal, internal) IS
    'cms_agg and cms_union_agg combine function: sums the counters';
CREATE FUNCTION cms_agg_serial(internal) RETURNS bytea
    AS 'MODULE_PATHNAME', 'countmin_agg_serial' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cms_agg_serial(internal) IS 'cms_agg and cms_union_agg serialization function';
CREATE FUNCTION cms_agg_deserial(bytea, internal) RETURNS internal
    AS 'MODULE_PATHNAME', 'countmin_agg_deserial' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cms_agg_deserial(bytea, internal) IS 'cms_agg and cms_union_agg deserialization function';
CREATE FUNCTION cms_agg_final(internal) RETURNS countmin
    AS 'MODULE_PATHNAME', 'countmin_agg_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cms_agg_final(internal) IS 'cms_agg and cms_union_agg final function';

DO $$
DECLARE
    elem text;
    args text;
BEGIN
    FOREACH elem IN ARRAY ARRAY['bigint', 'text', 'bytea', 'uuid'] LOOP
        FOREACH args IN ARRAY ARRAY['integer, integer', 'integer, integer, integer',
                                    'bigint, integer, integer', 'bigint, integer, integer, integer'] LOOP
            EXECUTE format($f$
                CREATE AGGREGATE cms_agg(%1$s, %2$s) (
                    SFUNC = cms_agg_trans, STYPE = internal,
                    COMBINEFUNC = cms_agg_combine,
                    SERIALFUNC = cms_agg_serial, DESERIALFUNC = cms_agg_deserial,
                    FINALFUNC = cms_agg_final, PARALLEL = SAFE);
                COMMENT ON AGGREGATE cms_agg(%1$s, %2$s) IS %3$L;
                $f$, elem, args,
                CASE WHEN args LIKE 'bigint%' THEN 'Count-Min sketch of the group''s elements, each with its count'
                     ELSE 'Count-Min sketch of the group''s elements' END);
        END LOOP;
    END LOOP;
END
$$;

CREATE AGGREGATE cms_union_agg(countmin) (
    SFUNC = cms_union_trans, STYPE = internal,
    COMBINEFUNC = cms_agg_combine,
    SERIALFUNC = cms_agg_serial, DESERIALFUNC = cms_agg_deserial,
    FINALFUNC = cms_agg_final, PARALLEL = SAFE);
COMMENT ON AGGREGATE cms_union_agg(countmin) IS
    'counter-wise sum of the group''s sketches: the sketch of all their elements';

-- ---------------------------------------------------------------------------
-- topk: heavy hitters
-- ---------------------------------------------------------------------------
CREATE TYPE topk;

CREATE FUNCTION topk_in(cstring) RETURNS topk
    AS 'MODULE_PATHNAME', 'topk_value_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION topk_in(cstring) IS
    'topk text input: k=..,<countmin text form>|<estimate>:<key hex>:<item hex>,...';
CREATE FUNCTION topk_out(topk) RETURNS cstring
    AS 'MODULE_PATHNAME', 'topk_value_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION topk_out(topk) IS 'topk text output';
CREATE FUNCTION topk_recv(internal) RETURNS topk
    AS 'MODULE_PATHNAME', 'topk_value_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION topk_recv(internal) IS 'topk binary input, validated like the text input';
CREATE FUNCTION topk_send(topk) RETURNS bytea
    AS 'MODULE_PATHNAME', 'topk_value_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION topk_send(topk) IS 'topk binary output';

CREATE TYPE topk (
    INPUT = topk_in,
    OUTPUT = topk_out,
    RECEIVE = topk_recv,
    SEND = topk_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = double,
    STORAGE = extended
);
COMMENT ON TYPE topk IS
    'heavy hitters: a Count-Min sketch and the k most frequent candidates with their text forms';

CREATE FUNCTION topk_items(t topk) RETURNS TABLE(item text, estimate bigint)
    AS 'MODULE_PATHNAME', 'topk_value_items' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 10;
COMMENT ON FUNCTION topk_items(topk) IS
    'the candidates (element text form) with their estimated counts, most frequent first';

CREATE FUNCTION topk_eq(topk, topk) RETURNS boolean
    AS 'MODULE_PATHNAME', 'topk_value_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION topk_eq(topk, topk) IS 'same parameters, counters and candidates';
CREATE FUNCTION topk_ne(topk, topk) RETURNS boolean
    AS 'MODULE_PATHNAME', 'topk_value_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION topk_ne(topk, topk) IS 'different parameters, counters or candidates';
CREATE OPERATOR = (LEFTARG = topk, RIGHTARG = topk,
                   FUNCTION = topk_eq, COMMUTATOR = =, NEGATOR = <>,
                   RESTRICT = eqsel, JOIN = eqjoinsel);
COMMENT ON OPERATOR = (topk, topk) IS 'same parameters, counters and candidates';
CREATE OPERATOR <> (LEFTARG = topk, RIGHTARG = topk,
                    FUNCTION = topk_ne, COMMUTATOR = <>, NEGATOR = =,
                    RESTRICT = neqsel, JOIN = neqjoinsel);
COMMENT ON OPERATOR <> (topk, topk) IS 'different parameters, counters or candidates';

DO $$
DECLARE
    elem text;
    csym text;
    args text;
BEGIN
    FOR elem, csym IN VALUES ('bigint', 'topk_agg_trans_int8'), ('text', 'topk_agg_trans_text'),
                             ('bytea', 'topk_agg_trans_bytea'), ('uuid', 'topk_agg_trans_uuid') LOOP
        FOREACH args IN ARRAY ARRAY['integer', 'integer, integer, integer',
                                    'integer, integer, integer, integer'] LOOP
            EXECUTE format($f$
                CREATE FUNCTION topk_agg_trans(internal, %1$s, %2$s) RETURNS internal
                    AS 'MODULE_PATHNAME', %3$L LANGUAGE C IMMUTABLE PARALLEL SAFE;
                COMMENT ON FUNCTION topk_agg_trans(internal, %1$s, %2$s) IS
                    'topk_agg transition function';
                $f$, elem, args, csym);
        END LOOP;
    END LOOP;
END
$$;

CREATE FUNCTION topk_union_trans(internal, topk) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION topk_union_trans(internal, topk) IS 'topk_union_agg transition function';
CREATE FUNCTION topk_agg_combine(internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION topk_agg_combine(internal, internal) IS
    'topk_agg and topk_union_agg combine function: sums the sketches, re-estimates both candidate sets, keeps k';
CREATE FUNCTION topk_agg_serial(internal) RETURNS bytea
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION topk_agg_serial(internal) IS 'topk_agg and topk_union_agg serialization function';
CREATE FUNCTION topk_agg_deserial(bytea, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION topk_agg_deserial(bytea, internal) IS 'topk_agg and topk_union_agg deserialization function';
CREATE FUNCTION topk_agg_final(internal) RETURNS topk
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION topk_agg_final(internal) IS 'topk_agg and topk_union_agg final function';

DO $$
DECLARE
    elem text;
    args text;
BEGIN
    FOREACH elem IN ARRAY ARRAY['bigint', 'text', 'bytea', 'uuid'] LOOP
        FOREACH args IN ARRAY ARRAY['integer', 'integer, integer, integer',
                                    'integer, integer, integer, integer'] LOOP
            EXECUTE format($f$
                CREATE AGGREGATE topk_agg(%1$s, %2$s) (
                    SFUNC = topk_agg_trans, STYPE = internal,
                    COMBINEFUNC = topk_agg_combine,
                    SERIALFUNC = topk_agg_serial, DESERIALFUNC = topk_agg_deserial,
                    FINALFUNC = topk_agg_final, PARALLEL = SAFE);
                COMMENT ON AGGREGATE topk_agg(%1$s, %2$s) IS
                    'the k most frequent elements of the group (heavy hitters) with a Count-Min sketch';
                $f$, elem, args);
        END LOOP;
    END LOOP;
END
$$;

CREATE AGGREGATE topk_union_agg(topk) (
    SFUNC = topk_union_trans, STYPE = internal,
    COMBINEFUNC = topk_agg_combine,
    SERIALFUNC = topk_agg_serial, DESERIALFUNC = topk_agg_deserial,
    FINALFUNC = topk_agg_final, PARALLEL = SAFE);
COMMENT ON AGGREGATE topk_union_agg(topk) IS
    'merge of the group''s top-k values (equal k, w, d, seed): summed sketch, both candidate sets re-estimated';

-- ==== bloomfilter storage forms (sparse values; the type's storage) ====
-- Values in line up to a page: a sparse filter of a few kB is read without a
-- TOAST fetch.  New columns take it; existing columns keep their storage
-- (ALTER TABLE ... ALTER COLUMN ... SET STORAGE MAIN moves them over).
ALTER TYPE bloomfilter SET (STORAGE = main);

-- ==== descriptions (1.2) ====
-- COMMENT ON every member of the extension that had none (README.md, Reference)

-- ---------------------------------------------------------------------------
-- Descriptions (psql's \df+, \do+, \dT+, \dAc+ show them), in the words of
-- README.md's Reference; test/t/004_docs.pl fails on a member without one
-- ---------------------------------------------------------------------------
COMMENT ON FUNCTION bloomfilter_in(cstring, oid, integer) IS
    'input of bloomfilter: the text form m=<bits>,k=<hashes>,seed=<int32>,hash=<xxh3|linear>,v=<scheme>:<hex>, every field validated';
COMMENT ON FUNCTION bloomfilter_out(bloomfilter) IS
    'output of bloomfilter: the text form m=<bits>,k=<hashes>,seed=<int32>,hash=<xxh3|linear>,v=<scheme>:<hex>';
COMMENT ON FUNCTION bloomfilter_recv(internal, oid, integer) IS
    'binary input of bloomfilter (COPY ... (FORMAT binary)), validated';
COMMENT ON FUNCTION bloomfilter_send(bloomfilter) IS
    'binary output of bloomfilter: version, family, k, flags, seed, m, then the bits';
COMMENT ON FUNCTION bloomfilter_typmod_in(cstring[]) IS
    'typmod input of bloomfilter(m, k): m < 2^26 bits, 1 <= k <= 32';
COMMENT ON FUNCTION bloomfilter_typmod_out(integer) IS
    'typmod output of bloomfilter(m, k)';
COMMENT ON FUNCTION bloomfilter(bloomfilter, integer, boolean) IS
    'length coercion of a bloomfilter(m, k) column: rejects a filter of other m or k';
COMMENT ON CAST (bloomfilter AS bloomfilter) IS
    'enforces a column''s bloomfilter(m, k): rejects a filter of other m or k';

COMMENT ON FUNCTION bloom_empty(integer, integer, integer, text) IS
    'empty filter of m bits and k hash functions';
COMMENT ON FUNCTION bloom_for_capacity(bigint, float8, integer) IS
    'empty ''xxh3'' filter sized for n elements at that false-positive rate: m = bloom_optimal_m(n, fp_rate), k = bloom_optimal_k(m, n)';
COMMENT ON FUNCTION bloom_from_array(bigint[], integer, integer, integer, text) IS
    'filter of the array''s non-NULL elements';
COMMENT ON FUNCTION bloom_from_array(text[], integer, integer, integer, text) IS
    'filter of the array''s non-NULL elements';
COMMENT ON FUNCTION bloom_union_trans(internal, bloomfilter) IS
    'transition function of bloom_union_agg: ORs a filter into the state';
COMMENT ON FUNCTION bloom_intersect_trans(internal, bloomfilter) IS
    'transition function of bloom_intersect_agg: ANDs a filter into the state';
COMMENT ON FUNCTION bloom_union_combine(internal, internal) IS
    'combine function of bloom_agg and bloom_union_agg: OR of two partial states';
COMMENT ON FUNCTION bloom_intersect_combine(internal, internal) IS
    'combine function of bloom_intersect_agg: AND of two partial states';
COMMENT ON FUNCTION bloom_agg_serial(internal) IS
    'serialisation of the filter aggregates'' state (parallel aggregation)';
COMMENT ON FUNCTION bloom_agg_deserial(bytea, internal) IS
    'deserialisation of the filter aggregates'' state (parallel aggregation)';
COMMENT ON FUNCTION bloom_agg_final(internal) IS
    'final function of the filter aggregates: the filter of the state';
COMMENT ON AGGREGATE bloom_union_agg(bloomfilter) IS
    'OR of the group''s non-NULL filters; parallel';
COMMENT ON AGGREGATE bloom_intersect_agg(bloomfilter) IS
    'AND of the group''s non-NULL filters; parallel';

COMMENT ON FUNCTION bloom_intersect(bloomfilter, bloomfilter) IS
    'bitwise AND (not the filter of the intersection of A and B: see bloom_intersection_cardinality)';
COMMENT ON FUNCTION bloom_union(bloomfilter, bloomfilter) IS
    'bitwise OR: the filter of the union of A and B';
COMMENT ON FUNCTION bloom_eq(bloomfilter, bloomfilter) IS
    'same parameters and same bits';
COMMENT ON FUNCTION bloom_ne(bloomfilter, bloomfilter) IS
    'different parameters or bits';
COMMENT ON OPERATOR & (bloomfilter, bloomfilter) IS
    'bitwise AND (not the filter of the intersection of A and B: see bloom_intersection_cardinality)';
COMMENT ON OPERATOR | (bloomfilter, bloomfilter) IS
    'bitwise OR: the filter of the union of A and B';
COMMENT ON OPERATOR = (bloomfilter, bloomfilter) IS
    'same parameters and same bits';
COMMENT ON OPERATOR <> (bloomfilter, bloomfilter) IS
    'different parameters or bits';
COMMENT ON FUNCTION bloomfilter_hash(bloomfilter) IS
    'hash of a filter''s parameters and bits (operator class bloomfilter_hash_ops)';
COMMENT ON OPERATOR CLASS bloomfilter_hash_ops USING hash IS
    'hash operator class of bloomfilter: GROUP BY, DISTINCT and hash joins on filters';
COMMENT ON OPERATOR FAMILY bloomfilter_hash_ops USING hash IS
    'hash operator family of bloomfilter: GROUP BY, DISTINCT and hash joins on filters';

COMMENT ON FUNCTION bloom_m(bloomfilter) IS 'number of bits m';
COMMENT ON FUNCTION bloom_k(bloomfilter) IS 'number of hash functions k';
COMMENT ON FUNCTION bloom_seed(bloomfilter) IS 'hash seed (int32)';
COMMENT ON FUNCTION bloom_hash(bloomfilter) IS 'hash family: ''xxh3'' or ''linear''';
COMMENT ON FUNCTION bloom_popcount(bloomfilter) IS 'bits set (t)';
COMMENT ON FUNCTION bloom_fill_ratio(bloomfilter) IS 'fraction of bits set, t/m';
COMMENT ON FUNCTION bloom_fp_rate(bloomfilter) IS 'posterior false-positive rate (t/m)^k';
COMMENT ON FUNCTION bloom_cardinality(bloomfilter) IS
    'estimated number of distinct elements, ln(1 - t/m) / (k ln(1 - 1/m)); Infinity for a full filter';
COMMENT ON OPERATOR # (NONE, bloomfilter) IS
    'estimated number of distinct elements (bloom_cardinality); Infinity for a full filter';
COMMENT ON FUNCTION bloom_intersection_cardinality(bloomfilter, bloomfilter) IS
    'estimated size of the intersection of A and B from the bits set in a, b and a & b (Papapetrou, Siberski, Nejdl)';
COMMENT ON FUNCTION bloom_union_cardinality(bloomfilter, bloomfilter) IS
    'estimated size of the union of A and B: the cardinality estimate of a | b';
COMMENT ON FUNCTION bloom_jaccard(bloomfilter, bloomfilter) IS
    'estimated Jaccard similarity: intersection / union';
COMMENT ON FUNCTION bloom_optimal_m(bigint, float8) IS
    'bits for n elements at false-positive rate p: ceil(-n ln p / ln^2 2)';
COMMENT ON FUNCTION bloom_optimal_k(bigint, bigint) IS
    'hash functions for m bits and n elements: round(m/n ln 2), in [1, 32]';
COMMENT ON FUNCTION bloom_expected_fp(bigint, integer, bigint) IS
    'expected false-positive rate of m bits, k hashes, n elements: (1 - e^(-kn/m))^k';
COMMENT ON FUNCTION bloom_fold(bloomfilter, integer) IS
    'the filter of m/factor bits the same elements would have built directly; every member stays a member';

DO $$
DECLARE
    elem text;
    args text;
BEGIN
    FOREACH elem IN ARRAY ARRAY['bigint', 'text', 'bytea', 'uuid'] LOOP
        EXECUTE format($f$COMMENT ON FUNCTION bloom_add(bloomfilter, %1$s) IS
            'copy of the filter with the element added'$f$, elem);
        EXECUTE format($f$COMMENT ON FUNCTION bloom_contains(bloomfilter, %1$s) IS
            'membership: true for every added element, false positives at the filter''s rate'$f$, elem);
        EXECUTE format($f$COMMENT ON FUNCTION bloom_contained(%1$s, bloomfilter) IS
            'membership, commuted: true for every added element, false positives at the filter''s rate'$f$, elem);
        EXECUTE format($f$COMMENT ON OPERATOR @> (bloomfilter, %1$s) IS
            'membership: true for every added element, false positives at the filter''s rate'$f$, elem);
        EXECUTE format($f$COMMENT ON OPERATOR <@ (%1$s, bloomfilter) IS
            'membership, commuted: true for every added element, false positives at the filter''s rate'$f$, elem);
        FOREACH args IN ARRAY ARRAY['integer, integer', 'integer, integer, integer',
                                    'integer, integer, integer, text'] LOOP
            EXECUTE format($f$COMMENT ON FUNCTION bloom_agg_trans(internal, %1$s, %2$s) IS
                'transition function of bloom_agg: adds an element to the state'$f$, elem, args);
            EXECUTE format($f$COMMENT ON AGGREGATE bloom_agg(%1$s, %2$s) IS
                'filter of the group''s non-NULL elements; m, k, seed and hash the same on every row; parallel'$f$, elem, args);
        END LOOP;
    END LOOP;
END
$$;

-- ---------------------------------------------------------------------------
-- Descriptions of the internal helpers (README.md, Reference: Support objects)
-- ---------------------------------------------------------------------------
COMMENT ON FUNCTION _bst_store_ids(text, bigint[], integer) IS
    'internal: stores a pruned BloomSampleTree''s ids in bst_tree_ids, in chunks; returns the chunks written';
COMMENT ON FUNCTION _bst_forget(text) IS
    'internal: a BloomSampleTree was dropped: forgets it in this backend and its shared image';

-- ---------------------------------------------------------------------------
-- Descriptions (README.md, Reference)
-- ---------------------------------------------------------------------------
COMMENT ON FUNCTION bloofi_handler(internal) IS
    'handler of the bloofi index access method';
COMMENT ON OPERATOR CLASS bloomfilter_bloofi_ops USING bloofi IS
    'default operator class of bloofi: column @> elem and elem <@ column for elem bigint, text, bytea, uuid';
COMMENT ON OPERATOR FAMILY bloomfilter_bloofi_ops USING bloofi IS
    'operator family of bloofi: column @> elem and elem <@ column for elem bigint, text, bytea, uuid';

-- ---------------------------------------------------------------------------
-- Descriptions of the operators (README.md, Reference)
-- ---------------------------------------------------------------------------
COMMENT ON OPERATOR & (bloomtree, bloomtree) IS
    'filter-wise AND (Fu and Biersack, section 4.6), bits whose child filter became empty cleared';
COMMENT ON OPERATOR | (bloomtree, bloomtree) IS 'filter-wise OR';
COMMENT ON OPERATOR = (bloomtree, bloomtree) IS 'same parameters and bits';
COMMENT ON OPERATOR <> (bloomtree, bloomtree) IS 'different parameters or bits';
COMMENT ON OPERATOR CLASS bloomtree_hash_ops USING hash IS
    'hash operator class of bloomtree: GROUP BY, DISTINCT and hash joins on trees';
COMMENT ON OPERATOR FAMILY bloomtree_hash_ops USING hash IS
    'hash operator family of bloomtree: GROUP BY, DISTINCT and hash joins on trees';

DO $$
DECLARE
    elem text;
BEGIN
    FOREACH elem IN ARRAY ARRAY['bigint', 'text', 'bytea', 'uuid'] LOOP
        EXECUTE format($f$COMMENT ON OPERATOR @> (bloomtree, %1$s) IS
            'membership: true for every added element'$f$, elem);
        EXECUTE format($f$COMMENT ON OPERATOR <@ (%1$s, bloomtree) IS
            'membership, commuted: true for every added element'$f$, elem);
    END LOOP;
END
$$;

-- ==== issue 32: estimators total on saturated filters; sizing with a given k ====
CREATE FUNCTION bloom_for_capacity(n bigint, fp_rate float8, seed integer, k integer)
    RETURNS bloomfilter
    AS 'MODULE_PATHNAME', 'bloom_for_capacity_k' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_optimal_m(n bigint, fp_rate float8, k integer) RETURNS bigint
    AS 'MODULE_PATHNAME', 'bloom_optimal_m_k' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_for_capacity(bigint, float8, integer, integer) IS
    'empty ''xxh3'' filter with k hash functions sized for n elements at that false-positive rate: m = bloom_optimal_m(n, fp_rate, k) (bst_plan''s m for the same rate and k)';
COMMENT ON FUNCTION bloom_optimal_m(bigint, float8, integer) IS
    'fewest bits for n elements at false-positive rate p with k hash functions: ceil(-k n / ln(1 - p^(1/k)))';
COMMENT ON FUNCTION bloom_cardinality(bloomfilter) IS
    'estimated number of distinct elements, ln(1 - t/m) / (k ln(1 - 1/m)); a full filter: ln(1/(2m)) / (k ln(1 - 1/m)), above every other';
COMMENT ON OPERATOR # (NONE, bloomfilter) IS
    'estimated number of distinct elements (bloom_cardinality); finite, a full filter above every other';
COMMENT ON FUNCTION bloom_intersection_cardinality(bloomfilter, bloomfilter) IS
    'estimated size of the intersection of A and B from the bits set in a, b and a & b (Papapetrou, Siberski, Nejdl), in [0, min(# a, # b)]';
COMMENT ON FUNCTION bloom_union_cardinality(bloomfilter, bloomfilter) IS
    'estimated size of the union of A and B: the cardinality estimate of a | b, in [max(# a, # b), # a + # b]';
COMMENT ON FUNCTION bloom_jaccard(bloomfilter, bloomfilter) IS
    'estimated Jaccard similarity: intersection / union, in [0, 1]';
COMMENT ON FUNCTION bst_plan(bigint, bigint, float8, integer) IS
    'BloomSampleTree parameters for a target accuracy n / (n + (M - n) FP) (Sengupta et al., section 5.4) with k hash functions (3 by default: faster sampling than the optimal k); m = bloom_optimal_m(n, FP, k)';
-- ==== issues 32, 37: top-k bounds, exact small groups, incremental functions ====
-- topk_items gains lower_bound, upper_bound and guaranteed (its first two
-- columns unchanged); new: topk_heavy_hitters, topk_threshold, topk_total,
-- topk_is_exact, topk_empty, topk_add, topk_merge, cms_merge.
DROP FUNCTION topk_items(topk);
CREATE FUNCTION topk_items(t topk)
    RETURNS TABLE(item text, estimate bigint, lower_bound bigint, upper_bound bigint, guaranteed boolean)
    AS 'MODULE_PATHNAME', 'topk_value_items' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 10;
COMMENT ON FUNCTION topk_items(topk) IS
    'the candidates (element text form) with their estimated counts, lower and upper bounds, and whether the count is surely above topk_threshold; most frequent first';
CREATE FUNCTION topk_heavy_hitters(t topk, no_false_negatives boolean DEFAULT false)
    RETURNS TABLE(item text, estimate bigint, lower_bound bigint, upper_bound bigint)
    AS 'MODULE_PATHNAME', 'topk_value_heavy_hitters' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 10;
COMMENT ON FUNCTION topk_heavy_hitters(topk, boolean) IS
    'the candidates above topk_threshold: lower bound above it (no false positives), or with no_false_negatives upper bound above it';
CREATE FUNCTION topk_threshold(t topk) RETURNS bigint
    AS 'MODULE_PATHNAME', 'topk_value_threshold' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION topk_threshold(topk) IS
    'the guarantee''s threshold floor((N + k*eps*N)/(k+1)) (exact mode: floor(N/(k+1))): every element counted more often is a candidate';
CREATE FUNCTION topk_total(t topk) RETURNS bigint
    AS 'MODULE_PATHNAME', 'topk_value_total' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION topk_total(topk) IS 'N: the number of elements (with their counts) added';
CREATE FUNCTION topk_is_exact(t topk) RETURNS boolean
    AS 'MODULE_PATHNAME', 'topk_value_is_exact' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION topk_is_exact(topk) IS
    'true while the value counts every element exactly (no sketch yet): its items and bounds are exact counts';
CREATE FUNCTION topk_empty(k integer) RETURNS topk
    AS 'MODULE_PATHNAME', 'topk_value_empty' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION topk_empty(integer) IS
    'the empty top-k value topk_agg(elem, k) starts from (w = max(2048, 16k), d = 5)';
CREATE FUNCTION topk_empty(k integer, w integer, d integer) RETURNS topk
    AS 'MODULE_PATHNAME', 'topk_value_empty' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION topk_empty(integer, integer, integer) IS
    'the empty top-k value topk_agg(elem, k, w, d) starts from';
CREATE FUNCTION topk_empty(k integer, w integer, d integer, seed integer) RETURNS topk
    AS 'MODULE_PATHNAME', 'topk_value_empty' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION topk_empty(integer, integer, integer, integer) IS
    'the empty top-k value topk_agg(elem, k, w, d, seed) starts from';
DO $$
DECLARE
    elem text;
    csym text;
BEGIN
    FOR elem, csym IN VALUES ('bigint', 'int8'), ('text', 'text'), ('bytea', 'bytea'), ('uuid', 'uuid') LOOP
        EXECUTE format($f$
            CREATE FUNCTION topk_add(t topk, elem %1$s, count bigint DEFAULT 1) RETURNS topk
                AS 'MODULE_PATHNAME', %2$L LANGUAGE C IMMUTABLE PARALLEL SAFE;
            COMMENT ON FUNCTION topk_add(topk, %1$s, bigint) IS
                'copy of the top-k value with count (>= 0) more occurrences of elem, by topk_agg''s step; a NULL elem leaves it unchanged';
            $f$, elem, 'topk_value_add_' || csym);
    END LOOP;
END
$$;
CREATE FUNCTION topk_merge(a topk, b topk) RETURNS topk
    AS 'MODULE_PATHNAME', 'topk_value_merge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION topk_merge(topk, topk) IS
    'merge of two top-k values (equal k, w, d, seed), as topk_union_agg makes it';
CREATE FUNCTION cms_merge(a countmin, b countmin) RETURNS countmin
    AS 'MODULE_PATHNAME', 'countmin_merge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cms_merge(countmin, countmin) IS
    'counter-wise sum of two sketches (equal w, d, seed), as cms_union_agg makes it';
CREATE FUNCTION cms_error(s countmin) RETURNS bigint
    AS 'MODULE_PATHNAME', 'countmin_error' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cms_error(countmin) IS
    'the additive error bound ceil(e*N/w): cms_estimate - cms_error is a lower bound of the count with probability 1 - delta';
-- ==== issue 32: element typing (text elements read by the filter's types) and NULL elements ====
-- bloom_add is no longer strict (a NULL element returns the filter unchanged); the text
-- overloads of bloom_add, bloom_contains and bloom_contained get their own C functions,
-- which read the text by the element types the filter records (README: Element types)
CREATE OR REPLACE FUNCTION bloom_add(bloomfilter, bigint) RETURNS bloomfilter
    AS 'MODULE_PATHNAME', 'bloom_add_int8' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION bloom_add(bloomfilter, text) RETURNS bloomfilter
    AS 'MODULE_PATHNAME', 'bloom_add_text' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION bloom_add(bloomfilter, bytea) RETURNS bloomfilter
    AS 'MODULE_PATHNAME', 'bloom_add_bytes' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION bloom_add(bloomfilter, uuid) RETURNS bloomfilter
    AS 'MODULE_PATHNAME', 'bloom_add_uuid' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION bloom_contains(bloomfilter, text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bloom_contains_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION bloom_contained(text, bloomfilter) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bloom_contained_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- (CREATE OR REPLACE reset what 15_planner.sql set)
ALTER FUNCTION bloom_contains(bloomfilter, text) COST 20 SUPPORT bloomfilter_support;
ALTER FUNCTION bloom_contained(text, bloomfilter) COST 20 SUPPORT bloomfilter_support;
DO $$
DECLARE
    elem text;
BEGIN
    FOREACH elem IN ARRAY ARRAY['bigint', 'text', 'bytea', 'uuid'] LOOP
        EXECUTE format($f$COMMENT ON FUNCTION bloom_add(bloomfilter, %1$s) IS
            'copy of the filter with the element added (the filter itself for a NULL element)'$f$, elem);
    END LOOP;
END
$$;
-- the same NULL rule for every function that adds or removes an element: not strict, a
-- NULL element (or count) returns the value unchanged, a NULL value gives NULL
DO $$
DECLARE
    elem text;
BEGIN
    FOREACH elem IN ARRAY ARRAY['bigint', 'text', 'bytea', 'uuid'] LOOP
        EXECUTE format('ALTER FUNCTION cbloom_add(countingbloom, %s) CALLED ON NULL INPUT', elem);
        EXECUTE format('ALTER FUNCTION cbloom_remove(countingbloom, %s) CALLED ON NULL INPUT', elem);
        EXECUTE format('ALTER FUNCTION cuckoo_add(cuckoofilter, %s) CALLED ON NULL INPUT', elem);
        EXECUTE format('ALTER FUNCTION cuckoo_remove(cuckoofilter, %s) CALLED ON NULL INPUT', elem);
        EXECUTE format('ALTER FUNCTION cms_add(countmin, %s, bigint) CALLED ON NULL INPUT', elem);
        EXECUTE format('ALTER FUNCTION cms_remove(countmin, %s, bigint) CALLED ON NULL INPUT', elem);
        EXECUTE format('ALTER FUNCTION bloomtree_add(bloomtree, %s) CALLED ON NULL INPUT', elem);
    END LOOP;
END
$$;
-- countingbloom records its element types too: the text overloads read the text by them
CREATE OR REPLACE FUNCTION cbloom_add(cb countingbloom, elem text) RETURNS countingbloom
    AS 'MODULE_PATHNAME', 'cbloom_add_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION cbloom_remove(cb countingbloom, elem text) RETURNS countingbloom
    AS 'MODULE_PATHNAME', 'cbloom_remove_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION cbloom_contains(cb countingbloom, elem text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'cbloom_contains_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION cbloom_contained(elem text, cb countingbloom) RETURNS boolean
    AS 'MODULE_PATHNAME', 'cbloom_contained_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION cbloom_count(cb countingbloom, elem text) RETURNS integer
    AS 'MODULE_PATHNAME', 'cbloom_count_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- countmin records its element types too: the text overloads read the text by them
CREATE OR REPLACE FUNCTION cms_add(s countmin, elem text, count bigint DEFAULT 1) RETURNS countmin
    AS 'MODULE_PATHNAME', 'countmin_add_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION cms_remove(s countmin, elem text, count bigint DEFAULT 1) RETURNS countmin
    AS 'MODULE_PATHNAME', 'countmin_remove_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION cms_estimate(s countmin, elem text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'countmin_estimate_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- ==== issue 37: distinct samples (bst_sample_distinct, bst_sample_distinct_stats) ====
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
-- ==== issue 38: bloomsample_kernels(), the kernel variants chosen for the CPU ====
-- The bit-array kernels' variants chosen for this CPU (README: Support objects)
CREATE FUNCTION bloomsample_kernels(OUT kernel text, OUT variant text, OUT available text[])
    RETURNS SETOF record
    AS 'MODULE_PATHNAME', 'bloomsample_kernels' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomsample_kernels() IS
    'per bit-array kernel: the instruction-set variant this backend uses (default, popcnt, avx2, avx512) and those this CPU runs';
-- ==== issue 32: untyped elements for the types that record no element types ====
-- cuckoofilter and bloomtree record no element types: their text overloads get
-- their own C functions, which read a text every way it parses (membership: a
-- member when any reading is; bloomtree_add: every reading added; cuckoo_add and
-- cuckoo_remove: 42P18 naming the cast when a text reads two ways); topk_add's
-- text overload (already its own C function) raises the same 42P18
CREATE OR REPLACE FUNCTION cuckoo_add(cf cuckoofilter, elem text) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME', 'cuckoo_add_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION cuckoo_remove(cf cuckoofilter, elem text) RETURNS cuckoofilter
    AS 'MODULE_PATHNAME', 'cuckoo_remove_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION cuckoo_contains(cf cuckoofilter, elem text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'cuckoo_contains_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION cuckoo_contained(elem text, cf cuckoofilter) RETURNS boolean
    AS 'MODULE_PATHNAME', 'cuckoo_contained_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION bloomtree_add(t bloomtree, elem text) RETURNS bloomtree
    AS 'MODULE_PATHNAME', 'bloomtree_add_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION bloomtree_contains(t bloomtree, elem text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bloomtree_contains_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION bloomtree_contained(elem text, t bloomtree) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bloomtree_contained_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- ==== issue 34: cuckoo filters of any bucket count ====
COMMENT ON FUNCTION cuckoo_empty(bigint, float8, integer) IS
    'empty cuckoo filter for capacity items: fp_bits = ceil(log2(8 / fp_rate)), buckets = ceil(capacity / (4 * 0.95)) + 1 + ceil(sqrt(capacity) / 2)';

-- ==== issue 37: similarity search: the set positions, for a GIN index ====
CREATE FUNCTION bloom_positions(bloomfilter) RETURNS integer[]
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_positions(bloomfilter) IS 'positions of the set bits, ascending: index them with GIN to find the filters sharing a bit (similarity search)';

-- ==== issue 37: similarity search: &&, filters sharing a set bit, and its GIN operator class ====
CREATE FUNCTION bloom_overlaps(bloomfilter, bloomfilter) RETURNS boolean
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR && (LEFTARG = bloomfilter, RIGHTARG = bloomfilter, FUNCTION = bloom_overlaps,
                    COMMUTATOR = &&, RESTRICT = areasel, JOIN = areajoinsel);
CREATE FUNCTION bloom_gin_extract_value(bloomfilter, internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_gin_extract_query(bloomfilter, internal, int2, internal, internal, internal, internal)
    RETURNS internal AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_gin_consistent(internal, int2, bloomfilter, int4, internal, internal, internal, internal)
    RETURNS boolean AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_gin_triconsistent(internal, int2, bloomfilter, int4, internal, internal, internal)
    RETURNS "char" AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR CLASS bloomfilter_bits_ops DEFAULT FOR TYPE bloomfilter USING gin AS
    OPERATOR 1 && (bloomfilter, bloomfilter),
    FUNCTION 1 btint4cmp(int4, int4),
    FUNCTION 2 bloom_gin_extract_value(bloomfilter, internal, internal),
    FUNCTION 3 bloom_gin_extract_query(bloomfilter, internal, int2, internal, internal, internal, internal),
    FUNCTION 4 bloom_gin_consistent(internal, int2, bloomfilter, int4, internal, internal, internal, internal),
    FUNCTION 6 bloom_gin_triconsistent(internal, int2, bloomfilter, int4, internal, internal, internal),
    STORAGE int4;
COMMENT ON FUNCTION bloom_overlaps(bloomfilter, bloomfilter) IS
    'whether two filters share a set bit: estimated intersection above 0 (operator &&)';
COMMENT ON OPERATOR && (bloomfilter, bloomfilter) IS
    'share a set bit: every filter of estimated similarity above 0 (GIN: bloomfilter_bits_ops)';
COMMENT ON FUNCTION bloom_gin_extract_value(bloomfilter, internal, internal) IS
    'GIN support of bloomfilter_bits_ops: the set positions of an indexed filter';
COMMENT ON FUNCTION bloom_gin_extract_query(bloomfilter, internal, int2, internal, internal, internal, internal) IS
    'GIN support of bloomfilter_bits_ops: the set positions of a query filter';
COMMENT ON FUNCTION bloom_gin_consistent(internal, int2, bloomfilter, int4, internal, internal, internal, internal) IS
    'GIN support of bloomfilter_bits_ops: a row with a query position is a candidate, rechecked';
COMMENT ON FUNCTION bloom_gin_triconsistent(internal, int2, bloomfilter, int4, internal, internal, internal) IS
    'GIN support of bloomfilter_bits_ops: ternary form of the consistent function';
COMMENT ON OPERATOR CLASS bloomfilter_bits_ops USING gin IS
    'GIN operator class of bloomfilter: keys are the set positions; finds the filters sharing a bit with a query (&&)';
COMMENT ON OPERATOR FAMILY bloomfilter_bits_ops USING gin IS
    'GIN operator family of bloomfilter: keys are the set positions; finds the filters sharing a bit with a query (&&)';
