/*
 * bst_acl.c
 *    Ownership and privileges of BloomSampleTrees.  A tree's catalog row
 *    holds its owner (regrole: the role that created it) and its grantees
 *    (regrole[], InvalidOid for PUBLIC).  The owner, its members and
 *    superusers may use, extend, drop and grant a tree; a grantee may use
 *    it (sample, reconstruct, bst_info, its row of bst_trees).  A full tree
 *    reveals no data: anyone may use it, only the owner change it.  The
 *    catalog tables are readable by their owner only (and SELECT by the
 *    extension's owner, for pg_dump): the extension's C code reads and
 *    writes them as their owner (bst_catalog_enter), after checking the
 *    caller here.  The cache keeps each tree's BstAcl, so the check of a
 *    warm call is a few has_privs_of_role calls, no catalog lookup; GRANT
 *    and REVOKE change the catalog row, read again by the first snapshot
 *    that sees the change (bst_cache.c).
 *    Function: _bst_may_use; bst_grant, bst_revoke and bst_set_owner are
 *    management functions (bst_manage.c) built on these checks.  Design and
 *    review: docs/security.md.
 */
#include "postgres.h"
#include "pg_compat.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "bst_acl.h"
#include "bst_util.h"

PG_FUNCTION_INFO_V1(bst_may_use);

/* the owner of the extension's bst_tree_catalog */
static Oid
catalog_owner(void)
{
	Oid			rel = get_relname_relid("bst_tree_catalog", bst_extension_schema());
	HeapTuple	tup;
	Oid			owner;

	if (!OidIsValid(rel))
		elog(ERROR, "the BloomSampleTree catalog of extension bloomsample is missing");
	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(rel));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for relation %u", rel);
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	ReleaseSysCache(tup);
	return owner;
}

void
bst_catalog_enter(BstCatalogUser *cu)
{
	Oid			owner = catalog_owner();

	GetUserIdAndSecContext(&cu->caller, &cu->sec_context);
	SetUserIdAndSecContext(owner, cu->sec_context | SECURITY_LOCAL_USERID_CHANGE);
	cu->guc_nest = NewGUCNestLevel();
	(void) set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
}

void
bst_catalog_leave(BstCatalogUser *cu)
{
	AtEOXact_GUC(true, cu->guc_nest);
	SetUserIdAndSecContext(cu->caller, cu->sec_context);
}

void
bst_acl_read(BstAcl *acl, HeapTuple tup, TupleDesc desc, int col, bool has_columns, bool pruned)
{
	bool		isnull;
	Datum		d;

	memset(acl, 0, sizeof(*acl));
	acl->pruned = pruned;
	if (!has_columns)
		return;
	acl->enforced = true;
	d = SPI_getbinval(tup, desc, col, &isnull);
	acl->owner = isnull ? InvalidOid : DatumGetObjectId(d);
	d = SPI_getbinval(tup, desc, col + 1, &isnull);
	if (!isnull)
	{
		ArrayType  *a = DatumGetArrayTypeP(d);
		Datum	   *elems;
		bool	   *nulls;
		int			n;

		deconstruct_array(a, REGROLEOID, sizeof(Oid), true, TYPALIGN_INT, &elems, &nulls, &n);
		acl->grantees = palloc(Max(n, 1) * sizeof(Oid));
		for (int i = 0; i < n; i++)
			if (!nulls[i])
				acl->grantees[acl->ngrantees++] = DatumGetObjectId(elems[i]);
	}
}

void
bst_acl_copy(BstAcl *dst, const BstAcl *src, MemoryContext cxt)
{
	Oid		   *g = MemoryContextAlloc(cxt, Max(src->ngrantees, 1) * sizeof(Oid));

	if (dst->grantees != NULL)
		pfree(dst->grantees);
	if (src->ngrantees > 0)
		memcpy(g, src->grantees, src->ngrantees * sizeof(Oid));
	*dst = *src;
	dst->grantees = g;
}

