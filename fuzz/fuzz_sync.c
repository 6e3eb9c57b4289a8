/* fuzz_sync.c: the sync record importer (difftrace-sync(5)) on arbitrary file contents: one
 * thread's file in a rank directory, as difftrace-record leaves it. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import/import.h"
#include "import/memsink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char top[64], dir[96], path[160];
	snprintf(top, sizeof top, "/tmp/dt-fuzz-sync-%d", (int)getpid());
	snprintf(dir, sizeof dir, "%s/rank-0", top);
	mkdir(top, 0700);
	mkdir(dir, 0700);
	snprintf(path, sizeof path, "%s/sync", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof path, "%s/sync/100.100.dts", dir);
	FILE *f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	memsink m;
	memsink_init(&m, 1);
	dt_err e;
	dt_err_clear(&e);
	import_path(top, DT_FMT_SYNC, NULL, &m.sink, &e);
	memsink_free(&m);
	unlink(path);
	snprintf(path, sizeof path, "%s/sync", dir);
	rmdir(path);
	rmdir(dir);
	rmdir(top);
	return 0;
}
