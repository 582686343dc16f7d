//===- ShowSharding.cpp - the weft-show-sharding pass ---------------------===//
//
// Which device holds which block of a function's inputs and outputs, as a
// grid per tensor (the terminal counterpart of JAX's
// jax.debug.visualize_array_sharding and of the Python front end's
// weft.visualize_sharding, whose text it matches cell for cell).
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/MeshLayout.h"
#include "weft/Dialect/Weft/IR/MeshUtils.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/ToolOutputFile.h"

#include <map>

namespace mlir::weft {
#define GEN_PASS_DEF_WEFTSHOWSHARDING
#include "weft/Dialect/Weft/Transforms/Passes.h.inc"
} // namespace mlir::weft

using namespace mlir;
using namespace mlir::weft;

namespace {

/// "device 3" or "devices 0,1".
std::string devicesStr(ArrayRef<int64_t> ranks) {
  std::string s = ranks.size() == 1 ? "device " : "devices ";
  llvm::raw_string_ostream os(s);
  llvm::interleave(ranks, os, ",");
  return s;
}

std::string rangesStr(ArrayRef<std::pair<int64_t, int64_t>> ranges) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleave(
      ranges, os, [&](auto r) { os << r.first << ":" << r.second; }, ", ");
  os << "]";
  return s;
}

/// The view of one tensor: a title line, then a grid of its blocks (rank 1
/// and 2) or one line per block.
void showTensor(llvm::raw_ostream &os, StringRef title, RankedTensorType type,
                const Mesh &mesh) {
  ShardingAttr sharding = getSharding(type);
  Layout layout = Layout::get(sharding, type.getRank());
  ArrayRef<int64_t> shape = type.getShape();
  unsigned rank = type.getRank();
  os << title << ": ";
  if (rank == 0)
    os << "scalar";
  else
    llvm::interleave(shape, os, "x");
  os << "x" << type.getElementType() << " " << layout.str(/*quoted=*/false)
     << "\n";

  // Block index per dimension of every rank; the ranks holding each block.
  SmallVector<int64_t> blocks;
  for (unsigned d = 0; d < rank; ++d)
    blocks.push_back(mesh.getGroupSize(layout.dims[d]));
  std::map<SmallVector<int64_t>, SmallVector<int64_t>> holders;
  for (int64_t r = 0; r < mesh.getNumDevices(); ++r) {
    SmallVector<int64_t> key;
    for (unsigned d = 0; d < rank; ++d)
      key.push_back(mesh.getGroupPosition(r, layout.dims[d]));
    holders[key].push_back(r);
  }
  // A block's index ranges: those of any rank holding it (Layout's
  // ceil-sized blocks, clamped: the last ones shorter or empty, as
  // weft-pad-uneven pads).
  SmallVector<int64_t> local = layout.getLocalShape(mesh, shape);
  auto ranges = [&](ArrayRef<int64_t> key) {
    SmallVector<int64_t> at = layout.getBlockOffsets(
        mesh, shape, holders[SmallVector<int64_t>(key)][0]);
    SmallVector<std::pair<int64_t, int64_t>> out;
    for (unsigned d = 0; d < rank; ++d)
      out.push_back(
          {std::min(at[d], shape[d]), std::min(at[d] + local[d], shape[d])});
    return out;
  };

  if (rank == 1 || rank == 2) {
    int64_t rows = rank == 2 ? blocks[0] : 1, cols = blocks[rank - 1];
    std::vector<std::vector<std::pair<std::string, std::string>>> cells(rows);
    size_t width = 0;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        SmallVector<int64_t> key =
            rank == 2 ? SmallVector<int64_t>{i, j} : SmallVector<int64_t>{j};
        cells[i].push_back({devicesStr(holders[key]), rangesStr(ranges(key))});
        width = std::max({width, cells[i].back().first.size(),
                          cells[i].back().second.size()});
      }
    std::string sep = "+";
    for (int64_t j = 0; j < cols; ++j)
      sep += std::string(width + 2, '-') + "+";
    os << sep << "\n";
    for (auto &row : cells) {
      for (bool second : {false, true}) {
        os << "|";
        for (auto &cell : row) {
          const std::string &text = second ? cell.second : cell.first;
          os << " " << text << std::string(width - text.size(), ' ') << " |";
        }
        os << "\n";
      }
      os << sep << "\n";
    }
  } else {
    for (auto &[key, ranks] : holders)
      os << rangesStr(ranges(key)) << ": " << devicesStr(ranks) << "\n";
  }
  if (layout.isPartial())
    os << "partial " << stringifyReductionKind(layout.partialKind) << " over "
       << axesStr(layout.partialAxes, /*quoted=*/false)
       << ": each device of a group holds one summand of its block\n";
}

struct ShowSharding : public weft::impl::WeftShowShardingBase<ShowSharding> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::StringSet<> wanted;
    for (const std::string &v : values)
      wanted.insert(v);
    llvm::StringSet<> seen;

    std::string error;
    auto file = openOutputFile(output, &error);
    if (!file) {
      mlir::emitError(module.getLoc())
          << "cannot write the sharding view: " << error;
      return signalPassFailure();
    }
    llvm::raw_ostream &os = file->os();
    bool first = true;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() || func.isPrivate())
        continue;
      SymbolTableCollection tables;
      FailureOr<MeshOp> meshOp = getFunctionMesh(func, tables);
      if (failed(meshOp))
        return signalPassFailure();
      Mesh mesh(*meshOp);
      auto show = [&](StringRef kind, StringRef name, Type type) {
        auto tensor = dyn_cast<RankedTensorType>(type);
        if (!tensor || (!wanted.empty() && !wanted.contains(name)))
          return;
        seen.insert(name);
        if (!first)
          os << "\n";
        first = false;
        std::string title =
            ("@" + func.getSymName() + " " + kind + " '" + name + "'").str();
        showTensor(os, title, tensor, mesh);
      };
      // Unnamed values are #index, as weft-comm-report names them.
      auto nameOf = [](StringAttr name, size_t i) {
        return name ? name.getValue().str() : "#" + std::to_string(i);
      };
      for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
        show("input",
             nameOf(func.getArgAttrOfType<StringAttr>(i, kNameAttr), i), type);
      for (auto [i, type] : llvm::enumerate(func.getResultTypes()))
        show("output",
             nameOf(func.getResultAttrOfType<StringAttr>(i, kNameAttr), i),
             type);
    }
    for (const std::string &v : values)
      if (!seen.contains(v)) {
        mlir::emitError(module.getLoc())
            << "weft-show-sharding: no input or output named '" << v
            << "' (names come from weft.name)";
        return signalPassFailure();
      }
    file->keep();
  }
};

} // namespace
