/* omp.c: an OpenMP program with two parallel regions on three threads, for the uftrace
 * fixture "omp". */
#include <omp.h>
#include <stdio.h>

double work(int i)
{
	double x = 0;
	for (int k = 0; k < 100 * (i + 1); k++)
		x += k % 3;
	return x;
}

double region(int n)
{
	double total = 0;
#pragma omp parallel num_threads(3) reduction(+ : total)
	{
		int id = omp_get_thread_num();
		for (int i = 0; i < n; i++)
			total += work(id + i);
	}
	return total;
}

int main(void)
{
	double t = region(2) + region(1);
	printf("%.0f\n", t);
	return 0;
}
