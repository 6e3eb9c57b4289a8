/* fuzz_parlot.c: the ParLOT importer on arbitrary files. The first input byte chooses what the
 * rest is: the compressed per-thread file (with a fixed .info), the .info file (with a fixed
 * small trace), or a raw WDBG file. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import/import.h"
#include "import/memsink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void put(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return;
	fwrite(p, 1, n, f);
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	char dir[64], trace[128], info[128];
	snprintf(dir, sizeof dir, "/tmp/dt-fuzz-parlot-%d", (int)getpid());
	mkdir(dir, 0700);
	snprintf(trace, sizeof trace, "%s/Hdbg.17.host.77.0", dir);
	snprintf(info, sizeof info, "%s/Hdbg.17.host.77.info", dir);
	static const char fixed_info[] = "+\n/bin/app\nmain\nfoo\nbar\n";
	static const uint8_t fixed_trace[] = { 0x54, 0x01, 0x02, 0x03, 0x05, 0x04, 0x05, 0x02 };
	int mode = data[0] % 3;
	if (mode == 1) {
		put(trace, fixed_trace, sizeof fixed_trace);
		put(info, data + 1, size - 1);
	} else {
		put(trace, data + 1, size - 1);
		put(info, fixed_info, sizeof fixed_info - 1);
	}
	memsink m;
	memsink_init(&m, 0);
	dt_err e;
	dt_err_clear(&e);
	dt_import_opts o = { 0 };
	import_parlot(trace, mode == 2, &o, &m.sink, &e);
	memsink_free(&m);
	unlink(trace);
	unlink(info);
	rmdir(dir);
	return 0;
}
