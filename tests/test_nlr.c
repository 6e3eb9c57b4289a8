/* test_nlr.c: nested loop recognition: worked examples, losslessness and agreement with the
 * plain algorithm (bench/nlr_ref.h) on random nested-loop programs, streaming in random
 * blocks, the emission window, loop ids shared, saved, re-loaded and merged, rendering. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "analysis/nlr.h"
#include "nlr_ref.h"
#include "util/util.h"

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)((rng_state >> 33) % n);
}

/* Function ids 1..26 are the letters a..z; 0 is a return. */
static const char *letter(void *ctx, uint32_t fid)
{
	static const char *names[] = { "ret", "a", "b", "c", "d", "e", "f", "g", "h", "i",
				       "j", "k", "l", "m", "n", "o", "p", "q", "r", "s",
				       "t", "u", "v", "w", "x", "y", "z" };
	(void)ctx;
	return fid < 27 ? names[fid] : NULL;
}

/* Events from a string of letters ("ab a" = a b a; spaces ignored). */
static size_t ev_of(const char *s, uint32_t *ev)
{
	size_t n = 0;
	for (; *s; s++)
		if (*s >= 'a' && *s <= 'z')
			ev[n++] = (uint32_t)(*s - 'a' + 1);
	return n;
}

static char *render(const nlr_table *t, const nlr_entry *v, size_t n, int loops)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	dt_err e;
	dt_err_clear(&e);
	CHECK((loops ? nlr_render_loops : nlr_render)(f, t, v, n, letter, NULL, &e) == 0);
	fclose(f);
	return buf;
}

static nlr_entry *compress(nlr_table *t, unsigned k, const uint32_t *ev, size_t n, size_t *nout)
{
	nlr_opts o = { k, 0, 0 };
	nlr_entry *out;
	dt_err e;
	dt_err_clear(&e);
	CHECK(nlr_compress(t, &o, ev, n, &out, nout, &e) == 0);
	return out;
}

/* Compresses the letters s with K = k and checks the rendering and the loop table. */
static void example(unsigned k, const char *s, const char *want, const char *want_loops)
{
	uint32_t ev[256];
	size_t n = ev_of(s, ev), nout;
	nlr_table *t = nlr_table_new();
	nlr_entry *out = compress(t, k, ev, n, &nout);
	char *got = render(t, out, nout, 0), *gl = render(t, out, nout, 1);
	CHECK_EQ_STR(got, want);
	CHECK_EQ_STR(gl, want_loops);
	free(got);
	free(gl);
	free(out);
	nlr_table_free(t);
}

static void test_examples(void)
{
	example(10, "aaa", "(a)^3\n", "L0 = (a)\n");
	uint32_t ev[4] = { 1, 1, 1 };
	size_t nout;
	nlr_table *t = nlr_table_new();
	nlr_entry *out = compress(t, 10, ev, 3, &nout);
	char tok[16];
	CHECK(nout == 1 && nlr_token(tok, sizeof tok, out[0], letter, NULL) == 4);
	CHECK_EQ_STR(tok, "L0^3");
	free(out);
	nlr_table_free(t);
	example(10, "aa", "a\na\n", "");
	example(10, "abababab", "(a - b)^4\n", "L0 = (a - b)\n");
	/* (f g^5)^6: one loop, extended one iteration at a time */
	example(10, "fggggg fggggg fggggg fggggg fggggg fggggg", "(f - L0^5)^6\n",
		"L0 = (g)\nL1 = (f - L0^5)\n");
	/* an inner count that differs is a different body element: the outer loop stops */
	example(10, "fggggg fggggg fggggg fgggg", "(f - L0^5)^3\nf\n(g)^4\n",
		"L0 = (g)\nL1 = (f - L0^5)\n");
	/* the body of length K folds (triplet and extension), K+1 does not */
	example(4, "abcd abcd abcd abcd", "(a - b - c - d)^4\n", "L0 = (a - b - c - d)\n");
	example(3, "abcd abcd abcd", "a\nb\nc\nd\na\nb\nc\nd\na\nb\nc\nd\n", "");
	/* the shortest rule wins: x x x folds before (w x)^... is seen */
	example(10, "ab ab ab b b", "(a - b)^3\nb\nb\n", "L0 = (a - b)\n");
	example(10, "ab ab ab bb b", "(a - b)^3\n(b)^3\n", "L0 = (a - b)\nL1 = (b)\n");
	/* the outer loop extends as soon as the inner loop reaches the count of its body */
	example(10, "yzzz yzzz yzzz yzzz", "(y - L0^3)^4\n", "L0 = (z)\nL1 = (y - L0^3)\n");

	/* a loop on top whose next iteration is coming is not always extended: a loop below can
	 * take the first events (ex), or a triplet that holds the top loop can (runs) */
	example(3, "yabababa yabababa yabababa yababab ab", "(y - L0^3 - a)^4\nb\n",
		"L0 = (a - b)\nL1 = (y - L0^3 - a)\n");
	example(3, "wabcabcabca wabcabcabca wabcabcabc abc", "(w - L0^3 - a)^3\nb\nc\n",
		"L0 = (a - b - c)\nL1 = (w - L0^3 - a)\n");

	/* token strings */
	char buf[32];
	CHECK_EQ_INT(nlr_token(buf, sizeof buf, (nlr_entry){ 13, 1 }, letter, NULL), 1);
	CHECK_EQ_STR(buf, "m");
	CHECK_EQ_INT(nlr_token(buf, sizeof buf, (nlr_entry){ NLR_LOOP | 3, 6 }, letter, NULL), 4);
	CHECK_EQ_STR(buf, "L3^6");
	CHECK_EQ_INT(nlr_token(buf, sizeof buf, (nlr_entry){ 99, 1 }, letter, NULL), 3);
	CHECK_EQ_STR(buf, "?99");
	CHECK_EQ_INT(nlr_token(buf, 3, (nlr_entry){ NLR_LOOP | 12, 345 }, NULL, NULL), 7);
	CHECK_EQ_STR(buf, "L1");
}

