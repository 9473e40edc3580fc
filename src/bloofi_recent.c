/*
 * bloofi_recent.c
 *    Where a lookup found each Bloofi page last time: a backend-local map
 *    from (index file, block) to the shared buffer that held it, so that a
 *    warm lookup pins its pages with ReadRecentBuffer (which checks the
 *    buffer's tag itself under its header lock) instead of a lookup in the
 *    shared buffer table (a hash and a partition lock per page: 14 % of a
 *    dense lookup's CPU, docs/bloofi.md, issue 21).
 *
 * The map is only a hint: an entry is never trusted, only tried.  When the
 * buffer has been given another page, or the index a new file (REINDEX,
 * TRUNCATE), the tag differs, ReadRecentBuffer fails and the page is read
 * the ordinary way (ReadBuffer), which refreshes the entry.  So nothing has
 * to invalidate it.  One array of buffers per index file, indexed by block
 * number, in TopMemoryContext (4 bytes a block: 0.05 % of the index), grown
 * as blocks are seen; blocks beyond BLOOFI_RECENT_MAX_BYTES in all are not
 * remembered (read the ordinary way).  Local buffers (temporary indexes)
 * bypass it.
 *
 * Design notes: docs/bloofi.md ("Lookup cost in the dense regime").
 */
#include "postgres.h"

#include "storage/bufmgr.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "bloofi.h"

#define BLOOFI_RECENT_MAX_BYTES (64 * 1024 * 1024)	/* all indexes together */

typedef struct BloofiRecentKey
{
	Oid			dbnode;
	Oid			relnode;		/* the index file */
} BloofiRecentKey;

typedef struct BloofiRecentFile
{
	BloofiRecentKey key;
	uint32		nblocks;		/* entries in buf */
	Buffer	   *buf;			/* per block: where it was, or InvalidBuffer */
} BloofiRecentFile;

static HTAB *bloofi_recent_files = NULL;
static uint64 bloofi_recent_misses = 0;	/* pages not found where remembered */
static BloofiRecentFile *bloofi_recent_last = NULL;	/* the file used last */
static Size bloofi_recent_bytes = 0;

/*
 * The map's slot of block blk of index, or NULL when it is not remembered.
 * grow: make room for it (only for a block known to exist, so that a
 * damaged block number costs no memory).
 */
