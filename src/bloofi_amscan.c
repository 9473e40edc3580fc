/*
 * bloofi_amscan.c
 *    The access method's scan entry points: beginscan, rescan, endscan and
 *    amgetbitmap.  A scan's keys become positions (each element hashed
 *    once; a text that is also an integer or a uuid under both readings),
 *    the pending list and then the tree are searched (bloofi_pending.c,
 *    bloofi_scan.c), and each match goes into the bitmap, exact or for
 *    recheck ("Exact matches" in docs/bloofi.md).  A search the planner's
 *    probe has just made is taken instead when it still stands
 *    (bloofi_probe_reuse.c).
 *
 * A text key is read as the heap's operator reads it in each row
 * (src/core/bs_elemtype.h): by the element types that row's filter records,
 * which the index does not know.  So a text that is also an integer or a
 * uuid is searched under both readings (one search per combination of the
 * keys' readings, the matches ORed into the bitmap); the recheck keeps the
 * rows whose own reading matches.
 *
 * Design notes: docs/bloofi.md.
 */
#include "postgres.h"

#include "access/relscan.h"
#include "catalog/pg_type.h"
#include "nodes/tidbitmap.h"
#include "pgstat.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "pg_compat.h"
#include "bloofi.h"
#include "bs_elem.h"

/* a scan's state: a context for one amgetbitmap's allocations, reset after it */
typedef struct BloofiScanOpaqueData
{
	MemoryContext ctx;
} BloofiScanOpaqueData;

IndexScanDesc
bloofi_beginscan(Relation r, int nkeys, int norderbys)
{
	IndexScanDesc scan = RelationGetIndexScan(r, nkeys, norderbys);
	BloofiScanOpaqueData *so = palloc0(sizeof(BloofiScanOpaqueData));

	so->ctx = AllocSetContextCreate(CurrentMemoryContext, "bloofi scan context",
									ALLOCSET_DEFAULT_SIZES);
	scan->opaque = so;
	return scan;
}

void
bloofi_rescan(IndexScanDesc scan, ScanKey scankey, int nscankeys,
			  ScanKey orderbys, int norderbys)
{
	if (scankey && scan->numberOfKeys > 0)
		memmove(scan->keyData, scankey, scan->numberOfKeys * sizeof(ScanKeyData));
}

void
bloofi_endscan(IndexScanDesc scan)
{
	BloofiScanOpaqueData *so = (BloofiScanOpaqueData *) scan->opaque;

	MemoryContextDelete(so->ctx);
	pfree(so);
}

/* where a scan's matches go, and whether its keys allow exact ones */
typedef struct BitmapSink
{
	TIDBitmap  *tbm;
	bool		keys_exact;
} BitmapSink;

/*
 * A match into the bitmap: without a recheck when it is exact and so are
 * the keys (each read one way, none left out: the heap's `f @> elem` is
 * then true exactly when the leaf's filter has the positions searched)
 */
static void
bloofi_bitmap_cb(ItemPointer tid, bool exact, void *arg)
{
	BitmapSink *sink = (BitmapSink *) arg;

	tbm_add_tuples(sink->tbm, tid, 1, !(exact && sink->keys_exact));
}

/* keys with two readings searched in every combination; more are left out */
#define BLOOFI_MAX_TWO_READING_KEYS	4

/*
 * bloofi_elem_keys: the keys of element value (of type typid) under h: one,
 * or for a text that is also an integer or a uuid, its two readings (every
 * reading a row may use, whatever types it records); returns how many (at
 * most BS_ELEM_READINGS_MAX).  The scan searches them all; the planner's
 * probe counts them too (bloofi_planprobe.c).
 */
int
bloofi_elem_keys(const BsHasher *h, Datum value, Oid typid, BsKey *keys)
{
	BsTextReadings rd;
	BsElem		t,
				e[BS_ELEM_READINGS_MAX];
	int			n;

	if (typid != TEXTOID && typid != VARCHAROID)
	{
		keys[0] = bf_datum_key(h, value, typid);
		return 1;
	}
	t = bs_elem_varlena(value);
	(void) bs_elem_text_used(&t, BS_ELEM_ALL, &rd, e, &n);
	for (int i = 0; i < n; i++)
		keys[i] = bs_elem_key(h, &e[i]);
	return n;
}

