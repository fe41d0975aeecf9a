// Units of pprof.cc: profiles of this binary's own functions, read back by
// gzip and by a small protobuf decoder here, and, where Go is installed, by
// `go tool pprof` (which symbolizes them with this binary, or keeps the
// writer's names).
#include "platform/pprof.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace copystack_rt;

// Functions with return addresses of their own: each calls pprof_test_here
// (which returns its return address, inside the caller) and does something
// after the call, so that the call is neither inlined nor a tail call.
extern "C" {
volatile int pprof_test_sink;

__attribute__((noinline)) uintptr_t pprof_test_here() {
  return reinterpret_cast<uintptr_t>(__builtin_return_address(0));
}
__attribute__((noinline)) uintptr_t pprof_test_alpha() {
  uintptr_t r = pprof_test_here();
  pprof_test_sink = 1;
  return r;
}
__attribute__((noinline)) uintptr_t pprof_test_beta() {
  uintptr_t r = pprof_test_here();
  pprof_test_sink = 2;
  return r;
}
__attribute__((noinline)) uintptr_t pprof_test_gamma() {
  uintptr_t r = pprof_test_here();
  pprof_test_sink = 3;
  return r;
}
// Only its address is used, as an exact pc (a leaf that was interrupted).
__attribute__((noinline)) void pprof_test_delta() { pprof_test_sink = 4; }
}

// Local: in no dynamic symbol table, even with -rdynamic.
static __attribute__((noinline)) uintptr_t pprof_test_hidden() {
  uintptr_t r = pprof_test_here();
  pprof_test_sink = 5;
  return r;
}

namespace {

const PprofValueType kTypes[] = {{"copies", "count"}, {"space", "bytes"}};
const PprofValueType kPeriod = {"copies", "count"};

std::string self_path() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return std::string(buf, n > 0 ? size_t(n) : 0);
}

std::string temp_path(const char *name) {
  return testing::TempDir() + "pprof_test_" + std::to_string(getpid()) + "_" +
         name + ".pb.gz";
}

// Everything left to read from f, which is closed (closer: pclose or
// fclose); empty when f is null.
std::string drain(FILE *f, int (*closer)(FILE *)) {
  std::string out;
  if (!f)
    return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0)
    out.append(buf, n);
  closer(f);
  return out;
}

std::string run(const std::string &cmd) {
  return drain(popen(cmd.c_str(), "r"), pclose);
}

std::string read_file(const std::string &path) {
  return drain(fopen(path.c_str(), "rb"), fclose);
}

const char kGo[] = "/usr/lib/go-1.19/bin/go";

bool have_go() { return access(kGo, X_OK) == 0; }

std::string pprof(const std::string &args) {
  return run(std::string(kGo) + " tool pprof " + args + " 2>&1");
}

// The main program's executable segment, as the dynamic linker has it.
struct Segment {
  uint64_t start = 0, limit = 0, offset = 0;
};

Segment main_text() {
  Segment seg;
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        auto *s = static_cast<Segment *>(data);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr) &ph = info->dlpi_phdr[i];
          if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && !s->start) {
            s->start = info->dlpi_addr + ph.p_vaddr;
            s->limit = s->start + ph.p_memsz;
            s->offset = ph.p_offset;
          }
        }
        return 1; // the main program comes first
      },
      &seg);
  return seg;
}

// A protobuf message's fields, decoded just enough to check a Profile.
struct Field {
  uint32_t num;
  uint64_t v;    // a varint
  std::string s; // a length-delimited field
};

bool varint(const std::string &b, size_t &i, uint64_t &v) {
  v = 0;
  for (int shift = 0; i < b.size() && shift < 64; shift += 7) {
    uint8_t c = static_cast<uint8_t>(b[i++]);
    v |= uint64_t(c & 0x7f) << shift;
    if (!(c & 0x80))
      return true;
  }
  return false;
}

