/*
 * bloomfilter_io.c
 *    Text and binary input/output of the bloomfilter type, and its typmod.
 *
 * Text form (one line, fixed field order, round-trips exactly):
 *
 *    m=<bits>,k=<hashes>,seed=<int32>,hash=<xxh3|linear>,v=<scheme>:<hex>
 *
 * where <hex> is exactly ceil(m/8) bytes, two lowercase hex digits each,
 * byte j holding bits 8j..8j+7 (least significant bit first).  Binary form:
 * version u8, hash u8, k u8, flags u8, seed int32, m uint32 (network order),
 * then the same ceil(m/8) bytes.  Both inputs validate every field, require
 * bits >= m to be zero, and allocate only after the payload length matched,
 * so no input can make them allocate more than its own size.  The forms are
 * specified for clients in docs/hashing.md.  Both forms are the dense bits
 * whatever the stored form (bloomfilter.h): output and send decode a sparse
 * value, input and receive return through bf_make_datum like every builder.
 *
 * Typmod bloomfilter(m, k) is stored as ((k - 1) << 26) | m: it holds
 * m < 2^26 bits (67,108,863); larger filters use an unconstrained column.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "bloomfilter.h"
#include "filter_text.h"

PG_FUNCTION_INFO_V1(bloomfilter_in);
PG_FUNCTION_INFO_V1(bloomfilter_out);
PG_FUNCTION_INFO_V1(bloomfilter_recv);
PG_FUNCTION_INFO_V1(bloomfilter_send);
PG_FUNCTION_INFO_V1(bloomfilter_typmod_in);
PG_FUNCTION_INFO_V1(bloomfilter_typmod_out);
PG_FUNCTION_INFO_V1(bloomfilter_enforce_typmod);

/*
 * bf_from_bytes: build a filter from validated parameters and exactly
 * ceil(m/8) payload bytes; errcode_bad is raised if bits >= m are set.
 */
BloomFilter *
bf_from_bytes(const BsParams *p, const uint8 *bytes, size_t nbytes, int errcode_bad)
{
	BloomFilter *f;

	Assert(nbytes == ((size_t) p->m + 7) / 8);
	f = bf_alloc(p);
	bf_copy_interruptible(f->bits, bytes, nbytes);
	if (!bs_tail_is_clear(f->bits, p->m))
		ereport(ERROR,
				(errcode(errcode_bad),
				 errmsg("bloomfilter has bits set beyond m = %u", p->m),
				 errdetail("Bits at positions >= m must be zero.")));
	return f;
}

/*
 * bf_enforce_typmod: error unless the m and k of a value of type `type`
 * (bloomfilter, countingbloom) match the typmod (a negative typmod means no
 * constraint).
 */
void
bf_enforce_typmod(const BsParams *p, int32 typmod, const char *type)
{
	if (typmod < 0)
		return;
	if (p->m != TYPMOD_M(typmod) || p->k != TYPMOD_K(typmod))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s with m = %u, k = %d does not match type %s(%u,%d)",
						type, p->m, p->k, type, TYPMOD_M(typmod), TYPMOD_K(typmod))));
}

/* ---- text form -------------------------------------------------------- */

#define BF_TEXT_FORMAT "m=<bits>,k=<hashes>,seed=<int>,hash=<xxh3|linear>,v=1:<hex of ceil(m/8) bytes>."

/* the text form str as filter_text.c parses it (values out of range: no HINT) */
static FtInput
text_input(const char *str)
{
	FtInput		in = {str, "bloomfilter", BF_TEXT_FORMAT, true};

	return in;
}

static void
syntax_error(const char *str, const char *detail)
{
	FtInput		in = text_input(str);

	ft_syntax_error(&in, detail);
}

