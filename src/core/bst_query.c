/*
 * bst_query.c
 *    Reconstruction and sampling with a BloomSampleTree.  See bst_query.h for
 *    the methods and why the samples are uniform.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bs_estimate.h"
#include "bst_query.h"

/* ---------------------------------------------------------------------------
 * id vectors
 * ---------------------------------------------------------------------------
 */
void
bst_vec_init(BstIdVec *vec, const BstAlloc *alloc)
{
	bst_vec_init_max(vec, alloc, 0);
}

void
bst_vec_init_max(BstIdVec *vec, const BstAlloc *alloc, size_t max)
{
	memset(vec, 0, sizeof(*vec));
	vec->alloc = *alloc;
	vec->max = max;
}

int
bst_vec_push(BstIdVec *vec, int64_t x)
{
	if (vec->n == vec->cap)
	{
		size_t		cap = vec->cap ? vec->cap * 2 : 256;
		int64_t    *nv;

		if (vec->max)
		{
			if (vec->n >= vec->max)
				return BST_ELIMIT;
			if (cap > vec->max)
				cap = vec->max;
		}
		nv = vec->v ? vec->alloc.realloc(vec->alloc.ctx, vec->v, cap * sizeof(int64_t))
			: vec->alloc.alloc(vec->alloc.ctx, cap * sizeof(int64_t));

		if (!nv)
			return BST_ENOMEM;
		vec->v = nv;
		vec->cap = cap;
	}
	vec->v[vec->n++] = x;
	return BST_OK;
}

void
bst_vec_free(BstIdVec *vec)
{
	if (vec->v)
		vec->alloc.free(vec->alloc.ctx, vec->v);
	vec->v = NULL;
	vec->n = vec->cap = 0;
}

/* ---------------------------------------------------------------------------
 * reconstruction
 * ---------------------------------------------------------------------------
 */
int
bst_reconstruct_index(BstTree *t, const uint8_t *q, BstIdVec *out, BstStats *st)
{
	int			rc = bst_index_build(t);
	const BstIndex *ix;
	size_t		first = out->n;
	uint64_t	examined = 0;
	int			k = t->p.k;

	if (rc != BST_OK)
		return rc;
	ix = t->index;
	for (size_t w = 0; w < t->nwords; w++)
	{
		uint64_t	word = bs_load64le(q + 8 * w);

		if ((w & 0x3FF) == 0)
			BST_CHECK_INTERRUPTS();
		while (word)
		{
			uint32_t	p = (uint32_t) (64 * w + (size_t) __builtin_ctzll(word));
			uint32_t	e0 = ix->start[p],
						e1 = ix->start[p + 1];

			word &= word - 1;
			examined += e1 - e0;
			for (uint32_t e = e0; e < e1; e++)
			{
				int64_t		x;

				if (!bs_bit_test(q, ix->pos1[e]))
					continue;
				x = t->kind == BST_KIND_FULL ? t->lo + (int64_t) ix->off[e] : t->ids[ix->off[e]];
				if (k > 2 && !bs_key_test(&t->hasher, bs_key_int64(&t->hasher, x), q))
					continue;
				if ((rc = bst_vec_push(out, x)) != BST_OK)
					return rc;
			}
		}
	}
	if (out->n > first)
		bst_sort_ids(out->v + first, out->n - first);
	if (st)
	{
		st->memberships += examined;
		st->nodes_visited += 0;
	}
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

			if (!isfinite(est))
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
	s.qcard = bs_est_cardinality(t->p.m, t->p.k, s.tq);
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
 * Exact sampling by rejection over the index's candidates: the candidates of
 * q are the index entries under q's set bits, each id at most once (under its
 * first position), every positive among them.  Draw a candidate uniformly
 * (prefix sums of the bucket sizes, binary search), accept it when q reports
 * it: the accepted id is uniform over the positives, independently of how
 * many draws it took.  Gives up (the caller then enumerates) after about a
 * quarter of the candidates' count in draws, or earlier when the acceptance
 * rate seen so far says the remaining draws would cost more than one scan of
 * the candidates: cheap for a few samples, bounded when positives are rare
 * among the candidates (or absent), and the switch never biases a sample.
 * *got receives the number of samples appended.
 */
