/* store_sync.c: the sync events of a run, read back for the order stage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_int.h"
#include "store/store_sync.h"
#include "store/sync_codec.h"
#include "util/esc.h"
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

int store_has_table(store *s, const char *name, int *ok)
{
	sqlite3_stmt *st;
	*ok = sqlite3_prepare_v2(s->db,
				 "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
				 -1, &st, NULL) == SQLITE_OK;
	if (!*ok)
		return 0;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	int r = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) > 0;
	sqlite3_finalize(st);
	return r;
}

void store_sync_row(sqlite3_stmt *sy, struct dt_sync_event *v)
{
	v->seq = (uint32_t)sqlite3_column_int64(sy, 0);
	v->phase = (uint8_t)sqlite3_column_int(sy, 1);
	v->func = (uint32_t)sqlite3_column_int64(sy, 2);
	v->ts = sqlite3_column_int64(sy, 3);
	v->comm = sqlite3_column_int(sy, 4);
	v->dest = sqlite3_column_int(sy, 5);
	v->stag = sqlite3_column_int(sy, 6);
	v->src = sqlite3_column_int(sy, 7);
	v->rtag = sqlite3_column_int(sy, 8);
	v->root = sqlite3_column_int(sy, 9);
	v->count = sqlite3_column_int64(sy, 10);
	v->datatype = sqlite3_column_int(sy, 11);
	v->op = sqlite3_column_int(sy, 12);
	v->req = (uint64_t)sqlite3_column_int64(sy, 13);
	v->obj = (uint64_t)sqlite3_column_int64(sy, 14);
	v->objseq = (uint64_t)sqlite3_column_int64(sy, 15);
	v->team = sqlite3_column_int(sy, 16);
	v->tnum = sqlite3_column_int(sy, 17);
	v->csize = sqlite3_column_int(sy, 18);
}

int store_sync_list(store *s, int64_t run_id, dt_sync_event **ev, size_t *n, dt_err *e)
{
	*ev = NULL;
	*n = 0;
	char **hosts;
	size_t nh;
	if (store_sync_hosts(s, run_id, &hosts, &nh, e))
		return -1;
	/* the traces first (a few), then each trace's events by their primary key: no join, no
	 * trace columns read per event, one statement reset per trace */
	struct tr {
		int64_t id;
		int32_t proc, thread, host;
	} *tr = NULL;
	size_t ntr = 0, captr = 0;
	sqlite3_stmt *st = NULL, *sy = NULL, *sc = NULL;
	int rc = -1, step;
	if (store_prepare(s, "SELECT id, proc, thread, host FROM traces WHERE run_id = ?1"
			  " ORDER BY proc, thread", &st, e))
		goto out;
	sqlite3_bind_int64(st, 1, run_id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		GROW(tr, captr, ntr + 1);
		struct tr *t = &tr[ntr++];
		t->id = sqlite3_column_int64(st, 0);
		t->proc = sqlite3_column_int(st, 1);
		t->thread = sqlite3_column_int(st, 2);
		const char *h = (const char *)sqlite3_column_text(st, 3);
		t->host = 0;
		for (size_t i = 0; h && i < nh; i++)
			if (!strcmp(hosts[i], h))
				t->host = (int32_t)i;
	}
	if (step != SQLITE_DONE) {
		store_sqlerr(s, e, "reading sync events");
		goto out;
	}
	/* a store of schema 10 or less opened read-only has no chunks */
	int ok, chunked = store_has_table(s, "sync_chunks", &ok);
	if (!ok)
		goto out_err;
	if (chunked && store_prepare(s,
				     "SELECT first, n, codec, data FROM sync_chunks WHERE trace_id = ?1"
				     " ORDER BY seq",
				     &sc, e))
		goto out;
	if (store_prepare(s,
			  "SELECT seq, phase, func, ts, comm, dest, stag, src, rtag, root, count,"
			  " datatype, op, req, obj, objseq, team, tnum, csize FROM sync_events"
			  " WHERE trace_id = ?1 ORDER BY seq",
			  &sy, e))
		goto out;
	if (chunked && !s->sync_codec)
		s->sync_codec = sync_codec_new();
	size_t cap = 0;
	for (size_t k = 0; k < ntr; k++) {
		size_t before = *n;
		if (chunked) {
			sqlite3_reset(sc);
			sqlite3_bind_int64(sc, 1, tr[k].id);
			while ((step = sqlite3_step(sc)) == SQLITE_ROW) {
				int64_t first = sqlite3_column_int64(sc, 0);
				int64_t m = sqlite3_column_int64(sc, 1);
				if (m < 0 || m > SYNC_CHUNK_EVENTS || first < 0) {
					dt_err_at(e, s->path, -1,
						  "damaged sync chunk of trace %d.%d: %lld events",
						  tr[k].proc, tr[k].thread, (long long)m);
					goto fail;
				}
				GROW(*ev, cap, *n + (size_t)m);
				dt_sync_event *v = *ev + *n;
				memset(v, 0, (size_t)m * sizeof *v);
				if (sync_decode(s->sync_codec, sqlite3_column_int(sc, 2),
						sqlite3_column_blob(sc, 3),
						(size_t)sqlite3_column_bytes(sc, 3), (size_t)m,
						(uint64_t)first, s->path, v, e))
					goto fail;
				for (int64_t i = 0; i < m; i++) {
					v[i].proc = tr[k].proc;
					v[i].thread = tr[k].thread;
					v[i].host = nh ? tr[k].host : 0;
				}
				*n += (size_t)m;
			}
			if (step != SQLITE_DONE) {
				store_sqlerr(s, e, "reading sync events");
				goto fail;
			}
		}
		if (*n > before)
			continue; /* rows of sync_events are of stores before the chunks */
		sqlite3_reset(sy);
		sqlite3_bind_int64(sy, 1, tr[k].id);
		while ((step = sqlite3_step(sy)) == SQLITE_ROW) {
			GROW(*ev, cap, *n + 1);
			dt_sync_event *v = &(*ev)[(*n)++];
			memset(v, 0, sizeof *v);
			v->proc = tr[k].proc;
			v->thread = tr[k].thread;
			v->host = nh ? tr[k].host : 0;
			store_sync_row(sy, v);
		}
		if (step != SQLITE_DONE) {
			store_sqlerr(s, e, "reading sync events");
			goto fail;
		}
	}
	rc = 0;
	goto out;
