# test/bench/lib.sh
#   Shared helpers of the benchmarks (test/bench/[0-9]*.sh) and the demo
#   (test/demo/run.sh).  Source it; it defines functions only.
#
#   bs_build_install        make + make install with $PG_CONFIG (quietly)
#   bs_cluster_start [cfg]  initdb + start a throwaway cluster as 'postgres' in
#                           a temp dir (own unix socket dir, no TCP), export
#                           PGHOST/PGPORT/PGUSER/PGDATABASE; extra `-c` settings
#                           may be passed as arguments ("name=value" ...)
#   bs_cluster_stop         stop it and remove the temp dir (idempotent)
#   bs_shards_start N PORT [cfg]  initdb + start N more clusters (shards) as
#                           'postgres', ports PORT..PORT+N-1, each with its own
#                           socket dir (BS_SHARD_DIRS[i]; no TCP)
#   bs_shards_stop          stop and remove them (idempotent)
#   bs_shard_psql I ...     bs_psql on shard I (1..N)
#   bench_setup             for a bench part: start a cluster (and build) only
#                           when not already run by test/bench/run.sh
#   bs_psql ...             psql -X -v ON_ERROR_STOP=1 as the cluster's user
#   bench_times N SQL...    run the statements interleaved N times (after one
#                           warm-up round) in ONE session, print one line per
#                           statement: "median_ms min_ms max_ms"
#   bench_times_rotated N SQL...
#                           bench_times with the order rotated each round
#                           (round i starts at statement i mod the count)
#   bench_median N SQL      the median ms of one statement (N runs after a warm-up)
#   bench_vs N W BASE_LABEL BASE_SQL LABEL SQL
#                           time the two statements (bench_times), print a line
#                           "label median (min, max)" for each (labels padded to
#                           W) and set BENCH_RATIO to median(SQL) / median(BASE_SQL)
#   median                  median of the numbers on stdin
#   bench_csv FILE          path of FILE (e.g. 20_bst_sweep.csv) in the results
#                           folder $BS_BENCH_RESULTS (default
#                           test/bench/results/<UTC date>), created with its
#                           machine.txt (cores, CPU, OS, PostgreSQL); a part
#                           writes its figures there as CSV, next to its text
#                           output, and `make plots` draws them
#   bench_sweep             what the sweep of a part does: BENCH_SWEEP=on (the
#                           default: after the other sections), only (the
#                           sweep alone), off
#   bench_verdict V OP L    "met" when V OP L holds (OP: <= or >=), else "MISSED"
#   bench_summary LINE      append a "name|measured|target|verdict" row to
#                           $BS_BENCH_SUMMARY when run.sh provides it
#   bench_report ROW...     print a part's rows (tab separated, after a blank
#                           line) and append each to the summary
#
# A part (e.g. test/bench/20_bst.sh) looks like:
#     set -euo pipefail
#     . "$(dirname "$0")/lib.sh"; cd "$BS_REPO_ROOT"; bench_setup
#     bs_psql -q -f my_setup.sql
#     read -r base _ < <(bench_times 7 "SELECT baseline...")
#     ...print medians and same-run ratios...
#     bench_summary "name|$ratio|<= 0.5|$(bench_verdict "$ratio" "<=" 0.5)"
# bench_setup does nothing under run.sh; standalone it builds, installs, starts
# a cluster with the settings below, creates the extension and stops the
# cluster on exit.
# Environment: PG_CONFIG (default /usr/lib/postgresql/15/bin/pg_config),
# PORT (default 55499), BS_CLUSTER_SETTINGS (extra "-c" settings, space
# separated name=value pairs).

: "${PG_CONFIG:=/usr/lib/postgresql/15/bin/pg_config}"
: "${PORT:=55499}"
export PG_CONFIG LANG=C.UTF-8 LC_ALL=C.UTF-8

BS_REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BS_BINDIR=$("$PG_CONFIG" --bindir)
BS_CLUSTER_DIR=""

# run a command as the cluster owner: 'postgres' when we are root
bs_as_owner() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

bs_build_install() {
    echo "== building and installing bloomsample with $PG_CONFIG"
    make -s -C "$BS_REPO_ROOT" PG_CONFIG="$PG_CONFIG" >/dev/null
    make -s -C "$BS_REPO_ROOT" PG_CONFIG="$PG_CONFIG" install >/dev/null
}

