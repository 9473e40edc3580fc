/*
 * bloofi_pending.c
 *    The pending list of a Bloofi index: cheap inserts, flushed in batches.
 *
 * Setting one leaf's bits in a wide bit-sliced node touches every slice page that
 * holds one of its ~m/2 set bits (hundreds to thousands of pages).  So, like
 * GIN's fastupdate, an insert only appends (TID, filter) to the tail of
 * a chain of pending pages: one WAL record of the metapage and one or two
 * pending pages.  When enough entries have accumulated (bloofi_pending_full;
 * and at every VACUUM), the chain is moved into the tree in one batch, which
 * touches each slice page of a bottom node once for the whole batch.
 *
 * Entries (bloofi.h): 6 bytes of TID, a uint16 form, then the filter, dense
 * (form 0: m bits; the only form before 1.2, so older pages read as they
 * are) or sparse (BLOOFI_PENDING_SPARSE | len: the position list of
 * bs_sparse.h, padded to 8 bytes), the smaller of the two.  A page holds
 * op->nused entries back to back from its start; an entry that does not fit
 * in the tail page's free space starts a new page.  A filter whose entry
 * would exceed a page is stored as a group of sparse parts, consecutive
 * entries of its TID each encoding a run of its positions, all but the last
 * flagged BLOOFI_PENDING_PART (bloofi_pending_insert_parts); the chain's
 * reader gives the visitors a group as one entry (bloofi_pending_group.c),
 * and drops one whose last part never came (its insert stopped).  Every length
 * is checked against the page and every encoding against m before it is
 * read: a damaged entry is an index_corrupted error, never an over-read.
 * Lookups test a sparse entry in place (bs_sparse_test_all); the flush and
 * bloofi_check decode it to dense bits, in batches.
 *
 * Metapage fields: pending_head/tail/npending (the active chain, appended to
 * under the metapage's exclusive lock), flushing_head (a chain being moved
 * into the tree) and free_head (recycled pending pages).
 *
 * Flush protocol (one flusher at a time: the tree lock of bloofi_freespace.c,
 * taken conditionally by inserters and unconditionally by VACUUM):
 *   1. metapage X: the active chain becomes the flushing chain, the active
 *      chain restarts empty;                                    (one record)
 *   2. its entries are inserted into the tree (bloofi_insert_leaves), so they
 *      are for a while both in the flushing chain and in the tree;
 *   3. metapage X: the flushing chain joins the free list.      (one record)
 * A crash between 1 and 3 leaves flushing_head set: the next flush redoes
 * step 2 for it: a TID already in the tree gets its bits set again in its
 * slot and along its path (a leaf's TID and its bits are separate WAL
 * records, so it may be half written), the others are inserted; no leaf is
 * lost, placed twice or left with missing bits.  Readers scan the chains
 * BEFORE re-reading the root and searching the tree: an entry that left a
 * chain they read late was inserted before, so they find it there;
 * duplicates are harmless in a TID bitmap.  Lock order: metapage, then pending pages;
 * readers hold one share lock at a time.
 *
 * Design notes: docs/bloofi.md.
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "bloofi.h"

StaticAssertDecl(sizeof(ItemPointerData) == 6, "a pending entry's form follows its 6-byte TID");
StaticAssertDecl(BLOOFI_PENDING_MAX_ENTRY - 8 < BLOOFI_PENDING_PART,
				 "a sparse entry's length fits in its form, below the part flag");

/* bytes of a dense entry's filter */
static inline uint32
bloofi_pending_fbytes(const BloofiMetaData *meta)
{
	return (uint32) (8 * bs_words_for_bits(meta->m));
}

/* the pending list takes any filter of an index with parameters (entries too large go to the tree) */
bool
bloofi_pending_usable(const BloofiMetaData *meta)
{
	return meta->have_params;
}

/* narrow filters: dense entries of at most a quarter page (1.1's pending list) */
static inline bool
bloofi_pending_narrow(const BloofiMetaData *meta)
{
	return BLOOFI_PENDING_ENTRY(bloofi_pending_fbytes(meta)) <= BLOOFI_PENDING_NARROW_ENTRY;
}

