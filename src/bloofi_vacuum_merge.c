/*
 * bloofi_vacuum_merge.c
 *    The merges of a Bloofi VACUUM (amvacuumcleanup, bloofi_vacuum.c): post-
 *    order, a child with fewer than d children is merged with its closest
 *    sibling into one new node (the paper's delete, section 3.2, done in
 *    bulk), or its children are redistributed when the two would overflow;
 *    nodes much wider than their children need are repacked; a root with one
 *    child gives way to it.  Each change writes the new nodes whole, then
 *    one record switches them in, then the old ones are retired
 *    (bloofi_freespace_retire), as inserts do (docs/bloofi.md, "VACUUM").
 */
#include "postgres.h"

#include "commands/vacuum.h"

#include "bloofi.h"
#include "bloofi_tree.h"

typedef struct MergeCtx
{
	Relation	index;
	BloofiMetaData *meta;
	uint32		d;
	uint32		fbytes;
	size_t		nwords;
	uint32		oldpages[2];	/* pages of the children being replaced */
	BlockNumber retired_pages;	/* pages of the nodes merges took out of the
								 * tree */
} MergeCtx;

/*
 * Replace children in slots olds[0..nold) of X (first blocks oldstart[]) by
 * nnew new nodes (values newvals) in the free slots freeslots[] (from
 * bloofi_node_switch_slots): columns first, then one record switching the
 * slots (bloofi_node_switch), then the old children retired (their vacated
 * columns keep their bits: see bloofi_replace).
 */
static void
bloofi_merge_switch(MergeCtx *mc, BloofiNode *X, int nold, const uint32 *olds,
					const BlockNumber *oldstart, int nnew, const uint32 *freeslots,
					const BlockNumber *news, uint8 *const *newvals)
{
	bloofi_node_put_columns(mc->index, X, nnew, freeslots, (const uint8 *const *) newvals);
	bloofi_node_switch(mc->index, X, nold, olds, nnew, freeslots, news, nold, oldstart);
	for (int i = 0; i < nold; i++)
		bloofi_freespace_retire(mc->index, oldstart[i]);
	for (int i = 0; i < nold; i++)
		mc->retired_pages += mc->oldpages[i];
}

/*
 * Repack node C (in slot `slot` of X; X NULL: C is the root) into a node of
 * the capacity its live children need (a quarter more, as a bulk-built node
 * gets), when that saves at least a quarter of C's pages: a node grown for
 * a burst of inserts keeps its slices' width after VACUUM removed them
 * otherwise.
 * The copy has the same children, so the column (or the metapage) simply
 * points to it.  Returns true when C was repacked.
 */
static bool
bloofi_repack(MergeCtx *mc, BloofiNode *X, uint32 slot, const BloofiNode *C)
{
	uint32		want = bloofi_node_cap(mc->d, (uint64) C->nlive + Max(2, C->nlive / 4));
	BloofiGeometry g;
	ItemPointerData *tids = NULL;
	uint8	   *vals = NULL;
	uint32	   *slots = NULL;
	const uint8 **vp = NULL;
	int			n;
	BlockNumber copy;

	if (C->level == 0 && want / 8 > BLOOFI_PAGE_BYTES / 2)
		want = BLOOFI_MAX_CAP;	/* (slices over half a page take a page each) */
	if (C->nlive == 0 || !bloofi_geometry(&g, mc->meta->m, want, BLOOFI_PAGE_BYTES) ||
		(uint64) g.total_pages * 4 > (uint64) C->geom.total_pages * 3)
		return false;
	if (C->level == 0 && bloofi_node_is_sparse(C) && !bloofi_node_rows_fit(mc->meta, C))
	{
		/* too wide for rows: its lists, gathered into the new width */
		uint8	   *val = palloc(mc->fbytes);

		bloofi_node_write_gathered(mc->index, mc->meta, 1, C, 1, want,
								   &copy, &val);
		pfree(val);
	}
	else
	{
		tids = palloc(sizeof(ItemPointerData) * Max(C->nused, 1));
		slots = palloc(sizeof(uint32) * Max(C->nused, 1));
		vals = palloc_extended((Size) Max(C->nused, 1) * mc->fbytes, MCXT_ALLOC_HUGE);
		n = bloofi_node_children(mc->index, C, tids, vals, slots);
		vp = palloc(sizeof(uint8 *) * Max(n, 1));
		for (int i = 0; i < n; i++)
			vp[i] = vals + (size_t) i * mc->fbytes;
		copy = bloofi_node_write(mc->index, mc->meta, C->level, want, n, tids, vp, NULL, true);
	}
	if (X == NULL)
		bloofi_set_root(mc->index, copy, mc->meta->height, 1, &C->start);
	else
		bloofi_node_switch(mc->index, X, 1, &slot, 1, &slot, &copy, 1, &C->start);
	bloofi_freespace_retire(mc->index, C->start);
	mc->retired_pages += C->geom.total_pages;
	if (tids)
	{
		pfree(tids);
		pfree(slots);
		pfree(vals);
		pfree(vp);
	}
	return true;
}

