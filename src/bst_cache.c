/*
 * bst_cache.c
 *    BloomSampleTree glue: GUCs, allocators, error reporting and the
 *    per-backend cache of trees.
 *
 * Tree definitions live in the extension's tables bst_tree_catalog (one row
 * per tree, with a random `generation` changed by every bst_extend) and
 * bst_tree_ids (a pruned tree's occupied ids, in chunks).  A tree is a
 * deterministic function of its definition: the first backend of the
 * cluster that needs a (tree, generation) builds it and writes its flat
 * image (bst_image.h) to $PGDATA/pg_bloomsample/, under a per-tree file
 * lock so that concurrent first users build it once; every backend and
 * parallel worker then maps that file read-only, so the page cache holds one
 * copy for the whole cluster.  Each backend keeps its mapped trees keyed by
 * name and generation, and revalidates one against the catalog only after a
 * relcache invalidation of bst_tree_catalog (sent by bst_drop and
 * bst_extend): a tree dropped, re-created or extended by another session is
 * reloaded at the next call, and an unchanged one costs no catalog lookup.
 * With bloomsample.bst_shared off (or no writable image directory) a backend
 * builds trees in its own memory, as many as bloomsample.bst_memory_limit
 * holds (least recently used dropped first).  Design notes:
 * docs/bloomsampletree.md (storage, cache and concurrency).
 */
#include "postgres.h"

#include <inttypes.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access/parallel.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "common/pg_prng.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "portability/instr_time.h"
#include "storage/fd.h"
#include "storage/latch.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/syscache.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/regproc.h"
#include "utils/varlena.h"

#include "bst_image.h"

#include "bst_acl.h"
#include "bst_cache.h"

int			bst_memory_limit_mb = 2048;
int			bst_sample_method = BST_SAMPLE_AUTO;
int			bst_reconstruct_method = BST_RECON_AUTO;
int			bst_random_seed = -1;
bool		bst_shared = true;
int			bst_shared_limit_mb = 4096;

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
 * bst_init_gucs: define the part's GUCs, from _PG_init (once per backend),
 * and point the core's interrupt hook at CHECK_FOR_INTERRUPTS.
 */
