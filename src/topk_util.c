/*
 * topk_util.c
 *    Views, validation and construction of topk values (countmin.h has the
 *    layout), shared by the topk type's I/O, aggregates and functions.
 */
#include "postgres.h"

#include <math.h>

#include "mb/pg_wchar.h"

#include "bloomfilter.h"
#include "countmin.h"

static void
corrupted(const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("topk value is corrupted"),
			 errdetail("%s", detail)));
}

/* header and counters of a topk value of these parameters (exact: no counters) */
static Size
fixed_size(uint32 w, uint32 d, uint8 flags)
{
	if (flags & TK_FLAG_EXACT)
		return offsetof(TopkValue, counters);
	return offsetof(TopkValue, counters) + (Size) w * d * sizeof(int64);
}

/* most items a value may hold: every element while exact, else k */
static uint32
max_items(const TopkValue *t)
{
	CmsParams	p = {t->w, t->d, t->seed};

	return (t->flags & TK_FLAG_EXACT) ? topk_exact_cap(&p, t->k) : t->k;
}

/*
 * tk_detoast: the datum as an aligned 4-byte-header TopkValue whose header
 * and item sizes are consistent (values enter only through the validating
 * inputs: a failure means corruption or a newer format).
 */
TopkValue *
tk_detoast(Datum d)
{
	TopkValue  *t = (TopkValue *) PG_DETOAST_DATUM(d);
	Size		size,
				pos;

	if (((uintptr_t) t) % 8 != 0)
	{
		TopkValue  *copy = bf_palloc_value(VARSIZE(t), false, "aligning a topk value");

		memcpy(copy, t, VARSIZE(t));
		t = copy;
	}
	size = VARSIZE(t);
	if (size < offsetof(TopkValue, counters))
		corrupted("The value is too short.");
	if (t->version != BS_SCHEME_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("topk hashing scheme version %d is not supported", t->version)));
	if ((t->flags != COUNTMIN_FLAGS_NONE && t->flags != TK_FLAG_BOUNDS &&
		 t->flags != (TK_FLAG_BOUNDS | TK_FLAG_EXACT)) ||
		cms_check_params(t->w, t->d) != CMS_OK ||
		t->k < TOPK_MIN_K || t->k > TOPK_MAX_K || t->nitems > max_items(t) ||
		size < fixed_size(t->w, t->d, t->flags) || t->total < 0)
		corrupted(psprintf("Header says k=%u, w=%u, d=%u, flags %u, %u items for %zu bytes.",
						   t->k, t->w, t->d, t->flags, t->nitems, size));
	pos = fixed_size(t->w, t->d, t->flags);
	for (uint32 i = 0; i < t->nitems; i++)
	{
		uint32		len;

		if (size - pos < TK_ITEM_HEADER_OF(t->flags))
			corrupted("An item is truncated.");
		memcpy(&len, (char *) t + pos + TK_ITEM_HEADER_OF(t->flags) - 8, sizeof(len));
		if (len > TOPK_MAX_ITEM_BYTES || size - pos < TK_ITEM_BYTES(t->flags, len))
			corrupted("An item is truncated.");
		pos += TK_ITEM_BYTES(t->flags, len);
	}
	if (pos != size)
		corrupted("Bytes follow the last item.");
	return t;
}

/*
 * tk_sketch: the core's view of a topk value's sketch (counters in place;
 * NULL for a value in exact mode, whose total is still N)
 */
CmsSketch
tk_sketch(TopkValue *t)
{
	return countmin_sketch_of(t->w, t->d, t->seed, t->total,
						(t->flags & TK_FLAG_EXACT) ? NULL : t->counters);
}

/*
 * tk_items: the items of a tk_detoast'ed value (texts point into it); the
 * lower bounds of a value stored without them (flags 0) are 0
 */
