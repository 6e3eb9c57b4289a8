/* fuzz_uftrace.c: the uftrace importer on damaged recordings. A real recording with argument
 * capture (tests/data/uftrace/args) is copied to a scratch directory; the first input byte
 * picks one of its files (the .dat, info, task.txt, the map, the .sym, the .dbg) and the rest
 * of the input replaces that file's contents. The fixture directory comes from
 * $DIFFTRACE_FUZZ_FIXTURE, else from $abs_top_srcdir, else from FUZZ_FIXTURE at build time. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import/import.h"
#include "import/memsink.h"
#include "util/util.h"

#ifndef FUZZ_FIXTURE
#define FUZZ_FIXTURE "tests/data/uftrace/args"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fixture {
	char dir[128];
	char *names[16];
	uint8_t *orig[16];
	size_t len[16], n;
};

static void write_file(const char *dir, const char *name, const uint8_t *p, size_t n)
{
	char path[512];
	int len = snprintf(path, sizeof path, "%s/%s", dir, name);
	if (len < 0 || (size_t)len >= sizeof path)
		return;
	FILE *f = fopen(path, "wb");
	if (!f)
		return;
	fwrite(p, 1, n, f);
	fclose(f);
}

/* The fuzzer calls the target millions of times in one process; the fixture is read once. */
static struct fixture *fixture(void)
{
	static struct fixture fx;
	static int ready;
	if (ready)
		return fx.n ? &fx : NULL;
	ready = 1;
	char src[600];
	const char *env = getenv("DIFFTRACE_FUZZ_FIXTURE");
	const char *top = getenv("abs_top_srcdir");
	if (env && *env)
		snprintf(src, sizeof src, "%s", env);
	else if (top && *top)
		snprintf(src, sizeof src, "%s/tests/data/uftrace/args", top);
	else
		snprintf(src, sizeof src, "%s", FUZZ_FIXTURE);
	snprintf(fx.dir, sizeof fx.dir, "/tmp/dt-fuzz-uftrace-%d", (int)getpid());
	mkdir(fx.dir, 0700);
	DIR *d = opendir(src);
	if (!d) {
		fprintf(stderr, "fuzz_uftrace: no fixture at %s\n", src);
		return NULL;
	}
	struct dirent *de;
	while ((de = readdir(d)) && fx.n < 16) {
		if (de->d_name[0] == '.')
			continue;
		char p[1200];
		snprintf(p, sizeof p, "%s/%s", src, de->d_name);
		dt_err e;
		dt_err_clear(&e);
		if (read_file(p, &fx.orig[fx.n], &fx.len[fx.n], &e))
			continue;
		fx.names[fx.n] = xstrdup(de->d_name);
		write_file(fx.dir, fx.names[fx.n], fx.orig[fx.n], fx.len[fx.n]);
		fx.n++;
	}
	closedir(d);
	return fx.n ? &fx : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fixture *fx = fixture();
	if (!fx || !size)
		return 0;
	/* a stable choice of file, whatever order readdir gave */
	static const char *const order[] = { ".dat", "info", "task.txt", ".map", ".sym", ".dbg" };
	const char *want = order[data[0] % 6];
	size_t pick = 0;
	for (size_t i = 0; i < fx->n; i++) {
		size_t l = strlen(fx->names[i]), w = strlen(want);
		if (l >= w && !strcmp(fx->names[i] + l - w, want)) {
			pick = i;
			break;
		}
	}
	write_file(fx->dir, fx->names[pick], data + 1, size - 1);
	memsink m;
	memsink_init(&m, 0);
	dt_err e;
	dt_err_clear(&e);
	dt_import_opts o = { 0 };
	import_uftrace(fx->dir, &o, &m.sink, &e);
	memsink_free(&m);
	write_file(fx->dir, fx->names[pick], fx->orig[pick], fx->len[pick]);
	return 0;
}
