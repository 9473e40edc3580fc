/*
 * bloomtree_bench.c
 *    BloomTree measurements that need millions of queries, in C on the
 *    PostgreSQL-independent core (compiled with the extension's own flags by
 *    test/bench/40_bloomtree.sh).  Elements are int64 keys hashed exactly as
 *    the SQL functions hash them (XXH3-128 of the 8 little-endian bytes,
 *    seed 0); members are 0..n-1, non-members come from 2^40 on.  Every
 *    figure is measured in the same run as its baseline.  Output: "key value"
 *    lines.
 *
 *   bloomtree_bench paper N NQ
 *       the paper's d = 3, rho_1 = 1 tree (m = N, 4, 3; k = 6, 3, 2) with N
 *       elements: measured false-positive rate over NQ non-members, the
 *       posterior of equations 11-12, the expected rate; coded size, Theorem
 *       4.1, the entropy of the coded bits; the standard filter (optimal k)
 *       sized for the measured rate, its measured rate and coded size;
 *       membership ns/query of both (median of 5 passes over 2^20 probes,
 *       half members).
 *   bloomtree_bench intersect N NQ
 *       A = 0..N-1, B = N/2..3N/2-1 in the same configuration: a & b, its
 *       false negatives over A n B and false-positive rates over A \ B, B \ A
 *       and NQ elements of neither; the AND of two standard filters (optimal
 *       k) whose size equals the tree's coded size, same classes.
 *   bloomtree_bench table3 NMAX NQ
 *       the eight configurations of the paper's Table III at n = n_max =
 *       NMAX: posterior, expected and measured rates, W/M, W/W_SBF for the
 *       posterior and for the measured rate, hash positions and query time
 *       against the standard filter with optimal k for the posterior.
 *   bloomtree_bench optimizer NMAX
 *       the d = 3 genetic algorithm against the exhaustive search of every
 *       d = 3 configuration on the same 4096-element trees: evaluations,
 *       seconds, and for each exhaustive front point the smallest GA front
 *       size at a rate no higher (median and 90th percentile ratio).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bltree.h"
#include "bltree_code.h"
#include "bltree_opt.h"
#include "bench_timing.h"
#include "bs_bits.h"
#include "bs_hash.h"

#define NONMEMBER_BASE	(INT64_C(1) << 40)

static volatile uint64_t sink;

/* ---- trees ------------------------------------------------------------------ */

typedef struct Tree
{
	BlTreeLayout L;
	uint8_t    *bits;
} Tree;

static void
tree_init(Tree *t, int d, const uint32_t *m, const uint8_t *k)
{
	BlTreeParams p;

	memset(&p, 0, sizeof(p));
	p.d = d;
	for (int a = 0; a < d; a++)
	{
		p.m[a] = m[a];
		p.k[a] = k[a];
	}
	if (bltree_layout_init(&t->L, &p) != BLTREE_OK)
	{
		fprintf(stderr, "bad parameters\n");
		exit(1);
	}
	t->bits = calloc(BLTREE_ARRAY_BYTES(t->L.storage_bits), 1);
}

static void
tree_add_range(Tree *t, int64_t lo, int64_t hi)
{
	for (int64_t x = lo; x < hi; x++)
		bltree_insert(&t->L, t->bits, bltree_key_int64(&t->L, x));
}

static uint64_t
tree_count(const Tree *t, int64_t lo, int64_t hi)
{
	uint64_t	c = 0;

	for (int64_t x = lo; x < hi; x++)
		c += bltree_contains(&t->L, t->bits, bltree_key_int64(&t->L, x), NULL);
	return c;
}

/* bytes of the binary form: 8 + 12 d header bytes and the level streams */
static uint64_t
tree_coded_bytes(const Tree *t)
{
	BlTreeLevelCode lc[BLTREE_MAX_D];
	uint8_t    *out = malloc(bltree_max_coded_bytes(&t->L) + 16);
	uint64_t	n = bltree_encode(&t->L, t->bits, lc, out);

	free(out);
	return 8 + 12 * (uint64_t) t->L.p.d + n;
}

