/*
 * bs_kernels.c
 *    The variants of the bit-array kernels and the choice among them (see
 *    bs_kernels.h).
 *
 * Each variant is one loop body, written once as an always-inline template
 * and instantiated in functions compiled for their instruction set with
 * __attribute__((target)), so the whole file builds with PostgreSQL's
 * generic flags under GCC and Clang; the CPU's features are read once
 * (__builtin_cpu_supports, which also checks that the OS saves the vector
 * registers).  The vector loops handle the tail (nwords not a multiple of the
 * vector) with masked loads and stores (AVX-512) or the scalar loop (AVX2),
 * never reading or writing past nwords words.
 */
#include "bs_kernels.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && \
	!defined(BS_NO_SIMD)
#define BS_X86_SIMD 1
#include <immintrin.h>
#endif

BsKernels	bs_kernels;
bool		bs_kernels_ready = false;
static BsVariant kernel_limit = BS_VARIANT_COUNT;

/* ---------------------------------------------------------------------------
 * scalar templates
 * ---------------------------------------------------------------------------
 */
#define BS_INLINE static inline __attribute__((always_inline))

BS_INLINE void
or_scalar(uint8_t *dst, const uint8_t *src, size_t nwords)
{
	for (size_t i = 0; i < nwords; i++)
		bs_store64(dst + 8 * i, bs_load64(dst + 8 * i) | bs_load64(src + 8 * i));
}

BS_INLINE void
and_scalar(uint8_t *dst, const uint8_t *src, size_t nwords)
{
	for (size_t i = 0; i < nwords; i++)
		bs_store64(dst + 8 * i, bs_load64(dst + 8 * i) & bs_load64(src + 8 * i));
}

BS_INLINE uint64_t
popcount_scalar(const uint8_t *a, size_t nwords)
{
	uint64_t	c0 = 0,
				c1 = 0;
	size_t		i = 0;

	/* two accumulators break the dependency chain on the adds */
	for (; i + 2 <= nwords; i += 2)
	{
		c0 += (uint64_t) __builtin_popcountll(bs_load64(a + 8 * i));
		c1 += (uint64_t) __builtin_popcountll(bs_load64(a + 8 * i + 8));
	}
	for (; i < nwords; i++)
		c0 += (uint64_t) __builtin_popcountll(bs_load64(a + 8 * i));
	return c0 + c1;
}

BS_INLINE uint64_t
and_popcount_scalar(const uint8_t *a, const uint8_t *b, size_t nwords)
{
	uint64_t	c0 = 0,
				c1 = 0;
	size_t		i = 0;

	for (; i + 2 <= nwords; i += 2)
	{
		c0 += (uint64_t) __builtin_popcountll(bs_load64(a + 8 * i) & bs_load64(b + 8 * i));
		c1 += (uint64_t) __builtin_popcountll(bs_load64(a + 8 * i + 8) & bs_load64(b + 8 * i + 8));
	}
	for (; i < nwords; i++)
		c0 += (uint64_t) __builtin_popcountll(bs_load64(a + 8 * i) & bs_load64(b + 8 * i));
	return c0 + c1;
}

BS_INLINE BsPairCounts
pair_counts_scalar(const uint8_t *a, const uint8_t *b, size_t nwords)
{
	BsPairCounts c = {0, 0, 0};

	for (size_t i = 0; i < nwords; i++)
	{
		uint64_t	wa = bs_load64(a + 8 * i),
					wb = bs_load64(b + 8 * i);

		c.a += (uint64_t) __builtin_popcountll(wa);
		c.b += (uint64_t) __builtin_popcountll(wb);
		c.and += (uint64_t) __builtin_popcountll(wa & wb);
	}
	return c;
}

/* default: the generic instruction set */
static void
or_default(uint8_t *dst, const uint8_t *src, size_t nwords)
{
	or_scalar(dst, src, nwords);
}

static void
and_default(uint8_t *dst, const uint8_t *src, size_t nwords)
{
	and_scalar(dst, src, nwords);
}

static uint64_t
popcount_default(const uint8_t *a, size_t nwords)
{
	return popcount_scalar(a, nwords);
}

static uint64_t
and_popcount_default(const uint8_t *a, const uint8_t *b, size_t nwords)
{
	return and_popcount_scalar(a, b, nwords);
}

static BsPairCounts
pair_counts_default(const uint8_t *a, const uint8_t *b, size_t nwords)
{
	return pair_counts_scalar(a, b, nwords);
}

