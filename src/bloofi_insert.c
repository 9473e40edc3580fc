/*
 * bloofi_insert.c
 *    Inserting one filter into a Bloofi index, and THE LOCKING PROTOCOL.
 *
 * Locking protocol (buffer content locks; every change through GenericXLog)
 * ---------------------------------------------------------------------------
 * Pages: metapage (block 0, the directory), and per group its header page
 * (first tid page, holds nused/nlive), other tid pages, summary pages and
 * slice pages, in that block order.
 *
 * 1. The metapage is locked exclusively only to set the index parameters on
 *    the first insert into an empty index, and to append a group
 *    (bloofi_create_group: extends the relation under the metapage lock, so
 *    a group's pages are contiguous).  Everyone else takes it in share mode
 *    just long enough to copy the directory, and holds no other lock then.
 *    A group, once in the directory, never moves or disappears.
 *
 * 2. Writers of a group (insert, VACUUM) take the group's header page
 *    EXCLUSIVELY first and keep it for the whole operation: writers of one
 *    group are serialised, so VACUUM recomputing a summary cannot lose the
 *    bits of a concurrent insert, and a slot is claimed or freed by one
 *    backend at a time.  While holding it they lock other pages of the
 *    same group (tid, summary, slice) in ascending block order, at most
 *    MAX_GENERIC_XLOG_PAGES at a time, and never the metapage or another
 *    group's header.  No writer holds two header locks, so no deadlock.
 *
 * 3. Readers (scans, bloofi_probe, the selectivity estimator) hold at most
 *    one share lock at a time, never waiting for a lock while holding one.
 *
 * 4. Order of writes.  Insert: claim the slot and write its TID (header
 *    record), then set the leaf's bits in the slices, then OR them into the
 *    summary.  VACUUM: clear the dead leaves' bits in the slices, write the
 *    recomputed summary, then clear their TIDs.  A reader may therefore see
 *    a leaf half inserted or half removed: it only misses rows whose
 *    inserting transaction has not committed (the insert finishes before the
 *    commit) and may return rows that are dead or whose slot was reused, so
 *    every match is returned lossy (recheck); no committed live row is ever
 *    missed.  After a crash the same orders leave, at worst, an aborted
 *    insert's slot (a dead heap TID, removed by the next VACUUM) or a
 *    VACUUM to redo; bloofi_check accepts exactly these states.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "bloofi.h"

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

/* Hamming distance between filter and the group's summary (share locks) */
static uint64
bloofi_summary_distance(Relation index, BlockNumber start, const BloofiGeometry *geom,
						const uint8 *filter)
{
	uint64		d = 0;

	for (uint32 sp = 0; sp < geom->summary_pages; sp++)
	{
		Buffer		buf = ReadBuffer(index, start + geom->tid_pages + sp);
		uint32		bytes = bloofi_summary_page_bytes(geom, sp);
		BsPairCounts c;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		c = bs_pair_counts((const uint8 *) PageGetContents(BufferGetPage(buf)),
						   filter + (size_t) sp * geom->summary_bytes_per_page, bytes / 8);
		UnlockReleaseBuffer(buf);
		d += c.a + c.b - 2 * c.and;
	}
	return d;
}

/* a group's nused / nlive (share lock on its header) */
static void
bloofi_group_counts(Relation index, BlockNumber start, uint32 g, uint32 *nused, uint32 *nlive)
{
	Buffer		buf = ReadBuffer(index, start);
	BloofiPageOpaque op;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	bloofi_check_page(index, BufferGetPage(buf), start, BLOOFI_PAGE_TID, g);
	op = BloofiPageGetOpaque(BufferGetPage(buf));
	*nused = op->nused;
	*nlive = op->nlive;
	UnlockReleaseBuffer(buf);
}

/*
 * Put the leaf (tid, filter) into group g, whose header the caller holds
 * exclusively (hdrbuf) and which has a free slot.  Writes TID, slices and
 * summary in that order (see the protocol above).
 */
