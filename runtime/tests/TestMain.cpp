//===- TestMain.cpp - gtest main selecting the backend under test ---------===//

#include "TestUtil.h"
#include "weft/rt/EinsumSpec.h"
#include "weft/rt/Error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>

namespace weft::rt::test {

namespace {
std::unique_ptr<Backend> gBackend;
std::string gSkip;
bool gInit = false;

void initBackend() {
  if (gInit)
    return;
  gInit = true;
  const char *env = std::getenv("WEFT_TEST_BACKEND");
  std::string name = env && *env ? env : "cpu";
  try {
    BackendKind kind = parseBackendKind(name);
    if (!backendAvailable(kind)) {
      gSkip = "backend '" + name + "' is not compiled in";
      return;
    }
    gBackend = createBackend(kind, Mesh({{"x", 1}}), 0);
  } catch (const Error &e) {
    gSkip = "backend '" + name + "' unavailable: " + e.what();
  }
}
} // namespace

Backend *testBackend() {
  initBackend();
  return gBackend.get();
}

std::string testBackendSkipReason() {
  initBackend();
  return gSkip;
}

std::string mapSkipReason(DType dtype) {
  if (!testBackend())
    return testBackendSkipReason();
  Backend &be = *testBackend();
  try {
    Tensor a = be.zeros(dtype, {2}), out = be.zeros(dtype, {2});
    be.map(MapKind::Neg, planMap("i->i", {{2}}), a, nullptr, out);
  } catch (const Error &e) {
    return "no map of " + std::string(dtypeName(dtype)) + " on " + be.name() +
           ": " + e.what();
  }
  return "";
}

std::vector<double> naiveEvaluate(
    const std::vector<std::string> &inLetters, const std::vector<Shape> &shapes,
    const std::vector<const std::vector<double> *> &inputs,
    const std::string &outLetters,
    const std::function<double(const std::vector<double> &)> &f,
    const std::function<double(double, double)> &combine, double init) {
  std::string all;
  std::map<char, int64_t> size;
  for (std::size_t i = 0; i < inLetters.size(); ++i)
    for (std::size_t d = 0; d < inLetters[i].size(); ++d) {
      char c = inLetters[i][d];
      if (!size.count(c))
        all += c;
      size[c] = shapes[i][d];
    }
  int64_t outN = 1;
  for (char c : outLetters)
    outN *= size.at(c);
  std::vector<double> out(static_cast<std::size_t>(outN), init);
  std::map<char, int64_t> idx;
  for (char c : all)
    idx[c] = 0;
  auto offset = [&](const std::string &letters) {
    int64_t o = 0;
    for (char c : letters)
      o = o * size.at(c) + idx.at(c);
    return o;
  };
  for (char c : all)
    if (size.at(c) == 0)
      return out;
  std::vector<double> vals(inputs.size());
  while (true) {
    for (std::size_t i = 0; i < inputs.size(); ++i)
      vals[i] = (*inputs[i])[static_cast<std::size_t>(offset(inLetters[i]))];
    auto &o = out[static_cast<std::size_t>(offset(outLetters))];
    o = combine(o, f(vals));
    int d = static_cast<int>(all.size()) - 1;
    for (; d >= 0; --d) {
      if (++idx[all[d]] < size.at(all[d]))
        break;
      idx[all[d]] = 0;
    }
    if (d < 0)
      break;
  }
  return out;
}

std::vector<double>
naiveEinsum(const std::string &spec, const std::vector<Shape> &shapes,
            const std::vector<const std::vector<double> *> &in) {
  EinsumSpec s = EinsumSpec::parse(spec);
  return naiveEvaluate(
      s.inputs, shapes, in, s.output,
      [](const std::vector<double> &v) {
        double p = 1;
        for (double x : v)
          p *= x;
        return p;
      },
      [](double a, double b) { return a + b; }, 0.0);
}

double maxRelError(const std::vector<double> &a, const std::vector<double> &b) {
  if (a.size() != b.size())
    return INFINITY;
  double e = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    double d = std::fabs(a[i] - b[i]) / (1 + std::fabs(b[i]));
    if (!(d <= e)) // also catches NaN
      e = std::isnan(d) ? INFINITY : d;
  }
  return e;
}

void expectSameBits(const Tensor &got, const Tensor &want) {
  ASSERT_EQ(got.dtype, want.dtype);
  ASSERT_EQ(got.numElements(), want.numElements());
  const std::size_t es = dtypeSize(got.dtype);
  const auto *g = static_cast<const unsigned char *>(got.data);
  const auto *w = static_cast<const unsigned char *>(want.data);
  auto gv = toDoubles(got), wv = toDoubles(want);
  int64_t bad = 0;
  for (int64_t i = 0; i < got.numElements(); ++i) {
    if (std::memcmp(g + i * es, w + i * es, es) == 0 ||
        (std::isnan(gv[i]) && std::isnan(wv[i])))
      continue;
    if (bad++ < 5)
      ADD_FAILURE() << "element " << i << ": got " << gv[i] << ", want "
                    << wv[i];
  }
  EXPECT_EQ(bad, 0);
}

} // namespace weft::rt::test

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  using namespace weft::rt::test;
  if (testBackend())
    std::cout << "[weft] testing backend '" << testBackend()->name() << "'\n";
  else {
    // A backend asked for with WEFT_TEST_REQUIRE_BACKEND=1 must run.
    const char *req = std::getenv("WEFT_TEST_REQUIRE_BACKEND");
    if (req && std::string(req) == "1") {
      std::cout << "[weft] FAILED: " << testBackendSkipReason() << "\n";
      return 1;
    }
    std::cout << "[weft] " << testBackendSkipReason()
              << ": backend tests will be skipped\n";
  }
  return RUN_ALL_TESTS();
}
