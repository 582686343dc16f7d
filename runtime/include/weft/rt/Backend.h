//===- Backend.h - The runtime interface generated code calls ---*- C++ -*-===//
//
// One abstract backend with a CPU (oneDNN/OpenBLAS + MPI) and a CUDA (cuBLAS +
// NCCL) implementation in backends/. The public, non-virtual methods check
// arguments, time the op for the profiler and orchestrate plans (reduce ->
// permute -> GEMM -> permute; pack -> communicate -> unpack); the backends
// implement only the primitive kernels below and supply a Communicator
// (Communicator.h) for the communication, so both execute the same plans.
//
//===----------------------------------------------------------------------===//

#ifndef WEFT_RT_BACKEND_H
#define WEFT_RT_BACKEND_H

#include "weft/rt/BufferPool.h"
#include "weft/rt/CollectivePlan.h"
#include "weft/rt/Communicator.h"
#include "weft/rt/EinsumPlan.h"
#include "weft/rt/ElementPlans.h"
#include "weft/rt/Kinds.h"
#include "weft/rt/Mesh.h"
#include "weft/rt/Tensor.h"

#include <array>
#include <functional>
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
  /// Sets every element of `t` to `value` (rounded to t's dtype): fillZero
  /// then the Shift map in place, so no backend needs a kernel of its own.
  /// `plan` is the identity map over t's elements (planMap("a->a",
  /// {{n}}), planned once by the caller: the lowering, for weft.constant).
  void fill(Tensor &t, const MapPlan &plan, double value,
            std::string_view label = {});
  virtual void copyFromHost(Tensor &dst, const void *src) = 0;
  virtual void copyToHost(const Tensor &src, void *dst) = 0;
  /// Host tensor -> backend tensor and back (copies).
  Tensor upload(const Tensor &host);
  Tensor download(const Tensor &t);
  /// Waits for all queued work (no-op on CPU).
  virtual void synchronize() {}
  /// The allocator's counters (live bytes and their high-water mark), for
  /// `--memory-report`; zeros for a backend without a pool.
  virtual BufferPool::Stats memoryStats() const { return {}; }
  /// Restarts memoryStats' high-water marks from the bytes live now.
  virtual void resetMemoryPeak() {}
  /// One line a program prints on rank 0 at start (stderr), or "" for
  /// none: the CPU backend names its GEMM library and kernel ISA there.
  virtual std::string startBanner() const { return {}; }
  /// dst = src, queued on the backend's stream like an op (same dtype and
  /// element count; not overlapping). The default goes through the host.
  virtual void copyDevice(const Tensor &src, Tensor &dst);

  //===--- Graphs (docs/runtime.md, "CUDA graphs") -------------------------//
  /// Whether the backend can record the ops queued between
  /// beginGraphCapture and endGraphCapture into a graph and replay it
  /// (CUDA graphs). The recorded ops do not run while they are recorded.
  virtual bool supportsGraphs() const { return false; }
  virtual void beginGraphCapture();
  /// Ends the recording and makes the graph launchGraph replays; throws
  /// Error when the recorded work could not be captured. Returns the number
  /// of nodes the graph has.
  virtual std::size_t endGraphCapture();
  /// Ends a recording that failed (an op threw): nothing is kept.
  virtual void abortGraphCapture() {}
  /// Queues one run of the recorded graph.
  virtual void launchGraph();

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
  /// A fused chain of maps (planFusedMap): one pass computes every step per
  /// element and writes the last step's result into `out`. `inputs` has one
  /// tensor per plan input, each of out's float dtype and of
  /// plan.inShapes[i]; `out` has plan.outShape and must not overlap an
  /// input. Bit-identical to running the steps as separate maps.
  void fusedMap(const FusedMapPlan &plan,
                const std::vector<const Tensor *> &inputs, Tensor &out,
                std::string_view label = {});
  /// weft.fused_einsum: out = the chain `epilogue` (planFusedMap) over the
  /// einsum `plan` of inputs[0] and inputs[1] (epilogue input 0) and
  /// inputs[2...] (epilogue inputs 1...). A backend may run the chain inside
  /// its GEMM (fusedGemmKernel; the CPU: oneDNN post-ops), which may differ
  /// from the unfused maps by rounding; else the GEMM writes `out` and one
  /// fusedMapKernel pass applies the chain in place.
  void fusedEinsum(const EinsumPlan &plan, const FusedMapPlan &epilogue,
                   const std::vector<const Tensor *> &inputs, Tensor &out,
                   std::string_view label = {});
  /// A fused chain of maps and row reductions (planFusedRows), with  /// A
  /// fused chain of maps and row reductions (planFusedRows), with fusedMap's
  /// contract on inputs and out. Bit-identical to running the steps as separate
  /// maps and reductions on the same backend.
  void fusedRows(const FusedRowsPlan &plan,
                 const std::vector<const Tensor *> &inputs, Tensor &out,
                 std::string_view label = {});
  void reduce(ReduceKind kind, const ReducePlan &plan, const Tensor &in,
              Tensor &out, std::string_view label = {});
  /// Masked lookup of i32 ids in the table rows [rowOffset, rowOffset+rows).
  void embed(const EmbedPlan &plan, const Tensor &ids, const Tensor &table,
             Tensor &out, int64_t rowOffset, std::string_view label = {});
  /// The transpose of embed: out (the table rows [rowOffset,
  /// rowOffset+rows) of plan.tableShape) = the sum of the updates rows
  /// whose id falls in them (planScatterAdd). Overwrites `out`.
  void scatterAdd(const EmbedPlan &plan, const Tensor &ids,
                  const Tensor &updates, Tensor &out, int64_t rowOffset,
                  std::string_view label = {});
  /// out = 1 where the id equals the vocabulary index plus `offset`, else 0.
  void oneHot(const OneHotPlan &plan, const Tensor &ids, Tensor &out,
              int64_t offset, std::string_view label = {});
  /// out[i] = first + i (out is 1-D, any float type or i32).
  void iota(Tensor &out, int64_t first, std::string_view label = {});
  /// out = weft.random's numbers for the block of the global tensor whose
  /// first element has global indices `first` (one per dimension; Philox.h).
  void random(Tensor &out, RandomKind kind, uint64_t seed,
              const std::vector<int64_t> &first, std::string_view label = {});
  /// Uneven shards (planPadFill): out = `in` where the element lies inside
  /// the logical tensor (first[d] + i[d] < valid[d] for every dim d), else
  /// `fill` (rounded to the dtype; an i32 fill is clamped and truncated).
  /// `first`: the global index of the block's first element along each dim;
  /// `valid`: the logical (unpadded) global size of each dim. `in` and `out`
  /// have the same dtype (any) and shape and may be the same tensor.
  void padFill(const Tensor &in, Tensor &out, const std::vector<int64_t> &first,
               const std::vector<int64_t> &valid, double fill,
               std::string_view label = {});
  /// out = the cumulative sum of `in` along `dim` (planCumsum): inclusive
  /// out[..i..] = sum_{j<=i} in[..j..], exclusive sum_{j<i} (0 at the
  /// first), `reverse` from the end (sum_{j>=i}, sum_{j>i}). f32, f64, f16,
  /// bf16 (summed in float; f64 in double), sequentially along each line so
  /// every backend rounds as the naive loop does. 0 <= dim < rank. `in` and
  /// `out` have the same dtype and shape and may be the same tensor (a
  /// partial overlap is an error); an empty tensor is a no-op. A local op:
  /// the sum runs over this rank's block only.
  void cumsum(const Tensor &in, Tensor &out, int dim, bool exclusive,
              bool reverse, std::string_view label = {});
  /// out = the k largest elements of each line of `x` along `dim`
  /// (planTopK), ordered by descending value; NaN counts as larger than
  /// every number, and equal values (and NaNs) go to the lower index first
  /// (ops::topKBefore). Without a payload out holds x's selected elements;
  /// with one (same dtype and shape as x, e.g. global indices) it holds the
  /// payload's elements at the selected positions. Elements are copied bit
  /// for bit. f32, f64, f16, bf16 (compared in float; f64 in double);
  /// 0 <= dim < rank, 1 <= k <= x.shape[dim]; out has x's dtype and shape
  /// with extent k at dim, and must not overlap x or the payload (x and
  /// the payload may be the same). A local op: it selects within this
  /// rank's block.
  void topK(const Tensor &x, const Tensor *payload, Tensor &out, int dim, int k,
            std::string_view label = {});
  /// weft.convert: out = `in`'s elements converted to out's float dtype,
  /// each rounded once to nearest even (ops::convertValue). `in` and `out`
  /// are float tensors of the same shape; equal dtypes copy.
  void convert(const Tensor &in, Tensor &out, std::string_view label = {});
  /// out = the block of `in` at `offsets` (out's shape is the block shape).
  void slice(const Tensor &in, const std::vector<int64_t> &offsets, Tensor &out,
             std::string_view label = {});
  /// The block of `out` at `offsets` (in's shape) = `in` (weft.concat).
  void insert(const Tensor &in, const std::vector<int64_t> &offsets,
              Tensor &out, std::string_view label = {});
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
  //===--- Asynchronous collectives (weft.async, issue 13) ----------------//
  /// A collective in flight: the communication, the buffers it needs alive
  /// (operand, result, packed copies) and its unpacking. Its result must
  /// not be read, nor its operand written, before finish().
  struct Pending {
    std::unique_ptr<Work> work; // null: completed when started (one rank)
    std::vector<Tensor> keep;   // alive until finish()
    const void *recv = nullptr; // unpacked into `out` by finish() when set
    CopyPlan unpack;
    Tensor out;
    std::string label, kind, detail;
    double bytes = 0;
    double started = 0; // wallSeconds() at the start, when profiling
    bool finished = false;
    uint64_t seq = 0; // the collective's number on the status board
  };
  /// The start forms of the collectives above (same checks and results):
  /// they return once the communication is under way, moved meanwhile by
  /// the communicator (Communicator::progressesAsync: NCCL's stream, MPI's
  /// progress thread). A communicator that cannot makes them run the
  /// blocking collective at once (the Pending comes back finished).
  std::unique_ptr<Pending> startAllReduce(const Tensor &in, Tensor &out,
                                          const AxisList &axes, ReduceKind kind,
                                          std::string_view label = {});
  std::unique_ptr<Pending> startAllGather(const Tensor &in, Tensor &out,
                                          int dim, const AxisList &axes,
                                          std::string_view label = {});
  std::unique_ptr<Pending> startReduceScatter(const Tensor &in, Tensor &out,
                                              int dim, const AxisList &axes,
                                              ReduceKind kind,
                                              std::string_view label = {});
  std::unique_ptr<Pending> startAllToAll(const Tensor &in, Tensor &out,
                                         int splitDim, int concatDim,
                                         const AxisList &axes,
                                         std::string_view label = {});
  /// Waits for `p` (idempotent), unpacks its result and profiles it: the
  /// op's time is the wait (what the step paid), and the profiler adds the
  /// time the communication was in flight to its overlap counters.
  void finish(Pending &p);

  //===--- Root collectives (issue 33) --------------------------------------//
  // `root` is a position in the group over `axes`. Blocking: their start
  // forms (for a weft.async op) run them at once and return a finished
  // Pending; they are for set-up, not the step's hot path. On ranks other
  // than the root, reduceTo's and gatherTo's result is zero (a partial sum
  // over `axes`).
  /// out = the root's `in`; `in` and `out` may be the same tensor.
  void broadcast(const Tensor &in, Tensor &out, int64_t root,
                 const AxisList &axes, std::string_view label = {});
  /// out (disjoint from in) = the group's reduction on the root.
  void reduceTo(const Tensor &in, Tensor &out, int64_t root,
                const AxisList &axes, ReduceKind kind,
                std::string_view label = {});
  /// out = the group's blocks concatenated along `dim`, on the root.
  void gatherTo(const Tensor &in, Tensor &out, int dim, int64_t root,
                const AxisList &axes, std::string_view label = {});
  /// out = block `position` along `dim` of the root's `in`.
  void scatterFrom(const Tensor &in, Tensor &out, int dim, int64_t root,
                   const AxisList &axes, std::string_view label = {});
  std::unique_ptr<Pending> startBroadcast(const Tensor &in, Tensor &out,
                                          int64_t root, const AxisList &axes,
                                          std::string_view label = {});
  std::unique_ptr<Pending> startReduceTo(const Tensor &in, Tensor &out,
                                         int64_t root, const AxisList &axes,
                                         ReduceKind kind,
                                         std::string_view label = {});
  std::unique_ptr<Pending> startGatherTo(const Tensor &in, Tensor &out, int dim,
                                         int64_t root, const AxisList &axes,
                                         std::string_view label = {});
  std::unique_ptr<Pending> startScatterFrom(const Tensor &in, Tensor &out,
                                            int dim, int64_t root,
                                            const AxisList &axes,
                                            std::string_view label = {});

  //===--- Point to point (issue 33) ----------------------------------------//
  /// weft.collective_permute: `pairs` is [s0, t0, s1, t1, ...] in group
  /// positions over `axes`; out (disjoint from in) = the operand of this
  /// rank's source, zeros when it is no target. The start form really
  /// starts (as the other collectives' do).
  void collectivePermute(const Tensor &in, Tensor &out,
                         const std::vector<int64_t> &pairs,
                         const AxisList &axes, std::string_view label = {});
  std::unique_ptr<Pending>
  startCollectivePermute(const Tensor &in, Tensor &out,
                         const std::vector<int64_t> &pairs,
                         const AxisList &axes, std::string_view label = {});

  /// Copies `in` into `out`, the same elements in row-major order (shapes
  /// may differ: weft.reshape); both on this backend's device.
  void copy(const Tensor &in, Tensor &out, std::string_view label = {});
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
  /// `inputs` holds one buffer per plan input (plan.inShapes), `out`
  /// plan.outShape's elements, all of `dtype`; `out` overlaps no input.
  virtual void fusedMapKernel(const FusedMapPlan &plan, DType dtype,
                              const std::vector<const void *> &inputs,
                              void *out) = 0;
  /// The GEMM of an einsum (gemm's arguments, `c` being the einsum's
  /// result) with the chain `epilogue` applied in the same call;
  /// `extras` holds epilogue inputs 1.... Returns false, having done
  /// nothing, when this backend cannot fuse that chain into that GEMM (the
  /// default): Backend::fusedEinsum then runs gemm and the chain apart.
  virtual bool fusedGemmKernel(const GemmPlan &plan, DType dtype,
                               const FusedMapPlan &epilogue, const void *a,
                               const void *b,
                               const std::vector<const void *> &extras,
                               void *c) {
    (void)plan, (void)dtype, (void)epilogue, (void)a, (void)b, (void)extras,
        (void)c;
    return false;
  }
  /// As fusedMapKernel, for a FusedRowsPlan.
  virtual void fusedRowsKernel(const FusedRowsPlan &plan, DType dtype,
                               const std::vector<const void *> &inputs,
                               void *out) = 0;
  virtual void embedKernel(const EmbedPlan &plan, DType dtype,
                           const int32_t *ids, const void *table, void *out,
                           int64_t rowOffset) = 0;
  /// `table` is zero on entry; adds each update row into it.
  virtual void scatterAddKernel(const EmbedPlan &plan, DType dtype,
                                const int32_t *ids, const void *updates,
                                void *table, int64_t rowOffset) = 0;
  virtual void oneHotKernel(const OneHotPlan &plan, DType dtype,
                            const int32_t *ids, void *out, int64_t offset) = 0;
  virtual void iotaKernel(DType dtype, int64_t n, void *out, int64_t first) = 0;
  virtual void randomKernel(const RandomPlan &plan, DType dtype,
                            RandomKind kind, uint64_t seed, void *out) = 0;
  /// `in` and `out` hold plan.count elements of plan.dtype; they are either
  /// the same buffer or disjoint.
  virtual void padFillKernel(const PadFillPlan &plan, const void *in,
                             void *out) = 0;
  /// `in` and `out` hold plan.count > 0 elements of plan.dtype; they are
  /// either the same buffer or disjoint.
  virtual void cumsumKernel(const CumsumPlan &plan, const void *in,
                            void *out) = 0;
  /// `x` (and `payload` unless null) hold plan.count > 0 elements of
  /// plan.dtype, `out` plan.outCount, disjoint from both.
  virtual void topKKernel(const TopKPlan &plan, const void *x,
                          const void *payload, void *out) = 0;

  /// `in` holds `count` > 0 elements of float dtype `from`, `out` as many
  /// of float dtype `to` (another one), disjoint.
  virtual void convertKernel(DType from, DType to, int64_t count,
                             const void *in, void *out) = 0;

  /// The communicator the collectives above go through (blocking). Its
  /// asynchronous forms (Communicator.h) are for callers that overlap
  /// communication with compute; buffers are this backend's memory.
  Communicator &communicator();
  /// A wait on a collective longer than `seconds` (0: no limit) ends the
  /// job with a message naming the collective (Communicator::setTimeout).
  void setCommTimeout(double seconds, CommTimeoutHandler handler = nullptr) {
    communicator().setTimeout(seconds, std::move(handler));
  }

  /// The reusable scratch buffers of the orchestration, one per purpose.
  /// Each is live only within one public op, so ops can share them; a
  /// buffer grows to the largest request and is kept.
  enum class Scratch : int {
    EinsumReduceA,  ///< operand A with its own letters summed out
    EinsumPermuteA, ///< operand A permuted to the GEMM layout
    EinsumReduceB,
    EinsumPermuteB,
    EinsumResult, ///< the GEMM result before its permutation
    CommSend,     ///< a collective's operand packed by group position
    CommRecv,     ///< a collective's result before unpacking
  };
  static constexpr int kNumScratch = 7;
  static const char *scratchName(Scratch s);

