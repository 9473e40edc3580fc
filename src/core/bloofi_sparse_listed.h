/*
 * bloofi_sparse_listed.h
 *    The LISTED form of a SPARSE Bloofi node's stream: the same lists
 *    position -> slots as the direct form of bloofi_sparse.h, without its
 *    offsets array of m + 1 words.  Only the positions whose list is not
 *    empty are stored, delta- and varint-coded, in blocks found through a
 *    fence of (first position, byte offset) pairs:
 *
 *    header   BloofiListedHeader (40 bytes; its first 24 bytes are a
 *             BloofiSparseHeader whose magic says LISTED)
 *    fences   nblocks x { uint32 first position, uint32 offset in data }
 *    data     per block, per position: varint gap from the previous
 *             position of the block (0 for the first: it is the fence's),
 *             varint list length n >= 1, then the n slots: the first as
 *             a varint, each next one as a varint of (slot - previous - 1)
 *
 * A block closes after BLOOFI_LISTED_BLOCK_POSITIONS positions or once its
 * data reach BLOOFI_LISTED_BLOCK_BYTES, so a lookup decodes ~32 bytes per
 * position on average (the fences take 8 bytes a block: 64-byte blocks
 * cost ~8 % of the stream and made the block search about 25 % faster
 * than 256-byte ones, docs/bloofi.md); in a node with more blocks than fence_room (the
 * fences the stream's first page holds after the header), both limits are
 * scaled up until its fences fit there, so that a lookup finds every block
 * from that one page (a node of large sets: larger blocks, no fence page
 * more).  Readers take blocks of any size.  Size: O(set bits + non-empty positions), whatever m
 * is: at m = 433,039 a node of 600 leaves of ~100 set bits each takes
 * ~3.5 bytes per set bit here against 1.7 MB of offsets in the direct form.
 *
 * The glue writes whichever form is smaller (bloofi_listed_bytes against
 * bloofi_sparse_bytes) and decodes a LISTED stream into the direct form
 * when it needs the whole node (bloofi_listed_decode): only the lookup
 * reads the LISTED form as it is (bloofi_listed_block_find).  No
 * allocation, no PostgreSQL.  Design notes: docs/bloofi.md ("Sparse bottom
 * nodes").
 */
#ifndef BLOOFI_SPARSE_LISTED_H
#define BLOOFI_SPARSE_LISTED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bloofi_sparse.h"

#define BLOOFI_LISTED_MAGIC				0xB1F5A4C2u
#define BLOOFI_LISTED_BLOCK_POSITIONS	16u
#define BLOOFI_LISTED_BLOCK_BYTES		64u

typedef struct BloofiListedHeader
{
	BloofiSparseHeader base;	/* magic BLOOFI_LISTED_MAGIC, npages, m, cap,
								 * nentries */
	uint32_t	npos;			/* positions with a non-empty list */
	uint32_t	nblocks;		/* fences */
	uint32_t	datalen;		/* bytes of data */
	uint32_t	reserved;		/* 0 */
} BloofiListedHeader;

#define BLOOFI_LISTED_HEADER_BYTES	((uint32_t) sizeof(BloofiListedHeader))

/* byte offset in the stream of fence b, and of the data */
static inline uint64_t
bloofi_listed_fence_pos(uint32_t b)
{
	return BLOOFI_LISTED_HEADER_BYTES + (uint64_t) 8 * b;
}

static inline uint64_t
bloofi_listed_data_pos(uint32_t nblocks)
{
	return bloofi_listed_fence_pos(nblocks);
}

/* bytes of a LISTED stream with that header (after it was checked) */
static inline uint64_t
bloofi_listed_total(const BloofiListedHeader *h)
{
	return bloofi_listed_data_pos(h->nblocks) + h->datalen;
}

/*
 * Bytes the LISTED form of the valid direct stream v1 takes (header,
 * fences and data) with blocks cut for fence_room fences (0: the default
 * block limits).
 */
extern uint64_t bloofi_listed_bytes(const uint8_t *v1, uint32_t fence_room);

/*
 * Write the LISTED form of the valid direct stream v1 into out (of
 * bloofi_listed_bytes(v1, fence_room) bytes), with npages in its header.
 */
extern void bloofi_listed_encode(const uint8_t *v1, uint8_t *out, uint32_t npages,
								 uint32_t fence_room);

/*
 * NULL when buf (len bytes) is a valid LISTED stream for m and cap: header,
 * fences increasing within the data, every block decoding to increasing
 * positions below m and below the next fence, lists of increasing slots
 * below cap, counts matching the header; else what is wrong.
 */
extern const char *bloofi_listed_validate(const uint8_t *buf, uint64_t len, uint32_t m,
										  uint32_t cap);

/*
 * From a validated LISTED stream: its direct form into v1out, which has
 * bloofi_sparse_bytes(m, nentries) bytes (header npages copied).
 */
extern void bloofi_listed_decode(const uint8_t *buf, uint8_t *v1out);

/*
 * The list of position pos in one block (len bytes of data whose first
 * position is first): 1 with its n slots in out (room for cap), 0 when the
 * block has no such position, -1 when the block is damaged (a varint
 * running past it, positions not increasing or past m, the list's length 0
 * or past cap, its slots not increasing or past cap).  The lists before
 * pos are skipped by their varints' ends, not decoded: damage inside them
 * is found by bloofi_listed_validate, not here.  Reads only the block.
 */
extern int	bloofi_listed_block_find(const uint8_t *block, uint32_t len, uint32_t first,
									 uint32_t pos, uint32_t m, uint32_t cap, uint16_t *out,
									 uint32_t *n);

#endif							/* BLOOFI_SPARSE_LISTED_H */
