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
#   (d) per-group top-k (issues 32, 37): the top 10 users of each of 49,549
#       tags, topk_agg(usr, 10) ... GROUP BY tag with topk_items vs the exact
#       row_number() query, over BENCH_GROUP_ROWS (default 1.7M) (tag, user)
#       events (tags log-uniform, 200,000 users log-uniform or more skewed
#       within a tag): ratio of medians (time), memory and disk of each plan
#       (EXPLAIN ANALYZE), and, against the exact counts, the items reported
#       as guaranteed whose count is not above the threshold (must be 0), the
#       recall of the true heavy hitters, the bounds
#   (e) keeping a 1.5 MB Count-Min current (issue 37): one event as
#       UPDATE ... SET s = cms_add(s, x) vs the documented pattern (append
#       the event to a table; fold the pending events in periodically with
#       cms_merge(s, cms_agg(...))): per-event time, fold time per 10,000
#       events, table sizes after 200 updates
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

# ---------------------------------------------------------------------------
echo
GROUP_ROWS=${BENCH_GROUP_ROWS:-1700000}
TAGS=49549
echo "-- (d) per-group top 10: $GROUP_ROWS events in $TAGS tags, 200,000 users"
bs_psql -q <<SQL
DROP TABLE IF EXISTS freq_events;
DO \$\$ BEGIN PERFORM setseed(0.37); END \$\$;
CREATE TABLE freq_events AS
SELECT tag, (floor(exp(ln(200000) * random() ^ (1 + tag % 3)))::bigint * 7919 + tag::bigint * 104729) % 200000 AS usr
FROM (SELECT g AS tag FROM generate_series(1, $TAGS) g
      UNION ALL
      SELECT floor(exp(random() * ln($TAGS + 1)))::int FROM generate_series(1, $GROUP_ROWS - $TAGS)) t;
VACUUM (FREEZE, ANALYZE) freq_events;
SQL
exact_q="SELECT count(*) FROM (SELECT tag, usr, row_number() OVER (PARTITION BY tag ORDER BY n DESC, usr) rn
          FROM (SELECT tag, usr, count(*) n FROM freq_events GROUP BY tag, usr) c) q WHERE rn <= 10"
topk_q="SELECT count(*) FROM (SELECT tag, topk_agg(usr, 10) t FROM freq_events GROUP BY tag) g, topk_items(g.t)"
# oracle first: the bounds, the guarantee and the recall against the exact counts
read -r groups exact_groups heavy vouched fp bad_bounds fn <<<"$(bs_psql -q -At -F ' ' <<'SQL'
CREATE TEMP TABLE tk AS SELECT tag, topk_agg(usr, 10) AS t FROM freq_events GROUP BY tag;
CREATE TEMP TABLE truth AS SELECT tag, usr, count(*) AS f FROM freq_events GROUP BY tag, usr;
CREATE TEMP TABLE rep AS
SELECT tk.tag, topk_threshold(tk.t) AS threshold, i.*, truth.f
FROM tk, topk_items(tk.t) i, truth WHERE truth.tag = tk.tag AND truth.usr = i.item::bigint;
CREATE TEMP TABLE thr AS SELECT tag, topk_threshold(t) AS threshold FROM tk;
CREATE TEMP TABLE heavy AS
SELECT truth.tag, truth.usr FROM truth JOIN thr USING (tag) WHERE truth.f > thr.threshold;
CREATE TEMP TABLE nfn AS SELECT tk.tag, h.item::bigint AS usr FROM tk, topk_heavy_hitters(tk.t, true) h;
SELECT (SELECT count(*) FROM tk), (SELECT count(*) FROM tk WHERE topk_is_exact(t)),
       (SELECT count(*) FROM heavy),
       (SELECT count(*) FROM rep JOIN heavy ON heavy.tag = rep.tag AND heavy.usr = rep.item::bigint WHERE rep.guaranteed),
       (SELECT count(*) FROM rep WHERE guaranteed AND f <= threshold),
       (SELECT count(*) FROM rep WHERE NOT (lower_bound <= f AND f <= upper_bound)),
       (SELECT count(*) FROM heavy LEFT JOIN nfn USING (tag, usr) WHERE nfn.usr IS NULL);
