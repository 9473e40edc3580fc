/*
 * bloofi_layout.h
 *    PostgreSQL-independent layout and bit work of a Bloofi tree node: a
 *    bit-sliced matrix of its children's values.
 *
 * A node of the index (src/bloofi*.c) has up to `cap` children (heap TIDs at
 * the bottom level, child nodes above) and stores their values (m-bit
 * filters, or ORs of filters) bit-sliced, position-major (BIGSI/COBS style):
 * for every bit position j it stores one "slice" of cap bits, bit s of slice
 * j being bit j of the child in slot s.  A lookup of an element with
 * positions p_1..p_k ANDs the k slices p_1..p_k: the set bits of the result
 * are the children that match, all tested at once (the paper's test of every
 * child of a visited node).
 *
 * A node occupies a contiguous run of pages:
 *
 *    [tid pages][value pages][slice pages]
 *
 * tid pages hold cap 6-byte slots, the value pages the node's own m-bit
 * value (the OR of its children), the slice pages m slices of cap / 8 bytes,
 * as many whole slices per page as fit (a slice never straddles pages).  This
 * file computes that geometry and implements the bit work on page-sized
 * buffers; PostgreSQL pages, locks and WAL are in src/bloofi*.c.
 *
 * Design notes: docs/bloofi.md.
 */
#ifndef BLOOFI_LAYOUT_H
#define BLOOFI_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bs_bits.h"

/* slots per node are a multiple of this (a slice is a whole number of bytes) */
#define BLOOFI_SLOT_QUANTUM		8
#define BLOOFI_TID_BYTES		6
/* largest filter a bloofi index accepts, in bits (2 MB filters) */
#define BLOOFI_MAX_M			(UINT32_C(1) << 24)

/* where the pieces of one node live, relative to its first page */
typedef struct BloofiGeometry
{
	uint32_t	m;				/* filter bits */
	uint32_t	cap;			/* slots, multiple of BLOOFI_SLOT_QUANTUM */
	uint32_t	page_bytes;		/* usable data bytes per page */
	uint32_t	tids_per_page;
	uint32_t	tid_pages;
	uint32_t	filter_bytes;	/* 8 * ceil(m / 64) */
	uint32_t	value_bytes_per_page;	/* multiple of 8 */
	uint32_t	value_pages;
	uint32_t	slice_bytes;	/* cap / 8 */
	uint32_t	slice_words;	/* ceil(cap / 64): 64-bit words covering a
								 * slice */
	uint32_t	slices_per_page;
	uint32_t	slice_pages;
	uint32_t	total_pages;
} BloofiGeometry;

/*
 * Fill *g for filters of m bits and nodes of cap slots on pages with
 * page_bytes usable bytes.  Returns false (leaving *g unspecified) when the
 * combination is impossible: cap not a positive multiple of 8, a slice
 * larger than a page, or m out of 1..BLOOFI_MAX_M.
 */
extern bool bloofi_geometry(BloofiGeometry *g, uint32_t m, uint32_t cap,
							uint32_t page_bytes);

/* page index (relative to the node's first page) and byte offset of slice j */
static inline uint32_t
bloofi_slice_page(const BloofiGeometry *g, uint32_t j)
{
	return g->tid_pages + g->value_pages + j / g->slices_per_page;
}

static inline uint32_t
bloofi_slice_offset(const BloofiGeometry *g, uint32_t j)
{
	return (j % g->slices_per_page) * g->slice_bytes;
}

/* first bit position stored on slice page number sp (0-based among slice pages) */
static inline uint32_t
bloofi_slice_page_first(const BloofiGeometry *g, uint32_t sp)
{
	return sp * g->slices_per_page;
}

/* number of slices stored on slice page sp */
extern uint32_t bloofi_slice_page_count(const BloofiGeometry *g, uint32_t sp);

/* value page number (relative) and byte offset for filter byte b */
static inline uint32_t
bloofi_value_page(const BloofiGeometry *g, uint32_t byte)
{
	return g->tid_pages + byte / g->value_bytes_per_page;
}

static inline uint32_t
bloofi_value_offset(const BloofiGeometry *g, uint32_t byte)
{
	return byte % g->value_bytes_per_page;
}

