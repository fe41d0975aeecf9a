// frame_info.cc: frame maps from the magic prefix, callee-saved register
// slots from the unwind tables (frame_info.h, eh_frame.h).
#include "platform/split_stack_notes.h"
#include "platform/thread_heap.h"
#include "platform/demangle.h"
#include "core/frame_info.h"
#include "core/eh_frame.h"
#include "platform/fatal.h"
#include "platform/sanitizers.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <unordered_map>
#include <ucontext.h>
#include <vector>

namespace copystack_rt {

namespace {

// Quiet: growths of unrelated tasks take it (platform/sanitizers.h).
san::QuietMutex g_cache_lock;
// Never destroyed: exit() runs static destructors while other workers may
// still be walking stacks.
std::unordered_map<uintptr_t, FrameInfo *> &call_sites() {
  static auto *m = new std::unordered_map<uintptr_t, FrameInfo *>;
  return *m;
}
std::unordered_map<uintptr_t, FrameInfo *> &functions() {
  static auto *m = new std::unordered_map<uintptr_t, FrameInfo *>;
  return *m;
}

// A small per-thread cache in front of the locked tables: frames of one
// recursion share return addresses.
constexpr unsigned kTlsCache = 64;
struct TlsEntry {
  uintptr_t ra;
  const FrameInfo *info;
};
struct FrameCache {
  TlsEntry call_sites[kTlsCache];
  TlsEntry last_function; // frame_info_for_function's
};
FrameCache &cache() { return thread_block<FrameCache>(kSlotFrameCache); }

} // namespace

static_assert(sizeof(copystack_prefix) == COPYSTACK_PREFIX_BYTES, "abi.h");
static_assert(offsetof(copystack_prefix, magic) ==
                  COPYSTACK_PREFIX_BYTES - COPYSTACK_MAGIC_OFFSET,
              "abi.h: the magic is COPYSTACK_MAGIC_OFFSET bytes before the "
              "entry");

bool is_instrumented(const void *fn) {
  uint64_t magic;
  memcpy(&magic, static_cast<const char *>(fn) - COPYSTACK_MAGIC_OFFSET,
         sizeof magic);
  return magic == COPYSTACK_MAGIC;
}

const copystack_frame_map *map_for_entry(uintptr_t entry) {
  auto *p = reinterpret_cast<const char *>(entry);
  if (!is_instrumented(p))
    return nullptr;
  copystack_prefix prefix;
  memcpy(&prefix, p - sizeof prefix, sizeof prefix);
  const uint32_t version = prefix.version;
  auto *map = reinterpret_cast<const copystack_frame_map *>(
      entry + static_cast<intptr_t>(prefix.map_offset));
  if (version != COPYSTACK_ABI_VERSION || map->version != COPYSTACK_ABI_VERSION)
    fatal("function %s was compiled for copystack ABI version %u; this "
          "runtime implements version %d: rebuild it with the matching plugin",
          Demangled(map->version == COPYSTACK_ABI_VERSION
                        ? copystack_map_name(map)
                        : symbol_name(entry))
              .str(),
          version, COPYSTACK_ABI_VERSION);
  return map;
}

const char *symbol_name(uintptr_t pc) {
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(pc), &info) && info.dli_sname)
    return info.dli_sname;
  // Static functions have no dynamic symbol; instrumented ones have a map.
  const char *why;
  if (const uint8_t *fde = find_fde(pc, &why)) {
    Fde f;
    if (parse_fde(fde, pc, f, &why) && is_instrumented(
                                           reinterpret_cast<void *>(f.begin)))
      if (const copystack_frame_map *m = map_for_entry(f.begin))
        return copystack_map_name(m);
  }
  return "<unknown>";
}

