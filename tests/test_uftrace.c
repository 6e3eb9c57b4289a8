/* test_uftrace.c: the uftrace importer on the committed real recordings (tests/data/uftrace)
 * and on damaged copies of them written to a temporary directory: truncated files, bad
 * magic, garbage info, lost records, frames left open, foreign byte order. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <dirent.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "import/import.h"
#include "import/memsink.h"
#include "import/uftrace_data.h"
#include "util/util.h"

static char fixtures[4096];
static char tmpdir[4096];

/* ---- helpers ------------------------------------------------------------------------------ */

static void path2(char *out, size_t n, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la + lb + 2 > n) {
		fprintf(stderr, "path too long: %s/%s\n", a, b);
		exit(1);
	}
	memcpy(out, a, la);
	out[la] = '/';
	memcpy(out + la + 1, b, lb + 1);
}

static int import_dir(memsink *m, const char *path, const char *manifest, dt_err *e)
{
	memsink_init(m, 1);
	dt_err_clear(e);
	dt_import_opts o = { .manifest = manifest };
	return import_uftrace(path, &o, &m->sink, e);
}

static const char *fname(const memsink *m, uint32_t id)
{
	return id < m->nfuncs ? m->funcs[id] : "?";
}

/* The trace as "name ( name ) )"-style text: a name for a call, ")" for a return. */
static char *render(const memsink *m, const memtrace *t)
{
	dt_buf b = { 0 };
	for (size_t i = 0; i < t->n; i++) {
		const char *s = t->ev[i] ? fname(m, t->ev[i]) : ")";
		if (i)
			buf_byte(&b, ' ');
		buf_put(&b, s, strlen(s));
	}
	buf_byte(&b, 0);
	return (char *)b.p;
}

/* Depth never negative; returns the final depth and the maximum depth. */
static int depth_ok(const memtrace *t, int *final, int *maxd)
{
	int d = 0, mx = 0;
	for (size_t i = 0; i < t->n; i++) {
		d += t->ev[i] ? 1 : -1;
		if (d < 0)
			return 0;
		if (d > mx)
			mx = d;
	}
	*final = d;
	*maxd = mx;
	return 1;
}

static int ts_monotonic(const memtrace *t)
{
	if (!t->ts)
		return 0;
	for (size_t i = 1; i < t->n; i++)
		if (t->ts[i] < t->ts[i - 1])
			return 0;
	return 1;
}

/* The text attached to event idx with kind (DT_ARG/DT_RETVAL), or NULL. */
static const char *arg_at(const memtrace *t, size_t idx, int kind)
{
	char pre[48];
	int n = snprintf(pre, sizeof pre, "%zu %d ", idx, kind);
	for (size_t i = 0; i < t->nargs; i++)
		if (!strncmp(t->args[i], pre, (size_t)n))
			return t->args[i] + n;
	return NULL;
}

/* Index of the k-th (0-based) call of name in t, or -1. */
static long call_index(const memsink *m, const memtrace *t, const char *name, int k)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->ev[i] && !strcmp(fname(m, t->ev[i]), name) && k-- == 0)
			return (long)i;
	return -1;
}

/* Index of the return matching the call at i. */
static long return_of(const memtrace *t, long i)
{
	int d = 0;
	for (size_t j = (size_t)i; j < t->n; j++) {
		d += t->ev[j] ? 1 : -1;
		if (!d)
			return (long)j;
	}
	return -1;
}

static int has_call(const memsink *m, const memtrace *t, const char *name)
{
	return call_index(m, t, name, 0) >= 0;
}

/* Copies a one-level fixture directory into tmpdir/name; returns its path in out. */
static int copy_fixture(const char *fix, const char *name, char *out, size_t n)
{
	char src[4096], buf[65536];
	path2(src, sizeof src, fixtures, fix);
	path2(out, n, tmpdir, name);
	if (mkdir(out, 0700))
		return -1;
	DIR *d = opendir(src);
	if (!d)
		return -1;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char a[4400], b[4400];
		path2(a, sizeof a, src, de->d_name);
		path2(b, sizeof b, out, de->d_name);
		FILE *f = fopen(a, "rb"), *g = fopen(b, "wb");
		if (!f || !g) {
			if (f)
				fclose(f);
			if (g)
				fclose(g);
			closedir(d);
			return -1;
		}
		size_t r;
		while ((r = fread(buf, 1, sizeof buf, f)) > 0)
			fwrite(buf, 1, r, g);
		fclose(f);
		fclose(g);
	}
	closedir(d);
	return 0;
}

static void rm_tree(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char p[4400];
		path2(p, sizeof p, dir, de->d_name);
		struct stat st;
		if (!lstat(p, &st) && S_ISDIR(st.st_mode))
			rm_tree(p);
		else
			unlink(p);
	}
	closedir(d);
	rmdir(dir);
}

/* The path of the single (or first) <tid>.dat of a directory. */
static int first_dat(const char *dir, char *out, size_t n)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	struct dirent *de;
	char best[256] = "";
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l > 4 && !strcmp(de->d_name + l - 4, ".dat") &&
		    (!best[0] || strcmp(de->d_name, best) < 0))
			snprintf(best, sizeof best, "%s", de->d_name);
	}
	closedir(d);
	if (!best[0])
		return -1;
	path2(out, n, dir, best);
	return 0;
}

static int slurp(const char *p, uint8_t **data, size_t *len)
{
	dt_err e;
	dt_err_clear(&e);
	return read_file(p, data, len, &e);
}

