/*
 * test_bloofi_tree.c
 *    Unit tests of the multi-level Bloofi tree rules (src/core/bloofi_tree.c)
 *    and the reference tree built from them (test/ref/bloofi_reftree.c):
 *    Hamming-closest choice, the all-ones rule, split choice, bulk-build level
 *    sizes, and the reference tree under random inserts, deletes and bulk
 *    builds, checked against its invariants and against testing every filter
 *    (brute force); then the paper's search cost on the paper's configuration.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bloofi_reftree.h"
#include "bs_bits.h"
#include "bs_hash.h"
#include "unit.h"

static unsigned long long rng_state = 424242;

/* the next number of the test's deterministic stream */
static uint64_t
rnd(void)
{
	return unit_splitmix64(&rng_state);
}

/* clear f (nwords words), then set the n listed bits */
static void
set_bits(uint8_t *f, size_t nwords, const int *bits, int n)
{
	memset(f, 0, 8 * nwords);
	for (int i = 0; i < n; i++)
		bs_bit_set(f, (uint32_t) bits[i]);
}

static void
test_closest_and_all_ones(void)
{
	uint8_t		a[8],
				b[8],
				c[8],
				f[8];
	const uint8_t *vals[3] = {a, b, c};
	int			ab[] = {1, 2, 3},
				bb[] = {10, 11},
				cb[] = {1, 2, 3},
				fb[] = {1, 2, 40};

	set_bits(a, 1, ab, 3);
	set_bits(b, 1, bb, 2);
	set_bits(c, 1, cb, 3);
	set_bits(f, 1, fb, 3);
	CHECK(bloofi_tree_hamming(a, f, 1) == 2, "hamming %llu",
		  (unsigned long long) bloofi_tree_hamming(a, f, 1));
	CHECK(bloofi_tree_hamming(b, f, 1) == 5, "hamming b");
	CHECK(bloofi_tree_closest(vals, 3, f, 1) == 0, "closest, tie goes to the lowest index");
	CHECK(bloofi_tree_closest(vals + 1, 2, f, 1) == 1, "closest among b, c");
	CHECK(bloofi_tree_closest(vals, 0, f, 1) == -1, "no candidate");

	{
		uint8_t		x[16];

		memset(x, 0, sizeof(x));
		for (int i = 0; i < 100; i++)
			bs_bit_set(x, (uint32_t) i);
		CHECK(bloofi_tree_all_ones(x, 100), "100 bits set, bits past m clear");
		CHECK(!bloofi_tree_all_ones(x, 101), "bit 100 clear");
		x[15] = 0xFF;
		CHECK(bloofi_tree_all_ones(x, 100), "bits past m are ignored");
		x[15] = 0;
		x[3] &= (uint8_t) ~0x10;
		CHECK(!bloofi_tree_all_ones(x, 100), "bit 28 clear");
		CHECK(!bloofi_tree_must_split(4, 2, x, 100, 7, BLOOFI_NOSPLIT_ALL_ONES),
			  "2d children: no overflow");
		CHECK(bloofi_tree_must_split(5, 2, x, 100, 7, BLOOFI_NOSPLIT_ALL_ONES),
			  "2d+1 children, not all ones: split");
		CHECK(!bloofi_tree_must_split(5, 2, x, 100, 7, BLOOFI_NOSPLIT_SATURATED),
			  "99 of 100 bits, k 7: 0.99^7 > 1/2, saturated: no split");
		CHECK(bloofi_tree_must_split(5, 2, x, 100, 70, BLOOFI_NOSPLIT_SATURATED),
			  "99 of 100 bits, k 70: 0.99^70 < 1/2: split");
		x[3] |= 0x10;
		CHECK(!bloofi_tree_must_split(5, 2, x, 100, 7, BLOOFI_NOSPLIT_ALL_ONES),
			  "all ones under the rule: no split");
		CHECK(bloofi_tree_must_split(5, 2, x, 100, 7, BLOOFI_SPLIT_ALWAYS),
			  "all ones without the rule: split");
		memset(x, 0, sizeof(x));
		for (int i = 0; i < 90; i++)
			bs_bit_set(x, (uint32_t) i);
		CHECK(!bloofi_tree_saturated(x, 100, 7), "0.9^7 = 0.48: not saturated");
		CHECK(bloofi_tree_saturated(x, 100, 6), "0.9^6 = 0.53: saturated");
	}
}

