#!/usr/bin/env bash
# test/bench/36_bloofi_gin.sh -- Bloofi against GIN through pgbench (issue 21).
#
# Run by test/bench/run.sh (`make bench`), or standalone (builds, installs and
# starts its own throwaway cluster, removed on exit):
#     PG_CONFIG=/path/to/pg_config PORT=55432 bash test/bench/36_bloofi_gin.sh
#
# Three regimes, each one table holding every set twice: as a bloomfilter
# (column f, a Bloofi index) and as the exact bigint[] (column a, a GIN index):
#   dense      N = 100,000 filters of 100 elements, m = 2,397, k = 17 (fp 1e-5),
#              elements of row i = ((100 i + j) * 2654435761) mod 2^40 (the sets
#              of test/bench/30_bloofi.sh part (a))
#   debian     the demo's Debian dependency graph (`apt-cache dumpavail` parsed
#              by test/demo/debian_deps.py; about 63,666 packages), m = 1,024,
#              k = 3; skipped when apt-cache has no package lists
#   synthetic  63,666 sets of least(400, floor(1.5 / random()^0.6)) ids
#              floor(63666 * random()^4) (setseed 0.21), m = 1,024, k = 3
# For each regime:
#   1. oracle: for 20 elements (present and absent) the Bloofi scan returns
#      exactly the rows of a sequential scan (bloom_contains), and at least the
#      rows GIN returns; the plans use the intended index;
#   2. warm lookup latency through pgbench, one client, a custom script whose
#      element is a random `\set` (dense: a random row's random member;
#      debian: a random package id; synthetic: drawn as the ids are):
#      `SELECT count(*) FROM t WHERE f @> :x` against `a @> ARRAY[:x]`, for
#      -M prepared and -M simple, BENCH_T seconds (default 4) per run,
#      alternating Bloofi / GIN, BENCH_ROUNDS (default 3) rounds, medians;
#      both with enable_seqscan = off (the index path is what is compared);
#   3. buffers per lookup (EXPLAIN (ANALYZE, BUFFERS) of the Bitmap Index Scan
#      node, mean over 20 lookups: shared hit + read);
#   4. cold: the server restarted and the OS page cache dropped (when writing
#      /proc/sys/vm/drop_caches is permitted; else said and the cold figure is
#      buffer-cold only), then BENCH_COLD (default 200) random lookups, median
#      ms; once for Bloofi, once for GIN (a restart and drop before each);
#      BENCH_COLD=0 skips it (it needs the right to restart the cluster);
#   5. index sizes;
#   6. dense only, run before the cold step: the index scan node alone for
#      both indexes, and the ANDs of one lookup alone in plain memory
#      (test/bench/bloofi_and_floor.c), the layout's floor, and the streaming
#      floor (the same ANDs a cache line at a time across the k slices, the
#      way the index does them since issue 36; target: the index scan node
#      <= 1.5x it), and the index scan node again with
#      bloomsample.bloofi_and_lines off (dense_floor below).
# Steps 3 and 6 set bloomsample.plan_probe_reuse off, so that the index scan
# node searches (with it on, as in step 2, the plan's probe has searched and
# the node takes what it found).
# Written: text here, $BS_BENCH_RESULTS/36_bloofi_gin.csv
# (regime,metric,bloofi,gin,ratio), and summary lines for run.sh.
# Targets (issue 21): dense lookup / GIN <= 1.0 in both modes, cold <= 2,
# size <= 0.1; debian size <= 1.0 and lookup <= 1.0.
# BENCH_N shrinks dense (and synthetic, to at most BENCH_N sets) for a try;
# BENCH_REGIMES (default "dense debian synthetic") picks regimes.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$BS_REPO_ROOT"
bench_setup

N=${BENCH_N:-100000}
NSYN=$(( N < 63666 ? N : 63666 ))
T=${BENCH_T:-4}
ROUNDS=${BENCH_ROUNDS:-3}
NCOLD=${BENCH_COLD:-200}
REGIMES=${BENCH_REGIMES:-dense debian synthetic}
WORK=$(mktemp -d /tmp/bs-bench36.XXXXXX)
chmod a+rx "$WORK"
CSV=$(bench_csv 36_bloofi_gin.csv)
echo "regime,metric,bloofi,gin,ratio" >"$CSV"
results=()
if [ -n "${BS_BENCH_RUNNER:-}" ]; then
    trap 'rm -rf "$WORK"' EXIT                      # run.sh owns the cluster
