/*
 * test_bloofi.c
 *    Unit tests of the Bloofi layout core: geometry bounds, transposition
 *    against a naive bit-by-bit model, column set/get/put/clear, values,
 *    the AND-of-slices search against testing every leaf, insert choice.
 *
 * Capacities are multiples of BLOOFI_SLOT_QUANTUM (8), so a slice is
 * cap / 8 bytes and may be narrower than a 64-bit word or not a whole number
 * of words (cap 8, 24, 72, 200...).  The slice tests run for such
 * capacities with the slice pages allocated to exactly the bytes their
 * slices use (a read past the last slice of a page is a heap overflow under
 * ASan) and with bits in the neighbouring slices, and they ask for slots
 * past cap wherever the contracts allow (accumulators and live masks with
 * every bit set, column counts over more slots than cap): a read past the
 * end of a slice would show there as bits of the next slice.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bloofi_layout.h"
#include "bs_bits.h"
#include "bs_hash.h"
#include "unit.h"

static unsigned long long rng_state = 12345;

/* the next number of the test's deterministic stream */
static uint64_t
rnd(void)
{
	return unit_splitmix64(&rng_state);
}

/* count[s] += bits of column s < nslots (bloofi_column_digest, digests dropped) */
static void
column_counts(const uint8_t *page, uint32_t slice_bytes, uint32_t nslices, uint32_t nslots,
			  uint32_t *count)
{
	uint64_t   *dg = calloc(nslots ? nslots : 1, sizeof(uint64_t));

	bloofi_column_digest(page, slice_bytes, 0, nslices, nslots, count, dg);
	free(dg);
}

/* bloofi_geometry: the limits it refuses and the layouts it computes */
static void
test_geometry(void)
{
	BloofiGeometry g;

	CHECK(BLOOFI_SLOT_QUANTUM == 8, "quantum %d", BLOOFI_SLOT_QUANTUM);
	CHECK(!bloofi_geometry(&g, 100, 63, 8144), "cap must be a multiple of 8");
	CHECK(!bloofi_geometry(&g, 100, 4, 8144), "cap must be a multiple of 8 (4)");
	CHECK(!bloofi_geometry(&g, 100, 12, 8144), "cap must be a multiple of 8 (12)");
	CHECK(!bloofi_geometry(&g, 100, 0, 8144), "cap 0");
	CHECK(!bloofi_geometry(&g, 0, 64, 8144), "m 0");
	CHECK(!bloofi_geometry(&g, BLOOFI_MAX_M + 1, 64, 8144), "m too large");
	CHECK(bloofi_geometry(&g, BLOOFI_MAX_M, 64, 8144), "m = BLOOFI_MAX_M");
	CHECK(!bloofi_geometry(&g, 100, 65536 + 64, 8144), "slice larger than a page");
	CHECK(!bloofi_geometry(&g, 100, 8144 * 8 + 8, 8144), "slice one byte larger than a page");
	CHECK(bloofi_geometry(&g, 100, 8144 * 8, 8144) && g.slices_per_page == 1,
		  "slice of exactly a page");
	CHECK(bloofi_geometry(&g, 2397, 8192, 8144), "paper-ish geometry");
	CHECK(g.slice_bytes == 1024 && g.slice_words == 128 && g.slices_per_page == 7,
		  "slices %u/page of %u", g.slices_per_page, g.slice_bytes);
	CHECK(g.slice_pages == (2397 + 6) / 7, "slice pages %u", g.slice_pages);
	CHECK(g.tid_pages == (8192 * 6 + 8143) / 8144 || g.tid_pages * g.tids_per_page >= 8192,
		  "tid pages %u", g.tid_pages);
	CHECK(g.filter_bytes == 8 * 38 && g.value_pages == 1, "value pages %u", g.value_pages);
	CHECK(bloofi_geometry(&g, 100992, 64, 8144), "large filter");
	CHECK(g.value_pages == 2 && bloofi_value_page_bytes(&g, 0) + bloofi_value_page_bytes(&g, 1)
		  == g.filter_bytes, "value split %u", g.value_pages);
	{
		uint32_t	tot = 0;

		for (uint32_t sp = 0; sp < g.slice_pages; sp++)
			tot += bloofi_slice_page_count(&g, sp);
		CHECK(tot == 100992, "every slice on exactly one page (%u)", tot);
	}

	/* slices of whole bytes, not whole words */
	{
		static const uint32_t caps[] = {8, 16, 24, 56, 64, 72, 120, 192, 200, 8192};

		for (size_t c = 0; c < sizeof(caps) / sizeof(caps[0]); c++)
		{
			uint32_t	cap = caps[c];
			uint32_t	tot = 0;

			CHECK(bloofi_geometry(&g, 1000, cap, 8144), "cap %u accepted", cap);
			CHECK(g.cap == cap && g.slice_bytes == cap / 8 && g.slice_words == (cap + 63) / 64,
				  "cap %u: slice %u bytes, %u words", cap, g.slice_bytes, g.slice_words);
			CHECK(g.slices_per_page == 8144 / (cap / 8) &&
				  g.slices_per_page * g.slice_bytes <= g.page_bytes,
				  "cap %u: %u slices per page", cap, g.slices_per_page);
			CHECK(g.slice_pages == (1000 + g.slices_per_page - 1) / g.slices_per_page,
				  "cap %u: %u slice pages", cap, g.slice_pages);
			CHECK(g.tid_pages * g.tids_per_page >= cap && (g.tid_pages - 1) * g.tids_per_page < cap,
				  "cap %u: %u tid pages", cap, g.tid_pages);
			CHECK(g.total_pages == g.tid_pages + g.value_pages + g.slice_pages,
				  "cap %u: total pages", cap);
			for (uint32_t sp = 0; sp < g.slice_pages; sp++)
				tot += bloofi_slice_page_count(&g, sp);
			CHECK(tot == 1000, "cap %u: every slice on one page (%u)", cap, tot);
			/* slice offsets: consecutive, never straddling a page */
			for (uint32_t j = 0; j < 1000; j++)
			{
				uint32_t	off = bloofi_slice_offset(&g, j);

				if (off + g.slice_bytes > g.page_bytes ||
					bloofi_slice_page(&g, j) != g.tid_pages + g.value_pages + j / g.slices_per_page)
				{
					CHECK(false, "cap %u: slice %u at page %u offset %u", cap, j,
						  bloofi_slice_page(&g, j), off);
					break;
				}
			}
		}
	}

	/* round: up to a multiple of the quantum, clamped to [quantum, max_cap] */
	CHECK(bloofi_round_capacity(0, 8192) == 8, "round 0 -> %u", bloofi_round_capacity(0, 8192));
	CHECK(bloofi_round_capacity(1, 8192) == 8, "round 1 -> %u", bloofi_round_capacity(1, 8192));
	CHECK(bloofi_round_capacity(8, 8192) == 8, "round 8");
	CHECK(bloofi_round_capacity(9, 8192) == 16, "round 9");
	CHECK(bloofi_round_capacity(63, 8192) == 64, "round 63");
	CHECK(bloofi_round_capacity(65, 8192) == 72, "round 65 -> %u", bloofi_round_capacity(65, 8192));
	CHECK(bloofi_round_capacity(190, 8192) == 192, "round 190");
	CHECK(bloofi_round_capacity(8185, 8192) == 8192, "round 8185");
	CHECK(bloofi_round_capacity(100000, 8192) == 8192, "round clamps to max");
	CHECK(bloofi_round_capacity(UINT64_MAX - 3, 8192) == 8192, "round huge n: %u",
		  bloofi_round_capacity(UINT64_MAX - 3, 8192));
	CHECK(bloofi_round_capacity(100, 96) == 96, "round clamps to a small max");
	for (uint64_t n = 0; n < 2000; n++)
	{
		uint32_t	c = bloofi_round_capacity(n, 1024);
		uint64_t	want = n <= 8 ? 8 : (n + 7) / 8 * 8;

		if (want > 1024)
			want = 1024;
		if (c != want)
		{
			CHECK(false, "round %llu -> %u, want %llu", (unsigned long long) n, c,
				  (unsigned long long) want);
			break;
		}
	}
}

