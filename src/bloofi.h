/*
 * bloofi.h
 *    Shared definitions of the Bloofi index access method (PostgreSQL glue).
 *
 * The index is the paper's tree of order d: leaves are the rows' filters,
 * every other node holds the OR of its children.  On disk every node is a
 * bit-sliced matrix of its children's values (src/core/bloofi_layout.h): a
 * contiguous run of pages
 *
 *   [tid pages][value pages][slice pages]
 *
 * whose tid slots hold the children (heap TIDs at level 0, the "bottom"
 * nodes; at level >= 1 the first block of the child node, as an
 * ItemPointer with offset 1), whose value pages hold the node's own value (the OR
 * of its children) and whose slices hold the children's values column-wise.
 * The first tid page is the node's header (level, capacity, counts, flags
 * in the page opaque).  A lookup tests, at each node it visits, all of its
 * children at once: the AND of the k slices of the element's positions.
 *
 *   block 0          metapage: parameters, reloption snapshot, root, height,
 *                    pending list, chain of retired nodes, the free-page
 *                    map's directory and the writer's intents
 *
 * Other pages are pending pages and bitmap pages of the free-page map
 * (bloofi_freespace.c).  Design notes, with the locking protocol, the
 * invariants and space management: docs/bloofi.md.  Version 2 of the format is that of extension 1.0 with
 * the free-page map added: a 1.0 index reads as one without a map (its
 * chain of FREE nodes moves into the map at its next VACUUM).
 */
#ifndef BLOOFI_H
#define BLOOFI_H

#include "postgres.h"
#include "pg_compat.h"

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
/*
 * Version 3 (extension 1.2): bottom nodes may be SPARSE (below).  Indexes of
 * version 2 (1.0, 1.1) have none and are read and written as they are.
 * Version 4 (1.2): a SPARSE node whose free slots may still hold a dead
 * leaf's lists says so (BLOOFI_NODE_STALE), so that a lookup returns the
 * leaves it finds without a recheck (bloofi_search, "Exact matches" in
 * docs/bloofi.md); indexes of versions 2 and 3 are read and written as
 * they are, and every match they return is rechecked.
 */
#define BLOOFI_VERSION			4
#define BLOOFI_MIN_VERSION		2
#define BLOOFI_VERSION_EXACT	4
#define BLOOFI_METAPAGE_BLKNO	0
#define BLOOFI_PAGE_ID			0xFF84

/* page kinds */
#define BLOOFI_PAGE_META		1
#define BLOOFI_PAGE_TID			2
#define BLOOFI_PAGE_VALUE		3
#define BLOOFI_PAGE_SLICE		4
#define BLOOFI_PAGE_PENDING		5
#define BLOOFI_PAGE_FSM			6	/* a bitmap page of the free-page map */
#define BLOOFI_PAGE_SPARSE		7	/* a page of a sparse node's slices */

typedef struct BloofiPageOpaqueData
{
	BlockNumber node;			/* first block of the node (0: metapage,
								 * pending pages) */
	BlockNumber next;			/* pending pages: next page; node header: next
								 * node of the retired or free chain */
	uint32		nused;			/* node header: slots ever used (high-water);
								 * pending: entries */
	uint32		nlive;			/* node header: slots holding a child;
								 * pending: the page's place in its chain (1:
								 * the head; 0: written before 1.2) */
	uint32		cap;			/* node header: slots */
	TransactionId xid;			/* node header, retired: next XID when it was
								 * replaced */
	uint16		level;			/* node header: 0 = children are heap TIDs */
	uint16		flags;			/* node header: BLOOFI_NODE_* */
	uint16		kind;			/* BLOOFI_PAGE_* */
	uint16		bloofi_page_id; /* BLOOFI_PAGE_ID, for pg_filedump-like tools */
} BloofiPageOpaqueData;

typedef BloofiPageOpaqueData *BloofiPageOpaque;

/*
 * A node replaced by a copy (split, growth, merge, repack, compaction) is
 * RETIRED: unchanged from then on and still readable by lookups that
 * reached it through the old parent; a VACUUM frees its pages (marks them
 * in the free-page map) once no such lookup can run any more, and new nodes
 * of any size reuse them.  FREE marked the nodes of the free chain of
 * version 1.0 (still read, to move them into the map).
 */
#define BLOOFI_NODE_RETIRED		0x01
#define BLOOFI_NODE_FREE		0x02
/*
 * A hint: the node's value was saturated (fill^k > 1/2) when last written
 * whole or recomputed by VACUUM.  A lookup does not test such a root's value
 * (it would prune less than half of the lookups: section 3.4's point); a
 * stale hint only costs or saves that one test, never a match.
 */
