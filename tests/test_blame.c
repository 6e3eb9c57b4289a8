/* test_blame.c: variable blame (blame/blame.c) on blame data made by hand: each sample blamed
 * once (the rows add up), temporaries of the call below the point passing their blame out,
 * the scan's levels, MPI transfer, Output, Other, library-only blocks, another thread's
 * samples at main, points, metrics, the comparison of two runs, damaged data refused, local
 * variables (stack containers): visibility and names, and why (the paths of one variable)
 * without an index, and the alignment of a sample's stack with an allocation path. */
#include <math.h>

#include "blame/blame.h"
#include "check.h"
#include "import/sync_file.h"
#include "record/syncfmt.h"
#include "util/util.h"

enum { L_MAIN, L_SOLVE, L_CG, L_DOT, L_SETUP, L_PNEW, L_WRITE, L_PRINTF, L_BCAST, L_WORK,
       L_START, L_LIBFN, NLOCS };

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

static void add_scan(dt_blame_data *d, const int32_t *v, size_t n)
{
	if (!d->nscans) {
		grow((void **)&d->scan_off, &d->capscans, 1, sizeof *d->scan_off);
		d->scan_off[0] = 0;
	}
	grow((void **)&d->scanv, &d->capscanv, d->nscanv + n, sizeof *d->scanv);
	memcpy(d->scanv + d->nscanv, v, n * sizeof *v);
	d->nscanv += n;
	grow((void **)&d->scan_off, &d->capscans, d->nscans + 2, sizeof *d->scan_off);
	d->scan_off[++d->nscans] = (uint32_t)d->nscanv;
}

static void add_cont(dt_blame_data *d, int kind, const char *name, const char *type, int32_t site)
{
	grow((void **)&d->cont, &d->capcont, d->ncont + 1, sizeof *d->cont);
	d->cont[d->ncont++] = (dt_bcontainer){ .rank = 0, .kind = kind, .addr = 0x1000 * (d->ncont + 1),
					       .size = 64, .t_alloc = 0, .t_free = INT64_MAX,
					       .name = name ? xstrdup(name) : NULL,
					       .type = type ? xstrdup(type) : NULL, .site = site,
					       .prev = -1 };
}

static void add_samp(dt_blame_data *d, int32_t rank, int32_t path, int32_t scan, int call,
		     int32_t c0, uint64_t weight)
{
	grow((void **)&d->samp, &d->capsamp, d->nsamp + 1, sizeof *d->samp);
	d->samp[d->nsamp++] = (dt_bsample){ .rank = rank, .pid = 100 + rank, .tid = 100 + rank,
					    .path = path, .call = call, .c0 = c0, .c1 = -1,
					    .scan = scan, .nrec = 1, .weight = weight,
					    .cost = weight * 1000, .bytes = 80 };
}

enum { P_DOT, P_OUT, P_BCAST, P_MAIN, P_THREAD, P_LIB };
enum { C_G, C_X, C_T, C_L };

