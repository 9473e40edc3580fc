/*
 * topk_io.c
 *    Text and binary forms of the topk type.
 *
 * Text form:  k=<k>,<the countmin text form>|<item>,<item>,...
 *             or, in exact mode, k=<k>,w=..,d=..,seed=..,v=..:exact|<items>
 *             item = <estimate>/<lower>:<key: h1 then h2, 32 hex digits>:<text as hex>
 *             (the form before issue 32, without "/<lower>" in every item, is
 *             read with lower bounds 0 and stored in that layout, flags 0)
 * Binary:     the countmin binary form (its flags byte the value's flags;
 *             no counters when exact), then k u32, nitems u32, then per item
 *             h1 u64, h2 u64, estimate i64, [lower i64 when TK_FLAG_BOUNDS],
 *             len u32, len bytes of text (flags 0: the form before issue 32,
 *             stored in that layout)
 *
 * Items come in the stored order (largest estimate first, then text, then
 * key).  Both inputs validate everything (tk_validate_items) and check sizes
 * against the input's length and bloomsample.max_value_memory before
 * allocating (bf_input_check); the text input validates its counters before
 * allocating them (countmin_io.c).
 */
#include "postgres.h"

#include "common/int.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"

#include "bloomfilter.h"
#include "countmin.h"

/*
 * the shortest text of one item: "0:" 32 hex digits ":" and its ',' (the
 * form before bounds; with them, "0/0:" ..., it is longer)
 */
#define TK_MIN_ITEM_TEXT	36

PG_FUNCTION_INFO_V1(topk_value_in);
PG_FUNCTION_INFO_V1(topk_value_out);
PG_FUNCTION_INFO_V1(topk_value_recv);
PG_FUNCTION_INFO_V1(topk_value_send);

static void
syntax_error(const char *input, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for type topk: \"%.80s%s\"", input,
					strlen(input) > 80 ? "..." : ""),
			 errdetail("%s", detail)));
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* n (<= 16) lower-case hex digits as an unsigned integer */
static uint64
parse_hex64(const char **pp, int n, const char *input)
{
	uint64		v = 0;

	for (int i = 0; i < n; i++)
	{
		int			x = hexval((*pp)[i]);

		if (x < 0)
			syntax_error(input, "An item's key must be 32 lower-case hex digits.");
		v = (v << 4) | (uint64) x;
	}
	*pp += n;
	return v;
}

/*
 * one item "<est>/<lower>:<key>:<hex>" (or, before bounds, "<est>:<key>:<hex>")
 * at *pp; its text decoded into palloc'd memory; returns whether it had
 * "/<lower>"
 */
static bool
parse_item(const char **pp, TopkItem *item, const char *input)
{
	bool		has_lower = false;
	const char *p = *pp;
	const char *hex;
	char	   *text;
	uint64		est = 0;
	int			ndigits = 0;
	Size		nhex;

	while (*p >= '0' && *p <= '9')
	{
		if (++ndigits > 19)
			syntax_error(input, "An item's estimate has too many digits.");
		est = est * 10 + (uint64) (*p++ - '0');
	}
	if (ndigits == 0 || est > (uint64) PG_INT64_MAX || (*p != ':' && *p != '/'))
		syntax_error(input, "An item is <estimate>/<lower bound>:<key>:<hex text>.");
	item->est = (int64) est;
	item->lower = 0;
	if (*p == '/')
	{
		uint64		lower = 0;

		p++;
		ndigits = 0;
		while (*p >= '0' && *p <= '9')
		{
			if (++ndigits > 19)
				syntax_error(input, "An item's lower bound has too many digits.");
			lower = lower * 10 + (uint64) (*p++ - '0');
		}
		if (ndigits == 0 || lower > (uint64) PG_INT64_MAX || *p != ':')
			syntax_error(input, "An item is <estimate>/<lower bound>:<key>:<hex text>.");
		item->lower = (int64) lower;
		has_lower = true;
	}
	p++;
	item->key.h1 = parse_hex64(&p, 16, input);
	item->key.h2 = parse_hex64(&p, 16, input);
	if (*p++ != ':')
		syntax_error(input, "An item is <estimate>/<lower bound>:<key>:<hex text>.");
	hex = p;
	while (hexval(*p) >= 0)
		p++;
	nhex = p - hex;
	if (nhex % 2 != 0 || nhex / 2 > TOPK_MAX_ITEM_BYTES)
		syntax_error(input, psprintf("An item's text must be an even number of lower-case hex digits, at most %d bytes.",
									 TOPK_MAX_ITEM_BYTES));
	item->len = (uint32) (nhex / 2);
	text = palloc(item->len + 1);
	for (Size i = 0; i < nhex / 2; i++)
		text[i] = (char) (hexval(hex[2 * i]) << 4 | hexval(hex[2 * i + 1]));
	item->text = text;
	*pp = p;
	return has_lower;
}

