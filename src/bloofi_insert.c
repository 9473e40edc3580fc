/*
 * bloofi_insert.c
 *    Inserting filters into the Bloofi tree (the paper's section 3.1, with
 *    the no-split heuristic of section 3.4): one leaf or a batch, with the
 *    splits and growth they need.
 *
 * Insert (Algorithm 2 of the paper): descend from the root to the child
 * whose value is the closest to the new filter in Hamming distance, down to
 * a bottom node (level 0, whose children are leaves); add the leaf there and
 * OR the filter into every value on the path.  A node that would get more
 * than 2d children is split in two first (children partitioned by
 * similarity, bloofi_tree_split_choice), which adds a child to its parent
 * and may split it in turn, up to a new root; the leaf then descends again
 * and goes in the usual way.  Exception (section 3.4, refined): a node
 * whose value is saturated (fill^k > 1/2, all ones included) is not split,
 * since its halves would prune no better; it keeps growing, a bottom node up
 * to the leaf_capacity reloption.  So a collection of dense filters (an OR of
 * a few is nearly all ones) gets a few wide bit-sliced bottom nodes, and one
 * of sparse filters gets the paper's tree of d..2d children per node.
 *
 * Design notes: docs/bloofi.md; the locking protocol and the invariants
 * are in its section "Concurrency: the locking protocol".  In short: writers of
 * the tree (pending-list flushes, inserts with fastupdate off, VACUUM) are
 * serialised by the tree lock (bloofi_lock_tree); pending-list appends take
 * only the metapage's buffer lock.  Every change goes through GenericXLog,
 * and every value contains its columns and its children's values (I1-I3)
 * after any prefix of a writer's records, so a cancel, an ERROR or a crash
 * is harmless and no unit of writes needs a critical section.  For that an
 * insert adds bits from the top down (the leaves' TIDs first, then the OR
 * of their filters into every value and column of the path from the root,
 * the bottom node's value, the leaves' own columns last), and a structural
 * change (split, growth) writes new nodes whole from the old ones' columns
 * before one record switches them in, never together with the leaf that
 * needed it; the old node is retired (bloofi_freespace_retire).
 *
 * Batches (a pending-list flush, bloofi_insert_leaves) go in by rounds of
 * these steps: bloofi_insert_batch.c.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "bloofi.h"
#include "bloofi_insert.h"
#include "bloofi_tree.h"


/*
 * Write tids[i] into slots[i] of node X (an invalid tid frees the slot),
 * updating its counts: the header page and up to MAX_GENERIC_XLOG_PAGES - 1
 * other tid pages per record, so the slots of a node of one tid page (every
 * inner node) change in one atomic record.  Then waits
 * bloomsample.bloofi_write_delay, if set (tests stop a writer there).
 */
void
bloofi_node_set_slots(Relation index, BloofiNode *X, int n, const uint32 *slots,
					  const ItemPointerData *tids)
{
	const BloofiGeometry *geom = &X->geom;
	int			done = 0;

	while (done < n)
	{
		Buffer		hdrbuf = ReadBuffer(index, X->start);
		uint32		pages[MAX_GENERIC_XLOG_PAGES];
		Page		wpages[MAX_GENERIC_XLOG_PAGES];
		int			npages = 1;
		int			upto = done;
		BloofiWal	w;
		BloofiPageOpaque op;

		pages[0] = 0;
		/* the slots whose tid pages fit in this record */
		while (upto < n)
		{
			uint32		tp = slots[upto] / geom->tids_per_page;
			bool		have = false;

			for (int i = 0; i < npages; i++)
				have |= pages[i] == tp;
			if (!have)
			{
				if (npages == MAX_GENERIC_XLOG_PAGES)
					break;
				pages[npages++] = tp;
			}
			upto++;
		}
		LockBuffer(hdrbuf, BUFFER_LOCK_EXCLUSIVE);
		bloofi_check_page(index, BufferGetPage(hdrbuf), X->start, BLOOFI_PAGE_TID, X->start);
		bloofi_wal_begin(&w, index);
		wpages[0] = bloofi_wal_page(&w, hdrbuf, false, 0);
		bloofi_node_wal_tid_pages(index, &w, X->start, pages, 1, npages, wpages);
		op = BloofiPageGetOpaque(wpages[0]);
		for (int j = done; j < upto; j++)
		{
			uint32		tp = slots[j] / geom->tids_per_page;
			ItemPointerData *t = NULL;

			for (int i = 0; i < npages; i++)
				if (pages[i] == tp)
					t = &((ItemPointerData *) PageGetContents(wpages[i]))[slots[j] % geom->tids_per_page];
			Assert(t != NULL);
			if (ItemPointerIsValid(t) && !ItemPointerIsValid(&tids[j]))
				op->nlive--;
			else if (!ItemPointerIsValid(t) && ItemPointerIsValid(&tids[j]))
				op->nlive++;
			*t = tids[j];
			if (ItemPointerIsValid(&tids[j]) && slots[j] >= op->nused)
				op->nused = slots[j] + 1;
		}
		X->nused = op->nused;
		X->nlive = op->nlive;
		bloofi_wal_flush(&w);
		done = upto;
	}
	if (bloofi_write_delay > 0)
		bloofi_dev_sleep(bloofi_write_delay);	/* (a test sees it waits here) */
}

