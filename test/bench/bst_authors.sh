#!/usr/bin/env bash
# test/bench/bst_authors.sh -- BloomSampleTree sampling, like with like: the
# authors' published C code (github.com/senguptaneha/BloomSampling) and
# bloomsample, at the paper's configuration, in the same minutes.
#
# The paper's configuration (Tables 2 and 3): namespace M = 10^7, query sets
# of n = 1,000 ids, k = 3, m = 132,933 (accuracy 0.9), a tree of 4,096
# leaves (bloomsample's cost model picks depth 12 here, as the paper does);
# sampling threshold T = 0 (their README).  (Their BSTtesting.c sizes m for a
# fixed set size of 10,000, about 608,000 bits at M = 10^7 and accuracy 0.9,
# and picks the levels from a timing run; the driver takes both as arguments
# so that both sides use the paper's m = 132,933 and the same tree shape.)  Their code is built twice: as
# their Makefile does (plain `gcc`, no optimisation flags) and with
# `-O3 -march=native` (which also gives it the hardware popcount).  It runs
# through test/bench/bst_authors_driver.c, a timing loop around THEIR tree
# and sampleFromTree (it includes their bloomTree.c and links their bloom.c;
# the driver's header says what differs from their BSTtesting.c), over the
# same query sets that bloomsample then samples from:
#   single: one sample per call, each call timed (their BSTtesting.c loop)
#           vs one `bst_sample(tree, f, 1)` per row;
#   batch:  100 samples from one filter, per sample: 100 consecutive calls
#           of theirs vs one `bst_sample(tree, f, 100)`.
# Their figures are wall and CPU time per call in one process; ours are the
# backend's CPU time per call (from /proc/self/schedstat, as 15_sparse.sh),
# reading the filter and SQL's per-row work included.
#
# Optional, not part of `make bench`: it needs a local checkout of their
# repository (no network is used):
#     bash test/bench/bst_authors.sh /path/to/BloomSampling
#     BST_AUTHORS_SRC=/path/to/BloomSampling bash test/bench/bst_authors.sh
# Environment: BST_AUTHORS_COMMIT (the commit to print for a copy that is not a
# git checkout), SETS (query sets, default 20), SAMPLES (per set and batch,
# default 100), and lib.sh's (PG_CONFIG, PORT).
set -euo pipefail
src=${1:-${BST_AUTHORS_SRC:-}}
[ -n "$src" ] && [ -f "$src/bloomTree.c" ] && [ -f "$src/bloom.c" ] ||
    { echo "usage: $0 /path/to/a/checkout/of/BloomSampling (or BST_AUTHORS_SRC=...)" >&2; exit 2; }
src=$(cd "$src" && pwd)
. "$(dirname "$0")/lib.sh"
cd "$BS_REPO_ROOT"
M=10000000 m=132933 k=3 LEVELS=12
SETS=${SETS:-20}
SAMPLES=${SAMPLES:-100}
work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
commit=$(git -C "$src" rev-parse HEAD 2>/dev/null || echo "${BST_AUTHORS_COMMIT:-unknown commit}")

echo "== the authors' code: $commit; machine: $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; $(date -u +%F)"
# SETS lines of 1,000 distinct-ish uniform ids in [0, M), fixed seed
awk -v sets="$SETS" -v M="$M" 'BEGIN { srand(15); for (s = 0; s < sets; s++) { l = "";
    for (i = 0; i < 1000; i++) l = l (i ? "," : "") int(rand() * M); print l } }' >"$work/sets.txt"
declare -A FLAGS=([default]="" [O3native]="-O3 -march=native")
for b in default O3native; do
    # shellcheck disable=SC2086
    gcc ${FLAGS[$b]} -w -I"$src" test/bench/bst_authors_driver.c "$src/bloom.c" -lm -o "$work/drv_$b"
done

bench_setup
[ -n "${BS_BENCH_RUNNER:-}" ] || trap 'bs_cluster_stop; rm -rf "$work"' EXIT
bs_psql -q <<SQL
DROP TABLE IF EXISTS ba_sets;
CREATE TABLE ba_sets (id serial, ids bigint[], f bloomfilter);
SQL
sed 's/^/{/; s/$/}/' "$work/sets.txt" | bs_psql -q -c "COPY ba_sets (ids) FROM STDIN"
bs_psql -q <<SQL
UPDATE ba_sets SET f = bloom_from_array(ids, $m, $k);
VACUUM ANALYZE ba_sets;
SELECT bst_drop(name) FROM bst_trees WHERE name = 'ba7';
SELECT bst_create('ba7', 0, $M, $m, $k);
CREATE OR REPLACE FUNCTION ba_cpu_ms(q text, reps int) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE ts float8[] := '{}'; c0 bigint;
BEGIN
  EXECUTE q;
  FOR i IN 1..reps LOOP
    c0 := split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::bigint;
    EXECUTE q;
    ts := ts || (split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::bigint - c0) / 1e6;
  END LOOP;
  RETURN (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(ts) x);
END \$\$;
SQL
read -r depth leaf < <(bs_psql -Atq -F' ' -c "SELECT depth, leaf_size FROM bst_info('ba7')")
ours() {   # statement, divisor: the median backend CPU us per unit
    bs_psql -Atq -c "SET jit = off" -c "SELECT round((ba_cpu_ms(\$q\$$1\$q\$, 7) / $2 * 1000)::numeric, 2)"
}
for round in 1 2; do
    for b in default O3native; do
        echo "theirs ($b, round $round): $("$work/drv_$b" $M $m $k $LEVELS "$work/sets.txt" "$SAMPLES" $round)"
    done
    # one call per (filter, g): the argument depends on g, so that neither
    # Memoize nor Materialize can reuse one call's result for another row
    single=$(ours "SELECT count(*) FROM ba_sets, generate_series(1, $SAMPLES) g, LATERAL bst_sample('ba7', f, 1 + 0 * g)" $((SETS * SAMPLES)))
    batch=$(ours "SELECT count(*) FROM ba_sets, bst_sample('ba7', f, $SAMPLES)" $((SETS * SAMPLES)))
    echo "ours (round $round; depth $depth, leaves of $leaf ids): single_cpu_us=$single batch_cpu_per_sample_us=$batch"
done
bs_psql -q -c "SELECT bst_drop('ba7')" -c "DROP TABLE ba_sets" -c "DROP FUNCTION ba_cpu_ms(text, int)" >/dev/null
