//===- MeshVerification.cpp - rules that need the mesh --------------------===//
//
// verifySymbolUses of every weft op: shardings against their mesh, and the
// shapes of collectives against the size of their axis group.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/Limits.h"
#include "weft/Dialect/Weft/IR/MeshUtils.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::weft;

FailureOr<MeshOp> mlir::weft::lookupMesh(Operation *from, FlatSymbolRefAttr ref,
                                         SymbolTableCollection &tables) {
  Operation *symbol = tables.lookupNearestSymbolFrom(from, ref.getAttr());
  auto mesh = dyn_cast_or_null<MeshOp>(symbol);
  if (!mesh) {
    from->emitOpError() << "refers to mesh " << ref
                        << (symbol ? ", which is not a weft.mesh"
                                   : ", which is not defined (declare it "
                                     "with weft.mesh)");
    return failure();
  }
  return mesh;
}

static std::string quotedAxes(MeshOp mesh) {
  SmallVector<std::string> names;
  for (Attribute a : mesh.getAxisNames())
    names.push_back(("\"" + cast<StringAttr>(a).getValue() + "\"").str());
  return llvm::join(names, ", ");
}

FailureOr<int64_t> mlir::weft::getGroupSize(Operation *op, MeshOp mesh,
                                            ArrayRef<StringRef> axes) {
  SmallVector<int64_t> sizes;
  for (StringRef axis : axes) {
    std::optional<int64_t> size = mesh.getAxisSize(axis);
    if (!size) {
      op->emitOpError() << "names axis \"" << axis << "\", which mesh @"
                        << mesh.getSymName()
                        << " does not have (its axes: " << quotedAxes(mesh)
                        << ")";
      return failure();
    }
    sizes.push_back(*size);
  }
  // Bounded even when the mesh itself failed to verify.
  std::optional<int64_t> product = boundedProduct(sizes, kMaxDevices);
  if (!product || *product < 1) {
    op->emitOpError() << "axes \"" << llvm::join(axes, "\", \"")
                      << "\" span more than " << kMaxDevices << " devices";
    return failure();
  }
  return *product;
}

LogicalResult mlir::weft::verifyShardingAgainstMesh(
    Operation *op, Type type, const Twine &what, SymbolTableCollection &tables,
    bool evenly) {
  ShardingAttr sharding = getSharding(type);
  if (!sharding)
    return success();
  FailureOr<MeshOp> mesh = lookupMesh(op, sharding.getMesh(), tables);
  if (failed(mesh))
    return failure();
  // A dimension its axes do not divide is fine in the global view:
  // --weft-pad-uneven pads it before --weft-partition (which checks).
  auto tensor = cast<RankedTensorType>(type);
  for (unsigned d = 0; d < sharding.getRank(); ++d) {
    SmallVector<StringRef> axes = sharding.getDimAxes(d);
    FailureOr<int64_t> k = getGroupSize(op, *mesh, axes);
    if (failed(k))
      return failure();
    int64_t size = tensor.getDimSize(d);
    if (evenly && size % *k != 0)
      return op->emitOpError()
             << "dimension #" << d << " of " << what << " has size " << size
             << ", which is not divisible by " << *k << " (the product of axes "
             << "\"" << llvm::join(axes, "\", \"")
             << "\"): a partitioned program's global types are padded to "
                "their axes (--weft-pad-uneven)";
  }
  if (failed(getGroupSize(op, *mesh, sharding.getPartialAxisNames())))
    return failure();
  return success();
}

LogicalResult mlir::weft::verifyTensorSize(Operation *op, Type type,
                                           const Twine &what) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return success();
  for (auto [d, size] : llvm::enumerate(tensor.getShape()))
    if (size < 1)
      return op->emitOpError()
             << "dimension #" << d << " of " << what << " has size " << size
             << "; weft tensors have sizes of at least 1";
  if (!boundedProduct(tensor.getShape(), kMaxElements))
    return op->emitOpError()
           << what << " " << type << " has more than " << kMaxElements
           << " elements; Weft supports at most that many";
  return success();
}

