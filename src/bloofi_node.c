/*
 * bloofi_node.c
 *    Bloofi tree nodes on pages: capacity rules, reading a node's contents,
 *    updating columns and values in place, the one-record switch of a
 *    structural change, copying nodes.  Writing whole new nodes:
 *    bloofi_node_write.c; finding paths and walking the tree: bloofi_walk.c.
 *
 * A node is a contiguous run of pages (layout in bloofi.h and
 * src/core/bloofi_layout.h).  New nodes (splits, growth, merges, repacks,
 * compaction, the build) are written whole, in pages that
 * bloofi_freespace_alloc gives (free pages of the map or the end of the file),
 * before anything points to them; one record then switches them in
 * (bloofi_node_switch, bloofi_set_root).  A node that a copy replaces is
 * RETIRED, pushed on the metapage's retired chain with the next XID, and
 * left unchanged, so that a lookup that read the old parent still finds
 * every leaf that was there; VACUUM frees it later (bloofi_freespace.c).
 * Writers hold the tree lock (bloofi_freespace.c); the metapage also changes
 * under its exclusive buffer lock, as pending-list appends change it
 * concurrently, and is locked before any node page of the same record.
 *
 * Design notes: docs/bloofi.md.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "bloofi.h"
#include "bloofi_sparse.h"
#include "bloofi_tree.h"

/*
 * Slots of a new node that must hold `want` slots: at least 2d children plus
 * two free slots (a replacement switches children into free slots), rounded
 * to the slot quantum, at most BLOOFI_MAX_CAP.  bloofi_node_cap(d, 0) is an
 * inner node's capacity.
 */
uint32
bloofi_node_cap(uint32 order, uint64 want)
{
	return bloofi_round_capacity(Max(want, (uint64) 2 * order + 2), BLOOFI_MAX_CAP);
}

/* the leaf_capacity reloption rounded up to a multiple of 8, at least 2d + 2 */
int
bloofi_get_leaf_cap(Relation index)
{
	BloofiOptions *o = (BloofiOptions *) index->rd_options;
	int			cap = o ? o->leaf_capacity : BLOOFI_DEFAULT_LEAF_CAP;

	cap = (int) bloofi_round_capacity((uint64) cap, BLOOFI_MAX_CAP);
	return Max(cap, (int) bloofi_node_cap(bloofi_get_order(index), 0));
}

/*
 * The most leaves a bottom node may grow to now: leaf_capacity, and no more
 * than half of maintenance_work_mem holds as filters (a split or growth
 * reads a node's children into memory, as the build buffers a node), at
 * least an inner node's capacity.
 */
uint32
bloofi_effective_leaf_cap(const BloofiMetaData *meta)
{
	uint64		fbytes = 8 * bs_words_for_bits(Max(meta->m, 1));
	uint64		by_mem = (uint64) maintenance_work_mem * 512 / (fbytes + sizeof(ItemPointerData));
	uint64		cap = Min((uint64) meta->leaf_cap, by_mem);

	return Max((uint32) cap, bloofi_node_cap(meta->order, 0));
}

/*
 * The most children a node at `level` whose value is val may have: 2d,
 * unless the value is saturated (the no-split rule, section 3.4): then a
 * bottom node may grow to bloofi_effective_leaf_cap, an inner node to the
 * largest node.
 */
uint32
bloofi_fanout_limit(const BloofiMetaData *meta, uint16 level, const uint8 *val)
{
	if (bloofi_tree_unsplittable(val, meta->m, (int) meta->k, BLOOFI_NOSPLIT_SATURATED))
		return level == 0 ? bloofi_effective_leaf_cap(meta) : BLOOFI_MAX_CAP - 2;
	return 2 * meta->order;
}

/*
 * The most leaves a SPARSE bottom node may grow to: leaf_capacity, whatever
 * m is.  Its operations work on its lists, whose memory follows the set
 * bits (bloofi_node_rows_fit says when a copy may still go through rows).
 */
uint32
bloofi_sparse_leaf_cap(const BloofiMetaData *meta)
{
	uint32		cap = Min((uint32) meta->leaf_cap, BLOOFI_SPARSE_MAX_CAP);

	return Max(cap, bloofi_node_cap(meta->order, 0));
}

/*
 * bloofi_fanout_limit for node X: a SPARSE bottom node (a wide node of
 * small sparse filters, grown by the bulk build) may hold up to
 * bloofi_sparse_leaf_cap leaves whatever its value.
 */
