/* bench_diff.c: how fast diffNLR compares two long traces, next to diff and git diff on the
 * same traces as text.
 *
 * Builds two synthetic traces of N events (default 10^7, bench/workload.h) that differ in a few
 * planted places (an extra MPI call, a kernel iteration missing, a collective replaced, a
 * changed time step count), compresses both with the NLR module into one loop table, and
 * prints:
 *   - the NLR lengths and the compression time (for scale; it happens once per trace, at
 *     analysis time);
 *   - the diffNLR time (best of several runs), with the changes it found, and its folded
 *     side-by-side rendering;
 *   - `diff` and `git diff --no-index` on the decoded text (one function name per line, `[ret]`
 *     for a return) of the same two traces, each timed as a whole command;
 *   - the diffNLR time on a harder pair: A against a trace from another seed, whose irregular
 *     iterations fall elsewhere, so that the NLR forms differ all along;
 *   - whole commands on the same text files, for the nested pair and for a pair of irregular
 *     traces (bench/workload.h's irregular_fill, B with an MPI_Send more at 20% and 50% and an
 *     MPI_Waitall that is an MPI_Barrier at 80%): `difftrace import` of both, `difftrace diff
 *     --filter everything` (which computes the analysis, NLR included, the first time; timed
 *     again with the analysis cached), next to GNU `diff`, `diff -y --suppress-common-lines`
 *     and `diff -u` on the files. Wall time of each command, started through the shell,
 *     output to a file. difftrace is $DIFFTRACE, else ../difftrace next to this program.
 * Usage: bench_diff [N] */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analysis/diff.h"
#include "analysis/nlr.h"
#include "util/util.h"
#include "bench_build.h"
#include <limits.h>
#include "workload.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static const char *fname(void *ctx, uint32_t fid)
{
	static const struct {
		uint32_t id;
		const char *name;
	} known[] = {
		{ 0, "[ret]" },          { 10, "timestep" },   { 20, "compute" },
		{ 30, "kernel" },        { 40, "helper" },     { 50, "MPI_Allreduce" },
		{ 51, "PMPI_Allreduce" }, { 52, "MPI_Bcast" },  { 53, "MPI_Barrier" },
		{ 60, "MPI_Send" },
	};
	char *buf = ctx; /* one name at a time: enough for printing */
	for (size_t i = 0; i < sizeof known / sizeof *known; i++)
		if (known[i].id == fid)
			return known[i].name;
	snprintf(buf, 32, "rare_%u", (unsigned)fid);
	return buf;
}

/* The first i >= from where ev[i..i+len) equals pat. */
static size_t find(const uint32_t *ev, size_t n, size_t from, const uint32_t *pat, size_t len)
{
	for (size_t i = from; i + len <= n; i++)
		if (!memcmp(ev + i, pat, len * sizeof *pat))
			return i;
	fprintf(stderr, "bench_diff: pattern not found; N too small\n");
	exit(1);
}

/* B = A with planted changes, each one well nested. Returns B's length. */
static size_t plant(const uint32_t *a, size_t n, uint32_t *b)
{
	size_t nb = 0, at = 0;
	/* 1. at 20%: an extra MPI_Send before a time step */
	static const uint32_t step[] = { 10 };
	size_t p1 = find(a, n, n / 5, step, 1);
	/* 2. at 50%: one kernel iteration missing (its inner loop runs 15 times, not 16) */
	static const uint32_t iter[] = { 30, 40, 0, 0 };
	size_t p2 = find(a, n, n / 2, iter, 4);
	/* 3. at 80%: an MPI_Bcast that is an MPI_Barrier instead */
	static const uint32_t bcast[] = { 52, 0 };
	size_t p3 = find(a, n, n / 5 * 4, bcast, 2);
	/* 4. near the end: the trace stops one time step early (a killed process) */
	size_t p4 = n;
	for (size_t i = n; i-- > n - n / 100;)
		if (a[i] == 10) {
			p4 = i;
			break;
		}
	memcpy(b, a, p1 * sizeof *a);
	nb = at = p1;
	b[nb++] = 60;
	b[nb++] = 0;
	memcpy(b + nb, a + at, (p2 - at) * sizeof *a);
	nb += p2 - at;
	at = p2 + 4;
	memcpy(b + nb, a + at, (p3 - at) * sizeof *a);
	nb += p3 - at;
	b[nb++] = 53;
	at = p3 + 1;
	memcpy(b + nb, a + at, (p4 - at) * sizeof *a);
	nb += p4 - at;
	return nb;
}

