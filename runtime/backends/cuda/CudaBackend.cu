//===- CudaBackend.cu - Device selection, memory and cuBLAS GEMMs ---------===//

#include "CudaBackendImpl.h"
#include "NcclCommunicator.h"
#include "weft/rt/BackendRegistry.h"
#include "weft/rt/cuda/CudaBackend.h"

#include <algorithm>
#include <climits>
#include <cstdlib>

namespace weft::rt {

namespace {

int localRank() {
  if (!mpiActive())
    return 0;
  MPI_Comm local;
  checkMpi(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                               MPI_INFO_NULL, &local),
           "MPI_Comm_split_type");
  int r = 0;
  MPI_Comm_rank(local, &r);
  MPI_Comm_free(&local);
  return r;
}

const char *cublasStatusName(cublasStatus_t s) {
  switch (s) {
  case CUBLAS_STATUS_SUCCESS:
    return "CUBLAS_STATUS_SUCCESS";
  case CUBLAS_STATUS_NOT_INITIALIZED:
    return "CUBLAS_STATUS_NOT_INITIALIZED";
  case CUBLAS_STATUS_INVALID_VALUE:
    return "CUBLAS_STATUS_INVALID_VALUE";
  case CUBLAS_STATUS_NOT_SUPPORTED:
    return "CUBLAS_STATUS_NOT_SUPPORTED";
  case CUBLAS_STATUS_EXECUTION_FAILED:
    return "CUBLAS_STATUS_EXECUTION_FAILED";
  default:
    return "cuBLAS error";
  }
}

void checkCublas(cublasStatus_t s, const char *what) {
  check(s == CUBLAS_STATUS_SUCCESS, what, " failed: ", cublasStatusName(s));
}

int asInt(int64_t v, const char *what) {
  check(v >= 0 && v <= INT_MAX, "gemm ", what, " = ", v,
        " does not fit the cuBLAS integer type");
  return static_cast<int>(v);
}

} // namespace

CudaBackend::CudaBackend(const Mesh &mesh, int64_t rank) : Backend(mesh, rank) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  check(err == cudaSuccess && count > 0, "no CUDA device available (",
        err == cudaSuccess ? "0 devices" : cudaGetErrorString(err), ")");
  if (mpiActive()) {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check(size == mesh.numDevices(), "mesh ", mesh.str(), " has ",
          mesh.numDevices(), " devices but MPI runs ", size, " ranks");
  }
  deviceId_ = localRank() % count;
  WEFT_CUDA_CHECK(cudaSetDevice(deviceId_));
  WEFT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  int sms = 0, perSm = 0;
  WEFT_CUDA_CHECK(
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, deviceId_));
  WEFT_CUDA_CHECK(cudaDeviceGetAttribute(
      &perSm, cudaDevAttrMaxThreadsPerMultiProcessor, deviceId_));
  residentThreads_ = std::max<int64_t>(1, int64_t(sms) * perSm);
  // Device buffers are cached (BufferPool.h): cudaMalloc/cudaFree per op
  // dominated small steps (cudaFree synchronizes the device).
  pool_ = std::make_shared<BufferPool>(BufferPool::Source{
      "device",
      [](std::size_t bytes) -> void * {
        void *p = nullptr;
        return cudaMalloc(&p, bytes) == cudaSuccess ? p : nullptr;
      },
      [](void *p) { cudaFree(p); }});
  checkCublas(cublasCreate(&cublas_), "cublasCreate");
  checkCublas(cublasSetStream(cublas_, stream_), "cublasSetStream");
  setCommunicator(
      std::make_unique<NcclCommunicator>(mesh, rank, deviceId_, stream_));
}

CudaBackend::~CudaBackend() {
  // The communicator's events and NCCL work refer to the compute stream.
  releaseCommunicator();
  if (graph_)
    cudaGraphExecDestroy(graph_);
  if (pool_)
    pool_->close(); // Cached buffers back to the device; live ones on release.
  if (cublas_)
    cublasDestroy(cublas_);
  if (stream_)
    cudaStreamDestroy(stream_);
}

