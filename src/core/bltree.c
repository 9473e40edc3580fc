/*
 * bltree.c
 *    BloomTree layout, hashing, insertion, membership, AND / OR / pruning,
 *    and the false-positive and entropy formulas.  The normative description
 *    of the layout and the hashing scheme is in bltree.h and docs/bloomtree.md.
 */
#include <math.h>
#include <string.h>

#include "bltree.h"

void		(*bltree_interrupt_hook) (void) = NULL;

/* call the interrupt hook once every 2^14 calls */
static inline void
maybe_interrupt(void)
{
	static unsigned int counter = 0;

	if ((++counter & 0x3FFF) == 0 && bltree_interrupt_hook)
		bltree_interrupt_hook();
}

static inline void
bit_clear(uint8_t *bits, uint64_t i)
{
	bits[i >> 3] &= (uint8_t) ~(1u << (i & 7));
}

/* ---- parameters and layout ---------------------------------------------- */

BlTreeParamError
bltree_layout_init(BlTreeLayout *L, const BlTreeParams *p)
{
	uint64_t	nfilters = 1,
				offset = 0,
				coef = 0,
				probes = 0,
				prod_k = 1;
	BsParams	hp;

	memset(L, 0, sizeof(*L));
	if (p->d < 1 || p->d > BLTREE_MAX_D)
		return BLTREE_ERR_D;
	for (int a = 0; a < p->d; a++)
		if (p->m[a] < BLTREE_MIN_M || p->m[a] > BLTREE_MAX_M)
			return BLTREE_ERR_M;
	for (int a = 0; a < p->d; a++)
		if (p->k[a] < BLTREE_MIN_K || p->k[a] > BLTREE_MAX_K)
			return BLTREE_ERR_K;
	L->p.d = p->d;
	L->p.seed = p->seed;
	for (int a = 0; a < p->d; a++)
	{
		uint64_t	lbits;

		L->p.m[a] = p->m[a];
		L->p.k[a] = p->k[a];
		/* nfilters * m <= BLTREE_MAX_STORAGE_BITS - offset, without overflow */
		if (nfilters > BLTREE_MAX_STORAGE_BITS / p->m[a])
			return BLTREE_ERR_STORAGE;
		lbits = nfilters * p->m[a];
		if (lbits > BLTREE_MAX_STORAGE_BITS - offset)
			return BLTREE_ERR_STORAGE;
		L->filters[a] = nfilters;
		L->level_bits[a] = lbits;
		L->offset[a] = offset;
		L->coef_base[a] = coef;
		offset += lbits;
		coef += nfilters * p->k[a];
		prod_k *= p->k[a];		/* <= 32^8 = 2^40 */
		probes += prod_k;
		nfilters = lbits;		/* one filter below every bit */
	}
	if (probes > BLTREE_MAX_PROBES)
		return BLTREE_ERR_PROBES;
	L->storage_bits = offset;
	L->probes = probes;
	hp.m = BS_MIN_M;
	hp.k = BS_MIN_K;
	hp.hash = BS_HASH_XXH3;
	hp.seed = p->seed;
	bs_hasher_init(&L->hasher, &hp);
	return BLTREE_OK;
}

bool
bltree_params_equal(const BlTreeParams *a, const BlTreeParams *b)
{
	if (a->d != b->d || a->seed != b->seed)
		return false;
	for (int i = 0; i < a->d; i++)
		if (a->m[i] != b->m[i] || a->k[i] != b->k[i])
			return false;
	return true;
}

BsKey
bltree_key_int64(const BlTreeLayout *L, int64_t x)
{
	return bs_key_int64(&L->hasher, x);
}

BsKey
bltree_key_bytes(const BlTreeLayout *L, const void *data, size_t len)
{
	return bs_key_bytes(&L->hasher, data, len);
}

/* ---- bit ranges --------------------------------------------------------- */

/* a word with the n lowest bits set (all 64 when n >= 64) */
static inline uint64_t
low_mask(uint64_t n)
{
	return n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;
}

uint64_t
bltree_range_popcount(const uint8_t *bits, uint64_t start, uint64_t len)
{
	uint64_t	end = start + len,
				w0 = start >> 6,
				w1;

	if (len == 0)
		return 0;
	w1 = (end - 1) >> 6;
	if (w0 == w1)
		return (uint64_t) bltree_popcount64((bs_load64le(bits + 8 * w0) >> (start & 63)) &
											   low_mask(len));
	return (uint64_t) bltree_popcount64(bs_load64le(bits + 8 * w0) >> (start & 63)) +
		bs_popcount(bits + 8 * (w0 + 1), (size_t) (w1 - w0 - 1)) +
		(uint64_t) bltree_popcount64(bs_load64le(bits + 8 * w1) & low_mask(end - 64 * w1));
}

