/*
 * bloofi_probe_reuse.c
 *    The planner's probe of a Bloofi index hands the entries it found to the
 *    scan that the plan then runs (issue 36).
 *
 * A custom plan of `f @> constant` is planned right before it runs: the
 * simple protocol, an unnamed statement of the extended protocol (what
 * drivers send), a prepared statement's first five executions.  The
 * planner's probe (bloofi_planprobe.c) searches the index for the element
 * to count its rows, and the scan then searched it again: two lookups per
 * query.  The probe now also keeps the heap TIDs it found (at most
 * BLOOFI_REUSE_MAX_TIDS, over every reading of the element), and a bitmap
 * scan of the same index for the same element takes them instead of
 * searching, when nothing its snapshot can see has been added since:
 *
 *   - no transaction with an XID ended between the start of the probe and
 *     the start of the scan: the shared xactCompletionCount (which every
 *     commit or abort of such a transaction advances under ProcArrayLock,
 *     on a primary as in a standby's replay) reads the same at both.  The
 *     scan's snapshot, taken before the scan, then sees as committed only
 *     transactions that had ended before the probe began, and every entry
 *     they wrote was in the index before the probe read it;
 *   - this transaction's own writes since the probe are invisible to the
 *     scan: its snapshot's command id is at most the probe's command id
 *     (a write after the probe has a command id at least that);
 *   - the scan's snapshot is an MVCC snapshot;
 *   - the same transaction (results are dropped at its end) and the same
 *     index and keys (the element's readings under the index's hasher,
 *     compared whole; a single-key scan only).
 * Entries of transactions still running at the probe, or removed by VACUUM
 * since, are what a scan at the probe's time would have returned: the heap
 * visit (and the recheck, for a match the search did not find exact, or an
 * element read two ways) decide, as for any scan.  So the scan returns what a search at the probe's moment returned,
 * and nothing it could see has been added since.
 *
 * bloomsample.plan_probe_reuse (on) switches it off: a benchmark of the
 * index scan node itself wants the search run (EXPLAIN ANALYZE plans, and
 * so probes, just before it executes).  test/t/013_plan_probe_reuse.pl
 * checks, with two sessions, that a commit or an own write between the
 * probe and the scan is seen.
 */
#include "postgres.h"

#include "access/relscan.h"
#include "access/transam.h"
#include "access/xact.h"
#include "storage/lwlock.h"
#include "nodes/tidbitmap.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "pg_compat.h"
#include "bloofi.h"
#include "bs_elem.h"

/* bloomsample.plan_probe_reuse */
bool		bloofi_plan_probe_reuse = true;

#define BLOOFI_REUSE_SLOTS		4
#define BLOOFI_REUSE_MAX_TIDS	8192

/* what one probe found, and when */
typedef struct ProbeResult
{
	Oid			index;			/* InvalidOid: an empty slot */
	int			nkeys;
	BsKey		keys[BS_ELEM_READINGS_MAX];
	uint64		completion;		/* xactCompletionCount when the probe began */
	CommandId	cid;			/* the command id then */
	int			ntids;
	ItemPointerData *tids;		/* in reuse_ctx */
	bool	   *exact;			/* in reuse_ctx: each TID's match exact */
} ProbeResult;

static ProbeResult results[BLOOFI_REUSE_SLOTS];
static int	next_slot;
static MemoryContext reuse_ctx;

/* the transaction ended: every result is dropped */
static void
reuse_xact_callback(XactEvent event, void *arg)
{
	(void) event;
	(void) arg;
	if (reuse_ctx == NULL || next_slot < 0)
		return;
	for (int i = 0; i < BLOOFI_REUSE_SLOTS; i++)
		results[i].index = InvalidOid;
	MemoryContextReset(reuse_ctx);
	next_slot = -1;				/* nothing kept until the next probe */
}

/* bloofi_plan_probe_reuse_init_gucs: the setting, from _PG_init */
void
bloofi_plan_probe_reuse_init_gucs(void)
{
	DefineCustomBoolVariable("bloomsample.plan_probe_reuse",
							 "A bloofi scan takes the entries the planner's probe just found.",
							 "Off: the scan searches the index again.",
							 &bloofi_plan_probe_reuse, true, PGC_USERSET, 0, NULL, NULL, NULL);
}

/* the number of transactions with an XID that have ended (transam.h) */
static uint64
completion_count(void)
{
	uint64		n;

	LWLockAcquire(ProcArrayLock, LW_SHARED);
	n = BS_TRANSAM_VARIABLES->xactCompletionCount;
	LWLockRelease(ProcArrayLock);
	return n;
}

/*
 * bloofi_probe_collector_init: start collecting a probe's TIDs into c, or
 * not (c->on false) when the setting is off; read before the probe reads
 * the index
 */
