#!/usr/bin/python3
"""Reference implementation of bloomsample's BloomTree (scheme version 1).

An independent second implementation, in another language, of what
docs/bloomtree.md specifies: the breadth-first bit array, the per-filter hash
functions (double hashing over the coefficient sets of the paper's equation 9,
finished by the splitmix64 mixer), insertion and membership, the text form,
and the level-wise range-coded binary form (bloomtree_send / bloomtree_recv).
It generates the test vectors that the C unit tests
(test/unit/bloomtree_vectors.inc) and the pg_regress test
(sql/bloomtree_vectors.sql) check the extension against, and the vector table
of docs/bloomtree.md.

    /usr/bin/python3 test/ref/bloomtree_ref.py --write    regenerate the vector files
    /usr/bin/python3 test/ref/bloomtree_ref.py --check    fail if they are stale
    /usr/bin/python3 test/ref/bloomtree_ref.py --docs     print the docs table

Needs Debian's python3-xxhash.  Element bytes are those of bloom_ref.py.
"""
import struct
import sys
from pathlib import Path

import xxhash

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bloom_ref import ELEMENTS, element_bytes, report, stale_files  # noqa: E402

M64 = (1 << 64) - 1
ROOT = Path(__file__).resolve().parents[2]
VERSION = 1
MODES = ("zero", "one", "range", "raw")


