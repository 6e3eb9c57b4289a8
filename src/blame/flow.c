/* flow.c: a sample's blame through the static data flow of the program's functions (flow.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blame/flow.h"
#include "util/names.h"
#include "util/util.h"

int flow_same_function(const char *name, const char *sym)
{
	char pb[512];
	sym = dt_name_plain(sym, pb, sizeof pb);
	size_t n = strlen(name);
	return !strncmp(name, sym, n) && (sym[n] == 0 || (sym[n] == '.' && n > 0));
}

void flow_init(flow_ctx *x, const dt_blame_data *d, const blame_src *src)
{
	memset(x, 0, sizeof *x);
	x->d = d;
	x->src = src;
	x->fnix = xmalloc((d->nlocs ? d->nlocs : 1) * sizeof *x->fnix);
	x->noted = xcalloc(d->nlocs ? d->nlocs : 1, 1);
	x->maxv = 1;
	for (size_t f = 0; src && f < src->n; f++)
		if (src->fn[f].nvars > x->maxv)
			x->maxv = src->fn[f].nvars;
	for (size_t i = 0; i < d->nlocs; i++) {
		x->fnix[i] = -1;
		if (!d->locs[i].in_main || !src)
			continue;
		for (size_t f = 0; f < src->n; f++)
			if (flow_same_function(src->fn[f].name, d->locs[i].func)) {
				x->fnix[i] = (int32_t)f;
				break;
			}
	}
}

void flow_why_free(flow_why *w)
{
	free(w->hop);
	free(w->rel);
	memset(w, 0, sizeof *w);
}

void flow_free(flow_ctx *x)
{
	free(x->fnix);
	free(x->noted);
	memset(x, 0, sizeof *x);
}

static int is_pointer(const bx_var *v)
{
	return v->type && (strchr(v->type, '*') || strchr(v->type, '['));
}

static int same_field(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The field of variable v that an argument's text names: "x" for "pb->x" or "&s.x" when v is pb
 * or s; keep when the text is v itself (the pointer passed on unchanged); NULL otherwise. */
static const char *arg_field(const char *text, const char *v, const char *keep)
{
	if (!text)
		return NULL;
	if (*text == '&')
		text++;
	size_t n = strlen(v);
	if (strncmp(text, v, n))
		return NULL;
	if (!text[n])
		return keep;
	if (!strncmp(text + n, "->", 2) && text[n + 2])
		return text + n + 2;
	if (text[n] == '.' && text[n + 1])
		return text + n + 1;
	return NULL;
}

/* A variable with its share of the sample, at a frame. */
struct item {
	size_t frame;
	int var;
	int through; /* written through (a pointer's target), not the variable itself */
	double w;
	size_t origin; /* flow_target.origin */
	const char *field; /* flow_target.field */
	int direct;        /* flow_target.direct */
};

struct work {
	struct item *v;
	size_t n, cap;
	flow_why *rec; /* recording: rec->hop[i] is item i's */
};

/* Items recorded without merging up to this many (a deep recursion that splits its blame at
 * every level merges beyond it, and its paths keep the first way found). */
#define WHY_MAX_ITEMS 65536

/* h: the item's record (with rec; its fn, var, through and frame are filled by the caller). */
static void push(struct work *q, size_t frame, int var, int through, double w, size_t origin,
		 const flow_hop *h)
{
	grow((void **)&q->v, &q->cap, q->n + 1, sizeof *q->v);
	q->v[q->n++] = (struct item){ frame, var, through, w, origin, NULL, 0 };
	if (q->rec) {
		flow_why *r = q->rec;
		grow((void **)&r->hop, &r->caphop, r->nhop + 1, sizeof *r->hop);
		flow_hop z = { SIZE_MAX, -1, -1, 0, 0, NULL, -1, 0, 0, 0, 0, NULL };
		r->hop[r->nhop] = h ? *h : z;
		r->hop[r->nhop].var = var;
		r->hop[r->nhop].through = through;
		r->hop[r->nhop].frame = frame;
		r->nhop++;
	}
}

