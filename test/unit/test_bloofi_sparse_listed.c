/*
 * test_bloofi_sparse_listed.c
 *    Unit tests of the LISTED form of a SPARSE node's stream
 *    (src/core/bloofi_sparse_listed.c) against the direct form, itself
 *    tested against a naive bit model in test_bloofi_sparse.c: transcoding
 *    both ways gives back the same lists, the lookup of every position of a
 *    block finds exactly the direct form's list, the form is O(set bits)
 *    at large m, and damaged streams are reported without a read past the
 *    buffer (buffers are allocated to the stream's exact length, so ASan
 *    catches one; every damaged block is also searched).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bloofi_sparse.h"
#include "bloofi_sparse_listed.h"
#include "unit.h"

static unsigned long long rng_state = 3131;

static uint64_t
rnd(void)
{
	return unit_splitmix64(&rng_state);
}

/* the direct stream of n random filters (some empty) of about `set` bits: malloc'd */
static uint8_t *
make_direct(uint32_t m, uint32_t cap, uint32_t n, uint32_t set, uint64_t *len)
{
	uint32_t	fbytes = (m + 63) / 64 * 8;
	uint8_t   **f = calloc(n ? n : 1, sizeof(uint8_t *));
	uint32_t   *counts = malloc(sizeof(uint32_t) * ((size_t) m + 1));
	uint64_t	count;
	uint8_t    *v1;

	for (uint32_t i = 0; i < n; i++)
	{
		if (rnd() % 10 == 0)
			continue;
		f[i] = calloc(fbytes, 1);
		for (uint32_t b = 0; b < set; b++)
		{
			/* clustered and spread positions: gaps of every varint length */
			uint32_t	j = (uint32_t) (rnd() % 4 == 0 ? rnd() % (m < 300 ? m : 300) : rnd() % m);

			f[i][j / 8] |= (uint8_t) (1u << (j % 8));
		}
	}
	count = bloofi_sparse_count(m, n, (const uint8_t *const *) f);
	*len = bloofi_sparse_bytes(m, count);
	v1 = malloc(*len);
	bloofi_sparse_encode(v1, m, cap, 1, n, (const uint8_t *const *) f, counts);
	for (uint32_t i = 0; i < n; i++)
		free(f[i]);
	free(f);
	free(counts);
	return v1;
}

/* the direct list of position j into out; its length */
static uint32_t
direct_list(const uint8_t *v1, uint32_t m, uint32_t j, uint16_t *out)
{
	uint32_t	lo = bloofi_sparse_rd32(v1, bloofi_sparse_offset_pos(j));
	uint32_t	hi = bloofi_sparse_rd32(v1, bloofi_sparse_offset_pos(j + 1));

	memcpy(out, v1 + bloofi_sparse_entry_pos(m, lo), (size_t) (hi - lo) * 2);
	return hi - lo;
}

/* the LISTED lookup of position j, as the glue does it: fences, then one block */
static int
listed_list(const uint8_t *buf, uint32_t j, uint32_t cap, uint16_t *out, uint32_t *n)
{
	BloofiListedHeader h;
	uint32_t	b = 0;

	memcpy(&h, buf, sizeof(h));
	*n = 0;
	if (h.nblocks == 0)
		return 0;
	while (b + 1 < h.nblocks && bloofi_sparse_rd32(buf, bloofi_listed_fence_pos(b + 1)) <= j)
		b++;
	if (bloofi_sparse_rd32(buf, bloofi_listed_fence_pos(b)) > j)
		return 0;
	{
		uint32_t	off = bloofi_sparse_rd32(buf, bloofi_listed_fence_pos(b) + 4);
		uint32_t	end = b + 1 < h.nblocks ? bloofi_sparse_rd32(buf, bloofi_listed_fence_pos(b + 1) + 4) :
			h.datalen;

		return bloofi_listed_block_find(buf + bloofi_listed_data_pos(h.nblocks) + off,
										end - off, bloofi_sparse_rd32(buf, bloofi_listed_fence_pos(b)), j,
										h.base.m, cap, out, n);
	}
}

