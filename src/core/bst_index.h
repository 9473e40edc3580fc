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
 * Allocate the index of N ids with zeroed counts and entries: the caller
 * then counts every id's bucket in start[p + 1] and calls bst_index_fill.
 */
extern int	bst_index_alloc(BstTree *t, uint64_t N);
/* fill the allocated index from the counts (hashes every id again) */
extern int	bst_index_fill(BstTree *t);
/* free the tree's index, if any */
extern void bst_index_free(BstTree *t);

#endif							/* BST_INDEX_H */
