/*
 * bst_query.c
 *    Reconstruction and sampling with a BloomSampleTree, and the dispatch of
 *    a reconstruction to the way chosen (bst_reconstruct_way: the index, the
 *    tree walk, or bst_baseline.c's scan).  See bst_query.h for the methods
 *    and why the samples are uniform.  Distinct samples and the choice of a
 *    way are above it, in bst_method.c, which calls down into this file.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bs_estimate.h"
#include "bst_baseline.h"
#include "bst_plan.h"
#include "bst_query.h"

/* ---------------------------------------------------------------------------
 * reconstruction
 * ---------------------------------------------------------------------------
 */

/* the id of an index entry's offset */
static inline int64_t
entry_id(const BstTree *t, uint32_t off)
{
	return t->kind == BST_KIND_FULL ? t->lo + (int64_t) off : t->ids[off];
}

/* the candidates under q's set bit p: positives appended to out */
static inline int
reconstruct_bucket(const BstTree *t, const uint8_t *q, uint32_t p, BstIdVec *out,
				   uint64_t *examined)
{
	const BstIndex *ix = t->index;
	uint32_t	e0 = ix->start[p],
				e1 = ix->start[p + 1];
	int			k = t->p.k;
	int			rc;

	*examined += e1 - e0;
	for (uint32_t e = e0; e < e1; e++)
	{
		uint64_t	v = bst_index_entry(ix, e);
		int64_t		x;

		if (!bs_bit_test(q, bst_entry_pos1(ix, v)))
			continue;
		x = entry_id(t, bst_entry_off(ix, v));
		if (k > 2 && !bs_key_test(&t->hasher, bs_key_int64(&t->hasher, x), q))
			continue;
		if ((rc = bst_vec_push(out, x)) != BST_OK)
			return rc;
	}
	return BST_OK;
}

int
bst_reconstruct_index(BstTree *t, const uint8_t *q, BstIdVec *out, BstStats *st)
{
	return bst_reconstruct_index_pos(t, q, NULL, 0, out, st);
}

int
bst_reconstruct_index_pos(BstTree *t, const uint8_t *q, const uint32_t *qpos,
						  uint64_t nq, BstIdVec *out, BstStats *st)
{
	int			rc = bst_index_build(t);
	size_t		first = out->n;
	uint64_t	examined = 0;

	if (rc != BST_OK)
		return rc;
	if (qpos)
	{
		for (uint64_t i = 0; i < nq; i++)
		{
			if ((i & 0x3FF) == 0)
				BST_CHECK_INTERRUPTS();
			if ((rc = reconstruct_bucket(t, q, qpos[i], out, &examined)) != BST_OK)
				return rc;
		}
	}
	else
		for (size_t w = 0; w < t->nwords; w++)
		{
			uint64_t	word = bs_load64le(q + 8 * w);

			if ((w & 0x3FF) == 0)
				BST_CHECK_INTERRUPTS();
			while (word)
			{
				uint32_t	p = (uint32_t) (64 * w + (size_t) __builtin_ctzll(word));

				word &= word - 1;
				if ((rc = reconstruct_bucket(t, q, p, out, &examined)) != BST_OK)
					return rc;
			}
		}
	if (out->n > first)
		bst_sort_ids(out->v + first, out->n - first);
	if (st)
		st->memberships += examined;
	return BST_OK;
}

/* test every id of a leaf; positives appended to out */
static int
scan_leaf(const BstTree *t, int32_t leaf, const uint8_t *q, BstIdVec *out,
		  BstStats *st)
{
	const int64_t *ids;
	int64_t		first;
	size_t		count;
	int			rc;

	bst_leaf_ids(t, leaf, &ids, &first, &count);
	if (st)
		st->memberships += count;
	for (size_t i = 0; i < count; i++)
	{
		int64_t		x = ids ? ids[i] : first + (int64_t) i;

		if ((i & 0xFFFF) == 0xFFFF)
			BST_CHECK_INTERRUPTS();
		if (bs_key_test(&t->hasher, bs_key_int64(&t->hasher, x), q))
			if ((rc = bst_vec_push(out, x)) != BST_OK)
				return rc;
	}
	return BST_OK;
}

