/* blame.c: variable blame without source analysis (blame.h says how a sample is blamed). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blame/blame.h"
#include "import/sync_file.h"
#include "util/util.h"

int blame_is_output(const char *func)
{
	static const char *const names[] = {
		"write",	"writev",	   "pwrite",	     "pwrite64",    "printf",
		"fprintf",	"vprintf",	   "vfprintf",	     "dprintf",     "vdprintf",
		"puts",		"fputs",	   "fputc",	     "putc",	    "putchar",
		"fwrite",	"fflush",	   "IO_fwrite",	     "IO_puts",	    "IO_fflush",
		"IO_file_write", "IO_new_file_write", "IO_do_write", "IO_new_do_write",
		"libc_write",	"vfprintf_internal", "printf_positional", "fwrite_unlocked",
	};
	const char *f = func;
	while (*f == '_')
		f++;
	if (!strncmp(f, "GI_", 3))
		for (f += 3; *f == '_'; f++)
			;
	if (!strncmp(f, "MPI_File_", 9) || !strncmp(f, "PMPI_File_", 10))
		return 1;
	size_t n = strlen(f);
	if (n > 4 && !strcmp(f + n - 4, "_chk"))
		n -= 4;
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (strlen(names[i]) == n && !strncmp(names[i], f, n))
			return 1;
	return 0;
}

int blame_lack(const blame_result *r, const dt_blame_data *d, int k, char *buf, size_t n)
{
	if (!d->nsamp)
		return 0;
	/* a sample's path is its locations: one for its PC (and its inlined levels), one more
	 * per frame; none of more than one real frame means no stack was walked */
	int stacks = 0, scans = 0;
	for (size_t i = 0; i < d->nsamp && !stacks; i++) {
		const dt_bsample *s = &d->samp[i];
		size_t real = 0;
		for (uint32_t j = d->path_off[s->path]; j < d->path_off[s->path + 1]; j++)
			real += !d->locs[d->pathv[j]].inl;
		stacks = real > 1;
	}
	for (size_t i = 0; i < d->nsamp && !scans; i++)
		scans = d->samp[i].scan >= 0;
	const char *say[6];
	int m = 0;
	/* uftrace's own time, left out of main's table */
	double tracer = 0, total = 0;
	for (size_t t = 0; t < r->ntables; t++)
		if (r->tables[t].tracer > 0) {
			tracer = r->tables[t].tracer;
			total = r->tables[t].total;
		}
	char tr[400];
	if (tracer > 0) {
		snprintf(tr, sizeof tr,
			 "%.0f %s more (%.1f%% of the run's) were uftrace's own recording (libmcount, "
			 "and the loader's symbol binding): left out; "
			 "record with --sync-only for the program's time alone",
			 tracer, r->unit ? r->unit : "ticks", 100.0 * tracer / (tracer + total));
		say[m++] = tr;
	}
	if (!stacks)
		say[m++] = "the samples have no stacks (program counters only: a recording by an "
			   "older difftrace-record under uftrace?): computation goes to Other; record "
			   "again with this difftrace-record";
	else if (!scans)
		say[m++] = "no sample's frames point into a container (a recording without frame "
			   "words, difftrace-sample(5) version 1?): computation goes to Other; record "
			   "again with this difftrace-record";
	if (r->flags & DT_BF_NO_DEBUG)
		say[m++] = "the program has no -g: no types, no stack variables, allocation sites "
			   "without lines (rebuild it with -g and record again)";
	if (r->flags & DT_BF_LOST)
		say[m++] = "arrays or structures of the program's sampled functions have no stack "
			   "location at the sampled code (an optimized build: the import named them); "
			   "no sample can point to them: build with -Og or -O0 -g to blame them";
	if (r->index_nodebug)
		say[m++] = "the program has no -g: no source lines to join the blame index to "
			   "(blamed without it; rebuild with -g)";
	else if (r->no_index)
		say[m++] = "no blame index of the program: computation is blamed on the containers "
			   "the samples' frames point to, not by the data flow; run 'difftrace "
			   "blame-index -p BUILD_DIR' (or FILE.c -- CFLAGS) on its sources";
	if (k < 0 || k >= m)
		return 0;
	snprintf(buf, n, "%s", say[k]);
	return 1;
}

char *blame_lost_note(const dt_blame_data *d, size_t k)
{
	size_t first = 0, seen = 0;
	for (first = 0; first < d->nlost; first++) {
		size_t j = 0;
		while (j < first && strcmp(d->lost[j].func, d->lost[first].func))
			j++;
		if (j == first && seen++ == k)
			break;
	}
	if (first == d->nlost)
		return NULL;
	dt_buf b = { 0 };
	const char *f = d->lost[first].func;
	buf_put(&b, "in ", 3);
	buf_put(&b, f, strlen(f));
	buf_put(&b, ", no stack location at the sampled code for ", 44);
	for (size_t i = first, m = 0; i < d->nlost; i++) {
		if (strcmp(d->lost[i].func, f))
			continue;
		if (m++)
			buf_put(&b, "; ", 2);
		buf_put(&b, d->lost[i].var, strlen(d->lost[i].var));
		buf_put(&b, ": ", 2);
		buf_put(&b, d->lost[i].why, strlen(d->lost[i].why));
	}
	buf_byte(&b, 0);
	return (char *)b.p;
}

int blame_is_tracer(const char *module)
{
	return !strncmp(module, "libmcount", 9);
}

