/* test_attrs.c: attribute modes (names, sing/doub, w/wo, frequencies), interning, display, the
 * context and the JSM on it, and the paper's four-rank example end to end. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>

#include "analysis/attrs.h"
#include "check.h"
#include "analysis/cluster.h"
#include "analysis/fca.h"
#include "analysis/jaccard.h"

enum { F_INIT = 1, F_RANK, F_SIZE, F_RECV, F_SEND, F_FINAL, F_A, F_B, F_C };

static const char *const fnames[] = { NULL,       "MPI_Init", "MPI_Comm_rank", "MPI_Comm_size",
				      "MPI_Recv", "MPI_Send", "MPI_Finalize",  "a",
				      "b",        "c" };

static const char *fname(void *ud, uint32_t fid)
{
	(void)ud;
	return fid < sizeof fnames / sizeof *fnames ? fnames[fid] : NULL;
}

static nlr_entry fn(uint32_t f)
{
	return (nlr_entry){ f, 1 };
}

static nlr_entry loop(uint32_t id, uint32_t count)
{
	return (nlr_entry){ NLR_LOOP | id, count };
}

static attrs_mode mode(const char *s)
{
	attrs_mode m = { ATTRS_SING, ATTRS_ORIG, ATTRS_W };
	dt_err e;
	dt_err_clear(&e);
	if (attrs_mode_parse(s, &m, &e)) {
		fprintf(stderr, "mode %s: %s\n", s, e.msg);
		check_failures++;
	}
	return m;
}

/* The rendered attributes of one trace, in extraction order, joined by " | ". */
static char *rendered(const char *mname, const nlr_entry *t, size_t n)
{
	attrs_mode m = mode(mname);
	attrs_key *k;
	size_t nk = attrs_extract(m, t, n, &k);
	static char out[2048];
	size_t len = 0;
	out[0] = 0;
	for (size_t i = 0; i < nk; i++) {
		char b[256];
		attrs_render(m, &k[i], fname, NULL, b, sizeof b);
		len += (size_t)snprintf(out + len, sizeof out - len, "%s%s", i ? " | " : "", b);
	}
	free(k);
	return out;
}

static void mode_names(void)
{
	static const struct {
		const char *in, *canon;
		enum attrs_kind k;
		enum attrs_freq f;
		enum attrs_pairs p;
	} ok[] = {
		{ "sing.log10", "sing.log10", ATTRS_SING, ATTRS_LOG10, ATTRS_W },
		{ "doub.actual.wo", "doub.actual.wo", ATTRS_DOUB, ATTRS_ACTUAL, ATTRS_WO },
		{ "sing.orig", "sing.orig", ATTRS_SING, ATTRS_ORIG, ATTRS_W },
		{ "sing.noFreq", "sing.orig", ATTRS_SING, ATTRS_ORIG, ATTRS_W },
		{ "doub.noFreq", "doub.orig.w", ATTRS_DOUB, ATTRS_ORIG, ATTRS_W },
		{ "doub.log2", "doub.log2.w", ATTRS_DOUB, ATTRS_LOG2, ATTRS_W },
		{ "sing", "sing.orig", ATTRS_SING, ATTRS_ORIG, ATTRS_W },
		{ "sing.log10.w", "sing.log10", ATTRS_SING, ATTRS_LOG10, ATTRS_W },
		{ "sing.actual.wo", "sing.actual", ATTRS_SING, ATTRS_ACTUAL, ATTRS_W },
		{ "doub.log10.w", "doub.log10.w", ATTRS_DOUB, ATTRS_LOG10, ATTRS_W },
	};
	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
		attrs_mode m = mode(ok[i].in);
		CHECK(m.kind == ok[i].k && m.freq == ok[i].f && m.pairs == ok[i].p);
		char b[ATTRS_MODE_NAME_MAX];
		CHECK_EQ_STR(attrs_mode_name(m, b, sizeof b), ok[i].canon);
		/* the canonical name reads back as the same mode */
		attrs_mode r = mode(b);
		CHECK(r.kind == m.kind && r.freq == m.freq && r.pairs == m.pairs);
	}
	static const char *const bad[] = { "trip.orig", "sing.log3",     "doub.orig.x", "",
					   "sing.",     "sing.orig.w.x", "stat",        ".orig",
					   "Sing.orig", "doub..w" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		dt_err e;
		dt_err_clear(&e);
		attrs_mode m;
		CHECK(attrs_mode_parse(bad[i], &m, &e) == -1);
		CHECK_EQ_INT(e.status, DT_EUSAGE);
		CHECK(strstr(e.msg, "bad attribute mode") != NULL);
	}
}

