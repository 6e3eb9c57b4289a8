/* spec.c: parsing the fault specification of libdifftrace-inject (grammar in
 * difftrace-inject(7)). Pure: no I/O, no MPI, no OpenMP, so the unit test and the library's
 * constructor share it, and every refusal names the line and column of the offending text. */
#include "spec.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define X_NAME(n, c) #c,
static const char *const fn_names[] = { SPEC_FUNCS(X_NAME) };
#undef X_NAME
#define X_NAME(n) "MPI_" #n,
static const char *const op_names[] = { SPEC_OPS(X_NAME) };
static const char *const type_names[] = { SPEC_TYPES(X_NAME) };
#undef X_NAME

static const char *const kind_names[] = { "allreduce", "reduce", "bcast", "barrier", "send",
					  "isend", "recv", "critical", "lock", "spin" };

enum key {
	K_CALL, K_RANKS, K_THREADS, K_COUNT, K_OP, K_TYPE, K_ROOT, K_DEST, K_SOURCE, K_TAG,
	K_DROP, K_FUNC, K_BUSY, K_COUNT_OF_KEYS
};
static const char *const key_names[] = { "call", "ranks", "threads", "count", "op", "datatype",
					 "root", "dest", "source", "tag", "drop", "func",
					 "busy" };
#define B(k) (1u << (k))
#define SELECT (B(K_CALL) | B(K_RANKS) | B(K_THREADS))
/* The keys each kind accepts, in kind_names order. */
static const unsigned kind_keys[SPEC_KIND_COUNT] = {
	[SPEC_ALLREDUCE] = SELECT | B(K_COUNT) | B(K_OP) | B(K_TYPE) | B(K_DROP),
	[SPEC_REDUCE] = SELECT | B(K_COUNT) | B(K_OP) | B(K_TYPE) | B(K_ROOT) | B(K_DROP),
	[SPEC_BCAST] = SELECT | B(K_COUNT) | B(K_TYPE) | B(K_ROOT) | B(K_DROP),
	[SPEC_BARRIER] = SELECT | B(K_DROP),
	[SPEC_SEND] = SELECT | B(K_COUNT) | B(K_TYPE) | B(K_DEST) | B(K_TAG) | B(K_DROP),
	[SPEC_ISEND] = SELECT | B(K_COUNT) | B(K_TYPE) | B(K_DEST) | B(K_TAG) | B(K_DROP),
	[SPEC_RECV] = SELECT | B(K_COUNT) | B(K_TYPE) | B(K_SOURCE) | B(K_TAG),
	[SPEC_CRITICAL] = SELECT,
	[SPEC_LOCK] = SELECT,
	[SPEC_SPIN] = SELECT | B(K_FUNC) | B(K_BUSY),
};
static const enum spec_fn kind_fn[SPEC_KIND_COUNT] = {
	[SPEC_ALLREDUCE] = SPEC_FN_ALLREDUCE, [SPEC_REDUCE] = SPEC_FN_REDUCE,
	[SPEC_BCAST] = SPEC_FN_BCAST,	      [SPEC_BARRIER] = SPEC_FN_BARRIER,
	[SPEC_SEND] = SPEC_FN_SEND,	      [SPEC_ISEND] = SPEC_FN_ISEND,
	[SPEC_RECV] = SPEC_FN_RECV,	      [SPEC_CRITICAL] = SPEC_FN_CRITICAL_START,
	[SPEC_LOCK] = SPEC_FN_SET_LOCK,	      [SPEC_SPIN] = SPEC_FN_COUNT,
};

const char *spec_fn_name(enum spec_fn fn) { return fn < SPEC_FN_COUNT ? fn_names[fn] : "?"; }
const char *spec_op_name(enum spec_op op) { return op < SPEC_OP_COUNT ? op_names[op] : "?"; }
const char *spec_type_name(enum spec_type t)
{
	return t < SPEC_TYPE_COUNT ? type_names[t] : "?";
}
const char *spec_kind_name(enum spec_kind k)
{
	return k < SPEC_KIND_COUNT ? kind_names[k] : "?";
}

