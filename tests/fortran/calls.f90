! calls.f90: more MPI calls from Fortran (use mpi), for tests/fortran.sh: each of them is in
! the sync record as the C call. Run it with 3 ranks.
program calls
  use mpi
  implicit none
  integer :: rank, nproc, ierr, x, y, i, req, half, dup
  integer :: st(MPI_STATUS_SIZE)
  integer :: a(3), b(3)
  logical :: done

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  x = rank
  ! rank 0 sends synchronously to rank 1
  if (rank == 0) call MPI_Ssend(x, 1, MPI_INTEGER, 1, 21, MPI_COMM_WORLD, ierr)
  if (rank == 1) call MPI_Recv(y, 1, MPI_INTEGER, 0, 21, MPI_COMM_WORLD, st, ierr)
  ! a ring of Sendrecv
  call MPI_Sendrecv(x, 1, MPI_INTEGER, mod(rank + 1, nproc), 22, y, 1, MPI_INTEGER, &
                    mod(rank + nproc - 1, nproc), 22, MPI_COMM_WORLD, st, ierr)
  ! a receive completed by MPI_Test
  call MPI_Irecv(y, 1, MPI_INTEGER, mod(rank + nproc - 1, nproc), 23, MPI_COMM_WORLD, req, ierr)
  call MPI_Send(x, 1, MPI_INTEGER, mod(rank + 1, nproc), 23, MPI_COMM_WORLD, ierr)
  done = .false.
  do while (.not. done)
    call MPI_Test(req, done, st, ierr)
  end do
  ! communicators made and freed
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half, ierr)
  call MPI_Bcast(x, 1, MPI_INTEGER, 0, half, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  ! collectives with a root, and all to all
  a = rank
  call MPI_Gather(x, 1, MPI_INTEGER, b, 1, MPI_INTEGER, 2, dup, ierr)
  call MPI_Scatter(a, 1, MPI_INTEGER, y, 1, MPI_INTEGER, 1, dup, ierr)
  call MPI_Allgather(x, 1, MPI_INTEGER, b, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call MPI_Alltoall(a, 1, MPI_INTEGER, b, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_free(half, ierr)
  do i = 1, 3
    x = x + b(i)
  end do
  if (rank == 0) print '(a, i0)', 'calls ', x
  call MPI_Finalize(ierr)
end program calls
