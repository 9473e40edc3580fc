#!/usr/bin/env bash
# test/bench/bloofi_reliability.sh -- the long runs behind issue 14 and the
# crash loop (not part of `make bench`; the CI versions are
# test/t/033_bloofi_cancel.pl, test/t/034_bloofi_churn.pl and
# test/t/030_bloofi_crash.pl).
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
#   3. Crashes: three tables under 030_bloofi_crash.pl's workload (pgbench
#      inserts, deletes and VACUUM, three clients): narrow filters through the
#      pending list, narrow ones inserted directly (fastupdate off), and
#      filters of m = 433,039 (sparse pending entries, wide SPARSE bottom
#      nodes).  Each round stops the server (immediate) 5-22 s into the
#      workload, restarts it, and runs bloofi_check on each index and
#      compares its lookups with a sequential scan; it counts the indexes
#      left with a flush stopped half-way (a flushing chain).  Such a loop
#      found, in 4 rounds, the state that 039_bloofi_flush_hole.pl now makes
#      certain.
#
#   PG_CONFIG=... PORT=... CRASH_ROUNDS=... bash test/bench/bloofi_reliability.sh [iterations] [part]
#     iterations: of the reproducer (default 500); part: "cancel", "churn" or
#     "crash" (default all three); CRASH_ROUNDS: of part 3 (default 20, about
#     25 s each).  Exit status 1 when a check failed, a lookup differed or a
#     bound was missed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$BS_REPO_ROOT"
ITERS=${1:-500}
PART=${2:-all}
CRASH_ROUNDS=${CRASH_ROUNDS:-20}
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

if [ "$PART" = all ] || [ "$PART" = crash ]; then
    echo "== crashes under a write workload, $CRASH_ROUNDS rounds"
    P <<'SQL'
CREATE OR REPLACE FUNCTION rel_mkw(i bigint) RETURNS bloomfilter LANGUAGE sql IMMUTABLE AS
  $$ SELECT bloom_from_array(ARRAY(SELECT 10 * i + j FROM generate_series(0, 9) j), 433039, 3) $$;
DROP TABLE IF EXISTS cr_t, cr_u, cr_w;
CREATE TABLE cr_t (id bigint, f bloomfilter);
CREATE TABLE cr_u (id bigint, f bloomfilter);
CREATE TABLE cr_w (id bigint, f bloomfilter);
INSERT INTO cr_t SELECT i, rel_mksmall(i) FROM generate_series(1, 3000) i;
INSERT INTO cr_u SELECT i, rel_mksmall(i) FROM generate_series(1, 3000) i;
INSERT INTO cr_w SELECT i, rel_mkw(i) FROM generate_series(1, 1000) i;
CREATE INDEX cr_t_f ON cr_t USING bloofi (f) WITH (order = 3);
CREATE INDEX cr_u_f ON cr_u USING bloofi (f) WITH (order = 3, fastupdate = off);
CREATE INDEX cr_w_f ON cr_w USING bloofi (f);
SQL
    work=$(mktemp -d /tmp/bs-crash.XXXXXX)
    chmod a+rx "$work"
    printf '%s\n' '\set id random(3001, 15000)' 'INSERT INTO cr_t VALUES (:id, rel_mksmall(:id::int));' \
        'INSERT INTO cr_u VALUES (:id, rel_mksmall(:id::int));' 'INSERT INTO cr_w VALUES (:id, rel_mkw(:id));' > "$work/ins.sql"
    printf '%s\n' '\set id random(1, 15000)' 'DELETE FROM cr_t WHERE id = :id;' \
        'DELETE FROM cr_u WHERE id = :id;' 'DELETE FROM cr_w WHERE id = :id;' > "$work/del.sql"
    printf '%s\n' 'VACUUM cr_t;' 'VACUUM cr_u;' 'VACUUM cr_w;' > "$work/vac.sql"
    bad=0; stopped=0
    for ((i = 1; i <= CRASH_ROUNDS; i++)); do
        "$BS_BINDIR/pgbench" -n -c 3 -T 60 -f "$work/ins.sql@10" -f "$work/del.sql@3" \
            -f "$work/vac.sql@1" > "$work/pgbench.log" 2>&1 &
        sleep $((5 + RANDOM % 15))
        P -c "CHECKPOINT"
        sleep $((RANDOM % 4))
        bs_cluster_crash_restart
        wait || true
        line="round $i:"
        for t in cr_t cr_u cr_w; do
            fl=$(P -c "SELECT flushing FROM bloofi_stats('${t}_f')")
            [ "$fl" = 0 ] || stopped=$((stopped + 1))
            if ! out=$(P -c "SELECT bloofi_check('${t}_f')" 2>&1); then
                echo "round $i, $t: $out"; bad=$((bad + 1))
            fi
            d=$(seqscan_diff "$t" 150000)
            [ "$d" = 0 ] || { echo "round $i, $t: $d differences between the index and a sequential scan"; bad=$((bad + 1)); }
            line="$line $t flushing $fl, differences $d;"
        done
        echo "$line"
        # bounded tables: the rows inserted this round go, VACUUM completes any flush
        P -c "DELETE FROM cr_t WHERE id > 8000" -c "DELETE FROM cr_u WHERE id > 8000" \
            -c "DELETE FROM cr_w WHERE id > 8000" -c "VACUUM cr_t" -c "VACUUM cr_u" -c "VACUUM cr_w"
    done
    rm -rf "$work"
    echo "rounds $CRASH_ROUNDS: stopped flushes found after the crash $stopped, check failures and lookup differences $bad"
    [ "$bad" = 0 ] || fail=1
fi
exit $fail
