/*
 * bloofi_am.c
 *    The Bloofi access method's entry points: the handler, the reloptions,
 *    and aminsert, which sends a new filter to the pending list (fastupdate)
 *    or straight into the tree.
 *
 * Design notes: docs/bloofi.md.  This file is the top of the Bloofi glue's
 * layers: it uses both the pending list (bloofi_pending.c) and the direct
 * insert path (bloofi_insert.c), and the pending list's flush uses the
 * insert path, never the other way round.
 */
#include "postgres.h"

#include "access/reloptions.h"
#include "commands/vacuum.h"
#include "utils/memutils.h"

#include "bloofi.h"

PG_FUNCTION_INFO_V1(bloofi_handler);

static relopt_kind bloofi_relopt_kind;
static bool bloofi_relopt_ready = false;
static relopt_parse_elt bloofi_relopt_tab[3];

/*
 * bloofi_init_reloptions: register the reloptions once per backend; called
 * from _PG_init, and again (a no-op) by the handler and amoptions.
 */
void
bloofi_init_reloptions(void)
{
	if (bloofi_relopt_ready)
		return;
	bloofi_relopt_kind = add_reloption_kind();
	add_int_reloption(bloofi_relopt_kind, "order",
					  "Order d of the Bloofi tree: nodes have d..2d children",
					  BLOOFI_DEFAULT_ORDER, BLOOFI_MIN_ORDER, BLOOFI_MAX_ORDER,
					  AccessExclusiveLock);
	bloofi_relopt_tab[0].optname = "order";
	bloofi_relopt_tab[0].opttype = RELOPT_TYPE_INT;
	bloofi_relopt_tab[0].offset = offsetof(BloofiOptions, order);
	add_int_reloption(bloofi_relopt_kind, "leaf_capacity",
					  "Most leaves of a bottom node that the no-split rule lets grow past 2d (its value is saturated)",
					  BLOOFI_DEFAULT_LEAF_CAP, BLOOFI_MIN_LEAF_CAP, BLOOFI_MAX_CAP,
					  AccessExclusiveLock);
	bloofi_relopt_tab[1].optname = "leaf_capacity";
	bloofi_relopt_tab[1].opttype = RELOPT_TYPE_INT;
	bloofi_relopt_tab[1].offset = offsetof(BloofiOptions, leaf_capacity);
	add_bool_reloption(bloofi_relopt_kind, "fastupdate",
					   "Buffer inserts in a pending list moved into the tree in batches",
					   true, AccessExclusiveLock);
	bloofi_relopt_tab[2].optname = "fastupdate";
	bloofi_relopt_tab[2].opttype = RELOPT_TYPE_BOOL;
	bloofi_relopt_tab[2].offset = offsetof(BloofiOptions, fastupdate);
	bloofi_relopt_ready = true;
}

static bytea *
bloofi_options(Datum reloptions, bool validate)
{
	bloofi_init_reloptions();
	return (bytea *) build_reloptions(reloptions, validate, bloofi_relopt_kind,
									  sizeof(BloofiOptions), bloofi_relopt_tab,
									  lengthof(bloofi_relopt_tab));
}

