/* test_rules.c: the rule-file language: the shipped rules load and bind, events are instances of
 * the right kinds, and every kind of mistake is reported as FILE:LINE:COL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "order/rules.h"
#include "synth_sync.h"

/* Parses text as file "t.rules" and returns the one-line error ("" when it parsed). */
static const char *parse_err(const char *text)
{
	static char buf[1024];
	ord_rules *r = ord_rules_new();
	dt_err e;
	dt_err_clear(&e);
	buf[0] = 0;
	if (ord_rules_parse(r, text, strlen(text), "t.rules", &e))
		dt_err_format(&e, buf, sizeof buf);
	ord_rules_free(r);
	return buf;
}

#define EXPECT_ERR(text, want)                                                                    \
	do {                                                                                      \
		const char *got_ = parse_err(text);                                               \
		if (!strstr(got_, want)) {                                                        \
			fprintf(stderr, "%s:%d: for rule text:\n%s\nexpected an error containing \"%s\", got \"%s\"\n", \
				__FILE__, __LINE__, text, want, got_);                            \
			check_failures++;                                                         \
		}                                                                                 \
	} while (0)

static const char *const base = "event S(comm, proc, dest) on enter /^MPI_Send$/;\n";

static void errors(void)
{
	EXPECT_ERR("event S(comm) on enter /MPI_Send/;\nrule S(c, n) <- T(c, n);\n",
		   "t.rules:2:17: unknown event kind 'T'");
	EXPECT_ERR("event S(comm, bogus) on enter /x/;\n", "t.rules:1:15: unknown field 'bogus'");
	EXPECT_ERR("event S(comm) on enter /x(/;\n", "t.rules:1:");
	EXPECT_ERR("event S(comm) on enter /x(/;\n", "missing closing parenthesis");
	EXPECT_ERR("event S(comm) on start /x/;\n", "t.rules:1:18: expected enter, exit or done, found 'start'");
	EXPECT_ERR("event S(comm) on enter /x/;\nrule S(c) <- true;\n",
		   "t.rules:2:9: S has 2 parameters (its key and n), found 1");
	EXPECT_ERR("event S(comm) on enter /x/;\nrule S(c, n) <- S(c);\n", "t.rules:2:20: S takes 2 values (its key and n), found 1");
	EXPECT_ERR("event S(comm) on enter /x/;\nrule S(c, n) <- S(c, _);\n",
		   "t.rules:2:22: '_' only in a count");
	EXPECT_ERR("event S(comm) on enter /x/;\nrule S(c, n) <- c + 1;\n",
		   "t.rules:2:19: a number where a condition is needed");
	EXPECT_ERR("event S(comm) on enter /x/;\nrule S(c, n) <- S(c, n - 1)\n", "t.rules:3:1: expected '&&', '||' or ';', found 'end of file'");
	EXPECT_ERR("event S(comm) on enter /x/;\nrule S(c, n) <- S(c, n - 1) & true;\n",
		   "t.rules:2:29: unexpected character '&'");
	EXPECT_ERR("event S(comm) on enter /x/ if S(comm, 1);\n", "t.rules:1:31: an `if` reads the event's own fields only");
	EXPECT_ERR("event S(comm);\n", "t.rules:1:1: event kind 'S' has no `on` clause");
	EXPECT_ERR("event S(comm) on enter /x/;\nevent S(proc) on enter /y/;\n", "t.rules:2:7: event kind 'S' is already declared");
	EXPECT_ERR("event S(comm) on enter /x/;\ninitial S(_, _);\n", "t.rules:2:15: the n of an initial fact must be a number");
	EXPECT_ERR("policy fastest;\n", "t.rules:1:8: unknown policy 'fastest'");
	EXPECT_ERR("bogus S;\n", "t.rules:1:1: expected event, rule, initial, policy, start, end or fork, found 'bogus'");
	EXPECT_ERR("start S;\n", "t.rules:1:7: unknown event kind 'S'");
	EXPECT_ERR("event S(comm) on enter /x/;\nend S within S extra;\n", "t.rules:2:16: expected ';', found 'extra'");
	EXPECT_ERR("event S(comm) on enter /x/;\nfork S team - 1;\n", "t.rules:2:8: expected `starts` and a number");
	EXPECT_ERR("event S(comm) on enter /x/;\nfork S starts (team == 1);\n",
		   "t.rules:2:21: a fork starts a number of threads, not a condition");
	EXPECT_ERR("event S(comm) on enter /x/;\nfork S starts S(comm, 1);\n",
		   "t.rules:2:15: a fork's number reads the event's own fields only");
	EXPECT_ERR("event S(comm) on enter /x/;\nfork T starts 1;\n", "t.rules:2:6: unknown event kind 'T'");
	EXPECT_ERR("event S(comm) on enter /x/;\nstart S within T;\n", "t.rules:2:16: unknown event kind 'T'");
	EXPECT_ERR("event S(comm) on exit /^MPI_Wait$/ via /^MPI_Irecv$/;\nend S;\n",
		   "t.rules:2:5: kind 'S' matches through `via`");
	EXPECT_ERR("event S(comm) on enter /x\n", "t.rules:1:24: unterminated /pattern/");
	EXPECT_ERR("event S(comm) on enter /x/ seq nothing;\n", "t.rules:1:32: expected `count`");
	EXPECT_ERR("event S(comm) on enter /x/;\nrule S(c, n) <- zz == 1;\n", "t.rules:2:17: unknown name 'zz'");
	EXPECT_ERR("event S(comm) on enter /x/;\nrule S(c, n) <- \x01;\n", "t.rules:2:17: unexpected character '\\x01'");
	/* and a correct file parses */
	char ok[512];
	snprintf(ok, sizeof ok,
		 "%s# a comment\nevent R(comm, src, proc) seq count on exit /^MPI_Recv$/ if src >= 0;\n"
		 "initial S(_, _, _, 0);\npolicy concurrent;\n"
		 "rule R(c, s, d, n) <- S(c, s, d, n) && !(n < 0) || #S(c, _, d, n) >= 2;\n", base);
	CHECK_EQ_STR(parse_err(ok), "");
}