namespace {

const FrameInfo::Run *make_runs(std::vector<int32_t> &w, uint32_t &n) {
  n = 0;
  if (w.empty())
    return nullptr;
  std::sort(w.begin(), w.end());
  w.erase(std::unique(w.begin(), w.end()), w.end());
  std::vector<FrameInfo::Run> runs;
  for (int32_t off : w) {
    if (!runs.empty() &&
        runs.back().offset + 8 * static_cast<int32_t>(runs.back().words) == off)
      ++runs.back().words;
    else
      runs.push_back({off, 1});
  }
  auto *r = new FrameInfo::Run[runs.size()];
  std::copy(runs.begin(), runs.end(), r);
  n = static_cast<uint32_t>(runs.size());
  return r;
}

const int32_t *make_list(const std::vector<int32_t> &v, uint32_t &n) {
  n = static_cast<uint32_t>(v.size());
  if (v.empty())
    return nullptr;
  auto *p = new int32_t[v.size()];
  std::copy(v.begin(), v.end(), p);
  return p;
}

} // namespace

void flatten_words(FrameInfo &fi) {
  // Words (by %rbp offset) that a description says are not pointers, and
  // words any description says may be: the second wins.
  std::vector<int32_t> skip, keep, jb, va, rs;
  const copystack_frame_map &m = *fi.map;
  const copystack_object *objects = copystack_map_objects(&m);
  const uint64_t *bitmaps = copystack_map_bitmaps(&m);
  // The escaped objects (the first nescaped) have their %rbp offsets from
  // the map's resolver; the map itself stays read-only.
  std::vector<int32_t> escaped(m.nescaped);
  if (m.nescaped) {
    copystack_resolve_fn resolve = copystack_map_resolve(&m);
    if (!resolve || m.nescaped > m.nobjects)
      fatal("frame map of %s: %u escaped objects without a resolver",
            Demangled(copystack_map_name(&m)).str(), m.nescaped);
    resolve(escaped.data());
  }
  for (uint32_t i = 0; i < m.nobjects; ++i) {
    copystack_object o = objects[i];
    if (i < m.nescaped)
      o.offset = escaped[i];
    // Incoming stack arguments lie above the frame, in the caller's words
    // (its outgoing area, which its own map scans); only the asking
    // function's are read, at a growth (relocate.cc).
    if (o.flags & COPYSTACK_OBJF_ARGUMENT)
      continue;
    // Variadic words in the outgoing area are described from the frame's
    // bottom, which varies with the callee: scanned like any other word.
    if (o.flags & COPYSTACK_OBJF_OUTGOING)
      continue;
    if (o.kind == COPYSTACK_OBJ_JMPBUF_REF ||
        o.kind == COPYSTACK_OBJ_VALIST_REF) {
      keep.push_back(o.offset);
      (o.kind == COPYSTACK_OBJ_JMPBUF_REF ? jb : va).push_back(o.offset);
      continue;
    }
    if (o.flags & COPYSTACK_OBJF_REG_SAVE_AREA)
      rs.push_back(o.offset);
    const int32_t first = o.offset & ~7, end = (o.offset + o.size + 7) & ~7;
    for (int32_t w = first; w < end; w += 8) {
      // A word the object covers only in part may hold its neighbour too.
      bool whole = w >= o.offset && w + 8 <= o.offset + int32_t(o.size);
      uint32_t k = static_cast<uint32_t>(w - o.offset) / 8;
      bool ptr = !whole || o.kind == COPYSTACK_OBJ_ALL_WORDS ||
                 (o.kind == COPYSTACK_OBJ_BITMAP &&
                  (bitmaps[o.bitmap + k / 64] >> (k % 64)) & 1);
      (ptr ? keep : skip).push_back(w);
    }
  }
  std::sort(keep.begin(), keep.end());
  std::vector<int32_t> words;
  for (int32_t w : skip)
    if (!std::binary_search(keep.begin(), keep.end(), w))
      words.push_back(w);
  fi.jmpbufs = make_list(jb, fi.njmpbufs);
  fi.valists = make_list(va, fi.nvalists);
  fi.regsaves = make_list(rs, fi.nregsaves);
  fi.skip = make_runs(words, fi.nskip);
  fi.plain = !fi.nskip && !fi.njmpbufs && !fi.nvalists && !fi.nregsaves;
}

