/* test_filter.c: filter families and filters: the .filter format and each kind of error (with
 * file:line:col), every shipped family against names it must and must not keep, combinations,
 * the paper's 16-character string and folder aliases both ways, the keep table (each event at
 * most once, or the prototype's duplicates on request), returns kept only for kept calls,
 * streaming in blocks against one pass and against a plain reference, and the search path
 * with user directories overriding shipped families. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "analysis/filter.h"
#include "import/sink.h"

static char shipped[4096];

static filt_lib *lib_shipped(void)
{
	dt_err e;
	dt_err_clear(&e);
	filt_lib *l = filt_lib_new();
	if (filt_lib_load_dir(l, shipped, &e)) {
		char m[1400];
		dt_err_format(&e, m, sizeof m);
		fprintf(stderr, "loading %s: %s\n", shipped, m);
		check_failures++;
	}
	return l;
}

static filt *parse_ok(const filt_lib *l, const char *text)
{
	dt_err e;
	dt_err_clear(&e);
	filt *f = NULL;
	if (filt_parse(l, text, &f, &e)) {
		fprintf(stderr, "filter '%s': %s\n", text, e.msg);
		check_failures++;
	}
	return f;
}

/* copies of a call of `name` the filter keeps (-1 on error) */
static int keeps(const filt *f, const char *name)
{
	dt_err e;
	dt_err_clear(&e);
	filt_why w;
	if (!f || filt_explain(f, name, &w, &e))
		return -1;
	return w.copies;
}

/* ---- the file format ----------------------------------------------------------------------- */

static void test_parse_good(void)
{
	const char *text = "# a family\r\n"
			   "\n"
			   "name: solver\r\n"
			   "  description:   the solver's own functions  \n"
			   "token: sol\n"
			   "bit: 14\n"
			   "\t# comments may be indented\n"
			   "kind: keep\n"
			   "include: ^solve_\n"
			   "include:\t(?i)precond\n"
			   "exclude: _debug$\n";
	dt_err e;
	dt_err_clear(&e);
	filt_lib *l = filt_lib_new();
	CHECK(filt_lib_parse(l, text, strlen(text), "solver.filter", &e) == 0);
	CHECK_EQ_INT(filt_lib_count(l), 1);
	const filt_family *f = filt_lib_family(l, 0);
	CHECK_EQ_STR(f->name, "solver");
	CHECK_EQ_STR(f->desc, "the solver's own functions");
	CHECK_EQ_STR(f->token, "sol");
	CHECK_EQ_INT(f->bit, 14);
	CHECK_EQ_INT(f->kind, FILT_KEEP);
	CHECK_EQ_INT(f->returns, 0);
	CHECK_EQ_INT(f->ninc, 2);
	CHECK_EQ_INT(f->nexc, 1);
	CHECK_EQ_STR(f->inc[0].text, "^solve_");
	CHECK_EQ_STR(f->inc[1].text, "(?i)precond");
	CHECK_EQ_INT(f->inc[1].line, 10);
	CHECK_EQ_INT(f->inc[1].col, 10);
	CHECK_EQ_STR(f->exc[0].text, "_debug$");
	CHECK_EQ_STR(f->file, "solver.filter");
	CHECK_EQ_INT(f->line, 3);
	CHECK_EQ_INT(filt_lib_find(l, "solver"), 0);
	CHECK_EQ_INT(filt_lib_find(l, "sol"), -1);

	filt *x = parse_ok(l, "solver");
	CHECK_EQ_INT(keeps(x, "solve_poisson"), 1);
	CHECK_EQ_INT(keeps(x, "my_PreCond_apply"), 1);
	CHECK_EQ_INT(keeps(x, "solve_poisson_debug"), 0); /* the exclude pattern */
	CHECK_EQ_INT(keeps(x, "main"), 0);
	filt_free(x);
	filt_lib_free(l);
}

struct bad {
	const char *text;
	const char *want; /* the formatted error, "bad.filter:L:C: ..." (a prefix of it) */
};

