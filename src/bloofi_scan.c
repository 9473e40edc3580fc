/*
 * bloofi_scan.c
 *    Bloofi lookups: the search of the tree for a set of positions.
 *
 * The search (bloofi_search) goes as the paper's Algorithm 1 does: test the
 * root's value, then at every node visited test all its children's values,
 * and descend into the children that match.  A node's children are tested
 * together: the AND of the node's slices at the positions (word by word,
 * stopping as soon as it is empty) leaves the matching slots; each counts
 * as one filter checked per child, as the paper counts.  At the bottom nodes
 * the matching slots' TIDs are returned, exact when the node's columns are
 * its leaves' filters and its TID pages have not changed since its header
 * was read, else for recheck ("Exact matches" in docs/bloofi.md).  Readers'
 * side of the locking protocol (docs/bloofi.md): no heavyweight lock, one
 * buffer share lock at a time (but a wide node's AND a cache line at a
 * time, bloofi_and_together, which never waits while it holds one), and an
 * inner node visited again when a split or merge switched its children
 * between the visit's reads (bloofi_visit_changed).
 *
 * On PostgreSQL 17 and later, with bloomsample.bloofi_read_stream on, a
 * node visit whose slice pages are not all where a lookup found them last
 * reads them through a read stream (storage/read_stream.h): all the node's
 * pages for the positions are asked for at once, and on 18 read by
 * asynchronous I/O (io_method); the pages, their order and the AND are the
 * same as page by page, so the answer is too.
 *
 * The access method's scan entry points, which turn a scan's keys into
 * positions and matches into a bitmap, are in bloofi_amscan.c.
 *
 * Design notes: docs/bloofi.md.
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"
#include "storage/buf_internals.h"
#include "storage/bufmgr.h"
#include "storage/lwlock.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "bloofi.h"

/* bloomsample.bloofi_read_stream (17 and later; no effect on 15 and 16) */
bool		bloofi_read_stream = false;

/* bloomsample.bloofi_listed_fence_page (a developer setting: bloofi_sparse_pages.c) */
bool		bloofi_listed_fence_page = false;

/*
 * bloomsample.bloofi_and_lines (a developer setting): on, wide nodes ANDed a
 * cache line at a time (bloofi_and_together); off, a slice at a time;
 * contended, as on but the last slice page's lock is taken as never free,
 * so that every such visit goes the fall-back way (for tests)
 */
enum
{
	BLOOFI_AND_LINES_OFF, BLOOFI_AND_LINES_ON, BLOOFI_AND_LINES_CONTENDED
};

static const struct config_enum_entry bloofi_and_lines_options[] = {
	{"on", BLOOFI_AND_LINES_ON, false},
	{"off", BLOOFI_AND_LINES_OFF, false},
	{"contended", BLOOFI_AND_LINES_CONTENDED, false},
	{NULL, 0, false}
};

static int	bloofi_and_lines_mode = BLOOFI_AND_LINES_ON;

/* bloomsample.bloofi_visit_delay (a developer setting, milliseconds: bloofi_search) */
static int	bloofi_visit_delay = 0;

/*
 * bloomsample.bloofi_write_delay (a developer setting, milliseconds:
 * bloofi_node_set_slots)
 */
int			bloofi_write_delay = 0;

