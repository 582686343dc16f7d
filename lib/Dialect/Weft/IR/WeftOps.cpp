//===- WeftOps.cpp - weft operations: syntax and local verifiers ----------===//
//
// Verifiers here need nothing outside the op. Rules that need the mesh
// (known axes, divisibility, collective shapes) live in MeshVerification.cpp.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/WeftOps.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/FusedSteps.h"
#include "weft/Dialect/Weft/IR/IndexSpec.h"
#include "weft/Dialect/Weft/IR/Limits.h"
#include "weft/rt/ElementPlans.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <array>
#include <cmath>

using namespace mlir;
using namespace mlir::weft;

#include "weft/Dialect/Weft/IR/WeftInterfaces.cpp.inc"

//===----------------------------------------------------------------------===//
// MeshOp
//===----------------------------------------------------------------------===//

ParseResult MeshOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr name;
  if (parser.parseSymbolName(name, getSymNameAttrName(result.name),
                             result.attributes))
    return failure();
  SmallVector<Attribute> names;
  SmallVector<int64_t> sizes;
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square, [&] {
        std::string axis;
        int64_t size;
        if (parser.parseString(&axis) || parser.parseEqual() ||
            parser.parseInteger(size))
          return failure();
        names.push_back(parser.getBuilder().getStringAttr(axis));
        sizes.push_back(size);
        return success();
      }))
    return failure();
  result.addAttribute(getAxisNamesAttrName(result.name),
                      parser.getBuilder().getArrayAttr(names));
  result.addAttribute(getAxisSizesAttrName(result.name),
                      parser.getBuilder().getDenseI64ArrayAttr(sizes));
  return parser.parseOptionalAttrDict(result.attributes);
}

void MeshOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printSymbolName(getSymName());
  p << " [";
  llvm::interleaveComma(llvm::zip(getAxisNames(), getAxisSizes()), p,
                        [&](auto pair) {
                          auto [name, size] = pair;
                          p.printString(cast<StringAttr>(name).getValue());
                          p << " = " << size;
                        });
  p << "]";
  p.printOptionalAttrDict(
      (*this)->getAttrs(),
      {getSymNameAttrName(), getAxisNamesAttrName(), getAxisSizesAttrName()});
}

LogicalResult MeshOp::verify() {
  ArrayAttr names = getAxisNames();
  ArrayRef<int64_t> sizes = getAxisSizes();
  if (names.size() != sizes.size())
    return emitOpError() << "has " << names.size() << " axis names but "
                         << sizes.size() << " sizes";
  if (names.empty())
    return emitOpError() << "needs at least one axis";
  llvm::StringSet<> seen;
  for (auto [nameAttr, size] : llvm::zip(names, sizes)) {
    StringRef name = cast<StringAttr>(nameAttr).getValue();
    if (name.empty())
      return emitOpError() << "has an axis with an empty name";
    if (!seen.insert(name).second)
      return emitOpError() << "has two axes named \"" << name << "\"";
    if (size < 1)
      return emitOpError() << "axis \"" << name << "\" has size " << size
                           << "; sizes must be at least 1";
  }
  if (!boundedProduct(sizes, kMaxDevices))
    return emitOpError() << "has more than " << kMaxDevices
                         << " devices (the product of its axis sizes); "
                            "Weft supports at most that many";
  return success();
}

int64_t MeshOp::getNumDevices() {
  int64_t n = 1;
  for (int64_t s : getAxisSizes())
    n *= s;
  return n;
}

