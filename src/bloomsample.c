/*
 * bloomsample.c
 *    Module entry point.  Each part of the extension keeps its own state;
 *    _PG_init only delegates to per-module initialisers when they need one.
 */
#include "postgres.h"

#include "fmgr.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
}