/* the children of a node being merged, as read once and updated in memory */
typedef struct MergeKids
{
	int			n;				/* entries (children, live or merged away) */
	int			cap;
	ItemPointerData *tids;		/* references */
	uint32	   *slots;			/* slots in the parent */
	uint8	   *vals;			/* values (the parent's columns), fbytes each */
	BloofiNode *kids;			/* headers */
	bool	   *alive;			/* still a child (not merged away) */
} MergeKids;

/* read X's children: references, slots, values and headers */
static void
bloofi_merge_kids_read(MergeCtx *mc, const BloofiNode *X, MergeKids *k)
{
	k->cap = Max(X->nused, 1) + 2;
	k->tids = palloc(sizeof(ItemPointerData) * k->cap);
	k->slots = palloc(sizeof(uint32) * k->cap);
	k->vals = palloc_extended((Size) k->cap * mc->fbytes, MCXT_ALLOC_HUGE);
	k->kids = palloc(sizeof(BloofiNode) * k->cap);
	k->alive = palloc(sizeof(bool) * k->cap);
	k->n = bloofi_node_children(mc->index, X, k->tids, k->vals, k->slots);
	for (int i = 0; i < k->n; i++)
	{
		bloofi_node_read(mc->index, mc->meta, ItemPointerGetBlockNumber(&k->tids[i]),
						 &k->kids[i]);
		k->alive[i] = true;
	}
}

static void
bloofi_merge_kids_free(MergeKids *k)
{
	pfree(k->tids);
	pfree(k->slots);
	pfree(k->vals);
	pfree(k->kids);
	pfree(k->alive);
}

/* the live child other than u whose value is the closest to u's (Hamming) */
static int
bloofi_merge_sibling(const MergeCtx *mc, const MergeKids *k, int u)
{
	uint64		best = UINT64_MAX;
	int			sib = -1;

	for (int i = 0; i < k->n; i++)
		if (k->alive[i] && i != u)
		{
			uint64		h = bloofi_tree_hamming(k->vals + (size_t) u * mc->fbytes,
												k->vals + (size_t) i * mc->fbytes, mc->nwords);

			if (h < best)
			{
				best = h;
				sib = i;
			}
		}
	return sib;
}

/*
 * Merge X's children u and sib into one new node, or redistribute their
 * children over two when one would be too wide, and switch them in X's
 * place (bloofi_merge_switch); the new nodes join k.  Returns false, X
 * unchanged, when X has no free slots for the switch.
 */
