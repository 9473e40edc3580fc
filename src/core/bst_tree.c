/*
 * bst_tree.c
 *    BloomSampleTree construction: full trees, pruned trees, extension of
 *    pruned trees and memory accounting.  The inverted index is in
 *    bst_index.c, sorting ids in bst_sort.c.  See bst_tree.h.
 */
#include <stdlib.h>
#include <string.h>

#include "bst_index.h"
#include "bst_sort.h"


/* the BstAlloc callbacks of bst_alloc_malloc (ctx unused; size 0 allocates 1 byte) */
static void *
malloc_alloc(void *ctx, size_t size)
{
	(void) ctx;
	return malloc(size ? size : 1);
}

static void *
malloc_realloc(void *ctx, void *ptr, size_t size)
{
	(void) ctx;
	return realloc(ptr, size ? size : 1);
}

static void
malloc_free(void *ctx, void *ptr)
{
	(void) ctx;
	free(ptr);
}

const BstAlloc bst_alloc_malloc = {malloc_alloc, malloc_realloc, malloc_free, NULL};

#define TALLOC(t, sz)		((t)->alloc.alloc((t)->alloc.ctx, (sz)))
#define TFREE(t, p)			do { if (p) (t)->alloc.free((t)->alloc.ctx, (p)); } while (0)

/* ---------------------------------------------------------------------------
 * sizes
 * ---------------------------------------------------------------------------
 */
uint64_t
bst_node_bytes(uint32_t m)
{
	return sizeof(BstNode) + 8 * bs_words_for_bits(m);
}

uint64_t
bst_tree_bytes_for(uint32_t m, uint64_t nnodes, uint64_t nids)
{
	return sizeof(BstTree) + nnodes * bst_node_bytes(m) + nids * sizeof(int64_t);
}

uint64_t
bst_full_tree_bytes(uint64_t M, uint32_t m, int depth)
{
	(void) M;
	return bst_tree_bytes_for(m, (UINT64_C(2) << depth) - 1, 0);
}

uint64_t
bst_pruned_tree_bytes(const int64_t *ids, size_t nids, int leaf_bits, uint32_t m)
{
	return bst_tree_bytes_for(m, (uint64_t) bst_pruned_count_nodes(ids, nids, leaf_bits),
							  nids);
}

uint64_t
bst_extended_tree_bytes(const BstTree *t, const int64_t *nw, size_t n)
{
	uint64_t	nodes = (uint64_t) t->nnodes + (uint64_t) bst_extend_new_nodes(t, nw, n),
				nids = t->nids + n;

	/* the index is dropped by an extension */
	return bst_tree_bytes_for(t->p.m,
							  nodes > (uint64_t) t->cap_nodes ? nodes : (uint64_t) t->cap_nodes,
							  nids > t->cap_ids ? nids : t->cap_ids);
}

uint64_t
bst_tree_nids(const BstTree *t)
{
	if (t->kind == BST_KIND_PRUNED)
		return t->nids;
	return (uint64_t) (t->hi - t->lo);
}

uint64_t
bst_tree_bytes(const BstTree *t)
{
	uint64_t	b = bst_tree_bytes_for(t->p.m, (uint64_t) t->cap_nodes, t->cap_ids);

	if (t->index)
		b += bst_index_bytes(t->index->nentries, t->p.m);
	return b;
}

/* ---------------------------------------------------------------------------
 * helpers
 * ---------------------------------------------------------------------------
 */
void
bst_leaf_ids(const BstTree *t, int32_t leaf, const int64_t **ids,
			 int64_t *first, size_t *count)
{
	const BstNode *n = &t->nodes[leaf];

	if (t->kind == BST_KIND_FULL)
	{
		*ids = NULL;
		*first = n->lo;
		*count = (size_t) (n->last - n->lo + 1);
	}
	else
	{
		size_t		a = bst_lower_bound(t->ids, 0, t->nids, n->lo);
		size_t		b = n->last == INT64_MAX ? t->nids :
			bst_lower_bound(t->ids, a, t->nids, n->last + 1);

		*ids = t->ids + a;
		*first = 0;
		*count = b - a;
	}
}

