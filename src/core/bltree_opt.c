/*
 * bltree_opt.c
 *    BloomTree parameter search: evaluation on simulated trees, exhaustive
 *    search for d <= 2, NSGA-II for d >= 3 (see bltree_opt.h).
 */
#include <math.h>
#include <string.h>

#include "bltree_code.h"
#include "bltree_opt.h"
#include "bst_rng.h"

#define KEY_SEED	UINT64_C(0x5EED0F7EE5)	/* the synthetic elements */
#define GA_SEED		UINT64_C(20160919)		/* the genetic algorithm's choices */

#define K1_MIN	1
#define K1_MAX	8
#define MI_MIN	2
#define MI_MAX	8
#define KI_MIN	1
#define KI_MAX	4

/* elements of the simulated trees during the search (at most n_max) */
static uint64_t
sim_search(const BlTreeOptRequest *req)
{
	uint64_t	n = req->sim_search ? req->sim_search : BLTREE_OPT_SIM_SEARCH;

	return req->n_max < n ? req->n_max : n;
}

/* elements of the simulated tree of the final evaluation (at most n_max) */
static uint64_t
sim_final(const BlTreeOptRequest *req)
{
	uint64_t	n = req->sim_final ? req->sim_final : BLTREE_OPT_SIM_FINAL;

	return req->n_max < n ? req->n_max : n;
}

size_t
bltree_opt_bits_bytes(const BlTreeOptRequest *req)
{
	uint64_t	n = sim_search(req) > sim_final(req) ? sim_search(req) : sim_final(req);

	/* C3 bounds the storage per element; rounding m_1 adds at most one element's worth */
	return BLTREE_ARRAY_BYTES((n + 1) * BLTREE_OPT_MAX_BITS_PER_ITEM);
}

/* m_1 = round(rho1 n), at least 1; BLTREE_MAX_M + 1 when too large (infeasible) */
static uint64_t
root_bits(double rho1, uint64_t n)
{
	double		m = floor(rho1 * (double) n + 0.5);

	return m < 1 ? 1 : m > BLTREE_MAX_M ? (uint64_t) BLTREE_MAX_M + 1 : (uint64_t) m;
}

/* C3, C4 and buildable at n_max */
static bool
feasible(const BlTreeOptRequest *req, const BlTreeParams *p)
{
	double		per_item = 1.0,
				prod = 1.0;
	uint64_t	probes = 0,
				pk = 1;
	BlTreeParams at = *p;
	BlTreeLayout L;

	for (int a = 1; a < p->d; a++)
	{
		prod *= p->m[a];
		per_item += prod;
	}
	if (req->rho1 * per_item > BLTREE_OPT_MAX_BITS_PER_ITEM)
		return false;
	for (int a = 0; a < p->d; a++)
	{
		pk *= p->k[a];
		probes += pk;
	}
	if (probes > BLTREE_OPT_MAX_PROBES)
		return false;
	at.m[0] = (uint32_t) root_bits(req->rho1, req->n_max);
	return root_bits(req->rho1, req->n_max) <= BLTREE_MAX_M &&
		bltree_layout_init(&L, &at) == BLTREE_OK;
}

bool
bltree_opt_evaluate(const BlTreeOptRequest *req, const BlTreeParams *p, uint64_t n_sim,
					uint8_t *bits, size_t bits_bytes, BlTreeOptResult *r)
{
	BlTreeParams sp = *p,
				fp = *p;
	BlTreeLayout L,
				Lf;
	uint64_t	state = KEY_SEED,
				ones[BLTREE_MAX_D];
	double		scale = (double) req->n_max / (double) n_sim;

	sp.m[0] = (uint32_t) root_bits(req->rho1, n_sim);
	fp.m[0] = (uint32_t) root_bits(req->rho1, req->n_max);
	if (bltree_layout_init(&L, &sp) != BLTREE_OK ||
		bltree_layout_init(&Lf, &fp) != BLTREE_OK ||
		BLTREE_ARRAY_BYTES(L.storage_bits) > bits_bytes)
		return false;
	memset(bits, 0, BLTREE_ARRAY_BYTES(L.storage_bits));
	for (uint64_t i = 0; i < n_sim; i++)
	{
		BsKey		key;

		key.h1 = bst_rng_splitmix(&state);
		key.h2 = bst_rng_splitmix(&state);
		bltree_insert(&L, bits, key);
	}
	for (int a = 0; a < L.p.d; a++)
		ones[a] = bltree_level_ones(&L, bits, a);
	r->p = fp;
	r->expected_fp = bltree_expected_fp(&L, bits);
	r->posterior_fp = bltree_posterior_fp(&L, bits);
	r->storage_bits = Lf.storage_bits;
	r->coded_bits = bltree_coded_entropy_bits(&L, bits) * scale;
	r->thm41_bits = bltree_entropy_bits(&L, ones) * scale;
	r->sim_items = n_sim;
	return true;
}

