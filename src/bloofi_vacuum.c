/*
 * bloofi_vacuum.c
 *    VACUUM for Bloofi: remove dead leaves, recompute every value, merge or
 *    redistribute underfull nodes (the paper's delete, section 3.2, done in
 *    bulk), free retired nodes.
 *
 * Everything runs under the tree lock (protocol in bloofi_insert.c), after
 * the pending list has been moved into the tree.
 *
 * ambulkdelete, in two passes over the tree:
 *   1. compute (read only, post-order): for each bottom node its dead leaves
 *      (VACUUM's callback) and its new value, the OR of its live leaves read
 *      off the slices; for each inner node the OR of its children's new
 *      values.  So every value becomes exactly the OR of its children again
 *      (also repairing what a crash left over-approximated), and pruning
 *      does not decay with deletes.
 *   2. write (pre-order: a parent before its children): each node's columns
 *      first (a bottom node's dead leaves' bits, an inner node's columns set
 *      to its children's new values), then its value, then (bottom) the dead
 *      TIDs.  Values only shrink here, and top-down, so at every moment a
 *      value contains its columns and a column is contained in its child's
 *      value; readers never miss a live leaf.  Only pages that change are
 *      written.
 *
 * amvacuumcleanup: merges.  Post-order, a child with fewer than d children
 * (leaves) is merged with its closest sibling into one new node when the
 * two fit in one (at most 2d children, or more for a saturated value), else
 * their children are redistributed over two new nodes; an empty bottom node
 * is just unlinked.  New nodes replace the old ones in one record of the
 * parent (bloofi_insert.c, protocol 3b) and the old ones are retired.  A
 * root left with a single child is replaced by that child.  Retired nodes
 * that no snapshot can still reach are freed for reuse (bloofi_node.c).
 */
#include "postgres.h"

#include "commands/vacuum.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "bloofi.h"
#include "bloofi_tree.h"

typedef struct VacNode
{
	BloofiNode	node;
	uint8	   *newval;
	uint64	   *dead;			/* bottom: dead slots */
	uint32		ndead;
	uint32		nlive;			/* bottom: live leaves after */
	uint32		newused;		/* bottom: high-water mark after */
	uint32		nchild;			/* inner: children (indexes in the array) */
	uint32	   *child_slot;
	int		   *child_idx;
} VacNode;

typedef struct VacState
{
	Relation	index;
	BloofiMetaData *meta;
	IndexBulkDeleteCallback callback;
	void	   *callback_state;
	VacNode    *nodes;			/* pre-order */
	int			n;
	int			cap;
	uint32		fbytes;
} VacState;