/* bloofi_init_gucs: define Bloofi's settings, from _PG_init */
void
bloofi_init_gucs(void)
{
	DefineCustomBoolVariable("bloomsample.bloofi_read_stream",
							 "Reads the slice pages of a Bloofi node visit through a read stream (PostgreSQL 17 and later).",
							 "The stream asks for all of a node's pages at once; on PostgreSQL 18 they are read by asynchronous I/O (io_method).",
							 &bloofi_read_stream, false, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("bloomsample.bloofi_listed_fence_page",
							 "Cuts the blocks of a LISTED Bloofi node large enough that its fences fit on its first page (developer option).",
							 "Off (the default) writes blocks of the default size whatever their fences take: a lookup reads a fence page more and scans a short block; on, so that tests reach the large blocks.",
							 &bloofi_listed_fence_page, false, PGC_USERSET,
							 GUC_NOT_IN_SAMPLE, NULL, NULL, NULL);
	DefineCustomEnumVariable("bloomsample.bloofi_and_lines",
							 "ANDs the slices of a wide Bloofi node a cache line at a time, all slices together (developer option).",
							 "Off ANDs one whole slice after another, one page locked at a time; contended takes the last slice page's lock as never free, so that the visit falls back to that: for comparisons and tests.",
							 &bloofi_and_lines_mode, BLOOFI_AND_LINES_ON, bloofi_and_lines_options,
							 PGC_USERSET, GUC_NOT_IN_SAMPLE, NULL, NULL, NULL);
	DefineCustomIntVariable("bloomsample.bloofi_visit_delay",
							"Waits this long in each visit of a Bloofi inner node, between the test of its children and the read of their references (developer option).",
							"Tests use it to make a lookup overlap a concurrent split or merge.",
							&bloofi_visit_delay, 0, 0, 60000, PGC_SUSET,
							GUC_NOT_IN_SAMPLE | GUC_UNIT_MS, NULL, NULL, NULL);
	DefineCustomIntVariable("bloomsample.bloofi_write_delay",
							"Waits this long after a Bloofi tree writer wrote new leaves' TIDs, before their bits (developer option).",
							"Tests use it to stop a flush or an insert between the two (a cancel, a crash).",
							&bloofi_write_delay, 0, 0, 60000, PGC_SUSET,
							GUC_NOT_IN_SAMPLE | GUC_UNIT_MS, NULL, NULL, NULL);
}

/*
 * The contents of page start + rel under a share lock.  *buf / *cur hold the
 * page read last (InvalidBuffer / InvalidBlockNumber: none): kept when it is
 * the same page, else released first, so that a walk over a node's pages
 * holds one lock at a time.  The caller releases *buf when it is done.  The
 * page is pinned from the buffer it was found in last time when it is still
 * there (bloofi_recent.c: no buffer-table lookup on the warm path).
 */
static const uint8 *
bloofi_walk_page(Relation index, BlockNumber start, uint32 rel, Buffer *buf, uint32 *cur)
{
	if (rel != *cur)
	{
		if (BufferIsValid(*buf))
			UnlockReleaseBuffer(*buf);
		*buf = bloofi_read_recent(index, start + rel);
		LockBuffer(*buf, BUFFER_LOCK_SHARE);
		*cur = rel;
	}
	return (const uint8 *) PageGetContents(BufferGetPage(*buf));
}

/* true when every position is set in the node's value */
static bool
bloofi_value_passes(Relation index, const BloofiNode *node, const uint32 *pos, uint32 npos)
{
	const BloofiGeometry *geom = &node->geom;
	Buffer		buf = InvalidBuffer;
	uint32		cur = InvalidBlockNumber;
	bool		pass = true;

	for (uint32 i = 0; i < npos && pass; i++)
	{
		uint32		byte = pos[i] / 8;
		const uint8 *data = bloofi_walk_page(index, node->start,
											 bloofi_value_page(geom, byte),
											 &buf, &cur);

		pass = (data[bloofi_value_offset(geom, byte)] >> (pos[i] % 8)) & 1;
	}
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);
	return pass;
}

/*
 * The slice pages of one node visit, located before they are read
 * (bloofi_recent_locate: the buffer each was found in last time, else one
 * buffer-table lookup, which also starts the read of a page not in shared
 * buffers, so that a cold lookup waits for its k pages together), for the
 * CPU prefetch hints of the next slice.
 */
#define BLOOFI_PREFETCH_MAX 64

typedef struct BloofiSlicePages
{
	uint32		n;				/* pages located (distinct, in order) */
	uint32		rel[BLOOFI_PREFETCH_MAX];	/* page numbers within the node */
	Buffer		recent[BLOOFI_PREFETCH_MAX];	/* where it was, or InvalidBuffer */
} BloofiSlicePages;

/*
 * Fill sp; with locate, as bloofi_recent_locate does (a page not known is
 * located, its read started), without, only from what is known.  Returns
 * how many of the pages are not known (without locate: have no buffer).
 */
