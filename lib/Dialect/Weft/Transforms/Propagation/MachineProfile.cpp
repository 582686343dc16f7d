//===- MachineProfile.cpp - reading and writing machine profiles ----------===//
//
// The JSON schema (docs/machine-profile.md):
//   {"weft_machine_profile": 1, "name": "...",
//    "flops_per_s": {"f32": 5e13, "*": 5e13},
//    "memory_bytes_per_s": 3e12,
//    "axes": {"*": {"bytes_per_s": 3.7e11, "latency_s": 8e-6},
//             "data": {...}}}
// Unknown keys are errors (a misspelt key must not silently keep a default).
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/Transforms/MachineProfile.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::weft;

MachineProfile MachineProfile::getDefault() {
  // A model, not a measurement: H100 SXM-class FP32 GEMM throughput (67
  // TFLOP/s peak, ~50 reached by cuBLAS sgemm), BF16/F16 tensor cores
  // (989 TFLOP/s dense peak, ~700 reached), HBM3 (3.35 TB/s peak), NVLink 4
  // (450 GB/s per direction per GPU; NCCL's ring bus bandwidth ~370 GB/s,
  // ~5 us small-message latency on a few GPUs).
  MachineProfile p;
  p.name = "default-gpu-node";
  p.flopsPerSecond["f32"] = 5.0e13;
  p.flopsPerSecond["f64"] = 5.0e13;
  p.flopsPerSecond["bf16"] = 7.0e14;
  p.flopsPerSecond["f16"] = 7.0e14;
  p.defaultFlopsPerSecond = 5.0e13;
  p.memoryBytesPerSecond = 3.0e12;
  p.defaultLink = {3.7e11, 5e-6};
  return p;
}

MachineProfile MachineProfile::getDefaultCpu() {
  // Calibrated on the development host (docs/machine-profile.md, "The CPU
  // profile", has the measurements, their load and the commands): one MPI
  // rank per core, f32 contractions on oneDNN, f64 on OpenBLAS, ranks
  // talking through Open MPI's shared-memory transport (pml ob1). The
  // latency is what an 8-byte all-reduce costs between ranks that compute
  // between collectives (their skew and the scheduler included), not the
  // transport's back-to-back floor of a microsecond: plans priced with the
  // floor traded compute for many small collectives and ran slower. The
  // memory figure is an effective one, above the 14 GB/s a streaming pass
  // measured: the model prices every element-wise map's operands and result
  // alone, while the runtime fuses chains of them into one pass.
  MachineProfile p;
  p.name = "default-cpu-node";
  p.flopsPerSecond["f32"] = 5.0e10;
  p.flopsPerSecond["f64"] = 1.0e10;
  p.defaultFlopsPerSecond = 5.0e10;
  p.memoryBytesPerSecond = 3.0e10;
  p.defaultLink = {1.5e9, 2e-4};
  return p;
}

FailureOr<MachineProfile> MachineProfile::resolve(StringRef spec,
                                                  std::string &error) {
  if (spec.empty() || spec == kBuiltinGpu)
    return getDefault();
  if (spec == kBuiltinCpu)
    return getDefaultCpu();
  return load(spec, error);
}

namespace {
/// Reads a positive finite number at `key` of `obj`.
bool readPositive(const llvm::json::Object &obj, StringRef key, double &out,
                  const std::string &where, std::string &error) {
  const llvm::json::Value *v = obj.get(key);
  if (!v) {
    error = where + ": missing \"" + key.str() + "\"";
    return false;
  }
  std::optional<double> d = v->getAsNumber();
  if (!d || !std::isfinite(*d) || *d <= 0) {
    error = where + ".\"" + key.str() + "\": expected a finite number > 0";
    return false;
  }
  out = *d;
  return true;
}

bool onlyKeys(const llvm::json::Object &obj, ArrayRef<StringRef> allowed,
              const std::string &where, std::string &error) {
  for (const auto &kv : obj)
    if (!llvm::is_contained(allowed, StringRef(kv.first))) {
      error = where + ": unknown key \"" + kv.first.str() + "\"";
      return false;
    }
  return true;
}
} // namespace