#ifdef BS_X86_SIMD
/* ---------------------------------------------------------------------------
 * popcnt: the scalar loops with the POPCNT instruction
 * ---------------------------------------------------------------------------
 */
#define BS_TARGET_POPCNT __attribute__((target("popcnt")))

BS_TARGET_POPCNT static uint64_t
popcount_popcnt(const uint8_t *a, size_t nwords)
{
	return popcount_scalar(a, nwords);
}

BS_TARGET_POPCNT static uint64_t
and_popcount_popcnt(const uint8_t *a, const uint8_t *b, size_t nwords)
{
	return and_popcount_scalar(a, b, nwords);
}

BS_TARGET_POPCNT static BsPairCounts
pair_counts_popcnt(const uint8_t *a, const uint8_t *b, size_t nwords)
{
	return pair_counts_scalar(a, b, nwords);
}

/* ---------------------------------------------------------------------------
 * avx2: 4 words a vector; popcount of bytes by two nibble lookups (VPSHUFB),
 * summed into 64-bit lanes by VPSADBW (Mula, Kurz, Lemire)
 * ---------------------------------------------------------------------------
 */
#define BS_TARGET_AVX2 __attribute__((target("avx2,popcnt")))

BS_TARGET_AVX2 static inline __m256i
popcount_bytes_avx2(__m256i v)
{
	const __m256i lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
										 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
	const __m256i nib = _mm256_set1_epi8(0x0f);
	__m256i		lo = _mm256_and_si256(v, nib),
				hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), nib);

	return _mm256_add_epi8(_mm256_shuffle_epi8(lut, lo), _mm256_shuffle_epi8(lut, hi));
}

/* the sum of the four 64-bit lanes */
BS_TARGET_AVX2 static inline uint64_t
hsum_avx2(__m256i v)
{
	__m128i		s = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));

	return (uint64_t) _mm_cvtsi128_si64(s) + (uint64_t) _mm_extract_epi64(s, 1);
}

/* popcount of each byte of v, summed into acc's 64-bit lanes */
BS_TARGET_AVX2 static inline __m256i
acc_avx2(__m256i acc, __m256i v)
{
	return _mm256_add_epi64(acc, _mm256_sad_epu8(popcount_bytes_avx2(v), _mm256_setzero_si256()));
}

#define LOAD256(p) _mm256_loadu_si256((const __m256i *) (const void *) (p))
#define STORE256(p, v) _mm256_storeu_si256((__m256i *) (void *) (p), (v))

/* dst = dst OR src, or AND when and */
BS_TARGET_AVX2 static inline __attribute__((always_inline)) void
bitop_avx2(uint8_t *dst, const uint8_t *src, size_t nwords, bool and)
{
	size_t		i = 0;

	for (; i + 4 <= nwords; i += 4)
	{
		__m256i		x = LOAD256(dst + 8 * i),
					y = LOAD256(src + 8 * i);

		STORE256(dst + 8 * i, and ? _mm256_and_si256(x, y) : _mm256_or_si256(x, y));
	}
	if (and)
		and_scalar(dst + 8 * i, src + 8 * i, nwords - i);
	else
		or_scalar(dst + 8 * i, src + 8 * i, nwords - i);
}

BS_TARGET_AVX2 static void
or_avx2(uint8_t *dst, const uint8_t *src, size_t nwords)
{
	bitop_avx2(dst, src, nwords, false);
}

BS_TARGET_AVX2 static void
and_avx2(uint8_t *dst, const uint8_t *src, size_t nwords)
{
	bitop_avx2(dst, src, nwords, true);
}

BS_TARGET_AVX2 static uint64_t
popcount_avx2(const uint8_t *a, size_t nwords)
{
	__m256i		acc = _mm256_setzero_si256();
	size_t		i = 0;

	for (; i + 4 <= nwords; i += 4)
		acc = acc_avx2(acc, LOAD256(a + 8 * i));
	return hsum_avx2(acc) + popcount_scalar(a + 8 * i, nwords - i);
}

BS_TARGET_AVX2 static uint64_t
and_popcount_avx2(const uint8_t *a, const uint8_t *b, size_t nwords)
{
	__m256i		acc = _mm256_setzero_si256();
	size_t		i = 0;

	for (; i + 4 <= nwords; i += 4)
		acc = acc_avx2(acc, _mm256_and_si256(LOAD256(a + 8 * i), LOAD256(b + 8 * i)));
	return hsum_avx2(acc) + and_popcount_scalar(a + 8 * i, b + 8 * i, nwords - i);
}

