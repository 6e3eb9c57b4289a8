/* nlr.c: lossless nested loop recognition, the loop table, expansion and rendering.
 *
 * The compressor applies exactly the rules of the plain algorithm (see nlr.h) but never
 * compares blocks entry by entry to find out that no rule applies. Each stack position q
 * carries a summary of the stack up to q, computed when q is written from the summary of q-1:
 *   - run[q][b] = how many consecutive positions ending at q hold the same entry as the
 *     position b below them. The top 3b entries are three equal blocks when run[top][b] == 2b.
 *   - ext[q] = the set of d such that the entry d below q is a loop whose body starts with the
 *     d entries above it. The extension rule fires for d when that body is d long.
 * Every rule rewrites the top (a triplet replaces the top 3b entries by one, an extension pops
 * down to its loop), so the summaries below the rewritten position stay valid. The runs are
 * byte counters updated together, eight to a word (runs_wide: two words for K <= 16, four for
 * K <= 32), so a write costs a few dozen instructions instead of Θ(K²) comparisons; and when
 * the next events are one more iteration of the loop on top, the iteration costs one write
 * (push_loop). */
#include "analysis/nlr.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

_Static_assert(sizeof(nlr_entry) == 8, "nlr_entry is two uint32");

/* Entries are compared as one 64-bit word holding the struct's bytes, so equal words are
 * equal entries on any byte order; pack/unpack never depend on where count lands. */
static inline uint64_t pack(nlr_entry x)
{
	uint64_t u;
	memcpy(&u, &x, sizeof u);
	return u;
}

static inline nlr_entry unpack(uint64_t u)
{
	nlr_entry x;
	memcpy(&x, &u, sizeof x);
	return x;
}

static inline uint64_t mk(uint32_t sym, uint32_t count)
{
	return pack((nlr_entry){ sym, count });
}

/* ---- the loop table ---- */

struct nlr_table {
	nlr_entry *pool;    /* all bodies, one after another */
	size_t npool, cappool;
	size_t *off;        /* per id: where its body starts in pool */
	uint32_t *len;      /* per id: body length */
	uint64_t *hash;     /* per id */
	uint32_t n;
	size_t cap;
	uint32_t *slots;    /* open addressing: id + 1, 0 = empty */
	size_t nslots;
};

static uint64_t body_hash(const nlr_entry *b, size_t len)
{
	uint64_t h = 0x243f6a8885a308d3ULL ^ len;
	for (size_t i = 0; i < len; i++) {
		h = (h ^ pack(b[i])) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 31;
	}
	return h;
}

nlr_table *nlr_table_new(void)
{
	nlr_table *t = xcalloc(1, sizeof *t);
	t->nslots = 64;
	t->slots = xcalloc(t->nslots, sizeof *t->slots);
	return t;
}

void nlr_table_free(nlr_table *t)
{
	if (!t)
		return;
	free(t->pool);
	free(t->off);
	free(t->len);
	free(t->hash);
	free(t->slots);
	free(t);
}

uint32_t nlr_table_count(const nlr_table *t)
{
	return t->n;
}

const nlr_entry *nlr_table_body(const nlr_table *t, uint32_t id, size_t *len)
{
	if (id >= t->n) {
		*len = 0;
		return NULL;
	}
	*len = t->len[id];
	return t->pool + t->off[id];
}

int nlr_table_equal(const nlr_table *a, const nlr_table *b)
{
	if (a->n != b->n)
		return 0;
	for (uint32_t id = 0; id < a->n; id++) {
		size_t la = a->len[id];
		if (la != b->len[id])
			return 0;
		for (size_t i = 0; i < la; i++)
			if (!nlr_entry_eq(a->pool[a->off[id] + i], b->pool[b->off[id] + i]))
				return 0;
	}
	return 1;
}

int nlr_table_each(const nlr_table *t, uint32_t since,
		   int (*fn)(void *ctx, uint32_t id, const nlr_entry *body, size_t len), void *ctx)
{
	for (uint32_t id = since; id < t->n; id++) {
		int r = fn(ctx, id, t->pool + t->off[id], t->len[id]);
		if (r)
			return r;
	}
	return 0;
}

static uint32_t table_find(const nlr_table *t, const nlr_entry *b, size_t len, uint64_t h)
{
	size_t mask = t->nslots - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		uint32_t s = t->slots[i];
		if (!s)
			return UINT32_MAX;
		uint32_t id = s - 1;
		if (t->hash[id] == h && t->len[id] == len &&
		    !memcmp(t->pool + t->off[id], b, len * sizeof *b))
			return id;
	}
}

