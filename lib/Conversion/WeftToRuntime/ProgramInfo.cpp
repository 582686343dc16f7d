//===- ProgramInfo.cpp - What the lowering reads before it rewrites -------===//

#include "ProgramInfo.h"
#include "Patterns.h"
#include "RuntimeCall.h"

#include "weft/Conversion/WeftToRuntime/PlanToCpp.h"
#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/IdBound.h"
#include "weft/Dialect/Weft/IR/WeftAttrs.h"
#include "weft/Dialect/Weft/Transforms/LossScaling.h"

#include "weft/rt/Error.h"
#include "weft/rt/TensorTable.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

#include <cctype>

using namespace mlir;
using namespace mlir::weft;
using namespace mlir::weft::lowering;
namespace rt = ::weft::rt;

int MeshDesc::index(StringRef axis) const {
  for (auto [i, a] : llvm::enumerate(axes))
    if (a == axis)
      return static_cast<int>(i);
  return -1;
}

/// `name` with every character C++ does not allow in an identifier as `_`.
static std::string identifier(StringRef s) {
  std::string r;
  for (char c : s)
    r += isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return r;
}

/// The mesh `func` runs on (getFunctionMesh), as names and sizes.
static FailureOr<MeshDesc> findMesh(func::FuncOp func) {
  SymbolTableCollection tables;
  FailureOr<MeshOp> mesh = getFunctionMesh(func, tables);
  if (failed(mesh))
    return failure();
  MeshDesc desc;
  if (*mesh) {
    for (Attribute a : mesh->getAxisNames())
      desc.axes.push_back(cast<StringAttr>(a).getValue().str());
    desc.sizes.assign(mesh->getAxisSizes().begin(), mesh->getAxisSizes().end());
  }
  return desc;
}

FailureOr<ProgramInfo> ProgramInfo::get(func::FuncOp func) {
  auto mesh = findMesh(func);
  if (failed(mesh))
    return failure();
  ProgramInfo info(func, std::move(*mesh));
  if (!func.getBody().hasOneBlock())
    return func.emitError("expected a function with one block");
  if (failed(info.readSignatures()) || failed(info.readTrainingRoles()) ||
      failed(info.checkBody()))
    return failure();
  info.stepName_ = "weft_step_" + identifier(func.getSymName());
  return info;
}

FailureOr<std::vector<int>> ProgramInfo::axisIndices(Operation *op,
                                                     ArrayAttr axes) const {
  std::vector<int> out;
  for (Attribute a : axes) {
    StringRef name = cast<StringAttr>(a).getValue();
    int i = mesh_.index(name);
    if (i < 0)
      return op->emitError("axis \"")
             << name << "\" is not an axis of the mesh";
    out.push_back(i);
  }
  return out;
}

