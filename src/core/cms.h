/*
 * cms.h
 *    The Count-Min sketch of bloomsample's `countmin` type (Cormode and
 *    Muthukrishnan 2005), PostgreSQL-independent.
 *
 * d rows of w 64-bit counters.  An element is hashed ONCE into the BsKey of
 * the bloomfilter scheme (XXH3-128 of its canonical bytes with the sketch's
 * seed, bs_hash.h); row i uses the column
 *
 *     col_i = ((h1 + i*h2) mod 2^64) * w >> 64         (i = 0..d-1)
 *
 * (double hashing, then multiply-high: the positions a bloomfilter of m = w
 * bits and k = d hash functions would set).  docs/hashing.md has test vectors.
 *
 * Invariant: every row sums to the total N (counts are added to one counter of
 * each row), so every counter is <= N <= INT64_MAX; keeping N in int64 range
 * therefore keeps every counter in range, and an input whose rows do not all
 * sum to the same total is corrupt.  Operations that would break this return
 * an error code and leave the sketch unchanged.
 */
#ifndef CMS_H
#define CMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bs_hash.h"

#define CMS_MIN_W	1
#define CMS_MAX_W	(1 << 24)
#define CMS_MIN_D	1
#define CMS_MAX_D	BS_MAX_K	/* 32: delta down to e^-32 */
/* w * d is capped: a sketch is at most 128 MiB of counters */
#define CMS_MAX_CELLS	(UINT64_C(1) << 24)

typedef struct CmsParams
{
	uint32_t	w;				/* counters per row */
	uint32_t	d;				/* rows */
	int32_t		seed;
} CmsParams;

/* a sketch over caller-owned counters: counters[row * w + col] */
typedef struct CmsSketch
{
	CmsParams	p;
	int64_t		total;			/* N: sum of the added counts */
	int64_t    *counters;		/* d * w */
} CmsSketch;

typedef enum CmsStatus
{
	CMS_OK = 0,
	CMS_BAD_PARAMS,				/* w or d out of range, or w * d over the cap */
	CMS_OVERFLOW,				/* a counter or N would exceed INT64_MAX */
	CMS_NEGATIVE,				/* a counter would go below zero */
	CMS_BAD_COUNT,				/* a negative count */
	CMS_INCOMPATIBLE,			/* different w, d or seed */
	CMS_CORRUPT					/* rows do not all sum to N, or a counter < 0 */
} CmsStatus;

/* CMS_OK when w, d are in range and w * d <= CMS_MAX_CELLS */
extern CmsStatus cms_check_params(int64_t w, int64_t d);

/* cells = w * d of valid parameters */
static inline size_t
cms_cells(const CmsParams *p)
{
	return (size_t) p->w * p->d;
}

/* w = ceil(e / eps), d = ceil(ln(1 / delta)); CMS_BAD_PARAMS when out of range */
extern CmsStatus cms_size_for_error(double eps, double delta, uint32_t *w, uint32_t *d);

/* the hasher whose keys the sketch consumes (xxh3 family, the sketch's seed) */
extern void cms_hasher_init(BsHasher *h, int32_t seed);

/* the d columns of a key (col must hold p->d entries) */
extern void cms_columns(const CmsParams *p, BsKey key, uint32_t *col);

extern bool cms_params_equal(const CmsParams *a, const CmsParams *b);

/* add / subtract count (>= 0) at the key's d counters; all or nothing */
extern CmsStatus cms_add(CmsSketch *s, BsKey key, int64_t count);
extern CmsStatus cms_remove(CmsSketch *s, BsKey key, int64_t count);

/* min over rows of the key's counters: >= the true count */
extern int64_t cms_estimate(const CmsSketch *s, BsKey key);

/* dst += src (counter-wise) for compatible sketches; all or nothing */
extern CmsStatus cms_merge(CmsSketch *dst, const CmsSketch *src);

/* min over rows of the row dot product of two compatible sketches */
extern CmsStatus cms_inner_product(const CmsSketch *a, const CmsSketch *b, int64_t *out);

/*
 * Validate counters read from outside (every counter >= 0, every row sums to
 * the same total without overflow) and return that total in *total.
 */
extern CmsStatus cms_validate(const CmsParams *p, const int64_t *counters, int64_t *total);

extern bool cms_equal(const CmsSketch *a, const CmsSketch *b);

#endif							/* CMS_H */