/*
 * Push onto out, ascending, every id below node v that q reports a member:
 * subtrees whose filter q does not intersect are skipped, leaves scanned
 */
static int
reconstruct_node(const BstTree *t, int32_t v, const uint8_t *q, BstIdVec *out,
				 BstStats *st)
{
	int			rc;

	BST_CHECK_INTERRUPTS();
	st->nodes_visited++;
	st->intersections++;
	if (!bs_intersects(q, bst_node_bits(t, v), t->nwords))
		return BST_OK;
	if (bst_node_is_leaf(t, v))
		return scan_leaf(t, v, q, out, st);
	for (int c = 0; c < 2; c++)
		if (t->nodes[v].child[c] >= 0)
			if ((rc = reconstruct_node(t, t->nodes[v].child[c], q, out, st)) != BST_OK)
				return rc;
	return BST_OK;
}

int
bst_reconstruct_tree(const BstTree *t, const uint8_t *q, BstIdVec *out, BstStats *st)
{
	BstStats	dummy;

	if (!st)
		st = &dummy;
	if (t->root < 0)
		return BST_OK;
	/* leaves are visited left to right: the output ascends */
	return reconstruct_node(t, t->root, q, out, st);
}

/* ---------------------------------------------------------------------------
 * sampling by descent with rejection
 * ---------------------------------------------------------------------------
 */
#define ST_UNKNOWN	0
#define ST_EST		1
#define ST_EXACT	2

/* weight of a subtree whose filter meets q but whose estimate is ~0 */
#define WEIGHT_FLOOR	1.0
/* initial rejection bound, as a multiple of the estimated positives */
#define BOUND_SLACK		2.0

typedef struct Sampler
{
	BstTree    *t;
	const uint8_t *q;
	uint64_t	tq;				/* popcount(q) */
	double		qcard;			/* estimated |q| */
	double	   *w;				/* per node: estimate, or exact count */
	double	   *lb;				/* per node: positives known below it */
	uint8_t    *state;
	int64_t    *leaf_off;		/* per node: offset of its positives in pool */
	uint32_t   *leaf_cnt;
	BstIdVec	pool;
	BstStats   *st;
} Sampler;

static void resolve(Sampler *s, int32_t v, double count);

/* number of ids a node covers (full) or holds (pruned) */
static double
node_ids(const BstTree *t, int32_t v)
{
	if (t->kind == BST_KIND_FULL)
		return (double) (t->nodes[v].last - t->nodes[v].lo + 1);
	else
	{
		const int64_t *ids;
		int64_t		first;
		size_t		count;

		/* only used when a filter is full: rare, cost is a binary search */
		bst_leaf_ids(t, v, &ids, &first, &count);
		return (double) count;
	}
}

/* a node's weight for the descent; computes its estimate on first use */
static double
weight(Sampler *s, int32_t c)
{
	BstTree    *t = s->t;
	double		w;

	if (c < 0)
		return 0.0;
	if (s->state[c] == ST_UNKNOWN)
	{
		uint64_t	and = bs_and_popcount(s->q, bst_node_bits(t, c), t->nwords);

		s->st->intersections++;
		s->st->nodes_visited++;
		if (and == 0)
			resolve(s, c, 0.0);	/* no id below c can be in q: exact */
		else
		{
			double		est = bs_est_intersection(t->p.m, t->p.k, s->tq,
												  t->nodes[c].popcount, and);

			if (s->tq >= t->p.m || t->nodes[c].popcount >= t->p.m)
			{
				/* a full filter: split the estimated |q| by namespace share */
				double		tot = (double) bst_tree_nids(t);

				est = tot > 0 ? s->qcard * node_ids(t, c) / tot : 1.0;
				if (!isfinite(est))
					est = node_ids(t, c);
			}
			s->w[c] = est;
			s->state[c] = ST_EST;
		}
	}
	if (s->state[c] == ST_EXACT)
		return s->w[c];
	w = s->w[c];
	if (w < s->lb[c])
		w = s->lb[c];
	if (w < WEIGHT_FLOOR)
		w = WEIGHT_FLOOR;
	return w;
}

