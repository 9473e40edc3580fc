/*
 * bloofi_insert.c
 *    Inserting filters into the Bloofi tree (the paper's section 3.1, with
 *    the no-split heuristic of section 3.4), and THE LOCKING PROTOCOL.
 *
 * Insert (Algorithm 2 of the paper): descend from the root to the child
 * whose value is the closest to the new filter in Hamming distance, down to
 * a bottom node (level 0, whose children are leaves); add the leaf there and
 * OR the filter into every value on the path.  A node that would get more
 * than 2d children is split in two (children partitioned by similarity,
 * bloofi_tree_split_choice), which adds a child to its parent and may split
 * it in turn, up to a new root.  Exception (section 3.4, refined): a node
 * whose value is saturated (fill^k > 1/2, all ones included) is not split,
 * since its halves would prune no better; it keeps growing, a bottom node up
 * to the leaf_capacity reloption.  So a collection of dense filters (an OR of
 * a few is nearly all ones) gets a few wide bit-sliced bottom nodes, and one
 * of sparse filters gets the paper's tree of d..2d children per node.
 *
 * Locking protocol (every page change through GenericXLog)
 * ---------------------------------------------------------
 * 1. Writers of the tree (pending-list flushes, inserts with fastupdate off,
 *    VACUUM) are serialised by the tree lock, a heavyweight lock on the
 *    metapage's block number (bloofi_tree_lock).  So a writer never races
 *    another writer: its descent, the values it reads and the paths it
 *    records stay valid while it holds the lock.
 * 2. Pending-list appends do not take the tree lock: they change only the
 *    metapage and pending pages, under the metapage's exclusive buffer lock
 *    (bloofi_pending.c).  A tree writer changes the metapage (root, chains)
 *    under the same buffer lock, and when it also locks a node page in the
 *    same record it locks the metapage first.
 * 3. Readers (scans, bloofi_probe, the selectivity estimator) take no
 *    heavyweight lock and hold at most one buffer share lock at a time.
 *    They may therefore see any interleaving of a writer's records, and
 *    every record keeps the tree searchable, because:
 *    a. Values only grow in place, and in this order: the new leaf's TID
 *       (with the node's counts), then the bottom node's value, then the
 *       leaf's bits in its slices, then, going up, each ancestor's value
 *       and then its column for the child on the path.  A reader that
 *       misses the leaf misses a row whose transaction has not committed
 *       (the insert finishes before the commit).  Every value contains its
 *       columns, and every column is contained in its child's value, at
 *       every moment (bloofi_check verifies both).
 *    b. Structural changes (split, growth, VACUUM's merges) copy: the new
 *       nodes are written whole, their values put into free columns of the
 *       parent, and one record of the parent's header switches the slots
 *       (old slot cleared, new slots set).  The old node is then RETIRED:
 *       never written again, and freed only when no snapshot older than its
 *       retirement remains (bloofi_node.c).  A reader that read the parent
 *       before the switch reaches the old node and finds everything that
 *       was there; a reader after it reaches the copies.
 *    c. VACUUM shrinks values top-down (a column before its child's value,
 *       a node's columns before its value): bloofi_vacuum.c.
 *    Matches are lossy (recheck): a leaf may be found twice (old and new
 *    node), dead, or in a slot reused since.
 * 4. After a crash, the same orders leave at worst: a leaf whose bits are
 *    in some of the values of its path (an aborted insert, harmless; or a
 *    flushed pending entry, completed by the next flush from the flushing
 *    chain), a VACUUM to redo, and nodes written but never linked (pages
 *    lost until REINDEX).  bloofi_check accepts exactly these states.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "bloofi.h"
#include "bloofi_tree.h"

typedef struct InsertCtx
{
	Relation	index;
	BloofiMetaData *meta;
	uint32		d;
	uint32		fbytes;
	size_t		nwords;
} InsertCtx;

/*
 * Set the parameters of an empty index from its first filter (metapage
 * exclusive).  Returns a fresh copy of the metapage.
 */
