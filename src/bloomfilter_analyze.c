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
/* ... of the rows filled less than this (fuller ones pass most elements anyway) */
#define UNION_ROW_FILL	0.5
/*
 * the share of a set's rows, heaviest first, that may be heavy: kept out
 * of the sample (which then folds further and holds more filters) and
 * described by their pass probabilities
 */
#define HEAVY_SHARE		0.02
/* ... and only those holding more than this many times the median filter's elements */
#define HEAVY_CARD_RATIO	8.0

/* the first pass's sums over the rows of one parameter set */
typedef struct SetAcc
{
	BsParams	p;
	int			rows;
	double		sum_fill;		/* of popcount / m */
	double		sum_fp;			/* of fill^k */
	double		sum_card;		/* of the estimated cardinalities */
} SetAcc;

static int
cmp_uint64(const void *a, const void *b)
{
	uint64		x = *(const uint64 *) a;
	uint64		y = *(const uint64 *) b;

	return x < y ? -1 : x > y;
}

/* sets with more rows first */
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

/* what the first pass over ANALYZE's sample rows found */
typedef struct ColumnScan
{
	int			null_cnt;
	int			nonnull;		/* non-null values read (hashes[0..nonnull)) */
	int			nsets;			/* parameter sets told apart (sets[0..nsets)) */
	double		total_width;	/* sum of the values' stored sizes */
	double		detoasted;		/* bytes detoasted so far (DETOAST_BUDGET) */
	double		n_ext;			/* values stored out of line */
	double		n_comp;			/* values compressed */
	double		raw_bytes;		/* sum of the detoasted sizes */
	double		n_sparse;		/* values stored in the sparse form */
	double		sparse_pos;		/* their sum of set positions */
	double		ext_bytes;		/* sum of the detoasted sizes of values out of line */
	double		comp_bytes;		/* ... of compressed values */
	double		dense_bytes;	/* ... of dense values */
	double		other_rows;		/* values of sets that get no sample */
	double		other_fp;		/* their sum of fill^k */
	int16	   *setof;			/* per sample row: index of its set, or -1 */
	float	   *fill;			/* per sample row read: popcount / m */
	uint64	   *hashes;			/* per value read: a hash of its bits and parameters */
	SetAcc	   *sets;			/* TRACKED_SETS of them */
} ColumnScan;

/*
 * count how the (not yet detoasted) value of raw_size detoasted bytes is
 * stored: out of line, compressed, and sum their sizes apart (a column of
 * small sparse values and a few big dense ones out of line must charge the
 * TOAST fetch by the big ones' size, not the mean's)
 */
static void
scan_count_storage(ColumnScan *cs, Datum value, double raw_size)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(value);

	if (VARATT_IS_EXTERNAL_ONDISK(raw))
	{
		struct varatt_external ext;

		VARATT_EXTERNAL_GET_POINTER(ext, raw);
		cs->n_ext++;
		cs->ext_bytes += raw_size;
		if (VARATT_EXTERNAL_IS_COMPRESSED(ext))
		{
			cs->n_comp++;
			cs->comp_bytes += raw_size;
		}
	}
	else if (VARATT_IS_COMPRESSED(raw))
	{
		cs->n_comp++;
		cs->comp_bytes += raw_size;
	}
}

/*
 * Add sample row i, a filter of pop set bits (bv), to the sums of its
 * parameter set (told apart up to TRACKED_SETS), else to the "other" sums
 */
static void
scan_add_to_set(ColumnScan *cs, int i, const BloomView *bv, uint64 pop)
{
	int			s;

	for (s = 0; s < cs->nsets; s++)
		if (bs_params_equal(&cs->sets[s].p, &bv->p))
			break;
	if (s == cs->nsets && cs->nsets < TRACKED_SETS)
		cs->sets[cs->nsets++].p = bv->p;
	if (s < cs->nsets)
	{
		double		card = bs_est_cardinality(bv->p.m, bv->p.k, pop);

		cs->setof[i] = (int16) s;
		cs->sets[s].rows++;
		cs->sets[s].sum_fill += cs->fill[i];
		cs->sets[s].sum_fp += pow(cs->fill[i], bv->p.k);
		cs->sets[s].sum_card += pop < bv->p.m ? card : (double) bv->p.m;
	}
	else
	{
		cs->other_rows++;
		cs->other_fp += pow(cs->fill[i], bv->p.k);
	}
}

