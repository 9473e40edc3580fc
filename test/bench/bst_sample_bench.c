/*
 * test/bench/bst_sample_bench.c
 *    Where the time of one BloomSampleTree sample goes, in the core alone
 *    (no SQL): the paper's configuration (M = 10^7 ids, m = 132,933, k = 3,
 *    depth 12, with the inverted index), QUERIES different query filters of
 *    1,000 uniform ids each, stored in the sparse form as SQL stores them.
 *    Per query, as bst_sample(t, f, 1) does: open the encoding, allocate the
 *    zeroed m bits and the positions, decode both, draw one sample.  Timed
 *    apart: the decode alone, the sample alone (from decoded queries), the
 *    whole (decode + sample), and one sample from the dense bits (the
 *    uncompressed form: the set bits listed by a scan).  Each figure is the
 *    median of REPS passes over all queries (CPU time and wall time per
 *    query, us), with the trials (index entries examined) per sample.
 *
 * usage: bst_sample_bench [kernels [queries [reps]]]
 *    kernels: the variant limit (default, popcnt, avx2, avx512; bs_kernels.h)
 *    or "cpu" (the CPU's best, the default).  Compiled by hand against a
 *    checkout's core, e.g.
 *      gcc -O2 -std=gnu11 -Isrc/core -Itest/bench -o /tmp/bsb \
 *          test/bench/bst_sample_bench.c src/core/[a-z]*.c -lm
 *    (a checkout without bs_kernels.h builds too: the argument is ignored).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_timing.h"
#include "bs_bits.h"
#include "bs_hash.h"
#include "bs_sparse.h"
#include "bst_query.h"
#include "bst_rng.h"
#include "bst_tree.h"

#define M		10000000
#define NSET	1000

typedef struct Query
{
	uint8_t    *enc;
	size_t		len;
	uint8_t    *bits;			/* dense form */
	uint32_t   *pos;			/* decoded positions (for "sample alone") */
	uint8_t    *dec;			/* decoded bits (likewise) */
	BsSparse	s;
} Query;

static double
median_of(double *v, int n)
{
	return bench_median(v, n);
}

int
main(int argc, char **argv)
{
	const char *kern = argc > 1 ? argv[1] : "cpu";
	int			nq = argc > 2 ? atoi(argv[2]) : 2000;
	int			reps = argc > 3 ? atoi(argv[3]) : 7;
	BsParams	p = {132933, 3, 0, 0};
	BsHasher	h;
	BstTree    *t;
	BstRng		rng;
	Query	   *qs = calloc((size_t) nq, sizeof(Query));
	size_t		nbytes = 8 * bs_words_for_bits(p.m);
	double		cpu[4][64],
				wall[4][64];
	uint64_t	tries[4] = {0, 0, 0, 0},
				calls[4] = {0, 0, 0, 0};
	volatile uint64_t sink = 0;
	static const char *const what[4] = {"decode", "sample", "decode+sample", "dense sample"};

	if (reps > 64)
		reps = 64;
#ifdef BS_KERNELS_H
	if (strcmp(kern, "cpu") != 0)
	{
		if (bs_variant_by_name(kern) < 0)
		{
			fprintf(stderr, "unknown kernel variant %s\n", kern);
			return 2;
		}
		bs_kernels_limit((BsVariant) bs_variant_by_name(kern));
	}
	printf("kernels: limit %s; popcount %s, sparse_decode %s\n", kern,
		   bs_variant_name(bs_kernels_get()->chosen[BS_KERNEL_POPCOUNT]),
		   bs_variant_name(bs_kernels_get()->chosen[BS_KERNEL_SPARSE_DECODE]));
#else
	printf("kernels: (no bs_kernels.h in this core) popcount %s\n", bs_popcount_impl());
#endif
	bs_hasher_init(&h, &p);
	if (bst_build_full(&p, 0, M, 12, true, &bst_alloc_malloc, &t) != BST_OK)
	{
		fprintf(stderr, "build failed\n");
		return 1;
	}
	bst_rng_seed(&rng, 38);
	for (int i = 0; i < nq; i++)
	{
		Query	   *q = &qs[i];
		uint64_t	n;

		q->bits = calloc(nbytes, 1);
		for (int j = 0; j < NSET; j++)
			bs_key_set(&h, bs_key_int64(&h, (int64_t) bst_rng_below(&rng, M)), q->bits);
		n = bs_popcount(q->bits, nbytes / 8);
		q->len = bs_sparse_size(p.m, n);
		q->enc = malloc(q->len);
		bs_sparse_encode_bits(q->bits, p.m, (uint32_t) n, q->enc);
		q->pos = malloc(sizeof(uint32_t) * (n + 1));
		q->dec = calloc(nbytes, 1);
		if (bs_sparse_open(q->enc, q->len, p.m, &q->s) != BS_SPARSE_OK ||
			bs_sparse_decode_positions(&q->s, q->pos, q->dec) != BS_SPARSE_OK)
		{
			fprintf(stderr, "encoding failed\n");
			return 1;
		}
	}
	for (int r = -1; r < reps; r++)
	{
		/* the four kinds interleaved within each pass */
		for (int kind = 0; kind < 4; kind++)
		{
			double		c0 = bench_cpu_sec(),
						w0 = bench_now_sec();

			for (int i = 0; i < nq; i++)
			{
				Query	   *q = &qs[i];
				BstIdVec	out;
				BstStats	st;

				memset(&st, 0, sizeof(st));
				bst_vec_init(&out, &bst_alloc_malloc);
				if (kind == 0 || kind == 2)
				{
					BsSparse	s;
					uint8_t    *bits = calloc(nbytes, 1);
					uint32_t   *pos;

					bs_sparse_open(q->enc, q->len, p.m, &s);
					pos = malloc(sizeof(uint32_t) * (s.n + 1));
					bs_sparse_decode_positions(&s, pos, bits);
					if (kind == 2)
						bst_sample_pos(t, bits, pos, s.n, 1, BST_SAMPLE_AUTO, true, &rng,
									   &bst_alloc_malloc, &out, &st, NULL);
					sink += pos[0];
					free(bits);
					free(pos);
				}
				else if (kind == 1)
					bst_sample_pos(t, q->dec, q->pos, q->s.n, 1, BST_SAMPLE_AUTO, true, &rng,
								   &bst_alloc_malloc, &out, &st, NULL);
				else
					bst_sample(t, q->bits, 1, BST_SAMPLE_AUTO, true, &rng,
							   &bst_alloc_malloc, &out, &st, NULL);
				if (out.n)
					sink += (uint64_t) out.v[0];
				if (r >= 0)
				{
					tries[kind] += st.memberships;
					calls[kind]++;
				}
				bst_vec_free(&out);
			}
			if (r >= 0)
			{
				cpu[kind][r] = (bench_cpu_sec() - c0) * 1e6 / nq;
				wall[kind][r] = (bench_now_sec() - w0) * 1e6 / nq;
			}
		}
	}
	printf("M=%d m=%u k=%d depth=12 queries=%d reps=%d (us per query, medians)\n",
		   M, p.m, p.k, nq, reps);
	for (int kind = 0; kind < 4; kind++)
		printf("%-14s cpu_us=%.2f wall_us=%.2f trials=%.1f\n", what[kind],
			   median_of(cpu[kind], reps), median_of(wall[kind], reps),
			   calls[kind] ? (double) tries[kind] / calls[kind] : 0.0);
	return sink == 42;
}