static void write_text(const char *path, const uint32_t *ev, size_t n)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	char nb[32];
	for (size_t i = 0; i < n; i++) {
		fputs(fname(nb, ev[i]), f);
		fputc('\n', f);
	}
	if (fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* Runs cmd through the shell; returns the wall time, and its exit status in *st. */
static double timed(const char *cmd, int *st)
{
	double t0 = now();
	int r = system(cmd);
	double t = now() - t0;
	*st = r >= 0 && WIFEXITED(r) ? WEXITSTATUS(r) : -1;
	return t;
}

static int dbl_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

/* Runs the diff for about a second (5 to 1000 runs); returns the best time, *med the median. */
static double time_diff(const nlr_entry *a, size_t na, const nlr_entry *b, size_t nb,
			const diff_opts *o, diff_script *s, double *med)
{
	double t[1000];
	int reps = 0;
	dt_err e;
	dt_err_clear(&e);
	for (double start = now(); reps < 5 || (now() - start < 1.0 && reps < 1000); reps++) {
		diff_script_free(s);
		double t0 = now();
		diff_nlr(a, na, b, nb, o, s, &e);
		t[reps] = now() - t0;
	}
	qsort(t, (size_t)reps, sizeof *t, dbl_cmp);
	*med = t[reps / 2];
	return t[0];
}

static void print_stats(const char *what, const diff_script *s, double best, double med)
{
	diff_row *rows;
	size_t nrows;
	diff_stats st;
	diff_rows(s, &rows, &nrows, &st);
	free(rows);
	printf("%s: %.3f ms best, %.3f ms median: %zu hunks; %zu same, %zu loop counts changed, "
	       "%zu replaced, %zu only in A, %zu only in B\n", what, best * 1e3, med * 1e3, s->n,
	       st.same, st.count, st.replace, st.left, st.right);
}

/* B = irregular A with an MPI_Send (60) before the iteration at 20% and at 50%, and the
 * MPI_Waitall (242) after 80% an MPI_Barrier (53). Returns B's length. */
static size_t plant_irregular(const uint32_t *a, size_t n, uint32_t *b)
{
	static const uint32_t it[] = { 200 }, wait[] = { 242 };
	size_t p1 = find(a, n, n / 5, it, 1), p2 = find(a, n, n / 2, it, 1);
	size_t p3 = find(a, n, n / 5 * 4, wait, 1), nb = 0;
	memcpy(b, a, p1 * sizeof *a);
	nb = p1;
	b[nb++] = 60;
	b[nb++] = 0;
	memcpy(b + nb, a + p1, (p2 - p1) * sizeof *a);
	nb += p2 - p1;
	b[nb++] = 60;
	b[nb++] = 0;
	memcpy(b + nb, a + p2, (p3 - p2) * sizeof *a);
	nb += p3 - p2;
	b[nb++] = 53;
	memcpy(b + nb, a + p3 + 1, (n - p3 - 1) * sizeof *a);
	nb += n - p3 - 1;
	return nb;
}

static long count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	long lines = 0;
	int ch;
	if (!f)
		return -1;
	while ((ch = getc(f)) != EOF)
		lines += ch == '\n';
	fclose(f);
	return lines;
}

static void whole_line(const char *what, const char *cmd, const char *out)
{
	int rc;
	double t = timed(cmd, &rc);
	printf("  %-44s %9.3f s  (exit %d, %ld lines of output)\n", what, t, rc, count_lines(out));
}

