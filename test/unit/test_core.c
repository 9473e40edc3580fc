/*
 * test_core.c
 *    Unit tests of the bloomsample core: bit operations, the hashing scheme
 *    (test vectors shared with docs/hashing.md and test/ref/bloom_ref.py) and the
 *    estimator and sizing formulas (against values computed by hand, and
 *    their properties over random and saturated filters).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bs_bits.h"
#include "bs_estimate.h"
#include "bs_hash.h"
#include "unit.h"

static void
test_bits(void)
{
	uint8_t		a[24] = {0},
				b[24] = {0},
				d[16] = {0};

	bs_bit_set(a, 0);
	bs_bit_set(a, 63);
	bs_bit_set(a, 64);
	bs_bit_set(a, 150);
	bs_bit_set(b, 63);
	bs_bit_set(b, 150);
	bs_bit_set(b, 151);
	CHECK(a[0] == 1 && a[7] == 0x80 && a[8] == 1, "byte layout: bit i in byte i/8, bit i%%8");
	CHECK(bs_bit_test(a, 150) && !bs_bit_test(a, 151), "bit test");
	CHECK(bs_popcount(a, 3) == 4, "popcount a");
	CHECK(bs_and_popcount(a, b, 3) == 2, "and-popcount");
	{
		BsPairCounts c = bs_pair_counts(a, b, 3);

		CHECK(c.a == 4 && c.b == 3 && c.and == 2, "pair counts %lu %lu %lu",
			  (unsigned long) c.a, (unsigned long) c.b, (unsigned long) c.and);
	}
	CHECK(bs_intersects(a, b, 3), "intersects");
	CHECK(!bs_is_subset(a, b, 3) && bs_is_subset(b, b, 3), "subset");
	CHECK(bs_tail_is_clear(a, 151) && !bs_tail_is_clear(a, 150) && !bs_tail_is_clear(b, 151),
		  "tail check");
	{
		uint32_t	pos[4];

		CHECK(bs_set_positions(a, 3, pos) == 4 && pos[0] == 0 && pos[1] == 63 &&
			  pos[2] == 64 && pos[3] == 150, "set positions, increasing, across words");
	}
	bs_or(b, a, 3);
	CHECK(bs_popcount(b, 3) == 5, "or");
	bs_and(b, a, 3);
	CHECK(memcmp(a, b, 24) == 0, "and");

	/* fold 160 bits by 2: DIV maps 150 -> 75, 64 -> 32; MOD maps 150 -> 70, 64 -> 64 */
	bs_fold(d, a, 160, 2, BS_FOLD_DIV);
	CHECK(bs_bit_test(d, 0) && bs_bit_test(d, 31) && bs_bit_test(d, 32) &&
		  bs_bit_test(d, 75) && bs_popcount(d, 2) == 4, "fold div");
	memset(d, 0, sizeof(d));
	bs_fold(d, a, 160, 2, BS_FOLD_MOD);
	CHECK(bs_bit_test(d, 0) && bs_bit_test(d, 63) && bs_bit_test(d, 64) &&
		  bs_bit_test(d, 70) && bs_popcount(d, 2) == 4, "fold mod");
}

/*
 * Folding equals building at m / factor, for both families: the property
 * bloom_fold relies on.
 */
static void
test_fold_equals_direct(void)
{
	for (int family = 0; family < BS_NUM_HASH_FAMILIES; family++)
	{
		BsParams	big = {1 << 12, 5, (uint8_t) family, 77},
					small = big;
		BsHasher	hb,
					hs;
		static uint8_t fb[512],
					fs[128],
					folded[128];

		memset(fb, 0, sizeof(fb));
		memset(fs, 0, sizeof(fs));
		memset(folded, 0, sizeof(folded));
		small.m = big.m / 4;
		bs_hasher_init(&hb, &big);
		bs_hasher_init(&hs, &small);
		for (int64_t x = -50; x < 200; x += 3)
		{
			bs_key_set(&hb, bs_key_int64(&hb, x), fb);
			bs_key_set(&hs, bs_key_int64(&hs, x), fs);
		}
		bs_fold(folded, fb, big.m, 4, family == BS_HASH_LINEAR ? BS_FOLD_MOD : BS_FOLD_DIV);
		CHECK(memcmp(folded, fs, sizeof(fs)) == 0, "fold by 4 equals direct build (%s)",
			  bs_hash_family_name(family));
	}
}

