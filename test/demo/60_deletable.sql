-- test/demo/60_deletable.sql -- deletable filters on the Debian dependency graph.
-- Run by test/demo/run.sh after loading
--   pkg(name, id, deps bloomfilter, dep_ids bigint[])  and  pkg_dep(pkg_id, dep_id)
-- (filters of m = :demo_m bits, k = :demo_k, seed 0, xxh3).  A countingbloom column
-- of the same parameters is kept up to date by triggers on the exact edge table
-- through a day of changes (packages dropping and gaining dependencies), then
-- checked against the exact graph and sampled through a BloomSampleTree.

\echo
\echo '## A counting filter of each package''s dependencies, same m and k as pkg.deps'
CREATE TABLE pkg_cdeps (id bigint PRIMARY KEY, deps countingbloom(:demo_m, :demo_k) NOT NULL);
INSERT INTO pkg_cdeps
SELECT p.id, coalesce(c.deps, cbloom_empty(:demo_m, :demo_k))
FROM pkg p LEFT JOIN (SELECT pkg_id, cbloom_agg(dep_id, :demo_m, :demo_k) AS deps
                      FROM pkg_dep GROUP BY pkg_id) c ON c.pkg_id = p.id;
-- before any change it is the Bloom filter already stored in pkg
SELECT count(*) AS packages, count(*) FILTER (WHERE c.deps::bloomfilter = p.deps) AS equal_to_pkg_deps,
       pg_size_pretty(sum(pg_column_size(c.deps))) AS counting_size,
       pg_size_pretty(sum(pg_column_size(p.deps))) AS bloom_size
FROM pkg_cdeps c JOIN pkg p USING (id);

\echo
\echo '## Triggers keep it in step with the exact edges'
CREATE FUNCTION pkg_dep_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE pkg_cdeps SET deps = cbloom_add(deps, NEW.dep_id) WHERE id = NEW.pkg_id;
    ELSE
        UPDATE pkg_cdeps SET deps = cbloom_remove(deps, OLD.dep_id) WHERE id = OLD.pkg_id;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER pkg_dep_sync AFTER INSERT OR DELETE ON pkg_dep
    FOR EACH ROW EXECUTE FUNCTION pkg_dep_sync();

\echo
\echo '## A day of changes: 2% of the edges dropped, 1000 new edges'
CREATE TEMP TABLE day_before AS SELECT count(*) AS edges FROM pkg_dep;
CREATE TEMP TABLE pkg_n AS SELECT row_number() OVER (ORDER BY id) AS n, id FROM pkg;
CREATE INDEX ON pkg_n (n);
\timing on
DELETE FROM pkg_dep WHERE hashint8(pkg_id * 1000003 + dep_id) % 50 = 0;
INSERT INTO pkg_dep
SELECT DISTINCT a.id, b.id
FROM generate_series(1, 1000) g
     JOIN pkg_n a ON a.n = 1 + abs(hashint8(g * 7919)) % (SELECT count(*) FROM pkg_n)
     JOIN pkg_n b ON b.n = 1 + abs(hashint8(g * 31 + 1)) % (SELECT count(*) FROM pkg_n)
WHERE a.id <> b.id
ON CONFLICT DO NOTHING;
\timing off
SELECT (SELECT edges FROM day_before) AS edges_before, count(*) AS edges_after FROM pkg_dep;

\echo
\echo '## Checked against the exact graph: no false negatives, and cbloom_to_bloom is'
\echo '## the Bloom filter rebuilt from the exact edges (while no counter saturated)'
SELECT count(*) AS edges, count(*) FILTER (WHERE NOT c.deps @> e.dep_id) AS false_negatives
FROM pkg_dep e JOIN pkg_cdeps c ON c.id = e.pkg_id;
SELECT count(*) AS packages,
       count(*) FILTER (WHERE cbloom_to_bloom(c.deps)
                        = coalesce(x.f, bloom_empty(:demo_m, :demo_k))) AS equal_to_rebuilt,
       sum(cbloom_saturated(c.deps)) AS saturated_counters
FROM pkg_cdeps c
LEFT JOIN (SELECT pkg_id, bloom_agg(dep_id, :demo_m, :demo_k) AS f FROM pkg_dep GROUP BY pkg_id) x
       ON x.pkg_id = c.id;
-- removing an edge that is not there is refused (22023); the demo runs with
-- client_min_messages = warning, so the refusal is shown for this block only
SET client_min_messages = notice;
DO $$
BEGIN
    PERFORM cbloom_remove(deps, -1::bigint) FROM pkg_cdeps WHERE id = (SELECT min(id) FROM pkg);