static void
test_split_choice(void)
{
	/* two clusters: low bits {0..20} and high bits {40..60} */
	uint8_t		f[5][8];
	const uint8_t *vals[5];
	uint8_t		side[5];
	uint64_t	scratch[2];
	int			c0[] = {0, 1, 2, 3, 4},
				c1[] = {40, 41, 42, 43},
				c2[] = {1, 2, 3, 5, 6},
				c3[] = {41, 42, 44, 45},
				c4[] = {2, 3, 4, 7};

	set_bits(f[0], 1, c0, 5);
	set_bits(f[1], 1, c1, 4);
	set_bits(f[2], 1, c2, 5);
	set_bits(f[3], 1, c3, 4);
	set_bits(f[4], 1, c4, 4);
	for (int i = 0; i < 5; i++)
		vals[i] = f[i];
	bloofi_tree_split_choice(vals, 5, 2, 1, side, scratch);
	CHECK(side[0] == side[2] && side[0] == side[4], "low cluster together: %d %d %d",
		  side[0], side[2], side[4]);
	CHECK(side[1] == side[3] && side[1] != side[0], "high cluster together, apart");

	/* min_side forces a side to take the rest */
	bloofi_tree_split_choice(vals, 5, 1, 1, side, scratch);
	{
		int			n1 = side[0] + side[1] + side[2] + side[3] + side[4];

		CHECK(n1 >= 1 && n1 <= 4, "sizes %d/%d", 5 - n1, n1);
	}

	/* random: every side >= min_side, for many n, min_side */
	for (int trial = 0; trial < 500; trial++)
	{
		int			n = 2 + (int) (rnd() % 20);
		int			min_side = 1 + (int) (rnd() % (uint64_t) (n / 2));
		uint8_t		rf[21][16];
		const uint8_t *rv[21];
		uint8_t		rs[21];
		uint64_t	sc[4];
		int			n1 = 0;

		for (int i = 0; i < n; i++)
		{
			uint64_t	w0 = rnd() & rnd(),
						w1 = rnd() & rnd() & rnd();

			bs_store64(rf[i], w0);
			bs_store64(rf[i] + 8, w1);
			rv[i] = rf[i];
		}
		bloofi_tree_split_choice(rv, n, min_side, 2, rs, sc);
		for (int i = 0; i < n; i++)
			n1 += rs[i];
		if (n1 < min_side || n - n1 < min_side)
			CHECK(false, "n %d min_side %d: sides %d/%d", n, min_side, n - n1, n1);
	}
}

static void
test_level_sizes(void)
{
	for (int d = 1; d <= 5; d++)
		for (int64_t n = 1; n <= 300; n++)
		{
			int64_t		parents = bloofi_tree_level_parents(n, d);
			int64_t		total = 0;
			bool		ok = parents >= 1;

			for (int64_t p = 0; p < parents && ok; p++)
			{
				int64_t		sz = bloofi_tree_level_run(n, parents, p + 1) -
					bloofi_tree_level_run(n, parents, p);

				total += sz;
				if (sz > 2 * d || (parents > 1 && sz < d) || sz < 1)
					ok = false;
			}
			if (!ok || total != n)
				CHECK(false, "d %d n %lld: %lld parents, total %lld", d, (long long) n,
					  (long long) parents, (long long) total);
		}
	CHECK(bloofi_tree_level_parents(5, 2) == 2, "5 nodes, d 2: two parents");
	CHECK(bloofi_tree_level_parents(4, 2) == 1, "4 nodes, d 2: one parent");
}

/* ---- the reference tree against brute force ---------------------------- */

#define RM		320				/* filter bits of the random trees */
#define RW		5				/* words */
#define RMAX	700