std::optional<int64_t> MeshOp::getAxisSize(StringRef axis) {
  for (auto [name, size] : llvm::zip(getAxisNames(), getAxisSizes()))
    if (cast<StringAttr>(name).getValue() == axis)
      return size;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Index-letter ops: shared checks
//===----------------------------------------------------------------------===//

/// Parses the spec and checks it against the operand and result types: one
/// term per operand, ranks, and one size per letter.
static FailureOr<IndexSpec> verifyLetters(Operation *op, StringRef text,
                                          TypeRange inputs, Type result,
                                          bool allowBroadcast = false) {
  std::string error;
  FailureOr<IndexSpec> spec = IndexSpec::parse(text, error, allowBroadcast);
  if (failed(spec))
    return op->emitOpError()
           << "has a malformed spec \"" << text << "\": " << error;
  if (spec->inputs.size() != inputs.size())
    return op->emitOpError()
           << "spec \"" << text << "\" has " << spec->inputs.size()
           << " operand term(s) but the op has " << inputs.size()
           << " operand(s)";

  // Per letter: its size and where it was first seen (operand index, or
  // -1: the result). The texts are built only for an error: this runs for
  // every op after every pass.
  std::array<int64_t, 256> sizeOf;
  std::array<int, 256> seenIn;
  sizeOf.fill(-1);
  auto where = [](int tensor) {
    return tensor < 0 ? std::string("the result")
                      : "operand #" + std::to_string(tensor);
  };
  auto check = [&](StringRef letters, Type type, int tensor) -> LogicalResult {
    auto shaped = cast<ShapedType>(type);
    if (static_cast<int64_t>(letters.size()) != shaped.getRank())
      return op->emitOpError()
             << where(tensor) << " has rank " << shaped.getRank()
             << " but the spec names " << letters.size() << " dimension(s) (\""
             << letters << "\")";
    for (auto [i, c] : llvm::enumerate(letters)) {
      int64_t size = shaped.getDimSize(i);
      unsigned char u = static_cast<unsigned char>(c);
      if (sizeOf[u] == -1) {
        sizeOf[u] = size;
        seenIn[u] = tensor;
      } else if (sizeOf[u] != size) {
        return op->emitOpError()
               << "letter '" << c << "' has size " << sizeOf[u] << " in "
               << where(seenIn[u]) << " but size " << size << " in "
               << where(tensor);
      }
    }
    return success();
  };
  for (auto [i, type] : llvm::enumerate(inputs))
    if (failed(check(spec->inputs[i], type, static_cast<int>(i))))
      return failure();
  if (failed(check(spec->result, result, -1)))
    return failure();
  return spec;
}

/// All float operands and the result share one element type.
static LogicalResult verifySameElementType(Operation *op, TypeRange inputs,
                                           Type result) {
  Type expected = getElementTypeOrSelf(result);
  for (auto [i, type] : llvm::enumerate(inputs))
    if (getElementTypeOrSelf(type) != expected)
      return op->emitOpError() << "operand #" << i << " has element type "
                               << getElementTypeOrSelf(type)
                               << " but the result has " << expected;
  return success();
}

//===----------------------------------------------------------------------===//
// EinsumOp
//===----------------------------------------------------------------------===//

LogicalResult EinsumOp::verify() {
  if (getInputs().empty() || getInputs().size() > 2)
    return emitOpError() << "takes one or two operands, got "
                         << getInputs().size();
  if (failed(
          verifyLetters(*this, getSpec(), getInputs().getTypes(), getType())))
    return failure();
  return verifySameElementType(*this, getInputs().getTypes(), getType());
}

std::optional<ReductionKind> EinsumOp::getContractionKind() {
  return ReductionKind::Sum;
}

bool EinsumOp::acceptsPartialOperand(unsigned, ReductionKind kind) {
  return kind == ReductionKind::Sum; // Linear in each operand.
}

//===----------------------------------------------------------------------===//
// MapOp
//===----------------------------------------------------------------------===//

// One row per MapKinds.def entry, in the enum's order.
static constexpr MapKindInfo kMapKinds[] = {
#define WEFT_MAP_KIND(Enum, name, arity, scalar, zero, partial, expr)          \
  {name, #Enum, arity, scalar, MapZero::zero, MapPartial::partial},
#include "weft/rt/MapKinds.def"
};
static_assert(sizeof(kMapKinds) / sizeof(kMapKinds[0]) == kNumMapKinds,
              "one row per map kind");

const MapKindInfo &mlir::weft::getMapKindInfo(MapKind kind) {
  return kMapKinds[static_cast<int>(kind)];
}

unsigned MapOp::getArity(MapKind kind) { return getMapKindInfo(kind).arity; }

bool MapOp::takesScalar(MapKind kind) { return getMapKindInfo(kind).scalar; }

std::optional<MapKind> mlir::weft::symbolizeMapKind(StringRef name) {
  for (int i = 0; i < kNumMapKinds; ++i)
    if (name == kMapKinds[i].name)
      return static_cast<MapKind>(i);
  return std::nullopt;
}

ParseResult mlir::weft::parseMapKindName(OpAsmParser &parser,
                                         IntegerAttr &kind) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef name;
  std::optional<MapKind> k;
  if (succeeded(parser.parseOptionalKeyword(&name)))
    k = symbolizeMapKind(name);
  if (!k) {
    std::string names;
    for (int i = 0; i < kNumMapKinds; ++i)
      names += std::string(i ? ", " : "") + kMapKinds[i].name;
    InFlightDiagnostic diag = parser.emitError(loc);
    if (name.empty())
      diag << "expected a map kind";
    else
      diag << "unknown map kind '" << name << "'";
    return diag << " (one of " << names << ")";
  }
  kind = IntegerAttr::get(IntegerType::get(parser.getContext(), 32),
                          static_cast<int64_t>(*k));
  return success();
}

void mlir::weft::printMapKindName(OpAsmPrinter &printer, Operation *,
                                  IntegerAttr kind) {
  printer << stringifyMapKind(static_cast<MapKind>(kind.getInt()));
}

/// Elementwise ops: every operand letter is a result letter (`why` is
/// appended to the error).
static LogicalResult verifyNoReducedLetter(Operation *op, const IndexSpec &spec,
                                           StringRef why) {
  for (auto [i, letters] : llvm::enumerate(spec.inputs))
    for (char c : letters)
      if (!spec.inResult(c))
        return op->emitOpError() << "letter '" << c << "' of operand #" << i
                                 << " is missing from the result" << why;
  return success();
}

LogicalResult MapOp::verify() {
  unsigned arity = getArity(getKind());
  if (getInputs().size() != arity)
    return emitOpError() << "'" << stringifyMapKind(getKind()) << "' takes "
                         << arity << " operand(s), got " << getInputs().size();
  if (takesScalar(getKind()) && !getScalar())
    return emitOpError() << "'" << stringifyMapKind(getKind())
                         << "' needs a `scalar` attribute";
  if (!takesScalar(getKind()) && getScalar())
    return emitOpError() << "'" << stringifyMapKind(getKind())
                         << "' takes no `scalar` attribute";
  FailureOr<IndexSpec> spec =
      verifyLetters(*this, getSpec(), getInputs().getTypes(), getType(),
                    /*allowBroadcast=*/true);
  if (failed(spec))
    return failure();
  if (failed(verifyNoReducedLetter(
          *this, *spec, ": a map does not reduce (use weft.reduce)")))
    return failure();
  return verifySameElementType(*this, getInputs().getTypes(), getType());
}

/// The checks weft.fused_map and weft.fused_rows share: the operand
/// count, the step text (row reductions for fused_rows), the step count,
/// and every operand read by some step. Fills `steps`.
static LogicalResult verifyFusedSteps(Operation *op, unsigned numInputs,
                                      StringRef text, bool rowReductions,
                                      SmallVectorImpl<FusedMapStep> &steps) {
  if (numInputs < 1 ||
      numInputs > static_cast<unsigned>(::weft::rt::kMaxFusedInputs))
    return op->emitOpError() << "takes 1 to " << ::weft::rt::kMaxFusedInputs
                             << " operands, got " << numInputs;
  std::string error;
  if (!parseFusedSteps(text, numInputs, steps, error, rowReductions))
    return op->emitOpError() << "steps: " << error;
  if (steps.size() > static_cast<size_t>(::weft::rt::kMaxFusedSteps))
    return op->emitOpError() << "has " << steps.size() << " steps, at most "
                             << ::weft::rt::kMaxFusedSteps;
  llvm::SmallBitVector read(numInputs);
  for (const FusedMapStep &st : steps)
    for (int id : {st.a, st.b})
      if (id >= 0 && id < static_cast<int>(numInputs))
        read.set(id);
  if (!read.all())
    return op->emitOpError()
           << "operand #" << read.find_first_unset() << " is read by no step";
  return success();
}

LogicalResult FusedMapOp::verify() {
  SmallVector<FusedMapStep> steps;
  if (failed(verifyFusedSteps(*this, getInputs().size(), getSteps(),
                              /*rowReductions=*/false, steps)))
    return failure();
  FailureOr<IndexSpec> spec =
      verifyLetters(*this, getSpec(), getInputs().getTypes(), getType(),
                    /*allowBroadcast=*/true);
  if (failed(spec))
    return failure();
  if (failed(verifyNoReducedLetter(*this, *spec, "")))
    return failure();
  return verifySameElementType(*this, getInputs().getTypes(), getType());
}

LogicalResult FusedEinsumOp::verify() {
  if (getInputs().size() < 2)
    return emitOpError() << "takes the einsum's two operands and the "
                            "epilogue's, got "
                         << getInputs().size() << " operands";
  auto types = getInputs().getTypes();
  SmallVector<Type> einsumTypes(types.begin(), types.begin() + 2);
  if (failed(verifyLetters(*this, getSpec(), einsumTypes, getType())))
    return failure();
  // The epilogue reads the einsum's result (in0), of the result's type.
  SmallVector<Type> epilogueTypes{getType()};
  epilogueTypes.append(types.begin() + 2, types.end());
  SmallVector<FusedMapStep> steps;
  if (failed(verifyFusedSteps(*this, epilogueTypes.size(), getSteps(),
                              /*rowReductions=*/false, steps)))
    return failure();
  FailureOr<IndexSpec> spec =
      verifyLetters(*this, getEpilogue(), epilogueTypes, getType(),
                    /*allowBroadcast=*/true);
  if (failed(spec))
    return failure();
  if (failed(verifyNoReducedLetter(*this, *spec, "")))
    return failure();
  if (spec->inputs.front() != spec->result)
    return emitOpError() << "epilogue '" << getEpilogue()
                         << "': its first operand (the einsum's result) must "
                            "have the result's letters";
  return verifySameElementType(*this, types, getType());
}

LogicalResult FusedRowsOp::verify() {
  SmallVector<FusedMapStep> steps;
  if (failed(verifyFusedSteps(*this, getInputs().size(), getSteps(),
                              /*rowReductions=*/true, steps)))
    return failure();
  std::string error;
  // Every result letter comes from an operand: the runtime sizes the
  // index space from the operands.
  FailureOr<IndexSpec> spec =
      verifyLetters(*this, getSpec(), getInputs().getTypes(), getType());
  if (failed(spec))
    return failure();
  FusedRowsLayout layout;
  if (!analyzeFusedRows(*spec, getRows(), steps, layout, error))
    return emitOpError() << error;
  return verifySameElementType(*this, getInputs().getTypes(), getType());
}

std::optional<ReductionKind> MapOp::getContractionKind() {
  return std::nullopt;
}

bool MapOp::acceptsPartialOperand(unsigned operand, ReductionKind kind) {
  // MapKinds.def's `partial` column says which properties let a partial
  // value pass.
  switch (getMapKindInfo(getKind()).partial) {
  case MapPartial::Linear:
    // Linear in each operand while the other is whole: (a1 + a2) b =
    // a1 b + a2 b. At most one operand stays partial (the rule's
    // acceptedPartialOperand); a partial other operand is resolved first.
    return kind == ReductionKind::Sum;
  case MapPartial::Dividend:
    // Linear in the dividend, by a whole divisor.
    return operand == 0 && kind == ReductionKind::Sum;
  case MapPartial::LinearOrPositive:
    // Linear; a positive scale also commutes with max and min.
    return kind == ReductionKind::Sum ||
           (getScalar() && getScalar()->convertToDouble() > 0);
  case MapPartial::Increasing:
    // Non-decreasing: f(max(a, b)) = max(f(a), f(b)).
    return kind != ReductionKind::Sum;
  case MapPartial::IncreasingMin:
    // Non-decreasing, but NaN at -inf (a partial max over pads only).
    return kind == ReductionKind::Min;
  case MapPartial::None:
    return false;
  }
  return false;
}

bool MapOp::isJointlyLinear() {
  return getKind() == MapKind::Add || getKind() == MapKind::Sub;
}

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

LogicalResult ReduceOp::verify() {
  if (failed(verifyLetters(*this, getSpec(), getInput().getType(), getType())))
    return failure();
  return verifySameElementType(*this, getInput().getType(), getType());
}

std::optional<ReductionKind> ReduceOp::getContractionKind() {
  return getKind();
}

bool ReduceOp::acceptsPartialOperand(unsigned, ReductionKind kind) {
  return getKind() == kind; // sum of sums, max of maxes, min of mins.
}

//===----------------------------------------------------------------------===//
// Block-indexed ops: embed, scatter_add, one_hot, iota
//===----------------------------------------------------------------------===//

/// The local-view attributes: `mesh` and the block axes together or not at
/// all, at least one axis, and no #weft.sharding on a local-view op.
static LogicalResult verifyBlockAttrs(BlockIndexedOpInterface op,
                                      StringRef axesName, StringRef syntax) {
  Operation *o = op.getOperation();
  if (static_cast<bool>(op.getLocalBlockMesh()) !=
      static_cast<bool>(op.getLocalBlockAxes()))
    return o->emitOpError()
           << "needs both `mesh` and `" << axesName << "`, or neither";
  if (op.getLocalBlockAxes() && op.getLocalBlockAxes().empty())
    return o->emitOpError()
           << "`" << syntax << "` needs at least one mesh axis";
  auto sharded = [](Type t) { return static_cast<bool>(getSharding(t)); };
  if (op.getLocalBlockMesh() && (llvm::any_of(o->getOperandTypes(), sharded) ||
                                 llvm::any_of(o->getResultTypes(), sharded)))
    return o->emitOpError() << "with `" << syntax
                            << "` is a local-view op: its types carry no "
                               "#weft.sharding";
  return success();
}

/// The letter of `of` in none of `others` (a gather's looked-up letter),
/// and its dimension; verified to exist.
static std::pair<char, unsigned> lookedUpLetter(StringRef of,
                                                ArrayRef<StringRef> others) {
  for (auto [d, c] : llvm::enumerate(of))
    if (llvm::none_of(others, [&](StringRef o) { return o.contains(c); }))
      return {c, static_cast<unsigned>(d)};
  llvm_unreachable("verified: one letter is looked up");
}

char EmbedOp::getBlockLetter() {
  auto l = lettersOfSpec(getSpec());
  return lookedUpLetter(l[1], {l[0], l[2]}).first;
}
int64_t EmbedOp::getLocalBlockSize() {
  auto l = lettersOfSpec(getSpec());
  return cast<RankedTensorType>(getTable().getType())
      .getDimSize(lookedUpLetter(l[1], {l[0], l[2]}).second);
}
ArrayAttr EmbedOp::getLocalBlockAxes() { return getVocabAxesAttr(); }
void EmbedOp::setLocalBlock(FlatSymbolRefAttr mesh, ArrayAttr axes) {
  setMeshAttr(mesh);
  setVocabAxesAttr(axes);
}

char ScatterAddOp::getBlockLetter() {
  auto l = lettersOfSpec(getSpec());
  return lookedUpLetter(l[2], {l[0], l[1]}).first;
}
int64_t ScatterAddOp::getLocalBlockSize() {
  auto l = lettersOfSpec(getSpec());
  return cast<RankedTensorType>(getType()).getDimSize(
      lookedUpLetter(l[2], {l[0], l[1]}).second);
}
ArrayAttr ScatterAddOp::getLocalBlockAxes() { return getVocabAxesAttr(); }
void ScatterAddOp::setLocalBlock(FlatSymbolRefAttr mesh, ArrayAttr axes) {
  setMeshAttr(mesh);
  setVocabAxesAttr(axes);
}

char OneHotOp::getBlockLetter() {
  // The result letter the ids lack.
  SmallVector<std::string, 3> letters = lettersOfSpec(getSpec());
  for (char c : letters[1])
    if (!StringRef(letters[0]).contains(c))
      return c;
  return 0;
}
int64_t OneHotOp::getLocalBlockSize() {
  size_t pos = lettersOfSpec(getSpec())[1].find(getBlockLetter());
  return cast<RankedTensorType>(getType()).getDimSize(pos);
}
ArrayAttr OneHotOp::getLocalBlockAxes() { return getVocabAxesAttr(); }
void OneHotOp::setLocalBlock(FlatSymbolRefAttr mesh, ArrayAttr axes) {
  setMeshAttr(mesh);
  setVocabAxesAttr(axes);
}

char IotaOp::getBlockLetter() { return placeholderLetters(getType())[0]; }
int64_t IotaOp::getLocalBlockSize() {
  return cast<RankedTensorType>(getType()).getDimSize(0);
}
ArrayAttr IotaOp::getLocalBlockAxes() { return getBlockAxesAttr(); }
void IotaOp::setLocalBlock(FlatSymbolRefAttr mesh, ArrayAttr axes) {
  setMeshAttr(mesh);
  setBlockAxesAttr(axes);
}

//===----------------------------------------------------------------------===//
// ScatterAddOp
//===----------------------------------------------------------------------===//

LogicalResult ScatterAddOp::verify() {
  FailureOr<IndexSpec> spec = verifyLetters(
      *this, getSpec(), {getIds().getType(), getUpdates().getType()}, getType(),
      /*allowBroadcast=*/true);
  if (failed(spec))
    return failure();
  StringRef ids = spec->inputs[0], updates = spec->inputs[1];
  StringRef result = spec->result;
  // The transpose of embed "ids,result->updates": the result letter in no
  // operand is the looked-up one; the updates are the ids' letters plus
  // the result's other letters.
  std::optional<char> vocab;
  for (char c : result) {
    if (ids.contains(c) || updates.contains(c))
      continue;
    if (vocab)
      return emitOpError() << "the result must have exactly one letter in no "
                              "operand (the looked-up letter), got '"
                           << *vocab << "' and '" << c << "'";
    vocab = c;
  }
  if (!vocab)
    return emitOpError() << "no result letter is looked up: one of \"" << result
                         << "\" must appear in no operand";
  for (char c : ids)
    if (!updates.contains(c))
      return emitOpError() << "ids letter '" << c
                           << "' must appear in the updates";
  for (char c : updates)
    if (!ids.contains(c) && !result.contains(c))
      return emitOpError() << "updates letter '" << c
                           << "' must appear in the ids or the result";
  if (failed(verifyBlockAttrs(*this, "vocab_axes", "vocab on")))
    return failure();
  if (getElementTypeOrSelf(getUpdates().getType()) !=
      getElementTypeOrSelf(getType()))
    return emitOpError() << "the updates have element type "
                         << getElementTypeOrSelf(getUpdates().getType())
                         << " but the result has "
                         << getElementTypeOrSelf(getType());
  return success();
}

std::optional<ReductionKind> ScatterAddOp::getContractionKind() {
  return ReductionKind::Sum;
}

bool ScatterAddOp::acceptsPartialOperand(unsigned operand, ReductionKind kind) {
  return operand == 1 && kind == ReductionKind::Sum; // Linear in the updates.
}

//===----------------------------------------------------------------------===//
// OneHotOp
//===----------------------------------------------------------------------===//

LogicalResult OneHotOp::verify() {
  FailureOr<IndexSpec> spec =
      verifyLetters(*this, getSpec(), {getIds().getType()}, getType(),
                    /*allowBroadcast=*/true);
  if (failed(spec))
    return failure();
  StringRef ids = spec->inputs[0], result = spec->result;
  for (char c : ids)
    if (!result.contains(c))
      return emitOpError() << "ids letter '" << c
                           << "' must appear in the result";
  if (result.size() != ids.size() + 1)
    return emitOpError() << "the result must have the ids' letters plus one "
                            "vocabulary letter, got \""
                         << spec->str() << "\"";
  return verifyBlockAttrs(*this, "vocab_axes", "vocab on");
}

std::optional<ReductionKind> OneHotOp::getContractionKind() {
  return std::nullopt;
}

bool OneHotOp::acceptsPartialOperand(unsigned, ReductionKind) {
  return false; // Ids are never partial.
}

//===----------------------------------------------------------------------===//
// IotaOp
//===----------------------------------------------------------------------===//

LogicalResult IotaOp::verify() {
  if (cast<RankedTensorType>(getType()).getRank() != 1)
    return emitOpError() << "result must have rank 1, got " << getType();
  return verifyBlockAttrs(*this, "block_axes", "on");
}

SmallVector<std::string, 3> IotaOp::getTensorLetters() {
  return {placeholderLetters(getType())};
}

std::optional<ReductionKind> IotaOp::getReductionKind() { return std::nullopt; }

bool IotaOp::acceptsPartialOperand(unsigned, ReductionKind) {
  return false; // No operands.
}

//===----------------------------------------------------------------------===//
// RandomOp
//===----------------------------------------------------------------------===//

/// The per-dimension block axes of weft.random and weft.pad_fill: `mesh`
/// and `block_axes` together or not at all, one list of axis names per
/// dimension, and no #weft.sharding on a local-view op.
static LogicalResult verifyDimBlockAxes(Operation *op, FlatSymbolRefAttr mesh,
                                        ArrayAttr axes, RankedTensorType type) {
  if (static_cast<bool>(mesh) != static_cast<bool>(axes))
    return op->emitOpError()
           << "needs both `mesh` and `block_axes`, or neither";
  if (!axes)
    return success();
  auto sharded = [](Type t) { return static_cast<bool>(getSharding(t)); };
  if (llvm::any_of(op->getOperandTypes(), sharded) ||
      llvm::any_of(op->getResultTypes(), sharded))
    return op->emitOpError() << "with `on` is a local-view op: its types "
                                "carry no #weft.sharding";
  if (static_cast<int64_t>(axes.size()) != type.getRank())
    return op->emitOpError() << "`over` needs one list of axes per dimension ("
                             << type.getRank() << "), got " << axes.size();
  for (Attribute a : axes) {
    auto list = dyn_cast<ArrayAttr>(a);
    if (!list ||
        !llvm::all_of(list, [](Attribute e) { return isa<StringAttr>(e); }))
      return op->emitOpError() << "`over` needs a list of axis names per "
                                  "dimension, got "
                               << a;
  }
  return success();
}

static SmallVector<StringRef> dimBlockAxes(ArrayAttr axes, unsigned dim) {
  SmallVector<StringRef> out;
  if (axes)
    for (Attribute a : cast<ArrayAttr>(axes[dim]))
      out.push_back(cast<StringAttr>(a).getValue());
  return out;
}

LogicalResult RandomOp::verify() {
  auto type = cast<RankedTensorType>(getType());
  if (type.getRank() > 4)
    return emitOpError() << "result must have at most 4 dimensions (one "
                            "Philox counter word each), got "
                         << type;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.getDimSize(d) > (int64_t(1) << 32))
      return emitOpError() << "dimension " << d << " has size "
                           << type.getDimSize(d)
                           << ": a counter word indexes at most 2^32";
  if (Value offset = getOffset())
    if (cast<RankedTensorType>(offset.getType()).getRank() != 0)
      return emitOpError() << "offset must be a rank-0 tensor, got "
                           << offset.getType();
  return verifyDimBlockAxes(*this, getMeshAttr(), getBlockAxesAttr(), type);
}

