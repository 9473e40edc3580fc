/*
 * bst_gen.c
 *    The paper's clustered query-set generator.  See bst_gen.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bst_gen.h"

typedef struct Fenwick
{
	double	   *t;
	int64_t		n;
} Fenwick;

/* add v to the weight of item i (0-based) */
static void
fw_add(Fenwick *f, int64_t i, double v)
{
	for (i++; i <= f->n; i += i & -i)
		f->t[i] += v;
}

/* smallest i with prefix sum (0..i) > target */
static int64_t
fw_find(const Fenwick *f, double target)
{
	int64_t		pos = 0;
	int64_t		step = 1;

	while (step * 2 <= f->n)
		step *= 2;
	for (; step; step /= 2)
		if (pos + step <= f->n && f->t[pos + step] <= target)
		{
			pos += step;
			target -= f->t[pos];
		}
	return pos < f->n ? pos : f->n - 1;
}

/* rebuild from values v (O(n)) */
static void
fw_build(Fenwick *f, const double *v)
{
	for (int64_t i = 1; i <= f->n; i++)
		f->t[i] = v[i - 1];
	for (int64_t i = 1; i <= f->n; i++)
	{
		int64_t		j = i + (i & -i);

		if (j <= f->n)
			f->t[j] += f->t[i];
	}
}

int
bst_gen_clustered(int64_t lo, int64_t hi, int64_t n, double p, BstRng *rng,
				  const BstAlloc *scratch, BstIdVec *out)
{
	int64_t		M = hi - lo;
	Fenwick		f;
	double	   *v;				/* stored values; pdf(i) = g * v[i] */
	uint8_t    *drawn;
	double		g = 1.0;
	size_t		first = out->n;
	int			rc = BST_OK;

	if (M <= 0 || n <= 0)
		return BST_OK;
	if (n > M)
		n = M;
	f.n = M;
	f.t = scratch->alloc(scratch->ctx, (size_t) (M + 1) * sizeof(double));
	v = scratch->alloc(scratch->ctx, (size_t) M * sizeof(double));
	drawn = scratch->alloc(scratch->ctx, (size_t) M);
	if (!f.t || !v || !drawn)
	{
		rc = BST_ENOMEM;
		goto done;
	}
	memset(drawn, 0, (size_t) M);
	for (int64_t i = 0; i < M; i++)
		v[i] = 1.0 / (double) M;
	f.t[0] = 0;
	fw_build(&f, v);
	for (int64_t d = 0; d < n; d++)
	{
		double		total = 0,
					mass;
		int64_t		s,
					x,
					y;

		BST_CHECK_INTERRUPTS();
		/* total stored mass (drifts from 1/g by rounding) */
		{
			int64_t		i = M;

			for (; i > 0; i -= i & -i)
				total += f.t[i];
		}
		do
		{
			s = fw_find(&f, bst_rng_double(rng) * total);
		} while (drawn[s] || v[s] <= 0);
		drawn[s] = 1;
		if ((rc = bst_vec_push(out, lo + s)) != BST_OK)
			goto done;
		mass = v[s];
		fw_add(&f, s, -v[s]);
		v[s] = 0;
		if (p > 0)
		{
			/* everyone else gives up p: scale g, hand p of the rest to x, y */
			double		rest = g * (total - mass);

			mass = g * mass + p * rest;
			g *= (1.0 - p);
			mass /= g;
		}
		for (x = s - 1; x >= 0 && drawn[x]; x--)
			;
		for (y = s + 1; y < M && drawn[y]; y++)
			;
		if (x < 0 && y >= M)
			continue;
		if (x < 0)
			x = y;
		if (y >= M)
			y = x;
		v[x] += mass / 2;
		fw_add(&f, x, mass / 2);
		v[y] += mass / 2;
		fw_add(&f, y, mass / 2);
		if (g < 1e-150)
		{
			for (int64_t i = 0; i < M; i++)
				v[i] *= g;
			g = 1.0;
			fw_build(&f, v);
		}
	}
	if (out->n > first)
		bst_sort_ids(out->v + first, out->n - first);
done:
	if (f.t)
		scratch->free(scratch->ctx, f.t);
	if (v)
		scratch->free(scratch->ctx, v);
	if (drawn)
		scratch->free(scratch->ctx, drawn);
	return rc;
}