#define BLOOFI_NODE_SATURATED	0x04
/*
 * A SPARSE node: a bottom node whose slices are stored as lists
 * (src/core/bloofi_sparse.h; not a filter's sparse form, the position list
 * of src/core/bs_sparse.h): [tid pages][value pages][sparse pages], the
 * sparse pages holding the lists position -> slots as one byte stream whose
 * header gives their number.  Written whole by the bulk build when smaller
 * than the dense slices, never changed in place: an insert into one
 * rewrites it dense first (bloofi_insert.c); VACUUM clears its dead TIDs
 * only, whose bits stay in the lists behind the invalid TID until the node
 * is rewritten (bloofi_sparse_pages.c in the glue).
 */
#define BLOOFI_NODE_SPARSE		0x08
/*
 * A SPARSE node some of whose free slots may still hold the lists of the
 * dead leaf VACUUM's pass 3 took out (set in the record that frees the
 * slot; a node written whole never has it).  A leaf put into such a slot
 * has those bits in its column until the node is rewritten, so a lookup
 * rechecks every leaf of the node.
 */
#define BLOOFI_NODE_STALE		0x10

/* (a function, not a macro: its argument is evaluated once) */
static inline BloofiPageOpaque
BloofiPageGetOpaque(Page page)
{
	return (BloofiPageOpaque) PageGetSpecialPointer(page);
}
#define BLOOFI_PAGE_BYTES \
	((uint32) (BLCKSZ - MAXALIGN(SizeOfPageHeaderData) - MAXALIGN(sizeof(BloofiPageOpaqueData))))

/* reloptions */
#define BLOOFI_DEFAULT_ORDER	32
#define BLOOFI_MIN_ORDER		2
#define BLOOFI_MAX_ORDER		1000
/* 8 * BLOOFI_PAGE_BYTES rounded down to 8: one slice fills a page */
#define BLOOFI_MAX_CAP			(BLOOFI_PAGE_BYTES * 8)
#define BLOOFI_DEFAULT_LEAF_CAP	BLOOFI_MAX_CAP
#define BLOOFI_MIN_LEAF_CAP		8

typedef struct BloofiOptions
{
	int32		vl_len_;
	int			order;			/* d: nodes have d..2d children */
	int			leaf_capacity;	/* most leaves of a saturated bottom node */
	bool		fastupdate;		/* inserts go to the pending list */
} BloofiOptions;

/*
 * The pending list (like GIN's fastupdate): inserted filters are appended
 * row-major to a chain of pending pages (one small WAL record) and moved into
 * the tree in batches, by VACUUM and when the list is full: narrow filters
 * (dense entry at most BLOOFI_PENDING_NARROW_ENTRY, a quarter page) at
 * BLOOFI_PENDING_FLUSH entries, as in 1.1; wide ones at
 * BLOOFI_PENDING_FLUSH_WIDE entries or BLOOFI_PENDING_FLUSH_PAGES pages.  An
 * entry is 8 bytes (the heap TID, then a uint16 form) and its filter: dense
 * (form 0: the m bits, 8 * words bytes) or sparse (form
 * BLOOFI_PENDING_SPARSE | len: the len-byte position list of bs_sparse.h,
 * padded to 8), whichever is smaller.  A filter whose entry would exceed a
 * page is stored as a group of sparse parts, consecutive entries of the same
 * TID each holding a run of its positions, all but the last with
 * BLOOFI_PENDING_PART set (bloofi_pending.c).  A flush decodes sparse
 * entries to dense bits in batches of at most 1,024 entries and
 * maintenance_work_mem bytes.
 */
#define BLOOFI_PENDING_FLUSH		256
#define BLOOFI_PENDING_FLUSH_WIDE	4096
#define BLOOFI_PENDING_FLUSH_PAGES	64
#define BLOOFI_PENDING_MIN_PER_PAGE	4
#define BLOOFI_PENDING_ENTRY(fbytes)	(8 + (fbytes))
#define BLOOFI_PENDING_SPARSE		0x8000
#define BLOOFI_PENDING_PART			0x4000	/* (sparse) more parts follow */
#define BLOOFI_PENDING_NARROW_ENTRY	(BLOOFI_PAGE_BYTES / BLOOFI_PENDING_MIN_PER_PAGE)
#define BLOOFI_PENDING_MAX_ENTRY	BLOOFI_PAGE_BYTES