void
bst_init_gucs(void)
{
	bst_interrupt_hook = bst_check_interrupts;
	DefineCustomIntVariable("bloomsample.bst_memory_limit",
							"Most memory one BloomSampleTree (with its index) may take in a backend.",
							NULL, &bst_memory_limit_mb, 2048, 1, INT_MAX / 2,
							PGC_SUSET, GUC_UNIT_MB, NULL, NULL, NULL);
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
	DefineCustomBoolVariable("bloomsample.bst_shared",
							 "Share each BloomSampleTree between the backends of the cluster through one image file.",
							 "Off: every backend builds its own copy of the trees it uses.",
							 &bst_shared, true, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("bloomsample.bst_shared_limit",
							"Most disk and page-cache space the shared BloomSampleTree images may take together.",
							"When a new image takes them beyond it, the least recently mapped images that no backend maps are removed (rebuilt at their next use).",
							&bst_shared_limit_mb, 4096, 1, INT_MAX / 2,
							PGC_SUSET, GUC_UNIT_MB, NULL, NULL, NULL);
	bst_init_cache();
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
			/*
			 * a parallel worker has a stream of its own, seeded from the
			 * seed and its worker number (the leader keeps the session's)
			 */
			bst_rng_seed(&session_rng, (uint64) bst_random_seed +
						 (IsParallelWorker() ?
						  UINT64CONST(0x9E3779B97F4A7C15) * (uint64) (ParallelWorkerNumber + 1) : 0));
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
/*
 * Allocations of this size or more (a tree's filters, its index) are
 * advised to use transparent huge pages where the kernel offers them only on
 * request: a tree is written at random places all over them while it is
 * built, and with 4 kB pages every write costs a page fault or a TLB miss
 * (building at M = 10^8 took twice as long).
 */
#define HUGE_PAGE_ADVICE_BYTES	((size_t) 8 << 20)
#define HUGE_PAGE_BYTES			((uintptr_t) 2 << 20)

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

/* ---------------------------------------------------------------------------
 * the cache
 * ---------------------------------------------------------------------------
 */
typedef struct BstCacheEntry
{
	struct BstCacheEntry *next;
	char	   *name;
	int64		generation;
	uint64		checked;		/* catalog_changes when the generation was last read */
	uint64		last_use;		/* value of use_clock at the last lookup */
	MemoryContext cxt;
	BstTree    *tree;			/* &mt->tree for a shared image, else a local tree */
	BstMappedTree *mt;			/* the shared image opened in place, or NULL */
	void	   *map_base;		/* its mapping */
	size_t		map_len;
	int			fd;				/* the image file, share-locked while mapped, or -1 */
	BstAcl		acl;			/* who may use it (checked on every call) */
} BstCacheEntry;

static BstCacheEntry *cache = NULL;
static uint64 use_clock = 0;
/* advanced whenever an entry is freed: per-call caches of tree pointers check it */
static uint64 cache_epoch = 0;

/*
 * Relcache invalidations of bst_tree_catalog seen by this backend.  Every
 * change of a tree (bst_drop, bst_extend; creation needs none: no backend
 * has the new tree) sends one, at commit, to every backend of the database
 * and, through the commit record, to standbys: a cached tree whose entry
 * has seen no invalidation since its generation was read is current, and
 * needs no catalog lookup.
 */
static uint64 catalog_changes = 1;
static Oid	catalog_oid = InvalidOid;

static void
catalog_inval_callback(Datum arg, Oid relid)
{
	(void) arg;
	if (relid == InvalidOid || catalog_oid == InvalidOid || relid == catalog_oid)
		catalog_changes++;
}

void
bst_init_cache(void)
{
	static bool done = false;

	if (done)
		return;
	done = true;
	CacheRegisterRelcacheCallback(catalog_inval_callback, (Datum) 0);
}

/*
 * (inside SPI) the oid of bst_tree_catalog, looked up again on every slow
 * path: a dropped and re-created extension has a new table
 */
static Oid
catalog_relid(void)
{
	List	   *names = stringToQualifiedNameList(bst_qualified("bst_tree_catalog"));

	catalog_oid = RangeVarGetRelid(makeRangeVarFromNameList(names), NoLock, false);
	return catalog_oid;
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
	if (e->map_base)
		munmap(e->map_base, e->map_len);
	if (e->fd >= 0)
	{
		close(e->fd);			/* releases the share lock */
		ReleaseExternalFD();
	}
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
 * shared image files
 * ---------------------------------------------------------------------------
 */
#define IMAGE_DIR	"pg_bloomsample"

/* the hash of a tree's name that its image files carry */
static uint64
name_hash(const char *name)
{
	return hash_bytes_extended((const unsigned char *) name, strlen(name), 0);
}

/* the file name prefix of a tree's images: <dboid>_<hash of name>_ */
static char *
image_prefix(const char *name)
{
	return psprintf("%u_%016" INT64_MODIFIER "x_", MyDatabaseId, name_hash(name));
}

/*
 * Remove an image file unless a backend maps it (mapping backends hold a
 * shared flock; an exclusive one is tried without waiting); true when removed.
 */
static bool
remove_unmapped_image(const char *path)
{
	int			fd = OpenTransientFile(path, O_RDONLY | PG_BINARY);
	bool		removed;

	if (fd < 0)
		return false;
	removed = flock(fd, LOCK_EX | LOCK_NB) == 0 && unlink(path) == 0;
	CloseTransientFile(fd);
	return removed;
}

static char *
image_path(const char *name, int64 generation)
{
	return psprintf(IMAGE_DIR "/%s%016" INT64_MODIFIER "x.bst", image_prefix(name),
					(uint64) generation);
}

/*
 * Remove the image files of tree `name` but the one of generation keep
 * (PG_INT64_MIN: all).  Backends that map a removed file keep their mapping.
 */
static void
remove_images(const char *name, int64 keep)
{
	char	   *prefix = image_prefix(name);
	char	   *kept = psprintf("%s%016" INT64_MODIFIER "x.bst", prefix, (uint64) keep);
	DIR		   *dir = AllocateDir(IMAGE_DIR);
	struct dirent *de;

	if (dir == NULL)
		return;
	while ((de = ReadDirExtended(dir, IMAGE_DIR, LOG)) != NULL)
	{
		size_t		len = strlen(de->d_name);

		if (strncmp(de->d_name, prefix, strlen(prefix)) != 0 ||
			(keep != PG_INT64_MIN && strcmp(de->d_name, kept) == 0) ||
			len < 4 || strcmp(de->d_name + len - 4, ".bst") != 0)
			continue;
		if (unlink(psprintf(IMAGE_DIR "/%s", de->d_name)) != 0 && errno != ENOENT)
			elog(LOG, "could not remove BloomSampleTree image \"%s\": %m", de->d_name);
	}
	FreeDir(dir);
}

/*
 * Map the image file of (name, generation) and open it in a new cache
 * entry; NULL when the file is missing or is not that tree's image.  While
 * mapped, the file stays open with a shared flock (so that the space limit
 * never removes an image a backend uses) and its mtime says when it was
 * last mapped (the limit removes the least recently mapped first).
 */
static BstCacheEntry *
map_image(const char *name, int64 generation)
{
	char	   *path = image_path(name, generation);
	int			fd;
	struct stat st;
	void	   *base;
	MemoryContext cxt;
	BstCacheEntry *e;
	BstAlloc	alloc;
	bool		keep_fd = AcquireExternalFD();

	fd = open(path, O_RDONLY | PG_BINARY, 0);
	if (fd < 0)
	{
		if (keep_fd)
			ReleaseExternalFD();
		return NULL;
	}
	/* an image being removed (exclusively locked) counts as missing */
	if (flock(fd, LOCK_SH | LOCK_NB) != 0 || fstat(fd, &st) != 0 || st.st_size <= 0 ||
		st.st_nlink == 0)
	{
		close(fd);
		if (keep_fd)
			ReleaseExternalFD();
		return NULL;
	}
	base = mmap(NULL, (size_t) st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
	{
		elog(LOG, "could not map BloomSampleTree image \"%s\": %m", path);
		close(fd);
		if (keep_fd)
			ReleaseExternalFD();
		return NULL;
	}
	(void) futimens(fd, NULL);	/* last mapped now */
	if (!keep_fd)
	{
		close(fd);				/* no descriptor to spare: not protected from removal */
		fd = -1;
	}
	cxt = AllocSetContextCreate(TopMemoryContext, "BloomSampleTree", ALLOCSET_SMALL_SIZES);
	e = MemoryContextAllocZero(cxt, sizeof(BstCacheEntry));
	e->name = MemoryContextStrdup(cxt, name);
	e->generation = generation;
	e->cxt = cxt;
	e->map_base = base;
	e->map_len = (size_t) st.st_size;
	e->fd = fd;
	e->mt = MemoryContextAllocZero(cxt, sizeof(BstMappedTree));
	MemoryContextSetIdentifier(cxt, e->name);
	alloc = bst_context_alloc(cxt);
	if (bst_image_open(base, e->map_len, name, generation, &alloc, e->mt) != BST_OK)
	{
		elog(LOG, "BloomSampleTree image \"%s\" does not match its tree: rebuilding it", path);
		entry_free(e);
		return NULL;
	}
	e->tree = &e->mt->tree;
	return e;
}

typedef struct ImageFile
{
	char	   *name;
	off_t		size;
	time_t		mtime;
} ImageFile;

static int
image_file_cmp(const void *a, const void *b)
{
	const ImageFile *x = a,
			   *y = b;

	return x->mtime < y->mtime ? -1 : x->mtime > y->mtime;
}

/*
 * Keep the images of the cluster within bloomsample.bst_shared_limit: while
 * they take more, remove the least recently mapped one that no backend maps
 * (an exclusive flock succeeds only then), never `keep`.
 */
static void
enforce_shared_limit(const char *keep)
{
	DIR		   *dir = AllocateDir(IMAGE_DIR);
	struct dirent *de;
	ImageFile  *files = NULL;
	int			n = 0,
				cap = 0;
	uint64		total = 0;
	uint64		limit = (uint64) bst_shared_limit_mb * 1024 * 1024;

	if (dir == NULL)
		return;
	while ((de = ReadDirExtended(dir, IMAGE_DIR, LOG)) != NULL)
	{
		size_t		len = strlen(de->d_name);
		struct stat st;
		char	   *path;

		if (len < 4 || strcmp(de->d_name + len - 4, ".bst") != 0)
			continue;
		path = psprintf(IMAGE_DIR "/%s", de->d_name);
		if (stat(path, &st) != 0)
			continue;
		if (n == cap)
		{
			cap = cap ? cap * 2 : 16;
			files = files ? repalloc(files, cap * sizeof(ImageFile)) : palloc(cap * sizeof(ImageFile));
		}
		files[n].name = path;
		files[n].size = st.st_size;
		files[n].mtime = st.st_mtime;
		n++;
		total += (uint64) st.st_size;
	}
	FreeDir(dir);
	if (total <= limit)
		return;
	qsort(files, n, sizeof(ImageFile), image_file_cmp);
	for (int i = 0; i < n && total > limit; i++)
	{
		if (strcmp(files[i].name, keep) != 0 && remove_unmapped_image(files[i].name))
		{
			total -= (uint64) files[i].size;
			ereport(LOG,
					(errmsg("BloomSampleTree image \"%s\" removed: the images exceeded bloomsample.bst_shared_limit",
							files[i].name)));
		}
	}
}

/* hashes of the names of the trees in this database's catalog (inside SPI) */
static uint64 *
live_name_hashes(int *n)
{
	uint64	   *h;

	if (SPI_execute(psprintf("SELECT name FROM %s", bst_qualified("bst_tree_catalog")),
					true, 0) != SPI_OK_SELECT)
		elog(ERROR, "reading the BloomSampleTree catalog failed");
	*n = (int) SPI_processed;
	h = palloc((SPI_processed + 1) * sizeof(uint64));
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		char	   *name = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1);

		h[i] = name_hash(name);
	}
	return h;
}

/*
 * Remove the image files no one will use again: those of databases that no
 * longer exist; those of this database's trees that its catalog no longer
 * holds (the extension was dropped and created again, or a bst_drop could
 * not remove them), given the hashes of the names it holds; and the
 * temporary files of writers that died.  An image a backend maps (share-
 * locked) is kept: removal takes an exclusive flock without waiting.
 * Called after an image is built, inside SPI.
 */
static void
sweep_images(void)
{
	DIR		   *dir = AllocateDir(IMAGE_DIR);
	struct dirent *de;
	uint64	   *live = NULL;
	int			nlive = 0;

	if (dir == NULL)
		return;
	while ((de = ReadDirExtended(dir, IMAGE_DIR, LOG)) != NULL)
	{
		unsigned int db;
		uint64		h,
					g;
		int			pid,
					len = 0;
		bool		orphan;
		char	   *path;

		path = psprintf(IMAGE_DIR "/%s", de->d_name);
		if (sscanf(de->d_name, "%u_%16" SCNx64 "_lock%n", &db, &h, &len) == 2 &&
			len > 0 && de->d_name[len] == '\0')
		{
			/* a build lock: only of a database that is gone (no backend waits on it) */
			if (!SearchSysCacheExists1(DATABASEOID, ObjectIdGetDatum((Oid) db)))
				(void) unlink(path);
			continue;
		}
		len = 0;
		if (sscanf(de->d_name, "%u_%16" SCNx64 "_%16" SCNx64 ".bst%n", &db, &h, &g, &len) != 3 ||
			len == 0)
			continue;
		if (de->d_name[len] != '\0')
		{
			/* <image>.<pid>.tmp: a writer's file, an orphan once the writer is gone */
			int			end = 0;

			if (sscanf(de->d_name + len, ".%d.tmp%n", &pid, &end) == 1 &&
				de->d_name[len + end] == '\0' && pid > 0 && pid != MyProcPid &&
				kill(pid, 0) != 0 && errno == ESRCH && unlink(path) == 0)
				ereport(LOG,
						(errmsg("BloomSampleTree image \"%s\" removed: its writer is gone", path)));
			continue;
		}
		orphan = !SearchSysCacheExists1(DATABASEOID, ObjectIdGetDatum((Oid) db));
		if (!orphan && (Oid) db == MyDatabaseId)
		{
			if (live == NULL)
				live = live_name_hashes(&nlive);
			orphan = true;
			for (int i = 0; i < nlive && orphan; i++)
				orphan = live[i] != h;
		}
		if (orphan && remove_unmapped_image(path))
			ereport(LOG,
					(errmsg("BloomSampleTree image \"%s\" removed: its database or tree no longer exists",
							path)));
	}
	FreeDir(dir);
}

typedef struct ImageWriter
{
	int			fd;
	const char *path;
} ImageWriter;

static int
image_write(void *ctx, const void *buf, size_t len)
{
	ImageWriter *w = ctx;
	const char *b = buf;

	while (len > 0)
	{
		ssize_t		n = write(w->fd, b, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
		{
			if (n == 0)
				errno = ENOSPC;
			return 1;
		}
		b += n;
		len -= (size_t) n;
	}
	return 0;
}

/*
 * Write the image of t for (name, generation): to a temporary name, then
 * renamed into place (readers see the whole file or none).  No fsync: the
 * file is a cache, rebuilt when missing or damaged after a crash (its header
 * and size are checked on open).  false, with a WARNING, when it cannot be
 * written.
 */
static bool
write_image(const BstTree *t, const char *name, int64 generation)
{
	char	   *path = image_path(name, generation);
	char	   *tmp = psprintf("%s.%d.tmp", path, MyProcPid);
	ImageWriter w;
	int			rc;

	if (MakePGDirectory(IMAGE_DIR) != 0 && errno != EEXIST)
	{
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not create directory \"%s\": %m", IMAGE_DIR)));
		return false;
	}
	w.fd = OpenTransientFile(tmp, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
	w.path = tmp;
	if (w.fd < 0)
	{
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not create BloomSampleTree image \"%s\": %m", tmp)));
		return false;
	}
	PG_TRY();
	{
		rc = bst_image_write(t, name, generation, image_write, &w);
	}
	PG_CATCH();
	{
		CloseTransientFile(w.fd);
		unlink(tmp);
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (rc != BST_OK)
	{
		int			save = errno;

		CloseTransientFile(w.fd);
		unlink(tmp);
		errno = save;
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not write BloomSampleTree image \"%s\": %m", tmp)));
		return false;
	}
	if (CloseTransientFile(w.fd) != 0 || rename(tmp, path) != 0)
	{
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not install BloomSampleTree image \"%s\": %m", path)));
		unlink(tmp);
		return false;
	}
	return true;
}

