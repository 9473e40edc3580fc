#!/usr/bin/env bash
# test/bench/38_bloofi_sparse.sh -- Bloofi against GIN on small sparse filters
# (issue 21, sparse regime: SPARSE bottom nodes, docs/bloofi.md).
#
# Two columns, each as `bloomfilter` (m = 1,024, k = 3) with a Bloofi index and
# as the exact `bigint[]` with a GIN index, built in the same run:
#   debian    the demo's Debian dependency graph (`apt-cache dumpavail` parsed
#             by test/demo/debian_deps.py, as test/bench/20_bst.sh section 1c)
#   synthetic 63,666 sets of least(400, floor(1.5 / random()^0.6)) ids
#             floor(63666 * random()^4) (skewed sizes and ids)
# (the set of each row drawn per row: the subquery refers to i).
# Reports index sizes and their ratio, and the lookup latency of a random
# element through pgbench (one client, -M prepared, 5 s runs alternating the
# two, median of BENCH_LOOKUP_RUNS, 5 by default; latency from tps), Bloofi / GIN.
#   bash test/bench/38_bloofi_sparse.sh        (standalone; or via run.sh)
set -euo pipefail
. "$(dirname "$0")/lib.sh"; cd "$BS_REPO_ROOT"; bench_setup

DEMO=$(mktemp -d /tmp/bloofi-sparse.XXXXXX)

have_debian=0
if command -v apt-cache >/dev/null && apt-cache dumpavail >"$DEMO/dumpavail" 2>/dev/null &&
   python3 test/demo/debian_deps.py "$DEMO" <"$DEMO/dumpavail" >/dev/null &&
   [ "$(wc -l <"$DEMO/pkg.tsv")" -ge 1000 ]; then
  have_debian=1
  chmod -R a+rX "$DEMO"
fi

bs_psql -q <<SQL
DROP SCHEMA IF EXISTS bloofi_sparse CASCADE;
CREATE SCHEMA bloofi_sparse;
SET search_path = bloofi_sparse, public;
CREATE TABLE synthetic AS
  SELECT i AS id, ARRAY(SELECT floor(63666 * random() ^ 4)::bigint
                        FROM generate_series(1, least(400, floor(1.5 / random() ^ 0.6))::int + 0 * i)) AS ids
  FROM generate_series(1, 63666) i;
SQL
if [ $have_debian = 1 ]; then
  bs_psql -q <<SQL
SET search_path = bloofi_sparse, public;
CREATE TABLE pkg_load (name text, id bigint, dep_ids bigint[]);
\copy pkg_load FROM '$DEMO/pkg.tsv'
CREATE TABLE debian AS SELECT id, dep_ids AS ids FROM pkg_load;
DROP TABLE pkg_load;
SQL
fi

LRUNS=${BENCH_LOOKUP_RUNS:-5}
for t in debian synthetic; do
  [ $t = debian ] && [ $have_debian = 0 ] && { echo "== $t: skipped (no apt-cache dumpavail)"; continue; }
  bs_psql -q <<SQL
SET search_path = bloofi_sparse, public;
ALTER TABLE $t ADD COLUMN f bloomfilter;
UPDATE $t SET f = bloom_from_array(ids, 1024, 3);
VACUUM ANALYZE $t;
CREATE INDEX ${t}_bloofi ON $t USING bloofi (f);
CREATE INDEX ${t}_gin ON $t USING gin (ids);
ANALYZE $t;
SQL
  read -r nrows bsize gsize bpages nodes < <(bs_psql -Atq -F ' ' -c "SET search_path = bloofi_sparse, public;
    SELECT (SELECT count(*) FROM $t), pg_relation_size('${t}_bloofi'), pg_relation_size('${t}_gin'),
           s.pages, s.bottom_nodes FROM bloofi_stats('bloofi_sparse.${t}_bloofi') s")
  maxid=$(bs_psql -Atq -c "SELECT max(x) FROM bloofi_sparse.$t, unnest(ids) x")
  echo "== $t: $nrows filters; Bloofi $bsize bytes ($bpages pages, $nodes bottom nodes), GIN $gsize bytes: size ratio $(awk -v a="$bsize" -v b="$gsize" 'BEGIN{printf "%.3f", a/b}')"
  P=$(mktemp -d /tmp/bloofi-sparse-pgb.XXXXXX)
  printf '\\set v random(0, %s)\nSELECT count(*) FROM bloofi_sparse.%s WHERE f @> :v::bigint;\n' "$maxid" "$t" >"$P/bloofi.sql"
  printf '\\set v random(0, %s)\nSELECT count(*) FROM bloofi_sparse.%s WHERE ids @> ARRAY[:v::bigint];\n' "$maxid" "$t" >"$P/gin.sql"
  chmod -R a+rX "$P"
  # (latency from tps: pgbench prints 3 decimals of a millisecond, ~1.5 % here)
  bl=(); gl=()
  for r in $(seq 1 "$LRUNS"); do
    bl+=("$("$BS_BINDIR/pgbench" -n -T 5 -M prepared -f "$P/bloofi.sql" 2>/dev/null | awk '/^tps/ {printf "%.4f", 1000 / $3}')")
    gl+=("$("$BS_BINDIR/pgbench" -n -T 5 -M prepared -f "$P/gin.sql" 2>/dev/null | awk '/^tps/ {printf "%.4f", 1000 / $3}')")
  done
  rm -rf "$P"
  bm=$(printf '%s\n' "${bl[@]}" | median); gm=$(printf '%s\n' "${gl[@]}" | median)
  ratio=$(awk -v a="$bm" -v b="$gm" 'BEGIN{printf "%.2f", a/b}')
  echo "   lookup latency (pgbench -M prepared, median of $LRUNS): Bloofi $bm ms, GIN $gm ms: ratio $ratio (runs: ${bl[*]} / ${gl[*]})"
  if [ -n "${BS_BENCH_SUMMARY:-}" ]; then
    srat=$(awk -v a="$bsize" -v b="$gsize" 'BEGIN{printf "%.3f", a/b}')
    echo "Bloofi index size / GIN's, $t|$srat|<= 1.0|$(awk -v r="$srat" 'BEGIN{print (r <= 1.0) ? "met" : "NOT met"}')" >>"$BS_BENCH_SUMMARY"
    echo "Bloofi lookup / GIN's, $t|$ratio|<= 1.0|$(awk -v r="$ratio" 'BEGIN{print (r <= 1.0) ? "met" : "NOT met"}')" >>"$BS_BENCH_SUMMARY"
  fi
done
bs_psql -q -c "DROP SCHEMA bloofi_sparse CASCADE"
rm -rf "$DEMO"
