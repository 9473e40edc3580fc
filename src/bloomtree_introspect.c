/*
 * bloomtree_introspect.c
 *    Parameters, per-level fill and sizes, the entropy bound and the
 *    false-positive figures of a bloomtree.
 *
 * Parameters, fills and sizes come from the stored header (no decoding); the
 * false-positive figures need every filter's fill, so they decode the tree.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "bloomtree.h"

PG_FUNCTION_INFO_V1(bloomtree_m);
PG_FUNCTION_INFO_V1(bloomtree_k);
PG_FUNCTION_INFO_V1(bloomtree_seed);
PG_FUNCTION_INFO_V1(bloomtree_fill);
PG_FUNCTION_INFO_V1(bloomtree_fp_rate);
PG_FUNCTION_INFO_V1(bloomtree_expected_fp);
PG_FUNCTION_INFO_V1(bloomtree_storage_bits);
PG_FUNCTION_INFO_V1(bloomtree_compressed_bytes);
PG_FUNCTION_INFO_V1(bloomtree_entropy_bytes);
PG_FUNCTION_INFO_V1(bloomtree_levels);

/* bytes of the binary form: 8-byte header, 12 bytes a level, the streams */
#define SEND_BYTES(v)	(8 + 12 * (v).L.p.d + (v).coded_bytes)

Datum
bloomtree_m(PG_FUNCTION_ARGS)
{
	BloomTreeView v;
	int32		m[BLTREE_MAX_D];

	bloomtree_view_datum(PG_GETARG_DATUM(0), &v);
	for (int a = 0; a < v.L.p.d; a++)
		m[a] = (int32) v.L.p.m[a];
	PG_RETURN_ARRAYTYPE_P(bloomtree_int4_array(m, v.L.p.d));
}

Datum
bloomtree_k(PG_FUNCTION_ARGS)
{
	BloomTreeView v;
	int32		k[BLTREE_MAX_D];

	bloomtree_view_datum(PG_GETARG_DATUM(0), &v);
	for (int a = 0; a < v.L.p.d; a++)
		k[a] = v.L.p.k[a];
	PG_RETURN_ARRAYTYPE_P(bloomtree_int4_array(k, v.L.p.d));
}

Datum
bloomtree_seed(PG_FUNCTION_ARGS)
{
	BloomTreeView v;

	bloomtree_view_datum(PG_GETARG_DATUM(0), &v);
	PG_RETURN_INT32(v.L.p.seed);
}

/* fraction of ones per level */
Datum
bloomtree_fill(PG_FUNCTION_ARGS)
{
	BloomTreeView v;
	Datum		f[BLTREE_MAX_D];

	bloomtree_view_datum(PG_GETARG_DATUM(0), &v);
	for (int a = 0; a < v.L.p.d; a++)
		f[a] = Float8GetDatum((double) v.lc[a].ones / (double) v.L.level_bits[a]);
	PG_RETURN_ARRAYTYPE_P(construct_array(f, v.L.p.d, FLOAT8OID, sizeof(float8),
										  FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/* the paper's posterior (equations 11-12), exact */
Datum
bloomtree_fp_rate(PG_FUNCTION_ARGS)
{
	BlTreeLayout L;
	uint8	   *bits = bloomtree_decode_datum(PG_GETARG_DATUM(0), &L);

	PG_RETURN_FLOAT8(bltree_posterior_fp(&L, bits));
}

/* the probability that a random non-member passes */
Datum
bloomtree_expected_fp(PG_FUNCTION_ARGS)
{
	BlTreeLayout L;
	uint8	   *bits = bloomtree_decode_datum(PG_GETARG_DATUM(0), &L);

	PG_RETURN_FLOAT8(bltree_expected_fp(&L, bits));
}

Datum
bloomtree_storage_bits(PG_FUNCTION_ARGS)
{
	BloomTreeView v;

	bloomtree_view_datum(PG_GETARG_DATUM(0), &v);
	PG_RETURN_INT64((int64) v.L.storage_bits);
}

/* bytes of the level-wise coded form as transmitted: length(bloomtree_send(t)) */
Datum
bloomtree_compressed_bytes(PG_FUNCTION_ARGS)
{
	BloomTreeView v;

	bloomtree_view_datum(PG_GETARG_DATUM(0), &v);
	PG_RETURN_INT64((int64) SEND_BYTES(v));
}

/* Theorem 4.1: sum over levels of L_a * H(fill_a), in bytes */
Datum
bloomtree_entropy_bytes(PG_FUNCTION_ARGS)
{
	BloomTreeView v;
	uint64		ones[BLTREE_MAX_D];

	bloomtree_view_datum(PG_GETARG_DATUM(0), &v);
	for (int a = 0; a < v.L.p.d; a++)
		ones[a] = v.lc[a].ones;
	PG_RETURN_FLOAT8(bltree_entropy_bits(&v.L, ones) / 8.0);
}

/*
 * bloomtree_levels(t): one row per level: level, m, k, filters, bits, ones,
 * fill, coded_bits (bits the coder stores: the filters below set bits),
 * mode, coded_bytes, entropy_bytes (the level's term of Theorem 4.1) and
 * coded_entropy_bytes (order-0 entropy of the coded bits: what the range
 * coder approaches).
 */
Datum
bloomtree_levels(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	BloomTreeView v;

	InitMaterializedSRF(fcinfo, 0);
	bloomtree_view_datum(PG_GETARG_DATUM(0), &v);
	for (int a = 0; a < v.L.p.d; a++)
	{
		Datum		values[12];
		bool		nulls[12] = {0};
		uint64		bits = v.L.level_bits[a],
					ones = v.lc[a].ones,
					coded = a == 0 ? v.L.p.m[0] : v.lc[a - 1].ones * (uint64) v.L.p.m[a];

		values[0] = Int32GetDatum(a + 1);
		values[1] = Int32GetDatum((int32) v.L.p.m[a]);
		values[2] = Int32GetDatum(v.L.p.k[a]);
		values[3] = Int64GetDatum((int64) v.L.filters[a]);
		values[4] = Int64GetDatum((int64) bits);
		values[5] = Int64GetDatum((int64) ones);
		values[6] = Float8GetDatum((double) ones / (double) bits);
		values[7] = Int64GetDatum((int64) coded);
		values[8] = CStringGetTextDatum(bltree_mode_name(v.lc[a].mode));
		values[9] = Int64GetDatum((int64) v.lc[a].nbytes);
		values[10] = Float8GetDatum(bits * bltree_h2((double) ones / (double) bits) / 8.0);
		values[11] = Float8GetDatum(coded ? coded * bltree_h2((double) ones / (double) coded) / 8.0 : 0.0);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
