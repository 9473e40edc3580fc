#!/usr/bin/env bash
# test/bench/18_costs.sh -- the per-row CPU of the functions that read a filter,
# measured, next to what the planner charges for them (issue 21): the figures the
# cost constants of src/bloomfilter_readcost.c are derived from.
#
# Run by test/bench/run.sh (`make bench`), or standalone (builds, installs and
# starts its own throwaway cluster, removed on exit):
#     PG_CONFIG=/path/to/pg_config PORT=55432 bash test/bench/18_costs.sh
#
# N = BENCH_COSTS_N (default 100,000) sets of 100 random bigints, one table per
# form: an array, filters of m = 959, k = 7 (fp 1e-2; dense, in line), m = 2,397,
# k = 17 (fp 1e-5; dense, in line), m = 19,171, k = 13 (sparse form: Elias-Fano
# positions, in line) and the same filters stored dense (2.4 kB, compressed).  Per
# row of a sequential scan (the qual's query less `SELECT count(*)` of the same
# table, medians of BENCH_RUNS interleaved runs), in units of one int
# comparison (what cpu_operator_cost stands for: `id = c1 OR ... OR id = c10` less
# no qual, / 10):
#   - `f @> x` on each stored form and m; `x = ANY(arr)` over the same sets;
#   - the estimators `# f` (cardinality) and bloom_intersection_cardinality(f, f);
#   - a plain tuple (the scan's own per-row time);
# each beside the planner's charge (EXPLAIN's total cost of the scan with the qual
# less that without, per row, / cpu_operator_cost).  Then, at default parallel settings, the plan of
# the issue's query `SELECT * FROM t WHERE f @> x` (m = 959): whether a Gather is
# chosen, and the serial and parallel plans' times.
set -euo pipefail
. "$(dirname "$0")/lib.sh"; cd "$BS_REPO_ROOT"; bench_setup

RUNS=${BENCH_RUNS:-11}
N=${BENCH_COSTS_N:-100000}
NOPAR="SET max_parallel_workers_per_gather = 0"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }

# BENCH_COSTS_KEEP=1: keep the tables for the next run (and reuse those left by it)
KEEP=${BENCH_COSTS_KEEP:-0}
TABLES="bc_arr bc_959 bc_2397 bc_sparse bc_dense"
if [ "$KEEP" = 1 ] && [ "$(bs_psql -Atc "SELECT count(*) FROM pg_class WHERE relname = 'bc_dense'")" = 1 ]; then
    echo "== 37 costs: reusing the tables"
else
    echo "== 37 costs: building $N rows"
    bs_psql -q -o /dev/null <<SQL
