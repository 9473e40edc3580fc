/*
 * test_bloofi.c
 *    Unit tests of the Bloofi layout core: geometry bounds, transposition
 *    against a naive bit-by-bit model, column set/clear, summaries, the
 *    AND-of-slices search against testing every leaf, insert choice.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bloofi_layout.h"
#include "bs_bits.h"
#include "bs_hash.h"
#include "unit.h"

static unsigned long long rng_state = 12345;

static uint64_t
rnd(void)
{
	return unit_splitmix64(&rng_state);
}

static void
test_geometry(void)
{
	BloofiGeometry g;

	CHECK(!bloofi_geometry(&g, 100, 63, 8144), "cap must be a multiple of 64");
	CHECK(!bloofi_geometry(&g, 100, 0, 8144), "cap 0");
	CHECK(!bloofi_geometry(&g, 0, 64, 8144), "m 0");
	CHECK(!bloofi_geometry(&g, BLOOFI_MAX_M + 1, 64, 8144), "m too large");
	CHECK(!bloofi_geometry(&g, 100, 65536 + 64, 8144), "slice larger than a page");
	CHECK(bloofi_geometry(&g, 2397, 8192, 8144), "paper-ish geometry");
	CHECK(g.slice_bytes == 1024 && g.slices_per_page == 7, "slices %u/page of %u",
		  g.slices_per_page, g.slice_bytes);
	CHECK(g.slice_pages == (2397 + 6) / 7, "slice pages %u", g.slice_pages);
	CHECK(g.tid_pages == (8192 * 6 + 8143) / 8144 || g.tid_pages * g.tids_per_page >= 8192,
		  "tid pages %u", g.tid_pages);
	CHECK(g.filter_bytes == 8 * 38 && g.summary_pages == 1, "summary %u", g.summary_pages);
	CHECK(bloofi_geometry(&g, 100992, 64, 8144), "large filter");
	CHECK(g.summary_pages == 2 && bloofi_summary_page_bytes(&g, 0) + bloofi_summary_page_bytes(&g, 1)
		  == g.filter_bytes, "summary split %u", g.summary_pages);
	{
		uint32_t	tot = 0;

		for (uint32_t sp = 0; sp < g.slice_pages; sp++)
			tot += bloofi_slice_page_count(&g, sp);
		CHECK(tot == 100992, "every slice on exactly one page (%u)", tot);
	}
	CHECK(bloofi_round_capacity(1, 8192) == 64 && bloofi_round_capacity(65, 8192) == 128 &&
		  bloofi_round_capacity(100000, 8192) == 8192, "round capacity");
	CHECK(bloofi_next_capacity(0, 8192) == 64 && bloofi_next_capacity(1000, 8192) == 1024 && bloofi_next_capacity(64, 8192) == 64 &&
		  bloofi_next_capacity(1000000, 8192) == 8192 && bloofi_next_capacity(1000000, 640) == 640,
		  "next capacity");
}

/* random filters; transposition, column set, search, clear and summaries */
static void
test_slices(void)
{
	enum {M = 700, N = 150, CAP = 192, PAGE = 1000};
	BloofiGeometry g;
	uint32_t	fb;
	uint8_t    *leaves;
	uint8_t    *group;			/* all slice pages, row by row */
	uint8_t    *group2;
	BsParams	p = {M, 5, BS_HASH_XXH3, 7};
	BsHasher	h;

	CHECK(bloofi_geometry(&g, M, CAP, PAGE), "geometry");
	fb = g.filter_bytes;
	bs_hasher_init(&h, &p);
	leaves = calloc(N, fb);
	group = calloc(g.slice_pages, PAGE);
	group2 = calloc(g.slice_pages, PAGE);
	for (int i = 0; i < N; i++)
		for (int e = 0; e < 20; e++)
			bs_key_set(&h, bs_key_int64(&h, (int64_t) (rnd() % 2000)), leaves + (size_t) i * fb);

	/* bulk: two calls (slots 0..99, 100..149) per page; one column at a time in group2 */
	for (uint32_t sp = 0; sp < g.slice_pages; sp++)
	{
		uint32_t	j0 = bloofi_slice_page_first(&g, sp),
					n = bloofi_slice_page_count(&g, sp);

		bloofi_transpose(group + sp * PAGE, g.slice_bytes, j0, n, leaves, fb, 100, 0);
		bloofi_transpose(group + sp * PAGE, g.slice_bytes, j0, n, leaves + 100 * fb, fb, N - 100, 100);
		for (int i = 0; i < N; i++)
			bloofi_set_column(group2 + sp * PAGE, g.slice_bytes, j0, n, leaves + (size_t) i * fb, i);
	}
	CHECK(memcmp(group, group2, (size_t) g.slice_pages * PAGE) == 0, "transpose == column sets");
	{
		int			bad = 0;

		for (int i = 0; i < N; i++)
			for (uint32_t j = 0; j < M; j++)
			{
				uint32_t	sp = j / g.slices_per_page;
				const uint8_t *s = group + sp * PAGE + bloofi_slice_offset(&g, j);

				if (bs_bit_test(s, i) != bs_bit_test(leaves + (size_t) i * fb, j))
					bad++;
			}
		CHECK(bad == 0, "slice bit = leaf bit (%d wrong)", bad);
	}

	/* search: AND of k slices == testing every leaf */
	{
		int			bad = 0;

		for (int64_t x = 0; x < 3000; x++)
		{
			BsKey		key = bs_key_int64(&h, x);
			uint32_t	pos[32];
			uint64_t	acc[CAP / 64];
			uint32_t	np;

			bs_key_positions(&h, key, pos);
			np = bloofi_sort_positions(pos, p.k);
			bloofi_acc_init(acc, g.slice_words, N);
			for (uint32_t i = 0; i < np; i++)
				bloofi_and_slice(acc, group + (pos[i] / g.slices_per_page) * PAGE +
								 bloofi_slice_offset(&g, pos[i]), g.slice_words);
			for (int i = 0; i < CAP; i++)
			{
				bool		got = (acc[i / 64] >> (i % 64)) & 1;
				bool		want = i < N && bs_key_test(&h, key, leaves + (size_t) i * fb);

				if (got != want)
					bad++;
			}
		}
		CHECK(bad == 0, "AND of slices == leaf tests (%d wrong)", bad);
	}

	/* column counts == popcounts */
	{
		uint32_t	cnt[CAP] = {0};
		int			bad = 0;

		for (uint32_t sp = 0; sp < g.slice_pages; sp++)
			bloofi_column_counts(group + sp * PAGE, g.slice_words,
								 bloofi_slice_page_count(&g, sp), N, cnt);
		for (int i = 0; i < N; i++)
			if (cnt[i] != bs_popcount(leaves + (size_t) i * fb, fb / 8))
				bad++;
		CHECK(bad == 0, "column counts (%d wrong)", bad);
		{
			uint32_t	c2[CAP] = {0};
			uint64_t	dg[CAP] = {0};

			bad = 0;
			for (uint32_t sp = 0; sp < g.slice_pages; sp++)
				bloofi_column_digest(group + sp * PAGE, g.slice_words,
									 bloofi_slice_page_first(&g, sp),
									 bloofi_slice_page_count(&g, sp), N, c2, dg);
			for (int i = 0; i < N; i++)
				if (c2[i] != cnt[i] || dg[i] != bloofi_filter_digest(leaves + (size_t) i * fb, M))
					bad++;
			CHECK(bad == 0, "column digests == filter digests (%d wrong)", bad);
			CHECK(dg[0] != dg[1], "different leaves, different digests");
		}
		CHECK(bloofi_count_range(leaves, 0, M) == bs_popcount(leaves, fb / 8), "count range");
		CHECK(bloofi_count_range(leaves, 3, 130) + bloofi_count_range(leaves, 133, M - 133) +
			  bloofi_count_range(leaves, 0, 3) == bs_popcount(leaves, fb / 8), "count split ranges");
	}

	/* clear every third leaf; summary = OR of the others */
	{
		uint64_t	dead[CAP / 64] = {0},
					live[CAP / 64] = {0};
		uint8_t    *sum = calloc(1, fb),
				   *want = calloc(1, fb);
		bool		changed = false;
		int			bad = 0;

		for (int i = 0; i < N; i++)
		{
			if (i % 3 == 0)
				dead[i / 64] |= UINT64_C(1) << (i % 64);
			else
			{
				live[i / 64] |= UINT64_C(1) << (i % 64);
				bs_or(want, leaves + (size_t) i * fb, fb / 8);
			}
		}
		for (uint32_t sp = 0; sp < g.slice_pages; sp++)
			changed |= bloofi_clear_and_summarise(group + sp * PAGE, g.slice_words,
												  bloofi_slice_page_first(&g, sp),
												  bloofi_slice_page_count(&g, sp),
												  dead, live, sum);
		CHECK(changed, "clearing changed something");
		CHECK(memcmp(sum, want, fb) == 0, "summary = OR of live leaves");
		for (int i = 0; i < N; i++)
			for (uint32_t j = 0; j < M; j++)
			{
				const uint8_t *s = group + (j / g.slices_per_page) * PAGE + bloofi_slice_offset(&g, j);
				bool		want_bit = (i % 3 != 0) && bs_bit_test(leaves + (size_t) i * fb, j);

				if (bs_bit_test(s, i) != want_bit)
					bad++;
			}
		CHECK(bad == 0, "dead columns cleared, live kept (%d wrong)", bad);
		free(sum);
		free(want);
	}
	free(leaves);
	free(group);
	free(group2);
}