static int spit(const char *p, const void *data, size_t len)
{
	FILE *f = fopen(p, "wb");
	if (!f)
		return -1;
	size_t w = fwrite(data, 1, len, f);
	return fclose(f) || w != len ? -1 : 0;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static void wr64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static int errfmt_has(const dt_err *e, const char *s)
{
	char b[1200];
	dt_err_format(e, b, sizeof b);
	if (strstr(b, s))
		return 1;
	fprintf(stderr, "error '%s' lacks '%s'\n", b, s);
	return 0;
}

/* ---- the real recordings ------------------------------------------------------------------ */

static void test_nest(void)
{
	memsink m;
	dt_err e;
	char p[4400];
	path2(p, sizeof p, fixtures, "nest");
	CHECK_EQ_INT(import_dir(&m, p, NULL, &e), 0);
	CHECK_EQ_INT(m.ntraces, 1);
	if (m.ntraces == 1) {
		memtrace *t = &m.traces[0];
		CHECK(t->meta.is_main);
		CHECK_EQ_INT(t->meta.pid, t->meta.tid);
		CHECK_EQ_INT(t->meta.rank, -1);
		CHECK(t->meta.host && *t->meta.host);
		CHECK(t->meta.source && strstr(t->meta.source, "nest/") &&
		      strstr(t->meta.source, ".dat"));
		CHECK_EQ_INT(t->flags, 0);
		CHECK(ts_monotonic(t));
		int fin = 0, mx = 0;
		CHECK(depth_ok(t, &fin, &mx));
		CHECK_EQ_INT(fin, 0);
		CHECK_EQ_INT(mx, 5); /* main > fact x4 */
		char *r = render(&m, t);
		CHECK(strstr(r, "main mid leaf ) leaf ) leaf ) ) mid leaf ) leaf ) leaf ) )"));
		CHECK(strstr(r, "fact fact fact fact ) ) ) )"));
		CHECK(strstr(r, "printf )"));
		CHECK(r[strlen(r) - 1] == ')');
		free(r);
		CHECK(t->note && !t->note[0]); /* nothing went wrong: nothing to note */
	}
	memsink_free(&m);
}

static void test_args(void)
{
	memsink m;
	dt_err e;
	char p[4400];
	path2(p, sizeof p, fixtures, "args");
	CHECK_EQ_INT(import_dir(&m, p, NULL, &e), 0);
	CHECK_EQ_INT(m.ntraces, 1);
	if (m.ntraces == 1) {
		memtrace *t = &m.traces[0];
		long i = call_index(&m, t, "f1", 0);
		CHECK(i >= 0);
		CHECK_EQ_STR(arg_at(t, (size_t)i, DT_ARG),
			     "arg1=-5, arg2=\"hi \\\"there\\\"\", arg3='Z', arg4=-3, "
			     "arg5=0x11f71fb04cb");
		CHECK_EQ_STR(arg_at(t, (size_t)return_of(t, i), DT_RETVAL), "retval=0x71fb051e");
		i = call_index(&m, t, "f2", 0);
		CHECK_EQ_STR(arg_at(t, (size_t)i, DT_ARG), "fparg1=1.25, fparg2=-2.5, arg1=7");
		CHECK(!arg_at(t, (size_t)return_of(t, i), DT_RETVAL));
		i = call_index(&m, t, "f3", 0);
		CHECK_EQ_STR(arg_at(t, (size_t)i, DT_ARG),
			     "arg2=\"longer string value\", arg1=\"abc\"");
		CHECK_EQ_STR(arg_at(t, (size_t)return_of(t, i), DT_RETVAL),
			     "retval=\"longer string value\"");
		i = call_index(&m, t, "f3", 1);
		CHECK_EQ_STR(arg_at(t, (size_t)i, DT_ARG), "arg2=\"x\", arg1=\"\"");
		CHECK_EQ_STR(arg_at(t, (size_t)return_of(t, i), DT_RETVAL), "retval=\"NULL\"");
		i = call_index(&m, t, "f4", 0);
		CHECK_EQ_STR(arg_at(t, (size_t)i, DT_ARG), "arg1=255");
		CHECK_EQ_STR(arg_at(t, (size_t)return_of(t, i), DT_RETVAL), "retval=0");
		i = call_index(&m, t, "printf", 0);
		CHECK_EQ_STR(arg_at(t, (size_t)i, DT_ARG), "arg1=\"%d %f %s %p\\n\"");
		CHECK_EQ_INT(t->nargs, 10);
		CHECK_EQ_INT(t->flags, 0);
	}
	memsink_free(&m);

	/* -a: DWARF specs from args.dbg, the built-in list for printf */
	path2(p, sizeof p, fixtures, "autoargs");
	CHECK_EQ_INT(import_dir(&m, p, NULL, &e), 0);
	if (m.ntraces == 1) {
		memtrace *t = &m.traces[0];
		long i = call_index(&m, t, "f3", 0);
		CHECK_EQ_STR(arg_at(t, (size_t)i, DT_ARG),
			     "arg1=\"abc\", arg2=\"longer string value\"");
		i = call_index(&m, t, "f4", 0);
		CHECK_EQ_STR(arg_at(t, (size_t)return_of(t, i), DT_RETVAL), "retval=256");
		i = call_index(&m, t, "printf", 0);
		CHECK_EQ_STR(arg_at(t, (size_t)i, DT_ARG), "arg1=\"%d %f %s %p\\n\"");
		CHECK_EQ_STR(arg_at(t, (size_t)return_of(t, i), DT_RETVAL), "retval=46");
		i = call_index(&m, t, "main", 0);
		CHECK_EQ_STR(arg_at(t, (size_t)return_of(t, i), DT_RETVAL), "retval=0");
	}
	memsink_free(&m);
}

static void test_spec_parse(void)
{
	ufd_argspec s;
	char why[200];
	const char *txt = "@arg1/i32,arg2/s,fparg1/32,arg3%rdi,retval/x8";
	CHECK_EQ_INT(ufd_argspec_parse(txt, strlen(txt), 1, &s, why, sizeof why), 0);
	CHECK_EQ_INT(s.n, 5);
	if (s.n == 5) {
		CHECK_EQ_INT(s.items[0].size, 4);
		CHECK_EQ_INT(s.items[0].fmt, 'i');
		CHECK_EQ_INT(s.items[1].fmt, 's');
		CHECK_EQ_INT(s.items[2].kind, UFD_ARG_FLOAT);
		CHECK_EQ_INT(s.items[2].size, 4);
		CHECK_EQ_INT(s.items[3].size, 8);
		CHECK_EQ_INT(s.items[4].kind, UFD_ARG_RET);
		CHECK_EQ_INT(s.items[4].size, 1);
	}
	free(s.items);
	CHECK_EQ_INT(ufd_argspec_parse("arg1/i12", 8, 1, &s, why, sizeof why), -1);
	CHECK(strstr(why, "bad size"));
	CHECK_EQ_INT(ufd_argspec_parse("fparg1/80", 9, 1, &s, why, sizeof why), -1);
	CHECK(strstr(why, "long double"));
	CHECK_EQ_INT(ufd_argspec_parse("foo1", 4, 1, &s, why, sizeof why), -1);
	CHECK_EQ_INT(ufd_argspec_parse("arg", 3, 1, &s, why, sizeof why), -1);
}

static void test_omp(void)
{
	memsink m;
	dt_err e;
	char p[4400];
	path2(p, sizeof p, fixtures, "omp");
	CHECK_EQ_INT(import_dir(&m, p, NULL, &e), 0);
	CHECK_EQ_INT(m.ntraces, 3);
	int mains = 0, workers = 0;
	for (size_t i = 0; i < m.ntraces; i++) {
		memtrace *t = &m.traces[i];
		CHECK_EQ_INT(t->meta.pid, m.traces[0].meta.pid);
		CHECK_EQ_INT(t->flags, 0);
		CHECK(ts_monotonic(t));
		if (i)
			CHECK(t->meta.tid > m.traces[i - 1].meta.tid); /* pushed in tid order */
		int fin = 0, mx = 0;
		CHECK(depth_ok(t, &fin, &mx));
		CHECK_EQ_INT(fin, 0);
		char *r = render(&m, t);
		if (t->meta.is_main) {
			mains++;
			CHECK(strstr(r, "region GOMP_parallel region._omp_fn.0 omp_get_thread_num )"));
		} else {
			workers++;
			/* a worker starts at depth 0 in the outlined function */
			CHECK(!strncmp(r, "region._omp_fn.0 omp_get_thread_num ) work )", 43));
			CHECK(!has_call(&m, t, "main"));
		}
		free(r);
	}
	CHECK_EQ_INT(mains, 1);
	CHECK_EQ_INT(workers, 2);
	memsink_free(&m);
}

static void check_mpi_traces(memsink *m, int ranks_known)
{
	CHECK_EQ_INT(m->ntraces, 4);
	int mains = 0;
	for (size_t i = 0; i < m->ntraces; i++) {
		memtrace *t = &m->traces[i];
		CHECK(ts_monotonic(t));
		int fin = 0, mx = 0;
		CHECK(depth_ok(t, &fin, &mx));
		CHECK_EQ_INT(fin, 0);
		if (ranks_known)
			CHECK_EQ_INT(t->meta.rank, (long long)(i / 2)); /* rank-0 first, then pid/tid */
		else
			CHECK_EQ_INT(t->meta.rank, -1);
		if (t->meta.is_main) {
			mains++;
			CHECK(has_call(m, t, "MPI_Init"));
			CHECK(has_call(m, t, "MPI_Allreduce"));
			CHECK(has_call(m, t, "MPI_Bcast"));
			CHECK(has_call(m, t, "MPI_Barrier"));
			CHECK(has_call(m, t, "MPI_Finalize"));
			CHECK(has_call(m, t, "GOMP_parallel"));
			CHECK(has_call(m, t, "exchange"));
		} else {
			CHECK(t->ev && t->n && !strcmp(fname(m, t->ev[0]), "compute._omp_fn.0"));
			CHECK(has_call(m, t, "work"));
			CHECK(!has_call(m, t, "MPI_Allreduce"));
		}
	}
	CHECK_EQ_INT(mains, 2);
	if (m->ntraces == 4) {
		CHECK_EQ_INT(m->traces[0].meta.pid, m->traces[1].meta.pid);
		CHECK_EQ_INT(m->traces[2].meta.pid, m->traces[3].meta.pid);
		CHECK(m->traces[0].meta.pid != m->traces[2].meta.pid);
	}
}

static void test_mpi(void)
{
	memsink m;
	dt_err e;
	char p[4400];
	path2(p, sizeof p, fixtures, "mpi");
	CHECK_EQ_INT(import_dir(&m, p, NULL, &e), 0);
	check_mpi_traces(&m, 1);
	memsink_free(&m);

	/* one rank directory alone is a plain uftrace.data directory */
	path2(p, sizeof p, fixtures, "mpi/rank-1");
	CHECK_EQ_INT(import_dir(&m, p, NULL, &e), 0);
	CHECK_EQ_INT(m.ntraces, 2);
	CHECK_EQ_INT(m.ntraces ? m.traces[0].meta.rank : 0, -1);
	memsink_free(&m);

	/* rank 0's toy.sym was never written (uftrace killed while it wrote the symbols): the
	 * symbols of rank-1, the same binary by its build id, name rank 0's calls, and the note
	 * says so */
	char sib[4400];
	path2(sib, sizeof sib, tmpdir, "sib");
	CHECK_EQ_INT(mkdir(sib, 0700), 0);
	CHECK_EQ_INT(copy_fixture("mpi/rank-0", "sib/rank-0", p, sizeof p), 0);
	char gone[4500];
	path2(gone, sizeof gone, p, "toy.sym");
	CHECK_EQ_INT(unlink(gone), 0);
	CHECK_EQ_INT(copy_fixture("mpi/rank-1", "sib/rank-1", p, sizeof p), 0);
	CHECK_EQ_INT(import_dir(&m, sib, NULL, &e), 0);
	check_mpi_traces(&m, 1);
	CHECK(m.ntraces == 4 && m.traces[0].note && strstr(m.traces[0].note, "symbols of toy from rank-1"));
	CHECK(m.ntraces == 4 && !(m.traces[2].note && strstr(m.traces[2].note, "symbols of")));
	memsink_free(&m);
	/* another binary (its build id differs): not taken, rank 0's names stay addresses */
	char symf[4500], text1[8192];
	path2(symf, sizeof symf, p, "toy.sym");
	FILE *sf = fopen(symf, "r");
	size_t sl = sf ? fread(text1, 1, sizeof text1 - 1, sf) : 0;
	if (sf)
		fclose(sf);
	text1[sl] = 0;
	char *bid = strstr(text1, "# build-id: 8871");
	CHECK(bid != NULL);
	if (bid)
		bid[12] = '9';
	CHECK_EQ_INT(spit(symf, text1, sl), 0);
	CHECK_EQ_INT(import_dir(&m, sib, NULL, &e), 0);
	CHECK_EQ_INT(m.ntraces, 4);
	CHECK(m.ntraces == 4 && !has_call(&m, &m.traces[0], "exchange"));
	CHECK(m.ntraces == 4 && has_call(&m, &m.traces[2], "exchange"));
	CHECK(m.ntraces == 4 && !(m.traces[0].note && strstr(m.traces[0].note, "symbols of")));
	memsink_free(&m);

	/* the launcher recorded too: orterun is skipped and said so */
	path2(p, sizeof p, fixtures, "mpirun");
	CHECK_EQ_INT(import_dir(&m, p, NULL, &e), 0);
	check_mpi_traces(&m, 0);
	CHECK(m.ntraces && m.traces[0].note && strstr(m.traces[0].note, "skipped launcher") &&
	      strstr(m.traces[0].note, "orterun"));
	int64_t pa = m.ntraces == 4 ? m.traces[0].meta.pid : 0;
	int64_t pb = m.ntraces == 4 ? m.traces[2].meta.pid : 0;
	memsink_free(&m);

	/* a manifest of pids gives the ranks */
	char man[4400], text[256];
	path2(man, sizeof man, tmpdir, "pids.manifest");
	snprintf(text, sizeof text, "# rank pid\n1 %" PRId64 "\n0 %" PRId64 "  # comment\n", pa,
		 pb);
	CHECK_EQ_INT(spit(man, text, strlen(text)), 0);
	CHECK_EQ_INT(import_dir(&m, p, man, &e), 0);
	CHECK_EQ_INT(m.ntraces, 4);
	if (m.ntraces == 4) {
		CHECK_EQ_INT(m.traces[0].meta.rank, 1);
		CHECK_EQ_INT(m.traces[1].meta.rank, 1);
		CHECK_EQ_INT(m.traces[2].meta.rank, 0);
	}
	memsink_free(&m);

	/* a manifest of directories overrides rank-N */
	path2(p, sizeof p, fixtures, "mpi");
	snprintf(text, sizeof text, "7 rank-0\n3 rank-1\n");
	CHECK_EQ_INT(spit(man, text, strlen(text)), 0);
	CHECK_EQ_INT(import_dir(&m, p, man, &e), 0);
	if (m.ntraces == 4) {
		CHECK_EQ_INT(m.traces[0].meta.rank, 7);
		CHECK_EQ_INT(m.traces[3].meta.rank, 3);
	}
	memsink_free(&m);

	/* bad manifests */
	snprintf(text, sizeof text, "0 rank-0\nx 12\n");
	CHECK_EQ_INT(spit(man, text, strlen(text)), 0);
	CHECK_EQ_INT(import_dir(&m, p, man, &e), -1);
	CHECK(errfmt_has(&e, "pids.manifest:2:1:"));
	memsink_free(&m);
	snprintf(text, sizeof text, "0 999999999\n");
	CHECK_EQ_INT(spit(man, text, strlen(text)), 0);
	CHECK_EQ_INT(import_dir(&m, p, man, &e), -1);
	CHECK(errfmt_has(&e, "pid not found"));
	memsink_free(&m);
	snprintf(text, sizeof text, "0 rank-0\n0 rank-1\n");
	CHECK_EQ_INT(spit(man, text, strlen(text)), 0);
	CHECK_EQ_INT(import_dir(&m, p, man, &e), -1);
	CHECK(errfmt_has(&e, "rank 0 given to two processes"));
	memsink_free(&m);
}

/* rank-N/uftrace.data works like rank-N; a rank directory without data is an error */
static void test_layouts(void)
{
	char d[4400], p[4400];
	memsink m;
	dt_err e;
	path2(d, sizeof d, tmpdir, "nested");
	CHECK_EQ_INT(mkdir(d, 0700), 0);
	path2(p, sizeof p, d, "rank-0");
	CHECK_EQ_INT(mkdir(p, 0700), 0);
	CHECK_EQ_INT(copy_fixture("mpi/rank-0", "nested/rank-0/uftrace.data", p, sizeof p), 0);
	path2(p, sizeof p, d, "rank-10");
	CHECK_EQ_INT(copy_fixture("mpi/rank-1", "nested/rank-10", p, sizeof p), 0);
	path2(p, sizeof p, d, "notes");
	CHECK_EQ_INT(mkdir(p, 0700), 0); /* not rank-N: ignored */
	CHECK_EQ_INT(import_dir(&m, d, NULL, &e), 0);
	CHECK_EQ_INT(m.ntraces, 4);
	if (m.ntraces == 4) {
		CHECK_EQ_INT(m.traces[0].meta.rank, 0);
		CHECK(strstr(m.traces[0].meta.source, "rank-0/uftrace.data/"));
		CHECK_EQ_INT(m.traces[3].meta.rank, 10);
	}
	memsink_free(&m);
	/* DIR holding uftrace.data, as `uftrace record` leaves it by default */
	path2(p, sizeof p, d, "rank-0");
	CHECK_EQ_INT(import_dir(&m, p, NULL, &e), 0);
	CHECK_EQ_INT(m.ntraces, 2);
	memsink_free(&m);
	path2(p, sizeof p, d, "rank-2");
	CHECK_EQ_INT(mkdir(p, 0700), 0);
	CHECK_EQ_INT(import_dir(&m, d, NULL, &e), -1);
	CHECK(errfmt_has(&e, "rank-2: no uftrace data here"));
	memsink_free(&m);
}

/* ---- damaged copies ----------------------------------------------------------------------- */

static void test_truncated(void)
{
	char d[4400], dat[4600];
	memsink m;
	dt_err e;
	uint8_t *buf;
	size_t len;
	CHECK_EQ_INT(copy_fixture("nest", "trunc", d, sizeof d), 0);
	CHECK_EQ_INT(first_dat(d, dat, sizeof dat), 0);
	CHECK_EQ_INT(slurp(dat, &buf, &len), 0);
	size_t nrec = len / 16;
	/* cut in the middle of the 11th record */
	CHECK_EQ_INT(spit(dat, buf, 10 * 16 + 7), 0);
	CHECK_EQ_INT(import_dir(&m, d, NULL, &e), 0);
	if (m.ntraces == 1) {
		memtrace *t = &m.traces[0];
		CHECK(t->flags & DT_TF_TRUNCATED);
		CHECK(t->flags & DT_TF_OPEN_FRAMES);
		CHECK(!(t->flags & DT_TF_UNMATCHED));
		CHECK_EQ_INT(t->n, 10);
		CHECK(t->note && strstr(t->note, "truncated at offset 160"));
		CHECK(t->note && strstr(t->note, "open at the end"));
	}
	memsink_free(&m);

	/* cut on a record boundary: nothing truncated, frames left open (not closed) */
	CHECK_EQ_INT(spit(dat, buf, 12 * 16), 0);
	CHECK_EQ_INT(import_dir(&m, d, NULL, &e), 0);
	if (m.ntraces == 1) {
		memtrace *t = &m.traces[0];
		CHECK_EQ_INT(t->flags, DT_TF_OPEN_FRAMES);
		CHECK_EQ_INT(t->n, 12);
		int fin = 0, mx = 0;
		CHECK(depth_ok(t, &fin, &mx));
		CHECK(fin > 0);
		char want[64];
		snprintf(want, sizeof want, "%d frame%s open", fin, fin == 1 ? "" : "s");
		CHECK(t->note && strstr(t->note, want));
	}
	memsink_free(&m);

	/* an empty file */
	CHECK_EQ_INT(spit(dat, buf, 0), 0);
	CHECK_EQ_INT(import_dir(&m, d, NULL, &e), 0);
	CHECK_EQ_INT(m.ntraces ? m.traces[0].flags : 0, DT_TF_EMPTY);
	memsink_free(&m);

	/* a bad magic in record 5: an error naming the file and the offset */
	memcpy(buf + 4 * 16 + 8, "\xff", 1);
	CHECK_EQ_INT(spit(dat, buf, nrec * 16), 0);
	CHECK_EQ_INT(import_dir(&m, d, NULL, &e), -1);
	CHECK(errfmt_has(&e, ".dat: offset 64: bad record magic"));
	memsink_free(&m);

	/* the .dat is gone (a thread killed before uftrace wrote it): an empty trace that says so,
	 * not a failed import */
	unlink(dat);
	CHECK_EQ_INT(import_dir(&m, d, NULL, &e), 0);
	CHECK_EQ_INT(m.ntraces, 1);
	CHECK_EQ_INT(m.ntraces ? m.traces[0].flags : 0, DT_TF_EMPTY | DT_TF_TRUNCATED);
	CHECK(m.ntraces && m.traces[0].note && strstr(m.traces[0].note, "no .dat file"));
	memsink_free(&m);
	/* a .dat that cannot be read for another reason is still an error */
	CHECK_EQ_INT(mkdir(dat, 0700), 0);
	dt_err_clear(&e);
	CHECK_EQ_INT(import_dir(&m, d, NULL, &e), -1);
	memsink_free(&m);
	rmdir(dat);
	free(buf);
}

static void test_bad_info(void)
{
	char d[4400], info[4600], f[4600];
	memsink m;
	dt_err e;
	uint8_t *buf;
	size_t len;
	CHECK_EQ_INT(copy_fixture("nest", "info", d, sizeof d), 0);
	path2(info, sizeof info, d, "info");
	CHECK_EQ_INT(slurp(info, &buf, &len), 0);

	uint8_t *bad = xmalloc(len + 64);
	memcpy(bad, buf, len);
	bad[0] = 'X';
	CHECK_EQ_INT(spit(info, bad, len), 0);
	CHECK_EQ_INT(import_dir(&m, d, NULL, &e), -1);
	CHECK(errfmt_has(&e, "info: offset 0: bad magic"));
	memsink_free(&m);

	memcpy(bad, buf, len);
	bad[8] = 9; /* version */
	CHECK_EQ_INT(spit(info, bad, len), 0);
	CHECK_EQ_INT(import_dir(&m, d, NULL, &e), -1);
	CHECK(errfmt_has(&e, "offset 8: unsupported uftrace data version 9"));
	memsink_free(&m);

	CHECK_EQ_INT(spit(info, buf, 30), 0);
	CHECK_EQ_INT(import_dir(&m, d, NULL, &e), -1);
	CHECK(errfmt_has(&e, "info header is 30 bytes"));
	memsink_free(&m);

	/* garbage text: a section that announces more lines than it has */
	memcpy(bad, buf, 40);
	const char *txt = "exename:/x\ntaskinfo:lines=3\ntaskinfo:nr_tid=1\n";
	memcpy(bad + 40, txt, strlen(txt));
	CHECK_EQ_INT(spit(info, bad, 40 + strlen(txt)), 0);
	CHECK_EQ_INT(import_dir(&m, d, NULL, &e), -1);
	CHECK(errfmt_has(&e, "ends inside section taskinfo"));
	memsink_free(&m);

	memcpy(bad + 40, "\x01\x02garbage\n", 10);
	CHECK_EQ_INT(spit(info, bad, 50), 0);
	CHECK_EQ_INT(import_dir(&m, d, NULL, &e), -1);
	CHECK(errfmt_has(&e, "info: offset 40:"));
	memsink_free(&m);

	txt = "taskinfo:lines=2\ntaskinfo:nr_tid=1\ntaskinfo:tids=12,x\n";
	memcpy(bad + 40, txt, strlen(txt));
	CHECK_EQ_INT(spit(info, bad, 40 + strlen(txt)), 0);
	CHECK_EQ_INT(import_dir(&m, d, NULL, &e), -1);
	CHECK(errfmt_has(&e, "bad taskinfo:tids"));
	memsink_free(&m);
	CHECK_EQ_INT(spit(info, buf, len), 0);

	/* task.txt damaged or missing */
	path2(f, sizeof f, d, "task.txt");
	CHECK_EQ_INT(spit(f, "SESS timestamp=1.2 pid=x sid=ab exename=\"/a\"\n", 44), 0);
	CHECK_EQ_INT(import_dir(&m, d, NULL, &e), -1);
	CHECK(errfmt_has(&e, "task.txt:1:1: bad SESS line"));
	memsink_free(&m);
	unlink(f);
	CHECK_EQ_INT(import_dir(&m, d, NULL, &e), -1);
	CHECK(errfmt_has(&e, "task.txt: cannot open"));
	memsink_free(&m);

	/* not a uftrace directory at all */
	CHECK_EQ_INT(import_dir(&m, tmpdir, NULL, &e), -1);
	CHECK(errfmt_has(&e, "no uftrace data"));
	memsink_free(&m);
	CHECK_EQ_INT(import_dir(&m, info, NULL, &e), -1);
	CHECK(errfmt_has(&e, "not a directory"));
	memsink_free(&m);
	free(bad);
	free(buf);
}

static void test_bad_sym(void)
{
	char d[4400], f[4600];
	memsink m;
	dt_err e;
	/* alone in its folder: the other copies of the fixture would lend it their symbols */
	path2(d, sizeof d, tmpdir, "symalone");
	CHECK_EQ_INT(mkdir(d, 0700), 0);
	CHECK_EQ_INT(copy_fixture("nest", "symalone/sym", d, sizeof d), 0);
	path2(f, sizeof f, d, "nest.sym");
	const char *txt = "# symbols: 2\n# path name: /tmp/dt-fixtures/nest\n"
			  "0000000000001000 T ok\nzz T bad\n";
	CHECK_EQ_INT(spit(f, txt, strlen(txt)), 0);
	CHECK_EQ_INT(import_dir(&m, d, NULL, &e), -1);
	CHECK(errfmt_has(&e, "nest.sym:4:1: bad symbol address"));
	memsink_free(&m);
	/* without a symbol table names fall back to module+offset, never fail */
	unlink(f);
	CHECK_EQ_INT(import_dir(&m, d, NULL, &e), 0);
	CHECK(m.nfuncs > 1 && strstr(m.funcs[1], "nest+0x"));
	memsink_free(&m);
}

/* Builds a record word (little-endian layout). */
static uint64_t recw(unsigned type, unsigned depth, uint64_t addr)
{
	return (uint64_t)type | (5u << 3) | ((uint64_t)depth << 6) | (addr << 16);
}

static void test_lost(void)
{
	char d[4400], dat[4600];
	memsink m, ref;
	dt_err e;
	uint8_t *buf;
	size_t len;
	CHECK_EQ_INT(copy_fixture("nest", "lost", d, sizeof d), 0);
	CHECK_EQ_INT(first_dat(d, dat, sizeof dat), 0);
	CHECK_EQ_INT(slurp(dat, &buf, &len), 0);
	CHECK_EQ_INT(import_dir(&ref, d, NULL, &e), 0);
	size_t nrec = len / 16;
	/* Records 6..9 are "main > mid > leaf ) leaf" (depths 1,2,2,2): replace records 7..12
	 * by one LOST record, as the writer does when its buffers overflow. */
	uint8_t *out = xmalloc(len);
	size_t o = 0;
	for (size_t i = 0; i < nrec; i++) {
		if (i >= 7 && i <= 12) {
			if (i == 7) {
				wr64(out + o, 0);
				wr64(out + o + 8, recw(2, 0, 6));
				o += 16;
			}
			continue;
		}
		memcpy(out + o, buf + i * 16, 16);
		o += 16;
	}
	CHECK_EQ_INT(spit(dat, out, o), 0);
	CHECK_EQ_INT(import_dir(&m, d, NULL, &e), 0);
	if (m.ntraces == 1 && ref.ntraces == 1) {
		memtrace *t = &m.traces[0];
		CHECK(t->flags & DT_TF_LOST);
		CHECK(!(t->flags & DT_TF_UNMATCHED));
		CHECK(!(t->flags & DT_TF_OPEN_FRAMES));
		CHECK_EQ_INT(t->ngaps, 1);
		CHECK_EQ_INT(t->nlost, 6);
		int fin = 0, mx = 0;
		CHECK(depth_ok(t, &fin, &mx));
		CHECK_EQ_INT(fin, 0);
		CHECK(ts_monotonic(t));
		CHECK(t->note && strstr(t->note, "6 records lost in 1 gap"));
		char *r = render(&m, t);
		/* main and fact still nest: the exits after the gap closed what was open */
		CHECK(strstr(r, "fact fact fact fact ) ) ) )"));
		CHECK(!strncmp(r + strlen(r) - 3, ") )", 3));
		free(r);
	}
	memsink_free(&ref);
	memsink_free(&m);

	/* an exit missing without a LOST record: flagged unmatched, still nested */
	memcpy(out, buf, len);
	/* drop record 8 (the exit of the first leaf) */
	memmove(out + 8 * 16, out + 9 * 16, len - 9 * 16);
	CHECK_EQ_INT(spit(dat, out, len - 16), 0);
	CHECK_EQ_INT(import_dir(&m, d, NULL, &e), 0);
	if (m.ntraces == 1) {
		memtrace *t = &m.traces[0];
		CHECK(t->flags & DT_TF_UNMATCHED);
		CHECK(!(t->flags & DT_TF_LOST));
		int fin = 0, mx = 0;
		CHECK(depth_ok(t, &fin, &mx));
		CHECK_EQ_INT(fin, 0);
	}
	memsink_free(&m);

	/* an exit at a depth with no open frame: dropped, flagged */
	memcpy(out, buf, len);
	wr64(out + len - 8, recw(1, 7, 0x1234));
	CHECK_EQ_INT(spit(dat, out, len), 0);
	CHECK_EQ_INT(import_dir(&m, d, NULL, &e), 0);
	if (m.ntraces == 1) {
		memtrace *t = &m.traces[0];
		CHECK(t->flags & DT_TF_UNMATCHED);
		CHECK(t->flags & DT_TF_OPEN_FRAMES); /* main's real exit was replaced */
	}
	memsink_free(&m);

	/* EVENT records with a payload are skipped */
	uint8_t *ev = xmalloc(len + 64);
	memcpy(ev, buf, 5 * 16);
	wr64(ev + 80, rd64(buf + 64));
	wr64(ev + 88, recw(3, 0, 100001) | 4u);
	memcpy(ev + 96, "\x05\x00hello\x00", 8);
	memcpy(ev + 104, buf + 80, len - 80);
	CHECK_EQ_INT(spit(dat, ev, len + 24), 0);
	CHECK_EQ_INT(import_dir(&m, d, NULL, &e), 0);
	CHECK_EQ_INT(m.ntraces ? m.traces[0].n : 0, nrec);
	CHECK_EQ_INT(m.ntraces ? m.traces[0].flags : 1, 0);
	memsink_free(&m);
	/* ... and one whose payload runs past the end is a truncation */
	CHECK_EQ_INT(spit(dat, ev, 96 + 4), 0);
	CHECK_EQ_INT(import_dir(&m, d, NULL, &e), 0);
	CHECK(m.ntraces && (m.traces[0].flags & DT_TF_TRUNCATED));
	memsink_free(&m);
	free(ev);
	free(out);
	free(buf);
}

/* A recording made with estimated returns (uftrace -e, ESTIMATE_RETURN in the info's features)
 * has entries only: the nest recording with its exit records taken out. Each entry closes the
 * frames at its depth and below with a made-up return, as uftrace's own estimate; none is an
 * unmatched frame. The same records without the feature are. */
static void test_estimate(void)
{
	char d[4400], dat[4600], info[4600];
	memsink m;
	dt_err e;
	uint8_t *buf, *hdr;
	size_t len, hlen;
	CHECK_EQ_INT(copy_fixture("nest", "estimate", d, sizeof d), 0);
	CHECK_EQ_INT(first_dat(d, dat, sizeof dat), 0);
	CHECK_EQ_INT(slurp(dat, &buf, &len), 0);
	size_t o = 0, nent = 0;
	for (size_t i = 0; i + 16 <= len; i += 16) {
		if ((rd64(buf + i + 8) & 3) != 0)
			continue; /* an exit: not recorded under -e */
		memmove(buf + o, buf + i, 16);
		o += 16;
		nent++;
	}
	CHECK(nent > 4 && o < len);
	CHECK_EQ_INT(spit(dat, buf, o), 0);
	/* without the feature, the missing exits are unmatched frames */
	CHECK_EQ_INT(import_dir(&m, d, NULL, &e), 0);
	CHECK(m.ntraces == 1 && (m.traces[0].flags & DT_TF_UNMATCHED));
	memsink_free(&m);
	path2(info, sizeof info, d, "info");
	CHECK_EQ_INT(slurp(info, &hdr, &hlen), 0);
	CHECK(hlen >= 40);
	if (hlen >= 40) {
		wr64(hdr + 16, rd64(hdr + 16) | UFD_FEAT_ESTIMATE_RETURN);
		CHECK_EQ_INT(spit(info, hdr, hlen), 0);
	}
	CHECK_EQ_INT(import_dir(&m, d, NULL, &e), 0);
	CHECK_EQ_INT(m.ntraces, 1);
	if (m.ntraces == 1) {
		memtrace *t = &m.traces[0];
		CHECK(!(t->flags & DT_TF_UNMATCHED));
		CHECK(!(t->flags & DT_TF_LOST));
		int fin = 0, mx = 0;
		CHECK(depth_ok(t, &fin, &mx));
		CHECK(ts_monotonic(t));
		char *r = render(&m, t);
		/* every entry is there, nested as recorded */
		CHECK(strstr(r, "main mid leaf ) leaf ) leaf ) ) mid leaf ) leaf ) leaf"));
		free(r);
		CHECK(t->note && strstr(t->note, "returns estimated at record time"));
		CHECK(t->note && !strstr(t->note, "did not nest"));
	}
	memsink_free(&m);
	free(hdr);
	free(buf);
}

static void test_bad_args(void)
{
	char d[4400], dat[4600];
	memsink m;
	dt_err e;
	uint8_t *buf;
	size_t len;
	CHECK_EQ_INT(copy_fixture("args", "badargs", d, sizeof d), 0);
	CHECK_EQ_INT(first_dat(d, dat, sizeof dat), 0);
	CHECK_EQ_INT(slurp(dat, &buf, &len), 0);
	/* find f1's entry: the first record with the `more` bit */
	size_t at = 0;
	while (at + 16 <= len && !(rd64(buf + at + 8) & 4))
		at += 16;
	CHECK(at + 16 < len);
	/* cut inside its payload: the entry is kept without arguments, flagged */
	CHECK_EQ_INT(spit(dat, buf, at + 16 + 12), 0);
	CHECK_EQ_INT(import_dir(&m, d, NULL, &e), 0);
	if (m.ntraces == 1) {
		memtrace *t = &m.traces[0];
		CHECK(t->flags & DT_TF_TRUNCATED);
		CHECK(has_call(&m, t, "f1"));
		CHECK_EQ_INT(t->nargs, 0);
	}
	memsink_free(&m);
	/* a payload on a function no argspec names cannot be decoded: an error, not a guess */
	uint8_t *b2 = xmalloc(len);
	memcpy(b2, buf, len);
	wr64(b2 + 8, rd64(b2 + 8) | 4); /* __monstartup's entry */
	CHECK_EQ_INT(spit(dat, b2, len), 0);
	CHECK_EQ_INT(import_dir(&m, d, NULL, &e), -1);
	CHECK(errfmt_has(&e, ".dat: offset 0: entry of __monstartup carries argument data"));
	memsink_free(&m);
	free(b2);
	free(buf);
}

/* The same recording written by a big-endian machine decodes to the same trace. */
static void test_big_endian(void)
{
	char d[4400], dat[4600], info[4600];
	memsink m, ref;
	dt_err e;
	uint8_t *buf, *ib;
	size_t len, ilen;
	CHECK_EQ_INT(copy_fixture("nest", "be", d, sizeof d), 0);
	CHECK_EQ_INT(import_dir(&ref, d, NULL, &e), 0);
	CHECK_EQ_INT(first_dat(d, dat, sizeof dat), 0);
	path2(info, sizeof info, d, "info");
	CHECK_EQ_INT(slurp(dat, &buf, &len), 0);
	CHECK_EQ_INT(slurp(info, &ib, &ilen), 0);
	for (size_t i = 0; i + 16 <= len; i += 16) {
		uint64_t ts = rd64(buf + i), w = rd64(buf + i + 8);
		uint64_t be = ((w & 3) << 62) | (((w >> 2) & 1) << 61) | (((w >> 3) & 7) << 58) |
			      (((w >> 6) & 0x3ff) << 48) | (w >> 16);
		wr64(buf + i, __builtin_bswap64(ts));
		wr64(buf + i + 8, __builtin_bswap64(be));
	}
	uint32_t v32;
	uint16_t v16;
	uint64_t v64;
	memcpy(&v32, ib + 8, 4);
	v32 = __builtin_bswap32(v32);
	memcpy(ib + 8, &v32, 4);
	memcpy(&v16, ib + 12, 2);
	v16 = (uint16_t)((v16 >> 8) | (v16 << 8));
	memcpy(ib + 12, &v16, 2);
	ib[14] = 2;
	for (int off = 16; off <= 24; off += 8) {
		memcpy(&v64, ib + off, 8);
		v64 = __builtin_bswap64(v64);
		memcpy(ib + off, &v64, 8);
	}
	CHECK_EQ_INT(spit(dat, buf, len), 0);
	CHECK_EQ_INT(spit(info, ib, ilen), 0);
	CHECK_EQ_INT(import_dir(&m, d, NULL, &e), 0);
	if (m.ntraces == 1 && ref.ntraces == 1) {
		memtrace *a = &ref.traces[0], *b = &m.traces[0];
		CHECK_EQ_INT(a->n, b->n);
		CHECK(a->n == b->n && !memcmp(a->ts, b->ts, a->n * 8));
		char *ra = render(&ref, a), *rb = render(&m, b);
		CHECK_EQ_STR(ra, rb);
		free(ra);
		free(rb);
	}
	memsink_free(&m);
	memsink_free(&ref);
	free(buf);
	free(ib);
}

/* Garbage bytes anywhere in the .dat: an error or flags, never a crash (run under ASan). */
static void test_noise(void)
{
	char d[4400], dat[4600];
	memsink m;
	dt_err e;
	uint8_t *buf;
	size_t len;
	CHECK_EQ_INT(copy_fixture("args", "noise", d, sizeof d), 0);
	CHECK_EQ_INT(first_dat(d, dat, sizeof dat), 0);
	CHECK_EQ_INT(slurp(dat, &buf, &len), 0);
	uint8_t *b = xmalloc(len);
	uint32_t seed = 12345;
	for (int round = 0; round < 300; round++) {
		memcpy(b, buf, len);
		for (int k = 0; k < 1 + round % 4; k++) {
			seed = seed * 1103515245u + 12345u;
			size_t at = (seed >> 8) % len;
			seed = seed * 1103515245u + 12345u;
			b[at] ^= (uint8_t)(1u << ((seed >> 16) % 8));
		}
		size_t cut = round % 3 ? len : (seed >> 4) % len;
		CHECK_EQ_INT(spit(dat, b, cut), 0);
		int rc = import_dir(&m, d, NULL, &e);
		if (rc)
			CHECK(e.file[0] && e.msg[0]);
		memsink_free(&m);
	}
	free(b);
	free(buf);
}

int main(void)
{
	const char *top = getenv("abs_top_srcdir");
	snprintf(fixtures, sizeof fixtures, "%s/tests/data/uftrace", top ? top : ".");
	char probe[4200];
	snprintf(probe, sizeof probe, "%s/nest/info", fixtures);
	if (access(probe, R_OK))
		SKIP("fixtures not found in %s (set abs_top_srcdir)", fixtures);
	const char *tmp = getenv("TMPDIR");
	snprintf(tmpdir, sizeof tmpdir, "%s/test_uftrace.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_nest();
	test_args();
	test_spec_parse();
	test_omp();
	test_mpi();
	test_layouts();
	test_truncated();
	test_bad_info();
	test_bad_sym();
	test_lost();
	test_estimate();
	test_bad_args();
	test_big_endian();
	test_noise();
	rm_tree(tmpdir);
	CHECK_DONE();
}