BS_TARGET_AVX2 static BsPairCounts
pair_counts_avx2(const uint8_t *a, const uint8_t *b, size_t nwords)
{
	__m256i		ca = _mm256_setzero_si256(),
				cb = _mm256_setzero_si256(),
				cab = _mm256_setzero_si256();
	size_t		i = 0;
	BsPairCounts c;

	for (; i + 4 <= nwords; i += 4)
	{
		__m256i		va = LOAD256(a + 8 * i),
					vb = LOAD256(b + 8 * i);

		ca = acc_avx2(ca, va);
		cb = acc_avx2(cb, vb);
		cab = acc_avx2(cab, _mm256_and_si256(va, vb));
	}
	c = pair_counts_scalar(a + 8 * i, b + 8 * i, nwords - i);
	c.a += hsum_avx2(ca);
	c.b += hsum_avx2(cb);
	c.and += hsum_avx2(cab);
	return c;
}

/* ---------------------------------------------------------------------------
 * avx512: 8 words a vector, VPOPCNTQ; the tail by masked loads and stores
 * ---------------------------------------------------------------------------
 */
#define BS_TARGET_AVX512 \
	__attribute__((target("avx512f,avx512bw,avx512vl,avx512vpopcntdq,popcnt")))

/* the mask of the first n (< 8) words of a vector */
#define TAILMASK(n) ((__mmask8) ((1u << (n)) - 1))

/* dst = dst OR src, or AND when and; the tail by a masked load and store */
BS_TARGET_AVX512 static inline __attribute__((always_inline)) void
bitop_avx512(uint8_t *dst, const uint8_t *src, size_t nwords, bool and)
{
	for (size_t i = 0; i < nwords; i += 8)
	{
		__mmask8	k = nwords - i >= 8 ? (__mmask8) 0xFF : TAILMASK(nwords - i);
		__m512i		x = _mm512_maskz_loadu_epi64(k, dst + 8 * i),
					y = _mm512_maskz_loadu_epi64(k, src + 8 * i);

		_mm512_mask_storeu_epi64(dst + 8 * i, k, and ? _mm512_and_si512(x, y) : _mm512_or_si512(x, y));
	}
}

BS_TARGET_AVX512 static void
or_avx512(uint8_t *dst, const uint8_t *src, size_t nwords)
{
	bitop_avx512(dst, src, nwords, false);
}

BS_TARGET_AVX512 static void
and_avx512(uint8_t *dst, const uint8_t *src, size_t nwords)
{
	bitop_avx512(dst, src, nwords, true);
}

BS_TARGET_AVX512 static uint64_t
popcount_avx512(const uint8_t *a, size_t nwords)
{
	__m512i		acc0 = _mm512_setzero_si512(),
				acc1 = _mm512_setzero_si512();
	size_t		i = 0;

	for (; i + 16 <= nwords; i += 16)
	{
		acc0 = _mm512_add_epi64(acc0, _mm512_popcnt_epi64(_mm512_loadu_si512(a + 8 * i)));
		acc1 = _mm512_add_epi64(acc1, _mm512_popcnt_epi64(_mm512_loadu_si512(a + 8 * i + 64)));
	}
	for (; i < nwords; i += 8)
	{
		__mmask8	k = nwords - i >= 8 ? (__mmask8) 0xFF : TAILMASK(nwords - i);

		acc0 = _mm512_add_epi64(acc0, _mm512_popcnt_epi64(_mm512_maskz_loadu_epi64(k, a + 8 * i)));
	}
	return (uint64_t) _mm512_reduce_add_epi64(_mm512_add_epi64(acc0, acc1));
}

