/* Pointers the relocation cannot see, for the tests of what verify mode
 * and the frame maps' limits do with them: COPY_BITS copies a pointer's
 * eight bytes one at a time through volatile bytes, so that no pointer
 * value (nothing the maps or the optimizer could follow) goes from `from`
 * to `to`. */
#ifndef COPYSTACK_TEST_STALE_H
#define COPYSTACK_TEST_STALE_H

#define COPY_BITS(to, from)                                                    \
  for (unsigned i = 0; i < 8; i++)                                             \
    ((volatile unsigned char *)&(to))[i] =                                     \
        ((volatile unsigned char *)&(from))[i]

#endif
