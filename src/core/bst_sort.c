/*
 * bst_sort.c
 *    Sorting and searching arrays of ids for BloomSampleTree: an
 *    interruptible introsort, sort-and-deduplicate, and lower bound; the
 *    core's interrupt hook (bst_interrupt_hook).
 *    See bst_sort.h.
 */
#include <stdbool.h>

#include "bst_sort.h"

void		(*bst_interrupt_hook) (void) = NULL;

/*
 * Sorting ids: an introsort (quicksort with median-of-three pivots, heapsort
 * when the recursion gets too deep, insertion sort for short ranges) that
 * checks for interrupts every 64k ids it partitions or sifts.  qsort cannot be
 * interrupted, and sorting 10^8 ids takes seconds.
 */
#define SORT_SMALL	16

static inline void
swap_ids(int64_t *a, int64_t *b)
{
	int64_t		t = *a;

	*a = *b;
	*b = t;
}

static void
insertion_sort(int64_t *a, size_t n)
{
	for (size_t i = 1; i < n; i++)
	{
		int64_t		x = a[i];
		size_t		j = i;

		while (j > 0 && a[j - 1] > x)
		{
			a[j] = a[j - 1];
			j--;
		}
		a[j] = x;
	}
}

static void
sift_down(int64_t *a, size_t root, size_t n)
{
	for (;;)
	{
		size_t		c = 2 * root + 1;

		if (c >= n)
			return;
		if (c + 1 < n && a[c + 1] > a[c])
			c++;
		if (a[root] >= a[c])
			return;
		swap_ids(&a[root], &a[c]);
		root = c;
	}
}

static void
heap_sort(int64_t *a, size_t n)
{
	for (size_t i = n / 2; i > 0; i--)
	{
		if ((i & 0xFFFF) == 0)
			BST_CHECK_INTERRUPTS();
		sift_down(a, i - 1, n);
	}
	for (size_t i = n; i > 1; i--)
	{
		if ((i & 0xFFFF) == 0)
			BST_CHECK_INTERRUPTS();
		swap_ids(&a[0], &a[i - 1]);
		sift_down(a, 0, i - 1);
	}
}

/* quicksort of a[0..n) that turns to heap sort after depth levels, and leaves runs of SORT_SMALL or fewer to insertion sort */
static void
intro_sort(int64_t *a, size_t n, int depth)
{
	while (n > SORT_SMALL)
	{
		size_t		mid = n / 2,
					i = 0,
					j = n - 1;
		int64_t		pivot;

		if (depth-- == 0)
		{
			heap_sort(a, n);
			return;
		}
		if (n > 0xFFFF)
			BST_CHECK_INTERRUPTS();
		/* median of three to a[mid]; a[0] <= pivot <= a[n - 1] bound the scans */
		if (a[mid] < a[0])
			swap_ids(&a[mid], &a[0]);
		if (a[n - 1] < a[0])
			swap_ids(&a[n - 1], &a[0]);
		if (a[n - 1] < a[mid])
			swap_ids(&a[n - 1], &a[mid]);
		pivot = a[mid];
		/* Hoare partition: a[0 .. j] <= pivot <= a[j + 1 .. n - 1] */
		for (;;)
		{
			while (a[i] < pivot)
				i++;
			while (a[j] > pivot)
				j--;
			if (i >= j)
				break;
			swap_ids(&a[i], &a[j]);
			i++;
			j--;
		}
		/* recurse into the smaller side, loop on the larger */
		if (j + 1 < n - j - 1)
		{
			intro_sort(a, j + 1, depth);
			a += j + 1;
			n -= j + 1;
		}
		else
		{
			intro_sort(a + j + 1, n - j - 1, depth);
			n = j + 1;
		}
	}
	insertion_sort(a, n);
}

void
bst_sort_ids(int64_t *ids, size_t n)
{
	int			depth = 0;

	if (n < 2)
		return;
	for (size_t m = n; m > 1; m >>= 1)
		depth += 2;
	intro_sort(ids, n, depth);
}

size_t
bst_sort_unique(int64_t *ids, size_t n)
{
	size_t		j = 0;

	bool		sorted = true;

	if (n == 0)
		return 0;
	for (size_t i = 1; i < n && sorted; i++)
		sorted = ids[i - 1] <= ids[i];
	if (!sorted)
		bst_sort_ids(ids, n);
	for (size_t i = 1; i < n; i++)
		if (ids[i] != ids[j])
			ids[++j] = ids[i];
	return j + 1;
}

size_t
bst_lower_bound(const int64_t *ids, size_t from, size_t to, int64_t x)
{
	while (from < to)
	{
		size_t		mid = from + (to - from) / 2;

		if (ids[mid] < x)
			from = mid + 1;
		else
			to = mid;
	}
	return from;
}
