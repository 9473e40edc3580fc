/*
 * bloofi_pending.c
 *    The pending list of a Bloofi index: cheap inserts, flushed in batches.
 *
 * Setting one leaf's bits in a wide bit-sliced node touches every slice page that
 * holds one of its ~m/2 set bits (hundreds to thousands of pages).  So, like
 * GIN's fastupdate, an insert only appends (TID, filter bits) to the tail of
 * a chain of pending pages: one WAL record of the metapage and one or two
 * pending pages.  When BLOOFI_PENDING_FLUSH entries have accumulated (and at
 * every VACUUM), the chain is moved into the tree in one batch, which
 * touches each slice page of a bottom node once for the whole batch.
 *
 * Metapage fields: pending_head/tail/npending (the active chain, appended to
 * under the metapage's exclusive lock), flushing_head (a chain being moved
 * into the tree) and free_head (recycled pending pages).
 *
 * Flush protocol (one flusher at a time: the tree lock of bloofi_freespace.c,
 * taken conditionally by inserters and unconditionally by VACUUM):
 *   1. metapage X: the active chain becomes the flushing chain, the active
 *      chain restarts empty;                                    (one record)
 *   2. its entries are inserted into the tree (bloofi_insert_leaves), so they
 *      are for a while both in the flushing chain and in the tree;
 *   3. metapage X: the flushing chain joins the free list.      (one record)
 * A crash between 1 and 3 leaves flushing_head set: the next flush redoes
 * step 2 for it: a TID already in the tree gets its bits set again in its
 * slot and along its path (a leaf's TID and its bits are separate WAL
 * records, so it may be half written), the others are inserted; no leaf is
 * lost, placed twice or left with missing bits.  Readers scan the chains
 * BEFORE re-reading the root and searching the tree: an entry that left a
 * chain they read late was inserted before, so they find it there;
 * duplicates are harmless in a TID bitmap.  Lock order: metapage, then pending pages;
 * readers hold one share lock at a time.
 *
 * Design notes: docs/bloofi.md.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "bloofi.h"

static uint32
bloofi_pending_per_page(const BloofiMetaData *meta)
{
	return BLOOFI_PAGE_BYTES / BLOOFI_PENDING_ENTRY(8 * bs_words_for_bits(meta->m));
}

/* true when filters of this index are small enough for the pending list */
bool
bloofi_pending_usable(const BloofiMetaData *meta)
{
	return meta->have_params && bloofi_pending_per_page(meta) >= BLOOFI_PENDING_MIN_PER_PAGE;
}

/* a page for the chain (recycled or new), exclusively locked; caller holds the metapage X */
static Buffer
bloofi_pending_get_page(Relation index, BloofiMetaData *meta)
{
	if (meta->free_head != InvalidBlockNumber)
	{
		Buffer		buf = ReadBuffer(index, meta->free_head);

		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		bloofi_check_page(index, BufferGetPage(buf), meta->free_head, BLOOFI_PAGE_PENDING, 0);
		meta->free_head = BloofiPageGetOpaque(BufferGetPage(buf))->next;
		return buf;
	}
	return bloofi_new_buffer(index);
}

