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
CREATE FUNCTION bloom_for_capacity(n bigint, fp_rate float8, seed integer, k integer)
    RETURNS bloomfilter
    AS 'MODULE_PATHNAME', 'bloom_for_capacity_k' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- not strict: a NULL element returns the filter unchanged (a NULL filter gives NULL);
-- the text overload reads the text by the element types the filter records
CREATE FUNCTION bloom_add(bloomfilter, bigint) RETURNS bloomfilter
    AS 'MODULE_PATHNAME', 'bloom_add_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION bloom_add(bloomfilter, text) RETURNS bloomfilter
    AS 'MODULE_PATHNAME', 'bloom_add_text' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION bloom_add(bloomfilter, bytea) RETURNS bloomfilter
    AS 'MODULE_PATHNAME', 'bloom_add_bytes' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION bloom_add(bloomfilter, uuid) RETURNS bloomfilter
    AS 'MODULE_PATHNAME', 'bloom_add_uuid' LANGUAGE C IMMUTABLE PARALLEL SAFE;

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
    AS 'MODULE_PATHNAME', 'bloom_contains_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_contains(bloomfilter, bytea) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bloom_contains_bytes' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_contains(bloomfilter, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bloom_contains_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_contained(bigint, bloomfilter) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bloom_contained_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_contained(text, bloomfilter) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bloom_contained_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
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

-- similarity search: filters sharing a set bit, and a GIN operator class for it
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
CREATE FUNCTION bloom_positions(bloomfilter) RETURNS integer[]
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
CREATE FUNCTION bloom_optimal_m(n bigint, fp_rate float8, k integer) RETURNS bigint
    AS 'MODULE_PATHNAME', 'bloom_optimal_m_k' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_optimal_k(m bigint, n bigint) RETURNS integer
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_expected_fp(m bigint, k integer, n bigint) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_fold(f bloomfilter, factor integer DEFAULT 2) RETURNS bloomfilter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

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
COMMENT ON FUNCTION bloom_for_capacity(bigint, float8, integer, integer) IS
    'empty ''xxh3'' filter with k hash functions sized for n elements at that false-positive rate: m = bloom_optimal_m(n, fp_rate, k) (bst_plan''s m for the same rate and k)';
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

COMMENT ON FUNCTION bloom_m(bloomfilter) IS 'number of bits m';
COMMENT ON FUNCTION bloom_k(bloomfilter) IS 'number of hash functions k';
COMMENT ON FUNCTION bloom_seed(bloomfilter) IS 'hash seed (int32)';
COMMENT ON FUNCTION bloom_hash(bloomfilter) IS 'hash family: ''xxh3'' or ''linear''';
COMMENT ON FUNCTION bloom_popcount(bloomfilter) IS 'bits set (t)';
COMMENT ON FUNCTION bloom_fill_ratio(bloomfilter) IS 'fraction of bits set, t/m';
COMMENT ON FUNCTION bloom_positions(bloomfilter) IS 'positions of the set bits, ascending: index them with GIN to find the filters sharing a bit (similarity search)';
COMMENT ON FUNCTION bloom_fp_rate(bloomfilter) IS 'posterior false-positive rate (t/m)^k';
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
COMMENT ON FUNCTION bloom_optimal_m(bigint, float8) IS
    'bits for n elements at false-positive rate p: ceil(-n ln p / ln^2 2)';
COMMENT ON FUNCTION bloom_optimal_m(bigint, float8, integer) IS
    'fewest bits for n elements at false-positive rate p with k hash functions: ceil(-k n / ln(1 - p^(1/k)))';
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
            'copy of the filter with the element added (the filter itself for a NULL element)'$f$, elem);
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

-- The bit-array kernels' variants chosen for this CPU (README: Support objects)
CREATE FUNCTION bloomsample_kernels(OUT kernel text, OUT variant text, OUT available text[])
    RETURNS SETOF record
    AS 'MODULE_PATHNAME', 'bloomsample_kernels' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomsample_kernels() IS
    'per bit-array kernel: the instruction-set variant this backend uses (default, popcnt, avx2, avx512) and those this CPU runs';
