/*
 * bloofi_tree.h
 *    The rules of the multi-level Bloofi tree (the paper's d-ary hierarchy,
 *    sections 3.1-3.4), PostgreSQL-independent and allocation-free.
 *
 * Decisions on node values (m-bit filters of nwords 64-bit words), called by
 * the index access method on page contents (src/bloofi_*.c) and by the
 * in-memory reference tree of the tests (test/ref/bloofi_reftree.h):
 *   bloofi_tree_hamming        Hamming distance of two filters
 *   bloofi_tree_closest        the child the insert descends into
 *   bloofi_tree_all_ones       the section 3.4 test
 *   bloofi_tree_saturated      its refinement (fill^k > 1/2)
 *   bloofi_tree_must_split     overflow rule with the no-split heuristic
 *   bloofi_tree_split_choice   which children go to the new sibling
 *   bloofi_tree_level_parents  bottom-up bulk build: parents per level
 *   bloofi_tree_level_plan     ... chosen by a search-cost model
 *
 * The bloofi_tree_ prefix belongs to this file alone.  Design notes:
 * docs/bloofi.md.
 */
#ifndef BLOOFI_TREE_H
#define BLOOFI_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* popcount(a XOR b) over nwords 64-bit words */
extern uint64_t bloofi_tree_hamming(const uint8_t *a, const uint8_t *b, size_t nwords);

/*
 * Index of the child value (vals[0..n)) at the smallest Hamming distance
 * from filter; ties go to the lowest index; -1 when n <= 0.
 */
extern int	bloofi_tree_closest(const uint8_t *const *vals, int n,
								const uint8_t *filter, size_t nwords);

/* true when bits 0..m-1 of bits are all set */
extern bool bloofi_tree_all_ones(const uint8_t *bits, uint32_t m);

/*
 * true when a node value of m bits prunes less than half of the lookups of
 * absent elements: fill^k > 1/2 (fill = popcount / m; an all-ones value is
 * saturated).  The same criterion as the index's BLOOFI_NODE_SATURATED hint.
 */
extern bool bloofi_tree_saturated(const uint8_t *bits, uint32_t m, int k);

/* when a full node (more than 2d children) is NOT split */
typedef enum BloofiSplitRule
{
	BLOOFI_SPLIT_ALWAYS = 0,	/* the plain B+-tree rule */
	BLOOFI_NOSPLIT_ALL_ONES = 1,	/* section 3.4: not when its value is all
									 * ones */
	BLOOFI_NOSPLIT_SATURATED = 2	/* refinement: not when saturated (fill^k
									 * > 1/2): a level of such nodes prunes
									 * little, as all-ones ones prune nothing */
} BloofiSplitRule;

/*
 * A node of a tree of order d with nchild children overflows when
 * nchild > 2d; it is split then unless the rule exempts its value (m bits,
 * k hash functions).
 */
extern bool bloofi_tree_must_split(int nchild, int d, const uint8_t *val, uint32_t m, int k,
								   BloofiSplitRule rule);

/* true when the rule exempts val from splitting (never for BLOOFI_SPLIT_ALWAYS) */
extern bool bloofi_tree_unsplittable(const uint8_t *val, uint32_t m, int k,
									 BloofiSplitRule rule);

/*
 * Split choice: partition n >= 2 * min_side children (values vals[i]) into
 * two sides of at least min_side each (min_side >= 1), putting similar
 * children together.  Seeds: the pair at the largest Hamming distance
 * (lowest indexes on ties), seed i0 on side 0 and i1 on side 1; then every
 * other child, in index order, goes to the side whose OR grows least by
 * adding it (ties: the smaller side, then side 0), except that once a side
 * needs all the remaining children to reach min_side it gets them.
 * Writes side[i] in {0, 1}; scratch must hold 2 * nwords words (the two ORs).
 */
extern void bloofi_tree_split_choice(const uint8_t *const *vals, int n, int min_side,
									 size_t nwords, uint8_t *side, uint64_t *scratch);

