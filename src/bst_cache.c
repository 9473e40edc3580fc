/*
 * bst_cache.c
 *    BloomSampleTree glue: GUCs, allocators, error reporting and the
 *    per-backend cache of trees.
 *
 * Tree definitions live in the extension's tables bst_tree_catalog (one row
 * per tree, with a random `generation` changed by every bst_extend) and
 * bst_tree_ids (a pruned tree's occupied ids, in chunks).  A backend builds a
 * tree from its row on first use and keeps it, in a memory context of its
 * own, keyed by name and generation: each call reads the row again (one
 * indexed lookup through a saved SPI plan), so a tree dropped, re-created or
 * extended by another session is rebuilt, never used stale.  The trees a
 * backend keeps take at most bloomsample.bst_memory_limit together: the least
 * recently used ones are dropped from memory to make room.  Design notes:
 * docs/bloomsampletree.md (storage, cache and concurrency).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "common/pg_prng.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "bst_glue.h"

int			bst_memory_limit_mb = 2048;
int			bst_sample_method = BST_SAMPLE_AUTO;
int			bst_reconstruct_method = BST_RECON_AUTO;
int			bst_random_seed = -1;

static const struct config_enum_entry sample_method_options[] = {
	{"auto", BST_SAMPLE_AUTO, false},
	{"descent", BST_SAMPLE_DESCENT, false},
	{"enumerate", BST_SAMPLE_ENUMERATE, false},
	{NULL, 0, false}
};

static const struct config_enum_entry recon_method_options[] = {
	{"auto", BST_RECON_AUTO, false},
	{"index", BST_RECON_INDEX, false},
	{"tree", BST_RECON_TREE, false},
	{NULL, 0, false}
};

/* the session's generator when bloomsample.bst_random_seed >= 0 */
static BstRng session_rng;
static bool session_rng_stale = true;

static void
random_seed_assign(int newval, void *extra)
{
	(void) newval;
	(void) extra;
	session_rng_stale = true;	/* reseeded from the new value on next use */
}

static void
bst_check_interrupts(void)
{
	CHECK_FOR_INTERRUPTS();
}

/*
 * bst_init_gucs: define the part's GUCs once per backend (from _PG_init;
 * the bst functions call it too, a no-op after the first time).  Also points
 * the core's interrupt hook at CHECK_FOR_INTERRUPTS.
 */
