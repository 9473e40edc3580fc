#!/usr/bin/env bash
# test/bench/10_type.sh -- benchmarks of the bloomfilter type (issue 2).
#
# Run by test/bench/run.sh (`make bench`), or standalone (builds, installs and
# starts its own throwaway cluster): bash test/bench/10_type.sh
#
#   (a) bloom_agg(x, 1<<20, 5) over 2M bigint rows  vs  sum(x) over the same
#       rows: ratio of medians, target <= 2.0
#   (b) count(*) WHERE f @> x over 100k rows of 100-element sets (filters for
#       1%: m = bloom_optimal_m(100, 0.01), k = bloom_optimal_k(m, 100))  vs
#       count(*) WHERE x = ANY(arr) over the same sets as bigint[] (same table,
#       so both scans read the same pages): ratio of summed medians over 3
#       present and 3 absent x values, target <= 0.5
#   (c) C core (core_bench.c, the extension's CFLAGS): membership ns/op and
#       AND+popcount GB/s vs memcpy GB/s in the same run, target >= 50%
#
# Every SQL timing is the median of BENCH_RUNS (default 11) runs after a
# warm-up run, statements interleaved in one session (warm cache).
# BENCH_AGG_ROWS / BENCH_SET_ROWS shrink the tables for a quick try.
set -euo pipefail
. "$(dirname "$0")/lib.sh"; cd "$BS_REPO_ROOT"; bench_setup

RUNS=${BENCH_RUNS:-11}
AGG_ROWS=${BENCH_AGG_ROWS:-2000000}
SET_ROWS=${BENCH_SET_ROWS:-100000}
results=()          # "name|measured|target|verdict"

# ---------------------------------------------------------------------------
# Sweep over fills (the README's plot): filters of m = 10,000 bits, k = 3 and
# 7, holding n = 100 .. 8,000 elements; the false-positive rate measured over
# 200,000 non-members, next to the expected rate (1 - e^(-kn/m))^k
# (bloom_expected_fp) and the posterior (t/m)^k of the filter's own fill
# (bloom_fp_rate); written to $BS_BENCH_RESULTS/10_type_fp_sweep.csv.  No
# timing: every figure is a count.  BENCH_SWEEP=only runs it alone.
# ---------------------------------------------------------------------------
fp_sweep() {
    local csv
    csv=$(bench_csv 10_type_fp_sweep.csv)
    echo "-- sweep over fills: measured vs expected false-positive rate (m = 10,000; 200,000 non-members)"
    bs_psql -q <<SQL
CREATE TEMP TABLE fpsweep AS
SELECT k, 10000 AS m, n, f
FROM (VALUES (3), (7)) kk(k),
     (SELECT DISTINCT round(100 * 80 ^ (i / 20.0))::int AS n FROM generate_series(0, 20) i) nn,
     LATERAL (SELECT bloom_from_array(ARRAY(SELECT hashint8(x)::bigint FROM generate_series(1, nn.n) x),
                                      10000, kk.k) AS f) b;
CREATE TEMP TABLE fpres AS
SELECT k, m, n, bloom_fill_ratio(f) AS fill, 200000 AS probes,
       (SELECT count(*) FROM generate_series(1, 200000) x WHERE f @> (1000000000000 + x)::bigint) / 200000.0 AS measured_fp,
       bloom_expected_fp(m, k, n) AS expected_fp, bloom_fp_rate(f) AS posterior_fp
FROM fpsweep;
SELECT k, n, round(fill::numeric, 3) AS fill, round(measured_fp::numeric, 5) AS measured,
       round(expected_fp::numeric, 5) AS expected, round(posterior_fp::numeric, 5) AS posterior
FROM fpres ORDER BY k, n;
\copy (SELECT k, m, n, fill, probes, measured_fp, expected_fp, posterior_fp FROM fpres ORDER BY k, n) TO '$csv' CSV HEADER
SQL
    echo "  -> $csv"
}
if [ "$(bench_sweep)" = only ]; then
    fp_sweep
    exit 0
fi

# ---------------------------------------------------------------------------
echo "-- (a) bloom_agg(x, 1<<20, 5) vs sum(x) over $AGG_ROWS bigint rows"
bs_psql -q <<SQL
DROP TABLE IF EXISTS bench_agg;
CREATE TABLE bench_agg AS
    SELECT (hashint8(g) & ((1::bigint << 40) - 1)) AS x FROM generate_series(1, $AGG_ROWS) g;