/// Sizes and shardings of every operand and result type.
static LogicalResult verifyTypes(Operation *op, SymbolTableCollection &tables) {
  for (auto [i, type] : llvm::enumerate(op->getOperandTypes()))
    if (failed(verifyTensorSize(op, type, "operand #" + Twine(i))) ||
        failed(verifyShardingAgainstMesh(op, type, "operand #" + Twine(i),
                                         tables)))
      return failure();
  for (Type type : op->getResultTypes())
    if (failed(verifyTensorSize(op, type, "the result")) ||
        failed(verifyShardingAgainstMesh(op, type, "the result", tables)))
      return failure();
  return success();
}

LogicalResult mlir::weft::verifySignature(func::FuncOp func,
                                          SymbolTableCollection &tables) {
  auto check = [&](Type type, TypeAttr global, const Twine &what) {
    if (failed(verifyTensorSize(func, type, what)) ||
        failed(verifyShardingAgainstMesh(func, type, what, tables)))
      return failure();
    if (global && (failed(verifyTensorSize(func, global.getValue(),
                                           "the global type of " + what)) ||
                   failed(verifyShardingAgainstMesh(
                       func, global.getValue(), "the global type of " + what,
                       tables, /*evenly=*/true))))
      return failure();
    return success();
  };
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
    if (failed(check(type, getArgGlobalType(func, i), "argument #" + Twine(i))))
      return failure();
  for (auto [i, type] : llvm::enumerate(func.getResultTypes()))
    if (failed(
            check(type, getResultGlobalType(func, i), "result #" + Twine(i))))
      return failure();
  return success();
}

LogicalResult mlir::weft::verifyTypeSymbolUses(Operation *op,
                                               SymbolTableCollection &tables) {
  return verifyTypes(op, tables);
}

#define WEFT_VERIFY_TYPES(OP)                                                  \
  LogicalResult OP::verifySymbolUses(SymbolTableCollection &tables) {          \
    return verifyTypes(*this, tables);                                         \
  }
WEFT_VERIFY_TYPES(EinsumOp)
WEFT_VERIFY_TYPES(MapOp)
WEFT_VERIFY_TYPES(ReduceOp)
WEFT_VERIFY_TYPES(ShardOp)
WEFT_VERIFY_TYPES(ConstantOp)
WEFT_VERIFY_TYPES(CumsumOp)
WEFT_VERIFY_TYPES(TopKOp)
WEFT_VERIFY_TYPES(ReshapeOp)
WEFT_VERIFY_TYPES(SliceOp)
WEFT_VERIFY_TYPES(ConcatOp)
WEFT_VERIFY_TYPES(FusedMapOp)
WEFT_VERIFY_TYPES(FusedRowsOp)
WEFT_VERIFY_TYPES(FusedEinsumOp)
WEFT_VERIFY_TYPES(WaitOp)
#undef WEFT_VERIFY_TYPES

/// Looks up the mesh and axes of a collective and returns the group size.
static FailureOr<int64_t> verifyGroup(Operation *op, FlatSymbolRefAttr meshRef,
                                      ArrayAttr axes,
                                      SymbolTableCollection &tables) {
  if (failed(verifyTypes(op, tables)))
    return failure();
  FailureOr<MeshOp> mesh = lookupMesh(op, meshRef, tables);
  if (failed(mesh))
    return failure();
  SmallVector<StringRef> names;
  for (Attribute a : axes)
    names.push_back(cast<StringAttr>(a).getValue());
  return getGroupSize(op, *mesh, names);
}

