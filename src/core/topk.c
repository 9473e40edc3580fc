/*
 * topk.c
 *    The heavy-hitters candidate min-heap with its hash index over keys, the
 *    stream step and the merge of two candidate sets (topk.h).
 *
 * The index is open addressing with linear probing over nslots >= 2k slots,
 * each holding a heap position (or -1); deletion shifts the following
 * entries back, so no tombstones accumulate however many evictions happen.
 *
 * The exact mode (topk.h) uses the same heap with a growing capacity: every
 * distinct element is held, so its "estimate" is its count.
 */
#include "topk.h"

#include <stdlib.h>
#include <string.h>

uint32_t
topk_nslots(uint32_t k)
{
	uint32_t	n = 4;

	while (n < 2 * k)
		n <<= 1;
	return n;
}

void
topk_init(TopkHeap *h, uint32_t k, TopkItem *items, int32_t *slots, TopkAlloc alloc)
{
	h->k = k;
	h->n = 0;
	h->items = items;
	h->slots = slots;
	h->nslots = topk_nslots(k);
	h->alloc = alloc;
	for (uint32_t i = 0; i < h->nslots; i++)
		h->slots[i] = -1;
}

static inline bool
key_eq(BsKey a, BsKey b)
{
	return a.h1 == b.h1 && a.h2 == b.h2;
}

static inline uint32_t
home_slot(const TopkHeap *h, BsKey key)
{
	return (uint32_t) (((key.h2 ^ (key.h1 >> 29)) * UINT64_C(0x9E3779B97F4A7C15)) >> 32) &
		(h->nslots - 1);
}

/* the slot holding key, or (when absent) the empty slot where it would go */
static uint32_t
probe(const TopkHeap *h, BsKey key, bool *found)
{
	uint32_t	mask = h->nslots - 1;
	uint32_t	s = home_slot(h, key);

	while (h->slots[s] >= 0)
	{
		if (key_eq(h->items[h->slots[s]].key, key))
		{
			*found = true;
			return s;
		}
		s = (s + 1) & mask;
	}
	*found = false;
	return s;
}

int
topk_find(const TopkHeap *h, BsKey key)
{
	bool		found;
	uint32_t	s = probe(h, key, &found);

	return found ? h->slots[s] : -1;
}

/* index the item just placed at heap position pos (its key has no entry yet) */
static void
index_set(TopkHeap *h, uint32_t pos)
{
	bool		found;
	uint32_t	s = probe(h, h->items[pos].key, &found);

	h->slots[s] = (int32_t) pos;
}

/* remove key's entry (present), shifting later entries of its run back */
static void
index_delete(TopkHeap *h, BsKey key)
{
	uint32_t	mask = h->nslots - 1;
	bool		found;
	uint32_t	hole = probe(h, key, &found);
	uint32_t	s = hole;

	h->slots[hole] = -1;
	for (;;)
	{
		uint32_t	home;

		s = (s + 1) & mask;
		if (h->slots[s] < 0)
			return;
		home = home_slot(h, h->items[h->slots[s]].key);
		/* the entry at s may move to the hole unless its home lies in (hole, s] */
		if (((s - home) & mask) >= ((s - hole) & mask))
		{
			h->slots[hole] = h->slots[s];
			h->slots[s] = -1;
			hole = s;
		}
	}
}

/* exchange heap positions a and b, and their index entries */
static void
swap(TopkHeap *h, uint32_t a, uint32_t b)
{
	bool		found;
	uint32_t	sa = probe(h, h->items[a].key, &found);
	uint32_t	sb = probe(h, h->items[b].key, &found);
	TopkItem	t = h->items[a];

	h->items[a] = h->items[b];
	h->items[b] = t;
	h->slots[sa] = (int32_t) b;
	h->slots[sb] = (int32_t) a;
}

/*
 * The heap's order: estimate, then key, a total order, so the minimum (the
 * one evicted) does not depend on the heap's layout: a value rebuilt from
 * its stored items (topk_add, deserialization) evolves like the original.
 */
static inline bool
before(const TopkItem *a, const TopkItem *b)
{
	if (a->est != b->est)
		return a->est < b->est;
	if (a->key.h1 != b->key.h1)
		return a->key.h1 < b->key.h1;
	return a->key.h2 < b->key.h2;
}

