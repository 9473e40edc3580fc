/*
 * bloofi_freespace.c
 *    Space management of a Bloofi index: the tree lock, the free-page map,
 *    allocation of page runs for new nodes, intents, retiring replaced
 *    nodes, recycling retired nodes and pending pages, truncation of the
 *    file's free tail.
 *
 * Allocation.  A new node is a run of contiguous pages of any length (its
 * geometry: cap and m).  bloofi_freespace_alloc takes the lowest run of free
 * blocks long enough in the free-page map (first fit, within one bitmap
 * page's region; a larger free run is split, its rest stays free), else
 * extends the file.  Free runs are not kept by size: the map is one bit per
 * block, so runs freed next to each other coalesce by themselves, and a
 * node of any size fits wherever enough free blocks lie together.  First
 * fit from the front gathers the used pages at the front of the file and
 * leaves the free ones at its end, where VACUUM cuts them off.
 *
 * Lifecycle of a node's pages:
 *
 *   free --alloc--> NEW (intent) --linked--> in the tree --unlinked--> OLD
 *   (intent) --bloofi_freespace_retire--> retired chain --VACUUM, once no scan
 *   can read it--> FREEING (intent) --> free
 *
 * and of a pending page: the pending free chain (recycled by later pending
 * appends) until VACUUM moves it into the map.  Each arrow is one WAL
 * record, and the intents (bloofi.h) make a writer that stops between two
 * arrows harmless: the next tree writer settles them (bloofi_freespace_recover,
 * run when the tree lock is taken).  Pending appends do not take the tree
 * lock, so they never use the map: their pages come from the pending free
 * chain or the end of the file.
 *
 * When a retired node becomes free.  A lookup that read a parent before a
 * switch may still read the old child: retired nodes are stamped with the
 * next XID when retired and freed by VACUUM once every snapshot is newer
 * (bloofi_freespace_recycle(false)).  That horizon passes only after another
 * transaction has taken an XID, so under bursts of writes each VACUUM frees
 * what the previous one left.  A hot standby's snapshots are not part of the
 * horizon (without hot_standby_feedback): before freeing, VACUUM WAL-logs a
 * recovery conflict at the node's XID (bloofi_wal_standby_conflict), on which
 * the standby cancels the queries that may still read it, as it does for
 * btree's deleted pages.  When VACUUM gets the index's
 * AccessExclusiveLock without waiting (no scan or writer holds any lock on
 * it), no scan can be inside the index, and it frees every retired node
 * (bloofi_freespace_recycle(true)), moves the bitmap pages and then the nodes
 * nearest the end of the file into free runs before them (compaction,
 * bloofi_vacuum.c) and truncates the free tail of the file
 * (bloofi_freespace_truncate), as heap VACUUM truncates a table: no scan can
 * hold a pointer into the blocks cut.  The lock is WAL-logged, so queries
 * on a hot standby that use the index wait for it or are cancelled, as for
 * a table's truncation.  Without the lock (the index in constant use) the
 * file only reuses its free pages and does not shrink.
 *
 * Locks: the tree lock for every change of the map, the intents, the
 * retired chain; the metapage's exclusive buffer lock around each record
 * that changes them (pending appends change other metapage fields
 * concurrently), taken before any other page of the record.
 *
 * Design notes: docs/bloofi.md.
 */
#include "postgres.h"

#include "access/transam.h"
#include "catalog/storage.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "storage/procarray.h"
#include "utils/rel.h"

#include "bloofi.h"
#include "bloofi_space.h"

StaticAssertDecl(sizeof(BloofiMetaData) <= BLOOFI_META_SPACE_OFFSET,
				 "the metapage's fields must end before its space data");
StaticAssertDecl(BLOOFI_META_SPACE_OFFSET + sizeof(BloofiSpaceData) <= BLOOFI_PAGE_BYTES,
				 "the metapage's space data must fit in the page");

#define SPACE_CORRUPT(index, blk, ...) \
	ereport(ERROR, \
			(errcode(ERRCODE_INDEX_CORRUPTED), \
			 errmsg("index \"%s\" has an invalid free-page map at block %u", \
					RelationGetRelationName(index), (blk)), \
			 errdetail(__VA_ARGS__), \
			 errhint("Please REINDEX it.")))

/* add an intent to the metapage image sp (a full list is an internal error) */
static void
space_add_intent(Relation index, BloofiSpaceData *sp, uint32 kind, BlockNumber start,
				 uint32 npages)
{
	if (sp->nintents >= BLOOFI_MAX_INTENTS)
		elog(ERROR, "bloofi: index \"%s\" has %u unsettled page intents",
			 RelationGetRelationName(index), sp->nintents);
	sp->intents[sp->nintents].start = start;
	sp->intents[sp->nintents].npages = npages;
	sp->intents[sp->nintents].kind = kind;
	sp->nintents++;
}

