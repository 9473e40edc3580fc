/*
 * bloomfilter_analyze.c
 *    ANALYZE of bloomfilter columns (the type's typanalyze): the statistics
 *    slot of bloomfilter_stats.h, which the selectivity of `@>` / `<@` and
 *    the cost of reading a filter are estimated from.
 *
 * One pass over ANALYZE's sample rows detoasts each filter once, groups the
 * filters by parameter set (m, k, seed, hash) and sums, per set, fill,
 * fill^k and estimated cardinality, and, per column, how the values are
 * stored (out of line, compressed, detoasted size) and a 64-bit hash of
 * each value for the number of distinct filters.  Then, per set (the
 * BF_STATS_MAX_SETS largest), the shape of its sample is chosen within its
 * share of the byte budget (src/core/bs_colstats.c), and a second pass over
 * that set's rows, taken at an even stride, folds them into the bit-sliced
 * sample and ORs them into the union whose cardinality says how many
 * distinct elements the sample holds.
 */
#include "postgres.h"

#include <math.h>

#include "access/detoast.h"
#include "catalog/pg_type.h"
#include "commands/vacuum.h"
#include "common/hashfn.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "bloomfilter.h"
#include "bloomfilter_stats.h"
#include "bs_estimate.h"

PG_FUNCTION_INFO_V1(bloomfilter_typanalyze);

/* parameter sets told apart in one ANALYZE before the rest count as "other" */
#define TRACKED_SETS	64
/*
 * Filters detoasted by one ANALYZE of a column, in bytes: past it the rest of
 * the (randomly ordered) sample rows are not read, so huge filters (up to
 * 256 MB each) bound ANALYZE's work
 */
#define DETOAST_BUDGET	((Size) 512 * 1024 * 1024)
/* the union of the sampled filters (distinct elements) is kept up to this m */
#define UNION_MAX_M		(1u << 24)

typedef struct SetAcc
{
	BsParams	p;
	int			rows;
	double		sum_fill;
	double		sum_fp;
	double		sum_card;
} SetAcc;

static int
cmp_uint64(const void *a, const void *b)
{
	uint64		x = *(const uint64 *) a;
	uint64		y = *(const uint64 *) b;

	return x < y ? -1 : x > y;
}

static int
cmp_set_rows(const void *a, const void *b)
{
	const SetAcc *x = (const SetAcc *) a;
	const SetAcc *y = (const SetAcc *) b;

	return y->rows - x->rows;
}

/*
 * stadistinct from the hashes of the nonnull values, as PostgreSQL's
 * compute_distinct_stats estimates it (Haas and Stokes' Duj1)
 */
static double
estimate_distinct(uint64 *hashes, int n, double totalrows, double nullfrac)
{
	int			d = 0,
				f1 = 0;
	double		N = totalrows * (1 - nullfrac);
	double		est;

	if (n == 0)
		return 0;
	qsort(hashes, n, sizeof(uint64), cmp_uint64);
	for (int i = 0; i < n;)
	{
		int			j = i + 1;

		while (j < n && hashes[j] == hashes[i])
			j++;
		d++;
		f1 += (j - i == 1);
		i = j;
	}
	if (f1 == n)
		return -1.0 * (1 - nullfrac);	/* no repeats: unique */
	if (f1 == 0 && n >= totalrows * (1 - nullfrac))
		est = d;
	else if (N > 0)
		est = (n * (double) d) / ((n - f1) + f1 * n / N);
	else
		est = 0;
	if (est < d)
		est = d;
	if (est > N)
		est = N;
	est = floor(est + 0.5);
	if (est > 0.1 * totalrows)
		est = -(est / totalrows);
	return est;
}

