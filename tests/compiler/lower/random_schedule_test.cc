// Randomized schedules of matmul, conv2d, softmax, gathers through loaded indices, conditional
// reductions with rfactor and math intrinsics on edge values: each seed builds a random but
// legal schedule (non-divisible splits, nested splits, fuses, reorders, cache stages with
// compute_at, inlining, vectorize, unroll, parallel, auto-unroll pragmas), compiles it with the
// backend under test and checks the result against the reference evaluator, with every array
// against a guard page (an out-of-bounds access crashes; the handler prints the case). A
// failure prints the seed and the schedule so it can be replayed.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>

#include "compiler/te/schedule.h"
#include "tests/compiler/testing/reference_check.h"

namespace tessera {

/// The code generator that the randomized schedules are compiled with (one per test target).
testing::Backend RandomTestBackend();
/// Every how many seeds one is run (1: all of them).
int RandomTestSeedStride();

namespace {

using namespace te;  // NOLINT

class RandomScheduler {
 public:
  explicit RandomScheduler(uint64_t seed) : rng_(seed) {}

  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool Chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  std::string Description() const { return desc_.str(); }
  void Note(const std::string& s) { desc_ << "  " << s << "\n"; }

  // Splits, fuses and reorders the loops of `s`.
  void Transform(Stage s) {
    std::vector<IterVar> leaves = s->leaf_iter_vars;
    for (const IterVar& iv : leaves) {
      if (!Chance(0.6)) continue;
      int factor = Uniform(1, 9);
      if (Chance(0.2)) {
        s.split_nparts(iv, factor);
        Note(s.name() + ".split_nparts(" + iv->var.name() + ", " + std::to_string(factor) + ")");
      } else {
        s.split(iv, factor);
        Note(s.name() + ".split(" + iv->var.name() + ", " + std::to_string(factor) + ")");
      }
    }
    if (Chance(0.3)) {  // a nested split
      const auto& l = s->leaf_iter_vars;
      IterVar iv = l[Uniform(0, static_cast<int>(l.size()) - 1)];
      int factor = Uniform(2, 5);
      s.split(iv, factor);
      Note(s.name() + ".split(" + iv->var.name() + ", " + std::to_string(factor) + ")");
    }
    if (Chance(0.6)) {
      std::vector<IterVar> order = s->leaf_iter_vars;
      std::shuffle(order.begin(), order.end(), rng_);
      s.reorder(order);
      std::string text;
      for (const IterVar& iv : order) text += (text.empty() ? "" : ", ") + iv->var.name();
      Note(s.name() + ".reorder(" + text + ")");
    }
    if (Chance(0.3)) {
      const auto& l = s->leaf_iter_vars;
      std::vector<size_t> candidates;
      for (size_t i = 0; i + 1 < l.size(); ++i)
        if (l[i]->iter_kind == l[i + 1]->iter_kind) candidates.push_back(i);
      if (!candidates.empty()) {
        size_t i = candidates[Uniform(0, static_cast<int>(candidates.size()) - 1)];
        std::string a = l[i]->var.name(), b = l[i + 1]->var.name();
        s.fuse(l[i], l[i + 1]);
        Note(s.name() + ".fuse(" + a + ", " + b + ")");
      }
    }
  }

  // Adds vectorize / unroll / parallel / pragma annotations to loops of `s`.
  void Annotate(Stage s) {
    const auto& l = s->leaf_iter_vars;
    std::vector<IterVar> spatial;
    for (const IterVar& iv : l)
      if (iv->iter_kind != ir::IterKind::kReduce) spatial.push_back(iv);
    IterVar vec, par;
    if (!spatial.empty() && Chance(0.6)) {
      vec =
          Chance(0.7) ? spatial.back() : spatial[Uniform(0, static_cast<int>(spatial.size()) - 1)];
      s.vectorize(vec);
      Note(s.name() + ".vectorize(" + vec->var.name() + ")");
    }
    if (!spatial.empty() && Chance(0.4)) {
      par = spatial[Uniform(0, static_cast<int>(spatial.size()) - 1)];
      if (!par.same_as(vec)) {
        s.parallel(par);
        Note(s.name() + ".parallel(" + par->var.name() + ")");
      }
    }
    if (Chance(0.3)) {
      IterVar u = l[Uniform(0, static_cast<int>(l.size()) - 1)];
      if (!u.same_as(vec) && !u.same_as(par)) {
        s.unroll(u);
        Note(s.name() + ".unroll(" + u->var.name() + ")");
      }
    }
    if (Chance(0.2)) {
      IterVar p = l[Uniform(0, static_cast<int>(l.size()) - 1)];
      int steps = Uniform(1, 64);
      s.pragma(p, "auto_unroll_max_step", steps);
      Note(s.name() + ".pragma(" + p->var.name() + ", auto_unroll_max_step, " +
           std::to_string(steps) + ")");
    }
  }

