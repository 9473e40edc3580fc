/*
 * countingbloom_agg.c
 *    The aggregates cbloom_agg (elements -> counting filter) and
 *    cbloom_union_agg (counting filters -> their multiset union: counters
 *    added, saturating at 15).
 *
 * Both keep an `internal` state holding one counting filter allocated once in
 * the aggregate context and updated in place.  They are parallel-safe:
 * combine adds two states' counters (saturating; min(15, a + b) equals
 * counting every row in one state, so the result does not depend on the
 * plan), serial/deserial turn a state into the filter's varlena bytes and
 * back.  Over an empty group the result is NULL; over a group of NULL
 * elements, the empty filter.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/builtins.h"

#include "bloomfilter.h"
#include "countingbloom.h"

PG_FUNCTION_INFO_V1(cbloom_agg_trans_int8);
PG_FUNCTION_INFO_V1(cbloom_agg_trans_bytes);
PG_FUNCTION_INFO_V1(cbloom_agg_trans_uuid);
PG_FUNCTION_INFO_V1(cbloom_union_trans);
PG_FUNCTION_INFO_V1(cbloom_agg_combine);
PG_FUNCTION_INFO_V1(cbloom_agg_serial);
PG_FUNCTION_INFO_V1(cbloom_agg_deserial);
PG_FUNCTION_INFO_V1(cbloom_agg_final);

typedef struct CbloomAggState
{
	BsHasher	hasher;			/* of cb's parameters */
	CountingBloom *cb;			/* in the aggregate context */
} CbloomAggState;

static CbloomAggState *
arg_state(FunctionCallInfo fcinfo, int argno)
{
	return PG_ARGISNULL(argno) ? NULL : (CbloomAggState *) PG_GETARG_POINTER(argno);
}

/* a state owning a copy of the viewed counting filter, in ctx */
static CbloomAggState *
state_from_view(MemoryContext ctx, const CbloomView *v)
{
	MemoryContext old = MemoryContextSwitchTo(ctx);
	CbloomAggState *s = palloc(sizeof(CbloomAggState));

	s->cb = cbloom_copy_view(v);
	bs_hasher_init(&s->hasher, &v->p);
	MemoryContextSwitchTo(old);
	return s;
}

/* the state for this row of cbloom_agg(elem, m, k [, seed [, hash]]) */
static CbloomAggState *
agg_state(FunctionCallInfo fcinfo)
{
	CbloomAggState *s = arg_state(fcinfo, 0);
	int32		m,
				k,
				seed;
	text	   *hash = bf_agg_filter_args(fcinfo, "cbloom_agg", &m, &k, &seed);
	if (s == NULL)
	{
		MemoryContext ctx = bf_agg_context(fcinfo, "cbloom_agg");
		BsParams	p = cbloom_make_params(m, k, seed, hash ? text_to_cstring(hash) : "xxh3");
		MemoryContext old = MemoryContextSwitchTo(ctx);

		s = palloc(sizeof(CbloomAggState));
		s->cb = cbloom_alloc(&p);
		s->cb->flags = BF_FLAG_TYPED;
		bs_hasher_init(&s->hasher, &p);
		MemoryContextSwitchTo(old);
	}
	else
		bf_agg_check_filter_args(&s->hasher.p, m, k, seed, hash, "cbloom_agg");
	return s;
}

/*
 * transition: count the row's element (of type elemtype, recorded as `elem`;
 * NULL skipped); a new filter holds no integers: a text is a string
 */
static Datum
agg_trans(FunctionCallInfo fcinfo, Oid elemtype)
{
	CbloomAggState *s = agg_state(fcinfo);

	if (!PG_ARGISNULL(1))
	{
		cb_add(&s->hasher, bf_datum_key(&s->hasher, PG_GETARG_DATUM(1), elemtype),
			   s->cb->counters);
		s->cb->flags = bf_flags_add_elems(s->cb->flags,
										  elemtype == INT8OID ? BS_ELEM_INT :
										  elemtype == UUIDOID ? BS_ELEM_UUID : BS_ELEM_BYTES);
	}
	PG_RETURN_POINTER(s);
}

Datum
cbloom_agg_trans_int8(PG_FUNCTION_ARGS)
{
	return agg_trans(fcinfo, INT8OID);
}

Datum
cbloom_agg_trans_bytes(PG_FUNCTION_ARGS)
{
	return agg_trans(fcinfo, BYTEAOID);
}

Datum
cbloom_agg_trans_uuid(PG_FUNCTION_ARGS)
{
	return agg_trans(fcinfo, UUIDOID);
}

/* fold counting filter v into state s (NULL: a new state) */
static CbloomAggState *
merge(FunctionCallInfo fcinfo, CbloomAggState *s, const CbloomView *v, const char *what)
{
	if (s == NULL)
		return state_from_view(bf_agg_context(fcinfo, what), v);
	cbloom_check_compatible(&s->hasher.p, &v->p, what);
	cb_merge(s->cb->counters, v->counters, v->p.m);
	s->cb->flags = bf_flags_merge_elems(s->cb->flags, v->elemflags);
	return s;
}

/*
 * The transition or combine result: state s with the counting filter v
 * folded in, or s unchanged when v is NULL (nothing to fold); no state stays
 * NULL.
 */
static Datum
fold(FunctionCallInfo fcinfo, CbloomAggState *s, const CbloomView *v, const char *what)
{
	if (v != NULL)
		s = merge(fcinfo, s, v, what);
	if (s == NULL)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(s);
}

/* cbloom_union_agg: fold in the row's counting filter (a NULL row is skipped) */
Datum
cbloom_union_trans(PG_FUNCTION_ARGS)
{
	CbloomView	v;

	if (!PG_ARGISNULL(1))
		cbloom_view_datum(PG_GETARG_DATUM(1), &v);
	return fold(fcinfo, arg_state(fcinfo, 0), PG_ARGISNULL(1) ? NULL : &v, "cbloom_union_agg");
}

/* combine (cbloom_agg and cbloom_union_agg): add state 2's counters to state 1 */
Datum
cbloom_agg_combine(PG_FUNCTION_ARGS)
{
	CbloomAggState *s2 = arg_state(fcinfo, 1);
	CbloomView	v;

	if (s2 != NULL)
		cbloom_view((struct varlena *) s2->cb, &v);
	return fold(fcinfo, arg_state(fcinfo, 0), s2 != NULL ? &v : NULL, "cbloom_agg");
}

/* the state's counting filter as bytea holding its varlena bytes */
Datum
cbloom_agg_serial(PG_FUNCTION_ARGS)
{
	CbloomAggState *s = (CbloomAggState *) PG_GETARG_POINTER(0);
	PG_RETURN_BYTEA_P(bf_copy_value(CurrentMemoryContext, s->cb, VARSIZE(s->cb),
									"cbloom_agg_serial"));
}

Datum
cbloom_agg_deserial(PG_FUNCTION_ARGS)
{
	bytea	   *in = PG_GETARG_BYTEA_P(0);
	CbloomView	v;

	cbloom_view((struct varlena *) in, &v);
	PG_RETURN_POINTER(state_from_view(bf_agg_context(fcinfo, "cbloom_agg_deserial"), &v));
}

Datum
cbloom_agg_final(PG_FUNCTION_ARGS)
{
	CbloomAggState *s = arg_state(fcinfo, 0);

	if (s == NULL)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(s->cb);
}
