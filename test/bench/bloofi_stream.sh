#!/usr/bin/env bash
# test/bench/bloofi_stream.sh -- cold Bloofi lookups with the slice pages read
# page by page against read through a read stream (issue 35): the setting
# bloomsample.bloofi_read_stream off and on, in the same server, interleaved.
# Optional, not run by `make bench` (it restarts its server and drops the OS
# page cache).
# PostgreSQL 17 and later (on 15 and 16, where the setting does nothing, only
# the build part below runs).
#
# Standalone (builds, installs and starts its own throwaway cluster, removed
# on exit), as root (the OS page cache is dropped between sessions):
#     PG_CONFIG=/path/to/18/bin/pg_config PORT=55210 bash test/bench/bloofi_stream.sh
#
# The dense regime of test/bench/36_bloofi_gin.sh (N filters of 100 elements,
# m = 2,397, k = 17: a saturated root over wide bottom nodes, 17 slice pages
# per node visit), BENCH_COLD random present elements (drawn once, setseed).
# For each server configuration of BENCH_CONFIGS (ALTER SYSTEM, restart), for
# BENCH_ROUNDS rounds, each mode (off, on; the order alternates by round):
# the server restarted and the OS page cache dropped (BENCH_DROP=1; 0: the
# server restarted only, its pages still in the OS cache), then one session
# runs the BENCH_COLD lookups as EXPLAIN (ANALYZE, BUFFERS) with
# track_io_timing; per session the medians of the whole statement (psql's
# \timing), of the Bitmap Index Scan node, of its read wait (I/O Timings) and
# of the index pages it read.  Every session's per-lookup row counts must
# equal those of the first session (and the index's must equal a sequential
# scan's for 20 of the elements): a wrong answer stops the script.
# Prints one line per session and, per configuration, the medians over rounds
# and the ratio on / off.  No timed assertions.
# Then (BENCH_PHASES=1, the default) where CREATE INDEX's time goes, for
# the question of a parallel build (17's amcanbuildparallel): BENCH_BUILDS
# (3) builds of a second index on the same table, each phase's time
# (pg_stat_progress_create_index polled every ~10 ms from a second session:
# the time from its first sighting to the next phase's), medians, against a
# plain scan reading every filter (SELECT sum(# f)) measured alongside.  With
# BENCH_CONFIGS="" only this part runs.
# Settings: PG_CONFIG, PORT, BENCH_PHASES (1), BENCH_BUILDS (3), BENCH_N
# (100000), BENCH_COLD (200), BENCH_ROUNDS (3), BENCH_DROP (1), BENCH_CONFIGS
# (space separated; each a comma separated list of name=value; default on 18
# "io_method=sync io_method=worker", on 17 "effective_io_concurrency=1
# effective_io_concurrency=16"; direct I/O, where no OS cache needs dropping:
# BENCH_DROP=0 BENCH_CONFIGS="debug_io_direct=data,io_method=worker").
# docs/bloofi.md ("On newer servers") has the runs of 2026-11-28.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$BS_REPO_ROOT"
N=${BENCH_N:-100000}
NCOLD=${BENCH_COLD:-200}
ROUNDS=${BENCH_ROUNDS:-3}
DROP=${BENCH_DROP:-1}
MAJOR=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
[ "${BENCH_PHASES:-1}" = 1 ] || [ "$MAJOR" -ge 17 ] || { echo "bloofi_stream: nothing to do on $MAJOR"; exit 0; }
case $MAJOR in
    17) CONFIGS=${BENCH_CONFIGS-"effective_io_concurrency=1 effective_io_concurrency=16"} ;;
    *) CONFIGS=${BENCH_CONFIGS-"io_method=sync io_method=worker"} ;;
esac
bench_setup
WORK=$(mktemp -d /tmp/bs-bench-stream.XXXXXX)
chmod a+rx "$WORK"
trap 'rm -rf "$WORK"; bs_cluster_stop' EXIT

