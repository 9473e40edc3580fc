/*
 * bloomfilter_agg.c
 *    The aggregates bloom_agg (elements -> filter), bloom_union_agg and
 *    bloom_intersect_agg (filters -> OR / AND).
 *
 * All three keep an `internal` state holding one filter allocated once in the
 * aggregate context and updated in place, so a row costs one hash and k bit
 * writes (bloom_agg) or one word-wise OR/AND, never a copy of the filter.
 * They are parallel-safe: combine ORs (or ANDs) two states, serial/deserial
 * turn a state into the filter's own varlena bytes and back.  The state is
 * always dense; a sparse row is folded in from its positions (OR: n bit
 * writes) or in one pass over them (AND), and the final value is stored in
 * the smaller form.
 *
 * bloom_agg over an empty group is NULL; over a group whose elements are all
 * NULL it is the empty filter (the parameters are known from the rows).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/builtins.h"

#include "bloomfilter.h"

PG_FUNCTION_INFO_V1(bloom_agg_trans_int8);
PG_FUNCTION_INFO_V1(bloom_agg_trans_bytes);
PG_FUNCTION_INFO_V1(bloom_agg_trans_uuid);
PG_FUNCTION_INFO_V1(bloom_union_trans);
PG_FUNCTION_INFO_V1(bloom_intersect_trans);
PG_FUNCTION_INFO_V1(bloom_union_combine);
PG_FUNCTION_INFO_V1(bloom_intersect_combine);
PG_FUNCTION_INFO_V1(bloom_agg_serial);
PG_FUNCTION_INFO_V1(bloom_agg_deserial);
PG_FUNCTION_INFO_V1(bloom_agg_final);

typedef struct BloomAggState
{
	BsHasher	hasher;			/* of f's parameters */
	BloomFilter *f;				/* in the aggregate context */
} BloomAggState;

/* argument argno as a state; NULL when SQL NULL (no row folded in yet) */
static BloomAggState *
arg_state(FunctionCallInfo fcinfo, int argno)
{
	return PG_ARGISNULL(argno) ? NULL : (BloomAggState *) PG_GETARG_POINTER(argno);
}

/* a state owning a copy of the viewed filter, in ctx */
static BloomAggState *
state_from_view(MemoryContext ctx, const BloomView *v)
{
	MemoryContext old = MemoryContextSwitchTo(ctx);
	BloomAggState *s = palloc(sizeof(BloomAggState));

	s->f = bf_copy_view(v);
	bs_hasher_init(&s->hasher, &v->p);
	MemoryContextSwitchTo(old);
	return s;
}

/* ---- bloom_agg(elem, m, k [, seed [, hash]]) -------------------------- */

/*
 * The state for this row: created from the row's m, k, seed and hash on the
 * first row; on later rows the parameters must not change.
 */
static BloomAggState *
agg_state(FunctionCallInfo fcinfo)
{
	BloomAggState *s = arg_state(fcinfo, 0);
	int32		m,
				k,
				seed;
	text	   *hash = bf_agg_filter_args(fcinfo, "bloom_agg", &m, &k, &seed);
	if (s == NULL)
	{
		MemoryContext ctx = bf_agg_context(fcinfo, "bloom_agg");
		BsParams	p = bf_make_params(m, k, seed,
									   hash ? text_to_cstring(hash) : "xxh3");
		MemoryContext old = MemoryContextSwitchTo(ctx);

		s = palloc(sizeof(BloomAggState));
		s->f = bf_alloc_typed(&p);
		bs_hasher_init(&s->hasher, &p);
		MemoryContextSwitchTo(old);
	}
	else
		bf_agg_check_filter_args(&s->hasher.p, m, k, seed, hash, "bloom_agg");
	return s;
}

/*
 * transition: set the row's element (argument 1, of type elemtype, recorded
 * as type `elem`; NULL skipped).  The state's filter is new: it holds no
 * integers, so a text element is a string (bs_elemtype.h).
 */
static Datum
agg_trans(FunctionCallInfo fcinfo, Oid elemtype, unsigned elem)
{
	BloomAggState *s = agg_state(fcinfo);

	if (!PG_ARGISNULL(1))
	{
		bs_key_set(&s->hasher, bf_datum_key(&s->hasher, PG_GETARG_DATUM(1), elemtype), s->f->bits);
		s->f->flags = bf_flags_add_elems(s->f->flags, elem);
	}
	PG_RETURN_POINTER(s);
}

