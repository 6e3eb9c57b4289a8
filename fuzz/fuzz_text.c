/* fuzz_text.c: the text importer on arbitrary file contents. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "import/import.h"
#include "import/memsink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	snprintf(path, sizeof path, "/tmp/dt-fuzz-text-%d.1.0.txt", (int)getpid());
	FILE *f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	memsink m;
	memsink_init(&m, 1);
	dt_err e;
	dt_err_clear(&e);
	dt_import_opts o = { 0 };
	import_text(path, &o, &m.sink, &e);
	memsink_free(&m);
	unlink(path);
	return 0;
}
