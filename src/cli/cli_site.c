/* cli_site.c: the call sites of sync events in the commands' output (cli.h). */
#include <stdio.h>
#include <stdlib.h>

#include "util/util.h"

#include "cli/cli.h"
#include "util/esc.h"

void cli_site_text(const store_sites *t, uint32_t id)
{
	const store_site *site = store_site_get(t, id);
	char b[1800];
	if (!site)
		return;
	fputs(" at ", stdout);
	esc_fputs(store_site_str(site, b, sizeof b), stdout);
}

void cli_site_json(const store_sites *t, uint32_t id)
{
	const store_site *site = store_site_get(t, id);
	if (!site) {
		printf(", \"site\": null");
		return;
	}
	printf(", \"site\": {\"file\": ");
	cli_json_str(site->file);
	printf(", \"line\": %u, \"function\": ", site->line);
	cli_json_str(site->func);
	printf("}");
}

void cli_site_note(const store_sites *t)
{
	const char *n = store_sites_note(t);
	if (*n)
		printf("note: %s\n", n);
}

char **cli_site_texts(const store_sites *t, uint32_t *n)
{
	*n = (uint32_t)t->n + 1;
	char **v = xcalloc(*n, sizeof *v);
	for (uint32_t id = 1; id < *n; id++) {
		const store_site *site = store_site_get(t, id);
		char b[1800];
		if (site)
			v[id] = xstrdup(store_site_str(site, b, sizeof b));
	}
	return v;
}

void cli_site_texts_free(char **v, uint32_t n)
{
	for (uint32_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}
