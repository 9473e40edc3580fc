/*
 * countmin_agg.c
 *    The aggregates cms_agg (elements, optionally with counts -> sketch) and
 *    cms_union_agg (sketches -> their counter sum).
 *
 * Both keep an `internal` state holding one sketch allocated once in the
 * aggregate context and updated in place: a row costs one hash and d counter
 * increments (cms_agg) or one counter-wise sum (cms_union_agg).  They are
 * parallel-safe: combine sums two states' counters (sketches of disjoint
 * parts of the rows sum to the sketch of all of them), serial/deserial turn
 * a state into the countmin's own varlena bytes and back.
 *
 * cms_agg over no rows is NULL; over rows whose elements (or counts) are all
 * NULL it is the empty sketch.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/builtins.h"

#include "bloomfilter.h"
#include "countmin.h"

PG_FUNCTION_INFO_V1(countmin_agg_trans_int8);
PG_FUNCTION_INFO_V1(countmin_agg_trans_bytes);
PG_FUNCTION_INFO_V1(countmin_agg_trans_uuid);
PG_FUNCTION_INFO_V1(countmin_agg_count_trans_int8);
PG_FUNCTION_INFO_V1(countmin_agg_count_trans_bytes);
PG_FUNCTION_INFO_V1(countmin_agg_count_trans_uuid);
PG_FUNCTION_INFO_V1(countmin_union_trans);
PG_FUNCTION_INFO_V1(countmin_agg_combine);
PG_FUNCTION_INFO_V1(countmin_agg_serial);
PG_FUNCTION_INFO_V1(countmin_agg_deserial);
PG_FUNCTION_INFO_V1(countmin_agg_final);

typedef struct CountMinAggState
{
	BsHasher	hasher;			/* of the sketch's seed */
	CountMin   *value;			/* in the aggregate context; total kept in sketch */
	CmsSketch	sketch;			/* counters point into value */
} CountMinAggState;

static CountMinAggState *
arg_state(FunctionCallInfo fcinfo, int argno)
{
	return PG_ARGISNULL(argno) ? NULL : (CountMinAggState *) PG_GETARG_POINTER(argno);
}

/* a state owning value (already in ctx) */
static CountMinAggState *
state_new(MemoryContext ctx, CountMin *value)
{
	CountMinAggState *s = MemoryContextAlloc(ctx, sizeof(CountMinAggState));

	s->value = value;
	s->sketch = countmin_sketch(value);
	cms_hasher_init(&s->hasher, value->seed);
	return s;
}

/* a state owning a copy of the sketch c */
static CountMinAggState *
state_copy(MemoryContext ctx, const CountMin *c)
{
	return state_new(ctx, bf_copy_value(ctx, c, VARSIZE(c), "a countmin aggregate state"));
}

/*
 * The state for this row: created from the row's w, d and seed (arguments
 * first, first + 1 and first + 2 when present) on the first row; on later
 * rows they must not change.
 */
static CountMinAggState *
agg_state(FunctionCallInfo fcinfo, int first)
{
	CountMinAggState *s = arg_state(fcinfo, 0);
	int32		w = bf_agg_int_arg(fcinfo, first, "cms_agg", "w");
	int32		d = bf_agg_int_arg(fcinfo, first + 1, "cms_agg", "d");
	int32		seed = PG_NARGS() > first + 2 ? bf_agg_int_arg(fcinfo, first + 2, "cms_agg", "seed") : 0;

	if (s == NULL)
	{
		MemoryContext ctx = bf_agg_context(fcinfo, "cms_agg");
		CmsParams	p = countmin_make_params(w, d, seed);
		MemoryContext old = MemoryContextSwitchTo(ctx);

		s = state_new(ctx, countmin_alloc_typed(&p));
		MemoryContextSwitchTo(old);
	}
	else if ((uint32) w != s->sketch.p.w || (uint32) d != s->sketch.p.d || seed != s->sketch.p.seed)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cms_agg parameters changed within a group"),
				 errdetail("The group started with %s and a row has (w=%d, d=%d, seed=%d).",
						   countmin_params_string(&s->sketch.p), w, d, seed),
				 errhint("Pass constant w, d and seed to cms_agg.")));
	return s;
}

