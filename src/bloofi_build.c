/*
 * bloofi_build.c
 *    CREATE INDEX / REINDEX for Bloofi: bulk build, bottom-up.
 *
 * The heap is scanned once into a tuplesort keyed by a similarity key
 * (two MinHash values of the filter's set bits, bloofi_similarity_key):
 * similar filters come out next to each other, as the paper's bulk build
 * orders them (it uses an O(N^2) nearest-neighbour chain; MinHash is the
 * O(N log N) locality-sensitive stand-in), so a group's summary stays as
 * sparse as the data allows.  The sorted filters are buffered row-major in
 * memory, one group at a time (at most `order` leaves and
 * maintenance_work_mem bytes), and each full buffer is written as a group:
 * TIDs, the summary (the OR of its leaves) and the slices, produced by
 * transposing the buffer one slice page at a time (work proportional to the
 * set bits).  The sort and the buffer get half of maintenance_work_mem each.
 * Groups are filled to capacity (the last one is sized to what
 * is left), so a bulk-built index has the fewest groups a lookup must visit;
 * inserts later use the paper's closest-summary rule (bloofi_insert.c).
 *
 * Pages are written through shared buffers without WAL and WAL-logged at the
 * end in one pass (log_newpage_range), as pgvector and GiST's sorted build
 * do; a crash before commit leaves an index nobody references.
 */
#include "postgres.h"

#include "access/tableam.h"
#include "access/tupdesc.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "executor/tuptable.h"
#include "access/xloginsert.h"
#include "catalog/index.h"
#include "commands/progress.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/smgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/tuplesort.h"

#include "bloofi.h"

typedef struct BloofiBuildState
{
	Relation	index;
	BloofiMetaData *meta;		/* local copy, written at the end */
	BsParams	params;
	uint32		build_cap;		/* slots per full group */
	uint8	   *arena;			/* build_cap filters, row-major */
	ItemPointerData *tids;
	uint32		n;				/* filters buffered */
	double		indtuples;
	MemoryContext tmpctx;
	Tuplesortstate *sort;		/* (similarity key, tid, filter bits) */
	TupleDesc	sortdesc;
	TupleTableSlot *inslot;
} BloofiBuildState;

/* write the buffered filters as one new group at the end of the index */
static void
bloofi_flush_group(BloofiBuildState *bs, uint32 cap)
{
	BloofiGeometry geom;
	BloofiMetaData *meta = bs->meta;
	uint32		g = meta->ngroups;
	uint8	   *summary;
	BlockNumber start = InvalidBlockNumber;

	if (bs->n == 0)
		return;
	if (g >= BLOOFI_MAX_GROUPS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloofi index \"%s\" would need more than %u groups",
						RelationGetRelationName(bs->index), (unsigned) BLOOFI_MAX_GROUPS),
				 errhint("Use a larger \"order\" or more maintenance_work_mem (groups now hold %u leaves).",
						 bs->build_cap)));
	if (!bloofi_geometry(&geom, bs->params.m, cap, BLOOFI_PAGE_BYTES))
		elog(ERROR, "bloofi: invalid group geometry m=%u cap=%u", bs->params.m, cap);

	summary = palloc0(geom.filter_bytes);
	for (uint32 i = 0; i < bs->n; i++)
		bs_or(summary, bs->arena + (size_t) i * geom.filter_bytes, geom.filter_bytes / 8);

	for (uint32 p = 0; p < geom.total_pages; p++)
	{
		Buffer		buf = bloofi_new_buffer(bs->index);
		Page		page = BufferGetPage(buf);
		uint8	   *data = (uint8 *) PageGetContents(page);

		CHECK_FOR_INTERRUPTS();
		if (p == 0)
			start = BufferGetBlockNumber(buf);
		else if (BufferGetBlockNumber(buf) != start + p)
			elog(ERROR, "bloofi: index extended concurrently during build");

		if (p < geom.tid_pages)
		{
			uint32		first = p * geom.tids_per_page;
			uint32		cnt = first < bs->n ? Min(geom.tids_per_page, bs->n - first) : 0;

			bloofi_init_page(page, BLOOFI_PAGE_TID, g, BLOOFI_PAGE_BYTES);
			memset(data, 0, BLOOFI_PAGE_BYTES);
			if (cnt > 0)
				memcpy(data, bs->tids + first, (size_t) cnt * sizeof(ItemPointerData));
			if (p == 0)
			{
				BloofiPageGetOpaque(page)->nused = bs->n;
				BloofiPageGetOpaque(page)->nlive = bs->n;
			}
		}
		else if (p < geom.tid_pages + geom.summary_pages)
		{
			uint32		sp = p - geom.tid_pages;
			uint32		bytes = bloofi_summary_page_bytes(&geom, sp);

			bloofi_init_page(page, BLOOFI_PAGE_SUMMARY, g, bytes);
			memcpy(data, summary + (size_t) sp * geom.summary_bytes_per_page, bytes);
		}
		else
		{
			uint32		sp = p - geom.tid_pages - geom.summary_pages;

			bloofi_init_page(page, BLOOFI_PAGE_SLICE, g, BLOOFI_PAGE_BYTES);
			memset(data, 0, BLOOFI_PAGE_BYTES);
			bloofi_transpose(data, geom.slice_bytes, bloofi_slice_page_first(&geom, sp),
							 bloofi_slice_page_count(&geom, sp),
							 bs->arena, geom.filter_bytes, bs->n, 0);
		}
		MarkBufferDirty(buf);
		UnlockReleaseBuffer(buf);
	}
	meta->groups[g].start = start;
	meta->groups[g].cap = cap;
	meta->groups[g].flags = bloofi_summary_saturated(summary, bs->params.m, bs->params.k) ?
		BLOOFI_GROUP_SATURATED : 0;
	pfree(summary);
	meta->ngroups = g + 1;
	bs->n = 0;
}

