/* cli_show.c: `difftrace show`, one trace's events as a call tree or as texTrace text. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/evsites.h"
#include "cli/cli.h"
#include "import/sink.h"
#include "store/store_srcline.h"
#include "util/esc.h"
#include "util/util.h"
#include <unistd.h>

static const char help[] =
	"usage: difftrace show [--from N] [--count M] [--format tree|text] [--time WHAT]\n"
	"                      RUN P.T\n"
	"\n"
	"Print the events of trace P.T (process P, thread T) of RUN.\n"
	"\n"
	"  --from N       start at event N (0-based; default 0)\n"
	"  --count M      print at most M events (default: all)\n"
	"  --format FMT   tree (default): calls indented by depth, a call that returns at once\n"
	"                 folded to 'f();', timestamps (seconds from the trace's first event)\n"
	"                 and recorded arguments when the trace has them;\n"
	"                 text: one function name per line and [ret] for a return, the texTrace\n"
	"                 format that 'difftrace import --format text' reads back (names\n"
	"                 byte for byte to a file or a pipe; everywhere else control\n"
	"                 characters are escaped, e.g. \\e for ESC)\n"
	"  --time WHAT    tree: the time column, when the trace has timestamps: start\n"
	"                 (default: seconds from the trace's first event), duration (of\n"
	"                 each call, on the line that closes it, as uftrace replay), both,\n"
	"                 or none\n"
	"\n"
	"A call whose function the binary's debug information (-g) places in the source ends\n"
	"in /* FILE:LINE */, where the function is defined; an MPI or OpenMP call of a run\n"
	"with a sync record (difftrace-record's default) in /* at FILE:LINE (FUNCTION) */,\n"
	"where the program made it.\n"
	"  -h, --help     this help\n";

#define SHOW_BLOCK 4096
#define MAX_INDENT 64

/* The output, buffered here and written in large blocks straight to the real stdout: every
 * byte put into it is escaped already (names once per function id), so the escaping stream
 * that guards stdout would only copy it again. */
struct out {
	FILE *f;
	char *b;
	size_t n, cap;
	int err;
};

static void out_flush(struct out *o)
{
	if (o->n && fwrite(o->b, 1, o->n, o->f) != o->n)
		o->err = 1;
	o->n = 0;
}

static void out_put_slow(struct out *o, const char *s, size_t n)
{
	out_flush(o);
	if (n > o->cap) {
		if (fwrite(s, 1, n, o->f) != n)
			o->err = 1;
		return;
	}
	memcpy(o->b, s, n);
	o->n = n;
}

static inline void out_put(struct out *o, const char *s, size_t n)
{
	if (o->cap - o->n < n) {
		out_put_slow(o, s, n);
		return;
	}
	memcpy(o->b + o->n, s, n);
	o->n += n;
}

static inline void out_byte(struct out *o, char c)
{
	if (o->n == o->cap)
		out_flush(o);
	o->b[o->n++] = c;
}

/* Room for n more bytes (n well under the buffer's size): the caller writes them at o->b+o->n. */
static inline char *out_room(struct out *o, size_t n)
{
	if (o->cap - o->n < n)
		out_flush(o);
	return o->b + o->n;
}

/* v in decimal, ending just before end; returns where the digits start (at most 20) */
static inline char *u64_dec(uint64_t v, char *end)
{
	static const char two[] = "00010203040506070809101112131415161718192021222324252627282930"
				  "31323334353637383940414243444546474849505152535455565758596061"
				  "62636465666768697071727374757677787980818283848586878889909192"
				  "939495969798999";
	char *p = end;
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		*--p = two[2 * r + 1];
		*--p = two[2 * r];
	}
	if (v >= 10) {
		*--p = two[2 * v + 1];
		*--p = two[2 * v];
	} else {
		*--p = (char)('0' + v);
	}
	return p;
}

