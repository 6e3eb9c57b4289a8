/* uftrace_syms.c: a uftrace.data directory's maps and symbol files, and the resolution of
 * recorded addresses to functions (uftrace_data.h). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/mpi_family.h"
#include "import/uftrace_data.h"
#include "import/uftrace_int.h"


/* ---- maps ------------------------------------------------------------------------------------ */

static int cmp_range(const void *a, const void *b)
{
	const struct ufd_range *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int load_map(ufd_data *d, ufd_sess *s, dt_err *e)
{
	char name[64];
	snprintf(name, sizeof name, "sid-%s.map", s->sid);
	char *path = path_join(d->dir, name);
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	int rc = -1;
	if (read_file(path, &buf, &len, e))
		goto out;
	char *line = (char *)buf;
	for (int lineno = 1; line < (char *)buf + len; lineno++) {
		char *nl = memchr(line, '\n', (size_t)((char *)buf + len - line));
		if (nl)
			*nl = 0;
		if (*line) {
			unsigned long long a, b;
			int used = 0;
			if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %n", &a, &b, &used) < 2 || !used ||
			    b < a) {
				dt_err_lc(e, path, lineno, 1, "bad map line");
				goto out;
			}
			char *p = line + used;
			char *bid = strstr(p, " build-id:");
			if (bid) {
				*bid = 0;
				bid += 10;
				bid[strcspn(bid, " \t\r")] = 0;
			}
			size_t pl = strlen(p);
			while (pl && p[pl - 1] == ' ')
				p[--pl] = 0;
			maps_path_unescape(p);
			if (*p && *p != '[') {
				int mi = ufd_mod_get(d, p);
				if (bid && *bid && !d->mods[mi].bid)
					d->mods[mi].bid = xstrdup(bid);
				GROW(s->ranges, cap, s->nranges + 1);
				s->ranges[s->nranges++] = (struct ufd_range){ a, b, mi };
			}
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	if (s->nranges)
		qsort(s->ranges, s->nranges, sizeof *s->ranges, cmp_range);
	rc = 0;
out:
	s->map_loaded = 1; /* tried once: a missing map is reported once, then names stay hex */
	free(buf);
	free(path);
	return rc;
}

int ufd_mpi_family(ufd_data *d, int sess, dt_err *e)
{
	if (sess < 0 || (size_t)sess >= d->nsess)
		return MPI_FAM_UNKNOWN;
	ufd_sess *s = &d->sess[sess];
	if (s->mpi_family)
		return s->mpi_family - 1;
	if (!s->map_loaded && load_map(d, s, e))
		return -1;
	int fam = MPI_FAM_UNKNOWN, f;
	for (size_t i = 0; i < s->nranges; i++)
		if ((f = mpi_family_of_lib(d->mods[s->ranges[i].mod].base)) > fam)
			fam = f;
	/* an MPI loaded later (a Python program's mpi4py) */
	for (size_t i = 0; i < s->ndlops; i++)
		if ((f = mpi_family_of_lib(d->mods[s->dlops[i].mod].base)) > fam)
			fam = f;
	s->mpi_family = fam + 1;
	return fam;
}

/* ---- symbol files ---------------------------------------------------------------------------- */

/* Reads the header line "<key>..." (key like "# path name: ") of a .sym or .dbg file into out;
 * 0 when found. */
static int file_header(const char *file, const char *key, char *out, size_t n)
{
	FILE *f = fopen(file, "r");
	if (!f)
		return -1;
	char line[4096];
	size_t kl = strlen(key);
	int rc = -1;
	for (int i = 0; i < 8 && fgets(line, sizeof line, f); i++) {
		if (line[0] != '#')
			break;
		if (!strncmp(line, key, kl)) {
			line[strcspn(line, "\r\n")] = 0;
			size_t l = strlen(line + kl);
			if (l >= n)
				break;
			memcpy(out, line + kl, l + 1);
			rc = 0;
			break;
		}
	}
	fclose(f);
	return rc;
}

static int sym_header_path(const char *file, char *out, size_t n)
{
	return file_header(file, "# path name: ", out, n);
}

static void build_symidx(ufd_data *d)
{
	d->symidx_built = 1;
	DIR *dp = opendir(d->dir);
	if (!dp)
		return;
	struct dirent *de;
	char hdr[4096];
	/* readdir order is arbitrary: collect, then sort, so duplicates resolve the same way */
	char **names = NULL;
	size_t n = 0, cap = 0;
	while ((de = readdir(dp))) {
		size_t l = strlen(de->d_name);
		if (l > 4 && !strcmp(de->d_name + l - 4, ".sym")) {
			GROW(names, cap, n + 1);
			names[n++] = xstrdup(de->d_name);
		}
	}
	closedir(dp);
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *t = names[j];
			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	for (size_t i = 0; i < n; i++) {
		char *file = path_join(d->dir, names[i]);
		uint32_t v;
		if (!sym_header_path(file, hdr, sizeof hdr) &&
		    !strmap_get(&d->symfile, hdr, strlen(hdr), &v)) {
			GROW(d->symfiles, d->capsymfiles, d->nsymfiles + 1);
			d->symfiles[d->nsymfiles] = file;
			strmap_put(&d->symfile, hdr, strlen(hdr), (uint32_t)d->nsymfiles++);
		} else
			free(file);
		free(names[i]);
	}
	free(names);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A module's .sym file from a sibling of the data directory (rank-1/ for rank-0/), for a rank
 * whose own was never written (uftrace killed while it wrote them, as when mpirun stops the
 * other ranks of a failed job). Taken only when the maps give the module's build id, the
 * sibling's .sym file (or its .dbg file) has the same one, and its header names the same path:
 * the same binary, so the same symbols. Siblings are tried in name order. */
static char *sibling_sym(ufd_data *d, ufd_module *m)
{
	if (m->sibtried)
		return m->sibfile ? xstrdup(m->sibfile) : NULL;
	m->sibtried = 1;
	if (!m->bid)
		return NULL;
	char *own = xstrdup(d->dir);
	size_t l = strlen(own);
	while (l > 1 && own[l - 1] == '/')
		own[--l] = 0;
	char *slash = strrchr(own, '/');
	const char *self = slash ? slash + 1 : own;
	char *parent = slash ? (slash == own ? xstrdup("/") : xstrndup(own, (size_t)(slash - own)))
			     : xstrdup(".");
	char *found = NULL, **names = NULL;
	size_t n = 0, cap = 0;
	DIR *dp = opendir(parent);
	struct dirent *de;
	while (dp && (de = readdir(dp)))
		if (de->d_name[0] != '.' && strcmp(de->d_name, self)) {
			GROW(names, cap, n + 1);
			names[n++] = xstrdup(de->d_name);
		}
	if (dp)
		closedir(dp);
	if (n)
		qsort(names, n, sizeof *names, cmp_str);
	char file[600], hdr[4096], bid[256];
	for (size_t i = 0; i < n && !found; i++) {
		char *dir = path_join(parent, names[i]);
		snprintf(file, sizeof file, "%s.sym", m->base);
		char *sym = path_join(dir, file);
		snprintf(file, sizeof file, "%s.dbg", m->base);
		char *dbg = path_join(dir, file);
		if (!sym_header_path(sym, hdr, sizeof hdr) && !strcmp(hdr, m->path) &&
		    (!file_header(sym, "# build-id: ", bid, sizeof bid) ||
		     !file_header(dbg, "# build-id: ", bid, sizeof bid)) &&
		    !strcmp(bid, m->bid)) {
			found = sym;
			sym = NULL;
			size_t bl = d->borrowed ? strlen(d->borrowed) : 0;
			size_t add = strlen(m->base) + strlen(names[i]) + 16;
			d->borrowed = xrealloc(d->borrowed, bl + add);
			snprintf(d->borrowed + bl, add, "%s%s from %s", bl ? ", " : "", m->base,
				 names[i]);
		}
		free(sym);
		free(dbg);
		free(dir);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(parent);
	free(own);
	m->sibfile = found ? xstrdup(found) : NULL;
	return found;
}

const char *ufd_borrowed(const ufd_data *d)
{
	return d->borrowed;
}

/* The .sym file of a module: <basename>.sym when its header names the module (or has no
 * header), else whichever file's "# path name" does (uftrace names the second of two modules
 * with one basename <name>-<4 hex>.sym), else a sibling directory's (sibling_sym). */
char *ufd_sym_file_for(ufd_data *d, ufd_module *m, const char *ext)
{
	char name[600], hdr[4096];
	snprintf(name, sizeof name, "%s%s", m->base, ext);
	char *file = path_join(d->dir, name);
	if (!strcmp(ext, ".sym")) {
		int r = sym_header_path(file, hdr, sizeof hdr);
		FILE *f;
		if (!r && !strcmp(hdr, m->path))
			return file;
		if (r && (f = fopen(file, "r"))) {
			fclose(f);
			return file;
		}
		free(file);
		if (!d->symidx_built)
			build_symidx(d);
		uint32_t v;
		if (strmap_get(&d->symfile, m->path, strlen(m->path), &v))
			return xstrdup(d->symfiles[v]);
		return sibling_sym(d, m);
	}
	/* .dbg: same base as the .sym file that matched */
	char *sym = ufd_sym_file_for(d, m, ".sym");
	free(file);
	if (!sym)
		return NULL;
	size_t l = strlen(sym);
	memcpy(sym + l - 4, ".dbg", 4);
	return sym;
}

static int cmp_sym(const void *a, const void *b)
{
	const ufd_symbol *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int load_syms(ufd_data *d, ufd_module *m, dt_err *e)
{
	m->loaded = -1;
	char *file = ufd_sym_file_for(d, m, ".sym");
	if (!file)
		return 0; /* no symbols: names fall back to module+offset */
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, ncap = 0, nlen = 0;
	int rc = -1;
	if (read_file(file, &buf, &len, e))
		goto out;
	int sized = !!(d->info.feat & UFD_FEAT_SYM_SIZE);
	char *line = (char *)buf;
	for (int lineno = 1; line < (char *)buf + len; lineno++) {
		char *nl = memchr(line, '\n', (size_t)((char *)buf + len - line));
		if (nl)
			*nl = 0;
		if (*line && *line != '#') {
			char *p = line, *q;
			errno = 0;
			unsigned long long addr = strtoull(p, &q, 16), size = 0;
			if (q == p || *q != ' ' || errno) {
				dt_err_lc(e, file, lineno, 1, "bad symbol address");
				goto out;
			}
			p = q + 1;
			/* "addr type name", or with SYM_SIZE "addr size type name" */
			if (sized || (isxdigit((unsigned char)p[0]) && p[1] && p[1] != ' ')) {
				size = strtoull(p, &q, 16);
				if (q == p || *q != ' ' || size > UINT32_MAX) {
					dt_err_lc(e, file, lineno, (int)(p - line) + 1, "bad symbol size");
					goto out;
				}
				p = q + 1;
			}
			if (!*p || p[1] != ' ' || !p[2]) {
				dt_err_lc(e, file, lineno, (int)(p - line) + 1, "bad symbol type or name");
				goto out;
			}
			char type = p[0];
			const char *name = p + 2;
			size_t l = strlen(name);
			if (nlen + l + 1 > UINT32_MAX) {
				dt_err_lc(e, file, lineno, 1, "symbol table too large");
				goto out;
			}
			GROW(m->syms, cap, m->nsyms + 1);
			GROW(m->names, ncap, nlen + l + 1);
			memcpy(m->names + nlen, name, l + 1);
			m->syms[m->nsyms] = (ufd_symbol){ addr, (uint32_t)size, (uint32_t)nlen,
							  (uint32_t)m->nsyms, (uint8_t)type };
			m->nsyms++;
			nlen += l + 1;
			if (addr + size > m->extent)
				m->extent = addr + size;
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	if (m->nsyms)
		qsort(m->syms, m->nsyms, sizeof *m->syms, cmp_sym);
	m->loaded = 1;
	rc = 0;
out:
	free(buf);
	free(file);
	return rc;
}

static int is_func_type(uint8_t t)
{
	return t == 'T' || t == 't' || t == 'W' || t == 'w' || t == 'P' || t == 'i' || t == 'K' ||
	       t == 'k';
}

/* The function symbol containing key (relative address), or NULL. */
static const ufd_symbol *sym_lookup(const ufd_module *m, uint64_t key)
{
	size_t lo = 0, hi = m->nsyms;
	while (lo < hi) { /* first symbol with addr > key */
		size_t mid = lo + (hi - lo) / 2;
		if (m->syms[mid].addr <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	size_t i = lo - 1;
	uint64_t at = m->syms[i].addr;
	while (i > 0 && m->syms[i - 1].addr == at) /* aliases: the first in the file wins */
		i--;
	/* among aliases prefer a function symbol */
	size_t j = i;
	while (j < m->nsyms && m->syms[j].addr == at && !is_func_type(m->syms[j].type))
		j++;
	if (j == m->nsyms || m->syms[j].addr != at)
		return NULL;
	const ufd_symbol *s = &m->syms[j];
	if (s->size && key >= s->addr + s->size)
		return NULL;
	return s;
}

const char *ufd_module_name(const ufd_data *d, int mod)
{
	return mod >= 0 && (size_t)mod < d->nmods ? d->mods[mod].base : "?";
}

int ufd_resolve(ufd_data *d, int sess, uint64_t ts, uint64_t addr, ufd_sym *out, dt_err *e)
{
	out->module = -1;
	out->found = 0;
	out->module_syms = 0;
	out->path = NULL;
	out->bid = NULL;
	int mod = -1;
	uint64_t base = 0;
	if (sess >= 0 && (size_t)sess < d->nsess) {
		ufd_sess *s = &d->sess[sess];
		if (!s->map_loaded && load_map(d, s, e))
			return -1;
		size_t lo = 0, hi = s->nranges;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (s->ranges[mid].start <= addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && addr < s->ranges[lo - 1].end) {
			mod = s->ranges[lo - 1].mod;
			base = s->ranges[lo - 1].start;
		}
		/* a library dlopen()ed after the map was written: the nearest base below addr,
		 * loaded before this record */
		for (size_t i = s->ndlops; mod < 0 && i-- > 0;) {
			const struct ufd_dlop *dl = &s->dlops[i];
			if (dl->base > addr || dl->ts > ts)
				continue;
			ufd_module *m = &d->mods[dl->mod];
			if (!m->loaded && load_syms(d, m, e))
				return -1;
			uint64_t ext = m->loaded > 0 ? m->extent : 0;
			if (addr - dl->base < (ext ? ext : (uint64_t)64 << 20)) {
				mod = dl->mod;
				base = dl->base;
			}
			break;
		}
	}
	if (mod < 0) {
		snprintf(d->namebuf, sizeof d->namebuf, "0x%" PRIx64, addr);
		out->name = d->namebuf;
		out->len = strlen(d->namebuf);
		return 0;
	}
	ufd_module *m = &d->mods[mod];
	out->module = mod;
	out->path = m->path;
	out->bid = m->bid;
	if (!m->loaded && load_syms(d, m, e))
		return -1;
	uint64_t key = addr - base;
	/* Without SYM_REL_ADDR the executable's symbols are absolute addresses. */
	if (!(d->info.feat & UFD_FEAT_SYM_REL_ADDR) && sess >= 0 &&
	    !strcmp(m->path, d->sess[sess].exename))
		key = addr;
	const ufd_symbol *sym = m->loaded > 0 ? sym_lookup(m, key) : NULL;
	out->module_syms = m->loaded > 0 && m->nsyms > 0;
	if (sym && is_func_type(sym->type)) {
		out->name = m->names + sym->name;
		out->len = strlen(out->name);
		out->found = 1;
		return 0;
	}
	snprintf(d->namebuf, sizeof d->namebuf, "%s+0x%" PRIx64, m->base, key);
	out->name = d->namebuf;
	out->len = strlen(d->namebuf);
	return 0;
}

int ufd_resolve_object(ufd_data *d, int sess, uint64_t ts, uint64_t addr, const char **name,
		       dt_err *e)
{
	*name = NULL;
	if (sess < 0 || (size_t)sess >= d->nsess || !addr)
		return 0;
	ufd_sess *s = &d->sess[sess];
	if (!s->map_loaded && load_map(d, s, e))
		return -1;
	int mod = -1;
	uint64_t base = 0;
	/* Data lies past the executable mapping the map lists: the nearest module below addr,
	 * when its symbol table reaches that far. */
	size_t lo = 0, hi = s->nranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->ranges[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo) {
		mod = s->ranges[lo - 1].mod;
		base = s->ranges[lo - 1].start;
	}
	for (size_t i = s->ndlops; i-- > 0;) {
		const struct ufd_dlop *dl = &s->dlops[i];
		if (dl->base > addr || dl->ts > ts)
			continue;
		if (mod < 0 || dl->base > base) {
			mod = dl->mod;
			base = dl->base;
		}
		break;
	}
	if (mod < 0)
		return 0;
	ufd_module *m = &d->mods[mod];
	if (!m->loaded && load_syms(d, m, e))
		return -1;
	if (m->loaded <= 0)
		return 0;
	uint64_t key = addr - base;
	if (!(d->info.feat & UFD_FEAT_SYM_REL_ADDR) && !strcmp(m->path, s->exename))
		key = addr;
	if (key >= m->extent)
		return 0;
	/* the first symbol at key exactly that is not a function */
	size_t a = 0, b = m->nsyms;
	while (a < b) {
		size_t mid = a + (b - a) / 2;
		if (m->syms[mid].addr < key)
			a = mid + 1;
		else
			b = mid;
	}
	for (; a < m->nsyms && m->syms[a].addr == key; a++)
		if (!is_func_type(m->syms[a].type) && m->syms[a].type != '?') {
			*name = m->names + m->syms[a].name;
			return 1;
		}
	return 0;
}
