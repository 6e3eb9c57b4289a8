/* rules.c: the rule-file language (difftrace-rules(5)): lexer, parser, loading the standard
 * directories, binding a rule set to a run's function names, and the small pieces the filter and
 * the checker share (kinds of an event, request links, integer expressions, reports). */
#define PCRE2_CODE_UNIT_WIDTH 8
#define _POSIX_C_SOURCE 200809L
#include "order/rules.h"

#include <dirent.h>
#include <errno.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/util.h"

static const char *const field_names[ORD_NFIELDS] = {
	"proc", "thread", "seq", "phase", "func", "ts", "host", "comm", "dest", "stag", "src",
	"rtag", "root", "count", "datatype", "op", "req", "obj", "objseq", "team", "tnum", "csize",
};

const char *ord_field_name(int f)
{
	return f >= 0 && f < ORD_NFIELDS ? field_names[f] : "?";
}

static int field_find(const char *s, size_t n)
{
	for (int f = 0; f < ORD_NFIELDS; f++)
		if (strlen(field_names[f]) == n && !memcmp(field_names[f], s, n))
			return f;
	return -1;
}

int ord_policy_parse(const char *s)
{
	if (!strcmp(s, "minimal") || !strcmp(s, "minimal-intervention"))
		return ORD_MINIMAL;
	if (!strcmp(s, "concurrent") || !strcmp(s, "maximal-concurrency"))
		return ORD_CONCURRENT;
	if (!strcmp(s, "timestamp") || !strcmp(s, "adjusted-timestamp"))
		return ORD_TIMESTAMP;
	return -1;
}

const char *ord_policy_name(int p)
{
	return p == ORD_CONCURRENT ? "concurrent" : p == ORD_TIMESTAMP ? "timestamp" : "minimal";
}

/* ---- lexer ------------------------------------------------------------------------------------ */

enum tok { T_EOF, T_ID, T_INT, T_RE, T_PUNCT };

typedef struct lex {
	const char *s, *end, *file;
	const char *p;
	int line;
	const char *linestart;
	/* the current token */
	int t;
	const char *ts;
	size_t tn;
	int64_t iv;
	int tline, tcol;
	dt_err *e;
} lex;

static int lex_err(lex *L, const char *fmt, const char *arg)
{
	return dt_err_lc(L->e, L->file, L->tline, L->tcol, fmt, arg);
}

static int next(lex *L)
{
	for (;;) {
		while (L->p < L->end && (*L->p == ' ' || *L->p == '\t' || *L->p == '\r' || *L->p == '\n')) {
			if (*L->p == '\n') {
				L->line++;
				L->linestart = L->p + 1;
			}
			L->p++;
		}
		if (L->p < L->end && *L->p == '#' && !(L->p + 1 < L->end &&
			((L->p[1] >= 'A' && L->p[1] <= 'Z') || (L->p[1] >= 'a' && L->p[1] <= 'z') ||
			 L->p[1] == '_'))) {
			while (L->p < L->end && *L->p != '\n')
				L->p++;
			continue;
		}
		break;
	}
	L->tline = L->line;
	L->tcol = (int)(L->p - L->linestart) + 1;
	L->ts = L->p;
	if (L->p >= L->end) {
		L->t = T_EOF;
		L->tn = 0;
		return 0;
	}
	char c = *L->p;
	if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_') {
		while (L->p < L->end && ((*L->p >= 'A' && *L->p <= 'Z') || (*L->p >= 'a' && *L->p <= 'z') ||
					 (*L->p >= '0' && *L->p <= '9') || *L->p == '_'))
			L->p++;
		L->t = T_ID;
	} else if (c >= '0' && c <= '9') {
		int64_t v = 0;
		while (L->p < L->end && *L->p >= '0' && *L->p <= '9') {
			if (v > (INT64_MAX - 9) / 10)
				return lex_err(L, "number too large%s", "");
			v = v * 10 + (*L->p - '0');
			L->p++;
		}
		L->iv = v;
		L->t = T_INT;
	} else if (c == '/') {
		L->p++;
		while (L->p < L->end && *L->p != '/' && *L->p != '\n') {
			if (*L->p == '\\' && L->p + 1 < L->end && L->p[1] != '\n')
				L->p++;
			L->p++;
		}
		if (L->p >= L->end || *L->p != '/')
			return lex_err(L, "unterminated /pattern/%s", "");
		L->p++;
		L->t = T_RE;
	} else {
		static const char *const two[] = { "<-", "&&", "||", "==", "!=", "<=", ">=" };
		L->t = T_PUNCT;
		for (size_t i = 0; i < sizeof two / sizeof *two; i++)
			if (L->p + 1 < L->end && L->p[0] == two[i][0] && L->p[1] == two[i][1]) {
				L->p += 2;
				L->tn = 2;
				return 0;
			}
		if (!strchr("()<>,;!|+-#_", c)) {
			char b[8];
			snprintf(b, sizeof b, (unsigned char)c < 32 || (unsigned char)c >= 127 ? "\\x%02x" : "%c",
				 (unsigned char)c);
			return lex_err(L, "unexpected character '%s'", b);
		}
		L->p++;
	}
	L->tn = (size_t)(L->p - L->ts);
	return 0;
}

static int is(const lex *L, const char *s)
{
	return (L->t == T_PUNCT || L->t == T_ID) && L->tn == strlen(s) && !memcmp(L->ts, s, L->tn);
}

static int tokdesc(const lex *L, char *b, size_t n)
{
	if (L->t == T_EOF)
		return snprintf(b, n, "end of file");
	size_t len = L->tn > 40 ? 40 : L->tn;
	size_t o = 0;
	for (size_t i = 0; i < len && o + 5 < n; i++) {
		unsigned char c = (unsigned char)L->ts[i];
		o += (size_t)snprintf(b + o, n - o, c < 32 || c >= 127 ? "\\x%02x" : "%c", c);
	}
	b[o] = 0;
	return 0;
}

static int expect(lex *L, const char *s)
{
	if (!is(L, s)) {
		char b[200], d[64];
		tokdesc(L, d, sizeof d);
		snprintf(b, sizeof b, "expected '%s', found '%s'", s, d);
		return lex_err(L, "%s", b);
	}
	return next(L);
}

/* ---- parser ----------------------------------------------------------------------------------- */

typedef struct parser {
	lex L;
	ord_rules *r;
	const char *file;
	/* the rule being parsed: param names */
	const char *pname[ORD_MAXKEY + 1];
	size_t plen[ORD_MAXKEY + 1];
	int np;
	int fields_only; /* in `if` (1) or a fork's number (2): no atoms, no params */
	int nest;        /* parse_primary calls on the stack */
} parser;

static ord_expr *xnew(parser *P, int op)
{
	ord_expr *x = xcalloc(1, sizeof *x);
	x->op = op;
	x->line = P->L.tline;
	x->col = P->L.tcol;
	x->kind = -1;
	x->depth = 1; /* a leaf until deep() says otherwise */
	return x;
}

