/*
 * bloofi_scan.c
 *    Bloofi lookups: `f @> elem` as a bitmap scan.
 *
 * A lookup hashes each element once into its k positions (several ANDed
 * quals simply add positions), then visits every group of the directory:
 * the group's summary is tested first (the paper's pruning: if one position
 * is 0 in the OR of the group's leaves, no leaf matches), otherwise the
 * slices of the positions are ANDed word by word, stopping as soon as the
 * result is empty, and the TIDs of the surviving slots are returned.  Matches
 * are lossy (recheck): see the protocol in bloofi_insert.c.  The readers'
 * side of that protocol: one share lock at a time.
 */
#include "postgres.h"

#include <math.h>

#include "access/relscan.h"
#include "miscadmin.h"
#include "nodes/tidbitmap.h"
#include "pgstat.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "bloofi.h"

typedef struct BloofiScanOpaqueData
{
	MemoryContext ctx;
} BloofiScanOpaqueData;

IndexScanDesc
bloofi_beginscan(Relation r, int nkeys, int norderbys)
{
	IndexScanDesc scan = RelationGetIndexScan(r, nkeys, norderbys);
	BloofiScanOpaqueData *so = palloc0(sizeof(BloofiScanOpaqueData));

	so->ctx = AllocSetContextCreate(CurrentMemoryContext, "bloofi scan context",
									ALLOCSET_DEFAULT_SIZES);
	scan->opaque = so;
	return scan;
}

void
bloofi_rescan(IndexScanDesc scan, ScanKey scankey, int nscankeys,
			  ScanKey orderbys, int norderbys)
{
	if (scankey && scan->numberOfKeys > 0)
		memmove(scan->keyData, scankey, scan->numberOfKeys * sizeof(ScanKeyData));
}

void
bloofi_endscan(IndexScanDesc scan)
{
	BloofiScanOpaqueData *so = (BloofiScanOpaqueData *) scan->opaque;

	MemoryContextDelete(so->ctx);
	pfree(so);
}

/*
 * The contents of page start + rel under a share lock.  *buf / *cur hold the
 * page read last (InvalidBuffer / InvalidBlockNumber: none): kept when it is
 * the same page, else released first, so that a walk over a group's pages
 * holds one lock at a time.  The caller releases *buf when it is done.
 */
static const uint8 *
bloofi_walk_page(Relation index, BlockNumber start, uint32 rel, Buffer *buf, uint32 *cur)
{
	if (rel != *cur)
	{
		if (BufferIsValid(*buf))
			UnlockReleaseBuffer(*buf);
		*buf = ReadBuffer(index, start + rel);
		LockBuffer(*buf, BUFFER_LOCK_SHARE);
		*cur = rel;
	}
	return (const uint8 *) PageGetContents(BufferGetPage(*buf));
}

/* true when every position is set in the group's summary */
static bool
bloofi_summary_passes(Relation index, BlockNumber start, const BloofiGeometry *geom,
					  const uint32 *pos, uint32 npos)
{
	Buffer		buf = InvalidBuffer;
	uint32		cur = InvalidBlockNumber;
	bool		pass = true;

	for (uint32 i = 0; i < npos && pass; i++)
	{
		uint32		byte = pos[i] / 8;
		const uint8 *data = bloofi_walk_page(index, start,
											 bloofi_summary_page(geom, byte),
											 &buf, &cur);

		pass = (data[bloofi_summary_offset(geom, byte)] >> (pos[i] % 8)) & 1;
	}
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);
	return pass;
}

/*
 * Search every group for leaves having all npos positions (sorted, distinct)
 * set; cb(tid) for each match with a TID.  With st->counts the group
 * headers are read, so that nodes_checked counts the used slots and
 * leaves_seen the live leaves (bloofi_probe); without, a lookup skips them.
 */
