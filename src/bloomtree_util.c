/*
 * bloomtree_util.c
 *    Parameter validation, reading (viewing, lazily decoding) and writing
 *    (encoding) stored bloomtree values; shared by every bloomtree_*.c.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "bloomtree.h"

static void
interrupt_hook(void)
{
	CHECK_FOR_INTERRUPTS();
}

/* bloomtree_set_interrupt_hook: let the core's long loops be cancelled */
void
bloomtree_set_interrupt_hook(void)
{
	bltree_interrupt_hook = interrupt_hook;
}

/* ---- parameters ------------------------------------------------------- */

/* "{a,b,c}" */
static void
append_list(StringInfo buf, const uint32 *vals8, const uint8 *vals, int d)
{
	appendStringInfoChar(buf, '{');
	for (int a = 0; a < d; a++)
		appendStringInfo(buf, a ? ",%u" : "%u", vals8 ? vals8[a] : (uint32) vals[a]);
	appendStringInfoChar(buf, '}');
}

/* bloomtree_params_string: "(m={..}, k={..}, seed=..)" for messages */
char *
bloomtree_params_string(const BlTreeParams *p)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoString(&buf, "(m=");
	append_list(&buf, p->m, NULL, p->d);
	appendStringInfoString(&buf, ", k=");
	append_list(&buf, NULL, p->k, p->d);
	appendStringInfo(&buf, ", seed=%d)", p->seed);
	return buf.data;
}

/*
 * bloomtree_layout_or_error: validate p into L.  Bad d, m or k raise
 * errcode_bad (naming the first offending value); parameter sets beyond the
 * storage or hashing limits raise ERRCODE_PROGRAM_LIMIT_EXCEEDED.  'what'
 * starts the message ("bloomtree_empty", "bloomtree input", ...).
 */
void
bloomtree_layout_or_error(BlTreeLayout *L, const BlTreeParams *p, int errcode_bad,
						  const char *what)
{
	BlTreeParamError e = bltree_layout_init(L, p);

	switch (e)
	{
		case BLTREE_OK:
			return;
		case BLTREE_ERR_D:
			ereport(ERROR,
					(errcode(errcode_bad),
					 errmsg("%s: a bloomtree has 1 to %d levels, not %d", what, BLTREE_MAX_D, p->d)));
			break;
		case BLTREE_ERR_M:
			for (int a = 0; a < p->d; a++)
				if (p->m[a] < BLTREE_MIN_M || p->m[a] > BLTREE_MAX_M)
					ereport(ERROR,
							(errcode(errcode_bad),
							 errmsg("%s: bloomtree filter size m[%d] = %u is out of range",
									what, a + 1, p->m[a]),
							 errdetail("Every m must be between %d and %u bits.",
									   BLTREE_MIN_M, BLTREE_MAX_M)));
			break;
		case BLTREE_ERR_K:
			for (int a = 0; a < p->d; a++)
				if (p->k[a] < BLTREE_MIN_K || p->k[a] > BLTREE_MAX_K)
					ereport(ERROR,
							(errcode(errcode_bad),
							 errmsg("%s: bloomtree hash count k[%d] = %d is out of range",
									what, a + 1, p->k[a]),
							 errdetail("Every k must be between %d and %d.",
									   BLTREE_MIN_K, BLTREE_MAX_K)));
			break;
		case BLTREE_ERR_STORAGE:
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("%s: bloomtree %s needs more than %llu bits of storage",
							what, bloomtree_params_string(p),
							(unsigned long long) BLTREE_MAX_STORAGE_BITS),
					 errdetail("Storage is m[1] + m[1]*m[2] + ... bits; the limit is 2^31 bits (256 MiB)."),
					 errhint("Use smaller filters or fewer levels.")));
			break;
		case BLTREE_ERR_PROBES:
			/* recompute the count for the message (cannot overflow: k <= 32, d <= 8) */
			{
				uint64		probes = 0,
							prod = 1;

				for (int a = 0; a < p->d; a++)
				{
					prod *= p->k[a];
					probes += prod;
				}
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("%s: bloomtree %s evaluates %llu hash positions per element",
								what, bloomtree_params_string(p), (unsigned long long) probes),
						 errdetail("k[1] + k[1]*k[2] + ... must not exceed %llu.",
								   (unsigned long long) BLTREE_MAX_PROBES),
						 errhint("Use fewer hash functions in the lower levels.")));
			}
			break;
	}
	elog(ERROR, "unexpected bloomtree parameter error %d", (int) e);
}