out_err:
	store_sqlerr(s, e, "reading sync events");
fail:
	free(*ev);
	*ev = NULL;
	*n = 0;
out:
	sqlite3_finalize(sc);
	sqlite3_finalize(st);
	sqlite3_finalize(sy);
	free(tr);
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

int store_sync_sites(store *s, int64_t run_id, store_sites *out, dt_err *e)
{
	memset(out, 0, sizeof *out);
	int ok;
	if (!store_has_table(s, "sync_sites", &ok))
		return ok ? 0 : store_sqlerr(s, e, "reading call sites");
	sqlite3_stmt *st;
	if (store_prepare(s, "SELECT id, file, line, func FROM sync_sites WHERE run_id = ?1"
			  " ORDER BY id", &st, e))
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		if (id < 1 || id > (int64_t)UINT32_MAX || (size_t)id > out->n + 1000000)
			continue;
		GROW(out->v, cap, (size_t)id);
		while (out->n < (size_t)id)
			out->v[out->n++] = (store_site){ NULL, NULL, 0 };
		store_site *t = &out->v[id - 1];
		free(t->file);
		free(t->func);
		t->file = xstrdup((const char *)sqlite3_column_text(st, 1));
		t->line = (unsigned)sqlite3_column_int64(st, 2);
		t->func = xstrdup((const char *)sqlite3_column_text(st, 3));
		if (!t->line)
			out->nodebug = 1;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		store_sites_free(out);
		return store_sqlerr(s, e, "reading call sites");
	}
	return 0;
}

void store_sites_free(store_sites *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].file);
		free(t->v[i].func);
	}
	free(t->v);
	memset(t, 0, sizeof *t);
}

const store_site *store_site_get(const store_sites *t, uint32_t id)
{
	if (!t || !id || id > t->n || !t->v[id - 1].file)
		return NULL;
	return &t->v[id - 1];
}

const char *store_site_str(const store_site *site, char *b, size_t n)
{
	if (!n)
		return b;
	b[0] = 0;
	if (!site)
		return b;
	if (!site->line) {
		snprintf(b, n, "%s", site->func);
		return b;
	}
	const char *f = strrchr(site->file, '/');
	snprintf(b, n, "%s:%u (%s)", f ? f + 1 : site->file, site->line, site->func);
	return b;
}

const char *store_site_at(const store_sites *sites, uint32_t id, char *w, size_t n)
{
	const store_site *site = store_site_get(sites, id);
	char b[1800];
	if (n)
		w[0] = 0;
	if (site && n > 4) {
		memcpy(w, " at ", 5);
		esc_str(store_site_str(site, b, sizeof b), w + 4, n - 4);
	}
	return w;
}

const char *store_sites_note(const store_sites *t)
{
	return t && t->nodebug ? "the program has no debug information (built without -g): "
				 "call sites are shown as function+offset"
			       : "";
}
