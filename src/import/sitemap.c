/* sitemap.c: call sites of a sync record, resolved with the modules' DWARF (sitemap.h). */
#define _GNU_SOURCE
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import/dwarf_vars.h"
#include "import/sitemap.h"
#include "record/syncfmt.h"
#include "util/names.h"
#include "util/util.h"

/* A mapping of a process's module map: [lo, hi) maps the file path from offset off. */
struct mapping {
	uint64_t lo, hi, off;
	char *path;
};

struct proc {
	int64_t pid;
	struct mapping *m; /* by lo; NULL: no map */
	size_t n;
};

/* A module file, opened once for every process that maps it (one program's ranks). */
struct module {
	char *path;
	Dwfl *dwfl; /* NULL: it cannot be read */
	Dwfl_Module *mod;
};

struct sitemap {
	char *dir;
	struct proc *p;
	size_t np, capp;
	struct module *mods;
	size_t nmods, capmods;
	strmap ids;   /* (pid, address) -> the sink's site id */
	strmap names; /* "file\0line\0func" -> the sink's site id */
	strmap at;    /* (module, address in it) -> the sink's site id */
};

static char *debuginfo_path = NULL;
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

sitemap *sitemap_new(const char *dir)
{
	sitemap *m = xcalloc(1, sizeof *m);
	m->dir = xstrdup(dir);
	strmap_init(&m->ids);
	strmap_init(&m->names);
	strmap_init(&m->at);
	return m;
}

void sitemap_free(sitemap *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->np; i++) {
		for (size_t k = 0; k < m->p[i].n; k++)
			free(m->p[i].m[k].path);
		free(m->p[i].m);
	}
	free(m->p);
	for (size_t i = 0; i < m->nmods; i++) {
		if (m->mods[i].dwfl)
			dwfl_end(m->mods[i].dwfl);
		free(m->mods[i].path);
	}
	free(m->mods);
	strmap_free(&m->ids);
	strmap_free(&m->names);
	strmap_free(&m->at);
	free(m->dir);
	free(m);
}

/* The process's module map, read once: the lines of /proc/PID/maps that name a file. */
static const struct proc *proc_map(sitemap *m, int64_t pid)
{
	for (size_t i = 0; i < m->np; i++)
		if (m->p[i].pid == pid)
			return &m->p[i];
	GROW(m->p, m->capp, m->np + 1);
	struct proc *p = &m->p[m->np++];
	*p = (struct proc){ pid, NULL, 0 };
	char name[64];
	snprintf(name, sizeof name, "%" PRId64 DTS_MAPS_SUFFIX, pid);
	char *path = path_join(m->dir, name);
	FILE *f = fopen(path, "r");
	free(path);
	if (!f)
		return p;
	char line[4400];
	size_t cap = 0;
	while (fgets(line, sizeof line, f)) {
		unsigned long long lo, hi, off;
		int at = 0;
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &lo, &hi, &off, &at) != 3 || !at ||
		    line[at] != '/')
			continue;
		line[strcspn(line, "\n")] = 0;
		GROW(p->m, cap, p->n + 1);
		p->m[p->n++] = (struct mapping){ lo, hi, off, xstrdup(line + at) };
	}
	fclose(f);
	return p;
}

/* The module file at path, opened at its own addresses (base 0). */
static struct module *module_get(sitemap *m, const char *path)
{
	for (size_t i = 0; i < m->nmods; i++)
		if (!strcmp(m->mods[i].path, path))
			return &m->mods[i];
	GROW(m->mods, m->capmods, m->nmods + 1);
	struct module *x = &m->mods[m->nmods++];
	*x = (struct module){ xstrdup(path), NULL, NULL };
	Dwfl *d = access(path, R_OK) == 0 ? dwfl_begin(&callbacks) : NULL;
	if (!d)
		return x;
	dwfl_report_begin(d);
	x->mod = dwfl_report_elf(d, path, path, -1, 0, false);
	dwfl_report_end(d, NULL, NULL);
	if (x->mod)
		x->dwfl = d;
	else
		dwfl_end(d);
	return x;
}

/* The address in the module's file of file offset off: through its loadable segments. */
static int file_vaddr(Dwfl_Module *mod, uint64_t off, uint64_t *vaddr)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	size_t n;
	if (!elf || elf_getphdrnum(elf, &n) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (off >= ph.p_offset && off - ph.p_offset < ph.p_filesz) {
			*vaddr = off - ph.p_offset + ph.p_vaddr + bias;
			return 0;
		}
	}
	return -1;
}

/* The name of the innermost function (an inlined one's own) at pc, from the DWARF scopes,
 * into out (cap bytes), as dv_func_name() names it. 0 when found. */
