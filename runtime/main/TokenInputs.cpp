//===- TokenInputs.cpp - --tokens: binding a token file to a step ---------===//
//
// The harness side of TokenData.h: which data inputs the windows feed, and
// the checks that they can (docs/training.md, "Batches from a token
// file").
//
//===----------------------------------------------------------------------===//

#include "Harness.h"

#include "weft/rt/Error.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace weft::rt {

void Harness::openTokens() {
  const TokenOptions &o = opts_.tokens;
  int found[2] = {-1, -1};
  std::string dataInputs;
  for (std::size_t i = 0; i < info_.inputs.size(); ++i) {
    const ProgramTensor &t = info_.inputs[i];
    if (t.role != TensorRole::Data)
      continue;
    dataInputs += (dataInputs.empty() ? "" : ", ") + t.name + " (" +
                  describeShape(t) + ")";
    for (int shift = 0; shift < 2; ++shift) {
      if (t.name != (shift ? o.targetsInput : o.idsInput))
        continue;
      check(t.dtype == DType::I32 && logicalShapeOf(t).size() == 2,
            "--tokens: input '", t.name, "' is ", describeShape(t),
            "; token windows feed i32 [batch, sequence] inputs");
      batches_[i].tokenShift = shift;
      // Copies of one input (micro-batches) share the name: all are fed.
      if (found[shift] < 0)
        found[shift] = static_cast<int>(i);
    }
  }
  for (int shift = 0; shift < 2; ++shift) {
    const std::string &name = shift ? o.targetsInput : o.idsInput;
    check(found[shift] >= 0, "--tokens: the program has no data input named '",
          name, "' (its data inputs: ",
          dataInputs.empty() ? std::string("none") : dataInputs,
          "); name the ids and targets inputs with --token-inputs IDS,TARGETS");
  }
  const ProgramTensor &ids = info_.inputs[found[0]];
  const ProgramTensor &tgt = info_.inputs[found[1]];
  check(logicalShapeOf(ids) == logicalShapeOf(tgt), "--tokens: inputs '",
        ids.name, "' (", describeShape(ids), ") and '", tgt.name, "' (",
        describeShape(tgt), ") must have one shape");
  // The vocabulary: the rows of the table the ids index (weftc records it
  // as the ids' bound); the targets' bound (one_hot's classes) when the ids
  // have none.
  int64_t vocab = ids.intBound > 1 ? ids.intBound : tgt.intBound;
  // Each rank scans its slice of the ids (TokenData.h); the harness agrees
  // on errors, so a bad id anywhere stops every rank before the first step.
  tokens_ = std::make_unique<TokenFile>(
      o.file, o.tokenBytes, logicalShapeOf(ids)[1], vocab, rank_, size_);
}

void Harness::printWindows(int64_t t, int64_t batch, std::size_t ids) const {
  const ProgramTensor &in = info_.inputs[ids];
  const Shape &global = logicalShapeOf(in);
  Shape block = localShape(mesh_, in.layout, in.globalShape);
  auto offsets = blockOffsets(mesh_, in.layout, in.globalShape, rank_);
  std::string line =
      "windows step " + std::to_string(t) + " batch " + std::to_string(batch) +
      " rank " + std::to_string(rank_) + " rows " + std::to_string(offsets[0]) +
      ".." + std::to_string(std::min(offsets[0] + block[0], global[0])) + ":";
  for (int64_t r = offsets[0]; r < offsets[0] + block[0] && r < global[0];
       ++r) {
    // Not " " + std::to_string(...): GCC 12 warns there (-Wrestrict, PR
    // 105651).
    line += ' ';
    line += std::to_string(tokens_->windowStart(opts_.tokens.seed, batch, r));
  }
  line += "\n";
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fflush(stdout);
}

} // namespace weft::rt
