/* cli_blame.c: `difftrace blame`: variable blame tables of a run (the paper's Tables 2 and 3),
 * or the variables whose blame changed most between a normal and a faulty run. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blame/blame.h"
#include "cli/cli.h"
#include "import/sync_file.h"
#include "store/store_bindex.h"
#include "store/store_blame.h"
#include "util/esc.h"
#include "util/util.h"

static const char blame_help[] =
	"usage: difftrace blame RUN [--point FUNC]... [--metric samples|time|bytes]\n"
	"                       [--format text|csv|json] [--transfer FILE]\n"
	"                       [--auto-points PCT] [--no-index] [--why VARIABLE [--top N]]\n"
	"       difftrace blame --normal RUN --faulty RUN [--point FUNC]... [--top N] [...]\n"
	"\n"
	"Variable blame of a run recorded with 'difftrace-record --sample': each sample is blamed\n"
	"once on a program variable (a global or static by name, a local array or structure by\n"
	"name when the program has -g, a heap block by its allocation site), on Other when it\n"
	"reaches none, or on Output in an output routine. A sample inside\n"
	"an MPI call goes to the data its transfer function names (difftrace-transfer(5)); one in\n"
	"computation to the containers that the pointers of its frames point into, innermost\n"
	"frame first, in equal parts. Where the store has a blame index of the program\n"
	"(difftrace blame-index), a sample in an indexed function follows the data flow\n"
	"instead: its line, the variables that line writes (or its condition controls), the\n"
	"function's relations to its exit variables, the caller's call site, up to a blame\n"
	"point; a local that passes its blame nowhere keeps it, as 'VAR (FUNCTION)', and a heap\n"
	"block is named by what points to it where it is allocated, its site as detail:\n"
	"'pb->x (FILE:LINE in FUNCTION)'. The text\n"
	"names the functions without source. One table per blame point (default main): the\n"
	"variable, its type, the MPI calls that contributed, its blame per rank as count and\n"
	"(percent of the rank), the total, and the node mean and standard deviation. The rows\n"
	"of a table add up to its Total row. With --normal and --faulty: per rank, the\n"
	"variables whose share of the blame changed most.\n"
	"\n"
	"  --point FUNC          a blame point: the samples with FUNC on their stack (repeat for\n"
	"                        more tables; main takes every sample)\n"
	"  --metric M            samples (ticks, default), time (the samples' cost: thread CPU\n"
	"                        ns, or counter events with PAPI) or bytes (of the MPI calls'\n"
	"                        buffers, per sample inside a call)\n"
	"  --format FMT          text (default), csv or json\n"
	"  --transfer FILE       transfer functions read after the shipped ones (MPI, libc, BLAS)\n"
	"  --normal RUN          with --faulty: the run that behaved\n"
	"  --faulty RUN          the run that did not\n"
	"  --top N               with --normal/--faulty: the N largest changes per rank; with\n"
	"                        --why, the N largest paths (default 5; 0 all)\n"
	"  --auto-points PCT     with a blame index, for one RUN: one more table for each\n"
	"                        function whose variables hold more than PCT percent of the\n"
	"                        whole blame\n"
	"  --no-index            the heuristic only, even where the store has a blame index\n"
	"  --why VARIABLE        for one RUN: instead of the tables, the paths that brought\n"
	"                        blame to VARIABLE (a row's name) at each point, the N largest\n"
	"                        (--top, default 5): the relations and call sites from the\n"
	"                        variable back to the sample, with their share of its blame\n"
	"  -h, --help            this help\n"
	"\n"
	"In text, more than 8 ranks print as node mean and deviation only; csv and json have every\n"
	"rank. See difftrace(1), difftrace-sample(5).\n";

/* "120", "24.5" */
static const char *num(double v, char *buf, size_t n)
{
	if (fabs(v - round(v)) < 0.05)
		snprintf(buf, n, "%.0f", round(v));
	else
		snprintf(buf, n, "%.1f", v);
	return buf;
}