/* Text from the recording, escaped (ESC_KEEP_NL when keep_nl) unless it needs none. */
static void out_esc(struct out *o, const char *s, dt_buf *tmp, int flags)
{
	size_t n = strlen(s);
	if (esc_clean(s)) {
		out_put(o, s, n);
		return;
	}
	tmp->len = 0;
	esc_append(tmp, s, n, flags);
	out_put(o, (const char *)tmp->p, tmp->len);
}

/* The names as printed, made once per function id. */
#define NAME_PAD 32
struct names {
	store *s;
	int mode; /* 0 raw, 1 escaped, 2 escaped but newlines and tabs kept */
	char **txt;
	size_t *len;
	size_t cap;
};

static void name_get(struct names *nm, uint32_t id, const char **txt, size_t *len)
{
	if (id >= nm->cap) {
		size_t cap = nm->cap ? nm->cap : 256;
		while (cap <= id)
			cap *= 2;
		nm->txt = xrealloc(nm->txt, cap * sizeof *nm->txt);
		nm->len = xrealloc(nm->len, cap * sizeof *nm->len);
		memset(nm->txt + nm->cap, 0, (cap - nm->cap) * sizeof *nm->txt);
		nm->cap = cap;
	}
	if (!nm->txt[id]) {
		const char *raw = store_func_name(nm->s, id);
		char unknown[32];
		if (!raw) {
			snprintf(unknown, sizeof unknown, "?%u", (unsigned)id);
			raw = unknown;
		}
		dt_buf b = { 0 };
		if (nm->mode == 0)
			buf_put(&b, raw, strlen(raw));
		else
			esc_append(&b, raw, strlen(raw), nm->mode == 2 ? ESC_KEEP_NL : 0);
		nm->len[id] = b.len;
		/* NUL-padded to NAME_PAD bytes at least, so short names copy in one fixed move */
		do
			buf_byte(&b, 0);
		while (b.len < NAME_PAD);
		nm->txt[id] = (char *)b.p;
	}
	*txt = nm->txt[id];
	*len = nm->len[id];
}

static void names_free(struct names *nm)
{
	for (size_t i = 0; i < nm->cap; i++)
		free(nm->txt[i]);
	free(nm->txt);
	free(nm->len);
}

static inline void out_name(struct out *o, struct names *nm, uint32_t id)
{
	const char *t;
	size_t n;
	if (id < nm->cap && nm->txt[id]) {
		t = nm->txt[id];
		n = nm->len[id];
	} else {
		name_get(nm, id, &t, &n);
	}
	if (n < NAME_PAD && o->cap - o->n >= NAME_PAD) {
		memcpy(o->b + o->n, t, NAME_PAD);
		o->n += n;
		return;
	}
	out_put(o, t, n);
}

/* The FILE:LINE comment after a call, made once per function id (empty when it has none) */
struct lines {
	store *s;
	const store_srclines *l;
	char **txt;
	size_t *len;
	size_t cap;
};

static void lines_free(struct lines *ls)
{
	for (size_t i = 0; i < ls->cap; i++)
		free(ls->txt[i]);
	free(ls->txt);
	free(ls->len);
}

static void out_line(struct out *o, struct lines *ls, uint32_t id)
{
	if (!ls->l)
		return;
	if (id >= ls->cap) {
		size_t cap = ls->cap ? ls->cap : 256;
		while (cap <= id)
			cap *= 2;
		ls->txt = xrealloc(ls->txt, cap * sizeof *ls->txt);
		ls->len = xrealloc(ls->len, cap * sizeof *ls->len);
		memset(ls->txt + ls->cap, 0, (cap - ls->cap) * sizeof *ls->txt);
		ls->cap = cap;
	}
	if (!ls->txt[id]) {
		const char *file;
		int line;
		dt_buf b = { 0 };
		if (store_srclines_find(ls->l, store_func_name(ls->s, id), &file, &line)) {
			char shown[4096], num[32];
			const char *f = store_srcline_show(file, shown, sizeof shown);
			buf_put(&b, " /* ", 4);
			esc_append(&b, f, strlen(f), 0);
			int k = snprintf(num, sizeof num, ":%d */", line);
			buf_put(&b, num, (size_t)k);
		}
		ls->len[id] = b.len;
		buf_byte(&b, 0);
		ls->txt[id] = (char *)b.p;
	}
	if (ls->len[id])
		out_put(o, ls->txt[id], ls->len[id]);
}