/* v's positive count is known exactly: record it and tell its ancestors */
static void
resolve(Sampler *s, int32_t v, double count)
{
	BstTree    *t = s->t;
	int32_t		u;

	s->w[v] = count;
	s->state[v] = ST_EXACT;
	for (u = t->nodes[v].parent; u >= 0; u = t->nodes[u].parent)
		s->lb[u] += count;
	for (u = t->nodes[v].parent; u >= 0; u = t->nodes[u].parent)
	{
		const BstNode *n = &t->nodes[u];
		double		sum = 0;
		bool		all = true;

		for (int c = 0; c < 2; c++)
			if (n->child[c] >= 0)
			{
				if (s->state[n->child[c]] != ST_EXACT)
					all = false;
				else
					sum += s->w[n->child[c]];
			}
		if (!all)
			break;
		s->w[u] = sum;
		s->state[u] = ST_EXACT;
	}
}

/*
 * Scan leaf v once (later calls do nothing): its members of q go to the
 * sampler's pool, their offset and count are kept, and v's weight is
 * resolved exactly
 */
static int
enumerate_leaf(Sampler *s, int32_t v)
{
	int			rc;
	size_t		before = s->pool.n;

	if (s->leaf_off[v] >= 0)
		return BST_OK;
	if ((rc = scan_leaf(s->t, v, s->q, &s->pool, s->st)) != BST_OK)
		return rc;
	s->leaf_off[v] = (int64_t) before;
	s->leaf_cnt[v] = (uint32_t) (s->pool.n - before);
	resolve(s, v, (double) s->leaf_cnt[v]);
	return BST_OK;
}

/*
 * BST_SAMPLE_DESCENT: n samples, each by a descent from the root that picks
 * a child in proportion to its estimated weight (pi: the descent's
 * probability), enumerates the leaf reached (c members) and accepts one of
 * its members, uniformly, with probability (c / pi) / B; the bound B is
 * raised when c / pi exceeds it (counted in info->bound_raises)
 */
