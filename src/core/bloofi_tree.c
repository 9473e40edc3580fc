/*
 * bloofi_tree.c
 *    The rules of the multi-level Bloofi tree: split choice, Hamming-closest
 *    descent, the no-split rule, bulk-build level sizes and their cost model
 *    (PostgreSQL-independent, allocation-free; see bloofi_tree.h).
 *
 * Design notes: docs/bloofi.md.
 */
#include "bloofi_tree.h"

#include <math.h>
#include <string.h>

#include "bs_bits.h"

uint64_t
bloofi_tree_hamming(const uint8_t *a, const uint8_t *b, size_t nwords)
{
	BsPairCounts c = bs_pair_counts(a, b, nwords);

	return c.a + c.b - 2 * c.and;
}

int
bloofi_tree_closest(const uint8_t *const *vals, int n, const uint8_t *filter, size_t nwords)
{
	int			best = -1;
	uint64_t	bestd = 0;

	for (int i = 0; i < n; i++)
	{
		uint64_t	dist = bloofi_tree_hamming(vals[i], filter, nwords);

		if (best < 0 || dist < bestd)
		{
			best = i;
			bestd = dist;
		}
	}
	return best;
}

bool
bloofi_tree_all_ones(const uint8_t *bits, uint32_t m)
{
	uint32_t	full = m / 64;

	for (uint32_t w = 0; w < full; w++)
		if (bs_load64le(bits + 8 * (size_t) w) != UINT64_MAX)
			return false;
	if (m % 64)
	{
		uint64_t	mask = (UINT64_C(1) << (m % 64)) - 1;

		if ((bs_load64le(bits + 8 * (size_t) full) & mask) != mask)
			return false;
	}
	return true;
}

bool
bloofi_tree_saturated(const uint8_t *bits, uint32_t m, int k)
{
	double		fill = (double) bs_popcount(bits, bs_words_for_bits(m)) / m;

	/* bits past m are clear in every value the tree holds */
	return pow(fill, k) > 0.5;
}

bool
bloofi_tree_unsplittable(const uint8_t *val, uint32_t m, int k, BloofiSplitRule rule)
{
	switch (rule)
	{
		case BLOOFI_NOSPLIT_ALL_ONES:
			return bloofi_tree_all_ones(val, m);
		case BLOOFI_NOSPLIT_SATURATED:
			return bloofi_tree_saturated(val, m, k);
		default:
			return false;
	}
}

bool
bloofi_tree_must_split(int nchild, int d, const uint8_t *val, uint32_t m, int k,
					   BloofiSplitRule rule)
{
	if (nchild <= 2 * d)
		return false;
	return !bloofi_tree_unsplittable(val, m, k, rule);
}

void
bloofi_tree_split_choice(const uint8_t *const *vals, int n, int min_side,
						 size_t nwords, uint8_t *side, uint64_t *scratch)
{
	uint8_t    *acc[2];
	int			size[2] = {0, 0};
	int			s0 = 0,
				s1 = 1;
	uint64_t	far = 0;
	int			left;

	acc[0] = (uint8_t *) scratch;
	acc[1] = (uint8_t *) (scratch + nwords);

	/* seeds: the two children farthest apart */
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
		{
			uint64_t	dist = bloofi_tree_hamming(vals[i], vals[j], nwords);

			if ((i == 0 && j == 1) || dist > far)
			{
				far = dist;
				s0 = i;
				s1 = j;
			}
		}
	memcpy(acc[0], vals[s0], 8 * nwords);
	memcpy(acc[1], vals[s1], 8 * nwords);
	side[s0] = 0;
	side[s1] = 1;
	size[0] = size[1] = 1;
	left = n - 2;

	for (int i = 0; i < n; i++)
	{
		int			s;

		if (i == s0 || i == s1)
			continue;
		if (size[0] + left <= min_side)
			s = 0;
		else if (size[1] + left <= min_side)
			s = 1;
		else
		{
			/* growth of popcount(acc | v) = |v| - |acc & v| */
			uint64_t	pv = bs_popcount(vals[i], nwords);
			uint64_t	g0 = pv - bs_and_popcount(acc[0], vals[i], nwords);
			uint64_t	g1 = pv - bs_and_popcount(acc[1], vals[i], nwords);

			if (g0 != g1)
				s = g0 < g1 ? 0 : 1;
			else
				s = size[1] < size[0] ? 1 : 0;
		}
		side[i] = (uint8_t) s;
		bs_or(acc[s], vals[i], nwords);
		size[s]++;
		left--;
	}
}

