//===- weft-calibrate.cpp - measures a machine profile --------------------===//
//
// Runs under mpirun on the machine a profile is for and measures what
// weft-propagate's global search prices a plan with (MachineProfile.h,
// docs/machine-profile.md): the FLOP/s of the CPU backend's f32 and f64
// contractions (oneDNN, OpenBLAS; cblas_sgemm alone is recorded too), the
// bandwidth of a streaming loop, and per mesh axis the latency and bandwidth
// of MPI_Allreduce inside that axis's groups (the runtime's groups: planGroup
// and MPI_Comm_split as in runtime/lib/MpiComm.cpp). Every figure is the
// slowest rank's. Rank 0 writes the profile with MachineProfile::toJson()
// plus a "measured" object, re-reads it with MachineProfile::load and renames
// it into place. docs/weft-calibrate.md.
//
// Errors: every rank parses the same argv, so every rank finds the same
// command-line error; rank-local problems (the output path, an allocation)
// are agreed on with an MPI_Allreduce that every rank reaches before any
// other collective, so a bad run exits non-zero on every rank and never hangs.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/Transforms/MachineProfile.h"
#include "weft/rt/Backend.h"
#include "weft/rt/CollectivePlan.h"
#include "weft/rt/EinsumPlan.h"
#include "weft/rt/Error.h"
#include "weft/rt/Mesh.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cblas.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <limits>
#include <memory>
#include <new>
#include <sched.h>
#include <string>
#include <unistd.h>
#include <vector>

using llvm::StringRef;
namespace cl = llvm::cl;
namespace json = llvm::json;

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

static cl::OptionCategory calibrateCat("weft-calibrate options");

static cl::opt<std::string> meshOpt(
    "mesh",
    cl::desc("The mesh, NAME=SIZE[,NAME=SIZE...], row-major like weft.mesh "
             "(the last axis varies fastest over the ranks); the sizes' "
             "product must be the number of ranks. Required"),
    cl::value_desc("axes"), cl::cat(calibrateCat));
static cl::opt<std::string>
    outputOpt("o",
              cl::desc("The profile JSON to write (also --output). Required"),
              cl::value_desc("path"), cl::cat(calibrateCat));
static cl::alias outputAlias("output", cl::desc("Alias for -o"),
                             cl::aliasopt(outputOpt), cl::cat(calibrateCat));
static cl::opt<std::string>
    nameOpt("name",
            cl::desc("The profile's name (default: calibrated-<hostname>)"),
            cl::value_desc("name"), cl::cat(calibrateCat));
static cl::opt<bool> quickOpt(
    "quick",
    cl::desc("Small sizes and few repetitions, for tests: --gemm-size 128 "
             "--stream-bytes 4194304 --message-bytes 262144 --latency-reps 50 "
             "--repeats 3 (an option given explicitly wins)"),
    cl::cat(calibrateCat));
static cl::opt<int64_t> repeatsOpt(
    "repeats",
    cl::desc("Timed runs of each GEMM, streaming pass and large all-reduce, "
             "after one warm-up: the best (GEMM, stream) or the median "
             "(all-reduce) counts (default 5; 1 to 1000)"),
    cl::init(5), cl::value_desc("n"), cl::cat(calibrateCat));
static cl::opt<int64_t>
    gemmSizeOpt("gemm-size",
                cl::desc("n of the square n x n x n GEMMs (default 1024; "
                         "16 to 8192)"),
                cl::init(1024), cl::value_desc("n"), cl::cat(calibrateCat));
static cl::opt<int64_t> streamBytesOpt(
    "stream-bytes",
    cl::desc("Bytes of each of the two arrays of the streaming pass "
             "y[i] = a*x[i] + y[i] (default 67108864 = 64 MiB; 64 KiB to 1 "
             "GiB); make it much larger than the last-level cache"),
    cl::init(int64_t(64) << 20), cl::value_desc("bytes"),
    cl::cat(calibrateCat));
static cl::opt<int64_t> messageBytesOpt(
    "message-bytes",
    cl::desc("Bytes of the large all-reduce that measures bandwidth "
             "(default 16777216 = 16 MiB; 1 KiB to 1 GiB, a multiple of 4)"),
    cl::init(int64_t(16) << 20), cl::value_desc("bytes"),
    cl::cat(calibrateCat));
static cl::opt<int64_t> latencyRepsOpt(
    "latency-reps",
    cl::desc("Per axis: the iterations of each round of the latency loop "
             "(a streaming pass then an 8-byte all-reduce; 7 rounds), and "
             "the back-to-back all-reduces of the lockstep figure (default "
             "200; 1 to 100000)"),
    cl::init(200), cl::value_desc("n"), cl::cat(calibrateCat));

