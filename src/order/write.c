/* write.c: the output formats of write.h. The Chrome format pairs each receive's completion
 * with its send by the same counting as the point-to-point rules (the n-th receive of a
 * (communicator, source, destination, tag) channel gets the n-th send), on the order given. */
#define _GNU_SOURCE
#include "order/write.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/esc.h"
#include "util/util.h"

int ord_format_parse(const char *s)
{
	if (!strcmp(s, "text"))
		return ORD_FMT_TEXT;
	if (!strcmp(s, "csv"))
		return ORD_FMT_CSV;
	if (!strcmp(s, "json"))
		return ORD_FMT_JSON;
	if (!strcmp(s, "chrome"))
		return ORD_FMT_CHROME;
	return -1;
}

static const char *const phase_name[] = { "enter", "exit", "done" };

static const char *phname(const dt_sync_event *x)
{
	return x->phase <= DT_SYNC_DONE ? phase_name[x->phase] : "?";
}

/* A row is made in a buffer of its own and written with one fwrite: an order is millions of
 * rows, and fprintf's parsing of the format, with a locked fputc per character of a name, was
 * two thirds of `difftrace order`'s CPU time. */
typedef struct obuf {
	FILE *out;
	size_t n;
	char b[1024];
} obuf;

static void ob_flush(obuf *o)
{
	if (o->n)
		fwrite(o->b, 1, o->n, o->out);
	o->n = 0;
}

static inline void ob_c(obuf *o, char c)
{
	if (o->n == sizeof o->b)
		ob_flush(o);
	o->b[o->n++] = c;
}

static void ob_s(obuf *o, const char *s)
{
	size_t n = strlen(s);
	if (o->n + n > sizeof o->b) {
		while (*s)
			ob_c(o, *s++);
		return;
	}
	memcpy(o->b + o->n, s, n);
	o->n += n;
}

/* v in decimal (a '-' when neg, a '+' when plus and not neg), right-aligned in width. */
static void ob_num(obuf *o, uint64_t v, int neg, int plus, int width)
{
	char d[24];
	int n = 0;
	do
		d[n++] = (char)('0' + v % 10);
	while (v /= 10);
	if (neg || plus)
		d[n++] = neg ? '-' : '+';
	/* (widths are at most 20) */
	if (o->n + 24 > sizeof o->b)
		ob_flush(o);
	for (int i = n; i < width; i++)
		o->b[o->n++] = ' ';
	while (n)
		o->b[o->n++] = d[--n];
}

static void ob_i64(obuf *o, int64_t v, int plus, int width)
{
	ob_num(o, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0, plus, width);
}

static void ob_u64(obuf *o, uint64_t v, int width)
{
	ob_num(o, v, 0, 0, width);
}

static void ob_hex(obuf *o, uint64_t v, int digits)
{
	static const char hx[] = "0123456789abcdef";
	char d[16];
	int n = 0;
	do
		d[n++] = hx[v & 15];
	while ((v >>= 4) || n < digits);
	while (n)
		ob_c(o, d[--n]);
}

/* mode 0: text (control characters as \xNN), 1: JSON string body (controls, DEL and C1 as \u
 * escapes, bytes that are not UTF-8 as U+FFFD), 2: CSV field body */
static void ob_name(obuf *o, const char *const *names, uint32_t nnames, uint32_t f, int mode)
{
	const char *s = f < nnames ? names[f] : NULL;
	if (!s) {
		ob_s(o, "function#");
		ob_u64(o, f, 0);
		return;
	}
	if (mode == 1) { /* bytes that are not UTF-8 as U+FFFD: the file stays JSON */
		dt_buf b = { 0 };
		esc_json_append(&b, s);
		for (size_t i = 0; i < b.len; i++)
			ob_c(o, (char)b.p[i]);
		buf_free(&b);
		return;
	}
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (mode == 2 && c == '"') {
			ob_s(o, "\"\"");
		} else if (mode != 1 && (c < 32 || c == 127)) {
			ob_s(o, "\\x");
			ob_hex(o, c, 2);
		} else {
			ob_c(o, (char)c);
		}
	}
}

static void put_name(FILE *out, const char *const *names, uint32_t nnames, uint32_t f, int mode)
{
	obuf o = { out, 0, { 0 } };
	ob_name(&o, names, nnames, f, mode);
	ob_flush(&o);
}

