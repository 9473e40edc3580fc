#!/usr/bin/env python3
"""test/bench/real_columns.py -- three real long-tailed set relations from this
machine's Debian metadata, for test/bench/17_real_columns.sh (issue 36).

    python3 test/bench/real_columns.py OUTDIR

writes OUTDIR/{rdeps,srcdeps,files}.tsv, one set a line: name TAB {elem,...}
(a PostgreSQL text[] literal):
  rdeps    a package named in Depends / Pre-Depends / Recommends of the apt
           Packages lists -> the packages that depend on it
  srcdeps  a source package -> the union of its binaries' dependencies
  files    an installed package -> the paths /var/lib/dpkg/info/PKG.list lists
Nothing is committed from them: the numbers move with the package lists.
"""
import sys, re, glob, os, collections, subprocess
out = sys.argv[1]
def pg_arr(xs):
    return '{' + ','.join('"' + x.replace('\\','\\\\').replace('"','\\"') + '"' for x in sorted(xs)) + '}'
def tsv_esc(s):
    return s.replace('\\','\\\\').replace('\t','\\t').replace('\n','\\n')
txt = subprocess.run('lz4cat /var/lib/apt/lists/*_Packages.lz4', shell=True, capture_output=True, text=True).stdout
rdeps = collections.defaultdict(set); srcdeps = collections.defaultdict(set)
for para in txt.split('\n\n'):
    f = {}; last=None
    for line in para.split('\n'):
        if line[:1] in (' ', '\t') or not line: continue
        k, _, v = line.partition(':'); f[k] = v.strip()
    if 'Package' not in f: continue
    pkg = f['Package']; src = f.get('Source', pkg).split(' ')[0]
    deps = set()
    for fld in ('Depends', 'Pre-Depends', 'Recommends'):
        for alt in f.get(fld, '').split(','):
            for d in alt.split('|'):
                d = re.split(r'[ (:\[]', d.strip())[0]
                if d: deps.add(d)
    for d in deps: rdeps[d].add(pkg); srcdeps[src].add(d)
    srcdeps[src]  # every source present
def write(name, rel):
    with open(os.path.join(out, name + '.tsv'), 'w') as fh:
        for k, v in rel.items():
            if v: fh.write(tsv_esc(k) + '\t' + tsv_esc(pg_arr(v)) + '\n')
write('rdeps', rdeps); write('srcdeps', srcdeps)
files = {}
for p in glob.glob('/var/lib/dpkg/info/*.list'):
    files[os.path.basename(p)[:-5]] = set(l.rstrip('\n') for l in open(p, errors='replace') if l.strip())
write('files', files)
