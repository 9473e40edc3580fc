/*
 * topk_agg.c
 *    The aggregates topk_agg (elements -> heavy hitters) and topk_union_agg
 *    (topk values -> their merge).
 *
 * The state is a Count-Min sketch and the candidate heap (src/core/topk.h),
 * allocated once in the aggregate context.  A row costs one hash, d counter
 * increments, one estimate and a hash-index probe; only an element that
 * enters the heap has its text form built.  Merging (combine, and every row
 * of topk_union_agg) sums the sketches and re-estimates the union of both
 * candidate sets against the sum, keeping the k largest: README "Heavy
 * hitters" shows the guarantee survives any number of merges, so the
 * aggregates are parallel-safe.  serial/deserial go through the topk value's
 * own bytes.
 *
 * An element whose text form is over TOPK_MAX_ITEM_BYTES is refused (54000)
 * whether or not it would enter the heap, so a result never depends on the
 * order of the rows in that respect, and a value stays bounded by
 * k * TOPK_MAX_ITEM_BYTES plus its sketch.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/uuid.h"

#include "bloomfilter.h"
#include "bs_elem.h"
#include "countmin.h"

PG_FUNCTION_INFO_V1(topk_agg_trans_int8);
PG_FUNCTION_INFO_V1(topk_agg_trans_text);
PG_FUNCTION_INFO_V1(topk_agg_trans_bytea);
PG_FUNCTION_INFO_V1(topk_agg_trans_uuid);
PG_FUNCTION_INFO_V1(topk_union_trans);
PG_FUNCTION_INFO_V1(topk_agg_combine);
PG_FUNCTION_INFO_V1(topk_agg_serial);
PG_FUNCTION_INFO_V1(topk_agg_deserial);
PG_FUNCTION_INFO_V1(topk_agg_final);

/* defaults of topk_agg(elem, k): w = max(2048, 16k), d = 5 */
#define TOPK_DEFAULT_MIN_W	2048
#define TOPK_DEFAULT_W_PER_K	16
#define TOPK_DEFAULT_D		5

typedef struct TopkState
{
	BsHasher	hasher;
	CmsSketch	cms;			/* counters in the aggregate context */
	TopkHeap	heap;			/* items, index and texts there too */
} TopkState;

static void *
state_alloc(void *arg, size_t size)
{
	return MemoryContextAlloc((MemoryContext) arg, size);
}

static void
state_free(void *arg, void *ptr)
{
	pfree(ptr);
}

static TopkState *
arg_state(FunctionCallInfo fcinfo, int argno)
{
	return PG_ARGISNULL(argno) ? NULL : (TopkState *) PG_GETARG_POINTER(argno);
}

/* an empty state of valid parameters, in ctx */
static TopkState *
state_new(MemoryContext ctx, const CmsParams *p, uint32 k)
{
	TopkState  *s = MemoryContextAlloc(ctx, sizeof(TopkState));
	TopkAlloc	alloc = {state_alloc, state_free, ctx};

	cms_hasher_init(&s->hasher, p->seed);
	s->cms.p = *p;
	s->cms.total = 0;
	{
		MemoryContext old = MemoryContextSwitchTo(ctx);

		s->cms.counters = bf_palloc_value(cms_cells(p) * sizeof(int64), true, "a topk aggregate state");
		MemoryContextSwitchTo(old);
	}
	topk_init(&s->heap, k, MemoryContextAlloc(ctx, k * sizeof(TopkItem)),
			  MemoryContextAlloc(ctx, topk_nslots(k) * sizeof(int32)), alloc);
	return s;
}

/* the state as a topk value (items in the stored order) */
static TopkValue *
state_value(TopkState *s)
{
	TopkItem   *sorted = palloc(Max(s->heap.n, 1) * sizeof(TopkItem));

	topk_sorted(&s->heap, sorted);
	return tk_build(&s->cms, s->heap.k, sorted, s->heap.n);
}

/*
 * Merge the value t (its sketch and items) into s (NULL: a new empty state
 * of t's parameters first).
 */
