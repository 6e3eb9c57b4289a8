/* transfer.c: the transfer-function files (difftrace-transfer(5)), the shipped ones
 * (mpi.transfer, libc.transfer, blas.transfer), and the blame of a sample inside an MPI call. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "blame/transfer.h"
#include "util/util.h"

#ifndef PKGDATADIR
#define PKGDATADIR "/usr/local/share/difftrace"
#endif

void transfer_free(transfer_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		free(set->fn[i].name);
		free(set->fn[i].file);
	}
	free(set->fn);
	memset(set, 0, sizeof *set);
}

const transfer_fn *transfer_find(const transfer_set *set, const char *name)
{
	for (size_t i = set->n; i-- > 0;)
		if (!strcmp(set->fn[i].name, name))
			return &set->fn[i];
	return NULL;
}

/* An argument position at *p (1..64); advances *p. */
static int arg_num(const char **p, int *out)
{
	const char *s = *p;
	int v = 0, k = 0;
	while (isdigit((unsigned char)*s) && k < 3) {
		v = v * 10 + (*s++ - '0');
		k++;
	}
	if (!k || v < 1 || v > 64 || isdigit((unsigned char)*s))
		return -1;
	*p = s;
	*out = v;
	return 0;
}

static int is_end(char c)
{
	return c == 0 || c == ' ' || c == '\t' || c == '#';
}

static int parse_line(transfer_set *set, const char *name, int lno, const char *line,
		      dt_err *e)
{
	const char *p = line;
#define COL(q) ((int)((q) - line) + 1)
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '#')
		return 0;
	const char *n0 = p;
	if (!(isalpha((unsigned char)*p) || *p == '_'))
		return dt_err_lc(e, name, lno, COL(p), "a function name must start the line");
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	if (!is_end(*p))
		return dt_err_lc(e, name, lno, COL(p), "unexpected '%c' in the function name", *p);
	transfer_fn f;
	memset(&f, 0, sizeof f);
	size_t nlen = (size_t)(p - n0);
	int any = 0;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			break;
		const char *k0 = p;
		while (isalpha((unsigned char)*p))
			p++;
		size_t kl = (size_t)(p - k0);
		if (*p != '=')
			return dt_err_lc(e, name, lno, COL(k0),
					 "expected blame=, from=, bytes=, size=, request= or wait=");
		p++;
		const char *v0 = p;
		int ok = 0;
		if (kl == 5 && !strncmp(k0, "blame", 5)) {
			if (!strncmp(p, "return", 6) && is_end(p[6])) {
				ok = !f.blame;
				f.blame = TRANSFER_RETURN;
				p += 6;
			} else
				ok = !f.blame && arg_num(&p, &f.blame) == 0;
		} else if (kl == 4 && !strncmp(k0, "size", 4)) {
			/* bytes per element: 1 to 4096 */
			int v = 0, k = 0;
			while (isdigit((unsigned char)*p) && k < 5) {
				v = v * 10 + (*p++ - '0');
				k++;
			}
			ok = !f.size && k && v >= 1 && v <= 4096;
			f.size = v;
		} else if (kl == 7 && !strncmp(k0, "request", 7))
			ok = !f.request && arg_num(&p, &f.request) == 0;
		else if (kl == 4 && !strncmp(k0, "wait", 4))
			ok = !f.wait && arg_num(&p, &f.wait) == 0;
		else if (kl == 5 && !strncmp(k0, "bytes", 5)) {
			/* COUNT, COUNT*TYPE or COUNT*TYPE*TYPE2 */
			ok = !f.count && arg_num(&p, &f.count) == 0;
			if (ok && *p == '*') {
				p++;
				ok = arg_num(&p, &f.type) == 0;
			}
			if (ok && *p == '*') {
				p++;
				ok = arg_num(&p, &f.type2) == 0;
			}
		} else if (kl == 4 && !strncmp(k0, "from", 4)) {
			int k = 0;
			ok = !f.from[0];
			while (ok) {
				if (k == TRANSFER_MAX_FROM - 1 || arg_num(&p, &f.from[k++]) != 0) {
					ok = 0;
					break;
				}
				if (*p != ',')
					break;
				p++;
			}
		} else
			return dt_err_lc(e, name, lno, COL(k0), "unknown key '%.*s'", (int)kl, k0);
		if (!ok || !is_end(*p)) {
			const char *how = "argument numbers 1 to 64";
			if (kl == 5 && !strncmp(k0, "bytes", 5)) {
				how = "argument numbers 1 to 64, as COUNT[*TYPE[*TYPE]]";
				ok = 0; /* the column of the value, not of the character after it */
			}
			else if (kl == 5 && !strncmp(k0, "blame", 5))
				how = "an argument number 1 to 64 or 'return'";
			else if (kl == 4 && !strncmp(k0, "size", 4))
				how = "a number of bytes 1 to 4096";
			return dt_err_lc(e, name, lno, COL(ok ? p : v0),
					 "bad or repeated value of '%.*s' (%s)", (int)kl, k0, how);
		}
		any = 1;
	}
	if (!any)
		return dt_err_lc(e, name, lno, COL(p), "'%.*s' says nothing: give blame= or wait=",
				 (int)nlen, n0);
	if (!f.blame && !f.wait)
		return dt_err_lc(e, name, lno, COL(n0), "'%.*s' has neither blame= nor wait=",
				 (int)nlen, n0);
	if (f.size && !f.count)
		return dt_err_lc(e, name, lno, COL(n0), "'%.*s' has size= without bytes=",
				 (int)nlen, n0);
	f.name = xstrndup(n0, nlen);
	f.file = xstrdup(name);
	f.line = lno;
	grow((void **)&set->fn, &set->cap, set->n + 1, sizeof *set->fn);
	set->fn[set->n++] = f;
	return 0;