bool spec_in(const struct spec_ranges *r, long v)
{
	if (r->n == 0)
		return true;
	for (int i = 0; i < r->n; i++)
		if (v >= r->r[i].lo && v <= r->r[i].hi)
			return true;
	return false;
}

/* The parser's position: the whole text, for turning an offset into line and column. */
struct parser {
	const char *text;
	struct spec_error *err;
};

static void locate(const struct parser *p, const char *at, int *line, int *col)
{
	*line = *col = 1;
	for (const char *s = p->text; s < at && *s; s++) {
		if (*s == '\n') {
			++*line;
			*col = 1;
		} else {
			++*col;
		}
	}
}

__attribute__((format(printf, 3, 4))) static int fail(struct parser *p, const char *at,
						      const char *fmt, ...)
{
	locate(p, at, &p->err->line, &p->err->col);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->err->msg, sizeof p->err->msg, fmt, ap);
	va_end(ap);
	return -1;
}

/* A token is [s, e): compare it with a name, ignoring case. */
static bool tok_is(const char *s, const char *e, const char *name)
{
	size_t n = (size_t)(e - s);
	return strlen(name) == n && strncasecmp(s, name, n) == 0;
}

/* A decimal number in [s, e) with nothing else; 0 or -1. */
static int number(const char *s, const char *e, long *v)
{
	if (s == e || !isdigit((unsigned char)*s) || e - s > 9)
		return -1;
	long x = 0;
	for (; s < e; s++) {
		if (!isdigit((unsigned char)*s))
			return -1;
		x = x * 10 + (*s - '0');
	}
	*v = x;
	return 0;
}

/* "3", "0-2", "4-" separated by commas. MIN is the smallest value allowed. */
static int ranges(struct parser *p, const char *s, const char *e, const char *key, long min,
		  struct spec_ranges *r)
{
	if (s == e)
		return fail(p, s, "%s= needs a value (e.g. %s=1 or %s=0-2,5)", key, key, key);
	while (s < e) {
		const char *c = memchr(s, ',', (size_t)(e - s));
		if (!c)
			c = e;
		const char *d = memchr(s, '-', (size_t)(c - s));
		long lo, hi;
		if (number(s, d ? d : c, &lo))
			return fail(p, s, "%s: '%.*s' is not a number or a range like 2-5", key,
				    (int)(c - s), s);
		hi = lo;
		if (d && d + 1 == c)
			hi = SPEC_OPEN;
		else if (d && number(d + 1, c, &hi))
			return fail(p, d + 1, "%s: '%.*s' is not a number", key, (int)(c - d - 1),
				    d + 1);
		if (lo < min)
			return fail(p, s, "%s: %s start at %ld", key,
				    min ? "calls are counted from 1, they" : "values", min);
		if (hi < lo)
			return fail(p, s, "%s: the range %ld-%ld is empty", key, lo, hi);
		if (r->n == SPEC_MAX_RANGES)
			return fail(p, s, "%s: more than %d ranges", key, SPEC_MAX_RANGES);
		r->r[r->n].lo = lo;
		r->r[r->n].hi = hi;
		r->n++;
		s = c < e ? c + 1 : e;
		if (c < e && s == e)
			return fail(p, c, "%s: a comma ends the list", key);
	}
	return 0;
}

static int one_number(struct parser *p, const char *s, const char *e, const char *key,
		      bool any, int *v)
{
	long x;
	if (any && tok_is(s, e, "any")) {
		*v = SPEC_ANY;
		return 0;
	}
	if (number(s, e, &x))
		return fail(p, s, "%s= wants a number%s, not '%.*s'", key, any ? " or 'any'" : "",
			    (int)(e - s), s);
	*v = (int)x;
	return 0;
}

/* A name from LIST (with or without the MPI_ prefix, any case). */
static int name_in(const char *s, const char *e, const char *const *list, int n)
{
	if (e - s > 4 && strncasecmp(s, "MPI_", 4) == 0)
		s += 4;
	for (int i = 0; i < n; i++)
		if (tok_is(s, e, list[i] + 4))
			return i;
	return -1;
}

