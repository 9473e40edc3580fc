/*
 * bst_unit.h
 *    Helpers the BloomSampleTree unit tests share: a query filter of given
 *    ids, and equality of two id vectors.
 */
#ifndef BST_UNIT_H
#define BST_UNIT_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bst_query.h"

/* a filter (calloc'd) holding ids[0 .. n-1] with h's parameters */
static inline uint8_t *
make_filter(const BsHasher *h, const int64_t *ids, size_t n)
{
	uint8_t    *q = calloc(bs_words_for_bits(h->p.m), 8);

	for (size_t i = 0; i < n; i++)
		bs_key_set(h, bs_key_int64(h, ids[i]), q);
	return q;
}

/* true when a and b hold the same ids in the same order */
static inline bool
same_vec(const BstIdVec *a, const BstIdVec *b)
{
	return a->n == b->n && (a->n == 0 || memcmp(a->v, b->v, a->n * sizeof(int64_t)) == 0);
}

#endif							/* BST_UNIT_H */
