#!/usr/bin/env bash
# test/bench/15_sparse.sh -- the stored forms of bloomfilter (issue: "a filter
# representation that is small and fast to read when it is sparse").
#
# Every figure compares, in the same run and cluster, today's representation
# (bloomsample.filter_storage = dense: the dense bits, byte for byte the form
# of 1.1, in a column of 1.1's default storage EXTENDED; also with SET STORAGE
# EXTERNAL and with COMPRESSION lz4) with the new defaults (the smaller of
# dense and sparse, the type's storage MAIN):
#   (a) one bst_sample(tree, f, 1) call, M = 10^7, m = 132,933, k = 3,
#       |set| = 1,000, reading the filter included: <= 20 us;
#   (b) f @> x on the same filters: <= 4 us a row;
#   (c) stored bytes of 63,666 filters m = 1,024, k = 3 with power-law sizes
#       (median 2, mean 3.9: the shape of the demo's Debian graph): <= 0.4x;
#   (d) filters at the optimal fill (half the bits set): no larger (<= 1.0x);
#   (e) the same sets at 10 sizes from 1 to 10^5 elements in one m: bytes and
#       f @> x per row, today vs new (the table of the README).
#   (f) f @> x on 100 dense filters of 64 kB stored out of line uncompressed:
#       reading the bytes of the k bits (slices) vs reading each value whole
#       (bloom_m(f), which detoasts it, as 1.1's @> did).
# Alone: bash test/bench/15_sparse.sh (BENCH_RUNS= sets the runs per median).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$BS_REPO_ROOT"
bench_setup
RUNS=${BENCH_RUNS:-11}

echo "== building the filters"
bs_psql -q <<'SQL'
SELECT setseed(0.15);
-- (a), (b): 200 query filters of 1,000 ids drawn from [0, 10^7)
DROP TABLE IF EXISTS sp_ids, sp_today, sp_ext, sp_lz4, sp_new, sp_main;
CREATE TABLE sp_ids AS
SELECT g AS id, ARRAY(SELECT (random() * 1e7)::bigint FROM generate_series(1, 1000) WHERE g > 0) AS ids
FROM generate_series(1, 200) g;
CREATE TABLE sp_today (id int, f bloomfilter);
ALTER TABLE sp_today ALTER f SET STORAGE EXTENDED;
CREATE TABLE sp_ext (id int, f bloomfilter);
ALTER TABLE sp_ext ALTER f SET STORAGE EXTERNAL;
CREATE TABLE sp_lz4 (id int, f bloomfilter COMPRESSION lz4);
ALTER TABLE sp_lz4 ALTER f SET STORAGE EXTENDED;
CREATE TABLE sp_new (id int, f bloomfilter);
CREATE TABLE sp_main (id int, f bloomfilter);
ALTER TABLE sp_main ALTER f SET STORAGE EXTENDED;
SET bloomsample.filter_storage = dense;
INSERT INTO sp_today SELECT id, bloom_from_array(ids, 132933, 3) FROM sp_ids;
INSERT INTO sp_ext SELECT id, bloom_from_array(ids, 132933, 3) FROM sp_ids;
INSERT INTO sp_lz4 SELECT id, bloom_from_array(ids, 132933, 3) FROM sp_ids;
RESET bloomsample.filter_storage;
INSERT INTO sp_new SELECT id, bloom_from_array(ids, 132933, 3) FROM sp_ids;
INSERT INTO sp_main SELECT id, bloom_from_array(ids, 132933, 3) FROM sp_ids;
SELECT bst_create('sp7', 0, 10000000, 132933, 3);

-- (c): power-law sizes, P(size >= s) ~ s^-1.4, at most 1,000
DROP TABLE IF EXISTS deb_ids, deb_today, deb_new;
CREATE TABLE deb_ids AS
SELECT g AS id, ARRAY(SELECT (random() * 63666)::bigint
                      FROM generate_series(1, least(1000, floor(1 + power(greatest(random(), 1e-9), -1 / 1.4::float8)) + 0 * g)::int)) AS ids
