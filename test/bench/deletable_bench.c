/*
 * deletable_bench.c
 *    Micro-benchmark of the deletable filters' core (src/core/cbloom.c,
 *    src/core/cuckoo.c) against the bloomfilter core (bs_hash, bs_bits) in the
 *    same run, compiled with the extension's flags by test/bench/60_deletable.sh.
 *
 * For each false-positive target eps in {1%, 0.1%, 0.01%} and n = 124,518
 * elements (95% of 2^15 buckets of 4 slots, so the cuckoo table is as full as
 * Fan et al.'s (2,4) tables get):
 *   - Bloom: m = ceil(-n ln eps / ln^2 2), k = round(m/n ln 2);
 *     counting Bloom: the same m and k, 4 bits per counter;
 *     cuckoo: ck_params_for(n, eps) (f = ceil(log2(8/eps)));
 *   - bits per element (the structure's bits / n) and the measured
 *     false-positive rate over 10^6 non-members;
 *   - ns per element to insert all n, to look up 10^6 elements (half
 *     members), to remove all n (counting, cuckoo); for Bloom, a deletion
 *     means rebuilding the filter from the exact list of the n - 1 others,
 *     whose cost is n - 1 inserts plus clearing the array: timed as such;
 *   - memory for deletions: counting filter bytes vs a Bloom filter plus the
 *     exact list it is rebuilt from (n int64).
 * Elements are int64 hashed through bs_key_int64 (what a SQL call does).
 * Every time is the median of REPS repetitions after a warm-up.
 * Output: "key value" lines, parsed by 60_deletable.sh.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_timing.h"
#include "bs_bits.h"
#include "bs_hash.h"
#include "cbloom.h"
#include "cuckoo.h"

#define REPS 5
#define QUERIES 1000000

static volatile uint64_t sink;

typedef enum
{
	BLOOM, COUNTING, CUCKOO
} Kind;

typedef struct Filter
{
	Kind		kind;
	BsHasher	h;
	uint8_t    *buf;
	size_t		nbytes;
	CkTable		t;
	CkParams	cp;
} Filter;

static void
clear(Filter *f)
{
	memset(f->buf, 0, f->nbytes);
	if (f->kind == CUCKOO)
		ck_table_init(&f->t, &f->cp, f->buf, 0);
}

static int
insert(Filter *f, int64_t x)
{
	BsKey		key = bs_key_int64(&f->h, x);

	switch (f->kind)
	{
		case BLOOM:
			bs_key_set(&f->h, key, f->buf);
			return 1;
		case COUNTING:
			cb_add(&f->h, key, f->buf);
			return 1;
		case CUCKOO:
			return ck_insert(&f->t, ck_key(&f->cp, key));
	}
	return 0;
}

static int
lookup(Filter *f, int64_t x)
{
	BsKey		key = bs_key_int64(&f->h, x);

	switch (f->kind)
	{
		case BLOOM:
			return bs_key_test(&f->h, key, f->buf);
		case COUNTING:
			return cb_test(&f->h, key, f->buf);
		case CUCKOO:
			return ck_contains(&f->t, ck_key(&f->cp, key));
	}
	return 0;
}

static int
removal(Filter *f, int64_t x)
{
	BsKey		key = bs_key_int64(&f->h, x);

	if (f->kind == COUNTING)
		return cb_remove(&f->h, key, f->buf) == CB_REMOVED;
	return ck_remove(&f->t, ck_key(&f->cp, key));
}

static int64_t
element(int64_t i)
{
	return (int64_t) ((uint64_t) i * UINT64_C(0x9E3779B97F4A7C15) >> 1);
}

static void
run(const char *name, Filter *f, int64_t n, double eps)
{
	double		t_ins[REPS + 1],
				t_look[REPS + 1],
				t_rem[REPS + 1];
	long		fp = 0,
				fails = 0,
				fn = 0;

	for (int r = 0; r <= REPS; r++)
	{
		double		t0;

		clear(f);
		t0 = bench_now_sec();
		for (int64_t i = 0; i < n; i++)
			fails += !insert(f, element(i));
		t_ins[r] = (bench_now_sec() - t0) * 1e9 / n;
		t0 = bench_now_sec();
		{
			uint64_t	hits = 0;

			for (int64_t q = 0; q < QUERIES; q++)
				hits += lookup(f, q & 1 ? element(q % n) : -1 - q);
			sink += hits;
		}
		t_look[r] = (bench_now_sec() - t0) * 1e9 / QUERIES;
		if (r == 0)
		{
			for (int64_t q = 0; q < QUERIES; q++)
				fp += lookup(f, -1 - 2 * q);
			for (int64_t i = 0; i < n; i++)
				fn += !lookup(f, element(i));
		}
		if (f->kind == BLOOM)
		{
			/* a deletion: rebuild from the exact list of the n - 1 others */
			t0 = bench_now_sec();
			clear(f);
			for (int64_t i = 1; i < n; i++)
				insert(f, element(i));
			sink += f->buf[0];
			t_rem[r] = (bench_now_sec() - t0) * 1e9;
		}
		else
		{
			t0 = bench_now_sec();
			for (int64_t i = 0; i < n; i++)
				fails += !removal(f, element(i));
			t_rem[r] = (bench_now_sec() - t0) * 1e9 / n;
		}
	}
	printf("%s_eps%g_bits_per_elem %.2f\n", name, eps,
		   f->kind == CUCKOO ? (double) ck_table_bits(&f->cp) / n :
		   (f->kind == COUNTING ? 4.0 : 1.0) * f->h.p.m / n);
	printf("%s_eps%g_fp %.6f\n", name, eps, fp / (double) QUERIES);
	printf("%s_eps%g_insert_ns %.1f\n", name, eps, bench_median(t_ins + 1, REPS));
	printf("%s_eps%g_lookup_ns %.1f\n", name, eps, bench_median(t_look + 1, REPS));
	printf("%s_eps%g_%s %.1f\n", name, eps, f->kind == BLOOM ? "rebuild_per_delete_ns" : "remove_ns",
		   bench_median(t_rem + 1, REPS));
	printf("%s_eps%g_failures %ld\n", name, eps, fails + fn);
	if (f->kind == CUCKOO)
		printf("%s_eps%g_fp_bits %d\n", name, eps, f->cp.fp_bits);
	else
		printf("%s_eps%g_m_k %u/%d\n", name, eps, f->h.p.m, f->h.p.k);
}

