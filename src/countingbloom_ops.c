/*
 * countingbloom_ops.c
 *    SQL functions of the countingbloom type: building, adding and removing,
 *    membership and counts, conversion to a bloomfilter, equality and hash.
 *
 * Membership keeps the hasher of the last parameter set, the last element's
 * key and the last TOASTed filter (detoasted) in fn_extra, so `cb @> const`
 * over a scan hashes the constant once and `big_cb @> x` over a scan fetches
 * the filter once.
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "utils/builtins.h"

#include "bloomfilter.h"
#include "bs_elem.h"
#include "countingbloom.h"

PG_FUNCTION_INFO_V1(cbloom_empty);
PG_FUNCTION_INFO_V1(cbloom_add_int8);
PG_FUNCTION_INFO_V1(cbloom_add_bytes);
PG_FUNCTION_INFO_V1(cbloom_add_text);
PG_FUNCTION_INFO_V1(cbloom_add_uuid);
PG_FUNCTION_INFO_V1(cbloom_remove_int8);
PG_FUNCTION_INFO_V1(cbloom_remove_bytes);
PG_FUNCTION_INFO_V1(cbloom_remove_text);
PG_FUNCTION_INFO_V1(cbloom_remove_uuid);
PG_FUNCTION_INFO_V1(cbloom_contains_int8);
PG_FUNCTION_INFO_V1(cbloom_contains_bytes);
PG_FUNCTION_INFO_V1(cbloom_contains_text);
PG_FUNCTION_INFO_V1(cbloom_contains_uuid);
PG_FUNCTION_INFO_V1(cbloom_contained_int8);
PG_FUNCTION_INFO_V1(cbloom_contained_bytes);
PG_FUNCTION_INFO_V1(cbloom_contained_text);
PG_FUNCTION_INFO_V1(cbloom_contained_uuid);
PG_FUNCTION_INFO_V1(cbloom_count_int8);
PG_FUNCTION_INFO_V1(cbloom_count_bytes);
PG_FUNCTION_INFO_V1(cbloom_count_text);
PG_FUNCTION_INFO_V1(cbloom_count_uuid);
PG_FUNCTION_INFO_V1(cbloom_to_bloom);
PG_FUNCTION_INFO_V1(cbloom_saturated);
PG_FUNCTION_INFO_V1(cbloom_eq);
PG_FUNCTION_INFO_V1(cbloom_ne);
PG_FUNCTION_INFO_V1(countingbloom_hash);

typedef struct CbloomLookupCache
{
	bool		have_hasher;
	BsHasher	hasher;
	BfDetoastCache filter;		/* last TOASTed filter, detoasted once */
	BsElemKeyCache key;
} CbloomLookupCache;

Datum
cbloom_empty(PG_FUNCTION_ARGS)
{
	BsParams	p = cbloom_make_params(PG_GETARG_INT32(0), PG_GETARG_INT32(1),
									PG_GETARG_INT32(2),
									text_to_cstring(PG_GETARG_TEXT_PP(3)));

	CountingBloom *cb = cbloom_alloc(&p);

	cb->flags = BF_FLAG_TYPED;
	PG_RETURN_POINTER(cb);
}

/*
 * The element to add to or remove from the viewed counting filter, and its
 * type, for a typed element e of type `elem` (text: 0, then e is the text,
 * read by the filter's element types; a text read two ways is an error: the
 * count of one of them would change)
 */
static BsElem
update_elem(const CbloomView *v, BsElem e, unsigned *elem, BsTextReadings *rd, bool add)
{
	BsElem		r[BS_ELEM_READINGS_MAX];
	int			n;

	if (*elem != 0)
		return e;
	*elem = bs_elem_text_used(&e, v->elems, rd, r, &n);
	if (n > 1)
		bs_elem_text_ambiguous(add ? "cbloom_add" : "cbloom_remove", &e, *elem);
	return r[0];
}

/*
 * a copy of counting filter argument 0 with element e (of type `elem`, 0 for
 * a text) added or removed
 */
