/*
 * test_colstats.c
 *    Unit tests of the column-statistics core (bs_colstats.c) and of the
 *    Bloofi lookup model (bloofi_lookup_model.c): the sample's shape against
 *    an exhaustive search of every fold, the bit-sliced sample's hits
 *    against testing each folded filter bit by bit, the estimator against
 *    the true fraction of a simulated column (members of a common, a rare
 *    and no element), and the lookup model against cases worked by hand.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bloofi_lookup_model.h"
#include "bs_bits.h"
#include "bs_colstats.h"
#include "bs_hash.h"
#include "unit.h"

static unsigned long long rng_state = 777;

/* the next number of the test's deterministic stream */
static uint64_t
rnd(void)
{
	return unit_splitmix64(&rng_state);
}

/* ---- shape --------------------------------------------------------------- */

/* false hits that folding m bits to fold_m adds over s sampled filters of these fills */
static double
extra_hits(uint32_t m, int k, const float *fills, uint32_t n, uint32_t fold_m, uint32_t s)
{
	double		sum = 0;

	for (uint32_t i = 0; i < n; i++)
		sum += pow(bs_colstats_folded_fill(fills[i], m, fold_m), k) - pow(fills[i], k);
	return sum / n * s;
}

/* the best sample any fold gives, by trying every fold_m */
static uint32_t
best_sample_exhaustive(uint32_t m, int k, const float *fills, uint32_t n, uint64_t budget)
{
	uint32_t	best = 0;

	for (uint32_t fm = m; fm >= 1; fm--)
	{
		uint64_t	cap = budget / 64 / fm * 64;
		uint32_t	s = cap < n ? (uint32_t) cap : n;

		if (s > best)
		{
			/* more folding only adds false hits: the first fold that adds too many ends it */
			if (extra_hits(m, k, fills, n, fm, s) > BS_COLSTATS_FOLD_EXTRA_HITS)
				break;
			best = s;
		}
		if (s == n)
			break;
	}
	return best;
}

/* bs_colstats_shape on n filters around fill against the exhaustive search over every fold */
static void
check_shape(uint32_t m, int k, double fill, uint32_t n, uint64_t budget, const char *what)
{
	float	   *fills = malloc(sizeof(float) * n);
	BsSampleShape sh;
	bool		ok;
	uint32_t	best;

	for (uint32_t i = 0; i < n; i++)
		fills[i] = (float) (fill * (0.5 + (double) (rnd() % 1000) / 1000));
	ok = bs_colstats_shape(m, k, fills, n, budget, 1, &sh);
	best = best_sample_exhaustive(m, k, fills, n, budget);
	CHECK(ok == (best > 0), "%s: shape %d, exhaustive best %u", what, ok, best);
	if (ok)
	{
		CHECK(sh.fold_m >= 1 && sh.fold_m <= m, "%s: fold_m %u of m %u", what, sh.fold_m, m);
		CHECK(sh.nsample >= 1 && sh.nsample <= n, "%s: nsample %u of %u", what, sh.nsample, n);
		CHECK((uint64_t) sh.fold_m * bs_colstats_slice_words(sh.nsample) * 64 <= budget,
			  "%s: %u x %u over the budget %llu", what, sh.fold_m, sh.nsample,
			  (unsigned long long) budget);
		/* the estimate of the extra hits uses a stride of the fills: a small margin */
		CHECK(extra_hits(m, k, fills, n, sh.fold_m, sh.nsample) <= 1.2 * BS_COLSTATS_FOLD_EXTRA_HITS,
			  "%s: folding adds %g hits", what, extra_hits(m, k, fills, n, sh.fold_m, sh.nsample));
		/* the coarse search finds nearly what trying every fold finds */
		CHECK(sh.nsample >= 0.75 * best, "%s: sample %u, exhaustive %u", what, sh.nsample, best);
	}
	free(fills);
}