/* the int4 elements of a 1-D array argument without NULLs, 1..8 of them */
static int
level_array(ArrayType *arr, const char *fname, const char *name, int32 *out)
{
	int			n;
	int32	   *vals;

	if (ARR_NDIM(arr) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: %s must be a one-dimensional array, not %d-dimensional",
						fname, name, ARR_NDIM(arr))));
	n = ARR_NDIM(arr) == 0 ? 0 : ARR_DIMS(arr)[0];
	if (n < 1 || n > BLTREE_MAX_D)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: %s has %d elements; a bloomtree has 1 to %d levels",
						fname, name, n, BLTREE_MAX_D),
				 errhint("Pass one value per level, e.g. m => ARRAY[1000000, 4, 3], k => ARRAY[6, 3, 2].")));
	if (array_contains_nulls(arr))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s: %s must not contain NULLs", fname, name)));
	Assert(ARR_ELEMTYPE(arr) == INT4OID);
	vals = (int32 *) ARR_DATA_PTR(arr);
	memcpy(out, vals, sizeof(int32) * n);
	return n;
}

/*
 * bloomtree_params_from_arrays: the parameters named by SQL arguments
 * m integer[], k integer[] and seed, validated (see bloomtree_layout_or_error).
 */
BlTreeParams
bloomtree_params_from_arrays(ArrayType *m, ArrayType *k, int64 seed, const char *fname)
{
	int32		mv[BLTREE_MAX_D],
				kv[BLTREE_MAX_D];
	int			dm = level_array(m, fname, "m", mv),
				dk = level_array(k, fname, "k", kv);
	BlTreeParams p;
	BlTreeLayout L;

	bloomtree_set_interrupt_hook();
	if (dm != dk)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: m has %d elements and k has %d; both need one per level",
						fname, dm, dk)));
	if (seed < PG_INT32_MIN || seed > PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: bloomtree seed " INT64_FORMAT " is out of range", fname, seed)));
	memset(&p, 0, sizeof(p));
	p.d = dm;
	p.seed = (int32) seed;
	for (int a = 0; a < dm; a++)
	{
		if (mv[a] < BLTREE_MIN_M)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: bloomtree filter size m[%d] = %d is out of range", fname, a + 1, mv[a]),
					 errdetail("Every m must be between %d and %u bits.", BLTREE_MIN_M, BLTREE_MAX_M)));
		if (kv[a] < BLTREE_MIN_K || kv[a] > BLTREE_MAX_K)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: bloomtree hash count k[%d] = %d is out of range", fname, a + 1, kv[a]),
					 errdetail("Every k must be between %d and %d.", BLTREE_MIN_K, BLTREE_MAX_K)));
		p.m[a] = (uint32) mv[a];
		p.k[a] = (uint8) kv[a];
	}
	bloomtree_layout_or_error(&L, &p, ERRCODE_INVALID_PARAMETER_VALUE, fname);
	return p;
}

/*
 * bloomtree_check_compatible: error unless a and b have the same levels,
 * m, k and seed; 'what' names the operation.
 */
void
bloomtree_check_compatible(const BlTreeParams *a, const BlTreeParams *b, const char *what)
{
	if (!bltree_params_equal(a, b))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: bloomtrees are incompatible", what),
				 errdetail("Left is %s, right is %s.",
						   bloomtree_params_string(a), bloomtree_params_string(b)),
				 errhint("Trees combine only when m, k and seed are all equal.")));
}

ArrayType *
bloomtree_int4_array(const int32 *vals, int n)
{
	Datum		d[BLTREE_MAX_D];

	for (int i = 0; i < n; i++)
		d[i] = Int32GetDatum(vals[i]);
	return construct_array(d, n, INT4OID, sizeof(int32), true, TYPALIGN_INT);
}