void
bloofi_pending_insert(Relation index, ItemPointer tid, const uint8 *filter)
{
	Buffer		metabuf = ReadBuffer(index, BLOOFI_METAPAGE_BLKNO);
	BloofiMetaData *meta;
	BloofiWal	w;
	Page		page = NULL;
	BloofiPageOpaque op;
	uint32		fbytes,
				per_page;
	uint8	   *entry;
	bool		flush;

	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	bloofi_wal_begin(&w, index);
	meta = BloofiPageGetMeta(bloofi_wal_page(&w, metabuf, true, 0));
	fbytes = 8 * bs_words_for_bits(meta->m);
	per_page = bloofi_pending_per_page(meta);

	if (meta->pending_tail != InvalidBlockNumber)
	{
		Buffer		tailbuf = ReadBuffer(index, meta->pending_tail);

		LockBuffer(tailbuf, BUFFER_LOCK_EXCLUSIVE);
		bloofi_check_page(index, BufferGetPage(tailbuf), meta->pending_tail, BLOOFI_PAGE_PENDING, 0);
		if (BloofiPageGetOpaque(BufferGetPage(tailbuf))->nused < per_page)
			page = bloofi_wal_page(&w, tailbuf, false, 0);
		else
		{
			/* full: link a new page after it */
			Buffer		newbuf = bloofi_pending_get_page(index, meta);
			Page		tail = bloofi_wal_page(&w, tailbuf, false, 0);

			page = bloofi_wal_page(&w, newbuf, false, GENERIC_XLOG_FULL_IMAGE);
			bloofi_init_page(page, BLOOFI_PAGE_PENDING, 0, BLOOFI_PAGE_BYTES);
			BloofiPageGetOpaque(tail)->next = BufferGetBlockNumber(newbuf);
			meta->pending_tail = BufferGetBlockNumber(newbuf);
		}
	}
	else
	{
		Buffer		newbuf = bloofi_pending_get_page(index, meta);

		page = bloofi_wal_page(&w, newbuf, false, GENERIC_XLOG_FULL_IMAGE);
		bloofi_init_page(page, BLOOFI_PAGE_PENDING, 0, BLOOFI_PAGE_BYTES);
		meta->pending_head = meta->pending_tail = BufferGetBlockNumber(newbuf);
	}
	op = BloofiPageGetOpaque(page);
	entry = (uint8 *) PageGetContents(page) + (size_t) op->nused * BLOOFI_PENDING_ENTRY(fbytes);
	memset(entry, 0, 8);
	memcpy(entry, tid, sizeof(ItemPointerData));
	memcpy(entry + 8, filter, fbytes);
	op->nused++;
	meta->npending++;
	flush = meta->npending >= BLOOFI_PENDING_FLUSH;
	bloofi_wal_flush(&w);
	UnlockReleaseBuffer(metabuf);

	if (flush)
		bloofi_pending_flush(index, false);
}

/*
 * Call visit(tid, filter) for every entry of the chain starting at head
 * (share locks, one page at a time; at most nblocks pages, so a chain read
 * through a stale pointer always ends).  With strict (no writer can change
 * the chains: bloofi_check, a flush reading its own chain) a page that is
 * not a pending page is an error; else it ends the chain: a reader that
 * read the head before a flush may follow the chain into pages that VACUUM
 * has since given to nodes, and the entries it misses that way were moved
 * into the tree before, where it looks next.
 */
static void
bloofi_chain_visit(Relation index, const BloofiMetaData *meta, BlockNumber head,
				   bool flushing, bool strict, BloofiPendingVisitor visit, void *arg)
{
	uint32		fbytes = 8 * bs_words_for_bits(meta->m);
	BlockNumber nblocks = RelationGetNumberOfBlocks(index);
	BlockNumber blk = head;
	uint8	   *copy = palloc(BLOOFI_PAGE_BYTES);

	for (BlockNumber steps = 0; blk != InvalidBlockNumber && steps < nblocks; steps++)
	{
		Buffer		buf;
		BloofiPageOpaque op;
		uint32		n;

		CHECK_FOR_INTERRUPTS();
		if (blk >= nblocks)
		{
			if (!strict)
				break;
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("index \"%s\" has a pending page pointer %u beyond its %u blocks",
							RelationGetRelationName(index), blk, nblocks)));
		}
		buf = ReadBuffer(index, blk);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		if (!strict)
		{
			Page		page = BufferGetPage(buf);

			if (PageIsNew(page) ||
				PageGetSpecialSize(page) != MAXALIGN(sizeof(BloofiPageOpaqueData)) ||
				BloofiPageGetOpaque(page)->bloofi_page_id != BLOOFI_PAGE_ID ||
				BloofiPageGetOpaque(page)->kind != BLOOFI_PAGE_PENDING)
			{
				UnlockReleaseBuffer(buf);
				break;
			}
		}
		bloofi_check_page(index, BufferGetPage(buf), blk, BLOOFI_PAGE_PENDING, 0);
		op = BloofiPageGetOpaque(BufferGetPage(buf));
		n = Min(op->nused, BLOOFI_PAGE_BYTES / BLOOFI_PENDING_ENTRY(fbytes));
		memcpy(copy, PageGetContents(BufferGetPage(buf)), (size_t) n * BLOOFI_PENDING_ENTRY(fbytes));
		blk = op->next;
		UnlockReleaseBuffer(buf);
		for (uint32 i = 0; i < n; i++)
		{
			uint8	   *e = copy + (size_t) i * BLOOFI_PENDING_ENTRY(fbytes);
			ItemPointerData tid;

			memcpy(&tid, e, sizeof(tid));
			visit(&tid, e + 8, flushing, arg);
		}
	}
	pfree(copy);
}

void
bloofi_pending_visit(Relation index, const BloofiMetaData *meta, bool strict,
					 BloofiPendingVisitor visit, void *arg)
{
	if (!meta->have_params)
		return;
	bloofi_chain_visit(index, meta, meta->pending_head, false, strict, visit, arg);
	bloofi_chain_visit(index, meta, meta->flushing_head, true, strict, visit, arg);
}