static void
test_shape(void)
{
	BsSampleShape sh;
	float		f[3] = {0.5f, 0.5f, 0.5f};

	CHECK_CLOSE(bs_colstats_folded_fill(0.5, 1000, 500), 0.75, 1e-12);
	CHECK_CLOSE(bs_colstats_folded_fill(0.2, 1000, 1000), 0.2, 1e-12);
	CHECK_CLOSE(bs_colstats_folded_fill(1.0, 1000, 10), 1.0, 1e-12);
	CHECK(bs_colstats_bucket(999, 1000, 10) == 9, "bucket of the last bit");
	CHECK(bs_colstats_bucket(0, 1000, 10) == 0, "bucket of bit 0");

	/* everything fits unfolded: kept whole */
	CHECK(bs_colstats_shape(1024, 3, f, 3, 1 << 20, 1, &sh) && sh.fold_m == 1024 && sh.nsample == 3,
		  "small: %u x %u", sh.fold_m, sh.nsample);
	/* dense filters do not fold: the budget decides the sample */
	CHECK(bs_colstats_shape(2397, 17, f, 3, 2397 * 64, 1, &sh) && sh.fold_m == 2397 && sh.nsample == 3,
		  "dense: %u x %u", sh.fold_m, sh.nsample);
	/* too small a budget, or below the minimum sample */
	CHECK(!bs_colstats_shape(100000, 7, f, 3, 1000, 1, &sh) && sh.nsample == 0, "no budget");
	CHECK(!bs_colstats_shape(1024, 3, f, 3, 1 << 20, 16, &sh), "min_sample");
	CHECK(!bs_colstats_shape(1024, 3, f, 0, 1 << 20, 1, &sh), "no rows");

	check_shape(19171, 13, 0.18, 30000, UINT64_C(8) << 20, "the issue's TOASTed filters");
	check_shape(2397, 17, 0.51, 30000, UINT64_C(8) << 20, "the benchmark's dense filters");
	check_shape(1024, 3, 0.006, 30000, UINT64_C(8) << 20, "sparse demo filters");
	check_shape(1 << 22, 7, 0.0002, 5000, UINT64_C(8) << 20, "very large sparse filters");
	check_shape(65536, 7, 0.41, 2000, UINT64_C(1) << 20, "large dense filters, small budget");

	/*
	 * all of them: unfolded when they fit; folded 4.7x, 30 heavy filters of
	 * 88-3,000 elements (m = 29,300, k = 7): the few the folding saturates
	 * always hit and add no variance, so they qualify; 30 filters of fill
	 * 0.3 folded to a q of about 0.5 each do not; no budget, no rows
	 */
	{
		float		hf[30];
		float		mid[30];

		for (int i = 0; i < 30; i++)
		{
			double		c = 3000.0 / pow(i + 1, 1.1) + 88;

			hf[i] = (float) (1 - exp(-7 * c / 29300));
			mid[i] = 0.3f;
		}
		CHECK(bs_colstats_shape_all(1024, 3, f, 3, 1 << 20, &sh) && sh.fold_m == 1024 &&
			  sh.nsample == 3, "all, unfolded: %u x %u", sh.fold_m, sh.nsample);
		CHECK(bs_colstats_shape_all(29300, 7, hf, 30, 400000, &sh) && sh.fold_m == 6250 &&
			  sh.nsample == 30, "all, heavy: %u x %u", sh.fold_m, sh.nsample);
		CHECK(!bs_colstats_shape_all(29300, 7, mid, 30, 400000, &sh) && sh.nsample == 0,
			  "all, too noisy");
		CHECK(!bs_colstats_shape_all(100000, 7, f, 3, 32, &sh), "all, no budget");
		CHECK(!bs_colstats_shape_all(1024, 3, f, 0, 1 << 20, &sh), "all, no rows");
	}
}

/* ---- the sample's hits against folded filters tested bit by bit ------------ */

/* a filter of m bits, each set with probability fill */
static void
random_filter(uint8_t *bits, uint32_t m, double fill)
{
	memset(bits, 0, bs_words_for_bits(m) * 8);
	for (uint32_t i = 0; i < m; i++)
		if ((double) (rnd() % 1000000) / 1e6 < fill)
			bs_bit_set(bits, i);
}

