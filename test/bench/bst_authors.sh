#!/usr/bin/env bash
# test/bench/bst_authors.sh -- BloomSampleTree sampling, like with like: the
# authors' published C code (github.com/senguptaneha/BloomSampling) and
# bloomsample, at the paper's configuration, in the same run.
#
# The paper's configuration (Tables 2 and 3): namespace M = 10^7, query sets
# of n = 1,000 ids, k = 3, m = 132,933 (accuracy 0.9), a tree of 4,096
# leaves (bloomsample's cost model picks depth 12 here, as the paper does);
# sampling threshold T = 0 (their README).  (Their BSTtesting.c sizes m for a
# fixed set size of 10,000, about 608,000 bits at M = 10^7 and accuracy 0.9,
# and picks the levels from a timing run; the driver takes both as arguments
# so that both sides use the paper's m = 132,933 and the same tree shape.)
#
# Their code is built three ways: as their Makefile does (plain `gcc`, no
# optimisation flags), with `-O3 -march=native` (GCC then vectorises their
# bit-counting loops: into VPOPCNTQ on a CPU with AVX-512 VPOPCNTDQ), and, on
# such a CPU, with `-O3 -march=native -mno-avx512vpopcntdq -mno-avx512bitalg`
# as a CPU without the AVX-512 popcount would run it (an AMD EPYC before Zen 4,
# an Intel Skylake-SP).  It runs through test/bench/bst_authors_driver.c, a
# timing loop around THEIR tree and sampleFromTree (it includes their
# bloomTree.c and links their bloom.c; the driver's header says what differs
# from their BSTtesting.c), over the same query sets that bloomsample then
# samples from:
#   single: one sample per call, from each of SETS different filters: theirs
#           each call timed by clock_gettime (median and mean) and all of them
#           as one interval; ours one `bst_sample(tree, f, 1)` per row of a
#           query over the SETS filters, the query's wall time (clock_timestamp,
#           microseconds over SETS calls) divided by SETS, reading each filter
#           and SQL's per-row work included;
#   batch:  SAMPLES samples from each of the first BATCH_SETS filters, per
#           sample: SAMPLES consecutive calls of theirs vs one
#           `bst_sample(tree, f, SAMPLES)` per filter.
# Ours is timed RUNS times a round (median and mean of the runs); two rounds,
# theirs and ours interleaved.  CPU time is printed beside the wall time for
# both (theirs CLOCK_PROCESS_CPUTIME_ID, ours the backend's task-clock from
# `perf stat` when perf is installed): on a machine shared with other work,
# wall time also counts waiting for a core, CPU time does not.  Ours is also run over the same filters stored
# dense and uncompressed (the 1.1 form with SET STORAGE EXTERNAL) for the
# ratio of the default stored form to it.  Wall time on a shared machine
# counts waiting for a core: the script prints the load (uptime) with the
# figures, and the ratios come from the same round.
#
# Optional, not part of `make bench`: it needs a local checkout of their
# repository (no network is used):
#     bash test/bench/bst_authors.sh /path/to/BloomSampling
#     BST_AUTHORS_SRC=/path/to/BloomSampling bash test/bench/bst_authors.sh
# Environment: BST_AUTHORS_COMMIT (the commit to print for a copy that is not a
# git checkout), SETS (different query filters, default 2000), BATCH_SETS
# (default 20), SAMPLES (per batch, default 100), RUNS (ours, per round,
# default 7), BUILDS (which of theirs, default all three: "makefile O3native
# O3native_novpopcnt"; their Makefile's build takes ~0.1 s a call, so it runs
# over the first SLOW_SETS filters, default 200, and 2 filters of the batch),
# CPUS (the vCPU each round runs on, cycled: default "0 1" on a machine of two
# or more, "" for none), and lib.sh's (PG_CONFIG, PORT).
#
# Each round runs both sides on the same vCPU (taskset: their driver, and the
# postmaster before the round, whose new backends inherit it): the vCPUs of a
# shared VM are not equally fast (on this pool, sessions alternating between
# the two: one vCPU read 11-12 us a call in four of five, the other 14-17 in
# four of five), so a ratio taken across two of them measures the host as much
# as the code.  The rounds take the vCPUs in turn.
set -euo pipefail
src=${1:-${BST_AUTHORS_SRC:-}}
[ -n "$src" ] && [ -f "$src/bloomTree.c" ] && [ -f "$src/bloom.c" ] ||
    { echo "usage: $0 /path/to/a/checkout/of/BloomSampling (or BST_AUTHORS_SRC=...)" >&2; exit 2; }
src=$(cd "$src" && pwd)
. "$(dirname "$0")/lib.sh"
cd "$BS_REPO_ROOT"
M=10000000 m=132933 k=3 LEVELS=12
SETS=${SETS:-2000}
BATCH_SETS=${BATCH_SETS:-20}
SAMPLES=${SAMPLES:-100}
RUNS=${RUNS:-7}
work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
commit=$(git -C "$src" rev-parse HEAD 2>/dev/null || echo "${BST_AUTHORS_COMMIT:-unknown commit}")
flags=$(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2)
popcnt_flags=$(for f in popcnt avx2 avx512f avx512bw avx512vl avx512_vpopcntdq avx512_bitalg avx512vbmi avx512_vbmi2; do
    case " $flags " in *" $f "*) printf '%s ' "$f" ;; esac; done)

