/* index.h: the static data flow of a program's C functions for variable blame (the paper's
 * section 2: explicit and implicit relations, exit variables, call sites), as `difftrace
 * blame-index` computes it from the sources with libclang and the store keeps it.
 *
 * The model is plain data (no libclang types), so the store and the commands use it whether or
 * not difftrace was built with libclang; only bx_index_file needs libclang. */
#ifndef DT_BLAME_INDEX_H
#define DT_BLAME_INDEX_H

#include <stddef.h>

#include "util/err.h"

/* What a variable of a function is. Exit variables are the parameters, the globals and the
 * return value: what is live outside the function. */
enum bx_var_kind { BX_PARAM, BX_LOCAL, BX_STATIC, BX_GLOBAL, BX_RETURN };

typedef struct bx_var {
	char *name; /* "<return>" for the return value */
	char *type; /* as the source spells it */
	int line;   /* declaration line (the function's for <return>) */
	int kind;   /* enum bx_var_kind */
	int exit;   /* 1 for an exit variable */
} bx_var;

/* How a relation's source reaches its destination. */
enum bx_role {
	BX_VALUE,   /* explicit: the source's value is computed into the destination */
	BX_INDEX,   /* explicit: the source indexes the element written (x[i] = ...) */
	BX_ARG,     /* explicit: an argument of a call whose out-parameter is the destination */
	BX_CONTROL, /* implicit: the source is in a condition controlling the write */
};

/* dst <- src. Explicit relations come from writes, implicit ones from the conditions of the
 * loops, ifs and switches around a write (dominance approximated by the AST's nesting). */
typedef struct bx_rel {
	int implicit;
	int dst, src;  /* variable indices in the function */
	int line;      /* the write's line (explicit) or the condition's line (implicit) */
	int through;   /* the write is through dst, a pointer (*p = ..., p->f = ..., p[i] = ...) */
	int role;      /* enum bx_role */
	char *field;   /* the field written (s.f, p->f: "f"; s.a.b: "a.b"), or NULL */
} bx_rel;

/* One argument of a call: its source text and the variables it mentions. out: the callee may
 * write through it (a pointer to non-const data, &x, an array), the variable written is
 * out_var (or -1). */
typedef struct bx_arg {
	char *text;
	int *vars;
	size_t nvars;
	int out;
	int out_var;
	int out_through; /* out_var is written through (a pointer variable), not directly (&x) */
} bx_arg;

typedef struct bx_call {
	char *callee; /* the function called, or NULL when unknown (through a pointer) */
	char *via;    /* for an unknown callee, the callee expression's text */
	int line, col;
	int result;   /* the variable the call's value is assigned to (or <return>), or -1 */
	bx_arg *args;
	size_t nargs;
} bx_call;

/* The map from a source line to what is written there. */
enum bx_how {
	BX_WRITE,     /* var written directly */
	BX_THROUGH,   /* written through var, a pointer */
	BX_OUT,       /* written by a call through an argument */
	BX_CONDITION, /* var is read by a condition at that line (a loop's, an if's, a switch's) */
};

typedef struct bx_line {
	int line;
	int var;
	int how; /* enum bx_how */
} bx_line;

/* Function flags. */
enum { BX_F_STATIC = 1, BX_F_ERRORS = 2 /* an error diagnostic falls inside its lines */ };

typedef struct bx_func {
	char *name;
	char *file;
	int line, end_line;
	int flags;
	bx_var *vars;
	size_t nvars;
	bx_rel *rels;
	size_t nrels;
	bx_call *calls;
	size_t ncalls;
	bx_line *lines;
	size_t nlines;
} bx_func;

/* A diagnostic of libclang at error level or above. */
typedef struct bx_diag {
	char *file;
	int line, col;
	int fatal;
	char *msg;
} bx_diag;

/* What one translation unit gave. */
typedef struct bx_file {
	char *path;      /* the main file, absolute when known */
	char *directory; /* the working directory of its compile command */
	char *args;      /* the flags used, space-separated */
	int lines;       /* lines of the main file */
	bx_func *funcs;
	size_t nfuncs;
	bx_diag *diags;
	size_t ndiags;
} bx_file;

/* 1 when difftrace was built with libclang. */
int bx_available(void);
/* The libclang version string, or "". Caller frees. */
char *bx_clang_version(void);

/* Parses `path` and fills f with the function definitions of that main file. With full, argv
 * is a whole compile command (compiler first, the file among its arguments, as in a
 * compile_commands.json); without, argv are the compiler flags only. dir: the directory the
 * command runs in (NULL: the current one). Error diagnostics go to f->diags; the functions
 * that parsed are indexed anyway. Returns -1 (with e) only when nothing could be parsed at
 * all, or without libclang. */
int bx_index_file(const char *path, const char *dir, const char *const *argv, int argc, int full,
		  bx_file *f, dt_err *e);

void bx_func_free(bx_func *fn);
void bx_file_free(bx_file *f);

/* Names for printing. */
const char *bx_kind_name(int kind);
const char *bx_role_name(int role);
const char *bx_how_name(int how);

#endif
