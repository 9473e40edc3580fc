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

/*
 * Pages the SPARSE node of the n children (tids[i], filters[i]; an invalid
 * tid is an empty slot) takes, with its set bits in *nentries.
 */
uint32
bloofi_sparse_pages_for(uint32 m, uint32 n, const ItemPointerData *tids,
						const uint8 *const *filters, uint64 *nentries)
{
	uint64		count = 0;
	uint64		bytes;

	for (uint32 i = 0; i < n; i++)
		if (ItemPointerIsValid(&tids[i]))
			count += bloofi_sparse_count(m, 1, &filters[i]);
	*nentries = count;
	bytes = bloofi_sparse_bytes(m, count);
	return (uint32) Min((bytes + BLOOFI_PAGE_BYTES - 1) / BLOOFI_PAGE_BYTES, (uint64) PG_UINT32_MAX);
}

/*
 * The stream of the n children (as bloofi_sparse_pages_for counted them),
 * npages * BLOOFI_PAGE_BYTES bytes, zero-padded; its length in *len.
 */
uint8 *
bloofi_sparse_encode_node(uint32 m, uint32 cap, uint32 n, const ItemPointerData *tids,
						  const uint8 *const *filters, uint64 nentries, uint32 npages,
						  uint64 *len)
{
	const uint8 **fp = palloc(sizeof(uint8 *) * Max(n, 1));
	uint32	   *counts = palloc_extended(sizeof(uint32) * ((Size) m + 1), MCXT_ALLOC_HUGE);
	uint8	   *stream = palloc_extended((Size) npages * BLOOFI_PAGE_BYTES,
										 MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);

	Assert(cap <= BLOOFI_SPARSE_MAX_CAP);
	for (uint32 i = 0; i < n; i++)
		fp[i] = ItemPointerIsValid(&tids[i]) ? filters[i] : NULL;
	bloofi_sparse_encode(stream, m, cap, npages, n, fp, counts);
	*len = bloofi_sparse_bytes(m, nentries);
	pfree(fp);
	pfree(counts);
	return stream;
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

/* the whole stream of SPARSE node, checked (index_corrupted when damaged) */
uint8 *
bloofi_sparse_load(Relation index, const BloofiNode *node)
{
	uint64		len = (uint64) node->sparse_pages * BLOOFI_PAGE_BYTES;
	uint8	   *stream = palloc_extended(len, MCXT_ALLOC_HUGE);
	const char *err;

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
			r->buf = ReadBuffer(r->index, blk);
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

/*
 * The lookup in SPARSE node: acc (geom.slice_words words) gets the slots
 * among the first nused whose lists hold every position; false when none.
 * Reads the header, two offsets and one list per position (stopping when
 * the intersection is empty); *entries (when not NULL) is increased by the
 * list entries read: the filters this lookup examined (a filter in no list
 * read is never looked at).
 */
bool
bloofi_sparse_match(Relation index, const BloofiNode *node, const uint32 *pos, uint32 npos,
					uint64 *acc, uint64 *entries)
{
	SparseReader r = {index, node, InvalidBuffer, PG_UINT32_MAX};
	BloofiSparseHeader h;
	uint16	   *res = NULL;
	uint16	   *list = NULL;
	uint32		nres = 0;

	memset(acc, 0, sizeof(uint64) * node->geom.slice_words);
	sparse_read(&r, 0, sizeof(h), (uint8 *) &h);
	if (h.m != node->geom.m || h.nentries > (uint64) node->cap * h.m)
		BLOOFI_NODE_CORRUPT(index, node->start, "Its sparse slices' header is damaged.");
	for (uint32 i = 0; i < npos && (i == 0 || nres > 0); i++)
	{
		uint32		off[2];
		uint32		n;

		sparse_read(&r, bloofi_sparse_offset_pos(pos[i]), sizeof(off), (uint8 *) off);
		if (off[1] < off[0] || off[1] > h.nentries || off[1] - off[0] > node->cap)
			BLOOFI_NODE_CORRUPT(index, node->start,
								"The list of position %u of its sparse slices is [%u, %u) of %u entries.",
								pos[i], off[0], off[1], h.nentries);
		n = off[1] - off[0];
		if (entries)
			*entries += n;
		if (res == NULL)
		{
			res = palloc(sizeof(uint16) * Max(node->cap, 1));
			list = palloc(sizeof(uint16) * Max(node->cap, 1));
		}
		sparse_read(&r, bloofi_sparse_entry_pos(h.m, off[0]), (uint64) n * 2,
					(uint8 *) (i == 0 ? res : list));
		if (!bloofi_sparse_list_ok(i == 0 ? res : list, n, node->cap))
			BLOOFI_NODE_CORRUPT(index, node->start,
								"The list of position %u of its sparse slices is not increasing.",
								pos[i]);
		nres = i == 0 ? n : bloofi_sparse_intersect(res, nres, list, n);
	}
	if (BufferIsValid(r.buf))
		UnlockReleaseBuffer(r.buf);
	if (npos == 0)
		bloofi_acc_init(acc, node->geom.slice_words, node->nused);
	for (uint32 i = 0; i < nres; i++)
		if (res[i] < node->nused)
			acc[res[i] / 64] |= UINT64CONST(1) << (res[i] % 64);
	if (res)
	{
		pfree(res);
		pfree(list);
	}
	for (uint32 w = 0; w < node->geom.slice_words; w++)
		if (acc[w])
			return true;
	return false;
}