/* "120(55.0)", "-" for nothing */
static const char *cell(double v, double tot, char *buf, size_t n)
{
	char a[40];
	if (v == 0) {
		snprintf(buf, n, "-");
		return buf;
	}
	double p = tot > 0 ? 100.0 * v / tot : 0;
	if (fabs(p - 100.0) < 1e-9)
		snprintf(buf, n, "%s(100)", num(v, a, sizeof a));
	else
		snprintf(buf, n, "%s(%.1f)", num(v, a, sizeof a), p);
	return buf;
}

static void calls_str(uint64_t calls, dt_buf *b)
{
	for (unsigned c = 1; c <= 64; c++)
		if (calls & (1ull << (c - 1))) {
			const char *n = sync_call_name(c);
			if (!n)
				continue;
			if (b->len)
				buf_byte(b, ',');
			buf_put(b, n, strlen(n));
		}
	if (!b->len)
		buf_byte(b, '-');
	buf_byte(b, 0);
}

static const char *metric_name(int m)
{
	return m == BLAME_TIME ? "time" : m == BLAME_BYTES ? "bytes" : "samples";
}

static const char *rank_label(int32_t r, char *buf, size_t n)
{
	if (r < 0)
		snprintf(buf, n, "R?");
	else
		snprintf(buf, n, "R%d", (int)r);
	return buf;
}

static void text_notes(const blame_result *r, const dt_blame_data *d)
{
	if (r->flags & DT_BF_NO_SAMPLES)
		printf("# note: some processes have no samples\n");
	char line[512];
	for (int k = 0; blame_lack(r, d, k, line, sizeof line); k++)
		printf("# note: %s\n", line);
	char *lost;
	for (size_t k = 0; (lost = blame_lost_note(d, k)); k++) {
		fputs("# note: ", stdout);
		esc_fputs(lost, stdout);
		putchar('\n');
		free(lost);
	}
	if (r->flags & DT_BF_TORN)
		printf("# note: a process was killed; its samples up to then are counted\n");
	if (r->flags & DT_BF_NO_MAPS)
		printf("# note: no maps file: program counters unsymbolized, no point found by name\n");
	if (r->flags & DT_BF_FULL)
		printf("# note: the disk was full while recording: a thread's samples stop there "
		       "(the program ran on)\n");
	if (r->flags & DT_BF_STOPPED)
		printf("# note: a thread's sample file could not grow: its samples stop there "
		       "(the program ran on)\n");
	if (r->nnosrc) {
		printf("# note: no source in the blame index for");
		for (size_t i = 0; i < r->nnosrc; i++) {
			printf("%s ", i ? "," : "");
			esc_fputs(r->nosrc[i], stdout);
		}
		printf(" (blamed by the heuristic)\n");
	}
	if (r->nends) {
		printf("# note: blame stopped at the locals of");
		for (size_t i = 0; i < r->nends; i++) {
			printf("%s ", i ? "," : "");
			esc_fputs(r->ends[i], stdout);
		}
		printf(" (blame points found by the data flow)\n");
	}
}

