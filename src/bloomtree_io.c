/*
 * bloomtree_io.c
 *    Text and binary input/output of the bloomtree type.
 *
 * Text form (one line, fixed field order, round-trips exactly): the
 * parameters and the UNCOMPRESSED breadth-first bit array,
 *
 *    m={<m1>,...,<md>},k={<k1>,...,<kd>},seed=<int32>,v=<scheme>:<hex>
 *
 * where <hex> is exactly ceil(M/8) bytes (M = m1 + m1*m2 + ...), two
 * lowercase hex digits each, byte j holding bits 8j..8j+7 (least significant
 * bit first).  Bits at positions >= M must be zero and a filter below a zero
 * bit must be all zero.  The text form is what a client in another language
 * builds from the documented layout and hashing scheme without a coder.
 *
 * Binary form (COPY BINARY, bloomtree_send): the level-wise coded form,
 *
 *    version u8 | d u8 | flags u8 (0) | reserved u8 (0) | seed int32 |
 *    d times: m uint32 | k u8 | mode u8 | prob0 uint16 | nbytes uint32 |
 *    the d level streams (bltree_code.h)
 *
 * integers in network order.  Input checks every field and that the streams
 * add up to the message, then decodes every level (rejecting streams that do
 * not decode exactly) and stores the canonical coding.  Decoding allocates
 * the tree's uncompressed size, at most 2^31 bits (256 MiB), the storage
 * limit of the type.
 */
#include "postgres.h"

#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "bloomtree.h"
#include "filter_text.h"

PG_FUNCTION_INFO_V1(bloomtree_in);
PG_FUNCTION_INFO_V1(bloomtree_out);
PG_FUNCTION_INFO_V1(bloomtree_recv);
PG_FUNCTION_INFO_V1(bloomtree_send);

#define BLOOMTREE_SEND_FIXED	8
#define BLOOMTREE_SEND_LEVEL	12

/* ---- text form -------------------------------------------------------- */

#define BLOOMTREE_TEXT_FORMAT "m={<m1>,...},k={<k1>,...},seed=<int>,v=1:<hex of ceil(M/8) bytes>, M = m1 + m1*m2 + ..."

/* the text form str as filter_text.c parses it (values out of range: no HINT) */
static FtInput
text_input(const char *str)
{
	FtInput		in = {str, "bloomtree", BLOOMTREE_TEXT_FORMAT, true};

	return in;
}

static void
syntax_error(const char *str, const char *detail)
{
	FtInput		in = text_input(str);

	ft_syntax_error(&in, detail);
}

/* an optionally signed decimal integer of at most 12 digits at *pp, in [lo, hi] */
static int64
parse_int(const char *str, const char **pp, const char *name, int64 lo, int64 hi)
{
	FtInput		in = text_input(str);

	return ft_parse_int(&in, pp, name, lo, hi);
}

static void
expect(const char *str, const char **pp, const char *token)
{
	size_t		n = strlen(token);

	if (strncmp(*pp, token, n) != 0)
		syntax_error(str, psprintf("Expected \"%s\" at position %d.", token, (int) (*pp - str) + 1));
	*pp += n;
}

/* "<name>={v1,...,vd}" (1..8 values in [lo, hi]); returns d */
static int
parse_list(const char *str, const char **pp, const char *name, int64 lo, int64 hi, int64 *out)
{
	int			n = 0;

	expect(str, pp, name);
	expect(str, pp, "={");
	for (;;)
	{
		if (n == BLTREE_MAX_D)
			syntax_error(str, psprintf("%s has more than %d levels.", name, BLTREE_MAX_D));
		out[n++] = parse_int(str, pp, name, lo, hi);
		if (**pp == '}')
			break;
		expect(str, pp, ",");
	}
	(*pp)++;
	return n;
}

