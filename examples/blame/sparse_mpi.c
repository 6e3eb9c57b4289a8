/* sparse_mpi.c: a sparse-matrix solver, the second example of variable blame (difftrace
 * blame), after the FFP_SPARSE program of Rutar and Hollingsworth: the solution vector and the
 * matrix sit behind a few layers of functions, few samples write them directly, yet most of
 * the blame belongs to them.
 *
 *   mpirun -np 2 difftrace-record --sample --sync-only -- ./sparse_mpi [ROWS [ITERATIONS]]
 *
 * main -> setup -> problem_new -> csr_new makes the matrix (one block: its row pointers,
 * columns and values are fields of it) and problem_new the solution x and the right-hand side
 * b; main -> solve -> cg runs conjugate gradients on the rows of this rank, with temporaries
 * (r, p, q and the gathered p) that live only inside solve and cg, so at the blame point main
 * their blame passes on to what cg works for: the matrix and x. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct csr {
	int n, nnz, lo, hi; /* global size; this rank's rows lo..hi-1 */
	int *rowptr, *col;
	double *val;
};

struct problem {
	struct csr *A;
	double *x, *b; /* this rank's rows */
};

#define BAND 27
#define QUAD 48 /* quadrature points per matrix entry */

/* The matrix: one block holding the header and its three arrays. */
__attribute__((noinline)) static struct csr *csr_new(int n, int lo, int hi)
{
	size_t rows = (size_t)(hi - lo), nnz = rows * BAND;
	size_t bytes = sizeof(struct csr) + (rows + 1) * sizeof(int) + nnz * sizeof(int) +
		       nnz * sizeof(double) + 16;
	struct csr *A = malloc(bytes);
	if (!A)
		MPI_Abort(MPI_COMM_WORLD, 1);
	A->n = n;
	A->lo = lo;
	A->hi = hi;
	A->val = (double *)(void *)(A + 1);
	A->col = (int *)(void *)(A->val + nnz);
	A->rowptr = A->col + nnz;
	return A;
}

/* A diagonally dominant band: about 14 on the diagonal, -0.5 on the 26 neighbours of a point
 * of a 3-D grid of side k. Each entry is integrated as a finite-element code assembles its
 * matrix (a small quadrature per entry): the assembly takes a good part of the run, as in
 * FFP_SPARSE. */
__attribute__((noinline)) static void csr_fill(struct csr *A, int k)
{
	int nz = 0;
	int off[BAND];
	for (int d = 0; d < BAND; d++)
		off[d] = (d % 3 - 1) + (d / 3 % 3 - 1) * k + (d / 9 - 1) * k * k;
	for (int i = A->lo; i < A->hi; i++) {
		A->rowptr[i - A->lo] = nz;
		for (int d = 0; d < BAND; d++) {
			int j = i + off[d];
			if (j < 0 || j >= A->n)
				continue;
			A->col[nz] = j;
			double w = (off[d] ? -0.5 : 14.0) / QUAD;
			A->val[nz] = 0;
			for (int q = 0; q < QUAD; q++) {
				double t = ((double)q + 0.5) / QUAD;
				A->val[nz] += w * (1.0 + 0.01 * t * (1.0 - t) / (1.0 + t * t));
			}
			nz++;
		}
	}
	A->rowptr[A->hi - A->lo] = nz;
	A->nnz = nz;
}

__attribute__((noinline)) static struct problem *problem_new(int n, int rank, int size)
{
	int per = n / size, lo = rank * per, hi = lo + per;
	struct problem *pb = malloc(sizeof *pb);
	if (!pb)
		MPI_Abort(MPI_COMM_WORLD, 1);
	pb->A = csr_new(n, lo, hi);
	csr_fill(pb->A, 30);
	pb->x = calloc((size_t)per, sizeof *pb->x);
	pb->b = malloc((size_t)per * sizeof *pb->b);
	if (!pb->x || !pb->b)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (int i = 0; i < per; i++)
		pb->b[i] = 1.0 + (double)((lo + i) % 7);
	return pb;
}

__attribute__((noinline)) static struct problem *setup(int n)
{
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	return problem_new(n - n % size, rank, size);
}

/* q = A p, p the whole vector */
__attribute__((noinline)) static void spmv(const struct csr *A, const double *p, double *q)
{
	for (int i = 0; i < A->hi - A->lo; i++) {
		double s = 0;
		for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
			s += A->val[k] * p[A->col[k]];
		q[i] = s;
	}
}

__attribute__((noinline)) static double dot(const double *u, const double *v, int n)
{
	double s = 0, all = 0;
	for (int i = 0; i < n; i++)
		s += u[i] * v[i];
	MPI_Allreduce(&s, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	return all;
}

/* The only function that writes the solution. */
__attribute__((noinline)) static void axpy_x(double *x, double a, const double *p, int n)
{
	for (int i = 0; i < n; i++)
		x[i] += a * p[i];
}

__attribute__((noinline)) static void axpy(double *y, double a, const double *u, int n)
{
	for (int i = 0; i < n; i++)
		y[i] += a * u[i];
}

__attribute__((noinline)) static void cg(const struct csr *A, double *x, double *r, int iters)
{
	int m = A->hi - A->lo;
	double *p = malloc((size_t)m * sizeof *p), *q = malloc((size_t)m * sizeof *q);
	double *pall = malloc((size_t)A->n * sizeof *pall);
	if (!p || !q || !pall)
		MPI_Abort(MPI_COMM_WORLD, 1);
	memcpy(p, r, (size_t)m * sizeof *p);
	double rr = dot(r, r, m);
	for (int it = 0; it < iters && rr > 1e-30; it++) {
		MPI_Allgather(p, m, MPI_DOUBLE, pall, m, MPI_DOUBLE, MPI_COMM_WORLD);
		spmv(A, pall, q);
		double alpha = rr / dot(p, q, m);
		axpy_x(x, alpha, p, m);
		axpy(r, -alpha, q, m);
		double rr2 = dot(r, r, m);
		for (int i = 0; i < m; i++)
			p[i] = r[i] + (rr2 / rr) * p[i];
		rr = rr2;
	}
	free(pall);
	free(q);
	free(p);
}

/* r = b - A x with x = 0 is b; the residual is a temporary of solve. */
__attribute__((noinline)) static void solve(struct problem *pb, int iters)
{
	int m = pb->A->hi - pb->A->lo;
	double *r = malloc((size_t)m * sizeof *r);
	if (!r)
		MPI_Abort(MPI_COMM_WORLD, 1);
	memcpy(r, pb->b, (size_t)m * sizeof *r);
	cg(pb->A, pb->x, r, iters);
	free(r);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200000;
	int iters = argc > 2 ? atoi(argv[2]) : 200;
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	struct problem *pb = setup(n);
	solve(pb, iters);
	double s = 0;
	for (int i = 0; i < pb->A->hi - pb->A->lo; i++)
		s += pb->x[i];
	double all = 0;
	MPI_Reduce(&s, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("sum of x = %.6f\n", all);
	free(pb->x);
	free(pb->b);
	free(pb->A);
	free(pb);
	MPI_Finalize();
	return 0;
}
