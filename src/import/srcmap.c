/* srcmap.c: function definitions of a binary from its DWARF (srcmap.h). */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import/srcmap.h"
#include "util/util.h"

struct srcmap {
	strmap index;   /* name -> entry */
	char **file;    /* interned: files[i] owned once, entries point at them */
	unsigned *line;
	unsigned char *defined; /* the DIE has code (low_pc or ranges), not only a declaration */
	size_t n, cap;
	strmap files;   /* path -> position in fpool */
	char **fpool;
	size_t nf, capf;
};

struct walk {
	srcmap *m;
	const char *compdir;
};

static const char *intern_file(srcmap *m, const char *dir, const char *f)
{
	char *full;
	if (f[0] != '/' && dir && *dir) {
		size_t a = strlen(dir), b = strlen(f);
		full = xmalloc(a + b + 2);
		memcpy(full, dir, a);
		full[a] = '/';
		memcpy(full + a + 1, f, b + 1);
	} else {
		full = xstrdup(f);
	}
	uint32_t at;
	if (strmap_get(&m->files, full, strlen(full), &at)) {
		free(full);
		return m->fpool[at];
	}
	GROW(m->fpool, m->capf, m->nf + 1);
	m->fpool[m->nf] = full;
	strmap_put(&m->files, full, strlen(full), (uint32_t)m->nf);
	return m->fpool[m->nf++];
}

static void add(srcmap *m, const char *name, const char *file, unsigned line, int defined)
{
	if (!name || !*name)
		return;
	uint32_t at;
	if (strmap_get(&m->index, name, strlen(name), &at)) {
		/* a definition replaces a declaration seen first; otherwise the first stays */
		if (defined && !m->defined[at]) {
			m->file[at] = (char *)file;
			m->line[at] = line;
			m->defined[at] = 1;
		}
		return;
	}
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 256;
		m->file = xrealloc(m->file, m->cap * sizeof *m->file);
		m->line = xrealloc(m->line, m->cap * sizeof *m->line);
		m->defined = xrealloc(m->defined, m->cap);
	}
	m->file[m->n] = (char *)file;
	m->line[m->n] = line;
	m->defined[m->n] = (unsigned char)(defined != 0);
	strmap_put(&m->index, name, strlen(name), (uint32_t)m->n);
	m->n++;
}

static int on_func(Dwarf_Die *f, void *arg)
{
	struct walk *w = arg;
	int line = 0;
	const char *file = dwarf_decl_file(f);
	if (!file || dwarf_decl_line(f, &line) != 0 || line <= 0)
		return DWARF_CB_OK;
	int defined = dwarf_hasattr(f, DW_AT_low_pc) || dwarf_hasattr(f, DW_AT_ranges);
	const char *in = intern_file(w->m, w->compdir, file);
	add(w->m, dwarf_diename(f), in, (unsigned)line, defined);
	Dwarf_Attribute a;
	const char *ln = NULL;
	if (dwarf_attr_integrate(f, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(f, DW_AT_MIPS_linkage_name, &a))
		ln = dwarf_formstring(&a);
	add(w->m, ln, in, (unsigned)line, defined);
	return DWARF_CB_OK;
}

static char *debuginfo_path = NULL;
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

/* Whether the module's build id is bid (hex); 1 when either has none, as nothing says
 * otherwise. */
static int same_build(Dwfl_Module *mod, const char *bid)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &bits, &vaddr);
	if (!bid || !*bid || n <= 0)
		return 1;
	if (strlen(bid) != 2 * (size_t)n)
		return 0;
	static const char hex[] = "0123456789abcdef";
	for (int i = 0; i < n; i++)
		if ((bid[2 * i] | 0x20) != hex[bits[i] >> 4] ||
		    (bid[2 * i + 1] | 0x20) != hex[bits[i] & 15])
			return 0;
	return 1;
}

srcmap *srcmap_open(const char *path, const char *bid, int *why)
{
	*why = SRCMAP_UNREADABLE;
	if (access(path, R_OK) != 0)
		return NULL;
	Dwfl *dwfl = dwfl_begin(&callbacks);
	if (!dwfl)
		return NULL;
	dwfl_report_begin(dwfl);
	Dwfl_Module *mod = dwfl_report_elf(dwfl, "srcmap", path, -1, 0, false);
	dwfl_report_end(dwfl, NULL, NULL);
	if (mod && !same_build(mod, bid)) {
		*why = SRCMAP_OTHER_BUILD;
		dwfl_end(dwfl);
		return NULL;
	}
	*why = SRCMAP_NO_DEBUG;
	Dwarf_Addr bias;
	Dwarf *dw = mod ? dwfl_module_getdwarf(mod, &bias) : NULL;
	if (!dw) {
		if (!mod)
			*why = SRCMAP_UNREADABLE;
		dwfl_end(dwfl);
		return NULL;
	}
	srcmap *m = xcalloc(1, sizeof *m);
	strmap_init(&m->index);
	strmap_init(&m->files);
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(dw, off + hsize, &cu)) {
			Dwarf_Attribute a;
			struct walk w = { m, NULL };
			if (dwarf_attr(&cu, DW_AT_comp_dir, &a))
				w.compdir = dwarf_formstring(&a);
			dwarf_getfuncs(&cu, on_func, &w, 0);
		}
		off = next;
	}
	dwfl_end(dwfl);
	if (!m->n) {
		srcmap_free(m);
		return NULL;
	}
	return m;
}

void srcmap_free(srcmap *m)
{
	if (!m)
		return;
	strmap_free(&m->index);
	strmap_free(&m->files);
	for (size_t i = 0; i < m->nf; i++)
		free(m->fpool[i]);
	free(m->fpool);
	free(m->file);
	free(m->line);
	free(m->defined);
	free(m);
}

int srcmap_find(const srcmap *m, const char *name, size_t len, const char **file,
		unsigned *line)
{
	uint32_t at;
	if (!m || !strmap_get(&m->index, name, len, &at))
		return 0;
	*file = m->file[at];
	*line = m->line[at];
	return 1;
}

size_t srcmap_count(const srcmap *m)
{
	return m ? m->n : 0;
}