TopkItem *
tk_items(TopkValue *t)
{
	TopkItem   *items = palloc(Max(t->nitems, 1) * sizeof(TopkItem));
	char	   *p = (char *) t + fixed_size(t->w, t->d, t->flags);
	bool		bounds = (t->flags & TK_FLAG_BOUNDS) != 0;

	for (uint32 i = 0; i < t->nitems; i++)
	{
		memcpy(&items[i].key.h1, p, 8);
		memcpy(&items[i].key.h2, p + 8, 8);
		memcpy(&items[i].est, p + 16, 8);
		items[i].lower = 0;
		if (bounds)
			memcpy(&items[i].lower, p + 24, 8);
		memcpy(&items[i].len, p + TK_ITEM_HEADER_OF(t->flags) - 8, 4);
		items[i].text = p + TK_ITEM_HEADER_OF(t->flags);
		p += TK_ITEM_BYTES(t->flags, items[i].len);
	}
	return items;
}

/*
 * tk_build: a topk value of the sketch and the n items, which must be in
 * topk_item_cmp order (the stored order), in the layout of flags:
 * TK_FLAG_BOUNDS (what every operation builds), with TK_FLAG_EXACT no
 * counters (cms->counters is not read, only cms->total), or COUNTMIN_FLAGS_NONE
 * (the layout before bounds, for a value read in that form: its items' lower
 * bounds, all 0, are not stored).
 */
TopkValue *
tk_build(const CmsSketch *cms, uint32 k, uint8 flags, const TopkItem *sorted, uint32 n)
{
	bool		exact = (flags & TK_FLAG_EXACT) != 0;
	Size		size = fixed_size(cms->p.w, cms->p.d, flags);
	TopkValue  *t;
	char	   *p;

	for (uint32 i = 0; i < n; i++)
		size += TK_ITEM_BYTES(flags, sorted[i].len);
	t = bf_palloc_value(size, false, "a topk value");
	memset(t, 0, offsetof(TopkValue, counters));
	SET_VARSIZE(t, size);
	t->version = BS_SCHEME_VERSION;
	t->flags = flags;
	t->seed = cms->p.seed;
	t->w = cms->p.w;
	t->d = cms->p.d;
	t->k = k;
	t->nitems = n;
	t->total = cms->total;
	if (!exact)
		bf_copy_interruptible(t->counters, cms->counters, cms_cells(&cms->p) * sizeof(int64));
	p = (char *) t + fixed_size(cms->p.w, cms->p.d, flags);
	memset(p, 0, size - fixed_size(cms->p.w, cms->p.d, flags));	/* reserved fields and padding */
	for (uint32 i = 0; i < n; i++)
	{
		memcpy(p, &sorted[i].key.h1, 8);
		memcpy(p + 8, &sorted[i].key.h2, 8);
		memcpy(p + 16, &sorted[i].est, 8);
		if (flags & TK_FLAG_BOUNDS)
			memcpy(p + 24, &sorted[i].lower, 8);
		memcpy(p + TK_ITEM_HEADER_OF(flags) - 8, &sorted[i].len, 4);
		memcpy(p + TK_ITEM_HEADER_OF(flags), sorted[i].text, sorted[i].len);
		p += TK_ITEM_BYTES(flags, sorted[i].len);
	}
	return t;
}

/*
 * tk_exact_budget: the most bytes the items of a value in exact mode take
 * (stored with their bounds): those of its counters, w*d*8, or of k items of
 * up to 24 text bytes when that is more.  The exact mode so never stores
 * more than the sketch would, whatever the elements' lengths.
 */
Size
tk_exact_budget(const CmsParams *p, uint32 k)
{
	return Max(cms_cells(p) * sizeof(int64), (Size) k * TK_ITEM_BYTES(TK_FLAG_BOUNDS, 24));
}

/*
 * tk_threshold: the guarantee's threshold of a value: every element with a
 * count above it is among the candidates (docs/hashing.md, "The heavy-hitter guarantee"):
 * floor((N + k*eps*N) / (k + 1)) with eps = e/w, or floor(N / (k + 1)) in
 * exact mode (eps = 0: the k largest exact counts are kept).
 */
int64
tk_threshold(const CmsParams *p, uint32 k, bool exact, int64 total)
{
	double		eps = exact ? 0.0 : 2.718281828459045 / p->w;

	return (int64) floor(((double) total + k * eps * (double) total) / (k + 1));
}

static int
key_cmp(const void *a, const void *b)
{
	const BsKey *x = &((const TopkItem *) a)->key;
	const BsKey *y = &((const TopkItem *) b)->key;

	if (x->h1 != y->h1)
		return x->h1 < y->h1 ? -1 : 1;
	if (x->h2 != y->h2)
		return x->h2 < y->h2 ? -1 : 1;
	return 0;
}