DROP TABLE IF EXISTS ${TABLES// /, };
SELECT setseed(0.37);
CREATE TABLE bc_arr AS
SELECT i AS id, ARRAY(SELECT floor(random() * 1e12)::bigint + 0 * i FROM generate_series(1, 100)) AS arr
FROM generate_series(1, $N) i;
CREATE TABLE bc_959 AS SELECT id, bloom_from_array(arr, 959, 7) AS f FROM bc_arr;
CREATE TABLE bc_2397 AS SELECT id, bloom_from_array(arr, 2397, 17) AS f FROM bc_arr;
CREATE TABLE bc_sparse AS SELECT id, bloom_from_array(arr, 19171, 13) AS f FROM bc_arr;
SET bloomsample.filter_storage = dense;
CREATE TABLE bc_dense AS SELECT id, bloom_from_array(arr, 19171, 13) AS f FROM bc_arr;
RESET bloomsample.filter_storage;
VACUUM ANALYZE bc_arr, bc_959, bc_2397, bc_sparse, bc_dense;
SQL
fi

# name | table | qual: each measured against count(*) of its own table
QUALS=(
  "10 int comparisons|bc_959|WHERE id = -1 OR id = -2 OR id = -3 OR id = -4 OR id = -5 OR id = -6 OR id = -7 OR id = -8 OR id = -9 OR id = -10"
  "f @> x, m 959 dense|bc_959|WHERE f @> 12345::bigint"
  "f @> x, m 2397 dense|bc_2397|WHERE f @> 12345::bigint"
  "f @> x, m 19171 sparse|bc_sparse|WHERE f @> 12345::bigint"
  "f @> x, m 19171 dense compressed|bc_dense|WHERE f @> 12345::bigint"
  "x = ANY(arr), 100 elements|bc_arr|WHERE 12345::bigint = ANY(arr)"
  "# f, m 959|bc_959|WHERE # f > 1e9"
  "# f, m 19171 sparse|bc_sparse|WHERE # f > 1e9"
  "intersection estimate, m 959|bc_959|WHERE bloom_intersection_cardinality(f, f) > 1e9"
)
stmts=()
for t in $TABLES; do stmts+=("SELECT count(*) FROM $t"); done
for q in "${QUALS[@]}"; do
    rest=${q#*|}
    stmts+=("SELECT count(*) FROM ${rest%%|*} ${rest#*|}")
done
mapfile -t times < <(bench_times "$RUNS" "$NOPAR" "${stmts[@]}" | tail -n +2 | awk '{ print $1 }')
declare -A base_ms
i=0
for t in $TABLES; do base_ms[$t]=${times[$i]}; i=$((i + 1)); done
ntab=$i
charge() {          # charge TABLE QUAL -> EXPLAIN total cost of the scan with it (no aggregate above)
    bs_psql -Atc "$NOPAR" -c "EXPLAIN (FORMAT JSON) SELECT 1 FROM $1 $2" |
        tail -n +2 | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["Plan"]["Total Cost"])'
}
opc=$(bs_psql -Atc "SHOW cpu_operator_cost")
cmp_ns=$(awk -v a="${times[$ntab]}" -v b="${base_ms[bc_959]}" -v n="$N" 'BEGIN { printf "%.2f", (a - b) * 1e6 / n / 10 }')
echo "one int comparison: $cmp_ns ns per row; load $(cut -d' ' -f1 /proc/loadavg)"
printf "%-36s %10s %12s %10s\n" "per row" "ns" "measured" "charged"
printf "%-36s %10s %12s %10s\n" "plain tuple (bc_959)" \
    "$(awk -v a="${base_ms[bc_959]}" -v n="$N" 'BEGIN { printf "%.1f", a * 1e6 / n }')" \
    "$(awk -v a="${base_ms[bc_959]}" -v n="$N" -v c="$cmp_ns" 'BEGIN { printf "%.1f", (c > 0 ? a * 1e6 / n / c : 0) }')" \
    "$(awk -v c="$(charge bc_959 "")" -v n="$N" -v o="$opc" 'BEGIN { printf "%.1f", c / n / o }')"
for i in "${!QUALS[@]}"; do
    name=${QUALS[$i]%%|*}
    rest=${QUALS[$i]#*|}
    t=${rest%%|*}
    qual=${rest#*|}
    ns=$(awk -v a="${times[$((ntab + i))]}" -v b="${base_ms[$t]}" -v n="$N" 'BEGIN { printf "%.1f", (a - b) * 1e6 / n }')
    ch=$(awk -v c="$(charge "$t" "$qual")" -v b="$(charge "$t" "")" -v n="$N" -v o="$opc" \
         'BEGIN { printf "%.1f", (c - b) / n / o }')
    units=$(awk -v a="$ns" -v c="$cmp_ns" 'BEGIN { printf "%.1f", (c > 0 ? a / c : 0) }')
    printf "%-36s %10s %12s %10s\n" "$name" "$ns" "$units" "$ch"
done

# the issue's query at default parallel settings: the plan chosen, serial and parallel times
Q="SELECT * FROM bc_959 WHERE f @> 12345::bigint"
plan=$(bs_psql -Atc "SET max_parallel_workers_per_gather = 2" -c "EXPLAIN $Q" | awk 'NR == 2')
read -r ser par < <(bench_times "$RUNS" "SET max_parallel_workers_per_gather = 0" "SELECT count(*) FROM ($Q) s" \
                      "SET max_parallel_workers_per_gather = 2" \
                      "SET parallel_setup_cost = 0" "SELECT count(*) FROM ($Q) s" |
                    awk 'NR == 2 { s = $1 } NR == 5 { p = $1 } END { print s, p }')
echo "default settings, $Q: ${plan%% (*}; serial $ser ms, parallel (forced) $par ms ($(ratio "$par" "$ser")x)"
[ "$KEEP" = 1 ] || bs_psql -q -c "DROP TABLE ${TABLES// /, }"
