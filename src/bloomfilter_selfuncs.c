/*
 * bloomfilter_selfuncs.c
 *    The selectivity of `filter @> element` / `element <@ filter`: the
 *    restriction and join estimators of the operators, and bloomfilter_support,
 *    the planner support function of the functions that read a filter, which
 *    answers SupportRequestSelectivity of bloom_contains / bloom_contained
 *    from here, SupportRequestCost through bloomfilter_readcost.c, and
 *    SupportRequestIndexCondition (bloom_contains(f, x) as an index condition).
 *    The column statistics come from bloomfilter_colstats.c.
 *
 * Selectivity.  For a column with statistics, the fraction of rows whose
 * filter answers true for an element x is, per parameter set, estimated
 * from the set's sample: the sampled filters holding x are the AND of x's
 * k slices (src/core/bs_colstats.c), corrected for the folding's false hits
 * and for false positives, with half a hit assumed when no sampled filter
 * holds x.  For a constant x on a column with a bloofi index, the index
 * itself counts the rows at plan time (bloofi_planprobe.c, a bounded
 * search; bloomsample.plan_probe), the statistics standing where the probe
 * stops early.  Where x is not a constant:
 *   - the other side is a column with statistics (a join, the inner side of
 *     a nested loop, a parameterized path): x ranges over that column's
 *     most common values (weighted by their frequencies) and histogram
 *     bounds (weighted equally over the rest); the hits are averaged over
 *     them and half a hit is spread over all of them;
 *   - otherwise (a generic plan's $1, an InitPlan's result): an element
 *     held by no sampled filter, or, when the OR of the sampled filters
 *     still tells how many distinct elements they hold, an element drawn
 *     among those (elements per filter / distinct elements), whichever is
 *     larger.
 * A constant filter against an element column (`'...'::bloomfilter @> id`)
 * tests the column's most common values and histogram bounds against the
 * filter.  Semi- and anti-joins turn the matches per row into the chance
 * of at least one.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "utils/lsyscache.h"

#include "bloomfilter.h"
#include "bs_elem.h"
#include "bloomfilter_stats.h"
#include "bs_estimate.h"

PG_FUNCTION_INFO_V1(bloom_contsel);
PG_FUNCTION_INFO_V1(bloom_contjoinsel);
PG_FUNCTION_INFO_V1(bloomfilter_support);

/* without statistics: the fraction of filters holding an element */
#define BF_DEFAULT_CONTAIN_SEL	0.001

/* ---- elements ------------------------------------------------------------ */

/* element types the operators take (int2/int4 hash as the same int64) */
static bool
elem_type_ok(Oid typid)
{
	switch (typid)
	{
		case INT8OID:
		case INT4OID:
		case INT2OID:
		case TEXTOID:
		case VARCHAROID:
		case BYTEAOID:
		case UUIDOID:
			return true;
		default:
			return false;
	}
}

/* true when the operator's or function's filter is its right argument */
static bool
filter_on_right(Oid lefttype)
{
	return elem_type_ok(lefttype);
}

/*
 * The element expression with an integer widening removed, implicit or
 * written (an int4 column compared through int8, `f @> t.x::bigint`, has the
 * int4 column's statistics, and its values hash as the same elements).
 */
static Node *
strip_elem_cast(Node *node)
{
	while (node)
	{
		if (IsA(node, RelabelType))
			node = (Node *) ((RelabelType *) node)->arg;
		else if (IsA(node, FuncExpr) &&
				 (((FuncExpr *) node)->funcformat == COERCE_IMPLICIT_CAST ||
				  ((FuncExpr *) node)->funcformat == COERCE_EXPLICIT_CAST) &&
				 list_length(((FuncExpr *) node)->args) == 1 &&
				 ((FuncExpr *) node)->funcresulttype == INT8OID &&
				 (exprType(linitial(((FuncExpr *) node)->args)) == INT4OID ||
				  exprType(linitial(((FuncExpr *) node)->args)) == INT2OID))
			node = (Node *) linitial(((FuncExpr *) node)->args);
		else
			break;
	}
	return node;
}

/*
 * Elements an element column holds, as its statistics describe them: most
 * common values with their frequencies, histogram bounds sharing the rest
 * equally; `unknown` is the weight of values neither describes.  Weights
 * are fractions of the column's non-null rows.
 */
