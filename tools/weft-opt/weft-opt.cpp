//===- weft-opt.cpp - the weft optimizer driver ---------------------------===//
//
// mlir-opt with the weft dialect and passes, the whole compile pipeline
// (--weft-pipeline="...", docs/weftc.md), plus func, arith and the standard
// MLIR passes (canonicalize, cse, ...), and the test-only
// --weft-test-op-contracts (TestOpContracts.cpp).
//
//===----------------------------------------------------------------------===//

#include "weft/Conversion/WeftToRuntime/Passes.h"
#include "weft/Dialect/Weft/IR/Debug.h"
#include "weft/Dialect/Weft/IR/WeftDialect.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"
#include "weft/Pipeline/Pipeline.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::weft {
void registerTestOpContractsPass(); // TestOpContracts.cpp
} // namespace mlir::weft

int main(int argc, char **argv) {
  mlir::weft::registerDebugOptions();
  mlir::weft::registerTestOpContractsPass();
  mlir::registerTransformsPasses();
  mlir::weft::registerWeftPasses();
  mlir::weft::registerWeftToRuntimePasses();
  mlir::weft::registerWeftPipeline();
  mlir::DialectRegistry registry;
  registry.insert<mlir::weft::WeftDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect, mlir::emitc::EmitCDialect>();
  // MLIR's --inline flattens func.call between weft functions (the weft
  // dialect's inliner interface; weft-inline-calls does it in weftc).
  mlir::func::registerInlinerExtension(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "weft-opt: the weft dialect's optimizer and pass driver\n",
      registry));
}