bool
bltree_range_any(const uint8_t *bits, uint64_t start, uint64_t len)
{
	uint64_t	end = start + len;

	if (len == 0)
		return false;
	if (len <= 56)
		return bltree_get_bits(bits, start, (unsigned) len) != 0;
	for (uint64_t w = start >> 6; w <= (end - 1) >> 6; w++)
		if (bs_load64le(bits + 8 * w) & bltree_word_mask(w, start, end))
			return true;
	return false;
}

/* ---- insertion and membership ------------------------------------------- */

/* add p to the n distinct positions in pos unless already there */
static inline int
add_distinct(uint32_t *pos, int n, uint32_t p)
{
	for (int i = 0; i < n; i++)
		if (pos[i] == p)
			return n;
	pos[n] = p;
	return n + 1;
}

/* where filter b of level a lies and how its positions are drawn */
typedef struct FilterAt
{
	uint32_t	m;				/* its bits */
	int			k;				/* its positions per key */
	uint64_t	base;			/* its first bit in the tree's bits */
	uint64_t	coef;			/* the hash coefficient of its first position */
	bool		leaf;			/* of the last level: no children */
} FilterAt;

static inline FilterAt
filter_at(const BlTreeLayout *L, int a, uint64_t b)
{
	FilterAt	f;

	f.m = L->p.m[a];
	f.k = L->p.k[a];
	f.base = L->offset[a] + b * f.m;
	f.coef = L->coef_base[a] + b * (uint64_t) f.k + 1;
	f.leaf = a + 1 == L->p.d;
	return f;
}

/* insert key into filter b of level a, and below each of its positions into the next level */
static void
insert_rec(const BlTreeLayout *L, uint8_t *bits, BsKey key, int a, uint64_t b)
{
	FilterAt	f = filter_at(L, a, b);
	uint32_t	pos[BLTREE_MAX_K];
	int			n = 0;

	for (int j = 0; j < f.k; j++)
	{
		uint32_t	p = bltree_position(key, f.coef + (uint64_t) j, f.m);

		bs_bit_set(bits, f.base + p);
		if (!f.leaf)
			n = add_distinct(pos, n, p);
	}
	for (int i = 0; i < n; i++)
		insert_rec(L, bits, key, a + 1, b * f.m + pos[i]);
}

void
bltree_insert(const BlTreeLayout *L, uint8_t *bits, BsKey key)
{
	insert_rec(L, bits, key, 0, 0);
}

/* bltree_contains from filter b of level a down (loading levels through r) */
static bool
contains_rec(const BlTreeLayout *L, const uint8_t *bits, BsKey key, int a, uint64_t b,
			 BlTreeReader *r)
{
	FilterAt	f = filter_at(L, a, b);
	uint32_t	pos[BLTREE_MAX_K];
	int			n = 0;

	if (r != NULL && a >= r->ready)
		r->load(r, a);
	for (int j = 0; j < f.k; j++)
	{
		uint32_t	p = bltree_position(key, f.coef + (uint64_t) j, f.m);

		if (!bs_bit_test(bits, f.base + p))
			return false;
		if (!f.leaf)
			n = add_distinct(pos, n, p);
	}
	for (int i = 0; i < n; i++)
		if (!contains_rec(L, bits, key, a + 1, b * f.m + pos[i], r))
			return false;
	return true;
}

bool
bltree_contains(const BlTreeLayout *L, const uint8_t *bits, BsKey key, BlTreeReader *r)
{
	return contains_rec(L, bits, key, 0, 0, r);
}

/* ---- combining ---------------------------------------------------------- */

void
bltree_and(const BlTreeLayout *L, uint8_t *dst, const uint8_t *src)
{
	bs_and(dst, src, bs_words_for_bits(L->storage_bits));
}

void
bltree_or(const BlTreeLayout *L, uint8_t *dst, const uint8_t *src)
{
	bs_or(dst, src, bs_words_for_bits(L->storage_bits));
}

uint64_t
bltree_prune(const BlTreeLayout *L, uint8_t *bits)
{
	uint64_t	cleared = 0;

	for (int a = L->p.d - 2; a >= 0; a--)
	{
		uint64_t	mc = L->p.m[a + 1],
					child0 = L->offset[a + 1],
					i;
		BlTreeSetBits it;

		bltree_setbits_init(&it, bits, L->offset[a], L->level_bits[a]);
		while (bltree_setbits_next(&it, &i))
		{
			maybe_interrupt();
			if (!bltree_range_any(bits, child0 + i * mc, mc))
			{
				bit_clear(bits, L->offset[a] + i);
				cleared++;
			}
		}
	}
	return cleared;
}

