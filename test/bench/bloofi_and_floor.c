/*
 * bloofi_and_floor.c
 *    The floor of a dense Bloofi lookup in the bit-sliced layout: the ANDs of
 *    one lookup alone, with the core's kernels (src/core/bloofi_layout.c) and
 *    the control flow of bloofi_node_match (src/bloofi_scan.c), over data laid
 *    out as the index lays it out, but in plain memory: no buffer pins, no
 *    locks, no executor.  Run by test/bench/36_bloofi_gin.sh next to its
 *    pgbench figures (issue 21), so that the part of a lookup that the
 *    layout itself costs is measured, not guessed.
 *
 *    The dense regime of 36_bloofi_gin.sh: N leaves (default 100,000) of
 *    m = 2,397 bits, k = 17, every bit set with probability 1/2 (its filters
 *    are half full), in bottom nodes of at most 65,088 leaves (one slice of a
 *    full node fills one 8 kB page's contents); each node's slices one per
 *    8 kB block, as in the index file (2 nodes: 39 MB, more than the last-level
 *    cache, as shared buffers are).  A lookup draws k distinct random
 *    positions, sorts them, and per node ANDs their slices (bloofi_acc_init,
 *    bloofi_and_slice_ahead with the next slice as the hint, from the 6th
 *    slice on bloofi_acc_mostly_zero, then bloofi_nonzero_words and
 *    bloofi_and_slice_sparse_ahead), then counts the matching leaves.
 *
 *    Printed ("key value" lines): and_us, the median over REPS runs of
 *    LOOKUPS lookups of the CPU time per lookup of that slice-at-a-time AND
 *    (the index's before issue 36; since, with bloomsample.bloofi_and_lines
 *    off); lines_per_lookup, the
 *    64-byte cache lines of slices the ANDs read (the dense passes' whole
 *    slices plus one line per distinct line of the sparse passes' words), and
 *    kb_per_lookup; read_us, the time of a plain pass reading the same number
 *    of bytes from slices of the same buffer (xor of their words): the
 *    memory's share; stream_us and stream_lines_per_lookup, the same for
 *    the streaming floor, the AND a cache line of 512 leaves at a time across
 *    the k slices with an early exit per line (bloofi_and_lines, what the
 *    index runs since issue 36; its matches must equal the first's).
 *
 *    bloofi_and_floor [N]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_timing.h"
#include "bloofi_layout.h"
#include "bst_rng.h"

#define M			2397
#define K			17
#define NODE_CAP	65088		/* leaves of a full bottom node */
#define BLOCK		8192		/* one slice per block, as in the index */
#define LOOKUPS		2000
#define REPS		7

static volatile uint64_t sink;

typedef struct Node
{
	uint32_t	leaves;
	uint32_t	nwords;
	uint32_t	slice_bytes;
	uint8_t    *blocks;			/* M blocks of BLOCK bytes: slice j in block j */
} Node;

/* k distinct sorted positions in [0, M) */
static void
draw_positions(uint64_t *s, uint32_t *pos)
{
	int			n = 0;

	while (n < K)
	{
		uint32_t	p = (uint32_t) (bst_rng_splitmix(s) % M);
		int			dup = 0;

		for (int i = 0; i < n; i++)
			dup |= pos[i] == p;
		if (!dup)
			pos[n++] = p;
	}
	(void) bloofi_sort_positions(pos, K);
}

/*
 * One node's AND, as bloofi_node_match does it; *lines gets the cache lines
 * of slices read.  Returns the matching leaves.
 */
