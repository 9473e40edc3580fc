/*
 * bloofi_utils.c
 *    Bloofi access method: handler, reloptions, page and metapage helpers,
 *    group creation, batched GenericXLog, element keys.
 */
#include "postgres.h"

#include <math.h>

#include "access/reloptions.h"
#include "access/relation.h"
#include "catalog/index.h"
#include "catalog/pg_am.h"
#include "catalog/pg_type.h"
#include "commands/vacuum.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "commands/defrem.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/uuid.h"

#include "bloofi.h"

PG_FUNCTION_INFO_V1(bloofi_handler);

static relopt_kind bloofi_relopt_kind;
static bool bloofi_relopt_ready = false;
static relopt_parse_elt bloofi_relopt_tab[2];

/*
 * bloofi_init_reloptions: register the reloptions once per backend; called
 * from _PG_init, and again (a no-op) by the handler and amoptions.
 */
void
bloofi_init_reloptions(void)
{
	if (bloofi_relopt_ready)
		return;
	bloofi_relopt_kind = add_reloption_kind();
	add_int_reloption(bloofi_relopt_kind, "order",
					  "Maximum number of leaves (filters) per bit-sliced group node",
					  BLOOFI_DEFAULT_ORDER, BLOOFI_MIN_ORDER, BLOOFI_MAX_ORDER,
					  AccessExclusiveLock);
	bloofi_relopt_tab[0].optname = "order";
	bloofi_relopt_tab[0].opttype = RELOPT_TYPE_INT;
	bloofi_relopt_tab[0].offset = offsetof(BloofiOptions, order);
	add_bool_reloption(bloofi_relopt_kind, "fastupdate",
					   "Buffer inserts in a pending list moved into the groups in batches",
					   true, AccessExclusiveLock);
	bloofi_relopt_tab[1].optname = "fastupdate";
	bloofi_relopt_tab[1].opttype = RELOPT_TYPE_BOOL;
	bloofi_relopt_tab[1].offset = offsetof(BloofiOptions, fastupdate);
	bloofi_relopt_ready = true;
}

static bytea *
bloofi_options(Datum reloptions, bool validate)
{
	bloofi_init_reloptions();
	return (bytea *) build_reloptions(reloptions, validate, bloofi_relopt_kind,
									  sizeof(BloofiOptions), bloofi_relopt_tab,
									  lengthof(bloofi_relopt_tab));
}

/* the order reloption rounded up to a multiple of 64 */
int
bloofi_get_order(Relation index)
{
	BloofiOptions *o = (BloofiOptions *) index->rd_options;
	int			order = o ? o->order : BLOOFI_DEFAULT_ORDER;

	return (int) bloofi_round_capacity((uint64) order, BLOOFI_MAX_ORDER);
}

bool
bloofi_get_fastupdate(Relation index)
{
	BloofiOptions *o = (BloofiOptions *) index->rd_options;

	return o ? o->fastupdate : true;
}

