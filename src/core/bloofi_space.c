/*
 * bloofi_space.c
 *    Bit work of the Bloofi free-page map (contracts in bloofi_space.h).
 *
 * Work is one pass over the words of [0, nbits): whole words of ones or of
 * zeros are taken at once, only mixed words are walked bit by bit (by runs,
 * with count-trailing-zeros).
 */
#include "bloofi_space.h"

#include "bs_bits.h"

/* word w of bits, restricted to [0, nbits) (bits past the end read as zero) */
static inline uint64_t
space_word(const uint8_t *bits, uint32_t nbits, uint32_t w)
{
	uint32_t	left = nbits - 64 * w;	/* > 0 */
	uint64_t	v = 0;

	if (left >= 64)
		return bs_load64le(bits + 8 * (size_t) w);
	for (uint32_t i = 0; i < (left + 7) / 8; i++)
		v |= (uint64_t) bits[8 * (size_t) w + i] << (8 * i);
	return v & ((UINT64_C(1) << left) - 1);
}

void
bloofi_bits_fill(uint8_t *bits, uint32_t from, uint32_t n, bool value)
{
	uint32_t	i = from;
	uint32_t	end = from + n;

	while (i < end && i % 8 != 0)
	{
		if (value)
			bits[i / 8] |= (uint8_t) (1u << (i % 8));
		else
			bits[i / 8] &= (uint8_t) ~(1u << (i % 8));
		i++;
	}
	if (end - i >= 8)
	{
		memset(bits + i / 8, value ? 0xFF : 0, (end - i) / 8);
		i += (end - i) / 8 * 8;
	}
	while (i < end)
	{
		if (value)
			bits[i / 8] |= (uint8_t) (1u << (i % 8));
		else
			bits[i / 8] &= (uint8_t) ~(1u << (i % 8));
		i++;
	}
}

int64_t
bloofi_bits_find_run(const uint8_t *bits, uint32_t nbits, uint32_t n)
{
	uint32_t	nwords = (nbits + 63) / 64;
	uint64_t	start = 0;
	uint64_t	run = 0;			/* set bits ending just before the current word */

	if (n == 0)
		return -1;
	for (uint32_t w = 0; w < nwords; w++)
	{
		uint64_t	v = space_word(bits, nbits, w);
		uint32_t	width = nbits - 64 * w >= 64 ? 64 : nbits - 64 * w;
		uint32_t	b = 0;

		if (v == 0)
		{
			run = 0;
			continue;
		}
		if (width == 64 && v == ~UINT64_C(0))
		{
			if (run == 0)
				start = 64 * (uint64_t) w;
			run += 64;
			if (run >= n)
				return (int64_t) start;
			continue;
		}
		/* a mixed word: its runs of ones, lowest first */
		while (b < width)
		{
			uint64_t	rest = v >> b;
			uint32_t	zeros,
						ones;

			if (rest == 0)
			{
				run = 0;
				break;
			}
			zeros = (uint32_t) __builtin_ctzll(rest);
			if (zeros > 0)
			{
				run = 0;
				b += zeros;
				rest >>= zeros;
			}
			ones = ~rest == 0 ? 64 - b : (uint32_t) __builtin_ctzll(~rest);
			if (b + ones > width)
				ones = width - b;
			if (run == 0)
				start = 64 * (uint64_t) w + b;
			run += ones;
			if (run >= n)
				return (int64_t) start;
			b += ones;
			if (b < width)
				run = 0;		/* a zero follows */
		}
	}
	return -1;
}

uint32_t
bloofi_bits_count(const uint8_t *bits, uint32_t nbits)
{
	uint32_t	c = 0;

	for (uint32_t w = 0; w < (nbits + 63) / 64; w++)
		c += (uint32_t) __builtin_popcountll(space_word(bits, nbits, w));
	return c;
}

uint32_t
bloofi_bits_runs(const uint8_t *bits, uint32_t nbits, bool carry)
{
	uint32_t	runs = 0;
	bool		prev = carry;

	for (uint32_t w = 0; w < (nbits + 63) / 64; w++)
	{
		uint64_t	v = space_word(bits, nbits, w);
		uint32_t	width = nbits - 64 * w >= 64 ? 64 : nbits - 64 * w;
		/* run starts: a one whose lower neighbour is a zero */
		uint64_t	starts = v & ~((v << 1) | (prev ? 1 : 0));

		runs += (uint32_t) __builtin_popcountll(starts);
		prev = (v >> (width - 1)) & 1;
	}
	return runs;
}

uint32_t
bloofi_bits_trailing(const uint8_t *bits, uint32_t nbits)
{
	uint32_t	r = 0;

	for (uint32_t w = (nbits + 63) / 64; w-- > 0;)
	{
		uint32_t	width = nbits - 64 * w >= 64 ? 64 : nbits - 64 * w;
		uint64_t	v = space_word(bits, nbits, w);
		/* the word's top `width` bits, reversed into a count of leading ones */
		uint64_t	shifted = v << (64 - width);
		uint32_t	ones = ~shifted == 0 ? 64 : (uint32_t) __builtin_clzll(~shifted);

		if (ones > width)
			ones = width;
		r += ones;
		if (ones < width)
			break;
	}
	return r;
}
