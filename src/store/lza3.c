/* lza3.c: the ParLOT "LZa3 | ZE" codec (formats/parlot.md §1.4), widened to 32-bit values.
 *
 * The encoder is a value-at-a-time predictor (a 4096-slot hash of the last three values points
 * into a 65536-value history; a hit becomes a growing count token, a miss a literal) followed by
 * zero elimination of the 16-bit token stream in groups of four tokens. It reproduces ParLOT's
 * files byte for byte, so the same code reads real traces and writes the store's chunks.
 *
 * The decoder validates the framing (the group walk and the trailer) once, up front, so that the
 * per-value loop never checks bounds, and then expands tokens on demand into caller-sized blocks:
 * a count of up to 65535 values may be split across calls. Positions wrap at 16 bits exactly as
 * in ParLOT's 16-bit variables; the history holds 32-bit values so that wide values survive. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "store/lza3.h"

#define HBITS 12
#define HSIZE (1u << HBITS)
#define HMASK (HSIZE - 1)
#define PSIZE 65536u
#define PMASK (PSIZE - 1)
#define MAXCOUNT 0xFFFFu
#define ESCAPE 0xFFFFu /* a literal token that announces a value >= 0xFFFF in two more tokens */

/* The hash after emitting a, b, c (oldest first) from any earlier state: the shifts push every
 * older value out of the 12 bits, which lets the block updates below recompute it anywhere. */
#define HASH3(a, b, c) ((((uint32_t)(a) << 8) ^ ((uint32_t)(b) << 4) ^ (uint32_t)(c)) & HMASK)

/* Set bits per byte: the number of payload bytes that follow a bit-pattern byte. */
#define B2(n) n, n + 1, n + 1, n + 2
#define B4(n) B2(n), B2(n + 1), B2(n + 1), B2(n + 2)
#define B6(n) B4(n), B4(n + 1), B4(n + 1), B4(n + 2)
static const uint8_t lza3_popcount[256] = { B6(0), B6(1), B6(1), B6(2) };

/* ---- the history, shared by both directions ------------------------------------------------ */

/* Runs shorter than this go value by value: block copies only pay off on long repetitions. */
#define BULK_MIN 64

/* Emits k values of one count into the history (pattern, hash, ppos, h), exactly as k single
 * emits would. The values of a count at distance D from its source repeat with period D, so
 * the hash slot written at position i is written again at i + D once the three values behind i
 * lie inside the count: of that stretch only the last D hash writes survive, and only the last
 * 65536 values can reach the pattern. That turns a long count into a few block operations. */
static void lza3_hist(uint16_t *hash, uint32_t *pat, uint32_t *ppos, uint32_t *hp,
		      const uint32_t *v, size_t k, size_t dist)
{
	uint32_t pp = *ppos, h = *hp;
	size_t m = k > dist + 3 + BULK_MIN ? dist + 3 : k;
	for (size_t i = 0; i < m; i++) {
		hash[h] = (uint16_t)pp;
		h = ((h << 4) ^ v[i]) & HMASK;
		pat[pp] = v[i];
		pp = (pp + 1) & PMASK;
	}
	if (m < k) {
		/* pp is now the position of v[m]. */
		size_t from = k - m > PSIZE ? k - PSIZE : m;
		uint32_t p0 = (uint32_t)((pp + (from - m)) & PMASK);
		size_t cnt = k - from, first = PSIZE - p0 < cnt ? PSIZE - p0 : cnt;
		memcpy(pat + p0, v + from, first * sizeof *v);
		memcpy(pat, v + from + first, (cnt - first) * sizeof *v);
		for (size_t i = k - dist > m ? k - dist : m; i < k; i++)
			hash[HASH3(v[i - 3], v[i - 2], v[i - 1])] = (uint16_t)((pp + (i - m)) & PMASK);
		h = HASH3(v[k - 3], v[k - 2], v[k - 1]);
		pp = (uint32_t)((pp + (k - m)) & PMASK);
	}
	*ppos = pp;
	*hp = h;
}

/* How far behind the write position a count reads: 65536 when it reads the slot about to be
 * overwritten. */
static inline size_t lza3_dist(uint32_t ppos, uint32_t lpos)
{
	size_t d = (ppos - lpos) & PMASK;
	return d ? d : PSIZE;
}

/* ---- encoder ------------------------------------------------------------------------------- */