static const char *const kOverview =
    "weft-calibrate: measures a machine profile for weft-propagate's global "
    "sharding search\n\n"
    "Run it under mpirun on the machine (and with the ranks per node) the "
    "programs will run on:\n"
    "  mpirun -np 4 weft-calibrate --mesh data=2,model=2 -o profile.json\n"
    "It measures, on every rank at once: contraction FLOP/s (the CPU "
    "backend's einsum, f32 and f64), the memory bandwidth of a streaming "
    "loop, and per mesh axis of size > 1 the latency (8-byte MPI_Allreduce) "
    "and bandwidth (ring bytes 2(p-1)/p*S of an S-byte MPI_Allreduce) of "
    "the axis's groups; each figure is the slowest rank's. The profile "
    "schema is docs/machine-profile.md (extra details under \"measured\"); "
    "the tool is docs/weft-calibrate.md. Use the profile with\n"
    "  weft-opt --pass-pipeline='builtin.module(func.func(weft-propagate"
    "{profile=profile.json}))'\n";

//===----------------------------------------------------------------------===//
// MPI helpers
//===----------------------------------------------------------------------===//

namespace {

int worldRank = 0;
int worldSize = 1;
/// The stream passes' checksum lands here, so the passes cannot be dropped.
volatile double streamSink = 0;

void finalizeMpi() {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin)
    MPI_Finalize();
}

llvm::raw_ostream &note() { return llvm::errs() << "weft-calibrate: "; }

/// Collective over MPI_COMM_WORLD, reached by every rank: whether no rank
/// has an error. `error` is this rank's problem (empty: none); `shared`
/// means every rank that has one has the same one (only rank 0 prints it),
/// otherwise the rank prints it with its number.
bool everyRankOk(const std::string &error, bool shared) {
  if (!error.empty()) {
    if (!shared)
      llvm::errs() << "weft-calibrate: error: rank " << worldRank << ": "
                   << error << "\n";
    else if (worldRank == 0)
      llvm::errs() << "weft-calibrate: error: " << error << "\n";
    llvm::errs().flush();
  }
  int bad = error.empty() ? 0 : 1;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return bad == 0;
}

double reduceWorld(double v, MPI_Op op) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, op, MPI_COMM_WORLD);
  return v;
}
double minOverRanks(double v) { return reduceWorld(v, MPI_MIN); }
double maxOverRanks(double v) { return reduceWorld(v, MPI_MAX); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// Keeps the compiler from moving or dropping stores to `p` across calls.
inline void clobber(void *p) { asm volatile("" : : "r"(p) : "memory"); }

template <typename T>
std::unique_ptr<T[]> allocate(int64_t n, StringRef what, std::string &error) {
  std::unique_ptr<T[]> p(new (std::nothrow) T[size_t(n)]);
  if (!p && error.empty())
    error =
        llvm::formatv("cannot allocate {0} bytes for {1}", n * sizeof(T), what)
            .str();
  return p;
}

//===----------------------------------------------------------------------===//
// Formatting
//===----------------------------------------------------------------------===//

std::string bytesText(int64_t b) {
  if (b >= (int64_t(1) << 30) && b % (int64_t(1) << 30) == 0)
    return llvm::formatv("{0} GiB", b >> 30).str();
  if (b >= (int64_t(1) << 20) && b % (int64_t(1) << 20) == 0)
    return llvm::formatv("{0} MiB", b >> 20).str();
  if (b >= 1024 && b % 1024 == 0)
    return llvm::formatv("{0} KiB", b >> 10).str();
  return llvm::formatv("{0} B", b).str();
}
std::string gflopsText(double f) {
  return llvm::formatv("{0:f1} GFLOP/s", f / 1e9).str();
}
std::string gbpsText(double b) {
  return llvm::formatv("{0:f2} GB/s", b / 1e9).str();
}
std::string secondsText(double s) {
  if (s < 1e-3)
    return llvm::formatv("{0:f2} us", s * 1e6).str();
  return llvm::formatv("{0:f3} ms", s * 1e3).str();
}

//===----------------------------------------------------------------------===//
// Configuration (identical on every rank: the same argv)
//===----------------------------------------------------------------------===//

struct Config {
  std::vector<weft::rt::MeshAxis> axes;
  std::string meshText;
  std::string output;
  std::string name;
  bool quick = false;
  int64_t repeats = 5;
  int64_t gemmN = 1024;
  int64_t streamBytes = int64_t(64) << 20;
  int64_t messageBytes = int64_t(16) << 20;
  int64_t latencyReps = 200;
};

bool validAxisName(StringRef n) {
  return !n.empty() && llvm::all_of(n, [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '-' || c == '.';
  });
}

/// Parses --mesh into `axes`; returns the error (empty: fine).
std::string parseMesh(StringRef text, std::vector<weft::rt::MeshAxis> &axes) {
  const char *syntax = "expected NAME=SIZE[,NAME=SIZE...], e.g. "
                       "--mesh data=2,model=2";
  if (text.empty())
    return std::string("no mesh: pass --mesh NAME=SIZE[,NAME=SIZE...] whose "
                       "sizes multiply to the number of ranks (") +
           std::to_string(worldSize) + ")";
  llvm::SmallVector<StringRef> items;
  text.split(items, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/true);
  if (items.size() > 16)
    return "--mesh '" + text.str() + "': more than 16 axes";
  int64_t product = 1;
  for (StringRef item : items) {
    auto [name, sizeText] = item.split('=');
    if (item.empty() || !item.contains('='))
      return "--mesh '" + text.str() + "': bad axis '" + item.str() +
             "': " + syntax;
    if (!validAxisName(name))
      return "--mesh '" + text.str() + "': bad axis name '" + name.str() +
             "' (letters, digits, '_', '-', '.')";
    int64_t size = 0;
    if (sizeText.empty() || sizeText.getAsInteger(10, size))
      return "--mesh '" + text.str() + "': axis '" + name.str() + "': size '" +
             sizeText.str() + "' is not an integer";
    if (size <= 0)
      return "--mesh '" + text.str() + "': axis '" + name.str() +
             "' has size " + std::to_string(size) + " (must be >= 1)";
    for (const auto &a : axes)
      if (a.name == name)
        return "--mesh '" + text.str() + "': axis '" + name.str() +
               "' repeated";
    if (llvm::MulOverflow(product, size, product) ||
        product > std::numeric_limits<int>::max())
      return "--mesh '" + text.str() +
             "': the product of the axis sizes overflows (the number of "
             "ranks is " +
             std::to_string(worldSize) + ")";
    axes.push_back({name.str(), size});
  }
  if (product != worldSize)
    return "--mesh '" + text.str() + "' has " + std::to_string(product) +
           " device(s) but weft-calibrate runs on " +
           std::to_string(worldSize) + " rank(s): start it with mpirun -np " +
           std::to_string(product);
  return "";
}

std::string checkRange(StringRef option, int64_t v, int64_t lo, int64_t hi) {
  if (v >= lo && v <= hi)
    return "";
  return llvm::formatv("--{0} must be in [{1}, {2}], got {3}", option, lo, hi,
                       v)
      .str();
}

std::string hostName() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof(buf) - 1) != 0 || !buf[0])
    return "unknown-host";
  return buf;
}

