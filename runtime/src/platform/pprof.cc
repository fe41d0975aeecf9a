// pprof.cc: the pprof profile writer (pprof.h): protobuf encoding by hand,
// the loaded objects' mappings, naming, and gzip with stored blocks.
#include "platform/split_stack_notes.h"
#include "platform/pprof.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <new>
#include <unistd.h>

namespace copystack_rt {

namespace {

// A growable array of a trivially copyable T, on malloc and realloc: a
// failed growth is a false return, never an exception (the writer may run
// in an atexit handler, and the runtime is built without exceptions).
template <class T> class Vec {
public:
  Vec() = default;
  Vec(const Vec &) = delete;
  Vec &operator=(const Vec &) = delete;
  ~Vec() { free(p_); }

  bool append(const T *v, size_t k) {
    if (k > cap_ - n_ && !grow(k))
      return false;
    if (k)
      memcpy(p_ + n_, v, k * sizeof(T));
    n_ += k;
    return true;
  }
  bool push(const T &v) { return append(&v, 1); }
  T &operator[](size_t i) { return p_[i]; }
  const T &operator[](size_t i) const { return p_[i]; }
  T *data() { return p_; }
  size_t size() const { return n_; }
  void clear() { n_ = 0; }

private:
  bool grow(size_t k) {
    size_t want = n_ + k;
    if (want < n_ || want > SIZE_MAX / 2 / sizeof(T))
      return false;
    size_t cap = cap_ ? cap_ : 64;
    while (cap < want)
      cap *= 2;
    T *p = static_cast<T *>(realloc(p_, cap * sizeof(T)));
    if (!p)
      return false;
    p_ = p;
    cap_ = cap;
    return true;
  }

  T *p_ = nullptr;
  size_t n_ = 0, cap_ = 0;
};

// Protobuf's wire format, the little of it a Profile needs: varints
// (int64 and uint64 alike: a negative int64 takes ten bytes, as protobuf's
// own encoders write it), length-delimited fields, packed varints. A failed
// growth is remembered and checked once at the end.
enum Wire : uint32_t { kVarint = 0, kLen = 2 };

size_t varint_size(uint64_t v) {
  size_t n = 1;
  for (; v >= 0x80; v >>= 7)
    ++n;
  return n;
}

class Bytes {
public:
  void byte(uint8_t b) { failed_ |= !v_.push(b); }
  void raw(const void *p, size_t n) {
    failed_ |= !v_.append(static_cast<const uint8_t *>(p), n);
  }
  void varint(uint64_t v) {
    uint8_t b[10];
    size_t n = 0;
    for (; v >= 0x80; v >>= 7)
      b[n++] = static_cast<uint8_t>(v | 0x80);
    b[n++] = static_cast<uint8_t>(v);
    raw(b, n);
  }
  void tag(uint32_t field, Wire w) { varint(field << 3 | w); }
  void field(uint32_t f, uint64_t v) {
    tag(f, kVarint);
    varint(v);
  }
  // proto3 leaves a zero scalar out: pprof reads it back as zero.
  void field_opt(uint32_t f, uint64_t v) {
    if (v)
      field(f, v);
  }
  void bytes_field(uint32_t f, const void *p, size_t n) {
    tag(f, kLen);
    varint(n);
    raw(p, n);
  }
  void message(uint32_t f, Bytes &m) {
    failed_ |= m.failed_;
    bytes_field(f, m.data(), m.size());
  }
  // A packed repeated varint field, its length counted first.
  void packed(uint32_t f, const uint64_t *v, size_t n) {
    size_t len = 0;
    for (size_t i = 0; i < n; ++i)
      len += varint_size(v[i]);
    tag(f, kLen);
    varint(len);
    for (size_t i = 0; i < n; ++i)
      varint(v[i]);
  }

  const uint8_t *data() { return v_.data(); }
  size_t size() const { return v_.size(); }
  bool failed() const { return failed_; }
  void clear() { v_.clear(); }

private:
  Vec<uint8_t> v_;
  bool failed_ = false;
};

// Entry indices by a 32-bit hash of their keys (the entries are the
// caller's): open addressing, linear probing, at most half full. A slot
// keeps its hash, so that growing needs no callback.
class Table {
public:
  Table() = default;
  Table(const Table &) = delete;
  Table &operator=(const Table &) = delete;
  ~Table() { free(slots_); }

