/* An strspn of the program's own, built without copystack, that needs far
 * more stack than glibc's: libc_in_place_interposed.c links it. */
#include <stddef.h>

size_t strspn(const char *s, const char *accept) {
  volatile char scratch[256 * 1024];
  for (size_t i = 0; i < sizeof scratch; i += 512)
    scratch[i] = (char)i;
  size_t n = 0;
  for (;; n++) {
    const char *a = accept;
    while (*a && *a != s[n])
      a++;
    if (!s[n] || !*a)
      break;
  }
  return n + 1000 + (size_t)scratch[0];
}
