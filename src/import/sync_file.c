/* sync_file.c: one file of the sync record, mapped read-only and checked. */
#define _DEFAULT_SOURCE /* madvise */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import/sync_file.h"
#include "util/util.h"

int sync_file_name(const char *s, int64_t *pid, int64_t *tid, int *k)
{
	char *end;
	if (!isdigit((unsigned char)*s))
		return 0;
	*pid = strtoll(s, &end, 10);
	if (*end != '.' || !isdigit((unsigned char)end[1]))
		return 0;
	*tid = strtoll(end + 1, &end, 10);
	*k = 1;
	if (*end == '-') {
		if (!isdigit((unsigned char)end[1]))
			return 0;
		*k = (int)strtol(end + 1, &end, 10);
	}
	return !strcmp(end, ".dts");
}

static const char *const call_names[] = {
	NULL,
#define DTS_X(n) #n,
	DTS_CALLS(DTS_X)
#undef DTS_X
};

static const char *const type_names[] = {
	"derived",
#define DTS_X(n) "MPI_" #n,
	DTS_TYPES(DTS_X)
#undef DTS_X
};

static const char *const op_names[] = {
	"user",
#define DTS_X(n) "MPI_" #n,
	DTS_OPS(DTS_X)
#undef DTS_X
};

static const char *const err_names[] = {
	"an error class of its own",
#define DTS_X(n) "MPI_ERR_" #n,
	DTS_ERRS(DTS_X)
#undef DTS_X
};

const char *sync_err_name(int32_t c)
{
	return c >= 0 && (size_t)c < sizeof err_names / sizeof *err_names ? err_names[c] : "?";
}

const char *sync_call_name(unsigned c)
{
	return c > 0 && c < DTS_NCALLS ? call_names[c] : NULL;
}

const char *sync_type_name(int32_t c)
{
	return c >= 0 && (size_t)c < sizeof type_names / sizeof *type_names ? type_names[c] : "?";
}

const char *sync_op_name(int32_t c)
{
	return c >= 0 && (size_t)c < sizeof op_names / sizeof *op_names ? op_names[c] : "?";
}

/* Record i's bytes: rsize of them, the commit word last. */
static const unsigned char *rec_at(const sync_file *f, uint64_t i)
{
	return f->map + DTS_HEADER_SIZE + i * f->rsize;
}

static int nonzero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 1;
	return 0;
}

int sync_file_start(sync_file *f, const char *path, dt_err *e)
{
	memset(f, 0, sizeof f[0]);
	f->torn_at = -1;
	f->path = xstrdup(path);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		int err = errno;
		if (fd >= 0)
			close(fd);
		dt_err_at(e, path, -1, "cannot open: %s", strerror(err));
		goto fail;
	}
	f->size = (size_t)st.st_size;
	if (!f->size) {
		/* the thread was stopped between making the file and sizing it */
		close(fd);
		f->unfinished = f->checked = 1;
		return 0;
	}
	if (f->size < DTS_HEADER_SIZE) {
		close(fd);
		/* the recorder writes the magic last, so a short file is a header never finished
		 * or a file that is not ours */
		dt_err_at(e, path, (int64_t)f->size, "truncated header (%zu of %u bytes)", f->size,
			  DTS_HEADER_SIZE);
		goto fail;
	}
	void *m = mmap(NULL, f->size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		dt_err_at(e, path, -1, "cannot map: %s", strerror(errno));
		goto fail;
	}
	f->map = m;
	memcpy(&f->h, f->map, sizeof f->h);
	if (!nonzero((const unsigned char *)f->h.magic, 8)) {
		/* the magic is written last: a header the thread never finished (or one being
		 * made as we read), with no record yet; the header's page alone is a file whose
		 * first chunk could not be reserved (the recorder stops there on a full disk) */
		f->unfinished = f->checked = 1;
		f->no_room = f->size == DTS_HEADER_SIZE;
		return 0;
	}
	if (memcmp(f->h.magic, DTS_MAGIC, 8)) {
		dt_err_at(e, path, 0, "not a difftrace sync file (wrong magic)");
		goto fail;
	}
	if (f->h.endian != 0x01020304u) {
		dt_err_at(e, path, offsetof(dts_header, endian),
			  "written on a host of the other byte order");
		goto fail;
	}
	if (f->h.version != DTS_VERSION && f->h.version != DTS_VERSION_1) {
		dt_err_at(e, path, offsetof(dts_header, version),
			  "format version %" PRIu32 " (this difftrace reads %u and %u)", f->h.version,
			  DTS_VERSION_1, DTS_VERSION);
		goto fail;
	}
	f->rsize = f->h.version == DTS_VERSION_1 ? DTS_RECORD_SIZE_1 : DTS_RECORD_SIZE;
	if (f->h.header_size != DTS_HEADER_SIZE || f->h.record_size != f->rsize ||
	    !f->h.chunk_records) {
		dt_err_at(e, path, offsetof(dts_header, header_size),
			  "unexpected sizes (header %" PRIu32 ", record %" PRIu32 ")",
			  f->h.header_size, f->h.record_size);
		goto fail;
	}
	f->h.host[DTS_HOST_MAX - 1] = 0;
	f->max = (f->size - DTS_HEADER_SIZE) / f->rsize;
	return 0;
