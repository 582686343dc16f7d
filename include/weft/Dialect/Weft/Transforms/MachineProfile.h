//===- MachineProfile.h - the machine model of the sharding search -*- C++
//-*-===//
//
// What weft-propagate's global search prices a plan with (docs/
// machine-profile.md): per mesh axis a collective's latency and bandwidth,
// per element type the FLOP/s of a contraction, and the memory bandwidth of
// element-wise work. A profile is JSON (schema in the doc); the default
// models one GPU node (NVLink-class links, H100-class FLOP/s), and
// weft-calibrate measures one for the machine it runs on.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_DIALECT_WEFT_TRANSFORMS_MACHINEPROFILE_H
#define WEFT_DIALECT_WEFT_TRANSFORMS_MACHINEPROFILE_H

#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringMap.h"

#include <string>

namespace mlir::weft {

/// One mesh axis's links: a collective over it takes
/// latencySeconds + bytesPerDevice / bytesPerSecond.
struct AxisLink {
  double bytesPerSecond = 0;
  double latencySeconds = 0;
};

struct MachineProfile {
  std::string name;
  /// Contraction (einsum) FLOP/s per element type name (`f32`, `bf16`);
  /// `defaultFlopsPerSecond` for any other.
  llvm::StringMap<double> flopsPerSecond;
  double defaultFlopsPerSecond = 0;
  /// Bytes per second of element-wise and reduction work (one device).
  double memoryBytesPerSecond = 0;
  /// Links per mesh axis name; `defaultLink` (`"*"` in JSON) for the rest.
  llvm::StringMap<AxisLink> axes;
  AxisLink defaultLink;

  /// The documented default: one node of H100-class GPUs on NVLink.
  static MachineProfile getDefault();
  /// The CPU backend's default: one MPI rank per core of one host,
  /// single-threaded BLAS, shared-memory MPI.
  static MachineProfile getDefaultCpu();
  /// The names of the built-in profiles where a profile file is expected.
  static constexpr const char *kBuiltinGpu = "builtin:gpu";
  static constexpr const char *kBuiltinCpu = "builtin:cpu";
  /// A built-in name (above; empty: the GPU default) or a file to load.
  static FailureOr<MachineProfile> resolve(StringRef spec, std::string &error);
  /// Parses a profile; on failure `error` says what and where.
  static FailureOr<MachineProfile> parse(StringRef json, std::string &error);
  /// Reads and parses `path`.
  static FailureOr<MachineProfile> load(StringRef path, std::string &error);
  /// The profile as JSON (what parse reads back).
  std::string toJson() const;

  /// Over several axes the slowest link bounds the ring: the smallest
  /// bandwidth and the largest latency among them.
  AxisLink linkOf(ArrayRef<StringRef> axesUsed) const;
  /// Seconds of a collective sending `bytesPerDevice` over `axesUsed`.
  double collectiveSeconds(double bytesPerDevice,
                           ArrayRef<StringRef> axesUsed) const;
  /// Contraction FLOP/s for `elementType`.
  double flopsOf(Type elementType) const;
  /// Seconds of one op on one device (the roofline the global search and
  /// weft-price-local share): `bytesTouched` (its operands' and result's
  /// blocks) over the memory bandwidth, or for a contraction `flops` over
  /// the FLOP/s of `elementType` when that is longer.
  double computeSeconds(double bytesTouched, double flops,
                        Type elementType) const;
};

} // namespace mlir::weft

#endif // WEFT_DIALECT_WEFT_TRANSFORMS_MACHINEPROFILE_H
