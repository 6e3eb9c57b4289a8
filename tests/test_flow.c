/* test_flow.c: blame joined with the static data flow (blame/flow.c, blame_compute_src) on
 * data made by hand: a loop's line on what it computes, not on its index; a write through an
 * out-parameter on the caller's variable; a returned value on the caller's result variable; a
 * local that passes its blame nowhere keeps it (an automatic blame point); a function without
 * an index entry by the heuristic, named; the point's own variables at a point; the automatic
 * criterion; every sample counted once; why, the paths recorded for one variable; part 1's
 * heuristic from a caller the data flow cannot follow; inlined levels walked as calls, the scan's
 * levels still matched to the real frames; library calls placed by prototype (memcpy run under
 * an internal name, a value returned by BLAS, the copy's destination and not its source); the
 * temporaries of a point passing their blame on (the paper's small cases); a pointer's field as
 * a path of its own; a pointer that ends the walk at a local of an outlined loop named by its
 * block. */
#include <math.h>

#include "blame/blame.h"
#include "check.h"
#include "util/util.h"

/* main:  20 f(&x);  21 y = h();  30 c = a + b;  31 for (i...)  (controls c)
 * f(double *out):  5 r = ...;  6 *out = r;  7 t = ...;
 * h():  50 q = ...;  51 return q;
 * g: no index entry
 * main: 23 k(hp);  k(double *v): 60 v[i] = ...  (hp points to a heap block made in main)
 * main: 24 z = rec(5);  rec(n): 70 return n * rec(n - 1)  (recursion)
 * main: 25 w = fp(3);  (a call through a function pointer, to h at run time)
 * main: 26 rr(&m1, &m2);  rr(int *a, int *b): 90 rr(&t, &t);  91 *a = t;  92 *b = t;
 *   (each level splits the blame in two that meet again in t: 60 levels deep) */
#define DEEP 60
enum { L_MAIN20, L_MAIN21, L_MAIN22, L_MAIN30, L_MAIN31, L_F5, L_F7, L_H50, L_G40, L_MAIN23,
       L_K60, L_MAIN24, L_MAIN25, L_R70, L_MAIN26, L_RR90, L_RR91, L_PLT, NLOCS };

static void add_path(dt_blame_data *d, const int32_t *v, size_t n)
{
	if (!d->npaths) {
		grow((void **)&d->path_off, &d->cappaths, 1, sizeof *d->path_off);
		d->path_off[0] = 0;
	}
	grow((void **)&d->pathv, &d->cappathv, d->npathv + n, sizeof *d->pathv);
	memcpy(d->pathv + d->npathv, v, n * sizeof *v);
	d->npathv += n;
	grow((void **)&d->path_off, &d->cappaths, d->npaths + 2, sizeof *d->path_off);
	d->path_off[++d->npaths] = (uint32_t)d->npathv;
}

static void add_samp(dt_blame_data *d, int32_t path, uint64_t weight)
{
	grow((void **)&d->samp, &d->capsamp, d->nsamp + 1, sizeof *d->samp);
	d->samp[d->nsamp++] = (dt_bsample){ .rank = 0, .pid = 100, .tid = 100, .path = path,
					    .c0 = -1, .c1 = -1, .scan = -1, .nrec = 1,
					    .weight = weight, .cost = weight };
}

static void make(dt_blame_data *d)
{
	static const struct {
		const char *f;
		int line;
	} l[NLOCS] = { { "main", 20 }, { "main", 21 }, { "main", 22 }, { "main", 30 },
		       { "main", 31 }, { "f", 5 },     { "f", 7 },     { "h", 50 },
		       { "g", 40 },    { "main", 23 }, { "k", 60 },    { "main", 24 },
		       { "main", 25 }, { "rec", 70 },  { "main", 26 }, { "rr", 90 },
		       { "rr", 91 },   { "0x401020", 0 } };
	memset(d, 0, sizeof *d);
	for (int i = 0; i < NLOCS; i++) {
		grow((void **)&d->locs, &d->caplocs, d->nlocs + 1, sizeof *d->locs);
		d->locs[d->nlocs++] = (dt_bloc){ xstrdup(l[i].f), xstrdup("/src/app.c"), l[i].line,
						 xstrdup("app"), 1, 0 };
	}
	grow((void **)&d->proc, &d->capproc, 1, sizeof *d->proc);
	d->proc[d->nproc++] = (dt_bproc){ .rank = 0, .pid = 100 };
	add_path(d, (int32_t[]){ L_MAIN30 }, 1);         /* 0: c = a + b */
	add_path(d, (int32_t[]){ L_MAIN31 }, 1);         /* 1: the loop's line */
	add_path(d, (int32_t[]){ L_F5, L_MAIN20 }, 2);   /* 2: r in f, to *out, to x */
	add_path(d, (int32_t[]){ L_F7, L_MAIN20 }, 2);   /* 3: t in f, a local only */
	add_path(d, (int32_t[]){ L_H50, L_MAIN21 }, 2);  /* 4: q in h, returned to y */
	add_path(d, (int32_t[]){ L_G40, L_MAIN22 }, 2);  /* 5: g, no index entry */
	add_samp(d, 0, 10);
	add_samp(d, 1, 6);
	add_samp(d, 2, 4);
	add_samp(d, 3, 2);
	add_samp(d, 4, 5);
	add_samp(d, 5, 3);
	add_path(d, (int32_t[]){ L_K60, L_MAIN23 }, 2);  /* 6: through k's v, to hp's block */
	add_path(d, (int32_t[]){ L_MAIN23 }, 1);         /* 7: the block's allocation site */
	grow((void **)&d->cont, &d->capcont, 1, sizeof *d->cont);
	d->cont[d->ncont++] = (dt_bcontainer){ .kind = DT_BC_HEAP, .addr = 0x1000, .size = 64,
					       .t_free = INT64_MAX, .site = 7, .prev = -1 };
	/* k's frame (0) points into it by a stack word (level 1); main's frame not (its hp in a
	 * register the scan did not see): the frame that wrote through the pointer names it */
	int32_t scan[] = { 1, 0 };
	grow((void **)&d->scan_off, &d->capscans, 2, sizeof *d->scan_off);
	d->scan_off[0] = 0;
	d->scan_off[1] = 2;
	d->nscans = 1;
	grow((void **)&d->scanv, &d->capscanv, 2, sizeof *d->scanv);
	memcpy(d->scanv, scan, sizeof scan);
	d->nscanv = 2;
	add_samp(d, 6, 7);
	d->samp[d->nsamp - 1].scan = 0;
	add_path(d, (int32_t[]){ L_R70, L_R70, L_R70, L_MAIN24 }, 4); /* 8: recursion to z */
	add_path(d, (int32_t[]){ L_H50, L_MAIN25 }, 2);               /* 9: h through fp, to w */
	add_samp(d, 8, 8);
	add_samp(d, 9, 9);
	int32_t deep[DEEP + 2];
	deep[0] = L_RR91;
	for (int i = 1; i <= DEEP; i++)
		deep[i] = L_RR90;
	deep[DEEP + 1] = L_MAIN26;
	add_path(d, deep, DEEP + 2); /* 10 */
	add_samp(d, 10, 4);
	add_path(d, (int32_t[]){ L_PLT, L_MAIN30 }, 2); /* 11: a PLT stub (no symbol) above main */
	add_samp(d, 11, 1);
}

static bx_var V(const char *name, const char *type, int kind)
{
	return (bx_var){ (char *)name, (char *)type, 1, kind,
			 kind == BX_PARAM || kind == BX_GLOBAL || kind == BX_RETURN };
}

static const bx_var *vars_main(void)
{
	static bx_var v[12];
	v[0] = V("a", "double", BX_LOCAL);
	v[1] = V("b", "double", BX_LOCAL);
	v[2] = V("c", "double", BX_LOCAL);
	v[3] = V("i", "int", BX_LOCAL);
	v[4] = V("x", "double", BX_LOCAL);
	v[5] = V("y", "double", BX_LOCAL);
	v[6] = V("<return>", "int", BX_RETURN);
	v[7] = V("hp", "double *", BX_LOCAL);
	v[8] = V("z", "int", BX_LOCAL);
	v[9] = V("w", "double", BX_LOCAL);
	v[10] = V("m1", "int", BX_LOCAL);
	v[11] = V("m2", "int", BX_LOCAL);
	return v;
}