static double
tree_thm41_bytes(const Tree *t)
{
	uint64_t	ones[BLTREE_MAX_D];

	for (int a = 0; a < t->L.p.d; a++)
		ones[a] = bltree_level_ones(&t->L, t->bits, a);
	return bltree_entropy_bits(&t->L, ones) / 8;
}

/* ---- standard filters (the bloomfilter type's 'xxh3' scheme) ------------------- */

typedef struct Sbf
{
	BsHasher	h;
	uint8_t    *bits;
} Sbf;

static void
sbf_init(Sbf *s, uint64_t m, int k)
{
	BsParams	p;

	if (m < BS_MIN_M)
		m = BS_MIN_M;
	if (m > BS_MAX_M)
		m = BS_MAX_M;
	p.m = (uint32_t) m;
	p.k = (uint8_t) (k < 1 ? 1 : k > BS_MAX_K ? BS_MAX_K : k);
	p.hash = BS_HASH_XXH3;
	p.seed = 0;
	bs_hasher_init(&s->h, &p);
	s->bits = calloc(bs_words_for_bits(p.m) + 1, 8);
}

/* the optimal k for m bits and n elements */
static int
optimal_k(uint64_t m, uint64_t n)
{
	int			k = (int) floor((double) m / (double) n * log(2.0) + 0.5);

	return k < 1 ? 1 : k > BS_MAX_K ? BS_MAX_K : k;
}

/* bits of a standard filter (optimal k) for rate p: n log2(1/p) / ln 2 */
static double
sbf_bits_for(double n, double p)
{
	return n * -log2(p) / log(2.0);
}

static void
sbf_add_range(Sbf *s, int64_t lo, int64_t hi)
{
	for (int64_t x = lo; x < hi; x++)
		bs_key_set(&s->h, bs_key_int64(&s->h, x), s->bits);
}

static uint64_t
sbf_count(const Sbf *s, int64_t lo, int64_t hi)
{
	uint64_t	c = 0;

	for (int64_t x = lo; x < hi; x++)
		c += bs_key_test(&s->h, bs_key_int64(&s->h, x), s->bits);
	return c;
}

/* the filter's bits coded with the same level coder (as a one-level tree) */
static uint64_t
sbf_coded_bytes(const Sbf *s)
{
	Tree		t;
	uint32_t	m = s->h.p.m;
	uint8_t		k = 1;

	tree_init(&t, 1, &m, &k);
	memcpy(t.bits, s->bits, 8 * bs_words_for_bits(m));
	{
		uint64_t	n = tree_coded_bytes(&t);

		free(t.bits);
		return n;
	}
}

/* ---- membership speed ------------------------------------------------------- */

#define NPROBE	(1 << 20)
#define REPS	5

/* ns per query over NPROBE int64 probes (half members 0..n-1, half not), hash included */
static void
speed(const Tree *t, const Sbf *s, uint64_t n, double *bt_ns, double *sbf_ns)
{
	int64_t    *xs = malloc(sizeof(int64_t) * NPROBE);
	double		tb[REPS],
				ts[REPS];
	uint64_t	hits = 0;

	for (int i = 0; i < NPROBE; i++)
		xs[i] = i % 2 ? (int64_t) ((uint64_t) i * 2654435761u % n) : NONMEMBER_BASE + i;
	for (int r = -1; r < REPS; r++)
	{
		double		t0 = bench_now_sec();

		for (int i = 0; i < NPROBE; i++)
			hits += bltree_contains(&t->L, t->bits, bltree_key_int64(&t->L, xs[i]), NULL);
		if (r >= 0)
			tb[r] = (bench_now_sec() - t0) * 1e9 / NPROBE;
		t0 = bench_now_sec();
		for (int i = 0; i < NPROBE; i++)
			hits += bs_key_test(&s->h, bs_key_int64(&s->h, xs[i]), s->bits);
		if (r >= 0)
			ts[r] = (bench_now_sec() - t0) * 1e9 / NPROBE;
	}
	sink = hits;
	*bt_ns = bench_median(tb, REPS);
	*sbf_ns = bench_median(ts, REPS);
	free(xs);
}

