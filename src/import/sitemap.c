/* sitemap.c: call sites of a sync record, resolved with the modules' DWARF (sitemap.h). */
#define _GNU_SOURCE
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import/sitemap.h"
#include "record/syncfmt.h"
#include "util/util.h"

struct proc {
	int64_t pid;
	Dwfl *dwfl; /* NULL: no map, or it could not be read */
};

struct sitemap {
	char *dir;
	struct proc *p;
	size_t np, capp;
	strmap ids; /* (pid, address) -> the sink's site id */
	strmap names; /* "file\0line\0func" -> the sink's site id */
};

/* A module named by the map: the file at its path (the recording's host is the import's). */
static int find_elf(Dwfl_Module *mod, void **user, const char *name, Dwarf_Addr base,
		    char **file, Elf **elfp)
{
	(void)mod;
	(void)user;
	(void)base;
	*elfp = NULL;
	if (!name || name[0] != '/')
		return -1;
	int fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		*file = xstrdup(name);
	return fd;
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

sitemap *sitemap_new(const char *dir)
{
	sitemap *m = xcalloc(1, sizeof *m);
	m->dir = xstrdup(dir);
	strmap_init(&m->ids);
	strmap_init(&m->names);
	return m;
}

void sitemap_free(sitemap *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->np; i++)
		if (m->p[i].dwfl)
			dwfl_end(m->p[i].dwfl);
	free(m->p);
	strmap_free(&m->ids);
	strmap_free(&m->names);
	free(m->dir);
	free(m);
}

static Dwfl *proc_dwfl(sitemap *m, int64_t pid)
{
	for (size_t i = 0; i < m->np; i++)
		if (m->p[i].pid == pid)
			return m->p[i].dwfl;
	char name[64];
	snprintf(name, sizeof name, "%" PRId64 DTS_MAPS_SUFFIX, pid);
	char *path = path_join(m->dir, name);
	FILE *f = fopen(path, "r");
	free(path);
	Dwfl *d = f ? dwfl_begin(&callbacks) : NULL;
	if (d) {
		dwfl_report_begin(d);
		int rc = dwfl_linux_proc_maps_report(d, f);
		dwfl_report_end(d, NULL, NULL);
		if (rc != 0) {
			dwfl_end(d);
			d = NULL;
		}
	}
	if (f)
		fclose(f);
	GROW(m->p, m->capp, m->np + 1);
	m->p[m->np++] = (struct proc){ pid, d };
	return d;
}

/* The name of the innermost function (an inlined one's own) at pc, from the DWARF scopes. */
static const char *scope_name(Dwfl_Module *mod, Dwarf_Addr pc)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, &bias);
	Dwarf_Die *scopes = NULL;
	int n = cu ? dwarf_getscopes(cu, pc - bias, &scopes) : 0;
	const char *name = NULL;
	for (int i = 0; i < n && !name; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
			continue;
		Dwarf_Attribute at;
		name = dwarf_formstring(dwarf_attr_integrate(&scopes[i], DW_AT_name, &at));
	}
	free(scopes);
	return name;
}

/* Where address a of the process is: 0 and out filled when it is in a module. */
static int resolve(Dwfl *d, uint64_t a, char *file, size_t nfile, unsigned *line, char *func,
		   size_t nfunc)
{
	/* a return address is the instruction after the call: the call is the byte before */
	Dwarf_Addr pc = (Dwarf_Addr)a - 1;
	Dwfl_Module *mod = d ? dwfl_addrmodule(d, pc) : NULL;
	if (!mod)
		return -1;
	Dwarf_Addr lo = 0;
	const char *mname = dwfl_module_info(mod, NULL, &lo, NULL, NULL, NULL, NULL, NULL);
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *sname = dwfl_module_addrinfo(mod, pc, &off, &sym, NULL, NULL, NULL);
	Dwfl_Line *ln = dwfl_module_getsrc(mod, pc);
	int lno = 0;
	const char *src = ln ? dwfl_lineinfo(ln, NULL, &lno, NULL, NULL, NULL) : NULL;
	if (src && lno > 0) {
		const char *fn = scope_name(mod, pc);
		snprintf(file, nfile, "%s", src);
		*line = (unsigned)lno;
		snprintf(func, nfunc, "%s", fn ? fn : sname ? sname : "?");
		return 0;
	}
	/* no line: the module has no debug information. The offset is the return address's,
	 * as a debugger's backtrace shows it */
	const char *base = mname ? strrchr(mname, '/') : NULL;
	base = base ? base + 1 : mname ? mname : "?";
	snprintf(file, nfile, "%s", mname ? mname : "?");
	*line = 0;
	if (sname)
		snprintf(func, nfunc, "%s+0x%" PRIx64, sname, (uint64_t)(off + 1));
	else
		snprintf(func, nfunc, "%s+0x%" PRIx64, base, (uint64_t)(a - lo));
	return 0;
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
	char file[1024], func[512];
	unsigned line = 0;
	id = 0;
	if (!resolve(proc_dwfl(m, pid), a, file, sizeof file, &line, func, sizeof func)) {
		/* one id for one place, whatever the address (two processes of one program) */
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
	strmap_put(&m->ids, key, sizeof key, id);
	return id;
}
