/*
 * bs_sparse.c
 *    Elias-Fano coding of a filter's set positions: encoding, checked
 *    decoding and set operations on position lists (the layout is in
 *    bs_sparse.h; the in-place probes are bs_sparse_probe.c's).
 *
 * Every read of the encoding goes through load_le, which never reads past
 * the bytes bs_sparse_open accepted, so a corrupted encoding can give a
 * wrong probe answer or an error code but never an out-of-bounds read.
 */
#include "bs_sparse.h"

#include <string.h>

#include "bs_bits.h"
#include "bs_kernels.h"
#include "bs_sparse_read.h"

/* OR v (below 2^31) into the bit array a at bit offset off */
static inline void
put_bits(uint8_t *a, uint64_t off, uint32_t v)
{
	uint64_t	x = (uint64_t) v << (off & 7);
	size_t		b = (size_t) (off >> 3);

	while (x)
	{
		a[b++] |= (uint8_t) x;
		x >>= 8;
	}
}

static void
lengths(uint32_t m, uint64_t n, int l, uint64_t *low_bytes, uint64_t *high_bits)
{
	*low_bytes = (n * (uint64_t) l + 7) / 8;
	*high_bits = n + (((uint64_t) m - 1) >> l) + 1;
}

int
bs_sparse_low_bits(uint32_t m, uint64_t n)
{
	uint64_t	q;

	if (n == 0)
		return BS_SPARSE_MAX_LOW_BITS;
	q = (uint64_t) m / n;
	if (q <= 1)
		return 0;
	return 63 - __builtin_clzll(q);
}

size_t
bs_sparse_size(uint32_t m, uint64_t n)
{
	uint64_t	low_bytes,
				high_bits;

	lengths(m, n, bs_sparse_low_bits(m, n), &low_bytes, &high_bits);
	return (size_t) (BS_SPARSE_HEAD_BYTES + low_bytes + (high_bits + 7) / 8);
}

/* the state of an encoder: where position i goes */
typedef struct Encoder
{
	uint8_t    *low;
	uint8_t    *high;
	int			l;
	uint64_t	i;
} Encoder;

static void
encoder_start(Encoder *e, uint32_t m, uint32_t n, uint8_t *out)
{
	uint64_t	low_bytes,
				high_bits;

	e->l = bs_sparse_low_bits(m, n);
	e->i = 0;
	lengths(m, n, e->l, &low_bytes, &high_bits);
	memset(out, 0, BS_SPARSE_HEAD_BYTES + low_bytes + (high_bits + 7) / 8);
	out[0] = (uint8_t) n;
	out[1] = (uint8_t) (n >> 8);
	out[2] = (uint8_t) (n >> 16);
	out[3] = (uint8_t) (n >> 24);
	out[4] = (uint8_t) e->l;
	e->low = out + BS_SPARSE_HEAD_BYTES;
	e->high = e->low + low_bytes;
}

static inline void
encoder_put(Encoder *e, uint32_t pos)
{
	uint64_t	hb = (uint64_t) (pos >> e->l) + e->i;

	if (e->l > 0)
		put_bits(e->low, e->i * e->l, pos & low_mask(e->l));
	e->high[hb >> 3] |= (uint8_t) (1u << (hb & 7));
	e->i++;
}

void
bs_sparse_encode_positions(const uint32_t *pos, uint32_t n, uint32_t m, uint8_t *out)
{
	Encoder		e;

	encoder_start(&e, m, n, out);
	for (uint32_t i = 0; i < n; i++)
		encoder_put(&e, pos[i]);
}

void
bs_sparse_encode_bits(const uint8_t *bits, uint32_t m, uint32_t n, uint8_t *out)
{
	Encoder		e;
	size_t		nwords = bs_words_for_bits(m);

	encoder_start(&e, m, n, out);
	for (size_t w = 0; w < nwords && e.i < n; w++)
	{
		uint64_t	word = bs_load64le(bits + 8 * w);

		while (word)
		{
			encoder_put(&e, (uint32_t) (64 * w + (uint64_t) __builtin_ctzll(word)));
			word &= word - 1;
		}
	}
}

