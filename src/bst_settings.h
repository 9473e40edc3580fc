/*
 * bst_settings.h
 *    The BloomSampleTree settings (bst_settings.c): bloomsample.bst_*, the
 *    memory limit they imply and the session's random generator.  The bottom
 *    of the part's glue: it calls only the core (and bst_image_files.c's
 *    settings).
 */
#ifndef BST_SETTINGS_H
#define BST_SETTINGS_H

#include "postgres.h"

#include "bst_query.h"

/* the values of bloomsample.bst_reconstruct_method */
typedef enum
{
	BST_RECON_AUTO = 0,			/* the cheaper of index and scan when the index
								 * fits the memory limit, else tree */
	BST_RECON_INDEX = 1,
	BST_RECON_TREE = 2,
	BST_RECON_SCAN = 3			/* test every id of the tree */
} BstReconMethod;

/* GUCs (defined by bst_init_gucs, from _PG_init) */
extern int	bst_memory_limit_mb;
extern int	bst_sample_method;
extern int	bst_reconstruct_method;
extern int	bst_random_seed;
extern bool bst_shared;

/* define the settings, point the core's interrupt hook (from _PG_init, once) */
extern void bst_init_gucs(void);
/* bytes allowed per tree (tree + index) */
extern uint64 bst_memory_limit_bytes(void);
/* a fresh random generator (seeded from bloomsample.bst_random_seed or randomly) */
extern void bst_rng_init(BstRng *rng);

#endif							/* BST_SETTINGS_H */
