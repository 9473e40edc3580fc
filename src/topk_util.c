/*
 * topk_util.c
 *    Views, validation and construction of topk values (countmin.h has the
 *    layout), shared by the topk type's I/O, aggregates and functions.
 */
#include "postgres.h"

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

/* header and counters of a topk value of these parameters */
static Size
fixed_size(uint32 w, uint32 d)
{
	return offsetof(TopkValue, counters) + (Size) w * d * sizeof(int64);
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
	if (t->flags != CM_FLAGS_NONE || cms_check_params(t->w, t->d) != CMS_OK ||
		t->k < TOPK_MIN_K || t->k > TOPK_MAX_K || t->nitems > t->k ||
		size < fixed_size(t->w, t->d) || t->total < 0)
		corrupted(psprintf("Header says k=%u, w=%u, d=%u, %u items for %zu bytes.",
						   t->k, t->w, t->d, t->nitems, size));
	pos = fixed_size(t->w, t->d);
	for (uint32 i = 0; i < t->nitems; i++)
	{
		uint32		len;

		if (size - pos < TK_ITEM_HEADER)
			corrupted("An item is truncated.");
		memcpy(&len, (char *) t + pos + 24, sizeof(len));
		if (len > TOPK_MAX_ITEM_BYTES || size - pos < TK_ITEM_BYTES(len))
			corrupted("An item is truncated.");
		pos += TK_ITEM_BYTES(len);
	}
	if (pos != size)
		corrupted("Bytes follow the last item.");
	return t;
}

/* tk_sketch: the core's view of a topk value's sketch (counters in place) */
CmsSketch
tk_sketch(TopkValue *t)
{
	return cm_sketch_of(t->w, t->d, t->seed, t->total, t->counters);
}

/* tk_items: the items of a tk_detoast'ed value (texts point into it) */
TopkItem *
tk_items(TopkValue *t)
{
	TopkItem   *items = palloc(Max(t->nitems, 1) * sizeof(TopkItem));
	char	   *p = (char *) t + fixed_size(t->w, t->d);

	for (uint32 i = 0; i < t->nitems; i++)
	{
		memcpy(&items[i].key.h1, p, 8);
		memcpy(&items[i].key.h2, p + 8, 8);
		memcpy(&items[i].est, p + 16, 8);
		memcpy(&items[i].len, p + 24, 4);
		items[i].text = p + TK_ITEM_HEADER;
		p += TK_ITEM_BYTES(items[i].len);
	}
	return items;
}

/*
 * tk_build: a topk value of the sketch and the n items, which must be in
 * topk_item_cmp order (the stored order).
 */
TopkValue *
tk_build(const CmsSketch *cms, uint32 k, const TopkItem *sorted, uint32 n)
{
	Size		size = fixed_size(cms->p.w, cms->p.d);
	TopkValue  *t;
	char	   *p;

	for (uint32 i = 0; i < n; i++)
		size += TK_ITEM_BYTES(sorted[i].len);
	t = bf_palloc_value(size, false, "a topk value");
	memset(t, 0, offsetof(TopkValue, counters));
	SET_VARSIZE(t, size);
	t->version = BS_SCHEME_VERSION;
	t->flags = CM_FLAGS_NONE;
	t->seed = cms->p.seed;
	t->w = cms->p.w;
	t->d = cms->p.d;
	t->k = k;
	t->nitems = n;
	t->total = cms->total;
	bf_copy_interruptible(t->counters, cms->counters, cms_cells(&cms->p) * sizeof(int64));
	p = (char *) t + fixed_size(cms->p.w, cms->p.d);
	memset(p, 0, size - fixed_size(cms->p.w, cms->p.d));	/* reserved fields and padding */
	for (uint32 i = 0; i < n; i++)
	{
		memcpy(p, &sorted[i].key.h1, 8);
		memcpy(p + 8, &sorted[i].key.h2, 8);
		memcpy(p + 16, &sorted[i].est, 8);
		memcpy(p + 24, &sorted[i].len, 4);
		memcpy(p + TK_ITEM_HEADER, sorted[i].text, sorted[i].len);
		p += TK_ITEM_BYTES(sorted[i].len);
	}
	return t;
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
 * the aggregates could have built: at most k, in topk_item_cmp order,
 * distinct keys, each text at most TOPK_MAX_ITEM_BYTES of valid, NUL-free
 * text in the database encoding, each estimate between 0 and the sketch's
 * estimate of its key.  Errors with errcode_bad (22P02 or 22P03).
 */
void
tk_validate_items(const CmsSketch *cms, uint32 k, TopkItem *items, uint32 n, int errcode_bad)
{
	TopkItem   *by_key;

	if (n > k)
		invalid(errcode_bad, psprintf("%u items for k = %u.", n, k));
	for (uint32 i = 0; i < n; i++)
	{
		if (items[i].len > TOPK_MAX_ITEM_BYTES)
			invalid(errcode_bad, psprintf("An item of %u bytes is over the %d-byte limit.",
										  items[i].len, TOPK_MAX_ITEM_BYTES));
		if (memchr(items[i].text, '\0', items[i].len) != NULL ||
			!pg_verifymbstr(items[i].text, (int) items[i].len, true))
			invalid(errcode_bad, "An item is not valid text in the database encoding.");
		if (items[i].est < 0 || items[i].est > cms_estimate(cms, items[i].key))
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
