/*
 * bst_rng.h
 *    The random numbers of BloomSampleTree sampling: xoshiro256** seeded by
 *    splitmix64 (PostgreSQL-independent, reproducible for a given seed).
 */
#ifndef BST_RNG_H
#define BST_RNG_H

#include <stdint.h>

typedef struct BstRng
{
	uint64_t	s[4];
} BstRng;

static inline uint64_t
bst_rng_splitmix(uint64_t *x)
{
	uint64_t	z = (*x += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static inline void
bst_rng_seed(BstRng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = bst_rng_splitmix(&seed);
}

static inline uint64_t
bst_rng_next(BstRng *r)
{
	uint64_t   *s = r->s;
	uint64_t	x = s[1] * 5;
	uint64_t	result = ((x << 7) | (x >> 57)) * 9;
	uint64_t	t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = (s[3] << 45) | (s[3] >> 19);
	return result;
}

/* uniform double in [0, 1) */
static inline double
bst_rng_double(BstRng *r)
{
	return (double) (bst_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* uniform integer in [0, n), n >= 1, without modulo bias (Lemire) */
static inline uint64_t
bst_rng_below(BstRng *r, uint64_t n)
{
	for (;;)
	{
		uint64_t	x = bst_rng_next(r);
		unsigned __int128 mprod = (unsigned __int128) x * n;
		uint64_t	l = (uint64_t) mprod;

		if (l >= n || l >= (-n) % n)
			return (uint64_t) (mprod >> 64);
	}
}

/*
 * Two uniform integers, *a in [0, na) and *b in [0, nb) (1 <= na, nb <
 * 2^32), from one 64-bit draw: Lemire's method on each 32-bit half, the
 * draw rejected when either half falls in its biased region (rare for n
 * far below 2^32), so each is exactly uniform and the two independent.
 */
static inline void
bst_rng_below_pair(BstRng *r, uint32_t na, uint32_t nb, uint32_t *a, uint32_t *b)
{
	for (;;)
	{
		uint64_t	x = bst_rng_next(r);
		uint64_t	ma = (x >> 32) * na,
					mb = (x & UINT32_MAX) * nb;
		uint32_t	la = (uint32_t) ma,
					lb = (uint32_t) mb;

		if ((la >= na || la >= (uint32_t) (-na) % na) &&
			(lb >= nb || lb >= (uint32_t) (-nb) % nb))
		{
			*a = (uint32_t) (ma >> 32);
			*b = (uint32_t) (mb >> 32);
			return;
		}
	}
}

#endif							/* BST_RNG_H */