/// Builds the configuration; returns the error every rank finds alike.
std::string makeConfig(Config &c) {
  c.quick = quickOpt;
  auto pick = [&](cl::opt<int64_t> &opt, int64_t quickValue) -> int64_t {
    return c.quick && opt.getNumOccurrences() == 0 ? quickValue : int64_t(opt);
  };
  c.repeats = pick(repeatsOpt, 3);
  c.gemmN = pick(gemmSizeOpt, 128);
  c.streamBytes = pick(streamBytesOpt, int64_t(4) << 20);
  c.messageBytes = pick(messageBytesOpt, int64_t(256) << 10);
  c.latencyReps = pick(latencyRepsOpt, 50);
  c.output = outputOpt;
  c.meshText = meshOpt;
  if (c.output.empty())
    return "no output file: pass -o PATH (the profile JSON to write)";
  std::string err = parseMesh(c.meshText, c.axes);
  if (!err.empty())
    return err;
  for (std::string e :
       {checkRange("repeats", c.repeats, 1, 1000),
        checkRange("gemm-size", c.gemmN, 16, 8192),
        checkRange("stream-bytes", c.streamBytes, 64 << 10, int64_t(1) << 30),
        checkRange("message-bytes", c.messageBytes, 1 << 10, int64_t(1) << 30),
        checkRange("latency-reps", c.latencyReps, 1, 100000)})
    if (!e.empty())
      return e;
  if (c.messageBytes % 4)
    return llvm::formatv("--message-bytes must be a multiple of 4 (the "
                         "all-reduce sums floats), got {0}",
                         c.messageBytes)
        .str();
  c.name = nameOpt.getNumOccurrences() ? std::string(nameOpt)
                                       : "calibrated-" + hostName();
  if (c.name.empty())
    return "--name must not be empty";
  return "";
}

std::string tmpPath(const Config &c) {
  return c.output + ".tmp." + std::to_string(getpid());
}

/// Rank 0: whether the profile can be written where asked (before minutes
/// of measuring): the temporary file beside it can be created, and the path
/// is not a directory.
std::string probeOutput(const Config &c) {
  if (llvm::sys::fs::is_directory(c.output))
    return "cannot write the profile to '" + c.output + "': it is a directory";
  std::string tmp = tmpPath(c);
  int fd = -1;
  std::error_code ec = llvm::sys::fs::openFileForWrite(
      tmp, fd, llvm::sys::fs::CD_CreateNew, llvm::sys::fs::OF_None);
  if (ec)
    return "cannot write the profile to '" + c.output + "': cannot create '" +
           tmp + "': " + ec.message();
  ::close(fd);
  llvm::sys::fs::remove(tmp);
  return "";
}

//===----------------------------------------------------------------------===//
// Measurements
//===----------------------------------------------------------------------===//

/// Fills `p` with small deterministic values in [-0.5, 0.5).
template <typename T> void fill(T *p, int64_t n, uint64_t seed) {
  uint64_t s = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (int64_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    p[i] = T(double(s >> 11) * (1.0 / 9007199254740992.0) - 0.5);
  }
}