static void
bloomfilter_compute_stats(VacAttrStats *stats, AnalyzeAttrFetchFunc fetchfunc,
						  int samplerows, double totalrows)
{
	int			null_cnt = 0,
				nonnull = 0,
				nsets = 0,
				nkept;
	double		total_width = 0,
				detoasted = 0,
				n_ext = 0,
				n_comp = 0,
				raw_bytes = 0,
				other_rows = 0,
				other_fp = 0;
	int16	   *setof = palloc(sizeof(int16) * Max(samplerows, 1));
	float	   *fill = palloc(sizeof(float) * Max(samplerows, 1));
	uint64	   *hashes = palloc(sizeof(uint64) * Max(samplerows, 1));
	SetAcc	   *sets = palloc0(sizeof(SetAcc) * TRACKED_SETS);
	int			remap[TRACKED_SETS];
	int			target = stats->attr->attstattarget;
	uint64		budget_bits;
	Datum	   *values;
	float4	   *numbers;
	MemoryContext old;

	for (int i = 0; i < samplerows; i++)
	{
		bool		isnull;
		Datum		value;
		struct varlena *raw,
				   *v;
		BloomView	bv;
		uint64		pop;
		int			s;

		vacuum_delay_point();
		value = fetchfunc(stats, i, &isnull);
		setof[i] = -1;
		if (isnull)
		{
			null_cnt++;
			continue;
		}
		raw = (struct varlena *) DatumGetPointer(value);
		if (detoasted + toast_raw_datum_size(value) > DETOAST_BUDGET && nonnull > 0)
			continue;			/* past the budget: nulls are still counted */
		detoasted += toast_raw_datum_size(value);
		total_width += VARSIZE_ANY(raw);
		if (VARATT_IS_EXTERNAL_ONDISK(raw))
		{
			struct varatt_external ext;

			VARATT_EXTERNAL_GET_POINTER(ext, raw);
			n_ext++;
			if (VARATT_EXTERNAL_IS_COMPRESSED(ext))
				n_comp++;
		}
		else if (VARATT_IS_COMPRESSED(raw))
			n_comp++;
		raw_bytes += toast_raw_datum_size(value);
		v = PG_DETOAST_DATUM_PACKED(value);
		bf_view(v, &bv);
		pop = bs_popcount(bv.bits, bv.nwords);
		fill[i] = (float) ((double) pop / bv.p.m);
		hashes[nonnull++] = hash_bytes_extended(bv.bits, (int) (bv.nwords * 8),
												((uint64) bv.p.m << 32) ^
												((uint64) bv.p.k << 24) ^
												((uint64) bv.p.hash << 16) ^
												(uint32) bv.p.seed);
		bf_view_release(&bv);	/* the decoded bits of a sparse value */
		for (s = 0; s < nsets; s++)
			if (bs_params_equal(&sets[s].p, &bv.p))
				break;
		if (s == nsets && nsets < TRACKED_SETS)
			sets[nsets++].p = bv.p;
		if (s < nsets)
		{
			double		card = bs_est_cardinality(bv.p.m, bv.p.k, pop);

			setof[i] = (int16) s;
			sets[s].rows++;
			sets[s].sum_fill += fill[i];
			sets[s].sum_fp += pow(fill[i], bv.p.k);
			sets[s].sum_card += isfinite(card) ? card : (double) bv.p.m;
		}
		else
		{
			other_rows++;
			other_fp += pow(fill[i], bv.p.k);
		}
		if (v != raw)
			pfree(v);
	}

	stats->stats_valid = true;
	stats->stanullfrac = samplerows > 0 ? (double) null_cnt / samplerows : 0;
	if (nonnull == 0)
	{
		stats->stawidth = 0;
		stats->stadistinct = 0;
		return;
	}
	stats->stawidth = (int) (total_width / nonnull);
	stats->stadistinct = estimate_distinct(hashes, nonnull, totalrows, stats->stanullfrac);

	/*
	 * the largest sets get a sample, a share of the budget by rows: sort
	 * them, map each row's set to its rank
	 */
	{
		SetAcc	   *sorted = palloc(sizeof(SetAcc) * Max(nsets, 1));

		memcpy(sorted, sets, sizeof(SetAcc) * nsets);
		qsort(sorted, nsets, sizeof(SetAcc), cmp_set_rows);
		nkept = Min(nsets, BF_STATS_MAX_SETS);
		for (int s = 0; s < nsets; s++)
		{
			remap[s] = -1;
			for (int j = 0; j < nkept; j++)
				if (bs_params_equal(&sorted[j].p, &sets[s].p))
					remap[s] = j;
			if (remap[s] < 0)
			{
				other_rows += sets[s].rows;
				other_fp += sets[s].sum_fp;
			}
		}
		memcpy(sets, sorted, sizeof(SetAcc) * nkept);
		pfree(sorted);
	}
	for (int i = 0; i < samplerows; i++)
		if (setof[i] >= 0)
			setof[i] = (int16) remap[setof[i]];

	if (target < 0)
		target = default_statistics_target;
	budget_bits = (uint64) Min((double) target * BF_STATS_BYTES_PER_TARGET,
							   (double) BF_STATS_MAX_BYTES) * 8;
	{
		double		kept_rows = 0;

		for (int s = 0; s < nkept; s++)
			kept_rows += sets[s].rows;
		values = MemoryContextAllocZero(stats->anl_context, sizeof(Datum) * Max(nkept, 1));
		for (int s = 0; s < nkept; s++)
		{
			SetAcc	   *a = &sets[s];
			float	   *fills = palloc(sizeof(float) * a->rows);
			int		   *rows = palloc(sizeof(int) * a->rows);
			int			n = 0;
			BsSampleShape shape;
			bytea	   *blob;
			BfStatsSetData *d;
			Size		bytes;
			uint32		sw;
			uint64	   *scratch;
			uint8	   *uni;
			size_t		mwords = bs_words_for_bits(a->p.m);

			for (int i = 0; i < samplerows; i++)
				if (setof[i] == s)
				{
					fills[n] = fill[i];
					rows[n++] = i;
				}
			/* the second pass detoasts the sampled rows again: within the budget too */
			{
				int			cap = (int) Min((double) n, Max(1.0, (double) DETOAST_BUDGET /
															 BF_VARSIZE(a->p.m)));

				for (int i = 0; i < cap && cap < n; i++)
				{
					int			from = (int) ((double) i * n / cap);

					fills[i] = fills[from];
					rows[i] = rows[from];
				}
				n = cap;
			}
			if (!bs_colstats_shape(a->p.m, a->p.k, fills, (uint32) n,
								   (uint64) (budget_bits * (a->rows / kept_rows)), 1, &shape))
				memset(&shape, 0, sizeof(shape));
			bytes = BF_STATS_SET_BYTES(shape.fold_m, shape.nsample);
			blob = MemoryContextAllocZero(stats->anl_context, VARHDRSZ + bytes);
			SET_VARSIZE(blob, VARHDRSZ + bytes);
			/* build in aligned memory, then copy into the (4-aligned) bytea */
			d = palloc0(bytes);
			d->magic = BF_STATS_MAGIC;
			d->version = BF_STATS_VERSION;
			d->k = a->p.k;
			d->hash = a->p.hash;
			d->seed = a->p.seed;
			d->m = a->p.m;
			d->fold_m = shape.fold_m;
			d->nsample = shape.nsample;
			d->frac = (double) a->rows / nonnull;
			d->analyzed = a->rows;
			d->mean_fill = a->sum_fill / a->rows;
			d->mean_fp = a->sum_fp / a->rows;
			d->mean_card = a->sum_card / a->rows;
			d->union_card = -1;

			/* the sampled rows at an even stride: fold them in, OR them up */
			sw = bs_colstats_slice_words(shape.nsample);
			scratch = palloc(sizeof(uint64) * bs_words_for_bits(Max(shape.fold_m, 1)));
			uni = a->p.m <= UNION_MAX_M ? palloc0(mwords * 8) : NULL;
			for (uint32 j = 0; j < shape.nsample; j++)
			{
				int			row = rows[(int) (((double) j + 0.5) * n / shape.nsample)];
				bool		isnull;
				Datum		value = fetchfunc(stats, row, &isnull);
				struct varlena *v = PG_DETOAST_DATUM_PACKED(value);
				BloomView	bv;
				uint32		fpop;

				vacuum_delay_point();
				bf_view(v, &bv);
				fpop = bs_colstats_add(d->slices, sw, shape.fold_m, bv.bits, bv.p.m, j, scratch);
				d->fold_fp += pow((double) fpop / shape.fold_m, a->p.k);
				if (uni)
					bs_or(uni, bv.bits, mwords);
				bf_view_release(&bv);
				if ((Pointer) v != DatumGetPointer(value))
					pfree(v);
			}
			if (shape.nsample > 0)
				d->fold_fp /= shape.nsample;
			if (shape.nsample > 0 && uni)
			{
				uint64		upop = bs_popcount(uni, mwords);
				double		ucard = bs_est_cardinality(a->p.m, a->p.k, upop);

				/* an OR more than 90% full no longer tells its cardinality */
				if (upop < 0.9 * a->p.m && isfinite(ucard))
					d->union_card = ucard;
			}
			memcpy(VARDATA(blob), d, bytes);
			values[s] = PointerGetDatum(blob);
			pfree(d);
			pfree(scratch);
			if (uni)
				pfree(uni);
			pfree(fills);
			pfree(rows);
		}
	}

	old = MemoryContextSwitchTo(stats->anl_context);
	numbers = palloc0(sizeof(float4) * BF_STATS_NUMBERS);
	MemoryContextSwitchTo(old);
	numbers[BF_STATS_FRAC_EXTERNAL] = (float4) (n_ext / nonnull);
	numbers[BF_STATS_FRAC_COMPRESSED] = (float4) (n_comp / nonnull);
	numbers[BF_STATS_MEAN_RAW_BYTES] = (float4) (raw_bytes / nonnull);
	numbers[BF_STATS_OTHER_FRAC] = (float4) (other_rows / nonnull);
	numbers[BF_STATS_OTHER_FP] = (float4) (other_rows > 0 ? other_fp / other_rows : 0);

	stats->stakind[0] = STATISTIC_KIND_BLOOMFILTER;
	stats->staop[0] = InvalidOid;
	stats->stacoll[0] = InvalidOid;
	stats->stanumbers[0] = numbers;
	stats->numnumbers[0] = BF_STATS_NUMBERS;
	stats->stavalues[0] = values;
	stats->numvalues[0] = nkept;
	stats->statypid[0] = BYTEAOID;
	stats->statyplen[0] = -1;
	stats->statypbyval[0] = false;
	stats->statypalign[0] = TYPALIGN_INT;
}

/*
 * bloomfilter_typanalyze(internal) -> bool: ANALYZE of a bloomfilter column
 * samples the usual 300 * statistics-target rows and computes the slot
 * above from them.
 */
Datum
bloomfilter_typanalyze(PG_FUNCTION_ARGS)
{
	VacAttrStats *stats = (VacAttrStats *) PG_GETARG_POINTER(0);

	if (stats->attr->attstattarget < 0)
		stats->attr->attstattarget = default_statistics_target;
	stats->compute_stats = bloomfilter_compute_stats;
	stats->minrows = 300 * stats->attr->attstattarget;
	PG_RETURN_BOOL(true);
}