static int by_pid(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Marks the sample groups spent in the tracer's own code: a stack through uftrace's libmcount
 * (its entry and exit hooks, its writes; the sampler keeps the frames up to libmcount's), and,
 * in a process where such samples are, the dynamic loader's symbol binding (a PC in ld.so:
 * at load under difftrace-record, of every call through the PLT under its --no-bind-now). */
static void tracer_samples(const dt_blame_data *d, uint8_t *tracer)
{
	uint8_t *mc = xcalloc(d->nlocs ? d->nlocs : 1, 1), *ld = xcalloc(d->nlocs ? d->nlocs : 1, 1);
	for (size_t i = 0; i < d->nlocs; i++) {
		mc[i] = (uint8_t)blame_is_tracer(d->locs[i].module);
		ld[i] = !strncmp(d->locs[i].module, "ld-linux", 8) ||
			!strncmp(d->locs[i].module, "ld-2.", 5) || !strcmp(d->locs[i].module, "ld.so");
	}
	int64_t *pids = NULL;
	size_t np = 0, cap = 0;
	for (size_t g = 0; g < d->nsamp; g++) {
		const dt_bsample *s = &d->samp[g];
		for (uint32_t j = d->path_off[s->path]; j < d->path_off[s->path + 1]; j++)
			if (mc[d->pathv[j]]) {
				tracer[g] = 1;
				grow((void **)&pids, &cap, np + 1, sizeof *pids);
				pids[np++] = s->pid;
				break;
			}
	}
	if (np) {
		qsort(pids, np, sizeof *pids, by_pid);
		for (size_t g = 0; g < d->nsamp; g++) {
			const dt_bsample *s = &d->samp[g];
			uint32_t a = d->path_off[s->path];
			if (!tracer[g] && a < d->path_off[s->path + 1] && ld[d->pathv[a]] &&
			    bsearch(&s->pid, pids, np, sizeof *pids, by_pid))
				tracer[g] = 1;
		}
	}
	free(pids);
	free(mc);
	free(ld);
}

/* The code of an MPI function named on the stack (PMPI_X is X), 0 when not one we know. */
static int call_code(const char *func)
{
	if (!strncmp(func, "PMPI_", 5))
		func++;
	if (strncmp(func, "MPI_", 4))
		return 0;
	for (unsigned c = 1; sync_call_name(c); c++)
		if (!strcmp(sync_call_name(c), func))
			return (int)c;
	return 0;
}

static void path_free(blame_path *p)
{
	for (size_t j = 0; j < p->nsteps; j++)
		free(p->steps[j]);
	free(p->steps);
}

static void paths_free(blame_path *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		path_free(&p[i]);
	free(p);
}

static void table_free(blame_table *b)
{
	paths_free(b->why, b->nwhy);
	for (size_t i = 0; i < b->nvars; i++) {
		free(b->vars[i].name);
		free(b->vars[i].type);
		free(b->vars[i].rank);
	}
	free(b->vars);
	free(b->rank);
	free(b->point);
}

void blame_result_free(blame_result *r)
{
	for (size_t t = 0; t < r->ntables; t++)
		table_free(&r->tables[t]);
	free(r->tables);
	free(r->ranks);
	for (size_t i = 0; i < r->nnosrc; i++)
		free(r->nosrc[i]);
	free(r->nosrc);
	for (size_t i = 0; i < r->nends; i++)
		free(r->ends[i]);
	free(r->ends);
	memset(r, 0, sizeof *r);
}

void blame_var_stats(const blame_result *r, const blame_var *v, double *mean, double *sd)
{
	double m = 0, s = 0;
	for (size_t i = 0; i < r->nranks; i++)
		m += v->rank[i];
	m = r->nranks ? m / (double)r->nranks : 0;
	for (size_t i = 0; i < r->nranks; i++)
		s += (v->rank[i] - m) * (v->rank[i] - m);
	*mean = m;
	*sd = r->nranks ? sqrt(s / (double)r->nranks) : 0;
}

/* What the computation shares between points. */
struct bctx {
	const dt_blame_data *d;
	const transfer_set *tf;
	int32_t *fid;        /* per location: its function's id (locations of one function differ
			      * by line) */
	int32_t main_fid;
	uint8_t *libonly;    /* per container: allocated by libraries only (no program frame) */
	int32_t *var;        /* per container: its variable in the current table, -1 none yet */
	int32_t *col;        /* per process: its rank column */
	int32_t *pcol;       /* per sample group: its rank column */
	uint8_t *output;     /* per location: an output routine */
	int16_t *code;       /* per location: the MPI call it is (syncfmt.h code), 0 none */
	uint8_t *ispoint;    /* per location: the current point's function */
	uint8_t *tracer;     /* per sample group: in the tracer's own code (blame_is_tracer) */
	int cut;             /* the current sample's stack is cut short before the point
			      * (cut_short) */
	flow_ctx *flow;      /* the static data flow, NULL none */
	double *held;        /* per indexed function: the blame that passed through its
			      * variables (collected when not NULL) */
	uint8_t *fnv;        /* per indexed function: scratch of one sample */
	const char **cfield; /* per container: the pointer field its allocation's value is
			      * assigned to (pb->x = calloc(...): "x"), NULL none (alloc_field) */
	char **cname;        /* per container: the name of what points to it where it is
			      * allocated ("pb->x", "x"), NULL none (alloc_name) */
	struct owned *own;   /* the blocks a variable names where they are allocated, one per
			      * site and process, in by_owner's order */
	size_t nown;
	uint8_t *ended;      /* per indexed function: blame stopped at one of its variables
			      * without it being the point */
	const char *why;     /* the variable whose paths are collected, NULL none */
	strmap wmap;         /* its paths (steps NUL-separated) -> index in wp */
	blame_path *wp;
	size_t nwp, capwp;
};

/* A heap block that a variable of the program names where it is allocated (alloc_name), one
 * per allocation site of the process (a site's blocks share a row and are visible alike). */
struct owned {
	int32_t fn, var; /* the indexed function and its variable */
	int64_t pid;
	int32_t site, c; /* the block's allocation site, and the block */
};

static int by_owner(const void *a, const void *b)
{
	const struct owned *p = a, *q = b;
	if (p->fn != q->fn)
		return p->fn < q->fn ? -1 : 1;
	if (p->var != q->var)
		return p->var < q->var ? -1 : 1;
	if (p->pid != q->pid)
		return p->pid < q->pid ? -1 : 1;
	if (p->site != q->site)
		return p->site < q->site ? -1 : 1;
	return (p->c > q->c) - (p->c < q->c);
}

/* ---- why: the paths that brought blame to one variable ------------------------------------ */

static void step(dt_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void step(dt_buf *b, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof tmp)
		n = (int)sizeof tmp - 1;
	buf_put(b, tmp, (size_t)n + 1);
}

static const char *base(const char *file)
{
	const char *b = strrchr(file, '/');
	return b ? b + 1 : file;
}

/* "sample at dflow.c:38 in produce" (the location of a frame of the program) */
static void sample_step(dt_buf *b, const dt_bloc *l, const char *inside)
{
	if (!l)
		step(b, "sample%s%s outside the program", inside ? " in " : "", inside ? inside : "");
	else if (l->file[0])
		step(b, "sample%s%s at %s:%d in %s", inside ? " in " : "", inside ? inside : "",
		     base(l->file), (int)l->line, l->func);
	else
		step(b, "sample%s%s in %s", inside ? " in " : "", inside ? inside : "", l->func);
}

/* The innermost frame of the program on the stack, NULL none. */
static const dt_bloc *prog_loc(const dt_blame_data *d, const int32_t *S, size_t m1)
{
	for (size_t j = 0; j < m1; j++)
		if (d->locs[S[j]].in_main)
			return &d->locs[S[j]];
	return NULL;
}

static void why_put(struct bctx *x, const dt_buf *b, double amount)
{
	uint32_t id;
	if (!strmap_get(&x->wmap, (const char *)b->p, b->len, &id)) {
		grow((void **)&x->wp, &x->capwp, x->nwp + 1, sizeof *x->wp);
		blame_path *p = &x->wp[x->nwp];
		memset(p, 0, sizeof *p);
		for (size_t o = 0; o < b->len;) {
			size_t n = strlen((const char *)b->p + o);
			p->steps = xrealloc(p->steps, (p->nsteps + 1) * sizeof *p->steps);
			p->steps[p->nsteps++] = xstrndup((const char *)b->p + o, n);
			o += n + 1;
		}
		id = (uint32_t)x->nwp++;
		strmap_put(&x->wmap, (const char *)b->p, b->len, id);
	}
	x->wp[id].blame += amount;
}

/* Whether line is a condition's (a loop's, an if's, a switch's) in f. */
static int cond_line(const bx_func *f, int line)
{
	for (size_t i = 0; i < f->nlines; i++)
		if (f->lines[i].line == line && f->lines[i].how == BX_CONDITION)
			return 1;
	return 0;
}

/* The chain of target ft of a sample walked with recording (flow_ctx.why), from the target's
 * variable back to the sample's line. */
static void why_flow(const struct bctx *x, const flow_target *ft, const int32_t *S, dt_buf *b)
{
	const blame_src *src = x->flow->src;
	const flow_why *w = x->flow->why;
	const bx_func *f = &src->fn[ft->fn];
	for (size_t r = ft->nrel; r-- > 0;) {
		const bx_rel *rl = &f->rels[w->rel[ft->rel0 + r]];
		step(b, "%s, line %d", f->vars[rl->src].name, rl->line);
	}
	for (const flow_hop *h = &w->hop[ft->hop]; h; ) {
		if (h->parent == SIZE_MAX || !h->call) {
			int line = x->d->locs[S[h->frame]].line;
			if (!h->targ && cond_line(&src->fn[h->fn], line))
				step(b, "the condition of line %d (implicit)", line);
			if (h->targ && h->frame > 0) {
				const char *lib = x->d->locs[S[h->frame - 1]].func;
				const char *tn = h->tname ? h->tname : lib;
				if (h->targ == TRANSFER_RETURN)
					step(b, "the value of %s (its transfer function)", tn);
				else
					step(b, "argument %d of %s (its transfer function)", h->targ, tn);
				sample_step(b, &x->d->locs[S[h->frame]], lib);
			} else {
				sample_step(b, &x->d->locs[S[h->frame]], NULL);
			}
			break;
		}
		const bx_call *c = h->call;
		if (c->result < 0 && src->fn[w->hop[h->parent].fn].vars[h->ex].kind == BX_RETURN &&
		    cond_line(&src->fn[h->fn], c->line))
			step(b, "the condition of line %d (implicit)", c->line);
		dt_buf ct = { 0 };
		const char *callee = c->callee ? c->callee : c->via ? c->via : "?";
		buf_put(&ct, callee, strlen(callee));
		buf_byte(&ct, '(');
		for (size_t i = 0; i < c->nargs; i++) {
			if (i)
				buf_put(&ct, ", ", 2);
			buf_put(&ct, c->args[i].text, strlen(c->args[i].text));
		}
		buf_byte(&ct, ')');
		buf_byte(&ct, 0);
		step(b, "%s, line %d", (const char *)ct.p, c->line);
		buf_free(&ct);
		const flow_hop *p = &w->hop[h->parent];
		const bx_func *g = &src->fn[p->fn];
		const bx_var *ev = &g->vars[h->ex];
		int star = h->exth && ev->type && (strchr(ev->type, '*') || strchr(ev->type, '['));
		step(b, "%s%s (%s)", star ? "*" : "", ev->name, g->name);
		for (size_t r = h->nrel; r-- > 0;) {
			const bx_rel *rl = &g->rels[w->rel[h->rel0 + r]];
			step(b, "%s, line %d", g->vars[rl->src].name, rl->line);
		}
		h = p;
	}
}


/* The name of container ci's variable: globals and statics by name, local variables by name
 * in the table of their function's point and as function::name in others, heap blocks by
 * their allocation site, "file:line (function)" of the innermost frame of the program, and
 * with an index by what points to them where they are allocated, the site as detail:
 * "pb->x (file:line in function)" (alloc_name). */
static void var_name(const struct bctx *x, int32_t ci, dt_buf *out)
{
	const dt_bcontainer *c = &x->d->cont[ci];
	const char *named = x->cname ? x->cname[ci] : NULL;
	const dt_blame_data *d = x->d;
	if (c->kind == DT_BC_STACK && c->name && c->site >= 0) {
		int32_t l = d->pathv[d->path_off[c->site]];
		if (!x->ispoint[l]) {
			buf_put(out, d->locs[l].func, strlen(d->locs[l].func));
			buf_put(out, "::", 2);
		}
		buf_put(out, c->name, strlen(c->name));
		return;
	}
	if (c->name) {
		buf_put(out, c->name, strlen(c->name));
		return;
	}
	const dt_bloc *l = NULL;
	if (c->site >= 0)
		for (uint32_t i = d->path_off[c->site]; i < d->path_off[c->site + 1] && !l; i++)
			if (d->locs[d->pathv[i]].in_main)
				l = &d->locs[d->pathv[i]];
	if (!l && c->site >= 0 && d->path_off[c->site] < d->path_off[c->site + 1])
		l = &d->locs[d->pathv[d->path_off[c->site]]];
	if (!l) {
		const char *s = c->kind == DT_BC_MMAP ? "mmap (no call path)" : "heap (no call path)";
		buf_put(out, s, strlen(s));
		return;
	}
	char tmp[64];
	if (named) {
		buf_put(out, named, strlen(named));
		buf_put(out, " (", 2);
	}
	if (l->file[0]) {
		const char *b = strrchr(l->file, '/');
		b = b ? b + 1 : l->file;
		buf_put(out, b, strlen(b));
		snprintf(tmp, sizeof tmp, ":%d ", (int)l->line);
		buf_put(out, tmp, strlen(tmp));
	}
	if (named) {
		buf_put(out, "in ", 3);
		buf_put(out, l->func, strlen(l->func));
	} else {
		buf_put(out, "(", 1);
		buf_put(out, l->func, strlen(l->func));
	}
	buf_put(out, ")", 1);
}

/* Whether function name f is where a thread's stack starts (the unwind reached its end). */
static int stack_start(const char *f)
{
	static const char *const names[] = { "_start", "__libc_start_main", "__libc_start_call_main",
					     "__libc_start_main_impl", "libc_start_main_stage2",
					     "start_thread", "clone", "clone3", "__clone",
					     "__clone3", "thread_start" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (!strcmp(f, names[i]))
			return 1;
	return 0;
}

/* Whether sample s, whose stack S[0..m1) does not have the point main, was cut short: a
 * sample of the process's main thread whose unwind stopped before main (a stack deeper than
 * the frames kept, a frame without unwind information) and before the start of the thread.
 * Its frames all run below main, but which calls of main are still running is not known. */
static int cut_short(const dt_blame_data *d, const dt_bsample *s, const int32_t *S, size_t m1)
{
	return s->tid == s->pid && s->pid && (!m1 || !stack_start(d->locs[S[m1 - 1]].func));
}

/* The outermost position of the point's function on path P[0..n), n none. */
static size_t point_at(const struct bctx *x, const int32_t *P, size_t n)
{
	for (size_t j = n; j-- > 0;)
		if (x->ispoint[P[j]])
			return j;
	return n;
}

/* Whether container c may take blame at the point whose frame is S[k] of the sample's stack
 * S[0..m1) (k >= m1: the point is not on the stack, as main for another thread's sample, or
 * for a sample cut short, x->cut). */
static int visible(const struct bctx *x, int32_t c, const int32_t *S, size_t m1, size_t k)
{
	const dt_blame_data *d = x->d;
	const dt_bcontainer *ct = &d->cont[c];
	if (ct->kind == DT_BC_GLOBAL || ct->kind == DT_BC_STATIC)
		return 1;
	if (ct->kind == DT_BC_STACK) {
		/* a local of the program (not of a library) of a function running at or above
		 * the point (a local of a callee below it passes its blame on to what the frames
		 * further out point to) */
		if (ct->site < 0)
			return 1;
		int32_t l = d->pathv[d->path_off[ct->site]];
		if (!d->locs[l].in_main)
			return 0;
		if (k >= m1) /* cut short: the frames kept run below the point; its own locals */
			return !x->cut || x->ispoint[l];
		int32_t f = x->fid[l];
		for (size_t j = k; j < m1; j++)
			if (x->fid[S[j]] == f)
				return 1;
		return 0;
	}
	if (x->libonly[c])
		return 0;
	if (ct->site < 0)
		return 1;
	/* allocated through the call that is still running below the point: the allocation's
	 * path has the point's function (its outermost occurrence, as on the sample's stack:
	 * the two paths are aligned on it, whatever frames each has further out) calling the
	 * function the sample's stack has below the point */
	const int32_t *A = d->pathv + d->path_off[ct->site];
	size_t n = d->path_off[ct->site + 1] - d->path_off[ct->site];
	size_t i = point_at(x, A, n);
	if (i == n || i == 0) /* allocated outside the point's call, or by the point itself */
		return 1;
	if (k >= m1) /* another thread's sample: none of its calls; cut short: any may run */
		return !x->cut;
	return !(k > 0 && x->fid[A[i - 1]] == x->fid[S[k - 1]]);
}

/* The real frames of path S[0..m1): rf[j] is position j's (an inlined level shares the real
 * frame of its caller, the next position), rp[r] the position of real frame r's own function
 * (the outermost location of its inlined levels). Returns the number of real frames. A scan's
 * levels count real frames (import/blame_data.h): rf takes a path position to them. */
static size_t real_frames(const dt_blame_data *d, const int32_t *S, size_t m1, size_t *rf,
			  size_t *rp)
{
	size_t r = 0;
	for (size_t j = 0; j < m1; j++) {
		rf[j] = r;
		if (!d->locs[S[j]].inl || j + 1 == m1)
			rp[r++] = j;
	}
	return r;
}

struct tacc {
	blame_var *v;
	size_t n, cap;
	strmap names;
	int32_t other, output;
	size_t nranks;
};

/* Whether row vi is the variable asked about; then b is started with its name. */
static int why_row(const struct bctx *x, const struct tacc *t, int32_t vi, dt_buf *b)
{
	if (!x->why || strcmp(t->v[vi].name, x->why))
		return 0;
	b->len = 0;
	step(b, "%s", t->v[vi].name);
	return 1;
}

static int32_t new_var(struct tacc *t, const char *name, size_t len, int vkind)
{
	grow((void **)&t->v, &t->cap, t->n + 1, sizeof *t->v);
	blame_var *v = &t->v[t->n];
	memset(v, 0, sizeof *v);
	v->name = xstrndup(name, len);
	v->vkind = vkind;
	v->first = -1;
	v->rank = xcalloc(t->nranks ? t->nranks : 1, sizeof *v->rank);
	return (int32_t)t->n++;
}

/* Whether container c is a heap block allocated into variable v of fn: its allocation site's
 * innermost frame of the program is fn, at a line where the index has a call whose value is
 * assigned to v (v = malloc(n)). */
static int alloc_into(const dt_blame_data *d, int32_t c, const bx_func *fn, int v)
{
	const dt_bcontainer *ct = &d->cont[c];
	if (ct->name || ct->site < 0 || (ct->kind != DT_BC_HEAP && ct->kind != DT_BC_MMAP))
		return 0;
	const dt_bloc *l = NULL;
	for (uint32_t i = d->path_off[ct->site]; i < d->path_off[ct->site + 1] && !l; i++)
		if (d->locs[d->pathv[i]].in_main)
			l = &d->locs[d->pathv[i]];
	if (!l || !flow_same_function(fn->name, l->func))
		return 0;
	for (size_t i = 0; i < fn->ncalls; i++)
		if (fn->calls[i].line == l->line && fn->calls[i].result == v)
			return 1;
	return 0;
}

/* The field of a structure that heap block c is assigned to where it is allocated: along its
 * allocation path, innermost first, the first line of an indexed function of the program that
 * assigns a call's value through a pointer's field (pb->x = calloc(n, 8): "x"; pb->A =
 * csr_new(...), csr_new allocating: "A"). NULL none. */
static const char *alloc_field(const struct bctx *x, int32_t c)
{
	const dt_blame_data *d = x->d;
	const dt_bcontainer *ct = &d->cont[c];
	if (ct->name || ct->site < 0 || (ct->kind != DT_BC_HEAP && ct->kind != DT_BC_MMAP))
		return NULL;
	for (uint32_t i = d->path_off[ct->site]; i < d->path_off[ct->site + 1]; i++) {
		int32_t l = d->pathv[i];
		int32_t fi = d->locs[l].in_main ? x->flow->fnix[l] : -1;
		if (fi < 0)
			continue;
		const bx_func *fn = &x->flow->src->fn[fi];
		int line = d->locs[l].line;
		for (size_t r = 0; r < fn->nrels; r++) {
			const bx_rel *rl = &fn->rels[r];
			if (rl->line != line || rl->implicit || !rl->through || !rl->field)
				continue;
			for (size_t k = 0; k < fn->ncalls; k++)
				if (fn->calls[k].line == line && fn->calls[k].result == rl->dst)
					return rl->field;
		}
	}
	return NULL;
}

/* Whether fn returns its variable v (return v: an explicit relation into <return>). */
static int returns_var(const bx_func *fn, int v)
{
	for (size_t r = 0; r < fn->nrels; r++)
		if (!fn->rels[r].implicit && fn->rels[r].src == v && fn->rels[r].dst >= 0 &&
		    (size_t)fn->rels[r].dst < fn->nvars && fn->vars[fn->rels[r].dst].kind == BX_RETURN)
			return 1;
	return 0;
}

/* The name of the line's assignment of a call's value in fn: "pb->x" for pb->x = calloc(...),
 * "x" for double *x = malloc(...), appended to b (two values of one line, p = malloc(...),
 * q = malloc(...): "p/q"). Returns 2 for a field, 1 for a variable, 0 none; *ret, for a
 * variable, whether fn returns it (p = malloc(n); return p: its caller's name is better);
 * *var, for one variable, that variable (-1 otherwise). */
static int line_assign(const bx_func *fn, int line, dt_buf *b, int *ret, int *var)
{
	int got = 0;
	*ret = 1;
	*var = -1;
	size_t start = b->len;
	for (size_t k = 0; k < fn->ncalls; k++) {
		const bx_call *cl = &fn->calls[k];
		if (cl->line != line || cl->result < 0 || fn->vars[cl->result].kind == BX_RETURN)
			continue;
		const char *field = NULL;
		for (size_t r = 0; r < fn->nrels && !field; r++) {
			const bx_rel *rl = &fn->rels[r];
			if (rl->line == line && !rl->implicit && rl->through && rl->field &&
			    rl->dst == cl->result)
				field = rl->field;
		}
		if (got == 2 && !field)
			continue;
		if (field && got < 2)
			b->len = start; /* a field names the block before a variable does */
		else if (got)
			buf_put(b, "/", 1);
		const char *v = fn->vars[cl->result].name;
		buf_put(b, v, strlen(v));
		if (field) {
			buf_put(b, "->", 2);
			buf_put(b, field, strlen(field));
		}
		*var = got || field ? -1 : cl->result;
		got = field ? 2 : 1;
		if (!field && !returns_var(fn, cl->result))
			*ret = 0;
	}
	return got;
}

/* The name of heap block c by what points to it where it is allocated (NULL none, else
 * allocated): along its allocation path, innermost first, the first indexed function of the
 * program that assigns the allocating call's value through a pointer's field (pb->A =
 * csr_new(...): "pb->A"), else the innermost that assigns it to a variable (double *x =
 * malloc(...): "x") that its function does not return (p = malloc(n); return p, in an
 * allocating helper: the caller's variable), else the innermost. *ofn and *ovar: the
 * function (index in the flow's src) and its variable that name it, when one variable does
 * (the block that variable points to), else -1. */
static char *alloc_name(const struct bctx *x, int32_t c, int32_t *ofn, int32_t *ovar)
{
	const dt_blame_data *d = x->d;
	const dt_bcontainer *ct = &d->cont[c];
	*ofn = *ovar = -1;
	if (ct->name || ct->site < 0 || (ct->kind != DT_BC_HEAP && ct->kind != DT_BC_MMAP))
		return NULL;
	dt_buf var = { 0 }, b = { 0 };
	int kept = 0; /* var holds a variable its function does not return */
	for (uint32_t i = d->path_off[ct->site]; i < d->path_off[ct->site + 1]; i++) {
		int32_t l = d->pathv[i];
		int32_t fi = d->locs[l].in_main ? x->flow->fnix[l] : -1;
		if (fi < 0)
			continue;
		b.len = 0;
		int ret, v;
		int got = line_assign(&x->flow->src->fn[fi], d->locs[l].line, &b, &ret, &v);
		if (got == 2) {
			buf_free(&var);
			buf_byte(&b, 0);
			*ofn = *ovar = -1;
			return (char *)b.p;
		}
		if (got == 1 && (!var.len || (!kept && !ret))) {
			var.len = 0;
			buf_put(&var, b.p, b.len);
			kept = !ret;
			*ofn = v >= 0 ? fi : -1;
			*ovar = v;
		}
	}
	buf_free(&b);
	if (!var.len)
		return NULL;
	buf_byte(&var, 0);
	return (char *)var.p;
}

/* The blocks that pointer target ft names when it came through a field (pb->x: the block that
 * field points to): of the candidates cand[0..nc), those allocated into that field; when none
 * is, the blocks of the sample's process allocated into it, visible at the point (any, when
 * the target is the point's own variable). Returns
 * their number in *cand, nc (the candidates as they were) when there are none. */
static size_t field_cands(const struct bctx *x, const dt_bsample *s, const flow_target *ft,
			  const int32_t *S, size_t m1, size_t k, int32_t **cand, size_t *capcand,
			  size_t nc)
{
	const dt_blame_data *d = x->d;
	size_t m = 0;
	for (size_t q = 0; q < nc; q++)
		if (x->cfield[(*cand)[q]] && !strcmp(x->cfield[(*cand)[q]], ft->field)) {
			int32_t c = (*cand)[q];
			(*cand)[q] = (*cand)[m];
			(*cand)[m++] = c;
		}
	if (m)
		return m;
	/* the data flow reached the point's own pointer: the block its field points to is the
	 * point's, though the call that made it still runs (setup() filling what it returns) */
	int at_point = ft->frame >= k;
	size_t n = 0;
	for (size_t c = 0; c < d->ncont; c++)
		if (x->cfield[c] && d->cont[c].pid == s->pid && !strcmp(x->cfield[c], ft->field) &&
		    (at_point || visible(x, (int32_t)c, S, m1, k)))
			n++;
	if (!n)
		return nc;
	grow((void **)cand, capcand, n, sizeof **cand);
	n = 0;
	for (size_t c = 0; c < d->ncont; c++)
		if (x->cfield[c] && d->cont[c].pid == s->pid && !strcmp(x->cfield[c], ft->field) &&
		    (at_point || visible(x, (int32_t)c, S, m1, k)))
			(*cand)[n++] = (int32_t)c;
	return n;
}

/* Part 1's scan of sample s: the containers visible at the point that the first level (2 x
 * real frame, + 1 for its stack words) at or above real frame `from`, and not above real frame
 * rtop when the path has frames, points into. Into *cand; returns their number; *level is the
 * level they were found at (the last one looked at when none). */
static size_t scan_cands(const struct bctx *x, const dt_bsample *s, const int32_t *S, size_t m1,
			 size_t k, size_t rtop, size_t from, int32_t **cand, size_t *capcand,
			 int32_t *level)
{
	const dt_blame_data *d = x->d;
	size_t nc = 0;
	if (s->scan < 0)
		return 0;
	const int32_t *p = d->scanv + d->scan_off[s->scan];
	size_t np = (d->scan_off[s->scan + 1] - d->scan_off[s->scan]) / 2;
	for (size_t i = 0; i < np && !nc;) {
		int32_t fr = p[2 * i];
		if ((size_t)fr / 2 > rtop && m1)
			break;
		*level = fr;
		for (; i < np && p[2 * i] == fr; i++)
			if ((size_t)fr / 2 >= from && visible(x, p[2 * i + 1], S, m1, k)) {
				grow((void **)cand, capcand, nc + 1, sizeof **cand);
				(*cand)[nc++] = p[2 * i + 1];
			}
	}
	return nc;
}

/* The containers that the frame of pointer target ft points into (visible at the point): the
 * frame that wrote through it first, else its own. Into *cand; returns their number. */
static size_t pointer_cands(const struct bctx *x, const dt_bsample *s, const flow_target *ft,
			    const int32_t *S, size_t m1, size_t k, const size_t *rf, int32_t **cand,
			    size_t *capcand)
{
	const dt_blame_data *d = x->d;
	size_t nc = 0;
	for (int pass = 0; pass < 2 && !nc && s->scan >= 0; pass++) {
		size_t fr = pass ? ft->frame : ft->origin;
		const int32_t *p = d->scanv + d->scan_off[s->scan];
		size_t np = (d->scan_off[s->scan + 1] - d->scan_off[s->scan]) / 2;
		if (fr != SIZE_MAX) /* the scan's levels count real frames */
			fr = fr < m1 ? rf[fr] : SIZE_MAX;
		for (size_t q = 0; q < np && fr != SIZE_MAX; q++)
			if ((size_t)p[2 * q] / 2 == fr && visible(x, p[2 * q + 1], S, m1, k)) {
				grow((void **)cand, capcand, nc + 1, sizeof **cand);
				(*cand)[nc++] = p[2 * q + 1];
			}
	}
	return nc;
}

static int32_t cont_var(struct tacc *t, struct bctx *x, int32_t c)
{
	if (x->var[c] >= 0)
		return x->var[c];
	const dt_bcontainer *ct = &x->d->cont[c];
	dt_buf b = { 0 };
	/* globals, locals and heap sites never share a row, even with equal names; the locals of
	 * two functions neither */
	buf_byte(&b, ct->kind == DT_BC_STACK ? 's' : ct->name ? 'g' : 'h');
	if (ct->kind == DT_BC_STACK && ct->site >= 0) {
		const char *fn = x->d->locs[x->d->pathv[x->d->path_off[ct->site]]].func;
		buf_put(&b, fn, strlen(fn) + 1);
	}
	size_t name = b.len;
	var_name(x, c, &b);
	uint32_t id;
	if (!strmap_get(&t->names, (const char *)b.p, b.len, &id)) {
		id = (uint32_t)new_var(t, (const char *)b.p + name, b.len - name, BV_VAR);
		blame_var *v = &t->v[id];
		v->ckind = ct->kind;
		v->first = c;
		v->type = xstrdup(ct->type ? ct->type
				   : ct->kind == DT_BC_MMAP ? "mmap"
				   : ct->kind == DT_BC_HEAP ? "heap"
							    : "-");
		strmap_put(&t->names, (const char *)b.p, b.len, id);
	}
	buf_free(&b);
	x->var[c] = (int32_t)id;
	return (int32_t)id;
}

static void give(struct tacc *t, int32_t vi, size_t col, double amount, int call, int32_t loc)
{
	blame_var *v = &t->v[vi];
	v->rank[col] += amount;
	v->total += amount;
	if (call > 0 && call <= 64)
		v->calls |= 1ull << (call - 1);
	int i = 0;
	while (i < v->nfn && v->fn[i] != loc)
		i++;
	if (i == v->nfn && v->nfn < BLAME_FUNCS) {
		v->fn[i] = loc;
		v->fn_amount[i] = 0;
		v->nfn++;
	}
	if (i < v->nfn)
		v->fn_amount[i] += amount;
	else
		v->fn_rest += amount;
}

/* The row of variable v of indexed function fn: globals and statics by name (the row part 1
 * gives them), the others as "v (function)". */
static int32_t src_var(struct tacc *t, const bx_func *fn, int v)
{
	const bx_var *bv = &fn->vars[v];
	dt_buf b = { 0 };
	int global = bv->kind == BX_GLOBAL || bv->kind == BX_STATIC;
	buf_byte(&b, global ? 'g' : 'f');
	buf_put(&b, bv->name, strlen(bv->name));
	if (!global) {
		buf_put(&b, " (", 2);
		buf_put(&b, fn->name, strlen(fn->name));
		buf_byte(&b, ')');
	}
	uint32_t id;
	if (!strmap_get(&t->names, (const char *)b.p, b.len, &id)) {
		id = (uint32_t)new_var(t, (const char *)b.p + 1, b.len - 1, BV_VAR);
		blame_var *nv = &t->v[id];
		nv->ckind = bv->kind == BX_GLOBAL ? DT_BC_GLOBAL : bv->kind == BX_STATIC ? DT_BC_STATIC : 0;
		nv->type = xstrdup(bv->type && *bv->type ? bv->type : "-");
		strmap_put(&t->names, (const char *)b.p, b.len, id);
	}
	t->v[id].skind = bv->kind + 1;
	buf_free(&b);
	return (int32_t)id;
}

static int by_total(const void *a, const void *b)
{
	const blame_var *x = a, *y = b;
	if (x->vkind != y->vkind)
		return x->vkind - y->vkind;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* One sample group being blamed at a point, and the scratch kept from one to the next. */
struct one {
	const dt_bsample *s;
	const int32_t *S;   /* its stack */
	size_t m1, k;       /* its length; the point's position (m1: not on it) */
	size_t top, rtop;   /* the frames up to the point; the point's real frame (or the
			     * outermost) */
	size_t *rf, *rp, caprf, caprp, nreal; /* real_frames() */
	size_t col;         /* its rank column */
	int call;           /* the MPI call it is in */
	int32_t here;       /* the function to credit: the innermost of the program */
	double amount;
	int32_t *cand;
	size_t capcand;
	dt_buf wb;          /* why's steps */
};

/* In an output routine: Output. Returns 1 when it was. */
static int place_output(struct bctx *x, struct tacc *t, struct one *o)
{
	const dt_blame_data *d = x->d;
	int output = 0;
	for (size_t j = 0; j <= o->top && o->m1; j++)
		output |= x->output[o->S[j]];
	if (!output)
		return 0;
	give(t, t->output, o->col, o->amount, o->call, o->here);
	if (why_row(x, t, t->output, &o->wb)) {
		const char *f = "?";
		for (size_t j = 0; j <= o->top && o->m1; j++)
			if (x->output[o->S[j]])
				f = d->locs[o->S[j]].func;
		step(&o->wb, "the output routine %s", f);
		sample_step(&o->wb, prog_loc(d, o->S, o->m1), NULL);
		why_put(x, &o->wb, o->amount);
	}
	return 1;
}

/* Inside an MPI call: its transfer function's container, when visible. Returns 1 when so. */
static int place_transfer(struct bctx *x, struct tacc *t, struct one *o)
{
	const dt_bsample *s = o->s;
	if (!s->call || !x->tf)
		return 0;
	const char *cn = sync_call_name((unsigned)s->call);
	int32_t c = cn ? transfer_blame(x->tf, cn, s->c0, s->c1) : -1;
	if (c < 0 || !visible(x, c, o->S, o->m1, o->k))
		return 0;
	int32_t vi = cont_var(t, x, c);
	give(t, vi, o->col, o->amount, o->call, o->here);
	if (why_row(x, t, vi, &o->wb)) {
		step(&o->wb, "the buffer %s's transfer function blames", cn);
		sample_step(&o->wb, prog_loc(x->d, o->S, o->m1), cn);
		why_put(x, &o->wb, o->amount);
	}
	return 1;
}

/* Below a caller without source: part 1's scan from its frame up, the heuristic of a function
 * without source. Returns 1 when the scan found containers. */
static int place_heur(struct bctx *x, struct tacc *t, struct one *o, const flow_target *ft,
		      double a, int32_t by)
{
	const bx_func *fn = &x->flow->src->fn[ft->fn];
	int32_t lv;
	size_t nc = scan_cands(x, o->s, o->S, o->m1, o->k, o->rtop, o->rf[ft->heur], &o->cand,
			       &o->capcand, &lv);
	for (size_t q = 0; q < nc; q++) {
		int32_t vi = cont_var(t, x, o->cand[q]);
		give(t, vi, o->col, a / (double)nc, o->call, by);
		if (!x->flow->why || !why_row(x, t, vi, &o->wb))
			continue;
		step(&o->wb, "a pointer of %s's frame into it (no way up in the index: the "
			     "heuristic, 1 of %zu)",
		     x->d->locs[o->S[ft->heur]].func, nc);
		step(&o->wb, "%s (%s)", fn->vars[ft->var].name, fn->name);
		why_flow(x, ft, o->S, &o->wb);
		why_put(x, &o->wb, a / (double)nc);
	}
	return nc > 0;
}

/* The blocks of the sample's process that pointer target ft's variable names where they are
 * allocated (y of double *y = malloc(...) in ft's function: y's block, x->own), visible at the
 * point (any, when the target is the point's own variable): the memory the variable points to
 * when no frame of the sample was seen holding it. Into *cand; returns their number. */
static size_t owned_cands(const struct bctx *x, const dt_bsample *s, const flow_target *ft,
			  const int32_t *S, size_t m1, size_t k, int32_t **cand, size_t *capcand)
{
	int at_point = ft->frame >= k;
	struct owned key = { ft->fn, ft->var, s->pid, -1, -1 };
	size_t lo = 0, hi = x->nown, n = 0;
	while (lo < hi) { /* the first of the variable's blocks of the process */
		size_t mid = lo + (hi - lo) / 2;
		if (by_owner(&x->own[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < x->nown && x->own[i].fn == key.fn && x->own[i].var == key.var &&
			    x->own[i].pid == key.pid;
	     i++)
		if (at_point || visible(x, x->own[i].c, S, m1, k)) {
			grow((void **)cand, capcand, n + 1, sizeof **cand);
			(*cand)[n++] = x->own[i].c;
		}
	return n;
}

/* One target of the static data flow: its variable, or the memory a pointer names. */
static void place_target(struct bctx *x, struct tacc *t, struct one *o, const flow_target *ft)
{
	const dt_blame_data *d = x->d;
	const bx_func *fn = &x->flow->src->fn[ft->fn];
	double a = o->amount * ft->share;
	int32_t by = x->fid[o->S[ft->frame]];
	if (ft->frame < o->k && ft->frame < o->m1 && x->ended &&
	    fn->vars[ft->var].kind != BX_GLOBAL && fn->vars[ft->var].kind != BX_STATIC)
		x->ended[ft->fn] = 1;
	if (!ft->pointer && ft->heur != SIZE_MAX && place_heur(x, t, o, ft, a, by))
		return;
	size_t nc = 0;
	/* a pointer exit variable: the memory its frame points into names it, the frame that
	 * wrote through it first; through a field, the block that field points to */
	if (ft->pointer)
		nc = pointer_cands(x, o->s, ft, o->S, o->m1, o->k, o->rf, &o->cand, &o->capcand);
	if (ft->pointer && ft->field)
		nc = field_cands(x, o->s, ft, o->S, o->m1, o->k, &o->cand, &o->capcand, nc);
	/* of those, the blocks allocated into the variable itself, when the frame holds some (a
	 * frame pointing into a copy's source and its destination blames the destination only) */
	if (nc > 1 && ft->pointer) {
		size_t m = 0;
		for (size_t q = 0; q < nc; q++)
			if (alloc_into(d, o->cand[q], fn, ft->var)) {
				int32_t c = o->cand[q];
				o->cand[q] = o->cand[m];
				o->cand[m++] = c;
			}
		if (m) /* else all of the frame's pointers, as they were */
			nc = m;
	}
	/* no frame seen holding it: the blocks the variable names where they are allocated */
	int owned = 0;
	if (!nc && ft->pointer && !ft->field) {
		nc = owned_cands(x, o->s, ft, o->S, o->m1, o->k, &o->cand, &o->capcand);
		owned = nc > 0;
	}
	for (size_t q = 0; q < (nc ? nc : 1); q++) {
		int32_t vi = nc ? cont_var(t, x, o->cand[q]) : src_var(t, fn, ft->var);
		give(t, vi, o->col, nc ? a / (double)nc : a, o->call, by);
		if (ft->direct)
			t->v[vi].direct += nc ? a / (double)nc : a;
		if (!x->flow->why || !why_row(x, t, vi, &o->wb))
			continue;
		if (nc)
			step(&o->wb,
			     owned ? "%s (%s), allocated into it (no frame seen holding it)"
				   : "%s (%s), a pointer into it",
			     fn->vars[ft->var].name, fn->name);
		why_flow(x, ft, o->S, &o->wb);
		why_put(x, &o->wb, nc ? a / (double)nc : a);
	}
}

/* Part 1's heuristic: the scan, innermost frame first, up to the point; Other when it finds
 * no container. */
static void place_scan(struct bctx *x, struct tacc *t, struct one *o)
{
	const dt_blame_data *d = x->d;
	int32_t level = 0;
	size_t nc = scan_cands(x, o->s, o->S, o->m1, o->k, o->rtop, 0, &o->cand, &o->capcand,
			       &level);
	if (!nc) {
		give(t, t->other, o->col, o->amount, o->call, o->here);
		if (why_row(x, t, t->other, &o->wb)) {
			step(&o->wb, "no variable found");
			sample_step(&o->wb, prog_loc(d, o->S, o->m1), NULL);
			why_put(x, &o->wb, o->amount);
		}
		return;
	}
	/* the function of the frame the scan found them in */
	size_t lp = (size_t)level / 2 < o->nreal ? o->rp[level / 2] : SIZE_MAX; /* its position */
	int32_t by = lp != SIZE_MAX ? x->fid[o->S[lp]] : o->here;
	for (size_t i = 0; i < nc; i++) {
		int32_t vi = cont_var(t, x, o->cand[i]);
		give(t, vi, o->col, o->amount / (double)nc, o->call, by);
		if (why_row(x, t, vi, &o->wb)) {
			step(&o->wb, "a pointer of %s's frame into it (the heuristic, 1 of %zu)",
			     lp != SIZE_MAX ? d->locs[o->S[lp]].func : "?", nc);
			sample_step(&o->wb, prog_loc(d, o->S, o->m1), NULL);
			why_put(x, &o->wb, o->amount / (double)nc);
		}
	}
}

/* Blames sample group g at the point (its stack has it, or the point is main). */
static void place(struct bctx *x, struct tacc *t, struct one *o, size_t g, blame_table *out,
		  flow_target **ftg, size_t *capftg)
{
	const dt_blame_data *d = x->d;
	const dt_bsample *s = o->s;
	const int32_t *S = o->S;
	size_t m1 = o->m1;
	x->cut = o->k == m1 && cut_short(d, s, S, m1);
	o->col = (size_t)x->pcol[g];
	out->nsamples += s->nrec;
	out->rank[o->col] += o->amount;
	out->total += o->amount;
	o->top = o->k < m1 ? o->k : m1 - 1;
	grow((void **)&o->rf, &o->caprf, m1 + 1, sizeof *o->rf);
	grow((void **)&o->rp, &o->caprp, m1 + 1, sizeof *o->rp);
	o->nreal = real_frames(d, S, m1, o->rf, o->rp);
	o->rtop = m1 ? o->rf[o->top] : 0;
	o->call = s->call;
	for (size_t j = 0; j <= o->top && m1; j++)
		if (!s->call && x->code[S[j]])
			o->call = x->code[S[j]]; /* the outermost MPI function wins */
	o->here = m1 ? x->fid[S[0]] : -1;
	for (size_t j = 0; j < m1; j++)
		if (d->locs[S[j]].in_main) {
			o->here = x->fid[S[j]];
			break;
		}
	if (place_output(x, t, o) || place_transfer(x, t, o))
		return;
	/* the static data flow, where the index has the sample's function */
	size_t nt = 0;
	if (x->flow) {
		if (x->fnv)
			memset(x->fnv, 0, x->flow->src->n);
		nt = flow_sample(x->flow, S, m1, o->k, ftg, capftg, x->fnv);
	}
	if (!nt) {
		place_scan(x, t, o);
		return;
	}
	out->joined += o->amount;
	if (x->held)
		for (size_t f = 0; f < x->flow->src->n; f++)
			if (x->fnv[f])
				x->held[f] += o->amount;
	for (size_t i = 0; i < nt; i++)
		place_target(x, t, o, &(*ftg)[i]);
}

/* One table: the blame of every sample whose stack has the point (main: every sample). */
static void table(struct bctx *x, const char *point, int metric, size_t nranks, blame_table *out)
{
	const dt_blame_data *d = x->d;
	struct tacc t;
	memset(&t, 0, sizeof t);
	t.nranks = nranks;
	strmap_init(&t.names);
	for (size_t i = 0; i < d->ncont; i++)
		x->var[i] = -1;
	t.other = new_var(&t, "Other", 5, BV_OTHER);
	t.output = new_var(&t, "Output", 6, BV_OUTPUT);
	t.v[t.other].type = xstrdup("-");
	t.v[t.output].type = xstrdup("-");
	int is_main = !strcmp(point, "main");
	for (size_t i = 0; i < d->nlocs; i++)
		x->ispoint[i] = is_main ? x->fid[i] == x->main_fid : !strcmp(d->locs[i].func, point);
	memset(out, 0, sizeof *out);
	out->point = xstrdup(point);
	out->rank = xcalloc(nranks ? nranks : 1, sizeof *out->rank);
	struct one o;
	memset(&o, 0, sizeof o);
	flow_target *ftg = NULL;
	size_t capftg = 0;
	if (x->why) {
		strmap_init(&x->wmap);
		x->wp = NULL;
		x->nwp = x->capwp = 0;
	}
	for (size_t g = 0; g < d->nsamp; g++) {
		const dt_bsample *s = &d->samp[g];
		o.s = s;
		o.S = d->pathv + d->path_off[s->path];
		o.m1 = d->path_off[s->path + 1] - d->path_off[s->path];
		/* the point's frame: its outermost occurrence */
		o.k = point_at(x, o.S, o.m1);
		o.amount = metric == BLAME_TIME	   ? (double)s->cost
			   : metric == BLAME_BYTES ? (s->call ? (double)s->bytes * (double)s->nrec : 0.0)
						   : (double)s->weight;
		if (x->tracer[g]) {
			/* the recording's cost, not the program's: said beside main's table (the
			 * frames stop at libmcount, so no other point is known to hold it) */
			if (is_main)
				out->tracer += o.amount;
			continue;
		}
		if (o.k == o.m1 && !is_main)
			continue;
		place(x, &t, &o, g, out, &ftg, &capftg);
	}
	free(o.cand);
	free(ftg);
	free(o.rf);
	free(o.rp);
	buf_free(&o.wb);
	if (x->why) {
		strmap_free(&x->wmap);
		out->why = x->wp;
		out->nwhy = out->why_all = x->nwp;
		for (size_t i = 0; i < x->nwp; i++)
			out->why_total += x->wp[i].blame;
		x->wp = NULL;
		x->nwp = x->capwp = 0;
	}
	/* the containers each variable took blame through */
	for (size_t i = 0; i < d->ncont; i++)
		if (x->var[i] >= 0)
			t.v[x->var[i]].ncont++;
	qsort(t.v, t.n, sizeof *t.v, by_total);
	strmap_free(&t.names);
	out->vars = t.v;
	out->nvars = t.n;
}

/* Checks that the data's references are in range (a damaged store is refused, not read past). */
static int check(const dt_blame_data *d, dt_err *e)
{
	for (size_t i = 0; i < d->npaths; i++)
		if (d->path_off[i] > d->path_off[i + 1] || d->path_off[i + 1] > d->npathv)
			return dt_errf(e, DT_EDATA, "the blame data is damaged (call path %zu)", i);
	for (size_t i = 0; i < d->npathv; i++)
		if (d->pathv[i] < 0 || (size_t)d->pathv[i] >= d->nlocs)
			return dt_errf(e, DT_EDATA, "the blame data is damaged (a call path names "
						    "location %d of %zu)", d->pathv[i], d->nlocs);
	for (size_t i = 0; i < d->nscans; i++)
		if (d->scan_off[i] > d->scan_off[i + 1] || d->scan_off[i + 1] > d->nscanv ||
		    (d->scan_off[i + 1] - d->scan_off[i]) % 2)
			return dt_errf(e, DT_EDATA, "the blame data is damaged (scan %zu)", i);
	for (size_t i = 0; i + 1 < d->nscanv; i += 2)
		if (d->scanv[i] < 0 || d->scanv[i + 1] < 0 || (size_t)d->scanv[i + 1] >= d->ncont)
			return dt_errf(e, DT_EDATA, "the blame data is damaged (a scan names "
						    "container %d of %zu)", d->scanv[i + 1], d->ncont);
	for (size_t i = 0; i < d->ncont; i++)
		if (d->cont[i].site >= (int32_t)d->npaths || d->cont[i].site < -1)
			return dt_errf(e, DT_EDATA, "the blame data is damaged (container %zu's "
						    "allocation path)", i);
	for (size_t i = 0; i < d->nsamp; i++) {
		const dt_bsample *s = &d->samp[i];
		if (s->path < 0 || (size_t)s->path >= d->npaths || s->scan < -1 ||
		    (s->scan >= 0 && (size_t)s->scan >= d->nscans) || s->c0 < -1 || s->c1 < -1 ||
		    (s->c0 >= 0 && (size_t)s->c0 >= d->ncont) ||
		    (s->c1 >= 0 && (size_t)s->c1 >= d->ncont) || s->call < 0)
			return dt_errf(e, DT_EDATA, "the blame data is damaged (sample group %zu)", i);
	}
	return 0;
}

static int by_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return x < y ? -1 : x > y;
}

int blame_compute(const dt_blame_data *d, const transfer_set *tf, const char *const *points,
		  size_t npoints, int metric, blame_result *out, dt_err *e)
{
	return blame_compute_src(d, tf, NULL, points, npoints, metric, out, e);
}

static int has_name(char *const *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], name))
			return 1;
	return 0;
}

static void add_name(char ***v, size_t *n, const char *name)
{
	if (has_name(*v, *n, name))
		return;
	*v = xrealloc(*v, (*n + 1) * sizeof **v);
	(*v)[(*n)++] = xstrdup(name);
}

int blame_compute_src(const dt_blame_data *d, const transfer_set *tf, const blame_src *src,
		      const char *const *points, size_t npoints, int metric, blame_result *out,
		      dt_err *e)
{
	return blame_compute_why(d, tf, src, points, npoints, metric, NULL, 0, out, e);
}

static int by_blame(const void *a, const void *b)
{
	const blame_path *x = a, *y = b;
	if (x->blame != y->blame)
		return x->blame > y->blame ? -1 : 1;
	return x->nsteps < y->nsteps ? -1 : x->nsteps > y->nsteps;
}

int blame_compute_why(const dt_blame_data *d, const transfer_set *tf, const blame_src *src,
		      const char *const *points, size_t npoints, int metric, const char *var,
		      size_t top, blame_result *out, dt_err *e)
{
	memset(out, 0, sizeof *out);
	if (check(d, e))
		return -1;
	out->metric = metric;
	int32_t source = d->nproc ? d->proc[0].source : 0;
	out->unit = metric == BLAME_BYTES ? "bytes"
		    : metric == BLAME_TIME ? (source == 2 ? "events" : "ns")
					   : "ticks";
	/* the rank columns: the ranks of the processes, in order */
	int32_t *rk = xmalloc((d->nproc ? d->nproc : 1) * sizeof *rk);
	for (size_t i = 0; i < d->nproc; i++) {
		rk[i] = d->proc[i].rank;
		out->flags |= d->proc[i].flags;
	}
	if (d->nproc > 1)
		qsort(rk, d->nproc, sizeof *rk, by_i32);
	size_t nr = 0;
	for (size_t i = 0; i < d->nproc; i++)
		if (!nr || rk[nr - 1] != rk[i])
			rk[nr++] = rk[i];
	if (!nr) /* samples without processes (a store written by hand): one column */
		rk[nr++] = -1;
	out->ranks = rk;
	out->nranks = nr;

	struct bctx x;
	memset(&x, 0, sizeof x);
	x.d = d;
	x.tf = tf;
	x.why = var;
	x.fid = xmalloc((d->nlocs ? d->nlocs : 1) * sizeof *x.fid);
	strmap fn;
	strmap_init(&fn);
	x.main_fid = -1;
	for (size_t i = 0; i < d->nlocs; i++) {
		uint32_t id;
		const char *f = d->locs[i].func;
		if (!strmap_get(&fn, f, strlen(f), &id)) {
			id = (uint32_t)i;
			strmap_put(&fn, f, strlen(f), id);
		}
		x.fid[i] = (int32_t)id;
		if (!strcmp(f, "main") && d->locs[i].in_main)
			x.main_fid = (int32_t)id;
	}
	strmap_free(&fn);
	x.output = xmalloc(d->nlocs ? d->nlocs : 1);
	x.code = xmalloc((d->nlocs ? d->nlocs : 1) * sizeof *x.code);
	x.ispoint = xmalloc(d->nlocs ? d->nlocs : 1);
	for (size_t i = 0; i < d->nlocs; i++) {
		x.output[i] = (uint8_t)blame_is_output(d->locs[i].func);
		x.code[i] = (int16_t)call_code(d->locs[i].func);
	}
	tracer_samples(d, (x.tracer = xcalloc(d->nsamp ? d->nsamp : 1, 1)));
	x.libonly = xcalloc(d->ncont ? d->ncont : 1, 1);
	for (size_t i = 0; i < d->ncont; i++) {
		const dt_bcontainer *c = &d->cont[i];
		if ((c->kind != DT_BC_HEAP && c->kind != DT_BC_MMAP) || c->site < 0)
			continue;
		/* the OpenMP runtime's own blocks (a team's threads and their data, made in
		 * GOMP_parallel called from the program) are the library's, not the program's */
		int prog = 0, omp = 0;
		for (uint32_t j = d->path_off[c->site]; j < d->path_off[c->site + 1]; j++) {
			const dt_bloc *l = &d->locs[d->pathv[j]];
			prog |= l->in_main;
			omp |= !strncmp(l->module, "libgomp", 7) || !strncmp(l->module, "libomp", 6) ||
			       !strncmp(l->module, "libiomp", 7);
		}
		x.libonly[i] = !prog || omp;
	}
	x.var = xmalloc((d->ncont ? d->ncont : 1) * sizeof *x.var);
	x.pcol = xmalloc((d->nsamp ? d->nsamp : 1) * sizeof *x.pcol);
	for (size_t g = 0; g < d->nsamp; g++) {
		size_t lo = 0, hi = nr;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (rk[mid] < d->samp[g].rank)
				lo = mid + 1;
			else
				hi = mid;
		}
		x.pcol[g] = (int32_t)(lo < nr && rk[lo] == d->samp[g].rank ? lo : 0);
	}
	static const char *const dflt[] = { "main" };
	if (!points || !npoints) {
		points = dflt;
		npoints = 1;
	}
	flow_ctx fx;
	flow_why fw = { 0 };
	int joined = src && src->n;
	if (joined && (out->flags & DT_BF_NO_DEBUG)) {
		joined = 0; /* no line to join to: part 1's blame */
		out->index_nodebug = 1;
	}
	if (joined) {
		flow_init(&fx, d, src);
		fx.tf = tf;
		if (var)
			fx.why = &fw;
		x.flow = &fx;
		x.fnv = xcalloc(src->n, 1);
		x.ended = xcalloc(src->n, 1);
		x.cfield = xcalloc(d->ncont ? d->ncont : 1, sizeof *x.cfield);
		for (size_t i = 0; i < d->ncont; i++)
			x.cfield[i] = alloc_field(&x, (int32_t)i);
		x.cname = xcalloc(d->ncont ? d->ncont : 1, sizeof *x.cname);
		x.own = xcalloc(d->ncont ? d->ncont : 1, sizeof *x.own);
		for (size_t i = 0; i < d->ncont; i++) {
			struct owned *w = &x.own[x.nown];
			x.cname[i] = alloc_name(&x, (int32_t)i, &w->fn, &w->var);
			w->pid = d->cont[i].pid;
			w->site = d->cont[i].site;
			w->c = (int32_t)i;
			x.nown += w->fn >= 0;
		}
		qsort(x.own, x.nown, sizeof *x.own, by_owner);
		size_t m = 0; /* one per site and process */
		for (size_t i = 0; i < x.nown; i++) {
			const struct owned *p = &x.own[i], *q = m ? &x.own[m - 1] : NULL;
			if (!q || p->fn != q->fn || p->var != q->var || p->pid != q->pid ||
			    p->site != q->site)
				x.own[m++] = *p;
		}
		x.nown = m;
	}
	size_t capt = npoints;
	out->tables = xcalloc(capt, sizeof *out->tables);
	for (size_t p = 0; p < npoints; p++) {
		table(&x, points[p], metric, nr, &out->tables[p]);
		out->ntables++;
	}
	for (size_t p = 0; var && p < out->ntables; p++) {
		blame_table *bt = &out->tables[p];
		if (bt->nwhy > 1)
			qsort(bt->why, bt->nwhy, sizeof *bt->why, by_blame);
		if (top && bt->nwhy > top) {
			for (size_t i = top; i < bt->nwhy; i++)
				path_free(&bt->why[i]);
			bt->nwhy = top;
		}
	}
	x.why = NULL; /* the automatic points' tables below do not collect paths */
	fx.why = NULL;
	if (joined && src->auto_pct > 0) {
		/* the paper's criterion: the functions whose variables hold more than auto_pct
		 * percent of the whole blame (main's table) */
		blame_table mt;
		x.held = xcalloc(src->n, sizeof *x.held);
		table(&x, "main", metric, nr, &mt);
		for (size_t f = 0; f < src->n; f++) {
			const char *name = src->fn[f].name;
			if (!(mt.total > 0 && 100.0 * x.held[f] > src->auto_pct * mt.total) ||
			    !strcmp(name, "main"))
				continue;
			int dup = 0;
			for (size_t p = 0; p < out->ntables && !dup; p++)
				dup = !strcmp(out->tables[p].point, name);
			if (dup)
				continue;
			grow((void **)&out->tables, &capt, out->ntables + 1, sizeof *out->tables);
			table(&x, name, metric, nr, &out->tables[out->ntables]);
			out->tables[out->ntables++].automatic = 1;
		}
		table_free(&mt);
		free(x.held);
		x.held = NULL;
	}
	if (joined) {
		for (size_t i = 0; i < d->nlocs; i++)
			if (fx.noted[i])
				add_name(&out->nosrc, &out->nnosrc, d->locs[i].func);
		for (size_t f = 0; f < src->n; f++)
			if (x.ended[f] && !has_name(out->ends, out->nends, src->fn[f].name)) {
				int pt = 0;
				for (size_t p = 0; p < out->ntables && !pt; p++)
					pt = !strcmp(out->tables[p].point, src->fn[f].name);
				if (!pt)
					add_name(&out->ends, &out->nends, src->fn[f].name);
			}
		flow_free(&fx);
		flow_why_free(&fw);
		free(x.fnv);
		free(x.ended);
		free(x.cfield);
		for (size_t i = 0; i < d->ncont; i++)
			free(x.cname[i]);
		free(x.cname);
		free(x.own);
	}
	free(x.fid);
	free(x.output);
	free(x.code);
	free(x.ispoint);
	free(x.tracer);
	free(x.libonly);
	free(x.var);
	free(x.pcol);
	return 0;
}

static int by_change(const void *a, const void *b)
{
	const blame_change *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	double dx = fabs(x->pb - x->pa), dy = fabs(y->pb - y->pa);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->name, y->name);
}