/* up to n free slots of X (holes below the high-water mark first); returns how many */
static int
bloofi_free_slots(Relation index, const BloofiNode *X, int n, uint32 *slots)
{
	int			got = 0;

	if (X->nlive < X->nused)
	{
		ItemPointerData *tids = palloc(sizeof(ItemPointerData) * X->nused);

		bloofi_node_read_tids(index, X, X->nused, tids);
		for (uint32 s = 0; s < X->nused && got < n; s++)
			if (!ItemPointerIsValid(&tids[s]))
				slots[got++] = s;
		pfree(tids);
	}
	for (uint32 s = X->nused; s < X->cap && got < n; s++)
		slots[got++] = s;
	return got;
}

/*
 * OR filter into the values along the path, from the root down: each
 * node's value, then its column for the child on the path (the order of the
 * protocol above), so that at every moment the bits are in a top segment of
 * the path.  Called before the bottom node's own value and leaf columns are
 * written.
 */
void
bloofi_propagate(Relation index, const BloofiMetaData *meta, const BloofiPathStep *path,
				 int depth, const uint8 *filter)
{
	for (int i = 0; i < depth; i++)
	{
		BloofiNode	A;

		bloofi_node_read(index, meta, path[i].node, &A);
		bloofi_node_set_bits(index, &A, 1, &path[i].slot, &filter);
	}
}

/* the live children of X: refs/TIDs and values (palloc'd); returns their number */
static int
bloofi_children_alloc(InsertCtx *ic, const BloofiNode *X, ItemPointerData **tids_out,
					  uint8 **vals_out, uint32 **slots_out)
{
	*tids_out = palloc(sizeof(ItemPointerData) * Max(X->nused, 1));
	*vals_out = palloc_extended((Size) Max(X->nused, 1) * ic->fbytes, MCXT_ALLOC_HUGE);
	*slots_out = palloc(sizeof(uint32) * Max(X->nused, 1));
	return bloofi_node_children(ic->index, X, *tids_out, *vals_out, *slots_out);
}

static void bloofi_replace(InsertCtx *ic, BloofiPathStep *path, int depth,
						   const BloofiNode *old, int nnew, const BlockNumber *news,
						   uint8 *const *newvals, int nbelow, const BlockNumber *below);

/*
 * Write the n children (tids, vals) of node X (at path depth `depth`) into
 * one new node when they and max(extra, room) more children to come fit in
 * one (growth: a saturated value, section 3.4), else into two (split by
 * similarity); then replace X by them in its parent.  extra_or (NULL: none)
 * is the OR of the first `extra` children to come, for the saturation test
 * only (a batch's other leaves do not make X saturated: they may end up
 * elsewhere); none is written here.  A grown node gets room for twice its
 * children and those to come, up to X's fan-out limit.  below[0..nbelow) are the nodes under X that the children replace
 * (bloofi_replace).  Returns false, writing nothing, when X can be neither
 * grown nor split (fewer than two children).
 */