typedef struct Probes
{
	int			n;
	Datum	   *values;
	double	   *weights;
	Oid			typid;
	double		unknown;
	double		nullfrac;
	AttStatsSlot mcv;
	AttStatsSlot hist;
} Probes;

/*
 * The probes of an element column (vd) from its MCV and histogram slots;
 * false when it has neither, or is not of an element type
 */
static bool
probes_from_stats(VariableStatData *vd, Probes *pr)
{
	Form_pg_statistic st;
	bool		have_mcv,
				have_hist;
	double		mcv_sum = 0,
				rest;

	memset(pr, 0, sizeof(*pr));
	if (!HeapTupleIsValid(vd->statsTuple) || !elem_type_ok(vd->atttype))
		return false;
	st = (Form_pg_statistic) GETSTRUCT(vd->statsTuple);
	pr->nullfrac = st->stanullfrac;
	have_mcv = get_attstatsslot(&pr->mcv, vd->statsTuple, STATISTIC_KIND_MCV, InvalidOid,
								ATTSTATSSLOT_VALUES | ATTSTATSSLOT_NUMBERS);
	have_hist = get_attstatsslot(&pr->hist, vd->statsTuple, STATISTIC_KIND_HISTOGRAM,
								 InvalidOid, ATTSTATSSLOT_VALUES);
	if ((have_mcv && !elem_type_ok(pr->mcv.valuetype)) ||
		(have_hist && !elem_type_ok(pr->hist.valuetype)) || (!have_mcv && !have_hist))
	{
		free_attstatsslot(&pr->mcv);
		free_attstatsslot(&pr->hist);
		return false;
	}
	pr->typid = have_mcv ? pr->mcv.valuetype : pr->hist.valuetype;
	pr->values = palloc(sizeof(Datum) * (pr->mcv.nvalues + pr->hist.nvalues));
	pr->weights = palloc(sizeof(double) * (pr->mcv.nvalues + pr->hist.nvalues));
	for (int i = 0; i < pr->mcv.nvalues; i++)
	{
		pr->values[pr->n] = pr->mcv.values[i];
		pr->weights[pr->n++] = pr->mcv.numbers[i];
		mcv_sum += pr->mcv.numbers[i];
	}
	rest = Max(1 - pr->nullfrac - mcv_sum, 0);
	if (pr->hist.nvalues > 0)
		for (int i = 0; i < pr->hist.nvalues; i++)
		{
			pr->values[pr->n] = pr->hist.values[i];
			pr->weights[pr->n++] = rest / pr->hist.nvalues;
		}
	else
		pr->unknown = rest;
	/* as fractions of the non-null rows */
	if (pr->nullfrac < 1)
	{
		for (int i = 0; i < pr->n; i++)
			pr->weights[i] /= 1 - pr->nullfrac;
		pr->unknown /= 1 - pr->nullfrac;
	}
	return true;
}

/* free what probes_from_stats allocated */
static void
probes_free(Probes *pr)
{
	free_attstatsslot(&pr->mcv);
	free_attstatsslot(&pr->hist);
	if (pr->values)
		pfree(pr->values);
	if (pr->weights)
		pfree(pr->weights);
}

/* ---- selectivity from a column's statistics ----------------------------- */

/*
 * hits of element value (of type typid) among set's sample (heavy: its heavy
 * sample, which the caller has checked exists); a text that is also an
 * integer or a uuid, which each filter reads by the element types it
 * records (src/core/bs_elemtype.h), by its reading with the most hits
 */
static uint32
set_hits(const BfColumnStats *cs, const BfStatsSet *set, Datum value, Oid typid, bool heavy)
{
	uint32		pos[BS_MAX_K];
	BsKey		keys[BS_ELEM_READINGS_MAX];
	int			n = 1;
	uint32		best = 0;
	const uint64 *slices = heavy ? set->heavy->slices : set->d->slices;
	uint32		nsample = heavy ? set->heavy->nsample : set->d->nsample;
	uint32		fold_m = heavy ? set->heavy->fold_m : set->d->fold_m;

	if (nsample == 0)
		return 0;
	if (typid == TEXTOID || typid == VARCHAROID)
	{
		BsTextReadings rd;
		BsElem		t = bs_elem_varlena(value),
					e[BS_ELEM_READINGS_MAX];

		(void) bs_elem_text_used(&t, BS_ELEM_ALL, &rd, e, &n);
		for (int i = 0; i < n; i++)
			keys[i] = bs_elem_key(&set->hasher, &e[i]);
	}
	else
		keys[0] = bf_datum_key(&set->hasher, value, typid);
	for (int i = 0; i < n; i++)
	{
		bs_key_positions(&set->hasher, keys[i], pos);
		best = Max(best, bs_colstats_hits(slices, nsample, fold_m,
										  set->d->m, pos, set->d->k, cs->acc));
	}
	return best;
}