/* Appends an event, growing the array. */
struct evbuf {
	uint32_t *v;
	size_t n, cap, max;
};

static void put(struct evbuf *b, uint32_t x)
{
	if (b->n == b->max)
		return;
	GROW(b->v, b->cap, b->n + 1);
	b->v[b->n++] = x;
}

/* A random program: a sequence of calls and loops nested up to depth 4. Each loop's body is
 * fixed, so its iterations repeat, except for noise (an extra call, now and then). */
struct prog {
	int kind; /* 0 call, 1 loop */
	uint32_t sym, count;
	struct prog *body;
	size_t len;
};

static uint32_t rnd_count(void)
{
	switch (rnd(8)) {
	case 0: return 1;
	case 1: return 2;
	case 2: return 3;
	case 3: return 4 + rnd(3);
	case 4: return 20 + rnd(80);
	default: return 1 + rnd(9);
	}
}

static struct prog *gen(int depth, uint32_t alphabet, size_t *len)
{
	*len = 1 + rnd(depth ? 5 : 12);
	struct prog *p = xcalloc(*len, sizeof *p);
	for (size_t i = 0; i < *len; i++) {
		if (depth < 4 && rnd(3) == 0) {
			p[i].kind = 1;
			p[i].count = rnd_count();
			p[i].body = gen(depth + 1, alphabet, &p[i].len);
		} else {
			p[i].sym = rnd(alphabet);
		}
	}
	return p;
}

static void run(const struct prog *p, size_t len, uint32_t alphabet, uint32_t noise,
		struct evbuf *b)
{
	for (size_t i = 0; i < len && b->n < b->max; i++) {
		if (noise && rnd(noise) == 0)
			put(b, rnd(alphabet + 3));
		if (p[i].kind == 0)
			put(b, p[i].sym);
		else
			for (uint32_t c = 0; c < p[i].count && b->n < b->max; c++)
				run(p[i].body, p[i].len, alphabet, noise, b);
	}
}

static void prog_free(struct prog *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i].kind)
			prog_free(p[i].body, p[i].len);
	free(p);
}

/* A random trace: a program run until max events (programs that end early run again). */
static size_t random_trace(uint32_t **ev, size_t max)
{
	struct evbuf b = { NULL, 0, 0, max };
	uint32_t alphabet = 1 + rnd(rnd(2) ? 4 : 30);
	uint32_t noise = rnd(3) == 0 ? 0 : 20 + rnd(400);
	size_t len;
	struct prog *p = gen(0, alphabet, &len);
	while (b.n < max) {
		size_t before = b.n;
		run(p, len, alphabet, noise, &b);
		if (b.n == before)
			break;
	}
	prog_free(p, len);
	*ev = b.v;
	return b.n;
}

