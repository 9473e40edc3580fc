/*
 * bst_index.h
 *    The inverted index's functions that BloomSampleTree construction calls
 *    (bst_tree.c); the public ones (sizes, bst_index_build) are in bst_tree.h.
 */
#ifndef BST_INDEX_H
#define BST_INDEX_H

#include "bst_tree.h"

/* the id at position i of the tree's id space: lo + i (full) or ids[i] (pruned) */
static inline int64_t
bst_index_id(const BstTree *t, uint64_t i)
{
	return t->kind == BST_KIND_FULL ? t->lo + (int64_t) i : t->ids[i];
}

/*
 * The bucket an id is filed under: the least loaded of its k positions pos[]
 * (load of p: cnt[p] - base[p], base NULL for 0; ties go to the earliest in
 * pos[]); returns its index in pos[].  Any of an id's positions would do: a
 * positive of q has all of them set in q, so it is a candidate of q exactly
 * once wherever it is filed; filing each id where fewest are keeps the
 * largest bucket, which the bucket trials' count scales with, near the mean
 * (docs/bloomsampletree.md, "Fifth round").  The counting pass and the fill
 * both call it, over the ids in the same order, so they file alike.
 */
static inline int
bst_index_choose(const uint32_t *cnt, const uint32_t *base, const uint32_t *pos, int k)
{
	int			c = 0;
	uint32_t	best = cnt[pos[0]] - (base ? base[pos[0]] : 0);

	for (int j = 1; j < k; j++)
	{
		uint32_t	load = cnt[pos[j]] - (base ? base[pos[j]] : 0);

		if (load < best)
		{
			best = load;
			c = j;
		}
	}
	return c;
}

/*
 * the counting pass, for the next id in id order (its k positions pos[]):
 * one more id in its bucket's count, start[p + 1]
 */
static inline void
bst_index_count(BstIndex *ix, const uint32_t *pos, int k)
{
	ix->start[pos[bst_index_choose(ix->start + 1, NULL, pos, k)] + 1]++;
}

/*
 * Allocate the index of N ids with zeroed counts and entries: the caller
 * then counts every id, in id order, with bst_index_count and calls
 * bst_index_fill.
 */
extern int	bst_index_alloc(BstTree *t, uint64_t N);
/* fill the allocated index from the counts (hashes every id again) */
extern int	bst_index_fill(BstTree *t);
/* free the tree's index, if any */
extern void bst_index_free(BstTree *t);

#endif							/* BST_INDEX_H */
