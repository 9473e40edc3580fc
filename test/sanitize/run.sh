#!/usr/bin/env bash
# test/sanitize/run.sh (make check-sanitize): the extension's server-side C
# code under AddressSanitizer and UndefinedBehaviorSanitizer.
#
# PostgreSQL itself is not rebuilt.  The extension alone is compiled with
# gcc -fsanitize=address,undefined (-fno-sanitize-recover: the first UB report
# aborts), installed into a private copy of the PostgreSQL installation (so the
# normal build installed in PG_CONFIG's directories is left alone), and the
# server runs with the ASan runtime LD_PRELOADed.  Then:
#   1. every pg_regress test (sql/*.sql) against a temporary instance;
#   2. a short fuzz run (test/fuzz/run.sh: sqlsmith and the edge calls)
#      against the same build;
# and the run fails if a sanitizer wrote any report, if a backend crashed, or
# if a test failed.
#
# What it catches: out-of-bounds accesses on the stack, in globals and in
# malloc'd memory (which includes every palloc chunk larger than 8 kB: those
# get a malloc block of their own, so running past their end hits a redzone),
# use-after-free of such blocks, and undefined behaviour (overflowing shifts
# and signed arithmetic, misaligned or null pointers, out-of-range
# conversions) in the extension's code.  What it does not: accesses within
# palloc's own blocks (small chunks share a block and are not poisoned
# without a sanitizer-built server), and anything in PostgreSQL's code.
# Leak detection is off: the postmaster and backends leave memory to the
# exit by design.
#
# Settings (environment): PG_CONFIG; SANITIZE_TESTS (pg_regress tests, default
# all); SANITIZE_PORT (default 54340);
# SANITIZE_FUZZ_SECONDS (seconds of each fuzzer, sqlsmith and the edge calls;
# default 60; 0 skips the fuzz run); SANITIZE_KEEP=1
# keeps the scratch directory.
set -euo pipefail
cd "$(dirname "$0")/../.."
export LANG=C.UTF-8
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
PORT=${SANITIZE_PORT:-54340}
FUZZ_SECONDS=${SANITIZE_FUZZ_SECONDS:-60}
CC=${SANITIZE_CC:-gcc}
SAN_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"

W=$(mktemp -d /tmp/bs-san.XXXXXX)
cleanup() { if [ -z "${SANITIZE_KEEP:-}" ]; then rm -rf "$W"; else echo "sanitize: kept $W"; fi; }
trap cleanup EXIT

# a private copy of the PostgreSQL installation, same layout under $W/pg
# (the binaries find their share and lib directories relative to themselves)
PG="$W/pg"
for key in --bindir --pkglibdir --sharedir; do
    d=$("$PG_CONFIG" "$key")
    mkdir -p "$PG$(dirname "$d")"
    cp -a "$d" "$PG$d"
done
BIN="$PG$("$PG_CONFIG" --bindir)"
SAN_PG_CONFIG="$BIN/pg_config"
[ "$("$SAN_PG_CONFIG" --sharedir)" = "$PG$("$PG_CONFIG" --sharedir)" ] \
    || { echo "sanitize: this PostgreSQL installation is not relocatable" >&2; exit 2; }

# build the sanitized extension in a scratch copy of the tree, install it into the copy
mkdir "$W/src"
tar --exclude=./.git --exclude='*.o' --exclude='*.so' --exclude='*.bc' --exclude=./tmp_check \
    --exclude=./results --exclude=./test/unit/bin -cf - . | tar -xf - -C "$W/src"
echo "sanitize: building with $CC $SAN_FLAGS"
make -s -C "$W/src" PG_CONFIG="$PG_CONFIG" CC="$CC" with_llvm=no COPT="$SAN_FLAGS -Werror" >/dev/null
make -s -C "$W/src" PG_CONFIG="$PG_CONFIG" with_llvm=no DESTDIR="$PG" install >/dev/null