static int same_entries(const nlr_entry *a, size_t na, const nlr_entry *b, size_t nb)
{
	if (na != nb)
		return 0;
	for (size_t i = 0; i < na; i++)
		if (!nlr_entry_eq(a[i], b[i]))
			return 0;
	return 1;
}

/* Streams ev through compressor c in random blocks, taking the output after each block. */
static nlr_entry *stream_through(nlr_comp *c, const uint32_t *ev, size_t n, size_t *nout)
{
	dt_err e;
	dt_err_clear(&e);
	nlr_entry *all = NULL;
	size_t nall = 0, cap = 0, i = 0;
	for (int done = 0; !done;) {
		size_t blk = rnd(4) == 0 ? 0 : rnd(3) ? 1 + rnd(7) : rnd(3000);
		if (blk > n - i)
			blk = n - i;
		if (i == n) {
			nlr_comp_finish(c);
			done = 1;
		} else {
			CHECK(nlr_comp_push(c, ev + i, blk, &e) == 0);
			i += blk;
		}
		size_t got;
		const nlr_entry *v = nlr_comp_take(c, &got);
		GROW(all, cap, nall + got + 1);
		if (got)
			memcpy(all + nall, v, got * sizeof *v);
		nall += got;
	}
	CHECK_EQ_INT(nlr_comp_events(c), n);
	*nout = nall;
	return all;
}

/* The same through a new compressor. */
static nlr_entry *stream(nlr_table *t, const nlr_opts *o, const uint32_t *ev, size_t n,
			 size_t *nout)
{
	dt_err e;
	dt_err_clear(&e);
	nlr_comp *c = nlr_comp_new(t, o, &e);
	CHECK(c != NULL);
	nlr_entry *all = c ? stream_through(c, ev, n, nout) : NULL;
	nlr_comp_free(c);
	return all;
}

static nlr_entry *reference(nlr_table *t, const nlr_opts *o, const uint32_t *ev, size_t n,
			    size_t *nout)
{
	nlr_ref r;
	nlr_ref_init(&r, t, o);
	for (size_t i = 0; i < n; i++)
		nlr_ref_push(&r, ev[i]);
	nlr_ref_finish(&r);
	nlr_entry *out = r.out;
	*nout = r.nout;
	r.out = NULL;
	nlr_ref_free(&r);
	return out;
}

static void check_lossless(const nlr_table *t, const nlr_entry *v, size_t nv, const uint32_t *ev,
			   size_t n)
{
	uint32_t *back;
	size_t nback;
	uint64_t len;
	dt_err e;
	dt_err_clear(&e);
	CHECK(nlr_expand(t, v, nv, &back, &nback, &e) == 0);
	CHECK(nlr_expanded_len(t, v, nv, &len, &e) == 0);
	CHECK_EQ_INT(len, n);
	CHECK(nback == n && (n == 0 || !memcmp(back, ev, n * sizeof *ev)));
	free(back);
}

/* The compressor against the plain algorithm on random programs, for several K, windows and
 * count limits; each output must expand back to its input, streamed or not. */