struct lza3_enc {
	uint16_t hash[HSIZE];
	uint32_t pattern[PSIZE];
	uint32_t ppos, lpos, h;
	int iscount;     /* tok[nt - 1] is a count that may still grow */
	uint16_t tok[4]; /* the staged group: written only when a fifth token arrives */
	unsigned nt;
	/* values put since the last reset: the history holds zeros past the first of them, so a
	 * reset clears only those (a store chunk of 10^4 events does not clear 256 KB twice) */
	uint64_t emitted;
};

lza3_enc *lza3_enc_new(void)
{
	lza3_enc *z = xmalloc(sizeof *z);
	memset(z, 0, sizeof *z);
	return z;
}

void lza3_enc_free(lza3_enc *z)
{
	free(z);
}

void lza3_enc_reset(lza3_enc *z)
{
	if (!z->emitted && !z->nt && !z->ppos && !z->h && !z->iscount)
		return; /* nothing put since the last reset: already clean */
	memset(z->hash, 0, sizeof z->hash);
	memset(z->pattern, 0,
	       (z->emitted < PSIZE ? (size_t)z->emitted : (size_t)PSIZE) * sizeof *z->pattern);
	z->ppos = z->lpos = z->h = 0;
	z->iscount = 0;
	z->nt = 0;
	memset(z->tok, 0, sizeof z->tok);
	z->emitted = 0;
}

/* Writes the first nbytes (8 for a full group, 2t for the last) of the staged tokens. */
static void lza3_put_group(const uint16_t tok[4], unsigned nbytes, dt_buf *out)
{
	if (out->cap - out->len < 9)
		GROW(out->p, out->cap, out->len + 9);
	uint8_t *q = out->p + out->len;
	uint8_t *bp = q++;
	unsigned bits = 0;
	for (unsigned i = 0; i < nbytes; i++) {
		uint8_t b = (uint8_t)(i & 1 ? tok[i >> 1] >> 8 : tok[i >> 1]);
		if (b) {
			bits |= 1u << i;
			*q++ = b;
		}
	}
	*bp = (uint8_t)bits;
	out->len = (size_t)(q - out->p);
}

static inline void lza3_put_tok(lza3_enc *z, unsigned t, dt_buf *out)
{
	if (z->nt == 4) {
		lza3_put_group(z->tok, 8, out);
		z->nt = 0;
	}
	z->tok[z->nt++] = (uint16_t)t;
}

static inline void lza3_put_lit(lza3_enc *z, uint32_t v, dt_buf *out)
{
	if (v >= ESCAPE) {
		lza3_put_tok(z, ESCAPE, out);
		lza3_put_tok(z, v >> 16, out);
		lza3_put_tok(z, v & 0xFFFF, out);
	} else {
		lza3_put_tok(z, v, out);
	}
}

void lza3_enc_put(lza3_enc *z, const uint32_t *v, size_t n, dt_buf *out)
{
	uint16_t *hash = z->hash;
	uint32_t *pat = z->pattern;
	uint32_t ppos = z->ppos, lpos = z->lpos, h = z->h;
	z->emitted += n; /* each value goes into the history once */
	for (size_t i = 0; i < n; i++) {
		if (z->iscount) {
			/* Extend the count as far as the input repeats the history: the first dist
			 * values against the pattern, the rest against the input itself. The count
			 * is always the last staged token, as nothing is emitted while counting. */
			uint16_t *cnt = &z->tok[z->nt - 1];
			size_t lim = n - i < (size_t)(MAXCOUNT - *cnt) ? n - i : (size_t)(MAXCOUNT - *cnt);
			size_t dist = lza3_dist(ppos, lpos), r = 0, m = lim < dist ? lim : dist;
			while (r < m && pat[(lpos + r) & PMASK] == v[i + r])
				r++;
			if (r == m)
				while (r < lim && v[i + r] == v[i + r - dist])
					r++;
			if (r) {
				*cnt = (uint16_t)(*cnt + r);
				lpos = (uint32_t)((lpos + r) & PMASK);
				lza3_hist(hash, pat, &ppos, &h, v + i, r, dist);
				i += r;
				if (i == n)
					break;
			}
			/* A mismatch or a saturated count: the value goes out as a literal. */
			z->iscount = 0;
			lza3_put_lit(z, v[i], out);
		} else {
			uint32_t x = v[i];
			lpos = hash[h];
			if (pat[(lpos - 1) & PMASK] == pat[(ppos - 1) & PMASK] &&
			    pat[(lpos - 2) & PMASK] == pat[(ppos - 2) & PMASK] &&
			    pat[(lpos - 3) & PMASK] == pat[(ppos - 3) & PMASK]) {
				if (pat[lpos] == x) {
					lza3_put_tok(z, 1, out);
					lpos = (lpos + 1) & PMASK;
					z->iscount = 1;
				} else {
					lza3_put_tok(z, 0, out);
					lza3_put_lit(z, x, out);
				}
			} else {
				lza3_put_lit(z, x, out);
			}
		}
		hash[h] = (uint16_t)ppos;
		h = ((h << 4) ^ v[i]) & HMASK;
		pat[ppos] = v[i];
		ppos = (ppos + 1) & PMASK;
	}
	z->ppos = ppos;
	z->lpos = lpos;
	z->h = h;
}

