/*
 * bloofi_sparse.c
 *    SPARSE nodes: a Bloofi bottom node's slices as lists position ->
 *    slots: encoding, checks, intersection and decoding (see
 *    bloofi_sparse.h).  No allocation, no PostgreSQL.
 */
#include "bloofi_sparse.h"

#include <string.h>

/* the 64-bit word w of a filter stored as bytes (bit j = byte j / 8, bit j % 8) */
static inline uint64_t
filter_word(const uint8_t *f, uint32_t w)
{
	uint64_t	v;

	memcpy(&v, f + (size_t) w * 8, 8);
	return v;
}

uint64_t
bloofi_sparse_bytes(uint32_t m, uint64_t nentries)
{
	return bloofi_sparse_entry_pos(m, nentries);
}

uint64_t
bloofi_sparse_count(uint32_t m, uint32_t n, const uint8_t *const *filters)
{
	uint32_t	nwords = (m + 63) / 64;
	uint64_t	total = 0;

	for (uint32_t i = 0; i < n; i++)
		if (filters[i])
			for (uint32_t w = 0; w < nwords; w++)
				total += (uint64_t) __builtin_popcountll(filter_word(filters[i], w));
	return total;
}

/*
 * For every set bit j < m of every filter i: with out NULL, count it in
 * counts[j]; else write i at entry counts[j] of list j and advance counts[j]
 * (the two passes of bloofi_sparse_encode).
 */
static inline __attribute__((always_inline)) void
visit_set_bits(uint8_t *out, uint32_t m, uint32_t n, const uint8_t *const *filters,
			   uint32_t *counts)
{
	uint32_t	nwords = (m + 63) / 64;

	for (uint32_t i = 0; i < n; i++)
		if (filters[i])
			for (uint32_t w = 0; w < nwords; w++)
				for (uint64_t x = filter_word(filters[i], w); x; x &= x - 1)
				{
					uint32_t	j = w * 64 + (uint32_t) __builtin_ctzll(x);

					if (j >= m)
						continue;
					if (out == NULL)
						counts[j]++;
					else
						bloofi_sparse_wr16(out, bloofi_sparse_entry_pos(m, counts[j]++), (uint16_t) i);
				}
}

/*
 * The offsets of the lists whose lengths are counts[0..m): written into out,
 * and counts[j] turned into list j's start (its fill cursor); returns the
 * entries in all.
 */
static uint32_t
write_offsets(uint8_t *out, uint32_t m, uint32_t *counts)
{
	uint32_t	sum = 0;

	for (uint32_t j = 0; j < m; j++)
	{
		uint32_t	c = counts[j];

		counts[j] = sum;
		bloofi_sparse_wr32(out, bloofi_sparse_offset_pos(j), sum);
		sum += c;
	}
	bloofi_sparse_wr32(out, bloofi_sparse_offset_pos(m), sum);
	return sum;
}

void
bloofi_sparse_encode(uint8_t *out, uint32_t m, uint32_t cap, uint32_t npages,
					 uint32_t n, const uint8_t *const *filters, uint32_t *counts)
{
	BloofiSparseHeader h;
	uint32_t	sum;

	memset(counts, 0, sizeof(uint32_t) * ((size_t) m + 1));
	visit_set_bits(NULL, m, n, filters, counts);
	/* counts[j] becomes the start of list j (then its fill cursor) */
	sum = write_offsets(out, m, counts);
	counts[m] = sum;
	visit_set_bits(out, m, n, filters, counts);
	h.magic = BLOOFI_SPARSE_MAGIC;
	h.npages = npages;
	h.m = m;
	h.cap = cap;
	h.nentries = sum;
	h.reserved = 0;
	memcpy(out, &h, sizeof(h));
}

