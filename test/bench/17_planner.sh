#!/usr/bin/env bash
# test/bench/17_planner.sh -- the planner and the query shapes applications send
# (issue 10): for each shape, the plan the planner chooses, its planning and
# execution times, next to the plans one can force; pgbench through prepared
# statements and simple queries; what a filter costs to read.
#
# Run by test/bench/run.sh (`make bench`), or standalone (builds, installs and
# starts its own throwaway cluster, removed on exit):
#     PG_CONFIG=/path/to/pg_config PORT=55432 bash test/bench/17_planner.sh
#
#   (a) the issue's table: N_T = 32,000 TOASTed filters (m = 19,171, k = 13:
#       2.4 kB each, 300 elements: ((300 i + j) * 2654435761) mod 2^40), one
#       element in 10% of the rows, one in 50%, one in all; a bloofi index;
#       1,000 probe elements (each held by one filter).  Shapes: a literal,
#       $1 as a custom and as a generic plan (plan_cache_mode), an InitPlan,
#       LATERAL, the batch join of the 1,000 probes, common elements.  Each
#       line: plan chosen | median planning ms | median execution ms, then
#       the forced alternatives.  The batch join's baseline is the plan the
#       planner chose before 1.1 (a nested loop testing every pair, filters
#       outer), timed once.  Targets: the batch join chosen with default
#       settings, >= 50x faster than that baseline, within 1.5x of the best
#       plan one can force.
#   (b) the README's N = 100,000 table (test/bench/30_bloofi.sh (a)): planning
#       and execution time of a one-element lookup (EXPLAIN ANALYZE medians),
#       and pgbench (-c 2, BENCH_PGBENCH_SECONDS each) of random present
#       elements with -M prepared (custom plans, then generic plans) and
#       -M simple.  Targets: planning <= 0.3 ms and <= 1/2 of the execution
#       time; the generic plan uses the index and is within 1.5x of the custom
#       plans' latency.
#   (c) what reading a filter costs (docs/planner.md): per row of a sequential
#       scan, `f @> x` over filters stored in line (24 B, 144 B, 1.5 kB),
#       compressed and out of line (TOAST), in units of one int4 comparison
#       (what cpu_operator_cost stands for: 10 comparisons per row less none,
#       / 10, over 1,000,000 rows), next to the cost the support function
#       charges.
#
# The batch join's answer is checked against every probe's own row first.
# BENCH_RUNS (default 11) runs per timing; BENCH_PLANNER_N shrinks (a),
# BENCH_N (b); BENCH_PLANNER_PARTS (default abc) picks the parts.
set -euo pipefail
. "$(dirname "$0")/lib.sh"; cd "$BS_REPO_ROOT"; bench_setup

RUNS=${BENCH_RUNS:-11}
NT=${BENCH_PLANNER_N:-32000}
N=${BENCH_N:-100000}
SECS=${BENCH_PGBENCH_SECONDS:-5}
PARTS=${BENCH_PLANNER_PARTS:-abc}
results=()
FORCE_SEQ="SET enable_bitmapscan = off; SET enable_indexscan = off;"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }

# the plan of a statement, one line: its nodes, outermost first
plan_of() {
    local setup=$1 sql=$2
    bs_psql -At -c "$setup" -c "EXPLAIN (COSTS OFF) $sql" |
        grep -oE '(Seq Scan|Bitmap Heap Scan|Bitmap Index Scan|Index Scan|Nested Loop( Semi Join)?|Hash Join|Merge Join|Materialize|Memoize|Aggregate|Limit|InitPlan)( on [a-z_]+)?' |
        paste -sd '>' - | sed 's/>/ > /g'
}

