#!/usr/bin/env bash
# test/fuzz/run.sh (make fuzz): random SQL from sqlsmith against bloomsample.
#
# Starts a throwaway cluster of its own (initdb in a scratch directory, a unix
# socket there, no TCP), loads test/fuzz/setup.sql into database bs_fuzz (every
# kind of object of the extension, owned by the role bs_fuzzer) and
# test/fuzz/calls.sql, then for each seed, as bs_fuzzer:
#   1. sqlsmith, bounded by a query count and a wall-clock limit, with a view
#      named pg_proc first on its search_path so that it draws the
#      extension's routines (it rolls every statement back);
#   2. statements from fuzzgen.calls(seed): each calls one function of the
#      extension with edge values of its argument types.
# Each statement runs under statement_timeout.  Then, for each seed, as the
# superuser in a database of their own, the fixed-seed oracles of
# test/fuzz/oracles.sql (countingbloom and cuckoofilter sequences against the
# exact multiset, Count-Min and top-k merges against exact counts, sparse and
# dense stored forms across every operator): a violated oracle fails the run.
#
# It fails on a crash and nothing else: a backend killed by a signal, a PANIC,
# an assertion failure (TRAP), a sanitizer report, an error about corrupt data
# (SQLSTATE XX001 or XX002), a server that stops answering, a Bloofi index
# that bloofi_check finds broken after the run, or what a watchdog sees while
# sqlsmith runs: a statement still running long after its statement_timeout
# (a loop without CHECK_FOR_INTERRUPTS) or a backend whose peak memory passed
# FUZZ_RSS_MB (an unbounded allocation); it logs the statement and ends that
# backend.  Ordinary errors (bad input, timeouts, permissions) are expected by
# the thousands; internal errors (XX000) are listed, not failed on.
#
# Settings (environment):
#   PG_CONFIG        the PostgreSQL to use (its bindir)
#   FUZZ_SEEDS       space-separated sqlsmith seeds          (default "1")
#   FUZZ_QUERIES     most queries per seed                   (default 20000)
#   FUZZ_SECONDS     wall-clock limit of sqlsmith per seed   (default 150)
#   FUZZ_CALLS       edge calls per seed                     (default 3000)
#   FUZZ_CALL_SECONDS wall-clock limit of the edge calls     (default 60)
#   FUZZ_PORT        port of the throwaway cluster           (default 54330)
#   FUZZ_TIMEOUT     statement_timeout of each query         (default 2s)
#   FUZZ_HANG_SECONDS a statement running longer is a hang   (default 60)
#   FUZZ_ORACLE_SECONDS wall-clock limit of the oracles per seed (default 120;
#                    they take a few seconds)
#   FUZZ_RSS_MB      a backend peaking above this is a leak  (default 3000;
#                    one statement on the largest filters, 256 MB each, may
#                    legitimately peak at 2.3 GB: a union and its text form)
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
FUZZ_CALLS=${FUZZ_CALLS:-3000}
FUZZ_CALL_SECONDS=${FUZZ_CALL_SECONDS:-60}
FUZZ_HANG_SECONDS=${FUZZ_HANG_SECONDS:-60}
FUZZ_RSS_MB=${FUZZ_RSS_MB:-3000}
FUZZ_ORACLE_SECONDS=${FUZZ_ORACLE_SECONDS:-120}
BIN=$("$PG_CONFIG" --bindir)

command -v sqlsmith >/dev/null || { echo "fuzz: sqlsmith is not installed (apt-get install sqlsmith)" >&2; exit 2; }

W=$(mktemp -d /tmp/bs-fuzz.XXXXXX)
AS=()
if [ "$(id -u)" = 0 ]; then
    chown postgres: "$W"
    AS=(runuser -u postgres --)
fi
wpid=""
stop() {
    [ -z "$wpid" ] || kill "$wpid" 2>/dev/null || true
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
# VACUUM runs at fixed points of the edge calls instead: runs repeat
autovacuum = off
EOF
# shellcheck disable=SC2086
"${AS[@]}" env $FUZZ_ENV "$BIN/pg_ctl" -D "$W/data" -l "$W/server.log" -w start >/dev/null \
    || { cat "$W/server.log"; exit 1; }

PSQL=("$BIN/psql" -X -q -h "$W" -p "$FUZZ_PORT" -U postgres -v ON_ERROR_STOP=1)
"${PSQL[@]}" -d postgres -c "CREATE ROLE bs_fuzzer LOGIN" -c "CREATE DATABASE bs_fuzz"
for f in setup calls; do
    "${PSQL[@]}" -d bs_fuzz -f "test/fuzz/$f.sql" >>"$W/setup.log" 2>&1 || { cat "$W/setup.log"; exit 1; }
done
echo "fuzz: cluster in $W, $(
    "${PSQL[@]}" -d bs_fuzz -Atc "SELECT count(*) FROM smith.pg_proc") routines to draw from"

# the watchdog: statements running far past their timeout, backends peaking
# past FUZZ_RSS_MB; each is logged with its statement and its backend ended
watchdog() {
    while sleep 2; do
        "${PSQL[@]}" -d postgres -AtF $'\t' -c "
            SELECT pid, floor(extract(epoch FROM now() - query_start)),
                   translate(left(query, 4000), E'\\n\\t\\r', '   ')
            FROM pg_stat_activity WHERE usename = 'bs_fuzzer' AND state = 'active'" 2>/dev/null |
        while IFS=$'\t' read -r pid secs query; do
            hwm=$(awk '/^VmHWM/{print int($2 / 1024)}' "/proc/$pid/status" 2>/dev/null || echo 0)
            why=""
            [ "${secs:-0}" -gt "$FUZZ_HANG_SECONDS" ] && why="running for $secs s (statement_timeout $FUZZ_TIMEOUT)"
            [ "${hwm:-0}" -gt "$FUZZ_RSS_MB" ] && why="peak memory $hwm MB"
            if [ -n "$why" ]; then
                printf 'backend %s: %s: %s\n' "$pid" "$why" "$query" >>"$W/watchdog.log"
                "${PSQL[@]}" -d postgres -Atc "SELECT pg_terminate_backend($pid)" >/dev/null 2>&1 || true
            fi
        done
    done
}