/* ---- the parts ---------------------------------------------------------------- */

static void
part_paper(uint64_t n, uint64_t nq)
{
	uint32_t	m[3] = {(uint32_t) n, 4, 3};
	uint8_t		k[3] = {6, 3, 2};
	Tree		t;
	Sbf			s;
	uint64_t	fn,
				fp,
				sfp,
				msbf;
	double		p,
				bt_ns,
				sbf_ns,
				t0 = bench_now_sec();

	tree_init(&t, 3, m, k);
	tree_add_range(&t, 0, (int64_t) n);
	printf("paper_build_s %.2f\n", bench_now_sec() - t0);
	fn = n - tree_count(&t, 0, (int64_t) n);
	t0 = bench_now_sec();
	fp = tree_count(&t, NONMEMBER_BASE, NONMEMBER_BASE + (int64_t) nq);
	printf("paper_query_s %.2f\n", bench_now_sec() - t0);
	p = (double) fp / (double) nq;
	printf("paper_n %llu\npaper_nonmembers %llu\npaper_false_negatives %llu\n",
		   (unsigned long long) n, (unsigned long long) nq, (unsigned long long) fn);
	printf("paper_false_positives %llu\npaper_measured_fp %.6g\n", (unsigned long long) fp, p);
	printf("paper_posterior_fp %.6g\n", bltree_posterior_fp(&t.L, t.bits));
	printf("paper_expected_fp %.6g\n", bltree_expected_fp(&t.L, t.bits));
	for (int a = 0; a < 3; a++)
		printf("paper_fill_%d %.4f\n", a + 1,
			   (double) bltree_level_ones(&t.L, t.bits, a) / t.L.level_bits[a]);
	printf("paper_storage_bytes %.0f\n", t.L.storage_bits / 8.0);
	printf("paper_coded_bytes %llu\n", (unsigned long long) tree_coded_bytes(&t));
	printf("paper_thm41_bytes %.0f\n", tree_thm41_bytes(&t));
	printf("paper_coded_entropy_bytes %.0f\n", bltree_coded_entropy_bits(&t.L, t.bits) / 8);

	/* the standard filter with optimal k that measures the same rate */
	msbf = (uint64_t) ceil(sbf_bits_for((double) n, p));
	sbf_init(&s, msbf, optimal_k(msbf, n));
	sbf_add_range(&s, 0, (int64_t) n);
	sfp = sbf_count(&s, NONMEMBER_BASE, NONMEMBER_BASE + (int64_t) nq);
	printf("paper_sbf_m %u\npaper_sbf_k %d\n", s.h.p.m, s.h.p.k);
	printf("paper_sbf_measured_fp %.6g\n", (double) sfp / (double) nq);
	printf("paper_sbf_bytes %.0f\n", s.h.p.m / 8.0);
	printf("paper_sbf_coded_bytes %llu\n", (unsigned long long) sbf_coded_bytes(&s));
	/* the standard filter for the paper's posterior (what Table III compares with) */
	printf("paper_sbf_bytes_for_posterior %.0f\n",
		   sbf_bits_for((double) n, bltree_posterior_fp(&t.L, t.bits)) / 8);
	speed(&t, &s, n, &bt_ns, &sbf_ns);
	printf("paper_bt_query_ns %.1f\npaper_sbf_query_ns %.1f\n", bt_ns, sbf_ns);
	printf("paper_bt_probes %llu\n", (unsigned long long) t.L.probes);
	free(t.bits);
	free(s.bits);
}