/* bytes of the value stored on value page sp (0-based among value pages) */
extern uint32_t bloofi_value_page_bytes(const BloofiGeometry *g, uint32_t sp);

/* round n up to a multiple of BLOOFI_SLOT_QUANTUM (8), clamped to [8, max_cap] */
extern uint32_t bloofi_round_capacity(uint64_t n, uint32_t max_cap);

/*
 * Set, in the slices [j0, j0 + nslices) of slice_page, bit `slot` for every
 * bit of filter (filter_bytes bytes) set in that range.  Returns the number
 * of bits set (0 means the page need not change).
 */
extern uint32_t bloofi_set_column(uint8_t *slice_page, uint32_t slice_bytes,
								  uint32_t j0, uint32_t nslices,
								  const uint8_t *filter, uint32_t slot);

/*
 * Number of bits of filter set in [j0, j0 + nslices) whose bit in column
 * `slot` of the slices is still clear (0: bloofi_set_column would change
 * nothing)
 */
extern uint32_t bloofi_column_missing(const uint8_t *slice_page, uint32_t slice_bytes,
									  uint32_t j0, uint32_t nslices,
									  const uint8_t *filter, uint32_t slot);

/* number of bits of filter set in [j0, j0 + n) */
extern uint32_t bloofi_count_range(const uint8_t *filter, uint32_t j0, uint32_t n);

/*
 * Clear the slots of `dead` (slice_words words, bit s = slot s) in the
 * nslices slices of slice_page, and set bit j0 + i of value (a full m-bit
 * array) when slice i still has a bit of `live` set.  Returns true when a
 * bit was cleared.
 */
extern bool bloofi_clear_and_recompute_value(uint8_t *slice_page, uint32_t slice_bytes,
											 uint32_t j0, uint32_t nslices,
											 const uint64_t *dead, const uint64_t *live,
											 uint8_t *value);

/*
 * Order-independent digest of a set of bit positions: the sum of a 64-bit
 * mix of each position.  Two filters with equal popcount and digest are
 * equal with overwhelming probability (bloofi_check compares a leaf stored
 * in slices with its heap filter this way, in work proportional to the set
 * bits).  bloofi_column_digest adds, for each slot < nslots, the count and
 * the digest of its bits in the nslices slices starting at position j0.
 */
extern uint64_t bloofi_position_mix(uint32_t j);
extern uint64_t bloofi_filter_digest(const uint8_t *filter, uint32_t m);
extern void bloofi_column_digest(const uint8_t *slice_page, uint32_t slice_bytes,
								 uint32_t j0, uint32_t nslices, uint32_t nslots,
								 uint32_t *count, uint64_t *digest);

/*
 * Sort key that puts similar filters next to each other (bulk build): two
 * MinHash values of the set bit positions, the first in the high 32 bits.
 * Two filters get the same first MinHash with probability equal to the
 * Jaccard similarity of their bit sets, so sorting by this key clusters
 * similar filters (a locality-sensitive stand-in for the paper's O(N^2)
 * nearest-neighbour chain).  An empty filter sorts first.
 */
extern uint64_t bloofi_similarity_key(const uint8_t *filter, uint32_t m);

/*
 * Word w (little-endian, bit s = slot 64w + s) of a slice of slice_bytes
 * bytes; the bytes past the slice's end read as zero, so a slice narrower
 * than a word (nodes of 8..56 slots) never sees its neighbour's bits.
 */
static inline uint64_t
bloofi_slice_word(const uint8_t *slice, uint32_t w, uint32_t slice_bytes)
{
	uint32_t	left = slice_bytes > 8 * w ? slice_bytes - 8 * w : 0;
	uint64_t	v = 0;

	if (left >= 8)
		return bs_load64le(slice + 8 * (size_t) w);
	for (uint32_t i = 0; i < left; i++)
		v |= (uint64_t) slice[8 * (size_t) w + i] << (8 * i);
	return v;
}

/* store word w of a slice (only its bytes inside the slice) */
static inline void
bloofi_slice_store(uint8_t *slice, uint32_t w, uint32_t slice_bytes, uint64_t v)
{
	uint32_t	left = slice_bytes > 8 * w ? slice_bytes - 8 * w : 0;

	for (uint32_t i = 0; i < left && i < 8; i++)
		slice[8 * (size_t) w + i] = (uint8_t) (v >> (8 * i));
}

