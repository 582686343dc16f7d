//===- FuncUtils.cpp - The one definition of per-function facts -----------===//

#include "weft/Dialect/Weft/IR/FuncUtils.h"

#include "weft/Dialect/Weft/IR/Limits.h"
#include "weft/Dialect/Weft/IR/MeshUtils.h"

#include <limits>

using namespace mlir;
using namespace mlir::weft;

TypeAttr mlir::weft::getArgGlobalType(func::FuncOp func, unsigned i) {
  return func.getArgAttrOfType<TypeAttr>(i, kGlobalTypeAttr);
}
TypeAttr mlir::weft::getResultGlobalType(func::FuncOp func, unsigned i) {
  return func.getResultAttrOfType<TypeAttr>(i, kGlobalTypeAttr);
}
void mlir::weft::setArgGlobalType(func::FuncOp func, unsigned i, Type global) {
  func.setArgAttr(i, kGlobalTypeAttr, TypeAttr::get(global));
}
void mlir::weft::setResultGlobalType(func::FuncOp func, unsigned i,
                                     Type global) {
  func.setResultAttr(i, kGlobalTypeAttr, TypeAttr::get(global));
}

StringAttr mlir::weft::getArgName(func::FuncOp func, unsigned i) {
  return func.getArgAttrOfType<StringAttr>(i, kNameAttr);
}
std::string mlir::weft::getArgNameOr(func::FuncOp func, unsigned i) {
  StringAttr name = getArgName(func, i);
  return name ? name.getValue().str() : "arg" + std::to_string(i);
}
StringAttr mlir::weft::getResultName(func::FuncOp func, unsigned i) {
  return func.getResultAttrOfType<StringAttr>(i, kNameAttr);
}
void mlir::weft::setArgName(func::FuncOp func, unsigned i, StringRef name) {
  func.setArgAttr(i, kNameAttr, StringAttr::get(func.getContext(), name));
}
void mlir::weft::setResultName(func::FuncOp func, unsigned i, StringRef name) {
  func.setResultAttr(i, kNameAttr, StringAttr::get(func.getContext(), name));
}

bool mlir::weft::hasGlobalTypes(func::FuncOp func) {
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (func.getArgAttr(i, kGlobalTypeAttr))
      return true;
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
    if (func.getResultAttr(i, kGlobalTypeAttr))
      return true;
  return false;
}

bool mlir::weft::isLocalViewOp(Operation *op) {
  if (op->hasTrait<LocalViewOnly>())
    return true;
  if (auto random = dyn_cast<RandomOp>(op))
    return static_cast<bool>(random.getMeshAttr());
  if (auto pad = dyn_cast<PadFillOp>(op))
    return static_cast<bool>(pad.getMeshAttr());
  auto block = dyn_cast<BlockIndexedOpInterface>(op);
  return block && block.getLocalBlockMesh();
}

bool mlir::weft::isLocalView(func::FuncOp func) {
  if (hasGlobalTypes(func))
    return true;
  return func
      .walk([](Operation *op) {
        return isLocalViewOp(op) ? WalkResult::interrupt()
                                 : WalkResult::advance();
      })
      .wasInterrupted();
}

bool mlir::weft::isLocalView(ModuleOp module) {
  return llvm::any_of(module.getOps<func::FuncOp>(),
                      [](func::FuncOp f) { return isLocalView(f); });
}

LogicalResult mlir::weft::verifyGlobalView(func::FuncOp func, StringRef pass) {
  if (hasGlobalTypes(func))
    return func.emitOpError()
           << "is already partitioned (it carries weft.global_type); " << pass
           << " runs on the global view";
  Operation *local = nullptr;
  func.walk([&](Operation *op) {
    if (!isLocalViewOp(op))
      return WalkResult::advance();
    local = op;
    return WalkResult::interrupt();
  });
  if (local)
    return local->emitOpError()
           << "is a local-view op; " << pass
           << " runs on the global view (before weft-partition)";
  return success();
}

FailureOr<MeshOp> mlir::weft::getFunctionMesh(func::FuncOp func,
                                              SymbolTableCollection &tables) {
  FlatSymbolRefAttr ref;
  Location refLoc = func.getLoc();
  auto use = [&](FlatSymbolRefAttr named, Location loc) -> LogicalResult {
    if (!named || named == ref)
      return success();
    if (!ref) {
      ref = named;
      refLoc = loc;
      return success();
    }
    InFlightDiagnostic diag = emitError(loc)
                              << "names mesh " << named
                              << " but the function already uses mesh " << ref
                              << "; one function runs on one mesh";
    diag.attachNote(refLoc) << "mesh " << ref << " named here";
    return failure();
  };
  auto useType = [&](Type type, Location loc) {
    ShardingAttr s = getSharding(type);
    return use(s ? s.getMesh() : FlatSymbolRefAttr(), loc);
  };
  auto useGlobal = [&](TypeAttr t, Location loc) {
    return t ? useType(t.getValue(), loc) : success();
  };
  for (BlockArgument arg : func.getArguments())
    if (failed(useType(arg.getType(), arg.getLoc())) ||
        failed(useGlobal(getArgGlobalType(func, arg.getArgNumber()),
                         arg.getLoc())))
      return failure();
  for (auto [i, t] : llvm::enumerate(func.getResultTypes()))
    if (failed(useType(t, func.getLoc())) ||
        failed(useGlobal(getResultGlobalType(func, i), func.getLoc())))
      return failure();
  WalkResult walk = func.walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      if (failed(useType(t, op->getLoc())))
        return WalkResult::interrupt();
    if (isLocalViewOp(op))
      if (failed(
              use(op->getAttrOfType<FlatSymbolRefAttr>("mesh"), op->getLoc())))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  MeshOp mesh;
  if (ref) {
    FailureOr<MeshOp> named = lookupMesh(func, ref, tables);
    if (failed(named))
      return failure();
    mesh = *named;
  } else if (auto module = func->getParentOfType<ModuleOp>()) {
    SmallVector<MeshOp> meshes(module.getOps<MeshOp>());
    if (meshes.size() == 1)
      mesh = meshes.front();
  }
  // The signature is checked here, where every tool learns the mesh: no op
  // verifies an annotated argument that no op uses.
  if (failed(verifySignature(func, tables)))
    return failure();
  return mesh;
}