static void
test_hits(void)
{
	const uint32_t ms[] = {64, 100, 1000, 4097};
	const uint32_t nsamples[] = {1, 63, 64, 65, 200};

	for (int mi = 0; mi < 4; mi++)
		for (int si = 0; si < 5; si++)
		{
			uint32_t	m = ms[mi];
			uint32_t	ns = nsamples[si];
			uint32_t	fold_m = (mi % 2) ? m : m / 3 + 1;
			uint32_t	sw = bs_colstats_slice_words(ns);
			uint64_t   *slices = calloc((size_t) fold_m * sw, 8);
			uint64_t   *scratch = malloc(bs_words_for_bits(fold_m) * 8);
			uint64_t   *acc = malloc(sw * 8);
			uint8_t    *filters = malloc((size_t) ns * bs_words_for_bits(m) * 8);
			uint8_t    *folded = calloc((size_t) ns * bs_words_for_bits(fold_m), 8);
			bool		ok = true;

			for (uint32_t j = 0; j < ns; j++)
			{
				uint8_t    *f = filters + (size_t) j * bs_words_for_bits(m) * 8;
				uint8_t    *g = folded + (size_t) j * bs_words_for_bits(fold_m) * 8;
				uint32_t	pop = 0,
							got;

				random_filter(f, m, 0.1 + 0.6 * (double) j / ns);
				for (uint32_t p = 0; p < m; p++)
					if (bs_bit_test(f, p))
						bs_bit_set(g, bs_colstats_bucket(p, m, fold_m));
				for (uint32_t b = 0; b < fold_m; b++)
					pop += bs_bit_test(g, b);
				got = bs_colstats_add(slices, sw, fold_m, f, m, j, scratch);
				ok = ok && got == pop;
			}
			CHECK(ok, "m %u fold %u n %u: folded popcounts", m, fold_m, ns);
			for (int t = 0; t < 50; t++)
			{
				uint32_t	pos[5];
				int			npos = 1 + t % 5;
				uint32_t	want = 0,
							got;

				for (int i = 0; i < npos; i++)
					pos[i] = (uint32_t) (rnd() % m);
				for (uint32_t j = 0; j < ns; j++)
				{
					const uint8_t *g = folded + (size_t) j * bs_words_for_bits(fold_m) * 8;
					bool		all = true;

					for (int i = 0; i < npos; i++)
						all = all && bs_bit_test(g, bs_colstats_bucket(pos[i], m, fold_m));
					want += all;
				}
				got = bs_colstats_hits(slices, ns, fold_m, m, pos, npos, acc);
				if (got != want)
				{
					CHECK(got == want, "m %u fold %u n %u: hits %u, want %u", m, fold_m, ns, got, want);
					break;
				}
			}
			free(slices);
			free(scratch);
			free(acc);
			free(filters);
			free(folded);
		}
}

/* ---- the estimator on a simulated column -------------------------------- */

static void
test_estimator_formula(void)
{
	/* no folding: hits / nsample back */
	CHECK_CLOSE(bs_colstats_member_fraction(30, 300, 0.01, 0.01, 0.5, 0.001), 0.1, 1e-12);
	/* no hit: the floor, plus false positives */
	CHECK_CLOSE(bs_colstats_member_fraction(0, 1000, 0, 0.001, 0.5, 0.001),
				0.0005 + 0.9995 * 0.001, 1e-12);
	/* folding's false hits come off */
	CHECK_CLOSE(bs_colstats_member_fraction(110, 1000, 0.01, 0, 0.5, 0.001), 0.1 / 0.99, 1e-9);
	/* no sample */
	CHECK_CLOSE(bs_colstats_member_fraction(0, 0, 0, 0, 0.5, 0.002), 0.002, 1e-12);
	CHECK(bs_colstats_member_fraction(5000, 1000, 0, 0, 0.5, 0) == 1, "clamped to 1");
}