/* the k positions of key under parameters p */
static void
positions_of(BsParams p, BsKey key, uint32_t *pos)
{
	BsHasher	h;

	bs_hasher_init(&h, &p);
	bs_key_positions(&h, key, pos);
}

static void
test_hash_vectors(void)
{
	BsParams	x = {1024, 3, BS_HASH_XXH3, 0};
	BsParams	lin = {1000, 3, BS_HASH_LINEAR, 7};
	BsHasher	h;
	uint32_t	pos[3];
	uint64_t	a[3],
				b[3];

	/*
	 * Cross-checks of the scheme against itself: integer elements hash as
	 * their 8-byte little-endian encoding, so key_int64(42) must equal
	 * key_bytes("2a 00 00 00 00 00 00 00").  The absolute vectors below come
	 * from python3-xxhash (test/ref/bloom_ref.py), an independent
	 * implementation of XXH3.
	 */
	{
		const uint8_t le42[8] = {0x2a, 0, 0, 0, 0, 0, 0, 0};
		BsKey		k1,
					k2;

		bs_hasher_init(&h, &x);
		k1 = bs_key_int64(&h, 42);
		k2 = bs_key_bytes(&h, le42, 8);
		CHECK(k1.h1 == k2.h1 && k1.h2 == k2.h2, "int64 hashes as 8 LE bytes");
	}
#include "hash_vectors.inc"

	/* linear: a_i, b_i from splitmix64(seed), pos = (a x + b) mod m */
	bs_linear_coefficients(7, 3, a, b);
	bs_hasher_init(&h, &lin);
	positions_of(lin, bs_key_int64(&h, 123456789), pos);
	for (int i = 0; i < 3; i++)
	{
		unsigned __int128 want = ((unsigned __int128) a[i] * 123456789u + b[i]) % 1000u;

		CHECK(pos[i] == (uint32_t) want, "linear position %d: %u vs %u", i, pos[i],
			  (uint32_t) want);
	}
	positions_of(lin, bs_key_int64(&h, -5), pos);
	for (int i = 0; i < 3; i++)
	{
		/* -5 mod 1000 = 995 */
		unsigned __int128 want = ((unsigned __int128) (a[i] % 1000) * 995u + b[i]) % 1000u;

		CHECK(pos[i] == (uint32_t) want, "linear position of -5, %d", i);
	}
	CHECK(bs_hash_family_from_name("xxh3") == BS_HASH_XXH3 &&
		  bs_hash_family_from_name("linear") == BS_HASH_LINEAR &&
		  bs_hash_family_from_name("md5") == -1, "family names");
}

static void
test_no_false_negatives(void)
{
	static uint8_t bits[1 << 14];
	BsParams	p = {1 << 17, 7, BS_HASH_XXH3, -3};
	BsHasher	h;
	int			bad = 0;

	bs_hasher_init(&h, &p);
	for (int64_t x = 0; x < 10000; x++)
		bs_key_set(&h, bs_key_int64(&h, x * 7919), bits);
	for (int64_t x = 0; x < 10000; x++)
		bad += !bs_key_test(&h, bs_key_int64(&h, x * 7919), bits);
	CHECK(bad == 0, "%d false negatives", bad);
}

/*
 * The byte probes of a key answer as bs_key_test over filters of every fill
 * (both families, k from 1 to 32, m not a multiple of 8), and are distinct
 * ascending bytes whose masks hold the key's k positions, no more.
 */
