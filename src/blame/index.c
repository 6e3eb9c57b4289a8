/* index.c: the static data flow of C functions from a libclang translation unit (index.h).
 *
 * One walk over each function body's AST. A write (assignment, compound assignment, ++/--, an
 * initialised declaration, a return, a call's out-argument) gives explicit relations from the
 * variables its value mentions to the variable written, resolved to its container: s.f and
 * s.a[i] write s, *p, p->f and p[i] write through p. Every write also gets implicit relations
 * from the variables of the conditions around it: dominance is approximated by the AST's
 * nesting (a write inside an if's, a loop's or a switch's body is controlled by its condition;
 * a write after an early return or a break is not seen as controlled by the test before it).
 * libclang 14's C API does not give an operator's kind, so it is read from the token between
 * the operands; inside a macro that token may be the macro's name, and such an operator counts
 * as a read. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>

#include "blame/index.h"
#include "util/util.h"

const char *bx_kind_name(int kind)
{
	static const char *const n[] = { "param", "local", "static", "global", "return" };
	return kind >= 0 && kind <= BX_RETURN ? n[kind] : "?";
}

const char *bx_role_name(int role)
{
	static const char *const n[] = { "value", "index", "arg", "control" };
	return role >= 0 && role <= BX_CONTROL ? n[role] : "?";
}

const char *bx_how_name(int how)
{
	static const char *const n[] = { "write", "through", "out", "condition" };
	return how >= 0 && how <= BX_CONDITION ? n[how] : "?";
}

void bx_func_free(bx_func *fn)
{
	free(fn->name);
	free(fn->file);
	for (size_t i = 0; i < fn->nvars; i++) {
		free(fn->vars[i].name);
		free(fn->vars[i].type);
	}
	free(fn->vars);
	for (size_t i = 0; i < fn->nrels; i++)
		free(fn->rels[i].field);
	free(fn->rels);
	for (size_t i = 0; i < fn->ncalls; i++) {
		bx_call *c = &fn->calls[i];
		free(c->callee);
		free(c->via);
		for (size_t j = 0; j < c->nargs; j++) {
			free(c->args[j].text);
			free(c->args[j].vars);
		}
		free(c->args);
	}
	free(fn->calls);
	free(fn->lines);
	memset(fn, 0, sizeof *fn);
}

void bx_file_free(bx_file *f)
{
	free(f->path);
	free(f->directory);
	free(f->args);
	for (size_t i = 0; i < f->nfuncs; i++)
		bx_func_free(&f->funcs[i]);
	free(f->funcs);
	for (size_t i = 0; i < f->ndiags; i++) {
		free(f->diags[i].file);
		free(f->diags[i].msg);
	}
	free(f->diags);
	memset(f, 0, sizeof *f);
}

#ifndef HAVE_LIBCLANG

int bx_available(void)
{
	return 0;
}

char *bx_clang_version(void)
{
	return xstrdup("");
}

int bx_index_file(const char *path, const char *dir, const char *const *argv, int argc, int full,
		  bx_file *f, dt_err *e)
{
	(void)path;
	(void)dir;
	(void)argv;
	(void)argc;
	(void)full;
	memset(f, 0, sizeof *f);
	return dt_errf(e, DT_EDATA, "difftrace was built without libclang: blame-index cannot parse "
				    "C sources (apt-get install libclang-dev, then configure again)");
}

#else

#include "blame/libclang.h"

int bx_available(void)
{
	return 1;
}

char *bx_clang_version(void)
{
	dt_err e;
	dt_err_clear(&e);
	if (bx_libclang_load(&e))
		return xstrdup("");
	CXString s = clang_getClangVersion();
	char *r = xstrdup(clang_getCString(s));
	clang_disposeString(s);
	return r;
}


/* A function's kind of cursor: a C function, or a C++ method, constructor, destructor,
 * conversion or function template. */
static int bx_is_function(enum CXCursorKind k)
{
	return k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod || k == CXCursor_Constructor ||
	       k == CXCursor_Destructor || k == CXCursor_FunctionTemplate ||
	       k == CXCursor_ConversionFunction;
}

/* A function's name as its demangled symbol names it, without template arguments or
 * parameters: grid::Field::smooth (a C function: its name). */
static char *qualified_name(CXCursor fc)
{
	dt_buf b = { 0 };
	CXCursor chain[32];
	int n = 0;
	for (CXCursor p = clang_getCursorSemanticParent(fc);
	     n < 32 && !clang_Cursor_isNull(p) && clang_getCursorKind(p) != CXCursor_TranslationUnit;
	     p = clang_getCursorSemanticParent(p)) {
		enum CXCursorKind k = clang_getCursorKind(p);
		if (k == CXCursor_Namespace || k == CXCursor_ClassDecl || k == CXCursor_StructDecl ||
		    k == CXCursor_ClassTemplate || k == CXCursor_ClassTemplatePartialSpecialization ||
		    k == CXCursor_UnionDecl)
			chain[n++] = p;
	}
	for (int i = n - 1; i >= 0; i--) {
		CXString sp = clang_getCursorSpelling(chain[i]);
		const char *t = clang_getCString(sp);
		const char *nm = t && *t ? t : "(anonymous namespace)";
		buf_put(&b, nm, strlen(nm));
		buf_put(&b, "::", 2);
		clang_disposeString(sp);
	}
	CXString sp = clang_getCursorSpelling(fc);
	const char *t = clang_getCString(sp);
	buf_put(&b, t ? t : "", t ? strlen(t) : 0);
	clang_disposeString(sp);
	buf_byte(&b, 0);
	return (char *)b.p;
}