static int
sample_descent(BstTree *t, const uint8_t *q, int64_t n, BstRng *rng,
			   const BstAlloc *scratch, BstIdVec *out, BstStats *st,
			   BstSampleInfo *info)
{
	Sampler		s;
	size_t		nn = (size_t) t->nnodes;
	int			rc = BST_OK;
	double		B = 0;
	int64_t		got = 0;

	if (t->root < 0 || n <= 0)
		return BST_OK;
	memset(&s, 0, sizeof(s));
	s.t = t;
	s.q = q;
	s.st = st;
	s.tq = bs_popcount(q, t->nwords);
	/* a full q's size is unknown: below, a full node's weight is then its ids */
	s.qcard = s.tq < t->p.m ? bs_est_cardinality(t->p.m, t->p.k, s.tq) : INFINITY;
	s.w = scratch->alloc(scratch->ctx, nn * sizeof(double));
	s.lb = scratch->alloc(scratch->ctx, nn * sizeof(double));
	s.state = scratch->alloc(scratch->ctx, nn);
	s.leaf_off = scratch->alloc(scratch->ctx, nn * sizeof(int64_t));
	s.leaf_cnt = scratch->alloc(scratch->ctx, nn * sizeof(uint32_t));
	bst_vec_init(&s.pool, scratch);
	if (!s.w || !s.lb || !s.state || !s.leaf_off || !s.leaf_cnt)
	{
		rc = BST_ENOMEM;
		goto done;
	}
	memset(s.lb, 0, nn * sizeof(double));
	memset(s.state, ST_UNKNOWN, nn);
	for (size_t i = 0; i < nn; i++)
		s.leaf_off[i] = -1;

	while (got < n)
	{
		int32_t		v = t->root;
		double		pi = 1.0;
		uint32_t	c;
		double		r;
		bool		exact;

		BST_CHECK_INTERRUPTS();
		if (s.state[t->root] == ST_EXACT && s.w[t->root] == 0)
			break;				/* no positive at all */
		/* the proposal of this descent is exact when the root already was */
		exact = s.state[t->root] == ST_EXACT;
		info->attempts++;
		while (!bst_node_is_leaf(t, v))
		{
			const BstNode *nd = &t->nodes[v];
			double		w0 = weight(&s, nd->child[0]),
						w1 = weight(&s, nd->child[1]);
			int			pick;

			if (w0 + w1 <= 0)
			{
				resolve(&s, v, 0.0);	/* both children exactly empty */
				break;
			}
			if (B == 0)
				B = BOUND_SLACK * (w0 + w1);
			pick = bst_rng_double(rng) * (w0 + w1) < w0 ? 0 : 1;
			if (nd->child[pick] < 0)
				pick = 1 - pick;
			pi *= (pick ? w1 : w0) / (w0 + w1);
			v = nd->child[pick];
		}
		if (!bst_node_is_leaf(t, v))
		{
			st->backtracks++;
			continue;
		}
		if ((rc = enumerate_leaf(&s, v)) != BST_OK)
			goto done;
		c = s.leaf_cnt[v];
		if (c == 0)
		{
			st->backtracks++;
			continue;
		}
		r = (double) c / pi;
		if (B == 0)
			B = BOUND_SLACK * r;
		if (exact)
		{
			/*
			 * Every weight on the path was an exact count: pi = c / N, so the
			 * descent itself was uniform; no rejection needed.
			 */
		}
		else if (r > B && B > 0)
		{
			info->bound_raises++;
			B = r;
		}
		else if (bst_rng_double(rng) * B >= r)
		{
			st->backtracks++;
			continue;
		}
		if ((rc = bst_vec_push(out, s.pool.v[s.leaf_off[v] + (int64_t) bst_rng_below(rng, c)])) != BST_OK)
			goto done;
		got++;
	}
done:
	bst_vec_free(&s.pool);
	if (s.w)
		scratch->free(scratch->ctx, s.w);
	if (s.lb)
		scratch->free(scratch->ctx, s.lb);
	if (s.state)
		scratch->free(scratch->ctx, s.state);
	if (s.leaf_off)
		scratch->free(scratch->ctx, s.leaf_off);
	if (s.leaf_cnt)
		scratch->free(scratch->ctx, s.leaf_cnt);
	return rc;
}

/*
 * The positions of q's set bits, ascending, into pos (which holds
 * popcount(q) + 4 entries); returns their number.  Four positions are
 * written per word whatever it holds (the count advances by its popcount),
 * so that the loop does not branch on each bit: words of a sparse filter
 * hold 0 to 3 set bits at random, a branch the processor cannot predict.
 * (Built for the POPCNT instruction where the CPU has it: without it the
 * popcount is a libgcc call per word.)
 */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && \
	!defined(BS_NO_TARGET_CLONES)
#define BS_QUERY_POPCNT_CLONES __attribute__((target_clones("popcnt", "default")))
#else
#define BS_QUERY_POPCNT_CLONES
#endif

BS_QUERY_POPCNT_CLONES
static uint64_t
set_positions(const uint8_t *q, size_t nwords, uint32_t *pos)
{
	uint64_t	n = 0;

	for (size_t w = 0; w < nwords; w++)
	{
		uint64_t	word = bs_load64le(q + 8 * w);
		uint32_t	base = (uint32_t) (64 * w);
		int			c = __builtin_popcountll(word);

		for (int i = 0; i < 4; i++)
		{
			pos[n + i] = base + (uint32_t) (word ? __builtin_ctzll(word) : 0);
			word &= word - 1;
		}
		if (c > 4)
		{
			for (int i = 4; i < c; i++)
			{
				pos[n + i] = base + (uint32_t) __builtin_ctzll(word);
				word &= word - 1;
			}
		}
		n += (uint64_t) c;
	}
	return n;
}