SQL
)"
recall_hh=$(awk -v v="$vouched" -v h="$heavy" 'BEGIN { printf "%.3f", h ? v / h : 1 }')
echo "   groups $groups ($exact_groups still exact); true heavy hitters (count > the group's threshold): $heavy"
echo "   reported as guaranteed with a count not above the threshold: $fp; bounds violated: $bad_bounds"
echo "   heavy hitters reported as guaranteed: $vouched of $heavy (recall $recall_hh); missing from the no-false-negatives set: $fn"
bench_vs "$RUNS" 44 "exact row_number() top 10 per tag" "$exact_q" "topk_agg(usr, 10) per tag + topk_items" "$topk_q"
ratio_d=$BENCH_RATIO
echo "   time ratio topk_agg / exact = $ratio_d"
plan_mem() {
    bs_psql -Atc "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $1" |
        grep -oE '(Memory Usage|Memory|Disk Usage|Disk): [0-9]+kB' | grep -oE '[0-9]+' | awk '{ s += $1 } END { print s + 0 }'
}
mem_exact=$(plan_mem "$exact_q")
mem_topk=$(plan_mem "$topk_q")
mem_ratio_d=$(awk -v a="$mem_topk" -v b="$mem_exact" 'BEGIN { printf "%.2f", a / b }')
echo "   memory + disk of the plan's nodes: exact ${mem_exact} kB, topk_agg ${mem_topk} kB: ratio $mem_ratio_d"
bench_summary "(d) per-group topk_agg / exact row_number(), $GROUP_ROWS events in $TAGS groups, time|${ratio_d}|<= 1.0|$(bench_verdict "$ratio_d" "<=" 1.0)"
bench_summary "(d) per-group topk_agg / exact, memory + disk of the plan|${mem_ratio_d}|<= 1.0|$(bench_verdict "$mem_ratio_d" "<=" 1.0)"
bench_summary "(d) guaranteed items at or below the threshold|${fp}|0|$(bench_verdict "$fp" "<=" 0)"
bench_summary "(d) recall of the true heavy hitters ($heavy)|${recall_hh}|>= 0.95|$(bench_verdict "$recall_hh" ">=" 0.95)"
bs_psql -q -c "DROP TABLE freq_events"

# ---------------------------------------------------------------------------
echo
echo "-- (e) keeping one 1.5 MB Count-Min current: cms_add per event vs append + periodic fold"
bs_psql -q <<'SQL'
DROP TABLE IF EXISTS cm_row, cm_pending;
CREATE TABLE cm_row (id int PRIMARY KEY, s countmin);
INSERT INTO cm_row SELECT 1, cms_agg(g, 39322, 5) FROM generate_series(1, 100000) g;
CREATE TABLE cm_pending (x bigint);
CREATE TABLE cm_fold (x bigint);
INSERT INTO cm_fold SELECT (random() * 1e6)::bigint FROM generate_series(1, 10000);
VACUUM ANALYZE cm_row, cm_pending, cm_fold;
SQL
bytes=$(bs_psql -Atc "SELECT pg_column_size(s) FROM cm_row")
echo "   the sketch: w = 39,322, d = 5, stored $bytes bytes"
mapfile -t t < <(bench_times "$RUNS" \
    "INSERT INTO cm_pending VALUES ((random() * 1e6)::bigint)" \
    "UPDATE cm_row SET s = cms_add(s, (random() * 1e6)::bigint) WHERE id = 1" \
    "SELECT cms_total(cms_merge(s, (SELECT cms_agg(x, 39322, 5) FROM cm_fold))) FROM cm_row")
read -r ins_med _ _ <<<"${t[0]}"
read -r upd_med _ _ <<<"${t[1]}"
read -r fold_med _ _ <<<"${t[2]}"
bs_psql -q <<'SQL'
DO $$ BEGIN FOR i IN 1..200 LOOP
    UPDATE cm_row SET s = cms_add(s, (random() * 1e6)::bigint) WHERE id = 1;
END LOOP; END $$;
SQL
size_row=$(bs_psql -Atc "SELECT pg_total_relation_size('cm_row')")
per_event_pattern=$(awk -v i="$ins_med" -v f="$fold_med" 'BEGIN { printf "%.3f", i + f / 10000 }')
ratio_e=$(awk -v u="$upd_med" -v p="$per_event_pattern" 'BEGIN { printf "%.0f", u / p }')
printf '   %-52s median %9.3f ms\n' "INSERT one event into the append-only table" "$ins_med"
printf '   %-52s median %9.3f ms\n' "UPDATE ... SET s = cms_add(s, x), one event" "$upd_med"
printf '   %-52s median %9.3f ms\n' "fold of 10,000 pending events (cms_merge, cms_agg)" "$fold_med"
echo "   pattern per event (insert + fold / 10,000): $per_event_pattern ms; cms_add per event is ${ratio_e}x that"
echo "   cm_row after $((RUNS + 1 + 200)) single-event updates: $size_row bytes (VACUUM reclaims; the pattern's fold rewrites it once per fold)"
bench_summary "(e) one event: cms_add UPDATE / (append + fold share), 1.5 MB sketch|${ratio_e}|info|-"
bs_psql -q -c "DROP TABLE cm_row, cm_pending, cm_fold"
