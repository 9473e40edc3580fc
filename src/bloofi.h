/*
 * bloofi.h
 *    Shared definitions of the Bloofi index access method (PostgreSQL glue).
 *
 * Pages (every page: standard header, data from PageGetContents, then
 * BloofiPageOpaqueData in the special space; pd_lower covers the data so
 * that GenericXLog deltas and full-page images keep it):
 *
 *   block 0          metapage: parameters, reloption snapshot, directory of
 *                    groups (first block, capacity) = the root of the tree
 *   group g          [tid pages][summary pages][slice pages], contiguous,
 *                    see src/core/bloofi_layout.h; the group's first tid page
 *                    is its header (nused / nlive in the page opaque)
 *
 * The locking protocol is written at the top of bloofi_insert.c.
 */
#ifndef BLOOFI_H
#define BLOOFI_H

#include "postgres.h"

#include "access/amapi.h"
#include "access/generic_xlog.h"
#include "access/genam.h"
#include "nodes/execnodes.h"
#include "nodes/pathnodes.h"
#include "storage/bufmgr.h"
#include "utils/hsearch.h"
#include "utils/relcache.h"

#include "bloofi_layout.h"
#include "bloomfilter.h"

#define BLOOFI_MAGIC			0xB100F1A5
#define BLOOFI_VERSION			1
#define BLOOFI_METAPAGE_BLKNO	0
#define BLOOFI_PAGE_ID			0xFF84

/* page kinds */
#define BLOOFI_PAGE_META		1
#define BLOOFI_PAGE_TID			2
#define BLOOFI_PAGE_SUMMARY		3
#define BLOOFI_PAGE_SLICE		4
#define BLOOFI_PAGE_PENDING		5

typedef struct BloofiPageOpaqueData
{
	uint32		group;			/* group number (0 for the metapage and pending pages) */
	BlockNumber next;			/* pending pages: next page of the chain */
	uint32		nused;			/* group header: slots ever used (high-water); pending: entries */
	uint32		nlive;			/* group header only: slots holding a TID */
	uint16		kind;			/* BLOOFI_PAGE_* */
	uint16		bloofi_page_id; /* BLOOFI_PAGE_ID, for pg_filedump-like tools */
} BloofiPageOpaqueData;

typedef BloofiPageOpaqueData *BloofiPageOpaque;

/* (a function, not a macro: its argument is evaluated once) */
static inline BloofiPageOpaque
BloofiPageGetOpaque(Page page)
{
	return (BloofiPageOpaque) PageGetSpecialPointer(page);
}
#define BLOOFI_PAGE_BYTES \
	((uint32) (BLCKSZ - MAXALIGN(SizeOfPageHeaderData) - MAXALIGN(sizeof(BloofiPageOpaqueData))))

/* reloptions */
#define BLOOFI_DEFAULT_ORDER	65152
#define BLOOFI_MIN_ORDER		64
/* 8 * BLOOFI_PAGE_BYTES rounded down to 64: one slice fills a page */
#define BLOOFI_MAX_ORDER		65152

typedef struct BloofiOptions
{
	int32		vl_len_;
	int			order;			/* max leaves per group */
	bool		fastupdate;		/* inserts go to the pending list */
} BloofiOptions;

/*
 * The pending list (like GIN's fastupdate): inserted filters are appended
 * row-major to a chain of pending pages (one small WAL record) and moved into
 * the bit-sliced groups in batches, when BLOOFI_PENDING_FLUSH entries have
 * accumulated and by VACUUM.  Used when a page holds at least
 * BLOOFI_PENDING_MIN_PER_PAGE entries (filters up to ~2 kB).
 */
#define BLOOFI_PENDING_FLUSH		256
#define BLOOFI_PENDING_MIN_PER_PAGE	4
#define BLOOFI_PENDING_ENTRY(fbytes)	(8 + (fbytes))

/* one directory entry: a group (inner node of the tree) */
typedef struct BloofiGroupRef
{
	BlockNumber start;
	uint32		cap;
	uint32		flags;			/* BLOOFI_GROUP_* */
	TransactionId move_xid;		/* retired: next XID when its leaves were moved out */
} BloofiGroupRef;