/* drop the intent (kind, start) from the metapage image sp, if there */
static void
space_drop_intent(BloofiSpaceData *sp, uint32 kind, BlockNumber start)
{
	for (uint32 i = 0; i < sp->nintents; i++)
		if (sp->intents[i].kind == kind && sp->intents[i].start == start)
		{
			sp->intents[i] = sp->intents[--sp->nintents];
			return;
		}
}

/* the bitmap page at blk, read and locked in mode, checked */
static Buffer
space_bitmap(Relation index, BlockNumber blk, int mode)
{
	Buffer		buf = ReadBuffer(index, blk);

	LockBuffer(buf, mode);
	bloofi_check_page(index, BufferGetPage(buf), blk, BLOOFI_PAGE_FSM, 0);
	return buf;
}

/*
 * A run of npages contiguous pages for a new node (the caller holds the tree
 * lock): the lowest free run of the map that is long enough, else new pages
 * at the end of the file.  Its first block is returned, and a NEW intent
 * covers the run until the record that links the node into the tree
 * (bloofi_freespace_link).  Pages taken from the map hold whatever they held
 * (the caller writes them as full images); new ones are zeroed.
 */
BlockNumber
bloofi_freespace_alloc(Relation index, uint32 npages)
{
	BlockNumber start = bloofi_freespace_alloc_below(index, npages,
													 RelationGetNumberOfBlocks(index));

	/*
	 * Before the file grows: the retired nodes that no lookup can read any
	 * more, if there are any, are freed now rather than at the next VACUUM,
	 * so that a writer that rewrites nodes (a SPARSE node's inserts, a
	 * flush) reuses the copies it retired in earlier transactions.
	 */
	if (start == InvalidBlockNumber && bloofi_freespace_recycle_settled(index) > 0)
		start = bloofi_freespace_alloc_below(index, npages, RelationGetNumberOfBlocks(index));
	if (start == InvalidBlockNumber)
		start = bloofi_freespace_alloc_below(index, npages, InvalidBlockNumber);
	return start;
}

/*
 * bloofi_freespace_alloc, for a run that ends at or before block limit
 * (InvalidBlockNumber: anywhere, the file extended if need be): returns
 * InvalidBlockNumber, allocating nothing, when the map has no such run.
 */
BlockNumber
bloofi_freespace_alloc_below(Relation index, uint32 npages, BlockNumber limit)
{
	Buffer		metabuf = ReadBuffer(index, BLOOFI_METAPAGE_BLKNO);
	BloofiSpaceData *sp;
	BlockNumber nblocks;
	BlockNumber start = InvalidBlockNumber;
	BloofiWal	w;

	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	sp = BloofiPageGetSpace(BufferGetPage(metabuf));
	nblocks = RelationGetNumberOfBlocks(index);
	for (uint32 j = 0; j < BLOOFI_FSM_DIR && (uint64) j * BLOOFI_FSM_BITS < nblocks; j++)
	{
		uint32		nbits = (uint32) Min((uint64) BLOOFI_FSM_BITS,
										 nblocks - (uint64) j * BLOOFI_FSM_BITS);
		Buffer		buf;
		int64		at;

		if (sp->fsm[j] == 0 || npages > nbits)
			continue;
		buf = space_bitmap(index, sp->fsm[j], BUFFER_LOCK_EXCLUSIVE);
		at = bloofi_bits_find_run((const uint8 *) PageGetContents(BufferGetPage(buf)),
								  nbits, npages);
		if (at < 0)
		{
			UnlockReleaseBuffer(buf);
			continue;
		}
		start = (BlockNumber) ((uint64) j * BLOOFI_FSM_BITS + at);
		if ((uint64) start + npages > limit)
		{
			/* (the lowest run is past the limit: so is every other) */
			UnlockReleaseBuffer(buf);
			UnlockReleaseBuffer(metabuf);
			return InvalidBlockNumber;
		}
		bloofi_wal_begin(&w, index);
		space_add_intent(index, BloofiPageGetSpace(bloofi_wal_page(&w, metabuf, true, 0)),
						 BLOOFI_INTENT_NEW, start, npages);
		bloofi_bits_fill((uint8 *) PageGetContents(bloofi_wal_page(&w, buf, false, 0)),
						 (uint32) at, npages, false);
		bloofi_wal_flush(&w);
		break;
	}
	if (start == InvalidBlockNumber && limit != InvalidBlockNumber)
	{
		UnlockReleaseBuffer(metabuf);
		return InvalidBlockNumber;
	}
	if (start == InvalidBlockNumber)
	{
		/*
		 * the intent first: a crash before the pages exist leaves one that
		 * frees nothing
		 */
		start = nblocks;
		bloofi_wal_begin(&w, index);
		space_add_intent(index, BloofiPageGetSpace(bloofi_wal_page(&w, metabuf, true, 0)),
						 BLOOFI_INTENT_NEW, start, npages);
		bloofi_wal_flush(&w);
		/* contiguous: every extension of the index holds the metapage's lock */
		for (uint32 p = 0; p < npages; p++)
		{
			Buffer		buf;

			if ((p & 63) == 0)
				CHECK_FOR_INTERRUPTS();
			buf = bloofi_new_buffer(index);
			if (BufferGetBlockNumber(buf) != start + p)
				elog(ERROR, "bloofi: index \"%s\" was extended concurrently",
					 RelationGetRelationName(index));
			UnlockReleaseBuffer(buf);
		}
	}
	UnlockReleaseBuffer(metabuf);
	return start;
}

