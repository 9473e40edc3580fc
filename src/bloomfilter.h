/*
 * bloomfilter.h
 *    The bloomfilter type's on-disk layout and the PostgreSQL glue shared by
 *    every part of bloomsample (type, BloomSampleTree, Bloofi).
 *
 * A bloomfilter is a varlena:
 *
 *    varlena header | version u8 | hash u8 | k u8 | flags u8 | seed i32 | m u32 |
 *    payload
 *
 * in one of two stored forms, told apart by the flags byte:
 *
 *    dense  (flags 0, the only form of 1.0 and 1.1): the bits, 8 * ceil(m / 64)
 *           bytes, bit i in byte i/8 at bit i%8, bits >= m zero;
 *    sparse (flags BF_FLAG_SPARSE): the sorted set positions in the Elias-Fano
 *           coding of src/core/bs_sparse.h.
 *
 * The flags byte also records the element types the value holds (1.2): with
 * BF_FLAG_TYPED set, bits BF_ELEM_SHIFT.. are the BS_ELEM_* types added to it
 * (src/core/bs_elemtype.h, which says how a text element is read by them);
 * without it (every value of 1.0 and 1.1, and the text and binary input
 * forms, which carry no types) the value may hold any type.
 *
 * Both are one logical value: every function reads either, and bf_make_datum
 * (through PG_RETURN_BLOOMFILTER_P) writes each new value in the smaller form.
 * bf_view gives the dense bits of either form (decoding a sparse value once);
 * bf_view_stored leaves a sparse value encoded for the functions that read
 * it in place (membership, popcount).  The text and binary forms are always
 * the dense bits.
 *
 * Header fields are read with memcpy (BloomView), so a value with a short
 * (1-byte) varlena header is used in place, without a detoast copy.
 */
#ifndef BLOOMFILTER_H
#define BLOOMFILTER_H

#include "postgres.h"
#include "pg_compat.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/array.h"

#include "bs_bits.h"
#include "bs_elemtype.h"
#include "bs_hash.h"
#include "bs_sparse.h"

/* bytes between the varlena header and the bits */
#define BF_HEADER_BYTES		12
#define BF_FLAGS_NONE		0	/* dense form, element types not recorded */
#define BF_FLAG_SPARSE		1	/* sparse form */
#define BF_FLAG_TYPED		2	/* the element types held are recorded */
#define BF_ELEM_SHIFT		2	/* BS_ELEM_* << BF_ELEM_SHIFT: a type held */
#define BF_FLAGS_ELEMS		(BF_FLAG_TYPED | (BS_ELEM_ALL << BF_ELEM_SHIFT))
#define BF_FLAGS_VALID		(BF_FLAG_SPARSE | BF_FLAGS_ELEMS)

/* the element types a value of this flags byte may hold (BS_ELEM_*) */
static inline unsigned
bf_flags_elems(uint8 flags)
{
	return (flags & BF_FLAG_TYPED) ? (flags >> BF_ELEM_SHIFT) & BS_ELEM_ALL : BS_ELEM_ALL;
}

/* a flags byte that is valid: known bits only, types only with TYPED */
static inline bool
bf_flags_valid(uint8 flags)
{
	return (flags & ~BF_FLAGS_VALID) == 0 &&
		((flags & BF_FLAG_TYPED) || (flags & BF_FLAGS_ELEMS) == 0);
}

/*
 * the element-type bits of flags after adding elements of types `elems`: a
 * value that records its types records them too, one that does not stays so
 */
static inline uint8
bf_flags_add_elems(uint8 flags, unsigned elems)
{
	return (flags & BF_FLAG_TYPED) ? (uint8) (flags | (elems << BF_ELEM_SHIFT)) : flags;
}

/*
 * the element-type bits of a value combining two (union, intersection): the
 * types of both, recorded only when both record theirs
 */
static inline uint8
bf_flags_merge_elems(uint8 a, uint8 b)
{
	if (!(a & BF_FLAG_TYPED) || !(b & BF_FLAG_TYPED))
		return 0;
	return (uint8) ((a | b) & BF_FLAGS_ELEMS);
}

/* a value built by this extension: always a 4-byte varlena header */
typedef struct BloomFilter
{
	int32		vl_len_;
	uint8		version;
	uint8		hash;
	uint8		k;
	uint8		flags;
	int32		seed;
	uint32		m;
	uint8		bits[FLEXIBLE_ARRAY_MEMBER];
} BloomFilter;

