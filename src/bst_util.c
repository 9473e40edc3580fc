/*
 * bst_util.c
 *    BloomSampleTree glue: allocators over memory contexts for the core,
 *    error reports of the core's result codes, result vectors bounded by the
 *    memory limit, the extension's schema, the query filter check and the
 *    check of tree names.  It calls only the settings (bst_settings.c) and
 *    the core: every other BloomSampleTree glue file may call it.
 */
#include "postgres.h"

#include <sys/mman.h>

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_extension.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "bst_settings.h"
#include "bst_util.h"

/* ---------------------------------------------------------------------------
 * allocators
 * ---------------------------------------------------------------------------
 */
/*
 * Allocations of this size or more (a tree's filters, its index) are
 * advised to use transparent huge pages where the kernel offers them only on
 * request: a tree is written at random places all over them while it is
 * built, and with 4 kB pages every write costs a page fault or a TLB miss
 * (building at M = 10^8 took twice as long).
 */
#define HUGE_PAGE_ADVICE_BYTES	((size_t) 8 << 20)
#define HUGE_PAGE_BYTES			((uintptr_t) 2 << 20)

/*
 * BstAlloc callbacks over a memory context (ctx): allocations of any size,
 * NULL instead of an error when memory runs out (the core reports
 * BST_ENOMEM), large blocks advised to use huge pages
 */
static void *
cxt_alloc(void *ctx, size_t size)
{
	void	   *p = MemoryContextAllocExtended((MemoryContext) ctx, size ? size : 1,
											   MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);

#ifdef MADV_HUGEPAGE
	if (p != NULL && size >= HUGE_PAGE_ADVICE_BYTES)
	{
		/* the whole huge pages inside the block; advice only, failure harmless */
		uintptr_t	a = TYPEALIGN(HUGE_PAGE_BYTES, (uintptr_t) p),
					e = TYPEALIGN_DOWN(HUGE_PAGE_BYTES, (uintptr_t) p + size);

		if (e > a)
			(void) madvise((void *) a, e - a, MADV_HUGEPAGE);
	}
#endif
	return p;
}

static void *
cxt_realloc(void *ctx, void *ptr, size_t size)
{
	(void) ctx;
	return repalloc_huge(ptr, size ? size : 1);
}

static void
cxt_free(void *ctx, void *ptr)
{
	(void) ctx;
	pfree(ptr);
}

/* an allocator for the core whose allocations live in cxt */
BstAlloc
bst_context_alloc(MemoryContext cxt)
{
	BstAlloc	a = {cxt_alloc, cxt_realloc, cxt_free, cxt};

	return a;
}

/* the same in CurrentMemoryContext */
BstAlloc
bst_scratch_alloc(void)
{
	return bst_context_alloc(CurrentMemoryContext);
}

void
bst_report(int rc, const char *what, uint64 bytes)
{
	if (rc == BST_OK)
		return;
	if (rc == BST_ENOMEM)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory while %s", what),
				 bytes ? errdetail("About " UINT64_FORMAT " MB were needed.",
								   (bytes + (1 << 20) - 1) >> 20) : 0));
	if (rc == BST_ELIMIT)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("more than " UINT64_FORMAT " ids while %s",
						bst_memory_limit_bytes() / sizeof(int64), what),
				 errdetail("At 8 bytes an id, a result of that many ids exceeds bloomsample.bst_memory_limit (%d MB).",
						   bst_memory_limit_mb),
				 errhint("Narrow the namespace, use a sparser query filter, or raise bloomsample.bst_memory_limit.")));
	if (rc == BST_EINTERNAL)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("internal error while %s", what),
				 errdetail("The inverted index's fill did not match its counts.")));
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("size limit exceeded while %s", what)));
}

void
bst_result_init(BstIdVec *out, const BstAlloc *scratch)
{
	bst_vec_init_max(out, scratch, (size_t) (bst_memory_limit_bytes() / sizeof(int64)));
}

/* the extension's schema, from pg_extension (no SQL: no search_path) */
Oid
bst_extension_schema(void)
{
	Oid			ext = get_extension_oid("bloomsample", false);
	Relation	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			nsp = InvalidOid;

	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(ext));
	scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
		nsp = ((Form_pg_extension) GETSTRUCT(tup))->extnamespace;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	if (!OidIsValid(nsp))
		elog(ERROR, "extension bloomsample is not installed");
	return nsp;
}

/* the extension's schema, looked up once per backend (no SQL: no search_path) */
const char *
bst_qualified(const char *relname)
{
	static char *schema = NULL;

	if (!schema)
		schema = MemoryContextStrdup(TopMemoryContext,
									 get_namespace_name(bst_extension_schema()));
	return quote_qualified_identifier(schema, relname);
}

void
bst_check_query(const BstTree *t, const char *name, const BloomView *q)
{
	if (!bs_params_equal(&t->p, &q->p))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("query filter does not match BloomSampleTree \"%s\"", name),
				 errdetail("The filter is %s, the tree is %s.",
						   bf_params_string(&q->p), bf_params_string(&t->p)),
				 errhint("Build the query filter with the tree's m, k, seed and hash family.")));
}

/* longest tree name, in bytes (README: BloomSampleTree limits) */
#define BST_MAX_NAME_BYTES	1000

/*
 * the name of a tree: not empty, at most BST_MAX_NAME_BYTES bytes (checked
 * before anything is inserted into the catalog, whose primary key could not
 * index a name over ~2,700 bytes); every function taking a tree name checks it
 */
void
bst_check_tree_name(text *name)
{
	if (VARSIZE_ANY_EXHDR(name) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("BloomSampleTree name must not be empty")));
	if (VARSIZE_ANY_EXHDR(name) > BST_MAX_NAME_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_NAME_TOO_LONG),
				 errmsg("BloomSampleTree name is too long (%zu bytes)",
						(size_t) VARSIZE_ANY_EXHDR(name)),
				 errdetail("A name has at most %d bytes.", BST_MAX_NAME_BYTES)));
}

/* argument i of a call: a tree name, checked, as a C string */
char *
bst_tree_name_arg(FunctionCallInfo fcinfo, int i)
{
	bst_check_tree_name(PG_GETARG_TEXT_PP(i));
	return text_to_cstring(PG_GETARG_TEXT_PP(i));
}
