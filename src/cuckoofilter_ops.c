/*
 * cuckoofilter_ops.c
 *    SQL functions of the cuckoofilter type: building, adding and removing,
 *    membership, introspection, equality and hash.
 *
 * Membership keeps the hasher of the last seed, the last element's key and the
 * last TOASTed filter (detoasted) in fn_extra, so `cf @> const` over a scan
 * hashes the constant once and `big_cf @> x` fetches the filter once.
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "utils/builtins.h"

#include "bloomfilter.h"
#include "bs_elem.h"
#include "cuckoofilter.h"

PG_FUNCTION_INFO_V1(cuckoo_empty);
PG_FUNCTION_INFO_V1(cuckoo_add_int8);
PG_FUNCTION_INFO_V1(cuckoo_add_bytes);
PG_FUNCTION_INFO_V1(cuckoo_add_uuid);
PG_FUNCTION_INFO_V1(cuckoo_add_text);
PG_FUNCTION_INFO_V1(cuckoo_remove_int8);
PG_FUNCTION_INFO_V1(cuckoo_remove_bytes);
PG_FUNCTION_INFO_V1(cuckoo_remove_uuid);
PG_FUNCTION_INFO_V1(cuckoo_remove_text);
PG_FUNCTION_INFO_V1(cuckoo_contains_int8);
PG_FUNCTION_INFO_V1(cuckoo_contains_bytes);
PG_FUNCTION_INFO_V1(cuckoo_contains_uuid);
PG_FUNCTION_INFO_V1(cuckoo_contains_text);
PG_FUNCTION_INFO_V1(cuckoo_contained_int8);
PG_FUNCTION_INFO_V1(cuckoo_contained_bytes);
PG_FUNCTION_INFO_V1(cuckoo_contained_uuid);
PG_FUNCTION_INFO_V1(cuckoo_contained_text);
PG_FUNCTION_INFO_V1(cuckoo_count);
PG_FUNCTION_INFO_V1(cuckoo_load);
PG_FUNCTION_INFO_V1(cuckoo_fp_rate);
PG_FUNCTION_INFO_V1(cuckoo_capacity);
PG_FUNCTION_INFO_V1(cuckoo_eq);
PG_FUNCTION_INFO_V1(cuckoo_ne);
PG_FUNCTION_INFO_V1(cuckoofilter_hash);

typedef struct CuckooLookupCache
{
	bool		have_hasher;
	BsHasher	hasher;
	BfDetoastCache filter;		/* last TOASTed filter, detoasted once */
	BsElemKeyCache key;
} CuckooLookupCache;

Datum
cuckoo_empty(PG_FUNCTION_ARGS)
{
	CkParams	p = cuckoo_make_params(PG_GETARG_INT64(0), PG_GETARG_FLOAT8(1),
									PG_GETARG_INT32(2));

	PG_RETURN_POINTER(cuckoo_alloc(&p));
}

/* a copy of filter argument 0 with element e added or removed */
static Datum
update_common(FunctionCallInfo fcinfo, BsElem e, bool add)
{
	CuckooView	v;
	CuckooFilter *cf;
	CkTable		t;
	BsHasher	h;
	CkKey		key;

	cuckoo_view_datum(PG_GETARG_DATUM(0), &v);
	cf = cuckoo_copy_view(&v);
	cuckoo_table(cf, &t);
	ck_hasher_init(&h, v.p.seed);
	key = ck_key(&v.p, bs_elem_key(&h, &e));
	if (add)
	{
		if (!ck_insert(&t, key))
			cuckoo_report_full(&t, "cuckoo_add");
	}
	else if (!ck_remove(&t, key))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cuckoo_remove: the element is not in the cuckoofilter"),
				 errdetail("Neither of its two buckets holds its fingerprint."),
				 errhint("Remove only elements that were added; test with cuckoo_contains first.")));
	cf->count = (uint32) t.count;
	PG_RETURN_POINTER(cf);
}

