#!/usr/bin/env bash
# test/bench/16_form_probe.sh -- probe time of the stored form against the
# dense form, over the whole range of fills (issue 34: "the stored form is
# chosen for reading speed too").
#
# One filter width, m = 2,000,000 bits, k = 3, and sets of 100 to 200,000
# elements (fill 0.015% to 26%): below about a fifth of the bits set a value
# is stored sparse (Elias-Fano), above it dense.  For every size, in the same
# run and cluster, two tables of the same ROWS filters: one as stored by
# default (the smaller form), one written under filter_storage = dense.
#   per row   SELECT count(*) FROM t WHERE f @> x: each value read and probed
#             once (a scan, a Bloofi recheck)
#   repeated  5,000 elements probed in one value (a join against one big
#             filter: the value is detoasted once per query)
# Both print medians (ms) and the ratio stored / dense; the four statements
# run in an order rotated each round (bench_times_rotated), so neither form
# always runs first; the target is <= 2
# at every fill.  Writes 16_form_probe.csv for the curve (docs/hashing.md,
# "Probe speed of the stored forms").
# Alone: bash test/bench/16_form_probe.sh (BENCH_RUNS= sets the runs per median).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$BS_REPO_ROOT"
bench_setup
RUNS=${BENCH_RUNS:-7}
ROWS=${BENCH_FORM_ROWS:-12}
M=2000000
SIZES="100 1000 10000 30000 60000 70000 70200 70700 71000 75000 80000 100000 140000 200000"

echo "== building $ROWS filters per size and form (m = $M, k = 3)"
for n in $SIZES; do
    bs_psql -q <<SQL
DROP TABLE IF EXISTS fp_auto_$n, fp_dense_$n;
CREATE TABLE fp_auto_$n (id int, f bloomfilter);
CREATE TABLE fp_dense_$n (id int, f bloomfilter);
INSERT INTO fp_auto_$n
SELECT g, bloom_from_array(ARRAY(SELECT g * 10000000::bigint + j FROM generate_series(1, $n) j), $M, 3)
FROM generate_series(1, $ROWS) g;
SET bloomsample.filter_storage = dense;
INSERT INTO fp_dense_$n SELECT id, bloom_union(f, f) FROM fp_auto_$n;
RESET bloomsample.filter_storage;
VACUUM ANALYZE fp_auto_$n, fp_dense_$n;
SQL
done

# the two forms are one value, and answer alike (checked before timing)
for n in $SIZES; do
    ok=$(bs_psql -Atq -c "SELECT bool_and(a.f = d.f) AND
        (SELECT count(*) FROM fp_auto_$n a2, generate_series(1, 3000) x WHERE a2.f @> (10000000::bigint + x * 7)) =
        (SELECT count(*) FROM fp_dense_$n d2, generate_series(1, 3000) x WHERE d2.f @> (10000000::bigint + x * 7))
        FROM fp_auto_$n a JOIN fp_dense_$n d USING (id)")
    [ "$ok" = t ] || { echo "!! the forms disagree at $n elements"; exit 1; }
done

csv=$(bench_csv 16_form_probe.csv)
echo "elements,fill,stored_sparse,stored_bytes,dense_bytes,row_stored_us,row_dense_us,row_ratio,rep_stored_us,rep_dense_us,rep_ratio" > "$csv"
printf '%-9s %-7s %-6s %10s %10s | %9s %9s %6s | %9s %9s %6s\n' elements fill form bytes dense_bytes \
    "row µs" "dense" ratio "rep µs" "dense" ratio
worst_row=0
worst_rep=0
for n in $SIZES; do
    read -r form bytes dbytes fill < <(bs_psql -Atq -F' ' -c "SELECT CASE WHEN a.b < d.b * 0.99 THEN 'sparse' ELSE 'dense' END, a.b, d.b, round(a.fill::numeric, 4)
        FROM (SELECT avg(pg_column_size(f)) b, avg(bloom_popcount(f)::float8 / $M) fill FROM fp_auto_$n) a,
             (SELECT avg(pg_column_size(f)) b FROM fp_dense_$n) d")
    mapfile -t t < <(bench_times_rotated "$RUNS" \
        "SELECT count(*) FROM fp_auto_$n WHERE f @> 777::bigint" \
        "SELECT count(*) FROM fp_dense_$n WHERE f @> 777::bigint" \
        "SELECT count(*) FROM fp_auto_$n a, generate_series(1, 5000) x WHERE a.id = 1 AND a.f @> (10000000::bigint + x * 7)" \
        "SELECT count(*) FROM fp_dense_$n d, generate_series(1, 5000) x WHERE d.id = 1 AND d.f @> (10000000::bigint + x * 7)")
    rs=$(awk -v t="${t[0]%% *}" -v r="$ROWS" 'BEGIN { printf "%.2f", t * 1000 / r }')
    rd=$(awk -v t="${t[1]%% *}" -v r="$ROWS" 'BEGIN { printf "%.2f", t * 1000 / r }')
    ps=$(awk -v t="${t[2]%% *}" 'BEGIN { printf "%.3f", t * 1000 / 5000 }')
    pd=$(awk -v t="${t[3]%% *}" 'BEGIN { printf "%.3f", t * 1000 / 5000 }')
    rr=$(awk -v a="$rs" -v b="$rd" 'BEGIN { printf "%.2f", a / b }')
    pr=$(awk -v a="$ps" -v b="$pd" 'BEGIN { printf "%.2f", a / b }')
    printf '%-9s %-7s %-6s %10.0f %10.0f | %9s %9s %6s | %9s %9s %6s\n' "$n" "$fill" "$form" "$bytes" "$dbytes" \
        "$rs" "$rd" "${rr}x" "$ps" "$pd" "${pr}x"
    echo "$n,$fill,$([ "$form" = sparse ] && echo 1 || echo 0),$bytes,$dbytes,$rs,$rd,$rr,$ps,$pd,$pr" >> "$csv"
    worst_row=$(awk -v a="$worst_row" -v b="$rr" 'BEGIN { print (b > a) ? b : a }')
    worst_rep=$(awk -v a="$worst_rep" -v b="$pr" 'BEGIN { print (b > a) ? b : a }')
done
echo "(per row: one probe of each of $ROWS values, µs a value; repeated: µs a probe of one value; medians of $RUNS)"

bench_report \
    "form probe, per row, worst fill: stored / dense|${worst_row}x|<= 2|$(bench_verdict "$worst_row" "<=" 2)" \
    "form probe, repeated, worst fill: stored / dense|${worst_rep}x|<= 2|$(bench_verdict "$worst_rep" "<=" 2)"
