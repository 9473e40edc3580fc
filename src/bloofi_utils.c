/*
 * bloofi_utils.c
 *    Bloofi access method: handler, reloptions, page and metapage helpers,
 *    the tree lock, batched GenericXLog, element keys.
 */
#include "postgres.h"

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
#include "bloofi_tree.h"

PG_FUNCTION_INFO_V1(bloofi_handler);

static relopt_kind bloofi_relopt_kind;
static bool bloofi_relopt_ready = false;
static relopt_parse_elt bloofi_relopt_tab[3];

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
					  "Order d of the Bloofi tree: nodes have d..2d children",
					  BLOOFI_DEFAULT_ORDER, BLOOFI_MIN_ORDER, BLOOFI_MAX_ORDER,
					  AccessExclusiveLock);
	bloofi_relopt_tab[0].optname = "order";
	bloofi_relopt_tab[0].opttype = RELOPT_TYPE_INT;
	bloofi_relopt_tab[0].offset = offsetof(BloofiOptions, order);
	add_int_reloption(bloofi_relopt_kind, "leaf_capacity",
					  "Most leaves of a bottom node that the no-split rule lets grow past 2d (its value is saturated)",
					  BLOOFI_DEFAULT_LEAF_CAP, BLOOFI_MIN_LEAF_CAP, BLOOFI_MAX_CAP,
					  AccessExclusiveLock);
	bloofi_relopt_tab[1].optname = "leaf_capacity";
	bloofi_relopt_tab[1].opttype = RELOPT_TYPE_INT;
	bloofi_relopt_tab[1].offset = offsetof(BloofiOptions, leaf_capacity);
	add_bool_reloption(bloofi_relopt_kind, "fastupdate",
					   "Buffer inserts in a pending list moved into the tree in batches",
					   true, AccessExclusiveLock);
	bloofi_relopt_tab[2].optname = "fastupdate";
	bloofi_relopt_tab[2].opttype = RELOPT_TYPE_BOOL;
	bloofi_relopt_tab[2].offset = offsetof(BloofiOptions, fastupdate);
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

int
bloofi_get_order(Relation index)
{
	BloofiOptions *o = (BloofiOptions *) index->rd_options;

	return o ? o->order : BLOOFI_DEFAULT_ORDER;
}

/* the leaf_capacity reloption rounded up to a multiple of 8, at least 2d + 2 */
int
bloofi_get_leaf_cap(Relation index)
{
	BloofiOptions *o = (BloofiOptions *) index->rd_options;
	int			cap = o ? o->leaf_capacity : BLOOFI_DEFAULT_LEAF_CAP;

	cap = (int) bloofi_round_capacity((uint64) cap, BLOOFI_MAX_CAP);
	return Max(cap, (int) bloofi_node_cap(bloofi_get_order(index), 0));
}

/*
 * The most leaves a bottom node may grow to now: leaf_capacity, and no more
 * than half of maintenance_work_mem holds as filters (a split or growth
 * reads a node's children into memory, as the build buffers a node), at
 * least an inner node's capacity.
 */
uint32
bloofi_effective_leaf_cap(const BloofiMetaData *meta)
{
	uint64		fbytes = 8 * bs_words_for_bits(Max(meta->m, 1));
	uint64		by_mem = (uint64) maintenance_work_mem * 512 / (fbytes + sizeof(ItemPointerData));
	uint64		cap = Min((uint64) meta->leaf_cap, by_mem);

	return Max((uint32) cap, bloofi_node_cap(meta->order, 0));
}

bool
bloofi_get_fastupdate(Relation index)
{
	BloofiOptions *o = (BloofiOptions *) index->rd_options;

	return o ? o->fastupdate : true;
}

/*
 * The tree lock: a heavyweight lock on the metapage's block number (as GIN
 * locks its pending-list cleanup) serialising every writer of the tree:
 * pending-list flushes, direct inserts and VACUUM.  Readers never take it.
 * A backend that takes it (rather than taking it again while holding it)
 * first settles what a writer that stopped half-way left behind
 * (bloofi_space_recover): every intent found then is such a writer's.
 */
static bool
bloofi_tree_lock_held(Relation index)
{
	LOCKTAG		tag;

	SET_LOCKTAG_PAGE(tag, index->rd_lockInfo.lockRelId.dbId,
					 index->rd_lockInfo.lockRelId.relId, BLOOFI_METAPAGE_BLKNO);
	return LockHeldByMe(&tag, ExclusiveLock);
}

void
bloofi_tree_lock(Relation index)
{
	bool		again = bloofi_tree_lock_held(index);

	LockPage(index, BLOOFI_METAPAGE_BLKNO, ExclusiveLock);
	if (!again)
		bloofi_space_recover(index);
}

