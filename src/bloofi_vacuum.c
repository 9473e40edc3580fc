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
 * after VACUUM.
 */
#include "postgres.h"

#include "commands/vacuum.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
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
	stats->num_pages = RelationGetNumberOfBlocks(index);
	return stats;
}
