/*
 * bloofi_reftree.h
 *    An in-memory reference Bloofi tree, for tests and benchmarks only.
 *
 * BloofiRefTree is a Bloofi tree of order d (every node except the root has
 * d..2d children, the root 2..2d; a node that the split rule exempts, all
 * ones (section 3.4) or saturated, may keep more than 2d), with the paper's
 * insert (descend to the Hamming-closest child, OR the filter into every
 * node on the path, split on overflow up to the root), delete (redistribute
 * with or merge into a sibling on underflow, recompute values to the root,
 * shrink the root), bottom-up bulk build, search (counting every node value
 * tested as one node checked, as the paper counts) and an invariant check.
 * It makes its decisions with the core's rules (src/core/bloofi_tree.h), the
 * same the index uses on pages, so it is the executable specification of the
 * tree: test/unit/test_bloofi_tree.c compares it with brute force, and
 * test/bench/bloofi_tree_bench.c measures the paper's search cost on the
 * paper's configuration.  It allocates with malloc and aborts on
 * out-of-memory, which is why it lives here and not in the extension.
 *
 * Design notes: docs/bloofi.md.
 */
#ifndef BLOOFI_REFTREE_H
#define BLOOFI_REFTREE_H

#include "bloofi_tree.h"

typedef struct BloofiRefNode
{
	int32_t		parent;			/* -1: the root */
	int32_t		nchild;			/* inner: children; leaf: 0 */
	int32_t		capchild;
	int32_t    *child;			/* node indexes */
	int64_t		id;				/* leaf: caller's row id */
	uint8_t    *val;			/* nwords words: a leaf's filter, an inner
								 * node's OR */
	bool		leaf;
	bool		used;			/* false: on the free list */
} BloofiRefNode;

typedef struct BloofiRefTree
{
	uint32_t	m;
	size_t		nwords;
	int			k;				/* hash functions (for the saturation rule) */
	int			d;				/* order: non-root nodes have d..2d children */
	BloofiSplitRule rule;		/* which full nodes are not split */
	int32_t		root;			/* -1: empty */
	int64_t		nleaves;
	int32_t		nnodes;			/* slots used in nodes[] (some may be free) */
	int32_t		capnodes;
	BloofiRefNode *nodes;
	int32_t    *freelist;
	int32_t		nfree;
	uint64_t   *scratch;		/* 2 * nwords words for split choices */
} BloofiRefTree;

/* what a search reports */
typedef void (*BloofiRefMatch) (int64_t id, void *arg);

/* an empty tree of order d >= 1 over m-bit filters of k hash functions */
extern void bloofi_reftree_init(BloofiRefTree *t, uint32_t m, int k, int d, BloofiSplitRule rule);
extern void bloofi_reftree_free(BloofiRefTree *t);

/* insert a leaf (filter of nwords words, id); returns its node index, which
 * never changes while the leaf lives */
extern int32_t bloofi_reftree_insert(BloofiRefTree *t, const uint8_t *filter, int64_t id);

/* remove the leaf at node index leaf */
extern void bloofi_reftree_delete(BloofiRefTree *t, int32_t leaf);

/*
 * Build an empty tree bottom-up from n filters (row-major, nwords words
 * each) in the given order (similar filters next to each other give good
 * pruning): consecutive runs of d..2d nodes get a parent, level by level,
 * as bloofi_tree_level_plan decides (fan-out d + 1 or d, or a wide root).
 * leaf_index[i] (if not NULL) receives the node index of filter i.
 */
extern void bloofi_reftree_bulk_build(BloofiRefTree *t, const uint8_t *filters,
									  const int64_t *ids, int64_t n, int32_t *leaf_index);

/*
 * Report every leaf whose filter has all npos bits pos[] set (no
 * duplicates), descending only into nodes whose value has them all.
 * Returns the nodes checked: one per node value tested, leaves included.
 */
extern int64_t bloofi_reftree_search(const BloofiRefTree *t, const uint32_t *pos, int npos,
									 BloofiRefMatch cb, void *arg);

/* height (a lone leaf: 1; empty: 0) and node counts */
extern int	bloofi_reftree_height(const BloofiRefTree *t);
extern int64_t bloofi_reftree_inner_nodes(const BloofiRefTree *t);

/*
 * Verify every invariant: parent links, uniform leaf depth, every inner
 * value equal to the OR of its children, fan-out (root 2..2d, others
 * d..2d, more than 2d only for a node the split rule exempts), leaf
 * count.  Returns NULL when all hold, else a message (static buffer).
 */
extern const char *bloofi_reftree_check(const BloofiRefTree *t);

#endif							/* BLOOFI_REFTREE_H */
