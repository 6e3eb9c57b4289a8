/* diag_source.c: the interface's analyses for the diagnosis (diagnosis.h), for the ranking
 * view and the diff view alike: under the interface's setting, or under every call (its filter
 * AN_FALLBACK_FILTER, the other parameters the interface's), computed in the background when
 * they are not cached (then pending: the view is reopened when they are there). */
#include <stdio.h>

#include "analysis/diagnosis.h"
#include "tui.h"

static void src_params(tui *t, int every, tui_params *p)
{
	*p = *tui_get_params(t);
	if (every)
		snprintf(p->filter, sizeof p->filter, "%s", AN_FALLBACK_FILTER);
}

static int failed(int r, const char *run, dt_err *e)
{
	if (r < 0)
		dt_errf(e, DT_EDATA, "the analysis of %s could not be read", run);
	return r;
}

static int src_id(void *ctx, const char *run, int every, int64_t *id, dt_err *e)
{
	tui_params p;
	src_params(ctx, every, &p);
	return failed(tui_analysis_id_as(ctx, run, &p, id), run, e);
}

static int src_get(void *ctx, const char *run, int every, const an_result **out, dt_err *e)
{
	tui_params p;
	src_params(ctx, every, &p);
	return failed(tui_analysis_as(ctx, run, &p, out), run, e);
}

static int src_objects(void *ctx, const char *run, int every, const an_result **out, dt_err *e)
{
	tui_params p;
	src_params(ctx, every, &p);
	return failed(tui_analysis_objects_as(ctx, run, &p, out), run, e);
}

void tui_diag_source(tui *t, int by_id, dg_source *out)
{
	*out = (dg_source){ t, by_id ? src_id : NULL, src_get, src_objects };
}
