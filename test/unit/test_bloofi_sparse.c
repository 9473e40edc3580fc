/*
 * test_bloofi_sparse.c
 *    Unit tests of SPARSE nodes, Bloofi bottom nodes stored as lists
 *    (src/core/bloofi_sparse.c) against a naive bit model: encoding and
 *    decoding back to filters and to dense slices, the intersection of the
 *    lists of an element's positions against testing every filter, and the
 *    validation of damaged streams (every damage reported, never a read
 *    past the buffer: the buffers are allocated to exactly the stream's
 *    length, so ASan catches one).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bloofi_sparse.h"
#include "unit.h"

static unsigned long long rng_state = 2121;

static uint64_t
rnd(void)
{
	return unit_splitmix64(&rng_state);
}

static int
bit(const uint8_t *f, uint32_t j)
{
	return (f[j / 8] >> (j % 8)) & 1;
}

/* n random filters of m bits (rows of fbytes), about `set` bits each, some slots empty */
static uint8_t **
make_filters(uint32_t m, uint32_t n, uint32_t set, uint32_t fbytes)
{
	uint8_t   **f = calloc(n, sizeof(uint8_t *));

	for (uint32_t i = 0; i < n; i++)
	{
		if (rnd() % 10 == 0)
			continue;			/* an empty slot */
		f[i] = calloc(fbytes, 1);
		for (uint32_t b = 0; b < set; b++)
		{
			uint32_t	j = (uint32_t) (rnd() % m);

			f[i][j / 8] |= (uint8_t) (1u << (j % 8));
		}
	}
	return f;
}

/* encode, validate, decode to filters and to slices, and intersect, against the model */
static void
check_roundtrip(uint32_t m, uint32_t cap, uint32_t n, uint32_t set)
{
	uint32_t	fbytes = (m + 63) / 64 * 8;
	uint8_t   **f = make_filters(m, n, set, fbytes);
	uint64_t	count = bloofi_sparse_count(m, n, (const uint8_t *const *) f);
	uint64_t	naive = 0;
	uint64_t	len = bloofi_sparse_bytes(m, count);
	uint8_t    *buf = malloc(len);
	uint32_t   *counts = malloc(sizeof(uint32_t) * (m + 1));
	uint8_t    *rows = calloc((size_t) n, fbytes);
	uint32_t	slice_bytes = cap / 8;
	uint8_t    *slices = malloc((size_t) slice_bytes * 7);
	const char *err;

	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; f[i] && j < m; j++)
			naive += bit(f[i], j);
	CHECK(count == naive, "count %llu, naive %llu", (unsigned long long) count,
		  (unsigned long long) naive);
	bloofi_sparse_encode(buf, m, cap, 3, n, (const uint8_t *const *) f, counts);
	err = bloofi_sparse_validate(buf, len, m, cap);
	CHECK(err == NULL, "valid stream reported: %s", err ? err : "");
	CHECK(bloofi_sparse_validate(buf, len, m, cap + 8) != NULL, "wrong cap accepted");
	CHECK(bloofi_sparse_validate(buf, len - 1, m, cap) != NULL || count == 0 ? 1 : 0,
		  "short stream accepted");

	/* back to filters */
	bloofi_sparse_columns(buf, NULL, n, rows, fbytes);
	for (uint32_t i = 0; i < n; i++)
	{
		int			same = 1;

		for (uint32_t j = 0; j < m; j++)
			same &= bit(rows + (size_t) i * fbytes, j) == (f[i] ? bit(f[i], j) : 0);
		CHECK(same, "row %u differs (m %u, n %u)", i, m, n);
	}

	/* to dense slices, at a few places */
	for (int t = 0; t < 5; t++)
	{
		uint32_t	ns = 1 + (uint32_t) (rnd() % 7);
		uint32_t	j0 = (uint32_t) (rnd() % (m - ns + 1));
		int			same = 1;

		bloofi_sparse_slices(buf, j0, ns, slice_bytes, slices);
		for (uint32_t i = 0; i < ns; i++)
			for (uint32_t s = 0; s < cap; s++)
				same &= ((slices[(size_t) i * slice_bytes + s / 8] >> (s % 8)) & 1) ==
					(s < n && f[s] ? bit(f[s], j0 + i) : 0);
		CHECK(same, "slices %u..%u differ", j0, j0 + ns - 1);
	}

	/* lookups: the intersection of k lists = the filters holding all k positions */
	for (int t = 0; t < 50; t++)
	{
		uint32_t	k = 1 + (uint32_t) (rnd() % 5);
		uint16_t   *acc = malloc(sizeof(uint16_t) * (cap + 1));
		uint16_t   *list = malloc(sizeof(uint16_t) * (cap + 1));
		uint32_t	nacc = 0;
		uint32_t	pos[5];
		int			same = 1;
		uint32_t	want = 0;

		for (uint32_t i = 0; i < k; i++)
			pos[i] = (uint32_t) (rnd() % m);
		/* a filter's positions now and then: a true match */
		if (t % 3 == 0 && n > 0 && f[t % n])
			for (uint32_t i = 0, j = 0; j < m && i < k; j++)
				if (bit(f[t % n], j) && rnd() % 2)
					pos[i++] = j;
		for (uint32_t i = 0; i < k; i++)
		{
			uint32_t	lo,
						hi;

			memcpy(&lo, buf + bloofi_sparse_offset_pos(pos[i]), 4);
			memcpy(&hi, buf + bloofi_sparse_offset_pos(pos[i] + 1), 4);
			for (uint32_t e = lo; e < hi; e++)
				memcpy(&list[e - lo], buf + bloofi_sparse_entry_pos(m, e), 2);
			CHECK(bloofi_sparse_list_ok(list, hi - lo, cap), "list of %u not sorted", pos[i]);
			if (i == 0)
			{
				memcpy(acc, list, sizeof(uint16_t) * (hi - lo));
				nacc = hi - lo;
			}
			else
				nacc = bloofi_sparse_intersect(acc, nacc, list, hi - lo);
		}
		for (uint32_t s = 0; s < n; s++)
		{
			int			match = f[s] != NULL;

			for (uint32_t i = 0; i < k && match; i++)
				match = bit(f[s], pos[i]);
			if (match)
			{
				same &= want < nacc && acc[want] == s;
				want++;
			}
		}
		CHECK(same && want == nacc, "lookup: %u matches, intersection %u", want, nacc);
		free(acc);
		free(list);
	}

	for (uint32_t i = 0; i < n; i++)
		free(f[i]);
	free(f);
	free(buf);
	free(counts);
	free(rows);
	free(slices);
}

