/*
 * bloomtree_ops.c
 *    Building trees, membership, filter-wise AND / OR, equality.
 *
 * Membership (@>, <@, bloomtree_contains) keeps in fn_extra the tree it last
 * decoded, identified by its size and digest, with only the levels queries
 * have reached so far decoded, and the key of the last element: a scan of
 * `t @> x` against one tree decodes each level of it at most once, a scan of
 * many trees against one element hashes the element once and decodes of each
 * tree only the levels its query reaches.  An out-of-line tree is fetched
 * from TOAST once per call site, not once per row.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/uuid.h"

#include "bloomtree.h"
#include "bs_elem.h"

PG_FUNCTION_INFO_V1(bloomtree_empty);
PG_FUNCTION_INFO_V1(bloomtree_add_int8);
PG_FUNCTION_INFO_V1(bloomtree_add_bytes);
PG_FUNCTION_INFO_V1(bloomtree_add_text);
PG_FUNCTION_INFO_V1(bloomtree_add_uuid);
PG_FUNCTION_INFO_V1(bloomtree_from_array);
PG_FUNCTION_INFO_V1(bloomtree_contains_int8);
PG_FUNCTION_INFO_V1(bloomtree_contains_bytes);
PG_FUNCTION_INFO_V1(bloomtree_contains_text);
PG_FUNCTION_INFO_V1(bloomtree_contains_uuid);
PG_FUNCTION_INFO_V1(bloomtree_contained_int8);
PG_FUNCTION_INFO_V1(bloomtree_contained_bytes);
PG_FUNCTION_INFO_V1(bloomtree_contained_text);
PG_FUNCTION_INFO_V1(bloomtree_contained_uuid);
PG_FUNCTION_INFO_V1(bloomtree_intersect);
PG_FUNCTION_INFO_V1(bloomtree_union);
PG_FUNCTION_INFO_V1(bloomtree_eq);
PG_FUNCTION_INFO_V1(bloomtree_ne);
PG_FUNCTION_INFO_V1(bloomtree_hash);

typedef struct TreeContainsCache
{
	BfDetoastCache toast;		/* last out-of-line tree, fetched once */
	BloomTreeDecoded dec;		/* the last tree, levels decoded on demand */
	bool		have_tree;
	int32		key_seed;		/* keys depend on the seed only */
	BsElemKeyCache key;			/* the last element's key */
} TreeContainsCache;

/* ---- building --------------------------------------------------------- */

Datum
bloomtree_empty(PG_FUNCTION_ARGS)
{
	BlTreeParams p = bloomtree_params_from_arrays(PG_GETARG_ARRAYTYPE_P(0),
												  PG_GETARG_ARRAYTYPE_P(1),
												  PG_GETARG_INT32(2), "bloomtree_empty");
	BlTreeLayout L;

	bltree_layout_init(&L, &p);
	PG_RETURN_BLOOMTREE(bloomtree_empty_value(&L));
}

/* a copy of tree argument 0 with the n elements e[0..n) added */
static Datum
add_elems(FunctionCallInfo fcinfo, const BsElem *e, int n)
{
	BloomTreeView v;
	BlTreeLayout L;
	uint8	   *bits;

	bloomtree_view_datum(PG_GETARG_DATUM(0), &v);
	bloomtree_memory_check(&v.L, 1, true, "bloomtree_add");
	bits = bloomtree_decode_datum(PG_GETARG_DATUM(0), &L);
	for (int i = 0; i < n; i++)
		bltree_insert(&L, bits, bs_elem_key(&L.hasher, &e[i]));
	PG_RETURN_BLOOMTREE(bloomtree_encode_value(&L, bits));
}

/* a copy of tree argument 0 with element e added */
static Datum
add_common(FunctionCallInfo fcinfo, BsElem e)
{
	return add_elems(fcinfo, &e, 1);
}

/*
 * The text overload (an untyped literal or parameter arrives as text): a
 * bloomtree records no element types, so a text is added under every
 * reading (the string, and the integer or uuid it is), as bloom_add does
 * for a filter that records none: a later probe of either type finds it.
 */
