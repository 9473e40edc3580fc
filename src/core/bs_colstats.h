/*
 * bs_colstats.h
 *    Column statistics of Bloom filters (PostgreSQL-independent): the
 *    bounded sample that ANALYZE keeps of a filter column, and the
 *    selectivity of `filter @> element` the planner derives from it.
 *
 * The sample of one parameter set (m, k, seed, hash) is `nsample` of the
 * column's filters, each folded to `fold_m` <= m bits (position p goes to
 * bucket p * fold_m / m, so an element's k positions give its k buckets
 * whatever the hash family), stored bit-sliced: for every bucket b a slice
 * of nsample bits, bit j of slice b being bucket b of sampled filter j.  The
 * sampled filters that have all of an element's buckets set are the AND of
 * its k slices: a test of the whole sample costs k * ceil(nsample / 64)
 * word operations, whatever m is.
 *
 * Folding keeps every member (no false negatives) and adds false positives:
 * a filter of fill f folded by r = m / fold_m has fill 1 - (1 - f)^r.  The
 * shape (fold_m, nsample) is chosen within a byte budget so that folding
 * adds at most BS_COLSTATS_FOLD_EXTRA_HITS false hits over the whole sample,
 * and the estimator removes the expected ones.
 */
#ifndef BS_COLSTATS_H
#define BS_COLSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* most false hits that folding may add, in expectation, over one sample */
#define BS_COLSTATS_FOLD_EXTRA_HITS		0.25
/* the hits assumed for an element none of the sampled filters holds */
#define BS_COLSTATS_FLOOR_HITS			0.5

/* the shape of a stored sample */
typedef struct BsSampleShape
{
	uint32_t	fold_m;			/* buckets kept per filter, 1..m */
	uint32_t	nsample;		/* filters kept */
} BsSampleShape;

/* 64-bit words of one slice of a sample of nsample filters */
static inline uint32_t
bs_colstats_slice_words(uint32_t nsample)
{
	return (nsample + 63) / 64;
}

/* the bucket of bit position pos (< m) in a sample folded to fold_m buckets */
static inline uint32_t
bs_colstats_bucket(uint32_t pos, uint32_t m, uint32_t fold_m)
{
	return (uint32_t) (((uint64_t) pos * fold_m) / m);
}

/* the fill of a filter of fill f folded from m to fold_m bits (independent bits) */
extern double bs_colstats_folded_fill(double f, uint32_t m, uint32_t fold_m);

/*
 * Choose the sample of n filters of m bits with k hash functions, whose
 * fills are fills[0..n): the most filters (at most n) whose folded slices
 * fit in budget_bits bits (nsample * fold_m <= budget_bits), folded as
 * little as that allows, provided folding adds at most
 * BS_COLSTATS_FOLD_EXTRA_HITS expected false hits over the sample (mean of
 * folded fill^k - fill^k, times nsample).  Returns false when no sample of
 * at least min_sample filters qualifies (or n < 1); *shape is then zero.
 */
extern bool bs_colstats_shape(uint32_t m, int k, const float *fills, uint32_t n,
							  uint64_t budget_bits, uint32_t min_sample,
							  BsSampleShape *shape);

/*
 * Choose a sample of all n filters (m bits, k hash functions, fills
 * fills[0..n)) within budget_bits: the least folding that holds them all,
 * provided the variance of the false hits folding adds, the sum over the
 * filters of q(1 - q) with q = folded fill^k - fill^k, is at most
 * BS_COLSTATS_FOLD_HIT_VAR (their mean is removed from the hits; a filter
 * saturated by the folding always hits and adds no variance).  For the
 * heavy filters of a column (issue 36), few and wide: every one counted,
 * not one in ten.  Returns false (and a zero *shape) when none qualifies.
 */
extern bool bs_colstats_shape_all(uint32_t m, int k, const float *fills, uint32_t n,
								  uint64_t budget_bits, BsSampleShape *shape);

/* the most variance of false hits bs_colstats_shape_all accepts (hits^2) */
#define BS_COLSTATS_FOLD_HIT_VAR		1.0

/*
 * Put filter bits (m bits, bs_words_for_bits(m) words) into the sample as
 * filter number col (< 64 * slice_words): sets bit col of every slice whose
 * bucket has a set bit.  slices holds fold_m slices of slice_words words,
 * zeroed before the first filter; scratch holds bs_words_for_bits(fold_m)
 * words.  Returns the number of buckets set (the folded popcount).
 */
extern uint32_t bs_colstats_add(uint64_t *slices, uint32_t slice_words, uint32_t fold_m,
								const uint8_t *bits, uint32_t m, uint32_t col,
								uint64_t *scratch);

/*
 * The number of sampled filters (of nsample) that have the buckets of every
 * position pos[0..npos) (positions < m) set; acc holds slice_words words.
 */
extern uint32_t bs_colstats_hits(const uint64_t *slices, uint32_t nsample, uint32_t fold_m,
								 uint32_t m, const uint32_t *pos, int npos, uint64_t *acc);

/*
 * The fraction of the filters that answer true for an element (members and
 * false positives) from `hits` (possibly a mean over several probes) among
 * nsample sampled filters whose mean folded fill^k is fold_fp, the filters'
 * own mean fill^k being fp:
 *
 *   p = max(hits - nsample * fold_fp, floor_hits) / (nsample * (1 - fold_fp))
 *   sel = p + (1 - p) * fp
 *
 * p is the fraction of filters that hold the element (the folding's false
 * hits removed), at least floor_hits hits' worth: an element that no
 * sampled filter holds is taken as rarer than the sample can tell, not as
 * absent.  With no sample (nsample = 0) p = no_sample_p.  Clamped to [0, 1].
 */
extern double bs_colstats_member_fraction(double hits, uint32_t nsample, double fold_fp,
										  double fp, double floor_hits, double no_sample_p);

#endif							/* BS_COLSTATS_H */
