/*
 * bst_method.c
 *    Which way a BloomSampleTree reconstruction goes (the index, the tree
 *    walk or the scan of every id, by the cost model of bst_plan.h), and
 *    distinct samples (rejection of repeats, or reconstruction and a partial
 *    Fisher-Yates shuffle).  It calls down into bst_query.c (which follows
 *    the way chosen), never the reverse.  See bst_query.h; issue 37.
 */
#include <string.h>

#include "bst_baseline.h"
#include "bst_plan.h"
#include "bst_query.h"

BstWay
bst_reconstruct_choose(const BstTree *t, uint64_t tq, bool allow_index)
{
	if (!t->index && !allow_index)
		return BST_WAY_TREE;
	if (bst_cost_index_reconstruct(bst_tree_nids(t), t->p.m, t->p.k, tq) >
		bst_cost_scan(bst_tree_nids(t), t->p.m, t->p.k, tq))
		return BST_WAY_SCAN;
	return BST_WAY_INDEX;
}

/*
 * A set of ids: open addressing over a power-of-two table of at least twice
 * the ids it will hold; INT64_MIN marks a free slot, and the id INT64_MIN
 * (a full tree's namespace may start there) is kept in has_min instead
 */
typedef struct IdSet
{
	int64_t    *slot;
	uint64_t	mask;
	bool		has_min;
} IdSet;

#define IDSET_FREE	INT64_MIN

/* true when x was added, false when it was there already */
static inline bool
idset_add(IdSet *s, int64_t x)
{
	uint64_t	h = (uint64_t) x * UINT64_C(0x9E3779B97F4A7C15);

	if (x == IDSET_FREE)
	{
		bool		added = !s->has_min;

		s->has_min = true;
		return added;
	}

	for (uint64_t i = (h >> 17) & s->mask;; i = (i + 1) & s->mask)
	{
		if (s->slot[i] == x)
			return false;
		if (s->slot[i] == IDSET_FREE)
		{
			s->slot[i] = x;
			return true;
		}
	}
}

/*
 * n distinct samples by drawing with replacement (method) and rejecting
 * repeats; appends them to out.  Returns BST_OK with *done false (and out
 * as it was) when the repeats took more than 4n + 64 draws, or when the
 * members ran out (fewer than n): the caller then reconstructs.
 */
static int
distinct_by_rejection(BstTree *t, const uint8_t *q, const uint32_t *qpos, uint64_t nq,
					  int64_t n, BstSampleMethod method, bool allow_index, BstRng *rng,
					  const BstAlloc *scratch, BstIdVec *out, BstStats *st,
					  BstSampleInfo *info, bool *done)
{
	size_t		first = out->n;
	uint64_t	cap = 16,
				drawn = 0,
				budget = 4 * (uint64_t) n + 64;
	int64_t		got = 0;
	IdSet		set;
	BstIdVec	batch;
	int			rc = BST_OK;

	*done = false;
	while (cap < 2 * (uint64_t) n)
		cap *= 2;
	set.mask = cap - 1;
	set.has_min = false;
	set.slot = scratch->alloc(scratch->ctx, cap * sizeof(int64_t));
	if (!set.slot)
		return BST_ENOMEM;
	for (uint64_t i = 0; i < cap; i++)
		set.slot[i] = IDSET_FREE;
	bst_vec_init(&batch, scratch);
	while (got < n && drawn <= budget)
	{
		batch.n = 0;
		/* draws are independent and uniform: a batch is as good as one at a time */
		rc = bst_sample_pos(t, q, qpos, nq, n - got, method, allow_index, rng, scratch,
							&batch, st, info);
		if (rc != BST_OK || batch.n == 0)
			break;				/* an error, or no member at all */
		for (size_t i = 0; i < batch.n && got < n; i++)
		{
			drawn++;
			if (idset_add(&set, batch.v[i]))
			{
				if ((rc = bst_vec_push(out, batch.v[i])) != BST_OK)
					break;
				got++;
			}
		}
		if (rc != BST_OK)
			break;
	}
	*done = rc == BST_OK && (got == n || batch.n == 0);
	if (!*done)
		out->n = first;
	bst_vec_free(&batch);
	scratch->free(scratch->ctx, set.slot);
	return rc;
}

int
bst_sample_distinct_pos(BstTree *t, const uint8_t *q, const uint32_t *qpos, uint64_t nq,
						int64_t n, BstSampleMethod method, bool allow_index, BstRng *rng,
						const BstAlloc *scratch, BstIdVec *out, BstStats *st,
						BstSampleInfo *info)
{
	BstStats	dummy_st;
	BstSampleInfo dummy_info;
	uint64_t	tq = qpos ? nq : bs_popcount(q, t->nwords);
	BstSampleMethod used;
	BstWay		way;
	BstIdVec	all;
	int			rc;

	if (!st)
		st = &dummy_st;
	if (!info)
		info = &dummy_info;
	memset(info, 0, sizeof(*info));
	used = bst_sample_resolve(t, tq, n, method, allow_index);
	info->used = used;
	if (n <= 0)
		return BST_OK;
	if (used == BST_SAMPLE_ENUMERATE || used == BST_SAMPLE_DESCENT)
	{
		/* the members the tree is expected to report */
		double		expect = bst_cost_members(bst_tree_nids(t), t->p.m, t->p.k, tq);
		bool		done = false;

		if ((double) n * 2.0 <= expect)
		{
			rc = distinct_by_rejection(t, q, qpos, nq, n, used, allow_index, rng, scratch,
									   out, st, info, &done);
			info->used = used;
			if (rc != BST_OK || done)
				return rc;
		}
	}
	/* reconstruct, then a partial Fisher-Yates shuffle of n of the members */
	if (used == BST_SAMPLE_SCAN)
		way = BST_WAY_SCAN;
	else if (used == BST_SAMPLE_AUTO)
		way = BST_WAY_TREE;
	else
		way = bst_reconstruct_choose(t, tq, allow_index);
	bst_vec_init_max(&all, scratch, out->max);
	rc = bst_reconstruct_way(t, q, qpos, nq, way, &all, st);
	for (size_t i = 0; rc == BST_OK && i < all.n && (int64_t) i < n; i++)
	{
		size_t		j = i + (size_t) bst_rng_below(rng, all.n - i);
		int64_t		x = all.v[j];

		all.v[j] = all.v[i];
		all.v[i] = x;
		rc = bst_vec_push(out, x);
	}
	bst_vec_free(&all);
	return rc;
}
