/*
 * bst_index.c
 *    The inverted index of a BloomSampleTree: for every filter position p,
 *    the ids filed under p (each under the least loaded of its positions),
 *    packed as (offset, another position) entries of bitlen(N - 1) +
 *    bitlen(m - 1) bits; its sizes, its
 *    allocation, the cache-friendly fill and the build of an index for a
 *    tree that has none.  See bst_tree.h (the public functions) and
 *    bst_index.h (those the tree construction calls).
 */
#include <stdlib.h>
#include <string.h>

#include "bst_index.h"

#define TALLOC(t, sz)		((t)->alloc.alloc((t)->alloc.ctx, (sz)))
#define TFREE(t, p)			do { if (p) (t)->alloc.free((t)->alloc.ctx, (p)); } while (0)

/* ---------------------------------------------------------------------------
 * sizes
 * ---------------------------------------------------------------------------
 */
/* number of bits of a field holding 0 .. x (at least 1) */
static uint32_t
bits_for(uint64_t x)
{
	int			b = bst_bit_length((int64_t) x);

	return b > 0 ? (uint32_t) b : 1;
}

uint32_t
bst_index_entry_bits(uint64_t nids, uint32_t m, uint32_t *off_bits)
{
	uint32_t	ob = bits_for(nids > 0 ? nids - 1 : 0);

	if (off_bits)
		*off_bits = ob;
	return ob + bits_for(m > 0 ? m - 1 : 0);
}

void
bst_index_set_shape(BstIndex *ix, uint64_t nids, uint32_t m)
{
	ix->nentries = nids;
	ix->entry_bits = bst_index_entry_bits(nids, m, &ix->off_bits);
	ix->off_mask = (UINT64_C(1) << ix->off_bits) - 1;
	ix->entry_mask = (UINT64_C(1) << ix->entry_bits) - 1;
}

uint64_t
bst_index_words(uint64_t nids, uint32_t m)
{
	uint64_t	bits = nids * bst_index_entry_bits(nids, m, NULL);

	return (bits + 63) / 64 + 1;
}

uint64_t
bst_index_bytes(uint64_t nids, uint32_t m)
{
	/* start[m + 1] (32-bit), the packed entries */
	return sizeof(BstIndex) + ((uint64_t) m + 1) * 4 + 8 * bst_index_words(nids, m);
}

static uint64_t fill_bytes(uint32_t m);

uint64_t
bst_index_build_bytes(uint64_t nids, uint32_t m)
{
	/* and the fill's cursors and buffers (ids are hashed again: no positions kept) */
	return bst_index_bytes(nids, m) + fill_bytes(m);
}

bool
bst_index_fits(uint64_t tree_bytes, uint64_t nids, uint32_t m, uint64_t limit)
{
	return nids <= UINT32_MAX - 1 &&
		tree_bytes + bst_index_build_bytes(nids, m) <= limit;
}


/* ---------------------------------------------------------------------------
 * allocation, fill and build
 * ---------------------------------------------------------------------------
 */
void
bst_index_free(BstTree *t)
{
	if (t->index)
	{
		TFREE(t, t->index->start);
		TFREE(t, t->index->entries);
		TFREE(t, t->index);
		t->index = NULL;
	}
}

/*
 * Allocate the index of N ids with zeroed counts and entries: the caller
 * then counts every id's bucket in start[p + 1] and calls bst_index_fill.
 */
int
bst_index_alloc(BstTree *t, uint64_t N)
{
	BstIndex   *ix;
	uint64_t	words = bst_index_words(N, t->p.m);

	if (N > UINT32_MAX - 1)
		return BST_ETOOBIG;
	ix = TALLOC(t, sizeof(BstIndex));
	if (!ix)
		return BST_ENOMEM;
	memset(ix, 0, sizeof(*ix));
	t->index = ix;
	bst_index_set_shape(ix, N, t->p.m);
	ix->start = TALLOC(t, ((size_t) t->p.m + 1) * sizeof(uint32_t));
	ix->entries = TALLOC(t, (size_t) words * sizeof(uint64_t));
	if (!ix->start || !ix->entries)
	{
		bst_index_free(t);
		return BST_ENOMEM;
	}
	memset(ix->start, 0, ((size_t) t->p.m + 1) * sizeof(uint32_t));
	memset(ix->entries, 0, (size_t) words * sizeof(uint64_t));
	return BST_OK;
}