static FrameInfo *build(uintptr_t pc, bool call_site, const char **why) {
  const uint8_t *fde_ptr = find_fde(pc, why);
  if (!fde_ptr)
    return nullptr;
  Fde fde;
  if (!parse_fde(fde_ptr, pc, fde, why))
    return nullptr;
  const copystack_frame_map *map = map_for_entry(fde.begin);
  if (!map) {
    *why = "the function was not compiled with the copystack plugin";
    return nullptr;
  }
  auto *fi = new FrameInfo;
  fi->entry = fde.begin;
  fi->map = map;
  fi->sp_offsets = map->flags & COPYSTACK_MAPF_SP_OFFSETS;
  if (!call_site)
    return fi;
  CfaState st;
  if (!cfa_rules_at(fde, pc, st, why)) {
    delete fi;
    return nullptr;
  }
  const int64_t ra_off = st.saved[kDwRa] ? st.saved[kDwRa] : kRaDefault;
  if (st.cfa_reg == kDwFp) {
    // The frame record (the caller's frame pointer, then the return
    // address) at the frame pointer, CFA - fp_cfa.
    const int64_t k = st.cfa_off;
    if (k < 16 || k > 4096 || (k & 7) || st.saved[kDwFp] != -k ||
        ra_off != 8 - k) {
      *why = "the call site's frame is frame-pointer based but its frame "
             "record (the caller's frame pointer, then the return address) "
             "is not at the frame pointer";
      delete fi;
      return nullptr;
    }
    fi->fp_cfa = static_cast<uint32_t>(k);
    fi->ra_off = static_cast<int32_t>(ra_off);
  } else if (st.cfa_reg == kDwSp && st.cfa_off >= 8 && !(st.cfa_off & 7) &&
             ra_off < 0 && ra_off >= -st.cfa_off && !(ra_off & 7)) {
    // No frame pointer: the map must describe no locals (their offsets
    // are from the frame pointer); the arguments' offsets are from
    // CFA - 16 anyway.
    for (uint32_t i = 0; i < map->nobjects; ++i)
      if (!(copystack_map_objects(map)[i].flags &
            (COPYSTACK_OBJF_ARGUMENT | COPYSTACK_OBJF_OUTGOING))) {
        *why = "the call site's frame keeps no frame pointer, but its map "
               "describes locals at offsets from the frame pointer";
        delete fi;
        return nullptr;
      }
    if (st.saved[kDwFp] &&
        (st.saved[kDwFp] >= 0 || st.saved[kDwFp] < -st.cfa_off ||
         st.saved[kDwFp] == ra_off || (st.saved[kDwFp] & 7))) {
      *why = "the call site's frame saved the frame pointer outside its own "
             "words";
      delete fi;
      return nullptr;
    }
    fi->sp_cfa = static_cast<uint32_t>(st.cfa_off);
    fi->rbp_slot = static_cast<int32_t>(st.saved[kDwFp]);
    fi->ra_off = static_cast<int32_t>(ra_off);
  } else {
    *why = "the call site's CFA rule is neither the frame pointer + the "
           "frame record's distance nor the stack pointer + a whole number "
           "of words";
    delete fi;
    return nullptr;
  }
  flatten_words(*fi);
  return fi;
}

