/*
 * bloofi_build.c
 *    CREATE INDEX / REINDEX for Bloofi: bulk build, bottom-up.
 *
 * The heap is scanned once into a tuplesort keyed by a similarity key
 * (two MinHash values of the filter's set bits, bloofi_similarity_key):
 * similar filters come out next to each other, as the paper's bulk build
 * orders them (it uses an O(N^2) nearest-neighbour chain; MinHash is the
 * O(N log N) locality-sensitive stand-in).  The sorted leaves are cut into
 * bottom nodes the way the paper's bulk build ("always insert next to the
 * rightmost leaf") leaves them: a node gets d + 1 leaves (what a split
 * leaves behind) unless its first 2d + 1 leaves have a saturated OR, in
 * which case the no-split rule (section 3.4, bloofi_insert.c) lets it grow
 * to leaf_capacity (or what maintenance_work_mem buffers).  Each level above
 * is built from runs of d + 1 or d consecutive nodes up to a single root,
 * which may be a wide, saturated one (section 3.4 in bulk): at every level
 * bloofi_tree_level_plan picks what the search-cost model of bloofi_tree.h
 * says makes lookups check fewest nodes.  Every node is written whole (bloofi_node_write): its
 * TIDs or child references, its value and its slices, transposed in work
 * proportional to the set bits.  The sort gets half of maintenance_work_mem,
 * the bottom node's buffer the other half.
 *
 * Pages are written through shared buffers without WAL and WAL-logged at the
 * end in one pass (log_newpage_range), as pgvector and GiST's sorted build
 * do; a crash before commit leaves an index nobody references.
 *
 * Design notes: docs/bloofi.md.
 */
#include "postgres.h"

#include "access/tableam.h"
#include "access/tupdesc.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "executor/tuptable.h"
#include "access/xloginsert.h"
#include "catalog/index.h"
#include "commands/progress.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/smgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/tuplesort.h"

#include "bloofi.h"
#include "bloofi_sparse.h"
#include "bloofi_tree.h"

typedef struct BloofiBuildState
{
	Relation	index;
	BloofiMetaData *meta;		/* local copy, written at the end */
	BsParams	params;
	uint32		fbytes;
	uint32		build_cap;		/* most leaves of a dense (saturated) bottom node */
	uint32		wide_cap;		/* most leaves of a wide SPARSE bottom node */
	/*
	 * The leaves buffered for the next bottom node, each as the sort carries
	 * it (bloofi_build_payload: set positions, or dense bits when smaller):
	 * leaf i is bytes [off[i], off[i] + len[i]) of buf.  A wide node of small
	 * filters is held as positions, so its width is bounded by its set bits,
	 * not by rows of m bits.
	 */
	uint8	   *buf;
	Size		buf_used;
	Size		buf_size;
	Size	   *off;
	uint32	   *len;
	ItemPointerData *tids;
	uint32		n;				/* filters buffered */
	bool		growing;		/* the buffered node is saturated: fill it */
	bool		wide;			/* the buffered node is a wide SPARSE one */
	uint64		total_bits;		/* set bits of all the filters sorted */
	uint8	   *value;			/* the buffered filters' value (their OR) */
	/* the bottom level written so far: first blocks and values */
	BlockNumber *level_start;
	uint8	   *level_vals;
	BloofiSubtreeCost *level_cost;	/* the search-cost model's, per node */
	uint32		level_n;
	uint32		level_cap;
	double		indtuples;
	MemoryContext tmpctx;
	Tuplesortstate *sort;		/* (similarity key, tid, filter bits) */
	TupleDesc	sortdesc;
	TupleTableSlot *inslot;
} BloofiBuildState;

/* append a written node (first block, value, cost) to the level list */
static void
bloofi_level_append(BloofiBuildState *bs, BlockNumber start, const uint8 *val,
					const BloofiSubtreeCost *cost)
{
	if (bs->level_n == bs->level_cap)
	{
		bs->level_cap = Max(64, bs->level_cap * 2);
		bs->level_start = bs->level_start ?
			repalloc_huge(bs->level_start, sizeof(BlockNumber) * bs->level_cap) :
			palloc_extended(sizeof(BlockNumber) * bs->level_cap, MCXT_ALLOC_HUGE);
		bs->level_vals = bs->level_vals ?
			repalloc_huge(bs->level_vals, (Size) bs->fbytes * bs->level_cap) :
			palloc_extended((Size) bs->fbytes * bs->level_cap, MCXT_ALLOC_HUGE);
		bs->level_cost = bs->level_cost ?
			repalloc_huge(bs->level_cost, sizeof(BloofiSubtreeCost) * bs->level_cap) :
			palloc_extended(sizeof(BloofiSubtreeCost) * bs->level_cap, MCXT_ALLOC_HUGE);
	}
	bs->level_start[bs->level_n] = start;
	memcpy(bs->level_vals + (size_t) bs->level_n * bs->fbytes, val, bs->fbytes);
	bs->level_cost[bs->level_n] = *cost;
	bs->level_n++;
}

