/*
 * bloofi_tree.c
 *    The multi-level Bloofi tree: split choice, Hamming-closest descent, the
 *    all-ones rule, bulk-build level sizes, and the in-memory reference tree
 *    (PostgreSQL-independent; see bloofi_tree.h).
 */
#include "bloofi_tree.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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
	/* sizes d..2d: between ceil(n / 2d) and floor(n / d) parents (n > 2d: not empty) */
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
	uint8_t    *rootval;		/* OR of a whole level (the same at every level) */
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

/* ---- in-memory reference tree ------------------------------------------ */

static void *
xmalloc(size_t n)
{
	void	   *p = malloc(n ? n : 1);

	if (p == NULL)
	{
		fprintf(stderr, "bloofi_tree: out of memory\n");
		abort();
	}
	return p;
}

static void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (p == NULL)
	{
		fprintf(stderr, "bloofi_tree: out of memory\n");
		abort();
	}
	return p;
}

void
bloofi_tree_init(BloofiTree *t, uint32_t m, int k, int d, BloofiSplitRule rule)
{
	memset(t, 0, sizeof(*t));
	t->m = m;
	t->nwords = bs_words_for_bits(m);
	t->d = d < 1 ? 1 : d;
	t->k = k;
	t->rule = rule;
	t->root = -1;
	t->scratch = xmalloc(2 * t->nwords * 8);
}

void
bloofi_tree_free(BloofiTree *t)
{
	for (int32_t i = 0; i < t->nnodes; i++)
	{
		free(t->nodes[i].child);
		free(t->nodes[i].val);
	}
	free(t->nodes);
	free(t->freelist);
	free(t->scratch);
	memset(t, 0, sizeof(*t));
	t->root = -1;
}

/* a new node (zero value, no children); indexes of nodes stay valid, pointers not */
static int32_t
tree_new_node(BloofiTree *t, bool leaf)
{
	int32_t		i;
	BloofiTreeNode *nd;

	if (t->nfree > 0)
		i = t->freelist[--t->nfree];
	else
	{
		if (t->nnodes == t->capnodes)
		{
			t->capnodes = t->capnodes ? 2 * t->capnodes : 64;
			t->nodes = xrealloc(t->nodes, sizeof(BloofiTreeNode) * (size_t) t->capnodes);
			t->freelist = xrealloc(t->freelist, sizeof(int32_t) * (size_t) t->capnodes);
		}
		i = t->nnodes++;
		t->nodes[i].child = NULL;
		t->nodes[i].capchild = 0;
		t->nodes[i].val = xmalloc(8 * t->nwords);
	}
	nd = &t->nodes[i];
	nd->parent = -1;
	nd->nchild = 0;
	nd->id = -1;
	nd->leaf = leaf;
	nd->used = true;
	memset(nd->val, 0, 8 * t->nwords);
	return i;
}

static void
tree_release_node(BloofiTree *t, int32_t i)
{
	t->nodes[i].used = false;
	t->nodes[i].nchild = 0;
	t->freelist[t->nfree++] = i;
}

/* append child c to inner node p (no value update) */
static void
tree_add_child(BloofiTree *t, int32_t p, int32_t c)
{
	BloofiTreeNode *pn = &t->nodes[p];

	if (pn->nchild == pn->capchild)
	{
		pn->capchild = pn->capchild ? 2 * pn->capchild : 2 * t->d + 2;
		pn->child = xrealloc(pn->child, sizeof(int32_t) * (size_t) pn->capchild);
	}
	pn->child[pn->nchild++] = c;
	t->nodes[c].parent = p;
}

static void
tree_remove_child(BloofiTree *t, int32_t p, int32_t c)
{
	BloofiTreeNode *pn = &t->nodes[p];

	for (int32_t i = 0; i < pn->nchild; i++)
		if (pn->child[i] == c)
		{
			memmove(pn->child + i, pn->child + i + 1,
					sizeof(int32_t) * (size_t) (pn->nchild - i - 1));
			pn->nchild--;
			return;
		}
}

/* an inner node's value = OR of its children */
static void
tree_recompute(BloofiTree *t, int32_t p)
{
	BloofiTreeNode *pn = &t->nodes[p];

	memset(pn->val, 0, 8 * t->nwords);
	for (int32_t i = 0; i < pn->nchild; i++)
		bs_or(pn->val, t->nodes[pn->child[i]].val, t->nwords);
}

