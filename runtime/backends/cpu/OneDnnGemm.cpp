//===- OneDnnGemm.cpp - A GemmPlan as a cached oneDNN matmul --------------===//
//
// The plan's operands become oneDNN memory descriptors with explicit
// strides: [outer, batch, rows, cols], batch levels of extent 1 dropped, an
// operand with batch stride 0 (shared by every batch) given extent 1 there,
// which oneDNN's matmul broadcasts. A transposed operand is the same matrix
// with its two strides swapped, so no layout needs a copy. The memory
// objects are created without a buffer; each run points them at the
// caller's buffers (set_data_handle, a pointer store on the CPU).
//
//===----------------------------------------------------------------------===//

#include "OneDnnGemm.h"

#include "BatchPack.h"

#include "weft/rt/Config.h"
#include "weft/rt/Error.h"

#if WEFT_RT_HAVE_DNNL
#include <omp.h>
#include <oneapi/dnnl/dnnl.hpp>
#endif

#include <algorithm>
#include <array>
#include <optional>
#include <unordered_map>
#include <vector>

namespace weft::rt::onednn {

#if WEFT_RT_HAVE_DNNL

bool available() { return true; }

std::string version() {
  const dnnl_version_t *v = dnnl::version();
  return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) +
         "." + std::to_string(v->patch);
}

std::string isa() {
  switch (dnnl::get_effective_cpu_isa()) {
  case dnnl::cpu_isa::sse41:
    return "sse41";
  case dnnl::cpu_isa::avx:
    return "avx";
  case dnnl::cpu_isa::avx2:
    return "avx2";
  case dnnl::cpu_isa::avx2_vnni:
    return "avx2_vnni";
  case dnnl::cpu_isa::avx512_mic:
  case dnnl::cpu_isa::avx512_mic_4ops:
    return "avx512_mic";
  case dnnl::cpu_isa::avx512_core:
    return "avx512_core";
  case dnnl::cpu_isa::avx512_core_vnni:
    return "avx512_core_vnni";
  case dnnl::cpu_isa::avx512_core_bf16:
    return "avx512_core_bf16";
  case dnnl::cpu_isa::avx512_core_amx:
    return "avx512_core_amx";
  case dnnl::cpu_isa::all:
    break;
  }
  return "unknown";
}

void setThreads(int threads) {
  if (omp_get_max_threads() != threads)
    omp_set_num_threads(threads);
}

namespace {

/// The engine and stream every primitive of the process runs on (oneDNN's
/// CPU engine and an in-order stream: execute returns when C is written).
struct Context {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
};
Context &context() {
  static Context c;
  return c;
}

/// One operand: dims and strides of its batch levels (outer, inner) and
/// its [rows, cols] matrix.
struct Layout {
  dnnl::memory::dims dims, strides;
};

/// The extent an operand has along a batch level: the level's extent, or
/// 1 (broadcast) where the operand's stride is 0.
Layout layoutOf(const std::vector<std::pair<int64_t, int64_t>> &levels,
                int64_t rows, int64_t cols, int64_t rowStride,
                int64_t colStride) {
  Layout l;
  for (auto [extent, stride] : levels) {
    int64_t e = stride == 0 ? 1 : extent;
    l.dims.push_back(e);
    l.strides.push_back(stride);
  }
  l.dims.push_back(rows);
  l.dims.push_back(cols);
  l.strides.push_back(rowStride);
  l.strides.push_back(colStride);
  // A level of extent 1 can have any stride; give it the span of what lies
  // inside it so no checker sees it overlap anything.
  for (int d = static_cast<int>(l.dims.size()) - 1; d >= 0; --d)
    if (l.dims[d] == 1) {
      int64_t span = 1;
      for (std::size_t i = d + 1; i < l.dims.size(); ++i)
        span += (l.dims[i] - 1) * l.strides[i];
      l.strides[d] = std::max<int64_t>(span, 1);
    }
  return l;
}

bool isReference(const std::string &impl) { return impl.rfind("ref", 0) == 0; }

} // namespace

