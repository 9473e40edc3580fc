/*
 * bloofi_vacuum.c
 *    VACUUM for Bloofi: remove dead leaves and recompute the ORs above them.
 *
 * For each group holding a dead leaf (heap TID reported dead by VACUUM),
 * under the group's header lock (protocol in bloofi_insert.c): one pass over
 * the slice pages clears the dead leaves' bits and computes the new summary
 * (bit j = some live leaf has bit j, read off slice j), then the summary is
 * rewritten and the dead TIDs cleared; the high-water mark drops below
 * trailing free slots.  Freed slots are reused by later inserts, so pruning
 * does not decay: a summary is always exactly the OR of its live leaves
 * after VACUUM.  Before that, VACUUM moves the pending list into the groups
 * (bloofi_pending.c).
 *
 * Then (amvacuumcleanup) it merges underfull groups, so that lookups, which
 * read k slices per group however full it is, do not keep visiting groups
 * emptied by deletes: a group with fewer live leaves than a quarter of its
 * capacity (not the newest one), whose leaves the other groups have room
 * for, is RETIRED (no leaf is placed there any more: inserters re-check the
 * flag under the group's header lock) and its live leaves are copied out
 * (through the pending list, or placed directly); the next XID is recorded
 * in its directory entry.  It is cleared (like dead leaves) and marked EMPTY
 * by a later VACUUM, once the oldest snapshot of the cluster is newer than
 * that XID: a lookup that started before the copy could otherwise read the
 * pending list before the copy arrived and this group after it was cleared,
 * and miss the leaf.  Lookups skip EMPTY groups; a new group reuses one.  A
 * crash at any point leaves a leaf in both places at worst (harmless for
 * lookups, accepted by bloofi_check for a retired group); the next VACUUM
 * copies what is missing and postpones the clear again.  (On a hot standby,
 * whose snapshots the primary does not see unless hot_standby_feedback is
 * on, a single lookup spanning two merging VACUUMs could still miss a moved
 * leaf: GenericXLog records raise no recovery conflict.)
 */
#include "postgres.h"

#include "access/transam.h"
#include "commands/vacuum.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/procarray.h"
#include "utils/hsearch.h"
#include "utils/rel.h"

#include "bloofi.h"