  // The entry of hash h that eq(index) accepts, or a new one, whose index
  // make() returns. -1 when memory ran out (make returned -1, or growing
  // failed).
  template <class Eq, class Make>
  int64_t find_or_add(uint32_t h, Eq eq, Make make) {
    if ((count_ + 1) * 2 > cap_ && !grow())
      return -1;
    for (uint32_t i = h & (cap_ - 1);; i = (i + 1) & (cap_ - 1)) {
      Slot &s = slots_[i];
      if (!s.id) {
        int64_t e = make();
        if (e < 0 || e >= int64_t(UINT32_MAX))
          return -1;
        s.id = static_cast<uint32_t>(e) + 1;
        s.hash = h;
        ++count_;
        return e;
      }
      if (s.hash == h && eq(s.id - 1))
        return s.id - 1;
    }
  }

  void clear() {
    if (slots_)
      memset(slots_, 0, cap_ * sizeof(Slot));
    count_ = 0;
  }

private:
  struct Slot {
    uint32_t id; // the entry's index + 1; 0: empty
    uint32_t hash;
  };

  bool grow() {
    uint32_t cap = cap_ ? cap_ * 2 : 64;
    if (cap <= cap_)
      return false;
    auto *slots = static_cast<Slot *>(calloc(cap, sizeof(Slot)));
    if (!slots)
      return false;
    for (uint32_t j = 0; j < cap_; ++j) {
      if (!slots_[j].id)
        continue;
      uint32_t i = slots_[j].hash & (cap - 1);
      while (slots[i].id)
        i = (i + 1) & (cap - 1);
      slots[i] = slots_[j];
    }
    free(slots_);
    slots_ = slots;
    cap_ = cap;
    return true;
  }

  Slot *slots_ = nullptr;
  uint32_t cap_ = 0, count_ = 0;
};

uint32_t hash_bytes(const char *s, size_t n) {
  uint32_t h = 2166136261u; // FNV-1a
  for (size_t i = 0; i < n; ++i)
    h = (h ^ static_cast<uint8_t>(s[i])) * 16777619u;
  return h;
}

uint32_t hash_word(uint64_t v) {
  return static_cast<uint32_t>((v * 0x9e3779b97f4a7c15ull) >> 32);
}

// CRC-32 as gzip's trailer wants it (IEEE 802.3, reflected, 0xEDB88320).
class Crc32 {
public:
  Crc32() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k)
        c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
      table_[i] = c;
    }
  }
  void update(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; ++i)
      crc_ = table_[(crc_ ^ p[i]) & 0xff] ^ (crc_ >> 8);
  }
  uint32_t value() const { return crc_ ^ 0xffffffffu; }

private:
  uint32_t table_[256];
  uint32_t crc_ = 0xffffffffu;
};

int write_all(int fd, const void *p, size_t n) {
  const char *c = static_cast<const char *>(p);
  while (n) {
    ssize_t k = ::write(fd, c, n);
    if (k < 0) {
      if (errno == EINTR)
        continue;
      return errno;
    }
    c += k;
    n -= static_cast<size_t>(k);
  }
  return 0;
}

void put_le32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    p[i] = static_cast<uint8_t>(v >> (8 * i));
}

// data as a gzip member (RFC 1952) around deflate's stored blocks (RFC
// 1951, BTYPE 00): no compression, so no zlib. A profile is mostly varints
// and would shrink, but pprof reads it either way, and the file is written
// once. Every block starts on a byte boundary (a stored block ends on one),
// so its three header bits fill a whole byte: 1 for the last block, else 0.
int write_gzip(int fd, const uint8_t *data, size_t n) {
  // ID1 ID2, CM 8 (deflate), no flags, no mtime, XFL 0, OS 255 (unknown).
  static const uint8_t kHeader[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255};
  if (int err = write_all(fd, kHeader, sizeof kHeader))
    return err;
  Crc32 crc;
  size_t off = 0;
  do {
    size_t len = n - off < 65535 ? n - off : 65535;
    bool last = off + len == n;
    uint8_t block[5] = {static_cast<uint8_t>(last), static_cast<uint8_t>(len),
                        static_cast<uint8_t>(len >> 8),
                        static_cast<uint8_t>(~len),
                        static_cast<uint8_t>(~len >> 8)};
    if (int err = write_all(fd, block, sizeof block))
      return err;
    if (int err = write_all(fd, data + off, len))
      return err;
    crc.update(data + off, len);
    off += len;
  } while (off < n);
  uint8_t trailer[8];
  put_le32(trailer, crc.value());
  put_le32(trailer + 4, static_cast<uint32_t>(n)); // ISIZE: mod 2^32
  return write_all(fd, trailer, sizeof trailer);
}

