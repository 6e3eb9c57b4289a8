! halo.f90: a halo exchange in Fortran with MPI (use mpi) and OpenMP, for tests/fortran.sh.
! Each rank owns a strip of a 1-D grid, relaxes it with OpenMP threads and swaps its edges with
! its neighbours (MPI_Isend, MPI_Recv, MPI_Wait), then the ranks agree on a residual
! (MPI_Allreduce). With the argument "tag", the last rank sends its left edge with tag 8
! where its neighbour receives tag 7: that neighbour waits in MPI_Recv forever, and the
! others in the next MPI_Allreduce.
program halo
  use mpi
  implicit none
  integer, parameter :: n = 64, iters = 6
  double precision :: u(0:n+1), v(0:n+1), res, tot
  integer :: rank, nproc, ierr, it, i, left, right, ltag, req, provided
  integer :: st(MPI_STATUS_SIZE)
  character(len=8) :: arg

  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  arg = ''
  if (command_argument_count() > 0) call get_command_argument(1, arg)
  left = rank - 1
  right = rank + 1
  if (left < 0) left = MPI_PROC_NULL
  if (right >= nproc) right = MPI_PROC_NULL
  ltag = 7
  if (arg == 'tag' .and. rank == nproc - 1) ltag = 8
  u = dble(rank)
  do it = 1, iters
    call MPI_Isend(u(1), 1, MPI_DOUBLE_PRECISION, left, ltag, MPI_COMM_WORLD, req, ierr)
    call MPI_Recv(u(n+1), 1, MPI_DOUBLE_PRECISION, right, 7, MPI_COMM_WORLD, st, ierr)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    call MPI_Isend(u(n), 1, MPI_DOUBLE_PRECISION, right, 9, MPI_COMM_WORLD, req, ierr)
    call MPI_Recv(u(0), 1, MPI_DOUBLE_PRECISION, left, 9, MPI_COMM_WORLD, st, ierr)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    res = 0
!$omp parallel do reduction(+:res)
    do i = 1, n
      v(i) = 0.5d0 * (u(i-1) + u(i+1))
      res = res + abs(v(i) - u(i))
    end do
!$omp end parallel do
    u(1:n) = v(1:n)
    call MPI_Allreduce(res, tot, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  if (rank == 0) print '(a, f12.6)', 'residual', tot
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program halo