static TopkState *
merge(FunctionCallInfo fcinfo, TopkState *s, TopkValue *t, const char *what)
{
	CmsSketch	other = tk_sketch(t);

	if (s == NULL)
		s = state_new(bf_agg_context(fcinfo, what), &other.p, t->k);
	else if (!cms_params_equal(&s->cms.p, &other.p) || s->heap.k != t->k)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: topk values are incompatible", what),
				 errdetail("Left is %s, right is %s.", tk_params_string(&s->cms.p, s->heap.k),
						   tk_params_string(&other.p, t->k)),
				 errhint("Top-k values merge only when k, w, d and seed are all equal.")));
	cm_report(cms_merge(&s->cms, &other), what);
	topk_merge(&s->heap, &s->cms, tk_items(t), t->nitems);
	return s;
}

/* the state for this row: topk_agg(elem, k [, w, d [, seed]]) */
static TopkState *
agg_state(FunctionCallInfo fcinfo)
{
	TopkState  *s = arg_state(fcinfo, 0);
	int32		k = bf_agg_int_arg(fcinfo, 2, "topk_agg", "k");
	int64		w = PG_NARGS() > 3 ? bf_agg_int_arg(fcinfo, 3, "topk_agg", "w") :
		Max(TOPK_DEFAULT_MIN_W, (int64) TOPK_DEFAULT_W_PER_K * k);
	int32		d = PG_NARGS() > 4 ? bf_agg_int_arg(fcinfo, 4, "topk_agg", "d") : TOPK_DEFAULT_D;
	int32		seed = PG_NARGS() > 5 ? bf_agg_int_arg(fcinfo, 5, "topk_agg", "seed") : 0;

	if (s == NULL)
	{
		CmsParams	p;

		if (k < TOPK_MIN_K || k > TOPK_MAX_K)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("topk_agg k = %d is out of range", k),
					 errdetail("k must be between %d and %d.", TOPK_MIN_K, TOPK_MAX_K)));
		p = cm_make_params(w, d, seed);
		s = state_new(bf_agg_context(fcinfo, "topk_agg"), &p, (uint32) k);
	}
	else if ((uint32) k != s->heap.k || (uint32) w != s->cms.p.w || (uint32) d != s->cms.p.d ||
			 seed != s->cms.p.seed)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("topk_agg parameters changed within a group"),
				 errdetail("The group started with %s and a row has (k=%d, w=" INT64_FORMAT ", d=%d, seed=%d).",
						   tk_params_string(&s->cms.p, s->heap.k), k, w, d, seed),
				 errhint("Pass constant k, w, d and seed to topk_agg.")));
	return s;
}

static void
too_long(Size len)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("topk_agg: an element's text form of %zu bytes is over the %d-byte limit",
					len, TOPK_MAX_ITEM_BYTES),
			 errhint("Aggregate a shorter form of the element, e.g. left(x, 100) or md5(x).")));
}

/*
 * The stream step for element e: count it, and when it enters the heap
 * store its text form (made by to_text only then).
 */
static Datum
agg_step(FunctionCallInfo fcinfo, TopkState *s, const BsElem *e,
		 char *(*to_text) (const BsElem *e, uint32 *len))
{
	BsKey		key = bs_elem_key(&s->hasher, e);
	int64		est;

	cm_report(cms_add(&s->cms, key, 1), "topk_agg");
	est = cms_estimate(&s->cms, key);
	if (topk_offer(&s->heap, key, est) == TOPK_ADMIT)
	{
		uint32		len;
		char	   *text = to_text(e, &len);

		topk_insert(&s->heap, key, est, text, len);
		pfree(text);
	}
	PG_RETURN_POINTER(s);
}

static char *
int8_text(const BsElem *e, uint32 *len)
{
	char	   *buf = palloc(MAXINT8LEN + 1);

	*len = (uint32) pg_lltoa(e->i, buf);
	return buf;
}

static char *
bytes_text(const BsElem *e, uint32 *len)
{
	char	   *buf = palloc(e->len + 1);

	memcpy(buf, e->data, e->len);
	*len = (uint32) e->len;
	return buf;
}

/* bytea: '\x' and lower-case hex, as bytea_output = hex prints it */
static char *
bytea_text(const BsElem *e, uint32 *len)
{
	static const char hex[] = "0123456789abcdef";
	char	   *buf = palloc(2 + 2 * e->len + 1);
	const uint8 *b = e->data;

	buf[0] = '\\';
	buf[1] = 'x';
	for (size_t i = 0; i < e->len; i++)
	{
		buf[2 + 2 * i] = hex[b[i] >> 4];
		buf[3 + 2 * i] = hex[b[i] & 15];
	}
	*len = (uint32) (2 + 2 * e->len);
	return buf;
}

