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

/* the contents of the stream's page p, locked in r (read first if r holds another) */
static const uint8 *
sparse_page(SparseReader *r, uint64 p)
{
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
	return (const uint8 *) PageGetContents(BufferGetPage(r->buf));
}

/* copy bytes [off, off + len) of the stream into out */
static void
sparse_read(SparseReader *r, uint64 off, uint64 len, uint8 *out)
{
	while (len > 0)
	{
		uint64		p = off / BLOOFI_PAGE_BYTES;
		uint32		in = (uint32) (off % BLOOFI_PAGE_BYTES);
		uint32		cnt = (uint32) Min(len, (uint64) (BLOOFI_PAGE_BYTES - in));

		memcpy(out, sparse_page(r, p) + in, cnt);
		out += cnt;
		off += cnt;
		len -= cnt;
	}
}

/*
 * Bytes [off, off + len) of the stream in place, in the page r holds locked
 * (read first if it is another), when they lie on one page; else NULL (the
 * caller copies them with sparse_read).  Valid until r moves.
 */
static const uint8 *
sparse_span(SparseReader *r, uint64 off, uint64 len)
{
	uint32		in = (uint32) (off % BLOOFI_PAGE_BYTES);

	if (len == 0 || in + len > BLOOFI_PAGE_BYTES)
		return NULL;
	return sparse_page(r, off / BLOOFI_PAGE_BYTES) + in;
}