/* The same for an item above the one being worked (done: the items before it): merged with a
 * waiting item of the same frame, variable and origin, so that the items of a frame stay few
 * however many ways lead there (a recursion whose frames each split the blame would otherwise
 * double them at every level). The queue's frames never decrease. */
static void push_up(struct work *q, size_t done, size_t frame, int var, int through, double w,
		    size_t origin, const char *field, int direct, const flow_hop *h)
{
	for (size_t i = q->n; (!q->rec || q->n >= WHY_MAX_ITEMS) && i-- > done && q->v[i].frame == frame;)
		if (q->v[i].var == var && q->v[i].through == through && q->v[i].origin == origin &&
		    same_field(q->v[i].field, field) && q->v[i].direct == direct) {
			q->v[i].w += w;
			return;
		}
	push(q, frame, var, through, w, origin, h);
	q->v[q->n - 1].field = field;
	q->v[q->n - 1].direct = direct;
}

/* rec: recording, the target is reached from item hop through the relations rel0..+nrel. */
static void target_h(flow_target **t, size_t *cap, size_t *n, int fn, int var, size_t frame,
		     int pointer, size_t origin, double w, const flow_why *rec, size_t hop,
		     size_t rel0, size_t nrel, size_t heur, const char *field, int direct)
{
	if (!pointer) {
		origin = SIZE_MAX;
		field = NULL;
	}
	for (size_t i = 0; !rec && i < *n; i++)
		if ((*t)[i].fn == fn && (*t)[i].var == var && (*t)[i].frame == frame &&
		    (*t)[i].pointer == pointer && (*t)[i].origin == origin && (*t)[i].heur == heur &&
		    same_field((*t)[i].field, field) && (*t)[i].direct == direct) {
			(*t)[i].share += w;
			return;
		}
	grow((void **)t, cap, *n + 1, sizeof **t);
	(*t)[(*n)++] = (flow_target){ .fn = fn, .var = var, .frame = frame, .pointer = pointer,
				      .origin = origin, .share = w, .heur = heur, .hop = hop,
				      .rel0 = rel0, .nrel = nrel, .field = field, .direct = direct };
}

static void target(flow_target **t, size_t *cap, size_t *n, int fn, int var, size_t frame,
		   int pointer, size_t origin, double w, const flow_why *rec, size_t hop,
		   size_t rel0, size_t nrel, int direct)
{
	target_h(t, cap, n, fn, var, frame, pointer, origin, w, rec, hop, rel0, nrel, SIZE_MAX, NULL,
		 direct);
}

/* Whether v is the index of a loop of f: a variable of a loop's condition that the loop's own
 * line writes (for (i = 0; i < n; i++)). */
static int loop_index(const bx_func *f, int v)
{
	for (size_t i = 0; i < f->nlines; i++)
		if (f->lines[i].var == v && f->lines[i].how == BX_CONDITION)
			for (size_t j = 0; j < f->nlines; j++)
				if (f->lines[j].var == v && f->lines[j].line == f->lines[i].line &&
				    f->lines[j].how == BX_WRITE)
					return 1;
	return 0;
}

/* The variables the statements of `line` write into seeds (with their through flag): for a
 * line with a condition, the variables the condition controls (an inner loop's index among
 * them only when it controls nothing else); else the variables written. */
