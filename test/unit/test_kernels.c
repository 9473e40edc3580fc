/*
 * test_kernels.c
 *    Every variant of the bit-array kernels that this machine can run
 *    (bs_kernels.h: popcnt, avx2, avx512), bit for bit against the default
 *    one: random contents, every length from 0 to 80 words and some long ones
 *    (so every vector tail), at every byte misalignment of each operand, with
 *    guard bytes around the destination; the sparse form's fast decoder on
 *    random position sets at every low-bit width, intact and damaged.  Also
 *    the choice: the chosen variant is the highest the CPU runs, and a limit
 *    (bs_kernels_limit, as BLOOMSAMPLE_KERNELS) is obeyed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bs_bits.h"
#include "bs_kernels.h"
#include "bs_sparse.h"
#include "unit.h"

static unsigned long long rng_state = 38;

static void
fill_random(uint8_t *p, size_t n, int density)
{
	for (size_t i = 0; i < n; i++)
	{
		uint8_t		b = (uint8_t) unit_splitmix64(&rng_state);

		/* density 0: uniform bytes; 1: sparse; 2: mostly ones */
		if (density == 1)
			b &= (uint8_t) unit_splitmix64(&rng_state) & (uint8_t) unit_splitmix64(&rng_state);
		else if (density == 2)
			b |= (uint8_t) unit_splitmix64(&rng_state);
		p[i] = b;
	}
}

#define GUARD 64
#define MAXW 5000

/* the variants of kernel k this machine runs, besides the default */
static int
variants_run(BsKernel k, BsVariant *out)
{
	int			n = 0;

	printf("%-14s:", bs_kernel_name(k));
	for (int v = 0; v < BS_VARIANT_COUNT; v++)
		if (bs_kernel_runs(k, (BsVariant) v))
		{
			printf(" %s", bs_variant_name((BsVariant) v));
			if (v != BS_VARIANT_DEFAULT)
				out[n++] = (BsVariant) v;
		}
		else if (bs_kernel_has(k, (BsVariant) v))
			printf(" (%s: not on this CPU)", bs_variant_name((BsVariant) v));
	printf("; chosen %s\n", bs_variant_name(bs_kernels_get()->chosen[k]));
	return n;
}

/* the lengths tested: 0..80 words and a few long ones */
static size_t
length_at(int i)
{
	static const size_t longs[] = {127, 128, 129, 1000, 2077, 4099};

	return i <= 80 ? (size_t) i : longs[i - 81];
}

#define NLENGTHS (81 + 6)