/* pass 1 for the subtree at start: returns its index in vs->nodes */
static int
bloofi_vac_compute(VacState *vs, BlockNumber start, int depth)
{
	Relation	index = vs->index;
	VacNode    *vn;
	int			me;
	ItemPointerData *tids;
	BloofiNode	X;

	vacuum_delay_point();
	if (depth >= BLOOFI_MAX_HEIGHT)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" is deeper than %d levels",
						RelationGetRelationName(index), BLOOFI_MAX_HEIGHT),
				 errhint("Please REINDEX it.")));
	bloofi_node_read(index, vs->meta, start, &X);
	if (vs->n == vs->cap)
	{
		vs->cap *= 2;
		vs->nodes = repalloc_huge(vs->nodes, sizeof(VacNode) * vs->cap);
	}
	me = vs->n++;
	vn = &vs->nodes[me];
	memset(vn, 0, sizeof(*vn));
	vn->node = X;
	vn->newval = palloc0(vs->fbytes);
	tids = palloc(sizeof(ItemPointerData) * Max(X.nused, 1));
	bloofi_node_read_tids(index, &X, X.nused, tids);

	if (X.level == 0)
	{
		uint64	   *live = palloc0(sizeof(uint64) * X.geom.slice_words);
		uint8	   *copy = palloc(BLOOFI_PAGE_BYTES);

		vn->dead = palloc0(sizeof(uint64) * X.geom.slice_words);
		for (uint32 s = 0; s < X.nused; s++)
		{
			if (!ItemPointerIsValid(&tids[s]))
				continue;
			if (vs->callback && vs->callback(&tids[s], vs->callback_state))
			{
				vn->dead[s / 64] |= UINT64CONST(1) << (s % 64);
				vn->ndead++;
			}
			else
			{
				live[s / 64] |= UINT64CONST(1) << (s % 64);
				vn->nlive++;
				vn->newused = s + 1;
			}
		}
		/* the OR of the live leaves, read off the slices (on a copy) */
		for (uint32 sp = 0; sp < X.geom.slice_pages && vn->nlive > 0; sp++)
		{
			BlockNumber blk = bloofi_slice_block(&X, sp);
			Buffer		buf = ReadBuffer(index, blk);

			if ((sp & 15) == 0)
				vacuum_delay_point();
			LockBuffer(buf, BUFFER_LOCK_SHARE);
			bloofi_check_page(index, BufferGetPage(buf), blk, BLOOFI_PAGE_SLICE, X.start);
			memcpy(copy, PageGetContents(BufferGetPage(buf)), BLOOFI_PAGE_BYTES);
			UnlockReleaseBuffer(buf);
			bloofi_clear_and_summarise(copy, X.geom.slice_bytes,
									   bloofi_slice_page_first(&X.geom, sp),
									   bloofi_slice_page_count(&X.geom, sp),
									   vn->dead, live, vn->newval);
		}
		pfree(live);
		pfree(copy);
	}
	else
	{
		uint32		nchild = 0;

		vn->child_slot = palloc(sizeof(uint32) * Max(X.nused, 1));
		vn->child_idx = palloc(sizeof(int) * Max(X.nused, 1));
		for (uint32 s = 0; s < X.nused; s++)
		{
			int			ci;

			if (!ItemPointerIsValid(&tids[s]))
				continue;
			ci = bloofi_vac_compute(vs, ItemPointerGetBlockNumber(&tids[s]), depth + 1);
			vn = &vs->nodes[me];	/* (the array may have moved) */
			vn->child_slot[nchild] = s;
			vn->child_idx[nchild] = ci;
			nchild++;
			bs_or(vn->newval, vs->nodes[ci].newval, vs->fbytes / 8);
		}
		vn->nchild = nchild;
	}
	pfree(tids);
	return me;
}

/*
 * Pass 2 for one node, its children done already: an inner node's columns
 * become its children's new values, a bottom node's dead leaves lose their
 * bits in the slices; then the node's value becomes the OR of its columns.
 * Only pages that change are written.
 */
static void
bloofi_vac_shrink(VacState *vs, VacNode *vn)
{
	Relation	index = vs->index;
	BloofiNode *X = &vn->node;
	BloofiWal	w;

	vacuum_delay_point();
	if (X->level > 0)
	{
		for (uint32 c = 0; c < vn->nchild; c++)
			bloofi_node_put_column(index, X, vn->child_slot[c], vs->nodes[vn->child_idx[c]].newval);
	}
	else if (vn->ndead > 0)
	{
		uint64	   *none = palloc0(sizeof(uint64) * X->geom.slice_words);
		uint8	   *scratch = palloc0(vs->fbytes);

		bloofi_wal_begin(&w, index);
		for (uint32 sp = 0; sp < X->geom.slice_pages; sp++)
		{
			BlockNumber blk = bloofi_slice_block(X, sp);
			Buffer		buf = ReadBuffer(index, blk);
			Page		page;

			if ((sp & 15) == 0)
				vacuum_delay_point();
			LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
			bloofi_check_page(index, BufferGetPage(buf), blk, BLOOFI_PAGE_SLICE, X->start);
			page = bloofi_wal_page(&w, buf, false, 0);
			bloofi_clear_and_summarise((uint8 *) PageGetContents(page), X->geom.slice_bytes,
									   bloofi_slice_page_first(&X->geom, sp),
									   bloofi_slice_page_count(&X->geom, sp),
									   vn->dead, none, scratch);
		}
		bloofi_wal_flush(&w);
		pfree(none);
		pfree(scratch);
	}
	bloofi_node_update_value(index, X, vn->newval, true);
	bloofi_node_set_saturated(index, X, bloofi_summary_saturated(vn->newval, vs->meta->m,
																 vs->meta->k));
}