SmallVector<StringRef> RandomOp::getDimAxes(unsigned dim) {
  return dimBlockAxes(getBlockAxesAttr(), dim);
}

SmallVector<std::string, 3> RandomOp::getTensorLetters() {
  if (getOffset()) // A scalar: every result letter is free.
    return {"", placeholderLetters(getType())};
  return {placeholderLetters(getType())};
}

std::optional<ReductionKind> RandomOp::getReductionKind() {
  return std::nullopt;
}

bool RandomOp::acceptsPartialOperand(unsigned, ReductionKind) {
  return false; // The offset is read as a number.
}

//===----------------------------------------------------------------------===//
// CumsumOp
//===----------------------------------------------------------------------===//

LogicalResult CumsumOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getType());
  if (in.getShape() != out.getShape() ||
      in.getElementType() != out.getElementType())
    return emitOpError() << "result must have the input's shape and element "
                            "type, got "
                         << in << " -> " << out;
  auto dim = static_cast<int64_t>(getDim()); // I64Attr: read as unsigned.
  if (dim < 0 || dim >= in.getRank())
    return emitOpError() << "dim " << dim << " is not a dimension of " << in
                         << " (rank " << in.getRank() << ")";
  return success();
}

SmallVector<std::string, 3> CumsumOp::getTensorLetters() {
  std::string l = placeholderLetters(getType());
  return {l, l};
}