/// Checks `out.shape == in.shape` except on `dims`: `{d, true}` means
/// `out[d] = in[d] * p`, `{d, false}` means `out[d] = in[d] / p` (in[d] must be
/// divisible by p).
static LogicalResult
verifyScaledShape(Operation *op, int64_t p,
                  ArrayRef<std::pair<int64_t, bool>> dims) {
  auto in = cast<RankedTensorType>(op->getOperand(0).getType());
  auto out = cast<RankedTensorType>(op->getResult(0).getType());
  for (int64_t d = 0; d < in.getRank(); ++d) {
    int64_t expected = in.getDimSize(d);
    for (auto [dim, multiply] : dims) {
      if (dim != d)
        continue;
      if (!multiply && expected % p != 0)
        return op->emitOpError()
               << "dimension " << d << " has size " << expected
               << ", which is not divisible by the group size " << p;
      expected = multiply ? expected * p : expected / p;
    }
    if (out.getDimSize(d) != expected)
      return op->emitOpError()
             << "result dimension " << d << " should have size " << expected
             << " (group size " << p << "), got " << out.getDimSize(d);
  }
  return success();
}

/// A block-indexed op's types, and its block axes in the local view.
static LogicalResult verifyBlock(BlockIndexedOpInterface op,
                                 SymbolTableCollection &tables) {
  if (failed(verifyTypes(op, tables)))
    return failure();
  if (!op.getLocalBlockMesh())
    return success();
  return verifyGroup(op, op.getLocalBlockMesh(), op.getLocalBlockAxes(),
                     tables);
}

#define WEFT_VERIFY_BLOCK(OP)                                                  \
  LogicalResult OP::verifySymbolUses(SymbolTableCollection &tables) {          \
    return verifyBlock(*this, tables);                                         \
  }
WEFT_VERIFY_BLOCK(EmbedOp)
WEFT_VERIFY_BLOCK(ScatterAddOp)
WEFT_VERIFY_BLOCK(OneHotOp)
WEFT_VERIFY_BLOCK(IotaOp)
#undef WEFT_VERIFY_BLOCK

/// A local op with per-dimension block axes (weft.random, weft.pad_fill):
/// the axes are known to the mesh and each used once; returns the global
/// size of every dimension (local size times its group).
static FailureOr<SmallVector<int64_t>>
verifyDimBlocks(Operation *op, FlatSymbolRefAttr meshRef,
                function_ref<SmallVector<StringRef>(unsigned)> dimAxes,
                SymbolTableCollection &tables) {
  if (failed(verifyTypes(op, tables)))
    return failure();
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<int64_t> global(type.getShape());
  if (!meshRef)
    return global;
  FailureOr<MeshOp> mesh = lookupMesh(op, meshRef, tables);
  if (failed(mesh))
    return failure();
  llvm::StringSet<> seen;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    SmallVector<StringRef> axes = dimAxes(d);
    for (StringRef a : axes)
      if (!seen.insert(a).second)
        return op->emitOpError()
               << "splits two dimensions over axis \"" << a << "\"";
    FailureOr<int64_t> p = getGroupSize(op, *mesh, axes);
    if (failed(p))
      return failure();
    global[d] *= *p; // Both bounded by kMaxElements: no overflow.
  }
  return global;
}

/// A local random op: the global size of every dimension within a counter
/// word.
LogicalResult RandomOp::verifySymbolUses(SymbolTableCollection &tables) {
  FailureOr<SmallVector<int64_t>> global = verifyDimBlocks(
      *this, getMeshAttr(), [&](unsigned d) { return getDimAxes(d); }, tables);
  if (failed(global))
    return failure();
  for (auto [d, size] : llvm::enumerate(*global))
    if (size > (int64_t(1) << 32))
      return emitOpError() << "dimension " << d << " spans " << size
                           << " global indices: a counter word indexes at "
                              "most 2^32";
  return success();
}

/// A local pad_fill: every valid size within its dimension's global size.
LogicalResult PadFillOp::verifySymbolUses(SymbolTableCollection &tables) {
  FailureOr<SmallVector<int64_t>> global = verifyDimBlocks(
      *this, getMeshAttr(), [&](unsigned d) { return getDimAxes(d); }, tables);
  if (failed(global))
    return failure();
  for (auto [d, size] : llvm::enumerate(*global))
    if (getValid()[d] > size)
      return emitOpError() << "valid size " << getValid()[d] << " of dimension "
                           << d << " exceeds its global size " << size;
  return success();
}