#undef COL
}

int transfer_parse(transfer_set *set, const char *name, const char *text, size_t len,
		   dt_err *e)
{
	size_t start = 0;
	int lno = 0;
	while (start < len) {
		size_t end = start;
		while (end < len && text[end] != '\n')
			end++;
		lno++;
		char *line = xstrndup(text + start, end - start);
		size_t l = strlen(line);
		if (l != end - start) {
			free(line);
			return dt_err_lc(e, name, lno, (int)l + 1, "a NUL byte in the line");
		}
		if (l && line[l - 1] == '\r')
			line[l - 1] = 0;
		int rc = parse_line(set, name, lno, line, e);
		free(line);
		if (rc)
			return -1;
		start = end + 1;
	}
	return 0;
}

int transfer_load(transfer_set *set, const char *file, dt_err *e)
{
	uint8_t *data;
	size_t len;
	if (read_file(file, &data, &len, e))
		return -1;
	int rc = transfer_parse(set, file, (const char *)data, len, e);
	free(data);
	return rc;
}

const char *const transfer_shipped[] = { "mpi.transfer", "libc.transfer", "blas.transfer",
					 NULL };

char *transfer_shipped_path(const char *file)
{
	const char *env = getenv("DIFFTRACE_BLAME_PATH");
	if (env && *env)
		return path_join(env, file);
	char *inst = path_join(PKGDATADIR "/blame", file);
#ifdef SRCDIR_BLAME
	struct stat st;
	char *tree = path_join(SRCDIR_BLAME, file);
	if (stat(inst, &st) != 0 && stat(tree, &st) == 0) {
		free(inst);
		return tree;
	}
	free(tree);
#endif
	return inst;
}

char *transfer_default_path(void)
{
	return transfer_shipped_path("mpi.transfer");
}

int transfer_load_shipped(transfer_set *set, dt_err *e)
{
	for (size_t i = 0; transfer_shipped[i]; i++) {
		char *p = transfer_shipped_path(transfer_shipped[i]);
		/* the MPI table is needed; a directory of one's own (DIFFTRACE_BLAME_PATH) may
		 * leave out the C library's and BLAS's */
		struct stat st;
		if (i > 0 && stat(p, &st) != 0 && errno == ENOENT) {
			free(p);
			continue;
		}
		int rc = transfer_load(set, p, e);
		free(p);
		if (rc)
			return -1;
	}
	return 0;
}

/* What the sampler records for each call it wraps (sample.c): the argument positions of the
 * send and the receive buffer. */
static const struct {
	const char *call;
	int send, recv;
} recorded[] = {
	{ "MPI_Send", 1, 0 },      { "MPI_Ssend", 1, 0 },     { "MPI_Recv", 0, 1 },
	{ "MPI_Isend", 1, 0 },     { "MPI_Irecv", 0, 1 },     { "MPI_Sendrecv", 1, 6 },
	{ "MPI_Bcast", 1, 0 },     { "MPI_Reduce", 1, 2 },    { "MPI_Allreduce", 1, 2 },
	{ "MPI_Gather", 1, 4 },    { "MPI_Scatter", 1, 4 },   { "MPI_Allgather", 1, 4 },
	{ "MPI_Alltoall", 1, 4 },  { "MPI_Wait", 1, 1 },      { "MPI_Waitall", 2, 2 },
};

int transfer_recorded_args(const char *call, int *send_arg, int *recv_arg)
{
	for (size_t i = 0; i < sizeof recorded / sizeof *recorded; i++)
		if (!strcmp(recorded[i].call, call)) {
			*send_arg = recorded[i].send;
			*recv_arg = recorded[i].recv;
			return 1;
		}
	*send_arg = *recv_arg = 0;
	return 0;
}

/* The container of argument a, -1 when it is not a recorded buffer or points nowhere known. */
static int32_t cont_of(int a, int sa, int ra, int32_t c0, int32_t c1)
{
	if (!a)
		return -1;
	if (a == sa && c0 >= 0)
		return c0;
	if (a == ra && c1 >= 0)
		return c1;
	return -1;
}

int32_t transfer_blame(const transfer_set *set, const char *call, int32_t c0, int32_t c1)
{
	const transfer_fn *f = transfer_find(set, call);
	int sa, ra;
	if (!f || !transfer_recorded_args(call, &sa, &ra))
		return -1;
	if (f->wait) /* the sampler recorded the buffers of the requests waited for */
		return f->wait == sa ? (c0 >= 0 ? c0 : c1) : -1;
	int32_t c = cont_of(f->blame, sa, ra, c0, c1);
	/* the blamed buffer is not significant here (a reduction's result on a rank that is
	 * not the root, MPI_IN_PLACE): the data that feed it carry the blame */
	for (int k = 0; c < 0 && k < TRANSFER_MAX_FROM && f->from[k]; k++)
		c = cont_of(f->from[k], sa, ra, c0, c1);
	return c;
}
