/*
 * topk_ops.c
 *    SQL functions of the topk type: topk_items (the heavy hitters with their
 *    estimates) and equality.
 */
#include "postgres.h"

#include "funcapi.h"
#include "utils/builtins.h"

#include "bloomfilter.h"
#include "countmin.h"

PG_FUNCTION_INFO_V1(topk_value_items);
PG_FUNCTION_INFO_V1(topk_value_eq);
PG_FUNCTION_INFO_V1(topk_value_ne);

static int
item_cmp(const void *a, const void *b)
{
	return topk_item_cmp((const TopkItem *) a, (const TopkItem *) b);
}

/*
 * topk_items(t) -> TABLE(item text, estimate bigint): the candidates, each
 * with the sketch's current estimate of it (an upper bound of its count),
 * largest first, ties by item text.
 */
Datum
topk_value_items(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	TopkValue  *t = tk_detoast(PG_GETARG_DATUM(0));
	CmsSketch	cms = tk_sketch(t);
	TopkItem   *items = tk_items(t);

	InitMaterializedSRF(fcinfo, 0);
	for (uint32 i = 0; i < t->nitems; i++)
		items[i].est = cms_estimate(&cms, items[i].key);
	qsort(items, t->nitems, sizeof(TopkItem), item_cmp);
	for (uint32 i = 0; i < t->nitems; i++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};

		values[0] = PointerGetDatum(cstring_to_text_with_len(items[i].text, (int) items[i].len));
		values[1] = Int64GetDatum(items[i].est);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* same parameters, counters and candidates: the stored bytes are canonical */
static bool
values_equal(FunctionCallInfo fcinfo)
{
	TopkValue  *a = tk_detoast(PG_GETARG_DATUM(0));
	TopkValue  *b = tk_detoast(PG_GETARG_DATUM(1));

	return VARSIZE(a) == VARSIZE(b) && bf_equal_interruptible(a, b, VARSIZE(a));
}

Datum
topk_value_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(values_equal(fcinfo));
}

Datum
topk_value_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!values_equal(fcinfo));
}
