#!/usr/bin/env bash
# test/fuzz/run.sh (make fuzz): random SQL from sqlsmith against bloomsample.
#
# Starts a throwaway cluster of its own (initdb in a scratch directory, a unix
# socket there, no TCP), loads test/fuzz/setup.sql into database bs_fuzz (every
# kind of object of the extension, owned by the role bs_fuzzer), then runs
# sqlsmith as bs_fuzzer once per seed, each run bounded by a query count and a
# wall-clock limit, with a view named pg_proc first on its search_path so that
# it draws the extension's routines.  Each statement runs under
# statement_timeout (sqlsmith rolls every statement back).
#
# It fails on a crash and nothing else: a backend killed by a signal, a PANIC,
# an assertion failure (TRAP), a sanitizer report, an error about corrupt data
# (SQLSTATE XX001 or XX002), a server that stops answering, or a Bloofi index
# that bloofi_check finds broken after the run.  Ordinary errors (bad input,
# timeouts, permissions) are expected by the thousands; internal errors (XX000)
# are listed, not failed on.
#
# Settings (environment):
#   PG_CONFIG        the PostgreSQL to use (its bindir)
#   FUZZ_SEEDS       space-separated sqlsmith seeds          (default "1")
#   FUZZ_QUERIES     most queries per seed                   (default 20000)
#   FUZZ_SECONDS     wall-clock limit per seed               (default 150)
#   FUZZ_PORT        port of the throwaway cluster           (default 54330)
#   FUZZ_TIMEOUT     statement_timeout of each query         (default 2s)
#   FUZZ_KEEP=1      keep the scratch directory (logs, data)
#   FUZZ_ENV         extra environment for the server, e.g. LD_PRELOAD=... (the
#                    sanitizer run: test/sanitize/run.sh)
#
# As root (CI) the cluster runs as the user postgres.
set -euo pipefail
cd "$(dirname "$0")/../.."
export LANG=C.UTF-8
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
FUZZ_SEEDS=${FUZZ_SEEDS:-1}
FUZZ_QUERIES=${FUZZ_QUERIES:-20000}
FUZZ_SECONDS=${FUZZ_SECONDS:-150}
FUZZ_PORT=${FUZZ_PORT:-54330}
FUZZ_TIMEOUT=${FUZZ_TIMEOUT:-2s}
FUZZ_ENV=${FUZZ_ENV:-}
BIN=$("$PG_CONFIG" --bindir)

command -v sqlsmith >/dev/null || { echo "fuzz: sqlsmith is not installed (apt-get install sqlsmith)" >&2; exit 2; }

W=$(mktemp -d /tmp/bs-fuzz.XXXXXX)
AS=()
if [ "$(id -u)" = 0 ]; then
    chown postgres: "$W"
    AS=(runuser -u postgres --)
fi
stop() {
    "${AS[@]}" "$BIN/pg_ctl" -D "$W/data" -m immediate stop >/dev/null 2>&1 || true
    if [ -z "${FUZZ_KEEP:-}" ]; then rm -rf "$W"; else echo "fuzz: kept $W"; fi
}
trap stop EXIT

"${AS[@]}" "$BIN/initdb" -D "$W/data" -A trust -U postgres --no-sync >"$W/initdb.log" 2>&1 \
    || { cat "$W/initdb.log"; exit 1; }
cat >>"$W/data/postgresql.conf" <<EOF
listen_addresses = ''
unix_socket_directories = '$W'
port = $FUZZ_PORT
fsync = off
log_line_prefix = '%m [%p] %e '
log_min_error_statement = panic
shared_buffers = 64MB
max_connections = 10
EOF
# shellcheck disable=SC2086
"${AS[@]}" env $FUZZ_ENV "$BIN/pg_ctl" -D "$W/data" -l "$W/server.log" -w start >/dev/null \
    || { cat "$W/server.log"; exit 1; }