static void print_text(const char *run, const blame_result *r, const dt_blame_data *d)
{
	char a[64], b[64];
	int per_rank = r->nranks <= 8;
	text_notes(r, d);
	for (size_t t = 0; t < r->ntables; t++) {
		const blame_table *bt = &r->tables[t];
		if (t)
			putchar('\n');
		printf("# blame of run '%s' at %s%s: metric %s (%s), %zu rank%s, %s %s in all", run,
		       bt->point, bt->automatic ? " (automatic point)" : "", metric_name(r->metric),
		       r->unit, r->nranks, r->nranks == 1 ? "" : "s", num(bt->total, a, sizeof a),
		       r->unit);
		if (bt->joined > 0)
			printf(", %.1f%% by the data flow", bt->total > 0 ? 100.0 * bt->joined / bt->total
									  : 0.0);
		putchar('\n');
		if (!per_rank)
			printf("# %zu ranks: per-rank columns in csv and json\n", r->nranks);
		int w = 8;
		for (size_t i = 0; i < bt->nvars; i++) {
			int x = (int)esc_width(bt->vars[i].name);
			if (x > w)
				w = x;
		}
		if (w > 40)
			w = 40;
		int tw = 6, cw = 9;
		for (size_t i = 0; i < bt->nvars; i++) {
			int x = (int)esc_width(bt->vars[i].type);
			if (x > tw)
				tw = x < 24 ? x : 24;
			dt_buf cb = { 0 };
			calls_str(bt->vars[i].calls, &cb);
			x = (int)strlen((const char *)cb.p);
			if (x > cw)
				cw = x < 40 ? x : 40;
			buf_free(&cb);
		}
		cli_pad("VARIABLE", w);
		putchar(' ');
		cli_pad("TYPE", tw);
		putchar(' ');
		cli_pad("MPI CALLS", cw);
		if (per_rank)
			for (size_t c = 0; c < r->nranks; c++) {
				char h[80];
				snprintf(h, sizeof h, "%s(%%)", rank_label(r->ranks[c], a, sizeof a));
				printf(" %14s", h);
			}
		printf(" %10s %14s %10s %10s\n", "DIRECT", "TOTAL(%)", "MEAN", "SD");
		for (size_t i = 0; i <= bt->nvars; i++) {
			const blame_var *v = i < bt->nvars ? &bt->vars[i] : NULL;
			if (v && v->total == 0 && v->vkind != BV_VAR)
				continue; /* an empty Other or Output row says nothing */
			cli_pad(v ? v->name : "Total", w);
			putchar(' ');
			cli_pad(v ? v->type : "-", tw);
			putchar(' ');
			dt_buf cb = { 0 };
			calls_str(v ? v->calls : 0, &cb);
			cli_pad((const char *)cb.p, cw);
			buf_free(&cb);
			if (per_rank)
				for (size_t c = 0; c < r->nranks; c++)
					printf(" %14s", cell(v ? v->rank[c] : bt->rank[c], bt->rank[c], a,
							     sizeof a));
			double mean, sd;
			if (v) {
				blame_var_stats(r, v, &mean, &sd);
			} else {
				blame_var tot = { .rank = bt->rank };
				blame_var_stats(r, &tot, &mean, &sd);
			}
			double dir = 0;
			for (size_t j = 0; !v && j < bt->nvars; j++)
				dir += bt->vars[j].direct;
			if (v && v->vkind != BV_VAR)
				printf(" %10s", "-");
			else
				printf(" %10s", num(v ? v->direct : dir, a, sizeof a));
			printf(" %14s %10.1f %10.1f\n", cell(v ? v->total : bt->total, bt->total, b,
							     sizeof b),
			       mean, sd);
		}
	}
}

static void print_csv(const blame_result *r)
{
	char a[64];
	printf("point,variable,type,mpi_calls");
	for (size_t c = 0; c < r->nranks; c++) {
		rank_label(r->ranks[c], a, sizeof a);
		printf(",%s,%s_pct", a, a);
	}
	printf(",total,total_pct,mean,sd,direct\n");
	for (size_t t = 0; t < r->ntables; t++) {
		const blame_table *bt = &r->tables[t];
		for (size_t i = 0; i <= bt->nvars; i++) {
			const blame_var *v = i < bt->nvars ? &bt->vars[i] : NULL;
			cli_csv_str(bt->point);
			putchar(',');
			cli_csv_str(v ? v->name : "Total");
			putchar(',');
			cli_csv_str(v ? v->type : "-");
			putchar(',');
			dt_buf cb = { 0 };
			calls_str(v ? v->calls : 0, &cb);
			cli_csv_str((const char *)cb.p);
			buf_free(&cb);
			for (size_t c = 0; c < r->nranks; c++) {
				double x = v ? v->rank[c] : bt->rank[c];
				printf(",%.6g,%.4f", x, bt->rank[c] > 0 ? 100.0 * x / bt->rank[c] : 0.0);
			}
			double tot = v ? v->total : bt->total, mean, sd;
			blame_var tv = { .rank = bt->rank };
			blame_var_stats(r, v ? v : &tv, &mean, &sd);
			double dir = 0;
			for (size_t j = 0; !v && j < bt->nvars; j++)
				dir += bt->vars[j].direct;
			printf(",%.6g,%.4f,%.6g,%.6g,%.6g\n", tot,
			       bt->total > 0 ? 100.0 * tot / bt->total : 0.0, mean, sd, v ? v->direct : dir);
		}
	}
}

