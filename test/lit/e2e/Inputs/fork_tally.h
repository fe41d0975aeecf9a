/* How the children of the fork tests ended: each exits with 7 when it did
 * what it had to, and arms alarm(5) first, so that one that hangs is ended
 * by SIGALRM. */
#ifndef COPYSTACK_TEST_FORK_TALLY_H
#define COPYSTACK_TEST_FORK_TALLY_H

#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>

struct cs_fork_tally {
  int ok, hung, other;
};

static inline void cs_wait_child(pid_t pid, struct cs_fork_tally *t) {
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 7)
    ++t->ok;
  else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
    ++t->hung;
  else
    ++t->other;
}

#endif
