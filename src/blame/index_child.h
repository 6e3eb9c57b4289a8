/* index_child.h: bx_index_file in a child process under limits (blame/index_child.c), and the
 * packing of a bx_file that brings its result back. */
#ifndef DT_BLAME_INDEX_CHILD_H
#define DT_BLAME_INDEX_CHILD_H

#include <stddef.h>
#include <stdint.h>

#include "blame/index.h"
#include "util/util.h"

typedef struct bx_limits {
	int cpu_seconds; /* CPU time of one file's parse; 0 none */
	int memory_mib;  /* address space of the parsing process; 0 none */
	int stack_mib;   /* the parse's stack: how deep its nesting may go; 0 the default */
} bx_limits;

#define BX_DEFAULT_CPU_SECONDS 120
#define BX_DEFAULT_MEMORY_MIB 4096
#define BX_DEFAULT_STACK_MIB 64

/* As bx_index_file, in a child process under lim. A crash or a limit reached is an error
 * naming the file ("libclang crashed (...)", "libclang was stopped: ..."); difftrace goes on. */
int bx_index_file_isolated(const char *path, const char *dir, const char *const *argv, int argc,
			   int full, const bx_limits *lim, bx_file *f, dt_err *e);

/* The bytes of f, and f again from them (-1 when they are not a whole packed bx_file). */
void bx_pack(const bx_file *f, dt_buf *b);
int bx_unpack(const uint8_t *p, size_t len, bx_file *f);

#endif