typedef struct BloofiMetaData
{
	uint32		magic;
	uint32		version;
	uint32		have_params;	/* 0 until the first filter is indexed */
	uint32		m;
	uint32		k;
	uint32		hash;
	int32		seed;
	uint32		order;			/* d */
	uint32		leaf_cap;		/* leaf_capacity reloption, rounded to 8 */
	BlockNumber root;			/* InvalidBlockNumber: no node yet */
	uint32		height;			/* levels of nodes: root level + 1 (0: no
								 * node) */
	BlockNumber pending_head;	/* active pending chain (InvalidBlockNumber:
								 * none) */
	BlockNumber pending_tail;
	uint32		npending;		/* entries in the active chain */
	BlockNumber flushing_head;	/* chain being moved into the tree (or left by
								 * a crash) */
	BlockNumber free_head;		/* recycled pending pages */
	BlockNumber retired_head;	/* chain of RETIRED nodes (through their
								 * header's next) */
	BlockNumber freenode_head;	/* 1.0's chain of FREE nodes (VACUUM empties
								 * it) */
} BloofiMetaData;

#define BloofiPageGetMeta(page) ((BloofiMetaData *) PageGetContents(page))

/*
 * Space management (bloofi_freespace.c): the metapage also holds, at a fixed
 * offset after BloofiMetaData, the directory of the free-page map's bitmap
 * pages and the intents of the tree writer in progress.  An index written
 * before these existed reads them as zeros: no bitmap page, no intent.
 *
 * Bitmap page i (its block is fsm[i]; 0: none yet) has one bit per block of
 * region i, blocks [i * BLOOFI_FSM_BITS, (i + 1) * BLOOFI_FSM_BITS): set =
 * free for reuse.  It lies in its own region (made from the first block of
 * the first run freed there).  Only tree writers (tree lock) use and change
 * the map, always under the metapage's exclusive lock; a bit is never set
 * for a block at or past the end of the file.
 *
 * An intent records, in the same WAL record as the change that creates it,
 * pages whose fate a tree writer has not settled yet:
 *   NEW      a run allocated for a new node not linked into the tree yet
 *            (dropped by the record that links it);
 *   OLD      a node unlinked by that record, to be retired (dropped by the
 *            record that retires it);
 *   FREEING  a run taken off the retired (or a free) chain whose bits are
 *            being set;
 *   TRUNCATE blocks from `start` on, cleared from the map, about to be cut
 *            off the file.
 * A writer that stops half-way (cancel, ERROR, crash) leaves its intents
 * behind, and the next one to take the tree lock settles them first
 * (bloofi_freespace_recover): NEW runs and what TRUNCATE did not cut are freed,
 * OLD nodes retired, FREEING bits set.  So no page is ever lost or owned
 * twice, whatever prefix of a writer's records reached the disk.
 */
#define BLOOFI_FSM_BITS			(BLOOFI_PAGE_BYTES * 8)
#define BLOOFI_FSM_DIR			512 /* regions: 512 * 65216 blocks (255 GB of
									 * 8 kB) */
#define BLOOFI_MAX_INTENTS		200 /* > the 2 * BLOOFI_MAX_HEIGHT + 3 of one
									 * insert */
#define BLOOFI_META_SPACE_OFFSET 512

#define BLOOFI_INTENT_NEW		1
#define BLOOFI_INTENT_OLD		2
#define BLOOFI_INTENT_FREEING	3
#define BLOOFI_INTENT_TRUNCATE	4

typedef struct BloofiIntent
{
	BlockNumber start;
	uint32		npages;			/* TRUNCATE: unused */
	uint32		kind;			/* BLOOFI_INTENT_* */
} BloofiIntent;

typedef struct BloofiSpaceData
{
	uint32		nintents;
	uint32		reserved;
	BlockNumber fsm[BLOOFI_FSM_DIR];
	BloofiIntent intents[BLOOFI_MAX_INTENTS];
} BloofiSpaceData;

#define BloofiPageGetSpace(page) \
	((BloofiSpaceData *) ((char *) PageGetContents(page) + BLOOFI_META_SPACE_OFFSET))

/* what VACUUM did to the space (bloofi_vacuum.c reports it) */
typedef struct BloofiSpaceReport
{
	BlockNumber retired;		/* pages of nodes this VACUUM took out of the
								 * tree */
	BlockNumber freed;			/* pages it made reusable (retired nodes,
								 * pending pages) */
	BlockNumber truncated;		/* pages it cut off the end of the file */
	BlockNumber moved;			/* pages of nodes it moved towards the front */
} BloofiSpaceReport;

/* build progress phases (pg_stat_progress_create_index.phase) */
#define BLOOFI_PHASE_LOAD		2
#define BLOOFI_PHASE_SORT		3
#define BLOOFI_PHASE_WRITE		4
#define BLOOFI_PHASE_INNER		5
#define BLOOFI_PHASE_WAL		6