/* whether buffered leaf i is carried as dense bits (else as set positions) */
static inline bool
leaf_is_dense(const BloofiBuildState *bs, uint32 i)
{
	return bs->len[i] == bs->fbytes;
}

/* buffered leaf i ORed into row (fbytes) */
static void
leaf_or_into(const BloofiBuildState *bs, uint32 i, uint8 *row)
{
	const uint8 *data = bs->buf + bs->off[i];

	if (leaf_is_dense(bs, i))
		bs_or(row, data, bs->fbytes / 8);
	else
		for (uint32 p = 0; p < bs->len[i] / 4; p++)
		{
			uint32		j;

			memcpy(&j, data + 4 * p, 4);
			row[j / 8] |= (uint8) (1u << (j % 8));
		}
}

/* the set bits of buffered leaf i */
static uint64
leaf_bits(const BloofiBuildState *bs, uint32 i)
{
	if (leaf_is_dense(bs, i))
		return bs_popcount(bs->buf + bs->off[i], bs->fbytes / 8);
	return bs->len[i] / 4;
}

/*
 * The set positions of buffered leaf i, increasing: in the buffer itself, or
 * (dense bits) in a palloc'd array, *owned set.
 */
static const uint32 *
leaf_positions(const BloofiBuildState *bs, uint32 i, uint32 *npos, bool *owned)
{
	const uint8 *data = bs->buf + bs->off[i];
	uint32	   *pos;

	*owned = leaf_is_dense(bs, i);
	if (!*owned)
	{
		*npos = bs->len[i] / 4;
		return (const uint32 *) data;	/* (offsets are multiples of 4) */
	}
	pos = palloc(sizeof(uint32) * Max(leaf_bits(bs, i), 1));
	*npos = (uint32) bs_set_positions(data, bs->fbytes / 8, pos);
	return pos;
}

/*
 * The first cnt buffered leaves as a SPARSE node of cap slots, built from
 * their positions (an empty node's lists with the leaves added in slot
 * order, bloofi_sparse_rebuild): memory follows their set bits, not cnt
 * rows of m bits.  Their value goes to val; returns the node's first block.
 */
static BlockNumber
bloofi_emit_lists(BloofiBuildState *bs, uint32 cnt, uint32 cap, uint8 *val)
{
	uint32		m = bs->params.m;
	uint32	   *counts = palloc_extended(sizeof(uint32) * ((Size) m + 1), MCXT_ALLOC_HUGE);
	uint8	   *empty = palloc_extended(bloofi_sparse_bytes(m, 0), MCXT_ALLOC_HUGE);
	uint64	   *keep = palloc0(sizeof(uint64) * ((cap + 63) / 64));
	uint32	   *slots = palloc(sizeof(uint32) * cnt);
	uint32	   *npos = palloc(sizeof(uint32) * cnt);
	const uint32 **pos = palloc(sizeof(uint32 *) * cnt);
	bool	   *owned = palloc(sizeof(bool) * cnt);
	uint16	   *scratch = palloc(sizeof(uint16) * cap);
	uint64		nentries;
	uint8	   *out;
	BlockNumber start;

	bloofi_sparse_encode(empty, m, cap, 0, 0, NULL, counts);
	for (uint32 i = 0; i < cnt; i++)
	{
		slots[i] = i;
		pos[i] = leaf_positions(bs, i, &npos[i], &owned[i]);
		for (uint32 p = 0; p < npos[i]; p++)
			if (pos[i][p] >= m || (p > 0 && pos[i][p] <= pos[i][p - 1]))
				elog(ERROR, "bloofi: build payload position %u out of order or past m = %u",
					 pos[i][p], m);
	}
	nentries = bloofi_sparse_rebuild_count(empty, keep, cnt, npos);
	if (nentries > PG_UINT32_MAX)
		elog(ERROR, "bloofi: a sparse node of %llu set bits", (unsigned long long) nentries);
	out = palloc_extended(bloofi_sparse_bytes(m, nentries), MCXT_ALLOC_HUGE);
	/* (slots[] is in increasing order: it is its own order[]) */
	bloofi_sparse_rebuild(empty, keep, cnt, slots, slots, pos, npos, 0, out, counts, scratch);
	start = bloofi_node_write_lists(bs->index, bs->meta, cap, cnt, bs->tids, out, val, false);
	for (uint32 i = 0; i < cnt; i++)
		if (owned[i])
			pfree((uint32 *) pos[i]);
	pfree(counts);
	pfree(empty);
	pfree(keep);
	pfree(slots);
	pfree(npos);
	pfree(pos);
	pfree(owned);
	pfree(scratch);
	pfree(out);
	return start;
}

