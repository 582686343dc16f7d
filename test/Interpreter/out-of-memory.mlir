// Guards the out-of-memory item of robustness.md: with --max-elements raised
// beyond the memory there is, a value weft-interp cannot allocate aborted it
// with "LLVM ERROR: out of memory" (the new handler llvm::InitLLVM
// installs). It is an error naming the size, exit status 1. 2^46 doubles
// (512 TiB) exceed any address space, so the allocation fails on every
// machine, whatever its memory or overcommit policy. Not under ASan
// (scripts/sanitize.sh): its allocator ends the process on such a request
// instead of letting `new` throw std::bad_alloc.
// UNSUPPORTED: asan

// RUN: not weft-interp %s --max-elements 70368744177664 2>&1 | FileCheck %s
// CHECK-NOT: LLVM ERROR
// CHECK: weft-interp: error: cannot allocate 562949953421312 bytes for a tensor of shape 8388608x8388608 (out of memory); --max-elements is 70368744177664: lower it, or free memory
// CHECK-NOT: LLVM ERROR

func.func @huge(%x: tensor<8388608x8388608xf32>) -> tensor<8388608x8388608xf32> {
  return %x : tensor<8388608x8388608xf32>
}