FROM generate_series(1, 63666) g;
SET bloomsample.filter_storage = dense;
CREATE TABLE deb_today (id int, f bloomfilter);
ALTER TABLE deb_today ALTER f SET STORAGE EXTENDED;
INSERT INTO deb_today SELECT id, bloom_from_array(ids, 1024, 3) FROM deb_ids;
RESET bloomsample.filter_storage;
CREATE TABLE deb_new AS SELECT id, bloom_from_array(ids, 1024, 3) AS f FROM deb_ids;

-- (d): 50 filters at the optimal fill: m ln 2 / k elements
DROP TABLE IF EXISTS half_today, half_new;
SET bloomsample.filter_storage = dense;
CREATE TABLE half_today (id int, f bloomfilter);
ALTER TABLE half_today ALTER f SET STORAGE EXTENDED;
INSERT INTO half_today
SELECT g AS id, bloom_from_array(ARRAY(SELECT g * 100000000::bigint + j
                                       FROM generate_series(1, 30713) j), 132933, 3)
FROM generate_series(1, 50) g;
RESET bloomsample.filter_storage;
CREATE TABLE half_new AS SELECT id, bloom_union(f, f) AS f FROM half_today;

-- (e): 10 sizes from 1 to 10^5 in m = 432,809 (the optimal m of 10^5 at k = 3),
-- 50 sets a size, one table per size and form
DO $$
DECLARE
  s int;
BEGIN
  FOREACH s IN ARRAY ARRAY[1, 4, 13, 46, 167, 599, 2154, 7743, 27826, 100000] LOOP
    EXECUTE format('DROP TABLE IF EXISTS sz_today_%s, sz_new_%s', s, s);
    SET LOCAL bloomsample.filter_storage = dense;
    EXECUTE format('CREATE TABLE sz_today_%s (id int, f bloomfilter)', s);
    EXECUTE format('ALTER TABLE sz_today_%s ALTER f SET STORAGE EXTENDED', s);
    EXECUTE format($q$INSERT INTO sz_today_%s
      SELECT g AS id, bloom_from_array(ARRAY(SELECT (g * 1000003::bigint + j * 2654435761) %% 100000000
                                             FROM generate_series(1, %s) j), 432809, 3)
      FROM generate_series(1, 50) g$q$, s, s);
    SET LOCAL bloomsample.filter_storage = auto;
    EXECUTE format('CREATE TABLE sz_new_%s AS SELECT id, bloom_union(f, f) AS f FROM sz_today_%s', s, s);
  END LOOP;
END $$;
-- (f): 100 dense filters of 524,288 bits (64 kB, 57% full: out of line, uncompressed)
DROP TABLE IF EXISTS sl_dense;
CREATE TABLE sl_dense AS
SELECT i AS id, bloom_from_array(ARRAY(SELECT i * 1000000 + generate_series(1, 150000)::bigint), 524288, 3) AS f
FROM generate_series(1, 100) i;
VACUUM ANALYZE;
SQL

# the compared statements return the same answers (checked before timing)
bs_psql -Atq <<'SQL' | grep -v '^t$' && { echo "!! the forms disagree"; exit 1; } || true
SELECT bool_and(n.f = t.f AND e.f = t.f AND l.f = t.f AND mn.f = t.f) FROM sp_today t
  JOIN sp_new n USING (id) JOIN sp_ext e USING (id) JOIN sp_lz4 l USING (id) JOIN sp_main mn USING (id);
SELECT bool_and(n.f = t.f) FROM deb_today t JOIN deb_new n USING (id);
SELECT bool_and(n.f = t.f) FROM half_today t JOIN half_new n USING (id);
SELECT (SELECT count(*) FROM sp_today WHERE f @> 4242::bigint) = (SELECT count(*) FROM sp_new WHERE f @> 4242::bigint);
SQL

