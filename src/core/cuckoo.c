/*
 * cuckoo.c
 *    Cuckoo filters: sizing, fingerprint and bucket derivation, insertion with
 *    bounded deterministic kicks, lookup, removal, merge.  The scheme is
 *    described in cuckoo.h and docs/hashing.md.
 */
#include "cuckoo.h"
#include "bs_bits.h"

#include <math.h>
#include <string.h>

static inline uint64_t
mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* (x * n) >> 64: x reduced to [0, n) without a division */
static inline uint64_t
range_reduce(uint64_t x, uint64_t n)
{
	return (uint64_t) (((unsigned __int128) x * n) >> 64);
}

static inline uint64_t
splitmix64_next(uint64_t *state)
{
	return mix64(*state += UINT64_C(0x9E3779B97F4A7C15));
}

CkSizeResult
ck_params_for(int64_t capacity, double fp_rate, int32_t seed, CkParams *p)
{
	double		bits;
	double		need;

	if (capacity < 1)
		return CK_SIZE_BAD_CAPACITY;
	if (!(fp_rate > 0.0 && fp_rate < 1.0))
		return CK_SIZE_BAD_FP_RATE;
	bits = ceil(log2(2.0 * CK_SLOTS / fp_rate));
	if (bits > CK_MAX_FP_BITS)
		return CK_SIZE_BAD_FP_RATE;
	if (bits < CK_MIN_FP_BITS)
		bits = CK_MIN_FP_BITS;
	/* the slack: small tables fill less evenly (cuckoo.h) */
	need = ceil((double) capacity / (CK_SLOTS * CK_TARGET_LOAD)) + 1 +
		ceil(sqrt((double) capacity) / 2);
	if (need < CK_MIN_BUCKETS)
		need = CK_MIN_BUCKETS;
	if (need > (double) CK_MAX_BUCKETS)
		return CK_SIZE_TOO_LARGE;
	p->fp_bits = (uint8_t) bits;
	p->log2_buckets = 0;
	p->buckets = (uint32_t) need;
	p->seed = seed;
	if (!ck_params_valid(p))
		return CK_SIZE_TOO_LARGE;
	return CK_SIZE_OK;
}

bool
ck_params_valid(const CkParams *p)
{
	if (p->fp_bits < CK_MIN_FP_BITS || p->fp_bits > CK_MAX_FP_BITS)
		return false;
	if (ck_pow2_layout(p) ? p->log2_buckets < CK_MIN_LOG2_BUCKETS ||
		p->log2_buckets > CK_MAX_LOG2_BUCKETS :
		p->log2_buckets != 0 || p->buckets < CK_MIN_BUCKETS || p->buckets > CK_MAX_BUCKETS)
		return false;
	return ck_table_bits(p) <= CK_MAX_TABLE_BITS;
}

bool
ck_params_equal(const CkParams *a, const CkParams *b)
{
	return a->fp_bits == b->fp_bits && a->log2_buckets == b->log2_buckets &&
		a->buckets == b->buckets && a->seed == b->seed;
}

void
ck_hasher_init(BsHasher *h, int32_t seed)
{
	BsParams	bp;

	/* m and k are not used by the keys, only by positions */
	bp.m = BS_MIN_M;
	bp.k = BS_MIN_K;
	bp.hash = BS_HASH_XXH3;
	bp.seed = seed;
	bs_hasher_init(h, &bp);
}

CkKey
ck_key(const CkParams *p, BsKey key)
{
	CkKey		k;

	k.fp = (uint32_t) (key.h2 >> (64 - p->fp_bits));
	if (k.fp == 0)
		k.fp = 1;
	k.bucket = ck_pow2_layout(p) ? key.h1 & (ck_buckets(p) - 1) : range_reduce(key.h1, p->buckets);
	return k;
}

uint64_t
ck_alt_bucket(const CkParams *p, uint64_t bucket, uint32_t fp)
{
	uint64_t	r;

	if (ck_pow2_layout(p))
		return bucket ^ (mix64(fp) & (ck_buckets(p) - 1));
	/* (r - bucket) mod n, for bucket < n */
	r = range_reduce(mix64(fp), p->buckets);
	return r >= bucket ? r - bucket : r + p->buckets - bucket;
}

uint64_t
ck_count_items_buckets(const CkParams *p, const uint8_t *buf, uint64_t first, uint64_t n)
{
	CkTable		t;
	uint64_t	items = 0;

	t.p = *p;
	t.mask = ck_buckets(p) - 1;
	t.slots = (uint8_t *) buf;
	for (uint64_t b = first; b < first + n && b <= t.mask; b++)
		for (int s = 0; s < CK_SLOTS; s++)
			items += ck_slot_get(&t, b, s) != 0;
	return items;
}

uint64_t
ck_count_items(const CkParams *p, const uint8_t *buf)
{
	return ck_count_items_buckets(p, buf, 0, ck_buckets(p));
}

void
ck_table_init(CkTable *t, const CkParams *p, uint8_t *buf, uint64_t count)
{
	t->p = *p;
	t->mask = ck_buckets(p) - 1;
	t->slots = buf;
	t->count = count;
}

uint32_t
ck_slot_get(const CkTable *t, uint64_t bucket, int slot)
{
	uint64_t	off = (bucket * CK_SLOTS + (uint64_t) slot) * t->p.fp_bits;
	uint64_t	w = bs_load64le(t->slots + (off >> 3));

	return (uint32_t) ((w >> (off & 7)) & ((UINT64_C(1) << t->p.fp_bits) - 1));
}

