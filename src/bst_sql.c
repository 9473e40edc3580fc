/*
 * bst_sql.c
 *    The SQL functions of the BloomSampleTree part: sizing, the pieces of
 *    creating and extending trees (validation, memory checks, the source
 *    query, storing ids: used by src/bst_manage.c, which owns the catalog
 *    rows, and by the helpers of version 1.1), sampling, reconstruction,
 *    and work counters (the baselines: bst_baseline_sql.c).  Design notes:
 *    docs/bloomsampletree.md.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "bs_estimate.h"
#include "bst_baseline.h"
#include "bst_gen.h"
#include "bst_cache.h"
#include "bst_plan.h"

PG_FUNCTION_INFO_V1(bst_plan_sql);
PG_FUNCTION_INFO_V1(bst_full_depth);
PG_FUNCTION_INFO_V1(bst_collect_ids);
PG_FUNCTION_INFO_V1(bst_pruned_leaf_size);
PG_FUNCTION_INFO_V1(bst_extend_ids);
PG_FUNCTION_INFO_V1(bst_store_ids);
PG_FUNCTION_INFO_V1(bst_set_generation);
PG_FUNCTION_INFO_V1(bst_forget);
PG_FUNCTION_INFO_V1(bst_info);
PG_FUNCTION_INFO_V1(bst_sample_sql);
PG_FUNCTION_INFO_V1(bst_reconstruct_sql);
PG_FUNCTION_INFO_V1(bst_sample_stats);
PG_FUNCTION_INFO_V1(bst_sample_distinct_sql);
PG_FUNCTION_INFO_V1(bst_sample_distinct_stats);
PG_FUNCTION_INFO_V1(bst_reconstruct_stats);

/* largest full-tree namespace (ids are 32-bit offsets in the index) */
#define BST_MAX_FULL_NAMESPACE	(INT64CONST(1) << 32) - 2

/* ---------------------------------------------------------------------------
 * helpers
 * ---------------------------------------------------------------------------
 */
static ArrayType *make_id_array(const int64 *ids, size_t n);

/* the SETOF bigint result ids[0 .. n-1], materialized; returns the Datum to return */
Datum
bst_return_ids(FunctionCallInfo fcinfo, const int64 *ids, size_t n)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	for (size_t i = 0; i < n; i++)
	{
		Datum		v = Int64GetDatum(ids[i]);
		bool		isnull = false;

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &v, &isnull);
	}
	return (Datum) 0;
}

static Datum
return_stats(FunctionCallInfo fcinfo, const BstStats *st)
{
	TupleDesc	desc;
	Datum		v[4];
	bool		nulls[4] = {false, false, false, false};

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	desc = BlessTupleDesc(desc);
	v[0] = Int64GetDatum((int64) st->intersections);
	v[1] = Int64GetDatum((int64) st->memberships);
	v[2] = Int64GetDatum((int64) st->nodes_visited);
	v[3] = Int64GetDatum((int64) st->backtracks);
	return HeapTupleGetDatum(heap_form_tuple(desc, v, nulls));
}

void
bst_check_namespace(int64 lo, int64 hi)
{
	if (hi <= lo)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("namespace [" INT64_FORMAT ", " INT64_FORMAT ") is %s", lo, hi,
						hi == lo ? "empty" : "reversed"),
				 errhint("The namespace is [lo, hi): lo must be less than hi.")));
}

void
bst_check_n(int64 n)
{
	if (n < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("number of samples n = " INT64_FORMAT " is negative", n),
				 errhint("Ask for n >= 0 samples.")));
	if (n > BST_MAX_SAMPLES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("number of samples n = " INT64_FORMAT " is too large", n),
				 errdetail("One call returns at most " INT64_FORMAT " samples.", BST_MAX_SAMPLES)));
}

/*
 * the tree, and q checked against it, read once: its dense bits, and for a
 * sparse value also its set positions (*qpos, else NULL), which the index
 * samplers take instead of scanning the m bits
 */