static void test_parse_errors(void)
{
	static const struct bad bad[] = {
		{ "name: x\ndescription: d\ninclude: ^MPI_(\n",
		  "bad.filter:3:16: missing closing parenthesis" },
		{ "name: x\ndescription: d\ninclude: a\nexclude: [z-a]\n",
		  "bad.filter:4:13: range out of order in character class" },
		{ "name: x\nfoo: bar\n", "bad.filter:2:1: unknown key 'foo'" },
		{ "name: x\ndescription d\n", "bad.filter:2:13: expected 'KEY: VALUE'" },
		{ "name: x\n: d\n", "bad.filter:2:1: expected 'KEY: VALUE'" },
		{ "name: x\ninclude:   \n", "bad.filter:2:9: 'include:' needs a value" },
		{ "name: 9x\n", "bad.filter:1:7: a name is a letter" },
		{ "name: mp.i\n", "bad.filter:1:9: a name is a letter" },
		{ "name: x\ndescription: d\ntoken: a,b\n", "bad.filter:3:9: a token is a letter" },
		{ "name: x\ndescription: d\nbit: 16\n", "bad.filter:3:6: a bit is a number" },
		{ "name: x\ndescription: d\nbit: 1x\n", "bad.filter:3:7: a bit is a number" },
		{ "name: x\ndescription: d\nbit: 3\nbit: 4\n", "bad.filter:4:1: a second 'bit:'" },
		{ "name: x\ndescription: d\nbit: 0\ninclude: a\n", "bad.filter:3:1: bits 0 and 1" },
		{ "name: x\ndescription: d\nbit: 5\nkind: remove\n",
		  "bad.filter:3:1: a 'kind: remove' family can only have bit 0 or 1" },
		{ "name: x\ndescription: d\nbit: 15\ntoken: x\n",
		  "bad.filter:4:1: bits 0, 1 and 15" },
		{ "name: x\ndescription: d\nkind: maybe\n", "bad.filter:3:7: kind is 'keep' or" },
		{ "name: x\ndescription: d\nreturns: yes\ninclude: a\n",
		  "bad.filter:3:1: a 'returns: yes' family" },
		{ "name: x\ndescription: d\nreturns: 1\n", "bad.filter:3:10: returns is 'yes'" },
		{ "name: a\ndescription: d\nname: b\n", "bad.filter:3:1: one family per file" },
		{ "name: a\ndescription: d\ndescription: e\n",
		  "bad.filter:3:1: a second 'description:'" },
		{ "description: d\nname: a\n",
		  "bad.filter:1:1: the first line must be 'name: NAME'" },
		{ "# nothing here\n\n", "bad.filter: no 'name:' line" },
		{ "name: x\n", "bad.filter:1:1: family 'x' has no 'description:' line" },
		{ "name: x\ndescription: d\ninclude: a\0b\n", "bad.filter:3:11: NUL byte" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		dt_err e;
		dt_err_clear(&e);
		filt_lib *l = filt_lib_new();
		size_t len = strlen(bad[i].text);
		if (strstr(bad[i].want, "NUL"))
			len += 2; /* the text goes on after the NUL */
		CHECK(filt_lib_parse(l, bad[i].text, len, "bad.filter", &e) == -1);
		CHECK_EQ_INT(e.status, DT_EDATA);
		char m[1400];
		dt_err_format(&e, m, sizeof m);
		if (strncmp(m, bad[i].want, strlen(bad[i].want))) {
			fprintf(stderr, "case %zu: got \"%s\", want \"%s...\"\n", i, m,
				bad[i].want);
			check_failures++;
		}
		CHECK_EQ_INT(filt_lib_count(l), 0); /* nothing half-added */
		filt_lib_free(l);
	}
}

/* ---- the shipped families ------------------------------------------------------------------ */

struct family_case {
	const char *family;
	const char *yes[32];
	const char *no[16];
};

static const struct family_case cases[] = {
	{ "dotplt", { ".plt" }, { "printf@plt", "x.plt", ".plt.got" } },
	{ "plt", { "printf@plt", "MPI_Send@plt" }, { "MPI_Send", ".plt", "pltfoo" } },
	{ "memory",
	  { "memcpy", "__memcpy_avx_unaligned", "memset", "memmove", "malloc", "calloc", "realloc",
	    "free", "__libc_free", "cfree", "posix_memalign", "aligned_alloc", "mmap", "munmap",
	    "_Znwm", "_ZdlPv", "operator new", "MPI_Alloc_mem", "memcpy@plt", "free@plt",
	    "bzero" },
	  { "printf", "freeaddrinfo", "strlen", "MPI_Send", "frees", "compute", "fread" } },
	{ "network",
	  { "socket", "connect", "send", "recv", "recvfrom", "sendmsg@plt",
	    "mca_btl_tcp_endpoint_send", "tcp_connect", "ibv_post_send", "ucp_tag_send_nb",
	    "fi_send", "getaddrinfo", "htonl",
	    "accept4", "setsockopt", "socketpair" },
	  { "sched_getcpu", "MPI_Send", "MPI_Recv", "sendfile", "printf", "resend" } },
	{ "poll",
	  { "poll", "epoll_wait", "ppoll", "select", "pselect", "sched_yield", "pthread_yield",
	    "nanosleep", "usleep", "mca_btl_vader_poll_handle_frag", "sched_getaffinity" },
	  { "MPI_Send", "compute", "selection", "sleeper", "MPI_Wait" } },
	{ "string",
	  { "strlen", "strcpy", "__strlen_avx2", "strcmp@plt", "strncpy", "strdup", "strtok_r",
	    "strtol", "wcslen", "stpcpy", "__GI_strlen", "strstr", "strerror",
	    "std::__cxx11::basic_string<char>::append" },
	  { "MPI_Type_create_struct", "pthread_mutex_destroy", "opal_stream_open", "compute",
	    "restrict", "destroy" } },
	{ "mpi",
	  { "MPI_Send", "MPI_Allreduce", "MPI_Init", "MPI_Comm_rank", "mpi_send_", "MPI_Wtime" },
	  { "PMPI_Send", "ompi_mpi_init", "MPIR_Allreduce_intra", "my_MPI_wrapper", "mpi_helper",
	    "GOMP_parallel" } },
	{ "mpiall",
	  { "MPI_Send", "PMPI_Send", "MPIR_Allreduce_intra", "MPID_Progress_wait",
	    "ompi_coll_base_allreduce_intra_recursivedoubling", "opal_progress", "mca_pml_ob1_send",
	    "pmix_server_init", "PMIx_Init", "mpi_send_", "MPIDI_CH3I_Progress", "orte_init" },
	  { "GOMP_parallel", "compute", "printf", "ompi", "omp_get_thread_num" } },
	{ "mpicol",
	  { "MPI_Allreduce", "MPI_Reduce", "MPI_Reduce_scatter", "MPI_Reduce_scatter_block",
	    "MPI_Iallreduce", "MPI_Allgather", "MPI_Allgatherv", "MPI_Gather", "MPI_Igather",
	    "MPI_Alltoall", "MPI_Alltoallv", "MPI_Ialltoall", "MPI_Bcast", "MPI_Ibcast",
	    "MPI_Barrier", "MPI_Ibarrier", "MPI_Scatter", "MPI_Scatterv", "MPI_Iscatter",
	    "MPI_Scan", "MPI_Exscan", "MPI_Neighbor_allgather", "mpi_allreduce_",
	    "MPI_ALLREDUCE", "MPI_Allreduce_init", "MPI_Ineighbor_alltoall" },
	  { "MPI_Send", "MPI_Recv", "MPI_Wait", "PMPI_Allreduce", "ompi_coll_base_allreduce_intra",
	    "MPI_Comm_rank", "MPI_Init", "MPI_Op_create" } },
	{ "mpisr",
	  { "MPI_Send", "MPI_Isend", "MPI_Ssend", "MPI_Issend", "MPI_Bsend", "MPI_Rsend",
	    "MPI_Irsend", "MPI_Recv", "MPI_Irecv", "MPI_Mrecv", "MPI_Sendrecv",
	    "MPI_Sendrecv_replace", "MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome",
	    "MPI_Test", "MPI_Testall", "MPI_Probe", "MPI_Iprobe", "MPI_Send_init", "MPI_Start",
	    "mpi_send_", "mpi_waitall_", "MPI_Startall" },
	  { "MPI_Allreduce", "MPI_Bcast", "MPI_Test_cancelled", "MPI_Barrier", "mca_pml_ob1_send",
	    "PMPI_Send", "MPI_Comm_rank", "send" } },
	{ "ompcrit",
	  { "GOMP_critical_start", "GOMP_critical_end", "GOMP_critical_name_start",
	    "__kmpc_critical", "__kmpc_end_critical", "__kmpc_critical_with_hint" },
	  { "GOMP_parallel", "omp_set_lock", "GOMP_barrier", "MPI_Send" } },
	{ "ompmutex",
	  { "omp_set_lock", "omp_unset_lock", "omp_set_nest_lock", "omp_test_lock",
	    "pthread_mutex_lock", "pthread_mutex_unlock", "pthread_spin_lock",
	    "pthread_rwlock_rdlock", "__kmpc_set_lock", "__lll_lock_wait", "std::mutex::lock",
	    "sem_wait", "futex_wait" },
	  { "clock_gettime", "MPI_Reduce_scatter_block", "GOMP_critical_start", "pthread_create",
	    "compute", "sock", "Block_init" } },
	{ "ompall",
	  { "GOMP_parallel", "GOMP_barrier", "GOMP_critical_start", "omp_get_thread_num",
	    "__kmpc_fork_call", "__kmp_invoke_microtask", "pthread_create", "compute._omp_fn.0",
	    "main._omp_fn.12", ".omp_outlined.", ".omp_outlined._debug__", "__omp_outlined__3",
	    "pthread_mutex_lock", "omp_set_lock", "gomp_team_start", "L_main_27__par_region0_2_0",
	    "__kmpc_critical", "GOMP_parallel_start", "omp_get_num_threads_" },
	  { "compute", "complex_mul", "ompi_mpi_init", "MPI_Send", "COMPUTE_FORCES",
	    "clock_gettime", "work" } },
	{ "custom",
	  { "CPU_Exec", "CPU_Init", "CPU_Output", "ilcs_CPU_Exec_wrapper" },
	  { "main", "CPU_Other", "cpu_exec" } },
	{ "everything", { "main", "printf", "x", "MPI_Send", "compute._omp_fn.0" }, { ".plt" } },
};

static void test_shipped(void)
{
	filt_lib *l = lib_shipped();
	static const char *const names[] = {
		"returns", "dotplt", "plt",     "memory",   "network", "poll",   "string", "mpi",
		"mpiall",  "mpicol", "mpisr",   "ompcrit",  "ompmutex", "ompall", "custom",
		"everything",
	};
	/* every bit of the paper's string has its family, in bit order */
	CHECK_EQ_INT(filt_lib_count(l), 16);
	for (int b = 0; b < FILT_NBITS; b++) {
		const filt_family *f = filt_lib_family(l, (size_t)b);
		CHECK(f && f->bit == b && !strcmp(f->name, names[b]));
		CHECK(f && f->desc && *f->desc);
		if (f && (b == 0 || b == 1))
			CHECK_EQ_INT(f->kind, FILT_REMOVE);
	}
	CHECK(filt_lib_family(l, 0)->returns);
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		filt *f = parse_ok(l, cases[c].family);
		for (size_t i = 0; cases[c].yes[i]; i++) {
			if (keeps(f, cases[c].yes[i]) != 1) {
				fprintf(stderr, "%s should keep %s\n", cases[c].family,
					cases[c].yes[i]);
				check_failures++;
			}
		}
		for (size_t i = 0; cases[c].no[i]; i++) {
			if (keeps(f, cases[c].no[i]) != 0) {
				fprintf(stderr, "%s should drop %s\n", cases[c].family,
					cases[c].no[i]);
				check_failures++;
			}
		}
		filt_free(f);
	}
	/* `everything` with dotplt chosen keeps .plt too (the paper's bit 1 = 0) */
	filt *f = parse_ok(l, "everything,dotplt");
	CHECK_EQ_INT(keeps(f, ".plt"), 1);
	filt_free(f);
	filt_lib_free(l);
}

