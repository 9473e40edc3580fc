/*
 * test_bloomtree.c
 *    Unit tests of the BloomTree core: layout and parameter limits, the hashing
 *    scheme (vectors from the independent Python implementation
 *    test/ref/bloomtree_ref.py), insertion and membership (no false
 *    negatives; measured false-positive rate against bltree_expected_fp), the
 *    false-positive formulas on trees small enough to work out by hand, AND /
 *    OR / pruning, the structural check, and the level-wise range coder
 *    (round trips on random and adversarial levels, exact stream lengths,
 *    size against the entropy, rejection of malformed streams).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bltree.h"
#include "bltree_code.h"
#include "unit.h"

/* the parameters of a tree of d levels with these m, k and seed */
static BlTreeParams
params(int d, const uint32_t *m, const uint8_t *k, int32_t seed)
{
	BlTreeParams p;

	memset(&p, 0, sizeof(p));
	p.d = d;
	p.seed = seed;
	for (int a = 0; a < d; a++)
	{
		p.m[a] = m[a];
		p.k[a] = k[a];
	}
	return p;
}

/* a zeroed bit array for layout L (the caller frees it) */
static uint8_t *
new_array(const BlTreeLayout *L)
{
	return calloc(BLTREE_ARRAY_BYTES(L->storage_bits), 1);
}

/* a key from a deterministic stream (a random element, hashed) */
static BsKey
random_key(unsigned long long *state)
{
	BsKey		k;

	k.h1 = unit_splitmix64(state);
	k.h2 = unit_splitmix64(state);
	return k;
}

static void
test_layout(void)
{
	BlTreeLayout L;
	BlTreeParams p = params(3, (const uint32_t[]) {16, 4, 3}, (const uint8_t[]) {3, 2, 2}, 5);

	CHECK(bltree_layout_init(&L, &p) == BLTREE_OK, "valid parameters");
	CHECK(L.filters[0] == 1 && L.filters[1] == 16 && L.filters[2] == 64, "filters per level");
	CHECK(L.level_bits[0] == 16 && L.level_bits[1] == 64 && L.level_bits[2] == 192, "bits per level");
	CHECK(L.offset[0] == 0 && L.offset[1] == 16 && L.offset[2] == 80, "level offsets (eq. 6)");
	/* eq. 9: root takes 1..3, level 2 takes 16 filters * 2, level 3 starts after 3 + 32 */
	CHECK(L.coef_base[0] == 0 && L.coef_base[1] == 3 && L.coef_base[2] == 35, "coefficient bases");
	CHECK(L.storage_bits == 272 && L.probes == 3 + 6 + 12, "storage %llu probes %llu",
		  (unsigned long long) L.storage_bits, (unsigned long long) L.probes);

	p.d = 0;
	CHECK(bltree_layout_init(&L, &p) == BLTREE_ERR_D, "d = 0");
	p.d = 9;
	CHECK(bltree_layout_init(&L, &p) == BLTREE_ERR_D, "d = 9");
	p = params(2, (const uint32_t[]) {16, 0}, (const uint8_t[]) {3, 2}, 0);
	CHECK(bltree_layout_init(&L, &p) == BLTREE_ERR_M, "m = 0");
	p = params(2, (const uint32_t[]) {16, 4}, (const uint8_t[]) {33, 2}, 0);
	CHECK(bltree_layout_init(&L, &p) == BLTREE_ERR_K, "k = 33");
	p = params(2, (const uint32_t[]) {16, 4}, (const uint8_t[]) {3, 0}, 0);
	CHECK(bltree_layout_init(&L, &p) == BLTREE_ERR_K, "k = 0");
	/* 2^31 bits exactly is allowed, one more is not */
	p = params(1, (const uint32_t[]) {BLTREE_MAX_M}, (const uint8_t[]) {1}, 0);
	CHECK(bltree_layout_init(&L, &p) == BLTREE_OK, "2^31 - 1 root bits");
	p = params(2, (const uint32_t[]) {1 << 16, 1 << 15}, (const uint8_t[]) {1, 1}, 0);
	CHECK(bltree_layout_init(&L, &p) == BLTREE_ERR_STORAGE, "2^16 + 2^31 bits");
	p = params(2, (const uint32_t[]) {1 << 15, 1 << 16}, (const uint8_t[]) {1, 1}, 0);
	CHECK(bltree_layout_init(&L, &p) == BLTREE_ERR_STORAGE, "2^15 + 2^31 bits");
	p = params(8, (const uint32_t[]) {BLTREE_MAX_M, BLTREE_MAX_M, BLTREE_MAX_M, BLTREE_MAX_M,
		BLTREE_MAX_M, BLTREE_MAX_M, BLTREE_MAX_M, BLTREE_MAX_M}, (const uint8_t[]) {1, 1, 1, 1, 1, 1, 1, 1}, 0);
	CHECK(bltree_layout_init(&L, &p) == BLTREE_ERR_STORAGE, "no overflow with huge m");
	p = params(4, (const uint32_t[]) {2, 2, 2, 2}, (const uint8_t[]) {32, 32, 32, 32}, 0);
	CHECK(bltree_layout_init(&L, &p) == BLTREE_ERR_PROBES, "32^4 probes per element");
	p = params(3, (const uint32_t[]) {2, 2, 2}, (const uint8_t[]) {32, 32, 32}, 0);
	CHECK(bltree_layout_init(&L, &p) == BLTREE_OK, "32 + 32^2 + 32^3 probes");
}

