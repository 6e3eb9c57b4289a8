/* store_srcline.c: reading the srclines table (store_srcline.h); the writer's side is in
 * store_write.c. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/store_int.h"
#include "store/store_srcline.h"
#include "util/util.h"

struct store_srclines {
	strmap index;      /* function name -> position in file/line */
	char **file;
	int *line;
	size_t n, cap;
	char **nodebug;    /* programs without debug information */
	unsigned char *unreadable; /* nodebug[i] could not be read at import */
	size_t nnodebug, capnodebug, capunreadable;
};

void store_srclines_free(store_srclines *l)
{
	if (!l)
		return;
	strmap_free(&l->index);
	for (size_t i = 0; i < l->n; i++)
		free(l->file[i]);
	for (size_t i = 0; i < l->nnodebug; i++)
		free(l->nodebug[i]);
	free(l->file);
	free(l->line);
	free(l->nodebug);
	free(l->unreadable);
	free(l);
}

int store_srclines_load(store *s, int64_t run_id, store_srclines **out, dt_err *e)
{
	store_srclines *l = xcalloc(1, sizeof *l);
	strmap_init(&l->index);
	*out = l;
	sqlite3_stmt *st;
	/* a store made before the table, opened read-only (never migrated), has none */
	if (store_prepare(s, "SELECT count(*) FROM sqlite_master WHERE name = 'srclines'", &st, e))
		goto fail;
	int have = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) > 0;
	sqlite3_finalize(st);
	if (!have)
		return 0;
	if (store_prepare(s, "SELECT func, file, line FROM srclines WHERE run_id = ?1"
			     " ORDER BY func, line, file", &st, e))
		goto fail;
	sqlite3_bind_int64(st, 1, run_id);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *fn = (const char *)sqlite3_column_text(st, 0);
		const char *file = (const char *)sqlite3_column_text(st, 1);
		int line = sqlite3_column_int(st, 2);
		if (!fn || !file)
			continue;
		if (!*fn) {
			GROW(l->nodebug, l->capnodebug, l->nnodebug + 1);
			GROW(l->unreadable, l->capunreadable, l->nnodebug + 1);
			l->unreadable[l->nnodebug] = (unsigned char)(line == 1 || line == 2 ? line : 0);
			l->nodebug[l->nnodebug++] = xstrdup(file);
			continue;
		}
		uint32_t at;
		if (line <= 0 || strmap_get(&l->index, fn, strlen(fn), &at))
			continue; /* the first definition of a name wins */
		if (l->n == l->cap) {
			l->cap = l->cap ? 2 * l->cap : 64;
			l->file = xrealloc(l->file, l->cap * sizeof *l->file);
			l->line = xrealloc(l->line, l->cap * sizeof *l->line);
		}
		l->file[l->n] = xstrdup(file);
		l->line[l->n] = line;
		strmap_put(&l->index, fn, strlen(fn), (uint32_t)l->n);
		l->n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		store_sqlerr(s, e, "reading source lines");
		goto fail;
	}
	return 0;
fail:
	store_srclines_free(l);
	*out = NULL;
	return -1;
}

int store_srclines_find(const store_srclines *l, const char *name, const char **file,
			int *line)
{
	if (!l || !name || !l->n)
		return 0;
	size_t len = strlen(name);
	const char *br = strchr(name, '[');
	if (br && br > name && name[len - 1] == ']')
		len = (size_t)(br - name);
	uint32_t at;
	if (!strmap_get(&l->index, name, len, &at))
		return 0;
	*file = l->file[at];
	*line = l->line[at];
	return 1;
}

size_t store_srclines_count(const store_srclines *l)
{
	return l ? l->n : 0;
}

const char *const *store_srclines_nodebug(const store_srclines *l, size_t *n)
{
	*n = l ? l->nnodebug : 0;
	return l ? (const char *const *)l->nodebug : NULL;
}

const char *store_srcline_show(const char *file, char *buf, size_t n)
{
	char cwd[4096];
	if (!file || file[0] != '/' || !getcwd(cwd, sizeof cwd))
		return file;
	size_t k = strlen(cwd);
	if (k > 1 && !strncmp(file, cwd, k) && file[k] == '/' && file[k + 1]) {
		snprintf(buf, n, "%s", file + k + 1);
		return buf;
	}
	return file;
}

int store_srclines_unreadable(const store_srclines *l, size_t i)
{
	return l && i < l->nnodebug ? l->unreadable[i] : 0;
}

const char *store_srclines_why(const store_srclines *l, size_t i)
{
	int k = l && i < l->nnodebug ? l->unreadable[i] : 0;
	return k == 2	? "the file there is another build than the one recorded"
	       : k == 1 ? "it could not be read at import"
			: "it has no debug information (-g)";
}
