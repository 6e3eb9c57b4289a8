/* import_sample.c: the sample record (difftrace-sample(5)) made into blame data
 * (import/blame_data.h).
 *
 * Per process: the thread files are read whole (up to the first unfinished record), the
 * allocation and free records of all threads are replayed in time order to rebuild each heap
 * block's lifetime (a block freed and a new one made at the same address are two containers; a
 * realloc that moves a block links the new container to the old), the program's globals and
 * statics are read from its DWARF (or, without -g, its symbol table), each sample's MPI buffers
 * and frame words are found among the containers live at its time, its stack references among
 * the local variables of its frames' functions (import/dwarf_vars.h), and program counters are
 * symbolized with libdwfl against the binaries the maps file names, one location per function
 * inlined at the program counter (libdw's scopes) and one for its real function. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import/dwarf_vars.h"
#include "import/import_sample.h"
#include "record/samplefmt.h"
#include "util/names.h"
#include "util/util.h"

void dt_blame_data_free(dt_blame_data *d)
{
	for (size_t i = 0; i < d->nlocs; i++) {
		free(d->locs[i].func);
		free(d->locs[i].file);
		free(d->locs[i].module);
	}
	for (size_t i = 0; i < d->ncont; i++) {
		free(d->cont[i].name);
		free(d->cont[i].type);
	}
	for (size_t i = 0; i < d->nproc; i++) {
		free(d->proc[i].event);
		free(d->proc[i].exe);
	}
	free(d->locs);
	free(d->pathv);
	free(d->path_off);
	free(d->scanv);
	free(d->scan_off);
	free(d->cont);
	free(d->samp);
	free(d->proc);
	for (size_t i = 0; i < d->nnotes; i++)
		free(d->notes[i]);
	free(d->notes);
	for (size_t i = 0; i < d->nlost; i++) {
		free(d->lost[i].func);
		free(d->lost[i].var);
		free(d->lost[i].why);
	}
	free(d->lost);
	memset(d, 0, sizeof *d);
}

/* ---- one thread file ---------------------------------------------------------------------- */

/* Reads up to n bytes at off, retrying short reads; returns the bytes read (fewer at the end
 * of the file), -1 on error. */
static ssize_t pread_full(int fd, void *buf, size_t n, off_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t k = pread(fd, (uint8_t *)buf + got, n - got, off + (off_t)got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

#define READ_BLOCK 256 /* records read at a time */

/* The file is streamed, a block of records at a time, and read up to its first unfinished
 * record: its size is what the sampler reserved (a chunk ahead, or a file made and never
 * written, or a sparse file of any size), not what it wrote, so the memory and time go by the
 * records, never by the size. */
int sample_file_read(const char *path, struct dtp_record **recs, size_t *n, int64_t *tid,
		     int32_t *source, int64_t *period, char *event, size_t eventlen, int *torn,
		     dt_err *e)
{
	*recs = NULL;
	*n = 0;
	*torn = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return dt_err_at(e, path, -1, "cannot open: %s", strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return dt_err_at(e, path, -1, "not a regular file");
	}
	uint8_t head[DTP_HEADER_SIZE];
	ssize_t hl = pread_full(fd, head, sizeof head, 0);
	if (hl < 0) {
		close(fd);
		return dt_err_at(e, path, 0, "read error: %s", strerror(errno));
	}
	if ((size_t)hl < DTP_HEADER_SIZE || memcmp(head, DTP_MAGIC, 8) != 0) {
		/* a header never finished (killed at once, or a file made on a full disk and
		 * never written) reads as an empty file; anything else that is not ours is an
		 * error */
		int blank = 1;
		for (ssize_t i = 0; i < hl && i < 8; i++)
			blank &= head[i] == 0;
		close(fd);
		if (blank) {
			*torn = SAMPLE_READ_TORN;
			return 0;
		}
		return dt_err_at(e, path, 0, "not a difftrace sample file (bad magic)");
	}
	dtp_header h;
	memcpy(&h, head, sizeof h);
	if (h.endian != 0x01020304u) {
		close(fd);
		return dt_err_at(e, path, offsetof(dtp_header, endian),
				 "recorded on a host of the other byte order");
	}
	if (h.version < 1 || h.version > DTP_VERSION || h.header_size != DTP_HEADER_SIZE ||
	    h.record_size != DTP_RECORD_SIZE) {
		close(fd);
		return dt_err_at(e, path, offsetof(dtp_header, version),
				 "sample file version %u (record %u bytes) is not one this difftrace "
				 "reads (1 to %u, %u bytes)",
				 h.version, h.record_size, DTP_VERSION, DTP_RECORD_SIZE);
	}
	if (h.stopped == DTP_STOP_FULL)
		*torn |= SAMPLE_READ_FULL;
	else if (h.stopped)
		*torn |= SAMPLE_READ_STOPPED;
	*tid = h.tid;
	*source = h.source;
	*period = h.period;
	h.event[sizeof h.event - 1] = 0;
	snprintf(event, eventlen, "%s", h.event);
	dtp_record *r = NULL, *blk = xmalloc(READ_BLOCK * sizeof *blk);
	size_t k = 0, cap = 0;
	for (int done = 0; !done;) {
		off_t off = (off_t)DTP_HEADER_SIZE + (off_t)(k * DTP_RECORD_SIZE);
		if (off >= st.st_size)
			break;
		ssize_t got = pread_full(fd, blk, READ_BLOCK * sizeof *blk, off);
		if (got < 0) {
			free(r);
			free(blk);
			close(fd);
			return dt_err_at(e, path, (int64_t)off, "read error: %s", strerror(errno));
		}
		size_t m = (size_t)got / DTP_RECORD_SIZE;
		if (m < READ_BLOCK)
			done = 1; /* the end of the file (a last partial record is unfinished) */
		for (size_t j = 0; j < m; j++, k++) {
			const dtp_record *q = &blk[j];
			if (q->commit != dtp_commit(k)) {
				const uint8_t *p = (const uint8_t *)q;
				for (size_t i = 0; i < DTP_RECORD_SIZE; i++)
					if (p[i]) {
						*torn |= SAMPLE_READ_TORN;
						break;
					}
				done = 1;
				break;
			}
			int bad = q->kind < DTP_SAMPLE || q->kind > DTP_WORDS ||
				  (q->kind != DTP_WORDS && q->nframes > DTP_FRAMES);
			if (q->kind == DTP_WORDS) {
				const dtp_words *w = (const dtp_words *)(const void *)q;
				bad = h.version < 2 || w->nwords > DTP_WORDS_MAX;
				for (int i = 0; !bad && i < w->nwords; i++) {
					uint8_t f = w->fr[i];
					/* version 2 knows no stack references: bit 0x40 is a bad
					 * frame */
					bad = (f & (h.version < 3 ? 0x7f : DTP_FR_FRAME)) > DTP_FRAMES ||
					      ((f & DTP_FR_STACKREF) &&
					       (w->w[i] >> DTP_REF_SHIFT) > DTP_FRAMES);
					/* a register's number (version 4): DWARF's 0 to 16, + 1 */
					if (!bad && h.version >= 4 &&
					    !(f & (DTP_FR_STACKREF | DTP_FR_STACK)))
						bad = (w->w[i] >> DTP_REG_SHIFT) > 17;
				}
			}
			if (bad) {
				unsigned kind = q->kind, nfr = q->nframes;
				free(r);
				free(blk);
				close(fd);
				return dt_err_at(e, path,
						 (int64_t)(DTP_HEADER_SIZE + k * DTP_RECORD_SIZE),
						 "bad record (kind %u, %u frames)", kind, nfr);
			}
			grow((void **)&r, &cap, k + 1, sizeof *r);
			r[k] = *q;
			if (r[k].kind == DTP_SAMPLE && h.version < 3)
				r[k].size = 0; /* no stack references before version 3 */
		}
	}
	free(blk);
	close(fd);
	if (!r)
		r = xmalloc(sizeof *r);
	*recs = r;
	*n = k;
	return 0;
}

/* ---- symbols ------------------------------------------------------------------------------ */

struct mapping {
	uint64_t start, end, off;
	char *path;
};

struct symtab {
	Dwfl *dwfl;
	struct mapping *maps;
	size_t nmaps;
	char *exe;
	Dwfl_Module *exe_mod;
	strmap pcs;   /* "pc" bytes -> loc id, for this process */
	strmap chains; /* "pc" bytes -> offset in chv of its inlined levels' locations */
	int32_t *chv; /* per chain: its length, then its locations, innermost first */
	size_t nchv, capchv;
	strmap *locs; /* func\0file\0line\0module -> loc id, for the whole import */
};

/* What is shared by the processes of one import: locations and paths are interned once. */
struct ictx {
	strmap locs, paths, scans;
};

static char *find_debuginfo_path = NULL;
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &find_debuginfo_path,
};

/* Reads DIR/<pid>.maps and reports every file-backed binary to libdwfl at its load address. */
static int symtab_open(struct symtab *s, const char *mapsfile, strmap *locs)
{
	memset(s, 0, sizeof *s);
	strmap_init(&s->pcs);
	strmap_init(&s->chains);
	s->locs = locs;
	FILE *f = fopen(mapsfile, "r");
	if (!f)
		return -1;
	char line[4096 + 256];
	size_t cap = 0;
	while (fgets(line, sizeof line, f)) {
		unsigned long long a, b, off;
		char perms[8];
		int pos = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &a, &b, perms, &off, &pos) < 4 ||
		    !pos)
			continue;
		char *p = line + pos;
		p[strcspn(p, "\n")] = 0;
		maps_path_unescape(p); /* a newline in a program's path */
		if (*p != '/')
			continue;
		char *path = xstrdup(p);
		/* the kernel writes a newline of a path as \012 (and leaves a backslash as it is):
		 * a name that is not there as written is read with its \012s made newlines */
		if (strstr(path, "\\012") && access(path, F_OK) != 0) {
			char *o = path;
			for (const char *q = p; *q; q++)
				if (!strncmp(q, "\\012", 4)) {
					*o++ = '\n';
					q += 3;
				} else {
					*o++ = *q;
				}
			*o = 0;
		}
		grow((void **)&s->maps, &cap, s->nmaps + 1, sizeof *s->maps);
		s->maps[s->nmaps++] = (struct mapping){ a, b, off, path };
	}
	fclose(f);
	s->dwfl = dwfl_begin(&callbacks);
	if (!s->dwfl)
		return -1;
	dwfl_report_begin(s->dwfl);
	/* each file once, by its identity: the same file named twice ("//bin/x" and "/bin/x", a
	 * link) reported twice at one address makes libdw read freed memory */
	dev_t *devs = xmalloc((s->nmaps ? s->nmaps : 1) * sizeof *devs);
	ino_t *inos = xmalloc((s->nmaps ? s->nmaps : 1) * sizeof *inos);
	size_t nseen = 0;
	for (size_t i = 0; i < s->nmaps; i++) {
		struct stat sb;
		if (access(s->maps[i].path, R_OK) != 0 || stat(s->maps[i].path, &sb) != 0)
			continue;
		int seen = 0;
		for (size_t j = 0; j < nseen && !seen; j++)
			seen = devs[j] == sb.st_dev && inos[j] == sb.st_ino;
		if (seen)
			continue;
		devs[nseen] = sb.st_dev;
		inos[nseen++] = sb.st_ino;
		/* the mapping of file offset 0 is where the file is loaded */
		uint64_t base = s->maps[i].start - s->maps[i].off;
		const char *bn = strrchr(s->maps[i].path, '/') + 1;
		Dwfl_Module *m = dwfl_report_elf(s->dwfl, bn, s->maps[i].path, -1, base, false);
		if (!s->exe && m) {
			s->exe = xstrdup(s->maps[i].path);
			s->exe_mod = m;
		}
	}
	free(devs);
	free(inos);
	dwfl_report_end(s->dwfl, NULL, NULL);
	return 0;
}