/* The fields a call has, as name=value (text) or "name":value (json). */
static void ob_args(obuf *o, const dt_sync_event *x, int json)
{
	struct {
		const char *name;
		int64_t v;
		int set, hex;
	} a[] = {
		{ "comm", x->comm, x->comm != DT_SYNC_NONE, 0 },
		{ "dest", x->dest, x->dest != DT_SYNC_NONE, 0 },
		{ "stag", x->stag, x->stag != DT_SYNC_NONE, 0 },
		{ "src", x->src, x->src != DT_SYNC_NONE, 0 },
		{ "rtag", x->rtag, x->rtag != DT_SYNC_NONE, 0 },
		{ "root", x->root, x->root != DT_SYNC_NONE, 0 },
		{ "count", x->count, x->count != 0, 0 },
		{ "req", (int64_t)x->req, x->req != 0, 1 },
		{ "obj", (int64_t)x->obj, x->obj != 0, 1 },
		{ "objseq", (int64_t)x->objseq, x->objseq != 0, 0 },
		{ "team", x->team, x->team != DT_SYNC_NONE && x->team != 0, 0 },
		{ "tnum", x->tnum, x->tnum != DT_SYNC_NONE && x->team > 0, 0 },
		{ "csize", x->csize, x->csize > 0, 0 },
		{ "disp", x->disp, x->disp != 0, 0 },
		{ "assert", x->rassert, x->rassert != 0, 1 },
		{ "lock", x->lock, x->lock != 0, 0 },
		{ "digest", (int64_t)x->digest, x->digest != 0, 2 },
	};
	for (size_t i = 0; i < sizeof a / sizeof *a; i++) {
		if (!a[i].set)
			continue;
		ob_s(o, json ? ",\"" : " ");
		ob_s(o, a[i].name);
		ob_s(o, json ? "\":" : "=");
		if (a[i].hex == 2) { /* 64 bits: a string in JSON, which a double cannot hold */
			if (json)
				ob_c(o, '"');
			ob_hex(o, (uint64_t)a[i].v, 16);
			if (json)
				ob_c(o, '"');
		} else if (!json && a[i].hex) {
			ob_s(o, "0x");
			ob_hex(o, (uint64_t)a[i].v, 1);
		} else {
			ob_i64(o, a[i].v, 0, 0);
		}
	}
}

static void put_args(FILE *out, const dt_sync_event *x, int json)
{
	obuf o = { out, 0, { 0 } };
	ob_args(&o, x, json);
	ob_flush(&o);
}

/* ---- message matching for the flow arrows -------------------------------------------------------- */

typedef struct chan {
	int64_t k[4];    /* comm, src, dst, tag */
	size_t *fifo;    /* positions of the sends not yet received */
	size_t head, len, cap;
	int used;
} chan;

typedef struct chans {
	chan *c;
	size_t cap, n;
} chans;

static uint64_t chash(const int64_t *k)
{
	uint64_t h = 1469598103934665603ull;
	for (int i = 0; i < 4; i++) {
		h ^= (uint64_t)k[i];
		h *= 1099511628211ull;
		h ^= h >> 29;
	}
	return h;
}

static chan *chan_get(chans *t, const int64_t *k)
{
	if ((t->n + 1) * 2 > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		chan *c = xcalloc(cap, sizeof *c);
		for (size_t i = 0; i < t->cap; i++)
			if (t->c[i].used) {
				size_t j = chash(t->c[i].k) & (cap - 1);
				while (c[j].used)
					j = (j + 1) & (cap - 1);
				c[j] = t->c[i];
			}
		free(t->c);
		t->c = c;
		t->cap = cap;
	}
	size_t j = chash(k) & (t->cap - 1);
	while (t->c[j].used && memcmp(t->c[j].k, k, sizeof t->c[j].k))
		j = (j + 1) & (t->cap - 1);
	if (!t->c[j].used) {
		t->c[j].used = 1;
		memcpy(t->c[j].k, k, sizeof t->c[j].k);
		t->n++;
	}
	return &t->c[j];
}

static int is_name(const char *const *names, uint32_t nnames, uint32_t f, const char *const *list)
{
	const char *s = f < nnames ? names[f] : NULL;
	if (!s)
		return 0;
	for (; *list; list++)
		if (!strcmp(s, *list))
			return 1;
	return 0;
}

