/*
 * bltree_code.c
 *    Level-wise range coding of BloomTree bit arrays (format in bltree_code.h).
 */
#include <string.h>

#include "bltree_code.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

/* set [start, start + len) to all zeros or all ones */
static void
range_fill(uint8_t *bits, uint64_t start, uint64_t len, bool one)
{
	uint64_t	end = start + len;

	for (; start < end && (start & 7); start++)
		bits[start >> 3] = one ? bits[start >> 3] | (uint8_t) (1u << (start & 7)) :
			bits[start >> 3] & (uint8_t) ~(1u << (start & 7));
	for (; end > start && (end & 7); end--)
		bits[(end - 1) >> 3] = one ? bits[(end - 1) >> 3] | (uint8_t) (1u << ((end - 1) & 7)) :
			bits[(end - 1) >> 3] & (uint8_t) ~(1u << ((end - 1) & 7));
	/* whole bytes, 1 MiB at a time between interrupt checks */
	while (end > start)
	{
		uint64_t	n = (end - start) >> 3;

		if (n > 8 * BS_POLL_WORDS)
			n = 8 * BS_POLL_WORDS;
		memset(bits + (start >> 3), one ? 0xFF : 0, (size_t) n);
		start += 8 * n;
		if (end > start && bltree_interrupt_hook)
			bltree_interrupt_hook();
	}
}

/* bits [o, o + len) (len <= 56) of an n-byte buffer, reading no byte past it */
static inline uint64_t
get_bits_bounded(const uint8_t *buf, uint64_t n, uint64_t o, unsigned len)
{
	uint64_t	byte = o >> 3,
				w = 0;

	if (byte + 8 <= n)
		w = bs_load64le(buf + byte);
	else
		for (uint64_t i = byte; i < n; i++)
			w |= (uint64_t) buf[i] << (8 * (i - byte));
	return (w >> (o & 7)) & ((UINT64_C(1) << len) - 1);
}

/* OR the low len (<= 56) bits of w into bits [o, o + len) of an n-byte buffer */
static inline void
put_bits_bounded(uint8_t *buf, uint64_t n, uint64_t o, uint64_t w)
{
	uint64_t	byte = o >> 3;

	w <<= (o & 7);
	for (uint64_t i = byte; i < n && w; i++, w >>= 8)
		buf[i] |= (uint8_t) w;
}

/* OR the low len (<= 56) bits of w into bits [start, start + len) */
static inline void
or_bits(uint8_t *bits, uint64_t start, unsigned len, uint64_t w)
{
	uint8_t    *p = bits + (start >> 3);
	uint64_t	cur = bs_load64le(p) | (w << (start & 7));

	(void) len;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	cur = __builtin_bswap64(cur);
#endif
	bs_store64(p, cur);
}

uint64_t
bltree_coded_bits(const BlTreeLayout *L, const uint8_t *bits, int a)
{
	if (a == 0)
		return L->p.m[0];
	return bltree_level_ones(L, bits, a - 1) * L->p.m[a];
}

uint64_t
bltree_level_max_bytes(const BlTreeLayout *L, int a)
{
	return (L->level_bits[a] + 7) / 8;
}

/*
 * The coded bits of level a come in chunks: the whole root, or the child
 * filters of each run of consecutive set bits of level a-1 (they are
 * adjacent), in order.
 */
typedef struct Chunks
{
	bool		root;
	bool		done;
	bool		have_next;		/* next_i is a set parent not yet returned */
	uint64_t	start;			/* first bit of the current chunk */
	uint64_t	len;
	uint64_t	child0;			/* level a's first bit */
	uint64_t	m;				/* bits per filter of level a */
	uint64_t	next_i;
	BlTreeSetBits parents;
} Chunks;

/* start walking the chunks of level a of bits */
static void
chunks_init(Chunks *c, const BlTreeLayout *L, const uint8_t *bits, int a)
{
	memset(c, 0, sizeof(*c));
	c->root = a == 0;
	c->m = L->p.m[a];
	c->child0 = L->offset[a];
	if (!c->root)
		bltree_setbits_init(&c->parents, bits, L->offset[a - 1], L->level_bits[a - 1]);
}

