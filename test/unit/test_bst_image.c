/*
 * test_bst_image.c
 *    Unit tests of flat BloomSampleTree images (bst_image.c): an image opened
 *    in place answers every query exactly as the tree it was written from
 *    (reconstruction by index and by tree walk, seeded sampling by every
 *    method), for full and pruned trees, with and without index; images of
 *    another name, generation or size, or damaged, are refused.
 */
#include <stdlib.h>
#include <string.h>

#include "bst_image.h"
#include "bst_query.h"
#include "bst_unit.h"
#include "unit.h"

typedef struct Buf
{
	uint8_t    *b;
	size_t		n;
	size_t		cap;
	int			fail_after;		/* calls before a simulated failure (< 0: never) */
} Buf;

/* the image writer into a growable buffer (ctx), failing once fail_after calls are spent */
static int
buf_write(void *ctx, const void *data, size_t len)
{
	Buf		   *w = ctx;

	if (w->fail_after == 0)
		return 1;
	if (w->fail_after > 0)
		w->fail_after--;
	if (w->n + len > w->cap)
	{
		w->cap = (w->n + len) * 2;
		w->b = realloc(w->b, w->cap);
	}
	memcpy(w->b + w->n, data, len);
	w->n += len;
	return 0;
}

/* every query on the image equals the same query on t */
static void
compare(const char *what, BstTree *t, BstTree *img, const uint8_t *q)
{
	BstIdVec	a,
				b;
	BstRng		r1,
				r2;

	bst_vec_init(&a, &bst_alloc_malloc);
	bst_vec_init(&b, &bst_alloc_malloc);
	CHECK(bst_reconstruct_tree(t, q, &a, NULL) == BST_OK &&
		  bst_reconstruct_tree(img, q, &b, NULL) == BST_OK && same_vec(&a, &b),
		  "%s: tree walk %zu vs %zu ids", what, a.n, b.n);
	if (t->index)
	{
		a.n = b.n = 0;
		CHECK(bst_reconstruct_index(t, q, &a, NULL) == BST_OK &&
			  bst_reconstruct_index(img, q, &b, NULL) == BST_OK && same_vec(&a, &b),
			  "%s: index %zu vs %zu ids", what, a.n, b.n);
	}
	for (int m = 0; m < 3; m++)
	{
		a.n = b.n = 0;
		bst_rng_seed(&r1, 99 + m);
		bst_rng_seed(&r2, 99 + m);
		CHECK(bst_sample(t, q, 50, (BstSampleMethod) m, t->index != NULL, &r1,
						 &bst_alloc_malloc, &a, NULL, NULL) == BST_OK &&
			  bst_sample(img, q, 50, (BstSampleMethod) m, t->index != NULL, &r2,
						 &bst_alloc_malloc, &b, NULL, NULL) == BST_OK && same_vec(&a, &b),
			  "%s: samples (method %d) differ", what, m);
	}
	bst_vec_free(&a);
	bst_vec_free(&b);
}

/*
 * Write t's image, open it from an aligned copy and check it answers q as t
 * does; images opened with another name, generation or size, or damaged,
 * are refused, and a failing writer gives BST_EIO
 */