/* a new root above old root r and its new sibling s */
static void
tree_grow_root(BloofiTree *t, int32_t r, int32_t s)
{
	int32_t		nr = tree_new_node(t, false);

	tree_add_child(t, nr, r);
	tree_add_child(t, nr, s);
	tree_recompute(t, nr);
	t->root = nr;
}

/*
 * Split node p while it must split (section 3.4 rule), moving side-1
 * children to new siblings in p's parent; a split root grows the tree.
 * The parent's value is unchanged by a split (same leaves below).
 */
static void
tree_fix_overflow(BloofiTree *t, int32_t p)
{
	while (bloofi_tree_must_split(t->nodes[p].nchild, t->d, t->nodes[p].val, t->m, t->k,
								  t->rule))
	{
		int32_t		n = t->nodes[p].nchild;
		const uint8_t **vals = xmalloc(sizeof(uint8_t *) * (size_t) n);
		uint8_t    *side = xmalloc((size_t) n);
		int32_t    *kids = xmalloc(sizeof(int32_t) * (size_t) n);
		int32_t		q;
		int32_t		keep = 0;

		memcpy(kids, t->nodes[p].child, sizeof(int32_t) * (size_t) n);
		for (int32_t i = 0; i < n; i++)
			vals[i] = t->nodes[kids[i]].val;
		bloofi_tree_split_choice(vals, n, t->d, t->nwords, side, t->scratch);

		q = tree_new_node(t, false);
		for (int32_t i = 0; i < n; i++)
		{
			if (side[i])
				tree_add_child(t, q, kids[i]);
			else
				t->nodes[p].child[keep++] = kids[i];
		}
		t->nodes[p].nchild = keep;
		tree_recompute(t, p);
		tree_recompute(t, q);
		free(vals);
		free(side);
		free(kids);

		if (t->nodes[p].parent < 0)
			tree_grow_root(t, p, q);
		else
			tree_add_child(t, t->nodes[p].parent, q);
		/* q may itself still be too large (after many all-ones inserts) */
		tree_fix_overflow(t, q);
	}
}

int32_t
bloofi_tree_insert(BloofiTree *t, const uint8_t *filter, int64_t id)
{
	int32_t		leaf = tree_new_node(t, true);
	int32_t		p;

	memcpy(t->nodes[leaf].val, filter, 8 * t->nwords);
	t->nodes[leaf].id = id;
	t->nleaves++;

	if (t->root < 0)
	{
		t->root = leaf;
		return leaf;
	}
	if (t->nodes[t->root].leaf)
	{
		tree_grow_root(t, t->root, leaf);
		return leaf;
	}

	/* descend, ORing the filter into every node on the path */
	p = t->root;
	for (;;)
	{
		BloofiTreeNode *pn = &t->nodes[p];
		const uint8_t **vals;
		int			c;

		bs_or(pn->val, filter, t->nwords);
		if (t->nodes[pn->child[0]].leaf)
			break;
		vals = xmalloc(sizeof(uint8_t *) * (size_t) pn->nchild);
		for (int32_t i = 0; i < pn->nchild; i++)
			vals[i] = t->nodes[pn->child[i]].val;
		c = bloofi_tree_closest(vals, pn->nchild, filter, t->nwords);
		free(vals);
		p = pn->child[c];
	}
	tree_add_child(t, p, leaf);

	/* splits, bottom-up */
	while (p >= 0)
	{
		int32_t		parent = t->nodes[p].parent;

		tree_fix_overflow(t, p);
		p = parent;
	}
	return leaf;
}

/*
 * Node p (not the root) lost a child: redistribute with or merge into a
 * sibling when it has fewer than d children, then recompute values up to
 * the root (splitting a node whose value stopped being all ones), and
 * shrink a root left with one child.
 */
