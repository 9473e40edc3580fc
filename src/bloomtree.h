/*
 * bloomtree.h
 *    The bloomtree type's stored form and the PostgreSQL glue shared by its
 *    SQL functions (bloomtree_*.c).  The algorithms are in src/core/bltree*.
 *
 * A bloomtree value is stored COMPRESSED, level by level (the paper's
 * ByLevel coding, bltree_code.h), as a varlena:
 *
 *    varlena header | version u8 | d u8 | flags u8 (0) | reserved u8 (0) |
 *    digest u64 | seed i32 |
 *    d level headers of 16 bytes: m u32 | k u8 | mode u8 | prob0 u16 |
 *                                 ones u32 | nbytes u32 |
 *    the d level streams, one after the other (nbytes each)
 *
 * in host byte order, read with memcpy (so a value with a short varlena
 * header is read in place).  `ones` is the level's number of set bits, so
 * the fill and size figures need no decoding.  `digest` is XXH3-64 of every
 * byte after it: a bloomtree function that keeps a decoded tree across calls
 * (membership in a scan) recognises the same tree by its size and digest
 * without comparing or decoding it again.
 *
 * Encoding is deterministic (bltree_code.h), every way into the type (input
 * functions, building functions) stores the canonical coding, so two values
 * are equal exactly when their bytes are.
 *
 * Reads decode level by level, on demand: membership decodes level a only
 * when a query reaches it (BloomTreeDecoded).
 */
#ifndef BLOOMTREE_H
#define BLOOMTREE_H

#include "postgres.h"
#include "pg_compat.h"
#include "fmgr.h"
#include "utils/array.h"

#include "bltree.h"
#include "bltree_code.h"
#include "bloomfilter.h"

#define BLOOMTREE_FLAGS_NONE		0
#define BLOOMTREE_FIXED_BYTES		16	/* version .. seed */
#define BLOOMTREE_DIGEST_FROM		12	/* the digest covers the bytes from the seed on */
#define BLOOMTREE_LEVEL_BYTES		16
#define BLOOMTREE_HEADER_BYTES(d)	(BLOOMTREE_FIXED_BYTES + BLOOMTREE_LEVEL_BYTES * (d))

/* the parsed header of a stored value; stream pointers point into it */
typedef struct BloomTreeView
{
	BlTreeLayout L;
	uint64		digest;
	Size		size;			/* payload bytes (without the varlena header) */
	BlTreeLevelCode lc[BLTREE_MAX_D];	/* mode, prob0, nbytes, ones */
	const uint8 *stream[BLTREE_MAX_D];
	uint64		coded_bytes;	/* sum of the streams' lengths */
} BloomTreeView;

/*
 * A tree being decoded: the full bit array, of which levels 0..ready-1 hold
 * the tree's bits.  The reader decodes the next levels from `view` when a
 * query needs them (view must describe a value that is still in memory).
 */
typedef struct BloomTreeDecoded
{
	BloomTreeView view;
	uint8	   *bits;			/* BLTREE_ARRAY_BYTES(storage_bits) bytes */
	Size		alloc;			/* bytes allocated for bits */
	MemoryContext cxt;			/* where bits lives */
	BlTreeReader reader;
} BloomTreeDecoded;

/* bloomtree_util.c */
extern BlTreeParams bloomtree_params_from_arrays(ArrayType *m, ArrayType *k, int64 seed,
												 const char *fname);
extern void bloomtree_layout_or_error(BlTreeLayout *L, const BlTreeParams *p, int errcode_bad,
									  const char *what);
extern char *bloomtree_params_string(const BlTreeParams *p);
extern void bloomtree_check_compatible(const BlTreeParams *a, const BlTreeParams *b,
									   const char *what);
extern void bloomtree_view(struct varlena *value, BloomTreeView *v);
extern void bloomtree_view_datum(Datum d, BloomTreeView *v);
extern bool bloomtree_same_value(struct varlena *value, BloomTreeView *v);

extern void bloomtree_decoded_init(BloomTreeDecoded *t, const BloomTreeView *v,
								   MemoryContext cxt);
extern void bloomtree_decode_through(BloomTreeDecoded *t, int level, int errcode_bad);
extern void bloomtree_decode_all(BloomTreeDecoded *t, int errcode_bad);
extern uint8 *bloomtree_decode_datum(Datum d, BlTreeLayout *L);

extern uint8 *bloomtree_alloc_bits(const BlTreeLayout *L);
extern void bloomtree_memory_check(const BlTreeLayout *L, int arrays, bool codes,
								   const char *what);
extern struct varlena *bloomtree_encode_value(const BlTreeLayout *L, const uint8 *bits);
extern struct varlena *bloomtree_empty_value(const BlTreeLayout *L);
extern void bloomtree_set_interrupt_hook(void);

extern ArrayType *bloomtree_int4_array(const int32 *vals, int n);

#define PG_RETURN_BLOOMTREE(x)	PG_RETURN_POINTER(x)

#endif							/* BLOOMTREE_H */
