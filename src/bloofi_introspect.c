/*
 * bloofi_introspect.c
 *    bloofi_stats (shape), bloofi_check (every invariant, against the heap)
 *    and bloofi_probe (the paper's search cost of one lookup).
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/index.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "bloofi.h"

PG_FUNCTION_INFO_V1(bloofi_stats);
PG_FUNCTION_INFO_V1(bloofi_check);
PG_FUNCTION_INFO_V1(bloofi_probe);

#define CORRUPT(index, ...) \
	ereport(ERROR, \
			(errcode(ERRCODE_INDEX_CORRUPTED), \
			 errmsg("bloofi index \"%s\" is corrupted", RelationGetRelationName(index)), \
			 errdetail(__VA_ARGS__), \
			 errhint("REINDEX it to rebuild it from the table.")))

static void
bloofi_count_visit(ItemPointer tid, const uint8 *filter, bool flushing, void *arg)
{
	int64	   *n = (int64 *) arg;

	n[0]++;
	if (flushing)
		n[1]++;
}

Datum
bloofi_stats(PG_FUNCTION_ARGS)
{
	Relation	index = bloofi_open_index(PG_GETARG_OID(0), AccessShareLock);
	BloofiMetaData *meta = bloofi_read_meta(index);
	TupleDesc	tupdesc;
	Datum		values[14];
	bool		nulls[14] = {0};
	int64		pend[2] = {0, 0};	/* pending entries, of which in a flushing chain */
	int64		pending;
	int32		empty = 0;
	int64		leaves = 0,
				slots = 0,
				used = 0;
	double		fill = 0;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	for (uint32 g = 0; g < meta->ngroups; g++)
	{
		BloofiGeometry geom;
		BloofiPageOpaqueData op;
		uint8	   *summary;

		bloofi_group_geometry(index, meta, g, &geom);
		if (meta->groups[g].flags & BLOOFI_GROUP_EMPTY)
			empty++;
		op = bloofi_read_header(index, meta->groups[g].start, g);
		leaves += op.nlive;
		used += op.nused;
		slots += geom.cap;
		summary = palloc0(geom.filter_bytes);
		bloofi_read_summary(index, meta->groups[g].start, &geom, g, summary);
		fill += (double) bs_popcount(summary, geom.filter_bytes / 8) / meta->m;
		pfree(summary);
	}

	bloofi_pending_visit(index, meta, bloofi_count_visit, pend);
	pending = pend[0];
	values[0] = Int32GetDatum(meta->ngroups > 0 ? 2 : pending > 0 ? 1 : 0);	/* root -> group -> leaf */
	values[1] = Int64GetDatum((meta->ngroups + pending > 0 ? 1 : 0) + (int64) meta->ngroups + leaves + pending);
	values[2] = Int64GetDatum(leaves + pending);
	values[3] = Int64GetDatum((int64) RelationGetNumberOfBlocks(index));
	values[4] = Int32GetDatum((int32) meta->ngroups);
	values[5] = Int32GetDatum((int32) meta->order);
	values[6] = Int64GetDatum(slots);
	values[7] = Int64GetDatum(used - leaves);
	if (meta->have_params)
	{
		values[8] = Int64GetDatum((int64) meta->m);
		values[9] = Int32GetDatum((int32) meta->k);
	}
	else
		nulls[8] = nulls[9] = true;
	if (meta->ngroups > 0)
		values[10] = Float8GetDatum(fill / meta->ngroups);
	else
		nulls[10] = true;
	values[11] = Int64GetDatum(pending);
	values[12] = Int32GetDatum(empty);
	values[13] = Int64GetDatum(pend[1]);
	relation_close(index, AccessShareLock);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* ---- bloofi_check ---------------------------------------------------------- */

typedef struct CheckEntry
{
	ItemPointerData tid;		/* hash key */
	uint32		group;
	uint32		slot;
	uint32		count;			/* bits set in the stored leaf */
	uint64		digest;			/* bloofi_filter_digest of the stored leaf */
	int			seen;
} CheckEntry;

typedef struct CheckState
{
	Relation	index;
	BloofiMetaData *meta;
	HTAB	   *map;
	uint8	  **summaries;
	int64		live;
	uint32		npending_seen;
	uint32		nactive;
	bool	   *stale;			/* per group: summary has bits no leaf has */
} CheckState;