static uint32
bloofi_slice_pages_locate(Relation index, const BloofiNode *node, const uint32 *pos,
						  uint32 npos, BloofiSlicePages *sp, bool locate)
{
	uint32		unknown = 0;

	sp->n = 0;
	for (uint32 i = 0; i < npos && sp->n < BLOOFI_PREFETCH_MAX; i++)
	{
		uint32		rel = bloofi_slice_page(&node->geom, pos[i]);
		BlockNumber blk = node->start + rel;

		if (sp->n > 0 && sp->rel[sp->n - 1] == rel)
			continue;			/* positions are sorted: pages too */
		sp->rel[sp->n] = rel;
		sp->recent[sp->n] = locate ? bloofi_recent_locate(index, blk) :
			bloofi_recent_known(index, blk);
		unknown += !BufferIsValid(sp->recent[sp->n]);
		sp->n++;
	}
	return unknown;
}

/* the buffer located for page rel (InvalidBuffer: not located or not there) */
static Buffer
bloofi_slice_pages_recent(const BloofiSlicePages *sp, uint32 rel)
{
	for (uint32 i = 0; i < sp->n; i++)
		if (sp->rel[i] == rel)
			return sp->recent[i];
	return InvalidBuffer;
}

/*
 * Where slice j's bytes lie in its located page, for a CPU prefetch before
 * the page is pinned (NULL: not located, or a local buffer).  Only a hint:
 * if the buffer has been given another page meanwhile, the lines fetched
 * are merely useless; nothing is read from it.
 */
static const uint8 *
bloofi_slice_hint(const BloofiNode *node, const BloofiSlicePages *sp, uint32 j)
{
	Buffer		recent = bloofi_slice_pages_recent(sp, bloofi_slice_page(&node->geom, j));

	if (!BufferIsValid(recent) || BufferIsLocal(recent))
		return NULL;
	return (const uint8 *) PageGetContents((Page) BufferGetBlock(recent)) +
		bloofi_slice_offset(&node->geom, j);
}

/*
 * Where the AND of one node visit gets its slice pages: page by page
 * (bloofi_walk_page, the pages located first, bloofi_slice_pages_locate),
 * or from a read stream that was given all of them in order (17 and later,
 * bloomsample.bloofi_read_stream, when a page is not known: a cold visit).
 * Either way the pages of the positions in order, one share lock at a time.
 */
typedef struct BloofiSliceReader
{
	Buffer		buf;			/* the page read last (InvalidBuffer: none) */
	uint32		cur;			/* its number within the node */
	BloofiSlicePages sp;		/* page by page: the pages located */
#if BS_HAVE_READ_STREAM
	ReadStream *stream;			/* NULL: page by page */
	BlockNumber *blocks;		/* the stream's blocks, distinct, in order */
	uint32		nblocks;
	uint32		next;			/* the next one the callback gives */
#endif
} BloofiSliceReader;

#if BS_HAVE_READ_STREAM
/* the read stream's callback: the next block of the list, then none */
static BlockNumber
bloofi_slice_stream_next(ReadStream *stream, void *private_data, void *per_buffer_data)
{
	BloofiSliceReader *r = (BloofiSliceReader *) private_data;

	return r->next < r->nblocks ? r->blocks[r->next++] : InvalidBlockNumber;
}
#endif

/* start reading node's slice pages for the positions into r */
static void
bloofi_slice_reader_begin(Relation index, const BloofiNode *node, const uint32 *pos,
						  uint32 npos, BloofiSliceReader *r)
{
	r->buf = InvalidBuffer;
	r->cur = InvalidBlockNumber;
#if BS_HAVE_READ_STREAM
	r->stream = NULL;
	if (bloofi_read_stream && !RelationUsesLocalBuffers(index))
	{
		if (bloofi_slice_pages_locate(index, node, pos, npos, &r->sp, false) == 0)
			return;				/* all known: sp is what locating gives */
		r->blocks = palloc(sizeof(BlockNumber) * npos);
		r->nblocks = 0;
		r->next = 0;
		for (uint32 i = 0; i < npos; i++)
		{
			BlockNumber blk = node->start + bloofi_slice_page(&node->geom, pos[i]);

			if (r->nblocks == 0 || r->blocks[r->nblocks - 1] != blk)
				r->blocks[r->nblocks++] = blk;
		}
		r->stream = read_stream_begin_relation(BS_READ_STREAM_FLAGS, NULL, index, MAIN_FORKNUM,
											   bloofi_slice_stream_next, r, 0);
		return;
	}
#endif
	(void) bloofi_slice_pages_locate(index, node, pos, npos, &r->sp, true);
}

