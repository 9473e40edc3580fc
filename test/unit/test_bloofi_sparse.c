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

/*
 * bloofi_sparse_gather (a wide SPARSE node grown, split, repacked or merged
 * as lists) against encoding the gathered filters afresh: two sources, a
 * random subset of their slots kept, renumbered in order and cut in two
 * outputs at `cut`; bloofi_sparse_column_has on every leaf, and maps that
 * break the order refused.
 */
static void
check_gather(uint32_t m, uint32_t cap0, uint32_t cap1, uint32_t set, uint32_t cut)
{
	uint32_t	fbytes = (m + 63) / 64 * 8;
	uint32_t	caps[2] = {cap0, cap1};
	uint8_t   **f[2];
	uint8_t    *v1[2];
	uint32_t   *map[2][2];
	uint32_t   *counts = malloc(sizeof(uint32_t) * (m + 1));
	uint8_t   **want[2] = {NULL, NULL};
	uint32_t	rank = 0;
	uint32_t	newcap[2];

	for (int i = 0; i < 2; i++)
	{
		uint64_t	c;

		f[i] = make_filters(m, caps[i], set, fbytes);
		c = bloofi_sparse_count(m, caps[i], (const uint8_t *const *) f[i]);
		v1[i] = malloc(bloofi_sparse_bytes(m, c));
		bloofi_sparse_encode(v1[i], m, caps[i], 1, caps[i], (const uint8_t *const *) f[i], counts);
		for (int o = 0; o < 2; o++)
		{
			map[o][i] = malloc(sizeof(uint32_t) * caps[i]);
			want[o] = want[o] ? want[o] : calloc(cap0 + cap1 + cut + 8, sizeof(uint8_t *));
		}
	}
	for (int i = 0; i < 2; i++)
		for (uint32_t s = 0; s < caps[i]; s++)
		{
			bool		kept = f[i][s] != NULL && rnd() % 5 != 0;

			for (int o = 0; o < 2; o++)
				map[o][i][s] = BLOOFI_SPARSE_DROP;
			if (!kept)
				continue;
			if (rank < cut)
			{
				map[0][i][s] = rank;
				want[0][rank] = f[i][s];
			}
			else
			{
				map[1][i][s] = rank - cut;
				want[1][rank - cut] = f[i][s];
			}
			rank++;
		}
	newcap[0] = cut + 8;
	newcap[1] = (rank > cut ? rank - cut : 0) + 8;
	for (int o = 0; o < 2; o++)
	{
		uint64_t	c1,
					c2 = bloofi_sparse_count(m, newcap[o], (const uint8_t *const *) want[o]);
		const uint32_t *maps[2] = {map[o][0], map[o][1]};
		uint8_t    *got,
				   *exp;

		CHECK(bloofi_sparse_gather_count(2, (const uint8_t *const *) v1, maps, newcap[o], &c1),
			  "gather refused valid maps");
		CHECK(c1 == c2, "gather count %llu, afresh %llu", (unsigned long long) c1,
			  (unsigned long long) c2);
		got = malloc(bloofi_sparse_bytes(m, c1));
		exp = malloc(bloofi_sparse_bytes(m, c2));
		bloofi_sparse_gather(2, (const uint8_t *const *) v1, maps, newcap[o], 3, got, counts);
		bloofi_sparse_encode(exp, m, newcap[o], 3, newcap[o], (const uint8_t *const *) want[o],
							 counts);
		CHECK(c1 == c2 && memcmp(got, exp, bloofi_sparse_bytes(m, c2)) == 0,
			  "m=%u caps=%u,%u cut=%u: gathered stream %d differs from a fresh encoding",
			  m, cap0, cap1, cut, o);
		CHECK(bloofi_sparse_validate(got, bloofi_sparse_bytes(m, c1), m, newcap[o]) == NULL,
			  "gathered stream invalid");
		for (uint32_t s = 0; s < newcap[o]; s++)
			if (want[o][s])
				CHECK(bloofi_sparse_column_has(got, (uint16_t) s, want[o][s], fbytes / 8),
					  "slot %u lacks a bit of its leaf", s);
		/* a leaf with one bit more than its column is not held */
		for (uint32_t s = 0; s < newcap[o]; s++)
			if (want[o][s])
			{
				uint8_t    *more = malloc(fbytes);
				uint32_t	j = (uint32_t) (rnd() % m);

				memcpy(more, want[o][s], fbytes);
				while (bit(more, j))
					j = (j + 1) % m;
				more[j / 8] |= (uint8_t) (1u << (j % 8));
				CHECK(!bloofi_sparse_column_has(got, (uint16_t) s, more, fbytes / 8),
					  "slot %u holds a bit it lacks", s);
				free(more);
				break;
			}
		free(got);
		free(exp);
	}
	/* out of order: the second source below the first, or a map past newcap */
	if (rank >= 2)
	{
		const uint32_t *swapped[2] = {map[0][1], map[0][0]};
		const uint8_t *swapsrc[2] = {v1[1], v1[0]};
		uint64_t	c;

		if (cut >= 2 && rank >= cut)
		{
			bool		first_keeps = false,
						second_keeps = false;

			for (uint32_t s = 0; s < cap0; s++)
				first_keeps |= map[0][0][s] != BLOOFI_SPARSE_DROP;
			for (uint32_t s = 0; s < cap1; s++)
				second_keeps |= map[0][1][s] != BLOOFI_SPARSE_DROP;
			if (first_keeps && second_keeps)
				CHECK(!bloofi_sparse_gather_count(2, swapsrc, swapped,
												  newcap[0], &c), "gather took maps out of order");
		}
		{
			const uint32_t *maps[2] = {map[0][0], map[0][1]};

			CHECK(!bloofi_sparse_gather_count(2, (const uint8_t *const *) v1, maps, 1, &c) ||
				  cut <= 1, "gather took a slot past newcap");
		}
	}
	for (int i = 0; i < 2; i++)
	{
		for (uint32_t s = 0; s < caps[i]; s++)
			free(f[i][s]);
		free(f[i]);
		free(v1[i]);
		for (int o = 0; o < 2; o++)
			free(map[o][i]);
	}
	free(want[0]);
	free(want[1]);
	free(counts);
}

int
main(void)
{
	check_gather(64, 8, 8, 3, 5);
	check_gather(1024, 72, 200, 12, 100);
	check_gather(433039, 700, 640, 30, 600);
	check_gather(4093, 1000, 1, 30, 2000);
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