Datum
bloomtree_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	const char *p = str;
	int64		mv[BLTREE_MAX_D],
				kv[BLTREE_MAX_D];
	int			dm,
				dk;
	BlTreeParams params;
	BlTreeLayout L;
	size_t		nbytes,
				hexlen;
	uint8	   *bits;
	uint64		filter;
	int			bad;

	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	dm = parse_list(str, &p, "m", BLTREE_MIN_M, BLTREE_MAX_M, mv);
	expect(str, &p, ",");
	dk = parse_list(str, &p, "k", BLTREE_MIN_K, BLTREE_MAX_K, kv);
	expect(str, &p, ",");
	if (dm != dk)
		syntax_error(str, psprintf("m has %d levels and k has %d.", dm, dk));
	memset(&params, 0, sizeof(params));
	params.d = dm;
	for (int a = 0; a < dm; a++)
	{
		params.m[a] = (uint32) mv[a];
		params.k[a] = (uint8) kv[a];
	}
	expect(str, &p, "seed=");
	params.seed = (int32) parse_int(str, &p, "seed", PG_INT32_MIN, PG_INT32_MAX);
	expect(str, &p, ",v=");
	if (parse_int(str, &p, "v", 0, 255) != BLTREE_SCHEME_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("bloomtree scheme version in \"%s\" is not supported", ft_shown(str)),
				 errdetail("This build of bloomsample reads scheme version %d.",
						   BLTREE_SCHEME_VERSION)));
	expect(str, &p, ":");
	bloomtree_layout_or_error(&L, &params, ERRCODE_INVALID_TEXT_REPRESENTATION, "bloomtree input");

	/* check the payload length before allocating anything of size M */
	nbytes = (size_t) ((L.storage_bits + 7) / 8);
	hexlen = bf_hex_span(p);
	if (hexlen != 2 * nbytes)
		syntax_error(str, psprintf("Expected %zu hex digits for %llu bits, found %zu.",
								   2 * nbytes, (unsigned long long) L.storage_bits, hexlen));
	for (const char *q = p + hexlen; *q; q++)
		if (*q != ' ' && *q != '\t' && *q != '\n')
			syntax_error(str, "Unexpected characters after the bits.");

	bloomtree_memory_check(&L, 1, true, "bloomtree input");
	bits = bloomtree_alloc_bits(&L);
	for (size_t i = 0; i < nbytes; i++)
	{
		if ((i & 0x3FFFF) == 0x3FFFF)
			CHECK_FOR_INTERRUPTS();
		bits[i] = (uint8) (bs_hex_digit(p[2 * i]) << 4 | bs_hex_digit(p[2 * i + 1]));
	}
	if (!bltree_tail_is_clear(&L, bits))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("bloomtree has bits set beyond its %llu storage bits",
						(unsigned long long) L.storage_bits),
				 errdetail("Bits at positions >= M = m1 + m1*m2 + ... must be zero.")));
	bad = bltree_check_structure(&L, bits, &filter);
	if (bad >= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("bloomtree has bits set in filter %llu of level %d, below a zero bit of level %d",
						(unsigned long long) filter, bad + 1, bad),
				 errdetail("Only elements that pass a set bit reach the filter below it, so a filter below a zero bit is all zero.")));
	PG_RETURN_BLOOMTREE(bloomtree_encode_value(&L, bits));
}

Datum
bloomtree_out(PG_FUNCTION_ARGS)
{
	static const char hex[] = "0123456789abcdef";
	BloomTreeView v;
	BlTreeLayout L;
	uint8	   *bits;
	size_t		nbytes;
	StringInfoData head;
	char	   *out,
			   *o;

	bloomtree_view_datum(PG_GETARG_DATUM(0), &v);
	L = v.L;
	nbytes = (size_t) ((L.storage_bits + 7) / 8);
	initStringInfo(&head);
	appendStringInfoString(&head, "m={");
	for (int a = 0; a < L.p.d; a++)
		appendStringInfo(&head, a ? ",%u" : "%u", L.p.m[a]);
	appendStringInfoString(&head, "},k={");
	for (int a = 0; a < L.p.d; a++)
		appendStringInfo(&head, a ? ",%d" : "%d", L.p.k[a]);
	appendStringInfo(&head, "},seed=%d,v=%d:", L.p.seed, BLTREE_SCHEME_VERSION);
	/* the decoded array and the text, before allocating either */
	bf_value_memory_check(BLTREE_ARRAY_BYTES(L.storage_bits) + head.len + 2 * (uint64) nbytes + 1,
						  "bloomtree output");
	bits = bloomtree_decode_datum(PG_GETARG_DATUM(0), &L);
	/* exactly the text's size: a StringInfo would round 512 MB up to 1 GB */
	out = palloc(head.len + 2 * nbytes + 1);
	memcpy(out, head.data, head.len);
	o = out + head.len;
	for (size_t i = 0; i < nbytes; i++)
	{
		if ((i & 0x3FFFF) == 0x3FFFF)
			CHECK_FOR_INTERRUPTS();
		*o++ = hex[bits[i] >> 4];
		*o++ = hex[bits[i] & 15];
	}
	*o = '\0';
	pfree(bits);
	PG_RETURN_CSTRING(out);
}

/* ---- binary form ------------------------------------------------------ */