LogicalResult AllReduceOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyGroup(*this, getMeshAttr(), getAxes(), tables);
}

LogicalResult AllGatherOp::verifySymbolUses(SymbolTableCollection &tables) {
  FailureOr<int64_t> p = verifyGroup(*this, getMeshAttr(), getAxes(), tables);
  if (failed(p))
    return failure();
  return verifyScaledShape(*this, *p, {{getDim(), true}});
}

LogicalResult ReduceScatterOp::verifySymbolUses(SymbolTableCollection &tables) {
  FailureOr<int64_t> p = verifyGroup(*this, getMeshAttr(), getAxes(), tables);
  if (failed(p))
    return failure();
  return verifyScaledShape(*this, *p, {{getDim(), false}});
}

LogicalResult AllToAllOp::verifySymbolUses(SymbolTableCollection &tables) {
  FailureOr<int64_t> p = verifyGroup(*this, getMeshAttr(), getAxes(), tables);
  if (failed(p))
    return failure();
  return verifyScaledShape(*this, *p,
                           {{getSplitDim(), false}, {getConcatDim(), true}});
}

LogicalResult SliceShardOp::verifySymbolUses(SymbolTableCollection &tables) {
  FailureOr<int64_t> p = verifyGroup(*this, getMeshAttr(), getAxes(), tables);
  if (failed(p))
    return failure();
  return verifyScaledShape(*this, *p, {{getDim(), false}});
}

//===----------------------------------------------------------------------===//
// Root collectives
//===----------------------------------------------------------------------===//

/// The group of a root collective, with its root inside it; returns the
/// group size.
static FailureOr<int64_t> verifyRootGroup(Operation *op,
                                          FlatSymbolRefAttr meshRef,
                                          ArrayAttr axes, int64_t root,
                                          SymbolTableCollection &tables) {
  FailureOr<int64_t> p = verifyGroup(op, meshRef, axes, tables);
  if (failed(p))
    return failure();
  if (root >= *p)
    return op->emitOpError() << "root " << root << " is outside the group of "
                             << *p << " rank(s) over " << axes;
  return p;
}

LogicalResult BroadcastOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyRootGroup(*this, getMeshAttr(), getAxes(),
                         getRootAttr().getInt(), tables);
}

LogicalResult ReduceToOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyRootGroup(*this, getMeshAttr(), getAxes(),
                         getRootAttr().getInt(), tables);
}

LogicalResult GatherToOp::verifySymbolUses(SymbolTableCollection &tables) {
  FailureOr<int64_t> p = verifyRootGroup(*this, getMeshAttr(), getAxes(),
                                         getRootAttr().getInt(), tables);
  if (failed(p))
    return failure();
  return verifyScaledShape(*this, *p, {{getDim(), true}});
}

LogicalResult ScatterFromOp::verifySymbolUses(SymbolTableCollection &tables) {
  FailureOr<int64_t> p = verifyRootGroup(*this, getMeshAttr(), getAxes(),
                                         getRootAttr().getInt(), tables);
  if (failed(p))
    return failure();
  return verifyScaledShape(*this, *p, {{getDim(), false}});
}

/// Every position of the pairs inside the group.
LogicalResult
CollectivePermuteOp::verifySymbolUses(SymbolTableCollection &tables) {
  FailureOr<int64_t> p = verifyGroup(*this, getMeshAttr(), getAxes(), tables);
  if (failed(p))
    return failure();
  for (auto [s, t] : getPairList())
    if (s >= *p || t >= *p)
      return emitOpError() << "pair [" << s << ", " << t
                           << "] is outside the group of " << *p
                           << " rank(s) over " << getAxes();
  return success();
}