static void
test_bit_ranges(void)
{
	uint8_t		a[40] = {0};
	BlTreeSetBits it;
	uint64_t	i,
				got[8];
	int			n = 0;

	for (uint64_t b = 60; b < 200; b += 7)
		a[b >> 3] |= (uint8_t) (1u << (b & 7));
	CHECK(bltree_range_popcount(a, 60, 140) == 20, "popcount across words");
	CHECK(bltree_range_popcount(a, 61, 6) == 0 && bltree_range_popcount(a, 60, 1) == 1, "popcount small");
	CHECK(bltree_range_popcount(a, 67, 128) == 19, "popcount middle");
	CHECK(!bltree_range_any(a, 61, 6) && bltree_range_any(a, 61, 7), "any small");
	CHECK(!bltree_range_any(a, 200, 100) && bltree_range_any(a, 0, 200), "any long");
	CHECK(bltree_get_bits(a, 60, 7) == 1 && bltree_get_bits(a, 60, 8) == 0x81 &&
		  bltree_get_bits(a, 61, 56) == 0x81020408102040ULL, "get bits");
	bltree_setbits_init(&it, a, 100, 40);
	while (bltree_setbits_next(&it, &i) && n < 8)
		got[n++] = i;
	/* set bits in [100, 140): 102, 109, 116, 123, 130, 137 */
	CHECK(n == 6 && got[0] == 2 && got[5] == 37, "set-bit iterator (%d)", n);
	bltree_setbits_init(&it, a, 5, 0);
	CHECK(!bltree_setbits_next(&it, &i), "empty range");
}

/* build a tree of n random keys, the keys in *keys (caller frees) */
static uint8_t *
build(const BlTreeLayout *L, int n, unsigned long long seed, BsKey **keys)
{
	uint8_t    *bits = new_array(L);
	unsigned long long s = seed;

	*keys = malloc(sizeof(BsKey) * (size_t) n);
	for (int i = 0; i < n; i++)
	{
		(*keys)[i] = random_key(&s);
		bltree_insert(L, bits, (*keys)[i]);
	}
	return bits;
}

/*
 * The paper's d = 3 configuration (m = 4, 3; k = 6, 3, 2) at rho_1 = 1: no
 * false negatives, and the rate measured over 400k non-members matches
 * bltree_expected_fp (the measured rate's standard error is about 0.7%
 * here); the posterior of equations 11-12 is far below it.
 */
static void
test_membership_and_fp(void)
{
	const int	n = 20000;
	BlTreeParams p = params(3, (const uint32_t[]) {n, 4, 3}, (const uint8_t[]) {6, 3, 2}, 0);
	BlTreeLayout L;
	BsKey	   *keys;
	uint8_t    *bits;
	unsigned long long s = 99;
	int			fn = 0,
				fp = 0,
				nq = 400000;
	double		expected,
				posterior,
				measured;

	bltree_layout_init(&L, &p);
	bits = build(&L, n, 1, &keys);
	for (int i = 0; i < n; i++)
		fn += !bltree_contains(&L, bits, keys[i], NULL);
	CHECK(fn == 0, "no false negatives (%d)", fn);
	for (int i = 0; i < nq; i++)
		fp += bltree_contains(&L, bits, random_key(&s), NULL);
	measured = (double) fp / nq;
	expected = bltree_expected_fp(&L, bits);
	posterior = bltree_posterior_fp(&L, bits);
	CHECK(fabs(measured / expected - 1) < 0.04, "measured %.5f vs expected %.5f", measured, expected);
	CHECK(posterior < expected / 10 && posterior > 0, "posterior %.6f well below expected %.5f",
		  posterior, expected);
	CHECK(bltree_check_structure(&L, bits, &(uint64_t) {0}) == -1, "structure of a built tree");
	free(bits);
	free(keys);
}