static const char *const send_names[] = { "MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend",
	"MPI_Isend", "MPI_Issend", "MPI_Ibsend", "MPI_Irsend", "MPI_Sendrecv",
	"MPI_Sendrecv_replace", NULL };
static const char *const recv_names[] = { "MPI_Recv", "MPI_Sendrecv", "MPI_Sendrecv_replace", NULL };
static const char *const irecv_names[] = { "MPI_Irecv", NULL };

/* For each position, the position of the send it received (SIZE_MAX for none). */
static size_t *match_messages(const dt_sync_event *ev, const ord_item *it, size_t n,
			      const char *const *names, uint32_t nnames)
{
	size_t *from = xmalloc((n ? n : 1) * sizeof *from);
	chans t = { 0 };
	/* requests of Irecvs: (proc, req) -> comm, in a small chan table keyed (proc, req, -1, -1) */
	chans reqs = { 0 };
	for (size_t i = 0; i < n; i++) {
		const dt_sync_event *x = &ev[it[i].id];
		from[i] = SIZE_MAX;
		if (x->phase == DT_SYNC_ENTER && x->dest >= 0 && is_name(names, nnames, x->func, send_names)) {
			int64_t k[4] = { x->comm, x->proc, x->dest, x->stag };
			chan *c = chan_get(&t, k);
			if (c->head + c->len == c->cap) {
				if (c->head) {
					memmove(c->fifo, c->fifo + c->head, c->len * sizeof *c->fifo);
					c->head = 0;
				} else {
					c->cap = c->cap ? c->cap * 2 : 8;
					c->fifo = xrealloc(c->fifo, c->cap * sizeof *c->fifo);
				}
			}
			c->fifo[c->head + c->len++] = i;
			continue;
		}
		if (x->phase == DT_SYNC_EXIT && x->req && is_name(names, nnames, x->func, irecv_names)) {
			int64_t k[4] = { x->proc, (int64_t)x->req, -1, -1 };
			chan *c = chan_get(&reqs, k);
			c->head = (size_t)(int64_t)x->comm + 1; /* the comm, kept in head */
			c->len = 1;
			continue;
		}
		int64_t comm = x->comm;
		int recv = x->phase == DT_SYNC_EXIT && is_name(names, nnames, x->func, recv_names);
		if (!recv && x->req && x->phase != DT_SYNC_ENTER) {
			int64_t k[4] = { x->proc, (int64_t)x->req, -1, -1 };
			chan *c = chan_get(&reqs, k);
			if (c->len) {
				recv = 1;
				if (comm == DT_SYNC_NONE)
					comm = (int64_t)c->head - 1;
				c->len = 0;
			}
		}
		if (!recv || x->src < 0 || x->rtag < 0)
			continue;
		int64_t k[4] = { comm, x->src, x->proc, x->rtag };
		chan *c = chan_get(&t, k);
		if (c->len) {
			from[i] = c->fifo[c->head++];
			c->len--;
		}
	}
	for (size_t i = 0; i < t.cap; i++)
		free(t.c[i].fifo);
	free(t.c);
	free(reqs.c);
	return from;
}

/* ---- the formats ------------------------------------------------------------------------------------ */

/* The call sites of the run being written (ord_write_sites), each escaped once for the text
 * rows and once for the JSON rows: rows may go to the raw output. */
static char **site_txt, **site_json;
static uint32_t nsite;

static void sites_free(void)
{
	for (uint32_t i = 0; i < nsite; i++) {
		free(site_txt[i]);
		free(site_json[i]);
	}
	free(site_txt);
	free(site_json);
	site_txt = site_json = NULL;
	nsite = 0;
}

void ord_write_sites(const char *const *text, uint32_t n)
{
	sites_free();
	if (!text || !n)
		return;
	site_txt = xcalloc(n, sizeof *site_txt);
	site_json = xcalloc(n, sizeof *site_json);
	nsite = n;
	for (uint32_t i = 0; i < n; i++) {
		if (!text[i])
			continue;
		dt_buf b = { 0 };
		esc_append(&b, text[i], strlen(text[i]), 0);
		buf_byte(&b, 0);
		site_txt[i] = (char *)b.p;
		dt_buf j = { 0 };
		esc_json_append(&j, text[i]);
		buf_byte(&j, 0);
		site_json[i] = (char *)j.p;
	}
}