static void symtab_close(struct symtab *s)
{
	if (s->dwfl)
		dwfl_end(s->dwfl);
	for (size_t i = 0; i < s->nmaps; i++)
		free(s->maps[i].path);
	free(s->maps);
	free(s->exe);
	free(s->chv);
	strmap_free(&s->pcs);
	strmap_free(&s->chains);
}

static int32_t loc_intern_inl(dt_blame_data *d, struct symtab *s, const char *func,
			      const char *file, int line, const char *module, int in_main, int inl)
{
	dt_buf k = { 0 };
	buf_put(&k, func, strlen(func) + 1);
	buf_put(&k, file, strlen(file) + 1);
	buf_put(&k, &line, sizeof line);
	buf_put(&k, module, strlen(module) + 1);
	if (inl)
		buf_byte(&k, 'i'); /* an inlined level is another location than a real frame's */
	uint32_t id;
	if (!strmap_get(s->locs, (const char *)k.p, k.len, &id)) {
		grow((void **)&d->locs, &d->caplocs, d->nlocs + 1, sizeof *d->locs);
		d->locs[d->nlocs] = (dt_bloc){ xstrdup(func), xstrdup(file), line, xstrdup(module),
					       in_main, inl };
		id = (uint32_t)d->nlocs++;
		strmap_put(s->locs, (const char *)k.p, k.len, id);
	}
	buf_free(&k);
	return (int32_t)id;
}

static int32_t loc_intern(dt_blame_data *d, struct symtab *s, const char *func, const char *file,
			  int line, const char *module, int in_main)
{
	return loc_intern_inl(d, s, func, file, line, module, in_main, 0);
}

