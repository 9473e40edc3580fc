#!/usr/bin/env bash
# test/bench/19_similarity.sh -- "which tags are most like this one?" (issue 37):
# the 10 filters of a column most similar to a query filter by bloom_jaccard,
# through the GIN index on f (bloomfilter_bits_ops: f && q, a common set bit),
# against ranking the whole column.
#
# The column: 1.7M events in 49,549 tags of 200,000 users (the generator of
# 70_frequency.sh (d): tag popularity log-uniform, users skewed), one filter a
# tag sized for the largest (m = 433,039, k = 3), stored in the default form.
# A filter sharing no set bit with the query has an estimated intersection,
# and so a Jaccard estimate, of 0: the rows the index finds (f && q) hold
# every row of similarity above 0, and the top 10 among them is the exact
# top 10.  For QUERIES tags
# drawn over every size (one per size band of equal count, and the long tail:
# the 99th and 99.9th percentiles and the largest tag), in the same run: the
# full ranking's and the index's
# median time, the ratio (target >= 10x faster), and the recall of the exact
# top 10's rows of similarity above 0 (target >= 0.9).
# Alone: bash test/bench/19_similarity.sh (BENCH_RUNS=, BENCH_SIM_QUERIES=).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$BS_REPO_ROOT"
bench_setup
RUNS=${BENCH_RUNS:-5}
QUERIES=${BENCH_SIM_QUERIES:-12}
EVENTS=${BENCH_GROUP_ROWS:-1700000}
TAGS=49549

echo "== $EVENTS events in $TAGS tags, one filter a tag (m = 433,039, k = 3), GIN on f (f && q)"
bs_psql -q <<SQL
DROP TABLE IF EXISTS sim_events, sim_tags, sim_queries;
DO \$\$ BEGIN PERFORM setseed(0.37); END \$\$;
CREATE TABLE sim_events AS
SELECT tag, (floor(exp(ln(200000) * random() ^ (1 + tag % 3)))::bigint * 7919 + tag::bigint * 104729) % 200000 AS usr
FROM (SELECT g AS tag FROM generate_series(1, $TAGS) g
      UNION ALL
      SELECT floor(exp(random() * ln($TAGS + 1)))::int FROM generate_series(1, $EVENTS - $TAGS)) t;
CREATE TABLE sim_tags AS SELECT tag, bloom_agg(usr, 433039, 3) AS f, count(DISTINCT usr) AS users
FROM sim_events GROUP BY tag;
ALTER TABLE sim_tags ADD PRIMARY KEY (tag);
VACUUM ANALYZE sim_tags;
-- queries over every size: tags at evenly spaced ranks of their user count
CREATE TABLE sim_queries AS
SELECT tag, users FROM (SELECT tag, users, row_number() OVER (PARTITION BY q ORDER BY random()) AS r
                        FROM (SELECT tag, users, ntile($QUERIES) OVER (ORDER BY users, tag) AS q FROM sim_tags) b) s
WHERE r = 1
UNION   -- and the long tail: the tags at the 99th and 99.9th percentiles of size, and the largest
SELECT tag, users FROM (SELECT tag, users, percent_rank() OVER (ORDER BY users, tag) AS pr FROM sim_tags) p
WHERE tag IN ((SELECT tag FROM sim_tags ORDER BY users DESC, tag LIMIT 1))
   OR tag = (SELECT tag FROM (SELECT tag, percent_rank() OVER (ORDER BY users, tag) pr FROM sim_tags) x WHERE pr >= 0.99 ORDER BY pr LIMIT 1)
   OR tag = (SELECT tag FROM (SELECT tag, percent_rank() OVER (ORDER BY users, tag) pr FROM sim_tags) x WHERE pr >= 0.999 ORDER BY pr LIMIT 1);
SQL
build_ms=$( { echo '\timing on'; echo "CREATE INDEX sim_gin ON sim_tags USING gin (f);"; } |
           bs_psql -q | awk '/^Time: / { print $2 }')
bs_psql -q -c "ANALYZE sim_tags"
bs_psql -Atq -F' ' -c "SELECT pg_size_pretty(pg_table_size('sim_tags')), pg_size_pretty(pg_relation_size('sim_gin')),
                             (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY users) FROM sim_tags),
                             (SELECT max(users) FROM sim_tags)" |
    { read -r tsz tunit gsz gunit med mx; echo "table $tsz $tunit, GIN index $gsz $gunit (built in ${build_ms%% *} ms); users a tag: median $med, max $mx"; }