/*
 * Pages of the active chain, for the cost model: for narrow filters, those
 * of npending dense entries (an upper bound); for wide ones (sparse entries
 * of unknown sizes) the bound of bloofi_pending_full: one page per entry,
 * at most BLOOFI_PENDING_FLUSH_PAGES.
 */
double
bloofi_pending_pages_estimate(const BloofiMetaData *meta)
{
	if (bloofi_pending_narrow(meta))
		return ceil(meta->npending /
					floor((double) BLOOFI_PAGE_BYTES /
						  BLOOFI_PENDING_ENTRY(bloofi_pending_fbytes(meta))));
	return Min(meta->npending, BLOOFI_PENDING_FLUSH_PAGES);
}

/*
 * Is the active chain (npending entries, its tail the pages-th page) due
 * for a flush?  Narrow filters: at BLOOFI_PENDING_FLUSH entries, as before
 * 1.2.  Wide ones (sparse entries; the tree's nodes are large enough that
 * a flush rewrites each node it touches): at BLOOFI_PENDING_FLUSH_WIDE
 * entries or BLOOFI_PENDING_FLUSH_PAGES pages, so that a flush's cost is
 * shared by many entries while a lookup's scan of the list stays bounded
 * (64 pages: what 256 quarter-page dense entries took, the narrow worst
 * case; 4,096 entries tested in place).
 */
static bool
bloofi_pending_full(const BloofiMetaData *meta, uint32 pages)
{
	if (bloofi_pending_narrow(meta))
		return meta->npending >= BLOOFI_PENDING_FLUSH;
	return meta->npending >= BLOOFI_PENDING_FLUSH_WIDE || pages >= BLOOFI_PENDING_FLUSH_PAGES;
}

/*
 * The stored entry (TID, form, filter) for filter into a palloc'd *entry:
 * returns its length, or 0 when even its smaller form exceeds
 * BLOOFI_PENDING_MAX_ENTRY.
 */
static uint32
bloofi_pending_make_entry(const BloofiMetaData *meta, ItemPointer tid, const uint8 *filter,
						  uint8 **entry)
{
	uint32		fbytes = bloofi_pending_fbytes(meta);
	uint64		n = bs_popcount(filter, fbytes / 8);
	size_t		slen = bs_sparse_size(meta->m, n);
	bool		sparse = TYPEALIGN(8, slen) < fbytes;
	uint32		len = 8 + (sparse ? (uint32) TYPEALIGN(8, slen) : fbytes);
	uint16		form = sparse ? (uint16) (BLOOFI_PENDING_SPARSE | slen) : 0;
	uint8	   *e;

	if (len > BLOOFI_PENDING_MAX_ENTRY)
		return 0;
	e = palloc0(len);
	memcpy(e, tid, sizeof(ItemPointerData));
	memcpy(e + 6, &form, sizeof(form));
	if (sparse)
		bs_sparse_encode_bits(filter, meta->m, (uint32) n, e + 8);
	else
		memcpy(e + 8, filter, fbytes);
	*entry = e;
	return len;
}

static void bloofi_pending_corrupt(Relation index, BlockNumber blk, const char *what)
			pg_attribute_noreturn();

/* a damaged entry in block blk (InvalidBlockNumber: in a flush's copy): index_corrupted */
static void
bloofi_pending_corrupt(Relation index, BlockNumber blk, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INDEX_CORRUPTED),
			 errmsg("index \"%s\" has a damaged pending entry in block %u: %s",
					RelationGetRelationName(index), blk, what)));
}

/*
 * Parse the entry at contents + off of a pending page (block blk, holding
 * BLOOFI_PAGE_BYTES of contents) into *e, checking its length against the
 * page and, for a sparse one, its encoding's lengths against m.  Returns its
 * stored length.
 */
