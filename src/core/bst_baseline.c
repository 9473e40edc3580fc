/*
 * bst_baseline.c
 *    Dictionary attack, reservoir sampling and HashInvert (paper, section 4).
 *    See bst_baseline.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bst_baseline.h"

int
bst_dictionary_attack(const BsHasher *h, const uint8_t *q, int64_t lo, int64_t hi,
					  BstIdVec *out, BstStats *st)
{
	int			rc;

	for (int64_t x = lo; x < hi; x++)
	{
		if ((((uint64_t) x - (uint64_t) lo) & 0xFFFF) == 0)
			BST_CHECK_INTERRUPTS();
		if (bs_key_test(h, bs_key_int64(h, x), q))
			if ((rc = bst_vec_push(out, x)) != BST_OK)
				return rc;
	}
	if (st && hi > lo)
		st->memberships += (uint64_t) hi - (uint64_t) lo;
	return BST_OK;
}

int
bst_reconstruct_scan(const BstTree *t, const uint8_t *q, BstIdVec *out, BstStats *st)
{
	int			rc;

	if (t->kind == BST_KIND_FULL)
		return bst_dictionary_attack(&t->hasher, q, t->lo, t->hi, out, st);
	for (size_t i = 0; i < t->nids; i++)
	{
		if ((i & 0xFFFF) == 0)
			BST_CHECK_INTERRUPTS();
		if (bs_key_test(&t->hasher, bs_key_int64(&t->hasher, t->ids[i]), q))
			if ((rc = bst_vec_push(out, t->ids[i])) != BST_OK)
				return rc;
	}
	if (st)
		st->memberships += t->nids;
	return BST_OK;
}

int
bst_dictionary_sample(const BsHasher *h, const uint8_t *q, int64_t lo, int64_t hi,
					  int64_t n, BstRng *rng, const BstAlloc *scratch,
					  BstIdVec *out, BstStats *st)
{
	int64_t    *res;
	uint64_t	j = 0;
	int			rc = BST_OK;

	if (n <= 0)
		return BST_OK;
	res = scratch->alloc(scratch->ctx, (size_t) n * sizeof(int64_t));
	if (!res)
		return BST_ENOMEM;
	for (int64_t x = lo; x < hi; x++)
	{
		if ((((uint64_t) x - (uint64_t) lo) & 0xFFFF) == 0)
			BST_CHECK_INTERRUPTS();
		if (!bs_key_test(h, bs_key_int64(h, x), q))
			continue;
		j++;
		if (j == 1)
		{
			for (int64_t i = 0; i < n; i++)
				res[i] = x;
		}
		else
		{
			/* reservoirs replaced with probability 1/j each: geometric skips */
			double		l1p = log1p(-1.0 / (double) j);
			int64_t		idx = -1;

			for (;;)
			{
				double		u = 1.0 - bst_rng_double(rng);	/* (0, 1] */
				double		skip = floor(log(u) / l1p);

				if (skip >= (double) (n - 1 - idx))
					break;
				idx += (int64_t) skip + 1;
				res[idx] = x;
			}
		}
	}
	if (st && hi > lo)
		st->memberships += (uint64_t) hi - (uint64_t) lo;
	if (j > 0)
		for (int64_t i = 0; i < n && rc == BST_OK; i++)
			rc = bst_vec_push(out, res[i]);
	scratch->free(scratch->ctx, res);
	return rc;
}

/* ---------------------------------------------------------------------------
 * HashInvert
 * ---------------------------------------------------------------------------
 */