/* ---- combinations, strings and aliases ----------------------------------------------------- */

static void test_combinations(void)
{
	filt_lib *l = lib_shipped();
	dt_err e;
	dt_err_clear(&e);
	filt *f = parse_ok(l, "mpi, ompcrit ,custom");
	CHECK_EQ_STR(filt_canonical(f), "custom,mpi,ompcrit");
	CHECK_EQ_STR(filt_alias(f), "11.mpi.ompcrit.cust.0");
	char bits[FILT_NBITS + 1];
	CHECK(filt_bits(f, bits, &e) == 0);
	CHECK_EQ_STR(bits, "1100000100010010");
	CHECK_EQ_INT(filt_keeps_returns(f), 0);
	CHECK_EQ_INT(keeps(f, "MPI_Send"), 1);
	CHECK_EQ_INT(keeps(f, "GOMP_critical_start"), 1);
	CHECK_EQ_INT(keeps(f, "CPU_Init"), 1);
	CHECK_EQ_INT(keeps(f, "omp_set_lock"), 0);
	CHECK(filt_chosen(f, (size_t)filt_lib_find(l, "mpi")));
	CHECK(!filt_chosen(f, (size_t)filt_lib_find(l, "mpicol")));
	/* the same combination in another order or form is the same filter */
	filt *g = parse_ok(l, "custom,ompcrit,mpi,mpi");
	CHECK_EQ_STR(filt_canonical(g), filt_canonical(f));
	CHECK(filt_digest(g) == filt_digest(f));
	filt_free(g);
	g = parse_ok(l, "1100000100010010");
	CHECK_EQ_STR(filt_canonical(g), "custom,mpi,ompcrit");
	filt_free(g);
	/* compatibility mode is another cache key */
	g = parse_ok(l, "mpi,ompcrit,custom");
	filt_compat_duplicates(g, 1);
	CHECK_EQ_STR(filt_canonical(g), "custom,mpi,ompcrit+compat");
	CHECK(filt_digest(g) != filt_digest(f));
	filt_free(g);
	filt_free(f);

	/* an unknown name is a command-line error that lists the known families */
	dt_err_clear(&e);
	f = NULL;
	CHECK(filt_parse(l, "mpi,mpicoll", &f, &e) == -1 && !f);
	CHECK_EQ_INT(e.status, DT_EUSAGE);
	CHECK(strstr(e.msg, "'mpicoll'") && strstr(e.msg, "mpicol,") && strstr(e.msg, "returns"));
	dt_err_clear(&e);
	CHECK(filt_parse(l, "11.mpi.bogus.0", &f, &e) == -1);
	CHECK(strstr(e.msg, "token 'bogus'") != NULL);
	dt_err_clear(&e);
	CHECK(filt_parse(l, "11.mpi", &f, &e) == -1);
	CHECK(strstr(e.msg, "is not like") != NULL);
	dt_err_clear(&e);
	CHECK(filt_parse(l, "11.mpi.0K10x", &f, &e) == -1);
	CHECK(strstr(e.msg, "unexpected 'x'") != NULL);
	dt_err_clear(&e);
	CHECK(filt_from_bits(l, "110000010000001", &f, &e) == -1); /* 15 characters */
	CHECK_EQ_INT(e.status, DT_EUSAGE);
	/* a filter must keep something */
	dt_err_clear(&e);
	CHECK(filt_parse(l, "returns", &f, &e) == -1);
	CHECK(strstr(e.msg, "chooses no family that keeps calls") != NULL);
	dt_err_clear(&e);
	CHECK(filt_parse(l, "1100000000000000", &f, &e) == -1);
	dt_err_clear(&e);
	CHECK(filt_parse(l, "", &f, &e) == -1);
	filt_lib_free(l);
}

