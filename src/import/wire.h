/* wire.h: an import as bytes, to move it between the processes of a parallel import.
 *
 * Under mpirun, every process of `difftrace import` decodes its share of the traces; the
 * others' shares reach process 0, which writes the store, as the calls their importers made on
 * a dt_sink, written down by a wire sink and replayed into the store's sink in the order of a
 * serial import (so the store is the one a serial import makes). One buffer holds one unit of
 * work (a rank directory, a trace file). The bytes are the host's own layout: the processes
 * of one job run the same build on the same kind of machine.
 *
 * Records: 'B' begin, 'F' a function name with the unit's own id, 'E' events, 'A' an argument,
 * 'G' a gap, 'Y' sync events, 'L' a source line (or a program without), 'Z' end, 'X' the
 * error that stopped the unit. */
#ifndef DT_WIRE_H
#define DT_WIRE_H

#include "import/sink.h"
#include "util/util.h"

typedef struct wire_sink {
	dt_sink sink;
	dt_buf *out;   /* where the records go */
	strmap names;  /* the unit's functions: name -> id */
	uint32_t nfuncs;
} wire_sink;

void wire_sink_init(wire_sink *w, dt_buf *out);
/* A new unit: its function ids start again. */
void wire_sink_reset(wire_sink *w);
void wire_sink_free(wire_sink *w);
/* Appends the error that stopped the unit. */
void wire_error(dt_buf *out, const dt_err *err);

/* Replays one unit's records into s. A unit that ended with an error sets e to it (its file
 * and offset as the importer gave them) and returns -1; so do bytes that are not a unit (what
 * names where they came from). */
int wire_replay(const uint8_t *p, size_t n, dt_sink *s, const char *what, dt_err *e);

#endif