void lza3_enc_finish(lza3_enc *z, dt_buf *out)
{
	unsigned t = z->nt;
	if (t)
		lza3_put_group(z->tok, 2 * t, out);
	buf_byte(out, (uint8_t)t);
	lza3_enc_reset(z);
}

void lza3_enc_cut(lza3_enc *z, dt_buf *out)
{
	/* A full staged group is whole and final as far as the decoder can tell, so it is kept;
	 * a partial one is lost, as it would be in a killed process's buffer. */
	if (z->nt == 4)
		lza3_put_group(z->tok, 8, out);
	lza3_enc_reset(z);
}

/* ---- decoder ------------------------------------------------------------------------------- */

enum { LZA3_ST_STEP, LZA3_ST_COPY, LZA3_ST_LIT, LZA3_ST_END };

struct lza3_dec {
	uint16_t hash[HSIZE];
	uint32_t pattern[PSIZE];
	const uint8_t *in;
	size_t n;
	char *name;
	unsigned flags;
	size_t gpos;          /* byte offset of the next group to unpack */
	size_t gcur;          /* byte offset of the group the buffered tokens came from */
	uint64_t tokens_left; /* tokens not yet consumed, from the framing walk */
	uint16_t tok[4];
	unsigned ti;          /* next buffered token; 4 when the buffer is empty */
	uint32_t ppos, lpos, h;
	uint32_t rem;         /* values still to copy in the current count */
	int state;
	uint32_t cnt;         /* the count token before the pending literal ... */
	int after_count;      /* ... when there is one */
	size_t odd_at;        /* LZA3_ODD: the group of the first odd token */
	uint64_t nout;        /* values decoded, each written to pattern[nout mod PSIZE];
			       * UINT64_MAX after an error (lza3_dec_restart clears it all) */
};

/* Marks the stream as holding a state the encoder does not produce (first place only). */
static void lza3_odd(lza3_dec *d)
{
	if (!(d->flags & LZA3_ODD)) {
		d->flags |= LZA3_ODD;
		d->odd_at = d->gcur;
	}
}

/* Validates the group walk of parlot.md §1.4/§1.6 and counts the tokens it holds. */
static int lza3_frame(lza3_dec *d, dt_err *e)
{
	const uint8_t *in = d->in;
	size_t n = d->n, pos = 0, last = 0;
	uint64_t ngroups = 0;
	while (n - pos > 1) {
		size_t need = 1u + lza3_popcount[in[pos]];
		if (need > n - pos) {
			/* A partial write: keep what precedes the incomplete group. */
			d->flags |= LZA3_TRUNCATED;
			d->tokens_left = 4 * ngroups;
			return 0;
		}
		last = pos;
		pos += need;
		ngroups++;
	}
	if (pos == n) {
		d->flags |= LZA3_UNTERMINATED | (n == 0 ? LZA3_NO_DATA : 0);
		d->tokens_left = 4 * ngroups;
		return 0;
	}
	unsigned t = in[pos];
	if (t == 0) {
		/* Real trailers are 1..4, so a lone 00 after a group is an all-zero group of a file
		 * that lost its trailer; alone, it is the file of a thread that emitted nothing. */
		if (ngroups) {
			d->flags |= LZA3_UNTERMINATED;
			ngroups++;
		}
		d->tokens_left = 4 * ngroups;
		return 0;
	}
	if (t > 4)
		return dt_err_at(e, d->name, (int64_t)pos,
				 "bad trailer byte %u: a ParLOT trailer is 1..4 (corrupt or not a ParLOT trace)", t);
	if (!ngroups)
		return dt_err_at(e, d->name, (int64_t)pos, "trailer byte %u without any group before it", t);
	if (t < 4 && (in[last] >> (2 * t)))
		return dt_err_at(e, d->name, (int64_t)last,
				 "last group's bit-pattern byte 0x%02x has bits set past the %u token(s) "
				 "the trailer announces (corrupt trace)",
				 in[last], t);
	d->tokens_left = 4 * (ngroups - 1) + t;
	return 0;
}

