/*
 * test_topk.c
 *    Unit tests of the heavy-hitters core (src/core/topk.c) against exact
 *    counts: the heap and its hash index against brute force under random
 *    offers; on Zipf streams of 10^6 events (s = 0.8, 1.1, 1.5; three seeds
 *    each) the guarantee of README "Heavy hitters" (every element with
 *    f > (N + k*eps*N)/(k+1) is kept when the kept estimates are within
 *    eps*N) for one stream and for the merge of four partial streams, and the
 *    recall of the true top k (>= 0.95 at s >= 1.1); the bounds (lower <= f <=
 *    estimate; an item whose lower bound exceeds the threshold is a true heavy
 *    hitter, and >= 95% of the true heavy hitters are so vouched for); the
 *    exact mode (every element held with its exact count up to the cap, then
 *    the conversion to the sketch, and the guarantee after it).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cms.h"
#include "topk.h"
#include "unit.h"
#include "zipf.h"

#define EVENTS		1000000
#define UNIVERSE	100000

static void *
test_alloc(void *arg, size_t size)
{
	(void) arg;
	return malloc(size);
}

static void
test_free(void *arg, void *ptr)
{
	(void) arg;
	free(ptr);
}

static const TopkAlloc alloc = {test_alloc, test_free, NULL};

typedef struct Part
{
	CmsSketch	cms;
	TopkHeap	heap;
} Part;

static void
part_init(Part *p, uint32_t k, uint32_t w, uint32_t d, int32_t seed)
{
	p->cms.p.w = w;
	p->cms.p.d = d;
	p->cms.p.seed = seed;
	p->cms.total = 0;
	p->cms.counters = calloc((size_t) w * d, sizeof(int64_t));
	topk_init(&p->heap, k, malloc(k * sizeof(TopkItem)),
			  malloc(topk_nslots(k) * sizeof(int32_t)), alloc);
}

static void
part_free(Part *p)
{
	topk_clear(&p->heap);
	free(p->heap.items);
	free(p->heap.slots);
	free(p->cms.counters);
}

/* the stream step: what the topk_agg transition does */
static void
part_add(Part *p, const BsHasher *h, uint32_t x)
{
	BsKey		key = bs_key_int64(h, x);
	char		text[16];

	cms_add(&p->cms, key, 1);
	if (topk_offer(&p->heap, key, cms_estimate(&p->cms, key), 1) == TOPK_ADMIT)
		topk_insert(&p->heap, key, cms_estimate(&p->cms, key), 1, text,
					(uint32_t) snprintf(text, sizeof(text), "%u", x));
}

/* heap order and index consistent */
static bool
heap_valid(const TopkHeap *h)
{
	for (uint32_t i = 0; i < h->n; i++)
	{
		if (topk_find(h, h->items[i].key) != (int) i)
			return false;
		if (i > 0 && h->items[(i - 1) / 2].est > h->items[i].est)
			return false;
	}
	return true;
}

/* random offers against a brute-force model of the same rule */
static void
test_heap_brute_force(void)
{
	const uint32_t k = 7;
	TopkHeap	h;
	BsHasher	hasher;
	int64_t		est[64] = {0};
	bool		in[64] = {0};
	unsigned long long rng = 5;

	cms_hasher_init(&hasher, 0);
	topk_init(&h, k, malloc(k * sizeof(TopkItem)), malloc(topk_nslots(k) * sizeof(int32_t)), alloc);
	for (int step = 0; step < 200000 && !unit_failed; step++)
	{
		uint32_t	x = (uint32_t) (unit_splitmix64(&rng) % 64);
		BsKey		key = bs_key_int64(&hasher, x);
		int64_t		min = INT64_MAX;
		uint32_t	n = 0;
		TopkOffer	o;
		int64_t		inc = 1 + (int64_t) (unit_splitmix64(&rng) % 3);

		est[x] += inc;
		for (int i = 0; i < 64; i++)
			if (in[i])
			{
				n++;
				if (est[i] < min)
					min = est[i];
			}
		o = topk_offer(&h, key, est[x], inc);
		CHECK(o == (in[x] ? TOPK_UPDATED : (n < k || est[x] > min) ? TOPK_ADMIT : TOPK_REJECTED),
			  "step %d: offer outcome", step);
		if (o == TOPK_ADMIT)
		{
			if (n == k)
			{
				/* the evicted one (the heap's choice among equal minima) has the minimum */
				for (int i = 0; i < 64; i++)
					if (in[i] && bs_key_int64(&hasher, i).h1 == h.items[0].key.h1)
					{
						CHECK(est[i] == min, "step %d: evicts a smallest", step);
						in[i] = false;
					}
			}
			CHECK(topk_insert(&h, key, est[x], inc, "x", 1), "insert");
			in[x] = true;
		}
		CHECK(heap_valid(&h), "step %d: heap order and index", step);
		n = 0;
		for (int i = 0; i < 64; i++)
			if (in[i])
			{
				n++;
				CHECK(topk_find(&h, bs_key_int64(&hasher, i)) >= 0, "model's candidate %d in heap", i);
			}
		CHECK(n == h.n, "step %d: %u candidates, heap has %u", step, n, h.n);
	}
	topk_clear(&h);
	free(h.items);
	free(h.slots);
}

