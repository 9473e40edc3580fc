/*
 * bst_query.h
 *    Using a BloomSampleTree (PostgreSQL-independent): reconstruction of the
 *    set in a query filter and uniform sampling from it, with work counters.
 *    Design notes (why the samples are uniform): docs/bloomsampletree.md.
 *
 * Query filters must have the tree's parameters (the caller checks) and
 * t->nwords words.
 *
 * Reconstruction (bst_reconstruct_index) does not hash every id of the
 * namespace: the tree's inverted index lists, for each bit position p, the
 * ids whose first hash position is p (with their second position).  Every
 * positive has its first position set in q, so the candidates are the ids
 * listed under q's set bits, about M * t / m of them; a candidate whose second
 * position is clear is rejected with one bit test, and only the survivors are
 * hashed and tested in full.  The answer is exactly the dictionary attack's.
 *
 * Sampling (bst_sample) either uses the index (exactly uniform: rejection
 * over the candidate ids under q's set bits, each candidate drawn uniformly
 * and kept when q reports it, falling back to enumerating all positives and
 * drawing from them when positives are rare among the candidates), or
 * descends the tree (Algorithm 1 of the paper) proportionally to the
 * estimated intersection sizes and corrects the bias by rejection: a descent
 * that reaches leaf L with probability pi(L) holding c(L) positives (counted
 * exactly by enumerating the leaf) is accepted with probability
 * c(L) / (pi(L) * B), then one of the leaf's positives is picked uniformly.
 * Each positive is then returned with probability 1/B per descent: uniform.
 * B starts at twice the estimated number of positives and is raised when a
 * leaf exceeds it (counted in BstSampleInfo.bound_raises): such a leaf was
 * under-sampled until then, the method's only bias, which is large for calls
 * of a few samples because the estimates at deep levels are noisy.  Within one call,
 * node estimates and enumerated leaves are kept: an enumerated leaf's weight
 * becomes its exact count, and a subtree whose leaves are all enumerated
 * weighs exactly the sum of their counts, so later draws are cheaper and
 * rejected less.
 */
#ifndef BST_QUERY_H
#define BST_QUERY_H

#include "bst_rng.h"
#include "bst_tree.h"

/*
 * A growable vector of ids in a caller-chosen allocator, holding at most max
 * ids (0: no limit; a push beyond it is BST_ELIMIT).  Results are collected
 * in such vectors: the limit bounds their memory whatever the input (a
 * dictionary attack with a saturated filter over [0, 2^62) matches every id).
 */
typedef struct BstIdVec
{
	int64_t    *v;
	size_t		n;
	size_t		cap;
	size_t		max;
	BstAlloc	alloc;
} BstIdVec;

/* an empty vector allocating through alloc, without limit or at most max ids */
extern void bst_vec_init(BstIdVec *vec, const BstAlloc *alloc);
extern void bst_vec_init_max(BstIdVec *vec, const BstAlloc *alloc, size_t max);
/* append x (doubling the array): BST_OK, BST_ELIMIT past max, or BST_ENOMEM */
extern int	bst_vec_push(BstIdVec *vec, int64_t x);
/* free the ids; the vector is empty again and may be reused */
extern void bst_vec_free(BstIdVec *vec);

typedef enum
{
	BST_SAMPLE_AUTO = 0,		/* ENUMERATE when the index exists or may be built,
								 * else the exact tree walk, then draws */
	BST_SAMPLE_DESCENT = 1,		/* tree descent with rejection (Algorithm 1 + correction) */
	BST_SAMPLE_ENUMERATE = 2,	/* with the index: candidate rejection, else enumeration */
	BST_SAMPLE_SCAN = 3			/* test every id of the tree, then draw from the members */
} BstSampleMethod;

/* how a reconstruction finds the members (bst_reconstruct_way) */
typedef enum
{
	BST_WAY_INDEX = 0,			/* the inverted index (bst_reconstruct_index_pos) */
	BST_WAY_TREE = 1,			/* the tree walk (bst_reconstruct_tree) */
	BST_WAY_SCAN = 2			/* test every id of the tree (bst_reconstruct_scan) */
} BstWay;

typedef struct BstSampleInfo
{
	BstSampleMethod used;		/* the method actually used */
	uint64_t	bound_raises;	/* descents whose c/pi exceeded the bound */
	uint64_t	attempts;		/* descents started */
} BstSampleInfo;

/*
 * Every id of the tree that q reports as a member, ascending, appended to out.
 * Builds the tree's inverted index when missing (BST_ENOMEM if it cannot).
 */
extern int	bst_reconstruct_index(BstTree *t, const uint8_t *q, BstIdVec *out,
								  BstStats *st);

/*
 * bst_reconstruct_index given also q's set positions qpos[0..nq), ascending
 * (a sparse stored value's decoded positions): the same answer without a
 * scan of q's m bits.  qpos NULL is bst_reconstruct_index.
 */