static void make(dt_blame_data *d)
{
	static const char *const fn[NLOCS] = { "main",	"solve",     "cg",	  "dot",
						"setup", "problem_new", "write", "printf",
						"MPI_Bcast", "work", "start_thread", "libfn" };
	memset(d, 0, sizeof *d);
	for (int i = 0; i < NLOCS; i++) {
		grow((void **)&d->locs, &d->caplocs, d->nlocs + 1, sizeof *d->locs);
		int prog = i != L_WRITE && i != L_PRINTF && i != L_BCAST && i != L_START &&
			   i != L_LIBFN;
		d->locs[d->nlocs++] = (dt_bloc){ xstrdup(fn[i]), xstrdup(prog ? "/src/app.c" : ""),
						 prog ? 10 + i : 0, xstrdup(prog ? "app" : "libc.so"),
						 prog, 0 };
	}
	/* sample stacks */
	add_path(d, (int32_t[]){ L_DOT, L_CG, L_SOLVE, L_MAIN }, 4);    /* P_DOT */
	add_path(d, (int32_t[]){ L_WRITE, L_PRINTF, L_MAIN }, 3);       /* P_OUT */
	add_path(d, (int32_t[]){ L_BCAST, L_MAIN }, 2);                 /* P_BCAST */
	add_path(d, (int32_t[]){ L_MAIN }, 1);                          /* P_MAIN */
	add_path(d, (int32_t[]){ L_WORK, L_START }, 2);                 /* P_THREAD */
	/* allocation paths */
	add_path(d, (int32_t[]){ L_PNEW, L_SETUP, L_MAIN }, 3);         /* 5: x */
	add_path(d, (int32_t[]){ L_CG, L_SOLVE, L_MAIN }, 3);           /* 6: a temporary of cg */
	add_path(d, (int32_t[]){ L_LIBFN }, 1);                         /* 7: a library's block */
	add_cont(d, DT_BC_GLOBAL, "g", "int", -1);                      /* C_G */
	add_cont(d, DT_BC_HEAP, NULL, NULL, 5);                         /* C_X */
	add_cont(d, DT_BC_HEAP, NULL, NULL, 6);                         /* C_T */
	add_cont(d, DT_BC_HEAP, NULL, NULL, 7);                         /* C_L */
	/* scans: (level, container), level 2 x frame (+1 stack words) */
	add_scan(d, (int32_t[]){ 0, C_T, 4, C_X, 5, C_G }, 6);          /* 0: dot's t, solve's x, g */
	add_scan(d, (int32_t[]){ 0, C_T, 4, C_X, 4, C_G }, 6);          /* 1: solve's x and g */
	add_scan(d, (int32_t[]){ 0, C_L }, 2);                          /* 2: a library block */
	add_scan(d, (int32_t[]){ 0, C_T }, 2);                          /* 3: t */
	add_scan(d, (int32_t[]){ 0, C_X }, 2);                          /* 4 */
	d->proc = xcalloc(2, sizeof *d->proc);
	d->capproc = d->nproc = 2;
	for (int r = 0; r < 2; r++)
		d->proc[r] = (dt_bproc){ r, 100 + r, 0, 1, 1000000, xstrdup("cpu-time"), xstrdup("app") };
	add_samp(d, 0, P_DOT, 0, 0, -1, 10);             /* main: x (registers of solve's frame) */
	add_samp(d, 0, P_DOT, 1, 0, -1, 4);              /* main: x, g in halves */
	add_samp(d, 1, P_OUT, 4, 0, -1, 3);              /* Output */
	add_samp(d, 1, P_BCAST, -1, DTS_MPI_Bcast, C_G, 6); /* g through MPI_Bcast */
	add_samp(d, 1, P_MAIN, -1, 0, -1, 2);            /* Other: nothing scanned */
	add_samp(d, 0, P_MAIN, 2, 0, -1, 5);             /* Other: a library's block only */
	add_samp(d, 1, P_THREAD, 3, 0, -1, 7);           /* another thread: t, at main too */
}

static const blame_var *var(const blame_table *t, const char *name)
{
	for (size_t i = 0; i < t->nvars; i++)
		if (!strcmp(t->vars[i].name, name))
			return &t->vars[i];
	return NULL;
}

static int near(double a, double b)
{
	return fabs(a - b) < 1e-9;
}

static void adds_up(const blame_result *r)
{
	for (size_t t = 0; t < r->ntables; t++) {
		const blame_table *b = &r->tables[t];
		double all = 0;
		for (size_t c = 0; c < r->nranks; c++) {
			double s = 0;
			for (size_t i = 0; i < b->nvars; i++)
				s += b->vars[i].rank[c];
			CHECK(near(s, b->rank[c]));
			all += b->rank[c];
		}
		CHECK(near(all, b->total));
	}
}

