/*
 * countingbloom.h
 *    The countingbloom type's on-disk layout and the glue shared by its files
 *    (countingbloom_io.c, countingbloom_ops.c, countingbloom_agg.c).
 *
 * A countingbloom is a varlena with the header of a bloomfilter:
 *
 *    varlena header | version u8 | hash u8 | k u8 | flags u8 | seed i32 | m u32 |
 *    counters: CB_NBYTES(m) bytes, counter i in byte i/2 (low nibble for
 *    even i), counters >= m zero
 *
 * The counting rules (positions, saturation) are in src/core/cbloom.h.  The
 * flags byte records the element types added, as a bloomfilter's does
 * (bloomfilter.h: BF_FLAG_TYPED and the types; never BF_FLAG_SPARSE).
 */
#ifndef COUNTINGBLOOM_H
#define COUNTINGBLOOM_H

#include "postgres.h"
#include "pg_compat.h"
#include "fmgr.h"

#include "bloomfilter.h"
#include "bs_hash.h"
#include "cbloom.h"

#define CBLOOM_HEADER_BYTES	12

typedef struct CountingBloom
{
	int32		vl_len_;
	uint8		version;
	uint8		hash;
	uint8		k;
	uint8		flags;
	int32		seed;
	uint32		m;
	uint8		counters[FLEXIBLE_ARRAY_MEMBER];
} CountingBloom;

StaticAssertDecl(offsetof(CountingBloom, counters) == VARHDRSZ + CBLOOM_HEADER_BYTES,
				 "CountingBloom header layout");

#define CBLOOM_VARSIZE(m)	(offsetof(CountingBloom, counters) + CB_NBYTES(m))

/* read-only view of a (possibly short-header) countingbloom datum */
typedef struct CbloomView
{
	BsParams	p;
	const uint8 *counters;
	uint8		elemflags;		/* the flags byte: element types (BF_FLAGS_ELEMS) */
	unsigned	elems;			/* the types it may hold: bf_flags_elems */
} CbloomView;

/* countingbloom_io.c */
extern CountingBloom *cbloom_alloc(const BsParams *p);
extern CountingBloom *cbloom_copy_view(const CbloomView *v);
extern void cbloom_view(struct varlena *value, CbloomView *v);
extern void cbloom_view_datum(Datum d, CbloomView *v);
extern BsParams cbloom_make_params(int64 m, int64 k, int64 seed, const char *hash);
extern void cbloom_check_compatible(const BsParams *a, const BsParams *b, const char *what);

#endif							/* COUNTINGBLOOM_H */
