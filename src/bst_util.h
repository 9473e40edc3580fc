/*
 * bst_util.h
 *    BloomSampleTree glue utilities (bst_util.c): allocators over memory
 *    contexts for the core, error reports of its result codes, bounded result
 *    vectors, the extension's schema, the checks of query filters and tree
 *    names.  Above the settings only: every other file of the part may call it.
 */
#ifndef BST_UTIL_H
#define BST_UTIL_H

#include "postgres.h"

#include "fmgr.h"

#include "bloomfilter.h"
#include "bst_query.h"

/* palloc-based allocators: scratch (CurrentMemoryContext) and one for a context */
extern BstAlloc bst_scratch_alloc(void);
extern BstAlloc bst_context_alloc(MemoryContext cxt);

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
/* the extension's schema (from pg_extension, no search_path) */
extern Oid	bst_extension_schema(void);
/* schema-qualified name of an extension table (inside SPI) */
extern const char *bst_qualified(const char *relname);
/*
 * error unless name is a valid tree name: not empty, at most 1,000 bytes
 * (42622 name_too_long: the catalog's primary key could not index much more)
 */
extern void bst_check_tree_name(text *name);
/* argument i of a call: a tree name, checked, as a C string */
extern char *bst_tree_name_arg(FunctionCallInfo fcinfo, int i);
/* error unless q has the tree's parameters */
extern void bst_check_query(const BstTree *t, const char *name, const BloomView *q);

#endif							/* BST_UTIL_H */
