/*
 * bloofi_node_write.c
 *    Writing whole new Bloofi nodes: a node's image laid out on its pages
 *    (TID pages, value pages, then dense slices or a SPARSE node's stream),
 *    in the form asked or the smaller one, from rows of filters or, for a
 *    SPARSE bottom node, from its lists (an insert's rebuilt stream); the
 *    two halves of a split.
 *
 * New nodes (splits, growth, merges, repacks, compaction, the build) are
 * written whole, in pages that bloofi_freespace_alloc gives (free pages of
 * the map or the end of the file), before anything points to them; the
 * caller then switches them in with one record (bloofi_node.c).  Design
 * notes: docs/bloofi.md.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "bloofi.h"
#include "bloofi_sparse.h"
#include "bloofi_tree.h"

/* a new node's contents, as bloofi_node_write lays them out on its pages */
typedef struct NodeImage
{
	BloofiGeometry geom;
	BlockNumber start;			/* its first block */
	uint16		level;
	uint32		cap;
	uint32		n;				/* slots 0..n-1 written */
	uint32		nlive;			/* of which hold a child */
	const ItemPointerData *tids;
	const uint8 *const *filters;
	const uint8 *value;			/* the OR of the filters */
	const uint8 *sparse;		/* SPARSE: the lists' stream (NULL: dense) */
	uint64		sparse_len;
} NodeImage;

static void node_image_write(Relation index, const BloofiMetaData *meta, NodeImage *img,
							 bool wal);

/* fill page p (relative to the node's first block) of the node img */
static void
bloofi_node_fill_page(const BloofiMetaData *meta, const NodeImage *img, uint32 p, Page page)
{
	const BloofiGeometry *geom = &img->geom;
	uint8	   *data = (uint8 *) PageGetContents(page);

	if (p < geom->tid_pages)
	{
		uint32		first = p * geom->tids_per_page;
		uint32		cnt = first < img->n ? Min(geom->tids_per_page, img->n - first) : 0;

		bloofi_init_page(page, BLOOFI_PAGE_TID, img->start, BLOOFI_PAGE_BYTES);
		memset(data, 0, BLOOFI_PAGE_BYTES);
		if (cnt > 0)
			memcpy(data, img->tids + first, (size_t) cnt * sizeof(ItemPointerData));
		if (p == 0)
		{
			BloofiPageOpaque op = BloofiPageGetOpaque(page);

			op->cap = img->cap;
			op->nused = img->n;
			op->nlive = img->nlive;
			op->level = img->level;
			if (bloofi_value_saturated(img->value, meta->m, meta->k))
				op->flags |= BLOOFI_NODE_SATURATED;
			if (img->sparse)
				op->flags |= BLOOFI_NODE_SPARSE;
		}
	}
	else if (p < geom->tid_pages + geom->value_pages)
	{
		uint32		sp = p - geom->tid_pages;
		uint32		bytes = bloofi_value_page_bytes(geom, sp);

		bloofi_init_page(page, BLOOFI_PAGE_VALUE, img->start, bytes);
		memcpy(data, img->value + (size_t) sp * geom->value_bytes_per_page, bytes);
	}
	else if (img->sparse)
		bloofi_sparse_fill_page(img->sparse, img->sparse_len,
								p - geom->tid_pages - geom->value_pages, img->start, page);
	else
	{
		uint32		sp = p - geom->tid_pages - geom->value_pages;
		uint32		j0 = bloofi_slice_page_first(geom, sp);
		uint32		cnt = bloofi_slice_page_count(geom, sp);

		bloofi_init_page(page, BLOOFI_PAGE_SLICE, img->start, BLOOFI_PAGE_BYTES);
		memset(data, 0, BLOOFI_PAGE_BYTES);
		for (uint32 i = 0; i < img->n; i++)
			if (ItemPointerIsValid(&img->tids[i]))
				bloofi_set_column(data, geom->slice_bytes, j0, cnt, img->filters[i], i);
	}
}