static bool
bloofi_rebuild_node(InsertCtx *ic, BloofiPathStep *path, int depth, const BloofiNode *X,
					int n, const ItemPointerData *tids, const uint8 *const *vals,
					int extra, const uint8 *extra_or, int room, int nbelow,
					const BlockNumber *below)
{
	uint8	   *value = palloc0(ic->fbytes);
	BlockNumber news[2];
	uint8	   *newvals[2];
	uint32		total = (uint32) n + (uint32) Max(extra, room);
	uint32		limit;
	uint64		want;
	uint32		growcap;

	for (int i = 0; i < n; i++)
		bs_or(value, vals[i], ic->nwords);
	if (extra_or)
		bs_or(value, extra_or, ic->nwords);
	limit = bloofi_node_fanout_limit(ic->meta, X, value);
	want = Max((uint64) total * 2, X->cap) + 2;
	growcap = bloofi_node_cap(ic->d, Min(want, (uint64) limit + 2));

	newvals[0] = palloc(ic->fbytes);
	newvals[1] = palloc(ic->fbytes);
	/* grow (no split: saturated) only into a node left with room: else split */
	if (total <= limit && growcap >= total + Max(2, total / 4))
	{
		news[0] = bloofi_node_write(ic->index, ic->meta, X->level, growcap,
									n, tids, vals, newvals[0], true);
		bloofi_replace(ic, path, depth, X, 1, news, newvals, nbelow, below);
	}
	else if (n >= 2)
	{
		bloofi_node_write_halves(ic->index, ic->meta, X->level, n, tids, vals, news, newvals);
		bloofi_replace(ic, path, depth, X, 2, news, newvals, nbelow, below);
	}
	else
		return false;
	return true;
}

/*
 * bloofi_make_room for a SPARSE node B too wide to copy as rows of filters
 * (bloofi_node_rows_fit): grown into a node with room for twice its leaves
 * and those to come, up to its fan-out limit, else split into halves in
 * slot order, both as lists (bloofi_node_write_gathered).
 */
static bool
bloofi_sparse_make_room(InsertCtx *ic, BloofiPathStep *path, int depth, const BloofiNode *B,
						int room)
{
	uint32		total = B->nlive + (uint32) Max(1, room);
	uint32		limit = bloofi_sparse_leaf_cap(ic->meta);
	uint64		want = Max((uint64) total * 2, B->cap) + 2;
	uint32		growcap = bloofi_node_cap(ic->d, Min(want, (uint64) limit + 2));
	BlockNumber news[2];
	uint8	   *newvals[2];
	int			nnew;

	if (total <= limit && growcap >= total + Max(2, total / 4))
		nnew = 1;
	else if (B->nlive >= 2)
		nnew = 2;
	else
		return false;
	newvals[0] = palloc(ic->fbytes);
	newvals[1] = palloc(ic->fbytes);
	bloofi_node_write_gathered(ic->index, ic->meta, 1, B, nnew, growcap, news, newvals);
	bloofi_replace(ic, path, depth, B, nnew, news, newvals, 0, NULL);
	pfree(newvals[0]);
	pfree(newvals[1]);
	return true;
}

/*
 * Make room in bottom node B (path to it given) for a leaf f, and when B is
 * grown, for `room` leaves (a batch bound for B, f first): its leaves are
 * copied into a grown node or two halves, which replace it.  A pure reorganisation: no value above changes (the copies' values
 * are subsets of B's column in its parent), so nothing is propagated; the
 * new leaves go in afterwards, by a new descent, the usual way.  Returns
 * false when B can be neither grown nor split.
 */
bool
bloofi_make_room(InsertCtx *ic, BloofiPathStep *path, int depth, const BloofiNode *B,
				 const uint8 *f, int room)
{
	ItemPointerData *ctids;
	uint8	   *cvals;
	uint32	   *cslots;
	int			cn;
	const uint8 **v;
	bool		done;

	if (bloofi_node_is_sparse(B) && !bloofi_node_rows_fit(ic->meta, B))
		return bloofi_sparse_make_room(ic, path, depth, B, room);
	cn = bloofi_children_alloc(ic, B, &ctids, &cvals, &cslots);
	v = palloc(sizeof(uint8 *) * Max(cn, 1));

	for (int i = 0; i < cn; i++)
		v[i] = cvals + (size_t) i * ic->fbytes;
	done = bloofi_rebuild_node(ic, path, depth, B, cn, ctids, v, 1, f, room, 0, NULL);
	pfree(ctids);
	pfree(cvals);
	pfree(cslots);
	pfree(v);
	return done;
}

