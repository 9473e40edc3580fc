/*
 * bst_image_files.c
 *    BloomSampleTree glue: the shared image files of trees.
 *
 * Where images live: bloomsample.bst_image_directory, by default
 * pg_stat_tmp/bloomsample under the data directory, whose contents
 * pg_basebackup (and the usual backup tools) skip, as they skip
 * pg_stat_statements' query texts there: a cache has no place in a backup.
 * A restored backup or a new standby rebuilds each image at its first use.
 *
 * Writing: an image is written to a temporary name and renamed into place
 * (readers see the whole file or none), and only when the volume keeps at
 * least bloomsample.bst_disk_reserve free afterwards, so that a cache never
 * takes the space a user's write needs.
 *
 * Removal: a backend that maps an image holds a shared flock on it; removal
 * of an image that may still be wanted takes an exclusive flock without
 * waiting, so an image in use is never removed under the space limit.
 * Images and build locks of trees the catalog no longer holds are swept
 * after each image build.  The header says what the file names mean.
 */
#include "postgres.h"

#include <inttypes.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "catalog/pg_database.h"
#include "common/hashfn.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/fd.h"
#include "storage/latch.h"
#include "utils/syscache.h"

#include "bst_image.h"
#include "bst_image_files.h"

char	   *bst_image_directory = NULL;
int			bst_shared_limit_mb = 4096;
int			bst_disk_reserve_mb = -1;

/* the directory 1.1 kept its images in (inside base backups): emptied by the sweep */
#define LEGACY_IMAGE_DIR	"pg_bloomsample"

/* the reserve when bloomsample.bst_disk_reserve is -1: 10% of the volume, at most 1 GB */
#define DEFAULT_RESERVE_FRACTION	10
#define DEFAULT_RESERVE_MAX			((uint64) 1 << 30)

static const char *
image_dir(void)
{
	return bst_image_directory && bst_image_directory[0] ? bst_image_directory
		: "pg_stat_tmp/bloomsample";
}

uint64
bst_image_file_name_hash(const char *name)
{
	return hash_bytes_extended((const unsigned char *) name, strlen(name), 0);
}

/* the file name prefix of a tree's files: <dboid>_<hash of name>_ */
static char *
image_prefix(const char *name)
{
	return psprintf("%u_%016" PRIx64 "_", MyDatabaseId, bst_image_file_name_hash(name));
}

char *
bst_image_file_path(const char *name, int64 generation)
{
	return psprintf("%s/%s%016" PRIx64 ".bst", image_dir(), image_prefix(name),
					(uint64) generation);
}

/* create the image directory (and its parent, pg_stat_tmp or the setting's); false on failure */
static bool
make_image_dir(void)
{
	const char *dir = image_dir();
	char	   *parent = pstrdup(dir);
	char	   *slash = strrchr(parent, '/');

	if (slash && slash != parent)
	{
		*slash = '\0';
		if (MakePGDirectory(parent) != 0 && errno != EEXIST)
			return false;
	}
	return MakePGDirectory(dir) == 0 || errno == EEXIST;
}

/*
 * Remove a file unless a backend holds a flock on it (mapping backends hold
 * a shared one, a builder an exclusive one; an exclusive flock is tried
 * without waiting); true when removed.
 */
static bool
remove_unlocked(const char *path)
{
	int			fd = OpenTransientFile(path, O_RDONLY | PG_BINARY);
	bool		removed;

	if (fd < 0)
		return false;
	removed = flock(fd, LOCK_EX | LOCK_NB) == 0 && unlink(path) == 0;
	CloseTransientFile(fd);
	return removed;
}

