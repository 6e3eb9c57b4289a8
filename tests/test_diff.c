/* test_diff.c: diffNLR. The edit script against a brute-force LCS on many random inputs (its
 * common entries number the LCS length, its changed loops the loop-id LCS of each replaced
 * region, and applied to A it gives B); identical and empty inputs; the loop-count change as one
 * changed entry; the renderers' text on small cases. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>

#include "check.h"
#include "analysis/diff.h"
#include "util/util.h"

static uint32_t rnd_state = 2024;

static uint32_t rnd(uint32_t n)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (rnd_state >> 8) % n;
}

/* Length of the longest common subsequence under eq, by dynamic programming. */
static size_t lcs(const nlr_entry *a, size_t na, const nlr_entry *b, size_t nb,
		  int (*eq)(nlr_entry, nlr_entry))
{
	size_t *row = xcalloc(nb + 1, sizeof *row), *prev = xcalloc(nb + 1, sizeof *prev);
	for (size_t i = 1; i <= na; i++) {
		for (size_t j = 1; j <= nb; j++) {
			if (eq(a[i - 1], b[j - 1]))
				row[j] = prev[j - 1] + 1;
			else
				row[j] = row[j - 1] > prev[j] ? row[j - 1] : prev[j];
		}
		size_t *t = prev;
		prev = row;
		row = t;
	}
	size_t r = prev[nb];
	free(row);
	free(prev);
	return r;
}

static int same_loop(nlr_entry x, nlr_entry y)
{
	return nlr_is_loop(x) && x.sym == y.sym;
}

/* Checks everything a script promises; returns the number of common entries. */
static size_t check_script(const nlr_entry *a, size_t na, const nlr_entry *b, size_t nb,
			   const diff_script *s)
{
	nlr_entry *out = xmalloc((nb + 1) * sizeof *out);
	size_t ia = 0, ib = 0, no = 0, common = 0;
	int bad = 0;
	for (size_t h = 0; h < s->n && !bad; h++) {
		const diff_hunk *x = &s->h[h];
		if (x->n == 0 || x->a != ia || x->b != ib) {
			bad = 1; /* hunks must tile A and B in order */
			break;
		}
		if (h && s->h[h - 1].kind == x->kind)
			bad = 1; /* adjacent hunks of one kind are merged */
		switch (x->kind) {
		case DIFF_SAME:
			for (size_t i = 0; i < x->n; i++) {
				bad |= !nlr_entry_eq(a[ia + i], b[ib + i]);
				out[no++] = a[ia + i];
			}
			ia += x->n;
			ib += x->n;
			common += x->n;
			break;
		case DIFF_COUNT:
			for (size_t i = 0; i < x->n; i++) {
				bad |= !same_loop(a[ia + i], b[ib + i]);
				bad |= a[ia + i].count == b[ib + i].count;
				out[no++] = (nlr_entry){ a[ia + i].sym, b[ib + i].count };
			}
			ia += x->n;
			ib += x->n;
			break;
		case DIFF_ONLY_A:
			ia += x->n;
			break;
		case DIFF_ONLY_B:
			for (size_t i = 0; i < x->n; i++)
				out[no++] = b[ib + i];
			ib += x->n;
			break;
		default:
			bad = 1;
		}
	}
	CHECK(!bad);
	CHECK(ia == na && ib == nb);
	/* applying the script to A gives B */
	CHECK(no == nb && (nb == 0 || !memcmp(out, b, nb * sizeof *b)));
	free(out);
	return common;
}

/* Each replaced region (between SAME hunks) pairs as many loops as its loop-id LCS allows. */
static void check_regions(const nlr_entry *a, const nlr_entry *b, const diff_script *s)
{
	for (size_t h = 0; h < s->n;) {
		if (s->h[h].kind == DIFF_SAME) {
			h++;
			continue;
		}
		size_t a0 = s->h[h].a, b0 = s->h[h].b, a1 = a0, b1 = b0, pairs = 0;
		for (; h < s->n && s->h[h].kind != DIFF_SAME; h++) {
			const diff_hunk *x = &s->h[h];
			a1 = x->a + (x->kind == DIFF_ONLY_B ? 0 : x->n);
			b1 = x->b + (x->kind == DIFF_ONLY_A ? 0 : x->n);
			if (x->kind == DIFF_COUNT)
				pairs += x->n;
		}
		CHECK_EQ_INT(pairs, lcs(a + a0, a1 - a0, b + b0, b1 - b0, same_loop));
		/* nothing in the region matches exactly, or the LCS would be longer */
		CHECK_EQ_INT(lcs(a + a0, a1 - a0, b + b0, b1 - b0, nlr_entry_eq), 0);
	}
}