static void
tree_after_removal(BloofiTree *t, int32_t p)
{
	while (p >= 0)
	{
		int32_t		parent = t->nodes[p].parent;

		if (parent >= 0 && t->nodes[p].nchild < t->d)
		{
			BloofiTreeNode *gp = &t->nodes[parent];
			int32_t		pos = 0;
			int32_t		sib;

			while (gp->child[pos] != p)
				pos++;
			if (gp->nchild == 1)
			{
				/* no sibling (order 1): an emptied node just leaves */
				if (t->nodes[p].nchild == 0)
				{
					tree_remove_child(t, parent, p);
					tree_release_node(t, p);
				}
				p = parent;
				continue;
			}
			sib = gp->child[pos > 0 ? pos - 1 : pos + 1];

			if (t->nodes[sib].nchild > t->d)
			{
				/* redistribute: move children from the sibling until even */
				int32_t		total = t->nodes[sib].nchild + t->nodes[p].nchild;

				while (t->nodes[p].nchild < total / 2)
				{
					BloofiTreeNode *sn = &t->nodes[sib];
					int32_t		c = sn->child[--sn->nchild];

					tree_add_child(t, p, c);
				}
				tree_recompute(t, sib);
				tree_recompute(t, p);
				tree_fix_overflow(t, sib);
			}
			else
			{
				/* merge p into the sibling, then p leaves its parent */
				BloofiTreeNode *pn = &t->nodes[p];

				for (int32_t i = 0; i < pn->nchild; i++)
					tree_add_child(t, sib, t->nodes[p].child[i]);
				tree_recompute(t, sib);
				tree_remove_child(t, parent, p);
				tree_release_node(t, p);
				tree_fix_overflow(t, sib);
			}
		}
		else if (!t->nodes[p].leaf)
		{
			tree_recompute(t, p);
			tree_fix_overflow(t, p);
		}
		p = parent;
	}

	/* the root keeps at least two children */
	while (t->root >= 0 && !t->nodes[t->root].leaf && t->nodes[t->root].nchild == 1)
	{
		int32_t		old = t->root;

		t->root = t->nodes[old].child[0];
		t->nodes[t->root].parent = -1;
		tree_release_node(t, old);
	}
}

void
bloofi_tree_delete(BloofiTree *t, int32_t leaf)
{
	int32_t		p = t->nodes[leaf].parent;

	t->nleaves--;
	tree_release_node(t, leaf);
	if (p < 0)
	{
		t->root = -1;
		return;
	}
	tree_remove_child(t, p, leaf);
	tree_after_removal(t, p);
}

void
bloofi_tree_bulk_build(BloofiTree *t, const uint8_t *filters, const int64_t *ids,
					   int64_t n, int32_t *leaf_index)
{
	int32_t    *level;
	int64_t		nlevel = n;
	BloofiSubtreeCost *cost,
			   *pcost;
	const uint8_t **vals;
	void	   *work;

	if (n <= 0)
		return;
	level = xmalloc(sizeof(int32_t) * (size_t) n);
	for (int64_t i = 0; i < n; i++)
	{
		int32_t		leaf = tree_new_node(t, true);

		memcpy(t->nodes[leaf].val, filters + (size_t) i * 8 * t->nwords, 8 * t->nwords);
		t->nodes[leaf].id = ids[i];
		level[i] = leaf;
		if (leaf_index)
			leaf_index[i] = leaf;
	}
	t->nleaves += n;

	cost = xmalloc(sizeof(BloofiSubtreeCost) * (size_t) n);
	pcost = xmalloc(sizeof(BloofiSubtreeCost) * (size_t) n);
	vals = xmalloc(sizeof(uint8_t *) * (size_t) n);
	work = xmalloc(bloofi_tree_level_plan_work(n, t->m));
	for (int64_t i = 0; i < n; i++)
		cost[i] = (BloofiSubtreeCost) {1, 0, 0};	/* a leaf */

	while (nlevel > 1)
	{
		int64_t		parents;
		BloofiSubtreeCost *swap;

		for (int64_t i = 0; i < nlevel; i++)
			vals[i] = t->nodes[level[i]].val;
		parents = bloofi_tree_level_plan(vals, cost, nlevel, t->d, t->m, t->k, t->rule,
										 INT64_MAX, pcost, work);
		for (int64_t p = 0; p < parents; p++)
		{
			int64_t		lo = bloofi_tree_level_run(nlevel, parents, p);
			int64_t		hi = bloofi_tree_level_run(nlevel, parents, p + 1);
			int32_t		q = tree_new_node(t, false);

			for (int64_t i = lo; i < hi; i++)
				tree_add_child(t, q, level[i]);
			tree_recompute(t, q);
			level[p] = q;		/* p <= lo: no overwrite of an unread entry */
		}
		swap = cost;
		cost = pcost;
		pcost = swap;
		nlevel = parents;
	}
	free(vals);
	free(work);
	free(cost);
	free(pcost);
	t->root = level[0];
	free(level);
}

