/* bench_nlr_k.c: whether traces need NLR with K above 32, the longest body NLR accepts.
 *
 * For each text trace given (one function name per line, `[ret]` for a return: what
 * `difftrace show --format text` prints), it compresses the events at K = 10 and K = 32 and
 * then looks in the K = 32 output for what a larger K would fold first: three equal
 * consecutive blocks of b entries, for every b from 33 to 512 (a run of i where
 * v[i] == v[i + b] reaching 2b). It prints the events, the entries at both K, and the number
 * of positions where such a triple starts with the longest b found ("none" when a larger K
 * finds nothing at the top level). With no file, the two synthetic workloads of bench_nlr
 * (10^7 events each) are examined the same way. With -c, returns are left out, as the
 * analysis's filters leave them out (the calls the filter `everything` keeps).
 * Usage: bench_nlr_k [-c] [FILE...] */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/nlr.h"
#include "util/util.h"
#include "workload.h"

#define BMAX 512

/* Function names to ids, by linear probing; 0 is the return. */
typedef struct names {
	char **s;
	uint32_t *id;
	size_t cap, n;
} names;

static uint32_t name_id(names *nm, const char *s)
{
	if (!strcmp(s, "[ret]"))
		return 0;
	if (2 * (nm->n + 1) > nm->cap) {
		names old = *nm;
		nm->cap = old.cap ? 2 * old.cap : 1024;
		nm->s = xcalloc(nm->cap, sizeof *nm->s);
		nm->id = xcalloc(nm->cap, sizeof *nm->id);
		nm->n = 0;
		for (size_t i = 0; i < old.cap; i++) {
			if (!old.s[i])
				continue;
			size_t h = 5381;
			for (const char *p = old.s[i]; *p; p++)
				h = h * 33 + (unsigned char)*p;
			size_t j = h & (nm->cap - 1);
			while (nm->s[j])
				j = (j + 1) & (nm->cap - 1);
			nm->s[j] = old.s[i];
			nm->id[j] = old.id[i];
			nm->n++;
		}
		free(old.s);
		free(old.id);
	}
	size_t h = 5381;
	for (const char *p = s; *p; p++)
		h = h * 33 + (unsigned char)*p;
	size_t j = h & (nm->cap - 1);
	while (nm->s[j]) {
		if (!strcmp(nm->s[j], s))
			return nm->id[j];
		j = (j + 1) & (nm->cap - 1);
	}
	nm->s[j] = xstrdup(s);
	nm->id[j] = (uint32_t)++nm->n;
	return nm->id[j];
}

static void names_free(names *nm)
{
	for (size_t i = 0; i < nm->cap; i++)
		free(nm->s[i]);
	free(nm->s);
	free(nm->id);
}

static int calls_only;

static int read_trace(const char *path, uint32_t **ev, size_t *n)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		perror(path);
		return -1;
	}
	names nm = { 0 };
	char *line = NULL;
	size_t lcap = 0, cap = 0;
	ssize_t len;
	*ev = NULL;
	*n = 0;
	while ((len = getline(&line, &lcap, f)) >= 0) {
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if (!len || (calls_only && !strcmp(line, "[ret]")))
			continue;
		GROW(*ev, cap, *n + 1);
		(*ev)[(*n)++] = name_id(&nm, line);
	}
	free(line);
	names_free(&nm);
	fclose(f);
	return 0;
}

static nlr_entry *compress(const uint32_t *ev, size_t n, unsigned k, size_t *nout)
{
	dt_err e;
	dt_err_clear(&e);
	nlr_table *t = nlr_table_new();
	nlr_opts o = { k, 0, 0 };
	nlr_entry *v;
	if (nlr_compress(t, &o, ev, n, &v, nout, &e)) {
		fprintf(stderr, "bench_nlr_k: %s\n", e.msg);
		exit(1);
	}
	nlr_table_free(t);
	return v;
}

static void examine(const char *what, const uint32_t *ev, size_t n)
{
	size_t n10, n32;
	free(compress(ev, n, 10, &n10));
	nlr_entry *v = compress(ev, n, 32, &n32);
	size_t found = 0, longest = 0;
	for (size_t b = 33; b <= BMAX && 3 * b <= n32; b++) {
		size_t run = 0;
		for (size_t i = 0; i + b < n32; i++) {
			run = nlr_entry_eq(v[i], v[i + b]) ? run + 1 : 0;
			if (run == 2 * b) {
				found++;
				longest = b;
				run = 0;
			}
		}
	}
	free(v);
	printf("%-48s %12zu events  K=10 %10zu  K=32 %10zu entries  ", what, n, n10, n32);
	if (found)
		printf("bodies of 33..%d unfolded: %zu, longest %zu\n", BMAX, found, longest);
	else
		printf("bodies of 33..%d unfolded: none\n", BMAX);
}

int main(int argc, char **argv)
{
	int first = 1;
	if (argc > 1 && !strcmp(argv[1], "-c")) {
		calls_only = 1;
		first = 2;
	}
	if (argc <= first) {
		size_t n = 10000000;
		uint32_t *ev = xmalloc(n * sizeof *ev);
		workload_fill(ev, n, 42);
		examine("workload (bench_nlr)", ev, n);
		irregular_fill(ev, n, 7);
		examine("irregular (bench_nlr)", ev, n);
		free(ev);
		return 0;
	}
	for (int i = first; i < argc; i++) {
		uint32_t *ev;
		size_t n;
		if (read_trace(argv[i], &ev, &n))
			return 1;
		const char *base = strrchr(argv[i], '/');
		examine(base ? base + 1 : argv[i], ev, n);
		free(ev);
	}
	return 0;
}