bool unwind_step(uintptr_t pc, uintptr_t sp, uintptr_t rbp, uintptr_t lo,
                 uintptr_t hi, UnwindStep *out, intptr_t shift, uintptr_t lr) {
  const char *why = nullptr;
  const uint8_t *fde_ptr = find_fde(pc, &why);
  Fde fde;
  CfaState st;
  if (!fde_ptr || !parse_fde(fde_ptr, pc, fde, &why) ||
      !cfa_rules_at(fde, pc, st, &why))
    return false;
  uintptr_t cfa;
  if (st.cfa_reg == kDwSp)
    cfa = sp + st.cfa_off;
  else if (st.cfa_reg == kDwFp)
    cfa = rbp + st.cfa_off;
  else
    return false;
  auto on_stack = [lo, hi](uintptr_t a) {
    return a >= lo && a < hi && hi - a >= 8 && !(a & 7);
  };
  auto read = [shift](uintptr_t a) {
    return *reinterpret_cast<const uintptr_t *>(a + shift);
  };
  // No saved return address (kRaDefault 0: AArch64's x30 holds it until
  // the function saves it): lr, when the caller knows it.
  const int64_t ra_off = st.saved[kDwRa] ? st.saved[kDwRa] : kRaDefault;
  if (ra_off ? !on_stack(cfa + ra_off) : !lr)
    return false;
  uintptr_t caller = rbp; // unless this function saved it
  out->rbp_slot = 0;
  if (st.saved[kDwFp]) {
    uintptr_t at = cfa + st.saved[kDwFp];
    if (!on_stack(at))
      return false;
    caller = read(at);
    out->rbp_slot = at;
  }
  out->ret = ra_off ? read(cfa + ra_off) : lr;
  out->by_lr = !ra_off;
  out->rbp = caller;
  out->cfa = cfa;
  out->by_rsp = st.cfa_reg == kDwSp;
  return true;
}

bool interrupted_start(const void *uctx, uintptr_t lo, uintptr_t hi,
                       FrameStart *at) {
  const auto *uc = static_cast<const ucontext_t *>(uctx);
  uintptr_t sp = context_sp(uc);
  *at = FrameStart{};
  if (sp < lo || sp >= hi)
    return false;
  at->pc = context_pc(uc) + 1;
  at->sp = sp;
  at->fp = context_fp(uc);
  at->lr = context_lr(uc);
  return true;
}

const FrameInfo *frame_info_for_call_site(uintptr_t ra, const char **why) {
  TlsEntry &e = cache().call_sites[(ra >> 2) % kTlsCache];
  if (e.ra == ra)
    return e.info;
  // The return address is the instruction after the call; the call itself
  // is at ra - 1 and belongs to the same function and CFA row.
  std::unique_lock<san::QuietMutex> g(g_cache_lock);
  auto it = call_sites().find(ra);
  FrameInfo *fi = it == call_sites().end() ? nullptr : it->second;
  g.unlock();
  if (!fi) {
    fi = build(ra - 1, /*call_site=*/true, why);
    if (!fi)
      return nullptr;
    g.lock();
    auto [pos, inserted] = call_sites().emplace(ra, fi);
    if (!inserted) {
      delete fi;
      fi = pos->second;
    }
  }
  e = TlsEntry{ra, fi};
  return fi;
}

const FrameInfo *frame_info_for_function(uintptr_t pc, const char **why) {
  TlsEntry &last = cache().last_function;
  if (last.ra == pc)
    return last.info;
  std::unique_lock<san::QuietMutex> g(g_cache_lock);
  auto it = functions().find(pc);
  if (it != functions().end()) {
    last = TlsEntry{pc, it->second};
    return it->second;
  }
  g.unlock();
  FrameInfo *fi = build(pc, /*call_site=*/false, why);
  if (!fi)
    return nullptr;
  g.lock();
  auto [pos, inserted] = functions().emplace(pc, fi);
  if (!inserted) {
    delete fi;
    fi = pos->second;
  }
  last = TlsEntry{pc, fi};
  return fi;
}

void frame_info_fork_lock() { g_cache_lock.lock(); }
void frame_info_fork_unlock() { g_cache_lock.unlock(); }

} // namespace copystack_rt
