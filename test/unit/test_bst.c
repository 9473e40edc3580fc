/*
 * test_bst.c
 *    Unit tests of the BloomSampleTree core against independent oracles:
 *    reconstruction (index and tree walk) and HashInvert against the
 *    dictionary attack, pruned trees and bst_tree_extend against the
 *    dictionary attack restricted to the occupied ids, chi-squared uniformity
 *    of the samples (T = 130 * |positives|, as in the paper's Table 5), and
 *    the paper's sizing (Tables 2 and 3).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bs_estimate.h"
#include "bst_baseline.h"
#include "bst_gen.h"
#include "bst_plan.h"
#include "bst_query.h"
#include "bst_unit.h"
#include "unit.h"

/* a monotonic clock, in nanoseconds */
static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* n distinct ids drawn uniformly from [lo, hi), pushed onto the empty out and sorted */
static void
uniform_set(BstRng *rng, int64_t lo, int64_t hi, int64_t n, BstIdVec *out)
{
	uint8_t    *seen = calloc((size_t) (hi - lo), 1);

	while ((int64_t) out->n < n)
	{
		int64_t		x = (int64_t) bst_rng_below(rng, (uint64_t) (hi - lo));

		if (!seen[x])
		{
			seen[x] = 1;
			bst_vec_push(out, lo + x);
		}
	}
	free(seen);
	bst_sort_unique(out->v, out->n);
}

/* chi-squared critical value (Wilson-Hilferty) for df and upper-tail z */
static double
chi2_crit(double df, double z)
{
	double		a = 2.0 / (9.0 * df);

	return df * pow(1.0 - a + z * sqrt(a), 3);
}

/* Q statistic of T samples over the positives pos (sorted) */
static double
chi2_stat(const BstIdVec *pos, const BstIdVec *samples, bool *all_members)
{
	double	   *o = calloc(pos->n, sizeof(double));
	double		e = (double) samples->n / (double) pos->n,
				q = 0;

	*all_members = true;
	for (size_t i = 0; i < samples->n; i++)
	{
		{
			size_t		a = 0,
						b = pos->n;

			while (a < b)
			{
				size_t		mid = (a + b) / 2;

				if (pos->v[mid] < samples->v[i])
					a = mid + 1;
				else
					b = mid;
			}
			if (a < pos->n && pos->v[a] == samples->v[i])
				o[a]++;
			else
				*all_members = false;
		}
	}
	for (size_t i = 0; i < pos->n; i++)
		q += (o[i] - e) * (o[i] - e) / e;
	free(o);
	return q;
}

/*
 * A full tree of depth over [lo, hi) and a query filter of set: its shape
 * and root, index and tree reconstruction and HashInvert against the
 * dictionary attack, and the chi-squared uniformity of descent and
 * enumeration samples
 */
static void
check_full(const char *what, BsParams p, int64_t lo, int64_t hi, int depth,
		   const BstIdVec *set, BstRng *rng)
{
	BsHasher	h;
	BstTree    *t;
	uint8_t    *q;
	BstIdVec	da,
				ix,
				tw,
				hi_out;
	BstStats	st = {0};
	int			rc;

	bs_hasher_init(&h, &p);
	q = make_filter(&h, set->v, set->n);
	rc = bst_build_full(&p, lo, hi, depth, p.hash == BS_HASH_XXH3, &bst_alloc_malloc, &t);
	CHECK(rc == BST_OK, "%s: build full rc %d", what, rc);
	if (rc != BST_OK)
		return;
	CHECK(t->nnodes == (2 << depth) - 1, "%s: nodes", what);
	/* the root filter holds every id of the namespace */
	{
		uint8_t    *all = calloc(t->nwords, 8);

		for (int64_t x = lo; x < hi; x++)
			bs_key_set(&h, bs_key_int64(&h, x), all);
		CHECK(memcmp(all, bst_node_bits(t, 0), t->nbytes) == 0, "%s: root = OR of all ids", what);
		free(all);
	}
	bst_vec_init(&da, &bst_alloc_malloc);
	bst_vec_init(&ix, &bst_alloc_malloc);
	bst_vec_init(&tw, &bst_alloc_malloc);
	bst_vec_init(&hi_out, &bst_alloc_malloc);
	bst_dictionary_attack(&h, q, lo, hi, &da, NULL);
	CHECK(da.n >= set->n, "%s: DA finds every member (%zu >= %zu)", what, da.n, set->n);
	rc = bst_reconstruct_index(t, q, &ix, &st);
	CHECK(rc == BST_OK && same_vec(&da, &ix), "%s: index reconstruction = DA (%zu vs %zu)",
		  what, ix.n, da.n);
	CHECK(st.memberships < (uint64_t) (hi - lo), "%s: index examines fewer ids than DA", what);
	bst_reconstruct_tree(t, q, &tw, NULL);
	CHECK(same_vec(&da, &tw), "%s: tree reconstruction = DA", what);
	if (p.hash == BS_HASH_LINEAR)
	{
		bool		unset;

		rc = bst_hashinvert(&h, q, lo, hi, &bst_alloc_malloc, &hi_out, NULL, &unset);
		CHECK(rc == BST_OK && same_vec(&da, &hi_out), "%s: HashInvert = DA (%zu vs %zu, unset=%d)",
			  what, hi_out.n, da.n, unset);
	}

	/* chi-squared uniformity of descent samples, T = 130 |positives| */
	if (da.n >= 2)
	{
		BstIdVec	smp;
		BstSampleInfo info;
		bool		members;
		double		Q,
					crit;

		bst_vec_init(&smp, &bst_alloc_malloc);
		memset(&st, 0, sizeof(st));
		rc = bst_sample(t, q, (int64_t) (130 * da.n), BST_SAMPLE_DESCENT, false, rng,
						&bst_alloc_malloc, &smp, &st, &info);
		CHECK(rc == BST_OK && smp.n == 130 * da.n, "%s: sample count", what);
		Q = chi2_stat(&da, &smp, &members);
		crit = chi2_crit((double) da.n - 1, 3.09);	/* p = 0.001 */
		CHECK(members, "%s: every sample is a positive", what);
		CHECK(Q < crit, "%s: descent chi2 Q = %.1f < crit %.1f (df %zu, raises %lu)",
			  what, Q, crit, da.n - 1, (unsigned long) info.bound_raises);
		printf("  %s: positives %zu, descent chi2 %.1f (crit %.1f), attempts/sample %.2f, raises %lu\n",
			   what, da.n, Q, crit, (double) info.attempts / smp.n,
			   (unsigned long) info.bound_raises);
		smp.n = 0;
		rc = bst_sample(t, q, (int64_t) (130 * da.n), BST_SAMPLE_ENUMERATE, true, rng,
						&bst_alloc_malloc, &smp, NULL, &info);
		Q = chi2_stat(&da, &smp, &members);
		CHECK(members && Q < crit, "%s: enumerate chi2 Q = %.1f < %.1f", what, Q, crit);
		/* one descent sample per call (fresh per-call state: estimates only), T calls */
		smp.n = 0;
		{
			uint64_t	raises = 0;

			for (size_t i = 0; i < 130 * da.n; i++)
			{
				bst_sample(t, q, 1, BST_SAMPLE_DESCENT, false, rng, &bst_alloc_malloc, &smp, NULL, &info);
				raises += info.bound_raises;
			}
			/*
			 * Not uniform (documented): with a fresh state per call the
			 * estimates decide, and raised bounds bias the leaves reached.
			 * Only membership is asserted; the statistic is printed.
			 */
			Q = chi2_stat(&da, &smp, &members);
			CHECK(members && smp.n == 130 * da.n, "%s: single descents return positives", what);
			printf("  %s: single-sample descents (not uniform): chi2 %.1f (crit %.1f), bound raised in %lu of %zu calls\n",
				   what, Q, crit, (unsigned long) raises, smp.n);
		}
		/* auto on a tree without an index (none allowed): exact tree walk, then draws */
		{
			BstTree    *t2;

			if (bst_build_full(&p, lo, hi, depth, false, &bst_alloc_malloc, &t2) == BST_OK)
			{
				smp.n = 0;
				bst_sample(t2, q, (int64_t) (130 * da.n), BST_SAMPLE_AUTO, false, rng,
						   &bst_alloc_malloc, &smp, NULL, &info);
				Q = chi2_stat(&da, &smp, &members);
				CHECK(t2->index == NULL && members && smp.n == 130 * da.n && Q < crit,
					  "%s: auto without index chi2 %.1f < %.1f", what, Q, crit);
				bst_tree_free(t2);
			}
		}
		/* one sample per call (the candidate-rejection path), T calls */
		smp.n = 0;
		for (size_t i = 0; i < 130 * da.n; i++)
			bst_sample(t, q, 1, BST_SAMPLE_ENUMERATE, true, rng, &bst_alloc_malloc, &smp, NULL, &info);
		Q = chi2_stat(&da, &smp, &members);
		CHECK(members && smp.n == 130 * da.n && Q < crit, "%s: single-sample chi2 Q = %.1f < %.1f",
			  what, Q, crit);
		bst_vec_free(&smp);
	}
	bst_vec_free(&da);
	bst_vec_free(&ix);
	bst_vec_free(&tw);
	bst_vec_free(&hi_out);
	free(q);
	bst_tree_free(t);
}

