/*
 * cbloom.h
 *    Counting Bloom filters: m saturating 4-bit counters at the positions of
 *    the bloomfilter hashing scheme (PostgreSQL-independent).
 *
 * An element's k positions are exactly those bs_key_positions() gives a
 * bloomfilter with the same m, k, seed and hash family (docs/hashing.md):
 * the counting filter calls the same hasher, so the bloomfilter of its
 * non-zero counters (cb_to_bits) is the bloomfilter of the elements it holds.
 *
 * Counters: counter i lives in byte i / 2, in the low nibble when i is even
 * and in the high nibble when i is odd; the array is padded with zero
 * counters to whole 64-bit words (CB_NBYTES).  Adding increments each of the
 * k counters (a position hit twice by one element is incremented twice),
 * removing decrements them; a counter that reaches CB_SATURATED stays there
 * for ever (it no longer knows how many elements it counts, so it can never
 * safely reach zero): no element that was added and not removed is ever
 * reported absent.
 */
#ifndef CBLOOM_H
#define CBLOOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bs_hash.h"

#define CB_SATURATED	15
/* at most 2^29 counters: 256 MB stored, 512 MB in text form */
#define CB_MAX_M		(UINT32_C(1) << 29)

/* bytes of the counter array of m counters (whole 64-bit words) */
#define CB_NBYTES(m)	((size_t) 8 * (((size_t) (m) + 15) / 16))

typedef enum CbRemoveResult
{
	CB_REMOVED = 0,
	CB_ABSENT = 1				/* a counter of the element is zero: certainly absent */
} CbRemoveResult;

static inline unsigned
cb_get(const uint8_t *counters, uint32_t i)
{
	return (counters[i >> 1] >> ((i & 1) << 2)) & 15u;
}

static inline void
cb_put(uint8_t *counters, uint32_t i, unsigned value)
{
	unsigned	shift = (i & 1) << 2;

	counters[i >> 1] = (uint8_t) ((counters[i >> 1] & ~(15u << shift)) | (value << shift));
}

/* increment the element's k counters (saturating at CB_SATURATED) */
extern void cb_add(const BsHasher *h, BsKey key, uint8_t *counters);

/*
 * Decrement the element's k counters (saturated ones stay); CB_ABSENT, and no
 * change, when the element cannot be in the filter: a counter is zero, or is
 * smaller (and not saturated) than the number of its positions that hit it.
 */
extern CbRemoveResult cb_remove(const BsHasher *h, BsKey key, uint8_t *counters);

/* membership: every counter of the element is non-zero */
extern bool cb_test(const BsHasher *h, BsKey key, const uint8_t *counters);

/* the smallest of the element's counters (an upper bound of its multiplicity) */
extern unsigned cb_min_count(const BsHasher *h, BsKey key, const uint8_t *counters);

/* number of counters at CB_SATURATED among the first m */
extern uint64_t cb_saturated(const uint8_t *counters, uint32_t m);

/* sum of all counters (saturated ones count 15) */
extern uint64_t cb_total(const uint8_t *counters, uint32_t m);

/*
 * bits (a zeroed bloomfilter bit array of m bits) gets bit i set for every
 * non-zero counter i
 */
extern void cb_to_bits(const uint8_t *counters, uint32_t m, uint8_t *bits);

/* dst[i] = min(dst[i] + src[i], CB_SATURATED) over the first m counters */
extern void cb_merge(uint8_t *dst, const uint8_t *src, uint32_t m);

/* true when every counter at index >= m (the padding) is zero */
extern bool cb_tail_is_clear(const uint8_t *counters, uint32_t m);

#endif							/* CBLOOM_H */