/* the element a candidate stands for (its text, not terminated, is decimal) */
static uint32_t
item_element(const TopkItem *item)
{
	char		buf[16] = {0};

	memcpy(buf, item->text, item->len < 15 ? item->len : 15);
	return (uint32_t) strtoul(buf, NULL, 10);
}

/*
 * Check the guarantee and the recall of one result: the kept candidates
 * (heap h), the sketch they were estimated with, the exact counts.
 */
static void
check_result(const char *what, double s, const TopkHeap *h, const CmsSketch *cms,
			 const int64_t *exact, int64_t n_events)
{
	double		eps = 2.718281828459045 / cms->p.w;
	double		threshold = (n_events + h->k * eps * n_events) / (h->k + 1);
	bool		estimates_within = true;
	int64_t		kth = 0;
	int64_t    *sorted = malloc((UNIVERSE + 1) * sizeof(int64_t));
	uint32_t	hits = 0;

	uint32_t	heavy = 0,
				vouched = 0;

	for (uint32_t i = 0; i < h->n; i++)
	{
		uint32_t	x = item_element(&h->items[i]);

		CHECK(h->items[i].est >= exact[x], "%s: stored estimate below the count", what);
		CHECK(h->items[i].lower <= exact[x], "%s: lower bound %ld above the count %ld", what,
			  (long) h->items[i].lower, (long) exact[x]);
		if (h->items[i].est > exact[x] + eps * n_events)
			estimates_within = false;
		/* reported as surely above the threshold (lower > threshold): it is */
		if (h->items[i].lower > threshold)
		{
			CHECK(exact[x] > threshold, "%s: a guaranteed item is below the threshold", what);
			vouched++;
		}
	}
	for (uint32_t x = 1; x <= UNIVERSE; x++)
		heavy += exact[x] > threshold;
	/* recall of the true heavy hitters among the vouched-for items */
	if (heavy > 0)
		CHECK(vouched >= 0.95 * heavy, "%s s=%.1f: %u of %u heavy hitters vouched for", what, s,
			  vouched, heavy);
	printf("  %s s=%.1f: %u heavy hitters above %.0f, %u vouched for\n", what, s, heavy,
		   threshold, vouched);
	/* the guarantee, given its condition (checked, reported when it fails) */
	if (estimates_within)
	{
		BsHasher	hasher;

		cms_hasher_init(&hasher, cms->p.seed);
		for (uint32_t x = 1; x <= UNIVERSE; x++)
			if (exact[x] > threshold)
				CHECK(topk_find(h, bs_key_int64(&hasher, x)) >= 0,
					  "%s s=%.1f: element %u with f=%ld > %.0f is not kept", what, s, x,
					  (long) exact[x], threshold);
	}
	else
		printf("  %s s=%.1f: a kept estimate exceeds f + eps*N (guarantee not applicable)\n", what, s);
	/* recall of the true top k: kept elements whose count reaches the k-th largest */
	memcpy(sorted, exact, (UNIVERSE + 1) * sizeof(int64_t));
	for (uint32_t i = 0; i < h->k; i++)
	{
		/* partial selection: the i-th largest to position i + 1 */
		uint32_t	best = i + 1;

		for (uint32_t j = i + 2; j <= UNIVERSE; j++)
			if (sorted[j] > sorted[best])
				best = j;
		kth = sorted[best];
		sorted[best] = sorted[i + 1];
		sorted[i + 1] = kth;
	}
	for (uint32_t i = 0; i < h->n; i++)
		hits += exact[item_element(&h->items[i])] >= kth;
	if (s >= 1.1)
		CHECK(hits >= 0.95 * h->k, "%s s=%.1f: recall %u of %u", what, s, hits, h->k);
	printf("  %s s=%.1f k=%u: recall %u/%u, threshold %.0f\n", what, s, h->k, hits, h->k, threshold);
	free(sorted);
}

