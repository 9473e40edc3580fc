/*
 * bloomfilter_ops.c
 *    Building filters, membership, AND/OR, equality and folding.
 *
 * Membership (@>, <@, bloom_contains) keeps the last element's key and the
 * hasher of the last parameter set in fn_extra: a scan of `f @> const` hashes
 * the constant once for the whole scan, not once per row, and reads each
 * filter in place (no detoast copy for short-header values); once the same
 * element comes twice in a row, it also keeps the element's k bits as byte
 * probes for the in-line dense values of the header just checked: a row of
 * that header and length is then tested by comparing 12 header bytes and
 * reading the probed bytes, no hashing or position arithmetic per row (the
 * per-row cost docs/planner.md measures); a sparse filter
 * is probed at the k positions in its encoding, never decoded, in one pass
 * over its high bits; a sparse value probed again (the same TOAST value in
 * the detoast cache: a join against one big filter) gets a select index once
 * and is then probed in constant time per position (docs/hashing.md, "Probe
 * speed of the stored forms"); a large dense one stored out of line
 * uncompressed is probed by reading only the bytes of its k bits.
 *
 * Every function reads both stored forms; new values leave through
 * PG_RETURN_BLOOMFILTER_P, which stores the smaller form.
 *
 * Element types (bs_elemtype.h): bloom_add records the type of what it adds;
 * a text element (the overload an untyped literal or parameter resolves to)
 * is read by the types the filter records: '4242' is 4242 in a filter of
 * integers.  The typed overloads never look at the types (their fast path is
 * unchanged); the text ones parse the text only when the filter may hold
 * integers or uuids, and keep the fast path when the reading is one.
 * A NULL element leaves bloom_add's filter unchanged; membership of NULL is
 * NULL.
 */
#include "postgres.h"

#include "access/detoast.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/uuid.h"

#include "bloomfilter.h"
#include "bs_elem.h"

PG_FUNCTION_INFO_V1(bloom_empty);
PG_FUNCTION_INFO_V1(bloom_add_int8);
PG_FUNCTION_INFO_V1(bloom_add_bytes);
PG_FUNCTION_INFO_V1(bloom_add_text);
PG_FUNCTION_INFO_V1(bloom_add_uuid);
PG_FUNCTION_INFO_V1(bloom_from_array);
PG_FUNCTION_INFO_V1(bloom_contains_int8);
PG_FUNCTION_INFO_V1(bloom_contains_bytes);
PG_FUNCTION_INFO_V1(bloom_contains_text);
PG_FUNCTION_INFO_V1(bloom_contains_uuid);
PG_FUNCTION_INFO_V1(bloom_contained_int8);
PG_FUNCTION_INFO_V1(bloom_contained_bytes);
PG_FUNCTION_INFO_V1(bloom_contained_text);
PG_FUNCTION_INFO_V1(bloom_contained_uuid);
PG_FUNCTION_INFO_V1(bloom_intersect);
PG_FUNCTION_INFO_V1(bloom_union);
PG_FUNCTION_INFO_V1(bloom_eq);
PG_FUNCTION_INFO_V1(bloom_ne);
PG_FUNCTION_INFO_V1(bloom_fold);
PG_FUNCTION_INFO_V1(bloomfilter_hash);

/*
 * The byte probes of one element in the in-line dense values of one header
 * (bytes 0-11: version, hash, k, flags, seed, m), for the per-row fast path:
 * a value whose header bytes and length equal these passes every check
 * bf_view_stored makes, so only its probes are left to test.
 */
typedef struct InlineProbes
{
	bool		valid;
	BsElemKeyCache elem;		/* the element (elem.elem) probed */
	uint8		header[BF_HEADER_BYTES];	/* a checked dense header */
	Size		len;			/* the payload bytes of such a value */
	int			n;				/* probes */
	uint32		off[BS_MAX_K];	/* byte offsets in the bits, ascending */
	uint8		mask[BS_MAX_K]; /* the element's bits in each byte */
} InlineProbes;