uint32
bloofi_node_fanout_limit(const BloofiMetaData *meta, const BloofiNode *X, const uint8 *val)
{
	if (bloofi_node_is_sparse(X))
		return bloofi_sparse_leaf_cap(meta);
	return bloofi_fanout_limit(meta, X->level, val);
}

/*
 * Whether the children of X, as rows of filters, fit in half of
 * maintenance_work_mem (the bound bloofi_effective_leaf_cap puts on dense
 * nodes): else a SPARSE node is copied as lists (bloofi_node_write_gathered).
 */
bool
bloofi_node_rows_fit(const BloofiMetaData *meta, const BloofiNode *X)
{
	uint64		fbytes = 8 * bs_words_for_bits(Max(meta->m, 1));

	return (uint64) X->nused * (fbytes + sizeof(ItemPointerData)) <=
		(uint64) maintenance_work_mem * 512;
}

/* copy the node's value (geom.filter_bytes bytes) from its value pages */
void
bloofi_node_read_value(Relation index, const BloofiNode *node, uint8 *value)
{
	const BloofiGeometry *geom = &node->geom;

	for (uint32 sp = 0; sp < geom->value_pages; sp++)
	{
		BlockNumber blk = node->start + geom->tid_pages + sp;
		Buffer		buf = ReadBuffer(index, blk);

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		bloofi_check_page(index, BufferGetPage(buf), blk, BLOOFI_PAGE_VALUE, node->start);
		memcpy(value + (size_t) sp * geom->value_bytes_per_page,
			   PageGetContents(BufferGetPage(buf)), bloofi_value_page_bytes(geom, sp));
		UnlockReleaseBuffer(buf);
	}
}

/* the first nslots child slots (share locks, one page at a time) */
void
bloofi_node_read_tids(Relation index, const BloofiNode *node, uint32 nslots,
					  ItemPointerData *tids)
{
	const BloofiGeometry *geom = &node->geom;

	nslots = Min(nslots, geom->cap);
	for (uint32 tp = 0; tp * geom->tids_per_page < nslots; tp++)
	{
		Buffer		buf = ReadBuffer(index, node->start + tp);
		uint32		first = tp * geom->tids_per_page;
		uint32		n = Min(geom->tids_per_page, nslots - first);

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		bloofi_check_page(index, BufferGetPage(buf), node->start + tp, BLOOFI_PAGE_TID,
						  node->start);
		memcpy(tids + first, PageGetContents(BufferGetPage(buf)),
			   (size_t) n * sizeof(ItemPointerData));
		UnlockReleaseBuffer(buf);
	}
}

/*
 * The values of the children in slots [0, nslots) for which want[slot] (all
 * when want is NULL), read back from the slices into filters (nslots rows of
 * geom.filter_bytes, zeroed here).  Work: one pass over the slice pages.
 */
void
bloofi_node_read_columns(Relation index, const BloofiNode *node, uint32 nslots,
						 const bool *want, uint8 *filters)
{
	const BloofiGeometry *geom = &node->geom;
	uint64	   *mask = palloc0(sizeof(uint64) * geom->slice_words);

	nslots = Min(nslots, geom->cap);
	memset(filters, 0, (size_t) nslots * geom->filter_bytes);
	for (uint32 s = 0; s < nslots; s++)
		if (want == NULL || want[s])
			mask[s / 64] |= UINT64CONST(1) << (s % 64);
	if (bloofi_node_is_sparse(node))
	{
		uint8	   *stream = bloofi_sparse_load(index, node);

		bloofi_sparse_columns(stream, mask, nslots, filters, geom->filter_bytes);
		pfree(stream);
		pfree(mask);
		return;
	}
	for (uint32 sp = 0; sp < geom->slice_pages; sp++)
	{
		BlockNumber blk = bloofi_slice_block(node, sp);
		Buffer		buf = ReadBuffer(index, blk);
		uint32		j0 = bloofi_slice_page_first(geom, sp);
		uint32		n = bloofi_slice_page_count(geom, sp);
		const uint8 *data;

		if ((sp & 63) == 0)
			CHECK_FOR_INTERRUPTS();
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		bloofi_check_page(index, BufferGetPage(buf), blk, BLOOFI_PAGE_SLICE, node->start);
		data = (const uint8 *) PageGetContents(BufferGetPage(buf));
		bloofi_get_columns(data, geom->slice_bytes, j0, n, mask, filters, geom->filter_bytes);
		UnlockReleaseBuffer(buf);
	}
	pfree(mask);
}