Datum
bloomtree_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int			version,
				d,
				flags,
				reserved;
	BlTreeParams params;
	BloomTreeView v;
	BloomTreeDecoded t;
	uint64		total = 0;
	const uint8 *s;

	if (buf->len - buf->cursor < BLOOMTREE_SEND_FIXED)
		bf_binary_error("bloomtree", psprintf("The value has %d bytes, a header needs %d.",
							  buf->len - buf->cursor, BLOOMTREE_SEND_FIXED));
	version = pq_getmsgbyte(buf);
	d = pq_getmsgbyte(buf);
	flags = pq_getmsgbyte(buf);
	reserved = pq_getmsgbyte(buf);
	memset(&params, 0, sizeof(params));
	params.seed = (int32) pq_getmsgint(buf, 4);
	if (version != BLTREE_SCHEME_VERSION)
		bf_binary_error("bloomtree", psprintf("Scheme version %d is not supported (expected %d).",
							  version, BLTREE_SCHEME_VERSION));
	if (flags != BLOOMTREE_FLAGS_NONE || reserved != 0)
		bf_binary_error("bloomtree", psprintf("Flags and reserved bytes are %d and %d, expected 0.", flags, reserved));
	if (d < 1 || d > BLTREE_MAX_D)
		bf_binary_error("bloomtree", psprintf("d = %d is out of range [1, %d].", d, BLTREE_MAX_D));
	if (buf->len - buf->cursor < BLOOMTREE_SEND_LEVEL * d)
		bf_binary_error("bloomtree", psprintf("The value ends within the headers of its %d levels.", d));
	memset(&v, 0, sizeof(v));
	params.d = d;
	for (int a = 0; a < d; a++)
	{
		params.m[a] = (uint32) pq_getmsgint(buf, 4);
		params.k[a] = (uint8) pq_getmsgbyte(buf);
		v.lc[a].mode = (uint8) pq_getmsgbyte(buf);
		v.lc[a].prob0 = (uint16) pq_getmsgint(buf, 2);
		v.lc[a].nbytes = (uint32) pq_getmsgint(buf, 4);
		total += v.lc[a].nbytes;
		if (params.m[a] < BLTREE_MIN_M || params.m[a] > BLTREE_MAX_M)
			bf_binary_error("bloomtree", psprintf("m[%d] = %u is out of range [%d, %u].", a + 1, params.m[a],
								  BLTREE_MIN_M, BLTREE_MAX_M));
		if (params.k[a] < BLTREE_MIN_K || params.k[a] > BLTREE_MAX_K)
			bf_binary_error("bloomtree", psprintf("k[%d] = %d is out of range [%d, %d].", a + 1, params.k[a],
								  BLTREE_MIN_K, BLTREE_MAX_K));
		if (v.lc[a].mode >= BLTREE_NUM_MODES)
			bf_binary_error("bloomtree", psprintf("Level %d has coding mode %d (expected 0 to %d).", a + 1,
								  v.lc[a].mode, BLTREE_NUM_MODES - 1));
	}
	bloomtree_layout_or_error(&v.L, &params, ERRCODE_INVALID_BINARY_REPRESENTATION,
							  "bloomtree binary input");
	if (total != (uint64) (buf->len - buf->cursor))
		bf_binary_error("bloomtree", psprintf("The level streams add up to %llu bytes, the value has %d after its headers.",
							  (unsigned long long) total, buf->len - buf->cursor));
	s = (const uint8 *) pq_getmsgbytes(buf, (int) total);
	for (int a = 0; a < d; a++)
	{
		v.stream[a] = s;
		s += v.lc[a].nbytes;
	}
	/* decode every level (validating it), then store the canonical coding */
	bloomtree_memory_check(&v.L, 1, true, "bloomtree binary input");
	memset(&t, 0, sizeof(t));
	bloomtree_decoded_init(&t, &v, CurrentMemoryContext);
	bloomtree_decode_all(&t, ERRCODE_INVALID_BINARY_REPRESENTATION);
	PG_RETURN_BLOOMTREE(bloomtree_encode_value(&v.L, t.bits));
}

Datum
bloomtree_send(PG_FUNCTION_ARGS)
{
	BloomTreeView v;
	StringInfoData buf;

	bloomtree_view_datum(PG_GETARG_DATUM(0), &v);
	pq_begintypsend(&buf);
	pq_sendbyte(&buf, BLTREE_SCHEME_VERSION);
	pq_sendbyte(&buf, (uint8) v.L.p.d);
	pq_sendbyte(&buf, BLOOMTREE_FLAGS_NONE);
	pq_sendbyte(&buf, 0);
	pq_sendint32(&buf, (uint32) v.L.p.seed);
	for (int a = 0; a < v.L.p.d; a++)
	{
		pq_sendint32(&buf, v.L.p.m[a]);
		pq_sendbyte(&buf, v.L.p.k[a]);
		pq_sendbyte(&buf, v.lc[a].mode);
		pq_sendint16(&buf, v.lc[a].prob0);
		pq_sendint32(&buf, (uint32) v.lc[a].nbytes);
	}
	for (int a = 0; a < v.L.p.d; a++)
		pq_sendbytes(&buf, (const char *) v.stream[a], (int) v.lc[a].nbytes);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}