static uint32
bloofi_pending_parse(Relation index, BlockNumber blk, const BloofiMetaData *meta,
					 const uint8 *contents, uint32 off, BloofiPendingEntry *e)
{
	const uint8 *p = contents + off;
	uint16		form;
	uint32		len;

	if (off > BLOOFI_PAGE_BYTES - 8)
		bloofi_pending_corrupt(index, blk, "entries overrun the page");
	memcpy(&e->tid, p, sizeof(ItemPointerData));
	memcpy(&form, p + 6, sizeof(form));
	e->bits = NULL;
	e->enc = NULL;
	e->enc_len = 0;
	e->part = (form & BLOOFI_PENDING_PART) != 0;
	e->nparts = 0;
	e->parts = NULL;
	if (form == 0)
		len = 8 + bloofi_pending_fbytes(meta);
	else if (form & BLOOFI_PENDING_SPARSE)
		len = 8 + (uint32) TYPEALIGN(8, form & ~(BLOOFI_PENDING_SPARSE | BLOOFI_PENDING_PART));
	else
		bloofi_pending_corrupt(index, blk, "unknown entry form");
	if (len > BLOOFI_PAGE_BYTES - off)
		bloofi_pending_corrupt(index, blk, "entries overrun the page");
	if (form == 0)
		e->bits = p + 8;
	else
	{
		e->enc = p + 8;
		e->enc_len = form & ~(BLOOFI_PENDING_SPARSE | BLOOFI_PENDING_PART);
		bloofi_pending_open(index, blk, e->enc, e->enc_len, meta->m, &e->sparse);
	}
	return len;
}

/* bytes used by the op->nused entries of a pending page's contents */
static uint32
bloofi_pending_page_used(Relation index, BlockNumber blk, const BloofiMetaData *meta,
						 Page page)
{
	const uint8 *contents = (const uint8 *) PageGetContents(page);
	uint32		nused = BloofiPageGetOpaque(page)->nused;
	uint32		off = 0;
	BloofiPendingEntry e;

	for (uint32 i = 0; i < nused; i++)
		off += bloofi_pending_parse(index, blk, meta, contents, off, &e);
	return off;
}

/*
 * The dense bits of entry e: its own for a dense entry, else decoded into
 * scratch (8 * bs_words_for_bits(m) bytes) with every position checked
 * (increasing, below m; a group's parts ORed): a damaged encoding is an
 * index_corrupted error.
 */
const uint8 *
bloofi_pending_entry_bits(Relation index, const BloofiMetaData *meta,
						  const BloofiPendingEntry *e, uint8 *scratch)
{
	BsSparseError err = BS_SPARSE_OK;

	if (e->bits)
		return e->bits;
	memset(scratch, 0, bloofi_pending_fbytes(meta));
	if (e->nparts > 0)
		for (int i = 0; i < e->nparts && err == BS_SPARSE_OK; i++)
			err = bs_sparse_decode(&e->parts[i], scratch);	/* (sets bits: an OR) */
	else
		err = bs_sparse_decode(&e->sparse, scratch);
	if (err != BS_SPARSE_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" has a damaged pending entry for heap tuple (%u,%u): %s",
						RelationGetRelationName(index),
						ItemPointerGetBlockNumberNoCheck(&e->tid),
						ItemPointerGetOffsetNumberNoCheck(&e->tid),
						bs_sparse_error_string(err))));
	return scratch;
}

/* a page for the chain (recycled or new), exclusively locked; caller holds the metapage X */
static Buffer
bloofi_pending_get_page(Relation index, BloofiMetaData *meta)
{
	if (meta->free_head != InvalidBlockNumber)
	{
		Buffer		buf = ReadBuffer(index, meta->free_head);

		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		bloofi_check_page(index, BufferGetPage(buf), meta->free_head, BLOOFI_PAGE_PENDING, 0);
		meta->free_head = BloofiPageGetOpaque(BufferGetPage(buf))->next;
		return buf;
	}
	return bloofi_new_buffer(index);
}

/*
 * Append one stored entry (len bytes) to the active chain, in one WAL
 * record; the caller holds the metapage (metabuf) exclusively.  last: the
 * entry ends a filter (a single entry, or a group's last part), which the
 * metapage counts.  Returns whether the chain is due for a flush.
 */
