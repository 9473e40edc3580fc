#!/usr/bin/env bash
# test/package/run.sh: the Debian package postgresql-15-bloomsample, as an
# operator installs it (debian/; README.md, Installation).
#
#   1. `make deb`: dpkg-buildpackage (pg_buildext builds the extension; with
#      PACKAGE_BUILD_CHECK=1 it also runs the pg_regress suite against the files
#      it installed into debian/..., which step 4 repeats on the installed
#      package), then lintian, which must report no error;
#   2. removes any `make install` copy of the extension from the PostgreSQL
#      installation of PG_CONFIG (every file the package ships, and anything
#      else named bloomsample* in its extension and library folders);
#   3. installs the package: `dpkg -i`;
#   4. runs the pg_regress suite against the installed files as Debian's
#      autopkgtest does (debian/tests/installcheck: pg_buildext installcheck on
#      a throwaway cluster), and test/t/004_docs.pl and 005_readme.pl (CREATE
#      EXTENSION from the package, every object described, README's getting
#      started) against them;
#   5. `dpkg --purge`, and checks that no file of the package is left;
#   6. installs the `make install` build again, for the steps after this one.
#
# Run as root from a built tree (test/run_all.sh calls it after its other
# steps, in its scratch copy).  Settings (environment):
#   PG_CONFIG        the PostgreSQL 15 the package goes into
#                    (default /usr/lib/postgresql/15/bin/pg_config)
#   PACKAGE_PORT     port of the throwaway clusters (default 54350)
#   PACKAGE_DEB_DIR  where the package is built (default: a temporary folder)
#   PACKAGE_DEB      a package already built (postgresql-15-bloomsample_*.deb):
#                    step 1 is skipped
#   PACKAGE_DRY_RUN=1  leaves the system's packages alone, for a relocated copy
#                    of PostgreSQL (PG_CONFIG under /opt/...): step 3 extracts
#                    the package into that copy (dpkg-deb -x), step 4 runs the
#                    pg_regress suite with --temp-instance of that copy instead
#                    of the autopkgtest, step 5 removes the extracted files.
set -euo pipefail
cd "$(dirname "$0")/../.."
export LANG=C.UTF-8
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
PORT=${PACKAGE_PORT:-54350}
DRY=${PACKAGE_DRY_RUN:-}
PKG=postgresql-15-bloomsample
TREE=$PWD
SCRATCH=$(mktemp -d /tmp/bs-package.XXXXXX)
chmod 755 "$SCRATCH"    # the throwaway clusters' server (user postgres) reads the built files
DEB_DIR=${PACKAGE_DEB_DIR:-$SCRATCH/deb}
t0=$(date +%s)
step() { echo "== package: $* ($(( $(date +%s) - t0 )) s)"; }

# the installation root of PG_CONFIG: '' for the system's, /opt/pg-x for a copy
LIBDIR=$($PG_CONFIG --pkglibdir)
SHAREDIR=$($PG_CONFIG --sharedir)
ROOT=${LIBDIR%/usr/lib/postgresql/15/lib}
[ "$ROOT$(echo /usr/lib/postgresql/15/lib)" = "$LIBDIR" ] ||
    { echo "unexpected pkglibdir $LIBDIR (not .../usr/lib/postgresql/15/lib)"; exit 1; }
if [ -z "$DRY" ] && [ -n "$ROOT" ]; then
    echo "PG_CONFIG is a relocated copy ($ROOT): use PACKAGE_DRY_RUN=1"; exit 1
fi

installed=no            # the package is installed
restore=no              # the make install copy was removed and is not back yet
cleanup() {
    if [ "$installed" = yes ]; then
        echo "== package: removing the package after a failure"
        if [ -z "$DRY" ]; then dpkg --purge "$PKG" >/dev/null || true
        else (cd "$ROOT" && xargs -r rm -f < "$SCRATCH/files") || true; fi
    fi
    if [ "$restore" = yes ]; then
        echo "== package: reinstalling the make install build after a failure"
        make -s -C "$TREE" PG_CONFIG=$PG_CONFIG install >/dev/null || true
    fi
    rm -rf "$SCRATCH"
}
trap cleanup EXIT

step "1. build with dpkg-buildpackage, lintian"
mkdir -p "$DEB_DIR"
if [ -n "${PACKAGE_DEB:-}" ]; then
    echo "  using $PACKAGE_DEB"
    cp "$PACKAGE_DEB" "$DEB_DIR/"
else
    # the build's own run of the pg_regress suite (dh_pgxs_test, against the files
    # installed into debian/...) is skipped by default: step 4 runs the same suite
    # against the installed package.  PACKAGE_BUILD_CHECK=1 runs it too.
    [ "${PACKAGE_BUILD_CHECK:-}" = 1 ] || export DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:+$DEB_BUILD_OPTIONS }nocheck"
    PGPORT=$PORT make -s DEB_DIR="$DEB_DIR" deb > "$SCRATCH/build.log" 2>&1 ||
        { grep -E '^test .* \.\.\. ' "$SCRATCH/build.log" || true; tail -150 "$SCRATCH/build.log"
          echo "make deb failed"; exit 1; }
    grep -E '^(E|W|I): ' "$SCRATCH/build.log" || echo "lintian: nothing to report"
