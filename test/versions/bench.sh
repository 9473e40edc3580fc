#!/usr/bin/env bash
# test/versions/bench.sh: the headline ratios on several PostgreSQL majors in
# one run (issue 35), so that a user on 18 knows the figures measured on 15
# hold there too:
#   (1) Bloofi vs GIN: one lookup through pgbench (-M prepared and -M simple),
#       `f @> :x` against `a @> ARRAY[:x]`, on the dense column of
#       test/bench/36_bloofi_gin.sh (N filters of 100 elements, m = 2,397,
#       k = 17) and, when apt-cache has package lists, the Debian dependency
#       graph (m = 1,024, k = 3, -M prepared only);
#   (2) one bst_sample(t, q, 1) against the dictionary attack's sample,
#       bloom_dictionary_sample(q, 0, M, 1), on test/bench/20_bst.sh's default
#       configuration (M = 10^7, n = 1,000, accuracy 0.9, k = 3);
#   (3) a scan `count(*) WHERE f @> x` against `WHERE x = ANY(arr)` on
#       test/bench/10_type.sh's 100,000 sets of 100 elements (6 probes, the
#       ratio of the sums of the medians).
#
#   bash test/versions/bench.sh PG_CONFIG...     (as root, or a user that may initdb)
#   e.g. bash test/versions/bench.sh /usr/lib/postgresql/15/bin/pg_config \
#                                    /var/cache/bloomsample/pg18/bin/pg_config
#
# bloomsample must be installed in each server already (`make install
# PG_CONFIG=...`; test/versions/run.sh 18 installs it into the cached 18), or
# set BENCH_BUILD=1 to build and install this tree into each in turn (make
# clean first: the tree holds one major's objects at a time).
#
# One throwaway cluster per major (test/bench/lib.sh's settings, ports PORT,
# PORT+1, ...; default 55180), all up at once; each is set up and checked
# against an oracle (the Bloofi scan returns a sequential scan's rows and at
# least GIN's; every bst_sample draw is in the dictionary attack's set; f @> x
# finds at least the rows of x = ANY(arr)), then the measurements run in
# BENCH_PASSES passes (default 3), each pass measuring every major in turn
# (15, 18, 15, 18, ...), so that a load change on a shared machine hits every
# major alike.  Within a pass each comparison is interleaved (bench_times,
# pgbench runs alternating), medians; no timed assertions.
# Prints a markdown row per pass and major (times in ms, ratios as "a / b = r")
# and the load average at each pass.
# Settings: PORT, BENCH_N (dense filters, 100000), BENCH_T (seconds per
# pgbench run, 2), BENCH_ROUNDS (alternating pgbench rounds, 3), BENCH_RUNS
# (bench_times runs, 7), BENCH_PASSES (3), BENCH_DEBIAN (1; 0 skips the graph),
# BENCH_LABELS (the table's name of each server, space separated, in the order
# of the arguments; default its major).  A pass that fails on a server (e.g. its
# cluster stopped from outside) is reported and left out of the table.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
N=${BENCH_N:-100000}
T=${BENCH_T:-2}
ROUNDS=${BENCH_ROUNDS:-3}
RUNS=${BENCH_RUNS:-7}

