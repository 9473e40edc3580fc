/*
 * bloofi_sparse_listed.c
 *    The LISTED form of a SPARSE node's stream (bloofi_sparse_listed.h):
 *    transcoding from and to the direct form, the whole-stream check and
 *    the lookup of one position in one block.  No allocation, no PostgreSQL.
 */
#include "bloofi_sparse_listed.h"

#include <string.h>

/* bytes of v as a varint (7 bits a byte, low first) */
static inline uint32_t
varint_len(uint32_t v)
{
	uint32_t	n = 1;

	while (v >= 0x80)
	{
		v >>= 7;
		n++;
	}
	return n;
}

/* write v at out (when not NULL); its length */
static inline uint32_t
varint_put(uint8_t *out, uint32_t v)
{
	uint32_t	n = 0;

	while (v >= 0x80)
	{
		if (out)
			out[n] = (uint8_t) (v | 0x80);
		n++;
		v >>= 7;
	}
	if (out)
		out[n] = (uint8_t) v;
	return n + 1;
}

/* read a varint at *at (< end); false when it runs past end or past 32 bits */
static inline bool
varint_get(const uint8_t *buf, uint32_t *at, uint32_t end, uint32_t *v)
{
	uint32_t	r = 0;

	for (uint32_t shift = 0; shift < 35; shift += 7)
	{
		uint8_t		b;

		if (*at >= end)
			return false;
		b = buf[(*at)++];
		if (shift == 28 && (b & 0xF0) != 0)
			return false;
		r |= (uint32_t) (b & 0x7F) << shift;
		if ((b & 0x80) == 0)
		{
			*v = r;
			return true;
		}
	}
	return false;
}

/*
 * Move *at (< end) past n varints (a varint ends at a byte below 0x80),
 * eight bytes at a time while the ends in them are fewer than what is
 * left; false when they run past end.
 */
static inline bool
varint_skip(const uint8_t *buf, uint32_t *at, uint32_t end, uint32_t n)
{
	uint32_t	a = *at;

	while (n > 0 && a + 8 <= end)
	{
		uint64_t	w;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		uint64_t	ends;

		/*
		 * the ends' high bits, byte i at bit 8i + 7: drop the first n - 1,
		 * and the next one, if any, is the last varint's end (no popcount:
		 * without -mpopcnt it is a library call)
		 */
		memcpy(&w, buf + a, 8);
		ends = ~w & UINT64_C(0x8080808080808080);
		while (ends != 0 && n > 1)
		{
			ends &= ends - 1;
			n--;
		}
		if (ends != 0)
		{
			*at = a + (uint32_t) __builtin_ctzll(ends) / 8 + 1;
			return true;
		}
#else
		uint32_t	ends;

		memcpy(&w, buf + a, 8);
		ends = (uint32_t) __builtin_popcountll(~w & UINT64_C(0x8080808080808080));
		if (ends >= n)
			break;
		n -= ends;
#endif
		a += 8;
	}
	while (n > 0)
	{
		if (a >= end)
			return false;
		if (buf[a++] < 0x80)
			n--;
	}
	*at = a;
	return true;
}

/* where a block closes: after `positions` positions or once its data reach `bytes` */
typedef struct ListedCut
{
	uint32_t	positions;
	uint32_t	bytes;
} ListedCut;

/*
 * Walk the non-empty lists of the direct stream v1 in position order,
 * cutting them into blocks as cut says; with out NULL only count: *nblocks,
 * *npos and the data bytes (returned).  With out, write fences and data.
 */
