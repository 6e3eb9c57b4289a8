/* peers.c: relative or absolute MPI peers, decided per kind of call over a run (peers.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/peers.h"

#define NKEYS 2
static const char *const peer_keys[NKEYS] = { "dest=", "source=" };

struct peers {
	int nprocs;
	strmap groups;   /* kind of call -> index */
	size_t ngroups, cap;
	size_t (*count)[2 * NKEYS]; /* per group: distinct absolute, relative values per key */
	unsigned *rel;   /* per group: bit k set: key k relative */
	strmap seen;     /* group|key|a|value and group|key|r|value already counted */
};

peers *peers_new(int nprocs)
{
	peers *p = xcalloc(1, sizeof *p);
	p->nprocs = nprocs > 0 ? nprocs : 1;
	strmap_init(&p->groups);
	strmap_init(&p->seen);
	return p;
}

void peers_free(peers *p)
{
	if (!p)
		return;
	strmap_free(&p->groups);
	strmap_free(&p->seen);
	free(p->count);
	free(p->rel);
	free(p);
}

/* Which peer key starts at s (after '[' or ','), or -1. */
static int key_at(const char *s)
{
	for (int k = 0; k < NKEYS; k++)
		if (!strncmp(s, peer_keys[k], strlen(peer_keys[k])))
			return k;
	return -1;
}

/* The kind of call: name with the peers' values left out, into b. */
static void group_of(const char *name, dt_buf *b)
{
	b->len = 0;
	const char *q = name;
	while (*q) {
		int k = (q > name && (q[-1] == '[' || q[-1] == ',')) ? key_at(q) : -1;
		if (k >= 0) {
			size_t l = strlen(peer_keys[k]);
			buf_put(b, q, l);
			q += l;
			while (*q && *q != ',' && *q != ']')
				q++;
			continue;
		}
		buf_byte(b, (uint8_t)*q++);
	}
	buf_byte(b, 0);
	b->len--;
}

static int rel_of(int v, int proc, int np)
{
	int d = ((v - proc) % np + np) % np;
	return d > np / 2 ? d - np : d;
}

/* Calls fn for each peer of name: its key and value (ANY, PROC_NULL and negative values are no
 * peers). */
static void each_peer(const char *name, void (*fn)(void *, int, int), void *ctx)
{
	for (const char *q = strchr(name, '['); q && *q; q++) {
		if (*q != '[' && *q != ',')
			continue;
		int k = key_at(q + 1);
		if (k < 0)
			continue;
		const char *v = q + 1 + strlen(peer_keys[k]);
		char *end;
		long x = strtol(v, &end, 10);
		if (end != v && (*end == ',' || *end == ']') && x >= 0 && x < (1L << 30))
			fn(ctx, k, (int)x);
	}
}

struct see_ctx {
	peers *p;
	size_t g;
	int proc;
};

static void see_one(void *ctx, int k, int v)
{
	struct see_ctx *c = ctx;
	char key[64];
	int r = rel_of(v, c->proc, c->p->nprocs);
	int l = snprintf(key, sizeof key, "%zu|%d|a|%d", c->g, k, v);
	uint32_t dummy;
	if (!strmap_get(&c->p->seen, key, (size_t)l, &dummy)) {
		strmap_put(&c->p->seen, key, (size_t)l, 1);
		c->p->count[c->g][2 * k]++;
	}
	l = snprintf(key, sizeof key, "%zu|%d|r|%d", c->g, k, r);
	if (!strmap_get(&c->p->seen, key, (size_t)l, &dummy)) {
		strmap_put(&c->p->seen, key, (size_t)l, 1);
		c->p->count[c->g][2 * k + 1]++;
	}
}

void peers_see(peers *p, const char *name, int proc)
{
	dt_buf g = { 0 };
	group_of(name, &g);
	uint32_t id;
	if (!strmap_get(&p->groups, (const char *)g.p, g.len, &id)) {
		id = (uint32_t)p->ngroups;
		strmap_put(&p->groups, (const char *)g.p, g.len, id);
		if (p->ngroups == p->cap) {
			p->cap = p->cap ? 2 * p->cap : 16;
			p->count = xrealloc(p->count, p->cap * sizeof *p->count);
			p->rel = xrealloc(p->rel, p->cap * sizeof *p->rel);
		}
		memset(p->count[p->ngroups], 0, sizeof p->count[p->ngroups]);
		p->rel[p->ngroups++] = 0;
	}
	struct see_ctx c = { p, id, proc };
	each_peer(name, see_one, &c);
	buf_free(&g);
}

void peers_decide(peers *p)
{
	for (size_t g = 0; g < p->ngroups; g++) {
		p->rel[g] = 0;
		for (int k = 0; k < NKEYS; k++)
			if (p->count[g][2 * k] && p->count[g][2 * k + 1] <= p->count[g][2 * k])
				p->rel[g] |= 1u << k;
	}
}

void peers_rewrite(const peers *p, const char *name, int proc, dt_buf *out)
{
	out->len = 0;
	unsigned rel = 0;
	dt_buf g = { 0 };
	group_of(name, &g);
	uint32_t id;
	if (strmap_get(&p->groups, (const char *)g.p, g.len, &id))
		rel = p->rel[id];
	buf_free(&g);
	const char *q = name;
	while (*q) {
		int k = (q > name && (q[-1] == '[' || q[-1] == ',')) ? key_at(q) : -1;
		if (k < 0) {
			buf_byte(out, (uint8_t)*q++);
			continue;
		}
		size_t l = strlen(peer_keys[k]);
		buf_put(out, q, l);
		q += l;
		char *end;
		long x = strtol(q, &end, 10);
		if (end != q && (*end == ',' || *end == ']')) {
			char v[32];
			int n;
			if (x >= 0 && x < (1L << 30) && (rel >> k & 1) &&
				 rel_of((int)x, proc, p->nprocs))
				/* "rank-1", not "-1": that is MPI_ANY_SOURCE in Open MPI, MPI_PROC_NULL
				 * in MPICH */
				n = snprintf(v, sizeof v, "rank%+d", rel_of((int)x, proc, p->nprocs));
			else if (x >= 0 && x < (1L << 30) && (rel >> k & 1))
				n = snprintf(v, sizeof v, "rank");
			else
				n = snprintf(v, sizeof v, "%ld", x);
			buf_put(out, v, (size_t)n);
			q = end;
		}
	}
	buf_byte(out, 0);
	out->len--;
}
