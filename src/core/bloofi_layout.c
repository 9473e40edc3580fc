/*
 * bloofi_layout.c
 *    Geometry of bit-sliced Bloofi nodes and the bit work on their pages
 *    (PostgreSQL-independent; see bloofi_layout.h for the layout).
 *
 * Design notes: docs/bloofi.md.
 */
#include "bloofi_layout.h"

#include <stdlib.h>
#include <string.h>

#include "bs_bits.h"

bool
bloofi_geometry(BloofiGeometry *g, uint32_t m, uint32_t cap, uint32_t page_bytes)
{
	uint64_t	filter_bytes;

	if (m < 1 || m > BLOOFI_MAX_M || cap == 0 || cap % BLOOFI_SLOT_QUANTUM != 0 ||
		cap / 8 > page_bytes || page_bytes < 64)
		return false;
	memset(g, 0, sizeof(*g));
	g->m = m;
	g->cap = cap;
	g->page_bytes = page_bytes;
	g->tids_per_page = page_bytes / BLOOFI_TID_BYTES;
	g->tid_pages = (cap + g->tids_per_page - 1) / g->tids_per_page;
	filter_bytes = 8 * bs_words_for_bits(m);
	g->filter_bytes = (uint32_t) filter_bytes;
	g->value_bytes_per_page = page_bytes & ~UINT32_C(7);
	g->value_pages = (g->filter_bytes + g->value_bytes_per_page - 1) /
		g->value_bytes_per_page;
	g->slice_bytes = cap / 8;
	g->slice_words = (cap + 63) / 64;
	g->slices_per_page = page_bytes / g->slice_bytes;
	g->slice_pages = (m + g->slices_per_page - 1) / g->slices_per_page;
	g->total_pages = g->tid_pages + g->value_pages + g->slice_pages;
	return true;
}

uint32_t
bloofi_slice_page_count(const BloofiGeometry *g, uint32_t sp)
{
	uint32_t	first = bloofi_slice_page_first(g, sp);
	uint32_t	left = first < g->m ? g->m - first : 0;

	return left < g->slices_per_page ? left : g->slices_per_page;
}

uint32_t
bloofi_value_page_bytes(const BloofiGeometry *g, uint32_t sp)
{
	uint32_t	first = sp * g->value_bytes_per_page;
	uint32_t	left = first < g->filter_bytes ? g->filter_bytes - first : 0;

	return left < g->value_bytes_per_page ? left : g->value_bytes_per_page;
}

uint32_t
bloofi_round_capacity(uint64_t n, uint32_t max_cap)
{
	uint64_t	c;

	if (n > max_cap)
		n = max_cap;			/* same result, and n + 7 cannot wrap */
	c = (n + BLOOFI_SLOT_QUANTUM - 1) / BLOOFI_SLOT_QUANTUM * BLOOFI_SLOT_QUANTUM;

	if (c < BLOOFI_SLOT_QUANTUM)
		c = BLOOFI_SLOT_QUANTUM;
	if (c > max_cap)
		c = max_cap;
	return (uint32_t) c;
}


/* iterate the set bits of filter in [j0, j0 + n): calls visit(j) */
#define FOR_EACH_SET_BIT(filter, j0, n, j, ...) \
	do { \
		uint32_t	j0_ = (j0); \
		uint32_t	end_ = j0_ + (n); \
		uint32_t	w_ = j0_ / 64; \
		while (w_ * 64 < end_) \
		{ \
			uint64_t	word_ = bs_load64le((filter) + 8 * (size_t) w_); \
			if (w_ * 64 < j0_) \
				word_ &= ~UINT64_C(0) << (j0_ - w_ * 64); \
			if (end_ - w_ * 64 < 64) \
				word_ &= (UINT64_C(1) << (end_ - w_ * 64)) - 1; \
			while (word_) \
			{ \
				uint32_t	j = w_ * 64 + (uint32_t) __builtin_ctzll(word_); \
				word_ &= word_ - 1; \
				__VA_ARGS__; \
			} \
			w_++; \
		} \
	} while (0)

