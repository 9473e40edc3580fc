#!/usr/bin/env bash
# test/bench/70_frequency.sh -- benchmarks of the countmin and topk types (issue 23).
#
# Run by test/bench/run.sh (`make bench`), or standalone (builds, installs and
# starts its own throwaway cluster): bash test/bench/70_frequency.sh
#
#   (a) cms_agg(x, 2719, 5) (eps = 0.001, delta = 0.01) vs the exact
#       count(*) GROUP BY x, over BENCH_FREQ_ROWS (default 10^7) events of
#       10^6 distinct elements: ratio of medians (time), and memory: the
#       HashAggregate's peak (EXPLAIN ANALYZE: memory and disk) vs the
#       sketch's bytes
#   (b) topk_agg(x, 10) vs the exact GROUP BY x ORDER BY count(*) DESC LIMIT 10
#       over the same number of log-uniform (Zipf s = 1 like) events: ratio of
#       medians, and the recall of the exact top 10
#   (c) cms_estimate per call: 10^5 calls against one stored sketch, minus a
#       baseline of the same rows computing hashint8 (the call overhead of a
#       scalar function), in microseconds per call
#
# Every SQL timing is the median of BENCH_RUNS (default 5) runs after a
# warm-up run, statements interleaved in one session (warm cache).
set -euo pipefail
. "$(dirname "$0")/lib.sh"; cd "$BS_REPO_ROOT"; bench_setup

RUNS=${BENCH_RUNS:-5}
ROWS=${BENCH_FREQ_ROWS:-10000000}
DISTINCT=1000000

echo "-- data: $ROWS events of $DISTINCT distinct elements (uniform), the same number log-uniform"
bs_psql -q <<SQL
DROP TABLE IF EXISTS freq_uniform, freq_skewed;
CREATE TABLE freq_uniform AS SELECT (g::bigint * 7919) % $DISTINCT AS x FROM generate_series(1, $ROWS) g;
SELECT setseed(0.7);
CREATE TABLE freq_skewed AS
    SELECT floor(exp(random() * ln($DISTINCT)))::bigint AS x FROM generate_series(1, $ROWS) g;
VACUUM (FREEZE, ANALYZE) freq_uniform, freq_skewed;
SQL

# ---------------------------------------------------------------------------
echo "-- (a) cms_agg(x, 2719, 5) vs count(*) GROUP BY x"
# oracle first: no estimate below the count (sampled elements)
bad=$(bs_psql -Atc "WITH s AS (SELECT cms_agg(x, 2719, 5) s FROM freq_uniform),
                         e AS (SELECT x, count(*) f FROM freq_uniform WHERE x % 1000 = 7 GROUP BY x)
                    SELECT count(*) FROM e, s WHERE cms_estimate(s.s, e.x) < e.f
                                               OR cms_estimate(s.s, e.x) > e.f + 0.001 * $ROWS * 3")
echo "   sampled elements below the count or above f + 3 eps N: $bad"
bench_vs "$RUNS" 44 "count(*) GROUP BY x" "SELECT count(*) FROM (SELECT x, count(*) FROM freq_uniform GROUP BY x) q" \
    "cms_agg(x, 2719, 5)" "SELECT cms_total(cms_agg(x, 2719, 5)) FROM freq_uniform"
ratio_a=$BENCH_RATIO
echo "   time ratio cms_agg / GROUP BY = $ratio_a"
plan=$(bs_psql -Atc "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF)
                     SELECT count(*) FROM (SELECT x, count(*) FROM freq_uniform GROUP BY x) q")
hash_mem=$(echo "$plan" | grep -oE 'Memory Usage: [0-9]+kB' | head -1 | grep -oE '[0-9]+' || echo 0)
hash_disk=$(echo "$plan" | grep -oE 'Disk Usage: [0-9]+kB' | head -1 | grep -oE '[0-9]+' || echo 0)
hash_batches=$(echo "$plan" | grep -oE 'Batches: [0-9]+' | head -1 | grep -oE '[0-9]+' || echo 1)
sketch_bytes=$(bs_psql -Atc "SELECT pg_column_size(cms_agg(x, 2719, 5)) FROM freq_uniform")
mem_ratio=$(awk -v h="$hash_mem" -v d="$hash_disk" -v s="$sketch_bytes" 'BEGIN { printf "%.0f", (h + d) * 1024 / s }')
echo "   HashAggregate: memory ${hash_mem} kB, disk ${hash_disk} kB, ${hash_batches} batches (work_mem $(bs_psql -Atc 'SHOW work_mem'))"
echo "   sketch: ${sketch_bytes} bytes; (memory + disk) / sketch = ${mem_ratio}x"
bench_summary "(a) cms_agg / count(*) GROUP BY, $ROWS events, time|${ratio_a}|info|-"
bench_summary "(a) GROUP BY memory+disk / sketch bytes|${mem_ratio}|info|-"

# ---------------------------------------------------------------------------
echo
echo "-- (b) topk_agg(x, 10) vs GROUP BY x ORDER BY count(*) DESC LIMIT 10 (log-uniform events)"
recall=$(bs_psql -Atc "WITH t AS (SELECT topk_agg(x, 10) t FROM freq_skewed),
                           e AS (SELECT x, count(*) f FROM freq_skewed GROUP BY x),
                           k AS (SELECT min(f) f10 FROM (SELECT f FROM e ORDER BY f DESC LIMIT 10) q)
                      SELECT count(*) FROM t, topk_items(t.t) i, e, k
                      WHERE e.x = i.item::bigint AND e.f >= k.f10")
echo "   recall of the exact top 10: $recall / 10"
bench_vs "$RUNS" 44 "GROUP BY ... ORDER BY count(*) LIMIT 10" \
    "SELECT x, count(*) FROM freq_skewed GROUP BY x ORDER BY 2 DESC LIMIT 10" \
    "topk_agg(x, 10)" "SELECT * FROM topk_items((SELECT topk_agg(x, 10) FROM freq_skewed))"
ratio_b=$BENCH_RATIO
echo "   time ratio topk_agg / exact = $ratio_b"
bench_summary "(b) topk_agg / exact top 10, $ROWS events (recall $recall/10)|${ratio_b}|info|-"

# ---------------------------------------------------------------------------
echo
echo "-- (c) cms_estimate latency per call (10^5 calls, one stored sketch of 2719 x 5)"
bs_psql -q <<SQL
DROP TABLE IF EXISTS freq_sketch;
CREATE TABLE freq_sketch AS SELECT cms_agg(x, 2719, 5) AS s FROM freq_uniform;
SQL
mapfile -t t < <(bench_times "$RUNS" \
    "SELECT sum(hashint8(g)) FROM freq_sketch, generate_series(1, 100000) g" \
    "SELECT sum(cms_estimate(s, g)) FROM freq_sketch, generate_series(1, 100000) g")
read -r base_med _ _ <<<"${t[0]}"
read -r est_med _ _ <<<"${t[1]}"
per_call=$(awk -v a="$est_med" -v b="$base_med" 'BEGIN { printf "%.2f", (a - b) * 1000 / 100000 }')
printf '   %-44s median %9.1f ms\n' "baseline sum(hashint8(g))" "$base_med"
printf '   %-44s median %9.1f ms\n' "sum(cms_estimate(s, g))" "$est_med"
echo "   cms_estimate: ${per_call} us per call above the baseline"
bench_summary "(c) cms_estimate per call, us above a scalar-call baseline|${per_call}|info|-"

bs_psql -q -c "DROP TABLE freq_uniform, freq_skewed, freq_sketch"
