/*
 * bloomfilter.h
 *    The bloomfilter type's on-disk layout and the PostgreSQL glue shared by
 *    every part of bloomsample (type, BloomSampleTree, Bloofi).
 *
 * A bloomfilter is a varlena:
 *
 *    varlena header | version u8 | hash u8 | k u8 | flags u8 | seed i32 | m u32 |
 *    bits: 8 * ceil(m / 64) bytes, bit i in byte i/8 at bit i%8, bits >= m zero
 *
 * Header fields are read with memcpy (BloomView), so a value with a short
 * (1-byte) varlena header is used in place, without a detoast copy.
 */
#ifndef BLOOMFILTER_H
#define BLOOMFILTER_H

#include "postgres.h"
#include "fmgr.h"
#include "lib/stringinfo.h"

#include "bs_bits.h"
#include "bs_hash.h"

/* bytes between the varlena header and the bits */
#define BF_HEADER_BYTES		12
#define BF_FLAGS_NONE		0

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

/* read-only view of a (possibly short-header) bloomfilter datum */
typedef struct BloomView
{
	BsParams	p;
	const uint8 *bits;
	size_t		nwords;
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

#define DatumGetBloomFilterP(X)		((BloomFilter *) PG_DETOAST_DATUM(X))
#define PG_RETURN_BLOOMFILTER_P(x)	PG_RETURN_POINTER(x)

/* bloomfilter_util.c */
extern BloomFilter *bf_alloc(const BsParams *p);
extern BloomFilter *bf_copy_view(const BloomView *v);
extern void bf_view(struct varlena *value, BloomView *v);
extern void bf_view_datum(Datum d, BloomView *v);
extern struct varlena *bf_detoast_cached(Datum d, BfDetoastCache *cache, MemoryContext cxt);
extern void bf_view_datum_cached(Datum d, BloomView *v, BfDetoastCache *cache,
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
extern void bf_begintypsend_exact(StringInfo buf, uint64 payload, const char *what);
extern void bf_zero_interruptible(void *p, Size n);
extern size_t bf_hex_span(const char *p);
extern uint32 bf_hash_bytes_interruptible(const uint8 *k, size_t len);
extern void bf_copy_interruptible(void *dst, const void *src, Size n);
extern bool bf_equal_interruptible(const void *a, const void *b, Size n);

/* bloomfilter_io.c */
extern BloomFilter *bf_from_bytes(const BsParams *p, const uint8 *bytes,
								  size_t nbytes, int errcode_bad);
extern void bf_enforce_typmod(const BsParams *p, int32 typmod);

#endif							/* BLOOMFILTER_H */