const char *
bloofi_sparse_validate(const uint8_t *buf, uint64_t len, uint32_t m, uint32_t cap)
{
	BloofiSparseHeader h;
	uint32_t	prev = 0;

	if (len < BLOOFI_SPARSE_HEADER_BYTES)
		return "the sparse slices are shorter than their header";
	memcpy(&h, buf, sizeof(h));
	if (h.magic != BLOOFI_SPARSE_MAGIC)
		return "the sparse slices have a wrong magic number";
	if (h.m != m || h.cap != cap || cap > BLOOFI_SPARSE_MAX_CAP)
		return "the sparse slices' header disagrees with the node (m or capacity)";
	if (bloofi_sparse_bytes(m, h.nentries) > len)
		return "the sparse slices' entries run past their pages";
	if (bloofi_sparse_rd32(buf, bloofi_sparse_offset_pos(0)) != 0 ||
		bloofi_sparse_rd32(buf, bloofi_sparse_offset_pos(m)) != h.nentries)
		return "the sparse slices' offsets do not span their entries";
	for (uint32_t j = 0; j < m; j++)
	{
		uint32_t	lo = bloofi_sparse_rd32(buf, bloofi_sparse_offset_pos(j));
		uint32_t	hi = bloofi_sparse_rd32(buf, bloofi_sparse_offset_pos(j + 1));

		if (lo < prev || hi < lo || hi > h.nentries)
			return "the sparse slices' offsets are not increasing";
		prev = lo;
		for (uint32_t e = lo; e < hi; e++)
		{
			uint16_t	s = bloofi_sparse_rd16(buf, bloofi_sparse_entry_pos(m, e));

			if (s >= cap || (e > lo && s <= bloofi_sparse_rd16(buf, bloofi_sparse_entry_pos(m, e - 1))))
				return "a list of the sparse slices is not increasing or holds a slot past the capacity";
		}
	}
	return NULL;
}

bool
bloofi_sparse_list_ok(const uint16_t *list, uint32_t n, uint32_t limit)
{
	for (uint32_t i = 0; i < n; i++)
		if (list[i] >= limit || (i > 0 && list[i] <= list[i - 1]))
			return false;
	return true;
}

uint32_t
bloofi_sparse_intersect(uint16_t *acc, uint32_t nacc, const uint16_t *list, uint32_t nlist)
{
	uint32_t	i = 0,
				j = 0,
				out = 0;

	while (i < nacc && j < nlist)
	{
		if (acc[i] < list[j])
			i++;
		else if (acc[i] > list[j])
			j++;
		else
		{
			acc[out++] = acc[i];
			i++;
			j++;
		}
	}
	return out;
}

/*
 * visit(arg, j, s) for every entry (slot s of the list of position j) of the
 * lists of positions [j0, j1) of a valid direct stream, in position order:
 * the one walk of the decoders and of bloofi_sparse_rebuild.
 */
static inline __attribute__((always_inline)) void
each_entry(const uint8_t *buf, uint32_t j0, uint32_t j1,
		   void (*visit) (void *arg, uint32_t j, uint16_t s), void *arg)
{
	BloofiSparseHeader h;

	memcpy(&h, buf, sizeof(h));
	for (uint32_t j = j0; j < j1; j++)
	{
		uint32_t	lo = bloofi_sparse_rd32(buf, bloofi_sparse_offset_pos(j));
		uint32_t	hi = bloofi_sparse_rd32(buf, bloofi_sparse_offset_pos(j + 1));

		for (uint32_t e = lo; e < hi; e++)
			visit(arg, j, bloofi_sparse_rd16(buf, bloofi_sparse_entry_pos(h.m, e)));
	}
}

typedef struct SliceFill
{
	uint8_t    *page;
	uint32_t	j0;
	uint32_t	slice_bytes;
} SliceFill;

static void
slice_visit(void *arg, uint32_t j, uint16_t s)
{
	SliceFill  *f = (SliceFill *) arg;

	f->page[(size_t) (j - f->j0) * f->slice_bytes + s / 8] |= (uint8_t) (1u << (s % 8));
}

void
bloofi_sparse_slices(const uint8_t *buf, uint32_t j0, uint32_t nslices,
					 uint32_t slice_bytes, uint8_t *page)
{
	SliceFill	f = {page, j0, slice_bytes};

	memset(page, 0, (size_t) nslices * slice_bytes);
	each_entry(buf, j0, j0 + nslices, slice_visit, &f);
}

typedef struct ColumnFill
{
	const uint64_t *mask;
	uint32_t	nrows;
	uint8_t    *filters;
	uint32_t	filter_bytes;
} ColumnFill;

static void
column_visit(void *arg, uint32_t j, uint16_t s)
{
	ColumnFill *f = (ColumnFill *) arg;

	if (s < f->nrows && (f->mask == NULL || ((f->mask[s / 64] >> (s % 64)) & 1)))
		f->filters[(size_t) s * f->filter_bytes + j / 8] |= (uint8_t) (1u << (j % 8));
}

void
bloofi_sparse_columns(const uint8_t *buf, const uint64_t *mask, uint32_t nrows,
					  uint8_t *filters, uint32_t filter_bytes)
{
	ColumnFill	f = {mask, nrows, filters, filter_bytes};
	BloofiSparseHeader h;

	memcpy(&h, buf, sizeof(h));
	each_entry(buf, 0, h.m, column_visit, &f);
}

/* the kept entries of a rebuild: counted (out NULL) or written at the cursors */
typedef struct KeptFill
{
	const uint64_t *keep;
	uint8_t    *out;
	uint32_t   *counts;
	uint32_t	m;
} KeptFill;

