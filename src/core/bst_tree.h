/*
 * bst_tree.h
 *    BloomSampleTree core (PostgreSQL-independent): the tree over a namespace
 *    of integer ids, its construction (full and pruned), extension of pruned
 *    trees, and the inverted index used for fast reconstruction.  Design
 *    notes: docs/bloomsampletree.md.
 *
 * A tree is a binary tree of Bloom filters with the query filters' parameters
 * (m, k, seed, hash).  Node v covers the id range [lo, hi); its filter holds
 * every id of that range that exists (all of them for a full tree, the
 * occupied ones for a pruned tree).  Leaves know their ids: a full tree's
 * leaf holds its whole range, a pruned tree's leaf the occupied ids of its
 * range (a slice of the sorted id array).
 *
 *  - Full tree (Sengupta et al., section 5.1): namespace [lo, hi) split at the
 *    midpoint down to `depth` levels; nodes in heap order (children of i are
 *    2i+1 and 2i+2).
 *  - Pruned tree (section 5.2): aligned power-of-two ranges [j 2^b, (j+1) 2^b)
 *    over [0, 2^R); only ranges holding occupied ids have nodes; leaves span
 *    2^leaf_bits ids.  bst_tree_extend adds ids, creating nodes where needed
 *    and growing the root when an id is beyond 2^R.
 *
 * Node ranges are stored as [lo, last] (inclusive) so that a pruned root
 * spanning all of [0, 2^63) is representable.
 *
 * Memory comes from a caller-supplied allocator (BstAlloc) so the PostgreSQL
 * glue can put a tree in its own memory context; allocation failures are
 * reported as BST_ENOMEM, never by aborting.
 */
#ifndef BST_TREE_H
#define BST_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bs_bits.h"
#include "bs_hash.h"
#include "bst_sort.h"

/* result codes of the core */
#define BST_OK			0
#define BST_ENOMEM		1		/* allocation failed */
#define BST_ETOOBIG		2		/* size limit of the representation exceeded */
#define BST_ELIMIT		3		/* a result vector reached its caller's limit */
#define BST_EINTERNAL	6		/* an invariant of the core failed (a bug) */

/* allocator: alloc returns NULL on failure; realloc too (old block kept) */
typedef struct BstAlloc
{
	void	   *(*alloc) (void *ctx, size_t size);
	void	   *(*realloc) (void *ctx, void *ptr, size_t size);
	void		(*free) (void *ctx, void *ptr);
	void	   *ctx;
} BstAlloc;

/* malloc/realloc/free */
extern const BstAlloc bst_alloc_malloc;

/* the work one call does (the paper's main metric) */
typedef struct BstStats
{
	uint64_t	intersections;	/* filter-vs-node AND-popcounts */
	uint64_t	memberships;	/* ids tested against the query filter */
	uint64_t	nodes_visited;	/* tree nodes whose filter was read */
	uint64_t	backtracks;		/* descents abandoned (dead end or rejection) */
} BstStats;

typedef enum
{
	BST_KIND_FULL = 0,
	BST_KIND_PRUNED = 1
} BstKind;

typedef struct BstNode
{
	int64_t		lo;				/* first id of the range */
	int64_t		last;			/* last id of the range (inclusive) */
	int32_t		child[2];		/* node indexes, -1 when absent */
	int32_t		parent;			/* -1 for the root */
	uint32_t	popcount;		/* bits set in the node's filter */
} BstNode;

/*
 * Inverted index: for each bit position p, the ids filed under p, as
 * entries start[p] .. start[p + 1] - 1 (ascending ids within a bucket).
 * An id is filed under the least loaded of its k positions when it comes,
 * in id order (bst_index_choose; the first position until image layout 3).
 * An entry packs the id's offset (id - lo in a full tree, its index into
 * ids in a pruned one) in its low off_bits bits and another of the id's
 * positions above them (its first, or its second when filed under the
 * first; the same one if k = 1): entry_bits =
 * bitlen(N - 1) + bitlen(m - 1) bits, stored back to back in 64-bit words
 * (42 bits an id at N = 10^7, m = 132,933; 46 at 10^8).  One entry is one
 * read (bst_index_entry), a single cache miss when sampling.
 */
