/*
 * cms.c
 *    Count-Min sketch operations: parameters, columns of a key, add, remove,
 *    point estimate, merge, inner product and validation (cms.h).
 */
#include "cms.h"
#include "bs_bits.h"

#include <math.h>
#include <string.h>

#define CMS_E 2.718281828459045235

CmsStatus
cms_check_params(int64_t w, int64_t d)
{
	if (w < CMS_MIN_W || w > CMS_MAX_W || d < CMS_MIN_D || d > CMS_MAX_D)
		return CMS_BAD_PARAMS;
	if ((uint64_t) w * (uint64_t) d > CMS_MAX_CELLS)
		return CMS_BAD_PARAMS;
	return CMS_OK;
}

CmsStatus
cms_size_for_error(double eps, double delta, uint32_t *w, uint32_t *d)
{
	double		fw,
				fd;

	/* !(x > 0) also refuses NaN */
	if (!(eps > 0) || !(eps < 1) || !(delta > 0) || !(delta < 1))
		return CMS_BAD_PARAMS;
	fw = ceil(CMS_E / eps);
	fd = ceil(log(1.0 / delta));
	if (fd < CMS_MIN_D)
		fd = CMS_MIN_D;
	if (fw > CMS_MAX_W || fd > CMS_MAX_D)
		return CMS_BAD_PARAMS;
	*w = (uint32_t) fw;
	*d = (uint32_t) fd;
	return cms_check_params(*w, *d);
}

void
cms_hasher_init(BsHasher *h, int32_t seed)
{
	BsParams	p = {BS_MIN_M, 1, BS_HASH_XXH3, seed};

	bs_hasher_init(h, &p);
}

void
cms_columns(const CmsParams *p, BsKey key, uint32_t *col)
{
	for (uint32_t i = 0; i < p->d; i++)
		col[i] = (uint32_t) bs_mulhi64(key.h1 + (uint64_t) i * key.h2, p->w);
}

bool
cms_params_equal(const CmsParams *a, const CmsParams *b)
{
	return a->w == b->w && a->d == b->d && a->seed == b->seed;
}

CmsStatus
cms_add(CmsSketch *s, BsKey key, int64_t count)
{
	uint32_t	col[CMS_MAX_D];
	int64_t		total;

	if (count < 0)
		return CMS_BAD_COUNT;
	/* each counter <= total (the rows sum to it), so this bounds them all */
	if (__builtin_add_overflow(s->total, count, &total))
		return CMS_OVERFLOW;
	cms_columns(&s->p, key, col);
	for (uint32_t i = 0; i < s->p.d; i++)
		s->counters[(size_t) i * s->p.w + col[i]] += count;
	s->total = total;
	return CMS_OK;
}

CmsStatus
cms_remove(CmsSketch *s, BsKey key, int64_t count)
{
	uint32_t	col[CMS_MAX_D];

	if (count < 0)
		return CMS_BAD_COUNT;
	cms_columns(&s->p, key, col);
	/* check every row first: all or nothing */
	for (uint32_t i = 0; i < s->p.d; i++)
		if (s->counters[(size_t) i * s->p.w + col[i]] < count)
			return CMS_NEGATIVE;
	for (uint32_t i = 0; i < s->p.d; i++)
		s->counters[(size_t) i * s->p.w + col[i]] -= count;
	s->total -= count;
	return CMS_OK;
}

int64_t
cms_estimate(const CmsSketch *s, BsKey key)
{
	uint32_t	col[CMS_MAX_D];
	int64_t		est = INT64_MAX;

	cms_columns(&s->p, key, col);
	for (uint32_t i = 0; i < s->p.d; i++)
	{
		int64_t		c = s->counters[(size_t) i * s->p.w + col[i]];

		if (c < est)
			est = c;
	}
	return est;
}

CmsStatus
cms_merge(CmsSketch *dst, const CmsSketch *src)
{
	size_t		n = cms_cells(&dst->p);
	int64_t		total;

	if (!cms_params_equal(&dst->p, &src->p))
		return CMS_INCOMPATIBLE;
	/* both sides' counters are <= their totals, so the sums are <= total */
	if (__builtin_add_overflow(dst->total, src->total, &total))
		return CMS_OVERFLOW;
	for (size_t i = 0; i < n; i++)
	{
		bs_poll_bytes(i, sizeof(int64_t));
		dst->counters[i] += src->counters[i];
	}
	dst->total = total;
	return CMS_OK;
}

CmsStatus
cms_inner_product(const CmsSketch *a, const CmsSketch *b, int64_t *out)
{
	int64_t		best = INT64_MAX;

	if (!cms_params_equal(&a->p, &b->p))
		return CMS_INCOMPATIBLE;
	for (uint32_t r = 0; r < a->p.d; r++)
	{
		const int64_t *ra = a->counters + (size_t) r * a->p.w;
		const int64_t *rb = b->counters + (size_t) r * a->p.w;
		int64_t		dot = 0;

		for (uint32_t c = 0; c < a->p.w; c++)
		{
			int64_t		prod;

			bs_poll_bytes((size_t) r * a->p.w + c, sizeof(int64_t));
			if (ra[c] == 0 || rb[c] == 0)
				continue;
			if (__builtin_mul_overflow(ra[c], rb[c], &prod) ||
				__builtin_add_overflow(dot, prod, &dot))
				return CMS_OVERFLOW;
		}
		if (dot < best)
			best = dot;
	}
	*out = best;
	return CMS_OK;
}

CmsStatus
cms_validate(const CmsParams *p, const int64_t *counters, int64_t *total)
{
	int64_t		first = 0;

	if (cms_check_params(p->w, p->d) != CMS_OK)
		return CMS_BAD_PARAMS;
	for (uint32_t r = 0; r < p->d; r++)
	{
		const int64_t *row = counters + (size_t) r * p->w;
		int64_t		sum = 0;

		for (uint32_t c = 0; c < p->w; c++)
		{
			bs_poll_bytes((size_t) r * p->w + c, sizeof(int64_t));
			if (row[c] < 0)
				return CMS_CORRUPT;
			if (__builtin_add_overflow(sum, row[c], &sum))
				return CMS_OVERFLOW;
		}
		if (r == 0)
			first = sum;
		else if (sum != first)
			return CMS_CORRUPT;
	}
	*total = first;
	return CMS_OK;
}

bool
cms_equal(const CmsSketch *a, const CmsSketch *b)
{
	size_t		n = cms_cells(&a->p);

	if (!cms_params_equal(&a->p, &b->p) || a->total != b->total)
		return false;
	/* a mebibyte at a time, polling between */
	for (size_t i = 0; i < n; i += BS_POLL_WORDS)
	{
		size_t		len = n - i < BS_POLL_WORDS ? n - i : BS_POLL_WORDS;

		if (memcmp(a->counters + i, b->counters + i, len * sizeof(int64_t)) != 0)
			return false;
		if (bs_interrupt_hook)
			bs_interrupt_hook();
	}
	return true;
}