/*
 * Hand-computed formulas: d = 2, root m = 2, k = 1 with both bits set; child
 * 0 = [1, 0], child 1 = [1, 1], k = 1.
 *   posterior: log G = 1*log(1) + mean(1*log(1/2), 1*log(1)) -> G = sqrt(1/2)
 *   expected:  root passes with (s_0 + s_1) / 2 = (1/2 + 1) / 2 = 3/4
 * and with k = 2 in both levels:
 *   posterior: G = exp(2*log 1 + 2 * mean(2 log(1/2), 0)) = 1/4
 *   expected:  child 0 passes with 1/4, child 1 with 1; root: positions
 *              (0,0) 1/4, (1,1) 1/4 * 1, (0,1),(1,0) 1/2 * 1/4 * 1 -> 1/16 + 1/4 + 1/8 = 7/16
 */
static void
test_formulas_by_hand(void)
{
	for (int k = 1; k <= 2; k++)
	{
		BlTreeParams p = params(2, (const uint32_t[]) {2, 2}, (const uint8_t[]) {(uint8_t) k, (uint8_t) k}, 0);
		BlTreeLayout L;
		uint8_t    *bits;
		uint64_t	ones[2];

		bltree_layout_init(&L, &p);
		bits = new_array(&L);
		/* root bits 0, 1; level 2 bits 2 (child 0, bit 0), 4, 5 (child 1) */
		bits[0] = 1 | 2 | 4 | 16 | 32;
		CHECK_CLOSE(bltree_posterior_fp(&L, bits), k == 1 ? sqrt(0.5) : 0.25, 1e-12);
		CHECK_CLOSE(bltree_expected_fp(&L, bits), k == 1 ? 0.75 : 7.0 / 16, 1e-12);
		ones[0] = bltree_level_ones(&L, bits, 0);
		ones[1] = bltree_level_ones(&L, bits, 1);
		CHECK(ones[0] == 2 && ones[1] == 3, "level ones");
		/* Theorem 4.1: 2 * H(1) + 4 * H(3/4) */
		CHECK_CLOSE(bltree_entropy_bits(&L, ones), 4 * bltree_h2(0.75), 1e-12);
		CHECK_CLOSE(bltree_h2(0.75), 0.8112781244591328, 1e-12);
		bits[0] = 0;
		CHECK(bltree_posterior_fp(&L, bits) == 0 && bltree_expected_fp(&L, bits) == 0, "empty tree");
		free(bits);
	}
}

/*
 * AND / OR / prune on trees A = keys 0..n-1, B = keys n/2..3n/2-1: A & B has
 * every common key, A | B every key; pruning changes no answer, is
 * idempotent, and pruning after each AND equals pruning once.
 */