fail:
	sync_file_close(f);
	return -1;
}

void sync_file_release(sync_file *f, uint64_t i)
{
	if (!f->map)
		return;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t end = DTS_HEADER_SIZE + (size_t)i * f->rsize;
	if (end > f->size)
		end = f->size;
	end -= end % page;
	/* in steps of a few MB: each call is a system call and a TLB flush */
	if (end < f->released + ((size_t)4 << 20))
		return;
	(void)madvise((void *)(f->map + f->released), end - f->released, MADV_DONTNEED);
	f->released = end;
}

int sync_file_check(sync_file *f, uint64_t i, dt_err *e)
{
	if (f->checked)
		return i < f->nrec;
	if (i < f->max) {
		const unsigned char *r = rec_at(f, i);
		uint32_t commit;
		uint16_t call;
		memcpy(&commit, r + f->rsize - 4, sizeof commit);
		if (commit == dts_commit(i)) {
			memcpy(&call, r + offsetof(dts_record, call), sizeof call);
			uint8_t phase = r[offsetof(dts_record, phase)];
			if (!sync_call_name(call) || phase > DT_SYNC_DONE) {
				size_t off = DTS_HEADER_SIZE + i * f->rsize;
				return dt_err_at(e, f->path, (int64_t)off,
						 "bad record %" PRIu64 ": call %u, phase %u", i, call,
						 phase);
			}
			f->nrec = i + 1;
			return 1;
		}
	}
	f->checked = 1;
	f->nrec = i;
	size_t end = DTS_HEADER_SIZE + i * f->rsize;
	/* the record after the last is unused space, or one the thread was killed writing */
	if (end < f->size &&
	    nonzero(f->map + end, f->size - end < f->rsize ? f->size - end : f->rsize))
		f->torn_at = (int64_t)end;
	return 0;
}

int sync_file_open(sync_file *f, const char *path, dt_err *e)
{
	if (sync_file_start(f, path, e))
		return -1;
	int r;
	for (uint64_t i = 0; (r = sync_file_check(f, i, e)) > 0; i++)
		;
	if (r < 0) {
		sync_file_close(f);
		return -1;
	}
	return 0;
}

void sync_file_close(sync_file *f)
{
	if (f->map)
		munmap((void *)f->map, f->size);
	free(f->path);
	memset(f, 0, sizeof f[0]);
}

void sync_file_event(const sync_file *f, uint64_t i, dt_sync_event *ev, unsigned *call,
		     uint64_t *site)
{
	dts_record v1;
	const dts_record *r = (const dts_record *)(const void *)rec_at(f, i);
	if (f->rsize < sizeof *r) {
		/* version 1: no site, no digest; its commit word lands in site_lo, which is not
		 * read here */
		memset(&v1, 0, sizeof v1);
		memcpy(&v1, r, f->rsize);
		r = &v1;
	}
	/* else read where it is: records start at a multiple of 16 bytes of the mapping */
	sync_record_event(r, i, ev);
	*call = r->call;
	*site = f->rsize < sizeof *r ? 0 : (uint64_t)r->site_hi << 32 | r->site_lo;
}

uint64_t sync_file_site(const sync_file *f, uint64_t i)
{
	if (f->rsize < DTS_RECORD_SIZE)
		return 0;
	dts_record r;
	memcpy(&r, rec_at(f, i), sizeof r);
	return (uint64_t)r.site_hi << 32 | r.site_lo;
}
