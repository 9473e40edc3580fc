/*
 * bst_baseline_sql.c
 *    The SQL functions of the BloomSampleTree paper's baselines (section 4:
 *    dictionary attack, reservoir sampling, HashInvert) and of its clustered
 *    query-set generator (section 7.1).  Split from bst_sql.c.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"

#include "bst_baseline.h"
#include "bst_cache.h"
#include "bst_gen.h"

PG_FUNCTION_INFO_V1(bloom_dictionary_attack);
PG_FUNCTION_INFO_V1(bloom_dictionary_sample);
PG_FUNCTION_INFO_V1(bloom_hashinvert);
PG_FUNCTION_INFO_V1(bst_clustered_ids);

/* most ids bst_clustered_ids may draw from (its state takes 17 bytes an id) */
#define BST_MAX_GEN_NAMESPACE	INT64CONST(50000000)

/* ---------------------------------------------------------------------------
 * baselines and generators
 * ---------------------------------------------------------------------------
 */
/* a baseline's arguments (filter, lo, hi): q viewed, [lo, hi) checked, q's hasher */
static void
baseline_args(FunctionCallInfo fcinfo, BloomView *q, int64 *lo, int64 *hi, BsHasher *h)
{
	bf_view_datum(PG_GETARG_DATUM(0), q);
	*lo = PG_GETARG_INT64(1);
	*hi = PG_GETARG_INT64(2);
	bst_check_namespace(*lo, *hi);
	bs_hasher_init(h, &q->p);
}

Datum
bloom_dictionary_attack(PG_FUNCTION_ARGS)
{
	BloomView	q;
	int64		lo,
				hi;
	BsHasher	h;
	BstAlloc	scratch = bst_scratch_alloc();
	BstIdVec	out;

	baseline_args(fcinfo, &q, &lo, &hi, &h);
	bst_result_init(&out, &scratch);
	bst_report(bst_dictionary_attack(&h, q.bits, lo, hi, &out, NULL), "running the dictionary attack", 0);
	return bst_return_ids(fcinfo, out.v, out.n);
}

Datum
bloom_dictionary_sample(PG_FUNCTION_ARGS)
{
	BloomView	q;
	int64		lo,
				hi,
				n = PG_GETARG_INT32(3);
	BsHasher	h;
	BstAlloc	scratch = bst_scratch_alloc();
	BstIdVec	out;
	BstRng		rng;

	baseline_args(fcinfo, &q, &lo, &hi, &h);
	bst_check_n(n);
	bst_rng_init(&rng);
	bst_result_init(&out, &scratch);
	bst_report(bst_dictionary_sample(&h, q.bits, lo, hi, n, &rng, &scratch, &out, NULL),
			   "sampling by dictionary attack", (uint64) n * 8);
	return bst_return_ids(fcinfo, out.v, out.n);
}

Datum
bloom_hashinvert(PG_FUNCTION_ARGS)
{
	BloomView	q;
	int64		lo,
				hi;
	BsHasher	h;
	BstAlloc	scratch = bst_scratch_alloc();
	BstIdVec	out;
	bool		unset;
	int			rc;

	baseline_args(fcinfo, &q, &lo, &hi, &h);
	if (q.p.hash != BS_HASH_LINEAR)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("bloom_hashinvert needs a filter of hash family 'linear', not '%s'",
						bs_hash_family_name(q.p.hash)),
				 errhint("Only (a*x + b) mod m hashes can be inverted; use bloom_dictionary_attack or a BloomSampleTree.")));
	if (bs_popcount(q.bits, q.nwords) > q.p.m / 2 &&
		((uint64) hi - (uint64) lo) / 8 > bst_memory_limit_bytes())
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloom_hashinvert over a dense filter needs a bitmap of " UINT64_FORMAT " MB",
						(((uint64) hi - (uint64) lo) / 8) >> 20),
				 errhint("Narrow [lo, hi) or raise bloomsample.bst_memory_limit.")));
	bst_result_init(&out, &scratch);
	rc = bst_hashinvert(&h, q.bits, lo, hi, &scratch, &out, NULL, &unset);
	bst_report(rc, "running HashInvert", 0);
	return bst_return_ids(fcinfo, out.v, out.n);
}

/* bst_clustered_ids(n, lo, hi, p, seed): the paper's clustered query sets */
Datum
bst_clustered_ids(PG_FUNCTION_ARGS)
{
	int64		n = PG_GETARG_INT64(0),
				lo = PG_GETARG_INT64(1),
				hi = PG_GETARG_INT64(2);
	double		p = PG_GETARG_FLOAT8(3);
	int64		seed = PG_GETARG_INT64(4);
	BstAlloc	scratch = bst_scratch_alloc();
	BstIdVec	out;
	BstRng		rng;

	bst_check_namespace(lo, hi);
	if ((uint64) hi - (uint64) lo > (uint64) BST_MAX_GEN_NAMESPACE)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bst_clustered_ids draws from at most " INT64_FORMAT " ids", BST_MAX_GEN_NAMESPACE)));
	if (n < 0 || n > hi - lo)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("n = " INT64_FORMAT " must be between 0 and the namespace size " INT64_FORMAT,
						n, hi - lo)));
	if (!(p >= 0 && p < 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("clustering p = %g must be in [0, 1)", p)));
	bst_rng_seed(&rng, (uint64) seed);
	bst_result_init(&out, &scratch);
	bst_report(bst_gen_clustered(lo, hi, n, p, &rng, &scratch, &out),
			   "generating a clustered set", (uint64) (hi - lo) * 17);
	return bst_return_ids(fcinfo, out.v, out.n);
}