static void
test_and_or_prune(void)
{
	const int	n = 3000;
	BlTreeParams p = params(3, (const uint32_t[]) {n, 4, 3}, (const uint8_t[]) {4, 2, 2}, 7);
	BlTreeLayout L;
	unsigned long long s = 5;
	BsKey	   *keys = malloc(sizeof(BsKey) * 2 * n);
	uint8_t    *a,
			   *b,
			   *c,
			   *ab,
			   *abp,
			   *aob,
			   *t;
	size_t		nb;
	int			fn_and = 0,
				fn_or = 0,
				differ = 0;
	uint64_t	cleared;

	bltree_layout_init(&L, &p);
	nb = BLTREE_ARRAY_BYTES(L.storage_bits);
	a = new_array(&L);
	b = new_array(&L);
	c = new_array(&L);
	for (int i = 0; i < 2 * n; i++)
		keys[i] = random_key(&s);
	for (int i = 0; i < n; i++)
		bltree_insert(&L, a, keys[i]);
	for (int i = n / 2; i < n + n / 2; i++)
		bltree_insert(&L, b, keys[i]);
	for (int i = 0; i < 2 * n; i += 3)
		bltree_insert(&L, c, keys[i]);
	ab = malloc(nb);
	memcpy(ab, a, nb);
	bltree_and(&L, ab, b);
	aob = malloc(nb);
	memcpy(aob, a, nb);
	bltree_or(&L, aob, b);
	for (int i = n / 2; i < n; i++)
		fn_and += !bltree_contains(&L, ab, keys[i], NULL);
	for (int i = 0; i < n + n / 2; i++)
		fn_or += !bltree_contains(&L, aob, keys[i], NULL);
	CHECK(fn_and == 0 && fn_or == 0, "AND keeps common keys (%d), OR keeps all (%d)", fn_and, fn_or);
	CHECK(bltree_check_structure(&L, ab, &(uint64_t) {0}) == -1 &&
		  bltree_check_structure(&L, aob, &(uint64_t) {0}) == -1, "AND / OR keep the structure");

	abp = malloc(nb);
	memcpy(abp, ab, nb);
	cleared = bltree_prune(&L, abp);
	CHECK(cleared > 0, "an AND leaves bits with empty children (%llu)", (unsigned long long) cleared);
	for (int i = 0; i < 2 * n; i++)
		differ += bltree_contains(&L, ab, keys[i], NULL) != bltree_contains(&L, abp, keys[i], NULL);
	for (int i = 0; i < 200000; i++)
	{
		BsKey		x = random_key(&s);

		differ += bltree_contains(&L, ab, x, NULL) != bltree_contains(&L, abp, x, NULL);
	}
	CHECK(differ == 0, "pruning changes no answer (%d)", differ);
	CHECK(bltree_prune(&L, abp) == 0, "pruning is idempotent");
	CHECK(bltree_expected_fp(&L, abp) == bltree_expected_fp(&L, ab) ||
		  fabs(bltree_expected_fp(&L, abp) / bltree_expected_fp(&L, ab) - 1) < 1e-12,
		  "expected fp ignores dead bits");
	CHECK(bltree_posterior_fp(&L, ab) == 0 && bltree_posterior_fp(&L, abp) > 0,
		  "posterior of an unpruned AND is 0, of the pruned one positive");

	/* prune(prune(a & b) & c) == prune(a & b & c) */
	t = malloc(nb);
	memcpy(t, abp, nb);
	bltree_and(&L, t, c);
	bltree_prune(&L, t);
	memcpy(ab, a, nb);
	bltree_and(&L, ab, b);
	bltree_and(&L, ab, c);
	bltree_prune(&L, ab);
	CHECK(memcmp(t, ab, nb) == 0, "pruning commutes with AND");
	free(a);
	free(b);
	free(c);
	free(ab);
	free(abp);
	free(aob);
	free(t);
	free(keys);
}

static void
test_structure_check(void)
{
	BlTreeParams p = params(3, (const uint32_t[]) {100, 70, 3}, (const uint8_t[]) {2, 1, 1}, 0);
	BlTreeLayout L;
	uint8_t    *bits;
	uint64_t	f = 0;
	unsigned long long s = 3;

	bltree_layout_init(&L, &p);
	bits = new_array(&L);
	for (int i = 0; i < 30; i++)
		bltree_insert(&L, bits, random_key(&s));
	CHECK(bltree_check_structure(&L, bits, &f) == -1, "valid");
	/* root bit 0..99: find a zero one and set a bit in its child (70-bit filter, > 56) */
	for (uint64_t i = 0; i < 100; i++)
		if (!(bits[i >> 3] >> (i & 7) & 1))
		{
			uint64_t	at = L.offset[1] + i * 70 + 69;

			bits[at >> 3] |= (uint8_t) (1u << (at & 7));
			CHECK(bltree_check_structure(&L, bits, &f) == 1 && f == i, "level-2 filter %llu", (unsigned long long) i);
			bits[at >> 3] &= (uint8_t) ~(1u << (at & 7));
			break;
		}
	/* a level-3 bit below a zero level-2 bit */
	for (uint64_t i = 0; i < L.level_bits[1]; i++)
	{
		uint64_t	g = L.offset[1] + i;

		if (!(bits[g >> 3] >> (g & 7) & 1))
		{
			uint64_t	at = L.offset[2] + i * 3;

			bits[at >> 3] |= (uint8_t) (1u << (at & 7));
			CHECK(bltree_check_structure(&L, bits, &f) == 2 && f == i, "level-3 filter");
			break;
		}
	}
	free(bits);
}

/* ---- the coder ---------------------------------------------------------- */

/* the first n bits of a and b are equal */
static bool
same_bits(const uint8_t *a, const uint8_t *b, uint64_t n)
{
	if (memcmp(a, b, n / 8) != 0)
		return false;
	return n % 8 == 0 || ((a[n / 8] ^ b[n / 8]) & ((1u << (n % 8)) - 1)) == 0;
}

