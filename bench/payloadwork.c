/* payloadwork.c: the sends whose payload digest bench_payload.sh times: N MPI_Send of SIZE
 * bytes (MPI_BYTE) to MPI_PROC_NULL, a call that returns at once, so that what is left is the
 * recorder's work, the digest among it. Prints ns per call. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000, size = argc > 2 ? atol(argv[2]) : 8;
	MPI_Init(&argc, &argv);
	unsigned char *buf = malloc((size_t)size + 1);
	for (long i = 0; i < size; i++)
		buf[i] = (unsigned char)(i * 31);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++) {
		buf[0] = (unsigned char)i;
		MPI_Send(buf, (int)size, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (double)n);
	free(buf);
	MPI_Finalize();
	return 0;
}