static void test_paper_aliases(void)
{
	filt_lib *l = lib_shipped();
	static const struct {
		const char *alias, *bits, *canon;
		int returns;
	} ex[] = {
		{ "11.mpi.cust.0", "1100000100000010", "custom,mpi", 0 },
		{ "01.plt.mem.cust.0", "0111000000000010", "custom,memory,plt,returns", 1 },
		{ "11.mem.ompcrit.cust.0", "1101000000010010", "custom,memory,ompcrit", 0 },
		{ "11.1", "1100000000000001", "everything", 0 },
		{ "00.1", "0000000000000001", "dotplt,everything,returns", 1 },
		{ "11.plt.mem.net.pol.str.mpi.mpiall.mpicol.mpisr.ompcrit.ompmutex.ompall.cust.0",
		  "1111111111111110",
		  "custom,memory,mpi,mpiall,mpicol,mpisr,network,ompall,ompcrit,ompmutex,plt,poll,"
		  "string",
		  0 },
	};
	for (size_t i = 0; i < sizeof ex / sizeof *ex; i++) {
		dt_err e;
		dt_err_clear(&e);
		filt *a = NULL, *b = NULL;
		int k = 99;
		CHECK(filt_from_alias(l, ex[i].alias, &a, &k, &e) == 0);
		CHECK_EQ_INT(k, -1);
		CHECK(filt_from_bits(l, ex[i].bits, &b, &e) == 0);
		if (!a || !b) {
			fprintf(stderr, "%s: %s\n", ex[i].alias, e.msg);
			check_failures++;
			filt_free(a);
			filt_free(b);
			continue;
		}
		char bits[FILT_NBITS + 1];
		CHECK(filt_bits(a, bits, &e) == 0);
		CHECK_EQ_STR(bits, ex[i].bits);
		CHECK_EQ_STR(filt_alias(b), ex[i].alias);
		CHECK_EQ_STR(filt_alias(a), ex[i].alias);
		CHECK_EQ_STR(filt_canonical(a), ex[i].canon);
		CHECK_EQ_STR(filt_canonical(b), ex[i].canon);
		CHECK_EQ_INT(filt_keeps_returns(a), ex[i].returns);
		filt_free(a);
		filt_free(b);
	}
	/* the analysis appends K<n>: accepted on input */
	dt_err e;
	dt_err_clear(&e);
	filt *f = NULL;
	int k = 0;
	CHECK(filt_from_alias(l, "11.mpi.cust.0K10", &f, &k, &e) == 0);
	CHECK_EQ_INT(k, 10);
	CHECK(f && !strcmp(filt_canonical(f), "custom,mpi"));
	filt_free(f);
	/* names are accepted in place of tokens */
	f = parse_ok(l, "11.memory.custom.0");
	CHECK(f && !strcmp(filt_alias(f), "11.mem.cust.0"));
	filt_free(f);
	filt_lib_free(l);
}