/*
 * n random filters of about `set` bits in a node of cap slots at m, in the
 * LISTED form with blocks cut for fence_room fences (0: the default cut):
 * valid, decoded back to the same lists, every position's lookup equal to
 * the direct form's; with fence_room, at most that many fences and no
 * larger than the default cut, which its fences make at most 25 % larger
 * (a default block holds 16 positions of 3 bytes at least, or 64 bytes,
 * and its fence takes 8).
 */
static void
check_roundtrip(uint32_t m, uint32_t cap, uint32_t n, uint32_t set, uint32_t fence_room)
{
	uint64_t	len1;
	uint8_t    *v1 = make_direct(m, cap, n, set, &len1);
	uint64_t	len2 = bloofi_listed_bytes(v1, fence_room);
	uint8_t    *v2 = malloc(len2);
	uint8_t    *back = malloc(len1);
	uint16_t   *a = malloc(sizeof(uint16_t) * cap);
	uint16_t   *b = malloc(sizeof(uint16_t) * cap);
	const char *err;
	BloofiListedHeader h;

	bloofi_listed_encode(v1, v2, 7, fence_room);
	err = bloofi_listed_validate(v2, len2, m, cap);
	CHECK(err == NULL, "m=%u cap=%u n=%u: %s", m, cap, n, err ? err : "");
	CHECK(bloofi_listed_validate(v2, len2, m + 1, cap) != NULL, "wrong m accepted");
	CHECK(len2 == 0 || bloofi_listed_validate(v2, len2 - 1, m, cap) != NULL,
		  "short stream accepted");
	memcpy(&h, v2, sizeof(h));
	CHECK(h.base.npages == 7 && bloofi_listed_total(&h) == len2, "header lengths");
	if (fence_room > 0)
	{
		uint64_t	len0 = bloofi_listed_bytes(v1, 0);

		CHECK(h.nblocks <= fence_room, "m=%u n=%u: %u fences for room for %u", m, n,
			  h.nblocks, fence_room);
		CHECK(len2 <= len0 && len2 * 5 >= len0 * 4, "m=%u n=%u: %llu bytes cut for %u fences, %llu by default",
			  m, n, (unsigned long long) len2, fence_room, (unsigned long long) len0);
	}
	bloofi_listed_decode(v2, back);
	/* the decoded stream equals the original but for npages */
	CHECK(memcmp(back + 8, v1 + 8, len1 - 8) == 0, "m=%u n=%u: decode differs", m, n);
	CHECK(bloofi_sparse_validate(back, len1, m, cap) == NULL, "decoded stream invalid");
	for (uint32_t j = 0; j < m; j++)
	{
		uint32_t	na = direct_list(v1, m, j, a);
		uint32_t	nb;
		int			r = listed_list(v2, j, cap, b, &nb);

		CHECK(r >= 0, "lookup of %u reported damage", j);
		CHECK((r == 1) == (na > 0), "m=%u position %u: found %d, direct list %u", m, j, r, na);
		if (r == 1)
			CHECK(nb == na && memcmp(a, b, na * 2) == 0, "position %u: lists differ", j);
	}
	free(v1);
	free(v2);
	free(back);
	free(a);
	free(b);
}

/* at large m the LISTED form is O(set bits): no m-sized part */
static void
check_size(void)
{
	uint32_t	m = 433039;
	uint64_t	len1;
	uint8_t    *v1 = make_direct(m, 600, 600, 100, &len1);
	uint64_t	len2 = bloofi_listed_bytes(v1, 0);
	BloofiSparseHeader h;

	memcpy(&h, v1, sizeof(h));
	CHECK(len2 < (uint64_t) 5 * h.nentries, "LISTED %llu bytes for %u set bits",
		  (unsigned long long) len2, h.nentries);
	CHECK(len2 * 3 < len1, "LISTED %llu not well under direct %llu",
		  (unsigned long long) len2, (unsigned long long) len1);
	free(v1);
}