/* the header of a node's stream as a lookup reads it, either form */
typedef struct SparseHead
{
	BloofiListedHeader h;		/* (h.base only, for the direct form) */
	bool		listed;
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

/* word w of LISTED fence b (0: its block's first position, 1: the block's data offset) */
static uint32
fence_word(SparseReader *r, uint32 b, uint32 w)
{
	uint32		v;

	sparse_read(r, bloofi_listed_fence_pos(b) + 4 * w, sizeof(v), (uint8 *) &v);
	return v;
}

/* the first fence whose bytes start on stream page p (nblocks: none) */
static uint32
fence_page_first(uint64 p, uint32 nblocks)
{
	uint64		at = p * BLOOFI_PAGE_BYTES;
	uint64		f0 = bloofi_listed_fence_pos(0);

	if (at <= f0)
		return 0;
	return (uint32) Min((at - f0 + 7) / 8, (uint64) nblocks);
}

/*
 * The last block whose first position is <= pos (-1: none).  The fences
 * are searched where they lie, in the page r holds locked, with plain loads
 * (8-byte fences after a 40-byte header never straddle a page): the page
 * of the fence where a uniform spread of the positions puts pos (they are
 * hash values), a neighbour only when the answer lies beyond; in the page a
 * galloping search from that fence (a guess is off by ~a dozen fences,
 * whose cache lines are requested together first), then a binary search.
 * Fences out of order (a damaged node) only give a wrong block, which its
 * decoding rejects.
 */
static int64
fence_find(SparseReader *r, const SparseHead *sh, uint32 pos)
{
	uint32		n = sh->h.nblocks;
	uint32		g = (uint32) Min((uint64) pos * n / sh->h.base.m, (uint64) n - 1);
	uint64		p = bloofi_listed_fence_pos(g) / BLOOFI_PAGE_BYTES;

	for (;;)
	{
		uint32		a = fence_page_first(p, n),
					b = fence_page_first(p + 1, n),
					lo,
					hi,
					step = 1;
		const uint32 *f;		/* fence i's first position: f[2 * (i - a)] */

		CHECK_FOR_INTERRUPTS();
		if (a >= b)
			elog(ERROR, "bloofi: no fence starts on page %u of node %u", (uint32) p,
				 r->node->start);
		f = (const uint32 *) (sparse_page(r, p) +
							  (bloofi_listed_fence_pos(a) - p * BLOOFI_PAGE_BYTES));
		if (f[0] > pos)
		{
			if (a == 0)
				return -1;
			p--;				/* the answer lies on an earlier page */
			g = a - 1;
			continue;
		}
		if (b < n && f[2 * (b - 1 - a)] <= pos)
		{
			/* the answer is b - 1 unless fence b (next page) is <= pos too */
			if (fence_word(r, b, 0) > pos)
				return b - 1;
			p++;
			g = b;
			continue;
		}
		/* f[a] <= pos < fence b: in this page */
		g = Max(Min(g, b - 1), a);
		for (uint32 i = g > a + 16 ? g - 16 : a; i < Min(g + 17, b); i += 8)
			__builtin_prefetch(&f[2 * (i - a)]);
		if (f[2 * (g - a)] <= pos)
		{
			for (lo = g, hi = b; hi - lo > step && f[2 * (lo + step - a)] <= pos; step *= 2)
				lo += step;
			hi = Min(hi, lo + step);
		}
		else
		{
			for (hi = g, lo = a; hi - lo > step && f[2 * (hi - step - a)] > pos; step *= 2)
				hi -= step;
			lo = Max(lo, hi - step);
		}
		while (hi - lo > 1)
		{
			uint32		mid = lo + (hi - lo) / 2;

			if (f[2 * (mid - a)] <= pos)
				lo = mid;
			else
				hi = mid;
		}
		return lo;
	}
}

/*
 * The list of position pos of the stream read by r, in either form, into
 * the scratch buffer *buf (of *bufcap bytes, grown to what the list may
 * take: its length in the direct form, a byte an entry of its block in the
 * LISTED one, never the node's capacity); its length.  Checked as it is
 * read.
 */
static uint32
sparse_list(SparseReader *r, SparseHead *sh, uint32 pos, uint8 **buf, uint32 *bufcap)
{
	const BloofiNode *node = r->node;
	uint32		n = 0;
	uint16	   *out;

	if (!sh->listed)
	{
		uint32		off[2];

		sparse_read(r, bloofi_sparse_offset_pos(pos), sizeof(off), (uint8 *) off);
		if (off[1] < off[0] || off[1] > sh->h.base.nentries || off[1] - off[0] > node->cap)
			BLOOFI_NODE_CORRUPT(r->index, node->start,
								"The list of position %u of its sparse slices is [%u, %u) of %u entries.",
								pos, off[0], off[1], sh->h.base.nentries);
		n = off[1] - off[0];
		scratch_reserve(buf, bufcap, sizeof(uint16) * Max(n, 1));
		out = (uint16 *) *buf;
		sparse_read(r, bloofi_sparse_entry_pos(sh->h.base.m, off[0]), (uint64) n * 2,
					(uint8 *) out);
	}
	else
	{
		/* the last block whose first position is <= pos */
		int64		blk;
		uint32		lo,
					first,
					start,
					end;
		const uint8 *data;
		int			r2;

		if (sh->h.nblocks == 0 || (blk = fence_find(r, sh, pos)) < 0)
			return 0;
		lo = (uint32) blk;
		first = fence_word(r, lo, 0);
		start = fence_word(r, lo, 1);
		end = lo + 1 < sh->h.nblocks ? fence_word(r, lo + 1, 1) : sh->h.datalen;
		if (end <= start || end > sh->h.datalen)
			BLOOFI_NODE_CORRUPT(r->index, node->start,
								"Block %u of its sparse slices is [%u, %u) of %u bytes.",
								lo, start, end, sh->h.datalen);
		/* the block in its page (most are on one), else copied */
		data = sparse_span(r, bloofi_listed_data_pos(sh->h.nblocks) + start, end - start);
		if (data == NULL)
		{
			scratch_reserve(&sh->sc->block, &sh->sc->block_cap, end - start);
			sparse_read(r, bloofi_listed_data_pos(sh->h.nblocks) + start, end - start,
						sh->sc->block);
			data = sh->sc->block;
		}
		/* (each entry takes a byte at least: the block's length bounds the list) */
		scratch_reserve(buf, bufcap, sizeof(uint16) * (end - start));
		out = (uint16 *) *buf;
		r2 = bloofi_listed_block_find(data, end - start, first, pos,
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
 * The lookup in SPARSE node: acc (geom.slice_words words; NULL: not
 * wanted, only with npos > 0) gets the slots among the first nused whose
 * lists hold every position; false when none.
 * Reads the stream's header once, then one list per position (two offsets
 * in the direct form; in the LISTED form a search of the fences from where
 * the spread of the positions puts it, then one block), stopping when the
 * intersection is empty; the positions are sorted, so lists on the same
 * page share one buffer pin.  *entries (when not NULL) is increased by the
 * list entries read: the filters this lookup examined (a filter in no list
 * read is never looked at).  sc holds the buffers across the nodes of a
 * scan (NULL: local ones, freed here), and after the call the matching
 * slots as a list (sc->nres of them at the start of sc->lists, increasing,
 * some maybe at or above nused; none when npos is 0).  A node read by
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
	uint16	   *res = NULL;
	uint32		nres = 0;
	bool		any = false;

	if (sc == NULL)
	{
		memset(&local, 0, sizeof(local));
		sc = &local;
	}
	if (acc)
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
	for (uint32 i = 0; i < npos && (i == 0 || nres > 0); i++)
	{
		uint32		n;

		if (i == 0)
			n = sparse_list(&r, &sh, pos[i], &sc->lists, &sc->lists_cap);
		else
			n = sparse_list(&r, &sh, pos[i], &sc->list2, &sc->list2_cap);
		if (entries)
			*entries += n;
		res = (uint16 *) sc->lists;
		nres = i == 0 ? n : bloofi_sparse_intersect(res, nres, (const uint16 *) sc->list2, n);
	}
	if (BufferIsValid(r.buf))
		UnlockReleaseBuffer(r.buf);
	if (npos == 0)
	{
		Assert(acc != NULL);
		bloofi_acc_init(acc, node->geom.slice_words, node->nused);
		any = node->nused > 0;
	}
	for (uint32 i = 0; i < nres; i++)
		if (res[i] < node->nused)
		{
			any = true;
			if (acc)
				acc[res[i] / 64] |= UINT64CONST(1) << (res[i] % 64);
		}
	sc->nres = npos > 0 ? nres : 0;
	if (sc == &local)
		bloofi_sparse_scratch_free(sc);
	return any;
}

/* free what sc's buffers hold (sc itself is the caller's) */
void
bloofi_sparse_scratch_free(BloofiSparseScratch *sc)
{
	if (sc->lists)
		pfree(sc->lists);
	if (sc->list2)
		pfree(sc->list2);
	if (sc->block)
		pfree(sc->block);
	memset(sc, 0, sizeof(*sc));
}
