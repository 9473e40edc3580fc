#!/usr/bin/env bash
# test/versions/run.sh: bloomsample on another PostgreSQL major: builds this
# tree with -Werror against it, installs it there, and runs the whole
# pg_regress suite and every TAP file (test/installcheck.sh), in a scratch copy.
#
#   bash test/versions/run.sh 18|17        (as root, after test/versions/provision.sh)
#
#   18  the server provision.sh built under $BS_PG_CACHE/pg18, on this machine
#   17  Debian's postgresql-17 in the trixie root $BS_PG_CACHE/trixie: the copy,
#       the build and the tests run inside it (chroot, with a /proc and a
#       /dev/shm of its own, for the servers' shared memory, mounted while it runs;
#       nothing of the host's /dev is bound into it)
#
# Settings (environment): BS_PG_CACHE (/var/cache/bloomsample), BS_UPGRADE_FROM
# (for 18: the PostgreSQL 15 installation the pg_upgrade test starts from,
# /usr/lib/postgresql/15, with bloomsample installed), REGRESS_PORT
# (the pg_regress cluster's port; default 54360 for 17, 54370 for 18),
# STAGE_SECONDS (the caller's clock for the stage lines), ONLY_TAP (only these
# TAP files, e.g. ONLY_TAP=test/t/050_sharding.pl: test/installcheck.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
export LANG=C.UTF-8
CACHE=${BS_PG_CACHE:-/var/cache/bloomsample}
MAJOR=${1:?usage: run.sh 17|18}
SECONDS=${STAGE_SECONDS:-0}
stage() { printf '== [%d:%02d] PostgreSQL %s: %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$MAJOR" "$*"; }

case $MAJOR in
    18) ROOT=""; PG_CONFIG="$CACHE/pg18/bin/pg_config"; stamp="$CACHE/pg18/.complete" ;;
    17) ROOT="$CACHE/trixie"; PG_CONFIG=/usr/lib/postgresql/17/bin/pg_config; stamp="$ROOT/.complete" ;;
    *) echo "run.sh: no PostgreSQL $MAJOR here (17, 18)" >&2; exit 2 ;;
esac
[ -f "$stamp" ] || { echo "run.sh: PostgreSQL $MAJOR is not provisioned: bash test/versions/provision.sh" >&2; exit 1; }
case $MAJOR in 17) PORT=${REGRESS_PORT:-54360} ;; 18) PORT=${REGRESS_PORT:-54370} ;; esac

# the scratch copy, under the root the tests run in
W=$(mktemp -d "$ROOT/tmp/bs-v$MAJOR.XXXXXX")
IN=${W#"$ROOT"}                       # its path as the tests see it
mounted=()
cleanup() {
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount "${mounted[i]}" 2>/dev/null || true; done
    umount "$W/.small" 2>/dev/null || true
    rm -rf "$W"
}
trap cleanup EXIT
chmod 755 "$W"
tar --exclude=./.git --exclude='*.o' --exclude='*.so' --exclude='*.bc' --exclude=./tmp_check \
    --exclude=./results --exclude=./test/unit/bin -cf - . | tar -xf - -C "$W"

# run CMD...: in the copy, on the host (18) or inside the trixie root (17)
run() {
    if [ -z "$ROOT" ]; then (cd "$W" && "$@")
    else chroot "$ROOT" /usr/bin/env -C "$IN" "$@"; fi
}
if [ -n "$ROOT" ]; then
    for m in proc dev/shm; do
        mountpoint -q "$ROOT/$m" && continue
        case $m in
            proc) mount -t proc proc "$ROOT/proc" ;;
            dev/shm) mount -t tmpfs -o mode=1777,size=2g tmpfs "$ROOT/dev/shm" ;;
        esac
        mounted+=("$ROOT/$m")
    done
fi

stage "build with -Werror against $(run "$PG_CONFIG" --version)"
run make -s -j2 PG_CONFIG="$PG_CONFIG" COPT=-Werror
run make -s PG_CONFIG="$PG_CONFIG" install
# 18 also takes a PostgreSQL 15 cluster through pg_upgrade (test/versions/t/010_pg_upgrade.pl):
# BS_UPGRADE_FROM, 15's installation with this tree's bloomsample installed (test/run_all.sh did)
extra=""
if [ "$MAJOR" = 18 ]; then
    from=${BS_UPGRADE_FROM:-/usr/lib/postgresql/15}
    [ -f "$("$from/bin/pg_config" --pkglibdir)/bloomsample.so" ] ||
        { echo "run.sh: no bloomsample installed in $from (BS_UPGRADE_FROM) for the pg_upgrade test" >&2; exit 1; }
    export BS_UPGRADE_FROM=$from
    extra=test/versions/t/010_pg_upgrade.pl
fi
run env PG_CONFIG="$PG_CONFIG" REGRESS_PORT="$PORT" STAGE_SECONDS=$SECONDS \
    STAGE_LABEL="PostgreSQL $MAJOR: " EXTRA_TAP_TESTS="$extra" ONLY_TAP="${ONLY_TAP:-}" \
    bash test/installcheck.sh
stage "every test passed"