/* append one sorted filter to the group buffer, writing full groups */
static void
bloofi_buffer_leaf(BloofiBuildState *bs, ItemPointer tid, const uint8 *bits, size_t nbytes)
{
	memcpy(bs->arena + (size_t) bs->n * nbytes, bits, nbytes);
	bs->tids[bs->n] = *tid;
	bs->n++;
	if (bs->n == bs->build_cap)
		bloofi_flush_group(bs, bs->build_cap);
}

static void
bloofi_build_callback(Relation index, ItemPointer tid, Datum *values,
					  bool *isnull, bool tupleIsAlive, void *state)
{
	BloofiBuildState *bs = (BloofiBuildState *) state;
	BloomView	v;
	MemoryContext old;

	if (isnull[0])
		return;
	old = MemoryContextSwitchTo(bs->tmpctx);
	bf_view_datum(values[0], &v);
	if (!bs->meta->have_params)
	{
		uint64		per_mem;

		bloofi_require_max_m(v.p.m);
		bs->params = v.p;
		bs->meta->have_params = 1;
		bs->meta->m = v.p.m;
		bs->meta->k = v.p.k;
		bs->meta->hash = v.p.hash;
		bs->meta->seed = v.p.seed;
		/* half of maintenance_work_mem for the sort, half for one group's buffer */
		per_mem = (uint64) maintenance_work_mem * 512 / (v.nwords * 8 + sizeof(ItemPointerData));
		bs->build_cap = Min(bs->meta->order, (uint32) Min(per_mem, (uint64) BLOOFI_MAX_ORDER));
		bs->build_cap = Max(bs->build_cap / BLOOFI_SLOT_QUANTUM * BLOOFI_SLOT_QUANTUM,
							BLOOFI_SLOT_QUANTUM);
		MemoryContextSwitchTo(old);
		bs->arena = palloc_extended((Size) bs->build_cap * v.nwords * 8, MCXT_ALLOC_HUGE);
		bs->tids = palloc((Size) bs->build_cap * sizeof(ItemPointerData));
		MemoryContextSwitchTo(bs->tmpctx);
	}
	else
		bloofi_require_params(index, bs->meta, &v.p);

	{
		bytea	   *bits = palloc(VARHDRSZ + v.nwords * 8);
		ItemPointerData t = *tid;

		SET_VARSIZE(bits, VARHDRSZ + v.nwords * 8);
		memcpy(VARDATA(bits), v.bits, v.nwords * 8);
		ExecClearTuple(bs->inslot);
		bs->inslot->tts_values[0] = Int64GetDatum((int64) bloofi_similarity_key(v.bits, v.p.m));
		bs->inslot->tts_values[1] = PointerGetDatum(&t);
		bs->inslot->tts_values[2] = PointerGetDatum(bits);
		memset(bs->inslot->tts_isnull, 0, 3 * sizeof(bool));
		ExecStoreVirtualTuple(bs->inslot);
		tuplesort_puttupleslot(bs->sort, bs->inslot);
	}
	bs->indtuples += 1;
	MemoryContextSwitchTo(old);
	MemoryContextReset(bs->tmpctx);
	pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, (int64) bs->indtuples);
}