void
bst_init_gucs(void)
{
	static bool done = false;

	bst_interrupt_hook = bst_check_interrupts;
	if (done)
		return;
	done = true;
	DefineCustomIntVariable("bloomsample.bst_memory_limit",
							"Most memory one BloomSampleTree (with its index) may take in a backend.",
							NULL, &bst_memory_limit_mb, 2048, 1, INT_MAX / 2,
							PGC_USERSET, GUC_UNIT_MB, NULL, NULL, NULL);
	DefineCustomEnumVariable("bloomsample.bst_sample_method",
							 "How bst_sample draws: auto (exact), enumerate (index, exact) or descent (Algorithm 1 with rejection; uniform only for many samples per call).",
							 NULL, &bst_sample_method, BST_SAMPLE_AUTO,
							 sample_method_options, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("bloomsample.bst_reconstruct_method",
							 "How bst_reconstruct works: auto, index or tree.",
							 NULL, &bst_reconstruct_method, BST_RECON_AUTO,
							 recon_method_options, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("bloomsample.bst_random_seed",
							"Seed of the sampling functions' random numbers (-1: random).",
							"Setting a seed >= 0 restarts the session's sampling stream from it (like setseed()).",
							&bst_random_seed, -1, -1, INT_MAX,
							PGC_USERSET, 0, NULL, random_seed_assign, NULL);
}

uint64
bst_memory_limit_bytes(void)
{
	return (uint64) bst_memory_limit_mb * 1024 * 1024;
}

void
bst_rng_init(BstRng *rng)
{
	if (bst_random_seed >= 0)
	{
		/* each call draws its own generator from the session's seeded stream */
		if (session_rng_stale)
		{
			bst_rng_seed(&session_rng, (uint64) bst_random_seed);
			session_rng_stale = false;
		}
		bst_rng_seed(rng, bst_rng_next(&session_rng));
	}
	else
		bst_rng_seed(rng, pg_prng_uint64(&pg_global_prng_state));
}

/* ---------------------------------------------------------------------------
 * allocators
 * ---------------------------------------------------------------------------
 */
static void *
cxt_alloc(void *ctx, size_t size)
{
	return MemoryContextAllocExtended((MemoryContext) ctx, size ? size : 1,
									  MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
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

BstAlloc
bst_context_alloc(MemoryContext cxt)
{
	BstAlloc	a = {cxt_alloc, cxt_realloc, cxt_free, cxt};

	return a;
}

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
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("size limit exceeded while %s", what)));
}

void
bst_result_init(BstIdVec *out, const BstAlloc *scratch)
{
	bst_vec_init_max(out, scratch, (size_t) (bst_memory_limit_bytes() / sizeof(int64)));
}

/* (inside SPI) the extension's schema, looked up once per backend */
const char *
bst_qualified(const char *relname)
{
	static char *schema = NULL;

	if (!schema)
	{
		if (SPI_execute("SELECT n.nspname FROM pg_catalog.pg_extension e "
						"JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace "
						"WHERE e.extname = 'bloomsample'", true, 1) != SPI_OK_SELECT ||
			SPI_processed != 1)
			elog(ERROR, "extension bloomsample is not installed");
		schema = MemoryContextStrdup(TopMemoryContext,
									 SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1));
	}
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

/* ---------------------------------------------------------------------------
 * the cache
 * ---------------------------------------------------------------------------
 */
typedef struct BstCacheEntry
{
	struct BstCacheEntry *next;
	char	   *name;
	int64		generation;
	uint64		last_use;		/* value of use_clock at the last lookup */
	MemoryContext cxt;
	BstTree    *tree;
} BstCacheEntry;

static BstCacheEntry *cache = NULL;
static uint64 use_clock = 0;

/*
 * Make room for a tree of `bytes`: while the cached trees and it would exceed
 * bloomsample.bst_memory_limit, drop the least recently used tree from this
 * backend's memory (it is rebuilt from the catalog on its next use).
 */
static void
cache_make_room(uint64 bytes)
{
	for (;;)
	{
		uint64		total = bytes;
		BstCacheEntry *lru = NULL;

		for (BstCacheEntry *e = cache; e; e = e->next)
		{
			total += e->tree ? bst_tree_bytes(e->tree) : 0;
			if (!lru || e->last_use < lru->last_use)
				lru = e;
		}
		if (total <= bst_memory_limit_bytes() || !lru)
			return;
		elog(DEBUG1, "BloomSampleTree \"%s\" dropped from this backend's memory to make room",
			 lru->name);
		bst_cache_forget(lru->name);
	}
}

static BstCacheEntry *
cache_find(const char *name, BstCacheEntry ***link)
{
	BstCacheEntry **l = &cache;

	for (; *l; l = &(*l)->next)
		if (strcmp((*l)->name, name) == 0)
		{
			if (link)
				*link = l;
			return *l;
		}
	return NULL;
}

void
bst_cache_forget(const char *name)
{
	BstCacheEntry **link;
	BstCacheEntry *e = cache_find(name, &link);

	if (e)
	{
		*link = e->next;
		MemoryContextDelete(e->cxt);
	}
}

void
bst_cache_set_generation(const char *name, int64 generation)
{
	BstCacheEntry *e = cache_find(name, NULL);

	if (e)
		e->generation = generation;
}

/* a catalog row */
typedef struct BstDef
{
	bool		pruned;
	int64		lo;
	int64		hi;
	BsParams	p;
	int64		leaf_size;
	int			depth;
	int64		generation;
} BstDef;

static SPIPlanPtr def_plan = NULL;
static SPIPlanPtr ids_plan = NULL;

static SPIPlanPtr
keep_plan(const char *sql, int nargs, Oid *types)
{
	SPIPlanPtr	p = SPI_prepare(sql, nargs, types);

	if (!p)
		elog(ERROR, "SPI_prepare failed for \"%s\": %s", sql, SPI_result_code_string(SPI_result));
	SPI_keepplan(p);
	return p;
}

static int64
get_int8(HeapTuple tup, TupleDesc desc, int col, bool *isnull)
{
	Datum		d = SPI_getbinval(tup, desc, col, isnull);

	return *isnull ? 0 : DatumGetInt64(d);
}

/* read the row of name into *def; false when there is none (inside SPI) */
static bool
read_def(const char *name, BstDef *def)
{
	Oid			types[1] = {TEXTOID};
	Datum		args[1];
	HeapTuple	tup;
	TupleDesc	desc;
	bool		isnull;
	char	   *hash;

	if (!def_plan)
		def_plan = keep_plan(psprintf("SELECT kind, namespace_lo, namespace_hi, m::int8, k::int8, "
									  "seed::int8, hash, leaf_size, depth::int8, generation "
									  "FROM %s WHERE name = $1",
									  bst_qualified("bst_tree_catalog")), 1, types);
	args[0] = CStringGetTextDatum(name);
	if (SPI_execute_plan(def_plan, args, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "reading the BloomSampleTree catalog failed");
	if (SPI_processed == 0)
		return false;
	tup = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;
	def->pruned = strcmp(SPI_getvalue(tup, desc, 1), "pruned") == 0;
	def->lo = get_int8(tup, desc, 2, &isnull);
	def->hi = get_int8(tup, desc, 3, &isnull);
	hash = SPI_getvalue(tup, desc, 7);
	def->p = bf_make_params(get_int8(tup, desc, 4, &isnull), get_int8(tup, desc, 5, &isnull),
							get_int8(tup, desc, 6, &isnull), hash);
	def->leaf_size = get_int8(tup, desc, 8, &isnull);
	def->depth = (int) get_int8(tup, desc, 9, &isnull);
	def->generation = get_int8(tup, desc, 10, &isnull);
	return true;
}

/*
 * Row r of the SPI result of ids_plan: its chunk of ids (NULL for a NULL
 * row) and, in *cnt, how many it holds.  A chunk that is not a
 * one-dimensional bigint[] without NULLs is reported as corrupt.
 */
static ArrayType *
ids_chunk(const char *name, uint64 r, int *cnt)
{
	bool		isnull;
	Datum		d = SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 1, &isnull);
	ArrayType  *a;

	if (isnull)
		return NULL;
	a = DatumGetArrayTypeP(d);
	if (ARR_ELEMTYPE(a) != INT8OID || ARR_HASNULL(a) || ARR_NDIM(a) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("ids of BloomSampleTree \"%s\" are corrupt", name)));
	*cnt = ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a));
	return a;
}

