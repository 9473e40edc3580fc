/*
 * bloofi_reftree.c
 *    The in-memory reference Bloofi tree (see bloofi_reftree.h): tests and
 *    benchmarks only.
 */
#include "bloofi_reftree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bs_bits.h"

static void *
xmalloc(size_t n)
{
	void	   *p = malloc(n ? n : 1);

	if (p == NULL)
	{
		fprintf(stderr, "bloofi_reftree: out of memory\n");
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
		fprintf(stderr, "bloofi_reftree: out of memory\n");
		abort();
	}
	return p;
}

void
bloofi_reftree_init(BloofiRefTree *t, uint32_t m, int k, int d, BloofiSplitRule rule)
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
bloofi_reftree_free(BloofiRefTree *t)
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
tree_new_node(BloofiRefTree *t, bool leaf)
{
	int32_t		i;
	BloofiRefNode *nd;

	if (t->nfree > 0)
		i = t->freelist[--t->nfree];
	else
	{
		if (t->nnodes == t->capnodes)
		{
			t->capnodes = t->capnodes ? 2 * t->capnodes : 64;
			t->nodes = xrealloc(t->nodes, sizeof(BloofiRefNode) * (size_t) t->capnodes);
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
tree_release_node(BloofiRefTree *t, int32_t i)
{
	t->nodes[i].used = false;
	t->nodes[i].nchild = 0;
	t->freelist[t->nfree++] = i;
}

/* append child c to inner node p (no value update) */
static void
tree_add_child(BloofiRefTree *t, int32_t p, int32_t c)
{
	BloofiRefNode *pn = &t->nodes[p];

	if (pn->nchild == pn->capchild)
	{
		pn->capchild = pn->capchild ? 2 * pn->capchild : 2 * t->d + 2;
		pn->child = xrealloc(pn->child, sizeof(int32_t) * (size_t) pn->capchild);
	}
	pn->child[pn->nchild++] = c;
	t->nodes[c].parent = p;
}

static void
tree_remove_child(BloofiRefTree *t, int32_t p, int32_t c)
{
	BloofiRefNode *pn = &t->nodes[p];

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
tree_recompute(BloofiRefTree *t, int32_t p)
{
	BloofiRefNode *pn = &t->nodes[p];

	memset(pn->val, 0, 8 * t->nwords);
	for (int32_t i = 0; i < pn->nchild; i++)
		bs_or(pn->val, t->nodes[pn->child[i]].val, t->nwords);
}

/* a new root above old root r and its new sibling s */
static void
tree_grow_root(BloofiRefTree *t, int32_t r, int32_t s)
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
tree_fix_overflow(BloofiRefTree *t, int32_t p)
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
bloofi_reftree_insert(BloofiRefTree *t, const uint8_t *filter, int64_t id)
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
		BloofiRefNode *pn = &t->nodes[p];
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
tree_after_removal(BloofiRefTree *t, int32_t p)
{
	while (p >= 0)
	{
		int32_t		parent = t->nodes[p].parent;

		if (parent >= 0 && t->nodes[p].nchild < t->d)
		{
			BloofiRefNode *gp = &t->nodes[parent];
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
					BloofiRefNode *sn = &t->nodes[sib];
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
				BloofiRefNode *pn = &t->nodes[p];

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
bloofi_reftree_delete(BloofiRefTree *t, int32_t leaf)
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
bloofi_reftree_bulk_build(BloofiRefTree *t, const uint8_t *filters, const int64_t *ids,
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
		cost[i] = (BloofiSubtreeCost)
	{
		1, 0, 0
	};							/* a leaf */

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
bloofi_reftree_search(const BloofiRefTree *t, const uint32_t *pos, int npos,
					  BloofiRefMatch cb, void *arg)
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
		const BloofiRefNode *nd = &t->nodes[stack[--top]];
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
bloofi_reftree_height(const BloofiRefTree *t)
{
	int			h = 0;

	for (int32_t p = t->root; p >= 0; p = t->nodes[p].leaf ? -1 : t->nodes[p].child[0])
		h++;
	return h;
}

int64_t
bloofi_reftree_inner_nodes(const BloofiRefTree *t)
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
tree_check_node(const BloofiRefTree *t, int32_t p, int depth, int height, int64_t *leaves,
				uint8_t *acc)
{
	const BloofiRefNode *nd = &t->nodes[p];

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
bloofi_reftree_check(const BloofiRefTree *t)
{
	int			height = bloofi_reftree_height(t);
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
