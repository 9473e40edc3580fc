/*
 * bloomfilter_util.c
 *    Parameter validation, value views and element hashing shared by every
 *    SQL-callable function of bloomsample.
 */
#include "postgres.h"

#include "access/detoast.h"
#include "port/pg_bswap.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/uuid.h"

#include "bloomfilter.h"
#include "bs_elem.h"

/* bloomsample.filter_storage: the stored form of new values */
typedef enum BfStorage
{
	BF_STORAGE_AUTO,			/* the smaller of dense and sparse */
	BF_STORAGE_DENSE			/* always dense: the form 1.1 reads */
} BfStorage;

static int	bf_storage = BF_STORAGE_AUTO;

static const struct config_enum_entry storage_options[] = {
	{"auto", BF_STORAGE_AUTO, false},
	{"dense", BF_STORAGE_DENSE, false},
	{NULL, 0, false}
};

/* bf_init_gucs: define the type's settings, from _PG_init */
void
bf_init_gucs(void)
{
	DefineCustomEnumVariable("bloomsample.filter_storage",
							 "Stored form of new bloomfilter values: auto (the smaller of dense bits and sparse positions) or dense (the only form bloomsample 1.1 reads).",
							 NULL, &bf_storage, BF_STORAGE_AUTO, storage_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);
}

/* the header of filter f: varlena size, parameters p, stored form flags */
static void
set_header(BloomFilter *f, Size size, const BsParams *p, uint8 flags)
{
	SET_VARSIZE(f, size);
	f->version = BS_SCHEME_VERSION;
	f->hash = p->hash;
	f->k = p->k;
	f->flags = flags;
	f->seed = p->seed;
	f->m = p->m;
}

/* a filter with these parameters, its bits zeroed only when `zero` */
static BloomFilter *
alloc_filter(const BsParams *p, bool zero)
{
	Size		size = BF_VARSIZE(p->m);
	BloomFilter *f = (BloomFilter *) bf_palloc_value(size, zero, "a bloomfilter value");

	if (!zero)
		memset(f, 0, offsetof(BloomFilter, bits));
	set_header(f, size, p, BF_FLAGS_NONE);
	return f;
}

/*
 * bf_alloc: a zeroed filter with the given (already validated) parameters,
 * in the current memory context (within bloomsample.max_value_memory),
 * recording no element types (it may hold any: the input forms' values).
 */
BloomFilter *
bf_alloc(const BsParams *p)
{
	return alloc_filter(p, true);
}

/*
 * bf_alloc_typed: bf_alloc for a new empty filter that records the types of
 * the elements added to it (bloom_empty, the aggregates, bloom_from_array)
 */
BloomFilter *
bf_alloc_typed(const BsParams *p)
{
	BloomFilter *f = alloc_filter(p, true);

	f->flags = BF_FLAG_TYPED;
	return f;
}

static void
corrupted_sparse(BsSparseError e, const BsParams *p)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("bloomfilter value is corrupted"),
			 errdetail("In a sparse filter %s: %s.", bf_params_string(p),
					   bs_sparse_error_string(e))));
}

/*
 * bf_copy_view: a freshly allocated dense filter equal to the viewed one (a
 * sparse value of bf_view_stored is decoded straight into it)
 */
BloomFilter *
bf_copy_view(const BloomView *v)
{
	BloomFilter *f = alloc_filter(&v->p, v->bits == NULL);

	f->flags = v->elemflags;
	if (v->bits)
		bf_copy_interruptible(f->bits, v->bits, v->nwords * 8);
	else
	{
		BsSparseError e = bs_sparse_decode(&v->sp, f->bits);

		if (e != BS_SPARSE_OK)
			corrupted_sparse(e, &v->p);
	}
	return f;
}