/*
 * Write a new node of `cap` slots at `level` holding the n children tids[i]
 * with values filters[i] (slots 0..n-1; an invalid tid leaves its slot
 * free), and return its first block; its value (OR of the filters) is left
 * in value_out when not NULL.  With wal, the pages come from the free-page
 * map or the end of the file (bloofi_freespace_alloc: under a NEW intent until
 * the record that links the node), and every page is logged as a full
 * image; without (CREATE INDEX), they are appended and the caller logs the
 * whole relation at the end.  A bottom node of an index of version 3 takes
 * the smaller form (BLOOFI_FORM_CHOOSE), as the bulk build writes it: the
 * copies that inserts and VACUUM make (growths, halves of splits, merges)
 * stay as compact as a fresh build.
 */
BlockNumber
bloofi_node_write(Relation index, const BloofiMetaData *meta, uint16 level, uint32 cap,
				  uint32 n, const ItemPointerData *tids, const uint8 *const *filters,
				  uint8 *value_out, bool wal)
{
	return bloofi_node_write_form(index, meta, level, cap, n, tids, filters, value_out, wal,
								  level == 0 && meta->version >= 3 ?
								  BLOOFI_FORM_CHOOSE : BLOOFI_FORM_DENSE);
}

/*
 * bloofi_node_write, in the given form (BLOOFI_FORM_*) when level is 0:
 * dense, SPARSE, or SPARSE when its lists take fewer pages than dense
 * slices (a SPARSE node is never changed in place, see bloofi.h).
 */
BlockNumber
bloofi_node_write_form(Relation index, const BloofiMetaData *meta, uint16 level, uint32 cap,
					   uint32 n, const ItemPointerData *tids, const uint8 *const *filters,
					   uint8 *value_out, bool wal, int form)
{
	NodeImage	img;
	uint8	   *value;

	if (!bloofi_geometry(&img.geom, meta->m, cap, BLOOFI_PAGE_BYTES) || n > cap)
		elog(ERROR, "bloofi: invalid node geometry m=%u cap=%u n=%u", meta->m, cap, n);
	img.start = InvalidBlockNumber;
	img.level = level;
	img.cap = cap;
	img.n = n;
	img.nlive = 0;
	img.tids = tids;
	img.filters = filters;
	value = palloc0(img.geom.filter_bytes);
	for (uint32 i = 0; i < n; i++)
		if (ItemPointerIsValid(&tids[i]))
		{
			bs_or(value, filters[i], img.geom.filter_bytes / 8);
			img.nlive++;
		}
	img.value = value;
	img.sparse = NULL;
	img.sparse_len = 0;

	/*
	 * A bottom node of more than 2d leaves with an unsaturated value exists
	 * only SPARSE (a wide node of small sparse filters): its copies stay so.
	 * A saturated one (the no-split rule) takes the smaller form, in an
	 * index of version 3 (one of version 2 never gets a SPARSE node).
	 */
	if (level == 0 && img.nlive > 2 * meta->order)
	{
		if (!bloofi_value_saturated(value, meta->m, meta->k))
			form = BLOOFI_FORM_SPARSE;
		else if (form == BLOOFI_FORM_DENSE && meta->version >= 3)
			form = BLOOFI_FORM_CHOOSE;
	}
	if (form != BLOOFI_FORM_DENSE && level == 0 && cap <= BLOOFI_SPARSE_MAX_CAP)
	{
		uint32		npages,
					direct_pages;
		uint64		len;
		uint8	   *stream = bloofi_sparse_encode_node(meta->m, cap, n, tids, filters, &len,
													   &npages, &direct_pages);

		if (form == BLOOFI_FORM_SPARSE || direct_pages < img.geom.slice_pages)
		{
			img.sparse = stream;
			img.sparse_len = len;
			img.geom.total_pages = img.geom.tid_pages + img.geom.value_pages + npages;
		}
		else
			pfree(stream);
	}

	node_image_write(index, meta, &img, wal);
	if (value_out)
		memcpy(value_out, value, img.geom.filter_bytes);
	pfree(value);
	if (img.sparse)
		pfree((uint8 *) img.sparse);
	return img.start;
}

