/* cli_syncrun.c: pieces shared by the sync-record verbs (cli_syncrun.h). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_syncrun.h"
#include "import/import.h"
#include "util/util.h"

int cli_max_held(const char *cmd, const char *arg, size_t *out)
{
	char *end;
	unsigned long long v = strtoull(arg, &end, 10);
	if (*end || !v || arg[0] == '-')
		return cli_usage(cmd, "--max-held needs a positive number, not '%s'", arg);
	*out = (size_t)v;
	return 0;
}

int cli_live_open(const char *dir, char **tmp, store **s, store_run *run, dt_err *e)
{
	*s = NULL;
	const char *td = getenv("TMPDIR");
	char *t = xmalloc(strlen(td && *td ? td : "/tmp") + 32);
	sprintf(t, "%s/difftrace-hang.XXXXXX", td && *td ? td : "/tmp");
	if (!mkdtemp(t)) {
		dt_err_at(e, t, -1, "cannot make a temporary directory for the recording in progress");
		free(t);
		*tmp = NULL;
		return -1;
	}
	*tmp = t;
	char *db = xmalloc(strlen(t) + 16);
	sprintf(db, "%s/live.db", t);
	int64_t id = 0;
	store_writer *w = NULL;
	dt_import_opts io = { 0 };
	io.quiet = 1;
	int rc = -1;
	if (store_open(db, STORE_OPEN_CREATE, s, e) || store_import_begin(*s, e))
		goto out;
	if (store_run_create(*s, "live", "", "sync", dir, &id, e))
		goto abort;
	if (!(w = store_writer_new(*s, id, NULL))) {
		dt_errf(e, DT_EDATA, "cannot prepare the import of %s", dir);
		goto abort;
	}
	if (import_path(dir, DT_FMT_SYNC, &io, store_writer_sink(w), e))
		goto abort;
	if (!store_writer_traces(w)) {
		dt_err_at(e, dir, -1, "no sync record found (record with difftrace-record, without "
				      "--no-sync)");
		goto abort;
	}
	if (store_writer_finish(w, e))
		goto abort;
	store_writer_free(w);
	w = NULL;
	char *got = NULL;
	if (store_import_publish(*s, 0, &got, e))
		goto abort;
	free(got);
	rc = store_run_get(*s, "live", run, e);
	goto out;
abort:
	store_writer_free(w);
	store_import_abort(*s);
out:
	free(db);
	return rc;
}

void cli_live_close(char *tmp)
{
	if (!tmp)
		return;
	DIR *d = opendir(tmp);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *p = xmalloc(strlen(tmp) + strlen(de->d_name) + 2);
		sprintf(p, "%s/%s", tmp, de->d_name);
		unlink(p);
		free(p);
	}
	if (d)
		closedir(d);
	rmdir(tmp);
	free(tmp);
}
