/*
 * cuckoofilter_io.c
 *    The cuckoofilter datum (allocation, views, sizing from capacity and
 *    false-positive rate) and its text and binary forms.
 *
 * Text form (one line, fixed field order, round-trips exactly):
 *
 *    buckets=<n>,fp_bits=<f>,seed=<int32>,v=<1|2>:<hex>
 *
 * where v=1 is the power-of-two layout (n a power of two) and v=2 the any-n
 * layout (src/core/cuckoo.h), and <hex> is the fingerprint table, exactly
 * ceil(n * 4 * f / 8) bytes, two hex digits each (slot s of bucket i at bit
 * (4 i + s) f, least significant bit first); bits beyond the table are zero.
 * Binary form: version u8, fp_bits u8, bucket slots u8 (4), log2 buckets u8
 * (0 in version 2), seed int32, [version 2: n u32] (network order), then the
 * same bytes.  Both inputs validate every field and the payload's length
 * (bf_input_check) before allocating anything, and count the stored
 * fingerprints.  Any arrangement of fingerprints is a valid filter: each
 * slot's bucket is one of its fingerprint's two buckets by definition (i and
 * its alternate).
 */
#include "postgres.h"

#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "bloomfilter.h"
#include "cuckoofilter.h"
#include "filter_text.h"

PG_FUNCTION_INFO_V1(cuckoofilter_in);
PG_FUNCTION_INFO_V1(cuckoofilter_out);
PG_FUNCTION_INFO_V1(cuckoofilter_recv);
PG_FUNCTION_INFO_V1(cuckoofilter_send);

#define CUCKOO_TEXT_FORMAT "buckets=<n>,fp_bits=<4..32>,seed=<int>,v=2:<hex of ceil(buckets*4*fp_bits/8) bytes> (v=1: buckets a power of two)."

/* ---- the datum -------------------------------------------------------- */

/*
 * a cuckoo filter of validated parameters, its table zeroed when `zero`
 * (interruptibly), within bloomsample.max_value_memory
 */
static CuckooFilter *
alloc_filter(const CkParams *p, bool zero)
{
	Size		size = CUCKOO_VARSIZE(p);
	CuckooFilter *cf = (CuckooFilter *) bf_palloc_value(size, zero, "a cuckoofilter value");

	memset(cf, 0, VARHDRSZ + cuckoo_header_bytes(p));
	SET_VARSIZE(cf, size);
	cf->version = ck_pow2_layout(p) ? CUCKOO_VERSION_POW2 : CUCKOO_VERSION_ANYN;
	cf->fp_bits = p->fp_bits;
	cf->bucket_slots = CK_SLOTS;
	cf->log2_buckets = p->log2_buckets;
	cf->seed = p->seed;
	cf->count = 0;
	if (!ck_pow2_layout(p))
		memcpy(cf->table, &p->buckets, sizeof(uint32));
	return cf;
}

/* cuckoo_alloc: an empty cuckoo filter with validated parameters */
CuckooFilter *
cuckoo_alloc(const CkParams *p)
{
	return alloc_filter(p, true);
}

/* cuckoo_copy_view: a freshly allocated cuckoo filter equal to the viewed one */
CuckooFilter *
cuckoo_copy_view(const CuckooView *v)
{
	CuckooFilter *cf = alloc_filter(&v->p, false);

	bf_copy_interruptible(cuckoo_table_ptr(cf), v->table, ck_table_bytes(&v->p));
	cf->count = v->count;
	return cf;
}

/* cuckoo_table: a CkTable over the filter's own table (updates go in place) */
void
cuckoo_table(CuckooFilter *cf, CkTable *t)
{
	CkParams	p;

	p.fp_bits = cf->fp_bits;
	p.log2_buckets = cf->log2_buckets;
	p.seed = cf->seed;
	p.buckets = 0;
	if (cf->version == CUCKOO_VERSION_ANYN)
		memcpy(&p.buckets, cf->table, sizeof(uint32));
	ck_table_init(t, &p, cuckoo_table_ptr(cf), cf->count);
}