/* ---- the keep table and its application ----------------------------------------------------- */

/* The plain definition the fast loop must agree with. */
static size_t reference(const filt_table *t, const uint32_t *in, size_t n, uint32_t *out,
			uint8_t **stack, size_t *depth, size_t *cap)
{
	size_t j = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t v = in[i];
		if (v == DT_RET) {
			if (!t->keep_returns || *depth == 0)
				continue;
			if ((*stack)[--*depth])
				out[j++] = v;
			continue;
		}
		int k = v < t->n ? t->keep[v] : 0;
		if (t->keep_returns) {
			if (*depth == *cap)
				*stack = realloc(*stack, *cap = *cap * 2 + 16);
			(*stack)[(*depth)++] = (uint8_t)k;
		}
		if (k)
			out[j++] = v;
	}
	return j;
}

static const char *const fnames[] = {
	NULL, "main", "MPI_Init", "work", "MPI_Send", "pthread_mutex_lock", ".plt",
	"GOMP_critical_start", NULL, "compute._omp_fn.0", "printf@plt", "MPI_Allreduce",
};
enum { NF = sizeof fnames / sizeof *fnames };

static filt_table table(const filt_lib *l, const char *text, int compat)
{
	filt_table t;
	memset(&t, 0, sizeof t);
	filt *f = parse_ok(l, text);
	if (!f)
		return t;
	filt_compat_duplicates(f, compat);
	dt_err e;
	dt_err_clear(&e);
	CHECK(filt_table_build(f, fnames, NF, &t, &e) == 0);
	filt_free(f);
	return t;
}

static size_t run(const filt_table *t, const uint32_t *in, size_t n, uint32_t *out)
{
	filt_stream s;
	filt_stream_init(&s, t);
	size_t r = filt_stream_apply(&s, in, n, out);
	filt_stream_free(&s);
	return r;
}

static void test_once(void)
{
	filt_lib *l = lib_shipped();
	/* pthread_mutex_lock matches three ompall patterns (pthread, lock, mutex): kept once */
	filt_table t = table(l, "ompall", 0);
	CHECK_EQ_INT(t.keep[5], 1);
	CHECK_EQ_INT(t.keep[7], 1);
	CHECK_EQ_INT(t.keep[9], 1);
	CHECK_EQ_INT(t.keep[1], 0);
	CHECK_EQ_INT(t.keep[0], 0);
	CHECK_EQ_INT(t.keep[8], 0); /* an unused id */
	CHECK_EQ_INT(t.nkept, 3);
	CHECK_EQ_INT(t.max_copies, 1);
	uint32_t in[] = { 1, 5, 0, 7, 0, 9, 5, 0, 0, 0, 42 /* beyond the table */ };
	uint32_t out[64];
	size_t n = run(&t, in, sizeof in / sizeof *in, out);
	CHECK_EQ_INT(n, 4);
	CHECK(out[0] == 5 && out[1] == 7 && out[2] == 9 && out[3] == 5);
	filt_table_free(&t);

	/* the prototype's duplication, on request: once per matching pattern, once more for
	 * everything; returns ("[ret]") only through everything, and not nested */
	t = table(l, "ompall,ompmutex", 1);
	CHECK_EQ_INT(t.keep[5], 5); /* pthread, lock, mutex in ompall; lock, mutex in ompmutex */
	CHECK_EQ_INT(t.max_copies, 5);
	n = run(&t, in, 6, out);
	CHECK_EQ_INT(n, 5 + 2 + 1); /* GOMP_critical_start: GOMP_ and critical */
	filt_table_free(&t);
	t = table(l, "00.ompall.1", 1);
	CHECK_EQ_INT(t.keep[5], 4);
	CHECK_EQ_INT(t.keep[6], 1); /* .plt: everything only, dotplt adds no copy */
	CHECK_EQ_INT(t.ret_copies, 1);
	uint32_t in2[] = { 0, 5, 0 };
	n = run(&t, in2, 3, out);
	CHECK_EQ_INT(n, 6); /* the unmatched return too: the prototype did not nest */
	filt_table_free(&t);
	filt_lib_free(l);
}

