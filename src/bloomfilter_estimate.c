/*
 * bloomfilter_estimate.c
 *    Introspection (m, k, seed, hash, popcount, fill ratio, fp rate),
 *    cardinality estimates and the sizing helpers.  The formulas live in the
 *    core (bs_estimate.c); this file validates arguments and counts bits.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "bloomfilter.h"
#include "bs_estimate.h"

PG_FUNCTION_INFO_V1(bloom_m);
PG_FUNCTION_INFO_V1(bloom_k);
PG_FUNCTION_INFO_V1(bloom_seed);
PG_FUNCTION_INFO_V1(bloom_hash);
PG_FUNCTION_INFO_V1(bloom_popcount);
PG_FUNCTION_INFO_V1(bloom_fill_ratio);
PG_FUNCTION_INFO_V1(bloom_positions);
PG_FUNCTION_INFO_V1(bloom_fp_rate);
PG_FUNCTION_INFO_V1(bloom_cardinality);
PG_FUNCTION_INFO_V1(bloom_intersection_cardinality);
PG_FUNCTION_INFO_V1(bloom_union_cardinality);
PG_FUNCTION_INFO_V1(bloom_jaccard);
PG_FUNCTION_INFO_V1(bloom_optimal_m);
PG_FUNCTION_INFO_V1(bloom_optimal_m_k);
PG_FUNCTION_INFO_V1(bloom_optimal_k);
PG_FUNCTION_INFO_V1(bloom_expected_fp);
PG_FUNCTION_INFO_V1(bloom_for_capacity);
PG_FUNCTION_INFO_V1(bloom_for_capacity_k);

/* argument n viewed in its stored form (a sparse value is not decoded), detoasted only when needed */
static BloomView
arg_view(FunctionCallInfo fcinfo, int n)
{
	BloomView	v;

	bf_view_datum_stored(PG_GETARG_DATUM(n), &v);
	return v;
}

/* bloom_m(bloomfilter) -> bigint: the filter's number of bits m */
Datum
bloom_m(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(arg_view(fcinfo, 0).p.m);
}

/* bloom_k(bloomfilter) -> integer: its number of hash functions k */
Datum
bloom_k(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(arg_view(fcinfo, 0).p.k);
}

/* bloom_seed(bloomfilter) -> integer: its hash seed */
Datum
bloom_seed(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(arg_view(fcinfo, 0).p.seed);
}

/* bloom_hash(bloomfilter) -> text: its hash family's name (xxh3, linear) */
Datum
bloom_hash(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(bs_hash_family_name(arg_view(fcinfo, 0).p.hash)));
}

/* bloom_popcount(bloomfilter) -> bigint: its set bits */
Datum
bloom_popcount(PG_FUNCTION_ARGS)
{
	BloomView	v = arg_view(fcinfo, 0);

	PG_RETURN_INT64((int64) bf_view_popcount(&v));
}

/* bloom_fill_ratio(bloomfilter) -> float8: set bits / m */
Datum
bloom_fill_ratio(PG_FUNCTION_ARGS)
{
	BloomView	v = arg_view(fcinfo, 0);

	PG_RETURN_FLOAT8((double) bf_view_popcount(&v) / v.p.m);
}

/*
 * bloom_positions(bloomfilter) -> integer[]: the positions of its set bits,
 * ascending, from 0 (below m <= 2^31, so they fit an integer).  Indexed by
 * GIN (`USING gin (bloom_positions(f))`), `bloom_positions(f) &&
 * bloom_positions(q)` finds the filters sharing a bit with q: every filter
 * whose estimated intersection with q, and so whose bloom_jaccard with it,
 * is above 0 (bs_est_intersection is 0 without a common bit), which makes
 * the top k by similarity an exact search over those candidates.  One array
 * of popcount integers, within bloomsample.max_value_memory.
 */
