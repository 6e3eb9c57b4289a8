/* store_blame.c: the blame tables of the store (schema 4, inlined levels 8): blame_procs, blame_locs,
 * blame_paths, blame_containers, blame_samples. */
#include <stdlib.h>
#include <string.h>

#include "store/store_blame.h"
#include "store/store_int.h"
#include "util/util.h"

static int step_done(store *s, sqlite3_stmt *st, dt_err *e)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : store_sqlerr(s, e, "writing the blame data");
}

int store_blame_write(store *s, int64_t run_id, const dt_blame_data *d, dt_err *e)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;
	if (store_prepare(s, "INSERT INTO blame_procs VALUES(?1,?2,?3,?4,?5,?6,?7,?8)", &st, e))
		return -1;
	for (size_t i = 0; i < d->nproc; i++) {
		const dt_bproc *p = &d->proc[i];
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_int(st, 2, p->rank);
		sqlite3_bind_int64(st, 3, p->pid);
		sqlite3_bind_int64(st, 4, p->flags);
		sqlite3_bind_int(st, 5, p->source);
		sqlite3_bind_int64(st, 6, p->period);
		sqlite3_bind_text(st, 7, p->event ? p->event : "", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 8, p->exe ? p->exe : "", -1, SQLITE_STATIC);
		if (step_done(s, st, e))
			goto out;
	}
	sqlite3_finalize(st);
	if (store_prepare(s, "INSERT INTO blame_locs(run_id, id, func, file, line, module, in_main, "
			     "inl) VALUES(?1,?2,?3,?4,?5,?6,?7,?8)", &st, e))
		return -1;
	for (size_t i = 0; i < d->nlocs; i++) {
		const dt_bloc *l = &d->locs[i];
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_int64(st, 2, (int64_t)i);
		sqlite3_bind_text(st, 3, l->func, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, l->file, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 5, l->line);
		sqlite3_bind_text(st, 6, l->module, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 7, l->in_main);
		sqlite3_bind_int(st, 8, l->inl);
		if (step_done(s, st, e))
			goto out;
	}
	sqlite3_finalize(st);
	if (store_prepare(s, "INSERT INTO blame_paths VALUES(?1,?2,?3)", &st, e))
		return -1;
	for (size_t i = 0; i < d->npaths; i++) {
		uint32_t a = d->path_off[i], b = d->path_off[i + 1];
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_int64(st, 2, (int64_t)i);
		sqlite3_bind_blob(st, 3, d->pathv + a, (int)((b - a) * sizeof *d->pathv),
				  SQLITE_STATIC);
		if (step_done(s, st, e))
			goto out;
	}
	sqlite3_finalize(st);
	if (store_prepare(s, "INSERT INTO blame_scans VALUES(?1,?2,?3)", &st, e))
		return -1;
	for (size_t i = 0; i < d->nscans; i++) {
		uint32_t a = d->scan_off[i], b = d->scan_off[i + 1];
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_int64(st, 2, (int64_t)i);
		sqlite3_bind_blob(st, 3, d->scanv + a, (int)((b - a) * sizeof *d->scanv),
				  SQLITE_STATIC);
		if (step_done(s, st, e))
			goto out;
	}
	sqlite3_finalize(st);
	if (store_prepare(s, "INSERT INTO blame_containers VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,"
			     "?11,?12,?13,?14)", &st, e))
		return -1;
	for (size_t i = 0; i < d->ncont; i++) {
		const dt_bcontainer *c = &d->cont[i];
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_int64(st, 2, (int64_t)i);
		sqlite3_bind_int(st, 3, c->rank);
		sqlite3_bind_int64(st, 4, c->pid);
		sqlite3_bind_int(st, 5, c->kind);
		sqlite3_bind_int64(st, 6, (int64_t)c->addr);
		sqlite3_bind_int64(st, 7, (int64_t)c->size);
		sqlite3_bind_int64(st, 8, c->t_alloc);
		sqlite3_bind_int64(st, 9, c->t_free);
		if (c->name)
			sqlite3_bind_text(st, 10, c->name, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 10);
		if (c->type)
			sqlite3_bind_text(st, 11, c->type, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 11);
		sqlite3_bind_int(st, 12, c->site);
		sqlite3_bind_int(st, 13, c->prev);
		sqlite3_bind_int(st, 14, c->alloc_call);
		if (step_done(s, st, e))
			goto out;
	}
	sqlite3_finalize(st);
	if (store_prepare(s, "INSERT INTO blame_samples(run_id, rank, pid, tid, path, call, c0, c1, "
			     "nrec, weight, cost, bytes, scan) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,"
			     "?10,?11,?12,?13)", &st, e))
		return -1;
	for (size_t i = 0; i < d->nsamp; i++) {
		const dt_bsample *p = &d->samp[i];
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_int(st, 2, p->rank);
		sqlite3_bind_int64(st, 3, p->pid);
		sqlite3_bind_int64(st, 4, p->tid);
		sqlite3_bind_int(st, 5, p->path);
		sqlite3_bind_int(st, 6, p->call);
		sqlite3_bind_int(st, 7, p->c0);
		sqlite3_bind_int(st, 8, p->c1);
		sqlite3_bind_int64(st, 9, (int64_t)p->nrec);
		sqlite3_bind_int64(st, 10, (int64_t)p->weight);
		sqlite3_bind_int64(st, 11, (int64_t)p->cost);
		sqlite3_bind_int64(st, 12, (int64_t)p->bytes);
		sqlite3_bind_int(st, 13, p->scan);
		if (step_done(s, st, e))
			goto out;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (store_prepare(s, "INSERT INTO blame_lost VALUES(?1,?2,?3,?4,?5)", &st, e))
		return -1;
	for (size_t i = 0; i < d->nlost; i++) {
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_int64(st, 2, (int64_t)i);
		sqlite3_bind_text(st, 3, d->lost[i].func, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, d->lost[i].var, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, d->lost[i].why, -1, SQLITE_STATIC);
		if (step_done(s, st, e))
			goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

static char *col_str(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? xstrdup((const char *)t) : NULL;
}

int store_blame_read(store *s, int64_t run_id, dt_blame_data *d, dt_err *e)
{
	memset(d, 0, sizeof *d);
	sqlite3_stmt *st;
	if (store_prepare(s, "SELECT rank, pid, flags, source, period, event, exe FROM blame_procs "
			     "WHERE run_id = ?1 ORDER BY rank, pid", &st, e))
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		grow((void **)&d->proc, &d->capproc, d->nproc + 1, sizeof *d->proc);
		d->proc[d->nproc++] = (dt_bproc){ sqlite3_column_int(st, 0),
						  sqlite3_column_int64(st, 1),
						  (uint32_t)sqlite3_column_int64(st, 2),
						  sqlite3_column_int(st, 3),
						  sqlite3_column_int64(st, 4), col_str(st, 5),
						  col_str(st, 6) };
	}
	sqlite3_finalize(st);
	/* a store of schema 6 or 7 opened read-only (never migrated) has no inlined levels */
	if (store_prepare(s, "SELECT count(*) FROM pragma_table_info('blame_locs') "
			     "WHERE name = 'inl'", &st, e))
		goto fail;
	int have_inl = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) > 0;
	sqlite3_finalize(st);
	if (store_prepare(s, have_inl ? "SELECT func, file, line, module, in_main, inl FROM blame_locs "
					"WHERE run_id = ?1 ORDER BY id"
				      : "SELECT func, file, line, module, in_main, 0 FROM blame_locs "
					"WHERE run_id = ?1 ORDER BY id",
			  &st, e))
		goto fail;
	sqlite3_bind_int64(st, 1, run_id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		grow((void **)&d->locs, &d->caplocs, d->nlocs + 1, sizeof *d->locs);
		d->locs[d->nlocs++] = (dt_bloc){ col_str(st, 0), col_str(st, 1),
						 sqlite3_column_int(st, 2), col_str(st, 3),
						 sqlite3_column_int(st, 4), sqlite3_column_int(st, 5) };
	}
	sqlite3_finalize(st);
	if (store_prepare(s, "SELECT locs FROM blame_paths WHERE run_id = ?1 ORDER BY id", &st, e))
		goto fail;
	sqlite3_bind_int64(st, 1, run_id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		size_t n = (size_t)sqlite3_column_bytes(st, 0) / sizeof(int32_t);
		const void *b = sqlite3_column_blob(st, 0);
		grow((void **)&d->path_off, &d->cappaths, d->npaths + 2, sizeof *d->path_off);
		if (!d->npaths)
			d->path_off[0] = 0;
		grow((void **)&d->pathv, &d->cappathv, d->npathv + n + 1, sizeof *d->pathv);
		if (n)
			memcpy(d->pathv + d->npathv, b, n * sizeof(int32_t));
		d->npathv += n;
		d->path_off[++d->npaths] = (uint32_t)d->npathv;
	}
	sqlite3_finalize(st);
	if (store_prepare(s, "SELECT refs FROM blame_scans WHERE run_id = ?1 ORDER BY id", &st, e))
		goto fail;
	sqlite3_bind_int64(st, 1, run_id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		size_t n = (size_t)sqlite3_column_bytes(st, 0) / (2 * sizeof(int32_t)) * 2;
		const void *b = sqlite3_column_blob(st, 0);
		grow((void **)&d->scan_off, &d->capscans, d->nscans + 2, sizeof *d->scan_off);
		if (!d->nscans)
			d->scan_off[0] = 0;
		grow((void **)&d->scanv, &d->capscanv, d->nscanv + n + 1, sizeof *d->scanv);
		if (n)
			memcpy(d->scanv + d->nscanv, b, n * sizeof(int32_t));
		d->nscanv += n;
		d->scan_off[++d->nscans] = (uint32_t)d->nscanv;
	}
	sqlite3_finalize(st);
	if (store_prepare(s, "SELECT rank, pid, kind, addr, size, t_alloc, t_free, name, type, site, "
			     "prev, alloc_call FROM blame_containers WHERE run_id = ?1 ORDER BY id",
			  &st, e))
		goto fail;
	sqlite3_bind_int64(st, 1, run_id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		grow((void **)&d->cont, &d->capcont, d->ncont + 1, sizeof *d->cont);
		d->cont[d->ncont++] = (dt_bcontainer){
			.rank = sqlite3_column_int(st, 0), .pid = sqlite3_column_int64(st, 1),
			.kind = sqlite3_column_int(st, 2),
			.addr = (uint64_t)sqlite3_column_int64(st, 3),
			.size = (uint64_t)sqlite3_column_int64(st, 4),
			.t_alloc = sqlite3_column_int64(st, 5), .t_free = sqlite3_column_int64(st, 6),
			.name = col_str(st, 7), .type = col_str(st, 8),
			.site = sqlite3_column_int(st, 9), .prev = sqlite3_column_int(st, 10),
			.alloc_call = sqlite3_column_int(st, 11)
		};
	}
	sqlite3_finalize(st);
	if (store_prepare(s, "SELECT rank, pid, tid, path, call, c0, c1, nrec, weight, cost, bytes, "
			     "scan FROM blame_samples WHERE run_id = ?1", &st, e))
		goto fail;
	sqlite3_bind_int64(st, 1, run_id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		grow((void **)&d->samp, &d->capsamp, d->nsamp + 1, sizeof *d->samp);
		d->samp[d->nsamp++] = (dt_bsample){
			.rank = sqlite3_column_int(st, 0), .pid = sqlite3_column_int64(st, 1),
			.tid = sqlite3_column_int64(st, 2), .path = sqlite3_column_int(st, 3),
			.call = sqlite3_column_int(st, 4), .c0 = sqlite3_column_int(st, 5),
			.c1 = sqlite3_column_int(st, 6),
			.nrec = (uint64_t)sqlite3_column_int64(st, 7),
			.weight = (uint64_t)sqlite3_column_int64(st, 8),
			.cost = (uint64_t)sqlite3_column_int64(st, 9),
			.bytes = (uint64_t)sqlite3_column_int64(st, 10),
			.scan = sqlite3_column_int(st, 11)
		};
	}
	sqlite3_finalize(st);
	/* a store of schema 12 opened read-only (never migrated) has no lost variables */
	if (store_prepare(s, "SELECT count(*) FROM sqlite_master WHERE name = 'blame_lost'", &st, e))
		goto fail;
	int have_lost = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) > 0;
	sqlite3_finalize(st);
	if (!have_lost)
		return 0;
	if (store_prepare(s, "SELECT func, var, why FROM blame_lost WHERE run_id = ?1 ORDER BY id",
			  &st, e))
		goto fail;
	sqlite3_bind_int64(st, 1, run_id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		grow((void **)&d->lost, &d->caplost, d->nlost + 1, sizeof *d->lost);
		d->lost[d->nlost++] = (dt_blost){ col_str(st, 0), col_str(st, 1), col_str(st, 2) };
	}
	sqlite3_finalize(st);
	return 0;
fail:
	dt_blame_data_free(d);
	return -1;
}