/// Best seconds of `repeats` n^3 GEMMs after one warm-up, every rank at once.
/// Best seconds of `repeats` calls of `call` after one warm-up, every rank
/// lined up at a barrier before each.
template <typename F> double bestSeconds(int64_t repeats, F &&call) {
  MPI_Barrier(MPI_COMM_WORLD);
  call();
  double best = std::numeric_limits<double>::infinity();
  for (int64_t r = 0; r < repeats; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    call();
    best = std::min(best, MPI_Wtime() - t0);
  }
  return best;
}

template <typename T>
double timeGemm(int64_t n64, int64_t repeats, const T *a, const T *b, T *c) {
  const blasint n = blasint(n64);
  auto call = [&] {
    if constexpr (std::is_same_v<T, float>)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a,
                  n, b, n, 0.0f, c, n);
    else
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n,
                  b, n, 0.0, c, n);
    clobber(c);
  };
  return bestSeconds(repeats, call);
}

/// Best seconds of `repeats` n x n x n contractions "mk,kn->mn" through the
/// CPU backend's einsum (what a compiled program runs: oneDNN for f32 where
/// the build has it, OpenBLAS otherwise; docs/runtime.md, "GEMM library").
double timeRuntimeGemm(weft::rt::Backend &be, weft::rt::DType dtype, int64_t n,
                       int64_t repeats) {
  weft::rt::Tensor a = be.zeros(dtype, {n, n}), b = be.zeros(dtype, {n, n});
  weft::rt::Tensor out = be.empty(dtype, {n, n});
  if (dtype == weft::rt::DType::F32) {
    fill(a.ptr<float>(), n * n, 11);
    fill(b.ptr<float>(), n * n, 12);
  } else {
    fill(a.ptr<double>(), n * n, 13);
    fill(b.ptr<double>(), n * n, 14);
  }
  weft::rt::EinsumPlan plan =
      weft::rt::planEinsum("mk,kn->mn", {n, n}, {n, n}, dtype);
  return bestSeconds(repeats, [&] {
    be.einsum(plan, a, &b, out);
    clobber(out.data);
  });
}

/// Best seconds of `repeats` passes y[i] = a*x[i] + y[i] after one warm-up.
double timeStream(const double *__restrict x, double *__restrict y,
                  int64_t count, int64_t repeats, double &checksum) {
  const double a = 1e-7;
  auto pass = [&] {
    for (int64_t i = 0; i < count; ++i)
      y[i] = a * x[i] + y[i];
    clobber(y);
  };
  double best = bestSeconds(repeats, pass);
  checksum = y[0] + y[count / 2] + y[count - 1];
  return best;
}

/// Doubles per array of the streaming pass between the latency loop's calls
/// (256 KiB each: some tens of microseconds, an op's worth of work).
constexpr int64_t kBurstDoubles = int64_t(32) << 10;

struct AxisResult {
  std::string name;
  int64_t size = 1;
  int64_t groups = 1;
  int64_t latencyCalls = 0;
  double latency = 0; // in a barrier-free loop with compute, max over ranks
  double lockstepLatency = 0; // back-to-back after a barrier, max over ranks
  double messageSeconds = 0;  // median S-byte all-reduce, max over ranks
  double ringBytes = 0;       // 2(p-1)/p * S
  double bytesPerSecond = 0;
  bool fallback = false; // t_message <= latency: bytes / t_message
};