static void table_slot(nlr_table *t, uint32_t id)
{
	size_t mask = t->nslots - 1;
	size_t i = t->hash[id] & mask;
	while (t->slots[i])
		i = (i + 1) & mask;
	t->slots[i] = id + 1;
}

/* Appends a body known to be new and valid; returns its id. */
static uint32_t table_add(nlr_table *t, const nlr_entry *b, size_t len, uint64_t h)
{
	if (t->n == NLR_LOOP - 1)
		abort(); /* 2^31 distinct bodies: no id left, as unrecoverable as a failed malloc */
	if ((size_t)t->n + 1 > t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->off = xrealloc(t->off, t->cap * sizeof *t->off);
		t->len = xrealloc(t->len, t->cap * sizeof *t->len);
		t->hash = xrealloc(t->hash, t->cap * sizeof *t->hash);
	}
	GROW(t->pool, t->cappool, t->npool + len);
	memcpy(t->pool + t->npool, b, len * sizeof *b);
	uint32_t id = t->n++;
	t->off[id] = t->npool;
	t->len[id] = (uint32_t)len;
	t->hash[id] = h;
	t->npool += len;
	if (2 * (size_t)t->n > t->nslots) {
		free(t->slots);
		t->nslots *= 2;
		t->slots = xcalloc(t->nslots, sizeof *t->slots);
		for (uint32_t i = 0; i < t->n; i++)
			table_slot(t, i);
	} else {
		table_slot(t, id);
	}
	return id;
}

static uint32_t table_intern(nlr_table *t, const nlr_entry *b, size_t len)
{
	uint64_t h = body_hash(b, len);
	uint32_t id = table_find(t, b, len, h);
	return id != UINT32_MAX ? id : table_add(t, b, len, h);
}

static int body_check(const nlr_table *t, const nlr_entry *b, size_t len, dt_err *e)
{
	if (len == 0 || len > UINT32_MAX)
		return dt_errf(e, DT_EDATA, "loop body of %zu entries", len);
	for (size_t i = 0; i < len; i++) {
		if (nlr_is_loop(b[i]) ? nlr_loop_id(b[i]) >= t->n || b[i].count == 0
				      : b[i].count != 1)
			return dt_errf(e, DT_EDATA, "bad entry %zu in loop body (sym %#x, count %u)",
				       i, b[i].sym, b[i].count);
	}
	return 0;
}

int nlr_table_intern(nlr_table *t, const nlr_entry *body, size_t len, uint32_t *id, dt_err *e)
{
	if (body_check(t, body, len, e))
		return -1;
	*id = table_intern(t, body, len);
	return 0;
}

int nlr_table_load(nlr_table *t, uint32_t id, const nlr_entry *body, size_t len, dt_err *e)
{
	if (id != t->n)
		return dt_errf(e, DT_EDATA, "loop L%u loaded out of order (expected L%u)", id, t->n);
	if (body_check(t, body, len, e))
		return -1;
	uint64_t h = body_hash(body, len);
	uint32_t old = table_find(t, body, len, h);
	if (old != UINT32_MAX)
		return dt_errf(e, DT_EDATA, "loop L%u has the same body as L%u", id, old);
	table_add(t, body, len, h);
	return 0;
}

int nlr_table_merge(nlr_table *dst, const nlr_table *src, uint32_t *map, dt_err *e)
{
	nlr_entry *tmp = NULL;
	size_t cap = 0;
	for (uint32_t i = 0; i < src->n; i++) {
		size_t len = src->len[i];
		GROW(tmp, cap, len);
		memcpy(tmp, src->pool + src->off[i], len * sizeof *tmp);
		nlr_remap(tmp, len, map); /* nested ids are < i, so already mapped */
		if (nlr_table_intern(dst, tmp, len, &map[i], e)) {
			free(tmp);
			return -1;
		}
	}
	free(tmp);
	return 0;
}

void nlr_remap(nlr_entry *v, size_t n, const uint32_t *map)
{
	for (size_t i = 0; i < n; i++)
		if (nlr_is_loop(v[i]))
			v[i].sym = NLR_LOOP | map[nlr_loop_id(v[i])];
}

/* ---- the compressor ---- */