std::optional<ReductionKind> CumsumOp::getReductionKind() {
  return std::nullopt;
}

bool CumsumOp::acceptsPartialOperand(unsigned, ReductionKind kind) {
  return kind == ReductionKind::Sum; // Linear.
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

FailureOr<std::pair<SmallVector<std::string>, SmallVector<std::string>>>
ReshapeOp::parseGroups(StringRef spec, std::string &error) {
  auto side = [&](StringRef text,
                  SmallVector<std::string> &groups) -> LogicalResult {
    for (size_t i = 0; i < text.size(); ++i) {
      char c = text[i];
      if (c == '(') {
        size_t close = text.find(')', i);
        if (close == StringRef::npos) {
          error = "unbalanced '(' in \"" + text.str() + "\"";
          return failure();
        }
        StringRef group = text.slice(i + 1, close);
        if (group.empty()) {
          error = "an empty group () in \"" + text.str() + "\"";
          return failure();
        }
        for (char g : group)
          if (!llvm::isAlpha(g)) {
            error = std::string("'") + g + "' in a group is not a letter";
            return failure();
          }
        groups.push_back(group.str());
        i = close;
      } else if (llvm::isAlpha(c)) {
        groups.push_back(std::string(1, c));
      } else {
        error = std::string("'") + c + "' is not a letter or a group";
        return failure();
      }
    }
    return success();
  };
  auto [lhs, rhs] = spec.split("->");
  if (rhs.size() == spec.size() - lhs.size() - 2 && spec.contains("->")) {
    SmallVector<std::string> in, out;
    if (failed(side(lhs, in)) || failed(side(rhs, out)))
      return failure();
    std::string a, b;
    for (const std::string &g : in)
      a += g;
    for (const std::string &g : out)
      b += g;
    if (a != b) {
      error = "both sides must list the same letters in the same order, got "
              "\"" +
              a + "\" and \"" + b + "\"";
      return failure();
    }
    for (size_t i = 0; i < a.size(); ++i)
      if (StringRef(a).substr(i + 1).contains(a[i])) {
        error = std::string("letter '") + a[i] + "' appears twice";
        return failure();
      }
    return std::make_pair(in, out);
  }
  error = "expected \"in->out\"";
  return failure();
}

LogicalResult ReshapeOp::verify() {
  std::string error;
  auto groups = parseGroups(getSpec(), error);
  if (failed(groups))
    return emitOpError() << "spec \"" << getSpec() << "\": " << error;
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getType());
  if (in.getElementType() != out.getElementType())
    return emitOpError() << "result element type " << out.getElementType()
                         << " differs from the input's " << in.getElementType();
  auto &[ins, outs] = *groups;
  if (static_cast<int64_t>(ins.size()) != in.getRank() ||
      static_cast<int64_t>(outs.size()) != out.getRank())
    return emitOpError() << "spec \"" << getSpec() << "\" has " << ins.size()
                         << " and " << outs.size() << " dimensions, the types "
                         << in.getRank() << " and " << out.getRank();
  // Letter sizes from the dimensions of one letter.
  llvm::SmallDenseMap<char, int64_t> size;
  for (auto [g, n] : llvm::zip(ins, in.getShape()))
    if (g.size() == 1)
      size[g[0]] = n;
  for (auto [g, n] : llvm::zip(outs, out.getShape()))
    if (g.size() == 1) {
      auto [it, inserted] = size.try_emplace(g[0], n);
      if (!inserted && it->second != n)
        return emitOpError() << "letter '" << g[0] << "' has sizes "
                             << it->second << " and " << n;
    }
  auto check = [&](ArrayRef<std::string> gs, ArrayRef<int64_t> shape,
                   StringRef what) -> LogicalResult {
    for (auto [d, pair] : llvm::enumerate(llvm::zip(gs, shape))) {
      auto &[g, n] = pair;
      if (g.size() == 1)
        continue;
      int64_t product = 1;
      for (char c : g) {
        if (!size.count(c))
          return emitOpError() << "letter '" << c << "' of group (" << g
                               << ") has no size: it must be a dimension of "
                                  "its own on the other side";
        if (__builtin_mul_overflow(product, size[c], &product) ||
            product > kMaxElements)
          return emitOpError() << "group (" << g << ") is too large";
      }
      if (product != n)
        return emitOpError()
               << "dimension " << d << " of the " << what << " is (" << g
               << ") of size " << product << ", but the type has " << n;
    }
    return success();
  };
  return failure(failed(check(ins, in.getShape(), "input")) ||
                 failed(check(outs, out.getShape(), "result")));
}

