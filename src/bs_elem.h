/*
 * bs_elem.h
 *    Element arguments of the bloomfilter and bloomtree SQL functions: an
 *    int2/int4/int8, text/varchar, bytea or uuid reduced to what the hashing
 *    scheme consumes (the int64, or the bytes), and a per-call-site cache of
 *    the last element's key, so a scan probing one constant hashes it once.
 */
#ifndef BS_ELEM_H
#define BS_ELEM_H

#include "postgres.h"
#include "pg_compat.h"
#include "fmgr.h"
#include "utils/uuid.h"

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
