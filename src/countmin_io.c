/*
 * countmin_io.c
 *    Text and binary forms of the countmin type, and the parsing helpers the
 *    topk type's forms share.
 *
 * Text form:  w=<w>,d=<d>,seed=<int32>,v=<scheme>:<row>;<row>;...
 *             each row w decimal counters separated by ','
 * Binary:     version u8, flags u8 (0), reserved u16 (0), seed i32, w u32,
 *             d u32 (network order), then d*w counters as int64
 *
 * Both inputs validate every field, refuse a size over the cap, longer than
 * the input can hold or above bloomsample.max_value_memory before allocating
 * (bf_input_check), and refuse counters that are negative or rows whose sums
 * differ (every row sums to the total N: cms.h).  The text input parses its
 * counters twice, first without storing them: a text refused for its syntax
 * or sums never allocates its declared size (a 27-byte text can declare
 * 2^24 counters, 128 MiB).  The outputs allocate their exact size once.
 */
#include "postgres.h"

#include "common/int.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "bloomfilter.h"
#include "countmin.h"

PG_FUNCTION_INFO_V1(countmin_in);
PG_FUNCTION_INFO_V1(countmin_out);
PG_FUNCTION_INFO_V1(countmin_recv);
PG_FUNCTION_INFO_V1(countmin_send);

static void
syntax_error(const char *type, const char *input, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for type %s: \"%.80s%s\"", type, input,
					strlen(input) > 80 ? "..." : ""),
			 errdetail("%s", detail)));
}

/*
 * A decimal integer: an optional '-' (when allow_negative) and 1 to 19
 * digits within int64; advances *pp, NULL-safe error on anything else.
 */
static int64
parse_int64(const char **pp, bool allow_negative, const char *type, const char *input,
			const char *what)
{
	const char *p = *pp;
	bool		neg = false;
	uint64		v = 0;
	int			ndigits = 0;

	if (allow_negative && *p == '-')
	{
		neg = true;
		p++;
	}
	while (*p >= '0' && *p <= '9')
	{
		if (++ndigits > 19)
			syntax_error(type, input, psprintf("The value of %s has too many digits.", what));
		v = v * 10 + (uint64) (*p - '0');
		p++;
	}
	if (ndigits == 0)
		syntax_error(type, input, psprintf("Expected a number for %s.", what));
	if (v > (uint64) PG_INT64_MAX + (neg ? 1 : 0))
		syntax_error(type, input, psprintf("The value of %s is out of range.", what));
	*pp = p;
	return neg ? (int64) (0 - v) : (int64) v;
}

/* expect the literal lit at *pp and advance past it */
static void
expect(const char **pp, const char *lit, const char *type, const char *input)
{
	size_t		n = strlen(lit);

	if (strncmp(*pp, lit, n) != 0)
		syntax_error(type, input, psprintf("Expected \"%s\".", lit));
	*pp += n;
}

/*
 * countmin_parse_params: "w=<w>,d=<d>,seed=<seed>,v=<v>:" at *pp, validated;
 * advances past the ':'.
 */
CmsParams
countmin_parse_params(const char **pp, const char *type, const char *input)
{
	int64		w,
				d,
				seed,
				v;

	expect(pp, "w=", type, input);
	w = parse_int64(pp, true, type, input, "w");
	expect(pp, ",d=", type, input);
	d = parse_int64(pp, true, type, input, "d");
	expect(pp, ",seed=", type, input);
	seed = parse_int64(pp, true, type, input, "seed");
	expect(pp, ",v=", type, input);
	v = parse_int64(pp, true, type, input, "v");
	expect(pp, ":", type, input);
	if (v != BS_SCHEME_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s hashing scheme version " INT64_FORMAT " is not supported", type, v),
				 errdetail("This build of bloomsample reads scheme version %d.", BS_SCHEME_VERSION)));
	return countmin_make_params(w, d, seed);
}

/*
 * countmin_check_text_length: the rule of bf_input_check for the counters'
 * text: each of the d*w counters takes at least one digit and each but the last
 * a separator, so the text left at p must have 2*d*w - 1 bytes; and the call's
 * allocation `alloc` must be within the limit.  Before allocating.
 */
void
countmin_check_text_length(const char *p, const CmsParams *params, uint64 alloc, const char *what)
{
	bf_input_check(what, 2 * (uint64) cms_cells(params) - 1, strlen(p), false, alloc,
				   ERRCODE_INVALID_TEXT_REPRESENTATION);
}

/*
 * countmin_parse_counters: d rows of w counters at *pp into counters (d*w;
 * NULL: parse and validate only); the rows are validated as they are read (no
 * negative counter, equal sums); returns the total.
 */