SmallVector<std::string, 3> ReshapeOp::getTensorLetters() {
  std::string error;
  auto groups = parseGroups(getSpec(), error);
  if (failed(groups))
    return {}; // The verifier has reported it.
  std::string in, out;
  for (const std::string &g : groups->first)
    in.push_back(g[0]);
  for (const std::string &g : groups->second)
    out.push_back(g[0]);
  return {in, out};
}

std::optional<ReductionKind> ReshapeOp::getReductionKind() {
  // A letter only one side names is a minor letter of a group there: never
  // split (canSplitLetter), so never reduced over axes.
  return ReductionKind::Sum;
}

bool ReshapeOp::acceptsPartialOperand(unsigned, ReductionKind) {
  return true; // Moves no element: commutes with every reduction.
}

bool ReshapeOp::canSplitLetter(char letter) {
  std::string error;
  auto groups = parseGroups(getSpec(), error);
  if (failed(groups))
    return false;
  for (const auto *side : {&groups->first, &groups->second})
    for (const std::string &g : *side)
      if (StringRef(g).drop_front().contains(letter))
        return false; // A minor letter of a group.
  return true;
}

//===----------------------------------------------------------------------===//
// SliceOp, ConcatOp
//===----------------------------------------------------------------------===//

/// The letter SliceOp gives `dim` on its input and on its result (never
/// split; distinct so that the two extents are not tied).
static constexpr char kSliceInLetter = '!', kSliceOutLetter = '~';