/* the contents of page rel of node (the next page of the positions, or the same) */
static const uint8 *
bloofi_slice_reader_page(Relation index, const BloofiNode *node, BloofiSliceReader *r,
						 uint32 rel)
{
#if BS_HAVE_READ_STREAM
	if (r->stream && rel != r->cur)
	{
		BlockNumber blk = node->start + rel;

		if (BufferIsValid(r->buf))
			UnlockReleaseBuffer(r->buf);
		r->buf = read_stream_next_buffer(r->stream, NULL);
		if (!BufferIsValid(r->buf) || BufferGetBlockNumber(r->buf) != blk)
			elog(ERROR, "bloofi: the read stream of node %u is out of step at block %u",
				 node->start, blk);
		bloofi_recent_remember(index, blk, r->buf);
		LockBuffer(r->buf, BUFFER_LOCK_SHARE);
		r->cur = rel;
	}
	if (r->stream)
		return (const uint8 *) PageGetContents(BufferGetPage(r->buf));
#endif
	return bloofi_walk_page(index, node->start, rel, &r->buf, &r->cur);
}

/* the CPU prefetch hint for slice j (NULL from a stream: its buffer is not known yet) */
static const uint8 *
bloofi_slice_reader_hint(const BloofiNode *node, const BloofiSliceReader *r, uint32 j)
{
#if BS_HAVE_READ_STREAM
	if (r->stream)
		return NULL;
#endif
	return bloofi_slice_hint(node, &r->sp, j);
}

/* release what r holds (the stream's pages read ahead and not used too) */
static void
bloofi_slice_reader_end(BloofiSliceReader *r)
{
	if (BufferIsValid(r->buf))
		UnlockReleaseBuffer(r->buf);
#if BS_HAVE_READ_STREAM
	if (r->stream)
	{
		read_stream_end(r->stream);
		pfree(r->blocks);
	}
#endif
}

/* whether a visit reads its slice pages through a read stream (17 and later) */
static bool
bloofi_stream_wanted(Relation index)
{
#if BS_HAVE_READ_STREAM
	return bloofi_read_stream && !RelationUsesLocalBuffers(index);
#else
	return false;
#endif
}

/* a wide bit-sliced node's AND goes a cache line at a time (bloofi_and_together) */
#define BLOOFI_TOGETHER_MIN_WORDS 64

/*
 * A share lock on buf when it is free at once (never waits); a local buffer
 * needs none
 */
static bool
bloofi_try_share_lock(Buffer buf)
{
	if (BufferIsLocal(buf))
		return true;
	return LWLockConditionalAcquire(BufferDescriptorGetContentLock(GetBufferDescriptor(buf - 1)),
									LW_SHARED);
}

/*
 * bloofi_node_match's AND of a wide bit-sliced node a cache line at a time
 * across its slices (bloofi_and_lines; docs/bloofi.md, "Lookup cost in the
 * dense regime").  The slice pages are pinned first (a read waits with no
 * lock held), then share-locked in block order, the first lock waited for,
 * the others taken only when free: a lookup never waits while holding a
 * lock, so it cannot deadlock with a writer (or the startup process) locking
 * them in another order.  acc is initialised by the caller.  Returns -1 when
 * a lock was not free (nothing held: the caller ANDs a page at a time), else
 * whether a slot matches.
 */
