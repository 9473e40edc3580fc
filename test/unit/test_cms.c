/*
 * test_cms.c
 *    Unit tests of the Count-Min sketch core (src/core/cms.c) against exact
 *    counts: the column vectors of docs/hashing.md (computed by
 *    test/ref/bloom_ref.py, an independent implementation), sizing, point
 *    estimates on Zipf streams of 10^6 events (s = 0.8, 1.1, 1.5; three seeds
 *    each; never below the truth, above truth + eps*N for at most a delta
 *    fraction up to a binomial tolerance), merge of partial sketches = sketch
 *    of the whole, inner product within eps*Na*Nb of the exact join size,
 *    remove never making a counter negative, overflow refused, validation.
 */
#include <stdint.h>
#include <string.h>

#include "cms.h"
#include "unit.h"
#include "zipf.h"

#define EVENTS		1000000
#define UNIVERSE	100000

static CmsSketch
sketch_new(uint32_t w, uint32_t d, int32_t seed)
{
	CmsSketch	s;

	s.p.w = w;
	s.p.d = d;
	s.p.seed = seed;
	s.total = 0;
	s.counters = calloc((size_t) w * d, sizeof(int64_t));
	return s;
}

static void
test_vectors(void)
{
	/* columns = bloom_ref.positions(e, w, d, seed): docs/hashing.md, "Count-Min columns" */
	struct
	{
		int			is_int;
		int64_t		i;
		const char *bytes;
		size_t		len;
		uint32_t	w,
					d;
		int32_t		seed;
		uint32_t	want[5];
	}			v[] = {
		{1, 42, NULL, 0, 272, 5, 0, {103, 269, 162, 56, 221}},
		{1, -1, NULL, 0, 272, 5, 0, {147, 110, 72, 34, 268}},
		{0, 0, "hello", 5, 272, 5, 0, {211, 133, 54, 247, 169}},
		{0, 0, "", 0, 272, 5, 0, {102, 265, 156, 47, 211}},
		{0, 0, "\x00\xff", 2, 272, 5, 0, {180, 48, 189, 58, 199}},
		{1, 42, NULL, 0, 2048, 4, -7, {1365, 279, 1240, 154}},
		{1, -1, NULL, 0, 2048, 4, -7, {1219, 1023, 827, 630}},
		{0, 0, "hello", 5, 2048, 4, -7, {483, 1256, 2030, 756}},
		{0, 0, "", 0, 2048, 4, -7, {243, 410, 578, 746}},
	};

	for (size_t n = 0; n < sizeof(v) / sizeof(v[0]); n++)
	{
		BsHasher	h;
		CmsParams	p = {v[n].w, v[n].d, v[n].seed};
		uint32_t	col[CMS_MAX_D];
		BsKey		key;

		cms_hasher_init(&h, v[n].seed);
		key = v[n].is_int ? bs_key_int64(&h, v[n].i) : bs_key_bytes(&h, v[n].bytes, v[n].len);
		cms_columns(&p, key, col);
		CHECK(memcmp(col, v[n].want, v[n].d * sizeof(uint32_t)) == 0,
			  "vector %zu: columns %u %u %u", n, col[0], col[1], col[2]);
	}
}

static void
test_sizing(void)
{
	uint32_t	w,
				d;

	CHECK(cms_size_for_error(0.01, 0.01, &w, &d) == CMS_OK && w == 272 && d == 5,
		  "eps 0.01 delta 0.01: w=%u d=%u", w, d);
	CHECK(cms_size_for_error(0.001, 0.5, &w, &d) == CMS_OK && w == 2719 && d == 1,
		  "eps 0.001 delta 0.5: w=%u d=%u", w, d);
	CHECK(cms_size_for_error(0, 0.1, &w, &d) == CMS_BAD_PARAMS, "eps 0");
	CHECK(cms_size_for_error(0.1, 1, &w, &d) == CMS_BAD_PARAMS, "delta 1");
	CHECK(cms_size_for_error(NAN, 0.1, &w, &d) == CMS_BAD_PARAMS, "eps NaN");
	CHECK(cms_size_for_error(1e-9, 0.1, &w, &d) == CMS_BAD_PARAMS, "w over the cap");
	CHECK(cms_size_for_error(0.1, 1e-15, &w, &d) == CMS_BAD_PARAMS, "d over 32");
	CHECK(cms_check_params(1 << 24, 1) == CMS_OK, "w at the cap");
	CHECK(cms_check_params(1 << 23, 3) == CMS_BAD_PARAMS, "w*d over the cap");
	CHECK(cms_check_params(0, 3) == CMS_BAD_PARAMS && cms_check_params(3, 0) == CMS_BAD_PARAMS &&
		  cms_check_params(3, 33) == CMS_BAD_PARAMS, "ranges");
}