static void json_nums(const double *x, size_t n)
{
	putchar('[');
	for (size_t i = 0; i < n; i++)
		printf("%s%.6g", i ? "," : "", x[i]);
	putchar(']');
}

static void print_json(const char *run, const blame_result *r, const dt_blame_data *d)
{
	printf("{\"run\":");
	cli_json_str(run);
	printf(",\"metric\":\"%s\",\"unit\":\"%s\",\"flags\":%u,\"ranks\":[", metric_name(r->metric),
	       r->unit, r->flags);
	for (size_t c = 0; c < r->nranks; c++)
		printf("%s%d", c ? "," : "", (int)r->ranks[c]);
	printf("],\"no_source\":[");
	for (size_t i = 0; i < r->nnosrc; i++) {
		if (i)
			putchar(',');
		cli_json_str(r->nosrc[i]);
	}
	printf("],\"index_no_debug\":%s,\"stopped\":[", r->index_nodebug ? "true" : "false");
	for (size_t i = 0; i < r->nends; i++) {
		if (i)
			putchar(',');
		cli_json_str(r->ends[i]);
	}
	printf("],\"tables\":[");
	for (size_t t = 0; t < r->ntables; t++) {
		const blame_table *bt = &r->tables[t];
		printf("%s{\"point\":", t ? "," : "");
		cli_json_str(bt->point);
		printf(",\"total\":%.6g,\"samples\":%llu,\"automatic\":%s,\"joined\":%.6g,"
		       "\"rank_totals\":",
		       bt->total, (unsigned long long)bt->nsamples, bt->automatic ? "true" : "false",
		       bt->joined);
		json_nums(bt->rank, r->nranks);
		printf(",\"variables\":[");
		for (size_t i = 0; i < bt->nvars; i++) {
			const blame_var *v = &bt->vars[i];
			double mean, sd;
			blame_var_stats(r, v, &mean, &sd);
			printf("%s{\"name\":", i ? "," : "");
			cli_json_str(v->name);
			printf(",\"type\":");
			cli_json_str(v->type);
			printf(",\"kind\":\"%s\",\"mpi_calls\":[",
			       v->vkind == BV_OTHER    ? "other"
			       : v->skind == BX_PARAM + 1  ? "param"
			       : v->skind == BX_LOCAL + 1  ? "local"
			       : v->skind == BX_RETURN + 1 ? "return"
			       : v->vkind == BV_OUTPUT ? "output"
			       : v->ckind == DT_BC_GLOBAL ? "global"
			       : v->ckind == DT_BC_STATIC ? "static"
			       : v->ckind == DT_BC_MMAP   ? "mmap"
			       : v->ckind == DT_BC_STACK  ? "stack"
							  : "heap");
			int k = 0;
			for (unsigned c = 1; c <= 64; c++)
				if ((v->calls & (1ull << (c - 1))) && sync_call_name(c))
					printf("%s\"%s\"", k++ ? "," : "", sync_call_name(c));
			printf("],\"ranks\":");
			json_nums(v->rank, r->nranks);
			printf(",\"total\":%.6g,\"direct\":%.6g,\"mean\":%.6g,\"sd\":%.6g,"
			       "\"containers\":%zu",
			       v->total, v->direct, mean, sd, v->ncont);
			printf(",\"functions\":[");
			for (int f = 0; f < v->nfn; f++) {
				printf("%s{\"func\":", f ? "," : "");
				cli_json_str(v->fn[f] >= 0 ? d->locs[v->fn[f]].func : "?");
				printf(",\"blame\":%.6g}", v->fn_amount[f]);
			}
			printf("],\"other_functions\":%.6g", v->fn_rest);
			if (v->first >= 0 && d->cont[v->first].site >= 0) {
				const dt_bcontainer *ct = &d->cont[v->first];
				printf(",\"site\":[");
				for (uint32_t j = d->path_off[ct->site], q = 0; j < d->path_off[ct->site + 1];
				     j++, q++) {
					const dt_bloc *l = &d->locs[d->pathv[j]];
					printf("%s{\"func\":", q ? "," : "");
					cli_json_str(l->func);
					printf(",\"file\":");
					cli_json_str(l->file);
					printf(",\"line\":%d}", (int)l->line);
				}
				putchar(']');
			}
			putchar('}');
		}
		printf("]}");
	}
	printf("]}\n");
}

