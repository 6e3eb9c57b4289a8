/* store_bindex.c: the bindex_* tables (schema 5): the static data flow of blame-index. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/store_bindex.h"
#include "store/store_int.h"
#include "util/names.h"
#include "util/util.h"

static int step_done(store *s, sqlite3_stmt *st, dt_err *e)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : store_sqlerr(s, e, "writing the source index");
}

static void bind_text_or_null(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

enum { S_FUNC, S_VAR, S_REL, S_CALL, S_ARG, S_ARGVAR, S_LINE, NSTMT };

static const char *const insert_sql[NSTMT] = {
	"INSERT INTO bindex_funcs(file_id, name, line, end_line, flags) VALUES(?1,?2,?3,?4,?5)",
	"INSERT INTO bindex_vars VALUES(?1,?2,?3,?4,?5,?6,?7)",
	"INSERT INTO bindex_rels VALUES(?1,?2,?3,?4,?5,?6,?7,?8)",
	"INSERT INTO bindex_calls VALUES(?1,?2,?3,?4,?5,?6,?7)",
	"INSERT INTO bindex_args VALUES(?1,?2,?3,?4,?5,?6,?7)",
	"INSERT OR IGNORE INTO bindex_argvars VALUES(?1,?2,?3,?4)",
	"INSERT OR IGNORE INTO bindex_lines VALUES(?1,?2,?3,?4)",
};

static int write_func(store *s, sqlite3_stmt **st, int64_t file_id, const bx_func *fn, dt_err *e)
{
	sqlite3_stmt *q = st[S_FUNC];
	sqlite3_bind_int64(q, 1, file_id);
	sqlite3_bind_text(q, 2, fn->name, -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 3, fn->line);
	sqlite3_bind_int(q, 4, fn->end_line);
	sqlite3_bind_int(q, 5, fn->flags);
	if (step_done(s, q, e))
		return -1;
	int64_t id = sqlite3_last_insert_rowid(s->db);
	q = st[S_VAR];
	for (size_t i = 0; i < fn->nvars; i++) {
		const bx_var *v = &fn->vars[i];
		sqlite3_bind_int64(q, 1, id);
		sqlite3_bind_int64(q, 2, (int64_t)i);
		sqlite3_bind_text(q, 3, v->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 4, v->type, -1, SQLITE_STATIC);
		sqlite3_bind_int(q, 5, v->line);
		sqlite3_bind_text(q, 6, bx_kind_name(v->kind), -1, SQLITE_STATIC);
		sqlite3_bind_int(q, 7, v->exit);
		if (step_done(s, q, e))
			return -1;
	}
	q = st[S_REL];
	for (size_t i = 0; i < fn->nrels; i++) {
		const bx_rel *r = &fn->rels[i];
		sqlite3_bind_int64(q, 1, id);
		sqlite3_bind_int(q, 2, r->implicit);
		sqlite3_bind_int(q, 3, r->dst);
		sqlite3_bind_int(q, 4, r->src);
		sqlite3_bind_int(q, 5, r->line);
		sqlite3_bind_int(q, 6, r->through);
		sqlite3_bind_text(q, 7, bx_role_name(r->role), -1, SQLITE_STATIC);
		bind_text_or_null(q, 8, r->field);
		if (step_done(s, q, e))
			return -1;
	}
	for (size_t i = 0; i < fn->ncalls; i++) {
		const bx_call *c = &fn->calls[i];
		q = st[S_CALL];
		sqlite3_bind_int64(q, 1, id);
		sqlite3_bind_int64(q, 2, (int64_t)i);
		bind_text_or_null(q, 3, c->callee);
		bind_text_or_null(q, 4, c->via);
		sqlite3_bind_int(q, 5, c->line);
		sqlite3_bind_int(q, 6, c->col);
		sqlite3_bind_int(q, 7, c->result);
		if (step_done(s, q, e))
			return -1;
		for (size_t j = 0; j < c->nargs; j++) {
			const bx_arg *a = &c->args[j];
			q = st[S_ARG];
			sqlite3_bind_int64(q, 1, id);
			sqlite3_bind_int64(q, 2, (int64_t)i);
			sqlite3_bind_int64(q, 3, (int64_t)j);
			sqlite3_bind_text(q, 4, a->text ? a->text : "", -1, SQLITE_STATIC);
			sqlite3_bind_int(q, 5, a->out);
			sqlite3_bind_int(q, 6, a->out_var);
			sqlite3_bind_int(q, 7, a->out_through);
			if (step_done(s, q, e))
				return -1;
			q = st[S_ARGVAR];
			for (size_t k = 0; k < a->nvars; k++) {
				sqlite3_bind_int64(q, 1, id);
				sqlite3_bind_int64(q, 2, (int64_t)i);
				sqlite3_bind_int64(q, 3, (int64_t)j);
				sqlite3_bind_int(q, 4, a->vars[k]);
				if (step_done(s, q, e))
					return -1;
			}
		}
	}
	q = st[S_LINE];
	for (size_t i = 0; i < fn->nlines; i++) {
		sqlite3_bind_int64(q, 1, id);
		sqlite3_bind_int(q, 2, fn->lines[i].line);
		sqlite3_bind_int(q, 3, fn->lines[i].var);
		sqlite3_bind_text(q, 4, bx_how_name(fn->lines[i].how), -1, SQLITE_STATIC);
		if (step_done(s, q, e))
			return -1;
	}
	return 0;
}

int store_bindex_write(store *s, int64_t run_id, const bx_file *f, const char *clang_version,
		       dt_err *e)
{
	sqlite3_stmt *q = NULL;
	if (store_prepare(s, "DELETE FROM bindex_files WHERE path = ?1 AND run_id IS ?2", &q, e))
		return -1;
	sqlite3_bind_text(q, 1, f->path, -1, SQLITE_STATIC);
	if (run_id >= 0)
		sqlite3_bind_int64(q, 2, run_id);
	int rc = step_done(s, q, e);
	sqlite3_finalize(q);
	if (rc)
		return -1;
	if (store_prepare(s, "INSERT INTO bindex_files(run_id, path, directory, args, lines, "
			     "nerrors, clang, created) VALUES(?1,?2,?3,?4,?5,?6,?7,?8)", &q, e))
		return -1;
	if (run_id >= 0)
		sqlite3_bind_int64(q, 1, run_id);
	else
		sqlite3_bind_null(q, 1);
	sqlite3_bind_text(q, 2, f->path, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, f->directory ? f->directory : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 4, f->args ? f->args : "", -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 5, f->lines);
	int64_t nerr = 0; /* the errors in the sources, not those of the command line */
	for (size_t i = 0; i < f->ndiags; i++)
		nerr += f->diags[i].line > 0;
	sqlite3_bind_int64(q, 6, nerr);
	sqlite3_bind_text(q, 7, clang_version ? clang_version : "", -1, SQLITE_STATIC);
	char created[32];
	time_t now = time(NULL);
	struct tm tm;
	strftime(created, sizeof created, "%Y-%m-%d %H:%M:%S", localtime_r(&now, &tm));
	sqlite3_bind_text(q, 8, created, -1, SQLITE_STATIC);
	rc = step_done(s, q, e);
	sqlite3_finalize(q);
	if (rc)
		return -1;
	int64_t file_id = sqlite3_last_insert_rowid(s->db);
	sqlite3_stmt *st[NSTMT] = { 0 };
	rc = -1;
	for (int i = 0; i < NSTMT; i++)
		if (store_prepare(s, insert_sql[i], &st[i], e))
			goto out;
	for (size_t i = 0; i < f->nfuncs; i++)
		if (write_func(s, st, file_id, &f->funcs[i], e))
			goto out;
	rc = 0;