std::vector<Field> decode(const std::string &b) {
  std::vector<Field> out;
  size_t i = 0;
  while (i < b.size()) {
    uint64_t key, v;
    EXPECT_TRUE(varint(b, i, key));
    Field f{uint32_t(key >> 3), 0, {}};
    if ((key & 7) == 0) {
      EXPECT_TRUE(varint(b, i, f.v));
    } else if ((key & 7) == 2) {
      EXPECT_TRUE(varint(b, i, v));
      EXPECT_LE(i + v, b.size());
      f.s = b.substr(i, v);
      i += v;
    } else {
      ADD_FAILURE() << "wire type " << (key & 7);
      break;
    }
    out.push_back(f);
  }
  return out;
}

std::vector<uint64_t> packed(const std::string &b) {
  std::vector<uint64_t> out;
  size_t i = 0;
  uint64_t v;
  while (i < b.size() && varint(b, i, v))
    out.push_back(v);
  return out;
}

uint64_t get(const std::vector<Field> &m, uint32_t num) {
  for (const Field &f : m)
    if (f.num == num)
      return f.v;
  return 0;
}

std::string get_bytes(const std::vector<Field> &m, uint32_t num) {
  for (const Field &f : m)
    if (f.num == num)
      return f.s;
  return {};
}

std::vector<std::string> all(const std::vector<Field> &m, uint32_t num) {
  std::vector<std::string> out;
  for (const Field &f : m)
    if (f.num == num)
      out.push_back(f.s);
  return out;
}

// A decoded Profile (gunzipped by gzip itself).
struct Profile {
  std::vector<Field> top;
  std::vector<std::string> strings;
  std::vector<std::vector<Field>> samples, mappings, locations, functions;

  const std::string &str(uint64_t i) const { return strings.at(i); }
  const std::vector<Field> *location(uint64_t id) const {
    for (auto &l : locations)
      if (get(l, 1) == id)
        return &l;
    return nullptr;
  }
  const std::vector<Field> *function(uint64_t id) const {
    for (auto &f : functions)
      if (get(f, 1) == id)
        return &f;
    return nullptr;
  }
  // The function name of a location (empty: none).
  std::string name_at(uint64_t loc) const {
    const auto *l = location(loc);
    std::string line = l ? get_bytes(*l, 4) : std::string();
    if (line.empty())
      return {};
    const auto *f = function(get(decode(line), 1));
    return f ? str(get(*f, 2)) : std::string("?");
  }
};

Profile load(const std::string &path) {
  Profile p;
  std::string raw = run("gzip -dc '" + path + "'");
  p.top = decode(raw);
  for (const Field &f : p.top) {
    switch (f.num) {
    case 2:
      p.samples.push_back(decode(f.s));
      break;
    case 3:
      p.mappings.push_back(decode(f.s));
      break;
    case 4:
      p.locations.push_back(decode(f.s));
      break;
    case 5:
      p.functions.push_back(decode(f.s));
      break;
    case 6:
      p.strings.push_back(f.s);
      break;
    }
  }
  return p;
}

// The stacks of the tests: alpha and beta called from gamma, delta
// interrupted in gamma.
struct Pcs {
  uintptr_t alpha = pprof_test_alpha(), beta = pprof_test_beta(),
            gamma = pprof_test_gamma(),
            delta = reinterpret_cast<uintptr_t>(&pprof_test_delta);
};

void add_stacks(PprofWriter &w, const Pcs &pc) {
  const uintptr_t s1[] = {pc.alpha, pc.gamma};
  const uintptr_t s2[] = {pc.beta, pc.gamma};
  const uintptr_t s4[] = {pc.delta, pc.gamma};
  const int64_t v1[] = {1, 100}, v2[] = {2, 200}, v3[] = {3, 300},
                v4[] = {4, 400};
  w.add(s1, 2, v1);
  w.add(s2, 2, v2);
  w.add(s1, 2, v3); // the same stack again: pprof sums it
  w.add(s4, 2, v4, PprofLeaf::kExactPc);
}

// The flat value of a function in `pprof -top` (-1: not listed).
long long flat_of(const std::string &top, const std::string &name) {
  size_t at = 0;
  while ((at = top.find(name, at)) != std::string::npos) {
    size_t bol = top.rfind('\n', at);
    bol = bol == std::string::npos ? 0 : bol + 1;
    size_t eol = top.find('\n', at);
    std::string line = top.substr(bol, eol - bol);
    // "flat flat% sum% cum cum% name": the name ends the line.
    if (line.size() >= name.size() &&
        line.compare(line.size() - name.size(), name.size(), name) == 0) {
      long long v;
      if (sscanf(line.c_str(), "%lld", &v) == 1)
        return v;
    }
    at += name.size();
  }
  return -1;
}

} // namespace

