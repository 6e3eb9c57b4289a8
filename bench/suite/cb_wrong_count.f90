! Rank 1 sends its boundary row to rank 2 each iteration.
! Kind: wrong count argument (MPI-CorrBench "ArgError"/"ArgMismatch", count): with
! argument 1, rank 1 sends NX+1 values in iteration 2 (an off-by-one row length); rank 2's
! receive of NX values is truncated and the job aborts (MPI_ERR_TRUNCATE).
program cb_wrong_count
  use mpi
  implicit none
  integer, parameter :: nx = 32
  integer :: ierr, me, np, it, cnt, variant
  integer :: stat(MPI_STATUS_SIZE)
  character(len=8) :: a
  real(8) :: row(nx + 1), g

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  variant = 0
  if (command_argument_count() > 0) then
    call get_command_argument(1, a)
    read (a, *) variant
  end if
  row = dble(me)
  do it = 1, 4
    if (me == 1) then
      cnt = nx
      if (variant == 1 .and. it == 2) cnt = nx + 1
      call MPI_Send(row, cnt, MPI_DOUBLE_PRECISION, 2, it, MPI_COMM_WORLD, ierr)
    else if (me == 2) then
      call MPI_Recv(row, nx, MPI_DOUBLE_PRECISION, 1, it, MPI_COMM_WORLD, stat, ierr)
    end if
    row(1:nx) = row(1:nx) * 0.5d0 + dble(it)
  end do
  call MPI_Allreduce(row(1), g, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (me == 0) print *, 'sum', g
  call MPI_Finalize(ierr)
end program cb_wrong_count