static void
test_bit_kernels(void)
{
	uint8_t    *abuf = malloc(8 * MAXW + 2 * GUARD),
			   *bbuf = malloc(8 * MAXW + 2 * GUARD),
			   *want = malloc(8 * MAXW + 2 * GUARD),
			   *got = malloc(8 * MAXW + 2 * GUARD);
	BsVariant	vs[BS_VARIANT_COUNT];
	int			nv;
	int			bad;

	/* popcount */
	nv = variants_run(BS_KERNEL_POPCOUNT, vs);
	for (int j = 0; j < nv; j++)
	{
		BsPopcountFn def = bs_kernel_popcount(BS_VARIANT_DEFAULT),
					f = bs_kernel_popcount(vs[j]);

		bad = 0;
		for (int li = 0; li < NLENGTHS; li++)
			for (int al = 0; al < 8; al++)
				for (int d = 0; d < 3; d++)
				{
					size_t		n = length_at(li);
					uint8_t    *a = abuf + GUARD + al;

					fill_random(abuf, 8 * MAXW + 2 * GUARD, d);
					bad += f(a, n) != def(a, n);
				}
		CHECK(bad == 0, "popcount %s: %d cases differ from default", bs_variant_name(vs[j]), bad);
	}

	/* AND-popcount and the pair counts */
	nv = variants_run(BS_KERNEL_AND_POPCOUNT, vs);
	for (int j = 0; j < nv; j++)
	{
		BsAndPopcountFn def = bs_kernel_and_popcount(BS_VARIANT_DEFAULT),
					f = bs_kernel_and_popcount(vs[j]);

		bad = 0;
		for (int li = 0; li < NLENGTHS; li++)
			for (int al = 0; al < 8; al++)
				for (int d = 0; d < 3; d++)
				{
					size_t		n = length_at(li);
					uint8_t    *a = abuf + GUARD + al,
							   *b = bbuf + GUARD + (7 - al);

					fill_random(abuf, 8 * MAXW + 2 * GUARD, d);
					fill_random(bbuf, 8 * MAXW + 2 * GUARD, (d + 1) % 3);
					bad += f(a, b, n) != def(a, b, n);
				}
		CHECK(bad == 0, "and_popcount %s: %d cases differ from default", bs_variant_name(vs[j]), bad);
	}
	nv = variants_run(BS_KERNEL_PAIR_COUNTS, vs);
	for (int j = 0; j < nv; j++)
	{
		BsPairCountsFn def = bs_kernel_pair_counts(BS_VARIANT_DEFAULT),
					f = bs_kernel_pair_counts(vs[j]);

		bad = 0;
		for (int li = 0; li < NLENGTHS; li++)
			for (int al = 0; al < 8; al++)
			{
				size_t		n = length_at(li);
				uint8_t    *a = abuf + GUARD + al,
						   *b = bbuf + GUARD + (al * 3) % 8;
				BsPairCounts x,
							y;

				fill_random(abuf, 8 * MAXW + 2 * GUARD, al % 3);
				fill_random(bbuf, 8 * MAXW + 2 * GUARD, (al + 1) % 3);
				x = f(a, b, n);
				y = def(a, b, n);
				bad += x.a != y.a || x.b != y.b || x.and != y.and;
			}
		CHECK(bad == 0, "pair_counts %s: %d cases differ from default", bs_variant_name(vs[j]), bad);
	}

	/* OR and AND: the destination, and not a byte outside it */
	for (int op = 0; op < 2; op++)
	{
		BsKernel	k = op == 0 ? BS_KERNEL_OR : BS_KERNEL_AND;

		nv = variants_run(k, vs);
		for (int j = 0; j < nv; j++)
		{
			BsOrFn		def = op == 0 ? bs_kernel_or(BS_VARIANT_DEFAULT) : bs_kernel_and(BS_VARIANT_DEFAULT),
						f = op == 0 ? bs_kernel_or(vs[j]) : bs_kernel_and(vs[j]);

			bad = 0;
			for (int li = 0; li < NLENGTHS; li++)
				for (int al = 0; al < 8; al++)
				{
					size_t		n = length_at(li);
					size_t		tot = 8 * MAXW + 2 * GUARD;

					fill_random(want, tot, al % 3);
					memcpy(got, want, tot);
					fill_random(bbuf, tot, (al + 2) % 3);
					def(want + GUARD + al, bbuf + GUARD + (8 - al) % 8, n);
					f(got + GUARD + al, bbuf + GUARD + (8 - al) % 8, n);
					bad += memcmp(got, want, tot) != 0;
				}
			CHECK(bad == 0, "%s %s: %d cases differ from default (guards included)",
				  bs_kernel_name(k), bs_variant_name(vs[j]), bad);
		}
	}
	free(abuf);
	free(bbuf);
	free(want);
	free(got);
}

/*
 * n random distinct positions below m, ascending, into pos; clustered: a run
 * of consecutive positions too (up to n of them, at a random place), so that
 * the encoding's high bits hold words of up to 64 set bits, which uniform
 * positions at the encoder's density never give
 */
static uint32_t
random_positions(uint32_t m, uint32_t n, uint32_t *pos, uint8_t *seen, bool clustered)
{
	uint32_t	k = 0;

	memset(seen, 0, (m + 7) / 8);
	for (uint32_t i = 0; i < n; i++)
	{
		uint32_t	p = (uint32_t) (unit_splitmix64(&rng_state) % m);

		seen[p >> 3] |= (uint8_t) (1u << (p & 7));
	}
	if (clustered && n > 0)
	{
		uint32_t	run = 1 + (uint32_t) (unit_splitmix64(&rng_state) % n);
		uint32_t	at = (uint32_t) (unit_splitmix64(&rng_state) % m);

		for (uint32_t p = at; p < m && p - at < run; p++)
			seen[p >> 3] |= (uint8_t) (1u << (p & 7));
	}
	for (uint32_t p = 0; p < m; p++)
		if (seen[p >> 3] >> (p & 7) & 1)
			pos[k++] = p;
	return k;
}