/* Sets x's depth from its operands' (already checked) and refuses a tree deeper than
 * ORD_MAXDEPTH, at x's place. Called on every node when its operands are attached, so that no
 * tree the parser returns, or frees after an error, is deeper than the bound. */
static int deep(parser *P, ord_expr *x)
{
	int d = 0;
	if (x->a && x->a->depth > d)
		d = x->a->depth;
	if (x->b && x->b->depth > d)
		d = x->b->depth;
	for (int i = 0; i < x->narg; i++)
		if (x->arg[i] && x->arg[i]->depth > d)
			d = x->arg[i]->depth;
	x->depth = d + 1;
	if (x->depth > ORD_MAXDEPTH)
		return dt_err_lc(P->L.e, P->file, x->line, x->col,
				 "condition nested more than %d deep (parentheses, operators or terms)",
				 ORD_MAXDEPTH);
	return 0;
}

static void expr_free(ord_expr *x)
{
	if (!x)
		return;
	expr_free(x->a);
	expr_free(x->b);
	for (int i = 0; i < x->narg; i++)
		expr_free(x->arg[i]);
	free(x->arg);
	free(x);
}

static int kind_find(const ord_rules *r, const char *s, size_t n)
{
	for (int k = 0; k < r->nkind; k++)
		if (strlen(r->kind[k].name) == n && !memcmp(r->kind[k].name, s, n))
			return k;
	return -1;
}

static int parse_or(parser *P, ord_expr **out);

static int isint(const ord_expr *x)
{
	return x->op <= ORD_X_NEG || x->op == ORD_X_COUNT;
}

static int name_err(parser *P, const char *fmt)
{
	char n[64];
	tokdesc(&P->L, n, sizeof n);
	return lex_err(&P->L, fmt, n);
}

static int parse_atom(parser *P, ord_expr **out, int count)
{
	lex *L = &P->L;
	if (L->t != T_ID)
		return name_err(P, "expected an event kind, found '%s'");
	int k = kind_find(P->r, L->ts, L->tn);
	if (k < 0)
		return name_err(P, "unknown event kind '%s' (declare it with `event` first)");
	ord_expr *x = xnew(P, count ? ORD_X_COUNT : ORD_X_ATOM);
	*out = x;
	x->kind = k;
	int want = P->r->kind[k].nkey + 1;
	x->arg = xcalloc((size_t)want, sizeof *x->arg);
	if (next(L) || expect(L, "("))
		return -1;
	for (int i = 0;; i++) {
		if (i >= want) {
			char b[160];
			snprintf(b, sizeof b, "%s takes %d values (its key and n)", P->r->kind[k].name, want);
			return lex_err(L, "%s", b);
		}
		if (is(L, "_")) {
			if (!count)
				return lex_err(L, "'_' only in a count #KIND(...); an instance needs every value%s", "");
			if (next(L))
				return -1;
		} else {
			ord_expr *a = NULL;
			int rc = parse_or(P, &a);
			x->arg[i] = a; /* freed with x, also on an error */
			x->narg = i + 1;
			if (rc)
				return -1;
			if (!isint(a))
				return dt_err_lc(L->e, P->file, a->line, a->col, "expected a number, found a condition");
		}
		x->narg = i + 1;
		if (is(L, ")"))
			break;
		if (expect(L, ","))
			return -1;
	}
	if (x->narg != want) {
		char b[160];
		snprintf(b, sizeof b, "%s takes %d values (its key and n), found %d", P->r->kind[k].name,
			 want, x->narg);
		return lex_err(L, "%s", b);
	}
	if (count) {
		unsigned mask = 0;
		for (int i = 0; i < x->narg; i++)
			if (x->arg[i])
				mask |= 1u << i;
		int ci = -1;
		for (int c = 0; c < P->r->ncix; c++)
			if (P->r->cix[c].kind == k && P->r->cix[c].mask == mask)
				ci = c;
		if (ci < 0) {
			P->r->cix = xrealloc(P->r->cix, (size_t)(P->r->ncix + 1) * sizeof *P->r->cix);
			P->r->cix[P->r->ncix] = (ord_countix){ k, mask };
			ci = P->r->ncix++;
		}
		x->countix = ci;
	}
	if (deep(P, x))
		return -1;
	return next(L);
}

static int parse_primary(parser *P, ord_expr **out);

static int parse_primary1(parser *P, ord_expr **out)
{
	lex *L = &P->L;
	*out = NULL;
	if (L->t == T_INT) {
		ord_expr *x = xnew(P, ORD_X_INT);
		x->v = L->iv;
		*out = x;
		return next(L);
	}
	if (is(L, "(")) {
		if (next(L) || parse_or(P, out))
			return -1;
		return expect(L, ")");
	}
	if (is(L, "!")) {
		ord_expr *x = xnew(P, ORD_X_NOT);
		*out = x;
		if (next(L) || parse_primary(P, &x->a))
			return -1;
		if (isint(x->a))
			return dt_err_lc(L->e, P->file, x->line, x->col, "'!' applies to a condition, not a number");
		return deep(P, x);
	}
	if (is(L, "-")) {
		ord_expr *x = xnew(P, ORD_X_NEG);
		*out = x;
		if (next(L) || parse_primary(P, &x->a))
			return -1;
		if (!isint(x->a))
			return dt_err_lc(L->e, P->file, x->line, x->col, "'-' applies to a number");
		return deep(P, x);
	}
	if (is(L, "#")) {
		if (P->fields_only)
			return lex_err(L, "%s reads the event's own fields only",
				       P->fields_only == 2 ? "a fork's number" : "an `if`");
		if (next(L))
			return -1;
		return parse_atom(P, out, 1);
	}
	if (L->t != T_ID) {
		char d[64];
		tokdesc(L, d, sizeof d);
		return lex_err(L, "expected a condition, found '%s'", d);
	}
	if (is(L, "true") || is(L, "false")) {
		ord_expr *x = xnew(P, ORD_X_EQ);
		x->a = xnew(P, ORD_X_INT);
		x->b = xnew(P, ORD_X_INT);
		x->b->v = is(L, "true") ? 0 : 1;
		x->a->depth = x->b->depth = 1;
		x->depth = 2;
		*out = x;
		return next(L);
	}
	/* KIND( ... ) or a name */
	const char *s = L->ts;
	size_t n = L->tn;
	const char *q = L->p;
	while (q < L->end && (*q == ' ' || *q == '\t'))
		q++;
	if (q < L->end && *q == '(') {
		if (P->fields_only)
			return lex_err(L, "%s reads the event's own fields only",
				       P->fields_only == 2 ? "a fork's number" : "an `if`");
		return parse_atom(P, out, 0);
	}
	for (int i = 0; i < P->np; i++)
		if (P->pname[i] && P->plen[i] == n && !memcmp(P->pname[i], s, n)) {
			ord_expr *x = xnew(P, ORD_X_PARAM);
			x->v = i;
			*out = x;
			return next(L);
		}
	int f = field_find(s, n);
	if (f < 0)
		return name_err(P, "unknown name '%s' (not a parameter of the rule nor a field)");
	ord_expr *x = xnew(P, ORD_X_FIELD);
	x->v = f;
	*out = x;
	return next(L);
}