struct Matmul::State {
  dnnl::matmul prim;
  dnnl::memory a, b, c, bias;
  std::unordered_map<int, dnnl::memory> args;
  std::string impl;
  bool batched = true;
  GemmPlan plan;
  std::size_t elementSize = sizeof(float);
  /// Packed batches (BatchPack.h): the primitive is the chunk's, `full`
  /// the plan it runs chunk by chunk, packA/packB the chunk's buffers.
  std::optional<cpu::BatchPackPlan> pack;
  GemmPlan full;
  std::vector<float> packA, packB;
};

/// A primitive for the given batch levels (empty: one matrix), or an
/// empty optional when oneDNN refuses it.
static dnnl::algorithm actAlgorithm(Epilogue::Act a) {
  switch (a) {
  case Epilogue::Act::Relu:
    return dnnl::algorithm::eltwise_relu;
  case Epilogue::Act::Gelu:
    return dnnl::algorithm::eltwise_gelu_tanh;
  case Epilogue::Act::Silu:
    return dnnl::algorithm::eltwise_swish;
  case Epilogue::Act::Sigmoid:
    return dnnl::algorithm::eltwise_logistic;
  case Epilogue::Act::Tanh:
    return dnnl::algorithm::eltwise_tanh;
  case Epilogue::Act::None:
    break;
  }
  return dnnl::algorithm::undef;
}

static std::unique_ptr<Matmul::State>
makeState(const GemmPlan &p, const std::vector<std::array<int64_t, 4>> &levels,
          const Epilogue &epi, std::string &whyNot, bool bf16) {
  using dt = dnnl::memory::data_type;
  const dt et = bf16 ? dt::bf16 : dt::f32;
  std::vector<std::pair<int64_t, int64_t>> la, lb, lc;
  for (const auto &l : levels) {
    la.push_back({l[0], l[1]});
    lb.push_back({l[0], l[2]});
    lc.push_back({l[0], l[3]});
  }
  // Element (i, j) of A is at i * rowStride + j * colStride.
  Layout A = p.transA ? layoutOf(la, p.m, p.k, 1, p.lda)
                      : layoutOf(la, p.m, p.k, p.lda, 1);
  Layout B = p.transB ? layoutOf(lb, p.k, p.n, 1, p.ldb)
                      : layoutOf(lb, p.k, p.n, p.ldb, 1);
  Layout C = layoutOf(lc, p.m, p.n, p.ldc, 1);
  // The result has every batch level's full extent.
  for (std::size_t i = 0; i < levels.size(); ++i)
    C.dims[i] = levels[i][0];
  try {
    auto st = std::make_unique<Matmul::State>();
    Context &ctx = context();
    dnnl::memory::desc ma(A.dims, et, A.strides), mb(B.dims, et, B.strides),
        mc(C.dims, et, C.strides);
    // The bias: extent 1 everywhere but along the result's columns.
    dnnl::memory::desc mbias;
    if (epi.bias != Epilogue::Bias::None) {
      dnnl::memory::dims bd(C.dims.size(), 1), bs(C.dims.size(), p.n);
      bd.back() = p.n;
      bs.back() = 1;
      mbias = dnnl::memory::desc(bd, dt::f32, bs);
    }
    dnnl::matmul::desc d = epi.bias != Epilogue::Bias::None
                               ? dnnl::matmul::desc(ma, mb, mbias, mc)
                               : dnnl::matmul::desc(ma, mb, mc);
    // Post-ops in order: the activation of A B + bias, then the sum with
    // what C held.
    dnnl::post_ops ops;
    if (epi.act != Epilogue::Act::None)
      ops.append_eltwise(1.0f, actAlgorithm(epi.act),
                         epi.act == Epilogue::Act::Silu ? 1.0f : 0.0f, 0.0f);
    if (epi.scale != 1.0f)
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, epi.scale,
                         0.0f);
    if (epi.accumulate)
      ops.append_sum(1.0f);
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    dnnl::matmul::primitive_desc pd(d, attr, ctx.engine);
    st->impl = pd.impl_info_str();
    st->prim = dnnl::matmul(pd);
    st->a = dnnl::memory(ma, ctx.engine, DNNL_MEMORY_NONE);
    st->b = dnnl::memory(mb, ctx.engine, DNNL_MEMORY_NONE);
    st->c = dnnl::memory(mc, ctx.engine, DNNL_MEMORY_NONE);
    st->args = {{DNNL_ARG_SRC, st->a},
                {DNNL_ARG_WEIGHTS, st->b},
                {DNNL_ARG_DST, st->c}};
    if (epi.bias != Epilogue::Bias::None) {
      st->bias = dnnl::memory(mbias, ctx.engine, DNNL_MEMORY_NONE);
      st->args[DNNL_ARG_BIAS] = st->bias;
    }
    st->plan = p;
    st->elementSize = bf16 ? 2 : sizeof(float);
    return st;
  } catch (const dnnl::error &e) {
    whyNot = std::string("oneDNN refused the layout: ") + e.what();
    return nullptr;
  }
}