bool
bloofi_tree_trylock(Relation index)
{
	bool		again = bloofi_tree_lock_held(index);

	if (!ConditionalLockPage(index, BLOOFI_METAPAGE_BLKNO, ExclusiveLock))
		return false;
	if (!again)
		bloofi_space_recover(index);
	return true;
}

void
bloofi_tree_unlock(Relation index)
{
	UnlockPage(index, BLOOFI_METAPAGE_BLKNO, ExclusiveLock);
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
	/* VACUUM may flush the pending list (writing nodes): not in parallel workers */
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

/* initialise a page of the given kind (of node `node`) whose data area holds data_bytes bytes */
void
bloofi_init_page(Page page, uint16 kind, BlockNumber node, uint32 data_bytes)
{
	BloofiPageOpaque op;

	PageInit(page, BLCKSZ, sizeof(BloofiPageOpaqueData));
	op = BloofiPageGetOpaque(page);
	memset(op, 0, sizeof(*op));
	op->node = node;
	op->next = InvalidBlockNumber;
	op->xid = InvalidTransactionId;
	op->kind = kind;
	op->bloofi_page_id = BLOOFI_PAGE_ID;
	Assert(data_bytes <= BLOOFI_PAGE_BYTES);
	((PageHeader) page)->pd_lower = MAXALIGN(SizeOfPageHeaderData) + data_bytes;
}

void
bloofi_init_meta_page(Page page, int order, int leaf_cap)
{
	BloofiMetaData *meta;

	bloofi_init_page(page, BLOOFI_PAGE_META, 0, BLOOFI_PAGE_BYTES);
	meta = BloofiPageGetMeta(page);
	meta->magic = BLOOFI_MAGIC;
	meta->version = BLOOFI_VERSION;
	meta->have_params = 0;
	meta->order = order;
	meta->leaf_cap = leaf_cap;
	meta->root = InvalidBlockNumber;
	meta->height = 0;
	meta->pending_head = meta->pending_tail = InvalidBlockNumber;
	meta->npending = 0;
	meta->flushing_head = meta->free_head = InvalidBlockNumber;
	meta->retired_head = meta->freenode_head = InvalidBlockNumber;
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

/* error unless page is an intact bloofi page of that kind belonging to node */
void
bloofi_check_page(Relation index, Page page, BlockNumber blkno, uint16 kind, BlockNumber node)
{
	BloofiPageOpaque op;

	if (PageIsNew(page) || PageGetSpecialSize(page) != MAXALIGN(sizeof(BloofiPageOpaqueData)))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" contains an unexpected page at block %u",
						RelationGetRelationName(index), blkno),
				 errhint("Please REINDEX it.")));
	op = BloofiPageGetOpaque(page);
	if (op->bloofi_page_id != BLOOFI_PAGE_ID || op->kind != kind || op->node != node)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" block %u is a page of kind %u of node %u, expected kind %u of node %u",
						RelationGetRelationName(index), blkno, op->kind, op->node,
						kind, node),
				 errhint("Please REINDEX it.")));
}

/* a palloc'd copy of the metapage contents */
BloofiMetaData *
bloofi_read_meta(Relation index)
{
	Buffer		buf = ReadBuffer(index, BLOOFI_METAPAGE_BLKNO);
	Page		page;
	BloofiMetaData *meta = palloc(sizeof(BloofiMetaData));

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	bloofi_check_page(index, page, BLOOFI_METAPAGE_BLKNO, BLOOFI_PAGE_META, 0);
	memcpy(meta, BloofiPageGetMeta(page), sizeof(BloofiMetaData));
	UnlockReleaseBuffer(buf);
	if (meta->magic != BLOOFI_MAGIC || meta->version != BLOOFI_VERSION ||
		meta->height > BLOOFI_MAX_HEIGHT)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" has a corrupted metapage (magic %08x, version %u, height %u)",
						RelationGetRelationName(index), meta->magic, meta->version,
						meta->height),
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

/* fill^k > 1/2: testing the summary would not prune most lookups */
bool
bloofi_summary_saturated(const uint8 *summary, uint32 m, uint32 k)
{
	return bloofi_tree_saturated(summary, m, (int) k);
}

/* ---- elements -------------------------------------------------------------- */

/* the key of an element of type typid: bloomfilter_util.c's one element encoding */
BsKey
bloofi_elem_key(const BsHasher *h, Datum value, Oid typid)
{
	return bf_datum_key(h, value, typid);
}

/* open a bloofi index for introspection: checks its AM and the caller's right to read the table */
Relation
bloofi_open_index(Oid indexoid, LOCKMODE lockmode)
{
	Relation	index = try_relation_open(indexoid, lockmode);
	Oid			heapoid;

	if (index == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", indexoid)));
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