lza3_dec *lza3_dec_new(const uint8_t *in, size_t n, const char *name, dt_err *e)
{
	lza3_dec *d = xcalloc(1, sizeof *d);
	d->in = in;
	d->n = n;
	d->name = xstrdup(name ? name : "");
	d->ti = 4;
	d->state = LZA3_ST_STEP;
	if (lza3_frame(d, e)) {
		lza3_dec_free(d);
		return NULL;
	}
	return d;
}

int lza3_dec_restart(lza3_dec *d, const uint8_t *in, size_t n, dt_err *e)
{
	/* the history as calloc left it: only the pattern positions written are cleared */
	size_t used = d->nout < PSIZE ? (size_t)d->nout : PSIZE;
	memset(d->pattern, 0, used * sizeof *d->pattern);
	memset(d->hash, 0, sizeof d->hash);
	char *name = d->name;
	memset((char *)d + offsetof(lza3_dec, in), 0, sizeof *d - offsetof(lza3_dec, in));
	d->name = name;
	d->in = in;
	d->n = n;
	d->ti = 4;
	d->state = LZA3_ST_STEP;
	if (lza3_frame(d, e)) {
		d->nout = UINT64_MAX;
		return -1;
	}
	return 0;
}

void lza3_dec_free(lza3_dec *d)
{
	if (!d)
		return;
	free(d->name);
	free(d);
}

unsigned lza3_dec_flags(const lza3_dec *d)
{
	return d->flags;
}

/* Unpacks the next group; the framing walk guaranteed that all its bytes are in the input. */
static void lza3_unpack(lza3_dec *d)
{
	const uint8_t *p = d->in + d->gpos;
	unsigned bits = *p++;
	uint8_t b[8];
	if (d->n - d->gpos >= 9) {
		/* Branch-free: on irregular traces the bit pattern is unpredictable, and reading
		 * one byte ahead is safe while 8 payload bytes could follow. */
		for (unsigned i = 0; i < 8; i++) {
			unsigned bit = (bits >> i) & 1;
			b[i] = (uint8_t)(*p & (0u - bit));
			p += bit;
		}
	} else {
		for (unsigned i = 0; i < 8; i++)
			b[i] = (bits >> i) & 1 ? *p++ : 0;
	}
	for (unsigned i = 0; i < 4; i++)
		d->tok[i] = (uint16_t)(b[2 * i] | (unsigned)b[2 * i + 1] << 8);
	d->gcur = d->gpos;
	d->gpos = (size_t)(p - d->in);
	d->ti = 0;
}

/* Callers check tokens_left first. */
static inline unsigned lza3_tok(lza3_dec *d)
{
	if (d->ti == 4)
		lza3_unpack(d);
	d->tokens_left--;
	return d->tok[d->ti++];
}

/* Copies k values of the current count into out and through the history. Values closer than
 * dist to the start come from the pattern (not yet overwritten: the writes go dist ahead); the
 * rest repeat out itself with period dist, copied in doubling blocks. */
static void lza3_copy(lza3_dec *d, uint32_t *out, size_t k)
{
	uint32_t *pat = d->pattern;
	uint32_t lp = d->lpos;
	size_t dist = lza3_dist(d->ppos, lp);
	if (k < BULK_MIN) {
		uint16_t *hash = d->hash;
		uint32_t pp = d->ppos, h = d->h;
		for (size_t i = 0; i < k; i++) {
			uint32_t v = pat[lp];
			lp = (lp + 1) & PMASK;
			hash[h] = (uint16_t)pp;
			h = ((h << 4) ^ v) & HMASK;
			pat[pp] = v;
			pp = (pp + 1) & PMASK;
			out[i] = v;
		}
		d->lpos = lp;
		d->ppos = pp;
		d->h = h;
		return;
	}
	size_t m = k < dist ? k : dist, first = PSIZE - lp < m ? PSIZE - lp : m;
	memcpy(out, pat + lp, first * sizeof *out);
	memcpy(out + first, pat, (m - first) * sizeof *out);
	for (size_t w = m; w < k;) {
		size_t span = w - w % dist, c = k - w < span ? k - w : span;
		memcpy(out + w, out + w - span, c * sizeof *out);
		w += c;
	}
	lza3_hist(d->hash, pat, &d->ppos, &d->h, out, k, dist);
	d->lpos = (uint32_t)((lp + k) & PMASK);
}

