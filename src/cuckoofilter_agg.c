/*
 * cuckoofilter_agg.c
 *    The aggregate cuckoo_agg(elem, capacity [, fp_rate [, seed]]).
 *
 * The state holds one cuckoo filter allocated once in the aggregate context
 * and updated in place (one hash and a few slot probes per row).  A row that
 * finds the filter full is an error (54000) naming the load, as cuckoo_add.
 *
 * Parallel: the combine is sound.  Two partial filters have the same
 * parameters (capacity, rate and seed are the same in every worker), and a
 * stored fingerprint fp in bucket i determines both of its candidate buckets
 * (i and i XOR mix(fp)), so re-inserting every fingerprint of one state into
 * the other gives a filter holding exactly the multiset of both (membership,
 * counts and removals behave as if one process had inserted every row).  The
 * slot arrangement, hence the bytes, can differ from a serial run's (it
 * depends on the insertion order, which a parallel plan does not fix), and a
 * combine that finds the filter full is the same clear error.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "bloomfilter.h"
#include "cuckoofilter.h"

PG_FUNCTION_INFO_V1(cuckoo_agg_trans_int8);
PG_FUNCTION_INFO_V1(cuckoo_agg_trans_bytes);
PG_FUNCTION_INFO_V1(cuckoo_agg_trans_uuid);
PG_FUNCTION_INFO_V1(cuckoo_agg_combine);
PG_FUNCTION_INFO_V1(cuckoo_agg_serial);
PG_FUNCTION_INFO_V1(cuckoo_agg_deserial);
PG_FUNCTION_INFO_V1(cuckoo_agg_final);

typedef struct CuckooAggState
{
	BsHasher	hasher;			/* of the filter's seed */
	CuckooFilter *cf;			/* in the aggregate context */
	CkTable		table;			/* over cf->table; its count is the truth */
	int64		capacity;		/* as passed, to check later rows */
	double		fp_rate;
} CuckooAggState;

static CuckooAggState *
arg_state(FunctionCallInfo fcinfo, int argno)
{
	return PG_ARGISNULL(argno) ? NULL : (CuckooAggState *) PG_GETARG_POINTER(argno);
}

/* a state owning filter cf (already in ctx) */
static CuckooAggState *
new_state(MemoryContext ctx, CuckooFilter *cf, int64 capacity, double fp_rate)
{
	CuckooAggState *s = MemoryContextAlloc(ctx, sizeof(CuckooAggState));

	s->cf = cf;
	cuckoo_table(cf, &s->table);
	ck_hasher_init(&s->hasher, cf->seed);
	s->capacity = capacity;
	s->fp_rate = fp_rate;
	return s;
}

/* the state for this row of cuckoo_agg(elem, capacity [, fp_rate [, seed]]) */
static CuckooAggState *
agg_state(FunctionCallInfo fcinfo)
{
	CuckooAggState *s = arg_state(fcinfo, 0);
	int64		capacity;
	double		fp_rate = 0.01;
	int32		seed = 0;

	for (int a = 2; a < PG_NARGS(); a++)
		if (PG_ARGISNULL(a))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("cuckoo_agg parameter %s must not be NULL",
							a == 2 ? "capacity" : a == 3 ? "fp_rate" : "seed")));
	capacity = PG_GETARG_INT64(2);
	if (PG_NARGS() > 3)
		fp_rate = PG_GETARG_FLOAT8(3);
	if (PG_NARGS() > 4)
		seed = PG_GETARG_INT32(4);
	if (s == NULL)
	{
		MemoryContext ctx = bf_agg_context(fcinfo, "cuckoo_agg");
		CkParams	p = cuckoo_make_params(capacity, fp_rate, seed);
		MemoryContext old = MemoryContextSwitchTo(ctx);
		CuckooFilter *cf = cuckoo_alloc(&p);

		MemoryContextSwitchTo(old);
		s = new_state(ctx, cf, capacity, fp_rate);
	}
	else if (capacity != s->capacity || fp_rate != s->fp_rate || seed != s->table.p.seed)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cuckoo_agg parameters changed within a group"),
				 errdetail("The group started with capacity " INT64_FORMAT ", fp_rate %g, seed %d and a row has " INT64_FORMAT ", %g, %d.",
						   s->capacity, s->fp_rate, s->table.p.seed, capacity, fp_rate, seed),
				 errhint("Pass constant capacity, fp_rate and seed to cuckoo_agg.")));
	return s;
}

static Datum
agg_trans(FunctionCallInfo fcinfo, Oid elemtype)
{
	CuckooAggState *s = agg_state(fcinfo);

	if (!PG_ARGISNULL(1))
	{
		BsKey		key = bf_datum_key(&s->hasher, PG_GETARG_DATUM(1), elemtype);

		if (!ck_insert(&s->table, ck_key(&s->table.p, key)))
			cuckoo_report_full(&s->table, "cuckoo_agg");
	}
	PG_RETURN_POINTER(s);
}

