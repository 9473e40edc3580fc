/*
 * bs_sparse.h
 *    The sparse form of a filter's bits (PostgreSQL-independent): its
 *    position list, the sorted set positions in Elias-Fano coding, small to
 *    store and probed in place.  (A Bloofi SPARSE node is another thing:
 *    src/core/bloofi_sparse.h.)
 *
 * n positions p_0 < p_1 < ... < p_{n-1} < m, with l low bits each, are
 *
 *    n u32 (little-endian) | l u8 | low bits | high bits
 *
 * low bits:  n * l bits, the low l bits of p_i at bit offset i * l;
 * high bits: U = n + ((m - 1) >> l) + 1 bits, bit (p_i >> l) + i set for
 *            every i and no other;
 * each bit array packed least significant bit first into ceil(bits / 8)
 * bytes, unused bits of the last byte zero.  The encoder picks
 * l = floor(log2(m / n)) (31 for n = 0), which needs at most n * (2 + l) + 1
 * bits: fewer than the m bits of the dense array while under about a fifth
 * of the bits are set.  A reader accepts any l in [0, 31] with the matching
 * length.
 *
 * bs_sparse_open checks only the lengths (constant time), so that a probe
 * reads nothing outside the encoding even when its contents are corrupted;
 * bs_sparse_decode and the iterator check everything (positions increasing
 * and below m, exactly n of them, no stray bits) and report a corrupted
 * encoding by an error code, never by reading out of bounds.
 */
#ifndef BS_SPARSE_H
#define BS_SPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bs_kernels.h"

#define BS_SPARSE_HEAD_BYTES	5
#define BS_SPARSE_MAX_LOW_BITS	31

typedef enum BsSparseError
{
	BS_SPARSE_OK = 0,
	BS_SPARSE_E_SHORT,			/* shorter than its 5-byte head */
	BS_SPARSE_E_LOW_BITS,		/* l > 31 */
	BS_SPARSE_E_COUNT,			/* n > m, or not exactly n positions */
	BS_SPARSE_E_LENGTH,			/* length does not match n, l and m */
	BS_SPARSE_E_ORDER,			/* positions not strictly increasing */
	BS_SPARSE_E_RANGE,			/* a position >= m or a stray high bit */
} BsSparseError;

/* an opened encoding: read-only, pointing into the caller's bytes */
typedef struct BsSparse
{
	uint32_t	m;
	uint32_t	n;				/* number of set positions */
	uint8_t		l;				/* low bits per position */
	const uint8_t *low;
	size_t		low_bytes;
	const uint8_t *high;
	size_t		high_bytes;
	uint64_t	high_bits;		/* U */
} BsSparse;

/* walks the positions in increasing order, checking each */
typedef struct BsSparseIter
{
	const BsSparse *s;
	size_t		byte;			/* next byte of high bits to load */
	uint64_t	word;			/* unvisited set bits of the loaded word */
	uint64_t	word_base;		/* bit index of the loaded word's bit 0 */
	uint32_t	i;				/* positions returned so far */
	int64_t		prev;			/* last position returned, -1 at the start */
} BsSparseIter;

/* the low-bit width the encoder uses for n positions out of m */
extern int	bs_sparse_low_bits(uint32_t m, uint64_t n);

/* bytes of the encoding of n positions out of m with bs_sparse_low_bits */
extern size_t bs_sparse_size(uint32_t m, uint64_t n);

/*
 * Encode the n set bits of the m-bit array bits (n must be its popcount)
 * into out, which holds bs_sparse_size(m, n) bytes.
 */
extern void bs_sparse_encode_bits(const uint8_t *bits, uint32_t m, uint32_t n,
								  uint8_t *out);

/*
 * Encode n strictly increasing positions below m into out, which holds
 * bs_sparse_size(m, n) bytes.
 */
extern void bs_sparse_encode_positions(const uint32_t *pos, uint32_t n, uint32_t m,
									   uint8_t *out);

/* check the lengths of an encoding of len bytes for m bits and open it */
extern BsSparseError bs_sparse_open(const uint8_t *enc, size_t len, uint32_t m,
									BsSparse *s);