static double row(const blame_table *t, const char *name)
{
	for (size_t i = 0; i < t->nvars; i++)
		if (!strcmp(t->vars[i].name, name))
			return t->vars[i].total;
	return -1;
}

static int has(char **v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], name))
			return 1;
	return 0;
}

static void sums(const blame_table *t)
{
	double s = 0;
	for (size_t i = 0; i < t->nvars; i++)
		s += t->vars[i].total;
	CHECK(fabs(s - t->total) < 1e-9);
}

static void test_join(void)
{
	dt_blame_data d;
	make(&d);
	bx_rel mrel[] = { { 0, 2, 0, 30, 0, BX_VALUE, NULL }, { 0, 2, 1, 30, 0, BX_VALUE, NULL },
			  { 1, 2, 3, 31, 0, BX_CONTROL, NULL }, { 1, 3, 3, 31, 0, BX_CONTROL, NULL } };
	bx_line mline[] = { { 30, 2, BX_WRITE }, { 31, 3, BX_CONDITION }, { 31, 3, BX_WRITE } };
	int xv[] = { 4 };
	bx_arg farg[] = { { (char *)"&x", xv, 1, 1, 4, 0 } };
	int hpv[] = { 7 }, m1v[] = { 10 }, m2v[] = { 11 }, tv[] = { 2 };
	bx_arg marg[] = { { (char *)"&m1", m1v, 1, 1, 10, 0 }, { (char *)"&m2", m2v, 1, 1, 11, 0 } };
	bx_var rrv[] = { V("a", "int *", BX_PARAM), V("b", "int *", BX_PARAM), V("t", "int", BX_LOCAL) };
	bx_arg rrarg[] = { { (char *)"&t", tv, 1, 1, 2, 0 }, { (char *)"&t", tv, 1, 1, 2, 0 } };
	bx_call rrcall[] = { { (char *)"rr", NULL, 90, 2, -1, rrarg, 2 } };
	bx_rel rrrel[] = { { 0, 0, 2, 91, 1, BX_VALUE, NULL }, { 0, 1, 2, 92, 1, BX_VALUE, NULL } };
	bx_line rrline[] = { { 90, 2, BX_OUT }, { 91, 0, BX_THROUGH }, { 92, 1, BX_THROUGH } };
	bx_arg karg[] = { { (char *)"hp", hpv, 1, 1, 7, 1 } };
	bx_call mcall[] = { { (char *)"f", NULL, 20, 2, -1, farg, 1 },
			    { (char *)"h", NULL, 21, 6, 5, NULL, 0 },
			    { (char *)"g", NULL, 22, 2, -1, NULL, 0 },
			    { (char *)"k", NULL, 23, 2, -1, karg, 1 },
			    { (char *)"rec", NULL, 24, 6, 8, NULL, 0 },
			    { NULL, (char *)"fp", 25, 6, 9, NULL, 0 },
			    { (char *)"rr", NULL, 26, 2, -1, marg, 2 } };
	bx_var kv[] = { V("v", "double *", BX_PARAM), V("i", "int", BX_LOCAL) };
	bx_line kline[] = { { 60, 0, BX_THROUGH } };
	bx_var rv[] = { V("n", "int", BX_PARAM), V("<return>", "int", BX_RETURN) };
	bx_rel rrel[] = { { 0, 1, 0, 70, 0, BX_VALUE, NULL } };
	bx_call rcall[] = { { (char *)"rec", NULL, 70, 13, 1, NULL, 0 } };
	bx_line rline[] = { { 70, 1, BX_WRITE } };
	bx_var fv[] = { V("out", "double *", BX_PARAM), V("r", "double", BX_LOCAL),
			V("t", "double", BX_LOCAL) };
	bx_rel frel[] = { { 0, 0, 1, 6, 1, BX_VALUE, NULL } };
	bx_line fline[] = { { 5, 1, BX_WRITE }, { 6, 0, BX_THROUGH }, { 7, 2, BX_WRITE } };
	bx_var hv[] = { V("q", "double", BX_LOCAL), V("<return>", "double", BX_RETURN) };
	bx_rel hrel[] = { { 0, 1, 0, 51, 0, BX_VALUE, NULL } };
	bx_line hline[] = { { 50, 0, BX_WRITE }, { 51, 1, BX_WRITE } };
	bx_func fn[] = {
		{ (char *)"main", (char *)"/src/app.c", 19, 40, 0, (bx_var *)vars_main(), 12, mrel, 4,
		  mcall, 7, mline, 3 },
		{ (char *)"f", (char *)"/src/app.c", 4, 8, 0, fv, 3, frel, 1, NULL, 0, fline, 3 },
		{ (char *)"h", (char *)"/src/app.c", 49, 52, 0, hv, 2, hrel, 1, NULL, 0, hline, 2 },
		{ (char *)"k", (char *)"/src/app.c", 59, 61, 0, kv, 2, NULL, 0, NULL, 0, kline, 1 },
		{ (char *)"rec", (char *)"/src/app.c", 69, 71, 0, rv, 2, rrel, 1, rcall, 1, rline, 1 },
		{ (char *)"rr", (char *)"/src/app.c", 89, 93, 0, rrv, 3, rrrel, 2, rrcall, 1, rrline, 3 },
	};
	blame_src src = { fn, 6, 0 };
	blame_result r;
	dt_err e;
	dt_err_clear(&e);
	CHECK(blame_compute_src(&d, NULL, &src, NULL, 0, BLAME_SAMPLES, &r, &e) == 0);
	const blame_table *t = &r.tables[0];
	CHECK(fabs(t->total - 59) < 1e-9);
	CHECK(fabs(t->joined - 56) < 1e-9);
	/* 60 levels that each split in two and meet again: m1 takes what rr's first frame wrote
	 * through a (all of it, as the split meets in t at every level and t flows to a and b) */
	CHECK(fabs(row(t, "m1 (main)") + row(t, "m2 (main)") - 4) < 1e-9);
	CHECK(fabs(row(t, "m1 (main)") - 2) < 1e-9);
	CHECK(fabs(row(t, "z (main)") - 8) < 1e-9);  /* up the recursion, to the first call */
	CHECK(fabs(row(t, "w (main)") - 9) < 1e-9);  /* through the function pointer's call */
	/* through k's pointer parameter to main's hp: the block it points to */
	CHECK(fabs(row(t, "app.c:23 (main)") - 7) < 1e-9);
	CHECK(row(t, "hp (main)") < 0);
	CHECK(fabs(row(t, "c (main)") - 17) < 1e-9); /* the statement, the loop, the stub */
	CHECK(row(t, "i (main)") < 0);               /* the index takes none */
	CHECK(fabs(row(t, "x (main)") - 4) < 1e-9);  /* through f's out-parameter */
	CHECK(fabs(row(t, "t (f)") - 2) < 1e-9);     /* a local of f passing it nowhere */
	CHECK(fabs(row(t, "y (main)") - 5) < 1e-9);  /* h's value returned into y */
	CHECK(fabs(row(t, "Other") - 3) < 1e-9);     /* g by the heuristic (no scan) */
	sums(t);
	CHECK(r.nnosrc == 1 && has(r.nosrc, r.nnosrc, "g"));
	CHECK(r.nends == 1 && has(r.ends, r.nends, "f"));
	blame_result_free(&r);

	/* why: the paths recorded for one variable, from it back to the sample; the tables are
	 * the same as without recording */
	blame_result w;
	CHECK(blame_compute_why(&d, NULL, &src, NULL, 0, BLAME_SAMPLES, "x (main)", 0, &w, &e) == 0);
	CHECK(w.tables[0].nwhy == 1 && fabs(w.tables[0].why_total - 4) < 1e-9);
	if (w.tables[0].nwhy == 1) {
		const blame_path *p = &w.tables[0].why[0];
		const char *want[] = { "x (main)", "f(&x), line 20", "*out (f)", "r, line 6",
				       "sample at app.c:5 in f" };
		CHECK(p->nsteps == 5);
		for (size_t i = 0; i < 5 && i < p->nsteps; i++)
			CHECK_EQ_STR(p->steps[i], want[i]);
		CHECK(fabs(p->blame - 4) < 1e-9);
	}
	CHECK(blame_compute_src(&d, NULL, &src, NULL, 0, BLAME_SAMPLES, &r, &e) == 0);
	t = &r.tables[0];
	for (size_t i = 0; i < t->nvars; i++)
		CHECK(fabs(row(&w.tables[0], t->vars[i].name) - t->vars[i].total) < 1e-9);
	blame_result_free(&r);
	blame_result_free(&w);
	CHECK(blame_compute_why(&d, NULL, &src, NULL, 0, BLAME_SAMPLES, "y (main)", 0, &w, &e) == 0);
	CHECK(w.tables[0].nwhy == 1);
	if (w.tables[0].nwhy == 1) {
		const blame_path *p = &w.tables[0].why[0];
		CHECK(p->nsteps == 5);
		if (p->nsteps == 5) {
			CHECK_EQ_STR(p->steps[1], "h(), line 21");
			CHECK_EQ_STR(p->steps[2], "<return> (h)");
			CHECK_EQ_STR(p->steps[3], "q, line 51");
		}
	}
	blame_result_free(&w);
	/* the loop's line: its condition controls c (implicit); the recursion of rr, 60 levels
	 * that split in two (merged beyond the recording's limit), still adds up */
	CHECK(blame_compute_why(&d, NULL, &src, NULL, 0, BLAME_SAMPLES, "c (main)", 0, &w, &e) == 0);
	int cond = 0;
	for (size_t i = 0; i < w.tables[0].nwhy; i++)
		cond |= w.tables[0].why[i].nsteps == 3 &&
			!strcmp(w.tables[0].why[i].steps[1], "the condition of line 31 (implicit)") &&
			fabs(w.tables[0].why[i].blame - 6) < 1e-9;
	CHECK(cond);
	CHECK(fabs(w.tables[0].why_total - 17) < 1e-9);
	blame_result_free(&w);
	CHECK(blame_compute_why(&d, NULL, &src, NULL, 0, BLAME_SAMPLES, "m1 (main)", 1, &w, &e) == 0);
	CHECK(fabs(w.tables[0].why_total - 2) < 1e-9 && w.tables[0].nwhy == 1);
	CHECK(w.tables[0].why_all >= 1);
	blame_result_free(&w);

	/* at rec: its outermost call's value */
	const char *pr[] = { "rec" };
	CHECK(blame_compute_src(&d, NULL, &src, pr, 1, BLAME_SAMPLES, &r, &e) == 0);
	CHECK(fabs(row(&r.tables[0], "<return> (rec)") - 8) < 1e-9);
	sums(&r.tables[0]);
	blame_result_free(&r);

	/* at f: its own variables keep the blame, but r, a temporary that only feeds *out (line
	 * 6), passes it on to out */
	const char *pf[] = { "f" };
	CHECK(blame_compute_src(&d, NULL, &src, pf, 1, BLAME_SAMPLES, &r, &e) == 0);
	t = &r.tables[0];
	CHECK(fabs(t->total - 6) < 1e-9);
	CHECK(fabs(row(t, "out (f)") - 4) < 1e-9);
	CHECK(row(t, "r (f)") < 0);
	CHECK(fabs(row(t, "t (f)") - 2) < 1e-9);
	sums(t);
	CHECK(r.nends == 0);
	blame_result_free(&r);

	/* the automatic criterion: h's variables hold 14 of 59 (23.7%), rec's 8 (13.6%), k's 7
	 * (11.9%), f's 6 (10.2%), rr's 4 (6.8%) */
	src.auto_pct = 20;
	CHECK(blame_compute_src(&d, NULL, &src, NULL, 0, BLAME_SAMPLES, &r, &e) == 0);
	CHECK(r.ntables == 2);
	if (r.ntables == 2) {
		CHECK_EQ_STR(r.tables[1].point, "h");
		CHECK(r.tables[1].automatic);
		CHECK(!r.tables[0].automatic);
	}
	blame_result_free(&r);
	src.auto_pct = 11;
	CHECK(blame_compute_src(&d, NULL, &src, NULL, 0, BLAME_SAMPLES, &r, &e) == 0);
	CHECK(r.ntables == 4);
	blame_result_free(&r);
	/* at k: its pointer parameter, named by the block */
	const char *pk[] = { "k" };
	CHECK(blame_compute_src(&d, NULL, &src, pk, 1, BLAME_SAMPLES, &r, &e) == 0);
	CHECK(fabs(row(&r.tables[0], "app.c:23 (main)") - 7) < 1e-9);
	blame_result_free(&r);

	/* without the index: the heuristic, nothing joined */
	CHECK(blame_compute_src(&d, NULL, NULL, NULL, 0, BLAME_SAMPLES, &r, &e) == 0);
	CHECK(r.tables[0].joined == 0);
	CHECK(fabs(row(&r.tables[0], "Other") - 52) < 1e-9);
	CHECK(fabs(row(&r.tables[0], "app.c:23 (main)") - 7) < 1e-9);
	blame_result_free(&r);
	dt_blame_data_free(&d);
}