/*
 * cuckoo_view: parse the header of a cuckoofilter varlena (any header form),
 * checking it is consistent (a failure means corruption or a newer format).
 */
void
cuckoo_view(struct varlena *value, CuckooView *v)
{
	const uint8 *d = (const uint8 *) VARDATA_ANY(value);
	Size		len = VARSIZE_ANY_EXHDR(value);
	uint32		count;
	int32		seed;
	uint32		buckets = 0;

	if (len < CUCKOO_HEADER_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("cuckoofilter value is too short (%zu bytes)", len)));
	if (d[0] != CUCKOO_VERSION_POW2 && d[0] != CUCKOO_VERSION_ANYN)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cuckoofilter format version %d is not supported", d[0]),
				 errdetail("This build of bloomsample reads versions %d and %d.",
						   CUCKOO_VERSION_POW2, CUCKOO_VERSION_ANYN)));
	if (d[0] == CUCKOO_VERSION_ANYN)
	{
		if (len < CUCKOO_HEADER_BYTES + sizeof(uint32))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("cuckoofilter value is too short (%zu bytes)", len)));
		memcpy(&buckets, d + CUCKOO_HEADER_BYTES, sizeof(buckets));
	}
	memcpy(&seed, d + 4, sizeof(seed));
	memcpy(&count, d + 8, sizeof(count));
	v->p.fp_bits = d[1];
	v->p.log2_buckets = d[3];
	v->p.seed = seed;
	v->p.buckets = buckets;
	/* a version 2 value with buckets 0 would read as version 1: refused */
	if (d[2] != CK_SLOTS || (d[0] == CUCKOO_VERSION_ANYN) != !ck_pow2_layout(&v->p) ||
		!ck_params_valid(&v->p) ||
		len != cuckoo_header_bytes(&v->p) + ck_table_bytes(&v->p) ||
		count > ck_buckets(&v->p) * CK_SLOTS)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("cuckoofilter value is corrupted"),
				 errdetail("Header says version %d, fp_bits=%d, %d slots, 2^%d or %u buckets, %u items for a %zu-byte payload.",
						   d[0], d[1], d[2], d[3], buckets, count, len)));
	v->count = count;
	v->table = d + cuckoo_header_bytes(&v->p);
}

/* cuckoo_view_datum: detoast (without copying short-header values) and view */
void
cuckoo_view_datum(Datum d, CuckooView *v)
{
	cuckoo_view(PG_DETOAST_DATUM_PACKED(d), v);
}

/*
 * cuckoo_make_params: the parameters for capacity items at fp_rate (cuckoo.h's
 * formulas); every invalid argument is ERRCODE_INVALID_PARAMETER_VALUE (a
 * table too large: ERRCODE_PROGRAM_LIMIT_EXCEEDED)
 */
CkParams
cuckoo_make_params(int64 capacity, double fp_rate, int64 seed)
{
	CkParams	p;

	if (seed < PG_INT32_MIN || seed > PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cuckoofilter seed " INT64_FORMAT " is out of range", seed)));
	switch (ck_params_for(capacity, fp_rate, (int32) seed, &p))
	{
		case CK_SIZE_OK:
			break;
		case CK_SIZE_BAD_CAPACITY:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cuckoofilter capacity " INT64_FORMAT " is out of range", capacity),
					 errdetail("The capacity must be at least 1.")));
			break;
		case CK_SIZE_BAD_FP_RATE:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cuckoofilter false-positive rate %g is out of range", fp_rate),
					 errdetail("The rate must be in (0, 1) and at least 8 / 2^32 (fingerprints have at most %d bits).",
							   CK_MAX_FP_BITS)));
			break;
		case CK_SIZE_TOO_LARGE:
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("a cuckoofilter for " INT64_FORMAT " items at rate %g is too large",
							capacity, fp_rate),
					 errdetail("The fingerprint table is limited to 2^31 bits (256 MB) and 2^%d buckets.",
							   CK_MAX_LOG2_BUCKETS)));
			break;
	}
	return p;
}

