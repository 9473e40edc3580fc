/*
 * bloomfilter_colstats.c
 *    The planner's statistics of a bloomfilter column, read back: the slot
 *    of bloomfilter_stats.h that ANALYZE writes (bloomfilter_analyze.c),
 *    decoded once per backend and kept in a small cache for the
 *    selectivity estimators (bloomfilter_selfuncs.c) and the cost of
 *    reading a filter (bloomfilter_readcost.c), and shown by the SQL
 *    function bloom_column_stats.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "bloomfilter_stats.h"

PG_FUNCTION_INFO_V1(bloom_column_stats);

/* ---- the cache of decoded statistics ------------------------------------ */

/*
 * Decoding a slot (detoasting a bytea[] of up to BF_STATS_MAX_BYTES) costs
 * more than planning a lookup, so decoded slots are kept per backend, keyed
 * by the pg_statistic tuple's identity (TID and xmin: a new ANALYZE writes a
 * new tuple version).  An invalidation of pg_statistic marks the entries of
 * that key stale; they are freed at the next lookup (never while a caller
 * may hold a pointer from the previous one).
 */
#define STATS_CACHE_SIZE	16
/* decoded statistics kept per backend, in bytes (the entry in use stays) */
#define STATS_CACHE_BYTES	((Size) 64 * 1024 * 1024)

typedef struct StatsCacheEntry
{
	bool		used;
	bool		stale;
	ItemPointerData tid;
	TransactionId xmin;
	uint32		hashvalue;		/* STATRELATTINH hash of its key */
	uint64		lastuse;
	Size		bytes;			/* memory of its context */
	MemoryContext cxt;
	BfColumnStats stats;
} StatsCacheEntry;

static StatsCacheEntry stats_cache[STATS_CACHE_SIZE];
/* statistics that cannot be cached (a plugin's tuple): decoded afresh each time */
static MemoryContext uncached_cxt = NULL;
static bool stats_callback_registered = false;
static uint64 stats_clock = 0;

/* syscache callback of pg_statistic: mark the entries of hashvalue (0: all) stale */
static void
stats_cache_inval(Datum arg, int cacheid, uint32 hashvalue)
{
	for (int i = 0; i < STATS_CACHE_SIZE; i++)
		if (stats_cache[i].used && (hashvalue == 0 || stats_cache[i].hashvalue == hashvalue))
			stats_cache[i].stale = true;
}

/* free an entry's memory and mark it unused */
static void
stats_cache_free(StatsCacheEntry *e)
{
	if (e->cxt)
		MemoryContextDelete(e->cxt);
	memset(e, 0, sizeof(*e));
}

/* index of the bloomfilter slot of a pg_statistic tuple, or -1 */
static int
stats_slot(HeapTuple tuple)
{
	Form_pg_statistic st = (Form_pg_statistic) GETSTRUCT(tuple);

	for (int i = 0; i < STATISTIC_NUM_SLOTS; i++)
		if ((&st->stakind1)[i] == STATISTIC_KIND_BLOOMFILTER)
			return i;
	return -1;
}

/*
 * Decode the slot of tuple into *cs, allocating in the current memory
 * context; false when the slot is not one this build understands.
 */