static int
bloofi_and_together(Relation index, const BloofiNode *node, const uint32 *pos, uint32 npos,
					uint64 *acc, uint32 nwords)
{
	const BloofiGeometry *geom = &node->geom;
	BloofiSlicePages sp;		/* the distinct pages, in order */
	Buffer		bufs[BLOOFI_PREFETCH_MAX];
	const uint8 *slices[BLOOFI_PREFETCH_MAX];
	uint32		nlocked;
	bool		any;

	if (npos > BLOOFI_PREFETCH_MAX)
		return -1;
	/* located first: the reads of pages not in shared buffers start together */
	(void) bloofi_slice_pages_locate(index, node, pos, npos, &sp, true);
	if (sp.n == 0)
		return -1;
	for (uint32 b = 0; b < sp.n; b++)
		bufs[b] = bloofi_read_recent(index, node->start + sp.rel[b]);
	LockBuffer(bufs[0], BUFFER_LOCK_SHARE);
	for (nlocked = 1; nlocked < sp.n; nlocked++)
		if ((bloofi_and_lines_mode == BLOOFI_AND_LINES_CONTENDED && nlocked == sp.n - 1) ||
			!bloofi_try_share_lock(bufs[nlocked]))
			break;
	if (nlocked < sp.n)
	{
		for (uint32 b = 0; b < sp.n; b++)
		{
			if (b < nlocked)
				LockBuffer(bufs[b], BUFFER_LOCK_UNLOCK);
			ReleaseBuffer(bufs[b]);
		}
		return -1;
	}
	for (uint32 i = 0, b = 0; i < npos; i++)
	{
		while (sp.rel[b] != bloofi_slice_page(geom, pos[i]))
			b++;
		slices[i] = (const uint8 *) PageGetContents(BufferGetPage(bufs[b])) +
			bloofi_slice_offset(geom, pos[i]);
	}
	any = bloofi_and_lines(acc, slices, npos, nwords, geom->slice_bytes);
	for (uint32 b = 0; b < sp.n; b++)
		UnlockReleaseBuffer(bufs[b]);
	return any ? 1 : 0;
}

/*
 * Test the children of node against the positions: acc (node->geom.slice_words
 * words) gets the matching slots among the first nused.  Returns false when
 * none matches.  *checked is increased by the children tested: all live ones
 * of a bit-sliced node (one AND tests them all), the list entries read in a
 * SPARSE one.  sc: the scan's buffers for SPARSE nodes, where a SPARSE
 * node's matches are left as a list instead of in acc when npos > 0.
 */
static bool
bloofi_node_match(Relation index, const BloofiNode *node, const uint32 *pos, uint32 npos,
				  uint64 *acc, int64 *checked, BloofiSparseScratch *sc)
{
	const BloofiGeometry *geom = &node->geom;
	uint32		nwords = (node->nused + 63) / 64;
	bool		any = nwords > 0;
	uint32	   *idx = NULL;
	uint32		nidx = 0;
	BloofiSliceReader rd;

	if (bloofi_node_is_sparse(node))	/* a SPARSE node: lists, not slices */
	{
		uint64		entries = 0;
		/* (the search walks the list the match leaves in sc: no acc then) */
		bool		r = bloofi_sparse_match(index, node, pos, npos,
											npos > 0 && sc ? NULL : acc, &entries, sc);

		*checked += (int64) entries;
		return r;
	}
	*checked += node->nlive;
	bloofi_acc_init(acc, geom->slice_words, node->nused);
	if (nwords >= BLOOFI_TOGETHER_MIN_WORDS &&
		bloofi_and_lines_mode != BLOOFI_AND_LINES_OFF && !bloofi_stream_wanted(index))
	{
		int			r = bloofi_and_together(index, node, pos, npos, acc, nwords);

		if (r >= 0)
			return r > 0;
	}
	bloofi_slice_reader_begin(index, node, pos, npos, &rd);
	for (uint32 i = 0; i < npos && any; i++)
	{
		const uint8 *data = bloofi_slice_reader_page(index, node, &rd,
													 bloofi_slice_page(geom, pos[i])) +
		bloofi_slice_offset(geom, pos[i]);

		if (idx == NULL)
		{
			any = bloofi_and_slice_ahead(acc, data, nwords, geom->slice_bytes,
										 i + 1 < npos ? bloofi_slice_reader_hint(node, &rd, pos[i + 1]) : NULL);

			/*
			 * A wide node after a third of the slices (a word holds 64
			 * leaves: with half-full filters it is mostly zero after 7 or
			 * 8): when most words are zero (judged from a sample, so that
			 * the slices before are not paid a pass over acc each), the
			 * rest of the AND visits only the others.
			 */
			if (any && nwords >= 256 && i >= 5 && i + 1 < npos &&
				bloofi_acc_mostly_zero(acc, nwords))
			{
				idx = palloc(sizeof(uint32) * nwords);
				nidx = bloofi_nonzero_words(acc, nwords, idx);
			}
		}
		else
		{
			nidx = bloofi_and_slice_sparse_ahead(acc, data, geom->slice_bytes, idx, nidx,
												 i + 1 < npos ? bloofi_slice_reader_hint(node, &rd, pos[i + 1]) : NULL);
			any = nidx > 0;
		}
	}
	bloofi_slice_reader_end(&rd);
	if (idx)
		pfree(idx);
	return any;
}