/* pass 3 for a bottom node: its dead leaves' TIDs (their bits are gone already) */
static void
bloofi_vac_remove_tids(VacState *vs, VacNode *vn, double *removed)
{
	Relation	index = vs->index;
	BloofiNode *X = &vn->node;
	BloofiWal	w;

	if (X->level > 0 || vn->ndead == 0)
		return;
	vacuum_delay_point();
	bloofi_wal_begin(&w, index);
	for (uint32 tp = 0; tp * X->geom.tids_per_page < X->nused; tp++)
	{
		uint32		first = tp * X->geom.tids_per_page;
		uint32		n = Min(X->geom.tids_per_page, X->nused - first);
		bool		touch = (tp == 0);
		ItemPointerData *pt;
		Buffer		buf;
		Page		page;

		for (uint32 i = 0; i < n && !touch; i++)
			if ((vn->dead[(first + i) / 64] >> ((first + i) % 64)) & 1)
				touch = true;
		if (!touch)
			continue;
		buf = ReadBuffer(index, X->start + tp);
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		bloofi_check_page(index, BufferGetPage(buf), X->start + tp, BLOOFI_PAGE_TID, X->start);
		page = bloofi_wal_page(&w, buf, false, 0);
		pt = (ItemPointerData *) PageGetContents(page);
		for (uint32 i = 0; i < n; i++)
			if ((vn->dead[(first + i) / 64] >> ((first + i) % 64)) & 1)
				ItemPointerSetInvalid(&pt[i]);
		if (tp == 0)
		{
			BloofiPageOpaque op = BloofiPageGetOpaque(page);

			op->nlive = vn->nlive;
			op->nused = vn->newused;	/* trailing free slots are dropped */
		}
	}
	bloofi_wal_flush(&w);
	*removed += vn->ndead;
}

/*
 * Both passes over the whole tree; returns the live leaves.  callback NULL:
 * no leaf is dead (values recomputed only).
 */