/* check_full over uniform and clustered sets at several sizes, and HashInvert's unset-bit path and gcd(a, m) > 1 cases */
static void
test_full(void)
{
	BstRng		rng;
	BsParams	p = {0};
	BstIdVec	set;

	bst_rng_seed(&rng, 42);
	for (int fam = 0; fam < 2; fam++)
	{
		for (int clustered = 0; clustered < 2; clustered++)
		{
			int64_t		lo = fam ? -5000 : 1000,
						M = 20000,
						n = 200;
			char		what[64];

			p.m = (uint32_t) bst_plan_m((double) n, (double) M, 0.9, 3);
			p.k = 3;
			p.hash = (uint8_t) fam;
			p.seed = 7;
			bst_vec_init(&set, &bst_alloc_malloc);
			if (clustered)
				bst_gen_clustered(lo, lo + M, n, 0.1, &rng, &bst_alloc_malloc, &set);
			else
				uniform_set(&rng, lo, lo + M, n, &set);
			CHECK((int64_t) set.n == n, "generator size %zu", set.n);
			snprintf(what, sizeof(what), "full %s %s", fam ? "linear" : "xxh3",
					 clustered ? "clustered" : "uniform");
			check_full(what, p, lo, lo + M, 5, &set, &rng);
			bst_vec_free(&set);
		}
	}
	/* dense filter: HashInvert takes the unset-bit path */
	{
		BsHasher	h;
		uint8_t    *q;
		BstIdVec	da,
					hv;
		bool		unset;

		p.m = 4099;
		p.k = 2;
		p.hash = BS_HASH_LINEAR;
		p.seed = 3;
		bs_hasher_init(&h, &p);
		bst_vec_init(&set, &bst_alloc_malloc);
		uniform_set(&rng, 0, 30000, 3000, &set);
		q = make_filter(&h, set.v, set.n);
		bst_vec_init(&da, &bst_alloc_malloc);
		bst_vec_init(&hv, &bst_alloc_malloc);
		bst_dictionary_attack(&h, q, -100, 30100, &da, NULL);
		bst_hashinvert(&h, q, -100, 30100, &bst_alloc_malloc, &hv, NULL, &unset);
		CHECK(unset && same_vec(&da, &hv), "HashInvert unset path = DA (%zu vs %zu)", hv.n, da.n);
		/* m even with gcd(a, m) > 1 possible */
		p.m = 4096;
		bs_hasher_init(&h, &p);
		free(q);
		q = make_filter(&h, set.v, 300);
		da.n = hv.n = 0;
		bst_dictionary_attack(&h, q, 0, 30000, &da, NULL);
		bst_hashinvert(&h, q, 0, 30000, &bst_alloc_malloc, &hv, NULL, &unset);
		CHECK(!unset && same_vec(&da, &hv), "HashInvert set path, m = 2^12 (%zu vs %zu)", hv.n, da.n);
		bst_vec_free(&da);
		bst_vec_free(&hv);
		bst_vec_free(&set);
		free(q);
	}
}

/*
 * pruned trees over clustered and scattered ids, extended (new nodes as
 * predicted): reconstruction against the dictionary attack over the
 * occupied ids, descent chi2; an empty pruned tree grown by extension
 */
static void
test_pruned(void)
{
	BstRng		rng;
	BsParams	p = {.m = 30011, .k = 3, .hash = BS_HASH_XXH3, .seed = 1};
	BsHasher	h;
	BstIdVec	occ,
				extra,
				set,
				da,
				ix,
				tw;
	BstTree    *t;
	uint8_t    *q;
	int			bits,
				rc;
	size_t		added;

	bst_rng_seed(&rng, 9);
	bs_hasher_init(&h, &p);
	bst_vec_init(&occ, &bst_alloc_malloc);
	bst_vec_init(&extra, &bst_alloc_malloc);
	/* 20000 occupied ids in [0, 2^31): 16 dense clusters plus scattered ids */
	for (int c = 0; c < 16; c++)
	{
		int64_t		base = (int64_t) bst_rng_below(&rng, UINT64_C(1) << 31);

		for (int i = 0; i < 1000; i++)
			bst_vec_push(&occ, base + (int64_t) bst_rng_below(&rng, 5000));
	}
	for (int i = 0; i < 4000; i++)
		bst_vec_push(&occ, (int64_t) bst_rng_below(&rng, UINT64_C(1) << 31));
	occ.n = bst_sort_unique(occ.v, occ.n);
	/* the extension: half the ids now, half later, some beyond 2^31 */
	for (size_t i = 0; i < occ.n; i++)
		if (i % 2)
			bst_vec_push(&extra, occ.v[i]);
	for (int i = 0; i < 50; i++)
		bst_vec_push(&extra, (INT64_C(1) << 40) + (int64_t) bst_rng_below(&rng, 1000000));
	{
		BstIdVec	half;

		bst_vec_init(&half, &bst_alloc_malloc);
		for (size_t i = 0; i < occ.n; i += 2)
			bst_vec_push(&half, occ.v[i]);
		bits = bst_pruned_leaf_bits(half.v, half.n, 200);
		rc = bst_build_pruned(&p, half.v, half.n, bits, true, &bst_alloc_malloc, &t);
		CHECK(rc == BST_OK, "build pruned");
		CHECK(t->nids == half.n, "pruned ids");
		bst_vec_free(&half);
	}
	{
		int64_t		before = t->nnodes,
					predicted;

		extra.n = bst_sort_unique(extra.v, extra.n);
		predicted = bst_extend_new_nodes(t, extra.v, extra.n);
		rc = bst_tree_extend(t, extra.v, extra.n, &added);
		CHECK(rc == BST_OK && added == extra.n, "extend added %zu of %zu", added, extra.n);
		CHECK(t->nnodes - before == predicted, "predicted new nodes %ld = created %ld",
			  (long) predicted, (long) (t->nnodes - before));
	}
	rc = bst_tree_extend(t, extra.v, 10, &added);
	CHECK(rc == BST_OK && added == 0, "re-extend adds nothing");
	for (size_t i = 0; i < extra.n; i++)
		bst_vec_push(&occ, extra.v[i]);
	occ.n = bst_sort_unique(occ.v, occ.n);
	CHECK(t->nids == occ.n, "ids after extend %zu vs %zu", t->nids, occ.n);

	/* every node is the OR of its children; leaves hold their ids */
	{
		bool		ok = true;
		uint8_t    *tmp = malloc(t->nbytes);

		for (int32_t v = 0; v < t->nnodes; v++)
		{
			const BstNode *nd = &t->nodes[v];

			memset(tmp, 0, t->nbytes);
			if (bst_node_is_leaf(t, v))
			{
				const int64_t *ids;
				int64_t		first;
				size_t		cnt;

				bst_leaf_ids(t, v, &ids, &first, &cnt);
				ok &= cnt > 0;
				for (size_t i = 0; i < cnt; i++)
					bs_key_set(&h, bs_key_int64(&h, ids[i]), tmp);
			}
			else
				for (int c = 0; c < 2; c++)
					if (nd->child[c] >= 0)
						bs_or(tmp, bst_node_bits(t, nd->child[c]), t->nwords);
			ok &= memcmp(tmp, bst_node_bits(t, v), t->nbytes) == 0;
		}
		CHECK(ok, "pruned invariant: node = OR of children, leaves = their ids");
		free(tmp);
	}

	/* query: 300 occupied ids */
	bst_vec_init(&set, &bst_alloc_malloc);
	for (int i = 0; i < 300; i++)
		bst_vec_push(&set, occ.v[bst_rng_below(&rng, occ.n)]);
	set.n = bst_sort_unique(set.v, set.n);
	q = make_filter(&h, set.v, set.n);
	bst_vec_init(&da, &bst_alloc_malloc);
	bst_vec_init(&ix, &bst_alloc_malloc);
	bst_vec_init(&tw, &bst_alloc_malloc);
	for (size_t i = 0; i < occ.n; i++)
		if (bs_key_test(&h, bs_key_int64(&h, occ.v[i]), q))
			bst_vec_push(&da, occ.v[i]);
	bst_reconstruct_index(t, q, &ix, NULL);
	bst_reconstruct_tree(t, q, &tw, NULL);
	CHECK(same_vec(&da, &ix), "pruned index reconstruction = DA over occupied (%zu vs %zu)", ix.n, da.n);
	CHECK(same_vec(&da, &tw), "pruned tree reconstruction = DA over occupied");
	{
		BstIdVec	smp;
		BstSampleInfo info;
		bool		members;
		double		Q,
					crit = chi2_crit((double) da.n - 1, 3.09);

		bst_vec_init(&smp, &bst_alloc_malloc);
		bst_sample(t, q, (int64_t) (130 * da.n), BST_SAMPLE_DESCENT, false, &rng,
				   &bst_alloc_malloc, &smp, NULL, &info);
		Q = chi2_stat(&da, &smp, &members);
		CHECK(members && Q < crit, "pruned descent chi2 %.1f < %.1f", Q, crit);
		printf("  pruned: positives %zu, descent chi2 %.1f (crit %.1f), attempts/sample %.2f\n",
			   da.n, Q, crit, (double) info.attempts / smp.n);
		bst_vec_free(&smp);
	}
	free(q);
	bst_vec_free(&da);
	bst_vec_free(&ix);
	bst_vec_free(&tw);
	bst_vec_free(&set);
	bst_vec_free(&occ);
	bst_vec_free(&extra);
	bst_tree_free(t);

	/* an empty pruned tree grows by extension */
	rc = bst_build_pruned(&p, NULL, 0, 4, false, &bst_alloc_malloc, &t);
	CHECK(rc == BST_OK && t->root < 0, "empty pruned tree");
	{
		int64_t		ids[] = {5, 100000, 7};

		int64_t		far[] = {INT64_C(1) << 62, INT64_MAX};

		int64_t		sorted[] = {5, 7, 100000};

		int64_t		predicted = bst_extend_new_nodes(t, sorted, 3);

		rc = bst_tree_extend(t, ids, 3, &added);
		CHECK(t->nnodes == predicted, "predicted %ld = created %d on an empty tree",
			  (long) predicted, t->nnodes);
		CHECK(rc == BST_OK && added == 3 && t->nids == 3 && t->ids[1] == 7, "extend empty");
		{
			int32_t		before = t->nnodes;
			int64_t		predicted = bst_extend_new_nodes(t, far, 2);

			rc = bst_tree_extend(t, far, 2, &added);
			CHECK(t->nnodes - before == predicted, "predicted %ld = created %ld beyond the root",
				  (long) predicted, (long) (t->nnodes - before));
		}
		CHECK(rc == BST_OK && added == 2 && t->root_bits == 63 && t->ids[4] == INT64_MAX,
			  "extend to 2^63 - 1");
	}
	bst_tree_free(t);
}

