// deep.h: libdeep, an instrumented shared library.
#ifndef DEEP_H
#define DEEP_H

#ifdef __cplusplus
extern "C" {
#endif

// Descends depth frames of about 300 bytes each: on a task, the stack grows
// by copying on the way down. Returns a sum of what each frame held.
long deep_sum(int depth);
// What deep_sum(depth) returns, computed without descending.
long deep_expected(int depth);

#ifdef __cplusplus
}
#endif

#endif