/*
 * Write the pages of node image img: at pages from the free-page map or the
 * end of the file with wal (full images), else appended; sets img->start.
 */
static void
node_image_write(Relation index, const BloofiMetaData *meta, NodeImage *img, bool wal)
{
	BloofiWal	w;

	if (wal)
	{
		img->start = bloofi_freespace_alloc(index, img->geom.total_pages);
		bloofi_wal_begin(&w, index);
	}
	for (uint32 p = 0; p < img->geom.total_pages; p++)
	{
		Buffer		buf;

		if ((p & 63) == 0)
			CHECK_FOR_INTERRUPTS();
		if (wal)
		{
			buf = ReadBuffer(index, img->start + p);
			LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		}
		else
		{
			buf = bloofi_new_buffer(index);
			if (p == 0)
				img->start = BufferGetBlockNumber(buf);
			else if (BufferGetBlockNumber(buf) != img->start + p)
				elog(ERROR, "bloofi: index \"%s\" was extended concurrently",
					 RelationGetRelationName(index));
		}
		bloofi_node_fill_page(meta, img, p,
							  wal ? bloofi_wal_page(&w, buf, false, GENERIC_XLOG_FULL_IMAGE) :
							  BufferGetPage(buf));
		if (!wal)
		{
			MarkBufferDirty(buf);
			UnlockReleaseBuffer(buf);
		}
	}
	if (wal)
		bloofi_wal_flush(&w);
}

/*
 * Write a new SPARSE bottom node of cap slots from its lists: the direct
 * stream v1 (validated or built here; its slots below n), with the TIDs of
 * slots 0..n-1 (an invalid one: a free slot, whose lists must be empty).
 * Its value is the set of positions whose list is not empty, left in
 * value_out when not NULL; written in the smaller of the stream's two
 * forms, WAL-logged with wal (else appended, as bloofi_node_write does for
 * the build).  Memory: the stream's, not one row per slot.
 */
BlockNumber
bloofi_node_write_lists(Relation index, const BloofiMetaData *meta, uint32 cap, uint32 n,
						const ItemPointerData *tids, const uint8 *v1, uint8 *value_out, bool wal)
{
	NodeImage	img;
	uint8	   *value;
	uint32		npages,
				direct_pages;

	if (!bloofi_geometry(&img.geom, meta->m, cap, BLOOFI_PAGE_BYTES) || n > cap ||
		cap > BLOOFI_SPARSE_MAX_CAP)
		elog(ERROR, "bloofi: invalid node geometry m=%u cap=%u n=%u", meta->m, cap, n);
	img.start = InvalidBlockNumber;
	img.level = 0;
	img.cap = cap;
	img.n = n;
	img.nlive = 0;
	img.tids = tids;
	img.filters = NULL;
	for (uint32 i = 0; i < n; i++)
		if (ItemPointerIsValid(&tids[i]))
			img.nlive++;
	value = palloc0(img.geom.filter_bytes);
	bloofi_sparse_value(v1, value);
	img.value = value;
	img.sparse = bloofi_sparse_pack(v1, &img.sparse_len, &npages, &direct_pages);
	img.geom.total_pages = img.geom.tid_pages + img.geom.value_pages + npages;
	node_image_write(index, meta, &img, wal);
	if (value_out)
		memcpy(value_out, value, img.geom.filter_bytes);
	pfree(value);
	pfree((uint8 *) img.sparse);
	return img.start;
}

/*
 * Write the n children (tids[i], values vals[i]) of a node at `level` as two
 * new nodes (a split, or VACUUM's redistribution): the paper's split choice
 * (similar children together, each side at least min(d, n/2)) up to
 * BLOOFI_SPLIT_CHOICE_MAX children; above that (a wide, saturated node, whose
 * halves prune nothing anyway) halves in slot order, which keep what the
 * build's similarity sort put together, in linear time.  Each new node gets
 * room to grow to twice its children.  Fills news[] and newvals[] (values of
 * the new nodes, caller-allocated).
 */