else
    trap 'rm -rf "$WORK"; bs_cluster_stop' EXIT     # bench_setup started it
fi

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }
emit() {            # emit REGIME METRIC BLOOFI GIN -> prints the ratio, CSV row
    local r
    r=$(ratio "$3" "$4")
    echo "$1,$2,$3,$4,$r" >>"$CSV"
    echo "$r"
}

# pgbench latency average (ms) of one script
pgb_latency() {     # pgb_latency MODE FILE
    PGOPTIONS="-c enable_seqscan=off -c client_min_messages=warning" \
        "$BS_BINDIR/pgbench" -n -c 1 -M "$1" -T "$T" -f "$2" 2>"$WORK/pgbench.err" |
        awk '/^latency average/ { print $4 }' | grep . ||
        { cat "$WORK/pgbench.err" >&2; return 1; }
}

# the cluster restarted (its own settings kept in postmaster.opts) and, when
# permitted, the OS page cache dropped
restart_cold() {
    local data
    data=$(bs_psql -Atc "SHOW data_directory")
    bs_as_owner "$BS_BINDIR/pg_ctl" -D "$data" -m fast -w restart >/dev/null
    sync
    if [ -z "${DROP_OK+x}" ]; then
        if (echo 3 >/proc/sys/vm/drop_caches) 2>/dev/null; then DROP_OK=1; else DROP_OK=0; fi
    elif [ "$DROP_OK" = 1 ]; then
        echo 3 >/proc/sys/vm/drop_caches
    fi
}

# median ms of the statements of FILE run in one fresh session
session_median() {
    PGOPTIONS="-c enable_seqscan=off -c client_min_messages=warning" \
        bs_psql -q -o /dev/null -f "$1" | awk '/^Time: / { print $2 }' | median
}