static void test_random(void)
{
	static const unsigned ks[] = { 1, 2, 3, 4, 6, 10, 16, 20, 25, 32 };
	rng_state = 12345;
	int diffs = 0, folded = 0;
	for (int round = 0; round < 400; round++) {
		uint32_t *ev;
		size_t n = random_trace(&ev, 200 + rnd(4000));
		unsigned k = ks[round % 10];
		nlr_opts o = { k, 0, 0 };
		if (round % 5 == 3)
			o.window = 1 + rnd(2 * k + 2); /* small windows emit often */
		if (round % 7 == 5)
			o.count_max = 3 + rnd(5);

		nlr_table *t = nlr_table_new(), *tr = nlr_table_new(), *ts = nlr_table_new();
		size_t na, nr, ns;
		nlr_entry *a, *r, *s;
		dt_err e;
		dt_err_clear(&e);
		CHECK(nlr_compress(t, &o, ev, n, &a, &na, &e) == 0);
		r = reference(tr, &o, ev, n, &nr);
		s = stream(ts, &o, ev, n, &ns);
		if (!same_entries(a, na, r, nr) || !nlr_table_equal(t, tr))
			diffs++;
		if (!o.window) {
			/* the default window changes nothing on these programs: the plain algorithm
			 * with an unbounded stack gives the same entries */
			nlr_opts unb = o;
			unb.window = UINT32_MAX / 4;
			nlr_table *tu = nlr_table_new();
			size_t nu;
			nlr_entry *u = reference(tu, &unb, ev, n, &nu);
			if (!same_entries(a, na, u, nu))
				diffs++;
			free(u);
			nlr_table_free(tu);
		}
		CHECK(same_entries(a, na, s, ns));
		CHECK(nlr_table_equal(t, ts));
		/* a compressor reset after another trace (stopped part way or finished) gives the
		 * output of a new one */
		{
			uint32_t *ev2;
			size_t n2 = random_trace(&ev2, 200 + rnd(4000));
			nlr_table *t2 = nlr_table_new(), *tz = nlr_table_new();
			nlr_comp *c = nlr_comp_new(t2, &o, &e);
			CHECK(c != NULL);
			if (c) {
				CHECK(nlr_comp_push(c, ev2, round % 2 ? n2 : n2 / 2, &e) == 0);
				if (round % 2)
					nlr_comp_finish(c);
				nlr_comp_reset(c, tz);
				size_t nz;
				nlr_entry *z = stream_through(c, ev, n, &nz);
				CHECK(same_entries(a, na, z, nz));
				CHECK(nlr_table_equal(t, tz));
				free(z);
			}
			nlr_comp_free(c);
			nlr_table_free(t2);
			nlr_table_free(tz);
			free(ev2);
		}
		check_lossless(t, a, na, ev, n);
		if (na < n / 4)
			folded++;
		if (o.count_max)
			for (size_t i = 0; i < na; i++)
				CHECK(a[i].count <= o.count_max);
		free(a);
		free(r);
		free(s);
		free(ev);
		nlr_table_free(t);
		nlr_table_free(tr);
		nlr_table_free(ts);
	}
	CHECK_EQ_INT(diffs, 0);
	CHECK(folded > 60); /* the programs do have loops to find */
}

/* Bodies of up to 34 entries repeated over a small alphabet, for K from 17 to 32 (the four-word
 * runs): partial matches and hash collisions are common; the output must be the plain
 * algorithm's, streamed or not, and expand back to the input. */
static void test_long_bodies(void)
{
	static const unsigned ks[] = { 17, 24, 31, 32 };
	rng_state = 777;
	int diffs = 0, folded = 0;
	for (int round = 0; round < 80; round++) {
		unsigned k = ks[round % 4];
		size_t n = 0, max = 2000 + rnd(20000);
		uint32_t *ev = xmalloc(max * sizeof *ev);
		uint32_t alpha = 2 + rnd(6);
		while (n < max) {
			size_t len = 1 + rnd(34), reps = 1 + rnd(6);
			uint32_t body[34];
			for (size_t j = 0; j < len; j++)
				body[j] = 1 + rnd(alpha);
			for (size_t r = 0; r < reps; r++)
				for (size_t j = 0; j < len && n < max; j++)
					ev[n++] = body[j];
		}
		nlr_opts o = { k, 0, 0 };
		if (round % 5 == 3)
			o.window = 1 + rnd(2 * k + 2);
		nlr_table *t = nlr_table_new(), *tr = nlr_table_new(), *ts = nlr_table_new();
		size_t na, nr, ns;
		nlr_entry *a, *r, *st;
		dt_err e;
		dt_err_clear(&e);
		CHECK(nlr_compress(t, &o, ev, n, &a, &na, &e) == 0);
		r = reference(tr, &o, ev, n, &nr);
		st = stream(ts, &o, ev, n, &ns);
		if (!same_entries(a, na, r, nr) || !nlr_table_equal(t, tr))
			diffs++;
		CHECK(same_entries(a, na, st, ns));
		CHECK(nlr_table_equal(t, ts));
		check_lossless(t, a, na, ev, n);
		for (uint32_t id = 0; id < nlr_table_count(t); id++) {
			size_t bl;
			nlr_table_body(t, id, &bl);
			folded += bl > 16;
		}
		free(a);
		free(r);
		free(st);
		free(ev);
		nlr_table_free(t);
		nlr_table_free(tr);
		nlr_table_free(ts);
	}
	CHECK_EQ_INT(diffs, 0);
	CHECK(folded > 40); /* bodies longer than 16 were found */
}

/* The p (q (x y)^3)^3 nest completes with one event that collapses 15 stack entries, more
 * than 3K for K = 2: a window of 3K would have emitted the first p too early. */
