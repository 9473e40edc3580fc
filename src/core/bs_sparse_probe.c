/*
 * bs_sparse_probe.c
 *    In-place probes of the sparse form (bs_sparse.h): one position, an
 *    element's k positions in one pass over the high bits, and the select
 *    index (every BS_SPARSE_INDEX_STEP-th zero) that makes repeated probes of
 *    one value constant work per position.  No allocation: the caller holds
 *    the samples.  Never reads outside the opened encoding; on a corrupted
 *    one the answer is unspecified (bs_sparse_decode checks everything).
 */
#include "bs_sparse.h"

#include "bs_bits.h"
#include "bs_sparse_read.h"

/* the zeros of the high bits' word at byte (a multiple of 8), as set bits */
static inline uint64_t
high_zeros(const BsSparse *s, size_t byte)
{
	uint64_t	valid = s->high_bits - (uint64_t) byte * 8;
	uint64_t	zeros = ~load_le(s->high + byte, s->high_bytes - byte);

	return valid < 64 ? zeros & ((UINT64_C(1) << valid) - 1) : zeros;
}

/* the bit index of the need-th (>= 1) set bit of x, which has at least need */
static inline uint64_t
nth_set(uint64_t x, uint64_t need)
{
	for (uint64_t r = 1; r < need; r++)
		x &= x - 1;
	return (uint64_t) __builtin_ctzll(x);
}

/*
 * The index of the need-th zero (need >= 1) of the high bits at or after
 * bit `from`, or UINT64_MAX when there are fewer: one word at a time, a
 * popcount per word.
 */
BS_POPCNT_CLONES
static uint64_t
select0_from(const BsSparse *s, uint64_t from, uint64_t need)
{
	for (size_t byte = (size_t) (from >> 6) * 8; byte < s->high_bytes; byte += 8)
	{
		uint64_t	base = (uint64_t) byte * 8;
		uint64_t	zeros = high_zeros(s, byte);
		uint64_t	z;

		if (from > base)
			zeros &= ~UINT64_C(0) << (from - base);
		z = (uint64_t) __builtin_popcountll(zeros);
		if (z >= need)
			return base + nth_set(zeros, need);
		need -= z;
	}
	return UINT64_MAX;
}

/*
 * Is the position with high part h and low part lo in bucket h, whose
 * positions start at high bit `start` (the bit after the h-th zero)?
 */
static bool
bucket_has(const BsSparse *s, uint64_t start, uint64_t h, uint32_t lo)
{
	for (uint64_t j = start; j < s->high_bits; j++)
	{
		uint32_t	low;

		if (!((s->high[j >> 3] >> (j & 7)) & 1))
			break;
		if (j - h >= s->n)
			break;
		low = get_low(s, j - h);
		if (low >= lo)
			return low == lo;
	}
	return false;
}

bool
bs_sparse_test(const BsSparse *s, uint32_t pos)
{
	uint64_t	h,
				z;

	if (pos >= s->m || s->n == 0)
		return false;
	h = pos >> s->l;
	if (h == 0)
		return bucket_has(s, 0, 0, pos & low_mask(s->l));
	z = select0_from(s, 0, h);
	return z != UINT64_MAX && bucket_has(s, z + 1, h, pos & low_mask(s->l));
}

bool
bs_sparse_test_all(const BsSparse *s, const uint32_t *pos, int npos)
{
	uint32_t	sorted[BS_SPARSE_MAX_PROBES];
	uint64_t	last_h = 0,
				last_zero = 0;	/* the last_h-th zero (none yet: last_h 0) */

	if (npos <= 0)
		return true;
	if (npos > BS_SPARSE_MAX_PROBES || s->n == 0)
	{
		for (int i = 0; i < npos; i++)
			if (!bs_sparse_test(s, pos[i]))
				return false;
		return true;
	}
	/* insertion sort: npos is a filter's k */
	for (int i = 0; i < npos; i++)
	{
		int			j = i;

		while (j > 0 && sorted[j - 1] > pos[i])
		{
			sorted[j] = sorted[j - 1];
			j--;
		}
		sorted[j] = pos[i];
	}
	for (int i = 0; i < npos; i++)
	{
		uint32_t	p = sorted[i];
		uint64_t	h = (uint64_t) p >> s->l;
		uint64_t	start;

		if (p >= s->m)
			return false;
		if (h > last_h)
		{
			last_zero = select0_from(s, last_h == 0 ? 0 : last_zero + 1, h - last_h);
			if (last_zero == UINT64_MAX)
				return false;
			last_h = h;
		}
		start = h == 0 ? 0 : last_zero + 1;
		if (!bucket_has(s, start, h, p & low_mask(s->l)))
			return false;
	}
	return true;
}

uint64_t
bs_sparse_index_entries(const BsSparse *s)
{
	uint64_t	zeros = s->high_bits - s->n;

	return zeros / BS_SPARSE_INDEX_STEP;
}

BS_POPCNT_CLONES
void
bs_sparse_index_build(const BsSparse *s, uint64_t *samples)
{
	uint64_t	count = 0,
				t = 0,
				nsamples = bs_sparse_index_entries(s);

	for (size_t byte = 0; byte < s->high_bytes && t < nsamples; byte += 8)
	{
		uint64_t	base = (uint64_t) byte * 8;
		uint64_t	zeros = high_zeros(s, byte);
		uint64_t	z = (uint64_t) __builtin_popcountll(zeros);

		/* every zero numbered a multiple of the step in this word */
		while (t < nsamples && count + z >= (t + 1) * BS_SPARSE_INDEX_STEP)
		{
			samples[t] = base + nth_set(zeros, (t + 1) * BS_SPARSE_INDEX_STEP - count);
			t++;
		}
		count += z;
	}
	/* a corrupted encoding may have fewer zeros: the rest point past the end */
	for (; t < nsamples; t++)
		samples[t] = UINT64_MAX;
}

bool
bs_sparse_test_indexed(const BsSparse *s, const uint64_t *samples, const uint32_t *pos,
					   int npos)
{
	uint64_t	nsamples = bs_sparse_index_entries(s);

	if (s->n == 0)
		return npos <= 0;
	for (int i = 0; i < npos; i++)
	{
		uint64_t	h = (uint64_t) pos[i] >> s->l;
		uint64_t	t = h / BS_SPARSE_INDEX_STEP,
					z;

		if (pos[i] >= s->m)
			return false;
		if (h == 0)
		{
			if (!bucket_has(s, 0, 0, pos[i] & low_mask(s->l)))
				return false;
			continue;
		}
		if (t > nsamples)
			return false;		/* (a corrupted encoding's count) */
		if (t == 0)
			z = select0_from(s, 0, h);
		else if (h == t * BS_SPARSE_INDEX_STEP)
			z = samples[t - 1];
		else
			z = samples[t - 1] == UINT64_MAX ? UINT64_MAX :
				select0_from(s, samples[t - 1] + 1, h - t * BS_SPARSE_INDEX_STEP);
		if (z == UINT64_MAX || !bucket_has(s, z + 1, h, pos[i] & low_mask(s->l)))
			return false;
	}
	return true;
}