out:
	for (int i = 0; i < NSTMT; i++)
		sqlite3_finalize(st[i]);
	return rc;
}

/* ---- reading --------------------------------------------------------------------------- */

static char *col_str(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? xstrdup((const char *)t) : NULL;
}

static int name_index(const char *s, const char *(*name)(int), int n)
{
	for (int i = 0; i < n; i++)
		if (s && !strcmp(s, name(i)))
			return i;
	return -1;
}

/* Reads the details of fn (id) from the tables. */
static int read_func(store *s, int64_t id, bx_func *fn, dt_err *e)
{
	sqlite3_stmt *q;
	size_t cap = 0;
	if (store_prepare(s, "SELECT name, type, line, kind, exit FROM bindex_vars WHERE func_id = ?1 "
			     "ORDER BY id", &q, e))
		return -1;
	sqlite3_bind_int64(q, 1, id);
	while (sqlite3_step(q) == SQLITE_ROW) {
		grow((void **)&fn->vars, &cap, fn->nvars + 1, sizeof *fn->vars);
		bx_var *v = &fn->vars[fn->nvars++];
		v->name = col_str(q, 0);
		v->type = col_str(q, 1);
		v->line = sqlite3_column_int(q, 2);
		v->kind = name_index((const char *)sqlite3_column_text(q, 3), bx_kind_name, BX_RETURN + 1);
		v->exit = sqlite3_column_int(q, 4);
	}
	sqlite3_finalize(q);
	cap = 0;
	if (store_prepare(s, "SELECT implicit, dst, src, line, through, role, field FROM bindex_rels "
			     "WHERE func_id = ?1 ORDER BY rowid", &q, e))
		return -1;
	sqlite3_bind_int64(q, 1, id);
	while (sqlite3_step(q) == SQLITE_ROW) {
		grow((void **)&fn->rels, &cap, fn->nrels + 1, sizeof *fn->rels);
		bx_rel *r = &fn->rels[fn->nrels++];
		r->implicit = sqlite3_column_int(q, 0);
		r->dst = sqlite3_column_int(q, 1);
		r->src = sqlite3_column_int(q, 2);
		r->line = sqlite3_column_int(q, 3);
		r->through = sqlite3_column_int(q, 4);
		r->role = name_index((const char *)sqlite3_column_text(q, 5), bx_role_name, BX_CONTROL + 1);
		r->field = col_str(q, 6);
	}
	sqlite3_finalize(q);
	cap = 0;
	if (store_prepare(s, "SELECT callee, via, line, col, result FROM bindex_calls "
			     "WHERE func_id = ?1 ORDER BY id", &q, e))
		return -1;
	sqlite3_bind_int64(q, 1, id);
	while (sqlite3_step(q) == SQLITE_ROW) {
		grow((void **)&fn->calls, &cap, fn->ncalls + 1, sizeof *fn->calls);
		bx_call *c = &fn->calls[fn->ncalls++];
		memset(c, 0, sizeof *c);
		c->callee = col_str(q, 0);
		c->via = col_str(q, 1);
		c->line = sqlite3_column_int(q, 2);
		c->col = sqlite3_column_int(q, 3);
		c->result = sqlite3_column_int(q, 4);
	}
	sqlite3_finalize(q);
	if (store_prepare(s, "SELECT call_id, argno, text, out, out_var, out_through FROM bindex_args "
			     "WHERE func_id = ?1 ORDER BY call_id, argno", &q, e))
		return -1;
	sqlite3_bind_int64(q, 1, id);
	while (sqlite3_step(q) == SQLITE_ROW) {
		int64_t ci = sqlite3_column_int64(q, 0), ai = sqlite3_column_int64(q, 1);
		if (ci < 0 || (size_t)ci >= fn->ncalls || ai < 0 || ai > 1 << 20)
			continue;
		bx_call *c = &fn->calls[ci];
		if ((size_t)ai >= c->nargs) {
			c->args = xrealloc(c->args, ((size_t)ai + 1) * sizeof *c->args);
			memset(c->args + c->nargs, 0, ((size_t)ai + 1 - c->nargs) * sizeof *c->args);
			c->nargs = (size_t)ai + 1;
		}
		bx_arg *a = &c->args[ai];
		a->text = col_str(q, 2);
		a->out = sqlite3_column_int(q, 3);
		a->out_var = sqlite3_column_int(q, 4);
		a->out_through = sqlite3_column_int(q, 5);
	}
	sqlite3_finalize(q);
	if (store_prepare(s, "SELECT call_id, argno, var FROM bindex_argvars WHERE func_id = ?1 "
			     "ORDER BY call_id, argno, var", &q, e))
		return -1;
	sqlite3_bind_int64(q, 1, id);
	while (sqlite3_step(q) == SQLITE_ROW) {
		int64_t ci = sqlite3_column_int64(q, 0), ai = sqlite3_column_int64(q, 1);
		if (ci < 0 || (size_t)ci >= fn->ncalls || ai < 0 || (size_t)ai >= fn->calls[ci].nargs)
			continue;
		bx_arg *a = &fn->calls[ci].args[ai];
		a->vars = xrealloc(a->vars, (a->nvars + 1) * sizeof *a->vars);
		a->vars[a->nvars++] = sqlite3_column_int(q, 2);
	}
	sqlite3_finalize(q);
	cap = 0;
	if (store_prepare(s, "SELECT line, var, how FROM bindex_lines WHERE func_id = ?1 "
			     "ORDER BY line, var", &q, e))
		return -1;
	sqlite3_bind_int64(q, 1, id);
	while (sqlite3_step(q) == SQLITE_ROW) {
		grow((void **)&fn->lines, &cap, fn->nlines + 1, sizeof *fn->lines);
		bx_line *l = &fn->lines[fn->nlines++];
		l->line = sqlite3_column_int(q, 0);
		l->var = sqlite3_column_int(q, 1);
		l->how = name_index((const char *)sqlite3_column_text(q, 2), bx_how_name, BX_CONDITION + 1);
	}
	sqlite3_finalize(q);
	return 0;
}