/* GenericXLog in batches of up to MAX_GENERIC_XLOG_PAGES pages */
typedef struct BloofiWal
{
	Relation	rel;
	GenericXLogState *state;
	int			n;
	Buffer		bufs[MAX_GENERIC_XLOG_PAGES];
	bool		keep[MAX_GENERIC_XLOG_PAGES];
} BloofiWal;

/* a node, as read from its header page */
typedef struct BloofiNode
{
	BlockNumber start;
	uint32		cap;
	uint32		nused;
	uint32		nlive;
	uint16		level;
	uint16		flags;
	TransactionId xid;
	BlockNumber next;
	BloofiGeometry geom;		/* the dense geometry; for a SPARSE node
								 * total_pages counts its sparse pages */
	uint32		sparse_pages;	/* SPARSE: pages of the lists (0: dense) */
	XLogRecPtr	lsn;			/* the header page's LSN when it was read
								 * (a lookup's check that no switch came
								 * between its reads of the node) */
} BloofiNode;

static inline bool
bloofi_node_is_sparse(const BloofiNode *node)
{
	return (node->flags & BLOOFI_NODE_SPARSE) != 0;
}

/*
 * Whether bottom node X's live slots hold exactly their leaves' bits, so
 * that a lookup's match there needs no recheck (docs/bloofi.md, "Exact
 * matches"): in an index of version 4 or later, a dense node (VACUUM clears
 * a dead leaf's column before its TID), or a SPARSE one without
 * BLOOFI_NODE_STALE.
 */
static inline bool
bloofi_node_exact(const BloofiMetaData *meta, const BloofiNode *X)
{
	return meta->version >= BLOOFI_VERSION_EXACT &&
		(!bloofi_node_is_sparse(X) || !(X->flags & BLOOFI_NODE_STALE));
}

/* the block of a SPARSE node's sparse page p (they follow its TID and value pages) */
static inline BlockNumber
bloofi_sparse_block(const BloofiNode *node, uint32 p)
{
	return node->start + node->geom.tid_pages + node->geom.value_pages + p;
}

/* the block of a node's slice page sp (slice pages follow its TID and value pages) */
static inline BlockNumber
bloofi_slice_block(const BloofiNode *node, uint32 sp)
{
	return node->start + node->geom.tid_pages + node->geom.value_pages + sp;
}

/* the tallest tree we descend (d >= 2: 2^64 leaves need fewer levels) */
#define BLOOFI_MAX_HEIGHT		64

/* ERROR: the node at block blk is damaged (errdetail from the arguments) */
#define BLOOFI_NODE_CORRUPT(index, blk, ...) \
	ereport(ERROR, \
			(errcode(ERRCODE_INDEX_CORRUPTED), \
			 errmsg("index \"%s\" has an invalid node at block %u", \
					RelationGetRelationName(index), (blk)), \
			 errdetail(__VA_ARGS__), \
			 errhint("Please REINDEX it.")))

/* a root-to-node path: path[i] = (node, slot of the next node in it) */
typedef struct BloofiPathStep
{
	BlockNumber node;
	uint32		slot;
} BloofiPathStep;

/* what the search reports (bloofi_probe) */
typedef struct BloofiSearchStats
{
	int64		nodes_checked;	/* node values tested: the root's, then every
								 * child of every bit-sliced node visited, and
								 * the list entries a SPARSE bottom node read
								 * (its filters in no list read are never
								 * looked at) */
	int64		matches;		/* leaves (with a TID) whose bits all match */
	int64		leaves_seen;	/* leaves in the bottom nodes visited */
	int64		nodes_opened;	/* tree nodes bloofi_search read */
	int64		max_nodes;		/* set by the caller: bloofi_search stops
								 * before opening more nodes than this (0: no
								 * limit; the planner's probe) */
	bool		truncated;		/* it stopped there: matches is a lower
								 * bound */
} BloofiSearchStats;

/*
 * A match of a lookup: heap TID tid, exact when the leaf's filter as the
 * index holds it is the heap tuple's (no recheck needed: bloofi_search)
 */
typedef void (*BloofiMatchCallback) (ItemPointer tid, bool exact, void *arg);

/* where a heap TID sits in the tree (entry of bloofi_leaf_slots' hash table) */
typedef struct BloofiLeafSlot
{
	ItemPointerData tid;		/* hash key */
	BlockNumber node;			/* bottom node */
	uint32		slot;
} BloofiLeafSlot;

