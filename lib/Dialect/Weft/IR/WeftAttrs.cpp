//===- WeftAttrs.cpp - #weft.sharding -------------------------------------===//

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

static ArrayAttr axisArray(MLIRContext *ctx, ArrayRef<StringRef> axes) {
  SmallVector<Attribute> attrs;
  for (StringRef axis : axes)
    attrs.push_back(StringAttr::get(ctx, axis));
  return ArrayAttr::get(ctx, attrs);
}

ShardingAttr ShardingAttr::get(FlatSymbolRefAttr mesh,
                               ArrayRef<SmallVector<StringRef>> dims,
                               ReductionKind partialKind,
                               ArrayRef<StringRef> partialAxes) {
  MLIRContext *ctx = mesh.getContext();
  SmallVector<Attribute> dimAttrs;
  for (const SmallVector<StringRef> &axes : dims)
    dimAttrs.push_back(axisArray(ctx, axes));
  return get(ctx, mesh, ArrayAttr::get(ctx, dimAttrs), partialKind,
             axisArray(ctx, partialAxes));
}

static SmallVector<StringRef> axisNames(ArrayAttr axes) {
  SmallVector<StringRef> names;
  for (Attribute a : axes)
    names.push_back(cast<StringAttr>(a).getValue());
  return names;
}

SmallVector<StringRef> ShardingAttr::getDimAxes(unsigned dim) const {
  return axisNames(cast<ArrayAttr>(getDims()[dim]));
}

SmallVector<StringRef> ShardingAttr::getPartialAxisNames() const {
  return axisNames(getPartialAxes());
}

bool ShardingAttr::isReplicated() const {
  if (isPartial())
    return false;
  return llvm::all_of(getDims(), [](Attribute d) {
    return cast<ArrayAttr>(d).empty();
  });
}

//===----------------------------------------------------------------------===//
// Syntax: <@mesh, [{"a"}, {}, {"b", "c"}], partial = sum {"d"}>
//===----------------------------------------------------------------------===//

/// Parses `{"a", "b"}` into an array of string attributes.
static ParseResult parseAxisList(AsmParser &p, ArrayAttr &result) {
  SmallVector<Attribute> axes;
  if (p.parseCommaSeparatedList(AsmParser::Delimiter::Braces, [&] {
        std::string name;
        if (p.parseString(&name))
          return failure();
        axes.push_back(StringAttr::get(p.getContext(), name));
        return success();
      }))
    return failure();
  result = ArrayAttr::get(p.getContext(), axes);
  return success();
}

static void printAxisList(AsmPrinter &p, ArrayAttr axes) {
  p << "{";
  llvm::interleaveComma(axes, p, [&](Attribute a) {
    p.printString(cast<StringAttr>(a).getValue());
  });
  p << "}";
}

Attribute ShardingAttr::parse(AsmParser &p, Type) {
  MLIRContext *ctx = p.getContext();
  StringAttr meshName;
  if (p.parseLess())
    return {};
  if (p.parseSymbolName(meshName))
    return {};
  SmallVector<Attribute> dims;
  if (p.parseComma() ||
      p.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        ArrayAttr axes;
        if (parseAxisList(p, axes))
          return failure();
        dims.push_back(axes);
        return success();
      }))
    return {};
  ReductionKind kind = ReductionKind::Sum;
  ArrayAttr partialAxes = ArrayAttr::get(ctx, {});
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
  return p.getChecked<ShardingAttr>(ctx, FlatSymbolRefAttr::get(meshName),
                                    ArrayAttr::get(ctx, dims), kind,
                                    partialAxes);
}

void ShardingAttr::print(AsmPrinter &p) const {
  p << "<";
  p.printSymbolName(getMesh().getValue());
  p << ", [";
  llvm::interleaveComma(getDims(), p, [&](Attribute d) {
    printAxisList(p, cast<ArrayAttr>(d));
  });
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

LogicalResult
ShardingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                     FlatSymbolRefAttr mesh, ArrayAttr dims,
                     ReductionKind partialKind, ArrayAttr partialAxes) {
  if (!mesh)
    return emitError() << "sharding needs a mesh symbol";
  llvm::StringSet<> seen;
  auto checkAxis = [&](Attribute a, const Twine &where) -> LogicalResult {
    auto name = dyn_cast<StringAttr>(a);
    if (!name)
      return emitError() << "mesh axes are strings, got " << a << " in "
                         << where;
    if (name.getValue().empty())
      return emitError() << "empty mesh axis name in " << where;
    if (!seen.insert(name.getValue()).second)
      return emitError() << "mesh axis \"" << name.getValue()
                         << "\" is used more than once in the sharding";
    return success();
  };
  for (auto [i, d] : llvm::enumerate(dims)) {
    auto axes = dyn_cast<ArrayAttr>(d);
    if (!axes)
      return emitError() << "dimension #" << i << " needs a list of axes";
    for (Attribute a : axes)
      if (failed(checkAxis(a, "dimension #" + Twine(i))))
        return failure();
  }
  for (Attribute a : partialAxes)
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
