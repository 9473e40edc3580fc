#!/usr/bin/env bash
# test/bench/plot.sh (make plots): SVG charts of the benchmarks' CSV files.
#
#   bash test/bench/plot.sh [RESULTS [OUT]]
#
# RESULTS (default test/bench/results) holds one folder per run date
# (test/bench/results/YYYY-MM-DD/, written by the parts through bench_csv in
# lib.sh, with machine.txt); for each chart the newest folder that has its CSV
# file is drawn.  OUT (default docs/plots) receives:
#   bst_sweep.svg      BloomSampleTree (one sample, per sample in a call of 1000,
#                      reconstruction) vs the dictionary attack over the
#                      namespace M (20_bst_sweep.csv)
#   bloofi_latency.svg lookup latency of Bloofi, GIN and a sequential scan over
#                      N filters (30_bloofi_sweep.csv)
#   bloofi_size.svg    index sizes of Bloofi and GIN, and the table's, over N
#   fp_rate.svg        measured vs expected false-positive rate over the fill
#                      ratio (10_type_fp_sweep.csv)
#   form_probe.svg     probe time of the stored form and of the dense form over
#                      the fill, per row and repeated (16_form_probe.csv)
# Each chart's title names the run's date and machine.  Fails when a CSV file
# is missing or malformed or gnuplot reports an error (CI renders the committed
# CSVs: test/run_all.sh).  Needs gnuplot-nox.
set -euo pipefail
cd "$(dirname "$0")/../.."
RESULTS=${1:-test/bench/results}
OUT=${2:-docs/plots}
mkdir -p "$OUT"
command -v gnuplot >/dev/null || { echo "gnuplot not found (apt-get install gnuplot-nox)"; exit 1; }

