/* The record chain's planner (record/record_chain_plan.h), no GPU involved: the plan for every
 * chain state and event, written out by hand, every plan value reached, and the states a
 * program's sequence of passes, dispatches, copies and finishes goes through, failures of the
 * pool included. */
#include <string.h>

#include "check.h"
#include "record_chain_plan.h"

enum { COPY = 1u << WGPROF_REC_WORK_COPY, CLEAR = 1u << WGPROF_REC_WORK_CLEAR };

typedef struct row {
    bool begun, owed;
    uint8_t work;
    wgprof_rec_chain_event event;
    wgprof_rec_chain_plan plan;
} row;

#define N WGPROF_REC_CHAIN_NOTHING
#define P(x) WGPROF_REC_CHAIN_##x

static const row TABLE[] = {
    /* a pass without writes of its own: the chain's start or the owed end as its beginning write */
    {false, false, 0, WGPROF_REC_AT_PASS, P(WRITES)},
    {true, false, 0, WGPROF_REC_AT_PASS, N},
    {true, true, 0, WGPROF_REC_AT_PASS, P(END_WRITES)},
    {false, true, 0, WGPROF_REC_AT_PASS, P(WRITES)},
    {true, false, COPY, WGPROF_REC_AT_PASS, P(CLOSE_WORK)},
    {true, true, COPY, WGPROF_REC_AT_PASS, P(CLOSE_WORK)},
    {false, false, COPY, WGPROF_REC_AT_PASS, P(CLOSE_WORK)},
    {false, true, COPY | CLEAR, WGPROF_REC_AT_PASS, P(CLOSE_WORK)},
    /* a pass with the program's writes: wgprof's go inside it */
    {false, false, 0, WGPROF_REC_AT_PASS_THEIRS, P(START_INSIDE)},
    {true, false, 0, WGPROF_REC_AT_PASS_THEIRS, N},
    {true, true, 0, WGPROF_REC_AT_PASS_THEIRS, P(END_INSIDE)},
    {false, true, 0, WGPROF_REC_AT_PASS_THEIRS, P(START_INSIDE)},
    {true, false, CLEAR, WGPROF_REC_AT_PASS_THEIRS, P(CLOSE_WORK)},
    {true, true, COPY, WGPROF_REC_AT_PASS_THEIRS, P(CLOSE_WORK)},
    {false, false, COPY, WGPROF_REC_AT_PASS_THEIRS, P(CLOSE_WORK)},
    {false, true, COPY, WGPROF_REC_AT_PASS_THEIRS, P(CLOSE_WORK)},
    /* a dispatch */
    {false, false, 0, WGPROF_REC_AT_DISPATCH, P(DISPATCH_START)},
    {true, false, 0, WGPROF_REC_AT_DISPATCH, P(DISPATCH_ADD)},
    {true, true, 0, WGPROF_REC_AT_DISPATCH, P(DISPATCH_END)},
    {false, true, 0, WGPROF_REC_AT_DISPATCH, P(DISPATCH_START)},
    {true, false, COPY, WGPROF_REC_AT_DISPATCH, P(DISPATCH_ADD)},
    {true, true, COPY, WGPROF_REC_AT_DISPATCH, P(DISPATCH_END)},
    {false, false, COPY, WGPROF_REC_AT_DISPATCH, P(DISPATCH_START)},
    {false, true, COPY, WGPROF_REC_AT_DISPATCH, P(DISPATCH_START)},
    /* other work of the encoder's: nobody's before the chain began */
    {false, false, 0, WGPROF_REC_AT_WORK, N},
    {true, false, 0, WGPROF_REC_AT_WORK, P(NOTE_WORK)},
    {true, true, 0, WGPROF_REC_AT_WORK, P(EMPTY_PASS)},
    {false, true, 0, WGPROF_REC_AT_WORK, N},
    {true, false, COPY, WGPROF_REC_AT_WORK, P(NOTE_WORK)},
    {true, true, COPY, WGPROF_REC_AT_WORK, P(EMPTY_PASS)},
    {false, false, COPY, WGPROF_REC_AT_WORK, N},
    {false, true, COPY, WGPROF_REC_AT_WORK, N},
    /* the finish */
    {false, false, 0, WGPROF_REC_AT_FINISH, N},
    {true, false, 0, WGPROF_REC_AT_FINISH, N},
    {true, true, 0, WGPROF_REC_AT_FINISH, P(EMPTY_PASS)},
    {false, true, 0, WGPROF_REC_AT_FINISH, P(EMPTY_PASS)},
    {true, false, COPY, WGPROF_REC_AT_FINISH, P(CLOSE_WORK)},
    {true, true, CLEAR, WGPROF_REC_AT_FINISH, P(CLOSE_WORK)},
    {false, false, COPY, WGPROF_REC_AT_FINISH, P(CLOSE_WORK)},
    {false, true, COPY, WGPROF_REC_AT_FINISH, P(CLOSE_WORK)},
};