ROWS=200
# backend CPU time of a statement (ms, median of RUNS batches after a warm-up),
# from /proc/self/schedstat: immune to waiting for a core on a busy machine;
# a batch repeats the statement for at least 50 ms of wall time, as the
# counter advances at scheduler ticks
bs_psql -q <<'SQL'
CREATE OR REPLACE FUNCTION sp_cpu_ms(q text, reps int) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE ts float8[] := '{}'; c0 bigint; t0 timestamptz; batch int := 0; ms float8;
BEGIN
  EXECUTE q;
  t0 := clock_timestamp();
  LOOP
    EXECUTE q;
    batch := batch + 1;
    ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
    EXIT WHEN ms >= 25;
  END LOOP;
  batch := greatest(1, ceil(batch * 50 / ms))::int;
  FOR i IN 1..reps LOOP
    c0 := split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::bigint;
    FOR j IN 1..batch LOOP
      EXECUTE q;
    END LOOP;
    ts := ts || (split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::bigint - c0) / 1e6 / batch;
  END LOOP;
  RETURN (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(ts) x);
END $$;
SQL
cpu_us_per_row() {   # statement, rows: the median CPU time per row in us
    bs_psql -Atq -c "SELECT round((sp_cpu_ms(\$q\$$1\$q\$, $RUNS) / $2 * 1000)::numeric, 2)"
}
declare -A SAMPLE CONTAINS
forms=(today ext lz4 new main)
for f in "${forms[@]}"; do
    SAMPLE[$f]=$(cpu_us_per_row "SELECT count(*) FROM sp_$f, bst_sample('sp7', f, 1)" $ROWS)
    CONTAINS[$f]=$(cpu_us_per_row "SELECT count(*) FROM sp_$f WHERE f @> 4242::bigint" $ROWS)
done

