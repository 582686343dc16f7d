//===- Mesh.h - ranks, mesh coordinates and collective groups ---*- C++ -*-===//
//
// Ranks map to mesh coordinates row-major (the last axis varies fastest). A
// collective over a list of axes runs inside each group of ranks that agree
// on every coordinate not in the list; a rank's position in its group is the
// row-major index of its coordinates over the listed axes, in the listed
// order (design.md section 2).
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_INTERPRETER_MESH_H
#define WEFT_INTERPRETER_MESH_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir::weft {
class MeshOp;
} // namespace mlir::weft

namespace mlir::weft::interp {

/// The axes of a mesh with their sizes. A mesh without axes has one rank
/// (the mesh of a program that names none).
class Mesh {
public:
  Mesh() = default;
  Mesh(ArrayRef<std::string> names, ArrayRef<int64_t> sizes);
  static Mesh get(MeshOp op);

  int64_t getNumRanks() const;
  unsigned getNumAxes() const { return names.size(); }
  /// Index of the named axis, if the mesh has it.
  std::optional<unsigned> getAxisIndex(StringRef axis) const;

  /// Coordinates of `rank`, one per axis.
  SmallVector<int64_t> getCoords(int64_t rank) const;
  /// The rank at `coords`.
  int64_t getRank(ArrayRef<int64_t> coords) const;

  /// Product of the sizes of `axes` (every axis must exist).
  int64_t getGroupSize(ArrayRef<StringRef> axes) const;
  /// Row-major index of `rank`'s coordinates over `axes`, in that order.
  int64_t getGroupPosition(int64_t rank, ArrayRef<StringRef> axes) const;
  /// The ranks of `rank`'s group over `axes`, in group order (element `i`
  /// has group position `i`).
  SmallVector<int64_t> getGroup(int64_t rank, ArrayRef<StringRef> axes) const;

private:
  SmallVector<std::string> names;
  SmallVector<int64_t> sizes;
};

} // namespace mlir::weft::interp

#endif // WEFT_INTERPRETER_MESH_H