EXCEPTION WHEN invalid_parameter_value THEN
    RAISE NOTICE 'refused: %', SQLERRM;
END $$;
RESET client_min_messages;

\echo
\echo '## Sampling the current dependencies through a BloomSampleTree (via cbloom_to_bloom);'
\echo '## is_current_edge false: a false positive of the m = 1024 filter (frequent for packages'
\echo '## with many dependencies, as in 20_bst.sql)'
SELECT bst_create('debian_cb', 0, (SELECT max(id) + 1 FROM pkg), :demo_m, :demo_k);
SELECT p.name AS package, d.name AS random_current_dependency,
       EXISTS (SELECT 1 FROM pkg_dep e WHERE e.pkg_id = p.id AND e.dep_id = s) AS is_current_edge
FROM pkg p JOIN pkg_cdeps c USING (id),
     LATERAL bst_sample('debian_cb', cbloom_to_bloom(c.deps), 1) s JOIN pkg d ON d.id = s
WHERE p.name IN ('postgresql-15', 'gimp', 'python3', 'git', 'openssh-server')
ORDER BY 1;
-- reconstruction of 50 packages with 5 to 20 dependencies: every current dependency,
-- plus the filter's false positives, exactly what the dictionary attack finds
WITH pk AS (SELECT p.id, c.deps FROM pkg p JOIN pkg_cdeps c USING (id)
            WHERE cardinality(p.dep_ids) BETWEEN 5 AND 20 ORDER BY p.id LIMIT 50),
     r AS (SELECT pk.id, array(SELECT bst_reconstruct('debian_cb', cbloom_to_bloom(pk.deps))) AS rec,
                  array(SELECT bloom_dictionary_attack(cbloom_to_bloom(pk.deps), 0,
                                                       (SELECT max(id) + 1 FROM pkg)) x ORDER BY x) AS dict,
                  array(SELECT dep_id FROM pkg_dep WHERE pkg_id = pk.id) AS exact
           FROM pk)
SELECT count(*) AS packages, count(*) FILTER (WHERE rec = dict) AS equal_to_dictionary_attack,
       count(*) FILTER (WHERE rec @> exact) AS hold_every_current_edge,
       sum(cardinality(rec) - cardinality(exact)) AS false_positives
FROM r;
SELECT bst_drop('debian_cb');

\echo
\echo '## Every current edge in one cuckoo filter (pkg_id>dep_id as text, 0.1%): the'
\echo '## edges of the 20 packages with most dependencies removed, the rest still members (a removed'
\echo '## edge still reported is a false positive, at the filter''s rate)'
CREATE TABLE edge_cuckoo AS
    SELECT cuckoo_agg(pkg_id || '>' || dep_id, (SELECT count(*) * 5 / 4 FROM pkg_dep), 0.001) AS cf
    FROM pkg_dep;
SELECT cuckoo_count(cf) AS items, round(cuckoo_load(cf)::numeric, 3) AS load,
       cuckoo_fp_rate(cf) AS expected_fp, pg_size_pretty(pg_column_size(cf)::bigint) AS size
FROM edge_cuckoo;
CREATE TEMP TABLE gone AS
    SELECT pkg_id, dep_id FROM pkg_dep
    WHERE pkg_id IN (SELECT pkg_id FROM pkg_dep GROUP BY pkg_id ORDER BY count(*) DESC, pkg_id LIMIT 20);
DO $$
DECLARE
    f cuckoofilter := (SELECT cf FROM edge_cuckoo);
    e record;
BEGIN
    FOR e IN SELECT * FROM gone LOOP
        f := cuckoo_remove(f, e.pkg_id || '>' || e.dep_id);
    END LOOP;
    UPDATE edge_cuckoo SET cf = f;
END $$;
SELECT (SELECT count(*) FROM gone) AS removed, cuckoo_count(cf) AS items_left,
       (SELECT count(*) FROM pkg_dep e WHERE (e.pkg_id, e.dep_id) NOT IN (SELECT * FROM gone)
          AND NOT cf @> (e.pkg_id || '>' || e.dep_id)) AS false_negatives,
       (SELECT count(*) FROM gone g WHERE cf @> (g.pkg_id || '>' || g.dep_id)) AS removed_still_reported
FROM edge_cuckoo;
DROP TABLE edge_cuckoo;

DROP TRIGGER pkg_dep_sync ON pkg_dep;
DROP FUNCTION pkg_dep_sync();
DROP TABLE pkg_cdeps;