protected:
  /// Sets the communicator (backend constructors; required before any
  /// collective over more than one rank).
  void setCommunicator(std::unique_ptr<Communicator> comm);
  /// Destroys the communicator early (a backend whose communicator uses its
  /// streams or handles calls this first in its destructor).
  void releaseCommunicator() { comm_.reset(); }
  /// Scratch buffer `which` of at least `bytes`, in backend memory.
  void *scratch(Scratch which, std::size_t bytes);
  void copyThrough(const Tensor &in, Tensor &out);
  const void *packedInput(const CollectivePlan &p, const Tensor &in);
  const GroupPlan &group(const AxisList &axes);

private:
  /// The einsum's stages (reduce, permute, GEMM, permute back) into `out`,
  /// the GEMM through fusedGemmKernel when `epilogue` is given and the
  /// result needs no permutation. Returns whether the epilogue ran.
  bool einsumStages(const EinsumPlan &plan, const void *a, const void *b,
                    void *out, int64_t outElements,
                    const FusedMapPlan *epilogue,
                    const std::vector<const void *> &extras);
  void recordOp(std::string_view label, const char *kind,
                const std::string &detail, double t0, double flops,
                double bytes);
  /// A packed copy of `in` for an asynchronous send (its own buffer: the
  /// comm-send scratch may be reused before the wait), or `in` itself.
  Tensor packedCopy(const CollectivePlan &p, const Tensor &in);
  /// Where an asynchronous collective receives into: `p.out`, or a buffer
  /// of its own that finish() unpacks into `p.out` when the plan unpacks.
  void *receiveBuffer(Pending &p, const CollectivePlan &cp);
  std::unique_ptr<Pending> pending(std::string_view label, const char *kind,
                                   std::string detail, double bytes,
                                   const Tensor &in, const Tensor &out);
  /// Whether start forms really start (Communicator::progressesAsync).
  bool asyncCollectives();
  /// A Pending already finished: `run` did the blocking collective.
  std::unique_ptr<Pending> completed(const std::function<void()> &run,
                                     const Tensor &out);
  double startOp();

  Mesh mesh_;
  int64_t rank_;
  Profiler *profiler_ = nullptr;
  std::array<Tensor, kNumScratch> scratch_;
  std::unique_ptr<Communicator> comm_;
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