static void
bloofi_check_callback(Relation index, ItemPointer tid, Datum *values,
					  bool *isnull, bool tupleIsAlive, void *state)
{
	CheckState *cs = (CheckState *) state;
	CheckEntry *e;
	BloomView	v;
	BsParams	ip;

	if (isnull[0] || !tupleIsAlive)
		return;
	cs->live++;
	e = hash_search(cs->map, tid, HASH_FIND, NULL);
	if (e == NULL)
		CORRUPT(index, "Live heap tuple (%u,%u) has a filter but no leaf in the index.",
				ItemPointerGetBlockNumber(tid), ItemPointerGetOffsetNumber(tid));
	if (e->seen++ > 0)
		CORRUPT(index, "Heap tuple (%u,%u) was reported twice.",
				ItemPointerGetBlockNumber(tid), ItemPointerGetOffsetNumber(tid));
	bf_view_datum(values[0], &v);
	bloofi_params(cs->meta, &ip);
	if (!cs->meta->have_params || !bs_params_equal(&ip, &v.p))
		CORRUPT(index, "Heap tuple (%u,%u) has a filter with parameters %s, the index %s.",
				ItemPointerGetBlockNumber(tid), ItemPointerGetOffsetNumber(tid),
				bf_params_string(&v.p), cs->meta->have_params ? bf_params_string(&ip) : "none");
	if (e->count != bs_popcount(v.bits, v.nwords) ||
		e->digest != bloofi_filter_digest(v.bits, v.p.m))
		CORRUPT(index, "Leaf of heap tuple (%u,%u) (group %d, slot %u) differs from its filter: %u bits stored, %lu in the heap.",
				ItemPointerGetBlockNumber(tid), ItemPointerGetOffsetNumber(tid),
				(int) e->group, e->slot, e->count, (unsigned long) bs_popcount(v.bits, v.nwords));
	if (e->group != UINT32_MAX &&
		!bs_is_subset(v.bits, cs->summaries[e->group], v.nwords))
		CORRUPT(index, "Summary of group %u is not the OR of its leaves: it lacks bits of the leaf of heap tuple (%u,%u) (slot %u).",
				e->group, ItemPointerGetBlockNumber(tid), ItemPointerGetOffsetNumber(tid),
				e->slot);
}

