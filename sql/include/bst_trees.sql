-- Shared setup of the bst_* regression files, included by each with
--   \getenv abs_srcdir PG_ABS_SRCDIR
--   \set bst_trees :abs_srcdir '/sql/include/bst_trees.sql'
--   \i :bst_trees
-- (pg_regress sets PG_ABS_SRCDIR to its --inputdir; the file's statements
-- are echoed into each file's output).  It creates the extension, makes the
-- session's temporary tables sets (the query sets) and q (their filters, both
-- hash families) and the trees u_xxh3 and u_lin, which the including file
-- drops at its end.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsample;
RESET client_min_messages;
SET bloomsample.bst_random_seed = 12345;

-- query sets over [1000, 21000): uniform and clustered (paper, section 7.1)
CREATE TEMP TABLE sets AS
SELECT 'uniform' AS kind, x FROM (
    SELECT x FROM generate_series(1000, 20999) x ORDER BY md5(x::text) LIMIT 200) u
UNION ALL
SELECT 'clustered', x FROM bst_clustered_ids(200, 1000, 21000, 0.1, 42) x;
SELECT kind, count(*), count(DISTINCT x), min(x) >= 1000 AND max(x) < 21000 AS in_range
FROM sets GROUP BY kind ORDER BY kind;

-- full trees: xxh3 (planned leaf size) and linear (explicit leaf size)
SELECT bst_create('u_xxh3', 1000, 21000, 4000, 3, 7);
SELECT bst_create('u_lin', 1000, 21000, 4000, 3, 7, 'linear', 500);
CREATE TEMP TABLE q AS
SELECT s.kind, h.hash, bloom_agg(s.x, 4000, 3, 7, h.hash) AS q
FROM sets s, (VALUES ('xxh3'), ('linear')) h(hash) GROUP BY s.kind, h.hash;