/* the first cnt buffered leaves as rows of filters, written as a node the paper's way */
static BlockNumber
bloofi_emit_rows(BloofiBuildState *bs, uint32 cnt, uint32 cap, uint8 *val)
{
	uint8	   *rows = palloc_extended((Size) cnt * bs->fbytes, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	const uint8 **fp = palloc(sizeof(uint8 *) * cnt);
	BlockNumber start;

	for (uint32 i = 0; i < cnt; i++)
	{
		leaf_or_into(bs, i, rows + (size_t) i * bs->fbytes);
		fp[i] = rows + (size_t) i * bs->fbytes;
	}
	/*
	 * SPARSE when its lists take fewer pages than dense slices; always when
	 * it grew past 2d leaves without a saturated value (bloofi_check's
	 * fan-out rule)
	 */
	start = bloofi_node_write_form(bs->index, bs->meta, 0, cap, cnt, bs->tids, fp, val, false,
								   cnt > 2 * bs->meta->order &&
								   !bloofi_value_saturated(bs->value, bs->params.m,
														   bs->params.k) ?
								   BLOOFI_FORM_SPARSE : BLOOFI_FORM_CHOOSE);
	pfree(rows);
	pfree(fp);
	return start;
}

/* write the first cnt buffered leaves as a bottom node and drop them from the buffer */
static void
bloofi_emit_bottom(BloofiBuildState *bs, uint32 cnt)
{
	uint8	   *val = palloc0(bs->fbytes);
	uint32		cap = bloofi_node_cap(bs->meta->order, (uint64) cnt + 2);
	BlockNumber start;
	BloofiSubtreeCost cost;
	Size		base;

	if (cnt == 0)
		return;
	/* slices over half a page take a page each: room up to a page is free */
	if (cap / 8 > BLOOFI_PAGE_BYTES / 2)
		cap = BLOOFI_MAX_CAP;
	if (bs->wide)
		start = bloofi_emit_lists(bs, cnt, cap, val);
	else
		start = bloofi_emit_rows(bs, cnt, cap, val);
	bloofi_tree_cost_leaves(cnt, bloofi_tree_value_fp(val, bs->params.m, bs->params.k), &cost);
	bloofi_level_append(bs, start, val, &cost);
	base = cnt < bs->n ? bs->off[cnt] : bs->buf_used;
	memmove(bs->buf, bs->buf + base, bs->buf_used - base);
	bs->buf_used -= base;
	for (uint32 i = cnt; i < bs->n; i++)
	{
		bs->off[i - cnt] = bs->off[i] - base;
		bs->len[i - cnt] = bs->len[i];
	}
	memmove(bs->tids, bs->tids + cnt, sizeof(ItemPointerData) * (bs->n - cnt));
	bs->n -= cnt;
	memset(bs->value, 0, bs->fbytes);
	for (uint32 i = 0; i < bs->n; i++)
		leaf_or_into(bs, i, bs->value);
	bs->growing = bs->wide = false;
	pfree(val);
}

/*
 * Whether n filters of `bits` set bits in all (the 2d + 1 leaves buffered,
 * or the whole column) are small enough to go into
 * one wide SPARSE bottom node: at most BLOOFI_WIDE_SPARSE_BITS set bits each
 * on average, or so few against m that a node of build_cap of them has
 * lists of at most BLOOFI_WIDE_SPARSE_LIST slots on average (filters sized
 * for a larger set: at m = 433,039, 600 leaves of 100 bits give lists of
 * 0.14), and a node of build_cap leaves like them taking at most a quarter
 * of the bytes of dense slices (its smaller sparse form: the direct one, or
 * the LISTED one at ~4 bytes per set bit, against cap / 8 bytes per
 * position).  Then the node grows, held as positions, up to leaf_capacity
 * (bloofi_sparse_leaf_cap) or what half of maintenance_work_mem holds of
 * their positions: a few wide nodes, each lookup k short lists, rather than
 * many nodes of at least three pages each holding a few hundred bytes of
 * leaves.  Larger filters
 * (the paper's configuration: 700 bits of 100,992, lists of ~450 at 65,000
 * leaves) keep the paper's tree.
 */
#define BLOOFI_WIDE_SPARSE_BITS	32
#define BLOOFI_WIDE_SPARSE_LIST	16

static bool
bloofi_build_sparse_pays(const BloofiBuildState *bs, uint64 bits, uint64 n)
{
	uint64		cap = Min((uint64) bs->build_cap + 2, (uint64) BLOOFI_SPARSE_MAX_CAP);
	uint64		entries;
	uint64		sparse,
				dense;

	entries = bits * cap / Max(n, 1);
	if ((bits > (uint64) BLOOFI_WIDE_SPARSE_BITS * n &&
		 entries > (uint64) BLOOFI_WIDE_SPARSE_LIST * bs->params.m) ||
		!bloofi_get_fastupdate(bs->index))
		return false;
	sparse = Min(bloofi_sparse_bytes(bs->params.m, entries), 4 * entries + 64);
	dense = (uint64) bs->params.m * (cap / 8);
	return sparse * 4 <= dense;
}

/*
 * A filter's bits as the sort carries them: its set positions (uint32 each)
 * when they take fewer bytes than the dense bits, else the dense bits; the
 * length tells which (dense: exactly nwords * 8 bytes); *bits: how many set.
 * At m = 433,039 a filter of 15 set bits is sorted as 60 bytes instead of
 * 54 kB.
 */
static bytea *
bloofi_build_payload(const BloomView *v, uint64 *bits)
{
	uint64		count = bs_popcount(v->bits, v->nwords);
	bytea	   *out;

	*bits = count;

	if (count * 4 < (uint64) v->nwords * 8)
	{
		uint64		n;

		out = palloc(VARHDRSZ + count * 4);
		n = bf_dense_positions(v, (uint32 *) VARDATA(out), count);
		SET_VARSIZE(out, VARHDRSZ + n * 4);
		return out;
	}
	out = palloc(VARHDRSZ + v->nwords * 8);
	SET_VARSIZE(out, VARHDRSZ + v->nwords * 8);
	memcpy(VARDATA(out), v->bits, v->nwords * 8);
	return out;
}

/* append one sorted filter (as bloofi_build_payload made it) to the bottom-node buffer, writing nodes as they close */
static void
bloofi_buffer_leaf(BloofiBuildState *bs, ItemPointer tid, const bytea *payload)
{
	uint32		d = bs->meta->order;
	size_t		len = VARSIZE_ANY_EXHDR(payload);
	const uint8 *data = (const uint8 *) VARDATA_ANY(payload);

	if (len != bs->fbytes && len % 4 != 0)
		elog(ERROR, "bloofi: build payload of %zu bytes", len);
	for (size_t i = 0; len != bs->fbytes && i < len / 4; i++)
	{
		uint32		j;

		memcpy(&j, data + 4 * i, 4);
		if (j >= bs->params.m)
			elog(ERROR, "bloofi: build payload position %u past m = %u", j, bs->params.m);
	}
	/* a wide node whose positions fill the buffer closes there */
	if (bs->buf_used + len > bs->buf_size)
		bloofi_emit_bottom(bs, bs->n);
	memcpy(bs->buf + bs->buf_used, data, len);
	bs->off[bs->n] = bs->buf_used;
	bs->len[bs->n] = (uint32) len;
	bs->buf_used += len;
	bs->tids[bs->n] = *tid;
	leaf_or_into(bs, bs->n, bs->value);
	bs->n++;
	if (bs->n == (bs->wide ? bs->wide_cap : bs->build_cap))
		bloofi_emit_bottom(bs, bs->n);
	else if (!bs->growing && !bs->wide && bs->n == 2 * d + 1)
	{
		uint64		bits = 0;

		for (uint32 i = 0; i < bs->n; i++)
			bits += leaf_bits(bs, i);

		/*
		 * Small sparse filters, here or over the whole column: one wide
		 * SPARSE node.  (The whole column's average counts too: the
		 * similarity sort puts the largest sets of a skewed column first,
		 * and a first node of them alone would need a root above.)
		 */
		if (bloofi_build_sparse_pays(bs, bits, bs->n) ||
			bloofi_build_sparse_pays(bs, bs->total_bits, (uint64) bs->indtuples))
			bs->wide = true;
		else if (bloofi_value_saturated(bs->value, bs->params.m, bs->params.k))
			bs->growing = true; /* unsplittable: grow to build_cap */
		else
			bloofi_emit_bottom(bs, d + 1);	/* what a split leaves behind */
	}
}

/* the levels above the bottom one, up to the root */
static void
bloofi_build_inner(BloofiBuildState *bs)
{
	uint32		d = bs->meta->order;
	uint16		level = 0;
	void	   *work = palloc_extended(bloofi_tree_level_plan_work(Max(bs->level_n, 2),
																   bs->params.m),
									   MCXT_ALLOC_HUGE);

	while (bs->level_n > 1)
	{
		int64		n = bs->level_n;
		BlockNumber *cstart = bs->level_start;
		uint8	   *cvals = bs->level_vals;
		BloofiSubtreeCost *ccost = bs->level_cost;
		const uint8 **vp = palloc_extended(sizeof(uint8 *) * n, MCXT_ALLOC_HUGE);
		BloofiSubtreeCost *pcost = palloc_extended(sizeof(BloofiSubtreeCost) * n,
												   MCXT_ALLOC_HUGE);
		int64		parents;

		/*
		 * Runs of d + 1 or d nodes under new parents, or (section 3.4 in
		 * bulk) one wide saturated root over the whole level: what the
		 * search-cost model says checks fewest nodes per lookup.
		 */
		for (int64 i = 0; i < n; i++)
			vp[i] = cvals + (size_t) i * bs->fbytes;
		parents = bloofi_tree_level_plan(vp, ccost, n, (int) d, bs->params.m, bs->params.k,
										 BLOOFI_NOSPLIT_SATURATED, BLOOFI_MAX_CAP - 2,
										 pcost, work);

		bs->level_start = NULL;
		bs->level_vals = NULL;
		bs->level_cost = NULL;
		bs->level_n = bs->level_cap = 0;
		level++;
		for (int64 p = 0; p < parents; p++)
		{
			int64		lo = bloofi_tree_level_run(n, parents, p);
			int64		hi = bloofi_tree_level_run(n, parents, p + 1);
			uint32		cnt = (uint32) (hi - lo);
			ItemPointerData *refs = palloc(sizeof(ItemPointerData) * cnt);
			uint8	   *val = palloc(bs->fbytes);
			uint32		cap = bloofi_node_cap(d, (uint64) cnt + 2);
			BlockNumber start;

			CHECK_FOR_INTERRUPTS();
			for (uint32 i = 0; i < cnt; i++)
				bloofi_child_ref(&refs[i], cstart[lo + i]);
			start = bloofi_node_write(bs->index, bs->meta, level, cap, cnt, refs, vp + lo,
									  val, false);
			bloofi_level_append(bs, start, val, &pcost[p]);
			pfree(refs);
			pfree(val);
		}
		pfree(vp);
		pfree(pcost);
		pfree(cstart);
		pfree(cvals);
		pfree(ccost);
	}
	if (bs->level_n == 1)
	{
		bs->meta->root = bs->level_start[0];
		bs->meta->height = level + 1;
	}
	pfree(work);
}

static void
bloofi_build_callback(Relation index, ItemPointer tid, Datum *values,
					  bool *isnull, bool tupleIsAlive, void *state)
{
	BloofiBuildState *bs = (BloofiBuildState *) state;
	BloomView	v;
	MemoryContext old;

	if (isnull[0])
		return;
	old = MemoryContextSwitchTo(bs->tmpctx);
	bf_view_datum(values[0], &v);
	if (!bs->meta->have_params)
	{
		bloofi_require_max_m(v.p.m);
		bs->params = v.p;
		bs->meta->have_params = 1;
		bs->meta->m = v.p.m;
		bs->meta->k = v.p.k;
		bs->meta->hash = v.p.hash;
		bs->meta->seed = v.p.seed;

		/*
		 * half of maintenance_work_mem for the sort, half for one bottom
		 * node's buffer: the bound inserts also grow nodes to (two slots kept
		 * free)
		 */
		bs->fbytes = v.nwords * 8;
		bs->build_cap = Max(bloofi_effective_leaf_cap(bs->meta) - 2, 2 * bs->meta->order + 1);
		bs->wide_cap = Max(bloofi_sparse_leaf_cap(bs->meta) - 2, bs->build_cap);
		MemoryContextSwitchTo(old);
		/* room for build_cap rows, and for a wide node's positions up to the same half */
		bs->buf_size = Max((Size) bs->build_cap * bs->fbytes,
						   Min((Size) maintenance_work_mem * 512,
							   (Size) bs->wide_cap * bs->fbytes));
		bs->buf = palloc_extended(bs->buf_size, MCXT_ALLOC_HUGE);
		bs->off = palloc_extended(sizeof(Size) * bs->wide_cap, MCXT_ALLOC_HUGE);
		bs->len = palloc_extended(sizeof(uint32) * bs->wide_cap, MCXT_ALLOC_HUGE);
		bs->tids = palloc_extended((Size) bs->wide_cap * sizeof(ItemPointerData),
								   MCXT_ALLOC_HUGE);
		bs->value = palloc0(v.nwords * 8);
		MemoryContextSwitchTo(bs->tmpctx);
	}
	else
		bloofi_require_params(index, bs->meta, &v.p);

	{
		uint64		nbits;
		bytea	   *bits = bloofi_build_payload(&v, &nbits);
		ItemPointerData t = *tid;

		bs->total_bits += nbits;

		ExecClearTuple(bs->inslot);
		bs->inslot->tts_values[0] = Int64GetDatum((int64) bloofi_similarity_key(v.bits, v.p.m));
		bs->inslot->tts_values[1] = PointerGetDatum(&t);
		bs->inslot->tts_values[2] = PointerGetDatum(bits);
		memset(bs->inslot->tts_isnull, 0, 3 * sizeof(bool));
		ExecStoreVirtualTuple(bs->inslot);
		tuplesort_puttupleslot(bs->sort, bs->inslot);
	}
	bs->indtuples += 1;
	MemoryContextSwitchTo(old);
	MemoryContextReset(bs->tmpctx);
	pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, (int64) bs->indtuples);
}