/// Latency and bandwidth of MPI_Allreduce(sum, float) in `comm` (this
/// axis's group); every rank of the world measures its group at once.
/// `sendBuf`/`recvBuf` hold `messageBytes`; `burstX`/`burstY` hold
/// `burstCount` doubles for the compute between the latency loop's calls.
void measureAxis(MPI_Comm comm, const Config &c, float *sendBuf, float *recvBuf,
                 const double *burstX, double *burstY, int64_t burstCount,
                 AxisResult &out) {
  float small[2] = {1.0f, 2.0f}, smallOut[2];
  for (int i = 0; i < 20; ++i)
    MPI_Allreduce(small, smallOut, 2, MPI_FLOAT, MPI_SUM, comm);

  // Lockstep latency: 8 bytes, batches of back-to-back calls after a
  // barrier, the median batch mean. Every rank is already waiting in the
  // collective when it starts, which a program's ranks never are: this is
  // the transport's floor (recorded, and subtracted from the large
  // all-reduce's time, which is measured after a barrier too).
  const int64_t batch = std::min<int64_t>(5, c.latencyReps);
  const int64_t batches = (c.latencyReps + batch - 1) / batch;
  std::vector<double> perCall;
  for (int64_t b = 0; b < batches; ++b) {
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    for (int64_t i = 0; i < batch; ++i)
      MPI_Allreduce(small, smallOut, 2, MPI_FLOAT, MPI_SUM, comm);
    perCall.push_back((MPI_Wtime() - t0) / double(batch));
  }
  out.latencyCalls = batch * batches;
  out.lockstepLatency = maxOverRanks(median(perCall));

  // Latency as a program meets it: a barrier-free loop of `latencyReps`
  // iterations, each a short streaming pass (the same work on every rank,
  // as an SPMD op between two collectives) then the 8-byte all-reduce,
  // against the same loop without the all-reduce; the difference per call.
  // Ranks arrive at each call with the skew their compute and the
  // scheduler give them, as in a step. `kRounds` rounds, alternating, the
  // median, the slowest rank's.
  constexpr int kRounds = 7;
  const double a = 1e-9;
  auto burst = [&] {
    for (int64_t i = 0; i < burstCount; ++i)
      burstY[i] = a * burstX[i] + burstY[i];
    clobber(burstY);
  };
  std::vector<double> inContext;
  for (int r = 0; r < kRounds; ++r) {
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    for (int64_t i = 0; i < c.latencyReps; ++i) {
      burst();
      MPI_Allreduce(small, smallOut, 2, MPI_FLOAT, MPI_SUM, comm);
    }
    double with = MPI_Wtime() - t0;
    MPI_Barrier(comm);
    t0 = MPI_Wtime();
    for (int64_t i = 0; i < c.latencyReps; ++i)
      burst();
    double without = MPI_Wtime() - t0;
    inContext.push_back((with - without) / double(c.latencyReps));
  }
  // Never below the floor: a difference of two noisy loop times can be.
  out.latency = std::max(out.lockstepLatency, maxOverRanks(median(inContext)));

  // Bandwidth: one S-byte all-reduce per barrier, the median.
  const int count = int(c.messageBytes / 4);
  MPI_Allreduce(sendBuf, recvBuf, count, MPI_FLOAT, MPI_SUM, comm);
  std::vector<double> times;
  for (int64_t r = 0; r < c.repeats; ++r) {
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    MPI_Allreduce(sendBuf, recvBuf, count, MPI_FLOAT, MPI_SUM, comm);
    times.push_back(MPI_Wtime() - t0);
  }
  out.messageSeconds = maxOverRanks(median(times));
  out.ringBytes = weft::rt::ringBytes(weft::rt::CollectiveKind::AllReduce,
                                      out.size, double(c.messageBytes));
  double t = out.messageSeconds - out.lockstepLatency;
  out.fallback = !(t > 0);
  out.bytesPerSecond = out.ringBytes / (out.fallback ? out.messageSeconds : t);
}

/// The host's 1-minute load average (/proc/loadavg), or -1.
double loadAverage() {
  double l = -1;
  if (FILE *f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &l) != 1)
      l = -1;
    std::fclose(f);
  }
  return l;
}

/// CPUs this process may run on.
int allowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0)
    return -1;
  return CPU_COUNT(&set);
}