/* What the extension rule needs to know about a stack position. */
struct pos {
	uint64_t first; /* a loop that may still extend: its body's first entry; else nothing */
	uint64_t ex;    /* bit d: the loop d below matches the d entries above it */
	size_t bo;      /* a loop: where its body is in the table pool */
	uint32_t bl;    /* a loop: its body length */
};

struct nlr_comp {
	nlr_table *t;
	unsigned k;
	uint32_t window, cmax;
	ptrdiff_t h;        /* stack height */
	ptrdiff_t cap;      /* 2 * window: the height that triggers emitting */
	/* Per stack position, with GUARD positions below 0 (st: an entry equal to nothing; ps,
	 * rn, rw: empty summaries) so that looking below the bottom needs no test. */
	uint64_t *st0, *st; /* packed entries */
	struct pos *ps0, *ps;
	uint8_t *rn0, *rn;  /* K > WIDE: rows of rs bytes, the runs (see runs_narrow) */
	uint64_t *rw0, *rw; /* K <= WIDE: 2 * wide words per position, see runs_wide */
	size_t rs;
	int wide;           /* words of counters: 2 (K <= 16), 4 (K <= 32), 0 (narrow runs) */
	uint64_t lane[4], twob[4];
	nlr_entry *out;
	size_t nout, capout;
	int taken;
	uint64_t nev;
	ptrdiff_t hw;       /* positions [0, hw) were written since new or reset */
};

/* K up to WIDE uses the word-parallel runs: one-byte counters, eight to a word. */
#define WIDE 32
#define GUARD 32 /* >= NLR_KMAX and >= WIDE */
/* Count 0 never occurs in a real entry. */
#define GUARD_ENTRY mk(0x7fffffffu, 0)
#define ONES 0x0101010101010101ULL

nlr_comp *nlr_comp_new(nlr_table *t, const nlr_opts *o, dt_err *e)
{
	nlr_opts d = { 0, 0, 0 };
	if (o)
		d = *o;
	if (!d.k)
		d.k = NLR_K_DEFAULT;
	if (d.k > NLR_KMAX) {
		dt_errf(e, DT_EUSAGE, "NLR K must be 1..%u, not %u", NLR_KMAX, d.k);
		return NULL;
	}
	if (!d.window)
		d.window = NLR_WINDOW(d.k);
	if (d.window > (UINT32_MAX >> 2)) {
		dt_errf(e, DT_EUSAGE, "NLR window of %u entries is too large", d.window);
		return NULL;
	}
	if (!d.count_max)
		d.count_max = UINT32_MAX;
	if (d.count_max < 3) {
		dt_errf(e, DT_EUSAGE, "NLR loop count limit must be at least 3");
		return NULL;
	}
	nlr_comp *c = xcalloc(1, sizeof *c);
	c->t = t;
	c->k = d.k;
	c->window = d.window;
	c->cmax = d.count_max;
	c->cap = 2 * (ptrdiff_t)d.window;
	c->wide = d.k <= 16 ? 2 : d.k <= WIDE ? 4 : 0;
	size_t n = (size_t)c->cap + GUARD + 1;
	c->st0 = xmalloc(n * sizeof *c->st0);
	c->ps0 = xcalloc(n, sizeof *c->ps0);
	c->rs = c->wide ? 0 : (d.k + 8) & ~(size_t)7;
	c->rn0 = c->wide ? NULL : xcalloc(n, c->rs);
	c->rw0 = c->wide ? xcalloc(n, 2 * (size_t)c->wide * sizeof *c->rw0) : NULL;
	for (size_t i = 0; i < n; i++) {
		c->st0[i] = GUARD_ENTRY;
		c->ps0[i].first = GUARD_ENTRY;
	}
	c->st = c->st0 + GUARD;
	c->ps = c->ps0 + GUARD;
	c->hw = 0;
	c->rn = c->wide ? NULL : c->rn0 + GUARD * c->rs;
	c->rw = c->wide ? c->rw0 + 2 * c->wide * GUARD : NULL;
	/* wide runs: byte i of the counter words (i = 0..31, from the low byte of the first) is
	 * for b = i + 1 */
	for (unsigned i = 0; i < WIDE; i++) {
		unsigned b = i + 1;
		c->lane[i / 8] |= (uint64_t)(b <= d.k ? 0x80 : 0) << (8 * (i % 8));
		c->twob[i / 8] |= (uint64_t)(b <= d.k ? 128 - 2 * b : 0) << (8 * (i % 8));
	}
	return c;
}