uint32_t
bloofi_set_column(uint8_t *slice_page, uint32_t slice_bytes,
				  uint32_t j0, uint32_t nslices,
				  const uint8_t *filter, uint32_t slot)
{
	uint32_t	n = 0;

	FOR_EACH_SET_BIT(filter, j0, nslices, j,
					 (bs_bit_set(slice_page + (size_t) (j - j0) * slice_bytes, slot), n++));
	return n;
}

uint32_t
bloofi_column_missing(const uint8_t *slice_page, uint32_t slice_bytes,
					  uint32_t j0, uint32_t nslices,
					  const uint8_t *filter, uint32_t slot)
{
	uint32_t	n = 0;

	FOR_EACH_SET_BIT(filter, j0, nslices, j,
					 n += !((slice_page[(size_t) (j - j0) * slice_bytes + slot / 8] >> (slot % 8)) & 1));
	return n;
}

uint32_t
bloofi_count_range(const uint8_t *filter, uint32_t j0, uint32_t n)
{
	uint32_t	c = 0;

	FOR_EACH_SET_BIT(filter, j0, n, j, ((void) j, c++));
	return c;
}

bool
bloofi_clear_and_recompute_value(uint8_t *slice_page, uint32_t slice_bytes,
								 uint32_t j0, uint32_t nslices,
								 const uint64_t *dead, const uint64_t *live,
								 uint8_t *value)
{
	bool		changed = false;
	uint32_t	slice_words = (slice_bytes + 7) / 8;

	for (uint32_t i = 0; i < nslices; i++)
	{
		uint8_t    *s = slice_page + (size_t) i * slice_bytes;
		bool		any = false;

		for (uint32_t w = 0; w < slice_words; w++)
		{
			uint64_t	v = bloofi_slice_word(s, w, slice_bytes);
			uint64_t	nv = v & ~dead[w];

			if (nv != v)
			{
				bloofi_slice_store(s, w, slice_bytes, nv);
				changed = true;
			}
			if (nv & live[w])
				any = true;
		}
		if (any)
			bs_bit_set(value, j0 + i);
	}
	return changed;
}