FailureOr<TensorSignature>
ProgramInfo::readSignature(Type local, Attribute globalAttr, StringAttr name,
                           const Twine &what, bool isInput) {
  TensorSignature sig;
  auto localType = dyn_cast<RankedTensorType>(local);
  if (!localType || !localType.hasStaticShape())
    return func_.emitError()
           << what << " has type " << local << ", expected a static tensor";
  if (localType.getEncoding())
    return func_.emitError()
           << what << " still has a sharding encoding (" << local
           << "): lower the local view, after --weft-partition";
  if (name)
    sig.name = name.getValue().str();
  // No `weft.global_type`: replicated, the global type is the local one.
  sig.global = localType;
  ShardingAttr sharding;
  if (globalAttr) {
    auto typeAttr = dyn_cast<TypeAttr>(globalAttr);
    auto global =
        typeAttr ? dyn_cast<RankedTensorType>(typeAttr.getValue()) : nullptr;
    if (!global || !global.hasStaticShape())
      return func_.emitError()
             << what << ": `weft.global_type` must be a static tensor type";
    sig.global = withoutSharding(global);
    sharding = getSharding(global);
  }
  unsigned rank = sig.global.getRank();
  sig.dims.resize(rank);
  SmallVector<int64_t> expected(sig.global.getShape());
  if (sharding) {
    if (sharding.getRank() != rank)
      return func_.emitError() << what << ": sharding rank mismatch";
    for (unsigned d = 0; d < rank; ++d) {
      for (StringRef axis : sharding.getDimAxes(d)) {
        int i = mesh_.index(axis);
        if (i < 0)
          return func_.emitError() << what << ": axis \"" << axis
                                   << "\" is not an axis of the mesh";
        sig.dims[d].push_back(i);
        if (expected[d] % mesh_.sizes[i] != 0)
          return func_.emitError()
                 << what << ": dim " << d << " is not divisible by its axes";
        expected[d] /= mesh_.sizes[i];
      }
    }
    for (StringRef axis : sharding.getPartialAxisNames()) {
      int i = mesh_.index(axis);
      if (i < 0)
        return func_.emitError() << what << ": axis \"" << axis
                                 << "\" is not an axis of the mesh";
      sig.partial.push_back(i);
    }
    sig.partialKind = sharding.getPartialKind();
    if (isInput && !sig.partial.empty())
      return func_.emitError()
             << what << " is partial; inputs must not be partial";
  }
  if (sig.global.getElementType() != localType.getElementType() ||
      ArrayRef<int64_t>(expected) != localType.getShape())
    return func_.emitError()
           << what << ": local type " << local
           << " is not the per-device block of the global type " << sig.global
           << " (expected shape "
           << RankedTensorType::get(expected, localType.getElementType())
           << ")";
  auto dtype = toDType(localType);
  if (!dtype)
    return func_.emitError()
           << what << " has element type " << localType.getElementType()
           << ", which the runtime does not support";
  sig.dtype = *dtype;
  return sig;
}

LogicalResult ProgramInfo::readSignatures() {
  for (unsigned i = 0; i < func_.getNumArguments(); ++i) {
    auto sig = readSignature(func_.getArgument(i).getType(),
                             getArgGlobalType(func_, i), getArgName(func_, i),
                             "argument #" + Twine(i), /*isInput=*/true);
    if (failed(sig))
      return failure();
    if (sig->global.getElementType().isInteger(32))
      sig->intBound = getIdBound(func_, i);
    if (auto l =
            func_.getArgAttrOfType<DenseI64ArrayAttr>(i, kLogicalShapeAttr))
      sig->logicalShape.assign(l.asArrayRef().begin(), l.asArrayRef().end());
    if (auto k = func_.getArgAttrOfType<IntegerAttr>(i, kMicroBatchAttr)) {
      if (k.getInt() < 0 || k.getInt() > INT32_MAX || sig->name.empty())
        return func_.emitError()
               << "argument #" << i
               << ": weft.micro_batch needs a weft.name and a count >= 0";
      sig->microBatch = static_cast<int>(k.getInt());
      microBatches_ = std::max(microBatches_, sig->microBatch + 1);
    }
    inputs_.push_back(*sig);
  }
  for (unsigned i = 0; i < func_.getNumResults(); ++i) {
    auto sig =
        readSignature(func_.getResultTypes()[i], getResultGlobalType(func_, i),
                      getResultName(func_, i), "result #" + Twine(i),
                      /*isInput=*/false);
    if (failed(sig))
      return failure();
    if (auto l =
            func_.getResultAttrOfType<DenseI64ArrayAttr>(i, kLogicalShapeAttr))
      sig->logicalShape.assign(l.asArrayRef().begin(), l.asArrayRef().end());
    outputs_.push_back(*sig);
  }
  // Names: the given ones must be unique (they name .npy files); an unnamed
  // input or output is arg<i> / result<i>, with a suffix _<k> when a given
  // name (or an earlier fallback) already took that.
  llvm::StringSet<> names;
  // Micro-batch copies (k > 0) share the name of micro-batch 0.
  for (const TensorSignature &s :
       llvm::concat<TensorSignature>(inputs_, outputs_))
    if (!s.name.empty() && s.microBatch == 0 && !names.insert(s.name).second)
      return func_.emitError("two inputs or outputs are named '")
             << s.name << "'; names must be unique (they name .npy files)";
  auto fallback = [&](TensorSignature &s, const std::string &base) {
    if (!s.name.empty())
      return;
    s.name = base;
    for (int k = 1; !names.insert(s.name).second; ++k)
      s.name = base + "_" + std::to_string(k);
  };
  for (auto [i, s] : llvm::enumerate(inputs_))
    fallback(s, "arg" + std::to_string(i));
  for (auto [i, s] : llvm::enumerate(outputs_))
    fallback(s, "result" + std::to_string(i));
  return success();
}

