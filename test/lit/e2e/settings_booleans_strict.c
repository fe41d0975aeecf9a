// Booleans accept exactly 0/1/true/false/yes/no/on/off: "false" turns a
// switch off (it once turned stress mode on), anything else stops the
// program with the accepted words.
// RUN: %cc %s -o %t
// RUN: %run env COPYSTACK_STRESS=false %t | FileCheck %s --check-prefix=OFF
// RUN: %run env COPYSTACK_STRESS=on %t | FileCheck %s --check-prefix=ON
// RUN: %exits 2 %run env COPYSTACK_TRACE=maybe %t 2>&1 | FileCheck %s --check-prefix=BAD
#include "Inputs/check.h"

int main(void) {
  unsigned long before = cs_copies();
  cs_burn(10);
  copystack_stats s;
  copystack_get_stats(&s);
  printf("stress moves: %s\n", s.moves > 0 || cs_copies() - before > 5 ? "yes" : "no");
  return 0;
}
// OFF: stress moves: no
// ON: stress moves: yes
// BAD: copystack: fatal: COPYSTACK_TRACE=maybe: expected 0, 1, true, false, yes, no, on or off