/* accuracy of point estimates on one Zipf stream; also merge of 4 parts */
static void
test_zipf(double s, unsigned long long seed)
{
	const double eps = 0.01,
				delta = 0.01;
	uint32_t	w,
				d;
	CmsSketch	whole,
				part[4];
	BsHasher	h;
	Zipf		z;
	int64_t    *exact = calloc(UNIVERSE + 1, sizeof(int64_t));
	int64_t		distinct = 0,
				below = 0,
				above = 0;
	double		tol;

	cms_size_for_error(eps, delta, &w, &d);
	whole = sketch_new(w, d, (int32_t) seed);
	for (int i = 0; i < 4; i++)
		part[i] = sketch_new(w, d, (int32_t) seed);
	cms_hasher_init(&h, (int32_t) seed);
	zipf_init(&z, UNIVERSE, s, seed);
	for (int e = 0; e < EVENTS; e++)
	{
		uint32_t	x = zipf_next(&z);
		BsKey		key = bs_key_int64(&h, x);

		exact[x]++;
		cms_add(&whole, key, 1);
		cms_add(&part[e % 4], key, 1);
	}
	for (uint32_t x = 1; x <= UNIVERSE; x++)
	{
		int64_t		est = cms_estimate(&whole, bs_key_int64(&h, x));

		if (exact[x] == 0)
			continue;
		distinct++;
		below += est < exact[x];
		above += (double) est > exact[x] + eps * EVENTS;
	}
	/* P(est > f + eps N) <= delta per element; 3 sigma of a binomial(distinct, delta) */
	tol = delta + 3 * sqrt(delta * (1 - delta) / distinct);
	CHECK(whole.total == EVENTS, "total");
	CHECK(below == 0, "s=%.1f seed=%llu: %ld estimates below the true count", s, seed, (long) below);
	CHECK((double) above / distinct <= tol,
		  "s=%.1f seed=%llu: %ld of %ld estimates above f + eps N (tolerance %.4f)",
		  s, seed, (long) above, (long) distinct, tol);
	printf("  zipf s=%.1f seed=%llu: %ld distinct, %ld above f + eps*N\n", s, seed,
		   (long) distinct, (long) above);
	/* merge of the partial sketches = the sketch of the whole stream */
	CHECK(cms_merge(&part[0], &part[1]) == CMS_OK && cms_merge(&part[2], &part[3]) == CMS_OK &&
		  cms_merge(&part[0], &part[2]) == CMS_OK, "merge");
	CHECK(cms_equal(&part[0], &whole), "s=%.1f: merged parts equal the whole", s);
	for (int i = 0; i < 4; i++)
		free(part[i].counters);
	free(whole.counters);
	free(exact);
	zipf_free(&z);
}

/* inner product of two streams against the exact join size */
static void
test_inner_product(unsigned long long seed)
{
	const double eps = 0.005;
	uint32_t	w,
				d;
	CmsSketch	a,
				b,
				other;
	BsHasher	h;
	Zipf		za,
				zb;
	int64_t    *fa = calloc(UNIVERSE + 1, sizeof(int64_t));
	int64_t    *fb = calloc(UNIVERSE + 1, sizeof(int64_t));
	int64_t		est;
	double		join = 0;
	const int	na = 300000,
				nb = 200000;

	cms_size_for_error(eps, 0.01, &w, &d);
	a = sketch_new(w, d, 3);
	b = sketch_new(w, d, 3);
	cms_hasher_init(&h, 3);
	zipf_init(&za, UNIVERSE, 1.1, seed);
	zipf_init(&zb, UNIVERSE, 0.8, seed + 100);
	for (int i = 0; i < na; i++)
	{
		uint32_t	x = zipf_next(&za);

		fa[x]++;
		cms_add(&a, bs_key_int64(&h, x), 1);
	}
	for (int i = 0; i < nb; i++)
	{
		uint32_t	x = zipf_next(&zb);

		fb[x]++;
		cms_add(&b, bs_key_int64(&h, x), 1);
	}
	for (uint32_t x = 1; x <= UNIVERSE; x++)
		join += (double) fa[x] * fb[x];
	CHECK(cms_inner_product(&a, &b, &est) == CMS_OK, "inner product");
	CHECK(est >= join && est <= join + eps * na * nb,
		  "seed %llu: join %.0f, estimate %ld, bound %.0f", seed, join, (long) est,
		  join + eps * na * nb);
	other = sketch_new(w, d, 4);
	CHECK(cms_inner_product(&a, &other, &est) == CMS_INCOMPATIBLE, "different seeds");
	free(other.counters);
	free(a.counters);
	free(b.counters);
	free(fa);
	free(fb);
	zipf_free(&za);
	zipf_free(&zb);
}

/*
 * remove: all or nothing, never a negative counter, inverse of add.  Removing
 * what was added always succeeds and keeps every estimate >= the count; a
 * removal of more than was added is refused exactly when one of the
 * element's counters is below the count (the only check a sketch can make),
 * tried on a copy.
 */
