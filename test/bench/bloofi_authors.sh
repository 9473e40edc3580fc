#!/usr/bin/env bash
# test/bench/bloofi_authors.sh -- the paper's search-cost figures, measured
# with the authors' own code.
#
# The Bloofi paper states one search cost in its text (103.16 nodes checked at
# N = 10,000, iterative build) and plots the others (Fig 5, log scale).  The
# authors published the Java code behind those plots (github.com/lemire/bloofi);
# its TestAC with the paper's defaults (m = 100,992 from fp 0.01 and 10,000
# expected elements, k = 7, 100 elements per filter, non-overlapping ranges,
# d = 2, Hamming distance, all-ones no-split rule) reproduces 103.16.  This
# script fetches it at a fixed commit, compiles it and prints, per N and
# build, the mean "Avg steps" of the searches for present elements over
# NB_RUNS runs of 10,000 lookups (the code draws new hash keys per invocation,
# so invocations differ by a few percent: 30_bloofi.sh part (d) compares with
# the lowest mean of five invocations, see test/bench/README.md, Bloofi).
#
# Optional, not part of `make bench`: it needs a JDK (Debian:
# default-jdk-headless) and network access to GitHub, which the extension
# itself does not (or BLOOFI_SRC=/path/to/a/copy of that commit's tree).
#     bash test/bench/bloofi_authors.sh [N ...]      (default: 100 1000 10000)
set -euo pipefail
COMMIT=f08504a
NB_RUNS=${NB_RUNS:-5}
command -v javac >/dev/null || { echo "needs a JDK (apt-get install default-jdk-headless)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=${BLOOFI_SRC:-}
if [ -z "$src" ]; then
    git clone -q https://github.com/lemire/bloofi "$work/bloofi"
    git -C "$work/bloofi" checkout -q "$COMMIT"
    src=$work/bloofi
fi
mkdir -p "$work/out"
# shellcheck disable=SC2046
javac -nowarn -d "$work/out" $(find "$src/src" -name '*.java')
[ $# -gt 0 ] || set -- 100 1000 10000
printf '%8s %10s %12s   %s\n' N build avg_checked per-run
for n in "$@"; do
    for how in i b; do
        java -Xmx8g -cp "$work/out" mvm.provenance.TestAC -bloofi -nbBloomFilters "$n" \
            -bloofiOrder 2 -constructionMethod "$how" -nbYesSearches 10000 -nbNoSearches 10 \
            -nbRuns "$NB_RUNS" 2>&1 |
            grep -o 'Avg steps | [0-9.]*' | awk 'NR % 2 == 1' |  # yes searches, not the no ones
            awk -v n="$n" -v how="$([ $how = i ] && echo iterative || echo bulk)" '
                { s += $4; c++; runs = runs " " $4 }
                END { printf "%8s %10s %12.2f  %s\n", n, how, s / c, runs }'
    done
done