VACUUM (FREEZE, ANALYZE) bench_agg;
SQL
# oracle check first: the aggregate's filter holds every row (sampled)
fn=$(bs_psql -Atc "WITH f AS (SELECT bloom_agg(x, 1<<20, 5) AS f FROM bench_agg)
                   SELECT count(*) FROM bench_agg TABLESAMPLE SYSTEM (1) REPEATABLE (7), f WHERE NOT f.f @> x")
[ "$fn" = 0 ] || { echo "!! bloom_agg lost $fn sampled rows (false negatives)"; exit 1; }
bench_vs "$RUNS" 40 "sum(x)" "SELECT sum(x) FROM bench_agg" \
    "bloom_agg(x, 1<<20, 5)" "SELECT bloom_m(bloom_agg(x, 1<<20, 5)) FROM bench_agg"
ratio_a=$BENCH_RATIO
echo "   ratio bloom_agg / sum = $ratio_a   (target <= 2.0)"
results+=("(a) bloom_agg / sum(x), ${AGG_ROWS} rows|${ratio_a}|<= 2.0|$(bench_verdict "$ratio_a" "<=" 2.0)")
bs_psql -q -c "DROP TABLE bench_agg"

# ---------------------------------------------------------------------------
echo
echo "-- (b) count(*) WHERE f @> x vs WHERE x = ANY(arr), $SET_ROWS rows of 100-element sets"
bs_psql -q <<SQL
DROP TABLE IF EXISTS bench_sets;
-- set i: 100 pseudo-random elements of [0, 2^24), deterministic
CREATE TABLE bench_sets AS
    SELECT id, ARRAY(SELECT (hashint8(id * 1000 + j) & 16777215)::bigint
                     FROM generate_series(1, 100) j) AS arr
    FROM generate_series(1, $SET_ROWS) id;
ALTER TABLE bench_sets ADD COLUMN f bloomfilter;
UPDATE bench_sets SET f = bloom_from_array(arr, bloom_optimal_m(100, 0.01)::integer,
                                           bloom_optimal_k(bloom_optimal_m(100, 0.01), 100));
VACUUM (FULL, FREEZE, ANALYZE) bench_sets;
SQL
bs_psql -Atc "SELECT format('   filters: m = %s, k = %s, %s bytes each; arrays %s bytes each; table %s',
                     bloom_m(f), bloom_k(f), pg_column_size(f), pg_column_size(arr),
                     pg_size_pretty(pg_total_relation_size('bench_sets')))
              FROM bench_sets LIMIT 1"