typedef struct Oracle
{
	uint8_t		f[RMAX][8 * RW];
	bool		live[RMAX];
	int32_t		leaf[RMAX];
	int			hits[RMAX];
} Oracle;

/* search callback: count a hit on leaf id in the oracle (arg) */
static void
count_hit(int64_t id, void *arg)
{
	((Oracle *) arg)->hits[id]++;
}

/* a clustered random filter: a cluster's base bits plus a few of its own */
static void
random_filter(uint8_t *f, int cluster)
{
	memset(f, 0, 8 * RW);
	for (int i = 0; i < 6; i++)
		bs_bit_set(f, (uint32_t) ((cluster * 37 + (int) (rnd() % 24)) % RM));
	for (int i = 0; i < 3; i++)
		bs_bit_set(f, (uint32_t) (rnd() % RM));
}

/* check invariants and compare searches with testing every live filter */
static bool
verify(const BloofiRefTree *t, Oracle *o, const char *what)
{
	const char *err = bloofi_reftree_check(t);

	if (err)
	{
		CHECK(false, "%s: %s", what, err);
		return false;
	}
	for (int q = 0; q < 20; q++)
	{
		uint32_t	pos[2] = {(uint32_t) (rnd() % RM), (uint32_t) (rnd() % RM)};
		int			npos = 1 + (int) (q % 2);

		memset(o->hits, 0, sizeof(o->hits));
		bloofi_reftree_search(t, pos, npos, count_hit, o);
		for (int i = 0; i < RMAX; i++)
		{
			int			want = o->live[i] && bs_bit_test(o->f[i], pos[0]) &&
				(npos == 1 || bs_bit_test(o->f[i], pos[1]));

			if (o->hits[i] != want)
			{
				CHECK(false, "%s: query %u/%u: filter %d reported %d times, want %d",
					  what, pos[0], pos[1], i, o->hits[i], want);
				return false;
			}
		}
	}
	return true;
}

/*
 * A reference tree of order d under the split rule, built by bulk build or
 * inserts, then random inserts and deletes and finally deleting everything,
 * checked after every operation against its invariants and against
 * testing every filter
 */
static void
run_random_tree(int d, BloofiSplitRule rule, bool bulk)
{
	static Oracle o;
	BloofiRefTree	t;
	int			nlive = 0;
	bool		ok = true;
	char		what[64];

	snprintf(what, sizeof(what), "d %d rule %d bulk %d", d, rule, bulk);
	memset(&o, 0, sizeof(o));
	bloofi_reftree_init(&t, RM, 3, d, rule);
	for (int i = 0; i < RMAX; i++)
		random_filter(o.f[i], (int) (rnd() % 12));

	if (bulk)
	{
		int64_t		ids[RMAX / 2];

		for (int i = 0; i < RMAX / 2; i++)
		{
			ids[i] = i;
			o.live[i] = true;
		}
		bloofi_reftree_bulk_build(&t, &o.f[0][0], ids, RMAX / 2, o.leaf);
		nlive = RMAX / 2;
		ok = verify(&t, &o, what);
	}

	/* random inserts and deletes, checked after every operation */
	for (int step = 0; step < 1500 && ok; step++)
	{
		int			i = (int) (rnd() % RMAX);

		if (o.live[i])
		{
			bloofi_reftree_delete(&t, o.leaf[i]);
			o.live[i] = false;
			nlive--;
		}
		else if (rnd() % 4 != 0 || nlive < 20)
		{
			o.leaf[i] = bloofi_reftree_insert(&t, o.f[i], i);
			o.live[i] = true;
			nlive++;
		}
		if (step % 10 == 0 || step > 1480)
			ok = verify(&t, &o, what);
	}
	/* delete everything: the tree shrinks to nothing */
	for (int i = 0; i < RMAX && ok; i++)
		if (o.live[i])
		{
			bloofi_reftree_delete(&t, o.leaf[i]);
			o.live[i] = false;
			if (i % 25 == 0)
				ok = verify(&t, &o, what);
		}
	CHECK(!ok || (t.root == -1 && t.nleaves == 0 && bloofi_reftree_check(&t) == NULL),
		  "%s: emptied tree", what);
	CHECK(ok, "%s: random inserts/deletes", what);
	bloofi_reftree_free(&t);
}