/* "k=<k>," at *pp: the capacity, validated */
static uint32
parse_k(const char **pp, const char *input)
{
	const char *p = *pp;
	int64		k = 0;
	int			ndigits = 0;

	if (strncmp(p, "k=", 2) != 0)
		syntax_error(input, "Expected \"k=\".");
	p += 2;
	while (*p >= '0' && *p <= '9' && ndigits < 10)
	{
		k = k * 10 + (*p++ - '0');
		ndigits++;
	}
	if (ndigits == 0 || *p != ',')
		syntax_error(input, "Expected k=<integer>,.");
	if (k < TOPK_MIN_K || k > TOPK_MAX_K)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("topk capacity k = " INT64_FORMAT " is out of range", k),
				 errdetail("k must be between %d and %d.", TOPK_MIN_K, TOPK_MAX_K)));
	*pp = p + 1;
	return (uint32) k;
}

Datum
topk_value_in(PG_FUNCTION_ARGS)
{
	const char *input = PG_GETARG_CSTRING(0);
	const char *p = input;
	uint32		k = parse_k(&p, input);
	CmsParams	params = countmin_parse_params(&p, "topk", input);
	bool		exact = strncmp(p, "exact|", 6) == 0;
	uint32		most = exact ? topk_exact_cap(&params, k) : k;
	const char *counters = p;
	CmsSketch	cms;
	TopkItem   *items;
	uint32		n = 0,
				nlower = 0,
				cap;

	cms.p = params;
	cms.counters = NULL;
	cms.total = 0;
	if (exact)
		p += 5;
	else
	{
		countmin_check_text_length(p, &params, 2 * COUNTMIN_VARSIZE(params.w, params.d), "topk input");
		/* validate the counters before allocating them; stored below */
		(void) countmin_parse_counters(&p, &params, NULL, "topk", input);
	}
	if (*p++ != '|')
		syntax_error(input, "Expected '|' after the counters.");
	/* no more items than the text can hold: n items take at least 36 n - 1 bytes */
	cap = (uint32) Min((Size) most, (strlen(p) + 1) / TK_MIN_ITEM_TEXT + 1);
	items = bf_palloc_value((uint64) cap * sizeof(TopkItem), false, "topk input");
	while (*p != '\0')
	{
		if (n > 0 && *p++ != ',')
			syntax_error(input, "Items are separated by ','.");
		if (n == most)
			syntax_error(input, exact ? psprintf("More than %u items (the exact capacity).", most) :
						 psprintf("More than k = %u items.", k));
		if (n == cap)		/* cannot happen: each item takes TK_MIN_ITEM_TEXT - 1 bytes */
			syntax_error(input, "More items than the text can hold.");
		if (parse_item(&p, &items[n++], input))
			nlower++;
		if (exact && pg_add_s64_overflow(cms.total, items[n - 1].est, &cms.total))
			syntax_error(input, "The exact counts sum beyond bigint.");
	}
	if (nlower != 0 && nlower != n)
		syntax_error(input, "Either every item or none has \"/<lower bound>\".");
	if (exact && nlower != n)
		syntax_error(input, "An exact value's items have \"/<lower bound>\".");
	if (!exact)
	{
		/* the whole text is well-formed: now the counters */
		cms.counters = palloc(cms_cells(&params) * sizeof(int64));
		cms.total = countmin_parse_counters(&counters, &params, cms.counters, "topk", input);
	}
	tk_validate_items(&cms, k, exact, items, n, ERRCODE_INVALID_TEXT_REPRESENTATION);
	/* items without lower bounds: the form before them, kept as it is */
	PG_RETURN_POINTER(tk_build(&cms, k, (n > 0 && nlower == 0) ? COUNTMIN_FLAGS_NONE :
							   TK_FLAG_BOUNDS | (exact ? TK_FLAG_EXACT : 0), items, n));
}

