/*
 * bloomfilter_readcost.c
 *    The cost of the functions that read a bloomfilter (the answer of
 *    bloomfilter_support to SupportRequestCost), and which of them a
 *    function is.
 *
 * Reading a filter costs what detoasting it costs: per filter argument, a
 * call, plus (by the column's statistics: the fractions stored out of line
 * and compressed, the mean detoasted size; else by the typmod's m) a TOAST
 * fetch and a decompression; plus the function's own work: a membership
 * test hashes the element and tests k bits of a dense value or looks k
 * positions up in a sparse one (by the fraction of values in each form);
 * an element fixed for the scan is hashed once, and its test in an in-line
 * uncompressed dense value takes the fast path (cheaper bit tests);
 * the other functions pass over the bytes.  The constants are measured
 * (test/bench/18_costs.sh, docs/planner.md).
 */
#include "postgres.h"

#include <math.h>

#include "access/heaptoast.h"
#include "catalog/pg_proc.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
#include "utils/syscache.h"

#include "bloomfilter.h"
#include "bloomfilter_stats.h"

/*
 * Costs, in units of cpu_operator_cost (one call of a cheap built-in
 * operator), measured by test/bench/18_costs.sh and 17_planner.sh (c) as
 * docs/planner.md describes.
 */
#define COST_CALL				0.5 /* a call on an in-line filter */
#define COST_EXTERNAL			340.0	/* fetching an out-of-line value */
#define COST_EXTERNAL_PER_BYTE	0.1
#define COST_DECOMPRESS_PER_BYTE 0.4
#define COST_PASS_PER_BYTE		0.05	/* a pass over the bits (popcount) */
#define COST_COMPARE_PER_BYTE	0.01	/* memcmp */
#define COST_WRITE_PER_BYTE		0.1 /* a new filter: allocate, copy, combine */
#define COST_HASH				0.5 /* hashing the element once */
/* one bit test of a dense value: a cache miss, more likely the larger it is */
#define COST_DENSE_TEST(bytes)	Min(0.4 + (bytes) / 500.0, 3.0)
/*
 * ... on the fast path (an element fixed for the scan, an in-line
 * uncompressed value: no header parse, no position arithmetic per row, the
 * probed lines prefetched; bloomfilter_ops.c)
 */
#define COST_FAST_TEST(bytes)	Min(0.46 + (bytes) / 5500.0, 3.0)
#define COST_SPARSE_TEST		1.0 /* one position looked up in a sparse value ... */
#define COST_SPARSE_TEST_LOG	0.3 /* ... plus this per log2 of its positions */
#define DEFAULT_K				7
/* a filter of unknown size: m = 1,024 */
#define DEFAULT_FILTER_BYTES	(BF_VARSIZE(1024))

/* bytes of a filter of expr's typmod (bloomfilter(m, k)), or 0 */
static double
typmod_bytes(Node *expr)
{
	int32		typmod = exprTypmod(expr);

	return typmod >= 0 ? (double) BF_VARSIZE(TYPMOD_M(typmod)) : 0;
}

/*
 * The mean detoasted size of expr's filters (*bytes), the cost of one
 * element's membership test in one of them (*probe: hashing, then k bit
 * tests of a dense value or k look-ups among a sparse value's positions),
 * and the cost of reading one, in units of cpu_operator_cost (see the file
 * header).  fixed_elem: the element is the same for every row of a scan (a
 * constant, a parameter): it is hashed once, not per row, and the in-line
 * uncompressed dense values are tested on the fast path.
 */
static double
filter_read_cost(PlannerInfo *root, Node *expr, bool fixed_elem, double *bytes, double *probe)
{
	VariableStatData vd;
	const BfColumnStats *cs;
	double		cost;
	double		hash = fixed_elem ? 0 : COST_HASH;	/* per row */
	double		k = DEFAULT_K;
	int32		typmod;

	while (IsA(expr, RelabelType))
		expr = (Node *) ((RelabelType *) expr)->arg;
	typmod = exprTypmod(expr);
	if (typmod >= 0)
		k = TYPMOD_K(typmod);
	if (IsA(expr, Const))
	{
		Const	   *c = (Const *) expr;

		*bytes = c->constisnull ? 0 : (double) VARSIZE_ANY(DatumGetPointer(c->constvalue));
		*probe = hash + k * COST_DENSE_TEST(*bytes);
		return COST_CALL;
	}
	examine_variable(root, expr, 0, &vd);
	cs = bf_column_stats(&vd);
	if (cs)
	{
		/* the fraction of values in line, uncompressed: the fast path's */
		double		plain = fixed_elem ?
			Max(0.0, 1 - cs->frac_external - cs->frac_compressed) : 0;
		double		dense_test = plain * COST_FAST_TEST(cs->dense_bytes) +
			(1 - plain) * COST_DENSE_TEST(cs->dense_bytes);

		if (cs->nsets > 0)
			k = cs->sets[0].d->k;
		*bytes = cs->mean_raw_bytes;
		*probe = hash + k * ((1 - cs->frac_sparse) * dense_test +
							 cs->frac_sparse * (COST_SPARSE_TEST + COST_SPARSE_TEST_LOG *
												log2(1 + cs->sparse_positions)));
		/* each storage's own mean size (issue 36; see docs/planner.md) */
		cost = COST_CALL +
			cs->frac_external * (COST_EXTERNAL + COST_EXTERNAL_PER_BYTE * cs->ext_bytes) +
			cs->frac_compressed * COST_DECOMPRESS_PER_BYTE * cs->comp_bytes;
	}
	else
	{
		/* by the typmod: a value above the TOAST threshold is taken as out of line */
		*bytes = typmod_bytes(expr);
		if (*bytes <= 0)
			*bytes = DEFAULT_FILTER_BYTES;
		cost = COST_CALL;
		if (*bytes > TOAST_TUPLE_THRESHOLD)
			cost += COST_EXTERNAL + COST_EXTERNAL_PER_BYTE * *bytes;
		*probe = hash + k * (fixed_elem && *bytes <= TOAST_TUPLE_THRESHOLD ?
							 COST_FAST_TEST(*bytes) : COST_DENSE_TEST(*bytes));
	}
	ReleaseVariableStats(vd);
	return cost;
}

