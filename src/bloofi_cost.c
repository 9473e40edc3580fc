/*
 * bloofi_cost.c
 *    Planner support for Bloofi: the index cost model and a selectivity
 *    estimator for `filter @> elem` / `elem <@ filter`.
 *
 * Cost: a lookup reads the root's value, then at each node it visits its
 * header and up to (k * quals) slice pages (the root's as they are, the
 * others' as a node of order d has them); it visits about one node per
 * level below the root for each match (and at least one path), so
 * (height - 1) * (1 + matches) nodes at most, plus the tid pages of the
 * matches; each page is charged
 * random_page_cost (as GIN charges its entry pages), the AND of slices
 * cpu_operator_cost per 64-bit word.
 *
 * Selectivity: the fraction of rows whose filter contains the element is not
 * derivable from column statistics (a filter is an opaque bit array), but a
 * bloofi index on the column answers it cheaply: bloofi_contsel probes the
 * pending list and about BLOOFI_SAMPLE_LEAVES leaves reached by random
 * descents of the tree (bloofi_sample) and returns matches / leaves seen (at least half a
 * match, so "none in the sample" still means "rare", not "impossible").  Without such an index it falls
 * back to contsel's 0.001.
 */
#include "postgres.h"

#include <math.h>

#include "access/genam.h"
#include "catalog/pg_am.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/spccache.h"

#include "bloofi.h"

#define BLOOFI_SAMPLE_LEAVES	4096
#define BLOOFI_DEFAULT_SEL		0.001

PG_FUNCTION_INFO_V1(bloofi_contsel);

void
bloofi_costestimate(PlannerInfo *root, IndexPath *path, double loop_count,
					Cost *indexStartupCost, Cost *indexTotalCost,
					Selectivity *indexSelectivity, double *indexCorrelation,
					double *indexPages)
{
	IndexOptInfo *index = path->indexinfo;
	GenericCosts costs;
	Relation	irel;
	BloofiMetaData *meta;
	double		spc_random_page_cost;
	double		pages = 1;
	double		words = 0;
	int			nquals = Max(list_length(path->indexclauses), 1);

	MemSet(&costs, 0, sizeof(costs));
	genericcostestimate(root, path, loop_count, &costs);

	irel = index_open(index->indexoid, AccessShareLock);
	meta = bloofi_read_meta(irel);
	if (meta->root != InvalidBlockNumber)
	{
		BloofiNode	root;
		BloofiGeometry node;
		double		visited;
		double		kq = (double) meta->k * nquals;

		/* the root, as it is (a wide root is larger than the nodes below it) */
		bloofi_node_read(irel, meta, meta->root, &root);
		pages += 1 + 1 + Min(kq, (double) root.geom.slice_pages);
		words += kq * root.geom.slice_words;
		/* the other nodes visited, as nodes of order d */
		if (!bloofi_geometry(&node, meta->m, bloofi_node_cap(meta->order, 0), BLOOFI_PAGE_BYTES))
			node = root.geom;
		visited = Min((double) (meta->height - 1) * (1 + costs.numIndexTuples),
					  Max(costs.numIndexTuples, 1) + meta->height * 2.0 * meta->order);
		pages += visited * (1 + Min(kq, (double) node.slice_pages));
		words += visited * kq * node.slice_words;
		pages += costs.numIndexTuples / node.tids_per_page;
	}
	if (meta->have_params && bloofi_pending_usable(meta))
	{
		/* the pending list: every entry tested, up to a flush's worth */
		double		per = BLOOFI_PAGE_BYTES / BLOOFI_PENDING_ENTRY(8 * bs_words_for_bits(meta->m));

		pages += ceil(meta->npending / per);
		words += (double) meta->npending * meta->k * nquals;
	}
	index_close(irel, AccessShareLock);

	get_tablespace_page_costs(index->reltablespace, &spc_random_page_cost, NULL);
	*indexStartupCost = 0;
	*indexTotalCost = pages * spc_random_page_cost + words * cpu_operator_cost +
		costs.numIndexTuples * cpu_index_tuple_cost;
	*indexSelectivity = costs.indexSelectivity;
	*indexCorrelation = 0;
	*indexPages = pages;
}

/* the single-column, non-partial bloofi index on var's column, if any */
static Oid
bloofi_index_for(VariableStatData *vardata)
{
	ListCell   *lc;
	Var		   *var;
	Oid			amoid;

	if (vardata->rel == NULL || vardata->var == NULL || !IsA(vardata->var, Var))
		return InvalidOid;
	var = (Var *) vardata->var;
	amoid = get_index_am_oid("bloofi", true);
	if (!OidIsValid(amoid))
		return InvalidOid;
	foreach(lc, vardata->rel->indexlist)
	{
		IndexOptInfo *ix = (IndexOptInfo *) lfirst(lc);

		if (ix->relam == amoid && ix->ncolumns == 1 && ix->indpred == NIL &&
			ix->indexkeys[0] == var->varattno)
			return ix->indexoid;
	}
	return InvalidOid;
}

Datum
bloofi_contsel(PG_FUNCTION_ARGS)
{
	PlannerInfo *root = (PlannerInfo *) PG_GETARG_POINTER(0);
	List	   *args = (List *) PG_GETARG_POINTER(2);
	int			varRelid = PG_GETARG_INT32(3);
	VariableStatData vardata;
	Node	   *other;
	bool		varonleft;
	Const	   *c;
	Oid			indexoid;
	double		sel = BLOOFI_DEFAULT_SEL;

	if (!get_restriction_variable(root, args, varRelid, &vardata, &other, &varonleft))
		PG_RETURN_FLOAT8(BLOOFI_DEFAULT_SEL);
	if (!IsA(other, Const))
	{
		ReleaseVariableStats(vardata);
		PG_RETURN_FLOAT8(BLOOFI_DEFAULT_SEL);
	}
	c = (Const *) other;
	if (c->constisnull)
	{
		ReleaseVariableStats(vardata);
		PG_RETURN_FLOAT8(0.0);
	}
	switch (c->consttype)
	{
		case INT8OID:
		case INT4OID:
		case INT2OID:
		case TEXTOID:
		case VARCHAROID:
		case BYTEAOID:
		case UUIDOID:
			break;
		default:
			ReleaseVariableStats(vardata);
			PG_RETURN_FLOAT8(BLOOFI_DEFAULT_SEL);
	}

	indexoid = bloofi_index_for(&vardata);
	if (OidIsValid(indexoid))
	{
		Relation	irel = index_open(indexoid, AccessShareLock);
		BloofiMetaData *meta = bloofi_read_meta(irel);

		if (meta->have_params)
		{
			BsParams	p;
			BsHasher	h;
			uint32		pos[BS_MAX_K];
			uint32		npos;
			BloofiSearchStats st = {0, 0, 0};
			double		matches,
						seen;

			bloofi_params(meta, &p);
			bs_hasher_init(&h, &p);
			bs_key_positions(&h, bloofi_elem_key(&h, c->constvalue, c->consttype), pos);
			npos = bloofi_sort_positions(pos, p.k);
			bloofi_pending_search(irel, meta, pos, npos, NULL, NULL, &st);
			matches = st.matches;
			seen = st.leaves_seen;
			bloofi_sample(irel, meta, pos, npos, BLOOFI_SAMPLE_LEAVES, &matches, &seen);
			if (seen > 0)
				sel = Max(matches, 0.5) / seen;
		}
		index_close(irel, AccessShareLock);
	}
	ReleaseVariableStats(vardata);
	CLAMP_PROBABILITY(sel);
	PG_RETURN_FLOAT8(sel);
}
