-- ---------------------------------------------------------------------------
-- Deletable membership: the counting Bloom filter (countingbloom) and the
-- cuckoo filter (cuckoofilter).  See README.md (Reference), docs/hashing.md
-- and src/core/cbloom.h, src/core/cuckoo.h.
-- ---------------------------------------------------------------------------

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
    -- the text overloads read the text by the element types the filter records
    FOR elem, suffix IN VALUES ('bigint', 'int8'), ('text', 'text'), ('bytea', 'bytes'),
                               ('uuid', 'uuid') LOOP
        EXECUTE format($f$
            CREATE FUNCTION cbloom_add(cb countingbloom, elem %1$s) RETURNS countingbloom
                AS 'MODULE_PATHNAME', 'cbloom_add_%2$s' LANGUAGE C IMMUTABLE PARALLEL SAFE$f$,
            elem, suffix);
        EXECUTE format($f$
            COMMENT ON FUNCTION cbloom_add(countingbloom, %1$s) IS
                'copy with the element added: its k counters incremented (15 saturates)'$f$, elem);
        EXECUTE format($f$
            CREATE FUNCTION cbloom_remove(cb countingbloom, elem %1$s) RETURNS countingbloom
                AS 'MODULE_PATHNAME', 'cbloom_remove_%2$s' LANGUAGE C IMMUTABLE PARALLEL SAFE$f$,
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
    'empty cuckoo filter for capacity items: fp_bits = ceil(log2(8 / fp_rate)), buckets = ceil(capacity / (4 * 0.95)) + 1 + ceil(sqrt(capacity) / 2)';

DO $$
DECLARE
    elem text;
    suffix text;
BEGIN
    FOR elem, suffix IN VALUES ('bigint', 'int8'), ('text', 'text'), ('bytea', 'bytes'),
                               ('uuid', 'uuid') LOOP
        EXECUTE format($f$
            CREATE FUNCTION cuckoo_add(cf cuckoofilter, elem %1$s) RETURNS cuckoofilter
                AS 'MODULE_PATHNAME', 'cuckoo_add_%2$s' LANGUAGE C IMMUTABLE PARALLEL SAFE$f$,
            elem, suffix);
        EXECUTE format($f$
            COMMENT ON FUNCTION cuckoo_add(cuckoofilter, %1$s) IS
                'copy with the element''s fingerprint stored; error 54000 when full'$f$, elem);
        EXECUTE format($f$
            CREATE FUNCTION cuckoo_remove(cf cuckoofilter, elem %1$s) RETURNS cuckoofilter
                AS 'MODULE_PATHNAME', 'cuckoo_remove_%2$s' LANGUAGE C IMMUTABLE PARALLEL SAFE$f$,
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

-- descriptions of the operators, casts and operator classes above
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