typedef struct ContainsCache
{
	bool		have_hasher;
	BsHasher	hasher;
	BfDetoastCache filter;		/* last TOASTed filter, detoasted once */
	BsElemKeyCache key;			/* the last element's key */
	bool		have_sliced;
	struct varatt_external sliced;	/* last filter probed by slices */
	InlineProbes inl;			/* the last in-line dense header and element */
	bool		have_readings;	/* readings of the text in readings_text */
	BsElemKeyCache readings_text;	/* (only its element: a text element) */
	BsTextReadings readings;
	/* the sparse value in `filter`, once probed: its select index when probed again */
	bool		sidx_seen;
	struct varatt_external sidx_ptr;	/* which cached value */
	uint64	   *sidx;			/* bs_sparse_index_build's samples (NULL: none) */
} ContainsCache;


/* ---- building --------------------------------------------------------- */

Datum
bloom_empty(PG_FUNCTION_ARGS)
{
	BsParams	p = bf_make_params(PG_GETARG_INT32(0), PG_GETARG_INT32(1),
								   PG_GETARG_INT32(2),
								   text_to_cstring(PG_GETARG_TEXT_PP(3)));

	PG_RETURN_BLOOMFILTER_P(bf_alloc_typed(&p));
}

/* a copy of the viewed filter with the n elements e added, all of type `elems` */
static Datum
add_view(const BloomView *v, const BsElem *e, int n, unsigned elems)
{
	BloomFilter *f = bf_copy_view(v);
	BsHasher	h;

	bs_hasher_init(&h, &v->p);
	for (int i = 0; i < n; i++)
		bs_key_set(&h, bs_elem_key(&h, &e[i]), f->bits);
	f->flags = bf_flags_add_elems(f->flags, elems);
	PG_RETURN_BLOOMFILTER_P(f);
}

/* a copy of filter argument 0 with element e (of type `elem`) added */
static Datum
add_common(FunctionCallInfo fcinfo, BsElem e, unsigned elem)
{
	BloomView	v;

	bf_view_datum_stored(PG_GETARG_DATUM(0), &v);
	return add_view(&v, &e, 1, elem);
}

Datum
bloom_add_int8(PG_FUNCTION_ARGS)
{
	BS_ELEM_NULLS_RETURN();
	return add_common(fcinfo, bs_elem_int8(PG_GETARG_INT64(1)), BS_ELEM_INT);
}

Datum
bloom_add_bytes(PG_FUNCTION_ARGS)
{
	BS_ELEM_NULLS_RETURN();
	return add_common(fcinfo, bs_elem_varlena(PG_GETARG_DATUM(1)), BS_ELEM_BYTES);
}

/*
 * bloom_add(f, text): the text read by the types f records (bs_elemtype.h):
 * an integer in a filter of integers, a uuid in one of uuids, a string
 * otherwise; in a filter recording no types, every reading (each type's
 * lookup then finds it)
 */
Datum
bloom_add_text(PG_FUNCTION_ARGS)
{
	BloomView	v;
	BsTextReadings rd;
	BsElem		t,
				e[BS_ELEM_READINGS_MAX];
	unsigned	used;
	int			n;

	BS_ELEM_NULLS_RETURN();
	bf_view_datum_stored(PG_GETARG_DATUM(0), &v);
	t = bs_elem_varlena(PG_GETARG_DATUM(1));
	used = bs_elem_text_used(&t, v.elems, &rd, e, &n);
	return add_view(&v, e, n, used);
}

Datum
bloom_add_uuid(PG_FUNCTION_ARGS)
{
	BS_ELEM_NULLS_RETURN();
	return add_common(fcinfo, bs_elem_uuid(PG_GETARG_DATUM(1)), BS_ELEM_UUID);
}