Tensor CudaBackend::empty(DType dtype, const Shape &shape) {
  Tensor t;
  t.dtype = dtype;
  t.shape = shape;
  t.device = Device::Cuda;
  t.storage = pool_->allocate(t.bytes());
  t.data = t.storage.get();
  return t;
}

void CudaBackend::copyFromHost(Tensor &dst, const void *src) {
  WEFT_CUDA_CHECK(cudaMemcpyAsync(dst.data, src, dst.bytes(),
                                  cudaMemcpyHostToDevice, stream_));
  synchronize();
}

void CudaBackend::copyToHost(const Tensor &src, void *dst) {
  WEFT_CUDA_CHECK(cudaMemcpyAsync(dst, src.data, src.bytes(),
                                  cudaMemcpyDeviceToHost, stream_));
  synchronize();
}

void CudaBackend::synchronize() {
  WEFT_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void CudaBackend::fillZero(void *dst, DType dtype, int64_t count) {
  if (count > 0)
    WEFT_CUDA_CHECK(cudaMemsetAsync(
        dst, 0, static_cast<std::size_t>(count) * dtypeSize(dtype), stream_));
}

void CudaBackend::gemm(const GemmPlan &p, DType dtype, const void *a,
                       const void *b, void *c) {
  // Row-major C[m,n] = op(A) op(B) is column-major C^T[n,m] = op(B)^T op(A)^T:
  // pass B first with the plan's numbers unchanged.
  cudaDataType_t type;
  cublasComputeType_t compute;
  float alpha32 = 1, beta32 = 0;
  double alpha64 = 1, beta64 = 0;
  const void *alpha = &alpha32, *beta = &beta32;
  switch (dtype) {
  case DType::F32:
    type = CUDA_R_32F;
    compute = CUBLAS_COMPUTE_32F;
    break;
  case DType::F64:
    type = CUDA_R_64F;
    compute = CUBLAS_COMPUTE_64F;
    alpha = &alpha64;
    beta = &beta64;
    break;
  case DType::F16:
    type = CUDA_R_16F;
    compute = CUBLAS_COMPUTE_32F;
    break;
  case DType::BF16:
    type = CUDA_R_16BF;
    compute = CUBLAS_COMPUTE_32F;
    break;
  default:
    fail("einsum of ", dtypeName(dtype),
         " is not supported on the cuda backend");
  }
  // One strided-batched call per index of the plan's outer batch level.
  std::size_t es = dtypeSize(dtype);
  for (int64_t o = 0; o < p.outerBatch; ++o) {
    const char *ao = static_cast<const char *>(a) + o * p.outerStrideA * es;
    const char *bo = static_cast<const char *>(b) + o * p.outerStrideB * es;
    char *co = static_cast<char *>(c) + o * p.outerStrideC * es;
    checkCublas(cublasGemmStridedBatchedEx(
                    cublas_, p.transB ? CUBLAS_OP_T : CUBLAS_OP_N,
                    p.transA ? CUBLAS_OP_T : CUBLAS_OP_N, asInt(p.n, "n"),
                    asInt(p.m, "m"), asInt(p.k, "k"), alpha, bo, type,
                    asInt(p.ldb, "ldb"), p.strideB, ao, type,
                    asInt(p.lda, "lda"), p.strideA, beta, co, type,
                    asInt(p.ldc, "ldc"), p.strideC, asInt(p.batch, "batch"),
                    compute, CUBLAS_GEMM_DEFAULT),
                "cublasGemmStridedBatchedEx");
  }
}

std::unique_ptr<Backend> createCudaBackend(const Mesh &mesh, int64_t rank) {
  return std::make_unique<CudaBackend>(mesh, rank);
}

void registerCudaBackend(BackendRegistry &registry) {
  registry.add("cuda", "cuBLAS + NCCL on the GPU of local rank % devices",
               createCudaBackend);
}

} // namespace weft::rt
