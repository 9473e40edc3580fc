/*
 * bloofi_lookup_model.h
 *    The expected work of one Bloofi lookup (PostgreSQL-independent): what
 *    the planner charges for an index scan (src/bloofi_cost.c).
 *
 * A lookup (src/bloofi_scan.c) tests the root's value (unless its
 * saturated hint says it would prune little), then "opens" every node whose
 * value passes: reads its header, the slice pages of the element's
 * positions, ANDs those slices (one bit per child) and reads the tid slots
 * of the children that pass.  A node's value is the OR of its subtree's
 * leaves, so a node passes when one of its leaves holds the element or,
 * for the others, with the probability value_fp = fill^k of its value; a
 * child's value is a subset of its parent's, so a node that passes has a
 * parent that passed.  The tree is described level by level, root first,
 * each level by its mean node (src/bloofi_cost.c reads that profile from
 * the index once per relcache entry).
 *
 * Design notes: docs/planner.md (the cost model) and docs/bloofi.md.
 */
#ifndef BLOOFI_LOOKUP_MODEL_H
#define BLOOFI_LOOKUP_MODEL_H

#include <stdbool.h>

typedef struct BloofiLevelProfile
{
	double		nodes;			/* nodes at this level (the root level: 1) */
	double		children;		/* mean live children of a node */
	double		slice_words;	/* 64-bit words of one of its slices: ceil(cap
								 * / 64) */
	double		slice_pages;	/* its slice pages */
	double		tid_pages;		/* its tid pages */
	double		value_pages;	/* pages of its own value */
	double		value_fp;		/* mean fill^k of the values of this level's
								 * nodes */
} BloofiLevelProfile;

typedef struct BloofiLookupWork
{
	double		nodes_opened;	/* nodes whose slices are ANDed */
	double		pages;			/* index pages read: headers, values, slices,
								 * tids */
	double		headers;		/* of which node headers: the first page of
								 * each node read, the others following it in
								 * the node's contiguous run, in ascending
								 * order */
	double		words;			/* 64-bit words ANDed */
	double		values_tested;	/* filters checked, as the paper counts */
} BloofiLookupWork;

/*
 * Expected work of a lookup whose npos positions (k per element searched
 * for) are held by `matches` leaves, spread at random, in a tree of
 * nlevels levels (levels[0] the root, levels[nlevels - 1] the bottom nodes,
 * whose children are the leaves).  root_tested: false when the root's value
 * is skipped (saturated hint).  *w is zeroed first.
 */
extern void bloofi_lookup_work(const BloofiLevelProfile *levels, int nlevels, int npos,
							   bool root_tested, double matches, BloofiLookupWork *w);

/* expected distinct pages among `pages` that `draws` uniform draws touch */
extern double bloofi_pages_touched(double pages, double draws);

#endif							/* BLOOFI_LOOKUP_MODEL_H */