/* the next chunk in c->start, c->len; false after the last */
static bool
chunks_next(Chunks *c)
{
	uint64_t	i0,
				i1;

	if (c->done)
		return false;
	if (c->root)
	{
		c->start = c->child0;
		c->len = c->m;
		c->done = true;
		return true;
	}
	if (!c->have_next && !bltree_setbits_next(&c->parents, &c->next_i))
	{
		c->done = true;
		return false;
	}
	i0 = c->next_i;
	i1 = i0 + 1;
	c->have_next = false;
	while (bltree_setbits_next(&c->parents, &c->next_i))
	{
		if (c->next_i != i1)
		{
			c->have_next = true;
			break;
		}
		i1++;
	}
	c->start = c->child0 + i0 * c->m;
	c->len = (i1 - i0) * c->m;
	return true;
}

/* ---- range encoder ------------------------------------------------------ */

typedef struct RcEnc
{
	uint64_t	low;
	uint32_t	range;
	uint8_t		cache;
	uint64_t	cache_size;
	bool		first;			/* the first byte out (always 0) is dropped */
	bool		overflow;		/* the stream reached cap bytes */
	uint8_t    *out;
	uint64_t	n;
	uint64_t	cap;
} RcEnc;

/* append a byte to the stream (dropping the first, marking overflow at cap) */
static inline void
rc_emit(RcEnc *e, uint8_t byte)
{
	if (e->first)
	{
		e->first = false;
		return;
	}
	if (e->n >= e->cap)
	{
		e->overflow = true;
		return;
	}
	e->out[e->n++] = byte;
}

/* shift the top byte out of low, propagating a carry through the cached 0xFF bytes */
static inline void
rc_shift_low(RcEnc *e)
{
	if ((uint32_t) e->low < UINT32_C(0xFF000000) || (e->low >> 32) != 0)
	{
		uint8_t		carry = (uint8_t) (e->low >> 32);
		uint8_t		temp = e->cache;

		do
		{
			rc_emit(e, (uint8_t) (temp + carry));
			temp = 0xFF;
		} while (--e->cache_size != 0);
		e->cache = (uint8_t) (e->low >> 24);
	}
	e->cache_size++;
	e->low = (e->low & UINT64_C(0x00FFFFFF)) << 8;
}

/* code one bit with P(0) = prob0 / 65536 */
static inline void
rc_encode(RcEnc *e, unsigned bit, uint32_t prob0)
{
	uint32_t	bound = (e->range >> 16) * prob0;
	uint32_t	mask = 0u - (uint32_t) bit;

	e->low += bound & mask;
	e->range = (bound & ~mask) | ((e->range - bound) & mask);
	while (e->range < (UINT32_C(1) << 24))
	{
		e->range <<= 8;
		rc_shift_low(e);
	}
}

/* range-code the coded bits of level a; false when the stream reached cap bytes */
static bool
encode_range(const BlTreeLayout *L, const uint8_t *bits, int a, uint32_t prob0,
			 uint8_t *out, uint64_t cap, uint64_t *nbytes)
{
	RcEnc		e = {0, UINT32_C(0xFFFFFFFF), 0, 1, true, false, out, 0, cap};
	Chunks		c;

	chunks_init(&c, L, bits, a);
	while (chunks_next(&c) && !e.overflow)
	{
		for (uint64_t j = 0; j < c.len && !e.overflow; j += 56)
		{
			unsigned	len = c.len - j < 56 ? (unsigned) (c.len - j) : 56;
			uint64_t	w = bltree_get_bits(bits, c.start + j, len);

			if ((j & 0xFFFF) > ((j + 56) & 0xFFFF) && bltree_interrupt_hook)
				bltree_interrupt_hook();
			for (unsigned b = 0; b < len; b++, w >>= 1)
				rc_encode(&e, (unsigned) (w & 1), prob0);
		}
	}
	for (int i = 0; i < 5; i++)
		rc_shift_low(&e);
	*nbytes = e.n;
	return !e.overflow;
}