/*
 * Replace node old (at path depth `depth`; depth 0 = the root) by nnew (1 or
 * 2) new nodes news[] with values newvals[].  The parent takes them in free
 * slots and switches in one record when it has room; else it is rebuilt
 * (grown or split) in turn, and so on up, possibly to a new root.  The one
 * record that switches the highest node changed links every new node and
 * unlinks old and the nodes below[0..nbelow) that the new ones replace
 * (bloofi_node_switch, bloofi_set_root); they are retired right after.
 * The new values are subsets of old's column in the parent, so no value
 * above changes.
 */
static void
bloofi_replace(InsertCtx *ic, BloofiPathStep *path, int depth, const BloofiNode *old,
			   int nnew, const BlockNumber *news, uint8 *const *newvals,
			   int nbelow, const BlockNumber *below)
{
	Relation	index = ic->index;
	BloofiNode	P;
	uint8	   *parent_value;
	uint32		s;
	uint32		free_slots[2];
	BlockNumber *unlinked = palloc(sizeof(BlockNumber) * (nbelow + 1));
	int			nunlinked = nbelow + 1;

	if (nbelow > 0)
		memcpy(unlinked, below, sizeof(BlockNumber) * nbelow);
	unlinked[nbelow] = old->start;
	if (depth == 0)
	{
		BlockNumber root = news[0];
		uint32		height = ic->meta->height;

		if (nnew == 2)
		{
			ItemPointerData refs[2];

			bloofi_child_ref(&refs[0], news[0]);
			bloofi_child_ref(&refs[1], news[1]);
			root = bloofi_node_write(index, ic->meta, old->level + 1,
									 bloofi_node_cap(ic->d, 0), 2, refs,
									 (const uint8 *const *) newvals, NULL, true);
			height++;
		}
		bloofi_set_root(index, root, height, nunlinked, unlinked);
	}
	else
	{
		bloofi_node_read(index, ic->meta, path[depth - 1].node, &P);
		s = path[depth - 1].slot;
		parent_value = palloc(ic->fbytes);
		bloofi_node_read_value(index, &P, parent_value);
		if (P.nlive - 1 + nnew <= bloofi_fanout_limit(ic->meta, P.level, parent_value) &&
			bloofi_node_switch_slots(index, &P, 1, &s, nnew, free_slots))
		{
			/*
			 * The new columns (unreferenced yet), then the switch.  The
			 * vacated column keeps its bits: nothing reads a slot without a
			 * child, and the column is written whole when the slot is reused.
			 */
			bloofi_node_put_columns(index, &P, nnew, free_slots, (const uint8 *const *) newvals);
			bloofi_node_switch(index, &P, 1, &s, nnew, free_slots, news, nunlinked, unlinked);
		}
		else
		{
			/*
			 * the parent must be grown or split: its children with old
			 * replaced
			 */
			ItemPointerData *ptids;
			uint8	   *pvals;
			uint32	   *pslots;
			int			pn = bloofi_children_alloc(ic, &P, &ptids, &pvals, &pslots);
			ItemPointerData *ctids = palloc(sizeof(ItemPointerData) * (pn + 2));
			const uint8 **cvals = palloc(sizeof(uint8 *) * (pn + 2));
			int			cn = 0;

			for (int i = 0; i < pn; i++)
				if (pslots[i] != s)
				{
					ctids[cn] = ptids[i];
					cvals[cn++] = pvals + (size_t) i * ic->fbytes;
				}
			for (int i = 0; i < nnew; i++)
			{
				bloofi_child_ref(&ctids[cn], news[i]);
				cvals[cn++] = newvals[i];
			}
			/* (cn >= 2: P held old and at least one other child, or gets two) */
			if (!bloofi_rebuild_node(ic, path, depth - 1, &P, cn, ctids, cvals, 0, NULL, 0,
									 nunlinked, unlinked))
				elog(ERROR, "bloofi: cannot rebuild node %u of index \"%s\"",
					 P.start, RelationGetRelationName(index));
			return;				/* (the switch above retired them all) */
		}
	}
	for (int i = 0; i < nunlinked; i++)
	{
		bloofi_freespace_retire(index, unlinked[i]);
		if (ic->nretired == ic->retcap)
		{
			ic->retcap = Max(16, 2 * ic->retcap);
			ic->retired = ic->retired ? repalloc(ic->retired, sizeof(BlockNumber) * ic->retcap) :
				palloc(sizeof(BlockNumber) * ic->retcap);
		}
		ic->retired[ic->nretired++] = unlinked[i];
	}
	ic->meta = bloofi_read_meta(index);
}

