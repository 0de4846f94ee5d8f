/*
 * Where a lane's chain of timestamps goes, decided from plain data: the lane's chain state and
 * what the program does next. No WebGPU and no pool here, so that every decision can be
 * tested without a GPU (tests/test_record_chain.c); record_chain.c carries the plans out.
 */
#ifndef WGPROF_RECORD_CHAIN_PLAN_H
#define WGPROF_RECORD_CHAIN_PLAN_H

#include <stdbool.h>
#include <stdint.h>

/* Where a lane's chain stands. */
typedef struct wgprof_rec_chain_state {
    bool begun;         /* the batch's chain has started */
    bool end_owed;      /* the last record's end is not written yet */
    uint8_t work_kinds; /* encoder work since the last dispatch's end (1 << wgprof_rec_work) */
} wgprof_rec_chain_state;

/* The encoder's own GPU work between compute passes, timed as one record until the next pass. */
typedef enum wgprof_rec_work {
    WGPROF_REC_WORK_COPY,
    WGPROF_REC_WORK_CLEAR,
    WGPROF_REC_WORK_RENDER_PASS,
    WGPROF_REC_WORK_RESOLVE,
    WGPROF_REC_WORK_TIMESTAMP,
    WGPROF_REC_WORK_KINDS
} wgprof_rec_work;

/* What the program does next on a timed lane's encoder. */
typedef enum wgprof_rec_chain_event {
    WGPROF_REC_AT_PASS,         /* a compute pass begins, without timestamp writes of its own */
    WGPROF_REC_AT_PASS_THEIRS,  /* one begins with the program's timestamp writes */
    WGPROF_REC_AT_DISPATCH,     /* a dispatch in the open pass */
    WGPROF_REC_AT_WORK,         /* other GPU work of the encoder's (a copy, ...) */
    WGPROF_REC_AT_FINISH,       /* the encoder's finish */
} wgprof_rec_chain_event;

/* What the chain does there. */
typedef enum wgprof_rec_chain_plan {
    WGPROF_REC_CHAIN_NOTHING,        /* no timestamp */
    /* before a pass: */
    WGPROF_REC_CHAIN_WRITES,         /* the chain's start, as the pass's beginning write */
    WGPROF_REC_CHAIN_END_WRITES,     /* the owed end, as the pass's beginning write */
    WGPROF_REC_CHAIN_START_INSIDE,   /* the chain's start, inside the pass (it has writes of its own) */
    WGPROF_REC_CHAIN_END_INSIDE,     /* the owed end, inside the pass (the same) */
    /* before a pass or the finish, first: */
    WGPROF_REC_CHAIN_CLOSE_WORK,     /* the work since the last dispatch becomes a record, its end owed */
    /* before a dispatch: */
    WGPROF_REC_CHAIN_DISPATCH_START, /* the chain's start, inside the pass, then the record */
    WGPROF_REC_CHAIN_DISPATCH_END,   /* the owed end, inside the pass, then the record */
    WGPROF_REC_CHAIN_DISPATCH_ADD,   /* the dispatch's record, its end owed */
    /* before other work or the finish: */
    WGPROF_REC_CHAIN_EMPTY_PASS,     /* the owed end, at the beginning of an empty pass of wgprof's
                                        (before work, the work is then noted as by NOTE_WORK) */
    /* before other work: */
    WGPROF_REC_CHAIN_NOTE_WORK,      /* the work is noted for the record that closes it */
    WGPROF_REC_CHAIN_PLANS
} wgprof_rec_chain_plan;

/* The plan for `event` on a lane whose chain is `state`. A CLOSE_WORK plan is carried out,
 * wgprof_rec_chain_advance told, and the event planned again. */
wgprof_rec_chain_plan wgprof_rec_chain_decide(const wgprof_rec_chain_state *state, wgprof_rec_chain_event event);

/* The state after `plan` was carried out: `ok`, whether the timestamp or record it asked for
 * was made (a chain that could not start has not begun; a record that could not be added owes
 * no end); `kind`, the work of a NOTE_WORK plan. After a DISPATCH_START that started the chain,
 * or a DISPATCH_END, the dispatch's record is added and told as a DISPATCH_ADD. */
void wgprof_rec_chain_advance(wgprof_rec_chain_state *state, wgprof_rec_chain_plan plan, bool ok,
                              wgprof_rec_work kind);

/* The plan's name, for messages. */
const char *wgprof_rec_chain_plan_name(wgprof_rec_chain_plan plan);

#endif
