/*
 * bst_sort.h
 *    Sorting and searching arrays of ids (BloomSampleTree core).
 */
#ifndef BST_SORT_H
#define BST_SORT_H

#include <stddef.h>
#include <stdint.h>

/* sort ids ascending; checks for interrupts (bst_interrupt_hook) while it works */
extern void bst_sort_ids(int64_t *ids, size_t n);
/* sort ids and remove duplicates in place; returns the number kept */
extern size_t bst_sort_unique(int64_t *ids, size_t n);
/* first index i in [from, to) of the ascending ids with ids[i] >= x (to when none) */
extern size_t bst_lower_bound(const int64_t *ids, size_t from, size_t to, int64_t x);

#endif							/* BST_SORT_H */
