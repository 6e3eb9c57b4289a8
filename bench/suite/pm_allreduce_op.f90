! Energy sum over ranks with MPI_ALLREDUCE; rank 1 passes MPI_MAX instead of MPI_SUM.
! Kind: parameter matching, the reduction operation differs between ranks (MPI Bugs
! Initiative "Parameter Matching"; MPI-CorrBench "ArgMismatch").
! Run: pm_allreduce_op 0 (normal) or pm_allreduce_op 1 (faulty)
program pm_allreduce_op
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, op, i, mode
  character(len=16) :: arg
  double precision :: e(8), tot(8)

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  mode = 0
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) mode
  end if
  do i = 1, 8
    e(i) = dble(rank + 1) * dble(i) * 0.25d0
  end do
  call smooth(e, 8)
  op = MPI_SUM
  if (mode == 1 .and. rank == 1) op = MPI_MAX
  call MPI_ALLREDUCE(e, tot, 8, MPI_DOUBLE_PRECISION, op, MPI_COMM_WORLD, ierr)
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,f12.4)', 'energy ', sum(tot)
  call MPI_FINALIZE(ierr)
contains
  subroutine smooth(x, n)
    integer, intent(in) :: n
    double precision, intent(inout) :: x(n)
    integer :: k
    do k = 2, n - 1
      x(k) = (x(k - 1) + 2d0 * x(k) + x(k + 1)) / 4d0
    end do
  end subroutine smooth
end program pm_allreduce_op
