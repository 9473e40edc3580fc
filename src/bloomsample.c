/*
 * bloomsample.c
 *    Module entry point.  _PG_init only delegates to the per-part
 *    initialisers: the BloomSampleTree settings (bloomsample.bst_*) and the
 *    Bloofi reloptions.  Both initialisers are idempotent, and their parts also
 *    call them on first use.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/guc.h"

#include "bloofi.h"
#include "bst_cache.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/* called when the library is loaded: registers the settings and reloptions */
void
_PG_init(void)
{
	bst_init_gucs();
	bloofi_init_reloptions();
	MarkGUCPrefixReserved("bloomsample");
}
