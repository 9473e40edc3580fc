/*
 * bloofi_vacuum.c
 *    VACUUM for Bloofi: remove dead leaves, recompute every value, merge or
 *    redistribute underfull nodes (the paper's delete, section 3.2, done in
 *    bulk), repack oversized nodes, free retired nodes, compact the file.
 *
 * Everything runs under the tree lock (protocol in docs/bloofi.md), after
 * the pending list has been moved into the tree.
 *
 * ambulkdelete, in passes over the tree:
 *   1. compute (read only, post-order): for each bottom node its dead leaves
 *      (VACUUM's callback) and its new value, the OR of its live leaves read
 *      off the slices; for each inner node the OR of its children's new
 *      values.  So every value becomes exactly the OR of its children again
 *      (also removing the slack that interrupted writes left), and pruning
 *      does not decay with deletes.
 *   2. shrink (children before parents): a bottom node's dead leaves lose
 *      their bits in the slices, an inner node's columns become its
 *      children's new values (all of them in one pass over its slices), then
 *      the node's value becomes the OR of its columns.  Values only shrink
 *      here, and from the bottom up, so at every moment a value contains its
 *      columns and its children's values and a column contains its child's
 *      columns (invariants I1-I3, docs/bloofi.md): readers never miss a
 *      live leaf, and a VACUUM stopped half-way leaves a valid tree.
 *   3. the dead leaves' TIDs (their bits are gone already).
 *   Only pages that change are written.
 *
 * amvacuumcleanup: merges (bloofi_vacuum_merge.c) and space.  Post-order, a child with fewer than d
 * children (leaves) is merged with its closest sibling into one new node
 * when the two fit in one (at most 2d children, or more for a saturated
 * value), else their children are redistributed over two new nodes; an
 * empty node is just unlinked; a child whose capacity is far above what its
 * children need is repacked.  New nodes replace the old ones in one record
 * of the parent (the locking protocol's order 3.2 in docs/bloofi.md) and the
 * old ones are retired.
 * A root left with a single child is replaced by that child.  Around the
 * merges, space (bloofi_freespace.c): retired nodes that no snapshot can still
 * read, and the pending list's free pages, become free pages first, so that
 * the merges reuse them; when the index's AccessExclusiveLock is free at
 * once (no scan or writer holds any lock on it) and free and retired pages
 * make at least 1/16 of the index, every retired node is freed, the nodes
 * in the file's tail move into free runs before them (stopping as soon as
 * someone waits for the lock), and the free pages at the end of the file
 * are cut off.  The work is one read of the tree plus the nodes written:
 * proportional to the index VACUUM finds, not to the garbage behind it.
 *
 * Design notes: docs/bloofi.md.
 */
#include "postgres.h"

#include "commands/vacuum.h"
#include "storage/lmgr.h"
#include "utils/memutils.h"

#include "bloofi.h"

/*
 * The space phase takes the index's AccessExclusiveLock (conditionally) only
 * when free and retired pages make at least 1/16 of the index and 8 pages
 * (heap VACUUM truncates a table from 1/16 or 1,000 pages on)
 */
