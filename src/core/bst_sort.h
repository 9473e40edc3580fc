/*
 * bst_sort.h
 *    Sorting and searching arrays of ids (BloomSampleTree core), and the
 *    core's interrupt hook they poll: the bottom of the tree core, which
 *    every other file of it may call.
 */
#ifndef BST_SORT_H
#define BST_SORT_H

#include <stddef.h>
#include <stdint.h>

/*
 * Interrupt hook: long loops of the core call it every few thousand
 * iterations (the glue points it at CHECK_FOR_INTERRUPTS, which may longjmp:
 * callers must own their memory through an allocator they can reset).
 */
extern void (*bst_interrupt_hook) (void);

#define BST_CHECK_INTERRUPTS() \
	do { if (bst_interrupt_hook) bst_interrupt_hook(); } while (0)

/* sort ids ascending; checks for interrupts (bst_interrupt_hook) while it works */
extern void bst_sort_ids(int64_t *ids, size_t n);
/* sort ids and remove duplicates in place; returns the number kept */
extern size_t bst_sort_unique(int64_t *ids, size_t n);
/* first index i in [from, to) of the ascending ids with ids[i] >= x (to when none) */
extern size_t bst_lower_bound(const int64_t *ids, size_t from, size_t to, int64_t x);

/* number of bits needed to write x >= 0 (0 for 0): of an id, a span, a count */
static inline int
bst_bit_length(int64_t x)
{
	int			b = 0;

	while (b < 63 && (x >> b) != 0)
		b++;
	return b;
}

#endif							/* BST_SORT_H */