struct tree {
	const store_trace *t;
	struct out *o;
	struct names *nm;
	struct lines *ln;
	int start, dur;  /* the time columns shown */
	dt_buf tmp;      /* escaping arguments */
	uint32_t *stack; /* ids of the open calls we saw, so returns can name their function */
	uint64_t *tstack; /* and when they began */
	size_t nstack, capstack, captstack;
	/* a call not printed yet, because a return right after it folds it into one line */
	int pending;
	uint64_t p_idx, p_ts;
	uint32_t p_id;
	int p_depth;
	char *p_args;
	size_t p_argcap;
	int p_has_args;
	/* where the program made the calls the sync record has: the events at sidx[k] (sorted)
	 * have site sid[k] (evsites_raw) */
	uint64_t *sidx;
	uint32_t *sid;
	size_t nsite, ksite;
	char **site_text; /* by site id, display text */
	uint32_t nsite_text;
};

/* The comment "at FILE:LINE (FUNCTION)" after call idx when the trace has its site (the calls
 * are shown in order: a cursor into sidx, searched again after a jump back). */
static void out_site(struct tree *tr, uint64_t idx)
{
	if (tr->ksite < tr->nsite && tr->sidx[tr->ksite] > idx)
		tr->ksite = 0;
	while (tr->ksite < tr->nsite && tr->sidx[tr->ksite] < idx)
		tr->ksite++;
	if (tr->ksite >= tr->nsite || tr->sidx[tr->ksite] != idx)
		return;
	uint32_t id = tr->sid[tr->ksite];
	if (id >= tr->nsite_text || !tr->site_text[id])
		return;
	out_put(tr->o, " /* at ", 7);
	out_esc(tr->o, tr->site_text[id], &tr->tmp, 0);
	out_put(tr->o, " */", 3);
}

/* The sites of trace p.t (evsites.h) and their texts. */
static int load_sites(store *s, const store_run *run, const store_trace *trc, struct tree *tr,
		      dt_err *e)
{
	if (evsites_raw(s, run->id, run->format ? run->format : "", trc, &tr->sidx, &tr->sid,
			&tr->nsite, e))
		return -1;
	if (!tr->nsite)
		return 0;
	store_sites sites = { 0 };
	if (store_sync_sites(s, run->id, &sites, e))
		return -1;
	tr->site_text = cli_site_texts(&sites, &tr->nsite_text);
	store_sites_free(&sites);
	return 0;
}

static const char spaces[2 * MAX_INDENT] =
	"                                                                "
	"                                                                ";

/* ns as seconds with 9 decimals ("-" first when neg), right-aligned in 14 columns, then two
 * blanks; returns the end */
static char *put_secs(char *w, uint64_t ns_total, int neg)
{
	char num[48];
	char *q = num + sizeof num;
	uint64_t ns = ns_total % 1000000000u;
	for (int k = 0; k < 9; k++, ns /= 10)
		*--q = (char)('0' + ns % 10);
	*--q = '.';
	q = u64_dec(ns_total / 1000000000u, q);
	if (neg)
		*--q = '-';
	size_t nn = (size_t)(num + sizeof num - q);
	for (size_t k = nn; k < 14; k++)
		*w++ = ' ';
	memcpy(w, q, nn);
	w += nn;
	*w++ = ' ';
	*w++ = ' ';
	return w;
}