/* " at SITE" (text) or ,"site":"SITE" (json) when x has a site. */
static void ob_site(obuf *o, const dt_sync_event *x, int json)
{
	if (x->site >= nsite || !site_txt[x->site])
		return;
	ob_s(o, json ? ",\"site\":\"" : " at ");
	ob_s(o, json ? site_json[x->site] : site_txt[x->site]);
	if (json)
		ob_c(o, '"');
}

/* The rows of the text, csv and json formats, one at a time (write.h's ord_write_head, _row,
 * _tail): what ord_write writes over an array and `difftrace order` as the filter releases. */
void ord_write_head(FILE *out, int fmt)
{
	if (fmt == ORD_FMT_TEXT)
		fprintf(out, "%8s %8s %20s %10s  %s\n", "index", "step", "ts", "adjust", "event");
	else if (fmt == ORD_FMT_CSV)
		fputs("index,step,ts,adjust,proc,thread,seq,function,phase,host,comm,dest,stag,src,rtag,root,"
		      "count,datatype,op,req,obj,objseq,team,tnum,csize,recorded_ts,disp,assert,lock,"
		      "digest,site\n", out);
	else if (fmt == ORD_FMT_JSON)
		fputs("[", out);
}

/* The function's name: nm when the caller escaped it already, else from names (mode as
 * ob_name's: 0 text, 1 JSON, 2 CSV). */
static void ob_func(obuf *o, const char *nm, const char *const *names, uint32_t nnames,
		    uint32_t f, int mode)
{
	if (nm)
		ob_s(o, nm);
	else
		ob_name(o, names, nnames, f, mode);
}

static void text_row(obuf *o, const dt_sync_event *x, const ord_item *it, uint64_t i, const char *nm,
		     const char *const *names, uint32_t nnames)
{
	ob_u64(o, i, 8);
	ob_c(o, ' ');
	ob_u64(o, it->step, 8);
	ob_c(o, ' ');
	ob_i64(o, it->ts, 0, 20);
	ob_c(o, ' ');
	ob_i64(o, it->adj, 1, 10);
	ob_s(o, "  ");
	ob_i64(o, x->proc, 0, 0);
	ob_c(o, '.');
	ob_i64(o, x->thread, 0, 0);
	ob_s(o, " #");
	ob_u64(o, x->seq, 0);
	ob_c(o, ' ');
	ob_func(o, nm, names, nnames, x->func, 0);
	ob_c(o, ' ');
	ob_s(o, phname(x));
	ob_args(o, x, 0);
	if (x->phase == DT_SYNC_ENTER)
		ob_site(o, x, 0);
	ob_c(o, '\n');
}

static void csv_row(obuf *o, const dt_sync_event *x, const ord_item *it, uint64_t i, const char *nm,
		    const char *const *names, uint32_t nnames)
{
	ob_u64(o, i, 0);
	ob_c(o, ',');
	ob_u64(o, it->step, 0);
	const int64_t a[] = { it->ts, it->adj, x->proc, x->thread, x->seq };
	for (size_t k = 0; k < sizeof a / sizeof *a; k++) {
		ob_c(o, ',');
		ob_i64(o, a[k], 0, 0);
	}
	ob_s(o, ",\"");
	ob_func(o, nm, names, nnames, x->func, 2);
	ob_s(o, "\",");
	ob_s(o, phname(x));
	const int64_t b[] = { x->host, x->comm, x->dest, x->stag, x->src, x->rtag, x->root,
			      x->count, x->datatype, x->op };
	for (size_t k = 0; k < sizeof b / sizeof *b; k++) {
		ob_c(o, ',');
		ob_i64(o, b[k], 0, 0);
	}
	const uint64_t u[] = { x->req, x->obj, x->objseq };
	for (size_t k = 0; k < sizeof u / sizeof *u; k++) {
		ob_c(o, ',');
		ob_u64(o, u[k], 0);
	}
	const int64_t c[] = { x->team, x->tnum, x->csize, x->ts, x->disp, x->rassert, x->lock };
	for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
		ob_c(o, ',');
		ob_i64(o, c[k], 0, 0);
	}
	ob_c(o, ',');
	if (x->digest) /* 64 bits in hex, as the text and JSON give it */
		ob_hex(o, x->digest, 16);
	ob_c(o, ',');
	if (x->site < nsite && site_txt[x->site]) { /* a CSV field: its quotes doubled */
		ob_c(o, '"');
		for (const char *q = site_txt[x->site]; *q; q++) {
			if (*q == '"')
				ob_c(o, '"');
			ob_c(o, *q);
		}
		ob_c(o, '"');
	}
	ob_c(o, '\n');
}

