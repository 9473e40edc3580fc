#!/usr/bin/env bash
# test/demo/sharding.sh -- README's "Beyond one server" on real data, in ONE
# command: the Debian package graph of the demo (test/demo/run.sh) sharded
# over three clusters with postgres_fdw.
#
#   sudo bash test/demo/sharding.sh     (fresh Debian 12 machine, as root)
#
# 1. installs the dependencies, builds and installs bloomsample (PG_CONFIG),
# 2. reads the package lists on this machine (`apt-cache dumpavail`; no
#    `apt-get update` unless DEMO_UPDATE=1) through test/demo/debian_deps.py,
# 3. starts four throwaway clusters as 'postgres' (temp dirs, unix sockets
#    only): the coordinator on $PORT (or a free port) and three shards on the
#    next ports; each shard gets the extension, its partition of
#      pkg(name text, id bigint, deps bloomfilter)   hash-partitioned on id
#    with a Bloofi index, and views for the distributed reconstruction,
# 4. runs test/demo/sharding.sql on the coordinator (queries echoed): servers,
#    the partitioned table, a tree copied to every shard and checked, lookups,
#    distributed reconstruction, global aggregates and a Bloom semi-join, each
#    next to the exact answer from the coordinator's local copy,
# 5. stops and removes the four clusters (also on error or Ctrl-C).
#
# DEMO_KEEP=1 keeps them running (prints how to connect and stop).
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "$(id -u)" != 0 ]; then
    echo "run me as root (sudo bash $0): I install packages and start clusters as 'postgres'" >&2
    exit 1
fi
echo "== 1. dependencies, build and install"
bash test/install_deps.sh
if [ -z "${PORT:-}" ]; then
    PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1] % 20000 + 40000)')
fi
. test/bench/lib.sh
bs_build_install

echo "== 2. the Debian package graph (apt-cache dumpavail)"
[ -n "${DEMO_UPDATE:-}" ] && apt-get -o DPkg::Lock::Timeout=600 update -qq
DATA=$(mktemp -d /tmp/bs-demo-data.XXXXXX)
chmod 755 "$DATA"
cleanup() {
    if [ -n "${DEMO_KEEP:-}" ]; then
        echo "clusters kept: coordinator psql -h $BS_CLUSTER_DIR -p $PORT -U postgres;" \
             "stop: runuser -u postgres -- $BS_BINDIR/pg_ctl -D <dir>/data stop for $BS_CLUSTER_DIR ${BS_SHARD_DIRS[*]}"
    else
        bs_shards_stop
        bs_cluster_stop
    fi
    rm -rf "$DATA"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
apt-cache dumpavail | python3 test/demo/debian_deps.py "$DATA"
chmod 644 "$DATA"/*.tsv

echo "== 3. four clusters: coordinator on port $PORT, shards on $((PORT + 1))..$((PORT + 3))"
bs_cluster_start shared_buffers=128MB
bs_shards_start 3 $((PORT + 1)) shared_buffers=128MB
for i in 1 2 3; do
    p=$((i - 1))
    bs_shard_psql "$i" -q <<SQL
CREATE EXTENSION bloomsample;
CREATE TABLE pkg_p$p (name text NOT NULL, id bigint PRIMARY KEY, deps bloomfilter NOT NULL);
CREATE INDEX pkg_p${p}_deps ON pkg_p$p USING bloofi (deps);
-- distributed reconstruction: the shard reconstructs its own rows
CREATE VIEW pkg_deps_reconstructed AS
  SELECT p.id, ARRAY(SELECT bst_reconstruct('pkg_ids', p.deps)) AS dep_ids FROM pkg_p$p p;
SQL
done
bs_shard_psql 1 -q -c "CREATE TABLE pkg_dep (pkg_id bigint NOT NULL, dep_id bigint NOT NULL)"

echo "== 4. the demo queries (test/demo/sharding.sql)"
bs_psql -e -v pkg_tsv="$DATA/pkg.tsv" -v edges_tsv="$DATA/edges.tsv" \
    -v s1_host="${BS_SHARD_DIRS[0]}" -v s1_port=$((PORT + 1)) \
    -v s2_host="${BS_SHARD_DIRS[1]}" -v s2_port=$((PORT + 2)) \
    -v s3_host="${BS_SHARD_DIRS[2]}" -v s3_port=$((PORT + 3)) \
    -f test/demo/sharding.sql
echo
echo "== sharding demo finished"
