/*
 * bs_elem.h
 *    Element arguments of the bloomfilter and bloomtree SQL functions: an
 *    int2/int4/int8, text/varchar, bytea or uuid reduced to what the hashing
 *    scheme consumes (the int64, or the bytes), and a per-call-site cache of
 *    the last element's key, so a scan probing one constant hashes it once;
 *    the readings of a text element by a value's element types
 *    (src/core/bs_elemtype.h).
 */
#ifndef BS_ELEM_H
#define BS_ELEM_H

#include "postgres.h"
#include "pg_compat.h"
#include "fmgr.h"
#include "utils/uuid.h"

#include "bs_elemtype.h"
#include "bs_hash.h"

/* an element argument; data points into the argument (or into a cache) */
typedef struct BsElem
{
	bool		is_int;
	int64		i;
	const void *data;
	size_t		len;
} BsElem;

static inline BsElem
bs_elem_int8(int64 x)
{
	BsElem		e = {true, x, NULL, 0};

	return e;
}

static inline BsElem
bs_elem_bytes(const void *data, size_t len)
{
	BsElem		e = {false, 0, data, len};

	return e;
}

/* text, varchar, bytea: their bytes (detoasted without a copy where possible) */
static inline BsElem
bs_elem_varlena(Datum d)
{
	struct varlena *v = PG_DETOAST_DATUM_PACKED(d);

	return bs_elem_bytes(VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
}

static inline BsElem
bs_elem_uuid(Datum d)
{
	return bs_elem_bytes(DatumGetUUIDP(d)->data, UUID_LEN);
}

/* at most two readings of a text are used: the string and a number or uuid */
#define BS_ELEM_READINGS_MAX	2

/*
 * bs_elem_text_used: the readings of the text element t used in a value
 * recording the element types `recorded` (bs_elemtype.h): the mask returned,
 * and each as an element in e[0..*n) (a uuid's bytes are kept in *r).  The
 * text is parsed only when the value may hold integers or uuids;
 * bs_elem_text_used_readings takes readings *r already parsed.
 */
static inline unsigned
bs_elem_text_used_readings(const BsElem *t, unsigned recorded, const BsTextReadings *r,
						   BsElem *e, int *n)
{
	unsigned	used = bs_text_used(r->mask, recorded);

	*n = 0;
	if (used & BS_ELEM_INT)
		e[(*n)++] = bs_elem_int8(r->i);
	if (used & BS_ELEM_UUID)
		e[(*n)++] = bs_elem_bytes(r->uuid, UUID_LEN);
	if (used & BS_ELEM_BYTES)
		e[(*n)++] = *t;
	return used;
}

static inline unsigned
bs_elem_text_used(const BsElem *t, unsigned recorded, BsTextReadings *r,
				  BsElem *e, int *n)
{
	if (bs_text_needs_readings(recorded))
		bs_text_readings((const char *) t->data, t->len, r);
	else
		r->mask = BS_ELEM_BYTES;
	return bs_elem_text_used_readings(t, recorded, r, e, n);
}

/*
 * bs_elem_text_ambiguous: the error for a text element read two ways
 * (`used`, bs_elem_text_used) where one answer must be chosen: adding to or
 * removing from a counting structure, a count.  `what` names the function.
 * (Here, not in a .c file, so that this header calls nothing above it.)
 */
pg_attribute_noreturn() static inline void
bs_elem_text_ambiguous(const char *what, const BsElem *t, unsigned used)
{
	const char *other = bs_elem_name(used & ~BS_ELEM_BYTES);
	int			len = t->len <= 64 ? (int) t->len : 0;

	ereport(ERROR,
			(errcode(ERRCODE_INDETERMINATE_DATATYPE),
			 errmsg("%s: the text element \"%.*s\"%s is both a %s and a string here",
					what, len, (const char *) t->data, len < (int) t->len ? "..." : "", other),
			 errdetail("The value holds %s elements and strings, or records no element types (a cuckoofilter, a bloomtree and a topk never do; another value does not when stored before bloomsample 1.2 or read from the text or binary form); "
					   "an untyped literal or parameter is passed as text.", other),
			 errhint("Cast the element: ::%s for the %s, or pass the string as bytea: convert_to(elem, 'UTF8').",
					 other, other)));
}

/*
 * bs_elem_text_untyped: the readings of the text element t for a type whose
 * values record no element types (cuckoofilter, bloomtree, topk): every way
 * the text parses (bs_elem_text_used with BS_ELEM_ALL), into e[0..n), n
 * returned (a uuid's bytes are kept in *r).  With `what` (a function that
 * must add, remove or count one element), a text that reads two ways is
 * error 42P18 naming the cast (bs_elem_text_ambiguous); membership passes
 * NULL and tests every reading.
 */
static inline int
bs_elem_text_untyped(const BsElem *t, BsTextReadings *r, BsElem *e, const char *what)
{
	int			n;
	unsigned	used = bs_elem_text_used(t, BS_ELEM_ALL, r, e, &n);

	if (what != NULL && n > 1)
		bs_elem_text_ambiguous(what, t, used);
	return n;
}

static inline BsKey
bs_elem_key(const BsHasher *h, const BsElem *e)
{
	return e->is_int ? bs_key_int64(h, e->i) : bs_key_bytes(h, e->data, e->len);
}

static inline bool
bs_elem_equal(const BsElem *a, const BsElem *b)
{
	if (a->is_int != b->is_int)
		return false;
	if (a->is_int)
		return a->i == b->i;
	return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

#define BS_ELEM_CACHE_BYTES 64

/*
 * The key of the last element seen, kept with a copy of the element (integers
 * and byte strings up to BS_ELEM_CACHE_BYTES; longer ones are hashed every
 * time).  Zeroed memory is an empty cache; invalidate it when the hasher
 * changes.
 */
typedef struct BsElemKeyCache
{
	bool		valid;
	BsKey		key;
	BsElem		elem;			/* data points into bytes[] */
	uint8		bytes[BS_ELEM_CACHE_BYTES];
} BsElemKeyCache;

static inline BsKey
bs_elem_key_cached(BsElemKeyCache *c, const BsHasher *h, const BsElem *e)
{
	if (!c->valid || !bs_elem_equal(&c->elem, e))
	{
		c->key = bs_elem_key(h, e);
		c->valid = e->is_int || e->len <= BS_ELEM_CACHE_BYTES;
		if (c->valid)
		{
			c->elem = *e;
			if (!e->is_int)
			{
				memcpy(c->bytes, e->data, e->len);
				c->elem.data = c->bytes;
			}
		}
	}
	return c->key;
}

#endif							/* BS_ELEM_H */