/*
 * Take the tree's build lock (an exclusive flock on its lock file), waiting
 * interruptibly; returns the lock file's descriptor (closing it releases
 * the lock), or -1 when there is no lock file (then nothing is shared).
 */
static int
lock_tree(const char *name)
{
	char	   *path = psprintf(IMAGE_DIR "/%slock", image_prefix(name));
	int			fd;

	if (MakePGDirectory(IMAGE_DIR) != 0 && errno != EEXIST)
		return -1;
	fd = OpenTransientFile(path, O_RDWR | O_CREAT | PG_BINARY);
	if (fd < 0)
		return -1;
	while (flock(fd, LOCK_EX | LOCK_NB) != 0)
	{
		if (errno != EWOULDBLOCK && errno != EINTR)
		{
			CloseTransientFile(fd);
			return -1;
		}
		/* another backend builds this tree: wait for it */
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 5,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	return fd;
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
	bool		owners = get_attnum(catalog_oid, "grantees") != InvalidAttrNumber;
	SPIPlanPtr *plan = owners ? &def_plan : &def_plan_11;

	if (!*plan)
		*plan = keep_plan(psprintf("SELECT kind, namespace_lo, namespace_hi, m::int8, k::int8, "
								   "seed::int8, hash, leaf_size, depth::int8, generation%s "
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
	bst_acl_read(&def->acl, tup, desc, 11, owners, def->pruned);
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
		e->fd = -1;
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
	if ((e = map_image(name, def->generation)) != NULL)
		return e;
	if ((lockfd = lock_tree(name)) < 0)
	{
		ereport(NOTICE,
				(errmsg("BloomSampleTree \"%s\" is built in this backend only: its image directory is not writable",
						name)));
		return build_entry(name, def);
	}
	PG_TRY();
	{
		/* the backend we waited for may have built it */
		e = map_image(name, def->generation);
		if (e == NULL)
		{
			instr_time	t0,
						t1;
			BstCacheEntry *local;

			INSTR_TIME_SET_CURRENT(t0);
			local = build_entry(name, def);
			if (write_image(local->tree, name, def->generation))
			{
				INSTR_TIME_SET_CURRENT(t1);
				INSTR_TIME_SUBTRACT(t1, t0);
				ereport(LOG,
						(errmsg("BloomSampleTree \"%s\" built into a shared image: " UINT64_FORMAT " bytes in %.0f ms",
								name, bst_image_bytes(local->tree, strlen(name)),
								INSTR_TIME_GET_MILLISEC(t1))));
				/* mapped (and so share-locked) before the space limit is applied */
				e = map_image(name, def->generation);
				if (e != NULL)
					entry_free(local);
				else
					e = local;
				remove_images(name, def->generation);
				sweep_images();
				enforce_shared_limit(image_path(name, def->generation));
			}
			else
				e = local;
		}
	}
	PG_FINALLY();
	{
		CloseTransientFile(lockfd);
	}
	PG_END_TRY();
	return e;
}

/* bst_get_tree, and in *checked the catalog_changes its entry is valid for */
static BstTree *
get_tree(const char *name, uint64 *checked)
{
	BstDef		def;
	BstCacheEntry *e;
	bool		found;
	uint64		changes;
	BstCatalogUser cu;

	/* apply other sessions' committed changes of the catalog (cheap when none) */
	AcceptInvalidationMessages();
	e = cache_find(name, NULL);
	if (e && e->checked == catalog_changes)
	{
		bst_acl_check_use(name, &e->acl, GetUserId());
		e->last_use = ++use_clock;
		*checked = e->checked;
		return e->tree;
	}
	changes = catalog_changes;
	/* the catalog is read (and the tree built) as the catalog's owner */
	bst_catalog_enter(&cu);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	(void) catalog_relid();
	found = read_def(name, &def);
	if (!found)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("BloomSampleTree \"%s\" does not exist", name),
				 errhint("The view bst_trees lists the trees; bst_create and bst_create_pruned make them.")));
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
		e->next = cache;
		cache = e;
	}
	bst_acl_copy(&e->acl, &def.acl, e->cxt);
	e->checked = changes;
	e->last_use = ++use_clock;
	SPI_finish();
	bst_catalog_leave(&cu);
	*checked = e->checked;
	return e->tree;
}