/* qsort order of int64 ids */
static int
cmp_ids(const void *a, const void *b)
{
	int64_t		x = *(const int64_t *) a,
				y = *(const int64_t *) b;

	return (x > y) - (x < y);
}

static int	sort_interrupts = 0;

/* the interrupt hook while sorting: counts its calls */
static void
count_interrupt(void)
{
	sort_interrupts++;
}

/*
 * bst_sort_ids (an introsort that checks for interrupts) against qsort on
 * the inputs that break naive quicksorts: sorted, reversed, all equal, organ
 * pipe, few distinct values, median-of-three killers, random; and the
 * interrupt hook is called while a million ids are sorted.
 */
static void
test_sort_patterns(void)
{
	size_t		sizes[] = {2, 17, 100, 1000, 65537, 1000000};
	BstRng		rng;

	bst_rng_seed(&rng, 7);
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
	{
		size_t		n = sizes[si];
		int64_t    *a = malloc(n * sizeof(int64_t)),
				   *b = malloc(n * sizeof(int64_t));

		for (int pat = 0; pat < 7; pat++)
		{
			for (size_t i = 0; i < n; i++)
				a[i] = pat == 0 ? (int64_t) i :
					pat == 1 ? (int64_t) (n - i) :
					pat == 2 ? 42 :
					pat == 3 ? (int64_t) (i < n / 2 ? i : n - i) :
					pat == 4 ? (int64_t) (bst_rng_next(&rng) % 3) - 1 :
					pat == 5 ? (int64_t) ((i % 2) ? i : n + i / 2) :
					(int64_t) bst_rng_next(&rng);
			memcpy(b, a, n * sizeof(int64_t));
			qsort(b, n, sizeof(int64_t), cmp_ids);
			sort_interrupts = 0;
			bst_interrupt_hook = count_interrupt;
			bst_sort_ids(a, n);
			bst_interrupt_hook = NULL;
			CHECK(memcmp(a, b, n * sizeof(int64_t)) == 0, "sort of %zu ids, pattern %d = qsort", n, pat);
			if (n == 1000000)
				CHECK(sort_interrupts > 0, "sorting 10^6 ids (pattern %d) checks for interrupts (%d)",
					  pat, sort_interrupts);
		}
		free(a);
		free(b);
	}
}

/* bst_sort_ids and bst_sort_unique against an insertion sort, extremes included */
static void
test_sort(void)
{
	BstRng		rng;
	int64_t		a[600],
				b[600];
	size_t		n = sizeof(a) / sizeof(a[0]),
				nu,
				j = 0;

	bst_rng_seed(&rng, 42);
	for (size_t i = 0; i < n; i++)
	{
		uint64_t	r = bst_rng_next(&rng);

		/* a mix of full-range values, small values with repeats, and the extremes */
		a[i] = i % 3 == 0 ? (int64_t) r : i % 3 == 1 ? (int64_t) (r % 50) - 25 :
			(r & 1) ? INT64_MIN : INT64_MAX;
	}
	memcpy(b, a, sizeof(a));
	for (size_t i = 1; i < n; i++)
		for (size_t k = i; k > 0 && b[k - 1] > b[k]; k--)
		{
			int64_t		x = b[k];

			b[k] = b[k - 1];
			b[k - 1] = x;
		}
	bst_sort_ids(a, n);
	CHECK(memcmp(a, b, sizeof(a)) == 0, "bst_sort_ids equals the insertion sort");
	for (size_t i = 1; i < n; i++)
		if (b[i] != b[j])
			b[++j] = b[i];
	nu = bst_sort_unique(a, n);
	CHECK(nu == j + 1 && memcmp(a, b, nu * sizeof(int64_t)) == 0,
		  "bst_sort_unique gives the distinct sorted ids (%zu, oracle %zu)", nu, j + 1);
	bst_sort_ids(a, 0);
	CHECK(bst_sort_unique(a, 0) == 0, "empty input");
	test_sort_patterns();
}

/* sizing: the paper's Tables 2 and 3, the memory limit, accuracies that need no filter or cannot be met */
static void
test_plan(void)
{
	BstPlan		pl;

	/* the paper's Tables 2 and 3 (n = 1000, accuracy 0.9, k = 3) */
	CHECK_CLOSE(bst_plan_m(1000, 1e6, 0.9, 3), 60870, 0.001);
	CHECK_CLOSE(bst_plan_m(1000, 1e7, 0.9, 3), 132933, 0.001);
	CHECK_CLOSE(bst_plan_m(1000, 1e7, 0.5, 3), 63120, 0.001);
	CHECK(isnan(bst_plan_m(1000, 1e7, 1.0, 3)), "accuracy 1 is impossible");
	bst_plan_full(1000, 10000000, 0.9, 3, UINT64_C(1) << 30, &pl);
	CHECK(pl.depth > 0 && pl.memory_bytes <= (UINT64_C(1) << 30), "plan fits the limit");
	CHECK(pl.nodes == (2 << pl.depth) - 1, "plan nodes");
	/* expected_fp matches the accuracy: n / (n + (M - n) fp) ~ 0.9 */
	CHECK_CLOSE(1000 / (1000 + (1e7 - 1000) * pl.expected_fp), 0.9, 0.001);
	bst_plan_full(1000, 10000000, 0.9, 3, 64 << 20, &pl);
	CHECK(pl.memory_bytes <= (64 << 20), "plan lowers the depth to fit");
	/* an accuracy of n / M or less needs no filter: no m is planned */
	CHECK_CLOSE(bst_plan_target_fp(1000, 1e7, 0.9), 1000 * 0.1 / (0.9 * (1e7 - 1000)), 1e-12);
	CHECK(bst_plan_target_fp(4611686018427387904.0, 9223372036854775807.0, 0.5) >= 1.0,
		  "n = 2^62 of 2^63 - 1 at accuracy 0.5 asks fp >= 1");
	CHECK(isnan(bst_plan_m(4611686018427387904.0, 9223372036854775807.0, 0.5, 3)),
		  "no m when fp >= 1");
	CHECK(isnan(bst_plan_m(10, 100, 0.05, 3)) && !isnan(bst_plan_m(10, 100, 0.2, 3)),
		  "accuracy at or below n / M");
	bst_plan_full(10, 100, 0.05, 3, UINT64_C(1) << 30, &pl);
	CHECK(pl.m < 0, "bst_plan_full reports no plan");
}