/* cuckoo_params_string: "(buckets=.., fp_bits=.., seed=..)" for messages */
char *
cuckoo_params_string(const CkParams *p)
{
	return psprintf("(buckets=" UINT64_FORMAT ", fp_bits=%d, seed=%d)",
					(uint64) ck_buckets(p), p->fp_bits, p->seed);
}

/*
 * cuckoo_report_full: the error of an insertion that found no slot after
 * CK_MAX_KICKS evictions (54000, with the way out)
 */
void
cuckoo_report_full(const CkTable *t, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("%s: the cuckoofilter is full", what),
			 errdetail("It holds " UINT64_FORMAT " items in " UINT64_FORMAT " slots (load %.3f); no free slot was found after %d evictions.",
					   (uint64) t->count, (uint64) ck_buckets(&t->p) * CK_SLOTS, ck_load(t),
					   CK_MAX_KICKS),
			 errhint("Rebuild the filter with a larger capacity (cuckoo_empty or cuckoo_agg), or remove items first.")));
}

/* ---- text form -------------------------------------------------------- */

/*
 * validated parameters from the header fields of either form: version 1
 * (buckets a power of two) or 2 (any count)
 */
static CkParams
params_from_fields(int version, uint64 buckets, int fp_bits, int32 seed,
				   void (*fail) (const char *, const void *), const void *arg)
{
	CkParams	p;
	int			lb = 0;

	if (buckets < CK_MIN_BUCKETS || buckets > CK_MAX_BUCKETS)
		fail(psprintf("buckets = " UINT64_FORMAT " is out of range [%d, 2^%d].",
					  buckets, (int) CK_MIN_BUCKETS, CK_MAX_LOG2_BUCKETS), arg);
	while ((UINT64_C(1) << lb) < buckets)
		lb++;
	if (version == CUCKOO_VERSION_POW2 && (UINT64_C(1) << lb) != buckets)
		fail(psprintf("buckets = " UINT64_FORMAT " is not a power of two (version 1).",
					  buckets), arg);
	if (fp_bits < CK_MIN_FP_BITS || fp_bits > CK_MAX_FP_BITS)
		fail(psprintf("fp_bits = %d is out of range [%d, %d].", fp_bits, CK_MIN_FP_BITS,
					  CK_MAX_FP_BITS), arg);
	p.fp_bits = (uint8) fp_bits;
	p.log2_buckets = version == CUCKOO_VERSION_POW2 ? (uint8) lb : 0;
	p.buckets = version == CUCKOO_VERSION_POW2 ? 0 : (uint32) buckets;
	p.seed = seed;
	if (!ck_params_valid(&p))
		fail("The fingerprint table would exceed 2^31 bits.", arg);
	return p;
}

static void
text_fail(const char *detail, const void *arg)
{
	ft_syntax_error((const FtInput *) arg, detail);
}

/*
 * a filter of parameters p from the payload's exact bytes (a NULL bytes: the
 * caller fills them in before counting, see cuckoofilter_in); bad: raises
 */
static CuckooFilter *
new_from_payload(const CkParams *p)
{
	CuckooFilter *cf = alloc_filter(p, false);
	uint8	   *table = cuckoo_table_ptr(cf);
	size_t		payload = ck_payload_bytes(p);

	/* the padding (at most 15 bytes), which the payload does not cover */
	memset(table + payload, 0, ck_table_bytes(p) - payload);
	return cf;
}

/* count a filled-in filter's fingerprints and check its padding; bad: raises */
static CuckooFilter *
finish_payload(CuckooFilter *cf, const CkParams *p, void (*fail) (const char *, const void *),
			   const void *arg)
{
	uint8	   *table = cuckoo_table_ptr(cf);

	if (!ck_tail_is_clear(p, table))
		fail("Bits beyond the fingerprint table are set.", arg);
	cf->count = 0;
	for (uint64 b = 0; b < ck_buckets(p); b += CUCKOO_CHUNK_BUCKETS)
	{
		CHECK_FOR_INTERRUPTS();
		cf->count += (uint32) ck_count_items_buckets(p, table, b, CUCKOO_CHUNK_BUCKETS);
	}
	return cf;
}

