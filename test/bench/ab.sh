#!/usr/bin/env bash
# test/bench/ab.sh -- a same-run A/B of two commits over make bench's headline
# parts: "did this change move a headline ratio, beyond the noise?"
#
#   bash test/bench/ab.sh A B [part ...]
#
# A and B are commits (anything git rev-parse takes); the parts are names of
# test/bench/[0-9]*.sh without .sh (default: the parts behind README's
# Benchmarks table that need no outside data, see AB_PARTS below).  Both
# commits are exported with git archive, built with $PG_CONFIG and installed
# into two private copies of that PostgreSQL installation (DESTDIR: the
# system's stays untouched); two throwaway clusters, one per install, run
# side by side on ports $AB_PORT and $AB_PORT + 1.  Then, part by part, the
# part runs AB_ROUNDS times on each cluster, interleaved A, B, B, A, A, B, ...
# (the order flips each round, so neither commit always runs first), every
# run with this checkout's part scripts (the measuring code is one; only the
# extension differs).  Each run's summary rows ("name|measured|target|
# verdict", bench_report) are collected; for every row the table gives A's
# and B's median measured value and the median over the rounds of B / A.  A
# ratio inside [0.9, 1.1] is within the noise these shared machines show
# between two runs of one build (test/bench/README.md, "A/B of two commits").
# The load average is printed before and after every run.
#
# Environment: PG_CONFIG (default /usr/lib/postgresql/15/bin/pg_config),
# AB_ROUNDS (default 3), AB_PORT (default 55480), AB_DIR (work folder,
# default a new /tmp/bs-ab.XXXXXX, removed at the end unless AB_KEEP=1),
# AB_SHARED_BUFFERS (default 512MB each), and any part's own size variables
# (BENCH_RUNS, BENCH_N, ...), passed through to both sides alike.
# Writes the table to stdout and, as CSV, to $AB_DIR/ab.csv (AB_CSV= to put
# it elsewhere).  AB_REPORT_ONLY=1 with the AB_DIR of a run (kept, or cut
# short) prints the table of the runs it holds, building and running nothing.  Run as root (the clusters then run as postgres) or as a
# user that can run initdb.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,31p' "$0"; exit 2; }
: "${PG_CONFIG:=/usr/lib/postgresql/15/bin/pg_config}"
: "${AB_ROUNDS:=3}" "${AB_PORT:=55480}" "${AB_SHARED_BUFFERS:=512MB}"
export LANG=C.UTF-8 LC_ALL=C.UTF-8
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
A=$(git -C "$repo" rev-parse --short "$1")
B=$(git -C "$repo" rev-parse --short "$2")
shift 2
AB_PARTS=(10_type 15_sparse 20_bst 30_bloofi 40_bloomtree 60_deletable 70_frequency)
[ $# -gt 0 ] && AB_PARTS=("$@")
AB_DIR=${AB_DIR:-$(mktemp -d /tmp/bs-ab.XXXXXX)}
mkdir -p "$AB_DIR"
chmod a+rx "$AB_DIR"
owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

if [ "${AB_REPORT_ONLY:-0}" != 1 ]; then
# ---- two builds, two private installs, two clusters ----------------------
declare -A PGC
for side in A B; do
    rev=${!side}
    src=$AB_DIR/src-$side inst=$AB_DIR/pg-$side
    echo "== $side = $rev: $(git -C "$repo" log -1 --format=%s "$rev" | cut -c1-70)"
    rm -rf "$src" && mkdir -p "$src"
    git -C "$repo" archive "$rev" | tar -x -C "$src"
    for key in --bindir --pkglibdir --sharedir; do
        d=$("$PG_CONFIG" $key)
        mkdir -p "$inst$(dirname "$d")"
        cp -a "$d" "$inst$d"
    done
    make -s -C "$src" PG_CONFIG="$PG_CONFIG" >"$AB_DIR/build-$side.log" 2>&1
    make -s -C "$src" PG_CONFIG="$PG_CONFIG" DESTDIR="$inst" install >>"$AB_DIR/build-$side.log" 2>&1
    PGC[$side]=$inst$("$PG_CONFIG" --bindir)/pg_config
done
chmod -R a+rX "$AB_DIR"

start_cluster() {       # side port
    local dir=$AB_DIR/cluster-$1 bin
    bin=$("${PGC[$1]}" --bindir)
    mkdir -p "$dir" && [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
    owner "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 \
        --no-sync >"$dir/initdb.log" 2>&1
    owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -o "-k $dir -p $2 \
        -c listen_addresses='' -c fsync=off -c shared_buffers=$AB_SHARED_BUFFERS \
        -c max_parallel_workers_per_gather=0 -c work_mem=64MB -c jit=off \
        -c autovacuum=off -c synchronous_commit=off" start >/dev/null
    "$bin/psql" -X -q -h "$dir" -p "$2" -U postgres -d postgres -c "CREATE EXTENSION bloomsample"
}
stop_clusters() {
    for side in A B; do
        [ -d "$AB_DIR/cluster-$side/data" ] &&
            owner "$("${PGC[$side]}" --bindir)/pg_ctl" -D "$AB_DIR/cluster-$side/data" -m fast -w stop \
                >/dev/null 2>&1 || true
    done
    [ "${AB_KEEP:-0}" = 1 ] || rm -rf "$AB_DIR"/src-? "$AB_DIR"/pg-? "$AB_DIR"/cluster-?
}
trap stop_clusters EXIT
start_cluster A "$AB_PORT"
start_cluster B "$((AB_PORT + 1))"
declare -A PORTOF=([A]=$AB_PORT [B]=$((AB_PORT + 1)))

# ---- the parts, interleaved ----------------------------------------------
run_part() {            # side part round
    local side=$1 part=$2 round=$3 out=$AB_DIR/runs/$2.$1.$3
    echo "   $part round $round $side (${!side}), load $(load)"
    (
        export PG_CONFIG=${PGC[$side]} PORT=${PORTOF[$side]} PGPORT=${PORTOF[$side]}
        export PGHOST=$AB_DIR/cluster-$side PGUSER=postgres PGDATABASE=postgres
        export BS_BENCH_RUNNER=1 BS_BENCH_SUMMARY=$out.rows BS_BENCH_RESULTS=$AB_DIR/results-$side
        : >"$BS_BENCH_SUMMARY"
        bash "$here/$part.sh" >"$out.log" 2>&1
    ) || echo "   !! $part failed on $side (${!side}): $out.log"
}
mkdir -p "$AB_DIR/runs"
echo "== parts: ${AB_PARTS[*]}; $AB_ROUNDS rounds; load at the start $(load)"
for part in "${AB_PARTS[@]}"; do
    [ -f "$here/$part.sh" ] || { echo "!! no part $part"; continue; }
    for ((r = 1; r <= AB_ROUNDS; r++)); do
        if ((r % 2)); then order="A B"; else order="B A"; fi
        for side in $order; do run_part "$side" "$part" "$r"; done
    done
done
echo "== load at the end $(load)"
fi

# ---- the table -------------------------------------------------------------
# every summary row: its first number on each side, each round; per row the
# sides' medians and the median over rounds of B / A
csv=${AB_CSV:-$AB_DIR/ab.csv}
for f in "$AB_DIR"/runs/*.rows; do
    b=${f##*/}; b=${b%.rows}            # part.side.round
    awk -F'|' -v key="$b" '{ v = $2; if (match(v, /-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?/))
        print key "|" $1 "|" substr(v, RSTART, RLENGTH) }' "$f"
