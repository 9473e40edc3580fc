/*
 * bloofi_sparse_pages.c
 *    The pages of SPARSE Bloofi bottom nodes: the glue between the sparse
 *    form of a node's slices (src/core/bloofi_sparse.c: lists position ->
 *    slots, one byte stream) and the node's sparse pages, which hold that
 *    stream page after page.  Sizing and writing (for bloofi_node_write_form),
 *    loading and checking a whole stream (check, VACUUM, splits), dense
 *    slice images for the code that works on slices, and the lookup: the
 *    intersection of the lists of an element's positions, reading only the
 *    pages that hold them.
 *
 * It sits just above bloofi_utils.c (pages and checks, and the page count
 * of a sparse node, which reading a node's header needs) and calls only
 * down, into it and the core.  Every read checks the page's kind and node, and every length and offset
 * read from a page before it is used: a damaged node is an index_corrupted
 * error, never an out-of-bounds read.  Design notes: docs/bloofi.md.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "bloofi.h"
#include "bloofi_sparse.h"
#include "bloofi_sparse_listed.h"

/* the fences the stream's first page holds after the LISTED header */
#define BLOOFI_LISTED_FENCE_ROOM ((BLOOFI_PAGE_BYTES - BLOOFI_LISTED_HEADER_BYTES) / 8)
/*
 * the fence room asked of the encoder: 0 (the default cut) unless the
 * developer setting is on.  The default cut is the faster one: on a node of
 * 20,000 leaves at m = 433,039 (13 fence pages) a lookup took 33 µs against
 * 57 µs with blocks cut for one fence page (scanning ~210 lists a position
 * costs more than reading a fence page; docs/bloofi.md)
 */
#define LISTED_FENCE_ROOM (bloofi_listed_fence_page ? BLOOFI_LISTED_FENCE_ROOM : 0)

/*
 * The direct stream v1 (valid, complete) in its smaller form, direct or
 * LISTED (core/bloofi_sparse_listed.h), as the node's sparse pages hold it:
 * npages * BLOOFI_PAGE_BYTES bytes, zero-padded, npages in its header; its
 * length in *len and its page count in *npages, and in *direct_pages the
 * pages of the direct form (what decides whether a node is SPARSE at all:
 * the LISTED form only makes SPARSE nodes smaller, it does not turn the
 * paper's dense nodes into SPARSE ones, whose inserts rewrite them).
 */
