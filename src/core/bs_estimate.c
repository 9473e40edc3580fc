/*
 * bs_estimate.c
 *    Cardinality estimators and sizing formulas; see bs_estimate.h.
 */
#include "bs_estimate.h"

#include <math.h>

#include "bs_hash.h"

double
bs_est_cardinality(uint64_t m, int k, uint64_t t)
{
	if (t >= m)
		return INFINITY;
	if (t == 0)
		return 0.0;
	return log1p(-(double) t / (double) m) / ((double) k * log1p(-1.0 / (double) m));
}

double
bs_est_intersection(uint64_t m, int k, uint64_t t1, uint64_t t2, uint64_t t_and)
{
	double		dm = (double) m,
				d1 = (double) t1,
				d2 = (double) t2,
				da = (double) t_and;
	double		denom,
				inner,
				est,
				cap;

	if (t1 >= m || t2 >= m)
		return INFINITY;
	if (t_and == 0)
		return 0.0;
	denom = dm - d1 - d2 + da;	/* bits unset in both, > 0 here */
	inner = dm - (da * dm - d1 * d2) / denom;
	if (inner <= 0.0)
		return INFINITY;
	est = (log(inner) - log(dm)) / ((double) k * log1p(-1.0 / dm));
	cap = fmin(bs_est_cardinality(m, k, t1), bs_est_cardinality(m, k, t2));
	if (!(est > 0.0))
		return 0.0;
	return fmin(est, cap);
}

double
bs_est_union(uint64_t m, int k, uint64_t t_or)
{
	return bs_est_cardinality(m, k, t_or);
}

double
bs_est_jaccard(uint64_t m, int k, uint64_t t1, uint64_t t2, uint64_t t_and,
			   uint64_t t_or)
{
	double		inter = bs_est_intersection(m, k, t1, t2, t_and);
	double		uni = bs_est_union(m, k, t_or);

	if (uni == 0.0)
		return 0.0;
	/* equal bit sets (a & b has the bits of a | b) estimate equal sets, saturated or not */
	if (t_and == t_or)
		return 1.0;
	if (isinf(uni))
		return NAN;
	return fmin(1.0, inter / uni);
}

double
bs_optimal_m(double n, double p)
{
	return ceil(-n * log(p) / (M_LN2 * M_LN2));
}

int
bs_optimal_k(double m, double n)
{
	double		k = round(m / n * M_LN2);

	if (k < BS_MIN_K)
		return BS_MIN_K;
	if (k > BS_MAX_K)
		return BS_MAX_K;
	return (int) k;
}

double
bs_expected_fp(double m, int k, double n)
{
	return pow(-expm1(-(double) k * n / m), (double) k);
}