def mix64(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


class Tree:
    """A BloomTree: m[a] bits and k[a] hash functions per filter of level a (0-based)."""

    def __init__(self, m, k, seed=0):
        assert len(m) == len(k) and 1 <= len(m) <= 8
        self.m, self.k, self.seed, self.d = list(m), list(k), seed, len(m)
        self.filters, self.offset, self.coef_base = [], [], []
        nf, off, coef = 1, 0, 0
        for a in range(self.d):
            self.filters.append(nf)
            self.offset.append(off)
            self.coef_base.append(coef)
            off += nf * m[a]
            coef += nf * k[a]
            nf *= m[a]
        self.storage_bits = off
        self.bits = bytearray((off + 7) // 8)

    # ---- bits
    def get(self, i):
        return self.bits[i >> 3] >> (i & 7) & 1

    def set(self, i):
        self.bits[i >> 3] |= 1 << (i & 7)

    def level_bits(self, a):
        return self.filters[a] * self.m[a]

    # ---- hashing
    def key(self, e):
        h = xxhash.xxh3_128_intdigest(element_bytes(e), seed=self.seed & 0xFFFFFFFF)
        return h & M64, h >> 64

    def positions(self, key, a, b):
        """The k[a] positions of filter b of level a (coefficients c = base + b*k + j + 1)."""
        h1, h2 = key
        c0 = self.coef_base[a] + b * self.k[a] + 1
        return [(mix64((h1 + (c0 + j) * h2) & M64) * self.m[a]) >> 64 for j in range(self.k[a])]

    def visits(self, e):
        """(level, filter, positions) of every filter the insertion of e visits, depth first."""
        out = []
        key = self.key(e)

        def rec(a, b):
            pos = self.positions(key, a, b)
            out.append((a, b, pos))
            if a + 1 < self.d:
                for p in dict.fromkeys(pos):  # distinct, in order
                    rec(a + 1, b * self.m[a] + p)
        rec(0, 0)
        return out

    def add(self, e):
        for a, b, pos in self.visits(e):
            for p in pos:
                self.set(self.offset[a] + b * self.m[a] + p)
        return self

    def __contains__(self, e):
        key = self.key(e)

        def rec(a, b):
            pos = self.positions(key, a, b)
            if not all(self.get(self.offset[a] + b * self.m[a] + p) for p in pos):
                return False
            return a + 1 == self.d or all(rec(a + 1, b * self.m[a] + p) for p in dict.fromkeys(pos))
        return rec(0, 0)

    # ---- forms
    def text(self):
        return "m={%s},k={%s},seed=%d,v=%d:%s" % (
            ",".join(map(str, self.m)), ",".join(map(str, self.k)), self.seed, VERSION,
            self.bits.hex())

    def coded_bits(self, a):
        """The bits level a codes: the whole root, else the children of set bits of level a-1."""
        if a == 0:
            return [self.get(i) for i in range(self.m[0])]
        out = []
        for i in range(self.level_bits(a - 1)):
            if self.get(self.offset[a - 1] + i):
                s = self.offset[a] + i * self.m[a]
                out.extend(self.get(s + j) for j in range(self.m[a]))
        return out

    def send(self):
        """The binary form: header, per-level (m, k, mode, prob0, nbytes), streams."""
        head = struct.pack(">BBBBi", VERSION, self.d, 0, 0, self.seed)
        streams = b""
        for a in range(self.d):
            mode, prob0, data = encode_level(self.coded_bits(a))
            head += struct.pack(">IBBHI", self.m[a], self.k[a], mode, prob0, len(data))
            streams += data
        return head + streams


# ---- the level coder -------------------------------------------------------------

def range_encode(bits, prob0):
    """LZMA's range encoder with 16-bit P(0); the first byte out (always 0) is dropped."""
    low, rng, cache, cache_size = 0, 0xFFFFFFFF, 0, 1
    out = bytearray()

    def shift_low():
        nonlocal low, cache, cache_size
        if (low & 0xFFFFFFFF) < 0xFF000000 or (low >> 32) != 0:
            carry = low >> 32
            temp = cache
            while True:
                out.append((temp + carry) & 0xFF)
                temp = 0xFF
                cache_size -= 1
                if cache_size == 0:
                    break
            cache = (low >> 24) & 0xFF
        cache_size += 1
        low = (low & 0x00FFFFFF) << 8

    for bit in bits:
        bound = (rng >> 16) * prob0
        if bit == 0:
            rng = bound
        else:
            low += bound
            rng -= bound
        while rng < (1 << 24):
            rng = (rng << 8) & 0xFFFFFFFF
            shift_low()
    for _ in range(5):
        shift_low()
    assert out[0] == 0
    return bytes(out[1:])


def range_decode(data, prob0, n):
    """Inverse of range_encode; None unless the stream is exactly the bytes read."""
    if len(data) < 4 or data[:4] == b"\xff\xff\xff\xff":
        return None
    code, rng, pos, bits = int.from_bytes(data[:4], "big"), 0xFFFFFFFF, 4, []
    for _ in range(n):
        bound = (rng >> 16) * prob0
        if code < bound:
            rng = bound
            bits.append(0)
        else:
            code -= bound
            rng -= bound
            bits.append(1)
        while rng < (1 << 24):
            if pos >= len(data):
                return None
            rng <<= 8
            code = (code << 8) | data[pos]
            pos += 1
    return bits if pos == len(data) else None


def encode_level(bits):
    """(mode, prob0, bytes) for a level's coded bits, chosen as the C coder chooses."""
    n, ones = len(bits), sum(bits)
    if ones == 0:
        return 0, 0, b""
    if ones == n:
        return 1, 0, b""
    raw_len = (n + 7) // 8
    prob0 = min(65535, max(1, ((n - ones) * 65536 + n // 2) // n))
    data = range_encode(bits, prob0)
    if len(data) < raw_len:
        return 2, prob0, data
    raw = bytearray(raw_len)
    for i, b in enumerate(bits):
        if b:
            raw[i >> 3] |= 1 << (i & 7)
    return 3, 0, bytes(raw)


# ---- the vectors -------------------------------------------------------------------

PARAMS = [
    ([16, 4, 3], [3, 2, 2], 0),
    ([1000, 4, 3], [6, 3, 2], -12345),
    ([64], [3], 0),
    ([100, 70, 2], [2, 1, 1], 7),
]
INTS = list(range(-20, 200, 7))
WORDS = ["apple", "banana", "cherry", "", "Ωmega"]


def c_string(b):
    return "".join("\\x%02x" % x for x in b)


def c_vectors():
    out = ["/* generated by test/ref/bloomtree_ref.py --write: do not edit */"]
    for m, k, seed in PARAMS:
        p = "((VecParams) {%d, {%s}, {%s}, %d})" % (len(m), ", ".join(map(str, m)), ", ".join(map(str, k)), seed)
        for e, _ in ELEMENTS:
            t = Tree(m, k, seed).add(e)
            data = element_bytes(e)
            key = ("bltree_key_int64(&L, INT64_C(%d))" % e if isinstance(e, int)
                   else "bltree_key_bytes(&L, \"%s\", %d)" % (c_string(data), len(data)))
            out.append("VECTOR_ONE(%s, %s, \"%s\", %d);" % (p, key, c_string(t.bits), len(t.bits)))
        t = Tree(m, k, seed)
        for x in INTS:
            t.add(x)
        sent = t.send()
        out.append("VECTOR_CODED(%s, INTS, \"%s\", %d, \"%s\", %d);"
                   % (p, c_string(t.bits), len(t.bits), c_string(sent), len(sent)))
    return "\n".join(out) + "\n"


def sql_lit(e, lit):
    return lit


def sql_vectors():
    out = ["-- generated by test/ref/bloomtree_ref.py --write: do not edit",
           "-- Trees built by the extension must equal, bit for bit, the ones the",
           "-- independent Python implementation builds (test/ref/bloomtree_ref.py),",
           "-- in the text form and in the range-coded binary form.",
           "SET client_min_messages = warning;",
           "CREATE EXTENSION IF NOT EXISTS bloomsample;",
           "RESET client_min_messages;"]
    arr = lambda xs: "ARRAY[%s]" % ",".join(map(str, xs))
    for m, k, seed in PARAMS:
        for e, lit in ELEMENTS:
            t = Tree(m, k, seed).add(e)
            out.append("SELECT bloomtree_add(bloomtree_empty(%s, %s, %d), %s)::text = '%s' AS same;"
                       % (arr(m), arr(k), seed, lit, t.text()))
    for m, k, seed in PARAMS:
        t = Tree(m, k, seed)
        for x in INTS:
            t.add(x)
        out.append("SELECT bloomtree_from_array(%s::bigint[], %s, %s, %d)::text = '%s' AS same_text,"
                   % (arr(INTS), arr(m), arr(k), seed, t.text()))
        out.append("       bloomtree_send(bloomtree_from_array(%s::bigint[], %s, %s, %d)) = '\\x%s'::bytea AS same_binary;"
                   % (arr(INTS), arr(m), arr(k), seed, t.send().hex()))
        # the text form read back is the same tree, and holds every element
        out.append("SELECT count(*) FILTER (WHERE '%s'::bloomtree @> x) AS members FROM unnest(%s::bigint[]) x;"
                   % (t.text(), arr(INTS)))
    t = Tree([256, 3], [4, 2], 99)
    for w in WORDS:
        t.add(w)
    out.append("SELECT bloomtree_from_array(ARRAY[%s], ARRAY[256,3], ARRAY[4,2], 99) = '%s'::bloomtree AS same;"
               % (",".join("'%s'" % w for w in WORDS), t.text()))
    return "\n".join(out) + "\n"


def docs_table():
    m, k, seed = PARAMS[0]
    rows = ["| element | filters visited: (level, filter) → positions |", "|---|---|"]
    for e, lit in ELEMENTS[:5]:
        v = Tree(m, k, seed).visits(e)
        rows.append("| `%s` | %s |" % (lit, "; ".join("(%d,%d)→%s" % (a + 1, b, ",".join(map(str, p)))
                                                   for a, b, p in v)))
    return "\n".join(rows)


FILES = {ROOT / "test/unit/bloomtree_vectors.inc": c_vectors,
         ROOT / "sql/bloomtree_vectors.sql": sql_vectors}


def self_check():
    """The coder round-trips; membership has no false negatives."""
    t = Tree([300, 4, 3], [4, 2, 2], 3)
    for x in range(400):
        t.add(x)
    assert all(x in t for x in range(400))
    for a in range(t.d):
        bits = t.coded_bits(a)
        mode, prob0, data = encode_level(bits)
        if mode == 2:
            assert range_decode(data, prob0, len(bits)) == bits
            assert range_decode(data[:-1], prob0, len(bits)) is None
            assert range_decode(data + b"\0", prob0, len(bits)) is None


def main(argv):
    mode = argv[1] if len(argv) > 1 else "--check"
    if mode == "--docs":
        print(docs_table())
        return 0
    self_check()
    return report(stale_files(FILES, mode), mode, "BloomTree test vectors", "bloomtree_ref.py")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