static void test_window(void)
{
	uint32_t ev[4096];
	char s[4096] = "";
	for (int i = 0; i < 3; i++) {
		strcat(s, "p");
		for (int j = 0; j < 3; j++)
			strcat(s, "q xy xy xy");
	}
	dt_err e;
	dt_err_clear(&e);
	size_t n = ev_of(s, ev), nout;
	nlr_table *t = nlr_table_new();
	nlr_entry *out = compress(t, 2, ev, n, &nout);
	char *got = render(t, out, nout, 0);
	CHECK_EQ_STR(got, "(p - L1^3)^3\n");
	free(got);
	free(out);

	/* after emitting, nothing below the cut takes part in a rule: with a window of 2, a b a b
	 * is cut to a b before each push, so a b a b a b never shows three copies */
	nlr_opts w2 = { 2, 2, 0 };
	uint32_t ab[16];
	size_t nab = ev_of("ababab ab", ab);
	nlr_entry *ow;
	CHECK(nlr_compress(t, &w2, ab, nab, &ow, &nout, &e) == 0);
	CHECK_EQ_INT(nout, 8);
	free(ow);

	nlr_opts o = { 2, 6, 0 };
	CHECK(nlr_compress(t, &o, ev, n, &out, &nout, &e) == 0);
	CHECK(nout > 1);
	check_lossless(t, out, nout, ev, n);
	free(out);

	nlr_entry *none;
	CHECK(nlr_compress(t, NULL, ev, 0, &none, &nout, &e) == 0);
	CHECK(none == NULL && nout == 0);
	nlr_table_free(t);

	/* a long stream without repetition is emitted while it is pushed */
	nlr_table *t2 = nlr_table_new();
	nlr_comp *c = nlr_comp_new(t2, NULL, &e);
	uint32_t *big = xmalloc(100000 * sizeof *big);
	for (uint32_t i = 0; i < 100000; i++)
		big[i] = i + 1;
	CHECK(nlr_comp_push(c, big, 100000, &e) == 0);
	size_t got_n;
	const nlr_entry *v = nlr_comp_take(c, &got_n);
	CHECK(got_n >= 100000 - 2 * NLR_WINDOW(NLR_K_DEFAULT));
	CHECK(got_n <= 100000 - NLR_WINDOW(NLR_K_DEFAULT));
	CHECK(got_n > 0 && v[0].sym == 1 && v[got_n - 1].sym == got_n);
	nlr_comp_take(c, &got_n);
	CHECK_EQ_INT(got_n, 0); /* taken once only */
	nlr_comp_finish(c);
	v = nlr_comp_take(c, &got_n);
	CHECK(got_n >= NLR_WINDOW(NLR_K_DEFAULT) && v[got_n - 1].sym == 100000);
	free(big);

	/* after finish the compressor starts a new trace: nothing of the old one shows */
	nab = ev_of("ab ab ab", ab);
	CHECK(nlr_comp_push(c, ab, nab, &e) == 0);
	nlr_comp_finish(c);
	v = nlr_comp_take(c, &got_n);
	CHECK(got_n == 1 && nlr_is_loop(v[0]) && v[0].count == 3);
	CHECK_EQ_INT(nlr_comp_events(c), 100000 + nab);
	nlr_comp_free(c);
	nlr_table_free(t2);
}

/* A stand-in for the store: bodies persisted by nlr_table_each. */
struct saved {
	struct {
		uint32_t id;
		nlr_entry body[NLR_KMAX];
		size_t len;
	} *b;
	size_t n, cap;
	size_t stop_at; /* fail on this call (1-based), 0 never */
};

static int save_body(void *ctx, uint32_t id, const nlr_entry *body, size_t len)
{
	struct saved *s = ctx;
	if (s->stop_at && s->n + 1 == s->stop_at) {
		s->n++;
		return -7;
	}
	GROW(s->b, s->cap, s->n + 1);
	s->b[s->n].id = id;
	s->b[s->n].len = len;
	memcpy(s->b[s->n].body, body, len * sizeof *body);
	s->n++;
	return 0;
}

/* Loop ids: shared by traces, listed for saving, re-loaded identically, merged from private
 * tables (what threads do) into the same ids as sequential compression. */