/*
 * The fraction of a set's sampled filters that hold an element with `hits`
 * hits (possibly a mean) among the sample, at least floor_hits hits' worth
 * (the folding's expected false hits removed)
 */
static double
set_member_p(const BfStatsSetData *d, double hits, double floor_hits)
{
	return bs_colstats_member_fraction(hits, d->nsample, d->fold_fp, 0, floor_hits,
									   BF_DEFAULT_CONTAIN_SEL);
}

/* a heavy filter's chance to answer true: its pass probability, or it holds the element */
static double
heavy_pass(double fp, double card, double p, double light_card)
{
	double		member = light_card > 0 ? Min(p * Max(card, 1) / light_card, 1.0) : p;

	return fp + (1 - fp) * member;
}

/*
 * The share of a set's heavy sample that answers true for an element with
 * `hits` hits (possibly a mean) there, the folding's extra false hits
 * removed; -1 when the set has no heavy sample
 */
static double
heavy_pass_p(const BfStatsSet *set, double hits)
{
	const BfStatsHeavySample *hs = set->heavy;
	double		extra;
	double		p;

	if (hs == NULL)
		return -1;
	extra = Min(Max(hs->fold_extra, 0.0), 0.999);
	p = (hits / hs->nsample - extra) / (1 - extra);
	return Min(Max(p, 0.0), 1.0);
}

/*
 * The fraction of a set's filters that answer true for an element held by
 * p of the sampled filters: with version 2 statistics, the light filters
 * (which the sample samples) by their mean pass probability, and the heavy
 * ones each by its own (the heaviest exactly, the rest by decade), a heavy
 * filter holding the element p * (its cardinality / the light filters'
 * mean cardinality) of the time; but with a heavy sample (version 3) and
 * hp >= 0, the heavy filters it samples (those passing less than
 * BF_STATS_HEAVY_SAMPLE_FP) answer true for hp of them, as their own hits
 * say; with version 1, the set's mean fill^k
 */
static double
set_fraction(const BfStatsSet *set, double p, double hp)
{
	const BfStatsPassHist *h = set->hist;
	bool		sampled = set->heavy != NULL && hp >= 0;
	double		sel;

	if (h == NULL)
		return Min(p + (1 - p) * set->d->mean_fp, 1.0);
	sel = h->light_frac * (p + (1 - p) * h->light_fp);
	for (uint32 i = 0; i < h->nheavy; i++)
		if (!sampled || h->heavy_fp[i] >= BF_STATS_HEAVY_SAMPLE_FP)
			sel += h->heavy_weight * heavy_pass(h->heavy_fp[i], h->heavy_card[i], p,
												h->light_card);
	for (int b = 0; b < BF_STATS_FP_BUCKETS; b++)
		if (h->bucket_frac[b] > 0 &&
			(!sampled || b <= bf_stats_fp_bucket(BF_STATS_HEAVY_SAMPLE_FP)))
			sel += h->bucket_frac[b] * heavy_pass(h->bucket_fp[b], h->bucket_card[b], p,
												  h->light_card);
	if (sampled)
		sel += set->heavy->frac * hp;
	return Min(sel, 1.0);
}

/* fraction of a set's filters holding an element that no statistics describe */
static double
set_unknown_fraction(const BfStatsSet *set)
{
	const BfStatsSetData *d = set->d;
	double		p = set_member_p(d, 0, BS_COLSTATS_FLOOR_HITS);
	double		card = set->hist ? set->hist->light_card : d->mean_card;

	/*
	 * an element drawn among the distinct elements of the set's analyzed
	 * filters, when that is known: a light filter holds it card / D of the
	 * time, a heavy one its own cardinality / D (set_fraction), which sum to
	 * the mean rows per distinct element.  No half-hit floor then (issue 36):
	 * on a column of 150,000 distinct elements and 1,018 filters the floor,
	 * worth 2 rows and scaled by the heavy filters' cardinalities, made the
	 * mean 11 rows, against 1.07.
	 */
	if (d->union_card >= 1 && card > 0)
		p = Min(card / d->union_card, 1.0);
	return set_fraction(set, p, -1);
}

