#!/usr/bin/env bash
# test/bench/50_sharding.sh -- filters sharded over postgres_fdw (issue 13).
#
# Run by test/bench/run.sh (`make bench`), or standalone (builds, installs and
# starts its own coordinator cluster):
#     PG_CONFIG=... PORT=... bash test/bench/50_sharding.sh
#
# The cluster of run.sh is the coordinator; this part starts three shard
# clusters on this machine (ports SHARD_PORT, +1, +2; default PORT+1..PORT+3;
# unix sockets only) and sets up README's "Beyond one server" recipe:
# a table of filters hash-partitioned on id whose partitions are foreign
# tables (async_capable) on the shards, the same BloomSampleTree on all four
# clusters (catalog rows copied through foreign tables), shard-side views of
# the reconstruction gathered by a partitioned table of foreign tables.
#
#   (a) reconstruction job: every row of a 30,000-filter table (m = 6647,
#       k = 3, 50 ids each of [0, 10^6), tree over [0, 10^6)), the members of
#       each filter gathered on the coordinator as one bigint[] per row:
#         pushed down (the shards reconstruct, async Append gathers)
#         vs the coordinator alone (pulls the filters, reconstructs them);
#       target >= 1.6x.  For information: the coordinator alone on a local
#       copy (no transfer), one shard's third alone, and the job returning
#       only a count per filter.
#   (b) global bloom_union_agg over the 30,000 filters: per-shard partial
#       aggregates combined on the coordinator vs the plain aggregate (which
#       pulls every filter); rows and bytes (text form, as postgres_fdw moves
#       them) moved, medians; target <= 3 filters per group; also grouped by
#       100 tags.
#   (c) Bloom semi-join: 1,000 local keys against 1,000,000 remote rows
#       (range-partitioned over the shards): the plain join vs the join with
#       `key <@ (SELECT bloom_agg(k, m, k) FROM local_keys)` (m, k for a
#       false-positive rate of 0.001), and for information `key = ANY(array
#       of the keys)`; remote rows moved (EXPLAIN ANALYZE of the Foreign Scans)
#       and time; targets: <= 2% of the plain join's rows and faster.
#
# SHARD_JOB_ROWS, SHARD_EVENTS and BENCH_RUNS shrink the work for a quick try.
set -euo pipefail
. "$(dirname "$0")/lib.sh"; cd "$BS_REPO_ROOT"; bench_setup

ROWS=${SHARD_JOB_ROWS:-30000}
EVENTS=${SHARD_EVENTS:-1000000}
RUNS=${BENCH_RUNS:-5}
SHARD_PORT=${SHARD_PORT:-$((PGPORT + 1))}
results=()          # "name|measured|target|verdict"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3g", a / b }'; }

# ---- three shard clusters -------------------------------------------------
if [ -n "${BS_BENCH_RUNNER:-}" ]; then
    trap 'bs_shards_stop' EXIT
else
    trap 'bs_shards_stop; bs_cluster_stop' EXIT
fi
bs_shards_start 3 "$SHARD_PORT" shared_buffers=256MB "${BS_BENCH_SETTINGS[@]:1}"
shard_psql() { bs_shard_psql "$@"; }
echo "-- coordinator: port $PGPORT; shards: ports $SHARD_PORT..$((SHARD_PORT + 2)) (unix sockets)"

# ---- the recipe -------------------------------------------------------------
for i in 1 2 3; do
    p=$((i - 1))
    lo=$(( (i - 1) * EVENTS / 3 + 1 )); hi=$(( i * EVENTS / 3 + 1 )); [ "$i" = 3 ] && hi=$((EVENTS + 1))
    shard_psql "$i" -q <<SQL
CREATE EXTENSION IF NOT EXISTS bloomsample;
DROP VIEW IF EXISTS job_members, job_counts;
DROP TABLE IF EXISTS jobs_p$p, events_p$p;
CREATE TABLE jobs_p$p (id bigint PRIMARY KEY, tag int NOT NULL, f bloomfilter NOT NULL);
CREATE TABLE events_p$p (key bigint NOT NULL, payload text NOT NULL);
INSERT INTO events_p$p SELECT i, md5(i::text) FROM generate_series($lo, $hi - 1) i;
CREATE VIEW job_members AS
  SELECT p.id, ARRAY(SELECT bst_reconstruct('bench_shard', p.f)) AS members FROM jobs_p$p p;
CREATE VIEW job_counts AS
  SELECT p.id, (SELECT count(*) FROM bst_reconstruct('bench_shard', p.f)) AS n FROM jobs_p$p p;
SQL
done
servers=""
for i in 1 2 3; do
    servers="$servers