/* child reference stored in an inner node's tid slot */
static inline void
bloofi_child_ref(ItemPointer t, BlockNumber child)
{
	ItemPointerSet(t, child, 1);
}

/* bloofi_utils.c */
extern void bloofi_wal_begin(BloofiWal *w, Relation rel);
extern Page bloofi_wal_begin_meta(BloofiWal *w, Relation index);
extern Page bloofi_wal_page(BloofiWal *w, Buffer buf, bool keep, int flags);
extern void bloofi_wal_flush(BloofiWal *w);
extern void bloofi_dev_sleep(int ms);
extern void bloofi_wal_standby_conflict(Relation index, BlockNumber start, TransactionId xid);
extern void bloofi_init_page(Page page, uint16 kind, BlockNumber node, uint32 data_bytes);
extern void bloofi_init_meta_page(Page page, int order, int leaf_cap);
extern Buffer bloofi_new_buffer(Relation index);
extern BloofiMetaData *bloofi_read_meta(Relation index);
extern void bloofi_check_page(Relation index, Page page, BlockNumber blkno,
							  uint16 kind, BlockNumber node);
extern void bloofi_params(const BloofiMetaData *meta, BsParams *p);
extern void bloofi_require_params(Relation index, const BloofiMetaData *meta,
								  const BsParams *p);
extern bool bloofi_value_saturated(const uint8 *value, uint32 m, uint32 k);
extern int	bloofi_get_order(Relation index);
extern bool bloofi_get_fastupdate(Relation index);
extern Relation bloofi_open_index(Oid indexoid, LOCKMODE lockmode);
extern void bloofi_require_max_m(uint32 m);

/* bloofi_node.c: one node's pages */
extern void bloofi_node_read(Relation index, const BloofiMetaData *meta, BlockNumber start,
							 BloofiNode *node);
extern void bloofi_node_read_lookup(Relation index, const BloofiMetaData *meta,
									BlockNumber start, BloofiNode *node, Buffer *hdr);
/* the number of sparse pages of SPARSE node (its header read), checked */
extern uint32 bloofi_sparse_node_pages(Relation index, const BloofiMetaData *meta,
									   const BloofiNode *node);
struct BloofiListedHeader;		/* core/bloofi_sparse_listed.h */
extern uint32 bloofi_sparse_head_pages(Relation index, uint32 m, const BloofiNode *node,
									   const struct BloofiListedHeader *lh);
extern uint32 bloofi_node_cap(uint32 order, uint64 want);
extern int	bloofi_get_leaf_cap(Relation index);
extern uint32 bloofi_effective_leaf_cap(const BloofiMetaData *meta);
extern uint32 bloofi_fanout_limit(const BloofiMetaData *meta, uint16 level, const uint8 *val);
extern uint32 bloofi_sparse_leaf_cap(const BloofiMetaData *meta);
extern uint32 bloofi_node_fanout_limit(const BloofiMetaData *meta, const BloofiNode *X,
									   const uint8 *val);
extern bool bloofi_node_rows_fit(const BloofiMetaData *meta, const BloofiNode *X);
extern void bloofi_node_read_value(Relation index, const BloofiNode *node, uint8 *value);
extern void bloofi_node_read_tids(Relation index, const BloofiNode *node, uint32 nslots,
								  ItemPointerData *tids);
extern void bloofi_node_read_columns(Relation index, const BloofiNode *node, uint32 nslots,
									 const bool *want, uint8 *filters);
extern int	bloofi_node_children(Relation index, const BloofiNode *X, ItemPointerData *tids,
								 uint8 *vals, uint32 *slots);
extern void bloofi_node_update_value(Relation index, const BloofiNode *node,
									 const uint8 *value, bool exact);
extern void bloofi_node_wal_tid_pages(Relation index, BloofiWal *w, BlockNumber start,
									  const uint32 *pages, int from, int n, Page *wpages);

extern void bloofi_node_set_bits(Relation index, const BloofiNode *node, int n,
								 const uint32 *slots, const uint8 *const *filters);
extern void bloofi_node_put_columns(Relation index, const BloofiNode *node, int n,
									const uint32 *slots, const uint8 *const *filters);
extern void bloofi_node_set_saturated(Relation index, const BloofiNode *node, bool saturated);
extern BlockNumber bloofi_node_copy_below(Relation index, const BloofiNode *X);
extern bool bloofi_node_switch_slots(Relation index, const BloofiNode *X, int nold,
									 const uint32 *oldslots, int nnew, uint32 *newslots);
extern void bloofi_node_switch(Relation index, BloofiNode *X, int nold, const uint32 *oldslots,
							   int nnew, const uint32 *newslots, const BlockNumber *news,
							   int nretire, const BlockNumber *retire);