static BstTree *
tree_and_query(FunctionCallInfo fcinfo, char **name, BloomView *q, uint32 **qpos)
{
	BstTree    *t;

	bst_check_tree_name(PG_GETARG_TEXT_PP(0));
	bf_view_datum_positions(PG_GETARG_DATUM(1), q, qpos);
	t = bst_get_tree_for_call(fcinfo->flinfo, PG_GETARG_TEXT_PP(0), name);
	bst_check_query(t, *name, q);
	return t;
}

/* does the inverted index fit next to the tree? */
static bool
index_fits(const BstTree *t)
{
	return t->index != NULL ||
		bst_index_fits(bst_tree_bytes(t), bst_tree_nids(t), t->p.m, bst_memory_limit_bytes());
}

static void
index_needed(const BstTree *t, const char *name)
{
	if (!index_fits(t))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the index of BloomSampleTree \"%s\" would exceed bloomsample.bst_memory_limit", name),
				 errdetail("It needs about " UINT64_FORMAT " MB next to the tree's " UINT64_FORMAT " MB.",
						   bst_index_build_bytes(bst_tree_nids(t), t->p.m) >> 20,
						   bst_tree_bytes(t) >> 20),
				 errhint("Raise bloomsample.bst_memory_limit or use the 'tree' or 'descent' method.")));
}

/* ---------------------------------------------------------------------------
 * sizing and the helpers of bst_create / bst_create_pruned / bst_extend
 * ---------------------------------------------------------------------------
 */
Datum
bst_plan_sql(PG_FUNCTION_ARGS)
{
	int64		n = PG_GETARG_INT64(0);
	int64		M = PG_GETARG_INT64(1);
	double		acc = PG_GETARG_FLOAT8(2);
	int32		k = PG_GETARG_INT32(3);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	BstPlan		pl;
	Datum		v[6];
	bool		nulls[6] = {0};

	if (n < 1)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("set size n = " INT64_FORMAT " must be positive", n)));
	if (M <= n)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("namespace_size " INT64_FORMAT " must exceed n = " INT64_FORMAT, M, n)));
	if (!(acc > 0 && acc < 1))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("accuracy %g is out of range", acc),
						errdetail("The accuracy n / (n + (M - n) FP) must be in (0, 1): a Bloom filter always has false positives."),
						errhint("Ask for 0.99 or 0.999 instead of 1.")));
	if (k < BS_MIN_K || k > BS_MAX_K)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("hash count k = %d is out of range", k),
						errdetail("k must be between %d and %d.", BS_MIN_K, BS_MAX_K)));
	if (bst_plan_target_fp((double) n, (double) M, acc) >= 1.0)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("accuracy %g needs no filter for n = " INT64_FORMAT " in namespace_size " INT64_FORMAT,
							   acc, n, M),
						errdetail("Even a filter that reports every id as a member reaches accuracy n / namespace_size = %g.",
								  (double) n / (double) M),
						errhint("Ask for an accuracy above %g.", (double) n / (double) M)));
	bst_plan_full((double) n, (uint64) M, acc, k, bst_memory_limit_bytes(), &pl);
	if (pl.m > (int64) BS_MAX_M)
		ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						errmsg("accuracy %g needs m = " INT64_FORMAT " bits, more than the largest filter", acc, pl.m)));
	InitMaterializedSRF(fcinfo, 0);
	v[0] = Int64GetDatum(pl.m);
	v[1] = Int32GetDatum(pl.depth);
	v[2] = Int64GetDatum(pl.leaf_size);
	v[3] = Int64GetDatum(pl.nodes);
	v[4] = Int64GetDatum((int64) pl.memory_bytes);
	v[5] = Float8GetDatum(pl.expected_fp);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nulls);
	return (Datum) 0;
}

/*
 * bst_full_depth_for: validates a full tree's definition (name, [lo, hi),
 * leaf_size, or BST_LEAF_AUTO), checks its memory and returns its depth.
 */