/* ---- the archive of evaluated configurations ---------------------------- */

typedef struct Search
{
	const BlTreeOptRequest *req;
	BlTreeOptWork *work;
	int			n;				/* archive entries */
	int			evaluated;
	uint64_t	n_sim;
} Search;

/* true when a and b are the same configuration (d, k_i, m_i for i > 1; m_1 is fixed) */
static bool
same_genome(const BlTreeParams *a, const BlTreeParams *b)
{
	if (a->d != b->d)
		return false;
	for (int i = 0; i < a->d; i++)
		if ((i > 0 && a->m[i] != b->m[i]) || a->k[i] != b->k[i])
			return false;
	return true;
}

/* the archive index of configuration p, evaluated on first use; -1 if it does not fit */
static int
evaluate_cached(Search *s, const BlTreeParams *p)
{
	for (int i = 0; i < s->n; i++)
		if (same_genome(&s->work->archive[i].p, p))
			return i;
	if (s->n >= s->work->archive_cap || !feasible(s->req, p))
		return -1;
	if (!bltree_opt_evaluate(s->req, p, s->n_sim, s->work->bits, bltree_opt_bits_bytes(s->req),
							 &s->work->archive[s->n]))
		return -1;
	s->evaluated++;
	return s->n++;
}

/* ln of the false-positive rate the request optimises (posterior or expected) */
static double
objective_rate(const BlTreeOptRequest *req, const BlTreeOptResult *r)
{
	double		fp = req->objective == BLTREE_OBJ_POSTERIOR ? r->posterior_fp : r->expected_fp;

	return log(fp > 1e-300 ? fp : 1e-300);
}

/* Pareto dominance: a no worse than b in rate and coded size, better in one */
static bool
dominates(const BlTreeOptRequest *req, const BlTreeOptResult *a, const BlTreeOptResult *b)
{
	double		fa = objective_rate(req, a),
				fb = objective_rate(req, b);

	return fa <= fb && a->coded_bits <= b->coded_bits &&
		(fa < fb || a->coded_bits < b->coded_bits);
}

/* keep the non-dominated entries of r[0..n), in place; returns their number */
static int
pareto_filter(const BlTreeOptRequest *req, BlTreeOptResult *r, int n)
{
	int			kept = 0;

	for (int i = 0; i < n; i++)
	{
		bool		dominated = false;

		for (int j = 0; j < n && !dominated; j++)
			dominated = j != i && dominates(req, &r[j], &r[i]);
		if (!dominated)
			r[kept++] = r[i];
	}
	return kept;
}

/* ---- NSGA-II ------------------------------------------------------------ */

typedef struct Member
{
	int			idx;			/* archive entry */
	int			rank;			/* non-domination front, 0 = best */
	double		crowd;			/* crowding distance */
} Member;

/* ranks and crowding distances of m[0..n) */
static void
rank_and_crowd(const Search *s, Member *m, int n)
{
	const BlTreeOptResult *ar = s->work->archive;
	int			assigned = 0;

	for (int i = 0; i < n; i++)
	{
		m[i].rank = -1;
		m[i].crowd = 0.0;
	}
	for (int front = 0; assigned < n; front++)
	{
		int			members[2 * BLTREE_OPT_POPULATION];
		int			nm = 0;

		for (int i = 0; i < n; i++)
		{
			bool		dominated = false;

			if (m[i].rank >= 0)
				continue;
			/* in this front when no configuration not yet ranked dominates it */
			for (int j = 0; j < n && !dominated; j++)
				dominated = j != i && m[j].rank < 0 &&
					dominates(s->req, &ar[m[j].idx], &ar[m[i].idx]);
			if (!dominated)
				members[nm++] = i;
		}
		for (int t = 0; t < nm; t++)
			m[members[t]].rank = front;
		assigned += nm;
		/* crowding distance within the front, on both objectives */
		for (int obj = 0; obj < 2; obj++)
		{
			/* insertion sort of the front by the objective */
			for (int a = 1; a < nm; a++)
				for (int b = a; b > 0; b--)
				{
					const BlTreeOptResult *x = &ar[m[members[b - 1]].idx],
							   *y = &ar[m[members[b]].idx];
					double		vx = obj ? x->coded_bits : objective_rate(s->req, x),
								vy = obj ? y->coded_bits : objective_rate(s->req, y);

					if (vx <= vy)
						break;
					{
						int			t = members[b];

						members[b] = members[b - 1];
						members[b - 1] = t;
					}
				}
			if (nm > 0)
			{
				const BlTreeOptResult *lo = &ar[m[members[0]].idx],
						   *hi = &ar[m[members[nm - 1]].idx];
				double		range = obj ? hi->coded_bits - lo->coded_bits :
					objective_rate(s->req, hi) - objective_rate(s->req, lo);

				m[members[0]].crowd = INFINITY;
				m[members[nm - 1]].crowd = INFINITY;
				for (int t = 1; t < nm - 1 && range > 0; t++)
				{
					const BlTreeOptResult *p = &ar[m[members[t - 1]].idx],
							   *q = &ar[m[members[t + 1]].idx];

					m[members[t]].crowd += (obj ? q->coded_bits - p->coded_bits :
											objective_rate(s->req, q) - objective_rate(s->req, p)) / range;
				}
			}
		}
	}
}

