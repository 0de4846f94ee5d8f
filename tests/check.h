/* A minimal test harness: CHECK records a failure with its place and goes on; main ends with
 * check_summary(), which prints "N passed, N failed" and gives the exit status: failure where a
 * check failed or where none ran at all (a test that checked nothing proves nothing). */
#ifndef WGPROF_TEST_CHECK_H
#define WGPROF_TEST_CHECK_H

#include <stdio.h>

static int check_passed, check_failed;

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (cond) {                                                                        \
            check_passed++;                                                                \
        } else {                                                                           \
            check_failed++;                                                                \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);      \
        }                                                                                  \
    } while (0)

#define CHECK_MSG(cond, ...)                                                               \
    do {                                                                                   \
        if (cond) {                                                                        \
            check_passed++;                                                                \
        } else {                                                                           \
            check_failed++;                                                                \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);      \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fputc('\n', stderr);                                                           \
        }                                                                                  \
    } while (0)

#define CHECK_OK(expr)                                                                     \
    do {                                                                                   \
        wgprof_status check_s_ = (expr);                                                   \
        CHECK_MSG(check_s_ == WGPROF_OK, "%s", wgprof_status_str(check_s_));               \
    } while (0)

static inline int check_summary(void)
{
    printf("%d passed, %d failed\n", check_passed, check_failed);
    if (check_passed + check_failed == 0) {
        fprintf(stderr, "no check ran\n");
        return 1;
    }
    return check_failed ? 1 : 0;
}

#endif
