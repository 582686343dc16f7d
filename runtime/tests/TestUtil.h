//===- TestUtil.h - Helpers shared by the runtime tests ---------*- C++ -*-===//
//
// Reference computations here are deliberately naive (loops over every
// letter assignment in double precision) and share no code with the
// planner or the backends.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_TESTS_TESTUTIL_H
#define WEFT_RT_TESTS_TESTUTIL_H

#include "weft/rt/Backend.h"
#include "weft/rt/Tensor.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace weft::rt::test {

/// The backend named by $WEFT_TEST_BACKEND (default cpu) on a 1-device mesh,
/// or null when it is unavailable (tests then skip with a message).
Backend *testBackend();
std::string testBackendSkipReason();
/// Why a test over `dtype`'s maps must skip: no test backend, or the
/// backend does not map `dtype` (f16 and bf16 only on CUDA). Empty: run.
std::string mapSkipReason(DType dtype);

/// Deterministic values in [-1, 1) (a small LCG, independent of Rng.h).
inline std::vector<double> testValues(int64_t n, uint64_t seed) {
  std::vector<double> v(static_cast<std::size_t>(n));
  uint64_t s = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (auto &x : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x = static_cast<double>(s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
  }
  return v;
}

/// Host tensor of `dtype` holding `values` (rounded to the dtype; f16 and
/// bf16 through float).
inline Tensor hostFrom(DType dtype, const Shape &shape,
                       const std::vector<double> &values) {
  Tensor t = hostTensor(dtype, shape);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (dtype == DType::F32)
      t.ptr<float>()[i] = static_cast<float>(values[i]);
    else if (dtype == DType::F64)
      t.ptr<double>()[i] = values[i];
    else if (dtype == DType::I32)
      t.ptr<int32_t>()[i] = static_cast<int32_t>(values[i]);
    else if (dtype == DType::F16)
      t.ptr<uint16_t>()[i] = floatToHalf(static_cast<float>(values[i]));
    else if (dtype == DType::BF16)
      t.ptr<uint16_t>()[i] = floatToBFloat16(static_cast<float>(values[i]));
  }
  return t;
}

inline std::vector<double> toDoubles(const Tensor &host) {
  std::vector<double> v(static_cast<std::size_t>(host.numElements()));
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (host.dtype == DType::F32)
      v[i] = host.ptr<float>()[i];
    else if (host.dtype == DType::F64)
      v[i] = host.ptr<double>()[i];
    else if (host.dtype == DType::I32)
      v[i] = host.ptr<int32_t>()[i];
    else if (host.dtype == DType::F16)
      v[i] = halfToFloat(host.ptr<uint16_t>()[i]);
    else if (host.dtype == DType::BF16)
      v[i] = bfloat16ToFloat(host.ptr<uint16_t>()[i]);
  }
  return v;
}

/// Naive einsum-shaped evaluation over the union of all letters: for every
/// assignment, out[result letters] = combine(out, f(operand values)).
/// `init` is the identity of `combine`.
std::vector<double> naiveEvaluate(
    const std::vector<std::string> &inLetters, const std::vector<Shape> &shapes,
    const std::vector<const std::vector<double> *> &inputs,
    const std::string &outLetters,
    const std::function<double(const std::vector<double> &)> &f,
    const std::function<double(double, double)> &combine, double init);

/// Naive einsum (sum of products).
std::vector<double>
naiveEinsum(const std::string &spec, const std::vector<Shape> &shapes,
            const std::vector<const std::vector<double> *> &in);

/// Max |a-b| / (1 + |b|) over all elements.
double maxRelError(const std::vector<double> &a, const std::vector<double> &b);

/// Expects `got` and `want` (host tensors of one dtype) bit-identical, any
/// NaN equal to any NaN: IEEE leaves open which operand's NaN an
/// arithmetic op passes on, and compilers commute operands (so the sign and
/// payload of a NaN from two NaNs differ even between the vector and scalar
/// forms of one loop). Reports the first mismatches as gtest failures
/// (TestMain.cpp).
void expectSameBits(const Tensor &got, const Tensor &want);

} // namespace weft::rt::test

#endif // WEFT_RT_TESTS_TESTUTIL_H