void nlr_comp_reset(nlr_comp *c, nlr_table *t)
{
	/* every write lands at or below a position some push wrote (rules rewrite lower slots,
	 * emit_bottom moves entries down): clearing [0, hw) gives back the state of a new one */
	size_t n = (size_t)c->hw;
	for (size_t i = 0; i < n; i++) {
		c->st[i] = GUARD_ENTRY;
		c->ps[i] = (struct pos){ .first = GUARD_ENTRY };
	}
	if (c->wide)
		memset(c->rw, 0, n * 2 * (size_t)c->wide * sizeof *c->rw);
	else
		memset(c->rn, 0, n * c->rs);
	c->t = t;
	c->h = c->hw = 0;
	c->nout = 0;
	c->taken = 0;
	c->nev = 0;
}

void nlr_comp_free(nlr_comp *c)
{
	if (!c)
		return;
	free(c->st0);
	free(c->ps0);
	free(c->rw0);
	free(c->rn0);
	free(c->out);
	free(c);
}

/* Candidates of runs_wide, in increasing b: confirms one on the entries (it is returned, the
 * triplet applies) or sets the counter to the true run. */
static unsigned resolve(nlr_comp *c, ptrdiff_t q, const uint64_t *cand, int nw)
{
	uint64_t cw[4] = { cand[0], cand[1], nw > 2 ? cand[2] : 0, nw > 2 ? cand[3] : 0 };
	uint64_t *r = c->rw + 2 * nw * q + nw;
	for (int w = 0; w < nw; w++) {
		for (; cw[w]; cw[w] &= cw[w] - 1) {
			unsigned sh = (unsigned)__builtin_ctzll(cw[w]) & ~7u, b = 8 * w + sh / 8 + 1;
			unsigned n = 0;
			while (n < 2 * b && c->st[q - (ptrdiff_t)n] == c->st[q - (ptrdiff_t)(n + b)])
				n++;
			if (n == 2 * b)
				return b;
			r[w] = (r[w] & ~((uint64_t)0xff << sh)) | (uint64_t)n << sh;
		}
	}
	return 0;
}

/* The runs for K <= 32, word-parallel, in nw = 2 words (K <= 16) or 4. Position q keeps nw
 * words of an 8-bit hash of the entries q, q-1, ... q-8nw+1 (byte i for q-i), then nw words of
 * 8nw counters (byte b-1 for b): how many consecutive positions ending at q hold the same entry
 * as the position b below them. The top 3b entries are three equal blocks when counter b
 * reaches 2b (at most 64: a counter never carries into the next byte).
 *
 * The counters compare hashes, with a zero-byte test that may also flag a byte next to a
 * real match, so they may run ahead of the truth. One that reaches 2b is checked on the
 * entries (resolve), so a counter is never above 2b, and is 2b only for a real triplet.
 * Everything a position needs comes from the words of the position below, written whole:
 * no loads of bytes just stored one at a time (those stall store-to-load forwarding). */
static inline __attribute__((always_inline)) unsigned runs_wide(nlr_comp *c, ptrdiff_t q,
								 uint64_t x, int nw)
{
	const uint64_t hi = 0x8080808080808080ULL;
	uint64_t tx = (x * 0x9e3779b97f4a7c15ULL) >> 56;
	uint64_t *r = c->rw + 2 * nw * q;
	const uint64_t *p = r - 2 * nw;
	uint64_t bt = tx * ONES, any = 0, cand[4];
	for (int w = 0; w < nw; w++) {
		uint64_t h = p[w];
		r[w] = (h << 8) | (w ? p[w - 1] >> 56 : tx);
		uint64_t v = h ^ bt;
		uint64_t e = (v - ONES) & ~v & c->lane[w];
		uint64_t rr = (p[nw + w] + ONES) & (e | (e - (e >> 7)));
		r[nw + w] = rr;
		/* twob holds 128 - 2b per byte: the sum reaches bit 7 exactly at 2b, with no carry */
		cand[w] = (rr + c->twob[w]) & hi;
		any |= cand[w];
	}
	return any ? resolve(c, q, cand, nw) : 0;
}

/* The same for K > 16, one exact counter at a time. */
static inline unsigned runs_narrow(nlr_comp *c, ptrdiff_t q, uint64_t x)
{
	const uint8_t *rp = c->rn + (q - 1) * (ptrdiff_t)c->rs;
	uint8_t *r = c->rn + q * (ptrdiff_t)c->rs;
	uint64_t tm = 0;
	for (unsigned b = 1; b <= c->k; b++) {
		/* no cap needed: below the top run[b] < 2b, or the triplet would have fired */
		unsigned v = c->st[q - (ptrdiff_t)b] == x ? rp[b] + 1u : 0;
		r[b] = (uint8_t)v;
		tm |= (uint64_t)(v == 2 * b) << b;
	}
	return tm ? (unsigned)__builtin_ctzll(tm) : 0;
}