int store_bindex_exists(store *s, dt_err *e)
{
	sqlite3_stmt *q;
	if (store_prepare(s, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
			     "name = 'bindex_funcs'", &q, e))
		return -1;
	int yes = sqlite3_step(q) == SQLITE_ROW;
	sqlite3_finalize(q);
	return yes;
}

#define SCOPE " (?1 < 0 OR f.run_id = ?1 OR f.run_id IS NULL) "

int store_bindex_find(store *s, int64_t run_id, const char *name, bx_func **fns, size_t *n,
		      dt_err *e)
{
	*fns = NULL;
	*n = 0;
	sqlite3_stmt *q;
	if (store_prepare(s, "SELECT fn.id, fn.name, f.path, fn.line, fn.end_line, fn.flags "
			     "FROM bindex_funcs fn JOIN bindex_files f ON f.id = fn.file_id "
			     "WHERE fn.name = ?2 AND" SCOPE "ORDER BY f.path, fn.line", &q, e))
		return -1;
	sqlite3_bind_int64(q, 1, run_id);
	sqlite3_bind_text(q, 2, name, -1, SQLITE_STATIC);
	size_t cap = 0;
	int64_t *ids = NULL;
	size_t capi = 0;
	while (sqlite3_step(q) == SQLITE_ROW) {
		grow((void **)fns, &cap, *n + 1, sizeof **fns);
		grow((void **)&ids, &capi, *n + 1, sizeof *ids);
		bx_func *fn = &(*fns)[*n];
		memset(fn, 0, sizeof *fn);
		ids[*n] = sqlite3_column_int64(q, 0);
		fn->name = col_str(q, 1);
		fn->file = col_str(q, 2);
		fn->line = sqlite3_column_int(q, 3);
		fn->end_line = sqlite3_column_int(q, 4);
		fn->flags = sqlite3_column_int(q, 5);
		++*n;
	}
	sqlite3_finalize(q);
	int rc = 0;
	for (size_t i = 0; i < *n && !rc; i++)
		rc = read_func(s, ids[i], &(*fns)[i], e);
	free(ids);
	if (rc) {
		for (size_t i = 0; i < *n; i++)
			bx_func_free(&(*fns)[i]);
		free(*fns);
		*fns = NULL;
		*n = 0;
	}
	return rc;
}

