#!/usr/bin/env bash
# test/bench/37_bloofi_widebuild.sh -- Bloofi at large m against GIN on the exact
# sets (issue 33: wide, mostly sparse filters sized for the largest set).
#
# 1. skewed    20,000 tags, sizes least(50000, floor(3 / random())) (median 3),
#              user ids floor(200000 * random()), filters m = 433,039, k = 3
#              (bst_plan's m for the largest set, as a user sizes them).  Each
#              index is built twice, alternating; reports heap, index sizes
#              and build times (median), the lookup latency of a random user
#              through pgbench -M prepared (5 s runs alternating, median of
#              BENCH_LOOKUP_RUNS, 5 by default; latency from tps), and every
#              ratio Bloofi / GIN.
#              (Updates of that column: test/bench/39_bloofi_wide.sh.)
# 2. inserts   m = 65,536, k = 3: 50 rows, then 2,160 rows of 5-element filters
#              in 100 INSERT statements with fastupdate on: the index against a
#              fresh build of the same rows; then DELETE half, VACUUM, insert
#              the same number again: the size after against before (the new
#              rows first in the pending list, then moved into the tree's free
#              slots by the next VACUUM: the bound is on that size).
# The row sets are drawn with setseed, so two runs build the same tables.
#   bash test/bench/37_bloofi_wide_build.sh         (standalone; or via run.sh)
#   BENCH_WIDE=skewed bash test/bench/37_bloofi_wide_build.sh   (section 1 alone;
#   BENCH_WIDE=inserts: section 2 alone; default all)
set -euo pipefail
. "$(dirname "$0")/lib.sh"; cd "$BS_REPO_ROOT"; bench_setup

ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", (b > 0) ? a / b : 0}'; }
mb() { awk -v a="$1" 'BEGIN{printf "%.1f MB", a / 1048576}'; }

sections=${BENCH_WIDE:-all}
rows=()
bs_psql -q -c "DROP SCHEMA IF EXISTS bloofi_widebuild CASCADE" -c "CREATE SCHEMA bloofi_widebuild"

if [ "$sections" != inserts ]; then
bs_psql -q <<'SQL'
SET search_path = bloofi_widebuild, public;
SELECT setseed(0.33);
CREATE TABLE sizes AS
  SELECT g AS id, least(50000, floor(3 / random()))::int AS n FROM generate_series(1, 20000) g;
CREATE TABLE exact AS
  SELECT s.id, array_agg(floor(200000 * random())::bigint) AS ids
  FROM sizes s, LATERAL generate_series(1, s.n) GROUP BY s.id;
CREATE TABLE filt AS
  SELECT id, bloom_from_array(ids, 433039, 3) AS f FROM exact;