/*
 * The live children of X, compacted: tids[i] and slots[i] (arrays of
 * X->nused entries), and, when vals is not NULL, their values in vals row i
 * (X->nused rows of geom.filter_bytes, read back from the slices; without
 * vals the slices are not read).  Returns how many.
 */
int
bloofi_node_children(Relation index, const BloofiNode *X, ItemPointerData *tids, uint8 *vals,
					 uint32 *slots)
{
	uint32		fbytes = X->geom.filter_bytes;
	bool	   *want = palloc0(sizeof(bool) * Max(X->nused, 1));
	int			n = 0;

	bloofi_node_read_tids(index, X, X->nused, tids);
	for (uint32 s = 0; s < X->nused; s++)
		want[s] = ItemPointerIsValid(&tids[s]);
	if (vals)
		bloofi_node_read_columns(index, X, X->nused, want, vals);
	for (uint32 s = 0; s < X->nused; s++)
		if (want[s])
		{
			tids[n] = tids[s];
			if (vals && (uint32) n != s)
				memcpy(vals + (size_t) n * fbytes, vals + (size_t) s * fbytes, fbytes);
			slots[n] = s;
			n++;
		}
	pfree(want);
	return n;
}

/*
 * Update the node's value from `value` (geom.filter_bytes): OR it in, or
 * with exact, replace the value by it.  Only value pages that change are
 * written (GenericXLog).
 */
void
bloofi_node_update_value(Relation index, const BloofiNode *node, const uint8 *value, bool exact)
{
	const BloofiGeometry *geom = &node->geom;
	BloofiWal	w;

	bloofi_wal_begin(&w, index);
	for (uint32 sp = 0; sp < geom->value_pages; sp++)
	{
		BlockNumber blk = node->start + geom->tid_pages + sp;
		uint32		bytes = bloofi_value_page_bytes(geom, sp);
		const uint8 *part = value + (size_t) sp * geom->value_bytes_per_page;
		Buffer		buf = ReadBuffer(index, blk);
		const uint8 *cur;
		uint8	   *data;

		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		bloofi_check_page(index, BufferGetPage(buf), blk, BLOOFI_PAGE_VALUE, node->start);
		cur = (const uint8 *) PageGetContents(BufferGetPage(buf));
		if (exact ? memcmp(cur, part, bytes) == 0 : bs_is_subset(part, cur, bytes / 8))
		{
			UnlockReleaseBuffer(buf);
			continue;
		}
		data = (uint8 *) PageGetContents(bloofi_wal_page(&w, buf, false, 0));
		if (exact)
			memcpy(data, part, bytes);
		else
			bs_or(data, part, bytes / 8);
	}
	bloofi_wal_flush(&w);
}

/*
 * OR the n filters into the node's value, then set their bits in the
 * columns slots[i]: the value first, so that it always contains its columns
 * (bloofi_check), and only pages that change are logged.  Setting bits is
 * idempotent, so this also completes a leaf that a crash left half written.
 */
