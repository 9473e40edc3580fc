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
    aggsuffix text;
BEGIN
    -- a text element of add and membership is read every way it parses (README:
    -- Element types); the aggregate's column is typed and hashed as it is
    FOR elem, suffix, aggsuffix IN VALUES ('bigint', 'int8', 'int8'), ('text', 'text', 'bytes'),
                                          ('bytea', 'bytes', 'bytes'), ('uuid', 'uuid', 'uuid') LOOP
        EXECUTE format($f$
            CREATE FUNCTION bloomtree_add(t bloomtree, elem %1$s) RETURNS bloomtree
                AS 'MODULE_PATHNAME', 'bloomtree_add_%2$s' LANGUAGE C IMMUTABLE PARALLEL SAFE$f$,
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
            elem, aggsuffix);
        EXECUTE format($f$
            COMMENT ON FUNCTION bloomtree_agg_trans(internal, %1$s, integer[], integer[]) IS
                'bloomtree_agg transition: insert the element'$f$, elem);
        EXECUTE format($f$
            CREATE FUNCTION bloomtree_agg_trans(internal, %1$s, integer[], integer[], integer) RETURNS internal
                AS 'MODULE_PATHNAME', 'bloomtree_agg_trans_%2$s' LANGUAGE C IMMUTABLE PARALLEL SAFE$f$,
            elem, aggsuffix);
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
