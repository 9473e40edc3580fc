/*
 * bloofi_insert_batch.c
 *    Inserting a batch of leaves into the Bloofi tree (a pending-list flush,
 *    bloofi_insert_leaves), in rounds, on top of the one-leaf steps of
 *    bloofi_insert.c.
 *
 * A round: every leaf still waiting descends (inner nodes read once per
 * round for all descents, InsertCtx.cache); the leaves are grouped by the
 * bottom node they reach; a group takes the room its node has (the rest
 * waits for the next round), a node without room gets it first
 * (bloofi_make_room) and its group waits, and the groups go in together:
 * all their TIDs, then their ORs down all their paths level by level (one
 * write per node for all its children on paths), then their columns.  A
 * group whose path went through a node retired meanwhile waits for the next
 * round's descent.  The write order is bloofi_insert.c's (see its banner and
 * docs/bloofi.md, "Concurrency: the locking protocol").
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "bloofi.h"
#include "bloofi_insert.h"

/*
 * bloofi_propagate for the batches j < n with fit[j] (path paths[j] of
 * depths[j] steps, OR values row j), level by level from the root: each node
 * on some path gets, in one bloofi_node_set_bits, the ORs of the batches
 * below each of its children on paths, so that a wide node's slices are
 * written once per round rather than once per batch.  The order of the
 * protocol holds: a node's value, then its columns, and a node before the
 * nodes below it.
 */
static void
bloofi_propagate_batch(InsertCtx *ic, int n, const bool *fit,
					   BloofiPathStep (*paths)[BLOOFI_MAX_HEIGHT], const int *depths,
					   const uint8 *values)
{
	int			maxdepth = 0;
	uint32	   *slots = palloc(sizeof(uint32) * Max(n, 1));
	uint8	   *cols = palloc_extended((Size) Max(n, 1) * ic->fbytes, MCXT_ALLOC_HUGE);
	const uint8 **cp = palloc(sizeof(uint8 *) * Max(n, 1));
	bool	   *taken = palloc(sizeof(bool) * Max(n, 1));

	for (int j = 0; j < n; j++)
		if (fit[j])
			maxdepth = Max(maxdepth, depths[j]);
	for (int lvl = 0; lvl < maxdepth; lvl++)
	{
		memset(taken, 0, sizeof(bool) * n);
		for (int j = 0; j < n; j++)
		{
			BlockNumber node;
			BloofiNode	X;
			int			k = 0;

			if (!fit[j] || depths[j] <= lvl || taken[j])
				continue;
			/* the batches through this node, their ORs merged per child slot */
			node = paths[j][lvl].node;
			for (int i = j; i < n; i++)
			{
				int			c;

				if (!fit[i] || depths[i] <= lvl || taken[i] || paths[i][lvl].node != node)
					continue;
				taken[i] = true;
				for (c = 0; c < k && slots[c] != paths[i][lvl].slot; c++)
					;
				if (c == k)
				{
					slots[k] = paths[i][lvl].slot;
					memset(cols + (size_t) k * ic->fbytes, 0, ic->fbytes);
					cp[k] = cols + (size_t) k * ic->fbytes;
					k++;
				}
				bs_or(cols + (size_t) c * ic->fbytes, values + (size_t) i * ic->fbytes, ic->nwords);
			}
			bloofi_node_read(ic->index, ic->meta, node, &X);
			bloofi_node_set_bits(ic->index, &X, k, slots, cp);
		}
	}
	pfree(slots);
	pfree(cols);
	pfree(cp);
	pfree(taken);
}

/*
 * One round of bloofi_insert_leaves over the n leaves still to insert
 * (todo[t], t < n), grouped by the bottom node their descent reaches.
 */
typedef struct InsertRound
{
	int			n;				/* leaves of the round */
	int			ntarget;		/* bottom nodes j they reach */
	/* per leaf t */
	int		   *which;			/* its bottom node j */
	bool	   *done;			/* inserted in this round */
	/* per bottom node j */
	BloofiPathStep (*paths)[BLOOFI_MAX_HEIGHT]; /* its path from the root */
	int		   *depths;
	BloofiNode *nodes;
	int		   *gstart;			/* its leaves: bt/bf[gstart[j] .. + gcount[j]) */
	int		   *gcount;
	int		   *gfirst;			/* the first of them, as t */
	uint32	   *gslots;			/* their slots (gslots + gstart[j]) */
	uint8	   *gvalue;			/* their OR (row j, fbytes each) */
	bool	   *fit;			/* they go in this round */
	/* the leaves grouped by bottom node */
	ItemPointerData *bt;
	const uint8 **bf;
} InsertRound;