/* A primary, its nesting on the stack bounded: `((((...` and `!!!!...` recurse here. */
static int parse_primary(parser *P, ord_expr **out)
{
	if (P->nest >= ORD_MAXDEPTH) {
		*out = NULL;
		return dt_err_lc(P->L.e, P->file, P->L.tline, P->L.tcol,
				 "condition nested more than %d deep (parentheses, operators or terms)",
				 ORD_MAXDEPTH);
	}
	P->nest++;
	int rc = parse_primary1(P, out);
	P->nest--;
	return rc;
}

static int parse_sum(parser *P, ord_expr **out)
{
	if (parse_primary(P, out))
		return -1;
	while (is(&P->L, "+") || is(&P->L, "-")) {
		ord_expr *x = xnew(P, is(&P->L, "+") ? ORD_X_ADD : ORD_X_SUB);
		x->a = *out;
		*out = x;
		if (next(&P->L) || parse_primary(P, &x->b))
			return -1;
		if (!isint(x->a) || !isint(x->b))
			return dt_err_lc(P->L.e, P->file, x->line, x->col, "'+' and '-' apply to numbers");
		if (deep(P, x))
			return -1;
	}
	return 0;
}

static int parse_cmp(parser *P, ord_expr **out)
{
	if (parse_sum(P, out))
		return -1;
	static const char *const ops[] = { "==", "!=", "<", "<=", ">", ">=" };
	for (int i = 0; i < 6; i++)
		if (is(&P->L, ops[i])) {
			ord_expr *x = xnew(P, ORD_X_EQ + i);
			x->a = *out;
			*out = x;
			if (next(&P->L) || parse_sum(P, &x->b))
				return -1;
			if (!isint(x->a) || !isint(x->b))
				return dt_err_lc(P->L.e, P->file, x->line, x->col, "comparisons apply to numbers");
			return deep(P, x);
		}
	if (isint(*out))
		return dt_err_lc(P->L.e, P->file, (*out)->line, (*out)->col,
				 "a number where a condition is needed (compare it with == != < <= > >=)");
	return 0;
}

static int parse_and(parser *P, ord_expr **out)
{
	if (parse_cmp(P, out))
		return -1;
	while (is(&P->L, "&&")) {
		ord_expr *x = xnew(P, ORD_X_AND);
		x->a = *out;
		*out = x;
		if (next(&P->L) || parse_cmp(P, &x->b) || deep(P, x))
			return -1;
	}
	return 0;
}

/* An expression: a condition, or (inside atoms and comparisons) a number. */
static int parse_or(parser *P, ord_expr **out)
{
	/* Numbers are parsed by parse_sum; a condition starts the same way, so parse a sum first
	 * and only go on to comparisons and connectives when what follows calls for them. */
	if (parse_sum(P, out))
		return -1;
	lex *L = &P->L;
	static const char *const ops[] = { "==", "!=", "<", "<=", ">", ">=" };
	for (int i = 0; i < 6; i++)
		if (is(L, ops[i])) {
			ord_expr *x = xnew(P, ORD_X_EQ + i);
			x->a = *out;
			*out = x;
			if (next(L) || parse_sum(P, &x->b))
				return -1;
			if (!isint(x->a) || !isint(x->b))
				return dt_err_lc(L->e, P->file, x->line, x->col, "comparisons apply to numbers");
			if (deep(P, x))
				return -1;
			break;
		}
	if (!is(L, "&&") && !is(L, "||"))
		return 0;
	if (isint(*out))
		return dt_err_lc(L->e, P->file, (*out)->line, (*out)->col,
				 "a number where a condition is needed (compare it with == != < <= > >=)");
	while (is(L, "&&")) {
		ord_expr *x = xnew(P, ORD_X_AND);
		x->a = *out;
		*out = x;
		if (next(L) || parse_cmp(P, &x->b) || deep(P, x))
			return -1;
	}
	while (is(L, "||")) {
		ord_expr *x = xnew(P, ORD_X_OR);
		x->a = *out;
		*out = x;
		if (next(L) || parse_and(P, &x->b) || deep(P, x))
			return -1;
	}
	return 0;
}

static int parse_cond(parser *P, ord_expr **out)
{
	if (parse_or(P, out))
		return -1;
	if (isint(*out))
		return dt_err_lc(P->L.e, P->file, (*out)->line, (*out)->col,
				 "a number where a condition is needed (compare it with == != < <= > >=)");
	return 0;
}

static int parse_regex(parser *P, void **re, char **text)
{
	lex *L = &P->L;
	if (L->t != T_RE)
		return lex_err(L, "expected a /pattern/ of function names%s", "");
	/* unescape \/ only; everything else is PCRE2's */
	char *t = xmalloc(L->tn);
	size_t o = 0;
	for (size_t i = 1; i + 1 < L->tn; i++) {
		if (L->ts[i] == '\\' && L->ts[i + 1] == '/' && i + 2 < L->tn)
			i++;
		t[o++] = L->ts[i];
	}
	t[o] = 0;
	int code;
	PCRE2_SIZE off;
	pcre2_code *c = pcre2_compile((PCRE2_SPTR)t, o, 0, &code, &off, NULL);
	if (!c) {
		PCRE2_UCHAR msg[256];
		if (pcre2_get_error_message(code, msg, sizeof msg) < 0)
			strcpy((char *)msg, "invalid pattern");
		free(t);
		return dt_err_lc(L->e, P->file, L->tline, L->tcol + 1 + (int)off, "%s", (char *)msg);
	}
	(void)pcre2_jit_compile(c, PCRE2_JIT_COMPLETE);
	*re = c;
	*text = t;
	return next(L);
}

