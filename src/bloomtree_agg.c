/*
 * bloomtree_agg.c
 *    The aggregates bloomtree_agg (elements -> tree), bloomtree_union_agg and
 *    bloomtree_intersect_agg (trees -> filter-wise OR / AND).
 *
 * The state is the tree's UNCOMPRESSED bit array, allocated once in the
 * aggregate context and updated in place: a row costs one element hash and
 * the tree insertion (bloomtree_agg) or one decode and one word-wise OR/AND
 * (the others); the final function codes the array once.  All three are
 * parallel-safe: combine ORs (ANDs) two arrays, serial/deserial carry the
 * parameters and the raw array (a worker's state crosses shared memory once,
 * so it is not worth coding).
 *
 * bloomtree_agg over an empty group is NULL; over a group whose elements are
 * all NULL it is the empty tree.
 */
#include "postgres.h"

#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/uuid.h"

#include "bloomfilter.h"
#include "bloomtree.h"

PG_FUNCTION_INFO_V1(bloomtree_agg_trans_int8);
PG_FUNCTION_INFO_V1(bloomtree_agg_trans_bytes);
PG_FUNCTION_INFO_V1(bloomtree_agg_trans_uuid);
PG_FUNCTION_INFO_V1(bloomtree_union_trans);
PG_FUNCTION_INFO_V1(bloomtree_intersect_trans);
PG_FUNCTION_INFO_V1(bloomtree_union_combine);
PG_FUNCTION_INFO_V1(bloomtree_intersect_combine);
PG_FUNCTION_INFO_V1(bloomtree_agg_serial);
PG_FUNCTION_INFO_V1(bloomtree_agg_deserial);
PG_FUNCTION_INFO_V1(bloomtree_agg_final);
PG_FUNCTION_INFO_V1(bloomtree_intersect_final);

typedef struct TreeAggState
{
	BlTreeLayout L;
	uint8	   *bits;			/* BLTREE_ARRAY_BYTES(L.storage_bits), aggregate context */
	struct varlena *m_arg;		/* bloomtree_agg: the first row's m and k, to */
	struct varlena *k_arg;		/* recognise unchanged parameters by their bytes */
} TreeAggState;

static TreeAggState *
arg_state(FunctionCallInfo fcinfo, int argno)
{
	return PG_ARGISNULL(argno) ? NULL : (TreeAggState *) PG_GETARG_POINTER(argno);
}

/* a new state for L in ctx; bits copied from src, or zero */
static TreeAggState *
new_state(MemoryContext ctx, const BlTreeLayout *L, const uint8 *src)
{
	MemoryContext old = MemoryContextSwitchTo(ctx);
	TreeAggState *s = palloc0(sizeof(TreeAggState));

	s->L = *L;
	s->bits = src ? bf_palloc_value(BLTREE_ARRAY_BYTES(L->storage_bits), false,
									"a bloomtree aggregate state") :
		bloomtree_alloc_bits(L);
	if (src)
		bf_copy_interruptible(s->bits, src, BLTREE_ARRAY_BYTES(L->storage_bits));
	MemoryContextSwitchTo(old);
	return s;
}

/* ---- bloomtree_agg(elem, m, k [, seed]) ------------------------------- */

static Datum
required_arg(FunctionCallInfo fcinfo, int n, const char *name)
{
	if (PG_ARGISNULL(n))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("bloomtree_agg parameter %s must not be NULL", name)));
	return PG_GETARG_DATUM(n);
}

static bool
same_bytes(const struct varlena *a, const struct varlena *b)
{
	return VARSIZE_ANY(a) == VARSIZE_ANY(b) && memcmp(a, b, VARSIZE_ANY(a)) == 0;
}

/*
 * The state for this row: created from the row's m, k and seed on the first
 * row; on later rows the parameters must not change (compared by bytes, and
 * by value when the bytes differ).
 */
