/* index_child.c: bx_index_file in a child process, so that one source libclang cannot parse
 * (a crash on a 100,000-term expression, a macro that grows without end) is reported as that
 * file's failure while the others are indexed. The child parses under limits of CPU time
 * (RLIMIT_CPU, and the parent stops it after twice that of wall time), of memory
 * (RLIMIT_AS, beyond what the process maps when it starts) and of stack (the parse runs on a thread whose stack bounds the nesting
 * libclang and the index's walk may reach), and sends the bx_file back packed on a pipe. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "blame/index_child.h"
#include "util/util.h"

/* ---- packing ------------------------------------------------------------------------------ */

static void put_int(dt_buf *b, int64_t v)
{
	buf_svar(b, v);
}

static void put_str(dt_buf *b, const char *s)
{
	if (!s) {
		buf_uvar(b, 0);
		return;
	}
	size_t n = strlen(s);
	buf_uvar(b, n + 1);
	buf_put(b, s, n);
}

void bx_pack(const bx_file *f, dt_buf *b)
{
	put_str(b, f->path);
	put_str(b, f->directory);
	put_str(b, f->args);
	put_int(b, f->lines);
	buf_uvar(b, f->nfuncs);
	for (size_t i = 0; i < f->nfuncs; i++) {
		const bx_func *fn = &f->funcs[i];
		put_str(b, fn->name);
		put_str(b, fn->file);
		put_int(b, fn->line);
		put_int(b, fn->end_line);
		put_int(b, fn->flags);
		buf_uvar(b, fn->nvars);
		for (size_t k = 0; k < fn->nvars; k++) {
			const bx_var *v = &fn->vars[k];
			put_str(b, v->name);
			put_str(b, v->type);
			put_int(b, v->line);
			put_int(b, v->kind);
			put_int(b, v->exit);
		}
		buf_uvar(b, fn->nrels);
		for (size_t k = 0; k < fn->nrels; k++) {
			const bx_rel *r = &fn->rels[k];
			put_int(b, r->implicit);
			put_int(b, r->dst);
			put_int(b, r->src);
			put_int(b, r->line);
			put_int(b, r->through);
			put_int(b, r->role);
			put_str(b, r->field);
		}
		buf_uvar(b, fn->ncalls);
		for (size_t k = 0; k < fn->ncalls; k++) {
			const bx_call *c = &fn->calls[k];
			put_str(b, c->callee);
			put_str(b, c->via);
			put_int(b, c->line);
			put_int(b, c->col);
			put_int(b, c->result);
			buf_uvar(b, c->nargs);
			for (size_t a = 0; a < c->nargs; a++) {
				const bx_arg *g = &c->args[a];
				put_str(b, g->text);
				buf_uvar(b, g->nvars);
				for (size_t v = 0; v < g->nvars; v++)
					put_int(b, g->vars[v]);
				put_int(b, g->out);
				put_int(b, g->out_var);
				put_int(b, g->out_through);
			}
		}
		buf_uvar(b, fn->nlines);
		for (size_t k = 0; k < fn->nlines; k++) {
			put_int(b, fn->lines[k].line);
			put_int(b, fn->lines[k].var);
			put_int(b, fn->lines[k].how);
		}
	}
	buf_uvar(b, f->ndiags);
	for (size_t i = 0; i < f->ndiags; i++) {
		const bx_diag *d = &f->diags[i];
		put_str(b, d->file);
		put_int(b, d->line);
		put_int(b, d->col);
		put_int(b, d->fatal);
		put_str(b, d->msg);
	}
}

typedef struct rd {
	const uint8_t *p;
	size_t len, pos;
	int bad;
} rd;

static int get_int(rd *r)
{
	int64_t v = 0;
	if (!r->bad && svar_get(r->p, r->len, &r->pos, &v))
		r->bad = 1;
	if (v < INT32_MIN || v > INT32_MAX)
		r->bad = 1;
	return r->bad ? 0 : (int)v;
}

/* A count of elements of at least one byte each: never more than the bytes left. */
static size_t get_count(rd *r)
{
	uint64_t v = uvar_next(r->p, r->len, &r->pos, &r->bad);
	if (v > r->len - r->pos)
		r->bad = 1;
	return r->bad ? 0 : (size_t)v;
}

static char *get_str(rd *r)
{
	uint64_t n = uvar_next(r->p, r->len, &r->pos, &r->bad);
	if (r->bad || !n)
		return NULL;
	if (n - 1 > r->len - r->pos) {
		r->bad = 1;
		return NULL;
	}
	char *s = xmalloc((size_t)n);
	memcpy(s, r->p + r->pos, (size_t)n - 1);
	s[n - 1] = 0;
	r->pos += (size_t)n - 1;
	return s;
}

