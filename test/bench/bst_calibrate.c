/*
 * bst_calibrate.c
 *    Measures the two costs of the BloomSampleTree cost model (bst_plan.h) on
 *    this machine: one AND-popcount word of m = 132,933-bit filters (512
 *    filters, out of L2 like a tree's nodes) and one membership test (hash
 *    an id, test k = 3 bits of a half-full filter).  Run by
 *    test/bench/20_bst.sh; compare with BST_COST_WORD_NS and
 *    BST_COST_MEMBER_NS * (1 + 0.1 (k - 1)).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bs_bits.h"
#include "bs_hash.h"
#include "bst_plan.h"

static double
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

int
main(void)
{
	BsParams	p = {.m = 132933, .k = 3, .hash = BS_HASH_XXH3, .seed = 0};
	BsHasher	h;
	size_t		nw = bs_words_for_bits(p.m);
	int			nf = 512;
	uint8_t    *f = malloc((size_t) nf * nw * 8),
			   *q = malloc(nw * 8);
	uint64_t	s = 0;
	double		t0,
				tw,
				tm;

	bs_hasher_init(&h, &p);
	srand(1);
	for (size_t i = 0; i < (size_t) nf * nw * 8; i++)
		f[i] = (uint8_t) rand();
	for (size_t i = 0; i < nw * 8; i++)
		q[i] = (uint8_t) rand();
	t0 = now_ns();
	for (int r = 0; r < 20; r++)
		for (int i = 0; i < nf; i++)
			s += bs_and_popcount(q, f + (size_t) i * nw * 8, nw);
	tw = (now_ns() - t0) / (20.0 * nf * nw);
	t0 = now_ns();
	for (int64_t x = 0; x < 10000000; x++)
		s += bs_key_test(&h, bs_key_int64(&h, x), q);
	tm = (now_ns() - t0) / 1e7;
	printf("cost model calibration: AND-popcount %.3f ns/word (model %.3f), membership (k=3) %.2f ns (model %.2f)  [%lu]\n",
		   tw, BST_COST_WORD_NS, tm, BST_COST_MEMBER_NS * 1.2, (unsigned long) (s & 1));
	free(f);
	free(q);
	return 0;
}