Datum
bloomtree_add_text(PG_FUNCTION_ARGS)
{
	BsElem		t,
				e[BS_ELEM_READINGS_MAX];
	BsTextReadings r;
	int			n;

	BS_ELEM_NULLS_RETURN();
	t = bs_elem_varlena(PG_GETARG_DATUM(1));
	n = bs_elem_text_untyped(&t, &r, e, NULL);
	return add_elems(fcinfo, e, n);
}

Datum
bloomtree_add_int8(PG_FUNCTION_ARGS)
{
	BS_ELEM_NULLS_RETURN();
	return add_common(fcinfo, bs_elem_int8(PG_GETARG_INT64(1)));
}

Datum
bloomtree_add_bytes(PG_FUNCTION_ARGS)
{
	BS_ELEM_NULLS_RETURN();
	return add_common(fcinfo, bs_elem_varlena(PG_GETARG_DATUM(1)));
}

Datum
bloomtree_add_uuid(PG_FUNCTION_ARGS)
{
	BS_ELEM_NULLS_RETURN();
	return add_common(fcinfo, bs_elem_uuid(PG_GETARG_DATUM(1)));
}

/* bloomtree_from_array(bigint[] | text[], m, k, seed); NULL elements are skipped */
Datum
bloomtree_from_array(PG_FUNCTION_ARGS)
{
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(0);
	BlTreeParams p = bloomtree_params_from_arrays(PG_GETARG_ARRAYTYPE_P(1),
												  PG_GETARG_ARRAYTYPE_P(2),
												  PG_GETARG_INT32(3), "bloomtree_from_array");
	Oid			elemtype = ARR_ELEMTYPE(arr);
	BlTreeLayout L;
	uint8	   *bits;
	ArrayIterator it;
	Datum		d;
	bool		isnull;
	uint32		count = 0;

	if (elemtype != INT8OID && elemtype != TEXTOID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("bloomtree_from_array does not accept %s arrays", format_type_be(elemtype)),
				 errhint("Pass a bigint[] or text[] array.")));
	bltree_layout_init(&L, &p);
	bloomtree_memory_check(&L, 1, true, "bloomtree_from_array");
	bits = bloomtree_alloc_bits(&L);
	it = array_create_iterator(arr, 0, NULL);
	while (array_iterate(it, &d, &isnull))
	{
		BsElem		e;

		if ((++count & 0x3FFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (isnull)
			continue;
		e = elemtype == INT8OID ? bs_elem_int8(DatumGetInt64(d)) : bs_elem_varlena(d);
		bltree_insert(&L, bits, bs_elem_key(&L.hasher, &e));
	}
	array_free_iterator(it);
	PG_RETURN_BLOOMTREE(bloomtree_encode_value(&L, bits));
}

/* ---- membership ------------------------------------------------------- */

static bool
contains_common(FunctionCallInfo fcinfo, Datum tree, BsElem e)
{
	TreeContainsCache *c = (TreeContainsCache *) fcinfo->flinfo->fn_extra;
	MemoryContext cxt = fcinfo->flinfo->fn_mcxt;
	BloomTreeView v;

	struct varlena *value;
	const BlTreeLayout *L;

	if (c == NULL)
		c = fcinfo->flinfo->fn_extra = MemoryContextAllocZero(cxt, sizeof(TreeContainsCache));
	value = bf_detoast_cached(tree, &c->toast, cxt);
	if (c->have_tree && bloomtree_same_value(value, &c->dec.view))
	{
		/* the same tree (digest and size): keep what is decoded; bloomtree_same_value
		 * pointed the view's streams into this copy for the levels still to decode */
	}
	else
	{
		c->have_tree = false;
		bloomtree_view(value, &v);
		bloomtree_decoded_init(&c->dec, &v, cxt);
		c->have_tree = true;
	}
	L = &c->dec.view.L;
	if (c->key_seed != L->p.seed)
	{
		c->key.valid = false;
		c->key_seed = L->p.seed;
	}
	return bltree_contains(L, c->dec.bits, bs_elem_key_cached(&c->key, &L->hasher, &e),
						   &c->dec.reader);
}

Datum
bloomtree_contains_int8(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains_common(fcinfo, PG_GETARG_DATUM(0), bs_elem_int8(PG_GETARG_INT64(1))));
}

