/*
 * bloofi_utils.c
 *    The bottom layer of the Bloofi glue: reloption values of an open index,
 *    batched GenericXLog, the recovery-conflict record that lets a node's
 *    pages be reused under a hot standby's lookups, page and metapage
 *    helpers, reading a node's header (and a SPARSE node's page count, from
 *    the header of its sparse stream), the index's filter parameters,
 *    opening an index for introspection.  It calls no other Bloofi glue
 *    file but bloofi_recent.c.
 *
 * Design notes: docs/bloofi.md.
 */
#include "postgres.h"

#include "access/nbtxlog.h"
#include "access/relation.h"
#include "access/transam.h"
#include "access/xlog.h"
#include "access/xloginsert.h"
#include "catalog/index.h"
#include "commands/defrem.h"
#include "miscadmin.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "bloofi.h"
#include "bloofi_sparse.h"
#include "bloofi_sparse_listed.h"
#include "bloofi_tree.h"

/* the order reloption (d) of an open index */
int
bloofi_get_order(Relation index)
{
	BloofiOptions *o = (BloofiOptions *) index->rd_options;

	return o ? o->order : BLOOFI_DEFAULT_ORDER;
}

/* the fastupdate reloption of an open index */
bool
bloofi_get_fastupdate(Relation index)
{
	BloofiOptions *o = (BloofiOptions *) index->rd_options;

	return o ? o->fastupdate : true;
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
 * bloofi_wal_begin_meta: begin w on index with its metapage read, locked
 * exclusively and registered first; the metapage to modify (released when
 * its record is finished)
 */
Page
bloofi_wal_begin_meta(BloofiWal *w, Relation index)
{
	Buffer		metabuf = ReadBuffer(index, BLOOFI_METAPAGE_BLKNO);

	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	bloofi_wal_begin(w, index);
	return bloofi_wal_page(w, metabuf, false, 0);
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

/*
 * Finish the current record (if any) and release its non-kept buffers.
 * Every page a record changes gets a new LSN, which lookups compare
 * (bloofi_search: no switch between a node's reads); an unlogged index has
 * no WAL, so its pages get a fake LSN instead, as GiST's do.  (A temporary
 * index has no concurrent reader, and a permanent one gets no WAL only in
 * the transaction that creates its file, which no other backend reads.)
 */
void
bloofi_wal_flush(BloofiWal *w)
{
	if (w->state == NULL)
		return;
	GenericXLogFinish(w->state);
	if (w->rel->rd_rel->relpersistence == RELPERSISTENCE_UNLOGGED)
	{
		XLogRecPtr	fake = GetFakeLSNForUnloggedRel();

		for (int i = 0; i < w->n; i++)
			PageSetLSN(BufferGetPage(w->bufs[i]), fake);
	}
	for (int i = 0; i < w->n; i++)
		if (!w->keep[i])
			UnlockReleaseBuffer(w->bufs[i]);
	w->state = NULL;
	w->n = 0;
}

/* ---- recovery conflicts on a hot standby ---------------------------------- */

/*
 * The layout of nbtree's page-reuse record that bloofi_wal_standby_conflict
 * writes and btree_xlog_reuse_page reads, checked for each major: 15's
 * (node, block, latestRemovedFullXid) and 16's to 18's (locator, block,
 * snapshotConflictHorizon, isCatalogRel); pg_compat.h names the renamed
 * fields.  A major that moves, widens or adds a field fails to compile here
 * rather than write a record its redo misreads (test/t/036_bloofi_standby.pl
 * checks the conflict itself on every major the tests run on).
 */
StaticAssertDecl(offsetof(xl_btree_reuse_page, BS_REUSE_PAGE_REL) == 0 &&
				 sizeof(((xl_btree_reuse_page *) 0)->BS_REUSE_PAGE_REL) == 3 * sizeof(Oid),
				 "xl_btree_reuse_page: the relation is not its first 12 bytes");
StaticAssertDecl(offsetof(xl_btree_reuse_page, block) == 3 * sizeof(Oid) &&
				 sizeof(((xl_btree_reuse_page *) 0)->block) == sizeof(BlockNumber),
				 "xl_btree_reuse_page: block moved");
StaticAssertDecl(offsetof(xl_btree_reuse_page, BS_REUSE_PAGE_HORIZON) == 16 &&
				 sizeof(((xl_btree_reuse_page *) 0)->BS_REUSE_PAGE_HORIZON) == sizeof(FullTransactionId),
				 "xl_btree_reuse_page: the conflict horizon moved");
#if PG_VERSION_NUM >= 160000
StaticAssertDecl(offsetof(xl_btree_reuse_page, isCatalogRel) == 24 &&
				 SizeOfBtreeReusePage == 25,
				 "xl_btree_reuse_page: not 16's layout (locator, block, horizon, isCatalogRel)");
#else
StaticAssertDecl(SizeOfBtreeReusePage == 24,
				 "xl_btree_reuse_page: not 15's layout (node, block, latestRemovedFullXid)");
#endif

/*
 * Before VACUUM frees a node retired at `xid` (the next XID when it was
 * unlinked; the primary's horizon has passed it): make a hot standby cancel
 * (after max_standby_streaming_delay) every query whose snapshot's xmin is
 * not after xid, since only those can have read the node's old parent, so
 * that no standby lookup reads the node's pages once they are reused
 * (docs/bloofi.md, "Hot standby").  The primary's test "xid precedes every
 * snapshot's xmin" and the standby's "xmin after xid" are the same, as for
 * btree's deleted pages.
 *
 * Generic WAL has no conflict point and a custom resource manager needs
 * shared_preload_libraries, so this writes nbtree's page-reuse record
 * (XLOG_BTREE_REUSE_PAGE), whose redo does nothing but
 * ResolveRecoveryConflictWithSnapshotFullXid(xid, the index's database): it
 * references no block and changes no page.  Written only when WAL carries
 * standby information (wal_level replica or logical) for a WAL-logged index.
 */
void
bloofi_wal_standby_conflict(Relation index, BlockNumber start, TransactionId xid)
{
	xl_btree_reuse_page xlrec;
	FullTransactionId next;
	uint32		epoch;

	if (!XLogStandbyInfoActive() || !RelationNeedsWAL(index) || !TransactionIdIsNormal(xid))
		return;
	/* xid is not in the future: the epoch of next, or the one before if it wrapped since */
	next = ReadNextFullTransactionId();
	epoch = EpochFromFullTransactionId(next);
	if (xid > XidFromFullTransactionId(next))
	{
		if (epoch == 0)
			return;				/* not a past XID: no snapshot can precede it */
		epoch--;
	}
	memset(&xlrec, 0, sizeof(xlrec));
	xlrec.BS_REUSE_PAGE_REL = BS_REL_LOCATOR(index);
	xlrec.block = start;
	xlrec.BS_REUSE_PAGE_HORIZON = FullTransactionIdFromEpochAndXid(epoch, xid);
#if PG_VERSION_NUM >= 160000
	/* no logical decoding reads a Bloofi index: no slot conflicts with it */
	xlrec.isCatalogRel = false;
#endif
	XLogBeginInsert();
	XLogRegisterData((char *) &xlrec, SizeOfBtreeReusePage);
	XLogInsert(RM_BTREE_ID, XLOG_BTREE_REUSE_PAGE);
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

	/*
	 * The usual answer from the special space alone, where every bloofi
	 * page has it: one cache line read, not the header's too (a lookup
	 * checks ~10 pages).  A page whose special space is elsewhere, or new
	 * (zeros), fails the page id there and gets the full diagnosis.
	 */
	op = (BloofiPageOpaque) ((char *) page + BLCKSZ - MAXALIGN(sizeof(BloofiPageOpaqueData)));
	if (likely(op->bloofi_page_id == BLOOFI_PAGE_ID && op->kind == kind && op->node == node))
		return;
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
	Buffer		buf = bloofi_read_recent(index, BLOOFI_METAPAGE_BLKNO);
	Page		page;
	BloofiMetaData *meta = palloc(sizeof(BloofiMetaData));

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	bloofi_check_page(index, page, BLOOFI_METAPAGE_BLKNO, BLOOFI_PAGE_META, 0);
	memcpy(meta, BloofiPageGetMeta(page), sizeof(BloofiMetaData));
	UnlockReleaseBuffer(buf);
	if (meta->magic != BLOOFI_MAGIC || meta->version < BLOOFI_MIN_VERSION || meta->version > BLOOFI_VERSION ||
		meta->height > BLOOFI_MAX_HEIGHT)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" has a corrupted metapage (magic %08x, version %u, height %u)",
						RelationGetRelationName(index), meta->magic, meta->version,
						meta->height),
				 errhint("Please REINDEX it.")));
	return meta;
}

