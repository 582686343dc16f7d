//===- GemmEpilogue.h - What a CPU GEMM fuses after it ---------*- C++ -*-===//
//
// oneDNN's matmul post-ops, as the CPU backend exposes them
// (CpuBackend::gemmWithEpilogue); CpuBackend::fusedGemmKernel maps a
// weft.fused_einsum's epilogue (--weft-fuse-epilogues) onto it.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_CPU_GEMMEPILOGUE_H
#define WEFT_RT_CPU_GEMMEPILOGUE_H

#include <tuple>

namespace weft::rt {

/// C = scale * act(A B + bias) + (accumulate ? C : 0), with `bias` one value
/// per column (the plan's n) of C, broadcast over rows and batches. (No bias
/// per row: oneDNN 2.6 runs that only with its reference kernel.) The
/// activations are oneDNN's (gelu: the tanh form; silu: x sigmoid(x)), not
/// ElementOps.h's: they agree with the unfused maps to rounding, not bit for
/// bit.
struct GemmEpilogue {
  enum class Bias { None, PerColumn };
  enum class Act { None, Relu, Gelu, Silu, Sigmoid, Tanh };
  Bias bias = Bias::None;
  Act act = Act::None;
  bool accumulate = false;
  /// Multiplies after the activation (oneDNN's eltwise linear, beta 0: the
  /// same product as MapKind::Scale's in f32).
  float scale = 1.0f;
  bool empty() const {
    return bias == Bias::None && act == Act::None && !accumulate &&
           scale == 1.0f;
  }
  auto key() const { return std::make_tuple(bias, act, accumulate, scale); }
};

} // namespace weft::rt

#endif // WEFT_RT_CPU_GEMMEPILOGUE_H