static bool
bloofi_pending_append(Relation index, Buffer metabuf, const uint8 *entry, uint32 len, bool last)
{
	BloofiMetaData *meta;
	BloofiWal	w;
	Page		page = NULL;
	BloofiPageOpaque op;
	uint32		used = 0;
	bool		flush;

	bloofi_wal_begin(&w, index);
	meta = BloofiPageGetMeta(bloofi_wal_page(&w, metabuf, true, 0));
	if (meta->pending_tail != InvalidBlockNumber)
	{
		Buffer		tailbuf = ReadBuffer(index, meta->pending_tail);

		LockBuffer(tailbuf, BUFFER_LOCK_EXCLUSIVE);
		bloofi_check_page(index, BufferGetPage(tailbuf), meta->pending_tail, BLOOFI_PAGE_PENDING, 0);
		used = bloofi_pending_page_used(index, meta->pending_tail, meta, BufferGetPage(tailbuf));
		if (len <= BLOOFI_PAGE_BYTES - used)
			page = bloofi_wal_page(&w, tailbuf, false, 0);
		else
		{
			/* no room: link a new page after it */
			Buffer		newbuf = bloofi_pending_get_page(index, meta);
			Page		tail = bloofi_wal_page(&w, tailbuf, false, 0);

			page = bloofi_wal_page(&w, newbuf, false, GENERIC_XLOG_FULL_IMAGE);
			bloofi_init_page(page, BLOOFI_PAGE_PENDING, 0, BLOOFI_PAGE_BYTES);
			BloofiPageGetOpaque(page)->nlive = BloofiPageGetOpaque(tail)->nlive + 1;
			BloofiPageGetOpaque(tail)->next = BufferGetBlockNumber(newbuf);
			meta->pending_tail = BufferGetBlockNumber(newbuf);
			used = 0;
		}
	}
	else
	{
		Buffer		newbuf = bloofi_pending_get_page(index, meta);

		page = bloofi_wal_page(&w, newbuf, false, GENERIC_XLOG_FULL_IMAGE);
		bloofi_init_page(page, BLOOFI_PAGE_PENDING, 0, BLOOFI_PAGE_BYTES);
		BloofiPageGetOpaque(page)->nlive = 1;
		meta->pending_head = meta->pending_tail = BufferGetBlockNumber(newbuf);
	}
	op = BloofiPageGetOpaque(page);
	memcpy((uint8 *) PageGetContents(page) + used, entry, len);
	op->nused++;
	if (last)
		meta->npending++;
	flush = bloofi_pending_full(meta, op->nlive);
	bloofi_wal_flush(&w);
	return flush;
}

/*
 * Append (tid, filter), too large for one entry, as a group of sparse
 * parts: its positions in increasing runs, each run as many as an entry of
 * a page holds, appended one WAL record each under one hold of the
 * metapage (a flush cannot take the chain between them).  An insert that
 * stops between two parts (an error, a crash) leaves a group without its
 * last part, of a heap tuple that never committed: readers skip it
 * (bloofi_chain_visit).  Returns whether the chain is due for a flush.
 */
static bool
bloofi_pending_insert_parts(Relation index, const BloofiMetaData *params, ItemPointer tid,
							const uint8 *filter)
{
	uint32		fbytes = bloofi_pending_fbytes(params);
	uint64		n = bs_popcount(filter, fbytes / 8);
	uint32	   *pos = palloc_extended(sizeof(uint32) * Max(n, 1), MCXT_ALLOC_HUGE);
	uint64		got = bs_set_positions(filter, fbytes / 8, pos);
	uint32		lo = 1,
				hi = (uint32) Max(n, 1);
	Buffer		metabuf;
	bool		flush = false;

	/* the most positions a part's entry holds in a page (sizes grow with n) */
	while (lo < hi)
	{
		uint32		mid = lo + (hi - lo + 1) / 2;

		if (8 + TYPEALIGN(8, bs_sparse_size(params->m, mid)) <= BLOOFI_PENDING_MAX_ENTRY)
			lo = mid;
		else
			hi = mid - 1;
	}
	metabuf = ReadBuffer(index, BLOOFI_METAPAGE_BLKNO);
	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	for (uint64 first = 0; first < got; first += lo)
	{
		uint32		cnt = (uint32) Min((uint64) lo, got - first);
		bool		last = first + cnt >= got;
		size_t		slen = bs_sparse_size(params->m, cnt);
		uint32		len = 8 + (uint32) TYPEALIGN(8, slen);
		uint16		form = (uint16) (BLOOFI_PENDING_SPARSE | (last ? 0 : BLOOFI_PENDING_PART) | slen);
		uint8	   *e = palloc0(len);

		memcpy(e, tid, sizeof(ItemPointerData));
		memcpy(e + 6, &form, sizeof(form));
		bs_sparse_encode_positions(pos + first, cnt, params->m, e + 8);
		flush = bloofi_pending_append(index, metabuf, e, len, last);
		pfree(e);
	}
	UnlockReleaseBuffer(metabuf);
	pfree(pos);
	return flush;
}