  // Splits reduction `k` of `t` by a factor in [min_factor, max_factor], factors the reduction
  // over the outer or inner loop into a new stage at a position in [0, max_axis], then
  // transforms, places and annotates both stages.
  void Rfactor(Schedule s, const Tensor& t, const IterVar& k, int min_factor, int max_factor,
               int max_axis) {
    int factor = Uniform(min_factor, max_factor), axis = Uniform(0, max_axis);
    auto [ko, ki] = s[t].split(k, factor);
    bool outer = Chance(0.5);
    Tensor F = s.rfactor(t, outer ? ko : ki, axis);
    Note(t.name() + ".split(" + k->var.name() + ", " + std::to_string(factor) + "); " + F.name() +
         " = rfactor(" + t.name() + ", " + (outer ? "outer" : "inner") + ", " +
         std::to_string(axis) + ")");
    Transform(s[t]);
    Transform(s[F]);
    Place(s[F], s[t]);
    Annotate(s[t]);
    Annotate(s[F]);
  }

  // Puts `producer` at a random loop of `consumer` (or leaves it at the root).
  void Place(Stage producer, Stage consumer) {
    if (Chance(0.25)) {
      Note(producer.name() + " stays at the root");
      return;
    }
    const auto& l = consumer->leaf_iter_vars;
    IterVar at = l[Uniform(0, static_cast<int>(l.size()) - 1)];
    producer.compute_at(consumer, at);
    Note(producer.name() + ".compute_at(" + consumer.name() + ", " + at->var.name() + ")");
  }

