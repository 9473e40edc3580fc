/*
 * cbloom.c
 *    Counting Bloom filters over the bloomfilter hashing scheme: add, remove
 *    with saturation, membership, conversion to a bloomfilter, merging.  The
 *    rules are in cbloom.h.
 */
#include "cbloom.h"
#include "bs_bits.h"

#include <string.h>

void
cb_add(const BsHasher *h, BsKey key, uint8_t *counters)
{
	uint32_t	pos[BS_MAX_K];

	bs_key_positions(h, key, pos);
	for (int i = 0; i < h->p.k; i++)
	{
		unsigned	c = cb_get(counters, pos[i]);

		if (c < CB_SATURATED)
			cb_put(counters, pos[i], c + 1);
	}
}

CbRemoveResult
cb_remove(const BsHasher *h, BsKey key, uint8_t *counters)
{
	uint32_t	pos[BS_MAX_K];
	int			k = h->p.k;

	bs_key_positions(h, key, pos);
	/* check every position first, so that a refused removal changes nothing */
	for (int i = 0; i < k; i++)
	{
		unsigned	c = cb_get(counters, pos[i]);
		unsigned	hits = 0;

		/* at most k positions can hit one counter: c >= k always suffices */
		if (c == CB_SATURATED || c >= (unsigned) k)
			continue;
		for (int j = 0; j < k; j++)
			hits += pos[j] == pos[i];
		if (c < hits)
			return CB_ABSENT;
	}
	for (int i = 0; i < k; i++)
	{
		unsigned	c = cb_get(counters, pos[i]);

		if (c < CB_SATURATED)
			cb_put(counters, pos[i], c - 1);
	}
	return CB_REMOVED;
}

bool
cb_test(const BsHasher *h, BsKey key, const uint8_t *counters)
{
	uint32_t	pos[BS_MAX_K];

	bs_key_positions(h, key, pos);
	for (int i = 0; i < h->p.k; i++)
		if (cb_get(counters, pos[i]) == 0)
			return false;
	return true;
}

unsigned
cb_min_count(const BsHasher *h, BsKey key, const uint8_t *counters)
{
	uint32_t	pos[BS_MAX_K];
	unsigned	least = CB_SATURATED;

	bs_key_positions(h, key, pos);
	for (int i = 0; i < h->p.k; i++)
	{
		unsigned	c = cb_get(counters, pos[i]);

		if (c < least)
			least = c;
	}
	return least;
}

/*
 * A word of 16 counters -> a word with bit 4j set where counter j is non-zero
 * (the OR of each nibble's four bits, gathered in the nibble's low bit).
 */
static inline uint64_t
nonzero_nibbles(uint64_t w)
{
	return (w | w >> 1 | w >> 2 | w >> 3) & UINT64_C(0x1111111111111111);
}

uint64_t
cb_saturated(const uint8_t *counters, uint32_t m)
{
	size_t		nwords = CB_NBYTES(m) / 8;
	uint64_t	n = 0;

	for (size_t w = 0; w < nwords; w++)
	{
		uint64_t	x = bs_load64(counters + 8 * w);

		bs_poll_bytes(w, 8);

		/* a nibble is 15 when all four bits are set (padding nibbles are zero) */
		n += (uint64_t) __builtin_popcountll(x & x >> 1 & x >> 2 & x >> 3 &
											 UINT64_C(0x1111111111111111));
	}
	return n;
}

uint64_t
cb_total(const uint8_t *counters, uint32_t m)
{
	uint64_t	sum = 0;

	for (size_t b = 0; b < CB_NBYTES(m); b++)
	{
		bs_poll_bytes(b, 1);
		sum += (counters[b] & 15u) + (counters[b] >> 4);
	}
	return sum;
}

void
cb_to_bits(const uint8_t *counters, uint32_t m, uint8_t *bits)
{
	size_t		nwords = CB_NBYTES(m) / 8;

	for (size_t w = 0; w < nwords; w++)
	{
		/* byte order independent: nibble j of this word is counter 16w + j */
		uint64_t	flags = nonzero_nibbles(bs_load64le(counters + 8 * w));
		uint32_t	out = 0;

		bs_poll_bytes(w, 8);
		while (flags)
		{
			int			j = __builtin_ctzll(flags) >> 2;

			out |= UINT32_C(1) << j;
			flags &= flags - 1;
		}
		bits[2 * w] |= (uint8_t) out;
		if (2 * w + 1 < ((size_t) m + 7) / 8)
			bits[2 * w + 1] |= (uint8_t) (out >> 8);
	}
}

void
cb_merge(uint8_t *dst, const uint8_t *src, uint32_t m)
{
	for (size_t b = 0; b < ((size_t) m + 1) / 2; b++)
	{
		unsigned	lo = (dst[b] & 15u) + (src[b] & 15u);
		unsigned	hi = (dst[b] >> 4) + (src[b] >> 4);

		bs_poll_bytes(b, 1);
		if (lo > CB_SATURATED)
			lo = CB_SATURATED;
		if (hi > CB_SATURATED)
			hi = CB_SATURATED;
		dst[b] = (uint8_t) (hi << 4 | lo);
	}
}

bool
cb_tail_is_clear(const uint8_t *counters, uint32_t m)
{
	size_t		nbytes = CB_NBYTES(m);

	if ((m & 1) && (counters[m / 2] >> 4) != 0)
		return false;
	for (size_t b = ((size_t) m + 1) / 2; b < nbytes; b++)
		if (counters[b] != 0)
			return false;
	return true;
}
