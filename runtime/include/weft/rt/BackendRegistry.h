//===- BackendRegistry.h - Backends by name ---------------------*- C++ -*-===//
//
// Backends register themselves by name: each one provides a registration
// function (registerCpuBackend, registerCudaBackend) and CMake writes the
// list of the compiled-in ones into the generated weft/rt/Backends.inc,
// which BackendFactory.cpp calls explicitly on first use. No static
// initializers: the backends are static libraries, and the linker drops
// objects nothing references, registrars included.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_BACKENDREGISTRY_H
#define WEFT_RT_BACKENDREGISTRY_H

#include "weft/rt/Backend.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace weft::rt {

/// Creates a backend for this rank of `mesh`; throws Error when it cannot
/// (no device, MPI world of the wrong size, ...).
using BackendCreateFn =
    std::function<std::unique_ptr<Backend>(const Mesh &mesh, int64_t rank)>;

class BackendRegistry {
public:
  /// The registry of every compiled-in backend (filled on first use).
  static BackendRegistry &global();

  /// Adds a backend; throws Error when `name` is taken or empty.
  void add(const std::string &name, const std::string &description,
           BackendCreateFn create);
  /// Records a backend Weft has but this build lacks, with how to get it
  /// (for the error of create()).
  void addMissing(const std::string &name, const std::string &reason);
  bool contains(std::string_view name) const;
  /// Registered names, sorted.
  std::vector<std::string> names() const;
  /// Registered and missing names, sorted.
  std::vector<std::string> knownNames() const;
  std::string description(std::string_view name) const;
  /// Throws Error naming the registered backends when `name` is not one
  /// (or, for a backend Weft has but this build lacks, how to build it).
  std::unique_ptr<Backend> create(std::string_view name, const Mesh &mesh,
                                  int64_t rank) const;
  /// Empty when `name` is registered, else the error create() would throw.
  std::string whyUnavailable(std::string_view name) const;

private:
  struct Entry {
    std::string description;
    BackendCreateFn create;
  };
  std::map<std::string, Entry, std::less<>> entries_;
  std::map<std::string, std::string, std::less<>> missing_;
};

/// Names of the compiled-in backends, sorted ("cpu", "cuda").
std::vector<std::string> availableBackends();
/// Names of every backend Weft has, compiled in or not, sorted.
std::vector<std::string> knownBackends();
/// The backend called `name` (BackendRegistry::global().create).
std::unique_ptr<Backend> createBackend(std::string_view name, const Mesh &mesh,
                                       int64_t rank);

} // namespace weft::rt

#endif // WEFT_RT_BACKENDREGISTRY_H
