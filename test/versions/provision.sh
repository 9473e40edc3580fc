#!/usr/bin/env bash
# Provisions the other PostgreSQL majors the tests run against, as root, and
# caches them under a fixed directory (BS_PG_CACHE, /var/cache/bloomsample) so
# that a second run on the same machine skips the work; a fresh machine builds
# them again.  Idempotent: each server is marked complete only after it
# installed whole (a stamp file), an interrupted build starts over.
#
#   bash test/versions/provision.sh [pg18] [pg17]     (both when none is named)
#
#   pg18  PostgreSQL 18 built from Debian's source package (suite sid, read
#         through a private apt state: the machine's sources lists are left as
#         they are) into $BS_PG_CACHE/pg18, with the TAP framework, contrib,
#         OpenSSL and lz4 (PG18_CONFIGURE).
#   pg17  a Debian trixie root (debootstrap, minbase) at $BS_PG_CACHE/trixie
#         holding postgresql-17 and its server headers, a compiler and what the
#         tests need; the extension is built and tested inside it (chroot).
#
# The archive address is the one this machine's apt already uses.
# docs/testing.md (Other PostgreSQL majors) describes how the tests use them.
set -euo pipefail
CACHE=${BS_PG_CACHE:-/var/cache/bloomsample}
export DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8
APT="apt-get -o DPkg::Lock::Timeout=600 -y -qq"

# archive: the first Debian archive URI of this machine's apt sources
archive() {
    local f u
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        u=$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' "$f")
        [ -n "$u" ] && { echo "$u"; return; }
    done
    u=$(awk '$1 == "deb" && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)
    [ -n "$u" ] || { echo "provision.sh: no Debian archive in the apt sources" >&2; exit 1; }
    echo "$u"
}

# need PKG...: installs those of the packages that are missing on the host
need() {
    local p missing=""
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    echo "provision.sh: installing$missing"
    # apt-get update waits for no lock: try again while another apt holds it
    local i
    for i in 1 2 3 4 5 6 7 8 9 10; do $APT update && break; sleep 15; done
    $APT install $missing >/dev/null
}

# configure's options of 18, as Debian builds it where the tests need it (lz4:
# test/t/080_value_limits.pl); the stamp records them, a change rebuilds
PG18_CONFIGURE="--enable-tap-tests --without-icu --with-openssl --with-lz4"

provision_pg18() {
    local dst="$CACHE/pg18" src="$CACHE/src/pg18"
    if [ -f "$dst/.complete" ] && [ "$(cat "$dst/.complete")" = "$PG18_CONFIGURE" ]; then
        echo "provision.sh: PostgreSQL 18 cached in $dst"; return
    fi
    echo "provision.sh: building PostgreSQL 18 into $dst"
    need build-essential bison flex libreadline-dev zlib1g-dev libssl-dev liblz4-dev \
         libipc-run-perl pkg-config dpkg-dev
    rm -rf "$dst" "$src"; mkdir -p "$src/apt/lists/partial" "$src/apt/archives/partial"
    # a private apt state holding only sid's source index
    printf 'deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s sid main\n' \
        "$(archive)" > "$src/apt/sources.list"
    local opts=(-o Dir::Etc::SourceList="$src/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
                -o Dir::State::Lists="$src/apt/lists" -o Dir::Cache::Archives="$src/apt/archives")
    apt-get -qq "${opts[@]}" update
    (cd "$src" && apt-get -qq "${opts[@]}" source --download-only postgresql-18)
    local tarball; tarball=$(ls "$src"/postgresql-18_*.orig.tar.* | head -1)
    mkdir -p "$src/tree" && tar -xf "$tarball" -C "$src/tree" --strip-components=1
    (cd "$src/tree" &&
        ./configure -q --prefix="$dst" $PG18_CONFIGURE >/dev/null &&
        nice make -s -j2 world-bin >/dev/null && make -s install-world-bin >/dev/null)
    rm -rf "$src"
    echo "$PG18_CONFIGURE" > "$dst/.complete"
    echo "provision.sh: PostgreSQL 18 in $dst: $("$dst/bin/postgres" --version)"
}

# packages of the trixie root: the server and its headers, a compiler, xxHash,
# and what the TAP tests and the hashing references use
TRIXIE_PKGS="postgresql-17 postgresql-server-dev-17 build-essential libxxhash-dev
             libipc-run-perl python3 python3-xxhash python3-psycopg2 ca-certificates"

provision_pg17() {
    local root="$CACHE/trixie"
    if [ -f "$root/.complete" ]; then echo "provision.sh: PostgreSQL 17 cached in $root"; return; fi
    echo "provision.sh: debootstrapping trixie with PostgreSQL 17 into $root"
    need debootstrap
    [ -d "$root/proc" ] && umount "$root/proc" 2>/dev/null || true
    rm -rf "$root"; mkdir -p "$root"
    debootstrap --variant=minbase trixie "$root" "$(archive)" >/dev/null
    mount -t proc proc "$root/proc"
    trap 'umount "'"$root"'/proc" 2>/dev/null || true' RETURN
    # the cluster-creating hook of postgresql-common is not wanted: tests make their own
    mkdir -p "$root/etc/postgresql-common"
    echo "create_main_cluster = false" > "$root/etc/postgresql-common/createcluster.conf"
    chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get -qq update
    chroot "$root" env DEBIAN_FRONTEND=noninteractive \
        apt-get -qq -y install --no-install-recommends $TRIXIE_PKGS >/dev/null
    chroot "$root" apt-get -qq clean
    touch "$root/.complete"
    echo "provision.sh: PostgreSQL 17 in $root: $(chroot "$root" /usr/lib/postgresql/17/bin/postgres --version)"
}

what=${*:-pg18 pg17}
for w in $what; do
    case $w in
        pg18) provision_pg18 ;;
        pg17) provision_pg17 ;;
        *) echo "provision.sh: unknown server '$w' (pg18, pg17)" >&2; exit 2 ;;
    esac
done