Datum
bloofi_handler(PG_FUNCTION_ARGS)
{
	IndexAmRoutine *amroutine = makeNode(IndexAmRoutine);

	bloofi_init_reloptions();
	amroutine->amstrategies = 1;
	amroutine->amsupport = 0;
	amroutine->amoptsprocnum = 0;
	amroutine->amcanorder = false;
	amroutine->amcanorderbyop = false;
	amroutine->amcanbackward = false;
	amroutine->amcanunique = false;
	amroutine->amcanmulticol = false;
	amroutine->amoptionalkey = false;
	amroutine->amsearcharray = false;
	amroutine->amsearchnulls = false;
	amroutine->amstorage = false;
	amroutine->amclusterable = false;
	amroutine->ampredlocks = false;
	amroutine->amcanparallel = false;
	amroutine->amcaninclude = false;
	amroutine->amusemaintenanceworkmem = true;

	/*
	 * VACUUM may flush the pending list (writing nodes): not in parallel
	 * workers
	 */
	amroutine->amparallelvacuumoptions = VACUUM_OPTION_NO_PARALLEL;
	amroutine->amkeytype = InvalidOid;

	amroutine->ambuild = bloofi_build;
	amroutine->ambuildempty = bloofi_buildempty;
	amroutine->aminsert = bloofi_insert;
	amroutine->ambulkdelete = bloofi_bulkdelete;
	amroutine->amvacuumcleanup = bloofi_vacuumcleanup;
	amroutine->amcanreturn = NULL;
	amroutine->amcostestimate = bloofi_costestimate;
	amroutine->amoptions = bloofi_options;
	amroutine->amproperty = NULL;
	amroutine->ambuildphasename = bloofi_buildphasename;
	amroutine->amvalidate = bloofi_validate;
	amroutine->amadjustmembers = NULL;
	amroutine->ambeginscan = bloofi_beginscan;
	amroutine->amrescan = bloofi_rescan;
	amroutine->amgettuple = NULL;
	amroutine->amgetbitmap = bloofi_getbitmap;
	amroutine->amendscan = bloofi_endscan;
	amroutine->ammarkpos = NULL;
	amroutine->amrestrpos = NULL;
	amroutine->amestimateparallelscan = NULL;
	amroutine->aminitparallelscan = NULL;
	amroutine->amparallelrescan = NULL;

	PG_RETURN_POINTER(amroutine);
}

/*
 * Set the parameters of an empty index from its first filter (metapage
 * exclusive).  Returns a fresh copy of the metapage.
 */
static BloofiMetaData *
bloofi_set_params(Relation index, const BsParams *p)
{
	Buffer		metabuf = ReadBuffer(index, BLOOFI_METAPAGE_BLKNO);
	BloofiMetaData *meta;
	BloofiWal	w;

	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	meta = BloofiPageGetMeta(BufferGetPage(metabuf));
	if (!meta->have_params)
	{
		bloofi_wal_begin(&w, index);
		meta = BloofiPageGetMeta(bloofi_wal_page(&w, metabuf, true, 0));
		meta->m = p->m;
		meta->k = p->k;
		meta->hash = p->hash;
		meta->seed = p->seed;
		meta->have_params = 1;
		bloofi_wal_flush(&w);
	}
	UnlockReleaseBuffer(metabuf);
	return bloofi_read_meta(index);
}

/*
 * aminsert: a new row's filter goes to the pending list when fastupdate is
 * on (one entry, dense or sparse, or a group of sparse parts when it
 * exceeds a page), else into the tree under the tree lock.  The first filter of an empty index sets its parameters.
 */
bool
bloofi_insert(Relation index, Datum *values, bool *isnull,
			  ItemPointer ht_ctid, Relation heapRel,
			  IndexUniqueCheck checkUnique, bool indexUnchanged,
			  IndexInfo *indexInfo)
{
	BloomView	v;
	BloofiMetaData *meta;
	MemoryContext tmp,
				old;

	if (isnull[0])
		return false;

	tmp = AllocSetContextCreate(CurrentMemoryContext, "bloofi insert context",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(tmp);

	bf_view_datum(values[0], &v);
	meta = bloofi_read_meta(index);
	if (!meta->have_params)
	{
		bloofi_require_max_m(v.p.m);
		meta = bloofi_set_params(index, &v.p);
	}
	bloofi_require_params(index, meta, &v.p);

	if (!(bloofi_get_fastupdate(index) && bloofi_pending_usable(meta) &&
		  bloofi_pending_insert(index, meta, ht_ctid, v.bits)))
	{
		const uint8 *f = v.bits;

		bloofi_lock_tree(index);
		bloofi_insert_leaves(index, 1, ht_ctid, &f);
		bloofi_unlock_tree(index);
	}

	MemoryContextSwitchTo(old);
	MemoryContextDelete(tmp);
	return false;
}