extern int	bst_reconstruct_index_pos(BstTree *t, const uint8_t *q, const uint32_t *qpos,
									  uint64_t nq, BstIdVec *out, BstStats *st);

/*
 * The same answer by walking the tree (paper, section 6) with exact pruning
 * (a subtree is skipped only when its filter and q share no bit) and testing
 * every id of each leaf reached.  Needs no index.
 */
extern int	bst_reconstruct_tree(const BstTree *t, const uint8_t *q, BstIdVec *out,
								 BstStats *st);

/*
 * n independent samples, each uniform over the tree's ids that q reports as
 * members, appended to out (nothing when there is none).  scratch allocates
 * the per-call state.  AUTO uses ENUMERATE when the index exists or
 * allow_index is true (it fits the memory limit) unless the cost model says
 * SCAN is cheaper for n samples (bst_plan.h: a filter so full that drawing
 * costs more than testing every id), otherwise it reconstructs by the exact
 * tree walk and draws from the result: AUTO is always exactly uniform.  SCAN
 * tests every id of the tree and draws from the members: exactly uniform.  DESCENT is uniform only when the bound B is never raised, which
 * holds in practice when one call draws many samples (the call resolves the
 * tree); single-sample descents are biased (test_bst.c prints the chi2).
 */
extern int	bst_sample(BstTree *t, const uint8_t *q, int64_t n,
					   BstSampleMethod method, bool allow_index, BstRng *rng,
					   const BstAlloc *scratch, BstIdVec *out, BstStats *st,
					   BstSampleInfo *info);

/*
 * bst_sample given also q's set positions qpos[0..nq), ascending, exactly
 * those of q's bits (or NULL: bst_sample): the index methods take them as
 * they are instead of scanning q's m bits (popcount, positions), and draw
 * exactly the samples bst_sample draws from the same generator state.
 */
extern int	bst_sample_pos(BstTree *t, const uint8_t *q, const uint32_t *qpos,
						   uint64_t nq, int64_t n, BstSampleMethod method,
						   bool allow_index, BstRng *rng, const BstAlloc *scratch,
						   BstIdVec *out, BstStats *st, BstSampleInfo *info);

/*
 * The method AUTO stands for with a query of tq set bits and n samples:
 * ENUMERATE (the index) unless the cost model prefers SCAN for n samples;
 * AUTO itself (the tree walk) when the index neither exists nor may be built
 * (allow_index).  Other methods are returned as they are.
 */
extern BstSampleMethod bst_sample_resolve(const BstTree *t, uint64_t tq, int64_t n,
										  BstSampleMethod method, bool allow_index);

/*
 * The cheaper way to reconstruct q's members, by the cost model of
 * bst_plan.h (bst_cost_index, bst_cost_scan): the index or the scan of every
 * id when the index exists or may be built (allow_index), else the tree walk.
 * tq: popcount(q).  All ways give the same answer.
 */
extern BstWay bst_reconstruct_choose(const BstTree *t, uint64_t tq, bool allow_index);

/*
 * Every id of the tree that q reports as a member, ascending, appended to out,
 * found the given way (qpos, nq as for bst_reconstruct_index_pos; only the
 * index way reads them)
 */
extern int	bst_reconstruct_way(BstTree *t, const uint8_t *q, const uint32_t *qpos,
								uint64_t nq, BstWay way, BstIdVec *out, BstStats *st);

/*
 * n distinct samples: min(n, P) of the P ids of the tree that q reports as
 * members, uniform among the subsets of that size (all P members when
 * P <= n), appended to out in random order.  When n is small against the
 * estimated P (at most half of it) and the method draws from the index (or
 * descends), it draws with replacement and rejects repeats: each accepted
 * draw is uniform over the members not yet drawn, so the ordered draws are
 * uniform over sequences of distinct members and their set over subsets.
 * Otherwise, or when the repeats cost more than 4n + 64 draws (P was
 * overestimated), it reconstructs (bst_reconstruct_choose's way, or the scan
 * for SCAN) and draws by a partial Fisher-Yates shuffle.  Discarding the
 * rejection phase's draws at that switch keeps the result uniform: the
 * switch depends only on how many draws were repeats, which is the same for
 * every relabelling of the members.  Arguments as for bst_sample_pos;
 * exactly uniform for every method but DESCENT (whose draws are uniform only
 * as bst_sample says).
 */
extern int	bst_sample_distinct_pos(BstTree *t, const uint8_t *q, const uint32_t *qpos,
									uint64_t nq, int64_t n, BstSampleMethod method,
									bool allow_index, BstRng *rng, const BstAlloc *scratch,
									BstIdVec *out, BstStats *st, BstSampleInfo *info);

#endif							/* BST_QUERY_H */
