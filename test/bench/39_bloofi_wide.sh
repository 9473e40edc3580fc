#!/usr/bin/env bash
# test/bench/39_bloofi_wide.sh -- Bloofi updates at a wide m (issue 33: fast
# update at any filter width, docs/bloofi.md "The pending list").
#
# The column of issue 33: 20,000 tags whose sets have skewed sizes
# least(50000, floor(3 / random())) (ids floor(200000 * random()), drawn per
# row), as `bloomfilter` m = 433,039, k = 3 (m for the largest set) and as the
# exact `bigint[]`, each in its own table with a primary key:
#   gin       bigint[] with GIN (fastupdate on, the default)
#   direct    Bloofi, every insert into the tree: what 1.1 did at this m with
#             fastupdate on (its pending list took filters up to m ~ 16,000);
#             built with fastupdate on, then ALTER INDEX ... SET (fastupdate =
#             off), so the tree is the same as the next one's
#   pending   Bloofi with fastupdate on: sparse pending entries
# Then UPDATES (default 1,000) single-row updates, the same rows and elements
# for the three (pgbench -M prepared, one client, fixed seed), in 4 rounds
# interleaved across the three tables:
#   UPDATE ... SET f = bloom_add(f, x) WHERE id = ...   /  SET ids = ids || x
# Reports each one's total time and its ratio to GIN's, the index growth
# (bytes) after the updates and after a VACUUM (timed: it flushes both
# pending lists), and the growth ratios to GIN's.
#   bash test/bench/39_bloofi_wide.sh      (standalone; or via run.sh)
#   UPDATES=200 bash test/bench/39_bloofi_wide.sh   (shorter)
set -euo pipefail
. "$(dirname "$0")/lib.sh"; cd "$BS_REPO_ROOT"; bench_setup
: "${UPDATES:=1000}"
ROUNDS=4

bs_psql -q <<'SQL'
DROP SCHEMA IF EXISTS bloofi_wide CASCADE;
CREATE SCHEMA bloofi_wide;
SET search_path = bloofi_wide, public;
SELECT setseed(0.33);
CREATE TABLE src AS
  SELECT i AS id, ARRAY(SELECT floor(200000 * random())::bigint
                        FROM generate_series(1, least(50000, floor(3 / random()))::int + 0 * i)) AS ids
  FROM generate_series(1, 20000) i;
CREATE TABLE gin (id int PRIMARY KEY, ids bigint[]);
INSERT INTO gin SELECT id, ids FROM src;
CREATE TABLE pending (id int PRIMARY KEY, f bloomfilter);
INSERT INTO pending SELECT id, bloom_from_array(ids, 433039, 3) FROM src;
CREATE TABLE direct (id int PRIMARY KEY, f bloomfilter);
INSERT INTO direct SELECT * FROM pending;
DROP TABLE src;
CREATE INDEX gin_i ON gin USING gin (ids);
CREATE INDEX pending_i ON pending USING bloofi (f) WITH (fastupdate = on);
CREATE INDEX direct_i ON direct USING bloofi (f) WITH (fastupdate = on);
ALTER INDEX direct_i SET (fastupdate = off);
VACUUM ANALYZE gin; VACUUM ANALYZE pending; VACUUM ANALYZE direct;
SQL

T=(gin direct pending)
size() { bs_psql -Atq -c "SELECT pg_relation_size('bloofi_wide.$1_i')"; }
declare -A s0 ms s1 s2 vac
for t in "${T[@]}"; do s0[$t]=$(size "$t"); ms[$t]=0; done
heap=$(bs_psql -Atq -c "SELECT pg_table_size('bloofi_wide.pending')")
echo "== 20,000 filters, m = 433,039, k = 3: heap $heap bytes; index sizes: Bloofi ${s0[pending]}, GIN ${s0[gin]}"

P=$(mktemp -d /tmp/bloofi-wide.XXXXXX)
printf '\\set id random(1, 20000)\n\\set x random(0, 199999)\nUPDATE bloofi_wide.gin SET ids = ids || :x::bigint WHERE id = :id;\n' >"$P/gin.sql"
for t in direct pending; do
  printf '\\set id random(1, 20000)\n\\set x random(0, 199999)\nUPDATE bloofi_wide.%s SET f = bloom_add(f, :x::bigint) WHERE id = :id;\n' "$t" >"$P/$t.sql"
done
chmod -R a+rX "$P"
per=$(( (UPDATES + ROUNDS - 1) / ROUNDS ))
for r in $(seq 1 $ROUNDS); do
  for t in "${T[@]}"; do
    lat=$("$BS_BINDIR/pgbench" -n -M prepared -c 1 -t "$per" --random-seed=$((7 + r)) -f "$P/$t.sql" 2>/dev/null |
          awk '/latency average/ {print $4}')
    ms[$t]=$(awk -v a="${ms[$t]}" -v l="$lat" -v n="$per" 'BEGIN{printf "%.1f", a + l * n}')
  done
done
rm -rf "$P"
for t in "${T[@]}"; do
  s1[$t]=$(size "$t")
  vac[$t]=$(bs_psql -Atq -c '\timing on' -c "VACUUM bloofi_wide.$t" | awk '/^Time:/ {print $2}')
  s2[$t]=$(size "$t")
done
# index answers equal to a sequential scan's, for 20 elements (a check, not a timing)
bad=$(bs_psql -Atq <<'SQL'
SET search_path = bloofi_wide, public;
SET enable_seqscan = off; SET enable_indexscan = off;
CREATE TEMP TABLE viaidx AS SELECT x, (SELECT array_agg(id ORDER BY id) FROM pending WHERE f @> x) a
  FROM generate_series(0, 199999, 10000) x;
RESET enable_seqscan; SET enable_bitmapscan = off;
SELECT count(*) FROM viaidx v WHERE v.a IS DISTINCT FROM
  (SELECT array_agg(id ORDER BY id) FROM pending WHERE f @> v.x);
SQL
)
printf '%-8s %12s %12s %14s %14s %10s\n' index "updates ms" "/ GIN" "growth bytes" "after VACUUM" "VACUUM ms"
for t in "${T[@]}"; do
  printf '%-8s %12s %12s %14s %14s %10s\n' "$t" "${ms[$t]}" \
    "$(awk -v a="${ms[$t]}" -v b="${ms[gin]}" 'BEGIN{printf "%.2f", a/b}')" \
    $(( s1[$t] - s0[$t] )) $(( s2[$t] - s0[$t] )) "${vac[$t]}"
done
echo "   (lookups of 20 elements differing from a sequential scan: $bad)"
tr=$(awk -v a="${ms[pending]}" -v b="${ms[gin]}" 'BEGIN{printf "%.2f", a/b}')
dr=$(awk -v a="${ms[direct]}" -v b="${ms[pending]}" 'BEGIN{printf "%.1f", a/b}')
gr=$(awk -v a="$(( s1[pending] - s0[pending] ))" -v b="$(( s1[gin] - s0[gin] ))" 'BEGIN{printf "%.2f", (b > 0 ? a/b : a > 0 ? 99 : 0)}')
echo "   pending list vs direct inserts (1.1's path at this m): ${dr}x faster"
bench_report \
  "Bloofi $UPDATES UPDATEs / GIN's, m = 433,039|$tr|<= 2|$(bench_verdict "$tr" "<=" 2)" \
  "Bloofi index growth over $UPDATES UPDATEs / GIN's|$gr|<= 2|$(bench_verdict "$gr" "<=" 2)"
bs_psql -q -c "DROP SCHEMA bloofi_wide CASCADE"