static void
part_intersect(uint64_t n, uint64_t nq)
{
	uint32_t	m[3] = {(uint32_t) n, 4, 3};
	uint8_t		k[3] = {6, 3, 2};
	Tree		a,
				b;
	Sbf			sa,
				sb;
	int64_t		h = (int64_t) n / 2;
	uint64_t	coded,
				msbf;
	tree_init(&a, 3, m, k);
	tree_init(&b, 3, m, k);
	tree_add_range(&a, 0, (int64_t) n);
	tree_add_range(&b, h, h + (int64_t) n);
	coded = tree_coded_bytes(&a);
	bltree_and(&a.L, a.bits, b.bits);
	bltree_prune(&a.L, a.bits);
	printf("isect_n %llu\nisect_common %lld\n", (unsigned long long) n, (long long) (n - h));
	printf("isect_tree_coded_bytes %llu\n", (unsigned long long) coded);
	printf("isect_and_coded_bytes %llu\n", (unsigned long long) tree_coded_bytes(&a));
	printf("isect_bt_false_negatives %llu\n",
		   (unsigned long long) ((uint64_t) (n - h) - tree_count(&a, h, (int64_t) n)));
	printf("isect_bt_fp_a_only %.6g\n", (double) tree_count(&a, 0, h) / h);
	printf("isect_bt_fp_b_only %.6g\n", (double) tree_count(&a, (int64_t) n, h + (int64_t) n) / h);
	printf("isect_bt_fp_neither %.6g\n",
		   (double) tree_count(&a, NONMEMBER_BASE, NONMEMBER_BASE + (int64_t) nq) / nq);
	printf("isect_bt_expected_fp %.6g\nisect_bt_posterior_fp %.6g\n",
		   bltree_expected_fp(&a.L, a.bits), bltree_posterior_fp(&a.L, a.bits));

	/* two standard filters as large as the tree's coded form, optimal k */
	msbf = 8 * coded;
	sbf_init(&sa, msbf, optimal_k(msbf, n));
	sbf_init(&sb, msbf, optimal_k(msbf, n));
	sbf_add_range(&sa, 0, (int64_t) n);
	sbf_add_range(&sb, h, h + (int64_t) n);
	printf("isect_sbf_m %u\nisect_sbf_k %d\nisect_sbf_coded_bytes %llu\n", sa.h.p.m, sa.h.p.k,
		   (unsigned long long) sbf_coded_bytes(&sa));
	bs_and(sa.bits, sb.bits, bs_words_for_bits(sa.h.p.m));
	printf("isect_sbf_false_negatives %llu\n",
		   (unsigned long long) ((uint64_t) (n - h) - sbf_count(&sa, h, (int64_t) n)));
	printf("isect_sbf_fp_a_only %.6g\n", (double) sbf_count(&sa, 0, h) / h);
	printf("isect_sbf_fp_b_only %.6g\n", (double) sbf_count(&sa, (int64_t) n, h + (int64_t) n) / h);
	printf("isect_sbf_fp_neither %.6g\n",
		   (double) sbf_count(&sa, NONMEMBER_BASE, NONMEMBER_BASE + (int64_t) nq) / nq);
	free(a.bits);
	free(b.bits);
	free(sa.bits);
	free(sb.bits);
}