Datum
bloofi_handler(PG_FUNCTION_ARGS)
{
	IndexAmRoutine *amroutine = makeNode(IndexAmRoutine);

	bloofi_init_reloptions();
	amroutine->amstrategies = 1;
	amroutine->amsupport = 0;
	amroutine->amoptsprocnum = 0;
	amroutine->amcanorder = false;
	amroutine->amcanorderbyop = false;
	amroutine->amcanbackward = false;
	amroutine->amcanunique = false;
	amroutine->amcanmulticol = false;
	amroutine->amoptionalkey = false;
	amroutine->amsearcharray = false;
	amroutine->amsearchnulls = false;
	amroutine->amstorage = false;
	amroutine->amclusterable = false;
	amroutine->ampredlocks = false;
	amroutine->amcanparallel = false;
	amroutine->amcaninclude = false;
	amroutine->amusemaintenanceworkmem = true;
	/* VACUUM may flush the pending list (appending groups): not in parallel workers */
	amroutine->amparallelvacuumoptions = VACUUM_OPTION_NO_PARALLEL;
	amroutine->amkeytype = InvalidOid;

	amroutine->ambuild = bloofi_build;
	amroutine->ambuildempty = bloofi_buildempty;
	amroutine->aminsert = bloofi_insert;
	amroutine->ambulkdelete = bloofi_bulkdelete;
	amroutine->amvacuumcleanup = bloofi_vacuumcleanup;
	amroutine->amcanreturn = NULL;
	amroutine->amcostestimate = bloofi_costestimate;
	amroutine->amoptions = bloofi_options;
	amroutine->amproperty = NULL;
	amroutine->ambuildphasename = bloofi_buildphasename;
	amroutine->amvalidate = bloofi_validate;
	amroutine->amadjustmembers = NULL;
	amroutine->ambeginscan = bloofi_beginscan;
	amroutine->amrescan = bloofi_rescan;
	amroutine->amgettuple = NULL;
	amroutine->amgetbitmap = bloofi_getbitmap;
	amroutine->amendscan = bloofi_endscan;
	amroutine->ammarkpos = NULL;
	amroutine->amrestrpos = NULL;
	amroutine->amestimateparallelscan = NULL;
	amroutine->aminitparallelscan = NULL;
	amroutine->amparallelrescan = NULL;

	PG_RETURN_POINTER(amroutine);
}

/* ---- GenericXLog in batches --------------------------------------------- */

void
bloofi_wal_begin(BloofiWal *w, Relation rel)
{
	w->rel = rel;
	w->state = NULL;
	w->n = 0;
}

/*
 * Register buf (locked exclusively by the caller) in the current WAL record
 * and return the page to modify.  A full record is finished first.  Unless
 * keep, the buffer is unlocked and released when its record is finished.
 */
Page
bloofi_wal_page(BloofiWal *w, Buffer buf, bool keep, int flags)
{
	if (w->n == MAX_GENERIC_XLOG_PAGES)
		bloofi_wal_flush(w);
	if (w->state == NULL)
		w->state = GenericXLogStart(w->rel);
	w->bufs[w->n] = buf;
	w->keep[w->n] = keep;
	w->n++;
	return GenericXLogRegisterBuffer(w->state, buf, flags);
}

/* finish the current record (if any) and release its non-kept buffers */
void
bloofi_wal_flush(BloofiWal *w)
{
	if (w->state == NULL)
		return;
	GenericXLogFinish(w->state);
	for (int i = 0; i < w->n; i++)
		if (!w->keep[i])
			UnlockReleaseBuffer(w->bufs[i]);
	w->state = NULL;
	w->n = 0;
}

/* ---- pages ---------------------------------------------------------------- */

/* initialise a page of the given kind whose data area holds data_bytes bytes */
void
bloofi_init_page(Page page, uint16 kind, uint32 group, uint32 data_bytes)
{
	BloofiPageOpaque op;

	PageInit(page, BLCKSZ, sizeof(BloofiPageOpaqueData));
	op = BloofiPageGetOpaque(page);
	op->group = group;
	op->next = InvalidBlockNumber;
	op->nused = 0;
	op->nlive = 0;
	op->kind = kind;
	op->bloofi_page_id = BLOOFI_PAGE_ID;
	Assert(data_bytes <= BLOOFI_PAGE_BYTES);
	((PageHeader) page)->pd_lower = MAXALIGN(SizeOfPageHeaderData) + data_bytes;
}

void
bloofi_init_meta_page(Page page, int order)
{
	BloofiMetaData *meta;

	bloofi_init_page(page, BLOOFI_PAGE_META, 0, BLOOFI_PAGE_BYTES);
	meta = BloofiPageGetMeta(page);
	meta->magic = BLOOFI_MAGIC;
	meta->version = BLOOFI_VERSION;
	meta->have_params = 0;
	meta->order = order;
	meta->pending_head = meta->pending_tail = InvalidBlockNumber;
	meta->npending = 0;
	meta->flushing_head = meta->free_head = InvalidBlockNumber;
	meta->ngroups = 0;
}