static int
sample_candidates(BstTree *t, const uint8_t *q, int64_t n, BstRng *rng,
				  const BstAlloc *scratch, BstIdVec *out, BstStats *st, int64_t *got)
{
	const BstIndex *ix = t->index;
	uint64_t	tq = bs_popcount(q, t->nwords);
	uint32_t   *bp;
	uint64_t   *cum;
	uint64_t	nb = 0,
				C,
				budget,
				tries = 0;
	int			rc = BST_OK;

	*got = 0;
	if (tq == 0 || n <= 0)
		return BST_OK;
	bp = scratch->alloc(scratch->ctx, tq * sizeof(uint32_t));
	cum = scratch->alloc(scratch->ctx, (tq + 1) * sizeof(uint64_t));
	if (!bp || !cum)
	{
		if (bp)
			scratch->free(scratch->ctx, bp);
		if (cum)
			scratch->free(scratch->ctx, cum);
		return BST_ENOMEM;
	}
	cum[0] = 0;
	for (size_t w = 0; w < t->nwords; w++)
	{
		uint64_t	word = bs_load64le(q + 8 * w);

		while (word)
		{
			uint32_t	p = (uint32_t) (64 * w + (size_t) __builtin_ctzll(word));

			word &= word - 1;
			if (ix->start[p + 1] == ix->start[p])
				continue;
			bp[nb] = p;
			cum[nb + 1] = cum[nb] + (ix->start[p + 1] - ix->start[p]);
			nb++;
		}
	}
	C = cum[nb];
	budget = C / 4 + 64;
	while (C > 0 && *got < n && tries < budget)
	{
		uint64_t	r = bst_rng_below(rng, C);
		size_t		lo = 0,
					hi = nb;	/* largest i with cum[i] <= r */
		uint32_t	e;
		int64_t		x;

		if ((tries & 0xFF) == 0xFF)
		{
			/*
			 * Every 256 draws: switch to enumeration when the draws still
			 * needed, at the acceptance rate seen so far, would cost more
			 * than scanning all C candidates once (a draw costs ~8 scans).
			 */
			if (*got > 0 &&
				(double) (n - *got) * (double) tries / (double) *got * 8.0 > (double) C)
				break;
			BST_CHECK_INTERRUPTS();
		}
		tries++;
		while (hi - lo > 1)
		{
			size_t		mid = (lo + hi) / 2;

			if (cum[mid] <= r)
				lo = mid;
			else
				hi = mid;
		}
		e = ix->start[bp[lo]] + (uint32_t) (r - cum[lo]);
		if (!bs_bit_test(q, ix->pos1[e]))
			continue;
		x = t->kind == BST_KIND_FULL ? t->lo + (int64_t) ix->off[e] : t->ids[ix->off[e]];
		if (t->p.k > 2 && !bs_key_test(&t->hasher, bs_key_int64(&t->hasher, x), q))
			continue;
		if ((rc = bst_vec_push(out, x)) != BST_OK)
			break;
		(*got)++;
	}
	st->memberships += tries;
	scratch->free(scratch->ctx, bp);
	scratch->free(scratch->ctx, cum);
	return rc;
}

int
bst_sample(BstTree *t, const uint8_t *q, int64_t n, BstSampleMethod method,
		   bool allow_index, BstRng *rng, const BstAlloc *scratch, BstIdVec *out,
		   BstStats *st, BstSampleInfo *info)
{
	BstStats	dummy_st;
	BstSampleInfo dummy_info;

	if (!st)
		st = &dummy_st;
	if (!info)
		info = &dummy_info;
	memset(info, 0, sizeof(*info));
	if (method == BST_SAMPLE_AUTO && !t->index && !allow_index)
	{
		/* no index: enumerate by the exact tree walk, then draw (exact) */
		BstIdVec	all;
		int			rc;

		info->used = BST_SAMPLE_AUTO;
		if (n <= 0)
			return BST_OK;
		/* every positive, within the caller's limit */
		bst_vec_init_max(&all, scratch, out->max);
		rc = bst_reconstruct_tree(t, q, &all, st);
		if (rc == BST_OK && all.n > 0)
			for (int64_t i = 0; i < n && rc == BST_OK; i++)
				rc = bst_vec_push(out, all.v[bst_rng_below(rng, all.n)]);
		bst_vec_free(&all);
		return rc;
	}
	if (method == BST_SAMPLE_AUTO)
		method = BST_SAMPLE_ENUMERATE;
	info->used = method;
	if (n <= 0)
		return BST_OK;
	if (method == BST_SAMPLE_ENUMERATE)
	{
		BstIdVec	all;
		int			rc;
		int64_t		got = 0;

		if ((rc = bst_index_build(t)) != BST_OK)
			return rc;
		rc = sample_candidates(t, q, n, rng, scratch, out, st, &got);
		if (rc != BST_OK || got == n)
			return rc;
		bst_vec_init_max(&all, scratch, out->max);
		rc = bst_reconstruct_index(t, q, &all, st);
		if (rc == BST_OK && all.n > 0)
			for (int64_t i = got; i < n && rc == BST_OK; i++)
				rc = bst_vec_push(out, all.v[bst_rng_below(rng, all.n)]);
		bst_vec_free(&all);
		return rc;
	}
	return sample_descent(t, q, n, rng, scratch, out, st, info);
}
