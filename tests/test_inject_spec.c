/* test_inject_spec.c: the fault specification of libdifftrace-inject, good and bad. */
#include "check.h"
#include "spec.h"

/* A bad TEXT is refused at LINE:COL with a message containing WANT. */
static void bad(const char *text, int line, int col, const char *want)
{
	struct spec s;
	struct spec_error e;
	if (spec_parse(text, &s, &e) == 0) {
		fprintf(stderr, "accepted: %s\n", text);
		check_failures++;
		return;
	}
	if (e.line != line || e.col != col || !strstr(e.msg, want)) {
		fprintf(stderr, "%s: got %d:%d '%s', want %d:%d '%s'\n", text, e.line, e.col,
			e.msg, line, col, want);
		check_failures++;
	}
}

static const struct spec *good(const char *text)
{
	static struct spec s;
	struct spec_error e;
	if (spec_parse(text, &s, &e)) {
		fprintf(stderr, "refused: %s: %d:%d %s\n", text, e.line, e.col, e.msg);
		check_failures++;
		s.n = 0;
	}
	return &s;
}

int main(void)
{
	const struct spec *s = good("");
	CHECK_EQ_INT(s->n, 0);
	s = good("  ;\n # nothing\n;");
	CHECK_EQ_INT(s->n, 0);

	s = good("allreduce:call=3:ranks=1:op=MPI_MAX");
	CHECK_EQ_INT(s->n, 1);
	const struct spec_fault *f = &s->f[0];
	CHECK_EQ_INT(f->kind, SPEC_ALLREDUCE);
	CHECK_EQ_INT(f->fn, SPEC_FN_ALLREDUCE);
	CHECK_EQ_INT(f->set, SPEC_SET_OP);
	CHECK_EQ_INT(f->op, SPEC_OP_MAX);
	CHECK(spec_in(&f->calls, 3) && !spec_in(&f->calls, 2) && !spec_in(&f->calls, 4));
	CHECK(spec_in(&f->ranks, 1) && !spec_in(&f->ranks, 0));
	CHECK(spec_in(&f->threads, 0) && spec_in(&f->threads, 77)); /* every thread */
	CHECK_EQ_STR(spec_op_name(f->op), "MPI_MAX");
	CHECK_EQ_STR(spec_fn_name(f->fn), "MPI_Allreduce");

	s = good("allreduce:call=2:count=2; bcast:call=1:ranks=0-1:root=1 ;send:call=4:ranks=2:drop");
	CHECK_EQ_INT(s->n, 3);
	CHECK_EQ_INT(s->f[0].count, 2);
	CHECK(!s->f[0].count_rel);
	CHECK_EQ_INT(s->f[1].root, 1);
	CHECK(spec_in(&s->f[1].ranks, 0) && spec_in(&s->f[1].ranks, 1) &&
	      !spec_in(&s->f[1].ranks, 2));
	CHECK_EQ_INT(s->f[1].col, 27);
	CHECK(s->f[2].drop && s->f[2].set == 0);

	s = good("reduce:count=-1:type=double:op=sum\nrecv:source=any:tag=any:count=+3");
	CHECK_EQ_INT(s->n, 2);
	CHECK(s->f[0].count_rel && s->f[0].count == -1);
	CHECK_EQ_INT(s->f[0].type, SPEC_TYPE_DOUBLE);
	CHECK_EQ_INT(s->f[0].op, SPEC_OP_SUM);
	CHECK_EQ_INT(s->f[1].source, SPEC_ANY);
	CHECK_EQ_INT(s->f[1].tag, SPEC_ANY);
	CHECK(s->f[1].count_rel && s->f[1].count == 3);
	CHECK_EQ_INT(s->f[1].line, 2);

	s = good("critical:ranks=2:threads=1,3-;lock:rank=0;send:dest=3:tag=9");
	CHECK_EQ_INT(s->n, 3);
	CHECK_EQ_INT(s->f[0].fn, SPEC_FN_CRITICAL_START);
	CHECK(spec_in(&s->f[0].threads, 1) && !spec_in(&s->f[0].threads, 2) &&
	      spec_in(&s->f[0].threads, 1000));
	CHECK_EQ_INT(s->f[1].fn, SPEC_FN_SET_LOCK);
	CHECK_EQ_INT(s->f[2].dest, 3);
	CHECK_EQ_INT(s->f[2].set, SPEC_SET_DEST | SPEC_SET_TAG);

	s = good("spin:func=MPI_Barrier:call=5:ranks=3 # hang rank 3\nspin:func=omp_set_lock:busy");
	CHECK_EQ_INT(s->n, 2);
	CHECK_EQ_INT(s->f[0].kind, SPEC_SPIN);
	CHECK_EQ_INT(s->f[0].fn, SPEC_FN_BARRIER);
	CHECK(spec_in(&s->f[0].calls, 5) && !spec_in(&s->f[0].calls, 6));
	CHECK_EQ_INT(s->f[1].fn, SPEC_FN_SET_LOCK);
	CHECK(s->f[1].busy);

	s = good("ISEND:CALL=2-:DATATYPE=MPI_BYTE");
	CHECK_EQ_INT(s->f[0].kind, SPEC_ISEND);
	CHECK(!spec_in(&s->f[0].calls, 1) && spec_in(&s->f[0].calls, 1000000));

	/* bad ones: where, and what */
	bad("alreduce:op=MPI_MAX", 1, 1, "unknown fault 'alreduce'");
	bad("allreduce:call=2:op=MPI_MAXX", 1, 21, "unknown operation 'MPI_MAXX'");
	bad("allreduce:call=2", 1, 17, "nothing to change");
	bad("allreduce:call=0:op=max", 1, 16, "counted from 1");
	bad("allreduce:call=x:op=max", 1, 16, "not a number");
	bad("allreduce:call=5-2:op=max", 1, 16, "empty");
	bad("allreduce:call=1,:op=max", 1, 17, "comma ends");
	bad("allreduce:root=1", 1, 11, "allreduce does not take root");
	bad("allreduce:op=max:op=min", 1, 18, "op given twice");
	bad("allreduce:count=two", 1, 17, "count= wants a number");
	bad("allreduce:op", 1, 13, "op needs a value");
	bad("allreduce:op=", 1, 14, "op= needs a value");
	bad("allreduce::op=max", 1, 11, "empty item");
	bad("allreduce:colour=red", 1, 11, "unknown key 'colour'");
	bad("allreduce:type=MPI_QUAD", 1, 16, "unknown datatype");
	bad("send:drop=1", 1, 10, "drop takes no value");
	bad("send:drop:dest=1", 1, 1, "drop cannot be combined");
	bad("recv:drop", 1, 6, "recv does not take drop");
	bad("send:dest=any", 1, 11, "dest= wants a number");
	bad("critical:op=max", 1, 10, "critical does not take op");
	bad("spin:call=3", 1, 12, "spin needs func=NAME");
	bad("spin:func=MPI_Wait", 1, 11, "not a function the library intercepts");
	bad("allreduce:op=max;\n  bcast:rot=1", 2, 9, "unknown key 'rot'");
	bad("bcast:ranks=0-:root=1;bcast:ranks=99999999999:root=1", 1, 35, "not a number");

	char many[2000] = "";
	for (int i = 0; i <= SPEC_MAX_FAULTS; i++)
		strcat(many, "barrier:drop;");
	bad(many, 1, 13 * SPEC_MAX_FAULTS + 1, "more than 32 faults");
	CHECK_DONE();
}
