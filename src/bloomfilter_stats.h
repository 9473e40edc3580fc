/*
 * bloomfilter_stats.h
 *    The planner's statistics of bloomfilter columns: the pg_statistic slot
 *    ANALYZE writes (bloomfilter_analyze.c), read back through a
 *    backend-local cache (bloomfilter_colstats.c) by the selectivity
 *    estimators (bloomfilter_selfuncs.c) and the cost of reading a filter
 *    (bloomfilter_readcost.c); and the interfaces between these files and
 *    the Bloofi cost model (bloofi_cost.c).
 *
 * The slot (stakind STATISTIC_KIND_BLOOMFILTER, from the range PostgreSQL
 * leaves to private kinds) holds:
 *
 *   stanumbers  float4[BF_STATS_NUMBERS]: over the column's non-null
 *               values, the fraction stored out of line (TOAST), the
 *               fraction compressed, the mean detoasted size in bytes, the
 *               fraction whose parameter set has no sample below,
 *               those filters' mean fill^k, the fraction stored in the
 *               sparse form and their mean set positions (the last two
 *               absent from statistics written before 1.2: dense assumed),
 *               and the mean detoasted sizes of the values stored out of
 *               line, of the compressed ones and of the dense ones (issue
 *               36: absent before, the mean size of all taken for each)
 *   stavalues   bytea[], one value per parameter set (m, k, seed, hash),
 *               most frequent first, at most BF_STATS_MAX_SETS: a
 *               BfStatsSetData header then the set's bit-sliced sample
 *               (src/core/bs_colstats.h): fold_m slices of
 *               ceil(nsample / 64) 64-bit words
 *
 * The slot stays in the server's native byte order and struct layout, as
 * pg_statistic does (it is not dumped, and a replica runs the same build);
 * the magic and version reject anything else.
 */
#ifndef BLOOMFILTER_STATS_H
#define BLOOMFILTER_STATS_H

#include "postgres.h"

#include "nodes/pathnodes.h"
#include "utils/selfuncs.h"

#include "bs_colstats.h"
#include "bs_hash.h"

/* a private stakind (10000-30000: "choose a kind code at random") */
#define STATISTIC_KIND_BLOOMFILTER	13013

#define BF_STATS_MAGIC			0x31534642	/* "BFS1" */
/*
 * 2: a pass-probability histogram (BfStatsPassHist) follows the slices, and
 * the sample holds only the set's light filters; 1 (written before it) is
 * still read, without the histogram, until the next ANALYZE
 */
#define BF_STATS_VERSION		3
#define BF_STATS_VERSION_2		2	/* no heavy sample: still read */
#define BF_STATS_VERSION_1		1
#define BF_STATS_MAX_SETS		8

/* stanumbers of the slot */
#define BF_STATS_FRAC_EXTERNAL	0
#define BF_STATS_FRAC_COMPRESSED 1
#define BF_STATS_MEAN_RAW_BYTES	2
#define BF_STATS_OTHER_FRAC		3
#define BF_STATS_OTHER_FP		4
#define BF_STATS_FRAC_SPARSE	5	/* stored in the sparse form (from 1.2) */
#define BF_STATS_SPARSE_POS		6	/* their mean set positions */
#define BF_STATS_EXT_BYTES		7	/* mean detoasted bytes of the out-of-line values */
#define BF_STATS_COMP_BYTES		8	/* ... of the compressed values */
#define BF_STATS_DENSE_BYTES	9	/* ... of the dense values */
#define BF_STATS_NUMBERS		10
#define BF_STATS_NUMBERS_2		7	/* what 1.2 wrote before issue 36: still read */
#define BF_STATS_NUMBERS_1		5	/* what 1.1's ANALYZE wrote: still read */

/* sample budget: bytes per unit of the column's statistics target, and the cap */
#define BF_STATS_BYTES_PER_TARGET	2048
#define BF_STATS_MAX_BYTES			(16 * 1024 * 1024)

