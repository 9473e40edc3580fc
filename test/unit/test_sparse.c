/*
 * test_sparse.c
 *    Unit tests of the sparse (Elias-Fano) form of a filter's bits against
 *    the dense bit array as the oracle: encoding sizes, round trips, probes of
 *    every position, an independent bit-by-bit encoder for every low-bit
 *    width, and corrupted encodings (every error code; under
 *    unitcheck-sanitize, no read outside the exactly-sized buffer).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bs_bits.h"
#include "bs_sparse.h"
#include "unit.h"

static unsigned long long rng_state = 20;

/* a random m-bit array with about n set bits; returns its popcount */
static uint32_t
random_bits(uint8_t *bits, uint32_t m, uint64_t n)
{
	memset(bits, 0, 8 * bs_words_for_bits(m));
	for (uint64_t i = 0; i < n; i++)
		bs_bit_set(bits, (uint32_t) (unit_splitmix64(&rng_state) % m));
	return (uint32_t) bs_popcount(bits, bs_words_for_bits(m));
}

/*
 * A zeroed encoding of len bytes with its 5-byte head written: the count n
 * (little-endian) and the low-bit width l.
 */
static uint8_t *
zeroed_with_head(size_t len, uint32_t n, int l)
{
	uint8_t    *out = calloc(1, len);

	out[0] = n & 0xFF;
	out[1] = (n >> 8) & 0xFF;
	out[2] = (n >> 16) & 0xFF;
	out[3] = n >> 24;
	out[4] = (uint8_t) l;
	return out;
}

/*
 * The reference encoder: the layout of bs_sparse.h written bit by bit with
 * any low-bit width l; returns a malloc'd buffer of exactly *len bytes.
 */
static uint8_t *
ref_encode(const uint8_t *bits, uint32_t m, int l, size_t *len)
{
	uint32_t	n = 0;
	uint64_t	low_bits,
				high_bits;
	uint8_t    *out;
	uint64_t	i = 0;

	for (uint32_t p = 0; p < m; p++)
		n += bs_bit_test(bits, p);
	low_bits = (uint64_t) n * l;
	high_bits = n + (((uint64_t) m - 1) >> l) + 1;
	*len = 5 + (low_bits + 7) / 8 + (high_bits + 7) / 8;
	out = zeroed_with_head(*len, n, l);
	for (uint32_t p = 0; p < m; p++)
	{
		uint64_t	hb;

		if (!bs_bit_test(bits, p))
			continue;
		for (int b = 0; b < l; b++)
			if ((p >> b) & 1)
				bs_bit_set(out + 5, (uint32_t) (i * l + b));
		hb = (p >> l) + i;
		bs_bit_set(out + 5 + (low_bits + 7) / 8, (uint32_t) hb);
		i++;
	}
	return out;
}

/*
 * An encoding written field by field, right or wrong: head n and l, low
 * fields lows[0..n-1], high bits hb[0..nhb-1]; exactly sized for m.
 */
static uint8_t *
raw_encode(uint32_t m, int l, uint32_t n, const uint32_t *lows, const uint32_t *hb,
		   int nhb, size_t *len)
{
	uint64_t	low_bytes = ((uint64_t) n * l + 7) / 8,
				high_bits = n + (((uint64_t) m - 1) >> l) + 1;
	uint8_t    *out;

	*len = 5 + low_bytes + (high_bits + 7) / 8;
	out = zeroed_with_head(*len, n, l);
	for (uint32_t i = 0; i < n; i++)
		for (int b = 0; b < l; b++)
			if ((lows[i] >> b) & 1)
				bs_bit_set(out + 5, (uint32_t) (i * l + b));
	for (int i = 0; i < nhb; i++)
		bs_bit_set(out + 5 + low_bytes, hb[i]);
	return out;
}