/* cms_agg(elem, w, d [, seed]) and cms_agg(elem, count, w, d [, seed]) */
static Datum
agg_trans(FunctionCallInfo fcinfo, Oid typid, bool has_count)
{
	CountMinAggState *s = agg_state(fcinfo, has_count ? 3 : 2);
	int64		count = 1;

	if (PG_ARGISNULL(1) || (has_count && PG_ARGISNULL(2)))
		PG_RETURN_POINTER(s);
	if (has_count)
		count = PG_GETARG_INT64(2);
	if (count < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cms_agg: count " INT64_FORMAT " is negative", count),
				 errhint("Counts are added; cms_remove subtracts.")));
	countmin_report(cms_add(&s->sketch, countmin_elem_key(&s->hasher, PG_GETARG_DATUM(1), typid), count),
			  "cms_agg");
	/* a new sketch holds no integers: a text is a string */
	s->value->flags = bf_flags_add_elems(s->value->flags,
										 typid == INT8OID ? BS_ELEM_INT :
										 typid == UUIDOID ? BS_ELEM_UUID : BS_ELEM_BYTES);
	PG_RETURN_POINTER(s);
}

Datum
countmin_agg_trans_int8(PG_FUNCTION_ARGS)
{
	return agg_trans(fcinfo, INT8OID, false);
}

Datum
countmin_agg_trans_bytes(PG_FUNCTION_ARGS)
{
	return agg_trans(fcinfo, BYTEAOID, false);
}

Datum
countmin_agg_trans_uuid(PG_FUNCTION_ARGS)
{
	return agg_trans(fcinfo, UUIDOID, false);
}

Datum
countmin_agg_count_trans_int8(PG_FUNCTION_ARGS)
{
	return agg_trans(fcinfo, INT8OID, true);
}

Datum
countmin_agg_count_trans_bytes(PG_FUNCTION_ARGS)
{
	return agg_trans(fcinfo, BYTEAOID, true);
}

Datum
countmin_agg_count_trans_uuid(PG_FUNCTION_ARGS)
{
	return agg_trans(fcinfo, UUIDOID, true);
}

/* fold sketch c (NULL: nothing) into state s (NULL: a new state) */
static Datum
fold(FunctionCallInfo fcinfo, CountMinAggState *s, CountMin *c, const char *what)
{
	if (c != NULL)
	{
		if (s == NULL)
			s = state_copy(bf_agg_context(fcinfo, what), c);
		else
		{
			CmsSketch	other = countmin_sketch(c);

			countmin_check_compatible(&s->sketch.p, &other.p, what);
			countmin_report(cms_merge(&s->sketch, &other), what);
			s->value->flags = bf_flags_merge_elems(s->value->flags, c->flags);
		}
	}
	if (s == NULL)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(s);
}

/* cms_union_agg: fold in the row's sketch (a NULL row is skipped) */
Datum
countmin_union_trans(PG_FUNCTION_ARGS)
{
	return fold(fcinfo, arg_state(fcinfo, 0),
				PG_ARGISNULL(1) ? NULL : countmin_detoast(PG_GETARG_DATUM(1)), "cms_union_agg");
}

/* the state's value with its total brought up to date */
static CountMin *
state_value(CountMinAggState *s)
{
	s->value->total = s->sketch.total;
	return s->value;
}

/* combine (cms_agg and cms_union_agg): sum state 2's counters into state 1 */
Datum
countmin_agg_combine(PG_FUNCTION_ARGS)
{
	CountMinAggState *s2 = arg_state(fcinfo, 1);

	return fold(fcinfo, arg_state(fcinfo, 0), s2 ? state_value(s2) : NULL, "cms_agg");
}

/* the state's sketch, as bytea holding the countmin's varlena bytes */
Datum
countmin_agg_serial(PG_FUNCTION_ARGS)
{
	CountMin   *c = state_value((CountMinAggState *) PG_GETARG_POINTER(0));
	PG_RETURN_BYTEA_P(bf_copy_value(CurrentMemoryContext, c, VARSIZE(c), "cms_agg_serial"));
}

Datum
countmin_agg_deserial(PG_FUNCTION_ARGS)
{
	CountMin   *c = countmin_detoast(PG_GETARG_DATUM(0));

	PG_RETURN_POINTER(state_copy(bf_agg_context(fcinfo, "cms_agg_deserial"), c));
}

Datum
countmin_agg_final(PG_FUNCTION_ARGS)
{
	CountMinAggState *s = arg_state(fcinfo, 0);

	if (s == NULL)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(state_value(s));
}