bs_cluster_start() {
    local settings=("$@") opts="" s
    BS_CLUSTER_DIR=$(mktemp -d /tmp/bs-cluster.XXXXXX)
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$BS_CLUSTER_DIR"
    bs_as_owner "$BS_BINDIR/initdb" -D "$BS_CLUSTER_DIR/data" -U postgres -A trust \
        -E UTF8 --locale=C.UTF-8 --no-sync >"$BS_CLUSTER_DIR/initdb.log" 2>&1 ||
        { cat "$BS_CLUSTER_DIR/initdb.log"; return 1; }
    # shellcheck disable=SC2206
    settings+=(${BS_CLUSTER_SETTINGS:-})
    for s in "${settings[@]}"; do opts="$opts -c $s"; done
    bs_as_owner "$BS_BINDIR/pg_ctl" -D "$BS_CLUSTER_DIR/data" -l "$BS_CLUSTER_DIR/server.log" -w \
        -o "-k $BS_CLUSTER_DIR -p $PORT -c listen_addresses='' -c fsync=off $opts" start >/dev/null ||
        { cat "$BS_CLUSTER_DIR/server.log"; return 1; }
    export PGHOST=$BS_CLUSTER_DIR PGPORT=$PORT PGUSER=postgres PGDATABASE=postgres
    export BS_CLUSTER_DIR
    export BS_CLUSTER_OPTS="-k $BS_CLUSTER_DIR -p $PORT -c listen_addresses='' -c fsync=off $opts"
}

# crash the cluster (immediate stop: no shutdown checkpoint, recovery replays
# the WAL at the next start) and start it again with the same settings
bs_cluster_crash_restart() {
    bs_as_owner "$BS_BINDIR/pg_ctl" -D "$BS_CLUSTER_DIR/data" -m immediate -w stop >/dev/null
    bs_as_owner "$BS_BINDIR/pg_ctl" -D "$BS_CLUSTER_DIR/data" -l "$BS_CLUSTER_DIR/server.log" -w \
        -o "$BS_CLUSTER_OPTS" start >/dev/null || { tail -20 "$BS_CLUSTER_DIR/server.log"; return 1; }
}

bs_cluster_stop() {
    [ -n "${BS_CLUSTER_DIR:-}" ] && [ -d "$BS_CLUSTER_DIR" ] || return 0
    bs_as_owner "$BS_BINDIR/pg_ctl" -D "$BS_CLUSTER_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$BS_CLUSTER_DIR"
    BS_CLUSTER_DIR=""
}

BS_SHARD_DIRS=()
BS_SHARD_PORT=""

bs_shards_start() {
    local n=$1 port=$2 i d opts="" s
    shift 2
    for s in "$@"; do opts="$opts -c $s"; done
    BS_SHARD_PORT=$port
    for ((i = 0; i < n; i++)); do
        d=$(mktemp -d /tmp/bs-shard.XXXXXX)
        BS_SHARD_DIRS+=("$d")
        [ "$(id -u)" = 0 ] && chown postgres:postgres "$d"
        bs_as_owner "$BS_BINDIR/initdb" -D "$d/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 \
            --no-sync >"$d/initdb.log" 2>&1 || { cat "$d/initdb.log"; return 1; }
        bs_as_owner "$BS_BINDIR/pg_ctl" -D "$d/data" -l "$d/server.log" -w \
            -o "-k $d -p $((port + i)) -c listen_addresses='' -c fsync=off $opts" start >/dev/null ||
            { cat "$d/server.log"; return 1; }
    done
}

bs_shards_stop() {
    local d
    for d in "${BS_SHARD_DIRS[@]}"; do
        bs_as_owner "$BS_BINDIR/pg_ctl" -D "$d/data" -m fast -w stop >/dev/null 2>&1 || true
        rm -rf "$d"
    done
    BS_SHARD_DIRS=()
}

bs_shard_psql() {
    local i=$1
    shift
    PGHOST=${BS_SHARD_DIRS[$((i - 1))]} PGPORT=$((BS_SHARD_PORT + i - 1)) bs_psql "$@"
}

# default settings of the benchmark cluster: big enough to keep every table
# cached, no parallel query (timing stability; a part may override per query)
BS_BENCH_SETTINGS=(shared_buffers=1GB max_parallel_workers_per_gather=0 work_mem=64MB
                   jit=off autovacuum=off synchronous_commit=off)

bench_setup() {
    if [ -n "${BS_BENCH_RUNNER:-}" ]; then
        return 0                       # run.sh built, started and exported everything
    fi
    bs_build_install
    bs_cluster_start "${BS_BENCH_SETTINGS[@]}"
    trap bs_cluster_stop EXIT
    bs_psql -q -c "CREATE EXTENSION IF NOT EXISTS bloomsample"
}

# ---- figures as CSV (test/bench/results/, drawn by test/bench/plot.sh) -------
: "${BS_BENCH_RESULTS:=$BS_REPO_ROOT/test/bench/results/$(date -u +%F)}"
export BS_BENCH_RESULTS