done | awk -F'|' -v rounds="$AB_ROUNDS" -v A="$A" -v B="$B" '
    function med(s,   n, a, i, j, t) {
        n = split(s, a, " "); if (n == 0) return "";
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    { split($1, k, "."); part = k[1]; side = k[2]; round = k[3]; row = part " | " $2
      if (!(row in seen)) { seen[row] = 1; order[++nrows] = row }
      val[row, side, round] = $3 + 0; vals[row, side] = vals[row, side] " " ($3 + 0) }
    END {
      print "| row | A " A " (median) | B " B " (median) | B / A, median of rounds | rounds |"
      print "|---|---|---|---|---|"
      for (i = 1; i <= nrows; i++) {
        row = order[i]; rs = ""; n = 0
        for (r = 1; r <= rounds; r++)
          if (((row, "A", r) in val) && ((row, "B", r) in val) && val[row, "A", r] != 0) {
            rs = rs " " val[row, "B", r] / val[row, "A", r]; n++ }
        printf "| %s | %s | %s | %s | %d |\n", row, med(vals[row, "A"]), med(vals[row, "B"]),
          (n ? sprintf("%.3f", med(rs)) : "n/a"), n
        gsub(/"/, "\"\"", row)
        printf "\"%s\",%s,%s,%s,%d\n", row, med(vals[row, "A"]), med(vals[row, "B"]),
          (n ? sprintf("%.3f", med(rs)) : ""), n > "/dev/stderr"
      }
    }' 2>"$csv"
echo "== as CSV (row, A median, B median, B/A median, rounds): $csv"
