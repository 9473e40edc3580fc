-- test/demo/sharding.sql -- run by test/demo/sharding.sh on the coordinator
-- (psql variables: pkg_tsv, edges_tsv, sN_host, sN_port of the three shards).
-- README's "Beyond one server", step by step, on the Debian package graph;
-- every answer next to the exact one from a local copy.
\set ON_ERROR_STOP 1
\pset pager off

-- the data: a local copy (the oracle) and the exact dependency edges
CREATE EXTENSION bloomsample;
CREATE EXTENSION postgres_fdw;
CREATE TABLE pkg_local (name text PRIMARY KEY, id bigint NOT NULL UNIQUE, dep_ids bigint[] NOT NULL);
COPY pkg_local FROM :'pkg_tsv';
ALTER TABLE pkg_local ADD COLUMN deps bloomfilter;
UPDATE pkg_local SET deps = bloom_from_array(dep_ids, 1024, 3);
CREATE TABLE pkg_dep (pkg_id bigint NOT NULL, dep_id bigint NOT NULL);
COPY pkg_dep FROM :'edges_tsv';
ANALYZE pkg_local, pkg_dep;

-- 1. one server per shard (the extension is shippable there), the partitioned table
CREATE SERVER shard1 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host :'s1_host', port :'s1_port',
  dbname 'postgres', extensions 'bloomsample', async_capable 'true', fetch_size '1000');
CREATE SERVER shard2 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host :'s2_host', port :'s2_port',
  dbname 'postgres', extensions 'bloomsample', async_capable 'true', fetch_size '1000');
CREATE SERVER shard3 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host :'s3_host', port :'s3_port',
  dbname 'postgres', extensions 'bloomsample', async_capable 'true', fetch_size '1000');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard1;
CREATE USER MAPPING FOR CURRENT_USER SERVER shard2;
CREATE USER MAPPING FOR CURRENT_USER SERVER shard3;
CREATE TABLE pkg (name text NOT NULL, id bigint NOT NULL, deps bloomfilter NOT NULL) PARTITION BY HASH (id);
CREATE FOREIGN TABLE pkg_p0 PARTITION OF pkg FOR VALUES WITH (MODULUS 3, REMAINDER 0)
  SERVER shard1 OPTIONS (batch_size '1000');
CREATE FOREIGN TABLE pkg_p1 PARTITION OF pkg FOR VALUES WITH (MODULUS 3, REMAINDER 1)
  SERVER shard2 OPTIONS (batch_size '1000');
CREATE FOREIGN TABLE pkg_p2 PARTITION OF pkg FOR VALUES WITH (MODULUS 3, REMAINDER 2)
  SERVER shard3 OPTIONS (batch_size '1000');
INSERT INTO pkg SELECT name, id, deps FROM pkg_local;
SELECT 'shard1' AS shard, count(*) FROM pkg_p0 UNION ALL SELECT 'shard2', count(*) FROM pkg_p1
UNION ALL SELECT 'shard3', count(*) FROM pkg_p2;
SET enable_partitionwise_aggregate = on;

-- 2. lookups run on the shards: who depends on libc6? (the id is an InitPlan parameter)
EXPLAIN (VERBOSE, COSTS OFF)
SELECT name FROM pkg WHERE deps @> (SELECT id FROM pkg_local WHERE name = 'libc6');
SELECT (SELECT count(*) FROM pkg WHERE deps @> (SELECT id FROM pkg_local WHERE name = 'libc6')) AS filters_say,
       (SELECT count(*) FROM pkg_dep WHERE dep_id = (SELECT id FROM pkg_local WHERE name = 'libc6')) AS exact;

-- 3. the same BloomSampleTree on every shard: create it here, copy its row, check
SELECT bst_create('pkg_ids', 1, (SELECT max(id) + 1 FROM pkg_local), 1024, 3);
CREATE SCHEMA shard1_bst;
CREATE SCHEMA shard2_bst;
CREATE SCHEMA shard3_bst;
IMPORT FOREIGN SCHEMA public LIMIT TO (bst_tree_catalog, bst_tree_ids) FROM SERVER shard1 INTO shard1_bst;
IMPORT FOREIGN SCHEMA public LIMIT TO (bst_tree_catalog, bst_tree_ids) FROM SERVER shard2 INTO shard2_bst;
IMPORT FOREIGN SCHEMA public LIMIT TO (bst_tree_catalog, bst_tree_ids) FROM SERVER shard3 INTO shard3_bst;
BEGIN;
INSERT INTO shard1_bst.bst_tree_catalog SELECT * FROM bst_tree_catalog WHERE name = 'pkg_ids';
INSERT INTO shard2_bst.bst_tree_catalog SELECT * FROM bst_tree_catalog WHERE name = 'pkg_ids';
INSERT INTO shard3_bst.bst_tree_catalog SELECT * FROM bst_tree_catalog WHERE name = 'pkg_ids';
COMMIT;
-- the agreement check (parameters, generation, ids), shard 2: no row means they agree
SELECT DISTINCT name FROM (
  (SELECT name, kind, namespace_lo, namespace_hi, m, k, seed, hash, leaf_size, depth, generation
     FROM bst_tree_catalog
   EXCEPT SELECT name, kind, namespace_lo, namespace_hi, m, k, seed, hash, leaf_size, depth, generation
     FROM shard2_bst.bst_tree_catalog)
  UNION ALL
  (SELECT name, kind, namespace_lo, namespace_hi, m, k, seed, hash, leaf_size, depth, generation
     FROM shard2_bst.bst_tree_catalog
   EXCEPT SELECT name, kind, namespace_lo, namespace_hi, m, k, seed, hash, leaf_size, depth, generation
     FROM bst_tree_catalog)) d
