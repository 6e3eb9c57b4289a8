/* store_sync.c: the sync events of a run, read back for the order stage. */
#include <stdlib.h>
#include <string.h>

#include "store/store_int.h"
#include "store/store_sync.h"
#include "util/util.h"

int store_sync_hosts(store *s, int64_t run_id, char ***names, size_t *n, dt_err *e)
{
	sqlite3_stmt *st;
	*names = NULL;
	*n = 0;
	if (store_prepare(s, "SELECT host FROM traces WHERE run_id = ?1 GROUP BY host"
			  " ORDER BY min(proc)", &st, e))
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		GROW(*names, cap, *n + 1);
		(*names)[(*n)++] = xstrdup((const char *)sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		for (size_t i = 0; i < *n; i++)
			free((*names)[i]);
		free(*names);
		*names = NULL;
		*n = 0;
		return store_sqlerr(s, e, "reading hosts");
	}
	return 0;
}

int store_sync_list(store *s, int64_t run_id, dt_sync_event **ev, size_t *n, dt_err *e)
{
	*ev = NULL;
	*n = 0;
	char **hosts;
	size_t nh;
	if (store_sync_hosts(s, run_id, &hosts, &nh, e))
		return -1;
	sqlite3_stmt *st;
	int rc = -1;
	if (store_prepare(s,
			  "SELECT t.proc, t.thread, t.host, y.seq, y.phase, y.func, y.ts, y.comm,"
			  " y.dest, y.stag, y.src, y.rtag, y.root, y.count, y.datatype, y.op, y.req,"
			  " y.obj, y.objseq, y.team, y.tnum, y.csize FROM sync_events y"
			  " JOIN traces t ON t.id = y.trace_id WHERE t.run_id = ?1"
			  " ORDER BY t.proc, t.thread, y.seq",
			  &st, e))
		goto out;
	sqlite3_bind_int64(st, 1, run_id);
	size_t cap = 0;
	int step;
	int32_t last = -1;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		GROW(*ev, cap, *n + 1);
		dt_sync_event *v = &(*ev)[(*n)++];
		memset(v, 0, sizeof *v);
		v->proc = sqlite3_column_int(st, 0);
		v->thread = sqlite3_column_int(st, 1);
		const char *h = (const char *)sqlite3_column_text(st, 2);
		/* rows come trace by trace: look the host up when it changes */
		if (nh && (!h || last < 0 || strcmp(hosts[last], h))) {
			last = 0;
			for (size_t i = 0; i < nh; i++)
				if (h && !strcmp(hosts[i], h))
					last = (int32_t)i;
		}
		v->host = nh ? last : 0;
		v->seq = (uint32_t)sqlite3_column_int64(st, 3);
		v->phase = (uint8_t)sqlite3_column_int(st, 4);
		v->func = (uint32_t)sqlite3_column_int64(st, 5);
		v->ts = sqlite3_column_int64(st, 6);
		v->comm = sqlite3_column_int(st, 7);
		v->dest = sqlite3_column_int(st, 8);
		v->stag = sqlite3_column_int(st, 9);
		v->src = sqlite3_column_int(st, 10);
		v->rtag = sqlite3_column_int(st, 11);
		v->root = sqlite3_column_int(st, 12);
		v->count = sqlite3_column_int64(st, 13);
		v->datatype = sqlite3_column_int(st, 14);
		v->op = sqlite3_column_int(st, 15);
		v->req = (uint64_t)sqlite3_column_int64(st, 16);
		v->obj = (uint64_t)sqlite3_column_int64(st, 17);
		v->objseq = (uint64_t)sqlite3_column_int64(st, 18);
		v->team = sqlite3_column_int(st, 19);
		v->tnum = sqlite3_column_int(st, 20);
		v->csize = sqlite3_column_int(st, 21);
	}
	sqlite3_finalize(st);
	if (step != SQLITE_DONE) {
		store_sqlerr(s, e, "reading sync events");
		free(*ev);
		*ev = NULL;
		*n = 0;
		goto out;
	}
	rc = 0;
out:
	for (size_t i = 0; i < nh; i++)
		free(hosts[i]);
	free(hosts);
	return rc;
}

int store_sync_clocks(store *s, int64_t run_id, store_sync_clock **c, size_t *n, dt_err *e)
{
	sqlite3_stmt *st;
	*c = NULL;
	*n = 0;
	if (store_prepare(s,
			  "SELECT t.proc, t.thread, k.clock, k.mono, k.real FROM sync_clocks k"
			  " JOIN traces t ON t.id = k.trace_id WHERE t.run_id = ?1"
			  " ORDER BY t.proc, t.thread",
			  &st, e))
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	size_t cap = 0;
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		GROW(*c, cap, *n + 1);
		(*c)[(*n)++] = (store_sync_clock){ sqlite3_column_int(st, 0),
						   sqlite3_column_int(st, 1),
						   sqlite3_column_int(st, 2),
						   sqlite3_column_int64(st, 3),
						   sqlite3_column_int64(st, 4) };
	}
	sqlite3_finalize(st);
	if (step != SQLITE_DONE) {
		free(*c);
		*c = NULL;
		*n = 0;
		return store_sqlerr(s, e, "reading sync clocks");
	}
	return 0;
}
