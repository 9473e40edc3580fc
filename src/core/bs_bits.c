/*
 * bs_bits.c
 *    Word-at-a-time bit-array operations (see bs_bits.h for the layout).
 *
 * The bulk loops (OR, AND, the popcounts) are bs_kernels.c's, in the
 * variant chosen for the CPU (POPCNT, AVX2, AVX-512): PostgreSQL's default
 * -O2 build would otherwise turn __builtin_popcountll into a library call
 * several times slower than one instruction.
 */
#include "bs_bits.h"
#include "bs_kernels.h"

void		(*bs_interrupt_hook) (void) = NULL;

/* the end of the chunk of BS_POLL_WORDS words that starts at s */
static inline size_t
chunk_end(size_t s, size_t nwords)
{
	return nwords - s > BS_POLL_WORDS ? s + BS_POLL_WORDS : nwords;
}

/* between two chunks: let the caller's hook cancel the operation */
static inline void
poll_between(size_t e, size_t nwords)
{
	if (e < nwords && bs_interrupt_hook)
		bs_interrupt_hook();
}

/*
 * The bulk operations: the kernel variant chosen for this CPU (bs_kernels.c)
 * over chunks of BS_POLL_WORDS words, the interrupt hook between chunks.
 */
void
bs_or(uint8_t *dst, const uint8_t *src, size_t nwords)
{
	BsOrFn		f = bs_kernels_get()->or_fn;

	for (size_t s = 0, e; s < nwords; s = e)
	{
		e = chunk_end(s, nwords);
		f(dst + 8 * s, src + 8 * s, e - s);
		poll_between(e, nwords);
	}
}

void
bs_and(uint8_t *dst, const uint8_t *src, size_t nwords)
{
	BsOrFn		f = bs_kernels_get()->and_fn;

	for (size_t s = 0, e; s < nwords; s = e)
	{
		e = chunk_end(s, nwords);
		f(dst + 8 * s, src + 8 * s, e - s);
		poll_between(e, nwords);
	}
}

uint64_t
bs_popcount(const uint8_t *a, size_t nwords)
{
	BsPopcountFn f = bs_kernels_get()->popcount;
	uint64_t	c = 0;

	for (size_t s = 0, e; s < nwords; s = e)
	{
		e = chunk_end(s, nwords);
		c += f(a + 8 * s, e - s);
		poll_between(e, nwords);
	}
	return c;
}

uint64_t
bs_and_popcount(const uint8_t *a, const uint8_t *b, size_t nwords)
{
	BsAndPopcountFn f = bs_kernels_get()->and_popcount;
	uint64_t	c = 0;

	for (size_t s = 0, e; s < nwords; s = e)
	{
		e = chunk_end(s, nwords);
		c += f(a + 8 * s, b + 8 * s, e - s);
		poll_between(e, nwords);
	}
	return c;
}

BsPairCounts
bs_pair_counts(const uint8_t *a, const uint8_t *b, size_t nwords)
{
	BsPairCountsFn f = bs_kernels_get()->pair_counts;
	BsPairCounts c = {0, 0, 0};

	for (size_t s = 0, e; s < nwords; s = e)
	{
		BsPairCounts d;

		e = chunk_end(s, nwords);
		d = f(a + 8 * s, b + 8 * s, e - s);
		c.a += d.a;
		c.b += d.b;
		c.and += d.and;
		poll_between(e, nwords);
	}
	return c;
}

/* whether some word i has a_i & (b_i ^ flip) nonzero (flip: 0 or all ones) */
static inline __attribute__((always_inline)) bool
any_word_and(const uint8_t *a, const uint8_t *b, size_t nwords, uint64_t flip)
{
	for (size_t s = 0, e; s < nwords; s = e)
	{
		e = chunk_end(s, nwords);
		for (size_t i = s; i < e; i++)
			if (bs_load64(a + 8 * i) & (bs_load64(b + 8 * i) ^ flip))
				return true;
		poll_between(e, nwords);
	}
	return false;
}

bool
bs_intersects(const uint8_t *a, const uint8_t *b, size_t nwords)
{
	return any_word_and(a, b, nwords, 0);
}

bool
bs_is_subset(const uint8_t *sub, const uint8_t *super, size_t nwords)
{
	return !any_word_and(sub, super, nwords, ~UINT64_C(0));
}

uint64_t
bs_set_positions(const uint8_t *bits, size_t nwords, uint32_t *out)
{
	uint64_t	n = 0;

	for (size_t w = 0; w < nwords; w++)
	{
		uint64_t	x;

		memcpy(&x, bits + w * 8, 8);
		for (; x; x &= x - 1)
			out[n++] = (uint32_t) (w * 64) + (uint32_t) __builtin_ctzll(x);
	}
	return n;
}

void
bs_fold(uint8_t *dst, const uint8_t *src, uint32_t m, uint32_t factor,
		BsFoldMapping mapping)
{
	uint32_t	newm = m / factor;
	size_t		nwords = bs_words_for_bits(m);

	/* walk the set bits only: sparse filters fold in time of their popcount */
	for (size_t w = 0; w < nwords; w++)
	{
		uint64_t	word = bs_load64le(src + 8 * w);

		/* a dense word costs 64 bit sets: poll 64 times as often as the scans */
		if ((w & (BS_POLL_WORDS / 64 - 1)) == BS_POLL_WORDS / 64 - 1)
			poll_between(w, nwords);

		while (word)
		{
			uint32_t	i = (uint32_t) (w * 64 + (size_t) __builtin_ctzll(word));

			word &= word - 1;
			bs_bit_set(dst, mapping == BS_FOLD_DIV ? i / factor : i % newm);
		}
	}
}

bool
bs_tail_is_clear(const uint8_t *bits, uint32_t m)
{
	size_t		nbytes = 8 * bs_words_for_bits(m);
	size_t		full = m / 8;

	if (m % 8 != 0 && (bits[full++] >> (m % 8)) != 0)
		return false;
	for (size_t i = full; i < nbytes; i++)
		if (bits[i] != 0)
			return false;
	return true;
}

const char *
bs_popcount_impl(void)
{
	return bs_variant_name(bs_kernels_get()->chosen[BS_KERNEL_POPCOUNT]);
}