/* a SPARSE node is a bottom node of at most BLOOFI_SPARSE_MAX_CAP slots, else index_corrupted */
static void
bloofi_sparse_level_check(Relation index, const BloofiNode *node)
{
	if (node->level != 0 || node->cap > BLOOFI_SPARSE_MAX_CAP)
		BLOOFI_NODE_CORRUPT(index, node->start, "A sparse node at level %u with %u slots.",
							node->level, node->cap);
}

/*
 * The number of sparse pages of SPARSE node (its header read already, geom
 * set) from its stream's header lh (as read from the first sparse page),
 * checked against the node (m its filters' width): an index_corrupted
 * error when they disagree.
 */
uint32
bloofi_sparse_head_pages(Relation index, uint32 m, const BloofiNode *node,
						 const BloofiListedHeader *lh)
{
	BloofiSparseHeader h = lh->base;
	uint64		len;

	/* the stream's length in either form, then its pages: no fewer, no page more */
	len = h.magic == BLOOFI_LISTED_MAGIC ? bloofi_listed_total(lh) :
		bloofi_sparse_bytes(h.m, h.nentries);
	if ((h.magic != BLOOFI_SPARSE_MAGIC && h.magic != BLOOFI_LISTED_MAGIC) ||
		h.m != m || h.cap != node->cap || h.npages == 0 ||
		len > (uint64) h.npages * BLOOFI_PAGE_BYTES ||
		len + BLOOFI_PAGE_BYTES <= (uint64) h.npages * BLOOFI_PAGE_BYTES)
		BLOOFI_NODE_CORRUPT(index, node->start,
							"Its sparse slices' header is damaged (magic %08x, m %u, capacity %u, %u entries on %u pages).",
							h.magic, h.m, h.cap, h.nentries, h.npages);
	return h.npages;
}