static int load(cli *c, const char *run, const transfer_set *tf, const char *const *points,
		size_t np, int metric, double auto_pct, int use_index, const char *why, size_t top,
		store **s, dt_blame_data *d, blame_result *r, dt_err *e)
{
	store_run sr;
	memset(d, 0, sizeof *d);
	memset(r, 0, sizeof *r);
	if (!*s && cli_open_store(c, STORE_OPEN_EXISTING, s, e))
		return -1;
	if (store_run_get(*s, run, &sr, e))
		return -1;
	int rc = store_blame_read(*s, sr.id, d, e);
	bx_func *fns = NULL;
	size_t nf = 0;
	if (!rc && use_index)
		rc = store_bindex_src(*s, sr.id, d, &fns, &nf, e);
	store_run_free(&sr);
	if (rc)
		return -1;
	if (!d->nproc && !d->nsamp) {
		bx_funcs_free(fns, nf);
		return dt_errf(e, DT_EDATA,
			       "run '%s' has no samples: record it with 'difftrace-record --sample' "
			       "and import the recording",
			       run);
	}
	if (auto_pct > 0 && !nf) {
		bx_funcs_free(fns, nf);
		return dt_errf(e, DT_EDATA,
			       "--auto-points needs the program's blame index: run 'difftrace "
			       "blame-index' on its sources");
	}
	blame_src src = { fns, nf, auto_pct };
	rc = blame_compute_why(d, tf, nf ? &src : NULL, points, np, metric, why, top, r, e);
	bx_funcs_free(fns, nf);
	if (!rc)
		r->no_index = use_index && !nf;
	if (!rc && r->index_nodebug) {
		fputs("difftrace: warning: run '", stderr);
		esc_fputs(run, stderr);
		fputs("': the program has no -g, so its blame index cannot be used (no source lines); "
		      "blamed without it\n", stderr);
	}
	return rc;
}

