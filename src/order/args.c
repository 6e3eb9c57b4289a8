/* args.c: a sync event's arguments for people (args.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "import/sync_file.h"
#include "order/args.h"

void ord_peer_str(char *b, size_t n, int32_t v)
{
	if (v == DT_SYNC_ANY_SOURCE)
		snprintf(b, n, "any");
	else if (v == DT_SYNC_PROC_NULL)
		snprintf(b, n, "null");
	else
		snprintf(b, n, "%" PRId32, v);
}

void ord_addf(char *b, size_t n, size_t *len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(b + *len, n - *len, fmt, ap);
	va_end(ap);
	if (w > 0)
		*len = *len + (size_t)w < n ? *len + (size_t)w : n - 1;
}

void ord_event_args(const dt_sync_event *v, char *b, size_t n)
{
	size_t len = 0;
	char tmp[64];
#define ADD(...) ord_addf(b, n, &len, __VA_ARGS__)
	b[0] = 0;
	if (v->comm != DT_SYNC_NONE)
		ADD(" comm=%" PRId32, v->comm);
	if (v->dest != DT_SYNC_NONE && v->stag == DT_SYNC_NONE && v->obj) {
		/* a one-sided call's target (its tag is none) */
		ord_peer_str(tmp, sizeof tmp, v->dest);
		ADD(" target=%s", tmp);
		if (v->datatype != DT_SYNC_NONE)
			ADD(" disp=%" PRId64, v->disp);
	} else if (v->dest != DT_SYNC_NONE) {
		ord_peer_str(tmp, sizeof tmp, v->dest);
		ADD(" dest=%s tag=%" PRId32, tmp, v->stag);
	}
	if (v->src != DT_SYNC_NONE) {
		ord_peer_str(tmp, sizeof tmp, v->src);
		ADD(" src=%s", tmp);
		ord_peer_str(tmp, sizeof tmp, v->rtag);
		ADD(" tag=%s", tmp);
	}
	if (v->root != DT_SYNC_NONE)
		ADD(" root=%" PRId32, v->root);
	if (v->count != DT_SYNC_NONE)
		ADD(" count=%" PRId64, v->count);
	if (v->datatype != DT_SYNC_NONE)
		ADD(" type=%s", sync_type_name(v->datatype));
	if (v->op != DT_SYNC_NONE)
		ADD(" op=%s", sync_op_name(v->op));
	if (v->req)
		ADD(" req=%" PRIu64, v->req);
	if (v->obj)
		ADD(" obj=%#" PRIx64, v->obj);
	if (v->objseq)
		ADD(" seq=%" PRIu64, v->objseq);
	if (v->lock)
		ADD(" lock=%s", v->lock == 1 ? "exclusive" : v->lock == 2 ? "shared" : "?");
	if (v->rassert)
		ADD(" assert=%#" PRIx32, (uint32_t)v->rassert);
	if (v->digest)
		ADD(" data=%016" PRIx64, v->digest);
	if (v->team != DT_SYNC_NONE)
		ADD(" team=%" PRId32, v->team);
	if (v->tnum != DT_SYNC_NONE && (v->team != DT_SYNC_NONE || v->obj))
		ADD(" tnum=%" PRId32, v->tnum);
#undef ADD
}

