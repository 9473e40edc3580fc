/*
 * countmin_util.c
 *    Parameter validation, error reports, allocation and views of countmin
 *    values, and element keys, shared by the countmin and topk glue.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/builtins.h"

#include "bloomfilter.h"
#include "countmin.h"

/*
 * countmin_make_params: validate user-supplied w, d and seed; every violation
 * is 22023 naming the value and the accepted range.
 */
CmsParams
countmin_make_params(int64 w, int64 d, int64 seed)
{
	CmsParams	p;

	if (w < CMS_MIN_W || w > CMS_MAX_W)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("countmin width w = " INT64_FORMAT " is out of range", w),
				 errdetail("w must be between %d and %d counters.", CMS_MIN_W, CMS_MAX_W)));
	if (d < CMS_MIN_D || d > CMS_MAX_D)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("countmin depth d = " INT64_FORMAT " is out of range", d),
				 errdetail("d must be between %d and %d rows.", CMS_MIN_D, CMS_MAX_D)));
	if (cms_check_params(w, d) != CMS_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("countmin of w = " INT64_FORMAT " by d = " INT64_FORMAT " counters is too large", w, d),
				 errdetail("w * d must be at most " UINT64_FORMAT " counters.", (uint64) CMS_MAX_CELLS),
				 errhint("Use a larger epsilon (smaller w) or a larger delta (smaller d).")));
	if (seed < PG_INT32_MIN || seed > PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("countmin seed " INT64_FORMAT " is out of range", seed),
				 errdetail("seed must be a 32-bit integer.")));
	p.w = (uint32) w;
	p.d = (uint32) d;
	p.seed = (int32) seed;
	return p;
}

/* countmin_params_string: "(w=.., d=.., seed=..)" for messages */
char *
countmin_params_string(const CmsParams *p)
{
	return psprintf("(w=%u, d=%u, seed=%d)", p->w, p->d, p->seed);
}

/* countmin_check_compatible: error (22023) naming both parameter sets unless equal */
void
countmin_check_compatible(const CmsParams *a, const CmsParams *b, const char *what)
{
	if (!cms_params_equal(a, b))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: countmin sketches are incompatible", what),
				 errdetail("Left is %s, right is %s.", countmin_params_string(a), countmin_params_string(b)),
				 errhint("Sketches combine only when w, d and seed are all equal.")));
}

/* countmin_report: the error of a failed core operation (no-op for CMS_OK) */
void
countmin_report(CmsStatus st, const char *what)
{
	switch (st)
	{
		case CMS_OK:
			return;
		case CMS_OVERFLOW:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("%s: countmin counter overflow", what),
					 errdetail("The total count would exceed " INT64_FORMAT ".", PG_INT64_MAX)));
			break;
		case CMS_NEGATIVE:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: a counter would become negative", what),
					 errdetail("The element's estimated count is below the count to remove."),
					 errhint("Remove only what was added.")));
			break;
		case CMS_BAD_COUNT:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: count must not be negative", what),
					 errhint("Use cms_remove to subtract.")));
			break;
		default:
			elog(ERROR, "%s: unexpected countmin status %d", what, (int) st);
	}
}

/*
 * countmin_alloc: a zeroed sketch of valid parameters, in the current context
 * (zeroed interruptibly, within bloomsample.max_value_memory)
 */
CountMin *
countmin_alloc(const CmsParams *p)
{
	Size		size = COUNTMIN_VARSIZE(p->w, p->d);
	CountMin   *c = (CountMin *) bf_palloc_value(size, true, "a countmin value");

	SET_VARSIZE(c, size);
	c->version = BS_SCHEME_VERSION;
	c->flags = COUNTMIN_FLAGS_NONE;
	c->seed = p->seed;
	c->w = p->w;
	c->d = p->d;
	return c;
}

/* countmin_alloc_typed: countmin_alloc for a new sketch that records its element types */
CountMin *
countmin_alloc_typed(const CmsParams *p)
{
	CountMin   *c = countmin_alloc(p);

	c->flags = BF_FLAG_TYPED;
	return c;
}

/*
 * countmin_detoast: the datum as an aligned, 4-byte-header CountMin whose
 * header is consistent (values enter only through the validating inputs, so a
 * failure means corruption or a newer format).  Not a copy when already in that
 * form: callers that modify it copy first.
 */
CountMin *
countmin_detoast(Datum d)
{
	CountMin   *c = (CountMin *) PG_DETOAST_DATUM(d);

	if (((uintptr_t) c) % 8 != 0)
		c = bf_copy_value(CurrentMemoryContext, c, VARSIZE(c), "aligning a countmin value");
	if (VARSIZE(c) < offsetof(CountMin, counters))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("countmin value is too short (%u bytes)", VARSIZE(c))));
	if (c->version != BS_SCHEME_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("countmin hashing scheme version %d is not supported", c->version)));
	if (cms_check_params(c->w, c->d) != CMS_OK || !bf_flags_valid(c->flags) ||
		(c->flags & BF_FLAG_SPARSE) ||
		VARSIZE(c) != COUNTMIN_VARSIZE(c->w, c->d) || c->total < 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("countmin value is corrupted"),
				 errdetail("Header says w=%u, d=%u for a %u-byte value.", c->w, c->d, VARSIZE(c))));
	return c;
}

/* countmin_sketch: the core's view of a CountMin (counters in place) */
CmsSketch
countmin_sketch(CountMin *c)
{
	return countmin_sketch_of(c->w, c->d, c->seed, c->total, c->counters);
}

/*
 * countmin_elem_key: the element's key under the sketch's hasher (bf_datum_key:
 * the bloomfilter scheme's element encoding, so 42::int4 and 42::int8 are
 * one element).
 */
BsKey
countmin_elem_key(const BsHasher *h, Datum value, Oid typid)
{
	return bf_datum_key(h, value, typid);
}