/* The paths of --why: per point, the variable's blame and its largest paths. */
static void print_why(const char *run, const char *var, const blame_result *r, int fmt)
{
	char a[64];
	if (fmt == OUT_CSV)
		printf("point,variable,path,blame,share_pct,steps\n");
	if (fmt == OUT_JSON) {
		printf("{\"run\":");
		cli_json_str(run);
		printf(",\"variable\":");
		cli_json_str(var);
		printf(",\"metric\":\"%s\",\"unit\":\"%s\",\"points\":[", metric_name(r->metric),
		       r->unit);
	}
	for (size_t t = 0; t < r->ntables; t++) {
		const blame_table *bt = &r->tables[t];
		double vt = bt->why_total;
		if (fmt == OUT_TEXT) {
			if (t)
				putchar('\n');
			printf("# why ");
			esc_fputs(var, stdout);
			printf(" at %s in run '%s': %s %s (%.1f%% of the point's), ", bt->point, run,
			       num(vt, a, sizeof a), r->unit, bt->total > 0 ? 100.0 * vt / bt->total : 0.0);
			if (!bt->why_all)
				printf("no path\n");
			else
				printf("the %zu largest of %zu path%s\n", bt->nwhy, bt->why_all,
				       bt->why_all == 1 ? "" : "s");
			for (size_t i = 0; i < bt->nwhy; i++) {
				const blame_path *p = &bt->why[i];
				printf("%6.1f%%  ", vt > 0 ? 100.0 * p->blame / vt : 0.0);
				for (size_t j = 0; j < p->nsteps; j++) {
					if (j)
						printf(" <- ");
					esc_fputs(p->steps[j], stdout);
				}
				putchar('\n');
			}
		} else if (fmt == OUT_CSV) {
			for (size_t i = 0; i < bt->nwhy; i++) {
				const blame_path *p = &bt->why[i];
				cli_csv_str(bt->point);
				putchar(',');
				cli_csv_str(var);
				printf(",%zu,%.6g,%.4f,", i + 1, p->blame, vt > 0 ? 100.0 * p->blame / vt : 0.0);
				dt_buf sb = { 0 };
				for (size_t j = 0; j < p->nsteps; j++) {
					if (j)
						buf_put(&sb, " <- ", 4);
					buf_put(&sb, p->steps[j], strlen(p->steps[j]));
				}
				buf_byte(&sb, 0);
				cli_csv_str((const char *)sb.p);
				buf_free(&sb);
				putchar('\n');
			}
		} else {
			printf("%s{\"point\":", t ? "," : "");
			cli_json_str(bt->point);
			printf(",\"blame\":%.6g,\"point_total\":%.6g,\"paths_all\":%zu,\"paths\":[", vt,
			       bt->total, bt->why_all);
			for (size_t i = 0; i < bt->nwhy; i++) {
				const blame_path *p = &bt->why[i];
				printf("%s{\"blame\":%.6g,\"share\":%.6g,\"steps\":[", i ? "," : "",
				       p->blame, vt > 0 ? p->blame / vt : 0.0);
				for (size_t j = 0; j < p->nsteps; j++) {
					if (j)
						putchar(',');
					cli_json_str(p->steps[j]);
				}
				printf("]}");
			}
			printf("]}");
		}
	}
	if (fmt == OUT_JSON)
		printf("]}\n");
}