static uint64_t
listed_walk(const uint8_t *v1, uint8_t *out, uint32_t *nblocks_out, uint32_t *npos_out,
			const ListedCut *cut)
{
	BloofiSparseHeader h;
	uint32_t	nblocks = 0,
				npos = 0,
				inblock = 0,
				prev = 0;
	uint64_t	data = 0,
				blockstart = 0,
				fence0 = 0,
				data0 = 0;

	memcpy(&h, v1, sizeof(h));
	if (out)
	{
		fence0 = bloofi_listed_fence_pos(0);
		data0 = bloofi_listed_data_pos(*nblocks_out);
	}
	for (uint32_t j = 0; j < h.m; j++)
	{
		uint32_t	lo = bloofi_sparse_rd32(v1, bloofi_sparse_offset_pos(j));
		uint32_t	hi = bloofi_sparse_rd32(v1, bloofi_sparse_offset_pos(j + 1));
		uint32_t	gap;

		if (hi == lo)
			continue;
		if (inblock == cut->positions ||
			(inblock > 0 && data - blockstart >= cut->bytes))
			inblock = 0;
		if (inblock == 0)
		{
			if (out)
			{
				bloofi_sparse_wr32(out, fence0 + (uint64_t) 8 * nblocks, j);
				bloofi_sparse_wr32(out, fence0 + (uint64_t) 8 * nblocks + 4, (uint32_t) data);
			}
			nblocks++;
			blockstart = data;
			prev = j;
		}
		gap = j - prev;
		prev = j;
		inblock++;
		npos++;
		data += varint_put(out ? out + data0 + data : NULL, gap);
		data += varint_put(out ? out + data0 + data : NULL, hi - lo);
		for (uint32_t e = lo; e < hi; e++)
		{
			uint16_t	s = bloofi_sparse_rd16(v1, bloofi_sparse_entry_pos(h.m, e));
			uint32_t	d = e == lo ? s :
				(uint32_t) (s - bloofi_sparse_rd16(v1, bloofi_sparse_entry_pos(h.m, e - 1)) - 1);

			data += out ? varint_put(out + data0 + data, d) : varint_len(d);
		}
	}
	*nblocks_out = nblocks;
	*npos_out = npos;
	return data;
}

/*
 * The block limits for v1: BLOOFI_LISTED_BLOCK_POSITIONS and
 * BLOOFI_LISTED_BLOCK_BYTES, both scaled up (by the ratio of the blocks
 * to fence_room, rounded up, a few times at most) until at most fence_room
 * fences remain; fence_room 0: the defaults.  The same v1 and fence_room
 * always give the same limits.
 */
static void
listed_cut(const uint8_t *v1, uint32_t fence_room, ListedCut *cut)
{
	cut->positions = BLOOFI_LISTED_BLOCK_POSITIONS;
	cut->bytes = BLOOFI_LISTED_BLOCK_BYTES;
	if (fence_room == 0)
		return;
	for (int round = 0; round < 8; round++)
	{
		uint32_t	nblocks,
					npos;
		uint32_t	scale;

		(void) listed_walk(v1, NULL, &nblocks, &npos, cut);
		if (nblocks <= fence_room || cut->bytes >= (UINT32_MAX >> 8) ||
			cut->positions >= (UINT32_MAX >> 8))
			return;
		scale = (nblocks + fence_room - 1) / fence_room;
		if (scale > 256)
			scale = 256;
		cut->positions *= scale;
		cut->bytes *= scale;
	}
}

/* the cut for fence_room, and what it makes of v1: blocks, positions, data bytes (returned) */
static uint64_t
listed_plan(const uint8_t *v1, uint32_t fence_room, ListedCut *cut, uint32_t *nblocks,
			uint32_t *npos)
{
	listed_cut(v1, fence_room, cut);
	return listed_walk(v1, NULL, nblocks, npos, cut);
}

uint64_t
bloofi_listed_bytes(const uint8_t *v1, uint32_t fence_room)
{
	uint32_t	nblocks,
				npos;
	ListedCut	cut;
	uint64_t	data = listed_plan(v1, fence_room, &cut, &nblocks, &npos);

	return bloofi_listed_data_pos(nblocks) + data;
}

void
bloofi_listed_encode(const uint8_t *v1, uint8_t *out, uint32_t npages, uint32_t fence_room)
{
	BloofiListedHeader h;
	uint32_t	nblocks,
				npos;
	ListedCut	cut;
	uint64_t	data = listed_plan(v1, fence_room, &cut, &nblocks, &npos);

	memcpy(&h.base, v1, sizeof(h.base));
	listed_walk(v1, out, &nblocks, &npos, &cut);
	h.base.magic = BLOOFI_LISTED_MAGIC;
	h.base.npages = npages;
	h.npos = npos;
	h.nblocks = nblocks;
	h.datalen = (uint32_t) data;
	h.reserved = 0;
	memcpy(out, &h, sizeof(h));
}