void
bst_image_file_remove(const char *name, int64 keep)
{
	const char *dirname = image_dir();
	char	   *prefix = image_prefix(name);
	char	   *kept = psprintf("%s%016" PRIx64 ".bst", prefix, (uint64) keep);
	DIR		   *dir = AllocateDir(dirname);
	struct dirent *de;

	if (dir == NULL)
		return;
	while ((de = ReadDirExtended(dir, dirname, LOG)) != NULL)
	{
		size_t		len = strlen(de->d_name);

		if (strncmp(de->d_name, prefix, strlen(prefix)) != 0 ||
			(keep != PG_INT64_MIN && strcmp(de->d_name, kept) == 0) ||
			len < 4 || strcmp(de->d_name + len - 4, ".bst") != 0)
			continue;
		if (unlink(psprintf("%s/%s", dirname, de->d_name)) != 0 && errno != ENOENT)
			elog(LOG, "could not remove BloomSampleTree image \"%s\": %m", de->d_name);
	}
	FreeDir(dir);
}

bool
bst_image_file_map(const char *name, int64 generation, BstImageMap *m)
{
	char	   *path = bst_image_file_path(name, generation);
	int			fd;
	struct stat st;
	void	   *base;
	bool		keep_fd = AcquireExternalFD();

	fd = open(path, O_RDONLY | PG_BINARY, 0);
	if (fd < 0)
	{
		if (keep_fd)
			ReleaseExternalFD();
		return false;
	}
	/* an image being removed (exclusively locked) counts as missing */
	if (flock(fd, LOCK_SH | LOCK_NB) != 0 || fstat(fd, &st) != 0 || st.st_size <= 0 ||
		st.st_nlink == 0)
	{
		close(fd);
		if (keep_fd)
			ReleaseExternalFD();
		return false;
	}
	base = mmap(NULL, (size_t) st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
	{
		elog(LOG, "could not map BloomSampleTree image \"%s\": %m", path);
		close(fd);
		if (keep_fd)
			ReleaseExternalFD();
		return false;
	}
	(void) futimens(fd, NULL);	/* last mapped now: the space limit removes the oldest */
	if (!keep_fd)
	{
		close(fd);				/* no descriptor to spare: not protected from removal */
		fd = -1;
	}
	m->base = base;
	m->len = (size_t) st.st_size;
	m->fd = fd;
	return true;
}

void
bst_image_file_unmap(BstImageMap *m)
{
	if (m->base)
		munmap(m->base, m->len);
	if (m->fd >= 0)
	{
		close(m->fd);			/* releases the share lock */
		ReleaseExternalFD();
	}
	m->base = NULL;
	m->fd = -1;
}

int
bst_image_file_lock(const char *name)
{
	char	   *path;
	int			fd;

	if (!make_image_dir())
		return -1;
	path = psprintf("%s/%slock", image_dir(), image_prefix(name));
	fd = OpenTransientFile(path, O_RDWR | O_CREAT | PG_BINARY);
	if (fd < 0)
		return -1;
	while (flock(fd, LOCK_EX | LOCK_NB) != 0)
	{
		if (errno != EWOULDBLOCK && errno != EINTR)
		{
			CloseTransientFile(fd);
			return -1;
		}
		/* another backend builds this tree: wait for it */
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 5,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	return fd;
}

void
bst_image_file_unlock(int fd)
{
	CloseTransientFile(fd);
}

/* ---------------------------------------------------------------------------
 * writing, within the disk reserve
 * ---------------------------------------------------------------------------
 */
typedef struct ImageWriter
{
	int			fd;
	const char *path;
} ImageWriter;

static int
image_write(void *ctx, const void *buf, size_t len)
{
	ImageWriter *w = ctx;
	const char *b = buf;

	while (len > 0)
	{
		ssize_t		n = write(w->fd, b, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
		{
			if (n == 0)
				errno = ENOSPC;
			return 1;
		}
		b += n;
		len -= (size_t) n;
	}
	return 0;
}

/*
 * Does an image of `bytes` fit on the image directory's volume with the
 * reserve left free?  When not, a NOTICE says why and what to change.
 */
static bool
fits_disk_reserve(const char *name, uint64 bytes)
{
	struct statvfs vfs;
	uint64		avail,
				total,
				reserve;

	if (statvfs(image_dir(), &vfs) != 0)
		return true;			/* unknown: the write itself reports a failure */
	avail = (uint64) vfs.f_bavail * vfs.f_frsize;
	total = (uint64) vfs.f_blocks * vfs.f_frsize;
	reserve = bst_disk_reserve_mb >= 0 ? (uint64) bst_disk_reserve_mb << 20
		: Min(total / DEFAULT_RESERVE_FRACTION, DEFAULT_RESERVE_MAX);
	if (avail >= reserve && avail - reserve >= bytes)
		return true;
	ereport(NOTICE,
			(errmsg("BloomSampleTree \"%s\" is built in this backend only: its image would leave less than the disk reserve free",
					name),
			 errdetail("The image takes " UINT64_FORMAT " MB; the volume of \"%s\" has " UINT64_FORMAT " MB free and bloomsample.bst_disk_reserve keeps " UINT64_FORMAT " MB free.",
					   (bytes + (1 << 20) - 1) >> 20, image_dir(), avail >> 20, reserve >> 20),
			 errhint("Free space on that volume, point bloomsample.bst_image_directory at another volume, or lower bloomsample.bst_disk_reserve.")));
	return false;
}

bool
bst_image_file_store(const BstTree *t, const char *name, int64 generation)
{
	char	   *path = bst_image_file_path(name, generation);
	char	   *tmp = psprintf("%s.%d.tmp", path, MyProcPid);
	ImageWriter w;
	int			rc;

	if (!make_image_dir())
	{
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not create directory \"%s\": %m", image_dir())));
		return false;
	}
	if (!fits_disk_reserve(name, bst_image_bytes(t, strlen(name))))
		return false;
	w.fd = OpenTransientFile(tmp, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
	w.path = tmp;
	if (w.fd < 0)
	{
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not create BloomSampleTree image \"%s\": %m", tmp)));
		return false;
	}
	PG_TRY();
	{
		rc = bst_image_write(t, name, generation, image_write, &w);
	}
	PG_CATCH();
	{
		CloseTransientFile(w.fd);
		unlink(tmp);
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (rc != BST_OK)
	{
		int			save = errno;

		CloseTransientFile(w.fd);
		unlink(tmp);
		errno = save;
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not write BloomSampleTree image \"%s\": %m", tmp)));
		return false;
	}
	if (CloseTransientFile(w.fd) != 0 || rename(tmp, path) != 0)
	{
		ereport(WARNING,
				(errcode_for_file_access(),
				 errmsg("could not install BloomSampleTree image \"%s\": %m", path)));
		unlink(tmp);
		return false;
	}
	return true;
}

