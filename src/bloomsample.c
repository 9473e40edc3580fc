/*
 * bloomsample.c
 *    Module entry point.  _PG_init only delegates to the per-part
 *    initialisers: the value memory limit and interrupt hooks of both types
 *    (bloomsample.max_value_memory), the type's setting
 *    (bloomsample.filter_storage), the BloomSampleTree settings
 *    (bloomsample.bst_*) and its cache's transaction callbacks, and the
 *    Bloofi reloptions.  The last two are idempotent, and the Bloofi access
 *    method also registers its reloptions on first use.  Each
 *    initialiser sets up its own file's state: none calls another's.  Also
 *    bloomsample_kernels(), which variant of each bit-array kernel this
 *    process chose for its CPU (src/core/bs_kernels.h).
 */
#include "postgres.h"

#include "fmgr.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"

#include "bloofi.h"
#include "bloomfilter.h"
#include "bst_cache.h"
#include "bs_kernels.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/* called when the library is loaded: registers the settings and reloptions */
void
_PG_init(void)
{
	bf_init_value_memory();
	bf_init_gucs();
	bst_init_gucs();
	bst_init_cache();
	bloofi_init_reloptions();
	bloofi_init_gucs();
	bloofi_plan_probe_init_gucs();
	bloofi_plan_probe_reuse_init_gucs();
	MarkGUCPrefixReserved("bloomsample");
}

PG_FUNCTION_INFO_V1(bloomsample_kernels);

/*
 * bloomsample_kernels(): one row per kernel: its name, the variant this
 * backend uses, and every variant this build has that this CPU runs
 * (lowest first)
 */
Datum
bloomsample_kernels(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const BsKernels *K = bs_kernels_get();

	InitMaterializedSRF(fcinfo, 0);
	for (int k = 0; k < BS_KERNEL_COUNT; k++)
	{
		Datum		values[3];
		bool		nulls[3] = {false, false, false};
		Datum		avail[BS_VARIANT_COUNT];
		int			navail = 0;

		for (int v = 0; v < BS_VARIANT_COUNT; v++)
			if (bs_kernel_runs((BsKernel) k, (BsVariant) v))
				avail[navail++] = CStringGetTextDatum(bs_variant_name((BsVariant) v));
		values[0] = CStringGetTextDatum(bs_kernel_name((BsKernel) k));
		values[1] = CStringGetTextDatum(bs_variant_name(K->chosen[k]));
		values[2] = PointerGetDatum(construct_array(avail, navail, TEXTOID, -1, false,
													TYPALIGN_INT));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
