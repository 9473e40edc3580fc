#!/usr/bin/env bash
# Installs what building and testing bloomsample needs, from Debian's archive.
# Idempotent: skips apt-get entirely when every package is already present.
# dpkg-dev, debhelper, postgresql-server-dev-all (pg_buildext) and lintian build
# and check the Debian package (make deb, test/package/run.sh); gnuplot-nox draws
# the benchmark plots (make plots).
set -euo pipefail
PKGS="build-essential postgresql-15 postgresql-server-dev-15 libxxhash-dev libipc-run-perl
      clang-14 libclang-rt-14-dev python3 python3-xxhash python3-psycopg2 git sqlsmith
      dpkg-dev debhelper postgresql-server-dev-all lintian gnuplot-nox"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "installing:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=600 update -qq
    apt-get -o DPkg::Lock::Timeout=600 install -y -qq $missing >/dev/null
fi
