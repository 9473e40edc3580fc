/*
 * countmin.h
 *    The countmin and topk types' on-disk layouts and the PostgreSQL glue
 *    they share (src/countmin_*.c, src/topk_*.c).
 *
 * A countmin is a varlena (ALIGNMENT double, so a stored value with a 4-byte
 * header is read in place):
 *
 *    varlena header | version u8 | flags u8 | reserved u16 | seed i32 | w u32 |
 *    d u32 | reserved u32 | total i64 | counters: d rows of w int64
 *
 * A topk is a varlena:
 *
 *    varlena header | version u8 | flags u8 | reserved u16 | seed i32 | w u32 |
 *    d u32 | k u32 | nitems u32 | total i64 | counters: d rows of w int64 |
 *    nitems items: h1 u64 | h2 u64 | est i64 | len u32 | reserved u32 |
 *    text: len bytes, zero-padded to a multiple of 8
 *
 * the items in topk_item_cmp order (largest estimate first), so equal values
 * are equal byte for byte.  Both hold the element keys of the bloomfilter
 * scheme (docs/hashing.md); `version` is that scheme's version.
 */
#ifndef COUNTMIN_H
#define COUNTMIN_H

#include "postgres.h"
#include "fmgr.h"
#include "lib/stringinfo.h"

#include "cms.h"
#include "topk.h"

#define CM_FLAGS_NONE	0

typedef struct CountMin
{
	int32		vl_len_;
	uint8		version;
	uint8		flags;
	uint16		reserved;
	int32		seed;
	uint32		w;
	uint32		d;
	uint32		reserved2;
	int64		total;
	int64		counters[FLEXIBLE_ARRAY_MEMBER];
} CountMin;

StaticAssertDecl(offsetof(CountMin, counters) == 32, "CountMin header layout");

#define CM_VARSIZE(w, d)	(offsetof(CountMin, counters) + (Size) (w) * (d) * sizeof(int64))

typedef struct TopkValue
{
	int32		vl_len_;
	uint8		version;
	uint8		flags;
	uint16		reserved;
	int32		seed;
	uint32		w;
	uint32		d;
	uint32		k;
	uint32		nitems;
	int64		total;
	int64		counters[FLEXIBLE_ARRAY_MEMBER];
} TopkValue;

StaticAssertDecl(offsetof(TopkValue, counters) == 40, "TopkValue header layout");

/* bytes of one stored item of len text bytes */
#define TK_ITEM_HEADER		32
#define TK_ITEM_BYTES(len)	(TK_ITEM_HEADER + TYPEALIGN(8, (Size) (len)))

/* the core's view of a sketch from a stored header's fields (counters in place) */
static inline CmsSketch
cm_sketch_of(uint32 w, uint32 d, int32 seed, int64 total, int64 *counters)
{
	CmsSketch	s;

	s.p.w = w;
	s.p.d = d;
	s.p.seed = seed;
	s.total = total;
	s.counters = counters;
	return s;
}

/* countmin_util.c */
extern CmsParams cm_make_params(int64 w, int64 d, int64 seed);
extern char *cm_params_string(const CmsParams *p);
extern void cm_check_compatible(const CmsParams *a, const CmsParams *b, const char *what);
extern void cm_report(CmsStatus st, const char *what);
extern CountMin *cm_alloc(const CmsParams *p);
extern CountMin *cm_detoast(Datum d);
extern CmsSketch cm_sketch(CountMin *c);
extern BsKey cm_elem_key(const BsHasher *h, Datum value, Oid typid);

/* countmin_io.c: the text and binary forms' parts shared with topk */
extern CmsParams cm_parse_params(const char **pp, const char *type, const char *input);
extern void cm_check_text_length(const char *p, const CmsParams *params, uint64 alloc,
								 const char *what);
extern int64 cm_parse_counters(const char **pp, const CmsParams *p, int64 *counters,
							   const char *type, const char *input);
extern void cm_text_init(StringInfo buf, const CmsSketch *s, uint64 extra, const char *what);
extern void cm_append_counters(StringInfo buf, const CmsSketch *s);
extern CmsParams cm_recv_params(StringInfo buf, const char *type, Size header_extra);
extern int64 cm_recv_counters(StringInfo buf, const CmsParams *p, int64 *counters,
							  const char *type);
extern void cm_send_sketch(StringInfo buf, const CmsSketch *s);
extern void cm_binary_error(const char *type, const char *detail) pg_attribute_noreturn();

/* topk_util.c */
extern TopkValue *tk_detoast(Datum d);
extern CmsSketch tk_sketch(TopkValue *t);
extern TopkItem *tk_items(TopkValue *t);
extern TopkValue *tk_build(const CmsSketch *cms, uint32 k, const TopkItem *sorted, uint32 n);
extern void tk_validate_items(const CmsSketch *cms, uint32 k, TopkItem *items, uint32 n,
							  int errcode_bad);
extern char *tk_params_string(const CmsParams *p, uint32 k);

#endif							/* COUNTMIN_H */
