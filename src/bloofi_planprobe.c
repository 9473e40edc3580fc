/*
 * bloofi_planprobe.c
 *    The planner's probe of a Bloofi index: the rows of `f @> constant`
 *    counted in the index at plan time (issue 36).
 *
 * The column statistics see a long-tailed column through a sample of a few
 * thousand filters, where an element held by 10-30 sets has about one
 * expected hit, so its estimate is Poisson noise (docs/planner.md, "Real
 * columns").  A Bloofi lookup returns exactly the rows whose filter passes
 * the element (the filters' own false positives are part of the true
 * answer of `@>`), so when the column has a bloofi index the planner can
 * count them, the way PostgreSQL's selfuncs.c get_actual_variable_range
 * reads a btree's end at plan time.  The probe is bounded: it opens at most
 * bloomsample.plan_probe_nodes tree nodes (the pending chains, which a
 * lookup reads whole, are bounded by their size); past that it stops, and
 * the caller keeps the statistics' estimate, raised to the matches counted
 * so far if they exceed it.
 *
 * What is counted: index entries, not heap rows.  The search takes no
 * snapshot (as a Bloofi scan does not: the heap visit decides visibility),
 * so an entry of a row deleted and not yet vacuumed, or inserted by a
 * transaction still in progress, counts as its row would; between VACUUMs
 * a table whose rows churn is overcounted by its dead entries' share, as
 * its reltuples-scaled statistics would be.  The index is already locked
 * (AccessShareLock) by the planner's get_relation_info.
 *
 * The mean of the probes: a generic plan's `f @> $1` (and any element the
 * planner cannot see, an expression free of the table's columns) is
 * estimated by the mean of the complete probes this backend made of the
 * index, once it has made BLOOFI_PROBE_MEAN_MIN of them.  The plan cache
 * builds a prepared statement's generic plan after five custom ones and
 * keeps it when it is costed no higher than their mean; the statistics'
 * estimate of an unknown element (the half-hit floor on a dense column, 79
 * rows where lookups find 1.8) kept it custom for good, planning and
 * probing every execution.  The mean is the lookups' own, so the generic
 * plan is costed as the custom ones were; it forgets slowly (halved past
 * BLOOFI_PROBE_MEAN_WINDOW probes) and is kept for the
 * BLOOFI_PROBE_MEAN_SLOTS indexes probed last.
 *
 * The entries a complete probe found are kept for the scan the plan runs
 * next (bloofi_probe_reuse.c).
 *
 * bloomsample.plan_probe (on by default) switches all of it off: the
 * statistics alone then estimate every lookup, as before 1.2.
 */
#include "postgres.h"

#include "commands/defrem.h"
#include "miscadmin.h"
#include "nodes/pathnodes.h"
#include "utils/guc.h"
#include "utils/rel.h"

#include "bloofi.h"
#include "bloomfilter.h"
#include "bloomfilter_stats.h"
#include "bs_elem.h"

/* bloomsample.plan_probe and bloomsample.plan_probe_nodes */
bool		bloofi_plan_probe = true;
int			bloofi_plan_probe_nodes = 64;