Datum
cuckoofilter_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	FtInput		in = {str, "cuckoofilter", CUCKOO_TEXT_FORMAT};
	const char *p = ft_skip_space(str);
	int64		buckets;
	int			fp_bits;
	int32		seed;
	int64		version;
	CkParams	params;
	size_t		nbytes,
				hexlen;
	uint8	   *bytes;
	CuckooFilter *cf;

	buckets = ft_parse_field(&in, &p, "buckets", ',', 1, INT64CONST(1) << 40);
	fp_bits = (int) ft_parse_field(&in, &p, "fp_bits", ',', 0, 255);
	seed = (int32) ft_parse_field(&in, &p, "seed", ',', PG_INT32_MIN, PG_INT32_MAX);
	version = ft_parse_field(&in, &p, "v", ':', 0, 255);
	if (version != CUCKOO_VERSION_POW2 && version != CUCKOO_VERSION_ANYN)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cuckoofilter format version in \"%s\" is not supported", ft_shown(str)),
				 errdetail("This build of bloomsample reads versions %d and %d.",
						   CUCKOO_VERSION_POW2, CUCKOO_VERSION_ANYN)));
	params = params_from_fields((int) version, (uint64) buckets, fp_bits, seed, text_fail, &in);
	nbytes = ck_payload_bytes(&params);
	hexlen = bf_hex_span(p);
	if (hexlen != 2 * nbytes)
		ft_syntax_error(&in, psprintf("Expected %zu hex digits for " INT64_FORMAT " buckets of %d-bit fingerprints, found %zu.",
									  2 * nbytes, buckets, fp_bits, hexlen));
	ft_expect_end(&in, p + hexlen);
	bf_input_check("cuckoofilter input", 2 * (uint64) nbytes, hexlen, true,
				   CUCKOO_VARSIZE(&params), ERRCODE_INVALID_TEXT_REPRESENTATION);
	/* decoded straight into the value: no second copy */
	cf = new_from_payload(&params);
	bytes = cuckoo_table_ptr(cf);
	for (size_t i = 0; i < nbytes; i++)
	{
		if ((i & 0xFFFFF) == 0xFFFFF)
			CHECK_FOR_INTERRUPTS();
		bytes[i] = (uint8) (bs_hex_digit(p[2 * i]) << 4 | bs_hex_digit(p[2 * i + 1]));
	}
	PG_RETURN_POINTER(finish_payload(cf, &params, text_fail, &in));
}

Datum
cuckoofilter_out(PG_FUNCTION_ARGS)
{
	static const char hex[] = "0123456789abcdef";
	CuckooView	v;
	char		head[128];
	int			hlen;
	size_t		nbytes;
	char	   *out,
			   *o;

	cuckoo_view_datum(PG_GETARG_DATUM(0), &v);
	nbytes = ck_payload_bytes(&v.p);
	hlen = snprintf(head, sizeof(head), "buckets=" UINT64_FORMAT ",fp_bits=%d,seed=%d,v=%d:",
					(uint64) ck_buckets(&v.p), v.p.fp_bits, v.p.seed,
					ck_pow2_layout(&v.p) ? CUCKOO_VERSION_POW2 : CUCKOO_VERSION_ANYN);
	out = bf_palloc_value(hlen + 2 * (uint64) nbytes + 1, false, "cuckoofilter output");
	memcpy(out, head, hlen);
	o = out + hlen;
	for (size_t i = 0; i < nbytes; i++)
	{
		if ((i & 0xFFFFF) == 0xFFFFF)
			CHECK_FOR_INTERRUPTS();
		*o++ = hex[v.table[i] >> 4];
		*o++ = hex[v.table[i] & 15];
	}
	*o = '\0';
	PG_RETURN_CSTRING(out);
}

/* ---- binary form ------------------------------------------------------ */