/*
 * Append (tid, filter) to the active chain, in its smaller form, or as a
 * group of parts when even that exceeds BLOOFI_PENDING_MAX_ENTRY.  Returns
 * false, storing nothing, for a filter without set bits too large for an
 * entry (none exists: the caller would insert it into the tree).  meta: the
 * index's parameters (m never changes once set).
 */
bool
bloofi_pending_insert(Relation index, const BloofiMetaData *params, ItemPointer tid,
					  const uint8 *filter)
{
	Buffer		metabuf;
	uint32		len;
	uint8	   *entry;
	bool		flush;

	len = bloofi_pending_make_entry(params, tid, filter, &entry);
	if (len == 0)
		flush = bloofi_pending_insert_parts(index, params, tid, filter);
	else
	{
		metabuf = ReadBuffer(index, BLOOFI_METAPAGE_BLKNO);
		LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
		flush = bloofi_pending_append(index, metabuf, entry, len, true);
		UnlockReleaseBuffer(metabuf);
		pfree(entry);
	}
	if (flush)
		bloofi_pending_flush(index, false);
	return true;
}

/*
 * Call visit(entry) for every entry of the chain starting at head
 * (share locks, one page at a time; at most nblocks pages, so a chain read
 * through a stale pointer always ends).  With strict (no writer can change
 * the chains: bloofi_check, a flush reading its own chain) a page that is
 * not a pending page is an error; else it ends the chain: a reader that
 * read the head before a flush may follow the chain into pages that VACUUM
 * has since given to nodes, and the entries it misses that way were moved
 * into the tree before, where it looks next.
 */
static void
bloofi_chain_visit(Relation index, const BloofiMetaData *meta, BlockNumber head,
				   bool flushing, bool strict, BloofiPendingVisitor visit, void *arg)
{
	BlockNumber nblocks;
	BlockNumber blk = head,
				this;
	uint8	   *copy;
	BloofiPendingGroup *g;

	if (head == InvalidBlockNumber)
		return;					/* (every lookup passes here: no lseek for an empty chain) */
	nblocks = RelationGetNumberOfBlocks(index);
	copy = palloc(BLOOFI_PAGE_BYTES);
	g = bloofi_pending_group_new();

	for (BlockNumber steps = 0; blk != InvalidBlockNumber && steps < nblocks; steps++)
	{
		Buffer		buf;
		BloofiPageOpaque op;
		uint32		n;

		CHECK_FOR_INTERRUPTS();
		if (blk >= nblocks)
		{
			if (!strict)
				break;
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("index \"%s\" has a pending page pointer %u beyond its %u blocks",
							RelationGetRelationName(index), blk, nblocks)));
		}
		buf = ReadBuffer(index, blk);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		if (!strict)
		{
			Page		page = BufferGetPage(buf);

			if (PageIsNew(page) ||
				PageGetSpecialSize(page) != MAXALIGN(sizeof(BloofiPageOpaqueData)) ||
				BloofiPageGetOpaque(page)->bloofi_page_id != BLOOFI_PAGE_ID ||
				BloofiPageGetOpaque(page)->kind != BLOOFI_PAGE_PENDING)
			{
				UnlockReleaseBuffer(buf);
				break;
			}
		}
		bloofi_check_page(index, BufferGetPage(buf), blk, BLOOFI_PAGE_PENDING, 0);
		op = BloofiPageGetOpaque(BufferGetPage(buf));
		n = op->nused;
		memcpy(copy, PageGetContents(BufferGetPage(buf)), BLOOFI_PAGE_BYTES);
		this = blk;
		blk = op->next;
		UnlockReleaseBuffer(buf);
		for (uint32 i = 0, off = 0; i < n; i++)
		{
			BloofiPendingEntry e;

			off += bloofi_pending_parse(index, this, meta, copy, off, &e);
			bloofi_pending_group_entry(index, meta, this, &e, g, flushing, visit, arg);
		}
	}
	pfree(copy);
	bloofi_pending_group_free(g);
}

