/* otf2_defs.c: the global definitions of an OTF2 archive (otf2_defs.h). */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_OTF2

#include "import/otf2_defs.h"
#include "import/sync_file.h"
#include "util/util.h"

#define MAX_REF (1u << 26) /* a definition number beyond this is damage, not a real archive */

/* OTF2 reports errors through one callback for the process; each decoding thread keeps the
 * last message of its own calls. */
static _Thread_local char otf2_msg[256];

static OTF2_ErrorCode on_otf2_error(void *ud, const char *file, uint64_t line,
				    const char *func, OTF2_ErrorCode code, const char *fmt,
				    va_list va)
{
	(void)ud, (void)file, (void)line, (void)func;
	if (fmt && *fmt)
		vsnprintf(otf2_msg, sizeof otf2_msg, fmt, va);
	else
		snprintf(otf2_msg, sizeof otf2_msg, "%s", OTF2_Error_GetDescription(code));
	return code;
}

void otf2_errors_catch(void)
{
	OTF2_Error_RegisterCallback(on_otf2_error, NULL);
}

void otf2_error_clear(void)
{
	otf2_msg[0] = 0;
}

const char *otf2_error_text(OTF2_ErrorCode rc)
{
	return otf2_msg[0] ? otf2_msg : OTF2_Error_GetDescription(rc);
}

#define ENSURE(in, arr, n, cap, ref)                                                         \
	do {                                                                                 \
		if ((ref) >= (n)) {                                                          \
			GROW(arr, cap, (size_t)(ref) + 1);                                   \
			memset(&(arr)[n], 0, ((size_t)(ref) + 1 - (n)) * sizeof *(arr));    \
			(n) = (size_t)(ref) + 1;                                             \
		}                                                                            \
	} while (0)