uint64_t
bloofi_position_mix(uint32_t j)
{
	uint64_t	z = (uint64_t) j * UINT64_C(0x9E3779B97F4A7C15) + UINT64_C(0x632BE59BD9B4E019);

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

uint64_t
bloofi_filter_digest(const uint8_t *filter, uint32_t m)
{
	uint64_t	d = 0;

	FOR_EACH_SET_BIT(filter, 0, m, j, d += bloofi_position_mix(j));
	return d;
}

uint64_t
bloofi_similarity_key(const uint8_t *filter, uint32_t m)
{
	uint32_t	h1 = UINT32_MAX,
				h2 = UINT32_MAX;
	bool		any = false;

	FOR_EACH_SET_BIT(filter, 0, m, j, {
		uint64_t	x = bloofi_position_mix(j);
		uint32_t	a = (uint32_t) x,
					b = (uint32_t) (x >> 32);

		any = true;
		if (a < h1)
			h1 = a;
		if (b < h2)
			h2 = b;
	});
	if (!any)
		return 0;
	return ((uint64_t) h1 << 32) | h2;
}

void
bloofi_column_digest(const uint8_t *slice_page, uint32_t slice_bytes,
					 uint32_t j0, uint32_t nslices, uint32_t nslots,
					 uint32_t *count, uint64_t *digest)
{
	uint32_t	slice_words = (slice_bytes + 7) / 8;

	for (uint32_t i = 0; i < nslices; i++)
	{
		const uint8_t *s = slice_page + (size_t) i * slice_bytes;
		uint64_t	mix = bloofi_position_mix(j0 + i);

		for (uint32_t w = 0; w < slice_words && w * 64 < nslots; w++)
		{
			uint64_t	v = bloofi_slice_word(s, w, slice_bytes);

			while (v)
			{
				uint32_t	slot = w * 64 + (uint32_t) __builtin_ctzll(v);

				v &= v - 1;
				if (slot < nslots)
				{
					count[slot]++;
					digest[slot] += mix;
				}
			}
		}
	}
}

bool
bloofi_and_slice(uint64_t *restrict acc, const uint8_t *restrict slice, uint32_t nwords,
				 uint32_t slice_bytes)
{
	return bloofi_and_slice_ahead(acc, slice, nwords, slice_bytes, NULL);
}

/* two words: the vector the dense AND works in (GCC/Clang vector extension) */
typedef uint64_t bloofi_v2u64 __attribute__((vector_size(16)));

bool
bloofi_and_slice_ahead(uint64_t *restrict acc, const uint8_t *restrict slice, uint32_t nwords,
					   uint32_t slice_bytes, const uint8_t *next)
{
	uint64_t	any = 0,
				any1 = 0;
	uint32_t	nfull = slice_bytes / 8 < nwords ? slice_bytes / 8 : nwords;
	uint32_t	w = 0;

#if !(defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)

	/*
	 * a cache line (8 words) at a time in 16-byte vectors (slice words are
	 * little-endian: a plain load is their value); with next, the same line
	 * of the next slice requested, so that it streams in while this one is
	 * ANDed.  Half the instructions of the word loop below.
	 */
	{
		bloofi_v2u64 vany = {0, 0};

		for (; w + 8 <= nfull; w += 8)
		{
			bloofi_v2u64 s0,
						s1,
						s2,
						s3,
						a0,
						a1,
						a2,
						a3;
			const uint8_t *sp = slice + 8 * (size_t) w;

			if (next)
				__builtin_prefetch(next + 8 * (size_t) w, 0, 0);
			memcpy(&s0, sp, 16);
			memcpy(&s1, sp + 16, 16);
			memcpy(&s2, sp + 32, 16);
			memcpy(&s3, sp + 48, 16);
			memcpy(&a0, acc + w, 16);
			memcpy(&a1, acc + w + 2, 16);
			memcpy(&a2, acc + w + 4, 16);
			memcpy(&a3, acc + w + 6, 16);
			a0 &= s0;
			a1 &= s1;
			a2 &= s2;
			a3 &= s3;
			memcpy(acc + w, &a0, 16);
			memcpy(acc + w + 2, &a1, 16);
			memcpy(acc + w + 4, &a2, 16);
			memcpy(acc + w + 6, &a3, 16);
			vany |= (a0 | a1) | (a2 | a3);
		}
		any = vany[0] | vany[1];
	}
#endif

	/*
	 * (the rest of the) whole words, two at a time with independent
	 * accumulators, prefetching as above
	 */
	for (; w + 2 <= nfull; w += 2)
	{
		uint64_t	a,
					b;

		if (next && (w & 7) == 0)
			__builtin_prefetch(next + 8 * (size_t) w, 0, 0);
		a = acc[w] & bs_load64le(slice + 8 * (size_t) w);
		b = acc[w + 1] & bs_load64le(slice + 8 * (size_t) w + 8);
		acc[w] = a;
		acc[w + 1] = b;
		any |= a;
		any1 |= b;
	}
	any |= any1;
	for (; w < nfull; w++)
	{
		acc[w] &= bs_load64le(slice + 8 * (size_t) w);
		any |= acc[w];
	}
	for (; w < nwords; w++)
	{
		acc[w] &= bloofi_slice_word(slice, w, slice_bytes);
		any |= acc[w];
	}
	return any != 0;
}

/*
 * One line of bloofi_and_lines: words [w, w + 8) of acc (all inside the
 * slices: 8 * (w + 8) <= slice_bytes) ANDed with the slices until zero
 */
static inline uint64_t
bloofi_and_line(uint64_t *restrict acc, const uint8_t *const *slices, uint32_t nslices,
				uint32_t w)
{
#if !(defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
	bloofi_v2u64 a0,
				a1,
				a2,
				a3,
				any;

	memcpy(&a0, acc + w, 16);
	memcpy(&a1, acc + w + 2, 16);
	memcpy(&a2, acc + w + 4, 16);
	memcpy(&a3, acc + w + 6, 16);
	any = (a0 | a1) | (a2 | a3);
	for (uint32_t i = 0; i < nslices && (any[0] | any[1]) != 0; i++)
	{
		const uint8_t *sp = slices[i] + 8 * (size_t) w;
		bloofi_v2u64 s0,
					s1,
					s2,
					s3;

		memcpy(&s0, sp, 16);
		memcpy(&s1, sp + 16, 16);
		memcpy(&s2, sp + 32, 16);
		memcpy(&s3, sp + 48, 16);
		a0 &= s0;
		a1 &= s1;
		a2 &= s2;
		a3 &= s3;
		any = (a0 | a1) | (a2 | a3);
	}
	memcpy(acc + w, &a0, 16);
	memcpy(acc + w + 2, &a1, 16);
	memcpy(acc + w + 4, &a2, 16);
	memcpy(acc + w + 6, &a3, 16);
	return any[0] | any[1];
#else
	uint64_t	a[8],
				any = 0;

	for (int j = 0; j < 8; j++)
		any |= a[j] = acc[w + j];
	for (uint32_t i = 0; i < nslices && any != 0; i++)
	{
		any = 0;
		for (int j = 0; j < 8; j++)
			any |= a[j] &= bs_load64le(slices[i] + 8 * (size_t) (w + j));
	}
	for (int j = 0; j < 8; j++)
		acc[w + j] = a[j];
	return any;
#endif
}

bool
bloofi_and_lines(uint64_t *restrict acc, const uint8_t *const *slices, uint32_t nslices,
				 uint32_t nwords, uint32_t slice_bytes)
{
	uint32_t	nfull = slice_bytes / 8 < nwords ? slice_bytes / 8 : nwords;
	uint64_t	any = 0;
	uint32_t	w = 0;

	for (; w + 8 <= nfull; w += 8)
		any |= bloofi_and_line(acc, slices, nslices, w);
	/* the last words (a partial line, the slice's partial last word) */
	for (; w < nwords; w++)
	{
		uint64_t	a = acc[w];

		for (uint32_t i = 0; i < nslices && a != 0; i++)
			a &= bloofi_slice_word(slices[i], w, slice_bytes);
		acc[w] = a;
		any |= a;
	}
	return any != 0;
}

uint32_t
bloofi_nonzero_words(const uint64_t *acc, uint32_t nwords, uint32_t *idx)
{
	uint32_t	n = 0;

	for (uint32_t w = 0; w < nwords; w++)
	{
		idx[n] = w;
		n += acc[w] != 0;
	}
	return n;
}

uint32_t
bloofi_and_slice_sparse(uint64_t *acc, const uint8_t *slice, uint32_t slice_bytes,
						uint32_t *idx, uint32_t nidx)
{
	return bloofi_and_slice_sparse_ahead(acc, slice, slice_bytes, idx, nidx, NULL);
}

/* how many listed words ahead the sparse AND requests its slice's lines */
#define BLOOFI_SPARSE_AHEAD 16

uint32_t
bloofi_and_slice_sparse_ahead(uint64_t *acc, const uint8_t *slice, uint32_t slice_bytes,
							  uint32_t *idx, uint32_t nidx, const uint8_t *next)
{
	uint32_t	out = 0;

	/*
	 * the words listed are scattered over the slice: each is likely a cache
	 * miss, so its line is requested BLOOFI_SPARSE_AHEAD words before it is
	 * read, and (with next) the same word of the next slice, a superset of
	 * the words the next call reads
	 */
	for (uint32_t i = 0; i < nidx && i < BLOOFI_SPARSE_AHEAD; i++)
		if (8 * (size_t) idx[i] < slice_bytes)
			__builtin_prefetch(slice + 8 * (size_t) idx[i], 0, 0);
	for (uint32_t i = 0; i < nidx; i++)
	{
		uint32_t	w = idx[i];
		uint64_t	v;

		if (i + BLOOFI_SPARSE_AHEAD < nidx &&
			8 * (size_t) idx[i + BLOOFI_SPARSE_AHEAD] < slice_bytes)
			__builtin_prefetch(slice + 8 * (size_t) idx[i + BLOOFI_SPARSE_AHEAD], 0, 0);
		v = acc[w] & bloofi_slice_word(slice, w, slice_bytes);
		if (next && v && 8 * (size_t) w < slice_bytes)
			__builtin_prefetch(next + 8 * (size_t) w, 0, 0);
		acc[w] = v;
		idx[out] = w;
		out += v != 0;
	}
	return out;
}

void
bloofi_get_columns(const uint8_t *slice_page, uint32_t slice_bytes, uint32_t j0,
				   uint32_t nslices, const uint64_t *mask, uint8_t *filters,
				   uint32_t filter_bytes)
{
	uint32_t	slice_words = (slice_bytes + 7) / 8;

	for (uint32_t i = 0; i < nslices; i++)
	{
		const uint8_t *slice = slice_page + (size_t) i * slice_bytes;

		for (uint32_t w = 0; w < slice_words; w++)
		{
			uint64_t	v = bloofi_slice_word(slice, w, slice_bytes) & mask[w];

			while (v)
			{
				uint32_t	slot = w * 64 + (uint32_t) __builtin_ctzll(v);

				v &= v - 1;
				bs_bit_set(filters + (size_t) slot * filter_bytes, j0 + i);
			}
		}
	}
}

uint32_t
bloofi_put_column(uint8_t *slice_page, uint32_t slice_bytes, uint32_t j0,
				  uint32_t nslices, uint32_t slot, const uint8_t *filter)
{
	uint32_t	changed = 0;

	for (uint32_t i = 0; i < nslices; i++)
	{
		uint8_t    *b = slice_page + (size_t) i * slice_bytes + slot / 8;
		uint8_t		want = (uint8_t) (((filter[(j0 + i) / 8] >> ((j0 + i) % 8)) & 1) << (slot % 8));

		if ((*b & (1u << (slot % 8))) != want)
		{
			*b = (uint8_t) ((*b & ~(1u << (slot % 8))) | want);
			changed++;
		}
	}
	return changed;
}

void
bloofi_acc_init(uint64_t *acc, uint32_t nwords, uint32_t nslots)
{
	uint32_t	full = nslots / 64 < nwords ? nslots / 64 : nwords;

	memset(acc, 0xFF, sizeof(uint64_t) * (size_t) full);
	for (uint32_t w = full; w < nwords; w++)
	{
		if (w * 64 < nslots)
			acc[w] = (UINT64_C(1) << (nslots - w * 64)) - 1;
		else
			acc[w] = 0;
	}
}

/*
 * true when at most a third of the words of acc are non-zero, judged from
 * every 16th word (nwords >= 256: at least 16 of them)
 */
bool
bloofi_acc_mostly_zero(const uint64_t *acc, uint32_t nwords)
{
	uint32_t	nonzero = 0,
				seen = 0;

	for (uint32_t w = 0; w < nwords; w += 16)
	{
		nonzero += acc[w] != 0;
		seen++;
	}
	return nonzero * 3 <= seen;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t	x = *(const uint32_t *) a,
				y = *(const uint32_t *) b;

	return x < y ? -1 : x > y;
}

uint32_t
bloofi_sort_positions(uint32_t *pos, uint32_t n)
{
	uint32_t	out = 0;

	if (n == 0)
		return 0;
	qsort(pos, n, sizeof(uint32_t), cmp_u32);
	for (uint32_t i = 0; i < n; i++)
		if (out == 0 || pos[out - 1] != pos[i])
			pos[out++] = pos[i];
	return out;
}