int
bst_full_depth_for(text *name, int64 lo, int64 hi, const BsParams *p, int64 leaf)
{
	int64		M;
	int			depth;
	uint64		bytes;

	bst_check_tree_name(name);
	bst_check_namespace(lo, hi);
	if ((uint64) hi - (uint64) lo > (uint64) BST_MAX_FULL_NAMESPACE)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("namespace [" INT64_FORMAT ", " INT64_FORMAT ") is too large for a full tree",
						lo, hi),
				 errdetail("A full tree covers at most " INT64_FORMAT " ids.", BST_MAX_FULL_NAMESPACE),
				 errhint("Use bst_create_pruned over the ids that are actually occupied.")));
	M = hi - lo;
	if (leaf != BST_LEAF_AUTO && (leaf < 1 || leaf > M))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("leaf_size " INT64_FORMAT " is out of range", leaf),
				 errdetail("leaf_size must be between 1 and the namespace size " INT64_FORMAT ".", M)));
	depth = bst_plan_depth((uint64) M, p->m, p->k, leaf == BST_LEAF_AUTO ? 0 : leaf,
						   bst_memory_limit_bytes());
	bytes = bst_full_tree_bytes((uint64) M, p->m, depth);
	bst_check_memory(text_to_cstring(name), bytes, false,
					 psprintf("%d level%s of %u-bit filters", depth + 1, depth == 0 ? "" : "s", p->m));
	return depth;
}

/*
 * _bst_full_depth(name, lo, hi, m, k, seed, hash, leaf_size) -> depth
 * (the helper of version 1.1's bst_create)
 */
Datum
bst_full_depth(PG_FUNCTION_ARGS)
{
	BsParams	p;
	int64		leaf = BST_LEAF_AUTO;

	for (int i = 0; i < 7; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
							errmsg("only leaf_size may be NULL in bst_create")));
	bst_check_tree_name(PG_GETARG_TEXT_PP(0));
	bst_check_namespace(PG_GETARG_INT64(1), PG_GETARG_INT64(2));
	p = bf_make_params(PG_GETARG_INT32(3), PG_GETARG_INT32(4), PG_GETARG_INT32(5),
					   text_to_cstring(PG_GETARG_TEXT_PP(6)));
	if (!PG_ARGISNULL(7))
		leaf = PG_GETARG_INT64(7);
	PG_RETURN_INT32(bst_full_depth_for(PG_GETARG_TEXT_PP(0), PG_GETARG_INT64(1),
									   PG_GETARG_INT64(2), &p, leaf));
}

/*
 * bst_collect_query_ids: the ids source_query returns (run as the current
 * user, with the caller's search_path), sorted, distinct and validated
 */
ArrayType *
bst_collect_query_ids(const char *sql)
{
	MemoryContext outer = CurrentMemoryContext;
	int64	   *ids;
	size_t		n = 0,
				cap = 1024;
	Portal		portal;
	SPIPlanPtr	plan;
	ArrayType  *result;

	ids = palloc_extended(cap * sizeof(int64), MCXT_ALLOC_HUGE);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	plan = SPI_prepare(sql, 0, NULL);
	if (!plan)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("source_query could not be prepared: %s", SPI_result_code_string(SPI_result))));
	if (!SPI_is_cursor_plan(plan))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("source_query must be a query that returns rows"),
				 errdetail("source_query was: %s", sql)));
	portal = SPI_cursor_open(NULL, plan, NULL, NULL, true);
	/* the result's shape is known before any row is computed: check it first */
	if (portal->tupDesc == NULL || portal->tupDesc->natts != 1 ||
		TupleDescAttr(portal->tupDesc, 0)->atttypid != INT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("source_query must return exactly one bigint column"),
				 portal->tupDesc == NULL || portal->tupDesc->natts == 0 ?
				 errdetail("It returns no columns.") :
				 errdetail("It returns %d column(s), the first of type %s.",
						   portal->tupDesc->natts,
						   format_type_be(TupleDescAttr(portal->tupDesc, 0)->atttypid)),
				 errhint("Cast the id column to bigint: SELECT id::bigint FROM ...")));
	for (;;)
	{
		SPI_cursor_fetch(portal, true, 10000);
		if (SPI_processed == 0)
			break;
		for (uint64 r = 0; r < SPI_processed; r++)
		{
			bool		isnull;
			Datum		d = SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 1, &isnull);
			int64		x;

			if (isnull)
				ereport(ERROR,
						(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						 errmsg("source_query returned a NULL id"),
						 errhint("Filter NULLs out: ... WHERE id IS NOT NULL.")));
			x = DatumGetInt64(d);
			if (x < 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("source_query returned the negative id " INT64_FORMAT, x),
						 errdetail("A pruned tree holds ids in [0, 2^63).")));
			if (n == cap)
			{
				if (cap >= (size_t) UINT32_MAX - 2 ||
					(uint64) cap * 2 * sizeof(int64) > bst_memory_limit_bytes())
					ereport(ERROR,
							(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
							 errmsg("source_query returned more than %zu ids", cap),
							 errdetail("Collecting them would exceed bloomsample.bst_memory_limit (%d MB) or 2^32 ids.",
									   bst_memory_limit_mb)));
				cap *= 2;
				ids = repalloc_huge(ids, cap * sizeof(int64));
			}
			ids[n++] = x;
		}
		SPI_freetuptable(SPI_tuptable);
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(portal);
	SPI_finish();
	n = bst_sort_unique(ids, n);
	if ((uint64) n * sizeof(int64) + ARR_OVERHEAD_NONULLS(1) > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("source_query returned %zu distinct ids, more than one call can hold", n)));
	MemoryContextSwitchTo(outer);
	result = make_id_array(ids, n);
	return result;
}

