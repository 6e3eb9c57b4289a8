/* peak_rss.c: runs a command and prints the peak resident memory of it and its children, in
 * KiB, on standard error as "peak_rss KIB"; exits with the command's status (128 + signal
 * when it was killed). For tests that bound memory that ulimit -v cannot see: the pages of a
 * mapped file count in the resident set, not in the address space's growth. */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: peak_rss COMMAND [ARGS...]\n");
		return 2;
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("peak_rss: fork");
		return 2;
	}
	if (!pid) {
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	int st;
	struct rusage ru;
	if (wait4(pid, &st, 0, &ru) < 0) {
		perror("peak_rss: wait4");
		return 2;
	}
	fprintf(stderr, "peak_rss %ld\n", ru.ru_maxrss);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}