static const blame_var *find_var(const blame_table *t, const char *name)
{
	for (size_t i = 0; i < t->nvars; i++)
		if (!strcmp(t->vars[i].name, name))
			return &t->vars[i];
	return NULL;
}

void blame_diff(const blame_result *ra, const blame_table *ta, const blame_result *rb,
		const blame_table *tb, size_t top, blame_change **out, size_t *n)
{
	blame_change *v = NULL;
	size_t nv = 0, cap = 0;
	for (size_t cb = 0; cb < rb->nranks; cb++) {
		int32_t r = rb->ranks[cb];
		size_t ca = SIZE_MAX;
		for (size_t i = 0; i < ra->nranks; i++)
			if (ra->ranks[i] == r)
				ca = i;
		double tota = ca != SIZE_MAX ? ta->rank[ca] : 0, totb = tb->rank[cb];
		/* every variable of either run, once */
		for (int side = 0; side < 2; side++) {
			const blame_table *t = side ? ta : tb;
			for (size_t i = 0; i < t->nvars; i++) {
				const char *name = t->vars[i].name;
				if (side && find_var(tb, name))
					continue;
				const blame_var *a = find_var(ta, name), *b = find_var(tb, name);
				double va = a && ca != SIZE_MAX ? a->rank[ca] : 0, vb = b ? b->rank[cb] : 0;
				if (va == 0 && vb == 0)
					continue;
				grow((void **)&v, &cap, nv + 1, sizeof *v);
				v[nv++] = (blame_change){ r, name, (b ? b : a)->type, va, vb,
							  tota > 0 ? 100.0 * va / tota : 0,
							  totb > 0 ? 100.0 * vb / totb : 0 };
			}
		}
	}
	if (nv > 1)
		qsort(v, nv, sizeof *v, by_change);
	if (top) {
		size_t k = 0, run = 0;
		for (size_t i = 0; i < nv; i++) {
			run = i && v[i].rank == v[i - 1].rank ? run + 1 : 0;
			if (run < top)
				v[k++] = v[i];
		}
		nv = k;
	}
	*out = v;
	*n = nv;
}