TEST(Pprof, WritesGzipThatGzipAccepts) {
  std::string path = temp_path("gzip");
  PprofWriter w(kTypes, 2, kPeriod, 1);
  add_stacks(w, Pcs());
  ASSERT_EQ(w.write(path.c_str(), nullptr), 0);
  std::string file = read_file(path);
  ASSERT_GE(file.size(), 18u);
  EXPECT_EQ(uint8_t(file[0]), 0x1f);
  EXPECT_EQ(uint8_t(file[1]), 0x8b);
  EXPECT_EQ(system(("gzip -t '" + path + "'").c_str()), 0);
  unlink(path.c_str());
}

// Over 64 KiB of protobuf: several stored blocks, the last one final.
TEST(Pprof, LargeProfileSpansStoredBlocks) {
  std::string path = temp_path("large");
  PprofWriter w(kTypes, 2, kPeriod, 1);
  Pcs pc;
  const uintptr_t s[] = {pc.alpha, pc.gamma};
  for (int i = 0; i < 5000; ++i) {
    std::string v = "value-" + std::to_string(i);
    const int64_t vals[] = {1, i};
    w.add(s, 2, vals, PprofLeaf::kReturnAddress, "key", v.c_str());
  }
  ASSERT_EQ(w.write(path.c_str(), nullptr), 0);
  EXPECT_EQ(system(("gzip -t '" + path + "'").c_str()), 0);
  std::string raw = run("gzip -dc '" + path + "'");
  EXPECT_GT(raw.size(), 2 * 65535u); // three blocks at least
  // Each block costs 5 bytes over the data, the header and trailer 18.
  size_t blocks = (raw.size() + 65534) / 65535;
  EXPECT_EQ(read_file(path).size(), raw.size() + 5 * blocks + 18);
  Profile p = load(path);
  EXPECT_EQ(p.samples.size(), 5000u);
  EXPECT_EQ(p.locations.size(), 2u);
  if (have_go()) {
    std::string top =
        pprof("-top -sample_index=copies '" + self_path() + "' '" + path + "'");
    EXPECT_NE(top.find("of 5000 total"), std::string::npos) << top;
  }
  unlink(path.c_str());
}

TEST(Pprof, EmptyProfileIsValidGzip) {
  std::string path = temp_path("empty");
  PprofWriter w(kTypes, 2, kPeriod, 1);
  ASSERT_EQ(w.write(path.c_str(), nullptr), 0);
  EXPECT_EQ(system(("gzip -t '" + path + "'").c_str()), 0);
  Profile p = load(path);
  ASSERT_FALSE(p.strings.empty());
  EXPECT_EQ(p.strings[0], "");
  EXPECT_TRUE(p.samples.empty());
  unlink(path.c_str());
}

// write() again, after more samples: the file has them all.
TEST(Pprof, WritesAgainWithMoreSamples) {
  std::string path = temp_path("again");
  PprofWriter w(kTypes, 2, kPeriod, 1);
  Pcs pc;
  add_stacks(w, pc);
  ASSERT_EQ(w.write(path.c_str(), nullptr), 0);
  const uintptr_t s[] = {pc.beta};
  const int64_t v[] = {9, 900};
  w.add(s, 1, v);
  ASSERT_EQ(w.write(path.c_str(), nullptr), 0);
  Profile p = load(path);
  EXPECT_EQ(p.samples.size(), 5u);
  EXPECT_EQ(p.locations.size(), 4u);
  EXPECT_EQ(std::set<std::string>(p.strings.begin(), p.strings.end()).size(),
            p.strings.size());
  unlink(path.c_str());
}

TEST(Pprof, ReportsTheOpenError) {
  PprofWriter w(kTypes, 2, kPeriod, 1);
  EXPECT_EQ(w.write("/nonexistent-dir/x.pb.gz", nullptr), ENOENT);
}