/*
 * bf_sparse_pays: whether a filter of m bits whose sparse form takes
 * sparse_bytes is stored sparse.  The smaller form, except that a dense form
 * of BF_SLICE_MIN_BYTES or more is kept when the sparse one would take more
 * than 0.527 of it, i.e. above about 10.05% full (at l = 3 the sparse form
 * takes 4 * fill + 1/8 of the dense one).  pglz (the default TOAST
 * compression) needs a 25% saving, which random bits give up to 10.00% full
 * and no longer from 10.06%: above, a dense value is stored out of line
 * uncompressed and a row's probe fetches only the TOAST slices of its k bits
 * (12-20 us at m = 2,000,000), where the sparse value (over half its size)
 * is fetched whole (45-110 us).  Below, the dense value is compressed, every
 * probe decompresses it whole (400-1300 us), and the sparse one wins by far.
 * test/bench/16_form_probe.sh measures the curve (docs/hashing.md, "Probe
 * speed of the stored forms").
 */
bool
bf_sparse_pays(uint32 m, size_t sparse_bytes)
{
	size_t		dense = BF_NBYTES(m);

	if (sparse_bytes >= dense)
		return false;
	if (dense >= BF_SLICE_MIN_BYTES && sparse_bytes * 1000 > dense * 527)
		return false;
	return true;
}

/*
 * bf_make_datum: the value to store for the dense filter f (a 4-byte-header
 * varlena of either form): f itself when the dense form is not larger, else
 * a new sparse value (bf_sparse_pays).  f is left untouched (an aggregate's final function may
 * return its state more than once).  Every function that returns a new
 * filter goes through here (PG_RETURN_BLOOMFILTER_P), so the form of a
 * stored value is always the smaller one for its contents (or dense, under
 * bloomsample.filter_storage = dense, which also writes no element types:
 * the flags byte of 1.1, 0, as it does not change what any lookup answers,
 * bs_elemtype.h; f's own types are cleared then).
 */
BloomFilter *
bf_make_datum(BloomFilter *f)
{
	uint64		n;
	size_t		size;
	BloomFilter *s;

	if (f->flags & BF_FLAG_SPARSE)
		return f;
	if (bf_storage == BF_STORAGE_DENSE)
	{
		f->flags = BF_FLAGS_NONE;
		return f;
	}
	n = bs_popcount(f->bits, bs_words_for_bits(f->m));
	size = bs_sparse_size(f->m, n);
	if (!bf_sparse_pays(f->m, size))
		return f;
	s = (BloomFilter *) palloc(offsetof(BloomFilter, bits) + size);
	memcpy(s, f, offsetof(BloomFilter, bits));
	SET_VARSIZE(s, offsetof(BloomFilter, bits) + size);
	s->flags = BF_FLAG_SPARSE | (f->flags & BF_FLAGS_ELEMS);
	bs_sparse_encode_bits(f->bits, f->m, (uint32) n, s->bits);
	return s;
}

/*
 * bf_make_datum_positions: the value to store for the filter of parameters p
 * and element-type bits elemflags whose set bits are pos[0..n) (strictly
 * increasing, below p->m), in the form bf_make_datum would choose for it,
 * built from the positions (a sparse result is encoded from them without an
 * m-bit array).
 */
BloomFilter *
bf_make_datum_positions(const BsParams *p, uint8 elemflags, const uint32 *pos, uint32 n)
{
	size_t		size = bs_sparse_size(p->m, n);
	BloomFilter *f;

	if (bf_storage == BF_STORAGE_DENSE || !bf_sparse_pays(p->m, size))
	{
		f = alloc_filter(p, true);
		f->flags = bf_storage == BF_STORAGE_DENSE ? BF_FLAGS_NONE : elemflags;
		for (uint32 i = 0; i < n; i++)
			bs_bit_set(f->bits, pos[i]);
		return f;
	}
	f = (BloomFilter *) bf_palloc_value(offsetof(BloomFilter, bits) + size, false,
										"a bloomfilter value");
	memset(f, 0, offsetof(BloomFilter, bits));
	set_header(f, offsetof(BloomFilter, bits) + size, p,
			   BF_FLAG_SPARSE | (elemflags & BF_FLAGS_ELEMS));
	bs_sparse_encode_positions(pos, n, p->m, f->bits);
	return f;
}

/*
 * bf_sparse_positions_into: the positions of the sparse view v
 * (bf_view_stored), ascending, into out (room for v->sp.n of them), fully
 * checked: a corrupted encoding is an error.
 */