/* A value the data flow carries up to a caller it cannot follow (g has no index entry): part
 * 1's heuristic takes over from g's frame (the block g's frame points into), and the value
 * keeps the blame only when the scan finds nothing there. */
static void test_heuristic_above(const char *hsym)
{
	dt_blame_data d;
	memset(&d, 0, sizeof d);
	const struct {
		const char *f;
		int line;
	} l[] = { { hsym, 50 }, { "g", 40 }, { "main", 22 } };
	for (int i = 0; i < 3; i++) {
		grow((void **)&d.locs, &d.caplocs, d.nlocs + 1, sizeof *d.locs);
		d.locs[d.nlocs++] = (dt_bloc){ xstrdup(l[i].f), xstrdup("/src/app.c"), l[i].line,
					       xstrdup("app"), 1, 0 };
	}
	grow((void **)&d.proc, &d.capproc, 1, sizeof *d.proc);
	d.proc[d.nproc++] = (dt_bproc){ .rank = 0, .pid = 100 };
	add_path(&d, (int32_t[]){ 0, 1, 2 }, 3); /* 0: h's q, returned to g */
	add_path(&d, (int32_t[]){ 2 }, 1);       /* 1: the block's allocation site in main */
	grow((void **)&d.cont, &d.capcont, 1, sizeof *d.cont);
	d.cont[d.ncont++] = (dt_bcontainer){ .kind = DT_BC_HEAP, .addr = 0x1000, .size = 64,
					     .t_free = INT64_MAX, .site = 1, .prev = -1 };
	int32_t scan[] = { 2, 0 }; /* g's frame (1), its registers (level 2): the block */
	grow((void **)&d.scan_off, &d.capscans, 2, sizeof *d.scan_off);
	d.scan_off[0] = 0;
	d.scan_off[1] = 2;
	d.nscans = 1;
	grow((void **)&d.scanv, &d.capscanv, 2, sizeof *d.scanv);
	memcpy(d.scanv, scan, sizeof scan);
	d.nscanv = 2;
	add_samp(&d, 0, 5);
	d.samp[d.nsamp - 1].scan = 0;
	add_samp(&d, 0, 3); /* the same stack, no pointer found */
	bx_var mv[] = { V("<return>", "int", BX_RETURN) };
	bx_call mcall[] = { { (char *)"g", NULL, 22, 2, -1, NULL, 0 } };
	bx_var hv[] = { V("q", "double", BX_LOCAL), V("<return>", "double", BX_RETURN) };
	bx_rel hrel[] = { { 0, 1, 0, 51, 0, BX_VALUE, NULL } };
	bx_line hline[] = { { 50, 0, BX_WRITE }, { 51, 1, BX_WRITE } };
	bx_func fn[] = {
		{ (char *)"main", (char *)"/src/app.c", 19, 40, 0, mv, 1, NULL, 0, mcall, 1, NULL, 0 },
		{ (char *)"h", (char *)"/src/app.c", 49, 52, 0, hv, 2, hrel, 1, NULL, 0, hline, 2 },
	};
	blame_src src = { fn, 2, 0 };
	blame_result r;
	dt_err e;
	dt_err_clear(&e);
	CHECK(blame_compute_src(&d, NULL, &src, NULL, 0, BLAME_SAMPLES, &r, &e) == 0);
	const blame_table *t = &r.tables[0];
	CHECK(fabs(t->total - 8) < 1e-9);
	CHECK(fabs(row(t, "app.c:22 (main)") - 5) < 1e-9);
	CHECK(fabs(row(t, "<return> (h)") - 3) < 1e-9);
	sums(t);
	blame_result_free(&r);
	blame_result w;
	CHECK(blame_compute_why(&d, NULL, &src, NULL, 0, BLAME_SAMPLES, "app.c:22 (main)", 0, &w,
				&e) == 0);
	CHECK(w.tables[0].nwhy == 1);
	if (w.tables[0].nwhy == 1) {
		const blame_path *p = &w.tables[0].why[0];
		CHECK(p->nsteps >= 3);
		if (p->nsteps >= 3) {
			CHECK(strstr(p->steps[1], "g's frame") != NULL);
			CHECK_EQ_STR(p->steps[2], "<return> (h)");
		}
	}
	blame_result_free(&w);
	dt_blame_data_free(&d);
}