static int scope_name(Dwfl_Module *mod, Dwarf_Addr pc, char *out, size_t cap)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, &bias);
	Dwarf_Die *scopes = NULL;
	int n = cu ? dwarf_getscopes(cu, pc - bias, &scopes) : 0;
	int found = 0;
	for (int i = 0; i < n && !found; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
			found = dv_func_name(&scopes[i], out, cap) == 0;
	}
	free(scopes);
	return found ? 0 : -1;
}

/* What the code at vaddr of module x is (vaddr a return address: the call is the byte before):
 * 0 and out filled when it is in the module. Functions are named as the traces name them,
 * C++ names demangled. */
static int resolve(struct module *x, uint64_t vaddr, char *file, size_t nfile, unsigned *line,
		   char *func, size_t nfunc)
{
	Dwfl_Module *mod = x->mod;
	if (!mod || !vaddr)
		return -1;
	Dwarf_Addr pc = (Dwarf_Addr)vaddr - 1;
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *sname = dwfl_module_addrinfo(mod, pc, &off, &sym, NULL, NULL, NULL);
	char *dname = sname ? dt_name_demangle(sname, strlen(sname)) : NULL;
	if (dname)
		sname = dname;
	Dwfl_Line *ln = dwfl_module_getsrc(mod, pc);
	int lno = 0;
	const char *src = ln ? dwfl_lineinfo(ln, NULL, &lno, NULL, NULL, NULL) : NULL;
	if (src && lno > 0) {
		snprintf(file, nfile, "%s", src);
		*line = (unsigned)lno;
		if (scope_name(mod, pc, func, nfunc) != 0)
			snprintf(func, nfunc, "%s", sname ? sname : "?");
		free(dname);
		return 0;
	}
	/* no line: the module has no debug information. The offset is the return address's,
	 * as a debugger's backtrace shows it */
	const char *base = strrchr(x->path, '/');
	base = base ? base + 1 : x->path;
	snprintf(file, nfile, "%s", x->path);
	*line = 0;
	if (sname)
		snprintf(func, nfunc, "%s+0x%" PRIx64, sname, (uint64_t)(off + 1));
	else
		snprintf(func, nfunc, "%s+0x%" PRIx64, base, vaddr);
	free(dname);
	return 0;
}

/* The sink's id of the site at vaddr of module x, resolved once per place. */
static uint32_t site_at(sitemap *m, struct module *x, uint64_t vaddr, dt_sink *s, dt_err *e)
{
	char key[16];
	uint64_t mi = (uint64_t)(x - m->mods);
	memcpy(key, &mi, 8);
	memcpy(key + 8, &vaddr, 8);
	uint32_t id;
	if (strmap_get(&m->at, key, sizeof key, &id))
		return id;
	char file[1024], func[512];
	unsigned line = 0;
	id = 0;
	if (!resolve(x, vaddr, file, sizeof file, &line, func, sizeof func)) {
		/* one id for one place, whatever the address (two builds of one file) */
		char name[1600];
		int n = snprintf(name, sizeof name, "%s%c%u%c%s", file, 0, line, 0, func);
		size_t len = n > 0 && (size_t)n < sizeof name ? (size_t)n : sizeof name - 1;
		if (!strmap_get(&m->names, name, len, &id)) {
			id = s->site(s->ctx, file, line, func, e);
			if (!id)
				return (uint32_t)-1;
			strmap_put(&m->names, name, len, id);
		}
	}
	strmap_put(&m->at, key, sizeof key, id);
	return id;
}

uint32_t sitemap_get(sitemap *m, int64_t pid, uint64_t a, dt_sink *s, dt_err *e)
{
	if (!a || !s->site)
		return 0;
	char key[16];
	memcpy(key, &pid, 8);
	memcpy(key + 8, &a, 8);
	uint32_t id;
	if (strmap_get(&m->ids, key, sizeof key, &id))
		return id;
	id = 0;
	const struct proc *p = proc_map(m, pid);
	/* the byte before a return address is the call: its mapping, not the next one's */
	for (size_t k = 0; k < p->n; k++) {
		const struct mapping *x = &p->m[k];
		if (a - 1 < x->lo || a - 1 >= x->hi)
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s", x->path);
		struct module *mod = module_get(m, path);
		uint64_t vaddr;
		if (mod->mod && !file_vaddr(mod->mod, a - x->lo + x->off, &vaddr))
			id = site_at(m, mod, vaddr, s, e);
		break;
	}
	if (id == (uint32_t)-1)
		return id;
	strmap_put(&m->ids, key, sizeof key, id);
	return id;
}