/* _bst_collect_ids(source_query) -> bigint[] (the helper of version 1.1) */
Datum
bst_collect_ids(PG_FUNCTION_ARGS)
{
	PG_RETURN_ARRAYTYPE_P(bst_collect_query_ids(text_to_cstring(PG_GETARG_TEXT_PP(0))));
}

/* int64 contents of a bigint[] without NULLs; errors name the function */
static int64 *
array_ids(ArrayType *a, int *n, const char *what)
{
	if (ARR_ELEMTYPE(a) != INT8OID)
		elog(ERROR, "%s: expected bigint[]", what);
	if (ARR_NDIM(a) > 1)
		ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
						errmsg("%s: ids must be a one-dimensional array", what)));
	if (ARR_HASNULL(a) && array_contains_nulls(a))
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						errmsg("%s: ids must not contain NULL", what)));
	*n = ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a));
	return (int64 *) ARR_DATA_PTR(a);
}

/*
 * bst_pruned_span_for: the leaf span (a power of two) of a pruned tree of
 * ids (leaf_size, or BST_LEAF_AUTO); checks the name, ids and memory.
 */
int64
bst_pruned_span_for(text *name, ArrayType *a, const BsParams *p, int64 leaf)
{
	int			n;
	int64	   *ids;
	int			bits;
	uint64		bytes;

	bst_check_tree_name(name);
	ids = array_ids(a, &n, "bst_create_pruned");
	if (leaf == BST_LEAF_AUTO)
		bits = bst_plan_pruned_leaf_bits(ids, (size_t) n, p->m, p->k, bst_memory_limit_bytes());
	else
	{
		if (leaf < 1 || leaf > (INT64CONST(1) << 62))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("leaf_size " INT64_FORMAT " is out of range", leaf),
					 errdetail("leaf_size must be between 1 and 2^62.")));
		/* an explicit leaf_size is the span of a leaf, rounded up to a power of two */
		bits = bst_leaf_bits_for_span(leaf);
	}
	bytes = bst_pruned_tree_bytes(ids, (size_t) n, bits, p->m);
	bst_check_memory(text_to_cstring(name), bytes, false, NULL);
	return INT64CONST(1) << bits;
}

/*
 * _bst_pruned_leaf_size(name, ids, m, k, seed, hash, leaf_size) -> the leaf
 * span (the helper of version 1.1's bst_create_pruned)
 */
Datum
bst_pruned_leaf_size(PG_FUNCTION_ARGS)
{
	BsParams	p;
	int64		leaf = BST_LEAF_AUTO;

	for (int i = 0; i < 6; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
							errmsg("only leaf_size may be NULL in bst_create_pruned")));
	bst_check_tree_name(PG_GETARG_TEXT_PP(0));
	p = bf_make_params(PG_GETARG_INT32(2), PG_GETARG_INT32(3), PG_GETARG_INT32(4),
					   text_to_cstring(PG_GETARG_TEXT_PP(5)));
	if (!PG_ARGISNULL(6))
		leaf = PG_GETARG_INT64(6);
	PG_RETURN_INT64(bst_pruned_span_for(PG_GETARG_TEXT_PP(0), PG_GETARG_ARRAYTYPE_P(1), &p, leaf));
}

