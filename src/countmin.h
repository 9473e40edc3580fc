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
 *    nitems items: h1 u64 | h2 u64 | est i64 | lower i64 | len u32 |
 *    reserved u32 | text: len bytes, zero-padded to a multiple of 8
 *
 * the items in topk_item_cmp order (largest estimate first), so equal values
 * are equal byte for byte.  flags (issues 32, 37): TK_FLAG_BOUNDS, the items
 * carry `lower` (set on every value built since); TK_FLAG_EXACT, the value
 * is in exact mode (src/core/topk.h): no counters, the items are every
 * distinct element with its exact count (est = lower), nitems up to
 * topk_exact_cap(w, d, k).  A value stored before (flags 0) has items
 * without `lower` (32-byte item headers) and is read as it is, its lower
 * bounds 0.  Both hold the element keys of the bloomfilter
 * scheme (docs/hashing.md); `version` is that scheme's version.  A
 * countmin's flags byte records the element types added, as a bloomfilter's
 * does (bloomfilter.h: BF_FLAG_TYPED and the types); a topk's holds the
 * TK_FLAG_* bits above.
 */
#ifndef COUNTMIN_H
#define COUNTMIN_H

#include "postgres.h"
#include "pg_compat.h"
#include "fmgr.h"
#include "lib/stringinfo.h"

#include "cms.h"
#include "topk.h"

#define COUNTMIN_FLAGS_NONE	0

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

#define COUNTMIN_VARSIZE(w, d)	(offsetof(CountMin, counters) + (Size) (w) * (d) * sizeof(int64))

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

#define TK_FLAG_BOUNDS		1	/* items carry their lower bound */
#define TK_FLAG_EXACT		2	/* exact mode: no counters, every element counted */

/* bytes of one stored item's header (flags of its value), of an item of len text bytes */
#define TK_ITEM_HEADER_OF(flags)	(((flags) & TK_FLAG_BOUNDS) ? 40 : 32)
#define TK_ITEM_BYTES(flags, len)	(TK_ITEM_HEADER_OF(flags) + TYPEALIGN(8, (Size) (len)))

/*
 * The working form of a topk value (aggregate states, topk_add, topk_merge):
 * the sketch (counters NULL while exact; total always N) and the heap
 * (every distinct element while exact, else the k candidates), all in ctx.
 */
typedef struct TopkState
{
	CmsParams	p;
	uint32		k;				/* the user's k */
	uint32		cap;			/* topk_exact_cap(p, k) */
	bool		exact;
	Size		bytes;			/* exact: the items' stored bytes, at most tk_exact_budget */
	CmsSketch	cms;
	TopkHeap	heap;
	MemoryContext ctx;
} TopkState;

/* makes an element's text form (palloc'd) when it enters the heap */
typedef char *(*TkTextFn) (const void *arg, uint32 *len);

/* the core's view of a sketch from a stored header's fields (counters in place) */
static inline CmsSketch
countmin_sketch_of(uint32 w, uint32 d, int32 seed, int64 total, int64 *counters)
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
extern CmsParams countmin_make_params(int64 w, int64 d, int64 seed);
extern char *countmin_params_string(const CmsParams *p);
extern void countmin_check_compatible(const CmsParams *a, const CmsParams *b, const char *what);
extern void countmin_report(CmsStatus st, const char *what);
extern CountMin *countmin_alloc(const CmsParams *p);
extern CountMin *countmin_alloc_typed(const CmsParams *p);
extern CountMin *countmin_detoast(Datum d);
extern CmsSketch countmin_sketch(CountMin *c);
extern BsKey countmin_elem_key(const BsHasher *h, Datum value, Oid typid);

/* countmin_io.c: the text and binary forms' parts shared with topk */
extern CmsParams countmin_parse_params(const char **pp, const char *type, const char *input);
extern void countmin_check_text_length(const char *p, const CmsParams *params, uint64 alloc,
								 const char *what);
extern int64 countmin_parse_counters(const char **pp, const CmsParams *p, int64 *counters,
							   const char *type, const char *input);
extern void countmin_text_init(StringInfo buf, const CmsSketch *s, uint64 extra, const char *what);
extern void countmin_append_counters(StringInfo buf, const CmsSketch *s);
extern CmsParams countmin_recv_params(StringInfo buf, const char *type, Size header_extra,
								uint8 *flags);
extern int64 countmin_recv_counters(StringInfo buf, const CmsParams *p, int64 *counters,
							  const char *type);
extern void countmin_send_header(StringInfo buf, const CmsParams *p, uint8 flags);
extern void countmin_send_counters(StringInfo buf, const CmsSketch *s);
extern void countmin_send_sketch(StringInfo buf, const CmsSketch *s);
extern void countmin_binary_error(const char *type, const char *detail) pg_attribute_noreturn();

/* topk_util.c */
extern TopkValue *tk_detoast(Datum d);
extern CmsSketch tk_sketch(TopkValue *t);
extern TopkItem *tk_items(TopkValue *t);
extern TopkValue *tk_build(const CmsSketch *cms, uint32 k, uint8 flags, const TopkItem *sorted,
						   uint32 n);
extern void tk_validate_items(const CmsSketch *cms, uint32 k, bool exact, TopkItem *items,
							  uint32 n, int errcode_bad);
extern char *tk_params_string(const CmsParams *p, uint32 k);
extern int64 tk_threshold(const CmsParams *p, uint32 k, bool exact, int64 total);
extern Size tk_exact_budget(const CmsParams *p, uint32 k);

/* topk_agg.c */
extern int64 tk_default_w(int32 k);
extern void tk_check_k(int64 k, const char *what);
extern void tk_add_datum(FunctionCallInfo fcinfo, TopkState *s, Datum value, Oid typid,
						 int64 count, const char *what);

/* topk_state.c */
extern TopkState *tk_state_new(MemoryContext ctx, const CmsParams *p, uint32 k);
extern TopkState *tk_state_from_value(MemoryContext ctx, TopkValue *t);
extern void tk_state_add(TopkState *s, BsKey key, int64 count, TkTextFn to_text,
						 const void *arg, const char *what);
extern void tk_state_merge(TopkState *s, TopkValue *t, const char *what);
extern TopkValue *tk_state_value(TopkState *s);

#endif							/* COUNTMIN_H */
