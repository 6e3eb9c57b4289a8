// stencil.cc: a C++ MPI + OpenMP program with templates and namespaces, for tests/cxx.sh.
// Each rank smooths a field of its own (grid::Field<double>) with OpenMP threads and the ranks
// agree on its sum (MPI_Allreduce) in every step. With the argument "bug", rank 2 skips the
// smoothing of step 3: its calls differ from the others' there, and from a normal run's.
#include <mpi.h>
#include <omp.h>

#include <cstring>
#include <iostream>
#include <vector>

namespace grid {
template <typename T> class Field {
public:
	explicit Field(std::size_t n) : v_(n, T(1)) {}
	void smooth(int steps);
	T sum() const;

private:
	std::vector<T> v_;
};

template <typename T> void Field<T>::smooth(int steps)
{
	for (int s = 0; s < steps; s++) {
		std::vector<T> w(v_);
		long n = (long)v_.size() - 1;
#pragma omp parallel for
		for (long i = 1; i < n; i++)
			v_[i] = (w[i - 1] + w[i] + w[i + 1]) / T(3);
	}
}

template <typename T> T Field<T>::sum() const
{
	T s = 0;
	for (T x : v_)
		s += x;
	return s;
}
} // namespace grid

namespace comm {
template <typename T> T reduce_sum(T x);
template <> double reduce_sum<double>(double x)
{
	double r = 0;
	MPI_Allreduce(&x, &r, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	return r;
}
} // namespace comm

int main(int argc, char **argv)
{
	int provided, rank;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	bool bug = argc > 1 && !std::strcmp(argv[1], "bug");
	grid::Field<double> f(4096);
	double total = 0;
	for (int step = 0; step < 6; step++) {
		if (!(bug && rank == 2 && step == 3))
			f.smooth(2);
		total = comm::reduce_sum<double>(f.sum());
	}
	if (rank == 0)
		std::cout << "total " << total << std::endl;
	MPI_Finalize();
	return 0;
}
