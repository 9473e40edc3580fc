/*
 * bst_image.c
 *    Flat, position-independent images of BloomSampleTrees: writing one from
 *    a built tree, and opening one in place as a read-only tree.  See
 *    bst_image.h.
 */
#include <string.h>

#include "bst_image.h"

#define IMAGE_MAGIC		UINT64_C(0x31474d49545342ff)	/* "\xffBSTIMG1" */
#define IMAGE_ALIGN		64

typedef struct ImageHeader
{
	uint64_t	magic;
	uint32_t	version;
	uint32_t	header_bytes;	/* sizeof(ImageHeader) */
	uint32_t	node_bytes;		/* sizeof(BstNode) */
	uint32_t	namelen;
	uint64_t	total_bytes;
	int64_t		generation;
	BsParams	p;
	int32_t		kind;
	int32_t		depth;
	int32_t		leaf_bits;
	int32_t		root_bits;
	int32_t		nnodes;
	int32_t		root;
	int32_t		has_index;
	int32_t		pad;
	int64_t		lo;
	int64_t		hi;
	int64_t		leaf_size;
	uint64_t	nids;			/* stored ids (pruned trees) */
	uint64_t	nentries;		/* index entries */
	uint64_t	off_name;
	uint64_t	off_nodes;
	uint64_t	off_bits;
	uint64_t	off_ids;
	uint64_t	off_start;
	uint64_t	off_entries;
	uint32_t	entry_bits;		/* bits of an index entry */
	uint32_t	entry_off_bits; /* ... of which the id's offset */
} ImageHeader;

/* x rounded up to a multiple of IMAGE_ALIGN (where each array of an image starts) */
static uint64_t
align_up(uint64_t x)
{
	return (x + IMAGE_ALIGN - 1) & ~(uint64_t) (IMAGE_ALIGN - 1);
}

/* the header of t's image: counts and section offsets */
static void
layout(const BstTree *t, size_t namelen, int64_t generation, ImageHeader *h)
{
	uint64_t	o;

	memset(h, 0, sizeof(*h));
	h->magic = IMAGE_MAGIC;
	h->version = BST_IMAGE_VERSION;
	h->header_bytes = sizeof(ImageHeader);
	h->node_bytes = sizeof(BstNode);
	h->namelen = (uint32_t) namelen;
	h->generation = generation;
	h->p = t->p;
	h->kind = (int32_t) t->kind;
	h->depth = t->depth;
	h->leaf_bits = t->leaf_bits;
	h->root_bits = t->root_bits;
	h->nnodes = t->nnodes;
	h->root = t->root;
	h->has_index = t->index != NULL;
	h->lo = t->lo;
	h->hi = t->hi;
	h->leaf_size = t->leaf_size;
	h->nids = t->ids ? (uint64_t) t->nids : 0;
	h->nentries = t->index ? t->index->nentries : 0;
	o = align_up(sizeof(ImageHeader));
	h->off_name = o;
	o = align_up(o + namelen + 1);
	h->off_nodes = o;
	o = align_up(o + (uint64_t) t->nnodes * sizeof(BstNode));
	h->off_bits = o;
	o = align_up(o + (uint64_t) t->nnodes * t->nbytes);
	h->off_ids = o;
	o = align_up(o + h->nids * sizeof(int64_t));
	h->off_start = o;
	if (h->has_index)
		o = align_up(o + ((uint64_t) t->p.m + 1) * sizeof(uint32_t));
	h->off_entries = o;
	if (h->has_index)
	{
		h->entry_bits = bst_index_entry_bits(h->nentries, t->p.m, &h->entry_off_bits);
		o = align_up(o + bst_index_words(h->nentries, t->p.m) * sizeof(uint64_t));
	}
	h->total_bytes = o;
}

uint64_t
bst_image_bytes(const BstTree *t, size_t namelen)
{
	ImageHeader h;

	layout(t, namelen, 0, &h);
	return h.total_bytes;
}

/* write len bytes, then zeros up to offset `to` (*pos tracks the offset) */
static int
put(BstImageWriteFn write, void *ctx, uint64_t *pos, const void *buf, uint64_t len,
	uint64_t to)
{
	static const uint8_t zeros[IMAGE_ALIGN];
	const uint8_t *b = buf;

	/* in slices, so that a writer need not take gigabytes in one call */
	while (len > 0)
	{
		size_t		n = len > (UINT64_C(1) << 26) ? (size_t) 1 << 26 : (size_t) len;

		if (write(ctx, b, n) != 0)
			return BST_EIO;
		b += n;
		len -= n;
		*pos += n;
		BST_CHECK_INTERRUPTS();
	}
	while (*pos < to)
	{
		size_t		n = to - *pos > IMAGE_ALIGN ? IMAGE_ALIGN : (size_t) (to - *pos);

		if (write(ctx, zeros, n) != 0)
			return BST_EIO;
		*pos += n;
	}
	return BST_OK;
}

