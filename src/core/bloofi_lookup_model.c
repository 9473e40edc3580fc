/*
 * bloofi_lookup_model.c
 *    Expected work of one Bloofi lookup (see bloofi_lookup_model.h).
 *
 * Design notes: docs/planner.md (the cost model) and docs/bloofi.md.
 */
#include "bloofi_lookup_model.h"

#include <math.h>
#include <string.h>

double
bloofi_pages_touched(double pages, double draws)
{
	if (pages <= 0 || draws <= 0)
		return 0;
	if (pages <= 1)
		return 1;
	/* pages * (1 - (1 - 1/pages)^draws) */
	return pages * -expm1(draws * log1p(-1 / pages));
}

/* expected nodes, of n, holding at least one of `matches` leaves spread at random */
static double
nodes_with_match(double n, double matches)
{
	if (n <= 0 || matches <= 0)
		return 0;
	if (n <= 1)
		return matches >= 1 ? 1 : matches;
	return n * -expm1(matches * log1p(-1 / n));
}

void
bloofi_lookup_work(const BloofiLevelProfile *levels, int nlevels, int npos,
				   bool root_tested, double matches, BloofiLookupWork *w)
{
	double		opened[64];

	memset(w, 0, sizeof(*w));
	if (nlevels < 1 || npos < 1)
		return;
	if (nlevels > 64)
		nlevels = 64;
	if (matches < 0)
		matches = 0;

	/* nodes whose value passes: those over a match, and false positives */
	for (int i = 0; i < nlevels; i++)
	{
		const BloofiLevelProfile *L = &levels[i];
		double		n = L->nodes > 1 ? L->nodes : 1;
		double		t = nodes_with_match(n, matches);
		double		fp = L->value_fp < 0 ? 0 : (L->value_fp > 1 ? 1 : L->value_fp);

		opened[i] = t + (n - t) * fp;
		if (opened[i] > n)
			opened[i] = n;
	}
	if (!root_tested)
		opened[0] = 1;
	else
	{
		/* the root's value: its value pages of the positions */
		w->values_tested += 1;
		w->headers += 1;
		w->pages += 1 + bloofi_pages_touched(levels[0].value_pages, npos);
	}
	/* a node can pass only under an opened parent */
	for (int i = 1; i < nlevels; i++)
		if (opened[i] > opened[i - 1] * levels[i - 1].children)
			opened[i] = opened[i - 1] * levels[i - 1].children;

	for (int i = 0; i < nlevels; i++)
	{
		const BloofiLevelProfile *L = &levels[i];
		double		passing;

		if (opened[i] <= 0)
			break;

		/*
		 * children that pass, per opened node: the next level's, or the
		 * matches
		 */
		passing = (i + 1 < nlevels ? opened[i + 1] : matches) / opened[i];
		if (passing > L->children)
			passing = L->children;
		w->nodes_opened += opened[i];
		w->headers += opened[i];
		w->values_tested += opened[i] * L->children;
		w->words += opened[i] * npos * L->slice_words;
		w->pages += opened[i] * (1 + bloofi_pages_touched(L->slice_pages, npos) +
								 bloofi_pages_touched(L->tid_pages, passing));
	}
}