int store_bindex_files(store *s, int64_t run_id, store_bfile **files, size_t *n, dt_err *e)
{
	*files = NULL;
	*n = 0;
	sqlite3_stmt *q;
	if (store_prepare(s, "SELECT f.path, r.name, f.lines, "
			     "(SELECT count(*) FROM bindex_funcs fn WHERE fn.file_id = f.id), "
			     "f.nerrors, f.created FROM bindex_files f LEFT JOIN runs r ON "
			     "r.id = f.run_id WHERE" SCOPE "ORDER BY r.name IS NOT NULL, r.name, f.path",
			  &q, e))
		return -1;
	sqlite3_bind_int64(q, 1, run_id);
	size_t cap = 0;
	while (sqlite3_step(q) == SQLITE_ROW) {
		grow((void **)files, &cap, *n + 1, sizeof **files);
		store_bfile *f = &(*files)[(*n)++];
		f->path = col_str(q, 0);
		f->run = col_str(q, 1);
		f->lines = sqlite3_column_int(q, 2);
		f->nfuncs = sqlite3_column_int(q, 3);
		f->nerrors = sqlite3_column_int(q, 4);
		f->created = col_str(q, 5);
	}
	sqlite3_finalize(q);
	return 0;
}

void store_bfiles_free(store_bfile *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].path);
		free(f[i].run);
		free(f[i].created);
	}
	free(f);
}

