/*
 * test_bloofi_space.c
 *    Unit tests of the free-page map's bit work (src/core/bloofi_space.c)
 *    against a bit-by-bit model: run search, fill, counts, runs, trailing
 *    ones, on random bitmaps of many densities and lengths that are not
 *    whole words or bytes (the buffers are allocated to exactly the bytes
 *    the bits need, so a read past the end shows under ASan).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bloofi_space.h"
#include "unit.h"

static unsigned long long rng_state = 4242;

/* the next number of the test's deterministic stream */
static uint64_t
rnd(void)
{
	return unit_splitmix64(&rng_state);
}

/* the model of the run search: first start of n consecutive set bits, bit by bit; -1 when none */
static int64_t
naive_find(const uint8_t *bits, uint32_t nbits, uint32_t n)
{
	uint32_t	run = 0;

	for (uint32_t i = 0; i < nbits; i++)
	{
		run = bloofi_bit_get(bits, i) ? run + 1 : 0;
		if (n > 0 && run >= n)
			return (int64_t) i + 1 - n;
	}
	return -1;
}

/* count, runs, trailing bits and the run search on random maps of many densities and lengths, against the models */
static void
test_random(void)
{
	static const uint32_t lens[] = {1, 7, 8, 9, 63, 64, 65, 127, 128, 129, 200, 1000, 65216};

	for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++)
		for (int density = 0; density <= 100; density += 10)
			for (int rep = 0; rep < 4; rep++)
			{
				uint32_t	nbits = lens[li];
				size_t		bytes = (nbits + 7) / 8;
				uint8_t    *bits = malloc(bytes);
				uint32_t	cnt = 0,
							runs = 0,
							trail = 0;
				bool		prev = false;

				/* runs of random lengths, so that long runs exist at high density */
				for (uint32_t i = 0; i < nbits;)
				{
					uint32_t	len = 1 + (uint32_t) (rnd() % (rep == 3 ? 150 : 5));
					bool		v = (int) (rnd() % 100) < density;

					if (len > nbits - i)
						len = nbits - i;
					for (uint32_t j = 0; j < len; j++, i++)
					{
						if (v)
							bits[i / 8] |= (uint8_t) (1u << (i % 8));
						else
							bits[i / 8] &= (uint8_t) ~(1u << (i % 8));
					}
				}
				/* bits past nbits in the last byte set: they must be ignored */
				if (nbits % 8)
					bits[bytes - 1] |= (uint8_t) (0xFF << (nbits % 8));
				for (uint32_t i = 0; i < nbits; i++)
				{
					bool		b = bloofi_bit_get(bits, i);

					cnt += b;
					runs += b && !prev;
					prev = b;
					trail = b ? trail + 1 : 0;
				}
				CHECK(bloofi_bits_count(bits, nbits) == cnt, "count nbits %u", nbits);
				CHECK(bloofi_bits_runs(bits, nbits, false) == runs, "runs nbits %u: %u vs %u",
					  nbits, bloofi_bits_runs(bits, nbits, false), runs);
				CHECK(bloofi_bits_runs(bits, nbits, true) == runs - (bloofi_bit_get(bits, 0) ? 1 : 0),
					  "runs with carry nbits %u", nbits);
				CHECK(bloofi_bits_trailing(bits, nbits) == trail, "trailing nbits %u: %u vs %u",
					  nbits, bloofi_bits_trailing(bits, nbits), trail);
				for (uint32_t n = 1; n <= nbits + 1 && n < 400; n += 1 + n / 8)
					CHECK(bloofi_bits_find_run(bits, nbits, n) == naive_find(bits, nbits, n),
						  "find_run nbits %u n %u: %lld vs %lld", nbits, n,
						  (long long) bloofi_bits_find_run(bits, nbits, n),
						  (long long) naive_find(bits, nbits, n));
				CHECK(bloofi_bits_find_run(bits, nbits, 0) == -1, "n 0");
				/* fill: set then clear random ranges, compared with the model */
				for (int k = 0; k < 20; k++)
				{
					uint32_t	from = (uint32_t) (rnd() % nbits);
					uint32_t	n = (uint32_t) (rnd() % (nbits - from + 1));
					bool		v = rnd() & 1;
					uint8_t    *model = malloc(bytes);

					memcpy(model, bits, bytes);
					for (uint32_t i = from; i < from + n; i++)
					{
						if (v)
							model[i / 8] |= (uint8_t) (1u << (i % 8));
						else
							model[i / 8] &= (uint8_t) ~(1u << (i % 8));
					}
					bloofi_bits_fill(bits, from, n, v);
					CHECK(memcmp(model, bits, bytes) == 0, "fill nbits %u from %u n %u", nbits, from, n);
					free(model);
				}
				free(bits);
			}
}

/* the run search and counts on whole, empty and partial-word maps */
static void
test_edges(void)
{
	uint8_t		bits[16];

	memset(bits, 0xFF, sizeof(bits));
	CHECK(bloofi_bits_find_run(bits, 128, 128) == 0, "whole");
	CHECK(bloofi_bits_find_run(bits, 128, 129) == -1, "longer than the map");
	CHECK(bloofi_bits_find_run(bits, 100, 100) == 0, "whole, partial word");
	CHECK(bloofi_bits_find_run(bits, 100, 101) == -1, "past nbits");
	CHECK(bloofi_bits_trailing(bits, 128) == 128, "all trailing");
	CHECK(bloofi_bits_runs(bits, 128, false) == 1, "one run");
	bloofi_bits_fill(bits, 63, 1, false);
	CHECK(bloofi_bits_find_run(bits, 128, 64) == 64, "run after a zero at 63");
	CHECK(bloofi_bits_find_run(bits, 128, 63) == 0, "run before it");
	CHECK(bloofi_bits_runs(bits, 128, false) == 2, "two runs");
	CHECK(bloofi_bits_trailing(bits, 128) == 64, "64 trailing");
	CHECK(bloofi_bits_trailing(bits, 63) == 63, "63 trailing");
	CHECK(bloofi_bits_trailing(bits, 64) == 0, "0 trailing");
	memset(bits, 0, sizeof(bits));
	CHECK(bloofi_bits_find_run(bits, 128, 1) == -1, "none");
	CHECK(bloofi_bits_trailing(bits, 128) == 0, "none trailing");
	CHECK(bloofi_bits_count(bits, 128) == 0 && bloofi_bits_runs(bits, 128, true) == 0, "empty");
	bloofi_bits_fill(bits, 60, 10, true);
	CHECK(bloofi_bits_find_run(bits, 128, 10) == 60, "run across a word boundary");
	CHECK(bloofi_bits_find_run(bits, 128, 11) == -1, "one too long");
	CHECK(bloofi_bits_count(bits, 128) == 10, "count 10");
}

/* runs every test above; exit status 0 when all passed (UNIT_DONE) */
int
main(void)
{
	test_edges();
	test_random();
	return UNIT_DONE();
}