# newest results folder holding $1
newest() {
    local d
    d=$(ls -d "$RESULTS"/*/ 2>/dev/null | sort -r | while read -r d; do
        [ -f "$d$1" ] && { echo "${d%/}"; break; }; done)
    [ -n "$d" ] || { echo "no $RESULTS/*/$1" >&2; return 1; }
    echo "$d"
}
# "YYYY-MM-DD, N cores, OS" of a results folder
machine() {
    local m=$1/machine.txt
    printf '%s, %s cores, %s' "$(basename "$1")" \
        "$(sed -n 's/^cores: //p' "$m" 2>/dev/null || echo '?')" \
        "$(sed -n 's/^os: //p' "$m" 2>/dev/null | sed 's/ GNU\/Linux//; s/ (.*)//')"
}
# check that a CSV file has its header and at least two rows of numbers
check_csv() {
    local f=$1 header=$2
    [ "$(head -1 "$f")" = "$header" ] || { echo "$f: header is not '$header'"; exit 1; }
    [ "$(tail -n +2 "$f" | grep -cE '^[0-9.e+-]+(,[0-9.e+-]+)*$')" -ge 2 ] ||
        { echo "$f: fewer than two rows of numbers"; exit 1; }
}
run_gnuplot() {        # script on stdin; errors (also warnings) fail the run
    local log
    log=$(mktemp)
    if ! gnuplot 2>"$log" || grep -qiE 'error|warning' "$log"; then
        cat "$log"; rm -f "$log"; echo "gnuplot failed"; exit 1
    fi
    rm -f "$log"
}
COMMON='set terminal svg size 900,440 dynamic font "sans,12" background rgb "white"
set datafile separator ","
set key outside right top vertical box
set grid
set logscale x
set format x "10^{%L}"
set offsets graph 0.04, graph 0.04, 0, 0
set style line 1 lc rgb "#1f77b4" lw 2 pt 7 ps 0.8
set style line 2 lc rgb "#ff7f0e" lw 2 pt 5 ps 0.8
set style line 3 lc rgb "#2ca02c" lw 2 pt 9 ps 0.9
set style line 4 lc rgb "#d62728" lw 2 pt 13 ps 0.9
set style line 5 lc rgb "#9467bd" lw 2 pt 11 ps 0.9'

# ---- BloomSampleTree vs the dictionary attack ---------------------------------
d=$(newest 20_bst_sweep.csv)
csv=$d/20_bst_sweep.csv
check_csv "$csv" "namespace,n,m,build_ms,members,bst_sample1_ms,bst_per_sample_ms,bst_reconstruct_ms,da_sample1_ms,da_reconstruct_ms"
run_gnuplot <<EOF
$COMMON
set output "$OUT/bst_sweep.svg"
set title "BloomSampleTree vs the dictionary attack, n = 1000, accuracy 0.9\n{/*0.8 medians of one run, $(machine "$d") (test/bench/20\\\\_bst.sh)}"
set xlabel "namespace M (ids)"
set ylabel "time per call (ms)"
set logscale y
set format y "10^{%L}"
plot "$csv" using 1:9 skip 1 with linespoints ls 4 title "dictionary attack: one sample", \
     "$csv" using 1:10 skip 1 with linespoints ls 5 title "dictionary attack: reconstruction", \
     "$csv" using 1:8 skip 1 with linespoints ls 3 title "bst\\\\_reconstruct", \
     "$csv" using 1:6 skip 1 with linespoints ls 1 title "bst\\\\_sample: one sample", \
     "$csv" using 1:7 skip 1 with linespoints ls 2 title "bst\\\\_sample: per sample, 1000 in a call"
EOF

# ---- Bloofi vs GIN vs a sequential scan ---------------------------------------
d=$(newest 30_bloofi_sweep.csv)
csv=$d/30_bloofi_sweep.csv
check_csv "$csv" "n,bloofi_ms,gin_ms,seqscan_ms,bloofi_bytes,gin_bytes,table_bytes,bloofi_build_ms,gin_build_ms"
run_gnuplot <<EOF
$COMMON
set output "$OUT/bloofi_latency.svg"
set title "Lookup f \\\\@> x: Bloofi vs GIN vs a sequential scan (m = 2397, k = 17, 100 elements a set)\n{/*0.8 mean of per-element medians, $(machine "$d") (test/bench/30\\\\_bloofi.sh)}"
set xlabel "rows N (filters)"
set ylabel "lookup latency (ms)"
set logscale y
set format y "10^{%L}"
plot "$csv" using 1:4 skip 1 with linespoints ls 4 title "sequential scan", \
     "$csv" using 1:3 skip 1 with linespoints ls 2 title "GIN on the sets as bigint[]", \
     "$csv" using 1:2 skip 1 with linespoints ls 1 title "Bloofi"
EOF
run_gnuplot <<EOF
$COMMON
set output "$OUT/bloofi_size.svg"
set title "Index size: Bloofi vs GIN (m = 2397, k = 17, 100 elements a set)\n{/*0.8 $(machine "$d") (test/bench/30\\\\_bloofi.sh)}"
set xlabel "rows N (filters)"
set ylabel "size (MB)"
set logscale y
set format y "10^{%L}"
plot "$csv" using 1:(\$7/1048576) skip 1 with linespoints ls 5 title "the table (filters and arrays)", \
     "$csv" using 1:(\$6/1048576) skip 1 with linespoints ls 2 title "GIN", \
     "$csv" using 1:(\$5/1048576) skip 1 with linespoints ls 1 title "Bloofi"
EOF

# ---- false-positive rate: measured vs expected ---------------------------------
d=$(newest 10_type_fp_sweep.csv)
csv=$d/10_type_fp_sweep.csv
check_csv "$csv" "k,m,n,fill,probes,measured_fp,expected_fp,posterior_fp"
run_gnuplot <<EOF
$COMMON
set output "$OUT/fp_rate.svg"
set title "False-positive rate over the fill, m = 10,000 bits\n{/*0.8 200,000 non-members a point, $(machine "$d") (test/bench/10\\\\_type.sh)}"
set xlabel "fill ratio t/m (bits set)"
set ylabel "false-positive rate"
unset logscale x
set format x "%.1f"
set xrange [0:1]
set logscale y
set format y "10^{%L}"
plot "$csv" using 4:(\$1 == 3 ? \$7 : 1/0) skip 1 with lines ls 1 title "k = 3: expected (1 - e^{-kn/m})^k", \
     "$csv" using 4:(\$1 == 3 ? (\$6 > 0 ? \$6 : 1/0) : 1/0) skip 1 with points ls 1 pt 6 ps 1.2 title "k = 3: measured", \
     "$csv" using 4:(\$1 == 7 ? \$7 : 1/0) skip 1 with lines ls 2 title "k = 7: expected", \
     "$csv" using 4:(\$1 == 7 ? (\$6 > 0 ? \$6 : 1/0) : 1/0) skip 1 with points ls 2 pt 4 ps 1.2 title "k = 7: measured", \
     "$csv" using 4:(\$1 == 3 ? \$8 : 1/0) skip 1 with lines ls 5 dt 2 title "posterior (t/m)^k of each filter", \
     "$csv" using 4:(\$1 == 7 ? \$8 : 1/0) skip 1 with lines ls 5 dt 2 notitle
EOF
# ---- probe time of the stored forms over the fill ------------------------------
d=$(newest 16_form_probe.csv)
csv=$d/16_form_probe.csv
check_csv "$csv" "elements,fill,stored_sparse,stored_bytes,dense_bytes,row_stored_us,row_dense_us,row_ratio,rep_stored_us,rep_dense_us,rep_ratio"
run_gnuplot <<EOF
$COMMON
set output "$OUT/form_probe.svg"
set title "f \\\\@> x: the stored form vs the dense form, m = 2,000,000, k = 3\n{/*0.8 medians, $(machine "$d") (test/bench/16\\\\_form\\\\_probe.sh); stored sparse left of the dashed line}"
set xlabel "fill (bits set / m)"
set ylabel "time (µs)"
set format x "10^{%L}"
set logscale y
set format y "10^{%L}"
set arrow from 0.1005, graph 0 to 0.1005, graph 1 nohead lc rgb "#888888" dt 2
plot "$csv" using 2:7 skip 1 with linespoints ls 4 title "per row: dense form", \
     "$csv" using 2:6 skip 1 with linespoints ls 1 title "per row: stored form", \
     "$csv" using 2:10 skip 1 with linespoints ls 5 title "repeated: dense form", \
     "$csv" using 2:9 skip 1 with linespoints ls 3 title "repeated: stored form"
EOF

ls -l "$OUT"/*.svg | awk '{ print "  " $NF " (" $5 " bytes)" }'