full_q() { echo "SELECT tag FROM sim_tags, (SELECT f AS q FROM sim_tags WHERE tag = $1) q ORDER BY bloom_jaccard(f, q.q) DESC, tag LIMIT 10"; }
gin_q() { echo "SELECT tag FROM sim_tags, (SELECT f AS q FROM sim_tags WHERE tag = $1) q WHERE f && q.q ORDER BY bloom_jaccard(f, q.q) DESC, tag LIMIT 10"; }

# the index is used, and both return the same rows of similarity above 0
first=$(bs_psql -Atq -c "SELECT tag FROM sim_queries LIMIT 1")
bs_psql -Atq -c "EXPLAIN (COSTS OFF) $(gin_q "$first")" | grep -q "Bitmap Index Scan on sim_gin" ||
    { echo "!! the similarity query does not use the GIN index"; exit 1; }

csv=$(bench_csv 19_similarity.csv)
echo "tag,users,full_ms,index_ms,speedup,candidates,exact_positive,recall" > "$csv"
printf '%-7s %7s | %10s %10s %8s | %10s %8s %6s\n' tag users "full ms" "index ms" speedup candidates "J > 0" recall
speedups=()
recalls=()
while read -r tag users; do
    mapfile -t t < <(bench_times "$RUNS" "$(full_q "$tag")" "$(gin_q "$tag")")
    read -r cand exact hit < <(bs_psql -Atq -F' ' -c "
        WITH q AS (SELECT f AS q FROM sim_tags WHERE tag = $tag),
             exact_top AS ($(full_q "$tag")),
             idx_top AS ($(gin_q "$tag")),
             pos AS (SELECT e.tag FROM exact_top e, sim_tags s, q WHERE s.tag = e.tag AND bloom_jaccard(s.f, q.q) > 0)
        SELECT (SELECT count(*) FROM sim_tags, (SELECT f AS q FROM sim_tags WHERE tag = $tag) q
                WHERE f && q.q),
               (SELECT count(*) FROM pos),
               (SELECT count(*) FROM pos WHERE tag IN (SELECT tag FROM idx_top))")
    f=${t[0]%% *}
    g=${t[1]%% *}
    sp=$(awk -v a="$f" -v b="$g" 'BEGIN { printf "%.1f", a / b }')
    rc=$(awk -v e="$exact" -v h="$hit" 'BEGIN { printf "%.2f", (e > 0) ? h / e : 1 }')
    printf '%-7s %7s | %10s %10s %7sx | %10s %8s %6s\n' "$tag" "$users" "$f" "$g" "$sp" "$cand" "$exact" "$rc"
    echo "$tag,$users,$f,$g,$sp,$cand,$exact,$rc" >> "$csv"
    speedups+=("$sp")
    recalls+=("$rc")
done < <(bs_psql -Atq -F' ' -c "SELECT tag, users FROM sim_queries ORDER BY users, tag")
# the size bands (the first QUERIES rows, by size) are the typical queries
med_sp=$(printf '%s\n' "${speedups[@]:0:$QUERIES}" | median)
min_sp=$(printf '%s\n' "${speedups[@]:0:$QUERIES}" | sort -g | head -1)
tail_sp=$(printf '%s\n' "${speedups[@]:$QUERIES}" | sort -g | head -1)
min_rc=$(printf '%s\n' "${recalls[@]}" | sort -g | head -1)
echo "(medians of $RUNS; recall: the index's share of the exact top 10's rows of similarity above 0)"

bench_report \
    "similarity top 10 through GIN (f && q) vs full ranking, median of $QUERIES size bands|${med_sp}x|>= 10|$(bench_verdict "$med_sp" ">=" 10)" \
    "similarity top 10, slowest size band|${min_sp}x|info|-" \
    "similarity top 10, the long tail's slowest (99th percentile and up)|${tail_sp}x|info|-" \
    "similarity top 10, lowest recall|${min_rc}|>= 0.9|$(bench_verdict "$min_rc" ">=" 0.9)"
