/*
 * countmin_ops.c
 *    SQL functions of the countmin type: building (cms_empty, cms_for_error,
 *    cms_add, cms_remove, cms_merge), point and inner-product estimates, introspection
 *    and equality.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "utils/builtins.h"

#include "bloomfilter.h"
#include "bs_elem.h"
#include "countmin.h"

PG_FUNCTION_INFO_V1(countmin_empty);
PG_FUNCTION_INFO_V1(countmin_for_error);
PG_FUNCTION_INFO_V1(countmin_add_int8);
PG_FUNCTION_INFO_V1(countmin_add_bytes);
PG_FUNCTION_INFO_V1(countmin_add_text);
PG_FUNCTION_INFO_V1(countmin_add_uuid);
PG_FUNCTION_INFO_V1(countmin_remove_int8);
PG_FUNCTION_INFO_V1(countmin_remove_bytes);
PG_FUNCTION_INFO_V1(countmin_remove_text);
PG_FUNCTION_INFO_V1(countmin_remove_uuid);
PG_FUNCTION_INFO_V1(countmin_estimate_int8);
PG_FUNCTION_INFO_V1(countmin_estimate_bytes);
PG_FUNCTION_INFO_V1(countmin_estimate_text);
PG_FUNCTION_INFO_V1(countmin_estimate_uuid);
PG_FUNCTION_INFO_V1(countmin_total);
PG_FUNCTION_INFO_V1(countmin_w);
PG_FUNCTION_INFO_V1(countmin_d);
PG_FUNCTION_INFO_V1(countmin_seed);
PG_FUNCTION_INFO_V1(countmin_inner_product);
PG_FUNCTION_INFO_V1(countmin_merge);
PG_FUNCTION_INFO_V1(countmin_error);
PG_FUNCTION_INFO_V1(countmin_eq);
PG_FUNCTION_INFO_V1(countmin_ne);

Datum
countmin_empty(PG_FUNCTION_ARGS)
{
	CmsParams	p = countmin_make_params(PG_GETARG_INT32(0), PG_GETARG_INT32(1), PG_GETARG_INT32(2));

	PG_RETURN_POINTER(countmin_alloc_typed(&p));
}

Datum
countmin_for_error(PG_FUNCTION_ARGS)
{
	float8		eps = PG_GETARG_FLOAT8(0);
	float8		delta = PG_GETARG_FLOAT8(1);
	uint32		w,
				d;
	CmsParams	p;

	if (!(eps > 0 && eps < 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cms_for_error epsilon %g is out of range", eps),
				 errdetail("epsilon must be between 0 and 1, exclusive.")));
	if (!(delta > 0 && delta < 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cms_for_error delta %g is out of range", delta),
				 errdetail("delta must be between 0 and 1, exclusive.")));
	if (cms_size_for_error(eps, delta, &w, &d) != CMS_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cms_for_error(%g, %g) needs too large a sketch", eps, delta),
				 errdetail("w = ceil(e/epsilon) = %.0f and d = ceil(ln(1/delta)) = %.0f; "
						   "w must be at most %d, d at most %d, w * d at most " UINT64_FORMAT ".",
						   ceil(2.718281828459045 / eps), ceil(log(1 / delta)),
						   CMS_MAX_W, CMS_MAX_D, (uint64) CMS_MAX_CELLS)));
	p = countmin_make_params(w, d, PG_GETARG_INT32(2));
	PG_RETURN_POINTER(countmin_alloc_typed(&p));
}

/*
 * The key of element argument 1 (of type typid) in sketch c, and in *elem its
 * type (BS_ELEM_*); a text is read by the element types c records
 * (bs_elemtype.h), and one read two ways is an error naming `what`: one
 * count must change
 */