// The Profile itself: shared locations at return address - 1 (the exact pc
// as is), interned strings, the main program's mapping first.
TEST(Pprof, EncodesTheProfile) {
  std::string path = temp_path("encode");
  PprofWriter w(kTypes, 2, kPeriod, 1000);
  w.set_times(1700000000000000000, 5000000000);
  Pcs pc;
  add_stacks(w, pc);
  ASSERT_EQ(w.write(path.c_str(), nullptr), 0);
  Profile p = load(path);

  ASSERT_FALSE(p.strings.empty());
  EXPECT_EQ(p.strings[0], "");
  EXPECT_EQ(std::set<std::string>(p.strings.begin(), p.strings.end()).size(),
            p.strings.size())
      << "strings interned";

  auto types = all(p.top, 1);
  ASSERT_EQ(types.size(), 2u);
  EXPECT_EQ(p.str(get(decode(types[0]), 1)), "copies");
  EXPECT_EQ(p.str(get(decode(types[0]), 2)), "count");
  EXPECT_EQ(p.str(get(decode(types[1]), 1)), "space");
  EXPECT_EQ(p.str(get(decode(types[1]), 2)), "bytes");
  EXPECT_EQ(p.str(get(decode(get_bytes(p.top, 11)), 1)), "copies");
  EXPECT_EQ(get(p.top, 12), 1000u);
  EXPECT_EQ(get(p.top, 9), 1700000000000000000u);
  EXPECT_EQ(get(p.top, 10), 5000000000u);
  EXPECT_EQ(p.str(get(p.top, 14)), "space") << "the last type by default";

  // alpha, beta, gamma and delta: four locations for seven pcs.
  ASSERT_EQ(p.samples.size(), 4u);
  ASSERT_EQ(p.locations.size(), 4u);
  std::map<uint64_t, uint64_t> addr; // location id -> address
  for (auto &l : p.locations)
    addr[get(l, 1)] = get(l, 3);
  auto stack = [&](int i) {
    std::vector<uint64_t> a;
    for (uint64_t id : packed(get_bytes(p.samples[i], 1)))
      a.push_back(addr.at(id));
    return a;
  };
  EXPECT_EQ(stack(0), (std::vector<uint64_t>{pc.alpha - 1, pc.gamma - 1}));
  EXPECT_EQ(stack(1), (std::vector<uint64_t>{pc.beta - 1, pc.gamma - 1}));
  EXPECT_EQ(stack(2), stack(0));
  EXPECT_EQ(stack(3), (std::vector<uint64_t>{pc.delta, pc.gamma - 1}));
  EXPECT_EQ(packed(get_bytes(p.samples[1], 2)),
            (std::vector<uint64_t>{2, 200}));
  EXPECT_EQ(packed(get_bytes(p.samples[3], 2)),
            (std::vector<uint64_t>{4, 400}));

  // The main program's executable segment holds every location.
  ASSERT_FALSE(p.mappings.empty());
  const auto &main = p.mappings[0];
  EXPECT_EQ(get(main, 1), 1u);
  EXPECT_EQ(p.str(get(main, 5)), self_path());
  // The segment's own bounds (what `go tool pprof` needs), not whole pages.
  Segment text = main_text();
  EXPECT_EQ(get(main, 2), text.start);
  EXPECT_EQ(get(main, 3), text.limit);
  EXPECT_EQ(get(main, 4), text.offset);
  for (auto &l : p.locations) {
    EXPECT_EQ(get(l, 2), 1u);
    EXPECT_GE(get(l, 3), get(main, 2));
    EXPECT_LT(get(l, 3), get(main, 3));
  }
  // The build ID, as `file` and readelf print it, when the linker gave one.
  std::string id = p.str(get(main, 6));
  std::string readelf = run("readelf -n '" + self_path() + "' 2>/dev/null");
  if (readelf.find("Build ID: ") != std::string::npos) {
    EXPECT_FALSE(id.empty());
    EXPECT_NE(readelf.find("Build ID: " + id), std::string::npos) << id;
  }
  // This binary's functions are in its dynamic symbol table only when it
  // is linked with -rdynamic: dladdr names what it can, and the mapping
  // has functions only when every location got a name (else pprof
  // symbolizes it).
  int exported = 0;
  for (uint64_t id = 1; id <= 4; ++id) {
    Dl_info di;
    bool named =
        dladdr(reinterpret_cast<void *>(addr.at(id)), &di) && di.dli_sname;
    exported += named;
    EXPECT_EQ(p.name_at(id).empty(), !named) << id;
  }
  EXPECT_EQ(get(main, 7), exported == 4 ? 1u : 0u);
  unlink(path.c_str());
}

