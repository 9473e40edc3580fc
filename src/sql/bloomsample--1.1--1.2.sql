-- bloomsample upgrade from 1.1 to 1.2 (ALTER EXTENSION bloomsample UPDATE TO '1.2').
-- 1.2 is not released yet: every change to the install script's parts
-- (src/sql/[0-9][0-9]_*.sql) goes here too, until it is.  test/t/003_upgrade.pl
-- installs 1.0 and 1.1, runs ALTER EXTENSION ... UPDATE and compares every object
-- of the extension (and its properties) with a fresh install of 1.2.

\echo Use "ALTER EXTENSION bloomsample UPDATE TO '1.2'" to load this file. \quit

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
