/*
 * bst_acl.h
 *    Ownership and privileges of BloomSampleTrees (README.md, Security;
 *    docs/security.md): who may use a tree, who may change it, and the
 *    switch to the catalog's owner around the extension's own catalog SQL.
 */
#ifndef BST_ACL_H
#define BST_ACL_H

#include "postgres.h"

#include "executor/spi.h"

/* who may use a tree: the owner and the grantees of its catalog row */
typedef struct BstAcl
{
	bool		enforced;		/* false for a catalog of version 1.1 (no owners) */
	bool		pruned;			/* a full tree reveals no data: anyone may use it */
	Oid			owner;
	int			ngrantees;
	Oid		   *grantees;		/* InvalidOid stands for PUBLIC */
} BstAcl;

/* the state bst_catalog_enter saves */
typedef struct BstCatalogUser
{
	Oid			caller;			/* the user before the switch: privileges are checked for it */
	int			sec_context;
	int			guc_nest;
} BstCatalogUser;

/*
 * Run as the owner of the extension's catalog tables, with search_path
 * pg_catalog, pg_temp, until bst_catalog_leave (an error in between
 * restores both at the (sub)transaction's abort).  Only the extension's
 * own fixed SQL runs in between: never the caller's.
 */
extern void bst_catalog_enter(BstCatalogUser *cu);
extern void bst_catalog_leave(BstCatalogUser *cu);

/*
 * Fill *acl from columns owner (regrole) and grantees (regrole[]) of an SPI
 * result row (col, col + 1); with has_columns false (a 1.1 catalog) the
 * tree has no owner and no privileges are enforced.  Allocated in the
 * current memory context.
 */
extern void bst_acl_read(BstAcl *acl, HeapTuple tup, TupleDesc desc, int col,
						 bool has_columns, bool pruned);
/* *dst becomes a copy of src in cxt (dst's former grantees, if any, are freed) */
extern void bst_acl_copy(BstAcl *dst, const BstAcl *src, MemoryContext cxt);

/* may role use (sample, reconstruct, read) the tree? */
extern bool bst_acl_may_use(const BstAcl *acl, Oid role);
/* error (42501, permission denied) unless role may use tree name */
extern void bst_acl_check_use(const char *name, const BstAcl *acl, Oid role);
/* error (42501, must be owner) unless role has the privileges of owner */
extern void bst_acl_check_owner(const char *name, Oid owner, Oid role);
/* error (42501, permission denied for schema) unless role may create trees */
extern void bst_acl_check_create(Oid role);

/*
 * enter the catalog as its owner, connect to SPI and lock the row of tree
 * name FOR UPDATE; an error (42704) when there is none, (42501) unless the
 * caller has the owner's privileges.  End with SPI_finish and
 * bst_catalog_leave.
 */
extern void bst_catalog_open_owned(const char *name, BstCatalogUser *cu);

#endif							/* BST_ACL_H */