Datum
bloom_agg_trans_int8(PG_FUNCTION_ARGS)
{
	return agg_trans(fcinfo, INT8OID, BS_ELEM_INT);
}

Datum
bloom_agg_trans_bytes(PG_FUNCTION_ARGS)
{
	return agg_trans(fcinfo, BYTEAOID, BS_ELEM_BYTES);
}

Datum
bloom_agg_trans_uuid(PG_FUNCTION_ARGS)
{
	return agg_trans(fcinfo, UUIDOID, BS_ELEM_UUID);
}

/* ---- bloom_union_agg / bloom_intersect_agg ---------------------------- */

/* fold the filter v into state s (NULL: a new state) by OR or AND */
static BloomAggState *
merge(FunctionCallInfo fcinfo, BloomAggState *s, const BloomView *v, bool is_and)
{
	const char *what = is_and ? "bloom_intersect_agg" : "bloom_union_agg";

	if (s == NULL)
		return state_from_view(bf_agg_context(fcinfo, what), v);
	bf_check_compatible(&s->hasher.p, &v->p, what);
	s->f->flags = (s->f->flags & BF_FLAG_SPARSE) |
		bf_flags_merge_elems(s->f->flags, v->elemflags);
	if (is_and)
		bf_and_into(s->f->bits, v);
	else
		bf_or_into(s->f->bits, v);
	return s;
}

/*
 * The transition or combine result: state s with the filter v folded in,
 * or s unchanged when v is NULL (nothing to fold); no state stays NULL.
 */
static Datum
fold(FunctionCallInfo fcinfo, BloomAggState *s, const BloomView *v, bool is_and)
{
	if (v != NULL)
		s = merge(fcinfo, s, v, is_and);
	if (s == NULL)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(s);
}

/* transition: fold in the row's filter (argument 1; a NULL row is skipped) */
static Datum
filter_trans(FunctionCallInfo fcinfo, bool is_and)
{
	BloomView	v;

	if (!PG_ARGISNULL(1))
		bf_view_datum_stored(PG_GETARG_DATUM(1), &v);
	return fold(fcinfo, arg_state(fcinfo, 0), PG_ARGISNULL(1) ? NULL : &v, is_and);
}

Datum
bloom_union_trans(PG_FUNCTION_ARGS)
{
	return filter_trans(fcinfo, false);
}

Datum
bloom_intersect_trans(PG_FUNCTION_ARGS)
{
	return filter_trans(fcinfo, true);
}

/* combine: fold the filter of state 2 into state 1 */
static Datum
combine(FunctionCallInfo fcinfo, bool is_and)
{
	BloomAggState *s2 = arg_state(fcinfo, 1);
	BloomView	v;

	if (s2 != NULL)
		bf_view((struct varlena *) s2->f, &v);
	return fold(fcinfo, arg_state(fcinfo, 0), s2 != NULL ? &v : NULL, is_and);
}

/* bloom_agg and bloom_union_agg combine by OR */
Datum
bloom_union_combine(PG_FUNCTION_ARGS)
{
	return combine(fcinfo, false);
}

Datum
bloom_intersect_combine(PG_FUNCTION_ARGS)
{
	return combine(fcinfo, true);
}

/* ---- serialization and final ------------------------------------------ */

/* the state's filter, as bytea holding the filter's varlena bytes */
Datum
bloom_agg_serial(PG_FUNCTION_ARGS)
{
	BloomAggState *s = (BloomAggState *) PG_GETARG_POINTER(0);
	Size		size = VARSIZE(s->f);
	bytea	   *out = bf_palloc_value(size, false, "bloom_agg_serial");

	bf_copy_interruptible(out, s->f, size);
	PG_RETURN_BYTEA_P(out);
}

Datum
bloom_agg_deserial(PG_FUNCTION_ARGS)
{
	bytea	   *in = PG_GETARG_BYTEA_P(0);
	BloomView	v;

	bf_view((struct varlena *) in, &v);
	PG_RETURN_POINTER(state_from_view(bf_agg_context(fcinfo, "bloom_agg_deserial"), &v));
}

Datum
bloom_agg_final(PG_FUNCTION_ARGS)
{
	BloomAggState *s = arg_state(fcinfo, 0);

	if (s == NULL)
		PG_RETURN_NULL();
	PG_RETURN_BLOOMFILTER_P(s->f);
}
