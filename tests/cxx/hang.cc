// hang.cc: a C++ hang whose calls are made in a member function of a class template and in a
// function template inlined into main, for the call sites of tests/cxx.sh. Ranks 0 and 1
// receive from each other first (ns::Box<int>::get, never inlined), rank 2 waits for them in
// the barrier of ns::wait_all<int>. With the argument "ok", rank 0 sends first and the run
// ends. The lines of the calls are marked SITE: for the test to find.
#include <mpi.h>

#include <cstdio>
#include <cstring>

namespace ns {
template <typename T> class Box {
public:
	explicit Box(T v) : v_(v) {}
	__attribute__((noinline)) T get(int from);
	void put(int to) { MPI_Send(&v_, 1, MPI_INT, to, 0, MPI_COMM_WORLD); }

private:
	T v_;
};

template <typename T> T Box<T>::get(int from)
{
	MPI_Recv(&v_, 1, MPI_INT, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // SITE:recv
	return v_;
}

template <typename T> inline __attribute__((always_inline)) void wait_all()
{
	MPI_Barrier(MPI_COMM_WORLD); // SITE:barrier
}
} // namespace ns

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	bool ok = argc > 1 && !std::strcmp(argv[1], "ok");
	ns::Box<int> b(rank);
	int got = 0;
	if (rank < 2) {
		if (ok && rank == 0)
			b.put(1);
		got = b.get(1 - rank);
		if (!ok || rank == 1)
			b.put(1 - rank);
	}
	ns::wait_all<int>();
	std::printf("%d\n", got);
	MPI_Finalize();
	return 0;
}