static void shipped(void)
{
	ord_rules *r = ord_rules_new();
	dt_err e;
	dt_err_clear(&e);
	if (ord_rules_load_default(r, &e)) {
		char b[1024];
		dt_err_format(&e, b, sizeof b);
		fprintf(stderr, "loading the shipped rules (DIFFTRACE_RULES_PATH=%s) failed: %s\n",
			getenv("DIFFTRACE_RULES_PATH") ? getenv("DIFFTRACE_RULES_PATH") : "", b);
		check_failures++;
		ord_rules_free(r);
		return;
	}
	CHECK(r->nfiles >= 3);
	CHECK_EQ_INT(ord_rules_bind(r, synth_names, SY_NFUNC, &e), 0);
	ord_inst in[8];
	dt_sync_event ev = synth_tmpl();
	/* a send's entry is a SEND of (comm, proc, dest, stag) */
	ev.proc = 2, ev.func = SY_SEND, ev.phase = DT_SYNC_ENTER, ev.comm = 0, ev.dest = 3, ev.stag = 9;
	int n = ord_instances(r, &ev, UINT32_MAX, in, 8);
	CHECK_EQ_INT(n, 1);
	CHECK_EQ_STR(r->kind[in[0].kind].name, "SEND");
	CHECK_EQ_INT(in[0].t[0], 0);
	CHECK_EQ_INT(in[0].t[1], 2);
	CHECK_EQ_INT(in[0].t[2], 3);
	CHECK_EQ_INT(in[0].t[3], 9);
	/* a send to MPI_PROC_NULL is none */
	ev.dest = DT_SYNC_PROC_NULL;
	CHECK_EQ_INT(ord_instances(r, &ev, UINT32_MAX, in, 8), 0);
	/* a Wait's exit is a RECV only through an Irecv's request */
	ev = synth_tmpl();
	ev.proc = 1, ev.func = SY_WAIT, ev.phase = DT_SYNC_EXIT, ev.req = 5, ev.src = 0, ev.rtag = 1;
	CHECK_EQ_INT(ord_instances(r, &ev, UINT32_MAX, in, 8), 0);
	CHECK_EQ_INT(ord_instances(r, &ev, SY_ISEND, in, 8), 0);
	CHECK_EQ_INT(ord_instances(r, &ev, SY_IRECV, in, 8), 1);
	/* a Bcast's exit: COLL_OUT and ONE_OUT, sharing n */
	ev = synth_tmpl();
	ev.func = SY_BCAST, ev.phase = DT_SYNC_EXIT, ev.comm = 0;
	n = ord_instances(r, &ev, UINT32_MAX, in, 8);
	CHECK_EQ_INT(n, 2);
	if (n == 2) {
		CHECK_EQ_STR(r->kind[in[0].kind].name, "COLL_OUT");
		CHECK_EQ_STR(r->kind[in[1].kind].name, "ONE_OUT");
	}
	ord_rules_free(r);
}

/* A rule whose condition is `pre` n times, then `mid`, then `post` n times, as its second line. */
static char *nested(const char *pre, const char *mid, const char *post, int n)
{
	const char *head = "event S(comm) on enter /x/;\nrule S(c, n) <- ";
	size_t len = strlen(head) + (strlen(pre) + strlen(post)) * (size_t)n + strlen(mid) + 4;
	char *t = malloc(len), *o = t;
	o += sprintf(o, "%s", head);
	for (int i = 0; i < n; i++)
		o += sprintf(o, "%s", pre);
	o += sprintf(o, "%s", mid);
	for (int i = 0; i < n; i++)
		o += sprintf(o, "%s", post);
	sprintf(o, ";\n");
	return t;
}

/* Issue 19 item 3: conditions nested 100,000 deep (parentheses, `!`, `-`, a chain of `+ 1`, an
 * `&&` chain) are refused with FILE:LINE:COL instead of overflowing the parser's or the
 * evaluators' stack; nesting within the bound still parses. */
