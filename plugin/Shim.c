/*===- Shim.c - CopyStack.so: which clang loaded it, then the plugin -------===
 *
 * clang -fplugin=CopyStack.so and -fpass-plugin=CopyStack.so load this
 * small library first. The plugin itself (ClangPlugin.cpp, PassPlugin.cpp
 * and the passes: CopyStack-clang<major>.so beside this file) uses clang's
 * and LLVM's C++ internals, which change with every major version: loaded
 * into another clang, its static constructors registered into data
 * structures of another layout (a SIGSEGV with clang-14 -fplugin=) or
 * called functions that clang does not have (a symbol lookup error with
 * -fpass-plugin=). This library links nothing of LLVM. When it is loaded it
 * asks which LLVM the process has; if that is not the LLVM the plugin was
 * built against, it says so in one line and ends the compilation with exit
 * status 1; otherwise it loads the plugin, whose constructors register its
 * action with clang's plugin registry as before, and answers
 * -fpass-plugin='s llvmGetPassPluginInfo with the plugin's.
 *
 * Which LLVM: LLVMGetVersion (LLVM's C API, since LLVM 16) when the process
 * exports it; otherwise the version in the name of a loaded libLLVM or
 * libclang-cpp (Debian's clang-14 loads libLLVM-14.so.1).
 *
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef COPYSTACK_LLVM_MAJOR
#error "COPYSTACK_LLVM_MAJOR: the LLVM major version the plugin is built for"
#endif

/* llvm::PassPluginLibraryInfo (llvm/Passes/PassPlugin.h), a plain struct:
 * what the plugin's llvmGetPassPluginInfo returns, passed on unchanged. */
struct PassPluginLibraryInfo {
  uint32_t APIVersion;
  const char *PluginName;
  const char *PluginVersion;
  void (*RegisterPassBuilderCallbacks)(void *);
};

typedef struct PassPluginLibraryInfo (*GetInfoFn)(void);
static GetInfoFn plugin_info;

/* The major version in a library name such as libLLVM-14.so.1,
 * libLLVM.so.19.1, libLLVM-19.so or libclang-cpp.so.14: 0 if none. */
static unsigned version_in_name(const char *path) {
  static const char *const kPrefixes[] = {"libLLVM-", "libLLVM.so.",
                                          "libclang-cpp.so."};
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  for (size_t i = 0; i < sizeof kPrefixes / sizeof *kPrefixes; ++i) {
    size_t n = strlen(kPrefixes[i]);
    if (strncmp(base, kPrefixes[i], n) == 0 && base[n] >= '1' &&
        base[n] <= '9')
      return (unsigned)strtoul(base + n, NULL, 10);
  }
  return 0;
}

static int find_llvm_library(struct dl_phdr_info *info, size_t size,
                             void *data) {
  (void)size;
  unsigned *major = data;
  if (info->dlpi_name && !*major)
    *major = version_in_name(info->dlpi_name);
  return *major != 0;
}

/* The host's LLVM version as "major[.minor.patch]" in buf; its major
 * version, or 0 if it has no LLVM that says which it is. */
static unsigned host_llvm(char *buf, size_t len) {
  void (*get)(unsigned *, unsigned *, unsigned *);
  *(void **)&get = dlsym(RTLD_DEFAULT, "LLVMGetVersion");
  if (get) {
    unsigned major = 0, minor = 0, patch = 0;
    get(&major, &minor, &patch);
    snprintf(buf, len, "%u.%u.%u", major, minor, patch);
    return major;
  }
  unsigned major = 0;
  dl_iterate_phdr(find_llvm_library, &major);
  snprintf(buf, len, "%u", major);
  return major;
}

/* The plugin's path: this library's directory and its name. */
static int plugin_path(char *buf, size_t len) {
  Dl_info self;
  if (!dladdr((void *)&plugin_path, &self) || !self.dli_fname)
    return 0;
  const char *slash = strrchr(self.dli_fname, '/');
  int dir = slash ? (int)(slash - self.dli_fname + 1) : 0;
  int n = snprintf(buf, len, "%.*s%s", dir, self.dli_fname,
                   COPYSTACK_REAL_PLUGIN);
  return n > 0 && (size_t)n < len;
}

/* One line, and the compilation ends: the plugin cannot work here, and
 * clang cannot be told so (its diagnostics are part of what differs). */
__attribute__((noreturn, format(printf, 1, 2))) static void
refuse(const char *fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  fprintf(stderr, "copystack: %s\n", line);
  fflush(stderr);
  _exit(1);
}

__attribute__((constructor)) static void load_plugin(void) {
  char host[64];
  unsigned major = host_llvm(host, sizeof host);
  if (major == 0)
    refuse("CopyStack.so was loaded by a program whose LLVM version it "
           "cannot tell (not clang, or an LLVM older than 16 linked "
           "statically); it was built for clang %s and runs only in clang "
           "%d: use clang-%d, or the copystack-cc and copystack-c++ drivers",
           COPYSTACK_LLVM_VERSION, COPYSTACK_LLVM_MAJOR, COPYSTACK_LLVM_MAJOR);
  if (major != COPYSTACK_LLVM_MAJOR)
    refuse("this clang is LLVM %s, but CopyStack.so was built for clang %s "
           "and runs only in clang %d: compile with clang-%d (or the "
           "copystack-cc and copystack-c++ drivers), or rebuild copystack "
           "with this clang (CC=clang-%u CXX=clang++-%u)",
           host, COPYSTACK_LLVM_VERSION, COPYSTACK_LLVM_MAJOR,
           COPYSTACK_LLVM_MAJOR, major, major);
  char path[4096];
  if (!plugin_path(path, sizeof path))
    refuse("CopyStack.so cannot find its own directory, where %s is",
           COPYSTACK_REAL_PLUGIN);
  /* As clang loads a plugin (llvm::sys::DynamicLibrary): lazily bound,
   * global. */
  void *plugin = dlopen(path, RTLD_LAZY | RTLD_GLOBAL);
  if (!plugin)
    refuse("cannot load the copystack plugin: %s (opt-%d loads "
           "CopyStackPasses.so, not CopyStack.so)",
           dlerror(), COPYSTACK_LLVM_MAJOR);
  *(void **)&plugin_info = dlsym(plugin, "llvmGetPassPluginInfo");
}

/* -fpass-plugin=: clang looks this up in CopyStack.so itself. */
__attribute__((visibility("default"))) struct PassPluginLibraryInfo
llvmGetPassPluginInfo(void) {
  if (!plugin_info)
    refuse("%s has no llvmGetPassPluginInfo", COPYSTACK_REAL_PLUGIN);
  return plugin_info();
}