Datum
cuckoo_agg_trans_int8(PG_FUNCTION_ARGS)
{
	return agg_trans(fcinfo, INT8OID);
}

Datum
cuckoo_agg_trans_bytes(PG_FUNCTION_ARGS)
{
	return agg_trans(fcinfo, BYTEAOID);
}

Datum
cuckoo_agg_trans_uuid(PG_FUNCTION_ARGS)
{
	return agg_trans(fcinfo, UUIDOID);
}

/* combine: re-insert every fingerprint of state 2 into state 1 */
Datum
cuckoo_agg_combine(PG_FUNCTION_ARGS)
{
	CuckooAggState *s1 = arg_state(fcinfo, 0);
	CuckooAggState *s2 = arg_state(fcinfo, 1);

	if (s2 == NULL)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	if (s1 == NULL)
	{
		MemoryContext ctx = bf_agg_context(fcinfo, "cuckoo_agg");
		CuckooFilter *cf = bf_copy_value(ctx, s2->cf, VARSIZE(s2->cf), "cuckoo_agg_combine");

		cf->count = (uint32) s2->table.count;
		PG_RETURN_POINTER(new_state(ctx, cf, s2->capacity, s2->fp_rate));
	}
	if (!ck_params_equal(&s1->table.p, &s2->table.p))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cuckoo_agg: partial filters are incompatible"),
				 errdetail("Left is %s, right is %s.", cuckoo_params_string(&s1->table.p),
						   cuckoo_params_string(&s2->table.p))));
	/* in chunks of buckets, so that a large merge can be cancelled */
	for (uint64 b = 0; b <= s2->table.mask; b += CUCKOO_CHUNK_BUCKETS)
	{
		CHECK_FOR_INTERRUPTS();
		if (!ck_merge_buckets(&s1->table, &s2->table, b, CUCKOO_CHUNK_BUCKETS))
			cuckoo_report_full(&s1->table, "cuckoo_agg (combining partial results)");
	}
	PG_RETURN_POINTER(s1);
}

/* the state as bytea: capacity, fp_rate, then the filter's varlena bytes */
Datum
cuckoo_agg_serial(PG_FUNCTION_ARGS)
{
	CuckooAggState *s = (CuckooAggState *) PG_GETARG_POINTER(0);
	Size		size = VARSIZE(s->cf);
	bytea	   *out = bf_palloc_value(VARHDRSZ + sizeof(int64) + sizeof(double) + size, false,
									  "cuckoo_agg_serial");
	char	   *d = VARDATA(out);

	s->cf->count = (uint32) s->table.count;
	SET_VARSIZE(out, VARHDRSZ + sizeof(int64) + sizeof(double) + size);
	memcpy(d, &s->capacity, sizeof(int64));
	memcpy(d + sizeof(int64), &s->fp_rate, sizeof(double));
	bf_copy_interruptible(d + sizeof(int64) + sizeof(double), s->cf, size);
	PG_RETURN_BYTEA_P(out);
}

Datum
cuckoo_agg_deserial(PG_FUNCTION_ARGS)
{
	bytea	   *in = PG_GETARG_BYTEA_P(0);
	MemoryContext ctx = bf_agg_context(fcinfo, "cuckoo_agg_deserial");
	const char *d = VARDATA(in);
	Size		len = VARSIZE(in) - VARHDRSZ;
	int64		capacity;
	double		fp_rate;
	CuckooView	v;
	CuckooFilter *cf;

	if (len < sizeof(int64) + sizeof(double) + VARHDRSZ)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("cuckoo_agg state is too short (%zu bytes)", len)));
	memcpy(&capacity, d, sizeof(int64));
	memcpy(&fp_rate, d + sizeof(int64), sizeof(double));
	cf = bf_copy_value(ctx, d + sizeof(int64) + sizeof(double),
					   len - sizeof(int64) - sizeof(double), "cuckoo_agg_deserial");
	if (VARSIZE(cf) != len - sizeof(int64) - sizeof(double))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("cuckoo_agg state is corrupted")));
	cuckoo_view((struct varlena *) cf, &v);
	PG_RETURN_POINTER(new_state(ctx, cf, capacity, fp_rate));
}

Datum
cuckoo_agg_final(PG_FUNCTION_ARGS)
{
	CuckooAggState *s = arg_state(fcinfo, 0);

	if (s == NULL)
		PG_RETURN_NULL();
	s->cf->count = (uint32) s->table.count;
	PG_RETURN_POINTER(s->cf);
}