void
bf_sparse_positions_into(const BloomView *v, uint32 *out)
{
	BsSparseError e;

	Assert(v->sparse);
	e = bs_sparse_decode_positions(&v->sp, out, NULL);
	if (e != BS_SPARSE_OK)
		corrupted_sparse(e, &v->p);
}

/*
 * bf_sparse_positions: bf_sparse_positions_into a palloc'd array (v->sp.n
 * entries, at least one slot)
 */
uint32 *
bf_sparse_positions(const BloomView *v)
{
	uint32	   *pos;

	Assert(v->sparse);
	pos = bf_palloc_value((uint64) Max(v->sp.n, 1) * sizeof(uint32), false,
						  "the positions of a bloomfilter value");
	bf_sparse_positions_into(v, pos);
	return pos;
}

/*
 * bf_view_stored: parse the header of a bloomfilter varlena (any header
 * form, either stored form) into *v, checking that it is internally
 * consistent; a sparse value is opened (its lengths checked) but not decoded:
 * v->bits is NULL and v->sp reads it.  Values only get into the database
 * through the validating input functions, so a failure here means on-disk
 * corruption or a value from a newer scheme.
 */
void
bf_view_stored(struct varlena *value, BloomView *v)
{
	const uint8 *d = (const uint8 *) VARDATA_ANY(value);
	Size		len = VARSIZE_ANY_EXHDR(value);
	uint32		m;
	int32		seed;
	uint8		flags;

	if (len < BF_HEADER_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("bloomfilter value is too short (%zu bytes)", len)));
	if (d[0] != BS_SCHEME_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("bloomfilter hashing scheme version %d is not supported", d[0]),
				 errdetail("This build of bloomsample reads scheme version %d.",
						   BS_SCHEME_VERSION)));
	memcpy(&seed, d + 4, sizeof(seed));
	memcpy(&m, d + 8, sizeof(m));
	flags = d[3];
	if (d[1] >= BS_NUM_HASH_FAMILIES || d[2] < BS_MIN_K || d[2] > BS_MAX_K ||
		m < BS_MIN_M || m > BS_MAX_M ||
		(!(flags & BF_FLAG_SPARSE) && len != BF_HEADER_BYTES + BF_NBYTES(m)))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("bloomfilter value is corrupted"),
				 errdetail("Header says hash=%d, k=%d, m=%u for a %zu-byte payload.",
						   d[1], d[2], m, len)));
	if (!bf_flags_valid(flags))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("bloomfilter value is corrupted"),
				 errdetail("The flags byte is %d (bit 0 the sparse form, bit 1 element types recorded, bits 2-4 the types).",
						   flags)));
	v->p.m = m;
	v->p.k = d[2];
	v->p.hash = d[1];
	v->p.seed = seed;
	v->nwords = bs_words_for_bits(m);
	v->owned = NULL;
	v->sparse = (flags & BF_FLAG_SPARSE) != 0;
	v->elemflags = flags & BF_FLAGS_ELEMS;
	v->elems = bf_flags_elems(flags);
	if (v->sparse)
	{
		BsSparseError e = bs_sparse_open(d + BF_HEADER_BYTES, len - BF_HEADER_BYTES, m, &v->sp);

		if (e != BS_SPARSE_OK)
			corrupted_sparse(e, &v->p);
		v->bits = NULL;
	}
	else
		v->bits = d + BF_HEADER_BYTES;
}

/*
 * bf_view: bf_view_stored, and the dense bits of a sparse value decoded
 * (and fully checked) into a buffer of the current memory context that
 * v->owned holds until bf_view_release: v->bits are always the dense bits.
 */
void
bf_view(struct varlena *value, BloomView *v)
{
	bf_view_stored(value, v);
	if (v->sparse)
	{
		BsSparseError e;

		v->owned = bf_palloc_value(v->nwords * 8, true, "a decoded bloomfilter value");
		e = bs_sparse_decode(&v->sp, v->owned);
		if (e != BS_SPARSE_OK)
			corrupted_sparse(e, &v->p);
		v->bits = v->owned;
	}
}