/* Writes x at position q (the new top) and computes q's summary. Returns the b for which the
 * triplet rule applies (0 for none); *ext gets the bits d for which the extension rule does. */
static inline __attribute__((always_inline)) unsigned
slot_set(nlr_comp *c, ptrdiff_t q, uint64_t x, uint64_t *ext, int wide) /* wide: as c->wide */
{
	const nlr_entry *pool = c->t->pool;
	struct pos *ps = c->ps + q;
	c->st[q] = x;
	nlr_entry xe = unpack(x);
	ps->first = GUARD_ENTRY;
	if (nlr_is_loop(xe)) {
		uint32_t id = nlr_loop_id(xe);
		ps->bo = c->t->off[id];
		ps->bl = c->t->len[id];
		if (xe.count < c->cmax)
			ps->first = pack(pool[ps->bo]);
	}
	unsigned trip = wide == 2   ? runs_wide(c, q, x, 2)
			: wide == 4 ? runs_wide(c, q, x, 4)
				    : runs_narrow(c, q, x);

	uint64_t em = 0, dm = 0;
	if (ps[-1].first == x) {
		em = 2;
		dm = ps[-1].bl == 1 ? 2 : 0;
	}
	for (uint64_t pm = ps[-1].ex; pm; pm &= pm - 1) {
		unsigned d = (unsigned)__builtin_ctzll(pm); /* the loop at q-1-d matched d entries */
		const struct pos *p = ps - 1 - d;
		/* bl > d: a complete match below the top would have been extended already */
		if (pack(pool[p->bo + d]) == x) {
			em |= (uint64_t)1 << (d + 1);
			if (p->bl == d + 1)
				dm |= (uint64_t)1 << (d + 1);
		}
	}
	ps->ex = em;
	*ext = dm;
	return trip;
}

static void out_put(nlr_comp *c, const uint64_t *v, size_t n)
{
	GROW(c->out, c->capout, c->nout + n);
	for (size_t i = 0; i < n; i++)
		c->out[c->nout + i] = unpack(v[i]);
	c->nout += n;
}

/* Emits all but the top window entries. The summaries of the positions that now sit near the
 * bottom described entries that are gone; recomputing the lowest 3K (all a summary can see)
 * makes the rest of the trace behave exactly as if the stack had started at the cut. */
static void emit_bottom(nlr_comp *c)
{
	ptrdiff_t cut = c->h - (ptrdiff_t)c->window, keep = c->window;
	out_put(c, c->st, (size_t)cut);
	memmove(c->st, c->st + cut, (size_t)keep * sizeof *c->st);
	memmove(c->ps, c->ps + cut, (size_t)keep * sizeof *c->ps);
	if (c->wide)
		memmove(c->rw, c->rw + 2 * c->wide * cut, (size_t)keep * 2 * c->wide * sizeof *c->rw);
	else
		memmove(c->rn, c->rn + cut * (ptrdiff_t)c->rs, (size_t)keep * c->rs);
	c->h = keep;
	ptrdiff_t redo = 3 * (ptrdiff_t)c->k < keep ? 3 * (ptrdiff_t)c->k : keep;
	uint64_t dm;
	for (ptrdiff_t q = 0; q < redo; q++)
		slot_set(c, q, c->st[q], &dm, c->wide);
}

static inline void take_reset(nlr_comp *c)
{
	if (c->taken) {
		c->nout = 0;
		c->taken = 0;
	}
}

/* No entry within K below the top equals the top (all run counters are 0; they never
 * undercount). */
static inline __attribute__((always_inline)) int top_unrepeated(const nlr_comp *c, ptrdiff_t p,
								 int wide)
{
	if (wide == 2)
		return !(c->rw[4 * p + 2] | c->rw[4 * p + 3]);
	if (wide == 4) {
		const uint64_t *r = c->rw + 8 * p + 4;
		return !(r[0] | r[1] | r[2] | r[3]);
	}
	const uint8_t *r = c->rn + p * (ptrdiff_t)c->rs;
	for (unsigned b = 1; b <= c->k; b++)
		if (r[b])
			return 0;
	return 1;
}