static void json_row(obuf *o, const dt_sync_event *x, const ord_item *it, uint64_t i, const char *nm,
		     const char *const *names, uint32_t nnames)
{
	ob_s(o, i ? ",\n{\"index\":" : "\n{\"index\":");
	ob_u64(o, i, 0);
	ob_s(o, ",\"step\":");
	ob_u64(o, it->step, 0);
	ob_s(o, ",\"ts\":");
	ob_i64(o, it->ts, 0, 0);
	ob_s(o, ",\"adjust\":");
	ob_i64(o, it->adj, 0, 0);
	ob_s(o, ",\"trace\":\"");
	ob_i64(o, x->proc, 0, 0);
	ob_c(o, '.');
	ob_i64(o, x->thread, 0, 0);
	ob_s(o, "\",\"seq\":");
	ob_u64(o, x->seq, 0);
	ob_s(o, ",\"function\":\"");
	ob_func(o, nm, names, nnames, x->func, 1);
	ob_s(o, "\",\"phase\":\"");
	ob_s(o, phname(x));
	ob_s(o, "\",\"recorded_ts\":");
	ob_i64(o, x->ts, 0, 0);
	ob_args(o, x, 1);
	ob_site(o, x, 1);
	ob_c(o, '}');
}

static void write_row(FILE *out, int fmt, const dt_sync_event *x, const ord_item *it,
		      uint64_t index, const char *nm, const char *const *names, uint32_t nnames)
{
	obuf o;
	o.out = out;
	o.n = 0;
	if (fmt == ORD_FMT_TEXT)
		text_row(&o, x, it, index, nm, names, nnames);
	else if (fmt == ORD_FMT_CSV)
		csv_row(&o, x, it, index, nm, names, nnames);
	else if (fmt == ORD_FMT_JSON)
		json_row(&o, x, it, index, nm, names, nnames);
	ob_flush(&o);
}

void ord_write_row(FILE *out, int fmt, const dt_sync_event *x, const ord_item *it, uint64_t index,
		   const char *const *names, uint32_t nnames)
{
	write_row(out, fmt, x, it, index, NULL, names, nnames);
}

char *ord_write_name(int fmt, const char *const *names, uint32_t nnames, uint32_t f)
{
	char *mem = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&mem, &len);
	if (!m)
		return NULL;
	obuf o = { m, 0, { 0 } };
	ob_name(&o, names, nnames, f, fmt == ORD_FMT_JSON ? 1 : fmt == ORD_FMT_CSV ? 2 : 0);
	ob_flush(&o);
	if (fclose(m)) {
		free(mem);
		return NULL;
	}
	dt_buf b = { 0 };
	esc_append(&b, mem, len, ESC_KEEP_NL);
	free(mem);
	buf_byte(&b, 0);
	return (char *)b.p;
}

void ord_write_row_named(FILE *out, int fmt, const dt_sync_event *x, const ord_item *it,
			 uint64_t index, const char *name)
{
	write_row(out, fmt, x, it, index, name, NULL, 0);
}

void ord_write_tail(FILE *out, int fmt)
{
	if (fmt == ORD_FMT_JSON)
		fputs("\n]\n", out);
}

static void chrome_ts(FILE *out, int64_t ns)
{
	/* microseconds with the nanoseconds kept */
	int64_t us = ns / 1000, rem = ns % 1000;
	if (rem < 0)
		us -= 1, rem += 1000;
	fprintf(out, "%" PRId64 ".%03" PRId64, us, rem);
}