int
bst_image_write(const BstTree *t, const char *name, int64_t generation,
				BstImageWriteFn write, void *ctx)
{
	ImageHeader h;
	uint64_t	pos = 0;
	size_t		namelen = strlen(name);
	int			rc;

	layout(t, namelen, generation, &h);
	if ((rc = put(write, ctx, &pos, &h, sizeof(h), h.off_name)) != BST_OK ||
		(rc = put(write, ctx, &pos, name, namelen + 1, h.off_nodes)) != BST_OK ||
		(rc = put(write, ctx, &pos, t->nodes, (uint64_t) t->nnodes * sizeof(BstNode),
				  h.off_bits)) != BST_OK ||
		(rc = put(write, ctx, &pos, t->bits, (uint64_t) t->nnodes * t->nbytes,
				  h.off_ids)) != BST_OK ||
		(rc = put(write, ctx, &pos, t->ids, h.nids * sizeof(int64_t), h.off_start)) != BST_OK)
		return rc;
	if (h.has_index &&
		((rc = put(write, ctx, &pos, t->index->start, ((uint64_t) t->p.m + 1) * sizeof(uint32_t),
				   h.off_entries)) != BST_OK ||
		 (rc = put(write, ctx, &pos, t->index->entries,
				   bst_index_words(h.nentries, t->p.m) * sizeof(uint64_t),
				   h.total_bytes)) != BST_OK))
		return rc;
	return put(write, ctx, &pos, NULL, 0, h.total_bytes);
}

/* do the m + 1 bucket starts ascend from 0 to n (every entry read in bounds)? */
static bool
starts_valid(const uint32_t *start, uint32_t m, uint64_t n)
{
	if (start[0] != 0 || start[m] != n)
		return false;
	for (uint32_t p = 0; p < m; p++)
		if (start[p + 1] < start[p])
			return false;
	return true;
}

int
bst_image_open(const void *base, size_t len, const char *name, int64_t generation,
			   const BstAlloc *alloc, BstMappedTree *out)
{
	const uint8_t *b = base;
	ImageHeader h;
	ImageHeader expect;
	BstTree    *t = &out->tree;
	size_t		namelen = strlen(name);

	if (len < sizeof(ImageHeader))
		return BST_EIMAGE;
	memcpy(&h, b, sizeof(h));
	if (h.magic != IMAGE_MAGIC || h.version != BST_IMAGE_VERSION ||
		h.header_bytes != sizeof(ImageHeader) || h.node_bytes != sizeof(BstNode) ||
		h.total_bytes != len || h.generation != generation || h.namelen != namelen ||
		h.off_name + namelen + 1 > len ||
		memcmp(b + h.off_name, name, namelen + 1) != 0)
		return BST_EIMAGE;
	if (h.p.m < BS_MIN_M || h.p.m > BS_MAX_M || h.p.k < BS_MIN_K || h.p.k > BS_MAX_K ||
		h.nnodes < 0 || h.root < -1 || h.root >= h.nnodes ||
		(h.kind != BST_KIND_FULL && h.kind != BST_KIND_PRUNED) ||
		(h.kind == BST_KIND_FULL && h.nids != 0) ||
		(h.kind == BST_KIND_FULL && (uint64_t) (h.hi - h.lo) > UINT32_MAX) ||
		h.nentries > UINT32_MAX)
		return BST_EIMAGE;
	/* rebuild the layout from the counts: every offset must agree */
	memset(out, 0, sizeof(*out));
	t->kind = (BstKind) h.kind;
	t->p = h.p;
	bs_hasher_init(&t->hasher, &t->p);
	t->nwords = bs_words_for_bits(t->p.m);
	t->nbytes = 8 * t->nwords;
	t->nnodes = h.nnodes;
	t->nids = (size_t) h.nids;
	t->ids = h.kind == BST_KIND_PRUNED ? (int64_t *) (b + h.off_ids) : NULL;
	t->index = h.has_index ? &out->index : NULL;
	out->index.nentries = h.nentries;
	layout(t, namelen, generation, &expect);
	if (expect.off_nodes != h.off_nodes || expect.off_bits != h.off_bits ||
		expect.off_ids != h.off_ids || expect.off_start != h.off_start ||
		expect.off_entries != h.off_entries || expect.entry_bits != h.entry_bits ||
		expect.entry_off_bits != h.entry_off_bits ||
		expect.total_bytes != h.total_bytes ||
		(h.has_index && h.nentries != (h.kind == BST_KIND_FULL ?
									   (uint64_t) (h.hi - h.lo) : h.nids)))
	{
		memset(out, 0, sizeof(*out));
		return BST_EIMAGE;
	}
	t->lo = h.lo;
	t->hi = h.hi;
	t->depth = h.depth;
	t->leaf_size = h.leaf_size;
	t->leaf_bits = h.leaf_bits;
	t->root_bits = h.root_bits;
	t->cap_nodes = h.nnodes;
	t->root = h.root;
	t->nodes = (BstNode *) (b + h.off_nodes);
	t->bits = (uint8_t *) (b + h.off_bits);
	t->cap_ids = t->nids;
	if (h.has_index)
	{
		/* the widths were checked against the layout's above */
		bst_index_set_shape(&out->index, h.nentries, t->p.m);
		out->index.start = (uint32_t *) (b + h.off_start);
		out->index.entries = (uint64_t *) (b + h.off_entries);
		if (!starts_valid(out->index.start, t->p.m, h.nentries))
		{
			memset(out, 0, sizeof(*out));
			return BST_EIMAGE;
		}
		out->index.max_bucket = bst_index_max_bucket(out->index.start, t->p.m);
	}
	t->alloc = *alloc;
	return BST_OK;
}

void
bst_image_close(BstMappedTree *mt)
{
	BstTree    *t = &mt->tree;

	if (t->index && t->index != &mt->index)
	{
		t->alloc.free(t->alloc.ctx, t->index->start);
		t->alloc.free(t->alloc.ctx, t->index->entries);
		t->alloc.free(t->alloc.ctx, t->index);
	}
	t->index = NULL;
}
