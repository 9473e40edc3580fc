#!/usr/bin/env bash
# test/bench/bloofi_reliability.sh -- the long runs behind issue 14 (not part
# of `make bench`; the CI versions are test/t/033_bloofi_cancel.pl and
# test/t/034_bloofi_churn.pl).
#
#   1. The issue's reproducer: a 300-row table of m = 100,992-bit filters
#      under a bloofi index of order 2; each iteration is one psql session
#      running "SET statement_timeout = <5..85>ms; UPDATE ... WHERE id % 5 =
#      <0..4>" (a random element added to a fifth of the rows) and another
#      running bloofi_check.  Reports the cancelled writes and every check
#      failure; at the end lookups through the index must equal a sequential
#      scan.  Before issue 14 the check failed within 10-90 iterations.
#   2. Churn: 10 rounds of updating every row, VACUUM between rounds, for
#      the same table at order 2 and 32 and for 3,000 rows of 4,096-bit
#      filters (order 32, pending list on): index size after each VACUUM
#      against a fresh build of the same table, UPDATE and VACUUM times
#      (medians) and the index blocks VACUUM read.  Timings are noisy on a
#      shared machine: compare them within one run.
#
#   PG_CONFIG=... PORT=... bash test/bench/bloofi_reliability.sh [iterations] [part]
#     iterations: of the reproducer (default 500); part: "cancel" or "churn"
#     (default both).  Exit status 1 when a check failed or a bound was missed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$BS_REPO_ROOT"
ITERS=${1:-500}
PART=${2:-all}
bench_setup

fail=0
P() { bs_psql -qAt "$@"; }

P <<'SQL'
CREATE OR REPLACE FUNCTION rel_mkbig(i int) RETURNS bloomfilter LANGUAGE sql IMMUTABLE AS
  $$ SELECT bloom_from_array(ARRAY(SELECT 100 * i + j FROM generate_series(0, 99) j)::bigint[], 100992, 7) $$;
CREATE OR REPLACE FUNCTION rel_mksmall(i int) RETURNS bloomfilter LANGUAGE sql IMMUTABLE AS
  $$ SELECT bloom_from_array(ARRAY(SELECT 10 * i + j FROM generate_series(0, 9) j)::bigint[], 4096, 5) $$;
SQL

# index results = sequential scan results for probes 0..max step 37; prints the difference
seqscan_diff() {
    P -c "
      CREATE TEMP TABLE probe AS SELECT x::bigint FROM generate_series(0, $2, 37) x;
      SET enable_seqscan = off; SET enable_indexscan = off;
      CREATE TEMP TABLE vi AS SELECT p.x, t.id FROM probe p JOIN $1 t ON t.f @> p.x;
      SET enable_seqscan = on; SET enable_bitmapscan = off;
      CREATE TEMP TABLE vs AS SELECT p.x, t.id FROM probe p JOIN $1 t ON bloom_contains(t.f, p.x);
      SELECT (SELECT count(*) FROM (SELECT * FROM vi EXCEPT ALL SELECT * FROM vs) a) +
             (SELECT count(*) FROM (SELECT * FROM vs EXCEPT ALL SELECT * FROM vi) b)"
}

if [ "$PART" = all ] || [ "$PART" = cancel ]; then
    echo "== the issue's reproducer, $ITERS iterations"
    P -c "DROP TABLE IF EXISTS st2;
          CREATE TABLE st2 (id int PRIMARY KEY, f bloomfilter) WITH (autovacuum_enabled = off);
          INSERT INTO st2 SELECT i, rel_mkbig(i) FROM generate_series(0, 299) i;
          CREATE INDEX st2_f ON st2 USING bloofi (f) WITH (order = 2);"
    cancelled=0; done_ok=0; bad=0
    for ((i = 1; i <= ITERS; i++)); do
        t=$((5 + RANDOM % 81)); r=$((RANDOM % 5)); x=$(((RANDOM << 30) ^ (RANDOM << 15) ^ RANDOM))
        if out=$(P -c "SET statement_timeout = '${t}ms'; UPDATE st2 SET f = bloom_add(f, ${x}::bigint) WHERE id % 5 = $r" 2>&1); then
            done_ok=$((done_ok + 1))
        elif [[ "$out" == *"canceling statement"* ]]; then
            cancelled=$((cancelled + 1))
        else
            echo "iteration $i: UPDATE failed: $out"; bad=$((bad + 1))
        fi
        if ! out=$(P -c "SELECT bloofi_check('st2_f')" 2>&1); then
            echo "iteration $i: $out"; bad=$((bad + 1))
        fi
    done
    d=$(seqscan_diff st2 30000)
    echo "iterations $ITERS: $cancelled cancelled, $done_ok completed, bloofi_check failures $bad, index vs sequential scan differences $d"
    P -c "SELECT 'stats: pages ' || pages || ', leaves ' || leaves || ', retired pages ' || retired_pages || ', free pages ' || free_pages FROM bloofi_stats('st2_f')"
    [ "$bad" = 0 ] && [ "$d" = 0 ] || fail=1