static bool
stats_decode(HeapTuple tuple, BfColumnStats *cs)
{
	AttStatsSlot sslot;
	uint32		max_words = 1;
	bool		ok = true;

	memset(cs, 0, sizeof(*cs));
	cs->nullfrac = ((Form_pg_statistic) GETSTRUCT(tuple))->stanullfrac;
	if (!get_attstatsslot(&sslot, tuple, STATISTIC_KIND_BLOOMFILTER, InvalidOid,
						  ATTSTATSSLOT_VALUES | ATTSTATSSLOT_NUMBERS))
		return false;
	if (sslot.nnumbers < BF_STATS_NUMBERS_1 || sslot.valuetype != BYTEAOID ||
		sslot.nvalues > BF_STATS_MAX_SETS)
		ok = false;
	else
	{
		cs->frac_external = sslot.numbers[BF_STATS_FRAC_EXTERNAL];
		cs->frac_compressed = sslot.numbers[BF_STATS_FRAC_COMPRESSED];
		cs->mean_raw_bytes = sslot.numbers[BF_STATS_MEAN_RAW_BYTES];
		cs->other_frac = sslot.numbers[BF_STATS_OTHER_FRAC];
		cs->other_fp = sslot.numbers[BF_STATS_OTHER_FP];
		if (sslot.nnumbers >= BF_STATS_NUMBERS_2)
		{
			cs->frac_sparse = sslot.numbers[BF_STATS_FRAC_SPARSE];
			cs->sparse_positions = sslot.numbers[BF_STATS_SPARSE_POS];
		}
		/* sizes by storage, or (written before issue 36) the mean of all */
		cs->ext_bytes = cs->comp_bytes = cs->dense_bytes = cs->mean_raw_bytes;
		if (sslot.nnumbers >= BF_STATS_NUMBERS)
		{
			cs->ext_bytes = sslot.numbers[BF_STATS_EXT_BYTES];
			cs->comp_bytes = sslot.numbers[BF_STATS_COMP_BYTES];
			cs->dense_bytes = sslot.numbers[BF_STATS_DENSE_BYTES];
		}
	}
	for (int i = 0; ok && i < sslot.nvalues; i++)
	{
		bytea	   *b = DatumGetByteaPP(sslot.values[i]);
		Size		len = VARSIZE_ANY_EXHDR(b);
		BfStatsSetData *d;
		BfStatsSet *set = &cs->sets[cs->nsets];

		if (len < offsetof(BfStatsSetData, slices))
		{
			ok = false;
			break;
		}
		d = palloc(len);		/* 8-aligned */
		memcpy(d, VARDATA_ANY(b), len);
		if (d->magic != BF_STATS_MAGIC ||
			(d->version != BF_STATS_VERSION && d->version != BF_STATS_VERSION_2 &&
			 d->version != BF_STATS_VERSION_1) ||
			d->m < BS_MIN_M || d->m > BS_MAX_M || d->k < BS_MIN_K || d->k > BS_MAX_K ||
			d->hash >= BS_NUM_HASH_FAMILIES || d->fold_m > d->m ||
			(d->nsample > 0 && d->fold_m < 1) ||
			len < BF_STATS_SET_BYTES(d->fold_m, d->nsample) +
			(d->version >= BF_STATS_VERSION_2 ? sizeof(BfStatsPassHist) : 0) +
			(d->version >= BF_STATS_VERSION ? BF_STATS_HEAVY_BYTES(0, 0) : 0))
		{
			ok = false;
			break;
		}
		set->heavy = NULL;
		if (d->version >= BF_STATS_VERSION)
		{
			/* version 3: the heavy sample after the histogram */
			const BfStatsHeavySample *hs = (const BfStatsHeavySample *)
				((const char *) d + BF_STATS_SET_BYTES(d->fold_m, d->nsample) +
				 sizeof(BfStatsPassHist));

			if (hs->fold_m > d->m || (hs->nsample > 0 && hs->fold_m < 1) ||
				!(hs->frac >= 0 && hs->frac <= 1) ||
				len != BF_STATS_SET_BYTES(d->fold_m, d->nsample) + sizeof(BfStatsPassHist) +
				BF_STATS_HEAVY_BYTES(hs->fold_m, hs->nsample))
			{
				ok = false;
				break;
			}
			if (hs->nsample > 0)
				set->heavy = hs;
			max_words = Max(max_words, bs_colstats_slice_words(hs->nsample));
		}
		else if (len != BF_STATS_SET_BYTES(d->fold_m, d->nsample) +
				 (d->version == BF_STATS_VERSION_2 ? sizeof(BfStatsPassHist) : 0))
		{
			ok = false;
			break;
		}
		/* version 2 on: the pass-probability histogram after the slices */
		set->hist = NULL;
		if (d->version >= BF_STATS_VERSION_2)
		{
			const BfStatsPassHist *h = (const BfStatsPassHist *)
				((const char *) d + BF_STATS_SET_BYTES(d->fold_m, d->nsample));

			if (h->nheavy > BF_STATS_MAX_HEAVY || !(h->light_frac >= 0 && h->light_frac <= 1))
			{
				ok = false;
				break;
			}
			set->hist = h;
		}
		set->d = d;
		set->params.m = d->m;
		set->params.k = d->k;
		set->params.hash = d->hash;
		set->params.seed = d->seed;
		bs_hasher_init(&set->hasher, &set->params);
		max_words = Max(max_words, bs_colstats_slice_words(d->nsample));
		cs->nsets++;
	}
	free_attstatsslot(&sslot);
	if (ok)
		cs->acc = palloc(sizeof(uint64) * max_words);
	return ok;
}