static void
bloofi_round_alloc(InsertRound *r, const InsertCtx *ic, int n)
{
	r->n = n;
	r->ntarget = 0;
	r->paths = palloc(sizeof(*r->paths) * n);
	r->depths = palloc(sizeof(int) * n);
	r->nodes = palloc(sizeof(BloofiNode) * n);
	r->which = palloc(sizeof(int) * n);
	r->done = palloc0(sizeof(bool) * n);
	r->bt = palloc(sizeof(ItemPointerData) * n);
	r->bf = palloc(sizeof(uint8 *) * n);
	r->gstart = palloc(sizeof(int) * n);
	r->gcount = palloc0(sizeof(int) * n);
	r->gfirst = palloc(sizeof(int) * n);
	r->gslots = palloc(sizeof(uint32) * n);
	r->gvalue = palloc_extended((Size) n * ic->fbytes, MCXT_ALLOC_HUGE);
	r->fit = palloc(sizeof(bool) * n);
}

static void
bloofi_round_free(InsertRound *r)
{
	pfree(r->paths);
	pfree(r->depths);
	pfree(r->nodes);
	pfree(r->which);
	pfree(r->done);
	pfree(r->bt);
	pfree(r->bf);
	pfree(r->gstart);
	pfree(r->gcount);
	pfree(r->gfirst);
	pfree(r->gslots);
	pfree(r->gvalue);
	pfree(r->fit);
}

/*
 * Descend for every leaf of the round and group the leaves by the bottom
 * node reached (which, paths, depths, nodes, ntarget).  The descents write
 * nothing, so inner nodes are read once for all of them (ic->cache).
 */