StaticAssertDecl(offsetof(BloomFilter, bits) == VARHDRSZ + BF_HEADER_BYTES,
				 "BloomFilter header layout");

/* typmod bloomfilter(m, k): (k - 1) << TYPMOD_M_BITS | m (negative: none) */
#define TYPMOD_M_BITS	26
#define TYPMOD_MAX_M	((1 << TYPMOD_M_BITS) - 1)
#define TYPMOD_M(t)		((uint32) ((t) & TYPMOD_MAX_M))
#define TYPMOD_K(t)		((int) ((t) >> TYPMOD_M_BITS) + 1)

#define BF_NBYTES(m)		(8 * bs_words_for_bits(m))
#define BF_VARSIZE(m)		(offsetof(BloomFilter, bits) + BF_NBYTES(m))

/*
 * Read-only view of a (possibly short-header) bloomfilter datum.  bits are
 * the dense bits; for a sparse value bf_view decodes them into a buffer it
 * owns (freed by bf_view_release), bf_view_stored leaves bits NULL and the
 * encoding opened in sp.
 */
typedef struct BloomView
{
	BsParams	p;
	const uint8 *bits;
	size_t		nwords;
	bool		sparse;			/* stored in the sparse form; sp is open */
	uint8		elemflags;		/* the flags' element-type bits (BF_FLAGS_ELEMS) */
	unsigned	elems;			/* the types it may hold: bf_flags_elems */
	BsSparse	sp;
	uint8	   *owned;			/* bits decoded by bf_view, or NULL */
} BloomView;

/*
 * Keeps the last out-of-line (TOASTed) value a function saw, detoasted, so a
 * filter (or bloomtree) that comes back row after row as the same TOAST
 * pointer (a join against one big filter, an InitPlan result) is fetched once
 * per query.
 */
typedef struct BfDetoastCache
{
	bool		valid;
	struct varatt_external ptr;	/* identity of the cached value */
	struct varlena *value;		/* detoasted copy, in the cache's context */
} BfDetoastCache;

/*
 * The NULL rule of the functions that add an element to a value or remove
 * one (bloom_add, cbloom_add/remove, cuckoo_add/remove, cms_add/remove,
 * bloomtree_add; not strict): a NULL value (argument 0) gives NULL, a NULL
 * element or count returns the value unchanged, as the aggregates skip NULL
 * elements, so `SET col = f(col, x)` never loses col.  Returns from the
 * calling function when an argument is NULL.
 */
#define BS_ELEM_NULLS_RETURN() \
	do { \
		if (PG_ARGISNULL(0)) \
			PG_RETURN_NULL(); \
		for (int bs_arg_ = 1; bs_arg_ < PG_NARGS(); bs_arg_++) \
			if (PG_ARGISNULL(bs_arg_)) \
				PG_RETURN_DATUM(PG_GETARG_DATUM(0)); \
	} while (0)

#define DatumGetBloomFilterP(X)		((BloomFilter *) PG_DETOAST_DATUM(X))
/* every new value leaves a function through bf_make_datum: the smaller form */
#define PG_RETURN_BLOOMFILTER_P(x)	PG_RETURN_POINTER(bf_make_datum(x))

/* bloomfilter_util.c */
extern void bf_init_gucs(void);
extern BloomFilter *bf_alloc(const BsParams *p);
extern BloomFilter *bf_alloc_typed(const BsParams *p);
extern BloomFilter *bf_copy_view(const BloomView *v);
/*
 * An uncompressed out-of-line dense filter of at least this many bytes is
 * probed by reading the TOAST slices of its k bits (bloomfilter_ops.c).
 */
#define BF_SLICE_MIN_BYTES		(64 * 1024)
extern bool bf_sparse_pays(uint32 m, size_t sparse_bytes);
extern BloomFilter *bf_make_datum(BloomFilter *dense);
extern BloomFilter *bf_make_datum_positions(const BsParams *p, uint8 elemflags,
											const uint32 *pos, uint32 n);
