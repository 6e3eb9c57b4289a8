/* wire.h: an import as bytes, to move it between the processes of a parallel import.
 *
 * Under mpirun, every process of `difftrace import` decodes its share of the traces; the
 * others' shares reach process 0, which writes the store, as the calls their importers made on
 * a dt_sink, written down by a wire sink and replayed into the store's sink in the order of a
 * serial import (so the store is the one a serial import makes). One buffer holds one unit of
 * work (a rank directory, a trace file). The bytes are the host's own layout: the processes
 * of one job run the same build on the same kind of machine.
 *
 * A unit larger than the wire sink's limit goes in parts: every part but the last ends with
 * 'C', and the unit's function ids hold from one part to the next, so neither side ever holds
 * more than about one part of it (a rank directory of 10^8 events is not one buffer).
 *
 * Records: 'B' begin, 'F' a function name with the unit's own id, 'E' events, 'A' an argument,
 * 'G' a gap, 'Y' sync events (the wire sink sends only a trace's clock so), 'Q' a chunk of
 * sync events as its columns (store/sync_codec.h, the unit's own function and site ids: the
 * replay maps those two columns and hands the chunk to dt_sink.sync_cols, or decodes it for a
 * sink without), 'L' a source line (or a program without), 'S' a call site of sync events with
 * the unit's own id, 'Z' end, 'X' the error that stopped the unit, 'C' the unit goes on in the
 * next part. A trace's sync events go as chunks of SYNC_CHUNK_EVENTS of the trace's, as the
 * store cuts them, the last at its end. The arrays of 'E' and 'Y' start at a multiple of 8
 * bytes from the start of the part, after a pad, so that the replay uses them where they are
 * (a part is a buffer of malloc's) instead of copying them. */
#ifndef DT_WIRE_H
#define DT_WIRE_H

#include "import/sink.h"
#include "util/util.h"

typedef struct wire_sink {
	dt_sink sink;
	dt_buf *out;   /* where the records go */
	strmap names;  /* the unit's functions: name -> id */
	uint32_t nfuncs;
	strmap sites;  /* the unit's call sites: file, line, function -> id */
	uint32_t nsites;
	dt_sync_event *sev; /* the trace's sync events after its last whole chunk */
	size_t nsev;
	/* When out holds limit bytes or more after a record, full(full_ctx) is called to send
	 * them as a part (wire_part_end) and empty out; 0: no limit. */
	size_t limit;
	int (*full)(void *full_ctx, dt_err *e);
	void *full_ctx;
} wire_sink;

/* The size of a part that workers of a parallel import send. */
#define WIRE_PART_BYTES ((size_t)4 << 20)

void wire_sink_init(wire_sink *w, dt_buf *out);
/* A new unit: its function ids start again. */
void wire_sink_reset(wire_sink *w);
void wire_sink_free(wire_sink *w);
/* Appends the error that stopped the unit. */
void wire_error(dt_buf *out, const dt_err *err);

/* Marks out as a part that the next one continues. */
void wire_part_end(dt_buf *out);

/* The state of a unit's replay from one part to the next. */
typedef struct wire_replayer {
	uint32_t *map; /* the unit's function ids -> the sink's */
	size_t nmap, capmap;
	uint32_t *smap; /* the unit's site ids -> the sink's */
	size_t nsmap, capsmap;
	/* copies of a part's events, times and sync events where they are not aligned in it
	 * (bytes, kept from part to part) */
	uint8_t *ev, *ts, *sev;
	size_t capev, capts, capsev;
	dt_buf raw; /* a chunk's columns, its ids mapped */
} wire_replayer;

void wire_replayer_init(wire_replayer *rp);
void wire_replayer_free(wire_replayer *rp);
/* Replays one part of a unit into s, changing its bytes (the ids are mapped where they are):
 * 0 when the unit ended there, 1 when a part follows. A unit
 * that ended with an error sets e to it (its file and offset as the importer gave them) and
 * returns -1; so do bytes that are not a unit (what names where they came from). */
int wire_replay_part(wire_replayer *rp, uint8_t *p, size_t n, dt_sink *s,
		     const char *what, dt_err *e);
/* Replays a whole unit held in one buffer (a part that says more follows is an error). */
int wire_replay(uint8_t *p, size_t n, dt_sink *s, const char *what, dt_err *e);

#endif