void
bloofi_probe_collector_init(BloofiProbeCollector *c)
{
	memset(c, 0, sizeof(*c));
	c->on = bloofi_plan_probe_reuse;
	if (c->on)
	{
		c->completion = completion_count();
		c->cid = GetCurrentCommandId(false);
	}
}

/* bloofi_probe_collect: a BloofiMatchCallback; past the limit it gives up */
void
bloofi_probe_collect(ItemPointer tid, bool exact, void *arg)
{
	BloofiProbeCollector *c = (BloofiProbeCollector *) arg;

	if (!c->on)
		return;
	if (c->ntids == BLOOFI_REUSE_MAX_TIDS)
	{
		c->on = false;
		return;
	}
	if (c->ntids == c->cap)
	{
		c->cap = Max(16, c->cap * 2);
		c->tids = c->tids ? repalloc(c->tids, sizeof(ItemPointerData) * c->cap) :
			palloc(sizeof(ItemPointerData) * c->cap);
		c->exact = c->exact ? repalloc(c->exact, sizeof(bool) * c->cap) :
			palloc(sizeof(bool) * c->cap);
	}
	c->exact[c->ntids] = exact;
	c->tids[c->ntids++] = *tid;
}

/*
 * bloofi_probe_keep: keep what the complete probe c of index found for the
 * element whose keys (its readings under the index's hasher) are keys[0 ..
 * nkeys), for the scan that follows; frees c's array
 */
void
bloofi_probe_keep(BloofiProbeCollector *c, Oid index, const BsKey *keys, int nkeys)
{
	ProbeResult *r;

	if (c->on && nkeys <= BS_ELEM_READINGS_MAX)
	{
		if (reuse_ctx == NULL)
		{
			reuse_ctx = AllocSetContextCreate(TopMemoryContext, "bloofi probe results",
											  ALLOCSET_SMALL_SIZES);
			RegisterXactCallback(reuse_xact_callback, NULL);
		}
		if (next_slot < 0)
			next_slot = 0;
		/* a probe of the same element replaces the older one, else the oldest goes */
		r = NULL;
		for (int i = 0; i < BLOOFI_REUSE_SLOTS && r == NULL; i++)
			if (results[i].index == index && results[i].nkeys == nkeys &&
				memcmp(results[i].keys, keys, sizeof(BsKey) * nkeys) == 0)
				r = &results[i];
		if (r == NULL)
		{
			r = &results[next_slot];
			next_slot = (next_slot + 1) % BLOOFI_REUSE_SLOTS;
		}
		if (r->index != InvalidOid && r->tids)
		{
			pfree(r->tids);
			pfree(r->exact);
		}
		r->index = InvalidOid;	/* empty until filled (an allocation may fail) */
		r->tids = NULL;
		r->exact = NULL;
		if (c->ntids > 0)
		{
			r->tids = MemoryContextAlloc(reuse_ctx, sizeof(ItemPointerData) * c->ntids);
			r->exact = MemoryContextAlloc(reuse_ctx, sizeof(bool) * c->ntids);
			memcpy(r->tids, c->tids, sizeof(ItemPointerData) * c->ntids);
			memcpy(r->exact, c->exact, sizeof(bool) * c->ntids);
		}
		r->ntids = c->ntids;
		r->nkeys = nkeys;
		memcpy(r->keys, keys, sizeof(BsKey) * nkeys);
		r->completion = c->completion;
		r->cid = c->cid;
		r->index = index;
	}
	if (c->tids)
	{
		pfree(c->tids);
		pfree(c->exact);
	}
	c->tids = NULL;
	c->exact = NULL;
}

/*
 * bloofi_probe_tids_take: when a probe of scan's index for the element of
 * keys[0 .. nkeys) is kept and still stands for scan's snapshot (see the
 * file's comment), add its TIDs to tbm (for recheck unless the match was
 * exact and the element has one reading), set *matches to their number and
 * return true; else false: the scan searches
 */
bool
bloofi_probe_tids_take(IndexScanDesc scan, const BsKey *keys, int nkeys,
					   TIDBitmap *tbm, int64 *matches)
{
	Snapshot	snap = scan->xs_snapshot;
	uint64		completion;

	if (!bloofi_plan_probe_reuse || next_slot < 0 || snap == NULL || !IsMVCCSnapshot(snap))
		return false;
	completion = completion_count();
	for (int i = 0; i < BLOOFI_REUSE_SLOTS; i++)
	{
		ProbeResult *r = &results[i];

		if (r->index != RelationGetRelid(scan->indexRelation) || r->nkeys != nkeys ||
			memcmp(r->keys, keys, sizeof(BsKey) * nkeys) != 0 ||
			r->completion != completion || snap->curcid > r->cid)
			continue;
		for (int j = 0; j < r->ntids; j++)
			tbm_add_tuples(tbm, &r->tids[j], 1, !(r->exact[j] && nkeys == 1));
		*matches = r->ntids;
		return true;
	}
	return false;
}
