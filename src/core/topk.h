/*
 * topk.h
 *    The heavy-hitters candidate set of bloomsample's `topk` type:
 *    PostgreSQL-independent.
 *
 * A topk value is a Count-Min sketch (cms.h) plus the min-heap of the notes:
 * the k current most frequent candidates, each with its key (the element's
 * 128-bit hash), its element value in text form and the sketch's estimate of
 * it when it was last seen.  An arriving element is added to the sketch and
 * re-estimated; a candidate gets its new estimate, a non-candidate enters
 * when the heap has room or its estimate exceeds the smallest (which is
 * evicted).  A hash index over the keys finds a candidate in O(1).
 *
 * Merging two values (parallel aggregation, topk_union_agg): merge the
 * sketches, re-estimate the union of both candidate sets against the merged
 * sketch, keep the k largest.  docs/hashing.md "The heavy-hitter guarantee" derives it:
 * every element with frequency f > (N + k*eps*N) / (k + 1) (< N/k + eps*N)
 * is kept, through any number of merges, whenever the kept candidates'
 * estimates are within eps*N of their frequencies.
 *
 * Bounds (issue 32): each candidate also carries `lower`, the count it
 * received while it was a candidate (summed over merges): a lower bound of
 * its frequency, exact when it entered at its first occurrence.  Its
 * estimate is an upper bound (Count-Min never undercounts).
 *
 * Exact mode (issue 37): a group starts without counters.  The heap then
 * holds EVERY distinct element with its exact count (est = lower = count),
 * growing its arrays on demand up to topk_exact_cap(); the first distinct
 * element beyond that converts the group to the sketch (topk_exact_to_sketch:
 * every exact count added to zeroed counters, the k largest kept as
 * candidates with lower = their exact count).  A small group so costs a few
 * dozen bytes instead of w*d counters, and everything it reports is exact.
 *
 * The heap owns the candidates' texts (and, after topk_grow, its arrays),
 * allocated through TopkAlloc.
 */
#ifndef TOPK_H
#define TOPK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bs_hash.h"
#include "cms.h"

#define TOPK_MIN_K	1
#define TOPK_MAX_K	10000
/* a candidate's text form is at most this many bytes (longer elements are refused) */
#define TOPK_MAX_ITEM_BYTES	1024

typedef struct TopkAlloc
{
	void	   *(*alloc) (void *arg, size_t size);
	void		(*free) (void *arg, void *ptr);
	void	   *arg;
} TopkAlloc;

typedef struct TopkItem
{
	BsKey		key;
	int64_t		est;			/* the sketch's estimate when last seen */
	int64_t		lower;			/* count received while a candidate: <= f */
	uint32_t	len;			/* bytes of text */
	char	   *text;			/* the element's text form, not terminated */
} TopkItem;

typedef struct TopkHeap
{
	uint32_t	k;				/* capacity */
	uint32_t	n;				/* candidates held */
	TopkItem   *items;			/* k entries, a min-heap by est */
	int32_t    *slots;			/* hash index: heap position or -1 */
	uint32_t	nslots;			/* power of two >= 2k */
	TopkAlloc	alloc;
} TopkHeap;

typedef enum TopkOffer
{
	TOPK_UPDATED,				/* a candidate: its estimate was raised */
	TOPK_REJECTED,				/* not a candidate and not admitted */
	TOPK_ADMIT					/* not a candidate, admitted: call topk_insert */
} TopkOffer;

/* slots the hash index needs for capacity k */
extern uint32_t topk_nslots(uint32_t k);

/* an empty heap over caller-allocated items[k] and slots[topk_nslots(k)] */
extern void topk_init(TopkHeap *h, uint32_t k, TopkItem *items, int32_t *slots,
					  TopkAlloc alloc);

/* position of the candidate with this key, or -1 */
extern int	topk_find(const TopkHeap *h, BsKey key);

/*
 * The stream step for an element whose sketch estimate is now est, after
 * count more occurrences: a candidate gets est (when larger) and its lower
 * bound raised by count.
 */
extern TopkOffer topk_offer(TopkHeap *h, BsKey key, int64_t est, int64_t count);

/*
 * Insert a candidate (after TOPK_ADMIT, or while merging), evicting the
 * smallest when full; the text is copied.  Returns false when the allocator
 * fails (the heap is unchanged).
 */
extern bool topk_insert(TopkHeap *h, BsKey key, int64_t est, int64_t lower,
						const char *text, uint32_t len);

/*
 * Move the heap to new arrays of capacity cap (>= h->n, allocated with
 * h->alloc; the old arrays are freed with it): the exact mode's growth.
 * Returns false when the allocator fails (the heap is unchanged).
 */
extern bool topk_grow(TopkHeap *h, uint32_t cap);

/* the exact mode's capacity for sketch parameters p and k: max(k, w*d/8) */
extern uint32_t topk_exact_cap(const CmsParams *p, uint32_t k);

/*
 * Exact mode -> sketch: add every held element's count (its est) to cms,
 * whose counters must be zero and whose total is the sum of those counts,
 * then keep the k largest (by count, topk_item_cmp order) as candidates with
 * est = their sketch estimate and lower = their count, in new arrays of
 * capacity k.  Returns false on an allocation failure (h unchanged, cms's
 * counters then hold the counts).
 */
extern bool topk_exact_to_sketch(TopkHeap *h, CmsSketch *cms, uint32_t k);

/*
 * The exact mode's step: count more occurrences of key.  Returns
 * TOPK_UPDATED (held: its count raised), TOPK_ADMIT (new: call
 * topk_exact_insert, after topk_grow when h->n == h->k) or TOPK_REJECTED
 * (new, but cap elements are held: convert first).  In exact mode the items
 * are NOT kept in heap order (nothing is ever evicted; every reader sorts
 * them): only the hash index is maintained.
 */
extern TopkOffer topk_exact_offer(TopkHeap *h, BsKey key, int64_t count, uint32_t cap);

/*
 * Append a new element with its count (est = lower = count) to an exact-mode
 * heap with room (h->n < h->k); the text is copied.  Returns false when full
 * or the allocator fails (unchanged).
 */
extern bool topk_exact_insert(TopkHeap *h, BsKey key, int64_t count, const char *text,
							  uint32_t len);

/*
 * Merge: re-estimate dst's candidates against `merged` (the sum of both
 * sketches; or, for an exact-mode src, dst's sketch with src's counts
 * added), add the lower bound of a src candidate also in dst to dst's, then
 * offer src's other candidates with their estimates against `merged` and
 * their own lower bounds.  Returns false on an allocation failure.
 */
extern bool topk_merge(TopkHeap *dst, const CmsSketch *merged,
					   const TopkItem *src, uint32_t nsrc);

/* out[0..n-1] := the candidates, largest estimate first (ties: text, then key) */
extern void topk_sorted(const TopkHeap *h, TopkItem *out);

/* order of topk_sorted: negative when a comes first */
extern int	topk_item_cmp(const TopkItem *a, const TopkItem *b);

/* free every candidate's text and empty the heap */
extern void topk_clear(TopkHeap *h);

#endif							/* TOPK_H */
