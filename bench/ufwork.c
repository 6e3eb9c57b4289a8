/* ufwork.c: a program with many short calls, recorded by bench_uftrace.sh to time importing a
 * large uftrace recording. Built with -pg so that every call is recorded. */
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;

__attribute__((noinline)) static void leaf(long i) { sink += i; }

__attribute__((noinline)) static void kernel(long i)
{
	leaf(i);
	leaf(i + 1);
}

__attribute__((noinline)) static void step(long n)
{
	for (long i = 0; i < n; i++)
		kernel(i);
}

int main(int argc, char **argv)
{
	long steps = argc > 1 ? atol(argv[1]) : 1000;
	for (long s = 0; s < steps; s++)
		step(1000);
	printf("%ld\n", (long)sink);
	return 0;
}