/*
 * A query given with its set positions (a sparse stored value: bst_sample_pos,
 * bst_reconstruct_index_pos) gives exactly the samples and ids of the same
 * query given as bits alone, from the same generator state: few samples
 * (bucket trials), many (prefix sums), and the fallback to reconstruction.
 */
static void
test_query_positions(void)
{
	BsParams	p = {.m = 20000, .k = 3, .hash = BS_HASH_XXH3, .seed = 11};
	BsHasher	h;
	BstTree    *t;
	size_t		nwords = bs_words_for_bits(p.m);
	uint8_t    *q = calloc(nwords, 8);
	uint32_t   *pos = malloc(sizeof(uint32_t) * p.m);
	uint64_t	nq = 0;
	BstIdVec	a,
				b;
	int			rc;
	int64_t		ns[] = {1, 3, 50, 2000};

	bs_hasher_init(&h, &p);
	rc = bst_build_full(&p, 0, 200000, 8, false, &bst_alloc_malloc, &t);
	CHECK(rc == BST_OK, "build");
	for (int64_t x = 5; x < 200000; x += 397)
		bs_key_set(&h, bs_key_int64(&h, x), q);
	for (uint32_t i = 0; i < p.m; i++)
		if (bs_bit_test(q, i))
			pos[nq++] = i;
	for (int method = BST_SAMPLE_AUTO; method <= BST_SAMPLE_ENUMERATE; method++)
		for (size_t j = 0; j < sizeof(ns) / sizeof(ns[0]); j++)
		{
			BstRng		r1,
						r2;
			bool		same;

			bst_rng_seed(&r1, 42 + j);
			bst_rng_seed(&r2, 42 + j);
			bst_vec_init(&a, &bst_alloc_malloc);
			bst_vec_init(&b, &bst_alloc_malloc);
			rc = bst_sample(t, q, ns[j], (BstSampleMethod) method, true, &r1, &bst_alloc_malloc,
							&a, NULL, NULL);
			rc |= bst_sample_pos(t, q, pos, nq, ns[j], (BstSampleMethod) method, true, &r2,
								 &bst_alloc_malloc, &b, NULL, NULL);
			same = rc == BST_OK && a.n == b.n && a.n == (size_t) ns[j] &&
				memcmp(a.v, b.v, a.n * sizeof(int64_t)) == 0 &&
				bst_rng_below(&r1, 1u << 30) == bst_rng_below(&r2, 1u << 30);
			CHECK(same, "method %d, n = %lld: the same samples from bits and from positions",
				  method, (long long) ns[j]);
			bst_vec_free(&a);
			bst_vec_free(&b);
		}
	bst_vec_init(&a, &bst_alloc_malloc);
	bst_vec_init(&b, &bst_alloc_malloc);
	rc = bst_reconstruct_index(t, q, &a, NULL);
	rc |= bst_reconstruct_index_pos(t, q, pos, nq, &b, NULL);
	CHECK(rc == BST_OK && a.n == b.n && a.n > 400 && memcmp(a.v, b.v, a.n * sizeof(int64_t)) == 0,
		  "reconstruction from positions = from bits (%zu ids)", a.n);
	bst_vec_free(&a);
	bst_vec_free(&b);
	bst_tree_free(t);
	free(q);
	free(pos);
}

/*
 * Empty results: an empty query filter, n = 0 and an empty generated set give
 * no ids and leave the output vector unallocated (found by the sanitizer run:
 * the empty result was sorted through qsort(NULL, 0))
 */
static void
test_empty_results(void)
{
	BsParams	p = {.m = 4000, .k = 3, .hash = BS_HASH_LINEAR, .seed = 7};
	BsHasher	h;
	BstTree    *t;
	BstRng		rng;
	BstIdVec	out;
	uint8_t    *q = calloc(bs_words_for_bits(p.m), 8);
	bool		unset;
	int			rc;

	bs_hasher_init(&h, &p);
	bst_rng_seed(&rng, 3);
	rc = bst_build_full(&p, 1000, 21000, 6, false, &bst_alloc_malloc, &t);
	CHECK(rc == BST_OK, "build");
	for (int method = BST_SAMPLE_AUTO; method <= BST_SAMPLE_ENUMERATE; method++)
	{
		bst_vec_init(&out, &bst_alloc_malloc);
		rc = bst_sample(t, q, 10, (BstSampleMethod) method, true, &rng, &bst_alloc_malloc,
						&out, NULL, NULL);
		CHECK(rc == BST_OK && out.n == 0 && out.v == NULL, "empty filter: no samples (method %d)", method);
		rc = bst_sample(t, q, 0, (BstSampleMethod) method, true, &rng, &bst_alloc_malloc,
						&out, NULL, NULL);
		CHECK(rc == BST_OK && out.n == 0, "n = 0: no samples (method %d)", method);
	}
	rc = bst_reconstruct_tree(t, q, &out, NULL);
	CHECK(rc == BST_OK && out.n == 0, "empty filter: nothing reconstructed (tree)");
	rc = bst_reconstruct_index(t, q, &out, NULL);
	CHECK(rc == BST_OK && out.n == 0, "empty filter: nothing reconstructed (index)");
	rc = bst_dictionary_attack(&h, q, 0, 5000, &out, NULL);
	CHECK(rc == BST_OK && out.n == 0, "empty filter: dictionary attack");
	rc = bst_dictionary_sample(&h, q, 0, 5000, 10, &rng, &bst_alloc_malloc, &out, NULL);
	CHECK(rc == BST_OK && out.n == 0, "empty filter: dictionary sample");
	rc = bst_hashinvert(&h, q, 0, 5000, &bst_alloc_malloc, &out, NULL, &unset);
	CHECK(rc == BST_OK && out.n == 0, "empty filter: HashInvert");
	rc = bst_gen_clustered(0, 100, 0, 0.1, &rng, &bst_alloc_malloc, &out);
	CHECK(rc == BST_OK && out.n == 0 && out.v == NULL, "empty clustered set");
	bst_vec_free(&out);
	bst_tree_free(t);
	free(q);
}

/*
 * Result vectors with a limit: a saturated filter matches every id, and no
 * result (nor the positives a sample is drawn from) grows past the limit
 */
static void
test_result_limit(void)
{
	BsParams	p = {.m = 64, .k = 1, .hash = BS_HASH_XXH3, .seed = 0};
	BsHasher	h;
	BstTree    *t;
	BstRng		rng;
	BstIdVec	out;
	uint8_t    *q = malloc(8);
	int			rc;

	memset(q, 0xff, 8);
	bs_hasher_init(&h, &p);
	bst_rng_seed(&rng, 5);
	bst_vec_init_max(&out, &bst_alloc_malloc, 1000);
	for (int i = 0; i < 1000; i++)
		rc = bst_vec_push(&out, i);
	CHECK(rc == BST_OK && out.n == 1000 && out.cap == 1000, "up to the limit (cap %zu)", out.cap);
	CHECK(bst_vec_push(&out, 1000) == BST_ELIMIT && out.n == 1000, "past the limit");
	bst_vec_free(&out);

	bst_vec_init_max(&out, &bst_alloc_malloc, 5000);
	rc = bst_dictionary_attack(&h, q, 0, INT64_C(1) << 40, &out, NULL);
	CHECK(rc == BST_ELIMIT && out.n == 5000, "dictionary attack of a saturated filter stops at 5000");
	bst_vec_free(&out);

	rc = bst_build_full(&p, 0, 100000, 4, false, &bst_alloc_malloc, &t);
	CHECK(rc == BST_OK, "build");
	bst_vec_init_max(&out, &bst_alloc_malloc, 5000);
	CHECK(bst_reconstruct_tree(t, q, &out, NULL) == BST_ELIMIT, "tree reconstruction stops");
	bst_vec_free(&out);
	bst_vec_init_max(&out, &bst_alloc_malloc, 5000);
	CHECK(bst_sample(t, q, 10, BST_SAMPLE_AUTO, false, &rng, &bst_alloc_malloc, &out, NULL, NULL) ==
		  BST_ELIMIT, "sampling from the positives stops collecting them");
	bst_vec_free(&out);
	bst_vec_init_max(&out, &bst_alloc_malloc, 200000);
	CHECK(bst_reconstruct_index(t, q, &out, NULL) == BST_OK && out.n == 100000,
		  "within the limit: every id");
	bst_vec_free(&out);
	bst_tree_free(t);
	free(q);
}

