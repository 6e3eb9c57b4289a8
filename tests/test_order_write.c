/* test_order_write.c: the output formats of an order (text, csv, json, chrome): their shape, the
 * MPI messages of the Chrome format as flow arrows from each send to its receive, and escaped
 * names. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "order/filter.h"
#include "order/rules.h"
#include "order/write.h"
#include "synth_sync.h"
#include "util/esc.h"

static char *render(int fmt, const dt_sync_event *ev, const ord_item *it, size_t n,
		    const char *const *names, uint32_t nnames)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	dt_err e;
	dt_err_clear(&e);
	CHECK_EQ_INT(ord_write(f, fmt, ev, it, n, names, nnames, &e), 0);
	fclose(f);
	return buf;
}

static size_t count(const char *s, const char *what)
{
	size_t k = 0;
	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		k++;
	return k;
}

int main(void)
{
	CHECK_EQ_INT(ord_format_parse("chrome"), ORD_FMT_CHROME);
	CHECK_EQ_INT(ord_format_parse("dot"), -1);
	ord_rules *r = ord_rules_new();
	dt_err e;
	dt_err_clear(&e);
	if (ord_rules_load_default(r, &e) || ord_rules_bind(r, synth_names, SY_NFUNC, &e)) {
		fprintf(stderr, "cannot load the shipped rules\n");
		return 1;
	}
	synth s;
	synth_init(&s, 2, 2, 1, 20000, 0, 5);
	synth_round(&s, 0);  /* 2 messages */
	synth_round(&s, 1);  /* 2, through Irecv + Waitall */
	synth_round(&s, 2);  /* 2, through Irecv(ANY_SOURCE) + Wait */
	synth_round(&s, 3);  /* a barrier */
	synth_round(&s, 11); /* a region with a critical section */
	ord_filter_opts o = { ORD_TIMESTAMP, NULL, 0, 0, 0 };
	ord_item *it;
	size_t n;
	CHECK_EQ_INT(ord_order(r, &o, s.ev, s.n, &it, &n, NULL, &e), 0);
	CHECK_EQ_INT(n, s.n);

	char *t = render(ORD_FMT_TEXT, s.ev, it, n, synth_names, SY_NFUNC);
	CHECK(strstr(t, "0.0 #0 MPI_Send enter comm=0 dest=1 stag=5 count=4\n") != NULL);
	CHECK(strstr(t, "MPI_Waitall done req=0x1 src=1 rtag=7") || strstr(t, "MPI_Waitall done src=1 rtag=7 req=0x1"));
	CHECK_EQ_INT(count(t, "\n"), n + 1);
	free(t);

	t = render(ORD_FMT_CSV, s.ev, it, n, synth_names, SY_NFUNC);
	CHECK_EQ_INT(count(t, "\n"), n + 1);
	CHECK(strncmp(t, "index,step,ts,adjust,proc,thread,seq,function,phase,", 52) == 0);
	/* every line has the header's 31 fields (the site's text has no comma here) */
	size_t bad = 0;
	for (char *line = t; *line;) {
		char *nl = strchr(line, '\n');
		size_t commas = 0;
		for (char *p = line; p < nl; p++)
			commas += *p == ',';
		bad += commas != 30;
		line = nl + 1;
	}
	CHECK_EQ_INT(bad, 0);
	free(t);

	t = render(ORD_FMT_JSON, s.ev, it, n, synth_names, SY_NFUNC);
	CHECK(t[0] == '[');
	CHECK_EQ_INT(count(t, "\"index\":"), n);
	CHECK_EQ_INT(count(t, "{"), count(t, "}"));
	free(t);

	t = render(ORD_FMT_CHROME, s.ev, it, n, synth_names, SY_NFUNC);
	CHECK(strncmp(t, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", 39) == 0);
	CHECK_EQ_INT(count(t, "\"ph\":\"s\""), 6);
	CHECK_EQ_INT(count(t, "\"ph\":\"f\""), 6);
	CHECK_EQ_INT(count(t, "\"name\":\"thread_name\""), 4);
	CHECK_EQ_INT(count(t, "\"name\":\"process_name\""), 2);
	CHECK_EQ_INT(count(t, "{"), count(t, "}"));
	/* a flow starts on the sender's row and ends on the receiver's, never backwards in time */
	for (const char *p = t; (p = strstr(p, "\"ph\":\"s\"")); p++) {
		const char *q = strstr(p, "\"ph\":\"f\"");
		long ps, pf;
		double ts, tf;
		CHECK(q != NULL);
		if (!q)
			break;
		CHECK(sscanf(strstr(p, "\"pid\":"), "\"pid\":%ld", &ps) == 1);
		CHECK(sscanf(strstr(q, "\"pid\":"), "\"pid\":%ld", &pf) == 1);
		CHECK(sscanf(strstr(p, "\"ts\":"), "\"ts\":%lf", &ts) == 1);
		CHECK(sscanf(strstr(q, "\"ts\":"), "\"ts\":%lf", &tf) == 1);
		CHECK(ps != pf);
		CHECK(ts < tf);
	}
	free(t);

	/* names from traces are escaped */
	const char *odd[] = { "we\"ird\x01name" };
	dt_sync_event one = synth_tmpl();
	ord_item oi = { 0, 0, 5, 0 };
	t = render(ORD_FMT_TEXT, &one, &oi, 1, odd, 1);
	CHECK(strstr(t, "we\"ird\\x01name enter") != NULL);
	free(t);
	t = render(ORD_FMT_JSON, &one, &oi, 1, odd, 1);
	CHECK(strstr(t, "\"function\":\"we\\\"ird\\u0001name\"") != NULL);
	free(t);
	t = render(ORD_FMT_CSV, &one, &oi, 1, odd, 1);
	CHECK(strstr(t, ",\"we\"\"ird\\x01name\",") != NULL);
	free(t);
	one.func = 7;
	t = render(ORD_FMT_TEXT, &one, &oi, 1, odd, 1);
	CHECK(strstr(t, "function#7 enter") != NULL);
	free(t);

	/* a row written with its name made once (ord_write_name, for the raw output) is the
	 * row of ord_write_row through the escaping stream, in each format: a C1 control and a
	 * byte that is not UTF-8 too, which only the stream escaped before (in JSON, as U+FFFD) */
	const char *c1[] = { "odd\xc2\x9b[2J\xffname\x1b\"" };
	one.func = 0;
	one.count = -7;
	one.req = 0xfedcba9876543210ull;
	ord_item ri = { 0, 3, -12, -4 };
	const int fmts[] = { ORD_FMT_TEXT, ORD_FMT_CSV, ORD_FMT_JSON };
	for (int k = 0; k < 3; k++) {
		char *a = NULL, *b = NULL;
		size_t la = 0, lb = 0;
		FILE *fa = open_memstream(&a, &la), *fb = open_memstream(&b, &lb);
		FILE *safe = esc_stream(fa);
		ord_write_row(safe, fmts[k], &one, &ri, 41, c1, 1);
		fclose(safe);
		fclose(fa);
		char *nm = ord_write_name(fmts[k], c1, 1, 0);
		CHECK(nm != NULL);
		ord_write_row_named(fb, fmts[k], &one, &ri, 41, nm);
		fclose(fb);
		CHECK(la > 0 && la == lb && !memcmp(a, b, la));
		CHECK(strstr(b, "\\u009b") != NULL);
		/* JSON stays JSON: a byte that is not UTF-8 is U+FFFD there, \xff elsewhere */
		if (fmts[k] == ORD_FMT_JSON)
			CHECK(strstr(b, "\\ufffd") != NULL && !strstr(b, "\\xff"));
		else
			CHECK(strstr(b, "\\xff") != NULL);
		free(nm);
		free(a);
		free(b);
	}

	free(it);
	synth_free(&s);
	ord_rules_free(r);
	CHECK_DONE();
}