/* bloom_from_array(bigint[] | text[], m, k, seed, hash); NULL elements are skipped */
Datum
bloom_from_array(PG_FUNCTION_ARGS)
{
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(0);
	BsParams	p = bf_make_params(PG_GETARG_INT32(1), PG_GETARG_INT32(2),
								   PG_GETARG_INT32(3),
								   text_to_cstring(PG_GETARG_TEXT_PP(4)));
	Oid			elemtype = ARR_ELEMTYPE(arr);
	BloomFilter *f = bf_alloc_typed(&p);
	BsHasher	h;
	ArrayIterator it;
	Datum		d;
	bool		isnull;
	uint32		count = 0;

	if (elemtype != INT8OID && elemtype != TEXTOID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("bloom_from_array does not accept %s arrays",
						format_type_be(elemtype)),
				 errhint("Pass a bigint[] or text[] array.")));
	bs_hasher_init(&h, &p);
	it = array_create_iterator(arr, 0, NULL);
	while (array_iterate(it, &d, &isnull))
	{
		BsElem		e;

		if ((++count & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (isnull)
			continue;
		e = elemtype == INT8OID ? bs_elem_int8(DatumGetInt64(d)) : bs_elem_varlena(d);
		bs_key_set(&h, bs_elem_key(&h, &e), f->bits);
		/* a new filter holds no integers: its text elements are strings */
		f->flags = bf_flags_add_elems(f->flags, e.is_int ? BS_ELEM_INT : BS_ELEM_BYTES);
	}
	array_free_iterator(it);
	PG_RETURN_BLOOMFILTER_P(f);
}

/* ---- membership ------------------------------------------------------- */

/* the hasher of c for parameters p (kept while the parameters repeat) */
static void
cache_hasher(ContainsCache *c, const BsParams *p)
{
	if (!c->have_hasher || !bs_params_equal(&c->hasher.p, p))
	{
		bs_hasher_init(&c->hasher, p);
		c->have_hasher = true;
		c->key.valid = false;
	}
}

/*
 * Membership in a large dense filter stored out of line uncompressed, reading
 * only its header and the bytes of the element's k bits
 * (PG_DETOAST_DATUM_SLICE), not the whole value.  *done is false when the
 * filter is not such a value, or is the one probed last (a join probing one
 * filter with many elements: reading it whole once, into the detoast cache,
 * is cheaper), or its header does not check out (the whole read reports it):
 * the caller then reads it whole.
 */
static bool
contains_sliced(ContainsCache *c, Datum filter, const BsElem *e, bool *done)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(filter);
	struct varatt_external ext;
	struct varlena *head;
	const uint8 *d;
	BsParams	p;
	BsKey		key;
	uint32		pos[BS_MAX_K];

	*done = false;
	if (!VARATT_IS_EXTERNAL_ONDISK(raw))
		return false;
	VARATT_EXTERNAL_GET_POINTER(ext, raw);
	if (VARATT_EXTERNAL_IS_COMPRESSED(ext) || ext.va_rawsize - VARHDRSZ < BF_SLICE_MIN_BYTES)
		return false;
	if ((c->have_sliced && memcmp(&ext, &c->sliced, sizeof(ext)) == 0) ||
		(c->filter.valid && memcmp(&ext, &c->filter.ptr, sizeof(ext)) == 0))
		return false;
	c->sliced = ext;
	c->have_sliced = true;
	head = (struct varlena *) PG_DETOAST_DATUM_SLICE(filter, 0, BF_HEADER_BYTES);
	if (VARSIZE_ANY_EXHDR(head) != BF_HEADER_BYTES)
		return false;
	d = (const uint8 *) VARDATA_ANY(head);
	memcpy(&p.seed, d + 4, sizeof(p.seed));
	memcpy(&p.m, d + 8, sizeof(p.m));
	p.k = d[2];
	p.hash = d[1];
	if (d[0] != BS_SCHEME_VERSION || !bf_flags_valid(d[3]) || (d[3] & BF_FLAG_SPARSE) ||
		p.hash >= BS_NUM_HASH_FAMILIES ||
		p.k < BS_MIN_K || p.k > BS_MAX_K || p.m < BS_MIN_M || p.m > BS_MAX_M ||
		(Size) ext.va_rawsize - VARHDRSZ != BF_HEADER_BYTES + BF_NBYTES(p.m))
		return false;
	cache_hasher(c, &p);
	key = bs_elem_key_cached(&c->key, &c->hasher, e);
	bs_key_positions(&c->hasher, key, pos);
	for (int i = 0; i < p.k; i++)
	{
		struct varlena *byte = (struct varlena *)
			PG_DETOAST_DATUM_SLICE(filter, BF_HEADER_BYTES + pos[i] / 8, 1);

		if (VARSIZE_ANY_EXHDR(byte) != 1)
			return false;
		if (!((((const uint8 *) VARDATA_ANY(byte))[0] >> (pos[i] % 8)) & 1))
		{
			*done = true;
			return false;
		}
	}
	*done = true;
	return true;
}