/* The push loop, compiled once per kind of runs so the per-event path has no test of it.
 *
 * The fast path: the top is a loop L^c whose body B holds functions only, and the next events
 * are B once more. Pushing them one by one would end with L^(c+1) and nothing else, unless a
 * rule fired on the way. None can: a rule within the partial copy of B would have fired when
 * B was first on the stack; a triplet reaching L needs L in its top block, so an entry equal
 * to L^c within K below it (the top's run counters are all 0: there is none); an extension of
 * a loop below L needs that loop's body to match up to L^c (the top's ex is 0: none does).
 * So the whole iteration is one count increment, provided the pushes would not have reached
 * the emission height either (then the stack would have been cut in the middle). */
static inline __attribute__((always_inline)) size_t push_loop(nlr_comp *c, const uint32_t *ev,
								size_t n, int wide)
{
	ptrdiff_t h = c->h;
	size_t i = 0;
	while (i < n) {
		uint32_t v = ev[i];
		if (v & NLR_LOOP)
			break;
		ptrdiff_t q = h - 1;
		const struct pos *tp = c->ps + q;
		uint64_t dm, x = mk(v, 1);
		unsigned b;
		size_t len = tp->bl;
		if (tp->first == x && !tp->ex && q + (ptrdiff_t)len < c->cap && len <= n - i &&
		    top_unrepeated(c, q, wide)) {
			/* a body with a loop in it never matches events: no entry from one event
			 * has a loop's count */
			const nlr_entry *body = c->t->pool + tp->bo;
			size_t j = 1;
			while (j < len && pack(body[j]) == mk(ev[i + j], 1))
				j++;
			if (j == len) {
				nlr_entry l = unpack(c->st[q]);
				b = slot_set(c, q, mk(l.sym, l.count + 1), &dm, wide);
				i += len;
				goto rules;
			}
		}
		if (h >= c->cap) {
			c->h = h;
			emit_bottom(c);
			h = c->h;
		}
		q = h;
		if (q >= c->hw) /* the highest position a push writes: see nlr_comp_reset */
			c->hw = q + 1;
		b = slot_set(c, q, x, &dm, wide);
		i++;
	rules:
		/* At most one rule applies at a time (a second one would have applied to a shorter
		 * stack before), so which to try first does not matter. */
		while (b | dm) {
			if (b) {
				/* the top block, as entries: the packed words are their bytes */
				nlr_entry blk[NLR_KMAX];
				memcpy(blk, c->st + q - b + 1, b * sizeof *blk);
				uint32_t id = table_intern(c->t, blk, b);
				q -= 3 * (ptrdiff_t)b - 1;
				x = mk(NLR_LOOP | id, 3);
			} else {
				q -= __builtin_ctzll(dm);
				nlr_entry l = unpack(c->st[q]);
				x = mk(l.sym, l.count + 1);
			}
			b = slot_set(c, q, x, &dm, wide);
		}
		h = q + 1;
	}
	c->h = h;
	return i;
}

int nlr_comp_push(nlr_comp *c, const uint32_t *ev, size_t n, dt_err *e)
{
	take_reset(c);
	size_t i = c->wide == 2   ? push_loop(c, ev, n, 2)
		   : c->wide == 4 ? push_loop(c, ev, n, 4)
				  : push_loop(c, ev, n, 0);
	c->nev += i;
	if (i < n)
		return dt_errf(e, DT_EDATA, "event %llu: function id %u out of range",
			       (unsigned long long)c->nev, ev[i]);
	return 0;
}

void nlr_comp_finish(nlr_comp *c)
{
	take_reset(c);
	out_put(c, c->st, (size_t)c->h);
	c->h = 0;
}

const nlr_entry *nlr_comp_take(nlr_comp *c, size_t *n)
{
	take_reset(c);
	c->taken = 1;
	*n = c->nout;
	return c->out;
}

uint64_t nlr_comp_events(const nlr_comp *c)
{
	return c->nev;
}

int nlr_compress(nlr_table *t, const nlr_opts *o, const uint32_t *ev, size_t n, nlr_entry **out,
		 size_t *nout, dt_err *e)
{
	*out = NULL;
	*nout = 0;
	nlr_comp *c = nlr_comp_new(t, o, e);
	if (!c)
		return -1;
	if (nlr_comp_push(c, ev, n, e)) {
		nlr_comp_free(c);
		return -1;
	}
	nlr_comp_finish(c);
	/* the compressor's buffer becomes the result */
	*out = c->nout ? c->out : NULL;
	*nout = c->nout;
	if (c->nout)
		c->out = NULL;
	nlr_comp_free(c);
	return 0;
}