int64
bloofi_getbitmap(IndexScanDesc scan, TIDBitmap *tbm)
{
	BloofiScanOpaqueData *so = (BloofiScanOpaqueData *) scan->opaque;
	MemoryContext old = MemoryContextSwitchTo(so->ctx);
	BloofiMetaData *meta = bloofi_read_meta(scan->indexRelation);
	BloofiSearchStats st = {0, 0, 0};
	BsParams	p;
	BsHasher	h;
	uint32	   *pos;
	uint32		npos = 0;
	BsKey	   *alt;			/* [key][reading] */
	int		   *nalt;
	int			two[BLOOFI_MAX_TWO_READING_KEYS];
	int			ntwo = 0;
	int			nkeys = scan->numberOfKeys;
	bool		taken;
	BitmapSink	sink = {tbm, scan->numberOfKeys > 0};	/* (amoptionalkey is false) */

	if (!meta->have_params)
	{
		MemoryContextSwitchTo(old);
		MemoryContextReset(so->ctx);
		return 0;
	}
	bloofi_params(meta, &p);
	bs_hasher_init(&h, &p);
	pos = palloc(sizeof(uint32) * p.k * Max(nkeys, 1));
	alt = palloc(sizeof(BsKey) * BS_ELEM_READINGS_MAX * Max(nkeys, 1));
	nalt = palloc(sizeof(int) * Max(nkeys, 1));
	for (int i = 0; i < nkeys; i++)
	{
		ScanKey		sk = &scan->keyData[i];

		if (sk->sk_flags & SK_ISNULL)
		{
			MemoryContextSwitchTo(old);
			MemoryContextReset(so->ctx);
			return 0;
		}
		nalt[i] = bloofi_elem_keys(&h, sk->sk_argument, sk->sk_subtype,
								   alt + i * BS_ELEM_READINGS_MAX);
		/* leaving a key out of the search only widens it (the recheck decides) */
		if (nalt[i] > 1 && ntwo == BLOOFI_MAX_TWO_READING_KEYS)
			nalt[i] = 0;
		else if (nalt[i] > 1)
			two[ntwo++] = i;
		/* a row reads a two-reading key its own way: only the heap can tell */
		if (nalt[i] != 1)
			sink.keys_exact = false;
	}
	bs_count_index_search(scan);
	/* the planner's probe may have found them just now (bloofi_probe_reuse.c) */
	taken = nkeys == 1 && nalt[0] > 0 &&
		bloofi_probe_tids_take(scan, alt, nalt[0], tbm, &st.matches);

	/* else one search per combination of the two-reading keys' readings */
	for (uint32 combo = 0; !taken && combo < (1U << ntwo); combo++)
	{
		uint32		n = 0;
		int			t = 0;

		for (int i = 0; i < nkeys; i++)
		{
			int			r = 0;

			if (nalt[i] == 0)
				continue;
			if (t < ntwo && two[t] == i)
				r = (combo >> t++) & 1;
			bs_key_positions(&h, alt[i * BS_ELEM_READINGS_MAX + r], pos + n);
			n += p.k;
		}
		npos = bloofi_sort_positions(pos, n);

		/*
		 * The pending chains first, then the tree from a fresh root
		 * (bloofi_pending.c): a flush may move entries from the chains into
		 * the tree meanwhile.  When both chains were empty, the root read
		 * with them will do: every entry the snapshot can see was in the
		 * tree then, and stays found from that root (a replaced root is
		 * retired, and kept while a snapshot of then may read it).
		 */
		if (combo > 0)
			meta = bloofi_read_meta(scan->indexRelation);
		bloofi_pending_search(scan->indexRelation, meta, pos, npos, bloofi_bitmap_cb, &sink, &st);
		if (meta->pending_head != InvalidBlockNumber || meta->flushing_head != InvalidBlockNumber)
			meta = bloofi_read_meta(scan->indexRelation);
		bloofi_search(scan->indexRelation, meta, pos, npos, bloofi_bitmap_cb, &sink, &st);
	}
	MemoryContextSwitchTo(old);
	MemoryContextReset(so->ctx);
	return st.matches;
}
