/*
 * bst_idvec.c
 *    The growable id vectors (BstIdVec) that reconstruction, sampling and
 *    the method choice fill, declared in bst_query.h: allocation through the
 *    caller's BstAlloc, an optional cap (BST_ELIMIT past it).
 */
#include <string.h>

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