int64_t
bloofi_tree_level_parents_by(int64_t n, int d, int64_t fanout)
{
	int64_t		lo,
				hi,
				want;

	if (n <= 2 * (int64_t) d)
		return 1;

	/*
	 * sizes d..2d: between ceil(n / 2d) and floor(n / d) parents (n > 2d: not
	 * empty)
	 */
	lo = (n + 2 * (int64_t) d - 1) / (2 * (int64_t) d);
	hi = n / d;
	/* aim at fanout children each, rounded to nearest */
	want = (2 * n + fanout) / (2 * fanout);
	return want < lo ? lo : want > hi ? hi : want;
}

int64_t
bloofi_tree_level_parents(int64_t n, int d)
{
	return bloofi_tree_level_parents_by(n, d, BLOOFI_TREE_BULK_FANOUT(d));
}

int64_t
bloofi_tree_level_run(int64_t n, int64_t parents, int64_t p)
{
	/* parent p takes [p*n/parents, (p+1)*n/parents) */
	return p * n / parents;
}

double
bloofi_tree_value_fp(const uint8_t *val, uint32_t m, int k)
{
	return pow((double) bs_popcount(val, bs_words_for_bits(m)) / m, k);
}

void
bloofi_tree_cost_parent(const BloofiSubtreeCost *child, int64_t n, double parent_fp,
						BloofiSubtreeCost *parent)
{
	double		leaves = 0,
				absent = 0,
				present = 0;

	for (int64_t i = 0; i < n; i++)
	{
		leaves += child[i].leaves;
		absent += child[i].absent;
	}
	/* the true child's own subtree, plus every other child's absent cost */
	for (int64_t i = 0; i < n; i++)
		present += child[i].leaves * (child[i].present + absent - child[i].absent);
	parent->leaves = leaves;
	parent->absent = parent_fp * (double) n + absent;
	parent->present = (double) n + (leaves > 0 ? present / leaves : 0);
}

void
bloofi_tree_cost_leaves(int64_t n, double parent_fp, BloofiSubtreeCost *parent)
{
	/* bloofi_tree_cost_parent over n leaves (1, 0, 0) */
	parent->leaves = (double) n;
	parent->absent = parent_fp * (double) n;
	parent->present = (double) n;
}

/* the parents a level of n nodes may get in a plan: fan-outs d + 1 and d (at least 2) */
#define PLAN_FANOUTS 2
static int64_t
plan_fanout(int d, int i)
{
	return i == 0 ? BLOOFI_TREE_BULK_FANOUT(d) : (d >= 2 ? d : 2);
}

/* slots of the plan's level buffers: a candidate level, then two for the levels above it */
static size_t
plan_slots(int64_t n, int buf)
{
	/* a fan-out of at least 2 at most halves a level (plus rounding) */
	return buf == 0 ? (size_t) n / 2 + 2 : (size_t) n / 4 + 2;
}

size_t
bloofi_tree_level_plan_work(int64_t n, uint32_t m)
{
	size_t		fb = 8 * bs_words_for_bits(m);
	size_t		per = fb + sizeof(BloofiSubtreeCost) + sizeof(uint8_t *);

	return (plan_slots(n, 0) + 2 * plan_slots(n, 1)) * per + fb;
}

typedef struct PlanSpace
{
	uint32_t	m;
	int			k;
	int			d;
	BloofiSplitRule rule;
	int64_t		max_fanout;
	size_t		nwords;
	/* level buffers: 0 a candidate level, 1 and 2 the levels above it in turn */
	uint8_t    *vals[3];
	BloofiSubtreeCost *cost[3];
	const uint8_t **ptr[3];
	uint8_t    *rootval;		/* OR of a whole level (the same at every
								 * level) */
} PlanSpace;

/*
 * The np parents of a level (values vals[0..n), costs cost[]) into level
 * buffer `to` of the plan space: their values, costs and pointers; and the
 * root value (OR of everything) into ps->rootval.
 */
static void
plan_parents(PlanSpace *ps, const uint8_t *const *vals, const BloofiSubtreeCost *cost,
			 int64_t n, int64_t np, int to)
{
	size_t		fb = 8 * ps->nwords;

	memset(ps->rootval, 0, fb);
	for (int64_t p = 0; p < np; p++)
	{
		int64_t		lo = bloofi_tree_level_run(n, np, p);
		int64_t		hi = bloofi_tree_level_run(n, np, p + 1);
		uint8_t    *runval = ps->vals[to] + (size_t) p * fb;

		memset(runval, 0, fb);
		for (int64_t i = lo; i < hi; i++)
			bs_or(runval, vals[i], ps->nwords);
		bs_or(ps->rootval, runval, ps->nwords);
		bloofi_tree_cost_parent(cost + lo, hi - lo, bloofi_tree_value_fp(runval, ps->m, ps->k),
								&ps->cost[to][p]);
		ps->ptr[to][p] = runval;
	}
}

