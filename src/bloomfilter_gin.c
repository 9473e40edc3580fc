/*
 * bloomfilter_gin.c
 *    Filters that share a bit: the && operator (bloom_overlaps) and the GIN
 *    operator class bloomfilter_bits_ops that indexes it, for similarity
 *    search.
 *
 * Two filters of one parameter set share a set bit exactly when their
 * estimated intersection is above 0 (bs_est_intersection is 0 without a
 * common bit), so `WHERE f && q ORDER BY bloom_jaccard(f, q) DESC LIMIT k`
 * is the exact top k by similarity, and a GIN index on f finds those rows
 * from q's bits.  The index's keys are bit positions (int4, compared by
 * btint4cmp): a row is a candidate when one of its positions is one of q's.
 * Keys do not carry m, k and seed, so every candidate is rechecked by the
 * operator, which errors on filters of other parameters as a sequential
 * scan would.
 *
 * && stops at the first common bit: two dense values word by word, a sparse
 * value's positions tested in a dense one's bits, two sparse values by
 * merging their positions.  Each argument keeps a detoast cache, so a query
 * filter stored out of line is fetched once per scan, and decoded once when
 * sparse (each row's positions are then tested in its bits).
 */
#include "postgres.h"

#include "access/gin.h"
#include "access/stratnum.h"
#include "miscadmin.h"

#include "bloomfilter.h"

PG_FUNCTION_INFO_V1(bloom_overlaps);
PG_FUNCTION_INFO_V1(bloom_gin_extract_value);
PG_FUNCTION_INFO_V1(bloom_gin_extract_query);
PG_FUNCTION_INFO_V1(bloom_gin_consistent);
PG_FUNCTION_INFO_V1(bloom_gin_triconsistent);

/* the operator class's one strategy: && */
#define BLOOM_GIN_OVERLAP_STRATEGY	1

/*
 * A query of more set bits than this is answered by a full scan of the
 * index, every row rechecked: GIN reads every key's posting list and builds
 * each candidate's check array over all keys, so a query of tens of
 * thousands of bits would cost that many operations per candidate row (a
 * tag of 55,293 bits over 49,549 rows: minutes, against 1.5 s for ranking
 * the whole column).
 */
#define BLOOM_GIN_MAX_QUERY_KEYS	16384

typedef struct OverlapCache
{
	BfArgCache	arg[2];
} OverlapCache;

/*
 * Whether a and b (compatible) share a set bit, stopping at the first:
 * two dense values word by word, a sparse one's positions in a dense one's
 * bits, two sparse ones by merging their positions.
 */
static bool
views_overlap(const BloomView *a, const BloomView *b)
{
	BsSparseIter ia,
				ib;
	uint32		pa,
				pb;
	uint64		steps = 0;

	if (!a->sparse && !b->sparse)
	{
		for (size_t w = 0; w < a->nwords; w++)
		{
			uint64		x,
						y;

			memcpy(&x, a->bits + w * 8, 8);
			memcpy(&y, b->bits + w * 8, 8);
			if (x & y)
				return true;
			if ((w & 65535) == 65535)
				CHECK_FOR_INTERRUPTS();
		}
		return false;
	}
	if (!a->sparse || !b->sparse)
	{
		const BloomView *s = a->sparse ? a : b,
				   *d = a->sparse ? b : a;

		bs_sparse_iter_init(&ia, &s->sp);
		while (bf_sparse_next(&ia, s, &pa))
		{
			if (bs_bit_test(d->bits, pa))
				return true;
			if ((++steps & 65535) == 0)
				CHECK_FOR_INTERRUPTS();
		}
		return false;
	}
	bs_sparse_iter_init(&ia, &a->sp);
	bs_sparse_iter_init(&ib, &b->sp);
	if (!bf_sparse_next(&ia, a, &pa) || !bf_sparse_next(&ib, b, &pb))
		return false;
	for (;;)
	{
		if (pa == pb)
			return true;
		if (pa < pb ? !bf_sparse_next(&ia, a, &pa) : !bf_sparse_next(&ib, b, &pb))
			return false;
		if ((++steps & 65535) == 0)
			CHECK_FOR_INTERRUPTS();
	}
}

/*
 * bloom_overlaps(a, b bloomfilter) -> boolean, the operator &&: whether a
 * and b share a set bit, i.e. whether their estimated intersection (and
 * Jaccard similarity) is above 0; errors unless they have the same
 * parameters
 */