fi
DEB=$(ls "$DEB_DIR"/${PKG}_*.deb)
dpkg-deb -I "$DEB" | sed -n 's/^ \(Package\|Version\|Depends\): /  \1: /p'
# the files the package ships, as paths relative to the root
dpkg-deb --fsys-tarfile "$DEB" | tar -t | grep -v '/$' | sed 's|^\./||' > "$SCRATCH/files"
for f in usr/lib/postgresql/15/lib/bloomsample.so usr/share/postgresql/15/extension/bloomsample.control \
         usr/share/postgresql/15/extension/bloomsample--1.2.sql usr/share/doc/$PKG/copyright; do
    grep -qx "$f" "$SCRATCH/files" || { echo "the package lacks $f"; exit 1; }
done
echo "  $(wc -l < "$SCRATCH/files") files"

step "2. remove the make install copy from $LIBDIR and $SHAREDIR/extension"
restore=yes
(cd "${ROOT:-/}" && xargs -r rm -f < "$SCRATCH/files")
rm -rf "$LIBDIR"/bloomsample.so "$LIBDIR"/bitcode/bloomsample "$LIBDIR"/bitcode/bloomsample.index.bc \
       "$SHAREDIR"/extension/bloomsample[.-]*

step "3. install the package"
installed=yes
if [ -z "$DRY" ]; then
    dpkg -i "$DEB"
    dpkg -s "$PKG" | grep -q '^Status: install ok installed'
else
    dpkg-deb -x "$DEB" "$ROOT"
fi
while read -r f; do [ -e "${ROOT}/$f" ] || { echo "not installed: /$f"; exit 1; }; done < "$SCRATCH/files"

step "4. tests against the installed files"
W="$SCRATCH/tree"
mkdir -p "$W"
tar -C "$TREE" --exclude=./.git --exclude='*.o' --exclude='*.so' --exclude='*.bc' --exclude=./tmp_check \
    --exclude=./results --exclude=./log --exclude=./.tmp --exclude=./tmp_regress --exclude=./test/unit/bin \
    --exclude=./tmp_deb -cf - . | tar -xf - -C "$W"
mkdir -p "$W/.tmp" && chown -R postgres:postgres "$SCRATCH"
if [ -z "$DRY" ]; then
    # Debian's autopkgtest: pg_buildext installcheck (pg_virtualenv)
    (cd "$W" && PGPORT=$PORT debian/tests/installcheck) ||
        { cat "$W"/regression.diffs 2>/dev/null | head -200; exit 1; }
else
    runuser -u postgres -- env TMPDIR="$W/.tmp" make -s -C "$W" PG_CONFIG=$PG_CONFIG installcheck TAP_TESTS= \
        EXTRA_REGRESS_OPTS="--temp-instance=$W/tmp_regress --port=$PORT" ||
        { cat "$W"/regression.diffs 2>/dev/null | head -200; exit 1; }
fi
runuser -u postgres -- env TMPDIR="$W/.tmp" make -s -C "$W" PG_CONFIG=$PG_CONFIG installcheck REGRESS= \
    PROVE_TESTS="test/t/004_docs.pl test/t/005_readme.pl" ||
    { for f in "$W"/tmp_check/log/regress_log_*; do tail -40 "$f"; done; exit 1; }

step "5. remove the package, check that none of its files is left"
if [ -z "$DRY" ]; then
    dpkg --purge "$PKG"
    if dpkg -s "$PKG" >/dev/null 2>&1; then echo "$PKG still known to dpkg"; exit 1; fi
else
    # as dpkg does: the files, then the package's folders that are left empty
    (cd "$ROOT" && xargs -r rm -f < "$SCRATCH/files" &&
     dpkg-deb --fsys-tarfile "$DEB" | tar -t | grep '/$' | sed 's|^\./||' | grep . | sort -r |
         while read -r d; do rmdir --ignore-fail-on-non-empty "$d"; done)
fi
installed=no
left=$(while read -r f; do [ -e "${ROOT}/$f" ] && echo "/$f"; done < "$SCRATCH/files"; true)
left+=$(ls -d "$LIBDIR"/bloomsample* "$LIBDIR"/bitcode/bloomsample* "$SHAREDIR"/extension/bloomsample* \
    "${ROOT}/usr/share/doc/$PKG" 2>/dev/null || true)
[ -z "$left" ] || { echo "left behind after removal:"; echo "$left"; exit 1; }
echo "  nothing left"

step "6. reinstall the make install build"
make -s -C "$TREE" PG_CONFIG=$PG_CONFIG install >/dev/null
restore=no
step "done"
