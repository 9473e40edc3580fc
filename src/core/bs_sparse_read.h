/*
 * bs_sparse_read.h
 *    Private to the sparse form's two files (bs_sparse.c: encoding and
 *    decoding; bs_sparse_probe.c: in-place probes): reading an opened
 *    encoding's words and low bits.  Every read of the encoding goes through
 *    load_le, which never reads past the bytes bs_sparse_open accepted.
 */
#ifndef BS_SPARSE_READ_H
#define BS_SPARSE_READ_H

#include "bs_bits.h"
#include "bs_sparse.h"

/* up to 8 bytes at p, of which avail are readable, little-endian */
static inline uint64_t
load_le(const uint8_t *p, size_t avail)
{
	uint64_t	w = 0;

	if (avail >= 8)
		return bs_load64le(p);
	for (size_t i = 0; i < avail; i++)
		w |= (uint64_t) p[i] << (8 * i);
	return w;
}

static inline uint32_t
low_mask(int l)
{
	return (uint32_t) ((UINT64_C(1) << l) - 1);
}

/* the low bits of position i (i < n) */
static inline uint32_t
get_low(const BsSparse *s, uint64_t i)
{
	uint64_t	off = i * s->l;
	size_t		b = (size_t) (off >> 3);

	if (s->l == 0)
		return 0;
	return (uint32_t) (load_le(s->low + b, s->low_bytes - b) >> (off & 7)) & low_mask(s->l);
}

#endif							/* BS_SPARSE_READ_H */