typedef struct PendingSearch
{
	const uint32 *pos;
	uint32		npos;
	BloofiMatchCallback cb;
	void	   *arg;
	BloofiSearchStats *st;
} PendingSearch;

static void
bloofi_pending_search_visit(ItemPointer tid, const uint8 *filter, bool flushing, void *arg)
{
	PendingSearch *ps = (PendingSearch *) arg;

	ps->st->nodes_checked++;
	ps->st->leaves_seen++;
	for (uint32 i = 0; i < ps->npos; i++)
		if (!bs_bit_test(filter, ps->pos[i]))
			return;
	if (ItemPointerIsValid(tid))
	{
		ps->st->matches++;
		if (ps->cb)
			ps->cb(tid, ps->arg);
	}
}

/* lookup in the pending chains: every entry tested (they are few) */
void
bloofi_pending_search(Relation index, const BloofiMetaData *meta,
					  const uint32 *pos, uint32 npos,
					  BloofiMatchCallback cb, void *arg, BloofiSearchStats *st)
{
	PendingSearch ps = {pos, npos, cb, arg, st};

	bloofi_pending_visit(index, meta, false, bloofi_pending_search_visit, &ps);
}

typedef struct PendingCollect
{
	uint32		fbytes;
	int			n;
	int			cap;
	ItemPointerData *tids;
	uint8	   *bits;
} PendingCollect;

static void
bloofi_pending_collect(ItemPointer tid, const uint8 *filter, bool flushing, void *arg)
{
	PendingCollect *pc = (PendingCollect *) arg;

	if (pc->n == pc->cap)
	{
		pc->cap *= 2;
		pc->tids = repalloc_huge(pc->tids, sizeof(ItemPointerData) * pc->cap);
		pc->bits = repalloc_huge(pc->bits, (Size) pc->fbytes * pc->cap);
	}
	pc->tids[pc->n] = *tid;
	memcpy(pc->bits + (size_t) pc->n * pc->fbytes, filter, pc->fbytes);
	pc->n++;
}

/*
 * Flush step 1: detach the active chain as the flushing chain, unless a
 * crashed flush left one (*leftover).  Sets *head to the flushing chain's
 * first page; returns false when there is nothing to flush.
 */
static bool
bloofi_flush_detach(Relation index, BlockNumber *head, bool *leftover)
{
	Buffer		metabuf = ReadBuffer(index, BLOOFI_METAPAGE_BLKNO);
	BloofiMetaData *meta;
	BloofiWal	w;

	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	meta = BloofiPageGetMeta(BufferGetPage(metabuf));
	*leftover = meta->flushing_head != InvalidBlockNumber;
	if (!*leftover && meta->pending_head == InvalidBlockNumber)
	{
		UnlockReleaseBuffer(metabuf);
		return false;
	}
	if (!*leftover)
	{
		bloofi_wal_begin(&w, index);
		meta = BloofiPageGetMeta(bloofi_wal_page(&w, metabuf, true, 0));
		meta->flushing_head = meta->pending_head;
		meta->pending_head = meta->pending_tail = InvalidBlockNumber;
		meta->npending = 0;
		bloofi_wal_flush(&w);
	}
	/* (read from the buffer: the WAL image is gone after the flush) */
	*head = BloofiPageGetMeta(BufferGetPage(metabuf))->flushing_head;
	UnlockReleaseBuffer(metabuf);
	return true;
}

/*
 * A crashed flush's entries (pc): those whose TID reached the tree may lack
 * some of their slice bits (TIDs and bits are separate WAL records), so
 * their bits are set again in place, per bottom node; the others are left
 * in pc->tids[0..] and filters[0..] to be placed as usual.  Returns how many
 * are left.
 */