/*
 * Fraction of the column's rows (NULLs included) whose filter answers true
 * for: the element `value` of type typid (pr == NULL, value_known), the
 * elements of pr (averaged over them), or an element nothing is known of
 * (pr == NULL, !value_known).  With semi_rows > 0, instead the chance that
 * at least one of semi_rows such rows answers true (the matches expected
 * among them, at most one), averaged likewise.
 */
static double
column_fraction(const BfColumnStats *cs, bool value_known, Datum value, Oid typid,
				const Probes *pr, double semi_rows)
{
	double		sel = 0,
				rest;

	for (int g = 0; g < cs->nsets; g++)
	{
		const BfStatsSet *set = &cs->sets[g];
		const BfStatsSetData *d = set->d;
		double		sel_g;

		if (value_known)
			sel_g = set_fraction(set, set_member_p(d, set_hits(cs, set, value, typid, false),
												   BS_COLSTATS_FLOOR_HITS),
								 set->heavy ?
								 heavy_pass_p(set, set_hits(cs, set, value, typid, true)) : -1);
		else if (pr && pr->n > 0)
		{
			double		acc = 0,
						hits = 0,
						hhits = 0,
						wsum = 0;

			/*
			 * The mean of the probes' hits (the folding's false hits come
			 * off the mean, unbiased), half a hit spread over all of them
			 * (the mean of elements rarer than one each); for a semi-join
			 * each probe's own chance of a match
			 */
			for (int j = 0; j < pr->n; j++)
			{
				uint32		h,
							hh;

				if (pr->weights[j] <= 0)
					continue;
				h = set_hits(cs, set, pr->values[j], pr->typid, false);
				hh = set->heavy ? set_hits(cs, set, pr->values[j], pr->typid, true) : 0;
				hits += pr->weights[j] * h;
				hhits += pr->weights[j] * hh;
				wsum += pr->weights[j];
				if (semi_rows > 0)
					acc += pr->weights[j] *
						Min(semi_rows * set_fraction(set, set_member_p(d, h,
																	   BS_COLSTATS_FLOOR_HITS / pr->n),
													 heavy_pass_p(set, hh)),
							1.0);
			}
			if (semi_rows <= 0)
				acc = wsum * set_fraction(set, set_member_p(d, wsum > 0 ? hits / wsum : 0,
															BS_COLSTATS_FLOOR_HITS / pr->n),
										  heavy_pass_p(set, wsum > 0 ? hhits / wsum : 0));
			if (pr->unknown > 0)
			{
				double		su = set_unknown_fraction(set);

				if (semi_rows > 0)
					su = Min(su * semi_rows, 1.0);
				acc += pr->unknown * su;
				wsum += pr->unknown;
			}
			sel += d->frac * (wsum > 0 ? acc / wsum : 0);
			continue;
		}
		else
			sel_g = set_unknown_fraction(set);
		if (semi_rows > 0)
			sel_g = Min(sel_g * semi_rows, 1.0);
		sel += d->frac * sel_g;
	}
	rest = cs->other_fp + BF_DEFAULT_CONTAIN_SEL;
	if (semi_rows > 0)
		rest = Min(rest * semi_rows, 1.0);
	sel += cs->other_frac * rest;
	if (semi_rows <= 0)
		sel *= 1 - cs->nullfrac;
	CLAMP_PROBABILITY(sel);
	return sel;
}

/*
 * Fraction of an element column's rows (vardata) that a constant filter
 * answers true for: its most common values and histogram bounds tested;
 * when none passes, the filter's estimated elements over the column's
 * distinct values, plus the filter's false positives.
 */