BsSparseError
bs_sparse_open(const uint8_t *enc, size_t len, uint32_t m, BsSparse *s)
{
	uint32_t	n;
	int			l;
	uint64_t	low_bytes,
				high_bits;

	if (len < BS_SPARSE_HEAD_BYTES)
		return BS_SPARSE_E_SHORT;
	n = (uint32_t) enc[0] | (uint32_t) enc[1] << 8 | (uint32_t) enc[2] << 16 |
		(uint32_t) enc[3] << 24;
	l = enc[4];
	if (l > BS_SPARSE_MAX_LOW_BITS)
		return BS_SPARSE_E_LOW_BITS;
	if (m == 0 || n > m)
		return BS_SPARSE_E_COUNT;
	lengths(m, n, l, &low_bytes, &high_bits);
	if ((uint64_t) len != BS_SPARSE_HEAD_BYTES + low_bytes + (high_bits + 7) / 8)
		return BS_SPARSE_E_LENGTH;
	s->m = m;
	s->n = n;
	s->l = (uint8_t) l;
	s->low = enc + BS_SPARSE_HEAD_BYTES;
	s->low_bytes = (size_t) low_bytes;
	s->high = s->low + low_bytes;
	s->high_bytes = (size_t) ((high_bits + 7) / 8);
	s->high_bits = high_bits;
	return BS_SPARSE_OK;
}

void
bs_sparse_iter_init(BsSparseIter *it, const BsSparse *s)
{
	it->s = s;
	it->byte = 0;
	it->word = 0;
	it->word_base = 0;
	it->i = 0;
	it->prev = -1;
}

int
bs_sparse_iter_next(BsSparseIter *it, uint32_t *pos)
{
	const BsSparse *s = it->s;
	uint64_t	j,
				p;

	while (it->word == 0)
	{
		size_t		avail;

		if (it->byte >= s->high_bytes)
			return it->i == s->n ? 0 : -BS_SPARSE_E_COUNT;
		avail = s->high_bytes - it->byte;
		it->word = load_le(s->high + it->byte, avail);
		it->word_base = (uint64_t) it->byte * 8;
		it->byte += avail >= 8 ? 8 : avail;
	}
	j = it->word_base + (uint64_t) __builtin_ctzll(it->word);
	it->word &= it->word - 1;
	if (j >= s->high_bits)
		return -BS_SPARSE_E_RANGE;
	if (it->i >= s->n)
		return -BS_SPARSE_E_COUNT;
	/* the i bits before this one are the earlier positions: j >= i */
	p = ((j - it->i) << s->l) | get_low(s, it->i);
	if (p >= s->m)
		return -BS_SPARSE_E_RANGE;
	if ((int64_t) p <= it->prev)
		return -BS_SPARSE_E_ORDER;
	it->prev = (int64_t) p;
	it->i++;
	*pos = (uint32_t) p;
	return 1;
}

/*
 * The positions of one word w of high bits (at bit base) into tmp, checked
 * one by one as the iterator does: the first error found, or OK with *i,
 * *off and *prev advanced.  The slow path of decode_into, which runs it only
 * on a word its fast path found wrong, so that every error is the one the
 * iterator reports.
 */
static BsSparseError
decode_word_checked(const BsSparse *s, uint64_t w, uint64_t base, uint64_t *i,
					uint64_t *off, int64_t *prev, uint32_t *tmp)
{
	const int	l = s->l;
	const uint32_t mask = low_mask(l);
	int			c = 0;

	while (w)
	{
		uint64_t	j = base + (uint64_t) __builtin_ctzll(w);
		size_t		b = (size_t) (*off >> 3);
		uint64_t	low = 0;
		uint64_t	p;

		w &= w - 1;
		if (j >= s->high_bits)
			return BS_SPARSE_E_RANGE;
		if (*i >= s->n)
			return BS_SPARSE_E_COUNT;
		if (l > 0)
			low = load_le(s->low + b, s->low_bytes - b) >> (*off & 7);
		p = ((j - *i) << l) | (low & mask);
		if (p >= s->m)
			return BS_SPARSE_E_RANGE;
		if ((int64_t) p <= *prev)
			return BS_SPARSE_E_ORDER;
		tmp[c++] = (uint32_t) p;
		*prev = (int64_t) p;
		(*i)++;
		*off += (uint64_t) l;
	}
	return BS_SPARSE_OK;
}

/*
 * The iterator's checks in one loop over the high words (no call per
 * position): what bst_sample pays to read a sparse query filter.  Sets the
 * positions in bits and stores them in pos, each when not NULL.  A word's
 * positions are decoded without a branch per check (the checks are or-ed
 * together, the positions kept in tmp) and written out only once the word
 * is found right; a wrong word is decoded again by decode_word_checked for
 * the exact error.
 */