/* bf_view_release: free the bits bf_view decoded (none for a dense value) */
void
bf_view_release(BloomView *v)
{
	if (v->owned)
		pfree(v->owned);
	v->owned = NULL;
	v->bits = NULL;
}

/*
 * bf_sparse_next: the next position of the sparse value v into *pos (false
 * at the end); a corrupted encoding is an error
 */
bool
bf_sparse_next(BsSparseIter *it, const BloomView *v, uint32 *pos)
{
	int			rc = bs_sparse_iter_next(it, pos);

	if (rc < 0)
		corrupted_sparse((BsSparseError) -rc, &v->p);
	return rc > 0;
}

/* bf_or_into: dst (v->nwords words of dense bits) |= the filter v, either form */
void
bf_or_into(uint8 *dst, const BloomView *v)
{
	BsSparseIter it;
	uint32		pos;

	if (v->bits)
	{
		bs_or(dst, v->bits, v->nwords);
		return;
	}
	bs_sparse_iter_init(&it, &v->sp);
	while (bf_sparse_next(&it, v, &pos))
		bs_bit_set(dst, pos);
}

/*
 * bf_and_into: dst (v->nwords words of dense bits) &= the filter v, either
 * form; a sparse v in one pass over its positions and dst's words
 */
void
bf_and_into(uint8 *dst, const BloomView *v)
{
	BsSparseIter it;
	uint32		pos = 0;
	bool		have;

	if (v->bits)
	{
		bs_and(dst, v->bits, v->nwords);
		return;
	}
	bs_sparse_iter_init(&it, &v->sp);
	have = bf_sparse_next(&it, v, &pos);
	for (size_t w = 0; w < v->nwords; w++)
	{
		uint64		mask = 0;

		while (have && pos / 64 == w)
		{
			mask |= UINT64CONST(1) << (pos % 64);
			have = bf_sparse_next(&it, v, &pos);
		}
#ifdef WORDS_BIGENDIAN
		mask = pg_bswap64(mask);
#endif
		bs_store64(dst + 8 * w, bs_load64(dst + 8 * w) & mask);
	}
}

/*
 * bf_dense_positions: the set positions of the dense view v (below its m),
 * ascending, into out (room for at most `most`); returns how many, checking
 * for interrupts every 64 kB of bits.
 */
uint64
bf_dense_positions(const BloomView *v, uint32 *out, uint64 most)
{
	uint64		i = 0;

	Assert(!v->sparse);
	for (size_t w = 0; w < v->nwords && i < most; w++)
	{
		uint64		x;

		memcpy(&x, v->bits + w * 8, 8);
		if ((w & 8191) == 8191)
			CHECK_FOR_INTERRUPTS();
		for (; x && i < most; x &= x - 1)
		{
			uint64		j = w * 64 + (uint64) __builtin_ctzll(x);

			if (j < v->p.m)
				out[i++] = (uint32) j;
		}
	}
	return i;
}

/* bf_view_popcount: the number of set bits, from either form without decoding */
uint64
bf_view_popcount(const BloomView *v)
{
	return v->sparse ? v->sp.n : bs_popcount(v->bits, v->nwords);
}

/*
 * detoast without copying short-header values.  Detoasting a large value
 * (PostgreSQL's, not interruptible) can take a while: a cancel that arrived
 * meanwhile is honoured before the next one.
 */
static struct varlena *
detoast_checked(Datum d)
{
	struct varlena *value = PG_DETOAST_DATUM_PACKED(d);

	if ((Pointer) value != DatumGetPointer(d))
		CHECK_FOR_INTERRUPTS();
	return value;
}

/* bf_view_datum: detoast (without copying short-header values) and view */
void
bf_view_datum(Datum d, BloomView *v)
{
	bf_view(detoast_checked(d), v);
}

/* bf_view_datum_stored: detoast as bf_view_datum and view without decoding */
void
bf_view_datum_stored(Datum d, BloomView *v)
{
	bf_view_stored(detoast_checked(d), v);
}