/*
 * In the image of the metapage of a record that links new nodes into the
 * tree (and unlinks the nodes they replace): the NEW intents are settled,
 * and the nretire unlinked nodes get OLD intents until they are retired.
 */
void
bloofi_freespace_link(Page metapage, int nretire, const BlockNumber *retire)
{
	BloofiSpaceData *sp = BloofiPageGetSpace(metapage);

	for (uint32 i = 0; i < sp->nintents;)
		if (sp->intents[i].kind == BLOOFI_INTENT_NEW)
			sp->intents[i] = sp->intents[--sp->nintents];
		else
			i++;
	for (int i = 0; i < nretire; i++)
	{
		Assert(sp->nintents < BLOOFI_MAX_INTENTS);
		sp->intents[sp->nintents].start = retire[i];
		sp->intents[sp->nintents].npages = 0;
		sp->intents[sp->nintents].kind = BLOOFI_INTENT_OLD;
		sp->nintents++;
	}
}

/*
 * Retire the node at start (unlinked from the tree by a switch, which left
 * an OLD intent for it): flag it, stamp it with the next XID and push it on
 * the retired chain, in one record with the metapage that settles the
 * intent.
 */
void
bloofi_freespace_retire(Relation index, BlockNumber start)
{
	Buffer		metabuf = ReadBuffer(index, BLOOFI_METAPAGE_BLKNO);
	Buffer		buf = ReadBuffer(index, start);
	Page		mp;
	BloofiPageOpaque op;
	BloofiWal	w;

	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	bloofi_check_page(index, BufferGetPage(buf), start, BLOOFI_PAGE_TID, start);
	bloofi_wal_begin(&w, index);
	mp = bloofi_wal_page(&w, metabuf, false, 0);
	op = BloofiPageGetOpaque(bloofi_wal_page(&w, buf, false, 0));
	op->flags |= BLOOFI_NODE_RETIRED;
	op->xid = ReadNextTransactionId();
	op->next = BloofiPageGetMeta(mp)->retired_head;
	BloofiPageGetMeta(mp)->retired_head = start;
	space_drop_intent(BloofiPageGetSpace(mp), BLOOFI_INTENT_OLD, start);
	bloofi_wal_flush(&w);
}

/*
 * Mark blocks [start, start + npages) free (clipped to the file), region by
 * region, one record each with the metapage; the last record drops the
 * intent (kind, start) that covers the run.  A region without a bitmap page
 * gets one, made of the run's first block in it.  A bitmap page is never
 * marked free.  Returns the blocks marked.  Caller holds the tree lock and
 * no buffer lock.
 */
static BlockNumber
space_set_free(Relation index, BlockNumber start, uint32 npages, uint32 kind)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(index);
	BlockNumber end = (BlockNumber) Min((uint64) start + npages, (uint64) nblocks);
	BlockNumber a = start;
	BlockNumber marked = 0;

	for (;;)
	{
		Buffer		metabuf = ReadBuffer(index, BLOOFI_METAPAGE_BLKNO);
		BloofiSpaceData *sp;
		BloofiWal	w;
		bool		last;

		LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
		bloofi_wal_begin(&w, index);
		sp = BloofiPageGetSpace(bloofi_wal_page(&w, metabuf, false, 0));
		if (a < end)
		{
			uint32		j = a / BLOOFI_FSM_BITS;
			BlockNumber base = (BlockNumber) ((uint64) j * BLOOFI_FSM_BITS);
			BlockNumber b = (BlockNumber) Min((uint64) end, (uint64) base + BLOOFI_FSM_BITS);

			if (j < BLOOFI_FSM_DIR)
			{
				Buffer		buf;
				Page		bp;
				uint8	   *bits;

				if (sp->fsm[j] == 0)
				{
					buf = ReadBuffer(index, a);
					LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
					bp = bloofi_wal_page(&w, buf, false, GENERIC_XLOG_FULL_IMAGE);
					bloofi_init_page(bp, BLOOFI_PAGE_FSM, 0, BLOOFI_PAGE_BYTES);
					memset(PageGetContents(bp), 0, BLOOFI_PAGE_BYTES);
					sp->fsm[j] = a++;
				}
				else
				{
					buf = space_bitmap(index, sp->fsm[j], BUFFER_LOCK_EXCLUSIVE);
					bp = bloofi_wal_page(&w, buf, false, 0);
				}
				bits = (uint8 *) PageGetContents(bp);
				if (a < b)
				{
					bloofi_bits_fill(bits, a - base, b - a, true);
					marked += b - a;
				}
				/* (the region's bitmap page lies in the region) */
				if (sp->fsm[j] >= a && sp->fsm[j] < b)
				{
					bloofi_bits_fill(bits, sp->fsm[j] - base, 1, false);
					marked--;
				}
			}

			/*
			 * (past the directory's last region: not tracked, lost until
			 * REINDEX)
			 */
			a = b;
		}
		last = a >= end;
		if (last)
			space_drop_intent(sp, kind, start);
		bloofi_wal_flush(&w);
		if (last)
			break;
		CHECK_FOR_INTERRUPTS();
	}
	return marked;
}

