#!/usr/bin/python3
"""Reference implementation of the cuckoofilter's element -> (fingerprint,
bucket, alternate bucket) derivation (docs/hashing.md, "Cuckoo filters"), in
both layouts: power of two (XOR) and any bucket count (subtraction mod n).

An independent second implementation of src/core/cuckoo.h's ck_key and
ck_alt_bucket, in Python, that prints the test vectors of docs/hashing.md;
test/unit/test_cuckoo.c holds the same table and checks the C code against it.

    /usr/bin/python3 test/ref/cuckoo_ref.py            print the table (Markdown)
    /usr/bin/python3 test/ref/cuckoo_ref.py --c        print it as C initialisers
    ... --anyn                                         the same for the any-n layout
                                                       (version 2 values, any bucket count)
    /usr/bin/python3 test/ref/cuckoo_ref.py --check    fail unless docs/hashing.md and
                                                       test/unit/test_cuckoo.c hold them

Needs Debian's python3-xxhash.
"""
import sys
import uuid
from pathlib import Path

import xxhash

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from bloom_ref import element_bytes, M64  # noqa: E402


def mix64(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def hashes(e, fp_bits, seed):
    h = xxhash.xxh3_128_intdigest(element_bytes(e), seed=seed & 0xFFFFFFFF)
    h1, h2 = h & M64, h >> 64
    return h1, h2 >> (64 - fp_bits) or 1


def cuckoo_key(e, fp_bits, log2_buckets, seed=0):
    """the power-of-two layout (version 1 values): i2 = i1 XOR h(fp)"""
    h1, fp = hashes(e, fp_bits, seed)
    mask = (1 << log2_buckets) - 1
    i1 = h1 & mask
    i2 = i1 ^ (mix64(fp) & mask)
    return fp, i1, i2


def cuckoo_key_anyn(e, fp_bits, buckets, seed=0):
    """the any-n layout (version 2 values): i2 = (r(fp) - i1) mod n"""
    h1, fp = hashes(e, fp_bits, seed)
    i1 = (h1 * buckets) >> 64
    r = (mix64(fp) * buckets) >> 64
    i2 = (r - i1) % buckets
    return fp, i1, i2


ELEMENTS = [0, 42, -1, "", "hello", "Zürich", b"\x00\xff",
            uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")]
PARAMS = [(10, 10, 0), (16, 4, -12345)]
# the any-n layout: (fp_bits, buckets, seed); 263158 is cuckoo_empty(10^6, 0.001)'s
PARAMS_ANYN = [(10, 1000, 0), (13, 263158, 7), (16, 3, -12345)]


def show(e):
    if isinstance(e, int):
        return "`%s::bigint`" % (e if e >= 0 else "(%d)" % e)
    if isinstance(e, str):
        return "`'%s'::text`" % e
    if isinstance(e, bytes):
        return "`'\\x%s'::bytea`" % e.hex()
    return "`'%s'::uuid`" % e


def c_bytes(e):
    b = element_bytes(e)
    return "(const uint8_t[]){%s}, %d" % (", ".join("0x%02x" % x for x in b) or "0", len(b))


def c_lines(anyn=False):
    out = []
    for f, nb, seed in PARAMS_ANYN if anyn else PARAMS:
        for e in ELEMENTS:
            fp, i1, i2 = (cuckoo_key_anyn if anyn else cuckoo_key)(e, f, nb, seed)
            out.append("\t{%d, %d, %d, %s, %uu, %u, %u}," % (f, nb, seed, c_bytes(e), fp, i1, i2))
    return out


def doc_lines(anyn=False):
    out = ["| element | fp_bits | buckets | seed | fp | i1 | i2 |", "|---|---|---|---|---|---|---|"]
    for f, nb, seed in PARAMS_ANYN if anyn else PARAMS:
        for e in ELEMENTS:
            fp, i1, i2 = (cuckoo_key_anyn if anyn else cuckoo_key)(e, f, nb, seed)
            out.append("| %s | %d | %d | %d | %d | %d | %d |" % (show(e), f, nb if anyn else 1 << nb,
                                                              seed, fp, i1, i2))
    return out


def main():
    if "--check" in sys.argv:
        root = Path(__file__).resolve().parents[2]
        doc = (root / "docs/hashing.md").read_text(encoding="utf-8")
        test = (root / "test/unit/test_cuckoo.c").read_text(encoding="utf-8")
        stale = [p for p, text, lines in (("docs/hashing.md", doc, doc_lines()),
                                          ("docs/hashing.md", doc, doc_lines(True)),
                                          ("test/unit/test_cuckoo.c", test, c_lines()),
                                          ("test/unit/test_cuckoo.c", test, c_lines(True)))
                 if "\n".join(lines) not in text]
        for p in stale:
            print("cuckoo vectors in %s are stale: regenerate with test/ref/cuckoo_ref.py" % p)
        print("cuckoo vectors: %s" % ("STALE" if stale else "ok"))
        sys.exit(1 if stale else 0)
    anyn = "--anyn" in sys.argv
    print("\n".join(c_lines(anyn) if "--c" in sys.argv else doc_lines(anyn)))


if __name__ == "__main__":
    main()