/*
 * acc &= slice over nwords words (a slice of slice_bytes bytes); returns
 * true when acc is still non-zero
 */
extern bool bloofi_and_slice(uint64_t *restrict acc, const uint8_t *restrict slice,
							 uint32_t nwords, uint32_t slice_bytes);

/*
 * bloofi_and_slice, and a hint: next (NULL: none) is the slice the caller
 * ANDs next (slice_bytes long too), whose cache lines are requested
 * (__builtin_prefetch) while this one is ANDed.  The result does not depend
 * on next; it is never dereferenced, only prefetched (a prefetch of an
 * address whose page has been reused meanwhile is harmless).
 */
extern bool bloofi_and_slice_ahead(uint64_t *restrict acc, const uint8_t *restrict slice,
								   uint32_t nwords, uint32_t slice_bytes,
								   const uint8_t *next);

/*
 * acc &= the AND of the nslices slices (nslices >= 1, each slice_bytes long),
 * computed one cache line (8 words, 512 slots) at a time: a line's words are
 * kept in registers and ANDed with slice 0, 1, ... until they are zero, so a
 * slice's line is read only while the slices before it leave a bit of it
 * (half-full filters: about 10 lines read per 512 slots, whatever nslices).
 * The same result as bloofi_and_slice over the slices in turn, without the
 * accumulator's passes and without the list of surviving words; the slices'
 * k streams are read together.  Returns true when acc is still non-zero.
 */
extern bool bloofi_and_lines(uint64_t *restrict acc, const uint8_t *const *slices,
							 uint32_t nslices, uint32_t nwords, uint32_t slice_bytes);

/*
 * Sparse continuation of a long AND, once most words are zero: idx[] lists
 * the nidx non-zero words of acc (bloofi_nonzero_words writes it and returns
 * the count); bloofi_and_slice_sparse ANDs only those words with the slice
 * and compacts idx to the words still non-zero, returning their count.
 */
extern uint32_t bloofi_nonzero_words(const uint64_t *acc, uint32_t nwords, uint32_t *idx);
extern uint32_t bloofi_and_slice_sparse(uint64_t *acc, const uint8_t *slice,
										uint32_t slice_bytes, uint32_t *idx, uint32_t nidx);

/*
 * bloofi_and_slice_sparse requesting the listed words' cache lines ahead of
 * reading them, and (next not NULL, a hint as for bloofi_and_slice_ahead)
 * the lines of the words still non-zero in the next slice
 */
extern uint32_t bloofi_and_slice_sparse_ahead(uint64_t *acc, const uint8_t *slice,
											  uint32_t slice_bytes, uint32_t *idx,
											  uint32_t nidx, const uint8_t *next);

/*
 * For every slot s whose bit is set in mask (ceil(slice_bytes / 8) words),
 * OR the bits of column s of the nslices slices from j0 into filters row s
 * (filters + s * filter_bytes): the children's values read back from slices
 */
extern void bloofi_get_columns(const uint8_t *slice_page, uint32_t slice_bytes, uint32_t j0,
							   uint32_t nslices, const uint64_t *mask, uint8_t *filters,
							   uint32_t filter_bytes);

/*
 * Make column `slot` of the nslices slices from j0 equal to bits j0.. of
 * filter (set and clear); returns the number of bits changed
 */
extern uint32_t bloofi_put_column(uint8_t *slice_page, uint32_t slice_bytes, uint32_t j0,
								  uint32_t nslices, uint32_t slot, const uint8_t *filter);

/* acc = first nslots bits set, the rest of the nwords words zero */
extern void bloofi_acc_init(uint64_t *acc, uint32_t nwords, uint32_t nslots);

/*
 * true when at most a third of the words of acc are non-zero, judged from
 * every 16th word (nwords >= 256: at least 16 of them): when a long AND may
 * switch to its sparse continuation
 */
extern bool bloofi_acc_mostly_zero(const uint64_t *acc, uint32_t nwords);

/* sort positions ascending and drop duplicates; returns the new count */
extern uint32_t bloofi_sort_positions(uint32_t *pos, uint32_t n);


#endif							/* BLOOFI_LAYOUT_H */
