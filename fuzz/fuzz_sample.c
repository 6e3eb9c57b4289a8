/* fuzz_sample.c: the sample record importer (difftrace-sample(5)) on arbitrary file contents:
 * one thread's file and its process's maps file in a rank directory's sample folder, as
 * difftrace-record --sample leaves them. The input is the maps file's text, a NUL byte, then
 * the thread file; an empty maps part (the input starts with NUL) writes no maps file, and an
 * input without NUL is all thread file. A maps line may name /proc/self/exe, the fuzzer itself,
 * so that program counters are symbolized against a real binary with DWARF. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import/blame_data.h"
#include "import/import_sample.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void put(const char *path, const uint8_t *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return;
	fwrite(p, 1, n, f);
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char top[64], dir[96], sdir[128], dtp[192], maps[192];
	snprintf(top, sizeof top, "/tmp/dt-fuzz-sample-%d", (int)getpid());
	snprintf(dir, sizeof dir, "%s/rank-0", top);
	snprintf(sdir, sizeof sdir, "%s/sample", dir);
	snprintf(dtp, sizeof dtp, "%s/100.100.dtp", sdir);
	snprintf(maps, sizeof maps, "%s/100.maps", sdir);
	mkdir(top, 0700);
	mkdir(dir, 0700);
	mkdir(sdir, 0700);
	const uint8_t *nul = memchr(data, 0, size);
	size_t mlen = nul ? (size_t)(nul - data) : 0;
	const uint8_t *body = nul ? nul + 1 : data;
	size_t blen = nul ? size - mlen - 1 : size;
	if (mlen)
		put(maps, data, mlen);
	put(dtp, body, blen);
	dt_blame_data d;
	memset(&d, 0, sizeof d);
	dt_err e;
	dt_err_clear(&e);
	int found = 0;
	sample_import(top, &d, &found, &e);
	dt_blame_data_free(&d);
	unlink(dtp);
	unlink(maps);
	rmdir(sdir);
	rmdir(dir);
	rmdir(top);
	return 0;
}