#define BLOOFI_VACUUM_GAIN_FRACTION	16
#define BLOOFI_VACUUM_GAIN_MIN		8

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

	bs_vacuum_delay_point(false);
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
		uint8	   *sparse = NULL;

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
		if (bloofi_node_is_sparse(&X) && vn->nlive > 0)
			sparse = bloofi_sparse_load(index, &X);
		for (uint32 sp = 0; sp < X.geom.slice_pages && vn->nlive > 0; sp++)
		{
			if ((sp & 15) == 0)
				bs_vacuum_delay_point(false);
			if (sparse)
				bloofi_sparse_slice_page(&X, sparse, sp, copy);
			else
			{
				BlockNumber blk = bloofi_slice_block(&X, sp);
				Buffer		buf = ReadBuffer(index, blk);

				LockBuffer(buf, BUFFER_LOCK_SHARE);
				bloofi_check_page(index, BufferGetPage(buf), blk, BLOOFI_PAGE_SLICE, X.start);
				memcpy(copy, PageGetContents(BufferGetPage(buf)), BLOOFI_PAGE_BYTES);
				UnlockReleaseBuffer(buf);
			}
			bloofi_clear_and_recompute_value(copy, X.geom.slice_bytes,
											 bloofi_slice_page_first(&X.geom, sp),
											 bloofi_slice_page_count(&X.geom, sp),
											 vn->dead, live, vn->newval);
		}
		pfree(live);
		pfree(copy);
		if (sparse)
			pfree(sparse);
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

	bs_vacuum_delay_point(false);
	if (X->level > 0)
	{
		const uint8 **cols = palloc(sizeof(uint8 *) * Max(vn->nchild, 1));

		for (uint32 c = 0; c < vn->nchild; c++)
			cols[c] = vs->nodes[vn->child_idx[c]].newval;
		bloofi_node_put_columns(index, X, (int) vn->nchild, vn->child_slot, cols);
		pfree(cols);
	}
	else if (vn->ndead > 0 && !bloofi_node_is_sparse(X))
	{
		/*
		 * (a SPARSE node is never changed in place: its dead leaves' bits
		 * stay in its lists behind the TIDs pass 3 invalidates, which no
		 * lookup returns, until the node is rewritten)
		 */
		uint64	   *none = palloc0(sizeof(uint64) * X->geom.slice_words);
		uint8	   *scratch = palloc0(vs->fbytes);

		bloofi_wal_begin(&w, index);
		for (uint32 sp = 0; sp < X->geom.slice_pages; sp++)
		{
			BlockNumber blk = bloofi_slice_block(X, sp);
			Buffer		buf = ReadBuffer(index, blk);
			Page		page;

			if ((sp & 15) == 0)
				bs_vacuum_delay_point(false);
			LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
			bloofi_check_page(index, BufferGetPage(buf), blk, BLOOFI_PAGE_SLICE, X->start);
			page = bloofi_wal_page(&w, buf, false, 0);
			bloofi_clear_and_recompute_value((uint8 *) PageGetContents(page), X->geom.slice_bytes,
											 bloofi_slice_page_first(&X->geom, sp),
											 bloofi_slice_page_count(&X->geom, sp),
											 vn->dead, none, scratch);
		}
		bloofi_wal_flush(&w);
		pfree(none);
		pfree(scratch);
	}
	bloofi_node_update_value(index, X, vn->newval, true);
	bloofi_node_set_saturated(index, X, bloofi_value_saturated(vn->newval, vs->meta->m,
															   vs->meta->k));
}

/*
 * Pass 3 for a bottom node: its dead leaves' TIDs (their bits are gone
 * already, but from a SPARSE node's lists: BLOOFI_NODE_STALE says so, set
 * in a record before the first TID goes, so that no state a crash leaves
 * has such a free slot without it).  The header page goes last, in the
 * last record, so that no TID page of the node ends with a later LSN than
 * its header: a lookup trusts a TID page no newer than the header it read
 * (bloofi_search).
 */
