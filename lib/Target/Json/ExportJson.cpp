//===- ExportJson.cpp - the weft-to-json translation ----------------------===//
//
// Writes every function of a global-view program as a JSON graph: its
// inputs, its ops in program order and its outputs. An op is written
// generically from its inherent attributes (JsonExportOpInterface); the
// translation names no op. The graph is what the
// independent numpy evaluator of the end-to-end tests (test/numpy) runs; it
// carries the semantics only (kinds, specs, scalars, shapes, dtypes), plus
// the shardings as informative strings that evaluators ignore.
//
//===----------------------------------------------------------------------===//

#include "weft/Target/Json/ExportJson.h"

#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/MeshLayout.h"
#include "weft/Dialect/Weft/IR/WeftAttrs.h"
#include "weft/Dialect/Weft/IR/WeftDialect.h"
#include "weft/Dialect/Weft/IR/WeftOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cmath>

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

/// A float as JSON: JSON has no infinities, so non-finite values are
/// "inf", "-inf" and "nan" (Python's float() reads them).
json::Value floatValue(double v) {
  if (std::isfinite(v))
    return v;
  return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
}

/// The JSON of an attribute value (an enum is the op's to name:
/// getJsonEnumName), or std::nullopt for a kind the format has no field
/// for.
std::optional<json::Value> attrValue(Attribute a) {
  if (auto s = dyn_cast<StringAttr>(a))
    return json::Value(s.getValue());
  if (auto i = dyn_cast<IntegerAttr>(a))
    return json::Value(i.getInt());
  if (auto f = dyn_cast<FloatAttr>(a))
    return floatValue(f.getValueAsDouble());
  if (isa<UnitAttr>(a))
    return json::Value(true);
  if (auto v = dyn_cast<DenseI64ArrayAttr>(a))
    return json::Value(json::Array(v.asArrayRef()));
  return std::nullopt;
}

/// The names of the ops the format has, for the error on any other.
std::string exportedOpNames(MLIRContext *ctx) {
  SmallVector<std::string> names;
  for (RegisteredOperationName name : ctx->getRegisteredOperations())
    if (name.getDialectNamespace() == WeftDialect::getDialectNamespace() &&
        name.hasInterface<JsonExportOpInterface>())
      names.push_back(name.stripDialect().str());
  llvm::sort(names);
  std::string text;
  for (auto [i, n] : llvm::enumerate(names))
    text += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + n;
  return text;
}

/// `kind` and one field per inherent attribute of `op`
/// (JsonExportOpInterface), or failure (diagnosed).
LogicalResult exportAttributes(Operation &op, json::Object &o) {
  auto exported = dyn_cast<JsonExportOpInterface>(op);
  if (!exported)
    return op.emitError("weft-to-json: '")
           << op.getName() << "' is not a global-view op (export "
           << exportedOpNames(op.getContext()) << " only)";
  if (isLocalViewOp(&op))
    return op.emitError("weft-to-json: a local-view '")
           << op.getName()
           << "' (with a block of a mesh) is not part of "
              "a global program";
  o["kind"] = op.getName().stripDialect();
  for (StringAttr name : op.getName().getAttributeNames()) {
    std::optional<Attribute> attr = op.getInherentAttr(name.getValue());
    StringRef field = exported.getJsonField(name.getValue());
    if (!attr || !*attr) {
      if (exported.isJsonFlag(name.getValue()))
        o[field] = false;
      continue;
    }
    if (std::optional<std::string> enumName =
            exported.getJsonEnumName(name.getValue())) {
      o[field] = std::move(*enumName);
      continue;
    }
    std::optional<json::Value> value = attrValue(*attr);
    if (!value)
      return op.emitError("weft-to-json: '")
             << op.getName() << "' has attribute '" << name.getValue() << "' ("
             << *attr << "), which the JSON format cannot hold";
    o[field] = std::move(*value);
  }
  return success();
}

/// The JSON of one function, or failure (diagnosed) if it is not a
/// global-view function of the exported ops.
FailureOr<json::Object> exportFunc(func::FuncOp func) {
  if (func.isExternal())
    return func.emitError("weft-to-json: external function @")
           << func.getSymName() << " has no body";
  if (!func.getBody().hasOneBlock())
    return func.emitError("weft-to-json: @")
           << func.getSymName() << " has more than one block";
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (getArgGlobalType(func, i))
      return func.emitError("weft-to-json: @")
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
    if (isa<func::CallOp>(op))
      return op.emitError("weft-to-json: a call; flatten the layer calls "
                          "first (weft-opt --weft-inline-calls)");
    json::Object o;
    if (failed(exportAttributes(op, o)))
      return failure();
    json::Array operands;
    for (Value v : op.getOperands()) {
      if (!ids.count(v))
        return op.emitError("weft-to-json: operand defined outside the "
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
      o["loc"] = llvm::formatv("{0}:{1}:{2}", loc.getFilename(), loc.getLine(),
                               loc.getColumn())
                     .str();
    ops.push_back(std::move(o));
  }
  return json::Object{{"name", func.getSymName()},
                      {"inputs", std::move(inputs)},
                      {"ops", std::move(ops)},
                      {"outputs", std::move(outputs)}};
}

} // namespace

LogicalResult mlir::weft::exportJson(ModuleOp module, raw_ostream &os) {
  json::Array meshes, funcs;
  for (const Mesh &mesh : getModuleMeshes(module)) {
    json::Array axes;
    for (auto [name, size] :
         llvm::zip(mesh.getAxisNames(), mesh.getAxisSizes()))
      axes.push_back(json::Object{{"name", name}, {"size", size}});
    meshes.push_back(json::Object{{"name", mesh.getRef().getValue()},
                                  {"axes", std::move(axes)}});
  }
  for (func::FuncOp func : module.getOps<func::FuncOp>()) {
    FailureOr<json::Object> f = exportFunc(func);
    if (failed(f))
      return failure();
    funcs.push_back(std::move(*f));
  }
  json::Object root{{"format", "weft-graph"},
                    {"version", 1},
                    {"meshes", std::move(meshes)},
                    {"functions", std::move(funcs)}};
  os << llvm::formatv("{0:2}", json::Value(std::move(root))) << "\n";
  return success();
}

void mlir::weft::registerToJsonTranslation() {
  TranslateFromMLIRRegistration registration(
      "weft-to-json",
      "Write the global-view graph of every function as JSON (the numpy "
      "evaluator's input, docs/testing.md)",
      [](Operation *op, raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<ModuleOp>(op);
        if (!module)
          return op->emitError("weft-to-json: expected a builtin.module");
        return exportJson(module, os);
      },
      [](DialectRegistry &registry) {
        registry.insert<WeftDialect, func::FuncDialect>();
      });
}