/*
 * Exact sampling by rejection over the index's candidates: the candidates of
 * q are the index entries under q's set bits, each id at most once (under its
 * first position), every positive among them.  Draw a candidate uniformly
 * (prefix sums of the bucket sizes, found through a guide table), accept it
 * when q reports it: the accepted id is uniform over the positives,
 * independently of how many draws it took.  Draws go in batches of
 * CAND_BATCH whose index entries are prefetched together (a draw's cost is
 * one cache miss into the index; a batch overlaps them) and are examined in
 * draw order, so the first accepted ones are what sequential draws would
 * accept.  Gives up (the caller then enumerates) after about a quarter of the
 * candidates' count in draws, or earlier when the acceptance rate seen so far
 * says the remaining draws would cost more than one scan of the candidates:
 * cheap for a few samples, bounded when positives are rare among the
 * candidates (or absent), and the switch never biases a sample.  *got
 * receives the number of samples appended.
 */
#define CAND_BATCH	16
#define CAND_DRAW_SCANS	3.0		/* a draw costs this many candidates scanned */

/*
 * accept_packed: examine the nok index entries e[] proposed by a batch of
 * CAND_BATCH trials in draw order (at[j]: the trial that proposed e[j],
 * ascending): an entry whose id q reports is appended to out, until *got
 * reaches n.  Adds to *tries the trials examined: up to the one that gave
 * the n-th sample, else the whole batch.  Returns BST_OK or bst_vec_push's
 * error.
 */
static inline int
accept_packed(const BstTree *t, const uint8_t *q, const uint32_t *e, const uint8_t *at,
			  int nok, int64_t n, BstIdVec *out, int64_t *got, uint64_t *tries)
{
	const BstIndex *ix = t->index;

	for (int j = 0; j < nok; j++)
	{
		uint64_t	v = bst_index_entry(ix, e[j]);
		int64_t		x;
		int			rc;

		if (!bs_bit_test(q, bst_entry_pos1(ix, v)))
			continue;
		x = entry_id(t, bst_entry_off(ix, v));
		if (t->p.k > 2 && !bs_key_test(&t->hasher, bs_key_int64(&t->hasher, x), q))
			continue;
		if ((rc = bst_vec_push(out, x)) != BST_OK)
			return rc;
		if (++(*got) == n)
		{
			*tries += (uint64_t) at[j] + 1;
			return BST_OK;
		}
	}
	*tries += CAND_BATCH;
	return BST_OK;
}

