/*
 * core_bench.c
 *    Micro-benchmark of the PostgreSQL-independent core (the src/core sources),
 *    compiled with the extension's own flags by test/bench/10_type.sh.
 *
 *  1. membership ns/op: k = 7, m = 2^16 bits (8 KiB, stays in L1/L2), about
 *     the optimal load for k = 7 (n = 6000 inserted); queries are half
 *     members, half non-members, interleaved.  Measured twice: with the keys
 *     precomputed (bs_key_test only: k bit probes) and including the hash of
 *     the int64 element (bs_key_int64 + bs_key_test, what a SQL probe does).
 *  2. AND+popcount GB/s: bs_and_popcount over two buffers of BYTES each
 *     (default 256 MiB, larger than the last-level cache), counting the
 *     2 * BYTES bytes read, next to memcpy of one buffer into the other in
 *     the same run, counting the BYTES bytes read (= copied).  Both are
 *     bounded by memory bandwidth; the target is and_popcount >= 50% of it.
 *     A plain read loop (xor of the words of both buffers) is timed too: the
 *     speed limit of any read-only pass.  The same is printed for 1 MiB
 *     buffers (in cache) for information.
 *
 * Every figure is the median of REPS (7) timed repetitions after a warm-up.
 * Output: "key value" lines, parsed by 10_type.sh.
 *
 *   core_bench [bytes_per_buffer]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_timing.h"
#include "bs_bits.h"
#include "bs_hash.h"

#define REPS 7

static volatile uint64_t sink;

/* deterministic 64-bit generator (splitmix64) */
static uint64_t
next_rand(uint64_t *s)
{
	uint64_t	z = (*s += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

#define NQ		(1 << 16)		/* query keys per pass */
#define NINS	6000			/* elements inserted */

static void
bench_membership(void)
{
	BsParams	p = {.m = 1u << 16, .k = 7, .hash = BS_HASH_XXH3, .seed = 0};
	BsHasher	h;
	uint8_t    *bits = calloc(bs_words_for_bits(p.m), 8);
	int64_t    *xs = malloc(NQ * sizeof(int64_t));
	BsKey	   *keys = malloc(NQ * sizeof(BsKey));
	uint64_t	rng = 42;
	double		t_pre[REPS],
				t_hash[REPS];
	int			passes = 40;
	uint64_t	hits = 0;

	bs_hasher_init(&h, &p);
	for (int i = 0; i < NINS; i++)
		bs_key_set(&h, bs_key_int64(&h, (int64_t) i * 7919), bits);
	/* even queries: members; odd queries: random (almost surely absent) */
	for (int i = 0; i < NQ; i++)
	{
		xs[i] = (i % 2 == 0) ? (int64_t) ((i / 2) % NINS) * 7919
			: (int64_t) (next_rand(&rng) | (UINT64_C(1) << 62));
		keys[i] = bs_key_int64(&h, xs[i]);
	}

	for (int r = -1; r < REPS; r++)
	{
		double		t0 = bench_now_sec();

		for (int pass = 0; pass < passes; pass++)
			for (int i = 0; i < NQ; i++)
				hits += bs_key_test(&h, keys[i], bits);
		if (r >= 0)
			t_pre[r] = (bench_now_sec() - t0) * 1e9 / ((double) passes * NQ);

		t0 = bench_now_sec();
		for (int pass = 0; pass < passes; pass++)
			for (int i = 0; i < NQ; i++)
				hits += bs_key_test(&h, bs_key_int64(&h, xs[i]), bits);
		if (r >= 0)
			t_hash[r] = (bench_now_sec() - t0) * 1e9 / ((double) passes * NQ);
	}
	sink = hits;
	printf("membership_precomputed_ns %.2f\n", bench_median(t_pre, REPS));
	printf("membership_with_hash_ns %.2f\n", bench_median(t_hash, REPS));
	/* members must all be found: a check that the loop did real work */
	printf("membership_hit_fraction %.4f\n", (double) hits / (2.0 * (REPS + 1) * passes * NQ));
	free(bits);
	free(xs);
	free(keys);
}

/* xor of every 64-bit word of a and b: a read-only loop at memory speed */
static uint64_t
read_words(const uint8_t *a, const uint8_t *b, size_t nwords)
{
	uint64_t	x = 0;

	for (size_t i = 0; i < nwords; i++)
		x ^= bs_load64(a + 8 * i) ^ bs_load64(b + 8 * i);
	return x;
}

/* and_popcount, a plain read loop and memcpy over two buffers of 'bytes' bytes; prints GB/s */
static void
bench_bandwidth(size_t bytes, const char *label)
{
	uint8_t    *a = malloc(bytes),
			   *b = malloc(bytes);
	uint64_t	rng = 7;
	double		t_and[REPS],
				t_rd[REPS],
				t_cpy[REPS];
	size_t		nwords = bytes / 8;
	int			passes = bytes >= (64u << 20) ? 1 : (int) ((256u << 20) / bytes);

	for (size_t i = 0; i < nwords; i++)
	{
		uint64_t	w = next_rand(&rng);

		memcpy(a + 8 * i, &w, 8);
		w = next_rand(&rng);
		memcpy(b + 8 * i, &w, 8);
	}
	for (int r = -1; r < REPS; r++)
	{
		double		t0 = bench_now_sec();
		uint64_t	c = 0;

		for (int pass = 0; pass < passes; pass++)
			c += bs_and_popcount(a, b, nwords);
		sink = c;
		if (r >= 0)
			t_and[r] = bench_now_sec() - t0;

		t0 = bench_now_sec();
		c = 0;
		for (int pass = 0; pass < passes; pass++)
			c += read_words(a, b, nwords);
		sink = c;
		if (r >= 0)
			t_rd[r] = bench_now_sec() - t0;

		t0 = bench_now_sec();
		for (int pass = 0; pass < passes; pass++)
		{
			memcpy(pass % 2 ? a : b, pass % 2 ? b : a, bytes);
			__asm__ __volatile__("" : : "r"(a), "r"(b) : "memory");
		}
		if (r >= 0)
			t_cpy[r] = bench_now_sec() - t0;
	}
	printf("%s_and_popcount_gbps %.3f\n", label,
		   2.0 * bytes * passes / bench_median(t_and, REPS) / 1e9);
	printf("%s_read_gbps %.3f\n", label,
		   2.0 * bytes * passes / bench_median(t_rd, REPS) / 1e9);
	printf("%s_memcpy_gbps %.3f\n", label,
		   1.0 * bytes * passes / bench_median(t_cpy, REPS) / 1e9);
	free(a);
	free(b);
}

int
main(int argc, char **argv)
{
	size_t		big = argc > 1 ? strtoull(argv[1], NULL, 10) : (size_t) 256 << 20;

	printf("popcount_impl %s\n", bs_popcount_impl());
	printf("dram_buffer_mib %zu\n", (big - big % 64) >> 20);
	bench_membership();
	bench_bandwidth(big - big % 64, "dram");
	bench_bandwidth((size_t) 1 << 20, "cache");
	return 0;
}
