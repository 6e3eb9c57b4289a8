/* wrapper.c: the compile flags an MPI compiler wrapper adds (mpicc, mpicxx, mpif90, Cray's
 * cc), asked of the wrapper itself, as clangd's --query-driver asks a compiler: a
 * compile_commands.json written by `bear -- make` or CMake names the wrapper, and libclang,
 * which does not run it, would miss mpi.h and every MPI constant. Open MPI's wrappers answer
 * --showme:compile, MPICH's and its descendants' (Intel MPI, MVAPICH) -show (the whole command,
 * whose preprocessor flags are kept), Cray's --cray-print-opts=cflags. Each wrapper is asked
 * once; the wrapper runs without a shell, with a time limit. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "blame/wrapper.h"
#include "util/util.h"

int bx_is_wrapper(const char *argv0)
{
	const char *b = strrchr(argv0, '/');
	b = b ? b + 1 : argv0;
	if (!strncmp(b, "mpi", 3) && b[3])
		return 1;
	/* Cray's compiler drivers are MPI wrappers in a Cray programming environment */
	if (getenv("CRAYPE_VERSION") &&
	    (!strcmp(b, "cc") || !strcmp(b, "CC") || !strcmp(b, "ftn")))
		return 1;
	return 0;
}

/* The wrapper's path: as named when it holds a slash (relative to dir), else found in PATH. */
static char *resolve(const char *argv0, const char *dir)
{
	if (strchr(argv0, '/')) {
		if (argv0[0] == '/' || !dir || !*dir)
			return xstrdup(argv0);
		return path_join(dir, argv0);
	}
	const char *path = getenv("PATH");
	if (!path)
		return NULL;
	char *copy = xstrdup(path);
	char *save = NULL, *found = NULL;
	for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *p = path_join(*d ? d : ".", argv0);
		if (access(p, X_OK) == 0)
			found = p;
		else
			free(p);
	}
	free(copy);
	return found;
}

/* Runs prog with arg (no shell), its standard output in *out; 0 when it exited 0 within 10 s
 * and wrote something. */
static int ask(const char *prog, const char *arg, char **out)
{
	*out = NULL;
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0)
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		int dn = open("/dev/null", O_RDWR);
		if (dn >= 0) {
			dup2(dn, STDIN_FILENO);
			dup2(dn, STDERR_FILENO);
		}
		/* MPICH's -show wants a file to compile in the command it shows */
		if (!strcmp(arg, "-show"))
			execl(prog, prog, arg, "-c", "x.c", (char *)NULL);
		else
			execl(prog, prog, arg, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	dt_buf b = { 0 };
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int killed = 0;
	for (;;) {
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		long ms = 10000 - ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000);
		if (ms <= 0 || b.len > (1u << 20)) {
			kill(pid, SIGKILL);
			killed = 1;
			break;
		}
		struct pollfd pf = { fds[0], POLLIN, 0 };
		int k = poll(&pf, 1, (int)ms);
		if (k < 0 && errno == EINTR)
			continue;
		if (k == 0)
			continue;
		char tmp[4096];
		ssize_t got = read(fds[0], tmp, sizeof tmp);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		buf_put(&b, tmp, (size_t)got);
	}
	close(fds[0]);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	buf_byte(&b, 0);
	if (killed || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || b.len <= 1) {
		buf_free(&b);
		return -1;
	}
	*out = (char *)b.p;
	return 0;
}

/* Splits s on blanks (single and double quotes group, as a shell would) into w. */
static void split(const char *s, bx_wrapper *w, int preproc_only)
{
	const char *p = s;
	size_t cap = 0;
	int take_next = 0;
	while (*p) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (!*p)
			break;
		dt_buf t = { 0 };
		char q = 0;
		for (; *p && (q || (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')); p++) {
			if (!q && (*p == '\'' || *p == '"'))
				q = *p;
			else if (q && *p == q)
				q = 0;
			else
				buf_byte(&t, (uint8_t)*p);
		}
		buf_byte(&t, 0);
		char *tok = (char *)t.p;
		int keep = !preproc_only || take_next;
		take_next = 0;
		if (preproc_only) {
			static const char *const with_arg[] = { "-isystem", "-idirafter", "-iquote",
								"-include", "-I", "-D", "-U" };
			static const char *const prefixed[] = { "-I", "-D", "-U", "-isystem",
								"-idirafter", "-iquote" };
			for (size_t i = 0; i < sizeof with_arg / sizeof *with_arg; i++)
				if (!strcmp(tok, with_arg[i]))
					keep = take_next = 1;
			for (size_t i = 0; i < sizeof prefixed / sizeof *prefixed && !keep; i++)
				keep = !strncmp(tok, prefixed[i], strlen(prefixed[i]));
			keep |= !strcmp(tok, "-pthread");
		}
		if (keep) {
			grow((void **)&w->flags, &cap, (size_t)w->nflags + 1, sizeof *w->flags);
			w->flags[w->nflags++] = tok;
		} else {
			free(tok);
		}
	}
}

int bx_wrapper_query(const char *argv0, const char *dir, bx_wrapper *w)
{
	memset(w, 0, sizeof *w);
	char *prog = resolve(argv0, dir);
	if (!prog)
		return -1;
	w->path = prog;
	static const struct {
		const char *arg;
		int preproc_only; /* the answer is a whole command: keep its preprocessor flags */
	} how[] = { { "--showme:compile", 0 }, { "-show", 1 }, { "--cray-print-opts=cflags", 0 } };
	for (size_t i = 0; i < sizeof how / sizeof *how; i++) {
		char *out;
		if (ask(prog, how[i].arg, &out))
			continue;
		split(out, w, how[i].preproc_only);
		free(out);
		size_t n = strlen(argv0) + strlen(how[i].arg) + 2;
		w->asked = xmalloc(n);
		snprintf(w->asked, n, "%s %s", argv0, how[i].arg);
		return 0;
	}
	return -1;
}

void bx_wrapper_free(bx_wrapper *w)
{
	for (int i = 0; i < w->nflags; i++)
		free(w->flags[i]);
	free(w->flags);
	free(w->path);
	free(w->asked);
	memset(w, 0, sizeof *w);
}

int bx_is_c_source(const char *path)
{
	const char *dot = strrchr(path, '.'), *sl = strrchr(path, '/');
	if (!dot || (sl && dot < sl))
		return 1; /* no suffix: let libclang decide */
	static const char *const fortran[] = { ".f",   ".F",   ".for", ".FOR", ".ftn", ".f77",
					       ".F77", ".f90", ".F90", ".f95", ".F95", ".f03",
					       ".F03", ".f08", ".F08", ".fpp", ".FPP" };
	for (size_t i = 0; i < sizeof fortran / sizeof *fortran; i++)
		if (!strcmp(dot, fortran[i]))
			return 0;
	return 1;
}