fail=0
for seed in $FUZZ_SEEDS; do
    watchdog &
    wpid=$!
    log="$W/sqlsmith.$seed.log"
    start=$(date +%s)
    rc=0
    timeout --kill-after=10 "$FUZZ_SECONDS" sqlsmith --verbose --exclude-catalog --seed="$seed" \
        --max-queries="$FUZZ_QUERIES" \
        --target="host=$W port=$FUZZ_PORT user=bs_fuzzer dbname=bs_fuzz options='-c search_path=smith,pg_catalog,fuzz,public -c statement_timeout=$FUZZ_TIMEOUT'" \
        >"$log" 2>&1 || rc=$?
    # one character per query in sqlsmith's progress lines ('.' ok, 'e' error, ...)
    queries=$(grep -E '^[.a-zA-Z]+$' "$log" | tr -d '\n' | wc -c)
    echo "fuzz: seed $seed: sqlsmith: $(( $(date +%s) - start )) s, exit $rc, $queries queries"
    if [ "$queries" -lt 20 ]; then
        echo "fuzz: FAIL: sqlsmith ran fewer than 20 queries; its log ends:"
        tail -5 "$log"
        fail=1
    fi
    # the edge calls of this seed, generated deterministically, run one by one;
    # each is preceded by a marker, so that after a lost connection (a crash,
    # or the watchdog ending a backend) the run goes on after that statement
    "${PSQL[@]}" -d bs_fuzz -Atc "SELECT fuzzgen.calls($seed, $FUZZ_CALLS)" |
        awk '{ print "\\echo @" NR; print }' >"$W/calls.$seed.sql"
    start=$(date +%s)
    next=1
    : >"$W/calls.$seed.progress"
    while [ "$next" -le "$FUZZ_CALLS" ]; do
        left=$(( start + FUZZ_CALL_SECONDS - $(date +%s) ))
        [ "$left" -gt 0 ] || break
        crc=0
        tail -n +$(( 2 * next - 1 )) "$W/calls.$seed.sql" |
            timeout --kill-after=10 "$left" "$BIN/psql" -X -q -h "$W" -p "$FUZZ_PORT" -U bs_fuzzer \
                -d bs_fuzz -o /dev/null -f - >>"$W/calls.$seed.progress" 2>>"$W/calls.$seed.log" || crc=$?
        last=$(grep -o '^@[0-9]*' "$W/calls.$seed.progress" | tail -1 | tr -d @ || true)
        [ "$crc" = 2 ] && [ "${last:-0}" -ge "$next" ] || break
        echo "fuzz: seed $seed: the connection was lost at edge call $last, going on after it"
        next=$(( last + 1 ))
    done
    last=$(grep -o '^@[0-9]*' "$W/calls.$seed.progress" | tail -1 | tr -d @ || true)
    echo "fuzz: seed $seed: edge calls: $(( $(date +%s) - start )) s, ${last:-0} of $FUZZ_CALLS run," \
        "$(grep -c 'ERROR:' "$W/calls.$seed.log" || true) errors"
    kill "$wpid" 2>/dev/null || true
    wait "$wpid" 2>/dev/null || true
    if ! "${PSQL[@]}" -d bs_fuzz -Atc "SELECT 1" >/dev/null 2>&1; then
        echo "fuzz: FAIL: the server stopped answering after seed $seed"
        fail=1
        break
    fi
done

# the fixed-seed oracles: exact answers, not only the absence of a crash
"${PSQL[@]}" -d postgres -c "CREATE DATABASE bs_oracles" >/dev/null
"${PSQL[@]}" -d bs_oracles -c "CREATE EXTENSION bloomsample" >/dev/null
for seed in $FUZZ_SEEDS; do
    start=$(date +%s)
    if timeout --kill-after=10 "$FUZZ_ORACLE_SECONDS" "${PSQL[@]}" -d bs_oracles -v seed="$seed" \
        -f test/fuzz/oracles.sql >"$W/oracles.$seed.log" 2>&1; then
        echo "fuzz: seed $seed: oracles passed in $(( $(date +%s) - start )) s"
    else
        echo "fuzz: FAIL: seed $seed: an oracle failed or timed out:"
        grep -E 'ERROR|oracle' "$W/oracles.$seed.log" | head -5
        fail=1
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
if [ -s "$W/watchdog.log" ]; then
    echo "fuzz: FAIL: the watchdog saw:"
    cut -c1-3000 "$W/watchdog.log" | head -20
    fail=1
fi
# internal errors (elog-style, XX000) and out-of-memory errors (53200): listed
internal=$(grep -cE ' (XX000|53200) ' "$W/server.log" || true)
if [ "$internal" != 0 ]; then
    echo "fuzz: note: $internal internal (XX000) or out-of-memory (53200) errors, by message:"
    grep -E ' (XX000|53200) ' "$W/server.log" | sed -E 's/.* (XX000|53200) */\1 /' |
        sort | uniq -c | sort -rn | head -10
fi
if [ $fail != 0 ]; then
    FUZZ_KEEP=1
    echo "fuzz: FAILED (server log: $W/server.log, sqlsmith logs: $W/sqlsmith.*.log)"
    exit 1
fi
echo "fuzz: passed (seeds: $FUZZ_SEEDS)"