static void
test_remove(void)
{
	CmsSketch	s = sketch_new(16, 4, 1);
	CmsSketch	copy = sketch_new(16, 4, 1);
	CmsSketch	empty = sketch_new(16, 4, 1);
	BsHasher	h;
	int64_t		exact[200] = {0};
	unsigned long long rng = 99;
	int64_t		total;
	int			refused = 0,
				accepted_bad = 0;
	size_t		bytes = cms_cells(&s.p) * sizeof(int64_t);

	cms_hasher_init(&h, 1);
	for (int step = 0; step < 20000 && !unit_failed; step++)
	{
		int			x = (int) (unit_splitmix64(&rng) % 200);
		int64_t		c = (int64_t) (unit_splitmix64(&rng) % 4);
		BsKey		key = bs_key_int64(&h, x);
		int			op = (int) (unit_splitmix64(&rng) % 3);

		if (op == 0)
		{
			cms_add(&s, key, c);
			exact[x] += c;
		}
		else if (op == 1 && c <= exact[x])
		{
			CHECK(cms_remove(&s, key, c) == CMS_OK, "removing what was added");
			exact[x] -= c;
		}
		else
		{
			int64_t		min = cms_estimate(&s, key);
			CmsStatus	st;

			memcpy(copy.counters, s.counters, bytes);
			copy.total = s.total;
			st = cms_remove(&copy, key, c);
			CHECK((st == CMS_NEGATIVE) == (min < c), "refused iff a counter < count");
			CHECK(st == CMS_OK || memcmp(copy.counters, s.counters, bytes) == 0,
				  "a refused remove changes nothing");
			refused += st != CMS_OK;
			accepted_bad += st == CMS_OK && c > exact[x];
			CHECK(cms_validate(&copy.p, copy.counters, &total) == CMS_OK && total == copy.total,
				  "step %d: counters valid after remove (none negative, rows sum to N)", step);
		}
		CHECK(cms_validate(&s.p, s.counters, &total) == CMS_OK && total == s.total,
			  "step %d: counters valid (none negative, rows sum to N)", step);
	}
	CHECK(refused > 0 && accepted_bad > 0, "both outcomes of an over-removal: %d refused, %d accepted",
		  refused, accepted_bad);
	for (int x = 0; x < 200; x++)
	{
		CHECK(cms_estimate(&s, bs_key_int64(&h, x)) >= exact[x], "estimate >= count after removes");
		CHECK(cms_remove(&s, bs_key_int64(&h, x), exact[x]) == CMS_OK, "final remove");
	}
	CHECK(cms_equal(&s, &empty), "removing what was added gives the empty sketch");
	CHECK(cms_add(&s, bs_key_int64(&h, 1), -1) == CMS_BAD_COUNT, "negative count");
	CHECK(cms_remove(&s, bs_key_int64(&h, 1), 1) == CMS_NEGATIVE, "remove from the empty sketch");
	free(s.counters);
	free(copy.counters);
	free(empty.counters);
}

static void
test_overflow(void)
{
	CmsSketch	a = sketch_new(8, 2, 0),
				b = sketch_new(8, 2, 0);
	BsHasher	h;
	int64_t		out,
				total;

	cms_hasher_init(&h, 0);
	CHECK(cms_add(&a, bs_key_int64(&h, 1), INT64_MAX - 5) == CMS_OK, "big add");
	CHECK(cms_add(&a, bs_key_int64(&h, 2), 6) == CMS_OVERFLOW, "N over INT64_MAX refused");
	CHECK(a.total == INT64_MAX - 5 && cms_estimate(&a, bs_key_int64(&h, 1)) == INT64_MAX - 5,
		  "refused add leaves the sketch unchanged");
	CHECK(cms_add(&a, bs_key_int64(&h, 2), 5) == CMS_OK && a.total == INT64_MAX, "add up to the max");
	CHECK(cms_add(&b, bs_key_int64(&h, 1), 1) == CMS_OK, "small add");
	CHECK(cms_merge(&a, &b) == CMS_OVERFLOW, "merge overflow refused");
	CHECK(cms_inner_product(&a, &a, &out) == CMS_OVERFLOW, "inner product overflow refused");
	CHECK(cms_validate(&a.p, a.counters, &total) == CMS_OK && total == INT64_MAX, "valid at the max");
	a.counters[0] += 1;
	CHECK(cms_validate(&a.p, a.counters, &total) != CMS_OK, "rows with different sums refused");
	a.counters[0] = -1;
	CHECK(cms_validate(&a.p, a.counters, &total) == CMS_CORRUPT, "negative counter refused");
	free(a.counters);
	free(b.counters);
}

int
main(void)
{
	static const double exponents[] = {0.8, 1.1, 1.5};

	test_vectors();
	test_sizing();
	for (int i = 0; i < 3; i++)
		for (unsigned long long seed = 1; seed <= 3; seed++)
			test_zipf(exponents[i], seed * 7919 + i);
	for (unsigned long long seed = 1; seed <= 3; seed++)
		test_inner_product(seed);
	test_remove();
	test_overflow();
	return UNIT_DONE();
}