/* ---- expansion ---- */

static int entry_check(const nlr_table *t, nlr_entry x, dt_err *e)
{
	if (nlr_is_loop(x) ? nlr_loop_id(x) >= t->n : x.count != 1)
		return dt_errf(e, DT_EDATA, "bad NLR entry (sym %#x, count %u)", x.sym, x.count);
	return 0;
}

/* lens[id] for every id <= top: bodies only refer to smaller ids, so one ascending pass. */
static int loop_lens(const nlr_table *t, uint32_t top, uint64_t *lens, dt_err *e)
{
	for (uint32_t id = 0; id <= top; id++) {
		const nlr_entry *b = t->pool + t->off[id];
		uint64_t s = 0;
		for (uint32_t i = 0; i < t->len[id]; i++) {
			uint64_t l = nlr_is_loop(b[i]) ? lens[nlr_loop_id(b[i])] : 1, m;
			if (__builtin_mul_overflow(l, (uint64_t)b[i].count, &m) ||
			    __builtin_add_overflow(s, m, &s))
				return dt_errf(e, DT_EDATA, "loop L%u stands for over 2^64 events", id);
		}
		lens[id] = s;
	}
	return 0;
}

int nlr_expanded_len(const nlr_table *t, const nlr_entry *v, size_t n, uint64_t *len, dt_err *e)
{
	uint32_t top = 0;
	int any = 0;
	for (size_t i = 0; i < n; i++) {
		if (entry_check(t, v[i], e))
			return -1;
		if (nlr_is_loop(v[i]) && nlr_loop_id(v[i]) >= top) {
			top = nlr_loop_id(v[i]);
			any = 1;
		}
	}
	uint64_t *lens = any ? xmalloc(((size_t)top + 1) * sizeof *lens) : NULL;
	int r = any ? loop_lens(t, top, lens, e) : 0;
	uint64_t s = 0;
	for (size_t i = 0; !r && i < n; i++) {
		uint64_t l = nlr_is_loop(v[i]) ? lens[nlr_loop_id(v[i])] : 1, m;
		if (__builtin_mul_overflow(l, (uint64_t)v[i].count, &m) ||
		    __builtin_add_overflow(s, m, &s))
			r = dt_errf(e, DT_EDATA, "NLR trace stands for over 2^64 events");
	}
	free(lens);
	*len = s;
	return r;
}

struct xframe {
	const nlr_entry *body;
	uint32_t len, i, count;
	size_t start; /* where this loop's first iteration began in the output */
};

int nlr_expand(const nlr_table *t, const nlr_entry *v, size_t n, uint32_t **ev, size_t *nev,
	       dt_err *e)
{
	*ev = NULL;
	*nev = 0;
	uint64_t total;
	if (nlr_expanded_len(t, v, n, &total, e))
		return -1;
	if (total > SIZE_MAX / sizeof(uint32_t))
		return dt_errf(e, DT_EDATA, "NLR trace of %llu events does not fit in memory",
			       (unsigned long long)total);
	uint32_t *o = total ? xmalloc((size_t)total * sizeof *o) : NULL;
	size_t w = 0;
	/* An explicit stack: a damaged table could nest deeper than the C stack allows. Each
	 * loop's first iteration is unfolded, then copied count - 1 times. */
	struct xframe *fr = NULL;
	size_t nfr = 0, capfr = 0;
	for (size_t i = 0; i < n; i++) {
		nlr_entry x = v[i];
		for (;;) {
			if (nlr_is_loop(x)) {
				GROW(fr, capfr, nfr + 1);
				uint32_t id = nlr_loop_id(x);
				fr[nfr++] = (struct xframe){ t->pool + t->off[id], t->len[id], 0,
							     x.count, w };
			} else {
				o[w++] = x.sym;
			}
			while (nfr && fr[nfr - 1].i == fr[nfr - 1].len) {
				struct xframe *f = &fr[--nfr];
				size_t it = w - f->start;
				for (uint32_t c = 1; c < f->count; c++, w += it)
					memcpy(o + w, o + f->start, it * sizeof *o);
			}
			if (!nfr)
				break;
			x = fr[nfr - 1].body[fr[nfr - 1].i++];
		}
	}
	free(fr);
	*ev = o;
	*nev = w;
	return 0;
}

/* ---- rendering ---- */