static void
test_zipf(double s, unsigned long long seed, uint32_t k)
{
	const uint32_t w = 2048,
				d = 5;
	Part		whole,
				part[4];
	BsHasher	h;
	Zipf		z;
	int64_t    *exact = calloc(UNIVERSE + 1, sizeof(int64_t));
	char		what[64];

	part_init(&whole, k, w, d, (int32_t) seed);
	for (int i = 0; i < 4; i++)
		part_init(&part[i], k, w, d, (int32_t) seed);
	cms_hasher_init(&h, (int32_t) seed);
	zipf_init(&z, UNIVERSE, s, seed);
	for (int e = 0; e < EVENTS; e++)
	{
		uint32_t	x = zipf_next(&z);

		exact[x]++;
		part_add(&whole, &h, x);
		/* parts: contiguous quarters, as parallel workers see blocks */
		part_add(&part[e / (EVENTS / 4)], &h, x);
	}
	snprintf(what, sizeof(what), "stream seed=%llu", seed);
	CHECK(heap_valid(&whole.heap), "heap valid after the stream");
	check_result(what, s, &whole.heap, &whole.cms, exact, EVENTS);
	/* merge: ((0 + 1) + (2 + 3)), sketches first, then candidates */
	for (int pair = 0; pair < 4; pair += 2)
	{
		CHECK(cms_merge(&part[pair].cms, &part[pair + 1].cms) == CMS_OK, "merge sketches");
		CHECK(topk_merge(&part[pair].heap, &part[pair].cms, part[pair + 1].heap.items,
						 part[pair + 1].heap.n), "merge candidates");
	}
	cms_merge(&part[0].cms, &part[2].cms);
	topk_merge(&part[0].heap, &part[0].cms, part[2].heap.items, part[2].heap.n);
	CHECK(cms_equal(&part[0].cms, &whole.cms), "merged sketch = sketch of the whole");
	CHECK(heap_valid(&part[0].heap), "heap valid after merges");
	snprintf(what, sizeof(what), "merge of 4 seed=%llu", seed);
	check_result(what, s, &part[0].heap, &part[0].cms, exact, EVENTS);
	for (int i = 0; i < 4; i++)
		part_free(&part[i]);
	part_free(&whole);
	free(exact);
	zipf_free(&z);
}

/*
 * The exact mode: a stream of distinct elements from a universe of
 * `universe` (Zipf s) held exactly (every element, est = lower = its count,
 * checked against the exact counts when the heap fills up or the stream
 * ends) until the cap, then converted to the sketch; the result (exact, or
 * sketch after conversion) meets the guarantee and the bounds.
 */