/* a one-dimensional bigint[] of ids[0 .. n-1] (no NULLs) */
static ArrayType *
make_id_array(const int64 *ids, size_t n)
{
	Size		nbytes = ARR_OVERHEAD_NONULLS(1) + n * sizeof(int64);
	ArrayType  *r = (ArrayType *) palloc0(n ? nbytes : ARR_OVERHEAD_NONULLS(0));

	SET_VARSIZE(r, n ? nbytes : ARR_OVERHEAD_NONULLS(0));
	r->ndim = n ? 1 : 0;
	r->elemtype = INT8OID;
	if (n)
	{
		ARR_DIMS(r)[0] = (int) n;
		ARR_LBOUND(r)[0] = 1;
		memcpy(ARR_DATA_PTR(r), ids, n * sizeof(int64));
	}
	return r;
}

/*
 * bst_store_id_chunks: stores ids in bst_tree_ids as chunks of 100,000,
 * numbered from first (slicing in SQL would copy the whole array once per
 * chunk), as the current user; returns the chunks written.  what names the
 * caller in errors.
 */
int32
bst_store_id_chunks(text *name, ArrayType *a, int32 first, const char *what)
{
	int			n;
	int64	   *ids;
	const int	chunk = 100000;
	Oid			types[3] = {TEXTOID, INT4OID, INT8ARRAYOID};
	SPIPlanPtr	plan;
	int32		written = 0;

	bst_check_tree_name(name);
	ids = array_ids(a, &n, what);
	for (int i = 0; i < n; i++)
		if (ids[i] < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: id " INT64_FORMAT " is negative", what, ids[i]),
					 errdetail("A pruned tree holds ids in [0, 2^63).")));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	plan = SPI_prepare(psprintf("INSERT INTO %s (name, chunk, ids) VALUES ($1, $2, $3)",
								bst_qualified("bst_tree_ids")), 3, types);
	if (!plan)
		elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
	for (int off = 0; off < n; off += chunk)
	{
		Datum		args[3];
		ArrayType  *c = make_id_array(ids + off, Min(chunk, n - off));

		args[0] = PointerGetDatum(name);
		args[1] = Int32GetDatum(first + written);
		args[2] = PointerGetDatum(c);
		if (SPI_execute_plan(plan, args, NULL, false, 0) != SPI_OK_INSERT)
			elog(ERROR, "storing the ids of a BloomSampleTree failed");
		pfree(c);
		written++;
		CHECK_FOR_INTERRUPTS();
	}
	SPI_finish();
	return written;
}

/*
 * _bst_store_ids(name, ids, first_chunk) -> chunks written (a helper of
 * version 1.1; in 1.2 only the catalog's owner may call it)
 */
Datum
bst_store_ids(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(bst_store_id_chunks(PG_GETARG_TEXT_PP(0), PG_GETARG_ARRAYTYPE_P(1),
										PG_GETARG_INT32(2), "_bst_store_ids"));
}

/*
 * bst_new_ids: the ids of a that tree name does not hold yet, sorted and
 * distinct, after a memory check of the extended tree; forgets the cached
 * tree (the caller stores them and sets a new generation)
 */