/* A function the compiler inlined (sq, into main at line 22 and into g at line 40): its level
 * in the path is a call like any other (its return value to main's y), and the scan's levels,
 * which count real frames, match the frame sq shares with its caller. */
static void test_inline(void)
{
	dt_blame_data d;
	memset(&d, 0, sizeof d);
	static const struct {
		const char *f;
		int line, inl;
	} l[] = { { "sq", 30, 1 }, { "main", 22, 0 }, { "g", 40, 0 }, { "main", 23, 0 },
		  { "main", 24, 0 } };
	for (int i = 0; i < 5; i++) {
		grow((void **)&d.locs, &d.caplocs, d.nlocs + 1, sizeof *d.locs);
		d.locs[d.nlocs++] = (dt_bloc){ xstrdup(l[i].f), xstrdup("/src/app.c"), l[i].line,
					       xstrdup("app"), 1, l[i].inl };
	}
	grow((void **)&d.proc, &d.capproc, 1, sizeof *d.proc);
	d.proc[d.nproc++] = (dt_bproc){ .rank = 0, .pid = 100 };
	add_path(&d, (int32_t[]){ 0, 1 }, 2);    /* 0: sq inlined into main: one real frame */
	add_path(&d, (int32_t[]){ 0, 2, 3 }, 3); /* 1: sq inlined into g (real frame 0), main (1) */
	add_path(&d, (int32_t[]){ 4 }, 1);       /* 2: the block's allocation site in main */
	grow((void **)&d.cont, &d.capcont, 1, sizeof *d.cont);
	d.cont[d.ncont++] = (dt_bcontainer){ .kind = DT_BC_HEAP, .addr = 0x1000, .size = 64,
					     .t_free = INT64_MAX, .site = 2, .prev = -1 };
	/* scan 0: real frame 0's registers (level 0), g's frame; scan 1: real frame 1's (level
	 * 2), main's */
	int32_t scan[] = { 0, 0, 2, 0 };
	grow((void **)&d.scan_off, &d.capscans, 3, sizeof *d.scan_off);
	d.scan_off[0] = 0;
	d.scan_off[1] = 2;
	d.scan_off[2] = 4;
	d.nscans = 2;
	grow((void **)&d.scanv, &d.capscanv, 4, sizeof *d.scanv);
	memcpy(d.scanv, scan, sizeof scan);
	d.nscanv = 4;
	add_samp(&d, 0, 4);
	add_samp(&d, 1, 5);
	d.samp[d.nsamp - 1].scan = 0;
	add_samp(&d, 1, 3);
	d.samp[d.nsamp - 1].scan = 1;
	bx_var mv[] = { V("y", "double", BX_LOCAL), V("<return>", "int", BX_RETURN) };
	bx_call mcall[] = { { (char *)"sq", NULL, 22, 2, 0, NULL, 0 },
			    { (char *)"g", NULL, 23, 2, -1, NULL, 0 } };
	bx_var qv[] = { V("r", "double", BX_LOCAL), V("<return>", "double", BX_RETURN) };
	bx_rel qrel[] = { { 0, 1, 0, 31, 0, BX_VALUE, NULL } };
	bx_line qline[] = { { 30, 0, BX_WRITE }, { 31, 1, BX_WRITE } };
	bx_func fn[] = {
		{ (char *)"main", (char *)"/src/app.c", 19, 40, 0, mv, 2, NULL, 0, mcall, 2, NULL, 0 },
		{ (char *)"sq", (char *)"/src/app.c", 29, 32, 0, qv, 2, qrel, 1, NULL, 0, qline, 2 },
	};
	blame_src src = { fn, 2, 0 };
	blame_result r;
	dt_err e;
	dt_err_clear(&e);
	CHECK(blame_compute_src(&d, NULL, &src, NULL, 0, BLAME_SAMPLES, &r, &e) == 0);
	const blame_table *t = &r.tables[0];
	CHECK(fabs(t->total - 12) < 1e-9);
	/* the inlined sq's value, returned at main's line 22, into y */
	CHECK(fabs(row(t, "y (main)") - 4) < 1e-9);
	/* inlined into g (no index entry): part 1's heuristic from g's real frame, level 0 for
	 * the frame sq shares with g (5), main's level 2 above it (3) */
	CHECK(fabs(row(t, "app.c:24 (main)") - 8) < 1e-9);
	CHECK(row(t, "<return> (sq)") < 0);
	sums(t);
	blame_result_free(&r);
	blame_result w;
	CHECK(blame_compute_why(&d, NULL, &src, NULL, 0, BLAME_SAMPLES, "y (main)", 0, &w, &e) == 0);
	CHECK(w.tables[0].nwhy == 1);
	if (w.tables[0].nwhy == 1) {
		const blame_path *p = &w.tables[0].why[0];
		CHECK(p->nsteps == 5);
		if (p->nsteps == 5) {
			CHECK_EQ_STR(p->steps[1], "sq(), line 22");
			CHECK_EQ_STR(p->steps[2], "<return> (sq)");
			CHECK_EQ_STR(p->steps[4], "sample at app.c:30 in sq");
		}
	}
	blame_result_free(&w);
	/* at g, by part 1's heuristic alone: g's real frame (level 0) is at or below the point,
	 * main's (level 2) above it, though g is the path's second location */
	const char *pg[] = { "g" };
	CHECK(blame_compute_src(&d, NULL, NULL, pg, 1, BLAME_SAMPLES, &r, &e) == 0);
	t = &r.tables[0];
	CHECK(fabs(t->total - 8) < 1e-9);
	CHECK(fabs(row(t, "app.c:24 (main)") - 5) < 1e-9);
	CHECK(fabs(row(t, "Other") - 3) < 1e-9);
	sums(t);
	blame_result_free(&r);
	dt_blame_data_free(&d);
}

/* main:  30 dst = malloc(n);  31 src = malloc(n);  40 memcpy(dst, src, n);
 *        41 memcpy(dst, src, n), memset(src, 0, n);  42 r = cblas_ddot(n, src, 1, src, 1), k;
 *        43 memcpy(dst, src, (size_t)sqrt(n));
 * glibc's memcpy runs as __memmove_avx_unaligned_erms; main's frame points into both blocks. */