static inline __attribute__((always_inline)) BsSparseError
decode_into(const BsSparse *s, uint8_t *bits, uint32_t *pos)
{
	const int	l = s->l;
	const uint32_t mask = low_mask(l);
	uint64_t	i = 0,
				off = 0;
	int64_t		prev = -1;
	uint32_t	tmp[64];

	for (size_t byte = 0; byte < s->high_bytes; byte += 8)
	{
		uint64_t	w = load_le(s->high + byte, s->high_bytes - byte);
		uint64_t	base = (uint64_t) byte * 8;
		uint64_t	c = (uint64_t) __builtin_popcountll(w);
		uint64_t	i0 = i,
					off0 = off;
		int64_t		prev0 = prev;
		bool		bad;

		if (c == 0)
			continue;
		/* stray bits past U, or more positions than n: the checked path */
		bad = base + 64 > s->high_bits || i + c > s->n ||
			(l > 0 && ((off + c * (uint64_t) l) >> 3) + 8 > s->low_bytes);
		if (!bad)
		{
			uint64_t	ww = w;
			uint64_t	acc = 0;

			for (uint64_t t = 0; t < c; t++)
			{
				uint64_t	j = base + (uint64_t) __builtin_ctzll(ww);
				uint64_t	low = l > 0 ? bs_load64le(s->low + (off >> 3)) >> (off & 7) : 0;
				uint64_t	p = ((j - i) << l) | (low & mask);

				ww &= ww - 1;
				acc |= (uint64_t) ((int64_t) p <= prev) | (uint64_t) (p >= s->m);
				tmp[t] = (uint32_t) p;
				prev = (int64_t) p;
				i++;
				off += (uint64_t) l;
			}
			bad = acc != 0;
		}
		if (bad)
		{
			BsSparseError e;

			i = i0;
			off = off0;
			prev = prev0;
			e = decode_word_checked(s, w, base, &i, &off, &prev, tmp);
			if (e != BS_SPARSE_OK)
				return e;
		}
		for (uint64_t t = 0; t < c; t++)
		{
			if (bits)
				bits[tmp[t] >> 3] |= (uint8_t) (1u << (tmp[t] & 7));
			if (pos)
				pos[i0 + t] = tmp[t];
		}
	}
	return i == s->n ? BS_SPARSE_OK : BS_SPARSE_E_COUNT;
}

BS_POPCNT_CLONES
BsSparseError
bs_sparse_decode(const BsSparse *s, uint8_t *bits)
{
	return decode_into(s, bits, NULL);
}

/*
 * decode_highs' checks of one word of high bits (the one at byte, after i
 * positions): no stray bits at or past U, at most n positions in all; *w
 * the word, *c its set bits
 */
static inline __attribute__((always_inline)) bool
high_word_checked(const BsSparse *s, size_t byte, uint64_t i, uint64_t *w, uint64_t *c)
{
	uint64_t	base = (uint64_t) byte * 8;

	*w = load_le(s->high + byte, s->high_bytes - byte);
	if (base + 64 > s->high_bits && (*w >> (s->high_bits - base)) != 0)
		return false;
	*c = (uint64_t) __builtin_popcountll(*w);
	return i + *c <= s->n;
}

/* decode_highs' checks at the end: exactly n positions, the last high part in range */
static inline bool
highs_complete(const BsSparse *s, uint64_t i, uint64_t last_j)
{
	return i == s->n && (s->n == 0 ||
						 last_j - (s->n - 1) <= (uint64_t) ((s->m - 1) >> s->l));
}

/*
 * The fast path of bs_sparse_decode_positions, in three tight loops instead
 * of decode_into's one: (1) the high parts j - i of the positions from the
 * high words into pos, (2) the low bits appended, l known at compile time
 * (decode_lows, one copy per l), 8 positions a group so that every shift is
 * a constant, (3) the bits set.  Each loop does a few instructions a
 * position with no dependency between positions but the running maximum.
 * Checks without a branch a position: the set high bits below U and exactly
 * n of them, the last high part at most (m - 1) >> l (high parts never
 * decrease, so it is their largest, and every position then fits 32 bits),
 * the positions strictly increasing, the last below m: together what the
 * iterator checks.  Returns false on any doubt (pos may then hold garbage,
 * bits is not touched): the caller decodes again the checked way, for the
 * iterator's exact error.
 */
