/* dwarf_vars.h: program variables from DWARF (elfutils libdw): the name of a variable's type,
 * and the local variables that live in a function's frame at a fixed offset from its CFA, the
 * stack containers of variable blame (difftrace-sample(5)). */
#ifndef DT_DWARF_VARS_H
#define DT_DWARF_VARS_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

/* The scopes around code address pc (an address of the DWARF, without the module's bias) in
 * the tree under parent: the subprogram, then the inlined subroutines inside it (and, with
 * blocks, the lexical blocks), outermost first, in their runtime nesting (libdw's scopes stop
 * at the innermost inlined call), into out[n..max); returns the new n. depth: 0. */
int dv_pc_scopes(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *out, int n, int max, int blocks,
		 int depth);

/* The name of function DIE f (a subprogram or an inlined subroutine, through its abstract
 * origin and specification) as the traces name it, into out (cap bytes): a C++ function's
 * linkage name demangled ("double comm::reduce_sum<double>(double)", where DW_AT_name is
 * reduce_sum<double>), else DW_AT_name (a C or Fortran function's). 0, or -1 when f has no
 * name. */
int dv_func_name(Dwarf_Die *f, char *out, size_t cap);

/* Appends the C spelling of type DIE t to out ("double[4096]", "struct cell*"), unterminated. */
void dv_type_name(Dwarf_Die *t, dt_buf *out);

typedef struct dv_local {
	int64_t lo;     /* its first byte, from the function's frame base (enum dv_base) */
	uint64_t size;  /* bytes */
	uint64_t id;    /* its DIE's offset in the module's DWARF: one per variable */
	char *name, *type;
	char *file;     /* where it is declared, "" unknown */
	int line;
} dv_local;

enum dv_status {
	DV_OK = 0,        /* *n variables (maybe none) */
	DV_NO_DWARF = 1,  /* no DWARF covers pc */
	DV_FRAME_BASE = 2 /* the function's frame base is none of enum dv_base: not handled */
};

/* A function's frame base (x86-64): what its variables' DW_OP_fbreg offsets start from. */
enum dv_base {
	DV_BASE_CFA = 0, /* DW_OP_call_frame_cfa (gcc) */
	DV_BASE_RBP = 1, /* the frame pointer register, rbp (clang -O0): taken as the CFA - 16
			  * that the standard prologue (push %rbp; mov %rsp,%rbp) makes it */
	DV_BASE_RSP = 2  /* the stack pointer register, rsp (clang -O1 and up) */
};

/* The arrays, structures and unions of the function around code address pc of module m (a
 * return address moved back into its call) whose location at pc is DW_OP_fbreg: the variables
 * of the scopes covering pc, inlined functions' included, and the function's parameters
 * passed by value; *base says what their offsets start from. */
int dv_stack_locals(Dwfl_Module *m, uint64_t pc, dv_local **out, size_t *n, int *base);

/* Why an aggregate local has no stack location at a pc (an optimized build): */
enum dv_lost {
	DV_LOST_NO_LOCATION = 1, /* the debug information gives it none (kept in registers or
				  * optimized away everywhere) */
	DV_LOST_NOT_HERE = 2,    /* its location list does not cover the pc */
	DV_LOST_REGISTERS = 3    /* in registers, or in pieces, at the pc */
};
/* The same, and in *lost the aggregates of those scopes without a DW_OP_fbreg location at pc
 * (their lo holds the enum dv_lost reason). */
int dv_stack_locals_lost(Dwfl_Module *m, uint64_t pc, dv_local **out, size_t *n, int *base,
			 dv_local **lost, size_t *nlost);
void dv_locals_free(dv_local *v, size_t n);

/* The pointer variables of the function around code address pc of module m (its scopes and
 * those of the functions inlined into it there) whose value at pc is in a register: its
 * location there is DW_OP_regN, or DW_OP_bregN with DW_OP_stack_value (a pointer computed
 * from the register: the block the register points into is the variable's). lo holds the
 * register's DWARF number (x86-64: 0 rax, 1 rdx, 2 rcx, 3 rbx, 4 rsi, 5 rdi, 6 rbp, 7 rsp,
 * 8 to 15 r8 to r15), size 8. Their locations are taken at `at`: pc itself, or, in a caller's
 * frame (pc a return address moved back into its call), the return address, where what the
 * call does not keep is no longer in a register. DV_OK or DV_NO_DWARF. */
int dv_reg_vars(Dwfl_Module *m, uint64_t pc, uint64_t at, dv_local **out, size_t *n);

#endif
