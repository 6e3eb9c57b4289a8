/* cli_sync.c: `difftrace sync`, the sync events of a run (difftrace-sync(5)), and
 * `difftrace hang`, where each thread of a stopped run is and who waits for whom: the report
 * of analysis/hangdiag.h, as text or JSON. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/cli_syncrun.h"
#include "util/esc.h"
#include "import/sync_file.h"
#include "analysis/hangdiag.h"
#include "order/args.h"
#include "order/filter.h"
#include "order/hang.h"
#include "store/store_sync.h"
#include "util/ptrange.h"
#include "util/util.h"

static const char sync_help[] =
	"usage: difftrace sync [--format text|csv|json] RUN [P.T]\n"
	"\n"
	"Print the sync events of RUN (or of its trace P.T): the entry ('>') and exit ('<') of\n"
	"every MPI and OpenMP synchronisation call that libdifftrace-sync.so recorded, and one\n"
	"'=' line per request a Waitall, Waitsome or Testall completed; with their arguments\n"
	"and, on an entry, where the program made the call (file:line (function)).\n"
	"Peers are MPI_COMM_WORLD ranks, communicators run-wide numbers (0 WORLD, 1 SELF).\n"
	"\n"
	"  --format FMT   text (default), csv or json\n"
	"  -h, --help     this help\n";

static const char hang_help[] =
	"usage: difftrace hang [--format text|json] [--normal RUN] [--rules FILE] [--max-held N]\n"
	"                      [--whole] RUN|DIR\n"
	"\n"
	"First the most likely cause: the threads the ranking (difftrace rank) would put first,\n"
	"and why: one that called MPI_Abort (or an MPI error aborted); with --normal, those\n"
	"whose calls depart from the normal run's (an argument every thread making the call\n"
	"changed alike, another count everywhere, is a changed input: named, and left out);\n"
	"the members of a collective unlike the rest\n"
	"(another collective, root, op or count); one that others wait for and that waits for\n"
	"nobody; in a wait-for cycle, a blocked receive and the sender of its near-match (a\n"
	"tag, peer or size mismatch), tied, else the odd ones out; else the most waited-for;\n"
	"the call it names with where the program made it.\n"
	"Then where each thread of RUN was when it ended (a hang stopped with difftrace-record\n"
	"--timeout, a kill, a crash or an abort), or of the recording in DIR (difftrace-record's\n"
	"output, while the program runs or after it ended, not imported: its sync record as far\n"
	"as it is written; no store needed), from its sync events: the threads grouped by\n"
	"the call they are inside and which occurrence of it (STAT-like), with where the\n"
	"program made it (file:line (function), from its debug information), the wait-for graph\n"
	"between threads (a receive waits for its source, a collective for the members that\n"
	"have not entered it, a lock for its holder, a barrier for the team), its cycles, the\n"
	"mismatches (a blocked receive, and a send nobody received that is alike but for its\n"
	"tag, peer or count: '2.0 waits for tag 11 from 3; 3.0 sent tag 10 to 2'; for a\n"
	"receive whose source and tag the record lacks, as OTF2's hung one, any send to its\n"
	"process), and\n"
	"the calls that can never complete: the completion of every open call is put through\n"
	"the causality filter after the run's events, and those the ordering rules still hold\n"
	"at the end are listed with the rule that holds them (a receive whose send never\n"
	"happened, a collective some members never entered, a lock never released).\n"
	"The events stream through the analysis twice, a chunk per thread at a time: memory for\n"
	"what the report keeps (open calls, requests, unreceived sends, the runs of collectives\n"
	"alike) and the events the causality filter holds, not for the record.\n"
	"Exit status 0 also when there is a deadlock: the report is the result.\n"
	"\n"
	"  --format FMT   text (default) or json\n"
	"  --normal RUN   a normal run of the same program, whose sync record the cause is\n"
	"                 compared with\n"
	"  --rules FILE   the ordering rules (difftrace-rules(5)); default: the shipped ones\n"
	"  --max-held N   the causality filter's bound on held events (default 1048576): rules\n"
	"                 that hold more are reported as never releasing\n"
	"  --whole        read the whole record (and the normal run's) at once, as before the\n"
	"                 report streamed (memory for every event): the same report, to check\n"
	"                 the streamed one\n"
	"  -h, --help     this help\n";

static const char *fname(store *s, uint32_t f)
{
	const char *n = store_func_name(s, f);
	return n ? n : "?";
}

int cmd_sync(cli *c, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "format", required_argument, 0, 'f' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	int fmt = OUT_TEXT, o, r;
	while ((r = cli_getopt(argc, argv, ":h", lo, &o, "sync", sync_help)) == 0 && o != -1)
		if (o == 'f' && (fmt = cli_out_format(optarg)) < 0)
			return cli_usage("sync", "unknown format '%s' (text, csv, json)", optarg);
	if (r == CLI_HELP_DONE)
		return 0;
	if (r)
		return r;
	if (argc - optind < 1 || argc - optind > 2)
		return cli_usage("sync", "needs RUN and at most one P.T");
	int p = -1, t = -1;
	if (argc - optind == 2 && cli_parse_pt(argv[optind + 1], &p, &t))
		return cli_usage("sync", "'%s' is not a trace: write P.T, e.g. 0.0 or 3.1",
				 argv[optind + 1]);
	dt_err e;
	dt_err_clear(&e);
	store *s = NULL;
	store_run run = { 0 };
	dt_sync_event *ev = NULL;
	size_t n = 0;
	store_sites sites = { 0 };
	if (cli_open_run(c, argv[optind], &s, &run, &e) || store_sync_list(s, run.id, &ev, &n, &e) ||
	    store_sync_sites(s, run.id, &sites, &e)) {
		free(ev);
		store_run_free(&run);
		store_close(s);
		return cli_fail(&e);
	}
	/* times from the first event of the host, so that one host's threads line up */
	int64_t t0[64];
	for (size_t i = 0; i < 64; i++)
		t0[i] = INT64_MAX;
	for (size_t i = 0; i < n; i++) {
		int h = ev[i].host >= 0 && ev[i].host < 64 ? ev[i].host : 63;
		if (ev[i].ts < t0[h])
			t0[h] = ev[i].ts;
	}
	size_t shown = 0;
	if (fmt == OUT_TEXT) {
		cli_site_note(&sites);
		printf("%-8s %6s %2s %14s  %-26s %s\n", "P.T", "SEQ", "", "TIME(s)", "CALL",
		       "ARGUMENTS");
	}
	else if (fmt == OUT_CSV)
		puts("proc,thread,seq,phase,ts,call,comm,dest,stag,src,rtag,root,count,datatype,op,"
		     "req,obj,objseq,team,tnum,disp,assert,lock,digest,site_file,site_line,"
		     "site_function");
	else
		printf("[");
	for (size_t i = 0; i < n; i++) {
		const dt_sync_event *v = &ev[i];
		if (p >= 0 && (v->proc != p || v->thread != t))
			continue;
		const char *name = fname(s, v->func);
		if (fmt == OUT_TEXT) {
			char pt[32], a[512];
			int h = v->host >= 0 && v->host < 64 ? v->host : 63;
			/* ts >= t0[h], but a corrupt time far from the others overflows a signed
			 * difference: the unsigned one is exact */
			uint64_t rel = (uint64_t)v->ts - (uint64_t)t0[h];
			snprintf(pt, sizeof pt, "%d.%d", v->proc, v->thread);
			ord_event_args(v, a, sizeof a);
			printf("%-8s %6" PRIu32 " %2s %4" PRIu64 ".%09" PRIu64 "  ", pt, v->seq,
			       v->phase == DT_SYNC_ENTER ? ">" : v->phase == DT_SYNC_EXIT ? "<" : "=",
			       rel / 1000000000, rel % 1000000000);
			esc_fputs(name, stdout);
			printf("%*s%s", (int)(26 - (strlen(name) < 26 ? strlen(name) : 26)), "", a);
			/* where: on the entry, which names the call */
			if (v->phase == DT_SYNC_ENTER)
				cli_site_text(&sites, v->site);
			putchar('\n');
		} else if (fmt == OUT_CSV) {
			printf("%d,%d,%" PRIu32 ",%u,%" PRId64 ",", v->proc, v->thread, v->seq,
			       v->phase, v->ts);
			cli_csv_str(name);
			printf(",%d,%d,%d,%d,%d,%d,%" PRId64 ",%d,%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64
			       ",%d,%d,%" PRId64 ",%d,%d,",
			       v->comm, v->dest, v->stag, v->src, v->rtag, v->root, v->count,
			       v->datatype, v->op, v->req, v->obj, v->objseq, v->team, v->tnum,
			       v->disp, v->rassert, v->lock);
			/* the digest in hex (16 digits), empty when none */
			if (v->digest)
				printf("%016" PRIx64, v->digest);
			putchar(',');
			const store_site *site = store_site_get(&sites, v->site);
			cli_csv_str(site ? site->file : "");
			printf(",%u,", site ? site->line : 0);
			cli_csv_str(site ? site->func : "");
			putchar('\n');
		} else {
			printf("%s\n {\"proc\": %d, \"thread\": %d, \"seq\": %" PRIu32
			       ", \"phase\": \"%s\", \"ts\": %" PRId64 ", \"call\": ",
			       shown ? "," : "", v->proc, v->thread, v->seq,
			       v->phase == DT_SYNC_ENTER ? "enter" : v->phase == DT_SYNC_EXIT ? "exit"
											: "done",
			       v->ts);
			cli_json_str(name);
			printf(", \"comm\": %d, \"dest\": %d, \"stag\": %d, \"src\": %d, \"rtag\": %d,"
			       " \"root\": %d, \"count\": %" PRId64 ", \"datatype\": %d, \"op\": %d,"
			       " \"req\": %" PRIu64 ", \"obj\": %" PRIu64 ", \"objseq\": %" PRIu64
			       ", \"team\": %d, \"tnum\": %d, \"disp\": %" PRId64
			       ", \"assert\": %d, \"lock\": %d",
			       v->comm, v->dest, v->stag, v->src, v->rtag, v->root, v->count,
			       v->datatype, v->op, v->req, v->obj, v->objseq, v->team, v->tnum,
			       v->disp, v->rassert, v->lock);
			/* hex in a string: 64 bits do not fit a JSON reader's double */
			if (v->digest)
				printf(", \"digest\": \"%016" PRIx64 "\"", v->digest);
			else
				printf(", \"digest\": null");
			cli_site_json(&sites, v->site);
			printf("}");
		}
		shown++;
	}
	if (fmt == OUT_JSON)
		printf("%s]\n", shown ? "\n" : "");
	free(ev);
	store_sites_free(&sites);
	int rc = 0;
	if (!shown && fmt == OUT_TEXT) {
		char en[512]; /* a name is at most 64 bytes, 6 once escaped */
		esc_str(run.name, en, sizeof en);
		if (p >= 0)
			fprintf(stderr, "difftrace sync: trace %d.%d of run '%s' has no sync events\n",
				p, t, en);
		else
			fprintf(stderr,
				"difftrace sync: run '%s' has no sync events (record it with "
				"difftrace-record, without --no-sync)\n",
				en);
		rc = 1;
	}
	store_run_free(&run);
	store_close(s);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "difftrace: cannot write output\n");
		return 1;
	}
	return rc;
}

