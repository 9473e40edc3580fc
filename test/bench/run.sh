#!/usr/bin/env bash
# test/bench/run.sh -- what `make bench` runs.
#
# Builds and installs bloomsample (PG_CONFIG, default the system PostgreSQL 15),
# starts ONE throwaway cluster as 'postgres' (temp dir, own socket dir, port
# $PORT default 55499, shared_buffers=512MB, no parallel query), creates the
# extension, runs every test/bench/[0-9]*.sh in name order with PGHOST, PGPORT,
# PGUSER exported, then stops the cluster and removes it.  Each part prints its
# own same-run comparisons; a part may append "name|value|target|verdict" lines
# to $BS_BENCH_SUMMARY, printed as one table at the end and written to
# test/bench/results/<date>/summary.csv, beside the parts' sweeps (CSV files that
# `make plots` draws).
#
#   bash test/bench/run.sh            (as root, or as a user that can run initdb)
#   PG_CONFIG=... PORT=... bash test/bench/run.sh [part-name-filter]
#
# Benchmarks never fail the build: a missed target is reported, not an error
# (the exit status is non-zero only when a part crashes).
set -euo pipefail
# on a fresh machine (as root) install the build dependencies first
[ "$(id -u)" = 0 ] && bash "$(dirname "$0")/../install_deps.sh"
. "$(dirname "$0")/lib.sh"
cd "$BS_REPO_ROOT"

filter=${1:-}
bs_build_install
bs_cluster_start "${BS_BENCH_SETTINGS[@]}"
trap bs_cluster_stop EXIT
bs_psql -q -c "CREATE EXTENSION bloomsample"
export BS_BENCH_RUNNER=1
BS_BENCH_SUMMARY=$(mktemp /tmp/bs-bench-summary.XXXXXX)
export BS_BENCH_SUMMARY
trap 'bs_cluster_stop; rm -f "$BS_BENCH_SUMMARY"' EXIT

echo "== benchmark cluster: $(bs_psql -Atc 'select version()')"
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
status=0
for part in test/bench/[0-9]*.sh; do
    [ -n "$filter" ] && [[ "$part" != *"$filter"* ]] && continue
    echo
    echo "==== $part"
    bash "$part" || { echo "!! $part failed"; status=1; }
done

echo
echo "==== summary (same-run ratios; see each part for medians)"
if [ -s "$BS_BENCH_SUMMARY" ]; then
    { echo "benchmark|measured|target|verdict"; cat "$BS_BENCH_SUMMARY"; } |
        awk -F'|' '{ for (i = 1; i <= NF; i++) { c[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } }
                   END { for (r = 1; r <= NR; r++) { l = ""; for (i = 1; i <= 4; i++) l = l sprintf("%-*s  ", w[i], c[r, i]); print l } }'
fi
# the same figures as CSV, next to the parts' sweeps (test/bench/results/<date>/)
if [ -s "$BS_BENCH_SUMMARY" ]; then
    csv=$(bench_csv summary.csv)
    { echo "benchmark,measured,target,verdict"
      awk -F'|' '{ for (i = 1; i <= 4; i++) { gsub(/"/, "\"\"", $i); printf "%s\"%s\"", (i > 1 ? "," : ""), $i }; print "" }' \
          "$BS_BENCH_SUMMARY"; } >"$csv"
    echo "== figures as CSV: $csv"
fi
exit $status