uint64_t
bltree_encode_level(const BlTreeLayout *L, const uint8_t *bits, int a,
					BlTreeLevelCode *lc, uint8_t *out)
{
	uint64_t	coded = bltree_coded_bits(L, bits, a),
				ones = bltree_level_ones(L, bits, a),
				raw = (coded + 7) / 8,
				n;

	memset(lc, 0, sizeof(*lc));
	lc->coded_bits = coded;
	lc->ones = ones;
	if (ones == 0)
		lc->mode = BLTREE_MODE_ZERO;
	else if (ones == coded)
		lc->mode = BLTREE_MODE_ONE;
	else
	{
		uint64_t	p = ((coded - ones) * UINT64_C(65536) + coded / 2) / coded;

		lc->prob0 = (uint16_t) (p < 1 ? 1 : p > 65535 ? 65535 : p);
		if (encode_range(L, bits, a, lc->prob0, out, raw, &n) && n < raw)
		{
			lc->mode = BLTREE_MODE_RANGE;
			lc->nbytes = n;
			return n;
		}
		/* RAW: the coded bits one after the other */
		{
			Chunks		c;
			uint64_t	o = 0;

			lc->mode = BLTREE_MODE_RAW;
			lc->prob0 = 0;
			memset(out, 0, raw);
			chunks_init(&c, L, bits, a);
			while (chunks_next(&c))
				for (uint64_t j = 0; j < c.len; j += 56)
				{
					unsigned	len = c.len - j < 56 ? (unsigned) (c.len - j) : 56;

					if ((o & 0xFFFF) > ((o + 56) & 0xFFFF) && bltree_interrupt_hook)
						bltree_interrupt_hook();
					put_bits_bounded(out, raw, o, bltree_get_bits(bits, c.start + j, len));
					o += len;
				}
			lc->nbytes = raw;
		}
	}
	return lc->nbytes;
}

uint64_t
bltree_max_coded_bytes(const BlTreeLayout *L)
{
	uint64_t	n = 0;

	for (int a = 0; a < L->p.d; a++)
		n += bltree_level_max_bytes(L, a);
	return n;
}

uint64_t
bltree_encode(const BlTreeLayout *L, const uint8_t *bits, BlTreeLevelCode *lc, uint8_t *out)
{
	uint64_t	n = 0;

	for (int a = 0; a < L->p.d; a++)
		n += bltree_encode_level(L, bits, a, &lc[a], out + n);
	return n;
}

/* ---- decoder ------------------------------------------------------------ */

typedef struct RcDec
{
	uint32_t	range;
	uint32_t	code;
	const uint8_t *in;
	uint64_t	n;
	uint64_t	pos;			/* > n: the stream ended early */
} RcDec;

/*
 * Decode len (<= 56) bits, returned as the low bits of a word.  The state
 * lives in locals through the loop; a read past the stream reads zeros and
 * leaves pos > n, which the caller reports.
 */
static inline uint64_t
rc_decode_word(RcDec *d, uint32_t prob0, unsigned len)
{
	uint32_t	range = d->range,
				code = d->code;
	uint64_t	pos = d->pos,
				n = d->n,
				w = 0;
	const uint8_t *in = d->in;

	for (unsigned b = 0; b < len; b++)
	{
		uint32_t	bound = (range >> 16) * prob0;
		uint32_t	bit = code >= bound;
		uint32_t	mask = 0u - bit;

		/* branch-free: the bit is as unpredictable as the data */
		code -= bound & mask;
		range = (bound & ~mask) | ((range - bound) & mask);
		w |= (uint64_t) bit << b;
		while (range < (UINT32_C(1) << 24))
		{
			range <<= 8;
			code = (code << 8) | (pos < n ? in[pos] : 0);
			pos++;
		}
	}
	d->range = range;
	d->code = code;
	d->pos = pos;
	return w;
}