TEST(Pprof, LabelsAndDefaultType) {
  std::string path = temp_path("label");
  PprofWriter w(kTypes, 2, kPeriod, 1);
  w.set_default_type(0);
  Pcs pc;
  const uintptr_t s[] = {pc.alpha, pc.gamma};
  const int64_t v1[] = {1, 10}, v2[] = {2, 20};
  w.add(s, 2, v1, PprofLeaf::kReturnAddress, "task", "worker-1");
  w.add(s, 2, v2, PprofLeaf::kReturnAddress, "task", "worker-2");
  w.add(s, 2, v2);
  ASSERT_EQ(w.write(path.c_str(), nullptr), 0);
  Profile p = load(path);
  EXPECT_EQ(p.str(get(p.top, 14)), "copies");
  ASSERT_EQ(p.samples.size(), 3u);
  auto label = decode(get_bytes(p.samples[0], 3));
  EXPECT_EQ(p.str(get(label, 1)), "task");
  EXPECT_EQ(p.str(get(label, 2)), "worker-1");
  label = decode(get_bytes(p.samples[1], 3));
  EXPECT_EQ(p.str(get(label, 2)), "worker-2");
  EXPECT_TRUE(all(p.samples[2], 3).empty());

  if (!have_go()) {
    unlink(path.c_str());
    GTEST_SKIP() << kGo << " is not installed";
  }
  std::string raw = pprof("-raw '" + path + "'");
  EXPECT_NE(raw.find("task:[worker-1]"), std::string::npos) << raw;
  EXPECT_NE(raw.find("task:[worker-2]"), std::string::npos) << raw;
  // Only worker-2's sample, of the default type (copies).
  std::string top = pprof("-top -tagfocus=task=worker-2 '" + self_path() +
                          "' '" + path + "'");
  EXPECT_NE(top.find("Showing nodes accounting for 2, "), std::string::npos)
      << top;
  EXPECT_EQ(flat_of(top, "pprof_test_alpha"), 2) << top;
  unlink(path.c_str());
}

// pprof symbolizes the unnamed locations with the binary, and sums.
TEST(Pprof, GoToolPprofReadsIt) {
  if (!have_go())
    GTEST_SKIP() << kGo << " is not installed";
  std::string path = temp_path("go");
  PprofWriter w(kTypes, 2, kPeriod, 1);
  add_stacks(w, Pcs());
  ASSERT_EQ(w.write(path.c_str(), nullptr), 0);
  std::string bin = "'" + self_path() + "' '" + path + "'";

  std::string raw = pprof("-raw " + bin);
  for (const char *fn : {"pprof_test_alpha", "pprof_test_beta",
                         "pprof_test_gamma", "pprof_test_delta"})
    EXPECT_NE(raw.find(fn), std::string::npos) << fn << "\n" << raw;
  EXPECT_NE(raw.find("copies/count space/bytes"), std::string::npos) << raw;

  // alpha 1+3, beta 2, delta 4; gamma calls them all.
  std::string top = pprof("-top -sample_index=copies " + bin);
  EXPECT_NE(top.find("Showing nodes accounting for 10, 100% of 10 total"),
            std::string::npos)
      << top;
  EXPECT_EQ(flat_of(top, "pprof_test_alpha"), 4) << top;
  EXPECT_EQ(flat_of(top, "pprof_test_beta"), 2) << top;
  EXPECT_EQ(flat_of(top, "pprof_test_delta"), 4) << top;
  EXPECT_EQ(flat_of(top, "pprof_test_gamma"), 0) << top;
  top = pprof("-top -sample_index=space " + bin);
  EXPECT_NE(top.find("of 1000B total"), std::string::npos) << top;
  unlink(path.c_str());
}