/* ---- memory accounting against a counting allocator -------------------- */

/* live and peak bytes handed out (each block carries its size in a header) */
typedef struct CountingAlloc
{
	uint64_t	live;
	uint64_t	peak;
} CountingAlloc;

#define COUNT_HDR 16

/* a BstAlloc over malloc that tracks live and peak bytes (a size header before each block) */
/*
 * p, a block of size bytes after its header, counted live: the header holds
 * size, the peak rises; returns what the caller sees
 */
static void *
count_block(CountingAlloc *c, char *p, size_t size)
{
	memcpy(p, &size, sizeof(size));
	c->live += size;
	if (c->live > c->peak)
		c->peak = c->live;
	return p + COUNT_HDR;
}

static void *
count_alloc(void *ctx, size_t size)
{
	char	   *p = malloc(size + COUNT_HDR);

	if (!p)
		return NULL;
	return count_block(ctx, p, size);
}

static void *
count_realloc(void *ctx, void *ptr, size_t size)
{
	CountingAlloc *c = ctx;
	char	   *p = (char *) ptr - COUNT_HDR;
	size_t		old;

	memcpy(&old, p, sizeof(old));
	p = realloc(p, size + COUNT_HDR);
	if (!p)
		return NULL;
	p = count_block(c, p, size);
	c->live -= old;
	return p;
}

static void
count_free(void *ctx, void *ptr)
{
	CountingAlloc *c = ctx;
	char	   *p = (char *) ptr - COUNT_HDR;
	size_t		old;

	memcpy(&old, p, sizeof(old));
	c->live -= old;
	free(p);
}

/*
 * What a tree really allocates equals what the size functions predict before
 * the build and what bst_tree_bytes reports after it: tiny trees of huge
 * filters (one node, no slack), full and pruned trees with and without their
 * index, extensions (also of an empty tree), and the index's build peak.
 */
static void
test_memory(void)
{
	CountingAlloc c = {0, 0};
	BstAlloc	a = {count_alloc, count_realloc, count_free, &c};
	BsParams	big = {.m = UINT32_C(1) << 24, .k = 3, .hash = BS_HASH_XXH3, .seed = 0};
	BsParams	p = {.m = 30011, .k = 3, .hash = BS_HASH_XXH3, .seed = 1};
	BstTree    *t;
	BstRng		rng;
	BstIdVec	ids,
				more;
	int			rc;
	size_t		added;

	/* one node of a 2^24-bit filter: one filter allocated, not sixteen */
	rc = bst_build_full(&big, 0, 1000, 0, false, &a, &t);
	CHECK(rc == BST_OK && t->nnodes == 1, "tiny full tree");
	CHECK(c.live == bst_full_tree_bytes(1000, big.m, 0) && c.live == bst_tree_bytes(t),
		  "tiny full tree: allocated %lu, predicted %lu, reported %lu", (unsigned long) c.live,
		  (unsigned long) bst_full_tree_bytes(1000, big.m, 0), (unsigned long) bst_tree_bytes(t));
	CHECK(c.live < 2 * (big.m / 8), "tiny full tree holds one filter (%lu bytes)",
		  (unsigned long) c.live);
	bst_tree_free(t);
	CHECK(c.live == 0, "freed");

	/* full trees with the index built in the same pass, and on demand */
	for (int depth = 0; depth <= 6; depth += 3)
	{
		uint64_t	tree = bst_full_tree_bytes(5000, p.m, depth);

		c.peak = 0;
		rc = bst_build_full(&p, 100, 5100, depth, true, &a, &t);
		CHECK(rc == BST_OK && c.live == tree + bst_index_bytes(5000, p.m) &&
			  c.live == bst_tree_bytes(t),
			  "full depth %d with index: allocated %lu, predicted %lu", depth,
			  (unsigned long) c.live, (unsigned long) (tree + bst_index_bytes(5000, p.m)));
		CHECK(c.peak == tree + bst_index_build_bytes(5000, p.m),
			  "full depth %d: build peak %lu = tree + index build %lu", depth,
			  (unsigned long) c.peak, (unsigned long) (tree + bst_index_build_bytes(5000, p.m)));
		CHECK(bst_index_fits(tree, 5000, p.m, c.peak) &&
			  !bst_index_fits(tree, 5000, p.m, c.peak - 1), "index fits exactly at its peak");
		bst_tree_free(t);
		rc = bst_build_full(&p, 100, 5100, depth, false, &a, &t);
		CHECK(rc == BST_OK && c.live == tree && bst_tree_bytes(t) == tree, "full depth %d", depth);
		c.peak = c.live;
		rc = bst_index_build(t);
		CHECK(rc == BST_OK && c.live == bst_tree_bytes(t) &&
			  c.peak == tree + bst_index_build_bytes(5000, p.m), "index on demand");
		bst_tree_free(t);
		CHECK(c.live == 0, "freed");
	}

	/* pruned trees: clustered and scattered ids, several leaf spans */
	bst_rng_seed(&rng, 77);
	bst_vec_init(&ids, &bst_alloc_malloc);
	bst_vec_init(&more, &bst_alloc_malloc);
	for (int i = 0; i < 3000; i++)
		bst_vec_push(&ids, (int64_t) bst_rng_below(&rng, UINT64_C(1) << 40));
	for (int i = 0; i < 3000; i++)
		bst_vec_push(&ids, 123456 + i * 3);
	ids.n = bst_sort_unique(ids.v, ids.n);
	for (int i = 0; i < 500; i++)
		bst_vec_push(&more, (int64_t) bst_rng_below(&rng, UINT64_C(1) << 50));
	bst_vec_push(&more, INT64_MAX);
	more.n = bst_sort_unique(more.v, more.n);
	for (int bits = 0; bits <= 40; bits += 8)
	{
		uint64_t	tree = bst_pruned_tree_bytes(ids.v, ids.n, bits, p.m),
					grown;

		rc = bst_build_pruned(&p, ids.v, ids.n, bits, false, &a, &t);
		CHECK(rc == BST_OK && c.live == tree && bst_tree_bytes(t) == tree,
			  "pruned leaf bits %d: allocated %lu, predicted %lu, reported %lu", bits,
			  (unsigned long) c.live, (unsigned long) tree, (unsigned long) bst_tree_bytes(t));
		grown = bst_extended_tree_bytes(t, more.v, more.n);
		rc = bst_tree_extend(t, more.v, more.n, &added);
		CHECK(rc == BST_OK && added == more.n && c.live == grown && bst_tree_bytes(t) == grown,
			  "extended, leaf bits %d: allocated %lu, predicted %lu", bits,
			  (unsigned long) c.live, (unsigned long) grown);
		c.peak = c.live;
		rc = bst_index_build(t);
		CHECK(rc == BST_OK && c.live == bst_tree_bytes(t) &&
			  c.live == grown + bst_index_bytes(t->nids, p.m) &&
			  c.peak == grown + bst_index_build_bytes(t->nids, p.m), "pruned index");
		bst_tree_free(t);
		CHECK(c.live == 0, "freed");
		rc = bst_build_pruned(&p, ids.v, ids.n, bits, true, &a, &t);
		CHECK(rc == BST_OK && c.live == tree + bst_index_bytes(ids.n, p.m) &&
			  c.live == bst_tree_bytes(t), "pruned leaf bits %d with index", bits);
		bst_tree_free(t);
	}
	/* an empty pruned tree allocates no ids, and grows exactly */
	rc = bst_build_pruned(&p, NULL, 0, 4, false, &a, &t);
	CHECK(rc == BST_OK && c.live == bst_pruned_tree_bytes(NULL, 0, 4, p.m) &&
		  c.live == sizeof(BstTree), "empty pruned tree: %lu bytes", (unsigned long) c.live);
	{
		uint64_t	grown = bst_extended_tree_bytes(t, more.v, 3);

		rc = bst_tree_extend(t, more.v, 3, &added);
		CHECK(rc == BST_OK && c.live == grown && bst_tree_bytes(t) == grown,
			  "empty tree extended: %lu vs %lu", (unsigned long) c.live, (unsigned long) grown);
	}
	bst_tree_free(t);
	CHECK(c.live == 0, "freed");

	/* automatic pruned sizing: the cost model's leaves, widened to fit the limit */
	{
		int			model = bst_pruned_leaf_bits(ids.v, ids.n, bst_plan_leaf_size(p.m, 3));
		uint64_t	limit = bst_pruned_tree_bytes(ids.v, ids.n, model + 3, p.m);

		CHECK(bst_plan_pruned_leaf_bits(ids.v, ids.n, p.m, 3, UINT64_C(1) << 40) == model,
			  "a generous limit keeps the cost model's leaves");
		CHECK(bst_plan_pruned_leaf_bits(ids.v, ids.n, p.m, 3, limit) == model + 3 &&
			  bst_pruned_tree_bytes(ids.v, ids.n, model + 2, p.m) > limit,
			  "a tight limit widens the leaves just enough");
	}
	CHECK(bst_leaf_bits_for_span(1) == 0 && bst_leaf_bits_for_span(2) == 1 &&
		  bst_leaf_bits_for_span(3) == 2 && bst_leaf_bits_for_span(1024) == 10 &&
		  bst_leaf_bits_for_span(INT64_MAX) == 62, "leaf bits of a span");
	bst_vec_free(&ids);
	bst_vec_free(&more);
}

