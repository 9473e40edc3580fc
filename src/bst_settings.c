/*
 * bst_settings.c
 *    BloomSampleTree glue: the part's settings (bloomsample.bst_*), the
 *    memory limit they imply and the session's random generator.
 *
 * Settings that bound what the server spends (memory, disk) are superuser
 * settings; docs/security.md says which and why.  The image files' settings
 * are read by bst_image_files.c.
 */
#include "postgres.h"

#include "access/parallel.h"
#include "common/pg_prng.h"
#include "miscadmin.h"
#include "utils/guc.h"

#include "bst_settings.h"
#include "bst_image_files.h"

int			bst_memory_limit_mb = 2048;
int			bst_sample_method = BST_SAMPLE_AUTO;
int			bst_reconstruct_method = BST_RECON_AUTO;
int			bst_random_seed = -1;
bool		bst_shared = true;

static const struct config_enum_entry sample_method_options[] = {
	{"auto", BST_SAMPLE_AUTO, false},
	{"descent", BST_SAMPLE_DESCENT, false},
	{"enumerate", BST_SAMPLE_ENUMERATE, false},
	{"scan", BST_SAMPLE_SCAN, false},
	{NULL, 0, false}
};

static const struct config_enum_entry recon_method_options[] = {
	{"auto", BST_RECON_AUTO, false},
	{"index", BST_RECON_INDEX, false},
	{"tree", BST_RECON_TREE, false},
	{"scan", BST_RECON_SCAN, false},
	{NULL, 0, false}
};

/* the session's generator when bloomsample.bst_random_seed >= 0 */
static BstRng session_rng;
static bool session_rng_stale = true;

/* assign hook of bloomsample.bst_random_seed: the session's generator is reseeded at its next use */
static void
random_seed_assign(int newval, void *extra)
{
	(void) newval;
	(void) extra;
	session_rng_stale = true;	/* reseeded from the new value on next use */
}

/* the core's interrupt hook */
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
							 "How bst_sample draws: auto (exact: the cheaper of enumerate and scan), enumerate (index, exact), scan (test every id, exact) or descent (Algorithm 1 with rejection; uniform only for many samples per call).",
							 NULL, &bst_sample_method, BST_SAMPLE_AUTO,
							 sample_method_options, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("bloomsample.bst_reconstruct_method",
							 "How bst_reconstruct works: auto (the cheaper of index and scan), index, tree or scan.",
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
	DefineCustomIntVariable("bloomsample.bst_disk_reserve",
							"Free space that writing a BloomSampleTree image must leave on its volume (-1: 10% of the volume, at most 1 GB).",
							"A tree whose image would leave less is built in the backend's memory instead, with a NOTICE.",
							&bst_disk_reserve_mb, -1, -1, INT_MAX / 2,
							PGC_SUSET, GUC_UNIT_MB, NULL, NULL, NULL);
	DefineCustomStringVariable("bloomsample.bst_image_directory",
							   "Directory of the shared BloomSampleTree images (relative to the data directory, or absolute).",
							   "The default, pg_stat_tmp/bloomsample, is skipped by pg_basebackup: images are a cache, rebuilt at first use.",
							   &bst_image_directory, "pg_stat_tmp/bloomsample",
							   PGC_SIGHUP, 0, NULL, NULL, NULL);
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