static inline __attribute__((always_inline)) bool
decode_highs(const BsSparse *s, uint32_t *pos)
{
	uint64_t	i = 0,
				last_j = 0;

	for (size_t byte = 0; byte < s->high_bytes; byte += 8)
	{
		uint64_t	base = (uint64_t) byte * 8;
		uint64_t	w,
					c;

		if (!high_word_checked(s, byte, i, &w, &c))
			return false;
		if (c == 0)
			continue;
		last_j = base + 63 - (uint64_t) __builtin_clzll(w);
		for (uint64_t t = 0; t < c; t++)
		{
			pos[i + t] = (uint32_t) (base + (uint64_t) __builtin_ctzll(w) - (i + t));
			w &= w - 1;
		}
		i += c;
	}
	return highs_complete(s, i, last_j);
}

/* the low bits of positions [from, to) appended one by one, bounds checked */
static inline int64_t
decode_lows_tail(const BsSparse *s, uint32_t *pos, uint64_t from, uint64_t to,
				 int64_t prev, uint32_t *bad)
{
	for (uint64_t i = from; i < to; i++)
	{
		uint32_t	p = (pos[i] << s->l) | get_low(s, i);

		*bad |= (uint32_t) ((int64_t) p <= prev);
		prev = (int64_t) p;
		pos[i] = p;
	}
	return prev;
}

/*
 * The low bits (l of them a position, l a constant in each copy) appended
 * to the high parts in pos[0 .. n); 0 when the positions are strictly
 * increasing and the last below m.  Group g of 8 positions starts at byte
 * g * l; a group is read with 8-byte loads only while they stay inside the
 * encoding (the high bits follow the low ones), the rest by decode_lows_tail.
 */
static inline __attribute__((always_inline)) uint32_t
decode_lows(const BsSparse *s, uint32_t *pos, const int l)
{
	const uint64_t mask = low_mask(l);
	size_t		readable = (size_t) (s->high + s->high_bytes - s->low);
	uint64_t	groups = s->n / 8;
	int64_t		prev = -1;
	uint32_t	bad = 0;

	while (groups > 0 && groups * (uint64_t) l + 8 > readable)
		groups--;
	for (uint64_t g = 0; g < groups; g++)
	{
		const uint8_t *src = s->low + g * (uint64_t) l;
		uint32_t   *dst = pos + 8 * g;

#pragma GCC unroll 8
		for (int t = 0; t < 8; t++)
		{
			uint64_t	low = l == 0 ? 0 :
				(bs_load64le(src + ((t * l) >> 3)) >> ((t * l) & 7)) & mask;
			uint32_t	p = (dst[t] << l) | (uint32_t) low;

			bad |= (uint32_t) ((int64_t) p <= prev);
			prev = (int64_t) p;
			dst[t] = p;
		}
	}
	prev = decode_lows_tail(s, pos, 8 * groups, s->n, prev, &bad);
	return bad | (uint32_t) (prev >= (int64_t) s->m);
}

/* decode_lows with l made a constant: one copy of its loop per width */
static uint32_t
decode_lows_any(const BsSparse *s, uint32_t *pos)
{
	switch (s->l)
	{
#define BS_LOWS_CASE(L) case L: return decode_lows(s, pos, L)
			BS_LOWS_CASE(0);
			BS_LOWS_CASE(1);
			BS_LOWS_CASE(2);
			BS_LOWS_CASE(3);
			BS_LOWS_CASE(4);
			BS_LOWS_CASE(5);
			BS_LOWS_CASE(6);
			BS_LOWS_CASE(7);
			BS_LOWS_CASE(8);
			BS_LOWS_CASE(9);
			BS_LOWS_CASE(10);
			BS_LOWS_CASE(11);
			BS_LOWS_CASE(12);
			BS_LOWS_CASE(13);
			BS_LOWS_CASE(14);
			BS_LOWS_CASE(15);
			BS_LOWS_CASE(16);
			BS_LOWS_CASE(17);
			BS_LOWS_CASE(18);
			BS_LOWS_CASE(19);
			BS_LOWS_CASE(20);
			BS_LOWS_CASE(21);
			BS_LOWS_CASE(22);
			BS_LOWS_CASE(23);
			BS_LOWS_CASE(24);
			BS_LOWS_CASE(25);
			BS_LOWS_CASE(26);
			BS_LOWS_CASE(27);
			BS_LOWS_CASE(28);
			BS_LOWS_CASE(29);
			BS_LOWS_CASE(30);
			BS_LOWS_CASE(31);
#undef BS_LOWS_CASE
	}
	return 1;					/* l > 31: bs_sparse_open refuses it */
}