BlTreeDecodeError
bltree_decode_level(const BlTreeLayout *L, uint8_t *bits, int a, BlTreeLevelCode *lc,
					const uint8_t *in)
{
	uint64_t	coded = bltree_coded_bits(L, bits, a),
				ones = 0,
				o = 0,
				nchunks = 0;
	Chunks		c;
	RcDec		d = {0};

	lc->coded_bits = coded;
	if (lc->mode >= BLTREE_NUM_MODES ||
		(lc->mode == BLTREE_MODE_RANGE) != (lc->prob0 != 0))
		return BLTREE_DECODE_BAD_MODE;
	if ((lc->mode == BLTREE_MODE_ZERO || lc->mode == BLTREE_MODE_ONE) && lc->nbytes != 0)
		return BLTREE_DECODE_BAD_LENGTH;
	if (lc->mode == BLTREE_MODE_RAW && lc->nbytes != (coded + 7) / 8)
		return BLTREE_DECODE_BAD_LENGTH;
	if (lc->mode == BLTREE_MODE_RAW && (coded & 7) != 0 &&
		(in[coded >> 3] >> (coded & 7)) != 0)
		return BLTREE_DECODE_BAD_PADDING;
	if (lc->mode == BLTREE_MODE_RANGE)
	{
		if (lc->nbytes < 4)
			return BLTREE_DECODE_TRUNCATED;
		d.code = (uint32_t) in[0] << 24 | (uint32_t) in[1] << 16 |
			(uint32_t) in[2] << 8 | in[3];
		if (d.code == UINT32_C(0xFFFFFFFF))
			return BLTREE_DECODE_BAD_START;
		d.range = UINT32_C(0xFFFFFFFF);
		d.in = in;
		d.n = lc->nbytes;
		d.pos = 4;
	}

	range_fill(bits, L->offset[a], L->level_bits[a], false);
	chunks_init(&c, L, bits, a);
	while (chunks_next(&c))
	{
		/* up to 2^30 one-filter chunks (alternating parents): poll between them too */
		if ((++nchunks & 0x3FFF) == 0 && bltree_interrupt_hook)
			bltree_interrupt_hook();
		switch (lc->mode)
		{
			case BLTREE_MODE_ZERO:
				break;
			case BLTREE_MODE_ONE:
				range_fill(bits, c.start, c.len, true);
				ones += c.len;
				break;
			case BLTREE_MODE_RAW:
			case BLTREE_MODE_RANGE:
				/* up to 56 bits at a time, written with one word store */
				for (uint64_t j = 0; j < c.len; j += 56)
				{
					unsigned	len = c.len - j < 56 ? (unsigned) (c.len - j) : 56;
					uint64_t	w;

					if ((o & 0xFFFF) > ((o + 56) & 0xFFFF))
					{
						if (d.pos > d.n)
							return BLTREE_DECODE_TRUNCATED;
						if (bltree_interrupt_hook)
							bltree_interrupt_hook();
					}
					w = lc->mode == BLTREE_MODE_RAW ? get_bits_bounded(in, lc->nbytes, o, len) :
						rc_decode_word(&d, lc->prob0, len);
					o += len;
					if (w)
					{
						or_bits(bits, c.start + j, len, w);
						ones += bltree_popcount64(w);
					}
				}
				break;
		}
	}
	if (lc->mode == BLTREE_MODE_RANGE && d.pos > d.n)
		return BLTREE_DECODE_TRUNCATED;
	if (lc->mode == BLTREE_MODE_RANGE && d.pos != d.n)
		return BLTREE_DECODE_TRAILING;
	lc->ones = ones;
	return BLTREE_DECODE_OK;
}

uint64_t
bltree_digest(const void *data, size_t len)
{
	return XXH3_64bits(data, len);
}

const char *
bltree_decode_error_string(BlTreeDecodeError e)
{
	switch (e)
	{
		case BLTREE_DECODE_OK:
			return "no error";
		case BLTREE_DECODE_BAD_MODE:
			return "unknown coding mode, or a probability that does not fit the mode";
		case BLTREE_DECODE_BAD_LENGTH:
			return "stream length does not fit the mode and the number of coded bits";
		case BLTREE_DECODE_TRUNCATED:
			return "range-coded stream ends before the level's last bit";
		case BLTREE_DECODE_TRAILING:
			return "range-coded stream has bytes after the level's last bit";
		case BLTREE_DECODE_BAD_START:
			return "range-coded stream starts with ff ff ff ff";
		case BLTREE_DECODE_BAD_PADDING:
			return "raw stream has padding bits set";
	}
	return "unknown error";
}

const char *
bltree_mode_name(int mode)
{
	static const char *const names[BLTREE_NUM_MODES] = {"zero", "one", "range", "raw"};

	return mode >= 0 && mode < BLTREE_NUM_MODES ? names[mode] : "?";
}

double
bltree_coded_entropy_bits(const BlTreeLayout *L, const uint8_t *bits)
{
	double		w = 0.0;

	for (int a = 0; a < L->p.d; a++)
	{
		uint64_t	coded = bltree_coded_bits(L, bits, a);

		if (coded > 0)
			w += (double) coded *
				bltree_h2((double) bltree_level_ones(L, bits, a) / (double) coded);
	}
	return w;
}
