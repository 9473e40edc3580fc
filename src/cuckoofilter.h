/*
 * cuckoofilter.h
 *    The cuckoofilter type's on-disk layout and the glue shared by its files
 *    (cuckoofilter_io.c, cuckoofilter_ops.c, cuckoofilter_agg.c).
 *
 * A cuckoofilter is a varlena:
 *
 *    varlena header | version u8 | fp_bits u8 | bucket slots u8 (4) |
 *    log2 buckets u8 | seed i32 | count u32 | [version 2: buckets u32] |
 *    table: ck_table_bytes() bytes (the fingerprint table, src/core/cuckoo.h,
 *    padded with zero bits to whole 64-bit words plus one zero word)
 *
 * Version 1 is the power-of-two layout (log2 buckets gives the count; what
 * 1.1 built), version 2 the any-n layout (log2 buckets 0, the count in the
 * buckets field; what cuckoo_empty and cuckoo_agg build).
 *
 * count is the number of non-empty slots, kept so that cuckoo_count and
 * cuckoo_load do not scan; the input functions compute it.
 */
#ifndef CUCKOOFILTER_H
#define CUCKOOFILTER_H

#include "postgres.h"
#include "pg_compat.h"
#include "fmgr.h"

#include "bs_hash.h"
#include "cuckoo.h"

#define CUCKOO_HEADER_BYTES	12		/* version 1; version 2 adds buckets u32 */
#define CUCKOO_VERSION_POW2	1
#define CUCKOO_VERSION_ANYN	2
/* buckets handled between two CHECK_FOR_INTERRUPTS() in long loops */
#define CUCKOO_CHUNK_BUCKETS	UINT64CONST(65536)

typedef struct CuckooFilter
{
	int32		vl_len_;
	uint8		version;
	uint8		fp_bits;
	uint8		bucket_slots;
	uint8		log2_buckets;
	int32		seed;
	uint32		count;
	uint8		table[FLEXIBLE_ARRAY_MEMBER];	/* version 2: buckets u32, then the table */
} CuckooFilter;

StaticAssertDecl(offsetof(CuckooFilter, table) == VARHDRSZ + CUCKOO_HEADER_BYTES,
				 "CuckooFilter header layout");

/* the stored header's bytes after the varlena header: 12, or 16 for version 2 */
static inline Size
cuckoo_header_bytes(const CkParams *p)
{
	return CUCKOO_HEADER_BYTES + (ck_pow2_layout(p) ? 0 : sizeof(uint32));
}

#define CUCKOO_VARSIZE(p)	(VARHDRSZ + cuckoo_header_bytes(p) + ck_table_bytes(p))

/* the fingerprint table of a filter (after the buckets field in version 2) */
static inline uint8 *
cuckoo_table_ptr(CuckooFilter *cf)
{
	return cf->table + (cf->version == CUCKOO_VERSION_ANYN ? sizeof(uint32) : 0);
}

/* read-only view of a (possibly short-header) cuckoofilter datum */
typedef struct CuckooView
{
	CkParams	p;
	uint32		count;
	const uint8 *table;
} CuckooView;

/* cuckoofilter_io.c */
extern CuckooFilter *cuckoo_alloc(const CkParams *p);
extern CuckooFilter *cuckoo_copy_view(const CuckooView *v);
extern void cuckoo_view(struct varlena *value, CuckooView *v);
extern void cuckoo_view_datum(Datum d, CuckooView *v);
extern CkParams cuckoo_make_params(int64 capacity, double fp_rate, int64 seed);
extern char *cuckoo_params_string(const CkParams *p);
extern void cuckoo_table(CuckooFilter *cf, CkTable *t);
extern void cuckoo_report_full(const CkTable *t, const char *what) pg_attribute_noreturn();

#endif							/* CUCKOOFILTER_H */
