// The fast paths of libstdc++'s std::string members that instrumented code
// calls in place (copystack/abi.h, COPYSTACK_IN_PLACE_STRING): what each
// member does when the result fits the string's capacity (always, for
// _M_erase, resize), which neither allocates nor throws. Each returns the string, or null where the member
// would allocate (or, for _M_replace, where the new characters come from the
// string itself): the pass then makes the call itself, a foreign call.
//
// They run on a task stack in the guard band, as memcpy does: leaves whose
// only calls are memcpy, memmove and memset. The runtime turns the group on
// only when the program's binding of each member is libstdc++.so.6's own
// (libc_in_place.cc), so that these do what the program's call would have.
//
// The layout is libstdc++'s C++11 string ABI (GCC 5 and later): the data
// pointer, the length, and a union of a 16-byte local buffer (at most 15
// characters and the terminator) and the allocated capacity. A string is
// local when its data pointer is its own local buffer.
#include "copystack/abi.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

namespace {

struct String {
  char *p;
  size_t length;
  union {
    char local[16];
    size_t capacity;
  };
};
static_assert(sizeof(String) == 32, "libstdc++'s std::string");

constexpr size_t kLocalCapacity = 15;

size_t capacity(const String *s) {
  return s->p == s->local ? kLocalCapacity : s->capacity;
}

void set_length(String *s, size_t n) {
  s->length = n;
  s->p[n] = '\0';
}

// The new length when `remove` characters at `pos` become `insert` new ones
// and the result fits the capacity; otherwise (the member would grow the
// string, or would throw on bad arguments) ~0.
size_t fitting(const String *s, size_t pos, size_t remove, size_t insert) {
  size_t len = s->length, cap = capacity(s);
  if (pos > len || remove > len - pos || insert > cap ||
      len - remove > cap - insert)
    return ~size_t(0);
  return len - remove + insert;
}

// n bytes, sizeof(Word) <= n <= 2 * sizeof(Word): the first and the last
// word, which may overlap; both loads before the stores.
template <typename Word> void copy_words(char *to, const char *from, size_t n) {
  Word a, b;
  memcpy(&a, from, sizeof a);
  memcpy(&b, from + n - sizeof b, sizeof b);
  memcpy(to, &a, sizeof a);
  memcpy(to + n - sizeof b, &b, sizeof b);
}

// memcpy(to, from, n) for ranges that do not overlap; up to 16 bytes as
// two loads and two stores, no call (most strings are short, and glibc's
// memcpy is a call and a size dispatch).
void copy(char *to, const char *from, size_t n) {
  if (n > 16) {
    memcpy(to, from, n);
  } else if (n >= 8) {
    copy_words<uint64_t>(to, from, n);
  } else if (n >= 4) {
    copy_words<uint32_t>(to, from, n);
  } else if (n) {
    // 1 to 3: the first, the middle and the last (the same for n = 1).
    char a = from[0], b = from[n / 2], c = from[n - 1];
    to[0] = a;
    to[n / 2] = b;
    to[n - 1] = c;
  }
}

// The characters after the `remove` replaced at `pos` move to their place
// after `insert` new ones.
void move_tail(String *s, size_t pos, size_t remove, size_t insert) {
  size_t tail = s->length - pos - remove;
  if (tail && remove != insert)
    memmove(s->p + pos + insert, s->p + pos + remove, tail);
}

} // namespace

// Named as the pass calls them; exported from the shared runtime too.
#define FAST(name)                                                             \
  asm(COPYSTACK_SYM_STRING_FAST name) __attribute__((visibility("default")))

extern "C" {

// basic_string& _M_append(const char *s, size_t n)
void *append(String *self, const char *s, size_t n)
    FAST(COPYSTACK_STRING_APPEND);
void *append(String *self, const char *s, size_t n) {
  size_t len = fitting(self, self->length, 0, n);
  if (len == ~size_t(0))
    return nullptr;
  copy(self->p + self->length, s, n);
  set_length(self, len);
  return self;
}

// void _M_assign(const basic_string &from)
void *assign(String *self, const String *from)
    FAST(COPYSTACK_STRING_ASSIGN);
void *assign(String *self, const String *from) {
  if (self == from)
    return self;
  size_t n = from->length;
  if (n > capacity(self))
    return nullptr;
  copy(self->p, from->p, n);
  set_length(self, n);
  return self;
}

// basic_string& _M_replace(size_t pos, size_t remove, const char *s,
//                          size_t insert)
void *replace(String *self, size_t pos, size_t remove, const char *s,
              size_t insert)
    FAST(COPYSTACK_STRING_REPLACE);
void *replace(String *self, size_t pos, size_t remove, const char *s,
              size_t insert) {
  size_t len = fitting(self, pos, remove, insert);
  // New characters from the string itself (libstdc++'s "not disjunct"):
  // the member's own careful order of moves.
  if (len == ~size_t(0) ||
      !(s < self->p || s > self->p + self->length))
    return nullptr;
  move_tail(self, pos, remove, insert);
  copy(self->p + pos, s, insert);
  set_length(self, len);
  return self;
}

// basic_string& _M_replace_aux(size_t pos, size_t remove, size_t insert,
//                              char c)
void *replace_aux(String *self, size_t pos, size_t remove, size_t insert,
                  char c)
    FAST(COPYSTACK_STRING_REPLACE_AUX);
void *replace_aux(String *self, size_t pos, size_t remove, size_t insert,
                  char c) {
  size_t len = fitting(self, pos, remove, insert);
  if (len == ~size_t(0))
    return nullptr;
  move_tail(self, pos, remove, insert);
  if (insert)
    memset(self->p + pos, c, insert);
  set_length(self, len);
  return self;
}

// void _M_construct(size_t n, char c): the constructors have pointed the
// data at the local buffer; more than it holds is an allocation.
void *construct(String *self, size_t n, char c)
    FAST(COPYSTACK_STRING_CONSTRUCT);
void *construct(String *self, size_t n, char c) {
  if (n > kLocalCapacity || self->p != self->local)
    return nullptr;
  // The whole buffer, then the terminator: two stores, no call.
  uint64_t fill = 0x0101010101010101u * (unsigned char)c;
  memcpy(self->local, &fill, 8);
  memcpy(self->local + 8, &fill, 8);
  set_length(self, n);
  return self;
}

// void _M_erase(size_t pos, size_t n): never grows; in place whenever the
// arguments are within the string (the callers' checks make them so).
void *erase(String *self, size_t pos, size_t n)
    FAST(COPYSTACK_STRING_ERASE);
void *erase(String *self, size_t pos, size_t n) {
  size_t len = fitting(self, pos, n, 0);
  if (len == ~size_t(0))
    return nullptr;
  move_tail(self, pos, n, 0);
  set_length(self, len);
  return self;
}

// void resize(size_t n, char c): shorter is a new length; longer appends
// n - size() copies of c (libstdc++'s append(n, c), _M_replace_aux at the
// end), in place when n fits the capacity.
void *resize(String *self, size_t n, char c)
    FAST(COPYSTACK_STRING_RESIZE);
void *resize(String *self, size_t n, char c) {
  size_t len = self->length;
  if (n > len) {
    if (n > capacity(self))
      return nullptr;
    memset(self->p + len, c, n - len);
  }
  set_length(self, n);
  return self;
}

} // extern "C"
