/*
 * bs_bits.h
 *    Bit-array primitives of the bloomsample core (PostgreSQL-independent).
 *
 * A bit array is a byte buffer whose length is a multiple of 8 (whole 64-bit
 * words).  Bit i lives in byte i / 8 at bit position i % 8: that byte order is
 * the platform-independent definition used by the text and binary formats and
 * by single-bit tests.  Bulk operations (OR, AND, popcount) work on 64-bit
 * words loaded with memcpy, so buffers need no particular alignment (a
 * PostgreSQL value with a 1-byte varlena header can be used in place).
 */
#ifndef BS_BITS_H
#define BS_BITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bs_kernels.h"

/*
 * Optional hook the bulk operations below call between chunks of
 * BS_POLL_WORDS words (1 MiB, well under a millisecond of work), so that an
 * operation over a 256 MiB array can be cancelled (PostgreSQL glue:
 * CHECK_FOR_INTERRUPTS, which may longjmp out: the operations hold no
 * resources).  NULL: none.
 */
extern void (*bs_interrupt_hook) (void);

#define BS_POLL_WORDS	((size_t) 1 << 17)

/*
 * bs_poll_bytes: in a loop over a buffer that handles `bytes_per_step`
 * bytes a step (a power of two), call the hook at step i when a whole
 * mebibyte (8 * BS_POLL_WORDS bytes) has passed since the last call; for the
 * loops of the counting-filter, Count-Min and cuckoo cores.
 */
static inline void
bs_poll_bytes(size_t i, size_t bytes_per_step)
{
	size_t		steps = 8 * BS_POLL_WORDS / bytes_per_step;

	if ((i & (steps - 1)) == steps - 1 && bs_interrupt_hook)
		bs_interrupt_hook();
}

/*
 * Marks a function counting bits: compiled twice on x86-64, with and
 * without the POPCNT instruction, the one the CPU has chosen at load time
 * (bs_bits.c, bs_sparse.c).
 */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && \
	!defined(BS_NO_TARGET_CLONES)
#define BS_POPCNT_CLONES __attribute__((target_clones("popcnt", "default")))
#else
#define BS_POPCNT_CLONES
#endif

/* number of 64-bit words needed for m bits */
static inline size_t
bs_words_for_bits(uint64_t m)
{
	return (size_t) ((m + 63) / 64);
}

/*
 * Load a word so that bit j of the result is bit 64*w + j of the array, on any
 * byte order (needed where bit positions matter: ctz walks, tail checks).
 */
static inline uint64_t
bs_load64le(const uint8_t *p)
{
	uint64_t	w = bs_load64(p);

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w;
}

static inline bool
bs_bit_test(const uint8_t *bits, uint64_t i)
{
	return (bits[i >> 3] >> (i & 7)) & 1;
}

static inline void
bs_bit_set(uint8_t *bits, uint64_t i)
{
	bits[i >> 3] |= (uint8_t) (1u << (i & 7));
}

/* dst |= src over nwords words */
extern void bs_or(uint8_t *dst, const uint8_t *src, size_t nwords);
/* dst &= src over nwords words */
extern void bs_and(uint8_t *dst, const uint8_t *src, size_t nwords);
/* number of set bits */
extern uint64_t bs_popcount(const uint8_t *a, size_t nwords);
/* popcount(a & b) without materialising a & b */
extern uint64_t bs_and_popcount(const uint8_t *a, const uint8_t *b, size_t nwords);
/* the popcounts of a, b and a & b (BsPairCounts, bs_kernels.h), arrays of nwords words */
extern BsPairCounts bs_pair_counts(const uint8_t *a, const uint8_t *b, size_t nwords);

/* true when a & b has at least one bit set (stops at the first) */
extern bool bs_intersects(const uint8_t *a, const uint8_t *b, size_t nwords);
/* true when every bit set in sub is set in super */
extern bool bs_is_subset(const uint8_t *sub, const uint8_t *super, size_t nwords);

/*
 * Fold an m-bit array to m / factor bits by the mapping the caller names:
 * BS_FOLD_DIV sends bit i to bit i / factor (positions from multiply-high),
 * BS_FOLD_MOD sends bit i to bit i % (m / factor) (positions from modulo).
 * dst must hold bs_words_for_bits(m / factor) zeroed words.
 */
typedef enum
{
	BS_FOLD_DIV,
	BS_FOLD_MOD
} BsFoldMapping;

/* fold src (m bits) into the zeroed dst as above; factor must divide m */
extern void bs_fold(uint8_t *dst, const uint8_t *src, uint32_t m,
					uint32_t factor, BsFoldMapping mapping);

/*
 * The set positions of an array of nwords words, increasing, into out (room
 * for its popcount); returns how many.
 */
extern uint64_t bs_set_positions(const uint8_t *bits, size_t nwords, uint32_t *out);

/* true when no bit at position >= m is set in an array of bs_words_for_bits(m) words */
extern bool bs_tail_is_clear(const uint8_t *bits, uint32_t m);

/* name of the popcount implementation chosen at run time (for benchmarks) */
extern const char *bs_popcount_impl(void);

#endif							/* BS_BITS_H */