/*
 * Bulk build: how many parents n >= 2 nodes of one level get in a tree of
 * order d: 1 when n <= 2d, else about n / (d + 1) (the shape of the paper's
 * bulk build, which inserts next to the rightmost leaf, so that splits leave
 * d + 1 children behind, and fewer nodes checked per lookup than 2d),
 * clamped so that every parent gets d..2d children.  Each parent takes a run
 * of consecutive nodes, sizes differing by at most one;
 * bloofi_tree_level_run gives the first node of parent p.
 */
#ifndef BLOOFI_TREE_BULK_FANOUT
#define BLOOFI_TREE_BULK_FANOUT(d)	((int64_t) (d) + 1)
#endif
extern int64_t bloofi_tree_level_parents(int64_t n, int d);
extern int64_t bloofi_tree_level_run(int64_t n, int64_t parents, int64_t p);

/*
 * The search-cost model that places the bulk build's root.  Lookups are of
 * elements held by one leaf (the paper's search cost); a node value passes
 * an element it does not hold with probability fp = fill^k
 * (bloofi_tree_value_fp), and a child's pass, given its parent passed, with
 * fp(child) / fp(parent) (a child passing implies its parent passing).
 * Per subtree:
 *   leaves   leaves under it (a leaf: 1)
 *   absent   nodes checked below it for an element no leaf of it holds,
 *            times its own pass probability: fp * nchild + sum of the
 *            children's absent (a leaf: 0)
 *   present  nodes checked below it for an element of one of its leaves,
 *            averaged over its leaves: nchild + the true child's present +
 *            the other children's absent (a leaf: 0)
 * A root over a level costs 1 (its own value, unless saturated) + the
 * present of the parent of that level.  The paper's trees put the root where
 * B+-tree splits happen to leave it, or (section 3.4) over a saturated level;
 * the model puts it where lookups check fewest nodes.
 */
typedef struct BloofiSubtreeCost
{
	double		leaves;
	double		absent;
	double		present;
} BloofiSubtreeCost;

/* fill^k of an m-bit value (fill = popcount / m) */
extern double bloofi_tree_value_fp(const uint8_t *val, uint32_t m, int k);

/* the cost of a parent (value's pass probability parent_fp) of n >= 1 subtrees */
extern void bloofi_tree_cost_parent(const BloofiSubtreeCost *child, int64_t n,
									double parent_fp, BloofiSubtreeCost *parent);

/* the cost of a parent (pass probability parent_fp) of n leaves */
extern void bloofi_tree_cost_leaves(int64_t n, double parent_fp, BloofiSubtreeCost *parent);

/* parents of n nodes with about `fanout` children each, clamped to d..2d */
extern int64_t bloofi_tree_level_parents_by(int64_t n, int d, int64_t fanout);

/*
 * Bulk build, one level of n >= 2 nodes (values vals[i] of m bits, costs
 * cost[i]) of a tree of order d: how many parents it gets, and their costs
 * in pcost[] (room for n; parent p takes the run that bloofi_tree_level_run
 * gives).  The model compares, for lookups of present elements: fan-out
 * d + 1 and fan-out d (at least 2), each with the tree above it completed
 * with either fan-out at every level (and a wide root once it beats the
 * next level),
 * and one wide root over the whole level, allowed when n <= max_fanout and
 * the rule would never split that root (section 3.4 in bulk).  Never worse,
 * by the model, than fan-out d + 1 all the way; typically the lower
 * levels get d + 1 and the upper ones d, where siblings' false
 * positives make narrow nodes pay.  work: bloofi_tree_level_plan_work(n, m)
 * bytes, 8-byte aligned.
 */
extern size_t bloofi_tree_level_plan_work(int64_t n, uint32_t m);
extern int64_t bloofi_tree_level_plan(const uint8_t *const *vals,
									  const BloofiSubtreeCost *cost, int64_t n, int d,
									  uint32_t m, int k, BloofiSplitRule rule,
									  int64_t max_fanout, BloofiSubtreeCost *pcost,
									  void *work);

#endif							/* BLOOFI_TREE_H */