/* decode, iterate and probe enc (len bytes) and compare with the dense bits */
static void
check_against_dense(const uint8_t *enc, size_t len, const uint8_t *bits, uint32_t m,
					const char *what)
{
	BsSparse	s;
	size_t		nbytes = 8 * bs_words_for_bits(m);
	uint8_t    *got = calloc(1, nbytes);
	BsSparseIter it;
	uint32_t	pos,
				count = 0;
	int64_t		prev = -1;
	int			rc;
	int			bad_probes = 0;
	bool		all = m <= 70000;	/* large m: 3,000 random positions and set positions */

	CHECK(bs_sparse_open(enc, len, m, &s) == BS_SPARSE_OK, "%s: open", what);
	CHECK(bs_sparse_decode(&s, got) == BS_SPARSE_OK, "%s: decode", what);
	CHECK(memcmp(got, bits, nbytes) == 0, "%s: decoded bits equal the dense oracle (m=%u)", what, m);
	bs_sparse_iter_init(&it, &s);
	while ((rc = bs_sparse_iter_next(&it, &pos)) > 0)
	{
		if ((int64_t) pos <= prev || !bs_bit_test(bits, pos))
			bad_probes++;
		prev = pos;
		count++;
	}
	CHECK(rc == 0 && count == s.n && count == bs_popcount(bits, nbytes / 8) && bad_probes == 0,
		  "%s: iterator gives the set positions in order (rc %d, %u of %u)", what, rc, count, s.n);
	bad_probes = 0;
	for (uint32_t t = 0; t < (all ? m : 3000); t++)
	{
		uint32_t	p = all ? t : (uint32_t) (unit_splitmix64(&rng_state) % m);

		bad_probes += bs_sparse_test(&s, p) != bs_bit_test(bits, p);
	}
	bs_sparse_iter_init(&it, &s);
	for (uint32_t t = 0; bs_sparse_iter_next(&it, &pos) > 0; t++)
		if (all || t % (s.n / 3000 + 1) == 0)
			bad_probes += !bs_sparse_test(&s, pos);
	CHECK(bad_probes == 0, "%s: %d probes differ from the dense oracle (m=%u)", what, bad_probes, m);
	CHECK(!bs_sparse_test(&s, m) && !bs_sparse_test(&s, UINT32_MAX), "%s: positions >= m are absent", what);
	/* one element's k positions in one pass, and through the select index */
	{
		uint64_t	nsamp = bs_sparse_index_entries(&s);
		uint64_t   *samples = malloc(sizeof(uint64_t) * (nsamp + 1));
		uint32_t   *setpos = malloc(sizeof(uint32_t) * (s.n + 1));
		uint32_t	nset = 0;
		int			bad_all = 0,
					bad_idx = 0;
		BsSparseIter it2;

		bs_sparse_index_build(&s, samples);
		bs_sparse_iter_init(&it2, &s);
		while (nset < s.n && bs_sparse_iter_next(&it2, &setpos[nset]) > 0)
			nset++;
		for (uint32_t t = 0; t < 4000; t++)
		{
			uint32_t	ps[BS_SPARSE_MAX_PROBES + 3];
			int			k = 1 + (int) (unit_splitmix64(&rng_state) % (t % 7 == 6 ? BS_SPARSE_MAX_PROBES + 3 : 8));
			bool		want = true;
			bool		hit = (t & 1) && nset == s.n && s.n > 0;	/* half: set positions only */

			for (int i = 0; i < k; i++)
			{
				if (hit)
					ps[i] = setpos[unit_splitmix64(&rng_state) % s.n];
				else
					ps[i] = (uint32_t) (unit_splitmix64(&rng_state) % ((uint64_t) m + 2));
				want = want && ps[i] < m && bs_bit_test(bits, ps[i]);
			}
			bad_all += bs_sparse_test_all(&s, ps, k) != want;
			bad_idx += bs_sparse_test_indexed(&s, samples, ps, k) != want;
		}
		CHECK(bad_all == 0 && bad_idx == 0,
			  "%s: k-position probes: %d one-pass and %d indexed answers differ from the dense oracle (m=%u, %llu samples)",
			  what, bad_all, bad_idx, m, (unsigned long long) nsamp);
		free(samples);
		free(setpos);
	}
	/* positions and bits in one pass: the iterator's positions, the oracle's bits */
	{
		uint32_t   *ps = malloc(sizeof(uint32_t) * (s.n + 1));
		uint32_t   *ps2 = malloc(sizeof(uint32_t) * (s.n + 1));
		uint32_t	t = 0;

		memset(got, 0, nbytes);
		CHECK(bs_sparse_decode_positions(&s, ps, got) == BS_SPARSE_OK &&
			  bs_sparse_decode_positions(&s, ps2, NULL) == BS_SPARSE_OK,
			  "%s: decode_positions", what);
		CHECK(memcmp(got, bits, nbytes) == 0, "%s: decode_positions' bits equal the dense oracle", what);
		bs_sparse_iter_init(&it, &s);
		bad_probes = 0;
		while (bs_sparse_iter_next(&it, &pos) > 0)
		{
			bad_probes += ps[t] != pos || ps2[t] != pos;
			t++;
		}
		CHECK(t == s.n && bad_probes == 0, "%s: decode_positions gives the iterator's positions (%d differ)",
			  what, bad_probes);
		free(ps);
		free(ps2);
	}
	free(got);
}