Datum
topk_value_out(PG_FUNCTION_ARGS)
{
	TopkValue  *t = tk_detoast(PG_GETARG_DATUM(0));
	CmsSketch	cms = tk_sketch(t);
	TopkItem   *items = tk_items(t);
	StringInfoData buf;
	uint64		items_text = 0;

	/* per item ',' <est> '/' <lower> ':' <32 hex digits> ':' <2 len hex digits> */
	for (uint32 i = 0; i < t->nitems; i++)
		items_text += 4 + 2 * MAXINT8LEN + 32 + 2 * (uint64) items[i].len;
	countmin_text_init(&buf, &cms, 16 + items_text, "topk output");
	appendStringInfo(&buf, "k=%u,w=%u,d=%u,seed=%d,v=%d:", t->k, t->w, t->d, t->seed, t->version);
	if (cms.counters == NULL)
		appendStringInfoString(&buf, "exact");
	else
		countmin_append_counters(&buf, &cms);
	appendStringInfoChar(&buf, '|');
	for (uint32 i = 0; i < t->nitems; i++)
	{
		if (i > 0)
			appendStringInfoChar(&buf, ',');
		appendStringInfo(&buf, INT64_FORMAT "/" INT64_FORMAT ":%016llx%016llx:",
						 items[i].est, items[i].lower,
						 (unsigned long long) items[i].key.h1,
						 (unsigned long long) items[i].key.h2);
		for (uint32 j = 0; j < items[i].len; j++)
			appendStringInfo(&buf, "%02x", (unsigned char) items[i].text[j]);
	}
	PG_RETURN_CSTRING(buf.data);
}

