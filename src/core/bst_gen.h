/*
 * bst_gen.h
 *    Query-set generators of the paper's experiments (section 7.1),
 *    PostgreSQL-independent.
 *
 * Clustered sets: n ids drawn without replacement from [lo, hi) with a pdf
 * that starts uniform; after drawing s, pdf(s) is split equally between the
 * nearest undrawn ids below and above s (x and y), and with p > 0 every id
 * first gives up the fraction p of its probability, which also goes to x and
 * y (the paper uses p = 0.1).  A Fenwick tree makes each draw O(log M); the
 * "everyone gives up p" step is a global scale factor.
 */
#ifndef BST_GEN_H
#define BST_GEN_H

#include "bst_query.h"

/* n distinct clustered ids of [lo, hi) (n <= hi - lo), ascending, into out */
extern int	bst_gen_clustered(int64_t lo, int64_t hi, int64_t n, double p,
							  BstRng *rng, const BstAlloc *scratch, BstIdVec *out);

#endif							/* BST_GEN_H */
