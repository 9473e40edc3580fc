/*
 * bloofi_introspect.c
 *    bloofi_stats (shape), bloofi_check (every invariant, against the heap)
 *    and bloofi_probe (the paper's search cost of one lookup).
 *
 * Design notes: docs/bloofi.md.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/index.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "bloofi.h"

PG_FUNCTION_INFO_V1(bloofi_stats);
PG_FUNCTION_INFO_V1(bloofi_check);
PG_FUNCTION_INFO_V1(bloofi_probe);

#define CORRUPT(index, ...) \
	ereport(ERROR, \
			(errcode(ERRCODE_INDEX_CORRUPTED), \
			 errmsg("bloofi index \"%s\" is corrupted", RelationGetRelationName(index)), \
			 errdetail(__VA_ARGS__), \
			 errhint("REINDEX it to rebuild it from the table.")))

static void
bloofi_count_visit(const BloofiPendingEntry *e, bool flushing, void *arg)
{
	int64	   *n = (int64 *) arg;

	n[0]++;
	if (flushing)
		n[1]++;
}

typedef struct StatsAcc
{
	int64		inner;
	int64		bottom;
	int64		leaves;
	int64		slots;
	int64		free_slots;
	double		fill;			/* sum over bottom nodes of their value's fill */
} StatsAcc;

static void
bloofi_stats_visit(Relation index, const BloofiNode *node, const ItemPointerData *slots,
				   void *arg)
{
	StatsAcc   *a = (StatsAcc *) arg;

	a->slots += node->cap;
	a->free_slots += node->cap - node->nlive;
	if (node->level == 0)
	{
		uint8	   *val = palloc(node->geom.filter_bytes);

		a->bottom++;
		a->leaves += node->nlive;
		bloofi_node_read_value(index, node, val);
		a->fill += (double) bs_popcount(val, node->geom.filter_bytes / 8) / node->geom.m;
		pfree(val);
	}
	else
		a->inner++;
}

/* length of a chain of nodes (retired or free) */
static int64
bloofi_chain_length(Relation index, const BloofiMetaData *meta, BlockNumber head)
{
	int64		n = 0;
	BlockNumber nblocks = RelationGetNumberOfBlocks(index);

	while (head != InvalidBlockNumber && n < nblocks)
	{
		BloofiNode	X;

		bloofi_node_read(index, meta, head, &X);
		head = X.next;
		n++;
	}
	return n;
}