/* timings for the record (not asserted): the paper's default configuration */
static void
bench_default(void)
{
	BsParams	p = {.k = 3, .hash = BS_HASH_XXH3, .seed = 0};
	BsHasher	h;
	BstRng		rng;
	BstIdVec	set,
				out;
	BstTree    *t;
	uint8_t    *q;
	int64_t		M = 1000000;
	double		t0,
				tb,
				tda,
				tix,
				ts1,
				tsn;
	int			depth;

	if (!getenv("BST_UNIT_BENCH"))
		return;
	p.m = (uint32_t) bst_plan_m(1000, (double) M, 0.9, 3);
	bs_hasher_init(&h, &p);
	bst_rng_seed(&rng, 1);
	bst_vec_init(&set, &bst_alloc_malloc);
	bst_vec_init(&out, &bst_alloc_malloc);
	uniform_set(&rng, 0, M, 1000, &set);
	q = make_filter(&h, set.v, set.n);
	depth = bst_plan_depth((uint64_t) M, p.m, 3, 0, UINT64_C(1) << 30);
	t0 = now_ns();
	bst_build_full(&p, 0, M, depth, false, &bst_alloc_malloc, &t);
	tb = now_ns() - t0;
	t0 = now_ns();
	bst_dictionary_attack(&h, q, 0, M, &out, NULL);
	tda = now_ns() - t0;
	out.n = 0;
	bst_index_build(t);
	t0 = now_ns();
	bst_reconstruct_index(t, q, &out, NULL);
	tix = now_ns() - t0;
	out.n = 0;
	t0 = now_ns();
	for (int i = 0; i < 100; i++)
		bst_sample(t, q, 1, BST_SAMPLE_DESCENT, false, &rng, &bst_alloc_malloc, &out, NULL, NULL);
	ts1 = (now_ns() - t0) / 100;
	out.n = 0;
	t0 = now_ns();
	bst_sample(t, q, 1000, BST_SAMPLE_DESCENT, false, &rng, &bst_alloc_malloc, &out, NULL, NULL);
	tsn = (now_ns() - t0) / 1000;
	printf("  bench M=%ld m=%u depth=%d build %.1f ms, DA %.2f ms, index %.3f ms (x%.0f), "
		   "1-sample %.1f us (x%.0f), per-sample of 1000 %.2f us\n",
		   (long) M, p.m, depth, tb / 1e6, tda / 1e6, tix / 1e6, tda / tix, ts1 / 1e3,
		   tda / ts1, tsn / 1e3);
	free(q);
	bst_vec_free(&set);
	bst_vec_free(&out);
	bst_tree_free(t);
}

/*
 * The packed index: entries of every width read back as written (an oracle
 * writing bit by bit), and the index of built trees (full and pruned, k = 1
 * and 3, counts and m at and around powers of two) holds exactly every id,
 * once, ids ascending within a bucket, each in the bucket an independent
 * replay of the filing gives (the least loaded of its positions when it
 * comes, in id order, ties to the earliest), with another of its positions
 * (the first; the second when filed under the first); and that filing keeps
 * the largest bucket below what filing by the first position gives.
 */
static void
test_index_layout(void)
{
	uint64_t	seed = 7;

	for (uint32_t W = 2; W <= 63; W++)
	{
		enum
		{
			NE = 1000
		};
		uint64_t	vals[NE];
		uint64_t   *words = calloc((NE * 63 + 63) / 64 + 1, sizeof(uint64_t));
		BstIndex	ix;
		int			bad = 0;

		memset(&ix, 0, sizeof(ix));
		ix.entries = words;
		ix.entry_bits = W;
		ix.off_bits = W / 2;
		ix.off_mask = (UINT64_C(1) << ix.off_bits) - 1;
		ix.entry_mask = (UINT64_C(1) << W) - 1;
		for (int e = 0; e < NE; e++)
		{
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			vals[e] = (seed >> 1) & ix.entry_mask;
			for (uint32_t b = 0; b < W; b++)
				if ((vals[e] >> b) & 1)
				{
					uint64_t	bit = (uint64_t) e * W + b;

					words[bit >> 6] |= UINT64_C(1) << (bit & 63);
				}
		}
		for (int e = 0; e < NE; e++)
		{
			uint64_t	v = bst_index_entry(&ix, e);

			if (v != vals[e] || bst_entry_off(&ix, v) != (vals[e] & ix.off_mask) ||
				bst_entry_pos1(&ix, v) != (vals[e] >> ix.off_bits))
				bad++;
		}
		CHECK(bad == 0, "packed entries of %u bits read back (%d wrong)", W, bad);
		free(words);
	}

	{
		struct
		{
			int			pruned;
			int64_t		n;
			uint32_t	m;
			int			k;
		}			cases[] = {
			{0, 65536, 1024, 3}, {0, 65537, 1025, 3}, {0, 65535, 1023, 1},
			{0, 1, 64, 3}, {0, 2, 64, 2}, {1, 4096, 4096, 3}, {1, 4097, 4095, 1},
			{1, 1, 64, 3}, {0, 300000, 131071, 3}, {0, 100000, 4096, 2},
			{1, 50000, 1024, 7},
		};

		for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		{
			BsParams	p = {cases[c].m, (uint8_t) cases[c].k, BS_HASH_XXH3, 11};
			BstTree    *t = NULL;
			int64_t		N = cases[c].n;
			int64_t    *ids = malloc((size_t) N * sizeof(int64_t));
			uint8_t    *seen = calloc((size_t) N, 1);
			uint32_t   *home = malloc((size_t) N * sizeof(uint32_t));
			uint32_t   *other = malloc((size_t) N * sizeof(uint32_t));
			uint32_t   *load = calloc(p.m, sizeof(uint32_t));
			uint32_t   *first = calloc(p.m, sizeof(uint32_t));
			uint32_t	max_first = 0,
						max_home = 0;
			int			rc,
						bad = 0;
			uint32_t	ob;

			for (int64_t i = 0; i < N; i++)
				ids[i] = 3 * i + (i % 2);	/* sorted, distinct, gaps */
			rc = cases[c].pruned ?
				bst_build_pruned(&p, ids, (size_t) N, 4, true, &bst_alloc_malloc, &t) :
				bst_build_full(&p, 100, 100 + N, 0, true, &bst_alloc_malloc, &t);
			CHECK(rc == BST_OK && t->index, "case %zu built with its index", c);
			if (rc != BST_OK)
				continue;
			CHECK(t->index->entry_bits == bst_index_entry_bits((uint64_t) N, p.m, &ob) &&
				  t->index->off_bits == ob && t->index->nentries == (uint64_t) N,
				  "case %zu: entry width", c);
			/* the oracle: the filing replayed here, not through bst_index_choose */
			for (int64_t i = 0; i < N; i++)
			{
				uint32_t	pos[BS_MAX_K];
				int64_t		x = cases[c].pruned ? ids[i] : 100 + i;
				int			best = 0;

				bs_key_positions(&t->hasher, bs_key_int64(&t->hasher, x), pos);
				for (int j = 1; j < p.k; j++)
					if (load[pos[j]] < load[pos[best]])
						best = j;
				home[i] = pos[best];
				other[i] = p.k == 1 ? pos[0] : pos[best == 0 ? 1 : 0];
				if (++load[home[i]] > max_home)
					max_home = load[home[i]];
				if (++first[pos[0]] > max_first)
					max_first = first[pos[0]];
			}
			CHECK(t->index->max_bucket == max_home &&
				  (p.k == 1 ? max_home == max_first : N < 1000 || max_home < max_first),
				  "case %zu: largest bucket %u (the replay's %u; by first position %u)",
				  c, t->index->max_bucket, max_home, max_first);
			for (uint32_t b = 0; b < p.m; b++)
			{
				int64_t		prev = -1;

				for (uint32_t e = t->index->start[b]; e < t->index->start[b + 1]; e++)
				{
					uint64_t	v = bst_index_entry(t->index, e);
					uint32_t	off = bst_entry_off(t->index, v);

					if (off >= (uint64_t) N || seen[off] || (int64_t) off <= prev)
					{
						bad++;
						continue;
					}
					seen[off] = 1;
					prev = off;
					if (home[off] != b || bst_entry_pos1(t->index, v) != other[off])
						bad++;
				}
			}
			for (int64_t i = 0; i < N; i++)
				bad += !seen[i];
			CHECK(bad == 0, "case %zu (%s, N=%ld, m=%u, k=%d): every id once, in its bucket (%d wrong)",
				  c, cases[c].pruned ? "pruned" : "full", (long) N, p.m, p.k, bad);
			bst_tree_free(t);
			free(ids);
			free(seen);
			free(home);
			free(other);
			free(load);
			free(first);
		}
	}
}