/*
 * The fast path of the per-row membership test, for an in-line uncompressed
 * value (raw) with the header and length of the last in-line dense value
 * checked (c->inl) and the same element: *found, and true; else false (the
 * caller takes the general path, which reports a bad value).  `f @> const`
 * over a column of one parameter set takes it for every dense row: two
 * compares and the probes, no hashing, no arithmetic of positions.
 */
static pg_attribute_always_inline bool
contains_inline(const ContainsCache *c, const struct varlena *raw, const BsElem *e,
				bool *found)
{
	const uint8 *d;

	if (!c->inl.valid || VARATT_IS_EXTERNAL(raw) || VARATT_IS_COMPRESSED(raw) ||
		VARSIZE_ANY_EXHDR(raw) != c->inl.len || !bs_elem_equal(&c->inl.elem.elem, e))
		return false;
	d = (const uint8 *) VARDATA_ANY(raw);
	/* the probes' cache lines are fetched while the header is compared */
	for (int i = 0; i < c->inl.n; i++)
		__builtin_prefetch(d + BF_HEADER_BYTES + c->inl.off[i]);
	if (memcmp(d, c->inl.header, BF_HEADER_BYTES) != 0)
		return false;
	*found = bs_byte_probes_test(d + BF_HEADER_BYTES, c->inl.off, c->inl.mask, c->inl.n);
	return true;
}

/*
 * Keep the probes of c's current element (c->key, c->hasher) in the in-line
 * dense value raw, just checked by bf_view_stored, for contains_inline (true),
 * as the probes of the argument arg (the element itself, or the text it was
 * read from: the header, kept too, holds the types that decided the reading);
 * an element too long for the key cache is not kept (false).
 */
static bool
keep_inline_probes(ContainsCache *c, const struct varlena *raw, const BsElem *arg)
{
	InlineProbes *inl = &c->inl;

	if (VARATT_IS_EXTERNAL(raw) || VARATT_IS_COMPRESSED(raw) || !c->key.valid ||
		(!arg->is_int && arg->len > BS_ELEM_CACHE_BYTES))
		return false;
	inl->valid = false;
	inl->elem.valid = true;
	inl->elem.key = c->key.key;
	inl->elem.elem = *arg;
	if (!arg->is_int)
	{
		memcpy(inl->elem.bytes, arg->data, arg->len);
		inl->elem.elem.data = inl->elem.bytes;
	}
	memcpy(inl->header, VARDATA_ANY(raw), BF_HEADER_BYTES);
	inl->len = VARSIZE_ANY_EXHDR(raw);
	inl->n = bs_key_byte_probes(&c->hasher, c->key.key, inl->off, inl->mask);
	inl->valid = true;
	return true;
}

/* the membership cache of this call site, created on first use */
static ContainsCache *
contains_cache(FunctionCallInfo fcinfo)
{
	if (fcinfo->flinfo->fn_extra == NULL)
		fcinfo->flinfo->fn_extra =
			MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(ContainsCache));
	return (ContainsCache *) fcinfo->flinfo->fn_extra;
}

/*
 * The k positions in the sparse value held by c's detoast cache: the first
 * probe of a value in one pass over it; a second probe of the same value
 * builds its select index (an eighth of its bytes, in cxt) and every probe
 * from then on reads a few words per position.  The index belongs to the
 * TOAST pointer it was built for (TOAST values are immutable).
 */
static bool
sparse_test_cached(ContainsCache *c, const BsSparse *sp, const uint32 *pos, int k,
				   MemoryContext cxt)
{
	if (!c->sidx_seen || memcmp(&c->sidx_ptr, &c->filter.ptr, sizeof(c->sidx_ptr)) != 0)
	{
		if (c->sidx)
			pfree(c->sidx);
		c->sidx = NULL;
		c->sidx_ptr = c->filter.ptr;
		c->sidx_seen = true;
		return bs_sparse_test_all(sp, pos, k);
	}
	if (c->sidx == NULL)
	{
		c->sidx = MemoryContextAllocExtended(cxt, sizeof(uint64) *
											 (bs_sparse_index_entries(sp) + 1),
											 MCXT_ALLOC_HUGE);
		bs_sparse_index_build(sp, c->sidx);
	}
	return bs_sparse_test_indexed(sp, c->sidx, pos, k);
}