UNION
SELECT name FROM ((TABLE bst_tree_ids EXCEPT TABLE shard2_bst.bst_tree_ids)
                  UNION ALL (TABLE shard2_bst.bst_tree_ids EXCEPT TABLE bst_tree_ids)) i;

-- 4. distributed reconstruction: each shard reconstructs its rows (a view there),
--    the coordinator gathers them as the partitions of a table (async Append)
CREATE TABLE pkg_deps_reconstructed (id bigint NOT NULL, dep_ids bigint[]) PARTITION BY HASH (id);
CREATE FOREIGN TABLE pkg_deps_reconstructed_p0 PARTITION OF pkg_deps_reconstructed
  FOR VALUES WITH (MODULUS 3, REMAINDER 0) SERVER shard1 OPTIONS (table_name 'pkg_deps_reconstructed');
CREATE FOREIGN TABLE pkg_deps_reconstructed_p1 PARTITION OF pkg_deps_reconstructed
  FOR VALUES WITH (MODULUS 3, REMAINDER 1) SERVER shard2 OPTIONS (table_name 'pkg_deps_reconstructed');
CREATE FOREIGN TABLE pkg_deps_reconstructed_p2 PARTITION OF pkg_deps_reconstructed
  FOR VALUES WITH (MODULUS 3, REMAINDER 2) SERVER shard3 OPTIONS (table_name 'pkg_deps_reconstructed');
EXPLAIN (COSTS OFF) SELECT id, dep_ids FROM pkg_deps_reconstructed;
-- every true dependency is reconstructed (no false negatives); the rest are false positives
SELECT count(*) AS packages,
       count(*) FILTER (WHERE l.dep_ids <@ r.dep_ids) AS every_dependency_found,
       sum(cardinality(r.dep_ids)) AS ids_reconstructed,
       sum(cardinality(l.dep_ids)) AS true_dependencies
FROM pkg_deps_reconstructed r JOIN pkg_local l USING (id);
SELECT l.name, r.dep_ids, l.dep_ids AS exact
FROM pkg_deps_reconstructed r JOIN pkg_local l USING (id) WHERE l.name = 'bash';

-- 5. global aggregates: one partial per shard, combined here (3 filters moved, not one
--    per row): the dependencies of every libreoffice package, a union small enough for
--    m = 1024 (the union of all 63k filters has every bit set: # says Infinity)
EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF)
SELECT # bloom_union_agg(u)
FROM (SELECT bloom_union_agg(deps) u FROM pkg_p0 WHERE name LIKE 'libreoffice%'
      UNION ALL SELECT bloom_union_agg(deps) FROM pkg_p1 WHERE name LIKE 'libreoffice%'
      UNION ALL SELECT bloom_union_agg(deps) FROM pkg_p2 WHERE name LIKE 'libreoffice%') s;
SELECT round((# bloom_union_agg(u))::numeric) AS estimated_distinct_dependencies,
       round(bloom_fill_ratio(bloom_union_agg(u))::numeric, 3) AS fill,
       (SELECT count(DISTINCT d.dep_id) FROM pkg_dep d JOIN pkg_local p ON p.id = d.pkg_id
        WHERE p.name LIKE 'libreoffice%') AS exact
FROM (SELECT bloom_union_agg(deps) u FROM pkg_p0 WHERE name LIKE 'libreoffice%'
      UNION ALL SELECT bloom_union_agg(deps) FROM pkg_p1 WHERE name LIKE 'libreoffice%'
      UNION ALL SELECT bloom_union_agg(deps) FROM pkg_p2 WHERE name LIKE 'libreoffice%') s;
-- (a plain bloom_union_agg(deps) FROM pkg fetches every filter: PostgreSQL 15 ships no partial aggregate)

-- 6. Bloom semi-join: the remote edges of 200 local packages of interest; the filter of
--    their ids (m, k for a false-positive rate of 0.001) goes to the shard as a parameter
CREATE FOREIGN TABLE pkg_dep_remote (pkg_id bigint NOT NULL, dep_id bigint NOT NULL)
  SERVER shard1 OPTIONS (table_name 'pkg_dep', batch_size '1000', fetch_size '1000');
INSERT INTO pkg_dep_remote SELECT * FROM pkg_dep;
CREATE TABLE wanted AS SELECT id FROM pkg_local ORDER BY md5(name) LIMIT 200;
SELECT bloom_optimal_m(200, 0.001) AS m, bloom_optimal_k(bloom_optimal_m(200, 0.001), 200) AS k \gset
EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF)
SELECT count(*) FROM wanted w JOIN pkg_dep_remote e ON e.pkg_id = w.id;
EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF)
SELECT count(*) FROM wanted w JOIN pkg_dep_remote e ON e.pkg_id = w.id
WHERE e.pkg_id <@ (SELECT bloom_agg(id, :m, :k) FROM wanted);
SELECT (SELECT count(*) FROM wanted w JOIN pkg_dep_remote e ON e.pkg_id = w.id
        WHERE e.pkg_id <@ (SELECT bloom_agg(id, :m, :k) FROM wanted)) AS bloom_semi_join,
       (SELECT count(*) FROM wanted w JOIN pkg_dep e ON e.pkg_id = w.id) AS exact;
