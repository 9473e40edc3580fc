/*
 * bs_bits.c
 *    Word-at-a-time bit-array operations (see bs_bits.h for the layout).
 *
 * The popcount loops are compiled twice on x86-64, once for the POPCNT
 * instruction and once for the generic instruction set, and the dynamic loader
 * picks the right clone for the CPU (GCC/Clang target_clones).  Without this
 * PostgreSQL's default -O2 build would turn __builtin_popcountll into a
 * library call several times slower than one instruction.
 */
#include "bs_bits.h"

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

void
bs_or(uint8_t *dst, const uint8_t *src, size_t nwords)
{
	for (size_t s = 0, e; s < nwords; s = e)
	{
		e = chunk_end(s, nwords);
		for (size_t i = s; i < e; i++)
			bs_store64(dst + 8 * i, bs_load64(dst + 8 * i) | bs_load64(src + 8 * i));
		poll_between(e, nwords);
	}
}

void
bs_and(uint8_t *dst, const uint8_t *src, size_t nwords)
{
	for (size_t s = 0, e; s < nwords; s = e)
	{
		e = chunk_end(s, nwords);
		for (size_t i = s; i < e; i++)
			bs_store64(dst + 8 * i, bs_load64(dst + 8 * i) & bs_load64(src + 8 * i));
		poll_between(e, nwords);
	}
}

BS_POPCNT_CLONES
uint64_t
bs_popcount(const uint8_t *a, size_t nwords)
{
	uint64_t	c0 = 0,
				c1 = 0;

	for (size_t s = 0, e; s < nwords; s = e)
	{
		size_t		i = s;

		e = chunk_end(s, nwords);
		/* two accumulators break the dependency chain on the adds */
		for (; i + 2 <= e; i += 2)
		{
			c0 += (uint64_t) __builtin_popcountll(bs_load64(a + 8 * i));
			c1 += (uint64_t) __builtin_popcountll(bs_load64(a + 8 * i + 8));
		}
		for (; i < e; i++)
			c0 += (uint64_t) __builtin_popcountll(bs_load64(a + 8 * i));
		poll_between(e, nwords);
	}
	return c0 + c1;
}

BS_POPCNT_CLONES
uint64_t
bs_and_popcount(const uint8_t *a, const uint8_t *b, size_t nwords)
{
	uint64_t	c0 = 0,
				c1 = 0;

	for (size_t s = 0, e; s < nwords; s = e)
	{
		size_t		i = s;

		e = chunk_end(s, nwords);
		for (; i + 2 <= e; i += 2)
		{
			c0 += (uint64_t) __builtin_popcountll(bs_load64(a + 8 * i) & bs_load64(b + 8 * i));
			c1 += (uint64_t) __builtin_popcountll(bs_load64(a + 8 * i + 8) & bs_load64(b + 8 * i + 8));
		}
		for (; i < e; i++)
			c0 += (uint64_t) __builtin_popcountll(bs_load64(a + 8 * i) & bs_load64(b + 8 * i));
		poll_between(e, nwords);
	}
	return c0 + c1;
}

BS_POPCNT_CLONES
BsPairCounts
bs_pair_counts(const uint8_t *a, const uint8_t *b, size_t nwords)
{
	BsPairCounts c = {0, 0, 0};

	for (size_t s = 0, e; s < nwords; s = e)
	{
		e = chunk_end(s, nwords);
		for (size_t i = s; i < e; i++)
		{
			uint64_t	wa = bs_load64(a + 8 * i),
						wb = bs_load64(b + 8 * i);

			c.a += (uint64_t) __builtin_popcountll(wa);
			c.b += (uint64_t) __builtin_popcountll(wb);
			c.and += (uint64_t) __builtin_popcountll(wa & wb);
		}
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
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && \
	!defined(BS_NO_TARGET_CLONES)
	__builtin_cpu_init();
	return __builtin_cpu_supports("popcnt") ? "popcnt" : "generic";
#else
	return "generic";
#endif
}
