/*
 * bloofi_cost.c
 *    The planner's cost of a Bloofi index scan (amcostestimate).
 *
 * A lookup's work depends on the tree's shape, which the planner does not
 * read page by page: the first costing of an index in a backend walks its
 * top levels once (the metapage, then per level the headers, values and
 * child slots of at most PROFILE_NODES nodes, the rest extrapolated) into a
 * profile kept in the relcache entry (rd_amcache; rebuilt after any
 * relcache invalidation of the index, such as ANALYZE or VACUUM of its
 * table, or REINDEX).  Each planning then costs a lookup from the profile
 * and the column statistics without reading a page:
 *
 *   matches   = selectivity (bloomfilter_selfuncs.c: from the statistics'
 *               sample, for the constant, for the other side's values, or
 *               for an unknown element) * rows
 *   work      = bloofi_lookup_work (src/core/bloofi_lookup_model.c): the
 *               nodes opened, pages read, words ANDed, level by level, the
 *               profile's node counts scaled to the table's current rows
 *   pages     = 2 metapage reads (random_page_cost) + the pending list +
 *               work.pages (node headers at random_page_cost, the rest at
 *               seq_page_cost; every node page at seq_page_cost when the
 *               index fits in effective_cache_size); on the inner side of a nested loop
 *               (loop_count > 1) the pages the loops read again are
 *               amortized as index_pages_fetched says, as PostgreSQL's
 *               generic index costing does
 *   cpu       = per element hashed, per word ANDed, per node opened, per
 *               pending entry tested, per match returned
 *
 * bloofi_contsel, the restriction estimator of version 1.0, is the same
 * estimator as 1.1's bloom_contsel (it no longer probes the index).
 *
 * Design notes: docs/planner.md (the cost model) and docs/bloofi.md.
 */
#include "postgres.h"

#include <math.h>

#include "access/genam.h"
#include "miscadmin.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/selfuncs.h"
#include "utils/spccache.h"

#include "bloofi.h"
#include "bloofi_lookup_model.h"
#include "bloomfilter_stats.h"

PG_FUNCTION_INFO_V1(bloofi_contsel);

/* nodes read per level when profiling, and the most pages of a value read */
#define PROFILE_NODES		16
#define PROFILE_VALUE_PAGES	8

/* cpu costs, in units of cpu_operator_cost (docs/planner.md) */
#define COST_HASH			10.0	/* hashing one element into its positions */
#define COST_WORD			0.3 /* ANDing one 64-bit word of a slice */
#define COST_NODE			10.0	/* opening a node: header, geometry,
									 * buffers */
#define COST_PENDING_POS	0.5 /* one position of one pending entry */

typedef struct BloofiCostProfile
{
	bool		have_params;
	BsParams	params;
	double		leaves;			/* leaves under the root when profiled */
	double		pending;		/* entries of the pending chains */
	double		pending_pages;
	bool		root_tested;	/* the root's value is tested (not saturated) */
	int			nlevels;
	BloofiLevelProfile levels[BLOOFI_MAX_HEIGHT];
} BloofiCostProfile;

/* fill^k of a node's value */
static double
node_value_fp(Relation irel, const BloofiNode *node, uint8 *buf, uint32 k)
{
	bloofi_node_read_value(irel, node, buf);
	return pow((double) bs_popcount(buf, bs_words_for_bits(node->geom.m)) / node->geom.m, k);
}

/*
 * Walk the top of the tree into prof: level by level from the root, up to
 * PROFILE_NODES nodes of each level (spread over the children the sampled
 * nodes of the level above have), the level's node count extrapolated from
 * their mean fan-out.
 */