echo "== the authors' code: $commit; machine: $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; $(date -u '+%F %H:%M') UTC"
echo "== CPU popcount features (/proc/cpuinfo): ${popcnt_flags:-none}; gcc $(gcc -dumpfullversion)"
# SETS lines of 1,000 distinct-ish uniform ids in [0, M), fixed seed
awk -v sets="$SETS" -v M="$M" 'BEGIN { srand(15); for (s = 0; s < sets; s++) { l = "";
    for (i = 0; i < 1000; i++) l = l (i ? "," : "") int(rand() * M); print l } }' >"$work/sets.txt"
head -n "${SLOW_SETS:-200}" "$work/sets.txt" >"$work/sets_slow.txt"
declare -A FLAGS=([makefile]="" [O3native]="-O3 -march=native"
                  [O3native_novpopcnt]="-O3 -march=native -mno-avx512vpopcntdq -mno-avx512bitalg")
if [ -z "${BUILDS:-}" ]; then
    BUILDS="makefile O3native"
    case " $flags " in *" avx512_vpopcntdq "*) BUILDS="$BUILDS O3native_novpopcnt" ;; esac
fi
for b in $BUILDS; do
    # shellcheck disable=SC2086
    gcc ${FLAGS[$b]} -w -I"$src" test/bench/bst_authors_driver.c "$src/bloom.c" -lm -o "$work/drv_$b"
    echo "theirs, build $b: gcc ${FLAGS[$b]:-(no flags: their Makefile)}; $(objdump -d --no-show-raw-insn "$work/drv_$b" | grep -cE '^ *[0-9a-f]+:\s+vpopcnt') vpopcnt instructions in the binary"
done

bench_setup
[ -n "${BS_BENCH_RUNNER:-}" ] || trap 'bs_cluster_stop; rm -rf "$work"' EXIT
bs_psql -q <<SQL
DROP TABLE IF EXISTS ba_sets, ba_dense;
CREATE TABLE ba_sets (id serial, ids bigint[], f bloomfilter);
SQL
sed 's/^/{/; s/$/}/' "$work/sets.txt" | bs_psql -q -c "COPY ba_sets (ids) FROM STDIN"
bs_psql -q <<SQL
UPDATE ba_sets SET f = bloom_from_array(ids, $m, $k);
SET bloomsample.filter_storage = dense;
CREATE TABLE ba_dense (id int, f bloomfilter);
ALTER TABLE ba_dense ALTER f SET STORAGE EXTERNAL;
INSERT INTO ba_dense SELECT id, bloom_from_array(ids, $m, $k) FROM ba_sets;
VACUUM ANALYZE ba_sets;
VACUUM ANALYZE ba_dense;
SELECT bst_drop(name) FROM bst_trees WHERE name = 'ba7';
SELECT bst_create('ba7', 0, $M, $m, $k);
-- the query's wall time in microseconds per unit, over reps runs after a
-- warm-up: 'median mean'
CREATE OR REPLACE FUNCTION ba_wall_us(q text, reps int, per int) RETURNS text LANGUAGE plpgsql AS \$\$
DECLARE ts float8[] := '{}'; t0 timestamptz;
BEGIN
  EXECUTE q;
  FOR i IN 1..reps LOOP
    t0 := clock_timestamp();
    EXECUTE q;
    ts := ts || extract(epoch FROM clock_timestamp() - t0) * 1e6 / per;
  END LOOP;
  RETURN (SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY x)::numeric, 2) || ' ' ||
                 round(avg(x)::numeric, 2) FROM unnest(ts) x);