# one shape: its label, statement, runs and session setup (PREPAREs), then variants
# "name|settings[|statement]" (settings as SET commands; the statement defaults to the
# shape's).  The variants run interleaved in one session, RUNS times after a warm-up
# round, each in a transaction of its settings (SET LOCAL), as EXPLAIN ANALYZE without
# per-node timing; one line each: the plan, the median planning and execution ms.
# Sets last_<name>_pt, _et, _plan.
shape() {
    local label=$1 sql=$2 runs=$3 prep=$4 v i j n out pl pt et var
    shift 4
    local names=() sets=() sqls=()
    for v in "$@"; do
        names+=("${v%%|*}")
        v=${v#*|}
        sets+=("${v%%|*}")
        if [[ $v == *"|"* ]]; then sqls+=("${v#*|}"); else sqls+=("$sql"); fi
    done
    n=${#names[@]}
    out=$({
        echo "$prep"
        for ((i = 0; i <= runs; i++)); do
            for ((j = 0; j < n; j++)); do
                echo "BEGIN; ${sets[j]//SET /SET LOCAL } EXPLAIN (ANALYZE, TIMING OFF) ${sqls[j]}; COMMIT;"
            done
        done
    } | bs_psql -qAt) || return 1
    [ -n "$label" ] && printf '   %s\n' "$label"
    for ((j = 0; j < n; j++)); do
        pl=$(plan_of "$prep ${sets[j]}" "${sqls[j]}")
        pt=$(echo "$out" | sed -n 's/^Planning Time: \([0-9.]*\) ms/\1/p' |
             awk -v n="$n" -v j="$j" 'NR > n && (NR - 1) % n == j' | median)
        et=$(echo "$out" | sed -n 's/^Execution Time: \([0-9.]*\) ms/\1/p' |
             awk -v n="$n" -v j="$j" 'NR > n && (NR - 1) % n == j' | median)
        printf '      %-16s plan %-78s planning %8.3f ms  execution %10.3f ms\n' "${names[j]}" "$pl" "$pt" "$et"
        var=${names[j]//[^a-zA-Z0-9]/_}
        eval "last_${var}_pt=$pt; last_${var}_et=$et; last_${var}_plan=\"$pl\""
    done
}

elem_t() { echo "(((${1}::bigint * 300 + $2) * 2654435761) % 1099511627776)"; }

# ---------------------------------------------------------------------------
if [[ $PARTS == *a* ]]; then
echo "-- (a) the issue's table: $NT TOASTed filters (m = 19,171, k = 13, 300 elements), a bloofi index"
bs_psql -q <<SQL
DROP TABLE IF EXISTS pf, probes;
CREATE TABLE pf (id int, f bloomfilter);
INSERT INTO pf
SELECT i, bloom_from_array(arr || ARRAY[(1::bigint << 41) + i % 10, 1::bigint << 43]
                           || CASE WHEN i % 2 = 0 THEN ARRAY[1::bigint << 42] ELSE '{}'::bigint[] END, 19171, 13)
FROM (SELECT i, ARRAY(SELECT ((i::bigint * 300 + j) * 2654435761) % 1099511627776
                      FROM generate_series(0, 299) j) AS arr
      FROM generate_series(1, $NT) i) s;
CREATE TABLE probes AS
SELECT j AS pid, ((i::bigint * 300 + (j % 300)) * 2654435761) % 1099511627776 AS elem
FROM (SELECT j, 1 + (j * 7919) % $NT AS i FROM generate_series(1, 1000) j) s;
VACUUM ANALYZE pf;
VACUUM ANALYZE probes;
SET maintenance_work_mem = '256MB';
CREATE INDEX pf_f ON pf USING bloofi (f);
ANALYZE pf;
SQL
bs_psql -c "SELECT m, k, round(mean_fill::numeric, 3) AS mean_fill, analyzed_rows, sample_filters, sample_bits,
                   toasted_fraction, mean_bytes FROM bloom_column_stats('pf', 'f')"
# oracle: the batch join through the planner's plan equals a sequential scan's
read -r j_idx j_seq < <(bs_psql -At -c "SELECT (SELECT count(*) FROM probes p JOIN pf ON pf.f @> p.elem WHERE p.pid <= 100),
                                               (SELECT count(*) FROM probes p, pf WHERE bloom_contains(pf.f, p.elem) AND p.pid <= 100
                                                AND pf.id = 1 + (p.pid * 7919) % $NT)" | tr '|' ' ')
[ "$j_idx" -ge 100 ] && [ "$j_seq" = 100 ] || { echo "!! batch join: $j_idx rows (every probe's own row: $j_seq of 100)"; exit 1; }

x=$(elem_t 1234 5)
shape "literal: WHERE f @> <element of one row>" "SELECT id FROM pf WHERE f @> $x" "$RUNS" "" \
      "chosen|" "forced-seqscan|$FORCE_SEQ"
lit_plan=$last_chosen_plan
PREP="PREPARE qc(bigint) AS SELECT id FROM pf WHERE f @> \$1; PREPARE qg(bigint) AS SELECT id FROM pf WHERE f @> \$1;
      PREPARE qs(bigint) AS SELECT id FROM pf WHERE f @> \$1;"
shape "\$1: custom plans, the generic plan (plan_cache_mode), the generic plan without the index" \
      "" "$RUNS" "$PREP" \
      "custom|SET plan_cache_mode = force_custom_plan;|EXECUTE qc($x)" \
      "generic|SET plan_cache_mode = force_generic_plan;|EXECUTE qg($x)" \
      "generic-seqscan|SET plan_cache_mode = force_generic_plan; $FORCE_SEQ|EXECUTE qs($x)"
gen_plan_t=$last_generic_plan
custom_et=$last_custom_et
gen_et=$last_generic_et
shape "InitPlan: WHERE f @> (SELECT elem FROM probes WHERE pid = 7)" \
      "SELECT id FROM pf WHERE f @> (SELECT elem FROM probes WHERE pid = 7)" "$RUNS" "" \
      "chosen|" "forced-seqscan|$FORCE_SEQ"
init_plan=$last_chosen_plan
shape "LATERAL: 100 probes, LATERAL (SELECT id FROM pf WHERE f @> p.elem LIMIT 10)" \
      "SELECT count(*) FROM probes p, LATERAL (SELECT id FROM pf WHERE pf.f @> p.elem LIMIT 10) s WHERE p.pid <= 100" \
      5 "" "chosen|" "forced-seqscan|$FORCE_SEQ SET enable_memoize = off;|SELECT count(*) FROM probes p, LATERAL (SELECT id FROM pf WHERE pf.f @> p.elem LIMIT 10) s WHERE p.pid <= 2"
lat_plan=$last_chosen_plan
shape "batch join: 1,000 probes JOIN pf ON pf.f @> p.elem (forced-seqscan: 20 probes)" \
      "SELECT count(*) FROM probes p JOIN pf ON pf.f @> p.elem" 5 "" \
      "chosen|" "forced-nomemoize|SET enable_memoize = off;" "forced-index|SET enable_seqscan = off;" \
      "forced-seqscan|$FORCE_SEQ|SELECT count(*) FROM probes p JOIN pf ON pf.f @> p.elem WHERE p.pid <= 20"
join_plan=$last_chosen_plan
join_et=$last_chosen_et
best_forced=$(printf '%s\n%s\n' "$last_forced_nomemoize_et" "$last_forced_index_et" | sort -g | head -1)
# the plan 1.0 chose (filters outer, every pair tested): once, it takes seconds
shape "batch join, the plan before 1.1 (nested loop, join filter; timed once)" \
      "SELECT count(*) FROM probes p JOIN pf ON pf.f @> p.elem" 1 "" \
      "old-default|$FORCE_SEQ SET enable_memoize = off;"
old_et=$last_old_default_et
shape "common elements: in 10%, 50%, 100% of the rows" "SELECT count(*) FROM pf WHERE f @> (1::bigint << 41) + 3" 5 "" \
      "10pct-chosen|" "10pct-seqscan|$FORCE_SEQ"
shape "" "SELECT count(*) FROM pf WHERE f @> (1::bigint << 42)" 5 "" \
      "50pct-chosen|" "50pct-seqscan|$FORCE_SEQ" "50pct-index|SET enable_seqscan = off;"
shape "" "SELECT count(*) FROM pf WHERE f @> (1::bigint << 43)" 3 "" \
      "100pct-chosen|" "100pct-index|SET enable_seqscan = off;"
all_plan=$last_100pct_chosen_plan

uses_index() { case "$1" in *"Bitmap Index Scan on pf_f"*|*"Bitmap Index Scan on bb_f"*) echo yes ;; *) echo no ;; esac; }
r_join_old=$(awk -v a="$old_et" -v b="$join_et" 'BEGIN { printf "%.0f", a / b }')
r_join_best=$(ratio "$join_et" "$best_forced")
echo "   batch join: chosen $join_et ms, best forced $best_forced ms, the plan before 1.1 $old_et ms"
results+=("(a) literal, \$1 generic, InitPlan, LATERAL use the index|$(uses_index "$lit_plan"),$(uses_index "$gen_plan_t"),$(uses_index "$init_plan"),$(uses_index "$lat_plan")|yes|$( [ "$(uses_index "$lit_plan")$(uses_index "$gen_plan_t")$(uses_index "$init_plan")$(uses_index "$lat_plan")" = yesyesyesyes ] && echo met || echo MISSED)")
results+=("(a) batch join 1000 x $NT TOASTed: index plan chosen|$(uses_index "$join_plan")|yes|$( [ "$(uses_index "$join_plan")" = yes ] && echo met || echo MISSED)")
results+=("(a) batch join: plan before 1.1 / chosen|$r_join_old|>= 50|$(bench_verdict "$r_join_old" ">=" 50)")
results+=("(a) batch join: chosen / best forced|$r_join_best|<= 1.5|$(bench_verdict "$r_join_best" "<=" 1.5)")
results+=("(a) \$1 generic / custom plans, execution ms|$(ratio "$gen_et" "$custom_et")|<= 1.5|$(bench_verdict "$(ratio "$gen_et" "$custom_et")" "<=" 1.5)")
results+=("(a) element in every row: sequential scan chosen|$( [ "$(uses_index "$all_plan")" = no ] && echo yes || echo no)|yes|$( [ "$(uses_index "$all_plan")" = no ] && echo met || echo MISSED)")
fi

# ---------------------------------------------------------------------------
if [[ $PARTS == *b* ]]; then
echo
echo "-- (b) the README's table: N = $N filters of 100 elements, m = 2,397, k = 17 (30_bloofi.sh (a))"
bs_psql -q <<SQL
DROP TABLE IF EXISTS bb;
CREATE TABLE bb (id int, f bloomfilter);
INSERT INTO bb
SELECT i, bloom_from_array(ARRAY(SELECT ((i::bigint * 100 + j) * 2654435761) % 1099511627776
                                 FROM generate_series(0, 99) j), 2397, 17)
FROM generate_series(1, $N) i;
VACUUM (FREEZE, ANALYZE) bb;
SET maintenance_work_mem = '256MB';
CREATE INDEX bb_f ON bb USING bloofi (f);
ANALYZE bb;
SQL
xb="(((4321::bigint * 100 + 7) * 2654435761) % 1099511627776)"
shape "one-element lookup: SELECT count(*) FROM bb WHERE f @> x (forced-seqscan: 5 runs)" \
      "SELECT count(*) FROM bb WHERE f @> $xb" 31 "" "chosen|"
b_pt=$last_chosen_pt
b_et=$last_chosen_et
b_plan=$last_chosen_plan
shape "" "SELECT count(*) FROM bb WHERE f @> $xb" 5 "" "forced-seqscan|$FORCE_SEQ"
r_pe=$(ratio "$b_pt" "$b_et")

cat >"$BS_CLUSTER_DIR/lookup.sql" <<'PGB'
\set i random(1, 100000)
\set j random(0, 99)
\set e ((:i * 100 + :j) * 2654435761) % 1099511627776
SELECT count(*) FROM bb WHERE f @> :e::bigint;
PGB
sed -i "s/random(1, 100000)/random(1, $N)/" "$BS_CLUSTER_DIR/lookup.sql"
pgb() {     # pgb MODE OPTIONS -> "latency_ms tps"
    PGOPTIONS="-c client_min_messages=warning $2" "$BS_BINDIR/pgbench" -n -M "$1" -c 2 -j 2 -T "$SECS" \
        -f "$BS_CLUSTER_DIR/lookup.sql" 2>&1 |
        awk '/^latency average/ { l = $4 } /^tps/ { t = $3 } END { print l, t }'
}
read -r l_custom t_custom < <(pgb prepared "-c plan_cache_mode=force_custom_plan")
read -r l_generic t_generic < <(pgb prepared "-c plan_cache_mode=force_generic_plan")
read -r l_auto t_auto < <(pgb prepared "")
read -r l_simple t_simple < <(pgb simple "")
gen_plan=$(plan_of "PREPARE q(bigint) AS SELECT count(*) FROM bb WHERE f @> \$1; SET plan_cache_mode = force_generic_plan;" "EXECUTE q(1)")
echo "   pgbench, -c 2, ${SECS} s each, random present elements: latency ms (tps)"
printf '      -M prepared, custom plans   %8.3f  (%s)\n' "$l_custom" "$t_custom"
printf '      -M prepared, generic plan   %8.3f  (%s)   plan: %s\n' "$l_generic" "$t_generic" "$gen_plan"
printf '      -M prepared, auto           %8.3f  (%s)\n' "$l_auto" "$t_auto"
printf '      -M simple                   %8.3f  (%s)\n' "$l_simple" "$t_simple"
r_gen=$(ratio "$l_generic" "$l_custom")
results+=("(b) planning ms, one-element lookup, N=$N|$b_pt|<= 0.3|$(bench_verdict "$b_pt" "<=" 0.3)")
results+=("(b) planning / execution time, same lookup|$r_pe|<= 0.5|$(bench_verdict "$r_pe" "<=" 0.5)")
results+=("(b) \$1 generic plan uses the index|$(uses_index "$gen_plan")|yes|$( [ "$(uses_index "$gen_plan")" = yes ] && echo met || echo MISSED)")
results+=("(b) pgbench -M prepared latency, generic / custom|$r_gen|<= 1.5|$(bench_verdict "$r_gen" "<=" 1.5)")
results+=("(b) pgbench latency ms: prepared auto, simple|$l_auto, $l_simple|(info)|-")
fi

# ---------------------------------------------------------------------------
if [[ $PARTS == *c* ]]; then
echo
echo "-- (c) what reading a filter costs: per row of a sequential scan, in units of one int4 comparison"
bs_psql -q <<'SQL'
DROP TABLE IF EXISTS pc_tiny, pc_small, pc_mid, pc_comp, pc_toast;
CREATE TABLE pc_tiny AS SELECT i, bloom_from_array(ARRAY(SELECT (i * 3 + j)::bigint FROM generate_series(0, 2) j), 64, 3) f FROM generate_series(1, 100000) i;
CREATE TABLE pc_small AS SELECT i, bloom_from_array(ARRAY(SELECT (i * 100 + j)::bigint FROM generate_series(0, 99) j), 1024, 7) f FROM generate_series(1, 100000) i;
CREATE TABLE pc_mid AS SELECT i, bloom_from_array(ARRAY(SELECT (i * 100 + j)::bigint FROM generate_series(0, 99) j), 12000, 7) f FROM generate_series(1, 30000) i;
CREATE TABLE pc_comp AS SELECT i, bloom_from_array(ARRAY(SELECT (i * 100 + j)::bigint FROM generate_series(0, 99) j), 65536, 7) f FROM generate_series(1, 20000) i;
CREATE TABLE pc_toast AS SELECT i, bloom_from_array(ARRAY(SELECT (i * 300 + j)::bigint FROM generate_series(0, 299) j), 19171, 13) f FROM generate_series(1, 30000) i;
VACUUM ANALYZE pc_tiny; VACUUM ANALYZE pc_small; VACUUM ANALYZE pc_mid; VACUUM ANALYZE pc_comp; VACUUM ANALYZE pc_toast;
SQL
# the unit: one int4 comparison per row, from 10 of them over 1,000,000 rows
bs_psql -q -c "DROP TABLE IF EXISTS pc_unit" -c "CREATE TABLE pc_unit AS SELECT i FROM generate_series(1, 1000000) i" \
        -c "VACUUM ANALYZE pc_unit"
ors=$(for v in $(seq 2000001 2000010); do printf 'i = %s OR ' "$v"; done | sed 's/ OR $//')
printf '   %-10s %8s %10s %12s %10s %12s %10s %10s\n' table bytes stored int4_ns none_ms "f@>x_ms" measured charged
for t in pc_tiny pc_small pc_mid pc_comp pc_toast; do
    read -r rows bytes stored < <(bs_psql -At -c "SELECT (SELECT count(*) FROM $t), round(mean_bytes),
        CASE WHEN toasted_fraction > 0.5 THEN 'TOAST' WHEN compressed_fraction > 0.5 THEN 'compressed' ELSE 'in line' END
        FROM bloom_column_stats('$t', 'f')" | tr '|' ' ')
    # the unit and the table, interleaved: the same load for both
    read -r u0 u10 t0 tf < <(bench_times "$RUNS" "SELECT count(*) FROM pc_unit" "SELECT count(*) FROM pc_unit WHERE $ors" \
                             "SELECT count(*) FROM $t" "SELECT count(*) FROM $t WHERE f @> 12345::bigint" |
                             awk '{ print $1 }' | paste -sd ' ' -)
    unit=$(awk -v a="$u10" -v b="$u0" 'BEGIN { print (a - b) / 10 / 1000000 }')
    # the charge: the scan's cost less a one-comparison scan's, per row, in cpu_operator_cost units (+1)
    charged=$(bs_psql -At -c "EXPLAIN SELECT * FROM $t WHERE f @> 12345::bigint" -c "EXPLAIN SELECT * FROM $t WHERE i = 5" |
        sed -n 's/.*cost=[0-9.]*\.\.\([0-9.]*\) .*/\1/p' | paste -sd ' ' - |
        awk -v n="$rows" -v c="$(bs_psql -At -c 'SHOW cpu_operator_cost')" '{ printf "%.0f", ($1 - $2) / n / c + 1 }')
    measured=$(awk -v f="$tf" -v b="$t0" -v n="$rows" -v u="$unit" 'BEGIN { printf "%.0f", (f - b) / n / u }')
    printf '   %-10s %8s %10s %12.2f %10.2f %12.2f %10s %10s\n' "$t" "$bytes" "$stored" \
        "$(awk -v u="$unit" 'BEGIN { print u * 1e6 }')" "$t0" "$tf" "$measured" "$charged"
done
bs_psql -q -c "DROP TABLE pc_unit, pc_tiny, pc_small, pc_mid, pc_comp, pc_toast"
fi

bench_report "${results[@]}"
exit 0