CREATE SERVER bench_shard$i FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host '${BS_SHARD_DIRS[$((i - 1))]}', port '$((SHARD_PORT + i - 1))', dbname 'postgres',
           extensions 'bloomsample', async_capable 'true', fetch_size '1000');
CREATE USER MAPPING FOR CURRENT_USER SERVER bench_shard$i;
CREATE SCHEMA bench_shard${i}_bst;
IMPORT FOREIGN SCHEMA public LIMIT TO (bst_tree_catalog, bst_tree_ids)
  FROM SERVER bench_shard$i INTO bench_shard${i}_bst;
CREATE FOREIGN TABLE jobs_p$((i - 1)) PARTITION OF jobs FOR VALUES WITH (MODULUS 3, REMAINDER $((i - 1)))
  SERVER bench_shard$i OPTIONS (batch_size '1000');
CREATE FOREIGN TABLE job_members_p$((i - 1)) PARTITION OF job_members FOR VALUES WITH (MODULUS 3, REMAINDER $((i - 1)))
  SERVER bench_shard$i OPTIONS (table_name 'job_members');
CREATE FOREIGN TABLE job_counts_p$((i - 1)) PARTITION OF job_counts FOR VALUES WITH (MODULUS 3, REMAINDER $((i - 1)))
  SERVER bench_shard$i OPTIONS (table_name 'job_counts');
CREATE FOREIGN TABLE events_p$((i - 1)) PARTITION OF events
  FOR VALUES FROM ($(( (i - 1) * EVENTS / 3 + 1 ))) TO ($([ "$i" = 3 ] && echo MAXVALUE || echo $(( i * EVENTS / 3 + 1 ))))
  SERVER bench_shard$i;"
done
bs_psql -q -o /dev/null <<SQL
CREATE EXTENSION IF NOT EXISTS postgres_fdw;
DROP TABLE IF EXISTS jobs, jobs_local, job_members, job_counts, events, local_keys CASCADE;
DO \$\$ DECLARE s text; BEGIN
  FOR s IN SELECT srvname FROM pg_foreign_server WHERE srvname LIKE 'bench_shard%' LOOP
    EXECUTE format('DROP SERVER %I CASCADE', s); EXECUTE format('DROP SCHEMA IF EXISTS %I CASCADE', s || '_bst');
  END LOOP;
  IF EXISTS (SELECT 1 FROM bst_trees WHERE name = 'bench_shard') THEN PERFORM bst_drop('bench_shard'); END IF;
END \$\$;
CREATE TABLE jobs (id bigint NOT NULL, tag int NOT NULL, f bloomfilter NOT NULL) PARTITION BY HASH (id);
CREATE TABLE job_members (id bigint NOT NULL, members bigint[]) PARTITION BY HASH (id);
CREATE TABLE job_counts (id bigint NOT NULL, n bigint) PARTITION BY HASH (id);
CREATE TABLE events (key bigint NOT NULL, payload text NOT NULL) PARTITION BY RANGE (key);
$servers
-- the tree, on the coordinator and (its catalog row) on every shard
SELECT bst_create('bench_shard', 0, 1000000, 6647, 3);
INSERT INTO bench_shard1_bst.bst_tree_catalog SELECT * FROM bst_tree_catalog WHERE name = 'bench_shard';
INSERT INTO bench_shard2_bst.bst_tree_catalog SELECT * FROM bst_tree_catalog WHERE name = 'bench_shard';
INSERT INTO bench_shard3_bst.bst_tree_catalog SELECT * FROM bst_tree_catalog WHERE name = 'bench_shard';
CREATE TABLE jobs_local AS
  SELECT i::bigint AS id, i % 100 AS tag,
         bloom_from_array(ARRAY(SELECT (i * 7919 + j * 104729) % 1000000 FROM generate_series(0, 49) j)::bigint[],
                          6647, 3) AS f
  FROM generate_series(1, $ROWS) i;
INSERT INTO jobs SELECT * FROM jobs_local;
CREATE TABLE local_keys AS SELECT (i * 997)::bigint AS k FROM generate_series(1, 1000) i;
VACUUM ANALYZE jobs_local, local_keys;
SQL
for i in 1 2 3; do shard_psql "$i" -q -c "VACUUM ANALYZE jobs_p$((i - 1)), events_p$((i - 1))"; done
echo "   $(bs_psql -Atc "SELECT count(*) FROM jobs") filters on the shards ($(for i in 1 2 3; do
    shard_psql "$i" -Atc "SELECT count(*) FROM jobs_p$((i - 1))"; done | paste -sd+)), $(bs_psql -Atc \
    "SELECT count(*) FROM events") remote event rows; every cluster has tree bench_shard: $(for i in 1 2 3; do
    shard_psql "$i" -Atc "SELECT generation = $(bs_psql -Atc "SELECT generation FROM bst_tree_catalog WHERE name = 'bench_shard'") FROM bst_tree_catalog WHERE name = 'bench_shard'"; done | paste -sd,)"