/*
 * Settle the intents a writer left behind (bloofi.h).  Called by
 * bloofi_lock_tree when this backend takes the tree lock (not when it
 * already holds it): every intent then belongs to a writer that stopped.
 */
void
bloofi_freespace_recover(Relation index)
{
	for (;;)
	{
		Buffer		metabuf = ReadBuffer(index, BLOOFI_METAPAGE_BLKNO);
		BloofiSpaceData *sp;
		BloofiIntent it;
		bool		any;

		LockBuffer(metabuf, BUFFER_LOCK_SHARE);
		sp = BloofiPageGetSpace(BufferGetPage(metabuf));
		any = sp->nintents > 0;
		if (sp->nintents > BLOOFI_MAX_INTENTS)
			SPACE_CORRUPT(index, BLOOFI_METAPAGE_BLKNO, "The metapage counts %u intents.",
						  sp->nintents);
		if (any)
			it = sp->intents[sp->nintents - 1];
		UnlockReleaseBuffer(metabuf);
		if (!any)
			return;
		switch (it.kind)
		{
			case BLOOFI_INTENT_NEW:
			case BLOOFI_INTENT_FREEING:
				space_set_free(index, it.start, it.npages, it.kind);
				break;
			case BLOOFI_INTENT_TRUNCATE:
				{
					BlockNumber nblocks = RelationGetNumberOfBlocks(index);

					space_set_free(index, it.start,
								   nblocks > it.start ? nblocks - it.start : 0, it.kind);
				}
				break;
			case BLOOFI_INTENT_OLD:
				bloofi_freespace_retire(index, it.start);
				break;
			default:
				SPACE_CORRUPT(index, BLOOFI_METAPAGE_BLKNO, "An intent has kind %u.", it.kind);
		}
	}
}

/*
 * The tree lock: a heavyweight lock on the metapage's block number (as GIN
 * locks its pending-list cleanup) serialising every writer of the tree:
 * pending-list flushes, direct inserts and VACUUM.  Readers never take it.
 * A backend that takes it (rather than taking it again while holding it)
 * first settles what a writer that stopped half-way left behind
 * (bloofi_freespace_recover): every intent found then is such a writer's.
 */
static bool
bloofi_holds_tree_lock(Relation index)
{
	LOCKTAG		tag;

	SET_LOCKTAG_PAGE(tag, index->rd_lockInfo.lockRelId.dbId,
					 index->rd_lockInfo.lockRelId.relId, BLOOFI_METAPAGE_BLKNO);
	return bs_lock_held_by_me(&tag, ExclusiveLock);
}

void
bloofi_lock_tree(Relation index)
{
	bool		again = bloofi_holds_tree_lock(index);

	LockPage(index, BLOOFI_METAPAGE_BLKNO, ExclusiveLock);
	if (!again)
		bloofi_freespace_recover(index);
}

bool
bloofi_trylock_tree(Relation index)
{
	bool		again = bloofi_holds_tree_lock(index);

	if (!ConditionalLockPage(index, BLOOFI_METAPAGE_BLKNO, ExclusiveLock))
		return false;
	if (!again)
		bloofi_freespace_recover(index);
	return true;
}

void
bloofi_unlock_tree(Relation index)
{
	UnlockPage(index, BLOOFI_METAPAGE_BLKNO, ExclusiveLock);
}

/*
 * Free the node at start (npages pages, `next` its successor) of the
 * retired chain (retired_chain) or of 1.0's chain of FREE nodes: off the
 * chain, after prev or as its head, with a FREEING intent (one record),
 * then into the map.  Returns the pages marked free.
 */