static void test_tables(void)
{
	dt_blame_data d;
	make(&d);
	transfer_set tf = { 0 };
	dt_err e;
	dt_err_clear(&e);
	const char *mt = "MPI_Bcast blame=1 bytes=2*3\n";
	CHECK(transfer_parse(&tf, "t.transfer", mt, strlen(mt), &e) == 0);
	blame_result r;
	const char *pts[] = { "main", "cg" };
	CHECK(blame_compute(&d, &tf, pts, 2, BLAME_SAMPLES, &r, &e) == 0);
	CHECK_EQ_INT(r.nranks, 2);
	CHECK_EQ_INT(r.ntables, 2);
	adds_up(&r);
	const blame_table *m = &r.tables[0];
	CHECK_EQ_STR(m->point, "main");
	CHECK(near(m->total, 37));
	const char *xn = "app.c:15 (problem_new)", *tn = "app.c:12 (cg)";
	const blame_var *x = var(m, xn), *g = var(m, "g"), *t = var(m, tn);
	CHECK(x && g && t);
	if (x && g && t) {
		/* dot's temporary is not main's: the first frame further out with a visible one
		 * (solve's registers: x alone in scan 0; x and g in scan 1, in halves) */
		CHECK(near(x->rank[0], 10 + 2));
		CHECK(near(g->rank[0], 2));
		CHECK(near(g->rank[1], 6));
		CHECK(g->calls == 1ull << (DTS_MPI_Bcast - 1));
		CHECK(x->calls == 0);
		CHECK_EQ_STR(g->type, "int");
		CHECK_EQ_STR(x->type, "heap");
		/* the functions credited: the frame the scan found x in (frame 2, solve); for the
		 * broadcast, the program's function that made the call */
		CHECK(x->nfn == 1 && x->fn[0] >= 0 && !strcmp(d.locs[x->fn[0]].func, "solve"));
		int has_main = 0;
		for (int i = 0; i < g->nfn; i++)
			has_main |= !strcmp(d.locs[g->fn[i]].func, "main");
		CHECK(has_main && g->nfn == 2);
		/* the thread's sample: main is not on its stack, nothing is a temporary there */
		CHECK(near(t->rank[1], 7) && near(t->rank[0], 0));
	}
	const blame_var *o = var(m, "Other"), *out = var(m, "Output");
	CHECK(o && out);
	if (o && out) {
		CHECK(near(o->rank[0], 5) && near(o->rank[1], 2));
		CHECK(near(out->rank[1], 3));
		CHECK(o->vkind == BV_OTHER && out->vkind == BV_OUTPUT);
		/* Other and Output come last */
		CHECK(m->vars[m->nvars - 1].vkind == BV_OUTPUT);
		CHECK(m->vars[m->nvars - 2].vkind == BV_OTHER);
	}
	/* variables by total blame */
	for (size_t i = 1; i < m->nvars; i++)
		if (m->vars[i].vkind == BV_VAR)
			CHECK(m->vars[i - 1].total >= m->vars[i].total);
	/* at cg, its own temporary is a variable: the samples with cg on their stack */
	const blame_table *c = &r.tables[1];
	CHECK(near(c->total, 14));
	const blame_var *ct = var(c, tn);
	CHECK(ct && near(ct->total, 14));
	double mean, sd;
	if (x) {
		blame_var_stats(&r, x, &mean, &sd);
		CHECK(near(mean, 6) && near(sd, 6));
	}
	blame_result_free(&r);

	/* why, without an index: g's blame came through the broadcast's transfer function (6) and
	 * by the heuristic from solve's frame, which pointed to x and g (2 of the sample of 4) */
	CHECK(blame_compute_why(&d, &tf, NULL, pts, 1, BLAME_SAMPLES, "g", 0, &r, &e) == 0);
	CHECK(r.tables[0].nwhy == 2 && near(r.tables[0].why_total, 8));
	if (r.tables[0].nwhy == 2) {
		const blame_path *p = &r.tables[0].why[0];
		CHECK(near(p->blame, 6) && p->nsteps == 3);
		if (p->nsteps == 3) {
			CHECK_EQ_STR(p->steps[0], "g");
			CHECK_EQ_STR(p->steps[1], "the buffer MPI_Bcast's transfer function blames");
			CHECK_EQ_STR(p->steps[2], "sample in MPI_Bcast at app.c:10 in main");
		}
		p = &r.tables[0].why[1];
		CHECK(near(p->blame, 2) && p->nsteps == 3);
		if (p->nsteps == 3) {
			CHECK_EQ_STR(p->steps[1], "a pointer of solve's frame into it (the heuristic, 1 of 2)");
			CHECK_EQ_STR(p->steps[2], "sample at app.c:13 in dot");
		}
	}
	CHECK(near(r.tables[0].total, 37)); /* the table is the same */
	blame_result_free(&r);
	CHECK(blame_compute_why(&d, &tf, NULL, pts, 1, BLAME_SAMPLES, "Other", 1, &r, &e) == 0);
	CHECK(r.tables[0].nwhy == 1 && r.tables[0].why_all == 1 && near(r.tables[0].why_total, 7));
	if (r.tables[0].nwhy == 1 && r.tables[0].why[0].nsteps == 3) {
		CHECK_EQ_STR(r.tables[0].why[0].steps[1], "no variable found");
		CHECK(near(r.tables[0].why[0].blame, 7)); /* both samples at main's line */
	}
	blame_result_free(&r);
	CHECK(blame_compute_why(&d, &tf, NULL, pts, 1, BLAME_SAMPLES, "Output", 0, &r, &e) == 0);
	CHECK(r.tables[0].nwhy == 1 && r.tables[0].why[0].nsteps == 3);
	if (r.tables[0].nwhy == 1 && r.tables[0].why[0].nsteps == 3)
		CHECK(!strncmp(r.tables[0].why[0].steps[1], "the output routine ", 19));
	blame_result_free(&r);

	/* metrics */
	CHECK(blame_compute(&d, &tf, NULL, 0, BLAME_TIME, &r, &e) == 0);
	CHECK(near(r.tables[0].total, 37000));
	CHECK_EQ_STR(r.unit, "ns");
	adds_up(&r);
	blame_result_free(&r);
	CHECK(blame_compute(&d, &tf, NULL, 0, BLAME_BYTES, &r, &e) == 0);
	CHECK(near(r.tables[0].total, 80)); /* one sample group inside an MPI call */
	g = var(&r.tables[0], "g");
	CHECK(g && near(g->total, 80));
	adds_up(&r);
	blame_result_free(&r);

	/* without transfer functions the MPI sample is not blamed by its buffer */
	CHECK(blame_compute(&d, NULL, NULL, 0, BLAME_SAMPLES, &r, &e) == 0);
	g = var(&r.tables[0], "g");
	CHECK(g && near(g->rank[1], 0));
	adds_up(&r);
	blame_result_free(&r);

	/* a point no sample has: an empty table */
	const char *none[] = { "nowhere" };
	CHECK(blame_compute(&d, &tf, none, 1, BLAME_SAMPLES, &r, &e) == 0);
	CHECK(near(r.tables[0].total, 0));
	blame_result_free(&r);

	/* two runs: the faulty one's rank 1 spends more in the broadcast */
	dt_blame_data d2;
	make(&d2);
	d2.samp[3].weight = 60;
	blame_result ra, rb;
	CHECK(blame_compute(&d, &tf, NULL, 0, BLAME_SAMPLES, &ra, &e) == 0);
	CHECK(blame_compute(&d2, &tf, NULL, 0, BLAME_SAMPLES, &rb, &e) == 0);
	blame_change *ch;
	size_t n;
	blame_diff(&ra, &ra.tables[0], &rb, &rb.tables[0], 1, &ch, &n);
	CHECK_EQ_INT(n, 2); /* one per rank */
	if (n == 2) {
		CHECK(ch[0].rank == 0 && ch[1].rank == 1);
		CHECK_EQ_STR(ch[1].name, "g");
		CHECK(near(ch[1].a, 6) && near(ch[1].b, 60));
		CHECK(ch[1].pb > ch[1].pa);
	}
	free(ch);
	blame_result_free(&ra);
	blame_result_free(&rb);
	dt_blame_data_free(&d2);

	/* damaged data: refused with an error, never read past */
	d.samp[0].path = 99;
	CHECK(blame_compute(&d, &tf, NULL, 0, BLAME_SAMPLES, &r, &e) == -1);
	CHECK(strstr(e.msg, "damaged") != NULL);
	d.samp[0].path = P_DOT;
	dt_err_clear(&e);
	d.scanv[1] = 40;
	CHECK(blame_compute(&d, &tf, NULL, 0, BLAME_SAMPLES, &r, &e) == -1);
	d.scanv[1] = C_T;
	dt_err_clear(&e);
	d.samp[3].c0 = 40;
	CHECK(blame_compute(&d, &tf, NULL, 0, BLAME_SAMPLES, &r, &e) == -1);
	transfer_free(&tf);
	dt_blame_data_free(&d);
}

