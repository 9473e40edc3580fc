/*
 * bs_estimate.h
 *    Cardinality estimators and sizing formulas (PostgreSQL-independent).
 *
 * m: bits, k: hash functions, t: bits set.  Estimates follow Papapetrou,
 * Siberski and Nejdl (2010) as quoted in section 5.3 of the BloomSampleTree
 * paper; sizing follows the lecture notes (m = -n ln p / ln^2 2, k = m/n ln 2).
 */
#ifndef BS_ESTIMATE_H
#define BS_ESTIMATE_H

#include <stdint.h>

/* n^ = ln(1 - t/m) / (k ln(1 - 1/m)); +Infinity when every bit is set */
extern double bs_est_cardinality(uint64_t m, int k, uint64_t t);

/*
 * |A n B|^ = (ln(m - (t_and m - t1 t2) / (m - t1 - t2 + t_and)) - ln m)
 *            / (k ln(1 - 1/m)),
 * clamped to [0, min(|A|^, |B|^)]; +Infinity when a filter is full.
 */
extern double bs_est_intersection(uint64_t m, int k, uint64_t t1, uint64_t t2,
								  uint64_t t_and);

/* |A u B|^ = n^ of the OR (whose popcount is t_or) */
extern double bs_est_union(uint64_t m, int k, uint64_t t_or);

/*
 * Jaccard J^ = |A n B|^ / |A u B|^: 0 for two empty filters, 1 for equal bit
 * sets (saturated ones too), NaN when the union is saturated and the filters
 * differ (its size is unknown)
 */
extern double bs_est_jaccard(uint64_t m, int k, uint64_t t1, uint64_t t2,
							 uint64_t t_and, uint64_t t_or);

/* m = ceil(-n ln p / (ln 2)^2), as a double so callers can range-check it */
extern double bs_optimal_m(double n, double p);

/* k = round(m / n * ln 2) clamped to [1, 32] */
extern int	bs_optimal_k(double m, double n);

/* (1 - e^(-kn/m))^k */
extern double bs_expected_fp(double m, int k, double n);

#endif							/* BS_ESTIMATE_H */