/* every node's popcount, from its filter */
static void
set_popcounts(BstTree *t)
{
	for (int32_t v = 0; v < t->nnodes; v++)
		t->nodes[v].popcount = (uint32_t) bs_popcount(bst_node_bits(t, v), t->nwords);
}

/* an empty tree of kind with parameters p, allocating through alloc; NULL when out of memory */
static BstTree *
tree_new(const BsParams *p, const BstAlloc *alloc, BstKind kind)
{
	BstTree    *t = alloc->alloc(alloc->ctx, sizeof(BstTree));

	if (!t)
		return NULL;
	memset(t, 0, sizeof(*t));
	t->kind = kind;
	t->p = *p;
	bs_hasher_init(&t->hasher, p);
	t->nwords = bs_words_for_bits(p->m);
	t->nbytes = 8 * t->nwords;
	t->alloc = *alloc;
	t->root = -1;
	return t;
}

/*
 * Grow node storage to hold exactly need nodes (no-op when it holds that
 * many): capacities are never rounded up, so bst_tree_bytes and the size
 * functions above agree with what is allocated.
 */
static int
reserve_nodes(BstTree *t, int64_t need)
{
	BstNode    *nn;
	uint8_t    *nb;

	if (need <= t->cap_nodes)
		return BST_OK;
	if (need > INT32_MAX)
		return BST_ETOOBIG;
	nn = t->nodes ? t->alloc.realloc(t->alloc.ctx, t->nodes, (size_t) need * sizeof(BstNode))
		: TALLOC(t, (size_t) need * sizeof(BstNode));
	if (!nn)
		return BST_ENOMEM;
	t->nodes = nn;
	nb = t->bits ? t->alloc.realloc(t->alloc.ctx, t->bits, (size_t) need * t->nbytes)
		: TALLOC(t, (size_t) need * t->nbytes);
	if (!nb)
		return BST_ENOMEM;
	t->bits = nb;
	t->cap_nodes = (int32_t) need;
	return BST_OK;
}

/* append a node with a zeroed filter; returns its index */
static int32_t
add_node(BstTree *t, int64_t lo, int64_t last, int32_t parent)
{
	int32_t		v = t->nnodes++;
	BstNode    *n = &t->nodes[v];

	n->lo = lo;
	n->last = last;
	n->child[0] = n->child[1] = -1;
	n->parent = parent;
	n->popcount = 0;
	memset(t->bits + (size_t) v * t->nbytes, 0, t->nbytes);
	return v;
}

/* add id x to node v's filter */
static void
set_id(BstTree *t, int32_t v, int64_t x)
{
	bs_key_set(&t->hasher, bs_key_int64(&t->hasher, x),
			   t->bits + (size_t) v * t->nbytes);
}

/* v's filter = OR of its children's */
static void
or_children(BstTree *t, int32_t v)
{
	uint8_t    *dst = t->bits + (size_t) v * t->nbytes;

	for (int c = 0; c < 2; c++)
		if (t->nodes[v].child[c] >= 0)
			bs_or(dst, bst_node_bits(t, t->nodes[v].child[c]), t->nwords);
}

/* ---------------------------------------------------------------------------
 * full trees
 * ---------------------------------------------------------------------------
 */