static void list_names(char *buf, size_t size, const char *const *list, int n)
{
	size_t len = 0;
	buf[0] = 0;
	for (int i = 0; i < n && len + 1 < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? " " : "", list[i]);
}

static void list_keys(char *buf, size_t size, unsigned keys)
{
	size_t len = 0;
	buf[0] = 0;
	for (int k = 0; k < K_COUNT_OF_KEYS && len + 1 < size; k++)
		if (keys & B(k))
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? " " : "",
						key_names[k]);
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* One item "key=value" or "flag" in [s, e), trimmed. */
static int item(struct parser *p, struct spec_fault *f, unsigned *seen, const char *s,
		const char *e)
{
	const char *eq = memchr(s, '=', (size_t)(e - s));
	const char *ke = eq ? eq : e, *v = eq ? eq + 1 : e;
	int k;
	for (k = 0; k < K_COUNT_OF_KEYS; k++)
		if (tok_is(s, ke, key_names[k]))
			break;
	/* short spellings people will type */
	if (k == K_COUNT_OF_KEYS) {
		if (tok_is(s, ke, "rank"))
			k = K_RANKS;
		else if (tok_is(s, ke, "thread"))
			k = K_THREADS;
		else if (tok_is(s, ke, "type"))
			k = K_TYPE;
		else if (tok_is(s, ke, "calls"))
			k = K_CALL;
	}
	char keys[160];
	list_keys(keys, sizeof keys, kind_keys[f->kind]);
	if (k == K_COUNT_OF_KEYS)
		return fail(p, s, "unknown key '%.*s' (%s takes: %s)", (int)(ke - s), s,
			    kind_names[f->kind], keys);
	if (!(kind_keys[f->kind] & B(k)))
		return fail(p, s, "%s does not take %s (it takes: %s)", kind_names[f->kind],
			    key_names[k], keys);
	if (*seen & B(k))
		return fail(p, s, "%s given twice", key_names[k]);
	*seen |= B(k);
	bool flag = k == K_DROP || k == K_BUSY;
	if (flag && eq)
		return fail(p, eq, "%s takes no value", key_names[k]);
	if (!flag && !eq)
		return fail(p, e, "%s needs a value (%s=...)", key_names[k], key_names[k]);
	if (!flag && v == e)
		return fail(p, v, "%s= needs a value", key_names[k]);
	char names[400];
	switch (k) {
	case K_CALL:
		return ranges(p, v, e, "call", 1, &f->calls);
	case K_RANKS:
		return ranges(p, v, e, "ranks", 0, &f->ranks);
	case K_THREADS:
		return ranges(p, v, e, "threads", 0, &f->threads);
	case K_COUNT: {
		const char *n = v;
		if (*n == '+' || *n == '-') {
			f->count_rel = true;
			n++;
		}
		if (number(n, e, &f->count))
			return fail(p, v, "count= wants a number, +N or -N, not '%.*s'",
				    (int)(e - v), v);
		if (*v == '-')
			f->count = -f->count;
		f->set |= SPEC_SET_COUNT;
		return 0;
	}
	case K_OP: {
		int i = name_in(v, e, op_names, SPEC_OP_COUNT);
		if (i < 0) {
			list_names(names, sizeof names, op_names, SPEC_OP_COUNT);
			return fail(p, v, "unknown operation '%.*s' (known: %s)", (int)(e - v), v,
				    names);
		}
		f->op = (enum spec_op)i;
		f->set |= SPEC_SET_OP;
		return 0;
	}
	case K_TYPE: {
		int i = name_in(v, e, type_names, SPEC_TYPE_COUNT);
		if (i < 0) {
			list_names(names, sizeof names, type_names, SPEC_TYPE_COUNT);
			return fail(p, v, "unknown datatype '%.*s' (known: %s)", (int)(e - v), v,
				    names);
		}
		f->type = (enum spec_type)i;
		f->set |= SPEC_SET_TYPE;
		return 0;
	}
	case K_ROOT:
		f->set |= SPEC_SET_ROOT;
		return one_number(p, v, e, "root", false, &f->root);
	case K_DEST:
		f->set |= SPEC_SET_DEST;
		return one_number(p, v, e, "dest", false, &f->dest);
	case K_SOURCE:
		f->set |= SPEC_SET_SOURCE;
		return one_number(p, v, e, "source", true, &f->source);
	case K_TAG:
		f->set |= SPEC_SET_TAG;
		return one_number(p, v, e, "tag", f->kind == SPEC_RECV, &f->tag);
	case K_DROP:
		f->drop = true;
		return 0;
	case K_BUSY:
		f->busy = true;
		return 0;
	case K_FUNC:
		for (int i = 0; i < SPEC_FN_COUNT; i++)
			if (tok_is(v, e, fn_names[i])) {
				f->fn = (enum spec_fn)i;
				return 0;
			}
		list_names(names, sizeof names, fn_names, SPEC_FN_COUNT);
		return fail(p, v, "func: '%.*s' is not a function the library intercepts (%s)",
			    (int)(e - v), v, names);
	}
	return 0;
}