# the cluster restarted and, with BENCH_DROP=1, the OS page cache dropped
restart_cold() {
    bs_as_owner "$BS_BINDIR/pg_ctl" -D "$BS_CLUSTER_DIR/data" -m fast -w restart >/dev/null
    sync
    if [ "$DROP" = 1 ]; then echo 3 >/proc/sys/vm/drop_caches; fi
}

# one session of the lookups in $WORK/cold.sql with the setting MODE: prints
# "whole_ms node_ms wait_ms pages_read" medians; the row counts, one a line,
# into FILE
session() {     # session MODE FILE
    PGOPTIONS="-c enable_seqscan=off -c client_min_messages=warning -c track_io_timing=on -c bloomsample.bloofi_read_stream=$1" \
        bs_psql -At -f "$WORK/cold.sql" | awk -v rows="$2" '
        function after(s, key) { if (index(s, key) == 0) return ""; s = substr(s, index(s, key) + length(key)); sub(/[^0-9.].*/, "", s); return s }
        /Bitmap Heap Scan/ { hrows = after($0, "rows=") }
        /Bitmap Index Scan/ { inidx = 1; t = $0; sub(/.*actual time=[0-9.]+\.\./, "", t); sub(/ .*/, "", t); node = t; rd = 0; wt = 0 }
        /^Planning/ { inidx = 0 }
        inidx && /Buffers:/ { v = after($0, "read="); rd = (v == "" ? 0 : v) }
        inidx && /I\/O Timings:/ { v = after($0, "read="); wt = (v == "" ? 0 : v) }
        /^Time: / { n++; W[n] = $2; Nd[n] = node; Wt[n] = wt; R[n] = rd; print hrows + 0 > rows; inidx = 0 }
        function med(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
                                      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
        END { printf "%.3f %.3f %.3f %.1f\n", med(W, n), med(Nd, n), med(Wt, n), med(R, n) }'
}

echo "-- bloofi_stream: PostgreSQL $MAJOR, N = $N dense filters, $NCOLD cold lookups per session, $ROUNDS rounds, OS cache $([ "$DROP" = 1 ] && echo dropped || echo kept); load $(cut -d' ' -f1-3 /proc/loadavg)"
bench_dense_table brs "$N"
bs_psql -q -c "SET maintenance_work_mem = '256MB'" -c "CREATE INDEX brs_f ON brs USING bloofi (f)"
bs_psql -c "SELECT height, leaves, bottom_nodes, pages, m, k FROM bloofi_stats('brs_f')"
bs_psql -At -c "SELECT setseed(0.37)" -c "SELECT ((r * 100 + j) * 2654435761) % 1099511627776
    FROM (SELECT floor(random() * $N)::bigint + 1 AS r, floor(random() * 100)::bigint AS j
          FROM generate_series(1, $NCOLD)) q" | grep -E '^[0-9]+$' >"$WORK/elems"
{ echo '\timing on'
  echo 'SET bloomsample.plan_probe_reuse = off;'
  while read -r x; do echo "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT count(*) FROM brs WHERE f @> $x::bigint;"; done <"$WORK/elems"
} >"$WORK/cold.sql"

# the oracle: the index (stream on, a new session) against a sequential scan
head -20 "$WORK/elems" | while read -r x; do
    read -r ci cs < <(PGOPTIONS="-c bloomsample.bloofi_read_stream=on" bs_psql -Atc "
        SET enable_seqscan = off; SELECT (SELECT count(*) FROM brs WHERE f @> $x::bigint),
        (SELECT count(*) FROM brs WHERE bloom_contains(f, $x::bigint))" | tail -1 | tr '|' ' ')
    [ "$ci" = "$cs" ] || { echo "!! element $x: index $ci rows, sequential scan $cs"; exit 1; }
done

[ "$MAJOR" -ge 17 ] || { echo "-- PostgreSQL $MAJOR has no read stream (17 and later): no cold comparison"; CONFIGS=""; }
for cfg in $CONFIGS; do
    sets=""
    for s in ${cfg//,/ }; do sets="$sets -c \"ALTER SYSTEM SET ${s%%=*} = '${s#*=}'\""; done
    eval bs_psql -q $sets
    restart_cold
    echo "-- $cfg (load $(cut -d' ' -f1-3 /proc/loadavg))"
    : >"$WORK/off" ; : >"$WORK/on"
    for r in $(seq 1 "$ROUNDS"); do
        if [ $((r % 2)) = 1 ]; then order="off on"; else order="on off"; fi
        for mode in $order; do
            restart_cold
            line=$(session "$mode" "$WORK/rows.$mode")
            if [ -f "$WORK/rows.first" ]; then
                cmp -s "$WORK/rows.first" "$WORK/rows.$mode" ||
                    { echo "!! $cfg, stream $mode: row counts differ from the first session's"; exit 1; }
            else
                cp "$WORK/rows.$mode" "$WORK/rows.first"
            fi
            echo "$line" >>"$WORK/$mode"
            printf '   round %d stream %-3s whole %s ms, index scan %s ms, read wait %s ms, pages read %s\n' \
                "$r" "$mode" $line
        done
    done
    for i in 1 2 3 4; do
        off=$(awk -v i=$i '{ print $i }' "$WORK/off" | median)
        on=$(awk -v i=$i '{ print $i }' "$WORK/on" | median)
        name=$(echo "whole index_scan read_wait pages_read" | cut -d' ' -f$i)
        printf '   %-10s medians over rounds: off %s, on %s: on/off %s\n' "$name" "$off" "$on" \
            "$(awk -v a="$on" -v b="$off" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
    done
    bs_psql -q -c "ALTER SYSTEM RESET ALL"
done
# the server's own settings again
[ -z "$CONFIGS" ] || bs_as_owner "$BS_BINDIR/pg_ctl" -D "$BS_CLUSTER_DIR/data" -m fast -w restart >/dev/null

# where CREATE INDEX's time goes (BENCH_PHASES)
[ "${BENCH_PHASES:-1}" = 1 ] || exit 0
echo "-- CREATE INDEX phases ($N filters, maintenance_work_mem 256MB; load $(cut -d' ' -f1-3 /proc/loadavg))"
: >"$WORK/phases"
for b in $(seq 1 "${BENCH_BUILDS:-3}"); do
    bs_psql -q -c "DROP INDEX IF EXISTS brs_g"
    # the poller is psql itself (not a function's subshell), so that kill stops it
    for i in $(seq 1 20000); do
        echo "SELECT extract(epoch FROM clock_timestamp()) || ' ' || coalesce((SELECT replace(phase, ' ', '_') FROM pg_stat_progress_create_index WHERE relid = 'brs'::regclass), '-');"
        echo "SELECT pg_sleep(0.01);"
    done >"$WORK/poll.sql"
    "$BS_BINDIR/psql" -X -At -f "$WORK/poll.sql" >"$WORK/poll" 2>/dev/null &
    poller=$!
    sleep 0.5
    bs_psql -q -c "SET maintenance_work_mem = '256MB'" -c "CREATE INDEX brs_g ON brs USING bloofi (f)"
    sleep 0.2
    kill "$poller" 2>/dev/null || true
    wait "$poller" 2>/dev/null || true
    # phase durations: from a phase's first sighting to the next one's
    awk '$1 ~ /^[0-9.]+$/ { if ($2 != last) { if (last != "" && last != "-") d[last] += $1 - t0; t0 = $1; last = $2; if ($2 != "-") seen[$2] = 1 } }
         END { for (p in d) printf "%s_(s) %.3f\n", p, d[p] }' "$WORK/poll" >>"$WORK/phases"
    read -r scan < <(bench_times 1 "SELECT sum(# f) FROM brs" | awk '{ print $1 }')
    echo "scan_of_the_filters_(ms) $scan" >>"$WORK/phases"
done
for p in $(awk '{ print $1 }' "$WORK/phases" | sort -u); do
    printf '   %-60s median %s\n' "$p" "$(awk -v p="$p" '$1 == p { print $2 }' "$WORK/phases" | median)"
done
