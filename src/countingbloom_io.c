/*
 * countingbloom_io.c
 *    The countingbloom datum (allocation, views, parameters), its text and
 *    binary forms, and its typmod.
 *
 * Text form (one line, fixed field order, round-trips exactly):
 *
 *    m=<counters>,k=<hashes>,seed=<int32>,hash=<xxh3|linear>,v=<scheme>:<hex>
 *
 * where <hex> is exactly m hex digits, digit i being counter i (0-f; f is a
 * saturated counter).  Binary form: version u8, hash u8, k u8, flags u8,
 * seed int32, m uint32 (network order), then ceil(m/2) bytes, counter 2j in
 * the low and counter 2j+1 in the high nibble of byte j (a high nibble beyond
 * m zero).  Both inputs validate every field and check the payload's length
 * and the memory limit (bf_input_check) before allocating anything.  Typmod countingbloom(m, k) is encoded as
 * bloomfilter(m, k)'s (bloomfilter.h).
 */
#include "postgres.h"

#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "bloomfilter.h"
#include "countingbloom.h"
#include "filter_text.h"

PG_FUNCTION_INFO_V1(countingbloom_in);
PG_FUNCTION_INFO_V1(countingbloom_out);
PG_FUNCTION_INFO_V1(countingbloom_recv);
PG_FUNCTION_INFO_V1(countingbloom_send);
PG_FUNCTION_INFO_V1(countingbloom_typmod_in);
PG_FUNCTION_INFO_V1(countingbloom_typmod_out);
PG_FUNCTION_INFO_V1(countingbloom_enforce_typmod);

#define CBLOOM_TEXT_FORMAT "m=<counters>,k=<hashes>,seed=<int>,hash=<xxh3|linear>,v=1:<one hex digit per counter>."

/* ---- the datum -------------------------------------------------------- */

/*
 * a counting filter with validated parameters p, its counters zeroed when
 * `zero` (interruptibly), within bloomsample.max_value_memory
 */
static CountingBloom *
alloc_counting(const BsParams *p, bool zero)
{
	Size		size = CBLOOM_VARSIZE(p->m);
	CountingBloom *cb = (CountingBloom *) bf_palloc_value(size, zero, "a countingbloom value");

	SET_VARSIZE(cb, size);
	cb->version = BS_SCHEME_VERSION;
	cb->hash = p->hash;
	cb->k = p->k;
	cb->flags = 0;
	cb->seed = p->seed;
	cb->m = p->m;
	return cb;
}

/* cbloom_alloc: a zeroed counting filter with validated parameters p */
CountingBloom *
cbloom_alloc(const BsParams *p)
{
	return alloc_counting(p, true);
}

/* cbloom_copy_view: a freshly allocated counting filter equal to the viewed one */
CountingBloom *
cbloom_copy_view(const CbloomView *v)
{
	CountingBloom *cb = alloc_counting(&v->p, false);

	cb->flags = v->elemflags;
	bf_copy_interruptible(cb->counters, v->counters, CB_NBYTES(v->p.m));
	return cb;
}

/*
 * cbloom_view: parse the header of a countingbloom varlena (any header form),
 * checking it is consistent (a failure means corruption or a newer scheme).
 */
void
cbloom_view(struct varlena *value, CbloomView *v)
{
	const uint8 *d = (const uint8 *) VARDATA_ANY(value);
	Size		len = VARSIZE_ANY_EXHDR(value);
	uint32		m;
	int32		seed;

	if (len < CBLOOM_HEADER_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("countingbloom value is too short (%zu bytes)", len)));
	if (d[0] != BS_SCHEME_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("countingbloom hashing scheme version %d is not supported", d[0]),
				 errdetail("This build of bloomsample reads scheme version %d.",
						   BS_SCHEME_VERSION)));
	memcpy(&seed, d + 4, sizeof(seed));
	memcpy(&m, d + 8, sizeof(m));
	if (d[1] >= BS_NUM_HASH_FAMILIES || d[2] < BS_MIN_K || d[2] > BS_MAX_K ||
		m < BS_MIN_M || m > CB_MAX_M || len != CBLOOM_HEADER_BYTES + CB_NBYTES(m))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("countingbloom value is corrupted"),
				 errdetail("Header says hash=%d, k=%d, m=%u for a %zu-byte payload.",
						   d[1], d[2], m, len)));
	if (!bf_flags_valid(d[3]) || (d[3] & BF_FLAG_SPARSE))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("countingbloom value is corrupted"),
				 errdetail("The flags byte is %d (bit 1 element types recorded, bits 2-4 the types).",
						   d[3])));
	v->elemflags = d[3] & BF_FLAGS_ELEMS;
	v->elems = bf_flags_elems(d[3]);
	v->p.m = m;
	v->p.k = d[2];
	v->p.hash = d[1];
	v->p.seed = seed;
	v->counters = d + CBLOOM_HEADER_BYTES;
}