static double
bloofi_vac_tree(Relation index, IndexBulkDeleteCallback callback, void *callback_state,
				double *removed)
{
	VacState	vs;
	double		live = 0;
	MemoryContext tmp = AllocSetContextCreate(CurrentMemoryContext, "bloofi vacuum",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(tmp);

	memset(&vs, 0, sizeof(vs));
	vs.index = index;
	vs.meta = bloofi_read_meta(index);
	vs.callback = callback;
	vs.callback_state = callback_state;
	vs.cap = 64;
	vs.nodes = palloc(sizeof(VacNode) * vs.cap);
	vs.fbytes = 8 * bs_words_for_bits(vs.meta->m);
	if (vs.meta->root != InvalidBlockNumber)
	{
		bloofi_vac_compute(&vs, vs.meta->root, 0);
		/* nodes[] is in pre-order: backwards, every child comes before its parent */
		for (int i = vs.n - 1; i >= 0; i--)
			bloofi_vac_shrink(&vs, &vs.nodes[i]);
		for (int i = 0; i < vs.n; i++)
		{
			bloofi_vac_remove_tids(&vs, &vs.nodes[i], removed);
			if (vs.nodes[i].node.level == 0)
				live += vs.nodes[i].nlive;
		}
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(tmp);
	return live;
}

IndexBulkDeleteResult *
bloofi_bulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
				  IndexBulkDeleteCallback callback, void *callback_state)
{
	Relation	index = info->index;

	if (stats == NULL)
		stats = (IndexBulkDeleteResult *) palloc0(sizeof(IndexBulkDeleteResult));
	bloofi_tree_lock(index);
	/* pending entries into the tree first, where dead ones are removed */
	bloofi_pending_flush(index, true);
	stats->num_index_tuples = bloofi_vac_tree(index, callback, callback_state,
											  &stats->tuples_removed);
	bloofi_tree_unlock(index);
	stats->num_pages = RelationGetNumberOfBlocks(index);
	return stats;
}

/* ---- merges ------------------------------------------------------------- */

typedef struct MergeCtx
{
	Relation	index;
	BloofiMetaData *meta;
	uint32		d;
	uint32		fbytes;
	size_t		nwords;
} MergeCtx;

/*
 * Replace children in slots olds[0..nold) of X by nnew new nodes (values
 * newvals) in free slots: columns first, then one record switching the
 * slots, then the vacated columns cleared; the old children are retired.
 */
static void
bloofi_merge_switch(MergeCtx *mc, BloofiNode *X, int nold, const uint32 *olds,
					const BlockNumber *oldstart, int nnew, const BlockNumber *news,
					uint8 *const *newvals)
{
	uint32		slots[4];
	ItemPointerData tids[4];
	uint32		freeslots[2];
	int			nf = 0;
	ItemPointerData *all = palloc(sizeof(ItemPointerData) * X->cap);
	uint8	   *zero = palloc0(mc->fbytes);
	int			k = 0;

	bloofi_node_read_tids(mc->index, X, X->cap, all);
	for (uint32 s = 0; s < X->cap && nf < nnew; s++)
		if (s >= X->nused || !ItemPointerIsValid(&all[s]))
			freeslots[nf++] = s;
	Assert(nf == nnew);
	for (int i = 0; i < nnew; i++)
		bloofi_node_put_column(mc->index, X, freeslots[i], newvals[i]);
	for (int i = 0; i < nold; i++)
	{
		slots[k] = olds[i];
		ItemPointerSetInvalid(&tids[k]);	/* (a macro: no k++ inside) */
		k++;
	}
	for (int i = 0; i < nnew; i++)
	{
		slots[k] = freeslots[i];
		bloofi_child_ref(&tids[k], news[i]);
		k++;
	}
	{
		/* one record: the header page holds every slot of an inner node */
		Buffer		buf = ReadBuffer(mc->index, X->start);
		BloofiWal	w;
		Page		page;
		BloofiPageOpaque op;
		ItemPointerData *pt;

		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		bloofi_check_page(mc->index, BufferGetPage(buf), X->start, BLOOFI_PAGE_TID, X->start);
		bloofi_wal_begin(&w, mc->index);
		page = bloofi_wal_page(&w, buf, false, 0);
		op = BloofiPageGetOpaque(page);
		pt = (ItemPointerData *) PageGetContents(page);
		for (int i = 0; i < k; i++)
		{
			if (ItemPointerIsValid(&pt[slots[i]]) && !ItemPointerIsValid(&tids[i]))
				op->nlive--;
			else if (!ItemPointerIsValid(&pt[slots[i]]) && ItemPointerIsValid(&tids[i]))
				op->nlive++;
			pt[slots[i]] = tids[i];
			if (ItemPointerIsValid(&tids[i]) && slots[i] >= op->nused)
				op->nused = slots[i] + 1;
		}
		X->nused = op->nused;
		X->nlive = op->nlive;
		bloofi_wal_flush(&w);
	}
	for (int i = 0; i < nold; i++)
	{
		bloofi_node_put_column(mc->index, X, olds[i], zero);
		bloofi_node_retire(mc->index, oldstart[i]);
	}
	pfree(all);
	pfree(zero);
}

/* merge or redistribute X's underfull children (post-order over the subtree) */
static void
bloofi_merge_node(MergeCtx *mc, BlockNumber start, int depth)
{
	BloofiNode	X;
	ItemPointerData *tids;
	uint8	   *vals;
	uint32	   *slots;
	int			n;
	bool		again = true;

	vacuum_delay_point();
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

	/* one merge at a time, re-reading X, until no child is underfull */
	while (again)
	{
		BloofiNode *kids;
		int			u = -1,
					sib = -1;
		uint64		best = UINT64_MAX;

		again = false;
		bloofi_node_read(mc->index, mc->meta, start, &X);
		tids = palloc(sizeof(ItemPointerData) * Max(X.nused, 1));
		slots = palloc(sizeof(uint32) * Max(X.nused, 1));
		vals = palloc_extended((Size) Max(X.nused, 1) * mc->fbytes, MCXT_ALLOC_HUGE);
		n = bloofi_node_children(mc->index, &X, tids, vals, slots);
		if (n < 2 || X.cap - X.nlive < 2)
			break;
		kids = palloc(sizeof(BloofiNode) * n);
		for (int i = 0; i < n; i++)
		{
			bloofi_node_read(mc->index, mc->meta, ItemPointerGetBlockNumber(&tids[i]), &kids[i]);
			if (u < 0 && kids[i].nlive < mc->d)
				u = i;
		}
		if (u < 0)
			break;
		if (kids[u].nlive == 0)
		{
			/* an empty child is just unlinked */
			BlockNumber os = kids[u].start;

			bloofi_merge_switch(mc, &X, 1, &slots[u], &os, 0, NULL, NULL);
			again = true;
			continue;
		}
		for (int i = 0; i < n; i++)
			if (i != u)
			{
				uint64		h = bloofi_tree_hamming(vals + (size_t) u * mc->fbytes,
													vals + (size_t) i * mc->fbytes, mc->nwords);

				if (h < best)
				{
					best = h;
					sib = i;
				}
			}
		{
			BloofiNode *A = &kids[u],
					   *B = &kids[sib];
			int			na,
						nb,
						nc;
			ItemPointerData *ct = palloc(sizeof(ItemPointerData) * (A->nused + B->nused + 1));
			uint8	   *cv = palloc_extended((Size) (A->nused + B->nused + 1) * mc->fbytes,
											 MCXT_ALLOC_HUGE);
			uint32	   *cs = palloc(sizeof(uint32) * (A->nused + B->nused + 1));
			const uint8 **cp;
			uint8	   *value = palloc0(mc->fbytes);
			uint32		limit;
			uint32		olds[2] = {slots[u], slots[sib]};
			BlockNumber oldstart[2] = {A->start, B->start};
			BlockNumber news[2];
			uint8	   *newvals[2];

			na = bloofi_node_children(mc->index, A, ct, cv, cs);
			nb = bloofi_node_children(mc->index, B, ct + na, cv + (size_t) na * mc->fbytes, cs + na);
			nc = na + nb;
			cp = palloc(sizeof(uint8 *) * nc);
			for (int i = 0; i < nc; i++)
			{
				cp[i] = cv + (size_t) i * mc->fbytes;
				bs_or(value, cp[i], mc->nwords);
			}
			limit = bloofi_fanout_limit(mc->meta, A->level, value);
			newvals[0] = palloc(mc->fbytes);
			newvals[1] = palloc(mc->fbytes);
			if ((uint32) nc <= limit)
			{
				uint32		cap = bloofi_node_cap(mc->d, (uint64) nc + 2);

				news[0] = bloofi_node_write(mc->index, mc->meta, A->level, cap, nc, ct, cp,
											newvals[0], true);
				bloofi_merge_switch(mc, &X, 2, olds, oldstart, 1, news, newvals);
			}
			else
			{
				/* redistribute: two nodes of at least d children */
				bloofi_node_write_halves(mc->index, mc->meta, A->level, nc, ct, cp, news, newvals);
				bloofi_merge_switch(mc, &X, 2, olds, oldstart, 2, news, newvals);
			}
			/* a redistribution leaves both with >= d: the loop ends when none is short */
			again = true;
		}
	}
}

IndexBulkDeleteResult *
bloofi_vacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	Relation	index = info->index;
	MergeCtx	mc;
	MemoryContext tmp,
				old;

	if (info->analyze_only)
		return stats;
	bloofi_tree_lock(index);
	if (stats == NULL)
	{
		double		dummy = 0;

		/* a VACUUM without dead rows still empties the pending list and recomputes */
		stats = (IndexBulkDeleteResult *) palloc0(sizeof(IndexBulkDeleteResult));
		bloofi_pending_flush(index, true);
		stats->num_index_tuples = bloofi_vac_tree(index, NULL, NULL, &dummy);
	}
	tmp = AllocSetContextCreate(CurrentMemoryContext, "bloofi merge", ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(tmp);
	bloofi_node_recycle(index);
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
			bloofi_set_root(index, ItemPointerGetBlockNumber(&tids[0]), mc.meta->height - 1);
			bloofi_node_retire(index, R.start);
		}
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(tmp);
	bloofi_tree_unlock(index);
	stats->num_pages = RelationGetNumberOfBlocks(index);
	return stats;
}