void
bloofi_pending_visit(Relation index, const BloofiMetaData *meta, bool strict,
					 BloofiPendingVisitor visit, void *arg)
{
	if (!meta->have_params)
		return;
	bloofi_chain_visit(index, meta, meta->pending_head, false, strict, visit, arg);
	bloofi_chain_visit(index, meta, meta->flushing_head, true, strict, visit, arg);
}

typedef struct PendingSearch
{
	const uint32 *pos;
	uint32		npos;
	BloofiMatchCallback cb;
	void	   *arg;
	BloofiSearchStats *st;
} PendingSearch;

/* one entry against the element's positions: bit tests, or one pass over a sparse entry's encoding */
static void
bloofi_pending_search_visit(const BloofiPendingEntry *e, bool flushing, void *arg)
{
	PendingSearch *ps = (PendingSearch *) arg;
	ItemPointerData tid = e->tid;

	ps->st->nodes_checked++;
	ps->st->leaves_seen++;
	if (e->bits)
	{
		for (uint32 i = 0; i < ps->npos; i++)
			if (!bs_bit_test(e->bits, ps->pos[i]))
				return;
	}
	else if (e->nparts > 0)
	{
		/* a group: each position in one of its parts */
		for (uint32 i = 0; i < ps->npos; i++)
		{
			int			j = 0;

			while (j < e->nparts && !bs_sparse_test(&e->parts[j], ps->pos[i]))
				j++;
			if (j == e->nparts)
				return;
		}
	}
	else if (!bs_sparse_test_all(&e->sparse, ps->pos, (int) ps->npos))
		return;
	if (ItemPointerIsValid(&tid))
	{
		ps->st->matches++;
		if (ps->cb)
			ps->cb(&tid, true, ps->arg); /* (the entry is the heap's filter) */
	}
}

/* lookup in the pending chains: every entry tested (they are few) */
void
bloofi_pending_search(Relation index, const BloofiMetaData *meta,
					  const uint32 *pos, uint32 npos,
					  BloofiMatchCallback cb, void *arg, BloofiSearchStats *st)
{
	PendingSearch ps = {pos, npos, cb, arg, st};

	bloofi_pending_visit(index, meta, false, bloofi_pending_search_visit, &ps);
}

/*
 * The entries of a chain as stored (a sparse one stays sparse: memory
 * follows the chain's bytes, not m times its entries): entry i's filter is
 * body + off[i], its encoding's length enc_len[i] (0: dense bits), each
 * 8-byte aligned.
 */
typedef struct PendingCollect
{
	Relation	index;
	const BloofiMetaData *meta;
	uint32		fbytes;
	int			n;
	int			cap;
	ItemPointerData *tids;
	Size	   *off;
	uint32	   *enc_len;
	uint8	   *body;
	Size		used;
	Size		body_cap;
} PendingCollect;

static void
bloofi_pending_collect(const BloofiPendingEntry *e, bool flushing, void *arg)
{
	PendingCollect *pc = (PendingCollect *) arg;
	bool		dense = e->bits || e->nparts > 0;	/* a group is kept decoded */
	Size		len = dense ? pc->fbytes : TYPEALIGN(8, e->enc_len);

	if (pc->n == pc->cap)
	{
		pc->cap *= 2;
		pc->tids = repalloc_huge(pc->tids, sizeof(ItemPointerData) * pc->cap);
		pc->off = repalloc_huge(pc->off, sizeof(Size) * pc->cap);
		pc->enc_len = repalloc_huge(pc->enc_len, sizeof(uint32) * pc->cap);
	}
	while (pc->used + len > pc->body_cap)
	{
		pc->body_cap *= 2;
		pc->body = repalloc_huge(pc->body, pc->body_cap);
	}
	pc->tids[pc->n] = e->tid;
	pc->off[pc->n] = pc->used;
	pc->enc_len[pc->n] = dense ? 0 : e->enc_len;
	if (e->nparts > 0)
		(void) bloofi_pending_entry_bits(pc->index, pc->meta, e, pc->body + pc->used);
	else
		memcpy(pc->body + pc->used, e->bits ? e->bits : e->enc, e->bits ? pc->fbytes : e->enc_len);
	pc->used += len;
	pc->n++;
}