int bx_unpack(const uint8_t *p, size_t len, bx_file *f)
{
	rd r = { p, len, 0, 0 };
	memset(f, 0, sizeof *f);
	f->path = get_str(&r);
	f->directory = get_str(&r);
	f->args = get_str(&r);
	f->lines = get_int(&r);
	size_t nf = get_count(&r);
	f->funcs = xcalloc(nf ? nf : 1, sizeof *f->funcs);
	for (size_t i = 0; i < nf && !r.bad; i++, f->nfuncs++) {
		bx_func *fn = &f->funcs[i];
		fn->name = get_str(&r);
		fn->file = get_str(&r);
		fn->line = get_int(&r);
		fn->end_line = get_int(&r);
		fn->flags = get_int(&r);
		size_t n = get_count(&r);
		fn->vars = xcalloc(n ? n : 1, sizeof *fn->vars);
		for (size_t k = 0; k < n && !r.bad; k++, fn->nvars++) {
			bx_var *v = &fn->vars[k];
			v->name = get_str(&r);
			v->type = get_str(&r);
			v->line = get_int(&r);
			v->kind = get_int(&r);
			v->exit = get_int(&r);
		}
		n = get_count(&r);
		fn->rels = xcalloc(n ? n : 1, sizeof *fn->rels);
		for (size_t k = 0; k < n && !r.bad; k++, fn->nrels++) {
			bx_rel *x = &fn->rels[k];
			x->implicit = get_int(&r);
			x->dst = get_int(&r);
			x->src = get_int(&r);
			x->line = get_int(&r);
			x->through = get_int(&r);
			x->role = get_int(&r);
			x->field = get_str(&r);
		}
		n = get_count(&r);
		fn->calls = xcalloc(n ? n : 1, sizeof *fn->calls);
		for (size_t k = 0; k < n && !r.bad; k++, fn->ncalls++) {
			bx_call *c = &fn->calls[k];
			c->callee = get_str(&r);
			c->via = get_str(&r);
			c->line = get_int(&r);
			c->col = get_int(&r);
			c->result = get_int(&r);
			size_t na = get_count(&r);
			c->args = xcalloc(na ? na : 1, sizeof *c->args);
			for (size_t a = 0; a < na && !r.bad; a++, c->nargs++) {
				bx_arg *g = &c->args[a];
				g->text = get_str(&r);
				size_t nv = get_count(&r);
				g->vars = xcalloc(nv ? nv : 1, sizeof *g->vars);
				for (size_t v = 0; v < nv && !r.bad; v++, g->nvars++)
					g->vars[v] = get_int(&r);
				g->out = get_int(&r);
				g->out_var = get_int(&r);
				g->out_through = get_int(&r);
			}
		}
		n = get_count(&r);
		fn->lines = xcalloc(n ? n : 1, sizeof *fn->lines);
		for (size_t k = 0; k < n && !r.bad; k++, fn->nlines++) {
			fn->lines[k].line = get_int(&r);
			fn->lines[k].var = get_int(&r);
			fn->lines[k].how = get_int(&r);
		}
	}
	size_t nd = get_count(&r);
	f->diags = xcalloc(nd ? nd : 1, sizeof *f->diags);
	for (size_t i = 0; i < nd && !r.bad; i++, f->ndiags++) {
		bx_diag *d = &f->diags[i];
		d->file = get_str(&r);
		d->line = get_int(&r);
		d->col = get_int(&r);
		d->fatal = get_int(&r);
		d->msg = get_str(&r);
	}
	if (r.bad || r.pos != len) {
		bx_file_free(f);
		return -1;
	}
	return 0;
}

/* ---- the child ---------------------------------------------------------------------------- */

struct parse {
	const char *path, *dir;
	const char *const *argv;
	int argc, full, rc;
	bx_file f;
	dt_err e;
};

static void *parse_main(void *p)
{
	struct parse *a = p;
	a->rc = bx_index_file(a->path, a->dir, a->argv, a->argc, a->full, &a->f, &a->e);
	return NULL;
}

