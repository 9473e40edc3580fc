/*
 * bltree_opt.h
 *    BloomTree parameter search (the paper's sections 5-6): the Pareto front
 *    of (false-positive rate, coded size) over the configurations
 *    {d, rho_1, k_1, m_i, k_i (i > 1)} (PostgreSQL-independent).
 *
 * Like the paper, a configuration is evaluated on a simulated tree: n_sim
 * synthetic elements (uniformly random keys, the same keys for every
 * configuration, so comparisons carry no sampling noise of their own) are
 * inserted into a tree with m_1 = round(rho_1 * n_sim); its false-positive
 * rate and coded size per element are computed exactly from its bits
 * (bltree_expected_fp or bltree_posterior_fp, bltree_coded_entropy_bits) and
 * scaled to n_max.  With rho_1 and the lower levels fixed, these per-element
 * figures do not depend on the scale (the paper's section 7.1 and appendix B:
 * every filter's load follows the same Poisson law), so n_sim = 16384 stands
 * for any larger n_max; for n_max below that the simulation is at n_max.
 *
 * The space (the paper's constraints C1, C2, widened for k_1):
 *   C1  1 <= k_1 <= 8                 (the paper: 2..8)
 *   C2  2 <= m_i <= 8, 1 <= k_i <= 4 for i >= 2
 * and, to bound the work of an evaluation:
 *   C3  storage per element rho_1 * (1 + m_2 + m_2 m_3 + ...) <= 256 bits
 *   C4  hash positions per element k_1 + k_1 k_2 + ... <= 1024
 * Configurations whose storage at n_max exceeds BLTREE_MAX_STORAGE_BITS are
 * left out (they cannot be built).
 *
 * Search: d <= 2 exhaustively (at most 8 * 7 * 4 configurations); d >= 3 with
 * NSGA-II (Deb et al. 2002: non-dominated sorting, crowding distance, binary
 * tournaments, uniform crossover, +-1 mutation), the multi-objective genetic
 * algorithm the paper runs with MATLAB's gamultiobj (population 24, 25
 * generations, deterministic).  The GA searches on 4096-element trees and
 * keeps every configuration it evaluates; the non-dominated ones are then
 * re-evaluated on 16384-element trees and filtered again.  The paper's third
 * objective, W_BT / W_SBF, is a function of the two others and adds nothing.
 */
#ifndef BLTREE_OPT_H
#define BLTREE_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bltree.h"

#define BLTREE_OPT_MAX_BITS_PER_ITEM	256
#define BLTREE_OPT_MAX_PROBES			1024
#define BLTREE_OPT_SIM_SEARCH			4096
#define BLTREE_OPT_SIM_FINAL			16384
#define BLTREE_OPT_POPULATION			24
#define BLTREE_OPT_GENERATIONS			25
/* every configuration evaluated, at most (archive size) */
#define BLTREE_OPT_MAX_EVALS			2048

typedef enum
{
	BLTREE_OBJ_EXPECTED = 0,	/* bltree_expected_fp: what measurements see */
	BLTREE_OBJ_POSTERIOR = 1	/* bltree_posterior_fp: the paper's equation 11-12 */
} BlTreeObjective;

typedef struct BlTreeOptRequest
{
	uint64_t	n_max;			/* 1 .. BLTREE_MAX_STORAGE_BITS */
	int			d;				/* 1 .. BLTREE_MAX_D */
	double		rho1;			/* bits per element of the root, (0, 256] */
	BlTreeObjective objective;
	bool		exhaustive;		/* every configuration, whatever d (benchmarks) */
	uint64_t	sim_search;		/* elements of the trees the search evaluates (0: default) */
	uint64_t	sim_final;		/* ... and of the final front's trees (0: default) */
} BlTreeOptRequest;

/* one evaluated configuration */
typedef struct BlTreeOptResult
{
	BlTreeParams p;				/* m[0] = round(rho1 * n_max) */
	double		posterior_fp;
	double		expected_fp;
	uint64_t	storage_bits;	/* M_BT at n_max */
	double		coded_bits;		/* predicted coded size at n_max (streams only) */
	double		thm41_bits;		/* Theorem 4.1 at n_max */
	uint64_t	sim_items;		/* n of the simulated tree these figures come from */
} BlTreeOptResult;

/* caller-supplied memory: no allocation happens inside */
typedef struct BlTreeOptWork
{
	uint8_t    *bits;			/* bltree_opt_bits_bytes(req) bytes */
	BlTreeOptResult *archive;	/* archive_cap entries */
	int			archive_cap;	/* BLTREE_OPT_MAX_EVALS; exhaustive: 8 * 28^(d-1) */
} BlTreeOptWork;

typedef enum
{
	BLTREE_OPT_OK = 0,
	BLTREE_OPT_BAD_N,
	BLTREE_OPT_BAD_D,
	BLTREE_OPT_BAD_RHO
} BlTreeOptError;

/* the scratch array an evaluation of req needs */
extern size_t bltree_opt_bits_bytes(const BlTreeOptRequest *req);

/*
 * Search the configurations of req; the Pareto front (no other evaluated
 * configuration has both a lower rate under req->objective and a smaller
 * coded size) goes to out[0 .. *nout), by increasing rate.  *evaluated
 * counts the simulated trees.  An empty front (*nout = 0) means no
 * configuration fits the constraints.
 */
extern BlTreeOptError bltree_optimize(const BlTreeOptRequest *req, BlTreeOptWork *work,
									  BlTreeOptResult *out, int cap, int *nout, int *evaluated);

/* evaluate one configuration (p.m[0] ignored: rho1 sets it) on n_sim elements */
extern bool bltree_opt_evaluate(const BlTreeOptRequest *req, const BlTreeParams *p,
								uint64_t n_sim, uint8_t *bits, size_t bits_bytes,
								BlTreeOptResult *r);

#endif							/* BLTREE_OPT_H */
