//===- Limits.cpp - Bounds on meshes and tensors, checked products --------===//

#include "weft/Dialect/Weft/IR/Limits.h"

#include "weft/rt/CollectivePlan.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir::weft;

std::optional<int64_t> mlir::weft::boundedProduct(llvm::ArrayRef<int64_t> sizes,
                                                  int64_t limit) {
  int64_t product = 1;
  for (int64_t s : sizes) {
    if (s < 0 || llvm::MulOverflow(product, s, product) || product > limit)
      return std::nullopt;
  }
  return product;
}

double mlir::weft::ringBytesPerDevice(::weft::rt::CollectiveKind kind,
                                      int64_t p, double inBytes,
                                      double outBytes) {
  // An all-gather's (and a gather_to's) formula counts the gathered
  // (output) bytes.
  bool gathered = kind == ::weft::rt::CollectiveKind::AllGather ||
                  kind == ::weft::rt::CollectiveKind::GatherTo;
  return ::weft::rt::ringBytes(kind, p, gathered ? outBytes : inBytes);
}
