/*
 * bst_image.h
 *    Flat images of BloomSampleTrees (PostgreSQL-independent): one
 *    contiguous, position-independent byte layout of a built tree and its
 *    inverted index, written once and then used in place, read-only, by any
 *    number of processes that map it.  Design notes: docs/bloomsampletree.md
 *    (one copy per cluster).
 *
 * An image is a header, the tree's name, then the node array, the node
 * filters, the pruned ids, the index's bucket starts and packed entries, each at a 64-byte aligned
 * offset recorded in the header (offsets, never pointers).  bst_image_open
 * checks the header against what the caller expects (name, generation,
 * layout version, sizes) and fills a BstTree whose arrays point into the
 * image: every query function of bst_query.h works on it unchanged (opening
 * scans the index's bucket starts once, O(m)).  The
 * image is a cache of a tree that is a deterministic function of its
 * definition: callers rebuild it when it is missing or does not match.
 */
#ifndef BST_IMAGE_H
#define BST_IMAGE_H

#include "bst_tree.h"

#define BST_EIMAGE		4		/* an image does not match or is malformed */
#define BST_EIO			5		/* the writer callback failed */

/*
 * layout version: bump on any change of the header, of BstNode or of what
 * the index holds (3: ids filed under their least loaded position, so that
 * a tree's image is the index this build makes, not an older build's)
 */
#define BST_IMAGE_VERSION	3

/* a tree opened over an image: the BstTree header and its index descriptor */
typedef struct BstMappedTree
{
	BstTree		tree;
	BstIndex	index;
} BstMappedTree;

/*
 * Writer callback: append len bytes; returns 0 on success (anything else
 * makes bst_image_write return BST_EIO).
 */
typedef int (*BstImageWriteFn) (void *ctx, const void *buf, size_t len);

/* bytes of the image of t named by a name of namelen bytes */
extern uint64_t bst_image_bytes(const BstTree *t, size_t namelen);

/*
 * Stream the image of t (with its index when built) through write, tagged
 * with name and generation.  Exactly bst_image_bytes(t, strlen(name)) bytes
 * are written.
 */
extern int	bst_image_write(const BstTree *t, const char *name, int64_t generation,
							BstImageWriteFn write, void *ctx);

/*
 * Open the image at base (len bytes; 8-byte aligned, e.g. a mapping) as a
 * tree: BST_OK and *out filled, or BST_EIMAGE when it is not an image of
 * this layout version, of this name and generation, or its sizes do not
 * add up.  out->tree's arrays point into base, which must outlive it; never
 * call bst_tree_free or bst_tree_extend on it.  alloc serves a later
 * bst_index_build when the image holds no index.
 */
extern int	bst_image_open(const void *base, size_t len, const char *name,
						   int64_t generation, const BstAlloc *alloc,
						   BstMappedTree *out);

/*
 * Release what a tree opened over an image allocated itself (an index built
 * on demand through its alloc); the image is the caller's.
 */
extern void bst_image_close(BstMappedTree *mt);

#endif							/* BST_IMAGE_H */
