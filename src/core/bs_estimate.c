/*
 * bs_estimate.c
 *    Cardinality estimators and sizing formulas; see bs_estimate.h.
 */
#include "bs_estimate.h"

#include <math.h>

#include "bs_hash.h"

/* k ln(1 - 1/m): the log of the chance that one element leaves a given bit unset */
static double
log_keep(uint64_t m, int k)
{
	return (double) k * log1p(-1.0 / (double) m);
}

double
bs_est_saturated(uint64_t m, int k)
{
	return log(0.5 / (double) m) / log_keep(m, k);
}

double
bs_est_cardinality(uint64_t m, int k, uint64_t t)
{
	if (t >= m)
		return bs_est_saturated(m, k);
	if (t == 0)
		return 0.0;
	return log1p(-(double) t / (double) m) / log_keep(m, k);
}

double
bs_est_intersection(uint64_t m, int k, uint64_t t1, uint64_t t2, uint64_t t_and)
{
	double		n1,
				n2,
				est;

	if (t_and == 0)
		return 0.0;
	n1 = bs_est_cardinality(m, k, t1);
	n2 = bs_est_cardinality(m, k, t2);
	if (t1 + t2 - t_and >= m)
	{
		/*
		 * a side or the OR is full: inclusion-exclusion over the total n^,
		 * in an order that gives exactly min(n1, n2) when a side is full
		 */
		est = fmin(n1, n2) + (fmax(n1, n2) - bs_est_saturated(m, k));
	}
	else
	{
		/* bits unset in both, > 0 here; inner = (m - t1)(m - t2) / that > 0 */
		double		dm = (double) m,
					denom = dm - (double) t1 - (double) t2 + (double) t_and,
					inner = dm - ((double) t_and * dm - (double) t1 * (double) t2) / denom;

		est = (log(inner) - log(dm)) / log_keep(m, k);
	}
	if (!(est > 0.0))
		return 0.0;
	return fmin(est, fmin(n1, n2));
}

double
bs_est_union(uint64_t m, int k, uint64_t t1, uint64_t t2, uint64_t t_and)
{
	return fmin(bs_est_cardinality(m, k, t1 + t2 - t_and),
				bs_est_cardinality(m, k, t1) + bs_est_cardinality(m, k, t2));
}

double
bs_est_jaccard(uint64_t m, int k, uint64_t t1, uint64_t t2, uint64_t t_and)
{
	double		uni;

	if (t1 + t2 - t_and == 0)
		return 0.0;
	/* equal bit sets (a & b has the bits of a | b) estimate equal sets, saturated or not */
	if (t_and == t1 + t2 - t_and)
		return 1.0;
	uni = bs_est_union(m, k, t1, t2, t_and);
	return fmax(0.0, fmin(1.0, bs_est_intersection(m, k, t1, t2, t_and) / uni));
}

double
bs_m_for_k(double n, double p, int k)
{
	if (!(n > 0) || !(p > 0) || !(p < 1) || k < 1)
		return NAN;
	return ceil(-(double) k * n / log1p(-pow(p, 1.0 / k)));
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