static void
sift_down(TopkHeap *h, uint32_t i)
{
	for (;;)
	{
		uint32_t	l = 2 * i + 1,
					r = l + 1,
					m = i;

		if (l < h->n && before(&h->items[l], &h->items[m]))
			m = l;
		if (r < h->n && before(&h->items[r], &h->items[m]))
			m = r;
		if (m == i)
			return;
		swap(h, i, m);
		i = m;
	}
}

static void
sift_up(TopkHeap *h, uint32_t i)
{
	while (i > 0)
	{
		uint32_t	parent = (i - 1) / 2;

		if (!before(&h->items[i], &h->items[parent]))
			return;
		swap(h, i, parent);
		i = parent;
	}
}

TopkOffer
topk_offer(TopkHeap *h, BsKey key, int64_t est, int64_t count)
{
	int			pos = topk_find(h, key);

	if (pos >= 0)
	{
		h->items[pos].lower += count;
		if (est > h->items[pos].est)
		{
			h->items[pos].est = est;
			sift_down(h, (uint32_t) pos);
		}
		return TOPK_UPDATED;
	}
	if (h->n < h->k || est > h->items[0].est)
		return TOPK_ADMIT;
	return TOPK_REJECTED;
}

bool
topk_insert(TopkHeap *h, BsKey key, int64_t est, int64_t lower, const char *text, uint32_t len)
{
	char	   *copy = h->alloc.alloc(h->alloc.arg, len > 0 ? len : 1);
	uint32_t	pos;

	if (copy == NULL)
		return false;
	memcpy(copy, text, len);
	if (h->n < h->k)
		pos = h->n++;
	else
	{
		pos = 0;
		index_delete(h, h->items[0].key);
		h->alloc.free(h->alloc.arg, h->items[0].text);
	}
	h->items[pos].key = key;
	h->items[pos].est = est;
	h->items[pos].lower = lower;
	h->items[pos].len = len;
	h->items[pos].text = copy;
	index_set(h, pos);
	if (pos == 0)
		sift_down(h, 0);
	else
		sift_up(h, pos);
	return true;
}

bool
topk_merge(TopkHeap *dst, const CmsSketch *merged, const TopkItem *src, uint32_t nsrc)
{
	for (uint32_t i = 0; i < dst->n; i++)
		dst->items[i].est = cms_estimate(merged, dst->items[i].key);
	for (uint32_t i = 0; i < nsrc; i++)
	{
		int			pos = topk_find(dst, src[i].key);

		if (pos >= 0)
			dst->items[pos].lower += src[i].lower;
	}
	for (uint32_t i = dst->n / 2; i-- > 0;)
		sift_down(dst, i);
	for (uint32_t i = 0; i < nsrc; i++)
	{
		int64_t		est;

		if (topk_find(dst, src[i].key) >= 0)
			continue;
		est = cms_estimate(merged, src[i].key);
		if (dst->n < dst->k || est > dst->items[0].est)
			if (!topk_insert(dst, src[i].key, est, src[i].lower, src[i].text, src[i].len))
				return false;
	}
	return true;
}

bool
topk_grow(TopkHeap *h, uint32_t cap)
{
	uint32_t	nslots = topk_nslots(cap);
	TopkItem   *items = h->alloc.alloc(h->alloc.arg, (size_t) cap * sizeof(TopkItem));
	int32_t    *slots;

	if (items == NULL)
		return false;
	slots = h->alloc.alloc(h->alloc.arg, (size_t) nslots * sizeof(int32_t));
	if (slots == NULL)
	{
		h->alloc.free(h->alloc.arg, items);
		return false;
	}
	memcpy(items, h->items, (size_t) h->n * sizeof(TopkItem));
	h->alloc.free(h->alloc.arg, h->items);
	h->alloc.free(h->alloc.arg, h->slots);
	h->items = items;
	h->slots = slots;
	h->k = cap;
	h->nslots = nslots;
	for (uint32_t i = 0; i < nslots; i++)
		slots[i] = -1;
	for (uint32_t i = 0; i < h->n; i++)
		index_set(h, i);
	return true;
}

uint32_t
topk_exact_cap(const CmsParams *p, uint32_t k)
{
	uint64_t	cap = (uint64_t) p->w * p->d / 8;

	return cap > k ? (uint32_t) cap : k;
}