/* the dead leaves of one group, removed; returns live leaves left */
static uint32
bloofi_vacuum_group(Relation index, const BloofiMetaData *meta, uint32 g,
					IndexBulkDeleteCallback callback, void *callback_state,
					double *removed)
{
	BloofiGeometry geom;
	BlockNumber start = meta->groups[g].start;
	Buffer		hdrbuf;
	BloofiPageOpaque op;
	ItemPointerData *tids;
	uint64	   *dead,
			   *live;
	uint8	   *summary;
	uint32		nused,
				nlive = 0,
				ndead = 0,
				newused = 0;
	BloofiWal	w;

	bloofi_group_geometry(index, meta, g, &geom);
	hdrbuf = ReadBuffer(index, start);
	LockBuffer(hdrbuf, BUFFER_LOCK_EXCLUSIVE);
	bloofi_check_page(index, BufferGetPage(hdrbuf), start, BLOOFI_PAGE_TID, g);
	op = BloofiPageGetOpaque(BufferGetPage(hdrbuf));
	nused = Min(op->nused, geom.cap);

	tids = palloc0(sizeof(ItemPointerData) * geom.cap);
	dead = palloc0(sizeof(uint64) * geom.slice_words);
	live = palloc0(sizeof(uint64) * geom.slice_words);
	memcpy(tids, PageGetContents(BufferGetPage(hdrbuf)),
		   sizeof(ItemPointerData) * Min(nused, geom.tids_per_page));
	for (uint32 tp = 1; tp * geom.tids_per_page < nused; tp++)
	{
		Buffer		buf = ReadBuffer(index, start + tp);
		uint32		first = tp * geom.tids_per_page;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		bloofi_check_page(index, BufferGetPage(buf), start + tp, BLOOFI_PAGE_TID, g);
		memcpy(tids + first, PageGetContents(BufferGetPage(buf)),
			   sizeof(ItemPointerData) * Min(geom.tids_per_page, nused - first));
		UnlockReleaseBuffer(buf);
	}

	for (uint32 s = 0; s < nused; s++)
	{
		if (!ItemPointerIsValid(&tids[s]))
			continue;
		if (callback(&tids[s], callback_state))
		{
			dead[s / 64] |= UINT64CONST(1) << (s % 64);
			ndead++;
		}
		else
		{
			live[s / 64] |= UINT64CONST(1) << (s % 64);
			nlive++;
			newused = s + 1;
		}
	}
	if (ndead == 0)
	{
		UnlockReleaseBuffer(hdrbuf);
		return nlive;
	}

	/* 1. clear the dead columns, computing the new summary on the way */
	summary = palloc0(geom.filter_bytes);
	bloofi_wal_begin(&w, index);
	for (uint32 sp = 0; sp < geom.slice_pages; sp++)
	{
		BlockNumber blk = start + geom.tid_pages + geom.summary_pages + sp;
		Buffer		buf = ReadBuffer(index, blk);
		Page		page;

		vacuum_delay_point();
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		bloofi_check_page(index, BufferGetPage(buf), blk, BLOOFI_PAGE_SLICE, g);
		page = bloofi_wal_page(&w, buf, false, 0);
		bloofi_clear_and_summarise((uint8 *) PageGetContents(page), geom.slice_words,
								   bloofi_slice_page_first(&geom, sp),
								   bloofi_slice_page_count(&geom, sp), dead, live, summary);
	}
	bloofi_wal_flush(&w);

	/* 2. the recomputed summary */
	bloofi_wal_begin(&w, index);
	for (uint32 sp = 0; sp < geom.summary_pages; sp++)
	{
		BlockNumber blk = start + geom.tid_pages + sp;
		Buffer		buf = ReadBuffer(index, blk);
		Page		page;

		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		bloofi_check_page(index, BufferGetPage(buf), blk, BLOOFI_PAGE_SUMMARY, g);
		page = bloofi_wal_page(&w, buf, false, 0);
		memcpy(PageGetContents(page), summary + (size_t) sp * geom.summary_bytes_per_page,
			   bloofi_summary_page_bytes(&geom, sp));
	}
	bloofi_wal_flush(&w);

	/* 3. the dead TIDs and the header counts */
	bloofi_wal_begin(&w, index);
	for (uint32 tp = 0; tp * geom.tids_per_page < nused; tp++)
	{
		uint32		first = tp * geom.tids_per_page;
		uint32		n = Min(geom.tids_per_page, nused - first);
		bool		touch = (tp == 0);
		ItemPointerData *pt;
		Page		page;
		Buffer		buf;

		for (uint32 i = 0; i < n && !touch; i++)
			if ((dead[(first + i) / 64] >> ((first + i) % 64)) & 1)
				touch = true;
		if (!touch)
			continue;
		if (tp == 0)
			buf = hdrbuf;
		else
		{
			buf = ReadBuffer(index, start + tp);
			LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
			bloofi_check_page(index, BufferGetPage(buf), start + tp, BLOOFI_PAGE_TID, g);
		}
		page = bloofi_wal_page(&w, buf, tp == 0, 0);
		pt = (ItemPointerData *) PageGetContents(page);
		for (uint32 i = 0; i < n; i++)
			if ((dead[(first + i) / 64] >> ((first + i) % 64)) & 1)
				ItemPointerSetInvalid(&pt[i]);
		if (tp == 0)
		{
			op = BloofiPageGetOpaque(page);
			op->nlive = nlive;
			/* trailing free slots below the old mark are dropped */
			op->nused = newused;
		}
	}
	bloofi_wal_flush(&w);
	UnlockReleaseBuffer(hdrbuf);
	*removed += ndead;
	/* the exact summary decides whether lookups should test it */
	bloofi_set_group_saturated(index, g, bloofi_summary_saturated(summary, meta->m, meta->k));
	return nlive;
}

IndexBulkDeleteResult *
bloofi_bulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
				  IndexBulkDeleteCallback callback, void *callback_state)
{
	Relation	index = info->index;
	BloofiMetaData *meta = bloofi_read_meta(index);
	double		live = 0;

	if (stats == NULL)
		stats = (IndexBulkDeleteResult *) palloc0(sizeof(IndexBulkDeleteResult));
	/* pending entries into the groups first, where dead ones are removed */
	bloofi_pending_flush(index, true);
	meta = bloofi_read_meta(index);
	for (uint32 g = 0; g < meta->ngroups; g++)
		live += bloofi_vacuum_group(index, meta, g, callback, callback_state,
									&stats->tuples_removed);
	stats->num_index_tuples = live;
	stats->num_pages = RelationGetNumberOfBlocks(index);
	return stats;
}