void
bloofi_node_write_halves(Relation index, const BloofiMetaData *meta, uint16 level,
						 int n, const ItemPointerData *tids, const uint8 *const *vals,
						 BlockNumber *news, uint8 *const *newvals)
{
	size_t		nwords = bs_words_for_bits(meta->m);
	uint8	   *side = palloc(n);
	ItemPointerData *st[2];
	const uint8 **sv[2];
	int			cnt[2] = {0, 0};

	if (n <= BLOOFI_SPLIT_CHOICE_MAX)
	{
		uint64	   *scratch = palloc(sizeof(uint64) * 2 * nwords);

		bloofi_tree_split_choice(vals, n, Min((int) meta->order, n / 2), nwords, side, scratch);
		pfree(scratch);
	}
	else
		for (int i = 0; i < n; i++)
			side[i] = i >= n / 2;
	for (int s = 0; s < 2; s++)
	{
		st[s] = palloc(sizeof(ItemPointerData) * n);
		sv[s] = palloc(sizeof(uint8 *) * n);
	}
	for (int i = 0; i < n; i++)
	{
		st[side[i]][cnt[side[i]]] = tids[i];
		sv[side[i]][cnt[side[i]]++] = vals[i];
	}
	for (int s = 0; s < 2; s++)
	{
		uint32		cap = bloofi_node_cap(meta->order, 2 * (uint64) cnt[s]);

		news[s] = bloofi_node_write(index, meta, level, cap, cnt[s], st[s], sv[s], newvals[s], true);
		pfree(st[s]);
		pfree(sv[s]);
	}
	pfree(side);
}

static uint8 *node_direct_stream(Relation index, const BloofiMetaData *meta,
								 const BloofiNode *X, const ItemPointerData *tids);

/*
 * Copy the live leaves of the bottom nodes srcs[0..nsrc), in that order and
 * in slot order, into nnew new SPARSE nodes as lists (bloofi_sparse_gather),
 * never as rows of filters: one node of cap slots (a growth, a repack, a
 * merge), or (nnew 2) two halves in that order, each with room to grow to
 * twice its leaves (a split, VACUUM's redistribution; the order is what the
 * build's similarity sort put together, as bloofi_node_write_halves cuts
 * wide nodes).  A dense source is encoded first.  Fills news[] and
 * newvals[] (caller-allocated values); returns the leaves copied.  Memory:
 * the sources' lists and the new ones, whatever m is.
 */
