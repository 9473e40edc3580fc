/*
 * unit.h
 *    A minimal harness for the core's unit tests: CHECK(cond, fmt, ...)
 *    records a failure with its location and keeps going; UNIT_DONE()
 *    prints "N passed, N failed" and returns the exit status.
 */
#ifndef UNIT_H
#define UNIT_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int	unit_passed = 0;
static int	unit_failed = 0;

#define CHECK(cond, ...) \
	do { \
		if (cond) \
			unit_passed++; \
		else \
		{ \
			unit_failed++; \
			fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__); \
			fputc('\n', stderr); \
		} \
	} while (0)

/* |got - want| <= tol * max(1, |want|) */
#define CHECK_CLOSE(got, want, tol) \
	CHECK(fabs((double) (got) - (double) (want)) <= (tol) * fmax(1.0, fabs((double) (want))), \
		  "got %.10g, want %.10g", (double) (got), (double) (want))

/* splitmix64: a deterministic random stream for tests (fixed seeds, reproducible) */
static inline unsigned long long
unit_splitmix64(unsigned long long *state)
{
	unsigned long long z = (*state += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

#define UNIT_DONE() \
	(printf("%s: %d passed, %d failed\n", __FILE__, unit_passed, unit_failed), \
	 unit_failed ? 1 : 0)

#endif							/* UNIT_H */