static bool
bloofi_merge_all_cb(ItemPointer itemptr, void *state)
{
	return true;
}

static void
bloofi_collect_tid(ItemPointer tid, const uint8 *filter, bool flushing, void *arg)
{
	bool		found;
	BloofiGroupSlot *e = hash_search((HTAB *) arg, tid, HASH_ENTER, &found);

	if (!found)
		e->group = e->slot = PG_UINT32_MAX; /* in the pending list, no slot */
}

/* the TIDs in non-retired groups and in the pending list */
static HTAB *
bloofi_tids_elsewhere(Relation index, const BloofiMetaData *meta)
{
	HTAB	   *h = bloofi_group_tids(index, meta, "bloofi tids elsewhere");

	bloofi_pending_visit(index, meta, bloofi_collect_tid, h);
	return h;
}

/*
 * Copy the live leaves of retired group g that are not elsewhere yet to the
 * other groups; returns how many.  g is frozen (retired, and one VACUUM at a
 * time), so its leaves are read without holding its header, and no lock of
 * g is held while copying.
 */
static uint32
bloofi_merge_copy(Relation index, uint32 g)
{
	BloofiMetaData *meta = bloofi_read_meta(index);
	BloofiGeometry geom;
	BlockNumber start = meta->groups[g].start;
	HTAB	   *elsewhere = bloofi_tids_elsewhere(index, meta);
	ItemPointerData *tids,
			   *mtids;
	int32	   *idx;
	uint64	   *movemask;
	uint8	   *filters;
	const uint8 **fptr;
	uint32		nmove = 0;

	bloofi_group_geometry(index, meta, g, &geom);
	tids = palloc0(sizeof(ItemPointerData) * geom.cap);
	bloofi_read_tids(index, start, &geom, geom.cap, tids);
	idx = palloc(sizeof(int32) * geom.cap);
	movemask = palloc0(sizeof(uint64) * geom.slice_words);
	mtids = palloc(sizeof(ItemPointerData) * geom.cap);
	for (uint32 s = 0; s < geom.cap; s++)
	{
		idx[s] = -1;
		if (ItemPointerIsValid(&tids[s]) && !hash_search(elsewhere, &tids[s], HASH_FIND, NULL))
		{
			idx[s] = (int32) nmove;
			mtids[nmove++] = tids[s];
			movemask[s / 64] |= UINT64CONST(1) << (s % 64);
		}
	}

	/* the moved leaves' filters, read back from the slices (work ~ set bits) */
	filters = palloc_extended((Size) Max(nmove, 1) * geom.filter_bytes,
							  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	fptr = palloc(sizeof(uint8 *) * Max(nmove, 1));
	for (uint32 i = 0; i < nmove; i++)
		fptr[i] = filters + (size_t) i * geom.filter_bytes;
	for (uint32 sp = 0; sp < geom.slice_pages && nmove > 0; sp++)
	{
		BlockNumber blk = start + geom.tid_pages + geom.summary_pages + sp;
		Buffer		buf = ReadBuffer(index, blk);
		uint32		j0 = bloofi_slice_page_first(&geom, sp);
		uint32		n = bloofi_slice_page_count(&geom, sp);
		const uint8 *data;

		vacuum_delay_point();
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		bloofi_check_page(index, BufferGetPage(buf), blk, BLOOFI_PAGE_SLICE, g);
		data = (const uint8 *) PageGetContents(BufferGetPage(buf));
		for (uint32 i = 0; i < n; i++)
			for (uint32 w = 0; w < geom.slice_words; w++)
			{
				uint64		v = bs_load64le(data + (size_t) i * geom.slice_bytes + 8 * w) & movemask[w];

				while (v)
				{
					uint32		slot = w * 64 + (uint32) __builtin_ctzll(v);

					v &= v - 1;
					bs_bit_set(filters + (size_t) idx[slot] * geom.filter_bytes, j0 + i);
				}
			}
		UnlockReleaseBuffer(buf);
	}

	/* moved first (a crash now leaves them in both places), then cleared here */
	if (nmove > 0)
	{
		if (bloofi_get_fastupdate(index) && bloofi_pending_usable(meta))
		{
			for (uint32 i = 0; i < nmove; i++)
				bloofi_pending_insert(index, &mtids[i], fptr[i]);
		}
		else
			bloofi_place_leaves(index, (int) nmove, mtids, fptr);
	}
	return nmove;
}

/* clear retired group g (all its leaves are elsewhere) and mark it EMPTY */
static void
bloofi_merge_finish(Relation index, uint32 g)
{
	BloofiMetaData *meta = bloofi_read_meta(index);
	double		dummy = 0;

	if (bloofi_vacuum_group(index, meta, g, bloofi_merge_all_cb, NULL, &dummy) == 0)
		bloofi_set_group_flags(index, g, BLOOFI_GROUP_EMPTY, InvalidTransactionId);
}

/* merge underfull groups (see the top of the file); at most a few per VACUUM */
static void
bloofi_merge_underfull(Relation index)
{
	BloofiMetaData *meta = bloofi_read_meta(index);
	uint32	   *nlive = palloc0(sizeof(uint32) * Max(meta->ngroups, 1));
	int64		room = 0;
	int			last = -1,
				merges = 0;

	for (uint32 g = 0; g < meta->ngroups; g++)
	{
		if (meta->groups[g].flags & BLOOFI_GROUP_EMPTY)
			continue;
		nlive[g] = bloofi_read_header(index, meta->groups[g].start, g).nlive;
		if (!(meta->groups[g].flags & BLOOFI_GROUP_RETIRED))
		{
			room += (int64) meta->groups[g].cap - nlive[g];
			last = (int) g;
		}
	}
	for (uint32 g = 0; g < meta->ngroups && merges < 4; g++)
	{
		uint32		flags = meta->groups[g].flags;
		TransactionId xid = meta->groups[g].move_xid;

		if (flags & BLOOFI_GROUP_EMPTY)
			continue;
		if (!(flags & BLOOFI_GROUP_RETIRED))
		{
			int64		own = (int64) meta->groups[g].cap - nlive[g];

			if ((int) g == last || (int64) nlive[g] * 4 >= meta->groups[g].cap ||
				room - own < nlive[g])
				continue;
			room -= own + nlive[g];
			bloofi_set_group_flags(index, g, BLOOFI_GROUP_RETIRED, InvalidTransactionId);
			xid = InvalidTransactionId;
		}
		merges++;
		if (TransactionIdIsValid(xid) &&
			TransactionIdPrecedes(xid, GetOldestNonRemovableTransactionId(NULL)))
		{
			/* no scan older than the copy is left: clear, unless something was missing */
			if (bloofi_merge_copy(index, g) == 0)
			{
				bloofi_merge_finish(index, g);
				continue;
			}
		}
		else if (TransactionIdIsValid(xid))
			continue;			/* copied; wait for older scans to end */
		else
			bloofi_merge_copy(index, g);
		bloofi_set_group_flags(index, g, 0, ReadNextTransactionId());
	}
}

IndexBulkDeleteResult *
bloofi_vacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	Relation	index = info->index;

	if (info->analyze_only)
		return stats;
	if (stats == NULL)
	{
		BloofiMetaData *meta;

		/* a VACUUM without dead rows still empties the pending list */
		bloofi_pending_flush(index, true);
		meta = bloofi_read_meta(index);

		stats = (IndexBulkDeleteResult *) palloc0(sizeof(IndexBulkDeleteResult));
		for (uint32 g = 0; g < meta->ngroups; g++)
		{
			Buffer		buf = ReadBuffer(index, meta->groups[g].start);

			LockBuffer(buf, BUFFER_LOCK_SHARE);
			bloofi_check_page(index, BufferGetPage(buf), meta->groups[g].start,
							  BLOOFI_PAGE_TID, g);
			stats->num_index_tuples += BloofiPageGetOpaque(BufferGetPage(buf))->nlive;
			UnlockReleaseBuffer(buf);
		}
	}
	bloofi_merge_underfull(index);
	stats->num_pages = RelationGetNumberOfBlocks(index);
	return stats;
}