LogicalResult ProgramInfo::readTrainingRoles() {
  using ::weft::rt::TensorRole;
  func::FuncOp func = func_;
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    TensorSignature &sig = inputs_[i];
    if (func.getArgAttr(i, kParamAttr))
      sig.role = TensorRole::Param;
    if (func.getArgAttr(i, kStateOfAttr))
      sig.role = TensorRole::State;
    if (auto h = func.getArgAttrOfType<StringAttr>(i, kHyperparamAttr)) {
      if (h.getValue() != "step" && h.getValue() != "lr" &&
          h.getValue() != kLossScaleHyperparam)
        return func.emitError() << "argument #" << i
                                << ": weft.hyperparam must be \"step\", "
                                   "\"lr\" or \"loss_scale\", not \""
                                << h.getValue() << "\"";
      if (sig.global.getRank() != 0 || sig.dtype == ::weft::rt::DType::I32)
        return func.emitError()
               << "argument #" << i << ": weft.hyperparam \"" << h.getValue()
               << "\" must be a rank-0 float tensor, not " << sig.global;
      sig.role = h.getValue() == "step" ? TensorRole::Step
                 : h.getValue() == "lr" ? TensorRole::LearningRate
                                        : TensorRole::LossScale;
    }
  }
  // Dynamic loss scaling: the scale comes in, the verdict goes out (the
  // harness skips the update of a step whose gradients overflowed).
  bool scaled = llvm::any_of(inputs_, [](const TensorSignature &s) {
    return s.role == TensorRole::LossScale;
  });
  int finiteGrads = 0;
  for (unsigned r = 0; r < func.getNumResults(); ++r) {
    if (!func.getResultAttr(r, kFiniteGradsAttr))
      continue;
    TensorSignature &out = outputs_[r];
    if (out.global.getRank() != 0 || out.dtype == ::weft::rt::DType::I32)
      return func.emitError()
             << "result #" << r << ": " << kFiniteGradsAttr
             << " must be a rank-0 float tensor, not " << out.global;
    out.role = TensorRole::FiniteGrads;
    ++finiteGrads;
  }
  if (finiteGrads > 1 || (finiteGrads == 1) != scaled)
    return func.emitError()
           << "a loss_scale input and one " << kFiniteGradsAttr
           << " result come together (dynamic loss scaling: the harness "
              "skips the update of a step whose gradients are not finite); "
              "the function has "
           << (scaled ? "a" : "no") << " loss_scale input and " << finiteGrads
           << " such result(s)";
  llvm::SmallDenseSet<int64_t> updated;
  for (unsigned r = 0; r < func.getNumResults(); ++r) {
    auto attr = func.getResultAttrOfType<IntegerAttr>(r, kUpdatesAttr);
    if (!attr)
      continue;
    int64_t i = attr.getInt();
    if (i < 0 || i >= static_cast<int64_t>(inputs_.size()))
      return func.emitError() << "result #" << r << ": weft.updates = " << i
                              << " is not an argument";
    const TensorSignature &in = inputs_[i];
    TensorSignature &out = outputs_[r];
    if (in.role != TensorRole::Param && in.role != TensorRole::State)
      return func.emitError()
             << "result #" << r << " updates argument #" << i
             << ", which is neither a weft.param nor optimizer state";
    if (!updated.insert(i).second)
      return func.emitError() << "argument #" << i << " is updated twice";
    if (in.global != out.global || in.dims != out.dims || !out.partial.empty())
      return func.emitError()
             << "result #" << r << " updates argument #" << i
             << " but its global type or layout differs: the runtime feeds "
                "it back in place";
    out.updates = static_cast<int>(i);
  }
  if (auto opt = func->getAttrOfType<DictionaryAttr>(kOptimizerAttr)) {
    auto kind = opt.getAs<StringAttr>("kind");
    optimizer_ = kind ? kind.getValue().str() : "custom";
    if (auto lr = opt.getAs<FloatAttr>("lr"))
      defaultLr_ = lr.getValueAsDouble();
  }
  return success();
}