uint8 *
bloofi_sparse_pack(const uint8 *v1, uint64 *len, uint32 *npages, uint32 *direct_pages)
{
	BloofiSparseHeader h;
	uint64		direct,
				listed;
	uint8	   *stream;

	memcpy(&h, v1, sizeof(h));
	direct = bloofi_sparse_bytes(h.m, h.nentries);
	listed = bloofi_listed_bytes(v1, LISTED_FENCE_ROOM);
	*direct_pages = (uint32) Min((direct + BLOOFI_PAGE_BYTES - 1) / BLOOFI_PAGE_BYTES,
								 (uint64) PG_UINT32_MAX);
	*len = Min(direct, listed);
	if (*len > PG_UINT32_MAX)
		elog(ERROR, "bloofi: a sparse node of %llu bytes", (unsigned long long) *len);
	*npages = (uint32) ((*len + BLOOFI_PAGE_BYTES - 1) / BLOOFI_PAGE_BYTES);
	stream = palloc_extended((Size) *npages * BLOOFI_PAGE_BYTES,
							 MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	if (listed < direct)
		bloofi_listed_encode(v1, stream, *npages, LISTED_FENCE_ROOM);
	else
	{
		memcpy(stream, v1, direct);
		h.npages = *npages;
		memcpy(stream, &h, sizeof(h));
	}
	return stream;
}

/*
 * The stream of the SPARSE node of the n children (tids[i], filters[i]; an
 * invalid tid is an empty slot), as bloofi_sparse_pack returns it.
 */
uint8 *
bloofi_sparse_encode_node(uint32 m, uint32 cap, uint32 n, const ItemPointerData *tids,
						  const uint8 *const *filters, uint64 *len, uint32 *npages,
						  uint32 *direct_pages)
{
	const uint8 **fp = palloc(sizeof(uint8 *) * Max(n, 1));
	uint32	   *counts = palloc_extended(sizeof(uint32) * ((Size) m + 1), MCXT_ALLOC_HUGE);
	uint64		nentries;
	uint8	   *v1;
	uint8	   *stream;

	Assert(cap <= BLOOFI_SPARSE_MAX_CAP);
	for (uint32 i = 0; i < n; i++)
		fp[i] = ItemPointerIsValid(&tids[i]) ? filters[i] : NULL;
	nentries = bloofi_sparse_count(m, n, fp);
	if (nentries > PG_UINT32_MAX)
		elog(ERROR, "bloofi: a sparse node of %llu set bits", (unsigned long long) nentries);
	v1 = palloc_extended(bloofi_sparse_bytes(m, nentries), MCXT_ALLOC_HUGE);
	bloofi_sparse_encode(v1, m, cap, 0, n, fp, counts);
	pfree(fp);
	pfree(counts);
	stream = bloofi_sparse_pack(v1, len, npages, direct_pages);
	pfree(v1);
	return stream;
}

/* the value of the node of the valid direct stream v1: its non-empty lists' positions, ORed into value */
void
bloofi_sparse_value(const uint8 *v1, uint8 *value)
{
	BloofiSparseHeader h;
	uint32		prev;

	memcpy(&h, v1, sizeof(h));
	memcpy(&prev, v1 + bloofi_sparse_offset_pos(0), 4);
	for (uint32 j = 0; j < h.m; j++)
	{
		uint32		next;

		memcpy(&next, v1 + bloofi_sparse_offset_pos(j + 1), 4);
		if (next > prev)
			value[j / 8] |= (uint8) (1u << (j % 8));
		prev = next;
	}
}

/*
 * The direct stream of SPARSE bottom node B (v1, loaded; tids its slots'
 * TIDs, the new leaves' already in their slots) with the n new leaves
 * filters[i] (nwords words) in slots[i]: its live leaves' lists but in the
 * slots the new leaves take (a reused slot's lists may still hold the bits
 * of its dead leaf), a dead leaf's bits dropped, the new leaves' positions
 * added (bloofi_sparse_rebuild).  Memory and work follow the set bits.
 */
uint8 *
bloofi_sparse_relist(const uint8 *v1, const BloofiNode *B, const ItemPointerData *tids, int n,
					 const uint32 *slots, const uint8 *const *filters, uint32 nwords)
{
	uint64	   *keep = palloc0(sizeof(uint64) * B->geom.slice_words);
	uint32	   *order = palloc(sizeof(uint32) * Max(n, 1));
	uint32	   *nslots = palloc(sizeof(uint32) * Max(n, 1));
	uint32	  **pos = palloc(sizeof(uint32 *) * Max(n, 1));
	uint32	   *npos = palloc(sizeof(uint32) * Max(n, 1));
	uint32	   *counts;
	uint16	   *scratch;
	uint64		nentries;
	uint8	   *out;
	int			nput = 0;

	for (uint32 s = 0; s < B->nused; s++)
		if (ItemPointerIsValid(&tids[s]))
			keep[s / 64] |= UINT64CONST(1) << (s % 64);
	for (int i = 0; i < n; i++)
	{
		if (slots[i] >= B->nused)
			continue;
		keep[slots[i] / 64] &= ~(UINT64CONST(1) << (slots[i] % 64));
		nslots[nput] = slots[i];
		pos[nput] = palloc(sizeof(uint32) * Max(bs_popcount(filters[i], nwords), 1));
		npos[nput] = (uint32) bs_set_positions(filters[i], nwords, pos[nput]);
		nput++;
	}
	/* the new leaves by increasing slot (insertion sort: a batch is small) */
	for (int i = 0; i < nput; i++)
	{
		int			j = i;

		while (j > 0 && nslots[order[j - 1]] > nslots[i])
		{
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
	nentries = bloofi_sparse_rebuild_count(v1, keep, nput, npos);
	if (nentries > PG_UINT32_MAX)
		elog(ERROR, "bloofi: a sparse node of %llu set bits", (unsigned long long) nentries);
	out = palloc_extended(bloofi_sparse_bytes(B->geom.m, nentries), MCXT_ALLOC_HUGE);
	counts = palloc_extended(sizeof(uint32) * ((Size) B->geom.m + 1), MCXT_ALLOC_HUGE);
	scratch = palloc(sizeof(uint16) * Max(B->cap, 1));
	bloofi_sparse_rebuild(v1, keep, nput, order, nslots, (const uint32 *const *) pos, npos, 0,
						  out, counts, scratch);
	for (int i = 0; i < nput; i++)
		pfree(pos[i]);
	pfree(pos);
	pfree(npos);
	pfree(nslots);
	pfree(order);
	pfree(keep);
	pfree(counts);
	pfree(scratch);
	return out;
}

/* page p of a node's sparse pages, from the stream (len bytes) */
void
bloofi_sparse_fill_page(const uint8 *stream, uint64 len, uint32 p, BlockNumber start, Page page)
{
	uint64		off = (uint64) p * BLOOFI_PAGE_BYTES;
	uint64		cnt = off < len ? Min((uint64) BLOOFI_PAGE_BYTES, len - off) : 0;
	uint8	   *data = (uint8 *) PageGetContents(page);

	bloofi_init_page(page, BLOOFI_PAGE_SPARSE, start, BLOOFI_PAGE_BYTES);
	memset(data, 0, BLOOFI_PAGE_BYTES);
	if (cnt > 0)
		memcpy(data, stream + off, cnt);
}

/*
 * The whole stream of SPARSE node, checked (index_corrupted when damaged),
 * in the direct form: a LISTED one is decoded (its direct form takes
 * 4 (m + 1) + 2 per set bit bytes of memory: the code that needs the whole
 * node works on dense slices or rows anyway).
 */
uint8 *
bloofi_sparse_load(Relation index, const BloofiNode *node)
{
	uint64		len = (uint64) node->sparse_pages * BLOOFI_PAGE_BYTES;
	uint8	   *stream = palloc_extended(len, MCXT_ALLOC_HUGE);
	const char *err;
	BloofiSparseHeader h;

	for (uint32 p = 0; p < node->sparse_pages; p++)
	{
		BlockNumber blk = bloofi_sparse_block(node, p);
		Buffer		buf = ReadBuffer(index, blk);

		if ((p & 63) == 0)
			CHECK_FOR_INTERRUPTS();
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		bloofi_check_page(index, BufferGetPage(buf), blk, BLOOFI_PAGE_SPARSE, node->start);
		memcpy(stream + (uint64) p * BLOOFI_PAGE_BYTES, PageGetContents(BufferGetPage(buf)),
			   BLOOFI_PAGE_BYTES);
		UnlockReleaseBuffer(buf);
	}
	memcpy(&h, stream, sizeof(h));
	if (h.magic == BLOOFI_LISTED_MAGIC)
	{
		uint8	   *v1;

		err = bloofi_listed_validate(stream, len, node->geom.m, node->cap);
		if (err)
			BLOOFI_NODE_CORRUPT(index, node->start, "%s.", err);
		v1 = palloc_extended(bloofi_sparse_bytes(h.m, h.nentries), MCXT_ALLOC_HUGE);
		bloofi_listed_decode(stream, v1);
		pfree(stream);
		return v1;
	}
	err = bloofi_sparse_validate(stream, len, node->geom.m, node->cap);
	if (err)
		BLOOFI_NODE_CORRUPT(index, node->start, "%s.", err);
	return stream;
}

/* dense slice page sp of SPARSE node, from its loaded stream, into page (BLOOFI_PAGE_BYTES) */
void
bloofi_sparse_slice_page(const BloofiNode *node, const uint8 *stream, uint32 sp, uint8 *page)
{
	memset(page, 0, BLOOFI_PAGE_BYTES);
	bloofi_sparse_slices(stream, bloofi_slice_page_first(&node->geom, sp),
						 bloofi_slice_page_count(&node->geom, sp), node->geom.slice_bytes, page);
}

/* a reader of the stream's bytes over the node's pages, one page locked at a time */
typedef struct SparseReader
{
	Relation	index;
	const BloofiNode *node;
	Buffer		buf;
	uint32		cur;
} SparseReader;

/* copy bytes [off, off + len) of the stream into out */
static void
sparse_read(SparseReader *r, uint64 off, uint64 len, uint8 *out)
{
	while (len > 0)
	{
		uint64		p = off / BLOOFI_PAGE_BYTES;
		uint32		in = (uint32) (off % BLOOFI_PAGE_BYTES);
		uint32		cnt = (uint32) Min(len, (uint64) (BLOOFI_PAGE_BYTES - in));

		if (p >= r->node->sparse_pages)
			BLOOFI_NODE_CORRUPT(r->index, r->node->start,
								"A list of its sparse slices runs past its %u pages.",
								r->node->sparse_pages);
		if (p != r->cur)
		{
			BlockNumber blk = bloofi_sparse_block(r->node, (uint32) p);

			if (BufferIsValid(r->buf))
				UnlockReleaseBuffer(r->buf);
			r->buf = bloofi_read_recent(r->index, blk);
			LockBuffer(r->buf, BUFFER_LOCK_SHARE);
			bloofi_check_page(r->index, BufferGetPage(r->buf), blk, BLOOFI_PAGE_SPARSE,
							  r->node->start);
			r->cur = (uint32) p;
		}
		memcpy(out, (const uint8 *) PageGetContents(BufferGetPage(r->buf)) + in, cnt);
		out += cnt;
		off += cnt;
		len -= cnt;
	}
}

/* the header of a node's stream as a lookup reads it, either form */
typedef struct SparseHead
{
	BloofiListedHeader h;		/* (h.base only, for the direct form) */
	bool		listed;
	uint32	   *fences;			/* LISTED: the fences, 2 words each, each
								 * page's read when first needed (in the
								 * scratch) */
	uint8	   *loaded;			/* LISTED: which of those pages are read */
	BloofiSparseScratch *sc;	/* buffers, kept for the whole scan */
} SparseHead;

/* *buf has room for at least need bytes (grown in sc's lifetime context) */
static void
scratch_reserve(uint8 **buf, uint32 *cap, Size need)
{
	if (need <= *cap)
		return;
	need = Max(need, (Size) 2 * *cap);
	if (*buf)
		pfree(*buf);
	*buf = palloc_extended(need, MCXT_ALLOC_HUGE);
	*cap = (uint32) need;
}

/* the first fence whose bytes start on stream page p (nblocks: none) */
static uint32
fence_page_first(uint32 p, uint32 nblocks)
{
	uint64		at = (uint64) p * BLOOFI_PAGE_BYTES;
	uint64		f0 = bloofi_listed_fence_pos(0);

	if (at <= f0)
		return 0;
	return (uint32) Min((at - f0 + 7) / 8, (uint64) nblocks);
}

/* the fences whose bytes start on stream page p, read into sh->fences once per node */
static void
fence_page_load(SparseReader *r, SparseHead *sh, uint32 p, uint32 *a, uint32 *b)
{
	*a = fence_page_first(p, sh->h.nblocks);
	*b = fence_page_first(p + 1, sh->h.nblocks);
	if (!sh->loaded[p] && *b > *a)
		sparse_read(r, bloofi_listed_fence_pos(*a), (uint64) 8 * (*b - *a),
					(uint8 *) (sh->fences + 2 * (uint64) *a));
	sh->loaded[p] = 1;
}

/*
 * The last block whose first position is <= pos (-1: none), reading only
 * the fence pages it needs: the page that a uniform spread of the
 * positions (they are hash values) puts pos on first, then its neighbours
 * while the answer lies beyond, then a binary search within the page.
 * Pages read stay in sh->fences for the node's other positions.
 */
static int64
fence_find(SparseReader *r, SparseHead *sh, uint32 pos)
{
	uint32		n = sh->h.nblocks;
	uint32		p = (uint32) (bloofi_listed_fence_pos((uint32) ((uint64) pos * n / sh->h.base.m)) /
							  BLOOFI_PAGE_BYTES);
	uint32		last = (uint32) (bloofi_listed_fence_pos(n - 1) / BLOOFI_PAGE_BYTES);

	p = Min(p, last);
	for (;;)
	{
		uint32		a,
					b,
					lo,
					hi;

		CHECK_FOR_INTERRUPTS();
		fence_page_load(r, sh, p, &a, &b);
		if (a == b)				/* (8-byte fences: every page up to last has one) */
			elog(ERROR, "bloofi: no fence starts on page %u of node %u", p, r->node->start);
		if (sh->fences[2 * a] > pos)
		{
			/* the answer lies on an earlier page */
			if (a == 0)
				return -1;
			p--;
			continue;
		}
		if (b < n && sh->fences[2 * (b - 1)] <= pos)
		{
			uint32		a2,
						b2;

			fence_page_load(r, sh, p + 1, &a2, &b2);
			if (sh->fences[2 * b] <= pos)
			{
				p++;
				continue;
			}
			return b - 1;
		}
		lo = a;
		hi = b;
		while (hi - lo > 1)
		{
			uint32		mid = lo + (hi - lo) / 2;

			if (sh->fences[2 * mid] <= pos)
				lo = mid;
			else
				hi = mid;
		}
		return lo;
	}
}

/*
 * The list of position pos of the stream read by r, in either form, into
 * out (room for cap slots); its length.  Checked as it is read.
 */
static uint32
sparse_list(SparseReader *r, SparseHead *sh, uint32 pos, uint16 *out)
{
	const BloofiNode *node = r->node;
	uint32		n = 0;

	if (!sh->listed)
	{
		uint32		off[2];

		sparse_read(r, bloofi_sparse_offset_pos(pos), sizeof(off), (uint8 *) off);
		if (off[1] < off[0] || off[1] > sh->h.base.nentries || off[1] - off[0] > node->cap)
			BLOOFI_NODE_CORRUPT(r->index, node->start,
								"The list of position %u of its sparse slices is [%u, %u) of %u entries.",
								pos, off[0], off[1], sh->h.base.nentries);
		n = off[1] - off[0];
		sparse_read(r, bloofi_sparse_entry_pos(sh->h.base.m, off[0]), (uint64) n * 2,
					(uint8 *) out);
	}
	else
	{
		/* the last block whose first position is <= pos */
		int64		blk;
		uint32		lo,
					start,
					end;
		int			r2;

		if (sh->h.nblocks == 0 || (blk = fence_find(r, sh, pos)) < 0)
			return 0;
		lo = (uint32) blk;
		if (lo + 1 < sh->h.nblocks && !sh->loaded[(bloofi_listed_fence_pos(lo + 1)) / BLOOFI_PAGE_BYTES])
		{
			uint32		a,
						b;

			fence_page_load(r, sh, (uint32) (bloofi_listed_fence_pos(lo + 1) / BLOOFI_PAGE_BYTES),
							&a, &b);
		}
		start = sh->fences[2 * lo + 1];
		end = lo + 1 < sh->h.nblocks ? sh->fences[2 * lo + 3] : sh->h.datalen;
		if (end <= start || end > sh->h.datalen)
			BLOOFI_NODE_CORRUPT(r->index, node->start,
								"Block %u of its sparse slices is [%u, %u) of %u bytes.",
								lo, start, end, sh->h.datalen);
		scratch_reserve(&sh->sc->block, &sh->sc->block_cap, end - start);
		sparse_read(r, bloofi_listed_data_pos(sh->h.nblocks) + start, end - start,
					sh->sc->block);
		r2 = bloofi_listed_block_find(sh->sc->block, end - start, sh->fences[2 * lo], pos,
									  sh->h.base.m, node->cap, out, &n);
		if (r2 < 0)
			BLOOFI_NODE_CORRUPT(r->index, node->start,
								"Block %u of its sparse slices is damaged.", lo);
		if (r2 == 0)
			n = 0;
	}
	if (!bloofi_sparse_list_ok(out, n, node->cap))
		BLOOFI_NODE_CORRUPT(r->index, node->start,
							"The list of position %u of its sparse slices is not increasing.",
							pos);
	return n;
}

/*
 * The lookup in SPARSE node: acc (geom.slice_words words) gets the slots
 * among the first nused whose lists hold every position; false when none.
 * Reads the stream's header once, then one list per position (two offsets
 * in the direct form; in the LISTED form the fence page where the spread
 * of the positions puts it, each fence page read at most once per node,
 * then one block), stopping when
 * the intersection is empty; the positions are sorted, so lists on the same
 * page share one buffer pin.  *entries (when not NULL) is increased by the
 * list entries read: the filters this lookup examined (a filter in no list
 * read is never looked at).  sc holds the buffers across the nodes of a
 * scan (NULL: local ones, freed here).  A node read by
 * bloofi_node_read_lookup (sparse_pages 0: not known yet) gets its page count
 * from the header read here, checked as bloofi_node_read checks it.
 */
bool
bloofi_sparse_match(Relation index, const BloofiNode *node, const uint32 *pos, uint32 npos,
					uint64 *acc, uint64 *entries, BloofiSparseScratch *sc)
{
	BloofiNode	nd = *node;
	SparseReader r = {index, &nd, InvalidBuffer, PG_UINT32_MAX};
	SparseHead	sh;
	BloofiSparseScratch local;
	uint16	   *res;
	uint16	   *list;
	uint32		nres = 0;
	Size		lists = sizeof(uint16) * Max(node->cap, 1);

	if (sc == NULL)
	{
		memset(&local, 0, sizeof(local));
		sc = &local;
	}
	memset(acc, 0, sizeof(uint64) * node->geom.slice_words);
	memset(&sh, 0, sizeof(sh));
	sh.sc = sc;
	/* the whole LISTED header in one read (the direct one is a prefix of it) */
	if (nd.sparse_pages == 0)
		nd.sparse_pages = 1;	/* the header's page, until the header says */
	sparse_read(&r, 0, Min(sizeof(sh.h), (uint64) nd.sparse_pages * BLOOFI_PAGE_BYTES),
				(uint8 *) &sh.h);
	if (node->sparse_pages == 0)
	{
		nd.sparse_pages = bloofi_sparse_head_pages(index, node->geom.m, node, &sh.h);
		nd.geom.total_pages = nd.geom.tid_pages + nd.geom.value_pages + nd.sparse_pages;
	}
	node = &nd;
	sh.listed = sh.h.base.magic == BLOOFI_LISTED_MAGIC;
	if (sh.h.base.m != node->geom.m || sh.h.base.nentries > (uint64) node->cap * sh.h.base.m ||
		(sh.listed && (bloofi_listed_total(&sh.h) >
					   (uint64) node->sparse_pages * BLOOFI_PAGE_BYTES ||
					   sh.h.nblocks > sh.h.base.m)))
		BLOOFI_NODE_CORRUPT(index, node->start, "Its sparse slices' header is damaged.");
	if (sh.listed && sh.h.nblocks > 0 && npos > 0)
	{
		uint32		fpages = (uint32) ((bloofi_listed_fence_pos(sh.h.nblocks) - 1) /
									   BLOOFI_PAGE_BYTES) + 1;

		scratch_reserve(&sc->fences, &sc->fences_cap, (Size) 8 * sh.h.nblocks + fpages);
		sh.fences = (uint32 *) sc->fences;
		sh.loaded = sc->fences + (Size) 8 * sh.h.nblocks;
		memset(sh.loaded, 0, fpages);
	}
	scratch_reserve(&sc->lists, &sc->lists_cap, 2 * lists);
	res = (uint16 *) sc->lists;
	list = (uint16 *) (sc->lists + lists);
	for (uint32 i = 0; i < npos && (i == 0 || nres > 0); i++)
	{
		uint32		n;

		n = sparse_list(&r, &sh, pos[i], i == 0 ? res : list);
		if (entries)
			*entries += n;
		nres = i == 0 ? n : bloofi_sparse_intersect(res, nres, list, n);
	}
	if (BufferIsValid(r.buf))
		UnlockReleaseBuffer(r.buf);
	if (npos == 0)
		bloofi_acc_init(acc, node->geom.slice_words, node->nused);
	for (uint32 i = 0; i < nres; i++)
		if (res[i] < node->nused)
			acc[res[i] / 64] |= UINT64CONST(1) << (res[i] % 64);
	if (sc == &local)
		bloofi_sparse_scratch_free(sc);
	for (uint32 w = 0; w < node->geom.slice_words; w++)
		if (acc[w])
			return true;
	return false;
}

/* free what sc's buffers hold (sc itself is the caller's) */
void
bloofi_sparse_scratch_free(BloofiSparseScratch *sc)
{
	if (sc->lists)
		pfree(sc->lists);
	if (sc->block)
		pfree(sc->block);
	if (sc->fences)
		pfree(sc->fences);
	memset(sc, 0, sizeof(*sc));
}
