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

double mlir::weft::ringBytesPerDevice(RingCollective kind, int64_t p,
                                      double inBytes, double outBytes) {
  using ::weft::rt::CollectiveKind;
  switch (kind) {
  case RingCollective::AllReduce:
    return ::weft::rt::ringBytes(CollectiveKind::AllReduce, p, inBytes);
  case RingCollective::AllGather:
    return ::weft::rt::ringBytes(CollectiveKind::AllGather, p, outBytes);
  case RingCollective::ReduceScatter:
    return ::weft::rt::ringBytes(CollectiveKind::ReduceScatter, p, inBytes);
  case RingCollective::AllToAll:
    return ::weft::rt::ringBytes(CollectiveKind::AllToAll, p, inBytes);
  }
  return 0;
}