/* encoder against the reference and the dense oracle, for one array */
static void
check_one(const uint8_t *bits, uint32_t m, uint32_t n, const char *what)
{
	size_t		size = bs_sparse_size(m, n);
	uint8_t    *enc = malloc(size);
	uint8_t    *enc2 = malloc(size);
	uint32_t   *pos = malloc(sizeof(uint32_t) * (n + 1));
	uint32_t	np = 0;
	size_t		ref_len;
	uint8_t    *ref = ref_encode(bits, m, bs_sparse_low_bits(m, n), &ref_len);

	bs_sparse_encode_bits(bits, m, n, enc);
	CHECK(ref_len == size && memcmp(ref, enc, size) == 0,
		  "%s: encoding equals the reference encoder's (m=%u, n=%u, %zu vs %zu bytes)",
		  what, m, n, size, ref_len);
	for (uint32_t p = 0; p < m; p++)
		if (bs_bit_test(bits, p))
			pos[np++] = p;
	bs_sparse_encode_positions(pos, np, m, enc2);
	CHECK(memcmp(enc, enc2, size) == 0, "%s: encode_positions equals encode_bits", what);
	check_against_dense(enc, size, bits, m, what);
	free(ref);
	free(enc);
	free(enc2);
	free(pos);
}

static void
test_round_trips(void)
{
	static const uint32_t ms[] = {8, 9, 63, 64, 65, 1000, 1024, 4097, 132933, 1 << 20};
	static const double fills[] = {0, 0.0001, 0.001, 0.01, 0.05, 0.2, 0.5, 1.0};

	for (size_t a = 0; a < sizeof(ms) / sizeof(ms[0]); a++)
		for (size_t b = 0; b < sizeof(fills) / sizeof(fills[0]); b++)
		{
			uint32_t	m = ms[a];
			uint8_t    *bits = malloc(8 * bs_words_for_bits(m));
			uint32_t	n;
			char		what[64];

			if (fills[b] == 1.0)
			{
				memset(bits, 0, 8 * bs_words_for_bits(m));
				for (uint32_t p = 0; p < m; p++)
					bs_bit_set(bits, p);
				n = m;
			}
			else
				n = random_bits(bits, m, (uint64_t) (fills[b] * m) + (fills[b] > 0));
			snprintf(what, sizeof(what), "m=%u fill=%g", m, fills[b]);
			check_one(bits, m, n, what);
			free(bits);
		}
	/* a single position at each end and in the middle */
	{
		uint32_t	m = 1000;
		uint8_t		bits[128];
		uint32_t	ps[] = {0, 999, 500, 511, 512};

		for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		{
			memset(bits, 0, sizeof(bits));
			bs_bit_set(bits, ps[i]);
			check_one(bits, m, 1, "single position");
		}
	}
}

/* every low-bit width decodes (a reader accepts any l with its length) */
static void
test_any_low_bits(void)
{
	uint32_t	m = 3001;
	uint8_t    *bits = malloc(8 * bs_words_for_bits(m));

	random_bits(bits, m, 40);
	for (int l = 0; l <= BS_SPARSE_MAX_LOW_BITS; l++)
	{
		size_t		len;
		uint8_t    *enc = ref_encode(bits, m, l, &len);
		char		what[32];

		snprintf(what, sizeof(what), "l=%d", l);
		check_against_dense(enc, len, bits, m, what);
		free(enc);
	}
	free(bits);
}

