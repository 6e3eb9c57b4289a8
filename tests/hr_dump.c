/* hr_dump.c: every field of the comparison of a hung run with a normal one (hangrank.h), a
 * thread a line, for tests/hang_stream.sh to compare the streamed comparison (hr_build) with
 * the one of both records loaded whole (hr_build_whole, with --whole).
 * Usage: hr_dump STORE NORMAL FAULTY [--whole] */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analysis/hangrank.h"
#include "store/store.h"

static void event(const char *key, const dt_sync_event *v)
{
	long long f[] = { v->proc,     v->thread, v->seq,     v->phase,	  v->func,  v->ts,
			  v->host,     v->comm,	  v->dest,    v->stag,	  v->src,   v->rtag,
			  v->root,     v->count,  v->datatype, v->op,	  (long long)v->req,
			  (long long)v->obj, (long long)v->objseq, v->team, v->tnum, v->csize,
			  v->site,     v->disp,	  v->rassert, v->lock,	  (long long)v->digest };
	printf(" %s=", key);
	for (size_t i = 0; i < sizeof f / sizeof *f; i++)
		printf("%s%lld", i ? "," : "", f[i]);
}

int main(int argc, char **argv)
{
	if (argc < 4 || argc > 5 || (argc == 5 && strcmp(argv[4], "--whole"))) {
		fprintf(stderr, "usage: hr_dump STORE NORMAL FAULTY [--whole]\n");
		return 2;
	}
	dt_err e;
	dt_err_clear(&e);
	store *s = NULL;
	store_run rn = { 0 }, rf = { 0 };
	hr_info h = { 0 };
	int rc = 1;
	if (store_open(argv[1], STORE_OPEN_READ, &s, &e) || store_run_get(s, argv[2], &rn, &e) ||
	    store_run_get(s, argv[3], &rf, &e) ||
	    (argc == 5 ? hr_build_whole(s, rn.id, rf.id, &h, &e)
		       : hr_build(s, rn.id, rf.id, &h, &e))) {
		fprintf(stderr, "hr_dump: %s\n", e.msg);
		goto out;
	}
	printf("%zu threads\n", h.n);
	for (size_t k = 0; k < h.n; k++) {
		const hr_thread *t = &h.t[k];
		printf("%" PRId32 ".%" PRId32 " cmp=%d at=%" PRIu64 " nn=%" PRIu64 " nf=%" PRIu64
		       " waiters=%zu waits=%d state=%d func=%" PRIu32 " occurrence=%" PRIu64
		       " where=%s",
		       t->proc, t->thread, t->cmp, t->at, t->nn, t->nf, t->waiters, t->waits,
		       t->state, t->func, t->occurrence, t->where);
		event("en", &t->en);
		event("ef", &t->ef);
		putchar('\n');
	}
	rc = 0;
out:
	hr_free(&h);
	store_run_free(&rf);
	store_run_free(&rn);
	store_close(s);
	return rc;
}