static char *str_take(CXString s)
{
	const char *c = clang_getCString(s);
	char *r = xstrdup(c ? c : "");
	clang_disposeString(s);
	return r;
}

/* A set of variable indices, and the calls whose value it carries. */
typedef struct vset {
	int *v;
	size_t n, cap;
	int *calls;
	size_t nc, capc;
} vset;

static void vset_add(vset *s, int v)
{
	if (v < 0)
		return;
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == v)
			return;
	grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v);
	s->v[s->n++] = v;
}

static void vset_addall(vset *s, const vset *t)
{
	for (size_t i = 0; i < t->n; i++)
		vset_add(s, t->v[i]);
}

static void vset_call(vset *s, int call)
{
	grow((void **)&s->calls, &s->capc, s->nc + 1, sizeof *s->calls);
	s->calls[s->nc++] = call;
}

static void vset_free(vset *s)
{
	free(s->v);
	free(s->calls);
	memset(s, 0, sizeof *s);
}

typedef struct ctrl {
	int var, line;
} ctrl;

typedef struct walk {
	CXTranslationUnit tu;
	CXFile main;
	bx_func *fn;
	size_t capv, capr, capc, capl;
	CXCursor *decls; /* decls[i]: the canonical declaration of fn->vars[i] */
	unsigned *hashes;
	int ret;         /* <return>, or -1 */
	ctrl *ctrl;      /* the conditions around the statement being walked */
	size_t nctrl, capctrl;
	strmap seen;     /* relations and line entries already recorded */
} walk;

typedef struct target {
	int var;
	int through;
	char field[128];
} target;

static int expr(walk *w, CXCursor c, vset *out);
static CXSourceLocation file_loc(walk *w, CXSourceLocation l);
static void stmt(walk *w, CXCursor c);

/* ---- cursors ---------------------------------------------------------------------------- */

typedef struct kids {
	CXCursor c[8];
	unsigned n; /* all of them, though only the first 8 are kept */
} kids;

static enum CXChildVisitResult kid(CXCursor c, CXCursor parent, CXClientData d)
{
	(void)parent;
	kids *k = d;
	if (k->n < 8)
		k->c[k->n] = c;
	k->n++;
	return CXChildVisit_Continue;
}

static void children(CXCursor c, kids *k)
{
	k->n = 0;
	clang_visitChildren(c, kid, k);
}

static void where(CXSourceLocation l, CXFile *f, unsigned *line, unsigned *col, unsigned *off)
{
	clang_getExpansionLocation(l, f, line, col, off);
}

static int line_of(CXCursor c)
{
	unsigned line;
	where(clang_getCursorLocation(c), NULL, &line, NULL, NULL);
	return (int)line;
}

static unsigned off_of(CXSourceLocation l)
{
	unsigned off;
	where(l, NULL, NULL, NULL, &off);
	return off;
}

/* Skips the parentheses and implicit conversions around an expression. */
static CXCursor strip(CXCursor c)
{
	for (;;) {
		enum CXCursorKind k = clang_getCursorKind(c);
		if (k != CXCursor_ParenExpr && k != CXCursor_UnexposedExpr &&
		    k != CXCursor_CStyleCastExpr)
			return c;
		kids ch;
		children(c, &ch);
		if (ch.n == 0)
			return c;
		/* a cast's first child may be its type */
		CXCursor last = ch.c[ch.n <= 8 ? ch.n - 1 : 7];
		if (!clang_isExpression(clang_getCursorKind(last)))
			return c;
		c = last;
	}
}

/* The spelling of the first (or last) punctuation token between a and b. */
static void punct(walk *w, CXSourceLocation a, CXSourceLocation b, int last, unsigned from,
		  char *buf, size_t n)
{
	buf[0] = 0;
	CXToken *t = NULL;
	unsigned nt = 0;
	clang_tokenize(w->tu, clang_getRange(a, b), &t, &nt);
	for (unsigned i = 0; i < nt; i++) {
		unsigned j = last ? nt - 1 - i : i;
		if (clang_getTokenKind(t[j]) != CXToken_Punctuation)
			continue;
		if (off_of(clang_getTokenLocation(w->tu, t[j])) < from)
			continue;
		CXString s = clang_getTokenSpelling(w->tu, t[j]);
		snprintf(buf, n, "%s", clang_getCString(s));
		clang_disposeString(s);
		break;
	}
	clang_disposeTokens(w->tu, t, nt);
}

static void binop(walk *w, CXCursor l, CXCursor r, char *buf, size_t n)
{
	CXSourceLocation a = clang_getRangeEnd(clang_getCursorExtent(l));
	punct(w, a, clang_getRangeStart(clang_getCursorExtent(r)), 0, off_of(a), buf, n);
}