std::unique_ptr<Matmul> Matmul::create(const GemmPlan &p, std::string &whyNot) {
  return create(p, Epilogue(), whyNot);
}

static std::unique_ptr<Matmul::State> createState(const GemmPlan &p,
                                                  const Epilogue &epi,
                                                  std::string &whyNot,
                                                  bool bf16);

std::unique_ptr<Matmul> Matmul::create(const GemmPlan &p, const Epilogue &epi,
                                       std::string &whyNot) {
  auto st = createState(p, epi, whyNot, /*bf16=*/false);
  return st ? std::unique_ptr<Matmul>(new Matmul(std::move(st))) : nullptr;
}

std::unique_ptr<Matmul> Matmul::createBf16(const GemmPlan &p,
                                           std::string &whyNot) {
  auto st = createState(p, Epilogue(), whyNot, /*bf16=*/true);
  return st ? std::unique_ptr<Matmul>(new Matmul(std::move(st))) : nullptr;
}

static std::unique_ptr<Matmul::State> createState(const GemmPlan &p,
                                                  const Epilogue &epi,
                                                  std::string &whyNot,
                                                  bool bf16) {
  if (p.m <= 0 || p.n <= 0 || p.k <= 0 || p.batch <= 0 || p.outerBatch <= 0) {
    whyNot = "an empty GEMM";
    return nullptr;
  }
  // Interleaved small matrices: the chunk's primitive on packed copies.
  if (!bf16)
    if (std::optional<cpu::BatchPackPlan> pk =
            cpu::planBatchPack(p, cpu::packL2Bytes())) {
      std::string why;
      std::unique_ptr<Matmul::State> st =
          createState(pk->chunk, epi, why, /*bf16=*/false);
      if (st && st->batched && !st->pack) {
        st->full = p;
        st->impl = "packed " + st->impl;
        st->packA.resize(static_cast<std::size_t>(
            pk->a.pack ? pk->chunkOuter * pk->chunkInner * pk->a.elements()
                       : 0));
        st->packB.resize(static_cast<std::size_t>(
            pk->b.pack ? pk->chunkOuter * pk->chunkInner * pk->b.elements()
                       : 0));
        st->pack = std::move(pk);
        return st;
      }
    }
  std::vector<std::array<int64_t, 4>> levels;
  if (p.outerBatch > 1)
    levels.push_back(
        {p.outerBatch, p.outerStrideA, p.outerStrideB, p.outerStrideC});
  if (p.batch > 1)
    levels.push_back({p.batch, p.strideA, p.strideB, p.strideC});
  // A result level of stride 0 would write one matrix many times; no
  // planner emits it, and oneDNN's result must not overlap itself.
  for (const auto &l : levels)
    if (l[3] == 0) {
      whyNot = "the result has batch stride 0";
      return nullptr;
    }
  std::unique_ptr<Matmul::State> st = makeState(p, levels, epi, whyNot, bf16);
  if (st && !isReference(st->impl))
    return st;
  if (!levels.empty()) {
    // oneDNN's fast kernels take fewer batch layouts than the planner
    // makes (Megatron's [b, t, h, k] as an outer batch of strided batches):
    // one 2-D primitive run per matrix, as the OpenBLAS path does.
    std::string why2;
    std::unique_ptr<Matmul::State> one = makeState(p, {}, epi, why2, bf16);
    if (one && !isReference(one->impl)) {
      one->batched = false;
      return one;
    }
  }
  if (st)
    whyNot = "oneDNN has only its reference kernel (" + st->impl +
             ") for this layout";
  return nullptr;
}

Matmul::Matmul(std::unique_ptr<State> s) : s_(std::move(s)) {}
Matmul::~Matmul() = default;
const std::string &Matmul::impl() const { return s_->impl; }
bool Matmul::batched() const { return s_->batched; }