static void
bloofi_round_descend(InsertCtx *ic, InsertRound *r, const int *todo,
					 const uint8 *const *filters)
{
	HASHCTL		ctl;
	MemoryContext cachecxt = AllocSetContextCreate(CurrentMemoryContext,
												   "bloofi descent cache",
												   ALLOCSET_DEFAULT_SIZES);
	MemoryContext prev = MemoryContextSwitchTo(cachecxt);

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(BlockNumber);
	ctl.entrysize = sizeof(DescentEntry);
	ctl.hcxt = cachecxt;
	ic->cache = hash_create("bloofi descent cache", 64, &ctl,
							HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	ic->cache_bytes = 0;
	for (int t = 0; t < r->n; t++)
	{
		BloofiPathStep p[BLOOFI_MAX_HEIGHT];
		int			d;
		BloofiNode	B;

		bloofi_descend(ic, filters[todo[t]], p, &d, &B);
		r->which[t] = -1;
		for (int j = 0; j < r->ntarget && r->which[t] < 0; j++)
			if (r->nodes[j].start == B.start)
				r->which[t] = j;
		if (r->which[t] < 0)
		{
			r->which[t] = r->ntarget;
			r->nodes[r->ntarget] = B;
			r->depths[r->ntarget] = d;
			memcpy(r->paths[r->ntarget], p, sizeof(BloofiPathStep) * d);
			r->ntarget++;
		}
	}
	MemoryContextSwitchTo(prev);
	MemoryContextDelete(cachecxt);
	ic->cache = NULL;
}

/* lay the round's leaves out by bottom node (gcount, gfirst, gstart, bt, bf) */
static void
bloofi_round_group(InsertRound *r, const int *todo, const ItemPointerData *tids,
				   const uint8 *const *filters)
{
	for (int t = 0; t < r->n; t++)
	{
		int			j = r->which[t];

		if (r->gcount[j]++ == 0)
			r->gfirst[j] = t;
	}
	for (int j = 0, pos = 0; j < r->ntarget; j++)
	{
		r->gstart[j] = pos;
		for (int t = 0; t < r->n; t++)
			if (r->which[t] == j)
			{
				r->bt[pos] = tids[todo[t]];
				r->bf[pos++] = filters[todo[t]];
			}
	}
}

/*
 * Step 1 of a round, per bottom node: a group takes the room its node has
 * (up to its fan-out limit and free slots; fit[j]); the rest of it waits
 * for the next round.  The group of a node without room gets room (a
 * split, or a growth sized for the group: decided as for its first leaf
 * inserted alone) and waits for the next round; a node that can be neither
 * split nor grown takes that leaf the slow way.
 */
static void
bloofi_round_make_room(InsertCtx *ic, InsertRound *r, const int *todo,
					   const ItemPointerData *tids, const uint8 *const *filters)
{
	for (int j = 0; j < r->ntarget; j++)
	{
		int			room;

		CHECK_FOR_INTERRUPTS();
		r->fit[j] = false;
		if (bloofi_path_stale(ic, r->paths[j], r->depths[j], r->nodes[j].start))
			continue;
		room = bloofi_bottom_room(ic, &r->nodes[j], r->gcount[j], r->bf + r->gstart[j]);
		if (room > 0)
		{
			r->gcount[j] = room;
			r->fit[j] = true;
			continue;
		}
		if (!bloofi_make_room(ic, r->paths[j], r->depths[j], &r->nodes[j],
							  r->bf[r->gstart[j]], r->gcount[j]))
		{
			int			t = r->gfirst[j];

			bloofi_insert_one(ic, &tids[todo[t]], filters[todo[t]]);
			r->done[t] = true;
		}
	}
}

/*
 * Steps 2-5 of a round: the groups that fit, unless a reorganisation in
 * step 1 changed their path or node, go in together: their TIDs, their ORs
 * down the paths level by level, their columns.  Marks their leaves done.
 */
static void
bloofi_round_write(InsertCtx *ic, InsertRound *r)
{
	/* 2. the groups that still fit */
	for (int j = 0; j < r->ntarget; j++)
		if (r->fit[j])
			r->fit[j] = !bloofi_path_stale(ic, r->paths[j], r->depths[j], r->nodes[j].start) &&
				bloofi_bottom_fits(ic, &r->nodes[j], r->gcount[j], r->bf + r->gstart[j],
								   r->gvalue + (size_t) j * ic->fbytes,
								   r->gslots + r->gstart[j]);

	/*
	 * 3. their TIDs, 4. their ORs down the paths, level by level, 5. their
	 * columns
	 */
	for (int j = 0; j < r->ntarget; j++)
		if (r->fit[j])
			bloofi_node_set_slots(ic->index, &r->nodes[j], r->gcount[j],
								  r->gslots + r->gstart[j], r->bt + r->gstart[j]);
	bloofi_propagate_batch(ic, r->ntarget, r->fit, r->paths, r->depths, r->gvalue);
	for (int j = 0; j < r->ntarget; j++)
		if (r->fit[j])
		{
			int			left = r->gcount[j];

			bloofi_bottom_put_columns(ic, &r->nodes[j], r->gcount[j],
									  r->gslots + r->gstart[j], r->bf + r->gstart[j]);
			/* (the group's first gcount[j] leaves, in the order of bt/bf) */
			for (int t = 0; t < r->n && left > 0; t++)
				if (r->which[t] == j)
				{
					r->done[t] = true;
					left--;
				}
		}
}

/*
 * Insert n leaves (tids[i], filters[i]); the caller holds the tree lock.
 * Leaves are batched by the bottom node their descent reaches, so a batch
 * touches each slice page of a node once; a batch that does not fit goes
 * its first leaf alone (splits, growth), after which the descents are
 * redone, at most four times: then every remaining leaf descends on its own.
 */
void
bloofi_insert_leaves(Relation index, int n, const ItemPointerData *tids,
					 const uint8 *const *filters)
{
	InsertCtx	ic;
	MemoryContext tmp = AllocSetContextCreate(CurrentMemoryContext, "bloofi tree insert",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(tmp);
	int		   *todo = palloc(sizeof(int) * Max(n, 1));
	int			ntodo = n;
	int			rounds = 0;

	ic.index = index;
	ic.meta = bloofi_read_meta(index);
	ic.d = ic.meta->order;
	ic.nwords = bs_words_for_bits(ic.meta->m);
	ic.fbytes = (uint32) (8 * ic.nwords);
	ic.retired = NULL;
	ic.nretired = ic.retcap = 0;
	ic.cache = NULL;
	ic.cache_bytes = 0;
	for (int i = 0; i < n; i++)
		todo[i] = i;

	while (ntodo > 0)
	{
		InsertRound r;
		int			left = 0;

		if (ic.meta->root == InvalidBlockNumber)
		{
			bloofi_insert_one(&ic, &tids[todo[0]], filters[todo[0]]);
			todo[0] = todo[--ntodo];
			continue;
		}
		if (rounds++ >= 4)
		{
			/*
			 * the tree keeps changing shape (small nodes): one descent per
			 * leaf
			 */
			for (int t = 0; t < ntodo; t++)
			{
				CHECK_FOR_INTERRUPTS();
				bloofi_insert_one(&ic, &tids[todo[t]], filters[todo[t]]);
			}
			break;
		}
		bloofi_round_alloc(&r, &ic, ntodo);
		bloofi_round_descend(&ic, &r, todo, filters);
		ic.nretired = 0;
		bloofi_round_group(&r, todo, tids, filters);
		bloofi_round_make_room(&ic, &r, todo, tids, filters);
		bloofi_round_write(&ic, &r);
		for (int t = 0; t < ntodo; t++)
			if (!r.done[t])
				todo[left++] = todo[t];
		ntodo = left;
		bloofi_round_free(&r);
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(tmp);
}