IndexBuildResult *
bloofi_build(Relation heap, Relation index, IndexInfo *indexInfo)
{
	IndexBuildResult *result;
	BloofiBuildState bs;
	Buffer		metabuf;
	double		reltuples;

	if (RelationGetNumberOfBlocks(index) != 0)
		elog(ERROR, "index \"%s\" already contains data", RelationGetRelationName(index));

	memset(&bs, 0, sizeof(bs));
	bs.index = index;
	bs.meta = palloc0(BLOOFI_PAGE_BYTES);
	bs.meta->magic = BLOOFI_MAGIC;
	bs.meta->version = BLOOFI_VERSION;
	bs.meta->order = bloofi_get_order(index);
	bs.meta->leaf_cap = bloofi_get_leaf_cap(index);
	bs.meta->root = InvalidBlockNumber;
	bs.meta->pending_head = bs.meta->pending_tail = InvalidBlockNumber;
	bs.meta->flushing_head = bs.meta->free_head = InvalidBlockNumber;
	bs.meta->retired_head = bs.meta->freenode_head = InvalidBlockNumber;
	bs.tmpctx = AllocSetContextCreate(CurrentMemoryContext, "bloofi build temporary context",
									  ALLOCSET_DEFAULT_SIZES);
	{
		/* ties of the key broken by TID: the order does not depend on the sort's memory */
		AttrNumber	attno[2] = {1, 2};
		Oid			op[2] = {Int8LessOperator, TIDLessOperator};
		Oid			coll[2] = {InvalidOid, InvalidOid};
		bool		nf[2] = {false, false};

		bs.sortdesc = CreateTemplateTupleDesc(3);
		TupleDescInitEntry(bs.sortdesc, 1, "key", INT8OID, -1, 0);
		TupleDescInitEntry(bs.sortdesc, 2, "tid", TIDOID, -1, 0);
		TupleDescInitEntry(bs.sortdesc, 3, "bits", BYTEAOID, -1, 0);
		bs.sort = tuplesort_begin_heap(bs.sortdesc, 2, attno, op, coll, nf,
									   Max(maintenance_work_mem / 2, 64), NULL, TUPLESORT_NONE);
		bs.inslot = MakeSingleTupleTableSlot(bs.sortdesc, &TTSOpsVirtual);
	}

	/* block 0: the metapage, rewritten at the end */
	metabuf = bloofi_new_buffer(index);
	Assert(BufferGetBlockNumber(metabuf) == BLOOFI_METAPAGE_BLKNO);
	bloofi_init_meta_page(BufferGetPage(metabuf), bs.meta->order, bs.meta->leaf_cap);
	MarkBufferDirty(metabuf);
	UnlockReleaseBuffer(metabuf);

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, BLOOFI_PHASE_LOAD);
	reltuples = table_index_build_scan(heap, index, indexInfo, true, true,
									   bloofi_build_callback, (void *) &bs, NULL);

	/* the filters in similarity order, cut into bottom nodes */
	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, BLOOFI_PHASE_SORT);
	tuplesort_performsort(bs.sort);
	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, BLOOFI_PHASE_WRITE);
	{
		TupleTableSlot *outslot = MakeSingleTupleTableSlot(bs.sortdesc, &TTSOpsMinimalTuple);

		while (tuplesort_gettupleslot(bs.sort, true, false, outslot, NULL))
		{
			bool		isnull;
			ItemPointer tid;
			bytea	   *bits;

			CHECK_FOR_INTERRUPTS();
			tid = (ItemPointer) DatumGetPointer(slot_getattr(outslot, 2, &isnull));
			bits = DatumGetByteaPP(slot_getattr(outslot, 3, &isnull));
			bloofi_buffer_leaf(&bs, tid, bits);
		}
		ExecDropSingleTupleTableSlot(outslot);
	}
	tuplesort_end(bs.sort);
	ExecDropSingleTupleTableSlot(bs.inslot);
	if (bs.n > 0)
		bloofi_emit_bottom(&bs, bs.n);
	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, BLOOFI_PHASE_INNER);
	bloofi_build_inner(&bs);

	metabuf = ReadBuffer(index, BLOOFI_METAPAGE_BLKNO);
	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	memcpy(BloofiPageGetMeta(BufferGetPage(metabuf)), bs.meta, BLOOFI_PAGE_BYTES);
	MarkBufferDirty(metabuf);
	UnlockReleaseBuffer(metabuf);

	if (RelationNeedsWAL(index))
	{
		pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, BLOOFI_PHASE_WAL);
		log_newpage_range(index, MAIN_FORKNUM, 0, RelationGetNumberOfBlocks(index), true);
	}
	MemoryContextDelete(bs.tmpctx);

	result = (IndexBuildResult *) palloc(sizeof(IndexBuildResult));
	result->heap_tuples = reltuples;
	result->index_tuples = bs.indtuples;
	return result;
}

