/*
 * test/bench/bench_timing.h
 *    The timing harness the C drivers of the benchmarks share
 *    (core_bench.c, bloomtree_bench.c, deletable_bench.c, bloofi_tree_bench.c,
 *    bst_authors_driver.c): a monotonic wall clock, this process's CPU clock
 *    and the median of repeated measurements.  Header-only (static inline), so
 *    each driver stays one compile command in its script; included as
 *    "bench_timing.h", found beside the driver whatever -I it is given.
 */
#ifndef BENCH_TIMING_H
#define BENCH_TIMING_H

#include <stdlib.h>
#include <time.h>

/* wall-clock seconds since an arbitrary start (CLOCK_MONOTONIC) */
static inline double
bench_now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* this process's CPU seconds: immune to waiting for a core on a busy machine */
static inline double
bench_cpu_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* qsort comparator of doubles, ascending */
static inline int
bench_cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

/* the median of v[0..n) (n >= 1); sorts v in place */
static inline double
bench_median(double *v, int n)
{
	qsort(v, n, sizeof(double), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif							/* BENCH_TIMING_H */