bench_csv() {
    mkdir -p "$BS_BENCH_RESULTS"
    if [ ! -s "$BS_BENCH_RESULTS/machine.txt" ]; then
        {
            echo "date: $(date -u '+%F %H:%M UTC')"
            echo "cores: $(nproc)"
            echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
            echo "os: $(. /etc/os-release && echo "$PRETTY_NAME")"
            echo "postgresql: $("$BS_BINDIR/postgres" --version)"
            echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
        } >"$BS_BENCH_RESULTS/machine.txt"
    fi
    echo "$BS_BENCH_RESULTS/$1"
}

bench_sweep() {
    echo "${BENCH_SWEEP:-on}"
}

bench_verdict() {
    awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN {
        ok = (op == "<=") ? (v <= l) : (v >= l); print ok ? "met" : "MISSED" }'
}

bench_summary() {
    if [ -n "${BS_BENCH_SUMMARY:-}" ]; then echo "$1" >>"$BS_BENCH_SUMMARY"; fi
    return 0
}

bench_report() {
    local r
    echo
    for r in "$@"; do
        echo "   $r" | tr '|' '\t'
        bench_summary "$r"
    done
}

# bench_dense_table NAME N: table NAME (id, f, a) of N rows, row i's set a the
# 100 integers ((100 i + j) * 2654435761) mod 2^40, f its filter of m = 2,397,
# k = 17 (fp 1e-5; half the bits set): the dense regime of the Bloofi benchmarks
bench_dense_table() {
    bs_psql -q <<SQL
DROP TABLE IF EXISTS $1;
CREATE TABLE $1 (id int, f bloomfilter, a bigint[]);
INSERT INTO $1
SELECT i, bloom_from_array(arr, 2397, 17), arr
FROM (SELECT i, ARRAY(SELECT ((i::bigint * 100 + j) * 2654435761) % 1099511627776
                      FROM generate_series(0, 99) j) AS arr
      FROM generate_series(1, $2) i) s;
VACUUM (FREEZE, ANALYZE) $1;
SQL
}

bs_psql() {
    PGOPTIONS="${PGOPTIONS:--c client_min_messages=warning}" "$BS_BINDIR/psql" -X -v ON_ERROR_STOP=1 "$@"
}

bench_median() {
    bench_times "$1" "$2" | awk '{ print $1 }'
}

bench_vs() {
    local n=$1 width=$2 med mn mx i
    local -a t labels=("$3" "$5")
    mapfile -t t < <(bench_times "$n" "$4" "$6")
    for i in 0 1; do
        read -r med mn mx <<<"${t[$i]}"
        printf "   %-${width}s median %9.1f ms  (min %.1f, max %.1f)\n" "${labels[$i]}" "$med" "$mn" "$mx"
    done
    BENCH_RATIO=$(awk -v a="${t[1]%% *}" -v b="${t[0]%% *}" 'BEGIN { printf "%.2f", a / b }')
}

median() {
    sort -g | awk '{v[NR] = $1} END {
        if (NR == 0) { print "nan"; exit }
        if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

bench_times() {
    local n=$1 i j out
    shift
    local nstmt=$#
    out=$({
        echo '\timing on'
        for ((i = 0; i <= n; i++)); do
            for s in "$@"; do echo "$s;"; done
        done
    } | bs_psql -q -o /dev/null) || return 1
    # Time lines in statement order: round 0 is the warm-up
    for ((j = 0; j < nstmt; j++)); do
        echo "$out" | awk -v n="$nstmt" -v j="$j" '/^Time: / { if (c % n == j && c >= n) print $2; c++ }' |
            bench_med_min_max
    done
}

# "median min max" (ms, 3 decimals) of the numbers on stdin
bench_med_min_max() {
    sort -g | awk '{v[NR] = $1} END {
        med = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%.3f %.3f %.3f\n", med, v[1], v[NR] }'
}

# bench_times with the order rotated each round (round i starts at statement
# i mod the count), so each statement takes every place in the round in turn:
# none always runs first, on caches the round before left cold or warm
bench_times_rotated() {
    local n=$1 i k j out
    shift
    local nstmt=$# stmts=("$@")
    out=$({
        echo '\timing on'
        for ((i = 0; i <= n; i++)); do
            for ((k = 0; k < nstmt; k++)); do
                j=$(((i + k) % nstmt))
                echo "\\echo @stmt $j"
                echo "${stmts[j]};"
            done
        done
    } | bs_psql -q -o /dev/null) || return 1
    # each Time line belongs to the statement echoed before it; a statement's
    # first run (round 0) is the warm-up
    for ((j = 0; j < nstmt; j++)); do
        echo "$out" | awk -v j="$j" '/^@stmt / { cur = $2; next }
            /^Time: / { if (cur == j && seen++) print $2 }' | bench_med_min_max
    done
}