void
bloofi_search(Relation index, const BloofiMetaData *meta,
			  const uint32 *pos, uint32 npos,
			  BloofiMatchCallback cb, void *arg, BloofiSearchStats *st)
{
	uint64	   *acc = NULL;
	uint32		acc_words = 0;

	for (uint32 g = 0; g < meta->ngroups; g++)
	{
		BloofiGeometry geom;
		BlockNumber start = meta->groups[g].start;
		Buffer		buf;
		uint32		nused;
		uint32		cur = InvalidBlockNumber;
		bool		any = true;

		CHECK_FOR_INTERRUPTS();
		if (meta->groups[g].flags & BLOOFI_GROUP_EMPTY)
			continue;			/* merged away by VACUUM: no leaf */
		bloofi_group_geometry(index, meta, g, &geom);

		if (st->counts)
		{
			/* the header: leaves for the statistics, fewer words to AND */
			BloofiPageOpaqueData op = bloofi_read_header(index, start, g);

			nused = Min(op.nused, geom.cap);
			st->leaves_seen += op.nlive;
			if (nused == 0)
				continue;
		}
		else
		{
			/*
			 * A plain lookup skips the header: slots at or above the
			 * high-water mark have no bits set and no TID, so ANDing the
			 * whole capacity gives the same matches for one page read less.
			 */
			nused = geom.cap;
		}

		if (!(meta->groups[g].flags & BLOOFI_GROUP_SATURATED))
		{
			st->nodes_checked++;
			if (!bloofi_summary_passes(index, start, &geom, pos, npos))
				continue;
		}
		st->nodes_checked += nused;	/* without counts: capacity, an upper bound */

		if (acc_words < geom.slice_words)
		{
			acc_words = geom.slice_words;
			acc = acc ? repalloc(acc, acc_words * sizeof(uint64)) : palloc(acc_words * sizeof(uint64));
		}
		bloofi_acc_init(acc, (nused + 63) / 64, nused);
		buf = InvalidBuffer;
		for (uint32 i = 0; i < npos && any; i++)
		{
			const uint8 *data = bloofi_walk_page(index, start,
												 bloofi_slice_page(&geom, pos[i]),
												 &buf, &cur);

			any = bloofi_and_slice(acc, data + bloofi_slice_offset(&geom, pos[i]),
								   (nused + 63) / 64);
		}
		if (BufferIsValid(buf))
			UnlockReleaseBuffer(buf);
		if (!any)
			continue;

		/* the TIDs of the matching slots, one tid page at a time */
		cur = InvalidBlockNumber;
		buf = InvalidBuffer;
		for (uint32 w = 0; w < (nused + 63) / 64; w++)
		{
			uint64		word = acc[w];

			while (word)
			{
				uint32		slot = w * 64 + (uint32) __builtin_ctzll(word);
				ItemPointerData tid;

				word &= word - 1;
				tid = ((const ItemPointerData *)
					   bloofi_walk_page(index, start, slot / geom.tids_per_page,
										&buf, &cur))[slot % geom.tids_per_page];
				if (ItemPointerIsValid(&tid))
				{
					st->matches++;
					if (cb)
						cb(&tid, arg);	/* must not take buffer locks */
				}
			}
		}
		if (BufferIsValid(buf))
			UnlockReleaseBuffer(buf);
	}
	if (acc)
		pfree(acc);
}

/*
 * Estimate how many leaves contain all npos positions from a sample of about
 * max_leaves leaves spread evenly over every group: in each group the same
 * fraction of 64-leaf words is tested, at a stride, so a build sorted by
 * similarity (neighbouring leaves alike) does not bias the sample.  Adds to
 * *matches the leaves matched and to *seen the live leaves sampled.
 */