/*
 * Distinct samples (issue 37) from 23 members of a namespace of 200,000:
 * for each method (AUTO with the index, i.e. rejection of repeats; AUTO
 * without it, the tree walk and a partial Fisher-Yates shuffle; SCAN;
 * ENUMERATE), 10^4 calls of n = 10 and of n = 20 (reconstruction and
 * shuffle) give n distinct members of the dictionary attack's set in every
 * call, and pass chi-squared tests of uniformity over the members and over
 * the pairs of members (the counts of a member are Binomial(T, n/P), so
 * each term is divided by 1 - n/P; likewise for pairs); n = 30 gives all
 * members.  DESCENT gives distinct members.
 */
static int
cmp_i64(const void *a, const void *b)
{
	int64_t		x = *(const int64_t *) a,
				y = *(const int64_t *) b;

	return (x > y) - (x < y);
}

/* the index of x in the sorted pos, or -1 */
static long
pos_index(const BstIdVec *pos, int64_t x)
{
	int64_t    *hit = bsearch(&x, pos->v, pos->n, sizeof(int64_t), cmp_i64);

	return hit ? (long) (hit - pos->v) : -1;
}

static void
check_distinct(BstTree *t, const uint8_t *q, const BstIdVec *pos, BstSampleMethod method,
			   bool allow_index, int64_t n, const char *what)
{
	const int	T = 10000;
	size_t		P = pos->n,
				npairs = P * (P - 1) / 2;
	double	   *o = calloc(P, sizeof(double));
	double	   *o2 = calloc(npairs, sizeof(double));
	bool		ok = true;
	BstRng		rng;
	double		p1 = (double) n / (double) P,
				p2 = p1 * (double) (n - 1) / (double) (P - 1),
				e1 = T * p1,
				e2 = T * p2,
				q1 = 0,
				q2 = 0;

	bst_rng_seed(&rng, 37 + (uint64_t) n + 100 * (uint64_t) method + (allow_index ? 7 : 0));
	for (int i = 0; i < T && ok; i++)
	{
		BstIdVec	s;
		long		ix[64];
		int			rc;

		bst_vec_init(&s, &bst_alloc_malloc);
		rc = bst_sample_distinct_pos(t, q, NULL, 0, n, method, allow_index, &rng,
									 &bst_alloc_malloc, &s, NULL, NULL);
		ok = rc == BST_OK && s.n == (size_t) n;
		for (size_t a = 0; ok && a < s.n; a++)
		{
			ix[a] = pos_index(pos, s.v[a]);
			ok = ix[a] >= 0;
			for (size_t b = 0; ok && b < a; b++)
				ok = ix[b] != ix[a];
		}
		for (size_t a = 0; ok && a < s.n; a++)
		{
			o[ix[a]]++;
			for (size_t b = 0; b < a; b++)
			{
				long		lo = ix[a] < ix[b] ? ix[a] : ix[b],
							hi = ix[a] < ix[b] ? ix[b] : ix[a];

				/* pairs (lo, hi), lo < hi, numbered row by row */
				o2[(size_t) lo * (2 * P - (size_t) lo - 1) / 2 + (size_t) (hi - lo - 1)]++;
			}
		}
		bst_vec_free(&s);
	}
	CHECK(ok, "%s, n = %lld: every call gives n distinct members", what, (long long) n);
	for (size_t i = 0; i < P; i++)
		q1 += (o[i] - e1) * (o[i] - e1) / (e1 * (1 - p1));
	for (size_t i = 0; i < npairs; i++)
		q2 += (o2[i] - e2) * (o2[i] - e2) / (e2 * (1 - p2));
	CHECK(q1 < chi2_crit((double) P - 1, 3.09),
		  "%s, n = %lld: members uniform (chi2 %.1f, critical %.1f)", what, (long long) n,
		  q1, chi2_crit((double) P - 1, 3.09));
	/*
	 * pairs sharing a member are correlated, which widens Q's spread beyond
	 * chi2(npairs - 1) as n / P grows: tested up to n = P / 2
	 */
	if (2 * (size_t) n <= P)
		CHECK(q2 < chi2_crit((double) npairs - 1, 3.09),
			  "%s, n = %lld: pairs uniform (chi2 %.1f, critical %.1f)", what, (long long) n,
			  q2, chi2_crit((double) npairs - 1, 3.09));
	free(o);
	free(o2);
}

static void
test_distinct(void)
{
	BsParams	p = {.m = 20000, .k = 3, .hash = BS_HASH_XXH3, .seed = 5};
	BsHasher	h;
	BstTree    *t;
	BstRng		rng;
	BstIdVec	set,
				pos,
				all;
	uint8_t    *q;
	int			rc;

	bs_hasher_init(&h, &p);
	bst_rng_seed(&rng, 2337);
	bst_vec_init(&set, &bst_alloc_malloc);
	uniform_set(&rng, 0, 200000, 23, &set);
	q = make_filter(&h, set.v, set.n);
	bst_vec_init(&pos, &bst_alloc_malloc);
	rc = bst_dictionary_attack(&h, q, 0, 200000, &pos, NULL);
	rc |= bst_build_full(&p, 0, 200000, 8, false, &bst_alloc_malloc, &t);
	CHECK(rc == BST_OK && pos.n >= 23, "distinct: tree and oracle (%zu members)", pos.n);
	/* without the index first: AUTO then walks the tree */
	check_distinct(t, q, &pos, BST_SAMPLE_AUTO, false, 10, "auto, tree walk");
	check_distinct(t, q, &pos, BST_SAMPLE_AUTO, true, 10, "auto, index (rejection)");
	check_distinct(t, q, &pos, BST_SAMPLE_AUTO, true, 20, "auto, index (shuffle)");
	check_distinct(t, q, &pos, BST_SAMPLE_ENUMERATE, true, 10, "enumerate");
	check_distinct(t, q, &pos, BST_SAMPLE_SCAN, true, 10, "scan");
	check_distinct(t, q, &pos, BST_SAMPLE_SCAN, true, 20, "scan, n = 20");
	for (int method = BST_SAMPLE_AUTO; method <= BST_SAMPLE_SCAN; method++)
	{
		bst_vec_init(&all, &bst_alloc_malloc);
		rc = bst_sample_distinct_pos(t, q, NULL, 0, 30, (BstSampleMethod) method, true, &rng,
									 &bst_alloc_malloc, &all, NULL, NULL);
		if (all.n > 0)
			qsort(all.v, all.n, sizeof(int64_t), cmp_i64);
		if (method == BST_SAMPLE_DESCENT)
		{
			bool		ok = rc == BST_OK && all.n == pos.n;

			CHECK(ok && same_vec(&all, &pos), "descent: n > members gives all members");
		}
		else
			CHECK(rc == BST_OK && same_vec(&all, &pos),
				  "method %d: n = 30 > %zu members gives all of them", method, pos.n);
		bst_vec_free(&all);
		/* n = 10 distinct by descent (only distinctness: descent is approximate) */
		bst_vec_init(&all, &bst_alloc_malloc);
		rc = bst_sample_distinct_pos(t, q, NULL, 0, 10, BST_SAMPLE_DESCENT, true, &rng,
									 &bst_alloc_malloc, &all, NULL, NULL);
		qsort(all.v, all.n, sizeof(int64_t), cmp_i64);
		{
			bool		ok = rc == BST_OK && all.n == 10;

			for (size_t i = 1; ok && i < all.n; i++)
				ok = all.v[i] != all.v[i - 1] && pos_index(&pos, all.v[i]) >= 0;
			CHECK(ok, "descent: 10 distinct members");
		}
		bst_vec_free(&all);
	}
	/*
	 * a namespace starting at INT64_MIN (the id set's free mark): that id is
	 * drawn like any other, and never twice in a draw
	 */
	{
		BstTree    *t2;
		int64_t		lo = INT64_MIN;
		int64_t		ids[20];
		uint8_t    *q2;
		int			seen_min = 0;
		bool		ok = true;

		for (int i = 0; i < 20; i++)
			ids[i] = lo + 37 * i;
		q2 = make_filter(&h, ids, 20);
		rc = bst_build_full(&p, lo, lo + 5000, 4, false, &bst_alloc_malloc, &t2);
		for (int d = 0; ok && rc == BST_OK && d < 500; d++)
		{
			bst_vec_init(&all, &bst_alloc_malloc);
			rc = bst_sample_distinct_pos(t2, q2, NULL, 0, 5, BST_SAMPLE_AUTO, true, &rng,
										 &bst_alloc_malloc, &all, NULL, NULL);
			qsort(all.v, all.n, sizeof(int64_t), cmp_i64);
			ok = all.n == 5;
			for (size_t i = 0; ok && i < all.n; i++)
				ok = (i == 0 || all.v[i] != all.v[i - 1]) &&
					bs_key_test(&h, bs_key_int64(&h, all.v[i]), q2);
			seen_min += all.n > 0 && all.v[0] == INT64_MIN;
			bst_vec_free(&all);
		}
		CHECK(rc == BST_OK && ok && seen_min > 50,
			  "namespace from INT64_MIN: 5 distinct members a draw, INT64_MIN in %d of 500",
			  seen_min);
		bst_tree_free(t2);
		free(q2);
	}
	/* an empty filter: nothing, whatever n */
	memset(q, 0, bs_words_for_bits(p.m) * 8);
	bst_vec_init(&all, &bst_alloc_malloc);
	rc = bst_sample_distinct_pos(t, q, NULL, 0, 10, BST_SAMPLE_AUTO, true, &rng,
								 &bst_alloc_malloc, &all, NULL, NULL);
	CHECK(rc == BST_OK && all.n == 0, "distinct from an empty filter: nothing");
	bst_vec_free(&all);
	bst_tree_free(t);
	bst_vec_free(&set);
	bst_vec_free(&pos);
	free(q);
}