Datum
bloomtree_contains_bytes(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains_common(fcinfo, PG_GETARG_DATUM(0), bs_elem_varlena(PG_GETARG_DATUM(1))));
}

Datum
bloomtree_contains_uuid(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains_common(fcinfo, PG_GETARG_DATUM(0), bs_elem_uuid(PG_GETARG_DATUM(1))));
}

Datum
bloomtree_contained_int8(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains_common(fcinfo, PG_GETARG_DATUM(1), bs_elem_int8(PG_GETARG_INT64(0))));
}

Datum
bloomtree_contained_bytes(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains_common(fcinfo, PG_GETARG_DATUM(1), bs_elem_varlena(PG_GETARG_DATUM(0))));
}

Datum
bloomtree_contained_uuid(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains_common(fcinfo, PG_GETARG_DATUM(1), bs_elem_uuid(PG_GETARG_DATUM(0))));
}

/* membership of a text element: a member when any of its readings is */
static bool
contains_text(FunctionCallInfo fcinfo, Datum tree, Datum text)
{
	BsElem		t = bs_elem_varlena(text);
	BsElem		e[BS_ELEM_READINGS_MAX];
	BsTextReadings r;
	int			n = bs_elem_text_untyped(&t, &r, e, NULL);

	for (int i = 0; i < n; i++)
		if (contains_common(fcinfo, tree, e[i]))
			return true;
	return false;
}

Datum
bloomtree_contains_text(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains_text(fcinfo, PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)));
}

Datum
bloomtree_contained_text(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains_text(fcinfo, PG_GETARG_DATUM(1), PG_GETARG_DATUM(0)));
}

/* ---- combining and comparing ------------------------------------------ */

/*
 * a & b: the filter-wise AND (section 4.6), then every bit whose child
 * filter became empty is cleared (bltree_prune): no element can pass such a
 * bit, so membership is that of the plain AND, the result codes smaller, and
 * its posterior is not 0.  a | b: the filter-wise OR.
 */
static Datum
combine_common(FunctionCallInfo fcinfo, bool is_and)
{
	BloomTreeView va,
				vb;
	BlTreeLayout L;
	uint8	   *a,
			   *b;

	bloomtree_view_datum(PG_GETARG_DATUM(0), &va);
	bloomtree_view_datum(PG_GETARG_DATUM(1), &vb);
	bloomtree_check_compatible(&va.L.p, &vb.L.p, is_and ? "bloomtree_intersect" : "bloomtree_union");
	bloomtree_memory_check(&va.L, 2, true, is_and ? "bloomtree_intersect" : "bloomtree_union");
	a = bloomtree_decode_datum(PG_GETARG_DATUM(0), &L);
	b = bloomtree_decode_datum(PG_GETARG_DATUM(1), &L);
	if (is_and)
	{
		bltree_and(&L, a, b);
		bltree_prune(&L, a);
	}
	else
		bltree_or(&L, a, b);
	pfree(b);
	PG_RETURN_BLOOMTREE(bloomtree_encode_value(&L, a));
}

Datum
bloomtree_intersect(PG_FUNCTION_ARGS)
{
	return combine_common(fcinfo, true);
}

Datum
bloomtree_union(PG_FUNCTION_ARGS)
{
	return combine_common(fcinfo, false);
}

/* equal trees have equal (canonical) codings: compare the bytes */
static bool
trees_equal(FunctionCallInfo fcinfo)
{
	struct varlena *a = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	struct varlena *b = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(1));
	BloomTreeView va,
				vb;

	bloomtree_view(a, &va);
	bloomtree_view(b, &vb);
	return va.size == vb.size && va.digest == vb.digest &&
		bf_equal_interruptible(VARDATA_ANY(a), VARDATA_ANY(b), va.size);
}

Datum
bloomtree_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(trees_equal(fcinfo));
}

Datum
bloomtree_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!trees_equal(fcinfo));
}

/* hash support for =: the digest covers the parameters and the coded bits */
Datum
bloomtree_hash(PG_FUNCTION_ARGS)
{
	BloomTreeView v;

	bloomtree_view_datum(PG_GETARG_DATUM(0), &v);
	PG_RETURN_UINT32((uint32) v.digest ^ (uint32) (v.digest >> 32));
}
