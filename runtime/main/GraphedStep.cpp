//===- GraphedStep.cpp - The training step replayed as a CUDA graph -------===//

#include "GraphedStep.h"

#include "weft/rt/Error.h"

namespace weft::rt {

std::string GraphedStep::unsupportedOutputs() const {
  // Checked on the recorded outputs: each updated value must be a buffer
  // of the step's own, not an input's (the copies into the pinned inputs
  // would then depend on their order).
  const auto &in = ctx_.inputs();
  for (std::size_t o = 0; o < info_.outputs.size(); ++o) {
    const Tensor &out = ctx_.outputs()[o];
    for (std::size_t i = 0; i < in.size(); ++i)
      if (out.data && out.data == in[i].data &&
          static_cast<int64_t>(i) != info_.outputs[o].updates)
        return "output '" + info_.outputs[o].name + "' is input '" +
               info_.inputs[i].name + "' itself";
  }
  return "";
}

std::string GraphedStep::capture() {
  // Pin every input: a buffer of its own, holding its current value.
  pinned_.clear();
  for (std::size_t i = 0; i < ctx_.inputs().size(); ++i) {
    const Tensor &cur = ctx_.inputs()[i];
    Tensor p = be_.empty(cur.dtype, cur.shape);
    be_.copyDevice(cur, p);
    pinned_.push_back(p);
    ctx_.setInput(i, p);
  }
  ctx_.clearOutputs();
  be_.synchronize();
  std::string why;
  be_.beginGraphCapture();
  try {
    info_.step(ctx_);
    ctx_.finishAllPending();
    why = unsupportedOutputs();
    if (why.empty())
      for (std::size_t o = 0; o < info_.outputs.size(); ++o)
        if (int64_t u = info_.outputs[o].updates; u >= 0)
          be_.copyDevice(ctx_.outputs()[o], pinned_.at(u));
  } catch (const std::exception &e) {
    why = e.what();
  }
  if (why.empty()) {
    try {
      nodes_ = be_.endGraphCapture();
      return "";
    } catch (const std::exception &e) {
      why = e.what();
    }
  }
  // Nothing ran: end the recording if it is still open, and drop what the
  // interrupted step left behind.
  be_.abortGraphCapture();
  try {
    ctx_.finishAllPending();
  } catch (const std::exception &) {
  }
  ctx_.clearOutputs();
  return why;
}

void GraphedStep::replay() {
  for (std::size_t i = 0; i < pinned_.size(); ++i) {
    const Tensor &cur = ctx_.inputs()[i];
    if (cur.data != pinned_[i].data) {
      be_.copyDevice(cur, pinned_[i]);
      ctx_.setInput(i, pinned_[i]);
    }
  }
  be_.launchGraph();
}

} // namespace weft::rt
