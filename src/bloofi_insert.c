/*
 * bloofi_insert.c
 *    Inserting filters into a Bloofi index's groups, and THE LOCKING PROTOCOL.
 *
 * Locking protocol (buffer content locks; every change through GenericXLog)
 * ---------------------------------------------------------------------------
 * (The pending list's part, appends under the metapage lock and one flusher
 * at a time, is at the top of bloofi_pending.c; a flush places its leaves
 * with bloofi_place_leaves below, under this protocol.)
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

/*
 * Set the bits of n leaves, whose TIDs are already in slots[] of group g, in
 * the group's slices and OR them into its summary; the caller holds the
 * group's header exclusively.  Setting bits is idempotent, so this also
 * completes leaves that a crash left half written (bloofi_refill_leaves).
 */
static void
bloofi_group_set_bits(Relation index, uint32 g, BlockNumber start,
					  const BloofiGeometry *geom, int n, const uint32 *slots,
					  const uint8 *const *filters)
{
	BloofiWal	w;
	uint8	   *orall;

	/* the leaves' bits in the slices, only pages that change */
	bloofi_wal_begin(&w, index);
	for (uint32 sp = 0; sp < geom->slice_pages; sp++)
	{
		uint32		j0 = bloofi_slice_page_first(geom, sp);
		uint32		cnt = bloofi_slice_page_count(geom, sp);
		BlockNumber blk = start + geom->tid_pages + geom->summary_pages + sp;
		Buffer		buf;
		Page		page;
		bool		any = false;

		if ((sp & 63) == 0)
			CHECK_FOR_INTERRUPTS();	/* between WAL records: nothing half-written */
		for (int i = 0; i < n && !any; i++)
			any = bloofi_count_range(filters[i], j0, cnt) > 0;
		if (!any)
			continue;
		buf = ReadBuffer(index, blk);
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		bloofi_check_page(index, BufferGetPage(buf), blk, BLOOFI_PAGE_SLICE, g);
		page = bloofi_wal_page(&w, buf, false, 0);
		for (int i = 0; i < n; i++)
			bloofi_set_column((uint8 *) PageGetContents(page), geom->slice_bytes, j0, cnt,
							  filters[i], slots[i]);
	}
	bloofi_wal_flush(&w);

	/* then OR them into the summary, only pages that change */
	orall = palloc0(geom->filter_bytes);
	for (int i = 0; i < n; i++)
		bs_or(orall, filters[i], geom->filter_bytes / 8);
	bloofi_wal_begin(&w, index);
	for (uint32 sp = 0; sp < geom->summary_pages; sp++)
	{
		BlockNumber blk = start + geom->tid_pages + sp;
		uint32		bytes = bloofi_summary_page_bytes(geom, sp);
		const uint8 *part = orall + (size_t) sp * geom->summary_bytes_per_page;
		Buffer		buf = ReadBuffer(index, blk);
		Page		page;

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
	pfree(orall);
}

/*
 * Put up to n leaves (tids[i], filters[i]) into group g, whose header the
 * caller holds exclusively (hdrbuf).  Returns how many were placed (the
 * first ones).  Slots: freed ones below the high-water mark first, then
 * appended, taken from the header page and at most MAX_GENERIC_XLOG_PAGES - 1
 * other tid pages, so that the TIDs and the header counts are one atomic WAL
 * record.  Then the leaves' bits are set in the slices (each slice page
 * touched once for the whole batch) and ORed into the summary: the order of
 * the locking protocol above.
 */
static int
bloofi_group_add(Relation index, uint32 g, BlockNumber start, const BloofiGeometry *geom,
				 Buffer hdrbuf, int n, const ItemPointerData *tids,
				 const uint8 *const *filters)
{
	BloofiPageOpaque op = BloofiPageGetOpaque(BufferGetPage(hdrbuf));
	uint32	   *slots = palloc(sizeof(uint32) * n);
	uint32		tidpages[MAX_GENERIC_XLOG_PAGES];
	int			ntidpages = 0;
	int			got = 0;
	uint32		nused = op->nused;
	BloofiWal	w;
	Page		hdr;

	/* freed slots below the high-water mark */
	if (op->nlive < op->nused)
	{
		for (uint32 tp = 0; tp * geom->tids_per_page < nused && got < n; tp++)
		{
			Buffer		buf = tp == 0 ? hdrbuf : ReadBuffer(index, start + tp);
			const ItemPointerData *pt;
			uint32		first = tp * geom->tids_per_page;
			uint32		cnt = Min(geom->tids_per_page, nused - first);
			int			before = got;

			if (tp > 0)
			{
				if (ntidpages == MAX_GENERIC_XLOG_PAGES - 1)
				{
					ReleaseBuffer(buf);
					break;
				}
				LockBuffer(buf, BUFFER_LOCK_SHARE);
			}
			pt = (const ItemPointerData *) PageGetContents(BufferGetPage(buf));
			for (uint32 i = 0; i < cnt && got < n; i++)
				if (!ItemPointerIsValid(&pt[i]))
					slots[got++] = first + i;
			if (tp > 0)
			{
				UnlockReleaseBuffer(buf);
				if (got > before)
					tidpages[ntidpages++] = tp;
			}
		}
	}
	/* then appended slots */
	while (got < n && nused < geom->cap)
	{
		uint32		tp = nused / geom->tids_per_page;

		if (tp > 0 && (ntidpages == 0 || tidpages[ntidpages - 1] != tp))
		{
			if (ntidpages == MAX_GENERIC_XLOG_PAGES - 1)
				break;
			tidpages[ntidpages++] = tp;
		}
		slots[got++] = nused++;
	}
	if (got == 0)
		return 0;

	/* 1. TIDs and header counts, one record */
	bloofi_wal_begin(&w, index);
	hdr = bloofi_wal_page(&w, hdrbuf, true, 0);
	{
		Page		pages[MAX_GENERIC_XLOG_PAGES];

		for (int t = 0; t < ntidpages; t++)
		{
			Buffer		buf = ReadBuffer(index, start + tidpages[t]);

			LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
			bloofi_check_page(index, BufferGetPage(buf), start + tidpages[t], BLOOFI_PAGE_TID, g);
			pages[t] = bloofi_wal_page(&w, buf, false, 0);
		}
		for (int i = 0; i < got; i++)
		{
			uint32		tp = slots[i] / geom->tids_per_page;
			Page		page = hdr;

			for (int t = 0; t < ntidpages; t++)
				if (tidpages[t] == tp)
					page = pages[t];
			Assert(tp == 0 || page != hdr);
			((ItemPointerData *) PageGetContents(page))[slots[i] % geom->tids_per_page] = tids[i];
		}
	}
	op = BloofiPageGetOpaque(hdr);
	op->nused = nused;
	op->nlive += got;
	bloofi_wal_flush(&w);

	/* 2 and 3. the leaves' bits in the slices, then in the summary */
	bloofi_group_set_bits(index, g, start, geom, got, slots, filters);
	pfree(slots);
	return got;
}

/*
 * Place n leaves into groups: each goes to the group whose summary is the
 * closest in Hamming distance among those with room (the paper's insert
 * descent at our one inner level), summaries updated in memory as leaves are
 * assigned; when no group has room a group is appended, its capacity
 * doubling with the index (bloofi_next_capacity).  Holds at most one group
 * header lock at a time; takes the metapage lock only to append a group.
 */
void
bloofi_place_leaves(Relation index, int n, const ItemPointerData *tids,
					const uint8 *const *filters)
{
	int		   *todo = palloc(sizeof(int) * n);
	int		   *assign = palloc(sizeof(int) * n);
	int			ntodo = n;
	ItemPointerData *btids = palloc(sizeof(ItemPointerData) * n);
	const uint8 **bfilters = palloc(sizeof(uint8 *) * n);

	for (int i = 0; i < n; i++)
		todo[i] = i;

	while (ntodo > 0)
	{
		BloofiMetaData *meta = bloofi_read_meta(index);
		uint32		ng = meta->ngroups;
		uint8	  **sums = palloc0(sizeof(uint8 *) * Max(ng, 1));
		int64	   *room = palloc0(sizeof(int64) * Max(ng, 1));
		uint64	   *dist = palloc(sizeof(uint64) * Max(ng, 1));
		uint64		nleaves = 0;
		bool		unplaced = false;
		int			left = 0;

		CHECK_FOR_INTERRUPTS();
		for (uint32 g = 0; g < ng; g++)
		{
			BloofiGeometry geom;
			uint32		nlive;

			if (meta->groups[g].flags & BLOOFI_GROUP_RETIRED)
				continue;		/* room 0; being emptied by VACUUM */
			bloofi_group_geometry(index, meta, g, &geom);
			nlive = bloofi_read_header(index, meta->groups[g].start, g).nlive;
			nleaves += nlive;
			room[g] = (int64) geom.cap - nlive;
			if (room[g] > 0)
			{
				sums[g] = palloc(geom.filter_bytes);
				bloofi_read_summary(index, meta->groups[g].start, &geom, g, sums[g]);
			}
		}
		for (int t = 0; t < ntodo; t++)
		{
			int			i = todo[t];
			int			best;
			size_t		nwords = bs_words_for_bits(meta->m);

			for (uint32 g = 0; g < ng; g++)
			{
				dist[g] = UINT64_MAX;
				if (room[g] > 0)
				{
					BsPairCounts c = bs_pair_counts(sums[g], filters[i], nwords);

					dist[g] = c.a + c.b - 2 * c.and;
				}
			}
			best = bloofi_choose_closest(dist, (int) ng);
			assign[i] = best;
			if (best < 0)
				unplaced = true;
			else
			{
				room[best]--;
				bs_or(sums[best], filters[i], nwords);
			}
		}

		/* each group's batch, under its header lock */
		for (uint32 g = 0; g < ng; g++)
		{
			BloofiGeometry geom;
			BlockNumber start = meta->groups[g].start;
			Buffer		hdrbuf;
			int			nb = 0,
						placed;

			for (int t = 0; t < ntodo; t++)
				if (assign[todo[t]] == (int) g)
				{
					btids[nb] = tids[todo[t]];
					bfilters[nb] = filters[todo[t]];
					nb++;
				}
			if (nb == 0)
				continue;
			bloofi_group_geometry(index, meta, g, &geom);
			hdrbuf = ReadBuffer(index, start);
			LockBuffer(hdrbuf, BUFFER_LOCK_EXCLUSIVE);
			bloofi_check_page(index, BufferGetPage(hdrbuf), start, BLOOFI_PAGE_TID, g);
			/* retired by a VACUUM since we read the directory: go elsewhere */
			if (bloofi_group_flags(index, g) & BLOOFI_GROUP_RETIRED)
				placed = 0;
			else
				placed = bloofi_group_add(index, g, start, &geom, hdrbuf, nb, btids, bfilters);
			UnlockReleaseBuffer(hdrbuf);
			/* the ones that did not fit (concurrent inserts) stay to do */
			for (int t = 0, seen = 0; t < ntodo; t++)
				if (assign[todo[t]] == (int) g)
				{
					if (seen++ < placed)
						assign[todo[t]] = -2;	/* done */
					else
						assign[todo[t]] = -1;
				}
		}
		for (int t = 0; t < ntodo; t++)
			if (assign[todo[t]] != -2)
				todo[left++] = todo[t];
		if (unplaced && left > 0)
			bloofi_create_group(index, ng, bloofi_next_capacity(nleaves + left, meta->order));
		ntodo = left;
	}
}

/*
 * bloofi_refill_leaves: set again the bits of n leaves already in group g at
 * slots[i] (filters[i]).  Redo of a pending-list flush that a crash
 * interrupted: the flush wrote a leaf's TID in one WAL record and its slice
 * bits in later ones, so a TID found in a group may have only part of its
 * bits; the flushing chain still holds the whole filter.
 */
void
bloofi_refill_leaves(Relation index, uint32 g, int n, const uint32 *slots,
					 const uint8 *const *filters)
{
	BloofiMetaData *meta = bloofi_read_meta(index);
	BlockNumber start = meta->groups[g].start;
	BloofiGeometry geom;
	Buffer		hdrbuf;

	bloofi_group_geometry(index, meta, g, &geom);
	hdrbuf = ReadBuffer(index, start);
	LockBuffer(hdrbuf, BUFFER_LOCK_EXCLUSIVE);
	bloofi_check_page(index, BufferGetPage(hdrbuf), start, BLOOFI_PAGE_TID, g);
	bloofi_group_set_bits(index, g, start, &geom, n, slots, filters);
	UnlockReleaseBuffer(hdrbuf);
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

		bloofi_place_leaves(index, 1, ht_ctid, &f);
	}

	MemoryContextSwitchTo(old);
	MemoryContextDelete(tmp);
	return false;
}