static uint64_t
node_and(const Node *nd, const uint32_t *pos, uint64_t *acc, uint32_t *idx, uint64_t *lines)
{
	uint32_t	nidx = 0;
	bool		any = true,
				sparse = false;
	uint64_t	matches = 0;

	bloofi_acc_init(acc, nd->nwords, nd->leaves);
	for (int i = 0; i < K && any; i++)
	{
		const uint8_t *slice = nd->blocks + (size_t) pos[i] * BLOCK;
		const uint8_t *next = i + 1 < K ? nd->blocks + (size_t) pos[i + 1] * BLOCK : NULL;

		if (!sparse)
		{
			any = bloofi_and_slice_ahead(acc, slice, nd->nwords, nd->slice_bytes, next);
			*lines += (nd->slice_bytes + 63) / 64;
			if (any && nd->nwords >= 256 && i >= 5 && i + 1 < K &&
				bloofi_acc_mostly_zero(acc, nd->nwords))
			{
				nidx = bloofi_nonzero_words(acc, nd->nwords, idx);
				sparse = true;
			}
		}
		else
		{
			uint32_t	last = UINT32_MAX;

			for (uint32_t j = 0; j < nidx; j++)
				if (idx[j] / 8 != last)
				{
					last = idx[j] / 8;
					(*lines)++;
				}
			nidx = bloofi_and_slice_sparse_ahead(acc, slice, nd->slice_bytes, idx, nidx, next);
			any = nidx > 0;
		}
	}
	if (any)
		for (uint32_t w = 0; w < nd->nwords; w++)
			matches += (uint64_t) __builtin_popcountll(acc[w]);
	return matches;
}

/*
 * The streaming floor: the same node's AND as the index does it since issue
 * 36 (bloofi_and_lines: a cache line of 512 leaves at a time, ANDed across
 * the k slices until it is zero).  Returns the matching leaves.
 */
static uint64_t
node_and_lines(const Node *nd, const uint32_t *pos, uint64_t *acc)
{
	const uint8_t *s[K];
	uint64_t	matches = 0;

	for (int i = 0; i < K; i++)
		s[i] = nd->blocks + (size_t) pos[i] * BLOCK;
	bloofi_acc_init(acc, nd->nwords, nd->leaves);
	if (bloofi_and_lines(acc, s, K, nd->nwords, nd->slice_bytes))
		for (uint32_t w = 0; w < nd->nwords; w++)
			matches += (uint64_t) __builtin_popcountll(acc[w]);
	return matches;
}

/* the cache lines node_and_lines reads (counted apart, untimed) */
static uint64_t
node_lines_read(const Node *nd, const uint32_t *pos)
{
	uint64_t	lines = 0;

	for (uint32_t w = 0; w < nd->nwords; w += 8)
	{
		uint64_t	v[8];

		for (int j = 0; j < 8; j++)
			v[j] = w + j >= nd->nwords ? 0 : (w + j) * 64 + 64 <= nd->leaves ? ~UINT64_C(0) :
				(w + j) * 64 >= nd->leaves ? 0 : (UINT64_C(1) << (nd->leaves - (w + j) * 64)) - 1;
		for (int i = 0; i < K && (v[0] | v[1] | v[2] | v[3] | v[4] | v[5] | v[6] | v[7]); i++)
		{
			const uint64_t *sl = (const uint64_t *) (nd->blocks + (size_t) pos[i] * BLOCK);

			for (int j = 0; j < 8 && w + j < nd->nwords; j++)
				v[j] &= sl[w + j];
			lines++;
		}
	}
	return lines;
}