static BloofiMetaData *
bloofi_set_params(Relation index, const BsParams *p)
{
	Buffer		metabuf = ReadBuffer(index, BLOOFI_METAPAGE_BLKNO);
	BloofiMetaData *meta;
	BloofiWal	w;

	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	meta = BloofiPageGetMeta(BufferGetPage(metabuf));
	if (!meta->have_params)
	{
		bloofi_wal_begin(&w, index);
		meta = BloofiPageGetMeta(bloofi_wal_page(&w, metabuf, true, 0));
		meta->m = p->m;
		meta->k = p->k;
		meta->hash = p->hash;
		meta->seed = p->seed;
		meta->have_params = 1;
		bloofi_wal_flush(&w);
	}
	UnlockReleaseBuffer(metabuf);
	return bloofi_read_meta(index);
}

/*
 * Write tids[i] into slots[i] of node X (an invalid tid frees the slot),
 * updating its counts: the header page and up to MAX_GENERIC_XLOG_PAGES - 1
 * other tid pages per record, so the slots of a node of one tid page (every
 * inner node) change in one atomic record.
 */
static void
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
		for (int i = 1; i < npages; i++)
		{
			Buffer		buf = ReadBuffer(index, X->start + pages[i]);

			LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
			bloofi_check_page(index, BufferGetPage(buf), X->start + pages[i], BLOOFI_PAGE_TID,
							  X->start);
			wpages[i] = bloofi_wal_page(&w, buf, false, 0);
		}
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
 * OR filter into the values along the path, from the lowest step up: each
 * ancestor's value, then its column for the child on the path (the order of
 * the protocol above).
 */