void
bloofi_sample(Relation index, const BloofiMetaData *meta, const uint32 *pos, uint32 npos,
			  int64 max_leaves, double *matches, double *seen)
{
	uint32	   *nused = palloc0(sizeof(uint32) * Max(meta->ngroups, 1));
	uint32	   *nlive = palloc0(sizeof(uint32) * Max(meta->ngroups, 1));
	double		total = 0,
				frac;

	for (uint32 g = 0; g < meta->ngroups; g++)
	{
		BloofiPageOpaqueData op;

		if (meta->groups[g].flags & BLOOFI_GROUP_EMPTY)
			continue;
		op = bloofi_read_header(index, meta->groups[g].start, g);
		nused[g] = Min(op.nused, meta->groups[g].cap);
		nlive[g] = Min(op.nlive, nused[g]);
		total += nused[g];
	}
	if (total == 0)
		return;
	frac = Min(1.0, (double) max_leaves / total);

	for (uint32 g = 0; g < meta->ngroups; g++)
	{
		BloofiGeometry geom;
		BlockNumber start = meta->groups[g].start;
		uint32		nwords = (nused[g] + 63) / 64;
		uint32		take,
					stride;
		uint64	   *acc;
		double		slots = 0,
					hits = 0;
		Buffer		buf = InvalidBuffer;
		uint32		cur = InvalidBlockNumber;

		if (nwords == 0)
			continue;
		bloofi_group_geometry(index, meta, g, &geom);
		take = Max(1, (uint32) ceil(nwords * frac));
		take = Min(take, nwords);
		stride = nwords / take;
		acc = palloc(sizeof(uint64) * take);
		for (uint32 i = 0; i < take; i++)
		{
			uint32		w = i * stride;
			uint32		lo = w * 64;
			uint32		n = Min(64, nused[g] - lo);

			acc[i] = n == 64 ? ~UINT64CONST(0) : ((UINT64CONST(1) << n) - 1);
			slots += n;
		}
		if ((meta->groups[g].flags & BLOOFI_GROUP_SATURATED) ||
			bloofi_summary_passes(index, start, &geom, pos, npos))
		{
			for (uint32 p = 0; p < npos; p++)
			{
				const uint8 *slice = bloofi_walk_page(index, start,
													  bloofi_slice_page(&geom, pos[p]),
													  &buf, &cur) +
					bloofi_slice_offset(&geom, pos[p]);

				for (uint32 i = 0; i < take; i++)
					acc[i] &= bs_load64le(slice + 8 * (size_t) (i * stride));
			}
			if (BufferIsValid(buf))
				UnlockReleaseBuffer(buf);
			for (uint32 i = 0; i < take; i++)
				hits += __builtin_popcountll(acc[i]);
		}
		/* free and dead slots have no bits: scale the slots sampled to live leaves */
		*seen += slots * nlive[g] / nused[g];
		*matches += hits;
		pfree(acc);
	}
}

static void
bloofi_bitmap_cb(ItemPointer tid, void *arg)
{
	tbm_add_tuples((TIDBitmap *) arg, tid, 1, true);
}

int64
bloofi_getbitmap(IndexScanDesc scan, TIDBitmap *tbm)
{
	BloofiScanOpaqueData *so = (BloofiScanOpaqueData *) scan->opaque;
	MemoryContext old = MemoryContextSwitchTo(so->ctx);
	BloofiMetaData *meta = bloofi_read_meta(scan->indexRelation);
	BloofiSearchStats st = {false, 0, 0, 0};
	BsParams	p;
	BsHasher	h;
	uint32	   *pos;
	uint32		npos = 0;

	if (!meta->have_params)
	{
		MemoryContextSwitchTo(old);
		MemoryContextReset(so->ctx);
		return 0;
	}
	bloofi_params(meta, &p);
	bs_hasher_init(&h, &p);
	pos = palloc(sizeof(uint32) * p.k * Max(scan->numberOfKeys, 1));
	for (int i = 0; i < scan->numberOfKeys; i++)
	{
		ScanKey		sk = &scan->keyData[i];

		if (sk->sk_flags & SK_ISNULL)
		{
			MemoryContextSwitchTo(old);
			MemoryContextReset(so->ctx);
			return 0;
		}
		bs_key_positions(&h, bloofi_elem_key(&h, sk->sk_argument, sk->sk_subtype),
						 pos + npos);
		npos += p.k;
	}
	npos = bloofi_sort_positions(pos, npos);
	pgstat_count_index_scan(scan->indexRelation);
	/* the pending chains first, then the groups of a fresh directory (bloofi_pending.c) */
	bloofi_pending_search(scan->indexRelation, meta, pos, npos, bloofi_bitmap_cb, tbm, &st);
	meta = bloofi_read_meta(scan->indexRelation);
	bloofi_search(scan->indexRelation, meta, pos, npos, bloofi_bitmap_cb, tbm, &st);
	MemoryContextSwitchTo(old);
	MemoryContextReset(so->ctx);
	return st.matches;
}