int store_bindex_src(store *s, int64_t run_id, const dt_blame_data *d, bx_func **out, size_t *n,
		    dt_err *e)
{
	*out = NULL;
	*n = 0;
	int have = store_bindex_exists(s, e);
	if (have <= 0)
		return have;
	size_t cap = 0;
	strmap seen;
	strmap_init(&seen);
	int rc = 0;
	for (size_t i = 0; i < d->nlocs && !rc; i++) {
		const dt_bloc *l = &d->locs[i];
		uint32_t id;
		if (!l->in_main || strmap_get(&seen, l->func, strlen(l->func), &id))
			continue;
		strmap_put(&seen, l->func, strlen(l->func), 0);
		bx_func *fns;
		size_t nf;
		/* the index names a C++ function as its source does (grid::Field::smooth), the
		 * sample by its demangled symbol (grid::Field<double>::smooth(int)) */
		char pb[512], nb[512];
		const char *plain = dt_name_plain(l->func, pb, sizeof pb);
		/* a copy gcc made of a function (name.constprop.0, .isra.0, .part.0, .cold) is
		 * found under the function's name */
		size_t dot = strcspn(plain, ".");
		if (plain[dot] && dot > 0 && dot < sizeof nb) {
			memcpy(nb, plain, dot);
			nb[dot] = 0;
			plain = nb;
		}
		if ((rc = store_bindex_find(s, run_id, plain, &fns, &nf, e)))
			break;
		size_t pick = 0;
		const char *lb = strrchr(l->file, '/');
		lb = lb ? lb + 1 : l->file;
		for (size_t j = 0; j < nf && *lb; j++) {
			const char *fb = strrchr(fns[j].file, '/');
			if (!strcmp(fb ? fb + 1 : fns[j].file, lb)) {
				pick = j;
				break;
			}
		}
		for (size_t j = 0; j < nf; j++) {
			if (j == pick) {
				grow((void **)out, &cap, *n + 1, sizeof **out);
				(*out)[(*n)++] = fns[j];
			} else {
				bx_func_free(&fns[j]);
			}
		}
		free(fns);
	}
	strmap_free(&seen);
	return rc;
}

void bx_funcs_free(bx_func *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		bx_func_free(&f[i]);
	free(f);
}