static void test_output(void)
{
	CHECK(blame_is_output("write"));
	CHECK(blame_is_output("__printf_chk"));
	CHECK(blame_is_output("_IO_fwrite"));
	CHECK(blame_is_output("__GI___libc_write"));
	CHECK(blame_is_output("MPI_File_write_at"));
	CHECK(blame_is_output("PMPI_File_read"));
	CHECK(!blame_is_output("writer"));
	CHECK(!blame_is_output("main"));
	CHECK(!blame_is_output(""));
}

/* Local variables (DT_BC_STACK): visible while their function runs at or above the point (and
 * in another thread's samples at main), never a library's; named by their name at their function's point and function::name at others;
 * two functions' locals of one name are two rows. */
static void test_stack(void)
{
	enum { S_MAIN, S_CG, S_DOT, S_LIB };
	enum { V_MAIN, TMP_CG, V_CG, BUF_LIB };
	static const char *const fn[] = { "main", "cg", "dot", "libfn" };
	dt_blame_data d;
	memset(&d, 0, sizeof d);
	for (int i = 0; i < 4; i++) {
		grow((void **)&d.locs, &d.caplocs, d.nlocs + 1, sizeof *d.locs);
		d.locs[d.nlocs++] = (dt_bloc){ xstrdup(fn[i]), xstrdup(i < 3 ? "/src/app.c" : ""),
					       i < 3 ? 20 + i : 0, xstrdup(i < 3 ? "app" : "libc.so"),
					       i < 3, 0 };
	}
	add_path(&d, (int32_t[]){ S_MAIN }, 1); /* the sites: the declaring function */
	add_path(&d, (int32_t[]){ S_CG }, 1);
	add_path(&d, (int32_t[]){ S_DOT }, 1);
	add_path(&d, (int32_t[]){ S_LIB }, 1);
	add_path(&d, (int32_t[]){ S_DOT, S_CG, S_MAIN }, 3); /* 4: the samples' stack */
	add_path(&d, (int32_t[]){ S_DOT, S_CG }, 2);         /* 5: another thread's */
	add_cont(&d, DT_BC_STACK, "v", "double[8]", S_MAIN);
	add_cont(&d, DT_BC_STACK, "tmp", "struct t", S_CG);
	add_cont(&d, DT_BC_STACK, "v", "double[4]", S_CG);
	add_cont(&d, DT_BC_STACK, "buf", "char[64]", S_LIB);
	add_scan(&d, (int32_t[]){ 0, TMP_CG, 2, V_MAIN }, 4); /* 0: dot's registers: cg's tmp */
	add_scan(&d, (int32_t[]){ 0, BUF_LIB }, 2);           /* 1: a library's local */
	add_scan(&d, (int32_t[]){ 0, V_CG, 0, V_MAIN }, 4);   /* 2: both v */
	d.proc = xcalloc(1, sizeof *d.proc);
	d.capproc = d.nproc = 1;
	d.proc[0] = (dt_bproc){ 0, 100, 0, 1, 1000000, xstrdup("cpu-time"), xstrdup("app") };
	add_samp(&d, 0, 4, 0, 0, -1, 10);
	add_samp(&d, 0, 4, 1, 0, -1, 3);
	add_samp(&d, 0, 4, 2, 0, -1, 4);
	add_samp(&d, 0, 5, 0, 0, -1, 6); /* another thread: main is not on its stack */
	d.samp[3].tid = 101;
	blame_result r;
	dt_err e;
	dt_err_clear(&e);
	const char *pts[] = { "main", "cg", "dot" };
	CHECK(blame_compute(&d, NULL, pts, 3, BLAME_SAMPLES, &r, &e) == 0);
	adds_up(&r);
	if (r.ntables == 3) {
		/* main: cg's locals are temporaries below it, passed out to main's v; the other
		 * thread's cg's tmp stays, named cg::tmp */
		const blame_table *t = &r.tables[0];
		CHECK(var(t, "v") && near(var(t, "v")->total, 14));
		CHECK(var(t, "v") && !strcmp(var(t, "v")->type, "double[8]"));
		CHECK(var(t, "v") && var(t, "v")->ckind == DT_BC_STACK);
		CHECK(var(t, "cg::tmp") && near(var(t, "cg::tmp")->total, 6));
		CHECK(!var(t, "tmp") && !var(t, "cg::v"));
		CHECK(var(t, "Other") && near(var(t, "Other")->total, 3));
		/* cg: its own by name, main's as main::v, the two v apart */
		t = &r.tables[1];
		CHECK(var(t, "tmp") && near(var(t, "tmp")->total, 16));
		CHECK(var(t, "v") && near(var(t, "v")->total, 2));
		CHECK(var(t, "v") && !strcmp(var(t, "v")->type, "double[4]"));
		CHECK(var(t, "main::v") && near(var(t, "main::v")->total, 2));
		CHECK(var(t, "Other") && near(var(t, "Other")->total, 3));
		/* dot: the callers' locals by function::name */
		t = &r.tables[2];
		CHECK(var(t, "cg::tmp") && near(var(t, "cg::tmp")->total, 16));
		CHECK(!var(t, "libfn::buf") && !var(t, "buf"));
	}
	blame_result_free(&r);
	dt_blame_data_free(&d);
}

