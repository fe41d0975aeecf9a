/* For check_frames.test: built by plain clang, so no frame has a check;
 * the frame-map symbols (NAME.copystack.map) make scripts/check-frames
 * take big and small for instrumented functions. */
int big(int n) {
  volatile char b[4000];
  for (int i = 0; i < n; ++i)
    b[i] = (char)i;
  return b[n / 2];
}
const char big_map[1] __asm__("big.copystack.map") = {0};
int small(int n) {
  volatile char b[100];
  b[n] = 1;
  return b[0];
}
const char small_map[1] __asm__("small.copystack.map") = {0};
/* Not instrumented (no map): never reported. */
int plain_big(int n) {
  volatile char b[4000];
  b[n] = 1;
  return b[0];
}
