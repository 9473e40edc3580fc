/*
 * bst_plan.c
 *    Accuracy-driven sizing and the cost model of the tree depth.  See
 *    bst_plan.h.
 */
#include <math.h>

#include "bs_bits.h"
#include "bs_estimate.h"
#include "bst_plan.h"
#include "bst_tree.h"

double
bst_plan_target_fp(double n, double M, double acc)
{
	if (!(n > 0) || !(M > n) || !(acc > 0) || !(acc < 1))
		return NAN;
	return n * (1.0 - acc) / (acc * (M - n));
}

double
bst_plan_m(double n, double M, double acc, int k)
{
	double		fp = bst_plan_target_fp(n, M, acc);

	if (isnan(fp) || fp >= 1.0 || k < 1)
		return NAN;
	return bs_m_for_k(n, fp, k);
}

int64_t
bst_plan_leaf_size(int64_t m, int k)
{
	double		ratio = ((double) bs_words_for_bits((uint64_t) m) * BST_COST_WORD_NS) /
		(BST_COST_MEMBER_NS * (1.0 + 0.1 * (k - 1)));
	int64_t		lo = 2,
				hi = INT64_C(1) << 40;

	/* largest N with N / log2 N <= ratio (N / log2 N increases for N >= 3) */
	if (ratio < 2.0)
		return BST_MIN_AUTO_LEAF;
	while (lo < hi)
	{
		int64_t		mid = lo + (hi - lo + 1) / 2;

		if ((double) mid / log2((double) mid) <= ratio)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo < BST_MIN_AUTO_LEAF ? BST_MIN_AUTO_LEAF : lo;
}

int
bst_plan_depth(uint64_t M, int64_t m, int k, int64_t leaf_size, uint64_t mem_limit)
{
	int64_t		target = leaf_size > 0 ? leaf_size : bst_plan_leaf_size(m, k);
	int			d = 0;

	while (d < 30 && (UINT64_C(2) << d) <= M &&
		   (double) M / (double) (UINT64_C(1) << d) > (double) target)
		d++;
	if (mem_limit > BST_AUTO_TREE_BYTES)
		mem_limit = BST_AUTO_TREE_BYTES;
	if (leaf_size <= 0)
		while (d > 0 && bst_full_tree_bytes(M, (uint32_t) m, d) > mem_limit)
			d--;
	return d;
}

int
bst_plan_pruned_leaf_bits(const int64_t *ids, size_t nids, uint32_t m, int k,
						  uint64_t mem_limit)
{
	int			bits = bst_pruned_leaf_bits(ids, nids, bst_plan_leaf_size(m, k));

	if (mem_limit > BST_AUTO_TREE_BYTES)
		mem_limit = BST_AUTO_TREE_BYTES;
	while (bits < 62 && bst_pruned_tree_bytes(ids, nids, bits, m) > mem_limit)
	{
		BST_CHECK_INTERRUPTS();
		bits++;
	}
	return bits;
}

void
bst_plan_full(double n, uint64_t M, double acc, int k, uint64_t mem_limit,
			  BstPlan *out)
{
	double		m = bst_plan_m(n, (double) M, acc, k);

	out->m = isnan(m) ? -1 : (int64_t) m;
	out->depth = 0;
	out->leaf_size = 0;
	out->nodes = 0;
	out->memory_bytes = 0;
	out->expected_fp = NAN;
	if (out->m < 0)
		return;
	if (out->m < BS_MIN_M)
		out->m = BS_MIN_M;
	out->depth = bst_plan_depth(M, out->m, k, 0, mem_limit);
	out->leaf_size = (int64_t) ((M + (UINT64_C(1) << out->depth) - 1) >> out->depth);
	out->nodes = (INT64_C(2) << out->depth) - 1;
	out->memory_bytes = bst_full_tree_bytes(M, (uint32_t) out->m, out->depth);
	out->expected_fp = bs_expected_fp((double) out->m, k, n);
}

/* ---------------------------------------------------------------------------
 * the cost model of the method choice (bst_plan.h)
 * ---------------------------------------------------------------------------
 */
double
bst_cost_members(uint64_t N, uint32_t m, int k, uint64_t tq)
{
	double		f = m ? (double) tq / (double) m : 1.0;
	double		card = bs_est_cardinality(m, k, tq);
	double		r;

	if (!isfinite(card) || card > (double) N)
		return (double) N;
	r = card + ((double) N - card) * pow(f, k);
	return r < (double) N ? r : (double) N;
}

double
bst_cost_index_reconstruct(uint64_t N, uint32_t m, int k, uint64_t tq)
{
	double		f = m ? (double) tq / (double) m : 1.0;
	double		r = bst_cost_members(N, m, k, tq);

	return (double) N * (f * BST_COST_CANDIDATE_NS + (k > 2 ? f * f * BST_COST_SCAN_NS : 0)) +
		(r > 1 ? r * log2(r) * BST_COST_SORT_NS : 0);
}

double
bst_cost_scan(uint64_t N, uint32_t m, int k, uint64_t tq)
{
	(void) m;
	(void) k;
	(void) tq;
	return (double) N * BST_COST_SCAN_NS;
}

double
bst_cost_index_sample(uint64_t N, uint32_t m, int k, uint64_t tq, int64_t n)
{
	double		f = m ? (double) tq / (double) m : 1.0;
	double		cand = (double) N * f;
	double		r = bst_cost_members(N, m, k, tq);
	double		trials;

	if (f <= 0 || r <= 0)
		return 0;				/* no member: nothing to draw */
	trials = (double) n * (cand > r ? cand / r : 1.0);
	if (trials <= cand / 8)
		return trials * BST_COST_TRIAL_NS;
	return cand / 8 * BST_COST_TRIAL_NS + bst_cost_index_reconstruct(N, m, k, tq);
}