void
bloofi_node_set_bits(Relation index, const BloofiNode *node, int n, const uint32 *slots,
					 const uint8 *const *filters)
{
	const BloofiGeometry *geom = &node->geom;
	uint8	   *batch_value = palloc0(geom->filter_bytes);
	BloofiWal	w;

	for (int i = 0; i < n; i++)
		bs_or(batch_value, filters[i], geom->filter_bytes / 8);
	bloofi_node_update_value(index, node, batch_value, false);
	if (bloofi_node_is_sparse(node))
	{
		/*
		 * A SPARSE node is written whole and never takes new leaves (an
		 * insert rewrites it dense first): the only caller reaching one is
		 * the completion of an interrupted flush, whose leaves it holds
		 * complete.  Check that, never write.
		 */
		uint8	   *stream = bloofi_sparse_load(index, node);

		for (int i = 0; i < n; i++)
			if (slots[i] >= geom->cap ||
				!bloofi_sparse_column_has(stream, (uint16) slots[i], filters[i],
										  geom->filter_bytes / 8))
				elog(ERROR, "bloofi: slot %u of sparse node %u lacks bits of its leaf",
					 slots[i], node->start);
		pfree(stream);
		pfree(batch_value);
		return;
	}
	bloofi_wal_begin(&w, index);
	for (uint32 sp = 0; sp < geom->slice_pages; sp++)
	{
		uint32		j0 = bloofi_slice_page_first(geom, sp);
		uint32		cnt = bloofi_slice_page_count(geom, sp);
		BlockNumber blk = bloofi_slice_block(node, sp);
		Buffer		buf;
		Page		page;
		bool		any = false;

		if ((sp & 63) == 0)
			CHECK_FOR_INTERRUPTS(); /* between WAL records: nothing
									 * half-written */
		if (bloofi_count_range(batch_value, j0, cnt) == 0)
			continue;
		buf = ReadBuffer(index, blk);
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		bloofi_check_page(index, BufferGetPage(buf), blk, BLOOFI_PAGE_SLICE, node->start);
		/* already all set (a redo, or bits shared with the column): no record */
		for (int i = 0; i < n && !any; i++)
			any = bloofi_column_missing((const uint8 *) PageGetContents(BufferGetPage(buf)),
										geom->slice_bytes, j0, cnt, filters[i], slots[i]) > 0;
		if (!any)
		{
			UnlockReleaseBuffer(buf);
			continue;
		}
		page = bloofi_wal_page(&w, buf, false, 0);
		for (int i = 0; i < n; i++)
			bloofi_set_column((uint8 *) PageGetContents(page), geom->slice_bytes, j0, cnt,
							  filters[i], slots[i]);
	}
	bloofi_wal_flush(&w);
	pfree(batch_value);
}

/*
 * Make columns slots[0..n) exactly filters[i] (set and clear; a NULL filter
 * clears the column), in one pass over the slice pages, logging only pages
 * that change: a node's many columns cost one read of its slices, not one
 * each.
 */
void
bloofi_node_put_columns(Relation index, const BloofiNode *node, int n, const uint32 *slots,
						const uint8 *const *filters)
{
	const BloofiGeometry *geom = &node->geom;
	uint8	   *probe = palloc(BLOOFI_PAGE_BYTES);
	uint8	   *zero = palloc0(geom->filter_bytes);
	BloofiWal	w;

	if (n == 0)
		return;
	if (bloofi_node_is_sparse(node))	/* (bottom nodes only: never columns of children) */
		elog(ERROR, "bloofi: columns put into sparse node %u", node->start);
	bloofi_wal_begin(&w, index);
	for (uint32 sp = 0; sp < geom->slice_pages; sp++)
	{
		uint32		j0 = bloofi_slice_page_first(geom, sp);
		uint32		cnt = bloofi_slice_page_count(geom, sp);
		BlockNumber blk = bloofi_slice_block(node, sp);
		Buffer		buf = ReadBuffer(index, blk);
		uint32		changed = 0;

		if ((sp & 63) == 0)
			CHECK_FOR_INTERRUPTS();
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		bloofi_check_page(index, BufferGetPage(buf), blk, BLOOFI_PAGE_SLICE, node->start);
		memcpy(probe, PageGetContents(BufferGetPage(buf)), BLOOFI_PAGE_BYTES);
		for (int i = 0; i < n; i++)
			changed += bloofi_put_column(probe, geom->slice_bytes, j0, cnt, slots[i],
										 filters[i] ? filters[i] : zero);
		if (changed == 0)
		{
			UnlockReleaseBuffer(buf);
			continue;
		}
		memcpy(PageGetContents(bloofi_wal_page(&w, buf, false, 0)), probe, BLOOFI_PAGE_BYTES);
	}
	bloofi_wal_flush(&w);
	pfree(probe);
	pfree(zero);
}

/*
 * Copy node X, page by page, to the lowest free run of the map that ends at
 * or before X's first block (VACUUM's compaction): returns the copy's first
 * block, or InvalidBlockNumber when there is no such run.  The copy is
 * unlinked (a NEW intent) until the caller switches it in.
 */