static double
const_filter_fraction(VariableStatData *vardata, Datum filter)
{
	BloomView	v;
	BsHasher	h;
	Probes		pr;
	double		fp,
				card,
				hits = 0,
				wsum = 0,
				sel;
	uint64		pop;

	bf_view_datum(filter, &v);
	pop = bs_popcount(v.bits, v.nwords);
	fp = pow((double) pop / v.p.m, v.p.k);
	card = bs_est_cardinality(v.p.m, v.p.k, pop);
	if (!probes_from_stats(vardata, &pr))
		return Max(BF_DEFAULT_CONTAIN_SEL, fp);
	bs_hasher_init(&h, &v.p);
	for (int j = 0; j < pr.n; j++)
	{
		if (bs_key_test(&h, bf_datum_key(&h, pr.values[j], pr.typid), v.bits))
			hits += pr.weights[j];
		wsum += pr.weights[j];
	}
	if (hits > 0)
		sel = hits / Max(wsum, 1e-10);
	else
	{
		bool		isdefault;
		double		nd = get_variable_numdistinct(vardata, &isdefault);

		if (!isdefault && nd >= 1 && pop < v.p.m)	/* a full filter's n^ says nothing here */
			sel = Min(card / nd, 1.0) + fp;
		else
			sel = (double) BS_COLSTATS_FLOOR_HITS / Max(pr.n, 1) + fp;
	}
	if (pr.unknown > 0)
		sel = (sel * wsum + Max(BF_DEFAULT_CONTAIN_SEL, fp) * pr.unknown) / (wsum + pr.unknown);
	sel *= 1 - pr.nullfrac;
	probes_free(&pr);
	CLAMP_PROBABILITY(sel);
	return sel;
}

/* a join counts at most this many of the element column's statistics values */
#define BF_JOIN_PROBES	100

/*
 * The statistics values pr of an element column counted in the bloofi index
 * of the filter column vardata, for a join: its most common values first,
 * then histogram bounds at even steps in a spread order (bloofi_probe_values
 * counts a prefix of them, within its work budget), weighted as the
 * statistics weigh them, the bounds counted standing for the whole
 * histogram; the most common values not counted and the share the
 * statistics do not describe (or the histogram, if none of its bounds was
 * counted) take the statistics' estimate.  The filter sample sees an element
 * held by a few of tens of thousands of sets as a fraction of a hit: a join
 * of such elements read 0.2-1.2x its rows from one ANALYZE to the next
 * (docs/planner.md, "Joins").  semi_rows as for column_fraction (> 0: the
 * share of element rows with a match).  The fraction of non-null element
 * rows; -1 when the probe does not apply (no bloofi index, the probe off) or
 * stopped at its node limit on one of the values.
 */
static double
probed_fraction(VariableStatData *vardata, const BfColumnStats *cs, Probes *pr,
				double semi_rows)
{
	double		rows = vardata->rel ? vardata->rel->tuples : 0;
	Datum		vals[BF_JOIN_PROBES];
	int			at[BF_JOIN_PROBES];
	double		matches[BF_JOIN_PROBES],
				acc = 0,
				wsum = 0,
				hist_acc = 0,
				hist_w = 0,
				rest = pr->unknown;
	int			nmcv = pr->mcv.nvalues,
				nhist = pr->n - nmcv,
				nm = Min(nmcv, BF_JOIN_PROBES),
				nh = Min(nhist, BF_JOIN_PROBES - nm),
				got,
				raw = 0;

	if (rows <= 0)
		return -1;
	for (int i = 0; i < nm + nh; i++)
	{
		at[i] = i < nm ? i : nmcv + (nh > 1 ? (int) ((int64) bloofi_spread_next(nh, &raw) *
													 (nhist - 1) / (nh - 1)) : nhist / 2);
		vals[i] = pr->values[at[i]];
	}
	if ((got = bloofi_probe_values(vardata, vals, pr->typid, nm + nh, matches)) < 0)
		return -1;
	for (int i = 0; i < got; i++)
	{
		double		f = semi_rows > 0 ? (matches[i] > 0 ? 1.0 : 0.0) : Min(matches[i] / rows, 1.0);

		if (i < nm)
		{
			acc += pr->weights[at[i]] * f;
			wsum += pr->weights[at[i]];
		}
		else
			hist_acc += f;
	}
	for (int j = nmcv; j < pr->n; j++)
		hist_w += pr->weights[j];
	if (got > nm)
	{
		acc += hist_w * hist_acc / (got - nm);
		wsum += hist_w;
	}
	else
		rest += hist_w;
	for (int j = Min(got, nm); j < nmcv; j++)
		rest += pr->weights[j];
	if (rest > 0)
		acc += rest * column_fraction(cs, false, (Datum) 0, InvalidOid, pr, semi_rows);
	return acc / Max(wsum + rest, 1e-10);
}