/*
 * The general path of membership of e: every stored form, every check.  arg
 * is the argument the fast path keeps the probes under (e itself, or the
 * text e was read from), NULL to keep none (one of two readings).
 */
static pg_noinline bool
contains_general(FunctionCallInfo fcinfo, Datum filter, BsElem e, const BsElem *arg)
{
	ContainsCache *c = contains_cache(fcinfo);
	struct varlena *value;
	BloomView	v;
	BsKey		key;
	uint32		pos[BS_MAX_K];
	bool		done,
				found,
				repeated;

	found = contains_sliced(c, filter, &e, &done);
	if (done)
		return found;
	value = bf_detoast_cached(filter, &c->filter, fcinfo->flinfo->fn_mcxt);
	bf_view_stored(value, &v);
	cache_hasher(c, &v.p);
	repeated = c->key.valid && bs_elem_equal(&c->key.elem, &e);
	key = bs_elem_key_cached(&c->key, &c->hasher, &e);
	if (!v.sparse)
	{
		/* an element seen twice in a row: the next rows may take the fast path */
		if (repeated && arg != NULL && value == (struct varlena *) DatumGetPointer(filter) &&
			keep_inline_probes(c, value, arg))
			return bs_byte_probes_test(v.bits, c->inl.off, c->inl.mask, c->inl.n);
		return bs_key_test(&c->hasher, key, v.bits);
	}
	bs_key_positions(&c->hasher, key, pos);
	if (c->filter.valid && value == c->filter.value)
		return sparse_test_cached(c, &v.sp, pos, v.p.k, fcinfo->flinfo->fn_mcxt);
	return bs_sparse_test_all(&v.sp, pos, v.p.k);
}

/* membership of e in filter: the fast path when it applies, else the general one */
static pg_attribute_always_inline bool
contains_common(FunctionCallInfo fcinfo, Datum filter, BsElem e)
{
	const ContainsCache *c = (const ContainsCache *) fcinfo->flinfo->fn_extra;
	bool		found;

	if (c != NULL && contains_inline(c, (struct varlena *) DatumGetPointer(filter), &e, &found))
		return found;
	return contains_general(fcinfo, filter, e, &e);
}

/*
 * The flags byte of a filter datum, from its header alone (a large value
 * stored out of line is not fetched whole; the one in the detoast cache is
 * read there); 0 for a value too short (the general path reports it).
 */
static uint8
filter_flags(ContainsCache *c, Datum filter)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(filter);
	struct varlena *head = raw;

	if (VARATT_IS_EXTERNAL_ONDISK(raw) && c->filter.valid)
	{
		struct varatt_external ext;

		VARATT_EXTERNAL_GET_POINTER(ext, raw);
		if (memcmp(&ext, &c->filter.ptr, sizeof(ext)) == 0)
			head = c->filter.value;
	}
	/* a short-header in-line value is read in place */
	if (VARATT_IS_EXTERNAL(head) || VARATT_IS_COMPRESSED(head))
		head = (struct varlena *) PG_DETOAST_DATUM_SLICE(filter, 0, BF_HEADER_BYTES);
	if (VARSIZE_ANY_EXHDR(head) < BF_HEADER_BYTES)
		return 0;
	return ((const uint8 *) VARDATA_ANY(head))[3];
}

/*
 * Membership of the text t (bs_elemtype.h): read by the types the filter
 * records; one reading takes the paths of a typed element (the fast path
 * keyed by t and the filter's header), two (a filter recording no types)
 * answer true when either is a member.
 */
