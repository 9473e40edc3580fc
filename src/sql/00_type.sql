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
    -- main: a value stays in line up to a page (a sparse filter of a few kB is
    -- read without a TOAST fetch); larger ones still go out of line
    STORAGE = main
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
