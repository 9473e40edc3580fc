/*
 * bloofi_pending_group.c
 *    Reading the pending list's groups of parts: a filter whose entry would
 *    exceed a page is stored as consecutive entries of its TID, each a
 *    sparse encoding of a run of its positions, all but the last flagged
 *    BLOOFI_PENDING_PART (written by bloofi_pending.c's
 *    bloofi_pending_insert_parts).  The chain's reader passes every entry
 *    here in chain order; a single entry goes to the visitor as it is, a
 *    group's parts are copied until its last part and then go to the
 *    visitor as one entry of nparts opened parts.
 *
 * Design notes: docs/bloofi.md ("Filters larger than a page").
 */
#include "postgres.h"

#include "bloofi.h"

/*
 * Open the sparse encoding enc (len bytes) of an m-bit filter, from block
 * blk (InvalidBlockNumber: a flush's copy), or fail as index_corrupted.
 */
void
bloofi_pending_open(Relation index, BlockNumber blk, const uint8 *enc, uint32 len, uint32 m,
					BsSparse *s)
{
	BsSparseError err = bs_sparse_open(enc, len, m, s);

	if (err != BS_SPARSE_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" has a damaged pending entry in block %u: %s",
						RelationGetRelationName(index), blk, bs_sparse_error_string(err))));
}

/* the parts of a group read so far, their encodings copied */
struct BloofiPendingGroup
{
	ItemPointerData tid;
	int			nparts;
	int			cap;
	Size	   *off;
	uint32	   *len;
	BsSparse   *parts;
	uint8	   *arena;
	Size		used;
	Size		arena_cap;
};

/* part e joins group g (its first part starts it) */
static void
bloofi_pending_group_add(BloofiPendingGroup *g, const BloofiPendingEntry *e)
{
	if (g->nparts == g->cap)
	{
		g->cap = Max(8, 2 * g->cap);
		g->off = g->off ? repalloc(g->off, sizeof(Size) * g->cap) : palloc(sizeof(Size) * g->cap);
		g->len = g->len ? repalloc(g->len, sizeof(uint32) * g->cap) : palloc(sizeof(uint32) * g->cap);
		g->parts = g->parts ? repalloc(g->parts, sizeof(BsSparse) * g->cap) :
			palloc(sizeof(BsSparse) * g->cap);
	}
	while (g->used + TYPEALIGN(8, e->enc_len) > g->arena_cap)
	{
		g->arena_cap = Max(BLOOFI_PAGE_BYTES, 2 * g->arena_cap);
		g->arena = g->arena ? repalloc_huge(g->arena, g->arena_cap) : palloc(g->arena_cap);
	}
	g->tid = e->tid;
	g->off[g->nparts] = g->used;
	g->len[g->nparts] = e->enc_len;
	memcpy(g->arena + g->used, e->enc, e->enc_len);
	g->used += TYPEALIGN(8, e->enc_len);
	g->nparts++;
}

/*
 * Entry e of block blk of a chain, read in order, as the chain's visitor
 * sees it (bloofi_pending.c, bloofi_chain_visit; g: the group state of
 * that chain's reading): a single entry as
 * it is; a group's parts gathered (bloofi_pending_insert_parts) and given
 * as one entry once its last part is read.  A group whose last part never
 * comes (its insert stopped between parts, or is still writing them) is
 * dropped when another TID's entry or the chain's end comes: its heap tuple
 * never committed, or not yet.
 */
void
bloofi_pending_group_entry(Relation index, const BloofiMetaData *meta, BlockNumber blk,
				   const BloofiPendingEntry *e, BloofiPendingGroup *g, bool flushing,
				   BloofiPendingVisitor visit, void *arg)
{
	ItemPointerData a = g->tid,
				b = e->tid;

	if (g->nparts > 0 && (e->bits != NULL || !ItemPointerEquals(&a, &b)))
	{
		g->nparts = 0;			/* an incomplete group: dropped */
		g->used = 0;
	}
	if (!e->part && g->nparts == 0)
	{
		visit(e, flushing, arg);
		return;
	}
	bloofi_pending_group_add(g, e);
	if (e->part)
		return;
	{
		BloofiPendingEntry ge;

		for (int i = 0; i < g->nparts; i++)
			bloofi_pending_open(index, blk, g->arena + g->off[i], g->len[i], meta->m,
								&g->parts[i]);
		memset(&ge, 0, sizeof(ge));
		ge.tid = g->tid;
		ge.nparts = g->nparts;
		ge.parts = g->parts;
		visit(&ge, flushing, arg);
		g->nparts = 0;
		g->used = 0;
	}
}

/* a group state for one reading of a chain */
BloofiPendingGroup *
bloofi_pending_group_new(void)
{
	return palloc0(sizeof(BloofiPendingGroup));
}

void
bloofi_pending_group_free(BloofiPendingGroup *g)
{
	if (g->cap > 0)
	{
		pfree(g->off);
		pfree(g->len);
		pfree(g->parts);
	}
	if (g->arena)
		pfree(g->arena);
	pfree(g);
}
