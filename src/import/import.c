/* import.c: which importer reads a path, and the names of the formats. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "import/import.h"
#include "import/import_sample.h"
#include "import/import_sync.h"
#include "util/util.h"

static const char *const fmt_names[] = { "auto", "uftrace", "parlot", "parlot-raw", "text",
						"sync", "otf2" };

const char *dt_format_name(dt_format f)
{
	return (unsigned)f < sizeof fmt_names / sizeof *fmt_names ? fmt_names[f] : "?";
}

int dt_format_parse(const char *s)
{
	for (size_t i = 0; i < sizeof fmt_names / sizeof *fmt_names; i++)
		if (!strcmp(s, fmt_names[i]))
			return (int)i;
	return -1;
}

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int ends_with(const char *s, const char *suf);

static int is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* A uftrace.data directory has an info file and a task.txt (or .dat files). The magic is not
 * required here, so that a damaged info file is reported by the uftrace importer with its
 * offset rather than the directory being taken for something else. */
static int is_uftrace_dir(const char *dir)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/info", dir);
	if (!is_file(p))
		return 0;
	snprintf(p, sizeof p, "%s/task.txt", dir);
	if (is_file(p))
		return 1;
	DIR *d = opendir(dir);
	struct dirent *de;
	int dat = 0;
	while (d && !dat && (de = readdir(d)))
		dat = ends_with(de->d_name, ".dat");
	if (d)
		closedir(d);
	return dat;
}

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcmp(s + a - b, suf);
}

/* An OTF2 archive: NAME.otf2 (the anchor file) beside the NAME directory of its events. */
static int has_otf2_anchor(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int found = 0;
	while (d && !found && (de = readdir(d)))
		found = ends_with(de->d_name, ".otf2") && de->d_name[0] != '.';
	if (d)
		closedir(d);
	return found;
}

static dt_format detect_dir(const char *path)
{
	char p[4096];
	if (is_uftrace_dir(path))
		return DT_FMT_UFTRACE;
	if (has_otf2_anchor(path))
		return DT_FMT_OTF2;
	snprintf(p, sizeof p, "%s/uftrace.data", path);
	if (is_uftrace_dir(p))
		return DT_FMT_UFTRACE;
	DIR *d = opendir(path);
	if (!d)
		return DT_FMT_AUTO;
	dt_format f = DT_FMT_AUTO;
	int txt = 0;
	struct dirent *de;
	while (f == DT_FMT_AUTO && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "%s/%s", path, de->d_name);
		if (!strncmp(de->d_name, "rank-", 5) && is_dir(p)) {
			char q[4200];
			snprintf(q, sizeof q, "%s/uftrace.data", p);
			if (is_uftrace_dir(p) || is_uftrace_dir(q))
				f = DT_FMT_UFTRACE;
		} else if (ends_with(de->d_name, ".info") && is_file(p)) {
			f = DT_FMT_PARLOT;
		} else if (ends_with(de->d_name, ".txt") && is_file(p)) {
			txt = 1;
		}
	}
	closedir(d);
	if (f == DT_FMT_AUTO && txt)
		f = DT_FMT_TEXT;
	if (f == DT_FMT_AUTO) {
		/* difftrace-record --sync-only: DIR/rank-N/sync, or one such directory */
		char *sd = sync_dir_find(path);
		if (sd)
			f = DT_FMT_SYNC;
		free(sd);
		d = opendir(path);
		while (f == DT_FMT_AUTO && d && (de = readdir(d))) {
			if (strncmp(de->d_name, "rank-", 5))
				continue;
			snprintf(p, sizeof p, "%s/%s", path, de->d_name);
			if ((sd = sync_dir_find(p)))
				f = DT_FMT_SYNC;
			free(sd);
		}
		if (d)
			closedir(d);
	}
	/* --sync-only stopped before its first MPI or OpenMP call: samples, no sync record yet */
	if (f == DT_FMT_AUTO && sample_present(path))
		f = DT_FMT_SYNC;
	return f;
}

dt_format import_detect(const char *path, dt_err *e)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		dt_err_at(e, path, -1, "cannot read: %s", strerror(errno));
		return DT_FMT_AUTO;
	}
	dt_format f = DT_FMT_AUTO;
	if (S_ISDIR(st.st_mode)) {
		f = detect_dir(path);
	} else if (ends_with(path, ".txt")) {
		f = DT_FMT_TEXT;
	} else if (ends_with(path, ".otf2")) {
		f = DT_FMT_OTF2;
	} else {
		/* A ParLOT per-thread file has a sibling .info: its last .component replaced. */
		const char *dot = strrchr(path, '.');
		const char *slash = strrchr(path, '/');
		if (dot && (!slash || dot > slash)) {
			char info[4096];
			snprintf(info, sizeof info, "%.*s.info", (int)(dot - path), path);
			if (is_file(info))
				f = DT_FMT_PARLOT;
		}
	}
	if (f == DT_FMT_AUTO)
		dt_err_at(e, path, -1,
			  "cannot tell the trace format; name it with --format "
			  "uftrace|parlot|parlot-raw|text|sync|otf2");
	return f;
}

int import_path(const char *path, dt_format fmt, const dt_import_opts *o, dt_sink *s, dt_err *e)
{
	if (fmt == DT_FMT_AUTO && !(fmt = import_detect(path, e)))
		return -1;
	switch (fmt) {
	case DT_FMT_UFTRACE:
		return import_uftrace(path, o, s, e);
	case DT_FMT_PARLOT:
		return import_parlot(path, 0, o, s, e);
	case DT_FMT_PARLOT_RAW:
		return import_parlot(path, 1, o, s, e);
	case DT_FMT_TEXT:
		return import_text(path, o, s, e);
	case DT_FMT_SYNC:
		return import_sync(path, o, s, e);
	case DT_FMT_OTF2:
		return import_otf2(path, o, s, e);
	default:
		return dt_errf(e, DT_EUSAGE, "unknown format");
	}
}