extern void bf_sparse_positions_into(const BloomView *v, uint32 *out);
extern uint32 *bf_sparse_positions(const BloomView *v);
extern void bf_view(struct varlena *value, BloomView *v);
extern void bf_view_stored(struct varlena *value, BloomView *v);
extern void bf_view_release(BloomView *v);
extern void bf_view_datum_positions(Datum d, BloomView *v, uint32 **pos);
extern uint64 bf_view_popcount(const BloomView *v);
extern uint64 bf_dense_positions(const BloomView *v, uint32 *out, uint64 most);
extern bool bf_sparse_next(BsSparseIter *it, const BloomView *v, uint32 *pos);
extern void bf_or_into(uint8 *dst, const BloomView *v);
extern void bf_and_into(uint8 *dst, const BloomView *v);
extern void bf_view_datum(Datum d, BloomView *v);
/*
 * the aggregate memory context of an aggregate support function of any of
 * the extension's types; an error naming fname outside an aggregate
 */
extern MemoryContext bf_agg_context(FunctionCallInfo fcinfo, const char *fname);
extern int32 bf_agg_int_arg(FunctionCallInfo fcinfo, int n, const char *agg, const char *name);
extern text *bf_agg_filter_args(FunctionCallInfo fcinfo, const char *agg, int32 *m, int32 *k,
								 int32 *seed);
extern void bf_agg_check_filter_args(const BsParams *p, int32 m, int32 k, int32 seed,
									 text *hash, const char *agg);
extern void bf_view_datum_stored(Datum d, BloomView *v);
extern struct varlena *bf_detoast_cached(Datum d, BfDetoastCache *cache, MemoryContext cxt);
/*
 * A filter argument that may come back row after row (the query side of a
 * scan): its detoast cache and, for a sparse value held there, its bits
 * decoded once (bf_view_arg_cached)
 */
typedef struct BfArgCache
{
	BfDetoastCache cache;
	bool		have_bits;
	struct varatt_external bits_of; /* the cached value the bits are of */
	uint8	   *bits;
	uint64		popcount;		/* the set bits in bits, counted once */
} BfArgCache;

extern void bf_view_arg_cached(FunctionCallInfo fcinfo, int n, BfArgCache *ac, BloomView *v);
extern void bf_view_datum_cached(Datum d, BloomView *v, BfDetoastCache *cache,
								 MemoryContext cxt);
extern void bf_view_datum_stored_cached(Datum d, BloomView *v, BfDetoastCache *cache,
										MemoryContext cxt);
extern BsParams bf_make_params(int64 m, int64 k, int64 seed, const char *hash);
extern int	bf_hash_family_arg(text *hash);
extern const char *bf_hash_family_hint(const char *name, const char *otherwise);
extern void bf_check_compatible(const BsParams *a, const BsParams *b,
								const char *what);
extern char *bf_params_string(const BsParams *p);
extern BsKey bf_datum_key(const BsHasher *h, Datum value, Oid typid);

/* bloomfilter_memory.c */
extern void bf_init_value_memory(void);
extern void bf_value_memory_check(uint64 need, const char *what);
extern void *bf_palloc_value(uint64 size, bool zero, const char *what);
extern void bf_input_check(const char *what, uint64 need, uint64 have, bool exact, uint64 alloc,
						   int bad_errcode);
extern void *bf_copy_value(MemoryContext cxt, const void *src, uint64 size, const char *what);
extern void bf_begintypsend_exact(StringInfo buf, uint64 payload, const char *what);
extern void bf_zero_interruptible(void *p, Size n);
extern size_t bf_hex_span(const char *p);
extern uint32 bf_hash_bytes_interruptible(const uint8 *k, size_t len);
extern void bf_copy_interruptible(void *dst, const void *src, Size n);
extern bool bf_equal_interruptible(const void *a, const void *b, Size n);

/* bloomfilter_io.c */
extern BloomFilter *bf_from_bytes(const BsParams *p, const uint8 *bytes,
								  size_t nbytes, int errcode_bad);
extern void bf_enforce_typmod(const BsParams *p, int32 typmod, const char *type);
extern int32 bf_typmod_in(ArrayType *ta, const char *type);
extern void bf_binary_error_message(const char *message, const char *detail) pg_attribute_noreturn();
extern void bf_binary_error(const char *type, const char *detail) pg_attribute_noreturn();
extern void bf_recv_header(StringInfo buf, const char *type, int header_bytes, BsParams *p);
extern char *bf_typmod_out(int32 typmod);

#endif							/* BLOOMFILTER_H */