static void add_loc(dt_blame_data *d, const char *func, const char *module, int prog)
{
	grow((void **)&d->locs, &d->caplocs, d->nlocs + 1, sizeof *d->locs);
	d->locs[d->nlocs++] = (dt_bloc){ xstrdup(func), xstrdup(prog ? "/src/app.c" : ""),
					 prog ? 10 + (int32_t)d->nlocs : 0, xstrdup(module), prog, 0 };
}

/* The OpenMP runtime's own blocks (made under GOMP_parallel called from main) are not the
 * program's; uftrace's own samples (a stack through libmcount, and the loader's in the same
 * process) are left out of the tables and counted beside main's. */
static void test_runtime(void)
{
	dt_blame_data d;
	memset(&d, 0, sizeof d);
	add_loc(&d, "main", "app", 1);                        /* 0 */
	add_loc(&d, "GOMP_parallel", "libgomp.so.1.0.0", 0);  /* 1 */
	add_loc(&d, "0x1234", "libgomp.so.1.0.0", 0);         /* 2 */
	add_loc(&d, "work", "app", 1);                        /* 3 */
	add_loc(&d, "0x99", "libmcount.so", 0);               /* 4 */
	add_loc(&d, "_dl_runtime_resolve_xsavec", "ld-linux-x86-64.so.2", 0); /* 5 */
	add_path(&d, (int32_t[]){ 3, 0 }, 2);                 /* 0: work < main */
	add_path(&d, (int32_t[]){ 2, 1, 0 }, 3);              /* 1: the team's allocation */
	add_path(&d, (int32_t[]){ 0 }, 1);                    /* 2: the block's allocation */
	add_path(&d, (int32_t[]){ 4, 3, 0 }, 3);              /* 3: inside libmcount */
	add_path(&d, (int32_t[]){ 5 }, 1);                    /* 4: the loader */
	add_cont(&d, DT_BC_HEAP, NULL, NULL, 1);              /* 0: the runtime's team */
	add_cont(&d, DT_BC_HEAP, NULL, NULL, 2);              /* 1: the program's block */
	add_scan(&d, (int32_t[]){ 2, 0 }, 2);                 /* 0: the team, from main's frame */
	add_scan(&d, (int32_t[]){ 2, 1 }, 2);                 /* 1: the block */
	d.proc = xcalloc(1, sizeof *d.proc);
	d.capproc = d.nproc = 1;
	d.proc[0] = (dt_bproc){ 0, 100, 0, 1, 1000000, xstrdup("cpu-time"), xstrdup("app") };
	add_samp(&d, 0, 0, 0, 0, -1, 6);  /* a pointer into the team only: Other */
	add_samp(&d, 0, 0, 1, 0, -1, 10); /* the block */
	blame_result r;
	dt_err e;
	dt_err_clear(&e);
	CHECK(blame_compute(&d, NULL, NULL, 0, BLAME_SAMPLES, &r, &e) == 0);
	const blame_table *t = &r.tables[0];
	CHECK_EQ_INT(t->nvars, 3); /* the block, Other, Output: no row for the team */
	CHECK(near(var(t, "Other")->total, 6));
	CHECK(near(t->total, 16));
	CHECK(near(t->tracer, 0));
	blame_result_free(&r);
	/* uftrace's: 3 ticks in libmcount, 4 in the loader of the same process */
	add_samp(&d, 0, 3, 1, 0, -1, 3);
	add_samp(&d, 0, 4, -1, 0, -1, 4);
	CHECK(blame_compute(&d, NULL, NULL, 0, BLAME_SAMPLES, &r, &e) == 0);
	t = &r.tables[0];
	CHECK(near(t->total, 16));
	CHECK(near(t->tracer, 7));
	adds_up(&r);
	blame_result_free(&r);
	/* without a sample in libmcount, the loader's time is the program's */
	d.nsamp = 3;
	d.samp[2] = d.samp[3];
	CHECK(blame_compute(&d, NULL, NULL, 0, BLAME_SAMPLES, &r, &e) == 0);
	CHECK(near(r.tables[0].total, 20));
	CHECK(near(r.tables[0].tracer, 0));
	blame_result_free(&r);
	dt_blame_data_free(&d);
}

