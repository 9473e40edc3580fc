/*
 * topk_ops.c
 *    SQL functions of the topk type: topk_items and topk_heavy_hitters (the
 *    candidates with their bounds), topk_threshold, topk_total,
 *    topk_is_exact, the incremental topk_empty, topk_add and topk_merge, and
 *    equality.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/uuid.h"

#include "bloomfilter.h"
#include "bs_elem.h"
#include "countmin.h"

PG_FUNCTION_INFO_V1(topk_value_items);
PG_FUNCTION_INFO_V1(topk_value_heavy_hitters);
PG_FUNCTION_INFO_V1(topk_value_threshold);
PG_FUNCTION_INFO_V1(topk_value_total);
PG_FUNCTION_INFO_V1(topk_value_is_exact);
PG_FUNCTION_INFO_V1(topk_value_empty);
PG_FUNCTION_INFO_V1(topk_value_add_int8);
PG_FUNCTION_INFO_V1(topk_value_add_text);
PG_FUNCTION_INFO_V1(topk_value_add_bytea);
PG_FUNCTION_INFO_V1(topk_value_add_uuid);
PG_FUNCTION_INFO_V1(topk_value_merge);
PG_FUNCTION_INFO_V1(topk_value_eq);
PG_FUNCTION_INFO_V1(topk_value_ne);

static int
item_cmp(const void *a, const void *b)
{
	return topk_item_cmp((const TopkItem *) a, (const TopkItem *) b);
}

/* which candidates an SRF returns */
typedef enum ItemFilter
{
	ITEMS_ALL,					/* topk_items: every candidate, with its bounds */
	ITEMS_LOWER_ABOVE,			/* no false positives: lower bound > threshold */
	ITEMS_UPPER_ABOVE			/* no false negatives: upper bound > threshold */
} ItemFilter;

/*
 * The candidates of t, largest estimate first (ties by item text), at most
 * k of them (a value in exact mode holds every element: its k largest),
 * each as (item, estimate, lower_bound, upper_bound[, guaranteed]): the
 * estimate is the sketch's current estimate (exact mode: the count), an
 * upper bound of the count; the lower bound is what the item received while
 * a candidate (exact mode: the count; 0 for a value stored before bounds);
 * guaranteed is lower_bound > topk_threshold(t).
 */
static Datum
emit_items(FunctionCallInfo fcinfo, ItemFilter filter)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TopkValue  *t = tk_detoast(PG_GETARG_DATUM(0));
	CmsSketch	cms = tk_sketch(t);
	TopkItem   *items = tk_items(t);
	bool		exact = cms.counters == NULL;
	int64		threshold = tk_threshold(&cms.p, t->k, exact, t->total);
	uint32		n;

	InitMaterializedSRF(fcinfo, 0);
	for (uint32 i = 0; i < t->nitems && !exact; i++)
		items[i].est = cms_estimate(&cms, items[i].key);
	qsort(items, t->nitems, sizeof(TopkItem), item_cmp);
	n = Min(t->nitems, t->k);
	for (uint32 i = 0; i < n; i++)
	{
		Datum		values[5];
		bool		nulls[5] = {false, false, false, false, false};

		if ((filter == ITEMS_LOWER_ABOVE && !(items[i].lower > threshold)) ||
			(filter == ITEMS_UPPER_ABOVE && !(items[i].est > threshold)))
			continue;
		values[0] = PointerGetDatum(cstring_to_text_with_len(items[i].text, (int) items[i].len));
		values[1] = Int64GetDatum(items[i].est);
		values[2] = Int64GetDatum(items[i].lower);
		values[3] = Int64GetDatum(items[i].est);
		values[4] = BoolGetDatum(items[i].lower > threshold);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * topk_items(t) -> TABLE(item text, estimate bigint, lower_bound bigint,
 * upper_bound bigint, guaranteed boolean): every candidate (emit_items)
 */
Datum
topk_value_items(PG_FUNCTION_ARGS)
{
	return emit_items(fcinfo, ITEMS_ALL);
}

/*
 * topk_heavy_hitters(t, no_false_negatives) -> TABLE(item, estimate,
 * lower_bound, upper_bound): the candidates whose lower bound exceeds
 * topk_threshold(t) (every one has a count above it: no false positives),
 * or with no_false_negatives those whose upper bound does (every element
 * with a count above it is among them, with the sketch's probability)
 */
Datum
topk_value_heavy_hitters(PG_FUNCTION_ARGS)
{
	return emit_items(fcinfo, PG_GETARG_BOOL(1) ? ITEMS_UPPER_ABOVE : ITEMS_LOWER_ABOVE);
}

/*
 * The header of argument 0 alone (the first bytes of a possibly TOASTed
 * value: a per-group query asking each group's threshold reads 40 bytes,
 * not the sketch), its fields checked as tk_detoast checks them.
 */
static TopkValue *
header_only(FunctionCallInfo fcinfo)
{
	TopkValue  *t = (TopkValue *) PG_DETOAST_DATUM_SLICE(PG_GETARG_DATUM(0), 0,
														 offsetof(TopkValue, counters));

	if (VARSIZE_ANY_EXHDR(t) < offsetof(TopkValue, counters) - VARHDRSZ)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("topk value is too short")));
	if (t->version != BS_SCHEME_VERSION || cms_check_params(t->w, t->d) != CMS_OK ||
		t->k < TOPK_MIN_K || t->k > TOPK_MAX_K || t->total < 0)
		return tk_detoast(PG_GETARG_DATUM(0));	/* its error */
	return t;
}