static BsKey
elem_key(FunctionCallInfo fcinfo, const BsHasher *h, const CountMin *c, Oid typid,
		 unsigned *elem, const char *what)
{
	BsTextReadings rd;
	BsElem		t,
				r[BS_ELEM_READINGS_MAX];
	int			n;

	if (typid != TEXTOID)
	{
		*elem = typid == INT8OID ? BS_ELEM_INT : typid == UUIDOID ? BS_ELEM_UUID : BS_ELEM_BYTES;
		return countmin_elem_key(h, PG_GETARG_DATUM(1), typid);
	}
	t = bs_elem_varlena(PG_GETARG_DATUM(1));
	*elem = bs_elem_text_used(&t, bf_flags_elems(c->flags), &rd, r, &n);
	if (n > 1)
		bs_elem_text_ambiguous(what, &t, *elem);
	return bs_elem_key(h, &r[0]);
}

/* a modifiable copy of argument 0 with count (argument 2) added / removed */
static Datum
add_or_remove(FunctionCallInfo fcinfo, Oid typid, bool remove)
{
	CountMin   *in = countmin_detoast(PG_GETARG_DATUM(0));
	CountMin   *c = bf_copy_value(CurrentMemoryContext, in, VARSIZE(in), "copying a countmin value");
	int64		count = PG_GETARG_INT64(2);
	CmsSketch	s;
	BsHasher	h;
	BsKey		key;
	unsigned	elem;

	s = countmin_sketch(c);
	cms_hasher_init(&h, c->seed);
	key = elem_key(fcinfo, &h, c, typid, &elem, remove ? "cms_remove" : "cms_add");
	c->flags = bf_flags_add_elems(c->flags, elem);
	if (count < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: count " INT64_FORMAT " is negative", remove ? "cms_remove" : "cms_add", count),
				 errhint("%s", remove ? "Use cms_add to add." : "Use cms_remove to subtract.")));
	countmin_report(remove ? cms_remove(&s, key, count) : cms_add(&s, key, count),
			  remove ? "cms_remove" : "cms_add");
	c->total = s.total;
	PG_RETURN_POINTER(c);
}

Datum
countmin_add_int8(PG_FUNCTION_ARGS)
{
	BS_ELEM_NULLS_RETURN();
	return add_or_remove(fcinfo, INT8OID, false);
}

Datum
countmin_add_bytes(PG_FUNCTION_ARGS)
{
	BS_ELEM_NULLS_RETURN();
	return add_or_remove(fcinfo, BYTEAOID, false);
}

Datum
countmin_add_text(PG_FUNCTION_ARGS)
{
	BS_ELEM_NULLS_RETURN();
	return add_or_remove(fcinfo, TEXTOID, false);
}

Datum
countmin_add_uuid(PG_FUNCTION_ARGS)
{
	BS_ELEM_NULLS_RETURN();
	return add_or_remove(fcinfo, UUIDOID, false);
}

Datum
countmin_remove_int8(PG_FUNCTION_ARGS)
{
	BS_ELEM_NULLS_RETURN();
	return add_or_remove(fcinfo, INT8OID, true);
}

Datum
countmin_remove_bytes(PG_FUNCTION_ARGS)
{
	BS_ELEM_NULLS_RETURN();
	return add_or_remove(fcinfo, BYTEAOID, true);
}

Datum
countmin_remove_text(PG_FUNCTION_ARGS)
{
	BS_ELEM_NULLS_RETURN();
	return add_or_remove(fcinfo, TEXTOID, true);
}

Datum
countmin_remove_uuid(PG_FUNCTION_ARGS)
{
	BS_ELEM_NULLS_RETURN();
	return add_or_remove(fcinfo, UUIDOID, true);
}

/*
 * The estimate of argument 1 in the sketch of argument 0.  The sketch is
 * detoasted through a per-call-site cache (bf_detoast_cached), so probing one
 * stored sketch for many elements fetches it once.
 */
static Datum
estimate(FunctionCallInfo fcinfo, Oid typid)
{
	BfDetoastCache *cache = fcinfo->flinfo->fn_extra;
	CountMin   *c;
	CmsSketch	s;
	BsHasher	h;
	unsigned	elem;

	if (cache == NULL)
		cache = fcinfo->flinfo->fn_extra =
			MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(BfDetoastCache));
	c = countmin_detoast(PointerGetDatum(bf_detoast_cached(PG_GETARG_DATUM(0), cache,
													 fcinfo->flinfo->fn_mcxt)));
	s = countmin_sketch(c);
	cms_hasher_init(&h, c->seed);
	PG_RETURN_INT64(cms_estimate(&s, elem_key(fcinfo, &h, c, typid, &elem, "cms_estimate")));
}

