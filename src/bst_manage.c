/*
 * bst_manage.c
 *    The functions that manage BloomSampleTrees: bst_create,
 *    bst_create_pruned, bst_extend, bst_drop, and the owner's bst_grant,
 *    bst_revoke and bst_set_owner.  Each checks the caller's
 *    privileges (src/bst_acl.c), then writes the catalog as the catalog's
 *    owner with a fixed search_path (bst_catalog_enter); bst_create_pruned
 *    runs its source query as the caller, with the caller's search_path,
 *    before any switch.  The creating role owns the tree.  Design notes:
 *    docs/bloomsampletree.md; privileges: docs/security.md.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "common/pg_prng.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "bst_acl.h"
#include "bst_cache.h"

PG_FUNCTION_INFO_V1(bst_create_sql);
PG_FUNCTION_INFO_V1(bst_create_pruned_sql);
PG_FUNCTION_INFO_V1(bst_extend_sql);
PG_FUNCTION_INFO_V1(bst_drop_sql);
PG_FUNCTION_INFO_V1(bst_grant);
PG_FUNCTION_INFO_V1(bst_revoke);
PG_FUNCTION_INFO_V1(bst_set_owner);

/* a fresh random generation (a tree's image file is named by it) */
static int64
new_generation(void)
{
	uint64		g;

	if (!pg_strong_random(&g, sizeof(g)))
		g = pg_prng_uint64(&pg_global_prng_state);
	return (int64) (g & PG_INT64_MAX);
}

static void
tree_exists(const char *name)
{
	ereport(ERROR,
			(errcode(ERRCODE_DUPLICATE_OBJECT),
			 errmsg("BloomSampleTree \"%s\" already exists", name),
			 errhint("Drop it with bst_drop() first, or choose another name.")));
}

/* (inside SPI, as the catalog's owner) does tree name exist? */
static bool
catalog_has(const char *name)
{
	Oid			types[1] = {TEXTOID};
	Datum		args[1] = {CStringGetTextDatum(name)};

	if (SPI_execute_with_args(psprintf("SELECT 1 FROM %s WHERE name = $1",
									   bst_qualified("bst_tree_catalog")),
							  1, types, args, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "reading the BloomSampleTree catalog failed");
	return SPI_processed > 0;
}

/*
 * Insert the catalog row of a new tree owned by owner, as the catalog's
 * owner (inside bst_catalog_enter, inside SPI); duplicate_object when the
 * name is taken (a concurrent creator included: ON CONFLICT waits for it).
 */
static void
insert_def(text *name, bool pruned, int64 lo, int64 hi, const BsParams *p, const char *hash,
		   int64 leaf_size, int depth, Oid owner)
{
	Oid			types[11] = {TEXTOID, TEXTOID, INT8OID, INT8OID, INT4OID, INT4OID, INT4OID,
	TEXTOID, INT8OID, INT4OID, INT8OID};
	Datum		args[11];
	char		nulls[11];

	memset(nulls, ' ', sizeof(nulls));
	args[0] = PointerGetDatum(name);
	args[1] = CStringGetTextDatum(pruned ? "pruned" : "full");
	args[2] = Int64GetDatum(lo);
	args[3] = Int64GetDatum(hi);
	args[4] = Int32GetDatum((int32) p->m);
	args[5] = Int32GetDatum(p->k);
	args[6] = Int32GetDatum(p->seed);
	args[7] = CStringGetTextDatum(hash);
	args[8] = Int64GetDatum(leaf_size);
	args[9] = Int32GetDatum(depth);
	args[10] = Int64GetDatum(new_generation());
	if (pruned)
		nulls[2] = nulls[3] = nulls[9] = 'n';
	if (SPI_execute_with_args(psprintf("INSERT INTO %s (name, kind, namespace_lo, namespace_hi, m, k, "
									   "seed, hash, leaf_size, depth, generation, owner) "
									   "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, %u::oid::regrole) "
									   "ON CONFLICT (name) DO NOTHING",
									   bst_qualified("bst_tree_catalog"), owner),
							  11, types, args, nulls, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "writing the BloomSampleTree catalog failed");
	if (SPI_processed == 0)
		tree_exists(text_to_cstring(name));
}

/*
 * Build the new tree now (errors surface here, and this backend has it
 * cached): read under a snapshot that sees this command's catalog rows
 */
static void
build_now(text *name)
{
	CommandCounterIncrement();
	PushCopiedSnapshot(GetActiveSnapshot());
	UpdateActiveSnapshotCommandId();
	(void) bst_get_tree(text_to_cstring(name));
	PopActiveSnapshot();
}

/* the tree's parameters from arguments first.. first + 3 (m, k, seed, hash) */
static BsParams
params_args(FunctionCallInfo fcinfo, int first, const char *fn)
{
	for (int i = 0; i < first + 4; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
							errmsg("only leaf_size may be NULL in %s", fn)));
	return bf_make_params(PG_GETARG_INT32(first), PG_GETARG_INT32(first + 1),
						  PG_GETARG_INT32(first + 2),
						  text_to_cstring(PG_GETARG_TEXT_PP(first + 3)));
}

/* leaf_size argument i: BST_LEAF_AUTO when NULL */
static int64
leaf_arg(FunctionCallInfo fcinfo, int i)
{
	return PG_ARGISNULL(i) ? BST_LEAF_AUTO : PG_GETARG_INT64(i);
}

/*
 * bst_create(name, namespace_lo, namespace_hi, m, k, seed, hash, leaf_size):
 * a full tree over [lo, hi) owned by the caller, built now
 */
Datum
bst_create_sql(PG_FUNCTION_ARGS)
{
	BsParams	p;
	text	   *name;
	int64		lo,
				hi;
	int			depth;
	BstCatalogUser cu;

	/* every argument but leaf_size is checked for NULL first */
	p = params_args(fcinfo, 3, "bst_create");
	name = PG_GETARG_TEXT_PP(0);
	bst_check_tree_name(name);
	lo = PG_GETARG_INT64(1);
	hi = PG_GETARG_INT64(2);
	bst_acl_check_create(GetUserId());
	depth = bst_full_depth_for(name, lo, hi, &p, leaf_arg(fcinfo, 7));
	bst_catalog_enter(&cu);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	insert_def(name, false, lo, hi, &p, text_to_cstring(PG_GETARG_TEXT_PP(6)),
			   (int64) ((((uint64) hi - (uint64) lo) + (UINT64CONST(1) << depth) - 1) >> depth),
			   depth, cu.caller);
	SPI_finish();
	bst_catalog_leave(&cu);
	build_now(name);
	PG_RETURN_VOID();
}

/*
 * bst_create_pruned(name, source_query, m, k, seed, hash, leaf_size): a
 * pruned tree over the ids source_query returns (run as the caller), owned
 * by the caller, built now
 */
Datum
bst_create_pruned_sql(PG_FUNCTION_ARGS)
{
	text	   *name;
	ArrayType  *ids;
	BsParams	p;
	int64		span;
	BstCatalogUser cu;
	bool		exists;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("bst_create_pruned: name and source_query must not be NULL")));
	name = PG_GETARG_TEXT_PP(0);
	bst_check_tree_name(name);
	bst_acl_check_create(GetUserId());
	/* a taken name is refused before the query runs */
	bst_catalog_enter(&cu);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	exists = catalog_has(text_to_cstring(name));
	SPI_finish();
	bst_catalog_leave(&cu);
	if (exists)
		tree_exists(text_to_cstring(name));
	/* the caller's query, as the caller */
	ids = bst_collect_query_ids(text_to_cstring(PG_GETARG_TEXT_PP(1)));
	p = params_args(fcinfo, 2, "bst_create_pruned");
	span = bst_pruned_span_for(name, ids, &p, leaf_arg(fcinfo, 6));
	bst_catalog_enter(&cu);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	insert_def(name, true, 0, 0, &p, text_to_cstring(PG_GETARG_TEXT_PP(5)), span, 0, cu.caller);
	(void) bst_store_id_chunks(name, ids, 0, "bst_create_pruned");
	SPI_finish();
	bst_catalog_leave(&cu);
	build_now(name);
	PG_RETURN_VOID();
}