static void
roundtrip(const char *what, BstTree *t, const uint8_t *q)
{
	Buf			w = {NULL, 0, 0, -1};
	uint8_t    *copy;
	BstMappedTree mt;
	int			rc;

	rc = bst_image_write(t, "tree one", 1234, buf_write, &w);
	CHECK(rc == BST_OK, "%s: write rc %d", what, rc);
	CHECK(w.n == bst_image_bytes(t, strlen("tree one")), "%s: %zu bytes written, %llu announced",
		  what, w.n, (unsigned long long) bst_image_bytes(t, strlen("tree one")));
	/* opened from a fresh (aligned) buffer, as from a mapping */
	copy = aligned_alloc(64, (w.n + 63) & ~(size_t) 63);
	memcpy(copy, w.b, w.n);
	rc = bst_image_open(copy, w.n, "tree one", 1234, &bst_alloc_malloc, &mt);
	CHECK(rc == BST_OK, "%s: open rc %d", what, rc);
	if (rc == BST_OK)
	{
		CHECK((mt.tree.index != NULL) == (t->index != NULL), "%s: index presence", what);
		CHECK(mt.tree.nnodes == t->nnodes && bst_tree_nids(&mt.tree) == bst_tree_nids(t),
			  "%s: shape", what);
		compare(what, t, &mt.tree, q);
		bst_image_close(&mt);
	}
	/* mismatches are refused */
	CHECK(bst_image_open(copy, w.n, "tree two", 1234, &bst_alloc_malloc, &mt) == BST_EIMAGE,
		  "%s: other name accepted", what);
	CHECK(bst_image_open(copy, w.n, "tree one", 1235, &bst_alloc_malloc, &mt) == BST_EIMAGE,
		  "%s: other generation accepted", what);
	CHECK(bst_image_open(copy, w.n - 64, "tree one", 1234, &bst_alloc_malloc, &mt) == BST_EIMAGE,
		  "%s: truncated image accepted", what);
	CHECK(bst_image_open(copy, 16, "tree one", 1234, &bst_alloc_malloc, &mt) == BST_EIMAGE,
		  "%s: header-less image accepted", what);
	copy[0] ^= 1;
	CHECK(bst_image_open(copy, w.n, "tree one", 1234, &bst_alloc_malloc, &mt) == BST_EIMAGE,
		  "%s: damaged magic accepted", what);
	free(copy);
	/* a failing writer is reported */
	w.n = 0;
	w.fail_after = 2;
	CHECK(bst_image_write(t, "tree one", 1234, buf_write, &w) == BST_EIO, "%s: write failure", what);
	free(w.b);
}

/*
 * round trips of full and pruned trees, with and without index, and of an
 * empty pruned tree; exit status 0 when all passed (UNIT_DONE)
 */
int
main(void)
{
	BsParams	p = {.m = 20011, .k = 3, .hash = BS_HASH_XXH3, .seed = 5};
	BsHasher	h;
	unsigned long long s = 1;
	int64_t		set[800];
	int64_t    *ids = malloc(20000 * sizeof(int64_t));
	size_t		nids = 0;
	uint8_t    *q;

	bs_hasher_init(&h, &p);
	for (int i = 0; i < 800; i++)
		set[i] = (int64_t) (unit_splitmix64(&s) % 100000);
	q = make_filter(&h, set, 800);
	for (int with_index = 0; with_index < 2; with_index++)
	{
		BstTree    *t;

		CHECK(bst_build_full(&p, 0, 100000, 7, with_index, &bst_alloc_malloc, &t) == BST_OK, "build full");
		roundtrip(with_index ? "full, index" : "full", t, q);
		bst_tree_free(t);
	}
	/* pruned: clustered ids far apart, and the query over some of them */
	for (int i = 0; i < 20000; i++)
		ids[nids++] = (int64_t) ((i / 100) * 1000003 + (unit_splitmix64(&s) % 5000));
	nids = bst_sort_unique(ids, nids);
	free(q);
	q = make_filter(&h, ids, 500);
	for (int with_index = 0; with_index < 2; with_index++)
	{
		BstTree    *t;

		CHECK(bst_build_pruned(&p, ids, nids, 8, with_index, &bst_alloc_malloc, &t) == BST_OK,
			  "build pruned");
		roundtrip(with_index ? "pruned, index" : "pruned", t, q);
		bst_tree_free(t);
	}
	/* an empty pruned tree */
	{
		BstTree    *t;

		CHECK(bst_build_pruned(&p, ids, 0, 8, true, &bst_alloc_malloc, &t) == BST_OK, "build empty");
		roundtrip("empty pruned", t, q);
		bst_tree_free(t);
	}
	free(q);
	free(ids);
	return UNIT_DONE();
}