static BlockNumber
space_free_chained(Relation index, BlockNumber prev, BlockNumber start, BlockNumber next,
				   uint32 npages, bool retired_chain)
{
	BloofiWal	w;
	Page		mp = bloofi_wal_begin_meta(&w, index);
	if (prev != InvalidBlockNumber)
	{
		Buffer		pbuf = ReadBuffer(index, prev);

		LockBuffer(pbuf, BUFFER_LOCK_EXCLUSIVE);
		bloofi_check_page(index, BufferGetPage(pbuf), prev, BLOOFI_PAGE_TID, prev);
		BloofiPageGetOpaque(bloofi_wal_page(&w, pbuf, false, 0))->next = next;
	}
	else if (retired_chain)
		BloofiPageGetMeta(mp)->retired_head = next;
	else
		BloofiPageGetMeta(mp)->freenode_head = next;
	space_add_intent(index, BloofiPageGetSpace(mp), BLOOFI_INTENT_FREEING, start, npages);
	bloofi_wal_flush(&w);
	return space_set_free(index, start, npages, BLOOFI_INTENT_FREEING);
}

/*
 * VACUUM: free the retired nodes that no lookup can still read: those
 * retired before the oldest snapshot of the cluster (after a recovery
 * conflict for a hot standby's older snapshots), or all of them when the
 * caller holds the index's AccessExclusiveLock.  Also frees the chain of
 * FREE nodes that an index written before the free-page map may have.
 * Returns the pages freed.
 */
BlockNumber
bloofi_freespace_recycle(Relation index, bool all)
{
	BloofiMetaData *meta = bloofi_read_meta(index);
	TransactionId horizon = GetOldestNonRemovableTransactionId(NULL);
	BlockNumber nblocks = RelationGetNumberOfBlocks(index);
	BlockNumber prev = InvalidBlockNumber;
	BlockNumber cur;
	BlockNumber freed = 0;
	TransactionId conflict_logged = InvalidTransactionId;

	/* the old chain of FREE nodes, head first */
	for (BlockNumber steps = 0; meta->freenode_head != InvalidBlockNumber && steps < nblocks;
		 steps++)
	{
		BloofiNode	n;

		bloofi_node_read(index, meta, meta->freenode_head, &n);
		if (!(n.flags & BLOOFI_NODE_FREE))
			SPACE_CORRUPT(index, n.start, "A node on the free chain is not free (flags %u).",
						  n.flags);
		if (!all)				/* as for retired nodes, below */
			bloofi_wal_standby_conflict(index, n.start, n.xid);
		freed += space_free_chained(index, InvalidBlockNumber, n.start, n.next,
									n.geom.total_pages, false);
		meta = bloofi_read_meta(index);
	}

	cur = meta->retired_head;
	for (BlockNumber steps = 0; cur != InvalidBlockNumber && steps < nblocks; steps++)
	{
		BloofiNode	n;

		CHECK_FOR_INTERRUPTS();
		bloofi_node_read(index, meta, cur, &n);
		if (!(n.flags & BLOOFI_NODE_RETIRED))
			SPACE_CORRUPT(index, cur, "A node on the retired chain is not retired (flags %u).",
						  n.flags);
		if (all || (TransactionIdIsValid(n.xid) && TransactionIdPrecedes(n.xid, horizon)))
		{
			/*
			 * A hot standby's snapshots do not hold the horizon back: before
			 * the node's pages can be reused, its queries that may have read
			 * the old parent are cancelled (one record for the chain's newest
			 * freed node covers the older ones).  With the index's
			 * AccessExclusiveLock, its WAL-logged lock keeps them out.
			 */
			if (!all && (!TransactionIdIsValid(conflict_logged) ||
						 TransactionIdFollows(n.xid, conflict_logged)))
			{
				bloofi_wal_standby_conflict(index, cur, n.xid);
				conflict_logged = n.xid;
			}
			freed += space_free_chained(index, prev, cur, n.next, n.geom.total_pages, true);
		}
		else
			prev = cur;
		cur = n.next;
	}
	return freed;
}

/*
 * A tree writer about to extend the file: when a retired node was retired
 * before the oldest snapshot, the retired nodes that no lookup can read any
 * more are freed as VACUUM frees them (bloofi_freespace_recycle(false):
 * with the recovery conflict for a hot standby).  The stamps decrease along
 * the chain (newest first), so the freeable nodes are its tail; the search
 * for the first of them reads at most BLOOFI_RECYCLE_LOOK nodes, so a long
 * chain held back by an old snapshot costs a writer little, and VACUUM
 * frees what is left.  Returns the pages freed.
 */
#define BLOOFI_RECYCLE_LOOK		256

BlockNumber
bloofi_freespace_recycle_settled(Relation index)
{
	BloofiMetaData *meta = bloofi_read_meta(index);
	TransactionId horizon = GetOldestNonRemovableTransactionId(NULL);
	BlockNumber cur = meta->retired_head;

	Assert(bloofi_holds_tree_lock(index));
	for (int steps = 0; cur != InvalidBlockNumber && steps < BLOOFI_RECYCLE_LOOK; steps++)
	{
		BloofiNode	n;

		bloofi_node_read(index, meta, cur, &n);
		if (!(n.flags & BLOOFI_NODE_RETIRED))
			return 0;			/* (VACUUM reports a damaged chain) */
		if (TransactionIdIsValid(n.xid) && TransactionIdPrecedes(n.xid, horizon))
			return bloofi_freespace_recycle(index, false);
		cur = n.next;
	}
	return 0;
}

