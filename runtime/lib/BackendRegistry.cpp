//===- BackendRegistry.cpp - Backends by name -----------------------------===//

#include "weft/rt/BackendRegistry.h"
#include "weft/rt/Error.h"

#include <algorithm>

namespace weft::rt {

namespace {
std::string joined(const std::vector<std::string> &names) {
  std::string s;
  for (const auto &n : names)
    s += (s.empty() ? "" : ", ") + n;
  return s;
}
} // namespace

void BackendRegistry::add(const std::string &name,
                          const std::string &description,
                          BackendCreateFn create) {
  check(!name.empty() && create, "a backend needs a name and a factory");
  check(!contains(name), "backend '", name, "' is registered twice");
  missing_.erase(name);
  entries_.emplace(name, Entry{description, std::move(create)});
}

void BackendRegistry::addMissing(const std::string &name,
                                 const std::string &reason) {
  if (!contains(name))
    missing_[name] = reason;
}

bool BackendRegistry::contains(std::string_view name) const {
  return entries_.find(name) != entries_.end();
}

std::vector<std::string> BackendRegistry::names() const {
  std::vector<std::string> out;
  for (const auto &[name, entry] : entries_)
    out.push_back(name);
  return out;
}

std::vector<std::string> BackendRegistry::knownNames() const {
  std::vector<std::string> out = names();
  for (const auto &[name, reason] : missing_)
    out.push_back(name);
  std::sort(out.begin(), out.end());
  return out;
}

std::string BackendRegistry::description(std::string_view name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? std::string() : it->second.description;
}

std::string BackendRegistry::whyUnavailable(std::string_view name) const {
  if (contains(name))
    return {};
  if (auto it = missing_.find(name); it != missing_.end())
    return "the " + std::string(name) + " backend is not compiled in (" +
           it->second + ")";
  return "unknown backend '" + std::string(name) +
         "' (available: " + joined(names()) + ")";
}

std::unique_ptr<Backend> BackendRegistry::create(std::string_view name,
                                                 const Mesh &mesh,
                                                 int64_t rank) const {
  auto it = entries_.find(name);
  if (it == entries_.end())
    fail(whyUnavailable(name));
  return it->second.create(mesh, rank);
}

} // namespace weft::rt
