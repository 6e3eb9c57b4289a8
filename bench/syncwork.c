/* syncwork.c: the calls whose recording bench_sync.sh times: N sends to MPI_PROC_NULL
 * (an MPI call that returns at once) and N omp_set_lock/omp_unset_lock pairs in one
 * thread, each loop timed with CLOCK_MONOTONIC; and, as the floor of any recorder that
 * writes to a file mapping, N times two 96-byte records (a clock reading each) stored into
 * fresh pages of a MAP_SHARED file in DIR, mapped by chunks of 768 KiB, the pages made three
 * ways (floor_cost). Prints ns per call for the five. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

#define CHUNK (8192 * 96)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* The floor, with the chunks made as `how` says: 0 by ftruncate and MAP_POPULATE, one chunk at a
 * time (the library before it made its pages writable up front); 1 by ftruncate alone (a page
 * fault at each page's first store); 2 by fallocate and MADV_POPULATE_WRITE, the mapping doubling
 * up to 8 chunks (what the library does now). Mapping included: ns per call (two records). */
static double floor_cost(const char *dir, long n, int how)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/floor.bin", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	unsigned char rec[96] = { 1 }, *map = NULL;
	size_t pos = 0, len = 0, nchunk = 0;
	double t0 = now();
	for (long i = 0; i < 2 * n; i++) {
		if (pos == len) {
			if (map)
				munmap(map, len);
			size_t k = how == 2 ? (nchunk ? nchunk : 1) : 1;
			if (k > 8)
				k = 8;
			off_t start = (off_t)(nchunk * CHUNK);
			len = k * CHUNK;
			nchunk += k;
			if (how == 2 ? fallocate(fd, 0, start, (off_t)len) != 0
				     : ftruncate(fd, start + (off_t)len) != 0)
				return -1;
			map = mmap(NULL, len, PROT_READ | PROT_WRITE,
				   MAP_SHARED | (how == 0 ? MAP_POPULATE : 0), fd, start);
			if (map == MAP_FAILED)
				return -1;
			if (how == 2 && madvise(map, len, MADV_POPULATE_WRITE) != 0)
				return -1;
			pos = 0;
		}
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		memcpy(rec + 8, &ts, sizeof ts);
		memcpy(map + pos, rec, sizeof rec);
		pos += sizeof rec;
	}
	double t1 = now();
	munmap(map, len);
	close(fd);
	unlink(path);
	return (t1 - t0) / n;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	const char *dir = argc > 2 ? argv[2] : "/tmp";
	int x = 0;
	MPI_Init(&argc, &argv);
	double t0 = now();
	for (long i = 0; i < n; i++)
		MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
	double t1 = now();
	omp_lock_t l;
	omp_init_lock(&l);
	for (long i = 0; i < n; i++) {
		omp_set_lock(&l);
		omp_unset_lock(&l);
	}
	double t2 = now();
	omp_destroy_lock(&l);
	printf("%.1f %.1f %.1f %.1f %.1f\n", (t1 - t0) / n, (t2 - t1) / (2.0 * n),
	       floor_cost(dir, n, 0), floor_cost(dir, n, 1), floor_cost(dir, n, 2));
	MPI_Finalize();
	return 0;
}