static void unop(walk *w, CXCursor c, CXCursor operand, char *buf, size_t n)
{
	CXSourceRange ce = clang_getCursorExtent(c), oe = clang_getCursorExtent(operand);
	if (off_of(clang_getRangeStart(ce)) < off_of(clang_getRangeStart(oe)))
		punct(w, clang_getRangeStart(ce), clang_getRangeStart(oe), 0, 0, buf, n);
	else
		punct(w, clang_getRangeEnd(oe), clang_getRangeEnd(ce), 1, off_of(clang_getRangeEnd(oe)),
		      buf, n);
}

/* The source text of c, tokens joined (a space only between two words), cut at 200 bytes. */
static char *text_of(walk *w, CXCursor c)
{
	CXToken *t = NULL;
	unsigned nt = 0;
	CXSourceRange ext = clang_getCursorExtent(c);
	CXSourceLocation a = file_loc(w, clang_getRangeStart(ext)),
			 z = file_loc(w, clang_getRangeEnd(ext));
	if (off_of(a) < off_of(z))
		clang_tokenize(w->tu, clang_getRange(a, z), &t, &nt);
	if (nt == 0) {
		/* all of it comes from one macro: its name */
		t = clang_getToken(w->tu, a);
		nt = t != NULL;
	}
	dt_buf b = { 0 };
	int prev_word = 0;
	for (unsigned i = 0; i < nt && b.len < 200; i++) {
		CXTokenKind k = clang_getTokenKind(t[i]);
		int word = k != CXToken_Punctuation;
		if (word && prev_word)
			buf_byte(&b, ' ');
		CXString s = clang_getTokenSpelling(w->tu, t[i]);
		const char *p = clang_getCString(s);
		buf_put(&b, p, strlen(p));
		clang_disposeString(s);
		prev_word = word;
	}
	clang_disposeTokens(w->tu, t, nt);
	buf_byte(&b, 0);
	return (char *)b.p;
}

/* ---- variables, relations, lines ------------------------------------------------------- */

static int var_add(walk *w, const char *name, const char *type, int line, int kind, CXCursor decl)
{
	bx_func *fn = w->fn;
	if (fn->nvars == w->capv) {
		size_t cap = w->capv;
		grow((void **)&fn->vars, &cap, fn->nvars + 1, sizeof *fn->vars);
		grow((void **)&w->decls, &w->capv, fn->nvars + 1, sizeof *w->decls);
		w->hashes = xrealloc(w->hashes, w->capv * sizeof *w->hashes);
	}
	bx_var *v = &fn->vars[fn->nvars];
	v->name = xstrdup(name);
	v->type = xstrdup(type);
	v->line = line;
	v->kind = kind;
	v->exit = kind == BX_PARAM || kind == BX_GLOBAL || kind == BX_RETURN;
	w->decls[fn->nvars] = decl;
	w->hashes[fn->nvars] = clang_hashCursor(decl);
	return (int)fn->nvars++;
}

/* The location in the file of l: for a location inside a macro, where the macro is used. */
static CXSourceLocation file_loc(walk *w, CXSourceLocation l)
{
	CXFile f;
	unsigned line, col;
	clang_getExpansionLocation(l, &f, &line, &col, NULL);
	return f ? clang_getLocation(w->tu, f, line, col) : l;
}

/* Whether a reference comes from a macro of another file naming one of its own globals
 * (MPI_COMM_WORLD, MPI_INT in Open MPI): a library constant, not a program variable. The
 * token where the reference is used is then the macro's name, not the variable's. */
static int library_constant(walk *w, CXCursor ref, CXCursor decl)
{
	CXFile df;
	clang_getExpansionLocation(clang_getCursorLocation(decl), &df, NULL, NULL, NULL);
	if (clang_File_isEqual(df, w->main))
		return 0;
	CXToken *t = clang_getToken(w->tu, file_loc(w, clang_getCursorLocation(ref)));
	if (!t)
		return 0;
	CXString ts = clang_getTokenSpelling(w->tu, *t), ds = clang_getCursorSpelling(decl);
	int macro = strcmp(clang_getCString(ts), clang_getCString(ds)) != 0;
	clang_disposeString(ts);
	clang_disposeString(ds);
	clang_disposeTokens(w->tu, t, 1);
	return macro;
}

/* The variable index of a VarDecl or ParmDecl, added on first sight; -1 for anything else. */
static int var_of(walk *w, CXCursor decl)
{
	enum CXCursorKind k = clang_getCursorKind(decl);
	if (k != CXCursor_VarDecl && k != CXCursor_ParmDecl)
		return -1;
	decl = clang_getCanonicalCursor(decl);
	unsigned h = clang_hashCursor(decl);
	for (size_t i = 0; i < w->fn->nvars; i++)
		if (w->hashes[i] == h && clang_equalCursors(w->decls[i], decl))
			return (int)i;
	int kind = BX_LOCAL;
	if (k == CXCursor_ParmDecl)
		kind = BX_PARAM;
	else if (clang_getCursorKind(clang_getCursorSemanticParent(decl)) ==
		 CXCursor_TranslationUnit)
		kind = BX_GLOBAL;
	else if (clang_Cursor_hasVarDeclGlobalStorage(decl) == 1)
		kind = BX_STATIC;
	char *name = str_take(clang_getCursorSpelling(decl));
	char *type = str_take(clang_getTypeSpelling(clang_getCursorType(decl)));
	int v = var_add(w, name, type, line_of(decl), kind, decl);
	free(name);
	free(type);
	return v;
}