read -r bytes_sp_today bytes_sp_new deb_today deb_new half_today half_new < <(bs_psql -Atq -F' ' -c "
SELECT (SELECT avg(pg_column_size(f))::int FROM sp_today), (SELECT avg(pg_column_size(f))::int FROM sp_new),
       (SELECT sum(pg_column_size(f)) FROM deb_today), (SELECT sum(pg_column_size(f)) FROM deb_new),
       (SELECT sum(pg_column_size(f)) FROM half_today), (SELECT sum(pg_column_size(f)) FROM half_new)")
read -r deb_median deb_mean < <(bs_psql -Atq -F' ' -c \
    "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY cardinality(ids)), round(avg(cardinality(ids)), 2) FROM deb_ids")

echo
echo "(a), (b): 200 filters, m = 132,933, k = 3, 1,000 ids each; tree M = 10^7 (backend CPU us per call / per row, reading the filter included; medians of $RUNS runs)"
printf "%-44s %14s %14s %10s\n" "stored as" "bst_sample(1)" "f @> x / row" "bytes"
printf "%-44s %14s %14s %10s\n" "today: dense, storage extended (pglz)" "${SAMPLE[today]}" "${CONTAINS[today]}" "$bytes_sp_today"
printf "%-44s %14s %14s %10s\n" "today: dense, SET STORAGE EXTERNAL" "${SAMPLE[ext]}" "${CONTAINS[ext]}" "16636"
printf "%-44s %14s %14s %10s\n" "today: dense, COMPRESSION lz4" "${SAMPLE[lz4]}" "${CONTAINS[lz4]}" "-"
printf "%-44s %14s %14s %10s\n" "new: sparse, storage main (in line)" "${SAMPLE[new]}" "${CONTAINS[new]}" "$bytes_sp_new"
printf "%-44s %14s %14s %10s\n" "new: sparse, SET STORAGE EXTENDED" "${SAMPLE[main]}" "${CONTAINS[main]}" "-"
r_sample=$(awk -v a="${SAMPLE[new]}" -v b="${SAMPLE[today]}" 'BEGIN { printf "%.2f", a / b }')
r_contains=$(awk -v a="${CONTAINS[new]}" -v b="${CONTAINS[today]}" 'BEGIN { printf "%.2f", a / b }')
echo "new / today: bst_sample $r_sample, f @> x $r_contains"

r_deb=$(awk -v a="$deb_new" -v b="$deb_today" 'BEGIN { printf "%.3f", a / b }')
r_half=$(awk -v a="$half_new" -v b="$half_today" 'BEGIN { printf "%.3f", a / b }')
echo
echo "(c) 63,666 filters m = 1,024, k = 3, sizes median $deb_median, mean $deb_mean: sum of pg_column_size today $deb_today, new $deb_new: $r_deb x"
echo "(d) 50 filters at the optimal fill (m = 132,933, 30,713 elements): today $half_today, new $half_new bytes: $r_half x"

echo
echo "(e) the same sets at 10 sizes, m = 432,809, k = 3, 50 filters a size (backend CPU us per row of f @> x, scan included; medians of $RUNS runs)"
sizes=(1 4 13 46 167 599 2154 7743 27826 100000)
printf "| %9s | %11s | %9s | %12s | %10s | %5s |\n" "elements" "bytes today" "bytes new" "@> today us" "@> new us" "ratio"
for s in "${sizes[@]}"; do
    read -r bt bn < <(bs_psql -Atq -F' ' -c "SELECT (SELECT avg(pg_column_size(f))::int FROM sz_today_$s), (SELECT avg(pg_column_size(f))::int FROM sz_new_$s)")
    ct=$(cpu_us_per_row "SELECT count(*) FROM sz_today_$s WHERE f @> 4242::bigint" 50)
    cn=$(cpu_us_per_row "SELECT count(*) FROM sz_new_$s WHERE f @> 4242::bigint" 50)
    printf "| %9s | %11s | %9s | %12s | %10s | %5s |\n" "$s" "$bt" "$bn" "$ct" "$cn" \
        "$(awk -v a="$cn" -v b="$ct" 'BEGIN { printf "%.2f", a / b }')"
done

sl=$(cpu_us_per_row "SELECT count(*) FROM sl_dense WHERE f @> 4242::bigint" 100)
wh=$(cpu_us_per_row "SELECT count(*) FROM sl_dense WHERE bloom_m(f) = 0" 100)
echo
echo "(f) 100 dense filters of 64 kB out of line uncompressed: f @> x by slices $sl us a row, reading each whole (bloom_m) $wh us: $(awk -v a="$sl" -v b="$wh" 'BEGIN { printf "%.2f", a / b }') x"

verdict() { awk -v v="$1" -v t="$2" 'BEGIN { print (v <= t) ? "met" : "MISSED" }'; }
if [ -n "${BS_BENCH_SUMMARY:-}" ]; then
    {
        echo "sparse: bst_sample(t, f, 1), m=132,933, 1,000 ids (us; in brackets new/today)|${SAMPLE[new]} ($r_sample)|<= 20|$(verdict "${SAMPLE[new]}" 20)"
        echo "sparse: f @> x per row, same filters (us; in brackets new/today)|${CONTAINS[new]} ($r_contains)|<= 4|$(verdict "${CONTAINS[new]}" 4)"
        echo "sparse: bytes of 63,666 power-law filters, new/today|$r_deb|<= 0.4|$(verdict "$r_deb" 0.4)"
        echo "sparse: bytes at the optimal fill, new/today|$r_half|<= 1.0|$(verdict "$r_half" 1.0)"
    } >>"$BS_BENCH_SUMMARY"
fi

bs_psql -q -c "SELECT bst_drop('sp7')" >/dev/null
bs_psql -q <<'SQL'
DROP FUNCTION sp_cpu_ms(text, int);
DROP TABLE sp_ids, sp_today, sp_ext, sp_lz4, sp_new, sp_main, deb_ids, deb_today, deb_new, half_today, half_new, sl_dense;
DO $$
DECLARE s int;
BEGIN
  FOREACH s IN ARRAY ARRAY[1, 4, 13, 46, 167, 599, 2154, 7743, 27826, 100000] LOOP
    EXECUTE format('DROP TABLE sz_today_%s, sz_new_%s', s, s);
  END LOOP;
END $$;
SQL