/* ---- reading stored values -------------------------------------------- */

static void
corrupted(const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("bloomtree value is corrupted"),
			 errdetail("%s", detail)));
}

/*
 * bloomtree_view: parse and check the header of a stored value (any varlena
 * header form).  Values enter the database only through the validating input
 * and building functions, so a failure means on-disk corruption or a value
 * of a newer format.
 */
void
bloomtree_view(struct varlena *value, BloomTreeView *v)
{
	const uint8 *d = (const uint8 *) VARDATA_ANY(value);
	Size		len = VARSIZE_ANY_EXHDR(value);
	BlTreeParams p;
	uint64		total = 0;
	const uint8 *s;

	bloomtree_set_interrupt_hook();
	if (len < BLOOMTREE_FIXED_BYTES)
		corrupted(psprintf("The value has %zu bytes, a header needs %d.", len, BLOOMTREE_FIXED_BYTES));
	if (d[0] != BLTREE_SCHEME_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("bloomtree scheme version %d is not supported", d[0]),
				 errdetail("This build of bloomsample reads scheme version %d.",
						   BLTREE_SCHEME_VERSION)));
	if (d[1] < 1 || d[1] > BLTREE_MAX_D || d[2] != BLOOMTREE_FLAGS_NONE || d[3] != 0 ||
		len < (Size) BLOOMTREE_HEADER_BYTES(d[1]))
		corrupted(psprintf("Header says d=%d, flags=%d for a %zu-byte value.", d[1], d[2], len));
	memset(&p, 0, sizeof(p));
	p.d = d[1];
	memcpy(&v->digest, d + 4, sizeof(uint64));
	memcpy(&p.seed, d + 12, sizeof(int32));
	for (int a = 0; a < p.d; a++)
	{
		const uint8 *h = d + BLOOMTREE_FIXED_BYTES + BLOOMTREE_LEVEL_BYTES * a;
		uint32		nbytes,
					ones;

		memcpy(&p.m[a], h, sizeof(uint32));
		p.k[a] = h[4];
		v->lc[a].mode = h[5];
		memcpy(&v->lc[a].prob0, h + 6, sizeof(uint16));
		memcpy(&ones, h + 8, sizeof(uint32));
		memcpy(&nbytes, h + 12, sizeof(uint32));
		v->lc[a].ones = ones;
		v->lc[a].nbytes = nbytes;
		v->lc[a].coded_bits = 0;
		total += nbytes;
	}
	if (bltree_layout_init(&v->L, &p) != BLTREE_OK)
		corrupted(psprintf("Header parameters %s are invalid.", bloomtree_params_string(&p)));
	if (total != len - BLOOMTREE_HEADER_BYTES(p.d))
		corrupted(psprintf("Level streams add up to %llu bytes, the value holds %zu.",
						   (unsigned long long) total, len - BLOOMTREE_HEADER_BYTES(p.d)));
	s = d + BLOOMTREE_HEADER_BYTES(p.d);
	for (int a = 0; a < p.d; a++)
	{
		if (v->lc[a].mode >= BLTREE_NUM_MODES || v->lc[a].ones > v->L.level_bits[a])
			corrupted(psprintf("Level %d has mode %d and %llu set bits of %llu.", a + 1,
							   v->lc[a].mode, (unsigned long long) v->lc[a].ones,
							   (unsigned long long) v->L.level_bits[a]));
		v->stream[a] = s;
		s += v->lc[a].nbytes;
	}
	v->size = len;
	v->coded_bytes = total;
}

/*
 * bloomtree_same_value: true when value is the tree v describes (same size
 * and digest; the digest covers the parameters, the level headers and the
 * streams); v's stream pointers are then moved into value.  Cheaper than
 * bloomtree_view: no header parsing, no layout.
 */