/* A heap block allocated by a call still running below the point is not the point's, whatever
 * frames the two paths have beyond it: the sample's stack and the allocation's are aligned on
 * the point's function (its outermost occurrence), not counted from their outer ends; a
 * sample of the main thread whose stack stops before main (deeper than the frames kept) does
 * not say which calls of main run, and takes none of the blocks main's callees made. */
static void test_alignment(void)
{
	dt_blame_data d;
	memset(&d, 0, sizeof d);
	add_loc(&d, "main", "app", 1);                          /* 0 */
	add_loc(&d, "solve", "app", 1);                         /* 1 */
	add_loc(&d, "cg", "app", 1);                            /* 2 */
	add_loc(&d, "MPI_Allgather", "libmpi.so.40", 0);        /* 3 */
	add_loc(&d, "opal_progress", "libopen-pal.so.40", 0);   /* 4 */
	add_loc(&d, "__libc_start_main", "libc.so.6", 0);       /* 5 */
	add_loc(&d, "_start", "app", 1);                        /* 6 */
	add_loc(&d, "setup", "app", 1);                         /* 7 */
	add_loc(&d, "problem_new", "app", 1);                   /* 8 */
	add_loc(&d, "0x7f00", "libopen-pal.so.40", 0);          /* 9: a frame past main */
	for (size_t i = 0; i < d.nlocs; i++)
		d.locs[i].line = 100 + (int32_t)i;
	add_path(&d, (int32_t[]){ 4, 3, 2, 1, 0, 5, 6 }, 7);    /* 0: in the gather, to _start */
	add_path(&d, (int32_t[]){ 2, 1, 0 }, 3);                /* 1: pall, allocated by cg */
	add_path(&d, (int32_t[]){ 8, 7, 0, 5, 6 }, 5);          /* 2: x, by problem_new */
	add_path(&d, (int32_t[]){ 4, 4, 3 }, 3);                /* 3: cut short in the gather */
	add_path(&d, (int32_t[]){ 4, 3, 2, 1, 0, 9 }, 6);       /* 4: a junk frame past main */
	add_path(&d, (int32_t[]){ 2, 1, 0, 5, 6 }, 5);          /* 5: p, allocated by cg */
	add_path(&d, (int32_t[]){ 0, 5, 6 }, 3);                /* 6: w, allocated by main */
	add_cont(&d, DT_BC_HEAP, NULL, NULL, 1);                /* 0: pall */
	add_cont(&d, DT_BC_HEAP, NULL, NULL, 2);                /* 1: x */
	add_cont(&d, DT_BC_HEAP, NULL, NULL, 5);                /* 2: p */
	add_cont(&d, DT_BC_GLOBAL, "g", "int", -1);             /* 3: g */
	add_cont(&d, DT_BC_HEAP, NULL, NULL, 6);                /* 4: w */
	/* the gather's frames point into pall (and p), cg's into them too, main's into x */
	add_scan(&d, (int32_t[]){ 0, 0, 4, 0, 8, 1 }, 6);       /* 0 */
	add_scan(&d, (int32_t[]){ 0, 2, 4, 2, 8, 1 }, 6);       /* 1: p for pall */
	add_scan(&d, (int32_t[]){ 0, 0, 0, 1, 2, 3, 2, 4 }, 8); /* 2: cut: pall, x; then g, w */
	d.proc = xcalloc(1, sizeof *d.proc);
	d.capproc = d.nproc = 1;
	d.proc[0] = (dt_bproc){ 0, 100, 0, 1, 1000000, xstrdup("cpu-time"), xstrdup("app") };
	add_samp(&d, 0, 0, 0, 0, -1, 8);  /* outer frames only on the sample's stack */
	add_samp(&d, 0, 4, 1, 0, -1, 4);  /* outer frames only on the allocation's, a junk one on
					   * the sample's */
	add_samp(&d, 0, 3, 2, 0, -1, 6);  /* the main thread's stack cut short */
	add_samp(&d, 0, 3, 2, 0, -1, 5);  /* the same stack in another thread */
	d.samp[3].tid = 101;
	blame_result r;
	dt_err e;
	dt_err_clear(&e);
	const char *pts[] = { "main", "cg" };
	CHECK(blame_compute(&d, NULL, pts, 2, BLAME_SAMPLES, &r, &e) == 0);
	adds_up(&r);
	const blame_table *t = &r.tables[0];
	const char *pall = "app.c:102 (cg)", *x = "app.c:108 (problem_new)", *w = "app.c:100 (main)";
	CHECK(near(t->total, 23));
	/* at main: cg's temporaries (pall, p) pass their blame on to x, which main's frame
	 * points into; the other thread's sample runs no call of main: its frames' first
	 * containers (pall and x) share it */
	CHECK(var(t, x) && near(var(t, x)->total, 8 + 4 + 2.5));
	CHECK(var(t, pall) && near(var(t, pall)->total, 2.5));
	/* the cut stack: neither cg's pall nor problem_new's x (made by calls of main that may
	 * or may not run), but what the frames further out point to: g and main's own w */
	CHECK(var(t, "g") && near(var(t, "g")->total, 3));
	CHECK(var(t, w) && near(var(t, w)->total, 3));
	/* at cg, its temporaries are its variables */
	t = &r.tables[1];
	CHECK(var(t, pall) && near(var(t, pall)->total, 8 + 4));
	CHECK(near(t->total, 12));
	blame_result_free(&r);
	dt_blame_data_free(&d);
}

int main(void)
{
	test_alignment();
	test_runtime();
	test_tables();
	test_output();
	test_stack();
	return check_failures ? 1 : 0;
}