static void test_ids(void)
{
	uint32_t a[64], b[64], c3[64];
	size_t na = ev_of("xyxyxy gg xyxyxy fggg fggg fggg", a);
	size_t nb = ev_of("hh xyxy xy fggg fggg fggg fggg", b);
	size_t nc = ev_of("mm mmm fggg fggg fggg fggg kk kkk", c3);
	dt_err e;
	dt_err_clear(&e);

	nlr_table *t = nlr_table_new();
	size_t noa, nob, noc;
	nlr_entry *oa = compress(t, 10, a, na, &noa);
	uint32_t after_a = nlr_table_count(t);
	nlr_entry *ob = compress(t, 10, b, nb, &nob);
	CHECK_EQ_INT(nlr_table_count(t), after_a); /* B has no body A did not have */
	char *ra = render(t, oa, noa, 0), *rb = render(t, ob, nob, 0);
	CHECK_EQ_STR(ra, "(x - y)^3\ng\ng\n(x - y)^3\n(f - L1^3)^3\n");
	CHECK_EQ_STR(rb, "h\nh\n(x - y)^3\n(f - L1^3)^4\n");
	free(ra);
	free(rb);
	nlr_entry *oc = compress(t, 10, c3, nc, &noc);
	uint32_t after_c = nlr_table_count(t);
	CHECK_EQ_INT(after_c, after_a + 2); /* (m) and (k) are new */

	/* what a caller persists after C: the bodies since after_a */
	size_t len;
	const nlr_entry *body = nlr_table_body(t, after_a, &len);
	CHECK(len == 1 && body[0].sym == 13 && body[0].count == 1);
	body = nlr_table_body(t, after_a + 1, &len);
	CHECK(len == 1 && body[0].sym == 11);
	CHECK(nlr_table_body(t, after_c, &len) == NULL && len == 0);
	struct saved sv = { NULL, 0, 0, 0 };
	CHECK_EQ_INT(nlr_table_each(t, after_a, save_body, &sv), 0);
	CHECK_EQ_INT(sv.n, 2);
	CHECK(sv.b[0].id == after_a && sv.b[1].id == after_a + 1 && sv.b[1].body[0].sym == 11);
	sv.stop_at = 1; /* the callback's failure stops the walk and is returned */
	sv.n = 0;
	CHECK_EQ_INT(nlr_table_each(t, 0, save_body, &sv), -7);
	CHECK_EQ_INT(sv.n, 1);

	/* save and re-load: same ids, so compressing again gives the same entries */
	sv.stop_at = 0;
	sv.n = 0;
	CHECK_EQ_INT(nlr_table_each(t, 0, save_body, &sv), 0);
	CHECK_EQ_INT(sv.n, after_c);
	nlr_table *t2 = nlr_table_new();
	for (size_t i = 0; i < sv.n; i++)
		CHECK(nlr_table_load(t2, sv.b[i].id, sv.b[i].body, sv.b[i].len, &e) == 0);
	free(sv.b);
	CHECK(nlr_table_equal(t, t2));
	size_t n2;
	nlr_entry *o2 = compress(t2, 10, b, nb, &n2);
	CHECK(same_entries(o2, n2, ob, nob));
	CHECK_EQ_INT(nlr_table_count(t2), after_c);
	free(o2);

	/* loads that cannot keep their ids are refused */
	body = nlr_table_body(t, 0, &len);
	CHECK(nlr_table_load(t2, after_c + 1, body, len, &e) == -1);
	dt_err_clear(&e);
	CHECK(nlr_table_load(t2, after_c, body, len, &e) == -1);
	CHECK(strstr(e.msg, "same body") != NULL);
	dt_err_clear(&e);
	nlr_entry bad[2] = { { 1, 1 }, { NLR_LOOP | 999, 3 } };
	uint32_t id;
	CHECK(nlr_table_intern(t2, bad, 2, &id, &e) == -1);
	dt_err_clear(&e);
	bad[1] = (nlr_entry){ 2, 2 };
	CHECK(nlr_table_intern(t2, bad, 2, &id, &e) == -1);
	dt_err_clear(&e);
	CHECK(nlr_table_intern(t2, bad, 0, &id, &e) == -1);
	dt_err_clear(&e);
	nlr_table_free(t2);

	/* threads: each trace on a private table, merged in trace order, remapped */
	nlr_table *shared = nlr_table_new();
	const uint32_t *evs[3] = { a, b, c3 };
	size_t ns[3] = { na, nb, nc };
	nlr_entry *want[3] = { oa, ob, oc };
	size_t nwant[3] = { noa, nob, noc };
	nlr_table *priv[3];
	nlr_entry *po[3];
	size_t npo[3];
	for (int i = 2; i >= 0; i--) { /* in any order, as threads would finish */
		priv[i] = nlr_table_new();
		po[i] = compress(priv[i], 10, evs[i], ns[i], &npo[i]);
	}
	CHECK(nlr_table_count(priv[1]) > 0);
	for (int i = 0; i < 3; i++) {
		uint32_t *map = xmalloc((nlr_table_count(priv[i]) + 1) * sizeof *map);
		CHECK(nlr_table_merge(shared, priv[i], map, &e) == 0);
		nlr_remap(po[i], npo[i], map);
		CHECK(same_entries(po[i], npo[i], want[i], nwant[i]));
		free(map);
		free(po[i]);
		nlr_table_free(priv[i]);
	}
	CHECK(nlr_table_equal(shared, t));
	nlr_table_free(shared);
	free(oa);
	free(ob);
	free(oc);
	nlr_table_free(t);
}

