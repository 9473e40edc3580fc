/*
 * bloofi_space.h
 *    PostgreSQL-independent bit work of the Bloofi index's free-page map.
 *
 * The index keeps one bit per block of its file in bitmap pages (the glue is
 * src/bloofi_freespace.c): bit i set means block i is free for reuse.  A bitmap
 * is a byte buffer, bit i in byte i / 8 at bit position i % 8 (bs_bits.h's
 * order), read in 64-bit words where whole words of ones or zeros can be
 * skipped.  These functions look for room (a run of free blocks for a new
 * node, first fit from the lowest block so that the used pages gather at the
 * front of the file and the free ones at its end, where VACUUM truncates
 * them), mark runs free or used, and count.
 *
 * Design notes: docs/bloofi.md.
 */
#ifndef BLOOFI_SPACE_H
#define BLOOFI_SPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* bit i of bits */
static inline bool
bloofi_bit_get(const uint8_t *bits, uint32_t i)
{
	return (bits[i / 8] >> (i % 8)) & 1;
}

/* set (value true) or clear bits [from, from + n) */
extern void bloofi_bits_fill(uint8_t *bits, uint32_t from, uint32_t n, bool value);

/*
 * The lowest start of n >= 1 consecutive set bits within [0, nbits), or -1
 * when there is none.
 */
extern int64_t bloofi_bits_find_run(const uint8_t *bits, uint32_t nbits, uint32_t n);

/* set bits within [0, nbits) */
extern uint32_t bloofi_bits_count(const uint8_t *bits, uint32_t nbits);

/*
 * Maximal runs of set bits within [0, nbits); with carry, a run starting at
 * bit 0 continues the previous bitmap's last run and is not counted.
 */
extern uint32_t bloofi_bits_runs(const uint8_t *bits, uint32_t nbits, bool carry);

/* the number of set bits at the end of [0, nbits) (bits nbits - r .. nbits - 1) */
extern uint32_t bloofi_bits_trailing(const uint8_t *bits, uint32_t nbits);

#endif							/* BLOOFI_SPACE_H */