# ---------------------------------------------------------------------------
# one step on one major: bench.sh --step setup|measure|stop WORKDIR
# (PG_CONFIG and PORT in the environment; WORKDIR/$PORT.dir the cluster's dir)
# ---------------------------------------------------------------------------
if [ "${1:-}" = --step ]; then
    step=$2 W=$3
    . "$HERE/../bench/lib.sh"
    cd "$BS_REPO_ROOT"
    if [ "$step" != setup ]; then
        BS_CLUSTER_DIR=$(cat "$W/$PORT.dir")
        export PGHOST=$BS_CLUSTER_DIR PGPORT=$PORT PGUSER=postgres PGDATABASE=postgres
    fi
    # pgbench's average latency (ms) of script FILE in MODE, index paths only
    pgb() {
        PGOPTIONS="-c enable_seqscan=off -c client_min_messages=warning" \
            "$BS_BINDIR/pgbench" -n -c 1 -M "$1" -T "$2" -f "$3" 2>"$W/$PORT.pgbench.err" |
            awk '/^latency average/ { print $4 }' | grep . || { cat "$W/$PORT.pgbench.err" >&2; return 1; }
    }
    case $step in
    setup)
        if [ "${BENCH_BUILD:-0}" = 1 ]; then
            make -s clean PG_CONFIG="$PG_CONFIG" >/dev/null
            bs_build_install
            make -s clean PG_CONFIG="$PG_CONFIG" >/dev/null
        fi
        bs_cluster_start "${BS_BENCH_SETTINGS[@]}"
        echo "$BS_CLUSTER_DIR" >"$W/$PORT.dir"
        bs_psql -q -c "CREATE EXTENSION bloomsample"
        echo "== $(bs_psql -Atc "SELECT version()" | cut -d' ' -f1-2), bloomsample $(bs_psql -Atc \
            "SELECT extversion FROM pg_extension WHERE extname = 'bloomsample'"): setting up"
        # (1) the dense column under both indexes, and the Debian graph
        bench_dense_table vb_dense "$N"
        bs_psql -q -c "SET maintenance_work_mem = '256MB'" \
            -c "CREATE INDEX vb_dense_f ON vb_dense USING bloofi (f)" \
            -c "CREATE INDEX vb_dense_a ON vb_dense USING gin (a)" -c "ANALYZE vb_dense"
        checks=""
        for e in 0 1 2 3 4; do
            checks="$checks $(( (( (e * 9973) % N + 1) * 100 + e * 11 % 100) * 2654435761 % 1099511627776 ))"
            checks="$checks $(( (1 << 41) + e * 7919 ))"
        done
        tabs="vb_dense"
        if [ -s "$W/deb/pkg.tsv" ]; then
            bs_psql -q <<SQL