void
bloofi_propagate(Relation index, const BloofiMetaData *meta, const BloofiPathStep *path,
				 int depth, const uint8 *filter)
{
	for (int i = depth - 1; i >= 0; i--)
	{
		BloofiNode A;

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
						   uint8 *const *newvals, const uint8 *f);

/*
 * Write the new nodes for node X (at path depth `depth`) whose children are
 * now the n entries (tids, vals): one node when they fit (growth), else two
 * (split by similarity); then replace X by them in its parent.  f is the
 * filter whose insertion caused this (ORed into the ancestors).
 */
static void
bloofi_rebuild_node(InsertCtx *ic, BloofiPathStep *path, int depth, const BloofiNode *X,
					int n, const ItemPointerData *tids, const uint8 *const *vals,
					const uint8 *f)
{
	uint8	   *value = palloc0(ic->fbytes);
	BlockNumber news[2];
	uint8	   *newvals[2];
	uint32		growcap = bloofi_node_cap(ic->d, Max((uint64) n * 2, X->cap) + 2);

	for (int i = 0; i < n; i++)
		bs_or(value, vals[i], ic->nwords);

	newvals[0] = palloc(ic->fbytes);
	newvals[1] = palloc(ic->fbytes);
	/* grow (no split: saturated) only into a node left with room: else split */
	if ((uint32) n <= bloofi_fanout_limit(ic->meta, X->level, value) &&
		growcap >= (uint32) n + Max(2, (uint32) n / 4))
	{
		news[0] = bloofi_node_write(ic->index, ic->meta, X->level, growcap,
									n, tids, vals, newvals[0], true);
		bloofi_replace(ic, path, depth, X, 1, news, newvals, f);
	}
	else
	{
		bloofi_node_write_halves(ic->index, ic->meta, X->level, n, tids, vals, news, newvals);
		bloofi_replace(ic, path, depth, X, 2, news, newvals, f);
	}
}

/*
 * Replace node old (at path depth `depth`; depth 0 = the root) by nnew (1 or
 * 2) new nodes news[] with values newvals[], then retire it.  The parent
 * takes them in free slots and switches in one record when it has room;
 * else it is rebuilt (grown or split) in turn.  f is ORed into the values
 * above the parent.
 */
static void
bloofi_replace(InsertCtx *ic, BloofiPathStep *path, int depth, const BloofiNode *old,
			   int nnew, const BlockNumber *news, uint8 *const *newvals, const uint8 *f)
{
	Relation	index = ic->index;
	BloofiNode	P;
	uint8	   *pval;
	uint32		s;
	uint32		free_slots[2];

	if (depth == 0)
	{
		if (nnew == 1)
			bloofi_set_root(index, news[0], ic->meta->height);
		else
		{
			ItemPointerData refs[2];
			BlockNumber root;

			bloofi_child_ref(&refs[0], news[0]);
			bloofi_child_ref(&refs[1], news[1]);
			root = bloofi_node_write(index, ic->meta, old->level + 1,
									 bloofi_node_cap(ic->d, 0), 2, refs,
									 (const uint8 *const *) newvals, NULL, true);
			bloofi_set_root(index, root, ic->meta->height + 1);
		}
		bloofi_node_retire(index, old->start);
		ic->meta = bloofi_read_meta(index);
		return;
	}

	bloofi_node_read(index, ic->meta, path[depth - 1].node, &P);
	s = path[depth - 1].slot;
	pval = palloc(ic->fbytes);
	bloofi_node_read_summary(index, &P, pval);
	bs_or(pval, f, ic->nwords);
	if (P.nlive - 1 + nnew <= bloofi_fanout_limit(ic->meta, P.level, pval) &&
		bloofi_free_slots(index, &P, nnew, free_slots) == nnew)
	{
		uint32		slots[3];
		ItemPointerData tids[3];

		/* the parent's value, the new columns (unreferenced yet), then the switch */
		bloofi_node_update_value(index, &P, f, false);
		for (int i = 0; i < nnew; i++)
			bloofi_node_put_column(index, &P, free_slots[i], newvals[i]);
		slots[0] = s;
		ItemPointerSetInvalid(&tids[0]);
		for (int i = 0; i < nnew; i++)
		{
			slots[i + 1] = free_slots[i];
			bloofi_child_ref(&tids[i + 1], news[i]);
		}
		bloofi_node_set_slots(index, &P, nnew + 1, slots, tids);
		/* the vacated column: no longer read, cleared for tidiness */
		{
			uint8	   *zero = palloc0(ic->fbytes);

			bloofi_node_put_column(index, &P, s, zero);
			pfree(zero);
		}
		bloofi_node_retire(index, old->start);
		bloofi_propagate(index, ic->meta, path, depth - 1, f);
		ic->meta = bloofi_read_meta(index);
		return;
	}

	/* the parent must be grown or split: its children with old replaced */
	{
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
		/* P's own value gains f through its copies; old is retired after the switch */
		bloofi_rebuild_node(ic, path, depth - 1, &P, cn, ctids, cvals, f);
		bloofi_node_retire(index, old->start);
	}
}

/*
 * Descend from the root to the bottom node closest to f, recording the path
 * (the paper's insert descent: at each node the child at the smallest
 * Hamming distance, ties to the lowest slot).
 */
static void
bloofi_descend(InsertCtx *ic, const uint8 *f, BloofiPathStep *path, int *depth,
			   BloofiNode *bottom)
{
	BlockNumber cur = ic->meta->root;

	*depth = 0;
	for (;;)
	{
		BloofiNode X;
		ItemPointerData *tids;
		uint8	   *vals;
		uint32	   *slots;
		const uint8 **vp;
		int			n,
					best;

		CHECK_FOR_INTERRUPTS();
		bloofi_node_read(ic->index, ic->meta, cur, &X);
		if (X.level == 0)
		{
			*bottom = X;
			return;
		}
		if (*depth + 1 >= BLOOFI_MAX_HEIGHT)
			elog(ERROR, "bloofi: tree of index \"%s\" deeper than %d levels",
				 RelationGetRelationName(ic->index), BLOOFI_MAX_HEIGHT);
		n = bloofi_children_alloc(ic, &X, &tids, &vals, &slots);
		if (n == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("index \"%s\" has an inner node without children at block %u",
							RelationGetRelationName(ic->index), cur),
					 errhint("Please REINDEX it.")));
		vp = palloc(sizeof(uint8 *) * n);
		for (int i = 0; i < n; i++)
			vp[i] = vals + (size_t) i * ic->fbytes;
		best = bloofi_tree_closest(vp, n, f, ic->nwords);
		path[*depth].node = cur;
		path[*depth].slot = slots[best];
		(*depth)++;
		cur = ItemPointerGetBlockNumber(&tids[best]);
		pfree(tids);
		pfree(vals);
		pfree(slots);
		pfree(vp);
	}
}

