/*
 * bltree.h
 *    BloomTree (Fu & Biersack, "False-Positive Probability and Compression
 *    Optimization for Tree-Structured Bloom Filters", TOMPECS 2016): the bit
 *    array layout, the hashing scheme, insertion, membership, the filter-wise
 *    AND / OR, and the false-positive and entropy formulas
 *    (PostgreSQL-independent).
 *
 * A tree of d levels (levels are 0-based here, 1-based in SQL and the docs)
 * has one root filter of m[0] bits and, below every bit of a filter of level
 * a < d-1, a filter of m[a+1] bits.  Level a holds F_a = m[0]*...*m[a-1]
 * filters (F_0 = 1), L_a = F_a * m[a] bits.  The whole tree is ONE bit array
 * in breadth-first order (the paper's section 4.2, equation 6):
 *
 *    offset[a]            = L_0 + ... + L_{a-1}
 *    filter b of level a  = bits offset[a] + b*m[a] .. offset[a] + (b+1)*m[a] - 1
 *    child of bit p of filter b (level a) = filter b*m[a] + p of level a+1
 *
 * i.e. the child of a bit is the filter whose index is the bit's index within
 * its level.  Bit i of the array lives in byte i/8 at bit i%8 (as in
 * bs_bits.h).
 *
 * Hashing (scheme version 1).  An element is hashed ONCE, exactly as the
 * bloomfilter type's 'xxh3' family does it (bs_hash.h): key = XXH3-128 of the
 * element's canonical bytes with seed64 = (uint64)(uint32)seed, h1 = low and
 * h2 = high 64 bits.  Every filter gets its own k hash functions by double
 * hashing over the disjoint coefficient sets of the paper's equation (9):
 *
 *    coef_base[0] = 0,  coef_base[a+1] = coef_base[a] + F_a * k[a]
 *    hash j (0-based) of filter b of level a: c = coef_base[a] + b*k[a] + j + 1
 *    position = mulhi64(mix64(h1 + c*h2 mod 2^64), m[a])
 *
 * where mix64 is the splitmix64 finalizer (a bijection of 64-bit words):
 *    z ^= z >> 30; z *= 0xbf58476d1ce4e5b9; z ^= z >> 27; z *= 0x94d049bb133111eb; z ^= z >> 31
 * Without mix64 (plain h1 + c*h2) the positions of one element in the many
 * small filters it visits all step by the same h2, so they are correlated
 * (an element whose h2 is near a multiple of 2^64/m hits few distinct bits in
 * EVERY small filter): that doubles the measured false-positive rate of the
 * paper's d = 3 configuration.  With it, measured rates match
 * bltree_expected_fp (docs/bloomtree.md).
 *
 * Insertion sets the k positions of the root and recurses into the child of
 * every position; a query does the same and answers "member" only when every
 * visited filter has all its positions set (positions that repeat within a
 * filter visit their child once).
 *
 * Every bit array handled here is BLTREE_ARRAY_BYTES(storage_bits) bytes:
 * whole 64-bit words plus 8 bytes of zero padding, so that small bit ranges
 * can be read with one unaligned 64-bit load.
 */
#ifndef BLTREE_H
#define BLTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bs_bits.h"
#include "bs_hash.h"

#define BLTREE_SCHEME_VERSION	1

#define BLTREE_MAX_D		8
#define BLTREE_MIN_M		1
#define BLTREE_MAX_M		UINT32_C(2147483647)
#define BLTREE_MIN_K		1
#define BLTREE_MAX_K		32
/* storage M_BT (all levels, uncompressed) of one tree */
#define BLTREE_MAX_STORAGE_BITS	(UINT64_C(1) << 31)
/* hash positions one insertion evaluates at most: k[0] + k[0]k[1] + ... */
#define BLTREE_MAX_PROBES	(UINT64_C(1) << 16)

#define BLTREE_ARRAY_BYTES(storage_bits) (8 * bs_words_for_bits(storage_bits) + 8)

/* the parameters that make two trees compatible */
typedef struct BlTreeParams
{
	int			d;				/* levels, 1..BLTREE_MAX_D */
	uint32_t	m[BLTREE_MAX_D];	/* bits per filter of each level */
	uint8_t		k[BLTREE_MAX_D];	/* hash functions per filter of each level */
	int32_t		seed;
} BlTreeParams;

