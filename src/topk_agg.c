/*
 * topk_agg.c
 *    The aggregates topk_agg (elements -> heavy hitters) and topk_union_agg
 *    (topk values -> their merge).
 *
 * The state is a TopkState (topk_state.c): exact counts while the group is
 * small, then a Count-Min sketch and the candidate heap (src/core/topk.h),
 * in the aggregate context.  A row costs one hash and a hash-index probe
 * (exact mode; a new element also its text form), or one hash, d counter
 * increments, one estimate and a probe (sketch mode; only an element that
 * enters the heap has its text form built).  Merging (combine, and every row
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

static TopkState *
arg_state(FunctionCallInfo fcinfo, int argno)
{
	return PG_ARGISNULL(argno) ? NULL : (TopkState *) PG_GETARG_POINTER(argno);
}

/*
 * The hasher of seed, cached per call site (fn_extra): states carry no
 * hasher, so that a small group's state stays small.
 */
static const BsHasher *
site_hasher(FunctionCallInfo fcinfo, int32 seed)
{
	typedef struct
	{
		int32		seed;
		BsHasher	h;
	} SiteHasher;
	SiteHasher *c = fcinfo->flinfo->fn_extra;

	if (c == NULL || c->seed != seed)
	{
		if (c == NULL)
			c = fcinfo->flinfo->fn_extra =
				MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(SiteHasher));
		c->seed = seed;
		cms_hasher_init(&c->h, seed);
	}
	return &c->h;
}

/*
 * tk_default_w: the default width for k (also topk_empty's), w = max(2048, 16k)
 */
int64
tk_default_w(int32 k)
{
	return Max(TOPK_DEFAULT_MIN_W, (int64) TOPK_DEFAULT_W_PER_K * k);
}

/* tk_check_k: k in range, else 22023 naming what */
void
tk_check_k(int64 k, const char *what)
{
	if (k < TOPK_MIN_K || k > TOPK_MAX_K)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s k = " INT64_FORMAT " is out of range", what, k),
				 errdetail("k must be between %d and %d.", TOPK_MIN_K, TOPK_MAX_K)));
}

/* the state for this row: topk_agg(elem, k [, w, d [, seed]]) */
static TopkState *
agg_state(FunctionCallInfo fcinfo)
{
	TopkState  *s = arg_state(fcinfo, 0);
	int32		k = bf_agg_int_arg(fcinfo, 2, "topk_agg", "k");
	int64		w = PG_NARGS() > 3 ? bf_agg_int_arg(fcinfo, 3, "topk_agg", "w") : tk_default_w(k);
	int32		d = PG_NARGS() > 4 ? bf_agg_int_arg(fcinfo, 4, "topk_agg", "d") : TOPK_DEFAULT_D;
	int32		seed = PG_NARGS() > 5 ? bf_agg_int_arg(fcinfo, 5, "topk_agg", "seed") : 0;

	if (s == NULL)
	{
		CmsParams	p;

		tk_check_k(k, "topk_agg");
		p = countmin_make_params(w, d, seed);
		s = tk_state_new(bf_agg_context(fcinfo, "topk_agg"), &p, (uint32) k);
	}
	else if ((uint32) k != s->k || (uint32) w != s->p.w || (uint32) d != s->p.d ||
			 seed != s->p.seed)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("topk_agg parameters changed within a group"),
				 errdetail("The group started with %s and a row has (k=%d, w=" INT64_FORMAT ", d=%d, seed=%d).",
						   tk_params_string(&s->p, s->k), k, w, d, seed),
				 errhint("Pass constant k, w, d and seed to topk_agg.")));
	return s;
}

static void
too_long(Size len, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("%s: an element's text form of %zu bytes is over the %d-byte limit",
					what, len, TOPK_MAX_ITEM_BYTES),
			 errhint("Aggregate a shorter form of the element, e.g. left(x, 100) or md5(x).")));
}

static char *
int8_text(const void *arg, uint32 *len)
{
	const BsElem *e = arg;
	char	   *buf = palloc(MAXINT8LEN + 1);

	*len = (uint32) pg_lltoa(e->i, buf);
	return buf;
}