void
ck_slot_put(CkTable *t, uint64_t bucket, int slot, uint32_t fp)
{
	uint64_t	off = (bucket * CK_SLOTS + (uint64_t) slot) * t->p.fp_bits;
	uint8_t    *at = t->slots + (off >> 3);
	uint64_t	mask = ((UINT64_C(1) << t->p.fp_bits) - 1) << (off & 7);
	uint64_t	w = bs_load64le(at);

	w = (w & ~mask) | (((uint64_t) fp << (off & 7)) & mask);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	bs_store64(at, w);
}

/* put fp in the first empty slot of the bucket; false when it is full */
static bool
put_in_empty_slot(CkTable *t, uint64_t bucket, uint32_t fp)
{
	for (int s = 0; s < CK_SLOTS; s++)
		if (ck_slot_get(t, bucket, s) == 0)
		{
			ck_slot_put(t, bucket, s, fp);
			return true;
		}
	return false;
}

bool
ck_insert(CkTable *t, CkKey key)
{
	uint64_t	path_bucket[CK_MAX_KICKS];
	uint8_t		path_slot[CK_MAX_KICKS];
	uint64_t	alt = ck_alt_bucket(&t->p, key.bucket, key.fp);
	uint64_t	rng;
	uint64_t	bucket;
	uint32_t	cur = key.fp;

	if (put_in_empty_slot(t, key.bucket, key.fp) || put_in_empty_slot(t, alt, key.fp))
	{
		t->count++;
		return true;
	}
	/* deterministic: the same table and key always take the same path */
	rng = mix64((uint64_t) (uint32_t) t->p.seed ^ mix64(t->count + 1)) ^
		mix64(key.bucket * 2 + 1) ^ key.fp;
	bucket = (splitmix64_next(&rng) & 1) ? alt : key.bucket;
	for (int n = 0; n < CK_MAX_KICKS; n++)
	{
		int			s = (int) (splitmix64_next(&rng) % CK_SLOTS);
		uint32_t	victim = ck_slot_get(t, bucket, s);

		ck_slot_put(t, bucket, s, cur);
		path_bucket[n] = bucket;
		path_slot[n] = (uint8_t) s;
		cur = victim;
		bucket = ck_alt_bucket(&t->p, bucket, cur);
		if (put_in_empty_slot(t, bucket, cur))
		{
			t->count++;
			return true;
		}
	}
	/* full: undo the kicks, newest first, so the table is as it was */
	for (int n = CK_MAX_KICKS - 1; n >= 0; n--)
	{
		uint32_t	back = ck_slot_get(t, path_bucket[n], path_slot[n]);

		ck_slot_put(t, path_bucket[n], path_slot[n], cur);
		cur = back;
	}
	return false;
}

static bool
bucket_has(const CkTable *t, uint64_t bucket, uint32_t fp)
{
	for (int s = 0; s < CK_SLOTS; s++)
		if (ck_slot_get(t, bucket, s) == fp)
			return true;
	return false;
}

bool
ck_contains(const CkTable *t, CkKey key)
{
	return bucket_has(t, key.bucket, key.fp) ||
		bucket_has(t, ck_alt_bucket(&t->p, key.bucket, key.fp), key.fp);
}

/* clear the first slot of the bucket holding fp; false if none does */
static bool
clear_one(CkTable *t, uint64_t bucket, uint32_t fp)
{
	for (int s = 0; s < CK_SLOTS; s++)
		if (ck_slot_get(t, bucket, s) == fp)
		{
			ck_slot_put(t, bucket, s, 0);
			return true;
		}
	return false;
}

bool
ck_remove(CkTable *t, CkKey key)
{
	if (clear_one(t, key.bucket, key.fp) ||
		clear_one(t, ck_alt_bucket(&t->p, key.bucket, key.fp), key.fp))
	{
		t->count--;
		return true;
	}
	return false;
}

bool
ck_merge(CkTable *dst, const CkTable *src)
{
	return ck_merge_buckets(dst, src, 0, src->mask + 1);
}

bool
ck_merge_buckets(CkTable *dst, const CkTable *src, uint64_t first, uint64_t n)
{
	for (uint64_t b = first; b < first + n && b <= src->mask; b++)
		for (int s = 0; s < CK_SLOTS; s++)
		{
			CkKey		key;

			key.fp = ck_slot_get(src, b, s);
			key.bucket = b;
			if (key.fp != 0 && !ck_insert(dst, key))
				return false;
		}
	return true;
}

bool
ck_tail_is_clear(const CkParams *p, const uint8_t *buf)
{
	uint64_t	bits = ck_table_bits(p);
	size_t		full = (size_t) (bits / 8);

	if ((bits & 7) && (buf[full] >> (bits & 7)) != 0)
		return false;
	for (size_t b = (size_t) ((bits + 7) / 8); b < ck_table_bytes(p); b++)
		if (buf[b] != 0)
			return false;
	return true;
}

double
ck_load(const CkTable *t)
{
	return (double) t->count / (double) (ck_buckets(&t->p) * CK_SLOTS);
}

double
ck_expected_fp(const CkParams *p, double load)
{
	double		per_slot = 1.0 / (ldexp(1.0, p->fp_bits) - 1.0);

	return -expm1(2.0 * CK_SLOTS * load * log1p(-per_slot));
}
