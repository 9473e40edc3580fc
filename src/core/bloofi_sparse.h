/*
 * bloofi_sparse.h
 *    PostgreSQL-independent encoding of a SPARSE node, a Bloofi bottom
 *    node's slices as lists: for every bit position j, the sorted list of
 *    the slots whose filter has bit j set (an inverted list position ->
 *    slots).  Not a filter value's sparse form (bs_sparse.h's position list).
 *
 * A node whose slices are almost all zero (small sparse filters) stores
 * this instead of m dense slices of cap bits.  The encoding is one byte
 * stream (spread by the glue over the node's sparse pages, page after page):
 *
 *    header   BloofiSparseHeader (24 bytes)
 *    offsets  uint32[m + 1]: list j is entries [offsets[j], offsets[j + 1])
 *    entries  uint16[nentries]: slots, strictly increasing within a list
 *
 * Slots are below 65,536 (a node has at most 65,088).  The lookup of an
 * element with positions p_1..p_k intersects the k lists; decoding gives
 * back row-major filters or dense slice images for the code that works on
 * slices.  Every function taking a stream from disk has a checked form:
 * bloofi_sparse_validate says what is wrong with a damaged one.
 *
 * Design notes: docs/bloofi.md ("Sparse bottom nodes").
 */
#ifndef BLOOFI_SPARSE_H
#define BLOOFI_SPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define BLOOFI_SPARSE_MAGIC		0xB1F5A45Eu
#define BLOOFI_SPARSE_MAX_CAP	65536u

typedef struct BloofiSparseHeader
{
	uint32_t	magic;			/* BLOOFI_SPARSE_MAGIC */
	uint32_t	npages;			/* sparse pages of the node */
	uint32_t	m;				/* filter bits */
	uint32_t	cap;			/* slots of the node */
	uint32_t	nentries;		/* set bits over all columns */
	uint32_t	reserved;		/* 0 */
} BloofiSparseHeader;

#define BLOOFI_SPARSE_HEADER_BYTES	((uint32_t) sizeof(BloofiSparseHeader))

/* little-endian words of a stream at a byte offset (streams are unaligned) */
static inline uint32_t
bloofi_sparse_rd32(const uint8_t *buf, uint64_t pos)
{
	uint32_t	v;

	memcpy(&v, buf + pos, 4);
	return v;
}

static inline uint16_t
bloofi_sparse_rd16(const uint8_t *buf, uint64_t pos)
{
	uint16_t	v;

	memcpy(&v, buf + pos, 2);
	return v;
}

static inline void
bloofi_sparse_wr32(uint8_t *buf, uint64_t pos, uint32_t v)
{
	memcpy(buf + pos, &v, 4);
}

static inline void
bloofi_sparse_wr16(uint8_t *buf, uint64_t pos, uint16_t v)
{
	memcpy(buf + pos, &v, 2);
}

/* byte offset in the stream of offsets[j] and of entry e */
static inline uint64_t
bloofi_sparse_offset_pos(uint32_t j)
{
	return BLOOFI_SPARSE_HEADER_BYTES + (uint64_t) 4 * j;
}

static inline uint64_t
bloofi_sparse_entry_pos(uint32_t m, uint64_t e)
{
	return BLOOFI_SPARSE_HEADER_BYTES + (uint64_t) 4 * (m + 1) + 2 * e;
}

/* bytes of the stream for filters of m bits with nentries set bits in all */
extern uint64_t bloofi_sparse_bytes(uint32_t m, uint64_t nentries);

/*
 * Set bits of the n filters (m bits, filters[i] of ceil(m / 64) words as
 * bytes; NULL: an empty slot), i.e. the stream's nentries.
 */
extern uint64_t bloofi_sparse_count(uint32_t m, uint32_t n, const uint8_t *const *filters);

/*
 * Encode the n filters (slot i = filters[i], NULL = empty) of a node of cap
 * slots into out, which has bloofi_sparse_bytes(m, count) bytes (count from
 * bloofi_sparse_count); npages goes into the header.  counts is scratch of
 * m + 1 uint32.  n <= cap <= BLOOFI_SPARSE_MAX_CAP.
 */
extern void bloofi_sparse_encode(uint8_t *out, uint32_t m, uint32_t cap, uint32_t npages,
								 uint32_t n, const uint8_t *const *filters, uint32_t *counts);