static void
kept_visit(void *arg, uint32_t j, uint16_t s)
{
	KeptFill   *f = (KeptFill *) arg;

	if (!((f->keep[s / 64] >> (s % 64)) & 1))
		return;
	if (f->out == NULL)
		f->counts[j]++;
	else
		bloofi_sparse_wr16(f->out, bloofi_sparse_entry_pos(f->m, f->counts[j]++), s);
}

/*
 * The two passes of bloofi_sparse_rebuild: with out NULL count, into
 * counts[j], the kept entries of list j and the new leaves' positions j;
 * else write them (kept entries first, then the new slots in increasing
 * order: slots of the new leaves are visited in order[]'s order) at the
 * cursors counts[j].
 */
static void
rebuild_visit(const uint8_t *v1, const uint64_t *keep, uint32_t n, const uint32_t *order,
			  const uint32_t *slots, const uint32_t *const *pos, const uint32_t *npos,
			  uint8_t *out, uint32_t *counts)
{
	BloofiSparseHeader h;
	KeptFill	f;

	memcpy(&h, v1, sizeof(h));
	f.keep = keep;
	f.out = out;
	f.counts = counts;
	f.m = h.m;
	each_entry(v1, 0, h.m, kept_visit, &f);
	for (uint32_t o = 0; o < n; o++)
	{
		uint32_t	i = order[o];

		for (uint32_t p = 0; p < npos[i]; p++)
		{
			if (out == NULL)
				counts[pos[i][p]]++;
			else
				bloofi_sparse_wr16(out, bloofi_sparse_entry_pos(h.m, counts[pos[i][p]]++), (uint16_t) slots[i]);
		}
	}
}

uint64_t
bloofi_sparse_rebuild_count(const uint8_t *v1, const uint64_t *keep, uint32_t n,
							const uint32_t *npos)
{
	BloofiSparseHeader h;
	uint64_t	total = 0;

	memcpy(&h, v1, sizeof(h));
	for (uint32_t e = 0; e < h.nentries; e++)
	{
		uint16_t	s = bloofi_sparse_rd16(v1, bloofi_sparse_entry_pos(h.m, e));

		total += (keep[s / 64] >> (s % 64)) & 1;
	}
	for (uint32_t i = 0; i < n; i++)
		total += npos[i];
	return total;
}

void
bloofi_sparse_rebuild(const uint8_t *v1, const uint64_t *keep, uint32_t n,
					  const uint32_t *order, const uint32_t *slots,
					  const uint32_t *const *pos, const uint32_t *npos, uint32_t npages,
					  uint8_t *out, uint32_t *counts, uint16_t *scratch)
{
	BloofiSparseHeader h;
	uint32_t	sum;

	memcpy(&h, v1, sizeof(h));
	memset(counts, 0, sizeof(uint32_t) * ((size_t) h.m + 1));
	rebuild_visit(v1, keep, n, order, slots, pos, npos, NULL, counts);
	sum = write_offsets(out, h.m, counts);
	counts[h.m] = sum;
	rebuild_visit(v1, keep, n, order, slots, pos, npos, out, counts);

	/*
	 * Each list is its kept entries (increasing) then its new ones
	 * (increasing): merge the two runs where both are there.
	 */
	for (uint32_t j = 0; j < h.m && n > 0; j++)
	{
		uint32_t	lo = bloofi_sparse_rd32(out, bloofi_sparse_offset_pos(j));
		uint32_t	hi = bloofi_sparse_rd32(out, bloofi_sparse_offset_pos(j + 1));
		uint32_t	mid = lo;
		uint32_t	a,
					b,
					o = 0;

		while (mid + 1 < hi &&
			   bloofi_sparse_rd16(out, bloofi_sparse_entry_pos(h.m, mid)) <
			   bloofi_sparse_rd16(out, bloofi_sparse_entry_pos(h.m, mid + 1)))
			mid++;
		if (mid + 1 >= hi)
			continue;			/* increasing already */
		mid++;					/* the second run starts here */
		a = lo;
		b = mid;
		while (a < mid || b < hi)
		{
			uint16_t	x = a < mid ? bloofi_sparse_rd16(out, bloofi_sparse_entry_pos(h.m, a)) : UINT16_MAX;
			uint16_t	y = b < hi ? bloofi_sparse_rd16(out, bloofi_sparse_entry_pos(h.m, b)) : UINT16_MAX;

			if (a < mid && (b >= hi || x < y))
			{
				scratch[o++] = x;
				a++;
			}
			else
			{
				scratch[o++] = y;
				b++;
			}
		}
		memcpy(out + bloofi_sparse_entry_pos(h.m, lo), scratch, (size_t) o * 2);
	}
	h.npages = npages;
	h.nentries = sum;
	h.reserved = 0;
	memcpy(out, &h, sizeof(h));
}