/* check one group's pages, leaves and summary; enter its TIDs into the map */
static void
bloofi_check_group(CheckState *cs, uint32 g, BlockNumber nblocks, BlockNumber *prev_end)
{
	Relation	index = cs->index;
	BloofiMetaData *meta = cs->meta;
	BloofiGeometry geom;
	BlockNumber start = meta->groups[g].start;
	BloofiPageOpaqueData op;
	ItemPointerData *tids;
	uint64	   *valid,
			   *none;
	uint32	   *count;
	uint64	   *digest;
	uint8	   *orv,
			   *page;
	uint32		nvalid = 0;

	bloofi_group_geometry(index, meta, g, &geom);
	if (meta->groups[g].cap > meta->order)
		CORRUPT(index, "Group %u has capacity %u, above the order %u.", g,
				meta->groups[g].cap, meta->order);
	if (start < *prev_end || start + geom.total_pages > nblocks)
		CORRUPT(index, "Group %u spans blocks %u..%u, overlapping block %u or beyond the %u blocks of the index.",
				g, start, start + geom.total_pages - 1, *prev_end, nblocks);
	*prev_end = start + geom.total_pages;

	op = bloofi_read_header(index, start, g);
	if (op.nused > geom.cap || op.nlive > op.nused)
		CORRUPT(index, "Group %u has %u live leaves and %u used slots for a capacity of %u.",
				g, op.nlive, op.nused, geom.cap);
	if ((meta->groups[g].flags & BLOOFI_GROUP_EMPTY) &&
		(!(meta->groups[g].flags & BLOOFI_GROUP_RETIRED) || op.nused != 0))
		CORRUPT(index, "Group %u is marked empty (flags %u) but has %u used slots.",
				g, meta->groups[g].flags, op.nused);

	tids = palloc0(sizeof(ItemPointerData) * geom.cap);
	bloofi_read_tids(index, start, &geom, geom.cap, tids);
	valid = palloc0(sizeof(uint64) * geom.slice_words);
	none = palloc0(sizeof(uint64) * geom.slice_words);
	for (uint32 s = 0; s < geom.cap; s++)
		if (ItemPointerIsValid(&tids[s]))
		{
			if (s >= op.nused)
				CORRUPT(index, "Group %u slot %u holds a TID above the high-water mark %u.",
						g, s, op.nused);
			valid[s / 64] |= UINT64CONST(1) << (s % 64);
			nvalid++;
		}
	if (nvalid != op.nlive)
		CORRUPT(index, "Group %u counts %u live leaves but holds %u TIDs.", g, op.nlive, nvalid);

	/* every page of the group, and the leaves as count + digest */
	count = palloc0(sizeof(uint32) * geom.cap);
	digest = palloc0(sizeof(uint64) * geom.cap);
	orv = palloc0(geom.filter_bytes);
	page = palloc(BLCKSZ);
	for (uint32 p = 0; p < geom.total_pages; p++)
	{
		Buffer		buf = ReadBuffer(index, start + p);
		uint16		kind = p < geom.tid_pages ? BLOOFI_PAGE_TID :
			p < geom.tid_pages + geom.summary_pages ? BLOOFI_PAGE_SUMMARY : BLOOFI_PAGE_SLICE;

		CHECK_FOR_INTERRUPTS();
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		bloofi_check_page(index, BufferGetPage(buf), start + p, kind, g);
		memcpy(page, PageGetContents(BufferGetPage(buf)), BLOOFI_PAGE_BYTES);
		UnlockReleaseBuffer(buf);
		if (kind == BLOOFI_PAGE_SLICE)
		{
			uint32		sp = p - geom.tid_pages - geom.summary_pages;
			uint32		j0 = bloofi_slice_page_first(&geom, sp);
			uint32		n = bloofi_slice_page_count(&geom, sp);

			bloofi_column_digest(page, geom.slice_words, j0, n, geom.cap, count, digest);
			bloofi_clear_and_summarise(page, geom.slice_words, j0, n, none, valid, orv);
		}
	}
	for (uint32 s = 0; s < geom.cap; s++)
	{
		if (!ItemPointerIsValid(&tids[s]))
		{
			if (count[s] != 0)
				CORRUPT(index, "Group %u slot %u is free but has %u bits set.", g, s, count[s]);
			continue;
		}
		{
			bool		found;
			CheckEntry *e = hash_search(cs->map, &tids[s], HASH_ENTER, &found);

			if (found)
			{
				/* a leaf being moved out of a retired group may be in both */
				if (meta->groups[g].flags & BLOOFI_GROUP_RETIRED)
					continue;	/* keep the other copy */
				if (!(meta->groups[e->group].flags & BLOOFI_GROUP_RETIRED))
					CORRUPT(index, "Heap TID (%u,%u) is in the index twice: group %u slot %u and group %u slot %u.",
							ItemPointerGetBlockNumber(&tids[s]), ItemPointerGetOffsetNumber(&tids[s]),
							e->group, e->slot, g, s);
				/* else this copy replaces the retired one */
			}
			e->group = g;
			e->slot = s;
			e->count = count[s];
			e->digest = digest[s];
			e->seen = 0;
		}
	}
	cs->summaries[g] = palloc0(geom.filter_bytes);
	bloofi_read_summary(index, start, &geom, g, cs->summaries[g]);
	/*
	 * Extra summary bits are legitimate only while a VACUUM that a crash
	 * interrupted is to be redone (dead leaves still hold their TIDs): decided
	 * after the heap scan, once the dead TIDs are known.
	 */
	cs->stale[g] = !bs_is_subset(cs->summaries[g], orv, geom.filter_bytes / 8);
	pfree(tids);
	pfree(valid);
	pfree(none);
	pfree(count);
	pfree(digest);
	pfree(orv);
	pfree(page);
}

/* pending entries into the map; a TID may also be in a group only in the flushing chain */
static void
bloofi_check_pending_visit(ItemPointer tid, const uint8 *filter, bool flushing, void *arg)
{
	CheckState *cs = (CheckState *) arg;
	bool		found;
	CheckEntry *e;

	if (!ItemPointerIsValid(tid))
		CORRUPT(cs->index, "A pending entry has an invalid heap TID.");
	e = hash_search(cs->map, tid, HASH_ENTER, &found);
	if (found)
	{
		if (flushing && e->group != UINT32_MAX)
			goto replace;		/* a flush a crash interrupted: the group's copy
								 * may be half written until the next flush
								 * completes it; the chain holds the filter */
		if (e->group != UINT32_MAX && (cs->meta->groups[e->group].flags & BLOOFI_GROUP_RETIRED))
			goto replace;		/* moved out of a retired group: keep the pending copy */
		CORRUPT(cs->index, "Heap TID (%u,%u) is in the index twice (pending list and %s).",
				ItemPointerGetBlockNumber(tid), ItemPointerGetOffsetNumber(tid),
				e->group == UINT32_MAX ? "pending list" : "a group");
	}
replace:
	e->group = UINT32_MAX;
	e->slot = cs->npending_seen++;
	e->count = (uint32) bs_popcount(filter, bs_words_for_bits(cs->meta->m));
	e->digest = bloofi_filter_digest(filter, cs->meta->m);
	e->seen = 0;
	if (!flushing)
		cs->nactive++;
}