static int write_all(int fd, const void *p, size_t n)
{
	const uint8_t *q = p;
	while (n) {
		ssize_t k = write(fd, q, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		q += k;
		n -= (size_t)k;
	}
	return 0;
}

/* The child's answer: a status byte (0 parsed: a packed bx_file follows; 1 libclang's own
 * error: its message follows), then the bytes. */
_Noreturn static void child(int fd, struct parse *a, const bx_limits *lim)
{
	struct rlimit rl;
	if (lim->cpu_seconds > 0) {
		rl.rlim_cur = (rlim_t)lim->cpu_seconds;
		rl.rlim_max = (rlim_t)lim->cpu_seconds + 5;
		setrlimit(RLIMIT_CPU, &rl);
	}
	if (lim->memory_mib > 0) {
		/* the parse's own: beyond what the process maps already (libclang loaded, and
		 * under a sanitizer its shadow memory, terabytes of address space) */
		unsigned long long pages = 0;
		FILE *f = fopen("/proc/self/statm", "r");
		if (f) {
			if (fscanf(f, "%llu", &pages) != 1)
				pages = 0;
			fclose(f);
		}
		rl.rlim_cur = rl.rlim_max =
			(rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)lim->memory_mib << 20);
		setrlimit(RLIMIT_AS, &rl);
	}
	/* the parse on a thread of its own stack: the nesting it can reach is bounded there, and
	 * a deeper one ends the child, not difftrace */
	pthread_attr_t at;
	pthread_attr_init(&at);
	if (lim->stack_mib > 0)
		pthread_attr_setstacksize(&at, (size_t)lim->stack_mib << 20);
	pthread_t th;
	if (pthread_create(&th, &at, parse_main, a) != 0)
		parse_main(a);
	else
		pthread_join(th, NULL);
	dt_buf b = { 0 };
	if (a->rc) {
		char msg[1024];
		dt_err_format(&a->e, msg, sizeof msg);
		buf_byte(&b, 1);
		buf_put(&b, msg, strlen(msg));
	} else {
		buf_byte(&b, 0);
		bx_pack(&a->f, &b);
	}
	_exit(write_all(fd, b.p, b.len) ? 3 : 0);
}

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int bx_index_file_isolated(const char *path, const char *dir, const char *const *argv, int argc,
			   int full, const bx_limits *lim, bx_file *f, dt_err *e)
{
	memset(f, 0, sizeof *f);
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0)
		return dt_err_at(e, path, -1, "cannot make a pipe: %s", strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return dt_err_at(e, path, -1, "cannot start the parse: %s", strerror(errno));
	}
	if (pid == 0) {
		close(fds[0]);
		struct parse a = { path, dir, argv, argc, full, 0, { 0 }, { 0 } };
		dt_err_clear(&a.e);
		child(fds[1], &a, lim);
	}
	close(fds[1]);
	dt_buf b = { 0 };
	/* the wall clock too: a child that waits (on a locked file, a slow disk) is stopped after
	 * twice its CPU time's limit */
	double deadline = lim->cpu_seconds > 0 ? mono() + 2.0 * lim->cpu_seconds : 0;
	int stopped = 0;
	for (;;) {
		int ms = -1;
		if (deadline) {
			double left = deadline - mono();
			if (left <= 0) {
				kill(pid, SIGKILL);
				stopped = 1;
				break;
			}
			ms = (int)(left * 1000) + 1;
		}
		struct pollfd pf = { fds[0], POLLIN, 0 };
		int k = poll(&pf, 1, ms);
		if (k < 0 && errno == EINTR)
			continue;
		if (k == 0)
			continue;
		uint8_t tmp[65536];
		ssize_t got = read(fds[0], tmp, sizeof tmp);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		buf_put(&b, tmp, (size_t)got);
	}
	close(fds[0]);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	int rc = 0;
	if (stopped || (WIFSIGNALED(st) && (WTERMSIG(st) == SIGXCPU || WTERMSIG(st) == SIGKILL))) {
		rc = dt_err_at(e, path, -1,
			       "libclang was stopped: over the time limit (%d s of CPU time, "
			       "--time-limit); not indexed",
			       lim->cpu_seconds);
	} else if (WIFSIGNALED(st)) {
		rc = dt_err_at(e, path, -1,
			       "libclang crashed (%s; a nesting too deep, or over the memory limit "
			       "of %d MiB, --memory-limit); not indexed",
			       strsignal(WTERMSIG(st)), lim->memory_mib);
	} else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || b.len == 0) {
		rc = dt_err_at(e, path, -1, "libclang's parse ended without an answer (status %d)",
			       WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	} else if (b.p[0] == 1) {
		/* libclang's own error, already placed: passed on as it is */
		rc = dt_errf(e, DT_EDATA, "%.*s", (int)(b.len - 1), (const char *)b.p + 1);
	} else if (bx_unpack(b.p + 1, b.len - 1, f) != 0) {
		rc = dt_err_at(e, path, -1, "libclang's parse answered garbled (%zu bytes)", b.len);
	}
	buf_free(&b);
	return rc;
}