static Datum
update_common(FunctionCallInfo fcinfo, BsElem e, bool add, unsigned elem)
{
	CbloomView	v;
	CountingBloom *cb;
	BsHasher	h;
	BsKey		key;
	BsTextReadings rd;

	cbloom_view_datum(PG_GETARG_DATUM(0), &v);
	e = update_elem(&v, e, &elem, &rd, add);
	cb = cbloom_copy_view(&v);
	cb->flags = bf_flags_add_elems(cb->flags, elem);
	bs_hasher_init(&h, &v.p);
	key = bs_elem_key(&h, &e);
	if (add)
		cb_add(&h, key, cb->counters);
	else if (cb_remove(&h, key, cb->counters) == CB_ABSENT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cbloom_remove: the element is certainly not in the countingbloom"),
				 errdetail("A counter at one of its %d positions is zero (or lower than the number of its positions there).",
						   v.p.k),
				 errhint("Remove only elements that were added; test with cbloom_contains first.")));
	PG_RETURN_POINTER(cb);
}

Datum
cbloom_add_int8(PG_FUNCTION_ARGS)
{
	BS_ELEM_NULLS_RETURN();
	return update_common(fcinfo, bs_elem_int8(PG_GETARG_INT64(1)), true, BS_ELEM_INT);
}

Datum
cbloom_add_bytes(PG_FUNCTION_ARGS)
{
	BS_ELEM_NULLS_RETURN();
	return update_common(fcinfo, bs_elem_varlena(PG_GETARG_DATUM(1)), true, BS_ELEM_BYTES);
}

Datum
cbloom_add_text(PG_FUNCTION_ARGS)
{
	BS_ELEM_NULLS_RETURN();
	return update_common(fcinfo, bs_elem_varlena(PG_GETARG_DATUM(1)), true, 0);
}

Datum
cbloom_add_uuid(PG_FUNCTION_ARGS)
{
	BS_ELEM_NULLS_RETURN();
	return update_common(fcinfo, bs_elem_uuid(PG_GETARG_DATUM(1)), true, BS_ELEM_UUID);
}

Datum
cbloom_remove_int8(PG_FUNCTION_ARGS)
{
	BS_ELEM_NULLS_RETURN();
	return update_common(fcinfo, bs_elem_int8(PG_GETARG_INT64(1)), false, BS_ELEM_INT);
}

Datum
cbloom_remove_bytes(PG_FUNCTION_ARGS)
{
	BS_ELEM_NULLS_RETURN();
	return update_common(fcinfo, bs_elem_varlena(PG_GETARG_DATUM(1)), false, BS_ELEM_BYTES);
}

Datum
cbloom_remove_text(PG_FUNCTION_ARGS)
{
	BS_ELEM_NULLS_RETURN();
	return update_common(fcinfo, bs_elem_varlena(PG_GETARG_DATUM(1)), false, 0);
}

Datum
cbloom_remove_uuid(PG_FUNCTION_ARGS)
{
	BS_ELEM_NULLS_RETURN();
	return update_common(fcinfo, bs_elem_uuid(PG_GETARG_DATUM(1)), false, BS_ELEM_UUID);
}

/*
 * The smallest counter of e in the filter datum (0: certainly absent).  A
 * text (is_text) is read by the filter's element types: read two ways, a
 * membership test (what != NULL is a count) takes the larger, a count is
 * an error naming `what`.
 */
static unsigned
lookup_common(FunctionCallInfo fcinfo, Datum filter, BsElem e, bool is_text, const char *what)
{
	CbloomLookupCache *c = (CbloomLookupCache *) fcinfo->flinfo->fn_extra;
	CbloomView	v;
	BsTextReadings rd;
	BsElem		r[BS_ELEM_READINGS_MAX];
	int			n = 1;
	unsigned	used = 0,
				best = 0;

	if (c == NULL)
		c = fcinfo->flinfo->fn_extra =
			MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(CbloomLookupCache));
	cbloom_view(bf_detoast_cached(filter, &c->filter, fcinfo->flinfo->fn_mcxt), &v);
	if (!c->have_hasher || !bs_params_equal(&c->hasher.p, &v.p))
	{
		bs_hasher_init(&c->hasher, &v.p);
		c->have_hasher = true;
		c->key.valid = false;
	}
	r[0] = e;
	if (is_text)
		used = bs_elem_text_used(&e, v.elems, &rd, r, &n);
	if (n > 1 && what != NULL)
		bs_elem_text_ambiguous(what, &e, used);
	for (int i = 0; i < n; i++)
	{
		unsigned	cnt = cb_min_count(&c->hasher,
									   n == 1 ? bs_elem_key_cached(&c->key, &c->hasher, &r[i])
									   : bs_elem_key(&c->hasher, &r[i]),
									   v.counters);

		best = Max(best, cnt);
	}
	return best;
}

Datum
cbloom_contains_int8(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(lookup_common(fcinfo, PG_GETARG_DATUM(0),
								bs_elem_int8(PG_GETARG_INT64(1)), false, NULL) > 0);
}