static void seeds(const bx_func *f, int line, struct work *out, size_t frame)
{
	size_t n0 = out->n;
	int cond = 0;
	for (size_t i = 0; i < f->nlines; i++)
		cond |= f->lines[i].line == line && f->lines[i].how == BX_CONDITION;
	/* what the condition controls, the loop indices (the variables of a condition) only when
	 * it controls nothing else: the cost of a loop goes to what it computes */
	for (int pass = 0; cond && pass < 2 && out->n == n0; pass++)
		for (size_t r = 0; r < f->nrels; r++) {
			const bx_rel *rl = &f->rels[r];
			if (!rl->implicit || rl->line != line)
				continue;
			int dup = 0;
			for (size_t j = n0; j < out->n && !dup; j++)
				dup = out->v[j].var == rl->dst;
			/* the condition's own variables, and loops' indices (a variable read by
			 * another condition, if (c > 0), is computed, not an index) */
			for (size_t i = 0; i < f->nlines && !dup && !pass; i++)
				dup = f->lines[i].how == BX_CONDITION && f->lines[i].line == line &&
				      f->lines[i].var == rl->dst;
			if (!dup && !pass)
				dup = loop_index(f, rl->dst);
			if (!dup)
				push(out, frame, rl->dst, rl->through, 0, SIZE_MAX, NULL);
		}
	if (out->n == n0)
		for (size_t i = 0; i < f->nlines; i++) {
			const bx_line *l = &f->lines[i];
			if (l->line != line || l->how == BX_CONDITION || l->var < 0 ||
			    (size_t)l->var >= f->nvars)
				continue;
			int through = l->how == BX_THROUGH ||
				      (l->how == BX_OUT && is_pointer(&f->vars[l->var]));
			int dup = 0;
			for (size_t j = n0; j < out->n && !dup; j++)
				dup = out->v[j].var == l->var;
			if (!dup) {
				push(out, frame, l->var, through, 0, SIZE_MAX, NULL);
				out->v[out->n - 1].direct = 1; /* the line writes it */
			}
		}
	for (size_t j = n0; j < out->n; j++)
		out->v[j].w = 1.0 / (double)(out->n - n0);
}

static const bx_call *call_at(const bx_func *g, int line, const char *callee);

/* The call at `line` of f that a library frame named `lib` runs, with its transfer function:
 * the call to `lib` when the table knows it; when no call at the line is named `lib` (the C
 * library runs memcpy as an internal routine such as __memmove_avx_unaligned_erms, chosen when
 * it loads), the one call at the line whose callee the table knows. NULL when neither. */
static const bx_call *proto_call(const transfer_set *tf, const bx_func *f, int line,
				 const char *name, const transfer_fn **t)
{
	*t = transfer_find(tf, name);
	if (*t) {
		const bx_call *c = call_at(f, line, name);
		return c && c->callee && !strcmp(c->callee, name) ? c : NULL;
	}
	const bx_call *one = NULL;
	for (size_t i = 0; i < f->ncalls; i++) {
		const bx_call *c = &f->calls[i];
		if (c->line != line || !c->callee)
			continue;
		if (!strcmp(c->callee, name))
			return NULL; /* the frame is that call's, and the table does not know it */
		const transfer_fn *u = transfer_find(tf, c->callee);
		if (!u)
			continue;
		if (one)
			return NULL; /* two calls the table knows: which one runs is not known */
		one = c;
		*t = u;
	}
	return one;
}

/* The seeds of a sample inside library function `lib` called at `line` of f, when a transfer
 * function knows it: the variable of the argument it blames (the written one, &x or a pointer,
 * else the variables the argument mentions, in equal parts), or for blame=return the variable
 * the call's value is assigned to. Returns the argument's position (from 1;
 * TRANSFER_RETURN for the value), 0 when the prototype table does not place the sample; *tname
 * is then the function the table placed it by. */
static int proto_seeds(const transfer_set *tf, const bx_func *f, int line, const char *lib,
		       struct work *out, size_t frame, const char **tname)
{
	char name[128];
	snprintf(name, sizeof name, "%s", strncmp(lib, "PMPI_", 5) ? lib : lib + 1);
	const transfer_fn *t = NULL;
	const bx_call *c = tf ? proto_call(tf, f, line, name, &t) : NULL;
	if (!c || !t || !t->blame)
		return 0;
	size_t n0 = out->n;
	if (t->blame == TRANSFER_RETURN) {
		if (c->result >= 0 && (size_t)c->result < f->nvars)
			push(out, frame, c->result, 0, 1.0, SIZE_MAX, NULL);
	} else {
		if ((size_t)t->blame > c->nargs)
			return 0;
		const bx_arg *a = &c->args[t->blame - 1];
		if (a->out_var >= 0 && (size_t)a->out_var < f->nvars) {
			push(out, frame, a->out_var, a->out_through, 1.0, SIZE_MAX, NULL);
			out->v[out->n - 1].field = arg_field(a->text, f->vars[a->out_var].name, NULL);
		}
		else
			for (size_t i = 0; i < a->nvars; i++)
				if (a->vars[i] >= 0 && (size_t)a->vars[i] < f->nvars)
					push(out, frame, a->vars[i], 1, 1.0 / (double)a->nvars,
					     SIZE_MAX, NULL);
	}
	*tname = t->name;
	return out->n > n0 ? t->blame : 0;
}