static int64_t dec_next(lza3_dec *d, uint32_t *out, size_t max, dt_err *e)
{
	size_t o = 0;
	uint32_t *pat = d->pattern;
	while (o < max) {
		switch (d->state) {
		case LZA3_ST_STEP: {
			if (!d->tokens_left) {
				d->state = LZA3_ST_END;
				return (int64_t)o;
			}
			uint32_t lpos = d->hash[d->h], ppos = d->ppos;
			d->lpos = lpos;
			if (pat[(lpos - 1) & PMASK] == pat[(ppos - 1) & PMASK] &&
			    pat[(lpos - 2) & PMASK] == pat[(ppos - 2) & PMASK] &&
			    pat[(lpos - 3) & PMASK] == pat[(ppos - 3) & PMASK]) {
				d->rem = lza3_tok(d);
				d->cnt = d->rem;
				d->after_count = 1;
				/* A count of 0 (a prediction miss) is the common case of irregular code. */
				d->state = d->rem ? LZA3_ST_COPY : LZA3_ST_LIT;
			} else {
				d->after_count = 0;
				d->state = LZA3_ST_LIT;
			}
			break;
		}
		case LZA3_ST_COPY: {
			size_t k = max - o < d->rem ? max - o : d->rem;
			lza3_copy(d, out + o, k);
			o += k;
			d->rem -= (uint32_t)k;
			if (!d->rem)
				d->state = LZA3_ST_LIT;
			break;
		}
		case LZA3_ST_LIT: {
			if (!d->tokens_left) {
				/* a count may be the last token, but not a count of 0: the encoder
				 * writes one only with the literal that missed the prediction */
				if (d->after_count && !d->cnt)
					lza3_odd(d);
				d->state = LZA3_ST_END;
				return (int64_t)o;
			}
			uint32_t v = lza3_tok(d);
			if (v == ESCAPE) {
				if (d->tokens_left < 2) {
					if (d->flags & (LZA3_UNTERMINATED | LZA3_TRUNCATED)) {
						/* The tail of a killed process's file is lost anyway. */
						d->tokens_left = 0;
						d->state = LZA3_ST_END;
						return (int64_t)o;
					}
					d->state = LZA3_ST_END;
					return dt_err_at(e, d->name, (int64_t)d->gcur,
							 "wide-value escape cut short by the end of the stream");
				}
				uint32_t hi = lza3_tok(d);
				v = hi << 16 | lza3_tok(d);
			}
			/* the encoder extends a count while the prediction holds (up to 65535):
			 * the literal that ends a count is never the predicted value */
			if (d->after_count && d->cnt < 65535 && v == pat[d->lpos & PMASK])
				lza3_odd(d);
			d->hash[d->h] = (uint16_t)d->ppos;
			d->h = ((d->h << 4) ^ v) & HMASK;
			pat[d->ppos] = v;
			d->ppos = (d->ppos + 1) & PMASK;
			out[o++] = v;
			d->state = LZA3_ST_STEP;
			break;
		}
		default:
			return (int64_t)o;
		}
	}
	return (int64_t)o;
}

int64_t lza3_dec_next(lza3_dec *d, uint32_t *out, size_t max, dt_err *e)
{
	int64_t r = dec_next(d, out, max, e);
	if (r < 0)
		d->nout = UINT64_MAX;
	else if (d->nout != UINT64_MAX)
		d->nout += (uint64_t)r;
	return r;
}

size_t lza3_dec_odd_at(const lza3_dec *d)
{
	return d->odd_at;
}

size_t lza3_zero_byte_at(const uint8_t *in, size_t n)
{
	/* the group walk of lza3_frame; a group cut by the end of the file is not looked at */
	size_t pos = 0;
	while (n - pos > 1) {
		size_t need = 1u + lza3_popcount[in[pos]];
		if (need > n - pos)
			break;
		if (memchr(in + pos + 1, 0, need - 1))
			return pos;
		pos += need;
	}
	return SIZE_MAX;
}

int lza3_decode_all(const uint8_t *in, size_t n, uint32_t **out, size_t *nout, unsigned *flags,
		    const char *name, dt_err *e)
{
	*out = NULL;
	*nout = 0;
	lza3_dec *d = lza3_dec_new(in, n, name, e);
	if (!d)
		return -1;
	uint32_t *v = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		GROW(v, cap, len + 65536);
		int64_t r = lza3_dec_next(d, v + len, cap - len, e);
		if (r < 0) {
			free(v);
			lza3_dec_free(d);
			return -1;
		}
		len += (size_t)r;
		/* short of the room asked for: the stream ended (the decoder fills all it is
		 * given until then), so the buffer need not grow for a last, empty call */
		if (!r || (size_t)r < cap - (len - (size_t)r))
			break;
	}
	if (flags)
		*flags = lza3_dec_flags(d);
	lza3_dec_free(d);
	*out = v;
	*nout = len;
	return 0;
}
