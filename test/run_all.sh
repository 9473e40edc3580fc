#!/usr/bin/env bash
# Runs every test of bloomsample on this machine: installs the build and test
# dependencies (Debian packages), builds with -Werror, runs the core's unit
# tests (also under ASan/UBSan), then pg_regress and the TAP tests against a
# throwaway cluster that pg_regress / PostgreSQL::Test::Cluster start and stop.
#
#   sudo bash test/run_all.sh        (or as root: bash test/run_all.sh)
#
# initdb refuses to run as root, so the server-side tests run as the
# 'postgres' user in a scratch copy of the tree (docs/architecture.md, developer's loop).
set -euo pipefail
cd "$(dirname "$0")/.."
export LANG=C.UTF-8
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}

bash test/install_deps.sh

W=$(mktemp -d /tmp/bs-ci.XXXXXX)
trap 'rm -rf "$W"' EXIT
tar --exclude=./.git --exclude='*.o' --exclude='*.so' --exclude=./tmp_check \
    --exclude=./results --exclude=./test/unit/bin -cf - . | tar -xf - -C "$W"
cd "$W"
make -s PG_CONFIG=$PG_CONFIG COPT=-Werror
make -s PG_CONFIG=$PG_CONFIG install

echo "== hashing-scheme test vectors against the Python reference implementation"
/usr/bin/python3 test/ref/bloom_ref.py --check
/usr/bin/python3 test/ref/bloomtree_ref.py --check
echo "== unit tests of the core"
make -s PG_CONFIG=$PG_CONFIG unitcheck
echo "== unit tests of the core under ASan/UBSan"
make -s PG_CONFIG=$PG_CONFIG unitcheck-sanitize

echo "== pg_regress and TAP tests"
mkdir -p "$W/.tmp" && chown -R postgres:postgres "$W"
if ! runuser -u postgres -- env TMPDIR="$W/.tmp" make -s PG_CONFIG=$PG_CONFIG installcheck \
      EXTRA_REGRESS_OPTS="--temp-instance=$W/tmp_regress --port=54329"; then
    cat regression.diffs 2>/dev/null | head -300 || true
    for f in tmp_check/log/regress_log_* tmp_check/log/*.log; do
        [ -f "$f" ] && { echo "---- $f"; tail -80 "$f"; }
    done
    exit 1
fi
echo "== all tests passed"