/* code every level, decode into a fresh array, compare; returns total bytes */
static uint64_t
round_trip(const BlTreeLayout *L, const uint8_t *bits, const char *what, int *modes)
{
	size_t		nb = BLTREE_ARRAY_BYTES(L->storage_bits);
	uint8_t    *back = calloc(nb, 1);
	uint64_t	total = 0;
	bool		ok = true;

	memset(back, 0xA5, nb - 8);	/* decoding must overwrite every level bit */
	for (int a = 0; a < L->p.d; a++)
	{
		BlTreeLevelCode lc,
					dc;
		uint8_t    *buf = malloc(bltree_level_max_bytes(L, a) + 1);
		BlTreeDecodeError e;

		bltree_encode_level(L, bits, a, &lc, buf);
		if (modes)
			modes[lc.mode]++;
		memset(&dc, 0, sizeof(dc));
		dc.mode = lc.mode;
		dc.prob0 = lc.prob0;
		dc.nbytes = lc.nbytes;
		e = bltree_decode_level(L, back, a, &dc, buf);
		if (e != BLTREE_DECODE_OK || dc.ones != lc.ones || dc.coded_bits != lc.coded_bits)
		{
			ok = false;
			fprintf(stderr, "%s: level %d mode %s: %s\n", what, a, bltree_mode_name(lc.mode),
					bltree_decode_error_string(e));
		}
		/* a stream one byte short, or with one byte more, is refused */
		if (lc.mode == BLTREE_MODE_RANGE)
		{
			uint8_t    *b2 = calloc(lc.nbytes + 1, 1);
			uint8_t    *scratch = calloc(nb, 1);

			memcpy(scratch, back, nb);
			memcpy(b2, buf, lc.nbytes);
			dc.nbytes = lc.nbytes - 1;
			CHECK(bltree_decode_level(L, scratch, a, &dc, b2) == BLTREE_DECODE_TRUNCATED,
				  "%s level %d: short stream", what, a);
			dc.nbytes = lc.nbytes + 1;
			CHECK(bltree_decode_level(L, scratch, a, &dc, b2) == BLTREE_DECODE_TRAILING,
				  "%s level %d: long stream", what, a);
			free(b2);
			free(scratch);
		}
		total += lc.nbytes;
		free(buf);
	}
	CHECK(ok && same_bits(back, bits, L->storage_bits), "%s: round trip", what);
	free(back);
	return total;
}

/* random trees of many shapes and loads round-trip, within entropy + 5 bytes a level */
static void
test_coder_random(void)
{
	unsigned long long s = 1234;
	int			modes[BLTREE_NUM_MODES] = {0};

	for (int t = 0; t < 60; t++)
	{
		BlTreeParams p;
		BlTreeLayout L;
		uint8_t    *bits;
		int			n;
		uint64_t	bytes;
		double		h;
		char		what[64];

		memset(&p, 0, sizeof(p));
		p.d = 1 + (int) (unit_splitmix64(&s) % 4);
		for (int a = 0; a < p.d; a++)
		{
			p.m[a] = a == 0 ? 1 + (uint32_t) (unit_splitmix64(&s) % 3000) :
				1 + (uint32_t) (unit_splitmix64(&s) % (t % 5 == 0 ? 90 : 8));
			p.k[a] = 1 + (uint8_t) (unit_splitmix64(&s) % 4);
		}
		if (bltree_layout_init(&L, &p) != BLTREE_OK || L.storage_bits > 4000000)
			continue;
		bits = new_array(&L);
		n = t == 1 ? 0 : (int) (unit_splitmix64(&s) % (2 * p.m[0] + 2));
		for (int i = 0; i < n; i++)
			bltree_insert(&L, bits, random_key(&s));
		snprintf(what, sizeof(what), "random tree %d (d=%d, n=%d)", t, p.d, n);
		bytes = round_trip(&L, bits, what, modes);
		h = bltree_coded_entropy_bits(&L, bits) / 8;
		CHECK(bytes <= h + 5.0 * p.d + 0.001 * h, "%s: %llu bytes vs entropy %.1f", what,
			  (unsigned long long) bytes, h);
		free(bits);
	}
	CHECK(modes[BLTREE_MODE_ZERO] > 0 && modes[BLTREE_MODE_ONE] > 0 &&
		  modes[BLTREE_MODE_RANGE] > 0 && modes[BLTREE_MODE_RAW] > 0,
		  "every mode used: %d %d %d %d", modes[0], modes[1], modes[2], modes[3]);
}

