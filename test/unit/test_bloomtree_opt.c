/*
 * test_bloomtree_opt.c
 *    Unit tests of the BloomTree parameter search: an evaluation equals the
 *    figures of the same tree built by hand; fronts are sorted, mutually
 *    non-dominated and inside the constraints; the searches are
 *    deterministic; and, on trees small enough to search every
 *    configuration of d = 3, the genetic algorithm's front comes close to
 *    the exhaustive one.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bltree.h"
#include "bltree_code.h"
#include "bltree_opt.h"
#include "bst_rng.h"
#include "unit.h"

/* bltree_optimize with room for cap results: the front (caller frees), *n its size, *evaluated the configurations tried */
static BlTreeOptResult *
run(const BlTreeOptRequest *req, int cap, int *n, int *evaluated)
{
	BlTreeOptWork w;
	BlTreeOptResult *out = malloc(sizeof(BlTreeOptResult) * (size_t) cap);

	w.bits = malloc(bltree_opt_bits_bytes(req));
	w.archive = malloc(sizeof(BlTreeOptResult) * (size_t) cap);
	w.archive_cap = cap;
	CHECK(bltree_optimize(req, &w, out, cap, n, evaluated) == BLTREE_OPT_OK, "optimize runs");
	free(w.bits);
	free(w.archive);
	return out;
}

/* the false-positive rate the request optimises */
static double
rate(const BlTreeOptRequest *req, const BlTreeOptResult *r)
{
	return req->objective == BLTREE_OBJ_POSTERIOR ? r->posterior_fp : r->expected_fp;
}

/* sorted by rate, nobody dominated, every configuration inside C1-C4 */
static void
check_front(const BlTreeOptRequest *req, const BlTreeOptResult *f, int n, const char *what)
{
	int			bad_order = 0,
				dominated = 0,
				outside = 0;

	for (int i = 0; i < n; i++)
	{
		double		per_item = 1,
					prod = 1;
		uint64_t	probes = 0,
					pk = 1;

		if (i > 0 && rate(req, &f[i]) < rate(req, &f[i - 1]))
			bad_order++;
		for (int j = 0; j < n; j++)
			if (j != i && rate(req, &f[j]) <= rate(req, &f[i]) && f[j].coded_bits <= f[i].coded_bits &&
				(rate(req, &f[j]) < rate(req, &f[i]) || f[j].coded_bits < f[i].coded_bits))
				dominated++;
		for (int a = 1; a < f[i].p.d; a++)
		{
			prod *= f[i].p.m[a];
			per_item += prod;
			outside += f[i].p.m[a] < 2 || f[i].p.m[a] > 8 || f[i].p.k[a] < 1 || f[i].p.k[a] > 4;
		}
		for (int a = 0; a < f[i].p.d; a++)
		{
			pk *= f[i].p.k[a];
			probes += pk;
		}
		outside += f[i].p.d != req->d || f[i].p.k[0] < 1 || f[i].p.k[0] > 8 ||
			req->rho1 * per_item > BLTREE_OPT_MAX_BITS_PER_ITEM || probes > BLTREE_OPT_MAX_PROBES ||
			f[i].p.m[0] != (uint32_t) floor(req->rho1 * req->n_max + 0.5);
	}
	CHECK(n > 0 && bad_order == 0 && dominated == 0 && outside == 0,
		  "%s: front of %d, %d out of order, %d dominated, %d outside", what, n, bad_order,
		  dominated, outside);
}

/* bltree_opt_evaluate reports the figures of the tree it describes */
static void
test_evaluate(void)
{
	BlTreeOptRequest req = {50000, 3, 1.0, BLTREE_OBJ_EXPECTED, false, 0, 0};
	BlTreeParams p;
	BlTreeOptResult r,
				r2;
	size_t		nb = bltree_opt_bits_bytes(&req);
	uint8_t    *bits = malloc(nb);
	BlTreeLayout L;
	uint64_t	state = UINT64_C(0x5EED0F7EE5);

	memset(&p, 0, sizeof(p));
	p.d = 3;
	p.m[1] = 4;
	p.m[2] = 3;
	p.k[0] = 6;
	p.k[1] = 3;
	p.k[2] = 2;
	CHECK(bltree_opt_evaluate(&req, &p, 2000, bits, nb, &r), "evaluate");
	CHECK(bltree_opt_evaluate(&req, &p, 2000, bits, nb, &r2) && memcmp(&r, &r2, sizeof(r)) == 0,
		  "evaluate is deterministic");
	CHECK(r.p.m[0] == 50000 && r.storage_bits == 50000 * 17 && r.sim_items == 2000, "scaled to n_max");
	/* the same tree by hand: 2000 synthetic keys in a {2000, 4, 3} tree */
	p.m[0] = 2000;
	bltree_layout_init(&L, &p);
	memset(bits, 0, nb);
	for (int i = 0; i < 2000; i++)
	{
		BsKey		k;

		k.h1 = bst_rng_splitmix(&state);
		k.h2 = bst_rng_splitmix(&state);
		bltree_insert(&L, bits, k);
	}
	CHECK_CLOSE(r.expected_fp, bltree_expected_fp(&L, bits), 1e-12);
	CHECK_CLOSE(r.posterior_fp, bltree_posterior_fp(&L, bits), 1e-12);
	CHECK_CLOSE(r.coded_bits, bltree_coded_entropy_bits(&L, bits) * 25.0, 1e-9);
	free(bits);
}