ArrayType *
bst_new_ids(const char *name, ArrayType *a)
{
	int			n;
	int64	   *ids;
	BstTree    *t;
	int64	   *copy;
	size_t		nnew = 0;

	ids = array_ids(a, &n, "bst_extend");
	for (int i = 0; i < n; i++)
		if (ids[i] < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("bst_extend: id " INT64_FORMAT " is negative", ids[i]),
					 errdetail("A pruned tree holds ids in [0, 2^63).")));
	t = bst_get_tree(name);
	if (t->kind != BST_KIND_PRUNED)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("BloomSampleTree \"%s\" is a full tree", name),
				 errhint("Only trees made by bst_create_pruned can be extended.")));
	copy = palloc_extended(Max(n, 1) * sizeof(int64), MCXT_ALLOC_HUGE);
	for (int i = 0; i < n; i++)
	{
		int64		x = ids[i];
		size_t		lo = 0,
					hi = t->nids;

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();

		while (lo < hi)
		{
			size_t		mid = (lo + hi) / 2;

			if (t->ids[mid] < x)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == t->nids || t->ids[lo] != x)
			copy[nnew++] = x;
	}
	nnew = bst_sort_unique(copy, nnew);
	bst_check_memory(name, bst_extended_tree_bytes(t, copy, nnew), true,
					 psprintf("%zu new ids", nnew));
	/* the next use rebuilds the tree of the new generation from the catalog */
	bst_cache_forget(name);
	return make_id_array(copy, nnew);
}

/* _bst_extend(name, ids) -> the new ids (the helper of version 1.1's bst_extend) */
Datum
bst_extend_ids(PG_FUNCTION_ARGS)
{
	PG_RETURN_ARRAYTYPE_P(bst_new_ids(text_to_cstring(PG_GETARG_TEXT_PP(0)),
									  PG_GETARG_ARRAYTYPE_P(1)));
}

/* _bst_set_generation(name, generation): the tree was extended (or not) */
Datum
bst_set_generation(PG_FUNCTION_ARGS)
{
	bst_tree_changed(text_to_cstring(PG_GETARG_TEXT_PP(0)), false);
	PG_RETURN_VOID();
}

/* _bst_forget(name): the tree was dropped */
Datum
bst_forget(PG_FUNCTION_ARGS)
{
	bst_tree_changed(text_to_cstring(PG_GETARG_TEXT_PP(0)), true);
	PG_RETURN_VOID();
}

/*
 * bst_info(name): one row describing the tree as this backend uses it:
 * shared (mapped from the cluster's one image file of image_bytes) or not
 */
Datum
bst_info(PG_FUNCTION_ARGS)
{
	char	   *name;
	BstTree    *t;
	TupleDesc	desc;
	Datum		v[17];
	bool		nulls[17] = {0};
	int64		leaves = 0;
	uint64		image_bytes;

	bst_check_tree_name(PG_GETARG_TEXT_PP(0));
	name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	t = bst_get_tree(name);
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	desc = BlessTupleDesc(desc);
	for (int32 i = 0; i < t->nnodes; i++)
		leaves += bst_node_is_leaf(t, i);
	v[0] = CStringGetTextDatum(name);
	v[1] = CStringGetTextDatum(t->kind == BST_KIND_FULL ? "full" : "pruned");
	v[2] = Int64GetDatum(t->lo);
	v[3] = Int64GetDatum(t->hi);
	v[4] = Int32GetDatum((int32) t->p.m);
	v[5] = Int32GetDatum(t->p.k);
	v[6] = Int32GetDatum(t->p.seed);
	v[7] = CStringGetTextDatum(bs_hash_family_name(t->p.hash));
	v[8] = Int32GetDatum(t->depth);
	v[9] = Int64GetDatum(t->leaf_size);
	v[10] = Int64GetDatum(t->nnodes);
	v[11] = Int64GetDatum(leaves);
	v[12] = Int64GetDatum((int64) bst_tree_nids(t));
	v[13] = Int64GetDatum((int64) (bst_tree_bytes(t) -
								   (t->index ? bst_index_bytes(t->index->nentries, t->p.m) : 0)));
	v[14] = Int64GetDatum(t->index ? (int64) bst_index_bytes(t->index->nentries, t->p.m) : 0);
	v[15] = BoolGetDatum(bst_tree_shared(t, &image_bytes));
	v[16] = Int64GetDatum((int64) image_bytes);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, v, nulls)));
}

/* ---------------------------------------------------------------------------
 * sampling and reconstruction
 * ---------------------------------------------------------------------------
 */
/* a search on the tree and query of fcinfo: ids into *out, work into *st (if not NULL) */
typedef void (*BstSearchFn) (FunctionCallInfo fcinfo, BstIdVec *out, BstStats *st);