static int once(walk *w, const char *key)
{
	uint32_t x;
	size_t n = strlen(key);
	if (strmap_get(&w->seen, key, n, &x))
		return 0;
	strmap_put(&w->seen, key, n, 1);
	return 1;
}

static void rel_add(walk *w, int implicit, const target *t, int src, int line, int role)
{
	char key[256];
	snprintf(key, sizeof key, "r%d,%d,%d,%d,%d,%d,%s", implicit, t->var, src, line, t->through,
		 role, t->field);
	if (!once(w, key))
		return;
	bx_func *fn = w->fn;
	grow((void **)&fn->rels, &w->capr, fn->nrels + 1, sizeof *fn->rels);
	bx_rel *r = &fn->rels[fn->nrels++];
	r->implicit = implicit;
	r->dst = t->var;
	r->src = src;
	r->line = line;
	r->through = t->through;
	r->role = role;
	r->field = t->field[0] ? xstrdup(t->field) : NULL;
}

static void rel(walk *w, int implicit, const target *t, int src, int line, int role)
{
	if (src != t->var && src >= 0)
		rel_add(w, implicit, t, src, line, role);
}

static void line_add(walk *w, int line, int var, int how)
{
	char key[64];
	snprintf(key, sizeof key, "l%d,%d,%d", line, var, how);
	if (var < 0 || !once(w, key))
		return;
	bx_func *fn = w->fn;
	grow((void **)&fn->lines, &w->capl, fn->nlines + 1, sizeof *fn->lines);
	fn->lines[fn->nlines++] = (bx_line){ line, var, how };
}

/* Records a write of t at line from the variables in src (and idx, the indices). */
static void record_write(walk *w, const target *t, const vset *src, const vset *idx, int line, int how,
		  int role)
{
	if (t->var < 0)
		return;
	for (size_t i = 0; src && i < src->n; i++)
		rel(w, 0, t, src->v[i], line, role);
	/* a call's value written through a pointer's field from no variable (s->f =
	 * vec_new(N)): the field is kept by a relation of the pointer to itself, read to write
	 * through it, so that the block the call returns is named by s->f */
	if (src && src->nc && t->through && t->field[0]) {
		int none = 1;
		for (size_t i = 0; i < src->n && none; i++)
			none = src->v[i] == t->var;
		if (none)
			rel_add(w, 0, t, t->var, line, role);
	}
	for (size_t i = 0; idx && i < idx->n; i++)
		rel(w, 0, t, idx->v[i], line, BX_INDEX);
	for (size_t i = 0; i < w->nctrl; i++)
		rel(w, 1, t, w->ctrl[i].var, w->ctrl[i].line, BX_CONTROL);
	line_add(w, line, t->var, how == BX_WRITE && t->through ? BX_THROUGH : how);
	for (size_t i = 0; src && i < src->nc; i++)
		if (w->fn->calls[src->calls[i]].result < 0)
			w->fn->calls[src->calls[i]].result = t->var;
}

/* ---- expressions ----------------------------------------------------------------------- */

static int is_array(CXType t)
{
	t = clang_getCanonicalType(t);
	return t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray ||
	       t.kind == CXType_VariableArray || t.kind == CXType_DependentSizedArray;
}

static int is_pointer(CXType t)
{
	return clang_getCanonicalType(t).kind == CXType_Pointer;
}

static void lvalue(walk *w, CXCursor c, target *t, vset *idx);

/* The variable a pointer expression points with: p, p + i (i an index), &x, s.p, a (an
 * array); written through unless it is &x or an array. */
static void pointer_target(walk *w, CXCursor c, target *t, vset *idx)
{
	c = strip(c);
	enum CXCursorKind k = clang_getCursorKind(c);
	kids ch;
	children(c, &ch);
	char op[8];
	if (k == CXCursor_UnaryOperator && ch.n == 1) {
		unop(w, c, ch.c[0], op, sizeof op);
		if (!strcmp(op, "&")) {
			lvalue(w, ch.c[0], t, idx);
			return;
		}
	}
	if (k == CXCursor_BinaryOperator && ch.n == 2) {
		binop(w, ch.c[0], ch.c[1], op, sizeof op);
		if (!strcmp(op, "+") || !strcmp(op, "-")) {
			int first = is_pointer(clang_getCursorType(ch.c[0])) ||
				    is_array(clang_getCursorType(strip(ch.c[0])));
			pointer_target(w, ch.c[first ? 0 : 1], t, idx);
			expr(w, ch.c[first ? 1 : 0], idx);
			return;
		}
	}
	if (is_array(clang_getCursorType(c))) {
		lvalue(w, c, t, idx);
		return;
	}
	if (k == CXCursor_DeclRefExpr || k == CXCursor_MemberRefExpr ||
	    k == CXCursor_ArraySubscriptExpr ||
	    (k == CXCursor_UnaryOperator && ch.n == 1)) {
		lvalue(w, c, t, idx);
		if (t->var >= 0)
			t->through = 1;
		return;
	}
	expr(w, c, idx);
}