/* sizes: small when sparse, never above the dense array at a sixth of the bits set */
static void
test_sizes(void)
{
	CHECK(bs_sparse_size(1024, 6) <= 16, "6 positions of 1024: %zu bytes", bs_sparse_size(1024, 6));
	CHECK(bs_sparse_size(132933, 3000) < 2800, "3000 of 132933: %zu bytes",
		  bs_sparse_size(132933, 3000));
	for (uint32_t m = 256; m < 2000000; m = m * 3 + 1)
		CHECK(bs_sparse_size(m, m / 6) <= 8 * bs_words_for_bits(m),
			  "a sixth of m = %u: %zu bytes", m, bs_sparse_size(m, m / 6));
	CHECK(bs_sparse_size(1u << 31, 0) == 6, "empty filter of 2^31 bits: %zu bytes",
		  bs_sparse_size(1u << 31, 0));
	CHECK(bs_sparse_low_bits(1u << 31, 1) == 31 && bs_sparse_low_bits(64, 64) == 0 &&
		  bs_sparse_low_bits(1024, 6) == 7, "low-bit widths");
}

/* run every reader on a corrupted buffer of exactly len bytes; the decode error */
static BsSparseError
read_corrupted(const uint8_t *src, size_t len, uint32_t m)
{
	uint8_t    *enc = malloc(len ? len : 1);
	uint8_t    *bits = calloc(1, 8 * bs_words_for_bits(m));
	BsSparse	s;
	BsSparseError e;

	memcpy(enc, src, len);
	e = bs_sparse_open(enc, len, m, &s);
	if (e == BS_SPARSE_OK)
	{
		uint32_t   *ps = malloc(sizeof(uint32_t) * (s.n + 1));
		BsSparseIter it;
		uint32_t	pos;
		int			rc;
		BsSparseError e2;

		for (uint32_t p = 0; p < m; p++)
			(void) bs_sparse_test(&s, p);
		{
			uint64_t   *samples = malloc(sizeof(uint64_t) * (bs_sparse_index_entries(&s) + 1));

			bs_sparse_index_build(&s, samples);
			for (uint32_t p = 0; p + 2 < m; p++)
			{
				uint32_t	ps[3] = {p + 2, p, p + 1};

				(void) bs_sparse_test_all(&s, ps, 3);
				(void) bs_sparse_test_indexed(&s, samples, ps, 3);
			}
			free(samples);
		}
		e = bs_sparse_decode(&s, bits);
		/* the one-pass decoders report the error the iterator finds first */
		bs_sparse_iter_init(&it, &s);
		while ((rc = bs_sparse_iter_next(&it, &pos)) > 0)
			;
		e2 = bs_sparse_decode_positions(&s, ps, bits);
		CHECK(e == (BsSparseError) -rc && e2 == e,
			  "corrupted: decode %d, decode_positions %d, iterator %d", e, e2, -rc);
		free(ps);
	}
	free(enc);
	free(bits);
	return e;
}

