//===- Backend.h - The runtime interface generated code calls ---*- C++ -*-===//
//
// One abstract backend with a CPU (OpenBLAS + MPI) and a CUDA (cuBLAS +
// NCCL) implementation in backends/. The public, non-virtual methods check
// arguments, time the op for the profiler and orchestrate plans (reduce ->
// permute -> GEMM -> permute; pack -> communicate -> unpack); the backends
// implement only the primitive kernels and communication calls below, so
// both execute the same plans.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_BACKEND_H
#define WEFT_RT_BACKEND_H

#include "weft/rt/CollectivePlan.h"
#include "weft/rt/EinsumPlan.h"
#include "weft/rt/ElementPlans.h"
#include "weft/rt/Kinds.h"
#include "weft/rt/Mesh.h"
#include "weft/rt/Tensor.h"

#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace weft::rt {

class Profiler;

class Backend {
public:
  /// `rank` is this process's mesh device index; the world must have
  /// mesh.numDevices() ranks once collectives are used.
  Backend(Mesh mesh, int64_t rank);
  virtual ~Backend();
  Backend(const Backend &) = delete;
  Backend &operator=(const Backend &) = delete;

  virtual const char *name() const = 0;
  virtual Device device() const = 0;
  const Mesh &mesh() const { return mesh_; }
  int64_t rank() const { return rank_; }
  void setProfiler(Profiler *p) { profiler_ = p; }
  Profiler *profiler() const { return profiler_; }

  //===--- Memory ----------------------------------------------------------//
  /// Uninitialized tensor in this backend's memory.
  virtual Tensor empty(DType dtype, const Shape &shape) = 0;
  Tensor zeros(DType dtype, const Shape &shape);
  virtual void copyFromHost(Tensor &dst, const void *src) = 0;
  virtual void copyToHost(const Tensor &src, void *dst) = 0;
  /// Host tensor -> backend tensor and back (copies).
  Tensor upload(const Tensor &host);
  Tensor download(const Tensor &t);
  /// Waits for all queued work (no-op on CPU).
  virtual void synchronize() {}

  //===--- Compute (local view) --------------------------------------------//
  /// `b` is null for a unary plan. `out` must have plan.outShape.
  void einsum(const EinsumPlan &plan, const Tensor &a, const Tensor *b,
              Tensor &out, std::string_view label = {});
  /// Plans on first use (cached by spec, shapes, dtype) then runs.
  void einsum(const std::string &spec, const Tensor &a, const Tensor *b,
              Tensor &out, std::string_view label = {});
  /// `scalar` is the constant of MapKind::Scale and MapKind::Shift.
  void map(MapKind kind, const MapPlan &plan, const Tensor &a, const Tensor *b,
           Tensor &out, double scalar = 0, std::string_view label = {});
  void reduce(ReduceKind kind, const ReducePlan &plan, const Tensor &in,
              Tensor &out, std::string_view label = {});
  /// Masked lookup of i32 ids in the table rows [rowOffset, rowOffset+rows).
  void embed(const EmbedPlan &plan, const Tensor &ids, const Tensor &table,
             Tensor &out, int64_t rowOffset, std::string_view label = {});
  /// out = the block of `in` at `offsets` (out's shape is the block shape).
  void slice(const Tensor &in, const std::vector<int64_t> &offsets, Tensor &out,
             std::string_view label = {});
  /// out = this rank's block of `in` along `dim` split over `axes`.
  void sliceShard(const Tensor &in, int dim, const AxisList &axes, Tensor &out,
                  std::string_view label = {});

  //===--- Collectives over mesh axes --------------------------------------//
  /// `in` and `out` may be the same tensor.
  void allReduce(const Tensor &in, Tensor &out, const AxisList &axes,
                 ReduceKind kind, std::string_view label = {});
  void allGather(const Tensor &in, Tensor &out, int dim, const AxisList &axes,
                 std::string_view label = {});
  void reduceScatter(const Tensor &in, Tensor &out, int dim,
                     const AxisList &axes, ReduceKind kind,
                     std::string_view label = {});
  void allToAll(const Tensor &in, Tensor &out, int splitDim, int concatDim,
                const AxisList &axes, std::string_view label = {});
  /// Assembles the global tensor of `layout` on world rank 0 (a host tensor
  /// there, an empty Tensor elsewhere). Every rank must call it.
  Tensor gatherToRoot(const Tensor &local, const Layout &layout,
                      const Shape &globalShape, std::string_view label = {});

  //===--- Primitives a backend implements ----------------------------------//
  // Public so tests can drive them; generated code uses the methods above.
  virtual void copyStrided(const CopyPlan &plan, DType dtype, const void *src,
                           void *dst) = 0;
  virtual void fillZero(void *dst, DType dtype, int64_t count) = 0;
  virtual void gemm(const GemmPlan &plan, DType dtype, const void *a,
                    const void *b, void *c) = 0;
  virtual void mapKernel(MapKind kind, const MapPlan &plan, DType dtype,
                         const void *a, const void *b, void *out,
                         double scalar) = 0;
  virtual void reduceKernel(ReduceKind kind, const ReducePlan &plan,
                            DType dtype, const void *in, void *out) = 0;
  virtual void embedKernel(const EmbedPlan &plan, DType dtype,
                           const int32_t *ids, const void *table, void *out,
                           int64_t rowOffset) = 0;

  /// Group communication on contiguous buffers of this backend's memory.
  /// Chunks are ordered by group position (CollectivePlan.h).
  virtual void commAllReduce(const void *send, void *recv, int64_t count,
                             DType dtype, ReduceKind kind,
                             const GroupPlan &group) = 0;
  virtual void commAllGather(const void *send, void *recv, int64_t chunk,
                             DType dtype, const GroupPlan &group) = 0;
  virtual void commReduceScatter(const void *send, void *recv, int64_t chunk,
                                 DType dtype, ReduceKind kind,
                                 const GroupPlan &group) = 0;
  virtual void commAllToAll(const void *send, void *recv, int64_t chunk,
                            DType dtype, const GroupPlan &group) = 0;
  /// Gathers `bytes` host bytes from every world rank to world rank 0.
  virtual void gatherBytesToRoot(const void *send, void *recv,
                                 std::size_t bytes) = 0;

protected:
  /// Reusable scratch buffer `slot` of at least `bytes`, in backend memory.
  void *scratch(int slot, std::size_t bytes);
  void copyThrough(const Tensor &in, Tensor &out);
  const void *packedInput(const CollectivePlan &p, const Tensor &in);
  const GroupPlan &group(const AxisList &axes);

private:
  void recordOp(std::string_view label, const char *kind,
                const std::string &detail, double t0, double flops,
                double bytes);
  double startOp();

  Mesh mesh_;
  int64_t rank_;
  Profiler *profiler_ = nullptr;
  std::map<int, Tensor> scratch_;
  std::map<AxisList, GroupPlan> groups_;
  std::map<std::string, EinsumPlan> planCache_;
};

enum class BackendKind : int { Cpu, Cuda };

/// "cpu" / "cuda"; throws Error otherwise.
BackendKind parseBackendKind(const std::string &name);
/// True when the backend was compiled in (see Config.h).
bool backendAvailable(BackendKind kind);
/// Creates a backend; MPI must be initialized when the mesh has more than
/// one device. Throws Error when the kind is not compiled in or (cuda) no
/// device is present.
std::unique_ptr<Backend> createBackend(BackendKind kind, const Mesh &mesh,
                                       int64_t rank);

} // namespace weft::rt

#endif // WEFT_RT_BACKEND_H