/*
 * Mean fraction of the filter column's rows matching an element of the
 * element expression elem: over the elements its statistics describe, else
 * an unknown element.  semi_rows as for column_fraction.  probe (a join's
 * filter column, else NULL): those elements counted in its bloofi index
 * when it has one (probed_fraction).  *ndistinct (when not NULL): elem's
 * distinct values by its statistics, -1 when they do not know.
 */
static double
fraction_for_elem_expr(PlannerInfo *root, const BfColumnStats *cs, Node *elem,
					   double semi_rows, VariableStatData *probe, double *ndistinct)
{
	VariableStatData evd;
	Probes		pr;
	double		sel;

	examine_variable(root, strip_elem_cast(elem), 0, &evd);
	if (ndistinct)
	{
		bool		isdefault;

		*ndistinct = get_variable_numdistinct(&evd, &isdefault);
		if (isdefault || *ndistinct < 1)
			*ndistinct = -1;
	}
	if (probes_from_stats(&evd, &pr))
	{
		sel = probe ? probed_fraction(probe, cs, &pr, semi_rows) : -1;
		if (sel < 0)
			sel = column_fraction(cs, false, (Datum) 0, InvalidOid, &pr, semi_rows);
		/* a NULL element matches nothing */
		sel *= 1 - pr.nullfrac;
		probes_free(&pr);
	}
	else
		sel = column_fraction(cs, false, (Datum) 0, InvalidOid, NULL, semi_rows);
	ReleaseVariableStats(evd);
	return sel;
}

/*
 * Fraction of the filter column's rows (vardata, with statistics cs) whose
 * filter passes the constant element c: counted in the column's bloofi
 * index when it has one (bloofi_planprobe.c; entries counted over the
 * table's rows as the planner estimates them now); when the probe stopped
 * at its node limit, or does not apply, the statistics' estimate, at least
 * the matches the probe counted
 */
static double
const_elem_fraction(VariableStatData *vardata, const BfColumnStats *cs, const Const *c)
{
	bool		complete;
	double		rows = vardata->rel ? vardata->rel->tuples : 0;
	double		matches = rows > 0 ?
		bloofi_probe_rows(vardata, c->constvalue, c->consttype, &complete) : -1;
	double		sel;

	if (matches >= 0 && complete)
		return Min(matches / rows, 1.0);
	sel = column_fraction(cs, true, c->constvalue, c->consttype, NULL, 0);
	if (matches > 0)
		sel = Max(sel, Min(matches / rows, 1.0));
	return sel;
}

/*
 * Fraction of the filter column's rows (vardata, with statistics cs) whose
 * filter passes the element expression elem, not a constant: when it reads
 * no column (a generic plan's $1, a function of parameters) and this backend
 * has probed the column's bloofi index, the probes' mean
 * (bloofi_probe_mean_rows), the mean of the lookups the custom plans
 * counted; else the statistics' mean over the elements elem can take
 */
static double
nonconst_elem_fraction(PlannerInfo *root, VariableStatData *vardata,
					   const BfColumnStats *cs, Node *elem)
{
	double		rows = vardata->rel ? vardata->rel->tuples : 0;
	double		mean = rows > 0 && !contain_var_clause(elem) ?
		bloofi_probe_mean_rows(vardata) : -1;

	if (mean >= 0)
		return Min(mean / rows, 1.0);
	return fraction_for_elem_expr(root, cs, elem, 0, NULL, NULL);
}

