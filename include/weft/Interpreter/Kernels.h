//===- Kernels.h - naive loops for the index-letter ops ---------*- C++ -*-===//
//
// Reference semantics of weft.einsum, weft.map, weft.reduce and weft.embed
// on dense tensors: plain loops over every letter, in double. The same
// kernels run the global view and, on local shapes, every rank of the local
// view.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_INTERPRETER_KERNELS_H
#define WEFT_INTERPRETER_KERNELS_H

#include "weft/Dialect/Weft/IR/IndexSpec.h"
#include "weft/Dialect/Weft/IR/WeftAttrs.h"
#include "weft/Interpreter/Tensor.h"

namespace mlir::weft::interp {

/// `result[out] = sum over the other letters of prod_i inputs[i][letters_i]`.
Tensor einsum(const IndexSpec &spec, ArrayRef<const Tensor *> inputs,
              ArrayRef<int64_t> resultShape);

/// Applies one map kind to scalars (`scalar` is read by scale and shift).
double applyMap(MapKind kind, double x, double y, double scalar);

/// Elementwise `kind`, broadcasting each operand by its letters.
Tensor map(MapKind kind, double scalar, const IndexSpec &spec,
           ArrayRef<const Tensor *> inputs, ArrayRef<int64_t> resultShape);

/// Reduction by `kind` over the letters absent from the result (the
/// identity of max is -inf, of min +inf).
Tensor reduce(ReductionKind kind, const IndexSpec &spec, const Tensor &input,
              ArrayRef<int64_t> resultShape);

/// An id of a weft.embed outside the vocabulary.
struct BadId {
  /// Row-major index of the id in the ids tensor, and its value.
  int64_t index = -1;
  int64_t value = 0;
};

/// The gather `result[ids letters, kept] = table[batch, ids[...] - firstRow,
/// kept]` (batch: the letters the ids and the table share). `lookedUp` is
/// the table letter the ids index (EmbedOp::getBlockLetter). The table holds
/// rows [firstRow, firstRow + rows) of the looked-up letter, of `vocab` rows;
/// ids in the vocabulary but outside the table's rows look up zeros (a rank's
/// masked lookup). An id outside [0, vocab) fails and is reported in `bad`.
FailureOr<Tensor> embed(const IndexSpec &spec, const Tensor &ids,
                        const Tensor &table, char lookedUp,
                        ArrayRef<int64_t> resultShape, int64_t firstRow,
                        int64_t vocab, BadId &bad);

/// `result[batch, v, kept] = sum of updates[..., kept] over the ids
/// positions whose id is v` (scatter_add "ids,updates->result", the
/// transpose of embed "ids,result->updates"; `lookedUp` is the result
/// letter the ids index, ScatterAddOp::getBlockLetter). The result holds rows
/// [firstRow, firstRow + rows) of a vocabulary of `vocab`; other ids are
/// skipped. An id outside [0, vocab) fails and is reported in `bad`.
FailureOr<Tensor> scatterAdd(const IndexSpec &spec, const Tensor &ids,
                             const Tensor &updates, char lookedUp,
                             ArrayRef<int64_t> resultShape, int64_t firstRow,
                             int64_t vocab, BadId &bad);

/// `result[..., v] = ids[...] == firstColumn + v` (one_hot "ids->result",
/// v the result letter the ids lack). Ids outside [0, vocab) fail.
FailureOr<Tensor> oneHot(const IndexSpec &spec, const Tensor &ids,
                         ArrayRef<int64_t> resultShape, int64_t firstColumn,
                         int64_t vocab, BadId &bad);

} // namespace mlir::weft::interp

#endif // WEFT_INTERPRETER_KERNELS_H