BS_TARGET_AVX512 static uint64_t
and_popcount_avx512(const uint8_t *a, const uint8_t *b, size_t nwords)
{
	__m512i		acc0 = _mm512_setzero_si512(),
				acc1 = _mm512_setzero_si512();
	size_t		i = 0;

	for (; i + 16 <= nwords; i += 16)
	{
		acc0 = _mm512_add_epi64(acc0, _mm512_popcnt_epi64(
														  _mm512_and_si512(_mm512_loadu_si512(a + 8 * i),
																		   _mm512_loadu_si512(b + 8 * i))));
		acc1 = _mm512_add_epi64(acc1, _mm512_popcnt_epi64(
														  _mm512_and_si512(_mm512_loadu_si512(a + 8 * i + 64),
																		   _mm512_loadu_si512(b + 8 * i + 64))));
	}
	for (; i < nwords; i += 8)
	{
		__mmask8	k = nwords - i >= 8 ? (__mmask8) 0xFF : TAILMASK(nwords - i);

		acc0 = _mm512_add_epi64(acc0, _mm512_popcnt_epi64(
														  _mm512_and_si512(_mm512_maskz_loadu_epi64(k, a + 8 * i),
																		   _mm512_maskz_loadu_epi64(k, b + 8 * i))));
	}
	return (uint64_t) _mm512_reduce_add_epi64(_mm512_add_epi64(acc0, acc1));
}

BS_TARGET_AVX512 static BsPairCounts
pair_counts_avx512(const uint8_t *a, const uint8_t *b, size_t nwords)
{
	__m512i		ca = _mm512_setzero_si512(),
				cb = _mm512_setzero_si512(),
				cab = _mm512_setzero_si512();
	BsPairCounts c;

	for (size_t i = 0; i < nwords; i += 8)
	{
		__mmask8	k = nwords - i >= 8 ? (__mmask8) 0xFF : TAILMASK(nwords - i);
		__m512i		va = _mm512_maskz_loadu_epi64(k, a + 8 * i),
					vb = _mm512_maskz_loadu_epi64(k, b + 8 * i);

		ca = _mm512_add_epi64(ca, _mm512_popcnt_epi64(va));
		cb = _mm512_add_epi64(cb, _mm512_popcnt_epi64(vb));
		cab = _mm512_add_epi64(cab, _mm512_popcnt_epi64(_mm512_and_si512(va, vb)));
	}
	c.a = (uint64_t) _mm512_reduce_add_epi64(ca);
	c.b = (uint64_t) _mm512_reduce_add_epi64(cb);
	c.and = (uint64_t) _mm512_reduce_add_epi64(cab);
	return c;
}
#endif							/* BS_X86_SIMD */

/* ---------------------------------------------------------------------------
 * the tables and the choice
 * ---------------------------------------------------------------------------
 */
#ifdef BS_X86_SIMD
#define IF_SIMD(f) f
#else
#define IF_SIMD(f) NULL
#endif

static const BsOrFn or_variants[BS_VARIANT_COUNT] = {
	or_default, NULL, IF_SIMD(or_avx2), IF_SIMD(or_avx512)
};
static const BsOrFn and_variants[BS_VARIANT_COUNT] = {
	and_default, NULL, IF_SIMD(and_avx2), IF_SIMD(and_avx512)
};
static const BsPopcountFn popcount_variants[BS_VARIANT_COUNT] = {
	popcount_default, IF_SIMD(popcount_popcnt), IF_SIMD(popcount_avx2),
	IF_SIMD(popcount_avx512)
};
static const BsAndPopcountFn and_popcount_variants[BS_VARIANT_COUNT] = {
	and_popcount_default, IF_SIMD(and_popcount_popcnt), IF_SIMD(and_popcount_avx2),
	IF_SIMD(and_popcount_avx512)
};
static const BsPairCountsFn pair_counts_variants[BS_VARIANT_COUNT] = {
	pair_counts_default, IF_SIMD(pair_counts_popcnt), IF_SIMD(pair_counts_avx2),
	IF_SIMD(pair_counts_avx512)
};

static const char *const variant_names[BS_VARIANT_COUNT] = {
	"default", "popcnt", "avx2", "avx512"
};
static const char *const kernel_names[BS_KERNEL_COUNT] = {
	"or", "and", "popcount", "and_popcount", "pair_counts", "sparse_decode"
};

const char *
bs_variant_name(BsVariant v)
{
	return (unsigned) v < BS_VARIANT_COUNT ? variant_names[v] : NULL;
}

int
bs_variant_by_name(const char *name)
{
	for (int v = 0; v < BS_VARIANT_COUNT; v++)
		if (name && strcmp(name, variant_names[v]) == 0)
			return v;
	return -1;
}

const char *
bs_kernel_name(BsKernel k)
{
	return (unsigned) k < BS_KERNEL_COUNT ? kernel_names[k] : NULL;
}