static void
test_sparse_decode(void)
{
	BsVariant	vs[BS_VARIANT_COUNT];
	int			nv = variants_run(BS_KERNEL_SPARSE_DECODE, vs);
	uint32_t	maxm = 1u << 20;
	uint32_t   *pos = malloc(sizeof(uint32_t) * maxm);
	uint8_t    *seen = malloc(maxm / 8 + 8);
	int			bad = 0,
				cases = 0,
				damaged_ok = 0,
				widths = 0;
	bool		width_seen[32] = {false};

	for (int j = 0; j < nv; j++)
	{
		rng_state = 380 + (unsigned long long) j;
		for (int c = 0; c < 400; c++)
		{
			uint32_t	m = 8 + (uint32_t) (unit_splitmix64(&rng_state) % (c < 200 ? 4000 : maxm - 8));
			uint32_t	want_n = (uint32_t) (unit_splitmix64(&rng_state) % (c % 4 == 0 ? 40 : m / 3 + 1));
			uint32_t	n = random_positions(m, want_n, pos, seen, c % 3 == 1);
			size_t		len = bs_sparse_size(m, n);
			uint8_t    *enc = malloc(len);
			size_t		nbytes = 8 * bs_words_for_bits(m);
			uint8_t    *bw = calloc(nbytes, 1),
					   *bg = calloc(nbytes, 1);
			uint32_t   *pw = malloc(sizeof(uint32_t) * (n + 1)),
					   *pg = malloc(sizeof(uint32_t) * (n + 1));
			BsSparse	s;

			bs_sparse_encode_positions(pos, n, m, enc);
			if (bs_sparse_open(enc, len, m, &s) != BS_SPARSE_OK)
			{
				CHECK(false, "open m=%u n=%u", m, n);
				continue;
			}
			width_seen[s.l] = true;
			/* intact, then with a few bytes flipped (the answers must agree too) */
			for (int flip = 0; flip < 4; flip++)
			{
				bool		rw,
							rg;

				if (flip > 0 && len > BS_SPARSE_HEAD_BYTES)
				{
					size_t		at = BS_SPARSE_HEAD_BYTES +
						(size_t) (unit_splitmix64(&rng_state) % (len - BS_SPARSE_HEAD_BYTES));

					enc[at] ^= (uint8_t) (1u << (unit_splitmix64(&rng_state) % 8));
					if (bs_sparse_open(enc, len, m, &s) != BS_SPARSE_OK)
						break;
				}
				memset(bw, 0, nbytes);
				memset(bg, 0, nbytes);
				/* with and without the bits: both kinds of caller */
				rw = bs_sparse_decode_fast(&s, pw, (flip & 1) ? NULL : bw, BS_VARIANT_DEFAULT);
				rg = bs_sparse_decode_fast(&s, pg, (flip & 1) ? NULL : bg, vs[j]);
				cases++;
				if (rw != rg || memcmp(bw, bg, nbytes) != 0 ||
					(rw && memcmp(pw, pg, sizeof(uint32_t) * s.n) != 0))
				{
					if (bad++ < 5)
						fprintf(stderr, "sparse_decode %s: m=%u n=%u l=%d flip=%d: %d vs %d\n",
								bs_variant_name(vs[j]), m, n, s.l, flip, rw, rg);
				}
				if (flip == 0)
					bad += !rw || memcmp(pw, pos, sizeof(uint32_t) * n) != 0;
				else
					damaged_ok += rw;
			}
			free(enc);
			free(bw);
			free(bg);
			free(pw);
			free(pg);
		}
	}
	for (int l = 0; l < 32; l++)
		widths += width_seen[l];
	printf("sparse_decode: %d cases (%d damaged ones still decoded), %d low-bit widths\n",
		   cases, damaged_ok, widths);
	CHECK(bad == 0, "sparse_decode: %d cases differ from default or from the positions encoded", bad);
	CHECK(nv == 0 || widths >= 12, "sparse_decode: only %d low-bit widths tested", widths);
	free(pos);
	free(seen);
}

/* the choice: the highest runnable variant, under the limit */
static void
test_choice(void)
{
	uint8_t		a[8 * 40];
	uint64_t	want;

	fill_random(a, sizeof(a), 0);
	want = bs_kernel_popcount(BS_VARIANT_DEFAULT) (a, 40);
	for (int k = 0; k < BS_KERNEL_COUNT; k++)
	{
		int			best = BS_VARIANT_DEFAULT;

		for (int v = 0; v < BS_VARIANT_COUNT; v++)
			if (bs_kernel_runs((BsKernel) k, (BsVariant) v))
				best = v;
		CHECK((int) bs_kernels_get()->chosen[k] == best || getenv("BLOOMSAMPLE_KERNELS"),
			  "%s: chose %s, the CPU runs %s", bs_kernel_name((BsKernel) k),
			  bs_variant_name(bs_kernels_get()->chosen[k]), bs_variant_name((BsVariant) best));
	}
	for (int lim = 0; lim < BS_VARIANT_COUNT; lim++)
	{
		BsVariant	old = bs_kernels_limit((BsVariant) lim);
		int			over = 0;

		for (int k = 0; k < BS_KERNEL_COUNT; k++)
			over += (int) bs_kernels_get()->chosen[k] > lim;
		CHECK(over == 0, "limit %s: %d kernels above it", bs_variant_name((BsVariant) lim), over);
		CHECK(bs_popcount(a, 40) == want, "limit %s: bs_popcount", bs_variant_name((BsVariant) lim));
		bs_kernels_limit(old);
	}
	CHECK(bs_variant_by_name("avx512") == BS_VARIANT_AVX512 && bs_variant_by_name("x") == -1 &&
		  bs_variant_by_name(NULL) == -1, "variant names");
	CHECK(strcmp(bs_popcount_impl(), bs_variant_name(bs_kernels_get()->chosen[BS_KERNEL_POPCOUNT])) == 0,
		  "bs_popcount_impl names the chosen popcount");
}

int
main(void)
{
	test_bit_kernels();
	test_sparse_decode();
	test_choice();
	return UNIT_DONE();
}