/* true when the path to bottom node B goes through a node retired since it was read */
bool
bloofi_path_stale(const InsertCtx *ic, const BloofiPathStep *path, int depth, BlockNumber B)
{
	for (int r = 0; r < ic->nretired; r++)
	{
		if (ic->retired[r] == B)
			return true;
		for (int i = 0; i < depth; i++)
			if (path[i].node == ic->retired[r])
				return true;
	}
	return false;
}

/*
 * Descend from the root to the bottom node closest to f, recording the path
 * (the paper's insert descent: at each node the child at the smallest
 * Hamming distance, ties to the lowest slot).
 */
void
bloofi_descend(InsertCtx *ic, const uint8 *f, BloofiPathStep *path, int *depth,
			   BloofiNode *bottom)
{
	BlockNumber cur = ic->meta->root;

	*depth = 0;
	for (;;)
	{
		BloofiNode	X;
		DescentEntry local;
		DescentEntry *e = NULL;
		int			best;

		CHECK_FOR_INTERRUPTS();
		if (ic->cache)
			e = hash_search(ic->cache, &cur, HASH_FIND, NULL);
		if (e == NULL)
		{
			bloofi_node_read(ic->index, ic->meta, cur, &X);
			if (X.level == 0)
			{
				*bottom = X;
				return;
			}
			if (*depth + 1 >= BLOOFI_MAX_HEIGHT)
				elog(ERROR, "bloofi: tree of index \"%s\" deeper than %d levels",
					 RelationGetRelationName(ic->index), BLOOFI_MAX_HEIGHT);
			e = &local;
			e->n = bloofi_children_alloc(ic, &X, &e->tids, &e->vals, &e->slots);
			if (e->n == 0)
				ereport(ERROR,
						(errcode(ERRCODE_INDEX_CORRUPTED),
						 errmsg("index \"%s\" has an inner node without children at block %u",
								RelationGetRelationName(ic->index), cur),
						 errhint("Please REINDEX it.")));
			e->vp = palloc(sizeof(uint8 *) * e->n);
			for (int i = 0; i < e->n; i++)
				e->vp[i] = e->vals + (size_t) i * ic->fbytes;
			/* kept for the batch's other descents while the cache has room */
			if (ic->cache && ic->cache_bytes < (Size) maintenance_work_mem * 1024 / 2)
			{
				DescentEntry *c = hash_search(ic->cache, &cur, HASH_ENTER, NULL);

				*c = local;
				c->start = cur;
				ic->cache_bytes += (Size) X.nused * (ic->fbytes + 16);
				e = c;
			}
		}
		else if (*depth + 1 >= BLOOFI_MAX_HEIGHT)
			elog(ERROR, "bloofi: tree of index \"%s\" deeper than %d levels",
				 RelationGetRelationName(ic->index), BLOOFI_MAX_HEIGHT);
		best = bloofi_tree_closest(e->vp, e->n, f, ic->nwords);
		path[*depth].node = cur;
		path[*depth].slot = e->slots[best];
		(*depth)++;
		cur = ItemPointerGetBlockNumber(&e->tids[best]);
		if (e == &local)
		{
			pfree(local.tids);
			pfree(local.vals);
			pfree(local.slots);
			pfree(local.vp);
		}
	}
}

/*
 * The columns of n leaves into SPARSE bottom node B0, whose TIDs are in
 * their slots and whose OR is on the path already (the last step of an
 * insert).  A SPARSE node is never changed in place: it is rewritten whole
 * with the leaves' columns (and without its dead leaves' bits), and the copy
 * replaces it in its parent (bloofi_replace); the copy's value is B0's with
 * the leaves, a subset of B0's column in the parent, so nothing above
 * changes.  The lists are rebuilt as lists (bloofi_sparse_rebuild): memory
 * and work follow the node's set bits, not its slots times m.  The path is
 * found again: an earlier group of the round may have replaced B0's parent.
 */
