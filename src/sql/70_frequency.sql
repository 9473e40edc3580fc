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
    rsym text;
BEGIN
    -- rsym: the C functions of the text overloads, which read the text by the
    -- element types the sketch records (the aggregates build new sketches)
    FOR elem, csym, rsym IN VALUES ('bigint', 'int8', 'int8'), ('text', 'bytes', 'text'),
                                   ('bytea', 'bytes', 'bytes'), ('uuid', 'uuid', 'uuid') LOOP
        EXECUTE format($f$
            CREATE FUNCTION cms_add(s countmin, elem %1$s, count bigint DEFAULT 1) RETURNS countmin
                AS 'MODULE_PATHNAME', %2$L LANGUAGE C IMMUTABLE PARALLEL SAFE;
            COMMENT ON FUNCTION cms_add(countmin, %1$s, bigint) IS
                'copy of the sketch with count (>= 0) added for elem';
            CREATE FUNCTION cms_remove(s countmin, elem %1$s, count bigint DEFAULT 1) RETURNS countmin
                AS 'MODULE_PATHNAME', %3$L LANGUAGE C IMMUTABLE PARALLEL SAFE;
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
            $f$, elem, 'countmin_add_' || rsym, 'countmin_remove_' || rsym,
            'countmin_estimate_' || rsym, 'countmin_agg_trans_' || csym,
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
