//===- BackendFactory.cpp - The registry of the compiled-in backends ------===//
//
// The compiled-in backends come from the generated weft/rt/Backends.inc:
// their registration functions are called here, explicitly, so the linker
// keeps every backend's objects (no static initializers in static
// libraries).
//
//===----------------------------------------------------------------------===//

#include "weft/rt/BackendRegistry.h"
#include "weft/rt/Error.h"

namespace weft::rt {

#define WEFT_RT_BACKEND(name, fn) void fn(BackendRegistry &);
#define WEFT_RT_MISSING_BACKEND(name, reason)
#include "weft/rt/Backends.inc"
#undef WEFT_RT_BACKEND
#undef WEFT_RT_MISSING_BACKEND

BackendRegistry &BackendRegistry::global() {
  // Never destroyed: backends may be created until exit.
  static BackendRegistry *registry = [] {
    auto *r = new BackendRegistry;
#define WEFT_RT_BACKEND(name, fn) fn(*r);
#define WEFT_RT_MISSING_BACKEND(name, reason) r->addMissing(#name, reason);
#include "weft/rt/Backends.inc"
#undef WEFT_RT_BACKEND
#undef WEFT_RT_MISSING_BACKEND
    return r;
  }();
  return *registry;
}

std::vector<std::string> availableBackends() {
  return BackendRegistry::global().names();
}

std::vector<std::string> knownBackends() {
  return BackendRegistry::global().knownNames();
}

std::unique_ptr<Backend> createBackend(std::string_view name, const Mesh &mesh,
                                       int64_t rank) {
  return BackendRegistry::global().create(name, mesh, rank);
}

//===--- BackendKind (Backend.h) ------------------------------------------===//

static const char *kindName(BackendKind kind) {
  return kind == BackendKind::Cuda ? "cuda" : "cpu";
}

BackendKind parseBackendKind(const std::string &name) {
  if (name == "cpu")
    return BackendKind::Cpu;
  if (name == "cuda")
    return BackendKind::Cuda;
  std::string names;
  for (const auto &n : knownBackends())
    names += (names.empty() ? "" : ", ") + n;
  fail("unknown backend '", name, "' (expected ", names, ")");
}

bool backendAvailable(BackendKind kind) {
  return BackendRegistry::global().contains(kindName(kind));
}

std::unique_ptr<Backend> createBackend(BackendKind kind, const Mesh &mesh,
                                       int64_t rank) {
  return createBackend(std::string_view(kindName(kind)), mesh, rank);
}

} // namespace weft::rt
