/*
 * bst_plan.h
 *    Sizing a BloomSampleTree (paper, section 5.4), PostgreSQL-independent.
 *
 *  - m from the target accuracy acc = n / (n + (M - n) FP): the false positive
 *    rate FP = n (1 - acc) / (acc (M - n)) and m = -k n / ln(1 - FP^(1/k)),
 *    the m at which (1 - e^(-kn/m))^k = FP.
 *  - depth from the cost model: a leaf of N ids costs N membership tests, going
 *    one level further costs intersections of m-bit filters; the paper keeps
 *    the largest leaf N with N / log2(N) <= i_cost / m_cost.  The two costs
 *    are calibrated for this implementation (BST_COST_*), and the depth is
 *    then lowered until the tree fits min(memory limit, BST_AUTO_TREE_BYTES).
 */
#ifndef BST_PLAN_H
#define BST_PLAN_H

#include <stddef.h>
#include <stdint.h>

/*
 * The cost model alone asks for leaves of a few hundred ids, i.e. trees of
 * gigabytes at M = 10^7; automatic sizing therefore also keeps the tree
 * within this many bytes (a tree is held by every backend that uses it).
 */
#define BST_AUTO_TREE_BYTES		(UINT64_C(160) << 20)

/*
 * Smallest leaf the cost model picks: below it the intersection estimates of
 * sibling leaves are mostly noise (a few elements against the false-overlap
 * bits of two filters), and scanning 64 ids costs well under a microsecond.
 */
#define BST_MIN_AUTO_LEAF	64

/* measured on the development machine (test/bench/20_bst.sh prints them) */
#define BST_COST_WORD_NS	0.5	/* AND-popcount of one 64-bit word */
#define BST_COST_MEMBER_NS	16.0	/* hash one id and test k bits */

typedef struct BstPlan
{
	int64_t		m;
	int			depth;
	int64_t		leaf_size;		/* ids per leaf (largest) */
	int64_t		nodes;
	uint64_t	memory_bytes;	/* tree (nodes and filters) */
	double		expected_fp;	/* FP of a filter of n elements at m, k */
} BstPlan;

/*
 * The false positive rate the accuracy asks of a filter of n ids over a
 * namespace of M: n (1 - acc) / (acc (M - n)); NaN for arguments out of range
 * (n <= 0, M <= n, acc outside (0, 1)).  At 1 or more every filter meets the
 * accuracy (it is at most n / M): there is nothing to plan.
 */
extern double bst_plan_target_fp(double n, double M, double acc);

/*
 * m for the accuracy; returns a double so callers can range-check it (NaN
 * when impossible, or when bst_plan_target_fp is 1 or more)
 */
extern double bst_plan_m(double n, double M, double acc, int k);

/* largest leaf size the cost model accepts at m bits, k hashes */
extern int64_t bst_plan_leaf_size(int64_t m, int k);

/*
 * depth of a full tree over M ids at m bits: the cost model's, lowered until
 * the tree takes at most mem_limit bytes; leaf_size > 0 forces the leaf size.
 */
extern int	bst_plan_depth(uint64_t M, int64_t m, int k, int64_t leaf_size,
						   uint64_t mem_limit);

/*
 * log2 of the leaf span of a pruned tree over ids (sorted, distinct) sized
 * automatically: the cost model's leaf size, with wider leaves (fewer nodes)
 * until the tree takes at most min(mem_limit, BST_AUTO_TREE_BYTES), as
 * bst_pruned_tree_bytes counts it.
 */
extern int	bst_plan_pruned_leaf_bits(const int64_t *ids, size_t nids, uint32_t m, int k,
									  uint64_t mem_limit);

/* the whole plan for bst_plan() */
extern void bst_plan_full(double n, uint64_t M, double acc, int k,
						  uint64_t mem_limit, BstPlan *out);

/*
 * The cost model of the automatic method choice (bst_reconstruct_choose and
 * bst_sample's AUTO; issue 37), in nanoseconds, for a tree of N ids (its
 * namespace, or its occupied ids) and a query filter of tq set bits of m
 * (fill f = tq / m).  Bloom filter bits being about independent, the index's
 * candidates (ids whose first position is set) number about N f, those whose
 * second position is set too (hashed in full when k > 2) N f^2, and the
 * members it reports r = c + (N - c) f^k (c: q's estimated cardinality; the
 * rest false positives), which the index returns sorted.  The scan
 * hashes every id once.  So:
 *   index = N (f CANDIDATE + f^2 SCAN [k > 2]) + r log2(r) SORT
 *   scan  = N SCAN
 * Both pay the same per member returned, which cancels.  The index wins by
 * far on sparse filters (at f = 0.02 it costs about 1/70 of the scan); the
 * two meet near f = 0.5 (the f^2 and sort terms grow): measured at 0.45-0.55
 * for N = 10^4 .. 10^7 (test/bench/20_bst.sh, "method choice"), where either
 * way is within about 1.1x of the other.  Constants measured by that
 * benchmark on the development machine (k = 3, xxh3):
 */
#define BST_COST_CANDIDATE_NS	10.0	/* read an index entry, test its second bit */
#define BST_COST_SCAN_NS		14.0	/* hash an id and test its bits */
#define BST_COST_SORT_NS		2.0 /* sort the members: per member and level */
#define BST_COST_TRIAL_NS		20.0	/* one sampling trial: two cache misses */

/* the members expected among N ids: c + (N - c) f^k, at most N */
extern double bst_cost_members(uint64_t N, uint32_t m, int k, uint64_t tq);

/* the estimated ns of reconstructing by the index */
extern double bst_cost_index_reconstruct(uint64_t N, uint32_t m, int k, uint64_t tq);

/* the estimated ns of testing every id (reconstruction or sampling by scan) */
extern double bst_cost_scan(uint64_t N, uint32_t m, int k, uint64_t tq);

/*
 * the estimated ns of n samples with the index: about N f / r trials a
 * sample (candidates per member), and when those would exceed an eighth of
 * the candidates the sampler reconstructs instead (bst_sample)
 */
extern double bst_cost_index_sample(uint64_t N, uint32_t m, int k, uint64_t tq, int64_t n);

#endif							/* BST_PLAN_H */