/*
 * Before the children just pushed (blocks[0..n)) are visited one by one:
 * locate their headers, then each one's slice pages for the positions, so
 * that the reads of pages not in shared buffers start together
 * (PrefetchBuffer) instead of one node's batch after another's.  Only worth
 * its header reads when pages are missing (bloofi_search asks it after a
 * lookup that was not all warm); at most the BLOOFI_PREFETCH_NODES children
 * visited first.
 */
#define BLOOFI_PREFETCH_NODES 8

static void
bloofi_prefetch_children(Relation index, const BloofiMetaData *meta,
						 const BlockNumber *blocks, uint32 n,
						 const uint32 *pos, uint32 npos)
{
	BloofiSlicePages sp;

	if (n > BLOOFI_PREFETCH_NODES)	/* the stack pops the last pushed first */
	{
		blocks += n - BLOOFI_PREFETCH_NODES;
		n = BLOOFI_PREFETCH_NODES;
	}
	for (uint32 i = 0; i < n; i++)
		(void) bloofi_recent_locate(index, blocks[i]);
	for (uint32 i = 0; i < n; i++)
	{
		BloofiNode	C;

		bloofi_node_read(index, meta, blocks[i], &C);
		if (!bloofi_node_is_sparse(&C))
			(void) bloofi_slice_pages_locate(index, &C, pos, npos, &sp, true);
	}
}

/*
 * bloofi_visit_changed: whether node X's header page has changed since X
 * was read (its LSN: every record that changes a page gives it a new one,
 * bloofi_wal_flush).  buf is page cur of X, locked (cur InvalidBlockNumber:
 * X's header page, pinned only); released here.  A visit reads X's header,
 * then its slices (the AND), then the references of the matching slots,
 * one page at a time.  A switch (bloofi_node_switch) between those reads
 * clears the old children's slots and fills new ones, whose columns were
 * written just before, in one record that always includes the header page:
 * a visit across it could test the old slots' columns (or slots past the
 * ones it read) and then find the old references cleared, and miss the
 * moved children's leaves.  An unchanged LSN means the visit saw X before
 * or after every switch, never across one.  Only needed above the bottom:
 * a bottom node's slots change in place, a TID before its column and a dead
 * one after its column, and its leaves never move.
 */
static bool
bloofi_visit_changed(Relation index, const BloofiNode *X, Buffer buf, uint32 cur)
{
	XLogRecPtr	lsn;

	if (cur == InvalidBlockNumber)
		LockBuffer(buf, BUFFER_LOCK_SHARE);
	else if (cur != 0)
	{
		UnlockReleaseBuffer(buf);
		buf = bloofi_read_recent(index, X->start);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
	}
	lsn = BufferGetLSNAtomic(buf);
	UnlockReleaseBuffer(buf);
	if (lsn == X->lsn)
		return false;
	elog(DEBUG1, "bloofi: node %u of \"%s\" changed during a lookup's visit: visited again",
		 X->start, RelationGetRelationName(index));
	return true;
}

/* the matching slots of a node visit: acc's bits, or a SPARSE node's list */
typedef struct MatchIter
{
	const uint64 *acc;
	uint32		nwords;
	uint32		w;
	uint64		word;
	const uint16 *res;			/* the list (NULL: acc) */
	uint32		nres;
	uint32		ri;
	uint32		nused;
} MatchIter;

static void
match_iter_init(MatchIter *it, const BloofiNode *X, const uint64 *acc,
				const BloofiSparseScratch *sc)
{
	memset(it, 0, sizeof(*it));
	it->acc = acc;
	it->nwords = (X->nused + 63) / 64;
	it->nused = X->nused;
	if (sc)
	{
		it->res = (const uint16 *) sc->lists;
		it->nres = sc->nres;
	}
}