static char *
uuid_text(const BsElem *e, uint32 *len)
{
	pg_uuid_t	u;
	char	   *s;

	memcpy(u.data, e->data, UUID_LEN);
	s = DatumGetCString(DirectFunctionCall1(uuid_out, UUIDPGetDatum(&u)));
	*len = (uint32) strlen(s);
	return s;
}

/*
 * The transition for an element of type typid (argument 1; a NULL row is
 * skipped): its key, and its text form's maker, checked against the length
 * limit first where the form can be long.
 */
static Datum
agg_trans(FunctionCallInfo fcinfo, Oid typid)
{
	TopkState  *s = agg_state(fcinfo);
	BsElem		e;

	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(s);
	switch (typid)
	{
		case INT8OID:
			e = bs_elem_int8(PG_GETARG_INT64(1));
			return agg_step(fcinfo, s, &e, int8_text);
		case TEXTOID:
			e = bs_elem_varlena(PG_GETARG_DATUM(1));
			if (e.len > TOPK_MAX_ITEM_BYTES)
				too_long(e.len);
			return agg_step(fcinfo, s, &e, bytes_text);
		case BYTEAOID:
			e = bs_elem_varlena(PG_GETARG_DATUM(1));
			if (2 + 2 * e.len > TOPK_MAX_ITEM_BYTES)
				too_long(2 + 2 * e.len);
			return agg_step(fcinfo, s, &e, bytea_text);
		default:
			Assert(typid == UUIDOID);
			e = bs_elem_uuid(PG_GETARG_DATUM(1));
			return agg_step(fcinfo, s, &e, uuid_text);
	}
}

Datum
topk_agg_trans_int8(PG_FUNCTION_ARGS)
{
	return agg_trans(fcinfo, INT8OID);
}

Datum
topk_agg_trans_text(PG_FUNCTION_ARGS)
{
	return agg_trans(fcinfo, TEXTOID);
}

Datum
topk_agg_trans_bytea(PG_FUNCTION_ARGS)
{
	return agg_trans(fcinfo, BYTEAOID);
}

Datum
topk_agg_trans_uuid(PG_FUNCTION_ARGS)
{
	return agg_trans(fcinfo, UUIDOID);
}

/* topk_union_agg: merge the row's value (a NULL row is skipped) */
Datum
topk_union_trans(PG_FUNCTION_ARGS)
{
	TopkState  *s = arg_state(fcinfo, 0);

	if (!PG_ARGISNULL(1))
		s = merge(fcinfo, s, tk_detoast(PG_GETARG_DATUM(1)), "topk_union_agg");
	if (s == NULL)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(s);
}

/* combine (topk_agg and topk_union_agg): merge state 2 into state 1 */
Datum
topk_agg_combine(PG_FUNCTION_ARGS)
{
	TopkState  *s = arg_state(fcinfo, 0);
	TopkState  *s2 = arg_state(fcinfo, 1);

	if (s2 != NULL)
		s = merge(fcinfo, s, state_value(s2), "topk_agg");
	if (s == NULL)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(s);
}

/* the state as bytea holding the topk value's varlena bytes */
Datum
topk_agg_serial(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P((bytea *) state_value((TopkState *) PG_GETARG_POINTER(0)));
}

/* a state equal to the serialized one: its sketch, its items as they were */
Datum
topk_agg_deserial(PG_FUNCTION_ARGS)
{
	TopkValue  *t = tk_detoast(PG_GETARG_DATUM(0));
	CmsSketch	cms = tk_sketch(t);
	TopkItem   *items = tk_items(t);
	TopkState  *s = state_new(bf_agg_context(fcinfo, "topk_agg_deserial"), &cms.p, t->k);

	bf_copy_interruptible(s->cms.counters, cms.counters, cms_cells(&cms.p) * sizeof(int64));
	s->cms.total = cms.total;
	for (uint32 i = 0; i < t->nitems; i++)
		topk_insert(&s->heap, items[i].key, items[i].est, items[i].text, items[i].len);
	PG_RETURN_POINTER(s);
}

Datum
topk_agg_final(PG_FUNCTION_ARGS)
{
	TopkState  *s = arg_state(fcinfo, 0);

	if (s == NULL)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(state_value(s));
}