static void
bloofi_vac_remove_tids(VacState *vs, VacNode *vn, double *removed)
{
	Relation	index = vs->index;
	BloofiNode *X = &vn->node;
	BloofiWal	w;
	uint32		ntp = (X->nused + X->geom.tids_per_page - 1) / X->geom.tids_per_page;

	if (X->level > 0 || vn->ndead == 0)
		return;
	bs_vacuum_delay_point(false);
	if (bloofi_node_is_sparse(X) && !(X->flags & BLOOFI_NODE_STALE))
	{
		Buffer		buf = ReadBuffer(index, X->start);

		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		bloofi_check_page(index, BufferGetPage(buf), X->start, BLOOFI_PAGE_TID, X->start);
		bloofi_wal_begin(&w, index);
		BloofiPageGetOpaque(bloofi_wal_page(&w, buf, false, 0))->flags |= BLOOFI_NODE_STALE;
		bloofi_wal_flush(&w);
		X->flags |= BLOOFI_NODE_STALE;
	}
	bloofi_wal_begin(&w, index);
	for (uint32 i = 1; i <= Max(ntp, 1); i++)
	{
		uint32		tp = i % Max(ntp, 1);	/* 1, 2, ..., ntp - 1, then 0 */
		uint32		first = tp * X->geom.tids_per_page;
		uint32		n = Min(X->geom.tids_per_page, X->nused - first);
		bool		touch = (tp == 0);
		ItemPointerData *pt;
		Buffer		buf;
		Page		page;

		for (uint32 j = 0; j < n && !touch; j++)
			if ((vn->dead[(first + j) / 64] >> ((first + j) % 64)) & 1)
				touch = true;
		if (!touch)
			continue;
		buf = ReadBuffer(index, X->start + tp);
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		bloofi_check_page(index, BufferGetPage(buf), X->start + tp, BLOOFI_PAGE_TID, X->start);
		page = bloofi_wal_page(&w, buf, false, 0);
		pt = (ItemPointerData *) PageGetContents(page);
		for (uint32 j = 0; j < n; j++)
			if ((vn->dead[(first + j) / 64] >> ((first + j) % 64)) & 1)
				ItemPointerSetInvalid(&pt[j]);
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

		/*
		 * nodes[] is in pre-order: backwards, every child comes before its
		 * parent
		 */
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
	bloofi_lock_tree(index);
	/* pending entries into the tree first, where dead ones are removed */
	bloofi_pending_flush(index, true);
	stats->num_index_tuples = bloofi_vac_tree(index, callback, callback_state,
											  &stats->tuples_removed);
	bloofi_unlock_tree(index);
	stats->num_pages = RelationGetNumberOfBlocks(index);
	return stats;
}

/* ---- space ----------------------------------------------------------- */

/* a node of the tree and where its parent points to it (compaction) */
typedef struct CompactNode
{
	BlockNumber start;
	BlockNumber parent;			/* InvalidBlockNumber: the root */
	uint32		slot;
} CompactNode;

/* hash entry: a child's parent and slot, or where a moved node went */
typedef struct CompactRef
{
	BlockNumber node;			/* hash key */
	BlockNumber parent;			/* (moved nodes: the copy's first block) */
	uint32		slot;
} CompactRef;

typedef struct CompactState
{
	HTAB	   *refs;			/* child -> (parent, slot) */
	CompactNode *nodes;
	int			n;
	int			cap;
} CompactState;

static void
bloofi_compact_visit(Relation index, const BloofiNode *node, const ItemPointerData *slots,
					 void *arg)
{
	CompactState *cs = (CompactState *) arg;
	CompactRef *ref = hash_search(cs->refs, &node->start, HASH_FIND, NULL);
	CompactNode *e;

	if (cs->n == cs->cap)
	{
		cs->cap *= 2;
		cs->nodes = repalloc_huge(cs->nodes, sizeof(CompactNode) * cs->cap);
	}
	e = &cs->nodes[cs->n++];
	e->start = node->start;
	e->parent = ref ? ref->parent : InvalidBlockNumber;
	e->slot = ref ? ref->slot : 0;
	if (node->level > 0)
		for (uint32 s = 0; s < node->nused; s++)
			if (ItemPointerIsValid(&slots[s]))
			{
				BlockNumber child = ItemPointerGetBlockNumber(&slots[s]);
				CompactRef *r = hash_search(cs->refs, &child, HASH_ENTER, NULL);

				r->parent = node->start;
				r->slot = s;
			}
}

/* by first block, descending */
static int
bloofi_compact_cmp(const void *a, const void *b)
{
	BlockNumber x = ((const CompactNode *) a)->start;
	BlockNumber y = ((const CompactNode *) b)->start;

	return x < y ? 1 : x > y ? -1 : 0;
}

/*
 * Compaction, under the index's AccessExclusiveLock: the nodes nearest the
 * end of the file, last first, are copied into the lowest free runs before
 * them (bloofi_node_copy_below), switched in their parent's slot (or the
 * metapage) and retired, so that the free pages gather at the end, where
 * bloofi_freespace_truncate cuts them.  Stops as soon as another backend waits
 * for a lock on the index (as heap VACUUM's truncation does).  Work: one
 * walk of the tree's node headers, then the pages of the nodes moved.
 */
static void
bloofi_vac_compact(Relation index, BloofiSpaceReport *rep)
{
	BloofiMetaData *meta = bloofi_read_meta(index);
	CompactState cs;
	HASHCTL		ctl;
	HTAB	   *moved;

	bloofi_freespace_move_bitmaps(index);
	if (meta->root == InvalidBlockNumber)
		return;
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(BlockNumber);
	ctl.entrysize = sizeof(CompactRef);
	ctl.hcxt = CurrentMemoryContext;
	cs.refs = hash_create("bloofi compaction refs", 1024, &ctl,
						  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	moved = hash_create("bloofi compaction moves", 256, &ctl,
						HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	cs.cap = 64;
	cs.n = 0;
	cs.nodes = palloc(sizeof(CompactNode) * cs.cap);
	bloofi_walk_nodes(index, meta, bloofi_compact_visit, &cs);
	qsort(cs.nodes, cs.n, sizeof(CompactNode), bloofi_compact_cmp);
	for (int i = 0; i < cs.n; i++)
	{
		CompactNode *e = &cs.nodes[i];
		BloofiNode	N;
		BlockNumber to;
		CompactRef *m;

		if (LockHasWaitersRelation(index, AccessExclusiveLock))
			break;
		bloofi_node_read(index, meta, e->start, &N);
		to = bloofi_node_copy_below(index, &N);
		if (to == InvalidBlockNumber)
			continue;
		if (e->parent == InvalidBlockNumber)
		{
			meta = bloofi_read_meta(index);
			bloofi_set_root(index, to, meta->height, 1, &N.start);
		}
		else
		{
			CompactRef *pm = hash_search(moved, &e->parent, HASH_FIND, NULL);
			BloofiNode	P;

			bloofi_node_read(index, meta, pm ? pm->parent : e->parent, &P);
			bloofi_node_switch(index, &P, 1, &e->slot, 1, &e->slot, &to, 1, &N.start);
		}
		bloofi_freespace_retire(index, N.start);
		m = hash_search(moved, &N.start, HASH_ENTER, NULL);
		m->parent = to;
		rep->moved += N.geom.total_pages;
	}
}

/*
 * Whether the free and retired pages make enough of the index to take its
 * AccessExclusiveLock for: at least 1/16 of it and 8 pages (heap VACUUM
 * truncates a table from 1/16 or 1,000 pages on).
 */
static bool
bloofi_vac_worth_lock(Relation index)
{
	int64		free_pages,
				free_runs,
				retired_nodes,
				retired_pages;

	bloofi_freespace_counts(index, &free_pages, &free_runs, &retired_nodes, &retired_pages);
	return (retired_pages + free_pages) * BLOOFI_VACUUM_GAIN_FRACTION >=
		RelationGetNumberOfBlocks(index) &&
		retired_pages + free_pages >= BLOOFI_VACUUM_GAIN_MIN;
}

IndexBulkDeleteResult *
bloofi_vacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	Relation	index = info->index;
	MemoryContext tmp,
				old;
	BloofiSpaceReport rep;
	int64		free_pages,
				free_runs,
				retired_nodes,
				retired_pages;

	if (info->analyze_only)
		return stats;
	bloofi_lock_tree(index);
	if (stats == NULL)
	{
		double		dummy = 0;

		/*
		 * a VACUUM without dead rows still empties the pending list and
		 * recomputes
		 */
		stats = (IndexBulkDeleteResult *) palloc0(sizeof(IndexBulkDeleteResult));
		bloofi_pending_flush(index, true);
		stats->num_index_tuples = bloofi_vac_tree(index, NULL, NULL, &dummy);
	}
	memset(&rep, 0, sizeof(rep));
	tmp = AllocSetContextCreate(CurrentMemoryContext, "bloofi merge", ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(tmp);

	/*
	 * First what no scan can read any more, so that the merges reuse it:
	 * retired nodes older than every snapshot, pending pages; with the
	 * index's AccessExclusiveLock (only if free at once), every retired node.
	 */
	rep.freed += bloofi_freespace_recycle(index, false);
	rep.freed += bloofi_freespace_reclaim_pending(index);
	if (bloofi_vac_worth_lock(index) && ConditionalLockRelation(index, AccessExclusiveLock))
	{
		rep.freed += bloofi_freespace_recycle(index, true);
		UnlockRelation(index, AccessExclusiveLock);
	}
	rep.retired = bloofi_vac_merge(index);

	/*
	 * Then, with the index's AccessExclusiveLock (only if free at once: no
	 * scan can be inside the index), what the merges retired is freed, the
	 * nodes in the file's tail move into the free runs before them, and the
	 * free pages at its end are cut off.
	 */
	if (bloofi_vac_worth_lock(index) && ConditionalLockRelation(index, AccessExclusiveLock))
	{
		rep.freed += bloofi_freespace_recycle(index, true);
		bloofi_vac_compact(index, &rep);
		rep.freed += bloofi_freespace_recycle(index, true);
		rep.truncated += bloofi_freespace_truncate(index);
		UnlockRelation(index, AccessExclusiveLock);
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(tmp);
	bloofi_unlock_tree(index);

	bloofi_freespace_counts(index, &free_pages, &free_runs, &retired_nodes, &retired_pages);
	stats->num_pages = RelationGetNumberOfBlocks(index);
	stats->pages_newly_deleted = rep.retired;
	stats->pages_deleted = (BlockNumber) (free_pages + retired_pages);
	stats->pages_free = (BlockNumber) free_pages;
	ereport(info->message_level,
			(errmsg("index \"%s\": %u pages taken out of the tree, %u pages freed for reuse, %u pages truncated",
					RelationGetRelationName(index), rep.retired, rep.freed, rep.truncated),
			 errdetail("%u pages of nodes were moved towards the front of the file; %lld pages are free, %lld pages of %lld retired nodes wait for older snapshots.",
					   rep.moved,
					   (long long) free_pages, (long long) retired_pages,
					   (long long) retired_nodes)));
	return stats;
}