/* iterator over an opened encoding */
extern void bs_sparse_iter_init(BsSparseIter *it, const BsSparse *s);

/*
 * The next position into *pos: 1 when there is one, 0 at the end (after
 * checking that there were exactly n), or -BsSparseError on corruption.
 */
extern int	bs_sparse_iter_next(BsSparseIter *it, uint32_t *pos);

/*
 * Set the encoded positions in bits (bs_words_for_bits(m) words, zeroed by
 * the caller), checking the whole encoding.
 */
extern BsSparseError bs_sparse_decode(const BsSparse *s, uint8_t *bits);

/*
 * The positions, ascending, into pos (s->n entries), and set in bits as
 * bs_sparse_decode does when bits is not NULL, with the same full check: a
 * sparse value read once gives both its dense bits and its set positions.
 */
extern BsSparseError bs_sparse_decode_positions(const BsSparse *s, uint32_t *pos,
												uint8_t *bits);

/*
 * bs_sparse_decode_positions' fast path in kernel variant v (bs_kernels.h;
 * a variant the build lacks runs the default one): true when the positions
 * (and the bits, when bits is not NULL) were decoded and checked; false when
 * in doubt (pos then holds garbage, bits is untouched): decode again with
 * bs_sparse_decode_positions for the exact error.  Every variant gives the
 * same answer and output.  For tests; callers use bs_sparse_decode_positions.
 */
extern bool bs_sparse_decode_fast(const BsSparse *s, uint32_t *pos, uint8_t *bits,
								  BsVariant v);

/*
 * Is position pos set?  Reads only the high bits up to pos's bucket and the
 * low bits of that bucket, without materialising m bits.  Never reads
 * outside the opened encoding; on a corrupted encoding the answer is
 * unspecified (a full check is bs_sparse_decode's).
 */
extern bool bs_sparse_test(const BsSparse *s, uint32_t pos);

/*
 * Are all npos positions set?  One pass over the high bits for all of them
 * (sorted first; npos up to BS_SPARSE_MAX_PROBES, more are tested one by
 * one), stopping at the first absent one: the probe of one element, at most
 * one read of the high bits whatever k is.  Same reading rules as
 * bs_sparse_test.
 */
#define BS_SPARSE_MAX_PROBES	64
extern bool bs_sparse_test_all(const BsSparse *s, const uint32_t *pos, int npos);

/*
 * A select index for a value probed many times: the high-bit index of every
 * BS_SPARSE_INDEX_STEP-th zero (bs_sparse_index_entries of them, at most
 * U / 512 + 1 words: an eighth of the value's bytes), built in one pass.
 * bs_sparse_test_indexed then finds a bucket by one sample and a scan of at
 * most BS_SPARSE_INDEX_STEP zeros: constant work per position, whatever
 * the value's size.  samples must come from bs_sparse_index_build on the
 * same opened encoding; answers are those of bs_sparse_test_all.
 */
#define BS_SPARSE_INDEX_STEP	256
extern uint64_t bs_sparse_index_entries(const BsSparse *s);
extern void bs_sparse_index_build(const BsSparse *s, uint64_t *samples);
extern bool bs_sparse_test_indexed(const BsSparse *s, const uint64_t *samples,
								   const uint32_t *pos, int npos);

/*
 * Set operations on strictly increasing position lists, for two sparse
 * values (or a sparse and a dense one) combined without expanding either to
 * m bits.  Each writes its result, strictly increasing, into out and returns
 * its length: the union (out holds na + nb), the intersection (out holds
 * min(na, nb)), and the positions of a set in the dense bits (out holds na;
 * every position must be below the bits' m).  out may be a for the last.
 */
extern size_t bs_pos_union(const uint32_t *a, size_t na, const uint32_t *b, size_t nb,
						   uint32_t *out);
extern size_t bs_pos_intersect(const uint32_t *a, size_t na, const uint32_t *b, size_t nb,
							   uint32_t *out);
extern size_t bs_pos_and_bits(const uint32_t *a, size_t na, const uint8_t *bits,
							  uint32_t *out);

/* the error's description, for messages */
extern const char *bs_sparse_error_string(BsSparseError e);

#endif							/* BS_SPARSE_H */
