/* fuzz_rules.c: the rule-file language (difftrace-rules(5)) on arbitrary text. A file either
 * parses or gets an error naming it with a line and a column; a file that parses is bound to
 * the function names of a small synthetic run (every pattern of tests/synth_sync.h, two
 * processes of two threads, events arriving out of order), and the run goes through the
 * causality filter under every policy, the held queues are explained, and what was released is
 * judged by the independent checker: whatever the rules say, nothing may crash, every event
 * comes out at most once, and the checker accepts what the filter released. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/synth_sync.h"
#include "order/check.h"
#include "order/filter.h"
#include "order/rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static synth run;
static uint64_t *arrival;

static void make_run(void)
{
	synth_init(&run, 2, 2, 1, 2000, 50, 11);
	for (int i = 0; i < 12; i++)
		synth_round(&run, -1);
	arrival = malloc(run.n * sizeof *arrival);
	synth_arrival(&run, 0, run.n, 5000, arrival);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!arrival)
		make_run();
	ord_rules *r = ord_rules_new();
	dt_err e;
	dt_err_clear(&e);
	if (ord_rules_parse(r, (const char *)data, size, "f.rules", &e)) {
		char b[512];
		dt_err_format(&e, b, sizeof b);
		if (strncmp(b, "f.rules:", 8) != 0)
			abort(); /* an error that does not say where */
		ord_rules_free(r);
		return 0;
	}
	if (ord_rules_bind(r, synth_names, SY_NFUNC, &e)) {
		ord_rules_free(r);
		return 0;
	}
	dt_sync_event *in = malloc(run.n * sizeof *in);
	for (size_t i = 0; i < run.n; i++)
		in[i] = run.ev[arrival[i]];
	for (int p = 0; p < 3; p++) {
		ord_filter_opts o = { p, NULL, 0, 256, 0 };
		ord_item *it = NULL;
		size_t nout = 0;
		char *held = NULL;
		dt_err_clear(&e);
		if (ord_order(r, &o, in, run.n, &it, &nout, &held, &e) == 0) {
			if (nout > run.n)
				abort();
			uint8_t *seen = calloc(run.n, 1);
			uint64_t *ord = malloc((nout ? nout : 1) * sizeof *ord);
			int64_t *ts = malloc(run.n * sizeof *ts);
			for (size_t i = 0; i < run.n; i++)
				ts[i] = in[i].ts;
			for (size_t i = 0; i < nout; i++) {
				if (it[i].id >= run.n || seen[it[i].id]++)
					abort(); /* an event out twice, or one never pushed */
				ord[i] = it[i].id;
				ts[it[i].id] = it[i].ts;
			}
			dt_err_clear(&e);
			if (ord_check(r, in, run.n, ord, nout, p == ORD_TIMESTAMP ? ts : NULL, &e))
				abort(); /* the filter and the checker disagree */
			free(seen);
			free(ord);
			free(ts);
		}
		free(it);
		free(held);
	}
	free(in);
	ord_rules_free(r);
	return 0;
}
