//===- weft-translate.cpp - weft's translations ---------------------------===//
//
// mlir-translate with weft's translations: `--weft-to-json` writes the
// global-view graph the numpy evaluator runs (docs/testing.md).
//
//===----------------------------------------------------------------------===//

#include "weft/Target/Json/ExportJson.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  mlir::weft::registerToJsonTranslation();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "weft translation driver\n"));
}