/*
 * The number of sparse pages of SPARSE node (its header read already, geom
 * set): read from the stream's header on its first sparse page, checked
 * against the node.
 */
uint32
bloofi_sparse_node_pages(Relation index, const BloofiMetaData *meta, const BloofiNode *node)
{
	BlockNumber blk = bloofi_sparse_block(node, 0);
	Buffer		buf;
	BloofiListedHeader lh;

	bloofi_sparse_level_check(index, node);
	buf = ReadBuffer(index, blk);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	bloofi_check_page(index, BufferGetPage(buf), blk, BLOOFI_PAGE_SPARSE, node->start);
	memcpy(&lh, PageGetContents(BufferGetPage(buf)), sizeof(lh));
	UnlockReleaseBuffer(buf);
	return bloofi_sparse_head_pages(index, meta->m, node, &lh);
}

/*
 * Read the header of the node starting at block start (share lock, checked
 * to be a node header) and its geometry; a SPARSE node's sparse page count
 * from its stream's header when sparse_pages, else left 0.  With keep, the
 * header page stays pinned (not locked) in *keep for the caller to release.
 */
static void
node_read(Relation index, const BloofiMetaData *meta, BlockNumber start, BloofiNode *node,
		  bool sparse_pages, Buffer *keep)
{
	Buffer		buf;
	BloofiPageOpaque op;

	/*
	 * (a block past the end makes ReadBuffer fail: no size check on this hot
	 * path)
	 */
	if (start == BLOOFI_METAPAGE_BLKNO || start == InvalidBlockNumber)
		BLOOFI_NODE_CORRUPT(index, start, "A node reference points outside the index.");
	buf = bloofi_read_recent(index, start);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	bloofi_check_page(index, BufferGetPage(buf), start, BLOOFI_PAGE_TID, start);
	op = BloofiPageGetOpaque(BufferGetPage(buf));
	node->start = start;
	node->cap = op->cap;
	node->nused = op->nused;
	node->nlive = op->nlive;
	node->level = op->level;
	node->flags = op->flags;
	node->xid = op->xid;
	node->next = op->next;
	node->lsn = BufferGetLSNAtomic(buf);
	if (keep)
	{
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		*keep = buf;
	}
	else
		UnlockReleaseBuffer(buf);
	if (!bloofi_geometry(&node->geom, meta->m, node->cap, BLOOFI_PAGE_BYTES) ||
		node->nused > node->cap || node->nlive > node->nused ||
		node->level >= BLOOFI_MAX_HEIGHT)
		BLOOFI_NODE_CORRUPT(index, start, "Capacity %u, %u used and %u live slots, level %u (m %u).",
							node->cap, node->nused, node->nlive, node->level, meta->m);
	node->sparse_pages = 0;
	if (bloofi_node_is_sparse(node) && !sparse_pages)
		bloofi_sparse_level_check(index, node);
	else if (bloofi_node_is_sparse(node))
	{
		node->sparse_pages = bloofi_sparse_node_pages(index, meta, node);
		node->geom.total_pages = node->geom.tid_pages + node->geom.value_pages +
			node->sparse_pages;
	}
}