/* insert n leaves that all go to bottom node B (path to it given) */
static bool
bloofi_add_to_bottom(InsertCtx *ic, BloofiPathStep *path, int depth, BloofiNode *B,
					 int n, const ItemPointerData *tids, const uint8 *const *filters)
{
	uint8	   *val = palloc(ic->fbytes);
	uint8	   *orf = palloc0(ic->fbytes);
	uint32	   *slots = palloc(sizeof(uint32) * n);

	bloofi_node_read_summary(ic->index, B, val);
	for (int i = 0; i < n; i++)
		bs_or(orf, filters[i], ic->nwords);
	bs_or(val, orf, ic->nwords);
	if (B->nlive + n > bloofi_fanout_limit(ic->meta, 0, val) ||
		bloofi_free_slots(ic->index, B, n, slots) < n)
		return false;
	/* TIDs and counts, the node's value and slices, then the ancestors */
	bloofi_node_set_slots(ic->index, B, n, slots, tids);
	bloofi_node_set_bits(ic->index, B, n, slots, filters);
	bloofi_propagate(ic->index, ic->meta, path, depth, orf);
	return true;
}

/* one leaf, with splits or growth when its bottom node is full */
static void
bloofi_insert_one(InsertCtx *ic, const ItemPointerData *tid, const uint8 *f)
{
	BloofiPathStep path[BLOOFI_MAX_HEIGHT];
	int			depth;
	BloofiNode	B;

	if (ic->meta->root == InvalidBlockNumber)
	{
		BlockNumber root = bloofi_node_write(ic->index, ic->meta, 0,
											 bloofi_node_cap(ic->d, 0), 1, tid, &f, NULL, true);

		bloofi_set_root(ic->index, root, 1);
		ic->meta = bloofi_read_meta(ic->index);
		return;
	}
	bloofi_descend(ic, f, path, &depth, &B);
	if (!bloofi_add_to_bottom(ic, path, depth, &B, 1, tid, &f))
	{
		ItemPointerData *ctids;
		uint8	   *cvals;
		uint32	   *cslots;
		int			cn = bloofi_children_alloc(ic, &B, &ctids, &cvals, &cslots);
		ItemPointerData *t = palloc(sizeof(ItemPointerData) * (cn + 1));
		const uint8 **v = palloc(sizeof(uint8 *) * (cn + 1));

		for (int i = 0; i < cn; i++)
		{
			t[i] = ctids[i];
			v[i] = cvals + (size_t) i * ic->fbytes;
		}
		t[cn] = *tid;
		v[cn] = f;
		bloofi_rebuild_node(ic, path, depth, &B, cn + 1, t, v, f);
	}
}

/*
 * Insert n leaves (tids[i], filters[i]); the caller holds the tree lock.
 * Leaves are batched by the bottom node their descent reaches, so a batch
 * touches each slice page of a node once; a batch that does not fit goes
 * its first leaf alone (splits, growth), after which the descents are
 * redone, at most four times: then every remaining leaf descends on its own.
 */
