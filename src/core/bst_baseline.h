/*
 * bst_baseline.h
 *    The baselines of the BloomSampleTree paper (section 4), PostgreSQL-
 *    independent: the dictionary attack (test every id of [lo, hi)), sampling
 *    by reservoir over the dictionary attack, and HashInvert for the 'linear'
 *    hash family (solve a*x + b = p (mod m) for the set bits, or the unset
 *    bits, whichever are fewer).
 */
#ifndef BST_BASELINE_H
#define BST_BASELINE_H

#include "bst_query.h"

/* every x in [lo, hi) with q reporting x as a member, ascending */
extern int	bst_dictionary_attack(const BsHasher *h, const uint8_t *q, int64_t lo,
								  int64_t hi, BstIdVec *out, BstStats *st);

/*
 * every id of the tree t that q reports as a member, ascending, by testing
 * each of its ids (the dictionary attack over [lo, hi) of a full tree, over
 * the occupied ids of a pruned one): the 'scan' method of bst_reconstruct
 * and bst_sample, the same answer as bst_reconstruct_index
 */
extern int	bst_reconstruct_scan(const BstTree *t, const uint8_t *q, BstIdVec *out,
								 BstStats *st);

/*
 * n independent uniform samples of the members in [lo, hi) by one pass of n
 * reservoirs of size one (the j-th positive replaces each reservoir with
 * probability 1/j; replaced reservoirs are found by geometric skips).
 * out receives n ids, or none when there is no member.  scratch holds the
 * reservoirs.
 */
extern int	bst_dictionary_sample(const BsHasher *h, const uint8_t *q, int64_t lo,
								  int64_t hi, int64_t n, BstRng *rng,
								  const BstAlloc *scratch, BstIdVec *out,
								  BstStats *st);

/*
 * HashInvert ('linear' family only; BST_ETOOBIG otherwise): the members in
 * [lo, hi), ascending.  With t set bits <= m/2 it inverts hash function 0 at
 * every set bit (candidates x with a_0 x + b_0 = p mod m, each tested in
 * full); otherwise it inverts every function at every unset bit and returns
 * the ids never hit (a bitmap of hi - lo bits from scratch).  *used_unset
 * tells which.
 */
extern int	bst_hashinvert(const BsHasher *h, const uint8_t *q, int64_t lo,
						   int64_t hi, const BstAlloc *scratch, BstIdVec *out,
						   BstStats *st, bool *used_unset);

#endif							/* BST_BASELINE_H */
