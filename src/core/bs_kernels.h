/*
 * bs_kernels.h
 *    The bit-array kernels of the core in several instruction-set variants,
 *    one of each chosen once per process for the CPU it runs on
 *    (PostgreSQL-independent).
 *
 * Kernels: OR, AND, popcount, AND-popcount, the estimators' pair counts
 * (bs_bits.h's bulk operations, which call them between their interrupt
 * polls) and the sparse form's fast decoder (bs_sparse.c).  Variants, lowest
 * first:
 *   default  the generic instruction set (popcount by libgcc's bit tricks)
 *   popcnt   scalar 64-bit words with the POPCNT instruction
 *   avx2     256-bit vectors (popcount by nibble table lookups, VPSHUFB)
 *   avx512   512-bit vectors: VPOPCNTQ (AVX-512 F, BW, VL, VPOPCNTDQ), and
 *            for the sparse decoder VPCOMPRESSB, VPERMB and VPSCATTERDD
 *            (F, BW, VL, VBMI, VBMI2)
 * A kernel need not have every variant (OR has no popcnt one); each kernel
 * uses its highest variant that the CPU (and the OS, for the vector
 * registers) supports, no higher than the limit set by the environment
 * variable BLOOMSAMPLE_KERNELS (one of the names above; read once, at the
 * first use; meant for tests and comparisons) or by bs_kernels_limit.  Every
 * variant computes exactly what the default one does (test/unit/test_kernels.c
 * compares them bit for bit).  Without GCC/Clang on x86-64, or with
 * BS_NO_SIMD defined, only the default variants exist.
 *
 * The kernels sit below bs_bits.h, which includes this header and calls them:
 * the word loads and stores and the pair counts they work with are here.
 */
#ifndef BS_KERNELS_H
#define BS_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* a 64-bit word of a bit array, loaded and stored at any alignment (memcpy) */
static inline uint64_t
bs_load64(const uint8_t *p)
{
	uint64_t	w;

	memcpy(&w, p, sizeof(w));
	return w;
}

static inline void
bs_store64(uint8_t *p, uint64_t w)
{
	memcpy(p, &w, sizeof(w));
}

/* the three popcounts the estimators need, in one pass over both arrays */
typedef struct BsPairCounts
{
	uint64_t	a;				/* popcount(a) */
	uint64_t	b;				/* popcount(b) */
	uint64_t	and;			/* popcount(a & b); popcount(a | b) = a + b - and */
} BsPairCounts;

typedef enum
{
	BS_VARIANT_DEFAULT = 0,
	BS_VARIANT_POPCNT,
	BS_VARIANT_AVX2,
	BS_VARIANT_AVX512,
	BS_VARIANT_COUNT
} BsVariant;

typedef enum
{
	BS_KERNEL_OR = 0,
	BS_KERNEL_AND,
	BS_KERNEL_POPCOUNT,
	BS_KERNEL_AND_POPCOUNT,
	BS_KERNEL_PAIR_COUNTS,
	BS_KERNEL_SPARSE_DECODE,
	BS_KERNEL_COUNT
} BsKernel;

typedef void (*BsOrFn) (uint8_t *dst, const uint8_t *src, size_t nwords);
typedef uint64_t (*BsPopcountFn) (const uint8_t *a, size_t nwords);
typedef uint64_t (*BsAndPopcountFn) (const uint8_t *a, const uint8_t *b, size_t nwords);
typedef BsPairCounts (*BsPairCountsFn) (const uint8_t *a, const uint8_t *b, size_t nwords);

/* the chosen variant of each kernel (filled by bs_kernels_init) */
typedef struct BsKernels
{
	BsOrFn		or_fn;			/* dst |= src */
	BsOrFn		and_fn;			/* dst &= src */
	BsPopcountFn popcount;
	BsAndPopcountFn and_popcount;
	BsPairCountsFn pair_counts;
	BsVariant	sparse_decode;	/* which of bs_sparse.c's fast decoders */
	BsVariant	chosen[BS_KERNEL_COUNT];
} BsKernels;

extern BsKernels bs_kernels;

/* choose the variants, once (later calls do nothing); every user calls it */
extern void bs_kernels_init(void);

static inline const BsKernels *
bs_kernels_get(void)
{
	extern bool bs_kernels_ready;

	if (!bs_kernels_ready)
		bs_kernels_init();
	return &bs_kernels;
}

/* "default", "popcnt", "avx2", "avx512"; NULL for anything else */
extern const char *bs_variant_name(BsVariant v);
/* the variant of that name, or -1 */
extern int	bs_variant_by_name(const char *name);
/* "or", "and", "popcount", "and_popcount", "pair_counts", "sparse_decode" */
extern const char *bs_kernel_name(BsKernel k);

/* does kernel k have variant v in this build, and can this CPU run it? */
extern bool bs_kernel_has(BsKernel k, BsVariant v);
extern bool bs_kernel_runs(BsKernel k, BsVariant v);

/*
 * Choose again, using no variant above limit (BS_VARIANT_COUNT: no limit
 * but the CPU's); returns the previous limit.  For tests and benchmarks.
 */
extern BsVariant bs_kernels_limit(BsVariant limit);

/* one variant of each bit kernel (NULL when the build has none); for tests */
extern BsOrFn bs_kernel_or(BsVariant v);
extern BsOrFn bs_kernel_and(BsVariant v);
extern BsPopcountFn bs_kernel_popcount(BsVariant v);
extern BsAndPopcountFn bs_kernel_and_popcount(BsVariant v);
extern BsPairCountsFn bs_kernel_pair_counts(BsVariant v);

#endif							/* BS_KERNELS_H */
