-- bloomsample upgrade from 1.0 to 1.1 (ALTER EXTENSION bloomsample UPDATE TO '1.1').
-- 1.1 is not released yet: every change to the install script's parts
-- (src/sql/[0-9][0-9]_*.sql) goes here too, until it is.  test/t/003_upgrade.pl
-- installs 1.0, runs ALTER EXTENSION ... UPDATE and compares every object of
-- the extension (and its properties) with a fresh install of 1.1.

\echo Use "ALTER EXTENSION bloomsample UPDATE TO '1.1'" to load this file. \quit

-- ---- Bloofi space management (issue 14): bloofi_stats reports the pages of
-- retired nodes and the free pages; free_nodes counts runs of free pages.
-- A function's OUT columns cannot be changed in place: dropped and re-created.
DROP FUNCTION bloofi_stats(regclass);
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
