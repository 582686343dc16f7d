//===- EinsumSpec.cpp - Parsed index-letter specs -------------------------===//

#include "weft/rt/EinsumSpec.h"
#include "weft/rt/Error.h"

namespace weft::rt {

static void checkLetters(const std::string &spec, const std::string &term) {
  for (std::size_t i = 0; i < term.size(); ++i) {
    char c = term[i];
    bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    check(letter, "einsum spec '", spec, "': invalid character '", c,
          "' (letters a-z, A-Z only)");
    check(term.find(c, i + 1) == std::string::npos, "einsum spec '", spec,
          "': letter '", c, "' repeated in operand '", term, "'");
  }
}

EinsumSpec EinsumSpec::parse(const std::string &text, int minInputs,
                             int maxInputs) {
  std::string s;
  for (char c : text)
    if (c != ' ')
      s += c;
  auto arrow = s.find("->");
  check(arrow != std::string::npos, "einsum spec '", text, "': missing '->'");
  EinsumSpec spec;
  spec.output = s.substr(arrow + 2);
  std::string lhs = s.substr(0, arrow);
  std::size_t start = 0;
  while (true) {
    auto comma = lhs.find(',', start);
    spec.inputs.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  int n = static_cast<int>(spec.inputs.size());
  check(n >= minInputs && n <= maxInputs, "einsum spec '", text, "': has ", n,
        " operands, expected ", minInputs,
        minInputs == maxInputs ? "" : " to " + std::to_string(maxInputs));
  for (const auto &in : spec.inputs)
    checkLetters(text, in);
  checkLetters(text, spec.output);
  return spec;
}

std::string EinsumSpec::str() const {
  std::string s;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    s += (i ? "," : "") + inputs[i];
  return s + "->" + output;
}

std::map<char, int64_t>
EinsumSpec::letterSizes(const std::vector<Shape> &shapes) const {
  check(shapes.size() == inputs.size(), "einsum spec '", str(), "': got ",
        shapes.size(), " operand shapes for ", inputs.size(), " operands");
  std::map<char, int64_t> sizes;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    check(shapes[i].size() == inputs[i].size(), "einsum spec '", str(),
          "': operand ", i, " '", inputs[i], "' has rank ", inputs[i].size(),
          " but shape ", shapeToString(shapes[i]));
    for (std::size_t d = 0; d < inputs[i].size(); ++d) {
      char c = inputs[i][d];
      check(shapes[i][d] >= 0, "einsum spec '", str(), "': negative extent");
      auto [it, inserted] = sizes.emplace(c, shapes[i][d]);
      check(inserted || it->second == shapes[i][d], "einsum spec '", str(),
            "': letter '", c, "' has size ", it->second, " and ", shapes[i][d]);
    }
  }
  return sizes;
}

} // namespace weft::rt