/*
 * The first pass over the sample rows: nulls, how the values are stored,
 * each value's fill and hash, and the sums of each parameter set; rows past
 * DETOAST_BUDGET are not read (only their nulls are counted)
 */
static void
scan_sample_rows(VacAttrStats *stats, AnalyzeAttrFetchFunc fetchfunc, int samplerows,
				 ColumnScan *cs)
{
	memset(cs, 0, sizeof(*cs));
	cs->setof = palloc(sizeof(int16) * Max(samplerows, 1));
	cs->fill = palloc(sizeof(float) * Max(samplerows, 1));
	cs->hashes = palloc(sizeof(uint64) * Max(samplerows, 1));
	cs->sets = palloc0(sizeof(SetAcc) * TRACKED_SETS);
	for (int i = 0; i < samplerows; i++)
	{
		bool		isnull;
		Datum		value;
		struct varlena *raw,
				   *v;
		BloomView	bv;
		uint64		pop;

		bs_vacuum_delay_point(true);
		value = fetchfunc(stats, i, &isnull);
		cs->setof[i] = -1;
		if (isnull)
		{
			cs->null_cnt++;
			continue;
		}
		raw = (struct varlena *) DatumGetPointer(value);
		if (cs->detoasted + toast_raw_datum_size(value) > DETOAST_BUDGET && cs->nonnull > 0)
			continue;			/* past the budget: nulls are still counted */
		cs->detoasted += toast_raw_datum_size(value);
		cs->total_width += VARSIZE_ANY(raw);
		scan_count_storage(cs, value, (double) toast_raw_datum_size(value));
		cs->raw_bytes += toast_raw_datum_size(value);
		v = PG_DETOAST_DATUM_PACKED(value);
		bf_view(v, &bv);
		pop = bs_popcount(bv.bits, bv.nwords);
		cs->fill[i] = (float) ((double) pop / bv.p.m);
		cs->hashes[cs->nonnull++] = hash_bytes_extended(bv.bits, (int) (bv.nwords * 8),
														((uint64) bv.p.m << 32) ^
														((uint64) bv.p.k << 24) ^
														((uint64) bv.p.hash << 16) ^
														(uint32) bv.p.seed);
		if (bv.sparse)
		{
			cs->n_sparse++;
			cs->sparse_pos += pop;
		}
		else
			cs->dense_bytes += toast_raw_datum_size(value);
		scan_add_to_set(cs, i, &bv, pop);
		bf_view_release(&bv);	/* the decoded bits of a sparse value */
		if (v != raw)
			pfree(v);
	}
}

/*
 * Keep the BF_STATS_MAX_SETS sets of most rows, which get a sample (a share
 * of the budget by rows): sort them first in cs->sets, count the others'
 * rows as "other" and map each row's set to its rank.  Returns how many are
 * kept.
 */
static int
scan_keep_largest_sets(ColumnScan *cs, int samplerows)
{
	SetAcc	   *sorted = palloc(sizeof(SetAcc) * Max(cs->nsets, 1));
	int			remap[TRACKED_SETS];
	int			nkept;

	memcpy(sorted, cs->sets, sizeof(SetAcc) * cs->nsets);
	qsort(sorted, cs->nsets, sizeof(SetAcc), cmp_set_rows);
	nkept = Min(cs->nsets, BF_STATS_MAX_SETS);
	for (int s = 0; s < cs->nsets; s++)
	{
		remap[s] = -1;
		for (int j = 0; j < nkept; j++)
			if (bs_params_equal(&sorted[j].p, &cs->sets[s].p))
				remap[s] = j;
		if (remap[s] < 0)
		{
			cs->other_rows += cs->sets[s].rows;
			cs->other_fp += cs->sets[s].sum_fp;
		}
	}
	memcpy(cs->sets, sorted, sizeof(SetAcc) * nkept);
	pfree(sorted);
	for (int i = 0; i < samplerows; i++)
		if (cs->setof[i] >= 0)
			cs->setof[i] = (int16) remap[cs->setof[i]];
	return nkept;
}