/*
 * The automatic way (issue 37): reconstruction by the index, the tree walk
 * and the scan give the dictionary attack's set, on both sides of the
 * crossover of the cost model (a sparse filter: the index; a filter 60%
 * full: the scan), for a full and a pruned tree; AUTO's 100 samples of the
 * sparse filter come from the index, its 10^5 samples of the dense one (more
 * than an eighth of the candidates in trials) from the scan, all members.
 */
static void
test_choose(void)
{
	BsParams	p = {.m = 8192, .k = 3, .hash = BS_HASH_XXH3, .seed = 9};
	BsHasher	h;
	BstRng		rng;
	int64_t		nmem[2] = {40, 2500};	/* fill about 1.5% and 60% */

	bs_hasher_init(&h, &p);
	bst_rng_seed(&rng, 4242);
	for (int kind = 0; kind < 2; kind++)
		for (int d = 0; d < 2; d++)
		{
			BstTree    *t;
			BstIdVec	set,
						ids,
						oracle;
			uint8_t    *q;
			uint64_t	tq;
			BstWay		want = d ? BST_WAY_SCAN : BST_WAY_INDEX;
			int			rc;

			bst_vec_init(&set, &bst_alloc_malloc);
			bst_vec_init(&ids, &bst_alloc_malloc);
			bst_vec_init(&oracle, &bst_alloc_malloc);
			if (kind == 0)
				rc = bst_build_full(&p, 0, 50000, 6, true, &bst_alloc_malloc, &t);
			else
			{
				/* a pruned tree over 30,000 ids of [0, 10^6) */
				uniform_set(&rng, 0, 1000000, 30000, &ids);
				rc = bst_build_pruned(&p, ids.v, ids.n, 10, true, &bst_alloc_malloc, &t);
			}
			if (kind == 0)
				uniform_set(&rng, 0, 50000, nmem[d], &set);
			else
			{
				for (int64_t i = 0; i < nmem[d]; i++)
					bst_vec_push(&set, ids.v[bst_rng_below(&rng, ids.n)]);
			}
			q = make_filter(&h, set.v, set.n);
			tq = bs_popcount(q, t->nwords);
			if (kind == 0)
				rc |= bst_dictionary_attack(&h, q, 0, 50000, &oracle, NULL);
			else
				for (size_t i = 0; i < ids.n; i++)
					if (bs_key_test(&h, bs_key_int64(&h, ids.v[i]), q))
						bst_vec_push(&oracle, ids.v[i]);
			CHECK(rc == BST_OK && bst_reconstruct_choose(t, tq, true) == want,
				  "%s tree, fill %.2f: auto chooses the %s", kind ? "pruned" : "full",
				  (double) tq / p.m, d ? "scan" : "index");
			CHECK(bst_reconstruct_choose(t, tq, false) == BST_WAY_TREE || t->index,
				  "without room for the index: the tree walk");
			for (int way = BST_WAY_INDEX; way <= BST_WAY_SCAN; way++)
			{
				BstIdVec	r;

				bst_vec_init(&r, &bst_alloc_malloc);
				rc = bst_reconstruct_way(t, q, NULL, 0, (BstWay) way, &r, NULL);
				CHECK(rc == BST_OK && same_vec(&r, &oracle),
					  "%s tree, fill %.2f, way %d: the dictionary attack's %zu ids",
					  kind ? "pruned" : "full", (double) tq / p.m, way, oracle.n);
				bst_vec_free(&r);
			}
			{
				BstIdVec	s;
				BstSampleInfo info;
				bool		ok;

				bst_vec_init(&s, &bst_alloc_malloc);
				int64_t		ns = d ? 100000 : 100;

				rc = bst_sample(t, q, ns, BST_SAMPLE_AUTO, true, &rng, &bst_alloc_malloc, &s,
								NULL, &info);
				ok = rc == BST_OK && s.n == (size_t) ns &&
					info.used == (d ? BST_SAMPLE_SCAN : BST_SAMPLE_ENUMERATE);
				for (size_t i = 0; ok && i < s.n; i++)
					ok = pos_index(&oracle, s.v[i]) >= 0;
				CHECK(ok, "%s tree, fill %.2f: auto samples by %s, all members",
					  kind ? "pruned" : "full", (double) tq / p.m, d ? "scan" : "index");
				bst_vec_free(&s);
			}
			bst_tree_free(t);
			free(q);
			bst_vec_free(&set);
			bst_vec_free(&ids);
			bst_vec_free(&oracle);
		}
}

/* runs every test above; exit status 0 when all passed (UNIT_DONE) */
/*
 * bst_rng_below_pair (the bucket trials' draws): both values in range, each
 * uniform and the two independent, by chi-squared over the cells of
 * a in [0, 3) x (b below or above nb / 2), with nb = 2^31 + 1, where about
 * half the draws fall in b's biased region and are drawn again, and with
 * small bounds (a in [0, 5), b in [0, 7)), where the redraws are rare
 */
static void
test_rng_pair(void)
{
	static const uint32_t na[2] = {3, 5},
				nb[2] = {UINT32_C(0x80000001), 7};

	for (int c = 0; c < 2; c++)
	{
		uint64_t	cnt[5][7] = {{0}};
		int			nbc = c == 0 ? 2 : 7;	/* cells of b */
		int			draws = 350000;
		double		Q = 0,
					expect = (double) draws / (na[c] * nbc);
		bool		in_range = true;
		BstRng		rng;

		bst_rng_seed(&rng, 38 + c);
		for (int i = 0; i < draws; i++)
		{
			uint32_t	a,
						b;

			bst_rng_below_pair(&rng, na[c], nb[c], &a, &b);
			in_range &= a < na[c] && b < nb[c];
			if (a < na[c] && b < nb[c])
				cnt[a][c == 0 ? (int) (b > nb[c] / 2) : (int) b]++;
		}
		/* b above nb / 2 (c == 0): nb / 2 of nb values, a hair under half */
		for (uint32_t a = 0; a < na[c]; a++)
			for (int j = 0; j < nbc; j++)
			{
				double		e = c == 0 ? (double) draws / na[c] *
					(j ? (double) (nb[c] / 2) : (double) (nb[c] - nb[c] / 2)) / nb[c] : expect;

				Q += (cnt[a][j] - e) * (cnt[a][j] - e) / e;
			}
		CHECK(in_range, "rng pair %d: every value in range", c);
		CHECK(Q < chi2_crit((double) (na[c] * nbc - 1), 3.09),
			  "rng pair %d: chi2 %.1f < %.1f", c, Q, chi2_crit((double) (na[c] * nbc - 1), 3.09));
	}
}

int
main(void)
{
	test_rng_pair();
	test_sort();
	test_plan();
	test_index_layout();
	test_full();
	test_pruned();
	test_memory();
	test_empty_results();
	test_query_positions();
	test_result_limit();
	test_distinct();
	test_choose();
	bench_default();
	return UNIT_DONE();
}