Datum
bloom_positions(PG_FUNCTION_ARGS)
{
	BloomView	v = arg_view(fcinfo, 0);
	uint64		n = bf_view_popcount(&v);
	Size		nbytes = ARR_OVERHEAD_NONULLS(1) + (Size) n * sizeof(int32);
	ArrayType  *arr;
	int32	   *out;

	if (n == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(INT4OID));
	arr = bf_palloc_value(nbytes, false, "the positions of a bloomfilter value");
	memset(arr, 0, ARR_OVERHEAD_NONULLS(1));
	SET_VARSIZE(arr, nbytes);
	arr->ndim = 1;
	arr->dataoffset = 0;
	arr->elemtype = INT4OID;
	ARR_DIMS(arr)[0] = (int) n;
	ARR_LBOUND(arr)[0] = 1;
	out = (int32 *) ARR_DATA_PTR(arr);
	if (v.sparse)
	{
		uint32	   *pos = bf_sparse_positions(&v);

		memcpy(out, pos, (Size) n * sizeof(int32));
		pfree(pos);
	}
	else if (bf_dense_positions(&v, (uint32 *) out, n) != n)
		elog(ERROR, "bloom_positions: the bits changed while read");
	PG_RETURN_ARRAYTYPE_P(arr);
}

/* posterior false-positive rate: fill_ratio ^ k */
Datum
bloom_fp_rate(PG_FUNCTION_ARGS)
{
	BloomView	v = arg_view(fcinfo, 0);

	PG_RETURN_FLOAT8(pow((double) bf_view_popcount(&v) / v.p.m, v.p.k));
}

/*
 * bloom_cardinality(bloomfilter) -> float8: the estimated number of elements
 * added, ln(1 - t/m) / (k ln(1 - 1/m)); a full filter gets the saturation
 * value ln(1/(2m)) / (k ln(1 - 1/m)), above every other filter's (finite
 * always: bs_est_cardinality)
 */
Datum
bloom_cardinality(PG_FUNCTION_ARGS)
{
	BloomView	v = arg_view(fcinfo, 0);

	PG_RETURN_FLOAT8(bs_est_cardinality(v.p.m, v.p.k, bf_view_popcount(&v)));
}

/* the popcount of v, an argument viewed through ac: ac's count when its bits are v's */
static uint64
arg_popcount(const BfArgCache *ac, const BloomView *v)
{
	return ac->have_bits && v->bits == ac->bits ? ac->popcount : bf_view_popcount(v);
}

/*
 * The pair counts when at least one side is sparse, given the sides'
 * popcounts na and nb: the common positions by merging two sparse sides, or
 * by testing a sparse side's positions in the dense one; no side is decoded.
 */
static BsPairCounts
sparse_pair_counts(const BloomView *a, uint64 na, const BloomView *b, uint64 nb)
{
	BsPairCounts c = {na, nb, 0};
	BsSparseIter ia,
				ib;
	uint32		pa = 0,
				pb = 0;

	if (!a->sparse || !b->sparse)
	{
		const BloomView *s = a->sparse ? a : b,
				   *d = a->sparse ? b : a;

		bs_sparse_iter_init(&ia, &s->sp);
		while (bf_sparse_next(&ia, s, &pa))
			c.and += bs_bit_test(d->bits, pa);
		return c;
	}
	bs_sparse_iter_init(&ia, &a->sp);
	bs_sparse_iter_init(&ib, &b->sp);
	if (bf_sparse_next(&ia, a, &pa) && bf_sparse_next(&ib, b, &pb))
		for (;;)
		{
			if (pa == pb)
				c.and++;
			if (pa <= pb ? !bf_sparse_next(&ia, a, &pa) : !bf_sparse_next(&ib, b, &pb))
				break;
		}
	return c;
}

/*
 * The two arguments of a pair estimate, each through its own cache in
 * fn_extra: a query filter stored out of line that comes back row after row
 * (ORDER BY bloom_jaccard(f, q) over a column) is fetched once, and decoded
 * and counted once when sparse (bf_view_arg_cached, arg_popcount): a
 * sparse row against it costs its own positions, not the query's m / 64
 * words.
 */
typedef struct PairCache
{
	BfArgCache	arg[2];
} PairCache;