static TreeAggState *
agg_state(FunctionCallInfo fcinfo)
{
	TreeAggState *s = arg_state(fcinfo, 0);
	Datum		md = required_arg(fcinfo, 2, "m"),
				kd = required_arg(fcinfo, 3, "k");
	struct varlena *m = PG_DETOAST_DATUM_PACKED(md);
	struct varlena *k = PG_DETOAST_DATUM_PACKED(kd);
	int32		seed = PG_NARGS() > 4 ? DatumGetInt32(required_arg(fcinfo, 4, "seed")) : 0;

	if (s == NULL)
	{
		MemoryContext ctx = bf_agg_context(fcinfo, "bloomtree_agg");
		BlTreeParams p = bloomtree_params_from_arrays(DatumGetArrayTypeP(md),
													  DatumGetArrayTypeP(kd), seed,
													  "bloomtree_agg");
		BlTreeLayout L;
		MemoryContext old;

		bltree_layout_init(&L, &p);
		s = new_state(ctx, &L, NULL);
		old = MemoryContextSwitchTo(ctx);
		s->m_arg = (struct varlena *) palloc(VARSIZE_ANY(m));
		memcpy(s->m_arg, m, VARSIZE_ANY(m));
		s->k_arg = (struct varlena *) palloc(VARSIZE_ANY(k));
		memcpy(s->k_arg, k, VARSIZE_ANY(k));
		MemoryContextSwitchTo(old);
	}
	else if (seed != s->L.p.seed || s->m_arg == NULL ||
			 !same_bytes(m, s->m_arg) || !same_bytes(k, s->k_arg))
	{
		BlTreeParams p = bloomtree_params_from_arrays(DatumGetArrayTypeP(md),
													  DatumGetArrayTypeP(kd), seed,
													  "bloomtree_agg");

		if (!bltree_params_equal(&p, &s->L.p))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("bloomtree_agg parameters changed within a group"),
					 errdetail("The group started with %s and a row has %s.",
							   bloomtree_params_string(&s->L.p), bloomtree_params_string(&p)),
					 errhint("Pass constant m, k and seed to bloomtree_agg.")));
	}
	return s;
}

Datum
bloomtree_agg_trans_int8(PG_FUNCTION_ARGS)
{
	TreeAggState *s = agg_state(fcinfo);

	if (!PG_ARGISNULL(1))
		bltree_insert(&s->L, s->bits, bltree_key_int64(&s->L, PG_GETARG_INT64(1)));
	PG_RETURN_POINTER(s);
}

Datum
bloomtree_agg_trans_bytes(PG_FUNCTION_ARGS)
{
	TreeAggState *s = agg_state(fcinfo);

	if (!PG_ARGISNULL(1))
	{
		struct varlena *e = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(1));

		bltree_insert(&s->L, s->bits,
					  bltree_key_bytes(&s->L, VARDATA_ANY(e), VARSIZE_ANY_EXHDR(e)));
	}
	PG_RETURN_POINTER(s);
}

Datum
bloomtree_agg_trans_uuid(PG_FUNCTION_ARGS)
{
	TreeAggState *s = agg_state(fcinfo);

	if (!PG_ARGISNULL(1))
		bltree_insert(&s->L, s->bits,
					  bltree_key_bytes(&s->L, PG_GETARG_UUID_P(1)->data, UUID_LEN));
	PG_RETURN_POINTER(s);
}

/* ---- bloomtree_union_agg / bloomtree_intersect_agg -------------------- */

/* fold the array `bits` (layout L) into state s (NULL: a new state) */
static TreeAggState *
merge(FunctionCallInfo fcinfo, TreeAggState *s, const BlTreeLayout *L, const uint8 *bits,
	  bool is_and, const char *what)
{
	if (s == NULL)
		return new_state(bf_agg_context(fcinfo, what), L, bits);
	bloomtree_check_compatible(&s->L.p, &L->p, what);
	if (is_and)
		bltree_and(&s->L, s->bits, bits);
	else
		bltree_or(&s->L, s->bits, bits);
	return s;
}

static Datum
tree_trans(FunctionCallInfo fcinfo, bool is_and)
{
	const char *what = is_and ? "bloomtree_intersect_agg" : "bloomtree_union_agg";
	TreeAggState *s = arg_state(fcinfo, 0);

	if (!PG_ARGISNULL(1))
	{
		BlTreeLayout L;
		BloomTreeView v;
		uint8	   *bits;

		/* check compatibility before decoding */
		bloomtree_view_datum(PG_GETARG_DATUM(1), &v);
		if (s != NULL)
			bloomtree_check_compatible(&s->L.p, &v.L.p, what);
		bits = bloomtree_decode_datum(PG_GETARG_DATUM(1), &L);
		s = merge(fcinfo, s, &L, bits, is_and, what);
		pfree(bits);
	}
	if (s == NULL)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(s);
}

Datum
bloomtree_union_trans(PG_FUNCTION_ARGS)
{
	return tree_trans(fcinfo, false);
}

Datum
bloomtree_intersect_trans(PG_FUNCTION_ARGS)
{
	return tree_trans(fcinfo, true);
}