/* ---- bloofi_slice_word / bloofi_slice_store ------------------------------- */

/* word w of a slice by bytes: the bytes of the slice in [8w, 8w + 8), the rest zero */
static uint64_t
model_slice_word(const uint8_t *slice, uint32_t w, uint32_t nb)
{
	uint64_t	v = 0;

	for (uint32_t i = 0; i < 8; i++)
		if (8 * w + i < nb)
			v |= (uint64_t) slice[8 * w + i] << (8 * i);
	return v;
}

/*
 * Slices of 1..17 bytes at every alignment, between guard bytes: every word
 * reads as the model, stores write only the slice's bytes of the word, and
 * a store of what was read changes nothing.  The same on slices malloc'd to
 * their exact size (ASan: no access past the end).
 */
static void
test_slice_word_store(void)
{
	enum {GUARD = 24};
	int			bad_read = 0,
				bad_store = 0,
				bad_guard = 0,
				bad_trip = 0;

	for (uint32_t nb = 1; nb <= 17; nb++)
	{
		uint32_t	nwords = (nb + 7) / 8;

		for (uint32_t align = 0; align < 8; align++)
		{
			uint8_t		buf[GUARD + 8 + 17 + GUARD],
						before[sizeof(buf)];
			uint8_t    *slice = buf + GUARD + align;

			for (int t = 0; t < 20; t++)
			{
				for (size_t i = 0; i < sizeof(buf); i++)
					buf[i] = (uint8_t) rnd();
				/* some all-ones and all-zeros slices and guards too */
				if (t == 1)
					memset(buf, 0xff, sizeof(buf));
				if (t == 2)
				{
					memset(buf, 0xff, sizeof(buf));
					memset(slice, 0, nb);
				}
				memcpy(before, buf, sizeof(buf));

				for (uint32_t w = 0; w < nwords; w++)
				{
					uint64_t	got = bloofi_slice_word(slice, w, nb);

					if (got != model_slice_word(slice, w, nb))
						bad_read++;
					/* read back unchanged */
					bloofi_slice_store(slice, w, nb, got);
					if (memcmp(buf, before, sizeof(buf)) != 0)
						bad_trip++;
				}
				/* store random words, one at a time */
				for (uint32_t w = 0; w < nwords; w++)
				{
					uint64_t	v = rnd();
					uint32_t	inside = nb - 8 * w < 8 ? nb - 8 * w : 8;
					uint64_t	mask = inside == 8 ? ~UINT64_C(0) : (UINT64_C(1) << (8 * inside)) - 1;

					if (t == 3)
						v = ~UINT64_C(0);
					memcpy(before, buf, sizeof(buf));
					bloofi_slice_store(slice, w, nb, v);
					for (size_t i = 0; i < sizeof(buf); i++)
					{
						size_t		lo = GUARD + align + 8 * w;
						bool		in_word = i >= lo && i < lo + inside;
						uint8_t		want = in_word ? (uint8_t) (v >> (8 * (i - lo))) : before[i];

						if (buf[i] != want)
						{
							if (i < (size_t) (GUARD + align) || i >= (size_t) (GUARD + align + nb))
								bad_guard++;
							else
								bad_store++;
						}
					}
					if (bloofi_slice_word(slice, w, nb) != (v & mask))
						bad_trip++;
				}
			}
		}

		/* exactly sized: the sanitizer sees any access past the slice */
		{
			uint8_t    *exact = malloc(nb);
			uint8_t    *copy = malloc(nb);

			for (uint32_t i = 0; i < nb; i++)
				exact[i] = (uint8_t) rnd();
			memcpy(copy, exact, nb);
			for (uint32_t w = 0; w < nwords; w++)
			{
				uint64_t	v = bloofi_slice_word(exact, w, nb);

				if (v != model_slice_word(copy, w, nb))
					bad_read++;
				bloofi_slice_store(exact, w, nb, ~v);
				bloofi_slice_store(exact, w, nb, v);
			}
			if (memcmp(exact, copy, nb) != 0)
				bad_trip++;
			free(exact);
			free(copy);
		}
	}
	CHECK(bad_read == 0, "slice_word == bytes of the slice, zero past its end (%d wrong)", bad_read);
	CHECK(bad_store == 0, "slice_store writes the word's bytes (%d wrong)", bad_store);
	CHECK(bad_guard == 0, "slice_store never writes outside the slice (%d guard bytes changed)",
		  bad_guard);
	CHECK(bad_trip == 0, "slice_word/slice_store round trips (%d wrong)", bad_trip);

	/* one byte: bit s of the word = bit s of the byte; neighbours never read */
	{
		uint8_t		b[3] = {0xff, 0x5a, 0xff};

		CHECK(bloofi_slice_word(b + 1, 0, 1) == 0x5a, "1-byte slice reads 0x%llx",
			  (unsigned long long) bloofi_slice_word(b + 1, 0, 1));
		bloofi_slice_store(b + 1, 0, 1, ~UINT64_C(0) << 1);
		CHECK(b[0] == 0xff && b[1] == 0xfe && b[2] == 0xff, "1-byte store: %02x %02x %02x",
			  b[0], b[1], b[2]);
	}

	/* words wholly past the slice's end read as zero and are never written */
	{
		uint8_t		b[40];
		int			bad = 0;

		memset(b, 0xa5, sizeof(b));
		for (uint32_t nb = 1; nb <= 16; nb++)
			for (uint32_t w = (nb + 7) / 8; w < 3; w++)
			{
				bad += bloofi_slice_word(b, w, nb) != 0;
				bloofi_slice_store(b, w, nb, 0);
			}
		CHECK(bad == 0, "words past the slice's end read as zero (%d wrong)", bad);
		{
			int			changed = 0;

			for (size_t i = 0; i < sizeof(b); i++)
				changed += b[i] != 0xa5;
			CHECK(changed == 0, "stores past the slice's end wrote %d bytes", changed);
		}
	}
}

