#!/usr/bin/env bash
# test/bench/ab_focus.sh -- many rounds of a few statements on several builds
# at once, for a row that ab.sh's few rounds of a whole part cannot settle.
#
#   bash test/bench/ab_focus.sh LABEL=COMMIT LABEL=COMMIT ...
#
# Each commit is exported, built and installed into a private copy of
# $PG_CONFIG's installation (as ab.sh does; one build per distinct commit, so
# A=x A2=x gives an A/A beside the A/B); one throwaway cluster per label, all
# up at once.  Each gets the data of two of make bench's headline rows, made
# by the same statements as their parts:
#   30_bloofi (d), the paper's configuration at N = 10,000 (m = 100,992,
#     k = 7, 100 elements a filter, d = 2, bulk build): a Bloofi lookup and a
#     sequential scan of `f @> x`;
#   60_deletable (b), at 1 % over 10^5 elements: a scan of 10^6 probes
#     against one Bloom, counting Bloom and cuckoo filter.
# Then AB_FOCUS_ROUNDS rounds (default 21), the labels' order rotated each
# round; in a round each label runs one psql script: 25 lookups (5 elements,
# 5 times), 15 sequential scans (5 elements, 3 times), 3 scans of each
# filter, each group after an untimed warm-up; its \timing medians make the
# round's line.  Writes $AB_FOCUS_DIR/rounds.csv and prints, for the first
# label against each other, the medians, the median over rounds of the
# ratio, its quartiles and a permutation test's p (20,000 shuffles of the
# rounds' values between the two labels).  Needs python3.
#
# Environment: PG_CONFIG (default 15's), AB_FOCUS_ROUNDS, AB_FOCUS_PORT
# (first port, default 55480), AB_FOCUS_DIR (default a new /tmp/bs-abf.XXXXXX;
# the builds and clusters in it are removed at the end unless AB_KEEP=1).
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,27p' "$0"; exit 2; }
: "${PG_CONFIG:=/usr/lib/postgresql/15/bin/pg_config}"
: "${AB_FOCUS_ROUNDS:=21}" "${AB_FOCUS_PORT:=55480}"
export LANG=C.UTF-8 LC_ALL=C.UTF-8
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
dir=${AB_FOCUS_DIR:-$(mktemp -d /tmp/bs-abf.XXXXXX)}
mkdir -p "$dir" && chmod a+rx "$dir"
owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

labels=(); declare -A REV PORT BIN
port=$AB_FOCUS_PORT
for arg in "$@"; do
    label=${arg%%=*}; rev=$(git -C "$repo" rev-parse --short "${arg#*=}")
    labels+=("$label"); REV[$label]=$rev; PORT[$label]=$port; port=$((port + 1))
done
# ---- one build per commit ----------------------------------------------------
for label in "${labels[@]}"; do
    rev=${REV[$label]} inst=$dir/pg-${REV[$label]}
    if [ ! -d "$inst" ]; then
        echo "== $rev: $(git -C "$repo" log -1 --format=%s "$rev" | cut -c1-70)"
        rm -rf "$dir/src-$rev" && mkdir -p "$dir/src-$rev"
        git -C "$repo" archive "$rev" | tar -x -C "$dir/src-$rev"
        for key in --bindir --pkglibdir --sharedir; do
            d=$("$PG_CONFIG" $key)
            mkdir -p "$inst$(dirname "$d")" && cp -a "$d" "$inst$d"
        done
        make -s -j2 -C "$dir/src-$rev" PG_CONFIG="$PG_CONFIG" >"$dir/build-$rev.log" 2>&1
        make -s -C "$dir/src-$rev" PG_CONFIG="$PG_CONFIG" DESTDIR="$inst" install >>"$dir/build-$rev.log" 2>&1
    fi
    BIN[$label]=$inst$("$PG_CONFIG" --bindir)
done
chmod -R a+rX "$dir"
# ---- one cluster per label ---------------------------------------------------
stop_all() {
    for label in "${labels[@]}"; do
        owner "${BIN[$label]}/pg_ctl" -D "$dir/cluster-$label/data" -m fast -w stop >/dev/null 2>&1 || true
    done
    [ "${AB_KEEP:-0}" = 1 ] || rm -rf "$dir"/src-* "$dir"/pg-* "$dir"/cluster-*
}
trap stop_all EXIT
q() { local label=$1; shift; "${BIN[$label]}/psql" -X -q -h "$dir/cluster-$label" -p "${PORT[$label]}" -U postgres -d postgres "$@"; }
for label in "${labels[@]}"; do
    c=$dir/cluster-$label
    mkdir -p "$c" && [ "$(id -u)" = 0 ] && chown postgres:postgres "$c"
    owner "${BIN[$label]}/initdb" -D "$c/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync >"$c/initdb.log" 2>&1
    owner "${BIN[$label]}/pg_ctl" -D "$c/data" -l "$c/server.log" -w -o "-k $c -p ${PORT[$label]} \
        -c listen_addresses='' -c fsync=off -c shared_buffers=256MB -c max_parallel_workers_per_gather=0 \
        -c work_mem=64MB -c jit=off -c autovacuum=off -c synchronous_commit=off" start >/dev/null
    q "$label" <<'SQL'
CREATE EXTENSION bloomsample;
CREATE TABLE bp (id int, f bloomfilter);
INSERT INTO bp SELECT i, bloom_from_array(ARRAY(SELECT 100::bigint * i + j FROM generate_series(0, 99) j), 100992, 7)
  FROM generate_series(0, 9999) i;
