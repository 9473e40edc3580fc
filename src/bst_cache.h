/*
 * bst_cache.h
 *    PostgreSQL glue of the BloomSampleTree part: GUCs, the cache of trees
 *    (shared image files mapped by every backend, or per-backend trees),
 *    allocators and error helpers.
 */
#ifndef BST_CACHE_H
#define BST_CACHE_H

#include "postgres.h"

#include "fmgr.h"

#include "bloomfilter.h"
#include "bst_query.h"

/* most samples one call may return */
#define BST_MAX_SAMPLES		INT64CONST(10000000)

typedef enum
{
	BST_RECON_AUTO = 0,			/* index when it fits the memory limit, else tree */
	BST_RECON_INDEX = 1,
	BST_RECON_TREE = 2
} BstReconMethod;

/* GUCs (defined on first use: see bst_init_gucs) */
extern int	bst_memory_limit_mb;
extern int	bst_sample_method;
extern int	bst_reconstruct_method;
extern int	bst_random_seed;
extern bool bst_shared;

extern void bst_init_gucs(void);
/* register the catalog invalidation callback (once; from bst_init_gucs) */
extern void bst_init_cache(void);

/* bytes allowed per tree (tree + index) */
extern uint64 bst_memory_limit_bytes(void);

/* palloc-based allocators: scratch (CurrentMemoryContext) and one for a context */
extern BstAlloc bst_scratch_alloc(void);
extern BstAlloc bst_context_alloc(MemoryContext cxt);

/*
 * The tree named name, from the backend's cache (no catalog lookup unless
 * the catalog changed since), else mapped from its shared image (built
 * first when missing); errors if unknown.  Read-only: never change it.
 */
extern BstTree *bst_get_tree(const char *name);
/*
 * bst_get_tree for a call site: the tree is kept in flinfo->fn_extra and
 * reused while the name is the same and no catalog invalidation or cache
 * eviction happened since (no lookup at all); *cname gets the name.
 */
extern BstTree *bst_get_tree_for_call(FmgrInfo *flinfo, text *name, char **cname);
/* forget the cached tree */
extern void bst_cache_forget(const char *name);
/*
 * This backend changed (or dropped) tree name: forget it here, tell every
 * backend at commit (a relcache invalidation of bst_tree_catalog) and, when
 * dropped, remove its image files.
 */
extern void bst_tree_changed(const char *name, bool dropped);
/* is t a shared image (then *image_bytes is its size), or a backend's own tree? */
extern bool bst_tree_shared(const BstTree *t, uint64 *image_bytes);

/*
 * Error (54000) unless a tree of `bytes` fits bloomsample.bst_memory_limit;
 * the message names the tree, says the size in MB (rounded up) and, with
 * extending, that an extension would take it there.  detail (or NULL) goes
 * before the limit in the DETAIL.
 */
extern void bst_check_memory(const char *name, uint64 bytes, bool extending,
							 const char *detail);

/* error unless q has the tree's parameters */
extern void bst_check_query(const BstTree *t, const char *name, const BloomView *q);

/*
 * ereport for a core result code other than BST_OK; what names the work
 * ("running the dictionary attack"), BST_ELIMIT says its result was too large
 */
extern void bst_report(int rc, const char *what, uint64 bytes);

/*
 * An empty result vector in scratch that holds at most
 * bloomsample.bst_memory_limit of ids (BST_ELIMIT beyond)
 */
extern void bst_result_init(BstIdVec *out, const BstAlloc *scratch);

/* a fresh random generator (seeded from bloomsample.bst_random_seed or randomly) */
extern void bst_rng_init(BstRng *rng);

/* schema-qualified name of an extension table */
extern const char *bst_qualified(const char *relname);

#endif							/* BST_CACHE_H */