static nlr_entry rnd_entry(uint32_t nsym)
{
	uint32_t v = rnd(nsym);
	if (v < nsym / 2 + 1)
		return (nlr_entry){ v + 1, 1 };
	return (nlr_entry){ NLR_LOOP | (v % 2), 2 + rnd(3) };
}

/* rounds where a small budget gave a script longer than the shortest */
static int cut_short;

static void one_random(const nlr_entry *a, size_t na, const nlr_entry *b, size_t nb)
{
	diff_script s;
	dt_err e;
	dt_err_clear(&e);
	diff_opts minimal = { 1, 0 };
	CHECK(diff_nlr(a, na, b, nb, &minimal, &s, &e) == 0);
	CHECK(s.na == na && s.nb == nb);
	size_t common = check_script(a, na, b, nb, &s);
	size_t want = lcs(a, na, b, nb, nlr_entry_eq);
	CHECK_EQ_INT(common, want);
	check_regions(a, b, &s);
	diff_script_free(&s);
	/* the default budget (>= 256) is never reached here: the same, shortest script */
	CHECK(diff_nlr(a, na, b, nb, NULL, &s, &e) == 0);
	CHECK_EQ_INT(check_script(a, na, b, nb, &s), want);
	diff_script_free(&s);
	/* a tiny budget: still a valid script from A to B, perhaps not the shortest */
	diff_opts tight = { 0, 1 + (na + nb) % 3 };
	CHECK(diff_nlr(a, na, b, nb, &tight, &s, &e) == 0);
	common = check_script(a, na, b, nb, &s);
	CHECK(common <= want);
	cut_short += common < want;
	diff_script_free(&s);
}

static void test_random(void)
{
	nlr_entry a[400], b[400];
	/* small inputs over small alphabets: every shape of overlap */
	for (int round = 0; round < 4000; round++) {
		size_t na = rnd(13), nb = rnd(13);
		uint32_t nsym = 2 + rnd(6);
		for (size_t i = 0; i < na; i++)
			a[i] = rnd_entry(nsym);
		for (size_t i = 0; i < nb; i++)
			b[i] = rnd_entry(nsym);
		one_random(a, na, b, nb);
	}
	/* longer inputs, deep recursion */
	for (int round = 0; round < 60; round++) {
		size_t na = rnd(400), nb = rnd(400);
		uint32_t nsym = 2 + rnd(10);
		for (size_t i = 0; i < na; i++)
			a[i] = rnd_entry(nsym);
		for (size_t i = 0; i < nb; i++)
			b[i] = rnd_entry(nsym);
		one_random(a, na, b, nb);
	}
	/* B is A with a few edits, as a normal and a faulty trace are */
	for (int round = 0; round < 60; round++) {
		size_t na = 50 + rnd(350), nb = 0;
		for (size_t i = 0; i < na; i++)
			a[i] = rnd_entry(12);
		for (size_t i = 0; i < na && nb < 400; i++) {
			uint32_t op = rnd(40);
			if (op == 0)
				continue; /* delete */
			if (op == 1 && nb < 399)
				b[nb++] = rnd_entry(12); /* insert */
			if (op == 2 && nlr_is_loop(a[i]))
				b[nb++] = (nlr_entry){ a[i].sym, a[i].count + 1 }; /* count */
			else
				b[nb++] = a[i];
		}
		one_random(a, na, b, nb);
	}
	CHECK(cut_short > 0); /* the budget does cut searches short */
}

#define F(x) ((nlr_entry){ (x), 1 })
#define L(id, c) ((nlr_entry){ NLR_LOOP | (id), (c) })