static void test_libcalls(void)
{
	dt_blame_data d;
	memset(&d, 0, sizeof d);
	static const struct {
		const char *f;
		int line, in_main;
	} l[] = { { "__memmove_avx_unaligned_erms", 0, 0 }, { "main", 40, 1 }, { "main", 30, 1 },
		  { "main", 31, 1 }, { "main", 41, 1 }, { "cblas_ddot", 0, 0 }, { "main", 42, 1 },
		  { "sqrt", 0, 0 }, { "main", 43, 1 } };
	for (size_t i = 0; i < sizeof l / sizeof *l; i++) {
		grow((void **)&d.locs, &d.caplocs, d.nlocs + 1, sizeof *d.locs);
		d.locs[d.nlocs++] = (dt_bloc){ xstrdup(l[i].f),
					       xstrdup(l[i].in_main ? "/src/app.c" : ""), l[i].line,
					       xstrdup(l[i].in_main ? "app" : "lib.so"), l[i].in_main, 0 };
	}
	grow((void **)&d.proc, &d.capproc, 1, sizeof *d.proc);
	d.proc[d.nproc++] = (dt_bproc){ .rank = 0, .pid = 100 };
	add_path(&d, (int32_t[]){ 0, 1 }, 2); /* 0: inside memcpy at 40 */
	add_path(&d, (int32_t[]){ 2 }, 1);    /* 1: dst's allocation site */
	add_path(&d, (int32_t[]){ 3 }, 1);    /* 2: src's */
	add_path(&d, (int32_t[]){ 0, 4 }, 2); /* 3: inside one of the two calls at 41 */
	add_path(&d, (int32_t[]){ 5, 6 }, 2); /* 4: inside cblas_ddot at 42 */
	add_path(&d, (int32_t[]){ 7, 8 }, 2); /* 5: inside sqrt at 43 */
	for (int i = 0; i < 2; i++) {
		grow((void **)&d.cont, &d.capcont, d.ncont + 1, sizeof *d.cont);
		d.cont[d.ncont++] = (dt_bcontainer){ .kind = DT_BC_HEAP, .addr = 0x1000 + 0x1000u * i,
						     .size = 64, .t_free = INT64_MAX, .site = 1 + i,
						     .prev = -1 };
	}
	int32_t scan[] = { 3, 0, 3, 1 }; /* main's frame (1), its stack words: both blocks */
	grow((void **)&d.scan_off, &d.capscans, 2, sizeof *d.scan_off);
	d.scan_off[0] = 0;
	d.scan_off[1] = 4;
	d.nscans = 1;
	grow((void **)&d.scanv, &d.capscanv, 4, sizeof *d.scanv);
	memcpy(d.scanv, scan, sizeof scan);
	d.nscanv = 4;
	add_samp(&d, 0, 6);
	d.samp[d.nsamp - 1].scan = 0;
	add_samp(&d, 3, 4);
	d.samp[d.nsamp - 1].scan = 0;
	add_samp(&d, 4, 5);
	add_samp(&d, 5, 2);
	d.samp[d.nsamp - 1].scan = 0;
	bx_var mv[] = { V("dst", "char *", BX_LOCAL), V("src", "char *", BX_LOCAL),
			V("n", "size_t", BX_LOCAL), V("r", "double", BX_LOCAL),
			V("k", "int", BX_LOCAL) };
	int dv[] = { 0 }, sv[] = { 1 }, nv[] = { 2 };
	bx_arg cp[] = { { (char *)"dst", dv, 1, 1, 0, 1 }, { (char *)"src", sv, 1, 0, -1, 0 },
			{ (char *)"n", nv, 1, 0, -1, 0 } };
	bx_arg ms[] = { { (char *)"src", sv, 1, 1, 1, 1 }, { (char *)"0", NULL, 0, 0, -1, 0 },
			{ (char *)"n", nv, 1, 0, -1, 0 } };
	bx_arg dot[] = { { (char *)"n", nv, 1, 0, -1, 0 }, { (char *)"src", sv, 1, 0, -1, 0 } };
	bx_call mcall[] = { { (char *)"malloc", NULL, 30, 8, 0, cp + 2, 1 },
			    { (char *)"malloc", NULL, 31, 8, 1, cp + 2, 1 },
			    { (char *)"memcpy", NULL, 40, 2, -1, cp, 3 },
			    { (char *)"memcpy", NULL, 41, 2, -1, cp, 3 },
			    { (char *)"memset", NULL, 41, 24, -1, ms, 3 },
			    { (char *)"cblas_ddot", NULL, 42, 6, 3, dot, 2 },
			    { (char *)"memcpy", NULL, 43, 2, -1, cp, 3 },
			    { (char *)"sqrt", NULL, 43, 30, -1, cp + 2, 1 } };
	bx_line mline[] = { { 30, 0, BX_WRITE }, { 31, 1, BX_WRITE }, { 42, 3, BX_WRITE },
			    { 42, 4, BX_WRITE } };
	bx_func fn[] = { { (char *)"main", (char *)"/src/app.c", 29, 50, 0, mv, 5, NULL, 0, mcall,
			   8, mline, 4 } };
	blame_src src = { fn, 1, 0 };
	transfer_set tf = { 0 };
	dt_err e;
	dt_err_clear(&e);
	const char *tt = "memcpy blame=1 from=2 bytes=3\nmemset blame=1 bytes=3\n"
			 "cblas_ddot blame=return from=2,4 bytes=1 size=8\n";
	CHECK(transfer_parse(&tf, "t.transfer", tt, strlen(tt), &e) == 0);
	blame_result r;
	CHECK(blame_compute_src(&d, &tf, &src, NULL, 0, BLAME_SAMPLES, &r, &e) == 0);
	const blame_table *t = &r.tables[0];
	CHECK(fabs(t->total - 17) < 1e-9);
	/* 40: memcpy under its internal name, on the destination's block alone (6); 41: two
	 * calls the table knows, the heuristic's halves (2 each); 43: a sample in sqrt, not
	 * memcpy's: the heuristic (1 each) */
	CHECK(fabs(row(t, "dst (app.c:30 in main)") - 9) < 1e-9);
	CHECK(fabs(row(t, "src (app.c:31 in main)") - 3) < 1e-9);
	/* the dot product's value, not the other variable its line writes */
	CHECK(fabs(row(t, "r (main)") - 5) < 1e-9);
	CHECK(row(t, "k (main)") < 0);
	sums(t);
	blame_result_free(&r);
	/* without the tables: no argument to start from, the line's writes and the heuristic */
	CHECK(blame_compute_src(&d, NULL, &src, NULL, 0, BLAME_SAMPLES, &r, &e) == 0);
	t = &r.tables[0];
	CHECK(fabs(row(t, "dst (app.c:30 in main)") - 6) < 1e-9);
	CHECK(fabs(row(t, "r (main)") - 2.5) < 1e-9);
	blame_result_free(&r);
	blame_result w;
	CHECK(blame_compute_why(&d, &tf, &src, NULL, 0, BLAME_SAMPLES, "dst (app.c:30 in main)", 0, &w,
				&e) == 0);
	int found = 0;
	for (size_t i = 0; i < w.tables[0].nwhy; i++)
		for (size_t j = 0; j < w.tables[0].why[i].nsteps; j++)
			found |= !strcmp(w.tables[0].why[i].steps[j],
					 "argument 1 of memcpy (its transfer function)");
	CHECK(found);
	blame_result_free(&w);
	CHECK(blame_compute_why(&d, &tf, &src, NULL, 0, BLAME_SAMPLES, "r (main)", 0, &w, &e) == 0);
	found = 0;
	for (size_t i = 0; i < w.tables[0].nwhy; i++)
		for (size_t j = 0; j < w.tables[0].why[i].nsteps; j++)
			found |= !strcmp(w.tables[0].why[i].steps[j],
					 "the value of cblas_ddot (its transfer function)");
	CHECK(found);
	blame_result_free(&w);
	transfer_free(&tf);
	dt_blame_data_free(&d);
}

/* A pointer parameter passes blame out only through what is written through it: in
 * adv(double *p), line 81 `p = p + r` moves the pointer (its own value, not the data it points
 * to), so the blame of what r computed stays in adv; main's x, passed as p, gets none. Line 82
 * `*p = r` writes through it: x takes that. */
