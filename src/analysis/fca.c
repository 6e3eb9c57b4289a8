/* fca.c: the concept lattice by AddIntent, its canonical numbering, and the DOT and text views.
 *
 * During construction concepts live in a builder: intents and extents in two pools of words
 * (concept k at k * words), parents and children in growable lists. The algorithm only reads
 * intents; extents are carried along so that a new concept starts with its generator's extent,
 * and each inserted object is then added to its object concept and everything above it. */
#include <stdlib.h>
#include <string.h>

#include "analysis/fca.h"
#include "util/util.h"

typedef struct ulist {
	uint32_t *v;
	size_t n, cap;
} ulist;

typedef struct builder {
	size_t wn, wm; /* words per extent, per intent */
	size_t count, cap, max;
	uint64_t *ext, *in; /* pools */
	size_t *nint;       /* intent sizes */
	ulist *up, *down;
	uint32_t *mark; /* visit stamps for the upward walk */
	uint32_t stamp;
	dt_err *e;
} builder;

static uint64_t *B_in(const builder *b, size_t k)
{
	return b->in + k * b->wm;
}

static uint64_t *B_ext(const builder *b, size_t k)
{
	return b->ext + k * b->wn;
}

static void ul_add(ulist *l, uint32_t x)
{
	GROW(l->v, l->cap, l->n + 1);
	l->v[l->n++] = x;
}

static void ul_del(ulist *l, uint32_t x)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i] == x) {
			l->v[i] = l->v[--l->n];
			return;
		}
}

static void link_(builder *b, uint32_t parent, uint32_t child)
{
	ul_add(&b->down[parent], child);
	ul_add(&b->up[child], parent);
}

static void unlink_(builder *b, uint32_t parent, uint32_t child)
{
	ul_del(&b->down[parent], child);
	ul_del(&b->up[child], parent);
}

/* A new concept (extent copied from concept `from`, or empty when from < 0), or -1 past max. */
static int64_t new_concept(builder *b, int64_t from, const uint64_t *intent)
{
	if (b->count == b->max)
		return dt_errf(b->e, DT_EDATA,
			       "the concept lattice has more than %zu concepts; choose a coarser "
			       "attribute mode or filter, or raise the limit",
			       b->max);
	if (b->count == b->cap) {
		size_t nc = b->cap ? 2 * b->cap : 64;
		b->ext = xrealloc(b->ext, nc * b->wn * sizeof *b->ext);
		b->in = xrealloc(b->in, nc * b->wm * sizeof *b->in);
		b->nint = xrealloc(b->nint, nc * sizeof *b->nint);
		b->up = xrealloc(b->up, nc * sizeof *b->up);
		b->down = xrealloc(b->down, nc * sizeof *b->down);
		b->mark = xrealloc(b->mark, nc * sizeof *b->mark);
		b->cap = nc;
	}
	size_t k = b->count++;
	if (from >= 0)
		memcpy(B_ext(b, k), B_ext(b, (size_t)from), b->wn * sizeof *b->ext);
	else
		memset(B_ext(b, k), 0, b->wn * sizeof *b->ext);
	memcpy(B_in(b, k), intent, b->wm * sizeof *b->in);
	b->nint[k] = ctx_bcount(intent, b->wm);
	b->up[k] = (ulist){ 0 };
	b->down[k] = (ulist){ 0 };
	b->mark[k] = 0;
	return (int64_t)k;
}

/* The concept with the smallest intent that still contains X, walking up from gen (whose
 * intent contains X). */
static uint32_t maximal(const builder *b, const uint64_t *X, uint32_t gen)
{
	for (;;) {
		const ulist *p = &b->up[gen];
		size_t i = 0;
		while (i < p->n && !ctx_bsubset(X, B_in(b, p->v[i]), b->wm))
			i++;
		if (i == p->n)
			return gen;
		gen = p->v[i];
	}
}

