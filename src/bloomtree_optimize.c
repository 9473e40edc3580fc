/*
 * bloomtree_optimize.c
 *    bloomtree_optimize(n_max, d, rho1, objective): the Pareto front of
 *    BloomTree configurations (search in src/core/bltree_opt.c).
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "bloomtree.h"
#include "bltree_opt.h"

PG_FUNCTION_INFO_V1(bloomtree_optimize);

/*
 * One row per configuration of the front, by increasing rate under the
 * objective: m, k, fp_rate (the paper's posterior, equations 11-12),
 * storage_bits (M_BT at n_max), compressed_bits (predicted coded size at
 * n_max, headers included), expected_fp (the rate measurements see),
 * sbf_bits (a standard filter with optimal k reaching expected_fp: n_max *
 * log2(1/p) / ln 2).
 */
Datum
bloomtree_optimize(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int64		n_max = PG_GETARG_INT64(0);
	int32		d = PG_GETARG_INT32(1);
	float8		rho1 = PG_GETARG_FLOAT8(2);
	char	   *objective = text_to_cstring(PG_GETARG_TEXT_PP(3));
	BlTreeOptRequest req;
	BlTreeOptWork work;
	BlTreeOptResult *front;
	int			nfront,
				evaluated;

	if (n_max < 1 || n_max > (int64) BLTREE_MAX_STORAGE_BITS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloomtree_optimize: n_max = " INT64_FORMAT " is out of range", n_max),
				 errdetail("n_max must be between 1 and %llu.",
						   (unsigned long long) BLTREE_MAX_STORAGE_BITS)));
	if (d < 1 || d > BLTREE_MAX_D)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloomtree_optimize: d = %d is out of range", d),
				 errdetail("A bloomtree has 1 to %d levels.", BLTREE_MAX_D)));
	if (!(rho1 > 0.0) || rho1 > BLTREE_OPT_MAX_BITS_PER_ITEM)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloomtree_optimize: rho1 = %g is out of range", rho1),
				 errdetail("rho1, the root's bits per element, must be in (0, %d].",
						   BLTREE_OPT_MAX_BITS_PER_ITEM)));
	if (rho1 * (double) n_max >= (double) BLTREE_MAX_M + 0.5)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloomtree_optimize: a root of rho1 * n_max = %.0f bits is too large",
						rho1 * (double) n_max),
				 errdetail("A filter has at most %u bits.", BLTREE_MAX_M)));
	memset(&req, 0, sizeof(req));
	req.n_max = (uint64) n_max;
	req.d = d;
	req.rho1 = rho1;
	if (strcmp(objective, "expected") == 0)
		req.objective = BLTREE_OBJ_EXPECTED;
	else if (strcmp(objective, "posterior") == 0)
		req.objective = BLTREE_OBJ_POSTERIOR;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloomtree_optimize: unknown objective \"%s\"", objective),
				 errhint("Use 'expected' (the rate measurements see, the default) or 'posterior' (the paper's equations 11-12).")));

	bloomtree_set_interrupt_hook();
	work.bits = palloc(bltree_opt_bits_bytes(&req));
	work.archive = palloc(sizeof(BlTreeOptResult) * BLTREE_OPT_MAX_EVALS);
	work.archive_cap = BLTREE_OPT_MAX_EVALS;
	front = palloc(sizeof(BlTreeOptResult) * BLTREE_OPT_MAX_EVALS);
	bltree_optimize(&req, &work, front, BLTREE_OPT_MAX_EVALS, &nfront, &evaluated);
	if (nfront == 0)
		ereport(NOTICE,
				(errmsg("bloomtree_optimize: no configuration with %d levels fits the constraints", d),
				 errdetail("Storage per element rho1 * (1 + m2 + m2*m3 + ...) <= %d bits, k1 + k1*k2 + ... <= %d, and at most %llu bits in all.",
						   BLTREE_OPT_MAX_BITS_PER_ITEM, BLTREE_OPT_MAX_PROBES,
						   (unsigned long long) BLTREE_MAX_STORAGE_BITS)));

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < nfront; i++)
	{
		const BlTreeOptResult *r = &front[i];
		int32		m[BLTREE_MAX_D],
					k[BLTREE_MAX_D];
		Datum		values[7];
		bool		nulls[7] = {0};
		double		p = r->expected_fp;

		for (int a = 0; a < r->p.d; a++)
		{
			m[a] = (int32) r->p.m[a];
			k[a] = r->p.k[a];
		}
		values[0] = PointerGetDatum(bloomtree_int4_array(m, r->p.d));
		values[1] = PointerGetDatum(bloomtree_int4_array(k, r->p.d));
		values[2] = Float8GetDatum(r->posterior_fp);
		values[3] = Int64GetDatum((int64) r->storage_bits);
		/* streams plus the binary form's headers (8 + 12 d bytes) */
		values[4] = Float8GetDatum(r->coded_bits + 8.0 * (8 + 12 * r->p.d));
		values[5] = Float8GetDatum(p);
		values[6] = Float8GetDatum(p > 0 ? (double) n_max * -log2(p) / log(2.0) : 0.0);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