TopkOffer
topk_exact_offer(TopkHeap *h, BsKey key, int64_t count, uint32_t cap)
{
	int			pos = topk_find(h, key);

	if (pos >= 0)
	{
		h->items[pos].est += count;
		h->items[pos].lower += count;
		return TOPK_UPDATED;
	}
	return h->n < cap ? TOPK_ADMIT : TOPK_REJECTED;
}

bool
topk_exact_insert(TopkHeap *h, BsKey key, int64_t count, const char *text, uint32_t len)
{
	char	   *copy;

	if (h->n == h->k)
		return false;
	copy = h->alloc.alloc(h->alloc.arg, len > 0 ? len : 1);
	if (copy == NULL)
		return false;
	memcpy(copy, text, len);
	h->items[h->n].key = key;
	h->items[h->n].est = count;
	h->items[h->n].lower = count;
	h->items[h->n].len = len;
	h->items[h->n].text = copy;
	index_set(h, h->n);
	h->n++;
	return true;
}

bool
topk_exact_to_sketch(TopkHeap *h, CmsSketch *cms, uint32_t k)
{
	TopkItem   *sorted = h->alloc.alloc(h->alloc.arg, ((size_t) h->n + 1) * sizeof(TopkItem));
	TopkHeap	small;
	uint32_t	keep;

	if (sorted == NULL)
		return false;
	for (uint32_t i = 0; i < h->n; i++)
	{
		uint32_t	col[CMS_MAX_D];

		cms_columns(&cms->p, h->items[i].key, col);
		for (uint32_t r = 0; r < cms->p.d; r++)
			cms->counters[(size_t) r * cms->p.w + col[r]] += h->items[i].est;
	}
	topk_sorted(h, sorted);
	keep = h->n < k ? h->n : k;
	/* a heap of capacity k holding the `keep` largest, texts moved over */
	small.items = h->alloc.alloc(h->alloc.arg, (size_t) k * sizeof(TopkItem));
	small.slots = small.items ? h->alloc.alloc(h->alloc.arg, topk_nslots(k) * sizeof(int32_t)) : NULL;
	if (small.slots == NULL)
	{
		if (small.items)
			h->alloc.free(h->alloc.arg, small.items);
		h->alloc.free(h->alloc.arg, sorted);
		return false;
	}
	topk_init(&small, k, small.items, small.slots, h->alloc);
	for (uint32_t i = 0; i < keep; i++)
	{
		small.items[i] = sorted[i];
		small.items[i].lower = sorted[i].est;
		small.items[i].est = cms_estimate(cms, sorted[i].key);
		small.n = i + 1;
		index_set(&small, i);
	}
	for (uint32_t i = small.n / 2; i-- > 0;)
		sift_down(&small, i);
	for (uint32_t i = keep; i < h->n; i++)
		h->alloc.free(h->alloc.arg, sorted[i].text);
	h->alloc.free(h->alloc.arg, sorted);
	h->alloc.free(h->alloc.arg, h->items);
	h->alloc.free(h->alloc.arg, h->slots);
	*h = small;
	return true;
}

int
topk_item_cmp(const TopkItem *a, const TopkItem *b)
{
	int			c;

	if (a->est != b->est)
		return a->est > b->est ? -1 : 1;
	c = memcmp(a->text, b->text, a->len < b->len ? a->len : b->len);
	if (c != 0)
		return c;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	if (a->key.h1 != b->key.h1)
		return a->key.h1 < b->key.h1 ? -1 : 1;
	if (a->key.h2 != b->key.h2)
		return a->key.h2 < b->key.h2 ? -1 : 1;
	return 0;
}

static int
item_qsort_cmp(const void *a, const void *b)
{
	return topk_item_cmp((const TopkItem *) a, (const TopkItem *) b);
}

void
topk_sorted(const TopkHeap *h, TopkItem *out)
{
	memcpy(out, h->items, h->n * sizeof(TopkItem));
	qsort(out, h->n, sizeof(TopkItem), item_qsort_cmp);
}

void
topk_clear(TopkHeap *h)
{
	for (uint32_t i = 0; i < h->n; i++)
		h->alloc.free(h->alloc.arg, h->items[i].text);
	h->n = 0;
	for (uint32_t i = 0; i < h->nslots; i++)
		h->slots[i] = -1;
}