bool
bst_acl_may_use(const BstAcl *acl, Oid role)
{
	if (!acl->enforced || !acl->pruned)
		return true;
	/* superusers and the owner's members (with its privileges) included */
	if (has_privs_of_role(role, acl->owner))
		return true;
	for (int i = 0; i < acl->ngrantees; i++)
		if (!OidIsValid(acl->grantees[i]) || has_privs_of_role(role, acl->grantees[i]))
			return true;
	return false;
}

void
bst_acl_check_use(const char *name, const BstAcl *acl, Oid role)
{
	if (!bst_acl_may_use(acl, role))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for BloomSampleTree \"%s\"", name),
				 errhint("Its owner can grant its use with bst_grant().")));
}

void
bst_acl_check_owner(const char *name, Oid owner, Oid role)
{
	if (!has_privs_of_role(role, owner))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of BloomSampleTree \"%s\"", name)));
}

void
bst_acl_check_create(Oid role)
{
	Oid			nsp = bst_extension_schema();

	if (pg_namespace_aclcheck(nsp, role, ACL_CREATE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for schema %s", get_namespace_name(nsp)),
				 errdetail("Creating a BloomSampleTree needs CREATE on the schema of extension bloomsample.")));
}

/*
 * (inside SPI, as the catalog's owner) lock the catalog row of name FOR
 * UPDATE; false when there is none.  *pruned and *owner get its kind and
 * owner.
 */
static bool
bst_catalog_lock(const char *name, bool *pruned, Oid *owner)
{
	static SPIPlanPtr plan = NULL;
	Oid			types[1] = {TEXTOID};
	Datum		args[1];
	bool		isnull;

	if (!plan)
	{
		plan = SPI_prepare(psprintf("SELECT kind, owner FROM %s WHERE name = $1 FOR UPDATE",
									bst_qualified("bst_tree_catalog")), 1, types);
		if (!plan)
			elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
		SPI_keepplan(plan);
	}
	args[0] = CStringGetTextDatum(name);
	if (SPI_execute_plan(plan, args, NULL, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "reading the BloomSampleTree catalog failed");
	if (SPI_processed == 0)
		return false;
	*pruned = strcmp(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1), "pruned") == 0;
	*owner = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	return true;
}

/*
 * bst_catalog_open_owned: enter the catalog as its owner (bst_catalog_enter,
 * into cu), connect to SPI and lock the row of tree name; an error when
 * there is none or the caller is not its owner.  The caller ends with
 * SPI_finish and bst_catalog_leave.
 */
void
bst_catalog_open_owned(const char *name, BstCatalogUser *cu)
{
	bool		pruned;
	Oid			owner;

	bst_catalog_enter(cu);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	/* the row lock serializes the changes of one tree */
	if (!bst_catalog_lock(name, &pruned, &owner))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("BloomSampleTree \"%s\" does not exist", name),
				 errhint("The view bst_trees lists the trees.")));
	bst_acl_check_owner(name, owner, cu->caller);
}

/* _bst_may_use(kind, owner, grantees): may the current user use this tree? (bst_trees) */
Datum
bst_may_use(PG_FUNCTION_ARGS)
{
	BstAcl		acl = {0};
	Datum	   *elems;
	bool	   *nulls;
	int			n = 0;

	acl.enforced = true;
	acl.pruned = strcmp(text_to_cstring(PG_GETARG_TEXT_PP(0)), "full") != 0;
	acl.owner = PG_GETARG_OID(1);
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(2), REGROLEOID, sizeof(Oid), true, TYPALIGN_INT,
					  &elems, &nulls, &n);
	acl.grantees = palloc(Max(n, 1) * sizeof(Oid));
	for (int i = 0; i < n; i++)
		if (!nulls[i])
			acl.grantees[acl.ngrantees++] = DatumGetObjectId(elems[i]);
	PG_RETURN_BOOL(bst_acl_may_use(&acl, GetUserId()));
}