/* one source's entries of a gather: counted (out NULL) or written at the cursors */
typedef struct GatherFill
{
	const uint32_t *map;
	uint8_t    *out;
	uint32_t   *counts;
	uint32_t	m;
} GatherFill;

static void
gather_visit(void *arg, uint32_t j, uint16_t s)
{
	GatherFill *f = (GatherFill *) arg;
	uint32_t	t = f->map[s];

	if (t == BLOOFI_SPARSE_DROP)
		return;
	if (f->out == NULL)
		f->counts[j]++;
	else
		bloofi_sparse_wr16(f->out, bloofi_sparse_entry_pos(f->m, f->counts[j]++), (uint16_t) t);
}

bool
bloofi_sparse_gather_count(uint32_t nsrc, const uint8_t *const *src,
						   const uint32_t *const *maps, uint32_t newcap, uint64_t *nentries)
{
	uint64_t	total = 0;
	int64_t		last = -1;		/* the highest slot mapped to so far */
	uint32_t	m = 0;

	if (newcap > BLOOFI_SPARSE_MAX_CAP)
		return false;
	for (uint32_t i = 0; i < nsrc; i++)
	{
		BloofiSparseHeader h;

		memcpy(&h, src[i], sizeof(h));
		if (i > 0 && h.m != m)
			return false;
		m = h.m;
		for (uint32_t s = 0; s < h.cap; s++)
			if (maps[i][s] != BLOOFI_SPARSE_DROP)
			{
				if ((int64_t) maps[i][s] <= last || maps[i][s] >= newcap)
					return false;
				last = maps[i][s];
			}
		for (uint32_t e = 0; e < h.nentries; e++)
		{
			uint16_t	s = bloofi_sparse_rd16(src[i], bloofi_sparse_entry_pos(h.m, e));

			total += s < h.cap && maps[i][s] != BLOOFI_SPARSE_DROP;
		}
	}
	*nentries = total;
	return true;
}

void
bloofi_sparse_gather(uint32_t nsrc, const uint8_t *const *src, const uint32_t *const *maps,
					 uint32_t newcap, uint32_t npages, uint8_t *out, uint32_t *counts)
{
	BloofiSparseHeader h;
	GatherFill	f;
	uint32_t	sum;

	memcpy(&h, src[0], sizeof(h));
	f.counts = counts;
	f.m = h.m;
	memset(counts, 0, sizeof(uint32_t) * ((size_t) h.m + 1));
	f.out = NULL;
	for (uint32_t i = 0; i < nsrc; i++)
	{
		f.map = maps[i];
		each_entry(src[i], 0, h.m, gather_visit, &f);
	}
	sum = write_offsets(out, h.m, counts);
	/* source by source: each list gets the sources' slots in increasing order */
	f.out = out;
	for (uint32_t i = 0; i < nsrc; i++)
	{
		f.map = maps[i];
		each_entry(src[i], 0, h.m, gather_visit, &f);
	}
	h.magic = BLOOFI_SPARSE_MAGIC;
	h.npages = npages;
	h.cap = newcap;
	h.nentries = sum;
	h.reserved = 0;
	memcpy(out, &h, sizeof(h));
}

bool
bloofi_sparse_column_has(const uint8_t *buf, uint16_t s, const uint8_t *filter, uint32_t nwords)
{
	BloofiSparseHeader h;

	memcpy(&h, buf, sizeof(h));
	for (uint32_t w = 0; w < nwords; w++)
	{
		uint64_t	x;

		memcpy(&x, filter + (size_t) w * 8, 8);
		for (; x; x &= x - 1)
		{
			uint32_t	j = w * 64 + (uint32_t) __builtin_ctzll(x);
			uint32_t	lo,
						hi;

			if (j >= h.m)
				return false;
			lo = bloofi_sparse_rd32(buf, bloofi_sparse_offset_pos(j));
			hi = bloofi_sparse_rd32(buf, bloofi_sparse_offset_pos(j + 1));
			/* binary search of s in the increasing list [lo, hi) */
			while (lo < hi)
			{
				uint32_t	mid = lo + (hi - lo) / 2;
				uint16_t	v = bloofi_sparse_rd16(buf, bloofi_sparse_entry_pos(h.m, mid));

				if (v == s)
					break;
				if (v < s)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo >= hi)
				return false;
		}
	}
	return true;
}