# probes: elements of three sets (present) and three values outside the domain (absent)
mapfile -t present < <(bs_psql -Atc "SELECT arr[1 + (id % 100)] FROM bench_sets
                                     WHERE id IN (1, $((SET_ROWS / 2)), $SET_ROWS) ORDER BY id")
xs=("${present[@]}" -1 -123456789 33554432)
sum_f=0; sum_a=0
printf '   %-10s %-7s %9s %9s %11s %11s %6s\n' x kind "rows f@>x" "rows ANY" "f@>x ms" "ANY ms" ratio
for x in "${xs[@]}"; do
    kind=present; [ "$x" -lt 0 ] || [ "$x" -ge 16777216 ] && kind=absent
    read -r nf na < <(bs_psql -AtF' ' -c "SELECT count(*) FILTER (WHERE f @> ${x}::bigint),
                                                 count(*) FILTER (WHERE ${x}::bigint = ANY(arr)) FROM bench_sets")
    [ "$nf" -ge "$na" ] || { echo "!! false negatives for x = $x: $nf < $na"; exit 1; }
    mapfile -t t < <(bench_times "$RUNS" \
        "SELECT count(*) FROM bench_sets WHERE f @> ${x}::bigint" \
        "SELECT count(*) FROM bench_sets WHERE ${x}::bigint = ANY(arr)")
    read -r fm _ _ <<<"${t[0]}"
    read -r am _ _ <<<"${t[1]}"
    printf '   %-10s %-7s %9s %9s %11.1f %11.1f %6.2f\n' "$x" "$kind" "$nf" "$na" "$fm" "$am" \
        "$(awk -v a="$fm" -v b="$am" 'BEGIN { print a / b }')"
    sum_f=$(awk -v s="$sum_f" -v a="$fm" 'BEGIN { print s + a }')
    sum_a=$(awk -v s="$sum_a" -v a="$am" 'BEGIN { print s + a }')
done
ratio_b=$(awk -v a="$sum_f" -v b="$sum_a" 'BEGIN { printf "%.2f", a / b }')
echo "   ratio (sum of medians) f @> x / x = ANY(arr) = $ratio_b   (target <= 0.5)"
echo "   (rows f@>x - rows ANY = false positives: about 1% of the rows, as sized)"
results+=("(b) f @> x / x = ANY(arr), ${SET_ROWS} sets|${ratio_b}|<= 0.5|$(bench_verdict "$ratio_b" "<=" 0.5)")

# for information: each form in its own table, as an application would store it
# (the filter table is ~6x smaller, so its scan is cheaper too)
bs_psql -q <<SQL
CREATE TABLE bench_sets_f AS SELECT id, f FROM bench_sets;
CREATE TABLE bench_sets_a AS SELECT id, arr FROM bench_sets;
VACUUM (FREEZE, ANALYZE) bench_sets_f;
VACUUM (FREEZE, ANALYZE) bench_sets_a;
SQL
sum_f=0; sum_a=0
for x in "${xs[@]}"; do
    mapfile -t t < <(bench_times "$RUNS" \
        "SELECT count(*) FROM bench_sets_f WHERE f @> ${x}::bigint" \
        "SELECT count(*) FROM bench_sets_a WHERE ${x}::bigint = ANY(arr)")
    sum_f=$(awk -v s="$sum_f" -v a="${t[0]%% *}" 'BEGIN { print s + a }')
    sum_a=$(awk -v s="$sum_a" -v a="${t[1]%% *}" 'BEGIN { print s + a }')
done
ratio_b2=$(awk -v a="$sum_f" -v b="$sum_a" 'BEGIN { printf "%.2f", a / b }')
echo "   (information) each form in its own table ($(bs_psql -Atc "SELECT pg_size_pretty(pg_total_relation_size('bench_sets_f'))") vs" \
     "$(bs_psql -Atc "SELECT pg_size_pretty(pg_total_relation_size('bench_sets_a'))")): summed medians" \
     "$(printf '%.1f' "$sum_f") ms vs $(printf '%.1f' "$sum_a") ms, ratio $ratio_b2"
results+=("(b') same, each form in its own table|${ratio_b2}|-|info")
bs_psql -q -c "DROP TABLE bench_sets, bench_sets_f, bench_sets_a"

# ---------------------------------------------------------------------------
echo
echo "-- (c) C core micro-benchmark (test/bench/core_bench.c, extension CFLAGS: -O2 -fPIC ...)"
mkdir -p test/bench/bin
# shellcheck disable=SC2046
"$("$PG_CONFIG" --cc | awk '{print $1}')" $("$PG_CONFIG" --cflags) -fPIC -Isrc/core \
    -o test/bench/bin/core_bench test/bench/core_bench.c src/core/*.c -lm
core=$(test/bench/bin/core_bench ${BENCH_CORE_BYTES:-})
val() { echo "$core" | awk -v k="$1" '$1 == k { print $2 }'; }
echo "   popcount implementation: $(val popcount_impl)"
echo "   membership, k = 7, m = 2^16 (in cache), keys precomputed : $(val membership_precomputed_ns) ns/op"
echo "   membership, k = 7, m = 2^16, including the int64 hash    : $(val membership_with_hash_ns) ns/op"
echo "   (fraction of probes reported present: $(val membership_hit_fraction); half are members)"
ratio_c=$(awk -v a="$(val dram_and_popcount_gbps)" -v b="$(val dram_memcpy_gbps)" 'BEGIN { printf "%.2f", a / b }')
echo "   2 x $(val dram_buffer_mib) MiB buffers: bs_and_popcount $(val dram_and_popcount_gbps) GB/s (bytes read, both buffers)," \
     "memcpy $(val dram_memcpy_gbps) GB/s (bytes copied): ratio $ratio_c (target >= 0.5)"
echo "   (counting memcpy's write traffic too, i.e. 2 x bytes copied, the ratio would be" \
     "$(awk -v r="$ratio_c" 'BEGIN { printf "%.2f", r / 2 }'))"
echo "   (a plain read loop over both buffers, the limit of any read-only pass: $(val dram_read_gbps) GB/s)"
echo "   2 x 1 MiB buffers (in cache, for information): bs_and_popcount $(val cache_and_popcount_gbps) GB/s," \
     "plain read $(val cache_read_gbps) GB/s, memcpy $(val cache_memcpy_gbps) GB/s"
results+=("(c) membership ns/op, k=7 (precomputed / with hash)|$(val membership_precomputed_ns) / $(val membership_with_hash_ns)|-|info")
results+=("(c) and_popcount / memcpy GB/s|$(val dram_and_popcount_gbps) / $(val dram_memcpy_gbps) = ${ratio_c}|>= 0.5|$(bench_verdict "$ratio_c" ">=" 0.5)")

[ "$(bench_sweep)" = off ] || fp_sweep

bench_report "${results[@]}"
exit 0