/* one parameter set, as stored (the payload of a bytea, 8-aligned once read) */
typedef struct BfStatsSetData
{
	uint32		magic;
	uint16		version;
	uint8		k;
	uint8		hash;
	int32		seed;
	uint32		m;
	uint32		fold_m;			/* buckets per sampled filter (m: not folded) */
	uint32		nsample;		/* sampled filters (0: no sample) */
	float8		frac;			/* of the column's non-null values */
	float8		analyzed;		/* values of this set in ANALYZE's sample */
	float8		mean_fill;		/* popcount / m */
	float8		mean_fp;		/* fill^k: the chance an absent element passes */
	float8		mean_card;		/* estimated elements per filter */
	float8		union_card;		/* estimated distinct elements over the set's
								 * analyzed filters of fill below ½ (since issue
								 * 36; the sampled ones' before, whose OR is
								 * still the fallback), -1: too full to tell */
	float8		fold_fp;		/* mean folded fill^k of the sampled filters */
	uint64		slices[FLEXIBLE_ARRAY_MEMBER];
} BfStatsSetData;

#define BF_STATS_SET_BYTES(fold_m, nsample) \
	(offsetof(BfStatsSetData, slices) + \
	 sizeof(uint64) * (Size) (fold_m) * bs_colstats_slice_words(nsample))

/* decades of pass probability in the histogram: [1e-1, 1], [1e-2, 1e-1), ..., below 1e-11 */
#define BF_STATS_FP_BUCKETS		12
/* the heaviest filters of a set kept exactly */
#define BF_STATS_MAX_HEAVY		64

/*
 * The distribution of a set's per-filter pass probabilities (fill^k, the
 * chance that a filter answers true for an element it does not hold), from
 * ANALYZE's sample rows of the set; stored after the slices (version 2).
 * Filters passing more than light_fp_max (at most the heaviest 2%, and
 * only those of more than 8 times the median filter's elements), and
 * saturated ones, are "heavy": they are not in the sample (a hit on them
 * says little of membership, and they would keep the sample from
 * folding), and the estimators take them from here: the heaviest exactly,
 * the other heavy ones by decade.  The light ones (light_frac of the
 * set's rows) are what the sample samples.
 */
typedef struct BfStatsPassHist
{
	float8		light_fp_max;	/* filters passing more than this are heavy */
	float8		light_frac;		/* of the set's rows: the light ones */
	float8		light_fp;		/* their mean fill^k */
	float8		light_card;		/* their mean estimated cardinality */
	uint32		nheavy;			/* heavy filters kept exactly */
	uint32		pad;
	float8		heavy_weight;	/* each exact one's fraction of the set's rows */
	float8		heavy_fp[BF_STATS_MAX_HEAVY];	/* heaviest first */
	float8		heavy_card[BF_STATS_MAX_HEAVY];
	/* the heavy filters not kept exactly, by decade of fill^k */
	float8		bucket_frac[BF_STATS_FP_BUCKETS];	/* of the set's rows */
	float8		bucket_fp[BF_STATS_FP_BUCKETS];		/* mean fill^k */
	float8		bucket_card[BF_STATS_FP_BUCKETS];	/* mean cardinality */
} BfStatsPassHist;

/*
 * The heavy filters' own bit-sliced sample (version 3, issue 36), stored
 * after the histogram: the set's heavy rows passing less than
 * BF_STATS_HEAVY_SAMPLE_FP (a decade bound of the histogram, so its exact
 * filters and buckets below it are the ones sampled), all of them or none
 * (nsample 0), folded to fold_m buckets as src/core/bs_colstats.c shapes a
 * sample.  An element only heavy filters hold (the directories only big
 * packages own) has no light hit: the histogram's extrapolation from the
 * light hits says nothing of it, these hits do.
 */
typedef struct BfStatsHeavySample
{
	uint32		fold_m;
	uint32		nsample;		/* 0: none (the histogram's extrapolation) */
	float8		frac;			/* of the set's rows: the sampled heavy ones */
	float8		fold_extra;		/* mean folded fill^k - fill^k over them */
	uint64		slices[FLEXIBLE_ARRAY_MEMBER];
} BfStatsHeavySample;

