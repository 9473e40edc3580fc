/*
 * test_cbloom.c
 *    Unit tests of the counting Bloom filter core (src/core/cbloom.c) against
 *    exact oracles: the bloomfilter of the present elements built by the
 *    bloomfilter code (bs_key_set), the exact unbounded counters of the present
 *    multiset, and the false-positive formula (1 - e^(-kn/m))^k.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bs_bits.h"
#include "bs_hash.h"
#include "cbloom.h"
#include "unit.h"

#define UNIVERSE	20000		/* elements are 0..UNIVERSE-1 */

/* the bloomfilter of the elements with mult > 0, built by the bloomfilter code */
static void
bloom_of_present(const BsHasher *h, const int *mult, uint8_t *bits)
{
	memset(bits, 0, 8 * bs_words_for_bits(h->p.m));
	for (int x = 0; x < UNIVERSE; x++)
		if (mult[x] > 0)
			bs_key_set(h, bs_key_int64(h, x), bits);
}

/*
 * 10^5 random adds and removals of present elements; after each operation the
 * touched element, and every 2,000 operations every present element, must be
 * a member; the counters must equal the exact (unbounded) counters wherever
 * no counter ever saturated, and cb_to_bits must equal the bloomfilter of the
 * present elements then; where counters saturated, no counter whose exact
 * value is positive may be zero (no false negatives, ever).
 */
static void
random_sequence(uint32_t m, int k, int32_t seed, int family, uint64_t rng_seed,
				int universe_used, int add_percent)
{
	BsParams	p = {m, (uint8_t) k, (uint8_t) family, seed};
	BsHasher	h;
	uint8_t    *c = calloc(1, CB_NBYTES(m));
	uint8_t    *bits = calloc(1, 8 * bs_words_for_bits(m));
	uint8_t    *want = calloc(1, 8 * bs_words_for_bits(m));
	uint64_t   *exact = calloc(m, sizeof(uint64_t));
	int		   *mult = calloc(UNIVERSE, sizeof(int));
	int		   *present = malloc(sizeof(int) * 100000);
	int			npresent = 0;
	unsigned long long state = rng_seed;
	long		fn = 0,
				counter_mismatch = 0,
				bits_mismatch = 0,
				refused = 0,
				zero_under_positive = 0;
	bool		ever_saturated = false;
	uint32_t	pos[BS_MAX_K];

	bs_hasher_init(&h, &p);
	for (int op = 1; op <= 100000; op++)
	{
		bool		add = npresent == 0 || (int) (unit_splitmix64(&state) % 100) < add_percent;
		int			x;

		if (add)
		{
			x = (int) (unit_splitmix64(&state) % (uint64_t) universe_used);
			cb_add(&h, bs_key_int64(&h, x), c);
			present[npresent++] = x;
			mult[x]++;
			bs_key_positions(&h, bs_key_int64(&h, x), pos);
			for (int i = 0; i < k; i++)
				exact[pos[i]]++;
		}
		else
		{
			int			j = (int) (unit_splitmix64(&state) % (uint64_t) npresent);

			x = present[j];
			present[j] = present[--npresent];
			if (cb_remove(&h, bs_key_int64(&h, x), c) != CB_REMOVED)
				refused++;
			mult[x]--;
			bs_key_positions(&h, bs_key_int64(&h, x), pos);
			for (int i = 0; i < k; i++)
				exact[pos[i]]--;
		}
		if (mult[x] > 0 && !cb_test(&h, bs_key_int64(&h, x), c))
			fn++;
		if (op % 2000 == 0)
		{
			for (int j = 0; j < npresent; j++)
				fn += !cb_test(&h, bs_key_int64(&h, present[j]), c);
			if (cb_saturated(c, m) > 0)
				ever_saturated = true;
			for (uint32_t i = 0; i < m; i++)
			{
				if (!ever_saturated && cb_get(c, i) != exact[i])
					counter_mismatch++;
				if (exact[i] > 0 && cb_get(c, i) == 0)
					zero_under_positive++;
			}
			if (!ever_saturated)
			{
				memset(bits, 0, 8 * bs_words_for_bits(m));
				cb_to_bits(c, m, bits);
				bloom_of_present(&h, mult, want);
				bits_mismatch += memcmp(bits, want, 8 * bs_words_for_bits(m)) != 0;
			}
		}
	}
	CHECK(fn == 0, "m=%u k=%d seed=%d: %ld false negatives", m, k, seed, fn);
	CHECK(refused == 0, "m=%u k=%d: %ld removals of present elements refused", m, k, refused);
	CHECK(zero_under_positive == 0, "m=%u k=%d: %ld zero counters under present elements",
		  m, k, zero_under_positive);
	CHECK(counter_mismatch == 0, "m=%u k=%d: %ld counters differ from the exact ones",
		  m, k, counter_mismatch);
	CHECK(bits_mismatch == 0, "m=%u k=%d: cb_to_bits != bloom of present elements %ld times",
		  m, k, bits_mismatch);
	CHECK(cb_tail_is_clear(c, m), "padding counters stay zero");
	if (m < 4096)
		CHECK(ever_saturated, "the small filter (m=%u) was meant to saturate", m);
	else
		CHECK(!ever_saturated, "the large filter (m=%u) was not meant to saturate", m);
	free(c);
	free(bits);
	free(want);
	free(exact);
	free(mult);
	free(present);
}