int
bloofi_node_write_gathered(Relation index, const BloofiMetaData *meta, int nsrc,
						   const BloofiNode *srcs, int nnew, uint32 cap,
						   BlockNumber *news, uint8 *const *newvals)
{
	ItemPointerData **stids = palloc(sizeof(ItemPointerData *) * nsrc);
	uint8	  **v1 = palloc(sizeof(uint8 *) * nsrc);
	uint32	  **maps = palloc(sizeof(uint32 *) * nsrc);
	uint32		total = 0;
	uint32		cut;
	uint32	   *counts = palloc_extended(sizeof(uint32) * ((Size) meta->m + 1), MCXT_ALLOC_HUGE);

	Assert(nnew == 1 || nnew == 2);
	for (int i = 0; i < nsrc; i++)
	{
		stids[i] = palloc(sizeof(ItemPointerData) * Max(srcs[i].nused, 1));
		bloofi_node_read_tids(index, &srcs[i], srcs[i].nused, stids[i]);
		v1[i] = node_direct_stream(index, meta, &srcs[i], stids[i]);
		maps[i] = palloc(sizeof(uint32) * Max(srcs[i].cap, 1));
		for (uint32 s = 0; s < srcs[i].nused; s++)
			total += ItemPointerIsValid(&stids[i][s]);
	}
	cut = nnew == 1 ? total : total / 2;
	for (int o = 0; o < nnew; o++)
	{
		uint32		lo = o == 0 ? 0 : cut;
		uint32		hi = o == 0 ? cut : total;
		uint32		ocap = nnew == 1 ? cap : bloofi_node_cap(meta->order, 2 * (uint64) (hi - lo));
		ItemPointerData *otids = palloc(sizeof(ItemPointerData) * Max(hi - lo, 1));
		uint32		rank = 0;
		uint64		nentries;
		uint8	   *out;

		if (hi - lo > ocap || ocap > BLOOFI_SPARSE_MAX_CAP)
			elog(ERROR, "bloofi: %u leaves do not fit a sparse node of %u slots", hi - lo, ocap);
		for (int i = 0; i < nsrc; i++)
			for (uint32 s = 0; s < srcs[i].cap; s++)
			{
				maps[i][s] = BLOOFI_SPARSE_DROP;
				if (s >= srcs[i].nused || !ItemPointerIsValid(&stids[i][s]))
					continue;
				if (rank >= lo && rank < hi)
				{
					maps[i][s] = rank - lo;
					otids[rank - lo] = stids[i][s];
				}
				rank++;
			}
		if (!bloofi_sparse_gather_count((uint32) nsrc, (const uint8 *const *) v1,
										(const uint32 *const *) maps, ocap, &nentries) ||
			nentries > PG_UINT32_MAX)
			elog(ERROR, "bloofi: cannot gather the lists of %d sparse nodes", nsrc);
		out = palloc_extended(bloofi_sparse_bytes(meta->m, nentries), MCXT_ALLOC_HUGE);
		bloofi_sparse_gather((uint32) nsrc, (const uint8 *const *) v1,
							 (const uint32 *const *) maps, ocap, 0, out, counts);
		CHECK_FOR_INTERRUPTS();
		news[o] = bloofi_node_write_lists(index, meta, ocap, hi - lo, otids, out, newvals[o],
										  true);
		pfree(out);
		pfree(otids);
	}
	for (int i = 0; i < nsrc; i++)
	{
		pfree(stids[i]);
		pfree(v1[i]);
		pfree(maps[i]);
	}
	pfree(stids);
	pfree(v1);
	pfree(maps);
	pfree(counts);
	return (int) total;
}

/*
 * The direct stream of bottom node X (tids its slots' TIDs): its lists when
 * SPARSE, else its live leaves' columns encoded (a dense bottom node's rows
 * fit in memory: bloofi_effective_leaf_cap bounds them).
 */
static uint8 *
node_direct_stream(Relation index, const BloofiMetaData *meta, const BloofiNode *X,
				   const ItemPointerData *tids)
{
	uint32		fbytes = X->geom.filter_bytes;
	bool	   *want;
	uint8	   *rows;
	const uint8 **fp;
	uint32	   *counts;
	uint64		nentries;
	uint8	   *v1;

	if (bloofi_node_is_sparse(X))
		return bloofi_sparse_load(index, X);
	want = palloc0(sizeof(bool) * Max(X->nused, 1));
	rows = palloc_extended((Size) Max(X->nused, 1) * fbytes, MCXT_ALLOC_HUGE);
	fp = palloc(sizeof(uint8 *) * Max(X->nused, 1));
	for (uint32 s = 0; s < X->nused; s++)
		want[s] = ItemPointerIsValid(&tids[s]);
	bloofi_node_read_columns(index, X, X->nused, want, rows);
	for (uint32 s = 0; s < X->nused; s++)
		fp[s] = want[s] ? rows + (size_t) s * fbytes : NULL;
	pfree(want);
	nentries = bloofi_sparse_count(meta->m, X->nused, fp);
	if (nentries > PG_UINT32_MAX)
		elog(ERROR, "bloofi: a sparse node of %llu set bits", (unsigned long long) nentries);
	counts = palloc_extended(sizeof(uint32) * ((Size) meta->m + 1), MCXT_ALLOC_HUGE);
	v1 = palloc_extended(bloofi_sparse_bytes(meta->m, nentries), MCXT_ALLOC_HUGE);
	bloofi_sparse_encode(v1, meta->m, X->cap, 0, X->nused, fp, counts);
	pfree(counts);
	pfree(rows);
	pfree(fp);
	return v1;
}
