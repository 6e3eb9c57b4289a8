/* test_fca.c: the concept lattice against a brute-force one (all closed sets) on random
 * contexts, its canonical numbering, object and attribute concepts, the concept limit, and the
 * DOT and text renderers. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>

#include "check.h"
#include "analysis/context.h"
#include "analysis/fca.h"

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A brute-force concept: extents are object subsets (n <= 12), intents bitsets. */
typedef struct bconcept {
	uint32_t ext;
	uint64_t in[4];
	size_t nint;
} bconcept;

static size_t popc(const uint64_t *b, size_t nw)
{
	size_t k = 0;
	for (size_t w = 0; w < nw; w++)
		k += (size_t)__builtin_popcountll(b[w]);
	return k;
}

/* The canonical order fca.h promises, restated independently: intent size, then the sorted
 * attribute lists compared element by element. */
static int cmp_lists(const bconcept *a, const bconcept *b, size_t m)
{
	if (a->nint != b->nint)
		return a->nint < b->nint ? -1 : 1;
	size_t i = 0, j = 0;
	for (;;) {
		while (i < m && !((a->in[i / 64] >> (i % 64)) & 1))
			i++;
		while (j < m && !((b->in[j / 64] >> (j % 64)) & 1))
			j++;
		if (i >= m || j >= m)
			return 0;
		if (i != j)
			return i < j ? -1 : 1;
		i++;
		j++;
	}
}

/* Every concept is (S'', S') for some object set S: enumerate S, keep distinct intents. */
static size_t brute(const ctx_bits *c, bconcept *out)
{
	size_t n = c->n, m = c->m, nw = c->words, k = 0;
	for (uint32_t S = 0; S < (1u << n); S++) {
		bconcept x = { 0, { 0 }, 0 };
		for (size_t a = 0; a < m; a++)
			x.in[a / 64] |= (uint64_t)1 << (a % 64);
		for (size_t g = 0; g < n; g++)
			if (S >> g & 1)
				for (size_t w = 0; w < nw; w++)
					x.in[w] &= ctx_row(c, g)[w];
		for (size_t g = 0; g < n; g++) {
			int has = 1;
			for (size_t w = 0; w < nw; w++)
				if (x.in[w] & ~ctx_row(c, g)[w])
					has = 0;
			if (has)
				x.ext |= 1u << g;
		}
		x.nint = popc(x.in, nw);
		int dup = 0;
		for (size_t i = 0; i < k && !dup; i++)
			dup = out[i].ext == x.ext;
		if (!dup)
			out[k++] = x;
	}
	/* insertion sort into the canonical order */
	for (size_t i = 1; i < k; i++) {
		bconcept x = out[i];
		size_t j = i;
		while (j && cmp_lists(&out[j - 1], &x, m) > 0) {
			out[j] = out[j - 1];
			j--;
		}
		out[j] = x;
	}
	return k;
}

static int covers(const bconcept *b, size_t nb, size_t x, size_t y)
{
	/* x -> y when ext(y) is strictly inside ext(x) with nothing in between */
	uint32_t X = b[x].ext, Y = b[y].ext;
	if (X == Y || (Y & ~X))
		return 0;
	for (size_t z = 0; z < nb; z++) {
		uint32_t Z = b[z].ext;
		if (Z != X && Z != Y && !(Y & ~Z) && !(Z & ~X))
			return 0;
	}
	return 1;
}