static void
test_corrupted(void)
{
	uint32_t	m = 1024;
	uint8_t		bits[128];
	uint32_t	n = random_bits(bits, m, 12);
	size_t		len = bs_sparse_size(m, n);
	uint8_t    *enc = malloc(len);
	uint8_t    *bad = malloc(len + 8);
	int			flips_ok = 0,
				flips_err = 0;

	bs_sparse_encode_bits(bits, m, n, enc);
	CHECK(read_corrupted(enc, len, m) == BS_SPARSE_OK, "the intact encoding reads");
	for (size_t l = 0; l < len; l++)
		CHECK(read_corrupted(enc, l, m) == (l < 5 ? BS_SPARSE_E_SHORT : BS_SPARSE_E_LENGTH),
			  "truncated to %zu bytes", l);
	memcpy(bad, enc, len);
	bad[len] = 0;
	CHECK(read_corrupted(bad, len + 1, m) == BS_SPARSE_E_LENGTH, "one byte too long");
	memcpy(bad, enc, len);
	bad[4] = 32;
	CHECK(read_corrupted(bad, len, m) == BS_SPARSE_E_LOW_BITS, "l = 32");
	memcpy(bad, enc, len);
	bad[0] = 0xFF;
	bad[1] = 0xFF;
	CHECK(read_corrupted(bad, len, m) == BS_SPARSE_E_COUNT, "n > m");
	CHECK(read_corrupted(enc, len, 100) == BS_SPARSE_E_LENGTH, "read with another m");

	/* hand-made encodings for m = 1024, l = 9: {5, 900} is lows {5, 388}, high bits {0, 2} */
	{
		static const uint32_t lows_ok[] = {5, 388},
					hb_ok[] = {0, 2},
					lows_swapped[] = {132, 5},
					lows_same[] = {5, 5},
					hb_bucket0[] = {0, 1},
					hb_extra[] = {0, 1, 2},
					hb_missing[] = {0};
		uint8_t    *e;
		size_t		el;

		CHECK(bs_sparse_low_bits(m, 2) == 9, "l for 2 of 1024");
		e = raw_encode(m, 9, 2, lows_ok, hb_ok, 2, &el);
		CHECK(el == bs_sparse_size(m, 2) && read_corrupted(e, el, m) == BS_SPARSE_OK, "{5, 900} reads");
		free(e);
		e = raw_encode(m, 9, 2, lows_swapped, hb_bucket0, 2, &el);
		CHECK(read_corrupted(e, el, m) == BS_SPARSE_E_ORDER, "positions out of order");
		free(e);
		e = raw_encode(m, 9, 2, lows_same, hb_bucket0, 2, &el);
		CHECK(read_corrupted(e, el, m) == BS_SPARSE_E_ORDER, "a repeated position");
		free(e);
		e = raw_encode(m, 9, 2, lows_ok, hb_extra, 3, &el);
		CHECK(read_corrupted(e, el, m) == BS_SPARSE_E_COUNT, "an extra high bit");
		free(e);
		e = raw_encode(m, 9, 2, lows_ok, hb_missing, 1, &el);
		CHECK(read_corrupted(e, el, m) == BS_SPARSE_E_COUNT, "a missing high bit");
		free(e);
	}
	/* m = 1000, l = 9: {999} is low 487, high bit 1; low 511 makes it 1023 >= m */
	{
		static const uint32_t low_ok[] = {487},
					low_big[] = {511},
					hb[] = {1};
		uint8_t    *e;
		size_t		el;

		e = raw_encode(1000, 9, 1, low_ok, hb, 1, &el);
		CHECK(read_corrupted(e, el, 1000) == BS_SPARSE_OK, "{999} of 1000 reads");
		free(e);
		e = raw_encode(1000, 9, 1, low_big, hb, 1, &el);
		CHECK(read_corrupted(e, el, 1000) == BS_SPARSE_E_RANGE, "a position >= m");
		free(e);
	}
	/* m = 64, l = 6: U = 2 high bits in one byte; bit 7 is past U */
	{
		static const uint32_t low[] = {3},
					hb[] = {0, 7};
		uint8_t    *e;
		size_t		el;

		e = raw_encode(64, 6, 1, low, hb, 2, &el);
		CHECK(read_corrupted(e, el, 64) == BS_SPARSE_E_RANGE, "a stray bit past U");
		free(e);
	}
	/* random byte flips: an error code or a valid set, never a bad read */
	for (int t = 0; t < 3000; t++)
	{
		BsSparseError e;

		memcpy(bad, enc, len);
		for (int f = 0; f < 1 + t % 3; f++)
			bad[unit_splitmix64(&rng_state) % len] ^= (uint8_t) (1 + unit_splitmix64(&rng_state) % 255);
		e = read_corrupted(bad, len, m);
		if (e == BS_SPARSE_OK)
			flips_ok++;
		else
			flips_err++;
	}
	CHECK(flips_err > 0, "random flips: %d detected, %d still valid sets", flips_err, flips_ok);
	/* flips in a longer encoding (many 64-bit words of high bits: the decoders' fast path) */
	{
		uint32_t	m2 = 20000;
		uint8_t    *bits2 = malloc(8 * bs_words_for_bits(m2));
		uint32_t	n2 = random_bits(bits2, m2, 700);
		size_t		len2 = bs_sparse_size(m2, n2);
		uint8_t    *enc2 = malloc(len2);
		uint8_t    *bad2 = malloc(len2);
		int			err2 = 0;

		bs_sparse_encode_bits(bits2, m2, n2, enc2);
		for (int t = 0; t < 300; t++)
		{
			memcpy(bad2, enc2, len2);
			for (int f = 0; f < 1 + t % 3; f++)
				bad2[BS_SPARSE_HEAD_BYTES + unit_splitmix64(&rng_state) % (len2 - BS_SPARSE_HEAD_BYTES)] ^=
					(uint8_t) (1 + unit_splitmix64(&rng_state) % 255);
			err2 += read_corrupted(bad2, len2, m2) != BS_SPARSE_OK;
		}
		CHECK(err2 > 0, "random flips in %zu bytes: %d detected", len2, err2);
		free(bits2);
		free(enc2);
		free(bad2);
	}
	CHECK(strlen(bs_sparse_error_string(BS_SPARSE_E_ORDER)) > 0, "error strings");
	free(enc);
	free(bad);
}