/* adversarial single-level contents: skew, runs, patterns, long 0xFF carries */
static void
test_coder_adversarial(void)
{
	const uint32_t m = 50000;
	BlTreeParams p = params(1, (const uint32_t[]) {m}, (const uint8_t[]) {1}, 0);
	BlTreeLayout L;
	unsigned long long s = 77;

	bltree_layout_init(&L, &p);
	for (int c = 0; c < 9; c++)
	{
		uint8_t    *bits = new_array(&L);
		char		what[64];
		uint64_t	bytes;
		double		h;

		for (uint32_t i = 0; i < m; i++)
		{
			bool		v = false;

			switch (c)
			{
				case 0:
					v = i == 31337;	/* one 1: p0 rounds to 65535 */
					break;
				case 1:
					v = i != 4242;	/* one 0: p0 clamps to 1 */
					break;
				case 2:
					v = i < m / 2;	/* two runs */
					break;
				case 3:
					v = i & 1;	/* alternating */
					break;
				case 4:
					v = unit_splitmix64(&s) % 1000 < 3;
					break;
				case 5:
					v = unit_splitmix64(&s) % 1000 >= 3;
					break;
				case 6:
					v = unit_splitmix64(&s) & 1;	/* incompressible: RAW */
					break;
				case 7:
					v = i >= m - 3;	/* ones at the very end */
					break;
				case 8:
					v = (i % 97) < 2;
					break;
			}
			if (v)
				bits[i >> 3] |= (uint8_t) (1u << (i & 7));
		}
		snprintf(what, sizeof(what), "adversarial level %d", c);
		bytes = round_trip(&L, bits, what, NULL);
		h = bltree_coded_entropy_bits(&L, bits) / 8;
		CHECK(bytes <= h + 8 + 0.002 * h || bytes == (m + 7) / 8, "%s: %llu bytes, entropy %.1f",
			  what, (unsigned long long) bytes, h);
		free(bits);
	}
}

/* malformed streams and codes: errors, never a crash or an out-of-bounds access */
static void
test_coder_malformed(void)
{
	BlTreeParams p = params(2, (const uint32_t[]) {300, 5}, (const uint8_t[]) {2, 2}, 0);
	BlTreeLayout L;
	unsigned long long s = 11;
	uint8_t    *bits,
			   *scratch;
	int			ok = 0,
				bad = 0;

	bltree_layout_init(&L, &p);
	bits = new_array(&L);
	scratch = new_array(&L);
	for (int i = 0; i < 100; i++)
		bltree_insert(&L, bits, random_key(&s));
	memcpy(scratch, bits, BLTREE_ARRAY_BYTES(L.storage_bits));
	{
		BlTreeLevelCode lc;
		uint8_t		in[8] = {0};

		lc.mode = 7;
		lc.prob0 = 0;
		lc.nbytes = 0;
		CHECK(bltree_decode_level(&L, scratch, 1, &lc, in) == BLTREE_DECODE_BAD_MODE, "mode 7");
		lc.mode = BLTREE_MODE_RANGE;
		CHECK(bltree_decode_level(&L, scratch, 1, &lc, in) == BLTREE_DECODE_BAD_MODE, "range with p0 0");
		lc.mode = BLTREE_MODE_ZERO;
		lc.prob0 = 5;
		CHECK(bltree_decode_level(&L, scratch, 1, &lc, in) == BLTREE_DECODE_BAD_MODE, "zero with p0");
		lc.prob0 = 0;
		lc.nbytes = 1;
		CHECK(bltree_decode_level(&L, scratch, 1, &lc, in) == BLTREE_DECODE_BAD_LENGTH, "zero with bytes");
		lc.mode = BLTREE_MODE_RAW;
		CHECK(bltree_decode_level(&L, scratch, 1, &lc, in) == BLTREE_DECODE_BAD_LENGTH, "raw length");
		lc.mode = BLTREE_MODE_RANGE;
		lc.prob0 = 100;
		lc.nbytes = 3;
		CHECK(bltree_decode_level(&L, scratch, 1, &lc, in) == BLTREE_DECODE_TRUNCATED, "3-byte range");
		memset(in, 0xFF, 4);
		lc.nbytes = 8;
		CHECK(bltree_decode_level(&L, scratch, 1, &lc, in) == BLTREE_DECODE_BAD_START, "ff ff ff ff");
		/* RAW root (300 bits, 38 bytes) with a padding bit */
		{
			uint8_t		raw[38] = {0};

			raw[37] = 0x10;
			lc.mode = BLTREE_MODE_RAW;
			lc.prob0 = 0;
			lc.nbytes = 38;
			CHECK(bltree_decode_level(&L, scratch, 0, &lc, raw) == BLTREE_DECODE_BAD_PADDING, "padding");
		}
	}
	/* random streams of random lengths: whatever they decode to, no harm */
	for (int t = 0; t < 3000; t++)
	{
		BlTreeLevelCode lc;
		uint64_t	len = unit_splitmix64(&s) % 200;
		uint8_t    *in = malloc(len + 1);

		for (uint64_t i = 0; i < len; i++)
			in[i] = (uint8_t) unit_splitmix64(&s);
		if (t % 3 == 0 && len >= 4)
			in[0] = 0;			/* a plausible start */
		lc.mode = BLTREE_MODE_RANGE;
		lc.prob0 = (uint16_t) (1 + unit_splitmix64(&s) % 65535);
		lc.nbytes = len;
		if (bltree_decode_level(&L, scratch, (int) (t & 1), &lc, in) == BLTREE_DECODE_OK)
			ok++;
		else
			bad++;
		free(in);
		/* restore the root for the level-1 decodes */
		memcpy(scratch, bits, BLTREE_ARRAY_BYTES(L.storage_bits));
	}
	CHECK(ok + bad == 3000 && bad > 0, "random streams: %d decoded, %d refused", ok, bad);
	free(bits);
	free(scratch);
}