/* a removal of an element that is certainly absent changes nothing */
static void
test_refused_removal(void)
{
	BsParams	p = {1000, 5, 3, BS_HASH_XXH3};
	BsHasher	h;
	uint8_t		c[CB_NBYTES(1000)] = {0},
				before[CB_NBYTES(1000)];
	int			refused = 0,
				tried = 0;

	bs_hasher_init(&h, &p);
	for (int x = 0; x < 50; x++)
		cb_add(&h, bs_key_int64(&h, x), c);
	for (int x = 1000; x < 3000; x++)
	{
		BsKey		key = bs_key_int64(&h, x);

		if (cb_test(&h, key, c))
			continue;			/* a false positive may be removed: not certainly absent */
		tried++;
		memcpy(before, c, sizeof(c));
		refused += cb_remove(&h, key, c) == CB_ABSENT && memcmp(before, c, sizeof(c)) == 0;
	}
	CHECK(tried > 1000 && refused == tried, "%d of %d certainly-absent removals refused",
		  refused, tried);

	/* one element hitting one counter twice (k=2 on m=8 collides often) needs it >= 2 */
	{
		BsParams	q = {8, 2, 0, BS_HASH_XXH3};
		BsHasher	hq;
		uint32_t	pos[2];
		int			x;

		bs_hasher_init(&hq, &q);
		for (x = 0;; x++)
		{
			bs_key_positions(&hq, bs_key_int64(&hq, x), pos);
			if (pos[0] == pos[1])
				break;
		}
		memset(c, 0, sizeof(c));
		cb_put(c, pos[0], 1);
		CHECK(cb_test(&hq, bs_key_int64(&hq, x), c), "counter 1 reads as member");
		CHECK(cb_remove(&hq, bs_key_int64(&hq, x), c) == CB_ABSENT && cb_get(c, pos[0]) == 1,
			  "a counter hit twice must be >= 2 to remove");
		cb_add(&hq, bs_key_int64(&hq, x), c);
		CHECK(cb_get(c, pos[0]) == 3, "a double hit adds 2");
		CHECK(cb_remove(&hq, bs_key_int64(&hq, x), c) == CB_REMOVED && cb_get(c, pos[0]) == 1,
			  "and removes 2");
	}
}