/*
 * bf_view_datum_positions: bf_view_datum, and for a sparse value also its
 * set positions, ascending, into *pos (v->sp.n of them, palloc'd; NULL for a
 * dense value), both from one pass over the encoding (fully checked).  For
 * the readers that want the positions and the bits (BloomSampleTree's
 * samplers).
 */
void
bf_view_datum_positions(Datum d, BloomView *v, uint32 **pos)
{
	BsSparseError e;

	bf_view_stored(detoast_checked(d), v);
	*pos = NULL;
	if (!v->sparse)
		return;
	bf_value_memory_check(v->nwords * 8 + (uint64) v->sp.n * sizeof(uint32),
						  "a decoded bloomfilter value");
	v->owned = bf_palloc_value(v->nwords * 8, true, "a decoded bloomfilter value");
	*pos = palloc(Max(v->sp.n, 1) * sizeof(uint32));
	e = bs_sparse_decode_positions(&v->sp, *pos, v->owned);
	if (e != BS_SPARSE_OK)
		corrupted_sparse(e, &v->p);
	v->bits = v->owned;
}

/*
 * bf_detoast_cached: the datum as a readable varlena (short-header values are
 * not copied); an on-disk TOAST pointer equal to the cached one reuses the
 * cached detoasted value instead of fetching it again, a new pointer replaces
 * the cache (allocated in cxt, which must live as long as the cache, e.g.
 * fn_mcxt).  TOAST values are immutable, so the pointer identifies the value
 * for the lifetime of the query.  Used for bloomfilter and bloomtree values.
 */
struct varlena *
bf_detoast_cached(Datum d, BfDetoastCache *cache, MemoryContext cxt)
{
	struct varlena *p = (struct varlena *) DatumGetPointer(d);
	struct varatt_external ptr;

	if (!VARATT_IS_EXTERNAL_ONDISK(p))
		return PG_DETOAST_DATUM_PACKED(d);
	VARATT_EXTERNAL_GET_POINTER(ptr, p);
	if (!cache->valid || memcmp(&ptr, &cache->ptr, sizeof(ptr)) != 0)
	{
		MemoryContext old = MemoryContextSwitchTo(cxt);

		if (cache->value)
			pfree(cache->value);
		cache->valid = false;
		cache->value = detoast_attr(p);
		cache->ptr = ptr;
		cache->valid = true;
		MemoryContextSwitchTo(old);
	}
	return cache->value;
}

/*
 * bf_view_arg_cached: argument n viewed into *v through ac's detoast cache;
 * a sparse value held in the cache (stored out of line, so the same value
 * row after row) is decoded to its bits once and viewed dense: pair counts
 * and && then test each row's positions in them instead of merging the
 * row's with the query's (a query of 55,293 set bits against 49,549 rows:
 * minutes merged).  The bits, in fn_mcxt, count against max_value_memory;
 * their popcount is kept beside them (ac->popcount).
 */