/* the next matching slot into *slot, increasing; false at the end */
static inline bool
match_next(MatchIter *it, uint32 *slot)
{
	if (it->res)
	{
		while (it->ri < it->nres)
			if ((*slot = it->res[it->ri++]) < it->nused)
				return true;
		return false;
	}
	while (it->word == 0)
	{
		if (it->w == it->nwords)
			return false;
		it->word = it->acc[it->w++];
	}
	*slot = (it->w - 1) * 64 + (uint32) __builtin_ctzll(it->word);
	it->word &= it->word - 1;
	return true;
}

/*
 * The root's header read into *root (its page left pinned in *hdr for the
 * search's first visit) and its value tested; false, nothing pinned, when
 * the tree is empty or the value lacks a position.  A saturated root's
 * value would prune little: not tested (section 3.4).  Nor is a SPARSE
 * root's: its lists answer as soon as one is empty, and the value's pages
 * would be read for every lookup.
 */
static bool
bloofi_root_passes(Relation index, const BloofiMetaData *meta, const uint32 *pos, uint32 npos,
				   BloofiSearchStats *st, BloofiNode *root, Buffer *hdr)
{
	if (meta->root == InvalidBlockNumber)
		return false;
	bloofi_node_read_lookup(index, meta, meta->root, root, hdr);
	if (!(root->flags & BLOOFI_NODE_SATURATED) && !bloofi_node_is_sparse(root))
	{
		st->nodes_checked++;
		if (!bloofi_value_passes(index, root, pos, npos))
		{
			ReleaseBuffer(*hdr);
			return false;
		}
	}
	return true;
}

/*
 * Search the tree for leaves having all npos positions (sorted, distinct)
 * set; cb(tid, exact) for each match, exact when the leaf's column is its
 * filter's bits (bloofi_node_exact) and the TIDs' page has not changed
 * since the node's header was read, before the AND: a slot that VACUUM
 * emptied and an insert filled meanwhile changes that page, so a TID read
 * there may belong to a leaf the AND did not test.  st counts the filters
 * checked (the root's value unless its SATURATED hint says testing it would
 * prune little or it is SPARSE, then the live children of every bit-sliced
 * node visited, the list entries read in SPARSE ones), the matches and the
 * leaves of the bottom nodes visited.  With st->max_nodes > 0 the search
 * stops before opening more nodes than that (st->truncated; st->matches is
 * then a lower bound).
 */