/*
 * VACUUM merges underfull groups (bloofi_vacuum.c): it RETIREs one (no
 * leaf is placed there any more) and copies its live leaves to the others;
 * a later VACUUM, once no scan that started before the copy can still run,
 * clears it and marks it EMPTY; lookups skip EMPTY groups, and a new group
 * reuses an EMPTY one of sufficient capacity before extending.
 */
#define BLOOFI_GROUP_RETIRED	0x01
#define BLOOFI_GROUP_EMPTY		0x02
/*
 * The summary is so full that testing it would prune less than half of the
 * lookups (fill^k > 1/2): lookups skip the test, as the paper's heuristic
 * (section 3.4) stops treating all-ones nodes as informative.  Set by the
 * build and by VACUUM from the exact summary; only a hint (skipping the test
 * never loses a match), so inserts, which only add bits, do not maintain it.
 */
#define BLOOFI_GROUP_SATURATED	0x04

typedef struct BloofiMetaData
{
	uint32		magic;
	uint32		version;
	uint32		have_params;	/* 0 until the first filter is indexed */
	uint32		m;
	uint32		k;
	uint32		hash;
	int32		seed;
	uint32		order;			/* max group capacity */
	BlockNumber pending_head;	/* active pending chain (InvalidBlockNumber: none) */
	BlockNumber pending_tail;
	uint32		npending;		/* entries in the active chain */
	BlockNumber flushing_head;	/* chain being moved into groups (or left by a crash) */
	BlockNumber free_head;		/* recycled pending pages */
	uint32		ngroups;
	BloofiGroupRef groups[FLEXIBLE_ARRAY_MEMBER];
} BloofiMetaData;

#define BLOOFI_MAX_GROUPS \
	((BLOOFI_PAGE_BYTES - offsetof(BloofiMetaData, groups)) / sizeof(BloofiGroupRef))

#define BloofiPageGetMeta(page) ((BloofiMetaData *) PageGetContents(page))

/* build progress phases (pg_stat_progress_create_index.phase) */
#define BLOOFI_PHASE_LOAD		2
#define BLOOFI_PHASE_SORT		3
#define BLOOFI_PHASE_WRITE		4
#define BLOOFI_PHASE_WAL		5

/* GenericXLog in batches of up to MAX_GENERIC_XLOG_PAGES pages */
typedef struct BloofiWal
{
	Relation	rel;
	GenericXLogState *state;
	int			n;
	Buffer		bufs[MAX_GENERIC_XLOG_PAGES];
	bool		keep[MAX_GENERIC_XLOG_PAGES];
} BloofiWal;

/* what the search reports (bloofi_probe) */
typedef struct BloofiSearchStats
{
	bool		counts;			/* in: read group headers for exact counts */
	int64		nodes_checked;	/* summaries tested + leaves tested */
	int64		matches;		/* leaves (with a TID) whose bits all match */
	int64		leaves_seen;	/* leaves in the groups visited */
} BloofiSearchStats;

typedef void (*BloofiMatchCallback) (ItemPointer tid, void *arg);

/* where a TID sits in a group (entry of bloofi_group_tids' hash table) */
typedef struct BloofiGroupSlot
{
	ItemPointerData tid;		/* hash key */
	uint32		group;
	uint32		slot;
} BloofiGroupSlot;

/* bloofi_utils.c */
extern void bloofi_init_reloptions(void);
extern void bloofi_wal_begin(BloofiWal *w, Relation rel);
extern Page bloofi_wal_page(BloofiWal *w, Buffer buf, bool keep, int flags);
extern void bloofi_wal_flush(BloofiWal *w);
extern void bloofi_init_page(Page page, uint16 kind, uint32 group, uint32 data_bytes);
extern void bloofi_init_meta_page(Page page, int order);
extern Buffer bloofi_new_buffer(Relation index);
extern BloofiMetaData *bloofi_read_meta(Relation index);
extern void bloofi_check_page(Relation index, Page page, BlockNumber blkno,
							  uint16 kind, uint32 group);
extern void bloofi_group_geometry(Relation index, const BloofiMetaData *meta,
								  uint32 g, BloofiGeometry *geom);
extern void bloofi_params(const BloofiMetaData *meta, BsParams *p);
extern void bloofi_require_params(Relation index, const BloofiMetaData *meta,
								  const BsParams *p);
extern uint32 bloofi_create_group(Relation index, uint32 expected_ngroups, uint32 cap);
extern uint32 bloofi_group_flags(Relation index, uint32 g);
extern void bloofi_set_group_flags(Relation index, uint32 g, uint32 flags,
								   TransactionId move_xid);