/*
 * Decode block b's lists (data [start, end) of buf, first position first,
 * positions below limit): call visit(arg, position, slot) for every entry
 * when visit is not NULL.  Counts positions and entries into *npos and
 * *nentries; false when damaged.
 */
static bool
listed_block_walk(const uint8_t *buf, uint32_t start, uint32_t end, uint32_t first,
				  uint32_t limit, uint32_t cap, uint64_t *npos, uint64_t *nentries,
				  void (*visit) (void *, uint32_t, uint16_t), void *arg)
{
	uint32_t	at = start,
				pos = first;
	bool		firstpos = true;

	if (start >= end)
		return false;			/* a block holds at least one position */
	while (at < end)
	{
		uint32_t	gap,
					n,
					slot = 0;

		if (!varint_get(buf, &at, end, &gap) || !varint_get(buf, &at, end, &n))
			return false;
		if (firstpos ? gap != 0 : (gap == 0 || gap >= limit - pos))
			return false;
		pos += gap;
		firstpos = false;
		if (pos >= limit || n == 0 || n > cap)
			return false;
		for (uint32_t i = 0; i < n; i++)
		{
			uint32_t	d;

			if (!varint_get(buf, &at, end, &d))
				return false;
			if (i == 0)
				slot = d;
			else if (d >= cap || slot + d + 1 >= cap)
				return false;
			else
				slot += d + 1;
			if (slot >= cap)
				return false;
			if (visit)
				visit(arg, pos, (uint16_t) slot);
		}
		(*npos)++;
		*nentries += n;
	}
	return true;
}

const char *
bloofi_listed_validate(const uint8_t *buf, uint64_t len, uint32_t m, uint32_t cap)
{
	BloofiListedHeader h;
	uint64_t	npos = 0,
				nentries = 0,
				data0;

	if (len < BLOOFI_LISTED_HEADER_BYTES)
		return "the sparse slices are shorter than their header";
	memcpy(&h, buf, sizeof(h));
	if (h.base.magic != BLOOFI_LISTED_MAGIC)
		return "the sparse slices have a wrong magic number";
	if (h.base.m != m || h.base.cap != cap || cap > BLOOFI_SPARSE_MAX_CAP)
		return "the sparse slices' header disagrees with the node (m or capacity)";
	if (bloofi_listed_total(&h) > len || h.nblocks > h.npos || h.npos > m ||
		(h.nblocks == 0) != (h.datalen == 0))
		return "the sparse slices' blocks run past their pages";
	data0 = bloofi_listed_data_pos(h.nblocks);
	for (uint32_t b = 0; b < h.nblocks; b++)
	{
		uint32_t	first = bloofi_sparse_rd32(buf, bloofi_listed_fence_pos(b));
		uint32_t	off = bloofi_sparse_rd32(buf, bloofi_listed_fence_pos(b) + 4);
		uint32_t	next = b + 1 < h.nblocks ? bloofi_sparse_rd32(buf, bloofi_listed_fence_pos(b + 1)) : m;
		uint32_t	end = b + 1 < h.nblocks ? bloofi_sparse_rd32(buf, bloofi_listed_fence_pos(b + 1) + 4) :
			h.datalen;

		if ((b == 0 && off != 0) || end > h.datalen || off >= end || next <= first ||
			next > m)
			return "the sparse slices' fences are not increasing";
		if (!listed_block_walk(buf + data0, off, end, first, next, cap, &npos, &nentries,
							   NULL, NULL))
			return "a block of the sparse slices is damaged";
	}
	if (npos != h.npos || nentries != h.base.nentries)
		return "the sparse slices' counts disagree with their blocks";
	return NULL;
}

/* decoding state: the direct stream being filled */
typedef struct DecodeFill
{
	uint8_t    *v1;
	uint32_t	m;
	uint64_t	next;			/* next entry */
	uint32_t	last;			/* positions whose offsets are written: [0, last] */
} DecodeFill;

