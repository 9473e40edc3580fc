/*
 * bloofi_tree_bench.c
 *    The paper's search cost (section 5, Fig 5) of the in-memory reference
 *    Bloofi tree (test/ref/bloofi_reftree.c, built with the rules of
 *    src/core/bloofi_tree.c; not the on-disk index): filters of m bits, k hashes (xxh3, seed 0, as
 *    bloom_from_array), filter i holding [100 i, 100 i + 100) (the paper's
 *    "nonrandom" data), order d, iterative build (inserts in id order) and
 *    bulk build (bottom-up from the filters sorted by bloofi_similarity_key,
 *    as CREATE INDEX sorts them).  Lookups: the elements s * 7919 mod 100 N
 *    for s = 1..1000, as 30_bloofi.sh (d) probes the index.  Every lookup must
 *    find the filter that holds its element (checked; exit 1 otherwise).
 *
 *    bloofi_tree_bench N [d [m [k]]]
 * prints one line per build and split rule (the paper's all-ones rule, and the
 * saturation refinement, see bloofi_tree.h): "iterative|bulk all-ones|saturated
 * nodes_checked height inner_nodes matches_per_lookup build_ms".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bloofi_layout.h"
#include "bloofi_reftree.h"
#include "bench_timing.h"
#include "bs_bits.h"
#include "bs_hash.h"

typedef struct SortItem
{
	uint64_t	key;
	int64_t		id;
} SortItem;

static int
cmp_item(const void *a, const void *b)
{
	const SortItem *x = a,
			   *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->id < y->id ? -1 : (x->id > y->id);
}

static void
count_match(int64_t id, void *arg)
{
	int64_t    *st = arg;

	if (id == st[0])
		st[1]++;
	st[2]++;
}

int
main(int argc, char **argv)
{
	int64_t		n = argc > 1 ? atoll(argv[1]) : 1000;
	int			d = argc > 2 ? atoi(argv[2]) : 2;
	BsParams	p = {argc > 3 ? (uint32_t) atol(argv[3]) : 100992,
	(uint8_t) (argc > 4 ? atoi(argv[4]) : 7), BS_HASH_XXH3, 0};
	BsHasher	h;
	size_t		nwords = bs_words_for_bits(p.m);
	size_t		fb = 8 * nwords;
	uint8_t    *filters;
	int			rc = 0;

	if (n < 1 || d < 1 || p.m < 64 || p.k < 1 || p.k > BS_MAX_K)
	{
		fprintf(stderr, "usage: bloofi_tree_bench N [d [m [k]]]\n");
		return 2;
	}
	filters = calloc((size_t) n, fb);
	if (!filters)
		return 2;
	bs_hasher_init(&h, &p);
	for (int64_t i = 0; i < n; i++)
		for (int e = 0; e < 100; e++)
			bs_key_set(&h, bs_key_int64(&h, 100 * i + e), filters + (size_t) i * fb);

	for (int run = 0; run < 4; run++)
	{
		int			bulk = run % 2;
		BloofiSplitRule rule = run < 2 ? BLOOFI_NOSPLIT_ALL_ONES : BLOOFI_NOSPLIT_SATURATED;
		BloofiRefTree	t;
		int64_t		checked = 0,
					matches = 0;
		const int	lookups = 1000;
		double		t0 = bench_now_sec() * 1e3,
					build_ms;
		const char *err;

		bloofi_reftree_init(&t, p.m, p.k, d, rule);
		if (!bulk)
			for (int64_t i = 0; i < n; i++)
				bloofi_reftree_insert(&t, filters + (size_t) i * fb, i);
		else
		{
			SortItem   *items = malloc(sizeof(SortItem) * (size_t) n);
			uint8_t    *sorted = malloc((size_t) n * fb);
			int64_t    *ids = malloc(sizeof(int64_t) * (size_t) n);

			for (int64_t i = 0; i < n; i++)
			{
				items[i].key = bloofi_similarity_key(filters + (size_t) i * fb, p.m);
				items[i].id = i;
			}
			qsort(items, (size_t) n, sizeof(SortItem), cmp_item);
			for (int64_t i = 0; i < n; i++)
			{
				memcpy(sorted + (size_t) i * fb, filters + (size_t) items[i].id * fb, fb);
				ids[i] = items[i].id;
			}
			bloofi_reftree_bulk_build(&t, sorted, ids, n, NULL);
			free(items);
			free(sorted);
			free(ids);
		}
		build_ms = bench_now_sec() * 1e3 - t0;
		if ((err = bloofi_reftree_check(&t)) != NULL)
		{
			fprintf(stderr, "invariant violated: %s\n", err);
			rc = 1;
		}
		for (int s = 1; s <= lookups; s++)
		{
			int64_t		x = (int64_t) s * 7919 % (100 * n);
			uint32_t	pos[BS_MAX_K];
			int64_t		st[3] = {x / 100, 0, 0};

			bs_key_positions(&h, bs_key_int64(&h, x), pos);
			checked += bloofi_reftree_search(&t, pos, p.k, count_match, st);
			matches += st[2];
			if (st[1] != 1)
			{
				fprintf(stderr, "element %lld: its filter %lld not found\n",
						(long long) x, (long long) st[0]);
				rc = 1;
			}
		}
		printf("%s %s %.2f %d %lld %.2f %.0f\n", bulk ? "bulk" : "iterative",
			   run < 2 ? "all-ones" : "saturated",
			   (double) checked / lookups, bloofi_reftree_height(&t),
			   (long long) bloofi_reftree_inner_nodes(&t), (double) matches / lookups, build_ms);
		bloofi_reftree_free(&t);
	}
	free(filters);
	return rc;
}