static const char *const EVENT_NAMES[] = {"pass", "pass with their writes", "dispatch", "work", "finish"};

static void test_table(void)
{
    bool reached[WGPROF_REC_CHAIN_PLANS] = {false};
    for (size_t i = 0; i < sizeof TABLE / sizeof TABLE[0]; i++) {
        const row *r = &TABLE[i];
        wgprof_rec_chain_state st = {r->begun, r->owed, r->work};
        wgprof_rec_chain_plan got = wgprof_rec_chain_decide(&st, r->event);
        CHECK_MSG(got == r->plan, "row %zu (begun %d, owed %d, work %u, %s): %s, want %s", i, r->begun, r->owed,
                  r->work, EVENT_NAMES[r->event], wgprof_rec_chain_plan_name(got), wgprof_rec_chain_plan_name(r->plan));
        /* Deciding changes nothing. */
        CHECK(st.begun == r->begun && st.end_owed == r->owed && st.work_kinds == r->work);
        reached[got] = true;
    }
    for (int p = 0; p < WGPROF_REC_CHAIN_PLANS; p++) {
        CHECK_MSG(reached[p], "no row reaches plan %s", wgprof_rec_chain_plan_name((wgprof_rec_chain_plan)p));
        CHECK(strcmp(wgprof_rec_chain_plan_name((wgprof_rec_chain_plan)p), "?") != 0);
        for (int q = 0; q < p; q++) {
            CHECK(strcmp(wgprof_rec_chain_plan_name((wgprof_rec_chain_plan)p),
                         wgprof_rec_chain_plan_name((wgprof_rec_chain_plan)q)) != 0);
        }
    }
    CHECK(strcmp(wgprof_rec_chain_plan_name(WGPROF_REC_CHAIN_PLANS), "?") == 0);
}

/* ---- transitions: a lane driven as record_chain.c drives it, the pool's answers chosen ---- */

typedef struct lane {
    wgprof_rec_chain_state st;
    bool fail_start, fail_record; /* what the pool refuses */
    char log[512];                /* the plans carried out, in order */
} lane;

static void note(lane *l, wgprof_rec_chain_plan p)
{
    size_t n = strlen(l->log);
    snprintf(l->log + n, sizeof l->log - n, "%s%s", n ? " " : "", wgprof_rec_chain_plan_name(p));
}

/* The event's plan, closing the encoder's work first where it asks (as record_chain.c does). */
static wgprof_rec_chain_plan plan(lane *l, wgprof_rec_chain_event e)
{
    wgprof_rec_chain_plan p = wgprof_rec_chain_decide(&l->st, e);
    while (p == WGPROF_REC_CHAIN_CLOSE_WORK) {
        note(l, p);
        wgprof_rec_chain_advance(&l->st, p, !l->fail_record, WGPROF_REC_WORK_COPY);
        CHECK(l->st.work_kinds == 0);
        p = wgprof_rec_chain_decide(&l->st, e);
    }
    return p;
}

static void pass(lane *l, bool theirs)
{
    wgprof_rec_chain_plan p = plan(l, theirs ? WGPROF_REC_AT_PASS_THEIRS : WGPROF_REC_AT_PASS);
    note(l, p);
    bool starts = p == WGPROF_REC_CHAIN_WRITES || p == WGPROF_REC_CHAIN_START_INSIDE;
    wgprof_rec_chain_advance(&l->st, p, !(starts && l->fail_start), WGPROF_REC_WORK_COPY);
}

static void dispatch(lane *l)
{
    wgprof_rec_chain_plan p = plan(l, WGPROF_REC_AT_DISPATCH);
    note(l, p);
    if (p == WGPROF_REC_CHAIN_DISPATCH_START) {
        wgprof_rec_chain_advance(&l->st, p, !l->fail_start, WGPROF_REC_WORK_COPY);
        if (l->fail_start) {
            return;
        }
    } else if (p == WGPROF_REC_CHAIN_DISPATCH_END) {
        wgprof_rec_chain_advance(&l->st, p, true, WGPROF_REC_WORK_COPY);
    }
    wgprof_rec_chain_advance(&l->st, WGPROF_REC_CHAIN_DISPATCH_ADD, !l->fail_record, WGPROF_REC_WORK_COPY);
}