/* Real threads, each compressing traces on its own table; the main thread merges the tables
 * in trace order. The result is the same as one thread compressing all the traces in order. */
struct job {
	const uint32_t *ev;
	size_t n;
	nlr_table *t;
	nlr_entry *out;
	size_t nout;
};

static void *worker(void *arg)
{
	struct job *j = arg;
	dt_err e;
	dt_err_clear(&e);
	j->t = nlr_table_new();
	if (nlr_compress(j->t, NULL, j->ev, j->n, &j->out, &j->nout, &e))
		j->out = NULL;
	return NULL;
}

static void test_threads(void)
{
	enum { NT = 4 };
	uint32_t *ev[NT];
	size_t n[NT];
	struct job jobs[NT];
	pthread_t th[NT];
	rng_state = 777;
	for (int i = 0; i < NT; i++) {
		n[i] = random_trace(&ev[i], 3000);
		jobs[i] = (struct job){ ev[i], n[i], NULL, NULL, 0 };
	}
	for (int i = 0; i < NT; i++)
		CHECK(pthread_create(&th[i], NULL, worker, &jobs[i]) == 0);
	for (int i = 0; i < NT; i++)
		CHECK(pthread_join(th[i], NULL) == 0);

	dt_err e;
	dt_err_clear(&e);
	nlr_table *shared = nlr_table_new(), *seq = nlr_table_new();
	for (int i = 0; i < NT; i++) {
		uint32_t *map = xmalloc((nlr_table_count(jobs[i].t) + 1) * sizeof *map);
		CHECK(nlr_table_merge(shared, jobs[i].t, map, &e) == 0);
		nlr_remap(jobs[i].out, jobs[i].nout, map);
		size_t ns;
		nlr_entry *s1 = compress(seq, NLR_K_DEFAULT, ev[i], n[i], &ns);
		CHECK(same_entries(jobs[i].out, jobs[i].nout, s1, ns));
		check_lossless(shared, jobs[i].out, jobs[i].nout, ev[i], n[i]);
		free(s1);
		free(map);
		free(jobs[i].out);
		nlr_table_free(jobs[i].t);
		free(ev[i]);
	}
	CHECK(nlr_table_count(shared) > 0);
	CHECK(nlr_table_equal(shared, seq));
	nlr_table_free(shared);
	nlr_table_free(seq);
}