static void print_changes(const char *normal, const char *faulty, const blame_result *ra,
			  const blame_result *rb, size_t top, int fmt)
{
	char a[64], b[64];
	if (fmt == OUT_CSV)
		printf("point,rank,variable,type,normal,normal_pct,faulty,faulty_pct,change_pct\n");
	if (fmt == OUT_JSON) {
		printf("{\"normal\":");
		cli_json_str(normal);
		printf(",\"faulty\":");
		cli_json_str(faulty);
		printf(",\"metric\":\"%s\",\"points\":[", metric_name(rb->metric));
	}
	for (size_t t = 0; t < rb->ntables; t++) {
		blame_change *ch;
		size_t n;
		blame_diff(ra, &ra->tables[t], rb, &rb->tables[t], top, &ch, &n);
		const char *pt = rb->tables[t].point;
		if (fmt == OUT_TEXT) {
			if (t)
				putchar('\n');
			printf("# blame of run '%s' against '%s' at %s: metric %s (%s); per rank, the "
			       "variables whose share changed most\n",
			       faulty, normal, pt, metric_name(rb->metric), rb->unit);
			int w = 8;
			for (size_t i = 0; i < n; i++) {
				int x = (int)esc_width(ch[i].name);
				if (x > w)
					w = x < 40 ? x : 40;
			}
			printf("%-5s ", "RANK");
			cli_pad("VARIABLE", w);
			printf(" %-8s %16s %16s %9s\n", "TYPE", "NORMAL(%)", "FAULTY(%)", "CHANGE");
			for (size_t i = 0; i < n; i++) {
				char rl[16];
				printf("%-5s ", rank_label(ch[i].rank, rl, sizeof rl));
				cli_pad(ch[i].name, w);
				putchar(' ');
				cli_pad(ch[i].type, 8);
				char ca[80], cb[80];
				snprintf(ca, sizeof ca, "%s(%.1f)", num(ch[i].a, a, sizeof a), ch[i].pa);
				snprintf(cb, sizeof cb, "%s(%.1f)", num(ch[i].b, b, sizeof b), ch[i].pb);
				printf(" %16s %16s %+8.1f%%\n", ca, cb, ch[i].pb - ch[i].pa);
			}
		} else if (fmt == OUT_CSV) {
			for (size_t i = 0; i < n; i++) {
				cli_csv_str(pt);
				printf(",%d,", (int)ch[i].rank);
				cli_csv_str(ch[i].name);
				putchar(',');
				cli_csv_str(ch[i].type);
				printf(",%.6g,%.4f,%.6g,%.4f,%.4f\n", ch[i].a, ch[i].pa, ch[i].b, ch[i].pb,
				       ch[i].pb - ch[i].pa);
			}
		} else {
			printf("%s{\"point\":", t ? "," : "");
			cli_json_str(pt);
			printf(",\"changes\":[");
			for (size_t i = 0; i < n; i++) {
				printf("%s{\"rank\":%d,\"name\":", i ? "," : "", (int)ch[i].rank);
				cli_json_str(ch[i].name);
				printf(",\"type\":");
				cli_json_str(ch[i].type);
				printf(",\"normal\":%.6g,\"normal_pct\":%.4f,\"faulty\":%.6g,"
				       "\"faulty_pct\":%.4f,\"change_pct\":%.4f}",
				       ch[i].a, ch[i].pa, ch[i].b, ch[i].pb, ch[i].pb - ch[i].pa);
			}
			printf("]}");
		}
		free(ch);
	}
	if (fmt == OUT_JSON)
		printf("]}\n");
}