static int in_list(const uint32_t *v, size_t n, size_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

static uint32_t ext_mask(const fca_concept *c, size_t n)
{
	uint32_t r = 0;
	for (size_t g = 0; g < n; g++)
		if (ctx_btest(c->extent, g))
			r |= 1u << g;
	return r;
}

static bconcept bc[1u << 12];

/* Builds the lattice of c and compares everything with brute force; returns 0 when equal. */
static int compare_with_brute(const ctx_bits *c)
{
	int before = check_failures;
	dt_err e;
	dt_err_clear(&e);
	fca_lattice L;
	CHECK(fca_build(c, 1u << 20, &L, &e) == 0);
	size_t nb = brute(c, bc);
	CHECK_EQ_INT(L.nconcepts, nb);
	if (L.nconcepts != nb) {
		fca_free(&L);
		return -1;
	}
	size_t edges = 0;
	for (size_t i = 0; i < nb; i++) {
		const fca_concept *k = &L.c[i];
		CHECK_EQ_INT(ext_mask(k, c->n), bc[i].ext);
		CHECK(memcmp(k->intent, bc[i].in, c->words * 8) == 0);
		CHECK_EQ_INT(k->nint, bc[i].nint);
		CHECK_EQ_INT(k->next, (size_t)__builtin_popcount(bc[i].ext));
		for (size_t j = 0; j < nb; j++) {
			int cov = covers(bc, nb, i, j);
			edges += (size_t)cov;
			CHECK_EQ_INT(in_list(k->down, k->ndown, j), cov);
			CHECK_EQ_INT(in_list(L.c[j].up, L.c[j].nup, i), cov);
		}
		for (size_t q = 1; q < k->ndown; q++)
			CHECK(k->down[q - 1] < k->down[q]);
	}
	CHECK_EQ_INT(L.nedges, edges);
	CHECK_EQ_INT(L.top, 0);
	CHECK_EQ_INT(L.bottom, nb - 1);
	CHECK_EQ_INT(L.c[0].next, c->n);
	CHECK_EQ_INT(L.c[nb - 1].nint, c->m);
	/* object concept: intent = the object's row; attribute concept: extent = the objects
	 * having the attribute */
	for (size_t g = 0; g < c->n; g++)
		CHECK(memcmp(L.c[L.obj_concept[g]].intent, ctx_row(c, g), c->words * 8) == 0);
	for (size_t a = 0; a < c->m; a++) {
		uint32_t want = 0;
		for (size_t g = 0; g < c->n; g++)
			if (ctx_get(c, g, a))
				want |= 1u << g;
		CHECK_EQ_INT(ext_mask(&L.c[L.attr_concept[a]], c->n), want);
	}
	fca_free(&L);
	return check_failures == before ? 0 : -1;
}

static void random_contexts(void)
{
	for (int t = 0; t < 400; t++) {
		size_t n = rnd() % 10, m = 1 + rnd() % (t % 4 == 0 ? 200 : 9);
		unsigned dens = 20 + (unsigned)(rnd() % 70);
		ctx_bits c;
		ctx_init(&c, n, m);
		for (size_t g = 0; g < n; g++)
			for (size_t a = 0; a < m; a++)
				if (rnd() % 100 < dens)
					ctx_set(&c, g, a);
		/* some objects repeat another's row: shared object concepts */
		if (n > 2 && t % 3 == 0)
			memcpy(ctx_row(&c, n - 1), ctx_row(&c, 0), c.words * 8);
		if (compare_with_brute(&c)) {
			fprintf(stderr, "random context %d (n=%zu m=%zu) differs\n", t, n, m);
			ctx_free(&c);
			return;
		}
		ctx_free(&c);
	}
}

/* Edge shapes: no object, no attribute, every object with every attribute. */
static void edges_cases(void)
{
	ctx_bits c;
	ctx_init(&c, 0, 3);
	CHECK(compare_with_brute(&c) == 0);
	ctx_free(&c);
	ctx_init(&c, 3, 0);
	CHECK(compare_with_brute(&c) == 0);
	ctx_free(&c);
	ctx_init(&c, 3, 2);
	for (size_t g = 0; g < 3; g++)
		for (size_t a = 0; a < 2; a++)
			ctx_set(&c, g, a);
	dt_err e;
	dt_err_clear(&e);
	fca_lattice L;
	CHECK(fca_build(&c, 10, &L, &e) == 0);
	CHECK_EQ_INT(L.nconcepts, 1);
	CHECK_EQ_INT(L.nedges, 0);
	fca_free(&L);
	ctx_free(&c);
}

/* The contranominal scale (object i has every attribute but i) has 2^k concepts. */
static void limit(void)
{
	enum { K = 10 };
	ctx_bits c;
	ctx_init(&c, K, K);
	for (size_t g = 0; g < K; g++)
		for (size_t a = 0; a < K; a++)
			if (a != g)
				ctx_set(&c, g, a);
	dt_err e;
	dt_err_clear(&e);
	fca_lattice L;
	CHECK(fca_build(&c, 1000, &L, &e) == -1);
	CHECK_EQ_INT(e.status, DT_EDATA);
	CHECK(strstr(e.msg, "more than 1000 concepts") != NULL);
	CHECK_EQ_INT(L.nconcepts, 0);
	dt_err_clear(&e);
	CHECK(fca_build(&c, 1024, &L, &e) == 0);
	CHECK_EQ_INT(L.nconcepts, 1024);
	/* the Boolean lattice of 10 atoms: every concept covers as many as its intent lacks */
	CHECK_EQ_INT(L.nedges, K * 512);
	fca_free(&L);
	ctx_free(&c);
}

static const char *const anames[] = { "MPI_Init", "MPI_Recv", "MPI_Send", "say \"hi\"" };

static const char *aname(void *ud, size_t i, char *scratch, size_t size)
{
	(void)ud;
	(void)scratch;
	(void)size;
	return anames[i];
}

static const char *oname(void *ud, size_t i, char *scratch, size_t size)
{
	(void)ud;
	snprintf(scratch, size, "rank%zu", i);
	return scratch;
}

static size_t count_str(const char *h, const char *needle)
{
	size_t k = 0;
	for (const char *p = h; (p = strstr(p, needle)); p++)
		k++;
	return k;
}

static void render(void)
{
	/* rank 0: Init Recv; ranks 1-2: Init Send; rank 3: Init Send "say" */
	ctx_bits c;
	ctx_init(&c, 4, 4);
	ctx_set(&c, 0, 0);
	ctx_set(&c, 0, 1);
	for (size_t g = 1; g < 4; g++) {
		ctx_set(&c, g, 0);
		ctx_set(&c, g, 2);
	}
	ctx_set(&c, 3, 3);
	dt_err e;
	dt_err_clear(&e);
	fca_lattice L;
	CHECK(fca_build(&c, 100, &L, &e) == 0);
	/* top {0-3}:{Init}; {0}:{Init,Recv}; {1-3}:{Init,Send}; {3}:{Init,Send,say}; bottom */
	CHECK_EQ_INT(L.nconcepts, 5);
	CHECK_EQ_INT(L.attr_concept[0], 0);
	CHECK_EQ_INT(L.obj_concept[1], L.obj_concept[2]);
	fca_names nm = { oname, aname, NULL, NULL };

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CHECK(fca_render_dot(&L, &nm, f, &e) == 0);
	fclose(f);
	CHECK(strncmp(buf, "digraph lattice {", 17) == 0);
	CHECK_EQ_INT(count_str(buf, "->"), L.nedges);
	/* reduced labels name every attribute and every object exactly once */
	CHECK_EQ_INT(count_str(buf, "MPI_Init"), 1);
	CHECK_EQ_INT(count_str(buf, "MPI_Send"), 1);
	CHECK_EQ_INT(count_str(buf, "say \\\"hi\\\""), 1);
	for (int g = 0; g < 4; g++) {
		char t[16];
		snprintf(t, sizeof t, "rank%d", g);
		CHECK_EQ_INT(count_str(buf, t), 1);
	}
	CHECK(strstr(buf, "c0 [label=\"c0\\nMPI_Init\"];") != NULL);
	CHECK(strstr(buf, "rank1, rank2") != NULL);
	free(buf);

	f = open_memstream(&buf, &len);
	CHECK(fca_render_text(&L, &nm, f, &e) == 0);
	fclose(f);
	CHECK_EQ_STR(buf, "c0\t0-3\tMPI_Init\tc1,c2\n"
			  "c1\t0\tMPI_Init; MPI_Recv\tc4\n"
			  "c2\t1-3\tMPI_Init; MPI_Send\tc3\n"
			  "c3\t3\tMPI_Init; MPI_Send; say \"hi\"\tc4\n"
			  "c4\t-\tMPI_Init; MPI_Recv; MPI_Send; say \"hi\"\t-\n");
	free(buf);

	/* with P.T: ranks 0..3, thread 0 each; default attribute names */
	ptr_pt pt[4] = { { 0, 0 }, { 1, 0 }, { 2, 0 }, { 3, 0 } };
	fca_names nm2 = { NULL, NULL, pt, NULL };
	f = open_memstream(&buf, &len);
	CHECK(fca_render_text(&L, &nm2, f, &e) == 0);
	fclose(f);
	CHECK(strncmp(buf, "c0\tP 0-3 T 0\ta0\tc1,c2\n", 22) == 0);
	free(buf);
	f = open_memstream(&buf, &len);
	CHECK(fca_render_dot(&L, &nm2, f, &e) == 0);
	fclose(f);
	CHECK(strstr(buf, "\\nP 1-2 T 0\"") != NULL);
	free(buf);

	/* a failed write is an error, not silence */
	f = fopen("/dev/full", "w");
	if (f) {
		dt_err_clear(&e);
		CHECK(fca_render_text(&L, &nm, f, &e) == -1);
		CHECK(strstr(e.msg, "cannot write") != NULL);
		fclose(f);
	}
	fca_free(&L);
	ctx_free(&c);
}

int main(void)
{
	random_contexts();
	edges_cases();
	limit();
	render();
	CHECK_DONE();
}