static void
test_fronts(void)
{
	int			n,
				n2,
				ev,
				ev2;

	for (int d = 1; d <= 2; d++)
	{
		BlTreeOptRequest req = {3000, d, 1.0, BLTREE_OBJ_EXPECTED, false, 0, 0};
		BlTreeOptResult *f = run(&req, BLTREE_OPT_MAX_EVALS, &n, &ev);
		char		what[32];

		snprintf(what, sizeof(what), "exhaustive d=%d", d);
		check_front(&req, f, n, what);
		CHECK(ev == (d == 1 ? 8 : 8 * 7 * 4), "%s evaluates every configuration (%d)", what, ev);
		free(f);
	}
	/* d = 2 at rho_1 = 0.5 under the paper's objective */
	{
		BlTreeOptRequest req = {3000, 2, 0.5, BLTREE_OBJ_POSTERIOR, false, 0, 0};
		BlTreeOptResult *f = run(&req, BLTREE_OPT_MAX_EVALS, &n, &ev);

		check_front(&req, f, n, "posterior d=2");
		free(f);
	}
	/* the genetic algorithm, twice: the same front */
	{
		BlTreeOptRequest req = {1500, 3, 1.0, BLTREE_OBJ_EXPECTED, false, 600, 1500};
		BlTreeOptResult *f = run(&req, BLTREE_OPT_MAX_EVALS, &n, &ev),
				   *g = run(&req, BLTREE_OPT_MAX_EVALS, &n2, &ev2);

		check_front(&req, f, n, "GA d=3");
		CHECK(n == n2 && ev == ev2 && memcmp(f, g, sizeof(BlTreeOptResult) * (size_t) n) == 0,
			  "GA deterministic");
		CHECK(ev > BLTREE_OPT_POPULATION && ev < BLTREE_OPT_MAX_EVALS, "GA evaluated %d", ev);
		free(f);
		free(g);
	}
	/* limits: too many bits per element for any d = 4 tree at rho 200 */
	{
		BlTreeOptRequest req = {1000, 4, 200.0, BLTREE_OBJ_EXPECTED, false, 0, 0};
		BlTreeOptResult *f = run(&req, BLTREE_OPT_MAX_EVALS, &n, &ev);

		CHECK(n == 0, "nothing fits C3 at rho 200, d = 4 (%d)", n);
		free(f);
	}
	{
		BlTreeOptRequest bad = {0, 2, 1.0, BLTREE_OBJ_EXPECTED, false, 0, 0};
		BlTreeOptWork w = {NULL, NULL, 0};

		CHECK(bltree_optimize(&bad, &w, NULL, 0, &n, &ev) == BLTREE_OPT_BAD_N, "n_max 0");
		bad.n_max = 10;
		bad.d = 9;
		CHECK(bltree_optimize(&bad, &w, NULL, 0, &n, &ev) == BLTREE_OPT_BAD_D, "d 9");
		bad.d = 2;
		bad.rho1 = 0;
		CHECK(bltree_optimize(&bad, &w, NULL, 0, &n, &ev) == BLTREE_OPT_BAD_RHO, "rho 0");
		bad.rho1 = NAN;
		CHECK(bltree_optimize(&bad, &w, NULL, 0, &n, &ev) == BLTREE_OPT_BAD_RHO, "rho NaN");
	}
}

/*
 * GA against the exhaustive search of d = 3 (8 * 28 * 28 configurations) on
 * the same 200-element trees: for each exhaustive front point, the smallest
 * GA front size at a rate no higher; the median ratio stays within 10%.
 */
static void
test_ga_vs_exhaustive(void)
{
	BlTreeOptRequest req = {200, 3, 1.0, BLTREE_OBJ_EXPECTED, false, 200, 200};
	BlTreeOptRequest ex = req;
	int			ng,
				ne,
				evg,
				eve;
	BlTreeOptResult *g,
			   *e;
	double		ratios[4096] = {0};
	int			nr = 0;

	ex.exhaustive = true;
	g = run(&req, BLTREE_OPT_MAX_EVALS, &ng, &evg);
	e = run(&ex, 8 * 28 * 28, &ne, &eve);
	CHECK(eve == 8 * 28 * 28 || eve < 8 * 28 * 28, "exhaustive evaluated %d", eve);
	check_front(&ex, e, ne, "exhaustive d=3");
	for (int i = 0; i < ne && nr < 4096; i++)
	{
		double		best = INFINITY;

		for (int j = 0; j < ng; j++)
			if (g[j].expected_fp <= e[i].expected_fp && g[j].coded_bits < best)
				best = g[j].coded_bits;
		if (isfinite(best) && e[i].coded_bits > 0)	/* not the all-ones tree of size 0 */
			ratios[nr++] = best / e[i].coded_bits;
	}
	/* median */
	for (int a = 1; a < nr; a++)
		for (int b = a; b > 0 && ratios[b] < ratios[b - 1]; b--)
		{
			double		t = ratios[b];

			ratios[b] = ratios[b - 1];
			ratios[b - 1] = t;
		}
	printf("GA %d evaluations, exhaustive %d: %d of %d exhaustive front points reached, median size ratio %.3f, worst %.3f\n",
		   evg, eve, nr, ne, nr ? ratios[nr / 2] : -1.0, nr ? ratios[nr - 1] : -1.0);
	CHECK(nr > ne / 2 && ratios[nr / 2] <= 1.10,
		  "GA (%d evaluations) vs exhaustive (%d): %d of %d points reached, median size ratio %.3f",
		  evg, eve, nr, ne, nr ? ratios[nr / 2] : -1.0);
	free(g);
	free(e);
}

/* runs every test above; exit status 0 when all passed (UNIT_DONE) */
int
main(void)
{
	test_evaluate();
	test_fronts();
	test_ga_vs_exhaustive();
	return UNIT_DONE();
}
