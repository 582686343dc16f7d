//===- Init.h - --init: parameters initialized from a seed ------*- C++ -*-===//
//
// The training harness's --init SPEC (docs/pipeline.md, "--init"): each
// parameter without a file is drawn on rank 0 from a counter-based
// generator keyed by the seed, the parameter's name and the element's
// global index, then broadcast to every rank (Backend::broadcast over
// every mesh axis), which keeps its block. SPEC is a comma-separated list
// of NAME=INIT (one parameter) and at most one bare INIT (every other
// parameter); INIT is `normal:STD`, `scaled:GAIN` (normal with standard
// deviation GAIN / sqrt(fan_in), fan_in the product of every dimension
// but the last) or `zeros`.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_MAIN_INIT_H
#define WEFT_RT_MAIN_INIT_H

#include "weft/rt/DType.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace weft::rt {

struct InitRule {
  enum Kind { Normal, Scaled, Zeros } kind = Zeros;
  /// The standard deviation (Normal) or the gain (Scaled).
  double scale = 0;
  /// As written, for messages and the log.
  std::string text;
};

struct InitSpec {
  std::map<std::string, InitRule> byName;
  std::optional<InitRule> fallback;
  bool empty() const { return byName.empty() && !fallback; }
  /// The rule of parameter `name`: its own, else the default; null when
  /// neither (the parameter needs a file).
  const InitRule *ruleFor(const std::string &name) const;
};

/// Parses SPEC; `params` are the program's parameter names (a NAME that is
/// none of them is an error listing them). Throws Error with a message
/// naming --init and the offending item.
InitSpec parseInitSpec(const std::string &spec,
                       const std::vector<std::string> &params);

/// The standard deviation `rule` draws with for a tensor of `shape`
/// (0 for zeros).
double initStd(const InitRule &rule, const Shape &shape);

/// Fills `out` (host, `shape`'s elements of `dtype`, row-major) with
/// parameter `name`'s initial values under `rule` and `seed`: element i is
/// std * N(0, 1) drawn from Philox keyed by (seed; i, tensorId(name)), so
/// the values depend on the seed, the name and the global index only.
void fillInit(const InitRule &rule, uint64_t seed, const std::string &name,
              DType dtype, const Shape &shape, void *out);

} // namespace weft::rt

#endif // WEFT_RT_MAIN_INIT_H