static pg_attribute_always_inline bool
contains_text(FunctionCallInfo fcinfo, Datum filter, BsElem t)
{
	const ContainsCache *c = (const ContainsCache *) fcinfo->flinfo->fn_extra;
	BsTextReadings rd;
	BsElem		e[BS_ELEM_READINGS_MAX];
	int			n;
	bool		found;

	ContainsCache *cc;
	unsigned	recorded;

	if (c != NULL && contains_inline(c, (struct varlena *) DatumGetPointer(filter), &t, &found))
		return found;
	cc = contains_cache(fcinfo);
	recorded = bf_flags_elems(filter_flags(cc, filter));
	if (bs_text_needs_readings(recorded) && t.len <= BS_ELEM_CACHE_BYTES)
	{
		/* a scan probes one text in many rows: parse it once */
		if (!cc->have_readings || !bs_elem_equal(&cc->readings_text.elem, &t))
		{
			bs_text_readings((const char *) t.data, t.len, &cc->readings);
			memcpy(cc->readings_text.bytes, t.data, t.len);
			cc->readings_text.elem = bs_elem_bytes(cc->readings_text.bytes, t.len);
			cc->have_readings = true;
		}
		rd = cc->readings;
		(void) bs_elem_text_used_readings(&t, recorded, &rd, e, &n);
	}
	else
		(void) bs_elem_text_used(&t, recorded, &rd, e, &n);
	if (n == 1)
		return contains_general(fcinfo, filter, e[0], &t);
	for (int i = 0; i < n; i++)
		if (contains_general(fcinfo, filter, e[i], NULL))
			return true;
	return false;
}

Datum
bloom_contains_int8(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains_common(fcinfo, PG_GETARG_DATUM(0),
								   bs_elem_int8(PG_GETARG_INT64(1))));
}

Datum
bloom_contains_bytes(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains_common(fcinfo, PG_GETARG_DATUM(0),
								   bs_elem_varlena(PG_GETARG_DATUM(1))));
}

Datum
bloom_contains_text(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains_text(fcinfo, PG_GETARG_DATUM(0),
								 bs_elem_varlena(PG_GETARG_DATUM(1))));
}

Datum
bloom_contains_uuid(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains_common(fcinfo, PG_GETARG_DATUM(0),
								   bs_elem_uuid(PG_GETARG_DATUM(1))));
}

Datum
bloom_contained_int8(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains_common(fcinfo, PG_GETARG_DATUM(1),
								   bs_elem_int8(PG_GETARG_INT64(0))));
}

Datum
bloom_contained_bytes(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains_common(fcinfo, PG_GETARG_DATUM(1),
								   bs_elem_varlena(PG_GETARG_DATUM(0))));
}

Datum
bloom_contained_text(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains_text(fcinfo, PG_GETARG_DATUM(1),
								 bs_elem_varlena(PG_GETARG_DATUM(0))));
}

Datum
bloom_contained_uuid(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains_common(fcinfo, PG_GETARG_DATUM(1),
								   bs_elem_uuid(PG_GETARG_DATUM(0))));
}

/* ---- combining and comparing ------------------------------------------ */

/*
 * a AND / OR b where at least one side is sparse, without expanding a sparse
 * side to m bits: two sparse sides by merging their positions, a sparse and
 * a dense one for AND by testing the sparse positions in the dense bits
 * (the result is sparse-sized), for OR by setting the sparse positions in a
 * copy of the dense bits.
 */
static BloomFilter *
combine_sparse(const BloomView *a, const BloomView *b, bool is_and)
{
	uint8		elemflags = bf_flags_merge_elems(a->elemflags, b->elemflags);
	const BloomView *s = a->sparse ? a : b,
			   *d = a->sparse ? b : a;
	uint32	   *ps = bf_sparse_positions(s);
	uint32	   *out;
	size_t		n;

	if (a->sparse && b->sparse)
	{
		uint32	   *pd = bf_sparse_positions(d);

		out = bf_palloc_value(((uint64) s->sp.n + d->sp.n + 1) * sizeof(uint32), false,
							  "the positions of a bloomfilter value");
		n = is_and ? bs_pos_intersect(ps, s->sp.n, pd, d->sp.n, out)
			: bs_pos_union(ps, s->sp.n, pd, d->sp.n, out);
		return bf_make_datum_positions(&s->p, elemflags, out, (uint32) n);
	}
	if (is_and)
	{
		n = bs_pos_and_bits(ps, s->sp.n, d->bits, ps);
		return bf_make_datum_positions(&s->p, elemflags, ps, (uint32) n);
	}
	{
		BloomFilter *f = bf_copy_view(d);

		f->flags = elemflags;
		for (uint32 i = 0; i < s->sp.n; i++)
			bs_bit_set(f->bits, ps[i]);
		return bf_make_datum(f);
	}
}