VACUUM ANALYZE exact;
VACUUM ANALYZE filt;
SQL
read -r nrows maxn fheap eheap < <(bs_psql -Atq -F ' ' -c "SET search_path = bloofi_widebuild, public;
  SELECT count(*), max(cardinality(ids)), pg_table_size('filt'), pg_table_size('exact') FROM exact")
echo "== skewed: $nrows tags, largest $maxn users; heap of the filters $(mb "$fheap"), of the exact arrays $(mb "$eheap")"

# builds, alternating, twice each
bt=(); gt=()
for r in 1 2; do
  for which in bloofi gin; do
    bs_psql -q -c "DROP INDEX IF EXISTS bloofi_widebuild.filt_bloofi; DROP INDEX IF EXISTS bloofi_widebuild.exact_gin" >/dev/null
    if [ $which = bloofi ]; then
      ms=$(bs_psql -Atq -c "SET search_path = bloofi_widebuild, public;" -c '\timing on' \
             -c "CREATE INDEX filt_bloofi ON filt USING bloofi (f)" | awk '/^Time:/ {print $2}')
      bt+=("$ms")
    else
      ms=$(bs_psql -Atq -c "SET search_path = bloofi_widebuild, public;" -c '\timing on' \
             -c "CREATE INDEX exact_gin ON exact USING gin (ids)" | awk '/^Time:/ {print $2}')
      gt+=("$ms")
    fi
  done
done
bs_psql -q -c "SET search_path = bloofi_widebuild, public; CREATE INDEX filt_bloofi ON filt USING bloofi (f)"
read -r bsize gsize < <(bs_psql -Atq -F ' ' -c "SELECT pg_relation_size('bloofi_widebuild.filt_bloofi'), pg_relation_size('bloofi_widebuild.exact_gin')")
bbuild=$(printf '%s\n' "${bt[@]}" | median); gbuild=$(printf '%s\n' "${gt[@]}" | median)
srat=$(ratio "$bsize" "$gsize"); hrat=$(ratio "$bsize" "$fheap"); brat=$(ratio "$bbuild" "$gbuild")
echo "   index: Bloofi $(mb "$bsize"), GIN $(mb "$gsize"): $srat x GIN's, $hrat x the heap"
echo "   build: Bloofi $bbuild ms, GIN $gbuild ms (medians of ${bt[*]} / ${gt[*]}): $brat x"

# exactness at a glance (the regression tests hold the oracle): same counts as a scan
bs_psql -Atq -c "SET search_path = bloofi_widebuild, public; SET enable_seqscan = off;
  CREATE TEMP TABLE a AS SELECT x, (SELECT count(*) FROM filt WHERE f @> x) c FROM generate_series(1, 200000, 997) x;
  RESET enable_seqscan; SET enable_indexscan = off; SET enable_bitmapscan = off;
  SELECT CASE WHEN bool_and(c = (SELECT count(*) FROM filt WHERE f @> x)) THEN 'lookups equal a sequential scan'
              ELSE 'LOOKUPS DIFFER FROM A SEQUENTIAL SCAN' END FROM a" | sed 's/^/   /'

# buffers a lookup touches (EXPLAIN (ANALYZE, BUFFERS) of the index scan node), median of 9 values
bbuf=(); gbuf=()
for v in 17 4711 23456 50001 77777 99991 123457 150001 199999; do
  bbuf+=("$(bs_psql -Atq -c "SET search_path = bloofi_widebuild, public; SET enable_seqscan = off; SET bloomsample.plan_probe_reuse = off;" \
    -c "EXPLAIN (ANALYZE, BUFFERS, COSTS off, TIMING off) SELECT count(*) FROM filt WHERE f @> $v::bigint" |
    awk '/Index Scan|Bitmap Index Scan/ {n = 1; next} n == 1 && /Buffers:/ {sub(/.*hit=/, ""); print $1 + 0; exit}')")
  gbuf+=("$(bs_psql -Atq -c "SET search_path = bloofi_widebuild, public; SET enable_seqscan = off;" \
    -c "EXPLAIN (ANALYZE, BUFFERS, COSTS off, TIMING off) SELECT count(*) FROM exact WHERE ids @> ARRAY[$v::bigint]" |
    awk '/Bitmap Index Scan/ {n = 1; next} n == 1 && /Buffers:/ {sub(/.*hit=/, ""); print $1 + 0; exit}')")
done
echo "   buffers per lookup (index scan node, median of 9): Bloofi $(printf '%s\n' "${bbuf[@]}" | median), GIN $(printf '%s\n' "${gbuf[@]}" | median) (${bbuf[*]} / ${gbuf[*]})"

P=$(mktemp -d /tmp/bloofi-widebuild-pgb.XXXXXX)
printf '\\set v random(0, 199999)\nSELECT count(*) FROM bloofi_widebuild.filt WHERE f @> :v::bigint;\n' >"$P/bloofi.sql"
printf '\\set v random(0, 199999)\nSELECT count(*) FROM bloofi_widebuild.exact WHERE ids @> ARRAY[:v::bigint];\n' >"$P/gin.sql"
chmod -R a+rX "$P"
# (latency from tps: pgbench prints the average latency to 3 decimals of a
# millisecond, 2 % of these lookups; BENCH_LOOKUP_RUNS alternations, 5 s each)
LRUNS=${BENCH_LOOKUP_RUNS:-5}
bl=(); gl=()
for r in $(seq 1 "$LRUNS"); do
  bl+=("$("$BS_BINDIR/pgbench" -n -T 5 -M prepared -f "$P/bloofi.sql" 2>/dev/null | awk '/^tps/ {printf "%.4f", 1000 / $3}')")
  gl+=("$("$BS_BINDIR/pgbench" -n -T 5 -M prepared -f "$P/gin.sql" 2>/dev/null | awk '/^tps/ {printf "%.4f", 1000 / $3}')")
done
rm -rf "$P"
bm=$(printf '%s\n' "${bl[@]}" | median); gm=$(printf '%s\n' "${gl[@]}" | median)
lrat=$(ratio "$bm" "$gm")
echo "   lookup (pgbench -M prepared, median of $LRUNS): Bloofi $bm ms, GIN $gm ms: $lrat x (runs ${bl[*]} / ${gl[*]})"

rows+=("Bloofi index / GIN's, m = 433,039 skewed|$srat|<= 1.0|$(bench_verdict "$srat" "<=" 1.0)"
      "Bloofi index / the heap, m = 433,039 skewed|$hrat|<= 2.0|$(bench_verdict "$hrat" "<=" 2.0)"
      "Bloofi build / GIN's, m = 433,039 skewed|$brat|<= 3.0|$(bench_verdict "$brat" "<=" 3.0)"
      "Bloofi lookup / GIN's, m = 433,039 skewed|$lrat|<= 1.0|$(bench_verdict "$lrat" "<=" 1.0)")
fi

if [ "$sections" != skewed ]; then
# 2. inserts in statements, fast update on, then delete half + VACUUM + insert again
echo "== inserts: m = 65,536, 50 rows, then 2,160 rows in 100 statements (fastupdate on)"
bs_psql -q <<'SQL'
SET search_path = bloofi_widebuild, public;
CREATE TABLE ins (id int, f bloomfilter);
INSERT INTO ins SELECT i, bloom_from_array(ARRAY(SELECT (i * 7919 + j * 104729) % 1000003 FROM generate_series(1, 5) j)::bigint[], 65536, 3)
  FROM generate_series(1, 50) i;
CREATE INDEX ins_bloofi ON ins USING bloofi (f) WITH (fastupdate = on);
SQL
for st in $(seq 0 99); do
  lo=$((51 + st * 216 / 10)); hi=$((50 + (st + 1) * 216 / 10))
  bs_psql -q -c "INSERT INTO bloofi_widebuild.ins SELECT i, bloom_from_array(ARRAY(SELECT (i * 7919 + j * 104729) % 1000003 FROM generate_series(1, 5) j)::bigint[], 65536, 3) FROM generate_series($lo, $hi) i"
done
read -r isize < <(bs_psql -Atq -c "SELECT pg_relation_size('bloofi_widebuild.ins_bloofi')")
bs_psql -q -c "CREATE INDEX ins_fresh ON bloofi_widebuild.ins USING bloofi (f)"
read -r fsize < <(bs_psql -Atq -c "SELECT pg_relation_size('bloofi_widebuild.ins_fresh')")
bs_psql -q -c "DROP INDEX bloofi_widebuild.ins_fresh"
irat=$(ratio "$isize" "$fsize")
echo "   after the inserts: $(mb "$isize"); a fresh build of the same rows: $(mb "$fsize"): $irat x"
bs_psql -q -c "DELETE FROM bloofi_widebuild.ins WHERE id % 2 = 0" -c "VACUUM bloofi_widebuild.ins"
read -r vsize < <(bs_psql -Atq -c "SELECT pg_relation_size('bloofi_widebuild.ins_bloofi')")
for st in $(seq 0 49); do
  lo=$((3000 + st * 22)); hi=$((3000 + st * 22 + 21))
  bs_psql -q -c "INSERT INTO bloofi_widebuild.ins SELECT i, bloom_from_array(ARRAY(SELECT (i * 7919 + j * 104729) % 1000003 FROM generate_series(1, 5) j)::bigint[], 65536, 3) FROM generate_series($lo, $hi) i"
done
read -r psize < <(bs_psql -Atq -c "SELECT pg_relation_size('bloofi_widebuild.ins_bloofi')")
read -r npend < <(bs_psql -Atq -c "SELECT pending FROM bloofi_stats('bloofi_widebuild.ins_bloofi')")
prat=$(ratio "$psize" "$vsize")
# the next VACUUM (autovacuum's, in production) moves the pending entries into the
# slots the deleted rows left; the pending pages go back to the free space
bs_psql -q -c "VACUUM bloofi_widebuild.ins"
read -r rsize < <(bs_psql -Atq -c "SELECT pg_relation_size('bloofi_widebuild.ins_bloofi')")
read -r rslots rfree < <(bs_psql -Atq -F ' ' -c "SELECT slots, free_slots FROM bloofi_stats('bloofi_widebuild.ins_bloofi')")
rrat=$(ratio "$rsize" "$vsize")
echo "   deleted half + VACUUM: $(mb "$vsize"); after 1,100 more rows in 50 statements: $(mb "$psize") ($prat x, $npend of them still in the pending list);"
echo "   after the next VACUUM moved them into the tree: $(mb "$rsize"): $rrat x ($rfree of $rslots slots free)"

rows+=("2,160 inserts in 100 statements / fresh build|$irat|<= 2.0|$(bench_verdict "$irat" "<=" 2.0)"
      "size after delete half, VACUUM, reinsert, VACUUM / before|$rrat|<= 1.1|$(bench_verdict "$rrat" "<=" 1.1)")
fi

bench_report "${rows[@]}"
bs_psql -q -c "DROP SCHEMA bloofi_widebuild CASCADE"