/* The container an lvalue expression writes: x, s.f (s), a[i] (a; i an index), *p, p->f and
 * p[i] (through p). t->var is -1 when it is not a variable (the result of a call). */
static void lvalue(walk *w, CXCursor c, target *t, vset *idx)
{
	c = strip(c);
	enum CXCursorKind k = clang_getCursorKind(c);
	kids ch;
	children(c, &ch);
	if (k == CXCursor_DeclRefExpr) {
		t->var = var_of(w, clang_getCursorReferenced(c));
		t->through = 0;
		t->field[0] = 0;
		return;
	}
	if (k == CXCursor_MemberRefExpr && ch.n >= 1) {
		CXCursor base = ch.c[0];
		int arrow = is_pointer(clang_getCursorType(base));
		if (arrow)
			pointer_target(w, base, t, idx);
		else
			lvalue(w, base, t, idx);
		if (t->var < 0)
			return;
		char *name = str_take(clang_getCursorSpelling(c));
		size_t have = strlen(t->field);
		if (have)
			snprintf(t->field + have, sizeof t->field - have, "%s%s", arrow ? "->" : ".",
				 name);
		else
			snprintf(t->field, sizeof t->field, "%s", name);
		free(name);
		return;
	}
	if (k == CXCursor_ArraySubscriptExpr && ch.n == 2) {
		pointer_target(w, ch.c[0], t, idx);
		expr(w, ch.c[1], idx);
		return;
	}
	if (k == CXCursor_UnaryOperator && ch.n == 1) {
		char op[8];
		unop(w, c, ch.c[0], op, sizeof op);
		if (!strcmp(op, "*")) {
			pointer_target(w, ch.c[0], t, idx);
			return;
		}
	}
	t->var = -1;
	t->through = 0;
	t->field[0] = 0;
	expr(w, c, idx);
}

/* lhs = rhs, or lhs op= rhs. */
static void assign(walk *w, CXCursor c, CXCursor lhs, CXCursor rhs, int compound, vset *out)
{
	vset src = { 0 }, idx = { 0 };
	expr(w, rhs, &src);
	target t = { -1, 0, "" };
	lvalue(w, lhs, &t, &idx);
	(void)compound; /* x op= y: x <- y, and x <- x, which is no relation */
	record_write(w, &t, &src, &idx, line_of(c), BX_WRITE, BX_VALUE);
	vset_addall(out, &src);
	vset_add(out, t.var);
	vset_free(&src);
	vset_free(&idx);
}

static void call(walk *w, CXCursor c, vset *out)
{
	bx_func *fn = w->fn;
	grow((void **)&fn->calls, &w->capc, fn->ncalls + 1, sizeof *fn->calls);
	int id = (int)fn->ncalls++;
	bx_call *k = &fn->calls[id];
	memset(k, 0, sizeof *k);
	k->result = -1;
	unsigned line, col;
	where(clang_getCursorLocation(c), NULL, &line, &col, NULL);
	k->line = (int)line;
	k->col = (int)col;
	int at = (int)line;
	CXCursor ref = clang_getCursorReferenced(c);
	if (bx_is_function(clang_getCursorKind(ref))) {
		k->callee = qualified_name(ref);
	} else {
		/* through a pointer: the callee expression is the first child; what it reads
		 * decides the value too */
		kids ch;
		children(c, &ch);
		if (ch.n) {
			fn->calls[id].via = text_of(w, ch.c[0]);
			expr(w, ch.c[0], out);
		}
	}
	int n = clang_Cursor_getNumArguments(c);
	if (n < 0)
		n = 0;
	bx_arg *args = xcalloc((size_t)n + 1, sizeof *args);
	vset *av = xcalloc((size_t)n + 1, sizeof *av);
	target *at_t = xcalloc((size_t)n + 1, sizeof *at_t); /* the out-arguments' targets */
	for (int i = 0; i < n; i++) {
		CXCursor a = clang_Cursor_getArgument(c, (unsigned)i);
		args[i].text = text_of(w, a);
		args[i].out_var = -1;
		expr(w, a, &av[i]);
		args[i].vars = av[i].n ? xmalloc(av[i].n * sizeof *args[i].vars) : NULL;
		if (av[i].n)
			memcpy(args[i].vars, av[i].v, av[i].n * sizeof *args[i].vars);
		args[i].nvars = av[i].n;
		vset_addall(out, &av[i]);
		CXType ty = clang_getCursorType(a);
		if (is_pointer(ty)) {
			CXType pt = clang_getPointeeType(clang_getCanonicalType(ty));
			if (!clang_isConstQualifiedType(pt) && pt.kind != CXType_FunctionProto &&
			    pt.kind != CXType_FunctionNoProto) {
				target t = { -1, 0, "" };
				vset idx = { 0 };
				pointer_target(w, a, &t, &idx);
				vset_free(&idx);
				args[i].out = 1;
				args[i].out_var = t.var;
				args[i].out_through = t.through;
				at_t[i] = t;
			}
		}
	}
	/* the call's arguments flow to its out-arguments */
	for (int i = 0; i < n; i++) {
		if (!args[i].out || args[i].out_var < 0)
			continue;
		target t = at_t[i]; /* with the field written (cg(pb->x, r): pb's x) */
		vset src = { 0 };
		for (int j = 0; j < n; j++)
			if (j != i)
				vset_addall(&src, &av[j]);
		record_write(w, &t, &src, NULL, at, BX_OUT, BX_ARG);
		vset_free(&src);
	}
	for (int i = 0; i < n; i++)
		vset_free(&av[i]);
	free(av);
	free(at_t);
	k = &fn->calls[id]; /* the arguments' calls may have moved the array */
	k->args = args;
	k->nargs = (size_t)n;
	vset_call(out, id);
}