static void sing(void)
{
	/* L0 occurs with 3 and 9 iterations: frequency 12; MPI_Init twice */
	const nlr_entry t[] = { fn(F_INIT), loop(0, 3), fn(F_RECV), fn(F_INIT), loop(0, 9),
				loop(1, 2) };
	CHECK_EQ_STR(rendered("sing.orig", t, 6), "MPI_Init | L0 | MPI_Recv | L1");
	CHECK_EQ_STR(rendered("sing.actual", t, 6), "MPI_Init:2 | L0:12 | MPI_Recv:1 | L1:2");
	CHECK_EQ_STR(rendered("sing.log2", t, 6), "MPI_Init:1 | L0:3 | MPI_Recv:0 | L1:1");
	CHECK_EQ_STR(rendered("sing.log10", t, 6), "MPI_Init:0 | L0:1 | MPI_Recv:0 | L1:0");
	/* a loop's count does not split sing attributes */
	attrs_key *k;
	CHECK_EQ_INT(attrs_extract(mode("sing.orig"), t, 6, &k), 4);
	CHECK(k[1].a == (NLR_LOOP | 0) && k[1].acount == 0 && k[1].b == ATTRS_NONE);
	free(k);
	CHECK_EQ_INT(attrs_extract(mode("sing.orig"), t, 0, &k), 0);
	free(k);
	/* log boundaries: 1000 iterations is log10 3, 999 is 2; 1024 is log2 10, 1023 is 9 */
	const nlr_entry b[] = { loop(1, 1000), loop(2, 999), loop(3, 1024), loop(4, 1023) };
	CHECK_EQ_STR(rendered("sing.log10", b, 4), "L1:3 | L2:2 | L3:3 | L4:3");
	CHECK_EQ_STR(rendered("sing.log2", b, 4), "L1:9 | L2:9 | L3:10 | L4:9");
	/* frequencies beyond 32 bits add up */
	const nlr_entry big[] = { loop(7, 0xffffffffu), loop(7, 0xffffffffu) };
	CHECK_EQ_STR(rendered("sing.actual", big, 2), "L7:8589934590");
	CHECK_EQ_STR(rendered("sing.log2", big, 2), "L7:32");
}

static void doub(void)
{
	const nlr_entry t[] = { fn(F_INIT), loop(0, 3), fn(F_RECV), fn(F_INIT), loop(0, 9),
				loop(1, 2), fn(F_FINAL) };
	/* loops keep their counts: L0^3 and L0^9 make different pairs */
	CHECK_EQ_STR(rendered("doub.orig.w", t, 7),
		     "MPI_Init L0^3 | L0^3 MPI_Recv | MPI_Recv MPI_Init | MPI_Init L0^9 | "
		     "L0^9 L1^2 | L1^2 MPI_Finalize");
	/* without overlap the 7th token is left alone, not paired with what lies past the end */
	CHECK_EQ_STR(rendered("doub.orig.wo", t, 7),
		     "MPI_Init L0^3 | MPI_Recv MPI_Init | L0^9 L1^2");
	CHECK_EQ_STR(rendered("doub.orig.wo", t, 6),
		     "MPI_Init L0^3 | MPI_Recv MPI_Init | L0^9 L1^2");
	/* pair frequencies */
	const nlr_entry ab[] = { fn(F_A), fn(F_B), fn(F_A), fn(F_B), fn(F_A), fn(F_B) };
	CHECK_EQ_STR(rendered("doub.actual.w", ab, 6), "a b:3 | b a:2");
	CHECK_EQ_STR(rendered("doub.actual.wo", ab, 6), "a b:3");
	CHECK_EQ_STR(rendered("doub.log2.w", ab, 6), "a b:1 | b a:1");
	/* fewer than two tokens: no pair */
	attrs_key *k;
	CHECK_EQ_INT(attrs_extract(mode("doub.orig.w"), t, 1, &k), 0);
	free(k);
	CHECK_EQ_INT(attrs_extract(mode("doub.orig.wo"), t, 1, &k), 0);
	free(k);
	CHECK_EQ_INT(attrs_extract(mode("doub.orig.w"), t, 0, &k), 0);
	free(k);
}