/*
 * true when an element expression is the same for every row of a scan: no
 * Var, nothing volatile (a constant, a parameter, a stable function of them)
 */
static bool
fixed_for_scan(Node *elem)
{
	return !contain_var_clause(elem) && !contain_volatile_functions(elem);
}

/* the extension's functions that read filters, by C symbol */
static const struct
{
	const char *symbol;
	FilterFn	fn;
}			filter_fns[] =
{
	{"bloom_contains_int8", FN_CONTAINS},
	{"bloom_contains_bytes", FN_CONTAINS},
	{"bloom_contains_text", FN_CONTAINS},
	{"bloom_contains_uuid", FN_CONTAINS},
	{"bloom_contained_int8", FN_CONTAINED},
	{"bloom_contained_bytes", FN_CONTAINED},
	{"bloom_contained_text", FN_CONTAINED},
	{"bloom_contained_uuid", FN_CONTAINED},
	{"bloom_m", FN_READ},
	{"bloom_k", FN_READ},
	{"bloom_seed", FN_READ},
	{"bloom_hash", FN_READ},
	{"bloom_popcount", FN_PASS},
	{"bloom_fill_ratio", FN_PASS},
	{"bloom_fp_rate", FN_PASS},
	{"bloom_cardinality", FN_PASS},
	{"bloomfilter_hash", FN_PASS},
	{"bloom_fold", FN_FOLD},
	{"bloom_eq", FN_COMPARE},
	{"bloom_ne", FN_COMPARE},
	{"bloom_intersect", FN_COMBINE},
	{"bloom_union", FN_COMBINE},
	{"bloom_intersection_cardinality", FN_PASS2},
	{"bloom_union_cardinality", FN_PASS2},
	{"bloom_jaccard", FN_PASS2},
};

FilterFn
bf_filter_fn_of(Oid funcid)
{
	HeapTuple	tp = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	FilterFn	fn = FN_UNKNOWN;

	if (HeapTupleIsValid(tp))
	{
		bool		isnull;
		Datum		src = SysCacheGetAttr(PROCOID, tp, Anum_pg_proc_prosrc, &isnull);

		if (!isnull)
		{
			char	   *s = TextDatumGetCString(src);

			for (int i = 0; i < lengthof(filter_fns); i++)
				if (strcmp(s, filter_fns[i].symbol) == 0)
					fn = filter_fns[i].fn;
			pfree(s);
		}
		ReleaseSysCache(tp);
	}
	return fn;
}

double
bf_filter_fn_cost(PlannerInfo *root, FilterFn fn, List *args)
{
	int			nargs = list_length(args);
	double		b0,
				b1,
				probe;

	switch (fn)
	{
		case FN_CONTAINS:
			if (nargs != 2)
				break;
			return filter_read_cost(root, linitial(args), fixed_for_scan(lsecond(args)),
									&b0, &probe) + probe;
		case FN_CONTAINED:
			if (nargs != 2)
				break;
			return filter_read_cost(root, lsecond(args), fixed_for_scan(linitial(args)),
									&b0, &probe) + probe;
		case FN_READ:
			if (nargs != 1)
				break;
			return filter_read_cost(root, linitial(args), false, &b0, &probe);
		case FN_PASS:
			if (nargs != 1)
				break;
			return filter_read_cost(root, linitial(args), false, &b0, &probe) + COST_PASS_PER_BYTE * b0;
		case FN_FOLD:
			if (nargs != 2)
				break;
			return filter_read_cost(root, linitial(args), false, &b0, &probe) + COST_WRITE_PER_BYTE * b0;
		case FN_COMPARE:
			if (nargs != 2)
				break;
			return filter_read_cost(root, linitial(args), false, &b0, &probe) +
				filter_read_cost(root, lsecond(args), false, &b1, &probe) + COST_COMPARE_PER_BYTE * Max(b0, b1);
		case FN_COMBINE:
			if (nargs != 2)
				break;
			return filter_read_cost(root, linitial(args), false, &b0, &probe) +
				filter_read_cost(root, lsecond(args), false, &b1, &probe) + COST_WRITE_PER_BYTE * Max(b0, b1);
		case FN_PASS2:
			if (nargs != 2)
				break;
			return filter_read_cost(root, linitial(args), false, &b0, &probe) +
				filter_read_cost(root, lsecond(args), false, &b1, &probe) + COST_PASS_PER_BYTE * (b0 + b1);
		case FN_UNKNOWN:
			break;
	}
	return -1;
}