Datum
bloofi_stats(PG_FUNCTION_ARGS)
{
	Relation	index = bloofi_open_index(PG_GETARG_OID(0), AccessShareLock);
	BloofiMetaData *meta = bloofi_read_meta(index);
	TupleDesc	tupdesc;
	Datum		values[20];
	bool		nulls[20] = {0};
	int64		free_pages,
				free_runs,
				retired_nodes,
				retired_pages;
	int64		pend[2] = {0, 0};	/* pending entries, of which in a flushing
									 * chain */
	int64		pending;
	StatsAcc	a;
	double		root_fill = -1;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	memset(&a, 0, sizeof(a));
	if (meta->root != InvalidBlockNumber)
	{
		BloofiNode	R;
		uint8	   *val;

		bloofi_walk_nodes(index, meta, bloofi_stats_visit, &a);
		bloofi_node_read(index, meta, meta->root, &R);
		val = palloc(R.geom.filter_bytes);
		bloofi_node_read_value(index, &R, val);
		root_fill = (double) bs_popcount(val, R.geom.filter_bytes / 8) / meta->m;
	}
	bloofi_pending_visit(index, meta, false, bloofi_count_visit, pend);
	pending = pend[0];
	/* levels: the nodes' (meta->height) plus the leaves' */
	values[0] = Int32GetDatum((int32) meta->height + (a.leaves + pending > 0 ? 1 : 0));
	values[1] = Int64GetDatum(a.inner + a.bottom + a.leaves + pending);
	values[2] = Int64GetDatum(a.leaves + pending);
	values[3] = Int64GetDatum((int64) RelationGetNumberOfBlocks(index));
	values[4] = Int64GetDatum(a.inner);
	values[5] = Int64GetDatum(a.bottom);
	values[6] = Int32GetDatum((int32) meta->order);
	values[7] = Int32GetDatum((int32) meta->leaf_cap);
	values[8] = Int64GetDatum(a.slots);
	values[9] = Int64GetDatum(a.free_slots);
	if (meta->have_params)
	{
		values[10] = Int64GetDatum((int64) meta->m);
		values[11] = Int32GetDatum((int32) meta->k);
	}
	else
		nulls[10] = nulls[11] = true;
	if (a.bottom > 0)
		values[12] = Float8GetDatum(a.fill / a.bottom);
	else
		nulls[12] = true;
	if (root_fill >= 0)
		values[13] = Float8GetDatum(root_fill);
	else
		nulls[13] = true;
	values[14] = Int64GetDatum(pending);
	values[15] = Int64GetDatum(pend[1]);
	bloofi_freespace_counts(index, &free_pages, &free_runs, &retired_nodes, &retired_pages);

	/*
	 * (an index of version 1.0 may still have a chain of free nodes until its
	 * next VACUUM)
	 */
	values[16] = Int64GetDatum(retired_nodes);
	values[17] = Int64GetDatum(free_runs + bloofi_chain_length(index, meta, meta->freenode_head));
	values[18] = Int64GetDatum(retired_pages);
	values[19] = Int64GetDatum(free_pages);
	relation_close(index, AccessShareLock);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* ---- bloofi_check ---------------------------------------------------------- */

typedef struct CheckEntry
{
	ItemPointerData tid;		/* hash key */
	uint32		count;			/* bits set in the heap filter */
	uint64		digest;			/* bloofi_filter_digest of the heap filter */
	int			in_tree;
	int			in_active;
	int			in_flushing;
} CheckEntry;

typedef struct CheckState
{
	Relation	index;
	BloofiMetaData *meta;
	HTAB	   *live;			/* live heap tuples */
	HTAB	   *nodes;			/* node first blocks seen (each once) */
	uint32		fbytes;
	size_t		nwords;
	uint32		nactive;
	BlockNumber nblocks;		/* of the index */
	uint8	   *owner;			/* BloofiSpaceOwner of every block */
	uint8	   *pending_bits;	/* a sparse pending entry decoded */
} CheckState;

static const char *const bloofi_owner_names[] = {
	"nothing", "the metapage", "a node of the tree", "a retired node", "free",
	"a bitmap page of the free-page map", "a pending page", "a new node not linked yet",
	"a node unlinked and not retired yet", "being freed", "being truncated",
	"a free node of version 1.0"
};

/*
 * Blocks [start, start + n) belong to owner: an error when one belongs to
 * something else already, unless the two are an unsettled intent (a writer
 * stopped half-way; bloofi_freespace_recover settles it) and the free pages it
 * covers.
 */
static void
bloofi_check_claim(BloofiSpaceOwner owner, BlockNumber start, BlockNumber n, void *arg)
{
	CheckState *cs = (CheckState *) arg;
	bool		intent = (owner == BLOOFI_OWNER_NEW || owner == BLOOFI_OWNER_FREEING ||
						  owner == BLOOFI_OWNER_TRUNCATE);

	for (uint64 b = start; b < (uint64) start + n; b++)
	{
		uint8		old;

		if (b >= cs->nblocks)
		{
			if (intent)			/* (a NEW run of pages not added yet) */
				break;
			CORRUPT(cs->index, "Block %u (%s) lies past the end of the index (%u blocks).",
					(BlockNumber) b, bloofi_owner_names[owner], cs->nblocks);
		}
		old = cs->owner[b];
		if (old == BLOOFI_OWNER_NONE)
			cs->owner[b] = (uint8) owner;
		else if ((intent && old == BLOOFI_OWNER_FREE) ||
				 (owner == BLOOFI_OWNER_FREE && (old == BLOOFI_OWNER_NEW ||
												 old == BLOOFI_OWNER_FREEING ||
												 old == BLOOFI_OWNER_TRUNCATE)))
			cs->owner[b] = intent ? (uint8) owner : old;
		else
			CORRUPT(cs->index, "Block %u is both %s and %s.", (BlockNumber) b,
					bloofi_owner_names[old], bloofi_owner_names[owner]);
	}
}

/* the pages of the pending chain starting at head */
static void
bloofi_check_pending_pages(CheckState *cs, BlockNumber head)
{
	for (BlockNumber steps = 0; head != InvalidBlockNumber; steps++)
	{
		Buffer		buf;

		if (steps >= cs->nblocks || head >= cs->nblocks)
			CORRUPT(cs->index, "A pending chain leaves the index or has a cycle (block %u).", head);
		bloofi_check_claim(BLOOFI_OWNER_PENDING, head, 1, cs);
		buf = ReadBuffer(cs->index, head);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		bloofi_check_page(cs->index, BufferGetPage(buf), head, BLOOFI_PAGE_PENDING, 0);
		head = BloofiPageGetOpaque(BufferGetPage(buf))->next;
		UnlockReleaseBuffer(buf);
	}
}

/*
 * Every block of the index belongs to exactly one thing (the metapage, a
 * node of the tree, a retired node, the free-page map, a pending chain, or
 * is free), or to an unsettled intent; a block that belongs to nothing and
 * is not a page never written is lost space.
 */
static void
bloofi_check_space(CheckState *cs)
{
	bloofi_check_claim(BLOOFI_OWNER_META, BLOOFI_METAPAGE_BLKNO, 1, cs);
	bloofi_check_pending_pages(cs, cs->meta->pending_head);
	bloofi_check_pending_pages(cs, cs->meta->flushing_head);
	bloofi_check_pending_pages(cs, cs->meta->free_head);
	bloofi_freespace_visit(cs->index, bloofi_check_claim, cs);
	for (BlockNumber b = 0; b < cs->nblocks; b++)
		if (cs->owner[b] == BLOOFI_OWNER_NONE)
		{
			Buffer		buf = ReadBuffer(cs->index, b);
			bool		isnew;

			LockBuffer(buf, BUFFER_LOCK_SHARE);
			isnew = PageIsNew(BufferGetPage(buf));
			UnlockReleaseBuffer(buf);
			if (!isnew)
				CORRUPT(cs->index, "Block %u belongs to no node, chain or free-page map: its space is lost.",
						b);
		}
}

/* what the walk returns for a subtree */
typedef struct CheckSub
{
	uint8	   *value;			/* stored value of the node */
	uint8	   *orcols;			/* OR of its columns (live slots) */
	uint8	   *or_live;		/* OR of its live leaves */
	bool		suspect;		/* holds a leaf that is dead or in the
								 * flushing chain */
	int			height;			/* levels of nodes below, itself included */
} CheckSub;

static void
bloofi_check_callback(Relation index, ItemPointer tid, Datum *values,
					  bool *isnull, bool tupleIsAlive, void *state)
{
	CheckState *cs = (CheckState *) state;
	CheckEntry *e;
	BloomView	v;
	BsParams	ip;

	if (isnull[0] || !tupleIsAlive)
		return;
	bf_view_datum(values[0], &v);
	bloofi_params(cs->meta, &ip);
	if (!cs->meta->have_params || !bs_params_equal(&ip, &v.p))
		CORRUPT(index, "Heap tuple (%u,%u) has a filter with parameters %s, the index %s.",
				ItemPointerGetBlockNumber(tid), ItemPointerGetOffsetNumber(tid),
				bf_params_string(&v.p), cs->meta->have_params ? bf_params_string(&ip) : "none");
	e = hash_search(cs->live, tid, HASH_ENTER, NULL);
	e->count = (uint32) bs_popcount(v.bits, v.nwords);
	e->digest = bloofi_filter_digest(v.bits, v.p.m);
	bf_view_release(&v);
	e->in_tree = e->in_active = e->in_flushing = 0;
}

static void
bloofi_check_pending_visit(const BloofiPendingEntry *pe, bool flushing, void *arg)
{
	CheckState *cs = (CheckState *) arg;
	CheckEntry *e;
	ItemPointerData tidcopy = pe->tid;
	ItemPointer tid = &tidcopy;
	const uint8 *filter;

	if (!ItemPointerIsValid(tid))
		CORRUPT(cs->index, "A pending entry has an invalid heap TID.");
	if (!flushing)
		cs->nactive++;
	/* a sparse entry decoded with every position checked, live or not */
	if (cs->pending_bits == NULL)
		cs->pending_bits = palloc(cs->fbytes);
	filter = bloofi_pending_entry_bits(cs->index, cs->meta, pe, cs->pending_bits);
	e = hash_search(cs->live, tid, HASH_FIND, NULL);
	if (e == NULL)
		return;					/* dead: VACUUM removes it */
	if (e->count != bs_popcount(filter, cs->nwords) ||
		e->digest != bloofi_filter_digest(filter, cs->meta->m))
		CORRUPT(cs->index, "Pending entry of heap tuple (%u,%u) differs from its filter.",
				ItemPointerGetBlockNumber(tid), ItemPointerGetOffsetNumber(tid));
	if (flushing)
		e->in_flushing++;
	else
		e->in_active++;
}

static bool
bloofi_check_exact(const CheckSub *sub)
{
	return !sub->suspect;
}

static void bloofi_check_node(CheckState *cs, BlockNumber start, int parent_level, int depth,
							  CheckSub *out);

/*
 * Read the header of the node at start (reached from a node of level
 * parent_level, depth levels under the root) into X and check it: reached
 * once, inside the file, in the tree, one level under its parent; claim its
 * pages.
 */
static void
bloofi_check_header(CheckState *cs, BlockNumber start, int parent_level, int depth,
					BloofiNode *X)
{
	Relation	index = cs->index;
	bool		found;

	CHECK_FOR_INTERRUPTS();
	if (depth >= BLOOFI_MAX_HEIGHT)
		CORRUPT(index, "The tree is deeper than %d levels.", BLOOFI_MAX_HEIGHT);
	hash_search(cs->nodes, &start, HASH_ENTER, &found);
	if (found)
		CORRUPT(index, "Node at block %u is reached twice.", start);
	if (start >= cs->nblocks)
		CORRUPT(index, "A node reference points to block %u, past the end of the index.", start);
	bloofi_node_read(index, cs->meta, start, X);
	if (X->flags & (BLOOFI_NODE_RETIRED | BLOOFI_NODE_FREE))
		CORRUPT(index, "Node at block %u is in the tree but flagged %s.", start,
				(X->flags & BLOOFI_NODE_FREE) ? "free" : "retired");
	if (parent_level >= 0 && X->level != parent_level - 1)
		CORRUPT(index, "Node at block %u has level %u under a node of level %d.", start,
				X->level, parent_level);
	if (start + X->geom.total_pages > cs->nblocks)
		CORRUPT(index, "Node at block %u extends beyond the end of the index.", start);
	bloofi_check_claim(BLOOFI_OWNER_TREE, start, X->geom.total_pages, cs);
}

/* check node X's slots tids[0..cap): children only below the high-water mark, counted right */
static void
bloofi_check_slots(CheckState *cs, const BloofiNode *X, const ItemPointerData *tids)
{
	Relation	index = cs->index;
	BlockNumber start = X->start;
	uint32		nvalid = 0;

	for (uint32 s = 0; s < X->cap; s++)
		if (ItemPointerIsValid(&tids[s]))
		{
			if (s >= X->nused)
				CORRUPT(index, "Node at block %u holds a child in slot %u above its high-water mark %u.",
						start, s, X->nused);
			nvalid++;
		}
	if (nvalid != X->nlive)
		CORRUPT(index, "Node at block %u counts %u children but holds %u.", start, X->nlive, nvalid);
	if (X->level > 0 && nvalid == 0)
		CORRUPT(index, "Inner node at block %u has no child.", start);
}

/*
 * Check the leaves of bottom node X (slots tids): each live leaf's column
 * against its heap filter, the node within leaf_capacity.  ORs the columns
 * into orcols (of a SPARSE node, its live leaves' only, less those of the
 * flushing chain) and the live leaves' into out->or_live (same exception);
 * out->suspect when a leaf is dead or being flushed.
 */
static void
bloofi_check_bottom(CheckState *cs, const BloofiNode *X, const ItemPointerData *tids,
					uint8 *orcols, CheckSub *out)
{
	Relation	index = cs->index;
	BlockNumber start = X->start;
	uint32	   *count = palloc0(sizeof(uint32) * X->cap);
	uint64	   *digest = palloc0(sizeof(uint64) * X->cap);
	uint64	   *valid = palloc0(sizeof(uint64) * X->geom.slice_words);
	uint64	   *owed = palloc0(sizeof(uint64) * X->geom.slice_words);
	uint64	   *none = palloc0(sizeof(uint64) * X->geom.slice_words);
	uint8	   *page = palloc(BLOOFI_PAGE_BYTES);
	uint8	   *sparse = NULL;

	for (uint32 s = 0; s < X->nused; s++)
	{
		CheckEntry *e;

		if (!ItemPointerIsValid(&tids[s]))
			continue;
		valid[s / 64] |= UINT64CONST(1) << (s % 64);
		e = hash_search(cs->live, &tids[s], HASH_FIND, NULL);
		if (e == NULL)
			out->suspect = true;	/* a dead leaf, removed by the next VACUUM */
		else
		{
			if (e->in_flushing)
				out->suspect = true;

			/*
			 * An insert writes a leaf's TID first and its column last; in a
			 * SPARSE node the column is the node's rewrite, so a leaf put
			 * into a hole has, until then, the lists of the leaf VACUUM took
			 * out of that slot, whose bits pass 2 removed from the values
			 * above.  A flush stopped there (cancel, crash) leaves the leaf
			 * in the flushing chain, where lookups find it, and the next
			 * flush rewrites the node: the tree owes that slot nothing yet.
			 */
			if (!(e->in_flushing && bloofi_node_is_sparse(X)))
				owed[s / 64] |= UINT64CONST(1) << (s % 64);
		}
	}
	/* a SPARSE node: its lists, checked whole, give the same slice images */
	if (bloofi_node_is_sparse(X))
		sparse = bloofi_sparse_load(index, X);

	for (uint32 sp = 0; sp < X->geom.slice_pages; sp++)
	{
		uint32		j0 = bloofi_slice_page_first(&X->geom, sp);
		uint32		n = bloofi_slice_page_count(&X->geom, sp);
		uint8	   *copy2;

		CHECK_FOR_INTERRUPTS();
		if (sparse)
			bloofi_sparse_slice_page(X, sparse, sp, page);
		else
		{
			BlockNumber blk = bloofi_slice_block(X, sp);
			Buffer		buf = ReadBuffer(index, blk);

			LockBuffer(buf, BUFFER_LOCK_SHARE);
			bloofi_check_page(index, BufferGetPage(buf), blk, BLOOFI_PAGE_SLICE, start);
			memcpy(page, PageGetContents(BufferGetPage(buf)), BLOOFI_PAGE_BYTES);
			UnlockReleaseBuffer(buf);
		}
		bloofi_column_digest(page, X->geom.slice_bytes, j0, n, X->cap, count, digest);
		copy2 = palloc(BLOOFI_PAGE_BYTES);
		memcpy(copy2, page, BLOOFI_PAGE_BYTES);
		/*
		 * (a SPARSE node keeps a dead leaf's bits in its lists, behind a
		 * TID that VACUUM's pass 3 invalidates after pass 2 has taken them
		 * out of the node's value and its column above: between the two,
		 * or after a crash between them, only its live leaves' bits are
		 * owed; a dense node loses them in pass 2 with the value)
		 */
		bloofi_clear_and_recompute_value(page, X->geom.slice_bytes, j0, n, none,
										 sparse ? owed : valid, orcols);
		bloofi_clear_and_recompute_value(copy2, X->geom.slice_bytes, j0, n, none, owed, out->or_live);
		pfree(copy2);
	}
	for (uint32 s = 0; s < X->nused; s++)
	{
		CheckEntry *e;

		if (!ItemPointerIsValid(&tids[s]))
			continue;
		e = hash_search(cs->live, &tids[s], HASH_FIND, NULL);
		if (e == NULL)
			continue;
		e->in_tree++;
		if ((e->count != count[s] || e->digest != digest[s]) && !e->in_flushing)
			CORRUPT(index, "Leaf of heap tuple (%u,%u) (node %u, slot %u) differs from its filter: %u bits stored, %u in the heap.",
					ItemPointerGetBlockNumber(&tids[s]), ItemPointerGetOffsetNumber(&tids[s]),
					start, s, count[s], e->count);
	}
	if (sparse)
		pfree(sparse);

	/*
	 * Exact matches (bloofi_node_exact): a free slot's column is empty, so
	 * that a leaf put there has its own bits only
	 */
	if (bloofi_node_exact(cs->meta, X))
		for (uint32 s = 0; s < X->cap; s++)
			if ((s >= X->nused || !ItemPointerIsValid(&tids[s])) && count[s] != 0)
				CORRUPT(index, "Free slot %u of node at block %u holds %u bits, which a leaf put there would be matched by without a recheck.",
						s, start, count[s]);
	if (X->nlive > cs->meta->leaf_cap)
		CORRUPT(index, "Bottom node at block %u has %u leaves, above leaf_capacity %u.",
				start, X->nlive, cs->meta->leaf_cap);
}

/*
 * Check the children of inner node X (slots tids, depth levels under the
 * root), each subtree recursively, and I1-I3 between X's columns, its
 * value and its children.  ORs the columns into orcols and the live leaves
 * below into out->or_live; out->suspect when a subtree is.
 */
static void
bloofi_check_inner(CheckState *cs, const BloofiNode *X, const ItemPointerData *tids, int depth,
				   uint8 *orcols, CheckSub *out)
{
	Relation	index = cs->index;
	BlockNumber start = X->start;
	bool	   *want = palloc0(sizeof(bool) * Max(X->nused, 1));
	uint8	   *cols = palloc_extended((Size) Max(X->nused, 1) * cs->fbytes, MCXT_ALLOC_HUGE);
	int			childh = -1;

	for (uint32 s = 0; s < X->nused; s++)
		want[s] = ItemPointerIsValid(&tids[s]);
	bloofi_node_read_columns(index, X, X->nused, want, cols);
	for (uint32 s = 0; s < X->nused; s++)
	{
		CheckSub	sub;
		const uint8 *col = cols + (size_t) s * cs->fbytes;

		if (!want[s])
			continue;
		if (ItemPointerGetOffsetNumber(&tids[s]) != 1)
			CORRUPT(index, "Inner node at block %u has a malformed child reference in slot %u.",
					start, s);
		bloofi_check_node(cs, ItemPointerGetBlockNumber(&tids[s]), X->level, depth + 1, &sub);
		if (childh >= 0 && sub.height != childh)
			CORRUPT(index, "Inner node at block %u has children of different heights.", start);
		childh = sub.height;
		bs_or(orcols, col, cs->nwords);
		bs_or(out->or_live, sub.or_live, cs->nwords);
		out->suspect |= sub.suspect;

		/*
		 * A column contains its child's columns (bits go down a path from the
		 * root, and VACUUM shrinks from the bottom up), hence every leaf
		 * below; a value contains its children's values.
		 */
		if (!bs_is_subset(sub.orcols, col, cs->nwords))
			CORRUPT(index, "Column %u of node %u lacks bits of the columns of its child (node %u).",
					s, start, ItemPointerGetBlockNumber(&tids[s]));
		if (!bs_is_subset(sub.or_live, col, cs->nwords))
			CORRUPT(index, "Column %u of node %u lacks bits of live leaves below it (a lookup could miss them).",
					s, start);
		if (!bs_is_subset(sub.value, out->value, cs->nwords))
			CORRUPT(index, "Value of node %u lacks bits of the value of its child (node %u).",
					start, ItemPointerGetBlockNumber(&tids[s]));
		if (bloofi_check_exact(&sub) && memcmp(col, sub.orcols, cs->fbytes) != 0)
			CORRUPT(index, "Column %u of node %u has bits that none of the columns of its child (node %u) has.",
					s, start, ItemPointerGetBlockNumber(&tids[s]));
	}
}

/* verify the subtree at start (reached from a node of level parent_level) */
static void
bloofi_check_node(CheckState *cs, BlockNumber start, int parent_level, int depth,
				  CheckSub *out)
{
	Relation	index = cs->index;
	BloofiNode	X;
	ItemPointerData *tids;
	uint8	   *orcols = palloc0(cs->fbytes);

	bloofi_check_header(cs, start, parent_level, depth, &X);
	out->value = palloc(cs->fbytes);
	out->orcols = orcols;
	out->or_live = palloc0(cs->fbytes);
	out->suspect = false;
	out->height = X.level + 1;
	bloofi_node_read_value(index, &X, out->value);
	tids = palloc0(sizeof(ItemPointerData) * X.cap);
	bloofi_node_read_tids(index, &X, X.cap, tids);
	bloofi_check_slots(cs, &X, tids);
	if (X.level == 0)
		bloofi_check_bottom(cs, &X, tids, orcols, out);
	else
		bloofi_check_inner(cs, &X, tids, depth, orcols, out);

	/*
	 * a value contains its columns, and is exactly their OR after any
	 * complete write
	 */
	if (!bs_is_subset(orcols, out->value, cs->nwords))
		CORRUPT(index, "Value of node %u lacks bits of its children (it is not the OR of its children).",
				start);
	if (!out->suspect && memcmp(orcols, out->value, cs->fbytes) != 0)
		CORRUPT(index, "Value of node %u has bits that none of its children has (it is not the OR of its children).",
				start);

	/*
	 * No fan-out rule beyond the capacities checked above: writers give a
	 * node more than 2d children only while its value is saturated (the
	 * no-split rule) or SPARSE, but VACUUM recomputes values exactly, so
	 * after deletes a node grown while saturated keeps its children with an
	 * unsaturated value.  VACUUM merges under-full nodes and does not split
	 * over-full ones; lookups read them correctly, and the next insert that
	 * needs room there splits them (found by the fixed-seed fuzz run).
	 */
}

Datum
bloofi_check(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	Oid			heapoid = IndexGetRelation(indexoid, true);
	Relation	heap,
				index;
	CheckState	cs;
	HASHCTL		ctl;
	IndexInfo  *indexInfo;
	HASH_SEQ_STATUS hs;
	CheckEntry *e;

	if (!OidIsValid(heapoid))
	{
		/* not an index: name it as the other Bloofi functions do */
		char	   *name = get_rel_name(indexoid);

		if (name == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_TABLE),
					 errmsg("relation with OID %u does not exist", indexoid)));
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a bloofi index", name)));
	}
	/* heap first, as everywhere: ShareLock keeps writers out while we compare */
	heap = table_open(heapoid, ShareLock);
	index = bloofi_open_index(indexoid, AccessShareLock);

	memset(&cs, 0, sizeof(cs));
	cs.index = index;
	cs.meta = bloofi_read_meta(index);
	if (cs.meta->order < BLOOFI_MIN_ORDER || cs.meta->order > BLOOFI_MAX_ORDER)
		CORRUPT(index, "Metapage order %u is out of bounds.", cs.meta->order);
	if (!cs.meta->have_params && cs.meta->root != InvalidBlockNumber)
		CORRUPT(index, "Metapage has a root but no filter parameters.");
	cs.nwords = bs_words_for_bits(cs.meta->m);
	cs.fbytes = (uint32) (8 * cs.nwords);
	cs.nblocks = RelationGetNumberOfBlocks(index);
	cs.owner = palloc_extended(Max(cs.nblocks, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(ItemPointerData);
	ctl.entrysize = sizeof(CheckEntry);
	ctl.hcxt = CurrentMemoryContext;
	cs.live = hash_create("bloofi check live", 1024, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(BlockNumber);
	ctl.entrysize = sizeof(BlockNumber);
	ctl.hcxt = CurrentMemoryContext;
	cs.nodes = hash_create("bloofi check nodes", 1024, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);

	/* 1. the live heap tuples; 2. the pending list; 3. the tree */
	indexInfo = BuildIndexInfo(index);
	table_index_build_scan(heap, index, indexInfo, true, false,
						   bloofi_check_callback, (void *) &cs, NULL);
	if (cs.meta->have_params)
		bloofi_pending_visit(index, cs.meta, true, bloofi_check_pending_visit, &cs);
	if (cs.nactive != cs.meta->npending)
		CORRUPT(index, "Metapage counts %u pending entries, the pending list holds %u.",
				cs.meta->npending, cs.nactive);
	if (cs.meta->root != InvalidBlockNumber)
	{
		CheckSub	root;

		bloofi_check_node(&cs, cs.meta->root, -1, 0, &root);
		if (root.height != (int) cs.meta->height)
			CORRUPT(index, "Metapage height %u, the tree has %d levels of nodes.",
					cs.meta->height, root.height);
	}
	else if (cs.meta->height != 0)
		CORRUPT(index, "Metapage height %u without a root.", cs.meta->height);
	bloofi_check_space(&cs);

	/*
	 * every live tuple exactly once (a flushing entry may also be in the
	 * tree)
	 */
	hash_seq_init(&hs, cs.live);
	while ((e = hash_seq_search(&hs)) != NULL)
	{
		int			places = e->in_tree + e->in_active;

		if (places == 0 && e->in_flushing == 0)
			CORRUPT(index, "Live heap tuple (%u,%u) has a filter but no leaf in the index.",
					ItemPointerGetBlockNumber(&e->tid), ItemPointerGetOffsetNumber(&e->tid));
		if (places > 1 || e->in_flushing > 1)
			CORRUPT(index, "Heap TID (%u,%u) is in the index %d times.",
					ItemPointerGetBlockNumber(&e->tid), ItemPointerGetOffsetNumber(&e->tid),
					places + e->in_flushing);
	}

	relation_close(index, AccessShareLock);
	table_close(heap, ShareLock);
	PG_RETURN_VOID();
}

/* ---- bloofi_probe ---------------------------------------------------------- */

Datum
bloofi_probe(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	index = bloofi_open_index(PG_GETARG_OID(0), AccessShareLock);
	Oid			elemtype = get_fn_expr_argtype(fcinfo->flinfo, 1);
	BloofiMetaData *meta = bloofi_read_meta(index);
	BloofiSearchStats st = {0, 0, 0};
	Datum		values[2];
	bool		nulls[2] = {0};

	InitMaterializedSRF(fcinfo, 0);
	if (meta->have_params)
	{
		BsParams	p;
		BsHasher	h;

		bloofi_params(meta, &p);
		bs_hasher_init(&h, &p);
		bloofi_count_key(index, &meta, &h, p.k, bf_datum_key(&h, PG_GETARG_DATUM(1), elemtype),
						 NULL, NULL, &st);
	}
	relation_close(index, AccessShareLock);
	values[0] = Int64GetDatum(st.nodes_checked);
	values[1] = Int64GetDatum(st.matches);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	return (Datum) 0;
}