/* dense filters: the upper levels are all ones, the rule keeps them wide */
static void
test_all_ones_rule(void)
{
	BloofiRefTree	on,
				off;
	uint8_t		f[8];

	bloofi_reftree_init(&on, 64, 3, 2, BLOOFI_NOSPLIT_ALL_ONES);
	bloofi_reftree_init(&off, 64, 3, 2, BLOOFI_SPLIT_ALWAYS);
	for (int i = 0; i < 200; i++)
	{
		bs_store64(f, rnd() | rnd());	/* ~75% ones */
		bloofi_reftree_insert(&on, f, i);
		bloofi_reftree_insert(&off, f, i);
	}
	CHECK(bloofi_reftree_check(&on) == NULL, "rule on: %s", bloofi_reftree_check(&on));
	CHECK(bloofi_reftree_check(&off) == NULL, "rule off: %s", bloofi_reftree_check(&off));
	CHECK(bloofi_reftree_height(&on) < bloofi_reftree_height(&off),
		  "the rule stops all-ones levels: height %d vs %d",
		  bloofi_reftree_height(&on), bloofi_reftree_height(&off));
	CHECK(bloofi_reftree_inner_nodes(&on) < bloofi_reftree_inner_nodes(&off),
		  "fewer inner nodes with the rule: %lld vs %lld",
		  (long long) bloofi_reftree_inner_nodes(&on), (long long) bloofi_reftree_inner_nodes(&off));
	bloofi_reftree_free(&on);
	bloofi_reftree_free(&off);
}

/*
 * The search-cost model (bloofi_tree_cost_*) by hand: two bottom nodes A
 * (2 leaves, fp 0.5) and B (3 leaves, fp 0.25) under a root.  A lookup of
 * one of A's elements checks A and B (2), then A's 2 leaves, then B's 3
 * leaves with probability 0.25; of B's: 2, 3, and A's 2 with 0.5.
 */
static void
test_cost_model(void)
{
	BloofiSubtreeCost c[2],
				root;
	double		want;

	bloofi_tree_cost_leaves(2, 0.5, &c[0]);
	bloofi_tree_cost_leaves(3, 0.25, &c[1]);
	CHECK(c[0].leaves == 2 && c[0].absent == 1.0 && c[0].present == 2, "bottom node A");
	CHECK(c[1].leaves == 3 && c[1].absent == 0.75 && c[1].present == 3, "bottom node B");
	bloofi_tree_cost_parent(c, 2, 1.0, &root);
	want = 2 + (2 * (2 + 0.25 * 3) + 3 * (3 + 0.5 * 2)) / 5.0;
	CHECK(root.leaves == 5 && root.absent == 2 + 1.0 + 0.75, "root leaves, absent");
	CHECK(root.present > want - 1e-12 && root.present < want + 1e-12,
		  "root present %.6f, want %.6f", root.present, want);
}

/* the model's nodes checked per lookup of a present element, over a built tree */
static BloofiSubtreeCost
model_cost(const BloofiRefTree *t, int32_t i)
{
	const BloofiRefNode *nd = &t->nodes[i];
	BloofiSubtreeCost out = {1, 0, 0};
	BloofiSubtreeCost *c;

	if (nd->leaf)
		return out;
	c = malloc(sizeof(BloofiSubtreeCost) * (size_t) nd->nchild);
	for (int j = 0; j < nd->nchild; j++)
		c[j] = model_cost(t, nd->child[j]);
	bloofi_tree_cost_parent(c, nd->nchild, bloofi_tree_value_fp(nd->val, t->m, t->k), &out);
	free(c);
	return out;
}