// An object's build ID (the GNU note NT_GNU_BUILD_ID of a PT_NOTE
// segment) as lowercase hex, as `file` and readelf print it: google/pprof
// refuses a binary whose own ID differs, and pprof finds binaries by it
// under $PPROF_BINARY_PATH. False when the object has none.
bool build_id_hex(const struct dl_phdr_info *info, char (&hex)[129]) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE)
      continue;
    // Notes are padded to 4 bytes, or to 8 in a segment aligned so.
    size_t align = ph.p_align == 8 ? 8 : 4;
    auto up = [align](size_t n) { return (n + align - 1) & ~(align - 1); };
    const char *p =
        reinterpret_cast<const char *>(info->dlpi_addr + ph.p_vaddr);
    size_t left = ph.p_filesz;
    while (left >= sizeof(ElfW(Nhdr))) {
      const auto *nh = reinterpret_cast<const ElfW(Nhdr) *>(p);
      size_t desc = sizeof *nh + up(nh->n_namesz);
      size_t next = desc + up(nh->n_descsz);
      if (next > left)
        break;
      if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
          !memcmp(p + sizeof *nh, "GNU", 4) && nh->n_descsz &&
          nh->n_descsz <= (sizeof hex - 1) / 2) {
        static const char kHex[] = "0123456789abcdef";
        const auto *d = reinterpret_cast<const uint8_t *>(p + desc);
        for (size_t j = 0; j < nh->n_descsz; ++j) {
          hex[2 * j] = kHex[d[j] >> 4];
          hex[2 * j + 1] = kHex[d[j] & 15];
        }
        hex[2 * nh->n_descsz] = 0;
        return true;
      }
      p += next;
      left -= next;
    }
  }
  return false;
}

// Profile's fields, and those of its messages.
enum : uint32_t {
  kProfileSampleType = 1,
  kProfileSample = 2,
  kProfileMapping = 3,
  kProfileLocation = 4,
  kProfileFunction = 5,
  kProfileStringTable = 6,
  kProfileTimeNanos = 9,
  kProfileDurationNanos = 10,
  kProfilePeriodType = 11,
  kProfilePeriod = 12,
  kProfileDefaultSampleType = 14,
  kValueTypeType = 1,
  kValueTypeUnit = 2,
  kSampleLocationId = 1,
  kSampleValue = 2,
  kSampleLabel = 3,
  kLabelKey = 1,
  kLabelStr = 2,
  kMappingId = 1,
  kMappingMemoryStart = 2,
  kMappingMemoryLimit = 3,
  kMappingFileOffset = 4,
  kMappingFilename = 5,
  kMappingBuildId = 6,
  kMappingHasFunctions = 7,
  kLocationId = 1,
  kLocationMappingId = 2,
  kLocationAddress = 3,
  kLocationLine = 4,
  kLineFunctionId = 1,
  kFunctionId = 1,
  kFunctionName = 2,
  kFunctionSystemName = 3,
};

struct Span {
  size_t off, len;
};

// One executable PT_LOAD segment of a loaded object, with the program
// header's own bounds, not widened to whole pages as /proc/self/maps shows
// them. `go tool pprof` (cmd/pprof's own ELF reader, not pprof's binutils)
// takes a mapping's start for the segment's p_vaddr and ignores the file
// offset; lld and gold leave the text segment's p_vaddr unaligned, and a
// page-aligned start moved every address by p_vaddr's offset in its page
// (names of the wrong functions). pprof's binutils reader agrees with
// exact bounds too: it finds the segment by p_offset (an unaligned start
// only makes it look for a kernel's _stext symbol as well).
struct Segment {
  uint64_t start, limit, offset;
  uint32_t file, build_id; // string indices
  uint32_t locations, named;
};

struct Function {
  uint32_t name, system_name;
};

} // namespace

struct PprofWriter::State {
  int ntypes = 0;
  Vec<uint32_t> types; // each type's and unit's string indices
  uint32_t period_type = 0, period_unit = 0;
  int64_t period = 0, time_nanos = 0, duration_nanos = 0;
  int default_type = -1;
  bool failed = false; // an allocation failed: write() says ENOMEM

