/*
 * The chain strategy's decisions (record_chain.c has the strategy's story): from a lane's
 * chain state and the program's next step, where the timestamps go, and the state after.
 * Plain data in and out; record_chain.c does the writing.
 */
#include "record_chain_plan.h"

wgprof_rec_chain_plan wgprof_rec_chain_decide(const wgprof_rec_chain_state *st, wgprof_rec_chain_event event)
{
    switch (event) {
    case WGPROF_REC_AT_PASS:
    case WGPROF_REC_AT_PASS_THEIRS:
        if (st->work_kinds) {
            return WGPROF_REC_CHAIN_CLOSE_WORK;
        }
        if (event == WGPROF_REC_AT_PASS_THEIRS) {
            return !st->begun ? WGPROF_REC_CHAIN_START_INSIDE
                   : st->end_owed ? WGPROF_REC_CHAIN_END_INSIDE
                                  : WGPROF_REC_CHAIN_NOTHING;
        }
        /* The pass's own beginning write: the cheapest timestamp there is on wgpu-native. */
        return !st->begun ? WGPROF_REC_CHAIN_WRITES
               : st->end_owed ? WGPROF_REC_CHAIN_END_WRITES
                              : WGPROF_REC_CHAIN_NOTHING; /* the last end was written, no dispatch since */
    case WGPROF_REC_AT_DISPATCH:
        return !st->begun ? WGPROF_REC_CHAIN_DISPATCH_START
               : st->end_owed ? WGPROF_REC_CHAIN_DISPATCH_END
                              : WGPROF_REC_CHAIN_DISPATCH_ADD;
    case WGPROF_REC_AT_WORK:
        if (!st->begun) {
            return WGPROF_REC_CHAIN_NOTHING; /* work before the chain's first pass is nobody's */
        }
        return st->end_owed ? WGPROF_REC_CHAIN_EMPTY_PASS : WGPROF_REC_CHAIN_NOTE_WORK;
    case WGPROF_REC_AT_FINISH:
        if (st->work_kinds) {
            return WGPROF_REC_CHAIN_CLOSE_WORK;
        }
        return st->end_owed ? WGPROF_REC_CHAIN_EMPTY_PASS : WGPROF_REC_CHAIN_NOTHING;
    }
    return WGPROF_REC_CHAIN_NOTHING;
}

void wgprof_rec_chain_advance(wgprof_rec_chain_state *st, wgprof_rec_chain_plan plan, bool ok, wgprof_rec_work kind)
{
    switch (plan) {
    case WGPROF_REC_CHAIN_NOTHING:
    case WGPROF_REC_CHAIN_PLANS:
        break;
    case WGPROF_REC_CHAIN_WRITES:
    case WGPROF_REC_CHAIN_START_INSIDE:
        st->begun = ok;
        break;
    case WGPROF_REC_CHAIN_END_WRITES:
    case WGPROF_REC_CHAIN_END_INSIDE:
    case WGPROF_REC_CHAIN_EMPTY_PASS:
        st->end_owed = false;
        break;
    case WGPROF_REC_CHAIN_CLOSE_WORK:
        st->work_kinds = 0;
        st->end_owed = ok;
        break;
    case WGPROF_REC_CHAIN_DISPATCH_START:
        st->begun = ok;
        break;
    case WGPROF_REC_CHAIN_DISPATCH_END:
        st->end_owed = false;
        break;
    case WGPROF_REC_CHAIN_DISPATCH_ADD:
        st->end_owed = ok;
        break;
    case WGPROF_REC_CHAIN_NOTE_WORK:
        st->work_kinds |= (uint8_t)(1u << kind);
        break;
    }
}

const char *wgprof_rec_chain_plan_name(wgprof_rec_chain_plan plan)
{
    static const char *const names[WGPROF_REC_CHAIN_PLANS] = {
        "NOTHING",        "WRITES",         "END_WRITES",   "START_INSIDE",    "END_INSIDE", "CLOSE_WORK",
        "DISPATCH_START", "DISPATCH_END",   "DISPATCH_ADD", "EMPTY_PASS",      "NOTE_WORK"};
    return plan < WGPROF_REC_CHAIN_PLANS ? names[plan] : "?";
}