static void
test_byte_probes(void)
{
	static const BsParams params[] = {
		{959, 7, BS_HASH_XXH3, 0}, {2397, 17, BS_HASH_XXH3, 5},
		{64, 32, BS_HASH_XXH3, -1}, {1001, 1, BS_HASH_LINEAR, 9},
		{19171, 13, BS_HASH_LINEAR, -7}, {13, 5, BS_HASH_XXH3, 3},
	};
	static uint8_t bits[8 * 300];
	unsigned long long rs = 21;
	int			disagree = 0,
				bad_layout = 0,
				hits = 0;

	for (int pi = 0; pi < (int) (sizeof(params) / sizeof(params[0])); pi++)
	{
		BsHasher	h;

		bs_hasher_init(&h, &params[pi]);
		for (int fill = 0; fill < 4; fill++)
		{
			memset(bits, 0, sizeof(bits));
			for (uint32_t x = 0; x < (fill * params[pi].m) / (2u * params[pi].k) + 1; x++)
				bs_key_set(&h, bs_key_int64(&h, (int64_t) unit_splitmix64(&rs)), bits);
			for (int t = 0; t < 2000; t++)
			{
				BsKey		key = bs_key_int64(&h, t % 3 ? (int64_t) unit_splitmix64(&rs) : t);
				uint32_t	off[BS_MAX_K],
							pos[BS_MAX_K];
				uint8_t		mask[BS_MAX_K],
							want[8 * 300] = {0},
							got[8 * 300] = {0};
				int			n = bs_key_byte_probes(&h, key, off, mask);
				bool		r = bs_byte_probes_test(bits, off, mask, n);

				disagree += r != bs_key_test(&h, key, bits);
				hits += r;
				bs_key_positions(&h, key, pos);
				for (int i = 0; i < params[pi].k; i++)
					bs_bit_set(want, pos[i]);
				for (int i = 0; i < n; i++)
				{
					bad_layout += (i > 0 && off[i] <= off[i - 1]) || mask[i] == 0 ||
						off[i] >= (params[pi].m + 7) / 8;
					got[off[i]] |= mask[i];
				}
				bad_layout += n < 1 || n > params[pi].k || memcmp(got, want, sizeof(got)) != 0;
			}
		}
	}
	CHECK(disagree == 0, "%d answers differ from bs_key_test", disagree);
	CHECK(bad_layout == 0, "%d probe sets are not the key's positions", bad_layout);
	CHECK(hits > 1000, "only %d members among the probes: the test tests nothing", hits);
}