static char *pts_of(const hang_report *r, const size_t *idx, size_t n)
{
	if (n == 1) {
		char b[40];
		snprintf(b, sizeof b, "%d.%d", r->threads[idx[0]].proc, r->threads[idx[0]].thread);
		return xstrdup(b);
	}
	ptr_pt *v = xmalloc((n ? n : 1) * sizeof *v);
	for (size_t i = 0; i < n; i++)
		v[i] = (ptr_pt){ (uint32_t)r->threads[idx[i]].proc,
				 (uint32_t)r->threads[idx[i]].thread };
	char *s = ptr_format(v, n);
	free(v);
	return s;
}

static void where_text(store *s, const dt_sync_event *ev, const hang_thread *h, const char *pfx)
{
	char b[32];
	if (h->state == HANG_FINISHED) {
		printf("%sfinished (returned from MPI_Finalize)", pfx);
		return;
	}
	if (h->state == HANG_OUTSIDE) {
		printf("%snot in a recorded call", pfx);
		if (h->func) {
			printf(" (after ");
			esc_fputs(fname(s, h->func), stdout);
			printf(", %s)", ordinal(h->occurrence, b, sizeof b));
		}
		return;
	}
	(void)ev;
	printf("%sin ", pfx);
	esc_fputs(fname(s, h->func), stdout);
	printf(" (%s)", ordinal(h->occurrence, b, sizeof b));
}