BlockNumber
bloofi_node_copy_below(Relation index, const BloofiNode *X)
{
	BlockNumber to = bloofi_freespace_alloc_below(index, X->geom.total_pages, X->start);
	BloofiWal	w;

	if (to == InvalidBlockNumber)
		return InvalidBlockNumber;
	bloofi_wal_begin(&w, index);
	for (uint32 p = 0; p < X->geom.total_pages; p++)
	{
		Buffer		src = ReadBuffer(index, X->start + p);
		Buffer		dst = ReadBuffer(index, to + p);
		Page		page;
		BloofiPageOpaque op;

		if ((p & 63) == 0)
			CHECK_FOR_INTERRUPTS();
		LockBuffer(src, BUFFER_LOCK_SHARE);
		LockBuffer(dst, BUFFER_LOCK_EXCLUSIVE);
		page = bloofi_wal_page(&w, dst, false, GENERIC_XLOG_FULL_IMAGE);
		memcpy(page, BufferGetPage(src), BLCKSZ);
		UnlockReleaseBuffer(src);
		op = BloofiPageGetOpaque(page);
		if (op->node != X->start || op->bloofi_page_id != BLOOFI_PAGE_ID)
			BLOOFI_NODE_CORRUPT(index, X->start + p, "Page %u of the node belongs to node %u.", p,
								op->node);
		op->node = to;
		if (p == 0)
		{
			op->next = InvalidBlockNumber;
			op->xid = InvalidTransactionId;
		}
	}
	bloofi_wal_flush(&w);
	return to;
}

/* set or clear the SATURATED hint of a node (one record, only when it changes) */
void
bloofi_node_set_saturated(Relation index, const BloofiNode *node, bool saturated)
{
	Buffer		buf;
	BloofiPageOpaque op;
	BloofiWal	w;

	if (((node->flags & BLOOFI_NODE_SATURATED) != 0) == saturated)
		return;
	buf = ReadBuffer(index, node->start);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	bloofi_check_page(index, BufferGetPage(buf), node->start, BLOOFI_PAGE_TID, node->start);
	bloofi_wal_begin(&w, index);
	op = BloofiPageGetOpaque(bloofi_wal_page(&w, buf, false, 0));
	if (saturated)
		op->flags |= BLOOFI_NODE_SATURATED;
	else
		op->flags &= ~BLOOFI_NODE_SATURATED;
	bloofi_wal_flush(&w);
}

/*
 * Point the metapage at a new root (one record), which links the new nodes
 * written for it and unlinks the nretire nodes retire[]
 * (bloofi_freespace_link); the caller retires them next.
 */
void
bloofi_set_root(Relation index, BlockNumber root, uint32 height, int nretire,
				const BlockNumber *retire)
{
	BloofiWal	w;
	Page		mp = bloofi_wal_begin_meta(&w, index);
	BloofiPageGetMeta(mp)->root = root;
	BloofiPageGetMeta(mp)->height = height;
	bloofi_freespace_link(mp, nretire, retire);
	bloofi_wal_flush(&w);
}

/* the tid page (relative) of slot s of X */
#define SLOT_PAGE(X, s)		((s) / (X)->geom.tids_per_page)

/*
 * nnew free slots of X for a switch that frees oldslots[0..nold): on X's
 * header page or on the tid pages of the old slots, so that the switch is
 * one record (bloofi_node_switch); holes below the high-water mark first.
 * Fills newslots[] and returns true, or returns false when there are too
 * few such slots.
 */
bool
bloofi_node_switch_slots(Relation index, const BloofiNode *X, int nold, const uint32 *oldslots,
						 int nnew, uint32 *newslots)
{
	uint32		pages[3];
	int			npages = 0;
	int			got = 0;
	ItemPointerData *tids = palloc(sizeof(ItemPointerData) * X->geom.tids_per_page);

	pages[npages++] = 0;
	for (int i = 0; i < nold; i++)
	{
		bool		have = false;

		for (int k = 0; k < npages; k++)
			have |= pages[k] == SLOT_PAGE(X, oldslots[i]);
		if (!have)
			pages[npages++] = SLOT_PAGE(X, oldslots[i]);
	}
	for (int k = 0; k < npages && got < nnew; k++)
	{
		uint32		first = pages[k] * X->geom.tids_per_page;
		uint32		lim = Min(X->cap, first + X->geom.tids_per_page);

		/* the page's slots: those below nused read, those above free */
		memset(tids, 0, sizeof(ItemPointerData) * X->geom.tids_per_page);
		if (first < X->nused)
		{
			Buffer		buf = ReadBuffer(index, X->start + pages[k]);

			LockBuffer(buf, BUFFER_LOCK_SHARE);
			bloofi_check_page(index, BufferGetPage(buf), X->start + pages[k], BLOOFI_PAGE_TID,
							  X->start);
			memcpy(tids, PageGetContents(BufferGetPage(buf)),
				   sizeof(ItemPointerData) * (lim - first));
			UnlockReleaseBuffer(buf);
		}
		for (uint32 s = first; s < lim && got < nnew; s++)
		{
			bool		isold = false;

			for (int i = 0; i < nold; i++)
				isold |= oldslots[i] == s;
			if (!isold && (s >= X->nused || !ItemPointerIsValid(&tids[s - first])))
				newslots[got++] = s;
		}
	}
	pfree(tids);
	return got == nnew;
}