/* the exact sampling by rejection over the index's candidates described above CAND_BATCH */
static int
sample_candidates(BstTree *t, const uint8_t *q, const uint32_t *qpos, uint64_t tq,
				  int64_t n, BstRng *rng, const BstAlloc *scratch, BstIdVec *out,
				  BstStats *st, int64_t *got)
{
	const BstIndex *ix = t->index;
	uint32_t   *bp;
	uint64_t   *cum;
	uint32_t   *guide;
	uint8_t		every[CAND_BATCH];	/* every trial proposes an entry */
	uint64_t	nb = 0,
				C,
				budget,
				tries = 0;
	int			rc = BST_OK;

	*got = 0;
	if (tq == 0 || n <= 0)
		return BST_OK;
	bp = scratch->alloc(scratch->ctx, (tq + 4) * sizeof(uint32_t));
	cum = scratch->alloc(scratch->ctx, (tq + 1) * sizeof(uint64_t));
	guide = scratch->alloc(scratch->ctx, (tq + 1) * sizeof(uint32_t));
	if (!bp || !cum || !guide)
	{
		if (bp)
			scratch->free(scratch->ctx, bp);
		if (cum)
			scratch->free(scratch->ctx, cum);
		if (guide)
			scratch->free(scratch->ctx, guide);
		return BST_ENOMEM;
	}
	/* q's set bits, then the prefix sums of their buckets */
	if (qpos)
	{
		memcpy(bp, qpos, tq * sizeof(uint32_t));
		nb = tq;
	}
	else
		nb = set_positions(q, t->nwords, bp);
	cum[0] = 0;
	{
		uint64_t	k = 0;

		for (uint64_t i = 0; i < nb; i++)
		{
			uint32_t	p = bp[i];
			uint32_t	size = ix->start[p + 1] - ix->start[p];

			if (size == 0)
				continue;
			bp[k] = p;
			cum[k + 1] = cum[k] + size;
			k++;
		}
		nb = k;
	}
	C = cum[nb];
	/* guide[g]: the bucket holding candidate floor(g * C / nb) */
	if (C > 0)
	{
		uint64_t	b = 0;

		for (uint64_t g = 0; g < nb; g++)
		{
			uint64_t	r = (uint64_t) (((unsigned __int128) g * C) / nb);

			while (cum[b + 1] <= r)
				b++;
			guide[g] = (uint32_t) b;
		}
	}
	budget = C / 4 + 64;
	for (int j = 0; j < CAND_BATCH; j++)
		every[j] = (uint8_t) j;
	while (C > 0 && *got < n && tries < budget)
	{
		uint32_t	e[CAND_BATCH];

		/*
		 * Every 16 batches: switch to enumeration when the draws still needed
		 * at the acceptance rate so far (one acceptance more than seen: a slow
		 * start does not switch) would cost more than one scan of all C.
		 */
		if ((tries & 0xFF) == 0 && tries > 0)
		{
			if (*got > 0 &&
				(double) (n - *got) * (double) tries / (double) (*got + 1) *
				CAND_DRAW_SCANS > (double) C)
				break;
			BST_CHECK_INTERRUPTS();
		}
		for (int j = 0; j < CAND_BATCH; j++)
		{
			uint64_t	r = bst_rng_below(rng, C);
			uint64_t	b = guide[(uint64_t) (((unsigned __int128) r * nb) / C)];

			while (cum[b + 1] <= r)
				b++;
			e[j] = ix->start[bp[b]] + (uint32_t) (r - cum[b]);
			bst_index_entry_prefetch(ix, e[j]);
		}
		if ((rc = accept_packed(t, q, e, every, CAND_BATCH, n, out, got, &tries)) != BST_OK)
			break;
	}
	st->memberships += tries;
	scratch->free(scratch->ctx, bp);
	scratch->free(scratch->ctx, cum);
	scratch->free(scratch->ctx, guide);
	return rc;
}

/*
 * A batch of CAND_BATCH bucket trials (sample_buckets): drawn (p: one of q's
 * set bits, u: a place below the largest bucket, both from one 64-bit draw;
 * the bucket starts prefetched), then resolved (e[]: the entries of the nok
 * trials with u below their bucket's size, about 60% at random, packed
 * without a branch; at[]: their places in the batch; the entries prefetched).
 */
typedef struct BucketBatch
{
	uint32_t	p[CAND_BATCH];
	uint32_t	u[CAND_BATCH];
	uint32_t	e[CAND_BATCH];
	uint8_t		at[CAND_BATCH];
	int			nok;
} BucketBatch;

static inline void
bucket_batch_draw(BucketBatch *b, const BstIndex *ix, const uint32_t *bp, uint64_t nb,
				  uint32_t S, BstRng *rng)
{
	for (int j = 0; j < CAND_BATCH; j++)
	{
		uint32_t	i;

		bst_rng_below_pair(rng, (uint32_t) nb, S, &i, &b->u[j]);
		b->p[j] = bp[i];
		__builtin_prefetch(&ix->start[b->p[j]]);
	}
}

static inline void
bucket_batch_resolve(BucketBatch *b, const BstIndex *ix)
{
	int			nok = 0;

	for (int j = 0; j < CAND_BATCH; j++)
	{
		uint32_t	s0 = ix->start[b->p[j]];

		b->e[nok] = s0 + b->u[j];
		b->at[nok] = (uint8_t) j;
		nok += b->u[j] < ix->start[b->p[j] + 1] - s0;
	}
	for (int j = 0; j < nok; j++)
		bst_index_entry_prefetch(ix, b->e[j]);
	b->nok = nok;
}