/* ---- slice pages of one node ----------------------------------------------- */

/*
 * The slice pages of a node, each allocated to exactly the bytes of its
 * slices (count * slice_bytes): the last slice of a page ends where the
 * allocation does.
 */
static uint8_t **
pages_alloc(const BloofiGeometry *g)
{
	uint8_t   **pg = calloc(g->slice_pages, sizeof(uint8_t *));

	for (uint32_t sp = 0; sp < g->slice_pages; sp++)
		pg[sp] = calloc(bloofi_slice_page_count(g, sp), g->slice_bytes);
	return pg;
}

/* free the g->slice_pages slice pages pg and their array */
static void
pages_free(const BloofiGeometry *g, uint8_t **pg)
{
	for (uint32_t sp = 0; sp < g->slice_pages; sp++)
		free(pg[sp]);
	free(pg);
}

/* bytes used on slice page sp: its slices times a slice's bytes */
static size_t
page_size(const BloofiGeometry *g, uint32_t sp)
{
	return (size_t) bloofi_slice_page_count(g, sp) * g->slice_bytes;
}

/* true when every slice page of a and b has the same used bytes */
static bool
pages_equal(const BloofiGeometry *g, uint8_t **a, uint8_t **b)
{
	for (uint32_t sp = 0; sp < g->slice_pages; sp++)
		if (memcmp(a[sp], b[sp], page_size(g, sp)) != 0)
			return false;
	return true;
}

/* slice j (the column of filter bit j) within the slice pages pg */
static uint8_t *
slice_of(const BloofiGeometry *g, uint8_t **pg, uint32_t j)
{
	return pg[j / g->slices_per_page] + bloofi_slice_offset(g, j);
}

/* the model: slot s holds leaf s (s < nleaves) when alive[s], else nothing */
static bool
model_bit(const uint8_t *leaves, uint32_t fb, uint32_t nleaves, const bool *alive,
		  uint32_t s, uint32_t j)
{
	return s < nleaves && (alive == NULL || alive[s]) &&
		bs_bit_test(leaves + (size_t) s * fb, j);
}

/*
 * bloofi_clear_and_recompute_value over every slice page of a group: clear
 * the dead slots, OR the live ones' value into value; true if a bit changed
 */
static bool
clear_all_pages(const BloofiGeometry *g, uint8_t **pg, const uint64_t *dead,
				const uint64_t *live, uint8_t *value)
{
	bool		changed = false;

	for (uint32_t sp = 0; sp < g->slice_pages; sp++)
		changed |= bloofi_clear_and_recompute_value(pg[sp], g->slice_bytes,
													bloofi_slice_page_first(g, sp),
													bloofi_slice_page_count(g, sp),
													dead, live, value);
	return changed;
}

/* every bit of every slice (slots 0..cap-1) against the model */
static int
pages_vs_model(const BloofiGeometry *g, uint8_t **pg, const uint8_t *leaves,
			   uint32_t nleaves, const bool *alive)
{
	int			bad = 0;

	for (uint32_t j = 0; j < g->m; j++)
	{
		const uint8_t *s = slice_of(g, pg, j);

		for (uint32_t slot = 0; slot < g->cap; slot++)
			if (bs_bit_test(s, slot) != model_bit(leaves, g->filter_bytes, nleaves, alive, slot, j))
				bad++;
	}
	return bad;
}

/*
 * Random filters in a node of cap slots (nleaves of them used), each the
 * Bloom filter of nelem random elements: transposition, column set/get/put,
 * search, column counts and digests, clear and values, all against the
 * row-major leaves.
 */