static Buffer *
bloofi_recent_slot(Relation index, BlockNumber blk, bool grow)
{
	BloofiRecentFile *f = bloofi_recent_last;

	if (f == NULL || f->key.relnode != BS_LOCATOR_REL(BS_REL_LOCATOR(index)) ||
		f->key.dbnode != BS_LOCATOR_DB(BS_REL_LOCATOR(index)))
	{
		BloofiRecentKey key;
		bool		found;

		if (bloofi_recent_files == NULL)
		{
			HASHCTL		ctl;

			memset(&ctl, 0, sizeof(ctl));
			ctl.keysize = sizeof(BloofiRecentKey);
			ctl.entrysize = sizeof(BloofiRecentFile);
			ctl.hcxt = TopMemoryContext;
			bloofi_recent_files = hash_create("bloofi recent buffers", 16, &ctl,
											  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		}
		memset(&key, 0, sizeof(key));
		key.dbnode = BS_LOCATOR_DB(BS_REL_LOCATOR(index));
		key.relnode = BS_LOCATOR_REL(BS_REL_LOCATOR(index));
		f = hash_search(bloofi_recent_files, &key, HASH_ENTER, &found);
		if (!found)
		{
			f->nblocks = 0;
			f->buf = NULL;
		}
		bloofi_recent_last = f;
	}
	if (blk >= f->nblocks)
	{
		uint64		want = Max((uint64) blk + 1, (uint64) f->nblocks * 2);

		want = Max(want, 64);
		if (!grow || blk == InvalidBlockNumber ||
			bloofi_recent_bytes + (want - f->nblocks) * sizeof(Buffer) > BLOOFI_RECENT_MAX_BYTES)
			return NULL;
		f->buf = f->buf ? repalloc(f->buf, want * sizeof(Buffer)) :
			MemoryContextAlloc(TopMemoryContext, want * sizeof(Buffer));
		memset(f->buf + f->nblocks, 0, (want - f->nblocks) * sizeof(Buffer));
		bloofi_recent_bytes += (want - f->nblocks) * sizeof(Buffer);
		f->nblocks = (uint32) want;
	}
	return &f->buf[blk];
}

/*
 * Block blk of index (main fork), pinned, not locked: from the buffer that
 * held it last time when it still does, else ReadBuffer.
 */
Buffer
bloofi_read_recent(Relation index, BlockNumber blk)
{
	Buffer	   *slot;
	Buffer		buf;

	if (RelationUsesLocalBuffers(index))
		return ReadBuffer(index, blk);
	slot = bloofi_recent_slot(index, blk, false);
	if (slot && BufferIsValid(*slot) &&
		ReadRecentBuffer(BS_REL_LOCATOR(index), MAIN_FORKNUM, blk, *slot))
		return *slot;
	bloofi_recent_misses++;
	buf = ReadBuffer(index, blk);	/* fails for a block past the end */
	slot = bloofi_recent_slot(index, blk, true);
	if (slot)
		*slot = buf;
	return buf;
}

/*
 * The buffer block blk of index was last seen in, without pinning it
 * (InvalidBuffer: not known, or a local buffer); when not known, located
 * now (PrefetchBuffer: one buffer-table lookup, and the read of a page not
 * in shared buffers started, so that a cold lookup waits for several pages
 * at once).  A hint only: the buffer may hold another page by the time it
 * is used, so it is pinned with bloofi_read_recent, and its memory read
 * only as a CPU prefetch hint.
 */
Buffer
bloofi_recent_locate(Relation index, BlockNumber blk)
{
	Buffer	   *slot;
	PrefetchBufferResult pr;

	if (RelationUsesLocalBuffers(index))
		return InvalidBuffer;
	slot = bloofi_recent_slot(index, blk, false);
	if (slot && BufferIsValid(*slot))
		return *slot;
	bloofi_recent_misses++;
	pr = PrefetchBuffer(index, MAIN_FORKNUM, blk);
	if (BufferIsValid(pr.recent_buffer))	/* then the block exists */
	{
		slot = bloofi_recent_slot(index, blk, true);
		if (slot)
			*slot = pr.recent_buffer;
	}
	return pr.recent_buffer;
}

/*
 * The buffer block blk of index was last seen in, without locating it
 * (InvalidBuffer: not known, or a local buffer).  A hint, as for
 * bloofi_recent_locate.
 */
Buffer
bloofi_recent_known(Relation index, BlockNumber blk)
{
	Buffer	   *slot;

	if (RelationUsesLocalBuffers(index))
		return InvalidBuffer;
	slot = bloofi_recent_slot(index, blk, false);
	return slot ? *slot : InvalidBuffer;
}

/*
 * Remember that block blk of index is in buffer buf (pinned by the caller,
 * read some other way than bloofi_read_recent: the read stream), so that the
 * next lookup pins it without a buffer-table lookup; counts as a miss.
 */
void
bloofi_recent_remember(Relation index, BlockNumber blk, Buffer buf)
{
	Buffer	   *slot;

	if (RelationUsesLocalBuffers(index) || BufferIsLocal(buf))
		return;
	bloofi_recent_misses++;
	slot = bloofi_recent_slot(index, blk, true);
	if (slot)
		*slot = buf;
}

/*
 * How many pages this backend has had to read or locate the ordinary way
 * (not found in the buffer it remembered): a lookup that raised it was at
 * least partly cold.
 */
uint64
bloofi_recent_miss_count(void)
{
	return bloofi_recent_misses;
}
