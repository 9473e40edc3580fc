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
 * sketch, keep the k largest.  README "Heavy hitters" derives the guarantee:
 * every element with frequency f > (N + k*eps*N) / (k + 1) (< N/k + eps*N)
 * is kept, through any number of merges, whenever the kept candidates'
 * estimates are within eps*N of their frequencies.
 *
 * The heap owns the candidates' texts, allocated through TopkAlloc.
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

/* the stream step for an element whose sketch estimate is now est */
extern TopkOffer topk_offer(TopkHeap *h, BsKey key, int64_t est);

/*
 * Insert a candidate (after TOPK_ADMIT, or while merging), evicting the
 * smallest when full; the text is copied.  Returns false when the allocator
 * fails (the heap is unchanged).
 */
extern bool topk_insert(TopkHeap *h, BsKey key, int64_t est, const char *text, uint32_t len);

/*
 * Merge: re-estimate dst's candidates against `merged` (the sum of both
 * sketches), then offer src's candidates not already in dst with their
 * estimates against `merged`.  Returns false on an allocation failure.
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