bool
bs_kernel_has(BsKernel k, BsVariant v)
{
	if ((unsigned) v >= BS_VARIANT_COUNT)
		return false;
	switch (k)
	{
		case BS_KERNEL_OR:
			return or_variants[v] != NULL;
		case BS_KERNEL_AND:
			return and_variants[v] != NULL;
		case BS_KERNEL_POPCOUNT:
			return popcount_variants[v] != NULL;
		case BS_KERNEL_AND_POPCOUNT:
			return and_popcount_variants[v] != NULL;
		case BS_KERNEL_PAIR_COUNTS:
			return pair_counts_variants[v] != NULL;
		case BS_KERNEL_SPARSE_DECODE:
#ifdef BS_X86_SIMD
			return v != BS_VARIANT_AVX2;
#else
			return v == BS_VARIANT_DEFAULT;
#endif
		default:
			return false;
	}
}

/* can this CPU run the instructions variant v of kernel k uses? */
static bool
cpu_runs(BsKernel k, BsVariant v)
{
	if (v == BS_VARIANT_DEFAULT)
		return true;
#ifdef BS_X86_SIMD
	__builtin_cpu_init();
	switch (v)
	{
		case BS_VARIANT_POPCNT:
			return __builtin_cpu_supports("popcnt");
		case BS_VARIANT_AVX2:
			return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
		case BS_VARIANT_AVX512:
			if (!(__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
				  __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("popcnt")))
				return false;
			/* the decoder permutes and compresses bytes; the others count bits */
			return k == BS_KERNEL_SPARSE_DECODE ?
				__builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512vbmi2") &&
				__builtin_cpu_supports("bmi") :
				__builtin_cpu_supports("avx512vpopcntdq");
		default:
			return false;
	}
#else
	(void) k;
	return false;
#endif
}

bool
bs_kernel_runs(BsKernel k, BsVariant v)
{
	return bs_kernel_has(k, v) && cpu_runs(k, v);
}

/* the highest variant of k this CPU runs, no higher than the limit */
static BsVariant
choose(BsKernel k)
{
	for (int v = BS_VARIANT_COUNT - 1; v > 0; v--)
		if (v <= (int) kernel_limit && bs_kernel_runs(k, (BsVariant) v))
			return (BsVariant) v;
	return BS_VARIANT_DEFAULT;
}

void
bs_kernels_init(void)
{
	static bool env_read = false;
	BsKernels  *K = &bs_kernels;

	if (!env_read)
	{
		const char *env = getenv("BLOOMSAMPLE_KERNELS");
		int			v = bs_variant_by_name(env);

		env_read = true;
		if (v >= 0)
			kernel_limit = (BsVariant) v;
	}
	for (int k = 0; k < BS_KERNEL_COUNT; k++)
		K->chosen[k] = choose((BsKernel) k);
	K->or_fn = or_variants[K->chosen[BS_KERNEL_OR]];
	K->and_fn = and_variants[K->chosen[BS_KERNEL_AND]];
	K->popcount = popcount_variants[K->chosen[BS_KERNEL_POPCOUNT]];
	K->and_popcount = and_popcount_variants[K->chosen[BS_KERNEL_AND_POPCOUNT]];
	K->pair_counts = pair_counts_variants[K->chosen[BS_KERNEL_PAIR_COUNTS]];
	K->sparse_decode = K->chosen[BS_KERNEL_SPARSE_DECODE];
	bs_kernels_ready = true;
}

BsVariant
bs_kernels_limit(BsVariant limit)
{
	BsVariant	old;

	if (!bs_kernels_ready)
		bs_kernels_init();
	old = kernel_limit;
	kernel_limit = limit;
	bs_kernels_init();
	return old;
}

BsOrFn
bs_kernel_or(BsVariant v)
{
	return (unsigned) v < BS_VARIANT_COUNT ? or_variants[v] : NULL;
}

BsOrFn
bs_kernel_and(BsVariant v)
{
	return (unsigned) v < BS_VARIANT_COUNT ? and_variants[v] : NULL;
}

BsPopcountFn
bs_kernel_popcount(BsVariant v)
{
	return (unsigned) v < BS_VARIANT_COUNT ? popcount_variants[v] : NULL;
}

BsAndPopcountFn
bs_kernel_and_popcount(BsVariant v)
{
	return (unsigned) v < BS_VARIANT_COUNT ? and_popcount_variants[v] : NULL;
}

BsPairCountsFn
bs_kernel_pair_counts(BsVariant v)
{
	return (unsigned) v < BS_VARIANT_COUNT ? pair_counts_variants[v] : NULL;
}