void
bloofi_insert_leaves(Relation index, int n, const ItemPointerData *tids,
				   const uint8 *const *filters)
{
	InsertCtx	ic;
	MemoryContext tmp = AllocSetContextCreate(CurrentMemoryContext, "bloofi tree insert",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(tmp);
	int		   *todo = palloc(sizeof(int) * Max(n, 1));
	int			ntodo = n;
	int			rounds = 0;

	ic.index = index;
	ic.meta = bloofi_read_meta(index);
	ic.d = ic.meta->order;
	ic.nwords = bs_words_for_bits(ic.meta->m);
	ic.fbytes = (uint32) (8 * ic.nwords);
	for (int i = 0; i < n; i++)
		todo[i] = i;

	while (ntodo > 0)
	{
		/* distinct bottom nodes reached by the remaining leaves, with their paths */
		BloofiPathStep (*paths)[BLOOFI_MAX_HEIGHT] = palloc(sizeof(*paths) * ntodo);
		int		   *depths = palloc(sizeof(int) * ntodo);
		BloofiNode *nodes = palloc(sizeof(BloofiNode) * ntodo);
		int		   *which = palloc(sizeof(int) * ntodo);
		bool	   *done = palloc0(sizeof(bool) * ntodo);
		ItemPointerData *bt = palloc(sizeof(ItemPointerData) * ntodo);
		const uint8 **bf = palloc(sizeof(uint8 *) * ntodo);
		int			ntarget = 0,
					left = 0;
		bool		changed = false;

		if (ic.meta->root == InvalidBlockNumber)
		{
			bloofi_insert_one(&ic, &tids[todo[0]], filters[todo[0]]);
			todo[0] = todo[--ntodo];
			continue;
		}
		if (rounds++ >= 4)
		{
			/* the tree keeps changing shape (small nodes): one descent per leaf */
			for (int t = 0; t < ntodo; t++)
			{
				CHECK_FOR_INTERRUPTS();
				bloofi_insert_one(&ic, &tids[todo[t]], filters[todo[t]]);
			}
			break;
		}
		for (int t = 0; t < ntodo; t++)
		{
			BloofiPathStep p[BLOOFI_MAX_HEIGHT];
			int			d;
			BloofiNode	B;

			bloofi_descend(&ic, filters[todo[t]], p, &d, &B);
			which[t] = -1;
			for (int j = 0; j < ntarget && which[t] < 0; j++)
				if (nodes[j].start == B.start)
					which[t] = j;
			if (which[t] < 0)
			{
				which[t] = ntarget;
				nodes[ntarget] = B;
				depths[ntarget] = d;
				memcpy(paths[ntarget], p, sizeof(BloofiPathStep) * d);
				ntarget++;
			}
		}
		/* a batch per bottom node; after a structural change the descents are stale */
		for (int j = 0; j < ntarget && !changed; j++)
		{
			int			nb = 0;

			for (int t = 0; t < ntodo; t++)
				if (which[t] == j)
				{
					bt[nb] = tids[todo[t]];
					bf[nb++] = filters[todo[t]];
				}
			if (!bloofi_add_to_bottom(&ic, paths[j], depths[j], &nodes[j], nb, bt, bf))
			{
				/* the first leaf the slow way (split, growth); the rest next round */
				for (int t = 0; t < ntodo; t++)
					if (which[t] == j)
					{
						bloofi_insert_one(&ic, &tids[todo[t]], filters[todo[t]]);
						done[t] = true;
						break;
					}
				changed = true;
				continue;
			}
			for (int t = 0; t < ntodo; t++)
				if (which[t] == j)
					done[t] = true;
		}
		for (int t = 0; t < ntodo; t++)
			if (!done[t])
				todo[left++] = todo[t];
		ntodo = left;
		pfree(paths);
		pfree(depths);
		pfree(nodes);
		pfree(which);
		pfree(done);
		pfree(bt);
		pfree(bf);
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(tmp);
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
	uint8	   *orf = palloc0(8 * bs_words_for_bits(meta->m));

	bloofi_node_read(index, meta, node, &B);
	bloofi_node_set_bits(index, &B, n, slots, filters);
	for (int i = 0; i < n; i++)
		bs_or(orf, filters[i], bs_words_for_bits(meta->m));
	if (bloofi_find_path(index, meta, node, path, &depth))
		bloofi_propagate(index, meta, path, depth, orf);
	pfree(orf);
}

bool
bloofi_insert(Relation index, Datum *values, bool *isnull,
			  ItemPointer ht_ctid, Relation heapRel,
			  IndexUniqueCheck checkUnique, bool indexUnchanged,
			  IndexInfo *indexInfo)
{
	BloomView	v;
	BloofiMetaData *meta;
	MemoryContext tmp,
				old;

	if (isnull[0])
		return false;

	tmp = AllocSetContextCreate(CurrentMemoryContext, "bloofi insert context",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(tmp);

	bf_view_datum(values[0], &v);
	meta = bloofi_read_meta(index);
	if (!meta->have_params)
	{
		bloofi_require_max_m(v.p.m);
		meta = bloofi_set_params(index, &v.p);
	}
	bloofi_require_params(index, meta, &v.p);

	if (bloofi_get_fastupdate(index) && bloofi_pending_usable(meta))
		bloofi_pending_insert(index, ht_ctid, v.bits);
	else
	{
		const uint8 *f = v.bits;

		bloofi_tree_lock(index);
		bloofi_insert_leaves(index, 1, ht_ctid, &f);
		bloofi_tree_unlock(index);
	}

	MemoryContextSwitchTo(old);
	MemoryContextDelete(tmp);
	return false;
}