/* topk_threshold(t): the guarantee's threshold (tk_threshold) */
Datum
topk_value_threshold(PG_FUNCTION_ARGS)
{
	TopkValue  *t = header_only(fcinfo);
	CmsParams	p = {t->w, t->d, t->seed};

	PG_RETURN_INT64(tk_threshold(&p, t->k, (t->flags & TK_FLAG_EXACT) != 0, t->total));
}

/* topk_total(t): N, the number of elements (with their counts) added */
Datum
topk_value_total(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(header_only(fcinfo)->total);
}

/* topk_is_exact(t): whether t still counts every element exactly */
Datum
topk_value_is_exact(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL((header_only(fcinfo)->flags & TK_FLAG_EXACT) != 0);
}

/*
 * topk_empty(k [, w, d [, seed]]): the empty value topk_agg starts from
 * (the same defaults: w = max(2048, 16k), d = 5, seed 0)
 */
Datum
topk_value_empty(PG_FUNCTION_ARGS)
{
	int32		k = PG_GETARG_INT32(0);
	int64		w;
	CmsParams	p;

	tk_check_k(k, "topk_empty");
	w = PG_NARGS() > 1 ? PG_GETARG_INT32(1) : tk_default_w(k);
	p = countmin_make_params(w, PG_NARGS() > 2 ? PG_GETARG_INT32(2) : 5,
					   PG_NARGS() > 3 ? PG_GETARG_INT32(3) : 0);
	PG_RETURN_POINTER(tk_state_value(tk_state_new(CurrentMemoryContext, &p, (uint32) k)));
}

/*
 * The element types a topk's candidates show: a topk records none, but each
 * candidate keeps its key and its text form, so a candidate whose text is an
 * integer (a uuid) and whose key is that integer's (uuid's) key was added as
 * one; every other candidate as a string.  0 for a value without candidates.
 */
static unsigned
items_types(const TopkState *s)
{
	BsHasher	h;
	unsigned	types = 0;

	cms_hasher_init(&h, s->p.seed);
	for (uint32 i = 0; i < s->heap.n; i++)
	{
		const TopkItem *it = &s->heap.items[i];
		BsTextReadings r;
		BsKey		key;

		bs_text_readings(it->text, it->len, &r);
		if (r.mask & BS_ELEM_INT)
			key = bs_key_int64(&h, r.i);
		else if (r.mask & BS_ELEM_UUID)
			key = bs_key_bytes(&h, r.uuid, UUID_LEN);
		else
		{
			types |= BS_ELEM_BYTES;
			continue;
		}
		if (key.h1 == it->key.h1 && key.h2 == it->key.h2)
			types |= r.mask & (BS_ELEM_INT | BS_ELEM_UUID);
		else
			types |= BS_ELEM_BYTES;
	}
	return types;
}

/*
 * topk_add's text element (an untyped literal or parameter arrives as text):
 * read by the element types s's candidates show (items_types), as a
 * bloomfilter reads it by the types it records: in a topk of integers
 * '4242' is the integer, in one of strings (or one without candidates yet,
 * as a bloom_empty filter) the string; where the candidates are of both
 * kinds, a text that reads two ways is error 42P18 naming the cast (its
 * count must go to one key)
 */