/* the SETOF bigint result of a search: its ids */
static Datum
run_ids(FunctionCallInfo fcinfo, BstSearchFn search)
{
	BstIdVec	out;

	search(fcinfo, &out, NULL);
	return bst_return_ids(fcinfo, out.v, out.n);
}

/* the *_stats result of a search: its work counters (the ids are dropped) */
static Datum
run_stats(FunctionCallInfo fcinfo, BstSearchFn search)
{
	BstIdVec	out;
	BstStats	st = {0};

	search(fcinfo, &out, &st);
	return return_stats(fcinfo, &st);
}

/* bst_sample and bst_sample_distinct: n samples, with replacement or distinct */
static void
sample_common(FunctionCallInfo fcinfo, BstIdVec *out, BstStats *st, bool distinct)
{
	char	   *name;
	BloomView	q;
	uint32	   *qpos;
	BstTree    *t = tree_and_query(fcinfo, &name, &q, &qpos);
	int64		n = PG_GETARG_INT32(2);
	BstAlloc	scratch = bst_scratch_alloc();
	BstRng		rng;
	BstSampleMethod method = (BstSampleMethod) bst_sample_method;
	bool		fits = index_fits(t);
	int			rc;

	bst_check_n(n);
	if (method == BST_SAMPLE_ENUMERATE)
		index_needed(t, name);
	bst_rng_init(&rng);
	bst_result_init(out, &scratch);
	if (distinct)
		rc = bst_sample_distinct_pos(t, q.bits, qpos, qpos ? q.sp.n : 0, n, method, fits,
									 &rng, &scratch, out, st, NULL);
	else
		rc = bst_sample_pos(t, q.bits, qpos, qpos ? q.sp.n : 0, n, method, fits, &rng,
							&scratch, out, st, NULL);
	bst_report(rc, "sampling", 0);
}

static void
do_sample(FunctionCallInfo fcinfo, BstIdVec *out, BstStats *st)
{
	sample_common(fcinfo, out, st, false);
}

static void
do_sample_distinct(FunctionCallInfo fcinfo, BstIdVec *out, BstStats *st)
{
	sample_common(fcinfo, out, st, true);
}

Datum
bst_sample_sql(PG_FUNCTION_ARGS)
{
	return run_ids(fcinfo, do_sample);
}

Datum
bst_sample_stats(PG_FUNCTION_ARGS)
{
	return run_stats(fcinfo, do_sample);
}

Datum
bst_sample_distinct_sql(PG_FUNCTION_ARGS)
{
	return run_ids(fcinfo, do_sample_distinct);
}

Datum
bst_sample_distinct_stats(PG_FUNCTION_ARGS)
{
	return run_stats(fcinfo, do_sample_distinct);
}

static void
do_reconstruct(FunctionCallInfo fcinfo, BstIdVec *out, BstStats *st)
{
	char	   *name;
	BloomView	q;
	uint32	   *qpos;
	BstTree    *t = tree_and_query(fcinfo, &name, &q, &qpos);
	BstAlloc	scratch = bst_scratch_alloc();
	int			rc;
	BstWay		way;

	switch (bst_reconstruct_method)
	{
		case BST_RECON_INDEX:
			index_needed(t, name);
			way = BST_WAY_INDEX;
			break;
		case BST_RECON_TREE:
			way = BST_WAY_TREE;
			break;
		case BST_RECON_SCAN:
			way = BST_WAY_SCAN;
			break;
		default:
			/* auto: the cheaper of index and scan (the cost model, bst_plan.h) */
			way = bst_reconstruct_choose(t, qpos ? q.sp.n : bs_popcount(q.bits, t->nwords),
										 index_fits(t));
			break;
	}
	bst_result_init(out, &scratch);
	rc = bst_reconstruct_way(t, q.bits, qpos, qpos ? q.sp.n : 0, way, out, st);
	bst_report(rc, "reconstructing", 0);
}

Datum
bst_reconstruct_sql(PG_FUNCTION_ARGS)
{
	return run_ids(fcinfo, do_reconstruct);
}

Datum
bst_reconstruct_stats(PG_FUNCTION_ARGS)
{
	return run_stats(fcinfo, do_reconstruct);
}
