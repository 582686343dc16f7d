//===- IndexSpec.cpp - einsum-style letter specs --------------------------===//

#include "weft/Dialect/Weft/IR/IndexSpec.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::weft;

static bool isLetter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/// Checks one term: letters only, each at most once. `operand` is the
/// term's operand index, -1 for the result (named only in an error).
static bool checkTerm(StringRef term, int operand, std::string &error) {
  auto what = [&] {
    return operand < 0 ? std::string("the result")
                       : "operand #" + std::to_string(operand);
  };
  for (size_t i = 0; i < term.size(); ++i) {
    char c = term[i];
    if (!isLetter(c)) {
      error = (Twine("unexpected character '") + Twine(c) + "' in " + what() +
               " \"" + term + "\" (letters are a-z and A-Z)")
                  .str();
      return false;
    }
    if (term.substr(0, i).contains(c)) {
      error = (Twine("letter '") + Twine(c) + "' appears twice in " + what() +
               " \"" + term + "\"")
                  .str();
      return false;
    }
  }
  return true;
}

static FailureOr<IndexSpec> parseUncached(StringRef text, std::string &error,
                                          bool allowBroadcast);

/// Most specs each thread remembers; past it the memo starts over.
static constexpr unsigned kMaxMemoizedSpecs = 4096;

FailureOr<IndexSpec> IndexSpec::parse(StringRef text, std::string &error,
                                      bool allowBroadcast) {
  // Every op's verifier and sharding rule parses its spec, after every
  // pass; a program has few distinct specs. Parsed specs are memoized per
  // thread (passes run on many threads), keyed by the flag and the text;
  // errors are not memoized.
  thread_local llvm::StringMap<IndexSpec> memo;
  llvm::SmallString<32> key;
  key.push_back(allowBroadcast ? 'b' : '-');
  key.append(text);
  auto it = memo.find(key);
  if (it != memo.end())
    return it->second;
  FailureOr<IndexSpec> spec = parseUncached(text, error, allowBroadcast);
  if (succeeded(spec)) {
    if (memo.size() >= kMaxMemoizedSpecs)
      memo.clear();
    memo.try_emplace(key, *spec);
  }
  return spec;
}

static FailureOr<IndexSpec> parseUncached(StringRef text, std::string &error,
                                          bool allowBroadcast) {
  StringRef trimmed = text.trim();
  size_t arrow = trimmed.find("->");
  if (arrow == StringRef::npos) {
    error = "expected '->' between the operand letters and the result letters";
    return failure();
  }
  StringRef lhs = trimmed.substr(0, arrow).trim();
  StringRef rhs = trimmed.substr(arrow + 2).trim();
  if (rhs.contains("->")) {
    error = "'->' appears more than once";
    return failure();
  }
  IndexSpec spec;
  SmallVector<StringRef> terms;
  lhs.split(terms, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/true);
  for (auto [i, term] : llvm::enumerate(terms)) {
    term = term.trim();
    if (!checkTerm(term, static_cast<int>(i), error))
      return failure();
    spec.inputs.push_back(term.str());
  }
  if (!checkTerm(rhs, -1, error))
    return failure();
  spec.result = rhs.str();
  for (char c : spec.result) {
    bool found = llvm::any_of(spec.inputs, [&](const std::string &in) {
      return StringRef(in).contains(c);
    });
    if (!found && !allowBroadcast) {
      error = (Twine("result letter '") + Twine(c) +
               "' does not appear in any operand")
                  .str();
      return failure();
    }
  }
  return spec;
}

std::string IndexSpec::allLetters() const {
  std::string all;
  auto add = [&](StringRef term) {
    for (char c : term)
      if (!StringRef(all).contains(c))
        all.push_back(c);
  };
  for (const std::string &in : inputs)
    add(in);
  add(result);
  return all;
}

std::string IndexSpec::reducedLetters() const {
  std::string reduced;
  for (char c : allLetters())
    if (!inResult(c))
      reduced.push_back(c);
  return reduced;
}

bool IndexSpec::inInput(unsigned i, char letter) const {
  return StringRef(inputs[i]).contains(letter);
}

bool IndexSpec::inResult(char letter) const {
  return StringRef(result).contains(letter);
}

std::string IndexSpec::str() const {
  return llvm::join(inputs, ",") + "->" + result;
}