static void
invalid(int errcode_bad, const char *detail)
{
	ereport(ERROR,
			(errcode(errcode_bad),
			 errmsg("invalid topk value"),
			 errdetail("%s", detail)));
}

/*
 * tk_validate_items: the items read from a text or binary input are a value
 * the aggregates could have built: at most k (exact: topk_exact_cap), in
 * topk_item_cmp order, distinct keys, each text at most TOPK_MAX_ITEM_BYTES
 * of valid, NUL-free text in the database encoding, each lower bound between
 * 0 and its estimate, each estimate at most the sketch's estimate of its key
 * (exact: lower = estimate > 0, the estimates summing to cms->total, the
 * items' bytes within tk_exact_budget).
 * Errors with errcode_bad (22P02 or 22P03).
 */
void
tk_validate_items(const CmsSketch *cms, uint32 k, bool exact, TopkItem *items, uint32 n,
				  int errcode_bad)
{
	TopkItem   *by_key;
	uint32		most = exact ? topk_exact_cap(&cms->p, k) : k;
	int64		sum = 0;
	Size		bytes = 0;

	if (n > most)
		invalid(errcode_bad, psprintf("%u items for at most %u.", n, most));
	for (uint32 i = 0; i < n; i++)
	{
		if (exact)
			bytes += TK_ITEM_BYTES(TK_FLAG_BOUNDS, items[i].len);
		if (items[i].lower < 0 || items[i].lower > items[i].est)
			invalid(errcode_bad, psprintf("Item %u's lower bound " INT64_FORMAT " is not between 0 and its estimate " INT64_FORMAT ".",
										  i + 1, items[i].lower, items[i].est));
		if (exact)
		{
			if (items[i].lower != items[i].est || items[i].est == 0 ||
				__builtin_add_overflow(sum, items[i].est, &sum))
				invalid(errcode_bad, "An exact item's count and lower bound must be equal and positive, their sum within bigint.");
		}
	}
	if (bytes > tk_exact_budget(&cms->p, k))
		invalid(errcode_bad, psprintf("Exact items of %zu bytes exceed the %zu bytes of the sketch.",
									  bytes, tk_exact_budget(&cms->p, k)));
	if (exact && sum != cms->total)
		invalid(errcode_bad, psprintf("The exact counts sum to " INT64_FORMAT ", not to the total " INT64_FORMAT ".",
									  sum, cms->total));
	for (uint32 i = 0; i < n; i++)
	{
		if (items[i].len > TOPK_MAX_ITEM_BYTES)
			invalid(errcode_bad, psprintf("An item of %u bytes is over the %d-byte limit.",
										  items[i].len, TOPK_MAX_ITEM_BYTES));
		if (memchr(items[i].text, '\0', items[i].len) != NULL ||
			!pg_verifymbstr(items[i].text, (int) items[i].len, true))
			invalid(errcode_bad, "An item is not valid text in the database encoding.");
		if (!exact && (items[i].est < 0 || items[i].est > cms_estimate(cms, items[i].key)))
			invalid(errcode_bad, psprintf("Item %u's estimate " INT64_FORMAT " is not between 0 and the sketch's estimate " INT64_FORMAT ".",
										  i + 1, items[i].est, cms_estimate(cms, items[i].key)));
		if (i > 0 && topk_item_cmp(&items[i - 1], &items[i]) >= 0)
			invalid(errcode_bad, "Items must come largest estimate first, then by text, then by key.");
	}
	by_key = palloc(Max(n, 1) * sizeof(TopkItem));
	memcpy(by_key, items, n * sizeof(TopkItem));
	qsort(by_key, n, sizeof(TopkItem), key_cmp);
	for (uint32 i = 1; i < n; i++)
		if (key_cmp(&by_key[i - 1], &by_key[i]) == 0)
			invalid(errcode_bad, "Two items have the same key.");
	pfree(by_key);
}

/* tk_params_string: "(k=.., w=.., d=.., seed=..)" for messages */
char *
tk_params_string(const CmsParams *p, uint32 k)
{
	return psprintf("(k=%u, w=%u, d=%u, seed=%d)", k, p->w, p->d, p->seed);
}
