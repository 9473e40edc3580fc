/*
 * bst_cache.h
 *    PostgreSQL glue of the BloomSampleTree part: the cache of trees
 *    (bst_cache.c) and the pieces the SQL functions share (bst_sql.c).  It
 *    includes the layers below, whose headers are their own: settings
 *    (bst_settings.h), utilities (bst_util.h); ownership is bst_acl.h, the
 *    image files bst_image_files.h.  From the bottom up, settings < util <
 *    acl < cache < sql < manage: each file calls only files below it.
 */
#ifndef BST_CACHE_H
#define BST_CACHE_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/array.h"

#include "bloomfilter.h"
#include "bst_query.h"
#include "bst_settings.h"
#include "bst_util.h"

/* most samples one call may return */
#define BST_MAX_SAMPLES		INT64CONST(10000000)

/* ---- bst_cache.c ---- */
/* register the transaction callbacks of the cache (once; from _PG_init) */
extern void bst_init_cache(void);
/*
 * The tree named name as the active snapshot sees it: from the backend's
 * cache without a catalog lookup when it was last checked under a snapshot
 * that sees the same catalog rows, else after reading its row (mapped from
 * its shared image, built first when missing); errors if the snapshot sees
 * no such tree.  Read-only: never change it.
 */
extern BstTree *bst_get_tree(const char *name);
/*
 * bst_get_tree for a call site: the entry is kept in flinfo->fn_extra and
 * reused while the name is the same, no entry was freed since and the
 * snapshot still sees the same catalog rows (no lookup at all); *cname gets
 * the name.
 */
extern BstTree *bst_get_tree_for_call(FmgrInfo *flinfo, text *name, char **cname);
/* forget the cached tree */
extern void bst_cache_forget(const char *name);
/*
 * This backend changed (or dropped) tree name: forget it here and, when
 * dropped, remove its image files (other backends see the change through
 * their snapshots: nothing is sent to them).
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

/* ---- bst_sql.c (shared with bst_baseline_sql.c and bst_manage.c) ---- */
/* the SETOF bigint result ids[0 .. n-1], materialized; returns the Datum to return */
extern Datum bst_return_ids(FunctionCallInfo fcinfo, const int64 *ids, size_t n);
/* error (22023) unless lo < hi: the namespace [lo, hi) */
extern void bst_check_namespace(int64 lo, int64 hi);
/* error unless 0 <= n <= BST_MAX_SAMPLES (22023, 54000) */
extern void bst_check_n(int64 n);

/*
 * The pieces of creating and extending trees that the management functions
 * (bst_manage.c) share with the helpers of version 1.1 (bst_sql.c)
 */
/* leaf_size NULL: the cost model chooses it */
#define BST_LEAF_AUTO	PG_INT64_MIN

/* validates a full tree (leaf BST_LEAF_AUTO: choose it), checks its memory; its depth */
extern int	bst_full_depth_for(text *name, int64 lo, int64 hi, const BsParams *p, int64 leaf);
/* the ids source_query returns, run as the current user: sorted, distinct, validated */
extern ArrayType *bst_collect_query_ids(const char *sql);
/* the leaf span of a pruned tree of ids a (leaf BST_LEAF_AUTO: choose it); checks name, ids, memory */
extern int64 bst_pruned_span_for(text *name, ArrayType *a, const BsParams *p, int64 leaf);
/* stores ids a as chunks of tree name from chunk first, as the current user */
extern int32 bst_store_id_chunks(text *name, ArrayType *a, int32 first, const char *what);
/* the ids of a that tree name lacks (memory checked; the cached tree forgotten) */
extern ArrayType *bst_new_ids(const char *name, ArrayType *a);

#endif							/* BST_CACHE_H */
