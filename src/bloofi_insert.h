/*
 * bloofi_insert.h
 *    What the two halves of the insert path share: the context of one call
 *    (bloofi_insert.c: one leaf, structural changes, the bottom node's
 *    writes; bloofi_insert_batch.c: batches of leaves in rounds).  Private to
 *    those two files; the rest of the glue sees bloofi.h only.
 */
#ifndef BLOOFI_INSERT_H
#define BLOOFI_INSERT_H

#include "utils/hsearch.h"

#include "bloofi.h"

typedef struct InsertCtx
{
	Relation	index;
	BloofiMetaData *meta;
	uint32		d;
	uint32		fbytes;
	size_t		nwords;

	/*
	 * nodes retired by this call (bloofi_insert_leaves: paths through them
	 * are stale)
	 */
	BlockNumber *retired;
	int			nretired;
	int			retcap;

	/*
	 * while a batch descends (no write): inner nodes' children, by first
	 * block
	 */
	HTAB	   *cache;
	Size		cache_bytes;
} InsertCtx;

/* an inner node's live children, as a descent reads them (InsertCtx.cache) */
typedef struct DescentEntry
{
	BlockNumber start;			/* hash key */
	int			n;
	ItemPointerData *tids;
	uint8	   *vals;
	uint32	   *slots;
	const uint8 **vp;
} DescentEntry;

/* bloofi_insert.c: the steps a batch is made of (contracts at the definitions) */
extern void bloofi_node_set_slots(Relation index, BloofiNode *X, int n, const uint32 *slots,
								  const ItemPointerData *tids);
extern bool bloofi_make_room(InsertCtx *ic, BloofiPathStep *path, int depth, const BloofiNode *B,
							 const uint8 *f, int room);
extern bool bloofi_path_stale(const InsertCtx *ic, const BloofiPathStep *path, int depth,
							  BlockNumber B);
extern void bloofi_descend(InsertCtx *ic, const uint8 *f, BloofiPathStep *path, int *depth,
						   BloofiNode *bottom);
extern void bloofi_bottom_put_columns(InsertCtx *ic, BloofiNode *B, int n, const uint32 *slots,
									  const uint8 *const *filters);
extern bool bloofi_bottom_fits(InsertCtx *ic, BloofiNode *B, int n, const uint8 *const *filters,
							   uint8 *batch_value, uint32 *slots);
extern int	bloofi_bottom_room(InsertCtx *ic, BloofiNode *B, int n, const uint8 *const *filters);
extern void bloofi_insert_one(InsertCtx *ic, const ItemPointerData *tid, const uint8 *f);

#endif							/* BLOOFI_INSERT_H */
