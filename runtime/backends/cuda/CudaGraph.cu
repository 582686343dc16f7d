//===- CudaGraph.cu - Recording and replaying the compute stream ----------===//
//
// weft-train --cuda-graph (docs/runtime.md, "CUDA graphs"): the harness
// records one training step's kernels, cuBLAS calls, copies and NCCL calls
// into a CUDA graph and replays it every later step, so a step costs one
// launch instead of one per op. The recording follows the compute stream
// (and the communicator's stream where it waits on an event recorded on
// it); the buffers the recorded ops read and write are fixed by the
// recording, which is why the harness pins the step's inputs first.
//
//===----------------------------------------------------------------------===//

#include "CudaBackendImpl.h"

namespace weft::rt {

void CudaBackend::copyDevice(const Tensor &src, Tensor &dst) {
  check(src.dtype == dst.dtype && src.numElements() == dst.numElements(),
        "copyDevice: ", src.str(), " into ", dst.str());
  if (src.data != dst.data && dst.bytes() > 0)
    WEFT_CUDA_CHECK(cudaMemcpyAsync(dst.data, src.data, dst.bytes(),
                                    cudaMemcpyDeviceToDevice, stream_));
}

void CudaBackend::beginGraphCapture() {
  if (graph_) {
    WEFT_CUDA_CHECK(cudaGraphExecDestroy(graph_));
    graph_ = nullptr;
  }
  // Relaxed: the buffer pool may still cudaMalloc a buffer while the step
  // is recorded (a size it has not cached yet); nothing is freed then.
  WEFT_CUDA_CHECK(
      cudaStreamBeginCapture(stream_, cudaStreamCaptureModeRelaxed));
}

std::size_t CudaBackend::endGraphCapture() {
  cudaGraph_t graph = nullptr;
  cudaError_t err = cudaStreamEndCapture(stream_, &graph);
  if (err != cudaSuccess) {
    if (graph)
      cudaGraphDestroy(graph);
    (void)cudaGetLastError();
    fail("cudaStreamEndCapture failed: ", cudaGetErrorString(err));
  }
  std::size_t nodes = 0;
  cudaGraphGetNodes(graph, nullptr, &nodes);
  err = cudaGraphInstantiate(&graph_, graph, 0);
  cudaGraphDestroy(graph);
  if (err != cudaSuccess) {
    graph_ = nullptr;
    (void)cudaGetLastError();
    fail("cudaGraphInstantiate failed: ", cudaGetErrorString(err));
  }
  return nodes;
}

void CudaBackend::abortGraphCapture() {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream_, &status) == cudaSuccess &&
      status != cudaStreamCaptureStatusNone) {
    cudaGraph_t graph = nullptr;
    cudaStreamEndCapture(stream_, &graph);
    if (graph)
      cudaGraphDestroy(graph);
  }
  (void)cudaGetLastError(); // A failed capture leaves no sticky error.
}

void CudaBackend::launchGraph() {
  check(graph_ != nullptr, "launchGraph: no graph was recorded");
  WEFT_CUDA_CHECK(cudaGraphLaunch(graph_, stream_));
}

} // namespace weft::rt