extern void bloofi_set_root(Relation index, BlockNumber root, uint32 height,
							int nretire, const BlockNumber *retire);

/* bloofi_node_write.c: writing whole new nodes */
extern BlockNumber bloofi_node_write(Relation index, const BloofiMetaData *meta, uint16 level,
									 uint32 cap, uint32 n, const ItemPointerData *tids,
									 const uint8 *const *filters, uint8 *value_out, bool wal);
/* the form bloofi_node_write_form gives a bottom node */
#define BLOOFI_FORM_DENSE		0
#define BLOOFI_FORM_CHOOSE		1	/* SPARSE when it takes fewer pages */
#define BLOOFI_FORM_SPARSE		2
extern BlockNumber bloofi_node_write_form(Relation index, const BloofiMetaData *meta,
										  uint16 level, uint32 cap, uint32 n,
										  const ItemPointerData *tids,
										  const uint8 *const *filters, uint8 *value_out,
										  bool wal, int form);
extern BlockNumber bloofi_node_write_lists(Relation index, const BloofiMetaData *meta,
										   uint32 cap, uint32 n, const ItemPointerData *tids,
										   const uint8 *v1, uint8 *value_out, bool wal);
extern int	bloofi_node_write_gathered(Relation index, const BloofiMetaData *meta, int nsrc,
									   const BloofiNode *srcs, int nnew, uint32 cap,
									   BlockNumber *news, uint8 *const *newvals);

/* above this many children a split cuts in slot order (the choice is O(n^2)) */
#define BLOOFI_SPLIT_CHOICE_MAX	512
extern void bloofi_node_write_halves(Relation index, const BloofiMetaData *meta, uint16 level,
									 int n, const ItemPointerData *tids,
									 const uint8 *const *vals, BlockNumber *news,
									 uint8 *const *newvals);

/* bloofi_walk.c: paths and walks over the tree */
extern bool bloofi_find_path(Relation index, const BloofiMetaData *meta, BlockNumber target,
							 BloofiPathStep *path, int *depth);
typedef void (*BloofiNodeVisitor) (Relation index, const BloofiNode *node,
								   const ItemPointerData *slots, void *arg);
extern void bloofi_walk_nodes(Relation index, const BloofiMetaData *meta,
							  BloofiNodeVisitor visit, void *arg);
extern HTAB *bloofi_leaf_slots(Relation index, const BloofiMetaData *meta, const char *name);

/* bloofi_sparse_pages.c: the pages of SPARSE bottom nodes (core/bloofi_sparse.h) */
extern void bloofi_sparse_fill_page(const uint8 *stream, uint64 len, uint32 p, BlockNumber start,
									Page page);
extern uint8 *bloofi_sparse_pack(const uint8 *v1, uint64 *len, uint32 *npages,
								 uint32 *direct_pages);
extern void bloofi_sparse_value(const uint8 *v1, uint8 *value);
extern uint8 *bloofi_sparse_relist(const uint8 *v1, const BloofiNode *B,
								   const ItemPointerData *tids, int n, const uint32 *slots,
								   const uint8 *const *filters, uint32 nwords);
extern uint8 *bloofi_sparse_encode_node(uint32 m, uint32 cap, uint32 n,
										const ItemPointerData *tids,
										const uint8 *const *filters, uint64 *len,
										uint32 *npages, uint32 *direct_pages);
extern uint8 *bloofi_sparse_load(Relation index, const BloofiNode *node);
/* a lookup's buffers for SPARSE nodes, allocated once per scan (zeroed: none yet) */
typedef struct BloofiSparseScratch
{
	uint8	   *lists;			/* a position's list, then the intersection */
	uint8	   *list2;			/* the next position's list */
	uint8	   *block;			/* LISTED: a block's data */
	uint32		lists_cap;		/* (bytes, as every _cap) */
	uint32		list2_cap;
	uint32		block_cap;
	uint32		nres;			/* the last match: its slots, increasing, at
								 * the start of lists (uint16 each) */
} BloofiSparseScratch;

extern bool bloofi_sparse_match(Relation index, const BloofiNode *node, const uint32 *pos,
								uint32 npos, uint64 *acc, uint64 *entries,
								BloofiSparseScratch *sc);
extern void bloofi_sparse_scratch_free(BloofiSparseScratch *sc);
extern void bloofi_sparse_slice_page(const BloofiNode *node, const uint8 *stream, uint32 sp,
									 uint8 *page);