# one regime: table TAB (f bloomfilter, a bigint[]) exists and is analysed;
# ELEMS is a file of oracle elements (one a line), SETX the pgbench \set
# lines drawing :x
run_regime() {
    local name=$1 tab=$2 elems=$3 setx=$4
    local x ci cs cg sb sg lb lg mode r rb rg i hb hg cb cg2
    bs_psql -q -c "SET maintenance_work_mem = '256MB'" \
        -c "CREATE INDEX ${tab}_f ON $tab USING bloofi (f)" \
        -c "CREATE INDEX ${tab}_a ON $tab USING gin (a)" -c "ANALYZE $tab"
    read -r sb sg < <(bs_psql -Atc "SELECT pg_relation_size('${tab}_f'), pg_relation_size('${tab}_a')" | tr '|' ' ')
    bs_psql -c "SELECT height, leaves, inner_nodes, bottom_nodes, pages, m, k, root_fill FROM bloofi_stats('${tab}_f')"

    # 1. oracle
    while read -r x; do
        read -r ci cs cg < <(PGOPTIONS="-c enable_seqscan=off" bs_psql -Atc "
            SELECT (SELECT count(*) FROM $tab WHERE f @> $x::bigint),
                   (SELECT count(*) FROM $tab WHERE bloom_contains(f, $x::bigint)),
                   (SELECT count(*) FROM $tab WHERE a @> ARRAY[$x::bigint])" | tail -1 | tr '|' ' ')
        if [ "$ci" != "$cs" ] || [ "$ci" -lt "$cg" ]; then
            echo "!! $name, element $x: bloofi $ci, seqscan $cs, GIN $cg"; exit 1
        fi
    done <"$elems"
    x=$(head -1 "$elems")
    PGOPTIONS="-c enable_seqscan=off" bs_psql -Atc "EXPLAIN (COSTS OFF) SELECT count(*) FROM $tab WHERE f @> $x::bigint" |
        grep -q "Bitmap Index Scan on ${tab}_f" || { echo "!! $name: the plan does not use ${tab}_f"; exit 1; }
    PGOPTIONS="-c enable_seqscan=off" bs_psql -Atc "EXPLAIN (COSTS OFF) SELECT count(*) FROM $tab WHERE a @> ARRAY[$x::bigint]" |
        grep -q "Bitmap Index Scan on ${tab}_a" || { echo "!! $name: the plan does not use ${tab}_a"; exit 1; }

    # 2. warm pgbench latency, alternating
    { echo "$setx"; echo "SELECT count(*) FROM $tab WHERE f @> :x::bigint;"; } >"$WORK/$name-bloofi.sql"
    { echo "$setx"; echo "SELECT count(*) FROM $tab WHERE a @> ARRAY[:x::bigint];"; } >"$WORK/$name-gin.sql"
    chmod a+r "$WORK"/*.sql
    T_SAVE=$T; T=2
    pgb_latency prepared "$WORK/$name-bloofi.sql" >/dev/null     # warm-up: both indexes cached
    pgb_latency prepared "$WORK/$name-gin.sql" >/dev/null
    T=$T_SAVE
    for mode in prepared simple; do
        : >"$WORK/lb"; : >"$WORK/lg"
        for ((i = 0; i < ROUNDS; i++)); do
            pgb_latency $mode "$WORK/$name-bloofi.sql" >>"$WORK/lb"
            pgb_latency $mode "$WORK/$name-gin.sql" >>"$WORK/lg"
        done
        lb=$(median <"$WORK/lb"); lg=$(median <"$WORK/lg")
        r=$(emit "$name" "pgbench_${mode}_ms" "$lb" "$lg")
        printf '   %-9s pgbench -M %-8s bloofi %.4f ms, GIN %.4f ms (medians of %s x %s s; runs: %s / %s): ratio %s\n' \
            "$name" "$mode" "$lb" "$lg" "$ROUNDS" "$T" "$(paste -sd' ' "$WORK/lb")" "$(paste -sd' ' "$WORK/lg")" "$r"
        eval "r_${mode}=\$r"
    done

    # 3. buffers per lookup (the index scan node)
    rb=0; rg=0
    while read -r x; do
        hb=$(PGOPTIONS="-c enable_seqscan=off -c bloomsample.plan_probe_reuse=off" bs_psql -Atc "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF)
             SELECT count(*) FROM $tab WHERE f @> $x::bigint" | awk '/Bitmap Index Scan/ { f = 1; next }
             f && /Buffers:/ { n = 0; for (i = 1; i <= NF; i++) if ($i ~ /^(hit|read)=/) { split($i, p, "="); n += p[2] } print n; exit }
             END { if (!f) print 0 }')
        hg=$(PGOPTIONS="-c enable_seqscan=off" bs_psql -Atc "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF)
             SELECT count(*) FROM $tab WHERE a @> ARRAY[$x::bigint]" | awk '/Bitmap Index Scan/ { f = 1; next }
             f && /Buffers:/ { n = 0; for (i = 1; i <= NF; i++) if ($i ~ /^(hit|read)=/) { split($i, p, "="); n += p[2] } print n; exit }
             END { if (!f) print 0 }')
        rb=$((rb + ${hb:-0})); rg=$((rg + ${hg:-0}))
    done <"$elems"
    i=$(wc -l <"$elems")
    rb=$(awk -v a="$rb" -v n="$i" 'BEGIN { printf "%.1f", a / n }')
    rg=$(awk -v a="$rg" -v n="$i" 'BEGIN { printf "%.1f", a / n }')
    r=$(emit "$name" "index_buffers_per_lookup" "$rb" "$rg")
    printf '   %-9s index buffers per lookup (mean of %s): bloofi %s, GIN %s\n' "$name" "$i" "$rb" "$rg"

    # 6. (dense) the floor, while both indexes are still warm
    [ "$name" = dense ] && dense_floor "$tab"

    # 4. cold
    local r_cold=""
    if [ "$NCOLD" -gt 0 ]; then
        bs_psql -At -c "SELECT setseed(0.5)" -c "SELECT x FROM ($(cold_sql "$tab")) s" |
            grep -E '^[0-9]+$' >"$WORK/cold-elems"
        { echo '\timing on'; while read -r x; do echo "SELECT count(*) FROM $tab WHERE f @> $x::bigint;"; done <"$WORK/cold-elems"; } >"$WORK/cold-bloofi.sql"
        { echo '\timing on'; while read -r x; do echo "SELECT count(*) FROM $tab WHERE a @> ARRAY[$x::bigint];"; done <"$WORK/cold-elems"; } >"$WORK/cold-gin.sql"
        chmod a+r "$WORK"/*.sql
        restart_cold; cb=$(session_median "$WORK/cold-bloofi.sql")
        restart_cold; cg2=$(session_median "$WORK/cold-gin.sql")
        r_cold=$(emit "$name" "cold_median_ms" "$cb" "$cg2")
        printf '   %-9s cold (restart%s, %s lookups, median): bloofi %.3f ms, GIN %.3f ms: ratio %s\n' "$name" \
            "$([ "$DROP_OK" = 1 ] && echo ", OS cache dropped" || echo "; OS cache NOT dropped: not permitted")" \
            "$NCOLD" "$cb" "$cg2" "$r_cold"
    fi

    # 5. sizes
    r=$(emit "$name" "index_bytes" "$sb" "$sg")
    printf '   %-9s index size: bloofi %.2f MB, GIN %.2f MB: ratio %s\n' "$name" \
        "$(awk -v a="$sb" 'BEGIN { print a / 1048576 }')" "$(awk -v a="$sg" 'BEGIN { print a / 1048576 }')" "$r"
    R_SIZE=$r; R_PREP=$r_prepared; R_SIMPLE=$r_simple; R_COLD=$r_cold
}

# SQL drawing NCOLD elements as SETX does (one row per element), for the cold
# run: the \set lines' expressions in SQL
cold_sql() {
    case "$CUR_REGIME" in
        dense) echo "SELECT ((r * 100 + j) * 2654435761) % 1099511627776 AS x FROM (SELECT floor(random() * $N)::bigint + 1 AS r,
                     floor(random() * 100)::bigint AS j FROM generate_series(1, $NCOLD)) q" ;;
        debian) echo "SELECT floor(random() * $NPKG)::bigint + 1 AS x FROM generate_series(1, $NCOLD)" ;;
        synthetic) echo "SELECT floor(63666 * random() ^ 4)::bigint AS x FROM generate_series(1, $NCOLD)" ;;
    esac
}

# 6. (dense) the index scan node alone, Bloofi and GIN (EXPLAIN ANALYZE in a
# PL/pgSQL loop, median over BENCH_FLOOR_LOOKUPS = 300 random lookups after
# 50 of warm-up; run before the cold step, while both indexes are warm), and
# the ANDs of one lookup alone, in plain memory (test/bench/bloofi_and_floor.c:
# the core's kernels over data laid out as the index lays it out, no pins,
# locks or executor): what the bit-sliced layout costs at least, next to what
# GIN's whole index scan costs
dense_floor() {     # dense_floor TAB
    local tab=$1 nf=${BENCH_FLOOR_LOOKUPS:-300} ib ig ib_off fl kb st
    read -r ib ig ib_off < <(PGOPTIONS="-c enable_seqscan=off -c client_min_messages=warning -c bloomsample.plan_probe_reuse=off" bs_psql -qAt \
        -c "CREATE OR REPLACE FUNCTION pg_temp.b36_node_us(cond text, n int) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE j json; t float8[] := '{}'; x bigint;
BEGIN
    PERFORM setseed(0.7);
    FOR i IN 1..n LOOP
        x := ((floor(random() * $N)::bigint + 1) * 100 + floor(random() * 100)::bigint) * 2654435761 % 1099511627776;
        EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) SELECT count(*) FROM $tab WHERE ' || cond INTO j USING x;
        t := t || ((j->0->'Plan'->'Plans'->0->'Plans'->0->>'Actual Total Time')::float8 * 1000);
    END LOOP;
    RETURN (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY u) FROM unnest(t) u);
END \$\$" \
        -c "SELECT pg_temp.b36_node_us('f @> \$1', 50), pg_temp.b36_node_us('a @> ARRAY[\$1]', 50)" \
        -c "SELECT round(pg_temp.b36_node_us('f @> \$1', $nf)::numeric, 1), round(pg_temp.b36_node_us('a @> ARRAY[\$1]', $nf)::numeric, 1)" \
        -c "SET bloomsample.bloofi_and_lines = off" \
        -c "SELECT round(pg_temp.b36_node_us('f @> \$1', $nf)::numeric, 1)" |
        tail -2 | tr '|\n' '  '; echo)
    mkdir -p test/bench/bin
    # shellcheck disable=SC2046
    "$("$PG_CONFIG" --cc | awk '{print $1}')" $("$PG_CONFIG" --cflags) -fPIC -Isrc/core \
        -o test/bench/bin/bloofi_and_floor test/bench/bloofi_and_floor.c src/core/*.c -lm
    test/bench/bin/bloofi_and_floor "$N" >"$WORK/floor"
    fl=$(awk '$1 == "and_us" { print $2 }' "$WORK/floor")
    kb=$(awk '$1 == "kb_per_lookup" { print $2 }' "$WORK/floor")
    st=$(awk '$1 == "stream_us" { print $2 }' "$WORK/floor")
    R_NODE=$(emit dense index_scan_us "$ib" "$ig")
    R_STREAM=$(emit dense index_scan_us_vs_streaming_floor "$ib" "$st")
    R_LINES=$(emit dense index_scan_us_and_lines_on_vs_off "$ib" "$ib_off")
    R_FLOOR=$(emit dense and_floor_us_vs_gin_index_scan "$fl" "$ig")
    printf '   dense     index scan node alone (EXPLAIN ANALYZE, median of %s warm lookups): bloofi %s us, GIN %s us: ratio %s\n' "$nf" "$ib" "$ig" "$R_NODE"
    printf '   dense     the ANDs of one lookup alone in plain memory (bloofi_and_floor.c): %s us, %s kB of slices read: %s x GIN'"'"'s whole index scan\n' "$fl" "$kb" "$R_FLOOR"
    printf '   dense     the same ANDs a cache line at a time across the k slices (the streaming floor): %s us: index scan node / it %s\n' "$st" "$R_STREAM"
    printf '   dense     index scan node with bloomsample.bloofi_and_lines off (a slice at a time): %s us: on / off %s\n' "$ib_off" "$R_LINES"
    results+=("bloofi/GIN dense index scan node alone|$R_NODE|(report)|-")
    results+=("bloofi dense index scan node / streaming floor|$R_STREAM|<= 1.5|$(bench_verdict "$R_STREAM" "<=" 1.5)")
    results+=("bloofi layout floor (the ANDs alone) / GIN dense index scan|$R_FLOOR|(report)|-")
}

summary() {         # summary REGIME: summary lines of the last run_regime
    local name=$1
    if [ "$name" = dense ]; then
        results+=("bloofi/GIN dense lookup, pgbench -M prepared|$R_PREP|<= 1.0|$(bench_verdict "$R_PREP" "<=" 1.0)")
        results+=("bloofi/GIN dense lookup, pgbench -M simple|$R_SIMPLE|<= 1.0|$(bench_verdict "$R_SIMPLE" "<=" 1.0)")
        [ -n "$R_COLD" ] && results+=("bloofi/GIN dense lookup, cold median|$R_COLD|<= 2|$(bench_verdict "$R_COLD" "<=" 2)")
        results+=("bloofi/GIN dense index size|$R_SIZE|<= 0.1|$(bench_verdict "$R_SIZE" "<=" 0.1)")
    else
        results+=("bloofi/GIN $name lookup, pgbench -M prepared|$R_PREP|<= 1.0|$(bench_verdict "$R_PREP" "<=" 1.0)")
        results+=("bloofi/GIN $name lookup, pgbench -M simple|$R_SIMPLE|<= 1.0|$(bench_verdict "$R_SIMPLE" "<=" 1.0)")
        [ -n "$R_COLD" ] && results+=("bloofi/GIN $name lookup, cold median|$R_COLD|(report)|-")
        results+=("bloofi/GIN $name index size|$R_SIZE|<= 1.0|$(bench_verdict "$R_SIZE" "<=" 1.0)")
    fi
}

echo "-- Bloofi vs GIN through pgbench (1 client, -T $T, $ROUNDS alternating rounds); load average $(cut -d' ' -f1-3 /proc/loadavg)"
for CUR_REGIME in $REGIMES; do
    case $CUR_REGIME in
    dense)
        echo "-- dense: N = $N filters of 100 elements, m = 2397, k = 17"
        bench_dense_table b36d "$N"
        for e in $(seq 0 9); do
            echo $(( (( (e * 9973) % N + 1) * 100 + e * 11 % 100) * 2654435761 % 1099511627776 ))
            echo $(( (1 << 41) + e * 7919 ))
        done >"$WORK/elems"
        run_regime dense b36d "$WORK/elems" "\\set r random(1, $N)
\\set j random(0, 99)
\\set x ((:r * 100 + :j) * 2654435761) % 1099511627776"
        summary dense
        bs_psql -q -c "DROP TABLE b36d"
        ;;
    debian)
        mkdir -p "$WORK/deb"
        if command -v apt-cache >/dev/null && apt-cache dumpavail >"$WORK/deb/dumpavail" 2>/dev/null &&
           python3 test/demo/debian_deps.py "$WORK/deb" <"$WORK/deb/dumpavail" >/dev/null &&
           [ "$(wc -l <"$WORK/deb/pkg.tsv")" -ge 1000 ]; then
            chmod -R a+rX "$WORK/deb"
            echo "-- debian: the demo's dependency graph, $(wc -l <"$WORK/deb/pkg.tsv") filters, m = 1024, k = 3"
            bs_psql -q <<SQL
DROP TABLE IF EXISTS b36p_load, b36p;
CREATE TABLE b36p_load (name text, id bigint, dep_ids bigint[]);
\copy b36p_load FROM '$WORK/deb/pkg.tsv'
CREATE TABLE b36p (id bigint, f bloomfilter, a bigint[]);
INSERT INTO b36p SELECT id, bloom_from_array(dep_ids, 1024, 3), dep_ids FROM b36p_load;
DROP TABLE b36p_load;
VACUUM (FREEZE, ANALYZE) b36p;
SQL
            NPKG=$(bs_psql -Atc "SELECT max(id) FROM b36p")
            bs_psql -Atc "SELECT x FROM (SELECT unnest(a) x FROM b36p ORDER BY id LIMIT 400) s
                          GROUP BY x ORDER BY count(*) DESC, x LIMIT 10" >"$WORK/elems"
            for e in $(seq 1 10); do echo $(( (e * 6007) % NPKG + 1 )); done >>"$WORK/elems"
            run_regime debian b36p "$WORK/elems" "\\set x random(1, $NPKG)"
            summary debian
            bs_psql -q -c "DROP TABLE b36p"
        else
            echo "-- debian: skipped (no apt-cache package lists on this machine)"
        fi
        ;;
    synthetic)
        echo "-- synthetic sparse: $NSYN sets of least(400, floor(1.5/random()^0.6)) ids floor(63666*random()^4), m = 1024, k = 3"
        bs_psql -q <<SQL
DROP TABLE IF EXISTS b36s;
SELECT setseed(0.21) AS seeded \\gset
CREATE TABLE b36s (id int, f bloomfilter, a bigint[]);
INSERT INTO b36s
SELECT i, bloom_from_array(arr, 1024, 3), arr
FROM (SELECT i, ARRAY(SELECT floor(63666 * random() ^ 4)::bigint
                      FROM generate_series(1, sz + 0 * i)) AS arr
      FROM (SELECT i, least(400, floor(1.5 / (1.0 - random()) ^ 0.6))::int AS sz
            FROM generate_series(1, $NSYN) i) q) s;
VACUUM (FREEZE, ANALYZE) b36s;
SQL
        bs_psql -Atc "SELECT x FROM (SELECT unnest(a) x FROM b36s WHERE id % 97 = 0) s GROUP BY x
                      ORDER BY count(*) DESC, x LIMIT 10" >"$WORK/elems"
        for e in $(seq 1 10); do echo $(( (e * 6007) % 63666 + 100 )); done >>"$WORK/elems"
        run_regime synthetic b36s "$WORK/elems" "\\set u random(0, 999999999)
\\set x int(63666 * pow(double(:u) / 1000000000.0, 4))"
        summary synthetic
        bs_psql -q -c "DROP TABLE b36s"
        ;;
    esac
done

echo "   load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "   -> $CSV"
bench_report "${results[@]}"
exit 0