/*
 * bs_sparse_decode_positions' fast path (decode_highs, decode_lows, then the
 * bits set from the checked positions); false: not known to be right, decode
 * again the checked way
 */
static inline __attribute__((always_inline)) bool
decode_positions_fast(const BsSparse *s, uint32_t *pos, uint8_t *bits)
{
	const uint64_t n = s->n;	/* a local: the byte stores below may alias *s */

	if (!decode_highs(s, pos) || decode_lows_any(s, pos) != 0)
		return false;
	if (bits)
		for (uint64_t i = 0; i < n; i++)
			bits[pos[i] >> 3] |= (uint8_t) (1u << (pos[i] & 7));
	return true;
}

/* the fast decoder's variants (bs_kernels.h: default, popcnt, avx512) */
static bool
decode_fast_default(const BsSparse *s, uint32_t *pos, uint8_t *bits)
{
	return decode_positions_fast(s, pos, bits);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && \
	!defined(BS_NO_SIMD)
#include <immintrin.h>

__attribute__((target("popcnt")))
static bool
decode_fast_popcnt(const BsSparse *s, uint32_t *pos, uint8_t *bits)
{
	return decode_positions_fast(s, pos, bits);
}

#define BS_TARGET_AVX512_DECODE \
	__attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,popcnt,bmi")))

/*
 * decode_highs a word (64 high bits) a step: VPCOMPRESSB packs the indexes
 * of the word's set bits into its first bytes, ascending; each group of 16
 * is widened to 32 bits and the rank of each (i + lane) subtracted; a
 * masked store writes exactly the word's positions (never past n: checked
 * per word first, as decode_highs does).  One compression per word instead
 * of one per 16 bits: at the density the encoder keeps (about one set bit in
 * two), a word holds about 30 positions.  The checks and the result are
 * decode_highs'.
 */
BS_TARGET_AVX512_DECODE
static bool
decode_highs_avx512(const BsSparse *s, uint32_t *pos)
{
	static const uint8_t iota_bytes[64] = {
		0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
		16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
		32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,
	48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};
	const __m512i iota32 = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	const __m512i iota8 = _mm512_loadu_si512(iota_bytes);
	uint64_t	i = 0,
				last_j = 0;
	for (size_t byte = 0; byte < s->high_bytes; byte += 8)
	{
		uint64_t	base = (uint64_t) byte * 8;
		uint64_t	w,
					c;
		__m512i		idx;

		if (!high_word_checked(s, byte, i, &w, &c))
			return false;
		if (c == 0)
			continue;
		last_j = base + 63 - (uint64_t) __builtin_clzll(w);
		idx = _mm512_maskz_compress_epi8((__mmask64) w, iota8);
		for (uint64_t g = 0; g < c; g += 16)
		{
			__m128i		bytes16 = g == 0 ? _mm512_castsi512_si128(idx) :
				g == 16 ? _mm512_extracti32x4_epi32(idx, 1) :
				g == 32 ? _mm512_extracti32x4_epi32(idx, 2) : _mm512_extracti32x4_epi32(idx, 3);
			uint64_t	cc = c - g < 16 ? c - g : 16;
			/* base + index - (i + g + lane), modulo 2^32 as decode_highs */
			__m512i		v = _mm512_sub_epi32(_mm512_add_epi32(_mm512_cvtepu8_epi32(bytes16),
															  _mm512_set1_epi32((int) (uint32_t) (base - i - g))),
											 iota32);

			_mm512_mask_storeu_epi32(pos + i + g, (__mmask16) ((1u << cc) - 1), v);
		}
		i += c;
	}
	return highs_complete(s, i, last_j);
}

/*
 * decode_lows with 16 positions a step, for 1 <= l <= 24 (others: the
 * scalar copies): the 2l bytes of a group are loaded (masked to the bytes
 * bs_sparse_open accepted), VPERMB gathers the 4 bytes that hold lane t's
 * field at bit t*l into lane t, a variable shift and a mask extract it.
 * The same checks as decode_lows (strictly increasing, the last below m),
 * the same result.
 */
BS_TARGET_AVX512_DECODE
static uint32_t
decode_lows_avx512(const BsSparse *s, uint32_t *pos)
{
	const int	l = s->l;
	const uint64_t n = s->n;
	size_t		readable = (size_t) (s->high + s->high_bytes - s->low);
	uint8_t		idxb[64];
	uint32_t	shb[16];
	__m512i		idx,
				shv,
				maskv,
				last = _mm512_setzero_si512();
	__m128i		lcount = _mm_cvtsi32_si128(l);
	uint32_t	bad = 0;

	if (l < 1 || l > 24)
		return decode_lows_any(s, pos);
	if (n == 0)
		return 0;
	for (int t = 0; t < 16; t++)
	{
		for (int j = 0; j < 4; j++)
			idxb[4 * t + j] = (uint8_t) (((t * l) >> 3) + j);
		shb[t] = (uint32_t) ((t * l) & 7);
	}
	idx = _mm512_loadu_si512(idxb);
	shv = _mm512_loadu_si512(shb);
	maskv = _mm512_set1_epi32((int) low_mask(l));
	for (uint64_t i0 = 0; i0 < n; i0 += 16)
	{
		uint64_t	rem = n - i0;
		__mmask16	lane = rem >= 16 ? (__mmask16) 0xFFFF : (__mmask16) ((1u << rem) - 1);
		size_t		off = (size_t) (i0 / 8 * (uint64_t) l);	/* 2l bytes a group */
		size_t		avail = readable - off;
		__mmask64	lm = avail >= 64 ? ~(__mmask64) 0 : (((__mmask64) 1 << avail) - 1);
		__m512i		data = _mm512_maskz_loadu_epi8(lm, s->low + off);
		__m512i		low = _mm512_and_si512(_mm512_srlv_epi32(_mm512_permutexvar_epi8(idx, data), shv),
										   maskv);
		__m512i		p = _mm512_or_si512(_mm512_sll_epi32(_mm512_maskz_loadu_epi32(lane, pos + i0),
														 lcount),
										low);
		__m512i		prev = _mm512_alignr_epi32(p, last, 15);

		bad |= _mm512_mask_cmple_epu32_mask(i0 == 0 ? (__mmask16) (lane & 0xFFFE) : lane, p, prev);
		_mm512_mask_storeu_epi32(pos + i0, lane, p);
		last = p;
	}
	return bad | (uint32_t) (pos[n - 1] >= s->m);
}

/*
 * Set the n strictly increasing positions pos[] (all below the bits' m) in
 * bits, zeroed by the caller (bs_sparse_decode's contract: whole 32-bit
 * words are written, not ORed into), 16 a step: each position's bit in its
 * 32-bit word (the bits' little-endian bytes, as x86 stores them), the bits
 * of the lanes sharing a word ORed into the last of them (a segmented OR in
 * four shifts: equal words are adjacent because the positions ascend), and
 * one scatter of those last lanes, whose words are then distinct.  The word
 * the previous step ended with is carried in registers (its bits and its
 * index, broadcast; read back from memory they would wait for the scatter)
 * and ORed into this step's lanes of the same word after the segmented OR,
 * so that the only work one step waits for from the last is that OR and two
 * permutes, not the four shifts.  About twice the scalar loop's speed at
 * 3,000 positions, where each scalar step is a dependent read-modify-write
 * of a byte.
 */
BS_TARGET_AVX512_DECODE
static void
set_sorted_bits_avx512(const uint32_t *pos, uint64_t n, uint8_t *bits)
{
	const __m512i one = _mm512_set1_epi32(1),
				low5 = _mm512_set1_epi32(31),
				none = _mm512_set1_epi32(-1),
				zero = _mm512_setzero_si512();
	__m512i		carry = zero,	/* the previous step's last word's bits */
				carry_word = none;	/* and that word's index (none: no step) */

	for (uint64_t i0 = 0; i0 < n; i0 += 16)
	{
		uint64_t	rem = n - i0;
		int			last = rem >= 16 ? 15 : (int) rem - 1;
		__mmask16	lane = (__mmask16) ((2u << last) - 1);
		__m512i		p = _mm512_maskz_loadu_epi32(lane, pos + i0);
		__m512i		word = _mm512_mask_blend_epi32(lane, none, _mm512_srli_epi32(p, 5));
		__m512i		bit = _mm512_maskz_sllv_epi32(lane, one, _mm512_and_si512(p, low5));
		__m512i		last_lane = _mm512_set1_epi32(last);
		__mmask16	ends;

#define BS_SEGMENTED_OR(sh) \
		bit = _mm512_mask_or_epi32(bit, \
								   _mm512_cmpeq_epi32_mask(_mm512_alignr_epi32(word, none, 16 - (sh)), word), \
								   bit, _mm512_alignr_epi32(bit, zero, 16 - (sh)))
		BS_SEGMENTED_OR(1);
		BS_SEGMENTED_OR(2);
		BS_SEGMENTED_OR(4);
		BS_SEGMENTED_OR(8);
#undef BS_SEGMENTED_OR
		/* the lanes of the word the last step ended with (a leading run) */
		bit = _mm512_mask_or_epi32(bit, _mm512_mask_cmpeq_epi32_mask(lane, word, carry_word),
								   bit, carry);
		ends = _mm512_mask_cmpneq_epi32_mask(lane, word, _mm512_alignr_epi32(none, word, 1));
		_mm512_mask_i32scatter_epi32(bits, ends, word, bit, 4);
		carry = _mm512_permutexvar_epi32(last_lane, bit);
		carry_word = _mm512_permutexvar_epi32(last_lane, word);
	}
}

BS_TARGET_AVX512_DECODE
static bool
decode_fast_avx512(const BsSparse *s, uint32_t *pos, uint8_t *bits)
{
	if (!decode_highs_avx512(s, pos) || decode_lows_avx512(s, pos) != 0)
		return false;
	if (bits)
		set_sorted_bits_avx512(pos, s->n, bits);
	return true;
}
#endif

bool
bs_sparse_decode_fast(const BsSparse *s, uint32_t *pos, uint8_t *bits, BsVariant v)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && \
	!defined(BS_NO_SIMD)
	if (v == BS_VARIANT_AVX512)
		return decode_fast_avx512(s, pos, bits);
	if (v == BS_VARIANT_POPCNT)
		return decode_fast_popcnt(s, pos, bits);
#endif
	(void) v;
	return decode_fast_default(s, pos, bits);
}

