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

#endif							/* BST_RNG_H */