PSQL=("$BIN/psql" -X -q -h "$W" -p "$FUZZ_PORT" -U postgres -v ON_ERROR_STOP=1)
"${PSQL[@]}" -d postgres -c "CREATE ROLE bs_fuzzer LOGIN" -c "CREATE DATABASE bs_fuzz"
"${PSQL[@]}" -d bs_fuzz -f test/fuzz/setup.sql >"$W/setup.log" 2>&1 || { cat "$W/setup.log"; exit 1; }
echo "fuzz: cluster in $W, $(
    "${PSQL[@]}" -d bs_fuzz -Atc "SELECT count(*) FROM smith.pg_proc") routines to draw from"

fail=0
for seed in $FUZZ_SEEDS; do
    log="$W/sqlsmith.$seed.log"
    start=$(date +%s)
    rc=0
    timeout --kill-after=10 "$FUZZ_SECONDS" sqlsmith --verbose --exclude-catalog --seed="$seed" \
        --max-queries="$FUZZ_QUERIES" \
        --target="host=$W port=$FUZZ_PORT user=bs_fuzzer dbname=bs_fuzz options='-c search_path=smith,pg_catalog,fuzz,public -c statement_timeout=$FUZZ_TIMEOUT'" \
        >"$log" 2>&1 || rc=$?
    queries=$(grep -o 'queries: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || true)
    echo "fuzz: seed $seed: $(( $(date +%s) - start )) s, sqlsmith exit $rc, ${queries:-0} queries"
    if [ "${queries:-0}" -lt 100 ]; then
        echo "fuzz: FAIL: sqlsmith ran fewer than 100 queries; its log ends:"
        tail -5 "$log"
        fail=1
    fi
    # sqlsmith's own summary: the errors it met, most frequent first
    tail -n 25 "$log" | grep -E '^[0-9]+\s' | head -8 | sed 's/^/    /' || true
    if ! "${PSQL[@]}" -d bs_fuzz -Atc "SELECT 1" >/dev/null 2>&1; then
        echo "fuzz: FAIL: the server stopped answering after seed $seed"
        fail=1
        break
    fi
done

# every Bloofi index still satisfies its invariants
if ! "${PSQL[@]}" -d bs_fuzz -Atc "
    SELECT c.relname, bloofi_check(c.oid) IS NULL
    FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE a.amname = 'bloofi' ORDER BY 1" \
    >"$W/check.log" 2>&1; then
    echo "fuzz: FAIL: bloofi_check:"; cat "$W/check.log"
    fail=1
else
    echo "fuzz: bloofi_check passed on $(wc -l <"$W/check.log") indexes"
fi

# the server log: crashes, PANICs, assertion failures, sanitizer reports, corruption
crash_re='terminated by signal|was terminated by exception|server process .*exited with exit code|PANIC:|TRAP:|AddressSanitizer|runtime error:| XX001 | XX002 '
if grep -E "$crash_re" "$W/server.log" >/dev/null; then
    echo "fuzz: FAIL: the server log reports:"
    grep -E -A2 -B2 "$crash_re" "$W/server.log" | head -60
    echo "fuzz: the statements that crashed (from 'Failed process was running'):"
    grep -A1 'terminated by signal' "$W/server.log" | grep 'Failed process' | head -5 || true
    fail=1
fi
internal=$(grep -c ' XX000 ' "$W/server.log" || true)
if [ "$internal" != 0 ]; then
    echo "fuzz: note: $internal internal errors (XX000), by message:"
    grep ' XX000 ' "$W/server.log" | sed 's/.* XX000 *//' | sort | uniq -c | sort -rn | head -10
fi
if [ $fail != 0 ]; then
    FUZZ_KEEP=1
    echo "fuzz: FAILED (server log: $W/server.log, sqlsmith logs: $W/sqlsmith.*.log)"
    exit 1
fi
echo "fuzz: passed (seeds: $FUZZ_SEEDS)"