static void test_edges(void)
{
	diff_script s;
	dt_err e;
	dt_err_clear(&e);
	nlr_entry a[4] = { F(1), L(3, 6), F(2), F(1) };
	CHECK(diff_nlr(a, 4, a, 4, NULL, &s, &e) == 0);
	CHECK(s.n == 1 && s.h[0].kind == DIFF_SAME && s.h[0].n == 4);
	diff_script_free(&s);
	CHECK(diff_nlr(NULL, 0, NULL, 0, NULL, &s, &e) == 0);
	CHECK_EQ_INT(s.n, 0);
	diff_script_free(&s);
	CHECK(diff_nlr(a, 4, NULL, 0, NULL, &s, &e) == 0);
	CHECK(s.n == 1 && s.h[0].kind == DIFF_ONLY_A && s.h[0].n == 4);
	diff_script_free(&s);
	CHECK(diff_nlr(NULL, 0, a, 4, NULL, &s, &e) == 0);
	CHECK(s.n == 1 && s.h[0].kind == DIFF_ONLY_B && s.h[0].n == 4);
	diff_script_free(&s);
}

static void test_count_change(void)
{
	diff_script s;
	dt_err e;
	dt_err_clear(&e);
	/* A's L3^6 against B's L3^4: one changed entry */
	nlr_entry a[3] = { F(1), L(3, 6), F(2) }, b[3] = { F(1), L(3, 4), F(2) };
	CHECK(diff_nlr(a, 3, b, 3, NULL, &s, &e) == 0);
	CHECK_EQ_INT(s.n, 3);
	CHECK(s.h[1].kind == DIFF_COUNT && s.h[1].a == 1 && s.h[1].b == 1 && s.h[1].n == 1);
	diff_row *r;
	size_t n;
	diff_stats st;
	diff_rows(&s, &r, &n, &st);
	CHECK_EQ_INT(n, 3);
	CHECK(r[1].kind == DIFF_ROW_COUNT && diff_row_marker(r[1].kind) == '|');
	CHECK(st.same == 2 && st.count == 1 && st.left == 0 && st.right == 0);
	free(r);
	diff_script_free(&s);

	/* In a region, loops pair in order by id with the rest around them:
	 * A: f L3^6 h L5^2 g ; B: f x L3^4 L5^3 g */
	nlr_entry c[5] = { F(1), L(3, 6), F(7), L(5, 2), F(2) };
	nlr_entry d[5] = { F(1), F(8), L(3, 4), L(5, 3), F(2) };
	CHECK(diff_nlr(c, 5, d, 5, NULL, &s, &e) == 0);
	int kinds[] = { DIFF_SAME, DIFF_ONLY_B, DIFF_COUNT, DIFF_ONLY_A, DIFF_COUNT, DIFF_SAME };
	CHECK_EQ_INT(s.n, 6);
	for (size_t i = 0; i < s.n && i < 6; i++)
		CHECK_EQ_INT(s.h[i].kind, kinds[i]);
	CHECK(s.h[2].a == 1 && s.h[2].b == 2 && s.h[4].a == 3 && s.h[4].b == 3);
	diff_script_free(&s);

	/* crossing loops: only one of L3, L5 can pair in order */
	nlr_entry p[2] = { L(3, 2), L(5, 2) }, q[2] = { L(5, 3), L(3, 3) };
	CHECK(diff_nlr(p, 2, q, 2, NULL, &s, &e) == 0);
	size_t pairs = 0;
	for (size_t i = 0; i < s.n; i++)
		pairs += s.h[i].kind == DIFF_COUNT ? s.h[i].n : 0;
	CHECK_EQ_INT(pairs, 1);
	check_script(p, 2, q, 2, &s);
	diff_script_free(&s);
}

/* ---- renderers ------------------------------------------------------------------------------ */

static const char *const names[] = { "[ret]", "MPI_Init", "MPI_Send", "MPI_Recv",
				     "MPI_Finalize", "compute" };

static const char *name_of(void *ctx, uint32_t fid)
{
	(void)ctx;
	return fid < 6 ? names[fid] : NULL;
}