static OTF2_CallbackCode def_fail(otf2_in *in, const char *what, uint64_t ref)
{
	dt_err_at(in->e, in->path, -1, "the definitions are damaged: %s %" PRIu64
		  " is out of range", what, ref);
	return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode d_string(void *ud, OTF2_StringRef self, const char *s)
{
	otf2_in *in = ud;
	if (self >= MAX_REF)
		return def_fail(in, "string", self);
	ENSURE(in, in->str, in->nstr, in->capstr, self);
	free(in->str[self]);
	in->str[self] = xstrdup(s ? s : "");
	return OTF2_CALLBACK_SUCCESS;
}

const char *otf2_str(const otf2_in *in, uint32_t ref)
{
	return ref < in->nstr && in->str[ref] ? in->str[ref] : NULL;
}

static int call_code(const char *name)
{
	for (unsigned c = 1; c < DTS_NCALLS; c++) {
		const char *n = sync_call_name(c);
		if (n && !strcmp(n, name))
			return (int)c;
	}
	return 0;
}

static OTF2_CallbackCode d_region(void *ud, OTF2_RegionRef self, OTF2_StringRef name,
				  OTF2_StringRef canon, OTF2_StringRef desc, OTF2_RegionRole role,
				  OTF2_Paradigm par, OTF2_RegionFlag flags, OTF2_StringRef file,
				  uint32_t b, uint32_t en)
{
	(void)canon, (void)desc, (void)flags, (void)file, (void)b, (void)en;
	otf2_in *in = ud;
	if (self >= MAX_REF)
		return def_fail(in, "region", self);
	ENSURE(in, in->reg, in->nreg, in->capreg, self);
	struct region *r = &in->reg[self];
	r->name = name;
	r->defined = 1;
	r->kind = OTK_NONE;
	r->call = 0;
	const char *n = otf2_str(in, name);
	if (!n)
		return def_fail(in, "the name of region", self);
	if (par == OTF2_PARADIGM_OPENMP || !strncmp(n, "omp_", 4)) {
		if (role == OTF2_REGION_ROLE_PARALLEL)
			r->kind = OTK_PAR;
		else if (role == OTF2_REGION_ROLE_BARRIER ||
			 role == OTF2_REGION_ROLE_IMPLICIT_BARRIER)
			r->kind = OTK_OMPBAR, r->call = DTS_GOMP_barrier;
		else if (role == OTF2_REGION_ROLE_CRITICAL)
			r->kind = OTK_CRIT, r->call = DTS_GOMP_critical_start;
		else if (!strcmp(n, "omp_set_lock") || !strcmp(n, "omp_set_nest_lock"))
			r->kind = OTK_SETLOCK, r->call = call_code(n);
		else if (!strcmp(n, "omp_unset_lock") || !strcmp(n, "omp_unset_nest_lock"))
			r->kind = OTK_UNSETLOCK, r->call = call_code(n);
	} else if (!strncmp(n, "MPI_", 4) && (r->call = call_code(n))) {
		r->kind = OTK_MPI;
	}
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_tree(void *ud, OTF2_SystemTreeNodeRef self, OTF2_StringRef name,
				OTF2_StringRef cls, OTF2_SystemTreeNodeRef parent)
{
	otf2_in *in = ud;
	if (self >= MAX_REF)
		return def_fail(in, "system tree node", self);
	ENSURE(in, in->tree, in->ntree, in->captree, self);
	in->tree[self] = (struct tnode){ name, cls, parent, 1 };
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_lgroup(void *ud, OTF2_LocationGroupRef self, OTF2_StringRef name,
				  OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef tree,
				  OTF2_LocationGroupRef creator)
{
	(void)creator;
	otf2_in *in = ud;
	if (self >= MAX_REF)
		return def_fail(in, "location group", self);
	ENSURE(in, in->lg, in->nlg, in->caplg, self);
	in->lg[self] = (struct lgroup){ name, tree, (int)type, 1, -1, 0 };
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
				    OTF2_LocationType type, uint64_t nev,
				    OTF2_LocationGroupRef group)
{
	(void)type;
	otf2_in *in = ud;
	GROW(in->loc, in->caploc, in->nloc + 1);
	struct location *l = &in->loc[in->nloc++];
	memset(l, 0, sizeof *l);
	l->ref = self;
	l->name = name;
	l->group = group;
	l->nevents = nev;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_group(void *ud, OTF2_GroupRef self, OTF2_StringRef name,
				 OTF2_GroupType type, OTF2_Paradigm par, OTF2_GroupFlag flags,
				 uint32_t n, const uint64_t *m)
{
	(void)name, (void)flags;
	otf2_in *in = ud;
	if (self >= MAX_REF)
		return def_fail(in, "group", self);
	ENSURE(in, in->grp, in->ngrp, in->capgrp, self);
	struct group *g = &in->grp[self];
	free(g->m);
	g->type = (int)type;
	g->paradigm = (int)par;
	g->defined = 1;
	g->n = n;
	g->m = n ? xmalloc(n * sizeof *g->m) : NULL;
	if (n)
		memcpy(g->m, m, n * sizeof *m);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_comm(void *ud, OTF2_CommRef self, OTF2_StringRef name,
				OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags)
{
	(void)name, (void)parent, (void)flags;
	otf2_in *in = ud;
	if (self >= MAX_REF)
		return def_fail(in, "communicator", self);
	ENSURE(in, in->comm, in->ncomm, in->capcomm, self);
	in->comm[self] = (struct comm){ group, -1, 1 };
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_rmawin(void *ud, OTF2_RmaWinRef self, OTF2_StringRef name,
				  OTF2_CommRef comm, OTF2_RmaWinFlag flags)
{
	(void)name, (void)flags;
	otf2_in *in = ud;
	if (self >= MAX_REF)
		return def_fail(in, "RMA window", self);
	ENSURE(in, in->win, in->nwin, in->capwin, self);
	in->win[self] = (struct rmawin){ comm, 1 };
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_clock(void *ud, uint64_t res, uint64_t off, uint64_t len,
				 uint64_t real)
{
	(void)len;
	otf2_in *in = ud;
	in->res = res;
	in->offset = off;
	in->realtime = real;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_attr(void *ud, OTF2_AttributeRef self, OTF2_StringRef name,
				OTF2_StringRef desc, OTF2_Type type)
{
	(void)desc, (void)type;
	otf2_in *in = ud;
	static const char *const names[] = {
#define OTF2_DT_X(id, nm, ty) "difftrace::" #nm,
		OTF2_DT_ATTRS(OTF2_DT_X)
#undef OTF2_DT_X
	};
	const char *n = otf2_str(in, name);
	for (int i = 0; n && i < OTF2_DT_NATTRS; i++)
		if (!strcmp(n, names[i]))
			in->attr[i] = self;
	return OTF2_CALLBACK_SUCCESS;
}

/* The location numbered ref. A property follows its location's definition (difftrace export
 * writes them so), so the last one is tried first; after in_resolve sorted them, a binary
 * search; before, a walk (archives of 10^5 locations have no properties out of place). */
static struct location *loc_find(otf2_in *in, uint64_t ref)
{
	if (in->nloc && in->loc[in->nloc - 1].ref == ref)
		return &in->loc[in->nloc - 1];
	if (in->sorted) {
		size_t lo = 0, hi = in->nloc;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (in->byref[mid]->ref < ref)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo < in->nloc && in->byref[lo]->ref == ref ? in->byref[lo] : NULL;
	}
	for (size_t i = 0; i < in->nloc; i++)
		if (in->loc[i].ref == ref)
			return &in->loc[i];
	return NULL;
}

static OTF2_CallbackCode d_locprop(void *ud, OTF2_LocationRef loc, OTF2_StringRef name,
				   OTF2_Type type, OTF2_AttributeValue v)
{
	otf2_in *in = ud;
	struct location *l = loc_find(in, loc);
	const char *n = otf2_str(in, name), *val = NULL;
	if (!l || !n || strncmp(n, "difftrace::", 11))
		return OTF2_CALLBACK_SUCCESS;
	if (type == OTF2_TYPE_STRING)
		val = otf2_str(in, v.stringRef);
	if (!val)
		return def_fail(in, "the value of location property of location", loc);
	if (!strcmp(n, OTF2_DT_LOC_PID))
		l->pid = strtoll(val, NULL, 10), l->has_pid = 1;
	else if (!strcmp(n, OTF2_DT_LOC_TID))
		l->tid = strtoll(val, NULL, 10), l->has_tid = 1;
	else if (!strcmp(n, OTF2_DT_LOC_RANK))
		l->rank = strtoll(val, NULL, 10), l->has_rank = 1;
	else if (!strcmp(n, OTF2_DT_LOC_MAIN))
		l->is_main = atoi(val), l->has_main = 1;
	else if (!strcmp(n, OTF2_DT_LOC_HOST)) {
		free(l->host);
		l->host = xstrdup(val);
	} else if (!strcmp(n, OTF2_DT_LOC_NOTIME))
		l->notime = atoi(val);
	else if (!strcmp(n, OTF2_DT_LOC_CLOCK)) {
		long long id, mono, real;
		if (sscanf(val, "%lld %lld %lld", &id, &mono, &real) == 3) {
			l->clk = (dt_sync_clock){ (int32_t)id, mono, real };
			l->has_clock = 1;
		}
	}
	return OTF2_CALLBACK_SUCCESS;
}

void otf2_defs_free(otf2_in *in)
{
	for (size_t i = 0; i < in->nstr; i++)
		free(in->str[i]);
	free(in->str);
	free(in->reg);
	free(in->lg);
	for (size_t i = 0; i < in->nloc; i++)
		free(in->loc[i].host);
	free(in->loc);
	free(in->byref);
	for (size_t i = 0; i < in->ngrp; i++)
		free(in->grp[i].m);
	free(in->grp);
	free(in->comm);
	free(in->win);
	free(in->tree);
	free(in->evtdir);
}

static int cmp_loc(const void *a, const void *b)
{
	const struct location *x = a, *y = b;
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return (x->ref > y->ref) - (x->ref < y->ref);
}

static int cmp_ref(const void *a, const void *b)
{
	const struct location *x = *(struct location *const *)a, *y = *(struct location *const *)b;
	return (x->ref > y->ref) - (x->ref < y->ref);
}

/* After the definitions: ranks, processes and threads of the locations; communicators. */
static void defs_resolve(otf2_in *in)
{
	/* Locations in order of their process (group) and number; a group's first is its main
	 * thread, as Score-P numbers its master thread first. */
	if (in->nloc)
		qsort(in->loc, in->nloc, sizeof *in->loc, cmp_loc);
	in->byref = xmalloc((in->nloc ? in->nloc : 1) * sizeof *in->byref);
	for (size_t i = 0; i < in->nloc; i++)
		in->byref[i] = &in->loc[i];
	if (in->nloc)
		qsort(in->byref, in->nloc, sizeof *in->byref, cmp_ref);
	in->sorted = 1;
	/* MPI's COMM_LOCATIONS group lists a location of each rank, by rank */
	for (size_t g = 0; g < in->ngrp; g++) {
		struct group *gr = &in->grp[g];
		if (!gr->defined || gr->type != OTF2_GROUP_TYPE_COMM_LOCATIONS ||
		    gr->paradigm != OTF2_PARADIGM_MPI)
			continue;
		for (uint32_t r = 0; r < gr->n; r++) {
			struct location *l = loc_find(in, gr->m[r]);
			if (l && l->group < in->nlg && in->lg[l->group].rank < 0)
				in->lg[l->group].rank = r;
		}
		in->nranks = gr->n;
		break;
	}
	for (size_t i = 0; i < in->nloc; i++) {
		struct location *l = &in->loc[i];
		struct lgroup *g = l->group < in->nlg && in->lg[l->group].defined
					   ? &in->lg[l->group] : NULL;
		l->thread = g ? (int)g->nlocs++ : 0;
		if (!l->has_pid)
			l->pid = l->group;
		if (!l->has_tid)
			l->tid = (int64_t)l->ref;
		if (!l->has_rank)
			l->rank = g ? g->rank : -1;
		if (!l->has_main)
			l->is_main = l->thread == 0;
		if (!l->host && g) {
			/* the host: the nearest node of the system tree named a node, else the
			 * process's parent node */
			uint32_t t = g->tree;
			const char *host = NULL;
			for (int hops = 0; t < in->ntree && in->tree[t].defined && hops < 64;
			     hops++) {
				const char *cls = otf2_str(in, in->tree[t].cls);
				if (!host)
					host = otf2_str(in, in->tree[t].name);
				if (cls && !strcmp(cls, "node")) {
					host = otf2_str(in, in->tree[t].name);
					break;
				}
				t = in->tree[t].parent;
			}
			if (host)
				l->host = xstrdup(host);
		}
	}
	/* MPI's communicators: WORLD is the one whose group is every rank in order, SELF the one
	 * of the COMM_SELF group, the others numbered from 2 in the order of their definitions.
	 * Those of other paradigms (OpenMP's thread teams, written with OMPT) have no number:
	 * counted in, they would renumber MPI's between two runs of another team count. */
	int32_t next = 2;
	int world = 0;
	for (size_t c = 0; c < in->ncomm; c++) {
		struct comm *cm = &in->comm[c];
		if (!cm->defined)
			continue;
		struct group *g = cm->group < in->ngrp && in->grp[cm->group].defined
					  ? &in->grp[cm->group] : NULL;
		if (g && g->paradigm != OTF2_PARADIGM_MPI) {
			cm->dt = DT_SYNC_NONE;
			continue;
		}
		if (g && g->type == OTF2_GROUP_TYPE_COMM_SELF) {
			cm->dt = 1;
			continue;
		}
		int all = g && g->type == OTF2_GROUP_TYPE_COMM_GROUP && !world;
		for (uint32_t i = 0; all && i < g->n; i++)
			all = g->m[i] == i;
		if (all && in->nranks && g->n != in->nranks)
			all = 0;
		cm->dt = all ? 0 : next++;
		world |= all;
	}
}

int otf2_defs_read(otf2_in *in, OTF2_Reader *rd)
{
	OTF2_GlobalDefReader *gd = OTF2_Reader_GetGlobalDefReader(rd);
	if (!gd)
		return dt_err_at(in->e, in->path, -1, "cannot open the global definitions");
	OTF2_GlobalDefReaderCallbacks *gcb = OTF2_GlobalDefReaderCallbacks_New();
	if (!gcb)
		return dt_errf(in->e, DT_EDATA, "out of memory");
	OTF2_GlobalDefReaderCallbacks_SetStringCallback(gcb, d_string);
	OTF2_GlobalDefReaderCallbacks_SetRegionCallback(gcb, d_region);
	OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(gcb, d_tree);
	OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(gcb, d_lgroup);
	OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gcb, d_location);
	OTF2_GlobalDefReaderCallbacks_SetGroupCallback(gcb, d_group);
	OTF2_GlobalDefReaderCallbacks_SetCommCallback(gcb, d_comm);
	OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback(gcb, d_rmawin);
	OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(gcb, d_clock);
	OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(gcb, d_attr);
	OTF2_GlobalDefReaderCallbacks_SetLocationPropertyCallback(gcb, d_locprop);
	OTF2_Reader_RegisterGlobalDefCallbacks(rd, gd, gcb, in);
	uint64_t ndefs = 0;
	OTF2_ErrorCode ec = OTF2_Reader_ReadAllGlobalDefinitions(rd, gd, &ndefs);
	OTF2_GlobalDefReaderCallbacks_Delete(gcb);
	if (in->e->status)
		return -1;
	if (ec != OTF2_SUCCESS) {
		char defs[600];
		snprintf(defs, sizeof defs, "%s.def", in->evtdir);
		return dt_err_at(in->e, defs, -1, "the global definitions are damaged: %s",
				 otf2_error_text(ec));
	}
	defs_resolve(in);
	return 0;
}

#endif