int cmd_blame(cli *c, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "point", required_argument, 0, 'p' },	 { "metric", required_argument, 0, 'm' },
		{ "format", required_argument, 0, 'f' }, { "transfer", required_argument, 0, 't' },
		{ "normal", required_argument, 0, 'N' }, { "faulty", required_argument, 0, 'F' },
		{ "top", required_argument, 0, 'n' },	 { "help", no_argument, 0, 'h' },
		{ "auto-points", required_argument, 0, 'A' }, { "no-index", no_argument, 0, 'I' },
		{ "why", required_argument, 0, 'W' },
		{ 0, 0, 0, 0 },
	};
	const char *normal = NULL, *faulty = NULL, *fmts = "text", *tfile = NULL, *why = NULL;
	const char **points = NULL;
	size_t np = 0, capp = 0;
	int metric = BLAME_SAMPLES, rc = 2, use_index = 1;
	double auto_pct = 0;
	uint64_t top = 5;
	optind = 1;
	for (;;) {
		int o, r = cli_getopt(argc, argv, ":h", lo, &o, "blame", blame_help);
		if (r == CLI_HELP_DONE) {
			free(points);
			return 0;
		}
		if (r) {
			free(points);
			return r;
		}
		if (o == -1)
			break;
		switch (o) {
		case 'p':
			if (!*optarg) {
				free(points);
				return cli_usage("blame", "--point needs a function name");
			}
			grow((void **)&points, &capp, np + 1, sizeof *points);
			points[np++] = optarg;
			break;
		case 'm':
			if (!strcmp(optarg, "samples"))
				metric = BLAME_SAMPLES;
			else if (!strcmp(optarg, "time"))
				metric = BLAME_TIME;
			else if (!strcmp(optarg, "bytes"))
				metric = BLAME_BYTES;
			else {
				free(points);
				return cli_usage("blame", "--metric takes samples, time or bytes, not '%s'",
						 optarg);
			}
			break;
		case 'f':
			fmts = optarg;
			break;
		case 't':
			tfile = optarg;
			break;
		case 'A': {
			char *end;
			auto_pct = strtod(optarg, &end);
			if (end == optarg || *end || !(auto_pct > 0 && auto_pct <= 100)) {
				free(points);
				return cli_usage("blame", "--auto-points needs a percent above 0 and up "
							  "to 100, not '%s'", optarg);
			}
			break;
		}
		case 'I':
			use_index = 0;
			break;
		case 'W':
			if (!*optarg) {
				free(points);
				return cli_usage("blame", "--why needs a variable (a row's name)");
			}
			why = optarg;
			break;
		case 'N':
			normal = optarg;
			break;
		case 'F':
			faulty = optarg;
			break;
		case 'n':
			if (cli_parse_u64(optarg, &top)) {
				free(points);
				return cli_usage("blame", "--top needs a number, not '%s'", optarg);
			}
			break;
		}
	}
	int fmt = cli_out_format(fmts);
	const char *run = optind < argc ? argv[optind] : NULL;
	if (fmt < 0)
		rc = cli_usage("blame", "unknown format '%s' (text, csv, json)", fmts);
	else if ((normal || faulty) && (!normal || !faulty))
		rc = cli_usage("blame", "--normal and --faulty go together");
	else if (normal && run)
		rc = cli_usage("blame", "give RUN or --normal and --faulty, not both");
	else if (normal && auto_pct > 0)
		rc = cli_usage("blame", "--auto-points goes with RUN: the two runs' automatic "
					"points could differ");
	else if (normal && why)
		rc = cli_usage("blame", "--why goes with RUN, not --normal and --faulty");
	else if (why && auto_pct > 0)
		rc = cli_usage("blame", "--why and --auto-points do not go together");
	else if (!normal && !run)
		rc = cli_usage("blame", "needs a RUN (or --normal RUN --faulty RUN)");
	else if (optind + (run ? 1 : 0) < argc)
		rc = cli_usage("blame", "unexpected argument '%s'", argv[optind + 1]);
	else
		rc = 0;
	if (rc) {
		free(points);
		return rc;
	}
	dt_err e;
	dt_err_clear(&e);
	transfer_set tf = { 0 };
	store *s = NULL;
	dt_blame_data da = { 0 }, db = { 0 };
	blame_result ra = { 0 }, rb = { 0 };
	rc = 1;
	if (transfer_load_shipped(&tf, &e) || (tfile && transfer_load(&tf, tfile, &e)))
		goto out;
	if (run) {
		if (load(c, run, &tf, points, np, metric, auto_pct, use_index, why, (size_t)top, &s,
			 &da, &ra, &e))
			goto out;
		int any = 0;
		for (size_t t = 0; why && t < ra.ntables && !any; t++)
			for (size_t i = 0; i < ra.tables[t].nvars && !any; i++)
				any = !strcmp(ra.tables[t].vars[i].name, why);
		if (why && !any) {
			dt_errf(&e, DT_EDATA, "no variable '%s' in the blame of run '%s' (the rows of "
					      "'difftrace blame %s' name them)", why, run, run);
			goto out;
		}
		if (why)
			print_why(run, why, &ra, fmt);
		else if (fmt == OUT_TEXT)
			print_text(run, &ra, &da);
		else if (fmt == OUT_CSV)
			print_csv(&ra);
		else
			print_json(run, &ra, &da);
	} else {
		if (load(c, normal, &tf, points, np, metric, auto_pct, use_index, NULL, 0, &s, &da, &ra,
			 &e) ||
		    load(c, faulty, &tf, points, np, metric, auto_pct, use_index, NULL, 0, &s, &db, &rb,
			 &e))
			goto out;
		print_changes(normal, faulty, &ra, &rb, (size_t)top, fmt);
	}
	rc = ferror(stdout) ? dt_errf(&e, DT_EDATA, "cannot write the table: output error") : 0;
out:
	free(points);
	transfer_free(&tf);
	blame_result_free(&ra);
	blame_result_free(&rb);
	dt_blame_data_free(&da);
	dt_blame_data_free(&db);
	store_close(s);
	return rc ? cli_fail(&e) : 0;
}