extern void bloofi_set_group_saturated(Relation index, uint32 g, bool saturated);
extern bool bloofi_summary_saturated(const uint8 *summary, uint32 m, uint32 k);
extern int	bloofi_get_order(Relation index);
extern bool bloofi_get_fastupdate(Relation index);
extern BsKey bloofi_elem_key(const BsHasher *h, Datum value, Oid typid);
extern Relation bloofi_open_index(Oid indexoid, LOCKMODE lockmode);
extern void bloofi_require_max_m(uint32 m);
extern BloofiPageOpaqueData bloofi_read_header(Relation index, BlockNumber start, uint32 g);
extern void bloofi_read_summary(Relation index, BlockNumber start, const BloofiGeometry *geom,
								uint32 g, uint8 *summary);
extern void bloofi_read_tids(Relation index, BlockNumber start, const BloofiGeometry *geom,
							 uint32 nslots, ItemPointerData *tids);
extern HTAB *bloofi_group_tids(Relation index, const BloofiMetaData *meta, const char *name);

/* bloofi_insert.c: place leaves into groups (closest summary first) */
extern void bloofi_refill_leaves(Relation index, uint32 g, int n, const uint32 *slots,
								 const uint8 *const *filters);
extern void bloofi_place_leaves(Relation index, int n, const ItemPointerData *tids,
								const uint8 *const *filters);

/* bloofi_pending.c */
extern bool bloofi_pending_usable(const BloofiMetaData *meta);
extern void bloofi_pending_insert(Relation index, ItemPointer tid, const uint8 *filter);
extern void bloofi_pending_flush(Relation index, bool wait);
extern void bloofi_pending_search(Relation index, const BloofiMetaData *meta,
								  const uint32 *pos, uint32 npos,
								  BloofiMatchCallback cb, void *arg, BloofiSearchStats *st);
typedef void (*BloofiPendingVisitor) (ItemPointer tid, const uint8 *filter, bool flushing,
									  void *arg);
extern void bloofi_pending_visit(Relation index, const BloofiMetaData *meta,
								 BloofiPendingVisitor visit, void *arg);

/* bloofi_build.c */
extern IndexBuildResult *bloofi_build(Relation heap, Relation index, IndexInfo *indexInfo);
extern void bloofi_buildempty(Relation index);
extern char *bloofi_buildphasename(int64 phasenum);

/* bloofi_insert.c */
extern bool bloofi_insert(Relation index, Datum *values, bool *isnull,
						  ItemPointer ht_ctid, Relation heapRel,
						  IndexUniqueCheck checkUnique, bool indexUnchanged,
						  IndexInfo *indexInfo);

/* bloofi_scan.c */
extern IndexScanDesc bloofi_beginscan(Relation r, int nkeys, int norderbys);
extern void bloofi_rescan(IndexScanDesc scan, ScanKey scankey, int nscankeys,
						  ScanKey orderbys, int norderbys);
extern void bloofi_endscan(IndexScanDesc scan);
extern int64 bloofi_getbitmap(IndexScanDesc scan, TIDBitmap *tbm);
extern void bloofi_search(Relation index, const BloofiMetaData *meta,
						  const uint32 *pos, uint32 npos,
						  BloofiMatchCallback cb, void *arg, BloofiSearchStats *st);

extern void bloofi_sample(Relation index, const BloofiMetaData *meta, const uint32 *pos,
						  uint32 npos, int64 max_leaves, double *matches, double *seen);

/* bloofi_vacuum.c */
extern IndexBulkDeleteResult *bloofi_bulkdelete(IndexVacuumInfo *info,
												IndexBulkDeleteResult *stats,
												IndexBulkDeleteCallback callback,
												void *callback_state);
extern IndexBulkDeleteResult *bloofi_vacuumcleanup(IndexVacuumInfo *info,
												   IndexBulkDeleteResult *stats);

/* bloofi_cost.c */
extern void bloofi_costestimate(PlannerInfo *root, IndexPath *path,
								double loop_count, Cost *indexStartupCost,
								Cost *indexTotalCost, Selectivity *indexSelectivity,
								double *indexCorrelation, double *indexPages);

/* bloofi_validate.c */
extern bool bloofi_validate(Oid opclassoid);

#endif							/* BLOOFI_H */
