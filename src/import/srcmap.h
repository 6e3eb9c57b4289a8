/* srcmap.h: where the functions of a binary are defined, from its DWARF (elfutils libdw).
 *
 * A binary built with -g describes each function it defines (DW_TAG_subprogram) with its name,
 * its linkage name and the file and line of its declaration. srcmap_open reads that once per
 * binary (or its separate debug file, found by build id) and indexes it by both names, so that
 * an importer that has resolved a call's address to a symbol can say where its source is. Two
 * static functions of one name in different files: the first defined one is kept. */
#ifndef DT_SRCMAP_H
#define DT_SRCMAP_H

#include <stddef.h>

typedef struct srcmap srcmap;

/* Why srcmap_open found nothing. */
enum { SRCMAP_NO_DEBUG = 0, SRCMAP_UNREADABLE = 1, SRCMAP_OTHER_BUILD = 2 };

/* The function definitions of the ELF file at path; NULL when it cannot be read, is not the
 * build bid names (hex; NULL: any), or has no debug information (*why says which). */
srcmap *srcmap_open(const char *path, const char *bid, int *why);
void srcmap_free(srcmap *m);
/* Where the function named name (len bytes) is defined: 1 with *file (absolute when the
 * binary says from which folder it was compiled; valid while m lives) and *line, else 0. */
int srcmap_find(const srcmap *m, const char *name, size_t len, const char **file,
		unsigned *line);
/* Functions indexed. */
size_t srcmap_count(const srcmap *m);

#endif