/* idx, the start column, the duration column (have: a duration dns to show) and the indent */
static void print_prefix(struct tree *tr, uint64_t idx, uint64_t ts, int have, uint64_t dns,
			 int depth)
{
	/* "%10llu  ", then "%14s  " for each time column, then the indent: at most 20 + 2 +
	 * 2 * (30 + 2) + 2 * MAX_INDENT bytes */
	char *w = out_room(tr->o, 256), *start = w;
	if (idx < 10000000000u) {
		memcpy(w, spaces, 12);
		u64_dec(idx, w + 10);
		w += 12;
	} else {
		char d[24], *p = u64_dec(idx, d + sizeof d);
		size_t nd = (size_t)(d + sizeof d - p);
		memcpy(w, p, nd);
		memcpy(w + nd, spaces, 2);
		w += nd + 2;
	}
	if (tr->start) {
		/* an event before the first one is a clock that went back (time-regressed):
		 * shown as a negative offset, never as an unsigned wrap */
		int neg = ts < tr->t->first_ts;
		w = put_secs(w, neg ? tr->t->first_ts - ts : ts - tr->t->first_ts, neg);
	}
	if (tr->dur) {
		if (have) {
			w = put_secs(w, dns, 0);
		} else {
			memcpy(w, spaces, 16);
			w += 16;
		}
	}
	int ind = depth < MAX_INDENT ? depth : MAX_INDENT;
	memcpy(w, spaces, sizeof spaces); /* one fixed-size copy; only ind * 2 of it count */
	w += ind * 2;
	tr->o->n += (size_t)(w - start);
}

/* "name(args)", escaped: both come from the recording */
static void put_call(struct tree *tr)
{
	out_name(tr->o, tr->nm, tr->p_id);
	/* a demangled C++ name has its parameter types already: std::vector<int>::push_back(int
	 * const&), not ...(int const&)(); a C name has no parenthesis */
	if (!tr->p_has_args) {
		const char *t;
		size_t n;
		if (tr->p_id < tr->nm->cap && tr->nm->txt[tr->p_id]) {
			t = tr->nm->txt[tr->p_id];
			n = tr->nm->len[tr->p_id];
		} else {
			name_get(tr->nm, tr->p_id, &t, &n);
		}
		if (memchr(t, '(', n))
			return;
	}
	out_byte(tr->o, '(');
	if (tr->p_has_args)
		out_esc(tr->o, tr->p_args, &tr->tmp, 0);
	out_byte(tr->o, ')');
}

static void flush_pending(struct tree *tr)
{
	if (!tr->pending)
		return;
	print_prefix(tr, tr->p_idx, tr->p_ts, 0, 0, tr->p_depth);
	put_call(tr);
	out_put(tr->o, " {", 2);
	out_line(tr->o, tr->ln, tr->p_id);
	out_site(tr, tr->p_idx);
	out_byte(tr->o, '\n');
	GROW(tr->stack, tr->capstack, tr->nstack + 1);
	GROW(tr->tstack, tr->captstack, tr->nstack + 1);
	tr->tstack[tr->nstack] = tr->p_ts;
	tr->stack[tr->nstack++] = tr->p_id;
	tr->pending = 0;
}

