/*
 * zipf.h
 *    Zipf-distributed test streams for the frequency sketches' unit tests:
 *    element r (1..U) has probability proportional to 1 / r^s, drawn by
 *    inverse-CDF binary search over a splitmix64 stream (reproducible), with
 *    the exact count of every element kept as the oracle.
 */
#ifndef ZIPF_H
#define ZIPF_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "unit.h"

typedef struct Zipf
{
	uint32_t	universe;
	double	   *cdf;			/* cdf[r - 1] = P(X <= r) */
	unsigned long long rng;
} Zipf;

static inline void
zipf_init(Zipf *z, uint32_t universe, double s, unsigned long long seed)
{
	double		sum = 0;

	z->universe = universe;
	z->cdf = malloc(universe * sizeof(double));
	for (uint32_t r = 1; r <= universe; r++)
		z->cdf[r - 1] = (sum += pow(r, -s));
	for (uint32_t r = 0; r < universe; r++)
		z->cdf[r] /= sum;
	z->cdf[universe - 1] = 1.0;
	z->rng = seed;
}

/* the next element, 1..universe */
static inline uint32_t
zipf_next(Zipf *z)
{
	double		u = (unit_splitmix64(&z->rng) >> 11) * (1.0 / 9007199254740992.0);
	uint32_t	lo = 0,
				hi = z->universe - 1;

	while (lo < hi)
	{
		uint32_t	mid = lo + (hi - lo) / 2;

		if (z->cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo + 1;
}

static inline void
zipf_free(Zipf *z)
{
	free(z->cdf);
}

#endif							/* ZIPF_H */