static void
bloofi_insert_into_group(Relation index, uint32 g, BlockNumber start,
						 const BloofiGeometry *geom, Buffer hdrbuf,
						 ItemPointer tid, const uint8 *filter)
{
	Page		hdr = BufferGetPage(hdrbuf);
	BloofiPageOpaque op = BloofiPageGetOpaque(hdr);
	uint32		slot = InvalidBlockNumber;
	BloofiWal	w;
	uint32		tp;
	Page		page;

	/* a slot: a freed one below the high-water mark first, else append */
	if (op->nlive < op->nused)
	{
		for (tp = 0; tp * geom->tids_per_page < op->nused && slot == InvalidBlockNumber; tp++)
		{
			Buffer		buf = tp == 0 ? hdrbuf : ReadBuffer(index, start + tp);
			ItemPointerData *tids;
			uint32		first = tp * geom->tids_per_page;
			uint32		n = Min(geom->tids_per_page, op->nused - first);

			if (tp > 0)
				LockBuffer(buf, BUFFER_LOCK_SHARE);
			tids = (ItemPointerData *) PageGetContents(BufferGetPage(buf));
			for (uint32 i = 0; i < n; i++)
				if (!ItemPointerIsValid(&tids[i]))
				{
					slot = first + i;
					break;
				}
			if (tp > 0)
				UnlockReleaseBuffer(buf);
		}
	}
	if (slot == InvalidBlockNumber)
	{
		if (op->nused >= geom->cap)
			elog(ERROR, "bloofi: group %u of \"%s\" has no free slot", g,
				 RelationGetRelationName(index));
		slot = op->nused;
	}

	/* 1. the TID and the header counts, one record */
	bloofi_wal_begin(&w, index);
	hdr = bloofi_wal_page(&w, hdrbuf, true, 0);
	op = BloofiPageGetOpaque(hdr);
	tp = slot / geom->tids_per_page;
	if (tp == 0)
		page = hdr;
	else
	{
		Buffer		buf = ReadBuffer(index, start + tp);

		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		bloofi_check_page(index, BufferGetPage(buf), start + tp, BLOOFI_PAGE_TID, g);
		page = bloofi_wal_page(&w, buf, false, 0);
	}
	((ItemPointerData *) PageGetContents(page))[slot % geom->tids_per_page] = *tid;
	if (slot >= op->nused)
		op->nused = slot + 1;
	op->nlive++;
	bloofi_wal_flush(&w);

	/* 2. the leaf's bits in the slices, only pages that change */
	bloofi_wal_begin(&w, index);
	for (uint32 sp = 0; sp < geom->slice_pages; sp++)
	{
		uint32		j0 = bloofi_slice_page_first(geom, sp);
		uint32		n = bloofi_slice_page_count(geom, sp);
		BlockNumber blk = start + geom->tid_pages + geom->summary_pages + sp;
		Buffer		buf;

		if (bloofi_count_range(filter, j0, n) == 0)
			continue;
		buf = ReadBuffer(index, blk);
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		bloofi_check_page(index, BufferGetPage(buf), blk, BLOOFI_PAGE_SLICE, g);
		page = bloofi_wal_page(&w, buf, false, 0);
		bloofi_set_column((uint8 *) PageGetContents(page), geom->slice_bytes, j0, n,
						  filter, slot);
	}
	bloofi_wal_flush(&w);

	/* 3. OR into the summary, only pages that change */
	bloofi_wal_begin(&w, index);
	for (uint32 sp = 0; sp < geom->summary_pages; sp++)
	{
		BlockNumber blk = start + geom->tid_pages + sp;
		uint32		bytes = bloofi_summary_page_bytes(geom, sp);
		const uint8 *part = filter + (size_t) sp * geom->summary_bytes_per_page;
		Buffer		buf = ReadBuffer(index, blk);

		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		bloofi_check_page(index, BufferGetPage(buf), blk, BLOOFI_PAGE_SUMMARY, g);
		if (bs_is_subset(part, (const uint8 *) PageGetContents(BufferGetPage(buf)), bytes / 8))
		{
			UnlockReleaseBuffer(buf);
			continue;
		}
		page = bloofi_wal_page(&w, buf, false, 0);
		bs_or((uint8 *) PageGetContents(page), part, bytes / 8);
	}
	bloofi_wal_flush(&w);
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
		if (v.p.m > BLOOFI_MAX_M)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("bloofi cannot index filters of %u bits", v.p.m),
					 errdetail("The largest filter a bloofi index holds has %u bits.",
							   (unsigned) BLOOFI_MAX_M)));
		meta = bloofi_set_params(index, &v.p);
	}
	bloofi_require_params(index, meta, &v.p);

	for (;;)
	{
		uint64	   *dist = palloc(sizeof(uint64) * Max(meta->ngroups, 1));
		uint64		nleaves = 0;
		int			best;

		CHECK_FOR_INTERRUPTS();
		/* the paper's descent: the group whose OR is closest in Hamming distance */
		for (uint32 g = 0; g < meta->ngroups; g++)
		{
			BloofiGeometry geom;
			uint32		nused,
						nlive;

			bloofi_group_geometry(index, meta, g, &geom);
			bloofi_group_counts(index, meta->groups[g].start, g, &nused, &nlive);
			nleaves += nlive;
			dist[g] = UINT64_MAX;
			if (nlive < geom.cap)
				dist[g] = bloofi_summary_distance(index, meta->groups[g].start, &geom, v.bits);
		}
		best = bloofi_choose_closest(dist, (int) meta->ngroups);
		if (best >= 0)
		{
			BloofiGeometry geom;
			BlockNumber start = meta->groups[best].start;
			Buffer		hdrbuf = ReadBuffer(index, start);
			BloofiPageOpaque op;

			bloofi_group_geometry(index, meta, best, &geom);
			LockBuffer(hdrbuf, BUFFER_LOCK_EXCLUSIVE);
			bloofi_check_page(index, BufferGetPage(hdrbuf), start, BLOOFI_PAGE_TID, best);
			op = BloofiPageGetOpaque(BufferGetPage(hdrbuf));
			if (op->nlive < geom.cap)
			{
				bloofi_insert_into_group(index, best, start, &geom, hdrbuf, ht_ctid, v.bits);
				UnlockReleaseBuffer(hdrbuf);
				break;
			}
			/* filled up meanwhile: look again */
			UnlockReleaseBuffer(hdrbuf);
		}
		else
			bloofi_create_group(index, meta->ngroups,
								bloofi_next_capacity(nleaves, meta->order));
		meta = bloofi_read_meta(index);
	}

	MemoryContextSwitchTo(old);
	MemoryContextDelete(tmp);
	return false;
}