int run(int argc, char **argv) {
  cl::HideUnrelatedOptions(calibrateCat);
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "weft-calibrate (Weft), built with LLVM " LLVM_VERSION_STRING "\n";
  });
  std::string clErrors;
  llvm::raw_string_ostream clErr(clErrors);
  // Every rank parses the same argv. Only rank 0 may print while parsing:
  // a bad option value is reported on stderr by the parser itself (not
  // through `clErr`), and --help/--version print on stdout and exit(0)
  // inside it (on every rank; atexit finalizes MPI). The other ranks parse
  // with stdout and stderr on /dev/null.
  int savedStdout = -1, savedStderr = -1;
  if (worldRank != 0) {
    llvm::outs().flush();
    llvm::errs().flush();
    int devNull = ::open("/dev/null", O_WRONLY);
    if (devNull >= 0) {
      savedStdout = ::dup(1);
      savedStderr = ::dup(2);
      ::dup2(devNull, 1);
      ::dup2(devNull, 2);
      ::close(devNull);
    }
  }
  bool parsed = cl::ParseCommandLineOptions(argc, argv, kOverview, &clErr);
  clErr.flush();
  if (savedStderr >= 0) {
    llvm::outs().flush();
    llvm::errs().flush();
    ::dup2(savedStdout, 1);
    ::dup2(savedStderr, 2);
    ::close(savedStdout);
    ::close(savedStderr);
  }
  if (!parsed) {
    // Every rank got the same argv and failed alike.
    if (worldRank == 0)
      llvm::errs() << clErrors
                   << "weft-calibrate: error: bad command line (see --help)\n";
    return 1;
  }

  Config c;
  if (!everyRankOk(makeConfig(c), /*shared=*/true))
    return 1;
  if (!everyRankOk(worldRank == 0 ? probeOutput(c) : "", /*shared=*/true))
    return 1;
  // The runtime's mesh (its checks passed in parseMesh already).
  weft::rt::Mesh mesh;
  std::string meshError;
  try {
    mesh = weft::rt::Mesh(c.axes);
  } catch (const weft::rt::Error &e) {
    meshError = e.what();
  }
  if (!everyRankOk(meshError, /*shared=*/true))
    return 1;

  // Buffers, allocated before the first measurement: a rank that cannot
  // allocate says so and every rank stops.
  std::string allocError;
  const int64_t n2 = c.gemmN * c.gemmN;
  auto fa = allocate<float>(n2, "the sgemm matrices", allocError);
  auto fb = allocate<float>(n2, "the sgemm matrices", allocError);
  auto fc = allocate<float>(n2, "the sgemm matrices", allocError);
  const int64_t streamCount = c.streamBytes / 8;
  auto sx = allocate<double>(streamCount, "the stream arrays", allocError);
  auto sy = allocate<double>(streamCount, "the stream arrays", allocError);
  const int64_t msgCount = c.messageBytes / 4;
  auto ms = allocate<float>(msgCount, "the all-reduce buffers", allocError);
  auto mr = allocate<float>(msgCount, "the all-reduce buffers", allocError);
  if (!everyRankOk(allocError, /*shared=*/false))
    return 1;
  fill(fa.get(), n2, 1);
  fill(fb.get(), n2, 2);
  fill(sx.get(), streamCount, 5);
  fill(sy.get(), streamCount, 6);
  fill(ms.get(), msgCount, 7);
  fill(mr.get(), msgCount, 8);

  const double startTime = MPI_Wtime();
  json::Array notes;
  auto addNote = [&](const std::string &text) {
    if (worldRank == 0)
      note() << "note: " << text << "\n";
    notes.push_back(text);
  };

  // The environment, as OpenBLAS and the OS see it on each rank.
  const char *coreName = openblas_get_corename();
  const char *blasConfig = openblas_get_config();
  int threads = openblas_get_num_threads();
  int minThreads = int(minOverRanks(threads));
  int maxThreads = int(maxOverRanks(threads));
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  // Other work on the host slows every figure down: say how busy it was.
  double load = maxOverRanks(loadAverage());
  int cpusAllowed = allowedCpus();
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, worldRank,
                      MPI_INFO_NULL, &node);
  int ranksHere = 1;
  MPI_Comm_size(node, &ranksHere);
  MPI_Comm_free(&node);
  int maxRanksPerHost = int(maxOverRanks(ranksHere));
  int oversubscribed =
      int(maxOverRanks(cores > 0 && int64_t(ranksHere) * threads > cores));
  if (worldRank == 0)
    note() << worldSize << " rank(s), mesh " << c.meshText << ", OpenBLAS core "
           << (coreName ? coreName : "?") << ", "
           << (minThreads == maxThreads ? std::to_string(minThreads)
                                        : std::to_string(minThreads) + ".." +
                                              std::to_string(maxThreads))
           << " OpenBLAS thread(s) per rank, " << maxRanksPerHost
           << " rank(s) per host, " << cores << " core(s) per host ("
           << cpusAllowed << " allowed to rank 0), load average "
           << llvm::formatv("{0:f2}", load) << "\n";
  if (oversubscribed)
    addNote(llvm::formatv("ranks x OpenBLAS threads exceed the cores of a host "
                          "({0} rank(s) x {1} thread(s) > {2} core(s)): the "
                          "GEMM rates are measured under that sharing",
                          maxRanksPerHost, maxThreads, cores)
                .str());

  // Contractions: through the CPU backend's einsum, as a program runs
  // them; OpenBLAS's sgemm alone is recorded too (it is what the runtime
  // used before oneDNN, and what a build without oneDNN uses).
  std::unique_ptr<weft::rt::Backend> backend;
  std::string backendError;
  try {
    backend =
        weft::rt::createBackend(weft::rt::BackendKind::Cpu, mesh, worldRank);
  } catch (const weft::rt::Error &e) {
    backendError = std::string("cannot create the CPU backend: ") + e.what();
  }
  if (!everyRankOk(backendError, /*shared=*/false))
    return 1;
  const double gemmFlop =
      2.0 * double(c.gemmN) * double(c.gemmN) * double(c.gemmN);
  double sBest =
      timeRuntimeGemm(*backend, weft::rt::DType::F32, c.gemmN, c.repeats);
  double f32Min = minOverRanks(gemmFlop / sBest);
  double f32Max = maxOverRanks(gemmFlop / sBest);
  if (worldRank == 0)
    note() << "f32 einsum " << c.gemmN
           << "^3 (the runtime's GEMM): " << gflopsText(f32Min)
           << " (slowest rank; fastest " << gflopsText(f32Max) << ")\n";
  double blasBest =
      timeGemm<float>(c.gemmN, c.repeats, fa.get(), fb.get(), fc.get());
  double blasMin = minOverRanks(gemmFlop / blasBest);
  if (worldRank == 0)
    note() << "OpenBLAS sgemm " << c.gemmN << "^3: " << gflopsText(blasMin)
           << " (core " << (coreName ? coreName : "?") << ", " << maxThreads
           << " thread(s); slowest rank; recorded, not used)\n";
  double dBest =
      timeRuntimeGemm(*backend, weft::rt::DType::F64, c.gemmN, c.repeats);
  double f64Min = minOverRanks(gemmFlop / dBest);
  double f64Max = maxOverRanks(gemmFlop / dBest);
  if (worldRank == 0)
    note() << "f64 einsum " << c.gemmN
           << "^3 (the runtime's GEMM): " << gflopsText(f64Min)
           << " (slowest rank; fastest " << gflopsText(f64Max) << ")\n";

  // Memory: read x, read y, write y per element.
  double checksum = 0;
  double stBest =
      timeStream(sx.get(), sy.get(), streamCount, c.repeats, checksum);
  const double streamBytesMoved = 3.0 * 8.0 * double(streamCount);
  double memMin = minOverRanks(streamBytesMoved / stBest);
  double memMax = maxOverRanks(streamBytesMoved / stBest);
  if (worldRank == 0)
    note() << "stream y = a*x + y, 2 x " << bytesText(streamCount * 8) << ": "
           << gbpsText(memMin) << " (bytes read + written; slowest rank; "
           << "fastest " << gbpsText(memMax) << ")\n";

  streamSink = checksum;

  // Links, per mesh axis, in the runtime's groups.
  std::vector<AxisResult> results;
  std::vector<std::string> skipped;
  for (int i = 0; i < mesh.numAxes(); ++i) {
    const weft::rt::MeshAxis &axis = mesh.axis(i);
    if (axis.size == 1) {
      skipped.push_back(axis.name);
      addNote("axis '" + axis.name +
              "' has size 1: no links to measure, skipped (it takes the "
              "\"*\" link)");
      continue;
    }
    weft::rt::GroupPlan g = weft::rt::planGroup(mesh, {i}, worldRank);
    MPI_Comm comm;
    MPI_Comm_split(MPI_COMM_WORLD, int(g.color), int(g.position), &comm);
    int commSize = 0;
    MPI_Comm_size(comm, &commSize);
    std::string groupError;
    if (commSize != g.size)
      groupError = llvm::formatv("axis '{0}': MPI group has {1} ranks, "
                                 "expected {2}",
                                 axis.name, commSize, g.size)
                       .str();
    if (!everyRankOk(groupError, /*shared=*/false)) {
      MPI_Comm_free(&comm);
      return 1;
    }
    AxisResult r;
    r.name = axis.name;
    r.size = axis.size;
    r.groups = worldSize / axis.size;
    measureAxis(comm, c, ms.get(), mr.get(), sx.get(), sy.get(),
                std::min<int64_t>(streamCount, kBurstDoubles), r);
    MPI_Comm_free(&comm);
    if (worldRank == 0) {
      note() << "axis '" << r.name << "' (" << r.size << " ranks per group, "
             << r.groups
             << " group(s)): all-reduce 8 B: " << secondsText(r.latency)
             << " between compute (" << secondsText(r.lockstepLatency)
             << " back to back); " << bytesText(c.messageBytes) << ": "
             << secondsText(r.messageSeconds) << " -> "
             << gbpsText(r.bytesPerSecond) << " (ring bytes "
             << llvm::formatv("{0:f0}", r.ringBytes) << " per device"
             << (r.fallback ? ", time not above the latency: bytes / time" : "")
             << ")\n";
      if (r.fallback)
        note() << "warning: axis '" << r.name
               << "': the large all-reduce took no longer than the latency; "
                  "use a larger --message-bytes\n";
    }
    results.push_back(r);
  }

  // The profile.
  mlir::weft::MachineProfile p;
  p.name = c.name;
  p.flopsPerSecond["f32"] = f32Min;
  p.flopsPerSecond["f64"] = f64Min;
  p.defaultFlopsPerSecond = f32Min;
  p.memoryBytesPerSecond = memMin;
  for (const AxisResult &r : results)
    p.axes[r.name] = {r.bytesPerSecond, r.latency};
  if (results.empty()) {
    p.defaultLink = mlir::weft::MachineProfile::getDefault().defaultLink;
    addNote("no mesh axis of size > 1: no link measured; \"*\" is the default "
            "profile's link (" +
            gbpsText(p.defaultLink.bytesPerSecond) + ", " +
            secondsText(p.defaultLink.latencySeconds) + ")");
  } else {
    p.defaultLink = {std::numeric_limits<double>::infinity(), 0};
    for (const AxisResult &r : results) {
      p.defaultLink.bytesPerSecond =
          std::min(p.defaultLink.bytesPerSecond, r.bytesPerSecond);
      p.defaultLink.latencySeconds =
          std::max(p.defaultLink.latencySeconds, r.latency);
    }
  }

  // Rank 0 writes it: toJson() plus "description" and "measured", checked
  // with MachineProfile::parse, written to PATH.tmp.<pid>, re-read with
  // MachineProfile::load and renamed into place.
  std::string writeError;
  double elapsed = MPI_Wtime() - startTime;
  if (worldRank == 0) {
    json::Object measured{
        {"tool", "weft-calibrate"},
        {"ranks", worldSize},
        {"ranks_per_host_max", maxRanksPerHost},
        {"mesh", c.meshText},
        {"host", hostName()},
        {"cores_per_host", int64_t(cores)},
        {"load_average_at_start", load},
        {"quick", c.quick},
        {"repeats", c.repeats},
        {"seconds", elapsed},
        {"openblas", json::Object{{"core", coreName ? coreName : ""},
                                  {"config", blasConfig ? blasConfig : ""},
                                  {"threads_min", minThreads},
                                  {"threads_max", maxThreads}}},
        {"gemm", json::Object{{"n", c.gemmN},
                              {"flop_per_call", gemmFlop},
                              {"f32_flops_per_s_min", f32Min},
                              {"f32_kernel", "the CPU backend's einsum"},
                              {"openblas_sgemm_flops_per_s_min", blasMin},
                              {"f32_flops_per_s_max", f32Max},
                              {"f64_flops_per_s_min", f64Min},
                              {"f64_flops_per_s_max", f64Max}}},
        {"stream", json::Object{{"kernel", "y[i] = a*x[i] + y[i] (f64)"},
                                {"bytes_per_array", streamCount * 8},
                                {"bytes_per_pass", streamBytesMoved},
                                {"bytes_per_s_min", memMin},
                                {"bytes_per_s_max", memMax}}},
    };
    json::Object axesMeasured;
    for (const AxisResult &r : results)
      axesMeasured[r.name] =
          json::Object{{"size", r.size},
                       {"groups", r.groups},
                       {"latency_calls", r.latencyCalls},
                       {"latency_s_median", r.latency},
                       {"latency_s_lockstep_median", r.lockstepLatency},
                       {"latency_burst_bytes",
                        std::min<int64_t>(streamCount, kBurstDoubles) * 8},
                       {"message_bytes", c.messageBytes},
                       {"message_s_median", r.messageSeconds},
                       {"ring_bytes_per_device", r.ringBytes},
                       {"bytes_per_s", r.bytesPerSecond},
                       {"bandwidth_from_total_time", r.fallback}};
    measured["axes"] = std::move(axesMeasured);
    json::Array skippedJson;
    for (const std::string &s : skipped)
      skippedJson.push_back(s);
    measured["skipped_axes"] = std::move(skippedJson);
    measured["notes"] = std::move(notes);

    std::string text;
    llvm::Expected<json::Value> value = json::parse(p.toJson());
    if (!value) {
      writeError = "internal error: toJson() wrote invalid JSON: " +
                   llvm::toString(value.takeError());
    } else {
      json::Object *root = value->getAsObject();
      (*root)["description"] =
          llvm::formatv("measured by weft-calibrate on {0} rank(s), mesh {1}",
                        worldSize, c.meshText)
              .str();
      (*root)["measured"] = std::move(measured);
      llvm::raw_string_ostream os(text);
      os << llvm::formatv("{0:2}", *value) << "\n";
    }
    std::string parseError;
    if (writeError.empty() &&
        failed(mlir::weft::MachineProfile::parse(text, parseError)))
      writeError =
          "internal error: the profile does not parse back: " + parseError;
    std::string tmp = tmpPath(c);
    if (writeError.empty()) {
      std::error_code ec;
      {
        llvm::raw_fd_ostream os(tmp, ec, llvm::sys::fs::OF_Text);
        if (!ec) {
          os << text;
          os.close();
          if (os.has_error()) {
            ec = os.error();
            os.clear_error();
          }
        }
      }
      if (ec)
        writeError = "cannot write '" + tmp + "': " + ec.message();
    }
    if (writeError.empty() &&
        failed(mlir::weft::MachineProfile::load(tmp, parseError)))
      writeError = "the written profile does not load back: " + parseError;
    if (writeError.empty()) {
      if (std::error_code ec = llvm::sys::fs::rename(tmp, c.output))
        writeError = "cannot rename '" + tmp + "' to '" + c.output +
                     "': " + ec.message();
    }
    if (!writeError.empty())
      llvm::sys::fs::remove(tmp);
  }
  if (!everyRankOk(writeError, /*shared=*/true))
    return 1;

  if (worldRank == 0) {
    llvm::raw_ostream &os = llvm::errs();
    os << "weft-calibrate: wrote " << c.output << " (profile '" << p.name
       << "', " << llvm::formatv("{0:f1}", elapsed) << " s):\n";
    os << "  flops_per_s: f32 " << gflopsText(f32Min) << ", f64 "
       << gflopsText(f64Min) << ", * " << gflopsText(f32Min) << "\n";
    os << "  memory_bytes_per_s: " << gbpsText(memMin) << "\n";
    for (const AxisResult &r : results)
      os << "  axis " << r.name << ": " << gbpsText(r.bytesPerSecond)
         << ", latency " << secondsText(r.latency) << "\n";
    os << "  axis *: " << gbpsText(p.defaultLink.bytesPerSecond) << ", latency "
       << secondsText(p.defaultLink.latencySeconds)
       << (results.empty() ? " (the default profile's: nothing measured)"
                           : " (the slowest measured axis)")
       << "\n";
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
    llvm::errs() << "weft-calibrate: error: MPI_Init failed\n";
    return 1;
  }
  std::atexit(finalizeMpi);
  MPI_Comm_rank(MPI_COMM_WORLD, &worldRank);
  MPI_Comm_size(MPI_COMM_WORLD, &worldSize);
  int rc = run(argc, argv);
  llvm::errs().flush();
  finalizeMpi();
  return rc;
}