int
main(int argc, char **argv)
{
	uint32_t	n = argc > 1 ? (uint32_t) strtoul(argv[1], NULL, 10) : 100000;
	uint32_t	nnodes = (n + NODE_CAP - 1) / NODE_CAP;
	Node	   *nodes = calloc(nnodes, sizeof(Node));
	uint64_t	seed = 21;
	uint64_t   *acc = malloc((NODE_CAP / 64 + 1) * sizeof(uint64_t));
	uint32_t   *idx = malloc((NODE_CAP / 64 + 1) * sizeof(uint32_t));
	uint32_t   *pos = malloc((size_t) LOOKUPS * K * sizeof(uint32_t));
	double		and_t[REPS],
				read_t[REPS],
				stream_t[REPS];
	uint64_t	lines = 0,
				stream_lines = 0,
				matches = 0,
				stream_matches = 0;

	if (n == 0 || nodes == NULL || acc == NULL || idx == NULL || pos == NULL)
		return 1;
	for (uint32_t b = 0; b < nnodes; b++)
	{
		Node	   *nd = &nodes[b];

		nd->leaves = b + 1 < nnodes ? NODE_CAP : n - b * NODE_CAP;
		nd->nwords = (nd->leaves + 63) / 64;
		nd->slice_bytes = nd->nwords * 8;
		nd->blocks = aligned_alloc(64, (size_t) M * BLOCK);
		if (nd->blocks == NULL)
			return 1;
		for (size_t w = 0; w < (size_t) M * BLOCK / 8; w++)
			((uint64_t *) nd->blocks)[w] = bst_rng_splitmix(&seed);
	}
	for (int q = 0; q < LOOKUPS; q++)
		draw_positions(&seed, pos + (size_t) q * K);

	for (int r = 0; r < REPS + 1; r++)	/* the first run warms up */
	{
		double		t0 = bench_cpu_sec();
		uint64_t	l = 0,
					mt = 0;
		uint64_t	x = 0;

		for (int q = 0; q < LOOKUPS; q++)
			for (uint32_t b = 0; b < nnodes; b++)
				mt += node_and(&nodes[b], pos + (size_t) q * K, acc, idx, &l);
		if (r > 0)
			and_t[r - 1] = (bench_cpu_sec() - t0) * 1e6 / LOOKUPS;
		lines = l / LOOKUPS;
		matches = mt;

		/* the same bytes read plainly, from the first slices of each lookup */
		t0 = bench_cpu_sec();
		for (int q = 0; q < LOOKUPS; q++)
		{
			uint64_t	left = lines * 8;	/* words */

			for (int i = 0; i < K && left > 0; i++)
				for (uint32_t b = 0; b < nnodes && left > 0; b++)
				{
					const uint64_t *s = (const uint64_t *)
						(nodes[b].blocks + (size_t) pos[(size_t) q * K + i] * BLOCK);
					uint32_t	nw = nodes[b].nwords < left ? nodes[b].nwords : (uint32_t) left;

					for (uint32_t w = 0; w < nw; w++)
						x ^= s[w];
					left -= nw;
				}
		}
		sink = x;
		if (r > 0)
			read_t[r - 1] = (bench_cpu_sec() - t0) * 1e6 / LOOKUPS;

		t0 = bench_cpu_sec();
		mt = 0;
		for (int q = 0; q < LOOKUPS; q++)
			for (uint32_t b = 0; b < nnodes; b++)
				mt += node_and_lines(&nodes[b], pos + (size_t) q * K, acc);
		if (r > 0)
			stream_t[r - 1] = (bench_cpu_sec() - t0) * 1e6 / LOOKUPS;
		stream_matches = mt;
		if (r == 0)
		{
			for (int q = 0; q < LOOKUPS; q++)
				for (uint32_t b = 0; b < nnodes; b++)
					stream_lines += node_lines_read(&nodes[b], pos + (size_t) q * K);
			stream_lines /= LOOKUPS;
		}
	}
	if (stream_matches != matches)
	{
		fprintf(stderr, "the streaming AND found %llu matches, the index's %llu\n",
				(unsigned long long) stream_matches, (unsigned long long) matches);
		return 1;
	}
	printf("leaves %u\nnodes %u\n", n, nnodes);
	printf("matches_per_lookup %.3f\n", (double) matches / LOOKUPS);
	printf("lines_per_lookup %llu\n", (unsigned long long) lines);
	printf("kb_per_lookup %.1f\n", lines * 64 / 1024.0);
	printf("and_us %.2f\n", bench_median(and_t, REPS));
	printf("read_us %.2f\n", bench_median(read_t, REPS));
	printf("stream_lines_per_lookup %llu\n", (unsigned long long) stream_lines);
	printf("stream_us %.2f\n", bench_median(stream_t, REPS));
	return 0;
}