static bool
bloofi_merge_pair(MergeCtx *mc, BloofiNode *X, MergeKids *k, int u, int sib)
{
	BloofiNode *A = &k->kids[u],
			   *B = &k->kids[sib];
	BloofiNode	both = *A;
	bool		lists;
	int			nc = 0,
				nnew;
	ItemPointerData *ct = NULL;
	uint8	   *cv = NULL;
	uint32	   *cs = NULL;
	const uint8 **cp = NULL;
	uint32		olds[2] = {k->slots[u], k->slots[sib]};
	BlockNumber oldstart[2] = {A->start, B->start};
	BlockNumber news[2];
	uint8	   *newvals[2];
	uint32		freeslots[2];

	/*
	 * Bottom nodes with a SPARSE one among them whose leaves would not fit
	 * in memory as rows: merged as lists (bloofi_node_write_gathered), else
	 * through rows, the paper's way
	 */
	both.nused = A->nused + B->nused;
	lists = A->level == 0 && (bloofi_node_is_sparse(A) || bloofi_node_is_sparse(B)) &&
		!bloofi_node_rows_fit(mc->meta, &both);
	if (lists)
		nnew = A->nlive + B->nlive <= bloofi_sparse_leaf_cap(mc->meta) ? 1 : 2;
	else
	{
		uint8	   *value = palloc0(mc->fbytes);
		int			na;

		ct = palloc(sizeof(ItemPointerData) * (A->nused + B->nused + 1));
		cv = palloc_extended((Size) (A->nused + B->nused + 1) * mc->fbytes, MCXT_ALLOC_HUGE);
		cs = palloc(sizeof(uint32) * (A->nused + B->nused + 1));
		na = bloofi_node_children(mc->index, A, ct, cv, cs);
		nc = na + bloofi_node_children(mc->index, B, ct + na, cv + (size_t) na * mc->fbytes,
									   cs + na);
		cp = palloc(sizeof(uint8 *) * nc);
		for (int i = 0; i < nc; i++)
		{
			cp[i] = cv + (size_t) i * mc->fbytes;
			bs_or(value, cp[i], mc->nwords);
		}
		nnew = (uint32) nc <= bloofi_fanout_limit(mc->meta, A->level, value) ? 1 : 2;
		pfree(value);
	}
	/* slots for the switch first: without them X is left as it is */
	if (!bloofi_node_switch_slots(mc->index, X, 2, olds, nnew, freeslots))
		return false;
	if (k->n + 2 > k->cap)
	{
		/* (the new nodes are appended: the arrays grow) */
		k->cap = 2 * k->cap;
		k->tids = repalloc(k->tids, sizeof(ItemPointerData) * k->cap);
		k->slots = repalloc(k->slots, sizeof(uint32) * k->cap);
		k->vals = repalloc_huge(k->vals, (Size) k->cap * mc->fbytes);
		k->kids = repalloc(k->kids, sizeof(BloofiNode) * k->cap);
		k->alive = repalloc(k->alive, sizeof(bool) * k->cap);
		A = &k->kids[u];
		B = &k->kids[sib];
	}
	newvals[0] = k->vals + (size_t) k->n * mc->fbytes;
	newvals[1] = k->vals + (size_t) (k->n + 1) * mc->fbytes;
	mc->oldpages[0] = A->geom.total_pages;
	mc->oldpages[1] = B->geom.total_pages;
	if (lists)
	{
		BloofiNode	srcs[2];

		srcs[0] = *A;
		srcs[1] = *B;
		bloofi_node_write_gathered(mc->index, mc->meta, 2, srcs, nnew,
								   bloofi_node_cap(mc->d, (uint64) A->nlive + B->nlive + 2),
								   news, newvals);
	}
	else if (nnew == 1)
		news[0] = bloofi_node_write(mc->index, mc->meta, A->level,
									bloofi_node_cap(mc->d, (uint64) nc + 2), nc, ct, cp,
									newvals[0], true);
	else
		/* redistribute: two nodes of at least d children */
		bloofi_node_write_halves(mc->index, mc->meta, A->level, nc, ct, cp, news, newvals);
	bloofi_merge_switch(mc, X, 2, olds, oldstart, nnew, freeslots, news, newvals);
	k->alive[u] = k->alive[sib] = false;
	for (int i = 0; i < nnew; i++)
	{
		bloofi_child_ref(&k->tids[k->n], news[i]);
		k->slots[k->n] = freeslots[i];
		bloofi_node_read(mc->index, mc->meta, news[i], &k->kids[k->n]);
		k->alive[k->n] = true;
		k->n++;
	}
	if (!lists)
	{
		pfree(ct);
		pfree(cv);
		pfree(cs);
		pfree(cp);
	}
	return true;
}

/*
 * Merge or redistribute X's underfull children, after their own subtrees
 * (post-order).  X's children (references, values, headers) are read once;
 * each merge updates that picture in memory (the two old children leave it,
 * the new nodes join it), so the work is one read of X and its children's
 * headers plus the nodes merged, not a re-read per merge.  Then children
 * much wider than they need are repacked (bloofi_repack).
 */
