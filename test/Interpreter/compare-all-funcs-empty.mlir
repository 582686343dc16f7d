// Guards `weft-interp --compare X --all-funcs` on a module with no function:
// an error naming the file and exit status 1, never a crash (the tool used
// to take the first function of an empty list) nor a vacuous "0 of 0 match".

// RUN: not weft-interp %s --compare %s --all-funcs 2>&1 | FileCheck %s
// CHECK: weft-interp: error: '{{.*}}compare-all-funcs-empty.mlir' has no func.func to compare
// CHECK-NOT: compare-all:

weft.mesh @mesh ["model" = 2]