/* the init fork of an unlogged index: an empty metapage */
void
bloofi_buildempty(Relation index)
{
	Page		metapage = (Page) palloc(BLCKSZ);

	bloofi_init_meta_page(metapage, bloofi_get_order(index), bloofi_get_leaf_cap(index));
	PageSetChecksumInplace(metapage, BLOOFI_METAPAGE_BLKNO);
	smgrwrite(RelationGetSmgr(index), INIT_FORKNUM, BLOOFI_METAPAGE_BLKNO,
			  (char *) metapage, true);
	log_newpage(&BS_SMGR_LOCATOR(RelationGetSmgr(index)), INIT_FORKNUM,
				BLOOFI_METAPAGE_BLKNO, metapage, true);
	smgrimmedsync(RelationGetSmgr(index), INIT_FORKNUM);
}

char *
bloofi_buildphasename(int64 phasenum)
{
	switch (phasenum)
	{
		case PROGRESS_CREATEIDX_SUBPHASE_INITIALIZE:
			return "initializing";
		case BLOOFI_PHASE_LOAD:
			return "scanning table";
		case BLOOFI_PHASE_SORT:
			return "sorting filters by similarity";
		case BLOOFI_PHASE_WRITE:
			return "writing bottom nodes";
		case BLOOFI_PHASE_INNER:
			return "writing inner nodes";
		case BLOOFI_PHASE_WAL:
			return "WAL-logging index";
		default:
			return NULL;
	}
}
