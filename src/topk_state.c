/*
 * topk_state.c
 *    The working form of topk values (TopkState, countmin.h): the one code
 *    path that adds elements and merges values, shared by the aggregates
 *    (topk_agg, topk_union_agg, their combine) and the functions topk_add
 *    and topk_merge, so that all of them give the same values.
 *
 * A state starts in exact mode (src/core/topk.h): no counters, every
 * distinct element held with its exact count in a heap whose arrays start at
 * TK_FIRST_CAP entries and double up to topk_exact_cap(w, d, k) (max(k,
 * w*d/8) elements), the items' stored bytes within tk_exact_budget (those of
 * the counters the sketch would take).  The first distinct element beyond
 * either converts the state to the sketch
 * (topk_exact_to_sketch).  A per-group aggregate over many small groups so
 * allocates a few hundred bytes per group, not w*d counters, and its small
 * groups report exact counts.
 *
 * All memory is in the state's context (the aggregate context, or the
 * caller's for topk_add / topk_merge); allocation failures are errors.
 */
#include "postgres.h"

#include "common/int.h"

#include "bloomfilter.h"
#include "countmin.h"

/* the exact mode's first capacity */
#define TK_FIRST_CAP	4

/*
 * The heap's allocations (its arrays as they double, the items' copies), in
 * the state's context, each within bloomsample.max_value_memory (54000 naming
 * the bytes, as the sketch's counters are).
 */
static void *
state_alloc(void *arg, size_t size)
{
	bf_value_memory_check(size, "a topk aggregate state");
	return MemoryContextAlloc((MemoryContext) arg, size);
}

static void
state_free(void *arg, void *ptr)
{
	pfree(ptr);
}

/* tk_state_new: an empty state (exact mode) of valid parameters, in ctx */
TopkState *
tk_state_new(MemoryContext ctx, const CmsParams *p, uint32 k)
{
	TopkState  *s = MemoryContextAlloc(ctx, sizeof(TopkState));
	TopkAlloc	alloc = {state_alloc, state_free, ctx};
	uint32		first;

	s->p = *p;
	s->k = k;
	s->cap = topk_exact_cap(p, k);
	s->exact = true;
	s->bytes = 0;
	s->ctx = ctx;
	s->cms.p = *p;
	s->cms.total = 0;
	s->cms.counters = NULL;
	first = Min(s->cap, TK_FIRST_CAP);
	topk_init(&s->heap, first, MemoryContextAlloc(ctx, first * sizeof(TopkItem)),
			  MemoryContextAlloc(ctx, topk_nslots(first) * sizeof(int32)), alloc);
	return s;
}

/* the exact state s becomes a sketch state */
static void
to_sketch(TopkState *s)
{
	MemoryContext old = MemoryContextSwitchTo(s->ctx);

	Assert(s->exact);
	s->cms.counters = bf_palloc_value(cms_cells(&s->p) * sizeof(int64), true,
									  "a topk aggregate state");
	MemoryContextSwitchTo(old);
	if (!topk_exact_to_sketch(&s->heap, &s->cms, s->k))
		elog(ERROR, "topk: out of memory converting to the sketch");
	s->exact = false;
}

/* room for one more element in the exact state's heap (doubling) */
static void
make_room(TopkState *s)
{
	if (s->heap.n == s->heap.k &&
		!topk_grow(&s->heap, (uint32) Min((uint64) s->cap, 2 * (uint64) s->heap.k)))
		elog(ERROR, "topk: out of memory growing the exact counts");
}

/* one more exact item of len text bytes stays within the byte budget */
static bool
exact_fits(const TopkState *s, uint32 len)
{
	return s->bytes + TK_ITEM_BYTES(TK_FLAG_BOUNDS, len) <= tk_exact_budget(&s->p, s->k);
}

/* s's total += count, an error (22003) beyond bigint */
static void
add_total(TopkState *s, int64 count, const char *what)
{
	if (pg_add_s64_overflow(s->cms.total, count, &s->cms.total))
		countmin_report(CMS_OVERFLOW, what);
}

/*
 * tk_state_from_value: a state equal to the value t (its sketch or exact
 * counts, its items with their bounds), in ctx
 */
TopkState *
tk_state_from_value(MemoryContext ctx, TopkValue *t)
{
	CmsSketch	cms = tk_sketch(t);
	TopkItem   *items = tk_items(t);
	TopkState  *s = tk_state_new(ctx, &cms.p, t->k);

	s->cms.total = cms.total;
	if (cms.counters != NULL)
	{
		s->cms.counters = bf_copy_value(ctx, cms.counters, cms_cells(&cms.p) * sizeof(int64),
										"a topk aggregate state");
		s->exact = false;
	}
	if (!topk_grow(&s->heap, s->exact ? Max(t->nitems, s->heap.k) : t->k))
		elog(ERROR, "topk: out of memory");
	for (uint32 i = 0; i < t->nitems; i++)
	{
		if (s->exact)
		{
			topk_exact_insert(&s->heap, items[i].key, items[i].est, items[i].text, items[i].len);
			s->bytes += TK_ITEM_BYTES(TK_FLAG_BOUNDS, items[i].len);
		}
		else
			topk_insert(&s->heap, items[i].key, items[i].est, items[i].lower, items[i].text,
						items[i].len);
	}
	pfree(items);
	return s;
}