/*
 * Filling the index's buckets: every bucket p is written at its own cursor
 * cur[p], and gathers its bits of the current word in acc[p], storing a
 * word only once its entries reach the word's end (a plain store, no read:
 * a read-modify-write would wait for a cache miss per id); the last, partial
 * word of every bucket is ORed in after the fill.  Entries arrive in id
 * order, so at random buckets: to keep the stores within a few pages at a
 * time (a store to a random page of a gigabyte costs a TLB miss and a cache
 * miss), they are first gathered per group of adjacent buckets, FILL_BATCH
 * at a time, and a group's batch is then written at once.
 */
#define FILL_GROUPS		1024	/* at most this many groups of buckets */
#define FILL_BATCH		32		/* entries gathered per group before writing */

typedef struct IndexFill
{
	BstIndex   *ix;
	uint64_t   *acc;			/* m: bits of the current word, per bucket */
	uint32_t   *cur;			/* m: next free entry, per bucket (taken when
								 * gathered: its load is cur[p] - start[p]) */
	int			gshift;			/* group of bucket p: p >> gshift */
	uint32_t   *nbuf;			/* groups: entries gathered */
	uint32_t   *bufp;			/* groups x FILL_BATCH: bucket of each */
	uint32_t   *bufe;			/* groups x FILL_BATCH: its entry number */
	uint64_t   *bufv;			/* groups x FILL_BATCH: packed entry */
} IndexFill;

/* the groups of m buckets (m >= 1), and in *gshift how buckets map to them */
static uint32_t
fill_groups(uint32_t m, int *gshift)
{
	int			s = 0;

	while (((m - 1) >> s) >= FILL_GROUPS)
		s++;
	*gshift = s;
	return ((m - 1) >> s) + 1;
}

/* bytes of an IndexFill's arrays for m buckets */
static uint64_t
fill_bytes(uint32_t m)
{
	int			gshift;
	uint64_t	groups = fill_groups(m, &gshift);

	return (uint64_t) m * 12 + groups * (4 + FILL_BATCH * 16);
}

/* write entry v as entry e of bucket p (each bucket's in increasing e) */
static inline void
fill_put(IndexFill *f, uint32_t p, uint32_t e, uint64_t v)
{
	uint64_t	W = f->ix->entry_bits;
	uint64_t	b = (uint64_t) e * W;
	unsigned	sh = (unsigned) (b & 63);

	f->acc[p] |= v << sh;
	if (sh + W >= 64)
	{
		/*
		 * The bucket's entries reach the end of word b / 64: store it.  Only
		 * buckets before p can have bits in it too, and they end inside it,
		 * so they OR theirs in after the fill.
		 */
		f->ix->entries[b >> 6] = f->acc[p];
		f->acc[p] = (v >> 1) >> (63 - sh);
	}
}

/* write group g's gathered entries */
static void
fill_flush(IndexFill *f, uint32_t g)
{
	const uint32_t *bp = f->bufp + (size_t) g * FILL_BATCH;
	const uint32_t *be = f->bufe + (size_t) g * FILL_BATCH;
	const uint64_t *bv = f->bufv + (size_t) g * FILL_BATCH;

	for (uint32_t k = 0; k < f->nbuf[g]; k++)
		fill_put(f, bp[k], be[k], bv[k]);
	f->nbuf[g] = 0;
}