/* every kind of damage is reported */
static void
check_damage(void)
{
	uint32_t	m = 256,
				cap = 64,
				n = 50;
	uint32_t	fbytes = 32;
	uint8_t   **f = make_filters(m, n, 6, fbytes);
	uint64_t	count = bloofi_sparse_count(m, n, (const uint8_t *const *) f);
	uint64_t	len = bloofi_sparse_bytes(m, count);
	uint8_t    *good = malloc(len);
	uint8_t    *bad = malloc(len);
	uint32_t   *counts = malloc(sizeof(uint32_t) * (m + 1));
	uint32_t	v;
	uint16_t	s;

	bloofi_sparse_encode(good, m, cap, 1, n, (const uint8_t *const *) f, counts);
	CHECK(count > 20, "test data too small: %llu", (unsigned long long) count);
	/* magic */
	memcpy(bad, good, len);
	bad[0] ^= 1;
	CHECK(bloofi_sparse_validate(bad, len, m, cap) != NULL, "bad magic accepted");
	/* nentries past the end */
	memcpy(bad, good, len);
	v = (uint32_t) count + 1000;
	memcpy(bad + 16, &v, 4);
	CHECK(bloofi_sparse_validate(bad, len, m, cap) != NULL, "huge nentries accepted");
	/* an offset going backwards / past the end */
	memcpy(bad, good, len);
	v = 0xFFFFFFF0u;
	memcpy(bad + bloofi_sparse_offset_pos(m / 2), &v, 4);
	CHECK(bloofi_sparse_validate(bad, len, m, cap) != NULL, "offset past the end accepted");
	/* a slot past the capacity */
	memcpy(bad, good, len);
	s = 60000;
	memcpy(bad + bloofi_sparse_entry_pos(m, count / 2), &s, 2);
	CHECK(bloofi_sparse_validate(bad, len, m, cap) != NULL, "slot past cap accepted");
	/* a list out of order: swap the first two entries of a list of two or more */
	memcpy(bad, good, len);
	for (uint32_t j = 0; j < m; j++)
	{
		uint32_t	lo,
					hi;
		uint16_t	a,
					b;

		memcpy(&lo, good + bloofi_sparse_offset_pos(j), 4);
		memcpy(&hi, good + bloofi_sparse_offset_pos(j + 1), 4);
		if (hi - lo < 2)
			continue;
		memcpy(&a, good + bloofi_sparse_entry_pos(m, lo), 2);
		memcpy(&b, good + bloofi_sparse_entry_pos(m, lo + 1), 2);
		memcpy(bad + bloofi_sparse_entry_pos(m, lo), &b, 2);
		memcpy(bad + bloofi_sparse_entry_pos(m, lo + 1), &a, 2);
		break;
	}
	CHECK(bloofi_sparse_validate(bad, len, m, cap) != NULL, "unsorted list accepted");
	/* random single-byte damage never makes the validator read out of bounds */
	for (int t = 0; t < 2000; t++)
	{
		memcpy(bad, good, len);
		bad[rnd() % len] = (uint8_t) rnd();
		(void) bloofi_sparse_validate(bad, len, m, cap);
	}
	CHECK(bloofi_sparse_validate(good, len, m, cap) == NULL, "good stream rejected");
	for (uint32_t i = 0; i < n; i++)
		free(f[i]);
	free(f);
	free(good);
	free(bad);
	free(counts);
}

/*
 * bloofi_sparse_rebuild (an insert into a SPARSE node without decoding it)
 * against encoding the resulting filters afresh: a random subset of the
 * slots kept, new leaves in random free or dropped slots
 */
