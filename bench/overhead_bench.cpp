// overhead_bench: what instrumentation costs on call-heavy code, on Google
// Benchmark. The same source is built three ways by scripts/bench-overhead:
// plain clang++-19 -O2; plain with frame pointers kept (what copystack's
// frames need, without its checks and foreign calls); and copystack-c++ -O2
// --copystack-no-main. In the instrumented build each benchmark's timed
// loop runs inside a task (copystack_run), so the workload runs on a
// copyable stack while Google Benchmark's own code (not instrumented) stays
// on the thread's stack; in both builds one round runs before the timed
// loop (stacks grown, statics built), so growth is not what is measured.
//
//   overhead_bench [google benchmark flags]   the benchmarks: BM_recursion,
//                                             BM_map, BM_unordered_map,
//                                             BM_parser, BM_virtual, BM_format,
//                                             BM_loops
//   overhead_bench --count WORKLOAD ROUNDS    ROUNDS rounds and nothing
//                                             else, for instruction counts
//                                             (valgrind --tool=callgrind)
//                                             and a check value to compare
//                                             the builds' results
#ifdef __COPYSTACK__
#include <copystack/copystack.h>
#endif
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace {

// Keeps a value alive without costing anything.
template <class T> void keep(const T &v) { __asm__ volatile("" : : "g"(&v) : "memory"); }

// ---- deep recursion ---------------------------------------------------------

__attribute__((noinline)) long fib(int n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

struct Node {
  long value;
  Node *left, *right;
};

__attribute__((noinline)) long depth_sum(const Node *n, int depth) {
  if (!n)
    return depth;
  long local[4] = {n->value, depth, 0, 0}; // a frame with some body
  keep(local);
  return local[0] + depth_sum(n->left, depth + 1) +
         depth_sum(n->right, depth + 1);
}

Node *build_tree(int depth, long &next) {
  if (depth == 0)
    return nullptr;
  Node *n = new Node{next++, nullptr, nullptr};
  n->left = build_tree(depth - 1, next);
  n->right = build_tree(depth - 1, next);
  return n;
}

__attribute__((noinline)) long chain(int n) { // 5,000 frames deep
  char frame[64];
  frame[0] = static_cast<char>(n);
  keep(frame);
  return n == 0 ? 0 : chain(n - 1) + frame[0];
}

long recursion_round() {
  static long next = 0;
  static Node *tree = build_tree(14, next);
  return fib(24) + depth_sum(tree, 0) + chain(5000);
}

// ---- std::map and std::unordered_map ------------------------------------------

long map_round() {
  std::map<int, long> m;
  unsigned x = 12345;
  long sum = 0;
  for (int i = 0; i < 20000; ++i) {
    x = x * 1103515245 + 12345;
    m[static_cast<int>(x >> 8) % 50000] += i;
  }
  for (int i = 0; i < 20000; ++i) {
    auto it = m.find(i * 3);
    if (it != m.end())
      sum += it->second;
  }
  for (int i = 0; i < 50000; i += 2)
    m.erase(i);
  return sum + static_cast<long>(m.size());
}

long unordered_map_round() {
  static const char *const words[] = {
      "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta",
      "iota", "kappa", "lambda", "mu", "a-rather-longer-word-than-the-rest"};
  std::unordered_map<std::string, long> counts;
  long sum = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string w = words[i % 13];
    w += std::to_string(i % 97);
    counts[w] += i;
  }
  for (auto &[k, v] : counts)
    sum += v + static_cast<long>(k.size());
  return sum;
}

// ---- a recursive-descent parser -------------------------------------------------

class Parser {
public:
  explicit Parser(std::string_view s) : s_(s) {}
  long expr() {
    long v = term();
    while (peek() == '+' || peek() == '-') {
      char op = s_[pos_++];
      long r = term();
      v = op == '+' ? v + r : v - r;
    }
    return v;
  }

private:
  char peek() {
    while (pos_ < s_.size() && s_[pos_] == ' ')
      ++pos_;
    return pos_ < s_.size() ? s_[pos_] : '\0';
  }
  long term() {
    long v = factor();
    while (peek() == '*' || peek() == '/') {
      char op = s_[pos_++];
      long r = factor();
      v = op == '*' ? v * r : (r ? v / r : v);
    }
    return v;
  }
  long factor() {
    char c = peek();
    if (c == '(') {
      ++pos_;
      long v = expr();
      if (peek() == ')')
        ++pos_;
      return v;
    }
    if (c == '-') {
      ++pos_;
      return -factor();
    }
    long v = 0;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9')
      v = v * 10 + (s_[pos_++] - '0');
    return v;
  }
  std::string_view s_;
  size_t pos_ = 0;
};

std::string make_expression(int depth, unsigned &x) {
  x = x * 1103515245 + 12345;
  if (depth == 0)
    return std::to_string(x % 1000);
  static const char ops[] = "+-*/";
  std::string l = make_expression(depth - 1, x);
  std::string r = make_expression(depth - 1, x);
  return "(" + l + " " + ops[(x >> 4) % 4] + " " + r + ")";
}

long parser_round() {
  static std::string text = [] {
    unsigned x = 7;
    std::string t;
    for (int i = 0; i < 8; ++i)
      t += (i ? " + " : "") + make_expression(9, x);
    return t;
  }();
  return Parser(text).expr();
}

// ---- virtual dispatch --------------------------------------------------------------

struct Shape {
  virtual ~Shape() = default;
  virtual double area() const = 0;
  virtual void scale(double k) = 0;
};
struct Circle : Shape {
  double r;
  explicit Circle(double r) : r(r) {}
  double area() const override { return 3.14159 * r * r; }
  void scale(double k) override { r *= k; }
};
struct Rect : Shape {
  double w, h;
  Rect(double w, double h) : w(w), h(h) {}
  double area() const override { return w * h; }
  void scale(double k) override { w *= k, h *= k; }
};
struct Tri : Shape {
  double b, h;
  Tri(double b, double h) : b(b), h(h) {}
  double area() const override { return 0.5 * b * h; }
  void scale(double k) override { b *= k, h *= k; }
};

long virtual_round() {
  static std::vector<std::unique_ptr<Shape>> shapes = [] {
    std::vector<std::unique_ptr<Shape>> v;
    for (int i = 0; i < 1000; ++i) {
      if (i % 3 == 0)
        v.push_back(std::make_unique<Circle>(i % 7 + 1));
      else if (i % 3 == 1)
        v.push_back(std::make_unique<Rect>(i % 5 + 1, i % 3 + 1));
      else
        v.push_back(std::make_unique<Tri>(i % 4 + 1, i % 6 + 1));
    }
    return v;
  }();
  double total = 0;
  for (int k = 0; k < 50; ++k)
    for (auto &s : shapes) {
      s->scale(k % 2 ? 2.0 : 0.5);
      total += s->area();
    }
  return static_cast<long>(total);
}

// ---- loops that call nothing ----------------------------------------------------
// What the preemption polls cost: the compiler puts one at each back edge of
// a loop whose iterations call no instrumented function (a reduction the
// vectorizer handles, a scan with a data-dependent exit, an insertion sort).

__attribute__((noinline)) long reduce(const std::vector<int> &v) {
  long sum = 0;
  for (int x : v)
    sum += x;
  return sum;
}

__attribute__((noinline)) long scan(const char *s) {
  long n = 0;
  while (s[n] != '\n')
    ++n;
  return n;
}

__attribute__((noinline)) void insertion_sort(int *a, int n) {
  for (int i = 1; i < n; ++i) {
    int x = a[i], j = i - 1;
    while (j >= 0 && a[j] > x) {
      a[j + 1] = a[j];
      --j;
    }
    a[j + 1] = x;
  }
}

long loops_round() {
  static std::vector<int> values = [] {
    std::vector<int> v(1 << 16);
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<int>(i * 2654435761u >> 20);
    return v;
  }();
  static std::string text = [] {
    std::string t(4096, 'x');
    t.back() = '\n';
    return t;
  }();
  long sum = reduce(values);
  for (int i = 0; i < 16; ++i)
    sum += scan(text.data());
  int a[256];
  for (int i = 0; i < 256; ++i)
    a[i] = values[static_cast<size_t>(i * 97)];
  insertion_sort(a, 256);
  keep(a);
  return sum + a[0] + a[255];
}

// ---- string formatting ---------------------------------------------------------------

long format_round() {
  long sum = 0;
  char buf[128];
  for (int i = 0; i < 2000; ++i) {
    int n = snprintf(buf, sizeof buf, "%d: %s %.3f %08x", i, "item",
                     i * 0.125, static_cast<unsigned>(i * 2654435761u));
    sum += n;
  }
  for (int i = 0; i < 2000; ++i)
    sum += static_cast<long>(std::to_string(i * 7).size());
  std::ostringstream out;
  for (int i = 0; i < 500; ++i)
    out << "line " << i << ' ' << i * 0.5 << '\n';
  return sum + static_cast<long>(out.str().size());
}

// One benchmark's timed loop, with the round called directly (a call
// through a pointer would add a foreign-call test to the instrumented
// build). The warm-up round is outside the timing.
template <long (*Round)()> struct Job {
  benchmark::State *state = nullptr;
  long rounds = 0; // --count: run this many rounds instead
  long check = 0;

  static void run(void *arg) {
    Job *job = static_cast<Job *>(arg);
    job->check = Round();
    if (!job->state) {
      for (long i = 0; i < job->rounds; ++i)
        job->check += Round();
      return;
    }
    for (auto _ : *job->state)
      benchmark::DoNotOptimize(Round());
  }

  // On a copyable stack in the instrumented build, on this thread.
  void go() {
#ifdef __COPYSTACK__
    copystack_run(run, this);
#else
    run(this);
#endif
  }
};

template <long (*Round)()> void bench(benchmark::State &state) {
  Job<Round> job;
  job.state = &state;
  job.go();
}

template <long (*Round)()> long count(long rounds) {
  Job<Round> job;
  job.rounds = rounds;
  job.go();
  return job.check;
}

struct Workload {
  const char *name;
  long (*count)(long rounds);
};
const Workload kWorkloads[] = {
    {"recursion", count<recursion_round>},
    {"map", count<map_round>},
    {"unordered_map", count<unordered_map_round>},
    {"parser", count<parser_round>},
    {"virtual", count<virtual_round>},
    {"format", count<format_round>},
    {"loops", count<loops_round>},
};

} // namespace

BENCHMARK(bench<recursion_round>)->Name("BM_recursion");
BENCHMARK(bench<map_round>)->Name("BM_map");
BENCHMARK(bench<unordered_map_round>)->Name("BM_unordered_map");
BENCHMARK(bench<parser_round>)->Name("BM_parser");
BENCHMARK(bench<virtual_round>)->Name("BM_virtual");
BENCHMARK(bench<format_round>)->Name("BM_format");
BENCHMARK(bench<loops_round>)->Name("BM_loops");

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "--count") == 0) {
    for (const Workload &w : kWorkloads)
      if (strcmp(argv[2], w.name) == 0) {
        printf("%s check=%ld\n", w.name, w.count(atol(argv[3])));
        return 0;
      }
    fprintf(stderr, "overhead_bench: unknown workload %s\n", argv[2]);
    return 2;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