/* One fault in [s, e): "kind" then ":item" ... */
static int fault(struct parser *p, struct spec *out, const char *s, const char *e)
{
	const char *c = memchr(s, ':', (size_t)(e - s));
	const char *ke = c ? c : e;
	while (ke > s && is_space(ke[-1]))
		ke--;
	int k;
	for (k = 0; k < SPEC_KIND_COUNT; k++)
		if (tok_is(s, ke, kind_names[k]))
			break;
	if (k == SPEC_KIND_COUNT) {
		char names[160];
		list_names(names, sizeof names, kind_names, SPEC_KIND_COUNT);
		return fail(p, s, "unknown fault '%.*s' (known: %s)", (int)(ke - s), s, names);
	}
	if (out->n == SPEC_MAX_FAULTS)
		return fail(p, s, "more than %d faults", SPEC_MAX_FAULTS);
	struct spec_fault *f = &out->f[out->n];
	memset(f, 0, sizeof *f);
	f->kind = (enum spec_kind)k;
	f->fn = kind_fn[k];
	locate(p, s, &f->line, &f->col);
	const char *start = s;
	unsigned seen = 0;
	while (c) {
		s = c + 1;
		c = memchr(s, ':', (size_t)(e - s));
		const char *ie = c ? c : e;
		while (s < ie && is_space(*s))
			s++;
		while (ie > s && is_space(ie[-1]))
			ie--;
		if (s == ie)
			return fail(p, s, "empty item after ':'");
		if (item(p, f, &seen, s, ie))
			return -1;
	}
	bool mpi = k <= SPEC_RECV;
	if (k == SPEC_SPIN && !(seen & B(K_FUNC)))
		return fail(p, e, "spin needs func=NAME (e.g. spin:func=MPI_Barrier:call=5)");
	if (mpi && f->drop && f->set)
		return fail(p, start, "%s: drop cannot be combined with other changes",
			    kind_names[k]);
	if (mpi && !f->drop && !f->set) {
		char keys[160];
		list_keys(keys, sizeof keys,
			  kind_keys[k] & ~(SELECT | B(K_FUNC) | B(K_BUSY)));
		return fail(p, e, "%s: nothing to change (give one of: %s)", kind_names[k], keys);
	}
	out->n++;
	return 0;
}

int spec_parse(const char *text, struct spec *out, struct spec_error *err)
{
	struct parser p = { text, err };
	memset(out, 0, sizeof *out);
	memset(err, 0, sizeof *err);
	const char *s = text;
	while (*s) {
		/* a fault ends at ';', a newline, a comment or the end */
		const char *e = s + strcspn(s, ";\n#");
		const char *a = s, *b = e;
		while (a < b && is_space(*a))
			a++;
		while (b > a && is_space(b[-1]))
			b--;
		if (a < b && fault(&p, out, a, b))
			return -1;
		if (*e == '#')
			e += strcspn(e, "\n");
		s = *e ? e + 1 : e;
	}
	return 0;
}