/* similar filters get close keys more often than dissimilar ones */
static void
test_similarity_key(void)
{
	enum {M = 2048};
	uint8_t		a[M / 8],
				b[M / 8],
				c[M / 8],
				z[M / 8] = {0};
	int			same_ab = 0,
				same_ac = 0;
	BsParams	p = {M, 4, BS_HASH_XXH3, 0};
	BsHasher	h;

	bs_hasher_init(&h, &p);
	for (int t = 0; t < 200; t++)
	{
		memset(a, 0, sizeof(a));
		memset(b, 0, sizeof(b));
		memset(c, 0, sizeof(c));
		for (int e = 0; e < 50; e++)
		{
			int64_t		x = (int64_t) (rnd() >> 1);

			bs_key_set(&h, bs_key_int64(&h, x), a);
			/* b shares 45 of a's 50 elements, c none */
			bs_key_set(&h, bs_key_int64(&h, e < 45 ? x : x + 1), b);
			bs_key_set(&h, bs_key_int64(&h, x ^ 0x5555), c);
		}
		same_ab += (bloofi_similarity_key(a, M) >> 32) == (bloofi_similarity_key(b, M) >> 32);
		same_ac += (bloofi_similarity_key(a, M) >> 32) == (bloofi_similarity_key(c, M) >> 32);
	}
	CHECK(same_ab > 120 && same_ac < 20, "MinHash agreement: similar %d/200, dissimilar %d/200",
		  same_ab, same_ac);
	CHECK(bloofi_similarity_key(z, M) == 0, "empty filter sorts first");
}

static void
test_misc(void)
{
	uint32_t	pos[] = {9, 3, 3, 7, 9, 1};
	uint64_t	ham[] = {UINT64_MAX, 7, 3, 3, UINT64_MAX};
	uint64_t	none[] = {UINT64_MAX, UINT64_MAX};
	uint64_t	acc[3];

	CHECK(bloofi_sort_positions(pos, 6) == 4 && pos[0] == 1 && pos[1] == 3 && pos[2] == 7 &&
		  pos[3] == 9, "sort + dedup");
	CHECK(bloofi_choose_closest(ham, 5) == 2, "closest, first of ties");
	CHECK(bloofi_choose_closest(none, 2) == -1, "no candidate");
	bloofi_acc_init(acc, 3, 70);
	CHECK(acc[0] == ~UINT64_C(0) && acc[1] == 63 && acc[2] == 0, "acc init");
}

int
main(void)
{
	test_geometry();
	test_slices();
	test_misc();
	test_similarity_key();
	return UNIT_DONE();
}