/* cbloom_view_datum: detoast (without copying short-header values) and view */
void
cbloom_view_datum(Datum d, CbloomView *v)
{
	cbloom_view(PG_DETOAST_DATUM_PACKED(d), v);
}

/*
 * cbloom_make_params: bloomfilter's parameter validation (bf_make_params) and
 * m <= CB_MAX_M counters
 */
BsParams
cbloom_make_params(int64 m, int64 k, int64 seed, const char *hash)
{
	if (m > (int64) CB_MAX_M)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("countingbloom size m = " INT64_FORMAT " is out of range", m),
				 errdetail("m must be between %d and %u counters.", BS_MIN_M, CB_MAX_M)));
	return bf_make_params(m, k, seed, hash);
}

/* cbloom_check_compatible: error unless a and b have equal m, k, seed and family */
void
cbloom_check_compatible(const BsParams *a, const BsParams *b, const char *what)
{
	if (!bs_params_equal(a, b))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: countingbloom filters are incompatible", what),
				 errdetail("Left is %s, right is %s.",
						   bf_params_string(a), bf_params_string(b)),
				 errhint("Counting filters combine only when m, k, seed and hash family are all equal.")));
}

/* ---- text form -------------------------------------------------------- */

Datum
countingbloom_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	int32		typmod = PG_NARGS() > 2 ? PG_GETARG_INT32(2) : -1;
	FtInput		in = {str, "countingbloom", CBLOOM_TEXT_FORMAT};
	const char *p = ft_skip_space(str);
	const char *hname;
	BsParams	params;
	int			family = -1;
	size_t		hexlen;
	CountingBloom *cb;

	params.m = (uint32) ft_parse_field(&in, &p, "m", ',', BS_MIN_M, CB_MAX_M);
	params.k = (uint8) ft_parse_field(&in, &p, "k", ',', BS_MIN_K, BS_MAX_K);
	params.seed = (int32) ft_parse_field(&in, &p, "seed", ',', PG_INT32_MIN, PG_INT32_MAX);
	if (strncmp(p, "hash=", 5) != 0)
		ft_syntax_error(&in, psprintf("Expected \"hash=\" at position %d.", (int) (p - str) + 1));
	p += 5;
	hname = p;
	p += strcspn(p, ",");
	for (int i = 0; i < BS_NUM_HASH_FAMILIES; i++)
	{
		const char *name = bs_hash_family_name(i);

		if ((size_t) (p - hname) == strlen(name) && strncmp(hname, name, p - hname) == 0)
			family = i;
	}
	if (family < 0)
		ft_syntax_error(&in, psprintf("Unknown hash family \"%.*s\" (use xxh3 or linear).",
									  (int) Min(p - hname, 32), hname));
	params.hash = (uint8) family;
	if (*p++ != ',')
		ft_syntax_error(&in, "Expected \",\" after the hash family.");
	if (ft_parse_field(&in, &p, "v", ':', 0, 255) != BS_SCHEME_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("countingbloom hashing scheme version in \"%s\" is not supported",
						ft_shown(str)),
				 errdetail("This build of bloomsample reads scheme version %d.", BS_SCHEME_VERSION)));
	hexlen = bf_hex_span(p);
	if (hexlen != params.m)
		ft_syntax_error(&in, psprintf("Expected %u hex digits (one per counter), found %zu.",
									  params.m, hexlen));
	ft_expect_end(&in, p + hexlen);
	bf_input_check("countingbloom input", params.m, hexlen, true, CBLOOM_VARSIZE(params.m),
				   ERRCODE_INVALID_TEXT_REPRESENTATION);

	cb = cbloom_alloc(&params);
	for (uint32 i = 0; i < params.m; i++)
	{
		if ((i & 0xFFFFF) == 0xFFFFF)
			CHECK_FOR_INTERRUPTS();
		cb_put(cb->counters, i, (unsigned) bs_hex_digit(p[i]));
	}
	bf_enforce_typmod(&params, typmod, "countingbloom");
	PG_RETURN_POINTER(cb);
}