static void display(void)
{
	attrs_mode m = mode("doub.actual.w");
	attrs_key k = { 42, 0, NLR_LOOP | 5, 17, 6 };
	char b[64];
	CHECK_EQ_INT(attrs_render(m, &k, NULL, NULL, b, sizeof b), strlen("f42 L5^17:6"));
	CHECK_EQ_STR(b, "f42 L5^17:6");
	k.a = F_FINAL;
	/* snprintf semantics: the whole length, a cut but terminated string */
	CHECK_EQ_INT(attrs_render(m, &k, fname, NULL, b, 5), strlen("MPI_Finalize L5^17:6"));
	CHECK_EQ_STR(b, "MPI_");
	CHECK_EQ_INT(attrs_render(m, &k, fname, NULL, NULL, 0), 20);
	/* a name callback that knows nothing falls back to the id */
	k.a = 99;
	attrs_render(mode("sing.orig"), &k, fname, NULL, b, sizeof b);
	CHECK_EQ_STR(b, "f99");
}

static void interning(void)
{
	attrs_set *s = attrs_new(mode("sing.actual"));
	/* object 0: c, a, a; object 1: a, b, a, a; object 2: a, a, c */
	const nlr_entry o0[] = { fn(F_C), fn(F_A), fn(F_A) };
	const nlr_entry o1[] = { fn(F_A), fn(F_B), fn(F_A), fn(F_A) };
	const nlr_entry o2[] = { fn(F_A), fn(F_A), fn(F_C) };
	CHECK_EQ_INT(attrs_add(s, o0, 3), 0);
	CHECK_EQ_INT(attrs_add(s, o1, 4), 1);
	/* the same through the thread-safe path */
	attrs_key *k;
	size_t nk = attrs_extract(attrs_set_mode(s), o2, 3, &k);
	CHECK_EQ_INT(attrs_add_keys(s, k, nk), 2);
	free(k);
	/* ids by first appearance: c:1 a:2 (object 0), a:3 b:1 (object 1); object 2 reuses */
	CHECK_EQ_INT(attrs_nobjects(s), 3);
	CHECK_EQ_INT(attrs_nattrs(s), 4);
	static const char *const want[] = { "c:1", "a:2", "a:3", "b:1" };
	for (uint32_t id = 0; id < 4; id++) {
		char b[32];
		attrs_render(attrs_set_mode(s), attrs_key_of(s, id), fname, NULL, b, sizeof b);
		CHECK_EQ_STR(b, want[id]);
		CHECK_EQ_INT(attrs_find(s, attrs_key_of(s, id)), id);
	}
	attrs_key none = { F_B, 0, ATTRS_NONE, 0, 7 };
	CHECK_EQ_INT(attrs_find(s, &none), ATTRS_NONE);
	size_t len;
	const uint32_t *ids = attrs_object(s, 1, &len);
	CHECK(len == 2 && ids[0] == 2 && ids[1] == 3);
	ids = attrs_object(s, 2, &len);
	CHECK(len == 2 && ids[0] == 0 && ids[1] == 1);
	/* a repeated key counts once */
	attrs_key dup[2] = { { F_A, 0, ATTRS_NONE, 0, 2 }, { F_A, 0, ATTRS_NONE, 0, 2 } };
	CHECK_EQ_INT(attrs_add_keys(s, dup, 2), 3);
	ids = attrs_object(s, 3, &len);
	CHECK(len == 1 && ids[0] == 1);
	ctx_bits c;
	attrs_context(s, &c);
	CHECK(c.n == 4 && c.m == 4 && c.words == 1);
	CHECK_EQ_INT(c.bits[0], 0x3);
	CHECK_EQ_INT(c.bits[1], 0xc);
	CHECK_EQ_INT(c.bits[2], 0x3);
	CHECK_EQ_INT(c.bits[3], 0x2);
	/* under actual, a:2 and a:3 differ: objects 0 and 1 share nothing */
	CHECK(jac_pair(&c, 0, 1) == 0);
	CHECK(jac_pair(&c, 0, 2) == 1);
	ctx_free(&c);
	attrs_free(s);

	/* under orig they share a */
	s = attrs_new(mode("sing.orig"));
	attrs_add(s, o0, 3);
	attrs_add(s, o1, 3);
	CHECK_EQ_INT(attrs_nattrs(s), 3);
	attrs_context(s, &c);
	CHECK(jac_pair(&c, 0, 1) == 1.0 / 3);
	ctx_free(&c);
	attrs_free(s);
}