typedef struct BstIndex
{
	uint32_t   *start;			/* m + 1 bucket starts, in entries */
	uint64_t   *entries;		/* bst_index_words(nentries, m) words */
	uint64_t	nentries;
	uint32_t	max_bucket;		/* largest bucket (start[p + 1] - start[p]) */
	uint32_t	off_bits;		/* bits of an entry's offset */
	uint32_t	entry_bits;		/* bits of an entry */
	uint64_t	off_mask;		/* (1 << off_bits) - 1 */
	uint64_t	entry_mask;		/* (1 << entry_bits) - 1 */
} BstIndex;

/* bits of an index entry over nids ids at m bits, and of its offset part */
extern uint32_t bst_index_entry_bits(uint64_t nids, uint32_t m, uint32_t *off_bits);

/* set the counts, widths and masks of an index over nids ids at m bits */
extern void bst_index_set_shape(BstIndex *ix, uint64_t nids, uint32_t m);

/* 64-bit words holding the entries (one spare word: every read is two words) */
extern uint64_t bst_index_words(uint64_t nids, uint32_t m);

/* entry e, packed: its offset bst_entry_off, its other position bst_entry_pos1 */
static inline uint64_t
bst_index_entry(const BstIndex *ix, uint64_t e)
{
	uint64_t	b = e * ix->entry_bits;
	const uint64_t *w = ix->entries + (b >> 6);
	unsigned	sh = (unsigned) (b & 63);

	/* the word pair's bits sh .. sh + entry_bits - 1 (no branch, no shift by 64) */
	return ((w[0] >> sh) | ((w[1] << 1) << (63 - sh))) & ix->entry_mask;
}

static inline uint32_t
bst_entry_off(const BstIndex *ix, uint64_t v)
{
	return (uint32_t) (v & ix->off_mask);
}

static inline uint32_t
bst_entry_pos1(const BstIndex *ix, uint64_t v)
{
	return (uint32_t) (v >> ix->off_bits);
}

/* prefetch entry e: the lines of both words bst_index_entry reads (mostly one) */
static inline void
bst_index_entry_prefetch(const BstIndex *ix, uint64_t e)
{
	const uint64_t *w = ix->entries + ((e * ix->entry_bits) >> 6);

	__builtin_prefetch(w);
	__builtin_prefetch(w + 1);
}

/* the largest bucket of an index (its start array scanned once) */
extern uint32_t bst_index_max_bucket(const uint32_t *start, uint32_t m);

typedef struct BstTree
{
	BstKind		kind;
	BsParams	p;
	BsHasher	hasher;
	size_t		nwords;			/* 64-bit words per filter */
	size_t		nbytes;			/* bytes per filter (8 * nwords) */
	int64_t		lo;				/* full: namespace; pruned: [0, 2^root_bits) */
	int64_t		hi;
	int			depth;			/* levels below the root */
	int64_t		leaf_size;		/* full: ids per leaf (largest); pruned: leaf span */
	int			leaf_bits;		/* pruned: log2 of the leaf span */
	int			root_bits;		/* pruned: log2 of the root span */
	int32_t		nnodes;
	int32_t		cap_nodes;
	int32_t		root;			/* -1 for an empty pruned tree */
	BstNode    *nodes;
	uint8_t    *bits;			/* nnodes filters of nbytes each */
	int64_t    *ids;			/* pruned: sorted distinct occupied ids */
	size_t		nids;
	size_t		cap_ids;
	BstIndex   *index;			/* built on demand (bst_index_build) */
	BstAlloc	alloc;
} BstTree;

static inline const uint8_t *
bst_node_bits(const BstTree *t, int32_t v)
{
	return t->bits + (size_t) v * t->nbytes;
}

static inline bool
bst_node_is_leaf(const BstTree *t, int32_t v)
{
	return t->nodes[v].child[0] < 0 && t->nodes[v].child[1] < 0;
}

/* number of ids in the tree's namespace (full) or occupied ids (pruned) */
extern uint64_t bst_tree_nids(const BstTree *t);

/*
 * The ids of a leaf: a pruned tree's leaf sets *ids to its slice of the id
 * array; a full tree's leaf sets *ids = NULL and its ids are *first ..
 * *first + *count - 1.
 */