/* bloofi_freespace.c: free-page map, allocation, recycling, truncation */
extern void bloofi_lock_tree(Relation index);
extern bool bloofi_trylock_tree(Relation index);
extern void bloofi_unlock_tree(Relation index);
extern BlockNumber bloofi_freespace_alloc(Relation index, uint32 npages);
extern BlockNumber bloofi_freespace_alloc_below(Relation index, uint32 npages, BlockNumber limit);
extern void bloofi_freespace_link(Page metapage, int nretire, const BlockNumber *retire);
extern void bloofi_freespace_retire(Relation index, BlockNumber start);
extern void bloofi_freespace_recover(Relation index);
extern BlockNumber bloofi_freespace_recycle_settled(Relation index);
extern BlockNumber bloofi_freespace_recycle(Relation index, bool all);
extern BlockNumber bloofi_freespace_reclaim_pending(Relation index);
extern BlockNumber bloofi_freespace_truncate(Relation index);
extern void bloofi_freespace_move_bitmaps(Relation index);
extern void bloofi_freespace_counts(Relation index, int64 *free_pages, int64 *free_runs,
								int64 *retired_nodes, int64 *retired_pages);

/* what bloofi_freespace_visit reports a run of blocks to be (bloofi_check) */
typedef enum BloofiSpaceOwner
{
	BLOOFI_OWNER_NONE = 0,
	BLOOFI_OWNER_META,
	BLOOFI_OWNER_TREE,			/* a node of the tree */
	BLOOFI_OWNER_RETIRED,		/* a node of the retired chain */
	BLOOFI_OWNER_FREE,			/* free in the map */
	BLOOFI_OWNER_FSM,			/* a bitmap page of the map */
	BLOOFI_OWNER_PENDING,		/* a page of a pending chain */
	BLOOFI_OWNER_NEW,			/* NEW intent */
	BLOOFI_OWNER_OLD,			/* OLD intent */
	BLOOFI_OWNER_FREEING,		/* FREEING intent */
	BLOOFI_OWNER_TRUNCATE,		/* TRUNCATE intent (to the end of the file) */
	BLOOFI_OWNER_LEGACY_FREE	/* the FREE node chain of an index of version
								 * 1.0 */
} BloofiSpaceOwner;
typedef void (*BloofiSpaceVisitor) (BloofiSpaceOwner owner, BlockNumber start, BlockNumber n,
									void *arg);
extern void bloofi_freespace_visit(Relation index, BloofiSpaceVisitor visit, void *arg);

/* bloofi_insert_batch.c: leaves into the tree (caller holds the tree lock) */
extern void bloofi_insert_leaves(Relation index, int n, const ItemPointerData *tids,
								 const uint8 *const *filters);

/* bloofi_insert.c: one leaf's steps (caller holds the tree lock) */
extern void bloofi_refill_leaves(Relation index, BlockNumber node, int n, const uint32 *slots,
								 const uint8 *const *filters);
extern void bloofi_propagate(Relation index, const BloofiMetaData *meta,
							 const BloofiPathStep *path, int depth, const uint8 *filter);

/* bloofi_vacuum_merge.c: the merges of amvacuumcleanup (caller holds the tree lock) */
extern BlockNumber bloofi_vac_merge(Relation index);

/* bloofi_pending.c */
extern bool bloofi_pending_usable(const BloofiMetaData *meta);
extern double bloofi_pending_pages_estimate(const BloofiMetaData *meta);
extern bool bloofi_pending_insert(Relation index, const BloofiMetaData *meta, ItemPointer tid,
								  const uint8 *filter);
extern void bloofi_pending_flush(Relation index, bool wait);
extern void bloofi_pending_search(Relation index, const BloofiMetaData *meta,
								  const uint32 *pos, uint32 npos,
								  BloofiMatchCallback cb, void *arg, BloofiSearchStats *st);

/*
 * One pending entry as a visitor sees it (pointing into a copy of its page):
 * the dense bits (8-byte aligned), or when bits is NULL the sparse position
 * list, opened (its lengths checked against m, its contents not yet).
 */
typedef struct BloofiPendingEntry
{
	ItemPointerData tid;
	const uint8 *bits;			/* dense: the m bits; NULL when sparse */
	const uint8 *enc;			/* sparse: the encoding, enc_len bytes */
	uint32		enc_len;
	BsSparse	sparse;			/* sparse: enc opened */
	bool		part;			/* as parsed: BLOOFI_PENDING_PART */
	int			nparts;			/* a group of parts, as visited: bits and enc NULL */
	const BsSparse *parts;		/* ... its parts opened, in position order */
} BloofiPendingEntry;
typedef void (*BloofiPendingVisitor) (const BloofiPendingEntry *e, bool flushing, void *arg);
extern void bloofi_pending_visit(Relation index, const BloofiMetaData *meta, bool strict,
								 BloofiPendingVisitor visit, void *arg);