/* The location of pc; a return address (ret) is looked up one byte back, inside the call. */
static int32_t symbolize(dt_blame_data *d, struct symtab *s, uint64_t pc, int ret)
{
	uint64_t key[2] = { pc, (uint64_t)ret };
	uint32_t id;
	if (strmap_get(&s->pcs, (const char *)key, sizeof key, &id))
		return (int32_t)id;
	uint64_t a = ret && pc ? pc - 1 : pc;
	const char *func = NULL, *file = "", *module = "?";
	int line = 0;
	char hex[64];
	Dwfl_Module *m = s->dwfl ? dwfl_addrmodule(s->dwfl, a) : NULL;
	if (m) {
		module = dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
		GElf_Off off;
		GElf_Sym sym;
		func = dwfl_module_addrinfo(m, a, &off, &sym, NULL, NULL, NULL);
		Dwfl_Line *l = dwfl_module_getsrc(m, a);
		if (l) {
			const char *f = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
			if (f)
				file = f;
		}
	}
	if (!func) {
		snprintf(hex, sizeof hex, "0x%" PRIx64, pc);
		func = hex;
	}
	/* a C++ symbol by its demangled name, as the traces name it (util/names.h) */
	char *dm = dt_name_demangle(func, strlen(func));
	id = (uint32_t)loc_intern(d, s, dm ? dm : func, file, line, module ? module : "?",
				  m && m == s->exe_mod);
	free(dm);
	strmap_put(&s->pcs, (const char *)key, sizeof key, id);
	return (int32_t)id;
}

#define INLINE_MAX 16 /* inlined levels kept per program counter, innermost first */

/* The locations of pc, innermost first, into *out: one per function the compiler inlined
 * there into a function of the program (DWARF DW_TAG_inlined_subroutine: the function by its
 * abstract origin, at pc's line; its caller at the call's line, DW_AT_call_file and
 * DW_AT_call_line; ...), marked inlined, then pc's real function as symbolize() names it, at
 * the line of the outermost inlined call. Returns their number (1 without inline info, and
 * for the libraries, whose inlined functions blame does not follow). */
static size_t symbolize_chain(dt_blame_data *d, struct symtab *s, uint64_t pc, int ret,
			      const int32_t **out)
{
	uint64_t key[2] = { pc, (uint64_t)ret };
	uint32_t off;
	if (strmap_get(&s->chains, (const char *)key, sizeof key, &off)) {
		*out = s->chv + off + 1;
		return (size_t)s->chv[off];
	}
	int32_t real = symbolize(d, s, pc, ret);
	int32_t v[INLINE_MAX + 1];
	size_t n = 0;
	uint64_t a = ret && pc ? pc - 1 : pc;
	Dwfl_Module *m = s->dwfl ? dwfl_addrmodule(s->dwfl, a) : NULL;
	Dwarf_Addr bias;
	Dwarf_Die *cu = m && m == s->exe_mod ? dwfl_module_addrdie(m, a, &bias) : NULL;
	Dwarf_Die fn[INLINE_MAX + 1];
	int nfn = cu ? dv_pc_scopes(cu, a - bias, fn, 0, INLINE_MAX + 1, 0, 0) : 0;
	if (nfn > 1) {
		Dwarf_Files *files = NULL;
		size_t nfiles = 0;
		if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
			files = NULL;
		/* copies: interning moves d->locs */
		char *rfunc = xstrdup(d->locs[real].func), *rmod = xstrdup(d->locs[real].module);
		int in_main = d->locs[real].in_main;
		/* the line of the level being made: pc's own, then each inlined call's */
		int line = d->locs[real].line;
		char *file = xstrdup(d->locs[real].file);
		for (int i = nfn - 1; i > 0 && dwarf_tag(&fn[i]) == DW_TAG_inlined_subroutine; i--) {
			/* named as symbolize() names a function (a C++ one demangled in full,
			 * comm::reduce_sum<double>, not reduce_sum<double>): the blame index finds
			 * it by that name */
			Dwarf_Attribute at;
			char name[512];
			if (dv_func_name(&fn[i], name, sizeof name) != 0)
				snprintf(name, sizeof name, "?");
			v[n++] = loc_intern_inl(d, s, name, file, line, rmod, in_main, 1);
			/* its caller's line: the call's */
			Dwarf_Word w = 0;
			line = dwarf_attr(&fn[i], DW_AT_call_line, &at) && dwarf_formudata(&at, &w) == 0
				       ? (int)w
				       : 0;
			const char *cf = NULL;
			if (files && dwarf_attr(&fn[i], DW_AT_call_file, &at) &&
			    dwarf_formudata(&at, &w) == 0 && w < nfiles)
				cf = dwarf_filesrc(files, w, NULL, NULL);
			free(file);
			file = xstrdup(cf ? cf : "");
		}
		if (n)
			real = loc_intern(d, s, rfunc, file, line, rmod, in_main);
		free(file);
		free(rfunc);
		free(rmod);
	}
	v[n++] = real;
	grow((void **)&s->chv, &s->capchv, s->nchv + n + 1, sizeof *s->chv);
	off = (uint32_t)s->nchv;
	s->chv[s->nchv++] = (int32_t)n;
	memcpy(s->chv + s->nchv, v, n * sizeof *v);
	s->nchv += n;
	strmap_put(&s->chains, (const char *)key, sizeof key, off);
	*out = s->chv + off + 1;
	return n;
}

/* ---- globals and statics ------------------------------------------------------------------ */

struct gctx {
	dt_blame_data *d;
	int32_t rank;
	int64_t pid;
	Dwarf_Addr bias;
};

static void add_global(struct gctx *g, int kind, const char *name, const char *type,
		       uint64_t addr, uint64_t size)
{
	dt_blame_data *d = g->d;
	if (!size)
		size = 1;
	grow((void **)&d->cont, &d->capcont, d->ncont + 1, sizeof *d->cont);
	d->cont[d->ncont++] = (dt_bcontainer){ .rank = g->rank, .pid = g->pid, .kind = kind,
					       .addr = addr, .size = size, .t_alloc = 0,
					       .t_free = INT64_MAX, .name = xstrdup(name),
					       .type = type ? xstrdup(type) : NULL, .site = -1,
					       .prev = -1 };
}

/* The variables of a DIE's scope with a fixed address (DW_OP_addr): globals at the top, the
 * statics of functions below (named function::variable). */
static void scan_vars(struct gctx *g, Dwarf_Die *scope, const char *fn, int depth)
{
	Dwarf_Die ch;
	if (depth > 16 || dwarf_child(scope, &ch) != 0)
		return;
	do {
		int tag = dwarf_tag(&ch);
		if (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block) {
			const char *n = tag == DW_TAG_subprogram ? dwarf_diename(&ch) : fn;
			scan_vars(g, &ch, n ? n : fn, depth + 1);
			continue;
		}
		if (tag != DW_TAG_variable)
			continue;
		Dwarf_Attribute at;
		Dwarf_Op *ops;
		size_t nops;
		if (!dwarf_attr(&ch, DW_AT_location, &at) || dwarf_getlocation(&at, &ops, &nops) != 0 ||
		    nops != 1 || ops[0].atom != DW_OP_addr)
			continue;
		Dwarf_Attribute na;
		const char *name = dwarf_attr_integrate(&ch, DW_AT_name, &na) ? dwarf_formstring(&na)
									       : NULL;
		if (!name)
			continue;
		Dwarf_Die ty;
		Dwarf_Word size = 0;
		dt_buf tb = { 0 };
		if (dwarf_attr_integrate(&ch, DW_AT_type, &at) && dwarf_formref_die(&at, &ty)) {
			dv_type_name(&ty, &tb);
			Dwarf_Die peeled;
			if (dwarf_peel_type(&ty, &peeled) == 0)
				ty = peeled;
			if (dwarf_aggregate_size(&ty, &size) != 0)
				size = 0;
		}
		buf_byte(&tb, 0);
		char full[512];
		if (fn)
			snprintf(full, sizeof full, "%s::%s", fn, name);
		else
			snprintf(full, sizeof full, "%s", name);
		/* a file-scope variable without DW_AT_external is a static */
		int ext = !fn && dwarf_attr_integrate(&ch, DW_AT_external, &na) != NULL;
		add_global(g, ext ? DT_BC_GLOBAL : DT_BC_STATIC, full, (const char *)tb.p,
			   ops[0].number + g->bias, size);
		buf_free(&tb);
	} while (dwarf_siblingof(&ch, &ch) == 0);
}