void
bloofi_node_read(Relation index, const BloofiMetaData *meta, BlockNumber start,
				 BloofiNode *node)
{
	node_read(index, meta, start, node, true, NULL);
}

/*
 * bloofi_node_read for a lookup: a SPARSE node's sparse_pages left 0 (not
 * known yet; bloofi_sparse_match learns it from the stream's header, which
 * it reads anyway, instead of a read of that page here first), and the
 * header page, the node's first TID page, left pinned in *hdr (not locked:
 * the caller locks it to read the TIDs, or releases it).
 */
void
bloofi_node_read_lookup(Relation index, const BloofiMetaData *meta, BlockNumber start,
						BloofiNode *node, Buffer *hdr)
{
	node_read(index, meta, start, node, false, hdr);
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

/* fill^k > 1/2: testing the value would not prune most lookups */
bool
bloofi_value_saturated(const uint8 *value, uint32 m, uint32 k)
{
	return bloofi_tree_saturated(value, m, (int) k);
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

/*
 * Wait ms milliseconds, all of them, as wait event PgSleep (the developer
 * settings bloomsample.bloofi_visit_delay and bloofi_write_delay: a test
 * polls for it).  As pg_sleep does, the wait is repeated until the time is
 * up: a latch already set, or set meanwhile, ends one WaitLatch early, and a
 * delay cut short let a test's lookup finish before its writer ran (038 once
 * in CI).  Interrupts are served between waits.
 */
void
bloofi_dev_sleep(int ms)
{
	TimestampTz end = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), ms);

	for (;;)
	{
		long		left = TimestampDifferenceMilliseconds(GetCurrentTimestamp(), end);

		CHECK_FOR_INTERRUPTS();
		if (left <= 0)
			break;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 left, WAIT_EVENT_PG_SLEEP);
		ResetLatch(MyLatch);
	}
}