/* Whether v of f passes blame out of the function when it is reached (through: written
 * through it). */
static int exits(const bx_var *v, int through)
{
	switch (v->kind) {
	case BX_GLOBAL:
	case BX_STATIC:
	case BX_RETURN:
		return 1;
	case BX_PARAM:
		return through && is_pointer(v);
	default:
		return 0;
	}
}

/* Records the relations reach() followed from its start to e (prel), in order, into rec->rel;
 * *rel0 and *nrel say where. */
static void rel_path(flow_why *rec, const bx_func *f, const int *prel, int e, size_t *rel0,
		     size_t *nrel)
{
	size_t n = 0;
	for (int v = e; prel[v] >= 0 && n < f->nvars; v = f->rels[prel[v]].src)
		n++;
	grow((void **)&rec->rel, &rec->caprel, rec->nrel + n + 1, sizeof *rec->rel);
	*rel0 = rec->nrel;
	*nrel = n;
	size_t i = n;
	for (int v = e; i > 0; v = f->rels[prel[v]].src)
		rec->rel[rec->nrel + --i] = prel[v];
	rec->nrel += n;
}

/* The field written through e by the last relation through a pointer that reach() or
 * point_ends() followed to it (prel), past pointer copies; from0, the start's own, when there
 * is none. */
static const char *rel_field(const bx_func *f, const int *prel, int e, const char *from0)
{
	for (size_t n = 0; prel[e] >= 0 && n < f->nvars; n++) {
		const bx_rel *rl = &f->rels[prel[e]];
		if (rl->through)
			return rl->field;
		e = rl->src; /* a pointer copied: the field written through the first */
	}
	return from0;
}

/* Whether the relations reach() followed from its start to e (prel) only copy a pointer
 * (q = p, return p): e points to the memory the start did. */
static int copies_only(const bx_func *f, const int *prel, int e)
{
	for (size_t n = 0; prel[e] >= 0 && n < f->nvars; n++) {
		const bx_rel *rl = &f->rels[prel[e]];
		if (rl->through || rl->role != BX_VALUE || !is_pointer(&f->vars[rl->dst]) ||
		    !is_pointer(&f->vars[rl->src]))
			return 0;
		e = rl->src;
	}
	return 1;
}

/* Whether v of f, a blame point's function, is a temporary that passes its blame on at the
 * point: a local that is no pointer (a pointer names the memory it points to, a variable of
 * its own), whose value flows by an explicit relation into another variable, and whose every
 * use as a call's argument feeds another variable at that line (MPI_Reduce(&s, &all, ...):
 * all <- s), none of them writing v itself or reading it for nothing written (printf). */
static int passes_on(const bx_func *f, int v)
{
	const bx_var *bv = &f->vars[v];
	if (bv->kind != BX_LOCAL || (bv->type && strchr(bv->type, '*')))
		return 0;
	int feeds = 0;
	for (size_t r = 0; r < f->nrels && !feeds; r++)
		feeds = !f->rels[r].implicit && f->rels[r].src == v && f->rels[r].dst != v &&
			f->rels[r].dst >= 0;
	for (size_t i = 0; i < f->ncalls && feeds; i++) {
		const bx_call *c = &f->calls[i];
		for (size_t a = 0; a < c->nargs && feeds; a++) {
			const bx_arg *g = &c->args[a];
			int uses = g->out_var == v;
			for (size_t j = 0; j < g->nvars && !uses; j++)
				uses = g->vars[j] == v;
			if (!uses)
				continue;
			if (g->out_var == v) {
				feeds = 0;
				break;
			}
			int fed = 0;
			for (size_t r = 0; r < f->nrels && !fed; r++)
				fed = !f->rels[r].implicit && f->rels[r].src == v &&
				      f->rels[r].dst != v && f->rels[r].line == c->line;
			feeds = fed;
		}
	}
	return feeds;
}