/* Adds the program's globals; returns 1 when it had DWARF, 0 when only its symbol table. */
static int read_globals(struct symtab *s, dt_blame_data *d, int32_t rank, int64_t pid)
{
	if (!s->exe_mod)
		return 0;
	struct gctx g = { d, rank, pid, 0 };
	size_t before = d->ncont;
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	int cus = 0;
	while ((cu = dwfl_module_nextcu(s->exe_mod, cu, &bias))) {
		g.bias = bias;
		scan_vars(&g, cu, NULL, 0);
		cus++;
	}
	/* a program with DWARF but no globals of its own has none: the symbol table would
	 * only add the MPI library's handles that the program's references copied in */
	if (d->ncont > before || cus)
		return 1;
	int n = dwfl_module_getsymtab(s->exe_mod);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(s->exe_mod, i, &sym, &addr, NULL, NULL,
							   NULL);
		if (!name || GELF_ST_TYPE(sym.st_info) != STT_OBJECT || !sym.st_size ||
		    sym.st_shndx == SHN_UNDEF || name[0] == '_')
			continue;
		add_global(&g, GELF_ST_BIND(sym.st_info) == STB_LOCAL ? DT_BC_STATIC : DT_BC_GLOBAL,
			   name, NULL, addr, sym.st_size);
	}
	return 0;
}

/* ---- one process -------------------------------------------------------------------------- */

struct trec {
	dtp_record r;
	int64_t tid;
	size_t idx;    /* position in the files, which keeps a thread's order on equal times */
	size_t w0, nw; /* a sample's frame words: words[w0 .. w0 + nw) */
};

struct fword {
	uint64_t w;    /* an address, or a stack reference less its frame number */
	int32_t frame; /* the scan's level: 2 x frame, + 1 for the frame's stack words */
	int32_t ref;   /* a stack reference: the frame whose stack it points into; -1 none */
	int32_t reg;   /* a register's word (version 4): its DWARF number; -1 unknown */
};