Datum
bloomfilter_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	int32		typmod = PG_NARGS() > 2 ? PG_GETARG_INT32(2) : -1;
	FtInput		in = text_input(str);
	const char *p = str;
	const char *hname;
	BsParams	params;
	int			family;
	size_t		nbytes,
				hexlen;
	uint8	   *bytes;
	BloomFilter *f;

	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	params.m = (uint32) ft_parse_field(&in, &p, "m", ',', BS_MIN_M, (int64) BS_MAX_M);
	params.k = (uint8) ft_parse_field(&in, &p, "k", ',', BS_MIN_K, BS_MAX_K);
	params.seed = (int32) ft_parse_field(&in, &p, "seed", ',', PG_INT32_MIN, PG_INT32_MAX);
	if (strncmp(p, "hash=", 5) != 0)
		syntax_error(str, psprintf("Expected \"hash=\" at position %d.", (int) (p - str) + 1));
	p += 5;
	/* the family name runs to the next comma (names are lowercase, as output) */
	hname = p;
	p += strcspn(p, ",");
	family = -1;
	for (int i = 0; i < BS_NUM_HASH_FAMILIES; i++)
	{
		const char *name = bs_hash_family_name(i);

		if ((size_t) (p - hname) == strlen(name) && strncmp(hname, name, p - hname) == 0)
			family = i;
	}
	if (family < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type bloomfilter: \"%s\"", ft_shown(str)),
				 errdetail("Unknown hash family \"%.*s\".", (int) Min(p - hname, 32), hname),
				 errhint("%s", bf_hash_family_hint(pnstrdup(hname, p - hname),
												 "Use 'xxh3' or 'linear'."))));
	params.hash = (uint8) family;
	if (*p++ != ',')
		syntax_error(str, "Expected \",\" after the hash family.");
	if (ft_parse_field(&in, &p, "v", ':', 0, 255) != BS_SCHEME_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("bloomfilter hashing scheme version in \"%s\" is not supported", ft_shown(str)),
				 errdetail("This build of bloomsample reads scheme version %d.", BS_SCHEME_VERSION)));

	/* check the payload length before allocating anything of size m */
	nbytes = ((size_t) params.m + 7) / 8;
	hexlen = bf_hex_span(p);
	if (hexlen != 2 * nbytes)
		syntax_error(str, psprintf("Expected %zu hex digits for m = %u, found %zu.",
								   2 * nbytes, params.m, hexlen));
	for (const char *q = p + hexlen; *q; q++)
		if (*q != ' ' && *q != '\t' && *q != '\n')
			syntax_error(str, "Unexpected characters after the bits.");

	bf_value_memory_check(nbytes + BF_VARSIZE(params.m), "bloomfilter input");
	bytes = palloc(nbytes);
	for (size_t i = 0; i < nbytes; i++)
	{
		if ((i & 0x3FFFF) == 0x3FFFF)
			CHECK_FOR_INTERRUPTS();
		bytes[i] = (uint8) (bs_hex_digit(p[2 * i]) << 4 | bs_hex_digit(p[2 * i + 1]));
	}
	f = bf_from_bytes(&params, bytes, nbytes, ERRCODE_INVALID_TEXT_REPRESENTATION);
	pfree(bytes);
	bf_enforce_typmod(&params, typmod, "bloomfilter");
	PG_RETURN_BLOOMFILTER_P(f);
}

Datum
bloomfilter_out(PG_FUNCTION_ARGS)
{
	BloomView	v;
	static const char hex[] = "0123456789abcdef";
	char		head[96];
	int			hlen;
	size_t		nbytes;
	char	   *out,
			   *o;

	bf_view_datum(PG_GETARG_DATUM(0), &v);
	nbytes = ((size_t) v.p.m + 7) / 8;
	hlen = snprintf(head, sizeof(head), "m=%u,k=%d,seed=%d,hash=%s,v=%d:", v.p.m, v.p.k,
					v.p.seed, bs_hash_family_name(v.p.hash), BS_SCHEME_VERSION);
	/* exactly the text's size: a StringInfo would round 512 MB up to 1 GB */
	out = bf_palloc_value(hlen + 2 * nbytes + 1, false, "bloomfilter output");
	memcpy(out, head, hlen);
	o = out + hlen;
	for (size_t i = 0; i < nbytes; i++)
	{
		if ((i & 0x3FFFF) == 0x3FFFF)
			CHECK_FOR_INTERRUPTS();
		*o++ = hex[v.bits[i] >> 4];
		*o++ = hex[v.bits[i] & 15];
	}
	*o = '\0';
	PG_RETURN_CSTRING(out);
}

/* ---- binary form ------------------------------------------------------ */

/*
 * bf_binary_error_message: the error (22P03) of a receive function that
 * finds an invalid binary form, message its text, detail what is wrong
 */
void
bf_binary_error_message(const char *message, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("%s", message),
			 errdetail("%s", detail)));
}

/* bf_binary_error: that error for the binary form of a filter type */
void
bf_binary_error(const char *type, const char *detail)
{
	bf_binary_error_message(psprintf("invalid external binary %s", type), detail);
}

/*
 * bf_recv_header: reads the header of the binary form of type (bloomfilter,
 * countingbloom: version, hash, k, flags, seed, m in header_bytes bytes) from
 * buf into p, checking all but m (whose range is the type's); errors are
 * ERRCODE_INVALID_BINARY_REPRESENTATION naming the type
 */
void
bf_recv_header(StringInfo buf, const char *type, int header_bytes, BsParams *p)
{
	int			version,
				hash,
				k,
				flags;

	if (buf->len - buf->cursor < header_bytes)
		bf_binary_error(type, psprintf("The value has %d bytes, a header needs %d.", buf->len - buf->cursor, header_bytes));
	version = pq_getmsgbyte(buf);
	hash = pq_getmsgbyte(buf);
	k = pq_getmsgbyte(buf);
	flags = pq_getmsgbyte(buf);
	p->seed = (int32) pq_getmsgint(buf, 4);
	p->m = (uint32) pq_getmsgint(buf, 4);
	p->k = (uint8) k;
	p->hash = (uint8) hash;
	if (version != BS_SCHEME_VERSION)
		bf_binary_error(type, psprintf("Hashing scheme version %d is not supported (expected %d).", version, BS_SCHEME_VERSION));
	if (hash >= BS_NUM_HASH_FAMILIES)
		bf_binary_error(type, psprintf("Hash family code %d is unknown (expected 0 for xxh3 or 1 for linear).", hash));
	if (k < BS_MIN_K || k > BS_MAX_K)
		bf_binary_error(type, psprintf("k = %d is out of range [%d, %d].", k, BS_MIN_K, BS_MAX_K));
	if (flags != BF_FLAGS_NONE)
		bf_binary_error(type, psprintf("Flags byte is %d, expected 0.", flags));
}

