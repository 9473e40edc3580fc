-- ---------------------------------------------------------------------------
-- Bloofi: an index access method over bloomfilter columns answering
-- `f @> elem` (elem bigint, text, bytea, uuid).  Design notes:
-- docs/bloofi.md.
-- ---------------------------------------------------------------------------

CREATE FUNCTION bloofi_handler(internal) RETURNS index_am_handler
    AS 'MODULE_PATHNAME' LANGUAGE C STRICT;

CREATE ACCESS METHOD bloofi TYPE INDEX HANDLER bloofi_handler;
COMMENT ON ACCESS METHOD bloofi IS
    'Bloofi: index of Bloom filters answering filter @> element (bit-sliced groups under OR summaries)';

CREATE OPERATOR CLASS bloomfilter_bloofi_ops
    DEFAULT FOR TYPE bloomfilter USING bloofi AS
        OPERATOR 1 @> (bloomfilter, bigint),
        OPERATOR 1 @> (bloomfilter, text),
        OPERATOR 1 @> (bloomfilter, bytea),
        OPERATOR 1 @> (bloomfilter, uuid);

CREATE FUNCTION bloofi_stats(index regclass,
    OUT height integer, OUT nodes bigint, OUT leaves bigint, OUT pages bigint,
    OUT inner_nodes bigint, OUT bottom_nodes bigint, OUT "order" integer,
    OUT leaf_capacity integer, OUT slots bigint, OUT free_slots bigint,
    OUT m bigint, OUT k integer, OUT avg_bottom_fill float8, OUT root_fill float8,
    OUT pending bigint, OUT flushing bigint, OUT retired_nodes bigint, OUT free_nodes bigint,
    OUT retired_pages bigint, OUT free_pages bigint)
    RETURNS record
    AS 'MODULE_PATHNAME' LANGUAGE C STRICT VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION bloofi_stats(regclass) IS
    'shape of a bloofi index: height (levels, leaves included), nodes (inner + bottom nodes + leaves, as the paper counts), leaves (in the tree and pending), pages, inner nodes, bottom nodes (whose children are leaves), order d, leaf_capacity, slots and free slots of the nodes, m, k, mean fill of the bottom nodes'' values, fill of the root''s value, leaves in the pending list, pending entries of a flush that was interrupted (finished by the next flush), nodes retired by splits and merges (freed by VACUUM once no scan can read them), runs of free pages, pages of the retired nodes, free pages (reused by new nodes of any size, cut off the end of the file by VACUUM)';

CREATE FUNCTION bloofi_check(index regclass) RETURNS void
    AS 'MODULE_PATHNAME' LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION bloofi_check(regclass) IS
    'verifies every invariant of a bloofi index against its table (takes a SHARE lock on the table); raises an error naming the first violation';

DO $$
DECLARE
    elem text;
BEGIN
    FOREACH elem IN ARRAY ARRAY['bigint', 'text', 'bytea', 'uuid'] LOOP
        EXECUTE format($f$
            CREATE FUNCTION bloofi_probe(index regclass, elem %1$s)
                RETURNS TABLE(nodes_checked bigint, matches bigint)
                AS 'MODULE_PATHNAME', 'bloofi_probe'
                LANGUAGE C STRICT VOLATILE PARALLEL SAFE ROWS 1$f$, elem);
        EXECUTE format($f$
            COMMENT ON FUNCTION bloofi_probe(regclass, %1$s) IS
                'search cost of one lookup as the Bloofi paper counts it (filters tested: the root''s value unless it is saturated, then every child of every node visited, leaves included) and the leaves matched'$f$, elem);
    END LOOP;
END
$$;

-- ---------------------------------------------------------------------------
-- Descriptions (README.md, Reference)
-- ---------------------------------------------------------------------------
COMMENT ON FUNCTION bloofi_handler(internal) IS
    'handler of the bloofi index access method';
COMMENT ON OPERATOR CLASS bloomfilter_bloofi_ops USING bloofi IS
    'default operator class of bloofi: column @> elem and elem <@ column for elem bigint, text, bytea, uuid';
COMMENT ON OPERATOR FAMILY bloomfilter_bloofi_ops USING bloofi IS
    'operator family of bloofi: column @> elem and elem <@ column for elem bigint, text, bytea, uuid';