/*
 * 6,000 filters (m = 4,096, k = 5) of 60 elements each: element A in 30% of
 * them, element B in 1%, the rest unique to their filter.  A sample of
 * every third filter, folded by 2, must estimate A and B within 20% and an
 * absent element (and a unique one) at most at the floor plus the false
 * positives.
 */
static void
test_estimator_simulated(void)
{
	const uint32_t m = 4096,
				n = 6000;
	const int	k = 5;
	BsParams	p = {m, k, BS_HASH_XXH3, 7};
	BsHasher	h;
	uint8_t    *bits = malloc(bs_words_for_bits(m) * 8);
	float	   *fills = malloc(sizeof(float) * n);
	BsSampleShape sh;
	uint32_t	sw = 0;
	uint64_t   *slices = NULL,
			   *scratch = NULL,
			   *acc = NULL;
	double		fold_fp = 0,
				fp = 0;
	uint32_t	posA[5],
				posB[5],
				posX[5],
				posU[5];
	uint32_t	col = 0;
	int			trueA = 0,
				trueB = 0;

	bs_hasher_init(&h, &p);
	bs_key_positions(&h, bs_key_int64(&h, -1), posA);
	bs_key_positions(&h, bs_key_int64(&h, -2), posB);
	bs_key_positions(&h, bs_key_int64(&h, -3), posX);
	bs_key_positions(&h, bs_key_int64(&h, 1000 * 60 + 7), posU);	/* in filter 1000 */
	for (int pass = 0; pass < 2; pass++)
	{
		for (uint32_t i = 0; i < n; i++)
		{
			uint64_t	popc;

			memset(bits, 0, bs_words_for_bits(m) * 8);
			for (int j = 0; j < 60; j++)
				bs_key_set(&h, bs_key_int64(&h, (int64_t) i * 60 + j), bits);
			if (i % 10 < 3)
				bs_key_set(&h, bs_key_int64(&h, -1), bits);
			if (i % 100 == 42)
				bs_key_set(&h, bs_key_int64(&h, -2), bits);
			popc = bs_popcount(bits, bs_words_for_bits(m));
			if (pass == 0)
			{
				fills[i] = (float) popc / m;
				fp += pow(fills[i], k) / n;
				trueA += bs_key_test(&h, bs_key_int64(&h, -1), bits);
				trueB += bs_key_test(&h, bs_key_int64(&h, -2), bits);
			}
			else if (i % 3 == 0 && col < sh.nsample)
			{
				uint32_t	fpop = bs_colstats_add(slices, sw, sh.fold_m, bits, m, col++, scratch);

				fold_fp += pow((double) fpop / sh.fold_m, k);
			}
		}
		if (pass == 0)
		{
			CHECK(bs_colstats_shape(m, k, fills, n, (uint64_t) (n / 3) * m / 2, 1, &sh),
				  "shape of the simulated column");
			CHECK(sh.fold_m < m && sh.nsample >= n / 3 - 64,
				  "folded %u of %u, %u filters", sh.fold_m, m, sh.nsample);
			sw = bs_colstats_slice_words(sh.nsample);
			slices = calloc((size_t) sh.fold_m * sw, 8);
			scratch = malloc(bs_words_for_bits(sh.fold_m) * 8);
			acc = malloc(sw * 8);
		}
	}
	fold_fp /= col;
	{
		double		selA = bs_colstats_member_fraction(bs_colstats_hits(slices, col, sh.fold_m, m, posA, k, acc),
													   col, fold_fp, fp, 0.5, 0);
		double		selB = bs_colstats_member_fraction(bs_colstats_hits(slices, col, sh.fold_m, m, posB, k, acc),
													   col, fold_fp, fp, 0.5, 0);
		double		selX = bs_colstats_member_fraction(bs_colstats_hits(slices, col, sh.fold_m, m, posX, k, acc),
													   col, fold_fp, fp, 0.5, 0);
		double		selU = bs_colstats_member_fraction(bs_colstats_hits(slices, col, sh.fold_m, m, posU, k, acc),
													   col, fold_fp, fp, 0.5, 0);

		CHECK(fabs(selA * n - trueA) <= 0.2 * trueA, "common element: %.1f rows, true %d", selA * n, trueA);
		CHECK(fabs(selB * n - trueB) <= 0.5 * trueB, "rare element: %.1f rows, true %d", selB * n, trueB);
		CHECK(selX <= 2.0 / col + fp, "absent element: %g", selX);
		CHECK(selU <= 2.0 / col + fp, "unique element: %g", selU);
	}
	free(bits);
	free(fills);
	free(slices);
	free(scratch);
	free(acc);
}