CREATE INDEX bp_f ON bp USING bloofi (f) WITH ("order" = 2);
VACUUM ANALYZE bp;
CREATE TABLE del_src AS SELECT (hashint8(g) & ((1::bigint << 40) - 1)) AS x FROM generate_series(1, 100000) g;
CREATE TABLE del_probe AS SELECT CASE WHEN g % 2 = 0 THEN (hashint8(g / 2) & ((1::bigint << 40) - 1)) ELSE -g END AS x
  FROM generate_series(1, 1000000) g;
VACUUM (FREEZE, ANALYZE) del_src, del_probe;
CREATE TABLE del_filters AS
  SELECT bloom_agg(x, bloom_optimal_m(100000, 0.01)::int, 7) AS b,
         cbloom_agg(x, bloom_optimal_m(100000, 0.01)::int, 7) AS c,
         cuckoo_agg(x, 100000, 0.01) AS f
  FROM del_src;
SQL
done
# ---- the rounds --------------------------------------------------------------
px=(); for e in 1 2 3 4 5; do px+=("$((e * 123457 % 1000000))"); done
script=$dir/round.sql
{
    echo '\timing on'
    echo "SELECT count(*) FROM bp WHERE f @> ${px[0]}::bigint;"
    for r in 1 2 3 4 5; do for p in "${px[@]}"; do echo "SELECT count(*) FROM bp WHERE f @> $p::bigint;"; done; done
    echo "SET enable_bitmapscan = off; SET enable_indexscan = off;"
    echo "SELECT count(*) FROM bp WHERE f @> ${px[0]}::bigint;"
    for r in 1 2 3; do for p in "${px[@]}"; do echo "SELECT count(*) FROM bp WHERE f @> $p::bigint;"; done; done
    echo "RESET enable_bitmapscan; RESET enable_indexscan;"
    for col in b c f; do
        for r in 0 1 2 3; do echo "SELECT count(*) FROM del_filters, del_probe WHERE $col @> x;"; done
    done
} >"$script"
csv=$dir/rounds.csv
echo "label,commit,round,bloofi_ms,seqscan_ms,scan_bloom_ms,scan_counting_ms,scan_cuckoo_ms,load1" >"$csv"
n=${#labels[@]}
echo "== ${labels[*]}: $AB_FOCUS_ROUNDS rounds; load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= AB_FOCUS_ROUNDS; r++)); do
    for ((i = 0; i < n; i++)); do
        label=${labels[$(((i + r - 1) % n))]}
        q "$label" -f "$script" | grep -o 'Time: [0-9.]*' | awk '{print $2}' | python3 -c '
import sys, statistics as S
t = [float(x) for x in sys.stdin.read().split()]
i = 0
def take(n):
    global i
    r = t[i:i + n]; i += n; return r
take(1); bl = take(25); take(2); take(1); sq = take(15); take(2)
sc = []
for _ in range(3):
    take(1); sc.append(S.median(take(3)))
print(",".join(sys.argv[1:4] + ["%.4f" % S.median(bl), "%.3f" % S.median(sq)] +
               ["%.1f" % x for x in sc] + [open("/proc/loadavg").read().split()[0]]))
' "$label" "${REV[$label]}" "$r" >>"$csv"
    done
done
echo "== load at the end $(cut -d' ' -f1-3 /proc/loadavg); rounds: $csv"
# ---- the comparison ----------------------------------------------------------
python3 - "$csv" "${labels[@]}" <<'PY'
import csv, sys, random, statistics as S
rows = list(csv.DictReader(open(sys.argv[1])))
labels = sys.argv[2:]
by = {l: {int(r["round"]): r for r in rows if r["label"] == l} for l in labels}
rounds = sorted(set.intersection(*[set(v) for v in by.values()]))
quant = [("paper config seqscan / Bloofi", lambda r: float(r["seqscan_ms"]) / float(r["bloofi_ms"])),
         ("  Bloofi lookup ms", lambda r: float(r["bloofi_ms"])),
         ("  sequential scan ms", lambda r: float(r["seqscan_ms"])),
         ("10^6 probes, counting / Bloom", lambda r: float(r["scan_counting_ms"]) / float(r["scan_bloom_ms"])),
         ("10^6 probes, cuckoo / Bloom", lambda r: float(r["scan_cuckoo_ms"]) / float(r["scan_bloom_ms"]))]
random.seed(1)
def perm_p(x, y, n=20000):
    obs = abs(S.median(x) - S.median(y)); z = x + y; c = 0
    for _ in range(n):
        random.shuffle(z)
        c += abs(S.median(z[:len(x)]) - S.median(z[len(x):])) >= obs
    return c / n
base = labels[0]
print("| quantity | " + " | ".join("%s median" % l for l in labels) + " | " +
      " | ".join("%s / %s (quartiles) p" % (l, base) for l in labels[1:]) + " |")
print("|---" * (2 * len(labels)) + "|")
for name, f in quant:
    v = {l: [f(by[l][r]) for r in rounds] for l in labels}
    cells = ["%.4g" % S.median(v[l]) for l in labels]
    for l in labels[1:]:
        rr = [a / b for a, b in zip(v[l], v[base])]
        qq = S.quantiles(rr, n=4)
        cells.append("%.3f (%.2f-%.2f) %.3f" % (S.median(rr), qq[0], qq[2], perm_p(v[l], v[base])))
    print("| %s | %s |" % (name, " | ".join(cells)))
print("(%d rounds)" % len(rounds))
PY