/* bst_extend(name, ids) -> how many ids were new; the owner only */
Datum
bst_extend_sql(PG_FUNCTION_ARGS)
{
	char	   *name = bst_tree_name_arg(fcinfo, 0);
	BstCatalogUser cu;
	ArrayType  *fresh;
	int			nfresh;
	Oid			types[3] = {TEXTOID, INT8ARRAYOID, INT8OID};
	Datum		args[3];

	/* the row lock serializes extensions of one tree */
	bst_catalog_open_owned(name, &cu);
	SPI_finish();
	bst_catalog_leave(&cu);
	fresh = bst_new_ids(name, PG_GETARG_ARRAYTYPE_P(1));
	nfresh = ArrayGetNItems(ARR_NDIM(fresh), ARR_DIMS(fresh));
	if (nfresh > 0)
	{
		bst_catalog_enter(&cu);
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		args[0] = CStringGetTextDatum(name);
		args[1] = PointerGetDatum(fresh);
		args[2] = Int64GetDatum(new_generation());
		if (SPI_execute_with_args(psprintf("INSERT INTO %s (name, chunk, ids) "
										   "SELECT $1, coalesce(max(t.chunk) + 1, 0), $2 "
										   "FROM %s t WHERE t.name = $1",
										   bst_qualified("bst_tree_ids"), bst_qualified("bst_tree_ids")),
								  2, types, args, NULL, false, 0) != SPI_OK_INSERT ||
			SPI_execute_with_args(psprintf("UPDATE %s SET generation = $3 WHERE name = $1",
										   bst_qualified("bst_tree_catalog")),
								  3, types, args, NULL, false, 0) != SPI_OK_UPDATE)
			elog(ERROR, "writing the BloomSampleTree catalog failed");
		SPI_finish();
		bst_catalog_leave(&cu);
	}
	bst_tree_changed(name, false);
	PG_RETURN_INT64(nfresh);
}