static void depth(void)
{
	static const char *const msg = "nested more than 1000 deep";
	char *t = nested("(", "true", ")", 100000);
	/* the 1001st parenthesis opens at column 17 + 1000 of line 2 */
	EXPECT_ERR(t, "t.rules:2:1017: condition nested more than 1000 deep");
	free(t);
	t = nested("!", "true", "", 100000);
	EXPECT_ERR(t, msg);
	free(t);
	t = nested("-", "1", "", 100000);
	char *u = malloc(strlen(t) + 16);
	/* the `-` chain as the left side of a comparison */
	snprintf(u, strlen(t) + 16, "%s", t);
	char *semi = strrchr(u, ';');
	sprintf(semi, " == 1;\n");
	EXPECT_ERR(u, msg);
	free(u);
	free(t);
	t = nested("", "c == 0", " + 1", 100000);
	EXPECT_ERR(t, "t.rules:2:");
	EXPECT_ERR(t, msg);
	free(t);
	t = nested("", "true", " && true", 100000);
	EXPECT_ERR(t, msg);
	free(t);
	t = nested("", "true", " || true", 100000);
	EXPECT_ERR(t, msg);
	free(t);
	t = nested("", "S(c, n", " + 1", 100000);
	char *e = strrchr(t, ';');
	sprintf(e, ");\n");
	EXPECT_ERR(t, msg);
	free(t);
	/* within the bound */
	t = nested("(", "c == 0", ")", 900);
	CHECK_EQ_STR(parse_err(t), "");
	free(t);
	t = nested("", "c == 0", " + 1", 900);
	CHECK_EQ_STR(parse_err(t), "");
	free(t);
	/* a kind's `if` clauses, 100,000 of them, make an `&&` chain */
	size_t len = 100000 * 16 + 64;
	t = malloc(len);
	char *o = t + sprintf(t, "event S(comm) on enter /x/");
	for (int i = 0; i < 100000; i++)
		o += sprintf(o, " if comm >= 0");
	sprintf(o, ";\n");
	EXPECT_ERR(t, msg);
	free(t);
}

/* The statements of a thread's life in the shipped rules: a region's master part announces its
 * workers (`fork`), a worker's part starts it, MPI_Finalize's exit ends a rank's MPI life with
 * the MPI calls as the scope of what is ignored after it; a `fork` with no `start` to count the
 * threads it announces is refused. */
static void lives(void)
{
	ord_rules *r = ord_rules_new();
	dt_err e;
	dt_err_clear(&e);
	const char *t = "event S(proc) on enter /^MPI_Send$/;\nfork S starts 2;\n";
	CHECK_EQ_INT(ord_rules_parse(r, t, strlen(t), "t.rules", &e), 0);
	CHECK(ord_rules_bind(r, synth_names, SY_NFUNC, &e) != 0);
	CHECK(strstr(e.msg, "t.rules:2: `fork S` announces threads that start, but the rule set has "
			    "no `start` statement") != NULL);
	ord_rules_free(r);
	r = ord_rules_new();
	dt_err_clear(&e);
	const char *names[SY_NFUNC + 1];
	memcpy(names, synth_names, sizeof synth_names);
	names[SY_NFUNC] = "MPI_Finalize";
	if (ord_rules_load_default(r, &e) || ord_rules_bind(r, names, SY_NFUNC + 1, &e)) {
		fprintf(stderr, "loading the shipped rules failed: %s\n", e.msg);
		check_failures++;
		ord_rules_free(r);
		return;
	}
	dt_sync_event ev = synth_tmpl();
	ev.func = SY_TASK, ev.phase = DT_SYNC_ENTER, ev.obj = 0x100, ev.objseq = 1, ev.team = 4;
	ev.tnum = 0;
	CHECK_EQ_INT(ord_thread_mark(r, &ev), ORD_TM_FORK);
	CHECK_EQ_INT(ord_thread_forks(r, &ev), 3);
	ev.team = -1; /* not known: none announced */
	CHECK_EQ_INT(ord_thread_forks(r, &ev), 0);
	ev.tnum = 2;
	CHECK_EQ_INT(ord_thread_mark(r, &ev), ORD_TM_START | ORD_TM_SCOPE);
	ev = synth_tmpl();
	ev.func = SY_NFUNC, ev.phase = DT_SYNC_EXIT;
	CHECK_EQ_INT(ord_thread_mark(r, &ev), ORD_TM_END);
	int scope = ord_thread_end_scope(r, &ev);
	CHECK(scope >= 0);
	if (scope >= 0) {
		CHECK_EQ_STR(r->kind[scope].name, "MPI_CALL");
		ev.func = SY_SEND, ev.phase = DT_SYNC_ENTER, ev.dest = 1, ev.stag = 3;
		CHECK(ord_is_instance(r, &ev, scope));
		/* a scope only: not among the kinds of an order */
		ord_inst in[8];
		CHECK_EQ_INT(ord_instances(r, &ev, UINT32_MAX, in, 8), 1);
		ev.func = SY_CRIT_START;
		CHECK(!ord_is_instance(r, &ev, scope));
	}
	ord_rules_free(r);
}

int main(void)
{
	errors();
	depth();
	shipped();
	lives();
	CHECK_DONE();
}
