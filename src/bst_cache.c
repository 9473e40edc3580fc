/*
 * bst_cache.c
 *    BloomSampleTree glue: the per-backend cache of trees (which generation
 *    a snapshot sees, building, mapping, aborts, per-call reuse).
 *
 * Tree definitions live in the extension's tables bst_tree_catalog (one row
 * per tree, with a random `generation` changed by every bst_extend) and
 * bst_tree_ids (a pruned tree's occupied ids, in chunks).  A tree is a
 * deterministic function of its definition: the first backend of the
 * cluster that needs a (tree, generation) builds it and writes its flat
 * image (bst_image_files.h), under a per-tree build lock so that
 * concurrent first users build it once; every backend and parallel worker
 * then maps that file read-only, so the page cache holds one copy for the
 * whole cluster.
 *
 * Which generation a call uses is decided by the catalog row that the
 * call's snapshot sees, never by a newer or older one: each cached tree
 * keeps the key of the snapshot its row was read with (bst_snapkey.h), and
 * a call whose snapshot has the same key sees the same row, so it uses the
 * tree without a catalog lookup; any other call reads the row again.  Aborts
 * forget the trees read from rows the aborted transaction wrote.  With
 * bloomsample.bst_shared off (or no writable image directory) a backend
 * builds trees in its own memory, as many as bloomsample.bst_memory_limit
 * holds (least recently used dropped first).  Design notes:
 * docs/bloomsampletree.md ("Which tree a statement sees", "Storage, cache
 * and concurrency").
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "bst_image.h"

#include "bst_acl.h"
#include "bst_cache.h"
#include "bst_image_files.h"
#include "bst_snapkey.h"

/* ---------------------------------------------------------------------------
 * the cache
 * ---------------------------------------------------------------------------
 */
typedef struct BstCacheEntry
{
	struct BstCacheEntry *next;
	char	   *name;
	int64		generation;
	BstSnapKey	seen;			/* the snapshot whose catalog row gave generation */
	bool		own;			/* that row was written by this transaction */
	uint64		last_use;		/* value of use_clock at the last lookup */
	MemoryContext cxt;
	BstTree    *tree;			/* &mt->tree for a shared image, else a local tree */
	BstMappedTree *mt;			/* the shared image opened in place, or NULL */
	BstImageMap map;			/* its mapping */
	BstAcl		acl;			/* who may use it (checked on every call) */
} BstCacheEntry;

static BstCacheEntry *cache = NULL;
static uint64 use_clock = 0;
/* advanced whenever an entry is freed: per-call caches of tree pointers check it */
static uint64 cache_epoch = 0;

static void entry_free(BstCacheEntry *e);

/*
 * An abort of this backend's transaction makes the catalog rows it wrote
 * invisible again without changing any snapshot's xmax or in-progress set:
 * count it (every snapshot key holds the count), forget the trees read from
 * rows this transaction wrote and, at top level, remove the images of those
 * generations (nobody else ever saw them).
 */
static void
forget_own(bool top_level)
{
	BstCacheEntry **l = &cache;

	bst_snapkey_note_abort();
	while (*l)
	{
		BstCacheEntry *e = *l;

		if (!e->own)
		{
			l = &e->next;
			continue;
		}
		*l = e->next;
		if (top_level)
			(void) unlink(bst_image_file_path(e->name, e->generation));
		entry_free(e);
	}
}

static void
xact_callback(XactEvent event, void *arg)
{
	(void) arg;
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
		forget_own(true);
	else if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_PARALLEL_COMMIT)
	{
		for (BstCacheEntry *e = cache; e; e = e->next)
			e->own = false;
	}
}

static void
subxact_callback(SubXactEvent event, SubTransactionId mySubid,
				 SubTransactionId parentSubid, void *arg)
{
	(void) mySubid;
	(void) parentSubid;
	(void) arg;
	if (event == SUBXACT_EVENT_ABORT_SUB)
		forget_own(false);
}

void
bst_init_cache(void)
{
	static bool done = false;

	if (done)
		return;
	done = true;
	RegisterXactCallback(xact_callback, NULL);
	RegisterSubXactCallback(subxact_callback, NULL);
}

/*
 * Make room for a tree of `bytes` in this backend: while the local (not
 * shared) trees and it would exceed bloomsample.bst_memory_limit, drop the
 * least recently used local tree (it is rebuilt from the catalog on its next
 * use).  Shared images are not counted: they live in the page cache, once
 * per cluster.
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
			if (e->mt)
				continue;
			total += bst_tree_bytes(e->tree);
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

static void
entry_free(BstCacheEntry *e)
{
	cache_epoch++;
	bst_image_file_unmap(&e->map);
	MemoryContextDelete(e->cxt);
}

void
bst_cache_forget(const char *name)
{
	BstCacheEntry **link;
	BstCacheEntry *e = cache_find(name, &link);

	if (e)
	{
		*link = e->next;
		entry_free(e);
	}
}

/* ---------------------------------------------------------------------------
 * the catalog
 * ---------------------------------------------------------------------------
 */
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
	bool		own;			/* the row was written by this transaction */
	BstAcl		acl;
} BstDef;