IndexBuildResult *
bloofi_build(Relation heap, Relation index, IndexInfo *indexInfo)
{
	IndexBuildResult *result;
	BloofiBuildState bs;
	Buffer		metabuf;
	double		reltuples;

	if (RelationGetNumberOfBlocks(index) != 0)
		elog(ERROR, "index \"%s\" already contains data", RelationGetRelationName(index));

	memset(&bs, 0, sizeof(bs));
	bs.index = index;
	bs.meta = palloc0(BLOOFI_PAGE_BYTES);
	bs.meta->magic = BLOOFI_MAGIC;
	bs.meta->version = BLOOFI_VERSION;
	bs.meta->order = bloofi_get_order(index);
	bs.meta->pending_head = bs.meta->pending_tail = InvalidBlockNumber;
	bs.meta->flushing_head = bs.meta->free_head = InvalidBlockNumber;
	bs.tmpctx = AllocSetContextCreate(CurrentMemoryContext, "bloofi build temporary context",
									  ALLOCSET_DEFAULT_SIZES);
	{
		AttrNumber	attno = 1;
		Oid			op = Int8LessOperator;
		Oid			coll = InvalidOid;
		bool		nf = false;

		bs.sortdesc = CreateTemplateTupleDesc(3);
		TupleDescInitEntry(bs.sortdesc, 1, "key", INT8OID, -1, 0);
		TupleDescInitEntry(bs.sortdesc, 2, "tid", TIDOID, -1, 0);
		TupleDescInitEntry(bs.sortdesc, 3, "bits", BYTEAOID, -1, 0);
		bs.sort = tuplesort_begin_heap(bs.sortdesc, 1, &attno, &op, &coll, &nf,
									   Max(maintenance_work_mem / 2, 64), NULL, TUPLESORT_NONE);
		bs.inslot = MakeSingleTupleTableSlot(bs.sortdesc, &TTSOpsVirtual);
	}

	/* block 0: the metapage, rewritten at the end */
	metabuf = bloofi_new_buffer(index);
	Assert(BufferGetBlockNumber(metabuf) == BLOOFI_METAPAGE_BLKNO);
	bloofi_init_meta_page(BufferGetPage(metabuf), bs.meta->order);
	MarkBufferDirty(metabuf);
	UnlockReleaseBuffer(metabuf);

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, BLOOFI_PHASE_LOAD);
	reltuples = table_index_build_scan(heap, index, indexInfo, true, true,
									   bloofi_build_callback, (void *) &bs, NULL);

	/* the filters in similarity order, packed into groups */
	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, BLOOFI_PHASE_SORT);
	tuplesort_performsort(bs.sort);
	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, BLOOFI_PHASE_WRITE);
	{
		TupleTableSlot *outslot = MakeSingleTupleTableSlot(bs.sortdesc, &TTSOpsMinimalTuple);

		while (tuplesort_gettupleslot(bs.sort, true, false, outslot, NULL))
		{
			bool		isnull;
			ItemPointer tid;
			bytea	   *bits;

			CHECK_FOR_INTERRUPTS();
			tid = (ItemPointer) DatumGetPointer(slot_getattr(outslot, 2, &isnull));
			bits = DatumGetByteaPP(slot_getattr(outslot, 3, &isnull));
			bloofi_buffer_leaf(&bs, tid, (const uint8 *) VARDATA_ANY(bits),
							   VARSIZE_ANY_EXHDR(bits));
		}
		ExecDropSingleTupleTableSlot(outslot);
	}
	tuplesort_end(bs.sort);
	ExecDropSingleTupleTableSlot(bs.inslot);
	if (bs.n > 0)
		bloofi_flush_group(&bs, bloofi_round_capacity(bs.n, bs.build_cap));

	metabuf = ReadBuffer(index, BLOOFI_METAPAGE_BLKNO);
	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	memcpy(BloofiPageGetMeta(BufferGetPage(metabuf)), bs.meta, BLOOFI_PAGE_BYTES);
	MarkBufferDirty(metabuf);
	UnlockReleaseBuffer(metabuf);

	if (RelationNeedsWAL(index))
	{
		pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, BLOOFI_PHASE_WAL);
		log_newpage_range(index, MAIN_FORKNUM, 0, RelationGetNumberOfBlocks(index), true);
	}
	MemoryContextDelete(bs.tmpctx);

	result = (IndexBuildResult *) palloc(sizeof(IndexBuildResult));
	result->heap_tuples = reltuples;
	result->index_tuples = bs.indtuples;
	return result;
}

/* the init fork of an unlogged index: an empty metapage */
void
bloofi_buildempty(Relation index)
{
	Page		metapage = (Page) palloc(BLCKSZ);

	bloofi_init_meta_page(metapage, bloofi_get_order(index));
	PageSetChecksumInplace(metapage, BLOOFI_METAPAGE_BLKNO);
	smgrwrite(RelationGetSmgr(index), INIT_FORKNUM, BLOOFI_METAPAGE_BLKNO,
			  (char *) metapage, true);
	log_newpage(&(RelationGetSmgr(index))->smgr_rnode.node, INIT_FORKNUM,
				BLOOFI_METAPAGE_BLKNO, metapage, true);
	smgrimmedsync(RelationGetSmgr(index), INIT_FORKNUM);
}

char *
bloofi_buildphasename(int64 phasenum)
{
	switch (phasenum)
	{
		case PROGRESS_CREATEIDX_SUBPHASE_INITIALIZE:
			return "initializing";
		case BLOOFI_PHASE_LOAD:
			return "scanning table";
		case BLOOFI_PHASE_SORT:
			return "sorting filters by similarity";
		case BLOOFI_PHASE_WRITE:
			return "writing groups";
		case BLOOFI_PHASE_WAL:
			return "WAL-logging index";
		default:
			return NULL;
	}
}