static void
test_slices(uint32_t m, uint32_t cap, uint32_t page, uint32_t nleaves, int nelem)
{
	BloofiGeometry g;
	uint32_t	fb,
				nw,
				wide;			/* slots covered by the slice words (>= cap) */
	uint8_t    *leaves;
	uint8_t   **group,			/* bulk transposition */
			  **group2,			/* one bloofi_set_column per leaf */
			  **group3;			/* one bloofi_put_column per leaf */
	BsParams	p = {m, 5, BS_HASH_XXH3, 7};
	BsHasher	h;
	uint32_t	split = nleaves / 2 + 3;	/* not on a byte boundary */
	int			bad;

	if (!bloofi_geometry(&g, m, cap, page))
	{
		CHECK(false, "geometry m %u cap %u page %u", m, cap, page);
		return;
	}
	if (split > nleaves)
		split = nleaves;
	fb = g.filter_bytes;
	nw = g.slice_words;
	wide = 64 * nw;
	bs_hasher_init(&h, &p);
	leaves = calloc(nleaves ? nleaves : 1, fb);
	group = pages_alloc(&g);
	group2 = pages_alloc(&g);
	group3 = pages_alloc(&g);
	for (uint32_t i = 0; i < nleaves; i++)
		for (int e = 0; e < nelem; e++)
			bs_key_set(&h, bs_key_int64(&h, (int64_t) (rnd() % 2000)), leaves + (size_t) i * fb);
	/*
	 * dense full nodes: the first and the last slot all ones (bits < m), so
	 * that every slice has its first and its last bit set and a read past
	 * the end of a slice meets its neighbour's first byte
	 */
	if (nleaves == cap && nelem >= 8)
		for (uint32_t j = 0; j < m; j++)
		{
			bs_bit_set(leaves, j);
			bs_bit_set(leaves + (size_t) (cap - 1) * fb, j);
		}

	/* leaves split..nleaves-1 first, then 0..split-1, in group; in order in group2/3 */
	bad = 0;
	for (uint32_t sp = 0; sp < g.slice_pages; sp++)
	{
		uint32_t	j0 = bloofi_slice_page_first(&g, sp),
					n = bloofi_slice_page_count(&g, sp);

		for (uint32_t i = 0; i < nleaves; i++)
		{
			uint32_t	slot = (split + i) % (nleaves ? nleaves : 1);

			bloofi_set_column(group[sp], g.slice_bytes, j0, n, leaves + (size_t) slot * fb, slot);
		}
		for (uint32_t i = 0; i < nleaves; i++)
		{
			const uint8_t *f = leaves + (size_t) i * fb;
			uint32_t	c = bloofi_count_range(f, j0, n);

			bad += bloofi_set_column(group2[sp], g.slice_bytes, j0, n, f, i) != c;
			bad += 1000 * (bloofi_put_column(group3[sp], g.slice_bytes, j0, n, i, f) != c);
		}
	}
	CHECK(bad == 0, "cap %u: set_column / put_column into zeros return the bits set "
		  "(%d set_column, %d put_column wrong)", cap, bad % 1000, bad / 1000);
	CHECK(pages_equal(&g, group, group2), "cap %u: column sets in any order agree", cap);
	CHECK(pages_equal(&g, group, group3), "cap %u: column sets == column puts", cap);
	bad = pages_vs_model(&g, group, leaves, nleaves, NULL);
	CHECK(bad == 0, "cap %u: slice bit = leaf bit (%d wrong)", cap, bad);

	/* get_columns gives back every leaf, and nothing for the empty slots */
	{
		uint8_t    *f = calloc(cap, fb);
		uint64_t   *mask = calloc(nw, sizeof(uint64_t));

		for (uint32_t s = 0; s < cap; s++)
			mask[s / 64] |= UINT64_C(1) << (s % 64);
		for (uint32_t sp = 0; sp < g.slice_pages; sp++)
			bloofi_get_columns(group[sp], g.slice_bytes, bloofi_slice_page_first(&g, sp),
							   bloofi_slice_page_count(&g, sp), mask, f, fb);
		bad = 0;
		for (uint32_t s = 0; s < cap; s++)
			for (uint32_t j = 0; j < 8 * fb; j++)
				if (bs_bit_test(f + (size_t) s * fb, j) !=
					(j < m && model_bit(leaves, fb, nleaves, NULL, s, j)))
					bad++;
		CHECK(bad == 0, "cap %u: get_columns == leaves (%d wrong)", cap, bad);
		free(f);
		free(mask);
	}

	/* search: AND of k slices == testing every leaf */
	{
		uint64_t   *acc = malloc(8 * nw),
				   *acc2 = malloc(8 * nw);
		int			bad_all = 0,
					bad_wide = 0,
					bad_short = 0,
					hits = 0;

		bad = 0;
		for (int64_t x = 0; x < 3000; x++)
		{
			BsKey		key = bs_key_int64(&h, x);
			uint32_t	pos[32];
			uint32_t	np;
			uint32_t	short_words = (nleaves + 63) / 64;
			bool		any = true,
						any2 = true;

			bs_key_positions(&h, key, pos);
			np = bloofi_sort_positions(pos, p.k);
			/* as the scan does: nused slots, words covering them */
			bloofi_acc_init(acc, nw, nleaves);
			/* every bit of every slice word set: slots >= cap must come out zero */
			bloofi_acc_init(acc2, nw, wide);
			for (uint32_t i = 0; i < np; i++)
			{
				any = bloofi_and_slice(acc, slice_of(&g, group, pos[i]), short_words, g.slice_bytes);
				any2 = bloofi_and_slice(acc2, slice_of(&g, group, pos[i]), nw, g.slice_bytes);
			}
			for (uint32_t s = 0; s < wide; s++)
			{
				bool		want = s < nleaves && bs_key_test(&h, key, leaves + (size_t) s * fb);
				bool		got = (acc[s / 64] >> (s % 64)) & 1;
				bool		got2 = (acc2[s / 64] >> (s % 64)) & 1;

				hits += want;
				if (got != want)
					bad++;
				if (got2 != want)
					bad_wide++;
			}
			for (uint32_t w = short_words; w < nw; w++)
				if (acc[w] != 0)
					bad_short++;
			{
				bool		want_any = false;

				for (uint32_t w = 0; w < nw; w++)
					want_any |= acc2[w] != 0;
				if (np > 0 && (any2 != want_any || (nleaves > 0 && any != want_any)))
					bad_all++;
			}
		}
		CHECK(bad == 0, "cap %u: AND of slices == leaf tests (%d wrong)", cap, bad);
		CHECK(bad_wide == 0, "cap %u: AND of slices over every slot of the slice words (%d wrong)",
			  cap, bad_wide);
		CHECK(bad_short == 0, "cap %u: words past nwords untouched (%d)", cap, bad_short);
		CHECK(bad_all == 0, "cap %u: and_slice's result (%d wrong)", cap, bad_all);
		CHECK(nleaves == 0 || hits > 0, "cap %u: the search found something (%d)", cap, hits);

		/* one slice at a time: acc = exactly the slice's slots, none past cap */
		bad = 0;
		for (uint32_t j = 0; j < m; j++)
		{
			bool		any,
						want_any = false;

			bloofi_acc_init(acc2, nw, wide);
			any = bloofi_and_slice(acc2, slice_of(&g, group, j), nw, g.slice_bytes);

			for (uint32_t s = 0; s < wide; s++)
			{
				bool		want = model_bit(leaves, fb, nleaves, NULL, s, j);

				want_any |= want;
				if (((acc2[s / 64] >> (s % 64)) & 1) != want)
					bad++;
			}
			if (any != want_any)
				bad++;
		}
		CHECK(bad == 0, "cap %u: and_slice of each slice alone (%d wrong)", cap, bad);
		free(acc);
		free(acc2);
	}

	/* column counts == popcounts, digests == filter digests, also asking for slots past cap */
	{
		uint32_t   *cnt = calloc(wide, sizeof(uint32_t)),
				   *cnt_wide = calloc(wide, sizeof(uint32_t)),
				   *c2 = calloc(wide, sizeof(uint32_t));
		uint64_t   *dg = calloc(wide, sizeof(uint64_t));
		int			bad_wide = 0;

		bad = 0;
		for (uint32_t sp = 0; sp < g.slice_pages; sp++)
		{
			column_counts(group[sp], g.slice_bytes, bloofi_slice_page_count(&g, sp),
						  nleaves, cnt);
			column_counts(group[sp], g.slice_bytes, bloofi_slice_page_count(&g, sp),
						  wide, cnt_wide);
		}
		for (uint32_t s = 0; s < wide; s++)
		{
			uint32_t	want = s < nleaves ? (uint32_t) bs_popcount(leaves + (size_t) s * fb, fb / 8) : 0;

			if (s < nleaves ? cnt[s] != want : cnt[s] != 0)
				bad++;
			if (cnt_wide[s] != want)
				bad_wide++;
		}
		CHECK(bad == 0, "cap %u: column counts (%d wrong)", cap, bad);
		CHECK(bad_wide == 0, "cap %u: column counts over %u slots (%d wrong)", cap, wide, bad_wide);

		/* fewer slots than used: the others are not counted */
		{
			uint32_t	half = nleaves / 2;
			uint32_t   *cnt_half = calloc(wide, sizeof(uint32_t));

			bad = 0;
			for (uint32_t sp = 0; sp < g.slice_pages; sp++)
				column_counts(group[sp], g.slice_bytes, bloofi_slice_page_count(&g, sp),
							  half, cnt_half);
			for (uint32_t s = 0; s < wide; s++)
				if (cnt_half[s] != (s < half ? cnt[s] : 0))
					bad++;
			CHECK(bad == 0, "cap %u: column counts of the first %u slots only (%d wrong)",
				  cap, half, bad);
			free(cnt_half);
		}

		bad = 0;
		for (uint32_t sp = 0; sp < g.slice_pages; sp++)
			bloofi_column_digest(group[sp], g.slice_bytes, bloofi_slice_page_first(&g, sp),
								 bloofi_slice_page_count(&g, sp), wide, c2, dg);
		for (uint32_t s = 0; s < wide; s++)
		{
			uint64_t	want = s < nleaves ? bloofi_filter_digest(leaves + (size_t) s * fb, m) : 0;

			if (c2[s] != cnt_wide[s] || dg[s] != want)
				bad++;
		}
		CHECK(bad == 0, "cap %u: column digests == filter digests (%d wrong)", cap, bad);
		if (nleaves >= 2)
			CHECK(dg[0] != dg[1], "cap %u: different leaves, different digests", cap);
		CHECK(bloofi_count_range(leaves, 0, m) == bs_popcount(leaves, fb / 8), "cap %u: count range", cap);
		CHECK(bloofi_count_range(leaves, 3, 130) + bloofi_count_range(leaves, 133, m - 133) +
			  bloofi_count_range(leaves, 0, 3) == bs_popcount(leaves, fb / 8),
			  "cap %u: count split ranges", cap);
		free(cnt);
		free(cnt_wide);
		free(c2);
		free(dg);
	}

	/*
	 * clear every third leaf (from slot 1); value = OR of the others.  live
	 * has every bit set but the dead slots', past cap too (a neighbour's bit
	 * read past a slice's end would show in the value); the second pass
	 * clears every bit past cap too (they are not in the slice: nothing
	 * changes, the neighbours stay).
	 */
	{
		uint64_t   *dead = calloc(nw, 8),
				   *live = calloc(nw, 8),
				   *none = calloc(nw, 8),
				   *all = calloc(nw, 8);
		uint8_t    *sum = calloc(1, fb),
				   *want = calloc(1, fb),
				   *sum2 = calloc(1, fb);
		bool	   *alive = calloc(cap, sizeof(bool));
		bool		changed = false,
					changed2 = false;
		uint32_t	ndead = 0;

		for (uint32_t w = 0; w < nw; w++)
			live[w] = all[w] = ~UINT64_C(0);
		for (uint32_t s = 0; s < cap; s++)
		{
			alive[s] = s % 3 != 1;
			if (!alive[s])
			{
				dead[s / 64] |= UINT64_C(1) << (s % 64);
				live[s / 64] &= ~(UINT64_C(1) << (s % 64));
				ndead += s < nleaves && bs_popcount(leaves + (size_t) s * fb, fb / 8) > 0;
			}
			else if (s < nleaves)
				bs_or(want, leaves + (size_t) s * fb, fb / 8);
		}
		changed |= clear_all_pages(&g, group, dead, live, sum);
		CHECK(changed == (ndead > 0), "cap %u: clearing changed something (%d)", cap, changed);
		CHECK(memcmp(sum, want, fb) == 0, "cap %u: value = OR of live leaves", cap);
		bad = pages_vs_model(&g, group, leaves, nleaves, alive);
		CHECK(bad == 0, "cap %u: dead columns cleared, live kept (%d wrong)", cap, bad);

		/* nothing more to clear: unchanged, same value over every slot */
		changed2 |= clear_all_pages(&g, group, dead, all, sum2);
		CHECK(!changed2, "cap %u: clearing again changes nothing", cap);
		CHECK(memcmp(sum2, want, fb) == 0, "cap %u: value over all slots = OR of live leaves", cap);

		/* clear the slots past cap (none): nothing changes */
		for (uint32_t w = 0; w < nw; w++)
			dead[w] = 0;
		for (uint32_t s = cap; s < wide; s++)
			dead[s / 64] |= UINT64_C(1) << (s % 64);
		changed2 = false;
		memset(sum2, 0, fb);
		changed2 |= clear_all_pages(&g, group, dead, none, sum2);
		CHECK(!changed2, "cap %u: clearing slots past cap changes nothing", cap);
		bad = pages_vs_model(&g, group, leaves, nleaves, alive);
		CHECK(bad == 0, "cap %u: clearing slots past cap keeps every slice (%d wrong)", cap, bad);
		CHECK(bs_popcount(sum2, fb / 8) == 0, "cap %u: no live slot, empty value", cap);

		/* put_column back the dead leaves: the node is the bulk one again */
		{
			uint32_t	nchg = 0,
						want_chg = 0;

			for (uint32_t s = 1; s < nleaves; s += 3)
			{
				want_chg += (uint32_t) bs_popcount(leaves + (size_t) s * fb, fb / 8);
				for (uint32_t sp = 0; sp < g.slice_pages; sp++)
					nchg += bloofi_put_column(group[sp], g.slice_bytes,
											  bloofi_slice_page_first(&g, sp),
											  bloofi_slice_page_count(&g, sp), s,
											  leaves + (size_t) s * fb);
			}
			CHECK(nchg == want_chg, "cap %u: put_column changes %u bits, want %u", cap, nchg, want_chg);
			CHECK(pages_equal(&g, group, group2), "cap %u: put back == bulk", cap);
		}
		free(dead);
		free(live);
		free(none);
		free(all);
		free(sum);
		free(sum2);
		free(want);
		free(alive);
	}

	/* put_column a different leaf in every slot: changes = Hamming distance, neighbours kept */
	if (nleaves >= 2)
	{
		uint8_t    *moved = calloc(nleaves, fb);
		uint32_t	nchg = 0,
					want_chg = 0;

		for (uint32_t s = 0; s < nleaves; s++)
		{
			const uint8_t *from = leaves + (size_t) ((s + 1) % nleaves) * fb;
			const uint8_t *old = leaves + (size_t) s * fb;

			memcpy(moved + (size_t) s * fb, from, fb);
			for (uint32_t j = 0; j < m; j++)
				want_chg += bs_bit_test(from, j) != bs_bit_test(old, j);
			for (uint32_t sp = 0; sp < g.slice_pages; sp++)
				nchg += bloofi_put_column(group[sp], g.slice_bytes,
										  bloofi_slice_page_first(&g, sp),
										  bloofi_slice_page_count(&g, sp), s, from);
		}
		CHECK(nchg == want_chg, "cap %u: put_column over leaves changes %u bits, want %u",
			  cap, nchg, want_chg);
		bad = pages_vs_model(&g, group, moved, nleaves, NULL);
		CHECK(bad == 0, "cap %u: put_column over leaves (%d wrong)", cap, bad);
		free(moved);
	}

	free(leaves);
	pages_free(&g, group);
	pages_free(&g, group2);
	pages_free(&g, group3);
}