BsSparseError
bs_sparse_decode_positions(const BsSparse *s, uint32_t *pos, uint8_t *bits)
{
	if (bs_sparse_decode_fast(s, pos, bits, bs_kernels_get()->sparse_decode))
		return BS_SPARSE_OK;
	if (bits)
		return decode_into(s, bits, pos);
	return decode_into(s, NULL, pos);
}

size_t
bs_pos_union(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, uint32_t *out)
{
	size_t		i = 0,
				j = 0,
				n = 0;

	while (i < na && j < nb)
	{
		uint32_t	x = a[i],
					y = b[j];

		out[n++] = x <= y ? x : y;
		i += x <= y;
		j += y <= x;
	}
	while (i < na)
		out[n++] = a[i++];
	while (j < nb)
		out[n++] = b[j++];
	return n;
}

size_t
bs_pos_intersect(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, uint32_t *out)
{
	size_t		i = 0,
				j = 0,
				n = 0;

	while (i < na && j < nb)
	{
		uint32_t	x = a[i],
					y = b[j];

		out[n] = x;
		n += x == y;
		i += x <= y;
		j += y <= x;
	}
	return n;
}

size_t
bs_pos_and_bits(const uint32_t *a, size_t na, const uint8_t *bits, uint32_t *out)
{
	size_t		n = 0;

	for (size_t i = 0; i < na; i++)
	{
		out[n] = a[i];
		n += bs_bit_test(bits, a[i]);
	}
	return n;
}

const char *
bs_sparse_error_string(BsSparseError e)
{
	switch (e)
	{
		case BS_SPARSE_OK:
			return "no error";
		case BS_SPARSE_E_SHORT:
			return "the sparse encoding is shorter than its head";
		case BS_SPARSE_E_LOW_BITS:
			return "the sparse encoding's low-bit width is above 31";
		case BS_SPARSE_E_COUNT:
			return "the sparse encoding does not hold the number of positions its head says";
		case BS_SPARSE_E_LENGTH:
			return "the sparse encoding's length does not match its head";
		case BS_SPARSE_E_ORDER:
			return "the sparse encoding's positions are not strictly increasing";
		case BS_SPARSE_E_RANGE:
			return "the sparse encoding holds a position at or beyond m";
	}
	return "unknown sparse encoding error";
}
