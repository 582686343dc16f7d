//===- Init.cpp - --init: parameters initialized from a seed --------------===//

#include "Init.h"

#include "weft/rt/Error.h"
#include "weft/rt/Philox.h"
#include "weft/rt/Rng.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace weft::rt {

const InitRule *InitSpec::ruleFor(const std::string &name) const {
  auto it = byName.find(name);
  if (it != byName.end())
    return &it->second;
  return fallback ? &*fallback : nullptr;
}

static InitRule parseRule(const std::string &text, const std::string &item) {
  InitRule r;
  r.text = text;
  if (text == "zeros")
    return r;
  auto colon = text.find(':');
  std::string kind = text.substr(0, colon);
  check(kind == "normal" || kind == "scaled",
        "option --init: unknown "
        "initializer '",
        kind, "' in '", item, "' (expected normal:STD, scaled:GAIN or zeros)");
  const char *what = kind == "normal" ? "STD" : "GAIN";
  check(colon != std::string::npos, "option --init: '", item, "': ", kind,
        " needs a value: ", kind, ":", what, " (e.g. ", kind, ":0.02)");
  std::string value = text.substr(colon + 1);
  char *end = nullptr;
  errno = 0;
  double v = std::strtod(value.c_str(), &end);
  check(!value.empty() && *end == '\0' && errno == 0 && std::isfinite(v) &&
            v >= 0,
        "option --init: '", item, "': ", what,
        " must be a finite number >= 0, got '", value, "'");
  r.kind = kind == "normal" ? InitRule::Normal : InitRule::Scaled;
  r.scale = v;
  return r;
}

InitSpec parseInitSpec(const std::string &spec,
                       const std::vector<std::string> &params) {
  InitSpec s;
  check(!spec.empty(),
        "option --init expects NAME=INIT or INIT items, "
        "comma-separated (INIT: normal:STD, scaled:GAIN or zeros)");
  std::size_t start = 0;
  while (start <= spec.size()) {
    std::size_t comma = spec.find(',', start);
    std::string item = spec.substr(
        start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? spec.size() + 1 : comma + 1;
    check(!item.empty(), "option --init: empty item in '", spec, "'");
    auto eq = item.find('=');
    if (eq == std::string::npos) {
      check(!s.fallback, "option --init: two defaults ('", s.fallback->text,
            "' and '", item, "'); name the parameter of one: NAME=INIT");
      s.fallback = parseRule(item, item);
      continue;
    }
    std::string name = item.substr(0, eq);
    std::string names;
    for (const std::string &p : params)
      names += (names.empty() ? "" : ", ") + p;
    check(std::find(params.begin(), params.end(), name) != params.end(),
          "option --init: '", name, "' is not a parameter of the program ",
          "(parameters: ", names, ")");
    check(!s.byName.count(name), "option --init: parameter '", name,
          "' is given twice");
    s.byName[name] = parseRule(item.substr(eq + 1), item);
  }
  return s;
}

double initStd(const InitRule &rule, const Shape &shape) {
  switch (rule.kind) {
  case InitRule::Zeros:
    return 0;
  case InitRule::Normal:
    return rule.scale;
  case InitRule::Scaled: {
    double fanIn = 1;
    for (std::size_t d = 0; d + 1 < shape.size(); ++d)
      fanIn *= static_cast<double>(shape[d]);
    return rule.scale / std::sqrt(fanIn);
  }
  }
  return 0;
}

void fillInit(const InitRule &rule, uint64_t seed, const std::string &name,
              DType dtype, const Shape &shape, void *out) {
  check(isFloat(dtype), "--init: parameter '", name, "' is ", dtypeName(dtype),
        "; only float parameters are initialized");
  double sd = initStd(rule, shape);
  uint64_t id = tensorId(name);
  int64_t n = numElements(shape);
  for (int64_t i = 0; i < n; ++i) {
    double v = 0;
    if (sd != 0) {
      // Counter: the element's global index and the name; key: the seed.
      const int64_t idx[4] = {
          static_cast<int64_t>(static_cast<uint64_t>(i) & 0xffffffffu),
          static_cast<int64_t>(static_cast<uint64_t>(i) >> 32),
          static_cast<int64_t>(id & 0xffffffffu),
          static_cast<int64_t>(id >> 32)};
      v = sd * ops::randomValue<double>(true, seed, idx);
    }
    switch (dtype) {
    case DType::F32:
      static_cast<float *>(out)[i] = static_cast<float>(v);
      break;
    case DType::F64:
      static_cast<double *>(out)[i] = v;
      break;
    case DType::F16:
      static_cast<uint16_t *>(out)[i] = floatToHalf(static_cast<float>(v));
      break;
    case DType::BF16:
      static_cast<uint16_t *>(out)[i] = floatToBFloat16(static_cast<float>(v));
      break;
    case DType::I32:
      break; // Refused above.
    }
  }
}

} // namespace weft::rt
