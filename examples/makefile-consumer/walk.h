/* walk.h: libwalk, an instrumented shared library. */
#ifndef WALK_H
#define WALK_H

/* Descends depth frames of about 300 bytes each: on a task, the stack grows
 * by copying on the way down. Returns a sum of what each frame held. */
long walk(int depth);
/* What walk(depth) returns, computed without descending. */
long walk_expected(int depth);

#endif