/* whether a filter passing fp is heavy, given the set's bound tau */
static inline bool
fp_is_heavy(double fp, double tau)
{
	return fp > tau || fp >= 1;
}

/*
 * The sample rows of kept set s that pass fewer than light_fp_max of the
 * elements they do not hold (heavy false; with heavy true, the heavy ones
 * passing fewer than BF_STATS_HEAVY_SAMPLE_FP) (*rows, palloc'd) and their
 * fills (*fills), thinned at an even stride to what DETOAST_BUDGET allows
 * the second pass to detoast again; returns their number (and in *all
 * whether none was thinned out)
 */
static int
set_candidate_rows(const ColumnScan *cs, int s, int samplerows, double light_fp_max,
				   bool heavy, float **fills, int **rows, bool *all)
{
	const SetAcc *a = &cs->sets[s];
	int			n = 0;
	int			cap;

	*fills = palloc(sizeof(float) * Max(a->rows, 1));
	*rows = palloc(sizeof(int) * Max(a->rows, 1));
	for (int i = 0; i < samplerows; i++)
	{
		double		fp = pow(cs->fill[i], a->p.k);

		if (cs->setof[i] == s && fp_is_heavy(fp, light_fp_max) == heavy &&
			(!heavy || fp < BF_STATS_HEAVY_SAMPLE_FP))
		{
			(*fills)[n] = cs->fill[i];
			(*rows)[n++] = i;
		}
	}
	cap = (int) Min((double) n, Max(1.0, (double) DETOAST_BUDGET / BF_VARSIZE(a->p.m)));
	*all = cap >= n;
	for (int i = 0; i < cap && cap < n; i++)
	{
		int			from = (int) ((double) i * n / cap);

		(*fills)[i] = (*fills)[from];
		(*rows)[i] = (*rows)[from];
	}
	return cap;
}

