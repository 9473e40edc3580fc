/*
 * bloofi_walk.c
 *    Finding and visiting Bloofi nodes: the path from the root to a node
 *    (bloofi_find_path, for writers that must update the values above it),
 *    a depth-first walk of every node (bloofi_walk_nodes, for VACUUM's
 *    passes and the introspection functions), and the leaves' TIDs of a node
 *    or of the whole index.  Reads only, through bloofi_node.c.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/rel.h"

#include "bloofi.h"

/* depth-first search for target below start; fills path[depth..] */
static bool
bloofi_find_below(Relation index, const BloofiMetaData *meta, BlockNumber start,
				  BlockNumber target, BloofiPathStep *path, int depth, int *out)
{
	BloofiNode	n;
	ItemPointerData *tids;
	bool		found = false;

	CHECK_FOR_INTERRUPTS();
	if (start == target)
	{
		*out = depth;
		return true;
	}
	bloofi_node_read(index, meta, start, &n);
	if (n.level == 0 || depth + 1 >= BLOOFI_MAX_HEIGHT)
		return false;
	tids = palloc(sizeof(ItemPointerData) * Max(n.nused, 1));
	bloofi_node_read_tids(index, &n, n.nused, tids);
	for (uint32 s = 0; s < n.nused && !found; s++)
	{
		if (!ItemPointerIsValid(&tids[s]))
			continue;
		path[depth].node = start;
		path[depth].slot = s;
		found = bloofi_find_below(index, meta, ItemPointerGetBlockNumber(&tids[s]), target,
								  path, depth + 1, out);
	}
	pfree(tids);
	return found;
}

/*
 * The path from the root to node target: path[0..*depth) are (node, slot)
 * steps, path[*depth - 1].node being target's parent (depth 0: target is the
 * root).  Returns false when target is not in the tree.  Reads every inner
 * node's slots in the worst case: for redo after a crash, not for lookups.
 */
bool
bloofi_find_path(Relation index, const BloofiMetaData *meta, BlockNumber target,
				 BloofiPathStep *path, int *depth)
{
	if (meta->root == InvalidBlockNumber)
		return false;
	return bloofi_find_below(index, meta, meta->root, target, path, 0, depth);
}

/* bloofi_walk_nodes below start (depth levels under the root) */
static void
bloofi_walk_below(Relation index, const BloofiMetaData *meta, BlockNumber start, int depth,
				  BloofiNodeVisitor visit, void *arg)
{
	BloofiNode	n;
	ItemPointerData *tids;

	CHECK_FOR_INTERRUPTS();
	if (depth >= BLOOFI_MAX_HEIGHT)
		BLOOFI_NODE_CORRUPT(index, start, "The tree is deeper than %d levels.", BLOOFI_MAX_HEIGHT);
	bloofi_node_read(index, meta, start, &n);
	tids = palloc(sizeof(ItemPointerData) * Max(n.nused, 1));
	bloofi_node_read_tids(index, &n, n.nused, tids);
	visit(index, &n, tids, arg);
	if (n.level > 0)
		for (uint32 s = 0; s < n.nused; s++)
			if (ItemPointerIsValid(&tids[s]))
				bloofi_walk_below(index, meta, ItemPointerGetBlockNumber(&tids[s]), depth + 1,
								  visit, arg);
	pfree(tids);
}

/*
 * Visit every node reachable from the root, parents before children:
 * visit(index, node, its nused slots, arg).  Share locks, one page at a time.
 */
void
bloofi_walk_nodes(Relation index, const BloofiMetaData *meta, BloofiNodeVisitor visit, void *arg)
{
	if (meta->root != InvalidBlockNumber)
		bloofi_walk_below(index, meta, meta->root, 0, visit, arg);
}

static void
bloofi_collect_tids(Relation index, const BloofiNode *node, const ItemPointerData *tids,
					void *arg)
{
	if (node->level > 0)
		return;
	for (uint32 s = 0; s < node->nused; s++)
		if (ItemPointerIsValid(&tids[s]))
		{
			BloofiLeafSlot *e = hash_search((HTAB *) arg, &tids[s], HASH_ENTER, NULL);

			e->node = node->start;
			e->slot = s;
		}
}

/*
 * A hash table, in CurrentMemoryContext, of the heap TIDs of the leaves
 * reachable from the root, each with its bottom node and slot.
 */
HTAB *
bloofi_leaf_slots(Relation index, const BloofiMetaData *meta, const char *name)
{
	HASHCTL		ctl;
	HTAB	   *h;

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(ItemPointerData);
	ctl.entrysize = sizeof(BloofiLeafSlot);
	ctl.hcxt = CurrentMemoryContext;
	h = hash_create(name, 1024, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	bloofi_walk_nodes(index, meta, bloofi_collect_tids, h);
	return h;
}