Datum
bloomfilter_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int32		typmod = PG_NARGS() > 2 ? PG_GETARG_INT32(2) : -1;
	size_t		nbytes;
	BsParams	params;
	BloomFilter *f;
	uint32		m;

	bf_recv_header(buf, "bloomfilter", BF_HEADER_BYTES, &params);
	m = params.m;
	if (m < BS_MIN_M || m > BS_MAX_M)
		bf_binary_error("bloomfilter", psprintf("m = %u is out of range [%d, " UINT64_FORMAT "].",
							  m, BS_MIN_M, (uint64) BS_MAX_M));
	nbytes = ((size_t) m + 7) / 8;
	if ((size_t) (buf->len - buf->cursor) != nbytes)
		bf_binary_error("bloomfilter", psprintf("Expected %zu payload bytes for m = %u, found %d.",
							  nbytes, m, buf->len - buf->cursor));
	f = bf_from_bytes(&params, (const uint8 *) pq_getmsgbytes(buf, (int) nbytes),
					  nbytes, ERRCODE_INVALID_BINARY_REPRESENTATION);
	bf_enforce_typmod(&params, typmod, "bloomfilter");
	PG_RETURN_BLOOMFILTER_P(f);
}

Datum
bloomfilter_send(PG_FUNCTION_ARGS)
{
	BloomView	v;
	StringInfoData buf;
	size_t		nbytes;

	bf_view_datum(PG_GETARG_DATUM(0), &v);
	nbytes = ((size_t) v.p.m + 7) / 8;
	bf_begintypsend_exact(&buf, BF_HEADER_BYTES + nbytes, "bloomfilter binary output");
	pq_sendbyte(&buf, BS_SCHEME_VERSION);
	pq_sendbyte(&buf, v.p.hash);
	pq_sendbyte(&buf, v.p.k);
	pq_sendbyte(&buf, BF_FLAGS_NONE);
	pq_sendint32(&buf, (uint32) v.p.seed);
	pq_sendint32(&buf, v.p.m);
	bf_copy_interruptible(buf.data + buf.len, v.bits, nbytes);
	buf.len += (int) nbytes;
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* ---- typmod ----------------------------------------------------------- */

/*
 * bf_typmod_in: the typmod of type(m, k) from its modifiers ta, for the
 * types whose typmod is (m, k) (bloomfilter, countingbloom)
 */
int32
bf_typmod_in(ArrayType *ta, const char *type)
{
	int32	   *tl;
	int			n;

	tl = ArrayGetIntegerTypmods(ta, &n);
	if (n != 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("type modifier of %s must be (m, k), got %d value%s",
						type, n, n == 1 ? "" : "s")));
	if (tl[0] < BS_MIN_M || tl[0] > TYPMOD_MAX_M)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s(m, k) type modifier m = %d is out of range", type, tl[0]),
				 errdetail("A typmod holds m between %d and %d; use an unconstrained %s column for larger filters.",
						   BS_MIN_M, TYPMOD_MAX_M, type)));
	if (tl[1] < BS_MIN_K || tl[1] > BS_MAX_K)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s(m, k) type modifier k = %d is out of range", type, tl[1]),
				 errdetail("k must be between %d and %d.", BS_MIN_K, BS_MAX_K)));
	return ((tl[1] - 1) << TYPMOD_M_BITS) | tl[0];
}

/* bf_typmod_out: the "(m,k)" of a typmod made by bf_typmod_in ("" if none) */
char *
bf_typmod_out(int32 typmod)
{
	if (typmod < 0)
		return pstrdup("");
	return psprintf("(%u,%d)", TYPMOD_M(typmod), TYPMOD_K(typmod));
}

Datum
bloomfilter_typmod_in(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(bf_typmod_in(PG_GETARG_ARRAYTYPE_P(0), "bloomfilter"));
}

Datum
bloomfilter_typmod_out(PG_FUNCTION_ARGS)
{
	PG_RETURN_CSTRING(bf_typmod_out(PG_GETARG_INT32(0)));
}

/* the length-coercion cast bloomfilter -> bloomfilter(m, k) */
Datum
bloomfilter_enforce_typmod(PG_FUNCTION_ARGS)
{
	Datum		d = PG_GETARG_DATUM(0);
	BloomView	v;

	bf_view_datum_stored(d, &v);
	bf_enforce_typmod(&v.p, PG_GETARG_INT32(1), "bloomfilter");
	PG_RETURN_DATUM(d);
}