static void test_pointer_value(void)
{
	dt_blame_data d;
	memset(&d, 0, sizeof d);
	static const struct {
		const char *f;
		int line;
	} l[] = { { "main", 20 }, { "adv", 81 }, { "adv", 82 } };
	for (int i = 0; i < 3; i++) {
		grow((void **)&d.locs, &d.caplocs, d.nlocs + 1, sizeof *d.locs);
		d.locs[d.nlocs++] = (dt_bloc){ xstrdup(l[i].f), xstrdup("/src/app.c"), l[i].line,
					       xstrdup("app"), 1, 0 };
	}
	grow((void **)&d.proc, &d.capproc, 1, sizeof *d.proc);
	d.proc[d.nproc++] = (dt_bproc){ .rank = 0, .pid = 100 };
	add_path(&d, (int32_t[]){ 1, 0 }, 2); /* 0: line 81 in adv, called from main's line 20 */
	add_path(&d, (int32_t[]){ 2, 0 }, 2); /* 1: line 82 */
	add_samp(&d, 0, 5);
	add_samp(&d, 1, 3);
	static bx_var mv[2], av[2];
	mv[0] = V("x", "double", BX_LOCAL);
	mv[1] = V("<return>", "int", BX_RETURN);
	av[0] = V("p", "double *", BX_PARAM);
	av[1] = V("r", "double", BX_LOCAL);
	int xv[] = { 0 };
	bx_arg arg[] = { { (char *)"&x", xv, 1, 1, 0, 0 } };
	bx_call mcall[] = { { (char *)"adv", NULL, 20, 2, -1, arg, 1 } };
	bx_rel arel[] = { { 0, 0, 1, 81, 0, BX_VALUE, NULL }, { 0, 0, 1, 82, 1, BX_VALUE, NULL } };
	bx_line aline[] = { { 81, 0, BX_WRITE }, { 82, 0, BX_THROUGH } };
	bx_func fn[] = {
		{ (char *)"main", (char *)"/src/app.c", 19, 30, 0, mv, 2, NULL, 0, mcall, 1, NULL, 0 },
		{ (char *)"adv", (char *)"/src/app.c", 80, 83, 0, av, 2, arel, 2, NULL, 0, aline, 2 },
	};
	blame_src src = { fn, 2, 0 };
	blame_result r;
	dt_err e;
	dt_err_clear(&e);
	CHECK(blame_compute_src(&d, NULL, &src, NULL, 0, BLAME_SAMPLES, &r, &e) == 0);
	const blame_table *t = &r.tables[0];
	CHECK(fabs(row(t, "x (main)") - 3) < 1e-9); /* only what was written through p */
	sums(t);
	blame_result_free(&r);
	dt_blame_data_free(&d);
}

/* The paper's small cases at a blame point (main), shares by hand: a temporary of the point
 * that only feeds other variables of the point passes its blame on to them, in equal parts,
 * and so on: c = a + b and d = c * 2 (printed) give all of a's, b's, c's and d's samples to d;
 * a temporary array filled in a loop and summed into a result gives the result the loop's
 * (its index too); a local sum reduced by MPI_Reduce goes to the reduced result; a temporary
 * feeding two variables splits; a pointer keeps what is written through it (the memory it
 * points to is a variable of its own), though a sum reads it; a loop's line goes to what it
 * computes, not to an inner loop's index. */
static void test_point_temporaries(void)
{
	enum { A, B, C, D, I, TMP, RES, X, S, ALL, E, F1, G1, C2, K, T0, NV };
	bx_var v[NV] = { V("a", "double[100]", BX_LOCAL), V("b", "double[100]", BX_LOCAL),
			 V("c", "double", BX_LOCAL),      V("d", "double", BX_LOCAL),
			 V("i", "int", BX_LOCAL),	  V("tmp", "double[8]", BX_LOCAL),
			 V("res", "double", BX_LOCAL),    V("x", "double *", BX_LOCAL),
			 V("s", "double", BX_LOCAL),      V("all", "double", BX_LOCAL),
			 V("e", "double", BX_LOCAL),      V("f1", "double", BX_LOCAL),
			 V("g1", "double", BX_LOCAL),     V("c2", "double", BX_LOCAL),
			 V("k", "long", BX_LOCAL),	  V("t0", "double", BX_LOCAL) };
	bx_rel rel[] = { { 0, C, A, 12, 0, BX_VALUE, NULL },	 { 0, C, B, 12, 0, BX_VALUE, NULL },
			 { 0, D, C, 13, 0, BX_VALUE, NULL },	 { 1, TMP, I, 20, 1, BX_CONTROL, NULL },
			 { 1, I, I, 20, 0, BX_CONTROL, NULL },	 { 0, TMP, I, 21, 1, BX_INDEX, NULL },
			 { 0, RES, TMP, 22, 0, BX_VALUE, NULL }, { 0, S, X, 23, 0, BX_VALUE, NULL },
			 { 0, ALL, S, 24, 0, BX_ARG, NULL },	 { 0, F1, E, 31, 0, BX_VALUE, NULL },
			 { 0, G1, E, 32, 0, BX_VALUE, NULL },	 { 1, C2, T0, 40, 0, BX_CONTROL, NULL },
			 { 1, K, T0, 40, 0, BX_CONTROL, NULL },	 { 1, C2, K, 41, 0, BX_CONTROL, NULL } };
	bx_line line[] = { { 10, A, BX_THROUGH }, { 11, B, BX_THROUGH },  { 12, C, BX_WRITE },
			   { 13, D, BX_WRITE },	  { 20, I, BX_CONDITION }, { 21, TMP, BX_THROUGH },
			   { 22, RES, BX_WRITE }, { 23, S, BX_WRITE },	   { 24, ALL, BX_OUT },
			   { 26, X, BX_THROUGH }, { 30, E, BX_WRITE },	   { 31, F1, BX_WRITE },
			   { 32, G1, BX_WRITE },  { 40, T0, BX_CONDITION }, { 41, K, BX_CONDITION },
			   { 41, K, BX_WRITE },	  { 42, C2, BX_WRITE },	   { 45, C2, BX_CONDITION } };
	int dv[] = { D }, sv[] = { S }, allv[] = { ALL }, resv[] = { RES }, f1v[] = { F1 },
	    g1v[] = { G1 };
	bx_arg p14[] = { { (char *)"d", dv, 1, 0, -1, 0 } };
	bx_arg red[] = { { (char *)"&s", sv, 1, 0, -1, 0 }, { (char *)"&all", allv, 1, 1, ALL, 0 } };
	bx_arg p25[] = { { (char *)"all", allv, 1, 0, -1, 0 }, { (char *)"res", resv, 1, 0, -1, 0 } };
	bx_arg p33[] = { { (char *)"f1", f1v, 1, 0, -1, 0 }, { (char *)"g1", g1v, 1, 0, -1, 0 } };
	bx_call call[] = { { (char *)"printf", NULL, 14, 2, -1, p14, 1 },
			   { (char *)"MPI_Reduce", NULL, 24, 2, -1, red, 2 },
			   { (char *)"printf", NULL, 25, 2, -1, p25, 2 },
			   { (char *)"printf", NULL, 33, 2, -1, p33, 2 } };
	bx_func fn[] = { { (char *)"main", (char *)"/src/app.c", 9, 40, 0, v, NV, rel,
			   sizeof rel / sizeof *rel, call, 4, line, sizeof line / sizeof *line } };
	blame_src src = { fn, 1, 0 };
	static const int at[] = { 10, 11, 12, 13, 20, 21, 23, 26, 30, 40 };
	static const uint64_t wt[] = { 10, 6, 4, 2, 3, 5, 7, 9, 4, 3 };
	dt_blame_data d;
	memset(&d, 0, sizeof d);
	grow((void **)&d.proc, &d.capproc, 1, sizeof *d.proc);
	d.proc[d.nproc++] = (dt_bproc){ .rank = 0, .pid = 100 };
	for (int k = 0; k < 10; k++) {
		grow((void **)&d.locs, &d.caplocs, d.nlocs + 1, sizeof *d.locs);
		d.locs[d.nlocs++] = (dt_bloc){ xstrdup("main"), xstrdup("/src/app.c"), at[k],
					       xstrdup("app"), 1, 0 };
		add_path(&d, (int32_t[]){ k }, 1);
		add_samp(&d, k, wt[k]);
	}
	blame_result r;
	dt_err e;
	dt_err_clear(&e);
	CHECK(blame_compute_src(&d, NULL, &src, NULL, 0, BLAME_SAMPLES, &r, &e) == 0);
	const blame_table *t = &r.tables[0];
	CHECK(fabs(t->total - 53) < 1e-9);
	/* while (clock() < t0) for (k = 0; ...) c2 = ...; if (c2 > 0) ...: the outer loop's
	 * line goes to c2, though another condition reads it, not to the inner loop's index */
	CHECK(fabs(row(t, "c2 (main)") - 3) < 1e-9);
	CHECK(fabs(row(t, "d (main)") - (10 + 6 + 4 + 2)) < 1e-9);
	/* the Base Data Centric part: the samples whose own line wrote d (line 13), and x's */
	for (size_t k = 0; k < t->nvars; k++)
		if (!strcmp(t->vars[k].name, "d (main)") || !strcmp(t->vars[k].name, "x (main)"))
			CHECK(fabs(t->vars[k].direct - (t->vars[k].name[0] == 'd' ? 2 : 9)) < 1e-9);
		else
			CHECK(t->vars[k].direct == 0); /* passed on, or a loop's line */
	CHECK(fabs(row(t, "res (main)") - (3 + 5)) < 1e-9);
	CHECK(fabs(row(t, "all (main)") - 7) < 1e-9);
	CHECK(fabs(row(t, "x (main)") - 9) < 1e-9);
	CHECK(fabs(row(t, "f1 (main)") - 2) < 1e-9 && fabs(row(t, "g1 (main)") - 2) < 1e-9);
	const char *none[] = { "a (main)", "b (main)", "c (main)", "tmp (main)", "s (main)",
			       "e (main)", "i (main)", "k (main)", "t0 (main)" };
	for (size_t k = 0; k < sizeof none / sizeof *none; k++)
		CHECK(row(t, none[k]) < 0);
	sums(t);
	blame_result_free(&r);
	/* why keeps the chain of temporaries, from the variable back to the sample */
	CHECK(blame_compute_why(&d, NULL, &src, NULL, 0, BLAME_SAMPLES, "d (main)", 1, &r, &e) == 0);
	CHECK(r.tables[0].nwhy == 1 && r.tables[0].why_all == 4);
	if (r.tables[0].nwhy == 1) {
		const blame_path *p = &r.tables[0].why[0];
		const char *want[] = { "d (main)", "c, line 13", "a, line 12",
				       "sample at app.c:10 in main" };
		CHECK(p->nsteps == 4 && fabs(p->blame - 10) < 1e-9);
		for (size_t k = 0; k < 4 && k < p->nsteps; k++)
			CHECK_EQ_STR(p->steps[k], want[k]);
	}
	blame_result_free(&r);
	CHECK(blame_compute_why(&d, NULL, &src, NULL, 0, BLAME_SAMPLES, "all (main)", 0, &r, &e) == 0);
	CHECK(r.tables[0].nwhy == 1);
	if (r.tables[0].nwhy == 1 && r.tables[0].why[0].nsteps == 3)
		CHECK_EQ_STR(r.tables[0].why[0].steps[1], "s, line 24");
	blame_result_free(&r);
	dt_blame_data_free(&d);
}