static int by_ts(const void *a, const void *b)
{
	const struct trec *x = a, *y = b;
	if (x->r.ts != y->r.ts)
		return x->r.ts < y->r.ts ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

struct live {
	uint64_t addr;
	int32_t cont;
};

static int32_t path_intern(dt_blame_data *d, strmap *paths, const int32_t *v, size_t n)
{
	uint32_t id;
	if (strmap_get(paths, (const char *)v, n * sizeof *v, &id))
		return (int32_t)id;
	if (!d->npaths) {
		grow((void **)&d->path_off, &d->cappaths, 1, sizeof *d->path_off);
		d->path_off[0] = 0;
	}
	grow((void **)&d->pathv, &d->cappathv, d->npathv + n, sizeof *d->pathv);
	if (n)
		memcpy(d->pathv + d->npathv, v, n * sizeof *v);
	d->npathv += n;
	grow((void **)&d->path_off, &d->cappaths, d->npaths + 2, sizeof *d->path_off);
	d->path_off[d->npaths + 1] = (uint32_t)d->npathv;
	id = (uint32_t)d->npaths++;
	strmap_put(paths, (const char *)(d->pathv + d->path_off[id]), n * sizeof *v, id);
	return (int32_t)id;
}

/* Containers of the process sorted by address, for the lookup of an address at a time;
 * maxend[i] is the highest end of the containers ord[0..i], so a lookup stops at the first
 * position below which nothing reaches the address. */
struct cindex {
	const dt_bcontainer *c;
	int32_t *ord;
	uint64_t *maxend;
	size_t n;
};

static const dt_bcontainer *cmp_base;
static int by_addr(const void *a, const void *b)
{
	const dt_bcontainer *x = &cmp_base[*(const int32_t *)a], *y = &cmp_base[*(const int32_t *)b];
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->t_alloc < y->t_alloc ? -1 : x->t_alloc > y->t_alloc;
}

/* The container holding addr at time ts, -1 none; of nested ones (a block inside a mapping
 * the program made, a field inside its structure) the outermost: blame on a field bubbles up
 * to the enclosing container. */
static int32_t cfind(const struct cindex *x, uint64_t addr, int64_t ts)
{
	if (!addr || !x->n)
		return -1;
	size_t lo = 0, hi = x->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (x->c[x->ord[mid]].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	int32_t best = -1;
	for (size_t i = lo; i-- > 0 && x->maxend[i] > addr;) {
		const dt_bcontainer *c = &x->c[x->ord[i]];
		if (addr < c->addr + c->size && c->t_alloc <= ts && ts < c->t_free)
			best = x->ord[i]; /* lower starts come later: the outermost wins */
	}
	return best;
}

static int32_t scan_intern(dt_blame_data *d, strmap *scans, const int32_t *v, size_t n)
{
	uint32_t id;
	if (strmap_get(scans, (const char *)v, n * sizeof *v, &id))
		return (int32_t)id;
	if (!d->nscans) {
		grow((void **)&d->scan_off, &d->capscans, 1, sizeof *d->scan_off);
		d->scan_off[0] = 0;
	}
	grow((void **)&d->scanv, &d->capscanv, d->nscanv + n, sizeof *d->scanv);
	memcpy(d->scanv + d->nscanv, v, n * sizeof *v);
	d->nscanv += n;
	grow((void **)&d->scan_off, &d->capscans, d->nscans + 2, sizeof *d->scan_off);
	d->scan_off[d->nscans + 1] = (uint32_t)d->nscanv;
	id = (uint32_t)d->nscans++;
	strmap_put(scans, (const char *)(d->scanv + d->scan_off[id]), n * sizeof *v, id);
	return (int32_t)id;
}

static int by_pair(const void *a, const void *b)
{
	const int32_t *x = a, *y = b;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* ---- stack containers --------------------------------------------------------------------- */

/* The local variables of the functions of one process, found from their DWARF as the samples'
 * stack references need them. */
struct stackc {
	dt_blame_data *d;
	struct symtab *st;
	strmap *paths;
	struct cindex *cx; /* its container array follows d->cont as it grows */
	int32_t rank;
	int64_t pid;
	strmap pcs;   /* a frame's pc and whether it is a return address -> fl[] */
	struct flocals {
		dv_local *v;
		size_t n;
		Dwfl_Module *m;
		int32_t loc; /* the pc's location */
		int base;    /* enum dv_base */
		dv_local *lost; /* aggregates without a stack location there (enum dv_lost) */
		size_t nlost;
		dv_local *regv; /* pointers in registers there (lo: the register) */
		size_t nregv;
		uint32_t regs;  /* the registers of regv, a bit each */
	} *fl;
	size_t nfl, capfl;
	strmap conts; /* (module, DIE offset) -> container */
	strmap said;  /* (module, DIE offset) of the lost aggregates already noted */
};

static void stackc_free(struct stackc *sc)
{
	for (size_t i = 0; i < sc->nfl; i++) {
		dv_locals_free(sc->fl[i].v, sc->fl[i].n);
		dv_locals_free(sc->fl[i].lost, sc->fl[i].nlost);
		dv_locals_free(sc->fl[i].regv, sc->fl[i].nregv);
	}
	free(sc->fl);
	strmap_free(&sc->pcs);
	strmap_free(&sc->conts);
	strmap_free(&sc->said);
}

/* The stack locals of the function at frame `frame` of sample r, cached by its pc: an index in
 * sc->fl. */
static uint32_t frame_locals(struct stackc *sc, const dtp_record *r, int frame)
{
	uint64_t key[2] = { frame ? r->frames[frame - 1] : r->addr, frame > 0 };
	uint32_t fi;
	if (!strmap_get(&sc->pcs, (const char *)key, sizeof key, &fi)) {
		uint64_t a = key[1] && key[0] ? key[0] - 1 : key[0]; /* into the call */
		struct flocals f = { NULL, 0, dwfl_addrmodule(sc->st->dwfl, a), -1, 0, NULL, 0,
				     NULL, 0, 0 };
		/* none without DWARF or with a frame base not handled */
		dv_stack_locals_lost(f.m, a, &f.v, &f.n, &f.base, &f.lost, &f.nlost);
		dv_reg_vars(f.m, a, key[0], &f.regv, &f.nregv);
		for (size_t i = 0; i < f.nregv; i++)
			f.regs |= 1u << f.regv[i].lo;
		if (f.n || f.nlost || f.nregv)
			f.loc = symbolize(sc->d, sc->st, key[0], (int)key[1]);
		grow((void **)&sc->fl, &sc->capfl, sc->nfl + 1, sizeof *sc->fl);
		sc->fl[sc->nfl] = f;
		fi = (uint32_t)sc->nfl++;
		strmap_put(&sc->pcs, (const char *)key, sizeof key, fi);
	}
	return fi;
}

/* The registers a call does not keep (x86-64's DWARF numbers: rax, rdx, rcx, rsi, rdi, r8 to
 * r11): the sampler records only the others (rbx, rbp, r12 to r15) in a caller's frame, as
 * libunwind recovers them. */
#define CALLER_SAVED (0xfu << 8 | 1u << 5 | 1u << 4 | 1u << 2 | 1u << 1 | 1u << 0)

/* Appends, once per variable, a lost note and entry of var in f's function; 1 when it did. */
static int lost_var(struct stackc *sc, const struct flocals *f, const dv_local *v,
		     const char *why, const char *tail)
{
	uint64_t ck[2] = { (uint64_t)(uintptr_t)f->m, v->id };
	uint32_t one;
	if (strmap_get(&sc->said, (const char *)ck, sizeof ck, &one))
		return 0;
	strmap_put(&sc->said, (const char *)ck, sizeof ck, 1);
	dt_blame_data *d = sc->d;
	size_t n = strlen(d->locs[f->loc].func) + strlen(v->name) + strlen(v->type) +
		   strlen(why) + strlen(tail) + 64;
	char *msg = xmalloc(n);
	snprintf(msg, n, "in %s, %s (%s) has no stack location at the sampled code: %s; %s",
		 d->locs[f->loc].func, v->name, v->type, why, tail);
	grow((void **)&d->notes, &d->capnotes, d->nnotes + 1, sizeof *d->notes);
	d->notes[d->nnotes++] = msg;
	char *var = xmalloc(strlen(v->name) + strlen(v->type) + 4);
	sprintf(var, "%s (%s)", v->name, v->type);
	grow((void **)&d->lost, &d->caplost, d->nlost + 1, sizeof *d->lost);
	d->lost[d->nlost++] = (dt_blost){ xstrdup(d->locs[f->loc].func), var, xstrdup(why) };
	return 1;
}

/* Notes the pointers of a caller's frame f kept in a register a call does not keep there: the
 * sampler has not that register's value in the caller, so the block such a pointer points to
 * cannot be named by it. */
static void note_caller_saved(struct stackc *sc, const struct flocals *f)
{
	static const char *const rn[] = { "rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
					  "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15",
					  "rip" };
	for (size_t i = 0; i < f->nregv; i++) {
		const dv_local *v = &f->regv[i];
		if (!(CALLER_SAVED & 1u << v->lo))
			continue;
		char why[96];
		snprintf(why, sizeof why, "in a caller-saved register in a caller's frame (%s)",
			 rn[v->lo]);
		(void)lost_var(sc, f, v, why,
			 "the block it points to is not named by it there (the sampler has a "
			 "caller's callee-saved registers only)");
	}
}

/* Notes, once per variable, the arrays and structures of the program's functions at sample
 * r's frames that have no stack location there (an optimized build keeps them in registers
 * or drops their location): no stack reference can find them, and blame must not be silent
 * about it. The pointers of a caller's frame in a caller-saved register are said too. Returns
 * how many aggregates it noted. */
static int note_lost(struct stackc *sc, const dtp_record *r)
{
	int agg = 0;
	if (!sc->st->dwfl)
		return 0;
	static const char *const why[] = {
		"",
		("the debug information gives it no location (an optimized build keeps it in "
		 "registers or drops it)"),
		"its location list does not cover the sampled code (optimized out there)",
		"it is in registers there",
	};
	for (int k = 0; k <= r->nframes; k++) {
		uint32_t fi = frame_locals(sc, r, k); /* before sc->fl is read: it may move */
		const struct flocals *f = &sc->fl[fi];
		if (f->loc < 0 || !sc->d->locs[f->loc].in_main)
			continue;
		if (k > 0 && (f->regs & CALLER_SAVED))
			note_caller_saved(sc, f);
		if (!f->nlost)
			continue;
		for (size_t i = 0; i < f->nlost; i++) {
			const dv_local *v = &f->lost[i];
			int64_t w = v->lo >= 1 && v->lo <= 3 ? v->lo : 1;
			agg += lost_var(sc, f, v, why[w],
					"its samples go by the other pointers of the frames");
		}
	}
	return agg;
}

/* The container of the local variable that a stack reference of sample r points into: ref
 * holds the frame's size and the distance below the CFA of frame `frame`
 * (difftrace-sample(5)); -1 none (no DWARF, or no array or structure there). */
static int32_t stack_cont(struct stackc *sc, const dtp_record *r, int frame, uint64_t ref,
			  int64_t ts)
{
	if (frame > r->nframes || !sc->st->dwfl)
		return -1;
	uint32_t fi = frame_locals(sc, r, frame); /* before sc->fl is read: it may move */
	const struct flocals *f = &sc->fl[fi];
	uint64_t fsize = ref >> DTP_REF_FSIZE_SHIFT & DTP_REF_FSIZE;
	/* the address from the function's frame base */
	int64_t at = -(int64_t)(ref & DTP_REF_OFFSET);
	if (f->base == DV_BASE_RBP)
		at += 16;
	else if (f->base == DV_BASE_RSP) {
		if (fsize == DTP_REF_FSIZE)
			return -1;
		at += (int64_t)fsize;
	}
	const dv_local *v = NULL;
	for (size_t i = 0; i < f->n && !v; i++)
		if (at >= f->v[i].lo && (uint64_t)(at - f->v[i].lo) < f->v[i].size)
			v = &f->v[i];
	if (!v)
		return -1;
	uint64_t ck[2] = { (uint64_t)(uintptr_t)f->m, v->id };
	uint32_t ci;
	dt_blame_data *d = sc->d;
	if (strmap_get(&sc->conts, (const char *)ck, sizeof ck, &ci)) {
		dt_bcontainer *c = &d->cont[ci];
		if (ts < c->t_alloc)
			c->t_alloc = ts;
		if (ts >= c->t_free)
			c->t_free = ts + 1;
		return (int32_t)ci;
	}
	/* the site: the function, at the variable's declaration */
	const dt_bloc *l = &d->locs[f->loc];
	int32_t loc = loc_intern(d, sc->st, l->func, v->file[0] ? v->file : l->file,
				 v->file[0] ? v->line : l->line, l->module, l->in_main);
	grow((void **)&d->cont, &d->capcont, d->ncont + 1, sizeof *d->cont);
	d->cont[d->ncont] = (dt_bcontainer){
		.rank = sc->rank, .pid = sc->pid, .kind = DT_BC_STACK, .addr = (uint64_t)v->lo,
		.size = v->size, .t_alloc = ts, .t_free = ts + 1, .name = xstrdup(v->name),
		.type = xstrdup(v->type), .site = path_intern(d, sc->paths, &loc, 1), .prev = -1
	};
	ci = (uint32_t)d->ncont++;
	sc->cx->c = d->cont;
	strmap_put(&sc->conts, (const char *)ck, sizeof ck, ci);
	return (int32_t)ci;
}

/* The container of sample r's MPI buffer b, -1 none: a live container at its address, or the
 * local variable of its stack reference. */
static int32_t buf_cont(struct stackc *sc, const dtp_record *r, int b)
{
	if (r->size & (DTP_BUF0_STACKREF << b))
		return stack_cont(sc, r, (int)(r->buf[b] >> DTP_REF_SHIFT),
				  r->buf[b] & ((1ull << DTP_REF_SHIFT) - 1), r->ts);
	return cfind(sc->cx, r->buf[b], r->ts);
}

/* Whether word w of sample r is a register that, at its frame's pc, holds a pointer variable of
 * the frame's function (or of a function inlined there): DWARF's location of the variable is
 * that register (dv_reg_vars). In a caller's frame the sampler records the callee-saved
 * registers only, so only those can be. */
static int reg_var(struct stackc *sc, const dtp_record *r, const struct fword *w)
{
	if (w->reg < 0 || w->ref >= 0 || (w->frame & 1) || !sc->st->dwfl)
		return 0;
	int frame = w->frame / 2;
	if (frame > r->nframes || (frame > 0 && (CALLER_SAVED & 1u << w->reg)))
		return 0;
	uint32_t fi = frame_locals(sc, r, frame);
	return (sc->fl[fi].regs >> w->reg) & 1;
}

/* The scan of sample r: the containers its frames' words point into (live heap blocks and
 * globals by address, local variables by stack reference), as sorted, distinct
 * (level, container) pairs; -1 when there are none. A frame's registers that hold its own
 * pointer variables (a register's number, difftrace-sample(5) version 4, and the DWARF
 * location of the variable at the frame's pc) come before its other registers: when one of
 * them points into a container, the frame's other registers (temporaries, and values of its
 * callers that it has not overwritten) are not counted. */
static int32_t scan_of(dt_blame_data *d, strmap *scans, struct stackc *sc,
		       const struct fword *w, size_t nw, const dtp_record *r, int32_t *buf)
{
	size_t k = 0;
	uint8_t var[(DTP_FRAMES + 1 + 1) / 8 + 1] = { 0 }; /* frames whose variables hit */
	for (size_t i = 0; i < nw; i++) {
		int32_t c = w[i].ref >= 0 ? stack_cont(sc, r, w[i].ref, w[i].w, r->ts)
					  : cfind(sc->cx, w[i].w, r->ts);
		if (c < 0)
			continue;
		int rv = reg_var(sc, r, &w[i]);
		if (rv)
			var[w[i].frame / 16] |= (uint8_t)(1u << (w[i].frame / 2 % 8));
		buf[3 * k] = w[i].frame;
		buf[3 * k + 1] = c;
		buf[3 * k + 2] = rv;
		k++;
	}
	/* the frames with variables in registers keep those registers' containers only */
	size_t m = 0;
	for (size_t i = 0; i < k; i++) {
		int32_t lv = buf[3 * i];
		if (!(lv & 1) && !buf[3 * i + 2] && (var[lv / 16] >> (lv / 2 % 8) & 1))
			continue;
		buf[2 * m] = lv;
		buf[2 * m + 1] = buf[3 * i + 1];
		m++;
	}
	k = m;
	if (!k)
		return -1;
	qsort(buf, k, 2 * sizeof *buf, by_pair);
	m = 1;
	for (size_t i = 1; i < k; i++)
		if (buf[2 * i] != buf[2 * (m - 1)] || buf[2 * i + 1] != buf[2 * (m - 1) + 1]) {
			buf[2 * m] = buf[2 * i];
			buf[2 * m + 1] = buf[2 * i + 1];
			m++;
		}
	return scan_intern(d, scans, buf, 2 * m);
}

struct sgroup_key {
	int64_t tid;
	int32_t path, call, c0, c1, scan, pad;
};

static int import_process(struct ictx *ic, const char *dir, int32_t rank, int64_t pid,
			  char **files, size_t nf, dt_blame_data *d, dt_err *e)
{
	struct trec *all = NULL;
	size_t n = 0, cap = 0;
	struct fword *words = NULL;
	size_t nwords = 0, capw = 0;
	uint32_t flags = 0;
	int32_t source = 0;
	int64_t period = 0;
	char event[64] = "";
	for (size_t i = 0; i < nf; i++) {
		char *p = path_join(dir, files[i]);
		dtp_record *r;
		size_t k;
		int64_t tid = 0;
		int32_t src;
		int64_t per;
		char ev[64];
		int torn;
		int rc = sample_file_read(p, &r, &k, &tid, &src, &per, ev, sizeof ev, &torn, e);
		free(p);
		if (rc) {
			free(all);
			free(words);
			return -1;
		}
		if (torn & SAMPLE_READ_TORN)
			flags |= DT_BF_TORN;
		if (torn & SAMPLE_READ_FULL)
			flags |= DT_BF_FULL;
		if (torn & SAMPLE_READ_STOPPED)
			flags |= DT_BF_STOPPED;
		if (k) {
			source = src;
			period = per;
			snprintf(event, sizeof event, "%s", ev);
		}
		grow((void **)&all, &cap, n + k, sizeof *all);
		size_t m = n, last = SIZE_MAX; /* the thread's last sample, for its words */
		for (size_t j = 0; j < k; j++) {
			if (r[j].kind == DTP_WORDS) {
				const dtp_words *x = (const dtp_words *)(const void *)&r[j];
				if (last == SIZE_MAX)
					continue;
				grow((void **)&words, &capw, nwords + x->nwords, sizeof *words);
				for (int q = 0; q < x->nwords; q++) {
					uint8_t f = x->fr[q];
					int ref = f & DTP_FR_STACKREF ? (int)(x->w[q] >> DTP_REF_SHIFT)
								      : -1;
					/* a register's number, from version 4 (0 before: unknown) */
					int reg = ref < 0 && !(f & DTP_FR_STACK)
							  ? (int)(x->w[q] >> DTP_REG_SHIFT) - 1
							  : -1;
					/* the scan's level: a frame's registers, then its stack */
					words[nwords++] = (struct fword){
						ref >= 0 ? x->w[q] & ((1ull << DTP_REF_SHIFT) - 1)
						: !(f & DTP_FR_STACK) ? x->w[q] & DTP_REG_VALUE
								      : x->w[q],
						2 * (f & DTP_FR_FRAME) + !!(f & DTP_FR_STACK), ref, reg };
				}
				all[last].nw += x->nwords;
				continue;
			}
			last = r[j].kind == DTP_SAMPLE ? m : SIZE_MAX;
			all[m] = (struct trec){ r[j], tid, m, nwords, 0 };
			m++;
		}
		n = m;
		free(r);
	}
	if (n > 1) /* qsort wants an array, even of nothing */
		qsort(all, n, sizeof *all, by_ts);

	char mname[64];
	snprintf(mname, sizeof mname, "%" PRId64 ".maps", pid);
	char *mp = path_join(dir, mname);
	struct symtab st;
	if (symtab_open(&st, mp, &ic->locs) != 0)
		flags |= DT_BF_NO_MAPS;
	free(mp);

	size_t first = d->ncont;
	if (!read_globals(&st, d, rank, pid))
		flags |= DT_BF_NO_DEBUG;

	/* replay the allocations: live blocks by address */
	strmap live;
	strmap_init(&live);
	strmap lastc; /* address -> the last container there (realloc's old block) */
	strmap_init(&lastc);
	strmap *paths = &ic->paths;
	/* a path: per real frame, its inlined levels and its function */
	int32_t fr[(DTP_FRAMES + 1) * (INLINE_MAX + 1)];
	const int32_t *ch;
	for (size_t i = 0; i < n; i++) {
		dtp_record *r = &all[i].r;
		uint32_t ci;
		if (r->kind == DTP_FREE) {
			if (strmap_get(&live, (const char *)&r->addr, 8, &ci) && ci != UINT32_MAX) {
				d->cont[ci].t_free = r->ts;
				strmap_put(&live, (const char *)&r->addr, 8, UINT32_MAX);
			}
		} else if (r->kind == DTP_ALLOC) {
			size_t nfr = 0;
			for (int k = 0; k < r->nframes; k++)
				for (size_t c = 0, nc = symbolize_chain(d, &st, r->frames[k], 1, &ch);
				     c < nc; c++)
					fr[nfr++] = ch[c];
			int32_t prev = -1;
			uint32_t pc;
			if (r->call == DTP_A_REALLOC && r->buf[0] &&
			    strmap_get(&lastc, (const char *)&r->buf[0], 8, &pc))
				prev = (int32_t)pc;
			/* a block still live at this address was freed without our seeing it */
			if (strmap_get(&live, (const char *)&r->addr, 8, &ci) && ci != UINT32_MAX)
				d->cont[ci].t_free = r->ts;
			grow((void **)&d->cont, &d->capcont, d->ncont + 1, sizeof *d->cont);
			d->cont[d->ncont] = (dt_bcontainer){
				.rank = rank, .pid = pid,
				.kind = r->call == DTP_A_MMAP ? DT_BC_MMAP : DT_BC_HEAP,
				.addr = r->addr, .size = r->size ? r->size : 1, .t_alloc = r->ts,
				.t_free = INT64_MAX,
				.site = r->nframes ? path_intern(d, paths, fr, nfr) : -1,
				.prev = prev, .alloc_call = r->call
			};
			ci = (uint32_t)d->ncont++;
			strmap_put(&live, (const char *)&r->addr, 8, ci);
			strmap_put(&lastc, (const char *)&r->addr, 8, ci);
		}
	}
	strmap_free(&live);
	strmap_free(&lastc);

	struct cindex cx = { d->cont, NULL, NULL, 0 };
	cx.n = d->ncont - first;
	cx.ord = xmalloc((cx.n ? cx.n : 1) * sizeof *cx.ord);
	cx.maxend = xmalloc((cx.n ? cx.n : 1) * sizeof *cx.maxend);
	for (size_t i = 0; i < cx.n; i++)
		cx.ord[i] = (int32_t)(first + i);
	cmp_base = d->cont;
	if (cx.n > 1)
		qsort(cx.ord, cx.n, sizeof *cx.ord, by_addr);
	for (size_t i = 0; i < cx.n; i++) {
		const dt_bcontainer *c = &d->cont[cx.ord[i]];
		uint64_t end = c->addr + c->size < c->addr ? UINT64_MAX : c->addr + c->size;
		cx.maxend[i] = i && cx.maxend[i - 1] > end ? cx.maxend[i - 1] : end;
	}
	int32_t *sbuf = xmalloc(3 * (DTP_WORDS_MAX * DTP_WORDS_RECORDS + 1) * sizeof *sbuf);
	struct stackc sc = { .d = d, .st = &st, .paths = paths, .cx = &cx, .rank = rank,
			     .pid = pid };
	strmap_init(&sc.pcs);
	strmap_init(&sc.conts);
	strmap_init(&sc.said);

	/* the samples, grouped */
	strmap groups;
	strmap_init(&groups);
	size_t nsamples = 0;
	for (size_t i = 0; i < n; i++) {
		dtp_record *r = &all[i].r;
		if (r->kind != DTP_SAMPLE)
			continue;
		nsamples++;
		if (r->weight > 1)
			flags |= DT_BF_MERGED;
		size_t nfr = 0;
		for (int k = 0; k <= r->nframes; k++)
			for (size_t c = 0, nc = symbolize_chain(d, &st, k ? r->frames[k - 1] : r->addr,
								k > 0, &ch);
			     c < nc; c++)
				fr[nfr++] = ch[c];
		struct sgroup_key key;
		memset(&key, 0, sizeof key);
		key.tid = all[i].tid;
		key.path = path_intern(d, paths, fr, nfr);
		key.call = r->call;
		key.c0 = buf_cont(&sc, r, 0);
		key.c1 = buf_cont(&sc, r, 1);
		size_t nw = all[i].nw;
		if (nw > DTP_WORDS_MAX * DTP_WORDS_RECORDS) /* a thread file written by hand */
			nw = DTP_WORDS_MAX * DTP_WORDS_RECORDS;
		/* no frame words in the whole process: words is NULL, and NULL + 0 is undefined */
		key.scan = scan_of(d, &ic->scans, &sc, nw ? words + all[i].w0 : NULL, nw, r, sbuf);
		if (note_lost(&sc, r))
			flags |= DT_BF_LOST;
		uint32_t gi;
		if (!strmap_get(&groups, (const char *)&key, sizeof key, &gi)) {
			grow((void **)&d->samp, &d->capsamp, d->nsamp + 1, sizeof *d->samp);
			d->samp[d->nsamp] = (dt_bsample){ .rank = rank, .pid = pid, .tid = key.tid,
							  .path = key.path, .call = key.call,
							  .c0 = key.c0, .c1 = key.c1,
							  .scan = key.scan, .bytes = r->bytes };
			gi = (uint32_t)d->nsamp++;
			strmap_put(&groups, (const char *)&key, sizeof key, gi);
		}
		d->samp[gi].nrec++;
		d->samp[gi].weight += r->weight;
		d->samp[gi].cost += r->cost;
	}
	strmap_free(&groups);
	stackc_free(&sc);
	free(sbuf);
	free(cx.ord);
	free(cx.maxend);
	free(all);
	free(words);
	if (!nsamples)
		flags |= DT_BF_NO_SAMPLES;
	grow((void **)&d->proc, &d->capproc, d->nproc + 1, sizeof *d->proc);
	d->proc[d->nproc++] = (dt_bproc){ rank, pid, flags, source, period, xstrdup(event),
					  xstrdup(st.exe ? st.exe : "") };
	symtab_close(&st);
	return 0;
}

/* ---- directories -------------------------------------------------------------------------- */

static int by_name(const void *a, const void *b)
{
	return natcmp(*(char *const *)a, *(char *const *)b);
}

/* One sample directory: its files grouped by pid. */
static int import_dir(struct ictx *ic, const char *dir, int32_t rank, dt_blame_data *d,
		      int *found, dt_err *e)
{
	DIR *dp = opendir(dir);
	if (!dp)
		return dt_err_at(e, dir, -1, "cannot read the directory");
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(dp))) {
		size_t l = strlen(de->d_name);
		if (l > 4 && !strcmp(de->d_name + l - 4, ".dtp")) {
			grow((void **)&names, &cap, n + 1, sizeof *names);
			names[n++] = xstrdup(de->d_name);
		}
	}
	closedir(dp);
	if (n > 1)
		qsort(names, n, sizeof *names, by_name);
	int rc = 0;
	for (size_t i = 0; i < n && !rc;) {
		int64_t pid = strtoll(names[i], NULL, 10);
		size_t j = i;
		while (j < n && strtoll(names[j], NULL, 10) == pid)
			j++;
		rc = import_process(ic, dir, rank, pid, names + i, j - i, d, e);
		if (!rc)
			(*found)++;
		i = j;
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

static int is_dir(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static int32_t rank_of(const char *dir)
{
	const char *b = strrchr(dir, '/');
	b = b ? b + 1 : dir;
	if (strncmp(b, "rank-", 5) != 0)
		return -1;
	char *end;
	long r = strtol(b + 5, &end, 10);
	return *end || r < 0 || r > INT32_MAX ? -1 : (int32_t)r;
}

static int has_dtp(const char *dir)
{
	DIR *dp = opendir(dir);
	if (!dp)
		return 0;
	struct dirent *de;
	int yes = 0;
	while (!yes && (de = readdir(dp))) {
		size_t l = strlen(de->d_name);
		yes = l > 4 && !strcmp(de->d_name + l - 4, ".dtp");
	}
	closedir(dp);
	return yes;
}

int sample_present(const char *path)
{
	if (!is_dir(path))
		return 0;
	if (has_dtp(path))
		return 1;
	char *sd = path_join(path, "sample");
	int yes = has_dtp(sd);
	free(sd);
	if (yes)
		return 1;
	DIR *dp = opendir(path);
	if (!dp)
		return 0;
	struct dirent *de;
	while (!yes && (de = readdir(dp)))
		if (rank_of(de->d_name) >= 0) {
			char *rd = path_join(path, de->d_name);
			char *s2 = path_join(rd, "sample");
			yes = has_dtp(s2);
			free(s2);
			free(rd);
		}
	closedir(dp);
	return yes;
}

static int import_path(struct ictx *ic, const char *path, dt_blame_data *d, int *found,
		       dt_err *e)
{
	if (!is_dir(path))
		return 0;
	/* a sample directory itself */
	if (has_dtp(path)) {
		char *parent = xstrdup(path);
		char *sl = strrchr(parent, '/');
		int32_t rank = -1;
		if (sl) {
			*sl = 0;
			rank = rank_of(parent);
		}
		free(parent);
		return import_dir(ic, path, rank, d, found, e);
	}
	/* a rank directory */
	char *sd = path_join(path, "sample");
	if (is_dir(sd)) {
		char *clean = xstrdup(path);
		size_t l = strlen(clean);
		while (l > 1 && clean[l - 1] == '/')
			clean[--l] = 0;
		int rc = import_dir(ic, sd, rank_of(clean), d, found, e);
		free(clean);
		free(sd);
		return rc;
	}
	free(sd);
	/* a recording directory: its rank-N directories */
	DIR *dp = opendir(path);
	if (!dp)
		return 0;
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(dp)))
		if (rank_of(de->d_name) >= 0) {
			grow((void **)&names, &cap, n + 1, sizeof *names);
			names[n++] = xstrdup(de->d_name);
		}
	closedir(dp);
	if (n > 1)
		qsort(names, n, sizeof *names, by_name);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		char *rd = path_join(path, names[i]);
		char *s2 = path_join(rd, "sample");
		if (!rc && is_dir(s2))
			rc = import_dir(ic, s2, rank_of(names[i]), d, found, e);
		free(s2);
		free(rd);
		free(names[i]);
	}
	free(names);
	return rc;
}

int sample_import(const char *path, dt_blame_data *d, int *found, dt_err *e)
{
	*found = 0;
	struct ictx ic;
	strmap_init(&ic.locs);
	strmap_init(&ic.paths);
	/* the maps are rebuilt from d, which may hold an earlier PATH's data */
	for (size_t i = 0; i < d->nlocs; i++) {
		const dt_bloc *l = &d->locs[i];
		dt_buf k = { 0 };
		buf_put(&k, l->func, strlen(l->func) + 1);
		buf_put(&k, l->file, strlen(l->file) + 1);
		buf_put(&k, &l->line, sizeof l->line);
		buf_put(&k, l->module, strlen(l->module) + 1);
		strmap_put(&ic.locs, (const char *)k.p, k.len, (uint32_t)i);
		buf_free(&k);
	}
	for (size_t i = 0; i < d->npaths; i++)
		strmap_put(&ic.paths, (const char *)(d->pathv + d->path_off[i]),
			   (d->path_off[i + 1] - d->path_off[i]) * sizeof *d->pathv, (uint32_t)i);
	strmap_init(&ic.scans);
	for (size_t i = 0; i < d->nscans; i++)
		strmap_put(&ic.scans, (const char *)(d->scanv + d->scan_off[i]),
			   (d->scan_off[i + 1] - d->scan_off[i]) * sizeof *d->scanv, (uint32_t)i);
	int rc = import_path(&ic, path, d, found, e);
	strmap_free(&ic.locs);
	strmap_free(&ic.paths);
	strmap_free(&ic.scans);
	return rc;
}