static void work(lane *l, wgprof_rec_work kind)
{
    wgprof_rec_chain_plan p = plan(l, WGPROF_REC_AT_WORK);
    note(l, p);
    if (p == WGPROF_REC_CHAIN_EMPTY_PASS) {
        wgprof_rec_chain_advance(&l->st, p, true, kind);
        CHECK(!l->st.end_owed);
    }
    if (p != WGPROF_REC_CHAIN_NOTHING) {
        wgprof_rec_chain_advance(&l->st, WGPROF_REC_CHAIN_NOTE_WORK, true, kind);
        CHECK(l->st.work_kinds & (1u << kind));
    }
}

static void finish(lane *l)
{
    wgprof_rec_chain_plan p = plan(l, WGPROF_REC_AT_FINISH);
    note(l, p);
    wgprof_rec_chain_advance(&l->st, p, true, WGPROF_REC_WORK_COPY);
    CHECK(!l->st.end_owed && !l->st.work_kinds);
}

#define CHECK_LOG(l, want) CHECK_MSG(!strcmp((l)->log, want), "got \"%s\", want \"%s\"", (l)->log, want)

static void test_sequences(void)
{
    /* Passes without writes of their own, several dispatches, copies and clears between. */
    lane a = {0};
    pass(&a, false);
    CHECK(a.st.begun && !a.st.end_owed);
    dispatch(&a);
    CHECK(a.st.end_owed);
    dispatch(&a);
    CHECK(a.st.end_owed);
    pass(&a, false);
    CHECK(!a.st.end_owed);
    pass(&a, false); /* an empty pass: nothing owed, nothing written */
    dispatch(&a);
    work(&a, WGPROF_REC_WORK_COPY);
    CHECK(a.st.work_kinds == COPY && !a.st.end_owed);
    work(&a, WGPROF_REC_WORK_CLEAR);
    CHECK(a.st.work_kinds == (COPY | CLEAR));
    pass(&a, false);
    CHECK(!a.st.end_owed && !a.st.work_kinds);
    dispatch(&a);
    finish(&a);
    finish(&a);
    CHECK_LOG(&a, "WRITES DISPATCH_ADD DISPATCH_END END_WRITES NOTHING DISPATCH_ADD EMPTY_PASS NOTE_WORK "
                  "CLOSE_WORK END_WRITES DISPATCH_ADD EMPTY_PASS NOTHING");

    /* Passes with the program's own writes: wgprof's inside them. */
    lane b = {0};
    pass(&b, true);
    dispatch(&b);
    pass(&b, true);
    pass(&b, true);
    dispatch(&b);
    work(&b, WGPROF_REC_WORK_RESOLVE);
    pass(&b, true);
    finish(&b);
    CHECK_LOG(&b, "START_INSIDE DISPATCH_ADD END_INSIDE NOTHING DISPATCH_ADD EMPTY_PASS CLOSE_WORK END_INSIDE "
                  "NOTHING");

    /* Work before the chain's first pass is nobody's; a dispatch in a pass that began before the
     * chain (or where the pass's start failed) starts it inside the pass. */
    lane c = {0};
    work(&c, WGPROF_REC_WORK_COPY);
    CHECK(!c.st.begun && !c.st.work_kinds);
    finish(&c);
    dispatch(&c);
    CHECK(c.st.begun && c.st.end_owed);
    finish(&c);
    CHECK_LOG(&c, "NOTHING NOTHING DISPATCH_START EMPTY_PASS");

    /* The pool refuses the chain's start: nothing begun, every dispatch tries again. */
    lane d = {.fail_start = true};
    pass(&d, false);
    CHECK(!d.st.begun);
    dispatch(&d);
    CHECK(!d.st.begun && !d.st.end_owed);
    d.fail_start = false;
    dispatch(&d);
    CHECK(d.st.begun && d.st.end_owed);
    CHECK_LOG(&d, "WRITES DISPATCH_START DISPATCH_START");

    /* The pool refuses records: no end owed, so the next pass writes nothing for them. */
    lane e = {.fail_record = true};
    pass(&e, false);
    dispatch(&e);
    CHECK(e.st.begun && !e.st.end_owed);
    pass(&e, false);
    e.fail_record = false;
    dispatch(&e);
    work(&e, WGPROF_REC_WORK_TIMESTAMP);
    e.fail_record = true;
    pass(&e, false); /* the work's record refused: no end owed for it */
    CHECK(!e.st.end_owed && !e.st.work_kinds);
    CHECK_LOG(&e, "WRITES DISPATCH_ADD NOTHING DISPATCH_ADD EMPTY_PASS CLOSE_WORK NOTHING");

    /* A forgotten batch (submitted or abandoned) starts anew. */
    lane f = {0};
    pass(&f, false);
    dispatch(&f);
    f.st = (wgprof_rec_chain_state){0};
    pass(&f, true);
    CHECK_LOG(&f, "WRITES DISPATCH_ADD START_INSIDE");
}

int main(void)
{
    test_table();
    test_sequences();
    return check_summary();
}