Datum
cuckoo_add_int8(PG_FUNCTION_ARGS)
{
	BS_ELEM_NULLS_RETURN();
	return update_common(fcinfo, bs_elem_int8(PG_GETARG_INT64(1)), true);
}

Datum
cuckoo_add_bytes(PG_FUNCTION_ARGS)
{
	BS_ELEM_NULLS_RETURN();
	return update_common(fcinfo, bs_elem_varlena(PG_GETARG_DATUM(1)), true);
}

Datum
cuckoo_add_uuid(PG_FUNCTION_ARGS)
{
	BS_ELEM_NULLS_RETURN();
	return update_common(fcinfo, bs_elem_uuid(PG_GETARG_DATUM(1)), true);
}

/*
 * The text overloads (an untyped literal or parameter arrives as text): a
 * cuckoofilter records no element types, so a text that is also an integer
 * or a uuid is error 42P18 naming the cast (adding or removing must choose
 * one fingerprint); any other text is the string.
 */
static Datum
update_text(FunctionCallInfo fcinfo, bool add)
{
	BsElem		t = bs_elem_varlena(PG_GETARG_DATUM(1));
	BsElem		e[BS_ELEM_READINGS_MAX];
	BsTextReadings r;

	bs_elem_text_untyped(&t, &r, e, add ? "cuckoo_add" : "cuckoo_remove");
	return update_common(fcinfo, e[0], add);
}

Datum
cuckoo_add_text(PG_FUNCTION_ARGS)
{
	BS_ELEM_NULLS_RETURN();
	return update_text(fcinfo, true);
}

Datum
cuckoo_remove_text(PG_FUNCTION_ARGS)
{
	BS_ELEM_NULLS_RETURN();
	return update_text(fcinfo, false);
}

Datum
cuckoo_remove_int8(PG_FUNCTION_ARGS)
{
	BS_ELEM_NULLS_RETURN();
	return update_common(fcinfo, bs_elem_int8(PG_GETARG_INT64(1)), false);
}

Datum
cuckoo_remove_bytes(PG_FUNCTION_ARGS)
{
	BS_ELEM_NULLS_RETURN();
	return update_common(fcinfo, bs_elem_varlena(PG_GETARG_DATUM(1)), false);
}

Datum
cuckoo_remove_uuid(PG_FUNCTION_ARGS)
{
	BS_ELEM_NULLS_RETURN();
	return update_common(fcinfo, bs_elem_uuid(PG_GETARG_DATUM(1)), false);
}

static bool
contains_common(FunctionCallInfo fcinfo, Datum filter, BsElem e)
{
	CuckooLookupCache *c = (CuckooLookupCache *) fcinfo->flinfo->fn_extra;
	CuckooView	v;
	CkTable		t;

	if (c == NULL)
		c = fcinfo->flinfo->fn_extra =
			MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(CuckooLookupCache));
	cuckoo_view(bf_detoast_cached(filter, &c->filter, fcinfo->flinfo->fn_mcxt), &v);
	if (!c->have_hasher || c->hasher.p.seed != v.p.seed)
	{
		ck_hasher_init(&c->hasher, v.p.seed);
		c->have_hasher = true;
		c->key.valid = false;
	}
	/* a read-only table: ck_contains does not write */
	ck_table_init(&t, &v.p, (uint8 *) v.table, v.count);
	return ck_contains(&t, ck_key(&v.p, bs_elem_key_cached(&c->key, &c->hasher, &e)));
}

Datum
cuckoo_contains_int8(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains_common(fcinfo, PG_GETARG_DATUM(0),
								   bs_elem_int8(PG_GETARG_INT64(1))));
}

Datum
cuckoo_contains_bytes(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains_common(fcinfo, PG_GETARG_DATUM(0),
								   bs_elem_varlena(PG_GETARG_DATUM(1))));
}

Datum
cuckoo_contains_uuid(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains_common(fcinfo, PG_GETARG_DATUM(0),
								   bs_elem_uuid(PG_GETARG_DATUM(1))));
}

Datum
cuckoo_contained_int8(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains_common(fcinfo, PG_GETARG_DATUM(1),
								   bs_elem_int8(PG_GETARG_INT64(0))));
}