int64_t
bloofi_tree_search(const BloofiTree *t, const uint32_t *pos, int npos,
				   BloofiTreeMatch cb, void *arg)
{
	int64_t		checked = 0;
	int32_t    *stack;
	int64_t		top = 0;

	if (t->root < 0)
		return 0;
	stack = xmalloc(sizeof(int32_t) * (size_t) (t->nnodes + 1));
	stack[top++] = t->root;
	while (top > 0)
	{
		const BloofiTreeNode *nd = &t->nodes[stack[--top]];
		bool		pass = true;

		checked++;
		for (int i = 0; i < npos && pass; i++)
			pass = bs_bit_test(nd->val, pos[i]);
		if (!pass)
			continue;
		if (nd->leaf)
			cb(nd->id, arg);
		else
			for (int32_t i = nd->nchild - 1; i >= 0; i--)
				stack[top++] = nd->child[i];
	}
	free(stack);
	return checked;
}

int
bloofi_tree_height(const BloofiTree *t)
{
	int			h = 0;

	for (int32_t p = t->root; p >= 0; p = t->nodes[p].leaf ? -1 : t->nodes[p].child[0])
		h++;
	return h;
}

int64_t
bloofi_tree_inner_nodes(const BloofiTree *t)
{
	int64_t		n = 0;

	for (int32_t i = 0; i < t->nnodes; i++)
		if (t->nodes[i].used && !t->nodes[i].leaf)
			n++;
	return n;
}

static char check_msg[256];

/* returns false and sets check_msg on a violation; *leaves += leaves below p */
static bool
tree_check_node(const BloofiTree *t, int32_t p, int depth, int height, int64_t *leaves,
				uint8_t *acc)
{
	const BloofiTreeNode *nd = &t->nodes[p];

	if (!nd->used)
	{
		snprintf(check_msg, sizeof(check_msg), "node %d is reachable but free", (int) p);
		return false;
	}
	if (nd->leaf)
	{
		if (depth != height)
		{
			snprintf(check_msg, sizeof(check_msg), "leaf %d at depth %d, tree height %d",
					 (int) p, depth, height);
			return false;
		}
		(*leaves)++;
		return true;
	}
	if (depth >= height)
	{
		snprintf(check_msg, sizeof(check_msg), "inner node %d at depth %d, height %d",
				 (int) p, depth, height);
		return false;
	}
	{
		int			lo = p == t->root ? 2 : t->d;
		bool		wide_ok = bloofi_tree_unsplittable(nd->val, t->m, t->k, t->rule);

		if (nd->nchild < lo || (nd->nchild > 2 * t->d && !wide_ok))
		{
			snprintf(check_msg, sizeof(check_msg),
					 "node %d has %d children, order %d%s", (int) p, (int) nd->nchild, t->d,
					 p == t->root ? " (root)" : "");
			return false;
		}
	}
	for (int32_t i = 0; i < nd->nchild; i++)
	{
		int32_t		c = nd->child[i];

		if (c < 0 || c >= t->nnodes || t->nodes[c].parent != p)
		{
			snprintf(check_msg, sizeof(check_msg), "child %d of node %d: bad parent link",
					 (int) c, (int) p);
			return false;
		}
		if (!tree_check_node(t, c, depth + 1, height, leaves, acc + 8 * t->nwords))
			return false;
	}
	/* acc (this depth's scratch) = OR of the children */
	memset(acc, 0, 8 * t->nwords);
	for (int32_t i = 0; i < nd->nchild; i++)
		bs_or(acc, t->nodes[nd->child[i]].val, t->nwords);
	if (memcmp(acc, nd->val, 8 * t->nwords) != 0)
	{
		snprintf(check_msg, sizeof(check_msg),
				 "node %d: value differs from the OR of its %d children", (int) p,
				 (int) nd->nchild);
		return false;
	}
	return true;
}

const char *
bloofi_tree_check(const BloofiTree *t)
{
	int			height = bloofi_tree_height(t);
	int64_t		leaves = 0;
	uint8_t    *acc;
	bool		ok;

	if (t->root < 0)
	{
		if (t->nleaves != 0)
		{
			snprintf(check_msg, sizeof(check_msg), "empty tree with %lld leaves",
					 (long long) t->nleaves);
			return check_msg;
		}
		return NULL;
	}
	if (t->nodes[t->root].parent != -1)
		return "the root has a parent";
	acc = xmalloc(8 * t->nwords * (size_t) (height + 1));
	ok = tree_check_node(t, t->root, 1, height, &leaves, acc);
	free(acc);
	if (!ok)
		return check_msg;
	if (leaves != t->nleaves)
	{
		snprintf(check_msg, sizeof(check_msg), "%lld leaves reachable, %lld counted",
				 (long long) leaves, (long long) t->nleaves);
		return check_msg;
	}
	return NULL;
}