int
bst_build_full(const BsParams *p, int64_t lo, int64_t hi, int depth,
			   bool with_index, const BstAlloc *alloc, BstTree **out)
{
	BstTree    *t;
	uint64_t	M = (uint64_t) hi - (uint64_t) lo;
	int64_t		nnodes,
				first_leaf;
	int			rc;

	*out = NULL;
	if (hi <= lo || M > (UINT64_C(1) << 32) || depth < 0 || depth > 30 ||
		(UINT64_C(1) << depth) > M)
		return BST_ETOOBIG;
	t = tree_new(p, alloc, BST_KIND_FULL);
	if (!t)
		return BST_ENOMEM;
	t->lo = lo;
	t->hi = hi;
	t->depth = depth;
	t->leaf_size = (int64_t) ((M + (UINT64_C(1) << depth) - 1) >> depth);
	nnodes = (INT64_C(2) << depth) - 1;
	first_leaf = (INT64_C(1) << depth) - 1;
	if ((rc = reserve_nodes(t, nnodes)) != BST_OK)
	{
		bst_tree_free(t);
		return rc;
	}
	memset(t->bits, 0, (size_t) nnodes * t->nbytes);
	t->nnodes = (int32_t) nnodes;
	t->root = 0;
	t->nodes[0].lo = lo;
	t->nodes[0].last = hi - 1;
	t->nodes[0].parent = -1;
	for (int64_t v = 0; v < nnodes; v++)
	{
		BstNode    *n = &t->nodes[v];

		if (v < first_leaf)
		{
			int64_t		mid = n->lo + (n->last - n->lo + 1) / 2;
			BstNode    *l = &t->nodes[2 * v + 1],
					   *r = &t->nodes[2 * v + 2];

			n->child[0] = (int32_t) (2 * v + 1);
			n->child[1] = (int32_t) (2 * v + 2);
			l->lo = n->lo;
			l->last = mid - 1;
			r->lo = mid;
			r->last = n->last;
			l->parent = r->parent = (int32_t) v;
		}
		else
			n->child[0] = n->child[1] = -1;
	}
	if (with_index && (rc = bst_index_alloc(t, M)) != BST_OK)
	{
		bst_tree_free(t);
		return rc;
	}
	/* hash every id into its leaf (and count its index bucket) */
	for (int64_t v = first_leaf; v < nnodes; v++)
	{
		uint8_t    *bits = t->bits + (size_t) v * t->nbytes;

		for (int64_t x = t->nodes[v].lo; x <= t->nodes[v].last; x++)
		{
			if (((x - lo) & 0xFFFF) == 0)
				BST_CHECK_INTERRUPTS();
			if (t->index)
			{
				uint32_t	pos[BS_MAX_K];

				bs_key_positions(&t->hasher, bs_key_int64(&t->hasher, x), pos);
				for (int j = 0; j < t->p.k; j++)
					bs_bit_set(bits, pos[j]);
				bst_index_count(t->index, pos, t->p.k);
			}
			else
				bs_key_set(&t->hasher, bs_key_int64(&t->hasher, x), bits);
		}
	}
	if (t->index && (rc = bst_index_fill(t)) != BST_OK)
	{
		bst_tree_free(t);
		return rc;
	}
	for (int64_t v = first_leaf - 1; v >= 0; v--)
		or_children(t, (int32_t) v);
	set_popcounts(t);
	*out = t;
	return BST_OK;
}

/* ---------------------------------------------------------------------------
 * pruned trees
 * ---------------------------------------------------------------------------
 */

/* number of distinct values of id >> b in sorted ids */
static size_t
count_groups(const int64_t *ids, size_t nids, int b)
{
	size_t		g = 0;
	int64_t		prev = -1;

	for (size_t i = 0; i < nids; i++)
	{
		int64_t		h = ids[i] >> b;

		if (h != prev)
		{
			g++;
			prev = h;
		}
	}
	return g;
}