/* A rule's place "dir/file.rules:12" as "file.rules:12". */
static const char *base_of(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* What hang's two forms print: the report of a run (or a recording in progress). */
struct hang_view {
	store *s;
	const char *arg;          /* the RUN or DIR given */
	const store_run *run;
	const char *live;         /* a recording in progress, imported privately; NULL for a run */
	const char *fl;           /* the run's flags, as text */
	const hang_diag *d;       /* the report (analysis/hangdiag.h) */
	const dt_sync_event *ev;  /* d's events, */
	const hang_report *rep;   /* its report, */
	const store_sites *sites; /* and where the calls were made */
};

static void cause_json(const struct hang_view *hv)
{
	const hang_cause *c = &hv->d->cause;
	printf("{\"why\": \"%s\", \"pts\": [", hang_cause_name(c->why));
	for (size_t i = 0; i < c->n; i++) {
		const hang_thread *h = &hv->rep->threads[c->threads[i]];
		printf("%s\"%d.%d\"", i ? ", " : "", h->proc, h->thread);
	}
	printf("], \"text\": ");
	cli_json_str(hv->d->cause_text);
	cli_site_json(hv->sites, hang_cause_site(hv->rep, hv->ev, &hv->d->cause));
	printf(", \"common_args\": ");
	if (hv->d->args_text[0]) {
		cli_json_str(hv->d->args_text);
	} else {
		printf("null");
	}
	printf("}");
}

/* The site of the call thread h is in (or its last call), 0 when none. */
static uint32_t thread_site(const struct hang_view *hv, const hang_thread *h)
{
	return h->func ? hv->ev[h->entry].site : 0;
}

/* The sites of a group's calls: " at SITE" when they share one, else a line per site with
 * its threads. */
static void group_sites(const struct hang_view *hv, const hang_group *g)
{
	const hang_report *r = hv->rep;
	uint32_t first = thread_site(hv, &r->threads[g->threads[0]]);
	size_t k = 1;
	while (k < g->n && thread_site(hv, &r->threads[g->threads[k]]) == first)
		k++;
	if (k == g->n) {
		cli_site_text(hv->sites, first);
		putchar('\n');
		return;
	}
	putchar('\n');
	size_t *idx = xmalloc(g->n * sizeof *idx), *done = xcalloc(g->n, sizeof *done);
	for (size_t i = 0; i < g->n; i++) {
		if (done[i])
			continue;
		uint32_t site = thread_site(hv, &r->threads[g->threads[i]]);
		size_t m = 0;
		for (size_t j = i; j < g->n; j++)
			if (!done[j] && thread_site(hv, &r->threads[g->threads[j]]) == site) {
				done[j] = 1;
				idx[m++] = g->threads[j];
			}
		char *pts = pts_of(r, idx, m);
		printf("    %-18s", pts);
		if (store_site_get(hv->sites, site))
			cli_site_text(hv->sites, site);
		else
			printf(" at an unknown site");
		putchar('\n');
		free(pts);
	}
	free(idx);
	free(done);
}

static void hang_json(const struct hang_view *hv)
{
	store *s = hv->s;
	const dt_sync_event *ev = hv->ev;
	const hang_report *rep_ = hv->rep;
	const ord_held *held = hv->d->held;
	size_t nheld = hv->d->nheld;
	const size_t *thread_of = hv->d->thread_of;
	const char *stopped = hv->d->stopped, *live = hv->live, *fl = hv->fl, *arg = hv->arg;
	const store_run *run_ = hv->run;
	printf("{\"run\": ");
	cli_json_str(live ? "" : run_->name);
	if (live) {
		printf(", \"recording\": ");
		cli_json_str(arg);
	}
	printf(", \"flags\": \"%s\", \"sites_note\": ", fl);
	cli_json_str(store_sites_note(hv->sites));
	printf(",\n \"cause\": ");
	cause_json(hv);
	printf(",\n \"threads\": [");
	for (size_t i = 0; i < rep_->nthreads; i++) {
		const hang_thread *h = &rep_->threads[i];
		printf("%s\n  {\"pt\": \"%d.%d\", \"state\": \"%s\", \"call\": ", i ? "," : "",
		       h->proc, h->thread,
		       h->state == HANG_IN_CALL ? "in-call"
		       : h->state == HANG_FINISHED ? "finished"
						   : "outside");
		cli_json_str(h->func ? fname(s, h->func) : "");
		printf(", \"occurrence\": %" PRIu64 ", \"seq\": %" PRIu32, h->occurrence,
		       ev[h->entry].seq);
		cli_site_json(hv->sites, thread_site(hv, h));
		printf("}");
	}
	printf("],\n \"edges\": [");
	for (size_t i = 0; i < rep_->nedges; i++) {
		const hang_thread *a = &rep_->threads[rep_->edges[i].from],
				  *b = &rep_->threads[rep_->edges[i].to];
		printf("%s\n  {\"from\": \"%d.%d\", \"to\": \"%d.%d\", \"why\": \"%s\"}",
		       i ? "," : "", a->proc, a->thread, b->proc, b->thread,
		       hang_why_name(rep_->edges[i].why));
	}
	printf("],\n \"cycles\": [");
	for (size_t i = 0; i < rep_->ncycles; i++) {
		printf("%s\n  [", i ? "," : "");
		for (size_t k = 0; k < rep_->cycles[i].n; k++) {
			const hang_thread *h = &rep_->threads[rep_->cycles[i].threads[k]];
			printf("%s\"%d.%d\"", k ? ", " : "", h->proc, h->thread);
		}
		printf("]");
	}
	printf("],\n \"mismatches\": [");
	for (size_t i = 0; i < rep_->nnears; i++) {
		const hang_near *m = &rep_->nears[i];
		const hang_thread *h = &rep_->threads[m->thread];
		const dt_sync_event *x = &ev[m->send];
		char b[512];
		hang_near_text(rep_, ev, m, sync_type_name, b, sizeof b);
		printf("%s\n  {\"pt\": \"%d.%d\", \"kind\": \"%s\", \"sender\": \"%d.%d\", "
		       "\"send_seq\": %" PRIu32 ", \"text\": ",
		       i ? "," : "", h->proc, h->thread, hang_near_name(m->kind), x->proc,
		       x->thread, x->seq);
		cli_json_str(b);
		printf(", \"receive_site\": ");
		cli_site_json_value(hv->sites, ev[m->recv].site);
		printf(", \"send_site\": ");
		cli_site_json_value(hv->sites, ev[m->send].site);
		printf("}");
	}
	printf("],\n \"never_released\": [");
	for (size_t i = 0; i < nheld; i++) {
		const ord_held *h = &held[i];
		printf("%s\n  {\"pt\": \"%d.%d\", \"call\": ", i ? "," : "", h->ev.proc,
		       h->ev.thread);
		cli_json_str(fname(s, h->ev.func));
		if (h->id != SIZE_MAX)
			printf(", \"pending\": true, \"occurrence\": %" PRIu64,
			       rep_->threads[thread_of[h->id]].occurrence);
		else
			printf(", \"pending\": false, \"seq\": %" PRIu32 ", \"phase\": \"%s\"",
			       h->ev.seq, h->ev.phase == DT_SYNC_ENTER ? "enter" : "exit");
		printf(", \"held\": %zu, \"rule\": ", h->nheld);
		cli_json_str(h->rule);
		printf(", \"why\": ");
		cli_json_str(h->why);
		cli_site_json(hv->sites, h->ev.site);
		printf("}");
	}
	printf("]");
	if (stopped) {
		printf(",\n \"filter_stopped\": ");
		cli_json_str(stopped);
	}
	printf("}\n");
}

static void hang_text(const struct hang_view *hv)
{
	store *s = hv->s;
	const dt_sync_event *ev = hv->ev;
	const hang_report *rep_ = hv->rep;
	const ord_held *held = hv->d->held;
	size_t nheld = hv->d->nheld;
	const size_t *thread_of = hv->d->thread_of;
	const char *stopped = hv->d->stopped, *live = hv->live, *fl = hv->fl, *arg = hv->arg;
	const store_run *run_ = hv->run;
	printf("most likely cause: %s\n", hv->d->cause_text); /* escaped by hang_cause_text */
	if (hv->d->args_text[0])
		printf("  every thread that makes these calls changed them alike against the normal "
		       "run: %s: a changed input, left out of the comparison\n",
		       hv->d->args_text);
	putchar('\n');
	if (live) {
		printf("recording ");
		esc_fputs(arg, stdout);
		printf(" (in progress, or ended without an import)");
	} else {
		printf("run %s", run_->name);
	}
	printf(": %zu threads with sync events", rep_->nthreads);
	int aborted = hv->d->cause.why == HANG_C_ABORT;
	if (aborted)
		printf(", aborted"); /* the cause says where and why */
	else if (run_->flags & DT_TF_TIMEOUT)
		printf(", stopped by difftrace-record --timeout");
	printf(" (flags %s)\n", fl);
	cli_site_note(hv->sites);
	printf("\nwhere each thread is at the end:\n");
	for (size_t i = 0; i < rep_->ngroups; i++) {
		const hang_group *g = &rep_->groups[i];
		char *pts = pts_of(rep_, g->threads, g->n);
		printf("  %-20s ", pts);
		where_text(s, ev, &rep_->threads[g->threads[0]], "");
		group_sites(hv, g);
		free(pts);
	}
	printf("\nwait-for graph (%zu edge%s):\n", rep_->nedges, rep_->nedges == 1 ? "" : "s");
	for (size_t i = 0; i < rep_->nedges;) {
		/* one line per thread and reason: 2.0 waits for 0.0, 1.0 (collective) */
		size_t j = i;
		const hang_edge *a = &rep_->edges[i];
		size_t *to = xmalloc(rep_->nedges * sizeof *to), k = 0;
		while (j < rep_->nedges && rep_->edges[j].from == a->from &&
		       rep_->edges[j].why == a->why)
			to[k++] = rep_->edges[j++].to;
		const hang_thread *h = &rep_->threads[a->from];
		char *pts = pts_of(rep_, to, k), pt[32];
		snprintf(pt, sizeof pt, "%d.%d", h->proc, h->thread);
		printf("  %-8s waits for %s (%s: ", pt, pts, hang_why_name(a->why));
		esc_fputs(fname(s, h->func), stdout);
		char args[512];
		ord_event_args(&ev[h->entry], args, sizeof args);
		printf("%s)", args);
		cli_site_text(hv->sites, thread_site(hv, h));
		putchar('\n');
		free(pts);
		free(to);
		i = j;
	}
	if (!rep_->nedges)
		printf("  (none)\n");
	if (rep_->nnears)
		printf("\nmismatches (a blocked receive, a send alike but for one thing):\n");
	for (size_t i = 0; i < rep_->nnears; i++) {
		char b[512];
		const hang_near *m = &rep_->nears[i];
		hang_near_text(rep_, ev, m, sync_type_name, b, sizeof b);
		printf("  %s mismatch: %s\n", hang_near_name(m->kind), b);
		/* where the program made the two calls */
		if (store_site_get(hv->sites, ev[m->recv].site)) {
			printf("    the receive");
			cli_site_text(hv->sites, ev[m->recv].site);
			putchar('\n');
		}
		if (store_site_get(hv->sites, ev[m->send].site)) {
			printf("    the send");
			cli_site_text(hv->sites, ev[m->send].site);
			putchar('\n');
		}
	}
	int nlocks = 0;
	for (size_t i = 0; i < rep_->nthreads; i++)
		for (size_t k = 0; k < rep_->threads[i].nheld; k++) {
			const dt_sync_event *v = &ev[rep_->threads[i].held[k]];
			char b[32];
			if (!nlocks++)
				printf("\nlocks and critical sections held at the end:\n");
			printf("  %d.%d holds ", rep_->threads[i].proc, rep_->threads[i].thread);
			esc_fputs(fname(s, v->func), stdout);
			printf(" obj=%#" PRIx64 " (%s acquisition)", v->obj,
			       ordinal(v->objseq, b, sizeof b));
			cli_site_text(hv->sites, v->site);
			putchar('\n');
		}
	printf("\ncalls that can never complete (held by the causality filter at the end):\n");
	for (size_t i = 0; i < nheld; i++) {
		const ord_held *h = &held[i];
		char b[32];
		printf("  %d.%d ", h->ev.proc, h->ev.thread);
		if (h->id != SIZE_MAX) {
			printf("in ");
			esc_fputs(fname(s, h->ev.func), stdout);
			printf(" (%s)", ordinal(rep_->threads[thread_of[h->id]].occurrence, b, sizeof b));
		} else {
			printf("#%" PRIu32 " ", h->ev.seq);
			esc_fputs(fname(s, h->ev.func), stdout);
			printf(" %s (%zu held)", h->ev.phase == DT_SYNC_ENTER ? "enter" : "exit",
			       h->nheld);
		}
		cli_site_text(hv->sites, h->ev.site);
		printf(": rule %s: ", h->rule[0] ? base_of(h->rule) : "(none)");
		esc_fputs(h->why, stdout);
		putchar('\n');
	}
	if (stopped) {
		printf("  the causality filter stopped: ");
		esc_fputs(stopped, stdout);
		putchar('\n');
	} else if (!nheld) {
		printf("  (none)\n");
	}
	if (rep_->ncycles) {
		printf("\n%s: %zu wait-for cycle%s:\n",
		       aborted ? "at the abort (not a deadlock: the run aborted)" : "deadlock",
		       rep_->ncycles, rep_->ncycles == 1 ? "" : "s");
		for (size_t i = 0; i < rep_->ncycles; i++) {
			const hang_cycle *cy = &rep_->cycles[i];
			printf("  ");
			for (size_t k = 0; k <= cy->n; k++) {
				const hang_thread *h = &rep_->threads[cy->threads[k % cy->n]];
				printf("%s%d.%d", k ? " -> " : "", h->proc, h->thread);
			}
			if (cy->nknot > cy->n) {
				/* no single cycle through them all: the others that wait in it */
				char *pts = pts_of(rep_, cy->knot, cy->nknot);
				printf(" (of %zu threads that wait for each other: %s)",
				       cy->nknot, pts);
				free(pts);
			}
			putchar('\n');
		}
	} else {
		printf("\nno wait-for cycle\n");
	}
}

int cmd_hang(cli *c, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "format", required_argument, 0, 'f' },
		{ "rules", required_argument, 0, 'r' },
		{ "max-held", required_argument, 0, 'm' },
		{ "normal", required_argument, 0, 'n' },
		{ "whole", no_argument, 0, 'w' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	int fmt = OUT_TEXT, o, r, whole = 0;
	const char *rules_file = NULL, *normal = NULL;
	size_t max_held = 0;
	while ((r = cli_getopt(argc, argv, ":h", lo, &o, "hang", hang_help)) == 0 && o != -1) {
		if (o == 'f' && ((fmt = cli_out_format(optarg)) < 0 || fmt == OUT_CSV))
			return cli_usage("hang", "unknown format '%s' (text, json)", optarg);
		if (o == 'r')
			rules_file = optarg;
		if (o == 'n')
			normal = optarg;
		if (o == 'w')
			whole = 1;
		if (o == 'm' && (r = cli_max_held("hang", optarg, &max_held)) != 0)
			return r;
	}
	if (r == CLI_HELP_DONE)
		return 0;
	if (r)
		return r;
	if (argc - optind != 1)
		return cli_usage("hang", "needs one RUN or DIR");
	dt_err e;
	dt_err_clear(&e);
	store *s = NULL;
	store_run run = { 0 };
	hang_diag d;
	memset(&d, 0, sizeof d);
	int rc = 1;
	char *live = NULL; /* a recording in progress, imported privately */
	if (cli_open_run(c, argv[optind], &s, &run, &e)) {
		/* not a run: a recording's directory, read as far as it is written */
		struct stat st;
		if (stat(argv[optind], &st) || !S_ISDIR(st.st_mode))
			goto out;
		dt_err_clear(&e);
		if (cli_live_open(argv[optind], &live, &s, &run, &e))
			goto out;
		/* its events are in a private store, without the normal run */
		if (normal) {
			dt_errf(&e, DT_EUSAGE,
				"--normal needs an imported run, not a recording's directory");
			goto out;
		}
	}
	hang_diag_opts ho = { .normal = normal, .rules_file = rules_file, .max_held = max_held,
			      .whole = whole };
	if (hang_diagnose(s, run.id, &ho, &d, &e))
		goto out;
	if (!d.n) {
		dt_errf(&e, DT_EDATA,
			"run '%s' has no sync events (record it with difftrace-record, without "
			"--no-sync)",
			run.name);
		goto out;
	}
	char fl[200];
	dt_flags_str(run.flags, fl, sizeof fl);
	struct hang_view hv = { s, argv[optind], &run, live, fl, &d, d.ev, &d.rep, &d.sites };
	if (fmt == OUT_JSON)
		hang_json(&hv);
	else
		hang_text(&hv);
	if (fflush(stdout) != 0) {
		dt_errf(&e, DT_EDATA, "cannot write output");
		goto out;
	}
	rc = 0;
out:
	hang_diag_free(&d);
	store_run_free(&run);
	store_close(s);
	cli_live_close(live);
	return rc ? cli_fail(&e) : 0;
}