/*
 * start[p + 1] counts the ids filed under p (bst_index_count, in id order):
 * turn the counts into bucket starts and fill the buckets in id order (so
 * ids ascend within a bucket), hashing every id again rather than keeping
 * its positions from the counting pass (8 bytes an id, more than the index
 * itself), and filing it again by the same choice over the same loads (an
 * id's entry number is taken when it is gathered).  A bucket fuller than
 * its count would be a bug of the caller's counting order: BST_EINTERNAL,
 * never a write past the bucket.
 */
int
bst_index_fill(BstTree *t)
{
	BstIndex   *ix = t->index;
	uint64_t	N = ix->nentries;
	uint32_t	m = t->p.m;
	uint32_t	pos[BS_MAX_K];
	IndexFill	f;
	uint32_t	groups;
	int			rc = BST_OK;

	f.ix = ix;
	groups = fill_groups(m, &f.gshift);
	f.acc = TALLOC(t, (size_t) m * sizeof(uint64_t));
	f.cur = TALLOC(t, (size_t) m * sizeof(uint32_t));
	f.nbuf = TALLOC(t, (size_t) groups * sizeof(uint32_t));
	f.bufp = TALLOC(t, (size_t) groups * FILL_BATCH * sizeof(uint32_t));
	f.bufe = TALLOC(t, (size_t) groups * FILL_BATCH * sizeof(uint32_t));
	f.bufv = TALLOC(t, (size_t) groups * FILL_BATCH * sizeof(uint64_t));
	if (!f.acc || !f.cur || !f.nbuf || !f.bufp || !f.bufe || !f.bufv)
	{
		rc = BST_ENOMEM;
		goto done;
	}
	memset(f.acc, 0, (size_t) m * sizeof(uint64_t));
	memset(f.nbuf, 0, (size_t) groups * sizeof(uint32_t));
	for (uint32_t p = 0; p < m; p++)
	{
		ix->start[p + 1] += ix->start[p];
		f.cur[p] = ix->start[p];
	}
	for (uint64_t i = 0; i < N; i++)
	{
		uint32_t	p,
					g,
					k;
		int			c;

		if ((i & 0xFFFF) == 0)
			BST_CHECK_INTERRUPTS();
		bs_key_positions(&t->hasher, bs_key_int64(&t->hasher, bst_index_id(t, i)), pos);
		c = bst_index_choose(f.cur, ix->start, pos, t->p.k);
		p = pos[c];
		if (f.cur[p] >= ix->start[p + 1])
		{
			rc = BST_EINTERNAL;
			goto done;
		}
		g = p >> f.gshift;
		k = f.nbuf[g]++;
		f.bufp[(size_t) g * FILL_BATCH + k] = p;
		f.bufe[(size_t) g * FILL_BATCH + k] = f.cur[p]++;
		/* the entry's other position: the first, or the second if filed under the first */
		f.bufv[(size_t) g * FILL_BATCH + k] =
			i | ((uint64_t) pos[c == 0 && t->p.k > 1 ? 1 : 0] << ix->off_bits);
		if (k + 1 == FILL_BATCH)
			fill_flush(&f, g);
	}
	for (uint32_t g = 0; g < groups; g++)
		fill_flush(&f, g);
	/* the last, partial word of every bucket (shared with p + 1) */
	for (uint32_t p = 0; p < m; p++)
		if (f.acc[p])
			ix->entries[((uint64_t) ix->start[p + 1] * ix->entry_bits) >> 6] |= f.acc[p];
	ix->max_bucket = bst_index_max_bucket(ix->start, m);
done:
	TFREE(t, f.acc);
	TFREE(t, f.cur);
	TFREE(t, f.nbuf);
	TFREE(t, f.bufp);
	TFREE(t, f.bufe);
	TFREE(t, f.bufv);
	if (rc != BST_OK)
		bst_index_free(t);
	return rc;
}

uint32_t
bst_index_max_bucket(const uint32_t *start, uint32_t m)
{
	uint32_t	mx = 0;

	for (uint32_t p = 0; p < m; p++)
		if (start[p + 1] - start[p] > mx)
			mx = start[p + 1] - start[p];
	return mx;
}