BstTree *
bst_get_tree(const char *name)
{
	uint64		checked;

	return get_tree(name, &checked);
}

/* what a call site keeps in fn_extra: the tree of the name it last used */
typedef struct BstCallCache
{
	uint64		checked;		/* catalog_changes the tree is valid for */
	uint64		epoch;			/* cache_epoch when it was looked up */
	Oid			user;			/* the user it was checked for */
	BstTree    *tree;
	int			len;
	char		name[FLEXIBLE_ARRAY_MEMBER];
} BstCallCache;

BstTree *
bst_get_tree_for_call(FmgrInfo *flinfo, text *name, char **cname)
{
	BstCallCache *c = (BstCallCache *) flinfo->fn_extra;
	int			len = VARSIZE_ANY_EXHDR(name);
	BstTree    *t;
	uint64		checked;

	AcceptInvalidationMessages();
	if (c && c->checked == catalog_changes && c->epoch == cache_epoch &&
		c->user == GetUserId() && c->len == len && memcmp(c->name, VARDATA_ANY(name), len) == 0)
	{
		*cname = c->name;
		return c->tree;
	}
	*cname = text_to_cstring(name);
	t = get_tree(*cname, &checked);
	if (!c || c->len < len)
	{
		if (c)
			pfree(c);
		c = MemoryContextAlloc(flinfo->fn_mcxt, offsetof(BstCallCache, name) + len + 1);
		flinfo->fn_extra = c;
	}
	c->checked = checked;
	c->epoch = cache_epoch;
	c->user = GetUserId();
	c->tree = t;
	c->len = len;
	memcpy(c->name, VARDATA_ANY(name), len);
	c->name[len] = '\0';
	return t;
}

void
bst_tree_changed(const char *name, bool dropped)
{
	bst_cache_forget(name);
	if (dropped)
		remove_images(name, PG_INT64_MIN);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	CacheInvalidateRelcacheByRelid(catalog_relid());
	SPI_finish();
}

bool
bst_tree_shared(const BstTree *t, uint64 *image_bytes)
{
	for (BstCacheEntry *e = cache; e; e = e->next)
		if (e->tree == t)
		{
			*image_bytes = e->mt ? e->map_len : 0;
			return e->mt != NULL;
		}
	*image_bytes = 0;
	return false;
}