static void
bloofi_sparse_put_leaves(InsertCtx *ic, const BloofiNode *B0, int n, const uint32 *slots,
						 const uint8 *const *filters)
{
	BloofiPathStep path[BLOOFI_MAX_HEIGHT];
	int			depth;
	BloofiNode	B;
	ItemPointerData *tids;
	uint8	   *v1;
	uint8	   *out;
	BlockNumber news[1];
	uint8	   *newvals[1];

	ic->meta = bloofi_read_meta(ic->index);
	if (!bloofi_find_path(ic->index, ic->meta, B0->start, path, &depth))
		elog(ERROR, "bloofi: sparse node %u of index \"%s\" is not in the tree",
			 B0->start, RelationGetRelationName(ic->index));
	bloofi_node_read(ic->index, ic->meta, B0->start, &B);
	tids = palloc(sizeof(ItemPointerData) * Max(B.nused, 1));
	bloofi_node_read_tids(ic->index, &B, B.nused, tids);
	v1 = bloofi_sparse_load(ic->index, &B);
	out = bloofi_sparse_relist(v1, &B, tids, n, slots, filters, ic->nwords);
	newvals[0] = palloc0(ic->fbytes);
	news[0] = bloofi_node_write_lists(ic->index, ic->meta, B.cap, B.nused, tids, out,
									  newvals[0], true);
	bloofi_replace(ic, path, depth, &B, 1, news, newvals, 0, NULL);
	pfree(v1);
	pfree(out);
	pfree(tids);
	pfree(newvals[0]);
}

/*
 * The last step of an insert into bottom node B: its value, then the
 * leaves' columns, in place (bloofi_node_set_bits) or, for a SPARSE node,
 * by a rewrite.
 */
void
bloofi_bottom_put_columns(InsertCtx *ic, BloofiNode *B, int n, const uint32 *slots,
						  const uint8 *const *filters)
{
	if (bloofi_node_is_sparse(B))
	{
		uint8	   *batch_value = palloc0(ic->fbytes);

		for (int i = 0; i < n; i++)
			bs_or(batch_value, filters[i], ic->nwords);
		bloofi_node_update_value(ic->index, B, batch_value, false);
		bloofi_sparse_put_leaves(ic, B, n, slots, filters);
		pfree(batch_value);
	}
	else
		bloofi_node_set_bits(ic->index, B, n, slots, filters);
}

/*
 * Whether n leaves (filters) fit in bottom node B, as it is now (re-read: a
 * leaf inserted alone may have gone in since the descent): fan-out and free
 * slots.  Fills batch_value with their OR and slots[0..n) with the free slots they
 * would take.  Writes nothing.
 */
bool
bloofi_bottom_fits(InsertCtx *ic, BloofiNode *B, int n, const uint8 *const *filters,
				   uint8 *batch_value, uint32 *slots)
{
	uint8	   *val = palloc(ic->fbytes);
	bool		fits;

	bloofi_node_read(ic->index, ic->meta, B->start, B);
	bloofi_node_read_value(ic->index, B, val);
	memset(batch_value, 0, ic->fbytes);
	for (int i = 0; i < n; i++)
		bs_or(batch_value, filters[i], ic->nwords);
	bs_or(val, batch_value, ic->nwords);
	fits = B->nlive + n <= bloofi_node_fanout_limit(ic->meta, B, val) &&
		bloofi_free_slots(ic->index, B, n, slots) == n;
	pfree(val);
	return fits;
}

/*
 * How many of the n leaves (filters), taken in order, fit in bottom node B
 * as it is now: its fan-out limit (for its value with the leaves that go
 * in) less its leaves, and its free slots.  Writes nothing.
 */
int
bloofi_bottom_room(InsertCtx *ic, BloofiNode *B, int n, const uint8 *const *filters)
{
	uint8	   *val = palloc(ic->fbytes);
	uint32	   *slots = palloc(sizeof(uint32) * n);
	uint32		limit;
	int			room;

	bloofi_node_read(ic->index, ic->meta, B->start, B);
	bloofi_node_read_value(ic->index, B, val);
	for (int i = 0; i < n; i++)
		bs_or(val, filters[i], ic->nwords);
	limit = bloofi_node_fanout_limit(ic->meta, B, val);
	room = B->nlive >= limit ? 0 : (int) Min((uint32) n, limit - B->nlive);
	room = Min(room, bloofi_free_slots(ic->index, B, room, slots));
	if (room > 0 && room < n)
	{
		/*
		 * the limit for the value with those first leaves only (not
		 * saturated: 2d)
		 */
		bloofi_node_read_value(ic->index, B, val);
		for (int i = 0; i < room; i++)
			bs_or(val, filters[i], ic->nwords);
		limit = bloofi_node_fanout_limit(ic->meta, B, val);
		room = B->nlive >= limit ? 0 : (int) Min((uint32) room, limit - B->nlive);
	}
	pfree(val);
	pfree(slots);
	return room;
}