/* selectivity of a restriction clause (args), filter on the left or the right */
static Selectivity
contains_restriction(PlannerInfo *root, List *args, int varRelid, bool filter_right)
{
	VariableStatData vardata;
	Node	   *other;
	bool		varonleft;
	double		sel = BF_DEFAULT_CONTAIN_SEL;

	if (!get_restriction_variable(root, args, varRelid, &vardata, &other, &varonleft))
		return sel;
	if (varonleft != filter_right)
	{
		/* the filter is the variable */
		const BfColumnStats *cs = bf_column_stats(&vardata);

		if (IsA(other, Const) && ((Const *) other)->constisnull)
			sel = 0;
		else if (cs == NULL)
			sel = BF_DEFAULT_CONTAIN_SEL;
		else if (IsA(other, Const) && elem_type_ok(((Const *) other)->consttype))
			sel = const_elem_fraction(&vardata, cs, (Const *) other);
		else
			sel = nonconst_elem_fraction(root, &vardata, cs, other);
	}
	else if (IsA(other, Const))
	{
		/* an element column against a constant filter */
		if (((Const *) other)->constisnull)
			sel = 0;
		else
			sel = const_filter_fraction(&vardata, ((Const *) other)->constvalue);
	}
	ReleaseVariableStats(vardata);
	CLAMP_PROBABILITY(sel);
	return sel;
}

/*
 * selectivity of a join clause: matches per pair; for a semi- or anti-join
 * (whose caller takes 1 - this for the anti-join) the chance that a row of
 * the outer side meets at least one match on the inner side
 */
static Selectivity
contains_join(PlannerInfo *root, List *args, JoinType jointype, SpecialJoinInfo *sjinfo,
			  bool filter_right)
{
	Node	   *fexpr = (Node *) (filter_right ? lsecond(args) : linitial(args));
	Node	   *eexpr = (Node *) (filter_right ? linitial(args) : lsecond(args));
	VariableStatData fvd;
	const BfColumnStats *cs;
	double		sel;

	examine_variable(root, fexpr, 0, &fvd);
	cs = bf_column_stats(&fvd);
	if (cs == NULL)
		sel = BF_DEFAULT_CONTAIN_SEL;
	else if ((jointype == JOIN_SEMI || jointype == JOIN_ANTI) && sjinfo != NULL)
	{
		Relids		frels = pull_varnos(root, fexpr);
		Relids		erels = pull_varnos(root, eexpr);
		int			relid;

		if (fvd.rel && bms_is_subset(erels, sjinfo->min_lefthand) &&
			!bms_overlap(frels, sjinfo->min_lefthand))
		{
			/* elements outside, filters inside: each element's chance of a match */
			sel = fraction_for_elem_expr(root, cs, eexpr,
										 Max(fvd.rel->rows * (1 - cs->nullfrac), 1), &fvd, NULL);
		}
		else if (bms_is_subset(frels, sjinfo->min_lefthand) &&
				 bms_get_singleton_member(erels, &relid) &&
				 !bms_overlap(erels, sjinfo->min_lefthand))
		{
			/*
			 * filters outside: each meets every element of the inside, whose
			 * rows holding one value add one chance between them (n: the
			 * distinct values when the statistics know them, else the rows)
			 */
			double		n = find_base_rel(root, relid)->rows,
						nd;

			sel = fraction_for_elem_expr(root, cs, eexpr, 0, &fvd, &nd) /
				Max(1 - cs->nullfrac, 1e-10);
			if (nd >= 1)
				n = Min(n, nd);
			sel = -expm1(n * log1p(-Min(sel, 0.999999)));
			sel *= 1 - cs->nullfrac;
		}
		else
			sel = fraction_for_elem_expr(root, cs, eexpr, 0, NULL, NULL);
	}
	else
		sel = fraction_for_elem_expr(root, cs, eexpr, 0, &fvd, NULL);
	ReleaseVariableStats(fvd);
	CLAMP_PROBABILITY(sel);
	return sel;
}

/*
 * bloom_contsel(internal, oid, internal, integer): restriction estimator of
 * @> and <@ (and, through bloofi_contsel, of 1.0's operators)
 */
Datum
bloom_contsel(PG_FUNCTION_ARGS)
{
	PlannerInfo *root = (PlannerInfo *) PG_GETARG_POINTER(0);
	Oid			operator = PG_GETARG_OID(1);
	List	   *args = (List *) PG_GETARG_POINTER(2);
	int			varRelid = PG_GETARG_INT32(3);
	Oid			ltype,
				rtype;

	if (list_length(args) != 2)
		PG_RETURN_FLOAT8(BF_DEFAULT_CONTAIN_SEL);
	op_input_types(operator, &ltype, &rtype);
	PG_RETURN_FLOAT8(contains_restriction(root, args, varRelid, filter_on_right(ltype)));
}