extern const uint8 *bloofi_pending_entry_bits(Relation index, const BloofiMetaData *meta,
											  const BloofiPendingEntry *e, uint8 *scratch);

/* bloofi_pending_group.c: a chain's groups of parts, read as single entries */
extern void bloofi_pending_open(Relation index, BlockNumber blk, const uint8 *enc, uint32 len,
								uint32 m, BsSparse *s);
typedef struct BloofiPendingGroup BloofiPendingGroup;
extern BloofiPendingGroup *bloofi_pending_group_new(void);
extern void bloofi_pending_group_entry(Relation index, const BloofiMetaData *meta,
									   BlockNumber blk, const BloofiPendingEntry *e,
									   BloofiPendingGroup *g, bool flushing,
									   BloofiPendingVisitor visit, void *arg);
extern void bloofi_pending_group_free(BloofiPendingGroup *g);

/* bloofi_build.c */
extern IndexBuildResult *bloofi_build(Relation heap, Relation index, IndexInfo *indexInfo);
extern void bloofi_buildempty(Relation index);
extern char *bloofi_buildphasename(int64 phasenum);

/* bloofi_am.c: handler, reloptions, aminsert */
extern void bloofi_init_reloptions(void);
extern bool bloofi_insert(Relation index, Datum *values, bool *isnull,
						  ItemPointer ht_ctid, Relation heapRel,
						  IndexUniqueCheck checkUnique, bool indexUnchanged,
						  IndexInfo *indexInfo);

/* bloofi_amscan.c: the access method's scan entry points */
extern IndexScanDesc bloofi_beginscan(Relation r, int nkeys, int norderbys);
extern void bloofi_rescan(IndexScanDesc scan, ScanKey scankey, int nscankeys,
						  ScanKey orderbys, int norderbys);
extern void bloofi_endscan(IndexScanDesc scan);
extern int64 bloofi_getbitmap(IndexScanDesc scan, TIDBitmap *tbm);
extern int	bloofi_elem_keys(const BsHasher *h, Datum value, Oid typid, BsKey *keys);

/* bloofi_scan.c: the search of the tree */
extern void bloofi_search(Relation index, const BloofiMetaData *meta,
						  const uint32 *pos, uint32 npos,
						  BloofiMatchCallback cb, void *arg, BloofiSearchStats *st);
extern void bloofi_count_key(Relation index, BloofiMetaData **meta, const BsHasher *h,
							 uint32 k, BsKey key, BloofiMatchCallback cb, void *arg,
							 BloofiSearchStats *st);
extern bool bloofi_read_stream;
extern bool bloofi_listed_fence_page;
extern int	bloofi_write_delay;
extern void bloofi_init_gucs(void);

/* bloofi_planprobe.c: the planner counts a constant's matches in the index */
extern bool bloofi_plan_probe;
extern int	bloofi_plan_probe_nodes;
extern void bloofi_plan_probe_init_gucs(void);

/* bloofi_probe_reuse.c: the scan takes the entries the planner's probe found */
typedef struct BloofiProbeCollector
{
	bool		on;				/* collecting (false: off, or past the limit) */
	uint64		completion;		/* xactCompletionCount before the probe */
	CommandId	cid;			/* the command id then */
	int			ntids;
	int			cap;
	ItemPointerData *tids;		/* palloc'd in the caller's context */
	bool	   *exact;			/* each TID's match exact (the same) */
} BloofiProbeCollector;

extern bool bloofi_plan_probe_reuse;
extern void bloofi_plan_probe_reuse_init_gucs(void);
extern void bloofi_probe_collector_init(BloofiProbeCollector *c);
extern void bloofi_probe_collect(ItemPointer tid, bool exact, void *arg);
extern void bloofi_probe_keep(BloofiProbeCollector *c, Oid index, const BsKey *keys,
							  int nkeys);
extern bool bloofi_probe_tids_take(IndexScanDesc scan, const BsKey *keys, int nkeys,
								   TIDBitmap *tbm, int64 *matches);

/* bloofi_recent.c: where a page was found last time (a hint) */
extern Buffer bloofi_read_recent(Relation index, BlockNumber blk);
extern Buffer bloofi_recent_locate(Relation index, BlockNumber blk);
extern uint64 bloofi_recent_miss_count(void);
extern Buffer bloofi_recent_known(Relation index, BlockNumber blk);
extern void bloofi_recent_remember(Relation index, BlockNumber blk, Buffer buf);

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