static void test_returns(void)
{
	filt_lib *l = lib_shipped();
	/* ret main{ MPI_Init{} work{ MPI_Send{} } MPI_Send{ work{} } .plt{} */
	uint32_t in[] = { 0, 1, 2, 0, 3, 4, 0, 0, 4, 3, 0, 0, 6, 0 };
	size_t nin = sizeof in / sizeof *in;
	uint32_t out[64];
	filt_table t = table(l, "mpi,returns", 0);
	CHECK_EQ_INT(t.keep_returns, 1);
	filt_stream s;
	filt_stream_init(&s, &t);
	size_t n = filt_stream_apply(&s, in, nin, out);
	static const uint32_t want[] = { 2, 0, 4, 0, 4, 0 };
	CHECK_EQ_INT(n, 6);
	CHECK(n == 6 && !memcmp(out, want, sizeof want));
	CHECK_EQ_INT(s.unmatched, 1);
	CHECK_EQ_INT(filt_stream_depth(&s), 1); /* main is still open */
	filt_stream_free(&s);
	filt_table_free(&t);

	t = table(l, "mpi", 0);
	CHECK_EQ_INT(t.keep_returns, 0);
	n = run(&t, in, nin, out);
	static const uint32_t want2[] = { 2, 4, 4 };
	CHECK(n == 3 && !memcmp(out, want2, sizeof want2));
	filt_table_free(&t);

	/* everything with returns drops .plt and its return: the stream stays well nested */
	t = table(l, "01.1", 0);
	n = run(&t, in, nin, out);
	CHECK_EQ_INT(n, nin - 3);
	long d = 0;
	for (size_t i = 0; i < n; i++) {
		d += out[i] ? 1 : -1;
		CHECK(d >= 0);
		CHECK(out[i] != 6);
	}
	filt_table_free(&t);
	filt_lib_free(l);
}

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static void test_streaming(void)
{
	filt_lib *l = lib_shipped();
	enum { N = 60000 };
	uint32_t *in = malloc(N * sizeof *in), *one = malloc(5 * N * sizeof *in);
	uint32_t *blk = malloc(5 * N * sizeof *in), *ref = malloc(N * sizeof *in);
	/* random calls and returns, with ids past the table and unused ids, returns with no
	 * call, a deep recursion, and deep walks that go down and up irregularly (so the open
	 * calls' flags move between the register and memory in every way) */
	size_t n = 0;
	while (n < N) {
		uint32_t call = 1 + rnd(NF + 2);
		if (n > N / 3 && n < N / 3 + 4000)
			in[n] = n < N / 3 + 2000 ? call : 0;
		else if (n > N / 2 && n < N / 2 + 16000)
			in[n] = rnd(10) < (n < N / 2 + 8000 ? 4u : 6u) ? 0 : call;
		else
			in[n] = rnd(2) ? 0 : call;
		n++;
	}
	static const char *const filters[] = { "mpi,returns", "mpi", "everything,returns",
					       "ompall,ompcrit,returns", "11.plt.mpi.0",
					       "everything" };
	for (int compat = 0; compat < 2; compat++) {
		for (size_t fi = 0; fi < sizeof filters / sizeof *filters; fi++) {
			filt_table t = table(l, filters[fi], compat);
			size_t n1 = run(&t, in, N, one);
			filt_stream s;
			filt_stream_init(&s, &t);
			size_t nb = 0;
			for (size_t i = 0; i < N;) {
				size_t b = 1 + rnd(i % 7 ? 97 : 3000);
				if (b > N - i)
					b = N - i;
				nb += filt_stream_apply(&s, in + i, b, blk + nb);
				i += b;
			}
			filt_stream_free(&s);
			CHECK_EQ_INT(nb, n1);
			CHECK(nb == n1 && !memcmp(one, blk, n1 * sizeof *one));
			if (!compat) {
				uint8_t *st = NULL;
				size_t depth = 0, cap = 0;
				size_t nr = reference(&t, in, N, ref, &st, &depth, &cap);
				free(st);
				CHECK_EQ_INT(nr, n1);
				CHECK(nr == n1 && !memcmp(one, ref, n1 * sizeof *one));
				CHECK(n1 > 0 && n1 < N);
			}
			filt_table_free(&t);
		}
	}
	free(in);
	free(one);
	free(blk);
	free(ref);
	filt_lib_free(l);
}

/* ---- explanations, exclusions, digests ------------------------------------------------------ */