/* what bltree_layout_init found wrong (BLTREE_OK: nothing) */
typedef enum
{
	BLTREE_OK = 0,
	BLTREE_ERR_D,				/* d outside 1..BLTREE_MAX_D */
	BLTREE_ERR_M,				/* some m outside BLTREE_MIN_M..BLTREE_MAX_M */
	BLTREE_ERR_K,				/* some k outside BLTREE_MIN_K..BLTREE_MAX_K */
	BLTREE_ERR_STORAGE,			/* storage bits above BLTREE_MAX_STORAGE_BITS */
	BLTREE_ERR_PROBES			/* positions per element above BLTREE_MAX_PROBES */
} BlTreeParamError;

/* everything derived from the parameters, computed once */
typedef struct BlTreeLayout
{
	BlTreeParams p;
	uint64_t	filters[BLTREE_MAX_D];	/* F_a */
	uint64_t	level_bits[BLTREE_MAX_D];	/* L_a = F_a * m[a] */
	uint64_t	offset[BLTREE_MAX_D];	/* first bit of level a */
	uint64_t	coef_base[BLTREE_MAX_D];	/* coefficients taken by levels < a */
	uint64_t	storage_bits;	/* M_BT = sum of L_a */
	uint64_t	probes;			/* k[0] + k[0]k[1] + ... + k[0]...k[d-1] */
	BsHasher	hasher;			/* element -> key (xxh3, seed) */
} BlTreeLayout;

/*
 * Optional hook called every few thousand filters by the long loops
 * (PostgreSQL glue: CHECK_FOR_INTERRUPTS).  NULL: none.
 */
extern void (*bltree_interrupt_hook) (void);

/*
 * Validate p and fill L.  Returns BLTREE_OK or the first violation; L is
 * usable only on BLTREE_OK.  Never overflows: sizes are checked level by level.
 */
extern BlTreeParamError bltree_layout_init(BlTreeLayout *L, const BlTreeParams *p);
/* true when a and b have the same levels (m, k of each) and seed */
extern bool bltree_params_equal(const BlTreeParams *a, const BlTreeParams *b);

/* the element keys (one XXH3-128 per element) */
extern BsKey bltree_key_int64(const BlTreeLayout *L, int64_t x);
extern BsKey bltree_key_bytes(const BlTreeLayout *L, const void *data, size_t len);

static inline uint64_t
bltree_mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* position of hash function `coef` (1-based global coefficient) in an m-bit filter */
static inline uint32_t
bltree_position(BsKey key, uint64_t coef, uint32_t m)
{
	return (uint32_t) bs_mulhi64(bltree_mix64(key.h1 + coef * key.h2), m);
}

/*
 * Set bits of one word, inline: the POPCNT instruction where the compiler may
 * use it, else the SWAR sum (PostgreSQL's default flags would otherwise turn
 * __builtin_popcountll into a libgcc call for every small filter).
 */
static inline unsigned
bltree_popcount64(uint64_t x)
{
#ifdef __POPCNT__
	return (unsigned) __builtin_popcountll(x);
#else
	x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
	x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
	x = (x + (x >> 4)) & UINT64_C(0x0F0F0F0F0F0F0F0F);
	return (unsigned) ((x * UINT64_C(0x0101010101010101)) >> 56);
#endif
}

/*
 * bits [start, start + len) as the low len bits of a word, len <= 56; reads
 * one 64-bit word at byte start/8 (the array padding makes that safe).
 */
static inline uint64_t
bltree_get_bits(const uint8_t *bits, uint64_t start, unsigned len)
{
	uint64_t	w = bs_load64le(bits + (start >> 3)) >> (start & 7);

	return len >= 64 ? w : w & ((UINT64_C(1) << len) - 1);
}

/*
 * Iterator over the set bits of [start, start + len): bltree_setbits_next
 * returns false at the end, else stores the bit's index relative to start.
 */
typedef struct BlTreeSetBits
{
	const uint8_t *bits;
	uint64_t	start;
	uint64_t	end;
	uint64_t	word;			/* index of the word x came from */
	uint64_t	x;				/* its bits not yet returned */
} BlTreeSetBits;

static inline uint64_t
bltree_word_mask(uint64_t w, uint64_t start, uint64_t end)
{
	uint64_t	mask = ~UINT64_C(0);

	if (w == start >> 6)
		mask &= ~UINT64_C(0) << (start & 63);
	if (w == (end - 1) >> 6 && (end & 63) != 0)
		mask &= (UINT64_C(1) << (end & 63)) - 1;
	return mask;
}

static inline void
bltree_setbits_init(BlTreeSetBits *it, const uint8_t *bits, uint64_t start, uint64_t len)
{
	it->bits = bits;
	it->start = start;
	it->end = start + len;
	it->word = start >> 6;
	it->x = len == 0 ? 0 :
		bs_load64le(bits + 8 * it->word) & bltree_word_mask(it->word, start, it->end);
}