void
bf_view_arg_cached(FunctionCallInfo fcinfo, int n, BfArgCache *ac, BloomView *v)
{
	MemoryContext cxt = fcinfo->flinfo->fn_mcxt;
	struct varlena *value = bf_detoast_cached(PG_GETARG_DATUM(n), &ac->cache, cxt);

	bf_view_stored(value, v);
	if (!v->sparse || !ac->cache.valid || value != ac->cache.value)
		return;
	if (!ac->have_bits || memcmp(&ac->bits_of, &ac->cache.ptr, sizeof(ac->bits_of)) != 0)
	{
		uint32	   *pos = bf_sparse_positions(v);

		if (ac->bits)
			pfree(ac->bits);
		ac->bits = NULL;
		ac->have_bits = false;
		bf_value_memory_check(BF_NBYTES(v->p.m), "the bits of a bloomfilter value");
		ac->bits = MemoryContextAllocExtended(cxt, BF_NBYTES(v->p.m),
											  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
		for (uint32 i = 0; i < v->sp.n; i++)
			bs_bit_set(ac->bits, pos[i]);
		pfree(pos);
		ac->popcount = bs_popcount(ac->bits, bs_words_for_bits(v->p.m));
		ac->bits_of = ac->cache.ptr;
		ac->have_bits = true;
	}
	v->sparse = false;
	v->bits = ac->bits;
	v->nwords = bs_words_for_bits(v->p.m);
}

/* bf_view_datum_cached: bf_view_datum through bf_detoast_cached */
void
bf_view_datum_cached(Datum d, BloomView *v, BfDetoastCache *cache, MemoryContext cxt)
{
	bf_view(bf_detoast_cached(d, cache, cxt), v);
}

/* bf_view_datum_stored_cached: bf_view_datum_stored through bf_detoast_cached */
void
bf_view_datum_stored_cached(Datum d, BloomView *v, BfDetoastCache *cache,
							MemoryContext cxt)
{
	bf_view_stored(bf_detoast_cached(d, cache, cxt), v);
}

/*
 * bf_make_params: validate user-supplied m, k, seed and hash family name and
 * return them as BsParams; every violation is ERRCODE_INVALID_PARAMETER_VALUE
 * naming the value and the accepted range.
 */
BsParams
bf_make_params(int64 m, int64 k, int64 seed, const char *hash)
{
	BsParams	p;
	int			family = bs_hash_family_from_name(hash);

	if (m < BS_MIN_M || m > (int64) BS_MAX_M)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloomfilter size m = " INT64_FORMAT " is out of range", m),
				 errdetail("m must be between %d and " UINT64_FORMAT " bits.",
						   BS_MIN_M, (uint64) BS_MAX_M)));
	if (k < BS_MIN_K || k > BS_MAX_K)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloomfilter hash count k = " INT64_FORMAT " is out of range", k),
				 errdetail("k must be between %d and %d.", BS_MIN_K, BS_MAX_K)));
	if (seed < PG_INT32_MIN || seed > PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloomfilter seed " INT64_FORMAT " is out of range", seed),
				 errdetail("seed must be a 32-bit integer.")));
	if (family < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown bloomfilter hash family \"%s\"", hash),
				 errhint("%s", bf_hash_family_hint(hash, "Use 'xxh3' (the default) or 'linear'."))));
	p.m = (uint32) m;
	p.k = (uint8) k;
	p.hash = (uint8) family;
	p.seed = (int32) seed;
	return p;
}

/*
 * bf_hash_family_hint: the HINT for an unknown family name, otherwise when
 * none fits better.  Names are case-sensitive, lowercase (as bloom_hash and
 * the text form write them, so the parameters a tree or an aggregate records
 * compare as written): a name that differs from one only in case is pointed
 * at it.
 */
const char *
bf_hash_family_hint(const char *name, const char *otherwise)
{
	for (int i = 0; i < BS_NUM_HASH_FAMILIES; i++)
		if (pg_strcasecmp(name, bs_hash_family_name(i)) == 0)
			return psprintf("Hash family names are lowercase: use '%s'.", bs_hash_family_name(i));
	return otherwise;
}

/* bf_hash_family_arg: the family named by a text argument (error if unknown) */
int
bf_hash_family_arg(text *hash)
{
	return bf_make_params(BS_MIN_M, BS_MIN_K, 0, text_to_cstring(hash)).hash;
}

/* bf_params_string: "(m=.., k=.., seed=.., hash=..)" for messages */
char *
bf_params_string(const BsParams *p)
{
	return psprintf("(m=%u, k=%d, seed=%d, hash=%s)", p->m, p->k, p->seed,
					bs_hash_family_name(p->hash));
}

/*
 * bf_check_compatible: error unless a and b have equal m, k, seed and hash
 * family; 'what' names the operation for the message.
 */
void
bf_check_compatible(const BsParams *a, const BsParams *b, const char *what)
{
	if (!bs_params_equal(a, b))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: bloomfilters are incompatible", what),
				 errdetail("Left is %s, right is %s.",
						   bf_params_string(a), bf_params_string(b)),
				 errhint("Filters combine only when m, k, seed and hash family are all equal.")));
}