/* the binary form's error, as params_from_fields's error callback */
static void
binary_fail(const char *detail, const void *arg)
{
	bf_binary_error("cuckoofilter", detail);
}

Datum
cuckoofilter_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int			version,
				fp_bits,
				slots,
				log2_buckets;
	int32		seed;
	uint64		buckets;
	CkParams	params;
	size_t		nbytes;
	CuckooFilter *cf;

	if (buf->len - buf->cursor < 8)
		binary_fail(psprintf("The value has %d bytes, a header needs 8.",
							 buf->len - buf->cursor), NULL);
	version = pq_getmsgbyte(buf);
	fp_bits = pq_getmsgbyte(buf);
	slots = pq_getmsgbyte(buf);
	log2_buckets = pq_getmsgbyte(buf);
	seed = (int32) pq_getmsgint(buf, 4);
	if (version != CUCKOO_VERSION_POW2 && version != CUCKOO_VERSION_ANYN)
		binary_fail(psprintf("Format version %d is not supported (expected %d or %d).",
							 version, CUCKOO_VERSION_POW2, CUCKOO_VERSION_ANYN), NULL);
	if (slots != CK_SLOTS)
		binary_fail(psprintf("Buckets of %d slots are not supported (expected %d).",
							 slots, CK_SLOTS), NULL);
	if (version == CUCKOO_VERSION_POW2)
	{
		if (log2_buckets > CK_MAX_LOG2_BUCKETS)
			binary_fail(psprintf("log2 of the bucket count %d is out of range [%d, %d].",
								 log2_buckets, CK_MIN_LOG2_BUCKETS, CK_MAX_LOG2_BUCKETS), NULL);
		buckets = UINT64_C(1) << log2_buckets;
	}
	else
	{
		if (log2_buckets != 0)
			binary_fail(psprintf("The log2 byte is %d, expected 0 in version 2.", log2_buckets), NULL);
		if (buf->len - buf->cursor < 4)
			binary_fail("The bucket count is truncated.", NULL);
		buckets = (uint32) pq_getmsgint(buf, 4);
	}
	params = params_from_fields(version, buckets, fp_bits, seed, binary_fail, NULL);
	nbytes = ck_payload_bytes(&params);
	if ((size_t) (buf->len - buf->cursor) != nbytes)
		binary_fail(psprintf("Expected %zu payload bytes, found %d.",
							 nbytes, buf->len - buf->cursor), NULL);
	bf_input_check("cuckoofilter binary input", nbytes, (uint64) (buf->len - buf->cursor), true,
				   CUCKOO_VARSIZE(&params), ERRCODE_INVALID_BINARY_REPRESENTATION);
	cf = new_from_payload(&params);
	bf_copy_interruptible(cuckoo_table_ptr(cf), pq_getmsgbytes(buf, (int) nbytes), nbytes);
	PG_RETURN_POINTER(finish_payload(cf, &params, binary_fail, NULL));
}

Datum
cuckoofilter_send(PG_FUNCTION_ARGS)
{
	CuckooView	v;
	StringInfoData buf;
	size_t		nbytes;
	bool		anyn;

	cuckoo_view_datum(PG_GETARG_DATUM(0), &v);
	nbytes = ck_payload_bytes(&v.p);
	anyn = !ck_pow2_layout(&v.p);
	bf_begintypsend_exact(&buf, 8 + (anyn ? 4 : 0) + nbytes, "cuckoofilter binary output");
	pq_sendbyte(&buf, anyn ? CUCKOO_VERSION_ANYN : CUCKOO_VERSION_POW2);
	pq_sendbyte(&buf, v.p.fp_bits);
	pq_sendbyte(&buf, CK_SLOTS);
	pq_sendbyte(&buf, v.p.log2_buckets);
	pq_sendint32(&buf, (uint32) v.p.seed);
	if (anyn)
		pq_sendint32(&buf, v.p.buckets);
	bf_copy_interruptible(buf.data + buf.len, v.table, nbytes);
	buf.len += (int) nbytes;
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}