/*
 * Exact sampling for a few samples without the per-query prefix sums:
 * pick one of q's set bits p uniformly and u uniformly in [0, S) (S: the
 * largest bucket of the index); the trial proposes entry start[p] + u when
 * u < size(p), else nothing.  Every candidate entry is then proposed with
 * probability 1 / (tq * S), uniformly, and accepted when q reports its id:
 * accepted ids are uniform over the positives.  A trial touches two cache
 * lines of the index (the bucket's start, the entry), batched and prefetched
 * as in sample_candidates, instead of one per set bit of q for the prefix
 * sums: the cheaper way when n is small against popcount(q).  Gives up after
 * budget trials (*got < n: the caller continues another way).
 */
static int
sample_buckets(BstTree *t, const uint8_t *q, const uint32_t *qpos, int64_t n, uint64_t tq,
			   BstRng *rng, const BstAlloc *scratch, BstIdVec *out, BstStats *st,
			   int64_t *got)
{
	const BstIndex *ix = t->index;
	uint32_t	S = ix->max_bucket;
	uint32_t   *owned = NULL;
	const uint32_t *bp;
	uint64_t	nb = 0,
				tries = 0,
				budget;
	int			rc = BST_OK;

	*got = 0;
	if (tq == 0 || n <= 0 || S == 0)
		return BST_OK;
	if (qpos)
	{
		bp = qpos;
		nb = tq;
	}
	else
	{
		owned = scratch->alloc(scratch->ctx, (tq + 4) * sizeof(uint32_t));
		if (!owned)
			return BST_ENOMEM;
		nb = set_positions(q, t->nwords, owned);
		bp = owned;
	}
	/* about as many trials as a quarter of the candidates' entries */
	budget = (uint64_t) ((double) nb * S / 4.0) + 64;

	/*
	 * Pipelined three batches deep: while batch b's entries are examined,
	 * batch b + 1's entries and batch b + 2's bucket starts are fetched.  The
	 * trials are drawn and examined in order, as one at a time would be.
	 */
	{
		BucketBatch bb[3];
		int			cur = 0;

		bucket_batch_draw(&bb[0], ix, bp, nb, S, rng);
		bucket_batch_draw(&bb[1], ix, bp, nb, S, rng);
		bucket_batch_resolve(&bb[0], ix);
		while (*got < n && tries < budget)
		{
			int			nxt = cur == 2 ? 0 : cur + 1,
						far = nxt == 2 ? 0 : nxt + 1;

			if ((tries & 0xFFF) == 0 && tries > 0)
				BST_CHECK_INTERRUPTS();
			bucket_batch_draw(&bb[far], ix, bp, nb, S, rng);
			bucket_batch_resolve(&bb[nxt], ix);
			if ((rc = accept_packed(t, q, bb[cur].e, bb[cur].at, bb[cur].nok, n, out, got,
									&tries)) != BST_OK)
				break;
			cur = nxt;
		}
	}
	st->memberships += tries;
	if (owned)
		scratch->free(scratch->ctx, owned);
	return rc;
}

/* q's members found the given way (bst_reconstruct_choose's choice, say) */
int
bst_reconstruct_way(BstTree *t, const uint8_t *q, const uint32_t *qpos, uint64_t nq,
					BstWay way, BstIdVec *out, BstStats *st)
{
	switch (way)
	{
		case BST_WAY_INDEX:
			return bst_reconstruct_index_pos(t, q, qpos, nq, out, st);
		case BST_WAY_SCAN:
			return bst_reconstruct_scan(t, q, out, st);
		case BST_WAY_TREE:
			break;
	}
	return bst_reconstruct_tree(t, q, out, st);
}