/*
 * VACUUM: move the pending free chain's pages (left by flushes, recycled by
 * pending appends until now) into the map, where nodes can reuse them and
 * truncation can cut them.  Returns how many.
 */
BlockNumber
bloofi_freespace_reclaim_pending(Relation index)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(index);
	BlockNumber freed = 0;

	for (BlockNumber steps = 0; steps < nblocks; steps++)
	{
		Buffer		metabuf = ReadBuffer(index, BLOOFI_METAPAGE_BLKNO);
		Buffer		buf;
		Page		mp;
		BlockNumber blk;
		BloofiWal	w;

		LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
		blk = BloofiPageGetMeta(BufferGetPage(metabuf))->free_head;
		if (blk == InvalidBlockNumber)
		{
			UnlockReleaseBuffer(metabuf);
			break;
		}
		buf = ReadBuffer(index, blk);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		bloofi_check_page(index, BufferGetPage(buf), blk, BLOOFI_PAGE_PENDING, 0);
		bloofi_wal_begin(&w, index);
		mp = bloofi_wal_page(&w, metabuf, false, 0);
		BloofiPageGetMeta(mp)->free_head = BloofiPageGetOpaque(BufferGetPage(buf))->next;
		UnlockReleaseBuffer(buf);
		space_add_intent(index, BloofiPageGetSpace(mp), BLOOFI_INTENT_FREEING, blk, 1);
		bloofi_wal_flush(&w);
		freed += space_set_free(index, blk, 1, BLOOFI_INTENT_FREEING);
	}
	return freed;
}

/*
 * VACUUM's compaction, holding the index's AccessExclusiveLock: move each
 * bitmap page to the lowest free block of its region when that lies before
 * it (a bitmap page is made of the first block freed in its region, which
 * may split the free space where a node would fit).  One record each: the
 * metapage's directory and the copy, in which the old block is free.
 */
void
bloofi_freespace_move_bitmaps(Relation index)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(index);

	for (uint32 j = 0; j < BLOOFI_FSM_DIR && (uint64) j * BLOOFI_FSM_BITS < nblocks; j++)
	{
		BlockNumber base = (BlockNumber) ((uint64) j * BLOOFI_FSM_BITS);
		uint32		nbits = (uint32) Min((uint64) BLOOFI_FSM_BITS, nblocks - (uint64) base);
		Buffer		metabuf = ReadBuffer(index, BLOOFI_METAPAGE_BLKNO);
		BlockNumber old;
		Buffer		oldbuf,
					newbuf;
		int64		at;
		Page		mp,
					np;
		BloofiWal	w;

		LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
		old = BloofiPageGetSpace(BufferGetPage(metabuf))->fsm[j];
		if (old == 0)
		{
			UnlockReleaseBuffer(metabuf);
			continue;
		}
		oldbuf = space_bitmap(index, old, BUFFER_LOCK_EXCLUSIVE);
		at = bloofi_bits_find_run((const uint8 *) PageGetContents(BufferGetPage(oldbuf)),
								  nbits, 1);
		if (at < 0 || base + (BlockNumber) at >= old)
		{
			UnlockReleaseBuffer(oldbuf);
			UnlockReleaseBuffer(metabuf);
			continue;
		}
		newbuf = ReadBuffer(index, base + (BlockNumber) at);
		LockBuffer(newbuf, BUFFER_LOCK_EXCLUSIVE);
		bloofi_wal_begin(&w, index);
		mp = bloofi_wal_page(&w, metabuf, false, 0);
		np = bloofi_wal_page(&w, newbuf, false, GENERIC_XLOG_FULL_IMAGE);
		memcpy(np, BufferGetPage(oldbuf), BLCKSZ);
		UnlockReleaseBuffer(oldbuf);
		bloofi_bits_fill((uint8 *) PageGetContents(np), (uint32) at, 1, false);
		bloofi_bits_fill((uint8 *) PageGetContents(np), old - base, 1, true);
		BloofiPageGetSpace(mp)->fsm[j] = base + (BlockNumber) at;
		bloofi_wal_flush(&w);
	}
}

/*
 * VACUUM, holding the index's AccessExclusiveLock (no scan can be reading
 * any page): cut the free blocks at the end of the file off it.  The map's
 * bits go first, under a TRUNCATE intent, then the file (RelationTruncate,
 * WAL-logged), then the intent.  Returns the blocks cut.
 */