/* the coded size of a paper configuration: far below the Theorem 4.1 bound */
static void
test_coder_paper_config(void)
{
	const int	n = 20000;
	BlTreeParams p = params(3, (const uint32_t[]) {n, 4, 3}, (const uint8_t[]) {6, 3, 2}, 0);
	BlTreeLayout L;
	BsKey	   *keys;
	uint8_t    *bits;
	uint64_t	bytes,
				ones[3];
	double		coded_h,
				thm;

	bltree_layout_init(&L, &p);
	bits = build(&L, n, 2, &keys);
	bytes = round_trip(&L, bits, "paper d=3", NULL);
	for (int a = 0; a < 3; a++)
		ones[a] = bltree_level_ones(&L, bits, a);
	coded_h = bltree_coded_entropy_bits(&L, bits) / 8;
	thm = bltree_entropy_bits(&L, ones) / 8;
	CHECK(bytes <= coded_h * 1.001 + 16, "coded %llu bytes, entropy of the coded bits %.1f",
		  (unsigned long long) bytes, coded_h);
	CHECK(bytes < thm, "coded %llu bytes below the Theorem 4.1 bound %.1f (children of zero bits are not coded)",
		  (unsigned long long) bytes, thm);
	free(bits);
	free(keys);
}

/* ---- vectors of the independent implementation (test/ref/bloomtree_ref.py) ---- */

static const int64_t INTS[] = {-20, -13, -6, 1, 8, 15, 22, 29, 36, 43, 50, 57, 64, 71, 78, 85,
92, 99, 106, 113, 120, 127, 134, 141, 148, 155, 162, 169, 176, 183, 190, 197};

typedef struct VecParams
{
	int			d;
	uint32_t	m[BLTREE_MAX_D];
	uint8_t		k[BLTREE_MAX_D];
	int32_t		seed;
} VecParams;

/* the parameters of a test vector */
static BlTreeParams
vec_params(VecParams v)
{
	return params(v.d, v.m, v.k, v.seed);
}

