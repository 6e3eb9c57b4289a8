/* sync_omp.c: the libgomp wrappers of libdifftrace-sync.so: parallel regions, barriers,
 * critical sections and locks. Included by sync.c (one translation unit). */
/* ---- OpenMP (libgomp) ----------------------------------------------------------------------- */

/* libgomp's entry points have no public header */
void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags);
void GOMP_barrier(void);
void GOMP_critical_start(void);
void GOMP_critical_end(void);
void GOMP_critical_name_start(void **pptr);
void GOMP_critical_name_end(void **pptr);

struct region {
	void (*fn)(void *);
	void *data;
	uint64_t instance;
	int32_t team; /* the team's size, as its thread 0 saw it: the join's record carries it */
};

/* What every thread of the team runs: its part of the region, between two records. */
static void region_body(void *p)
{
	struct region *rg = p;
	__typeof__(R) outer = R;
	R.region = (uint64_t)(uintptr_t)rg->fn;
	R.instance = rg->instance;
	R.team = g.num_threads ? g.num_threads() : -1;
	R.tnum = g.thread_num ? g.thread_num() : -1;
	dts_record r;
	/* its site: the region's function (+ 1: a site is read as a return address) */
	rec_init_at(&r, DTS_GOMP_parallel_body, (uint64_t)(uintptr_t)rg->fn + 1);
	r.obj = R.region;
	r.objseq = R.instance;
	r.team = R.team;
	r.tnum = R.tnum;
	if (R.tnum == 0)
		rg->team = R.team;
	emit(&r, 0);
	rg->fn(rg->data);
	emit(&r, 1);
	/* the thread may run another region next (a pool thread), or the enclosing one again */
	R = outer;
}

void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags)
{
	if (!g.parallel)
		missing("GOMP_parallel");
	if (!g.enabled) {
		g.parallel(fn, data, num_threads, flags);
		return;
	}
	struct region rg = { fn, data, atomic_fetch_add(&g.next_region, 1), -1 };
	dts_record r;
	rec_init(&r, DTS_GOMP_parallel);
	r.obj = (uint64_t)(uintptr_t)fn;
	r.objseq = rg.instance;
	r.team = num_threads ? (int32_t)num_threads : -1; /* 0: the default, decided inside */
	r.tnum = R.team ? R.tnum : 0;
	emit(&r, 0);
	g.parallel(region_body, &rg, num_threads, flags);
	r.team = rg.team;
	emit(&r, 1);
}

void GOMP_barrier(void)
{
	if (!g.barrier)
		missing("GOMP_barrier");
	dts_record r;
	rec_init(&r, DTS_GOMP_barrier);
	r.obj = R.region;
	r.objseq = R.instance;
	r.team = R.team ? R.team : -1;
	r.tnum = R.tnum;
	emit(&r, 0);
	g.barrier();
	emit(&r, 1);
}

/* An acquire: entry, the real call, exit with the acquisition's number. */
#define ACQUIRE(call, key, realcall)                     \
	dts_record r;                                    \
	rec_init(&r, DTS_##call);                        \
	r.obj = key;                                     \
	r.tnum = R.team ? R.tnum : 0;                                 \
	emit(&r, 0);                                     \
	realcall;                                        \
	if (g.enabled)                                   \
		r.objseq = obj_acquired(r.obj);          \
	emit(&r, 1)

#define RELEASE(call, key, realcall)                     \
	dts_record r;                                    \
	rec_init(&r, DTS_##call);                        \
	r.obj = key;                                     \
	r.tnum = R.team ? R.tnum : 0;                                 \
	if (g.enabled)                                   \
		r.objseq = obj_releasing(r.obj);         \
	emit(&r, 0);                                     \
	realcall;                                        \
	emit(&r, 1)

void GOMP_critical_start(void)
{
	if (!g.critical_start)
		missing("GOMP_critical_start");
	ACQUIRE(GOMP_critical_start, DTS_UNNAMED_CRITICAL, g.critical_start());
}

void GOMP_critical_end(void)
{
	if (!g.critical_end)
		missing("GOMP_critical_end");
	RELEASE(GOMP_critical_end, DTS_UNNAMED_CRITICAL, g.critical_end());
}

void GOMP_critical_name_start(void **pptr)
{
	if (!g.critical_name_start)
		missing("GOMP_critical_name_start");
	ACQUIRE(GOMP_critical_name_start, (uint64_t)(uintptr_t)pptr, g.critical_name_start(pptr));
}

void GOMP_critical_name_end(void **pptr)
{
	if (!g.critical_name_end)
		missing("GOMP_critical_name_end");
	RELEASE(GOMP_critical_name_end, (uint64_t)(uintptr_t)pptr, g.critical_name_end(pptr));
}

void omp_set_lock(omp_lock_t *lock)
{
	if (!g.set_lock)
		missing("omp_set_lock");
	ACQUIRE(omp_set_lock, (uint64_t)(uintptr_t)lock, g.set_lock(lock));
}

void omp_unset_lock(omp_lock_t *lock)
{
	if (!g.unset_lock)
		missing("omp_unset_lock");
	RELEASE(omp_unset_lock, (uint64_t)(uintptr_t)lock, g.unset_lock(lock));
}

void omp_set_nest_lock(omp_nest_lock_t *lock)
{
	if (!g.set_nest_lock)
		missing("omp_set_nest_lock");
	ACQUIRE(omp_set_nest_lock, (uint64_t)(uintptr_t)lock, g.set_nest_lock(lock));
}

void omp_unset_nest_lock(omp_nest_lock_t *lock)
{
	if (!g.unset_nest_lock)
		missing("omp_unset_nest_lock");
	RELEASE(omp_unset_nest_lock, (uint64_t)(uintptr_t)lock, g.unset_nest_lock(lock));
}