/* NSGA-II's crowded comparison: lower front rank, then larger crowding distance */
static bool
better(const Member *a, const Member *b)
{
	return a->rank < b->rank || (a->rank == b->rank && a->crowd > b->crowd);
}

/* a random configuration of d levels within the search's gene ranges */
static void
random_genome(BstRng *rng, int d, BlTreeParams *p)
{
	memset(p, 0, sizeof(*p));
	p->d = d;
	p->k[0] = (uint8_t) (K1_MIN + bst_rng_below(rng, K1_MAX - K1_MIN + 1));
	for (int a = 1; a < d; a++)
	{
		p->m[a] = (uint32_t) (MI_MIN + bst_rng_below(rng, MI_MAX - MI_MIN + 1));
		p->k[a] = (uint8_t) (KI_MIN + bst_rng_below(rng, KI_MAX - KI_MIN + 1));
	}
}

static int
clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* uniform crossover of a and b, then each gene moves by +-1 with probability 1/genes */
static void
offspring(BstRng *rng, const BlTreeParams *a, const BlTreeParams *b, BlTreeParams *c)
{
	int			genes = 2 * a->d - 1;

	*c = *a;
	for (int i = 0; i < a->d; i++)
	{
		if (bst_rng_next(rng) & 1)
			c->k[i] = b->k[i];
		if (i > 0 && (bst_rng_next(rng) & 1))
			c->m[i] = b->m[i];
	}
	for (int i = 0; i < a->d; i++)
	{
		int			step = (bst_rng_next(rng) & 1) ? 1 : -1;

		if (bst_rng_below(rng, (uint64_t) genes) == 0)
			c->k[i] = (uint8_t) (i == 0 ? clamp(c->k[i] + step, K1_MIN, K1_MAX)
								 : clamp(c->k[i] + step, KI_MIN, KI_MAX));
		if (i > 0 && bst_rng_below(rng, (uint64_t) genes) == 0)
			c->m[i] = (uint32_t) clamp((int) c->m[i] + step, MI_MIN, MI_MAX);
	}
}

/* the NSGA-II search (d >= 3): evolves a population, every evaluation into the archive */
static void
search_ga(Search *s)
{
	BstRng		rng;
	Member		pop[2 * BLTREE_OPT_POPULATION];
	int			np = 0;

	bst_rng_seed(&rng, GA_SEED ^ ((uint64_t) s->req->d << 32));
	/* initial population: random configurations that fit */
	for (int tries = 0; np < BLTREE_OPT_POPULATION && tries < 100 * BLTREE_OPT_POPULATION; tries++)
	{
		BlTreeParams p;
		int			idx;
		bool		dup = false;

		random_genome(&rng, s->req->d, &p);
		idx = evaluate_cached(s, &p);
		for (int i = 0; i < np; i++)
			dup |= pop[i].idx == idx;
		if (idx >= 0 && !dup)
			pop[np++].idx = idx;
	}
	if (np == 0)
		return;
	rank_and_crowd(s, pop, np);
	for (int g = 0; g < BLTREE_OPT_GENERATIONS; g++)
	{
		int			n = np;

		/* offspring by binary tournaments */
		for (int c = 0; c < BLTREE_OPT_POPULATION; c++)
		{
			const Member *a = &pop[bst_rng_below(&rng, (uint64_t) np)],
					   *b = &pop[bst_rng_below(&rng, (uint64_t) np)],
					   *p1 = better(a, b) ? a : b;
			const Member *e = &pop[bst_rng_below(&rng, (uint64_t) np)],
					   *f = &pop[bst_rng_below(&rng, (uint64_t) np)],
					   *p2 = better(e, f) ? e : f;
			BlTreeParams child;
			int			idx = -1;
			bool		dup = false;

			for (int tries = 0; tries < 8 && idx < 0; tries++)
			{
				offspring(&rng, &s->work->archive[p1->idx].p, &s->work->archive[p2->idx].p, &child);
				idx = evaluate_cached(s, &child);
			}
			for (int i = 0; i < n; i++)
				dup |= pop[i].idx == idx;
			if (idx >= 0 && !dup)
				pop[n++].idx = idx;
		}
		/* survivors: the best np of parents and children by (rank, crowding) */
		rank_and_crowd(s, pop, n);
		for (int a = 1; a < n; a++)
			for (int b = a; b > 0 && better(&pop[b], &pop[b - 1]); b--)
			{
				Member		t = pop[b];

				pop[b] = pop[b - 1];
				pop[b - 1] = t;
			}
		np = n < BLTREE_OPT_POPULATION ? n : BLTREE_OPT_POPULATION;
		rank_and_crowd(s, pop, np);
	}
}