/* Makes sure a concept with intent X exists below generator gen; returns it, or -1. */
static int64_t add_intent(builder *b, const uint64_t *X, uint32_t gen)
{
	gen = maximal(b, X, gen);
	if (ctx_bequal(B_in(b, gen), X, b->wm))
		return gen;
	/* the generator's parents change as concepts are added below them: work on a copy */
	size_t np = b->up[gen].n;
	uint32_t *gp = xmalloc((np ? np : 1) * sizeof *gp);
	if (np)
		memcpy(gp, b->up[gen].v, np * sizeof *gp);
	uint32_t *newp = xmalloc((np ? np : 1) * sizeof *newp);
	size_t nn = 0;
	uint64_t *tmp = xmalloc(b->wm * sizeof *tmp);
	int64_t r = -1;
	for (size_t i = 0; i < np; i++) {
		uint32_t cand = gp[i];
		if (!ctx_bsubset(B_in(b, cand), X, b->wm)) {
			ctx_band(tmp, B_in(b, cand), X, b->wm);
			int64_t c = add_intent(b, tmp, cand);
			if (c < 0)
				goto out;
			cand = (uint32_t)c;
		}
		int add = 1;
		size_t k = 0;
		for (size_t q = 0; q < nn; q++) {
			if (add && ctx_bsubset(B_in(b, cand), B_in(b, newp[q]), b->wm)) {
				add = 0; /* a parent already chosen lies below cand */
			} else if (add && ctx_bsubset(B_in(b, newp[q]), B_in(b, cand), b->wm)) {
				continue; /* cand lies below newp[q]: drop newp[q] */
			}
			newp[k++] = newp[q];
		}
		nn = k;
		if (add)
			newp[nn++] = cand;
	}
	r = new_concept(b, gen, X);
	if (r < 0)
		goto out;
	for (size_t q = 0; q < nn; q++) {
		unlink_(b, newp[q], gen);
		link_(b, newp[q], (uint32_t)r);
	}
	link_(b, (uint32_t)r, gen);
out:
	free(tmp);
	free(gp);
	free(newp);
	return r;
}

/* Adds object g to concept k and to everything above it. */
static void add_object_up(builder *b, uint32_t k, size_t g, uint32_t **stack, size_t *cap)
{
	b->stamp++;
	size_t sp = 0;
	GROW(*stack, *cap, 1);
	(*stack)[sp++] = k;
	b->mark[k] = b->stamp;
	while (sp) {
		uint32_t c = (*stack)[--sp];
		ctx_bset(B_ext(b, c), g);
		for (size_t i = 0; i < b->up[c].n; i++) {
			uint32_t p = b->up[c].v[i];
			if (b->mark[p] != b->stamp) {
				b->mark[p] = b->stamp;
				GROW(*stack, *cap, sp + 1);
				(*stack)[sp++] = p;
			}
		}
	}
}

static void builder_free(builder *b)
{
	for (size_t k = 0; k < b->count; k++) {
		free(b->up[k].v);
		free(b->down[k].v);
	}
	free(b->ext);
	free(b->in);
	free(b->nint);
	free(b->up);
	free(b->down);
	free(b->mark);
}

/* The canonical order: intent size, then the sorted intents as lists (the one holding the lowest
 * attribute where they differ comes first). qsort has no user pointer: elements carry it. */
typedef struct cref {
	const builder *b;
	uint32_t k;
} cref;

