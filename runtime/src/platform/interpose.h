// interpose.h: how the runtime's interposers (pthread_create,
// std::thread::_M_start_thread, close and the other calls io.cc watches)
// are named, and how each reaches the definition it stands in front of.
//
// A dynamic executable (libcopystack.a): the executable defines close,
// pthread_create... and the drivers export them, so the program and every
// library it loads call them; each finds the C library's or libstdc++'s
// own with dlsym(RTLD_NEXT).
//
// A static executable, -static or -static-pie (libcopystack_static.a, the
// same runtime compiled with COPYSTACK_STATIC_LINK): there is no dynamic
// symbol lookup to find the next definition with, and libstdc++.a defines
// std::thread::_M_start_thread as a strong symbol beside the runtime's. The
// runtime defines __wrap_close, __wrap_pthread_create... instead and the
// drivers link with -Wl,--wrap= for each name (COPYSTACK_WRAPPED_SYMBOLS in
// CMakeLists.txt): every reference to close in the program, in libstdc++.a
// and in the runtime goes to the interposer, and the interposer's own call
// of __real_close reaches the C library's close. The C library's calls of
// its own internal names (__close) are not interposed, as in a dynamic
// executable.
#ifndef COPYSTACK_PLATFORM_INTERPOSE_H
#define COPYSTACK_PLATFORM_INTERPOSE_H

#define CS_PASTE(a, b) CS_PASTE_(a, b)
#define CS_PASTE_(a, b) a##b
#define CS_STRING(x) CS_STRING_(x)
#define CS_STRING_(x) #x

#ifdef COPYSTACK_STATIC_LINK
// The name the interposer of name is defined under.
#define CS_INTERPOSER(name) CS_PASTE(__wrap_, name)
// Declares the definition behind the interposer of name, of fn's type.
#define CS_DECLARE_REAL(name, fn) extern "C" decltype(fn) CS_PASTE(__real_, name);
// That definition.
#define CS_REAL_OF(name) (&CS_PASTE(__real_, name))
#else
#define CS_INTERPOSER(name) name
#define CS_DECLARE_REAL(name, fn)
#endif

#endif
