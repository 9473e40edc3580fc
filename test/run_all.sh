#!/usr/bin/env bash
# Runs every test of bloomsample on this machine: installs the build and test
# dependencies (Debian packages), builds with -Werror, runs the core's unit
# tests (also under ASan/UBSan), then pg_regress and the TAP tests against a
# throwaway cluster that pg_regress / PostgreSQL::Test::Cluster start and stop,
# a fixed-seed sqlsmith run (test/fuzz/run.sh) and pg_regress plus a short
# fuzz run with the extension built under ASan/UBSan (test/sanitize/run.sh),
# the benchmark plots drawn from the committed CSV files (make plots), the
# Debian package built, installed, tested and removed (test/package/run.sh),
# and then, on PostgreSQL 18 and 17 (test/versions/: provisioned once per
# machine, cached under /var/cache/bloomsample), the build with -Werror, the
# whole pg_regress suite and every TAP test, and pg_upgrade from 15 to 18.
# docs/testing.md describes each step.
#
#   sudo bash test/run_all.sh        (or as root: bash test/run_all.sh)
#
# Ports of the throwaway clusters: REGRESS_PORT (54329), FUZZ_PORT (54330),
# SANITIZE_PORT (54340 and the next one), PACKAGE_PORT (54350), 54360 (17's
# pg_regress) and 54370 (18's).
#
# initdb refuses to run as root, so the server-side tests run as the
# 'postgres' user in a scratch copy of the tree (docs/architecture.md, developer's loop).
set -euo pipefail
cd "$(dirname "$0")/.."
export LANG=C.UTF-8
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}

SECONDS=0
# stage NAME: print the stage with the minutes:seconds spent so far (the CI budget is 60 min)
stage() { printf '== [%d:%02d] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }

bash test/install_deps.sh

W=$(mktemp -d /tmp/bs-ci.XXXXXX)
trap 'umount "$W/.small" 2>/dev/null || true; rm -rf "$W"' EXIT
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

PG_CONFIG=$PG_CONFIG STAGE_SECONDS=$SECONDS bash test/installcheck.sh
# PostgreSQL 17 and 18 for the last stages, provisioned meanwhile (a fresh machine
# builds them: minutes of mostly compiling, beside the fixed-length fuzz stages;
# cached under /var/cache/bloomsample, a second run skips it)
bash test/versions/provision.sh > "$W/provision.log" 2>&1 &
PROVISION=$!
stage "fuzzing, fixed seed: sqlsmith for 90 s, then 1500 edge calls (at most 60 s), then the oracles (a few s)"
FUZZ_SEEDS=1 FUZZ_SECONDS=90 FUZZ_CALLS=1500 FUZZ_CALL_SECONDS=60 PG_CONFIG=$PG_CONFIG \
    bash test/fuzz/run.sh
stage "the extension under ASan/UBSan: pg_regress, then fuzzing (30 s of each fuzzer)"
SANITIZE_FUZZ_SECONDS=30 PG_CONFIG=$PG_CONFIG bash test/sanitize/run.sh
stage "benchmark plots: make plots from the committed CSV files, into a temporary folder"
make -s PG_CONFIG=$PG_CONFIG plots PLOTS_OUT="$W/plots"
stage "the Debian package: build, lintian, dpkg -i, pg_regress against it, dpkg --purge"
PG_CONFIG=$PG_CONFIG PACKAGE_PORT=${PACKAGE_PORT:-54350} bash test/package/run.sh
stage "other PostgreSQL majors: waiting for the provisioning of 17 and 18"
wait $PROVISION || { cat "$W/provision.log"; echo "run_all.sh: provisioning 17 and 18 failed"; exit 1; }
cat "$W/provision.log"
stage "PostgreSQL 18: build, pg_regress, every TAP test, pg_upgrade from 15"
STAGE_SECONDS=$SECONDS bash test/versions/run.sh 18
stage "PostgreSQL 17: build, pg_regress, every TAP test (in the trixie root)"
STAGE_SECONDS=$SECONDS bash test/versions/run.sh 17
stage "all tests passed"
