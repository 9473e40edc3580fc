/*
 * bs_hash.c
 *    Hashing scheme version 1: element bytes -> one 128-bit key -> k positions.
 *    The normative description is in bs_hash.h and docs/hashing.md.
 */
#include "bs_hash.h"
#include "bs_bits.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

static const char *const family_names[BS_NUM_HASH_FAMILIES] = {"xxh3", "linear"};

const char *
bs_hash_family_name(int family)
{
	if (family < 0 || family >= BS_NUM_HASH_FAMILIES)
		return NULL;
	return family_names[family];
}

int
bs_hash_family_from_name(const char *name)
{
	for (int i = 0; i < BS_NUM_HASH_FAMILIES; i++)
		if (strcmp(name, family_names[i]) == 0)
			return i;
	return -1;
}

bool
bs_params_equal(const BsParams *a, const BsParams *b)
{
	return a->m == b->m && a->k == b->k && a->hash == b->hash &&
		a->seed == b->seed;
}

static uint64_t
splitmix64_next(uint64_t *state)
{
	uint64_t	z = (*state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

void
bs_linear_coefficients(int32_t seed, int k, uint64_t *a, uint64_t *b)
{
	uint64_t	state = (uint64_t) (uint32_t) seed;

	for (int i = 0; i < k; i++)
	{
		a[i] = splitmix64_next(&state) | 1;
		b[i] = splitmix64_next(&state);
	}
}

void
bs_hasher_init(BsHasher *h, const BsParams *p)
{
	memset(h, 0, sizeof(*h));
	h->p = *p;
	h->xseed = (uint64_t) (uint32_t) p->seed;
	if (p->hash == BS_HASH_LINEAR)
	{
		uint64_t	a[BS_MAX_K],
					b[BS_MAX_K];

		bs_linear_coefficients(p->seed, p->k, a, b);
		for (int i = 0; i < p->k; i++)
		{
			h->a[i] = (uint32_t) (a[i] % p->m);
			h->b[i] = (uint32_t) (b[i] % p->m);
		}
	}
}

BsKey
bs_key_bytes(const BsHasher *h, const void *data, size_t len)
{
	BsKey		key;

	if (h->p.hash == BS_HASH_LINEAR)
	{
		key.h1 = XXH3_64bits_withSeed(data, len, h->xseed);
		key.h2 = 0;
	}
	else
	{
		XXH128_hash_t r = XXH3_128bits_withSeed(data, len, h->xseed);

		key.h1 = r.low64;
		key.h2 = r.high64;
	}
	return key;
}

BsKey
bs_key_int64(const BsHasher *h, int64_t x)
{
	uint8_t		le[8];
	uint64_t	u = (uint64_t) x;

	if (h->p.hash == BS_HASH_LINEAR)
	{
		BsKey		key = {u, 0};

		return key;
	}
	/* the 8 little-endian bytes, stored in one go (a byte loop is not unrolled at -O2) */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	u = __builtin_bswap64(u);
#endif
	bs_store64(le, u);
	return bs_key_bytes(h, le, sizeof(le));
}

/* x mod m as a value in [0, m) for x taken as a signed int64 */
static inline uint64_t
linear_residue(uint64_t h1, uint32_t m)
{
	int64_t		r = (int64_t) h1 % (int64_t) m;

	return (uint64_t) (r < 0 ? r + (int64_t) m : r);
}

/* position i of key: (a_i x + b_i) mod m for 'linear', multiply-high of h1 + i h2 for xxh3 */
static inline uint32_t
position(const BsHasher *h, BsKey key, uint64_t xm, int i)
{
	if (h->p.hash == BS_HASH_LINEAR)
		return (uint32_t) (((uint64_t) h->a[i] * xm + h->b[i]) % h->p.m);
	return (uint32_t) bs_mulhi64(key.h1 + (uint64_t) i * key.h2, h->p.m);
}

void
bs_key_positions(const BsHasher *h, BsKey key, uint32_t *pos)
{
	uint64_t	xm = h->p.hash == BS_HASH_LINEAR ? linear_residue(key.h1, h->p.m) : 0;

	for (int i = 0; i < h->p.k; i++)
		pos[i] = position(h, key, xm, i);
}

bool
bs_key_test(const BsHasher *h, BsKey key, const uint8_t *bits)
{
	uint64_t	xm = h->p.hash == BS_HASH_LINEAR ? linear_residue(key.h1, h->p.m) : 0;

	for (int i = 0; i < h->p.k; i++)
		if (!bs_bit_test(bits, position(h, key, xm, i)))
			return false;
	return true;
}

void
bs_key_set(const BsHasher *h, BsKey key, uint8_t *bits)
{
	uint64_t	xm = h->p.hash == BS_HASH_LINEAR ? linear_residue(key.h1, h->p.m) : 0;

	for (int i = 0; i < h->p.k; i++)
		bs_bit_set(bits, position(h, key, xm, i));
}

int
bs_key_byte_probes(const BsHasher *h, BsKey key, uint32_t *off, uint8_t *mask)
{
	uint32_t	pos[BS_MAX_K];
	int			n = 0;

	bs_key_positions(h, key, pos);
	/* insertion sort of at most BS_MAX_K positions */
	for (int i = 1; i < h->p.k; i++)
	{
		uint32_t	v = pos[i];
		int			j = i;

		for (; j > 0 && pos[j - 1] > v; j--)
			pos[j] = pos[j - 1];
		pos[j] = v;
	}
	for (int i = 0; i < h->p.k; i++)
	{
		uint32_t	byte = pos[i] >> 3;
		uint8_t		bit = (uint8_t) (1u << (pos[i] & 7));

		if (n > 0 && off[n - 1] == byte)
			mask[n - 1] |= bit;
		else
		{
			off[n] = byte;
			mask[n] = bit;
			n++;
		}
	}
	return n;
}