  // The string table: string i is chars[spans[i]]; string 0 is "".
  Vec<char> chars;
  Vec<Span> spans;
  Table string_index;

  // Location i + 1 is at addrs[i] (already less one for a return address).
  Vec<uint64_t> addrs;
  Table addr_index;

  // The samples, encoded as they come (each with its Profile field tag):
  // they are most of a profile, and need nothing that write() learns.
  Bytes samples;
  Vec<uint64_t> ids; // one sample's location ids

  int64_t intern(const char *s, size_t n) {
    return string_index.find_or_add(
        hash_bytes(s, n),
        [&](uint32_t i) {
          return spans[i].len == n && !memcmp(&chars[spans[i].off], s, n);
        },
        [&]() -> int64_t {
          Span sp{chars.size(), n};
          if (!chars.append(s, n) || !spans.push(sp))
            return -1;
          return static_cast<int64_t>(spans.size() - 1);
        });
  }
  // Interns s (null as ""); a failure is remembered and gives 0.
  uint32_t str(const char *s) {
    int64_t i = intern(s ? s : "", s ? strlen(s) : 0);
    if (i < 0) {
      failed = true;
      return 0;
    }
    return static_cast<uint32_t>(i);
  }

  // The location id of addr (0 when memory ran out).
  uint64_t location(uint64_t addr) {
    int64_t i = addr_index.find_or_add(
        hash_word(addr), [&](uint32_t j) { return addrs[j] == addr; },
        [&]() -> int64_t {
          if (!addrs.push(addr))
            return -1;
          return static_cast<int64_t>(addrs.size() - 1);
        });
    if (i < 0) {
      failed = true;
      return 0;
    }
    return static_cast<uint64_t>(i) + 1;
  }

  void add(const uintptr_t *pcs, int npcs, const int64_t *values,
           PprofLeaf leaf, const char *key, const char *value);
  int write(const char *path, PprofNamer namer);
  bool read_mappings(Vec<Segment> &segs);
};

void PprofWriter::State::add(const uintptr_t *pcs, int npcs,
                             const int64_t *values, PprofLeaf leaf,
                             const char *key, const char *value) {
  ids.clear();
  for (int i = 0; i < npcs; ++i) {
    if (!pcs[i])
      continue;
    // A return address is the instruction after the call, which may be
    // the next line or, after a call that does not return, the next
    // function: less one, it falls inside the call instruction, and
    // symbolizes to the caller's line (Go's runtime writes the same).
    uint64_t addr = pcs[i];
    if (i > 0 || leaf == PprofLeaf::kReturnAddress)
      --addr;
    uint64_t id = location(addr);
    if (!id || !ids.push(id)) {
      failed = true;
      return;
    }
  }
  Bytes &b = samples;
  // The Sample's length comes first: counted here, then written field by
  // field straight into the samples' bytes.
  size_t id_len = 0, value_len = 0, label_len = 0;
  for (size_t i = 0; i < ids.size(); ++i)
    id_len += varint_size(ids[i]);
  for (int i = 0; i < ntypes; ++i)
    value_len += varint_size(static_cast<uint64_t>(values[i]));
  uint32_t k = 0, v = 0;
  if (key) {
    k = str(key);
    v = str(value);
    label_len = 1 + varint_size(k) + 1 + varint_size(v);
  }
  size_t len =
      1 + varint_size(id_len) + id_len + 1 + varint_size(value_len) + value_len;
  if (key)
    len += 1 + varint_size(label_len) + label_len;
  b.tag(kProfileSample, kLen);
  b.varint(len);
  b.packed(kSampleLocationId, ids.data(), ids.size());
  b.tag(kSampleValue, kLen);
  b.varint(value_len);
  for (int i = 0; i < ntypes; ++i)
    b.varint(static_cast<uint64_t>(values[i]));
  if (key) {
    b.tag(kSampleLabel, kLen);
    b.varint(label_len);
    b.field(kLabelKey, k);
    b.field(kLabelStr, v);
  }
  failed |= b.failed();
}