bool
bloomtree_same_value(struct varlena *value, BloomTreeView *v)
{
	const uint8 *d = (const uint8 *) VARDATA_ANY(value);
	uint64		digest;
	const uint8 *s;

	if (VARSIZE_ANY_EXHDR(value) != v->size)
		return false;
	memcpy(&digest, d + 4, sizeof(uint64));
	if (digest != v->digest || d[0] != BLTREE_SCHEME_VERSION || d[1] != v->L.p.d)
		return false;
	s = d + BLOOMTREE_HEADER_BYTES(v->L.p.d);
	for (int a = 0; a < v->L.p.d; a++)
	{
		v->stream[a] = s;
		s += v->lc[a].nbytes;
	}
	return true;
}

void
bloomtree_view_datum(Datum d, BloomTreeView *v)
{
	bloomtree_view(PG_DETOAST_DATUM_PACKED(d), v);
}

/* ---- memory ------------------------------------------------------------- */

/*
 * bloomtree_memory_check: error (SQLSTATE 54000, bloomsample.max_value_memory)
 * unless a call on trees of layout L may take `arrays` decoded bit arrays
 * plus, when `codes`, the buffer of one coded value.  Call it before the
 * first allocation, with everything the call will hold at once.
 */
void
bloomtree_memory_check(const BlTreeLayout *L, int arrays, bool codes, const char *what)
{
	uint64		need = (uint64) arrays * BLTREE_ARRAY_BYTES(L->storage_bits);

	if (codes)
		need += VARHDRSZ + BLOOMTREE_HEADER_BYTES(L->p.d) + bltree_max_coded_bytes(L);
	bf_value_memory_check(need, what);
}

/* ---- decoding ----------------------------------------------------------- */

static void
reader_load(BlTreeReader *r, int level)
{
	bloomtree_decode_through((BloomTreeDecoded *) r->arg, level, ERRCODE_DATA_CORRUPTED);
}

/*
 * bloomtree_decoded_init: prepare t to decode the viewed tree into an array
 * in cxt (reusing t's array when large enough); no level decoded yet.
 * t must be zeroed before its first use.
 */
void
bloomtree_decoded_init(BloomTreeDecoded *t, const BloomTreeView *v, MemoryContext cxt)
{
	Size		need = BLTREE_ARRAY_BYTES(v->L.storage_bits);

	if (t->bits == NULL || t->alloc < need || t->cxt != cxt ||
		(t->alloc > 4 * need && t->alloc > 1024 * 1024))
	{
		if (t->bits)
			pfree(t->bits);
		t->bits = NULL;
		bf_value_memory_check(need, "decoding a bloomtree");
		t->bits = MemoryContextAlloc(cxt, need);
		t->alloc = need;
		t->cxt = cxt;
	}
	/* bits outside every level (the last word's tail, the padding) stay zero */
	memset(t->bits + need - 16, 0, 16);
	t->view = *v;
	t->reader.ready = 0;
	t->reader.load = reader_load;
	t->reader.arg = t;
}

/*
 * bloomtree_decode_through: decode the levels up to `level` (0-based) that
 * are not decoded yet.  A stream that does not decode, or decodes to another
 * number of set bits than the header says, raises errcode_bad.
 */
void
bloomtree_decode_through(BloomTreeDecoded *t, int level, int errcode_bad)
{
	const BlTreeLayout *L = &t->view.L;

	for (int a = t->reader.ready; a <= level && a < L->p.d; a++)
	{
		BlTreeLevelCode lc = t->view.lc[a];
		BlTreeDecodeError e = bltree_decode_level(L, t->bits, a, &lc, t->view.stream[a]);

		if (e != BLTREE_DECODE_OK)
			ereport(ERROR,
					(errcode(errcode_bad),
					 errmsg("bloomtree level %d (mode %s, %llu bytes) does not decode",
							a + 1, bltree_mode_name(t->view.lc[a].mode),
							(unsigned long long) t->view.lc[a].nbytes),
					 errdetail("The %s.", bltree_decode_error_string(e))));
		if (errcode_bad == ERRCODE_DATA_CORRUPTED && lc.ones != t->view.lc[a].ones)
			corrupted(psprintf("Level %d decodes to %llu set bits, the header says %llu.", a + 1,
							   (unsigned long long) lc.ones,
							   (unsigned long long) t->view.lc[a].ones));
		t->view.lc[a].ones = lc.ones;
		t->view.lc[a].coded_bits = lc.coded_bits;
		t->reader.ready = a + 1;
	}
}