int64
countmin_parse_counters(const char **pp, const CmsParams *p, int64 *counters, const char *type,
				  const char *input)
{
	int64		total = 0;

	for (uint32 r = 0; r < p->d; r++)
	{
		int64		sum = 0;

		if (r > 0)
			expect(pp, ";", type, input);
		for (uint32 c = 0; c < p->w; c++)
		{
			int64		v;

			if ((c & 0xFFFF) == 0)
				CHECK_FOR_INTERRUPTS();
			if (c > 0)
				expect(pp, ",", type, input);
			v = parse_int64(pp, false, type, input, "a counter");
			if (counters != NULL)
				counters[(Size) r * p->w + c] = v;
			if (pg_add_s64_overflow(sum, v, &sum))
				syntax_error(type, input, "A row's counters sum beyond bigint.");
		}
		if (r == 0)
			total = sum;
		else if (sum != total)
			syntax_error(type, input, "The rows' counters must sum to the same total.");
	}
	return total;
}

/*
 * countmin_text_init: buf allocated once for the text form of s (its exact
 * length, computed in a first pass) plus `extra` bytes, within the limit; s
 * without counters (a topk value in exact mode): the header and `extra` only
 */
void
countmin_text_init(StringInfo buf, const CmsSketch *s, uint64 extra, const char *what)
{
	Size		n = s->counters != NULL ? cms_cells(&s->p) : 0;
	uint64		len = 96 + extra + n;	/* the header, the separators, the terminator */
	char		num[MAXINT8LEN + 1];

	for (Size i = 0; i < n; i++)
	{
		if ((i & 0xFFFF) == 0xFFFF)
			CHECK_FOR_INTERRUPTS();
		len += s->counters[i] < 10 ? 1 : pg_lltoa(s->counters[i], num);
	}
	buf->data = bf_palloc_value(len, false, what);
	buf->maxlen = (int) len;
	resetStringInfo(buf);
}

/* countmin_append_counters: the rows in the text form */
void
countmin_append_counters(StringInfo buf, const CmsSketch *s)
{
	char		num[MAXINT8LEN + 1];

	for (uint32 r = 0; r < s->p.d; r++)
	{
		if (r > 0)
			appendStringInfoChar(buf, ';');
		for (uint32 c = 0; c < s->p.w; c++)
		{
			int			len = pg_lltoa(s->counters[(Size) r * s->p.w + c], num);

			if ((c & 0xFFFF) == 0)
				CHECK_FOR_INTERRUPTS();

			if (c > 0)
				appendStringInfoChar(buf, ',');
			appendBinaryStringInfo(buf, num, len);
		}
	}
}

Datum
countmin_in(PG_FUNCTION_ARGS)
{
	const char *input = PG_GETARG_CSTRING(0);
	const char *p = input;
	CmsParams	params = countmin_parse_params(&p, "countmin", input);
	const char *counters = p;
	CountMin   *c;

	countmin_check_text_length(p, &params, COUNTMIN_VARSIZE(params.w, params.d), "countmin input");
	/* validate everything before allocating, then store */
	(void) countmin_parse_counters(&p, &params, NULL, "countmin", input);
	if (*p != '\0')
		syntax_error("countmin", input, "Unexpected characters after the last counter.");
	c = countmin_alloc(&params);
	c->total = countmin_parse_counters(&counters, &params, c->counters, "countmin", input);
	PG_RETURN_POINTER(c);
}

Datum
countmin_out(PG_FUNCTION_ARGS)
{
	CountMin   *c = countmin_detoast(PG_GETARG_DATUM(0));
	CmsSketch	s = countmin_sketch(c);
	StringInfoData buf;

	countmin_text_init(&buf, &s, 0, "countmin output");
	appendStringInfo(&buf, "w=%u,d=%u,seed=%d,v=%d:", c->w, c->d, c->seed, c->version);
	countmin_append_counters(&buf, &s);
	PG_RETURN_CSTRING(buf.data);
}

/*
 * countmin_binary_error: the error for an invalid binary form of type
 * (countmin, topk), detail saying what is wrong
 */
void
countmin_binary_error(const char *type, const char *detail)
{
	bf_binary_error_message(psprintf("invalid binary %s value", type), detail);
}

/*
 * countmin_recv_params: the binary header (16 bytes); the payload left must be
 * exactly d*w counters plus `extra` bytes at least, checked before any
 * allocation.  The flags byte is returned in *flags_out (the caller checks
 * it), or must be zero when flags_out is NULL.
 */