/* bloofi_plan_probe_init_gucs: define the probe's settings, from _PG_init */
void
bloofi_plan_probe_init_gucs(void)
{
	DefineCustomBoolVariable("bloomsample.plan_probe",
							 "Counts the rows of filter @> constant in a bloofi index at plan time.",
							 "Off: the column statistics alone estimate the lookup.",
							 &bloofi_plan_probe, true, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("bloomsample.plan_probe_nodes",
							"The most index nodes a plan-time probe of a bloofi index opens.",
							"Past it the probe stops and the statistics' estimate stands.",
							&bloofi_plan_probe_nodes, 64, 1, 100000, PGC_USERSET, 0,
							NULL, NULL, NULL);
}

#define BLOOFI_PROBE_MEAN_SLOTS 16
#define BLOOFI_PROBE_MEAN_MIN 5
#define BLOOFI_PROBE_MEAN_WINDOW 256

/* the running mean of one index's complete probes in this backend */
typedef struct ProbeMean
{
	Oid			index;
	uint64		used;			/* probe_clock at its last probe */
	double		sum;			/* rows counted */
	double		n;				/* probes */
} ProbeMean;

static ProbeMean probe_means[BLOOFI_PROBE_MEAN_SLOTS];
static uint64 probe_clock;

/* count one complete probe of index that found rows entries */
static void
probe_mean_add(Oid index, double rows)
{
	ProbeMean  *slot = &probe_means[0];

	for (int i = 0; i < BLOOFI_PROBE_MEAN_SLOTS; i++)
	{
		if (probe_means[i].index == index)
		{
			slot = &probe_means[i];
			break;
		}
		if (probe_means[i].used < slot->used)
			slot = &probe_means[i];
	}
	if (slot->index != index)
	{
		slot->index = index;
		slot->sum = slot->n = 0;
	}
	slot->used = ++probe_clock;
	slot->sum += rows;
	slot->n += 1;
	if (slot->n > BLOOFI_PROBE_MEAN_WINDOW)
	{
		slot->sum /= 2;
		slot->n /= 2;
	}
}

/*
 * The bloofi index of rel whose only key is attribute attno, not partial
 * (its entries are then all the column's non-null rows); NULL when none
 */
static IndexOptInfo *
probe_index_of(RelOptInfo *rel, AttrNumber attno)
{
	ListCell   *lc;
	Oid			bloofi_am = InvalidOid;

	foreach(lc, rel->indexlist)
	{
		IndexOptInfo *ix = (IndexOptInfo *) lfirst(lc);

		if (!OidIsValid(bloofi_am))
			bloofi_am = get_am_oid("bloofi", true);
		if (OidIsValid(bloofi_am) && ix->relam == bloofi_am &&
			!ix->hypothetical && ix->indpred == NIL && ix->nkeycolumns == 1 &&
			ix->indexkeys[0] == attno)
			return ix;
	}
	return NULL;
}

/*
 * The bloofi index the probe reads for the filter column vardata: none when
 * the probe is off or the variable is not a plain column of a base relation
 */
static IndexOptInfo *
probe_index_for(VariableStatData *vardata)
{
	Node	   *expr = vardata->var;
	Var		   *var;

	if (!bloofi_plan_probe || vardata->rel == NULL)
		return NULL;
	while (expr && IsA(expr, RelabelType))
		expr = (Node *) ((RelabelType *) expr)->arg;
	if (expr == NULL || !IsA(expr, Var))
		return NULL;
	var = (Var *) expr;
	if (var->varno != vardata->rel->relid || var->varattno <= 0 ||
		vardata->rel->reloptkind != RELOPT_BASEREL)
		return NULL;
	return probe_index_of(vardata->rel, var->varattno);
}

/* the bloofi index a probe reads, open: its metapage and hasher */
typedef struct ProbeIndex
{
	Relation	index;
	Oid			oid;
	BloofiMetaData *meta;		/* re-read by each search (bloofi_count_key) */
	BsHasher	h;
	uint32		k;
} ProbeIndex;

/*
 * Open the bloofi index the probe reads for the filter column vardata;
 * false when the probe does not apply (switched off, no such index, the
 * variable not a plain column of a base relation, an empty index)
 */
static bool
probe_open(VariableStatData *vardata, ProbeIndex *pi)
{
	IndexOptInfo *ix = probe_index_for(vardata);
	BsParams	p;

	if (ix == NULL)
		return false;
	/* get_relation_info holds the index's AccessShareLock until commit */
	pi->index = index_open(ix->indexoid, NoLock);
	pi->oid = ix->indexoid;
	pi->meta = bloofi_read_meta(pi->index);
	if (!pi->meta->have_params)
	{
		pfree(pi->meta);
		index_close(pi->index, NoLock);
		return false;
	}
	bloofi_params(pi->meta, &p);
	bs_hasher_init(&pi->h, &p);
	pi->k = p.k;
	return true;
}

static void
probe_close(ProbeIndex *pi)
{
	pfree(pi->meta);
	index_close(pi->index, NoLock);
}

/*
 * probe_count: the entries of the open index pi that pass element value (of
 * type typid).  When the search stopped at its node limit, *complete is
 * false and the count is a lower bound.  A text that is also an integer or
 * a uuid is searched under both readings, as the scan does
 * (bloofi_elem_keys), and counted by the reading with more matches: a
 * column's rows use one of them, so the other one's matches are its false
 * positives, which the recheck drops.  lookup: the probe of a lookup's own
 * element, which joins the probes' mean and keeps its entries for the scan;
 * false for the probes of a join's element values, which are neither.
 * *checked: the node values the search tested (BloofiSearchStats'
 * nodes_checked: a dense node's leaves, a SPARSE node's list entries).
 */
static double
probe_count(ProbeIndex *pi, Datum value, Oid typid, bool lookup, bool *complete,
			int64 *checked)
{
	BsKey		keys[BS_ELEM_READINGS_MAX];
	int			nkeys = bloofi_elem_keys(&pi->h, value, typid, keys);
	BloofiProbeCollector found;
	double		rows = 0;

	bloofi_probe_collector_init(&found);
	found.on = found.on && lookup;
	*complete = true;
	*checked = 0;
	for (int i = 0; i < nkeys; i++)
	{
		BloofiSearchStats st;

		memset(&st, 0, sizeof(st));
		st.max_nodes = bloofi_plan_probe_nodes;
		bloofi_count_key(pi->index, &pi->meta, &pi->h, pi->k, keys[i], bloofi_probe_collect,
						 &found, &st);
		*complete = *complete && !st.truncated;
		rows = Max(rows, (double) st.matches);
		*checked += st.nodes_checked;
	}
	elog(DEBUG1, "bloofi plan probe of %s: %.0f matches%s",
		 RelationGetRelationName(pi->index), rows, *complete ? "" : " (stopped)");
	if (lookup)
	{
		if (*complete)
			probe_mean_add(pi->oid, rows);
		found.on = found.on && *complete;
		bloofi_probe_keep(&found, pi->oid, keys, nkeys);
	}
	return rows;
}

/*
 * bloofi_probe_rows: the index entries of the filter column vardata that
 * pass the constant element value (of type typid), counted in its bloofi
 * index at plan time as probe_count counts a lookup's element (joining the
 * probes' mean, its entries kept for the scan); -1 when the probe does not
 * apply (probe_open).  When the probe stopped at its node limit, *complete
 * is false and the count is a lower bound.
 */
double
bloofi_probe_rows(VariableStatData *vardata, Datum value, Oid typid, bool *complete)
{
	ProbeIndex	pi;
	int64		checked;
	double		rows;

	*complete = false;
	if (!probe_open(vardata, &pi))
		return -1;
	rows = probe_count(&pi, value, typid, true, complete, &checked);
	probe_close(&pi);
	return rows;
}

/*
 * A join's probes (bloofi_probe_values) stop once their searches have
 * tested this many node values between them (a dense node's leaves, a
 * SPARSE node's list entries): a probe of a long-tailed column's SPARSE node
 * reads a few lists, a few microseconds, but one of a dense index ANDs a
 * slice bit per filter, 20 µs at 60,000 filters and 0.3-0.4 ms at 10^6 (a
 * hundred of them would add 40 ms to the plan)
 */
#define BLOOFI_PROBE_JOIN_CHECKS	1000000

/*
 * bloofi_probe_values: a join's element values values[0 .. n) (of type
 * typid) counted in the filter column vardata's bloofi index, opened once,
 * as probe_count counts them (neither joining the probes' mean nor keeping
 * entries), into
 * matches[], in order, until their searches have tested
 * BLOOFI_PROBE_JOIN_CHECKS node values.  Returns how many were counted (a
 * prefix of values[]); -1 when the probe does not apply or stopped at its
 * node limit on one of them.
 */
int
bloofi_probe_values(VariableStatData *vardata, const Datum *values, Oid typid, int n,
					double *matches)
{
	ProbeIndex	pi;
	int64		checks = 0;
	int			i;

	if (!probe_open(vardata, &pi))
		return -1;
	for (i = 0; i < n && checks < BLOOFI_PROBE_JOIN_CHECKS; i++)
	{
		bool		complete;
		int64		checked;

		matches[i] = probe_count(&pi, values[i], typid, false, &complete, &checked);
		checks += checked;
		if (!complete)
		{
			i = -1;
			break;
		}
	}
	probe_close(&pi);
	return i;
}

/*
 * bloofi_spread_next: the next of 0 .. n - 1 in an order whose every prefix
 * is spread over them (the bit reversal of 0, 1, 2, ..., skipping those
 * >= n; *raw the counter, 0 at first), the order a join's histogram bounds
 * are counted in, so that those counted within the budget stand for all
 */
int
bloofi_spread_next(int n, int *raw)
{
	int			bits = 0;

	while ((1 << bits) < n)
		bits++;
	for (;;)
	{
		int			r = (*raw)++,
					v = 0;

		for (int b = 0; b < bits; b++)
			v |= ((r >> b) & 1) << (bits - 1 - b);
		if (v < n)
			return v;
	}
}

/*
 * bloofi_probe_mean_rows: the mean entries of this backend's complete
 * probes of the filter column vardata's bloofi index (the probes of
 * bloofi_probe_rows); -1 when the probe does not apply or fewer than
 * BLOOFI_PROBE_MEAN_MIN are known
 */
double
bloofi_probe_mean_rows(VariableStatData *vardata)
{
	IndexOptInfo *ix = probe_index_for(vardata);

	if (ix == NULL)
		return -1;
	for (int i = 0; i < BLOOFI_PROBE_MEAN_SLOTS; i++)
		if (probe_means[i].index == ix->indexoid)
			return probe_means[i].n >= BLOOFI_PROBE_MEAN_MIN ?
				probe_means[i].sum / probe_means[i].n : -1;
	return -1;
}
