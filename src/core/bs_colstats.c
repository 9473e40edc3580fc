/*
 * bs_colstats.c
 *    The bounded, bit-sliced sample of a filter column and the selectivity
 *    of `filter @> element` estimated from it (see bs_colstats.h).
 */
#include "bs_colstats.h"

#include <math.h>
#include <string.h>

#include "bs_bits.h"

/* fills whose mean decides a fold: at most this many, taken at a stride */
#define SHAPE_FILL_PROBES	4096

double
bs_colstats_folded_fill(double f, uint32_t m, uint32_t fold_m)
{
	double		r;

	if (fold_m >= m || f <= 0)
		return f;
	if (f >= 1)
		return 1;
	r = (double) m / (double) fold_m;
	return 1 - pow(1 - f, r);
}

/* mean over (a stride of) fills of folded fill^k - fill^k */
static double
fold_extra_fp(uint32_t m, int k, const float *fills, uint32_t n, uint32_t fold_m)
{
	uint32_t	step = n > SHAPE_FILL_PROBES ? n / SHAPE_FILL_PROBES : 1;
	double		sum = 0;
	uint32_t	cnt = 0;

	if (fold_m >= m)
		return 0;
	for (uint32_t i = 0; i < n; i += step)
	{
		double		f = fills[i];

		sum += pow(bs_colstats_folded_fill(f, m, fold_m), k) - pow(f, k);
		cnt++;
	}
	return cnt ? sum / cnt : 0;
}

/* the most filters a budget holds at fold_m buckets each (whole 64-bit words per slice) */
static uint32_t
sample_capacity(uint64_t budget_bits, uint32_t fold_m, uint32_t n)
{
	uint64_t	words = budget_bits / 64 / fold_m;
	uint64_t	cap = words * 64;

	return cap < n ? (uint32_t) cap : n;
}

bool
bs_colstats_shape(uint32_t m, int k, const float *fills, uint32_t n, uint64_t budget_bits,
				  uint32_t min_sample, BsSampleShape *shape)
{
	BsSampleShape best = {0, 0};
	uint32_t	fit_all;
	double		r = 1;

	memset(shape, 0, sizeof(*shape));
	if (n < 1 || m < 1 || k < 1)
		return false;
	/* the least folding that holds all n filters */
	fit_all = (uint32_t) (budget_bits / 64 / (((uint64_t) n + 63) / 64));
	if (fit_all > m)
		fit_all = m;

	/*
	 * Candidates from no folding down by factors of about 1.25, then the
	 * fold that holds everything: more folding holds more filters and adds
	 * more false hits, so the first candidate that adds too many ends the
	 * search.
	 */
	for (;;)
	{
		uint32_t	fold_m = (uint32_t) ((double) m / r);
		uint32_t	s;

		if (fold_m < fit_all || fold_m < 1)
			fold_m = fit_all;
		if (fold_m < 1)
			break;
		s = sample_capacity(budget_bits, fold_m, n);
		if (s > best.nsample)
		{
			if (fold_extra_fp(m, k, fills, n, fold_m) * s > BS_COLSTATS_FOLD_EXTRA_HITS)
				break;
			best.fold_m = fold_m;
			best.nsample = s;
		}
		if (s >= n || fold_m == fit_all)
			break;
		r = r < 2 ? r + 1 : r * 1.25;
	}
	if (best.nsample < 1 || best.nsample < min_sample)
		return false;
	*shape = best;
	return true;
}

bool
bs_colstats_shape_all(uint32_t m, int k, const float *fills, uint32_t n, uint64_t budget_bits,
					  BsSampleShape *shape)
{
	uint64_t	fold_m;
	double		var = 0;

	memset(shape, 0, sizeof(*shape));
	if (n < 1 || m < 1 || k < 1)
		return false;
	fold_m = budget_bits / 64 / (((uint64_t) n + 63) / 64);
	if (fold_m > m)
		fold_m = m;
	if (fold_m < 1)
		return false;
	for (uint32_t i = 0; i < n; i++)
	{
		double		q = pow(bs_colstats_folded_fill(fills[i], m, (uint32_t) fold_m), k) -
			pow(fills[i], k);

		var += q * (1 - q);
	}
	if (var > BS_COLSTATS_FOLD_HIT_VAR)
		return false;
	shape->fold_m = (uint32_t) fold_m;
	shape->nsample = n;
	return true;
}

uint32_t
bs_colstats_add(uint64_t *slices, uint32_t slice_words, uint32_t fold_m,
				const uint8_t *bits, uint32_t m, uint32_t col, uint64_t *scratch)
{
	size_t		nwords = bs_words_for_bits(m);
	size_t		fwords = bs_words_for_bits(fold_m);
	uint64_t	colbit = UINT64_C(1) << (col % 64);
	uint32_t	colword = col / 64;
	uint32_t	count = 0;

	memset(scratch, 0, fwords * sizeof(uint64_t));
	for (size_t w = 0; w < nwords; w++)
	{
		uint64_t	word = bs_load64le(bits + 8 * w);

		while (word)
		{
			uint32_t	pos = (uint32_t) (64 * w) + (uint32_t) __builtin_ctzll(word);
			uint32_t	b;

			word &= word - 1;
			if (pos >= m)
				break;
			b = bs_colstats_bucket(pos, m, fold_m);
			scratch[b / 64] |= UINT64_C(1) << (b % 64);
		}
	}
	for (size_t w = 0; w < fwords; w++)
	{
		uint64_t	word = scratch[w];

		count += (uint32_t) __builtin_popcountll(word);
		while (word)
		{
			uint32_t	b = (uint32_t) (64 * w) + (uint32_t) __builtin_ctzll(word);

			word &= word - 1;
			slices[(size_t) b * slice_words + colword] |= colbit;
		}
	}
	return count;
}

uint32_t
bs_colstats_hits(const uint64_t *slices, uint32_t nsample, uint32_t fold_m, uint32_t m,
				 const uint32_t *pos, int npos, uint64_t *acc)
{
	uint32_t	sw = bs_colstats_slice_words(nsample);
	uint32_t	hits = 0;

	if (nsample == 0 || npos < 1)
		return 0;
	memcpy(acc, slices + (size_t) bs_colstats_bucket(pos[0], m, fold_m) * sw,
		   sw * sizeof(uint64_t));
	for (int i = 1; i < npos; i++)
	{
		const uint64_t *s = slices + (size_t) bs_colstats_bucket(pos[i], m, fold_m) * sw;
		uint64_t	any = 0;

		for (uint32_t w = 0; w < sw; w++)
			any |= (acc[w] &= s[w]);
		if (any == 0)
			return 0;
	}
	for (uint32_t w = 0; w < sw; w++)
		hits += (uint32_t) __builtin_popcountll(acc[w]);
	return hits;
}

double
bs_colstats_member_fraction(double hits, uint32_t nsample, double fold_fp, double fp,
							double floor_hits, double no_sample_p)
{
	double		p;
	double		sel;

	if (fold_fp < 0)
		fold_fp = 0;
	if (fold_fp > 0.999)
		fold_fp = 0.999;
	if (nsample == 0)
		p = no_sample_p;
	else
	{
		double		h = hits - nsample * fold_fp;

		if (h < floor_hits)
			h = floor_hits;
		p = h / (nsample * (1 - fold_fp));
	}
	if (!(p > 0))
		p = 0;
	if (p > 1)
		p = 1;
	sel = p + (1 - p) * (fp > 0 ? fp : 0);
	return sel > 1 ? 1 : sel;
}