static void test_explain(void)
{
	filt_lib *l = lib_shipped();
	dt_err e;
	dt_err_clear(&e);
	filt *f = parse_ok(l, "mpicol,mpi");
	filt_why w;
	CHECK(filt_explain(f, "MPI_Allreduce", &w, &e) == 0);
	CHECK_EQ_INT(w.copies, 1);
	CHECK(w.fam && !strcmp(w.fam->name, "mpi")); /* bit 7 comes before bit 9 */
	CHECK(w.pat && !strcmp(w.pat->text, "^MPI_") && w.pat->line > 0);
	CHECK(filt_explain(f, "printf", &w, &e) == 0);
	CHECK(w.copies == 0 && !w.removed && !w.fam && !w.pat);
	CHECK(filt_explain(f, ".plt", &w, &e) == 0);
	filt_free(f);
	f = parse_ok(l, "everything");
	CHECK(filt_explain(f, ".plt", &w, &e) == 0);
	CHECK(w.copies == 0 && w.removed && w.fam && !strcmp(w.fam->name, "dotplt"));
	filt_free(f);

	/* exclude patterns apply to the whole filter: the union of the includes minus any
	 * exclude */
	const char *nodebug = "name: nodebug\ndescription: no debug helpers\nexclude: _debug$\n";
	CHECK(filt_lib_parse(l, nodebug, strlen(nodebug), "nodebug.filter", &e) == 0);
	f = parse_ok(l, "mpi,nodebug");
	CHECK_EQ_INT(keeps(f, "MPI_Send"), 1);
	CHECK_EQ_INT(keeps(f, "MPI_Send_debug"), 0);
	CHECK(filt_explain(f, "MPI_Send_debug", &w, &e) == 0);
	CHECK(w.removed && !strcmp(w.fam->name, "nodebug") && !strcmp(w.pat->text, "_debug$"));
	CHECK_EQ_STR(filt_alias(f), "11.mpi.nodebug.0");
	char bits[FILT_NBITS + 1];
	CHECK(filt_bits(f, bits, &e) == -1); /* no bit: the paper's string cannot say it */
	CHECK(strstr(e.msg, "'nodebug' has no bit") != NULL);
	filt_free(f);
	f = parse_ok(l, "mpi");
	CHECK_EQ_INT(keeps(f, "MPI_Send_debug"), 1);
	uint64_t d1 = filt_digest(f);
	filt_free(f);
	dt_err_clear(&e);
	CHECK(filt_parse(l, "nodebug", &f, &e) == -1);

	/* a match error (here a match limit) names the pattern's file and line */
	const char *slow = "name: slow\ndescription: d\ninclude: (*LIMIT_MATCH=20)^(a+)+$\n";
	CHECK(filt_lib_parse(l, slow, strlen(slow), "slow.filter", &e) == 0);
	f = parse_ok(l, "slow");
	dt_err_clear(&e);
	CHECK(filt_explain(f, "aaaaaaaaaaaaaaaaaaaaaaaaaaaab", &w, &e) == -1);
	CHECK(!strcmp(e.file, "slow.filter") && e.line == 3);
	filt_table t;
	const char *names[] = { NULL, "aaaaaaaaaaaaaaaaaaaaaaaaaaaab" };
	dt_err_clear(&e);
	CHECK(filt_table_build(f, names, 2, &t, &e) == -1);
	filt_free(f);
	filt_lib_free(l);

	/* the digest follows the patterns, the canonical name does not */
	l = lib_shipped();
	const char *mpi2 = "name: mpi\ndescription: d\ntoken: mpi\nbit: 7\ninclude: ^MPI_\n"
			   "include: ^PMPI_\n";
	CHECK(filt_lib_parse(l, mpi2, strlen(mpi2), "mpi2.filter", &e) == 0);
	f = parse_ok(l, "mpi");
	CHECK_EQ_STR(filt_canonical(f), "mpi");
	CHECK(filt_digest(f) != d1);
	CHECK_EQ_INT(keeps(f, "PMPI_Send"), 1);
	filt_free(f);
	filt_lib_free(l);
}

/* ---- where families come from --------------------------------------------------------------- */

static char tmp[] = "/tmp/dt-filter-XXXXXX";
static char made[32][4200];
static int nmade;

static const char *mkpath(const char *rel)
{
	snprintf(made[nmade], sizeof made[nmade], "%s/%s", tmp, rel);
	return made[nmade++];
}

static void put(const char *rel, const char *text)
{
	const char *p = mkpath(rel);
	FILE *fp = fopen(p, "w");
	CHECK(fp != NULL);
	if (fp) {
		fputs(text, fp);
		fclose(fp);
	}
}

static void dir(const char *rel)
{
	CHECK(mkdir(mkpath(rel), 0700) == 0);
}