/* A structure's pointer fields are paths of their own: work(pb->x) writing through its
 * parameter blames the block pb->x points to (allocated by pb->x = calloc(...)), not the
 * structure's block or a sibling field's that work's frame happens to point into; a block
 * filled through p->z in mk() and returned (q = mk(n)) is q->z's at main, though mk made it. */
static void test_pointer_field(void)
{
	dt_blame_data d;
	memset(&d, 0, sizeof d);
	static const struct {
		const char *f;
		int line;
	} l[] = { { "main", 50 }, { "main", 51 }, { "main", 52 }, { "main", 53 }, { "work", 60 },
		  { "main", 54 }, { "mk", 80 },	  { "mk", 81 },	  { "mk", 82 },	  { "fill", 90 } };
	for (int i = 0; i < 10; i++) {
		grow((void **)&d.locs, &d.caplocs, d.nlocs + 1, sizeof *d.locs);
		d.locs[d.nlocs++] = (dt_bloc){ xstrdup(l[i].f), xstrdup("/src/app.c"), l[i].line,
					       xstrdup("app"), 1, 0 };
	}
	grow((void **)&d.proc, &d.capproc, 1, sizeof *d.proc);
	d.proc[d.nproc++] = (dt_bproc){ .rank = 0, .pid = 100 };
	add_path(&d, (int32_t[]){ 4, 3 }, 2);    /* 0: work(pb->x) */
	add_path(&d, (int32_t[]){ 9, 8, 5 }, 3); /* 1: fill(p->z) in mk, from q = mk(n) */
	add_path(&d, (int32_t[]){ 0 }, 1);       /* 2: pb = malloc */
	add_path(&d, (int32_t[]){ 1 }, 1);       /* 3: pb->x = calloc */
	add_path(&d, (int32_t[]){ 2 }, 1);       /* 4: pb->y = calloc */
	add_path(&d, (int32_t[]){ 6, 5 }, 2);    /* 5: p = malloc in mk */
	add_path(&d, (int32_t[]){ 7, 5 }, 2);    /* 6: p->z = calloc in mk */
	for (int32_t site = 2; site <= 6; site++) {
		grow((void **)&d.cont, &d.capcont, d.ncont + 1, sizeof *d.cont);
		d.cont[d.ncont++] = (dt_bcontainer){ .pid = 100, .kind = DT_BC_HEAP,
						     .addr = 0x1000 * (uint64_t)site, .size = 64,
						     .t_free = INT64_MAX, .site = site, .prev = -1 };
	}
	/* work's frame points into pb's block and pb->y's (registers left over), not pb->x's */
	int32_t scan[] = { 0, 0, 0, 2 };
	grow((void **)&d.scan_off, &d.capscans, 2, sizeof *d.scan_off);
	d.scan_off[0] = 0;
	d.scan_off[1] = 4;
	d.nscans = 1;
	grow((void **)&d.scanv, &d.capscanv, 4, sizeof *d.scanv);
	memcpy(d.scanv, scan, sizeof scan);
	d.nscanv = 4;
	add_samp(&d, 0, 10);
	d.samp[0].scan = 0;
	add_samp(&d, 1, 6);
	bx_var mv[] = { V("pb", "struct s *", BX_LOCAL), V("n", "int", BX_LOCAL),
			V("q", "struct s *", BX_LOCAL), V("<return>", "int", BX_RETURN) };
	bx_rel mrel[] = { { 0, 0, 1, 51, 1, BX_VALUE, (char *)"x" },
			  { 0, 0, 1, 52, 1, BX_VALUE, (char *)"y" },
			  { 0, 2, 1, 54, 0, BX_VALUE, NULL } };
	int pbv[] = { 0 }, nv[] = { 1 }, pv[] = { 1 }, kn[] = { 0 };
	bx_arg warg[] = { { (char *)"pb->x", pbv, 1, 1, 0, 1 } };
	bx_arg karg[] = { { (char *)"n", nv, 1, 0, -1, 0 } };
	bx_call mcall[] = { { (char *)"malloc", NULL, 50, 7, 0, NULL, 0 },
			    { (char *)"calloc", NULL, 51, 9, 0, NULL, 0 },
			    { (char *)"calloc", NULL, 52, 9, 0, NULL, 0 },
			    { (char *)"work", NULL, 53, 2, -1, warg, 1 },
			    { (char *)"mk", NULL, 54, 6, 2, karg, 1 } };
	bx_line mline[] = { { 50, 0, BX_WRITE }, { 51, 0, BX_THROUGH }, { 52, 0, BX_THROUGH },
			    { 53, 0, BX_OUT },	 { 54, 2, BX_WRITE } };
	bx_var wv[] = { V("v", "double *", BX_PARAM), V("i", "int", BX_LOCAL) };
	bx_line wline[] = { { 60, 0, BX_THROUGH } };
	bx_var kv[] = { V("n", "int", BX_PARAM), V("p", "struct s *", BX_LOCAL),
			V("<return>", "struct s *", BX_RETURN) };
	bx_rel krel[] = { { 0, 1, 0, 81, 1, BX_VALUE, (char *)"z" }, { 0, 2, 1, 83, 0, BX_VALUE, NULL } };
	bx_arg farg[] = { { (char *)"p->z", pv, 1, 1, 1, 1 }, { (char *)"n", kn, 1, 0, -1, 0 } };
	bx_call kcall[] = { { (char *)"malloc", NULL, 80, 7, 1, NULL, 0 },
			    { (char *)"calloc", NULL, 81, 9, 1, NULL, 0 },
			    { (char *)"fill", NULL, 82, 2, -1, farg, 2 } };
	bx_line kline[] = { { 80, 1, BX_WRITE }, { 81, 1, BX_THROUGH }, { 82, 1, BX_OUT },
			    { 83, 2, BX_WRITE } };
	bx_var fv[] = { V("v", "double *", BX_PARAM), V("n", "int", BX_PARAM) };
	bx_line fline[] = { { 90, 0, BX_THROUGH } };
	bx_func fn[] = {
		{ (char *)"main", (char *)"/src/app.c", 49, 56, 0, mv, 4, mrel, 3, mcall, 5, mline, 5 },
		{ (char *)"work", (char *)"/src/app.c", 59, 61, 0, wv, 2, NULL, 0, NULL, 0, wline, 1 },
		{ (char *)"mk", (char *)"/src/app.c", 79, 84, 0, kv, 3, krel, 2, kcall, 3, kline, 4 },
		{ (char *)"fill", (char *)"/src/app.c", 89, 91, 0, fv, 2, NULL, 0, NULL, 0, fline, 1 },
	};
	blame_src src = { fn, 4, 0 };
	blame_result r;
	dt_err e;
	dt_err_clear(&e);
	CHECK(blame_compute_src(&d, NULL, &src, NULL, 0, BLAME_SAMPLES, &r, &e) == 0);
	const blame_table *t = &r.tables[0];
	CHECK(fabs(row(t, "pb->x (app.c:51 in main)") - 10) < 1e-9); /* pb->x's block */
	CHECK(row(t, "app.c:51 (main)") < 0); /* named by the field, not by its site */
	/* written by work's own line through the pointer passed unchanged: directly (the
	 * paper's Base Data Centric counts writes under all aliases) */
	for (size_t k = 0; k < t->nvars; k++)
		if (!strcmp(t->vars[k].name, "pb->x (app.c:51 in main)"))
			CHECK(fabs(t->vars[k].direct - 10) < 1e-9);
		else if (!strcmp(t->vars[k].name, "p->z (app.c:81 in mk)")) /* returned: still an alias */
			CHECK(fabs(t->vars[k].direct - 6) < 1e-9);
	CHECK(row(t, "pb (app.c:50 in main)") < 0 && row(t, "pb->y (app.c:52 in main)") < 0);
	CHECK(fabs(row(t, "p->z (app.c:81 in mk)") - 6) < 1e-9);    /* q->z's block */
	CHECK(row(t, "q (main)") < 0 && row(t, "q (app.c:80 in mk)") < 0);
	sums(t);
	blame_result_free(&r);
	dt_blame_data_free(&d);
}