/* the dense bits of collected entry i (decoded into scratch when sparse) */
static const uint8 *
bloofi_collected_bits(PendingCollect *pc, int i, uint8 *scratch)
{
	BloofiPendingEntry e;

	if (pc->enc_len[i] == 0)
		return pc->body + pc->off[i];
	memset(&e, 0, sizeof(e));
	e.tid = pc->tids[i];
	e.bits = NULL;
	e.enc = pc->body + pc->off[i];
	e.enc_len = pc->enc_len[i];
	bloofi_pending_open(pc->index, InvalidBlockNumber, e.enc, e.enc_len, pc->meta->m, &e.sparse);
	return bloofi_pending_entry_bits(pc->index, pc->meta, &e, scratch);
}

/*
 * Flush step 1: detach the active chain as the flushing chain, unless a
 * crashed flush left one (*leftover).  Sets *head to the flushing chain's
 * first page; returns false when there is nothing to flush.
 */
static bool
bloofi_flush_detach(Relation index, BlockNumber *head, bool *leftover)
{
	Buffer		metabuf = ReadBuffer(index, BLOOFI_METAPAGE_BLKNO);
	BloofiMetaData *meta;
	BloofiWal	w;

	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	meta = BloofiPageGetMeta(BufferGetPage(metabuf));
	*leftover = meta->flushing_head != InvalidBlockNumber;
	if (!*leftover && meta->pending_head == InvalidBlockNumber)
	{
		UnlockReleaseBuffer(metabuf);
		return false;
	}
	if (!*leftover)
	{
		bloofi_wal_begin(&w, index);
		meta = BloofiPageGetMeta(bloofi_wal_page(&w, metabuf, true, 0));
		meta->flushing_head = meta->pending_head;
		meta->pending_head = meta->pending_tail = InvalidBlockNumber;
		meta->npending = 0;
		bloofi_wal_flush(&w);
	}
	/* (read from the buffer: the WAL image is gone after the flush) */
	*head = BloofiPageGetMeta(BufferGetPage(metabuf))->flushing_head;
	UnlockReleaseBuffer(metabuf);
	return true;
}

/*
 * A crashed flush's entries (pc): those whose TID reached the tree may lack
 * some of their slice bits (TIDs and bits are separate WAL records), so
 * their bits are set again in place, per bottom node, at most batch at a
 * time (decoded into scratch, batch filters); the indexes of the others go
 * into rest[] to be placed as usual.  Returns how many those are.
 */
static int
bloofi_flush_refill(Relation index, const BloofiMetaData *meta, PendingCollect *pc,
					int *rest, int batch, uint8 *scratch)
{
	/* the TIDs already in the tree, with their bottom node and slot */
	HTAB	   *have = bloofi_leaf_slots(index, meta, "bloofi tree tids");
	BloofiLeafSlot **found = palloc(sizeof(BloofiLeafSlot *) * Max(pc->n, 1));
	uint32	   *slots = palloc(sizeof(uint32) * batch);
	const uint8 **refill = palloc(sizeof(uint8 *) * batch);
	bool	   *done = palloc0(sizeof(bool) * Max(pc->n, 1));
	int			out = 0;

	for (int i = 0; i < pc->n; i++)
	{
		found[i] = hash_search(have, &pc->tids[i], HASH_FIND, NULL);
		if (!found[i])
			rest[out++] = i;
	}
	/* per bottom node, the leaves to complete */
	for (int i = 0; i < pc->n; i++)
	{
		int			nr = 0;

		if (!found[i] || done[i])
			continue;
		for (int j = i; j < pc->n; j++)
			if (found[j] && !done[j] && found[j]->node == found[i]->node)
			{
				slots[nr] = found[j]->slot;
				refill[nr] = bloofi_collected_bits(pc, j, scratch + (Size) nr * pc->fbytes);
				nr++;
				done[j] = true;
				if (nr == batch)
				{
					bloofi_refill_leaves(index, found[i]->node, nr, slots, refill);
					nr = 0;
				}
			}
		if (nr > 0)
			bloofi_refill_leaves(index, found[i]->node, nr, slots, refill);
	}
	return out;
}

/*
 * Flush step 2: the entries of the flushing chain at head into the tree
 * (those of a crashed flush completed in place first), in batches of at most
 * 1,024 entries and maintenance_work_mem of decoded filters (the fewer the
 * batches, the fewer times a bottom node is rewritten).
 */