LogicalResult SliceOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getType());
  if (in.getElementType() != out.getElementType())
    return emitOpError() << "result element type " << out.getElementType()
                         << " differs from the input's " << in.getElementType();
  if (in.getRank() != out.getRank())
    return emitOpError() << "result rank " << out.getRank()
                         << " differs from the input's " << in.getRank();
  int64_t dim = getDim();
  if (dim < 0 || dim >= in.getRank())
    return emitOpError() << "dim " << dim << " is out of range for " << in;
  for (int64_t d = 0; d < in.getRank(); ++d)
    if (d != dim && in.getDimSize(d) != out.getDimSize(d))
      return emitOpError() << "dimension " << d << " has extent "
                           << out.getDimSize(d) << " in the result but "
                           << in.getDimSize(d) << " in the input (only dim "
                           << dim << " is sliced)";
  int64_t start = getStart(), n = out.getDimSize(dim);
  // Extents are below 2^48 (kMaxElements): start + n cannot overflow once
  // start is.
  if (start < 0 || start > in.getDimSize(dim) || n > in.getDimSize(dim) - start)
    return emitOpError() << "range [" << start << ", " << start << " + " << n
                         << ") of dim " << dim << " is outside [0, "
                         << in.getDimSize(dim) << ")";
  return success();
}

SmallVector<std::string, 3> SliceOp::getTensorLetters() {
  std::string in = placeholderLetters(getType());
  std::string out = in;
  in[getDim()] = kSliceInLetter;
  out[getDim()] = kSliceOutLetter;
  return {in, out};
}

std::optional<ReductionKind> SliceOp::getReductionKind() {
  return std::nullopt; // The input's letter of dim is never split.
}

bool SliceOp::acceptsPartialOperand(unsigned, ReductionKind) {
  return true; // A selection: commutes with sums, maxima and minima.
}

bool SliceOp::canSplitLetter(char letter) {
  return letter != kSliceInLetter && letter != kSliceOutLetter;
}

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "needs at least one operand";
  if (getInputs().size() > kMaxOperands)
    return emitOpError() << "has " << getInputs().size()
                         << " operands; at most " << kMaxOperands
                         << " (concatenate in stages)";
  auto out = cast<RankedTensorType>(getType());
  int64_t dim = getDim();
  if (dim < 0 || dim >= out.getRank())
    return emitOpError() << "dim " << dim << " is out of range for " << out;
  int64_t total = 0;
  for (auto [i, v] : llvm::enumerate(getInputs())) {
    auto in = cast<RankedTensorType>(v.getType());
    if (in.getElementType() != out.getElementType())
      return emitOpError() << "operand #" << i << " has element type "
                           << in.getElementType() << " but the result has "
                           << out.getElementType();
    if (in.getRank() != out.getRank())
      return emitOpError() << "operand #" << i << " has rank " << in.getRank()
                           << " but the result has " << out.getRank();
    for (int64_t d = 0; d < out.getRank(); ++d)
      if (d != dim && in.getDimSize(d) != out.getDimSize(d))
        return emitOpError()
               << "operand #" << i << " has extent " << in.getDimSize(d)
               << " on dimension " << d << " but the result has "
               << out.getDimSize(d) << " (only dim " << dim << " is joined)";
    total += in.getDimSize(dim); // <= 32 extents below 2^48 each.
  }
  if (total != out.getDimSize(dim))
    return emitOpError() << "the operands' extents along dim " << dim
                         << " add up to " << total << " but the result has "
                         << out.getDimSize(dim);
  return success();
}

SmallVector<std::string, 3> ConcatOp::getTensorLetters() {
  std::string letters = placeholderLetters(getType());
  SmallVector<std::string, 3> all;
  for (unsigned i = 0; i < getInputs().size(); ++i) {
    all.push_back(letters);
    all.back()[getDim()] = operandLetter(i);
  }
  all.push_back(letters);
  all.back()[getDim()] = kResultLetter;
  return all;
}

std::optional<ReductionKind> ConcatOp::getReductionKind() {
  return std::nullopt; // The operands' letters of dim are never split.
}

bool ConcatOp::acceptsPartialOperand(unsigned, ReductionKind) {
  return false; // concat(a, sum b_i) is not sum concat(a, b_i).
}

bool ConcatOp::isJointlyLinear() { return true; }

bool ConcatOp::canSplitLetter(char letter) {
  return letter != kResultLetter &&
         !(letter >= operandLetter(0) && letter < operandLetter(kMaxOperands));
}

//===----------------------------------------------------------------------===//
// TopKOp
//===----------------------------------------------------------------------===//

LogicalResult TopKOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getType());
  auto dim = static_cast<int64_t>(getDim()); // I64Attr: read as unsigned.
  auto k = static_cast<int64_t>(getK());
  if (in.getRank() >= 52)
    return emitOpError() << "takes tensors of rank below 52, got " << in;
  if (dim < 0 || dim >= in.getRank())
    return emitOpError() << "dim " << dim << " is not a dimension of " << in
                         << " (rank " << in.getRank() << ")";
  if (k < 1 || k > in.getDimSize(dim))
    return emitOpError() << "k " << k << " must be in [1, "
                         << in.getDimSize(dim) << "] (the size of dim " << dim
                         << ")";
  SmallVector<int64_t> shape(in.getShape());
  shape[dim] = k;
  if (out.getShape() != ArrayRef<int64_t>(shape) ||
      out.getElementType() != in.getElementType())
    return emitOpError() << "result must be "
                         << RankedTensorType::get(shape, in.getElementType())
                         << " (the input with dim " << dim << " of size " << k
                         << "), got " << out;
  if (Value p = getPayload()) {
    auto pt = cast<RankedTensorType>(p.getType());
    if (pt.getShape() != in.getShape() ||
        pt.getElementType() != in.getElementType())
      return emitOpError() << "payload must have the input's shape and "
                              "element type, got "
                           << pt << " for " << in;
  }
  return success();
}

SmallVector<std::string, 3> TopKOp::getTensorLetters() {
  std::string in = placeholderLetters(getInput().getType());
  std::string out = in;
  out[getDim()] = kSelectedLetter;
  if (getPayload())
    return {in, in, out};
  return {in, out};
}

std::optional<ReductionKind> TopKOp::getReductionKind() {
  // The selected dimension drops the input's: priced as a max over it (a
  // replicated result is a valid partial max; the partitioner selects the
  // candidates of every block itself).
  return ReductionKind::Max;
}

bool TopKOp::acceptsPartialOperand(unsigned, ReductionKind) {
  return false; // Selection is not linear.
}