static void tree_event(struct tree *tr, store_cursor *c, uint64_t idx, uint32_t v, uint64_t ts,
		       int depth_before)
{
	const char *a;
	struct out *o = tr->o;
	if (v != DT_RET) {
		flush_pending(tr);
		tr->pending = 1;
		tr->p_idx = idx;
		tr->p_ts = ts;
		tr->p_id = v;
		tr->p_depth = depth_before;
		a = tr->t->nargs ? store_cursor_arg(c, idx, DT_ARG) : NULL;
		tr->p_has_args = a != NULL;
		if (a) {
			size_t n = strlen(a) + 1;
			GROW(tr->p_args, tr->p_argcap, n);
			memcpy(tr->p_args, a, n);
		}
		return;
	}
	const char *ret = tr->t->nargs ? store_cursor_arg(c, idx, DT_RETVAL) : NULL;
	if (tr->pending) {
		print_prefix(tr, tr->p_idx, tr->p_ts, tr->t->has_time && ts >= tr->p_ts,
			     ts - tr->p_ts, tr->p_depth);
		put_call(tr);
		out_byte(o, ';');
		if (ret) {
			out_put(o, " = ", 3);
			out_esc(o, ret, &tr->tmp, 0);
			out_byte(o, ';');
		}
		out_line(o, tr->ln, tr->p_id);
		out_site(tr, tr->p_idx);
		out_byte(o, '\n');
		tr->pending = 0;
		return;
	}
	int d = depth_before > 0 ? depth_before - 1 : 0;
	uint64_t t0 = tr->nstack ? tr->tstack[tr->nstack - 1] : 0;
	print_prefix(tr, idx, ts, tr->nstack && tr->t->has_time && ts >= t0, ts - t0, d);
	out_byte(o, '}');
	if (ret) {
		out_put(o, " = ", 3);
		out_esc(o, ret, &tr->tmp, 0);
	}
	if (tr->nstack) {
		out_put(o, " /* ", 4);
		out_name(o, tr->nm, tr->stack[--tr->nstack]);
		out_put(o, " */", 3);
	}
	out_byte(o, '\n');
}

