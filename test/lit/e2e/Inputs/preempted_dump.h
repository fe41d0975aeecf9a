/* A task spins; with one worker (COPYSTACK_WORKERS=1), main runs again only
 * if the monitor preempts it. Then SIGQUIT dumps the tasks, the spinner as
 * it stopped, and exits with status 2. The test defines the spinner, which
 * stops when *stop is set and counts into *spins. */
#ifndef COPYSTACK_TEST_PREEMPTED_DUMP_H
#define COPYSTACK_TEST_PREEMPTED_DUMP_H

#include <signal.h>
#include <stdio.h>

static int preempted_dump(void (*spinner)(void *), int *stop,
                          unsigned long *spins) {
  copystack_go(spinner, 0);
  copystack_sleep_ns(30000000); // the spinner has the only worker now
  printf("main ran again while the task spun: %s\n",
         __atomic_load_n(spins, __ATOMIC_RELAXED) > 0 ? "yes" : "NO");
  fflush(stdout);
  raise(SIGQUIT); // the spinner is preempted: main runs
  __atomic_store_n(stop, 1, __ATOMIC_RELAXED);
  return 0;
}

#endif