bool TopKOp::canSplitLetter(char letter) {
  return letter != kSelectedLetter; // k is small: computed whole.
}

//===----------------------------------------------------------------------===//
// PadFillOp
//===----------------------------------------------------------------------===//

LogicalResult PadFillOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getType());
  if (in.getShape() != out.getShape() ||
      in.getElementType() != out.getElementType())
    return emitOpError() << "result must have the input's shape and element "
                            "type, got "
                         << in << " -> " << out;
  ArrayRef<int64_t> valid = getValid();
  if (static_cast<int64_t>(valid.size()) != out.getRank())
    return emitOpError() << "`valid` needs one size per dimension ("
                         << out.getRank() << "), got " << valid.size();
  if (failed(verifyDimBlockAxes(*this, getMeshAttr(), getBlockAxesAttr(), out)))
    return failure();
  // In the local view a dimension is one block of the global one: its
  // bound is checked against the global size in verifySymbolUses.
  for (auto [d, v] : llvm::enumerate(valid))
    if (v < 1 || (!getBlockAxesAttr() && v > out.getDimSize(d)))
      return emitOpError() << "valid size " << v << " of dimension " << d
                           << " must be in [1, " << out.getDimSize(d) << "]";
  double fill = getFill().convertToDouble();
  if (out.getElementType().isInteger(32) &&
      (!std::isfinite(fill) || std::trunc(fill) != fill ||
       std::abs(fill) > 2147483647.0))
    return emitOpError() << "an i32 tensor needs an integer fill, got " << fill;
  return success();
}

SmallVector<StringRef> PadFillOp::getDimAxes(unsigned dim) {
  return dimBlockAxes(getBlockAxesAttr(), dim);
}

SmallVector<std::string, 3> PadFillOp::getTensorLetters() {
  std::string l = placeholderLetters(getType());
  return {l, l};
}

std::optional<ReductionKind> PadFillOp::getReductionKind() {
  return std::nullopt;
}

bool PadFillOp::acceptsPartialOperand(unsigned, ReductionKind kind) {
  // Zeroing is linear: the pads of a partial sum are sums of zeros. The
  // mask is the same on every rank of the group, so a select commutes with
  // max and min for any fill.
  return kind != ReductionKind::Sum || getFill().isZero();
}

//===----------------------------------------------------------------------===//
// EmbedOp
//===----------------------------------------------------------------------===//

LogicalResult EmbedOp::verify() {
  FailureOr<IndexSpec> spec = verifyLetters(
      *this, getSpec(), {getIds().getType(), getTable().getType()}, getType());
  if (failed(spec))
    return failure();
  StringRef ids = spec->inputs[0];
  StringRef table = spec->inputs[1];
  // The gather: the table's letters are the looked-up letter (in neither
  // the ids nor the result), batch letters shared with the ids, and kept
  // (feature) letters; the result has the ids' letters and the kept ones.
  std::optional<char> vocab;
  for (char c : table) {
    if (ids.contains(c) || spec->inResult(c))
      continue;
    if (vocab)
      return emitOpError() << "the table must have exactly one letter in "
                              "neither the ids nor the result (the looked-up "
                              "letter), got '"
                           << *vocab << "' and '" << c << "'";
    vocab = c;
  }
  if (!vocab)
    return emitOpError() << "no table letter is looked up: one of \"" << table
                         << "\" must appear in neither the ids nor the result";
  for (char c : ids)
    if (!spec->inResult(c))
      return emitOpError() << "ids letter '" << c
                           << "' must appear in the result";
  if (failed(verifyBlockAttrs(*this, "vocab_axes", "vocab on")))
    return failure();
  if (getElementTypeOrSelf(getTable().getType()) !=
      getElementTypeOrSelf(getType()))
    return emitOpError() << "the table has element type "
                         << getElementTypeOrSelf(getTable().getType())
                         << " but the result has "
                         << getElementTypeOrSelf(getType());
  return success();
}

bool EmbedOp::acceptsPartialOperand(unsigned operand, ReductionKind kind) {
  return operand == 1 && kind == ReductionKind::Sum; // Linear in the table.
}

std::string mlir::weft::placeholderLetters(Type type) {
  int64_t rank = cast<RankedTensorType>(type).getRank();
  std::string letters;
  for (int64_t d = 0; d < rank; ++d)
    letters.push_back(d < 26 ? char('a' + d) : char('A' + d - 26));
  return letters;
}

SmallVector<std::string, 3> ShardOp::getTensorLetters() {
  // An identity: the same placeholder letter on each dimension of both.
  std::string letters = placeholderLetters(getType());
  return {letters, letters};
}

std::optional<ReductionKind> ShardOp::getReductionKind() {
  return std::nullopt;
}

bool ShardOp::acceptsPartialOperand(unsigned, ReductionKind) {
  return false; // The constraint is the annotated (never partial) layout.
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

SmallVector<std::string, 3> ConstantOp::getTensorLetters() {
  // No operands: one free placeholder letter per result dimension.
  return {placeholderLetters(getType())};
}

std::optional<ReductionKind> ConstantOp::getReductionKind() {
  return std::nullopt;
}

bool ConstantOp::acceptsPartialOperand(unsigned, ReductionKind) {
  return false; // No operands.
}

SmallVector<std::string, 3> mlir::weft::lettersOfSpec(StringRef text) {
  // Called on verified ops only: a map's broadcast letters are allowed.
  std::string error;
  FailureOr<IndexSpec> spec =
      IndexSpec::parse(text, error, /*allowBroadcast=*/true);
  if (failed(spec))
    return {};
  SmallVector<std::string, 3> letters(spec->inputs.begin(), spec->inputs.end());
  letters.push_back(spec->result);
  return letters;
}

std::optional<ReductionKind> EmbedOp::getContractionKind() {
  return ReductionKind::Sum;
}

//===----------------------------------------------------------------------===//
// ShardOp
//===----------------------------------------------------------------------===//

LogicalResult ShardOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getType());
  if (in.getShape() != out.getShape() ||
      in.getElementType() != out.getElementType())
    return emitOpError() << "changes the shape or element type: " << in
                         << " -> " << out;
  if (!getSharding(out))
    return emitOpError()
           << "result type needs a #weft.sharding encoding (the constraint)";
  return success();
}

//===----------------------------------------------------------------------===//
// Collectives: checks that need no mesh
//===----------------------------------------------------------------------===//

/// An asynchronous collective (`weft.async = N`, N >= 0 compute ops
/// overlapping it) is read only by one weft.wait.
static LogicalResult verifyAsync(Operation *op) {
  Attribute attr = op->getAttr(kAsyncAttr);
  if (!attr)
    return success();
  auto n = dyn_cast<IntegerAttr>(attr);
  if (!n || n.getInt() < 0)
    return op->emitOpError() << "`" << kAsyncAttr
                             << "` must be a non-negative integer (the ops "
                                "it overlaps), got "
                             << attr;
  if (!cast<CollectiveOpInterface>(op).communicates())
    return op->emitOpError()
           << "does not communicate: it cannot be `" << kAsyncAttr << "`";
  Value r = op->getResult(0);
  if (!r.hasOneUse() || !isa<WaitOp>(*r.getUsers().begin()))
    return op->emitOpError()
           << "is asynchronous (`" << kAsyncAttr
           << "`): its result must have exactly one use, a weft.wait";
  return success();
}