/* Random traces: the JSM on bitsets equals the slow one on sorted id lists, pair by pair. */
static void jsm_random(void)
{
	uint64_t r = 0x9e3779b97f4a7c15ULL;
	attrs_set *s = attrs_new(mode("doub.log2.w"));
	enum { N = 70 };
	nlr_entry t[300];
	for (size_t i = 0; i < N; i++) {
		size_t n = i % 11 == 3 ? 0 : (size_t)(r >> 40) % 300;
		for (size_t k = 0; k < n; k++) {
			r = r * 6364136223846793005ULL + 1442695040888963407ULL;
			uint32_t x = (uint32_t)(r >> 33);
			t[k] = x % 5 ? fn(1 + x % 12) : loop(x % 4, 1 + (x >> 8) % 5);
		}
		attrs_add(s, t, n);
	}
	CHECK(attrs_nattrs(s) > 128); /* rows of several words */
	ctx_bits c;
	attrs_context(s, &c);
	double *J = malloc(N * N * sizeof *J);
	jac_matrix(&c, J);
	for (size_t i = 0; i < N; i++)
		for (size_t j = 0; j < N; j++) {
			size_t na, nb;
			const uint32_t *a = attrs_object(s, i, &na), *b = attrs_object(s, j, &nb);
			double want = i == j ? 1.0 : jac_sorted(a, na, b, nb);
			if (J[i * N + j] != want || jac_pair(&c, i, j) != want) {
				fprintf(stderr, "J(%zu,%zu) = %g, want %g\n", i, j, J[i * N + j],
					want);
				check_failures++;
			}
		}
	/* the empty traces (i % 11 == 3) are identical to each other */
	CHECK(J[3 * N + 14] == 1.0);
	CHECK(J[3 * N + 4] == 0.0);
	free(J);
	ctx_free(&c);
	attrs_free(s);
}

/* The paper's example: four ranks; rank 0 receives three times (NLR folds the three receives
 * into L0^3), ranks 1-3 send once each. Under sing.orig:
 *   rank 0:    MPI_Init MPI_Comm_rank MPI_Comm_size L0 MPI_Finalize
 *   ranks 1-3: MPI_Init MPI_Comm_rank MPI_Comm_size MPI_Send MPI_Finalize
 * Each pair (0, k) shares 4 attributes out of 6 distinct ones: J = 4/6. Ranks 1-3 have identical
 * sets, so the classes are {0} and {1,2,3}, by identical sets and by clustering alike. */
static const char *ptname(void *ud, size_t i, char *scratch, size_t size)
{
	(void)ud;
	snprintf(scratch, size, "%zu.0", i);
	return scratch;
}

typedef struct anames {
	const attrs_set *s;
} anames;