static inline bool
bltree_setbits_next(BlTreeSetBits *it, uint64_t *i)
{
	while (it->x == 0)
	{
		if (it->end == it->start || ++it->word > (it->end - 1) >> 6)
			return false;
		it->x = bs_load64le(it->bits + 8 * it->word) &
			bltree_word_mask(it->word, it->start, it->end);
	}
	*i = 64 * it->word + (uint64_t) __builtin_ctzll(it->x) - it->start;
	it->x &= it->x - 1;
	return true;
}

/* number of set bits in [start, start + len) */
extern uint64_t bltree_range_popcount(const uint8_t *bits, uint64_t start, uint64_t len);
/* true when some bit in [start, start + len) is set */
extern bool bltree_range_any(const uint8_t *bits, uint64_t start, uint64_t len);

/* insert the element with this key */
extern void bltree_insert(const BlTreeLayout *L, uint8_t *bits, BsKey key);

/*
 * Membership with levels made readable on demand: a query that reaches level
 * a while a >= r->ready calls r->load(r, a), which must make levels
 * 0..a readable in the array and set r->ready > a.  r == NULL: every level is
 * readable.  Levels are needed in increasing order.
 */
typedef struct BlTreeReader
{
	int			ready;			/* levels 0..ready-1 are in the array */
	void		(*load) (struct BlTreeReader *r, int level);
	void	   *arg;
} BlTreeReader;

/*
 * true when the element of key is reported a member: every filter its
 * query visits, from the root down, has all its positions set (never a
 * false negative for an inserted element)
 */
extern bool bltree_contains(const BlTreeLayout *L, const uint8_t *bits, BsKey key,
							BlTreeReader *r);

/* dst &= src, dst |= src (whole arrays of the same layout) */
extern void bltree_and(const BlTreeLayout *L, uint8_t *dst, const uint8_t *src);
extern void bltree_or(const BlTreeLayout *L, uint8_t *dst, const uint8_t *src);

/*
 * Clear, bottom-up, every bit of levels < d-1 whose child filter is all zero
 * (no element can pass through such a bit, so membership is unchanged).
 * After an AND this restores "a set bit has a non-empty child".  Returns the
 * number of bits cleared.
 */
extern uint64_t bltree_prune(const BlTreeLayout *L, uint8_t *bits);

/*
 * The structural rule of every BloomTree: a filter below a zero bit is all
 * zero (only elements passing a set bit reach its child).  Returns -1 when
 * the array obeys it, else the first level a >= 1 with a violating filter,
 * whose index goes to *filter.
 */
extern int	bltree_check_structure(const BlTreeLayout *L, const uint8_t *bits,
								   uint64_t *filter);

/* true when no bit at a position >= storage_bits is set */
extern bool bltree_tail_is_clear(const BlTreeLayout *L, const uint8_t *bits);

/* set bits of level a */
extern uint64_t bltree_level_ones(const BlTreeLayout *L, const uint8_t *bits, int a);

/* binary entropy H(p) in bits */
extern double bltree_h2(double p);

/*
 * Theorem 4.1: the size in bits of the tree coded level by level with an
 * order-0 coder, sum over levels of L_a * H(ones_a / L_a).  ones[a] = set bits
 * of level a.
 */
extern double bltree_entropy_bits(const BlTreeLayout *L, const uint64_t *ones);

/*
 * The paper's posterior false-positive probability (equations 11 and 12),
 * computed exactly instead of by sampling queries: the geometric mean, over
 * the query processes of a non-member whose every position lands on a set
 * bit (each position uniform over the filter's set bits), of the product of
 * f^k over the visited filters (f = the filter's fill).  Recursively
 *    log G(filter) = k log f + k * mean over set bits b of log G(child(b)).
 * 0 for an empty tree.  This is NOT the rate at which non-members pass.
 */
extern double bltree_posterior_fp(const BlTreeLayout *L, const uint8_t *bits);

/*
 * The probability that a random non-member is reported as a member, given
 * these bits, for hash positions independent and uniform within each filter:
 * with s_b = P(bit b set and the element passes child(b)) (s_b = bit b at the
 * last level), a filter passes with
 *    sum over t = 1..k of t! S(k, t) m^(t-k) e_t(s_1/m, ..., s_m/m)
 * (S: Stirling numbers of the second kind, e_t: elementary symmetric
 * polynomials; t counts the distinct positions).  This is what a measurement
 * over many non-members converges to.
 */
extern double bltree_expected_fp(const BlTreeLayout *L, const uint8_t *bits);

#endif							/* BLTREE_H */