fi

if [ "$PART" = all ] || [ "$PART" = churn ]; then
    churn() {   # table rows mk order fastupdate
        local t=$1 rows=$2 mk=$3 opts="order = $4, fastupdate = $5" built fresh after vac
        local ut=() vt=() sizes=() reads=()
        P -c "DROP TABLE IF EXISTS $t;
              CREATE TABLE $t (id int PRIMARY KEY, f bloomfilter) WITH (autovacuum_enabled = off);
              INSERT INTO $t SELECT i, $mk(i) FROM generate_series(0, $rows - 1) i;
              CREATE INDEX ${t}_f ON $t USING bloofi (f) WITH ($opts);"
        built=$(P -c "SELECT pg_relation_size('${t}_f') / 8192")
        for round in $(seq 1 10); do
            local b0 b1 s e
            s=$(date +%s%N); P -c "UPDATE $t SET f = bloom_add(f, (1000000 * $round + id)::bigint)"; e=$(date +%s%N)
            ut+=("$(( (e - s) / 1000000 ))")
            b0=$(P -c "SELECT coalesce(idx_blks_read + idx_blks_hit, 0) FROM pg_statio_user_indexes WHERE indexrelname = '${t}_f'")
            s=$(date +%s%N); P -c "VACUUM $t"; e=$(date +%s%N)
            vt+=("$(( (e - s) / 1000000 ))")
            sleep 0.2
            b1=$(P -c "SELECT coalesce(idx_blks_read + idx_blks_hit, 0) FROM pg_statio_user_indexes WHERE indexrelname = '${t}_f'")
            reads+=("$((b1 - b0))")
            sizes+=("$(P -c "SELECT pg_relation_size('${t}_f') / 8192")")
        done
        P -c "SELECT bloofi_check('${t}_f')" >/dev/null || { echo "$t: bloofi_check failed"; fail=1; }
        P -c "CREATE INDEX ${t}_fresh ON $t USING bloofi (f) WITH ($opts)"
        fresh=$(P -c "SELECT pg_relation_size('${t}_fresh') / 8192")
        P -c "DROP INDEX ${t}_fresh"
        after=${sizes[9]}
        echo "$t ($rows rows, $opts): built $built pages, fresh build $fresh; after each VACUUM: ${sizes[*]}"
        echo "   ratio to the fresh build after round 10: $(echo "scale=2; $after / $fresh" | bc)"
        echo "   VACUUM ms per round: ${vt[*]} (median $(printf '%s\n' "${vt[@]}" | median))"
        echo "   UPDATE ms per round: ${ut[*]} (median $(printf '%s\n' "${ut[@]}" | median))"
        echo "   index blocks VACUUM read per round: ${reads[*]}"
        [ "$(echo "$after <= 1.5 * $fresh" | bc)" = 1 ] || { echo "   !! above 1.5x the fresh build"; fail=1; }
        echo "   index vs sequential scan differences: $(seqscan_diff "$t" $((100 * rows)))"
    }
    echo "== churn: 10 rounds of updating every row, VACUUM between rounds"
    churn ch2 300 rel_mkbig 2 off
    churn ch32 300 rel_mkbig 32 off
    churn chs 3000 rel_mksmall 32 on
fi
exit $fail