static const char *aname(void *ud, size_t i, char *scratch, size_t size)
{
	const anames *a = ud;
	attrs_render(attrs_set_mode(a->s), attrs_key_of(a->s, (uint32_t)i), fname, NULL, scratch,
		     size);
	return scratch;
}

static void paper_example(void)
{
	const nlr_entry r0[] = { fn(F_INIT), fn(F_RANK), fn(F_SIZE), loop(0, 3), fn(F_FINAL) };
	const nlr_entry rk[] = { fn(F_INIT), fn(F_RANK), fn(F_SIZE), fn(F_SEND), fn(F_FINAL) };
	attrs_set *s = attrs_new(mode("sing.orig"));
	attrs_add(s, r0, 5);
	for (int k = 1; k < 4; k++)
		attrs_add(s, rk, 5);
	CHECK_EQ_INT(attrs_nattrs(s), 6);
	ctx_bits c;
	attrs_context(s, &c);
	double J[16];
	jac_matrix(&c, J);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++) {
			double want = (i == 0) == (j == 0) ? 1.0 : 4.0 / 6;
			CHECK(fabs(J[i * 4 + j] - want) < 1e-15);
		}
	uint32_t lab[4];
	CHECK_EQ_INT(clu_identical(&c, lab), 2);
	CHECK(lab[0] == 0 && lab[1] == 1 && lab[2] == 1 && lab[3] == 1);
	/* ward on 1 - J: ranks 1-3 merge at 0, then rank 0 joins; the gap gives two classes */
	double d[6];
	clu_merge m[3];
	dt_err e;
	dt_err_clear(&e);
	clu_condensed_from_jsm(J, 4, d);
	CHECK(clu_linkage(d, 4, CLU_WARD, m, &e) == 0);
	CHECK(m[0].height == 0 && m[1].height == 0 && m[2].height > 0);
	CHECK(m[2].a == 0 && m[2].size == 4);
	size_t k = clu_auto_k(m, 4, 4);
	CHECK_EQ_INT(k, 2);
	clu_cut(m, 4, k, lab);
	CHECK(lab[0] == 0 && lab[1] == 1 && lab[2] == 1 && lab[3] == 1);
	/* the lattice: top (4 shared calls), {0} with L0, {1,2,3} with MPI_Send, bottom */
	fca_lattice L;
	CHECK(fca_build(&c, 100, &L, &e) == 0);
	CHECK_EQ_INT(L.nconcepts, 4);
	CHECK_EQ_INT(L.c[0].nint, 4);
	CHECK(L.obj_concept[1] == L.obj_concept[2] && L.obj_concept[2] == L.obj_concept[3]);
	anames an = { s };
	fca_names nm = { ptname, aname, NULL, &an };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CHECK(fca_render_text(&L, &nm, f, &e) == 0);
	fclose(f);
	CHECK_EQ_STR(buf, "c0\t0-3\tMPI_Init; MPI_Comm_rank; MPI_Comm_size; MPI_Finalize\tc1,c2\n"
			  "c1\t0\tMPI_Init; MPI_Comm_rank; MPI_Comm_size; L0; MPI_Finalize\tc3\n"
			  "c2\t1-3\tMPI_Init; MPI_Comm_rank; MPI_Comm_size; MPI_Finalize; "
			  "MPI_Send\tc3\n"
			  "c3\t-\tMPI_Init; MPI_Comm_rank; MPI_Comm_size; L0; MPI_Finalize; "
			  "MPI_Send\t-\n");
	free(buf);
	fca_free(&L);
	ctx_free(&c);
	attrs_free(s);

	/* under doub the loop keeps its count: rank 0's pairs name L0^3 */
	CHECK_EQ_STR(rendered("doub.orig.w", r0, 5),
		     "MPI_Init MPI_Comm_rank | MPI_Comm_rank MPI_Comm_size | "
		     "MPI_Comm_size L0^3 | L0^3 MPI_Finalize");
}

int main(void)
{
	mode_names();
	sing();
	doub();
	display();
	interning();
	jsm_random();
	paper_example();
	CHECK_DONE();
}