Datum
topk_value_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	uint8		flags;
	CmsParams	params = countmin_recv_params(buf, "topk", 0, &flags);
	bool		exact = (flags & TK_FLAG_EXACT) != 0;
	bool		bounds = (flags & TK_FLAG_BOUNDS) != 0;
	int			item_header = bounds ? 36 : 28;
	CmsSketch	cms;
	uint32		k,
				n;
	TopkItem   *items;

	if (flags != COUNTMIN_FLAGS_NONE && flags != TK_FLAG_BOUNDS && flags != (TK_FLAG_BOUNDS | TK_FLAG_EXACT))
		countmin_binary_error("topk", psprintf("Unknown flags %u.", flags));
	cms.p = params;
	cms.counters = NULL;
	cms.total = 0;
	if (!exact && (Size) (buf->len - buf->cursor) < cms_cells(&params) * sizeof(int64) + 8)
		countmin_binary_error("topk", "The counters are truncated.");
	if (buf->len - buf->cursor < 8)
		countmin_binary_error("topk", "The item count is truncated.");
	/* the counters (none when exact), their copy in the value and the items' bytes at most */
	bf_input_check("topk binary input", (exact ? 0 : cms_cells(&params) * sizeof(int64)) + 8,
				   (uint64) (buf->len - buf->cursor), false,
				   (exact ? offsetof(TopkValue, counters) : 2 * COUNTMIN_VARSIZE(params.w, params.d)) +
				   2 * (uint64) (buf->len - buf->cursor),
				   ERRCODE_INVALID_BINARY_REPRESENTATION);
	if (!exact)
	{
		cms.counters = palloc(cms_cells(&params) * sizeof(int64));
		cms.total = countmin_recv_counters(buf, &params, cms.counters, "topk");
	}
	k = (uint32) pq_getmsgint(buf, 4);
	n = (uint32) pq_getmsgint(buf, 4);
	if (k < TOPK_MIN_K || k > TOPK_MAX_K ||
		n > (exact ? topk_exact_cap(&params, k) : k) ||
		(Size) n * item_header > (Size) (buf->len - buf->cursor))
		countmin_binary_error("topk", psprintf("k = %u, %u items: k must be between %d and %d, items at most k (exact: the exact capacity), and present.",
							  k, n, TOPK_MIN_K, TOPK_MAX_K));
	items = palloc(Max(n, 1) * sizeof(TopkItem));
	for (uint32 i = 0; i < n; i++)
	{
		if (buf->len - buf->cursor < item_header)
			countmin_binary_error("topk", "An item is truncated.");
		items[i].key.h1 = pq_getmsgint64(buf);
		items[i].key.h2 = pq_getmsgint64(buf);
		items[i].est = (int64) pq_getmsgint64(buf);
		items[i].lower = bounds ? (int64) pq_getmsgint64(buf) : 0;
		items[i].len = (uint32) pq_getmsgint(buf, 4);
		if (items[i].len > TOPK_MAX_ITEM_BYTES || (uint32) (buf->len - buf->cursor) < items[i].len)
			countmin_binary_error("topk", psprintf("An item's text of %u bytes is truncated or over the %d-byte limit.",
								  items[i].len, TOPK_MAX_ITEM_BYTES));
		items[i].text = (char *) pq_getmsgbytes(buf, (int) items[i].len);
	}
	if (buf->cursor != buf->len)
		countmin_binary_error("topk", "Bytes follow the last item.");
	if (exact)
		for (uint32 i = 0; i < n; i++)
			if (pg_add_s64_overflow(cms.total, items[i].est, &cms.total))
				countmin_binary_error("topk", "The exact counts sum beyond bigint.");
	tk_validate_items(&cms, k, exact, items, n, ERRCODE_INVALID_BINARY_REPRESENTATION);
	/* flags 0: the form before bounds, kept as it is */
	PG_RETURN_POINTER(tk_build(&cms, k, flags, items, n));
}

Datum
topk_value_send(PG_FUNCTION_ARGS)
{
	TopkValue  *t = tk_detoast(PG_GETARG_DATUM(0));
	CmsSketch	cms = tk_sketch(t);
	TopkItem   *items = tk_items(t);
	StringInfoData buf;
	/* the header, the counters (none when exact), k and nitems, the items */
	uint64		size = 16 + (cms.counters != NULL ? cms_cells(&cms.p) * sizeof(int64) : 0) + 8;

	for (uint32 i = 0; i < t->nitems; i++)
		size += 36 + items[i].len;
	bf_begintypsend_exact(&buf, size, "topk binary output");
	/* always with bounds: a value stored before them is sent with lower 0 */
	countmin_send_header(&buf, &cms.p, TK_FLAG_BOUNDS | (cms.counters == NULL ? TK_FLAG_EXACT : 0));
	if (cms.counters != NULL)
		countmin_send_counters(&buf, &cms);
	pq_sendint32(&buf, t->k);
	pq_sendint32(&buf, t->nitems);
	for (uint32 i = 0; i < t->nitems; i++)
	{
		pq_sendint64(&buf, items[i].key.h1);
		pq_sendint64(&buf, items[i].key.h2);
		pq_sendint64(&buf, items[i].est);
		pq_sendint64(&buf, items[i].lower);
		pq_sendint32(&buf, items[i].len);
		pq_sendbytes(&buf, items[i].text, (int) items[i].len);
	}
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}
