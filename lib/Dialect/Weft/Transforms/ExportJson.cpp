//===- ExportJson.cpp - the weft-export-json pass -------------------------===//
//
// Writes every function of a global-view program as a JSON graph: its
// inputs, its ops in program order and its outputs. The graph is what the
// independent numpy evaluator of the end-to-end tests (test/numpy) runs; it
// carries the semantics only (kinds, specs, scalars, shapes, dtypes), plus
// the shardings as informative strings that evaluators ignore.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/WeftAttrs.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cmath>
#include "llvm/Support/ToolOutputFile.h"

namespace mlir::weft {
#define GEN_PASS_DEF_WEFTEXPORTJSON
#include "weft/Dialect/Weft/Transforms/Passes.h.inc"
} // namespace mlir::weft

using namespace mlir;
using namespace mlir::weft;
namespace json = llvm::json;

namespace {


std::string printed(function_ref<void(raw_ostream &)> print) {
  std::string s;
  llvm::raw_string_ostream os(s);
  print(os);
  return s;
}

/// "f32", "f64", "f16", "bf16", "i32", or the printed type.
std::string dtypeName(Type t) {
  if (t.isF32())
    return "f32";
  if (t.isF64())
    return "f64";
  if (t.isF16())
    return "f16";
  if (t.isBF16())
    return "bf16";
  if (t.isInteger(32))
    return "i32";
  return printed([&](raw_ostream &os) { t.print(os); });
}

/// shape, dtype and (if any) sharding of a tensor value.
void describeType(json::Object &o, Type type) {
  auto t = cast<RankedTensorType>(type);
  o["shape"] = json::Array(t.getShape());
  o["dtype"] = dtypeName(t.getElementType());
  if (auto enc = t.getEncoding())
    o["sharding"] = printed([&](raw_ostream &os) { enc.print(os); });
}

struct WeftExportJsonPass
    : public weft::impl::WeftExportJsonBase<WeftExportJsonPass> {
  using WeftExportJsonBase::WeftExportJsonBase;

  /// The JSON of one function, or failure (diagnosed) if it is not a
  /// global-view function of the exported ops.
  FailureOr<json::Object> exportFunc(func::FuncOp func) {
    if (func.isExternal())
      return func.emitError("weft-export-json: external function @")
             << func.getSymName() << " has no body";
    if (!func.getBody().hasOneBlock())
      return func.emitError("weft-export-json: @")
             << func.getSymName() << " has more than one block";
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      if (getArgGlobalType(func, i))
        return func.emitError("weft-export-json: @")
               << func.getSymName()
               << " is a local view (weft.global_type); export the global "
                  "program";

    AsmState asmState(func);
    auto ssa = [&](Value v) {
      return printed([&](raw_ostream &os) { v.printAsOperand(os, asmState); });
    };
    DenseMap<Value, int64_t> ids;
    int64_t next = 0;
    auto idOf = [&](Value v) -> json::Value { return ids.lookup(v); };

    json::Array inputs;
    Block &body = func.getBody().front();
    for (BlockArgument arg : body.getArguments()) {
      int64_t id = next++;
      ids[arg] = id;
      std::string name = getArgNameOr(func, arg.getArgNumber());
      json::Object o{{"id", id}, {"name", name}, {"ssa", ssa(arg)}};
      describeType(o, arg.getType());
      inputs.push_back(std::move(o));
    }

    json::Array ops, outputs;
    for (Operation &op : body) {
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
          std::string name;
          if (auto n = getResultName(func, i))
            name = n.getValue().str();
          else
            name = "result" + std::to_string(i);
          json::Object o{{"id", idOf(v)}, {"name", name}};
          describeType(o, func.getResultTypes()[i]);
          outputs.push_back(std::move(o));
        }
        continue;
      }
      json::Object o;
      if (auto e = dyn_cast<EinsumOp>(op)) {
        o["kind"] = "einsum";
        o["spec"] = e.getSpec();
      } else if (auto m = dyn_cast<MapOp>(op)) {
        o["kind"] = "map";
        o["map"] = stringifyMapKind(m.getKind());
        o["spec"] = m.getSpec();
        if (auto s = m.getScalar())
          o["scalar"] = s->convertToDouble();
      } else if (auto r = dyn_cast<ReduceOp>(op)) {
        o["kind"] = "reduce";
        o["reduce"] = stringifyReductionKind(r.getKind());
        o["spec"] = r.getSpec();
      } else if (auto block = dyn_cast<BlockIndexedOpInterface>(op);
                 block && block.getLocalBlockMesh()) {
        return op.emitError("weft-export-json: a local-view '")
               << op.getName() << "' (with a block of a mesh) is not part of "
                                  "a global program";
      } else if (auto e = dyn_cast<EmbedOp>(op)) {
        o["kind"] = "embed";
        o["spec"] = e.getSpec();
      } else if (auto s = dyn_cast<ScatterAddOp>(op)) {
        o["kind"] = "scatter_add";
        o["spec"] = s.getSpec();
      } else if (auto h = dyn_cast<OneHotOp>(op)) {
        o["kind"] = "one_hot";
        o["spec"] = h.getSpec();
      } else if (isa<IotaOp>(op)) {
        o["kind"] = "iota";
      } else if (auto r = dyn_cast<RandomOp>(op)) {
        if (r.getMeshAttr())
          return op.emitError("weft-export-json: a local-view 'weft.random' "
                              "(with a block of a mesh) is not part of a "
                              "global program");
        o["kind"] = "random";
        o["dist"] = stringifyRandomKind(r.getKind());
        o["seed"] = r.getSeed();
      } else if (auto sl = dyn_cast<SliceOp>(op)) {
        o["kind"] = "slice";
        o["dim"] = sl.getDim();
        o["start"] = sl.getStart();
      } else if (auto c = dyn_cast<ConcatOp>(op)) {
        o["kind"] = "concat";
        o["dim"] = c.getDim();
      } else if (auto r = dyn_cast<ReshapeOp>(op)) {
        o["kind"] = "reshape";
        o["spec"] = r.getSpec();
      } else if (auto t = dyn_cast<TopKOp>(op)) {
        o["kind"] = "top_k";
        o["dim"] = t.getDim();
        o["k"] = t.getK();
      } else if (auto c = dyn_cast<CumsumOp>(op)) {
        o["kind"] = "cumsum";
        o["dim"] = c.getDim();
        o["exclusive"] = c.getExclusive();
        o["reverse"] = c.getReverse();
      } else if (auto p = dyn_cast<PadFillOp>(op)) {
        if (p.getMeshAttr())
          return op.emitError("weft-export-json: a local-view "
                              "'weft.pad_fill' (with a block of a mesh) is "
                              "not part of a global program");
        o["kind"] = "pad_fill";
        json::Array valid;
        for (int64_t v : p.getValid())
          valid.push_back(v);
        o["valid"] = std::move(valid);
        // JSON has no infinities: non-finite fills as "inf", "-inf", "nan"
        // (Python's float() reads them).
        double fill = p.getFill().convertToDouble();
        if (std::isfinite(fill))
          o["fill"] = fill;
        else
          o["fill"] = std::isnan(fill) ? "nan" : fill > 0 ? "inf" : "-inf";
      } else if (auto c = dyn_cast<ConstantOp>(op)) {
        o["kind"] = "constant";
        o["value"] = c.getValue().convertToDouble();
      } else if (isa<ShardOp>(op)) {
        o["kind"] = "shard";
      } else {
        return op.emitError("weft-export-json: '")
               << op.getName()
               << "' is not a global-view op (export einsum, map, reduce, "
                  "embed, scatter_add, one_hot, iota, random, cumsum, "
                  "slice, concat, top_k, reshape, pad_fill, constant and "
                  "shard only)";
      }
      json::Array operands;
      for (Value v : op.getOperands()) {
        if (!ids.count(v))
          return op.emitError("weft-export-json: operand defined outside the "
                              "function body");
        operands.push_back(idOf(v));
      }
      o["operands"] = std::move(operands);
      Value result = op.getResult(0);
      int64_t id = next++;
      ids[result] = id;
      o["result"] = id;
      o["ssa"] = ssa(result);
      describeType(o, result.getType());
      if (auto loc = dyn_cast<FileLineColLoc>(op.getLoc()))
        o["loc"] = llvm::formatv("{0}:{1}:{2}", loc.getFilename(),
                                 loc.getLine(), loc.getColumn())
                       .str();
      ops.push_back(std::move(o));
    }
    return json::Object{{"name", func.getSymName()},
                        {"inputs", std::move(inputs)},
                        {"ops", std::move(ops)},
                        {"outputs", std::move(outputs)}};
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    json::Array meshes, funcs;
    for (MeshOp mesh : module.getOps<MeshOp>()) {
      json::Array axes;
      for (auto [name, size] :
           llvm::zip(mesh.getAxisNames(), mesh.getAxisSizes()))
        axes.push_back(json::Object{
            {"name", cast<StringAttr>(name).getValue()}, {"size", size}});
      meshes.push_back(
          json::Object{{"name", mesh.getSymName()}, {"axes", std::move(axes)}});
    }
    for (func::FuncOp func : module.getOps<func::FuncOp>()) {
      FailureOr<json::Object> f = exportFunc(func);
      if (failed(f))
        return signalPassFailure();
      funcs.push_back(std::move(*f));
    }

    std::string error;
    auto file = openOutputFile(output, &error);
    if (!file) {
      module.emitError() << "weft-export-json: cannot write '" << output
                         << "': " << error;
      return signalPassFailure();
    }
    json::Object root{{"format", "weft-graph"},
                      {"version", 1},
                      {"meshes", std::move(meshes)},
                      {"functions", std::move(funcs)}};
    file->os() << llvm::formatv("{0:2}", json::Value(std::move(root))) << "\n";
    file->keep();
    markAllAnalysesPreserved();
  }
};

} // namespace
