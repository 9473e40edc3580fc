/*
 * pg_compat.h
 *    The differences between the PostgreSQL majors bloomsample builds against
 *    (15, 16, 17 and 18), behind one set of names, so that one source tree
 *    compiles for each of them: every shim names the major that changed the
 *    interface.  Included right after postgres.h (the glue's headers include
 *    it; a .c file that uses a shim and none of them includes it itself).
 *
 * README.md (Installation) says which majors are supported and tested;
 * docs/testing.md (Other PostgreSQL majors) how the tests run on each.
 */
#ifndef BS_PG_COMPAT_H
#define BS_PG_COMPAT_H

#include "postgres.h"

#include <inttypes.h>

#if PG_VERSION_NUM < 150000
#error "bloomsample needs PostgreSQL 15 or later"
#endif

/* 16: the varlena macros (VARSIZE, VARDATA, SET_VARSIZE...) left postgres.h */
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

/*
 * 18: pg_attribute_noreturn() is gone (pg_noreturn, a prefix, replaces it);
 * the glue's headers keep the suffix form, valid on every major
 */
#ifndef pg_attribute_noreturn
#if defined(__GNUC__) || defined(__clang__)
#define pg_attribute_noreturn() __attribute__((noreturn))
#else
#define pg_attribute_noreturn()
#endif
#endif

/*
 * 18: INT64_MODIFIER is gone; printf a uint64 with <inttypes.h>'s PRIx64
 * (uint64 is uint64_t on every platform bloomsample builds on)
 */

/*
 * 18: vacuum_delay_point(is_analyze) says whose progress counters the delay
 * goes to; before 18 it takes no argument.  bs_vacuum_delay_point(false) in
 * VACUUM's loops, (true) in ANALYZE's.
 */
#if PG_VERSION_NUM >= 180000
#define bs_vacuum_delay_point(is_analyze) vacuum_delay_point(is_analyze)
#else
#define bs_vacuum_delay_point(is_analyze) ((void) (is_analyze), vacuum_delay_point())
#endif

/*
 * 18: EXPLAIN ANALYZE shows an index scan's "Index Searches", which the
 * access method counts in scan->instrument (NULL when not instrumented)
 * beside pgstat_count_index_scan; before 18 there is only the latter.
 */
#if PG_VERSION_NUM >= 180000
#define bs_count_index_search(scan) \
	do { \
		pgstat_count_index_scan((scan)->indexRelation); \
		if ((scan)->instrument) \
			(scan)->instrument->nsearches++; \
	} while (0)
#else
#define bs_count_index_search(scan) pgstat_count_index_scan((scan)->indexRelation)
#endif

/*
 * 17: the shared transaction counters (access/transam.h) moved from
 * ShmemVariableCache to TransamVariables
 */
#if PG_VERSION_NUM >= 170000
#define BS_TRANSAM_VARIABLES TransamVariables
#else
#define BS_TRANSAM_VARIABLES ShmemVariableCache
#endif

/* 17: LockHeldByMe(tag, mode, orstronger); before, the mode exactly */
#if PG_VERSION_NUM >= 170000
#define bs_lock_held_by_me(tag, mode) LockHeldByMe((tag), (mode), false)
#else
#define bs_lock_held_by_me(tag, mode) LockHeldByMe((tag), (mode))
#endif

/*
 * 17: VacAttrStats has no attr (the pg_attribute row) any more, its
 * statistics target is stats->attstattarget (-1: the default).  An lvalue.
 */
#if PG_VERSION_NUM >= 170000
#define BS_STATS_TARGET(stats) ((stats)->attstattarget)
#else
#define BS_STATS_TARGET(stats) ((stats)->attr->attstattarget)
#endif

/*
 * 16: RelFileNode (spcNode, dbNode, relNode) became RelFileLocator (spcOid,
 * dbOid, relNumber) and Relation's rd_node rd_locator.  BS_REL_LOCATOR(rel) is
 * the relation's, of the type ReadRecentBuffer takes; BS_LOCATOR_DB and
 * BS_LOCATOR_REL its database and file number.
 */
#if PG_VERSION_NUM >= 160000
#define BS_REL_LOCATOR(rel) ((rel)->rd_locator)
#define BS_LOCATOR_DB(loc) ((loc).dbOid)
#define BS_LOCATOR_REL(loc) ((loc).relNumber)
#else
#define BS_REL_LOCATOR(rel) ((rel)->rd_node)
#define BS_LOCATOR_DB(loc) ((loc).dbNode)
#define BS_LOCATOR_REL(loc) ((loc).relNode)
#endif
/* 16: likewise an SMgrRelation's smgr_rnode.node is smgr_rlocator.locator */
#if PG_VERSION_NUM >= 160000
#define BS_SMGR_LOCATOR(smgr) ((smgr)->smgr_rlocator.locator)
#else
#define BS_SMGR_LOCATOR(smgr) ((smgr)->smgr_rnode.node)
#endif

/* 16: pg_namespace_aclcheck became object_aclcheck(NamespaceRelationId, ...) */
#if PG_VERSION_NUM >= 160000
#include "catalog/pg_namespace.h"
#include "utils/acl.h"
#ifndef pg_namespace_aclcheck
#define pg_namespace_aclcheck(nsp, role, mode) \
	object_aclcheck(NamespaceRelationId, (nsp), (role), (mode))
#endif
#endif

/*
 * 16: nbtree's page-reuse record (xl_btree_reuse_page, which
 * bloofi_wal_standby_conflict writes for Bloofi's hot-standby conflicts)
 * renamed its relation and horizon fields and gained isCatalogRel.  These
 * name the fields; bloofi_utils.c checks the record's offsets and size per
 * major at compile time.
 */
#if PG_VERSION_NUM >= 160000
#define BS_REUSE_PAGE_REL locator
#define BS_REUSE_PAGE_HORIZON snapshotConflictHorizon
#else
#define BS_REUSE_PAGE_REL node
#define BS_REUSE_PAGE_HORIZON latestRemovedFullXid
#endif

/*
 * 17: the read-stream API (storage/read_stream.h): a callback names the
 * blocks, the stream reads ahead of the consumer (17: posix_fadvise and
 * vectored reads; 18: asynchronous I/O, io_method).  BS_HAVE_READ_STREAM
 * says whether it is there; BS_READ_STREAM_FLAGS are the flags of a stream
 * whose callback never blocks and whose blocks are all wanted at once (18:
 * READ_STREAM_USE_BATCHING submits their reads as one batch).
 */
#if PG_VERSION_NUM >= 170000
#define BS_HAVE_READ_STREAM 1
#include "storage/read_stream.h"
#ifdef READ_STREAM_USE_BATCHING
#define BS_READ_STREAM_FLAGS (READ_STREAM_FULL | READ_STREAM_USE_BATCHING)
#else
#define BS_READ_STREAM_FLAGS READ_STREAM_FULL
#endif
#else
#define BS_HAVE_READ_STREAM 0
#endif

#endif							/* BS_PG_COMPAT_H */