/* The variables v of f's blame ends at, by a walk of f's explicit relations from v (through:
 * v written through), with their through flag in exth and the relation each variable was
 * reached by in prel (-1 for v). Two walks:
 * - to the exit variables (point 0): v's value, or the data written through it, computed
 *   into them; an exit variable (exits()) ends the walk there, a variable reached counts once;
 * - at a blame point (point 1): v itself, unless it passes its blame on (passes_on), then,
 *   in equal parts, the ends of the variables it flows into (each variable once: a cycle ends
 *   at its last new variable). */
static size_t walk(const bx_func *f, int v, int through, int point, int *ex, int *exth,
		   uint8_t *seen, int *prel)
{
	size_t nex = 0;
	int *st = xmalloc((f->nvars ? f->nvars : 1) * sizeof *st);
	int *sth = xmalloc((f->nvars ? f->nvars : 1) * sizeof *sth);
	size_t ns = 0;
	memset(seen, 0, f->nvars);
	st[ns] = v;
	sth[ns++] = through;
	seen[v] = 1;
	prel[v] = -1;
	while (ns) {
		ns--;
		int a = st[ns], ath = sth[ns];
		if (!point && exits(&f->vars[a], ath)) {
			ex[nex] = a;
			exth[nex++] = ath;
			continue; /* an exit variable passes its blame on outside */
		}
		size_t pushed = 0;
		for (size_t r = 0; (!point || passes_on(f, a)) && r < f->nrels; r++) {
			const bx_rel *rl = &f->rels[r];
			if (rl->implicit || rl->src != a || rl->dst < 0 ||
			    (size_t)rl->dst >= f->nvars || seen[rl->dst])
				continue;
			seen[rl->dst] = 1;
			prel[rl->dst] = (int)r;
			st[ns] = rl->dst;
			/* to the exits, a pointer copied (q = p, return p) points to the memory
			 * written through the first */
			sth[ns++] = rl->through ||
				    (!point && ath && rl->role == BX_VALUE &&
				     is_pointer(&f->vars[a]) && is_pointer(&f->vars[rl->dst]));
			pushed++;
		}
		if (point && !pushed) {
			ex[nex] = a;
			exth[nex++] = ath;
		}
	}
	free(st);
	free(sth);
	return nex;
}

/* The exit variables that v of f reaches by its relations, v itself counting (walk). */
static size_t reach(const bx_func *f, int v, int through, int *ex, int *exth, uint8_t *seen,
		    int *prel)
{
	return walk(f, v, through, 0, ex, exth, seen, prel);
}

/* The variables of point function f that v's blame ends at (walk). */
static size_t point_ends(const bx_func *f, int v, int through, int *ex, int *exth, uint8_t *seen,
			 int *prel)
{
	return walk(f, v, through, 1, ex, exth, seen, prel);
}

/* The position of parameter v among f's parameters, from 0. */
static int param_pos(const bx_func *f, int v)
{
	int p = 0;
	for (int i = 0; i < v; i++)
		p += f->vars[i].kind == BX_PARAM;
	return p;
}

/* Whether a location's function has a name ("0x..." and "?" when the symbol is unknown). */
static int named(const char *func)
{
	return strcmp(func, "?") && strncmp(func, "0x", 2);
}

/* The call of callee at line of g: by name, else a call through a pointer on that line. */
static const bx_call *call_at(const bx_func *g, int line, const char *callee)
{
	const bx_call *any = NULL;
	for (size_t i = 0; i < g->ncalls; i++) {
		const bx_call *c = &g->calls[i];
		if (c->line != line)
			continue;
		if (c->callee && !strcmp(c->callee, callee))
			return c;
		if (!c->callee && !any)
			any = c;
	}
	return any;
}