/*
 * The paper's configuration (m = 100,992, k = 7, 100 elements per filter,
 * filter i holds [100i, 100i + 100), d = 2), N = 1,000: every filter's own
 * elements are found, and the average nodes checked per lookup of a present
 * element is printed next to the authors' code's (the benchmark reports it
 * for the index).  The test asserts pruning (far fewer nodes than N) and
 * that the search-cost model predicts the measured count within 10%.
 */
static void
count_match(int64_t id, void *arg)
{
	int64_t    *want = arg;

	if (id == want[0])
		want[1]++;
	want[2]++;
}

static void
test_paper_configuration(void)
{
	const int	n = 1000;
	BsParams	p = {100992, 7, BS_HASH_XXH3, 0};
	BsHasher	h;
	size_t		nwords = bs_words_for_bits(p.m);
	uint8_t    *filters = calloc((size_t) n, 8 * nwords);
	int64_t    *ids = malloc(sizeof(int64_t) * (size_t) n);

	bs_hasher_init(&h, &p);
	for (int i = 0; i < n; i++)
	{
		ids[i] = i;
		for (int e = 0; e < 100; e++)
			bs_key_set(&h, bs_key_int64(&h, 100 * i + e), filters + (size_t) i * 8 * nwords);
	}
	for (int run = 0; run < 4; run++)
	{
		int			bulk = run % 2;
		BloofiSplitRule rule = run < 2 ? BLOOFI_NOSPLIT_ALL_ONES : BLOOFI_NOSPLIT_SATURATED;
		BloofiRefTree	t;
		int64_t		checked = 0,
					found = 0,
					matches = 0;
		const int	lookups = 200;

		bloofi_reftree_init(&t, p.m, p.k, 2, rule);
		if (bulk)
			bloofi_reftree_bulk_build(&t, filters, ids, n, NULL);
		else
			for (int i = 0; i < n; i++)
				bloofi_reftree_insert(&t, filters + (size_t) i * 8 * nwords, i);
		CHECK(bloofi_reftree_check(&t) == NULL, "paper config: %s", bloofi_reftree_check(&t));
		for (int q = 0; q < lookups; q++)
		{
			int64_t		x = (int64_t) (q * 7919) % (100 * n);
			uint32_t	pos[7];
			int64_t		want[3] = {x / 100, 0, 0};

			bs_key_positions(&h, bs_key_int64(&h, x), pos);
			checked += bloofi_reftree_search(&t, pos, 7, count_match, want);
			found += want[1];
			matches += want[2];
		}
		CHECK(found == lookups, "every present element found: %lld / %d",
			  (long long) found, lookups);
		CHECK(checked < (int64_t) lookups * n / 10, "pruning: %.1f nodes per lookup",
			  (double) checked / lookups);
		{
			/* the model that places the bulk root predicts what search measures */
			double		model = 1 + model_cost(&t, t.root).present;
			double		got = (double) checked / lookups;

			CHECK(model > 0.9 * got && model < 1.1 * got,
				  "cost model %.2f vs measured %.2f nodes checked", model, got);
		}
		printf("paper configuration, N = %d, d = 2, %s build, %s rule: height %d, "
			   "%lld inner nodes, %.2f nodes checked per lookup (authors' code: %s), %.2f matches\n",
			   n, bulk ? "bulk" : "iterative", run < 2 ? "all-ones" : "saturated",
			   bloofi_reftree_height(&t),
			   (long long) bloofi_reftree_inner_nodes(&t), (double) checked / lookups,
			   bulk ? "21.64" : "24.56", (double) matches / lookups);
		bloofi_reftree_free(&t);
	}
	free(filters);
	free(ids);
}

/* runs every test above; exit status 0 when all passed (UNIT_DONE) */
int
main(void)
{
	test_closest_and_all_ones();
	test_split_choice();
	test_level_sizes();
	test_cost_model();
	for (int d = 1; d <= 3; d++)
	{
		for (int rule = 0; rule <= 2; rule++)
		{
			run_random_tree(d, (BloofiSplitRule) rule, false);
			run_random_tree(d, (BloofiSplitRule) rule, true);
		}
	}
	test_all_ones_rule();
	test_paper_configuration();
	return UNIT_DONE();
}
