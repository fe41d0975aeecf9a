/* For check_frames.test: built by plain clang, so no frame has a check;
 * the aliases make scripts/check-frames take them for instrumented ones. */
int big(int n) {
  volatile char b[4000];
  for (int i = 0; i < n; ++i)
    b[i] = (char)i;
  return b[n / 2];
}
int big_dispatch(int n) __asm__("__copystack_dispatch.big")
    __attribute__((alias("big")));
int small(int n) {
  volatile char b[100];
  b[n] = 1;
  return b[0];
}
int small_dispatch(int n) __asm__("__copystack_dispatch.small")
    __attribute__((alias("small")));
/* Not instrumented (no alias, no map): never reported. */
int plain_big(int n) {
  volatile char b[4000];
  b[n] = 1;
  return b[0];
}