/* Table III: d, rho_1, m_2.., k_1.., and the paper's P_a, W/M, W/W_SBF */
static const struct
{
	int			d;
	double		rho;
	uint32_t	m[5];
	uint8_t		k[5];
	double		paper_pa,
				paper_wm,
				paper_wsbf;
}			table3[] = {
	{2, 0.5, {0, 3}, {6, 1}, 0.84, 0.096, 0.39},
	{3, 0.5, {0, 4, 3}, {5, 3, 2}, 0.21, 0.21, 0.55},
	{4, 0.5, {0, 5, 3, 3}, {6, 3, 2, 2}, 1.02e-5, 0.51, 0.71},
	{5, 0.5, {0, 4, 4, 2, 3}, {6, 3, 3, 1, 2}, 2.01e-12, 0.67, 0.90},
	{2, 1, {0, 4}, {6, 3}, 0.38, 0.20, 0.49},
	{3, 1, {0, 4, 3}, {6, 3, 2}, 0.0026, 0.50, 0.69},
	{4, 1, {0, 4, 4, 5}, {6, 3, 3, 2}, 2.55e-22, 0.87, 0.85},
	{5, 1, {0, 2, 4, 2, 7}, {4, 1, 3, 1, 1}, 5.37e-13, 0.55, 1.30},
};

static void
part_table3(uint64_t n, uint64_t nq)
{
	for (size_t r = 0; r < sizeof(table3) / sizeof(table3[0]); r++)
	{
		Tree		t;
		Sbf			s;
		uint32_t	m[5];
		uint64_t	fp,
					coded;
		double		post,
					exp_fp,
					meas,
					bt_ns,
					sbf_ns,
					msbf_post;

		memcpy(m, table3[r].m, sizeof(m));
		m[0] = (uint32_t) floor(table3[r].rho * n + 0.5);
		tree_init(&t, table3[r].d, m, table3[r].k);
		tree_add_range(&t, 0, (int64_t) n);
		fp = tree_count(&t, NONMEMBER_BASE, NONMEMBER_BASE + (int64_t) nq);
		post = bltree_posterior_fp(&t.L, t.bits);
		exp_fp = bltree_expected_fp(&t.L, t.bits);
		meas = (double) fp / nq;
		coded = 8 * tree_coded_bytes(&t);
		/* the SBF Table III compares with: optimal k, the posterior's rate */
		msbf_post = sbf_bits_for((double) n, post);
		sbf_init(&s, (uint64_t) ceil(msbf_post < 8 ? 8 : msbf_post), optimal_k((uint64_t) ceil(msbf_post), n));
		sbf_add_range(&s, 0, (int64_t) n);
		speed(&t, &s, n, &bt_ns, &sbf_ns);
		printf("t3 row=%zu d=%d rho=%.1f config=%u", r + 1, table3[r].d, table3[r].rho, table3[r].k[0]);
		for (int a = 1; a < table3[r].d; a++)
			printf("%s%u/%u", a == 1 ? ";" : ",", m[a], table3[r].k[a]);
		printf(" paper_pa=%.3g posterior=%.3g expected=%.3g measured=%.3g fp=%llu"
			   " paper_wm=%.2f wm=%.3f paper_wsbf=%.2f wsbf_posterior=%.3f wsbf_expected=%.3f"
			   " mn=%.1f probes=%llu sbf_k=%d query_ratio=%.2f\n",
			   table3[r].paper_pa, post, exp_fp, meas, (unsigned long long) fp,
			   table3[r].paper_wm, (double) coded / t.L.storage_bits, table3[r].paper_wsbf,
			   coded / msbf_post, coded / sbf_bits_for((double) n, exp_fp),
			   (double) t.L.storage_bits / n, (unsigned long long) t.L.probes, s.h.p.k,
			   bt_ns / sbf_ns);
		free(t.bits);
		free(s.bits);
	}
}

static int
cmp_result_rate(const void *a, const void *b)
{
	double		x = ((const BlTreeOptResult *) a)->expected_fp,
				y = ((const BlTreeOptResult *) b)->expected_fp;

	return (x > y) - (x < y);
}

static BlTreeOptResult *
optimize(const BlTreeOptRequest *req, int cap, int *n, int *ev, double *sec)
{
	BlTreeOptWork w;
	BlTreeOptResult *out = malloc(sizeof(BlTreeOptResult) * (size_t) cap);
	double		t0 = bench_now_sec();

	w.bits = malloc(bltree_opt_bits_bytes(req));
	w.archive = malloc(sizeof(BlTreeOptResult) * (size_t) cap);
	w.archive_cap = cap;
	bltree_optimize(req, &w, out, cap, n, ev);
	*sec = bench_now_sec() - t0;
	free(w.bits);
	free(w.archive);
	qsort(out, (size_t) *n, sizeof(BlTreeOptResult), cmp_result_rate);
	return out;
}