static void
decode_visit(void *arg, uint32_t pos, uint16_t slot)
{
	DecodeFill *f = (DecodeFill *) arg;

	/* lists before pos (and pos's start) begin at the next entry */
	while (f->last < pos)
		bloofi_sparse_wr32(f->v1, bloofi_sparse_offset_pos(++f->last), (uint32_t) f->next);
	bloofi_sparse_wr16(f->v1, bloofi_sparse_entry_pos(f->m, f->next), slot);
	f->next++;
}

void
bloofi_listed_decode(const uint8_t *buf, uint8_t *v1out)
{
	BloofiListedHeader h;
	DecodeFill	f;
	uint64_t	npos = 0,
				nentries = 0,
				data0;
	BloofiSparseHeader vh;

	memcpy(&h, buf, sizeof(h));
	f.v1 = v1out;
	f.m = h.base.m;
	f.next = 0;
	f.last = 0;
	bloofi_sparse_wr32(v1out, bloofi_sparse_offset_pos(0), 0);
	data0 = bloofi_listed_data_pos(h.nblocks);
	for (uint32_t b = 0; b < h.nblocks; b++)
	{
		uint32_t	first = bloofi_sparse_rd32(buf, bloofi_listed_fence_pos(b));
		uint32_t	off = bloofi_sparse_rd32(buf, bloofi_listed_fence_pos(b) + 4);
		uint32_t	next = b + 1 < h.nblocks ? bloofi_sparse_rd32(buf, bloofi_listed_fence_pos(b + 1)) :
			h.base.m;
		uint32_t	end = b + 1 < h.nblocks ? bloofi_sparse_rd32(buf, bloofi_listed_fence_pos(b + 1) + 4) :
			h.datalen;

		(void) listed_block_walk(buf + data0, off, end, first, next, h.base.cap, &npos,
								 &nentries, decode_visit, &f);
	}
	/* offsets[j] for j > the last position with entries: the end */
	while (f.last < h.base.m)
		bloofi_sparse_wr32(v1out, bloofi_sparse_offset_pos(++f.last), (uint32_t) f.next);
	vh = h.base;
	vh.magic = BLOOFI_SPARSE_MAGIC;
	vh.reserved = 0;
	memcpy(v1out, &vh, sizeof(vh));
}

int
bloofi_listed_block_find(const uint8_t *block, uint32_t len, uint32_t first, uint32_t pos,
						 uint32_t m, uint32_t cap, uint16_t *out, uint32_t *n)
{
	uint32_t	at = 0,
				cur = first;
	bool		firstpos = true;

	while (at < len)
	{
		uint32_t	gap,
					cnt,
					slot = 0;

		if (at + 2 <= len && block[at] < 0x80 && block[at + 1] < 0x80)
		{
			/* (the usual case: a gap and a count of one byte each) */
			gap = block[at];
			cnt = block[at + 1];
			at += 2;
		}
		else if (!varint_get(block, &at, len, &gap) || !varint_get(block, &at, len, &cnt))
			return -1;
		if (firstpos ? gap != 0 : (gap == 0 || gap >= m - cur))
			return -1;
		cur += gap;
		firstpos = false;
		if (cur >= m || cnt == 0 || cnt > cap)
			return -1;
		if (cur > pos)
			return 0;
		if (cur < pos)
		{
			/* skip the list: cnt varints end at cnt bytes below 0x80 */
			if (!varint_skip(block, &at, len, cnt))
				return -1;
			continue;
		}
		for (uint32_t i = 0; i < cnt; i++)
		{
			uint32_t	d;

			if (!varint_get(block, &at, len, &d))
				return -1;
			if (i == 0)
				slot = d;
			else if (d >= cap || slot + d + 1 >= cap)
				return -1;
			else
				slot += d + 1;
			if (slot >= cap)
				return -1;
			if (cur == pos)
				out[i] = (uint16_t) slot;
		}
		if (cur == pos)
		{
			*n = cnt;
			return 1;
		}
	}
	return 0;
}
