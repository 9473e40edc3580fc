/*
 * cuckoo.h
 *    Cuckoo filters (Fan, Andersen, Kaminsky, Mitzenmacher, CoNEXT 2014): a
 *    (2,4) cuckoo hash table of f-bit fingerprints with partial-key cuckoo
 *    hashing (PostgreSQL-independent).
 *
 * The table has n buckets of CK_SLOTS slots; slot s of bucket i holds an
 * f-bit fingerprint (0 = empty) at bit offset (4 i + s) f of the table, bits
 * least significant first within each byte (as a bloomfilter's).
 *
 * An element is hashed once, by the bloomfilter scheme's XXH3-128 with the
 * filter's seed (bs_hash.h: key = h1, h2), and then:
 *
 *   fp  = h2 >> (64 - f), or 1 when that is 0   (f-bit fingerprint, non-zero)
 *
 * and its two buckets by one of two layouts:
 *
 *   power of two (n = 2^log2_buckets, the format of version 1 values):
 *     i1 = h1 & (n - 1),  i2 = i1 XOR (mix64(fp) & (n - 1))
 *   any n (buckets = n, version 2 values, what cuckoo_empty builds):
 *     i1 = (h1 * n) >> 64,  i2 = (r(fp) - i1) mod n,  r(fp) = (mix64(fp) * n) >> 64
 *
 * where mix64 is the splitmix64 finaliser and (x * n) >> 64 the 128-bit
 * product's high word (Lemire's multiply-shift range reduction).  Both
 * alternate-bucket maps are involutions (i XOR r XOR r = i; r - (r - i) = i
 * mod n), so a fingerprint found in either bucket knows the other one: that
 * is what lets a fingerprint move (and two filters merge) without the
 * element, and it needs no power of two in the second layout.  A lookup still
 * compares the fingerprint with at most 2 * CK_SLOTS slots (one bucket's
 * when i2 = i1), so the false-positive bound below holds for both.
 *
 * Insertion puts the fingerprint in an empty slot of i1, else of i2; when
 * both are full it evicts ("kicks") a fingerprint and moves it to its other
 * bucket, at most CK_MAX_KICKS times, and otherwise fails with the table
 * unchanged (the kicks are undone).  The bucket to start from and the slot to
 * evict are drawn from a splitmix64 stream seeded with the filter's seed, its
 * item count and the key, so the same insert sequence gives the same bytes.
 *
 * Sizing for capacity n and false-positive rate eps (Fan et al., section 5):
 *   f = ceil(log2(2 * CK_SLOTS / eps))   (clamped to [CK_MIN_FP_BITS, CK_MAX_FP_BITS])
 *   buckets = ceil(n / (CK_SLOTS * CK_TARGET_LOAD)) + 1 + ceil(sqrt(n) / 2)
 *   (any-n layout; the power-of-two layout rounded the first term up to a
 *   power of two).  The slack term is for small tables, which fill less
 *   evenly: without it, 148 of 5,500 trials (capacities 1 to 3,000, 20
 *   seeds each) failed to hold their capacity; with it none of 11,000 did.
 *   It adds 0.2% at n = 10^6.
 * A lookup compares the fingerprint with the 2 * CK_SLOTS slots of its two
 * buckets, so at load a the false-positive rate is
 *   1 - (1 - 1 / (2^f - 1))^(2 * CK_SLOTS * a)  ~=  2 * CK_SLOTS * a / 2^f.
 */
#ifndef CUCKOO_H
#define CUCKOO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bs_hash.h"

#define CK_SLOTS			4		/* fingerprints per bucket (b) */
#define CK_MAX_KICKS		500		/* evictions before an insertion fails */
#define CK_TARGET_LOAD		0.95	/* load a (2,4) table reaches (Fan et al.) */
#define CK_MIN_FP_BITS		4
#define CK_MAX_FP_BITS		32
#define CK_MIN_LOG2_BUCKETS	1
#define CK_MAX_LOG2_BUCKETS	28
#define CK_MIN_BUCKETS		2
#define CK_MAX_BUCKETS		(UINT64_C(1) << CK_MAX_LOG2_BUCKETS)
/* the table of fingerprints is at most 2^31 bits (256 MB) */
#define CK_MAX_TABLE_BITS	(UINT64_C(1) << 31)

/*
 * The layout is the power-of-two one when buckets is 0 (log2_buckets then
 * gives n), the any-n one otherwise (log2_buckets then 0).
 */