CREATE TABLE vb_deb_load (name text, id bigint, dep_ids bigint[]);
\copy vb_deb_load FROM '$W/deb/pkg.tsv'
CREATE TABLE vb_deb (id bigint, f bloomfilter, a bigint[]);
INSERT INTO vb_deb SELECT id, bloom_from_array(dep_ids, 1024, 3), dep_ids FROM vb_deb_load;
DROP TABLE vb_deb_load;
VACUUM (FREEZE, ANALYZE) vb_deb;
SET maintenance_work_mem = '256MB';
CREATE INDEX vb_deb_f ON vb_deb USING bloofi (f);
CREATE INDEX vb_deb_a ON vb_deb USING gin (a);
ANALYZE vb_deb;
SQL
            tabs="$tabs vb_deb"
        fi
        for tab in $tabs; do
            xs=$checks
            [ "$tab" = vb_deb ] && xs=$(bs_psql -Atc "(SELECT x FROM (SELECT unnest(a) x FROM vb_deb) s GROUP BY x
                                                       ORDER BY count(*) DESC, x LIMIT 5) UNION ALL SELECT 1 UNION ALL SELECT 777")
            for x in $xs; do
                read -r ci cs cg < <(PGOPTIONS="-c enable_seqscan=off" bs_psql -AtF' ' -c "
                    SELECT (SELECT count(*) FROM $tab WHERE f @> $x::bigint),
                           (SELECT count(*) FROM $tab WHERE bloom_contains(f, $x::bigint)),
                           (SELECT count(*) FROM $tab WHERE a @> ARRAY[$x::bigint])")
                [ "$ci" = "$cs" ] && [ "$ci" -ge "$cg" ] ||
                    { echo "!! $tab, element $x: bloofi $ci rows, seqscan $cs, GIN $cg" >&2; exit 1; }
            done
            for c in "f @> $x::bigint|${tab}_f" "a @> ARRAY[$x::bigint]|${tab}_a"; do
                PGOPTIONS="-c enable_seqscan=off" bs_psql -Atc "EXPLAIN (COSTS OFF) SELECT count(*) FROM $tab WHERE ${c%|*}" |
                    grep -q "Index Scan on ${c#*|}" || { echo "!! $tab: the plan does not use ${c#*|}" >&2; exit 1; }
            done
        done
        # (2) the tree and its query filter (test/bench/20_bst.sh, cfg d7, n = 1000)
        bs_psql -q <<'SQL'
SET bloomsample.bst_memory_limit = '4GB';
SELECT m AS m7 FROM bst_plan(1000, 10000000, 0.9) \gset
\o /dev/null
SELECT bst_create('vb7', 0, 10000000, :m7, 3);
\o
CREATE TABLE vb_q (id int, q bloomfilter);
INSERT INTO vb_q SELECT 1000, bloom_agg(x, :m7, 3)
FROM (SELECT (hashint8(i * 1000) & 2147483647) % 10000000 AS x FROM generate_series(1, 1000) i) s;
-- medians (ms) of one dictionary-attack sample and of one bst_sample call,
-- interleaved: each of `rounds` rounds (after a warm-up round) times the
-- attack once and bst_sample `per` times (server side, clock_timestamp)
CREATE FUNCTION vb_sample_ms(rounds int, per int, OUT da_ms float8, OUT bst_ms float8)
LANGUAGE plpgsql AS $$
DECLARE da float8[] := '{}'; bs float8[] := '{}'; t0 timestamptz;
BEGIN
  FOR r IN 0..rounds LOOP
    t0 := clock_timestamp();
    PERFORM count(*) FROM vb_q, bloom_dictionary_sample(q, 0, 10000000, 1) WHERE id = 1000;
    IF r > 0 THEN da := da || extract(epoch FROM clock_timestamp() - t0) * 1000; END IF;
    FOR i IN 1..per LOOP
      t0 := clock_timestamp();
      PERFORM count(*) FROM vb_q, bst_sample('vb7', q, 1) WHERE id = 1000;
      IF r > 0 THEN bs := bs || extract(epoch FROM clock_timestamp() - t0) * 1000; END IF;
    END LOOP;
  END LOOP;
  da_ms := (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(da) x);
  bst_ms := (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(bs) x);
END $$;
SQL
        bad=$(bs_psql -Atc "WITH da AS (SELECT bloom_dictionary_attack(q, 0, 10000000) x FROM vb_q)
                            SELECT count(*) FILTER (WHERE x NOT IN (SELECT x FROM da)) || ' ' || count(*)
                            FROM vb_q, bst_sample('vb7', q, 50) x")
        [ "${bad%% *}" = 0 ] && [ "${bad#* }" = 50 ] ||
            { echo "!! bst_sample: $bad (draws outside the dictionary attack's set, draws)" >&2; exit 1; }
        # (3) test/bench/10_type.sh (b): 100,000 sets of 100 elements of [0, 2^24)
        bs_psql -q <<'SQL'
CREATE TABLE vb_sets AS
    SELECT id, ARRAY(SELECT (hashint8(id * 1000 + j) & 16777215)::bigint
                     FROM generate_series(1, 100) j) AS arr
    FROM generate_series(1, 100000) id;
ALTER TABLE vb_sets ADD COLUMN f bloomfilter;
UPDATE vb_sets SET f = bloom_from_array(arr, bloom_optimal_m(100, 0.01)::integer,
                                        bloom_optimal_k(bloom_optimal_m(100, 0.01), 100));
VACUUM (FULL, FREEZE, ANALYZE) vb_sets;
SQL
        bs_psql -Atc "SELECT arr[1 + (id % 100)] FROM vb_sets WHERE id IN (1, 50000, 100000) ORDER BY id" >"$W/$PORT.probes"
        printf '%s\n' -1 -123456789 33554432 >>"$W/$PORT.probes"
        while read -r x; do
            read -r nf na < <(bs_psql -AtF' ' -c "SELECT count(*) FILTER (WHERE f @> ${x}::bigint),
                                                         count(*) FILTER (WHERE ${x}::bigint = ANY(arr)) FROM vb_sets")
            [ "$nf" -ge "$na" ] || { echo "!! vb_sets, x = $x: f @> x $nf rows < x = ANY(arr) $na" >&2; exit 1; }
        done <"$W/$PORT.probes"
        # pgbench scripts, and one warm-up run of each (both indexes cached)
        printf '%s\n' "\\set r random(1, $N)" "\\set j random(0, 99)" \
            "\\set x ((:r * 100 + :j) * 2654435761) % 1099511627776" >"$W/dense.set"
        { cat "$W/dense.set"; echo "SELECT count(*) FROM vb_dense WHERE f @> :x::bigint;"; } >"$W/dense-bloofi.sql"
        { cat "$W/dense.set"; echo "SELECT count(*) FROM vb_dense WHERE a @> ARRAY[:x::bigint];"; } >"$W/dense-gin.sql"
        chmod a+r "$W"/*.sql
        for tab in $tabs; do
            for ix in bloofi gin; do pgb prepared 1 "$W/${tab#vb_}-$ix.sql" >/dev/null; done
        done
        echo "   set up and checked against the oracles"
        ;;
    measure)
        # one pass: a result line "major pass load1 name=value..." to WORKDIR/results
        major=$(bs_psql -Atc "SHOW server_version_num")
        major=$((major / 10000))
        out="${VB_LABEL:-$major} $4 $(cut -d' ' -f1 /proc/loadavg)"
        for mode in prepared simple; do
            : >"$W/$PORT.lb"; : >"$W/$PORT.lg"
            for ((i = 0; i < ROUNDS; i++)); do
                pgb $mode "$T" "$W/dense-bloofi.sql" >>"$W/$PORT.lb"
                pgb $mode "$T" "$W/dense-gin.sql" >>"$W/$PORT.lg"
            done
            out="$out dense_${mode}_bloofi=$(median <"$W/$PORT.lb") dense_${mode}_gin=$(median <"$W/$PORT.lg")"
        done
        if [ -s "$W/deb/pkg.tsv" ]; then
            : >"$W/$PORT.lb"; : >"$W/$PORT.lg"
            for ((i = 0; i < ROUNDS; i++)); do
                pgb prepared "$T" "$W/deb-bloofi.sql" >>"$W/$PORT.lb"
                pgb prepared "$T" "$W/deb-gin.sql" >>"$W/$PORT.lg"
            done
            out="$out deb_prepared_bloofi=$(median <"$W/$PORT.lb") deb_prepared_gin=$(median <"$W/$PORT.lg")"
        fi
        read -r da bst < <(bs_psql -AtF' ' -c "SELECT * FROM vb_sample_ms($RUNS, 5)")
        out="$out da_sample=$da bst_sample=$bst"
        sf=0; sa=0
        while read -r x; do
            mapfile -t t < <(bench_times "$RUNS" "SELECT count(*) FROM vb_sets WHERE f @> ${x}::bigint" \
                                                 "SELECT count(*) FROM vb_sets WHERE ${x}::bigint = ANY(arr)")
            sf=$(awk -v s="$sf" -v a="${t[0]%% *}" 'BEGIN { print s + a }')
            sa=$(awk -v s="$sa" -v a="${t[1]%% *}" 'BEGIN { print s + a }')
        done <"$W/$PORT.probes"
        echo "$out scan_contains=$sf scan_any=$sa" >>"$W/results"
        ;;
    stop)
        bs_cluster_stop
        ;;
    esac
    exit 0
fi

# ---------------------------------------------------------------------------
# the run: every major set up, BENCH_PASSES passes over them, the table
# ---------------------------------------------------------------------------
[ $# -ge 1 ] || { echo "usage: bench.sh PG_CONFIG... (see the header)" >&2; exit 2; }
PORT0=${PORT:-55180}
W=$(mktemp -d /tmp/bs-vbench.XXXXXX)
chmod a+rx "$W"
pcs=("$@")
read -r -a labels <<<"${BENCH_LABELS:-}"
cleanup() {
    local i
    for i in "${!pcs[@]}"; do
        [ -f "$W/$((PORT0 + i)).dir" ] && PG_CONFIG=${pcs[i]} PORT=$((PORT0 + i)) bash "$0" --step stop "$W"
    done
    rm -rf "$W"
}
trap cleanup EXIT
if [ "${BENCH_DEBIAN:-1}" = 1 ]; then
    mkdir -p "$W/deb"
    if command -v apt-cache >/dev/null && apt-cache dumpavail >"$W/deb/dumpavail" 2>/dev/null &&
       python3 "$HERE/../demo/debian_deps.py" "$W/deb" <"$W/deb/dumpavail" >/dev/null &&
       [ "$(wc -l <"$W/deb/pkg.tsv")" -ge 1000 ]; then
        npkg=$(awk -F'\t' '$2 > m { m = $2 } END { print m }' "$W/deb/pkg.tsv")
        echo "\\set x random(1, $npkg)" >"$W/deb.set"
        { cat "$W/deb.set"; echo "SELECT count(*) FROM vb_deb WHERE f @> :x::bigint;"; } >"$W/deb-bloofi.sql"
        { cat "$W/deb.set"; echo "SELECT count(*) FROM vb_deb WHERE a @> ARRAY[:x::bigint];"; } >"$W/deb-gin.sql"
        chmod -R a+rX "$W/deb"
        echo "== the Debian graph: $(wc -l <"$W/deb/pkg.tsv") packages"
    else
        echo "== the Debian graph: skipped (no apt-cache package lists)"
        rm -rf "$W/deb"
    fi
fi
for i in "${!pcs[@]}"; do
    PG_CONFIG=${pcs[i]} PORT=$((PORT0 + i)) bash "$0" --step setup "$W"
done
for ((p = 1; p <= ${BENCH_PASSES:-3}; p++)); do
    for i in "${!pcs[@]}"; do
        echo "== pass $p, $("${pcs[i]}" --version) ($(date -u +%H:%M) UTC, load $(cut -d' ' -f1-3 /proc/loadavg))"
        PG_CONFIG=${pcs[i]} PORT=$((PORT0 + i)) VB_LABEL=${labels[i]:-} bash "$0" --step measure "$W" "$p" ||
            echo "!! pass $p on ${pcs[i]} failed: left out of the table"
        [ -s "$W/results" ] && echo "   $(tail -1 "$W/results")"
    done
done

# the table: a row per pass and major; each figure "a / b = a/b" (ms)
echo
echo "== $(date -u '+%F %H:%M') UTC, $(nproc) cores, load average now $(cut -d' ' -f1-3 /proc/loadavg); ms, medians"
echo "| server | pass | load (1 min) | dense Bloofi / GIN, -M prepared | -M simple | Debian graph Bloofi / GIN, -M prepared | bst_sample / DA sample | f @> x / x = ANY(arr) |"
echo "|---|---|---|---|---|---|---|---|"
sort -s -k1,1 -k2,2n "$W/results" | awk '{
    delete v
    for (i = 4; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    r = "| " $1 " | " $2 " | " $3
    r = r " | " fmt(v["dense_prepared_bloofi"], v["dense_prepared_gin"], 3)
    r = r " | " fmt(v["dense_simple_bloofi"], v["dense_simple_gin"], 3)
    r = r " | " (("deb_prepared_bloofi" in v) ? fmt(v["deb_prepared_bloofi"], v["deb_prepared_gin"], 3) : "skipped")
    r = r " | " sprintf("%.4f / %.1f = 1/%.0f", v["bst_sample"], v["da_sample"], v["da_sample"] / v["bst_sample"])
    r = r " | " fmt(v["scan_contains"], v["scan_any"], 1) " |"
    print r
}
function fmt(a, b, d) { return sprintf("%." d "f / %." d "f = **%.2f**", a, b, a / b) }'