/* a new page at the end of the index, locked exclusively */
Buffer
bloofi_new_buffer(Relation index)
{
	Buffer		buf;
	bool		needLock = !RELATION_IS_LOCAL(index);

	if (needLock)
		LockRelationForExtension(index, ExclusiveLock);
	buf = ReadBuffer(index, P_NEW);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	if (needLock)
		UnlockRelationForExtension(index, ExclusiveLock);
	return buf;
}

/* error unless page is an intact bloofi page of that kind and group */
void
bloofi_check_page(Relation index, Page page, BlockNumber blkno, uint16 kind, uint32 group)
{
	BloofiPageOpaque op;

	if (PageIsNew(page) || PageGetSpecialSize(page) != MAXALIGN(sizeof(BloofiPageOpaqueData)))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" contains an unexpected page at block %u",
						RelationGetRelationName(index), blkno),
				 errhint("Please REINDEX it.")));
	op = BloofiPageGetOpaque(page);
	if (op->bloofi_page_id != BLOOFI_PAGE_ID || op->kind != kind || op->group != group)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" block %u is a page of kind %u of group %u, expected kind %u of group %u",
						RelationGetRelationName(index), blkno, op->kind, op->group,
						kind, group),
				 errhint("Please REINDEX it.")));
}

/* a palloc'd copy of the metapage contents */
BloofiMetaData *
bloofi_read_meta(Relation index)
{
	Buffer		buf = ReadBuffer(index, BLOOFI_METAPAGE_BLKNO);
	Page		page;
	BloofiMetaData *meta = palloc(BLOOFI_PAGE_BYTES);

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	bloofi_check_page(index, page, BLOOFI_METAPAGE_BLKNO, BLOOFI_PAGE_META, 0);
	memcpy(meta, BloofiPageGetMeta(page), BLOOFI_PAGE_BYTES);
	UnlockReleaseBuffer(buf);
	if (meta->magic != BLOOFI_MAGIC || meta->version != BLOOFI_VERSION ||
		meta->ngroups > BLOOFI_MAX_GROUPS)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" has a corrupted metapage (magic %08x, version %u, %u groups)",
						RelationGetRelationName(index), meta->magic, meta->version,
						meta->ngroups),
				 errhint("Please REINDEX it.")));
	return meta;
}

void
bloofi_params(const BloofiMetaData *meta, BsParams *p)
{
	p->m = meta->m;
	p->k = (uint8) meta->k;
	p->hash = (uint8) meta->hash;
	p->seed = meta->seed;
}

void
bloofi_group_geometry(Relation index, const BloofiMetaData *meta, uint32 g,
					  BloofiGeometry *geom)
{
	if (g >= meta->ngroups ||
		!bloofi_geometry(geom, meta->m, meta->groups[g].cap, BLOOFI_PAGE_BYTES))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" has an invalid group %u (m %u, capacity %u)",
						RelationGetRelationName(index), g, meta->m,
						g < meta->ngroups ? meta->groups[g].cap : 0),
				 errhint("Please REINDEX it.")));
}

/* a filter larger than a bloofi index can hold (m > BLOOFI_MAX_M) is an error */
void
bloofi_require_max_m(uint32 m)
{
	if (m > BLOOFI_MAX_M)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloofi cannot index filters of %u bits", m),
				 errdetail("The largest filter a bloofi index holds has %u bits.",
						   (unsigned) BLOOFI_MAX_M)));
}

/* a filter with other parameters than the index's is an error */
void
bloofi_require_params(Relation index, const BloofiMetaData *meta, const BsParams *p)
{
	BsParams	ip;

	if (!meta->have_params)
		return;
	bloofi_params(meta, &ip);
	if (!bs_params_equal(&ip, p))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloomfilter with parameters %s cannot be indexed by \"%s\"",
						bf_params_string(p), RelationGetRelationName(index)),
				 errdetail("The index holds filters with parameters %s.",
						   bf_params_string(&ip)),
				 errhint("All filters of one bloofi index must share m, k, seed and hash family; use a partial index per parameter set.")));
}