/* every configuration of the space, in odometer order */
static void
search_exhaustive(Search *s)
{
	int			d = s->req->d;
	BlTreeParams p;

	memset(&p, 0, sizeof(p));
	p.d = d;
	p.k[0] = K1_MIN;
	for (int a = 1; a < d; a++)
	{
		p.m[a] = MI_MIN;
		p.k[a] = KI_MIN;
	}
	for (;;)
	{
		int			a;

		evaluate_cached(s, &p);
		/* next: k1 fastest, then (m_a, k_a) of each level */
		if (p.k[0] < K1_MAX)
		{
			p.k[0]++;
			continue;
		}
		p.k[0] = K1_MIN;
		for (a = 1; a < d; a++)
		{
			if (p.k[a] < KI_MAX)
			{
				p.k[a]++;
				break;
			}
			p.k[a] = KI_MIN;
			if (p.m[a] < MI_MAX)
			{
				p.m[a]++;
				break;
			}
			p.m[a] = MI_MIN;
		}
		if (a == d)
			return;
	}
}

/* order by objective rate, then coded size */
static int
cmp_rate(const BlTreeOptRequest *req, const BlTreeOptResult *a, const BlTreeOptResult *b)
{
	double		fa = objective_rate(req, a),
				fb = objective_rate(req, b);

	if (fa != fb)
		return fa < fb ? -1 : 1;
	return a->coded_bits < b->coded_bits ? -1 : a->coded_bits > b->coded_bits;
}

BlTreeOptError
bltree_optimize(const BlTreeOptRequest *req, BlTreeOptWork *work, BlTreeOptResult *out,
				int cap, int *nout, int *evaluated)
{
	Search		s;
	int			n;

	*nout = 0;
	*evaluated = 0;
	if (req->n_max < 1 || req->n_max > BLTREE_MAX_STORAGE_BITS)
		return BLTREE_OPT_BAD_N;
	if (req->d < 1 || req->d > BLTREE_MAX_D)
		return BLTREE_OPT_BAD_D;
	if (!(req->rho1 > 0.0) || req->rho1 > BLTREE_OPT_MAX_BITS_PER_ITEM)
		return BLTREE_OPT_BAD_RHO;

	memset(&s, 0, sizeof(s));
	s.req = req;
	s.work = work;
	if (req->d <= 2)
	{
		s.n_sim = sim_final(req);
		search_exhaustive(&s);
	}
	else
	{
		s.n_sim = sim_search(req);
		if (req->exhaustive)
			search_exhaustive(&s);
		else
			search_ga(&s);
	}
	n = pareto_filter(req, work->archive, s.n);

	/* the search's front again on the larger trees, filtered again */
	if (s.n_sim != sim_final(req))
	{
		int			m = 0;

		for (int i = 0; i < n; i++)
		{
			BlTreeOptResult r;

			if (bltree_opt_evaluate(req, &work->archive[i].p, sim_final(req), work->bits,
									bltree_opt_bits_bytes(req), &r))
			{
				work->archive[m++] = r;
				s.evaluated++;
			}
		}
		n = pareto_filter(req, work->archive, m);
	}
	/* by increasing rate (insertion sort: the front is small) */
	for (int a = 1; a < n; a++)
		for (int b = a; b > 0 && cmp_rate(req, &work->archive[b], &work->archive[b - 1]) < 0; b--)
		{
			BlTreeOptResult t = work->archive[b];

			work->archive[b] = work->archive[b - 1];
			work->archive[b - 1] = t;
		}
	for (int i = 0; i < n && i < cap; i++)
		out[i] = work->archive[i];
	*nout = n < cap ? n : cap;
	*evaluated = s.evaluated;
	return BLTREE_OPT_OK;
}
