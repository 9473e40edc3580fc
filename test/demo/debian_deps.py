#!/usr/bin/env python3
"""debian_deps.py -- turn `apt-cache dumpavail` into COPY files for the demo.

Reads the dumpavail text on stdin (one stanza per package, blank-line
separated) and writes, into the directory given as argv[1]:

  pkg.tsv       name <TAB> id <TAB> {dep ids}   one row per package
  edges.tsv     pkg_id <TAB> dep_id             one row per (package, dependency)
  sections.tsv  id <TAB> section                one row per package (its Section:
                field without the archive area, "contrib/net" -> "net";
                "unknown" when it has none)

Package ids are 1..N in name order.  A package's dependency set is the union
of its Depends: and Pre-Depends: fields, where
  - version constraints "(>= 1.0)", architecture lists "[amd64]" and build
    profiles "<!nocheck>" are dropped,
  - architecture qualifiers "python3:any", "libc6:amd64" are stripped,
  - an alternative "a | b" contributes every member (a and b),
  - only names that are packages of the list are kept (virtual packages,
    which no stanza provides under that name, are dropped),
  - duplicates are removed; a package never depends on itself.
Standard library only (no PyPI).
"""
import os
import re
import sys

_STRIP = re.compile(r"\([^)]*\)|\[[^\]]*\]|<[^>]*>")


def stanzas(stream):
    """yield dicts of the fields we need from each stanza (continuation
    lines, starting with a space, are appended to the previous field)"""
    fields, last = {}, None
    for line in stream:
        line = line.rstrip("\n")
        if not line:
            if fields:
                yield fields
            fields, last = {}, None
        elif line[0] in " \t":
            if last is not None:
                fields[last] += " " + line.strip()
        else:
            key, _, value = line.partition(":")
            last = key
            fields[key] = value.strip()
    if fields:
        yield fields


def dep_names(field):
    """the package names of a Depends-style field, alternatives flattened"""
    for clause in _STRIP.sub("", field).split(","):
        for alt in clause.split("|"):
            name = alt.strip().split(":", 1)[0].strip()
            if name:
                yield name


def main():
    outdir = sys.argv[1]
    deps = {}
    section = {}
    for st in stanzas(sys.stdin):
        name = st.get("Package")
        if not name:
            continue
        section.setdefault(name, st.get("Section", "unknown").strip().split("/")[-1] or "unknown")
        names = deps.setdefault(name, set())
        for key in ("Depends", "Pre-Depends"):
            if key in st:
                names.update(dep_names(st[key]))
    ids = {name: i + 1 for i, name in enumerate(sorted(deps))}
    nedges = 0
    with open(os.path.join(outdir, "pkg.tsv"), "w") as pf, \
            open(os.path.join(outdir, "edges.tsv"), "w") as ef:
        for name in sorted(deps):
            pid = ids[name]
            dids = sorted({ids[d] for d in deps[name] if d in ids and d != name})
            pf.write("%s\t%d\t{%s}\n" % (name, pid, ",".join(map(str, dids))))
            for d in dids:
                ef.write("%d\t%d\n" % (pid, d))
            nedges += len(dids)
    with open(os.path.join(outdir, "sections.tsv"), "w") as sf:
        for name in sorted(deps):
            sf.write("%d\t%s\n" % (ids[name], section[name]))
    print("parsed %d packages, %d dependency edges" % (len(ids), nedges))


if __name__ == "__main__":
    main()