/*
 * Append a new empty group of cap slots, unless the directory no longer has
 * expected_ngroups groups (another backend created one meanwhile: the caller
 * looks again).  Takes the metapage lock exclusively (and the extension
 * lock); the caller must hold no other buffer lock.  All pages of the group
 * are WAL-logged as full images before the directory points to them, so a
 * crash leaves at worst unreferenced pages at the end of the index.
 */
uint32
bloofi_create_group(Relation index, uint32 expected_ngroups, uint32 cap)
{
	Buffer		metabuf = ReadBuffer(index, BLOOFI_METAPAGE_BLKNO);
	BloofiMetaData *meta;
	BloofiGeometry geom;
	BlockNumber start = InvalidBlockNumber;
	BloofiWal	w;
	uint32		g;

	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	meta = BloofiPageGetMeta(BufferGetPage(metabuf));
	g = meta->ngroups;
	if (g != expected_ngroups)
	{
		UnlockReleaseBuffer(metabuf);
		return g;
	}
	if (!bloofi_geometry(&geom, meta->m, cap, BLOOFI_PAGE_BYTES))
		elog(ERROR, "bloofi: invalid group geometry m=%u cap=%u", meta->m, cap);

	/* an emptied group of sufficient capacity is revived rather than extending */
	for (uint32 e = 0; e < g; e++)
		if ((meta->groups[e].flags & BLOOFI_GROUP_EMPTY) && meta->groups[e].cap >= cap)
		{
			bloofi_wal_begin(&w, index);
			meta = BloofiPageGetMeta(bloofi_wal_page(&w, metabuf, false, 0));
			meta->groups[e].flags = 0;
			meta->groups[e].move_xid = InvalidTransactionId;
			bloofi_wal_flush(&w);
			return g + 1;		/* the caller looks again */
		}
	if (g >= BLOOFI_MAX_GROUPS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloofi index \"%s\" cannot hold more than %u groups",
						RelationGetRelationName(index), (unsigned) BLOOFI_MAX_GROUPS),
				 errhint("REINDEX it with a larger \"order\" (now %u leaves per group).",
						 meta->order)));

	bloofi_wal_begin(&w, index);
	for (uint32 i = 0; i < geom.total_pages; i++)
	{
		Buffer		buf = bloofi_new_buffer(index);
		Page		page;
		uint16		kind;
		uint32		bytes;

		if (i == 0)
			start = BufferGetBlockNumber(buf);
		else if (BufferGetBlockNumber(buf) != start + i)
			elog(ERROR, "bloofi: index \"%s\" was extended concurrently",
				 RelationGetRelationName(index));
		if (i < geom.tid_pages)
			kind = BLOOFI_PAGE_TID, bytes = BLOOFI_PAGE_BYTES;
		else if (i < geom.tid_pages + geom.summary_pages)
			kind = BLOOFI_PAGE_SUMMARY,
				bytes = bloofi_summary_page_bytes(&geom, i - geom.tid_pages);
		else
			kind = BLOOFI_PAGE_SLICE, bytes = BLOOFI_PAGE_BYTES;
		page = bloofi_wal_page(&w, buf, false, GENERIC_XLOG_FULL_IMAGE);
		bloofi_init_page(page, kind, g, bytes);
		if ((i & 63) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	bloofi_wal_flush(&w);

	bloofi_wal_begin(&w, index);
	meta = BloofiPageGetMeta(bloofi_wal_page(&w, metabuf, false, 0));
	meta->groups[g].start = start;
	meta->groups[g].cap = cap;
	meta->groups[g].flags = 0;
	meta->groups[g].move_xid = InvalidTransactionId;
	meta->ngroups = g + 1;
	bloofi_wal_flush(&w);
	return g + 1;
}

/* the current flags of group g (metapage share lock; callers may hold a group header) */
uint32
bloofi_group_flags(Relation index, uint32 g)
{
	Buffer		buf = ReadBuffer(index, BLOOFI_METAPAGE_BLKNO);
	BloofiMetaData *meta;
	uint32		flags;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	meta = BloofiPageGetMeta(BufferGetPage(buf));
	flags = g < meta->ngroups ? meta->groups[g].flags : 0;
	UnlockReleaseBuffer(buf);
	return flags;
}

/*
 * OR flags into group g's directory entry and, when valid, set its move_xid
 * (metapage exclusive; no other lock held)
 */
void
bloofi_set_group_flags(Relation index, uint32 g, uint32 flags, TransactionId move_xid)
{
	Buffer		buf = ReadBuffer(index, BLOOFI_METAPAGE_BLKNO);
	BloofiMetaData *meta;
	BloofiWal	w;

	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	bloofi_wal_begin(&w, index);
	meta = BloofiPageGetMeta(bloofi_wal_page(&w, buf, false, 0));
	if (g < meta->ngroups)
	{
		meta->groups[g].flags |= flags;
		if (TransactionIdIsValid(move_xid))
			meta->groups[g].move_xid = move_xid;
	}
	bloofi_wal_flush(&w);
}

/* fill^k > 1/2: testing the summary would not prune most lookups */
bool
bloofi_summary_saturated(const uint8 *summary, uint32 m, uint32 k)
{
	double		fill = (double) bs_popcount(summary, bs_words_for_bits(m)) / m;

	return pow(fill, k) > 0.5;
}

/* set or clear the SATURATED hint of group g (metapage exclusive; no other lock held) */
void
bloofi_set_group_saturated(Relation index, uint32 g, bool saturated)
{
	Buffer		buf = ReadBuffer(index, BLOOFI_METAPAGE_BLKNO);
	BloofiMetaData *meta;
	BloofiWal	w;

	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	meta = BloofiPageGetMeta(BufferGetPage(buf));
	if (g >= meta->ngroups ||
		((meta->groups[g].flags & BLOOFI_GROUP_SATURATED) != 0) == saturated)
	{
		UnlockReleaseBuffer(buf);
		return;
	}
	bloofi_wal_begin(&w, index);
	meta = BloofiPageGetMeta(bloofi_wal_page(&w, buf, false, 0));
	if (saturated)
		meta->groups[g].flags |= BLOOFI_GROUP_SATURATED;
	else
		meta->groups[g].flags &= ~BLOOFI_GROUP_SATURATED;
	bloofi_wal_flush(&w);
}

/*
 * A copy of group g's header opaque (nused / nlive), read under a share lock
 * on its first tid page (checked to be g's header).
 */
BloofiPageOpaqueData
bloofi_read_header(Relation index, BlockNumber start, uint32 g)
{
	Buffer		buf = ReadBuffer(index, start);
	BloofiPageOpaqueData op;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	bloofi_check_page(index, BufferGetPage(buf), start, BLOOFI_PAGE_TID, g);
	op = *BloofiPageGetOpaque(BufferGetPage(buf));
	UnlockReleaseBuffer(buf);
	return op;
}

/*
 * Copy group g's summary (geom->filter_bytes) into summary: share locks, one
 * summary page at a time, each checked to be a summary page of g.
 */
void
bloofi_read_summary(Relation index, BlockNumber start, const BloofiGeometry *geom,
					uint32 g, uint8 *summary)
{
	for (uint32 sp = 0; sp < geom->summary_pages; sp++)
	{
		BlockNumber blk = start + geom->tid_pages + sp;
		Buffer		buf = ReadBuffer(index, blk);

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		bloofi_check_page(index, BufferGetPage(buf), blk, BLOOFI_PAGE_SUMMARY, g);
		memcpy(summary + (size_t) sp * geom->summary_bytes_per_page,
			   PageGetContents(BufferGetPage(buf)), bloofi_summary_page_bytes(geom, sp));
		UnlockReleaseBuffer(buf);
	}
}

/* read the first nslots TIDs of a group (share locks, one page at a time) */
void
bloofi_read_tids(Relation index, BlockNumber start, const BloofiGeometry *geom,
				 uint32 nslots, ItemPointerData *tids)
{
	for (uint32 tp = 0; tp * geom->tids_per_page < nslots; tp++)
	{
		Buffer		buf = ReadBuffer(index, start + tp);
		uint32		first = tp * geom->tids_per_page;
		uint32		n = Min(geom->tids_per_page, nslots - first);

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		memcpy(tids + first, PageGetContents(BufferGetPage(buf)),
			   (size_t) n * sizeof(ItemPointerData));
		UnlockReleaseBuffer(buf);
	}
}

/*
 * A hash table, in CurrentMemoryContext, of the TIDs in the groups that are
 * not retired (leaves of retired groups are being moved out by VACUUM), each
 * with the group and slot where it sits.  Reads the tid pages with share
 * locks, one page at a time (bloofi_read_tids).
 */
HTAB *
bloofi_group_tids(Relation index, const BloofiMetaData *meta, const char *name)
{
	HASHCTL		ctl;
	HTAB	   *h;

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(ItemPointerData);
	ctl.entrysize = sizeof(BloofiGroupSlot);
	ctl.hcxt = CurrentMemoryContext;
	h = hash_create(name, 1024, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	for (uint32 g = 0; g < meta->ngroups; g++)
	{
		BloofiGeometry geom;
		ItemPointerData *tids;

		if (meta->groups[g].flags & BLOOFI_GROUP_RETIRED)
			continue;			/* leaves there are moved out by VACUUM */
		bloofi_group_geometry(index, meta, g, &geom);
		tids = palloc(sizeof(ItemPointerData) * geom.cap);
		bloofi_read_tids(index, meta->groups[g].start, &geom, geom.cap, tids);
		for (uint32 s = 0; s < geom.cap; s++)
			if (ItemPointerIsValid(&tids[s]))
			{
				BloofiGroupSlot *e = hash_search(h, &tids[s], HASH_ENTER, NULL);

				e->group = g;
				e->slot = s;
			}
		pfree(tids);
	}
	return h;
}

/* ---- elements -------------------------------------------------------------- */

/* the key of an element of type typid (bigint/int/smallint, text/varchar, bytea, uuid) */
BsKey
bloofi_elem_key(const BsHasher *h, Datum value, Oid typid)
{
	switch (typid)
	{
		case INT8OID:
			return bs_key_int64(h, DatumGetInt64(value));
		case INT4OID:
			return bs_key_int64(h, DatumGetInt32(value));
		case INT2OID:
			return bs_key_int64(h, DatumGetInt16(value));
		case TEXTOID:
		case VARCHAROID:
		case BYTEAOID:
			{
				struct varlena *v = PG_DETOAST_DATUM_PACKED(value);

				return bf_key_varlena(h, v);
			}
		case UUIDOID:
			return bs_key_bytes(h, DatumGetUUIDP(value)->data, UUID_LEN);
		default:
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("bloofi cannot search for an element of type %s",
							format_type_be(typid)),
					 errhint("Elements are bigint, text, bytea or uuid.")));
	}
	pg_unreachable();
}

/* open a bloofi index for introspection: checks its AM and the caller's right to read the table */
Relation
bloofi_open_index(Oid indexoid, LOCKMODE lockmode)
{
	Relation	index = relation_open(indexoid, lockmode);
	Oid			heapoid;

	if (index->rd_rel->relkind != RELKIND_INDEX ||
		index->rd_rel->relam != get_index_am_oid("bloofi", false))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a bloofi index", RelationGetRelationName(index))));
	heapoid = IndexGetRelation(indexoid, false);
	if (pg_class_aclcheck(heapoid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table %s", get_rel_name(heapoid))));
	return index;
}