/* one element added to an empty tree gives exactly these bits */
#define VECTOR_ONE(P, KEY, BITS, LEN) \
	do { \
		BlTreeParams p = vec_params(P); \
		BlTreeLayout L; \
		uint8_t    *bits; \
		bltree_layout_init(&L, &p); \
		bits = new_array(&L); \
		bltree_insert(&L, bits, KEY); \
		CHECK(memcmp(bits, BITS, LEN) == 0 && bltree_contains(&L, bits, KEY, NULL), \
			  "vector: one element, d=%d m0=%u seed=%d, key %s", p.d, p.m[0], p.seed, #KEY); \
		free(bits); \
	} while (0)

/*
 * The INTS tree: its bits, and its binary form (8-byte header, 12 bytes per
 * level: m, k, mode, prob0, nbytes big-endian, then the streams): every
 * level's mode, probability and stream equal the reference coder's.
 */
static void
vector_coded(VecParams vp, const char *want_bits, size_t nbits, const char *sent, size_t nsent)
{
	BlTreeParams p = vec_params(vp);
	BlTreeLayout L;
	uint8_t    *bits,
			   *out;
	BlTreeLevelCode lc[BLTREE_MAX_D];
	uint64_t	total;
	const uint8_t *s = (const uint8_t *) sent;
	size_t		at = 8 + 12 * (size_t) p.d;
	bool		same = true;

	bltree_layout_init(&L, &p);
	bits = new_array(&L);
	for (size_t i = 0; i < sizeof(INTS) / sizeof(INTS[0]); i++)
		bltree_insert(&L, bits, bltree_key_int64(&L, INTS[i]));
	CHECK(memcmp(bits, want_bits, nbits) == 0, "vector: INTS tree bits, d=%d m0=%u", p.d, p.m[0]);
	out = malloc(bltree_max_coded_bytes(&L) + 1);
	total = bltree_encode(&L, bits, lc, out);
	CHECK(at + total == nsent, "vector: coded size %zu vs %zu", (size_t) (at + total), nsent);
	for (int a = 0; a < p.d && at + total == nsent; a++)
	{
		const uint8_t *h = s + 8 + 12 * a;
		uint32_t	n = (uint32_t) h[8] << 24 | (uint32_t) h[9] << 16 | (uint32_t) h[10] << 8 | h[11];

		same &= h[5] == lc[a].mode && (h[6] << 8 | h[7]) == lc[a].prob0 && n == lc[a].nbytes;
	}
	CHECK(same && at + total == nsent && memcmp(out, s + at, total) == 0,
		  "vector: coded streams, d=%d m0=%u", p.d, p.m[0]);
	free(bits);
	free(out);
}

#define VECTOR_CODED(P, I, BITS, NBITS, SENT, NSENT) \
	vector_coded(P, BITS, NBITS, SENT, NSENT)

static void
test_vectors(void)
{
#include "bloomtree_vectors.inc"
}

static int	tree_polls = 0;

static void
count_tree_poll(void)
{
	tree_polls++;
}

/*
 * Decoding polls bltree_interrupt_hook while it fills a level (every MiB)
 * and between runs of filters: a 36-byte value of 2^31 bits can be
 * cancelled.  m = {2^26, 1}, k = {1, 1}: a ONE root (8 MiB, filled twice: a
 * level is cleared first), then a root of alternating bits (RAW) and a ONE
 * level 2 below it: 2^25 runs of one filter each.
 */
static void
test_decode_polls(void)
{
	BlTreeParams p = {.d = 2, .m = {UINT32_C(1) << 26, 1}, .k = {1, 1}, .seed = 0};
	BlTreeLayout L;
	uint8_t    *bits,
			   *raw;
	BlTreeLevelCode lc = {0};
	uint64_t	nraw = (UINT64_C(1) << 26) / 8;

	CHECK(bltree_layout_init(&L, &p) == BLTREE_OK, "layout");
	bits = calloc(BLTREE_ARRAY_BYTES(L.storage_bits), 1);
	raw = malloc(nraw);
	memset(raw, 0x55, nraw);
	bltree_interrupt_hook = count_tree_poll;
	lc.mode = BLTREE_MODE_ONE;
	tree_polls = 0;
	CHECK(bltree_decode_level(&L, bits, 0, &lc, NULL) == BLTREE_DECODE_OK && lc.ones == L.p.m[0],
		  "ONE root decodes");
	CHECK(tree_polls >= 14, "an 8 MiB ONE level polled %d times", tree_polls);
	memset(&lc, 0, sizeof(lc));
	lc.mode = BLTREE_MODE_RAW;
	lc.nbytes = nraw;
	CHECK(bltree_decode_level(&L, bits, 0, &lc, raw) == BLTREE_DECODE_OK &&
		  lc.ones == L.p.m[0] / 2, "alternating RAW root decodes");
	memset(&lc, 0, sizeof(lc));
	lc.mode = BLTREE_MODE_ONE;
	tree_polls = 0;
	CHECK(bltree_decode_level(&L, bits, 1, &lc, NULL) == BLTREE_DECODE_OK &&
		  lc.ones == L.p.m[0] / 2, "level 2 below alternating bits decodes");
	CHECK(tree_polls >= (1 << 25) / 0x4000, "2^25 runs polled %d times", tree_polls);
	CHECK(bltree_check_structure(&L, bits, &(uint64_t){0}) < 0, "the result is a valid tree");
	bltree_interrupt_hook = NULL;
	free(bits);
	free(raw);
}

/* runs every test above; exit status 0 when all passed (UNIT_DONE) */
int
main(void)
{
	test_layout();
	test_decode_polls();
	test_bit_ranges();
	test_membership_and_fp();
	test_formulas_by_hand();
	test_and_or_prune();
	test_structure_check();
	test_coder_random();
	test_coder_adversarial();
	test_coder_malformed();
	test_coder_paper_config();
	test_vectors();
	return UNIT_DONE();
}