Datum
cuckoo_contained_bytes(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains_common(fcinfo, PG_GETARG_DATUM(1),
								   bs_elem_varlena(PG_GETARG_DATUM(0))));
}

Datum
cuckoo_contained_uuid(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains_common(fcinfo, PG_GETARG_DATUM(1),
								   bs_elem_uuid(PG_GETARG_DATUM(0))));
}

/*
 * membership of a text element: every way it parses (the string, and the
 * integer or the uuid it is), a member when any reading is (no false
 * negative whichever type it was added as)
 */
static bool
contains_text(FunctionCallInfo fcinfo, Datum filter, Datum text)
{
	BsElem		t = bs_elem_varlena(text);
	BsElem		e[BS_ELEM_READINGS_MAX];
	BsTextReadings r;
	int			n = bs_elem_text_untyped(&t, &r, e, NULL);

	for (int i = 0; i < n; i++)
		if (contains_common(fcinfo, filter, e[i]))
			return true;
	return false;
}

Datum
cuckoo_contains_text(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains_text(fcinfo, PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)));
}

Datum
cuckoo_contained_text(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains_text(fcinfo, PG_GETARG_DATUM(1), PG_GETARG_DATUM(0)));
}

/* ---- introspection ---------------------------------------------------- */

Datum
cuckoo_count(PG_FUNCTION_ARGS)
{
	CuckooView	v;

	cuckoo_view_datum(PG_GETARG_DATUM(0), &v);
	PG_RETURN_INT64((int64) v.count);
}

Datum
cuckoo_load(PG_FUNCTION_ARGS)
{
	CuckooView	v;

	cuckoo_view_datum(PG_GETARG_DATUM(0), &v);
	PG_RETURN_FLOAT8((double) v.count / (double) (ck_buckets(&v.p) * CK_SLOTS));
}

/* expected false-positive rate at the current load (cuckoo.h) */
Datum
cuckoo_fp_rate(PG_FUNCTION_ARGS)
{
	CuckooView	v;

	cuckoo_view_datum(PG_GETARG_DATUM(0), &v);
	PG_RETURN_FLOAT8(ck_expected_fp(&v.p, (double) v.count /
									(double) (ck_buckets(&v.p) * CK_SLOTS)));
}

/* slots: buckets * 4, the most items the table can hold */
Datum
cuckoo_capacity(PG_FUNCTION_ARGS)
{
	CuckooView	v;

	cuckoo_view_datum(PG_GETARG_DATUM(0), &v);
	PG_RETURN_INT64((int64) (ck_buckets(&v.p) * CK_SLOTS));
}

/* ---- equality and hash ------------------------------------------------ */

static bool
cuckoo_equal(FunctionCallInfo fcinfo)
{
	CuckooView	a,
				b;

	cuckoo_view_datum(PG_GETARG_DATUM(0), &a);
	cuckoo_view_datum(PG_GETARG_DATUM(1), &b);
	return ck_params_equal(&a.p, &b.p) && a.count == b.count &&
		bf_equal_interruptible(a.table, b.table, ck_table_bytes(&a.p));
}

Datum
cuckoo_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(cuckoo_equal(fcinfo));
}

Datum
cuckoo_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!cuckoo_equal(fcinfo));
}

Datum
cuckoofilter_hash(PG_FUNCTION_ARGS)
{
	CuckooView	v;
	uint32		h;

	cuckoo_view_datum(PG_GETARG_DATUM(0), &v);
	h = bf_hash_bytes_interruptible(v.table, ck_table_bytes(&v.p));
	h ^= DatumGetUInt32(hash_uint32(((uint32) v.p.fp_bits << 8) | v.p.log2_buckets));
	if (!ck_pow2_layout(&v.p))	/* version 1 values keep their hash */
		h ^= DatumGetUInt32(hash_uint32(v.p.buckets));
	PG_RETURN_UINT32(h ^ DatumGetUInt32(hash_uint32((uint32) v.p.seed)));
}