static void
profile_tree(Relation irel, const BloofiMetaData *meta, BloofiCostProfile *prof)
{
	BlockNumber *cur = palloc(sizeof(BlockNumber) * PROFILE_NODES);
	int			ncur = 1;
	double		nodes = 1;
	uint8	   *value = palloc(BF_NBYTES(meta->m));

	cur[0] = meta->root;
	for (int lvl = 0; lvl < BLOOFI_MAX_HEIGHT && ncur > 0; lvl++)
	{
		BloofiLevelProfile *L = &prof->levels[lvl];
		BlockNumber *next = NULL;
		uint32		nnext = 0,
					capnext = 0;
		bool		bottom = false;

		CHECK_FOR_INTERRUPTS();
		for (int i = 0; i < ncur; i++)
		{
			BloofiNode	X;

			bloofi_node_read(irel, meta, cur[i], &X);
			L->children += X.nlive;
			L->slice_words += X.geom.slice_words;
			L->slice_pages += X.geom.slice_pages;
			L->tid_pages += X.geom.tid_pages;
			L->value_pages += X.geom.value_pages;
			if (lvl == 0)
				prof->root_tested = !(X.flags & BLOOFI_NODE_SATURATED);

			/*
			 * a value of many pages (filters of megabytes) is taken as
			 * saturated
			 */
			L->value_fp += ((lvl == 0 && !prof->root_tested) ||
							X.geom.value_pages > PROFILE_VALUE_PAGES) ? 1 :
				node_value_fp(irel, &X, value, meta->k);
			if (X.level == 0)
			{
				bottom = true;
				continue;
			}
			/* children of inner nodes, for the next level's sample */
			{
				ItemPointerData *tids = palloc(sizeof(ItemPointerData) * Max(X.nused, 1));

				bloofi_node_read_tids(irel, &X, X.nused, tids);
				for (uint32 s = 0; s < X.nused; s++)
				{
					if (!ItemPointerIsValid(&tids[s]))
						continue;
					if (nnext == capnext)
					{
						capnext = Max(64, capnext * 2);
						next = next ? repalloc(next, sizeof(BlockNumber) * capnext) :
							palloc(sizeof(BlockNumber) * capnext);
					}
					next[nnext++] = ItemPointerGetBlockNumber(&tids[s]);
				}
				pfree(tids);
			}
		}
		L->nodes = nodes;
		L->children /= ncur;
		L->slice_words /= ncur;
		L->slice_pages /= ncur;
		L->tid_pages /= ncur;
		L->value_pages /= ncur;
		L->value_fp /= ncur;
		prof->nlevels = lvl + 1;
		nodes *= Max(L->children, 1);
		if (bottom || nnext == 0)
		{
			prof->leaves = nodes;
			if (next)
				pfree(next);
			break;
		}
		/* the next level's sample: an even stride over the children found */
		ncur = Min((int) nnext, PROFILE_NODES);
		for (int i = 0; i < ncur; i++)
			cur[i] = next[(uint32) (((double) i + 0.5) * nnext / ncur)];
		pfree(next);
	}
	pfree(value);
	pfree(cur);
}

/* the index's profile: from rd_amcache, or read now (once per relcache entry) */
static const BloofiCostProfile *
bloofi_cost_profile(Relation irel)
{
	BloofiCostProfile *prof;
	BloofiMetaData *meta;

	if (irel->rd_amcache)
		return (const BloofiCostProfile *) irel->rd_amcache;
	prof = MemoryContextAllocZero(irel->rd_indexcxt, sizeof(BloofiCostProfile));
	meta = bloofi_read_meta(irel);
	prof->have_params = meta->have_params != 0;
	if (prof->have_params)
	{
		bloofi_params(meta, &prof->params);
		prof->pending = meta->npending;
		prof->pending_pages = bloofi_pending_pages_estimate(meta);
		if (meta->root != InvalidBlockNumber)
			profile_tree(irel, meta, prof);
	}
	pfree(meta);
	irel->rd_amcache = prof;
	return prof;
}

/*
 * An index that does not exist (an index adviser's hypothetical one): a
 * root over bottom nodes of 2d leaves of 1,024-bit filters, every node
 * opened (what a saturated tree costs)
 */
static void
hypothetical_profile(IndexOptInfo *index, BloofiCostProfile *prof)
{
	double		n = Max(index->tuples, 1);
	double		fan = 2 * BLOOFI_DEFAULT_ORDER;
	BloofiGeometry g;

	memset(prof, 0, sizeof(*prof));
	prof->leaves = n;
	prof->nlevels = 2;
	if (!bloofi_geometry(&g, 1024, bloofi_round_capacity((uint64) fan + 2, BLOOFI_MAX_CAP),
						 BLOOFI_PAGE_BYTES))
		return;
	prof->levels[0].nodes = 1;
	prof->levels[0].children = ceil(n / fan);
	prof->levels[0].slice_words = ceil(prof->levels[0].children / 64);
	prof->levels[0].slice_pages = ceil(1024 * ceil(prof->levels[0].children / 8) /
									   BLOOFI_PAGE_BYTES);
	prof->levels[0].tid_pages = ceil(prof->levels[0].children / g.tids_per_page);
	prof->levels[0].value_pages = 1;
	prof->levels[0].value_fp = 1;
	prof->levels[1].nodes = prof->levels[0].children;
	prof->levels[1].children = fan;
	prof->levels[1].slice_words = g.slice_words;
	prof->levels[1].slice_pages = g.slice_pages;
	prof->levels[1].tid_pages = g.tid_pages;
	prof->levels[1].value_pages = g.value_pages;
	prof->levels[1].value_fp = 1;
}