struct each {
	walk *w;
	vset *out;
};

static enum CXChildVisitResult each_part(CXCursor c, CXCursor parent, CXClientData d)
{
	(void)parent;
	struct each *a = d;
	enum CXCursorKind k = clang_getCursorKind(c);
	if (clang_isExpression(k))
		expr(a->w, c, a->out);
	else if (clang_isStatement(k))
		stmt(a->w, c);
	return CXChildVisit_Continue;
}

static int expr(walk *w, CXCursor c, vset *out)
{
	enum CXCursorKind k = clang_getCursorKind(c);
	kids ch;
	switch (k) {
	case CXCursor_DeclRefExpr: {
		CXCursor d = clang_getCursorReferenced(c);
		enum CXCursorKind dk = clang_getCursorKind(d);
		if ((dk == CXCursor_VarDecl || dk == CXCursor_ParmDecl) && !library_constant(w, c, d))
			vset_add(out, var_of(w, d));
		return 0;
	}
	case CXCursor_BinaryOperator: {
		children(c, &ch);
		if (ch.n != 2)
			break;
		char op[8];
		binop(w, ch.c[0], ch.c[1], op, sizeof op);
		if (!strcmp(op, "=")) {
			assign(w, c, ch.c[0], ch.c[1], 0, out);
			return 0;
		}
		expr(w, ch.c[0], out);
		expr(w, ch.c[1], out);
		return 0;
	}
	case CXCursor_CompoundAssignOperator:
		children(c, &ch);
		if (ch.n != 2)
			break;
		assign(w, c, ch.c[0], ch.c[1], 1, out);
		return 0;
	case CXCursor_UnaryOperator: {
		children(c, &ch);
		if (ch.n != 1)
			break;
		char op[8];
		unop(w, c, ch.c[0], op, sizeof op);
		if (!strcmp(op, "++") || !strcmp(op, "--")) {
			target t = { -1, 0, "" };
			vset idx = { 0 };
			lvalue(w, ch.c[0], &t, &idx);
			record_write(w, &t, NULL, &idx, line_of(c), BX_WRITE, BX_VALUE);
			vset_add(out, t.var);
			vset_addall(out, &idx);
			vset_free(&idx);
			return 0;
		}
		expr(w, ch.c[0], out);
		return 0;
	}
	case CXCursor_CallExpr:
		call(w, c, out);
		return 0;
	case CXCursor_UnaryExpr: /* sizeof, alignof: no value is read */
		return 0;
	default:
		break;
	}
	/* anything else: the union of its parts; statements inside (GNU statement expressions)
	 * are walked as statements */
	struct each a = { w, out };
	clang_visitChildren(c, each_part, &a);
	return 0;
}

/* ---- statements ------------------------------------------------------------------------ */

static void ctrl_push(walk *w, const vset *cv, int line)
{
	for (size_t i = 0; i < cv->n; i++) {
		grow((void **)&w->ctrl, &w->capctrl, w->nctrl + 1, sizeof *w->ctrl);
		w->ctrl[w->nctrl++] = (ctrl){ cv->v[i], line };
		line_add(w, line, cv->v[i], BX_CONDITION);
	}
}

/* A declaration statement: its initialised variables are written; each declared variable is
 * added to declared when given (a for loop's header). */
static void decl(walk *w, CXCursor c, vset *declared)
{
	kids ch;
	children(c, &ch);
	for (unsigned i = 0; i < ch.n && i < 8; i++) {
		if (clang_getCursorKind(ch.c[i]) != CXCursor_VarDecl)
			continue;
		int v = var_of(w, ch.c[i]);
		if (declared)
			vset_add(declared, v);
		CXCursor init = clang_Cursor_getVarDeclInitializer(ch.c[i]);
		if (clang_Cursor_isNull(init) || v < 0)
			continue;
		vset src = { 0 };
		expr(w, init, &src);
		target t = { v, 0, "" };
		record_write(w, &t, &src, NULL, line_of(ch.c[i]), BX_WRITE, BX_VALUE);
		if (declared)
			vset_addall(declared, &src);
		vset_free(&src);
	}
}

/* Walks body under the condition variables cv (at line). */
static void controlled(walk *w, CXCursor body, const vset *cv, int line)
{
	size_t saved = w->nctrl;
	ctrl_push(w, cv, line);
	stmt(w, body);
	w->nctrl = saved;
}

/* Visits every child (more than the 8 that `kids` keeps) as a statement. */
static enum CXChildVisitResult each_stmt(CXCursor c, CXCursor parent, CXClientData d)
{
	(void)parent;
	stmt(d, c);
	return CXChildVisit_Continue;
}