static int write_chrome(FILE *out, const dt_sync_event *ev, const ord_item *it, size_t n,
			const char *const *names, uint32_t nnames, ord_more_fn more, void *arg,
			dt_err *e)
{
	size_t *from = match_messages(ev, it, n, names, nnames);
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
	int first = 1;
	/* one row per trace: name the processes and threads, once each */
	chans seen = { 0 };
	for (size_t i = 0; i < n; i++) {
		const dt_sync_event *x = &ev[it[i].id];
		int64_t kt[4] = { x->proc, x->thread, -2, -2 }, kp[4] = { x->proc, -3, -3, -3 };
		chan *c = chan_get(&seen, kt);
		if (c->len)
			continue;
		c->len = 1;
		fprintf(out, "%s\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%" PRId32 ",\"tid\":%" PRId32
			",\"args\":{\"name\":\"%" PRId32 ".%" PRId32 "\"}}", first ? "" : ",", x->proc, x->thread,
			x->proc, x->thread);
		first = 0;
		c = chan_get(&seen, kp);
		if (c->len)
			continue;
		c->len = 1;
		fprintf(out, ",\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%" PRId32
			",\"args\":{\"name\":\"process %" PRId32 "\"}}", x->proc, x->proc);
	}
	free(seen.c);
	for (size_t i = 0; i < n; i++) {
		const dt_sync_event *x = &ev[it[i].id];
		const char *ph = x->phase == DT_SYNC_ENTER ? "B" : x->phase == DT_SYNC_EXIT ? "E" : "i";
		fprintf(out, "%s\n{\"ph\":\"%s\",\"name\":\"", first ? "" : ",", ph);
		first = 0;
		put_name(out, names, nnames, x->func, 1);
		fprintf(out, "\",\"cat\":\"sync\",\"pid\":%" PRId32 ",\"tid\":%" PRId32 ",\"ts\":", x->proc,
			x->thread);
		chrome_ts(out, it[i].ts);
		if (*ph == 'i')
			fputs(",\"s\":\"t\"", out);
		fprintf(out, ",\"args\":{\"order\":%zu,\"step\":%" PRIu64 ",\"adjust\":%" PRId64, i, it[i].step,
			it[i].adj);
		put_args(out, x, 1);
		fputs("}}", out);
		if (from[i] != SIZE_MAX) {
			/* the message: a flow from the send's entry to this completion */
			size_t s = from[i];
			const dt_sync_event *y = &ev[it[s].id];
			fprintf(out, ",\n{\"ph\":\"s\",\"name\":\"message\",\"cat\":\"mpi\",\"id\":%zu,\"pid\":%" PRId32
				",\"tid\":%" PRId32 ",\"ts\":", i, y->proc, y->thread);
			chrome_ts(out, it[s].ts);
			fprintf(out, "},\n{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"message\",\"cat\":\"mpi\",\"id\":%zu,"
				"\"pid\":%" PRId32 ",\"tid\":%" PRId32 ",\"ts\":", i, x->proc, x->thread);
			chrome_ts(out, it[i].ts);
			fputs("}", out);
		}
	}
	free(from);
	if (more && more(out, first, arg, e))
		return -1;
	fputs("\n]}\n", out);
	return 0;
}

int ord_write(FILE *out, int fmt, const dt_sync_event *ev, const ord_item *it, size_t n,
	      const char *const *names, uint32_t nnames, dt_err *e)
{
	return ord_write_more(out, fmt, ev, it, n, names, nnames, NULL, NULL, e);
}

int ord_write_more(FILE *out, int fmt, const dt_sync_event *ev, const ord_item *it, size_t n,
		   const char *const *names, uint32_t nnames, ord_more_fn more, void *arg,
		   dt_err *e)
{
	switch (fmt) {
	case ORD_FMT_TEXT:
	case ORD_FMT_CSV:
	case ORD_FMT_JSON:
		ord_write_head(out, fmt);
		for (size_t i = 0; i < n; i++)
			ord_write_row(out, fmt, &ev[it[i].id], &it[i], i, names, nnames);
		ord_write_tail(out, fmt);
		break;
	case ORD_FMT_CHROME:
		if (write_chrome(out, ev, it, n, names, nnames, more, arg, e))
			return -1;
		break;
	default: return dt_errf(e, DT_EUSAGE, "unknown output format %d", fmt);
	}
	if (fflush(out) || ferror(out))
		return dt_errf(e, DT_EDATA, "cannot write the order: %s", "write error");
	return 0;
}