static void
test_exact_mode(uint32_t universe, uint32_t cap, double s, unsigned long long seed)
{
	const uint32_t k = 10;
	Part		p;
	BsHasher	h;
	Zipf		z;
	int64_t    *exact = calloc(UNIVERSE + 1, sizeof(int64_t));
	bool		is_exact = true;
	char		what[64];
	uint32_t	distinct = 0;

	p.cms.p.w = 2048;
	p.cms.p.d = 5;
	p.cms.p.seed = (int32_t) seed;
	p.cms.total = 0;
	p.cms.counters = NULL;
	topk_init(&p.heap, 4, malloc(4 * sizeof(TopkItem)), malloc(topk_nslots(4) * sizeof(int32_t)),
			  alloc);
	cms_hasher_init(&h, (int32_t) seed);
	zipf_init(&z, universe, s, seed);
	for (int e = 0; e < EVENTS / 5 && !unit_failed; e++)
	{
		uint32_t	x = zipf_next(&z);
		BsKey		key = bs_key_int64(&h, x);
		char		text[16];

		distinct += exact[x] == 0;
		exact[x]++;
		if (is_exact)
		{
			TopkOffer	o = topk_exact_offer(&p.heap, key, 1, cap);

			if (o == TOPK_ADMIT)
			{
				if (p.heap.n == p.heap.k)
					CHECK(topk_grow(&p.heap, p.heap.k * 2 < cap ? p.heap.k * 2 : cap), "grow");
				CHECK(topk_exact_insert(&p.heap, key, 1, text,
										(uint32_t) snprintf(text, sizeof(text), "%u", x)), "insert");
			}
			if (o != TOPK_REJECTED)
			{
				p.cms.total++;
				continue;
			}
			/* full: every element held, exactly (x itself not yet) */
			CHECK(p.heap.n == cap && distinct == cap + 1, "cap %u: %u held, %u distinct", cap,
				  p.heap.n, distinct);
			for (uint32_t i = 0; i < p.heap.n; i++)
			{
				uint32_t	y = item_element(&p.heap.items[i]);

				CHECK(p.heap.items[i].est == exact[y] - (y == x) &&
					  p.heap.items[i].lower == p.heap.items[i].est, "exact count of %u", y);
			}
			for (uint32_t i = 0; i < p.heap.n; i++)
				CHECK(topk_find(&p.heap, p.heap.items[i].key) == (int) i, "exact index");
			p.cms.counters = calloc((size_t) p.cms.p.w * p.cms.p.d, sizeof(int64_t));
			CHECK(topk_exact_to_sketch(&p.heap, &p.cms, k), "convert");
			CHECK(p.heap.k == k && p.heap.n == k && heap_valid(&p.heap), "converted heap");
			is_exact = false;
		}
		cms_add(&p.cms, key, 1);
		if (topk_offer(&p.heap, key, cms_estimate(&p.cms, key), 1) == TOPK_ADMIT)
			topk_insert(&p.heap, key, cms_estimate(&p.cms, key), 1, text,
						(uint32_t) snprintf(text, sizeof(text), "%u", x));
	}
	snprintf(what, sizeof(what), "exact mode cap=%u seed=%llu", cap, seed);
	if (is_exact)
	{
		CHECK(p.heap.n == distinct, "%s: every element held", what);
		for (uint32_t i = 0; i < p.heap.n; i++)
		{
			uint32_t	y = item_element(&p.heap.items[i]);

			CHECK(p.heap.items[i].est == exact[y] && p.heap.items[i].lower == exact[y],
				  "%s: exact count of %u", what, y);
		}
		printf("  %s: exact to the end, %u elements\n", what, distinct);
	}
	else
	{
		TopkHeap	hk = p.heap;

		CHECK(p.cms.total == EVENTS / 5, "%s: total", what);
		hk.k = k;
		check_result(what, s, &hk, &p.cms, exact, EVENTS / 5);
	}
	topk_clear(&p.heap);
	free(p.heap.items);
	free(p.heap.slots);
	free(p.cms.counters);
	free(exact);
	zipf_free(&z);
}

int
main(void)
{
	static const double exponents[] = {0.8, 1.1, 1.5};

	test_heap_brute_force();
	test_exact_mode(50, 1280, 1.1, 7);
	test_exact_mode(UNIVERSE, 1280, 1.1, 8);
	test_exact_mode(UNIVERSE, 100, 1.5, 9);
	for (int i = 0; i < 3; i++)
		for (unsigned long long seed = 1; seed <= 3; seed++)
			test_zipf(exponents[i], seed * 104729 + i, seed == 2 ? 50 : 10);
	return UNIT_DONE();
}