static SPIPlanPtr def_plan = NULL;
static SPIPlanPtr def_plan_11 = NULL;	/* a catalog of version 1.1: no owners */
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
	Oid			catalog = get_relname_relid("bst_tree_catalog", bst_extension_schema());
	bool		owners = get_attnum(catalog, "grantees") != InvalidAttrNumber;
	SPIPlanPtr *plan = owners ? &def_plan : &def_plan_11;

	if (!*plan)
		*plan = keep_plan(psprintf("SELECT kind, namespace_lo, namespace_hi, m::int8, k::int8, "
								   "seed::int8, hash, leaf_size, depth::int8, generation, xmin%s "
								   "FROM %s WHERE name = $1", owners ? ", owner, grantees" : "",
								   bst_qualified("bst_tree_catalog")), 1, types);
	args[0] = CStringGetTextDatum(name);
	if (SPI_execute_plan(*plan, args, NULL, true, 1) != SPI_OK_SELECT)
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
	def->own = TransactionIdIsCurrentTransactionId(
		DatumGetTransactionId(SPI_getbinval(tup, desc, 11, &isnull)));
	bst_acl_read(&def->acl, tup, desc, 12, owners, def->pruned);
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
		e->map.fd = -1;
		/* pg_backend_memory_contexts shows the tree's context by its name */
		MemoryContextSetIdentifier(cxt, e->name);
		if (!def->pruned)
		{
			uint64		M = (uint64) (def->hi - def->lo);

			bytes = bst_full_tree_bytes(M, def->p.m, def->depth);
			bst_check_memory(name, bytes, false, NULL);
			/* build the index alongside when it fits too */
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

/*
 * A cache entry for the image of (name, generation) mapped in place; NULL
 * when the file is missing or is not that tree's image.
 */
static BstCacheEntry *
map_entry(const char *name, int64 generation)
{
	BstImageMap map;
	MemoryContext cxt;
	BstCacheEntry *e;
	BstAlloc	alloc;

	if (!bst_image_file_map(name, generation, &map))
		return NULL;
	cxt = AllocSetContextCreate(TopMemoryContext, "BloomSampleTree", ALLOCSET_SMALL_SIZES);
	e = MemoryContextAllocZero(cxt, sizeof(BstCacheEntry));
	e->name = MemoryContextStrdup(cxt, name);
	e->generation = generation;
	e->cxt = cxt;
	e->map = map;
	e->mt = MemoryContextAllocZero(cxt, sizeof(BstMappedTree));
	MemoryContextSetIdentifier(cxt, e->name);
	alloc = bst_context_alloc(cxt);
	if (bst_image_open(map.base, map.len, name, generation, &alloc, e->mt) != BST_OK)
	{
		elog(LOG, "BloomSampleTree image \"%s\" does not match its tree: rebuilding it",
			 bst_image_file_path(name, generation));
		entry_free(e);
		return NULL;
	}
	e->tree = &e->mt->tree;
	return e;
}

/*
 * The trees the catalog holds, as the sweep of image files needs them
 * (inside SPI, with the statement's snapshot)
 */
static BstImageLive *
live_trees(int *n)
{
	BstImageLive *live;

	if (SPI_execute(psprintf("SELECT name, generation FROM %s", bst_qualified("bst_tree_catalog")),
					true, 0) != SPI_OK_SELECT)
		elog(ERROR, "reading the BloomSampleTree catalog failed");
	*n = (int) SPI_processed;
	live = palloc((SPI_processed + 1) * sizeof(BstImageLive));
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;

		live[i].name_hash = bst_image_file_name_hash(SPI_getvalue(SPI_tuptable->vals[i],
															 SPI_tuptable->tupdesc, 1));
		live[i].generation = get_int8(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &isnull);
	}
	return live;
}

/*
 * Build the tree of def and store its image (the caller holds the build
 * lock); the entry maps the image when it could be written, else holds the
 * tree built in this backend.  Then sweep the image directory.
 */
static BstCacheEntry *
build_and_store(const char *name, const BstDef *def)
{
	instr_time	t0,
				t1;
	BstCacheEntry *local,
			   *e;
	BstImageLive *live;
	int			nlive;

	INSTR_TIME_SET_CURRENT(t0);
	local = build_entry(name, def);
	if (!bst_image_file_store(local->tree, name, def->generation))
		return local;
	INSTR_TIME_SET_CURRENT(t1);
	INSTR_TIME_SUBTRACT(t1, t0);
	ereport(LOG,
			(errmsg("BloomSampleTree \"%s\" built into a shared image: " UINT64_FORMAT " bytes in %.0f ms",
					name, bst_image_bytes(local->tree, strlen(name)),
					INSTR_TIME_GET_MILLISEC(t1))));
	/* mapped (and so share-locked) before the sweep and the space limit */
	e = map_entry(name, def->generation);
	if (e != NULL)
		entry_free(local);
	else
		e = local;
	bst_image_file_remove(name, def->generation);
	live = live_trees(&nlive);
	bst_image_file_sweep(live, nlive, bst_image_file_path(name, def->generation));
	return e;
}

