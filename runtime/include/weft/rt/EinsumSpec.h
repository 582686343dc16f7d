//===- EinsumSpec.h - Parsed index-letter specs -----------------*- C++ -*-===//
//
// "btd,df->btf": one or two operands, letters a-zA-Z, each letter at most
// once per operand. Shared by einsum, map, reduce and embed.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_EINSUMSPEC_H
#define WEFT_RT_EINSUMSPEC_H

#include "weft/rt/DType.h"

#include <map>
#include <string>
#include <vector>

namespace weft::rt {

struct EinsumSpec {
  std::vector<std::string> inputs;
  std::string output;

  /// Parses and validates `text`; throws Error naming the spec on bad
  /// syntax, bad letters, repeated letters or an operand count outside
  /// [minInputs, maxInputs].
  static EinsumSpec parse(const std::string &text, int minInputs = 1,
                          int maxInputs = 2);

  std::string str() const;

  /// Checks that each operand's rank matches its letters and that a letter
  /// has one size everywhere; returns letter -> size.
  std::map<char, int64_t> letterSizes(const std::vector<Shape> &shapes) const;
};

} // namespace weft::rt

#endif // WEFT_RT_EINSUMSPEC_H