// A namer's names, for every location of this binary's mapping: the
// mapping has functions, and pprof keeps them even with the binary given.
namespace {
Pcs *g_pcs;

bool test_namer(uintptr_t pc, const char **name, const char **system_name) {
  static char buf[64];
  if (pc == g_pcs->alpha - 1) {
    // A buffer the namer reuses: the writer copies before the next call.
    snprintf(buf, sizeof buf, "%s", "ns::named_alpha(int)");
    *name = buf;
    *system_name = "_ZN2ns11named_alphaEi";
    return true;
  }
  if (pc == g_pcs->gamma - 1) {
    snprintf(buf, sizeof buf, "%s", "named_gamma");
    *name = buf;
    *system_name = nullptr; // the same as the name
    return true;
  }
  return false;
}
} // namespace

TEST(Pprof, NamerNamesLocations) {
  Pcs pc;
  g_pcs = &pc;
  std::string path = temp_path("namer");
  PprofWriter w(kTypes, 2, kPeriod, 1);
  const uintptr_t s1[] = {pc.alpha, pc.gamma};
  const uintptr_t s2[] = {pc.gamma};
  const int64_t v1[] = {5, 50}, v2[] = {7, 70};
  w.add(s1, 2, v1);
  w.add(s2, 1, v2);
  ASSERT_EQ(w.write(path.c_str(), test_namer), 0);
  Profile p = load(path);
  ASSERT_EQ(p.functions.size(), 2u);
  ASSERT_EQ(p.locations.size(), 2u);
  EXPECT_EQ(p.name_at(1), "ns::named_alpha(int)");
  EXPECT_EQ(p.name_at(2), "named_gamma");
  for (auto &f : p.functions) {
    if (p.str(get(f, 2)) == "named_gamma")
      EXPECT_EQ(p.str(get(f, 3)), "named_gamma");
    else
      EXPECT_EQ(p.str(get(f, 3)), "_ZN2ns11named_alphaEi");
  }
  ASSERT_FALSE(p.mappings.empty());
  EXPECT_EQ(get(p.mappings[0], 7), 1u) << "has_functions";

  if (have_go()) {
    std::string top =
        pprof("-top -sample_index=copies '" + self_path() + "' '" + path + "'");
    EXPECT_EQ(flat_of(top, "ns::named_alpha(int)"), 5) << top;
    EXPECT_EQ(flat_of(top, "named_gamma"), 7) << top;
    EXPECT_EQ(top.find("pprof_test_alpha"), std::string::npos) << top;
    EXPECT_EQ(top.find("pprof_test_gamma"), std::string::npos) << top;
  }
  unlink(path.c_str());

  // One location named of two (dladdr cannot name a local function): the
  // mapping does not claim functions (pprof would otherwise leave the
  // other unsymbolized).
  PprofWriter w2(kTypes, 2, kPeriod, 1);
  const uintptr_t s3[] = {pc.alpha, pprof_test_hidden()};
  w2.add(s3, 2, v1);
  ASSERT_EQ(w2.write(path.c_str(), test_namer), 0);
  p = load(path);
  EXPECT_EQ(p.name_at(1), "ns::named_alpha(int)");
  EXPECT_TRUE(p.name_at(2).empty());
  EXPECT_EQ(get(p.mappings[0], 7), 0u);
  unlink(path.c_str());
}

// dladdr names what the dynamic symbol tables have: the C library's
// functions, their names left for pprof to demangle.
TEST(Pprof, DladdrNamesLibraryFunctions) {
  std::string path = temp_path("dladdr");
  PprofWriter w(kTypes, 2, kPeriod, 1);
  const uintptr_t s[] = {reinterpret_cast<uintptr_t>(&getpid) + 4};
  const int64_t v[] = {1, 1};
  w.add(s, 1, v);
  ASSERT_EQ(w.write(path.c_str(), nullptr), 0);
  Profile p = load(path);
  ASSERT_EQ(p.locations.size(), 1u);
  std::string name = p.name_at(1);
  EXPECT_NE(name.find("getpid"), std::string::npos) << name;
  uint64_t m = get(p.locations[0], 2);
  ASSERT_GE(m, 1u);
  ASSERT_LE(m, p.mappings.size());
  EXPECT_NE(p.str(get(p.mappings[m - 1], 5)).find("libc"), std::string::npos);
  EXPECT_EQ(get(p.mappings[m - 1], 7), 1u);
  unlink(path.c_str());
}