typedef struct CkParams
{
	uint8_t		fp_bits;		/* f */
	uint8_t		log2_buckets;	/* power-of-two layout: n = 2^log2_buckets */
	int32_t		seed;
	uint32_t	buckets;		/* any-n layout: n; 0 = power-of-two layout */
} CkParams;

/* an element as the table sees it */
typedef struct CkKey
{
	uint32_t	fp;				/* non-zero, < 2^f */
	uint64_t	bucket;			/* i1 */
} CkKey;

/* a table in a caller-owned buffer of ck_table_bytes() bytes */
typedef struct CkTable
{
	CkParams	p;
	uint64_t	mask;			/* buckets - 1: the last bucket (a mask in the power-of-two layout) */
	uint64_t	count;			/* non-empty slots */
	uint8_t    *slots;
} CkTable;

typedef enum CkSizeResult
{
	CK_SIZE_OK = 0,
	CK_SIZE_BAD_CAPACITY,		/* capacity < 1 */
	CK_SIZE_BAD_FP_RATE,		/* not in (0, 1), or needs more than 32 bits */
	CK_SIZE_TOO_LARGE			/* more than CK_MAX_TABLE_BITS */
} CkSizeResult;

/* parameters (any-n layout) for capacity n at false-positive rate eps (formulas above) */
extern CkSizeResult ck_params_for(int64_t capacity, double fp_rate, int32_t seed,
								  CkParams *p);

/* true when p's fields are in range and the table fits CK_MAX_TABLE_BITS */
extern bool ck_params_valid(const CkParams *p);
extern bool ck_params_equal(const CkParams *a, const CkParams *b);

static inline uint64_t
ck_buckets(const CkParams *p)
{
	return p->buckets != 0 ? (uint64_t) p->buckets : UINT64_C(1) << p->log2_buckets;
}

/* true for the power-of-two (XOR) layout of version 1 values */
static inline bool
ck_pow2_layout(const CkParams *p)
{
	return p->buckets == 0;
}

/* bits of the fingerprint table, bytes that hold them, bytes of the buffer */
static inline uint64_t
ck_table_bits(const CkParams *p)
{
	return ck_buckets(p) * CK_SLOTS * p->fp_bits;
}

static inline size_t
ck_payload_bytes(const CkParams *p)
{
	return (size_t) ((ck_table_bits(p) + 7) / 8);
}

/* the buffer: the payload rounded up to 64-bit words plus one word of slack */
static inline size_t
ck_table_bytes(const CkParams *p)
{
	return (size_t) (8 * ((ck_table_bits(p) + 63) / 64) + 8);
}

/* the hasher of the bloomfilter scheme whose keys ck_key() consumes */
extern void ck_hasher_init(BsHasher *h, int32_t seed);
extern CkKey ck_key(const CkParams *p, BsKey key);
extern uint64_t ck_alt_bucket(const CkParams *p, uint64_t bucket, uint32_t fp);

/* a view of buf holding count fingerprints (0 and a zeroed buf: a new table) */
extern void ck_table_init(CkTable *t, const CkParams *p, uint8_t *buf, uint64_t count);

extern uint32_t ck_slot_get(const CkTable *t, uint64_t bucket, int slot);
extern void ck_slot_put(CkTable *t, uint64_t bucket, int slot, uint32_t fp);

/* insert; false when the table is full (and then unchanged) */
extern bool ck_insert(CkTable *t, CkKey key);
extern bool ck_contains(const CkTable *t, CkKey key);

/* remove one copy of the fingerprint from its buckets; false if none */
extern bool ck_remove(CkTable *t, CkKey key);

/*
 * insert every fingerprint of src (same parameters) into dst; false when dst
 * fills up (dst then holds what was inserted so far)
 */
extern bool ck_merge(CkTable *dst, const CkTable *src);

/* ck_merge of src's buckets [first, first + n) only (callers chunk long merges) */
extern bool ck_merge_buckets(CkTable *dst, const CkTable *src, uint64_t first, uint64_t n);

/* non-empty slots of the whole table, or of buckets [first, first + n) */
extern uint64_t ck_count_items(const CkParams *p, const uint8_t *buf);
extern uint64_t ck_count_items_buckets(const CkParams *p, const uint8_t *buf,
									   uint64_t first, uint64_t n);

/* true when the payload's padding bits (beyond the table) are zero */
extern bool ck_tail_is_clear(const CkParams *p, const uint8_t *buf);

/* load factor and the expected false-positive rate at that load */
extern double ck_load(const CkTable *t);
extern double ck_expected_fp(const CkParams *p, double load);

#endif							/* CUCKOO_H */
