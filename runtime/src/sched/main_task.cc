// main_task.cc: a program's main as the first task. Linking with
// -Wl,--wrap=main sends the C runtime's call to main here; __real_main is
// the program's own main.
#include "platform/split_stack_notes.h"
#include "copystack/copystack.h"

extern "C" int __real_main(int, char **, char **);

extern "C" int __wrap_main(int argc, char **argv, char **envp) {
  return copystack_main(__real_main, argc, argv, envp);
}
