/* write.c: the output formats of write.h. The Chrome format pairs each receive's completion
 * with its send by the same counting as the point-to-point rules (the n-th receive of a
 * (communicator, source, destination, tag) channel gets the n-th send), on the order given. */
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

/* mode 0: text (control characters as \xNN), 1: a JSON string with its quotes (bytes that are
 * not UTF-8 as U+FFFD, so that the file stays JSON), 2: CSV field body */
static void put_name(FILE *out, const char *const *names, uint32_t nnames, uint32_t f, int mode)
{
	const char *s = f < nnames ? names[f] : NULL;
	if (!s) {
		fprintf(out, mode == 1 ? "\"function#%" PRIu32 "\"" : "function#%" PRIu32, f);
		return;
	}
	if (mode == 1) {
		esc_json(s, out);
		return;
	}
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (mode == 1 && (c == '"' || c == '\\'))
			fprintf(out, "\\%c", c);
		else if (mode == 1 && c < 32)
			fprintf(out, "\\u%04x", c);
		else if (mode == 2 && c == '"')
			fputs("\"\"", out);
		else if (mode != 1 && (c < 32 || c == 127))
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
}

/* The fields a call has, as name=value (text) or "name":value (json). */
static void put_args(FILE *out, const dt_sync_event *x, int json)
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
		if (a[i].hex == 2) /* 64 bits: a string in JSON, which a double cannot hold */
			fprintf(out, json ? ",\"%s\":\"%016" PRIx64 "\"" : " %s=%016" PRIx64, a[i].name,
				(uint64_t)a[i].v);
		else if (json)
			fprintf(out, ",\"%s\":%" PRId64, a[i].name, a[i].v);
		else if (a[i].hex)
			fprintf(out, " %s=0x%" PRIx64, a[i].name, (uint64_t)a[i].v);
		else
			fprintf(out, " %s=%" PRId64, a[i].name, a[i].v);
	}
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

static const char *const *site_text;
static uint32_t nsite_text;

void ord_write_sites(const char *const *text, uint32_t n)
{
	site_text = text;
	nsite_text = n;
}

/* " at SITE" (text) or ,"site":"SITE" (json) when x has a site. */
static void put_site(FILE *out, const dt_sync_event *x, int json)
{
	if (x->site >= nsite_text || !site_text[x->site])
		return;
	fputs(json ? ",\"site\":\"" : " at ", out);
	const char *const one[1] = { site_text[x->site] };
	put_name(out, one, 1, 0, json);
	if (json)
		fputc('"', out);
}

static void write_text(FILE *out, const dt_sync_event *ev, const ord_item *it, size_t n,
		       const char *const *names, uint32_t nnames)
{
	fprintf(out, "%8s %8s %20s %10s  %s\n", "index", "step", "ts", "adjust", "event");
	for (size_t i = 0; i < n; i++) {
		const dt_sync_event *x = &ev[it[i].id];
		fprintf(out, "%8zu %8" PRIu64 " %20" PRId64 " %+10" PRId64 "  %" PRId32 ".%" PRId32 " #%" PRIu32 " ",
			i, it[i].step, it[i].ts, it[i].adj, x->proc, x->thread, x->seq);
		put_name(out, names, nnames, x->func, 0);
		fprintf(out, " %s", phname(x));
		put_args(out, x, 0);
		if (x->phase == DT_SYNC_ENTER)
			put_site(out, x, 0);
		fputc('\n', out);
	}
}

static void write_csv(FILE *out, const dt_sync_event *ev, const ord_item *it, size_t n,
		      const char *const *names, uint32_t nnames)
{
	fputs("index,step,ts,adjust,proc,thread,seq,function,phase,host,comm,dest,stag,src,rtag,root,"
	      "count,datatype,op,req,obj,objseq,team,tnum,csize,recorded_ts\n", out);
	for (size_t i = 0; i < n; i++) {
		const dt_sync_event *x = &ev[it[i].id];
		fprintf(out, "%zu,%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRId32 ",%" PRId32 ",%" PRIu32 ",\"", i,
			it[i].step, it[i].ts, it[i].adj, x->proc, x->thread, x->seq);
		put_name(out, names, nnames, x->func, 2);
		fprintf(out,
			"\",%s,%" PRId32 ",%" PRId32 ",%" PRId32 ",%" PRId32 ",%" PRId32 ",%" PRId32 ",%" PRId32
			",%" PRId64 ",%" PRId32 ",%" PRId32 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRId32 ",%" PRId32
			",%" PRId32 ",%" PRId64 "\n",
			phname(x), x->host, x->comm, x->dest, x->stag, x->src, x->rtag, x->root, x->count,
			x->datatype, x->op, x->req, x->obj, x->objseq, x->team, x->tnum, x->csize, x->ts);
	}
}

static void write_json(FILE *out, const dt_sync_event *ev, const ord_item *it, size_t n,
		       const char *const *names, uint32_t nnames)
{
	fputs("[", out);
	for (size_t i = 0; i < n; i++) {
		const dt_sync_event *x = &ev[it[i].id];
		fprintf(out, "%s\n{\"index\":%zu,\"step\":%" PRIu64 ",\"ts\":%" PRId64 ",\"adjust\":%" PRId64
			",\"trace\":\"%" PRId32 ".%" PRId32 "\",\"seq\":%" PRIu32 ",\"function\":",
			i ? "," : "", i, it[i].step, it[i].ts, it[i].adj, x->proc, x->thread, x->seq);
		put_name(out, names, nnames, x->func, 1);
		fprintf(out, ",\"phase\":\"%s\",\"recorded_ts\":%" PRId64, phname(x), x->ts);
		put_args(out, x, 1);
		put_site(out, x, 1);
		fputs("}", out);
	}
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
		fprintf(out, "%s\n{\"ph\":\"%s\",\"name\":", first ? "" : ",", ph);
		first = 0;
		put_name(out, names, nnames, x->func, 1);
		fprintf(out, ",\"cat\":\"sync\",\"pid\":%" PRId32 ",\"tid\":%" PRId32 ",\"ts\":", x->proc,
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
	case ORD_FMT_TEXT: write_text(out, ev, it, n, names, nnames); break;
	case ORD_FMT_CSV: write_csv(out, ev, it, n, names, nnames); break;
	case ORD_FMT_JSON: write_json(out, ev, it, n, names, nnames); break;
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