static void
test_slices_all_caps(void)
{
	static const uint32_t caps[] = {8, 16, 24, 56, 64, 72, 120, 192, 200};

	for (size_t c = 0; c < sizeof(caps) / sizeof(caps[0]); c++)
	{
		uint32_t	cap = caps[c];

		/* full nodes, dense (20 elements a leaf) and sparse (one element) */
		test_slices(700, cap, 1000, cap, 20);
		test_slices(2000, cap, 1000, cap, 1);
		/* partly used, slots on no byte boundary */
		test_slices(700, cap, 1000, cap - 5, 20);
		/* pages of exactly a few slices, the last page partial */
		test_slices(613, cap, 64 > cap / 8 * 5 ? 64 : cap / 8 * 5, cap, 8);
	}
	test_slices(700, 8, 1000, 0, 20);
}

/*
 * bloofi_get_columns (one slot) / bloofi_put_column on random pages (every bit of every
 * slice random), random slots and ranges, against bit-by-bit models
 */
static void
test_get_put_column(void)
{
	int			bad_get = 0,
				bad_put = 0,
				bad_count = 0,
				bad_filter = 0;

	for (int t = 0; t < 2000; t++)
	{
		uint32_t	slice_bytes = 1 + (uint32_t) (rnd() % 26);
		uint32_t	nslices = 1 + (uint32_t) (rnd() % 90);
		uint32_t	m = nslices + (uint32_t) (rnd() % 200);
		uint32_t	j0 = (uint32_t) (rnd() % (m - nslices + 1));
		uint32_t	fb = 8 * ((m + 63) / 64);
		uint32_t	slot = (uint32_t) (rnd() % (8 * slice_bytes));
		size_t		pb = (size_t) nslices * slice_bytes;
		uint8_t    *page = malloc(pb),
				   *before = malloc(pb),
				   *filter = malloc(fb),
				   *fbefore = malloc(fb);
		uint32_t	want_chg = 0,
					got_chg;

		for (size_t i = 0; i < pb; i++)
			page[i] = (uint8_t) rnd();
		if (t % 7 == 0)
			memset(page, t % 14 ? 0xff : 0, pb);
		for (uint32_t i = 0; i < fb; i++)
			filter[i] = (uint8_t) rnd();
		if (t % 5 == 0)
			memset(filter, t % 10 ? 0xff : 0, fb);
		memcpy(before, page, pb);
		memcpy(fbefore, filter, fb);

		/*
		 * get: row `slot` |= column, in j0 .. j0 + nslices - 1 (a one-slot
		 * mask: the other rows stay zero)
		 */
		{
			uint32_t	nrows = 8 * slice_bytes;
			uint8_t    *rows = calloc(nrows, fb);
			uint64_t	mask[4] = {0, 0, 0, 0};

			mask[slot / 64] |= UINT64_C(1) << (slot % 64);
			memcpy(rows + (size_t) slot * fb, filter, fb);
			bloofi_get_columns(page, slice_bytes, j0, nslices, mask, rows, fb);
			memcpy(filter, rows + (size_t) slot * fb, fb);
			for (uint32_t r = 0; r < nrows; r++)
				for (uint32_t b = 0; b < fb && r != slot; b++)
					bad_get += rows[(size_t) r * fb + b] != 0;
			free(rows);
		}
		if (memcmp(page, before, pb) != 0)
			bad_get++;
		for (uint32_t j = 0; j < 8 * fb; j++)
		{
			bool		col = j >= j0 && j < j0 + nslices &&
				bs_bit_test(before + (size_t) (j - j0) * slice_bytes, slot);

			if (bs_bit_test(filter, j) != (bs_bit_test(fbefore, j) || col))
				bad_filter++;
		}

		/* put: column = filter's bits j0 .., every other bit kept */
		for (uint32_t i = 0; i < fb; i++)
			filter[i] = (uint8_t) rnd();
		if (t % 3 == 0)
			memcpy(filter, fbefore, fb);
		memcpy(fbefore, filter, fb);
		memcpy(before, page, pb);
		got_chg = bloofi_put_column(page, slice_bytes, j0, nslices, slot, filter);
		for (uint32_t i = 0; i < nslices; i++)
			for (uint32_t s = 0; s < 8 * slice_bytes; s++)
			{
				bool		old = bs_bit_test(before + (size_t) i * slice_bytes, s);
				bool		want = s == slot ? bs_bit_test(filter, j0 + i) : old;

				want_chg += want != old;
				if (bs_bit_test(page + (size_t) i * slice_bytes, s) != want)
					bad_put++;
			}
		if (got_chg != want_chg)
			bad_count++;
		if (memcmp(filter, fbefore, fb) != 0)
			bad_filter++;
		/* again: nothing to change */
		if (bloofi_put_column(page, slice_bytes, j0, nslices, slot, filter) != 0)
			bad_count++;
		free(page);
		free(before);
		free(filter);
		free(fbefore);
	}
	CHECK(bad_get == 0, "get_column leaves the page alone (%d)", bad_get);
	CHECK(bad_filter == 0, "get_column ORs the column into the filter (%d wrong)", bad_filter);
	CHECK(bad_put == 0, "put_column sets and clears the column only (%d wrong)", bad_put);
	CHECK(bad_count == 0, "put_column returns the bits changed (%d wrong)", bad_count);
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

/* position sorting, the accumulator's initial words and its sparse-switch test, and the AND of a slice (dense and sparse) at exact buffer sizes */
static void
test_misc(void)
{
	uint32_t	pos[] = {9, 3, 3, 7, 9, 1};
	uint64_t	acc[3];

	CHECK(bloofi_sort_positions(pos, 6) == 4 && pos[0] == 1 && pos[1] == 3 && pos[2] == 7 &&
		  pos[3] == 9, "sort + dedup");
	bloofi_acc_init(acc, 3, 70);
	CHECK(acc[0] == ~UINT64_C(0) && acc[1] == 63 && acc[2] == 0, "acc init");
	bloofi_acc_init(acc, 1, 24);
	CHECK(acc[0] == 0xffffff, "acc init, 24 slots");
	bloofi_acc_init(acc, 2, 128);
	CHECK(acc[0] == ~UINT64_C(0) && acc[1] == ~UINT64_C(0), "acc init, whole words");

	/* mostly zero: at most a third of the sampled words (every 16th) non-zero */
	{
		uint64_t	big[512];

		memset(big, 0, sizeof(big));
		CHECK(bloofi_acc_mostly_zero(big, 512), "all zero");
		for (int w = 0; w < 512; w += 16 * 3)	/* 11 of the 32 sampled words */
			big[w] = 1;
		CHECK(!bloofi_acc_mostly_zero(big, 512), "11 of 32 sampled words set");
		big[0] = 0;				/* 10 of 32 */
		CHECK(bloofi_acc_mostly_zero(big, 512), "10 of 32 sampled words set");
		for (int w = 1; w < 512; w += 16)	/* unsampled words do not count */
			big[w] = ~UINT64_C(0);
		CHECK(bloofi_acc_mostly_zero(big, 512), "words between the samples ignored");
	}
}

/*
 * A long AND continued sparsely (bloofi_nonzero_words, then
 * bloofi_and_slice_sparse) gives the same words as the dense AND, for slices
 * of whole and partial words.
 */
static void
test_sparse_and(void)
{
	for (int round = 0; round < 200; round++)
	{
		uint32_t	nwords = 1 + (uint32_t) (rnd() % 300);
		uint32_t	slice_bytes = 8 * nwords - (uint32_t) (rnd() % 8);
		int			nslices = 1 + (int) (rnd() % 12);
		int			switch_at = (int) (rnd() % nslices);
		uint64_t   *dense = malloc(sizeof(uint64_t) * nwords);
		uint64_t   *sparse = malloc(sizeof(uint64_t) * nwords);
		uint32_t   *idx = malloc(sizeof(uint32_t) * nwords);
		uint32_t	nidx = 0;
		bool		ok = true;

		for (uint32_t w = 0; w < nwords; w++)
			dense[w] = sparse[w] = rnd() | rnd();
		for (int i = 0; i < nslices; i++)
		{
			uint8_t    *slice = malloc(slice_bytes);	/* exact size: ASan sees overreads */

			for (uint32_t b = 0; b < slice_bytes; b++)
				slice[b] = (uint8_t) (rnd() & rnd());
			bloofi_and_slice(dense, slice, nwords, slice_bytes);
			if (i < switch_at)
				bloofi_and_slice(sparse, slice, nwords, slice_bytes);
			else
			{
				if (i == switch_at)
					nidx = bloofi_nonzero_words(sparse, nwords, idx);
				nidx = bloofi_and_slice_sparse(sparse, slice, slice_bytes, idx, nidx);
				for (uint32_t j = 0; j < nidx; j++)
					ok &= sparse[idx[j]] != 0 && (j == 0 || idx[j] > idx[j - 1]);
			}
			free(slice);
		}
		for (uint32_t w = 0; w < nwords; w++)
			ok &= dense[w] == sparse[w];
		{
			uint32_t	nz = 0;

			for (uint32_t w = 0; w < nwords; w++)
				nz += dense[w] != 0;
			ok &= nz == nidx;
		}
		CHECK(ok, "sparse AND continuation, round %d (%u words, %u bytes, switch at %d)",
			  round, nwords, slice_bytes, switch_at);
		free(dense);
		free(sparse);
		free(idx);
	}
}

/*
 * The AND with a look-ahead hint (bloofi_and_slice_ahead, then
 * bloofi_and_slice_sparse_ahead) against a naive bit model: slot s of the
 * accumulator stays set iff bit s (byte s / 8, bit s % 8) of every slice is
 * set; the hint (the next slice, NULL, or a slice of another length) never
 * changes a result; the sparse list is exactly the non-zero words, ascending.
 */
static void
test_and_ahead(void)
{
	for (int round = 0; round < 200; round++)
	{
		uint32_t	nwords = 1 + (uint32_t) (rnd() % 300);
		uint32_t	slice_bytes = 8 * nwords - (uint32_t) (rnd() % 8);
		uint32_t	nslots = 8 * slice_bytes;
		int			nslices = 1 + (int) (rnd() % 12);
		int			switch_at = (int) (rnd() % (nslices + 1));
		uint8_t   **slices = malloc(sizeof(uint8_t *) * nslices);
		uint64_t   *acc = malloc(sizeof(uint64_t) * nwords);
		uint32_t   *idx = malloc(sizeof(uint32_t) * nwords);
		bool	   *model = malloc(nslots);
		uint32_t	nidx = 0;
		bool		ok = true;

		for (int i = 0; i < nslices; i++)
		{
			slices[i] = malloc(slice_bytes);	/* exact size: ASan sees overreads */
			for (uint32_t b = 0; b < slice_bytes; b++)
				slices[i][b] = (uint8_t) (rnd() | rnd());
		}
		for (uint32_t w = 0; w < nwords; w++)
			acc[w] = ~UINT64_C(0);
		for (uint32_t s = 0; s < nslots; s++)
			model[s] = true;
		for (int i = 0; i < nslices; i++)
		{
			const uint8_t *hint = (i + 1 < nslices && (round % 3) != 0) ? slices[i + 1] :
				(round % 3) == 0 ? slices[0] : NULL;
			bool		any,
						model_any = false;

			for (uint32_t s = 0; s < nslots; s++)
			{
				model[s] = model[s] && ((slices[i][s / 8] >> (s % 8)) & 1);
				model_any |= model[s];
			}
			if (i < switch_at)
			{
				any = bloofi_and_slice_ahead(acc, slices[i], nwords, slice_bytes, hint);
				ok &= any == model_any;
			}
			else
			{
				if (i == switch_at)
					nidx = bloofi_nonzero_words(acc, nwords, idx);
				nidx = bloofi_and_slice_sparse_ahead(acc, slices[i], slice_bytes, idx, nidx, hint);
				ok &= (nidx > 0) == model_any;
				for (uint32_t j = 0; j < nidx; j++)
					ok &= acc[idx[j]] != 0 && (j == 0 || idx[j] > idx[j - 1]);
			}
			/* the slots past the slice (partial last word) hold no bits to compare */
			for (uint32_t s = 0; s < nslots; s++)
				ok &= (bool) ((acc[s / 64] >> (s % 64)) & 1) == model[s];
		}
		if (switch_at < nslices)
		{
			uint32_t	nz = 0;

			for (uint32_t w = 0; w < nwords; w++)
				nz += acc[w] != 0;
			ok &= nz == nidx;
		}
		CHECK(ok, "AND with look-ahead vs the bit model, round %d (%u words, %u bytes, %d slices, switch at %d)",
			  round, nwords, slice_bytes, nslices, switch_at);
		for (int i = 0; i < nslices; i++)
			free(slices[i]);
		free(slices);
		free(acc);
		free(idx);
		free(model);
	}
}

/* runs every test above; exit status 0 when all passed (UNIT_DONE) */
/*
 * The AND a cache line at a time (bloofi_and_lines) against a naive bit
 * model and against the slices ANDed one after another: slot s of acc stays
 * set iff it was set and bit s of every slice is set; slices of exact size
 * (ASan sees an overread), partial last words and lines, dense slices (lines
 * that survive every slice) and sparse ones (early exits), a start with
 * zero words.
 */
static void
test_and_lines(void)
{
	for (int round = 0; round < 300; round++)
	{
		uint32_t	nwords = 1 + (uint32_t) (rnd() % 300);
		uint32_t	slice_bytes = 8 * nwords - (uint32_t) (rnd() % 8);
		uint32_t	nslots = 8 * slice_bytes;
		uint32_t	nslices = 1 + (uint32_t) (rnd() % 17);
		uint8_t   **slices = malloc(sizeof(uint8_t *) * nslices);
		uint64_t   *acc = malloc(sizeof(uint64_t) * nwords);
		uint64_t   *ref = malloc(sizeof(uint64_t) * nwords);
		bool		ok = true,
					any,
					model_any = false;

		for (uint32_t i = 0; i < nslices; i++)
		{
			slices[i] = malloc(slice_bytes);
			for (uint32_t b = 0; b < slice_bytes; b++)
				slices[i][b] = (uint8_t) (round % 2 ? (rnd() | rnd() | rnd()) : rnd());
		}
		for (uint32_t w = 0; w < nwords; w++)
			acc[w] = ref[w] = round % 3 == 0 && rnd() % 4 == 0 ? 0 :
				((uint64_t) rnd() << 32 | (uint32_t) rnd()) | (round % 3 == 1 ? ~UINT64_C(0) : 0);
		for (uint32_t i = 0; i < nslices; i++)
			(void) bloofi_and_slice(ref, slices[i], nwords, slice_bytes);
		any = bloofi_and_lines(acc, (const uint8_t *const *) slices, nslices, nwords,
							   slice_bytes);
		for (uint32_t s = 0; s < nslots; s++)
		{
			bool		m = (ref[s / 64] >> (s % 64)) & 1;

			for (uint32_t i = 0; i < nslices; i++)
				m = m && ((slices[i][s / 8] >> (s % 8)) & 1);
			model_any |= m;
			ok &= (bool) ((acc[s / 64] >> (s % 64)) & 1) == m;
		}
		for (uint32_t w = 0; w < nwords; w++)
			ok &= acc[w] == ref[w];
		ok &= any == model_any;
		CHECK(ok, "AND a line at a time vs the bit model and the slice-at-a-time AND, round %d (%u words, %u bytes, %u slices)",
			  round, nwords, slice_bytes, nslices);
		for (uint32_t i = 0; i < nslices; i++)
			free(slices[i]);
		free(slices);
		free(acc);
		free(ref);
	}
}

int
main(void)
{
	test_sparse_and();
	test_and_ahead();
	test_and_lines();
	test_geometry();
	test_slice_word_store();
	test_slices_all_caps();
	test_get_put_column();
	test_misc();
	test_similarity_key();
	return UNIT_DONE();
}