static Datum
combine_common(FunctionCallInfo fcinfo, bool is_and)
{
	BloomView	a,
				b;
	BloomFilter *f;

	bf_view_datum_stored(PG_GETARG_DATUM(0), &a);
	bf_view_datum_stored(PG_GETARG_DATUM(1), &b);
	bf_check_compatible(&a.p, &b.p, is_and ? "bloom_intersect" : "bloom_union");
	if (a.sparse || b.sparse)
		PG_RETURN_POINTER(combine_sparse(&a, &b, is_and));
	f = bf_copy_view(&a);
	f->flags = bf_flags_merge_elems(a.elemflags, b.elemflags);
	if (is_and)
		bf_and_into(f->bits, &b);
	else
		bf_or_into(f->bits, &b);
	PG_RETURN_BLOOMFILTER_P(f);
}

Datum
bloom_intersect(PG_FUNCTION_ARGS)
{
	return combine_common(fcinfo, true);
}

Datum
bloom_union(PG_FUNCTION_ARGS)
{
	return combine_common(fcinfo, false);
}

/*
 * Equal parameters and equal bits, whatever the stored forms: two sparse
 * values are compared by their counts and encodings first (the encoder is
 * deterministic), anything else by the dense bits.
 */
static bool
filters_equal(FunctionCallInfo fcinfo)
{
	BloomView	a,
				b;
	struct varlena *va = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	struct varlena *vb = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(1));

	bf_view_stored(va, &a);
	bf_view_stored(vb, &b);
	if (!bs_params_equal(&a.p, &b.p))
		return false;
	if (a.sparse && b.sparse)
	{
		if (a.sp.n != b.sp.n)
			return false;
		if (VARSIZE_ANY_EXHDR(va) == VARSIZE_ANY_EXHDR(vb) &&
			memcmp(VARDATA_ANY(va), VARDATA_ANY(vb), VARSIZE_ANY_EXHDR(va)) == 0)
			return true;
	}
	bf_view(va, &a);
	bf_view(vb, &b);
	return bf_equal_interruptible(a.bits, b.bits, a.nwords * 8);
}

Datum
bloom_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(filters_equal(fcinfo));
}

Datum
bloom_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!filters_equal(fcinfo));
}

/*
 * hash support for =: parameters and the dense bits (of either stored form,
 * so equal filters hash equally), so GROUP BY / DISTINCT / hash joins work
 */
Datum
bloomfilter_hash(PG_FUNCTION_ARGS)
{
	BloomView	v;
	uint32		h;

	bf_view_datum(PG_GETARG_DATUM(0), &v);
	h = bf_hash_bytes_interruptible(v.bits, v.nwords * 8);
	h ^= DatumGetUInt32(hash_uint32(v.p.m ^ ((uint32) v.p.k << 24) ^
									((uint32) v.p.hash << 30)));
	PG_RETURN_UINT32(h ^ DatumGetUInt32(hash_uint32((uint32) v.p.seed)));
}

/*
 * bloom_fold(f, factor): the filter of m / factor bits that the same elements
 * would have built directly.  For 'xxh3' (positions by multiply-high) bit i
 * goes to i / factor; for 'linear' (positions mod m) to i mod (m / factor).
 */
Datum
bloom_fold(PG_FUNCTION_ARGS)
{
	int32		factor = PG_GETARG_INT32(1);
	BloomView	v;
	BsParams	np;
	BloomFilter *f;

	bf_view_datum(PG_GETARG_DATUM(0), &v);
	if (factor < 1 || v.p.m % (uint32) factor != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloom_fold factor must be a positive divisor of m = %u, not %d",
						v.p.m, factor)));
	if (v.p.m / (uint32) factor < BS_MIN_M)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloom_fold factor %d would leave m = %u bits", factor,
						v.p.m / (uint32) factor),
				 errdetail("A bloomfilter has at least %d bits.", BS_MIN_M)));
	np = v.p;
	np.m = v.p.m / (uint32) factor;
	f = bf_alloc(&np);
	f->flags = v.elemflags;
	bs_fold(f->bits, v.bits, v.p.m, (uint32) factor,
			v.p.hash == BS_HASH_LINEAR ? BS_FOLD_MOD : BS_FOLD_DIV);
	PG_RETURN_BLOOMFILTER_P(f);
}
