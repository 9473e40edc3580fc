/*
 * bst_snapkey.c
 *    BloomSampleTree glue: keys of MVCC snapshots for the tree cache.
 *
 * Two MVCC snapshots see the same committed rows of other transactions when
 * they have the same xmax and the same set of transactions in progress:
 * every xid below xmax that is not in progress has finished, and whether it
 * committed never changes.  (Subtransactions of an in-progress transaction
 * are invisible either way, so the top-level set is enough; a snapshot taken
 * during recovery keeps its in-progress xids in subxip, and one whose
 * subxid array overflowed there cannot be keyed.)  This transaction's own
 * changes are visible by command id, so the key holds curcid; and an abort
 * of this backend's (sub)transaction makes its own rows invisible without
 * changing either, so the key also holds a count of aborts.
 *
 * The key is exact: equal keys mean equal visibility, never "probably".
 */
#include "postgres.h"

#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "bst_snapkey.h"

static uint64 abort_count = 0;

uint64
bst_snapkey_aborts(void)
{
	return abort_count;
}

void
bst_snapkey_note_abort(void)
{
	abort_count++;
}

void
bst_snapkey_init(BstSnapKey *key, MemoryContext cxt)
{
	memset(key, 0, sizeof(*key));
	key->cxt = cxt;
}

/*
 * The in-progress xids of s in *xids and *n; false when s cannot be keyed
 * (none, not MVCC, or taken during recovery with an overflowed subxid array).
 * *xids may be NULL when *n is 0 (copied snapshots).
 */
static bool
snapshot_xids(Snapshot s, TransactionId **xids, int *n)
{
	if (s == NULL || s->snapshot_type != SNAPSHOT_MVCC)
		return false;
	if (s->takenDuringRecovery)
	{
		if (s->suboverflowed)
			return false;
		*n = s->subxcnt;
		*xids = s->subxip;
		return true;
	}
	*n = s->xcnt;
	*xids = s->xip;
	return true;
}

static int
xid_cmp(const void *a, const void *b)
{
	TransactionId x = *(const TransactionId *) a,
				y = *(const TransactionId *) b;

	return x < y ? -1 : x > y;
}

void
bst_snapkey_set(BstSnapKey *key)
{
	Snapshot	s = ActiveSnapshotSet() ? GetActiveSnapshot() : NULL;
	TransactionId *xids = NULL;
	int			n = 0;

	key->valid = false;
	if (!snapshot_xids(s, &xids, &n))
		return;
	if (n > key->cap)
	{
		if (key->xids)
			pfree(key->xids);
		key->xids = MemoryContextAlloc(key->cxt, n * sizeof(TransactionId));
		key->cap = n;
	}
	if (n > 0)
	{
		memcpy(key->xids, xids, n * sizeof(TransactionId));
		qsort(key->xids, n, sizeof(TransactionId), xid_cmp);
	}
	key->nxids = n;
	key->xmin = s->xmin;
	key->xmax = s->xmax;
	key->curcid = s->curcid;
	key->aborts = abort_count;
	key->valid = true;
}

bool
bst_snapkey_matches(const BstSnapKey *key)
{
	Snapshot	s;
	TransactionId *xids = NULL;
	int			n = 0;

	if (!key->valid || key->aborts != abort_count || !ActiveSnapshotSet())
		return false;
	s = GetActiveSnapshot();
	if (!snapshot_xids(s, &xids, &n) || s->xmax != key->xmax || s->xmin != key->xmin ||
		s->curcid != key->curcid || n != key->nxids)
		return false;
	/* the same set: each of the snapshot's (distinct) xids is in the sorted key */
	for (int i = 0; i < n; i++)
		if (bsearch(&xids[i], key->xids, key->nxids, sizeof(TransactionId), xid_cmp) == NULL)
			return false;
	return true;
}