static void
bloofi_merge_node(MergeCtx *mc, BlockNumber start, int depth)
{
	BloofiNode	X;
	ItemPointerData *tids;
	uint32	   *slots;
	MergeKids	k;
	int			n;

	bs_vacuum_delay_point(false);
	bloofi_node_read(mc->index, mc->meta, start, &X);
	if (X.level == 0 || depth >= BLOOFI_MAX_HEIGHT)
		return;
	tids = palloc(sizeof(ItemPointerData) * Max(X.nused, 1));
	slots = palloc(sizeof(uint32) * Max(X.nused, 1));
	n = bloofi_node_children(mc->index, &X, tids, NULL, slots);
	for (int i = 0; i < n; i++)
		bloofi_merge_node(mc, ItemPointerGetBlockNumber(&tids[i]), depth + 1);
	pfree(tids);
	pfree(slots);

	/* X's children, once (their merges changed their insides, not X) */
	bloofi_node_read(mc->index, mc->meta, start, &X);
	bloofi_merge_kids_read(mc, &X, &k);
	for (;;)
	{
		int			u = -1,
					nalive = 0;

		bs_vacuum_delay_point(false);
		for (int i = 0; i < k.n; i++)
			if (k.alive[i])
			{
				nalive++;
				if (u < 0 && k.kids[i].nlive < mc->d)
					u = i;
			}
		if (u < 0 || nalive < 2)
			break;
		if (k.kids[u].nlive == 0)
		{
			/* an empty child is just unlinked */
			BlockNumber os = k.kids[u].start;

			mc->oldpages[0] = k.kids[u].geom.total_pages;
			bloofi_merge_switch(mc, &X, 1, &k.slots[u], &os, 0, NULL, NULL, NULL);
			k.alive[u] = false;
			continue;
		}
		if (!bloofi_merge_pair(mc, &X, &k, u, bloofi_merge_sibling(mc, &k, u)))
			break;
	}

	/*
	 * no child is short (or no room to merge): repack those much wider than
	 * they need
	 */
	for (int i = 0; i < k.n; i++)
		if (k.alive[i])
		{
			bs_vacuum_delay_point(false);
			bloofi_repack(mc, &X, k.slots[i], &k.kids[i]);
		}
	bloofi_merge_kids_free(&k);
}


/*
 * bloofi_vac_merge: the merges of amvacuumcleanup, post-order from the root
 * (bloofi_merge_node), then a root with one child gives way to it and the
 * root is repacked when much wider than its children need.  Returns the pages
 * of the nodes taken out of the tree (retired).  Caller holds the tree lock.
 */
BlockNumber
bloofi_vac_merge(Relation index)
{
	MergeCtx	mc;

	memset(&mc, 0, sizeof(mc));
	mc.index = index;
	mc.meta = bloofi_read_meta(index);
	mc.d = mc.meta->order;
	mc.nwords = bs_words_for_bits(mc.meta->m);
	mc.fbytes = (uint32) (8 * mc.nwords);
	if (mc.meta->root != InvalidBlockNumber)
	{
		bloofi_merge_node(&mc, mc.meta->root, 0);
		/* a root with one child gives way to it */
		for (;;)
		{
			BloofiNode	R;
			ItemPointerData *tids;
			uint32	   *slots;

			mc.meta = bloofi_read_meta(index);
			bloofi_node_read(index, mc.meta, mc.meta->root, &R);
			if (R.level == 0 || R.nlive != 1)
				break;
			tids = palloc(sizeof(ItemPointerData) * Max(R.nused, 1));
			slots = palloc(sizeof(uint32) * Max(R.nused, 1));
			bloofi_node_children(index, &R, tids, NULL, slots);
			bloofi_set_root(index, ItemPointerGetBlockNumber(&tids[0]), mc.meta->height - 1,
							1, &R.start);
			bloofi_freespace_retire(index, R.start);
			mc.retired_pages += R.geom.total_pages;
		}
		/* the root too may be much wider than its children need */
		mc.meta = bloofi_read_meta(index);
		{
			BloofiNode	R;

			bloofi_node_read(index, mc.meta, mc.meta->root, &R);
			bloofi_repack(&mc, NULL, 0, &R);
		}
	}
	return mc.retired_pages;
}
