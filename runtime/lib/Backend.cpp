//===- Backend.cpp - Argument checks, profiling and plan orchestration ----===//
//
// Everything that is the same for every backend lives here, so the CPU
// tests exercise the exact sequence of primitive calls the CUDA backend
// receives.
//
//===----------------------------------------------------------------------===//

#include "weft/rt/Backend.h"
#include "weft/rt/Error.h"
#include "weft/rt/Profiler.h"
#include "weft/rt/RankStatus.h"
#include "weft/rt/Trace.h"

#include <cstdint>

namespace weft::rt {

namespace {
/// count * size in bytes, or an Error when the product overflows.
std::size_t checkedBytes(std::size_t count, std::size_t size) {
  std::size_t bytes = 0;
  check(!__builtin_mul_overflow(count, size, &bytes), "buffer of ", count,
        " x ", size, " bytes overflows");
  return bytes;
}

std::string axesStr(const Mesh &mesh, const AxisList &axes) {
  std::string s = "{";
  for (std::size_t i = 0; i < axes.size(); ++i)
    s += (i ? "," : "") + mesh.axis(axes[i]).name;
  return s + "}";
}

/// A blocking collective as the status board (RankStatus.h) sees it:
/// entered, and waited in until the scope ends.
struct WaitingIn {
  WaitingIn(CommOp op, const std::string &where)
      : seq(rankstatus::enter(op, where)) {
    rankstatus::setWaiting(seq, true);
  }
  ~WaitingIn() { rankstatus::setWaiting(seq, false); }
  WaitingIn(const WaitingIn &) = delete;
  WaitingIn &operator=(const WaitingIn &) = delete;
  uint64_t seq;
};
} // namespace

Backend::Backend(Mesh mesh, int64_t rank)
    : mesh_(std::move(mesh)), rank_(rank) {
  check(rank >= 0 && rank < mesh_.numDevices(), "rank ", rank,
        " out of range for mesh ", mesh_.str());
}

Backend::~Backend() = default;

Tensor Backend::zeros(DType dtype, const Shape &shape) {
  Tensor t = empty(dtype, shape);
  fillZero(t.data, dtype, t.numElements());
  return t;
}

void Backend::fill(Tensor &t, const MapPlan &plan, double value,
                   std::string_view label) {
  int64_t n = t.numElements();
  check(plan.inShapes.size() == 1 && numElements(plan.outShape) == n,
        "fill of ", t.str(), " with a plan of ", plan.spec);
  double t0 = startOp();
  fillZero(t.data, t.dtype, n);
  if (value != 0 && n > 0)
    mapKernel(MapKind::Shift, plan, t.dtype, t.data, nullptr, t.data, value);
  if (profiler_)
    recordOp(label, "fill", t.str(), t0, 0, static_cast<double>(t.bytes()));
}

Tensor Backend::upload(const Tensor &host) {
  check(host.device == Device::Host, "upload of a non-host tensor ",
        host.str());
  Tensor t = empty(host.dtype, host.shape);
  copyFromHost(t, host.data);
  return t;
}

void Backend::copyDevice(const Tensor &src, Tensor &dst) {
  check(src.dtype == dst.dtype && src.numElements() == dst.numElements(),
        "copyDevice: ", src.str(), " into ", dst.str());
  Tensor host = download(src);
  copyFromHost(dst, host.data);
}

void Backend::beginGraphCapture() {
  fail("the ", name(), " backend cannot record graphs");
}

std::size_t Backend::endGraphCapture() {
  fail("the ", name(), " backend cannot record graphs");
}

void Backend::launchGraph() {
  fail("the ", name(), " backend cannot record graphs");
}

Tensor Backend::download(const Tensor &t) {
  Tensor h = hostTensor(t.dtype, t.shape);
  copyToHost(t, h.data);
  return h;
}

const char *Backend::scratchName(Scratch s) {
  switch (s) {
  case Scratch::EinsumReduceA:
    return "einsum-reduce-a";
  case Scratch::EinsumPermuteA:
    return "einsum-permute-a";
  case Scratch::EinsumReduceB:
    return "einsum-reduce-b";
  case Scratch::EinsumPermuteB:
    return "einsum-permute-b";
  case Scratch::EinsumResult:
    return "einsum-result";
  case Scratch::CommSend:
    return "comm-send";
  case Scratch::CommRecv:
    return "comm-recv";
  }
  return "invalid";
}

void *Backend::scratch(Scratch which, std::size_t bytes) {
  int i = static_cast<int>(which);
  check(i >= 0 && i < kNumScratch, "invalid scratch buffer ", i);
  // Whole f64 elements plus one, so a zero-byte request still has storage.
  constexpr std::size_t kMax = static_cast<std::size_t>(INT64_MAX) - 16;
  check(bytes <= kMax, "scratch buffer '", scratchName(which), "' of ", bytes,
        " bytes is too large");
  Tensor &t = scratch_[i];
  if (t.data == nullptr || t.bytes() < bytes)
    t = empty(DType::F64, {static_cast<int64_t>((bytes + 7) / 8) + 1});
  return t.data;
}

void Backend::setCommunicator(std::unique_ptr<Communicator> comm) {
  comm_ = std::move(comm);
}

Communicator &Backend::communicator() {
  check(comm_ != nullptr, "backend '", name(), "' has no communicator");
  return *comm_;
}

const GroupPlan &Backend::group(const AxisList &axes) {
  auto it = groups_.find(axes);
  if (it == groups_.end())
    it = groups_.emplace(axes, planGroup(mesh_, axes, rank_)).first;
  return it->second;
}

double Backend::startOp() {
  if (!profiler_)
    return 0;
  synchronize();
  return wallSeconds();
}

void Backend::recordOp(std::string_view label, const char *kind,
                       const std::string &detail, double t0, double flops,
                       double bytes) {
  if (!profiler_)
    return;
  synchronize();
  double dt = wallSeconds() - t0;
  std::string l =
      label.empty() ? std::string(kind) + " " + detail : std::string(label);
  profiler_->record(l, kind, dt, flops, bytes);
  // A synchronous collective: all of its time is exposed.
  if (isCommKind(kind))
    profiler_->recordOverlap(dt, dt);
}

namespace {
void checkTensor(const Tensor &t, DType dtype, const Shape &shape,
                 Device device, const char *op, const char *what) {
  check(t.data != nullptr || t.numElements() == 0, op, ": ", what,
        " has no data");
  check(t.dtype == dtype, op, ": ", what, " has dtype ", dtypeName(t.dtype),
        ", expected ", dtypeName(dtype));
  check(t.shape == shape, op, ": ", what, " has shape ", shapeToString(t.shape),
        ", expected ", shapeToString(shape));
  check(t.device == device, op, ": ", what, " is in ",
        t.device == Device::Host ? "host" : "cuda", " memory, expected ",
        device == Device::Host ? "host" : "cuda");
}
} // namespace

void Backend::einsum(const EinsumPlan &plan, const Tensor &a, const Tensor *b,
                     Tensor &out, std::string_view label) {
  const char *op = "einsum";
  checkTensor(a, plan.dtype, plan.aShape, device(), op, "operand A");
  check(plan.unary == (b == nullptr), "einsum '", plan.spec, "': expects ",
        plan.unary ? 1 : 2, " operands");
  if (b)
    checkTensor(*b, plan.dtype, plan.bShape, device(), op, "operand B");
  checkTensor(out, plan.dtype, plan.outShape, device(), op, "result");
  check(plan.dtype != DType::I32, "einsum of i32 is not supported");
  double t0 = startOp();
  if (plan.unary) {
    if (plan.unaryIsCopy)
      copyStrided(plan.unaryCopy, plan.dtype, a.data, out.data);
    else
      reduceKernel(ReduceKind::Sum, plan.unaryReduce, plan.dtype, a.data,
                   out.data);
  } else {
    einsumStages(plan, a.data, b->data, out.data, out.numElements(), nullptr,
                 {});
  }
  if (profiler_)
    recordOp(label, op, plan.spec, t0, static_cast<double>(plan.flops), 0);
}

bool Backend::einsumStages(const EinsumPlan &plan, const void *a, const void *b,
                           void *out, int64_t outElements,
                           const FusedMapPlan *epilogue,
                           const std::vector<const void *> &extras) {
  if (plan.gemm.batch == 0) {
    fillZero(out, plan.dtype, outElements);
    return false;
  }
  std::size_t es = dtypeSize(plan.dtype);
  // An operand's way to its GEMM layout: sum out its own letters, then
  // permute, each into its own scratch slot.
  auto prepare = [&](const void *p, bool reduce, const ReducePlan &reducePlan,
                     bool permute, const CopyPlan &permPlan,
                     std::size_t elements, Scratch reduced, Scratch permuted) {
    if (reduce) {
      void *t = scratch(reduced, checkedBytes(elements, es));
      reduceKernel(ReduceKind::Sum, reducePlan, plan.dtype, p, t);
      p = t;
    }
    if (permute) {
      void *t = scratch(permuted, checkedBytes(elements, es));
      copyStrided(permPlan, plan.dtype, p, t);
      p = t;
    }
    return p;
  };
  const void *pa = prepare(a, plan.reduceA, plan.reduceAPlan, plan.permuteA,
                           plan.permAPlan, plan.tempAElements,
                           Scratch::EinsumReduceA, Scratch::EinsumPermuteA);
  const void *pb = prepare(b, plan.reduceB, plan.reduceBPlan, plan.permuteB,
                           plan.permBPlan, plan.tempBElements,
                           Scratch::EinsumReduceB, Scratch::EinsumPermuteB);
  if (plan.swapOperands)
    std::swap(pa, pb);
  // The epilogue fuses into the GEMM only when the GEMM writes the result
  // itself, in the result's layout.
  if (epilogue && !plan.permuteOut &&
      fusedGemmKernel(plan.gemm, plan.dtype, *epilogue, pa, pb, extras, out))
    return true;
  void *pc = plan.permuteOut ? scratch(Scratch::EinsumResult,
                                       checkedBytes(plan.tempOutElements, es))
                             : out;
  gemm(plan.gemm, plan.dtype, pa, pb, pc);
  if (plan.permuteOut)
    copyStrided(plan.permOutPlan, plan.dtype, pc, out);
  return false;
}

void Backend::fusedEinsum(const EinsumPlan &plan, const FusedMapPlan &epilogue,
                          const std::vector<const Tensor *> &inputs,
                          Tensor &out, std::string_view label) {
  const char *op = "einsum";
  check(!plan.unary && inputs.size() >= 2 &&
            inputs.size() == epilogue.inShapes.size() + 1,
        "fused einsum '", plan.spec, "' then '", epilogue.spec, "': got ",
        inputs.size(), " tensors, the plans take 2 + ",
        epilogue.inShapes.size() - 1);
  check(epilogue.outShape == plan.outShape &&
            epilogue.inShapes.front() == plan.outShape,
        "fused einsum '", plan.spec, "': its epilogue '", epilogue.spec,
        "' is not over the einsum's result ", shapeToString(plan.outShape));
  check(isFloat(plan.dtype), "fused einsum of ", dtypeName(plan.dtype),
        " is not supported");
  for (const Tensor *t : inputs)
    check(t != nullptr, "fused einsum '", plan.spec, "': a null input");
  checkTensor(*inputs[0], plan.dtype, plan.aShape, device(), op, "operand A");
  checkTensor(*inputs[1], plan.dtype, plan.bShape, device(), op, "operand B");
  checkTensor(out, plan.dtype, plan.outShape, device(), op, "result");
  std::vector<const void *> extras;
  for (std::size_t i = 2; i < inputs.size(); ++i) {
    std::string name = "epilogue input " + std::to_string(i - 1);
    checkTensor(*inputs[i], plan.dtype, epilogue.inShapes[i - 1], device(), op,
                name.c_str());
    check(inputs[i]->data != out.data || out.numElements() == 0,
          "fused einsum '", plan.spec, "': ", name, " is the result's buffer");
    extras.push_back(inputs[i]->data);
  }
  double t0 = startOp();
  if (!einsumStages(plan, inputs[0]->data, inputs[1]->data, out.data,
                    out.numElements(), &epilogue, extras)) {
    // The chain in one pass, in place: its input 0 (the einsum's result)
    // has the result's strides, read element for element as it is written.
    std::vector<const void *> in{out.data};
    in.insert(in.end(), extras.begin(), extras.end());
    if (out.numElements() > 0)
      fusedMapKernel(epilogue, plan.dtype, in, out.data);
  }
  if (profiler_)
    recordOp(label, op, plan.spec + " then " + epilogue.spec, t0,
             static_cast<double>(plan.flops), 0);
}

void Backend::einsum(const std::string &spec, const Tensor &a, const Tensor *b,
                     Tensor &out, std::string_view label) {
  std::string key = spec + "|" + dtypeName(a.dtype) + shapeToString(a.shape) +
                    (b ? shapeToString(b->shape) : "");
  auto it = planCache_.find(key);
  if (it == planCache_.end()) {
    EinsumPlan p = b ? planEinsum(spec, a.shape, b->shape, a.dtype)
                     : planEinsum(spec, a.shape, a.dtype);
    it = planCache_.emplace(key, std::move(p)).first;
  }
  einsum(it->second, a, b, out, label);
}

namespace {
/// Whether `in` may be `out`'s buffer or overlap it: only when it is the
/// same buffer read element for element as the result is written (strides
/// equal over the plan's iteration space), which every elementwise kernel
/// allows (each element is read before it is written, by the same thread
/// or lane). `inStrides` null: never (a fused row op reads a row again
/// after writing it).
void checkInPlace(const Tensor &in, const Tensor &out,
                  const std::vector<int64_t> *inStrides,
                  const std::vector<int64_t> &outStrides, const char *what,
                  const std::string &spec, const char *name) {
  if (in.numElements() == 0 || out.numElements() == 0)
    return;
  auto lo = [](const Tensor &t) { return static_cast<const char *>(t.data); };
  bool overlap =
      lo(in) < lo(out) + out.bytes() && lo(out) < lo(in) + in.bytes();
  if (!overlap)
    return;
  check(inStrides && in.data == out.data && in.bytes() == out.bytes() &&
            *inStrides == outStrides,
        what, " '", spec, "': ", name,
        " overlaps the result's buffer but is not read element for element "
        "as the result is written");
}
} // namespace

void Backend::map(MapKind kind, const MapPlan &plan, const Tensor &a,
                  const Tensor *b, Tensor &out, double scalar,
                  std::string_view label) {
  const char *op = "map";
  std::size_t arity = isBinary(kind) ? 2 : 1;
  check(plan.inShapes.size() == arity, "map ", mapKindName(kind), ": plan '",
        plan.spec, "' has ", plan.inShapes.size(), " operands, the kind takes ",
        arity);
  check((b != nullptr) == (arity == 2), "map ", mapKindName(kind), ": expects ",
        arity, " operand tensors");
  check(isFloat(a.dtype), "map ", mapKindName(kind), " of ", dtypeName(a.dtype),
        " is not supported");
  checkTensor(a, a.dtype, plan.inShapes[0], device(), op, "operand 0");
  if (b)
    checkTensor(*b, a.dtype, plan.inShapes[1], device(), op, "operand 1");
  checkTensor(out, a.dtype, plan.outShape, device(), op, "result");
  auto strides = [&](std::size_t i) {
    return i < plan.inStrides.size() ? &plan.inStrides[i] : nullptr;
  };
  checkInPlace(a, out, strides(0), plan.outStrides, "map", plan.spec,
               "operand 0");
  if (b)
    checkInPlace(*b, out, strides(1), plan.outStrides, "map", plan.spec,
                 "operand 1");
  double t0 = startOp();
  mapKernel(kind, plan, a.dtype, a.data, b ? b->data : nullptr, out.data,
            scalar);
  if (profiler_)
    recordOp(label, op, std::string(mapKindName(kind)) + " " + plan.spec, t0, 0,
             0);
}

namespace {
/// The checks of a fused op's tensors (weft.fused_map, weft.fused_rows):
/// one float tensor per plan input of its shape, none overlapping the
/// result's buffer but as checkInPlace allows (`inStrides`, `outStrides`:
/// a fused map's plan; null for fused rows, never in place), and the
/// result. Returns the inputs' buffers.
std::vector<const void *>
checkFusedTensors(const char *what, const std::string &spec,
                  const std::vector<Shape> &inShapes, const Shape &outShape,
                  const std::vector<const Tensor *> &inputs, const Tensor &out,
                  Device device,
                  const std::vector<std::vector<int64_t>> *inStrides,
                  const std::vector<int64_t> &outStrides) {
  const char *op = "fused";
  check(!inShapes.empty() && inputs.size() == inShapes.size(), what, " '", spec,
        "': got ", inputs.size(), " input tensors, the plan has ",
        inShapes.size(), " inputs");
  check(isFloat(out.dtype), what, " '", spec, "' of ", dtypeName(out.dtype),
        " is not supported");
  std::vector<const void *> data;
  data.reserve(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    check(inputs[i] != nullptr, what, " '", spec, "': input ", i, " is null");
    std::string name = "input " + std::to_string(i);
    checkTensor(*inputs[i], out.dtype, inShapes[i], device, op, name.c_str());
    checkInPlace(*inputs[i], out,
                 inStrides && i < inStrides->size() ? &(*inStrides)[i]
                                                    : nullptr,
                 outStrides, what, spec, name.c_str());
    data.push_back(inputs[i]->data);
  }
  checkTensor(out, out.dtype, outShape, device, op, "result");
  return data;
}
} // namespace

void Backend::fusedMap(const FusedMapPlan &plan,
                       const std::vector<const Tensor *> &inputs, Tensor &out,
                       std::string_view label) {
  const char *op = "fused";
  std::vector<const void *> data = checkFusedTensors(
      "fused_map", plan.spec, plan.inShapes, plan.outShape, inputs, out,
      device(), &plan.inStrides, plan.outStrides);
  double t0 = startOp();
  fusedMapKernel(plan, out.dtype, data, out.data);
  if (profiler_) {
    // "fused add+relu btd,d->btd" when the op has no label.
    std::string detail;
    for (const FusedStep &s : plan.steps) {
      if (!detail.empty())
        detail += '+';
      detail += mapKindName(s.kind);
    }
    recordOp(label, op, detail + " " + plan.spec, t0, 0, 0);
  }
}

namespace {
/// A FusedRowsPlan's arrays agree with its inputs and steps, so kernels may
/// index them (a plan comes from planFusedRows, or from generated code that
/// copied one).
void checkFusedRowsPlan(const FusedRowsPlan &p) {
  const int inputs = static_cast<int>(p.inShapes.size());
  const int steps = static_cast<int>(p.steps.size());
  const std::size_t kept = p.keptShape.size();
  bool ok = inputs >= 1 && inputs <= kMaxFusedInputs && steps >= 1 &&
            steps <= kMaxFusedSteps &&
            p.full.size() == static_cast<std::size_t>(inputs + steps) &&
            p.inKeptStrides.size() == static_cast<std::size_t>(inputs) &&
            p.inRowStrides.size() == static_cast<std::size_t>(inputs) &&
            p.outKeptStrides.size() == kept && p.rows >= 0 &&
            p.rowLength >= 0 && p.outRowStride == (p.full.back() ? 1 : 0);
  for (int i = 0; ok && i < inputs; ++i)
    ok = p.inKeptStrides[i].size() == kept;
  for (int j = 0; ok && j < steps; ++j) {
    const FusedRowStep &st = p.steps[j];
    const int kind =
        st.reduce ? static_cast<int>(st.reduceKind) : static_cast<int>(st.kind);
    const int kinds =
        st.reduce ? static_cast<int>(ReduceKind::Min) : kNumMapKinds - 1;
    const bool binary = !st.reduce && isBinary(st.kind);
    ok = kind >= 0 && kind <= kinds && st.a >= 0 && st.a < inputs + j &&
         (!binary || (st.b >= 0 && st.b < inputs + j)) &&
         (!st.reduce || p.full[st.a]) &&
         p.full[inputs + j] ==
             (!st.reduce && (p.full[st.a] || (binary && p.full[st.b])));
  }
  check(ok, "fused_rows '", p.spec,
        "': the plan's arrays or steps are inconsistent (plan it with "
        "planFusedRows)");
}
} // namespace

void Backend::fusedRows(const FusedRowsPlan &plan,
                        const std::vector<const Tensor *> &inputs, Tensor &out,
                        std::string_view label) {
  const char *op = "fused";
  std::vector<const void *> data =
      checkFusedTensors("fused_rows", plan.spec, plan.inShapes, plan.outShape,
                        inputs, out, device(), nullptr, {});
  checkFusedRowsPlan(plan);
  double t0 = startOp();
  fusedRowsKernel(plan, out.dtype, data, out.data);
  if (profiler_) {
    // "fused max+sub+exp+sum+div bhts->bhts [s]" when the op has no label.
    std::string detail;
    for (const FusedRowStep &s : plan.steps) {
      if (!detail.empty())
        detail += '+';
      detail += s.reduce ? reduceKindName(s.reduceKind) : mapKindName(s.kind);
    }
    recordOp(label, op, detail + " " + plan.spec + " [" + plan.rowLetters + "]",
             t0, 0, 0);
  }
}

void Backend::reduce(ReduceKind kind, const ReducePlan &plan, const Tensor &in,
                     Tensor &out, std::string_view label) {
  const char *op = "reduce";
  check(isFloat(in.dtype), "reduce of ", dtypeName(in.dtype),
        " is not supported");
  checkTensor(in, in.dtype, plan.inShape, device(), op, "operand");
  checkTensor(out, in.dtype, plan.outShape, device(), op, "result");
  double t0 = startOp();
  reduceKernel(kind, plan, in.dtype, in.data, out.data);
  if (profiler_)
    recordOp(label, op, std::string(reduceKindName(kind)) + " " + plan.spec, t0,
             0, 0);
}

void Backend::embed(const EmbedPlan &plan, const Tensor &ids,
                    const Tensor &table, Tensor &out, int64_t rowOffset,
                    std::string_view label) {
  const char *op = "embed";
  checkTensor(ids, DType::I32, plan.idsShape, device(), op, "ids");
  check(isFloat(table.dtype), "embed: table dtype must be a float type");
  checkTensor(table, table.dtype, plan.tableShape, device(), op, "table");
  checkTensor(out, table.dtype, plan.outShape, device(), op, "result");
  double t0 = startOp();
  embedKernel(plan, table.dtype, static_cast<const int32_t *>(ids.data),
              table.data, out.data, rowOffset);
  if (profiler_)
    recordOp(label, op, plan.spec, t0, 0, 0);
}

void Backend::scatterAdd(const EmbedPlan &plan, const Tensor &ids,
                         const Tensor &updates, Tensor &out, int64_t rowOffset,
                         std::string_view label) {
  const char *op = "scatter_add";
  checkTensor(ids, DType::I32, plan.idsShape, device(), op, "ids");
  check(isFloat(updates.dtype), "scatter_add: updates dtype must be a float "
                                "type");
  checkTensor(updates, updates.dtype, plan.outShape, device(), op, "updates");
  checkTensor(out, updates.dtype, plan.tableShape, device(), op, "result");
  double t0 = startOp();
  fillZero(out.data, out.dtype, out.numElements());
  scatterAddKernel(plan, updates.dtype, static_cast<const int32_t *>(ids.data),
                   updates.data, out.data, rowOffset);
  if (profiler_)
    recordOp(label, op, plan.spec, t0, 0, 0);
}

void Backend::oneHot(const OneHotPlan &plan, const Tensor &ids, Tensor &out,
                     int64_t offset, std::string_view label) {
  const char *op = "one_hot";
  checkTensor(ids, DType::I32, plan.idsShape, device(), op, "ids");
  check(isFloat(out.dtype), "one_hot: result dtype must be a float type");
  checkTensor(out, out.dtype, plan.outShape, device(), op, "result");
  double t0 = startOp();
  oneHotKernel(plan, out.dtype, static_cast<const int32_t *>(ids.data),
               out.data, offset);
  if (profiler_)
    recordOp(label, op, plan.spec, t0, 0, 0);
}

void Backend::iota(Tensor &out, int64_t first, std::string_view label) {
  check(out.shape.size() == 1, "iota: result must be 1-D, got ", out.str());
  checkTensor(out, out.dtype, out.shape, device(), "iota", "result");
  double t0 = startOp();
  iotaKernel(out.dtype, out.numElements(), out.data, first);
  if (profiler_)
    recordOp(label, "iota", out.str(), t0, 0, 0);
}

void Backend::random(Tensor &out, RandomKind kind, uint64_t seed,
                     const std::vector<int64_t> &first,
                     std::string_view label) {
  check(out.dtype == DType::F32 || out.dtype == DType::F64,
        "random: result dtype must be f32 or f64, got ", dtypeName(out.dtype));
  checkTensor(out, out.dtype, out.shape, device(), "random", "result");
  RandomPlan plan = planRandom(out.shape, first);
  double t0 = startOp();
  randomKernel(plan, out.dtype, kind, seed, out.data);
  if (profiler_)
    recordOp(label, "random", out.str(), t0, 0, 0);
}

void Backend::padFill(const Tensor &in, Tensor &out,
                      const std::vector<int64_t> &first,
                      const std::vector<int64_t> &valid, double fill,
                      std::string_view label) {
  const char *op = "pad_fill";
  checkTensor(in, in.dtype, in.shape, device(), op, "operand");
  checkTensor(out, in.dtype, in.shape, device(), op, "result");
  PadFillPlan plan = planPadFill(in.dtype, in.shape, first, valid, fill);
  // The same buffer (in place) or disjoint ones; a partial overlap would
  // read elements already overwritten.
  auto lo = [](const Tensor &t) { return reinterpret_cast<uintptr_t>(t.data); };
  check(in.data == out.data || in.bytes() == 0 ||
            lo(in) + in.bytes() <= lo(out) || lo(out) + out.bytes() <= lo(in),
        "pad_fill: operand and result overlap without being the same buffer");
  double t0 = startOp();
  if (plan.count > 0 && !(plan.inside == plan.count && in.data == out.data))
    padFillKernel(plan, in.data, out.data);
  if (profiler_)
    recordOp(label, op, out.str(), t0, 0, 0);
}

void Backend::convert(const Tensor &in, Tensor &out, std::string_view label) {
  const char *op = "convert";
  check(isFloat(in.dtype) && isFloat(out.dtype),
        "convert: ", dtypeName(in.dtype), " -> ", dtypeName(out.dtype),
        ": both must be float dtypes (f32, f64, f16, bf16)");
  checkTensor(in, in.dtype, in.shape, device(), op, "operand");
  checkTensor(out, out.dtype, in.shape, device(), op, "result");
  check(in.data != out.data || in.bytes() == 0 || in.dtype == out.dtype,
        "convert: operand and result are the same buffer");
  double t0 = startOp();
  if (in.numElements() > 0) {
    if (in.dtype == out.dtype)
      copyThrough(in, out);
    else
      convertKernel(in.dtype, out.dtype, in.numElements(), in.data, out.data);
  }
  if (profiler_)
    recordOp(label, op, in.str() + " -> " + dtypeName(out.dtype), t0, 0,
             static_cast<double>(in.bytes() + out.bytes()));
}

void Backend::copy(const Tensor &in, Tensor &out, std::string_view label) {
  const char *op = "copy";
  checkTensor(in, in.dtype, in.shape, device(), op, "operand");
  checkTensor(out, in.dtype, out.shape, device(), op, "result");
  check(in.numElements() == out.numElements(), "copy: ", in.str(), " into ",
        out.str(), ": element counts differ");
  double t0 = startOp();
  if (in.numElements() > 0)
    copyThrough(in, out);
  if (profiler_)
    recordOp(label, op, in.str() + " -> " + out.str(), t0, 0,
             2.0 * static_cast<double>(in.bytes()));
}

void Backend::cumsum(const Tensor &in, Tensor &out, int dim, bool exclusive,
                     bool reverse, std::string_view label) {
  const char *op = "cumsum";
  checkTensor(in, in.dtype, in.shape, device(), op, "operand");
  checkTensor(out, in.dtype, in.shape, device(), op, "result");
  CumsumPlan plan = planCumsum(in.dtype, in.shape, dim, exclusive, reverse);
  // The same buffer (in place: each element is read before it is written)
  // or disjoint ones; a partial overlap would read elements already
  // overwritten.
  auto lo = [](const Tensor &t) { return reinterpret_cast<uintptr_t>(t.data); };
  check(in.data == out.data || in.bytes() == 0 ||
            lo(in) + in.bytes() <= lo(out) || lo(out) + out.bytes() <= lo(in),
        "cumsum: operand and result overlap without being the same buffer");
  double t0 = startOp();
  if (plan.count > 0)
    cumsumKernel(plan, in.data, out.data);
  if (profiler_)
    recordOp(label, op,
             out.str() + " dim " + std::to_string(dim) +
                 (exclusive ? " exclusive" : "") + (reverse ? " reverse" : ""),
             t0, 0, 0);
}

void Backend::topK(const Tensor &x, const Tensor *payload, Tensor &out, int dim,
                   int k, std::string_view label) {
  const char *op = "top_k";
  checkTensor(x, x.dtype, x.shape, device(), op, "operand");
  TopKPlan plan = planTopK(x.dtype, x.shape, dim, k);
  if (payload)
    checkTensor(*payload, x.dtype, x.shape, device(), op, "payload");
  Shape outShape = x.shape;
  outShape[dim] = k;
  checkTensor(out, x.dtype, outShape, device(), op, "result");
  // The result is written while the operand and the payload are still
  // read: it must not overlap either (they may share a buffer).
  auto lo = [](const Tensor &t) { return reinterpret_cast<uintptr_t>(t.data); };
  auto disjoint = [&](const Tensor &t) {
    return t.bytes() == 0 || out.bytes() == 0 || lo(t) + t.bytes() <= lo(out) ||
           lo(out) + out.bytes() <= lo(t);
  };
  check(disjoint(x), "top_k: operand and result overlap");
  check(!payload || disjoint(*payload), "top_k: payload and result overlap");
  double t0 = startOp();
  if (plan.outCount > 0)
    topKKernel(plan, x.data, payload ? payload->data : nullptr, out.data);
  if (profiler_)
    recordOp(label, op,
             out.str() + " dim " + std::to_string(dim) + " k " +
                 std::to_string(k) + (payload ? " payload" : ""),
             t0, 0, 0);
}

void Backend::slice(const Tensor &in, const std::vector<int64_t> &offsets,
                    Tensor &out, std::string_view label) {
  checkTensor(in, in.dtype, in.shape, device(), "slice", "operand");
  checkTensor(out, in.dtype, out.shape, device(), "slice", "result");
  CopyPlan p = CopyPlan::extractBlock(in.shape, offsets, out.shape);
  double t0 = startOp();
  copyStrided(p, in.dtype, in.data, out.data);
  if (profiler_)
    recordOp(label, "slice", shapeToString(offsets), t0, 0, 0);
}

void Backend::insert(const Tensor &in, const std::vector<int64_t> &offsets,
                     Tensor &out, std::string_view label) {
  checkTensor(in, in.dtype, in.shape, device(), "insert", "operand");
  checkTensor(out, in.dtype, out.shape, device(), "insert", "result");
  CopyPlan p = CopyPlan::insertBlock(out.shape, offsets, in.shape);
  double t0 = startOp();
  copyStrided(p, in.dtype, in.data, out.data);
  if (profiler_)
    recordOp(label, "insert", shapeToString(offsets), t0, 0, 0);
}

void Backend::sliceShard(const Tensor &in, int dim, const AxisList &axes,
                         Tensor &out, std::string_view label) {
  check(dim >= 0 && dim < static_cast<int>(in.shape.size()),
        "slice_shard: dim ", dim, " out of range for ", in.str());
  const GroupPlan &g = group(axes);
  check(in.shape[dim] % g.size == 0, "slice_shard: dim ", dim, " of ", in.str(),
        " is not divisible by the ", g.size, " devices of ",
        axesStr(mesh_, axes));
  Shape block = in.shape;
  block[dim] /= g.size;
  checkTensor(out, in.dtype, block, device(), "slice_shard", "result");
  std::vector<int64_t> off(in.shape.size(), 0);
  off[dim] = g.position * block[dim];
  CopyPlan p = CopyPlan::extractBlock(in.shape, off, block);
  double t0 = startOp();
  copyStrided(p, in.dtype, in.data, out.data);
  if (profiler_)
    recordOp(label, "slice_shard", axesStr(mesh_, axes), t0, 0, 0);
}

/// A collective over a group of one rank: its result is its operand.
void Backend::copyThrough(const Tensor &in, Tensor &out) {
  if (in.data != out.data)
    copyStrided(CopyPlan::permute({in.numElements()}, {0}), in.dtype, in.data,
                out.data);
}

/// The buffer a collective sends: the operand itself, or the operand packed
/// into the comm-send scratch when the plan needs its blocks contiguous.
const void *Backend::packedInput(const CollectivePlan &p, const Tensor &in) {
  if (!p.packInput)
    return in.data;
  void *t = scratch(Scratch::CommSend, in.bytes());
  copyStrided(p.pack, in.dtype, in.data, t);
  return t;
}

void Backend::allReduce(const Tensor &in, Tensor &out, const AxisList &axes,
                        ReduceKind kind, std::string_view label) {
  const char *op = "all_reduce";
  checkTensor(in, in.dtype, in.shape, device(), op, "operand");
  checkTensor(out, in.dtype, in.shape, device(), op, "result");
  const GroupPlan &g = group(axes);
  double t0 = startOp();
  if (g.size == 1) {
    copyThrough(in, out);
  } else {
    WaitingIn w(CommOp::AllReduce, axesStr(mesh_, axes));
    communicator().allReduce(in.data, out.data, in.numElements(), in.dtype,
                             kind, g);
  }
  if (profiler_)
    recordOp(label, op,
             std::string(reduceKindName(kind)) + " " + axesStr(mesh_, axes) +
                 " " + shapeToString(in.shape),
             t0, 0,
             ringBytes(CollectiveKind::AllReduce, g.size,
                       static_cast<double>(in.bytes())));
}

void Backend::allGather(const Tensor &in, Tensor &out, int dim,
                        const AxisList &axes, std::string_view label) {
  const char *op = "all_gather";
  const GroupPlan &g = group(axes);
  CollectivePlan p = planAllGather(in.shape, dim, g.size);
  checkTensor(in, in.dtype, in.shape, device(), op, "operand");
  checkTensor(out, in.dtype, p.outShape, device(), op, "result");
  double t0 = startOp();
  if (g.size == 1) {
    copyThrough(in, out);
  } else {
    void *recv =
        p.unpackOutput ? scratch(Scratch::CommRecv, out.bytes()) : out.data;
    WaitingIn w(CommOp::AllGather, axesStr(mesh_, axes));
    communicator().allGather(in.data, recv, p.chunkElements, in.dtype, g);
    if (p.unpackOutput)
      copyStrided(p.unpack, in.dtype, recv, out.data);
  }
  if (profiler_)
    recordOp(label, op,
             axesStr(mesh_, axes) + " dim " + std::to_string(dim) + " " +
                 shapeToString(in.shape),
             t0, 0,
             ringBytes(CollectiveKind::AllGather, g.size,
                       static_cast<double>(out.bytes())));
}

void Backend::reduceScatter(const Tensor &in, Tensor &out, int dim,
                            const AxisList &axes, ReduceKind kind,
                            std::string_view label) {
  const char *op = "reduce_scatter";
  const GroupPlan &g = group(axes);
  CollectivePlan p = planReduceScatter(in.shape, dim, g.size);
  checkTensor(in, in.dtype, in.shape, device(), op, "operand");
  checkTensor(out, in.dtype, p.outShape, device(), op, "result");
  double t0 = startOp();
  if (g.size == 1) {
    copyThrough(in, out);
  } else {
    const void *send = packedInput(p, in);
    WaitingIn w(CommOp::ReduceScatter, axesStr(mesh_, axes));
    communicator().reduceScatter(send, out.data, p.chunkElements, in.dtype,
                                 kind, g);
  }
  if (profiler_)
    recordOp(label, op,
             std::string(reduceKindName(kind)) + " " + axesStr(mesh_, axes) +
                 " dim " + std::to_string(dim) + " " + shapeToString(in.shape),
             t0, 0,
             ringBytes(CollectiveKind::ReduceScatter, g.size,
                       static_cast<double>(in.bytes())));
}

void Backend::allToAll(const Tensor &in, Tensor &out, int splitDim,
                       int concatDim, const AxisList &axes,
                       std::string_view label) {
  const char *op = "all_to_all";
  const GroupPlan &g = group(axes);
  CollectivePlan p = planAllToAll(in.shape, splitDim, concatDim, g.size);
  checkTensor(in, in.dtype, in.shape, device(), op, "operand");
  checkTensor(out, in.dtype, p.outShape, device(), op, "result");
  double t0 = startOp();
  if (g.size == 1) {
    copyThrough(in, out);
  } else {
    const void *send = packedInput(p, in);
    void *recv =
        p.unpackOutput ? scratch(Scratch::CommRecv, out.bytes()) : out.data;
    WaitingIn w(CommOp::AllToAll, axesStr(mesh_, axes));
    communicator().allToAll(send, recv, p.chunkElements, in.dtype, g);
    if (p.unpackOutput)
      copyStrided(p.unpack, in.dtype, recv, out.data);
  }
  if (profiler_)
    recordOp(label, op,
             axesStr(mesh_, axes) + " " + std::to_string(splitDim) + "->" +
                 std::to_string(concatDim) + " " + shapeToString(in.shape),
             t0, 0,
             ringBytes(CollectiveKind::AllToAll, g.size,
                       static_cast<double>(in.bytes())));
}

//===--- Asynchronous collectives -----------------------------------------===//

void *Backend::receiveBuffer(Pending &p, const CollectivePlan &cp) {
  if (!cp.unpackOutput)
    return p.out.data;
  Tensor r = empty(p.out.dtype, p.out.shape);
  p.keep.push_back(r);
  p.recv = r.data;
  p.unpack = cp.unpack;
  return r.data;
}

Tensor Backend::packedCopy(const CollectivePlan &p, const Tensor &in) {
  if (!p.packInput)
    return in;
  Tensor t = empty(in.dtype, in.shape);
  copyStrided(p.pack, in.dtype, in.data, t.data);
  return t;
}

bool Backend::asyncCollectives() {
  // Groups of one never communicate; otherwise the communicator decides.
  return mesh_.numDevices() > 1 && communicator().progressesAsync();
}

std::unique_ptr<Backend::Pending>
Backend::completed(const std::function<void()> &run, const Tensor &out) {
  run(); // Profiled as the blocking collective it is.
  auto p = std::make_unique<Pending>();
  p->out = out; // gen::wait finds it by its result
  p->finished = true;
  return p;
}

std::unique_ptr<Backend::Pending>
Backend::pending(std::string_view label, const char *kind, std::string detail,
                 double bytes, const Tensor &in, const Tensor &out) {
  auto p = std::make_unique<Pending>();
  p->label =
      label.empty() ? std::string(kind) + " " + detail : std::string(label);
  p->kind = kind;
  p->detail = std::move(detail);
  p->bytes = bytes;
  p->out = out;
  if (profiler_)
    p->started = wallSeconds();
  // The operand and the result stay alive until finish(), whatever the
  // step releases meanwhile.
  p->keep = {in, out};
  return p;
}

std::unique_ptr<Backend::Pending>
Backend::startAllReduce(const Tensor &in, Tensor &out, const AxisList &axes,
                        ReduceKind kind, std::string_view label) {
  if (!asyncCollectives())
    return completed([&] { allReduce(in, out, axes, kind, label); }, out);
  const char *op = "all_reduce";
  checkTensor(in, in.dtype, in.shape, device(), op, "operand");
  checkTensor(out, in.dtype, in.shape, device(), op, "result");
  const GroupPlan &g = group(axes);
  auto p = pending(label, op,
                   std::string(reduceKindName(kind)) + " " +
                       axesStr(mesh_, axes) + " " + shapeToString(in.shape),
                   ringBytes(CollectiveKind::AllReduce, g.size,
                             static_cast<double>(in.bytes())),
                   in, out);
  if (g.size == 1) {
    copyThrough(in, out);
  } else {
    p->seq = rankstatus::enter(CommOp::AllReduce, axesStr(mesh_, axes));
    p->work = communicator().startAllReduce(in.data, out.data, in.numElements(),
                                            in.dtype, kind, g);
  }
  return p;
}

std::unique_ptr<Backend::Pending>
Backend::startAllGather(const Tensor &in, Tensor &out, int dim,
                        const AxisList &axes, std::string_view label) {
  if (!asyncCollectives())
    return completed([&] { allGather(in, out, dim, axes, label); }, out);
  const char *op = "all_gather";
  const GroupPlan &g = group(axes);
  CollectivePlan cp = planAllGather(in.shape, dim, g.size);
  checkTensor(in, in.dtype, in.shape, device(), op, "operand");
  checkTensor(out, in.dtype, cp.outShape, device(), op, "result");
  auto p = pending(label, op,
                   axesStr(mesh_, axes) + " dim " + std::to_string(dim) + " " +
                       shapeToString(in.shape),
                   ringBytes(CollectiveKind::AllGather, g.size,
                             static_cast<double>(out.bytes())),
                   in, out);
  if (g.size == 1) {
    copyThrough(in, out);
    return p;
  }
  void *recv = receiveBuffer(*p, cp);
  p->seq = rankstatus::enter(CommOp::AllGather, axesStr(mesh_, axes));
  p->work = communicator().startAllGather(in.data, recv, cp.chunkElements,
                                          in.dtype, g);
  return p;
}

std::unique_ptr<Backend::Pending>
Backend::startReduceScatter(const Tensor &in, Tensor &out, int dim,
                            const AxisList &axes, ReduceKind kind,
                            std::string_view label) {
  if (!asyncCollectives())
    return completed([&] { reduceScatter(in, out, dim, axes, kind, label); },
                     out);
  const char *op = "reduce_scatter";
  const GroupPlan &g = group(axes);
  CollectivePlan cp = planReduceScatter(in.shape, dim, g.size);
  checkTensor(in, in.dtype, in.shape, device(), op, "operand");
  checkTensor(out, in.dtype, cp.outShape, device(), op, "result");
  auto p =
      pending(label, op,
              std::string(reduceKindName(kind)) + " " + axesStr(mesh_, axes) +
                  " dim " + std::to_string(dim) + " " + shapeToString(in.shape),
              ringBytes(CollectiveKind::ReduceScatter, g.size,
                        static_cast<double>(in.bytes())),
              in, out);
  if (g.size == 1) {
    copyThrough(in, out);
    return p;
  }
  Tensor send = packedCopy(cp, in);
  p->keep.push_back(send);
  p->seq = rankstatus::enter(CommOp::ReduceScatter, axesStr(mesh_, axes));
  p->work = communicator().startReduceScatter(
      send.data, out.data, cp.chunkElements, in.dtype, kind, g);
  return p;
}

std::unique_ptr<Backend::Pending>
Backend::startAllToAll(const Tensor &in, Tensor &out, int splitDim,
                       int concatDim, const AxisList &axes,
                       std::string_view label) {
  if (!asyncCollectives())
    return completed(
        [&] { allToAll(in, out, splitDim, concatDim, axes, label); }, out);
  const char *op = "all_to_all";
  const GroupPlan &g = group(axes);
  CollectivePlan cp = planAllToAll(in.shape, splitDim, concatDim, g.size);
  checkTensor(in, in.dtype, in.shape, device(), op, "operand");
  checkTensor(out, in.dtype, cp.outShape, device(), op, "result");
  auto p =
      pending(label, op,
              axesStr(mesh_, axes) + " " + std::to_string(splitDim) + "->" +
                  std::to_string(concatDim) + " " + shapeToString(in.shape),
              ringBytes(CollectiveKind::AllToAll, g.size,
                        static_cast<double>(in.bytes())),
              in, out);
  if (g.size == 1) {
    copyThrough(in, out);
    return p;
  }
  Tensor send = packedCopy(cp, in);
  p->keep.push_back(send);
  void *recv = receiveBuffer(*p, cp);
  p->seq = rankstatus::enter(CommOp::AllToAll, axesStr(mesh_, axes));
  p->work = communicator().startAllToAll(send.data, recv, cp.chunkElements,
                                         in.dtype, g);
  return p;
}

void Backend::finish(Pending &p) {
  if (p.finished)
    return;
  double t0 = profiler_ ? wallSeconds() : 0;
  if (p.work) {
    rankstatus::setWaiting(p.seq, true);
    p.work->wait();
    rankstatus::setWaiting(p.seq, false);
  }
  if (p.recv)
    copyStrided(p.unpack, p.out.dtype, p.recv, p.out.data);
  p.finished = true;
  if (profiler_) {
    synchronize();
    double exposed = wallSeconds() - t0;
    double inFlight = p.work ? p.work->secondsInFlight() : 0;
    profiler_->record(p.label, p.kind, exposed, 0, p.bytes);
    profiler_->recordOverlap(inFlight < 0 ? exposed : inFlight, exposed);
    // The trace shows an asynchronous collective from its start to its
    // completion on a row of its own, beside the wait on the ops row.
    if (Trace *tr = profiler_->trace(); tr && p.work && p.started > 0)
      tr->add(p.label, p.kind, p.started,
              inFlight >= 0 ? p.started + inFlight : wallSeconds(), p.bytes,
              TraceRow::InFlight);
  }
  p.work.reset();
  p.keep.clear();
}

Tensor Backend::gatherToRoot(const Tensor &local, const Layout &layout,
                             const Shape &globalShape, std::string_view label) {
  Shape ls = localShape(mesh_, layout, globalShape);
  checkTensor(local, local.dtype, ls, device(), "gather_to_root", "operand");
  double t0 = startOp();
  Tensor host = download(local);
  int64_t n = mesh_.numDevices();
  Tensor result;
  if (n == 1) {
    result = host;
  } else {
    std::vector<char> all;
    if (rank_ == 0)
      all.resize(checkedBytes(static_cast<std::size_t>(n), host.bytes()));
    WaitingIn w(CommOp::GatherToRoot, "the world");
    communicator().gatherBytesToRoot(host.data, all.data(), host.bytes());
    if (rank_ == 0) {
      result = hostTensor(local.dtype, globalShape);
      for (int64_t r = 0; r < n; ++r) {
        auto off = blockOffsets(mesh_, layout, globalShape, r);
        copyStridedHost(CopyPlan::insertBlock(globalShape, off, ls),
                        dtypeSize(local.dtype),
                        all.data() + host.bytes() * static_cast<std::size_t>(r),
                        result.data);
      }
    }
  }
  if (profiler_)
    recordOp(label, "gather_to_root", shapeToString(globalShape), t0, 0,
             static_cast<double>(host.bytes()));
  return result;
}

//===--- Root collectives (issue 33) --------------------------------------===//

namespace {
/// Checks that `root` is a position of `g`.
void checkRoot(int64_t root, const GroupPlan &g, const char *op,
               const std::string &axes) {
  check(root >= 0 && root < g.size, op, ": root ", root,
        " is outside the group of ", g.size, " rank(s) over ", axes);
}
} // namespace

void Backend::broadcast(const Tensor &in, Tensor &out, int64_t root,
                        const AxisList &axes, std::string_view label) {
  const char *op = "broadcast";
  checkTensor(in, in.dtype, in.shape, device(), op, "operand");
  checkTensor(out, in.dtype, in.shape, device(), op, "result");
  const GroupPlan &g = group(axes);
  std::string where = axesStr(mesh_, axes);
  checkRoot(root, g, op, where);
  double t0 = startOp();
  if (g.position == root || g.size == 1)
    copyThrough(in, out);
  if (g.size > 1) {
    WaitingIn w(CommOp::Broadcast, where);
    communicator()
        .startBroadcast(out.data, out.numElements(), in.dtype, root, g)
        ->wait();
  }
  if (profiler_)
    recordOp(label, op,
             where + " root " + std::to_string(root) + " " +
                 shapeToString(in.shape),
             t0, 0,
             ringBytes(CollectiveKind::Broadcast, g.size,
                       static_cast<double>(in.bytes())));
}

void Backend::reduceTo(const Tensor &in, Tensor &out, int64_t root,
                       const AxisList &axes, ReduceKind kind,
                       std::string_view label) {
  const char *op = "reduce_to";
  checkTensor(in, in.dtype, in.shape, device(), op, "operand");
  checkTensor(out, in.dtype, in.shape, device(), op, "result");
  check(in.data != out.data || in.numElements() == 0, op,
        ": the result must not be the operand's buffer");
  const GroupPlan &g = group(axes);
  std::string where = axesStr(mesh_, axes);
  checkRoot(root, g, op, where);
  double t0 = startOp();
  if (g.size == 1) {
    copyThrough(in, out);
  } else {
    {
      WaitingIn w(CommOp::ReduceTo, where);
      communicator()
          .startReduceTo(in.data, out.data, in.numElements(), in.dtype, kind,
                         root, g)
          ->wait();
    }
    if (g.position != root)
      fillZero(out.data, out.dtype, out.numElements());
  }
  if (profiler_)
    recordOp(label, op,
             std::string(reduceKindName(kind)) + " " + where + " root " +
                 std::to_string(root) + " " + shapeToString(in.shape),
             t0, 0,
             ringBytes(CollectiveKind::ReduceTo, g.size,
                       static_cast<double>(in.bytes())));
}

void Backend::gatherTo(const Tensor &in, Tensor &out, int dim, int64_t root,
                       const AxisList &axes, std::string_view label) {
  const char *op = "gather_to";
  const GroupPlan &g = group(axes);
  CollectivePlan p = planAllGather(in.shape, dim, g.size);
  checkTensor(in, in.dtype, in.shape, device(), op, "operand");
  checkTensor(out, in.dtype, p.outShape, device(), op, "result");
  std::string where = axesStr(mesh_, axes);
  checkRoot(root, g, op, where);
  double t0 = startOp();
  if (g.size == 1) {
    copyThrough(in, out);
  } else {
    bool isRoot = g.position == root;
    void *recv = !isRoot          ? nullptr
                 : p.unpackOutput ? scratch(Scratch::CommRecv, out.bytes())
                                  : out.data;
    {
      WaitingIn w(CommOp::GatherTo, where);
      communicator()
          .startGatherTo(in.data, recv, p.chunkElements, in.dtype, root, g)
          ->wait();
    }
    if (!isRoot)
      fillZero(out.data, out.dtype, out.numElements());
    else if (p.unpackOutput)
      copyStrided(p.unpack, in.dtype, recv, out.data);
  }
  if (profiler_)
    recordOp(label, op,
             where + " root " + std::to_string(root) + " dim " +
                 std::to_string(dim) + " " + shapeToString(in.shape),
             t0, 0,
             ringBytes(CollectiveKind::GatherTo, g.size,
                       static_cast<double>(out.bytes())));
}

void Backend::scatterFrom(const Tensor &in, Tensor &out, int dim, int64_t root,
                          const AxisList &axes, std::string_view label) {
  const char *op = "scatter_from";
  const GroupPlan &g = group(axes);
  CollectivePlan p = planReduceScatter(in.shape, dim, g.size);
  checkTensor(in, in.dtype, in.shape, device(), op, "operand");
  checkTensor(out, in.dtype, p.outShape, device(), op, "result");
  std::string where = axesStr(mesh_, axes);
  checkRoot(root, g, op, where);
  double t0 = startOp();
  if (g.size == 1) {
    copyThrough(in, out);
  } else {
    const void *send = g.position == root ? packedInput(p, in) : nullptr;
    WaitingIn w(CommOp::ScatterFrom, where);
    communicator()
        .startScatterFrom(send, out.data, p.chunkElements, in.dtype, root, g)
        ->wait();
  }
  if (profiler_)
    recordOp(label, op,
             where + " root " + std::to_string(root) + " dim " +
                 std::to_string(dim) + " " + shapeToString(in.shape),
             t0, 0,
             ringBytes(CollectiveKind::ScatterFrom, g.size,
                       static_cast<double>(in.bytes())));
}

std::unique_ptr<Backend::Pending>
Backend::startBroadcast(const Tensor &in, Tensor &out, int64_t root,
                        const AxisList &axes, std::string_view label) {
  return completed([&] { broadcast(in, out, root, axes, label); }, out);
}

std::unique_ptr<Backend::Pending>
Backend::startReduceTo(const Tensor &in, Tensor &out, int64_t root,
                       const AxisList &axes, ReduceKind kind,
                       std::string_view label) {
  return completed([&] { reduceTo(in, out, root, axes, kind, label); }, out);
}

std::unique_ptr<Backend::Pending>
Backend::startGatherTo(const Tensor &in, Tensor &out, int dim, int64_t root,
                       const AxisList &axes, std::string_view label) {
  return completed([&] { gatherTo(in, out, dim, root, axes, label); }, out);
}

std::unique_ptr<Backend::Pending>
Backend::startScatterFrom(const Tensor &in, Tensor &out, int dim, int64_t root,
                          const AxisList &axes, std::string_view label) {
  return completed([&] { scatterFrom(in, out, dim, root, axes, label); }, out);
}

//===--- Point to point (issue 33) ----------------------------------------===//

namespace {
/// This rank's part in a permute: the position it sends to and the one it
/// receives from (-1: none), from [s0, t0, s1, t1, ...].
struct PermutePart {
  int64_t sendTo = -1, recvFrom = -1;
};
PermutePart permutePart(const std::vector<int64_t> &pairs, const GroupPlan &g,
                        const std::string &axes) {
  check(pairs.size() % 2 == 0 && !pairs.empty(),
        "collective_permute: pairs must be [source, target] pairs");
  PermutePart part;
  for (std::size_t i = 0; i + 1 < pairs.size(); i += 2) {
    int64_t s = pairs[i], t = pairs[i + 1];
    check(s >= 0 && s < g.size && t >= 0 && t < g.size,
          "collective_permute: pair [", s, ", ", t,
          "] is outside the group of ", g.size, " rank(s) over ", axes);
    if (s == g.position) {
      check(part.sendTo < 0, "collective_permute: position ", s,
            " is the source of two pairs");
      part.sendTo = t;
    }
    if (t == g.position) {
      check(part.recvFrom < 0, "collective_permute: position ", t,
            " is the target of two pairs");
      part.recvFrom = s;
    }
  }
  return part;
}
} // namespace

std::unique_ptr<Backend::Pending>
Backend::startCollectivePermute(const Tensor &in, Tensor &out,
                                const std::vector<int64_t> &pairs,
                                const AxisList &axes, std::string_view label) {
  const char *op = "collective_permute";
  checkTensor(in, in.dtype, in.shape, device(), op, "operand");
  checkTensor(out, in.dtype, in.shape, device(), op, "result");
  check(in.data != out.data || in.numElements() == 0, op,
        ": the result must not be the operand's buffer");
  const GroupPlan &g = group(axes);
  std::string where = axesStr(mesh_, axes);
  PermutePart part = permutePart(pairs, g, where);
  bool crosses = false;
  for (std::size_t i = 0; i + 1 < pairs.size(); i += 2)
    crosses |= pairs[i] != pairs[i + 1];
  auto p = pending(label, op, where + " " + shapeToString(in.shape),
                   crosses ? ringBytes(CollectiveKind::Permute, g.size,
                                       static_cast<double>(in.bytes()))
                           : 0,
                   in, out);
  // What stays on this rank: zeros (no source) or the rank's own value.
  if (part.recvFrom < 0)
    fillZero(out.data, out.dtype, out.numElements());
  else if (part.recvFrom == g.position)
    copyThrough(in, out);
  int64_t sendTo = part.sendTo == g.position ? -1 : part.sendTo;
  int64_t recvFrom = part.recvFrom == g.position ? -1 : part.recvFrom;
  if (sendTo >= 0 || recvFrom >= 0) {
    p->seq = rankstatus::enter(CommOp::Permute, where);
    p->work = communicator().startPermute(in.data, out.data, in.numElements(),
                                          in.dtype, sendTo, recvFrom, g);
  }
  return p;
}

void Backend::collectivePermute(const Tensor &in, Tensor &out,
                                const std::vector<int64_t> &pairs,
                                const AxisList &axes, std::string_view label) {
  finish(*startCollectivePermute(in, out, pairs, axes, label));
}

} // namespace weft::rt