# ---------------------------------------------------------------------------
echo "-- (a) reconstruction job over $ROWS filters, members gathered as one bigint[] per filter"
pushed="SELECT sum(cardinality(members)) FROM job_members"
alone="SELECT sum(cardinality(ARRAY(SELECT bst_reconstruct('bench_shard', f)))) FROM jobs"
alone_local="SELECT sum(cardinality(ARRAY(SELECT bst_reconstruct('bench_shard', f)))) FROM jobs_local"
one_shard="SELECT sum(cardinality(members)) FROM job_members_p0"
counts="SELECT sum(n) FROM job_counts"
same=$(bs_psql -Atc "SELECT ($pushed) = ($alone_local) AND ($counts) = ($alone_local)
    AND (SELECT array_agg(id ORDER BY id) FROM job_members WHERE 7919 = ANY(members))
      = (SELECT array_agg(id ORDER BY id) FROM jobs_local WHERE f @> 7919::bigint)")
echo "   same members as the coordinator's own reconstruction: $same"
bs_psql -Atc "EXPLAIN (COSTS OFF) $pushed" | grep -c 'Async Foreign Scan' | sed 's/^/   async foreign scans in the pushed plan: /'
read -r t_alone t_push t_local t_one t_counts < <(bench_times "$RUNS" "$alone" "$pushed" "$alone_local" \
    "$one_shard" "$counts" | awk '{ printf "%s ", $1 } END { print "" }')
speedup=$(ratio "$t_alone" "$t_push")
printf '   coordinator alone (pulls the filters) %10.1f ms\n' "$t_alone"
printf '   pushed to 3 shards, arrays gathered   %10.1f ms  -> %sx faster\n' "$t_push" "$speedup"
printf '   coordinator alone on a local copy     %10.1f ms  (%sx the pushed job)\n' "$t_local" "$(ratio "$t_local" "$t_push")"
printf '   one shard'"'"'s third alone               %10.1f ms  (3 x that = %.1f ms: one shard doing it all)\n' "$t_one" \
    "$(awk -v t="$t_one" 'BEGIN { print 3 * t }')"
printf '   pushed, a count per filter returned   %10.1f ms  -> %sx faster than the coordinator alone\n' "$t_counts" \
    "$(ratio "$t_alone" "$t_counts")"
results+=("sharding: reconstruction job, $ROWS filters on 3 shards / coordinator alone|${speedup}x faster|>= 1.6x|$(bench_verdict "$speedup" '>=' 1.6)")

# ---------------------------------------------------------------------------
echo "-- (b) global bloom_union_agg over $ROWS filters"
naive="SELECT md5(bloom_union_agg(f)::text) FROM jobs"
partial="SELECT md5(bloom_union_agg(u)::text) FROM (SELECT bloom_union_agg(f) u FROM jobs_p0
  UNION ALL SELECT bloom_union_agg(f) FROM jobs_p1 UNION ALL SELECT bloom_union_agg(f) FROM jobs_p2) s"
naive_tag="SELECT tag, md5(bloom_union_agg(f)::text) FROM jobs GROUP BY tag"
partial_tag="SELECT tag, md5(bloom_union_agg(u)::text) FROM (SELECT tag, bloom_union_agg(f) u FROM jobs_p0 GROUP BY tag
  UNION ALL SELECT tag, bloom_union_agg(f) FROM jobs_p1 GROUP BY tag
  UNION ALL SELECT tag, bloom_union_agg(f) FROM jobs_p2 GROUP BY tag) s GROUP BY tag"