/* An OpenMP loop's body that the compiler outlined (main._omp_fn.0, main's index entry) and a
 * thread of the team ran: its sample is below no frame of main, so main's y, written through
 * at line 13 and flowing nowhere, ends the walk at a local, not at the point; still a pointer
 * written through, it is named by the block its frame points into (y = malloc(...) at line
 * 10: y's block, the heuristic's row), not by a row of its own besides; and by that block
 * still when the sample's frames were not seen holding it (y names the block where it is
 * allocated). A pointer that names no block (p, written through at line 14) keeps its row. */
static void test_outlined_loop(void)
{
	dt_blame_data d;
	memset(&d, 0, sizeof d);
	static const struct {
		const char *f;
		int line;
	} l[] = { { "main", 10 }, { "main._omp_fn.0", 13 }, { "start_thread", 0 },
		  { "main._omp_fn.0", 14 } };
	for (int i = 0; i < 4; i++) {
		grow((void **)&d.locs, &d.caplocs, d.nlocs + 1, sizeof *d.locs);
		d.locs[d.nlocs++] = (dt_bloc){ xstrdup(l[i].f), xstrdup("/src/app.c"), l[i].line,
					       xstrdup("app"), i != 2, 0 };
	}
	grow((void **)&d.proc, &d.capproc, 1, sizeof *d.proc);
	d.proc[d.nproc++] = (dt_bproc){ .rank = 0, .pid = 100 };
	add_path(&d, (int32_t[]){ 1, 2 }, 2); /* 0: the loop's body on a thread of the team */
	add_path(&d, (int32_t[]){ 0 }, 1);    /* 1: y = malloc(...) */
	grow((void **)&d.cont, &d.capcont, 1, sizeof *d.cont);
	d.cont[d.ncont++] = (dt_bcontainer){ .pid = 100, .kind = DT_BC_HEAP, .addr = 0x1000,
					     .size = 64, .t_free = INT64_MAX, .site = 1, .prev = -1 };
	int32_t scan[] = { 0, 0 }; /* the outlined frame's registers point into y's block */
	grow((void **)&d.scan_off, &d.capscans, 2, sizeof *d.scan_off);
	d.scan_off[0] = 0;
	d.scan_off[1] = 2;
	d.nscans = 1;
	grow((void **)&d.scanv, &d.capscanv, 2, sizeof *d.scanv);
	memcpy(d.scanv, scan, sizeof scan);
	d.nscanv = 2;
	add_path(&d, (int32_t[]){ 3, 2 }, 2); /* 2: p[i] = ... on a thread of the team */
	add_samp(&d, 0, 5);
	d.samp[0].scan = 0;
	add_samp(&d, 0, 2); /* the same line, no pointer seen */
	add_samp(&d, 2, 3);
	for (size_t i = 0; i < d.nsamp; i++)
		d.samp[i].tid = 101; /* not the main thread: its stack starts at start_thread */
	bx_var mv[] = { V("y", "double *", BX_LOCAL), V("i", "long", BX_LOCAL),
			V("<return>", "int", BX_RETURN), V("p", "double *", BX_LOCAL) };
	bx_call mcall[] = { { (char *)"malloc", NULL, 10, 14, 0, NULL, 0 } };
	bx_line mline[] = { { 10, 0, BX_WRITE }, { 13, 0, BX_THROUGH }, { 14, 3, BX_THROUGH } };
	bx_func fn[] = {
		{ (char *)"main", (char *)"/src/app.c", 8, 16, 0, mv, 4, NULL, 0, mcall, 1, mline, 3 },
	};
	blame_src src = { fn, 1, 0 };
	blame_result r;
	dt_err e;
	dt_err_clear(&e);
	CHECK(blame_compute_src(&d, NULL, &src, NULL, 0, BLAME_SAMPLES, &r, &e) == 0);
	const blame_table *t = &r.tables[0];
	CHECK(fabs(row(t, "y (app.c:10 in main)") - 7) < 1e-9); /* y's block */
	CHECK(row(t, "y (main)") < 0);                          /* no row of the pointer */
	CHECK(fabs(row(t, "p (main)") - 3) < 1e-9);             /* no block: its own row */
	sums(t);
	blame_result_free(&r);
	dt_blame_data_free(&d);
}

int main(void)
{
	test_outlined_loop();
	test_pointer_field();
	test_point_temporaries();
	test_pointer_value();
	test_join();
	test_heuristic_above("h");
	/* a copy gcc -O2 made of h, renamed: still h's index entry */
	test_heuristic_above("h.isra.0");
	CHECK(flow_same_function("work", "work") && flow_same_function("work", "work.constprop.0") &&
	      flow_same_function("work", "work.cold"));
	CHECK(!flow_same_function("work", "worker") && !flow_same_function("work", "wor") &&
	      !flow_same_function("", ".x"));
	test_inline();
	test_libcalls();
	return check_failures ? 1 : 0;
}