/*
 * bf_datum_key: the key of the element `value` of type typid (int2, int4,
 * int8, text, varchar, bytea or uuid), read by bs_elem.h's element readers,
 * the one encoding of elements (docs/hashing.md: 42::int4 and 42::int8 are the same
 * element).  For callers that know the type only at run time: the
 * aggregates' transition functions and the Bloofi index.  Any other type is
 * an error.
 */
BsKey
bf_datum_key(const BsHasher *h, Datum value, Oid typid)
{
	BsElem		e;

	switch (typid)
	{
		case INT8OID:
			e = bs_elem_int8(DatumGetInt64(value));
			break;
		case INT4OID:
			e = bs_elem_int8(DatumGetInt32(value));
			break;
		case INT2OID:
			e = bs_elem_int8(DatumGetInt16(value));
			break;
		case TEXTOID:
		case VARCHAROID:
		case BYTEAOID:
			e = bs_elem_varlena(value);
			break;
		case UUIDOID:
			e = bs_elem_uuid(value);
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("a bloomfilter element cannot be of type %s", format_type_be(typid)),
					 errhint("Elements are smallint, integer, bigint, text, varchar, bytea or uuid.")));
	}
	return bs_elem_key(h, &e);
}

/*
 * bf_agg_context: the aggregate memory context of an aggregate support
 * function (transition, combine, final) of any of the extension's types;
 * an error naming fname when called outside an aggregate
 */
MemoryContext
bf_agg_context(FunctionCallInfo fcinfo, const char *fname)
{
	MemoryContext ctx;

	if (!AggCheckCallContext(fcinfo, &ctx))
		elog(ERROR, "%s called in non-aggregate context", fname);
	return ctx;
}

/*
 * bf_agg_int_arg: integer argument n of the aggregate agg, a parameter of
 * its state named name; an error if NULL
 */
int32
bf_agg_int_arg(FunctionCallInfo fcinfo, int n, const char *agg, const char *name)
{
	if (PG_ARGISNULL(n))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s parameter %s must not be NULL", agg, name)));
	return PG_GETARG_INT32(n);
}

/*
 * bf_agg_filter_args: the parameters of agg(elem, m, k [, seed [, hash]])
 * (bloom_agg, cbloom_agg), arguments 2 to 5, an error for one given as NULL:
 * sets *m, *k and *seed (0 when not given) and returns the hash name, NULL
 * when not given (read as text: made a C string only when a state is made)
 */
text *
bf_agg_filter_args(FunctionCallInfo fcinfo, const char *agg, int32 *m, int32 *k, int32 *seed)
{
	*m = bf_agg_int_arg(fcinfo, 2, agg, "m");
	*k = bf_agg_int_arg(fcinfo, 3, agg, "k");
	*seed = PG_NARGS() > 4 ? bf_agg_int_arg(fcinfo, 4, agg, "seed") : 0;
	if (PG_NARGS() <= 5)
		return NULL;
	if (PG_ARGISNULL(5))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s parameter hash must not be NULL", agg)));
	return PG_GETARG_TEXT_PP(5);
}

/*
 * bf_agg_check_filter_args: an error unless a later row's m, k, seed and
 * hash (from bf_agg_filter_args; hash NULL when not given) are the group's
 * parameters p; agg names the aggregate.  Compared in place: no allocation
 * per row.
 */
void
bf_agg_check_filter_args(const BsParams *p, int32 m, int32 k, int32 seed, text *hash,
						 const char *agg)
{
	const char *fam = bs_hash_family_name(p->hash);

	if ((uint32) m != p->m || k != p->k || seed != p->seed ||
		(hash && (VARSIZE_ANY_EXHDR(hash) != strlen(fam) ||
				  memcmp(VARDATA_ANY(hash), fam, strlen(fam)) != 0)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s parameters changed within a group", agg),
				 errdetail("The group started with %s and a row has (m=%d, k=%d, seed=%d, hash=%s).",
						   bf_params_string(p), m, k, seed,
						   hash ? text_to_cstring(hash) : "xxh3"),
				 errhint("Pass constant m, k, seed and hash to %s.", agg)));
}