void
bloofi_costestimate(PlannerInfo *root, IndexPath *path, double loop_count,
					Cost *indexStartupCost, Cost *indexTotalCost,
					Selectivity *indexSelectivity, double *indexCorrelation,
					double *indexPages)
{
	IndexOptInfo *index = path->indexinfo;
	List	   *quals = get_quals_from_indexclauses(path->indexclauses);
	int			nquals = Max(list_length(quals), 1);
	Relation	irel;
	BloofiCostProfile prof;
	BloofiLevelProfile levels[BLOOFI_MAX_HEIGHT];
	BloofiLookupWork work;
	Selectivity sel;
	double		rows = Max(index->rel->tuples, 0);
	double		matches,
				pages,
				cpu,
				page_cost,
				spc_random_page_cost,
				spc_seq_page_cost;
	int			npos;

	/* the profile (a copy: a relcache invalidation may free rd_amcache) */
	if (index->hypothetical)
		hypothetical_profile(index, &prof);
	else
	{
		irel = index_open(index->indexoid, NoLock);
		memcpy(&prof, bloofi_cost_profile(irel), sizeof(prof));
		index_close(irel, NoLock);
	}

	sel = clauselist_selectivity(root, quals, index->rel->relid, JOIN_INNER, NULL);
	matches = sel * rows;
	npos = (prof.have_params ? prof.params.k : 8) * nquals;

	/* the tree as profiled, its levels' node counts scaled to today's rows */
	memcpy(levels, prof.levels, sizeof(BloofiLevelProfile) * prof.nlevels);
	if (prof.leaves > 0 && rows > 0)
		for (int i = 1; i < prof.nlevels; i++)
			levels[i].nodes *= Max(rows - prof.pending, 1) / prof.leaves;
	bloofi_lookup_work(levels, prof.nlevels, npos, prof.root_tested, matches, &work);

	pages = 2 + prof.pending_pages + work.pages;
	cpu = cpu_operator_cost * (COST_HASH * nquals + COST_WORD * work.words +
							   COST_NODE * work.nodes_opened +
							   COST_PENDING_POS * prof.pending * npos) +
		cpu_index_tuple_cost * matches;
	get_tablespace_page_costs(index->reltablespace, &spc_random_page_cost, &spc_seq_page_cost);

	/*
	 * the metapage and each node's first page at random, the node's other
	 * pages (in its contiguous run, read in ascending order) sequentially
	 */
	page_cost = (2 + work.headers) * spc_random_page_cost +
		(work.pages - work.headers + prof.pending_pages) * spc_seq_page_cost;

	/*
	 * an index that fits in effective_cache_size: the node headers are
	 * cached pages, no seek (measured, test/bench/18_costs.sh: a lookup of
	 * 29 nodes on a 3,000-filter tree takes 1/6 of the sequential scan that
	 * random_page_cost per header costed below it, once `f @> x` is charged
	 * its measured CPU)
	 */
	if (index->pages <= effective_cache_size)
		page_cost = 2 * spc_random_page_cost +
			(work.pages + prof.pending_pages) * spc_seq_page_cost;
	if (loop_count > 1)
	{
		/* the share of the pages the loops read that are not read before */
		double		fetched = index_pages_fetched(pages * loop_count, index->pages,
												  (double) index->pages, root);

		page_cost *= Min(fetched / (pages * loop_count), 1.0);
	}
	*indexTotalCost = page_cost + cpu;
	elog(DEBUG1, "bloofi cost of %s: sel %g matches %g levels %d opened %g pages %g "
		 "(headers %g) words %g tested %g loops %g cost %g",
		 get_rel_name(index->indexoid), sel, matches, prof.nlevels, work.nodes_opened, pages,
		 work.headers, work.words, work.values_tested, loop_count, *indexTotalCost);
	/* the comparison values are computed once per scan */
	*indexStartupCost = 0;
	*indexSelectivity = sel;
	*indexCorrelation = 0;
	*indexPages = pages;
}

/* bloofi_contsel(internal, oid, internal, integer): 1.0's name of bloom_contsel */
Datum
bloofi_contsel(PG_FUNCTION_ARGS)
{
	return bloom_contsel(fcinfo);
}