END \$\$;
SQL
read -r depth leaf < <(bs_psql -Atq -F' ' -c "SELECT depth, leaf_size FROM bst_info('ba7')")
echo "ours: kernels $(bs_psql -Atq -c "SELECT string_agg(kernel || '=' || variant, ' ') FROM bloomsample_kernels()")"
ours() {   # statement, divisor: 'median mean' wall us per unit over RUNS runs
    bs_psql -Atq -c "SET jit = off" -c "SELECT ba_wall_us(\$q\$$1\$q\$, $RUNS, $2)"
}
# statement, divisor: ours in CPU time, us per unit: perf's task-clock (ns) of
# the backend over RUNS runs after a warm-up (the same kind of clock as the
# driver's CLOCK_PROCESS_CPUTIME_ID); "-" without a usable perf
ours_cpu() {
    command -v perf >/dev/null || { echo "-"; return; }
    local fifo="$work/ours.fifo" out="$work/ours.out" pid pp
    rm -f "$fifo" "$out"; mkfifo "$fifo"
    bs_psql -Atq <"$fifo" >"$out" 2>&1 &
    exec 4>"$fifo"
    echo "SET jit = off; SELECT pg_backend_pid(); $1;" >&4
    until [ "$(wc -l <"$out")" -ge 2 ]; do sleep 0.1; done
    pid=$(head -1 "$out")
    perf stat -x, -e task-clock -p "$pid" -o "$work/ours.perf" 2>/dev/null & pp=$!
    sleep 0.5
    for _ in $(seq "$RUNS"); do echo "$1;" >&4; done
    echo "SELECT 'ours_cpu_done';" >&4
    until grep -q ours_cpu_done "$out"; do sleep 0.1; done
    kill -INT "$pp"; wait "$pp" 2>/dev/null || true
    exec 4>&-; wait
    awk -F, -v n="$((RUNS * $2))" '/task-clock/ && $1 + 0 > 0 { printf "%.2f", $1 * 1000 / n; f = 1 }
        END { if (!f) printf "-" }' "$work/ours.perf"
}
field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" <<<" $2"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }
read -ra cpus <<<"${CPUS-$( [ "$(nproc)" -ge 2 ] && echo "0 1")}"
pin=()
datadir=$(bs_psql -Atq -c "SHOW data_directory")
for round in 1 2; do
    declare -A T=()
    if [ "${#cpus[@]}" -gt 0 ]; then
        cpu=${cpus[$(((round - 1) % ${#cpus[@]}))]}
        pin=(taskset -c "$cpu")
        taskset -pc "$cpu" "$(head -1 "$datadir/postmaster.pid")" >/dev/null
        echo "round $round: theirs and ours on vCPU $cpu"
    fi
    for b in $BUILDS; do
        if [ "$b" = makefile ]; then   # ~0.1 s a call: fewer calls, the same statistics
            T[$b]=$("${pin[@]}" "$work/drv_$b" $M $m $k $LEVELS "$work/sets_slow.txt" 1 $round 2 "$SAMPLES")
        else
            T[$b]=$("${pin[@]}" "$work/drv_$b" $M $m $k $LEVELS "$work/sets.txt" 1 $round "$BATCH_SETS" "$SAMPLES")
        fi
        echo "theirs ($b, round $round): ${T[$b]}"
    done
    single=$(ours "SELECT count(*) FROM ba_sets, LATERAL bst_sample('ba7', f, 1)" "$SETS")
    dense=$(ours "SELECT count(*) FROM ba_dense, LATERAL bst_sample('ba7', f, 1)" "$SETS")
    batch=$(ours "SELECT count(*) FROM (SELECT f FROM ba_sets ORDER BY id LIMIT $BATCH_SETS) s, bst_sample('ba7', f, $SAMPLES)" $((BATCH_SETS * SAMPLES)))
    s_cpu=$(ours_cpu "SELECT count(*) FROM ba_sets, LATERAL bst_sample('ba7', f, 1)" "$SETS")
    b_cpu=$(ours_cpu "SELECT count(*) FROM (SELECT f FROM ba_sets ORDER BY id LIMIT $BATCH_SETS) s, bst_sample('ba7', f, $SAMPLES)" $((BATCH_SETS * SAMPLES)))
    read -r s_med s_mean <<<"$single"
    read -r d_med d_mean <<<"$dense"
    read -r b_med b_mean <<<"$batch"
    echo "ours (round $round; depth $depth, leaves of $leaf ids; wall us, median and mean of $RUNS runs; load $(cut -d' ' -f1-3 /proc/loadavg)):" \
         "single_median_us=$s_med single_mean_us=$s_mean dense_uncompressed_single_median_us=$d_med" \
         "batch_per_sample_median_us=$b_med batch_per_sample_mean_us=$b_mean;" \
         "CPU time (perf task-clock, mean of $RUNS runs): single_cpu_us=$s_cpu batch_cpu_per_sample_us=$b_cpu"
    echo "  ours, default stored form / dense uncompressed, one sample: $(awk -v a="$s_med" -v b="$d_med" 'BEGIN { printf "%.2f", a / b }')x"
    for b in $BUILDS; do
        echo "  vs theirs $b: per call ${b}'s mean / our median $(ratio "$(field single_mean_us "${T[$b]}")" "$s_med")x" \
             "(${b}'s median $(ratio "$(field single_median_us "${T[$b]}")" "$s_med")x," \
             "all calls' wall / ours $(ratio "$(field single_wall_per_call_us "${T[$b]}")" "$s_med")x);" \
             "per sample in a batch $(ratio "$(field batch_per_sample_us "${T[$b]}")" "$b_med")x"
        [ "$s_cpu" = - ] || [ "$b_cpu" = - ] ||
            echo "  vs theirs $b, CPU time: per call $(ratio "$(field single_cpu_us "${T[$b]}")" "$s_cpu")x;" \
                 "per sample in a batch $(ratio "$(field batch_cpu_per_sample_us "${T[$b]}")" "$b_cpu")x"
    done
done
bs_psql -q -c "SELECT bst_drop('ba7')" -c "DROP TABLE ba_sets, ba_dense" -c "DROP FUNCTION ba_wall_us(text, int, int)" >/dev/null
