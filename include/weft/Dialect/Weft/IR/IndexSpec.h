//===- IndexSpec.h - einsum-style letter specs ------------------*- C++ -*-===//
//
// Parsing of the letter specs of index-letter ops ("btd,df->btf") and the
// letter bookkeeping shared by verifiers, propagation and partitioning.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_DIALECT_WEFT_IR_INDEXSPEC_H
#define WEFT_DIALECT_WEFT_IR_INDEXSPEC_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace mlir::weft {

/// A parsed spec: one letter string per operand and one for the result.
/// Letters are ASCII a-z and A-Z; a letter appears at most once per term.
struct IndexSpec {
  SmallVector<std::string, 2> inputs;
  std::string result;

  /// Parses `text`. On failure, returns a message saying what is wrong.
  /// With `allowBroadcast` (weft.map), a result letter may appear in no
  /// operand: the result is broadcast along it, its size taken from the
  /// result type. Otherwise every result letter must come from an operand.
  static FailureOr<IndexSpec> parse(StringRef text, std::string &error,
                                    bool allowBroadcast = false);

  /// Letters in first-appearance order over the inputs then the result.
  std::string allLetters() const;
  /// Letters of some input that are absent from the result (reduced).
  std::string reducedLetters() const;
  /// Whether `letter` occurs in input `i` / in the result.
  bool inInput(unsigned i, char letter) const;
  bool inResult(char letter) const;
  /// "btd,df->btf".
  std::string str() const;
};

} // namespace mlir::weft

#endif // WEFT_DIALECT_WEFT_IR_INDEXSPEC_H