LogicalResult ProgramInfo::checkBody() {
  // The entry's ops are numbered first, then each callee's.
  int index = 0;
  if (failed(checkBlock(func_.getBody().front(), index)))
    return failure();
  // The functions the entry calls (weft-outline-layers): one block each,
  // no call inside.
  llvm::SmallPtrSet<Operation *, 4> seen;
  WalkResult walk = func_.walk([&](func::CallOp call) {
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        call, call.getCalleeAttr());
    if (!callee || callee.isExternal() || !callee.getBody().hasOneBlock()) {
      call.emitError("cannot lower a call of @")
          << call.getCallee() << ": no function of one block has that name";
      return WalkResult::interrupt();
    }
    if (!seen.insert(callee).second)
      return WalkResult::advance();
    if (!callee.getBody().getOps<func::CallOp>().empty()) {
      callee.emitError("cannot lower @")
          << callee.getSymName()
          << ": it calls a function (only the entry's calls are lowered)";
      return WalkResult::interrupt();
    }
    if (failed(checkBlock(callee.getBody().front(), index)))
      return WalkResult::interrupt();
    callees_.push_back(callee);
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

std::string ProgramInfo::calleeName(StringRef symbol) {
  return "weft_call_" + identifier(symbol);
}

LogicalResult ProgramInfo::checkBlock(Block &body, int &index) {
  // Every op but the return is one a pattern lowers to one call, or a call
  // of a function (the entry's, lowered to a call of its C++ function).
  for (Operation &op : body) {
    if (isa<func::ReturnOp, func::CallOp>(op))
      continue;
    if (op.getNumResults() != 1)
      return op.emitError("cannot lower '")
             << op.getName() << "' to the runtime";
    if (isa<ShardOp>(op))
      return op.emitError("weft.shard belongs to the global view: run "
                          "--weft-partition before --weft-lower-to-runtime");
    if (!isComputeOp(&op) && !isCollectiveOp(&op))
      return op.emitError("cannot lower '")
             << op.getName() << "' to the runtime";
    opIndex_[&op] = index++;
  }
  // Where each value dies, by op position.
  DenseMap<Operation *, unsigned> position;
  for (auto [i, op] : llvm::enumerate(body))
    position[&op] = i;
  DenseMap<Value, unsigned> lastUse;
  for (Operation &op : body)
    for (Value v : op.getOperands())
      lastUse[v] = std::max(lastUse.lookup(v), position[&op]);
  for (Operation &op : body) {
    if (op.getNumOperands() == 0)
      continue;
    Value in0 = op.getOperand(0);
    if (!isa<BlockArgument>(in0) && lastUse.lookup(in0) == position[&op] &&
        llvm::count(op.getOperands(), in0) == 1)
      firstOperandDies_.insert(&op);
  }
  return success();
}

/// `sig` as the harness's description.
static rt::ProgramTensor programTensor(const TensorSignature &sig) {
  rt::ProgramTensor t;
  t.name = sig.name;
  t.dtype = sig.dtype;
  t.globalShape.assign(sig.global.getShape().begin(),
                       sig.global.getShape().end());
  t.layout.dims = sig.dims;
  t.partialAxes = sig.partial;
  t.partialKind =
      rt::parseReduceKind(stringifyReductionKind(sig.partialKind).str());
  t.intBound = sig.intBound;
  t.role = sig.role;
  t.updates = sig.updates;
  t.microBatch = sig.microBatch;
  t.logicalShape = sig.logicalShape;
  return t;
}

/// `weft::rt::decodeTensorTable(...)` of `sigs`' tensor table, one string
/// literal per row (docs/lowering.md, "The tensor table"); empty when the
/// table does not read back as `sigs` (then the caller writes one
/// initializer per tensor).
static std::string tensorTableCpp(ArrayRef<TensorSignature> sigs) {
  std::vector<rt::ProgramTensor> tensors;
  std::string table;
  try {
    for (const TensorSignature &sig : sigs)
      tensors.push_back(programTensor(sig));
    table = rt::encodeTensorTable(tensors);
    std::vector<rt::ProgramTensor> back = rt::decodeTensorTable(table);
    if (back.size() != tensors.size())
      return "";
    for (auto [a, b] : llvm::zip_equal(back, tensors))
      if (!rt::sameProgramTensor(a, b))
        return "";
  } catch (const rt::Error &) {
    return "";
  }
  if (table.empty())
    return "{}";
  std::string s = "weft::rt::decodeTensorTable(";
  SmallVector<StringRef> lines;
  StringRef(table).rtrim('\n').split(lines, '\n');
  for (StringRef line : lines)
    s += "\n    " + cppString(line.str() + "\n");
  return s + ")";
}

std::string ProgramInfo::programInitializer() const {
  auto tensors = [&](ArrayRef<TensorSignature> sigs) {
    std::string table = tensorTableCpp(sigs);
    if (!table.empty())
      return table;
    std::string s = "{";
    for (auto [i, sig] : llvm::enumerate(sigs)) {
      std::string layout = "weft::rt::Layout{.dims = {";
      for (auto [d, axes] : llvm::enumerate(sig.dims))
        layout += (d ? ", " : "") + ("weft::rt::AxisList" + toCpp(axes));
      layout += "}}";
      s += (i ? ",\n    " : "\n    ");
      s += "weft::rt::ProgramTensor{.name = " + cppString(sig.name) +
           ", .dtype = " + toCpp(sig.dtype) + ", .globalShape = " +
           toCpp(std::vector<int64_t>(sig.global.getShape().begin(),
                                      sig.global.getShape().end())) +
           ", .layout = " + layout + ", .partialAxes = weft::rt::AxisList" +
           toCpp(sig.partial) +
           ", .partialKind = " + reduceKindCpp(sig.partialKind) +
           ", .intBound = " + std::to_string(sig.intBound);
      // A training step's fields, only where they differ from a forward
      // program's defaults.
      if (sig.role != ::weft::rt::TensorRole::Data)
        s += ", .role = weft::rt::TensorRole(" +
             std::to_string(static_cast<int>(sig.role)) + ")";
      if (sig.updates >= 0)
        s += ", .updates = " + std::to_string(sig.updates);
      if (sig.microBatch > 0)
        s += ", .microBatch = " + std::to_string(sig.microBatch);
      if (!sig.logicalShape.empty())
        s += ", .logicalShape = " + toCpp(sig.logicalShape);
      s += "}";
    }
    return s + "}";
  };
  std::string mesh = "{";
  for (auto [i, a] : llvm::enumerate(mesh_.axes))
    mesh += (i ? ", " : "") + ("weft::rt::MeshAxis{" + cppString(a) + ", " +
                               std::to_string(mesh_.sizes[i]) + "}");
  mesh += "}";
  func::FuncOp func = func_; // Op methods are not const.
  std::string where = shortLoc(func.getLoc());
  std::string source = where.substr(0, where.rfind(':'));
  return "{.name = " + cppString(func.getSymName().str()) +
         ", .source = " + cppString(source) + ", .mesh = " + mesh +
         ",\n  .inputs = " + tensors(inputs_) +
         ",\n  .outputs = " + tensors(outputs_) + ",\n  .step = " + stepName_ +
         (optimizer_.empty()
              ? std::string()
              : ", .optimizer = " + cppString(optimizer_) +
                    ", .defaultLr = " + formatDouble(defaultLr_) +
                    ", .microBatches = " + std::to_string(microBatches_)) +
         "}";
}
