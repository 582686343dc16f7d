//===- GradientCheck.cpp - autodiff gradients against finite differences --===//

#include "weft/Interpreter/GradientCheck.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Interpreter/Evaluator.h"

#include <cmath>

using namespace mlir;
using namespace mlir::weft;
using namespace mlir::weft::interp;

LogicalResult
mlir::weft::interp::checkGradients(func::FuncOp func, ArrayRef<Tensor> args,
                                   const GradientCheckOptions &options,
                                   llvm::raw_ostream &os,
                                   unsigned &mismatches) {
  mismatches = 0;
  if (func.getNumResults() == 0 ||
      cast<RankedTensorType>(func.getResultTypes()[0]).getRank() != 0)
    return func.emitError() << "--check-gradients needs result #0 to be the "
                               "scalar loss (run --weft-autodiff first)";
  // The gradient results and the arguments they differentiate.
  SmallVector<std::pair<unsigned, unsigned>> grads; // (result, argument)
  int64_t total = 0;
  for (unsigned r = 1; r < func.getNumResults(); ++r) {
    auto attr = func.getResultAttrOfType<IntegerAttr>(r, kGradOfAttr);
    if (!attr)
      continue;
    int64_t a = attr.getInt();
    if (a < 0 || a >= static_cast<int64_t>(args.size()))
      return func.emitError() << "result #" << r << " is the gradient of "
                              << "argument #" << a << ", which does not exist";
    if (cast<RankedTensorType>(func.getResultTypes()[r]).getShape() !=
        cast<RankedTensorType>(func.getArgumentTypes()[a]).getShape())
      return func.emitError() << "result #" << r << " has another shape than "
                              << "argument #" << a << ", its parameter";
    grads.push_back({r, static_cast<unsigned>(a)});
    total += args[a].getNumElements();
  }
  if (grads.empty())
    return func.emitError() << "--check-gradients found no result marked "
                               "weft.grad_of (run --weft-autodiff first)";
  if (total > options.maxElements)
    return func.emitError()
           << "--check-gradients would evaluate the function twice for each "
           << "of " << total << " parameter elements (at most "
           << options.maxElements << ")";

  FailureOr<Values> base = evaluateGlobal(func, args);
  if (failed(base))
    return failure();
  SmallVector<Tensor> inputs(args.begin(), args.end());
  auto lossAt = [&](unsigned arg, int64_t j, double x) -> FailureOr<double> {
    inputs[arg].getData()[j] = x;
    FailureOr<Values> out = evaluateGlobal(func, inputs);
    if (failed(out))
      return failure();
    return (*out)[0].getData()[0];
  };
  for (auto [r, a] : grads) {
    ArrayRef<double> analytic = (*base)[r].getData();
    double scale = 0, maxAbs = 0;
    int64_t worst = -1;
    double worstNumeric = 0;
    for (double g : analytic)
      if (std::isfinite(g))
        scale = std::max(scale, std::fabs(g));
    for (int64_t j = 0; j < args[a].getNumElements(); ++j) {
      double x = args[a].getData()[j];
      double h = options.step * std::max(1.0, std::fabs(x));
      FailureOr<double> up = lossAt(a, j, x + h);
      FailureOr<double> down = lossAt(a, j, x - h);
      inputs[a].getData()[j] = x;
      if (failed(up) || failed(down))
        return failure();
      double numeric = (*up - *down) / (2 * h);
      double err = std::fabs(numeric - analytic[j]);
      // The largest error is the worst; a NaN one is worse than any.
      bool worse = worst < 0 ||
                   (!std::isnan(maxAbs) && (std::isnan(err) || err > maxAbs));
      if (worse) {
        maxAbs = err;
        worst = j;
        worstNumeric = numeric;
      }
    }
    bool ok =
        !std::isnan(maxAbs) && maxAbs <= options.atol + options.rtol * scale;
    StringAttr name = getResultName(func, r);
    os << (name ? name.getValue() : StringRef("result")) << " (result #" << r
       << ", argument #" << a << "): " << analytic.size()
       << " element(s), max abs error " << maxAbs << ", max rel error "
       << (scale > 0 ? maxAbs / scale : maxAbs);
    if (!ok)
      os << ", worst at element " << worst << ": autodiff " << analytic[worst]
         << ", finite difference " << worstNumeric;
    os << ": " << (ok ? "ok" : "MISMATCH") << "\n";
    if (!ok)
      ++mismatches;
  }
  return success();
}