static int
bloofi_flush_refill(Relation index, const BloofiMetaData *meta, PendingCollect *pc,
					const uint8 **filters)
{
	/* the TIDs already in the tree, with their bottom node and slot */
	HTAB	   *have = bloofi_leaf_slots(index, meta, "bloofi tree tids");
	BloofiLeafSlot **found = palloc(sizeof(BloofiLeafSlot *) * Max(pc->n, 1));
	uint32	   *slots = palloc(sizeof(uint32) * Max(pc->n, 1));
	const uint8 **refill = palloc(sizeof(uint8 *) * Max(pc->n, 1));
	bool	   *done = palloc0(sizeof(bool) * Max(pc->n, 1));
	int			out = 0;

	for (int i = 0; i < pc->n; i++)
	{
		found[i] = hash_search(have, &pc->tids[i], HASH_FIND, NULL);
		if (!found[i])
		{
			pc->tids[out] = pc->tids[i];
			filters[out++] = pc->bits + (size_t) i * pc->fbytes;
		}
	}
	/* per bottom node, the leaves to complete */
	for (int i = 0; i < pc->n; i++)
	{
		int			nr = 0;

		if (!found[i] || done[i])
			continue;
		for (int j = i; j < pc->n; j++)
			if (found[j] && !done[j] && found[j]->node == found[i]->node)
			{
				slots[nr] = found[j]->slot;
				refill[nr++] = pc->bits + (size_t) j * pc->fbytes;
				done[j] = true;
			}
		bloofi_refill_leaves(index, found[i]->node, nr, slots, refill);
	}
	return out;
}

/*
 * Flush step 2: the entries of the flushing chain at head into the tree
 * (those of a crashed flush completed in place first).
 */
static void
bloofi_flush_entries(Relation index, BlockNumber head, bool leftover)
{
	BloofiMetaData *meta = bloofi_read_meta(index);
	PendingCollect pc;
	const uint8 **filters;
	int			out = 0;

	pc.fbytes = 8 * bs_words_for_bits(meta->m);
	pc.n = 0;
	pc.cap = 64;
	pc.tids = palloc(sizeof(ItemPointerData) * pc.cap);
	pc.bits = palloc((Size) pc.fbytes * pc.cap);
	bloofi_chain_visit(index, meta, head, true, true, bloofi_pending_collect, &pc);
	filters = palloc(sizeof(uint8 *) * Max(pc.n, 1));
	if (leftover)
		out = bloofi_flush_refill(index, meta, &pc, filters);
	else
		for (int i = 0; i < pc.n; i++)
		{
			pc.tids[out] = pc.tids[i];
			filters[out++] = pc.bits + (size_t) i * pc.fbytes;
		}
	for (int i = 0; i < out; i += 1024)
		bloofi_insert_leaves(index, Min(1024, out - i), pc.tids + i, filters + i);
}

/* Flush step 3: the flushing chain at head joins the pending free chain */
static void
bloofi_flush_release(Relation index, BlockNumber head)
{
	Buffer		metabuf = ReadBuffer(index, BLOOFI_METAPAGE_BLKNO);
	BloofiMetaData *meta;
	BloofiWal	w;
	BlockNumber last = head;
	BlockNumber nblocks;
	Buffer		lastbuf;
	Page		lastpage;

	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	bloofi_wal_begin(&w, index);
	meta = BloofiPageGetMeta(bloofi_wal_page(&w, metabuf, true, 0));
	nblocks = RelationGetNumberOfBlocks(index);
	for (BlockNumber steps = 0; steps < nblocks; steps++)
	{
		Buffer		buf = ReadBuffer(index, last);
		BlockNumber next;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		next = BloofiPageGetOpaque(BufferGetPage(buf))->next;
		UnlockReleaseBuffer(buf);
		if (next == InvalidBlockNumber)
			break;
		last = next;
	}
	lastbuf = ReadBuffer(index, last);
	LockBuffer(lastbuf, BUFFER_LOCK_EXCLUSIVE);
	lastpage = bloofi_wal_page(&w, lastbuf, false, 0);
	BloofiPageGetOpaque(lastpage)->next = meta->free_head;
	meta->free_head = head;
	meta->flushing_head = InvalidBlockNumber;
	bloofi_wal_flush(&w);
	UnlockReleaseBuffer(metabuf);
}

/*
 * Move the pending entries into the tree (protocol at the top).  With
 * wait = false, returns at once when another backend is flushing.
 */
void
bloofi_pending_flush(Relation index, bool wait)
{
	BlockNumber head;
	bool		leftover;
	MemoryContext tmp,
				old;

	if (wait)
		bloofi_lock_tree(index);
	else if (!bloofi_trylock_tree(index))
		return;

	tmp = AllocSetContextCreate(CurrentMemoryContext, "bloofi flush context",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(tmp);
	if (bloofi_flush_detach(index, &head, &leftover))
	{
		bloofi_flush_entries(index, head, leftover);
		bloofi_flush_release(index, head);

		/*
		 * that was a crashed flush's chain: now the active one (same lock,
		 * re-entrant)
		 */
		if (leftover)
			bloofi_pending_flush(index, true);
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(tmp);
	bloofi_unlock_tree(index);
}