/*
 * Insert n leaves that all go to bottom node B (path to it given), when they
 * fit: their TIDs (and the node's counts) first, then their OR down the path
 * from the root (bloofi_propagate), then B's value and the leaves' columns.
 * Returns false, writing nothing, when they do not fit.
 */
static bool
bloofi_add_to_bottom(InsertCtx *ic, BloofiPathStep *path, int depth, BloofiNode *B,
					 int n, const ItemPointerData *tids, const uint8 *const *filters,
					 uint8 *batch_value)
{
	uint32	   *slots = palloc(sizeof(uint32) * n);

	if (!bloofi_bottom_fits(ic, B, n, filters, batch_value, slots))
		return false;
	bloofi_node_set_slots(ic->index, B, n, slots, tids);
	bloofi_propagate(ic->index, ic->meta, path, depth, batch_value);
	bloofi_bottom_put_columns(ic, B, n, slots, filters);
	pfree(slots);
	return true;
}

/* at most this many reorganisations for one leaf (each makes room somewhere) */
#define BLOOFI_MAX_ROOM_TRIES	(2 * BLOOFI_MAX_HEIGHT)

/* one leaf: room is made (split, growth) until its descent reaches a node with room */
void
bloofi_insert_one(InsertCtx *ic, const ItemPointerData *tid, const uint8 *f)
{
	BloofiPathStep path[BLOOFI_MAX_HEIGHT];
	int			depth;
	BloofiNode	B;
	uint8	   *batch_value = palloc(ic->fbytes);

	if (ic->meta->root == InvalidBlockNumber)
	{
		BlockNumber root = bloofi_node_write(ic->index, ic->meta, 0,
											 bloofi_node_cap(ic->d, 0), 1, tid, &f, NULL, true);

		bloofi_set_root(ic->index, root, 1, 0, NULL);
		ic->meta = bloofi_read_meta(ic->index);
		return;
	}
	for (int tries = 0;; tries++)
	{
		bloofi_descend(ic, f, path, &depth, &B);
		if (bloofi_add_to_bottom(ic, path, depth, &B, 1, tid, &f, batch_value))
			break;
		if (tries >= BLOOFI_MAX_ROOM_TRIES || !bloofi_make_room(ic, path, depth, &B, f, 1))
			elog(ERROR, "bloofi: no room for a leaf in index \"%s\" (bottom node %u, %u of %u slots live)",
				 RelationGetRelationName(ic->index), B.start, B.nlive, B.cap);
	}
	pfree(batch_value);
}

/*
 * bloofi_refill_leaves: set again the bits of n leaves already in bottom
 * node `node` at slots[i] (filters[i]), and along its path.  Redo of a
 * pending-list flush that a crash interrupted: the flush wrote a leaf's TID
 * in one WAL record and its bits in later ones; the flushing chain still
 * holds the whole filter.  Caller holds the tree lock.
 */
void
bloofi_refill_leaves(Relation index, BlockNumber node, int n, const uint32 *slots,
					 const uint8 *const *filters)
{
	BloofiMetaData *meta = bloofi_read_meta(index);
	BloofiNode	B;
	BloofiPathStep path[BLOOFI_MAX_HEIGHT];
	int			depth;
	uint8	   *batch_value = palloc0(8 * bs_words_for_bits(meta->m));

	bloofi_node_read(index, meta, node, &B);
	for (int i = 0; i < n; i++)
		bs_or(batch_value, filters[i], bs_words_for_bits(meta->m));
	/* the order of an insert: down the path from the root, then the node */
	if (bloofi_find_path(index, meta, node, path, &depth))
		bloofi_propagate(index, meta, path, depth, batch_value);
	if (bloofi_node_is_sparse(&B))
	{
		InsertCtx	ic;

		ic.index = index;
		ic.meta = meta;
		ic.d = meta->order;
		ic.nwords = bs_words_for_bits(meta->m);
		ic.fbytes = (uint32) (8 * ic.nwords);
		ic.retired = NULL;
		ic.nretired = ic.retcap = 0;
		ic.cache = NULL;
		ic.cache_bytes = 0;
		bloofi_bottom_put_columns(&ic, &B, n, slots, filters);
	}
	else
		bloofi_node_set_bits(index, &B, n, slots, filters);
	pfree(batch_value);
}