/* bst_drop(name): the owner only */
Datum
bst_drop_sql(PG_FUNCTION_ARGS)
{
	char	   *name = bst_tree_name_arg(fcinfo, 0);
	BstCatalogUser cu;
	Oid			types[1] = {TEXTOID};
	Datum		args[1] = {CStringGetTextDatum(name)};

	bst_catalog_open_owned(name, &cu);
	if (SPI_execute_with_args(psprintf("DELETE FROM %s WHERE name = $1", bst_qualified("bst_tree_catalog")),
							  1, types, args, NULL, false, 0) != SPI_OK_DELETE ||
		SPI_execute_with_args(psprintf("DELETE FROM %s WHERE name = $1", bst_qualified("bst_tree_ids")),
							  1, types, args, NULL, false, 0) != SPI_OK_DELETE)
		elog(ERROR, "writing the BloomSampleTree catalog failed");
	SPI_finish();
	bst_catalog_leave(&cu);
	bst_tree_changed(name, true);
	PG_RETURN_VOID();
}

/* error unless role is an existing role (regrole also reads bare numbers) */
static void
check_role_exists(Oid role)
{
	if (!OidIsValid(role) || !SearchSysCacheExists1(AUTHOID, ObjectIdGetDatum(role)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("role with OID %u does not exist", role)));
}

/* a grantee: a role name (as regrole reads it) or PUBLIC (InvalidOid) */
static Oid
grantee_oid(text *grantee)
{
	char	   *s = text_to_cstring(grantee);
	Oid			role;

	if (pg_strcasecmp(s, "public") == 0)
		return InvalidOid;
	role = DatumGetObjectId(DirectFunctionCall1(regrolein, CStringGetDatum(s)));
	check_role_exists(role);
	return role;
}

/* bst_grant / bst_revoke: the owner changes the grantees of tree name */
static void
change_grantees(FunctionCallInfo fcinfo, bool grant)
{
	char	   *name = bst_tree_name_arg(fcinfo, 0);
	Oid			role = grantee_oid(PG_GETARG_TEXT_PP(1));
	BstCatalogUser cu;
	Oid			types[2] = {TEXTOID, OIDOID};
	Datum		args[2];
	SPIPlanPtr	plan;

	bst_catalog_open_owned(name, &cu);
	plan = SPI_prepare(psprintf(grant ?
								"UPDATE %s SET grantees = grantees || $2::regrole "
								"WHERE name = $1 AND NOT $2 = ANY (grantees::oid[])" :
								"UPDATE %s SET grantees = array_remove(grantees::oid[], $2)::regrole[] "
								"WHERE name = $1",
								bst_qualified("bst_tree_catalog")), 2, types);
	if (!plan)
		elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
	args[0] = CStringGetTextDatum(name);
	args[1] = ObjectIdGetDatum(role);
	if (SPI_execute_plan(plan, args, NULL, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "updating the BloomSampleTree catalog failed");
	SPI_finish();
	bst_catalog_leave(&cu);
	/* every backend revalidates its cached privileges at its next call */
	bst_tree_changed(name, false);
}

/* bst_grant(name, grantee): grantee (a role or PUBLIC) may use the tree */
Datum
bst_grant(PG_FUNCTION_ARGS)
{
	change_grantees(fcinfo, true);
	PG_RETURN_VOID();
}

/* bst_revoke(name, grantee): grantee no longer may use the tree */
Datum
bst_revoke(PG_FUNCTION_ARGS)
{
	change_grantees(fcinfo, false);
	PG_RETURN_VOID();
}

/*
 * bst_set_owner(name, new_owner): gives a tree to another role, with the
 * rules of ALTER TABLE ... OWNER TO: the caller has the owner's privileges
 * and is a member of new_owner, which may create in the extension's schema
 * (superusers may give any tree to any role)
 */
Datum
bst_set_owner(PG_FUNCTION_ARGS)
{
	char	   *name = bst_tree_name_arg(fcinfo, 0);
	Oid			new_owner = PG_GETARG_OID(1);
	BstCatalogUser cu;
	Oid			types[2] = {TEXTOID, OIDOID};
	Datum		args[2];

	check_role_exists(new_owner);
	bst_catalog_open_owned(name, &cu);
	if (!superuser_arg(cu.caller))
	{
		if (!is_member_of_role(cu.caller, new_owner))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("must be member of role \"%s\"", GetUserNameFromId(new_owner, false))));
		bst_acl_check_create(new_owner);
	}
	args[0] = CStringGetTextDatum(name);
	args[1] = ObjectIdGetDatum(new_owner);
	if (SPI_execute_with_args(psprintf("UPDATE %s SET owner = $2::regrole WHERE name = $1",
									   bst_qualified("bst_tree_catalog")),
							  2, types, args, NULL, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "updating the BloomSampleTree catalog failed");
	SPI_finish();
	bst_catalog_leave(&cu);
	bst_tree_changed(name, false);
	PG_RETURN_VOID();
}
