/* main.c: the difftrace program. Under mpirun or srun with more than one process, `difftrace
 * import` becomes difftrace-mpi, which shares the work among the processes (cli_par.h). */
#include "cli/cli.h"
#include "cli/cli_par.h"

int main(int argc, char **argv)
{
	cli_par_exec(argc, argv);
	return cli_main(argc, argv);
}