#define BF_STATS_HEAVY_SAMPLE_FP	0.01
#define BF_STATS_HEAVY_BYTES(fold_m, nsample) \
	(offsetof(BfStatsHeavySample, slices) + \
	 sizeof(uint64) * (Size) (fold_m) * bs_colstats_slice_words(nsample))

/* the decade bucket of pass probability fp */
static inline int
bf_stats_fp_bucket(double fp)
{
	int			b = 0;
	double		bound = 0.1;

	while (b < BF_STATS_FP_BUCKETS - 1 && fp < bound)
	{
		b++;
		bound /= 10;
	}
	return b;
}

/* a set as the estimators use it */
typedef struct BfStatsSet
{
	const BfStatsSetData *d;
	const BfStatsPassHist *hist;	/* NULL: version 1 statistics */
	const BfStatsHeavySample *heavy;	/* NULL: none (or before version 3) */
	BsParams	params;
	BsHasher	hasher;
} BfStatsSet;

/* a column's statistics, decoded (owned by the cache) */
typedef struct BfColumnStats
{
	double		nullfrac;
	double		frac_external;
	double		frac_compressed;
	double		mean_raw_bytes;
	double		other_frac;
	double		other_fp;
	double		frac_sparse;
	double		sparse_positions;
	double		ext_bytes;		/* mean detoasted bytes of the out-of-line values */
	double		comp_bytes;		/* ... of the compressed ones */
	double		dense_bytes;	/* ... of the dense ones */
	int			nsets;
	BfStatsSet	sets[BF_STATS_MAX_SETS];
	uint64	   *acc;			/* scratch: the widest set's slice words */
} BfColumnStats;

/* bloomfilter_colstats.c */

/*
 * The bloomfilter statistics of vardata's column (vardata->statsTuple), or
 * NULL when it has none (never analyzed, or analyzed before 1.1).  The
 * result belongs to a backend-local cache and stays valid until the next
 * call of bf_column_stats.
 */
extern const BfColumnStats *bf_column_stats(VariableStatData *vardata);

/*
 * bloofi_planprobe.c: a constant's matching entries in the column's bloofi
 * index; a join's element values counted there (a prefix of them, within a
 * work budget) and the spread order it counts histogram bounds in
 */
extern double bloofi_probe_rows(VariableStatData *vardata, Datum value, Oid typid,
								bool *complete);
extern int	bloofi_probe_values(VariableStatData *vardata, const Datum *values, Oid typid,
								int n, double *matches);
extern int	bloofi_spread_next(int n, int *raw);
extern double bloofi_probe_mean_rows(VariableStatData *vardata);

/* bloomfilter_selfuncs.c */

/*
 * bloom_contsel(internal, oid, internal, integer): the restriction
 * estimator of @> and <@ (also called by bloofi_contsel, 1.0's name)
 */
extern Datum bloom_contsel(PG_FUNCTION_ARGS);

/* bloomfilter_readcost.c */

/* what the functions with this support function do with their filters */
typedef enum FilterFn
{
	FN_UNKNOWN,
	FN_CONTAINS,				/* (filter, element) */
	FN_CONTAINED,				/* (element, filter) */
	FN_READ,					/* (filter): its header (m, k, seed, hash) */
	FN_PASS,					/* (filter): a pass over its bits (popcount) */
	FN_FOLD,					/* (filter, factor) -> filter */
	FN_COMPARE,					/* (filter, filter): =, <> */
	FN_COMBINE,					/* (filter, filter) -> filter: &, | */
	FN_PASS2					/* (filter, filter): a pass over both */
} FilterFn;

/*
 * What the function funcid does with its filters, by its C symbol
 * (FN_UNKNOWN: not one of the extension's functions that read filters).
 */
extern FilterFn bf_filter_fn_of(Oid funcid);

/*
 * The per-call cost of a function of kind fn over the argument expressions
 * args, in units of cpu_operator_cost: reading each filter argument (by its
 * column's statistics, else its typmod) and the function's own work; -1
 * when fn is FN_UNKNOWN or args do not fit it.
 */
extern double bf_filter_fn_cost(PlannerInfo *root, FilterFn fn, List *args);

#endif							/* BLOOMFILTER_STATS_H */
