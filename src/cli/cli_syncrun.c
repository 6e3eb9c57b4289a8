/* cli_syncrun.c: pieces shared by the sync-record verbs (cli_syncrun.h). */
#include "cli/cli_syncrun.h"

void cli_put_ctl_esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch < 0x20 || ch == 0x7f)
			fprintf(f, "\\x%02x", ch);
		else
			fputc(ch, f);
	}
}
