! rma.f90: one-sided calls from Fortran (use mpi), for tests/fortran.sh: each rank puts its
! rank into the next rank's window (displacement = its rank) between fences, accumulates
! into rank 0's, reads the next rank's under an exclusive lock, and frees the window.
program rma
  use mpi
  implicit none
  integer :: ierr, me, np, win, next
  integer(kind=MPI_ADDRESS_KIND) :: sz, disp
  double precision :: w(8), v, got
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  next = mod(me + 1, np)
  w = 0
  v = me
  sz = 64
  call MPI_Win_create(w, sz, 8, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  disp = me
  call MPI_Put(v, 1, MPI_DOUBLE_PRECISION, next, disp, 1, MPI_DOUBLE_PRECISION, win, ierr)
  disp = 7
  call MPI_Accumulate(v, 1, MPI_DOUBLE_PRECISION, 0, disp, 1, MPI_DOUBLE_PRECISION, MPI_SUM, &
       win, ierr)
  call MPI_Win_fence(MPI_MODE_NOSUCCEED, win, ierr)
  call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, win, ierr)
  disp = 0
  call MPI_Get(got, 1, MPI_DOUBLE_PRECISION, next, disp, 1, MPI_DOUBLE_PRECISION, win, ierr)
  call MPI_Win_unlock(next, win, ierr)
  call MPI_Win_free(win, ierr)
  if (me == 0) print *, 'sum', w(8)
  call MPI_Finalize(ierr)
end program rma