/* popcounts of two compatible filters, one pass */
static BsPairCounts
pair_counts(FunctionCallInfo fcinfo, const char *what, BloomView *a)
{
	PairCache  *pc = (PairCache *) fcinfo->flinfo->fn_extra;
	BloomView	b;

	if (pc == NULL)
		fcinfo->flinfo->fn_extra = pc =
			MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(PairCache));
	bf_view_arg_cached(fcinfo, 1, &pc->arg[1], &b);
	bf_view_arg_cached(fcinfo, 0, &pc->arg[0], a);
	bf_check_compatible(&a->p, &b.p, what);
	if (a->sparse || b.sparse)
		return sparse_pair_counts(a, arg_popcount(&pc->arg[0], a),
								  &b, arg_popcount(&pc->arg[1], &b));
	return bs_pair_counts(a->bits, b.bits, a->nwords);
}

/*
 * bloom_intersection_cardinality(a, b bloomfilter) -> float8: estimated
 * elements of both, in [0, min(# a, # b)], finite also for full filters;
 * errors unless a and b have the same parameters
 */
Datum
bloom_intersection_cardinality(PG_FUNCTION_ARGS)
{
	BloomView	a;
	BsPairCounts c = pair_counts(fcinfo, "bloom_intersection_cardinality", &a);

	PG_RETURN_FLOAT8(bs_est_intersection(a.p.m, a.p.k, c.a, c.b, c.and));
}

/*
 * bloom_union_cardinality(a, b bloomfilter) -> float8: estimated elements of
 * either (from the OR's popcount), in [max(# a, # b), # a + # b]; errors
 * unless the parameters match
 */
Datum
bloom_union_cardinality(PG_FUNCTION_ARGS)
{
	BloomView	a;
	BsPairCounts c = pair_counts(fcinfo, "bloom_union_cardinality", &a);

	PG_RETURN_FLOAT8(bs_est_union(a.p.m, a.p.k, c.a, c.b, c.and));
}

/*
 * bloom_jaccard(a, b bloomfilter) -> float8: estimated |a ∩ b| / |a ∪ b|, in
 * [0, 1] (0 for two empty filters, 1 for equal bits); errors unless the
 * parameters match
 */
Datum
bloom_jaccard(PG_FUNCTION_ARGS)
{
	BloomView	a;
	BsPairCounts c = pair_counts(fcinfo, "bloom_jaccard", &a);

	PG_RETURN_FLOAT8(bs_est_jaccard(a.p.m, a.p.k, c.a, c.b, c.and));
}

/* ---- sizing ----------------------------------------------------------- */

/* error (22023) unless v, the argument called name, is positive */
static void
check_positive(int64 v, const char *name)
{
	if (v <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s = " INT64_FORMAT " is out of range", name, v),
				 errdetail("%s must be positive.", name)));
}

/* error (22023) unless 0 < p < 1 */
static void
check_fp_rate(double p)
{
	if (!(p > 0.0 && p < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("false-positive rate %g is out of range", p),
				 errdetail("fp_rate must be strictly between 0 and 1.")));
}

/*
 * m = bs_optimal_m(n, fp) after checking n > 0 and 0 < fp < 1; errors
 * (22003) when it does not fit a bigint
 */
static double
checked_optimal_m(int64 n, double fp)
{
	double		m;

	check_positive(n, "n");
	check_fp_rate(fp);
	m = bs_optimal_m((double) n, fp);
	if (m >= (double) PG_INT64_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("optimal m for n = " INT64_FORMAT " at fp_rate %g is out of range", n, fp)));
	return m;
}

/* error (22023) when m, the bits a filter for n at fp needs, exceed the largest filter */
static void
check_filter_bits(double m, int64 n, double fp)
{
	if (m > (double) BS_MAX_M)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a bloomfilter for n = " INT64_FORMAT " at fp_rate %g needs %.0f bits", n, fp, m),
				 errdetail("The largest bloomfilter has " UINT64_FORMAT " bits.", (uint64) BS_MAX_M),
				 errhint("Raise fp_rate or split the set.")));
}

/* error (22023) unless k is a valid hash count */
static void
check_k(int32 k)
{
	if (k < BS_MIN_K || k > BS_MAX_K)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("hash count k = %d is out of range", k),
				 errdetail("k must be between %d and %d.", BS_MIN_K, BS_MAX_K)));
}