/// Axes non-empty and unique, local-view types (no sharding encoding), same
/// element type and rank, and `dims` in range.
static LogicalResult verifyCollective(Operation *op, ArrayAttr axes,
                                      ArrayRef<int64_t> dims) {
  if (axes.empty())
    return op->emitOpError() << "needs at least one mesh axis";
  llvm::StringSet<> seen;
  for (Attribute a : axes)
    if (!seen.insert(cast<StringAttr>(a).getValue()).second)
      return op->emitOpError() << "names axis " << a << " more than once";
  auto in = cast<RankedTensorType>(op->getOperand(0).getType());
  auto out = cast<RankedTensorType>(op->getResult(0).getType());
  if (getSharding(in) || getSharding(out))
    return op->emitOpError()
           << "is a local-view op: its types carry local shapes and no "
              "#weft.sharding";
  if (in.getElementType() != out.getElementType())
    return op->emitOpError()
           << "changes the element type from " << in.getElementType() << " to "
           << out.getElementType();
  if (in.getRank() != out.getRank())
    return op->emitOpError() << "changes the rank from " << in.getRank()
                             << " to " << out.getRank();
  for (int64_t d : dims)
    if (d < 0 || d >= in.getRank())
      return op->emitOpError() << "dimension " << d
                               << " is out of range for rank " << in.getRank();
  return verifyAsync(op);
}

LogicalResult AllReduceOp::verify() {
  return verifyCollective(*this, getAxes(), {});
}

LogicalResult AllGatherOp::verify() {
  return verifyCollective(*this, getAxes(), {static_cast<int64_t>(getDim())});
}

LogicalResult ReduceScatterOp::verify() {
  return verifyCollective(*this, getAxes(), {static_cast<int64_t>(getDim())});
}

LogicalResult AllToAllOp::verify() {
  if (failed(verifyCollective(*this, getAxes(),
                              {static_cast<int64_t>(getSplitDim()),
                               static_cast<int64_t>(getConcatDim())})))
    return failure();
  if (getSplitDim() == getConcatDim())
    return emitOpError() << "split and concat dimensions must differ";
  return success();
}

LogicalResult WaitOp::verify() {
  Operation *def = getInput().getDefiningOp();
  auto collective = dyn_cast_or_null<CollectiveOpInterface>(def);
  if (!collective || !collective.communicates() || !def->hasAttr(kAsyncAttr))
    return emitOpError() << "waits for an asynchronous collective (one with `"
                         << kAsyncAttr << "`); its operand is not one";
  if (def->getBlock() != (*this)->getBlock() || !def->isBeforeInBlock(*this))
    return emitOpError() << "must follow its collective in the same block";
  return success();
}

LogicalResult SliceShardOp::verify() {
  return verifyCollective(*this, getAxes(), {static_cast<int64_t>(getDim())});
}

//===----------------------------------------------------------------------===//
// Root collectives: checks that need no mesh (the root's range needs the
// group size: verifySymbolUses, MeshVerification.cpp)
//===----------------------------------------------------------------------===//

static LogicalResult verifyRootCollective(Operation *op, ArrayAttr axes,
                                          int64_t root,
                                          ArrayRef<int64_t> dims) {
  if (root < 0)
    return op->emitOpError()
           << "root " << root << " is negative: it is a position in the group";
  return verifyCollective(op, axes, dims);
}

LogicalResult BroadcastOp::verify() {
  return verifyRootCollective(*this, getAxes(), getRootAttr().getInt(), {});
}

LogicalResult ReduceToOp::verify() {
  return verifyRootCollective(*this, getAxes(), getRootAttr().getInt(), {});
}

LogicalResult GatherToOp::verify() {
  return verifyRootCollective(*this, getAxes(), getRootAttr().getInt(),
                              {static_cast<int64_t>(getDim())});
}

LogicalResult ScatterFromOp::verify() {
  return verifyRootCollective(*this, getAxes(), getRootAttr().getInt(),
                              {static_cast<int64_t>(getDim())});
}

//===----------------------------------------------------------------------===//
// CollectivePermuteOp: `pairs [[s, t], ...]`, stored flat
//===----------------------------------------------------------------------===//

static ParseResult parsePermutePairs(OpAsmParser &parser,
                                     DenseI64ArrayAttr &pairs) {
  SmallVector<int64_t> flat;
  auto parsePair = [&]() -> ParseResult {
    int64_t s = 0, t = 0;
    if (parser.parseLSquare() || parser.parseInteger(s) ||
        parser.parseComma() || parser.parseInteger(t) || parser.parseRSquare())
      return failure();
    flat.push_back(s);
    flat.push_back(t);
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square, parsePair,
                                     " in the pairs list"))
    return failure();
  pairs = DenseI64ArrayAttr::get(parser.getContext(), flat);
  return success();
}

static void printPermutePairs(OpAsmPrinter &printer, Operation *,
                              DenseI64ArrayAttr pairs) {
  ArrayRef<int64_t> flat = pairs.asArrayRef();
  printer << "[";
  for (size_t i = 0; i + 1 < flat.size(); i += 2)
    printer << (i ? ", " : "") << "[" << flat[i] << ", " << flat[i + 1] << "]";
  printer << "]";
}

SmallVector<std::pair<int64_t, int64_t>> CollectivePermuteOp::getPairList() {
  SmallVector<std::pair<int64_t, int64_t>> list;
  ArrayRef<int64_t> flat = getPairs();
  for (size_t i = 0; i + 1 < flat.size(); i += 2)
    list.push_back({flat[i], flat[i + 1]});
  return list;
}

LogicalResult CollectivePermuteOp::verify() {
  ArrayRef<int64_t> flat = getPairs();
  if (flat.empty())
    return emitOpError() << "needs at least one source-target pair";
  if (flat.size() % 2 != 0)
    return emitOpError() << "pairs hold " << flat.size()
                         << " positions; each pair is [source, target]";
  llvm::SmallDenseSet<int64_t> sources, targets;
  for (auto [s, t] : getPairList()) {
    if (s < 0 || t < 0)
      return emitOpError() << "pair [" << s << ", " << t
                           << "] has a negative group position";
    if (!sources.insert(s).second)
      return emitOpError() << "position " << s << " is the source of two pairs";
    if (!targets.insert(t).second)
      return emitOpError() << "position " << t << " is the target of two pairs";
  }
  return verifyCollective(*this, getAxes(), {});
}

#define GET_OP_CLASSES
#include "weft/Dialect/Weft/IR/WeftOps.cpp.inc"