static void
check_damage(void)
{
	uint32_t	m = 5000,
				cap = 200;
	uint64_t	len1;
	uint8_t    *v1 = make_direct(m, cap, 150, 20, &len1);
	uint64_t	len = bloofi_listed_bytes(v1, 0);
	uint8_t    *good = malloc(len);
	uint8_t    *bad = malloc(len);
	uint16_t   *out = malloc(sizeof(uint16_t) * cap);
	uint32_t	v;
	int			caught = 0;

	bloofi_listed_encode(v1, good, 1, 0);
	CHECK(bloofi_listed_validate(good, len, m, cap) == NULL, "good stream rejected");
	memcpy(bad, good, len);
	bad[0] ^= 1;
	CHECK(bloofi_listed_validate(bad, len, m, cap) != NULL, "bad magic accepted");
	memcpy(bad, good, len);
	v = 1u << 30;
	memcpy(bad + offsetof(BloofiListedHeader, datalen), &v, 4);
	CHECK(bloofi_listed_validate(bad, len, m, cap) != NULL, "huge datalen accepted");
	memcpy(bad, good, len);
	v = m + 5;
	memcpy(bad + bloofi_listed_fence_pos(1), &v, 4);
	CHECK(bloofi_listed_validate(bad, len, m, cap) != NULL, "fence past m accepted");
	/* random damage: never a read past the buffer, in the check or the lookup */
	for (int t = 0; t < 3000; t++)
	{
		uint32_t	n;

		memcpy(bad, good, len);
		bad[rnd() % len] = (uint8_t) rnd();
		if (bloofi_listed_validate(bad, len, m, cap) != NULL)
			caught++;
		else
			continue;
		{
			BloofiListedHeader h;

			memcpy(&h, bad, sizeof(h));
			if (bloofi_listed_total(&h) <= len && h.nblocks > 0 && h.nblocks < len)
			{
				uint32_t	b = (uint32_t) (rnd() % h.nblocks);
				uint32_t	off = bloofi_sparse_rd32(bad, bloofi_listed_fence_pos(b) + 4);
				uint32_t	end = b + 1 < h.nblocks ?
					bloofi_sparse_rd32(bad, bloofi_listed_fence_pos(b + 1) + 4) : h.datalen;

				if (off < end && end <= h.datalen)
					(void) bloofi_listed_block_find(bad + bloofi_listed_data_pos(h.nblocks) + off,
													end - off,
													bloofi_sparse_rd32(bad, bloofi_listed_fence_pos(b)),
													(uint32_t) (rnd() % m), m, cap, out, &n);
			}
		}
	}
	CHECK(caught > 1000, "only %d of 3000 damaged streams reported", caught);
	free(v1);
	free(good);
	free(bad);
	free(out);
}

int
main(void)
{
	/* m, cap, n, set, fence_room (0: the default cut; else blocks cut to fit it) */
	static const uint32_t cases[][5] = {
		{64, 8, 0, 3, 0}, {64, 8, 5, 3, 0}, {1024, 72, 33, 12, 0}, {1024, 72, 72, 40, 0},
		{100, 200, 190, 7, 0}, {4093, 1024, 1000, 30, 0}, {64, 65536, 3000, 2, 0},
		{433039, 600, 600, 100, 0}, {433039, 20000, 2000, 5, 0},
		{1024, 72, 72, 40, 3}, {4093, 1024, 1000, 30, 10}, {433039, 600, 600, 100, 100},
		{433039, 20000, 2000, 5, 1},
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		check_roundtrip(cases[c][0], cases[c][1], cases[c][2], cases[c][3], cases[c][4]);
	check_size();
	check_damage();
	return UNIT_DONE();
}