static void
check_rebuild(uint32_t m, uint32_t cap, uint32_t n, uint32_t set, uint32_t nnew)
{
	uint32_t	fbytes = (m + 63) / 64 * 8;
	uint8_t   **f = make_filters(m, n, set, fbytes);
	uint8_t   **want = calloc(cap, sizeof(uint8_t *));
	uint64_t   *keep = calloc((cap + 63) / 64, 8);
	uint32_t   *counts = malloc(sizeof(uint32_t) * (m + 1));
	uint16_t   *scratch = malloc(sizeof(uint16_t) * cap);
	uint32_t   *slots = malloc(sizeof(uint32_t) * (nnew + 1));
	uint32_t   *order = malloc(sizeof(uint32_t) * (nnew + 1));
	uint32_t  **pos = calloc(nnew + 1, sizeof(uint32_t *));
	uint32_t   *npos = calloc(nnew + 1, sizeof(uint32_t));
	uint8_t    *taken = calloc(cap, 1);
	uint64_t	c0 = bloofi_sparse_count(m, n, (const uint8_t *const *) f);
	uint8_t    *v1 = malloc(bloofi_sparse_bytes(m, c0));
	uint64_t	c1,
				c2;
	uint8_t    *got,
			   *exp;
	uint32_t	made = 0;

	bloofi_sparse_encode(v1, m, cap, 1, n, (const uint8_t *const *) f, counts);
	for (uint32_t s = 0; s < n; s++)
		if (f[s] && rnd() % 4 != 0)
		{
			keep[s / 64] |= 1ull << (s % 64);
			want[s] = f[s];
			taken[s] = 1;
		}
	/* new leaves: in slots neither kept nor taken, increasing (order = identity) */
	for (uint32_t s = 0; s < cap && made < nnew; s++)
	{
		if (taken[s] || rnd() % 3 != 0)
			continue;
		slots[made] = s;
		order[made] = made;
		want[s] = calloc(fbytes, 1);
		pos[made] = malloc(sizeof(uint32_t) * (set + 1));
		for (uint32_t j = 0; j < m && npos[made] < set; j++)
			if (rnd() % (m / set + 1) == 0)
			{
				pos[made][npos[made]++] = j;
				want[s][j / 8] |= (uint8_t) (1u << (j % 8));
			}
		made++;
	}
	/* shuffle which leaf is listed first: order[] gives them by slot */
	for (uint32_t i = 0; i + 1 < made; i += 2)
	{
		uint32_t	ts = slots[i],
				   *tp = pos[i],
					tn = npos[i];

		slots[i] = slots[i + 1];
		pos[i] = pos[i + 1];
		npos[i] = npos[i + 1];
		slots[i + 1] = ts;
		pos[i + 1] = tp;
		npos[i + 1] = tn;
		order[i] = i + 1;
		order[i + 1] = i;
	}
	c1 = bloofi_sparse_rebuild_count(v1, keep, made, npos);
	c2 = bloofi_sparse_count(m, cap, (const uint8_t *const *) want);
	CHECK(c1 == c2, "rebuild count %llu, afresh %llu", (unsigned long long) c1,
		  (unsigned long long) c2);
	got = malloc(bloofi_sparse_bytes(m, c1));
	exp = malloc(bloofi_sparse_bytes(m, c2));
	bloofi_sparse_rebuild(v1, keep, made, order, slots, (const uint32_t *const *) pos, npos, 2,
						  got, counts, scratch);
	bloofi_sparse_encode(exp, m, cap, 2, cap, (const uint8_t *const *) want, counts);
	CHECK(c1 == c2 && memcmp(got, exp, bloofi_sparse_bytes(m, c2)) == 0,
		  "m=%u cap=%u n=%u new=%u: rebuilt stream differs from a fresh encoding", m, cap, n, made);
	CHECK(bloofi_sparse_validate(got, bloofi_sparse_bytes(m, c1), m, cap) == NULL,
		  "rebuilt stream invalid");
	for (uint32_t i = 0; i < made; i++)
	{
		free(want[slots[i]]);
		free(pos[i]);
	}
	for (uint32_t i = 0; i < n; i++)
		free(f[i]);
	free(f);
	free(want);
	free(keep);
	free(counts);
	free(scratch);
	free(slots);
	free(order);
	free(pos);
	free(npos);
	free(taken);
	free(v1);
	free(got);
	free(exp);
}

int
main(void)
{
	check_rebuild(64, 8, 5, 3, 2);
	check_rebuild(1024, 72, 33, 12, 20);
	check_rebuild(4093, 1024, 700, 30, 200);
	check_rebuild(64, 4096, 3000, 2, 500);
	check_rebuild(433039, 640, 600, 100, 30);
	check_roundtrip(64, 8, 0, 3);
	check_roundtrip(64, 8, 5, 3);
	check_roundtrip(1024, 72, 33, 12);
	check_roundtrip(1024, 72, 72, 40);
	check_roundtrip(100, 200, 190, 7);
	check_roundtrip(4093, 1024, 1000, 30);
	check_roundtrip(64, 65536, 3000, 2);
	check_damage();
	return UNIT_DONE();
}
