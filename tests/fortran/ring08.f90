! ring08.f90: use mpi_f08, for tests/fortran.sh. Each rank passes a number to the next one
! around a ring (MPI_Irecv, MPI_Isend, MPI_Waitall), then once more with MPI_Wait, then
! synchronizes (MPI_Barrier): every call is one of the bindings that MPICH's mpi_f08 makes
! without its C MPI_ functions, or one that it makes with them.
program ring08
  use mpi_f08
  implicit none
  integer :: rank, nproc, x, y, z, prev, next
  type(MPI_Request) :: reqs(2), req
  type(MPI_Status) :: sts(2), st

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  next = mod(rank + 1, nproc)
  prev = mod(rank + nproc - 1, nproc)
  x = rank
  call MPI_Irecv(y, 1, MPI_INTEGER, prev, 3, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(x, 1, MPI_INTEGER, next, 3, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, sts)
  call MPI_Irecv(z, 1, MPI_INTEGER, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, req)
  call MPI_Send(y, 1, MPI_INTEGER, next, 4, MPI_COMM_WORLD)
  call MPI_Wait(req, st)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a, i0)', 'ring ', z
  call MPI_Finalize()
end program ring08