Datum
countingbloom_out(PG_FUNCTION_ARGS)
{
	static const char hex[] = "0123456789abcdef";
	CbloomView	v;
	char		head[96];
	int			hlen;
	char	   *out;

	cbloom_view_datum(PG_GETARG_DATUM(0), &v);
	hlen = snprintf(head, sizeof(head), "m=%u,k=%d,seed=%d,hash=%s,v=%d:", v.p.m, v.p.k,
					v.p.seed, bs_hash_family_name(v.p.hash), BS_SCHEME_VERSION);
	out = bf_palloc_value(hlen + (uint64) v.p.m + 1, false, "countingbloom output");
	memcpy(out, head, hlen);
	for (uint32 i = 0; i < v.p.m; i++)
	{
		if ((i & 0xFFFFF) == 0xFFFFF)
			CHECK_FOR_INTERRUPTS();
		out[hlen + i] = hex[cb_get(v.counters, i)];
	}
	out[hlen + v.p.m] = '\0';
	PG_RETURN_CSTRING(out);
}

/* ---- binary form ------------------------------------------------------ */

Datum
countingbloom_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int32		typmod = PG_NARGS() > 2 ? PG_GETARG_INT32(2) : -1;
	size_t		nbytes;
	BsParams	params;
	CountingBloom *cb;
	uint32		m;

	bf_recv_header(buf, "countingbloom", CBLOOM_HEADER_BYTES, &params);
	m = params.m;
	if (m < BS_MIN_M || m > CB_MAX_M)
		bf_binary_error("countingbloom", psprintf("m = %u is out of range [%d, %u].", m, BS_MIN_M, CB_MAX_M));
	nbytes = ((size_t) m + 1) / 2;
	if ((size_t) (buf->len - buf->cursor) != nbytes)
		bf_binary_error("countingbloom", psprintf("Expected %zu payload bytes for m = %u counters, found %d.",
							  nbytes, m, buf->len - buf->cursor));
	bf_input_check("countingbloom binary input", nbytes, (uint64) (buf->len - buf->cursor), true,
				   CBLOOM_VARSIZE(m), ERRCODE_INVALID_BINARY_REPRESENTATION);
	cb = cbloom_alloc(&params);
	bf_copy_interruptible(cb->counters, pq_getmsgbytes(buf, (int) nbytes), nbytes);
	if (!cb_tail_is_clear(cb->counters, m))
		bf_binary_error("countingbloom", psprintf("The counter after the last one (m = %u) is not zero.", m));
	bf_enforce_typmod(&params, typmod, "countingbloom");
	PG_RETURN_POINTER(cb);
}

Datum
countingbloom_send(PG_FUNCTION_ARGS)
{
	CbloomView	v;
	StringInfoData buf;

	size_t		nbytes;

	cbloom_view_datum(PG_GETARG_DATUM(0), &v);
	nbytes = ((size_t) v.p.m + 1) / 2;
	bf_begintypsend_exact(&buf, CBLOOM_HEADER_BYTES + nbytes, "countingbloom binary output");
	pq_sendbyte(&buf, BS_SCHEME_VERSION);
	pq_sendbyte(&buf, v.p.hash);
	pq_sendbyte(&buf, v.p.k);
	pq_sendbyte(&buf, 0);
	pq_sendint32(&buf, (uint32) v.p.seed);
	pq_sendint32(&buf, v.p.m);
	bf_copy_interruptible(buf.data + buf.len, v.counters, nbytes);
	buf.len += (int) nbytes;
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* ---- typmod ----------------------------------------------------------- */

Datum
countingbloom_typmod_in(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(bf_typmod_in(PG_GETARG_ARRAYTYPE_P(0), "countingbloom"));
}

Datum
countingbloom_typmod_out(PG_FUNCTION_ARGS)
{
	PG_RETURN_CSTRING(bf_typmod_out(PG_GETARG_INT32(0)));
}

/* the length-coercion cast countingbloom -> countingbloom(m, k) */
Datum
countingbloom_enforce_typmod(PG_FUNCTION_ARGS)
{
	Datum		d = PG_GETARG_DATUM(0);
	CbloomView	v;

	cbloom_view_datum(d, &v);
	bf_enforce_typmod(&v.p, PG_GETARG_INT32(1), "countingbloom");
	PG_RETURN_DATUM(d);
}