static void
test_estimates(void)
{
	/*
	 * Hand-computed: m = 1000, k = 5, t = 393:
	 * n = ln(1 - 0.393) / (5 ln(1 - 0.001)) = -0.499226 / -0.0050025 = 99.795...
	 */
	CHECK_CLOSE(bs_est_cardinality(1000, 5, 393), 99.7953, 1e-4);
	CHECK(bs_est_cardinality(1000, 5, 0) == 0.0, "empty filter has cardinality 0");
	/* a full filter: n^(m - 1/2) = ln(1/2000) / (5 ln 0.999) = 7.600902 / 0.0050025 = 1519.42 */
	CHECK_CLOSE(bs_est_cardinality(1000, 5, 1000), 1519.4203, 1e-4);
	CHECK(bs_est_cardinality(1000, 5, 1000) > bs_est_cardinality(1000, 5, 999),
		  "full filter above the fullest other");

	/*
	 * Papapetrou: m = 1000, k = 3, t1 = 300, t2 = 400, t_and = 150:
	 * inner = 1000 - (150*1000 - 300*400) / (1000 - 300 - 400 + 150)
	 *       = 1000 - 30000/450 = 933.333...
	 * est = (ln 933.333 - ln 1000) / (3 ln 0.999) = -0.0689929 / -0.0030015 = 22.9862
	 */
	CHECK_CLOSE(bs_est_intersection(1000, 3, 300, 400, 150), 22.9862, 1e-4);
	CHECK(bs_est_intersection(1000, 3, 300, 400, 0) == 0.0, "disjoint bits: 0");
	/* t_and below the independent expectation gives a negative raw estimate: clamp to 0 */
	CHECK(bs_est_intersection(1000, 3, 300, 400, 100) == 0.0, "clamped at 0");

	/* lecture notes: m = 1.44 n log2(1/p) -> n = 1000, p = 0.01: ceil(9585.058) */
	CHECK(bs_optimal_m(1000, 0.01) == 9586.0, "optimal m %.1f", bs_optimal_m(1000, 0.01));
	CHECK(bs_optimal_k(9586, 1000) == 7, "optimal k");
	CHECK(bs_optimal_k(10, 1000) == 1 && bs_optimal_k(1e9, 1) == 32, "k clamped to [1,32]");
	/* (1 - e^-0.7)^7 with m = 10000, k = 7, n = 1000 = 0.0081917 */
	CHECK_CLOSE(bs_expected_fp(10000, 7, 1000), 0.00819166, 1e-4);
	CHECK_CLOSE(bs_est_jaccard(1000, 3, 300, 400, 150), 22.9862 / bs_est_cardinality(1000, 3, 550), 1e-4);
	/* equal bit sets: 1, saturated or not; empty: 0 */
	CHECK(bs_est_jaccard(1000, 3, 1000, 1000, 1000) == 1.0, "saturated f, f: 1");
	CHECK(bs_est_jaccard(1000, 3, 400, 400, 400) == 1.0, "f, f: 1");
	CHECK(bs_est_jaccard(1000, 3, 0, 0, 0) == 0.0, "empty: 0");

	/*
	 * A full filter and one of 600 bits (n^ = ln 0.4 / (3 ln 0.999) = 305.28):
	 * every element of the small one is a member of the full one, so the
	 * intersection is the small one, the union the full one (n^(m - 1/2) =
	 * ln(1/2000) / (3 ln 0.999) = 2532.37), the Jaccard their ratio.
	 */
	CHECK_CLOSE(bs_est_intersection(1000, 3, 1000, 600, 600), 305.2817, 1e-4);
	CHECK_CLOSE(bs_est_union(1000, 3, 1000, 600, 600), 2532.3672, 1e-4);
	CHECK_CLOSE(bs_est_jaccard(1000, 3, 1000, 600, 600), 305.2817 / 2532.3672, 1e-4);

	/*
	 * m for a given k: the m at which (1 - e^(-kn/m))^k is p; k = 3, n = 1000,
	 * p = 0.01: 0.01^(1/3) = 0.215443, -3000 / ln(0.784557) = 12364.07
	 */
	CHECK(bs_m_for_k(1000, 0.01, 3) == 12365.0, "m for k = 3: %.1f", bs_m_for_k(1000, 0.01, 3));
	CHECK(bs_expected_fp(bs_m_for_k(1000, 0.01, 3), 3, 1000) <= 0.01 &&
		  bs_expected_fp(bs_m_for_k(1000, 0.01, 3) - 1, 3, 1000) > 0.01, "the fewest bits");
	CHECK(isnan(bs_m_for_k(1000, 1.0, 3)) && isnan(bs_m_for_k(0, 0.5, 3)) &&
		  isnan(bs_m_for_k(10, 0.5, 0)), "out of range: NaN");
}

/* a filter of m bits holding n random elements (n >= m * 64: every bit set) */
static void
random_filter(const BsHasher *h, uint8_t *bits, size_t nbytes, uint64_t n,
			  unsigned long long *rs)
{
	memset(bits, 0, nbytes);
	if (n >= (uint64_t) h->p.m * 64)
	{
		for (uint32_t i = 0; i < h->p.m; i++)
			bs_bit_set(bits, i);
		return;
	}
	for (uint64_t i = 0; i < n; i++)
		bs_key_set(h, bs_key_int64(h, (int64_t) unit_splitmix64(rs)), bits);
}

/*
 * Properties of the estimators over random filters of every fill, saturated
 * ones included (and the all-ones filter itself): every estimate is finite;
 * the cardinality grows with the popcount and a full filter is estimated
 * above every other; the intersection lies in [0, min(n^_a, n^_b)], the
 * union in [max(n^_a, n^_b), n^_a + n^_b] and the two add up to
 * n^_a + n^_b; the Jaccard lies in [0, 1]; all three are symmetric; adding
 * bits to b never lowers the union.  Against a full filter, a filter's
 * intersection is its own estimate and its Jaccard is at most the one with
 * any filter holding its bits.
 */