Datum
countmin_estimate_int8(PG_FUNCTION_ARGS)
{
	return estimate(fcinfo, INT8OID);
}

Datum
countmin_estimate_bytes(PG_FUNCTION_ARGS)
{
	return estimate(fcinfo, BYTEAOID);
}

Datum
countmin_estimate_text(PG_FUNCTION_ARGS)
{
	return estimate(fcinfo, TEXTOID);
}

Datum
countmin_estimate_uuid(PG_FUNCTION_ARGS)
{
	return estimate(fcinfo, UUIDOID);
}

Datum
countmin_total(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(countmin_detoast(PG_GETARG_DATUM(0))->total);
}

/* the parameters are in the first bytes: only those are fetched (a 4-byte-header copy) */
static CountMin *
header_only(FunctionCallInfo fcinfo)
{
	CountMin   *c = (CountMin *) PG_DETOAST_DATUM_SLICE(PG_GETARG_DATUM(0), 0,
														offsetof(CountMin, counters));

	if (VARSIZE_ANY_EXHDR(c) < offsetof(CountMin, counters) - VARHDRSZ)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("countmin value is too short")));
	return c;
}

Datum
countmin_w(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32((int32) header_only(fcinfo)->w);
}

Datum
countmin_d(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32((int32) header_only(fcinfo)->d);
}

Datum
countmin_seed(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(header_only(fcinfo)->seed);
}

Datum
countmin_inner_product(PG_FUNCTION_ARGS)
{
	CountMin   *a = countmin_detoast(PG_GETARG_DATUM(0));
	CountMin   *b = countmin_detoast(PG_GETARG_DATUM(1));
	CmsSketch	sa = countmin_sketch(a),
				sb = countmin_sketch(b);
	int64		out;

	countmin_check_compatible(&sa.p, &sb.p, "cms_inner_product");
	if (cms_inner_product(&sa, &sb, &out) == CMS_OVERFLOW)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("cms_inner_product: the estimate exceeds bigint")));
	PG_RETURN_INT64(out);
}

/*
 * cms_merge(a, b): the counter-wise sum (equal w, d and seed, else 22023;
 * 22003 when N would pass bigint): what cms_union_agg makes of a and b
 */
Datum
countmin_merge(PG_FUNCTION_ARGS)
{
	CountMin   *a = countmin_detoast(PG_GETARG_DATUM(0));
	CountMin   *b = countmin_detoast(PG_GETARG_DATUM(1));
	CountMin   *c = bf_copy_value(CurrentMemoryContext, a, VARSIZE(a), "copying a countmin value");
	CmsSketch	sc,
				sb = countmin_sketch(b);

	sc = countmin_sketch(c);
	countmin_check_compatible(&sc.p, &sb.p, "cms_merge");
	countmin_report(cms_merge(&sc, &sb), "cms_merge");
	c->total = sc.total;
	PG_RETURN_POINTER(c);
}

/*
 * cms_error(s): the additive error bound ceil(eps * N) with eps = e/w: every
 * estimate is at most this much above its count with probability >= 1 -
 * delta (delta = e^-d), so estimate - cms_error(s) is a lower bound with that
 * probability (the estimate itself is an upper bound, always)
 */
Datum
countmin_error(PG_FUNCTION_ARGS)
{
	CountMin   *c = header_only(fcinfo);

	PG_RETURN_INT64((int64) ceil(2.718281828459045 * (double) c->total / c->w));
}

/* same parameters and counters */
static bool
values_equal(FunctionCallInfo fcinfo)
{
	CountMin   *a = countmin_detoast(PG_GETARG_DATUM(0));
	CountMin   *b = countmin_detoast(PG_GETARG_DATUM(1));
	CmsSketch	sa = countmin_sketch(a),
				sb = countmin_sketch(b);

	return cms_equal(&sa, &sb);
}

Datum
countmin_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(values_equal(fcinfo));
}

Datum
countmin_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!values_equal(fcinfo));
}
