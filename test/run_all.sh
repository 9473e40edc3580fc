#!/usr/bin/env bash
# Runs every test of bloomsample on this machine: installs the build and test
# dependencies (Debian packages), builds with -Werror, runs the core's unit
# tests (also under ASan/UBSan), then pg_regress and the TAP tests against a
# throwaway cluster that pg_regress / PostgreSQL::Test::Cluster start and stop,
# a fixed-seed sqlsmith run (test/fuzz/run.sh) and pg_regress plus a short
# fuzz run with the extension built under ASan/UBSan (test/sanitize/run.sh),
# the benchmark plots drawn from the committed CSV files (make plots) and the
# Debian package built, installed, tested and removed (test/package/run.sh).
# docs/testing.md describes each step.
#
#   sudo bash test/run_all.sh        (or as root: bash test/run_all.sh)
#
# Ports of the throwaway clusters: REGRESS_PORT (54329), FUZZ_PORT (54330),
# SANITIZE_PORT (54340 and the next one), PACKAGE_PORT (54350).
#
# initdb refuses to run as root, so the server-side tests run as the
# 'postgres' user in a scratch copy of the tree (docs/architecture.md, developer's loop).
set -euo pipefail
cd "$(dirname "$0")/.."
export LANG=C.UTF-8
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}

SECONDS=0
# stage NAME: print the stage with the minutes:seconds spent so far (the CI budget is 20 min)
stage() { printf '== [%d:%02d] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }

bash test/install_deps.sh

W=$(mktemp -d /tmp/bs-ci.XXXXXX)
SMALL="$W/.small"
trap 'umount "$SMALL" 2>/dev/null || true; rm -rf "$W"' EXIT
tar --exclude=./.git --exclude='*.o' --exclude='*.so' --exclude=./tmp_check \
    --exclude=./results --exclude=./test/unit/bin -cf - . | tar -xf - -C "$W"
cd "$W"
make -s PG_CONFIG=$PG_CONFIG COPT=-Werror
make -s PG_CONFIG=$PG_CONFIG install

stage "hashing-scheme test vectors against the Python reference implementation"
/usr/bin/python3 test/ref/bloom_ref.py --check
/usr/bin/python3 test/ref/cuckoo_ref.py --check
/usr/bin/python3 test/ref/bloomtree_ref.py --check
stage "unit tests of the core"
make -s PG_CONFIG=$PG_CONFIG unitcheck
stage "unit tests of the core under ASan/UBSan"
make -s PG_CONFIG=$PG_CONFIG unitcheck-sanitize

stage "pg_regress and TAP tests"
mkdir -p "$W/.tmp" "$SMALL" && chown -R postgres:postgres "$W"
# a small volume for the disk-reserve test of test/t/025_bst_operations.pl (root only)
if mount -t tmpfs -o size=96m,mode=0700 tmpfs "$SMALL" 2>/dev/null; then
    chown postgres:postgres "$SMALL"
    export BS_SMALL_VOLUME="$SMALL"
fi
# installcheck as postgres; on failure print the diffs and the TAP logs, and stop
installcheck() {
    runuser -u postgres -- env TMPDIR="$W/.tmp" make -s PG_CONFIG=$PG_CONFIG installcheck "$@" \
        EXTRA_REGRESS_OPTS="--temp-instance=$W/tmp_regress --port=${REGRESS_PORT:-54329}" && return 0
    cat regression.diffs 2>/dev/null | head -300 || true
    for f in tmp_check/log/regress_log_* tmp_check/log/*.log; do
        [ -f "$f" ] && { echo "---- $f"; tail -80 "$f"; }
    done
    exit 1
}
# The TAP files run two at a time (each cluster takes its own port through
# PostgreSQL::Test::Cluster's port locks, its own directories under
# tmp_check/), the slowest first, except those whose assertions bound wall
# time: they run alone afterwards, on an otherwise idle machine.
ALONE="test/t/031_value_limits.pl"
SLOWEST="test/t/013_bloofi_cancel.pl test/t/011_bloofi_replica.pl test/t/016_bloofi_standby.pl test/t/014_bloofi_churn.pl"
PAIRED=$(for f in $SLOWEST $(ls test/t/*.pl); do
             case " $ALONE " in *" $f "*) continue ;; esac
             [ -f "$f" ] && echo "$f"
         done | awk '!seen[$0]++' | tr '\n' ' ')
[ $(( $(echo $PAIRED | wc -w) + $(echo $ALONE | wc -w) )) -eq $(ls test/t/*.pl | wc -l) ] \
    || { echo "run_all.sh: TAP files lost between the paired and the alone runs"; exit 1; }
installcheck PROVE_FLAGS="--timer -j2" PROVE_TESTS="$PAIRED"
stage "TAP tests that bound wall time, alone: $ALONE"
installcheck REGRESS= PROVE_FLAGS=--timer PROVE_TESTS="$ALONE"
stage "fuzzing, fixed seed: sqlsmith for 90 s, then 1500 edge calls (at most 60 s), then the oracles (a few s)"
FUZZ_SEEDS=1 FUZZ_SECONDS=90 FUZZ_CALLS=1500 FUZZ_CALL_SECONDS=60 PG_CONFIG=$PG_CONFIG \
    bash test/fuzz/run.sh
stage "the extension under ASan/UBSan: pg_regress, then fuzzing (30 s of each fuzzer)"
SANITIZE_FUZZ_SECONDS=30 PG_CONFIG=$PG_CONFIG bash test/sanitize/run.sh
stage "benchmark plots: make plots from the committed CSV files, into a temporary folder"
make -s PG_CONFIG=$PG_CONFIG plots PLOTS_OUT="$W/plots"
stage "the Debian package: build, lintian, dpkg -i, pg_regress against it, dpkg --purge"
PG_CONFIG=$PG_CONFIG PACKAGE_PORT=${PACKAGE_PORT:-54350} bash test/package/run.sh
stage "all tests passed"