int
bltree_check_structure(const BlTreeLayout *L, const uint8_t *bits, uint64_t *filter)
{
	for (int a = 1; a < L->p.d; a++)
	{
		uint64_t	start = L->offset[a - 1],
					end = start + L->level_bits[a - 1],
					m = L->p.m[a];

		/* the zero bits of level a-1, a word at a time */
		for (uint64_t w = start >> 6; w <= (end - 1) >> 6; w++)
		{
			uint64_t	z = ~bs_load64le(bits + 8 * w) & bltree_word_mask(w, start, end);

			maybe_interrupt();
			while (z)
			{
				uint64_t	i = 64 * w + (uint64_t) __builtin_ctzll(z) - start;

				z &= z - 1;
				if (bltree_range_any(bits, L->offset[a] + i * m, m))
				{
					*filter = i;
					return a;
				}
			}
		}
	}
	return -1;
}

bool
bltree_tail_is_clear(const BlTreeLayout *L, const uint8_t *bits)
{
	return bs_tail_is_clear(bits, (uint32_t) L->storage_bits);
}

uint64_t
bltree_level_ones(const BlTreeLayout *L, const uint8_t *bits, int a)
{
	return bltree_range_popcount(bits, L->offset[a], L->level_bits[a]);
}

/* ---- entropy and false positives ---------------------------------------- */

double
bltree_h2(double p)
{
	if (p <= 0.0 || p >= 1.0)
		return 0.0;
	return -p * log2(p) - (1.0 - p) * log2(1.0 - p);
}

double
bltree_entropy_bits(const BlTreeLayout *L, const uint64_t *ones)
{
	double		w = 0.0;

	for (int a = 0; a < L->p.d; a++)
		w += (double) L->level_bits[a] *
			bltree_h2((double) ones[a] / (double) L->level_bits[a]);
	return w;
}

/* log of the geometric-mean posterior of filter b of level a (-inf: empty) */
static double
posterior_rec(const BlTreeLayout *L, const uint8_t *bits, int a, uint64_t b)
{
	uint32_t	m = L->p.m[a];
	int			k = L->p.k[a];
	uint64_t	base = L->offset[a] + b * m,
				ones = 0,
				p;
	double		sum = 0.0;
	BlTreeSetBits it;

	maybe_interrupt();
	if (a + 1 == L->p.d)
		ones = bltree_range_popcount(bits, base, m);
	else
	{
		bltree_setbits_init(&it, bits, base, m);
		while (bltree_setbits_next(&it, &p))
		{
			sum += posterior_rec(L, bits, a + 1, b * m + p);
			ones++;
		}
	}
	if (ones == 0)
		return -INFINITY;
	return k * log((double) ones / m) + (a + 1 == L->p.d ? 0.0 : k * sum / (double) ones);
}

double
bltree_posterior_fp(const BlTreeLayout *L, const uint8_t *bits)
{
	return exp(posterior_rec(L, bits, 0, 0));
}

/* t! S(k, t) for 1 <= t <= k <= BLTREE_MAX_K: the onto maps of k positions to t bits */
static double onto[BLTREE_MAX_K + 1][BLTREE_MAX_K + 1];

/* fill onto[][] once, from the Stirling numbers of the second kind */
static void
init_onto(void)
{
	double		s[BLTREE_MAX_K + 1][BLTREE_MAX_K + 1];

	if (onto[1][1] == 1.0)
		return;
	memset(s, 0, sizeof(s));
	s[0][0] = 1.0;
	for (int n = 1; n <= BLTREE_MAX_K; n++)
		for (int t = 1; t <= n; t++)
			s[n][t] = t * s[n - 1][t] + s[n - 1][t - 1];
	for (int n = 1; n <= BLTREE_MAX_K; n++)
	{
		double		fact = 1.0;

		for (int t = 1; t <= n; t++)
		{
			fact *= t;
			onto[n][t] = fact * s[n][t];
		}
	}
}

/* probability that a random non-member passes filter b of level a */
static double
expected_rec(const BlTreeLayout *L, const uint8_t *bits, int a, uint64_t b)
{
	uint32_t	m = L->p.m[a];
	int			k = L->p.k[a],
				top = 0;
	uint64_t	base = L->offset[a] + b * m,
				p;
	double		e[BLTREE_MAX_K + 1],
				pass = 0.0;
	BlTreeSetBits it;

	maybe_interrupt();
	if (a + 1 == L->p.d)
		return pow((double) bltree_range_popcount(bits, base, m) / m, k);
	/* e[t] = elementary symmetric polynomial of degree t of the s_b / m */
	e[0] = 1.0;
	bltree_setbits_init(&it, bits, base, m);
	while (bltree_setbits_next(&it, &p))
	{
		double		x = expected_rec(L, bits, a + 1, b * m + p) / m;

		if (x <= 0.0)
			continue;
		if (top < k)
			e[++top] = 0.0;
		for (int t = top; t >= 1; t--)
			e[t] += e[t - 1] * x;
	}
	for (int t = 1; t <= top; t++)
		pass += onto[k][t] * pow((double) m, (double) (t - k)) * e[t];
	return pass;
}

double
bltree_expected_fp(const BlTreeLayout *L, const uint8_t *bits)
{
	init_onto();
	return expected_rec(L, bits, 0, 0);
}