static void stmt(walk *w, CXCursor c)
{
	enum CXCursorKind k = clang_getCursorKind(c);
	kids ch;
	vset cv = { 0 };
	switch (k) {
	case CXCursor_IfStmt:
	case CXCursor_WhileStmt:
	case CXCursor_SwitchStmt:
		children(c, &ch);
		if (ch.n < 2 || ch.n > 8)
			break;
		expr(w, ch.c[0], &cv);
		controlled(w, ch.c[1], &cv, line_of(ch.c[0]));
		if (k == CXCursor_IfStmt && ch.n == 3)
			controlled(w, ch.c[2], &cv, line_of(ch.c[0]));
		vset_free(&cv);
		return;
	case CXCursor_DoStmt:
		children(c, &ch);
		if (ch.n != 2)
			break;
		expr(w, ch.c[1], &cv);
		controlled(w, ch.c[0], &cv, line_of(ch.c[1]));
		vset_free(&cv);
		return;
	case CXCursor_ForStmt:
		/* libclang skips a missing init, condition or increment, so they cannot be told
		 * apart: every variable of the header controls the body */
		children(c, &ch);
		if (ch.n < 1 || ch.n > 4)
			break;
		for (unsigned i = 0; i + 1 < ch.n; i++) {
			if (clang_getCursorKind(ch.c[i]) == CXCursor_DeclStmt)
				decl(w, ch.c[i], &cv);
			else
				expr(w, ch.c[i], &cv);
		}
		controlled(w, ch.c[ch.n - 1], &cv, line_of(c));
		vset_free(&cv);
		return;
	case CXCursor_DeclStmt:
		decl(w, c, NULL);
		return;
	case CXCursor_ReturnStmt:
		children(c, &ch);
		if (ch.n == 1) {
			expr(w, ch.c[0], &cv);
			target t = { w->ret, 0, "" };
			record_write(w, &t, &cv, NULL, line_of(c), BX_WRITE, BX_VALUE);
			vset_free(&cv);
		}
		return;
	default:
		if (clang_isExpression(k)) {
			expr(w, c, &cv);
			vset_free(&cv);
			return;
		}
		break;
	}
	vset_free(&cv);
	clang_visitChildren(c, each_stmt, w);
}

/* ---- functions and translation units --------------------------------------------------- */

typedef struct tuwalk {
	CXTranslationUnit tu;
	CXFile main;
	bx_file *f;
	size_t capf;
} tuwalk;

static void index_function(tuwalk *tw, CXCursor fc)
{
	bx_file *f = tw->f;
	grow((void **)&f->funcs, &tw->capf, f->nfuncs + 1, sizeof *f->funcs);
	bx_func *fn = &f->funcs[f->nfuncs++];
	memset(fn, 0, sizeof *fn);
	walk w = { 0 };
	w.tu = tw->tu;
	w.main = tw->main;
	w.fn = fn;
	w.ret = -1;
	strmap_init(&w.seen);
	fn->name = qualified_name(fc);
	fn->file = xstrdup(f->path);
	CXSourceRange ext = clang_getCursorExtent(fc);
	unsigned a, b;
	where(clang_getRangeStart(ext), NULL, &a, NULL, NULL);
	where(clang_getRangeEnd(ext), NULL, &b, NULL, NULL);
	fn->line = (int)a;
	fn->end_line = (int)b;
	if (clang_Cursor_getStorageClass(fc) == CX_SC_Static)
		fn->flags |= BX_F_STATIC;
	int np = clang_Cursor_getNumArguments(fc);
	for (int i = 0; i < np; i++)
		var_of(&w, clang_Cursor_getArgument(fc, (unsigned)i));
	CXType rt = clang_getResultType(clang_getCursorType(fc));
	if (rt.kind != CXType_Void && rt.kind != CXType_Invalid) {
		char *type = str_take(clang_getTypeSpelling(rt));
		w.ret = var_add(&w, "<return>", type, fn->line, BX_RETURN, clang_getNullCursor());
		free(type);
	}
	kids ch;
	children(fc, &ch);
	for (unsigned i = 0; i < ch.n && i < 8; i++)
		if (clang_getCursorKind(ch.c[i]) == CXCursor_CompoundStmt)
			stmt(&w, ch.c[i]);
	for (size_t i = 0; i < f->ndiags; i++)
		if (f->diags[i].line >= fn->line && f->diags[i].line <= fn->end_line &&
		    f->diags[i].file && !strcmp(f->diags[i].file, f->path))
			fn->flags |= BX_F_ERRORS;
	free(w.decls);
	free(w.hashes);
	free(w.ctrl);
	strmap_free(&w.seen);
}

static enum CXChildVisitResult top(CXCursor c, CXCursor parent, CXClientData d)
{
	(void)parent;
	tuwalk *tw = d;
	enum CXCursorKind k = clang_getCursorKind(c);
	/* C++: the functions of namespaces, classes and extern "C" blocks too */
	if (k == CXCursor_Namespace || k == CXCursor_ClassDecl || k == CXCursor_StructDecl ||
	    k == CXCursor_ClassTemplate || k == CXCursor_ClassTemplatePartialSpecialization ||
	    k == CXCursor_LinkageSpec)
		return CXChildVisit_Recurse;
	if (bx_is_function(k) && clang_isCursorDefinition(c) &&
	    clang_Location_isFromMainFile(clang_getCursorLocation(c)))
		index_function(tw, c);
	return CXChildVisit_Continue;
}