size_t flow_sample(flow_ctx *x, const int32_t *S, size_t m1, size_t k, flow_target **t,
		   size_t *cap, uint8_t *fnv)
{
	const dt_blame_data *d = x->d;
	const blame_src *src = x->src;
	if (!src || !src->n)
		return 0;
	/* the innermost frame of the program with a name (a PLT stub has none) */
	size_t j0 = 0;
	while (j0 < m1 && (!d->locs[S[j0]].in_main || !named(d->locs[S[j0]].func)))
		j0++;
	if (j0 >= m1)
		return 0;
	int32_t fi = x->fnix[S[j0]];
	if (fi < 0) {
		x->noted[S[j0]] = 1;
		return 0;
	}
	struct work q = { 0 };
	flow_why *rec = x->why;
	if (rec) {
		rec->nhop = rec->nrel = 0;
		q.rec = rec;
	}
	const char *tname = NULL;
	int targ = j0 > 0 ? proto_seeds(x->tf, &src->fn[fi], d->locs[S[j0]].line,
					d->locs[S[j0 - 1]].func, &q, j0, &tname)
			  : 0;
	for (size_t i = 0; i < q.n; i++)
		q.v[i].direct = 1; /* the library routine writes the argument's memory */
	if (!targ)
		seeds(&src->fn[fi], d->locs[S[j0]].line, &q, j0);
	if (!q.n) {
		free(q.v);
		return 0;
	}
	for (size_t i = 0; rec && i < rec->nhop; i++) {
		rec->hop[i].fn = fi;
		rec->hop[i].targ = targ;
		rec->hop[i].tname = tname;
	}
	size_t nt = 0, maxv = x->maxv;
	int *ex = xmalloc(maxv * sizeof *ex), *exth = xmalloc(maxv * sizeof *exth);
	int *prel = xmalloc(maxv * sizeof *prel);
	uint8_t *seen = xmalloc(maxv);
	/* every item is at a frame at or above the one it came from, and each step up consumes a
	 * frame, so the work ends */
	for (size_t qi = 0; qi < q.n; qi++) {
		struct item it = q.v[qi];
		const bx_func *f = &src->fn[x->fnix[S[it.frame]]];
		int fnid = x->fnix[S[it.frame]];
		if (fnv)
			fnv[fnid] = 1;
		if (it.var < 0 || (size_t)it.var >= f->nvars)
			continue;
		if (it.frame >= k) { /* the point: its variables keep the blame, but for its
				      * temporaries, which pass it on to what they feed */
			size_t nend = point_ends(f, it.var, it.through, ex, exth, seen, prel);
			for (size_t e = 0; e < nend; e++) {
				size_t rel0 = 0, nrel = 0;
				if (rec)
					rel_path(rec, f, prel, ex[e], &rel0, &nrel);
				int same = ex[e] == it.var;
				target_h(t, cap, &nt, fnid, ex[e], it.frame,
					 exth[e] && is_pointer(&f->vars[ex[e]]),
					 same ? it.origin : SIZE_MAX, it.w / (double)nend, rec, qi, rel0,
					 nrel, SIZE_MAX, rel_field(f, prel, ex[e], it.field),
					 it.direct && same);
			}
			continue;
		}
		size_t nex = reach(f, it.var, it.through, ex, exth, seen, prel);
		if (!nex) { /* a local that passes its blame nowhere: a blame point (a pointer
			     * written through: the memory it points to, as at the point) */
			target_h(t, cap, &nt, fnid, it.var, it.frame,
				 it.through && is_pointer(&f->vars[it.var]), it.origin, it.w, rec, qi,
				 0, 0, SIZE_MAX, it.field, it.direct);
			continue;
		}
		for (size_t e = 0; e < nex; e++) {
			double w = it.w / (double)nex;
			const bx_var *v = &f->vars[ex[e]];
			size_t rel0 = 0, nrel = 0;
			if (rec)
				rel_path(rec, f, prel, ex[e], &rel0, &nrel);
			/* the field written through it: the item's own, else the last relation's */
			const char *fld = rel_field(f, prel, ex[e], it.field);
			/* the sample's line wrote this variable's memory itself, through aliases
			 * passed up unchanged (the paper's Base Data Centric) */
			int dir = it.direct && (ex[e] == it.var || copies_only(f, prel, ex[e]));
			if (v->kind == BX_GLOBAL || v->kind == BX_STATIC) {
				target(t, cap, &nt, fnid, ex[e], it.frame, 0, SIZE_MAX, w, rec, qi, rel0,
				       nrel, dir);
				continue;
			}
			/* through the call site of the caller's frame */
			size_t up = it.frame + 1;
			int32_t gi = up < m1 ? x->fnix[S[up]] : -1;
			if (up < m1 && gi < 0 && d->locs[S[up]].in_main && named(d->locs[S[up]].func))
				x->noted[S[up]] = 1;
			const bx_call *c =
				gi >= 0 ? call_at(&src->fn[gi], d->locs[S[up]].line, f->name) : NULL;
			const bx_func *g = gi >= 0 ? &src->fn[gi] : NULL;
			/* a pointer parameter written through: the innermost frame that wrote
			 * through that same pointer (passed up unchanged) holds it among its
			 * pointers; one that computes another variable into it starts anew */
			size_t origin = ex[e] == it.var && it.origin != SIZE_MAX ? it.origin : it.frame;
			int passed = 0;
			flow_hop hh = { qi, gi, -1, 0, up, c, ex[e], exth[e], rel0, nrel, 0, NULL };
			flow_hop *h = rec ? &hh : NULL;
			if (c && v->kind == BX_RETURN) {
				if (c->result >= 0) {
					/* a pointer returned after writes through it (p =
					 * problem_new(), which wrote p->A): still through */
					int rth = exth[e] && (size_t)c->result < g->nvars &&
						  is_pointer(&g->vars[c->result]) && is_pointer(v);
					push_up(&q, qi + 1, up, c->result, rth, w, SIZE_MAX,
						rth ? fld : NULL, dir && rth, h);
					passed = 1;
				} else { /* what the caller's line writes, sharing w */
					struct work sd = { 0 };
					seeds(g, d->locs[S[up]].line, &sd, up);
					for (size_t i = 0; i < sd.n; i++)
						push_up(&q, qi + 1, up, sd.v[i].var, sd.v[i].through,
							w * sd.v[i].w, SIZE_MAX, NULL, 0, h);
					passed = sd.n > 0;
					free(sd.v);
				}
			} else if (c && v->kind == BX_PARAM) {
				size_t p = (size_t)param_pos(f, ex[e]);
				const bx_arg *a = p < c->nargs ? &c->args[p] : NULL;
				if (a && a->out_var >= 0) {
					push_up(&q, qi + 1, up, a->out_var, a->out_through, w,
						a->out_through ? origin : SIZE_MAX,
						a->out_through && (size_t)a->out_var < g->nvars
							? arg_field(a->text, g->vars[a->out_var].name, fld)
							: NULL,
						dir && a->out_through, h);
					passed = 1;
				} else if (a) {
					for (size_t i = 0; i < a->nvars; i++)
						push_up(&q, qi + 1, up, a->vars[i], 1,
							w / (double)a->nvars, origin,
							a->vars[i] >= 0 && (size_t)a->vars[i] < g->nvars
								? arg_field(a->text, g->vars[a->vars[i]].name, fld)
								: NULL,
							dir, h);
					passed = a->nvars > 0;
				}
			}
			if (!passed) { /* no way up: the exit variable keeps it (below a caller of
					* the program without source, or whose line the index does
					* not follow: what part 1's heuristic from there leaves) */
				int nosrc = up < m1 && up <= k && d->locs[S[up]].in_main &&
					    named(d->locs[S[up]].func);
				target_h(t, cap, &nt, fnid, ex[e], it.frame, exth[e] && is_pointer(v),
					 v->kind == BX_PARAM ? origin : SIZE_MAX, w, rec, qi, rel0, nrel,
					 nosrc ? up : SIZE_MAX, fld, dir);
				continue;
			}
		}
	}
	free(ex);
	free(exth);
	free(prel);
	free(seen);
	free(q.v);
	return nt;
}