/* bloom_contjoinsel(internal, oid, internal, smallint, internal): join estimator of @> and <@ */
Datum
bloom_contjoinsel(PG_FUNCTION_ARGS)
{
	PlannerInfo *root = (PlannerInfo *) PG_GETARG_POINTER(0);
	Oid			operator = PG_GETARG_OID(1);
	List	   *args = (List *) PG_GETARG_POINTER(2);
	JoinType	jointype = (JoinType) PG_GETARG_INT16(3);
	SpecialJoinInfo *sjinfo = (SpecialJoinInfo *) PG_GETARG_POINTER(4);
	Oid			ltype,
				rtype;

	if (list_length(args) != 2)
		PG_RETURN_FLOAT8(BF_DEFAULT_CONTAIN_SEL);
	op_input_types(operator, &ltype, &rtype);
	PG_RETURN_FLOAT8(contains_join(root, args, jointype, sjinfo, filter_on_right(ltype)));
}

/* ---- the support function ------------------------------------------------ */

/* the arguments of an operator or function call, else NIL */
static List *
expr_args(Node *node)
{
	if (node == NULL)
		return NIL;
	if (IsA(node, OpExpr))
		return ((OpExpr *) node)->args;
	if (IsA(node, FuncExpr))
		return ((FuncExpr *) node)->args;
	return NIL;
}

/*
 * bloom_contains(f, x) / bloom_contained(x, f) on the index column: the
 * operator @> (f, x) of the index's operator family
 */
static List *
contains_index_condition(SupportRequestIndexCondition *req, FilterFn fn)
{
	List	   *args = expr_args(req->node);
	int			farg = fn == FN_CONTAINS ? 0 : 1;
	Node	   *f,
			   *x;
	Oid			opno;

	if (!IsA(req->node, FuncExpr) || list_length(args) != 2 || req->indexarg != farg)
		return NIL;
	f = (Node *) list_nth(args, farg);
	x = (Node *) list_nth(args, 1 - farg);
	opno = get_opfamily_member(req->opfamily, exprType(f), exprType(x), 1);
	if (!OidIsValid(opno) || contain_volatile_functions(x) ||
		bms_is_member(req->index->rel->relid, pull_varnos(req->root, x)))
		return NIL;
	req->lossy = false;
	return list_make1(make_opclause(opno, BOOLOID, false, (Expr *) f, (Expr *) x,
									InvalidOid, InvalidOid));
}

/*
 * bloomfilter_support(internal) -> internal: planner support of the
 * functions that read whole filters (costs), and of bloom_contains /
 * bloom_contained (selectivity; an index condition on a bloofi index)
 */
Datum
bloomfilter_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);

	if (IsA(rawreq, SupportRequestCost))
	{
		SupportRequestCost *req = (SupportRequestCost *) rawreq;
		double		c;

		if (req->root == NULL || req->node == NULL)
			PG_RETURN_POINTER(NULL);
		c = bf_filter_fn_cost(req->root, bf_filter_fn_of(req->funcid), expr_args(req->node));
		if (c < 0)
			PG_RETURN_POINTER(NULL);
		req->startup = 0;
		req->per_tuple = c * cpu_operator_cost;
		PG_RETURN_POINTER(req);
	}
	if (IsA(rawreq, SupportRequestSelectivity))
	{
		SupportRequestSelectivity *req = (SupportRequestSelectivity *) rawreq;
		FilterFn	fn = bf_filter_fn_of(req->funcid);

		if ((fn != FN_CONTAINS && fn != FN_CONTAINED) || list_length(req->args) != 2)
			PG_RETURN_POINTER(NULL);
		if (req->is_join)
			req->selectivity = contains_join(req->root, req->args, req->jointype,
											 req->sjinfo, fn == FN_CONTAINED);
		else
			req->selectivity = contains_restriction(req->root, req->args, req->varRelid,
													fn == FN_CONTAINED);
		PG_RETURN_POINTER(req);
	}
	if (IsA(rawreq, SupportRequestIndexCondition))
	{
		SupportRequestIndexCondition *req = (SupportRequestIndexCondition *) rawreq;
		FilterFn	fn = bf_filter_fn_of(req->funcid);

		if (fn != FN_CONTAINS && fn != FN_CONTAINED)
			PG_RETURN_POINTER(NULL);
		PG_RETURN_POINTER(contains_index_condition(req, fn));
	}
	PG_RETURN_POINTER(NULL);
}