Datum
cbloom_contains_bytes(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(lookup_common(fcinfo, PG_GETARG_DATUM(0),
								bs_elem_varlena(PG_GETARG_DATUM(1)), false, NULL) > 0);
}

Datum
cbloom_contains_text(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(lookup_common(fcinfo, PG_GETARG_DATUM(0),
								 bs_elem_varlena(PG_GETARG_DATUM(1)), true, NULL) > 0);
}

Datum
cbloom_contains_uuid(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(lookup_common(fcinfo, PG_GETARG_DATUM(0),
								bs_elem_uuid(PG_GETARG_DATUM(1)), false, NULL) > 0);
}

Datum
cbloom_contained_int8(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(lookup_common(fcinfo, PG_GETARG_DATUM(1),
								bs_elem_int8(PG_GETARG_INT64(0)), false, NULL) > 0);
}

Datum
cbloom_contained_bytes(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(lookup_common(fcinfo, PG_GETARG_DATUM(1),
								bs_elem_varlena(PG_GETARG_DATUM(0)), false, NULL) > 0);
}

Datum
cbloom_contained_text(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(lookup_common(fcinfo, PG_GETARG_DATUM(1),
								 bs_elem_varlena(PG_GETARG_DATUM(0)), true, NULL) > 0);
}

Datum
cbloom_contained_uuid(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(lookup_common(fcinfo, PG_GETARG_DATUM(1),
								bs_elem_uuid(PG_GETARG_DATUM(0)), false, NULL) > 0);
}

Datum
cbloom_count_int8(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32((int32) lookup_common(fcinfo, PG_GETARG_DATUM(0),
										  bs_elem_int8(PG_GETARG_INT64(1)), false, NULL));
}

Datum
cbloom_count_bytes(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32((int32) lookup_common(fcinfo, PG_GETARG_DATUM(0),
										  bs_elem_varlena(PG_GETARG_DATUM(1)), false, NULL));
}

Datum
cbloom_count_text(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32((int32) lookup_common(fcinfo, PG_GETARG_DATUM(0),
										  bs_elem_varlena(PG_GETARG_DATUM(1)), true,
										  "cbloom_count"));
}

Datum
cbloom_count_uuid(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32((int32) lookup_common(fcinfo, PG_GETARG_DATUM(0),
										  bs_elem_uuid(PG_GETARG_DATUM(1)), false, NULL));
}

/*
 * cbloom_to_bloom(cb): the bloomfilter with bit i set where counter i is
 * non-zero; also the assignment cast countingbloom -> bloomfilter
 */
Datum
cbloom_to_bloom(PG_FUNCTION_ARGS)
{
	CbloomView	v;
	BloomFilter *f;

	cbloom_view_datum(PG_GETARG_DATUM(0), &v);
	f = bf_alloc(&v.p);
	f->flags = v.elemflags;		/* the same element types */
	cb_to_bits(v.counters, v.p.m, f->bits);
	PG_RETURN_BLOOMFILTER_P(f);
}

Datum
cbloom_saturated(PG_FUNCTION_ARGS)
{
	CbloomView	v;

	cbloom_view_datum(PG_GETARG_DATUM(0), &v);
	PG_RETURN_INT64((int64) cb_saturated(v.counters, v.p.m));
}

static bool
counting_equal(FunctionCallInfo fcinfo)
{
	CbloomView	a,
				b;

	cbloom_view_datum(PG_GETARG_DATUM(0), &a);
	cbloom_view_datum(PG_GETARG_DATUM(1), &b);
	return bs_params_equal(&a.p, &b.p) &&
		bf_equal_interruptible(a.counters, b.counters, CB_NBYTES(a.p.m));
}

Datum
cbloom_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(counting_equal(fcinfo));
}

Datum
cbloom_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!counting_equal(fcinfo));
}

/* hash support for =: parameters and counters */
Datum
countingbloom_hash(PG_FUNCTION_ARGS)
{
	CbloomView	v;
	uint32		h;

	cbloom_view_datum(PG_GETARG_DATUM(0), &v);
	h = bf_hash_bytes_interruptible(v.counters, CB_NBYTES(v.p.m));
	h ^= DatumGetUInt32(hash_uint32(v.p.m ^ ((uint32) v.p.k << 24) ^
									((uint32) v.p.hash << 30)));
	PG_RETURN_UINT32(h ^ DatumGetUInt32(hash_uint32((uint32) v.p.seed)));
}