/* ---------------------------------------------------------------------------
 * the sweep and the space limit
 * ---------------------------------------------------------------------------
 */
typedef struct ImageFile
{
	char	   *path;
	off_t		size;
	time_t		mtime;
} ImageFile;

static int
image_file_cmp(const void *a, const void *b)
{
	const ImageFile *x = a,
			   *y = b;

	return x->mtime < y->mtime ? -1 : x->mtime > y->mtime;
}

/* does the catalog hold (h, g)?  (g == PG_INT64_MIN: any generation of h) */
static bool
is_live(const BstImageLive *live, int nlive, uint64 h, int64 g)
{
	for (int i = 0; i < nlive; i++)
		if (live[i].name_hash == h && (g == PG_INT64_MIN || live[i].generation == g))
			return true;
	return false;
}

static bool
database_exists(Oid db)
{
	return SearchSysCacheExists1(DATABASEOID, ObjectIdGetDatum(db));
}

/*
 * One directory entry of the sweep: remove it when no one will use it again
 * (see bst_image_file_sweep); an image that stays is added to *files.
 */
static void
sweep_one(const char *dirname, const char *fname, const BstImageLive *live, int nlive,
		  ImageFile **files, int *n, int *cap)
{
	unsigned int db;
	uint64		h,
				g;
	int			pid,
				len = 0;
	char	   *path = psprintf("%s/%s", dirname, fname);
	struct stat st;

	if (sscanf(fname, "%u_%16" SCNx64 "_lock%n", &db, &h, &len) == 2 && len > 0 &&
		fname[len] == '\0')
	{
		/* a build lock: of a gone database, or of a tree no catalog holds */
		if (!database_exists((Oid) db) ||
			((Oid) db == MyDatabaseId && !is_live(live, nlive, h, PG_INT64_MIN)))
			(void) remove_unlocked(path);
		return;
	}
	len = 0;
	if (sscanf(fname, "%u_%16" SCNx64 "_%16" SCNx64 ".bst%n", &db, &h, &g, &len) != 3 || len == 0)
		return;
	if (fname[len] != '\0')
	{
		/* <image>.<pid>.tmp: a writer's file, an orphan once the writer is gone */
		int			end = 0;

		if (sscanf(fname + len, ".%d.tmp%n", &pid, &end) == 1 && fname[len + end] == '\0' &&
			pid > 0 && pid != MyProcPid && kill(pid, 0) != 0 && errno == ESRCH &&
			unlink(path) == 0)
			ereport(LOG,
					(errmsg("BloomSampleTree image \"%s\" removed: its writer is gone", path)));
		return;
	}
	if (!database_exists((Oid) db) ||
		((Oid) db == MyDatabaseId && !is_live(live, nlive, h, (int64) g)))
	{
		bool		tree_gone = !database_exists((Oid) db) ||
			!is_live(live, nlive, h, PG_INT64_MIN);

		if (remove_unlocked(path))
		{
			ereport(LOG,
					(errmsg("BloomSampleTree image \"%s\" removed: %s", path,
							tree_gone ? "its database or tree no longer exists"
							: "its tree has another generation now")));
			return;
		}
	}
	if (stat(path, &st) != 0)
		return;
	if (*n == *cap)
	{
		*cap = *cap ? *cap * 2 : 16;
		*files = *files ? repalloc(*files, *cap * sizeof(ImageFile))
			: palloc(*cap * sizeof(ImageFile));
	}
	(*files)[*n].path = path;
	(*files)[*n].size = st.st_size;
	(*files)[*n].mtime = st.st_mtime;
	(*n)++;
}

