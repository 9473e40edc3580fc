/*
 * bst_image_files.h
 *    BloomSampleTree glue: the shared image files of trees (where they live,
 *    mapping, writing within the disk reserve, build locks, removal, the
 *    sweep of files no tree needs and the cluster-wide space limit).
 *
 * An image file is a cache: a tree is a deterministic function of its
 * catalog row, so a missing, damaged or removed image is rebuilt at the next
 * use.  Files are named <database oid>_<hash of the tree's name>_<generation>.bst
 * in bloomsample.bst_image_directory; <database oid>_<hash>_lock is the
 * build lock of a tree.  docs/bloomsampletree.md ("Storage, cache and
 * concurrency") describes the protocol.
 */
#ifndef BST_IMAGE_FILES_H
#define BST_IMAGE_FILES_H

#include "postgres.h"

#include "bst_tree.h"

/* settings (defined by bst_init_gucs) */
extern char *bst_image_directory;
extern int	bst_shared_limit_mb;
extern int	bst_disk_reserve_mb;

/* an image file mapped read-only, share-locked while fd >= 0 */
typedef struct BstImageMap
{
	void	   *base;
	size_t		len;
	int			fd;				/* open with a shared flock, or -1 (no descriptor to spare) */
} BstImageMap;

/* a tree (name hash and generation) that the catalog holds */
typedef struct BstImageLive
{
	uint64		name_hash;
	int64		generation;
} BstImageLive;

/* the hash of a tree's name that its files carry */
extern uint64 bst_image_file_name_hash(const char *name);

/*
 * Map the image of (name, generation) into *m; false when it is missing or
 * being removed.  The caller checks the header (bst_image_open) and calls
 * bst_image_file_unmap when done.
 */
extern bool bst_image_file_map(const char *name, int64 generation, BstImageMap *m);
/* undo bst_image_file_map (also releases the share lock) */
extern void bst_image_file_unmap(BstImageMap *m);

/*
 * Take the build lock of tree name, waiting interruptibly; returns its
 * descriptor (bst_image_file_unlock releases it), or -1 when the image
 * directory cannot be created (then nothing is shared).
 */
extern int	bst_image_file_lock(const char *name);
extern void bst_image_file_unlock(int fd);

/*
 * Write the image of t for (name, generation) unless that would leave less
 * than the disk reserve free on the image directory's volume; false, with a
 * NOTICE or WARNING saying why, when it is not written.
 */
extern bool bst_image_file_store(const BstTree *t, const char *name, int64 generation);

/*
 * Remove the image files of tree name but the one of generation keep
 * (PG_INT64_MIN: all of them).  Backends mapping a removed file keep their
 * mapping.
 */
extern void bst_image_file_remove(const char *name, int64 keep);

/*
 * Remove the files no one will use again: images and build locks of
 * databases that are gone, of this database's trees not in live[] (dropped,
 * rolled back, of an older generation) unless a backend maps or builds them,
 * temporary files of writers that died, and the files of the directory that
 * 1.1 used.  Then keep the images within bloomsample.bst_shared_limit,
 * never removing the image at keep_path.
 */
extern void bst_image_file_sweep(const BstImageLive *live, int nlive, const char *keep_path);

/* the path of the image of (name, generation) */
extern char *bst_image_file_path(const char *name, int64 generation);

#endif							/* BST_IMAGE_FILES_H */