/* a pruned tree's ids, sorted and distinct, in cxt (inside SPI) */
static int64 *
read_ids(const char *name, MemoryContext cxt, size_t *nids)
{
	Oid			types[1] = {TEXTOID};
	Datum		args[1];
	size_t		n = 0;
	int64	   *ids;

	if (!ids_plan)
		ids_plan = keep_plan(psprintf("SELECT ids FROM %s WHERE name = $1 ORDER BY chunk",
									  bst_qualified("bst_tree_ids")), 1, types);
	args[0] = CStringGetTextDatum(name);
	if (SPI_execute_plan(ids_plan, args, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "reading the ids of BloomSampleTree \"%s\" failed", name);
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		int			cnt = 0;

		if (ids_chunk(name, r, &cnt) != NULL)
			n += cnt;
	}
	ids = MemoryContextAllocExtended(cxt, Max(n, 1) * sizeof(int64), MCXT_ALLOC_HUGE);
	n = 0;
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		int			cnt = 0;
		ArrayType  *a = ids_chunk(name, r, &cnt);

		if (a == NULL)
			continue;
		memcpy(ids + n, ARR_DATA_PTR(a), cnt * sizeof(int64));
		n += cnt;
		CHECK_FOR_INTERRUPTS();
	}
	*nids = bst_sort_unique(ids, n);
	/* the functions that store ids reject negative ones */
	if (*nids > 0 && ids[0] < 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("ids of BloomSampleTree \"%s\" are corrupt", name),
				 errdetail("It holds the negative id " INT64_FORMAT ".", ids[0])));
	return ids;
}