/*
 * tk_state_add: count (>= 0) more occurrences of the element of this key;
 * to_text(arg) makes its text form only when it enters the heap.  Exact
 * mode counts it (converting to the sketch when a new element finds the
 * heap at its cap); the sketch adds it, re-estimates it and offers it to the
 * candidates.  A count of 0 changes nothing.
 */
void
tk_state_add(TopkState *s, BsKey key, int64 count, TkTextFn to_text, const void *arg,
			 const char *what)
{
	TopkOffer	o;
	int64		est;

	if (count <= 0)
		return;
	if (s->exact)
	{
		int64		total;

		if (pg_add_s64_overflow(s->cms.total, count, &total))
			countmin_report(CMS_OVERFLOW, what);
		o = topk_exact_offer(&s->heap, key, count, s->cap);
		if (o == TOPK_UPDATED)
		{
			s->cms.total = total;
			return;
		}
		if (o == TOPK_ADMIT)
		{
			uint32		len;
			char	   *text = to_text(arg, &len);

			if (exact_fits(s, len))
			{
				make_room(s);
				topk_exact_insert(&s->heap, key, count, text, len);
				s->bytes += TK_ITEM_BYTES(TK_FLAG_BOUNDS, len);
				s->cms.total = total;
				pfree(text);
				return;
			}
			pfree(text);
		}
		to_sketch(s);
	}
	countmin_report(cms_add(&s->cms, key, count), what);
	est = cms_estimate(&s->cms, key);
	if (topk_offer(&s->heap, key, est, count) == TOPK_ADMIT)
	{
		uint32		len;
		char	   *text = to_text(arg, &len);

		topk_insert(&s->heap, key, est, count, text, len);
		pfree(text);
	}
}

/*
 * tk_state_merge: merge the value t (equal k, w, d, seed: else 22023) into
 * s.  Both exact: the counts add, converting when the union outgrows the
 * cap.  Otherwise the exact side is converted (or, for t, its counts added
 * to s's sketch), the sketches summed, and the candidates merged
 * (topk_merge: re-estimated, lower bounds of common items added, the k
 * largest kept).
 */
void
tk_state_merge(TopkState *s, TopkValue *t, const char *what)
{
	CmsSketch	other = tk_sketch(t);
	TopkItem   *items;
	uint32		start = 0;

	if (!cms_params_equal(&s->p, &other.p) || s->k != t->k)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: topk values are incompatible", what),
				 errdetail("Left is %s, right is %s.", tk_params_string(&s->p, s->k),
						   tk_params_string(&other.p, t->k)),
				 errhint("Top-k values merge only when k, w, d and seed are all equal.")));
	items = tk_items(t);
	if (s->exact && other.counters == NULL)
	{
		for (; start < t->nitems; start++)
		{
			int64		c = items[start].est;
			TopkOffer	o;

			add_total(s, c, what);
			o = topk_exact_offer(&s->heap, items[start].key, c, s->cap);
			if (o == TOPK_REJECTED || (o == TOPK_ADMIT && !exact_fits(s, items[start].len)))
			{
				s->cms.total -= c;
				break;
			}
			if (o == TOPK_ADMIT)
			{
				make_room(s);
				topk_exact_insert(&s->heap, items[start].key, c, items[start].text, items[start].len);
				s->bytes += TK_ITEM_BYTES(TK_FLAG_BOUNDS, items[start].len);
			}
		}
		if (start == t->nitems)
		{
			pfree(items);
			return;
		}
	}
	if (s->exact)
		to_sketch(s);
	if (other.counters == NULL)
	{
		for (uint32 i = start; i < t->nitems; i++)
			countmin_report(cms_add(&s->cms, items[i].key, items[i].est), what);
	}
	else
		countmin_report(cms_merge(&s->cms, &other), what);
	if (!topk_merge(&s->heap, &s->cms, items + start, t->nitems - start))
		elog(ERROR, "topk: out of memory merging candidates");
	pfree(items);
}

/* tk_state_value: the state as a topk value (items in the stored order) */
TopkValue *
tk_state_value(TopkState *s)
{
	TopkItem   *sorted = palloc(Max(s->heap.n, 1) * sizeof(TopkItem));
	TopkValue  *t;

	topk_sorted(&s->heap, sorted);
	t = tk_build(&s->cms, s->k, TK_FLAG_BOUNDS | (s->exact ? TK_FLAG_EXACT : 0), sorted, s->heap.n);
	pfree(sorted);
	return t;
}