int
bst_sample(BstTree *t, const uint8_t *q, int64_t n, BstSampleMethod method,
		   bool allow_index, BstRng *rng, const BstAlloc *scratch, BstIdVec *out,
		   BstStats *st, BstSampleInfo *info)
{
	return bst_sample_pos(t, q, NULL, 0, n, method, allow_index, rng, scratch, out,
						  st, info);
}

/*
 * Reconstruct q's members the given way and append n uniform draws (with
 * replacement) from them to out: nothing when there is no member.  The
 * members are collected within out's limit.
 */
static int
draw_from_members(BstTree *t, const uint8_t *q, const uint32_t *qpos, uint64_t nq,
				  BstWay way, int64_t n, BstRng *rng, const BstAlloc *scratch,
				  BstIdVec *out, BstStats *st)
{
	BstIdVec	all;
	int			rc;

	bst_vec_init_max(&all, scratch, out->max);
	rc = bst_reconstruct_way(t, q, qpos, nq, way, &all, st);
	if (rc == BST_OK && all.n > 0)
		for (int64_t i = 0; i < n && rc == BST_OK; i++)
			rc = bst_vec_push(out, all.v[bst_rng_below(rng, all.n)]);
	bst_vec_free(&all);
	return rc;
}

/* popcount(q): nq when its positions are given */
static uint64_t
query_popcount(const BstTree *t, const uint8_t *q, const uint32_t *qpos, uint64_t nq)
{
	return qpos ? nq : bs_popcount(q, t->nwords);
}

BstSampleMethod
bst_sample_resolve(const BstTree *t, uint64_t tq, int64_t n, BstSampleMethod method,
				   bool allow_index)
{
	if (method != BST_SAMPLE_AUTO)
		return method;
	if (!t->index && !allow_index)
		return BST_SAMPLE_AUTO;
	if (bst_cost_index_sample(bst_tree_nids(t), t->p.m, t->p.k, tq, n) >
		bst_cost_scan(bst_tree_nids(t), t->p.m, t->p.k, tq))
		return BST_SAMPLE_SCAN;
	return BST_SAMPLE_ENUMERATE;
}

int
bst_sample_pos(BstTree *t, const uint8_t *q, const uint32_t *qpos, uint64_t nq,
			   int64_t n, BstSampleMethod method, bool allow_index, BstRng *rng,
			   const BstAlloc *scratch, BstIdVec *out, BstStats *st,
			   BstSampleInfo *info)
{
	BstStats	dummy_st;
	BstSampleInfo dummy_info;
	uint64_t	tq = query_popcount(t, q, qpos, nq);

	if (!st)
		st = &dummy_st;
	if (!info)
		info = &dummy_info;
	memset(info, 0, sizeof(*info));
	method = bst_sample_resolve(t, tq, n, method, allow_index);
	info->used = method;
	if (n <= 0)
		return BST_OK;
	if (method == BST_SAMPLE_AUTO)
	{
		/* no index: enumerate by the exact tree walk, then draw (exact) */
		return draw_from_members(t, q, qpos, nq, BST_WAY_TREE, n, rng, scratch, out, st);
	}
	if (method == BST_SAMPLE_SCAN)
		return draw_from_members(t, q, qpos, nq, BST_WAY_SCAN, n, rng, scratch, out, st);
	if (method == BST_SAMPLE_ENUMERATE)
	{
		int			rc;
		int64_t		got = 0;

		if ((rc = bst_index_build(t)) != BST_OK)
			return rc;
		/* a few samples: bucket trials; more: prefix sums over q's buckets */
		if ((uint64_t) n * 64 < tq)
			rc = sample_buckets(t, q, qpos, n, tq, rng, scratch, out, st, &got);
		else
			rc = sample_candidates(t, q, qpos, tq, n, rng, scratch, out, st, &got);
		if (rc != BST_OK || got == n)
			return rc;
		return draw_from_members(t, q, qpos, nq, BST_WAY_INDEX, n - got, rng, scratch,
								 out, st);
	}
	return sample_descent(t, q, n, rng, scratch, out, st, info);
}