const BfColumnStats *
bf_column_stats(VariableStatData *vardata)
{
	HeapTuple	tuple = vardata->statsTuple;
	StatsCacheEntry *e = NULL;
	TransactionId xmin;
	MemoryContext old;
	Form_pg_statistic st;

	if (!HeapTupleIsValid(tuple) || stats_slot(tuple) < 0)
		return NULL;
	if (!stats_callback_registered)
	{
		CacheRegisterSyscacheCallback(STATRELATTINH, stats_cache_inval, (Datum) 0);
		stats_callback_registered = true;
	}
	for (int i = 0; i < STATS_CACHE_SIZE; i++)
		if (stats_cache[i].used && stats_cache[i].stale)
			stats_cache_free(&stats_cache[i]);

	if (vardata->freefunc != ReleaseSysCache || !ItemPointerIsValid(&tuple->t_self))
	{
		/* not a catalog tuple: decode it every time */
		static BfColumnStats uncached;

		if (uncached_cxt == NULL)
			uncached_cxt = AllocSetContextCreate(TopMemoryContext, "bloomfilter statistics",
												 ALLOCSET_DEFAULT_SIZES);
		MemoryContextReset(uncached_cxt);
		old = MemoryContextSwitchTo(uncached_cxt);
		if (!stats_decode(tuple, &uncached))
			uncached.nsets = -1;
		MemoryContextSwitchTo(old);
		return uncached.nsets >= 0 ? &uncached : NULL;
	}

	xmin = HeapTupleHeaderGetRawXmin(tuple->t_data);
	for (int i = 0; i < STATS_CACHE_SIZE; i++)
		if (stats_cache[i].used && ItemPointerEquals(&stats_cache[i].tid, &tuple->t_self) &&
			stats_cache[i].xmin == xmin)
		{
			stats_cache[i].lastuse = ++stats_clock;
			return stats_cache[i].stats.nsets >= 0 ? &stats_cache[i].stats : NULL;
		}

	/* a free entry, or the least recently used */
	for (int i = 0; i < STATS_CACHE_SIZE; i++)
		if (!stats_cache[i].used || e == NULL ||
			(e->used && stats_cache[i].lastuse < e->lastuse))
			e = &stats_cache[i];
	if (e->used)
		stats_cache_free(e);
	st = (Form_pg_statistic) GETSTRUCT(tuple);
	e->cxt = AllocSetContextCreate(CacheMemoryContext, "bloomfilter statistics",
								   ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(e->cxt);
	if (!stats_decode(tuple, &e->stats))
	{
		/* remembered as unusable, so it is not decoded again */
		MemoryContextReset(e->cxt);
		e->stats.nsets = -1;
	}
	MemoryContextSwitchTo(old);
	e->used = true;
	e->tid = tuple->t_self;
	e->xmin = xmin;
	e->hashvalue = GetSysCacheHashValue3(STATRELATTINH, ObjectIdGetDatum(st->starelid),
										 Int16GetDatum(st->staattnum),
										 BoolGetDatum(st->stainherit));
	e->lastuse = ++stats_clock;
	e->bytes = MemoryContextMemAllocated(e->cxt, true);
	/* over the memory bound: the least recently used others go */
	for (;;)
	{
		Size		total = 0;
		StatsCacheEntry *lru = NULL;

		for (int i = 0; i < STATS_CACHE_SIZE; i++)
			if (stats_cache[i].used)
			{
				total += stats_cache[i].bytes;
				if (&stats_cache[i] != e && (lru == NULL || stats_cache[i].lastuse < lru->lastuse))
					lru = &stats_cache[i];
			}
		if (total <= STATS_CACHE_BYTES || lru == NULL)
			break;
		stats_cache_free(lru);
	}
	return e->stats.nsets >= 0 ? &e->stats : NULL;
}

/* ---- introspection -------------------------------------------------------- */

/*
 * bloom_column_stats(tab regclass, col name): what ANALYZE keeps of a
 * bloomfilter column, one row per parameter set (no row: not analyzed)
 */
Datum
bloom_column_stats(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid = PG_GETARG_OID(0);
	char	   *colname = NameStr(*PG_GETARG_NAME(1));
	AttrNumber	attnum;
	VariableStatData vd;
	const BfColumnStats *cs;

	InitMaterializedSRF(fcinfo, 0);
	if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table %s", get_rel_name(relid)),
				 errhint("Statistics are shown to users who may read the table.")));
	attnum = get_attnum(relid, colname);
	if (attnum == InvalidAttrNumber)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation \"%s\" does not exist",
						colname, get_rel_name(relid))));
	memset(&vd, 0, sizeof(vd));
	vd.statsTuple = SearchSysCache3(STATRELATTINH, ObjectIdGetDatum(relid),
									Int16GetDatum(attnum), BoolGetDatum(false));
	vd.freefunc = ReleaseSysCache;
	cs = bf_column_stats(&vd);
	for (int g = 0; cs && g < cs->nsets; g++)
	{
		const BfStatsSetData *d = cs->sets[g].d;
		Datum		values[16];
		bool		nulls[16] = {0};

		values[0] = Int64GetDatum(d->m);
		values[1] = Int32GetDatum(d->k);
		values[2] = Int32GetDatum(d->seed);
		values[3] = CStringGetTextDatum(bs_hash_family_name(d->hash));
		values[4] = Float8GetDatum(d->frac * (1 - cs->nullfrac));
		values[5] = Float8GetDatum(d->mean_fill);
		values[6] = Float8GetDatum(d->mean_fp);
		values[7] = Float8GetDatum(d->mean_card);
		values[8] = Float8GetDatum(d->union_card);
		nulls[8] = d->union_card < 0;
		values[9] = Int64GetDatum((int64) d->analyzed);
		values[10] = Int32GetDatum(d->nsample);
		values[11] = Int64GetDatum(d->fold_m);
		values[12] = Float8GetDatum(cs->nullfrac);
		values[13] = Float8GetDatum(cs->frac_external);
		values[14] = Float8GetDatum(cs->frac_compressed);
		values[15] = Float8GetDatum(cs->mean_raw_bytes);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	if (HeapTupleIsValid(vd.statsTuple))
		ReleaseSysCache(vd.statsTuple);
	return (Datum) 0;
}