void
bloofi_search(Relation index, const BloofiMetaData *meta,
			  const uint32 *pos, uint32 npos,
			  BloofiMatchCallback cb, void *arg, BloofiSearchStats *st)
{
	BlockNumber *stack;
	uint32		nstack = 0,
				stackcap = 64;
	uint64	   *acc = NULL;
	uint32		acc_words = 0;
	BloofiNode	root;
	Buffer		roothdr;
	bool		have_root = true;	/* the first visit is the root's, read here */
	BloofiSparseScratch sc;
	uint64		misses = bloofi_recent_miss_count();

	/* was the lookup before this one (in this backend) partly cold? */
	static bool last_cold = true;

	if (!bloofi_root_passes(index, meta, pos, npos, st, &root, &roothdr))
		return;
	memset(&sc, 0, sizeof(sc));
	stack = palloc(sizeof(BlockNumber) * stackcap);
	stack[nstack++] = meta->root;
	while (nstack > 0)
	{
		BloofiNode	X;
		Buffer		hdr;
		Buffer		buf = InvalidBuffer;
		uint32		cur = InvalidBlockNumber;
		uint32		pushed;
		bool		matched;
		bool		node_exact;
		bool		page_exact = false;
		MatchIter	it;
		uint32		slot;

		CHECK_FOR_INTERRUPTS();
		if (st->max_nodes > 0 && st->nodes_opened >= st->max_nodes)
		{
			st->truncated = true;
			break;
		}
		st->nodes_opened++;
		if (have_root)
		{
			/* (its header read before its value's test: an older LSN only widens a check) */
			X = root;
			hdr = roothdr;
			have_root = false;
			nstack--;
		}
		else
			bloofi_node_read_lookup(index, meta, stack[--nstack], &X, &hdr);
		if (X.level == 0)
			st->leaves_seen += X.nlive;
		if (acc_words < X.geom.slice_words)
		{
			acc_words = X.geom.slice_words;
			acc = acc ? repalloc(acc, acc_words * sizeof(uint64)) : palloc(acc_words * sizeof(uint64));
		}
		matched = bloofi_node_match(index, &X, pos, npos, acc, &st->nodes_checked, &sc);
		if (bloofi_visit_delay > 0 && X.level > 0)
			bloofi_dev_sleep(bloofi_visit_delay);	/* (a test sees it waits here) */
		if (!matched)
		{
			if (X.level == 0)
				ReleaseBuffer(hdr);
			else if (bloofi_visit_changed(index, &X, hdr, InvalidBlockNumber))
				stack[nstack++] = X.start;	/* (where it was popped from) */
			continue;
		}
		/* TID page 0 is the header page, pinned since the header was read */
		LockBuffer(hdr, BUFFER_LOCK_SHARE);
		buf = hdr;
		cur = 0;

		/* the children of the matching slots, one tid page at a time */
		pushed = nstack;
		node_exact = X.level == 0 && bloofi_node_exact(meta, &X);
		page_exact = node_exact && BufferGetLSNAtomic(buf) <= X.lsn;
		match_iter_init(&it, &X, acc, bloofi_node_is_sparse(&X) && npos > 0 ? &sc : NULL);
		while (match_next(&it, &slot))
		{
			uint32		tp = slot / X.geom.tids_per_page;
			ItemPointerData tid;

			if (tp != cur)
			{
				tid = ((const ItemPointerData *)
					   bloofi_walk_page(index, X.start, tp, &buf, &cur))[slot % X.geom.tids_per_page];
				page_exact = node_exact && BufferGetLSNAtomic(buf) <= X.lsn;
			}
			else
				tid = ((const ItemPointerData *)
					   PageGetContents(BufferGetPage(buf)))[slot % X.geom.tids_per_page];
			if (!ItemPointerIsValid(&tid))
				continue;
			if (X.level > 0)
			{
				if (nstack == stackcap)
				{
					stackcap *= 2;
					stack = repalloc(stack, sizeof(BlockNumber) * stackcap);
				}
				stack[nstack++] = ItemPointerGetBlockNumber(&tid);
			}
			else
			{
				st->matches++;
				if (cb)
					cb(&tid, page_exact, arg);	/* must not take buffer locks */
			}
		}
		if (X.level == 0)
			UnlockReleaseBuffer(buf);
		else if (bloofi_visit_changed(index, &X, buf, cur))
		{
			/* the children pushed from a view across a switch are dropped */
			nstack = pushed;
			stack[nstack++] = X.start;
			continue;
		}
		if (last_cold && nstack - pushed >= 2)
			bloofi_prefetch_children(index, meta, stack + pushed, nstack - pushed, pos, npos);
	}
	if (have_root)
		ReleaseBuffer(roothdr); /* (stopped before its visit) */
	last_cold = bloofi_recent_miss_count() != misses;
	bloofi_sparse_scratch_free(&sc);
	pfree(stack);
	if (acc)
		pfree(acc);
}

/*
 * bloofi_count_key: the entries of the pending list, then of the tree,
 * whose filters pass key (k positions under the index's hasher h), counted
 * into st as a lookup finds them and each passed to cb (when not NULL);
 * *meta (palloc'd) is read again between the two unless both its chains
 * were empty, as a scan does (a flush may have moved the pending entries
 * into the tree meanwhile; with none, the root read with them will do).
 * bloofi_probe and the planner's probe count this way.
 */
void
bloofi_count_key(Relation index, BloofiMetaData **meta, const BsHasher *h, uint32 k,
				 BsKey key, BloofiMatchCallback cb, void *arg, BloofiSearchStats *st)
{
	uint32		pos[BS_MAX_K];
	uint32		npos;

	bs_key_positions(h, key, pos);
	npos = bloofi_sort_positions(pos, k);
	bloofi_pending_search(index, *meta, pos, npos, cb, arg, st);
	/* a fresh root unless both chains were empty (as bloofi_getbitmap) */
	if ((*meta)->pending_head != InvalidBlockNumber ||
		(*meta)->flushing_head != InvalidBlockNumber)
	{
		pfree(*meta);
		*meta = bloofi_read_meta(index);
	}
	bloofi_search(index, *meta, pos, npos, cb, arg, st);
}