static int parse_event(parser *P)
{
	lex *L = &P->L;
	ord_rules *r = P->r;
	if (L->t != T_ID)
		return name_err(P, "expected the kind's name, found '%s'");
	if (kind_find(r, L->ts, L->tn) >= 0)
		return name_err(P, "event kind '%s' is already declared");
	if (field_find(L->ts, L->tn) >= 0)
		return name_err(P, "'%s' is a field name; give the kind another name");
	r->kind = xrealloc(r->kind, (size_t)(r->nkind + 1) * sizeof *r->kind);
	ord_kind *k = &r->kind[r->nkind];
	memset(k, 0, sizeof *k);
	k->name = xstrndup(L->ts, L->tn);
	k->file = xstrdup(P->file);
	k->line = L->tline;
	r->nkind++; /* visible from here on; freed with the set on error */
	if (next(L) || expect(L, "("))
		return -1;
	while (!is(L, ")")) {
		if (L->t != T_ID)
			return name_err(P, "expected a field name, found '%s'");
		int f = field_find(L->ts, L->tn);
		if (f < 0)
			return name_err(P, "unknown field '%s'");
		if (k->nkey == ORD_MAXKEY)
			return lex_err(L, "a key has at most 6 fields%s", "");
		k->key[k->nkey++] = f;
		if (next(L))
			return -1;
		if (is(L, ","))
			if (next(L))
				return -1;
	}
	if (next(L))
		return -1;
	k->seq = ORD_SEQ_COUNT;
	while (!is(L, ";")) {
		if (is(L, "seq")) {
			if (next(L))
				return -1;
			if (is(L, "count")) {
				k->seq = ORD_SEQ_COUNT;
			} else if (is(L, "as")) {
				if (next(L))
					return -1;
				int o = kind_find(r, L->ts, L->tn);
				if (L->t != T_ID || o < 0 || o == r->nkind - 1)
					return name_err(P, "`seq as` names an earlier kind, found '%s'");
				k->seq = ORD_SEQ_AS;
				k->seqarg = o;
			} else {
				int f = L->t == T_ID ? field_find(L->ts, L->tn) : -1;
				if (f < 0)
					return name_err(P, "expected `count`, `as KIND` or a field after `seq`, found '%s'");
				k->seq = ORD_SEQ_FIELD;
				k->seqarg = f;
			}
			if (next(L))
				return -1;
		} else if (is(L, "on")) {
			if (next(L))
				return -1;
			unsigned ph = 0;
			for (;;) {
				if (is(L, "enter"))
					ph |= ORD_PH_ENTER;
				else if (is(L, "exit"))
					ph |= ORD_PH_EXIT;
				else if (is(L, "done"))
					ph |= ORD_PH_DONE;
				else
					return name_err(P, "expected enter, exit or done, found '%s'");
				if (next(L))
					return -1;
				if (!is(L, "|"))
					break;
				if (next(L))
					return -1;
			}
			k->on = xrealloc(k->on, (size_t)(k->non + 1) * sizeof *k->on);
			ord_on *o = &k->on[k->non++];
			memset(o, 0, sizeof *o);
			o->phases = ph;
			if (parse_regex(P, &o->re, &o->re_text))
				return -1;
			if (is(L, "via")) {
				if (next(L) || parse_regex(P, &o->via, &o->via_text))
					return -1;
			}
		} else if (is(L, "if")) {
			if (next(L))
				return -1;
			ord_expr *c;
			P->fields_only = 1;
			P->np = 0;
			int rc = parse_cond(P, &c);
			P->fields_only = 0;
			if (k->cond) {
				ord_expr *a = xnew(P, ORD_X_AND);
				a->a = k->cond;
				a->b = c;
				c = a;
				k->cond = c;
				if (!rc && deep(P, a))
					return -1;
			}
			k->cond = c;
			if (rc)
				return -1;
		} else {
			return name_err(P, "expected seq, on, if or ';', found '%s'");
		}
	}
	if (!k->non)
		return dt_err_lc(L->e, P->file, k->line, 1, "event kind '%s' has no `on` clause", k->name);
	return next(L);
}

static int parse_rule(parser *P)
{
	lex *L = &P->L;
	ord_rules *r = P->r;
	int line = L->tline, col = L->tcol;
	const char *start = L->ts;
	if (L->t != T_ID)
		return name_err(P, "expected an event kind, found '%s'");
	int k = kind_find(r, L->ts, L->tn);
	if (k < 0)
		return name_err(P, "unknown event kind '%s' (declare it with `event` first)");
	if (next(L) || expect(L, "("))
		return -1;
	P->np = 0;
	while (!is(L, ")")) {
		if (L->t != T_ID)
			return name_err(P, "expected a parameter name, found '%s'");
		if (P->np == r->kind[k].nkey + 1)
			return lex_err(L, "too many parameters%s", "");
		P->pname[P->np] = is(L, "_") ? NULL : L->ts;
		P->plen[P->np++] = L->tn;
		if (next(L))
			return -1;
		if (is(L, ","))
			if (next(L))
				return -1;
	}
	if (P->np != r->kind[k].nkey + 1) {
		char b[160];
		snprintf(b, sizeof b, "%s has %d parameters (its key and n), found %d", r->kind[k].name,
			 r->kind[k].nkey + 1, P->np);
		return lex_err(L, "%s", b);
	}
	if (next(L) || expect(L, "<-"))
		return -1;
	ord_expr *c = NULL;
	int rc = parse_cond(P, &c);
	if (rc) {
		expr_free(c);
		return -1;
	}
	if (!is(L, ";")) {
		expr_free(c);
		char d[64];
		tokdesc(L, d, sizeof d);
		return lex_err(L, "expected '&&', '||' or ';', found '%s'", d);
	}
	r->rule = xrealloc(r->rule, (size_t)(r->nrule + 1) * sizeof *r->rule);
	ord_rule *ru = &r->rule[r->nrule];
	ru->kind = k;
	ru->nparam = P->np;
	ru->cond = c;
	ru->file = xstrdup(P->file);
	ru->line = line;
	ru->col = col;
	ru->text = xstrndup(start, (size_t)(L->ts - start));
	for (char *q = ru->text; *q; q++)
		if (*q == '\n' || *q == '\t' || *q == '\r')
			*q = ' ';
	ord_kind *kk = &r->kind[k];
	kk->rules = xrealloc(kk->rules, (size_t)(kk->nrules + 1) * sizeof *kk->rules);
	kk->rules[kk->nrules++] = r->nrule++;
	return next(L);
}

/* A kind for `start`, `within` or `end`: declared, and matched without `via` (a thread's
 * life is decided as its events arrive, before any request is linked). */
static int life_kind(parser *P, int *out)
{
	lex *L = &P->L;
	if (L->t != T_ID)
		return name_err(P, "expected an event kind, found '%s'");
	int k = kind_find(P->r, L->ts, L->tn);
	if (k < 0)
		return name_err(P, "unknown event kind '%s' (declare it with `event` first)");
	for (int i = 0; i < P->r->kind[k].non; i++)
		if (P->r->kind[k].on[i].via)
			return name_err(P, "kind '%s' matches through `via`: a thread's start and end "
					   "are decided without request links");
	*out = k;
	return next(L);
}

/* `start KIND [within SCOPE];` and `end KIND [within SCOPE];` */
static int parse_life(parser *P, int start)
{
	lex *L = &P->L;
	ord_rules *r = P->r;
	int k, w = -1;
	if (life_kind(P, &k))
		return -1;
	if (is(L, "within")) {
		if (next(L) || life_kind(P, &w))
			return -1;
	}
	if (start) {
		r->start = xrealloc(r->start, (size_t)(r->nstart + 1) * sizeof *r->start);
		r->within = xrealloc(r->within, (size_t)(r->nstart + 1) * sizeof *r->within);
		r->start[r->nstart] = k;
		r->within[r->nstart++] = w;
	} else {
		r->end = xrealloc(r->end, (size_t)(r->nend + 1) * sizeof *r->end);
		r->endwithin = xrealloc(r->endwithin, (size_t)(r->nend + 1) * sizeof *r->endwithin);
		r->end[r->nend] = k;
		r->endwithin[r->nend++] = w;
	}
	return expect(L, ";");
}