static void
bloofi_flush_entries(Relation index, BlockNumber head, bool leftover)
{
	BloofiMetaData *meta = bloofi_read_meta(index);
	PendingCollect pc;
	int			batch;
	int		   *rest;
	uint8	   *scratch;
	const uint8 **filters;
	ItemPointerData *tids;
	int			out = 0;

	memset(&pc, 0, sizeof(pc));
	pc.index = index;
	pc.meta = meta;
	pc.fbytes = bloofi_pending_fbytes(meta);
	pc.cap = 64;
	pc.tids = palloc(sizeof(ItemPointerData) * pc.cap);
	pc.off = palloc(sizeof(Size) * pc.cap);
	pc.enc_len = palloc(sizeof(uint32) * pc.cap);
	pc.body_cap = BLOOFI_PAGE_BYTES;
	pc.body = palloc(pc.body_cap);
	bloofi_chain_visit(index, meta, head, true, true, bloofi_pending_collect, &pc);

	batch = (int) Max(1, Min(1024, (Size) maintenance_work_mem * 1024 / pc.fbytes));
	scratch = palloc((Size) batch * pc.fbytes);
	rest = palloc(sizeof(int) * Max(pc.n, 1));
	if (leftover)
		out = bloofi_flush_refill(index, meta, &pc, rest, batch, scratch);
	else
		for (int i = 0; i < pc.n; i++)
			rest[out++] = i;
	filters = palloc(sizeof(uint8 *) * batch);
	tids = palloc(sizeof(ItemPointerData) * batch);
	for (int i = 0; i < out; i += batch)
	{
		int			nb = Min(batch, out - i);

		for (int j = 0; j < nb; j++)
		{
			tids[j] = pc.tids[rest[i + j]];
			filters[j] = bloofi_collected_bits(&pc, rest[i + j], scratch + (Size) j * pc.fbytes);
		}
		bloofi_insert_leaves(index, nb, tids, filters);
	}
}

/* Flush step 3: the flushing chain at head joins the pending free chain */
static void
bloofi_flush_release(Relation index, BlockNumber head)
{
	Buffer		metabuf = ReadBuffer(index, BLOOFI_METAPAGE_BLKNO);
	BloofiMetaData *meta;
	BloofiWal	w;
	BlockNumber last = head;
	BlockNumber nblocks;
	Buffer		lastbuf;
	Page		lastpage;

	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	bloofi_wal_begin(&w, index);
	meta = BloofiPageGetMeta(bloofi_wal_page(&w, metabuf, true, 0));
	nblocks = RelationGetNumberOfBlocks(index);
	for (BlockNumber steps = 0; steps < nblocks; steps++)
	{
		Buffer		buf = ReadBuffer(index, last);
		BlockNumber next;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		next = BloofiPageGetOpaque(BufferGetPage(buf))->next;
		UnlockReleaseBuffer(buf);
		if (next == InvalidBlockNumber)
			break;
		last = next;
	}
	lastbuf = ReadBuffer(index, last);
	LockBuffer(lastbuf, BUFFER_LOCK_EXCLUSIVE);
	lastpage = bloofi_wal_page(&w, lastbuf, false, 0);
	BloofiPageGetOpaque(lastpage)->next = meta->free_head;
	meta->free_head = head;
	meta->flushing_head = InvalidBlockNumber;
	bloofi_wal_flush(&w);
	UnlockReleaseBuffer(metabuf);
}

/*
 * Move the pending entries into the tree (protocol at the top).  With
 * wait = false, returns at once when another backend is flushing.
 */
void
bloofi_pending_flush(Relation index, bool wait)
{
	BlockNumber head;
	bool		leftover;
	MemoryContext tmp,
				old;

	if (wait)
		bloofi_lock_tree(index);
	else if (!bloofi_trylock_tree(index))
		return;

	tmp = AllocSetContextCreate(CurrentMemoryContext, "bloofi flush context",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(tmp);
	if (bloofi_flush_detach(index, &head, &leftover))
	{
		bloofi_flush_entries(index, head, leftover);
		bloofi_flush_release(index, head);

		/*
		 * that was a crashed flush's chain: now the active one (same lock,
		 * re-entrant)
		 */
		if (leftover)
			bloofi_pending_flush(index, true);
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(tmp);
	bloofi_unlock_tree(index);
}