int
main(void)
{
	const int64_t n = (int64_t) (0.95 * 4 * 32768);
	const double eps_list[] = {0.01, 0.001, 0.0001};

	printf("n %ld\n", (long) n);
	for (int e = 0; e < 3; e++)
	{
		double		eps = eps_list[e];
		double		ln2 = log(2.0);
		uint32_t	m = (uint32_t) ceil(-(double) n * log(eps) / (ln2 * ln2));
		int			k = (int) lround((double) m / n * ln2);
		BsParams	bp = {m, (uint8_t) k, BS_HASH_XXH3, 0};
		Filter		bloom,
					counting,
					cuckoo;

		memset(&bloom, 0, sizeof(bloom));
		memset(&counting, 0, sizeof(counting));
		memset(&cuckoo, 0, sizeof(cuckoo));
		bloom.kind = BLOOM;
		counting.kind = COUNTING;
		cuckoo.kind = CUCKOO;

		bs_hasher_init(&bloom.h, &bp);
		bloom.nbytes = 8 * bs_words_for_bits(m);
		bloom.buf = calloc(1, bloom.nbytes);
		counting.h = bloom.h;
		counting.nbytes = CB_NBYTES(m);
		counting.buf = calloc(1, counting.nbytes);
		ck_params_for(n, eps, 0, &cuckoo.cp);
		ck_hasher_init(&cuckoo.h, 0);
		cuckoo.nbytes = ck_table_bytes(&cuckoo.cp);
		cuckoo.buf = calloc(1, cuckoo.nbytes);
		run("bloom", &bloom, n, eps);
		run("counting", &counting, n, eps);
		run("cuckoo", &cuckoo, n, eps);
		printf("bloom_eps%g_with_exact_list_bytes %zu\n", eps, (size_t) (m + 7) / 8 + 8 * (size_t) n);
		printf("counting_eps%g_bytes %zu\n", eps, (size_t) (m + 1) / 2);
		free(bloom.buf);
		free(counting.buf);
		free(cuckoo.buf);
	}
	return 0;
}