static int count_lines(const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return 0;
	int n = 0, ch, last = '\n';
	while ((ch = getc(fp)) != EOF) {
		if (ch == '\n')
			n++;
		last = ch;
	}
	fclose(fp);
	return n + (last != '\n');
}

static char *file_name(CXFile file)
{
	if (!file)
		return NULL;
	CXString s = clang_File_tryGetRealPathName(file);
	const char *p = clang_getCString(s);
	if (!p || !*p) {
		clang_disposeString(s);
		s = clang_getFileName(file);
	}
	return str_take(s);
}

int bx_index_file(const char *path, const char *dir, const char *const *argv, int argc, int full,
		  bx_file *f, dt_err *e)
{
	memset(f, 0, sizeof *f);
	if (bx_libclang_load(e))
		return -1;
	int here = -1;
	if (dir && *dir) {
		here = open(".", O_RDONLY | O_DIRECTORY);
		if (here < 0 || chdir(dir)) {
			if (here >= 0)
				close(here);
			return dt_err_at(e, dir, -1, "cannot enter the compile command's directory");
		}
	}
	char *real = realpath(path, NULL);
	f->path = real ? real : xstrdup(path);
	f->directory = xstrdup(dir && *dir ? dir : "");
	dt_buf args = { 0 };
	for (int i = 0; i < argc; i++) {
		if (i)
			buf_byte(&args, ' ');
		buf_put(&args, argv[i], strlen(argv[i]));
	}
	buf_byte(&args, 0);
	f->args = (char *)args.p;
	f->lines = count_lines(path);
	/* OpenMP: libclang's C API shows an OpenMP directive's body (a captured statement) as
	 * the variables it captures only, so a loop under '#pragma omp parallel for' would not be
	 * indexed. The flags that turn OpenMP on are parsed as -D_OPENMP instead: the sources
	 * read the same (their #ifdef _OPENMP parts included), the pragmas are left aside, and
	 * the loops are plain loops, whose data flow (a reduction's s += y[i] too) is the same. */
	const char **av = xcalloc((size_t)argc + 1, sizeof *av);
	int ac = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		int omp = !strcmp(a, "-fopenmp") || !strncmp(a, "-fopenmp=", 9) ||
			  !strcmp(a, "-qopenmp") || !strcmp(a, "-openmp") || !strcmp(a, "-fiopenmp");
		av[ac++] = omp ? "-D_OPENMP=201511" : a;
	}
	CXIndex idx = clang_createIndex(0, 0);
	CXTranslationUnit tu = NULL;
	unsigned opts = CXTranslationUnit_KeepGoing;
	enum CXErrorCode rc;
	if (full)
		rc = clang_parseTranslationUnit2FullArgv(idx, NULL, av, ac, NULL, 0, opts, &tu);
	else
		rc = clang_parseTranslationUnit2(idx, path, av, ac, NULL, 0, opts, &tu);
	free(av);
	int ret = 0;
	if (rc != CXError_Success || !tu) {
		ret = dt_err_at(e, path, -1, "libclang could not parse it (error %d)%s", (int)rc,
				access(path, R_OK) ? ": no such file" : "");
		goto out;
	}
	tuwalk tw = { tu, NULL, f, 0 };
	unsigned nd = clang_getNumDiagnostics(tu);
	size_t capd = 0;
	for (unsigned i = 0; i < nd; i++) {
		CXDiagnostic d = clang_getDiagnostic(tu, i);
		enum CXDiagnosticSeverity sev = clang_getDiagnosticSeverity(d);
		if (sev >= CXDiagnostic_Error) {
			grow((void **)&f->diags, &capd, f->ndiags + 1, sizeof *f->diags);
			bx_diag *g = &f->diags[f->ndiags++];
			CXFile df;
			unsigned line, col;
			where(clang_getDiagnosticLocation(d), &df, &line, &col, NULL);
			g->file = file_name(df);
			g->line = (int)line;
			g->col = (int)col;
			g->fatal = sev == CXDiagnostic_Fatal;
			g->msg = str_take(clang_getDiagnosticSpelling(d));
		}
		clang_disposeDiagnostic(d);
	}
	CXCursor root = clang_getTranslationUnitCursor(tu);
	/* the main file as libclang names it (a full command line names it itself) */
	tw.main = clang_getFile(tu, path);
	if (!tw.main) {
		CXString sp = clang_getTranslationUnitSpelling(tu);
		tw.main = clang_getFile(tu, clang_getCString(sp));
		clang_disposeString(sp);
	}
	clang_visitChildren(root, top, &tw);
	clang_disposeTranslationUnit(tu);
out:
	clang_disposeIndex(idx);
	if (here >= 0) {
		if (fchdir(here) && !ret)
			ret = dt_errf(e, DT_EDATA, "cannot return to the working directory");
		close(here);
	}
	return ret;
}

#endif