/*
 * NULL when the stream buf (len bytes) is a valid encoding for m and cap:
 * header, offsets from 0, non-decreasing, ending at nentries within len,
 * every list strictly increasing and below cap; else what is wrong (a
 * static string).
 */
extern const char *bloofi_sparse_validate(const uint8_t *buf, uint64_t len, uint32_t m,
										  uint32_t cap);

/*
 * true when list[0..n) is strictly increasing and below limit (a list read
 * from disk, before it is intersected).
 */
extern bool bloofi_sparse_list_ok(const uint16_t *list, uint32_t n, uint32_t limit);

/*
 * Intersect the sorted acc[0..nacc) with the sorted list[0..nlist) in place;
 * returns the new count.
 */
extern uint32_t bloofi_sparse_intersect(uint16_t *acc, uint32_t nacc, const uint16_t *list,
										uint32_t nlist);

/*
 * From a validated stream: the dense slices j0..j0+nslices-1, each
 * slice_bytes (>= cap / 8), written into page (nslices * slice_bytes
 * bytes, cleared first): the image a dense node would have on that slice
 * page.
 */
extern void bloofi_sparse_slices(const uint8_t *buf, uint32_t j0, uint32_t nslices,
								 uint32_t slice_bytes, uint8_t *page);

/*
 * From a validated stream: set, in row s of filters (rows of filter_bytes),
 * every bit j whose list holds s, for the slots s < nrows whose bit is set
 * in mask (NULL: all).  Rows are not cleared first.
 */
extern void bloofi_sparse_columns(const uint8_t *buf, const uint64_t *mask, uint32_t nrows,
								  uint8_t *filters, uint32_t filter_bytes);

/*
 * Rebuilding a node's stream without decoding it to filters (an insert into
 * a SPARSE node): the lists of the valid direct stream v1 keeping only the
 * slots s whose bit is set in keep (a mask of cap bits), plus n new leaves,
 * leaf i in slot slots[i] (a slot not kept, distinct) with its set positions
 * pos[i][0..npos[i]) (increasing, below m); order[] lists the new leaves by
 * increasing slot.  bloofi_sparse_rebuild_count gives the new nentries; out
 * has bloofi_sparse_bytes(m, that) bytes, npages goes into its header,
 * counts is scratch of m + 1 uint32 and scratch of cap uint16.
 */
extern uint64_t bloofi_sparse_rebuild_count(const uint8_t *v1, const uint64_t *keep,
											uint32_t n, const uint32_t *npos);
extern void bloofi_sparse_rebuild(const uint8_t *v1, const uint64_t *keep, uint32_t n,
								  const uint32_t *order, const uint32_t *slots,
								  const uint32_t *const *pos, const uint32_t *npos,
								  uint32_t npages, uint8_t *out, uint32_t *counts,
								  uint16_t *scratch);

/*
 * Gathering the lists of SPARSE nodes into a new one without decoding them
 * to filters (a wide node's growth, split, repack or merge): the entries of
 * slot s of the valid direct stream src[i] go to slot maps[i][s] of the new
 * node of newcap slots (BLOOFI_SPARSE_DROP: dropped; maps[i] has one entry
 * per slot of src[i]'s cap).  Each map must be increasing over the slots it
 * keeps, below newcap, and every slot source i keeps must map below every
 * slot a later source keeps: then every list stays strictly increasing.
 * All sources have the same m.  bloofi_sparse_gather_count checks that and
 * gives the new nentries (false: the maps break a rule, or the m differ);
 * out has bloofi_sparse_bytes(m, nentries) bytes, npages goes into its
 * header, counts is scratch of m + 1 uint32.
 */
#define BLOOFI_SPARSE_DROP	UINT32_MAX

extern bool bloofi_sparse_gather_count(uint32_t nsrc, const uint8_t *const *src,
									   const uint32_t *const *maps, uint32_t newcap,
									   uint64_t *nentries);
extern void bloofi_sparse_gather(uint32_t nsrc, const uint8_t *const *src,
								 const uint32_t *const *maps, uint32_t newcap, uint32_t npages,
								 uint8_t *out, uint32_t *counts);

/*
 * From a validated stream: whether the list of every position set in filter
 * (nwords words, as bytes) holds slot s (a leaf's column is complete).
 */
extern bool bloofi_sparse_column_has(const uint8_t *buf, uint16_t s, const uint8_t *filter,
									 uint32_t nwords);

#endif							/* BLOOFI_SPARSE_H */