FailureOr<MachineProfile> MachineProfile::parse(StringRef json,
                                                std::string &error) {
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json);
  if (!parsed) {
    error = "not JSON: " + llvm::toString(parsed.takeError());
    return failure();
  }
  const llvm::json::Object *root = parsed->getAsObject();
  if (!root) {
    error = "the profile must be a JSON object";
    return failure();
  }
  if (!onlyKeys(*root,
                {"weft_machine_profile", "name", "description", "flops_per_s",
                 "memory_bytes_per_s", "axes", "measured"},
                "profile", error))
    return failure();
  std::optional<int64_t> version = root->getInteger("weft_machine_profile");
  if (!version || *version != 1) {
    error = "profile: \"weft_machine_profile\" must be 1 (the schema version)";
    return failure();
  }
  MachineProfile p;
  if (std::optional<StringRef> name = root->getString("name"))
    p.name = name->str();
  else
    p.name = "unnamed";

  const llvm::json::Object *flops = root->getObject("flops_per_s");
  if (!flops) {
    error = "profile: missing object \"flops_per_s\"";
    return failure();
  }
  for (const auto &kv : *flops) {
    double d;
    if (!readPositive(*flops, kv.first, d, "profile.\"flops_per_s\"", error))
      return failure();
    if (kv.first == "*")
      p.defaultFlopsPerSecond = d;
    else
      p.flopsPerSecond[kv.first] = d;
  }
  if (p.defaultFlopsPerSecond == 0) {
    if (!p.flopsPerSecond.count("f32")) {
      error = "profile.\"flops_per_s\": needs \"f32\" or \"*\"";
      return failure();
    }
    p.defaultFlopsPerSecond = p.flopsPerSecond["f32"];
  }
  if (!readPositive(*root, "memory_bytes_per_s", p.memoryBytesPerSecond,
                    "profile", error))
    return failure();

  const llvm::json::Object *axes = root->getObject("axes");
  if (!axes) {
    error = "profile: missing object \"axes\"";
    return failure();
  }
  for (const auto &kv : *axes) {
    std::string where = "profile.\"axes\".\"" + kv.first.str() + "\"";
    const llvm::json::Object *link = kv.second.getAsObject();
    if (!link) {
      error = where + ": expected an object";
      return failure();
    }
    if (!onlyKeys(*link, {"bytes_per_s", "latency_s"}, where, error))
      return failure();
    AxisLink l;
    if (!readPositive(*link, "bytes_per_s", l.bytesPerSecond, where, error))
      return failure();
    // A latency of 0 is allowed (a pure bandwidth model).
    const llvm::json::Value *lat = link->get("latency_s");
    std::optional<double> d = lat ? lat->getAsNumber() : std::nullopt;
    if (!d || !std::isfinite(*d) || *d < 0) {
      error = where + ".\"latency_s\": expected a finite number >= 0";
      return failure();
    }
    l.latencySeconds = *d;
    if (kv.first == "*")
      p.defaultLink = l;
    else
      p.axes[kv.first] = l;
  }
  if (p.defaultLink.bytesPerSecond == 0) {
    error = "profile.\"axes\": needs a \"*\" entry (the links of any axis not "
            "named)";
    return failure();
  }
  return p;
}

FailureOr<MachineProfile> MachineProfile::load(StringRef path,
                                               std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    error = "cannot read machine profile '" + path.str() +
            "': " + buffer.getError().message();
    return failure();
  }
  FailureOr<MachineProfile> p = parse((*buffer)->getBuffer(), error);
  if (failed(p))
    error = "machine profile '" + path.str() + "': " + error;
  return p;
}

std::string MachineProfile::toJson() const {
  llvm::json::Object flops;
  for (const auto &kv : flopsPerSecond)
    flops[kv.first()] = kv.second;
  flops["*"] = defaultFlopsPerSecond;
  llvm::json::Object links;
  auto linkJson = [](const AxisLink &l) {
    return llvm::json::Object{{"bytes_per_s", l.bytesPerSecond},
                              {"latency_s", l.latencySeconds}};
  };
  for (const auto &kv : axes)
    links[kv.first()] = linkJson(kv.second);
  links["*"] = linkJson(defaultLink);
  llvm::json::Object root{{"weft_machine_profile", 1},
                          {"name", name},
                          {"flops_per_s", std::move(flops)},
                          {"memory_bytes_per_s", memoryBytesPerSecond},
                          {"axes", std::move(links)}};
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
  return out;
}

AxisLink MachineProfile::linkOf(ArrayRef<StringRef> axesUsed) const {
  if (axesUsed.empty())
    return defaultLink;
  AxisLink out{std::numeric_limits<double>::infinity(), 0};
  for (StringRef a : axesUsed) {
    auto it = axes.find(a);
    const AxisLink &l = it == axes.end() ? defaultLink : it->second;
    out.bytesPerSecond = std::min(out.bytesPerSecond, l.bytesPerSecond);
    out.latencySeconds = std::max(out.latencySeconds, l.latencySeconds);
  }
  return out;
}

double MachineProfile::collectiveSeconds(double bytesPerDevice,
                                         ArrayRef<StringRef> axesUsed) const {
  AxisLink l = linkOf(axesUsed);
  return l.latencySeconds + bytesPerDevice / l.bytesPerSecond;
}

double MachineProfile::computeSeconds(double bytesTouched, double flops,
                                      Type elementType) const {
  double seconds = bytesTouched / memoryBytesPerSecond;
  if (flops > 0)
    seconds = std::max(seconds, flops / flopsOf(elementType));
  return seconds;
}

double MachineProfile::flopsOf(Type elementType) const {
  std::string name;
  llvm::raw_string_ostream os(name);
  elementType.print(os);
  auto it = flopsPerSecond.find(name);
  return it == flopsPerSecond.end() ? defaultFlopsPerSecond : it->second;
}
