//===- WeftAttrs.cpp - #weft.sharding and #weft.axes ----------------------===//

#include "weft/Dialect/Weft/IR/WeftAttrs.h"
#include "weft/Dialect/Weft/IR/WeftDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::weft;

#include "weft/Dialect/Weft/IR/WeftEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "weft/Dialect/Weft/IR/WeftAttrs.cpp.inc"

void WeftDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "weft/Dialect/Weft/IR/WeftAttrs.cpp.inc"
      >();
}

ShardingAttr mlir::weft::getSharding(Type type) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  return ranked ? dyn_cast_or_null<ShardingAttr>(ranked.getEncoding())
                : ShardingAttr();
}

RankedTensorType mlir::weft::withoutSharding(Type type) {
  auto t = cast<RankedTensorType>(type);
  return RankedTensorType::get(t.getShape(), t.getElementType());
}

AxisListAttr AxisListAttr::get(MLIRContext *ctx, ArrayRef<StringRef> names) {
  SmallVector<StringAttr> attrs;
  for (StringRef axis : names)
    attrs.push_back(StringAttr::get(ctx, axis));
  return get(ctx, attrs);
}

SmallVector<StringRef> AxisListAttr::getNames() const {
  SmallVector<StringRef> names;
  for (StringAttr a : getAxes())
    names.push_back(a.getValue());
  return names;
}

ShardingAttr ShardingAttr::get(FlatSymbolRefAttr mesh,
                               ArrayRef<SmallVector<StringRef>> dims,
                               ReductionKind partialKind,
                               ArrayRef<StringRef> partialAxes) {
  MLIRContext *ctx = mesh.getContext();
  SmallVector<AxisListAttr> dimAttrs;
  for (const SmallVector<StringRef> &axes : dims)
    dimAttrs.push_back(AxisListAttr::get(ctx, axes));
  return get(ctx, mesh, dimAttrs, partialKind,
             AxisListAttr::get(ctx, partialAxes));
}

SmallVector<StringRef> ShardingAttr::getDimAxes(unsigned dim) const {
  return getDims()[dim].getNames();
}

SmallVector<StringRef> ShardingAttr::getPartialAxisNames() const {
  return getPartialAxes().getNames();
}

bool ShardingAttr::isReplicated() const {
  if (isPartial())
    return false;
  return llvm::all_of(getDims(), [](AxisListAttr d) { return d.empty(); });
}

//===----------------------------------------------------------------------===//
// Syntax: <@mesh, [{"a"}, {}, {"b", "c"}], partial = sum {"d"}>
//===----------------------------------------------------------------------===//

/// Parses `{"a", "b"}`.
static ParseResult parseAxisList(AsmParser &p, AxisListAttr &result) {
  SmallVector<StringAttr> axes;
  if (p.parseCommaSeparatedList(AsmParser::Delimiter::Braces, [&] {
        std::string name;
        if (p.parseString(&name))
          return failure();
        axes.push_back(StringAttr::get(p.getContext(), name));
        return success();
      }))
    return failure();
  result = AxisListAttr::get(p.getContext(), axes);
  return success();
}

static void printAxisList(AsmPrinter &p, AxisListAttr axes) {
  p << "{";
  llvm::interleaveComma(axes.getAxes(), p,
                        [&](StringAttr a) { p.printString(a.getValue()); });
  p << "}";
}

Attribute AxisListAttr::parse(AsmParser &p, Type) {
  AxisListAttr result;
  if (p.parseLess() || parseAxisList(p, result) || p.parseGreater())
    return {};
  return result;
}

void AxisListAttr::print(AsmPrinter &p) const {
  p << "<";
  printAxisList(p, *this);
  p << ">";
}

Attribute ShardingAttr::parse(AsmParser &p, Type) {
  MLIRContext *ctx = p.getContext();
  StringAttr meshName;
  if (p.parseLess())
    return {};
  if (p.parseSymbolName(meshName))
    return {};
  SmallVector<AxisListAttr> dims;
  if (p.parseComma() ||
      p.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        AxisListAttr axes;
        if (parseAxisList(p, axes))
          return failure();
        dims.push_back(axes);
        return success();
      }))
    return {};
  ReductionKind kind = ReductionKind::Sum;
  AxisListAttr partialAxes = AxisListAttr::get(ctx, ArrayRef<StringAttr>());
  if (succeeded(p.parseOptionalComma())) {
    StringRef kindName;
    if (p.parseKeyword("partial") || p.parseEqual())
      return {};
    llvm::SMLoc kindLoc = p.getCurrentLocation();
    if (p.parseKeyword(&kindName))
      return {};
    std::optional<ReductionKind> parsed = symbolizeReductionKind(kindName);
    if (!parsed) {
      p.emitError(kindLoc, "unknown partial reduction '")
          << kindName << "' (expected sum, max or min)";
      return {};
    }
    kind = *parsed;
    if (parseAxisList(p, partialAxes))
      return {};
    if (partialAxes.empty()) {
      p.emitError(p.getCurrentLocation(),
                  "a partial sharding needs at least one axis");
      return {};
    }
  }
  if (p.parseGreater())
    return {};
  return p.getChecked<ShardingAttr>(ctx, FlatSymbolRefAttr::get(meshName), dims,
                                    kind, partialAxes);
}

void ShardingAttr::print(AsmPrinter &p) const {
  p << "<";
  p.printSymbolName(getMesh().getValue());
  p << ", [";
  llvm::interleaveComma(getDims(), p,
                        [&](AxisListAttr d) { printAxisList(p, d); });
  p << "]";
  if (isPartial()) {
    p << ", partial = " << stringifyReductionKind(getPartialKind()) << " ";
    printAxisList(p, getPartialAxes());
  }
  p << ">";
}

//===----------------------------------------------------------------------===//
// Verification that needs no mesh. Mesh-dependent rules (known axes,
// divisibility) are checked by the ops, see MeshVerification.cpp.
//===----------------------------------------------------------------------===//

LogicalResult ShardingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   FlatSymbolRefAttr mesh,
                                   ArrayRef<AxisListAttr> dims,
                                   ReductionKind partialKind,
                                   AxisListAttr partialAxes) {
  if (!mesh)
    return emitError() << "sharding needs a mesh symbol";
  if (!partialAxes || llvm::any_of(dims, [](AxisListAttr d) { return !d; }))
    return emitError() << "sharding needs an axis list per dimension";
  llvm::StringSet<> seen;
  auto checkAxis = [&](StringAttr name, const Twine &where) -> LogicalResult {
    if (!name || name.getValue().empty())
      return emitError() << "empty mesh axis name in " << where;
    if (!seen.insert(name.getValue()).second)
      return emitError() << "mesh axis \"" << name.getValue()
                         << "\" is used more than once in the sharding";
    return success();
  };
  for (auto [i, d] : llvm::enumerate(dims))
    for (StringAttr a : d.getAxes())
      if (failed(checkAxis(a, "dimension #" + Twine(i))))
        return failure();
  for (StringAttr a : partialAxes.getAxes())
    if (failed(checkAxis(a, "the partial axes")))
      return failure();
  return success();
}

LogicalResult ShardingAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type elementType,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (shape.size() != getRank())
    return emitError() << "sharding has " << getRank()
                       << " dimension lists but the tensor has rank "
                       << shape.size();
  if (llvm::any_of(shape, ShapedType::isDynamic))
    return emitError() << "sharded tensors need a static shape";
  return success();
}