/*
 * bloofi_node_wal_tid_pages: lock the tid pages pages[from .. n) of the node
 * at start (offsets from start) exclusively, check that each is one of its
 * tid pages and register it in w: wpages[i] is the page to change
 */
void
bloofi_node_wal_tid_pages(Relation index, BloofiWal *w, BlockNumber start,
						  const uint32 *pages, int from, int n, Page *wpages)
{
	for (int i = from; i < n; i++)
	{
		Buffer		buf = ReadBuffer(index, start + pages[i]);

		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		bloofi_check_page(index, BufferGetPage(buf), start + pages[i], BLOOFI_PAGE_TID, start);
		wpages[i] = bloofi_wal_page(w, buf, false, 0);
	}
}

/*
 * The switch of a structural change, in one record: slots oldslots[] of X
 * are cleared, newslots[] (from bloofi_node_switch_slots) get the child
 * references news[], X's counts follow, and the metapage links the new
 * nodes and unlinks the nretire nodes retire[] (bloofi_freespace_link; the
 * caller retires them next).  A reader sees X before or after, never half
 * of it.  The new columns must be in place before.
 */
void
bloofi_node_switch(Relation index, BloofiNode *X, int nold, const uint32 *oldslots,
				   int nnew, const uint32 *newslots, const BlockNumber *news,
				   int nretire, const BlockNumber *retire)
{
	Buffer		metabuf = ReadBuffer(index, BLOOFI_METAPAGE_BLKNO);
	uint32		pages[MAX_GENERIC_XLOG_PAGES];
	Page		wpages[MAX_GENERIC_XLOG_PAGES];
	int			npages = 0;
	BloofiPageOpaque op;
	BloofiWal	w;

	/* the tid pages: the header first, then the others in block order */
	pages[npages++] = 0;
	for (int i = 0; i < nold + nnew; i++)
	{
		uint32		tp = SLOT_PAGE(X, i < nold ? oldslots[i] : newslots[i - nold]);
		bool		have = false;

		for (int k = 0; k < npages; k++)
			have |= pages[k] == tp;
		if (!have)
		{
			if (npages == MAX_GENERIC_XLOG_PAGES - 1)
				elog(ERROR, "bloofi: a switch of node %u spans too many pages", X->start);
			pages[npages++] = tp;
		}
	}
	for (int k = 2; k < npages; k++)
		for (int l = k; l > 1 && pages[l - 1] > pages[l]; l--)
		{
			uint32		t = pages[l];

			pages[l] = pages[l - 1];
			pages[l - 1] = t;
		}
	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	bloofi_wal_begin(&w, index);
	bloofi_freespace_link(bloofi_wal_page(&w, metabuf, false, 0), nretire, retire);
	bloofi_node_wal_tid_pages(index, &w, X->start, pages, 0, npages, wpages);
	op = BloofiPageGetOpaque(wpages[0]);
	for (int i = 0; i < nold + nnew; i++)
	{
		uint32		s = i < nold ? oldslots[i] : newslots[i - nold];
		ItemPointerData *t = NULL;
		ItemPointerData v;

		if (i < nold)
			ItemPointerSetInvalid(&v);
		else
			bloofi_child_ref(&v, news[i - nold]);
		for (int k = 0; k < npages; k++)
			if (pages[k] == SLOT_PAGE(X, s))
				t = &((ItemPointerData *) PageGetContents(wpages[k]))[s % X->geom.tids_per_page];
		Assert(t != NULL);
		if (ItemPointerIsValid(t) && !ItemPointerIsValid(&v))
			op->nlive--;
		else if (!ItemPointerIsValid(t) && ItemPointerIsValid(&v))
			op->nlive++;
		*t = v;
		if (ItemPointerIsValid(&v) && s >= op->nused)
			op->nused = s + 1;
	}
	X->nused = op->nused;
	X->nlive = op->nlive;
	bloofi_wal_flush(&w);
}