ASAN_RT=$("$CC" -print-file-name=libasan.so)
[ -e "$ASAN_RT" ] || { echo "sanitize: no ASan runtime for $CC ($ASAN_RT)" >&2; exit 2; }
# The ASan runtime must initialize before any library constructor allocates:
# p11-kit's (pulled in by libldap via gnutls) takes glibc's locale lock and
# allocates, and an ASan that initializes inside that call leaves the lock
# broken (the next bindtextdomain hangs).  Preloading postgres' own libraries
# ahead of the runtime makes the runtime initialize first (constructors run
# in the reverse of load order); ASan then must not insist on coming first.
PRELOAD=$(ldd "$BIN/postgres" | awk '/=> \//{print $3}' |
          grep -Ev '/(libc|libm|libgcc_s|libstdc\+\+|libpthread|libdl)\.so' | tr '\n' ':')
mkdir -p "$W/reports"
SAN_ENV="LD_PRELOAD=$PRELOAD$ASAN_RT ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0:abort_on_error=1:disable_coredump=1:log_path=$W/reports/asan UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:abort_on_error=1:log_path=$W/reports/ubsan"
env $SAN_ENV "$BIN/postgres" -V >/dev/null \
    || { echo "sanitize: postgres does not start with the ASan runtime preloaded" >&2; exit 2; }

AS=()
if [ "$(id -u)" = 0 ]; then
    chown -R postgres: "$W/src" "$W/reports"
    chmod 755 "$W"
    AS=(runuser -u postgres --)
fi

# 1. pg_regress over every test, server (and clients) under the sanitizers
tests=${SANITIZE_TESTS:-$(cd "$W/src/sql" && ls ./*.sql | sed 's|^\./||; s|\.sql$||' | sort)}
printf 'jit = off\n' >"$W/src/sanitize.conf"
echo "sanitize: pg_regress:" $tests
rc=0
# shellcheck disable=SC2086
(cd "$W/src" && "${AS[@]}" env $SAN_ENV TMPDIR="$W/src" \
    "$("$SAN_PG_CONFIG" --pkglibdir)/pgxs/src/test/regress/pg_regress" \
    --temp-instance="$W/src/tmp_regress" --temp-config="$W/src/sanitize.conf" \
    --bindir="$BIN" --port="$PORT" --inputdir=. --outputdir=. $tests) || rc=$?
if [ $rc != 0 ]; then
    head -200 "$W/src/regression.diffs" 2>/dev/null || true
    grep -E -B2 -A20 'terminated by signal' "$W/src/log/postmaster.log" 2>/dev/null | head -60 || true
fi

# 2. a short fuzz run against the sanitized build
if [ "$FUZZ_SECONDS" != 0 ] && [ $rc = 0 ]; then
    PG_CONFIG="$SAN_PG_CONFIG" FUZZ_SECONDS="$FUZZ_SECONDS" FUZZ_CALL_SECONDS="$FUZZ_SECONDS" \
        FUZZ_PORT=$((PORT + 1)) \
        FUZZ_ENV="$SAN_ENV" bash test/fuzz/run.sh || rc=$?
fi

# 3. any sanitizer report fails the run (in report files, or on the server's
#    stderr, which is its log)
if compgen -G "$W/reports/*" >/dev/null; then
    echo "sanitize: FAIL: sanitizer reports:"
    for f in "$W"/reports/*; do echo "---- $f"; head -60 "$f"; done
    rc=1
fi
report_re='AddressSanitizer|runtime error:|terminated by signal|server process .*exited with exit code'
if grep -E "$report_re" "$W/src/log/postmaster.log" >/dev/null 2>&1; then
    echo "sanitize: FAIL: the pg_regress server log reports:"
    grep -E -A12 "$report_re" "$W/src/log/postmaster.log" | head -80
    rc=1
fi
if [ $rc != 0 ]; then
    SANITIZE_KEEP=1
    echo "sanitize: FAILED"
    exit 1
fi
if [ "$FUZZ_SECONDS" = 0 ]; then what="pg_regress"; else what="pg_regress and fuzzing"; fi
echo "sanitize: passed ($what under ASan/UBSan, no reports)"
