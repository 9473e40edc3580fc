/*
 * bloomsample.c
 *    Module entry point.  _PG_init only delegates to the per-part
 *    initialisers: the value memory limit and interrupt hooks of both types
 *    (bloomsample.max_value_memory), the type's setting
 *    (bloomsample.filter_storage), the BloomSampleTree settings
 *    (bloomsample.bst_*) and the Bloofi reloptions.  The last two are
 *    idempotent, and their parts also call them on first use.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/guc.h"

#include "bloofi.h"
#include "bloomfilter.h"
#include "bst_cache.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/* called when the library is loaded: registers the settings and reloptions */
void
_PG_init(void)
{
	bf_init_value_memory();
	bf_init_gucs();
	bst_init_gucs();
	bloofi_init_reloptions();
	MarkGUCPrefixReserved("bloomsample");
}