static void
add_text(FunctionCallInfo fcinfo, TopkState *s, int64 count)
{
	BsElem		t = bs_elem_varlena(PG_GETARG_DATUM(1));
	BsTextReadings r;
	unsigned	types,
				used;

	bs_text_readings((const char *) t.data, t.len, &r);
	if (r.mask == BS_ELEM_BYTES)
	{
		tk_add_datum(fcinfo, s, PG_GETARG_DATUM(1), TEXTOID, count, "topk_add");
		return;
	}
	types = items_types(s);
	used = bs_text_used(r.mask, types ? types : BS_ELEM_BYTES);
	if (used == BS_ELEM_INT)
		tk_add_datum(fcinfo, s, Int64GetDatum(r.i), INT8OID, count, "topk_add");
	else if (used == BS_ELEM_UUID)
	{
		pg_uuid_t  *u = palloc(sizeof(pg_uuid_t));

		memcpy(u->data, r.uuid, UUID_LEN);
		tk_add_datum(fcinfo, s, UUIDPGetDatum(u), UUIDOID, count, "topk_add");
	}
	else if (used == BS_ELEM_BYTES)
		tk_add_datum(fcinfo, s, PG_GETARG_DATUM(1), TEXTOID, count, "topk_add");
	else
		bs_elem_text_ambiguous("topk_add", &t, used);
}

/*
 * topk_add(t, elem, count): t with count (>= 0, else 22023) more occurrences
 * of elem, by the aggregate's stream step (topk_agg over the same elements
 * in the same order gives the same value); a NULL elem or count returns t
 * unchanged (the aggregates skip NULL rows); NULL t is NULL.
 */
static Datum
add_elem(FunctionCallInfo fcinfo, Oid typid)
{
	TopkState  *s;
	int64		count;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	count = PG_GETARG_INT64(2);
	if (count < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("topk_add: count " INT64_FORMAT " is negative", count),
				 errhint("Counts are added; a topk value cannot take counts back.")));
	s = tk_state_from_value(CurrentMemoryContext, tk_detoast(PG_GETARG_DATUM(0)));
	if (typid == TEXTOID)
		add_text(fcinfo, s, count);
	else
		tk_add_datum(fcinfo, s, PG_GETARG_DATUM(1), typid, count, "topk_add");
	PG_RETURN_POINTER(tk_state_value(s));
}

Datum
topk_value_add_int8(PG_FUNCTION_ARGS)
{
	return add_elem(fcinfo, INT8OID);
}

Datum
topk_value_add_text(PG_FUNCTION_ARGS)
{
	return add_elem(fcinfo, TEXTOID);
}

Datum
topk_value_add_bytea(PG_FUNCTION_ARGS)
{
	return add_elem(fcinfo, BYTEAOID);
}

Datum
topk_value_add_uuid(PG_FUNCTION_ARGS)
{
	return add_elem(fcinfo, UUIDOID);
}

/*
 * topk_merge(a, b): the merge topk_union_agg makes of a then b (equal k, w,
 * d and seed, else 22023)
 */
Datum
topk_value_merge(PG_FUNCTION_ARGS)
{
	TopkState  *s = tk_state_from_value(CurrentMemoryContext, tk_detoast(PG_GETARG_DATUM(0)));

	tk_state_merge(s, tk_detoast(PG_GETARG_DATUM(1)), "topk_merge");
	PG_RETURN_POINTER(tk_state_value(s));
}

/*
 * Same parameters, mode, counters and candidates (with their estimates,
 * lower bounds and texts): byte equality for values of the same form, and a
 * value stored before bounds (flags 0) equals its re-read form with lower
 * bounds 0.
 */
static bool
values_equal(FunctionCallInfo fcinfo)
{
	TopkValue  *a = tk_detoast(PG_GETARG_DATUM(0));
	TopkValue  *b = tk_detoast(PG_GETARG_DATUM(1));
	CmsSketch	sa,
				sb;
	TopkItem   *ia,
			   *ib;

	if (a->flags == b->flags)
		return VARSIZE(a) == VARSIZE(b) && bf_equal_interruptible(a, b, VARSIZE(a));
	sa = tk_sketch(a);
	sb = tk_sketch(b);
	if (a->k != b->k || a->nitems != b->nitems || sa.counters == NULL || sb.counters == NULL ||
		!cms_equal(&sa, &sb))
		return false;
	ia = tk_items(a);
	ib = tk_items(b);
	for (uint32 i = 0; i < a->nitems; i++)
		if (ia[i].key.h1 != ib[i].key.h1 || ia[i].key.h2 != ib[i].key.h2 ||
			ia[i].est != ib[i].est || ia[i].lower != ib[i].lower || ia[i].len != ib[i].len ||
			memcmp(ia[i].text, ib[i].text, ia[i].len) != 0)
			return false;
	return true;
}

Datum
topk_value_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(values_equal(fcinfo));
}

Datum
topk_value_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!values_equal(fcinfo));
}