BlockNumber
bloofi_freespace_truncate(Relation index)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(index);
	BlockNumber trailing = 0;
	BlockNumber newsize;
	Buffer		metabuf;
	BloofiSpaceData sp;
	BloofiWal	w;

	if (nblocks <= 1)
		return 0;
	metabuf = ReadBuffer(index, BLOOFI_METAPAGE_BLKNO);
	LockBuffer(metabuf, BUFFER_LOCK_SHARE);
	memcpy(&sp, BloofiPageGetSpace(BufferGetPage(metabuf)), sizeof(sp));
	UnlockReleaseBuffer(metabuf);
	for (uint32 j = (nblocks - 1) / BLOOFI_FSM_BITS;; j--)
	{
		uint32		nbits = (uint32) Min((uint64) BLOOFI_FSM_BITS,
										 nblocks - (uint64) j * BLOOFI_FSM_BITS);
		Buffer		buf;
		uint32		t;

		if (j >= BLOOFI_FSM_DIR || sp.fsm[j] == 0)
			break;
		buf = space_bitmap(index, sp.fsm[j], BUFFER_LOCK_SHARE);
		t = bloofi_bits_trailing((const uint8 *) PageGetContents(BufferGetPage(buf)), nbits);
		UnlockReleaseBuffer(buf);
		trailing += t;
		if (t < nbits || j == 0)
			break;
	}
	if (trailing == 0)
		return 0;
	newsize = nblocks - trailing;
	Assert(newsize >= 1);

	metabuf = ReadBuffer(index, BLOOFI_METAPAGE_BLKNO);
	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	bloofi_wal_begin(&w, index);
	space_add_intent(index, BloofiPageGetSpace(bloofi_wal_page(&w, metabuf, true, 0)),
					 BLOOFI_INTENT_TRUNCATE, newsize, 0);
	bloofi_wal_flush(&w);
	for (BlockNumber a = newsize; a < nblocks;)
	{
		uint32		j = a / BLOOFI_FSM_BITS;
		BlockNumber base = (BlockNumber) ((uint64) j * BLOOFI_FSM_BITS);
		BlockNumber b = (BlockNumber) Min((uint64) nblocks, (uint64) base + BLOOFI_FSM_BITS);
		Buffer		buf = space_bitmap(index, sp.fsm[j], BUFFER_LOCK_EXCLUSIVE);

		bloofi_wal_begin(&w, index);
		bloofi_bits_fill((uint8 *) PageGetContents(bloofi_wal_page(&w, buf, false, 0)),
						 a - base, b - a, false);
		bloofi_wal_flush(&w);
		a = b;
	}
	UnlockReleaseBuffer(metabuf);

	RelationTruncate(index, newsize);

	metabuf = ReadBuffer(index, BLOOFI_METAPAGE_BLKNO);
	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	bloofi_wal_begin(&w, index);
	space_drop_intent(BloofiPageGetSpace(bloofi_wal_page(&w, metabuf, false, 0)),
					  BLOOFI_INTENT_TRUNCATE, newsize);
	bloofi_wal_flush(&w);
	return trailing;
}

/*
 * Counts for bloofi_stats: free pages and runs of the map, retired nodes
 * and their pages.  Share locks, one page at a time.
 */
void
bloofi_freespace_counts(Relation index, int64 *free_pages, int64 *free_runs,
					int64 *retired_nodes, int64 *retired_pages)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(index);
	BloofiMetaData *meta = bloofi_read_meta(index);
	Buffer		metabuf = ReadBuffer(index, BLOOFI_METAPAGE_BLKNO);
	BloofiSpaceData sp;
	bool		carry = false;
	BlockNumber cur;

	LockBuffer(metabuf, BUFFER_LOCK_SHARE);
	memcpy(&sp, BloofiPageGetSpace(BufferGetPage(metabuf)), sizeof(sp));
	UnlockReleaseBuffer(metabuf);
	*free_pages = *free_runs = *retired_nodes = *retired_pages = 0;
	for (uint32 j = 0; j < BLOOFI_FSM_DIR && (uint64) j * BLOOFI_FSM_BITS < nblocks; j++)
	{
		uint32		nbits = (uint32) Min((uint64) BLOOFI_FSM_BITS,
										 nblocks - (uint64) j * BLOOFI_FSM_BITS);
		const uint8 *bits;
		Buffer		buf;

		if (sp.fsm[j] == 0)
		{
			carry = false;
			continue;
		}
		buf = space_bitmap(index, sp.fsm[j], BUFFER_LOCK_SHARE);
		bits = (const uint8 *) PageGetContents(BufferGetPage(buf));
		*free_pages += bloofi_bits_count(bits, nbits);
		*free_runs += bloofi_bits_runs(bits, nbits, carry);
		carry = bloofi_bit_get(bits, nbits - 1);
		UnlockReleaseBuffer(buf);
	}
	cur = meta->retired_head;
	for (BlockNumber steps = 0; cur != InvalidBlockNumber && steps < nblocks; steps++)
	{
		BloofiNode	n;

		bloofi_node_read(index, meta, cur, &n);
		(*retired_nodes)++;
		*retired_pages += n.geom.total_pages;
		cur = n.next;
	}
}