/* ---- the lookup model ----------------------------------------------------- */

static void
test_lookup_model(void)
{
	BloofiLevelProfile one[1] = {{1, 10000, 157, 13, 20, 1, 1}};
	BloofiLevelProfile two[2] = {
		{1, 3, 1, 1, 1, 1, 1},
		{3, 10667, 167, 13, 30, 1, 1},
	};
	BloofiLookupWork w,
				w2;

	CHECK_CLOSE(bloofi_pages_touched(1, 5), 1, 1e-12);
	CHECK_CLOSE(bloofi_pages_touched(10, 1), 1, 1e-12);
	CHECK_CLOSE(bloofi_pages_touched(2, 2), 1.5, 1e-12);
	CHECK(bloofi_pages_touched(100, 1000) <= 100, "at most every page");

	/* a root only (saturated, untested): its slices and one tid page */
	bloofi_lookup_work(one, 1, 13, false, 1, &w);
	CHECK_CLOSE(w.nodes_opened, 1, 1e-12);
	CHECK_CLOSE(w.words, 13 * 157, 1e-9);
	CHECK_CLOSE(w.pages, 1 + bloofi_pages_touched(13, 13) + 1, 1e-9);
	CHECK_CLOSE(w.headers, 1, 1e-9);
	CHECK_CLOSE(w.values_tested, 10000, 1e-9);

	/* saturated bottom nodes: every one opened, whatever the matches */
	bloofi_lookup_work(two, 2, 13, false, 0, &w);
	CHECK_CLOSE(w.nodes_opened, 4, 1e-12);
	CHECK_CLOSE(w.words, 13 * 1 + 3 * 13 * 167, 1e-9);
	bloofi_lookup_work(two, 2, 13, false, 5, &w2);
	CHECK(w2.pages > w.pages && w2.words == w.words, "matches add tid pages only");

	/* values that prune: only the nodes over matches (and false positives) */
	two[1].value_fp = 0;
	two[0].value_fp = 0;
	bloofi_lookup_work(two, 2, 13, true, 0, &w);
	CHECK_CLOSE(w.nodes_opened, 0, 1e-12);
	CHECK_CLOSE(w.values_tested, 1, 1e-12);
	bloofi_lookup_work(two, 2, 13, true, 1, &w);
	CHECK_CLOSE(w.nodes_opened, 2, 1e-9);
	bloofi_lookup_work(two, 2, 13, true, 1000, &w2);
	CHECK(w2.nodes_opened <= 4 + 1e-9 && w2.nodes_opened > w.nodes_opened,
		  "matches everywhere open every node: %g", w2.nodes_opened);
	two[1].value_fp = 0.5;
	bloofi_lookup_work(two, 2, 13, true, 0, &w);
	CHECK_CLOSE(w.nodes_opened, 0 + 0, 1e-9);	/* the root's value fp is 0 */
	two[0].value_fp = 1;
	bloofi_lookup_work(two, 2, 13, true, 0, &w);
	CHECK_CLOSE(w.nodes_opened, 1 + 1.5, 1e-9);
	CHECK_CLOSE(w.headers, 1 + 1 + 1.5, 1e-9);
}

/* runs every test above; exit status 0 when all passed (UNIT_DONE) */
int
main(void)
{
	test_shape();
	test_hits();
	test_estimator_formula();
	test_estimator_simulated();
	test_lookup_model();
	return UNIT_DONE();
}