void
bloomtree_decode_all(BloomTreeDecoded *t, int errcode_bad)
{
	bloomtree_decode_through(t, t->view.L.p.d - 1, errcode_bad);
}

/*
 * bloomtree_decode_datum: the full bit array of a stored tree, in the current
 * memory context; its layout goes to *L.
 */
uint8 *
bloomtree_decode_datum(Datum d, BlTreeLayout *L)
{
	BloomTreeView v;
	BloomTreeDecoded t;

	bloomtree_view_datum(d, &v);
	memset(&t, 0, sizeof(t));
	bloomtree_decoded_init(&t, &v, CurrentMemoryContext);
	bloomtree_decode_all(&t, ERRCODE_DATA_CORRUPTED);
	*L = v.L;
	return t.bits;
}

/* ---- writing ------------------------------------------------------------ */

/* bloomtree_alloc_bits: a zeroed bit array for L, in the current context */
uint8 *
bloomtree_alloc_bits(const BlTreeLayout *L)
{
	return bf_palloc_value(BLTREE_ARRAY_BYTES(L->storage_bits), true, "a bloomtree bit array");
}

/* the header of a value with these level codes; digest over everything after it */
static void
write_header(uint8 *payload, const BlTreeLayout *L, const BlTreeLevelCode *lc, Size streams)
{
	uint64		digest;

	payload[0] = BLTREE_SCHEME_VERSION;
	payload[1] = (uint8) L->p.d;
	payload[2] = BLOOMTREE_FLAGS_NONE;
	payload[3] = 0;
	memcpy(payload + 12, &L->p.seed, sizeof(int32));
	for (int a = 0; a < L->p.d; a++)
	{
		uint8	   *h = payload + BLOOMTREE_FIXED_BYTES + BLOOMTREE_LEVEL_BYTES * a;
		uint32		ones = (uint32) lc[a].ones,
					nbytes = (uint32) lc[a].nbytes;

		memcpy(h, &L->p.m[a], sizeof(uint32));
		h[4] = L->p.k[a];
		h[5] = lc[a].mode;
		memcpy(h + 6, &lc[a].prob0, sizeof(uint16));
		memcpy(h + 8, &ones, sizeof(uint32));
		memcpy(h + 12, &nbytes, sizeof(uint32));
	}
	digest = bltree_digest(payload + BLOOMTREE_DIGEST_FROM,
						   BLOOMTREE_HEADER_BYTES(L->p.d) - BLOOMTREE_DIGEST_FROM + streams);
	memcpy(payload + 4, &digest, sizeof(uint64));
}

/*
 * bloomtree_encode_value: the stored (canonical, level-wise coded) form of a
 * structurally valid bit array, in the current memory context.
 */
struct varlena *
bloomtree_encode_value(const BlTreeLayout *L, const uint8 *bits)
{
	Size		head = VARHDRSZ + BLOOMTREE_HEADER_BYTES(L->p.d),
				max = head + bltree_max_coded_bytes(L),
				n;
	struct varlena *v = bf_palloc_value(max, false, "coding a bloomtree");
	BlTreeLevelCode lc[BLTREE_MAX_D];
	uint8	   *payload = (uint8 *) VARDATA(v);

	n = bltree_encode(L, bits, lc, payload + BLOOMTREE_HEADER_BYTES(L->p.d));
	write_header(payload, L, lc, n);
	SET_VARSIZE(v, head + n);
	if (head + n < max / 2 && max > 8192)
		v = repalloc(v, head + n);
	return v;
}

/* bloomtree_empty_value: the stored form of the empty tree (no bit array needed) */
struct varlena *
bloomtree_empty_value(const BlTreeLayout *L)
{
	Size		size = VARHDRSZ + BLOOMTREE_HEADER_BYTES(L->p.d);
	struct varlena *v = palloc0(size);
	BlTreeLevelCode lc[BLTREE_MAX_D];

	memset(lc, 0, sizeof(lc));	/* every level ZERO, no bytes */
	write_header((uint8 *) VARDATA(v), L, lc, 0);
	SET_VARSIZE(v, size);
	return v;
}