static int cmp_cref(const void *x, const void *y)
{
	const cref *p = x, *q = y;
	const builder *b = p->b;
	if (b->nint[p->k] != b->nint[q->k])
		return b->nint[p->k] < b->nint[q->k] ? -1 : 1;
	const uint64_t *s = B_in(b, p->k), *t = B_in(b, q->k);
	for (size_t w = 0; w < b->wm; w++) {
		uint64_t d = s[w] ^ t[w];
		if (d)
			return (s[w] & d & -d) ? -1 : 1;
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static uint32_t *remap_list(const ulist *l, const uint32_t *newid)
{
	uint32_t *v = xmalloc((l->n ? l->n : 1) * sizeof *v);
	for (size_t i = 0; i < l->n; i++)
		v[i] = newid[l->v[i]];
	qsort(v, l->n, sizeof *v, cmp_u32);
	return v;
}

int fca_build(const ctx_bits *ctx, size_t max_concepts, fca_lattice *L, dt_err *e)
{
	memset(L, 0, sizeof *L);
	builder b = { 0 };
	b.wn = ctx_words(ctx->n);
	b.wm = ctx_words(ctx->m);
	b.max = max_concepts;
	b.e = e;
	if (max_concepts > UINT32_MAX)
		b.max = UINT32_MAX;
	uint64_t *all = xcalloc(b.wm, sizeof *all);
	for (size_t a = 0; a < ctx->m; a++)
		ctx_bset(all, a);
	uint32_t *objc = xmalloc((ctx->n ? ctx->n : 1) * sizeof *objc);
	uint32_t *stack = NULL;
	size_t scap = 0;
	int64_t bottom = new_concept(&b, -1, all); /* (∅, M) until objects arrive */
	int rc = bottom < 0 ? -1 : 0;
	for (size_t g = 0; rc == 0 && g < ctx->n; g++) {
		int64_t k = add_intent(&b, ctx_row(ctx, g), (uint32_t)bottom);
		if (k < 0) {
			rc = -1;
			break;
		}
		objc[g] = (uint32_t)k;
		add_object_up(&b, (uint32_t)k, g, &stack, &scap);
	}
	free(stack);
	free(all);
	if (rc) {
		free(objc);
		builder_free(&b);
		return -1;
	}

	size_t nc = b.count;
	cref *order = xmalloc(nc * sizeof *order);
	for (size_t k = 0; k < nc; k++)
		order[k] = (cref){ &b, (uint32_t)k };
	qsort(order, nc, sizeof *order, cmp_cref);
	uint32_t *newid = xmalloc(nc * sizeof *newid);
	for (size_t i = 0; i < nc; i++)
		newid[order[i].k] = (uint32_t)i;

	L->n = ctx->n;
	L->m = ctx->m;
	L->nconcepts = nc;
	L->c = xcalloc(nc, sizeof *L->c);
	for (size_t i = 0; i < nc; i++) {
		uint32_t k = order[i].k;
		fca_concept *c = &L->c[i];
		c->extent = xmalloc(b.wn * sizeof *c->extent);
		c->intent = xmalloc(b.wm * sizeof *c->intent);
		memcpy(c->extent, B_ext(&b, k), b.wn * sizeof *c->extent);
		memcpy(c->intent, B_in(&b, k), b.wm * sizeof *c->intent);
		c->next = ctx_bcount(c->extent, b.wn);
		c->nint = b.nint[k];
		c->up = remap_list(&b.up[k], newid);
		c->nup = b.up[k].n;
		c->down = remap_list(&b.down[k], newid);
		c->ndown = b.down[k].n;
		L->nedges += c->ndown;
	}
	L->top = 0;
	L->bottom = nc - 1;
	L->obj_concept = xmalloc((ctx->n ? ctx->n : 1) * sizeof *L->obj_concept);
	for (size_t g = 0; g < ctx->n; g++)
		L->obj_concept[g] = newid[objc[g]];
	/* in canonical order intents only grow: the first concept holding a is its attribute
	 * concept (the smallest intent, hence the largest extent, containing a) */
	L->attr_concept = xmalloc((ctx->m ? ctx->m : 1) * sizeof *L->attr_concept);
	for (size_t a = 0; a < ctx->m; a++)
		L->attr_concept[a] = UINT32_MAX;
	size_t left = ctx->m;
	for (size_t i = 0; i < nc && left; i++)
		for (size_t w = 0; w < b.wm; w++)
			for (uint64_t x = L->c[i].intent[w]; x; x &= x - 1) {
				size_t a = w * 64 + (size_t)__builtin_ctzll(x);
				if (L->attr_concept[a] == UINT32_MAX) {
					L->attr_concept[a] = (uint32_t)i;
					left--;
				}
			}
	free(newid);
	free(order);
	free(objc);
	builder_free(&b);
	return 0;
}

void fca_free(fca_lattice *L)
{
	for (size_t i = 0; i < L->nconcepts; i++) {
		free(L->c[i].extent);
		free(L->c[i].intent);
		free(L->c[i].up);
		free(L->c[i].down);
	}
	free(L->c);
	free(L->obj_concept);
	free(L->attr_concept);
	memset(L, 0, sizeof *L);
}

/* ---- rendering ---- */

enum { NAME_MAX_ = 4096 };

static const char *obj_name(const fca_names *nm, size_t g, char *scratch)
{
	const char *s = nm && nm->object ? nm->object(nm->ud, g, scratch, NAME_MAX_) : NULL;
	if (!s) {
		snprintf(scratch, NAME_MAX_, "%zu", g);
		s = scratch;
	}
	return s;
}

static const char *attr_name(const fca_names *nm, size_t a, char *scratch)
{
	const char *s = nm && nm->attribute ? nm->attribute(nm->ud, a, scratch, NAME_MAX_) : NULL;
	if (!s) {
		snprintf(scratch, NAME_MAX_, "a%zu", a);
		s = scratch;
	}
	return s;
}

/* A set of objects as one string: compact P.T when known, else index ranges (new string). */
static char *objects_compact(const fca_names *nm, const uint32_t *g, size_t n)
{
	if (nm && nm->pt) {
		ptr_pt *p = xmalloc((n ? n : 1) * sizeof *p);
		for (size_t i = 0; i < n; i++)
			p[i] = nm->pt[g[i]];
		char *s = ptr_format(p, n);
		free(p);
		return s;
	}
	return ptr_format_list(g, n);
}

static void dot_escaped(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
}

static int write_status(FILE *out, dt_err *e)
{
	if (fflush(out) || ferror(out))
		return dt_errf(e, DT_EDATA, "cannot write the lattice");
	return 0;
}

int fca_render_dot(const fca_lattice *L, const fca_names *nm, FILE *out, dt_err *e)
{
	char *scratch = xmalloc(NAME_MAX_);
	uint32_t *own = xmalloc((L->n > L->m ? L->n : L->m ? L->m : 1) * sizeof *own);
	fputs("digraph lattice {\n\tnode [shape=box, fontname=\"monospace\"];\n", out);
	for (size_t i = 0; i < L->nconcepts; i++) {
		fprintf(out, "\tc%zu [label=\"c%zu", i, i);
		for (size_t a = 0; a < L->m; a++)
			if (L->attr_concept[a] == i) {
				fputs("\\n", out);
				dot_escaped(out, attr_name(nm, a, scratch));
			}
		size_t k = 0;
		for (size_t g = 0; g < L->n; g++)
			if (L->obj_concept[g] == i)
				own[k++] = (uint32_t)g;
		if (k && nm && nm->pt) {
			char *s = objects_compact(nm, own, k);
			fputs("\\n", out);
			dot_escaped(out, s);
			free(s);
		} else if (k) {
			fputs("\\n", out);
			for (size_t q = 0; q < k; q++) {
				if (q)
					fputs(", ", out);
				dot_escaped(out, obj_name(nm, own[q], scratch));
			}
		}
		fputs("\"];\n", out);
	}
	for (size_t i = 0; i < L->nconcepts; i++)
		for (size_t q = 0; q < L->c[i].ndown; q++)
			fprintf(out, "\tc%zu -> c%u;\n", i, L->c[i].down[q]);
	fputs("}\n", out);
	free(own);
	free(scratch);
	return write_status(out, e);
}

int fca_render_text(const fca_lattice *L, const fca_names *nm, FILE *out, dt_err *e)
{
	char *scratch = xmalloc(NAME_MAX_);
	uint32_t *g = xmalloc((L->n ? L->n : 1) * sizeof *g);
	for (size_t i = 0; i < L->nconcepts; i++) {
		const fca_concept *c = &L->c[i];
		fprintf(out, "c%zu\t", i);
		size_t k = 0;
		for (size_t x = ctx_bnext(c->extent, L->n, 0); x < L->n;
		     x = ctx_bnext(c->extent, L->n, x + 1))
			g[k++] = (uint32_t)x;
		char *s = objects_compact(nm, g, k);
		fputs(k ? s : "-", out);
		free(s);
		fputc('\t', out);
		size_t q = 0;
		for (size_t a = ctx_bnext(c->intent, L->m, 0); a < L->m;
		     a = ctx_bnext(c->intent, L->m, a + 1))
			fprintf(out, "%s%s", q++ ? "; " : "", attr_name(nm, a, scratch));
		if (!q)
			fputc('-', out);
		fputc('\t', out);
		for (q = 0; q < c->ndown; q++)
			fprintf(out, "%sc%u", q ? "," : "", c->down[q]);
		if (!c->ndown)
			fputc('-', out);
		fputc('\n', out);
	}
	free(g);
	free(scratch);
	return write_status(out, e);
}
