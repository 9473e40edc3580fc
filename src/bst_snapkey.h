/*
 * bst_snapkey.h
 *    BloomSampleTree glue: which catalog rows a snapshot sees, as a key that
 *    two snapshots share only when they see exactly the same committed rows.
 *
 * The tree cache reads a tree's catalog row with the statement's snapshot
 * and keeps the key of that snapshot beside the tree: a later call whose
 * snapshot has the same key would read the same row, so it may use the tree
 * without reading the catalog; any other snapshot reads the row again.
 * docs/bloomsampletree.md ("Which tree a statement sees") gives the proof.
 */
#ifndef BST_SNAPKEY_H
#define BST_SNAPKEY_H

#include "postgres.h"

#include "utils/snapshot.h"

typedef struct BstSnapKey
{
	bool		valid;			/* false: matches nothing */
	uint64		aborts;			/* bst_snapkey_aborts() when taken */
	TransactionId xmin;
	TransactionId xmax;
	CommandId	curcid;
	int			nxids;			/* in-progress transactions, sorted in xids */
	int			cap;
	TransactionId *xids;		/* in cxt */
	MemoryContext cxt;
} BstSnapKey;

/* an empty key whose array lives in cxt (matches nothing until set) */
extern void bst_snapkey_init(BstSnapKey *key, MemoryContext cxt);

/* set key to the active snapshot's (invalid when there is none, or it cannot be keyed) */
extern void bst_snapkey_set(BstSnapKey *key);

/* would the active snapshot see what the snapshot of key saw? */
extern bool bst_snapkey_matches(const BstSnapKey *key);

/* count of (sub)transaction aborts in this backend: part of every key */
extern uint64 bst_snapkey_aborts(void);
/* called by the abort callbacks of the tree cache */
extern void bst_snapkey_note_abort(void);

#endif							/* BST_SNAPKEY_H */