static void
test_estimate_properties(void)
{
	static const BsParams params[] = {
		{64, 3, BS_HASH_XXH3, 0}, {200, 1, BS_HASH_XXH3, 1},
		{1000, 7, BS_HASH_LINEAR, 2}, {4099, 13, BS_HASH_XXH3, 3},
	};
	static uint8_t a[8 * 520],
				b[8 * 520],
				full[8 * 520];
	unsigned long long rs = 32;
	int			cases = 0,
				saturated = 0,
				bad_finite = 0,
				bad_inter = 0,
				bad_union = 0,
				bad_sum = 0,
				bad_jac = 0,
				bad_sym = 0,
				bad_full = 0;

	for (int pi = 0; pi < (int) (sizeof(params) / sizeof(params[0])); pi++)
	{
		const BsParams *p = &params[pi];
		size_t		nw = bs_words_for_bits(p->m);
		double		prev = -1.0;
		BsHasher	h;

		/* the cardinality is non-decreasing in t, strictly from 0 to m */
		for (uint64_t t = 0; t <= p->m; t++)
		{
			double		c = bs_est_cardinality(p->m, p->k, t);

			bad_finite += !isfinite(c);
			CHECK(c > prev, "m = %u, k = %d: n^(%llu) = %g after %g", p->m, p->k,
				  (unsigned long long) t, c, prev);
			prev = c;
		}
		bs_hasher_init(&h, p);
		random_filter(&h, full, nw * 8, UINT64_MAX, &rs);
		for (int trial = 0; trial < 400; trial++)
		{
			/* set sizes from 0 to about 4 m / k (most beyond saturation for small m), or all ones */
			uint64_t	na = unit_splitmix64(&rs) % (4 * p->m / p->k + 2),
						nb = unit_splitmix64(&rs) % (4 * p->m / p->k + 2);
			BsPairCounts c;
			double		n1,
						n2,
						in,
						in2,
						un,
						un2,
						j,
						j2;

			if (trial % 10 == 0)
				na = UINT64_MAX;
			random_filter(&h, a, nw * 8, na, &rs);
			random_filter(&h, b, nw * 8, nb, &rs);
			/* half the time b also holds a's bits */
			if (trial % 2)
				bs_or(b, a, nw);
			c = bs_pair_counts(a, b, nw);
			saturated += c.a == p->m || c.b == p->m;
			n1 = bs_est_cardinality(p->m, p->k, c.a);
			n2 = bs_est_cardinality(p->m, p->k, c.b);
			in = bs_est_intersection(p->m, p->k, c.a, c.b, c.and);
			in2 = bs_est_intersection(p->m, p->k, c.b, c.a, c.and);
			un = bs_est_union(p->m, p->k, c.a, c.b, c.and);
			un2 = bs_est_union(p->m, p->k, c.b, c.a, c.and);
			j = bs_est_jaccard(p->m, p->k, c.a, c.b, c.and);
			j2 = bs_est_jaccard(p->m, p->k, c.b, c.a, c.and);
			cases++;
			bad_finite += !isfinite(n1) + !isfinite(n2) + !isfinite(in) + !isfinite(un) + !isfinite(j);
			bad_inter += !(in >= 0 && in <= fmin(n1, n2));
			bad_union += !(un >= fmax(n1, n2) && un <= n1 + n2);
			bad_sum += fabs(in + un - (n1 + n2)) > 1e-9 * fmax(1.0, n1 + n2);
			bad_jac += !(j >= 0 && j <= 1);
			bad_sym += in != in2 || un != un2 || j != j2;
			/* more bits in b: the union does not shrink */
			{
				BsPairCounts c2;

				for (int x = 0; x < 3; x++)
					bs_key_set(&h, bs_key_int64(&h, (int64_t) unit_splitmix64(&rs)), b);
				c2 = bs_pair_counts(a, b, nw);
				bad_union += bs_est_union(p->m, p->k, c2.a, c2.b, c2.and) < un;
			}
			/* against the full filter: the intersection is a's own, the Jaccard the lowest of a's supersets */
			c = bs_pair_counts(a, full, nw);
			bad_full += bs_est_intersection(p->m, p->k, c.a, c.b, c.and) != n1 ||
				bs_est_union(p->m, p->k, c.a, c.b, c.and) != bs_est_saturated(p->m, p->k);
			{
				BsPairCounts cs;
				double		jf = bs_est_jaccard(p->m, p->k, c.a, c.b, c.and);

				memcpy(b, a, nw * 8);
				for (int x = 0; x < 5; x++)
					bs_key_set(&h, bs_key_int64(&h, (int64_t) unit_splitmix64(&rs)), b);
				cs = bs_pair_counts(a, b, nw);
				bad_full += !(jf <= bs_est_jaccard(p->m, p->k, cs.a, cs.b, cs.and));
			}
		}
	}
	CHECK(cases == 1600 && saturated > 250, "%d cases, %d with a full side: too few", cases, saturated);
	CHECK(bad_finite == 0, "%d estimates not finite", bad_finite);
	CHECK(bad_inter == 0, "%d intersections outside [0, min]", bad_inter);
	CHECK(bad_union == 0, "%d unions outside [max, sum] or shrinking", bad_union);
	CHECK(bad_sum == 0, "%d intersection + union differ from the sum", bad_sum);
	CHECK(bad_jac == 0, "%d Jaccards outside [0, 1]", bad_jac);
	CHECK(bad_sym == 0, "%d asymmetric estimates", bad_sym);
	CHECK(bad_full == 0, "%d wrong answers against the full filter", bad_full);
}