static char *
bytes_text(const void *arg, uint32 *len)
{
	const BsElem *e = arg;
	char	   *buf = palloc(e->len + 1);

	memcpy(buf, e->data, e->len);
	*len = (uint32) e->len;
	return buf;
}

/* bytea: '\x' and lower-case hex, as bytea_output = hex prints it */
static char *
bytea_text(const void *arg, uint32 *len)
{
	static const char hex[] = "0123456789abcdef";
	const BsElem *e = arg;
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
uuid_text(const void *arg, uint32 *len)
{
	const BsElem *e = arg;
	pg_uuid_t	u;
	char	   *s;

	memcpy(u.data, e->data, UUID_LEN);
	s = DatumGetCString(DirectFunctionCall1(uuid_out, UUIDPGetDatum(&u)));
	*len = (uint32) strlen(s);
	return s;
}

/*
 * tk_add_datum: count (>= 0) more occurrences of the element `value` of type
 * typid (bigint, text, bytea or uuid) to s: its key under the call site's
 * hasher, and its text form's maker (tk_state_add), the form checked against
 * the length limit first where it can be long (54000, whether or not the
 * element would enter the heap, so a result never depends on the order of
 * the rows in that respect).  Shared by topk_agg and topk_add.
 */
void
tk_add_datum(FunctionCallInfo fcinfo, TopkState *s, Datum value, Oid typid, int64 count,
			 const char *what)
{
	const BsHasher *h = site_hasher(fcinfo, s->p.seed);
	BsElem		e;
	TkTextFn	to_text;

	switch (typid)
	{
		case INT8OID:
			e = bs_elem_int8(DatumGetInt64(value));
			to_text = int8_text;
			break;
		case TEXTOID:
			e = bs_elem_varlena(value);
			if (e.len > TOPK_MAX_ITEM_BYTES)
				too_long(e.len, what);
			to_text = bytes_text;
			break;
		case BYTEAOID:
			e = bs_elem_varlena(value);
			if (2 + 2 * e.len > TOPK_MAX_ITEM_BYTES)
				too_long(2 + 2 * e.len, what);
			to_text = bytea_text;
			break;
		default:
			Assert(typid == UUIDOID);
			e = bs_elem_uuid(value);
			to_text = uuid_text;
			break;
	}
	tk_state_add(s, bs_elem_key(h, &e), count, to_text, &e, what);
}

/* the transition for an element of type typid (argument 1; a NULL row is skipped) */
static Datum
agg_trans(FunctionCallInfo fcinfo, Oid typid)
{
	TopkState  *s = agg_state(fcinfo);

	if (!PG_ARGISNULL(1))
		tk_add_datum(fcinfo, s, PG_GETARG_DATUM(1), typid, 1, "topk_agg");
	PG_RETURN_POINTER(s);
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

/*
 * Merge the value t into s (NULL: a new state equal to t, in the aggregate
 * context).
 */
static TopkState *
merge(FunctionCallInfo fcinfo, TopkState *s, TopkValue *t, const char *what)
{
	if (s == NULL)
		return tk_state_from_value(bf_agg_context(fcinfo, what), t);
	tk_state_merge(s, t, what);
	return s;
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
		s = merge(fcinfo, s, tk_state_value(s2), "topk_agg");
	if (s == NULL)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(s);
}

/* the state as bytea holding the topk value's varlena bytes */
Datum
topk_agg_serial(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P((bytea *) tk_state_value((TopkState *) PG_GETARG_POINTER(0)));
}

/* a state equal to the serialized one: its sketch, its items as they were */
Datum
topk_agg_deserial(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(tk_state_from_value(bf_agg_context(fcinfo, "topk_agg_deserial"),
										  tk_detoast(PG_GETARG_DATUM(0))));
}

Datum
topk_agg_final(PG_FUNCTION_ARGS)
{
	TopkState  *s = arg_state(fcinfo, 0);

	if (s == NULL)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(tk_state_value(s));
}