static Datum
combine(FunctionCallInfo fcinfo, bool is_and)
{
	TreeAggState *s1 = arg_state(fcinfo, 0),
			   *s2 = arg_state(fcinfo, 1);

	if (s2 != NULL)
		s1 = merge(fcinfo, s1, &s2->L, s2->bits, is_and,
				   is_and ? "bloomtree_intersect_agg" : "bloomtree_agg");
	if (s1 == NULL)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(s1);
}

/* bloomtree_agg and bloomtree_union_agg combine by OR */
Datum
bloomtree_union_combine(PG_FUNCTION_ARGS)
{
	return combine(fcinfo, false);
}

Datum
bloomtree_intersect_combine(PG_FUNCTION_ARGS)
{
	return combine(fcinfo, true);
}

/* ---- serialization and final ------------------------------------------ */

/*
 * bytea: d u8, seed i32, d * (m u32, k u8), then the raw array
 * (8 * ceil(M / 64) bytes), host byte order (it never leaves the server).
 */
#define SERIAL_HEADER(d)	(1 + 4 + 5 * (d))

Datum
bloomtree_agg_serial(PG_FUNCTION_ARGS)
{
	TreeAggState *s = (TreeAggState *) PG_GETARG_POINTER(0);
	int			d = s->L.p.d;
	Size		nbits = 8 * bs_words_for_bits(s->L.storage_bits),
				size = VARHDRSZ + SERIAL_HEADER(d) + nbits;
	bytea	   *out = bf_palloc_value(size, false, "bloomtree_agg_serial");
	uint8	   *p = (uint8 *) VARDATA(out);

	*p++ = (uint8) d;
	memcpy(p, &s->L.p.seed, 4);
	p += 4;
	for (int a = 0; a < d; a++)
	{
		memcpy(p, &s->L.p.m[a], 4);
		p[4] = s->L.p.k[a];
		p += 5;
	}
	bf_copy_interruptible(p, s->bits, nbits);
	SET_VARSIZE(out, size);
	PG_RETURN_BYTEA_P(out);
}

Datum
bloomtree_agg_deserial(PG_FUNCTION_ARGS)
{
	bytea	   *in = PG_GETARG_BYTEA_P(0);
	const uint8 *p = (const uint8 *) VARDATA(in);
	Size		len = VARSIZE(in) - VARHDRSZ;
	BlTreeParams params;
	BlTreeLayout L;
	TreeAggState *s;

	memset(&params, 0, sizeof(params));
	if (len < 1 || p[0] < 1 || p[0] > BLTREE_MAX_D || len < (Size) SERIAL_HEADER(p[0]))
		elog(ERROR, "invalid serialized bloomtree aggregate state");
	params.d = p[0];
	memcpy(&params.seed, p + 1, 4);
	for (int a = 0; a < params.d; a++)
	{
		memcpy(&params.m[a], p + 5 + 5 * a, 4);
		params.k[a] = p[5 + 5 * a + 4];
	}
	if (bltree_layout_init(&L, &params) != BLTREE_OK ||
		len != SERIAL_HEADER(params.d) + 8 * bs_words_for_bits(L.storage_bits))
		elog(ERROR, "invalid serialized bloomtree aggregate state");
	s = new_state(bf_agg_context(fcinfo, "bloomtree_agg_deserial"), &L, NULL);
	bf_copy_interruptible(s->bits, p + SERIAL_HEADER(params.d), 8 * bs_words_for_bits(L.storage_bits));
	PG_RETURN_POINTER(s);
}

Datum
bloomtree_agg_final(PG_FUNCTION_ARGS)
{
	TreeAggState *s = arg_state(fcinfo, 0);

	if (s == NULL)
		PG_RETURN_NULL();
	PG_RETURN_BLOOMTREE(bloomtree_encode_value(&s->L, s->bits));
}

/* the AND of the group, pruned (as a & b is), from a copy: the state stays as it was */
Datum
bloomtree_intersect_final(PG_FUNCTION_ARGS)
{
	TreeAggState *s = arg_state(fcinfo, 0);
	uint8	   *bits;

	if (s == NULL)
		PG_RETURN_NULL();
	bloomtree_memory_check(&s->L, 1, true, "bloomtree_intersect_agg");
	bits = palloc(BLTREE_ARRAY_BYTES(s->L.storage_bits));
	bf_copy_interruptible(bits, s->bits, BLTREE_ARRAY_BYTES(s->L.storage_bits));
	bltree_prune(&s->L, bits);
	PG_RETURN_BLOOMTREE(bloomtree_encode_value(&s->L, bits));
}