void
bst_check_memory(const char *name, uint64 bytes, bool extending, const char *detail)
{
	uint64		mb = (bytes + (1 << 20) - 1) >> 20;

	if (bytes <= bst_memory_limit_bytes())
		return;
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 extending ?
			 errmsg("extending BloomSampleTree \"%s\" would take it to " UINT64_FORMAT " MB of memory",
					name, mb) :
			 errmsg("BloomSampleTree \"%s\" would take " UINT64_FORMAT " MB of memory", name, mb),
			 errdetail("%s%sbloomsample.bst_memory_limit is %d MB.",
					   detail ? detail : "", detail ? "; " : "", bst_memory_limit_mb),
			 extending ?
			 errhint("Raise bloomsample.bst_memory_limit, or re-create the tree with a larger leaf_size.") :
			 errhint("Use a larger leaf_size, a smaller m, or raise bloomsample.bst_memory_limit.")));
}

/* build the tree of def in a new context (inside SPI for pruned ids) */
static BstCacheEntry *
build_entry(const char *name, const BstDef *def)
{
	MemoryContext cxt = AllocSetContextCreate(TopMemoryContext, "BloomSampleTree",
											  ALLOCSET_DEFAULT_SIZES);
	BstCacheEntry *e;

	PG_TRY();
	{
		BstAlloc	alloc = bst_context_alloc(cxt);
		BstTree    *t = NULL;
		int			rc;
		uint64		bytes;

		e = MemoryContextAllocZero(cxt, sizeof(BstCacheEntry));
		e->name = MemoryContextStrdup(cxt, name);
		e->generation = def->generation;
		e->cxt = cxt;
		/* pg_backend_memory_contexts shows the tree's context by its name */
		MemoryContextSetIdentifier(cxt, e->name);
		if (!def->pruned)
		{
			uint64		M = (uint64) (def->hi - def->lo);

			bytes = bst_full_tree_bytes(M, def->p.m, def->depth);
			bst_check_memory(name, bytes, false, NULL);
			/* build the index in the same pass when it fits too */
			rc = bst_build_full(&def->p, def->lo, def->hi, def->depth,
								bst_index_fits(bytes, M, def->p.m, bst_memory_limit_bytes()),
								&alloc, &t);
		}
		else
		{
			size_t		nids;
			int64	   *ids = read_ids(name, cxt, &nids);
			int			leaf_bits = bst_leaf_bits_for_span(def->leaf_size);

			bytes = bst_pruned_tree_bytes(ids, nids, leaf_bits, def->p.m);
			bst_check_memory(name, bytes, false, NULL);
			rc = bst_build_pruned(&def->p, ids, nids, leaf_bits,
								  bst_index_fits(bytes, nids, def->p.m, bst_memory_limit_bytes()),
								  &alloc, &t);
			pfree(ids);
		}
		bst_report(rc, psprintf("building BloomSampleTree \"%s\"", name), bytes);
		e->tree = t;
		elog(DEBUG1, "BloomSampleTree \"%s\" built in this backend: " UINT64_FORMAT " bytes",
			 name, bst_tree_bytes(t));
	}
	PG_CATCH();
	{
		MemoryContextDelete(cxt);
		PG_RE_THROW();
	}
	PG_END_TRY();
	return e;
}

BstTree *
bst_get_tree(const char *name)
{
	BstDef		def;
	BstCacheEntry *e;
	bool		found;

	bst_init_gucs();
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	found = read_def(name, &def);
	if (!found)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("BloomSampleTree \"%s\" does not exist", name),
				 errhint("The view bst_trees lists the trees; bst_create and bst_create_pruned make them.")));
	e = cache_find(name, NULL);
	if (e && e->generation != def.generation)
	{
		bst_cache_forget(name);
		e = NULL;
	}
	if (!e)
	{
		if (!def.pruned)
			cache_make_room(bst_full_tree_bytes((uint64) (def.hi - def.lo), def.p.m, def.depth));
		else
			cache_make_room(0);
		e = build_entry(name, &def);
		e->next = cache;
		cache = e;
	}
	e->last_use = ++use_clock;
	SPI_finish();
	return e->tree;
}