static const nlr_entry body0[] = { { 5, 1 }, { 2, 1 } };
static const nlr_entry body1[] = { { NLR_LOOP | 0, 2 }, { 3, 1 } };
static const nlr_entry body_self[] = { { NLR_LOOP | 9, 2 } };

static int body_of(void *ctx, uint32_t id, const nlr_entry **b, size_t *n)
{
	(void)ctx;
	if (id == 0) {
		*b = body0;
		*n = 2;
	} else if (id == 1) {
		*b = body1;
		*n = 2;
	} else if (id == 9) {
		*b = body_self; /* a broken table that refers to itself */
		*n = 1;
	} else {
		return -1;
	}
	return 0;
}

typedef int (*render_fn)(FILE *, const nlr_entry *, const nlr_entry *, const diff_script *,
			 const diff_render_opts *, dt_err *);

static char *render(render_fn fn, const nlr_entry *a, size_t na, const nlr_entry *b, size_t nb,
		    const diff_render_opts *o, int want_rc)
{
	diff_script s;
	dt_err e;
	dt_err_clear(&e);
	CHECK(diff_nlr(a, na, b, nb, NULL, &s, &e) == 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc = fn(f, a, b, &s, o, &e);
	CHECK_EQ_INT(rc, want_rc);
	if (rc != want_rc && e.status)
		fprintf(stderr, "render: %s\n", e.msg);
	fclose(f);
	diff_script_free(&s);
	if (rc) {
		free(buf);
		return xstrdup(e.msg);
	}
	return buf;
}

/* A: MPI_Init L0^6 MPI_Send MPI_Recv MPI_Finalize
 * B: MPI_Init L0^4 MPI_Recv compute MPI_Finalize */
static const nlr_entry ra[5] = { F(1), L(0, 6), F(2), F(3), F(4) };
static const nlr_entry rb[5] = { F(1), L(0, 4), F(3), F(5), F(4) };

static void test_side(void)
{
	diff_render_opts o;
	diff_render_opts_init(&o);
	o.label_a = "normal 0.1";
	o.label_b = "faulty 0.1";
	o.name = name_of;
	o.loop_body = body_of;
	o.width = 40;
	char *s = render(diff_render_side, ra, 5, rb, 5, &o, 0);
	CHECK_EQ_STR(s,
		"A: normal 0.1        B: faulty 0.1  (1 changed, 1 only in A, 1 only in B)\n"
		"MPI_Init             MPI_Init\n"
		"L0^6               | L0^4\n"
		"MPI_Send           <\n"
		"MPI_Recv             MPI_Recv\n"
		"                   > compute\n"
		"MPI_Finalize         MPI_Finalize\n");
	free(s);

	o.expand = 1;
	s = render(diff_render_side, ra, 5, rb, 5, &o, 0);
	CHECK_EQ_STR(s,
		"A: normal 0.1        B: faulty 0.1  (1 changed, 1 only in A, 1 only in B)\n"
		"MPI_Init             MPI_Init\n"
		"L0^6               | L0^4\n"
		"  compute              compute\n"
		"  MPI_Send             MPI_Send\n"
		"MPI_Send           <\n"
		"MPI_Recv             MPI_Recv\n"
		"                   > compute\n"
		"MPI_Finalize         MPI_Finalize\n");
	free(s);

	/* nested loops expand level by level; a REPLACE row zips its two sides; names cut at
	 * the column width end in the cut mark; an unknown id prints ?id */
	nlr_entry a2[2] = { L(1, 3), F(4) }, b2[2] = { F(42), F(4) };
	o.width = 24; /* columns of 10 and 11 */
	o.label_a = o.label_b = NULL;
	s = render(diff_render_side, a2, 2, b2, 2, &o, 0);
	CHECK_EQ_STR(s,
		"A: A         B: B  (1 changed, 0 only in A, 0 only in B)\n"
		"L1^3       | ?42\n"
		"  L0^2     <\n"
		"    compu~ <\n"
		"    MPI_S~ <\n"
		"  MPI_Recv <\n"
		"MPI_Final~   MPI_Finali~\n");
	free(s);

	/* fold: context 1 around the change, the rest counted */
	nlr_entry f1[9] = { F(1), F(5), F(5), F(5), F(5), F(2), F(5), F(5), F(4) };
	nlr_entry f2[9] = { F(1), F(5), F(5), F(5), F(5), F(3), F(5), F(5), F(4) };
	diff_render_opts_init(&o);
	o.name = name_of;
	o.width = 40;
	o.fold = 1;
	o.context = 1;
	s = render(diff_render_side, f1, 9, f2, 9, &o, 0);
	CHECK_EQ_STR(s,
		"A: A                 B: B  (1 changed, 0 only in A, 0 only in B)\n"
		"      ... 4 identical entries ...\n"
		"compute              compute\n"
		"MPI_Send           | MPI_Recv\n"
		"compute              compute\n"
		"      ... 2 identical entries ...\n");
	free(s);
	/* a fold of one entry would save nothing: the entry is shown */
	o.context = 2;
	s = render(diff_render_side, f1, 9, f2, 9, &o, 0);
	CHECK(strstr(s, "... 3 identical entries ...") != NULL);
	CHECK(strstr(s, "identical entries ...\ncompute  ") != NULL);
	CHECK(strstr(s, "MPI_Finalize") != NULL); /* 2 after the change: nothing to fold */
	free(s);
	/* identical inputs fold to one line */
	o.context = 3;
	s = render(diff_render_side, f1, 9, f1, 9, &o, 0);
	CHECK_EQ_STR(s,
		"A: A                 B: B  (identical)\n"
		"      ... 9 identical entries ...\n");
	free(s);

	o.width = 19;
	s = render(diff_render_side, f1, 9, f2, 9, &o, -1);
	CHECK(strstr(s, "too narrow") != NULL);
	free(s);
	/* expand without a loop table, and a table that loops on itself */
	diff_render_opts_init(&o);
	o.expand = 1;
	s = render(diff_render_side, ra, 5, rb, 5, &o, -1);
	CHECK(strstr(s, "needs the loop table") != NULL);
	free(s);
	o.loop_body = body_of;
	nlr_entry cyc[1] = { L(9, 2) };
	s = render(diff_render_side, cyc, 1, NULL, 0, &o, -1);
	CHECK(strstr(s, "nested over 64 deep") != NULL);
	free(s);
	nlr_entry unk[1] = { L(77, 2) };
	s = render(diff_render_side, unk, 1, NULL, 0, &o, -1);
	CHECK(strstr(s, "L77: not in the loop table") != NULL);
	free(s);
}

static void test_unified(void)
{
	diff_render_opts o;
	diff_render_opts_init(&o);
	o.label_a = "normal 0.1";
	o.label_b = "faulty 0.1";
	o.name = name_of;
	o.loop_body = body_of;
	o.context = 0;
	char *s = render(diff_render_unified, ra, 5, rb, 5, &o, 0);
	CHECK_EQ_STR(s,
		"--- normal 0.1\n"
		"+++ faulty 0.1\n"
		"@@ -2,2 +2,1 @@\n"
		"-L0^6\n"
		"-MPI_Send\n"
		"+L0^4\n"
		"@@ -4,0 +4,1 @@\n"
		"+compute\n");
	free(s);
	o.context = 1;
	o.expand = 1;
	s = render(diff_render_unified, ra, 5, rb, 5, &o, 0);
	CHECK_EQ_STR(s,
		"--- normal 0.1\n"
		"+++ faulty 0.1\n"
		"@@ -1,5 +1,5 @@\n"
		" MPI_Init\n"
		"-L0^6\n"
		"-  compute\n"
		"-  MPI_Send\n"
		"-MPI_Send\n"
		"+L0^4\n"
		"+  compute\n"
		"+  MPI_Send\n"
		" MPI_Recv\n"
		"+compute\n"
		" MPI_Finalize\n");
	free(s);
	/* far apart changes make two hunks */
	nlr_entry f1[9] = { F(2), F(5), F(5), F(5), F(5), F(5), F(5), F(5), F(4) };
	nlr_entry f2[8] = { F(5), F(5), F(5), F(5), F(5), F(5), F(5), F(3) };
	diff_render_opts_init(&o);
	o.name = name_of;
	o.context = 2;
	s = render(diff_render_unified, f1, 9, f2, 8, &o, 0);
	CHECK_EQ_STR(s,
		"--- A\n"
		"+++ B\n"
		"@@ -1,3 +1,2 @@\n"
		"-MPI_Send\n"
		" compute\n"
		" compute\n"
		"@@ -7,3 +6,3 @@\n"
		" compute\n"
		" compute\n"
		"-MPI_Finalize\n"
		"+MPI_Recv\n");
	free(s);
	/* without context, an empty side names the entry before it, as GNU diff */
	o.context = 0;
	s = render(diff_render_unified, f1, 9, f2, 8, &o, 0);
	CHECK_EQ_STR(s,
		"--- A\n"
		"+++ B\n"
		"@@ -1,1 +0,0 @@\n"
		"-MPI_Send\n"
		"@@ -9,1 +8,1 @@\n"
		"-MPI_Finalize\n"
		"+MPI_Recv\n");
	free(s);
	/* a gap of 7 common entries: two hunks up to context 3, one from context 4 (2×4 >= 7) */
	o.context = 3;
	s = render(diff_render_unified, f1, 9, f2, 8, &o, 0);
	CHECK(strstr(s, "@@ -1,4 +1,3 @@\n") != NULL && strstr(s, "@@ -6,4 +5,4 @@\n") != NULL);
	free(s);
	o.context = 4;
	s = render(diff_render_unified, f1, 9, f2, 8, &o, 0);
	CHECK(strstr(s, "@@ -1,9 +1,8 @@\n") != NULL && !strstr(s + 30, "@@"));
	free(s);
	/* identical: nothing, as diff */
	s = render(diff_render_unified, f1, 9, f1, 9, &o, 0);
	CHECK(s == NULL || !strcmp(s, ""));
	free(s);
}

static void test_dot(void)
{
	diff_render_opts o;
	diff_render_opts_init(&o);
	o.label_a = "normal \"0.1\"";
	o.label_b = "faulty 0.1";
	o.name = name_of;
	o.loop_body = body_of;
	char *s = render(diff_render_dot, ra, 5, rb, 5, &o, 0);
	CHECK_EQ_STR(s,
		"digraph diffnlr {\n"
		"\tgraph [labelloc=t, label=\"A: normal \\\"0.1\\\" (blue, bold)   "
		"B: faulty 0.1 (red, dashed)\"];\n"
		"\tnode [shape=record, fontname=\"monospace\"];\n"
		"\tn0 [shape=ellipse, label=\"Start\"];\n"
		"\tn1 [label=\"MPI_Init\\l\", color=darkgreen];\n"
		"\tn0 -> n1 [color=darkgreen];\n"
		"\tn2 [label=\"L0^6\\lMPI_Send\\l\", color=blue, style=bold];\n"
		"\tn3 [label=\"L0^4\\l\", color=red, style=dashed];\n"
		"\t{ rank=same; n2; n3; }\n"
		"\tn1 -> n2 [color=blue, style=bold];\n"
		"\tn2 -> n4 [color=blue, style=bold];\n"
		"\tn1 -> n3 [color=red, style=dashed];\n"
		"\tn3 -> n4 [color=red, style=dashed];\n"
		"\tn4 [label=\"MPI_Recv\\l\", color=darkgreen];\n"
		"\tn5 [label=\"compute\\l\", color=red, style=dashed];\n"
		"\tn4 -> n6 [color=blue, style=bold];\n"
		"\tn4 -> n5 [color=red, style=dashed];\n"
		"\tn5 -> n6 [color=red, style=dashed];\n"
		"\tn6 [label=\"MPI_Finalize\\l\", color=darkgreen];\n"
		"\tend [shape=ellipse, label=\"End\"];\n"
		"\tn6 -> end [color=darkgreen];\n"
		"}\n");
	free(s);
	/* a divergence at the end, expansion indents with escaped blanks, record specials
	 * escaped */
	o.expand = 1;
	nlr_entry a2[2] = { F(1), L(0, 2) }, b2[1] = { F(1) };
	s = render(diff_render_dot, a2, 2, b2, 1, &o, 0);
	CHECK(strstr(s, "\tn2 [label=\"L0^2\\l\\ \\ compute\\l\\ \\ MPI_Send\\l\", "
			"color=blue, style=bold];\n") != NULL);
	CHECK(strstr(s, "\tn2 -> end [color=blue, style=bold];\n") != NULL);
	CHECK(strstr(s, "\tn1 -> end [color=red, style=dashed];\n") != NULL);
	CHECK(strstr(s, "\tn1 -> end [color=darkgreen]") == NULL);
	free(s);
	/* both empty: Start to End */
	s = render(diff_render_dot, NULL, 0, NULL, 0, &o, 0);
	CHECK(strstr(s, "\tn0 -> end [color=darkgreen];\n}\n") != NULL);
	free(s);
}

static const char *odd_name(void *ctx, uint32_t fid)
{
	(void)ctx;
	return fid == 1 ? "operator<<{|} x" : "y";
}

static void test_dot_escape(void)
{
	diff_render_opts o;
	diff_render_opts_init(&o);
	o.name = odd_name;
	nlr_entry a[1] = { F(1) }, b[1] = { F(2) };
	char *s = render(diff_render_dot, a, 1, b, 1, &o, 0);
	CHECK(strstr(s, "label=\"operator\\<\\<\\{\\|\\}\\ x\\l\"") != NULL);
	free(s);
}

/* The marks of diff_words as a string: '^' under each differing byte. */
static void marks(const char *a, const char *b, char *wa, char *wb)
{
	unsigned char ma[256], mb[256];
	diff_words(a, b, ma, mb);
	size_t i;
	for (i = 0; a[i]; i++)
		wa[i] = ma[i] ? '^' : ' ';
	wa[i] = 0;
	for (i = 0; b[i]; i++)
		wb[i] = mb[i] ? '^' : ' ';
	wb[i] = 0;
}

static void test_words(void)
{
	char wa[256], wb[256];
	/* one argument differs: only its value */
	const char *a = "MPI_Allreduce[count=1,op=SUM]", *b = "MPI_Allreduce[count=1,op=MAX]";
	CHECK_EQ_INT(diff_words(a, b, (unsigned char[64]){ 0 }, (unsigned char[64]){ 0 }), 25);
	marks(a, b, wa, wb);
	CHECK_EQ_STR(wa, "                         ^^^ ");
	CHECK_EQ_STR(wb, "                         ^^^ ");
	/* an argument more on one side; a loop's count */
	marks("f[a=1]", "f[a=1,b=2]", wa, wb);
	CHECK_EQ_STR(wa, "      ");
	CHECK_EQ_STR(wb, "     ^^^^ ");
	marks("L3^6", "L3^14", wa, wb);
	CHECK_EQ_STR(wa, "   ^");
	CHECK_EQ_STR(wb, "   ^^");
	/* identical: nothing marked, first is the length */
	CHECK_EQ_INT(diff_words("same", "same", (unsigned char[8]){ 0 }, (unsigned char[8]){ 0 }), 4);

	/* elide: the name to its '[', then the argument that differs */
	const char *l = "MPI_Allreduce[count=1,datatype=MPI_DOUBLE,comm=MPI_COMM_WORLD,op=MPI_SUM]";
	size_t h, t, first = strstr(l, "SUM") - l;
	CHECK_EQ_INT(diff_elide(l, first, 33, &h, &t), 1);
	CHECK_EQ_INT(h, 14);
	CHECK_EQ_STR(l + t, "op=MPI_SUM]");
	/* fits, or the difference is visible: nothing elided */
	CHECK_EQ_INT(diff_elide(l, first, 200, &h, &t), 0);
	CHECK_EQ_INT(diff_elide(l, 5, 33, &h, &t), 0);
	/* a long name without arguments: a few columns before the difference */
	const char *n = "a_very_long_function_name_in_some_namespace_version_1";
	CHECK_EQ_INT(diff_elide(n, strlen(n) - 1, 20, &h, &t), 1);
	CHECK_EQ_INT(h, 0);
	CHECK_EQ_INT(strlen(n) - t, 9);
}

int main(void)
{
	test_words();
	test_random();
	test_edges();
	test_count_change();
	test_side();
	test_unified();
	test_dot();
	test_dot_escape();
	CHECK_DONE();
}