/*
 * Report every run of blocks the space management accounts for, except the
 * tree and the pending chains (bloofi_check walks those): the map's bitmap
 * pages and free runs, the intents' runs, the retired nodes and an old
 * chain of FREE nodes.  Share locks, one page at a time; for bloofi_check,
 * when no writer runs.
 */
void
bloofi_freespace_visit(Relation index, BloofiSpaceVisitor visit, void *arg)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(index);
	BloofiMetaData *meta = bloofi_read_meta(index);
	Buffer		metabuf = ReadBuffer(index, BLOOFI_METAPAGE_BLKNO);
	BloofiSpaceData sp;
	BlockNumber chains[2];

	LockBuffer(metabuf, BUFFER_LOCK_SHARE);
	memcpy(&sp, BloofiPageGetSpace(BufferGetPage(metabuf)), sizeof(sp));
	UnlockReleaseBuffer(metabuf);
	if (sp.nintents > BLOOFI_MAX_INTENTS)
		SPACE_CORRUPT(index, BLOOFI_METAPAGE_BLKNO, "The metapage counts %u intents.",
					  sp.nintents);
	for (uint32 j = 0; j < BLOOFI_FSM_DIR; j++)
	{
		BlockNumber base = (BlockNumber) ((uint64) j * BLOOFI_FSM_BITS);
		uint32		nbits;
		uint8	   *bits;
		Buffer		buf;
		int64		at = 0;

		if (sp.fsm[j] == 0)
			continue;
		if ((uint64) j * BLOOFI_FSM_BITS >= nblocks || sp.fsm[j] >= nblocks ||
			sp.fsm[j] / BLOOFI_FSM_BITS != j)
			SPACE_CORRUPT(index, sp.fsm[j], "Bitmap page %u of %u blocks is at block %u.",
						  j, nblocks, sp.fsm[j]);
		visit(BLOOFI_OWNER_FSM, sp.fsm[j], 1, arg);
		nbits = (uint32) Min((uint64) BLOOFI_FSM_BITS, nblocks - (uint64) base);
		buf = space_bitmap(index, sp.fsm[j], BUFFER_LOCK_SHARE);
		bits = palloc(BLOOFI_PAGE_BYTES);
		memcpy(bits, PageGetContents(BufferGetPage(buf)), BLOOFI_PAGE_BYTES);
		UnlockReleaseBuffer(buf);
		/* the free runs, one by one */
		while (at < nbits)
		{
			int64		len = 0;

			while (at < nbits && !bloofi_bit_get(bits, (uint32) at))
				at++;
			while (at + len < nbits && bloofi_bit_get(bits, (uint32) (at + len)))
				len++;
			if (len > 0)
				visit(BLOOFI_OWNER_FREE, base + (BlockNumber) at, (BlockNumber) len, arg);
			at += len;
		}
		pfree(bits);
	}
	for (uint32 i = 0; i < sp.nintents; i++)
	{
		BloofiIntent *it = &sp.intents[i];

		switch (it->kind)
		{
			case BLOOFI_INTENT_NEW:
				visit(BLOOFI_OWNER_NEW, it->start, it->npages, arg);
				break;
			case BLOOFI_INTENT_FREEING:
				visit(BLOOFI_OWNER_FREEING, it->start, it->npages, arg);
				break;
			case BLOOFI_INTENT_TRUNCATE:
				visit(BLOOFI_OWNER_TRUNCATE, it->start,
					  nblocks > it->start ? nblocks - it->start : 0, arg);
				break;
			case BLOOFI_INTENT_OLD:
				{
					BloofiNode	n;

					bloofi_node_read(index, meta, it->start, &n);
					visit(BLOOFI_OWNER_OLD, n.start, n.geom.total_pages, arg);
				}
				break;
			default:
				SPACE_CORRUPT(index, BLOOFI_METAPAGE_BLKNO, "An intent has kind %u.", it->kind);
		}
	}
	chains[0] = meta->retired_head;
	chains[1] = meta->freenode_head;
	for (int c = 0; c < 2; c++)
	{
		BlockNumber cur = chains[c];

		for (BlockNumber steps = 0; cur != InvalidBlockNumber; steps++)
		{
			BloofiNode	n;

			if (steps >= nblocks)
				SPACE_CORRUPT(index, cur, "The %s chain has a cycle.", c == 0 ? "retired" : "free");
			bloofi_node_read(index, meta, cur, &n);
			if (!(n.flags & (c == 0 ? BLOOFI_NODE_RETIRED : BLOOFI_NODE_FREE)))
				SPACE_CORRUPT(index, cur, "A node on the %s chain is not %s (flags %u).",
							  c == 0 ? "retired" : "free", c == 0 ? "retired" : "free", n.flags);
			visit(c == 0 ? BLOOFI_OWNER_RETIRED : BLOOFI_OWNER_LEGACY_FREE, n.start,
				  n.geom.total_pages, arg);
			cur = n.next;
		}
	}
}