/* remove what 1.1 left in $PGDATA/pg_bloomsample (images in base backups) */
static void
sweep_legacy_dir(void)
{
	DIR		   *dir = AllocateDir(LEGACY_IMAGE_DIR);
	struct dirent *de;

	if (dir == NULL)
		return;
	while ((de = ReadDirExtended(dir, LEGACY_IMAGE_DIR, DEBUG1)) != NULL)
		if (de->d_name[0] != '.')
			(void) remove_unlocked(psprintf(LEGACY_IMAGE_DIR "/%s", de->d_name));
	FreeDir(dir);
	(void) rmdir(LEGACY_IMAGE_DIR);
}

void
bst_image_file_sweep(const BstImageLive *live, int nlive, const char *keep_path)
{
	const char *dirname = image_dir();
	DIR		   *dir = AllocateDir(dirname);
	struct dirent *de;
	ImageFile  *files = NULL;
	int			n = 0,
				cap = 0;
	uint64		total = 0;
	uint64		limit = (uint64) bst_shared_limit_mb << 20;

	sweep_legacy_dir();
	if (dir == NULL)
		return;
	while ((de = ReadDirExtended(dir, dirname, LOG)) != NULL)
	{
		sweep_one(dirname, de->d_name, live, nlive, &files, &n, &cap);
		CHECK_FOR_INTERRUPTS();
	}
	FreeDir(dir);
	for (int i = 0; i < n; i++)
		total += (uint64) files[i].size;
	if (total <= limit)
		return;
	/* the least recently mapped first, never one a backend maps */
	qsort(files, n, sizeof(ImageFile), image_file_cmp);
	for (int i = 0; i < n && total > limit; i++)
	{
		if (strcmp(files[i].path, keep_path) != 0 && remove_unlocked(files[i].path))
		{
			total -= (uint64) files[i].size;
			ereport(LOG,
					(errmsg("BloomSampleTree image \"%s\" removed: the images exceeded bloomsample.bst_shared_limit",
							files[i].path)));
		}
	}
}
