/*
 * bst_manage.h
 *    The pieces of creating and extending BloomSampleTrees that the
 *    management functions (src/bst_manage.c) share with the helpers of
 *    version 1.1 (src/bst_sql.c).
 */
#ifndef BST_MANAGE_H
#define BST_MANAGE_H

#include "postgres.h"

#include "utils/array.h"

#include "bloomfilter.h"

/* leaf_size NULL: the cost model chooses it */
#define BST_LEAF_AUTO	PG_INT64_MIN

/* validates a full tree (leaf BST_LEAF_AUTO: choose it), checks its memory; its depth */
extern int	bst_full_depth_for(text *name, int64 lo, int64 hi, const BsParams *p, int64 leaf);
/* the ids source_query returns, run as the current user: sorted, distinct, validated */
extern ArrayType *bst_collect_query_ids(const char *sql);
/* the leaf span of a pruned tree of ids a (leaf BST_LEAF_AUTO: choose it); checks name, ids, memory */
/*
 * error unless name is a valid tree name: not empty, at most 1,000 bytes
 * (42622 name_too_long: the catalog's primary key could not index much more)
 */
extern void bst_check_tree_name(text *name);
/* argument i of a call: a tree name, checked, as a C string */
extern char *bst_tree_name_arg(FunctionCallInfo fcinfo, int i);
extern int64 bst_pruned_span_for(text *name, ArrayType *a, const BsParams *p, int64 leaf);
/* stores ids a as chunks of tree name from chunk first, as the current user */
extern int32 bst_store_id_chunks(text *name, ArrayType *a, int32 first, const char *what);
/* the ids of a that tree name lacks (memory checked; the cached tree forgotten) */
extern ArrayType *bst_new_ids(const char *name, ArrayType *a);

#endif							/* BST_MANAGE_H */