void Matmul::run(const float *a, const float *b, float *c, const float *bias) {
  runRaw(a, b, c, bias);
}

void Matmul::runRaw(const void *a, const void *b, void *c, const float *bias) {
  State &s = *s_;
  dnnl::stream &stream = context().stream;
  if (s.bias) {
    check(bias != nullptr, "oneDNN matmul with a bias run without one");
    s.bias.set_data_handle(const_cast<float *>(bias));
  }
  auto exec = [&](const void *A, const void *B, void *C) {
    s.a.set_data_handle(const_cast<void *>(A));
    s.b.set_data_handle(const_cast<void *>(B));
    s.c.set_data_handle(C);
    s.prim.execute(stream, s.args);
  };
  if (s.pack) {
    // Chunk by chunk: pack the interleaved operands, run the chunk's
    // primitive; the others and C are read and written where they are.
    const GemmPlan &p = s.full;
    const cpu::BatchPackPlan &pk = *s.pack;
    const float *fa = static_cast<const float *>(a);
    const float *fb = static_cast<const float *>(b);
    float *fc = static_cast<float *>(c);
    for (int64_t o = 0; o < p.outerBatch; o += pk.chunkOuter)
      for (int64_t i = 0; i < p.batch; i += pk.chunkInner) {
        // The next chunk's sources, on their way while this one computes.
        int64_t no = o, ni = i + pk.chunkInner;
        if (ni >= p.batch) {
          ni = 0;
          no += pk.chunkOuter;
        }
        const bool next = no < p.outerBatch;
        const float *ca = fa + o * p.outerStrideA + i * p.strideA;
        const float *cb = fb + o * p.outerStrideB + i * p.strideB;
        if (pk.a.pack) {
          cpu::packChunk(p, pk, /*isA=*/true, fa, o, i, s.packA.data());
          ca = s.packA.data();
        }
        if (pk.b.pack) {
          cpu::packChunk(p, pk, /*isA=*/false, fb, o, i, s.packB.data());
          cb = s.packB.data();
        }
        if (next)
          cpu::prefetchChunk(p, pk, fa, fb, no, ni);
        exec(ca, cb, fc + o * p.outerStrideC + i * p.strideC);
      }
  } else if (s.batched) {
    exec(a, b, c);
  } else {
    const GemmPlan &p = s.plan;
    const auto es = static_cast<int64_t>(s.elementSize);
    const char *ca = static_cast<const char *>(a);
    const char *cb = static_cast<const char *>(b);
    char *cc = static_cast<char *>(c);
    for (int64_t o = 0; o < p.outerBatch; ++o)
      for (int64_t i = 0; i < p.batch; ++i)
        exec(ca + (o * p.outerStrideA + i * p.strideA) * es,
             cb + (o * p.outerStrideB + i * p.strideB) * es,
             cc + (o * p.outerStrideC + i * p.strideC) * es);
  }
  stream.wait();
}

#else // !WEFT_RT_HAVE_DNNL

bool available() { return false; }
std::string version() { return ""; }
std::string isa() { return ""; }
void setThreads(int) {}

struct Matmul::State {};
std::unique_ptr<Matmul> Matmul::create(const GemmPlan &, std::string &whyNot) {
  whyNot = "this build has no oneDNN";
  return nullptr;
}
std::unique_ptr<Matmul> Matmul::create(const GemmPlan &, const Epilogue &,
                                       std::string &whyNot) {
  whyNot = "this build has no oneDNN";
  return nullptr;
}
Matmul::Matmul(std::unique_ptr<State> s) : s_(std::move(s)) {}
Matmul::~Matmul() = default;
const std::string &Matmul::impl() const {
  static const std::string none;
  return none;
}
bool Matmul::batched() const { return false; }
std::unique_ptr<Matmul> Matmul::createBf16(const GemmPlan &,
                                           std::string &whyNot) {
  whyNot = "this build has no oneDNN";
  return nullptr;
}
void Matmul::run(const float *, const float *, float *, const float *) {
  fail("oneDNN matmul run in a build without oneDNN");
}
void Matmul::runRaw(const void *, const void *, void *, const float *) {
  fail("oneDNN matmul run in a build without oneDNN");
}

#endif

} // namespace weft::rt::onednn