fdw_rows() {        # remote rows the Foreign Scans of a query return
    bs_psql -Atc "SET enable_partitionwise_aggregate = on; EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $1" |
        awk '/Foreign Scan/ { if (match($0, /actual rows=[0-9]+ loops=[0-9]+/)) {
                 split(substr($0, RSTART, RLENGTH), a, /[= ]/); s += a[3] * a[5] } } END { print s + 0 }'
}
same=$(bs_psql -Atc "SELECT ($naive) = ($partial) AND ($partial) = (SELECT md5(bloom_union_agg(f)::text) FROM jobs_local)
  AND (SELECT array_agg(x ORDER BY x) FROM ($naive_tag) x) = (SELECT array_agg(x ORDER BY x) FROM ($partial_tag) x)")
echo "   same union as the local copy's (global and per tag): $same"
r_naive=$(fdw_rows "$naive"); r_partial=$(fdw_rows "$partial")
r_naive_tag=$(fdw_rows "$naive_tag"); r_partial_tag=$(fdw_rows "$partial_tag")
fbytes=$(bs_psql -Atc "SELECT avg(length(f::text))::int FROM jobs_local")
read -r t_naive t_partial t_naive_tag t_partial_tag < <(bench_times "$RUNS" "$naive" "$partial" "$naive_tag" \
    "$partial_tag" | awk '{ printf "%s ", $1 } END { print "" }')
printf '   plain aggregate (pulls every filter)  %8d rows, %10d bytes, %8.1f ms\n' "$r_naive" \
    "$((r_naive * fbytes))" "$t_naive"
printf '   per-shard partials, combined           %8d rows, %10d bytes, %8.1f ms  -> %sx faster\n' "$r_partial" \
    "$((r_partial * fbytes))" "$t_partial" "$(ratio "$t_naive" "$t_partial")"
printf '   by 100 tags: plain %d rows %.1f ms; per-shard partials %d rows (%s per group) %.1f ms -> %sx faster\n' \
    "$r_naive_tag" "$t_naive_tag" "$r_partial_tag" "$(ratio "$r_partial_tag" 100)" "$t_partial_tag" \
    "$(ratio "$t_naive_tag" "$t_partial_tag")"
per_group=$(ratio "$r_partial_tag" 100)
results+=("sharding: global bloom_union_agg, filters moved per group (3 shards)|$r_partial (by tag: $per_group)|<= 3|$(bench_verdict "$per_group" '<=' 3)")

# ---------------------------------------------------------------------------
echo "-- (c) Bloom semi-join: 1,000 local keys against $EVENTS remote rows on 3 shards"
read -r bm bk < <(bs_psql -Atc "SELECT bloom_optimal_m(1000, 0.001), bloom_optimal_k(bloom_optimal_m(1000, 0.001), 1000)" | tr '|' ' ')
echo "   filter of the keys for a false-positive rate of 0.001: m = $bm, k = $bk ($((bm / 8)) bytes shipped to each shard)"
plain="SELECT count(*), sum(length(e.payload)) FROM local_keys l JOIN events e ON e.key = l.k"
bloom="SELECT count(*), sum(length(e.payload)) FROM local_keys l JOIN events e ON e.key = l.k
  WHERE e.key <@ (SELECT bloom_agg(k, $bm, $bk) FROM local_keys)"
anyarr="SELECT count(*), sum(length(e.payload)) FROM local_keys l JOIN events e ON e.key = l.k
  WHERE e.key = ANY((SELECT array_agg(k) FROM local_keys)::bigint[])"
same=$(bs_psql -Atc "SELECT (SELECT x FROM ($plain) x) = (SELECT x FROM ($bloom) x)
  AND (SELECT x FROM ($plain) x) = (SELECT x FROM ($anyarr) x)")
echo "   same answer: $same"
r_plain=$(fdw_rows "$plain"); r_bloom=$(fdw_rows "$bloom"); r_any=$(fdw_rows "$anyarr")
read -r t_plain t_bloom t_any < <(bench_times "$RUNS" "$plain" "$bloom" "$anyarr" | awk '{ printf "%s ", $1 } END { print "" }')
frac=$(awk -v a="$r_bloom" -v b="$r_plain" 'BEGIN { printf "%.3g", 100 * a / b }')
printf '   plain join                %9d remote rows  %8.1f ms\n' "$r_plain" "$t_plain"
printf '   Bloom semi-join           %9d remote rows  %8.1f ms  -> %s%% of the rows, %sx faster\n' "$r_bloom" \
    "$t_bloom" "$frac" "$(ratio "$t_plain" "$t_bloom")"
printf '   = ANY(array of the keys)  %9d remote rows  %8.1f ms  (exact; ships 8 bytes per key)\n' "$r_any" "$t_any"
results+=("sharding: Bloom semi-join, 1,000 keys vs $EVENTS remote rows: rows moved / plain join|${frac}%|<= 2%|$(bench_verdict "$frac" '<=' 2)")
sj=$(ratio "$t_plain" "$t_bloom")
results+=("sharding: Bloom semi-join, time / plain join|${sj}x faster|faster|$(bench_verdict "$sj" '>=' 1)")

bs_psql -q -o /dev/null -c "DROP TABLE jobs, jobs_local, job_members, job_counts, events, local_keys CASCADE" \
    -c "SELECT bst_drop('bench_shard')"
for r in "${results[@]}"; do bench_summary "$r"; done
exit 0