CmsParams
countmin_recv_params(StringInfo buf, const char *type, Size header_extra, uint8 *flags_out)
{
	int			version,
				flags,
				reserved;
	int32		seed;
	uint32		w,
				d;
	CmsParams	p;

	if (buf->len - buf->cursor < 16 + (int) header_extra)
		countmin_binary_error(type, "The header is truncated.");
	version = pq_getmsgbyte(buf);
	flags = pq_getmsgbyte(buf);
	reserved = pq_getmsgint(buf, 2);
	seed = (int32) pq_getmsgint(buf, 4);
	w = (uint32) pq_getmsgint(buf, 4);
	d = (uint32) pq_getmsgint(buf, 4);
	if (version != BS_SCHEME_VERSION)
		countmin_binary_error(type, psprintf("Unsupported scheme version %d.", version));
	if ((flags_out == NULL && flags != COUNTMIN_FLAGS_NONE) || reserved != 0)
		countmin_binary_error(type, "The flags and reserved fields must be zero.");
	if (flags_out != NULL)
		*flags_out = (uint8) flags;
	if (cms_check_params(w, d) != CMS_OK)
		countmin_binary_error(type, psprintf("w=%u, d=%u is out of range.", w, d));
	p.w = w;
	p.d = d;
	p.seed = seed;
	return p;
}

/* countmin_recv_counters: d*w counters (the length checked first), validated */
int64
countmin_recv_counters(StringInfo buf, const CmsParams *p, int64 *counters, const char *type)
{
	Size		n = cms_cells(p);
	int64		total;

	if ((Size) (buf->len - buf->cursor) < n * sizeof(int64))
		countmin_binary_error(type, "The counters are truncated.");
	for (Size i = 0; i < n; i++)
	{
		if ((i & 0xFFFF) == 0xFFFF)
			CHECK_FOR_INTERRUPTS();
		counters[i] = (int64) pq_getmsgint64(buf);
	}
	if (cms_validate(p, counters, &total) != CMS_OK)
		countmin_binary_error(type, "Counters must be non-negative, and every row must sum to the same total.");
	return total;
}

Datum
countmin_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	CmsParams	p = countmin_recv_params(buf, "countmin", 0, NULL);
	CountMin   *c;

	if ((Size) (buf->len - buf->cursor) != cms_cells(&p) * sizeof(int64))
		countmin_binary_error("countmin", psprintf("Expected %zu bytes of counters for w=%u, d=%u, got %d.",
										  cms_cells(&p) * sizeof(int64), p.w, p.d,
										  buf->len - buf->cursor));
	bf_input_check("countmin binary input", cms_cells(&p) * sizeof(int64),
				   (uint64) (buf->len - buf->cursor), true, COUNTMIN_VARSIZE(p.w, p.d),
				   ERRCODE_INVALID_BINARY_REPRESENTATION);
	c = countmin_alloc(&p);
	c->total = countmin_recv_counters(buf, &p, c->counters, "countmin");
	PG_RETURN_POINTER(c);
}

/* countmin_send_header: the binary header (version, flags, reserved, seed, w, d) */
void
countmin_send_header(StringInfo buf, const CmsParams *p, uint8 flags)
{
	pq_sendbyte(buf, BS_SCHEME_VERSION);
	pq_sendbyte(buf, flags);
	pq_sendint16(buf, 0);
	pq_sendint32(buf, (uint32) p->seed);
	pq_sendint32(buf, p->w);
	pq_sendint32(buf, p->d);
}

/* countmin_send_counters: the d*w counters of s (binary, network order) */
void
countmin_send_counters(StringInfo buf, const CmsSketch *s)
{
	Size		n = cms_cells(&s->p);

	for (Size i = 0; i < n; i++)
	{
		if ((i & 0xFFFF) == 0xFFFF)
			CHECK_FOR_INTERRUPTS();
		pq_sendint64(buf, s->counters[i]);
	}
}

/* countmin_send_sketch: the binary form of a sketch (header, then counters) */
void
countmin_send_sketch(StringInfo buf, const CmsSketch *s)
{
	countmin_send_header(buf, &s->p, COUNTMIN_FLAGS_NONE);
	countmin_send_counters(buf, s);
}

Datum
countmin_send(PG_FUNCTION_ARGS)
{
	CountMin   *c = countmin_detoast(PG_GETARG_DATUM(0));
	CmsSketch	s = countmin_sketch(c);
	StringInfoData buf;

	bf_begintypsend_exact(&buf, 16 + cms_cells(&s.p) * sizeof(int64), "countmin binary output");
	countmin_send_sketch(&buf, &s);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}