/*
 * decode_positions of enc against the iterator: the same error code, and
 * when there is none the same positions, in a buffer of exactly n entries
 * (under unitcheck-sanitize, a write past it fails); 1 when both say OK
 */
static int
decode_matches_iterator(const uint8_t *enc, size_t len, uint32_t m, const char *what)
{
	BsSparse	s;
	BsSparseIter it;
	uint32_t   *ps;
	uint8_t    *bits;
	uint32_t	pos;
	BsSparseError e;
	int			rc,
				differ = 0;
	uint32_t	t = 0;

	if (bs_sparse_open(enc, len, m, &s) != BS_SPARSE_OK)
		return 0;
	ps = malloc(sizeof(uint32_t) * (s.n ? s.n : 1));
	bits = calloc(1, 8 * bs_words_for_bits(m));
	e = bs_sparse_decode_positions(&s, ps, bits);
	bs_sparse_iter_init(&it, &s);
	while ((rc = bs_sparse_iter_next(&it, &pos)) > 0)
	{
		if (e == BS_SPARSE_OK)
			differ += t >= s.n || ps[t] != pos || !bs_bit_test(bits, pos);
		t++;
	}
	if (e == BS_SPARSE_OK)
		differ += bs_popcount(bits, bs_words_for_bits(m)) != s.n;
	CHECK(e == (BsSparseError) -rc && differ == 0,
		  "%s: decode_positions %d, iterator %d, %d positions differ", what, e, -rc, differ);
	free(ps);
	free(bits);
	return e == BS_SPARSE_OK;
}

/*
 * The grouped decoder (8 positions a group, one copy per low-bit width, the
 * last groups read one by one): every width with enough positions for whole
 * groups and a tail, intact and with random byte flips in the low and high
 * bits, against the iterator
 */
static void
test_decode_positions_widths(void)
{
	uint32_t	m = 400009;
	uint8_t    *bits = malloc(8 * bs_words_for_bits(m));
	int			ok = 0,
				err = 0;

	for (int l = 0; l <= BS_SPARSE_MAX_LOW_BITS; l++)
	{
		uint64_t	want = l == 0 ? m / 2 : (l > 12 ? 61 + (uint64_t) l : 3000 + 37 * (uint64_t) l);
		size_t		len;
		uint8_t    *enc;
		char		what[48];

		random_bits(bits, m, want);
		enc = ref_encode(bits, m, l, &len);
		snprintf(what, sizeof(what), "intact, l=%d", l);
		CHECK(decode_matches_iterator(enc, len, m, what) == 1, "%s reads", what);
		for (int t = 0; t < 40; t++)
		{
			uint8_t    *bad = malloc(len);

			memcpy(bad, enc, len);
			for (int f = 0; f < 1 + t % 2; f++)
				bad[BS_SPARSE_HEAD_BYTES + unit_splitmix64(&rng_state) % (len - BS_SPARSE_HEAD_BYTES)] ^=
					(uint8_t) (1 + unit_splitmix64(&rng_state) % 255);
			snprintf(what, sizeof(what), "flipped, l=%d, trial %d", l, t);
			if (decode_matches_iterator(bad, len, m, what))
				ok++;
			else
				err++;
			free(bad);
		}
		free(enc);
	}
	CHECK(err > 0 && ok > 0, "flips over every width: %d detected, %d still valid sets", err, ok);
	free(bits);
}

