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

#endif							/* BST_PLAN_H */