Datum
bloom_overlaps(PG_FUNCTION_ARGS)
{
	OverlapCache *c = (OverlapCache *) fcinfo->flinfo->fn_extra;
	BloomView	a,
				b;

	if (c == NULL)
		fcinfo->flinfo->fn_extra = c =
			MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(OverlapCache));
	bf_view_arg_cached(fcinfo, 0, &c->arg[0], &a);
	bf_view_arg_cached(fcinfo, 1, &c->arg[1], &b);
	bf_check_compatible(&a.p, &b.p, "bloomfilter &&");
	PG_RETURN_BOOL(views_overlap(&a, &b));
}

/*
 * the set positions of a filter datum as int4 keys (palloc'd; *n of them),
 * in one array: the positions are listed as uint32 in its front half, then
 * widened in place from the end (key i's bytes hold positions 2i and 2i + 1,
 * read already when i > 0, read just before when i = 0)
 */
static Datum *
position_keys(Datum d, int32 *n)
{
	BloomView	v;
	uint64		count;
	Datum	   *keys;
	uint32	   *pos;

	bf_view_datum_stored(d, &v);
	count = bf_view_popcount(&v);
	*n = 0;
	if (count == 0)
		return NULL;
	keys = bf_palloc_value(count * sizeof(Datum), false, "the GIN keys of a bloomfilter value");
	pos = (uint32 *) keys;
	if (v.sparse)
		bf_sparse_positions_into(&v, pos);
	else
		count = bf_dense_positions(&v, pos, count);
	for (uint64 i = count; i-- > 0;)
	{
		uint32		p = pos[i];

		keys[i] = Int32GetDatum((int32) p);
	}
	*n = (int32) count;
	return keys;
}

/* GIN extractValue: an indexed filter's keys, its set positions */
Datum
bloom_gin_extract_value(PG_FUNCTION_ARGS)
{
	int32	   *nkeys = (int32 *) PG_GETARG_POINTER(1);

	PG_RETURN_POINTER(position_keys(PG_GETARG_DATUM(0), nkeys));
}

/*
 * GIN extractQuery: the query filter's set positions; a filter with no bit
 * shares none, so no key makes the query match nothing (the default search
 * mode); above BLOOM_GIN_MAX_QUERY_KEYS bits, no key and every row (search
 * mode ALL), each rechecked
 */
Datum
bloom_gin_extract_query(PG_FUNCTION_ARGS)
{
	int32	   *nkeys = (int32 *) PG_GETARG_POINTER(1);
	StrategyNumber strategy = PG_GETARG_UINT16(2);
	int32	   *searchMode = (int32 *) PG_GETARG_POINTER(6);

	Datum	   *keys;

	if (strategy != BLOOM_GIN_OVERLAP_STRATEGY)
		elog(ERROR, "bloomfilter GIN: unknown strategy %d", strategy);
	*searchMode = GIN_SEARCH_MODE_DEFAULT;
	keys = position_keys(PG_GETARG_DATUM(0), nkeys);
	if (*nkeys > BLOOM_GIN_MAX_QUERY_KEYS)
	{
		pfree(keys);
		keys = NULL;
		*nkeys = 0;
		*searchMode = GIN_SEARCH_MODE_ALL;
	}
	PG_RETURN_POINTER(keys);
}

/*
 * GIN consistent: a row with one of the query's positions may share a bit;
 * always rechecked (the keys do not carry the parameters)
 */
Datum
bloom_gin_consistent(PG_FUNCTION_ARGS)
{
	bool	   *check = (bool *) PG_GETARG_POINTER(0);
	int32		nkeys = PG_GETARG_INT32(3);
	bool	   *recheck = (bool *) PG_GETARG_POINTER(5);

	*recheck = true;
	if (nkeys == 0)
		PG_RETURN_BOOL(true);	/* a query of too many bits: every row */
	for (int32 i = 0; i < nkeys; i++)
		if (check[i])
			PG_RETURN_BOOL(true);
	PG_RETURN_BOOL(false);
}

/* GIN triConsistent: MAYBE (a recheck) when a key may be present, else FALSE */
Datum
bloom_gin_triconsistent(PG_FUNCTION_ARGS)
{
	GinTernaryValue *check = (GinTernaryValue *) PG_GETARG_POINTER(0);
	int32		nkeys = PG_GETARG_INT32(3);

	if (nkeys == 0)
		PG_RETURN_GIN_TERNARY_VALUE(GIN_MAYBE);
	for (int32 i = 0; i < nkeys; i++)
		if (check[i] != GIN_FALSE)
			PG_RETURN_GIN_TERNARY_VALUE(GIN_MAYBE);
	PG_RETURN_GIN_TERNARY_VALUE(GIN_FALSE);
}