/*
 * The entry of (name, def->generation): its shared image mapped (built and
 * written first when missing, by one backend while the others wait), or,
 * without bloomsample.bst_shared or when the image cannot be written, a
 * tree built in this backend.
 */
static BstCacheEntry *
load_entry(const char *name, const BstDef *def)
{
	BstCacheEntry *e;
	int			lockfd;

	if (!bst_shared)
		return build_entry(name, def);
	if ((e = map_entry(name, def->generation)) != NULL)
		return e;
	if ((lockfd = bst_image_file_lock(name)) < 0)
	{
		ereport(NOTICE,
				(errmsg("BloomSampleTree \"%s\" is built in this backend only: its image directory is not writable",
						name)));
		return build_entry(name, def);
	}
	PG_TRY();
	{
		/* the backend we waited for may have built it */
		e = map_entry(name, def->generation);
		if (e == NULL)
			e = build_and_store(name, def);
	}
	PG_FINALLY();
	{
		bst_image_file_unlock(lockfd);
	}
	PG_END_TRY();
	return e;
}

/*
 * The cache entry of tree name as the active snapshot sees it: reused
 * without a catalog lookup when it was last checked under a snapshot with
 * the same key (bst_snapkey.h: the same catalog rows are visible), else the
 * catalog row is read with the active snapshot and the entry kept, replaced
 * or loaded for the generation that row holds.  Errors if the snapshot sees
 * no such tree.
 */
static BstCacheEntry *
get_entry(const char *name)
{
	BstDef		def;
	BstCacheEntry *e = cache_find(name, NULL);
	BstCatalogUser cu;

	if (e && bst_snapkey_matches(&e->seen))
	{
		bst_acl_check_use(name, &e->acl, GetUserId());
		e->last_use = ++use_clock;
		return e;
	}
	/* the catalog is read (and the tree built) as the catalog's owner */
	bst_catalog_enter(&cu);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (!read_def(name, &def))
	{
		/* gone for this snapshot: do not keep it mapped for nothing */
		if (e)
			bst_cache_forget(name);
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("BloomSampleTree \"%s\" does not exist", name),
				 errhint("The view bst_trees lists the trees; bst_create and bst_create_pruned make them.")));
	}
	bst_acl_check_use(name, &def.acl, cu.caller);
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
		e = load_entry(name, &def);
		bst_snapkey_init(&e->seen, e->cxt);
		e->next = cache;
		cache = e;
	}
	/* the key of the snapshot the row was read with, never a newer one */
	bst_snapkey_set(&e->seen);
	bst_acl_copy(&e->acl, &def.acl, e->cxt);
	e->own = e->own || def.own;
	e->last_use = ++use_clock;
	SPI_finish();
	bst_catalog_leave(&cu);
	return e;
}

BstTree *
bst_get_tree(const char *name)
{
	return get_entry(name)->tree;
}

/* what a call site keeps in fn_extra: the entry of the name it last used */
typedef struct BstCallCache
{
	uint64		epoch;			/* cache_epoch when it was looked up: entry not freed since */
	Oid			user;			/* the user it was checked for */
	BstCacheEntry *entry;
	int			len;
	char		name[FLEXIBLE_ARRAY_MEMBER];
} BstCallCache;

BstTree *
bst_get_tree_for_call(FmgrInfo *flinfo, text *name, char **cname)
{
	BstCallCache *c = (BstCallCache *) flinfo->fn_extra;
	int			len = VARSIZE_ANY_EXHDR(name);
	BstCacheEntry *e;

	if (c && c->epoch == cache_epoch && c->user == GetUserId() && c->len == len &&
		memcmp(c->name, VARDATA_ANY(name), len) == 0 && bst_snapkey_matches(&c->entry->seen))
	{
		c->entry->last_use = ++use_clock;
		*cname = c->name;
		return c->entry->tree;
	}
	*cname = text_to_cstring(name);
	e = get_entry(*cname);
	if (!c || c->len < len)
	{
		if (c)
			pfree(c);
		c = MemoryContextAlloc(flinfo->fn_mcxt, offsetof(BstCallCache, name) + len + 1);
		flinfo->fn_extra = c;
	}
	c->epoch = cache_epoch;
	c->user = GetUserId();
	c->entry = e;
	c->len = len;
	memcpy(c->name, VARDATA_ANY(name), len);
	c->name[len] = '\0';
	return e->tree;
}

void
bst_tree_changed(const char *name, bool dropped)
{
	bst_cache_forget(name);
	if (dropped)
		bst_image_file_remove(name, PG_INT64_MIN);
}

bool
bst_tree_shared(const BstTree *t, uint64 *image_bytes)
{
	for (BstCacheEntry *e = cache; e; e = e->next)
		if (e->tree == t)
		{
			*image_bytes = e->mt ? e->map.len : 0;
			return e->mt != NULL;
		}
	*image_bytes = 0;
	return false;
}