Datum
bloofi_check(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	Oid			heapoid = IndexGetRelation(indexoid, true);
	Relation	heap,
				index;
	CheckState	cs;
	HASHCTL		ctl;
	BlockNumber nblocks,
				prev_end = BLOOFI_METAPAGE_BLKNO + 1;
	IndexInfo  *indexInfo;

	if (!OidIsValid(heapoid))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("relation with OID %u is not a bloofi index", indexoid)));
	/* heap first, as everywhere: ShareLock keeps writers out while we compare */
	heap = table_open(heapoid, ShareLock);
	index = bloofi_open_index(indexoid, AccessShareLock);

	memset(&cs, 0, sizeof(cs));
	cs.index = index;
	cs.meta = bloofi_read_meta(index);
	if (cs.meta->order < BLOOFI_MIN_ORDER || cs.meta->order > BLOOFI_MAX_ORDER ||
		cs.meta->order % BLOOFI_SLOT_QUANTUM != 0)
		CORRUPT(index, "Metapage order %u is out of bounds.", cs.meta->order);
	if (!cs.meta->have_params && cs.meta->ngroups > 0)
		CORRUPT(index, "Metapage has %u groups but no filter parameters.", cs.meta->ngroups);
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(ItemPointerData);
	ctl.entrysize = sizeof(CheckEntry);
	ctl.hcxt = CurrentMemoryContext;
	cs.map = hash_create("bloofi check", 1024, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	cs.summaries = palloc0(sizeof(uint8 *) * Max(cs.meta->ngroups, 1));
	cs.stale = palloc0(sizeof(bool) * Max(cs.meta->ngroups, 1));

	nblocks = RelationGetNumberOfBlocks(index);
	for (uint32 g = 0; g < cs.meta->ngroups; g++)
		bloofi_check_group(&cs, g, nblocks, &prev_end);

	bloofi_pending_visit(index, cs.meta, bloofi_check_pending_visit, &cs);
	if (cs.nactive != cs.meta->npending)
		CORRUPT(index, "Metapage counts %u pending entries, the pending list holds %u.",
				cs.meta->npending, cs.nactive);

	indexInfo = BuildIndexInfo(index);
	table_index_build_scan(heap, index, indexInfo, true, false,
						   bloofi_check_callback, (void *) &cs, NULL);

	/* a stale summary needs a dead leaf (an interrupted VACUUM) in its group */
	{
		bool	   *has_dead = palloc0(sizeof(bool) * Max(cs.meta->ngroups, 1));
		HASH_SEQ_STATUS hs;
		CheckEntry *e;

		hash_seq_init(&hs, cs.map);
		while ((e = hash_seq_search(&hs)) != NULL)
			if (e->seen == 0 && e->group != UINT32_MAX)
				has_dead[e->group] = true;
		for (uint32 g = 0; g < cs.meta->ngroups; g++)
			if (cs.stale[g] && !has_dead[g] &&
				!(cs.meta->groups[g].flags & BLOOFI_GROUP_RETIRED))
				CORRUPT(index, "Summary of group %u has bits that none of its leaves has (it is not the OR of its leaves).", g);
	}

	relation_close(index, AccessShareLock);
	table_close(heap, ShareLock);
	PG_RETURN_VOID();
}

/* ---- bloofi_probe ---------------------------------------------------------- */

Datum
bloofi_probe(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	index = bloofi_open_index(PG_GETARG_OID(0), AccessShareLock);
	Oid			elemtype = get_fn_expr_argtype(fcinfo->flinfo, 1);
	BloofiMetaData *meta = bloofi_read_meta(index);
	BloofiSearchStats st = {true, 0, 0, 0};
	Datum		values[2];
	bool		nulls[2] = {0};

	InitMaterializedSRF(fcinfo, 0);
	if (meta->have_params)
	{
		BsParams	p;
		BsHasher	h;
		uint32		pos[BS_MAX_K];
		uint32		npos;

		bloofi_params(meta, &p);
		bs_hasher_init(&h, &p);
		bs_key_positions(&h, bloofi_elem_key(&h, PG_GETARG_DATUM(1), elemtype), pos);
		npos = bloofi_sort_positions(pos, p.k);
		bloofi_pending_search(index, meta, pos, npos, NULL, NULL, &st);
		meta = bloofi_read_meta(index);
		bloofi_search(index, meta, pos, npos, NULL, NULL, &st);
	}
	relation_close(index, AccessShareLock);
	values[0] = Int64GetDatum(st.nodes_checked);
	values[1] = Int64GetDatum(st.matches);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	return (Datum) 0;
}
