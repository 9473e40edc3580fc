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

/*
 * Every estimator is total: finite for every m >= 2, k >= 1 and t in [0, m],
 * never NaN, so that ordering by an estimate is meaningful.  A full filter
 * (t = m) no longer tells how many elements it holds, only that it holds at
 * least about as many as fill every bit; it is estimated at
 * bs_est_saturated(m, k), the n at which m bits are expected to keep half a
 * bit unset, which is larger than the estimate of any filter that is not
 * full (the estimate grows with t).  Estimates of combinations follow from
 * the cardinalities by inclusion-exclusion, so a full side enters as that
 * value too.
 */

/*
 * n^ of a full filter: n^(m - 1/2) = ln(1 / (2m)) / (k ln(1 - 1/m)), about
 * m ln(2m) / k: the n with m (1 - 1/m)^(kn) = 1/2 expected unset bits
 */
extern double bs_est_saturated(uint64_t m, int k);

/*
 * n^ = ln(1 - t/m) / (k ln(1 - 1/m)) for t < m; bs_est_saturated(m, k) when
 * every bit is set; 0 for t = 0.  Non-decreasing in t.
 */
extern double bs_est_cardinality(uint64_t m, int k, uint64_t t);

/*
 * |A n B|^ = (ln(m - (t_and m - t1 t2) / (m - t1 - t2 + t_and)) - ln m)
 *            / (k ln(1 - 1/m)), which is n^_A + n^_B - n^_(A u B);
 * clamped to [0, min(n^_A, n^_B)]; 0 when t_and = 0 (no common bit, no
 * common element).  When a filter or their OR is full, the inclusion-
 * exclusion form with bs_est_cardinality: a full A gives n^_B (every element
 * of B is a member of A), clamped as above.
 */
extern double bs_est_intersection(uint64_t m, int k, uint64_t t1, uint64_t t2,
								  uint64_t t_and);

/*
 * |A u B|^ = n^ of the OR (whose popcount is t1 + t2 - t_and), at most
 * n^_A + n^_B; so it is at least max(n^_A, n^_B) and
 * |A n B|^ + |A u B|^ = n^_A + n^_B
 */
extern double bs_est_union(uint64_t m, int k, uint64_t t1, uint64_t t2,
						   uint64_t t_and);

/*
 * Jaccard J^ = |A n B|^ / |A u B|^ in [0, 1]: 0 for two empty filters, 1
 * for equal bit sets (two full filters too); a small filter against a full
 * one gives n^_small / bs_est_saturated(m, k)
 */
extern double bs_est_jaccard(uint64_t m, int k, uint64_t t1, uint64_t t2,
							 uint64_t t_and);

/* m = ceil(-n ln p / (ln 2)^2), as a double so callers can range-check it */
extern double bs_optimal_m(double n, double p);

/*
 * the fewest bits at which n elements and k hash functions give the
 * false-positive rate p: m = ceil(-k n / ln(1 - p^(1/k))), the m with
 * (1 - e^(-kn/m))^k = p (BloomSampleTree sizing uses it with its k); a
 * double so callers can range-check it; NaN unless n > 0, 0 < p < 1, k >= 1
 */
extern double bs_m_for_k(double n, double p, int k);

/* k = round(m / n * ln 2) clamped to [1, 32] */
extern int	bs_optimal_k(double m, double n);

/* (1 - e^(-kn/m))^k */
extern double bs_expected_fp(double m, int k, double n);

#endif							/* BS_ESTIMATE_H */