/* `fork KIND starts NUMBER;` (NUMBER read from the event's fields, as an `if` reads them) */
static int parse_fork(parser *P)
{
	lex *L = &P->L;
	ord_rules *r = P->r;
	int line = L->tline, k;
	if (life_kind(P, &k))
		return -1;
	if (!is(L, "starts"))
		return name_err(P, "expected `starts` and a number after the fork's kind, found '%s'");
	if (next(L))
		return -1;
	ord_expr *x = NULL;
	P->fields_only = 2;
	P->np = 0;
	int rc = parse_sum(P, &x);
	P->fields_only = 0;
	if (!rc && !isint(x))
		rc = dt_err_lc(L->e, P->file, x->line, x->col,
			       "a fork starts a number of threads, not a condition");
	if (rc) {
		expr_free(x);
		return -1;
	}
	r->fork = xrealloc(r->fork, (size_t)(r->nfork + 1) * sizeof *r->fork);
	r->forkn = xrealloc(r->forkn, (size_t)(r->nfork + 1) * sizeof *r->forkn);
	r->forkline = xrealloc(r->forkline, (size_t)(r->nfork + 1) * sizeof *r->forkline);
	r->forkfile = xrealloc(r->forkfile, (size_t)(r->nfork + 1) * sizeof *r->forkfile);
	r->fork[r->nfork] = k;
	r->forkn[r->nfork] = x;
	r->forkline[r->nfork] = line;
	r->forkfile[r->nfork++] = xstrdup(P->file);
	return expect(L, ";");
}

static int parse_initial(parser *P)
{
	lex *L = &P->L;
	ord_rules *r = P->r;
	if (L->t != T_ID)
		return name_err(P, "expected an event kind, found '%s'");
	int k = kind_find(r, L->ts, L->tn);
	if (k < 0)
		return name_err(P, "unknown event kind '%s' (declare it with `event` first)");
	ord_kind *kk = &r->kind[k];
	int64_t v[ORD_MAXKEY + 1] = { 0 };
	uint8_t w[ORD_MAXKEY + 1] = { 0 };
	if (next(L) || expect(L, "("))
		return -1;
	int n = 0;
	while (!is(L, ")")) {
		if (n == kk->nkey + 1)
			return lex_err(L, "too many values%s", "");
		int neg = 0;
		if (is(L, "-")) {
			neg = 1;
			if (next(L))
				return -1;
		}
		if (is(L, "_") && !neg) {
			w[n] = 1;
		} else if (L->t == T_INT) {
			v[n] = neg ? -L->iv : L->iv;
		} else {
			return name_err(P, "an initial fact has numbers or '_', found '%s'");
		}
		n++;
		if (next(L))
			return -1;
		if (is(L, ","))
			if (next(L))
				return -1;
	}
	if (n != kk->nkey + 1) {
		char b[160];
		snprintf(b, sizeof b, "%s takes %d values (its key and n), found %d", kk->name, kk->nkey + 1, n);
		return lex_err(L, "%s", b);
	}
	if (w[kk->nkey])
		return lex_err(L, "the n of an initial fact must be a number%s", "");
	kk->init = xrealloc(kk->init, (size_t)(kk->ninit + 1) * sizeof *kk->init);
	kk->initwild = xrealloc(kk->initwild, (size_t)(kk->ninit + 1) * sizeof *kk->initwild);
	memcpy(kk->init[kk->ninit], v, sizeof v);
	memcpy(kk->initwild[kk->ninit], w, sizeof w);
	kk->ninit++;
	if (next(L))
		return -1;
	return expect(L, ";");
}

int ord_rules_parse(ord_rules *r, const char *text, size_t len, const char *file, dt_err *e)
{
	parser P;
	memset(&P, 0, sizeof P);
	P.r = r;
	P.file = file;
	lex *L = &P.L;
	L->s = L->p = L->linestart = text;
	L->end = text + len;
	L->file = file;
	L->line = 1;
	L->e = e;
	r->files = xrealloc(r->files, (size_t)(r->nfiles + 1) * sizeof *r->files);
	r->files[r->nfiles++] = xstrdup(file);
	if (memchr(text, 0, len)) {
		const char *z = memchr(text, 0, len);
		return dt_err_at(e, file, z - text, "NUL byte in a rule file");
	}
	if (next(L))
		return -1;
	while (L->t != T_EOF) {
		if (is(L, "event")) {
			if (next(L) || parse_event(&P))
				return -1;
		} else if (is(L, "rule")) {
			if (next(L) || parse_rule(&P))
				return -1;
		} else if (is(L, "initial")) {
			if (next(L) || parse_initial(&P))
				return -1;
		} else if (is(L, "start") || is(L, "end")) {
			int st = is(L, "start");
			if (next(L) || parse_life(&P, st))
				return -1;
		} else if (is(L, "fork")) {
			if (next(L) || parse_fork(&P))
				return -1;
		} else if (is(L, "policy")) {
			if (next(L))
				return -1;
			char w[32] = "";
			if (L->t == T_ID && L->tn < sizeof w)
				memcpy(w, L->ts, L->tn), w[L->tn] = 0;
			int p = ord_policy_parse(w);
			if (p < 0)
				return name_err(&P, "unknown policy '%s' (minimal, concurrent or timestamp)");
			r->policy = p;
			if (next(L) || expect(L, ";"))
				return -1;
		} else {
			return name_err(&P, "expected event, rule, initial, policy, start, end or fork, "
					    "found '%s'");
		}
	}
	return 0;
}

int ord_rules_load_file(ord_rules *r, const char *path, dt_err *e)
{
	uint8_t *data;
	size_t len;
	if (read_file(path, &data, &len, e))
		return -1;
	int rc = ord_rules_parse(r, (const char *)data, len, path, e);
	free(data);
	return rc;
}

/* ---- the standard directories ------------------------------------------------------------------ */

