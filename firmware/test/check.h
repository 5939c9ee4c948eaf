/* A minimal assertion helper for the native tests: stop at the first failure. */
#ifndef CHECK_H
#define CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int check_count;

#define CHECK(cond)                                                                     \
    do {                                                                                \
        check_count++;                                                                  \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);    \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

#define CHECK_EQ(a, b)                                                                  \
    do {                                                                                \
        check_count++;                                                                  \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);                 \
        if (check_a_ != check_b_) {                                                     \
            fprintf(stderr, "%s:%d: check failed: %s == %s (%lld != %lld)\n", __FILE__, \
                    __LINE__, #a, #b, check_a_, check_b_);                              \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

#define RUN(test)                                                                       \
    do {                                                                                \
        test();                                                                         \
        printf("  ok %s\n", #test);                                                     \
    } while (0)

#define DONE() printf("  %d checks\n", check_count)

#endif