static void
part_optimizer(uint64_t nmax)
{
	BlTreeOptRequest req = {nmax, 3, 1.0, BLTREE_OBJ_EXPECTED, false, 4096, 4096};
	BlTreeOptRequest ex = req;
	int			ng,
				ne,
				evg,
				eve,
				nr = 0;
	double		sg,
				se,
				*ratios;
	BlTreeOptResult *g,
			   *e;

	ex.exhaustive = true;
	g = optimize(&req, BLTREE_OPT_MAX_EVALS, &ng, &evg, &sg);
	e = optimize(&ex, 8 * 28 * 28, &ne, &eve, &se);
	ratios = malloc(sizeof(double) * (size_t) (ne + 1));
	for (int i = 0; i < ne; i++)
	{
		double		best = INFINITY;

		for (int j = 0; j < ng; j++)
			if (g[j].expected_fp <= e[i].expected_fp && g[j].coded_bits < best)
				best = g[j].coded_bits;
		if (isfinite(best) && e[i].coded_bits > 0)
			ratios[nr++] = best / e[i].coded_bits;
	}
	qsort(ratios, (size_t) nr, sizeof(double), bench_cmp_double);
	printf("opt_ga_evaluations %d\nopt_ga_seconds %.2f\nopt_ga_front %d\n", evg, sg, ng);
	printf("opt_exhaustive_evaluations %d\nopt_exhaustive_seconds %.2f\nopt_exhaustive_front %d\n",
		   eve, se, ne);
	printf("opt_front_points_reached %d\n", nr);
	printf("opt_size_ratio_median %.3f\nopt_size_ratio_p90 %.3f\n",
		   nr ? ratios[nr / 2] : NAN, nr ? ratios[(nr * 9) / 10] : NAN);
	/* the best ratio to a standard filter at the measured rate over the exhaustive front */
	{
		double		best = INFINITY;
		int			at = -1;

		for (int i = 0; i < ne; i++)
		{
			double		r = e[i].expected_fp > 0 && e[i].expected_fp < 1 ?
				e[i].coded_bits / sbf_bits_for((double) nmax, e[i].expected_fp) : INFINITY;

			if (e[i].expected_fp <= 0.1 && r < best)
			{
				best = r;
				at = i;
			}
		}
		if (at >= 0)
			printf("opt_best_wsbf_measured %.3f at m=%u,%u,%u k=%d,%d,%d fp=%.3g\n", best,
				   e[at].p.m[0], e[at].p.m[1], e[at].p.m[2], e[at].p.k[0], e[at].p.k[1],
				   e[at].p.k[2], e[at].expected_fp);
	}
	free(g);
	free(e);
	free(ratios);
}

int
main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "paper") == 0)
		part_paper(strtoull(argv[2], NULL, 10), strtoull(argv[3], NULL, 10));
	else if (argc >= 4 && strcmp(argv[1], "intersect") == 0)
		part_intersect(strtoull(argv[2], NULL, 10), strtoull(argv[3], NULL, 10));
	else if (argc >= 4 && strcmp(argv[1], "table3") == 0)
		part_table3(strtoull(argv[2], NULL, 10), strtoull(argv[3], NULL, 10));
	else if (argc >= 3 && strcmp(argv[1], "optimizer") == 0)
		part_optimizer(strtoull(argv[2], NULL, 10));
	else
	{
		fprintf(stderr, "usage: %s paper|intersect|table3 N NQ | optimizer NMAX\n", argv[0]);
		return 2;
	}
	return 0;
}
