/*
 * bs_hash.h
 *    The element-to-bit-positions hashing scheme of bloomsample filters
 *    (scheme version 1; PostgreSQL-independent).
 *
 * An element is first reduced to its canonical bytes (integers: the 8-byte
 * little-endian two's complement int64; text: its bytes; bytea: raw bytes;
 * uuid: its 16 bytes), hashed ONCE into a BsKey, and the key then yields the
 * k bit positions:
 *
 *   'xxh3'   key = XXH3_128bits_withSeed(bytes, len, (uint64)(uint32)seed)
 *            h1 = low 64 bits, h2 = high 64 bits
 *            pos_i = ((h1 + i*h2) mod 2^64) * m >> 64        (i = 0..k-1)
 *   'linear' x = the int64 itself (other elements: XXH3_64bits_withSeed of
 *            their bytes, as int64);
 *            a_i = splitmix64 output 2i | 1, b_i = output 2i+1, stream
 *            started from state (uint64)(uint32)seed;
 *            pos_i = (a_i * x + b_i) mod m   (exact, x taken mod m >= 0)
 *
 * docs/hashing.md spells this out with test vectors; test/unit checks them.  A
 * change here is a new scheme version, never an edit of this one.
 */
#ifndef BS_HASH_H
#define BS_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BS_SCHEME_VERSION	1

#define BS_MIN_M	8
#define BS_MAX_M	UINT64_C(2147483648)	/* 2^31 bits */
#define BS_MIN_K	1
#define BS_MAX_K	32

typedef enum
{
	BS_HASH_XXH3 = 0,
	BS_HASH_LINEAR = 1
} BsHashFamily;

#define BS_NUM_HASH_FAMILIES 2

/* the parameters that make two filters compatible */
typedef struct BsParams
{
	uint32_t	m;				/* bits, BS_MIN_M..BS_MAX_M */
	uint8_t		k;				/* hash functions, BS_MIN_K..BS_MAX_K */
	uint8_t		hash;			/* BsHashFamily */
	int32_t		seed;
} BsParams;

/* per-parameter-set hashing state, computed once and reused for every element */
typedef struct BsHasher
{
	BsParams	p;
	uint64_t	xseed;			/* XXH3 seed */
	uint32_t	a[BS_MAX_K];	/* 'linear': a_i mod m */
	uint32_t	b[BS_MAX_K];	/* 'linear': b_i mod m */
} BsHasher;

/* one element, hashed once; gives all k positions */
typedef struct BsKey
{
	uint64_t	h1;
	uint64_t	h2;
} BsKey;

/*
 * High 64 bits of the 128-bit product a * b: x * m >> 64 maps a uniform 64-bit
 * x to [0, m) without modulo bias ("multiply-high").
 */
static inline uint64_t
bs_mulhi64(uint64_t a, uint64_t b)
{
#ifdef __SIZEOF_INT128__
	return (uint64_t) (((unsigned __int128) a * b) >> 64);
#else
	uint64_t	a_lo = (uint32_t) a,
				a_hi = a >> 32,
				b_lo = (uint32_t) b,
				b_hi = b >> 32;
	uint64_t	lo_lo = a_lo * b_lo,
				hi_lo = a_hi * b_lo,
				lo_hi = a_lo * b_hi,
				hi_hi = a_hi * b_hi;
	uint64_t	cross = (lo_lo >> 32) + (uint32_t) hi_lo + lo_hi;

	return hi_hi + (hi_lo >> 32) + (cross >> 32);
#endif
}

/*
 * name <-> family: bs_hash_family_name returns NULL for an unknown family,
 * bs_hash_family_from_name -1 for an unknown name
 */
extern const char *bs_hash_family_name(int family);
extern int	bs_hash_family_from_name(const char *name);

/* true when a and b have the same m, k, hash family and seed */
extern bool bs_params_equal(const BsParams *a, const BsParams *b);

/*
 * Prepare h for filters of parameters p (already validated): the seed, and
 * for 'linear' the k coefficient pairs reduced mod m.
 */
extern void bs_hasher_init(BsHasher *h, const BsParams *p);

/*
 * The key of an element, hashed once: an integer as its 8 little-endian
 * bytes ('linear': the integer itself), anything else as its bytes.
 */
extern BsKey bs_key_int64(const BsHasher *h, int64_t x);
extern BsKey bs_key_bytes(const BsHasher *h, const void *data, size_t len);

/* the k positions of a key (pos must hold h->p.k entries) */
extern void bs_key_positions(const BsHasher *h, BsKey key, uint32_t *pos);
/* true when all k positions of key are set in bits (stops at the first unset) */
extern bool bs_key_test(const BsHasher *h, BsKey key, const uint8_t *bits);
/* set the k positions of key in bits: add the element */
extern void bs_key_set(const BsHasher *h, BsKey key, uint8_t *bits);

/*
 * The k positions of key as byte probes, for testing many filters of h's
 * parameters against one element: the distinct bytes its bits fall in,
 * ascending (off, relative to the bits; up to h->p.k of them), each with the
 * mask of its bits in that byte.  Returns how many.  bs_byte_probes_test
 * then answers as bs_key_test does, without the positions' arithmetic.
 */
extern int	bs_key_byte_probes(const BsHasher *h, BsKey key, uint32_t *off, uint8_t *mask);

/* true when every probe's bits are set in bits (stops at the first that is not) */
static inline bool
bs_byte_probes_test(const uint8_t *bits, const uint32_t *off, const uint8_t *mask, int n)
{
	for (int i = 0; i < n; i++)
		if ((bits[off[i]] & mask[i]) != mask[i])
			return false;
	return true;
}

/* 'linear' coefficients before reduction mod m (for HashInvert and docs) */
extern void bs_linear_coefficients(int32_t seed, int k, uint64_t *a, uint64_t *b);

#endif							/* BS_HASH_H */