int
bst_pruned_leaf_bits(const int64_t *ids, size_t nids, int64_t leaf_size)
{
	double		target;
	int			lo = 0,
				hi = 62;

	if (nids == 0 || leaf_size <= 1)
		return 0;
	target = (double) nids / (double) leaf_size;	/* wanted number of leaves */
	/* smallest b with groups(b) <= target (groups decrease with b) */
	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		BST_CHECK_INTERRUPTS();
		if ((double) count_groups(ids, nids, mid) <= target)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* nodes a pruned build creates for ids[i0, i1) under a node of span 2^bits */
static int64_t
count_pruned_nodes(const int64_t *ids, size_t i0, size_t i1, int64_t lo,
				   int bits, int leaf_bits)
{
	int64_t		mid;
	size_t		s;
	int64_t		n = 1;

	if (bits <= leaf_bits)
		return 1;
	mid = lo + (INT64_C(1) << (bits - 1));
	s = bst_lower_bound(ids, i0, i1, mid);
	if (s > i0)
		n += count_pruned_nodes(ids, i0, s, lo, bits - 1, leaf_bits);
	if (i1 > s)
		n += count_pruned_nodes(ids, s, i1, mid, bits - 1, leaf_bits);
	return n;
}

int
bst_leaf_bits_for_span(int64_t span)
{
	int			bits = 0;

	while (bits < 62 && (INT64_C(1) << bits) < span)
		bits++;
	return bits;
}

int64_t
bst_pruned_count_nodes(const int64_t *ids, size_t nids, int leaf_bits)
{
	int			R;

	if (nids == 0)
		return 0;
	R = bst_bit_length(ids[nids - 1]);
	if (R < leaf_bits)
		R = leaf_bits;
	return count_pruned_nodes(ids, 0, nids, 0, R, leaf_bits);
}

/*
 * Build the node over ids[i0..i1) (sorted, all in [lo, lo + 2^bits)) and its
 * subtree under parent; a node of leaf_bits or fewer is a leaf holding its
 * ids (and counting their index buckets when there is an index).  Returns
 * the node.
 */
static int32_t
build_pruned_node(BstTree *t, size_t i0, size_t i1, int64_t lo, int bits,
				  int32_t parent)
{
	int64_t		last = bits >= 63 ? INT64_MAX : lo + ((INT64_C(1) << bits) - 1);
	int32_t		v = add_node(t, lo, last, parent);

	if (bits <= t->leaf_bits)
	{
		uint8_t    *lb = t->bits + (size_t) v * t->nbytes;

		for (size_t i = i0; i < i1; i++)
		{
			if ((i & 0xFFFF) == 0)
				BST_CHECK_INTERRUPTS();
			if (t->index)
			{
				uint32_t	pos[BS_MAX_K];

				bs_key_positions(&t->hasher, bs_key_int64(&t->hasher, t->ids[i]), pos);
				for (int j = 0; j < t->p.k; j++)
					bs_bit_set(lb, pos[j]);
				bst_index_count(t->index, pos, t->p.k);
			}
			else
				set_id(t, v, t->ids[i]);
		}
	}
	else
	{
		int64_t		mid = lo + (INT64_C(1) << (bits - 1));
		size_t		s = bst_lower_bound(t->ids, i0, i1, mid);

		if (s > i0)
		{
			int32_t		c = build_pruned_node(t, i0, s, lo, bits - 1, v);

			t->nodes[v].child[0] = c;
		}
		if (i1 > s)
		{
			int32_t		c = build_pruned_node(t, s, i1, mid, bits - 1, v);

			t->nodes[v].child[1] = c;
		}
		or_children(t, v);
	}
	return v;
}

int
bst_build_pruned(const BsParams *p, const int64_t *ids, size_t nids,
				 int leaf_bits, bool with_index, const BstAlloc *alloc, BstTree **out)
{
	BstTree    *t;
	int			rc;

	*out = NULL;
	if (leaf_bits < 0 || leaf_bits > 62 || nids > UINT32_MAX)
		return BST_ETOOBIG;
	t = tree_new(p, alloc, BST_KIND_PRUNED);
	if (!t)
		return BST_ENOMEM;
	t->leaf_bits = leaf_bits;
	t->leaf_size = INT64_C(1) << leaf_bits;
	t->root_bits = leaf_bits;
	t->cap_ids = nids;
	if (nids)
	{
		t->ids = TALLOC(t, nids * sizeof(int64_t));
		if (!t->ids)
		{
			bst_tree_free(t);
			return BST_ENOMEM;
		}
		memcpy(t->ids, ids, nids * sizeof(int64_t));
	}
	t->nids = nids;
	if (nids > 0)
	{
		int			R = bst_bit_length(ids[nids - 1]);
		int64_t		nnodes;

		if (R < leaf_bits)
			R = leaf_bits;
		t->root_bits = R;
		nnodes = count_pruned_nodes(t->ids, 0, nids, 0, R, leaf_bits);
		if ((rc = reserve_nodes(t, nnodes)) != BST_OK)
		{
			bst_tree_free(t);
			return rc;
		}
		if (with_index && (rc = bst_index_alloc(t, nids)) != BST_OK)
		{
			bst_tree_free(t);
			return rc;
		}
		t->root = build_pruned_node(t, 0, nids, 0, R, -1);
		if (t->index && (rc = bst_index_fill(t)) != BST_OK)
		{
			bst_tree_free(t);
			return rc;
		}
		set_popcounts(t);
	}
	t->depth = t->root_bits - leaf_bits;
	t->lo = 0;
	t->hi = t->root_bits >= 63 ? INT64_MAX : (INT64_C(1) << t->root_bits);
	*out = t;
	return BST_OK;
}

int
bst_tree_extend(BstTree *t, const int64_t *ids_in, size_t n_in, size_t *added)
{
	int64_t    *nw;
	size_t		nnew = 0;
	int			rc;

	*added = 0;
	if (t->kind != BST_KIND_PRUNED)
		return BST_ETOOBIG;
	if (n_in == 0)
		return BST_OK;
	nw = TALLOC(t, n_in * sizeof(int64_t));
	if (!nw)
		return BST_ENOMEM;
	memcpy(nw, ids_in, n_in * sizeof(int64_t));
	n_in = bst_sort_unique(nw, n_in);
	for (size_t i = 0; i < n_in; i++)
	{
		size_t		j = bst_lower_bound(t->ids, 0, t->nids, nw[i]);

		if ((i & 0xFFFF) == 0)
			BST_CHECK_INTERRUPTS();

		if (j == t->nids || t->ids[j] != nw[i])
			nw[nnew++] = nw[i];
	}
	if (nnew == 0)
	{
		TFREE(t, nw);
		return BST_OK;
	}
	if (t->nids + nnew > UINT32_MAX)
	{
		TFREE(t, nw);
		return BST_ETOOBIG;
	}

	/* node storage for exactly the nodes the new ids create, reserved once */
	if ((rc = reserve_nodes(t, (int64_t) t->nnodes + bst_extend_new_nodes(t, nw, nnew))) != BST_OK)
	{
		TFREE(t, nw);
		return rc;
	}
	for (size_t i = 0; i < nnew; i++)
	{
		int64_t		x = nw[i];
		int32_t		v;
		int			bits;

		if ((i & 0xFFF) == 0)
			BST_CHECK_INTERRUPTS();
		/* the nodes x creates (already reserved: this only guards the bound) */
		if ((rc = reserve_nodes(t, (int64_t) t->nnodes + bst_extend_new_nodes(t, &x, 1))) != BST_OK)
		{
			TFREE(t, nw);
			return rc;
		}
		if (t->root < 0)
		{
			int			R = bst_bit_length(x);

			t->root_bits = R < t->leaf_bits ? t->leaf_bits : R;
			t->root = add_node(t, 0, t->root_bits >= 63 ? INT64_MAX :
							   (INT64_C(1) << t->root_bits) - 1, -1);
		}
		while (t->root_bits < 63 && x > t->nodes[t->root].last)
		{
			int32_t		old = t->root;
			int32_t		r;

			t->root_bits++;
			r = add_node(t, 0, t->root_bits >= 63 ? INT64_MAX :
						 (INT64_C(1) << t->root_bits) - 1, -1);
			t->nodes[r].child[0] = old;
			t->nodes[old].parent = r;
			memcpy(t->bits + (size_t) r * t->nbytes, bst_node_bits(t, old), t->nbytes);
			t->root = r;
		}
		v = t->root;
		bits = t->root_bits;
		set_id(t, v, x);
		while (bits > t->leaf_bits)
		{
			int			c = (int) ((x >> (bits - 1)) & 1);
			int32_t		ch = t->nodes[v].child[c];

			if (ch < 0)
			{
				int64_t		lo = t->nodes[v].lo + (c ? (INT64_C(1) << (bits - 1)) : 0);

				ch = add_node(t, lo, lo + ((INT64_C(1) << (bits - 1)) - 1), v);
				t->nodes[v].child[c] = ch;
			}
			v = ch;
			bits--;
			set_id(t, v, x);
		}
	}

	/* merge the new ids into the sorted id array */
	if (t->nids + nnew > t->cap_ids)
	{
		size_t		cap = t->nids + nnew;
		int64_t    *ni;

		ni = t->ids ? t->alloc.realloc(t->alloc.ctx, t->ids, cap * sizeof(int64_t))
			: TALLOC(t, cap * sizeof(int64_t));
		if (!ni)
		{
			TFREE(t, nw);
			return BST_ENOMEM;
		}
		t->ids = ni;
		t->cap_ids = cap;
	}
	{
		size_t		i = t->nids,
					j = nnew,
					o = t->nids + nnew;

		while (j > 0)
		{
			if (i > 0 && t->ids[i - 1] > nw[j - 1])
				t->ids[--o] = t->ids[--i];
			else
				t->ids[--o] = nw[--j];
		}
	}
	t->nids += nnew;
	TFREE(t, nw);
	t->depth = t->root_bits - t->leaf_bits;
	t->hi = t->root_bits >= 63 ? INT64_MAX : (INT64_C(1) << t->root_bits);
	set_popcounts(t);
	bst_index_free(t);
	*added = nnew;
	return BST_OK;
}

int64_t
bst_extend_new_nodes(const BstTree *t, const int64_t *nw, size_t n)
{
	int			R,
				R0;
	int64_t		count;

	if (n == 0)
		return 0;
	/* the root chain after extension spans levels R0 .. R, all but R0 new */
	R = bst_bit_length(nw[n - 1]);
	if (R < t->leaf_bits)
		R = t->leaf_bits;
	if (t->root >= 0)
	{
		R0 = t->root_bits;
		if (R < R0)
			R = R0;
		count = R - R0;
	}
	else
	{
		R0 = bst_bit_length(nw[0]);
		if (R0 < t->leaf_bits)
			R0 = t->leaf_bits;
		count = R - R0 + 1;
	}
	for (size_t i = 0; i < n; i++)
	{
		int64_t		x = nw[i];
		int			top;		/* highest new non-root level of x's path */

		if ((i & 0xFFFF) == 0xFFFF)
			BST_CHECK_INTERRUPTS();

		if (t->root >= 0 && x <= t->nodes[t->root].last)
		{
			int32_t		v = t->root;
			int			bits = t->root_bits;

			while (bits > t->leaf_bits)
			{
				int32_t		c = t->nodes[v].child[(x >> (bits - 1)) & 1];

				if (c < 0)
					break;
				v = c;
				bits--;
			}
			top = bits - 1;
		}
		else
		{
			/* levels L >= R0 with x < 2^L are root-chain nodes */
			top = bst_bit_length(x) - 1;
			if (top < R0 - 1)
				top = R0 - 1;
		}
		for (int L = t->leaf_bits; L <= top; L++)
		{
			if (i > 0 && (nw[i - 1] >> L) == (x >> L))
				break;			/* the previous id's node: counted */
			count++;
		}
	}
	return count;
}

/*
 * build the inverted index of a tree without one: its buckets counted in one
 * pass over the ids, then filled as the builds above fill theirs
 */
int
bst_index_build(BstTree *t)
{
	uint64_t	N = bst_tree_nids(t);
	uint32_t	pos[BS_MAX_K];
	int			rc;

	if (t->index)
		return BST_OK;
	if ((rc = bst_index_alloc(t, N)) != BST_OK)
		return rc;
	for (uint64_t i = 0; i < N; i++)
	{
		if ((i & 0xFFFF) == 0)
			BST_CHECK_INTERRUPTS();
		bs_key_positions(&t->hasher, bs_key_int64(&t->hasher, bst_index_id(t, i)), pos);
		bst_index_count(t->index, pos, t->p.k);
	}
	return bst_index_fill(t);
}

void
bst_tree_free(BstTree *t)
{
	if (!t)
		return;
	bst_index_free(t);
	TFREE(t, t->nodes);
	TFREE(t, t->bits);
	TFREE(t, t->ids);
	TFREE(t, t);
}