int cmd_show(cli *c, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "from", required_argument, 0, 'F' }, { "count", required_argument, 0, 'C' },
		{ "format", required_argument, 0, 'f' }, { "help", no_argument, 0, 'h' },
		{ "time", required_argument, 0, 'T' }, { 0, 0, 0, 0 },
	};
	uint64_t from = 0, count = UINT64_MAX;
	int text = 0, o, r, start = 1, dur = 0;
	while ((r = cli_getopt(argc, argv, ":h", lo, &o, "show", help)) == 0 && o != -1) {
		switch (o) {
		case 'F':
			if (cli_parse_u64(optarg, &from))
				return cli_usage("show", "--from needs an event number, not '%s'", optarg);
			break;
		case 'C':
			if (cli_parse_u64(optarg, &count))
				return cli_usage("show", "--count needs a number, not '%s'", optarg);
			break;
		case 'f':
			if (!strcmp(optarg, "text"))
				text = 1;
			else if (!strcmp(optarg, "tree"))
				text = 0;
			else
				return cli_usage("show", "unknown format '%s' (tree, text)", optarg);
			break;
		case 'T':
			start = !strcmp(optarg, "start") || !strcmp(optarg, "both");
			dur = !strcmp(optarg, "duration") || !strcmp(optarg, "both");
			if (!start && !dur && strcmp(optarg, "none"))
				return cli_usage("show",
						 "--time takes start, duration, both or none, not '%s'",
						 optarg);
			break;
		}
	}
	if (r == CLI_HELP_DONE)
		return 0;
	if (r)
		return r;
	if (argc - optind != 2)
		return cli_usage("show", "needs RUN and P.T");
	int p, t;
	if (cli_parse_pt(argv[optind + 1], &p, &t))
		return cli_usage("show", "'%s' is not a trace: write P.T, e.g. 0.0 or 3.1",
				 argv[optind + 1]);
	dt_err e;
	dt_err_clear(&e);
	store *s;
	store_run run = { 0 };
	store_trace tr = { 0 };
	store_cursor *cur = NULL;
	if (cli_open_store(c, STORE_OPEN_EXISTING, &s, &e))
		return cli_fail(&e);
	int rc = 1;
	if (store_run_get(s, argv[optind], &run, &e) || store_trace_get(s, run.id, p, t, &tr, &e))
		goto out;
	if (from > tr.nevents) {
		dt_errf(&e, DT_EUSAGE, "--from %llu is past the end of trace %d.%d (%llu events)",
			(unsigned long long)from, p, t, (unsigned long long)tr.nevents);
		goto out;
	}
	if (store_cursor_open(s, &tr, from, &cur, &e))
		goto out;
	int tty = isatty(1);
	uint32_t *ev = xmalloc(SHOW_BLOCK * sizeof *ev);
	uint64_t *ts = xmalloc(SHOW_BLOCK * sizeof *ts);
	/* text to a file or a pipe: the round trip to import --format text, the names as they
	 * are; at a terminal, escaped as the escaping stream would (newlines and tabs kept) */
	struct names nm = { .s = s, .mode = !text ? 1 : tty ? 2 : 0 };
	struct out ob = { .cap = (size_t)1 << 16 };
	ob.b = xmalloc(ob.cap);
	store_srclines *lines = NULL;
	if (!text && store_srclines_load(s, run.id, &lines, &e)) {
		free(ob.b);
		free(ev);
		free(ts);
		goto out;
	}
	/* no lines at all: nothing to look up per call */
	struct lines ls = { .s = s, .l = store_srclines_count(lines) ? lines : NULL };
	struct tree tt = { .t = &tr, .o = &ob, .nm = &nm, .ln = &ls, .start = start && tr.has_time,
			   .dur = dur && tr.has_time };
	if (!text && load_sites(s, &run, &tr, &tt, &e)) {
		store_srclines_free(lines);
		free(ob.b);
		free(ev);
		free(ts);
		goto out;
	}
	if (!text) {
		char fl[200];
		dt_flags_str(tr.flags, fl, sizeof fl);
		char nmb[300];
		printf("# run %s, trace %d.%d (pid %lld, tid %lld), %llu events, flags %s\n",
		       esc_str(run.name, nmb, sizeof nmb), p, t, (long long)tr.pid, (long long)tr.tid,
		       (unsigned long long)tr.nevents, fl);
		size_t nd;
		const char *const *nodebug = store_srclines_nodebug(lines, &nd);
		for (size_t i = 0; i < nd; i++) {
			char safe[1024];
			printf("# no source lines for %s: %s\n",
			       esc_str(nodebug[i], safe, sizeof safe), store_srclines_why(lines, i));
		}
		printf("# %8s  %s%s%s\n", "EVENT", tt.start ? "    TIME(s)    " : "",
		       tt.dur ? "   DURATION(s)  " : "", "FUNCTION");
	}
	/* from here on, everything written is escaped already (or raw on purpose) */
	cli_raw_stdout(c);
	ob.f = stdout;
	uint64_t idx = from, left = count;
	int64_t k = 0;
	while (left && !ob.err && (k = store_cursor_next(cur, ev, ts, SHOW_BLOCK, &e)) > 0) {
		int depth = store_cursor_depth(cur);
		for (int64_t i = 0; i < k && left; i++, idx++, left--) {
			if (text) {
				if (ev[i] == DT_RET)
					out_put(&ob, "[ret]\n", 6);
				else {
					out_name(&ob, &nm, ev[i]);
					out_byte(&ob, '\n');
				}
				continue;
			}
			tree_event(&tt, cur, idx, ev[i], ts[i], depth);
			if (ev[i] != DT_RET)
				depth++;
			else if (depth > 0)
				depth--;
		}
		if (tty)
			out_flush(&ob); /* a terminal sees each block as it comes */
	}
	if (!text)
		flush_pending(&tt);
	out_flush(&ob);
	free(tt.stack);
	free(tt.tstack);
	lines_free(&ls);
	store_srclines_free(lines);
	free(tt.sidx);
	free(tt.sid);
	cli_site_texts_free(tt.site_text, tt.nsite_text);
	free(tt.p_args);
	buf_free(&tt.tmp);
	names_free(&nm);
	free(ob.b);
	free(ev);
	free(ts);
	if (k < 0)
		goto out;
	if (ob.err || fflush(stdout) != 0) {
		dt_errf(&e, DT_EDATA, "cannot write output");
		goto out;
	}
	rc = 0;
out:
	store_cursor_close(cur);
	store_trace_free(&tr);
	store_run_free(&run);
	store_close(s);
	return rc ? cli_fail(&e) : 0;
}