int nlr_token(char *buf, size_t size, nlr_entry x, nlr_name_fn name, void *ctx)
{
	if (nlr_is_loop(x))
		return snprintf(buf, size, "L%u^%u", nlr_loop_id(x), x.count);
	const char *s = name ? name(ctx, x.sym) : NULL;
	return s ? snprintf(buf, size, "%s", s) : snprintf(buf, size, "?%u", x.sym);
}

static void put_token(FILE *f, nlr_entry x, nlr_name_fn name, void *ctx)
{
	if (!nlr_is_loop(x)) {
		const char *s = name ? name(ctx, x.sym) : NULL;
		if (s)
			fputs(s, f);
		else
			fprintf(f, "?%u", x.sym);
	} else {
		fprintf(f, "L%u^%u", nlr_loop_id(x), x.count);
	}
}

static void put_body(FILE *f, const nlr_table *t, uint32_t id, nlr_name_fn name, void *ctx)
{
	const nlr_entry *b = t->pool + t->off[id];
	fputc('(', f);
	for (uint32_t i = 0; i < t->len[id]; i++) {
		if (i)
			fputs(" - ", f);
		put_token(f, b[i], name, ctx);
	}
	fputc(')', f);
}

int nlr_render(FILE *f, const nlr_table *t, const nlr_entry *v, size_t n, nlr_name_fn name,
	       void *ctx, dt_err *e)
{
	for (size_t i = 0; i < n; i++) {
		if (entry_check(t, v[i], e))
			return -1;
		if (nlr_is_loop(v[i])) {
			put_body(f, t, nlr_loop_id(v[i]), name, ctx);
			fprintf(f, "^%u\n", v[i].count);
		} else {
			put_token(f, v[i], name, ctx);
			fputc('\n', f);
		}
	}
	return ferror(f) ? dt_errf(e, DT_EDATA, "writing the NLR trace failed") : 0;
}

int nlr_render_loops(FILE *f, const nlr_table *t, const nlr_entry *v, size_t n, nlr_name_fn name,
		     void *ctx, dt_err *e)
{
	uint8_t *used = t->n ? xcalloc(t->n, 1) : NULL;
	for (size_t i = 0; i < n; i++) {
		if (entry_check(t, v[i], e)) {
			free(used);
			return -1;
		}
		if (nlr_is_loop(v[i]))
			used[nlr_loop_id(v[i])] = 1;
	}
	/* nested ids are smaller than their loop's: one descending pass marks them all */
	for (uint32_t id = t->n; id-- > 0;) {
		if (!used[id])
			continue;
		const nlr_entry *b = t->pool + t->off[id];
		for (uint32_t i = 0; i < t->len[id]; i++)
			if (nlr_is_loop(b[i]))
				used[nlr_loop_id(b[i])] = 1;
	}
	for (uint32_t id = 0; id < t->n; id++) {
		if (!used[id])
			continue;
		fprintf(f, "L%u = ", id);
		put_body(f, t, id, name, ctx);
		fputc('\n', f);
	}
	free(used);
	return ferror(f) ? dt_errf(e, DT_EDATA, "writing the loop table failed") : 0;
}

unsigned nlr_suggest_k(const nlr_table *t, const nlr_entry *v, size_t n, unsigned k, unsigned kmax,
		       size_t max_events, size_t *body, dt_err *e)
{
	*body = 0;
	for (size_t i = 0; i < n; i++)
		if (nlr_is_loop(v[i]))
			return 0;
	if (n > max_events || n < 2 * (size_t)(k + 1))
		return 0;
	uint32_t *ev;
	size_t nev;
	if (nlr_expand(t, v, n, &ev, &nev, e))
		return 0;
	unsigned found = 0;
	for (unsigned kk = k + 1; kk <= kmax && !found && nev >= 2 * (size_t)kk; kk++) {
		nlr_table *scratch = nlr_table_new();
		nlr_opts o = { .k = kk };
		nlr_entry *out = NULL;
		size_t nout = 0;
		if (nlr_compress(scratch, &o, ev, nev, &out, &nout, e)) {
			nlr_table_free(scratch);
			break;
		}
		for (size_t i = 0; i < nout && !found; i++)
			if (nlr_is_loop(out[i])) {
				size_t bn;
				nlr_table_body(scratch, nlr_loop_id(out[i]), &bn);
				found = kk;
				*body = bn;
			}
		free(out);
		nlr_table_free(scratch);
	}
	free(ev);
	return found;
}