 private:
  std::mt19937_64 rng_;
  std::ostringstream desc_;
};

// The backend under test (random_schedule_backend_c.cc / _llvm.cc).
testing::Backend FastC() { return RandomTestBackend(); }

std::string RunMatmul(uint64_t seed, std::string* schedule_text) {
  RandomScheduler r(seed);
  int n = r.Uniform(1, 24), m = r.Uniform(1, 24), kk = r.Uniform(1, 20);
  r.Note("matmul " + std::to_string(n) + "x" + std::to_string(m) + "x" + std::to_string(kk));
  Tensor A = placeholder({n, kk}, DataType::Float(32), "A");
  Tensor B = placeholder({kk, m}, DataType::Float(32), "B");
  IterVar k = reduce_axis(kk, "k");
  Tensor C = compute(
      {n, m}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
  Schedule s = create_schedule({C});
  if (r.Chance(0.2)) {  // rfactor, then schedule both stages
    r.Rfactor(s, C, k, 1, 8, 2);
    *schedule_text = r.Description();
    return testing::CheckAgainstReference(s, {A, B, C}, "matmul", seed, FastC());
  }
  Tensor CL, AA;
  bool cache_write = r.Chance(0.4), cache_read = r.Chance(0.4);
  if (cache_write) {
    CL = s.cache_write(C, "local");
    r.Note("CL = cache_write(C)");
  }
  Stage main = cache_write ? s[CL] : s[C];
  if (cache_read) {
    AA = s.cache_read(A, "local", {cache_write ? CL : C});
    r.Note("AA = cache_read(A, {" + main.name() + "})");
  }
  r.Transform(s[C]);
  if (cache_write) r.Transform(main);
  if (cache_write) r.Place(main, s[C]);
  if (cache_read) {
    r.Transform(s[AA]);
    r.Place(s[AA], main);
  }
  r.Annotate(s[C]);
  if (cache_write) r.Annotate(main);
  if (cache_read) r.Annotate(s[AA]);
  for (const Tensor& t : {CL, AA}) {
    if (!t.defined() || !r.Chance(0.3)) continue;
    int factor = r.Uniform(1, 8), offset = r.Uniform(0, factor - 1);
    s[t].storage_align(s[t].axis(0), factor, offset);
    r.Note(t.name() + ".storage_align(axis 0, " + std::to_string(factor) + ", " +
           std::to_string(offset) + ")");
  }
  *schedule_text = r.Description();
  if (std::getenv("TESSERA_RANDOM_SCHEDULE_VERBOSE"))
    std::fprintf(stderr, "%s", schedule_text->c_str());
  return testing::CheckAgainstReference(s, {A, B, C}, "matmul", seed, FastC());
}

std::string RunConv2d(uint64_t seed, std::string* schedule_text) {
  RandomScheduler r(seed);
  int batch = r.Uniform(1, 2), ic = r.Uniform(1, 4), oc = r.Uniform(1, 4);
  int h = r.Uniform(3, 9), w = r.Uniform(3, 9), kh = r.Uniform(1, 3), kw = r.Uniform(1, 3);
  int stride = r.Uniform(1, 2), pad = r.Uniform(0, 1), dil = r.Uniform(1, 2);
  h = std::max(h, dil * (kh - 1) + 1);  // the dilated kernel must fit
  w = std::max(w, dil * (kw - 1) + 1);
  int oh = (h + 2 * pad - dil * (kh - 1) - 1) / stride + 1;
  int ow = (w + 2 * pad - dil * (kw - 1) - 1) / stride + 1;
  std::ostringstream shape;
  shape << "conv2d N" << batch << " C" << ic << " K" << oc << " H" << h << " W" << w << " R" << kh
        << " S" << kw << " stride" << stride << " pad" << pad << " dilation" << dil;
  r.Note(shape.str());
  Tensor X = placeholder({batch, ic, h, w}, DataType::Float(32), "X");
  Tensor Wt = placeholder({oc, ic, kh, kw}, DataType::Float(32), "W");
  Tensor P = compute(
      {batch, ic, h + 2 * pad, w + 2 * pad},
      [&](Var b, Var c, Var y, Var x) {
        Expr inside = y >= pad && y < h + pad && x >= pad && x < w + pad;
        return if_then_else(inside, X(b, c, y - pad, x - pad), 0.0f);
      },
      "P");
  IterVar rc = reduce_axis(ic, "rc"), ry = reduce_axis(kh, "ry"), rx = reduce_axis(kw, "rx");
  Tensor Y = compute(
      {batch, oc, oh, ow},
      [&](Var b, Var k, Var y, Var x) {
        return sum(P(b, rc, y * stride + ry * dil, x * stride + rx * dil) * Wt(k, rc, ry, rx),
                   {rc, ry, rx});
      },
      "Y");
  Schedule s = create_schedule({Y});
  r.Transform(s[Y]);
  int placement = r.Uniform(0, 2);
  if (placement == 0) {
    s[P].compute_inline();
    r.Note("P.compute_inline()");
  } else if (placement == 1) {
    r.Transform(s[P]);
    r.Place(s[P], s[Y]);
    r.Annotate(s[P]);
  } else {
    r.Note("P stays at the root");
  }
  r.Annotate(s[Y]);
  *schedule_text = r.Description();
  return testing::CheckAgainstReference(s, {X, Wt, Y}, "conv2d", seed, FastC());
}

// A softmax graph with several readers per stage: random placements that keep every reader of
// an attached stage inside its scope (mx <= e <= den along the loops of Y).
std::string RunSoftmax(uint64_t seed, std::string* schedule_text) {
  RandomScheduler r(seed);
  int n = r.Uniform(1, 9), m = r.Uniform(1, 24);
  r.Note("softmax " + std::to_string(n) + "x" + std::to_string(m));
  Tensor X = placeholder({n, m}, DataType::Float(32), "X");
  IterVar k1 = reduce_axis(m, "k1"), k2 = reduce_axis(m, "k2");
  Tensor mx = compute(
      {n}, [&](Var i) { return max(X(i, k1), {k1}); }, "mx");
  Tensor e = compute(
      {n, m}, [&](Var i, Var j) { return exp(X(i, j) - mx(i)); }, "e");
  Tensor den = compute(
      {n}, [&](Var i) { return sum(e(i, k2), {k2}); }, "den");
  Tensor Y = compute(
      {n, m}, [&](Var i, Var j) { return e(i, j) / den(i); }, "Y");
  Schedule s = create_schedule({Y});
  r.Transform(s[Y]);
  int leaves = static_cast<int>(s[Y]->leaf_iter_vars.size());
  // -1: root; otherwise a loop position of Y.
  int pos_den = r.Chance(0.7) ? r.Uniform(0, leaves - 1) : -1;
  bool inline_e = r.Chance(0.4);
  int pos_e = -1;
  if (inline_e) {
    s[e].compute_inline();
    r.Note("e.compute_inline()");
  } else if (pos_den >= 0 && r.Chance(0.7)) {
    pos_e = r.Uniform(0, pos_den);
  }
  int limit = inline_e ? pos_den : (pos_e >= 0 && pos_den >= 0 ? std::min(pos_e, pos_den) : -1);
  int pos_mx = (limit >= 0 && r.Chance(0.7)) ? r.Uniform(0, limit) : -1;
  auto place = [&](const Tensor& t, int pos) {
    if (pos < 0) {
      r.Note(t.name() + " stays at the root");
      return;
    }
    IterVar at = s[Y]->leaf_iter_vars[pos];
    s[t].compute_at(s[Y], at);
    r.Note(t.name() + ".compute_at(Y, " + at->var.name() + ")");
  };
  place(den, pos_den);
  if (!inline_e) place(e, pos_e);
  place(mx, pos_mx);
  r.Transform(s[den]);
  r.Annotate(s[Y]);
  r.Annotate(s[den]);
  if (!inline_e) r.Annotate(s[e]);
  *schedule_text = r.Description();
  return testing::CheckAgainstReference(s, {X, Y}, "softmax", seed, FastC(), 1e-4, 1e-5);
}

// Float32 values where backends and libm most often disagree: rounding ties, signed zeros,
// infinities, NaN, denormals, huge and tiny values, the edges of exp's range.
const double kEdgeValues[] = {
    0.5,    1.5,    2.5,     -0.5, -2.5, 0.0,    -0.0,  1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0, 1e-40,
    -1e-40, 3.4e38, -3.4e38, 1e30, 88.7, -103.9, 100.0, -100.0,    8388609.0,  0.49999997};

// Replaces about a third of `values` by edge values.
void SprinkleEdgeValues(uint64_t seed, std::vector<double>* values) {
  std::mt19937_64 rng(seed * 7919 + 13);
  const size_t n = sizeof(kEdgeValues) / sizeof(kEdgeValues[0]);
  for (double& v : *values) {
    if (rng() % 3 == 0) v = kEdgeValues[rng() % n];
  }
}

// A gather: out[i, j] = P[idx[i], j] (or sum_k P[idx[i], k] * P[idx[i], j]), with P a
// producer placed at random (root, inline or compute_at any loop of out): the region of P that a
// loop of out needs depends on the data in idx.
std::string RunGather(uint64_t seed, std::string* schedule_text) {
  RandomScheduler r(seed);
  int rows = r.Uniform(1, 12), cols = r.Uniform(1, 16), picks = r.Uniform(1, 12);
  bool reduce = r.Chance(0.5);
  r.Note("gather " + std::to_string(picks) + " of " + std::to_string(rows) + "x" +
         std::to_string(cols) + (reduce ? " with a reduction" : ""));
  Tensor A = placeholder({rows, cols}, DataType::Float(32), "A");
  Tensor idx = placeholder({picks}, DataType::Int(32), "idx");
  Tensor P = compute(
      {rows, cols}, [&](Var i, Var j) { return A(i, j) * 2.0f + 1.0f; }, "P");
  IterVar k = reduce_axis(cols, "k");
  Tensor out = compute(
      {picks, cols},
      [&](Var i, Var j) {
        if (reduce) return sum(P(idx(i), k) * P(idx(i), j), {k});
        return P(idx(i), j);
      },
      "out");
  Schedule s = create_schedule({out});
  r.Transform(s[out]);
  int placement = r.Uniform(0, 2);
  if (placement == 0 && !reduce) {
    s[P].compute_inline();
    r.Note("P.compute_inline()");
  } else if (placement == 1) {
    r.Transform(s[P]);
    r.Place(s[P], s[out]);
    r.Annotate(s[P]);
  } else {
    r.Note("P stays at the root");
  }
  r.Annotate(s[out]);
  *schedule_text = r.Description();
  testing::CheckOptions options;
  options.backend = FastC();
  options.fill = [&](size_t arg, std::vector<double>* values) {
    if (arg != 1) return;
    std::mt19937_64 rng(seed);
    for (double& v : *values) v = static_cast<double>(rng() % static_cast<uint64_t>(rows));
  };
  return testing::CheckAgainstReference(s, {A, idx, out}, "gather", seed, options);
}

// A conditional reduction (sum or max where a data-dependent condition holds), its reduction
// split unevenly and factored with rfactor on either loop, then both stages scheduled. Half the
// inputs are a multiple of 64 bytes, so they end exactly at their guard page.
std::string RunConditionalRfactor(uint64_t seed, std::string* schedule_text) {
  RandomScheduler r(seed);
  int n = r.Uniform(1, 6), kk = r.Uniform(2, 24);
  if (r.Chance(0.5)) kk = 16 * r.Uniform(1, 2);
  bool use_max = r.Chance(0.3);
  r.Note(std::string(use_max ? "max" : "sum") + " where A > 0, " + std::to_string(n) + "x" +
         std::to_string(kk));
  Tensor A = placeholder({n, kk}, DataType::Float(32), "A");
  IterVar k = reduce_axis(kk, "k");
  Tensor out = compute(
      {n},
      [&](Var i) {
        Expr cond = A(i, k) > 0.0f;
        return use_max ? max(A(i, k), {k}, cond) : sum(A(i, k) * 3.0f, {k}, cond);
      },
      "out");
  Schedule s = create_schedule({out});
  r.Rfactor(s, out, k, 2, 7, 1);
  *schedule_text = r.Description();
  return testing::CheckAgainstReference(s, {A, out}, "cond_rfactor", seed, FastC());
}

// A math intrinsic (or two, added) on inputs sprinkled with edge values, randomly scheduled
// (vectorized loops reach the backends' vector math): each backend against the reference.
std::string RunIntrinsics(uint64_t seed, std::string* schedule_text) {
  RandomScheduler r(seed);
  static const char* kNames[] = {"exp",   "log",  "sqrt",  "tanh", "sigmoid", "fabs",
                                 "floor", "ceil", "round", "erf",  "pow",     "fma"};
  auto apply = [](const std::string& f, Expr a, Expr b) -> Expr {
    if (f == "exp") return exp(a);
    if (f == "log") return log(a);
    if (f == "sqrt") return sqrt(a);
    if (f == "tanh") return tanh(a);
    if (f == "sigmoid") return sigmoid(a);
    if (f == "fabs") return abs(a);
    if (f == "floor") return floor(a);
    if (f == "ceil") return ceil(a);
    if (f == "round") return round(a);
    if (f == "erf") return erf(a);
    if (f == "pow") return pow(a, b);
    return fma(a, b, a);
  };
  std::string f = kNames[r.Uniform(0, 11)], g = r.Chance(0.4) ? kNames[r.Uniform(0, 11)] : "";
  int n = r.Uniform(1, 6), m = r.Uniform(1, 24);
  r.Note(f + (g.empty() ? "" : " + " + g) + " on " + std::to_string(n) + "x" + std::to_string(m));
  Tensor A = placeholder({n, m}, DataType::Float(32), "A");
  Tensor B = placeholder({n, m}, DataType::Float(32), "B");
  Tensor out = compute(
      {n, m},
      [&](Var i, Var j) {
        Expr e = apply(f, A(i, j), B(i, j));
        return g.empty() ? e : e + apply(g, B(i, j), A(i, j));
      },
      "out");
  Schedule s = create_schedule({out});
  r.Transform(s[out]);
  r.Annotate(s[out]);
  *schedule_text = r.Description();
  testing::CheckOptions options;
  options.backend = FastC();
  options.rtol = 1e-5;
  options.atol = 1e-30;
  options.fill = [&](size_t, std::vector<double>* values) { SprinkleEdgeValues(seed, values); };
  return testing::CheckAgainstReference(s, {A, B, out}, "intrinsics", seed, options);
}

// TESSERA_RANDOM_SCHEDULE_SCALE=N runs N times as many seeds (for soak runs outside CI).
int Scaled(int count) {
  const char* env = std::getenv("TESSERA_RANDOM_SCHEDULE_SCALE");
  return env ? count * std::max(1, std::atoi(env)) : count;
}

// The case running now, for the crash report: an out-of-bounds access hits a guard page and
// kills the process, so the seed and schedule are printed from the signal handler.
const char* current_what = nullptr;
uint64_t current_seed = 0;
const std::string* current_schedule = nullptr;

void ReportCrash(int signal) {
  char head[160];
  int len = std::snprintf(head, sizeof(head),
                          "\nrandom schedule test: signal %d in %s seed %llu (replay with "
                          "TESSERA_RANDOM_SCHEDULE_SEED=%llu); schedule:\n",
                          signal, current_what ? current_what : "?",
                          static_cast<unsigned long long>(current_seed),
                          static_cast<unsigned long long>(current_seed));
  if (len > 0 && write(2, head, static_cast<size_t>(len)) < 0) return;
  if (current_schedule && write(2, current_schedule->data(), current_schedule->size()) < 0) return;
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

void RunSeeds(const char* what, std::string (*run)(uint64_t, std::string*), uint64_t first,
              int count) {
  static bool installed = (std::signal(SIGSEGV, ReportCrash), std::signal(SIGBUS, ReportCrash),
                           std::signal(SIGFPE, ReportCrash), true);
  (void)installed;
  if (Scaled(1) > 1) first += 100000;  // fresh seeds in soak runs
  count = Scaled(count);
  const char* only = std::getenv("TESSERA_RANDOM_SCHEDULE_SEED");  // replays one seed
  for (uint64_t seed = first; seed < first + count; ++seed) {
    if (only ? std::strtoull(only, nullptr, 10) != seed
             : (seed - first) % RandomTestSeedStride() != 0)
      continue;
    std::string schedule, error;
    if (std::getenv("TESSERA_RANDOM_SCHEDULE_VERBOSE"))
      std::fprintf(stderr, "%s seed %llu\n", what, static_cast<unsigned long long>(seed));
    current_what = what;
    current_seed = seed;
    current_schedule = &schedule;
    try {
      error = run(seed, &schedule);
    } catch (const std::exception& e) {
      error = std::string("exception: ") + e.what();
    }
    EXPECT_EQ(error, "") << what << " seed " << seed << " failed with schedule:\n" << schedule;
    if (!error.empty()) return;  // one reproducible failure is enough
  }
}

// Several small cases so that shards run in parallel.
TEST(RandomScheduleTest, Matmul0) { RunSeeds("matmul", RunMatmul, 1000, 30); }
TEST(RandomScheduleTest, Matmul1) { RunSeeds("matmul", RunMatmul, 1030, 30); }
TEST(RandomScheduleTest, Matmul2) { RunSeeds("matmul", RunMatmul, 1060, 30); }
TEST(RandomScheduleTest, Matmul3) { RunSeeds("matmul", RunMatmul, 1090, 30); }
TEST(RandomScheduleTest, Conv2d0) { RunSeeds("conv2d", RunConv2d, 5000, 20); }
TEST(RandomScheduleTest, Conv2d1) { RunSeeds("conv2d", RunConv2d, 5020, 20); }
TEST(RandomScheduleTest, Conv2d2) { RunSeeds("conv2d", RunConv2d, 5040, 20); }
TEST(RandomScheduleTest, Conv2d3) { RunSeeds("conv2d", RunConv2d, 5060, 20); }
TEST(RandomScheduleTest, Softmax0) { RunSeeds("softmax", RunSoftmax, 9000, 20); }
TEST(RandomScheduleTest, Softmax1) { RunSeeds("softmax", RunSoftmax, 9020, 20); }
TEST(RandomScheduleTest, Gather0) { RunSeeds("gather", RunGather, 13000, 20); }
TEST(RandomScheduleTest, Gather1) { RunSeeds("gather", RunGather, 13020, 20); }
TEST(RandomScheduleTest, ConditionalRfactor0) {
  RunSeeds("conditional rfactor", RunConditionalRfactor, 17000, 30);
}
TEST(RandomScheduleTest, ConditionalRfactor1) {
  RunSeeds("conditional rfactor", RunConditionalRfactor, 17030, 30);
}
TEST(RandomScheduleTest, Intrinsics0) { RunSeeds("intrinsics", RunIntrinsics, 21000, 20); }
TEST(RandomScheduleTest, Intrinsics1) { RunSeeds("intrinsics", RunIntrinsics, 21020, 20); }

}  // namespace
}  // namespace tessera
