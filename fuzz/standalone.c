/* standalone.c: runs a fuzz target on files, without libFuzzer, so that the saved corpora and
 * every crash ever found run as regression tests in `make check` (under the sanitizers).
 * Usage: fuzz_X FILE_OR_DIR... */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *p)
{
	FILE *f = fopen(p, "rb");
	if (!f) {
		perror(p);
		return 1;
	}
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (n == cap)
			buf = realloc(buf, cap = cap ? cap * 2 : 4096);
		size_t r = fread(buf + n, 1, cap - n, f);
		if (!r)
			break;
		n += r;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int files = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			perror(argv[i]);
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			files++;
			if (run_file(argv[i]))
				return 1;
			continue;
		}
		DIR *d = opendir(argv[i]);
		struct dirent *de;
		while (d && (de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			char p[4096];
			snprintf(p, sizeof p, "%s/%s", argv[i], de->d_name);
			files++;
			if (run_file(p))
				return 1;
		}
		if (d)
			closedir(d);
	}
	printf("%d inputs ran\n", files);
	return 0;
}