extern void bst_leaf_ids(const BstTree *t, int32_t leaf, const int64_t **ids,
						 int64_t *first, size_t *count);

/*
 * Memory accounting.  Builds and extensions allocate exactly what these
 * functions compute (node storage is never over-reserved), so a size checked
 * against a limit before a build is the size the tree then takes, and
 * bst_tree_bytes reports what is really allocated.
 */
/* bytes of one node: its BstNode and its m-bit filter */
extern uint64_t bst_node_bytes(uint32_t m);
/* bytes a tree of nnodes nodes holding nids stored ids takes (its index apart) */
extern uint64_t bst_tree_bytes_for(uint32_t m, uint64_t nnodes, uint64_t nids);
/* bytes a full tree of this shape takes */
extern uint64_t bst_full_tree_bytes(uint64_t M, uint32_t m, int depth);
/* bytes bst_build_pruned allocates for these ids (sorted, distinct) and leaf span */
extern uint64_t bst_pruned_tree_bytes(const int64_t *ids, size_t nids, int leaf_bits,
									  uint32_t m);
/* bytes t takes after bst_tree_extend adds nw (sorted, distinct, all absent from t) */
extern uint64_t bst_extended_tree_bytes(const BstTree *t, const int64_t *nw, size_t n);
/* bytes the inverted index over nids ids takes once built */
extern uint64_t bst_index_bytes(uint64_t nids, uint32_t m);
/* bytes building that index needs at its peak (the index itself: no scratch) */
extern uint64_t bst_index_build_bytes(uint64_t nids, uint32_t m);
/* can a tree of tree_bytes over nids ids build its index within limit bytes? */
extern bool bst_index_fits(uint64_t tree_bytes, uint64_t nids, uint32_t m, uint64_t limit);
/* bytes the tree takes now (plus its index when built) */
extern uint64_t bst_tree_bytes(const BstTree *t);

/*
 * Build a full tree over [lo, hi) with 2^depth leaves; hi - lo must be in
 * [1, 2^32] and 2^depth <= hi - lo.  With with_index the inverted index is
 * built alongside (its buckets counted in the same pass, filled in a second
 * one that hashes every id again).  Returns BST_OK
 * and *out, or an error.
 */
extern int	bst_build_full(const BsParams *p, int64_t lo, int64_t hi, int depth,
						   bool with_index, const BstAlloc *alloc, BstTree **out);

/*
 * Build a pruned tree over ids (sorted ascending, distinct, >= 0, at most
 * 2^32 - 1 of them) with leaves spanning 2^leaf_bits ids, and with
 * with_index its inverted index alongside.  The tree copies ids.
 */
extern int	bst_build_pruned(const BsParams *p, const int64_t *ids, size_t nids,
							 int leaf_bits, bool with_index, const BstAlloc *alloc,
							 BstTree **out);

/*
 * Add ids (any order, duplicates and already present ids ignored, all >= 0)
 * to a pruned tree: new nodes where needed, ancestors updated, the root
 * grown when an id lies beyond it.  *added receives the number of new ids.
 * Drops the inverted index (rebuilt on demand).
 */
extern int	bst_tree_extend(BstTree *t, const int64_t *ids, size_t nids,
							size_t *added);

/*
 * Number of nodes bst_tree_extend would create for nw (sorted, distinct, all
 * absent from the tree), for a memory check before extending.
 */
extern int64_t bst_extend_new_nodes(const BstTree *t, const int64_t *nw, size_t n);

/* free a tree and its index */
extern void bst_tree_free(BstTree *t);

/* build the inverted index (no-op when present) */
extern int	bst_index_build(BstTree *t);

/* number of nodes bst_build_pruned creates for these ids (for memory checks) */
extern int64_t bst_pruned_count_nodes(const int64_t *ids, size_t nids, int leaf_bits);

/* log2 of the pruned leaf span that gives about leaf_size occupied ids per leaf */
extern int	bst_pruned_leaf_bits(const int64_t *ids, size_t nids, int64_t leaf_size);

/* log2 of an explicit pruned leaf span: the smallest b <= 62 with 2^b >= span */
extern int	bst_leaf_bits_for_span(int64_t span);

#endif							/* BST_TREE_H */