static int64_t
gcd64(int64_t a, int64_t b)
{
	while (b)
	{
		int64_t		t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* inverse of a modulo n (gcd(a, n) = 1, n >= 1) */
static int64_t
inverse_mod(int64_t a, int64_t n)
{
	int64_t		t = 0,
				nt = 1,
				r = n,
				nr = a % n;

	if (n == 1)
		return 0;
	while (nr)
	{
		int64_t		qt = r / nr,
					tmp;

		tmp = t - qt * nt;
		t = nt;
		nt = tmp;
		tmp = r - qt * nr;
		r = nr;
		nr = tmp;
	}
	return t < 0 ? t + n : t;
}

/*
 * The ids x in [lo, hi) with (a * (x mod m) + b) mod m == p: x = y0 (mod step).
 * Returns false when there is none; else *first (may be >= hi) and *step.
 */
static bool
invert_position(uint32_t a, uint32_t b, uint32_t m, uint32_t p, int64_t lo,
				int64_t *first, int64_t *step)
{
	int64_t		g = gcd64(a, m);
	int64_t		d = ((int64_t) p - (int64_t) b) % (int64_t) m;
	int64_t		mp,
				y0;
	__int128	off;

	if (d < 0)
		d += m;
	if (d % g != 0)
		return false;
	mp = (int64_t) m / g;
	y0 = (int64_t) (((__int128) (d / g) * inverse_mod(((int64_t) a / g) % mp, mp)) % mp);
	off = ((__int128) y0 - lo) % mp;
	if (off < 0)
		off += mp;
	if ((__int128) lo + off > INT64_MAX)
	{
		*first = INT64_MAX;
		*step = mp;
		return true;
	}
	*first = (int64_t) (lo + off);
	*step = mp;
	return true;
}

int
bst_hashinvert(const BsHasher *h, const uint8_t *q, int64_t lo, int64_t hi,
			   const BstAlloc *scratch, BstIdVec *out, BstStats *st,
			   bool *used_unset)
{
	uint32_t	m = h->p.m;
	size_t		nwords = bs_words_for_bits(m);
	uint64_t	t = bs_popcount(q, nwords);
	uint64_t	examined = 0;
	size_t		first_out = out->n;
	int			rc = BST_OK;

	*used_unset = false;
	if (h->p.hash != BS_HASH_LINEAR)
		return BST_ETOOBIG;
	if (hi <= lo)
		return BST_OK;
	if (t <= m / 2)
	{
		for (uint32_t p = 0; p < m; p++)
		{
			int64_t		x,
						step;

			if ((p & 0xFFF) == 0)
				BST_CHECK_INTERRUPTS();
			if (!bs_bit_test(q, p))
				continue;
			if (!invert_position(h->a[0], h->b[0], m, p, lo, &x, &step))
				continue;
			for (; x < hi; )
			{
				examined++;
				if ((examined & 0xFFFF) == 0)
					BST_CHECK_INTERRUPTS();
				if (bs_key_test(h, bs_key_int64(h, x), q))
					if ((rc = bst_vec_push(out, x)) != BST_OK)
						return rc;
				if (x > hi - step)
					break;
				x += step;
			}
		}
		if (out->n > first_out)
			bst_sort_ids(out->v + first_out, out->n - first_out);
	}
	else
	{
		uint64_t	M = (uint64_t) hi - (uint64_t) lo;
		uint64_t   *dead;

		*used_unset = true;
		if (M > (UINT64_C(1) << 36))
			return BST_ETOOBIG;
		dead = scratch->alloc(scratch->ctx, (size_t) ((M + 63) / 64) * 8);
		if (!dead)
			return BST_ENOMEM;
		memset(dead, 0, (size_t) ((M + 63) / 64) * 8);
		for (uint32_t p = 0; p < m; p++)
		{
			if ((p & 0xFFF) == 0)
				BST_CHECK_INTERRUPTS();
			if (bs_bit_test(q, p))
				continue;
			for (int i = 0; i < h->p.k; i++)
			{
				int64_t		x,
							step;

				if (!invert_position(h->a[i], h->b[i], m, p, lo, &x, &step))
					continue;
				for (; x < hi; )
				{
					uint64_t	o = (uint64_t) x - (uint64_t) lo;

					examined++;
					if ((examined & 0xFFFF) == 0)
						BST_CHECK_INTERRUPTS();
					dead[o >> 6] |= UINT64_C(1) << (o & 63);
					if (x > hi - step)
						break;
					x += step;
				}
			}
		}
		for (uint64_t w = 0; w < (M + 63) / 64 && rc == BST_OK; w++)
		{
			uint64_t	live = ~dead[w];

			if ((w & 0xFFFF) == 0)
				BST_CHECK_INTERRUPTS();
			if (w == (M - 1) / 64 && (M & 63))
				live &= (UINT64_C(1) << (M & 63)) - 1;
			while (live && rc == BST_OK)
			{
				uint64_t	o = 64 * w + (uint64_t) __builtin_ctzll(live);

				live &= live - 1;
				rc = bst_vec_push(out, (int64_t) ((uint64_t) lo + o));
			}
		}
		scratch->free(scratch->ctx, dead);
	}
	if (st)
		st->memberships += examined;
	return rc;
}