static int	polls = 0;

static void
count_poll(void)
{
	polls++;
}

/*
 * The bulk operations call bs_interrupt_hook between chunks of BS_POLL_WORDS
 * words (so a 256 MiB array is polled every 1 MiB), and chunking changes no
 * result: every operation against a word-by-word recount.
 */
static void
test_poll_chunks(void)
{
	size_t		nwords = 3 * BS_POLL_WORDS + 5;
	uint8_t    *a = malloc(8 * nwords),
			   *b = malloc(8 * nwords),
			   *o = malloc(8 * nwords),
			   *f = calloc(8 * nwords, 1);
	unsigned long long st = 7;
	uint64_t	pa = 0,
				pb = 0,
				pand = 0,
				por = 0;
	BsPairCounts pc;
	bool		subset = true;

	for (size_t i = 0; i < nwords; i++)
	{
		uint64_t	wa = unit_splitmix64(&st),
					wb = unit_splitmix64(&st) & unit_splitmix64(&st);

		bs_store64(a + 8 * i, wa);
		bs_store64(b + 8 * i, wb);
		pa += (uint64_t) __builtin_popcountll(wa);
		pb += (uint64_t) __builtin_popcountll(wb);
		pand += (uint64_t) __builtin_popcountll(wa & wb);
		por += (uint64_t) __builtin_popcountll(wa | wb);
	}
	bs_interrupt_hook = count_poll;
	polls = 0;
	CHECK(bs_popcount(a, nwords) == pa, "chunked popcount");
	CHECK(polls == 3, "popcount polled %d times over 3 chunks and a tail", polls);
	CHECK(bs_and_popcount(a, b, nwords) == pand, "chunked and_popcount");
	pc = bs_pair_counts(a, b, nwords);
	CHECK(pc.a == pa && pc.b == pb && pc.and == pand, "chunked pair counts");
	memcpy(o, a, 8 * nwords);
	bs_or(o, b, nwords);
	CHECK(bs_popcount(o, nwords) == por, "chunked or");
	CHECK(bs_is_subset(b, o, nwords) && bs_is_subset(a, o, nwords), "or is a superset");
	for (size_t i = 0; i < nwords && subset; i++)
		subset = (bs_load64(a + 8 * i) & ~bs_load64(b + 8 * i)) == 0;
	CHECK(bs_is_subset(a, b, nwords) == subset, "chunked subset");
	bs_and(o, b, nwords);
	CHECK(memcmp(o, b, 8 * nwords) == 0, "chunked and: (a | b) & b = b");
	CHECK(bs_intersects(a, b, nwords) == (pand > 0), "chunked intersects");
	polls = 0;
	bs_fold(f, a, (uint32_t) (64 * nwords), 64, BS_FOLD_DIV);
	CHECK(polls >= 64 * 3, "fold polled %d times, at least 64 per chunk", polls);
	bs_interrupt_hook = NULL;
	free(a);
	free(b);
	free(o);
	free(f);
}

/* runs every test above; exit status 0 when all passed (UNIT_DONE) */
int
main(void)
{
	test_bits();
	test_poll_chunks();
	test_fold_equals_direct();
	test_hash_vectors();
	test_no_false_negatives();
	test_byte_probes();
	test_estimates();
	test_estimate_properties();
	return UNIT_DONE();
}