static int str_order(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int ord_rules_load_default(ord_rules *r, dt_err *e)
{
	char **dirs = NULL;
	size_t nd = 0;
	dirs = xrealloc(dirs, (nd + 1) * sizeof *dirs);
#ifdef SRCDIR_RULES
	struct stat st;
	if (stat(PKGDATADIR "/rules", &st) != 0 && stat(SRCDIR_RULES, &st) == 0)
		dirs[nd++] = xstrdup(SRCDIR_RULES);
	else
#endif
		dirs[nd++] = xstrdup(PKGDATADIR "/rules");
	const char *path = getenv("DIFFTRACE_RULES_PATH");
	while (path && *path) {
		const char *colon = strchr(path, ':');
		size_t len = colon ? (size_t)(colon - path) : strlen(path);
		if (len) {
			dirs = xrealloc(dirs, (nd + 1) * sizeof *dirs);
			dirs[nd++] = xstrndup(path, len);
		}
		path = colon ? colon + 1 : NULL;
	}
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char *conf = NULL;
	if (xdg && xdg[0] == '/')
		conf = path_join(xdg, "difftrace/rules");
	else if (home && *home)
		conf = path_join(home, ".config/difftrace/rules");
	if (conf) {
		dirs = xrealloc(dirs, (nd + 1) * sizeof *dirs);
		dirs[nd++] = conf;
	}
	/* name -> full path, later directories replacing earlier ones */
	char **names = NULL, **paths = NULL;
	size_t nn = 0;
	int rc = 0;
	for (size_t i = 0; i < nd && !rc; i++) {
		DIR *d = opendir(dirs[i]);
		if (!d) {
			/* the shipped directory, unreadable to this user, is passed over when
			 * DIFFTRACE_RULES_PATH names the rules' place */
			const char *env = getenv("DIFFTRACE_RULES_PATH");
			int skip = i == 0 && errno == EACCES && env && *env;
			/* the user's directory out of reach (a HOME this user cannot enter) holds
			 * no rules of theirs; one there but unreadable is an error */
			struct stat sr;
			if (conf && i + 1 == nd && errno == EACCES && stat(dirs[i], &sr) != 0 &&
			    errno == EACCES)
				skip = 1;
			if (errno != ENOENT && errno != ENOTDIR && !skip)
				rc = dt_err_at(e, dirs[i], -1, "cannot read the directory: %s", strerror(errno));
			continue;
		}
		struct dirent *de;
		while ((de = readdir(d))) {
			size_t len = strlen(de->d_name);
			if (de->d_name[0] == '.' || len <= 6 || strcmp(de->d_name + len - 6, ".rules"))
				continue;
			size_t j = 0;
			while (j < nn && strcmp(names[j], de->d_name))
				j++;
			if (j == nn) {
				names = xrealloc(names, (nn + 1) * sizeof *names);
				paths = xrealloc(paths, (nn + 1) * sizeof *paths);
				names[nn] = xstrdup(de->d_name);
				paths[nn++] = NULL;
			}
			free(paths[j]);
			paths[j] = path_join(dirs[i], de->d_name);
		}
		closedir(d);
	}
	/* load in name order */
	char **order = xcalloc(nn ? nn : 1, sizeof *order);
	for (size_t i = 0; i < nn; i++)
		order[i] = paths[i];
	qsort(order, nn, sizeof *order, str_order);
	/* sort by file name, not by full path */
	for (size_t i = 0; i < nn; i++)
		for (size_t j = i + 1; j < nn; j++) {
			const char *a = strrchr(order[i], '/'), *b = strrchr(order[j], '/');
			if (strcmp(a ? a : order[i], b ? b : order[j]) > 0) {
				char *t = order[i];
				order[i] = order[j];
				order[j] = t;
			}
		}
	for (size_t i = 0; i < nn && !rc; i++)
		rc = ord_rules_load_file(r, order[i], e);
	if (!rc && nn == 0)
		rc = dt_errf(e, DT_EDATA, "no rule files found (looked in %s and $DIFFTRACE_RULES_PATH)",
			     dirs[0]);
	for (size_t i = 0; i < nn; i++) {
		free(names[i]);
		free(paths[i]);
	}
	free(names);
	free(paths);
	free(order);
	for (size_t i = 0; i < nd; i++)
		free(dirs[i]);
	free(dirs);
	return rc;
}

/* ---- the set ---------------------------------------------------------------------------------- */

ord_rules *ord_rules_new(void)
{
	ord_rules *r = xcalloc(1, sizeof *r);
	r->policy = ORD_MINIMAL;
	return r;
}

static void unbind(ord_rules *r)
{
	for (uint32_t f = 0; f < r->nfunc; f++)
		free(r->fname[f]);
	free(r->fname);
	free(r->fstart);
	free(r->fb);
	free(r->fvia);
	free(r->fdefines);
	free(r->fphases);
	free(r->flife);
	free(r->klife);
	free(r->kscope);
	free(r->fpstart);
	free(r->fpb);
	free(r->via);
	r->fname = NULL;
	r->fstart = NULL;
	r->fb = NULL;
	r->fvia = NULL;
	r->fdefines = NULL;
	r->fphases = NULL;
	r->flife = NULL;
	r->klife = NULL;
	r->kscope = NULL;
	r->fpstart = NULL;
	r->fpb = NULL;
	r->via = NULL;
	r->nvia = 0;
	r->nfunc = 0;
}

void ord_rules_free(ord_rules *r)
{
	if (!r)
		return;
	unbind(r);
	for (int k = 0; k < r->nkind; k++) {
		ord_kind *kk = &r->kind[k];
		free(kk->name);
		free(kk->file);
		for (int i = 0; i < kk->non; i++) {
			pcre2_code_free(kk->on[i].re);
			pcre2_code_free(kk->on[i].via);
			free(kk->on[i].re_text);
			free(kk->on[i].via_text);
		}
		free(kk->on);
		expr_free(kk->cond);
		free(kk->init);
		free(kk->initwild);
		free(kk->rules);
	}
	free(r->kind);
	for (int i = 0; i < r->nrule; i++) {
		expr_free(r->rule[i].cond);
		free(r->rule[i].file);
		free(r->rule[i].text);
	}
	free(r->rule);
	free(r->cix);
	free(r->start);
	free(r->within);
	free(r->end);
	free(r->endwithin);
	for (int i = 0; i < r->nfork; i++) {
		expr_free(r->forkn[i]);
		free(r->forkfile[i]);
	}
	free(r->fork);
	free(r->forkn);
	free(r->forkline);
	free(r->forkfile);
	for (int i = 0; i < r->nfiles; i++)
		free(r->files[i]);
	free(r->files);
	free(r);
}

static int re_match(void *re, const char *name, pcre2_match_data *md)
{
	return pcre2_match(re, (PCRE2_SPTR)name, strlen(name), 0, 0, md, NULL) >= 0;
}

/* Marks in used[] the kinds x reads (atoms and counts). */
static void kinds_read(const ord_expr *x, uint8_t *used)
{
	if (!x)
		return;
	if (x->op == ORD_X_ATOM || x->op == ORD_X_COUNT) {
		used[x->kind] = 1;
		for (int i = 0; i < x->narg; i++)
			kinds_read(x->arg[i], used);
	}
	kinds_read(x->a, used);
	kinds_read(x->b, used);
}

/* r->kscope: the kinds that are only scopes of `within` (klife set before). */
static void scope_kinds(ord_rules *r)
{
	r->kscope = xcalloc((size_t)r->nkind + 1, 1);
	for (int s = 0; s < r->nstart; s++)
		if (r->within[s] >= 0)
			r->kscope[r->within[s]] = 1;
	for (int s = 0; s < r->nend; s++)
		if (r->endwithin[s] >= 0)
			r->kscope[r->endwithin[s]] = 1;
	uint8_t *used = xcalloc((size_t)r->nkind + 1, 1);
	for (int i = 0; i < r->nrule; i++)
		kinds_read(r->rule[i].cond, used);
	for (int k = 0; k < r->nkind; k++) {
		if (r->kind[k].seq == ORD_SEQ_AS)
			used[r->kind[k].seqarg] = 1;
		if (r->kind[k].nrules || (r->klife[k] & (ORD_TM_START | ORD_TM_END | ORD_TM_FORK)))
			used[k] = 1;
	}
	for (int k = 0; k < r->nkind; k++)
		if (used[k])
			r->kscope[k] = 0;
	free(used);
}

int ord_rules_bind(ord_rules *r, const char *const *names, uint32_t nnames, dt_err *e)
{
	unbind(r);
	if (r->nfork && !r->nstart)
		return dt_errf(e, DT_EDATA, "%s:%d: `fork %s` announces threads that start, but the "
			       "rule set has no `start` statement to say which events start them",
			       r->forkfile[0], r->forkline[0], r->kind[r->fork[0]].name);
	/* distinct via patterns (by text) */
	for (int k = 0; k < r->nkind; k++)
		for (int i = 0; i < r->kind[k].non; i++) {
			ord_on *o = &r->kind[k].on[i];
			if (!o->via)
				continue;
			if (r->nvia == 64)
				return dt_errf(e, DT_EDATA, "%s:%d: more than 64 `via` patterns in the rule set",
					       r->kind[k].file, r->kind[k].line);
			r->via = xrealloc(r->via, (size_t)(r->nvia + 1) * sizeof *r->via);
			r->via[r->nvia++] = o->via;
		}
	r->nfunc = nnames;
	r->fname = xcalloc(nnames ? nnames : 1, sizeof *r->fname);
	r->fstart = xcalloc((size_t)nnames + 1, sizeof *r->fstart);
	r->fvia = xcalloc(nnames ? nnames : 1, sizeof *r->fvia);
	r->fdefines = xcalloc(nnames ? nnames : 1, 1);
	r->fphases = xcalloc(nnames ? nnames : 1, 1);
	r->flife = xcalloc(nnames ? nnames : 1, 1);
	r->klife = xcalloc((size_t)r->nkind + 1, 1);
	for (int s = 0; s < r->nstart; s++) {
		r->klife[r->start[s]] |= ORD_TM_START;
		if (r->within[s] >= 0)
			r->klife[r->within[s]] |= ORD_TM_SCOPE;
	}
	for (int s = 0; s < r->nend; s++)
		r->klife[r->end[s]] |= ORD_TM_END;
	for (int s = 0; s < r->nfork; s++)
		r->klife[r->fork[s]] |= ORD_TM_FORK;
	scope_kinds(r);
	size_t cap = 0, n = 0;
	pcre2_match_data *md = pcre2_match_data_create(4, NULL);
	for (uint32_t f = 0; f < nnames; f++) {
		r->fstart[f] = (uint32_t)n;
		const char *nm = names[f];
		if (!nm)
			continue;
		r->fname[f] = xstrdup(nm);
		for (int v = 0; v < r->nvia; v++)
			if (re_match(r->via[v], nm, md))
				r->fvia[f] |= 1ull << v;
		r->fdefines[f] = r->fvia[f] != 0;
		int vi = 0;
		for (int k = 0; k < r->nkind; k++)
			for (int i = 0; i < r->kind[k].non; i++) {
				ord_on *o = &r->kind[k].on[i];
				int via = o->via ? vi++ : -1;
				if (!re_match(o->re, nm, md))
					continue;
				if (n == cap) {
					cap = cap ? cap * 2 : 64;
					r->fb = xrealloc(r->fb, cap * sizeof *r->fb);
				}
				r->fb[n++] = (ord_bound){ k, o->phases, via };
				r->fphases[f] |= (uint8_t)o->phases;
				r->flife[f] |= r->klife[k] != 0;
			}
	}
	r->fstart[nnames] = (uint32_t)n;
	pcre2_match_data_free(md);
	/* the same entries split by phase, for ord_instances */
	static const unsigned bits[3] = { ORD_PH_ENTER, ORD_PH_EXIT, ORD_PH_DONE };
	r->fpstart = xcalloc((size_t)nnames * 3 + 1, sizeof *r->fpstart);
	r->fpb = xcalloc(3 * n + 1, sizeof *r->fpb);
	size_t m = 0;
	for (uint32_t f = 0; f < nnames; f++)
		for (int p = 0; p < 3; p++) {
			r->fpstart[(size_t)f * 3 + (size_t)p] = (uint32_t)m;
			for (uint32_t i = r->fstart[f]; i < r->fstart[f + 1]; i++)
				if (r->fb[i].phases & bits[p])
					r->fpb[m++] = r->fb[i];
		}
	r->fpstart[(size_t)nnames * 3] = (uint32_t)m;
	return 0;
}

/* ---- shared pieces ------------------------------------------------------------------------------ */


void ord_link_make(ord_link *l, const dt_sync_event *d)
{
	l->func = d->func;
	l->comm = d->comm;
	l->dest = d->dest;
	l->stag = d->stag;
	l->src = d->src;
	l->rtag = d->rtag;
}

void ord_link_apply(dt_sync_event *e, const ord_link *l)
{
	if (e->comm == DT_SYNC_NONE)
		e->comm = l->comm;
	if (e->dest == DT_SYNC_NONE)
		e->dest = l->dest;
	if (e->stag == DT_SYNC_NONE)
		e->stag = l->stag;
	if (e->src == DT_SYNC_NONE)
		e->src = l->src;
	if (e->rtag == DT_SYNC_NONE)
		e->rtag = l->rtag;
}

int64_t ord_eval_int(const ord_expr *x, const dt_sync_event *e, const int64_t *param)
{
	switch (x->op) {
	case ORD_X_INT: return x->v;
	case ORD_X_FIELD: return ord_field_get(e, (int)x->v);
	case ORD_X_PARAM: return param[x->v];
	case ORD_X_ADD: return ord_eval_int(x->a, e, param) + ord_eval_int(x->b, e, param);
	case ORD_X_SUB: return ord_eval_int(x->a, e, param) - ord_eval_int(x->b, e, param);
	case ORD_X_NEG: return -ord_eval_int(x->a, e, param);
	}
	return 0;
}

/* A leaf of a kind's condition (a number or a field), else the general evaluation. */
static inline int64_t field_val(const ord_expr *x, const dt_sync_event *e)
{
	if (x->op == ORD_X_FIELD)
		return ord_field_get(e, (int)x->v);
	if (x->op == ORD_X_INT)
		return x->v;
	return ord_eval_int(x, e, NULL);
}

static int eval_fields(const ord_expr *x, const dt_sync_event *e)
{
	switch (x->op) {
	case ORD_X_AND: return eval_fields(x->a, e) && eval_fields(x->b, e);
	case ORD_X_OR: return eval_fields(x->a, e) || eval_fields(x->b, e);
	case ORD_X_NOT: return !eval_fields(x->a, e);
	default: {
		int64_t a = field_val(x->a, e), b = field_val(x->b, e);
		switch (x->op) {
		case ORD_X_EQ: return a == b;
		case ORD_X_NE: return a != b;
		case ORD_X_LT: return a < b;
		case ORD_X_LE: return a <= b;
		case ORD_X_GT: return a > b;
		case ORD_X_GE: return a >= b;
		}
	}
	}
	return 0;
}

int ord_instances(const ord_rules *r, const dt_sync_event *e, uint32_t via_func, ord_inst *out,
		  int max)
{
	if (e->func >= r->nfunc)
		return 0;
	/* the function's entries for the event's phase, in the order of fb */
	size_t pi = (size_t)e->func * 3 + (e->phase == DT_SYNC_ENTER ? 0 : e->phase == DT_SYNC_EXIT ? 1 : 2);
	uint64_t vias = via_func < r->nfunc ? r->fvia[via_func] : 0;
	int n = 0, last = -1;
	for (uint32_t i = r->fpstart[pi]; i < r->fpstart[pi + 1]; i++) {
		const ord_bound *b = &r->fpb[i];
		if (b->kind == last || r->kscope[b->kind])
			continue;
		if (b->via >= 0 && !(vias >> b->via & 1))
			continue;
		const ord_kind *k = &r->kind[b->kind];
		if (k->cond && !eval_fields(k->cond, e))
			continue;
		if (k->seq == ORD_SEQ_AS) {
			int found = 0;
			for (int j = 0; j < n; j++)
				found |= out[j].kind == k->seqarg;
			if (!found)
				continue;
		}
		if (n == max)
			break;
		out[n].kind = b->kind;
		for (int j = 0; j < k->nkey; j++)
			out[n].t[j] = ord_field_get(e, k->key[j]);
		out[n].t[k->nkey] = 0;
		last = b->kind;
		n++;
	}
	return n;
}

unsigned ord_thread_mark(const ord_rules *r, const dt_sync_event *e)
{
	if (!r->nstart && !r->nend && !r->nfork)
		return 0;
	unsigned m = 0;
	for (int s = 0; s < r->nstart; s++)
		if (r->within[s] < 0)
			m |= ORD_TM_SCOPE;
	if (e->func >= r->nfunc || !r->flife[e->func]) /* most events: none of these kinds */
		return m;
	/* the function's entries for the event's phase, as ord_instances walks them, but only
	 * the kinds that matter here (they have no `via`: parse_life refuses it) */
	size_t pi = (size_t)e->func * 3 + (e->phase == DT_SYNC_ENTER ? 0 : e->phase == DT_SYNC_EXIT ? 1 : 2);
	for (uint32_t i = r->fpstart[pi]; i < r->fpstart[pi + 1]; i++) {
		const ord_bound *b = &r->fpb[i];
		unsigned life = r->klife[b->kind];
		if (!life || (m & life) == life)
			continue;
		const ord_kind *k = &r->kind[b->kind];
		if (k->cond && !eval_fields(k->cond, e))
			continue;
		/* an instance only with its earlier kind */
		if (k->seq == ORD_SEQ_AS && !ord_is_instance(r, e, k->seqarg))
			continue;
		m |= life;
	}
	return m;
}

int ord_is_instance(const ord_rules *r, const dt_sync_event *e, int k)
{
	if (e->func >= r->nfunc)
		return 0;
	size_t pi = (size_t)e->func * 3 + (e->phase == DT_SYNC_ENTER ? 0 : e->phase == DT_SYNC_EXIT ? 1 : 2);
	const ord_kind *kd = &r->kind[k];
	for (uint32_t i = r->fpstart[pi]; i < r->fpstart[pi + 1]; i++)
		if (r->fpb[i].kind == k && r->fpb[i].via < 0)
			return (!kd->cond || eval_fields(kd->cond, e)) &&
			       (kd->seq != ORD_SEQ_AS || ord_is_instance(r, e, kd->seqarg));
	return 0;
}

int ord_thread_end_scope(const ord_rules *r, const dt_sync_event *e)
{
	int scope = -2;
	for (int s = 0; s < r->nend; s++) {
		if (!ord_is_instance(r, e, r->end[s]))
			continue;
		if (scope == -2 || scope == r->endwithin[s])
			scope = r->endwithin[s];
		else
			scope = -1; /* ends of different scopes: everything */
	}
	return scope < 0 ? -1 : scope;
}

int64_t ord_thread_forks(const ord_rules *r, const dt_sync_event *e)
{
	int64_t n = 0;
	for (int s = 0; s < r->nfork; s++) {
		if (!ord_is_instance(r, e, r->fork[s]))
			continue;
		int64_t v = ord_eval_int(r->forkn[s], e, NULL);
		if (v > 0)
			n += v < ((int64_t)1 << 20) ? v : ((int64_t)1 << 20);
	}
	return n;
}

int64_t ord_initial(const ord_kind *k, const int64_t *key)
{
	int64_t hw = ORD_NONE_HW;
	for (int i = 0; i < k->ninit; i++) {
		int ok = 1;
		for (int j = 0; j < k->nkey && ok; j++)
			ok = k->initwild[i][j] || k->init[i][j] == key[j];
		if (ok && k->init[i][k->nkey] > hw)
			hw = k->init[i][k->nkey];
	}
	return hw;
}

void ord_event_str(const ord_rules *r, const dt_sync_event *e, char *buf, size_t n)
{
	const char *nm = e->func < r->nfunc && r->fname[e->func] ? r->fname[e->func] : NULL;
	char esc[96];
	size_t o = 0;
	if (nm) {
		for (size_t i = 0; nm[i] && o + 5 < sizeof esc; i++) {
			unsigned char c = (unsigned char)nm[i];
			o += (size_t)snprintf(esc + o, sizeof esc - o, c < 32 || c == 127 ? "\\x%02x" : "%c", c);
		}
		esc[o] = 0;
	} else {
		snprintf(esc, sizeof esc, "function#%u", e->func);
	}
	static const char *const ph[] = { "enter", "exit", "done" };
	snprintf(buf, n, "%d.%d #%u %s %s", e->proc, e->thread, e->seq, esc,
		 e->phase <= 2 ? ph[e->phase] : "?");
}

void ord_tuple_str(const ord_rules *r, int kind, const int64_t *t, int nt, char *buf, size_t n)
{
	size_t o = (size_t)snprintf(buf, n, "%s(", r->kind[kind].name);
	for (int i = 0; i < nt && o < n; i++)
		o += (size_t)snprintf(buf + o, n - o, "%s%lld", i ? ", " : "", (long long)t[i]);
	if (o < n)
		snprintf(buf + o, n - o, ")");
}