// The executable PT_LOAD segments of every loaded object, the main
// program's first (pprof takes mapping 1 for the main program, and gives
// it the binary named on its command line). glibc and musl report the
// main program first, with an empty name: its path is /proc/self/exe's.
bool PprofWriter::State::read_mappings(Vec<Segment> &segs) {
  struct Ctx {
    State *s;
    Vec<Segment> *segs;
    bool first, ok;
  } ctx{this, &segs, true, true};
  dl_iterate_phdr(
      [](struct dl_phdr_info *info, size_t, void *data) -> int {
        auto &c = *static_cast<Ctx *>(data);
        bool main = c.first;
        c.first = false;
        bool any = false;
        for (int i = 0; i < info->dlpi_phnum; ++i)
          any |= info->dlpi_phdr[i].p_type == PT_LOAD &&
                 (info->dlpi_phdr[i].p_flags & PF_X);
        if (!any)
          return 0;
        uint32_t file;
        if (main && (!info->dlpi_name || !info->dlpi_name[0])) {
          char path[PATH_MAX];
          ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
          path[n > 0 ? n : 0] = 0;
          file = c.s->str(path);
        } else {
          file = c.s->str(info->dlpi_name);
        }
        char hex[129];
        uint32_t build_id = build_id_hex(info, hex) ? c.s->str(hex) : 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr) &ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
            continue;
          Segment sg{};
          sg.start = info->dlpi_addr + ph.p_vaddr;
          sg.limit = sg.start + ph.p_memsz;
          sg.offset = ph.p_offset;
          sg.file = file;
          sg.build_id = build_id;
          if (!c.segs->push(sg)) {
            c.ok = false;
            return 1;
          }
        }
        return 0;
      },
      &ctx);
  return ctx.ok;
}

int PprofWriter::State::write(const char *path, PprofNamer namer) {
  if (failed)
    return ENOMEM;
  Vec<Segment> segs;
  if (!read_mappings(segs) || failed)
    return ENOMEM;

  // Each location's mapping and function (index + 1; 0: none), the
  // functions deduplicated by their names. Named anew on every write: a
  // library may have come or gone since the last.
  size_t nloc = addrs.size();
  Vec<uint32_t> loc_seg, loc_fn;
  Vec<Function> fns;
  Table fn_index;
  size_t last = 0;
  for (size_t i = 0; i < nloc; ++i) {
    uint64_t a = addrs[i];
    uint32_t seg = 0;
    if (last < segs.size() && segs[last].start <= a && a < segs[last].limit) {
      seg = static_cast<uint32_t>(last) + 1;
    } else {
      for (size_t j = 0; j < segs.size(); ++j)
        if (segs[j].start <= a && a < segs[j].limit) {
          seg = static_cast<uint32_t>(j) + 1;
          last = j;
          break;
        }
    }
    const char *name = nullptr, *sys = nullptr;
    if (!namer || !namer(static_cast<uintptr_t>(a), &name, &sys) || !name ||
        !*name) {
      // dladdr sees the dynamic symbol tables only (a program's own
      // functions when it is linked with -rdynamic), and gives the symbol
      // as is: pprof demangles a name equal to its system name itself,
      // the way it shows the names it finds in the binary.
      Dl_info di;
      name = nullptr;
      if (dladdr(reinterpret_cast<void *>(static_cast<uintptr_t>(a)), &di) &&
          di.dli_sname && di.dli_sname[0])
        name = di.dli_sname;
      sys = nullptr;
    }
    uint32_t fn = 0;
    if (name) {
      Function f{str(name), str(sys && *sys ? sys : name)};
      int64_t j = fn_index.find_or_add(
          hash_word(uint64_t(f.name) << 32 | f.system_name),
          [&](uint32_t k) {
            return fns[k].name == f.name && fns[k].system_name == f.system_name;
          },
          [&]() -> int64_t {
            if (!fns.push(f))
              return -1;
            return static_cast<int64_t>(fns.size() - 1);
          });
      if (j < 0)
        return ENOMEM;
      fn = static_cast<uint32_t>(j) + 1;
    }
    if (seg) {
      segs[seg - 1].locations++;
      segs[seg - 1].named += fn != 0;
    }
    if (!loc_seg.push(seg) || !loc_fn.push(fn))
      return ENOMEM;
  }

  if (failed) // a name that could not be interned
    return ENOMEM;

  // Every string is interned by now; the table goes last.
  Bytes out, m;
  for (int i = 0; i < ntypes; ++i) {
    m.clear();
    m.field_opt(kValueTypeType, types[2 * i]);
    m.field_opt(kValueTypeUnit, types[2 * i + 1]);
    out.message(kProfileSampleType, m);
  }
  out.raw(samples.data(), samples.size());
  for (size_t i = 0; i < segs.size(); ++i) {
    const Segment &sg = segs[i];
    m.clear();
    m.field(kMappingId, i + 1);
    m.field_opt(kMappingMemoryStart, sg.start);
    m.field_opt(kMappingMemoryLimit, sg.limit);
    m.field_opt(kMappingFileOffset, sg.offset);
    m.field_opt(kMappingFilename, sg.file);
    m.field_opt(kMappingBuildId, sg.build_id);
    // Only when every location in it was named: pprof symbolizes no
    // location of a mapping that has functions, even with the binary
    // given; and in one that has none, it replaces every location's name
    // with the binary's (ours included).
    m.field_opt(kMappingHasFunctions, sg.locations && sg.named == sg.locations);
    out.message(kProfileMapping, m);
  }
  Bytes line;
  for (size_t i = 0; i < nloc; ++i) {
    m.clear();
    m.field(kLocationId, i + 1);
    m.field_opt(kLocationMappingId, loc_seg[i]);
    m.field_opt(kLocationAddress, addrs[i]);
    if (loc_fn[i]) {
      line.clear();
      line.field(kLineFunctionId, loc_fn[i]);
      m.message(kLocationLine, line);
    }
    out.message(kProfileLocation, m);
  }
  for (size_t i = 0; i < fns.size(); ++i) {
    m.clear();
    m.field(kFunctionId, i + 1);
    m.field_opt(kFunctionName, fns[i].name);
    m.field_opt(kFunctionSystemName, fns[i].system_name);
    out.message(kProfileFunction, m);
  }
  for (size_t i = 0; i < spans.size(); ++i)
    out.bytes_field(kProfileStringTable, &chars[spans[i].off], spans[i].len);
  out.field_opt(kProfileTimeNanos, static_cast<uint64_t>(time_nanos));
  out.field_opt(kProfileDurationNanos, static_cast<uint64_t>(duration_nanos));
  if (period_type || period_unit) {
    m.clear();
    m.field_opt(kValueTypeType, period_type);
    m.field_opt(kValueTypeUnit, period_unit);
    out.message(kProfilePeriodType, m);
  }
  out.field_opt(kProfilePeriod, static_cast<uint64_t>(period));
  if (ntypes > 0) {
    int d =
        default_type >= 0 && default_type < ntypes ? default_type : ntypes - 1;
    out.field_opt(kProfileDefaultSampleType, types[2 * d]);
  }
  if (out.failed() || m.failed() || line.failed())
    return ENOMEM;

  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return errno;
  int err = write_gzip(fd, out.data(), out.size());
  if (close(fd) != 0 && !err && errno != EINTR)
    err = errno;
  return err;
}