/* The whole commands on text files of a and b. */
static void whole(const char *what, const uint32_t *a, size_t na, const uint32_t *b, size_t nb,
		  const char *dt)
{
	char dir[] = "/tmp/dt-bench-diff-XXXXXX";
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(1);
	}
	char pa[PATH_MAX], pb[PATH_MAX], out[PATH_MAX], db[PATH_MAX], cmd[4 * PATH_MAX];
	snprintf(cmd, sizeof cmd, "mkdir '%s/a' '%s/b'", dir, dir);
	if (system(cmd) != 0)
		exit(1);
	snprintf(pa, sizeof pa, "%s/a/0.0.txt", dir);
	snprintf(pb, sizeof pb, "%s/b/0.0.txt", dir);
	snprintf(out, sizeof out, "%s/out", dir);
	snprintf(db, sizeof db, "%s/s.db", dir);
	write_text(pa, a, na);
	write_text(pb, b, nb);
	printf("\nwhole commands on the same text files, %s (A %zu lines, B %zu lines):\n", what, na,
	       nb);
	int rc;
	snprintf(cmd, sizeof cmd,
		 "DIFFTRACE_NO_PROGRESS=1 '%s' -d '%s' import -q --run a '%s/a' && "
		 "DIFFTRACE_NO_PROGRESS=1 '%s' -d '%s' import -q --run b '%s/b'",
		 dt, db, dir, dt, db, dir);
	double timp = timed(cmd, &rc);
	printf("  %-44s %9.3f s  (exit %d)\n", "difftrace import (both runs)", timp, rc);
	snprintf(cmd, sizeof cmd,
		 "DIFFTRACE_NO_PROGRESS=1 '%s' -d '%s' diff --filter everything a:0.0 b:0.0 > '%s'",
		 dt, db, out);
	int st;
	double tan = timed(cmd, &st);
	printf("  %-44s %9.3f s  (exit %d, %ld lines of output)\n",
	       "difftrace diff (analysis computed: NLR)", tan, st, count_lines(out));
	double tdc = timed(cmd, &st);
	printf("  %-44s %9.3f s  (exit %d, %ld lines of output)\n",
	       "difftrace diff (analysis cached)", tdc, st, count_lines(out));
	printf("  %-44s %9.3f s\n", "difftrace: import + diff (first time)", timp + tan);
	snprintf(cmd, sizeof cmd, "diff '%s' '%s' > '%s'", pa, pb, out);
	whole_line("diff", cmd, out);
	snprintf(cmd, sizeof cmd, "diff -y --suppress-common-lines '%s' '%s' > '%s'", pa, pb, out);
	whole_line("diff -y --suppress-common-lines", cmd, out);
	snprintf(cmd, sizeof cmd, "diff -u '%s' '%s' > '%s'", pa, pb, out);
	whole_line("diff -u", cmd, out);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_diff: could not remove %s\n", dir);
}