/* the set operations on position lists against the dense oracle (bitwise AND / OR) */
static void
test_position_ops(void)
{
	int			bad = 0;

	for (int t = 0; t < 200; t++)
	{
		uint32_t	m = 64 + (uint32_t) (unit_splitmix64(&rng_state) % 5000);
		size_t		nbytes = 8 * bs_words_for_bits(m);
		uint8_t    *a = malloc(nbytes),
				   *b = malloc(nbytes),
				   *o = malloc(nbytes);
		uint32_t	na = random_bits(a, m, unit_splitmix64(&rng_state) % (t % 4 == 0 ? 3 : m / 4 + 1)),
					nb = random_bits(b, m, unit_splitmix64(&rng_state) % (m / 3 + 1));
		uint32_t   *pa = malloc(sizeof(uint32_t) * (na + 1)),
				   *pb = malloc(sizeof(uint32_t) * (nb + 1)),
				   *out = malloc(sizeof(uint32_t) * (na + nb + 1));
		uint32_t	ia = 0,
					ib = 0;
		size_t		n;

		for (uint32_t p = 0; p < m; p++)
		{
			if (bs_bit_test(a, p))
				pa[ia++] = p;
			if (bs_bit_test(b, p))
				pb[ib++] = p;
		}
		/* union: exactly the set bits of a | b, increasing */
		n = bs_pos_union(pa, na, pb, nb, out);
		memset(o, 0, nbytes);
		for (size_t i = 0; i < n; i++)
		{
			bad += i > 0 && out[i] <= out[i - 1];
			bs_bit_set(o, out[i]);
		}
		for (size_t w = 0; w < nbytes; w++)
			bad += o[w] != (a[w] | b[w]);
		bad += n != bs_popcount(o, nbytes / 8);
		/* intersection, both ways round */
		for (int swap = 0; swap < 2; swap++)
		{
			n = swap ? bs_pos_intersect(pb, nb, pa, na, out) : bs_pos_intersect(pa, na, pb, nb, out);
			memset(o, 0, nbytes);
			for (size_t i = 0; i < n; i++)
			{
				bad += i > 0 && out[i] <= out[i - 1];
				bs_bit_set(o, out[i]);
			}
			for (size_t w = 0; w < nbytes; w++)
				bad += o[w] != (a[w] & b[w]);
			bad += n != bs_popcount(o, nbytes / 8);
		}
		/* a sparse side tested in dense bits, in place */
		n = bs_pos_and_bits(pa, na, b, pa);
		memset(o, 0, nbytes);
		for (size_t i = 0; i < n; i++)
			bs_bit_set(o, pa[i]);
		for (size_t w = 0; w < nbytes; w++)
			bad += o[w] != (a[w] & b[w]);
		bad += n != bs_popcount(o, nbytes / 8);
		free(a);
		free(b);
		free(o);
		free(pa);
		free(pb);
		free(out);
	}
	CHECK(bad == 0, "union, intersection and AND with dense bits of position lists: %d differences "
		  "from the dense oracle in 200 random pairs", bad);
	CHECK(bs_pos_union(NULL, 0, NULL, 0, NULL) == 0 && bs_pos_intersect(NULL, 0, NULL, 0, NULL) == 0,
		  "empty lists");
}

int
main(void)
{
	test_round_trips();
	test_any_low_bits();
	test_sizes();
	test_corrupted();
	test_decode_positions_widths();
	test_position_ops();
	return UNIT_DONE();
}
