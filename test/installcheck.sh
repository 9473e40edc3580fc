#!/usr/bin/env bash
# test/installcheck.sh: the whole pg_regress suite and every TAP file of
# test/t/, as the 'postgres' user, against the installation of PG_CONFIG that
# this tree was built and installed into.  Run as root from a scratch copy of
# the tree (initdb refuses root; the tests write into the tree): test/run_all.sh
# runs it for PostgreSQL 15, test/versions/run.sh for the other majors.
#
# Settings (environment): PG_CONFIG (default: 15's), REGRESS_PORT (54329, the
# pg_regress cluster's port), STAGE_LABEL (put before each stage line),
# STAGE_SECONDS (the caller's clock), EXTRA_TAP_TESTS (TAP files run with the
# others, e.g. test/versions/t/010_pg_upgrade.pl), ONLY_TAP (run these TAP files
# alone and nothing else: a developer's re-run of some tests on another major).
# On failure: prints the diffs and the TAP logs, exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."
export LANG=C.UTF-8
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
W=$PWD
SMALL="$W/.small"
SECONDS=${STAGE_SECONDS:-0}    # the caller's clock, for its stage lines
stage() { printf '== [%d:%02d] %s%s\n' $((SECONDS / 60)) $((SECONDS % 60)) "${STAGE_LABEL:-}" "$*"; }
trap 'umount "$SMALL" 2>/dev/null || true' EXIT

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
if [ -n "${ONLY_TAP:-}" ]; then
    installcheck REGRESS= PROVE_FLAGS=--timer PROVE_TESTS="$ONLY_TAP"
    exit 0
fi
# The TAP files run two at a time (each cluster takes its own port through
# PostgreSQL::Test::Cluster's port locks, its own directories under
# tmp_check/), the slowest first, except those whose assertions bound wall
# time: they run alone afterwards, on an otherwise idle machine.
ALONE="test/t/080_value_limits.pl"
SLOWEST="test/t/033_bloofi_cancel.pl test/t/031_bloofi_replica.pl test/t/036_bloofi_standby.pl test/t/034_bloofi_churn.pl"
PAIRED=$(for f in $SLOWEST $(ls test/t/*.pl); do
             case " $ALONE " in *" $f "*) continue ;; esac
             [ -f "$f" ] && echo "$f"
         done | awk '!seen[$0]++' | tr '\n' ' ')
[ $(( $(echo $PAIRED | wc -w) + $(echo $ALONE | wc -w) )) -eq $(ls test/t/*.pl | wc -l) ] \
    || { echo "installcheck.sh: TAP files lost between the paired and the alone runs"; exit 1; }
installcheck PROVE_FLAGS="--timer -j2" PROVE_TESTS="$PAIRED ${EXTRA_TAP_TESTS:-}"
stage "TAP tests that bound wall time, alone: $ALONE"
installcheck REGRESS= PROVE_FLAGS=--timer PROVE_TESTS="$ALONE"