static void test_search_path(void)
{
	if (!mkdtemp(tmp))
		SKIP("no temporary directory");
	dir("b");
	dir("c");
	dir("c/difftrace");
	dir("c/difftrace/filters");
	dir("bad");
	dir("dup");
	dir("move");
	put("b/custom.filter", "name: custom\ndescription: from b\ntoken: cust\nbit: 14\n"
			       "include: ^solve_\n");
	put("b/notafilter.txt", "this is not read");
	put("c/difftrace/filters/custom.filter",
	    "name: custom\ndescription: from c\ntoken: cust\nbit: 14\ninclude: ^precond_\n");
	put("c/difftrace/filters/mine.filter", "name: mine\ndescription: mine\ninclude: ^my_\n");
	put("explicit.filter", "name: custom\ndescription: explicit\ntoken: cust\nbit: 14\n"
			       "include: ^explicit_\n");
	put("bad/custom.filter", "name: custom\ndescription: from bad\ninclude: x\n");
	put("bad/mympi.filter", "name: mympi\ndescription: d\ntoken: mympi\nbit: 7\ninclude: x\n");
	put("dup/a.filter", "name: twice\ndescription: d\ninclude: x\n");
	put("dup/b.filter", "name: twice\ndescription: d\ninclude: y\n");
	/* a directory may take a bit away from a shipped family by overriding it by name, in any
	 * file order */
	put("move/aaa.filter", "name: aaa\ndescription: d\ntoken: aaa\nbit: 7\ninclude: ^MPI_\n");
	put("move/mpi.filter", "name: mpi\ndescription: d\ntoken: mpi\ninclude: ^MPI_\n");

	char path[9000], xdg[4200];
	snprintf(path, sizeof path, "%s::%s/b", shipped, tmp);
	snprintf(xdg, sizeof xdg, "%s/c", tmp);
	setenv("DIFFTRACE_FILTER_PATH", path, 1);
	setenv("XDG_CONFIG_HOME", xdg, 1);
	filt_dirs d;
	filt_dirs_default(&d);
	CHECK_EQ_INT(d.n, 4);
	if (d.n == 4) {
		CHECK(strstr(d.dir[0], "/filters") != NULL); /* PKGDATADIR/filters */
		CHECK_EQ_STR(d.dir[1], shipped);
		CHECK(!strcmp(d.dir[2] + strlen(tmp), "/b"));
		CHECK(!strcmp(d.dir[3] + strlen(tmp), "/c/difftrace/filters"));
	}
	filt_dirs_free(&d);

	dt_err e;
	dt_err_clear(&e);
	filt_lib *l = filt_lib_new();
	CHECK(filt_lib_load_default(l, &e) == 0);
	CHECK_EQ_INT(filt_lib_count(l), 17);
	int c = filt_lib_find(l, "custom");
	CHECK(c >= 0);
	const filt_family *cf = filt_lib_family(l, (size_t)c);
	CHECK_EQ_STR(cf->desc, "from c"); /* XDG overrides DIFFTRACE_FILTER_PATH */
	CHECK(strstr(cf->file, "/c/difftrace/filters/custom.filter") != NULL);
	filt *f = parse_ok(l, "11.cust.0");
	CHECK_EQ_INT(keeps(f, "precond_apply"), 1);
	CHECK_EQ_INT(keeps(f, "CPU_Exec"), 0);
	filt_free(f);
	CHECK(filt_lib_find(l, "mine") == 16); /* no bit: after the sixteen */
	CHECK(filt_lib_load_file(l, mkpath("explicit.filter"), &e) == 0);
	cf = filt_lib_family(l, (size_t)filt_lib_find(l, "custom"));
	CHECK_EQ_STR(cf->desc, "explicit"); /* --filter-file overrides everything */
	CHECK(filt_lib_load_file(l, mkpath("explicit.filter"), &e) == 0); /* again: fine */
	filt_lib_free(l);

	/* only DIFFTRACE_FILTER_PATH's b: its custom overrides the shipped one */
	unsetenv("XDG_CONFIG_HOME");
	setenv("HOME", tmp, 1);
	filt_dirs_default(&d);
	CHECK(d.n == 4 && strstr(d.dir[3], "/.config/difftrace/filters") != NULL);
	filt_dirs_free(&d);
	l = filt_lib_new();
	CHECK(filt_lib_load_default(l, &e) == 0);
	cf = filt_lib_family(l, (size_t)filt_lib_find(l, "custom"));
	CHECK_EQ_STR(cf->desc, "from b");
	filt_lib_free(l);
	setenv("XDG_CONFIG_HOME", "relative/dir", 1); /* ignored, as the XDG spec says */
	filt_dirs_default(&d);
	CHECK(d.n == 4 && strstr(d.dir[3], "/.config/difftrace/filters") != NULL);
	filt_dirs_free(&d);

	/* a bit or a token taken twice, a family defined twice in one directory */
	l = lib_shipped();
	const char *bit7 = "name: x\ndescription: d\nbit: 7\ninclude: x\n";
	dt_err_clear(&e);
	CHECK(filt_lib_parse(l, bit7, strlen(bit7), "x.filter", &e) == -1);
	CHECK(!strcmp(e.file, "x.filter") && e.line == 3 && strstr(e.msg, "bit 7"));
	put("tok.filter", "name: y\ndescription: d\ntoken: mem\ninclude: x\n");
	dt_err_clear(&e);
	CHECK(filt_lib_load_file(l, mkpath("tok.filter"), &e) == -1);
	CHECK(e.line == 3 && strstr(e.msg, "token 'mem' already belongs to family 'memory'"));
	put("tok2.filter", "name: mem\ndescription: d\ninclude: x\n"); /* the name as token */
	dt_err_clear(&e);
	CHECK(filt_lib_load_file(l, mkpath("tok2.filter"), &e) == -1);
	CHECK(e.line == 1 && strstr(e.msg, "token 'mem' already belongs to family 'memory'"));
	filt_lib_free(l);
	l = lib_shipped();
	dt_err_clear(&e);
	CHECK(filt_lib_load_dir(l, mkpath("bad"), &e) == -1);
	CHECK(strstr(e.msg, "bit 7 already belongs to family 'mpi'") != NULL);
	CHECK(strstr(e.file, "bad/mympi.filter") && e.line == 4);
	/* a load that failed leaves the library as it was: shipped custom, no mympi */
	CHECK_EQ_INT(filt_lib_count(l), 16);
	CHECK(filt_lib_find(l, "mympi") < 0);
	cf = filt_lib_family(l, (size_t)filt_lib_find(l, "custom"));
	CHECK(cf && cf->bit == 14 && strstr(cf->file, "bad/") == NULL);
	CHECK_EQ_INT(filt_lib_find(l, "everything"), 15);
	filt_lib_free(l);
	l = filt_lib_new();
	dt_err_clear(&e);
	CHECK(filt_lib_load_dir(l, mkpath("dup"), &e) == -1);
	CHECK(strstr(e.msg, "family 'twice' is already defined in") && strstr(e.file, "b.filter"));
	filt_lib_free(l);
	l = lib_shipped();
	dt_err_clear(&e);
	CHECK(filt_lib_load_dir(l, mkpath("move"), &e) == 0);
	f = parse_ok(l, "1100000100000000");
	CHECK(f && !strcmp(filt_canonical(f), "aaa"));
	filt_free(f);
	filt_lib_free(l);
	dt_err_clear(&e);
	l = filt_lib_new();
	CHECK(filt_lib_load_dir(l, mkpath("nonexistent"), &e) == 0); /* missing: not an error */
	CHECK(filt_lib_load_file(l, mkpath("nonexistent.filter"), &e) == -1);
	filt_lib_free(l);

	for (int i = nmade - 1; i >= 0; i--)
		if (unlink(made[i]))
			rmdir(made[i]);
	rmdir(tmp);
}

int main(void)
{
	const char *top = getenv("abs_top_srcdir");
	snprintf(shipped, sizeof shipped, "%s/filters", top && *top ? top : ".");
	test_parse_good();
	test_parse_errors();
	test_shipped();
	test_combinations();
	test_paper_aliases();
	test_once();
	test_returns();
	test_streaming();
	test_explain();
	test_search_path();
	CHECK_DONE();
}
