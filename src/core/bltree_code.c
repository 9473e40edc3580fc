/*
 * bltree_code.c
 *    Level-wise range coding of BloomTree bit arrays (format in bltree_code.h).
 */
#include <string.h>

#include "bltree_code.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

static inline bool
bit_test(const uint8_t *bits, uint64_t i)
{
	return (bits[i >> 3] >> (i & 7)) & 1;
}

static inline void
bit_set(uint8_t *bits, uint64_t i)
{
	bits[i >> 3] |= (uint8_t) (1u << (i & 7));
}

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
	if (end > start)
		memset(bits + (start >> 3), one ? 0xFF : 0, (size_t) ((end - start) >> 3));
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
 * The coded bits of level a come in chunks: the whole root, or one child
 * filter per set bit of level a-1, in order.
 */
typedef struct Chunks
{
	bool		root;
	bool		done;
	uint64_t	start;			/* first bit of the current chunk */
	uint64_t	len;
	uint64_t	child0;			/* level a's first bit */
	BlTreeSetBits parents;
} Chunks;

static void
chunks_init(Chunks *c, const BlTreeLayout *L, const uint8_t *bits, int a)
{
	memset(c, 0, sizeof(*c));
	c->root = a == 0;
	c->len = L->p.m[a];
	c->child0 = L->offset[a];
	if (!c->root)
		bltree_setbits_init(&c->parents, bits, L->offset[a - 1], L->level_bits[a - 1]);
}

static bool
chunks_next(Chunks *c)
{
	uint64_t	i;

	if (c->done)
		return false;
	if (c->root)
	{
		c->start = c->child0;
		c->done = true;
		return true;
	}
	if (!bltree_setbits_next(&c->parents, &i))
	{
		c->done = true;
		return false;
	}
	c->start = c->child0 + i * c->len;
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

static inline void
rc_encode(RcEnc *e, unsigned bit, uint32_t prob0)
{
	uint32_t	bound = (e->range >> 16) * prob0;

	if (bit == 0)
		e->range = bound;
	else
	{
		e->low += bound;
		e->range -= bound;
	}
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
		if (c.len <= 56)
		{
			uint64_t	w = bltree_get_bits(bits, c.start, (unsigned) c.len);

			for (uint64_t j = 0; j < c.len; j++, w >>= 1)
				rc_encode(&e, (unsigned) (w & 1), prob0);
		}
		else
		{
			for (uint64_t j = 0; j < c.len; j++)
			{
				if ((j & 0xFFFF) == 0 && bltree_interrupt_hook)
					bltree_interrupt_hook();
				rc_encode(&e, bit_test(bits, c.start + j), prob0);
				if (e.overflow)
					break;
			}
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
				for (uint64_t j = 0; j < c.len; j++, o++)
				{
					if ((o & 0xFFFF) == 0xFFFF && bltree_interrupt_hook)
						bltree_interrupt_hook();
					if (bit_test(bits, c.start + j))
						bit_set(out, o);
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
	uint64_t	pos;
	bool		truncated;
} RcDec;

static inline unsigned
rc_decode(RcDec *d, uint32_t prob0)
{
	uint32_t	bound = (d->range >> 16) * prob0;
	unsigned	bit;

	if (d->code < bound)
	{
		d->range = bound;
		bit = 0;
	}
	else
	{
		d->code -= bound;
		d->range -= bound;
		bit = 1;
	}
	while (d->range < (UINT32_C(1) << 24))
	{
		d->range <<= 8;
		d->code <<= 8;
		if (d->pos < d->n)
			d->code |= d->in[d->pos++];
		else
			d->truncated = true;
	}
	return bit;
}

BlTreeDecodeError
bltree_decode_level(const BlTreeLayout *L, uint8_t *bits, int a, BlTreeLevelCode *lc,
					const uint8_t *in)
{
	uint64_t	coded = bltree_coded_bits(L, bits, a),
				ones = 0,
				o = 0;
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
		d.truncated = false;
	}

	range_fill(bits, L->offset[a], L->level_bits[a], false);
	chunks_init(&c, L, bits, a);
	while (chunks_next(&c))
	{
		switch (lc->mode)
		{
			case BLTREE_MODE_ZERO:
				break;
			case BLTREE_MODE_ONE:
				range_fill(bits, c.start, c.len, true);
				ones += c.len;
				break;
			case BLTREE_MODE_RAW:
				for (uint64_t j = 0; j < c.len; j++, o++)
				{
					if ((o & 0xFFFF) == 0xFFFF && bltree_interrupt_hook)
						bltree_interrupt_hook();
					if (bit_test(in, o))
					{
						bit_set(bits, c.start + j);
						ones++;
					}
				}
				break;
			case BLTREE_MODE_RANGE:
				for (uint64_t j = 0; j < c.len; j++)
				{
					if ((j & 0xFFFF) == 0xFFFF)
					{
						if (d.truncated)
							return BLTREE_DECODE_TRUNCATED;
						if (bltree_interrupt_hook)
							bltree_interrupt_hook();
					}
					if (rc_decode(&d, lc->prob0))
					{
						bit_set(bits, c.start + j);
						ones++;
					}
				}
				if (d.truncated)
					return BLTREE_DECODE_TRUNCATED;
				break;
		}
	}
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