/* heavier pass probabilities first */
static int
cmp_double_desc(const void *a, const void *b)
{
	double		x = *(const double *) a;
	double		y = *(const double *) b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/*
 * The distribution of kept set s's pass probabilities (fill^k) over its
 * sample rows, into *h: the bound above which filters are heavy (the
 * pass probability of the filter at rank HEAVY_SHARE from the top, or of a
 * filter of HEAVY_CARD_RATIO times the median filter's elements, whichever
 * is higher: filters above it, and saturated ones, are heavy; a column of
 * filters of similar sizes has none), the light filters' share and means,
 * the heaviest BF_STATS_MAX_HEAVY exactly and the other heavy ones by
 * decade
 */
static void
set_pass_hist(const ColumnScan *cs, int s, int samplerows, BfStatsPassHist *h)
{
	const SetAcc *a = &cs->sets[s];
	double	   *fp = palloc(sizeof(double) * Max(a->rows, 1));
	int			n = 0,
				nheavy = 0,
				nlight = 0;
	double		tau;

	memset(h, 0, sizeof(*h));
	for (int i = 0; i < samplerows; i++)
		if (cs->setof[i] == s)
			fp[n++] = pow(cs->fill[i], a->p.k);
	qsort(fp, n, sizeof(double), cmp_double_desc);
	tau = 1;
	if (n > 0)
	{
		/* the median filter's cardinality, and the fill^k of HEAVY_CARD_RATIO times it */
		double		med_fill = pow(fp[n / 2], 1.0 / a->p.k);
		uint64		med_pop = (uint64) (med_fill * a->p.m + 0.5);
		double		med_card = bs_est_cardinality(a->p.m, a->p.k, med_pop);
		double		heavy_fill = med_pop < a->p.m ?
			-expm1(-(double) a->p.k * HEAVY_CARD_RATIO * med_card / a->p.m) : 1;

		tau = Max(fp[(int) (HEAVY_SHARE * n)], pow(heavy_fill, a->p.k));
	}
	h->light_fp_max = tau;
	h->heavy_weight = n > 0 ? 1.0 / n : 0;
	for (int i = 0; i < n; i++)
	{
		/* the fill back from fill^k, the cardinality from the fill */
		double		fill = pow(fp[i], 1.0 / a->p.k);
		uint64		pop = (uint64) (fill * a->p.m + 0.5);
		double		card = pop < a->p.m ? bs_est_cardinality(a->p.m, a->p.k, pop) : a->p.m;
		int			b;

		if (!fp_is_heavy(fp[i], tau))
		{
			nlight++;
			h->light_fp += fp[i];
			h->light_card += card;
		}
		else if (nheavy < BF_STATS_MAX_HEAVY)
		{
			h->heavy_fp[nheavy] = fp[i];
			h->heavy_card[nheavy++] = card;
		}
		else
		{
			b = bf_stats_fp_bucket(fp[i]);
			h->bucket_frac[b] += 1;
			h->bucket_fp[b] += fp[i];
			h->bucket_card[b] += card;
		}
	}
	h->nheavy = nheavy;
	for (int b = 0; b < BF_STATS_FP_BUCKETS; b++)
		if (h->bucket_frac[b] > 0)
		{
			h->bucket_fp[b] /= h->bucket_frac[b];
			h->bucket_card[b] /= h->bucket_frac[b];
			h->bucket_frac[b] /= n;
		}
	if (nlight > 0)
	{
		h->light_fp /= nlight;
		h->light_card /= nlight;
	}
	h->light_frac = n > 0 ? (double) nlight / n : 0;
	pfree(fp);
}

/*
 * The stored header of set a (palloc0'd, bytes long, aligned): its
 * parameters, the sample's shape, and the first pass's means over its rows
 * (of nonnull values in all)
 */
static BfStatsSetData *
set_header(const SetAcc *a, const BsSampleShape *shape, Size bytes, int nonnull)
{
	BfStatsSetData *d = palloc0(bytes);

	d->magic = BF_STATS_MAGIC;
	d->version = BF_STATS_VERSION;
	d->k = a->p.k;
	d->hash = a->p.hash;
	d->seed = a->p.seed;
	d->m = a->p.m;
	d->fold_m = shape->fold_m;
	d->nsample = shape->nsample;
	d->frac = (double) a->rows / nonnull;
	d->analyzed = a->rows;
	d->mean_fill = a->sum_fill / a->rows;
	d->mean_fp = a->sum_fp / a->rows;
	d->mean_card = a->sum_card / a->rows;
	d->union_card = -1;
	return d;
}

/*
 * Fold nsample of set a's rows[0..n) (fills[0..n) their fills, or NULL),
 * taken at an even stride, into slices of fold_m buckets (bit j of bucket
 * b's slice: bucket b of the j-th), ORing them into uni (m bits) when not
 * NULL; returns the mean over them of their folded fill^k, less their own
 * fill^k when fills is given (the false hits the folding adds)
 */
static double
fold_rows(VacAttrStats *stats, AnalyzeAttrFetchFunc fetchfunc, const SetAcc *a,
		  const int *rows, const float *fills, int n, uint32 nsample, uint32 fold_m,
		  uint64 *slices, uint8 *uni)
{
	uint32		sw = bs_colstats_slice_words(nsample);
	uint64	   *scratch = palloc(sizeof(uint64) * bs_words_for_bits(Max(fold_m, 1)));
	size_t		mwords = bs_words_for_bits(a->p.m);
	double		sum = 0;

	for (uint32 j = 0; j < nsample; j++)
	{
		int			at = (int) (((double) j + 0.5) * n / nsample);
		bool		isnull;
		Datum		value = fetchfunc(stats, rows[at], &isnull);
		struct varlena *v = PG_DETOAST_DATUM_PACKED(value);
		BloomView	bv;
		uint32		fpop;

		bs_vacuum_delay_point(true);
		bf_view(v, &bv);
		fpop = bs_colstats_add(slices, sw, fold_m, bv.bits, bv.p.m, j, scratch);
		sum += pow((double) fpop / fold_m, a->p.k) - (fills ? pow(fills[at], a->p.k) : 0);
		if (uni)
			bs_or(uni, bv.bits, mwords);
		bf_view_release(&bv);
		if ((Pointer) v != DatumGetPointer(value))
			pfree(v);
	}
	pfree(scratch);
	return nsample > 0 ? sum / nsample : 0;
}

/*
 * The second pass over set a's candidate rows (rows[0..n)): the
 * d->nsample of them at an even stride are folded into d's slices, their
 * folded fill^k averaged into d->fold_fp, and their OR (for m up to
 * UNION_MAX_M) gives d->union_card when it is not too full to tell
 */
static void
set_fold_sample(VacAttrStats *stats, AnalyzeAttrFetchFunc fetchfunc, const SetAcc *a,
				const int *rows, int n, BfStatsSetData *d)
{
	size_t		mwords = bs_words_for_bits(a->p.m);
	uint8	   *uni = a->p.m <= UNION_MAX_M ? palloc0(mwords * 8) : NULL;

	d->fold_fp = fold_rows(stats, fetchfunc, a, rows, NULL, n, d->nsample, d->fold_m,
						   d->slices, uni);
	if (d->nsample > 0 && uni)
	{
		uint64		upop = bs_popcount(uni, mwords);
		double		ucard = bs_est_cardinality(a->p.m, a->p.k, upop);

		/* an OR more than 90% full no longer tells its cardinality */
		if (upop < 0.9 * a->p.m)
			d->union_card = ucard;
	}
	if (uni)
		pfree(uni);
}

/*
 * The distinct elements of all kept set s's analyzed rows, into
 * d->union_card (issue 36): the OR of every row of the set whose fill is
 * below UNION_ROW_FILL (a fuller one passes most elements anyway and would
 * only fill the OR), for m up to UNION_MAX_M, while the detoasted bytes stay
 * within DETOAST_BUDGET.  The sample's OR (set_fold_sample) counts only the
 * sampled light filters: on a real column with a long tail of distinct
 * elements (files of packages, the packages depending on each package) it
 * holds a small fraction of them, and a generic plan's element, drawn among
 * them, came out 5-10x too common.  Left as the sample's when the OR is too
 * full to tell or the budget ends the pass.
 */
static void
set_union_all(VacAttrStats *stats, AnalyzeAttrFetchFunc fetchfunc, const ColumnScan *cs,
			  int s, int samplerows, BfStatsSetData *d)
{
	const SetAcc *a = &cs->sets[s];
	size_t		mwords = bs_words_for_bits(a->p.m);
	uint8	   *uni;
	double		bytes = 0;
	uint64		upop;

	if (a->p.m > UNION_MAX_M)
		return;
	uni = palloc0(mwords * 8);
	for (int i = 0; i < samplerows; i++)
	{
		bool		isnull;
		Datum		value;
		struct varlena *v;
		BloomView	bv;

		if (cs->setof[i] != s || cs->fill[i] >= UNION_ROW_FILL)
			continue;
		value = fetchfunc(stats, i, &isnull);
		if (isnull)
			continue;
		bs_vacuum_delay_point(true);
		v = PG_DETOAST_DATUM_PACKED(value);
		bytes += VARSIZE_ANY(v);
		if (bytes > DETOAST_BUDGET)
		{
			if ((Pointer) v != DatumGetPointer(value))
				pfree(v);
			pfree(uni);
			return;
		}
		bf_view(v, &bv);
		bs_or(uni, bv.bits, mwords);
		bf_view_release(&bv);
		if ((Pointer) v != DatumGetPointer(value))
			pfree(v);
	}
	upop = bs_popcount(uni, mwords);

	/*
	 * the cardinality from the unset bits u: its relative error is about
	 * 1 / (sqrt(u) ln(m / u)), a few percent while 1% of the bits (and at
	 * least 64) are unset, however full the OR (the sample's OR keeps the
	 * coarser 90% bound); a column's distinct elements fill a filter sized
	 * for its largest set more than that (test/bench/17_real_columns.sh:
	 * 89% for the installed packages' files)
	 */
	if (upop > 0 && a->p.m - upop >= Max(64, a->p.m / 100))
		d->union_card = bs_est_cardinality(a->p.m, a->p.k, upop);
	pfree(uni);
}

/*
 * The slot's value of kept set s, a bytea in anl_context: its header and
 * its bit-sliced sample, shaped within budget_bits (the sets' sample budget)
 * times the set's share of the kept sets' rows (kept_rows)
 */
static Datum
set_stats_value(VacAttrStats *stats, AnalyzeAttrFetchFunc fetchfunc, const ColumnScan *cs,
				int s, int samplerows, uint64 budget_bits, double kept_rows)
{
	const SetAcc *a = &cs->sets[s];
	float	   *fills;
	int		   *rows;
	int			n;
	BsSampleShape shape;
	bytea	   *blob;
	BfStatsSetData *d;
	BfStatsPassHist hist;
	Size		bytes;
	uint64		set_budget = (uint64) (budget_bits * (a->rows / kept_rows));
	float	   *hfills;
	int		   *hrows;
	int			nh;
	bool		all;
	BsSampleShape hshape;
	BfStatsHeavySample *hs;

	set_pass_hist(cs, s, samplerows, &hist);

	/*
	 * the heavy sample: every heavy row passing less than
	 * BF_STATS_HEAVY_SAMPLE_FP, within a quarter of the set's budget, or none
	 * (the light sample keeps the whole budget)
	 */
	nh = set_candidate_rows(cs, s, samplerows, hist.light_fp_max, true, &hfills, &hrows, &all);
	if (nh < 1 || !all ||
		!bs_colstats_shape_all(a->p.m, a->p.k, hfills, (uint32) nh, set_budget / 4, &hshape))
		memset(&hshape, 0, sizeof(hshape));
	set_budget -= (uint64) hshape.fold_m * 64 * bs_colstats_slice_words(hshape.nsample);

	n = set_candidate_rows(cs, s, samplerows, hist.light_fp_max, false, &fills, &rows, &all);
	if (!bs_colstats_shape(a->p.m, a->p.k, fills, (uint32) n, set_budget, 1, &shape))
		memset(&shape, 0, sizeof(shape));
	bytes = BF_STATS_SET_BYTES(shape.fold_m, shape.nsample) + sizeof(BfStatsPassHist) +
		BF_STATS_HEAVY_BYTES(hshape.fold_m, hshape.nsample);
	blob = MemoryContextAllocZero(stats->anl_context, VARHDRSZ + bytes);
	SET_VARSIZE(blob, VARHDRSZ + bytes);
	/* build in aligned memory, then copy into the (4-aligned) bytea */
	d = set_header(a, &shape, bytes, cs->nonnull);
	set_fold_sample(stats, fetchfunc, a, rows, n, d);
	set_union_all(stats, fetchfunc, cs, s, samplerows, d);
	memcpy((char *) d + BF_STATS_SET_BYTES(shape.fold_m, shape.nsample), &hist, sizeof(hist));
	hs = (BfStatsHeavySample *) ((char *) d + BF_STATS_SET_BYTES(shape.fold_m, shape.nsample) +
								 sizeof(BfStatsPassHist));
	hs->fold_m = hshape.fold_m;
	hs->nsample = hshape.nsample;
	hs->frac = (double) hshape.nsample / a->rows;
	hs->fold_extra = fold_rows(stats, fetchfunc, a, hrows, hfills, nh, hshape.nsample,
							   hshape.fold_m, hs->slices, NULL);
	memcpy(VARDATA(blob), d, bytes);
	pfree(d);
	pfree(fills);
	pfree(rows);
	pfree(hfills);
	pfree(hrows);
	return PointerGetDatum(blob);
}

/* slot 0 of stats: the column's numbers (from cs) and the kept sets' values */
static void
store_stats_slot(VacAttrStats *stats, const ColumnScan *cs, Datum *values, int nkept)
{
	MemoryContext old = MemoryContextSwitchTo(stats->anl_context);
	float4	   *numbers = palloc0(sizeof(float4) * BF_STATS_NUMBERS);

	MemoryContextSwitchTo(old);
	numbers[BF_STATS_FRAC_EXTERNAL] = (float4) (cs->n_ext / cs->nonnull);
	numbers[BF_STATS_FRAC_COMPRESSED] = (float4) (cs->n_comp / cs->nonnull);
	numbers[BF_STATS_MEAN_RAW_BYTES] = (float4) (cs->raw_bytes / cs->nonnull);
	numbers[BF_STATS_OTHER_FRAC] = (float4) (cs->other_rows / cs->nonnull);
	numbers[BF_STATS_OTHER_FP] = (float4) (cs->other_rows > 0 ? cs->other_fp / cs->other_rows : 0);
	numbers[BF_STATS_FRAC_SPARSE] = (float4) (cs->n_sparse / cs->nonnull);
	numbers[BF_STATS_SPARSE_POS] = (float4) (cs->n_sparse > 0 ? cs->sparse_pos / cs->n_sparse : 0);
	numbers[BF_STATS_EXT_BYTES] = (float4) (cs->n_ext > 0 ? cs->ext_bytes / cs->n_ext : 0);
	numbers[BF_STATS_COMP_BYTES] = (float4) (cs->n_comp > 0 ? cs->comp_bytes / cs->n_comp : 0);
	numbers[BF_STATS_DENSE_BYTES] = (float4) (cs->nonnull > cs->n_sparse ?
											  cs->dense_bytes / (cs->nonnull - cs->n_sparse) : 0);

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
 * compute_stats of a bloomfilter column: the usual null fraction, width
 * and distinct count, and the slot of bloomfilter_stats.h (see the file
 * header)
 */
static void
bloomfilter_compute_stats(VacAttrStats *stats, AnalyzeAttrFetchFunc fetchfunc,
						  int samplerows, double totalrows)
{
	ColumnScan	cs;
	int			nkept;
	int			target = BS_STATS_TARGET(stats);
	uint64		budget_bits;
	double		kept_rows = 0;
	Datum	   *values;

	scan_sample_rows(stats, fetchfunc, samplerows, &cs);
	stats->stats_valid = true;
	stats->stanullfrac = samplerows > 0 ? (double) cs.null_cnt / samplerows : 0;
	if (cs.nonnull == 0)
	{
		stats->stawidth = 0;
		stats->stadistinct = 0;
		return;
	}
	stats->stawidth = (int) (cs.total_width / cs.nonnull);
	stats->stadistinct = estimate_distinct(cs.hashes, cs.nonnull, totalrows, stats->stanullfrac);

	nkept = scan_keep_largest_sets(&cs, samplerows);
	if (target < 0)
		target = default_statistics_target;
	budget_bits = (uint64) Min((double) target * BF_STATS_BYTES_PER_TARGET,
							   (double) BF_STATS_MAX_BYTES) * 8;
	for (int s = 0; s < nkept; s++)
		kept_rows += cs.sets[s].rows;
	values = MemoryContextAllocZero(stats->anl_context, sizeof(Datum) * Max(nkept, 1));
	for (int s = 0; s < nkept; s++)
		values[s] = set_stats_value(stats, fetchfunc, &cs, s, samplerows, budget_bits, kept_rows);
	store_stats_slot(stats, &cs, values, nkept);
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

	if (BS_STATS_TARGET(stats) < 0)
		BS_STATS_TARGET(stats) = default_statistics_target;
	stats->compute_stats = bloomfilter_compute_stats;
	stats->minrows = 300 * BS_STATS_TARGET(stats);
	PG_RETURN_BOOL(true);
}