/*
 * m = bs_m_for_k(n, fp, k), at least BS_MIN_M, after checking n > 0,
 * 0 < fp < 1 and k; errors (22023) when it exceeds the largest filter
 */
static double
checked_m_for_k(int64 n, double fp, int32 k)
{
	double		m;

	check_positive(n, "n");
	check_fp_rate(fp);
	check_k(k);
	m = Max(bs_m_for_k((double) n, fp, k), (double) BS_MIN_M);
	check_filter_bits(m, n, fp);
	return m;
}

/*
 * bloom_optimal_m(n bigint, fp_rate float8) -> bigint: the bits that hold n
 * elements at fp_rate with the best k; errors on n <= 0, fp_rate outside
 * (0, 1) or an m beyond bigint
 */
Datum
bloom_optimal_m(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64((int64) checked_optimal_m(PG_GETARG_INT64(0), PG_GETARG_FLOAT8(1)));
}

/*
 * bloom_optimal_m(n bigint, fp_rate float8, k integer) -> bigint: the fewest
 * bits at which n elements and k hash functions give fp_rate (at least 8),
 * the m bst_plan computes for its k; errors on n <= 0, fp_rate outside
 * (0, 1), k outside [1, 32] or an m beyond the largest filter
 */
Datum
bloom_optimal_m_k(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64((int64) checked_m_for_k(PG_GETARG_INT64(0), PG_GETARG_FLOAT8(1),
											PG_GETARG_INT32(2)));
}

/*
 * bloom_optimal_k(m bigint, n bigint) -> integer: round(m / n ln 2) within
 * [1, 32]; errors unless m and n are positive
 */
Datum
bloom_optimal_k(PG_FUNCTION_ARGS)
{
	int64		m = PG_GETARG_INT64(0);
	int64		n = PG_GETARG_INT64(1);

	check_positive(m, "m");
	check_positive(n, "n");
	PG_RETURN_INT32(bs_optimal_k((double) m, (double) n));
}

/*
 * bloom_expected_fp(m bigint, k integer, n bigint) -> float8: the
 * false-positive rate expected after n insertions, (1 - e^(-kn/m))^k;
 * errors unless m, k > 0 and n >= 0
 */
Datum
bloom_expected_fp(PG_FUNCTION_ARGS)
{
	int64		m = PG_GETARG_INT64(0);
	int32		k = PG_GETARG_INT32(1);
	int64		n = PG_GETARG_INT64(2);

	check_positive(m, "m");
	check_positive(k, "k");
	if (n < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("n = " INT64_FORMAT " is out of range", n),
				 errdetail("n must not be negative.")));
	PG_RETURN_FLOAT8(bs_expected_fp((double) m, k, (double) n));
}

/*
 * bloom_for_capacity(n, fp_rate, seed): empty 'xxh3' filter with
 * m = bloom_optimal_m(n, fp_rate) (at least 8) and k = bloom_optimal_k(m, n).
 */
Datum
bloom_for_capacity(PG_FUNCTION_ARGS)
{
	int64		n = PG_GETARG_INT64(0);
	double		fp = PG_GETARG_FLOAT8(1);
	double		m = Max(checked_optimal_m(n, fp), (double) BS_MIN_M);
	BsParams	p;

	check_filter_bits(m, n, fp);
	p = bf_make_params((int64) m, bs_optimal_k(m, (double) n), PG_GETARG_INT32(2), "xxh3");
	PG_RETURN_BLOOMFILTER_P(bf_alloc_typed(&p));
}

/*
 * bloom_for_capacity(n, fp_rate, seed, k): empty 'xxh3' filter with k hash
 * functions and m = bloom_optimal_m(n, fp_rate, k)
 */
Datum
bloom_for_capacity_k(PG_FUNCTION_ARGS)
{
	int32		k = PG_GETARG_INT32(3);
	double		m = checked_m_for_k(PG_GETARG_INT64(0), PG_GETARG_FLOAT8(1), k);
	BsParams	p = bf_make_params((int64) m, k, PG_GETARG_INT32(2), "xxh3");

	PG_RETURN_BLOOMFILTER_P(bf_alloc(&p));
}