/* saturation: 15 is sticky; merging saturates; min count; to_bits */
static void
test_saturation_and_merge(void)
{
	uint8_t		a[CB_NBYTES(33)] = {0},
				b[CB_NBYTES(33)] = {0},
				bits[8] = {0};

	for (int i = 0; i < 33; i++)
	{
		cb_put(a, i, (unsigned) (i % 16));
		cb_put(b, i, (unsigned) ((i * 7) % 16));
	}
	CHECK(cb_tail_is_clear(a, 33), "tail clear");
	CHECK(cb_saturated(a, 33) == 2, "saturated counters: %lu", (unsigned long) cb_saturated(a, 33));
	CHECK(cb_total(a, 33) == 15 * 16 / 2 * 2 + 0 , "total %lu", (unsigned long) cb_total(a, 33));
	cb_to_bits(a, 33, bits);
	for (int i = 0; i < 33; i++)
		CHECK(bs_bit_test(bits, i) == (i % 16 != 0), "to_bits bit %d", i);
	cb_merge(a, b, 33);
	for (int i = 0; i < 33; i++)
	{
		unsigned	want = (unsigned) (i % 16 + (i * 7) % 16);

		CHECK(cb_get(a, i) == (want > 15 ? 15 : want), "merge counter %d", i);
	}
	CHECK(cb_tail_is_clear(a, 33), "merge keeps the tail clear");
	a[16] = 0x10;				/* counter 33: beyond m = 33 */
	CHECK(!cb_tail_is_clear(a, 33), "a padding counter is caught");
	a[16] = 0;
	a[17] = 1;
	CHECK(!cb_tail_is_clear(a, 33), "a padding byte is caught");
}

/*
 * measured false-positive rate within 15% of (1 - e^(-kn/m))^k, after n adds
 * and after removing a fifth of them (the filter then must behave like one of 4n/5);
 * 'xxh3' only: the formula assumes independent positions, which the 'linear'
 * family (positions a_i x + b_i of x mod m) does not give
 */
static void
test_fp_rate(int family)
{
	const uint32_t m = 479253;	/* bloom_optimal_m(50000, 0.01) */
	const int	k = 7;
	const int	n = 50000;
	BsParams	p = {m, k, (uint8_t) family, 11};
	BsHasher	h;
	uint8_t    *c = calloc(1, CB_NBYTES(m));

	unsigned long long state = 99;
	int64_t    *elems = malloc(sizeof(int64_t) * n);

	bs_hasher_init(&h, &p);
	for (int x = 0; x < n; x++)
	{
		elems[x] = (int64_t) (unit_splitmix64(&state) >> 2);
		cb_add(&h, bs_key_int64(&h, elems[x]), c);
	}
	for (int phase = 0; phase < 2; phase++)
	{
		int			members = phase == 0 ? n : n - n / 5;
		double		want = pow(1 - exp(-(double) k * members / m), k);
		long		fp = 0;
		const long	queries = 400000;

		for (long q = 0; q < queries; q++)
			fp += cb_test(&h, bs_key_int64(&h, (int64_t) (unit_splitmix64(&state) >> 2) | ((int64_t) 1 << 62)), c);
		CHECK(fabs(fp / (double) queries - want) <= 0.15 * want,
			  "%s, %d members: measured fp %.5f, formula %.5f", bs_hash_family_name(family),
			  members, fp / (double) queries, want);
		for (int x = n - n / 5; x < n && phase == 0; x++)
			CHECK(cb_remove(&h, bs_key_int64(&h, elems[x]), c) == CB_REMOVED, "remove %d", x);
	}
	free(c);
	free(elems);
}

int
main(void)
{
	/* large filters: nothing saturates, exact counters and bits */
	random_sequence(1 << 17, 4, 0, BS_HASH_XXH3, 1, UNIVERSE, 60);
	random_sequence(100003, 7, -12345, BS_HASH_XXH3, 2, UNIVERSE, 55);
	random_sequence(1 << 17, 3, 7, BS_HASH_LINEAR, 3, UNIVERSE, 60);
	/* small filters over few elements: counters saturate, still no false negatives */
	random_sequence(512, 4, 1, BS_HASH_XXH3, 4, 300, 60);
	random_sequence(257, 6, 2, BS_HASH_LINEAR, 5, 200, 55);
	test_refused_removal();
	test_saturation_and_merge();
	test_fp_rate(BS_HASH_XXH3);
	return UNIT_DONE();
}