PprofWriter::PprofWriter(const PprofValueType *types, int ntypes,
                         PprofValueType period_type, int64_t period) {
  void *mem = malloc(sizeof(State));
  s_ = mem ? new (mem) State() : nullptr;
  if (!s_)
    return;
  State &s = *s_;
  s.str(""); // string 0
  s.ntypes = ntypes > 0 ? ntypes : 0;
  for (int i = 0; i < s.ntypes; ++i)
    if (!s.types.push(s.str(types[i].type)) ||
        !s.types.push(s.str(types[i].unit)))
      s.failed = true;
  if (period_type.type) {
    s.period_type = s.str(period_type.type);
    s.period_unit = s.str(period_type.unit);
  }
  s.period = period;
}

PprofWriter::~PprofWriter() {
  if (s_) {
    s_->~State();
    free(s_);
  }
}

void PprofWriter::add(const uintptr_t *pcs, int npcs, const int64_t *values,
                      PprofLeaf leaf, const char *label_key,
                      const char *label_value) {
  if (s_ && !s_->failed)
    s_->add(pcs, npcs, values, leaf, label_key, label_value);
}

void PprofWriter::set_times(int64_t time_nanos, int64_t duration_nanos) {
  if (s_) {
    s_->time_nanos = time_nanos;
    s_->duration_nanos = duration_nanos;
  }
}

void PprofWriter::set_default_type(int index) {
  if (s_)
    s_->default_type = index;
}

int PprofWriter::write(const char *path, PprofNamer namer) {
  return s_ ? s_->write(path, namer) : ENOMEM;
}

} // namespace copystack_rt