static void test_errors(void)
{
	dt_err e;
	dt_err_clear(&e);
	nlr_table *t = nlr_table_new();
	nlr_opts o = { NLR_KMAX + 1, 0, 0 };
	CHECK(nlr_comp_new(t, &o, &e) == NULL);
	CHECK_EQ_INT(e.status, DT_EUSAGE);
	dt_err_clear(&e);
	o = (nlr_opts){ 3, 0, 2 };
	CHECK(nlr_comp_new(t, &o, &e) == NULL);
	dt_err_clear(&e);

	nlr_comp *c = nlr_comp_new(t, NULL, &e);
	uint32_t ev[] = { 1, 1, 1, 0x80000001u, 2 };
	CHECK(nlr_comp_push(c, ev, 5, &e) == -1);
	CHECK_EQ_INT(e.status, DT_EDATA);
	CHECK(strstr(e.msg, "event 3") != NULL);
	CHECK_EQ_INT(nlr_comp_events(c), 3);
	nlr_comp_finish(c);
	size_t n;
	const nlr_entry *v = nlr_comp_take(c, &n);
	CHECK(n == 1 && nlr_is_loop(v[0]) && v[0].count == 3);
	nlr_comp_free(c);
	dt_err_clear(&e);

	/* a bad event where a loop iteration would continue: refused, not folded */
	c = nlr_comp_new(t, NULL, &e);
	uint32_t ev2[] = { 1, 2, 1, 2, 1, 2, 1, 0x80000002u };
	CHECK(nlr_comp_push(c, ev2, 8, &e) == -1);
	CHECK(strstr(e.msg, "event 7") != NULL);
	CHECK_EQ_INT(nlr_comp_events(c), 7);
	nlr_comp_finish(c);
	v = nlr_comp_take(c, &n);
	CHECK(n == 2 && nlr_is_loop(v[0]) && v[0].count == 3 && v[1].sym == 1);
	nlr_comp_free(c);
	dt_err_clear(&e);

	/* expansion and rendering refuse entries the table does not know */
	nlr_entry unknown[] = { { 1, 1 }, { NLR_LOOP | 7, 3 } };
	uint32_t *back;
	size_t nback;
	CHECK(nlr_expand(t, unknown, 2, &back, &nback, &e) == -1);
	dt_err_clear(&e);
	FILE *f = fopen("/dev/null", "w");
	CHECK(nlr_render(f, t, unknown, 2, letter, NULL, &e) == -1);
	dt_err_clear(&e);
	CHECK(nlr_render_loops(f, t, unknown, 2, letter, NULL, &e) == -1);
	dt_err_clear(&e);
	fclose(f);
	nlr_entry fn2[] = { { 4, 2 } };
	CHECK(nlr_expand(t, fn2, 1, &back, &nback, &e) == -1);
	dt_err_clear(&e);

	/* a loop that stands for more events than 2^64 */
	uint32_t id = 0;
	nlr_entry body[] = { { 1, 1 } };
	CHECK(nlr_table_intern(t, body, 1, &id, &e) == 0);
	for (int i = 0; i < 3; i++) {
		nlr_entry nb[] = { { NLR_LOOP | id, 0xffffffffu } };
		CHECK(nlr_table_intern(t, nb, 1, &id, &e) == 0);
	}
	nlr_entry top[] = { { NLR_LOOP | id, 2 } };
	uint64_t len;
	CHECK(nlr_expanded_len(t, top, 1, &len, &e) == -1);
	dt_err_clear(&e);
	nlr_table_free(t);
}

/* The K hint: a body of 12 calls repeated 5 times folds nothing at K = 10; the smallest K that
 * folds it is 12, its body 12 long; a trace that has a loop already, or one that no K up to the
 * bound folds, or one over the size bound, gets no hint. */
static void test_suggest_k(void)
{
	uint32_t ev[200];
	size_t n = 0;
	for (int r = 0; r < 5; r++)
		for (uint32_t c = 1; c <= 12; c++)
			ev[n++] = c;
	nlr_table *t = nlr_table_new();
	size_t nv, body = 0;
	nlr_entry *v = compress(t, 10, ev, n, &nv);
	CHECK_EQ_INT(nv, n); /* nothing folded at K = 10 */
	dt_err e;
	dt_err_clear(&e);
	CHECK_EQ_INT(nlr_suggest_k(t, v, nv, 10, NLR_KMAX, 1000, &body, &e), 12);
	CHECK_EQ_INT(body, 12);
	CHECK_EQ_INT(nlr_suggest_k(t, v, nv, 10, 11, 1000, &body, &e), 0); /* bound below 12 */
	CHECK_EQ_INT(nlr_suggest_k(t, v, nv, 10, NLR_KMAX, 10, &body, &e), 0); /* too long to try */
	free(v);
	/* folded already at K = 12: no hint */
	v = compress(t, 12, ev, n, &nv);
	CHECK(nv < n);
	CHECK_EQ_INT(nlr_suggest_k(t, v, nv, 12, NLR_KMAX, 1000, &body, &e), 0);
	free(v);
	/* all distinct: no K folds it */
	for (size_t i = 0; i < n; i++)
		ev[i] = (uint32_t)i + 1;
	v = compress(t, 10, ev, n, &nv);
	CHECK_EQ_INT(nlr_suggest_k(t, v, nv, 10, NLR_KMAX, 1000, &body, &e), 0);
	free(v);
	nlr_table_free(t);
}

int main(void)
{
	test_suggest_k();
	test_examples();
	test_random();
	test_long_bodies();
	test_window();
	test_ids();
	test_threads();
	test_errors();
	CHECK_DONE();
}