int main(int argc, char **argv)
{
	bench_build();
	size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 10000000u;
	if (n < 10000) {
		fprintf(stderr, "usage: bench_diff [N >= 10000]\n");
		return 2;
	}
	uint32_t *a = xmalloc(n * sizeof *a), *b = xmalloc((n + 8) * sizeof *b);
	workload_fill(a, n, 42);
	size_t nb = plant(a, n, b);
	printf("traces: A %zu events, B %zu events (B = A + an MPI_Send at 20%%, - one kernel "
	       "iteration at 50%%,\n        MPI_Bcast -> MPI_Barrier at 80%%, one time step "
	       "fewer at the end)\n\n", n, nb);

	dt_err e;
	dt_err_clear(&e);
	nlr_table *t = nlr_table_new();
	nlr_entry *la, *lb;
	size_t nla, nlb;
	double t0 = now();
	if (nlr_compress(t, NULL, a, n, &la, &nla, &e) || nlr_compress(t, NULL, b, nb, &lb, &nlb, &e)) {
		fprintf(stderr, "bench_diff: nlr: %s\n", e.msg);
		return 1;
	}
	double tnlr = now() - t0;
	printf("NLR (K = 10, one loop table): A %zu entries, B %zu entries, %u loop bodies; "
	       "%.2f s for both traces\n", nla, nlb, nlr_table_count(t), tnlr);

	diff_script s = { 0 };
	double med, best = time_diff(la, nla, lb, nlb, NULL, &s, &med);
	print_stats("diffNLR", &s, best, med);
	putchar('\n');

	char nbuf[32];
	diff_render_opts o;
	diff_render_opts_init(&o);
	o.label_a = "A (normal)";
	o.label_b = "B (faulty)";
	o.name = fname;
	o.ctx = nbuf;
	o.width = 100;
	o.fold = 1;
	o.context = 1;
	if (diff_render_side(stdout, la, lb, &s, &o, &e))
		fprintf(stderr, "bench_diff: %s\n", e.msg);
	fflush(stdout);

	char dir[] = "/tmp/dt-bench-diff-XXXXXX";
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	char pa[64], pb[64], cmd[512];
	snprintf(pa, sizeof pa, "%s/A.txt", dir);
	snprintf(pb, sizeof pb, "%s/B.txt", dir);
	write_text(pa, a, n);
	write_text(pb, b, nb);
	int rc;
	printf("\nthe same traces as text, one function per line:\n");
	snprintf(cmd, sizeof cmd, "diff %s %s > %s/diff.out", pa, pb, dir);
	double tdiff = timed(cmd, &rc);
	snprintf(cmd, sizeof cmd, "wc -l < %s/diff.out", dir);
	FILE *p = popen(cmd, "r");
	long lines = -1;
	if (p) {
		if (fscanf(p, "%ld", &lines) != 1)
			lines = -1;
		pclose(p);
	}
	printf("  diff                  %9.3f ms  (exit %d, %ld lines of output)\n", tdiff * 1e3, rc,
	       lines);
	snprintf(cmd, sizeof cmd, "git diff --no-index %s %s > %s/git.out", pa, pb, dir);
	double tgit = timed(cmd, &rc);
	printf("  git diff --no-index   %9.3f ms  (exit %d)\n", tgit * 1e3, rc);
	printf("  diffNLR               %9.3f ms  (%.0fx faster than diff, %.0fx than git diff)\n",
	       best * 1e3, tdiff / best, tgit / best);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_diff: could not remove %s\n", dir);

	/* A harder case: another seed puts the irregular iterations elsewhere all along the
	 * trace, so the NLR forms differ in many places (Myers is O((N+M)·D)). */
	diff_script_free(&s);
	uint32_t *b0 = xmalloc(nb * sizeof *b0);
	size_t nb0 = nb;
	memcpy(b0, b, nb * sizeof *b);
	workload_fill(b, n, 43);
	nlr_entry *lc;
	size_t nlc;
	if (nlr_compress(t, NULL, b, n, &lc, &nlc, &e)) {
		fprintf(stderr, "bench_diff: nlr: %s\n", e.msg);
		return 1;
	}
	best = time_diff(la, nla, lc, nlc, NULL, &s, &med);
	printf("\nmany differences (B from another seed: %zu entries):\n", nlc);
	print_stats("diffNLR (default budget)", &s, best, med);
	diff_opts minimal = { 1, 0 };
	best = time_diff(la, nla, lc, nlc, &minimal, &s, &med);
	print_stats("diffNLR (minimal)       ", &s, best, med);
	free(lc);

	/* whole commands: difftrace from the text files to the diff, and GNU diff on them */
	char dt[PATH_MAX];
	const char *env = getenv("DIFFTRACE");
	if (env && *env) {
		snprintf(dt, sizeof dt, "%s", env);
	} else {
		ssize_t l = readlink("/proc/self/exe", dt, sizeof dt - 16);
		if (l <= 0) {
			perror("readlink");
			return 1;
		}
		dt[l] = 0;
		char *slash = strrchr(dt, '/');
		snprintf(slash ? slash + 1 : dt, 16, "../difftrace");
	}
	whole("nested pair", a, n, b0, nb0, dt);
	uint32_t *ia = xmalloc(n * sizeof *ia), *ib = xmalloc((n + 8) * sizeof *ib);
	irregular_fill(ia, n, 7);
	size_t nib = plant_irregular(ia, n, ib);
	whole("irregular pair", ia, n, ib, nib, dt);
	free(ia);
	free(ib);
	free(b0);

	diff_script_free(&s);
	free(la);
	free(lb);
	nlr_table_free(t);
	free(a);
	free(b);
	return 0;
}