/// `@a @b @c @d ...`: the first few names of `funcs`.
static std::string someNames(ArrayRef<func::FuncOp> funcs) {
  std::string text;
  for (auto [i, f] : llvm::enumerate(funcs)) {
    if (i == 4)
      return text + " ...";
    text += (i ? " @" : "@") + func::FuncOp(f).getSymName().str();
  }
  return text;
}

FailureOr<func::FuncOp> mlir::weft::selectFunction(ModuleOp module,
                                                   StringRef entry,
                                                   StringRef what,
                                                   StringRef option) {
  SmallVector<func::FuncOp> funcs;
  for (func::FuncOp f : module.getOps<func::FuncOp>())
    if (!f.isExternal())
      funcs.push_back(f);
  if (!entry.empty()) {
    for (func::FuncOp f : module.getOps<func::FuncOp>())
      if (f.getSymName() == entry)
        return f;
    InFlightDiagnostic diag =
        module.emitError() << what << ": no function named '" << entry << "'";
    if (!funcs.empty())
      diag << " (the module has " << someNames(funcs) << ")";
    return failure();
  }
  if (funcs.size() == 1)
    return funcs.front();
  // Layers are private functions the entry calls (docs/calls.md): the entry
  // is then the one public function with a body.
  SmallVector<func::FuncOp> publicFuncs;
  for (func::FuncOp f : funcs)
    if (f.isPublic())
      publicFuncs.push_back(f);
  if (publicFuncs.size() == 1 && funcs.size() > 1)
    return publicFuncs.front();
  if (publicFuncs.size() > 1)
    funcs = publicFuncs;
  InFlightDiagnostic diag = module.emitError()
                            << what << ": expected one function, found "
                            << funcs.size();
  if (!funcs.empty())
    diag << " (" << someNames(funcs) << "); choose one with " << option;
  return failure();
}

int64_t mlir::weft::getGlobalBlockSize(BlockIndexedOpInterface op) {
  int64_t rows = op.getLocalBlockSize();
  if (!op.getLocalBlockMesh() || !op.getLocalBlockAxes())
    return rows;
  auto mesh =
      SymbolTable::lookupNearestSymbolFrom<MeshOp>(op, op.getLocalBlockMesh());
  if (!mesh)
    return rows;
  SmallVector<int64_t> sizes{rows};
  for (Attribute axis : op.getLocalBlockAxes())
    if (auto name = dyn_cast<StringAttr>(axis))
      if (std::optional<int64_t> size = mesh.getAxisSize(name.getValue()))
        sizes.push_back(*size);
  return boundedProduct(sizes, std::numeric_limits<int64_t>::max())
      .value_or(std::numeric_limits<int64_t>::max());
}

SmallVector<Mesh> mlir::weft::getModuleMeshes(ModuleOp module) {
  SmallVector<Mesh> meshes;
  for (MeshOp mesh : module.getOps<MeshOp>())
    meshes.push_back(Mesh(mesh));
  return meshes;
}

std::string mlir::weft::callSiteKey(Location loc) {
  Location inner = loc;
  while (auto name = dyn_cast<NameLoc>(inner))
    inner = name.getChildLoc();
  if (auto file = dyn_cast<FileLineColLoc>(inner))
    return (file.getFilename().getValue() + ":" + Twine(file.getLine()) + ":" +
            Twine(file.getColumn()))
        .str();
  std::string s;
  llvm::raw_string_ostream os(s);
  loc.print(os);
  return s;
}

LocationAttr mlir::weft::outermostCallSite(Location loc) {
  while (true) {
    if (auto name = dyn_cast<NameLoc>(loc)) {
      loc = name.getChildLoc();
    } else if (auto site = dyn_cast<CallSiteLoc>(loc)) {
      return site.getCaller();
    } else if (auto fused = dyn_cast<FusedLoc>(loc)) {
      for (Location part : fused.getLocations())
        if (LocationAttr call = outermostCallSite(part))
          return call;
      return {};
    } else {
      return {};
    }
  }
}

llvm::StringMap<std::string> mlir::weft::readCallSites(ModuleOp module) {
  llvm::StringMap<std::string> callee;
  auto sites = module->getAttrOfType<DictionaryAttr>(kCallSitesAttr);
  if (!sites)
    return callee;
  for (NamedAttribute entry : sites)
    if (auto calls = dyn_cast<ArrayAttr>(entry.getValue()))
      for (Attribute call : calls)
        if (auto key = dyn_cast<StringAttr>(call))
          callee[key.getValue()] = entry.getName().getValue().str();
  return callee;
}