/* a wide root over n nodes whose OR is ps->rootval: allowed, and its cost */
static bool
plan_wide(const PlanSpace *ps, const BloofiSubtreeCost *cost, int64_t n, BloofiSubtreeCost *wide)
{
	if (ps->rule == BLOOFI_SPLIT_ALWAYS || n > ps->max_fanout ||
		!bloofi_tree_unsplittable(ps->rootval, ps->m, ps->k, ps->rule))
		return false;
	bloofi_tree_cost_parent(cost, n, bloofi_tree_value_fp(ps->rootval, ps->m, ps->k), wide);
	return true;
}

/*
 * The root's cost (present) when the tree above the candidate level (buffer
 * 0, n nodes, left intact) is completed with one fan-out (plan_fanout(d, f))
 * at every level, and a wide root once it checks no more nodes than a root
 * over the next level would.
 */
static double
plan_complete(PlanSpace *ps, int64_t n, int f)
{
	for (int at = 0;; at = at == 1 ? 2 : 1)
	{
		int64_t		np = bloofi_tree_level_parents_by(n, ps->d, plan_fanout(ps->d, f));
		int			to = at == 1 ? 2 : 1;
		BloofiSubtreeCost wide,
					above;

		if (n == 1)
			return ps->cost[at][0].present;
		plan_parents(ps, ps->ptr[at], ps->cost[at], n, np, to);
		if (np == 1)
			return ps->cost[to][0].present;
		if (plan_wide(ps, ps->cost[at], n, &wide))
		{
			bloofi_tree_cost_parent(ps->cost[to], np, 1.0, &above);
			if (wide.present <= above.present)
				return wide.present;
		}
		n = np;
	}
}

int64_t
bloofi_tree_level_plan(const uint8_t *const *vals, const BloofiSubtreeCost *cost, int64_t n,
					   int d, uint32_t m, int k, BloofiSplitRule rule, int64_t max_fanout,
					   BloofiSubtreeCost *pcost, void *work)
{
	PlanSpace	ps;
	size_t		fb = 8 * bs_words_for_bits(m);
	uint8_t    *w = work;
	int64_t		best_np = -1;
	double		best = 0;
	BloofiSubtreeCost wide;

	ps.m = m;
	ps.k = k;
	ps.d = d;
	ps.rule = rule;
	ps.max_fanout = max_fanout;
	ps.nwords = bs_words_for_bits(m);
	for (int i = 0; i < 3; i++)
	{
		size_t		slots = plan_slots(n, i);

		ps.vals[i] = w;
		w += slots * fb;
		ps.cost[i] = (BloofiSubtreeCost *) w;
		w += slots * sizeof(BloofiSubtreeCost);
		ps.ptr[i] = (const uint8_t **) w;
		w += slots * sizeof(uint8_t *);
	}
	ps.rootval = w;

	if (n <= 2 * (int64_t) d)
	{
		plan_parents(&ps, vals, cost, n, 1, 0);
		pcost[0] = ps.cost[0][0];
		return 1;
	}

	/*
	 * Each fan-out in turn, the tree above it completed with each fan-out;
	 * and a wide root over this level.  Ties go to fan-out d + 1 (what the
	 * paper's bulk build leaves), then to the wide root.
	 */
	for (int f = 0; f < PLAN_FANOUTS; f++)
	{
		int64_t		np = bloofi_tree_level_parents_by(n, d, plan_fanout(d, f));

		if (f > 0 && plan_fanout(d, f) == plan_fanout(d, 0))
			continue;
		plan_parents(&ps, vals, cost, n, np, 0);
		for (int g = 0; g < PLAN_FANOUTS; g++)
		{
			double		c;

			if (g > 0 && plan_fanout(d, g) == plan_fanout(d, 0))
				continue;
			c = plan_complete(&ps, np, g);
			if (best_np < 0 || c < best * (1 - 1e-9))
			{
				best = c;
				best_np = np;
				memcpy(pcost, ps.cost[0], sizeof(BloofiSubtreeCost) * (size_t) np);
			}
		}
	}
	if (plan_wide(&ps, cost, n, &wide) && wide.present <= best)
	{
		pcost[0] = wide;
		return 1;
	}
	return best_np;
}
