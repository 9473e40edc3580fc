/*
 * bltree_code.h
 *    Level-wise ("ByLevel", the paper's section 4.3) entropy coding of a
 *    BloomTree's bit array, with a binary range coder (PostgreSQL-independent).
 *
 * Each level is coded on its own, so a reader decodes level a only when a
 * query reaches it.  Only the bits a level can hold are coded: every bit of
 * the root, and at level a >= 1 the filters below the SET bits of level a-1,
 * in breadth-first order (a filter below a zero bit is all zero by
 * construction, bltree_check_structure).  A level is coded in one of four
 * modes, chosen deterministically from its bits (so equal trees have equal
 * codes):
 *
 *   ZERO  (0)  every coded bit is 0                     no bytes
 *   ONE   (1)  every coded bit is 1                     no bytes
 *   RANGE (2)  binary range coder, static P(bit = 0) = prob0 / 65536 with
 *              prob0 = round(zeros * 65536 / coded) clamped to [1, 65535]
 *   RAW   (3)  the coded bits packed 8 to a byte, bit i in byte i/8 at bit
 *              i%8, padding bits zero (used when RANGE would not be shorter)
 *
 * The range coder is LZMA's (32-bit range, carry propagation through a cache
 * byte), with 16-bit probabilities:
 *
 *   encoder: low = 0 (64 bits), range = 0xFFFFFFFF
 *     bit:   bound = (range >> 16) * prob0;
 *            0: range = bound;  1: low += bound, range -= bound;
 *            while range < 2^24: range <<= 8, shift out the top byte of low
 *     end:   shift out 5 more bytes; the first byte shifted out (always 0)
 *            is not stored
 *   decoder: code = the first 4 bytes, big-endian (0xFFFFFFFF is invalid),
 *            range = 0xFFFFFFFF
 *     bit:   bound = (range >> 16) * prob0;
 *            code < bound: 0, range = bound;  else 1, code -= bound, range -= bound;
 *            while range < 2^24: range <<= 8, code = code << 8 | next byte
 *
 * A RANGE stream is exactly the 4 + (number of renormalisation bytes) bytes
 * the decoder reads: reading past the end or leaving bytes unread is an error.
 * Static per-level probabilities reach the order-0 entropy of the coded bits
 * within a few bytes per level (no adaptation cost, decode is branch-light).
 */
#ifndef BLTREE_CODE_H
#define BLTREE_CODE_H

#include <stddef.h>
#include <stdint.h>

#include "bltree.h"

typedef enum
{
	BLTREE_MODE_ZERO = 0,
	BLTREE_MODE_ONE = 1,
	BLTREE_MODE_RANGE = 2,
	BLTREE_MODE_RAW = 3
} BlTreeMode;

#define BLTREE_NUM_MODES 4

/* how one level is coded */
typedef struct BlTreeLevelCode
{
	uint8_t		mode;			/* BlTreeMode */
	uint16_t	prob0;			/* RANGE: P(0) * 65536, 1..65535; else 0 */
	uint64_t	nbytes;			/* bytes of the level's stream */
	uint64_t	coded_bits;		/* bits coded (known from the level above) */
	uint64_t	ones;			/* set bits of the level */
} BlTreeLevelCode;

typedef enum
{
	BLTREE_DECODE_OK = 0,
	BLTREE_DECODE_BAD_MODE,		/* mode unknown, or prob0 out of range */
	BLTREE_DECODE_BAD_LENGTH,	/* nbytes impossible for the mode */
	BLTREE_DECODE_TRUNCATED,	/* the range decoder needed more bytes */
	BLTREE_DECODE_TRAILING,		/* bytes left after the level's last bit */
	BLTREE_DECODE_BAD_START,	/* first four bytes 0xFFFFFFFF */
	BLTREE_DECODE_BAD_PADDING	/* RAW: padding bits set */
} BlTreeDecodeError;

/* the number of bits coded for level a, given levels < a in bits */
extern uint64_t bltree_coded_bits(const BlTreeLayout *L, const uint8_t *bits, int a);

/* an upper bound of the bytes bltree_encode_level writes for level a */
extern uint64_t bltree_level_max_bytes(const BlTreeLayout *L, int a);

/*
 * Code level a of a structurally valid array into out (at least
 * bltree_level_max_bytes bytes); fills *lc and returns lc->nbytes.
 */
extern uint64_t bltree_encode_level(const BlTreeLayout *L, const uint8_t *bits, int a,
									BlTreeLevelCode *lc, uint8_t *out);

/* an upper bound of the bytes bltree_encode writes (all levels) */
extern uint64_t bltree_max_coded_bytes(const BlTreeLayout *L);

/*
 * Code every level of a structurally valid array into out, one stream after
 * the other (level 0 first); lc[a] describes level a.  Returns the total.
 */
extern uint64_t bltree_encode(const BlTreeLayout *L, const uint8_t *bits,
							  BlTreeLevelCode *lc, uint8_t *out);

/*
 * Decode level a from in[0 .. lc->nbytes) into bits (levels < a must already
 * be there; the whole of level a is overwritten).  lc->coded_bits is computed
 * here; lc->ones is set to the set bits decoded.  Reads no byte outside in
 * and writes no bit outside level a, whatever the input.
 */
extern BlTreeDecodeError bltree_decode_level(const BlTreeLayout *L, uint8_t *bits, int a,
											 BlTreeLevelCode *lc, const uint8_t *in);

/* XXH3-64 (seed 0) of len bytes: the digest a stored value carries */
extern uint64_t bltree_digest(const void *data, size_t len);

/* a sentence saying what the error e means (for error details) */
extern const char *bltree_decode_error_string(BlTreeDecodeError e);
/* the name of a level's coding mode: zero, one, range, raw ("?" when unknown) */
extern const char *bltree_mode_name(int mode);

/*
 * Size, in bits, that an order-0 coder with one static probability per level
 * needs for the coded bits of each level: sum of coded * H(ones / coded).
 * The range coder stays within a few bytes per level of it.
 */
extern double bltree_coded_entropy_bits(const BlTreeLayout *L, const uint8_t *bits);

#endif							/* BLTREE_CODE_H */
