#!/usr/bin/env bash
# test/demo/run.sh -- the bloomsample demo on real data, in ONE command.
#
#   sudo bash test/demo/run.sh          (fresh Debian 12 machine, as root)
#
# 1. installs the build dependencies (test/install_deps.sh),
# 2. builds and installs bloomsample (PG_CONFIG, default the system
#    PostgreSQL 15: /usr/lib/postgresql/15/bin/pg_config),
# 3. `apt-get update`, then `apt-cache dumpavail`: the Debian package
#    dependency graph, parsed by test/demo/debian_deps.py,
# 4. starts a throwaway cluster as 'postgres' (temp dir, its own unix socket
#    dir, no TCP; port $PORT or a free one), loads
#      pkg(name text primary key, id bigint, deps bloomfilter, dep_ids bigint[])
#          one row per package; deps = filter of the ids it Depends/Pre-Depends
#          on, m = 1024 bits, k = 3 (128 bytes; false-positive rate below
#          1e-6 for the median package with 2 dependencies, 0.25% at 50, 24% for
#          the largest set of 332; about 2 false positives expected per
#          reverse-dependency scan of all 63k packages), seed 0, hash xxh3
#      pkg_dep(pkg_id bigint, dep_id bigint)   the same edges, for exact answers
#      pkg_section(id bigint, section text)     each package's Debian section
# 5. runs every test/demo/[0-9]*.sql in name order with psql (queries echoed;
#    psql variables :demo_m and :demo_k hold the filter parameters; no row-count
#    footers, NULL shown as '-', bloomsample.bst_random_seed = 2024 so that samples
#    repeat from run to run),
# 6. stops and removes the cluster (also on error or Ctrl-C).
#
# DEMO_KEEP=1 keeps the cluster running at the end (prints how to connect).
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "$(id -u)" != 0 ]; then
    echo "run me as root (sudo bash $0): I install packages and start a cluster as 'postgres'" >&2
    exit 1
fi
DEMO_M=1024
DEMO_K=3

echo "== 1. dependencies"
bash test/install_deps.sh

if [ -z "${PORT:-}" ]; then
    PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
fi
. test/bench/lib.sh

echo "== 2. build and install ($PG_CONFIG)"
bs_build_install

echo "== 3. the Debian package graph (apt-get update; apt-cache dumpavail)"
if ! apt-get -o DPkg::Lock::Timeout=600 update -qq; then
    echo "apt-get update failed: using the package lists already on this machine" >&2
fi
DATA=$(mktemp -d /tmp/bs-demo-data.XXXXXX)
cleanup() {
    if [ -n "${DEMO_KEEP:-}" ] && [ -n "${BS_CLUSTER_DIR:-}" ]; then
        echo "cluster kept: psql -h $BS_CLUSTER_DIR -p $PORT -U postgres" \
             "(stop: runuser -u postgres -- $BS_BINDIR/pg_ctl -D $BS_CLUSTER_DIR/data stop)"
    else
        bs_cluster_stop
    fi
    rm -rf "$DATA"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
apt-cache dumpavail >"$DATA/dumpavail"
python3 test/demo/debian_deps.py "$DATA" <"$DATA/dumpavail"

echo "== 4. throwaway cluster on port $PORT, loading"
bs_cluster_start shared_buffers=256MB
psql_demo() { bs_psql -v demo_m=$DEMO_M -v demo_k=$DEMO_K "$@"; }
start=$(date +%s.%N)
psql_demo -q <<SQL
CREATE EXTENSION bloomsample;
CREATE TEMP TABLE pkg_load (name text, id bigint, dep_ids bigint[]);
\copy pkg_load FROM '$DATA/pkg.tsv'
CREATE TABLE pkg (
    name    text PRIMARY KEY,
    id      bigint NOT NULL UNIQUE,
    deps    bloomfilter NOT NULL,     -- m = :demo_m, k = :demo_k, seed 0, xxh3
    dep_ids bigint[] NOT NULL         -- the exact set, for comparisons
);
INSERT INTO pkg SELECT name, id, bloom_from_array(dep_ids, :demo_m, :demo_k), dep_ids
    FROM pkg_load ORDER BY id;
CREATE TABLE pkg_dep (pkg_id bigint NOT NULL, dep_id bigint NOT NULL, PRIMARY KEY (pkg_id, dep_id));
\copy pkg_dep FROM '$DATA/edges.tsv'
CREATE INDEX ON pkg_dep (dep_id);
CREATE TABLE pkg_section (id bigint PRIMARY KEY, section text NOT NULL);
\copy pkg_section FROM '$DATA/sections.tsv'
COMMENT ON TABLE pkg IS 'Debian packages; deps: Bloom filter of the ids of the packages it (Pre-)Depends on';
COMMENT ON TABLE pkg_dep IS 'Debian dependency edges (exact answers)';
COMMENT ON TABLE pkg_section IS 'the Debian section of each package (Section: field)';
VACUUM ANALYZE pkg;
VACUUM ANALYZE pkg_dep;
SQL
echo "loaded $(bs_psql -Atc 'SELECT count(*) FROM pkg') packages and" \
     "$(bs_psql -Atc 'SELECT count(*) FROM pkg_dep') edges in" \
     "$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s"

echo "== 5. demo queries"
for f in test/demo/[0-9]*.sql; do
    echo
    echo "==== $f"
    PGOPTIONS="-c client_min_messages=warning -c bloomsample.bst_random_seed=2024" psql_demo -e -P footer=off -P null=- -f "$f"
done
echo
echo "== demo finished"
