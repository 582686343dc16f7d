//===- PlanToCpp.cpp - Runtime plans as C++ initializers ------------------===//
//
// Members are printed in declaration order with their designators, so a
// member renamed or reordered in a runtime plan struct fails to compile in
// the generated code. Stage plans an einsum plan skips are left out (they
// keep their defaults) to keep the generated code readable.
//
//===----------------------------------------------------------------------===//

#include "weft/Conversion/WeftToRuntime/PlanToCpp.h"

#include "RuntimeCall.h"

#include <cstdio>
#include <sstream>

namespace mlir::weft {
namespace rt = ::weft::rt;

namespace {
/// Accumulates `.member = value` pairs of one aggregate.
class Init {
public:
  explicit Init(std::string type) : type_(std::move(type)) {}
  Init &add(const char *member, const std::string &value) {
    os_ << (first_ ? "" : ", ") << "." << member << " = " << value;
    first_ = false;
    return *this;
  }
  Init &add(const char *member, int64_t v) {
    return add(member, std::to_string(v));
  }
  Init &addBool(const char *member, bool v) {
    return add(member, std::string(v ? "true" : "false"));
  }
  std::string str() const { return type_ + "{" + os_.str() + "}"; }

private:
  std::string type_;
  std::ostringstream os_;
  bool first_ = true;
};
} // namespace

std::string cppString(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string toCpp(const std::vector<int64_t> &values) {
  std::string s = "{";
  for (size_t i = 0; i < values.size(); ++i)
    s += (i ? ", " : "") + std::to_string(values[i]);
  return s + "}";
}

std::string toCpp(const std::vector<int> &values) {
  return toCpp(std::vector<int64_t>(values.begin(), values.end()));
}

static std::string toCpp(const std::vector<std::vector<int64_t>> &values) {
  std::string s = "{";
  for (size_t i = 0; i < values.size(); ++i)
    s += (i ? ", " : "") + toCpp(values[i]);
  return s + "}";
}

std::string toCpp(rt::DType dtype) {
  switch (dtype) {
  case rt::DType::F32:
    return "weft::rt::DType::F32";
  case rt::DType::F64:
    return "weft::rt::DType::F64";
  case rt::DType::I32:
    return "weft::rt::DType::I32";
  case rt::DType::F16:
    return "weft::rt::DType::F16";
  case rt::DType::BF16:
    return "weft::rt::DType::BF16";
  }
  return "weft::rt::DType::F32";
}

static std::string toCpp(const rt::CopyPlan &p) {
  return Init("weft::rt::CopyPlan")
      .add("shape", toCpp(p.shape))
      .add("srcStrides", toCpp(p.srcStrides))
      .add("dstStrides", toCpp(p.dstStrides))
      .add("srcOffset", p.srcOffset)
      .add("dstOffset", p.dstOffset)
      .str();
}

static std::string toCpp(const rt::GemmPlan &p) {
  Init init("weft::rt::GemmPlan");
  init.add("m", p.m)
      .add("n", p.n)
      .add("k", p.k)
      .addBool("transA", p.transA)
      .addBool("transB", p.transB)
      .add("lda", p.lda)
      .add("ldb", p.ldb)
      .add("ldc", p.ldc)
      .add("strideA", p.strideA)
      .add("strideB", p.strideB)
      .add("strideC", p.strideC)
      .add("batch", p.batch);
  // The outer batch level only when the plan has one (defaults otherwise).
  if (p.outerBatch != 1)
    init.add("outerBatch", p.outerBatch)
        .add("outerStrideA", p.outerStrideA)
        .add("outerStrideB", p.outerStrideB)
        .add("outerStrideC", p.outerStrideC);
  return init.str();
}

std::string toCpp(const rt::ReducePlan &p) {
  return Init("weft::rt::ReducePlan")
      .add("spec", cppString(p.spec))
      .add("inShape", toCpp(p.inShape))
      .add("outShape", toCpp(p.outShape))
      .add("shape", toCpp(p.shape))
      .add("inStrides", toCpp(p.inStrides))
      .add("outStrides", toCpp(p.outStrides))
      .add("outElements", p.outElements)
      .add("reducedElements", p.reducedElements)
      .str();
}

/// The members MapPlan and FusedMapPlan share.
template <typename Plan> Init &addMapMembers(Init &init, const Plan &p) {
  return init.add("spec", cppString(p.spec))
      .add("inShapes", toCpp(p.inShapes))
      .add("outShape", toCpp(p.outShape))
      .add("shape", toCpp(p.shape))
      .add("inStrides", toCpp(p.inStrides))
      .add("outStrides", toCpp(p.outStrides));
}

std::string toCpp(const rt::MapPlan &p) {
  Init init("weft::rt::MapPlan");
  return addMapMembers(init, p).str();
}

std::string toCpp(const rt::FusedMapPlan &p) {
  std::string steps = "{";
  for (const rt::FusedStep &st : p.steps) {
    steps += (steps.size() > 1 ? ", " : "");
    steps += Init("weft::rt::FusedStep")
                 .add("kind", std::string("weft::rt::MapKind::") +
                                  rt::mapKindEnumName(st.kind))
                 .add("a", st.a)
                 .add("b", st.b)
                 .add("scalar", lowering::formatDouble(st.scalar))
                 .str();
  }
  steps += "}";
  Init init("weft::rt::FusedMapPlan");
  return addMapMembers(init, p).add("steps", steps).str();
}

std::string toCpp(const rt::FusedRowsPlan &p) {
  std::string steps = "{";
  for (const rt::FusedRowStep &st : p.steps) {
    steps += (steps.size() > 1 ? ", " : "");
    steps +=
        Init("weft::rt::FusedRowStep")
            .addBool("reduce", st.reduce)
            .add("reduceKind",
                 "weft::rt::ReduceKind::" +
                     lowering::capitalize(rt::reduceKindName(st.reduceKind)))
            .add("kind", std::string("weft::rt::MapKind::") +
                             rt::mapKindEnumName(st.kind))
            .add("a", st.a)
            .add("b", st.b)
            .add("scalar", lowering::formatDouble(st.scalar))
            .str();
  }
  steps += "}";
  std::string full = "{";
  for (size_t i = 0; i < p.full.size(); ++i)
    full += std::string(i ? ", " : "") + (p.full[i] ? "true" : "false");
  full += "}";
  return Init("weft::rt::FusedRowsPlan")
      .add("spec", cppString(p.spec))
      .add("rowLetters", cppString(p.rowLetters))
      .add("inShapes", toCpp(p.inShapes))
      .add("outShape", toCpp(p.outShape))
      .add("keptShape", toCpp(p.keptShape))
      .add("inKeptStrides", toCpp(p.inKeptStrides))
      .add("outKeptStrides", toCpp(p.outKeptStrides))
      .add("rows", p.rows)
      .add("rowLength", p.rowLength)
      .add("inRowStrides", toCpp(p.inRowStrides))
      .add("outRowStride", p.outRowStride)
      .add("steps", steps)
      .add("full", full)
      .str();
}

std::string toCpp(const rt::EmbedPlan &p) {
  return Init("weft::rt::EmbedPlan")
      .add("spec", cppString(p.spec))
      .add("idsShape", toCpp(p.idsShape))
      .add("tableShape", toCpp(p.tableShape))
      .add("outShape", toCpp(p.outShape))
      .add("shape", toCpp(p.shape))
      .add("idsStrides", toCpp(p.idsStrides))
      .add("tableStrides", toCpp(p.tableStrides))
      .add("outStrides", toCpp(p.outStrides))
      .add("rows", p.rows)
      .add("rowStride", p.rowStride)
      .addBool("rowCopy", p.rowCopy)
      .add("rowElements", p.rowElements)
      .add("numIds", p.numIds)
      .str();
}

std::string toCpp(const rt::OneHotPlan &p) {
  return Init("weft::rt::OneHotPlan")
      .add("spec", cppString(p.spec))
      .add("idsShape", toCpp(p.idsShape))
      .add("outShape", toCpp(p.outShape))
      .add("idsStrides", toCpp(p.idsStrides))
      .add("columns", p.columns)
      .add("vocabStride", p.vocabStride)
      .str();
}

std::string toCpp(const rt::EinsumPlan &p) {
  // The stage plans of stages the plan skips keep their defaults.
  Init init("weft::rt::EinsumPlan");
  init.add("spec", cppString(p.spec))
      .add("dtype", toCpp(p.dtype))
      .add("aShape", toCpp(p.aShape))
      .add("bShape", toCpp(p.bShape))
      .add("outShape", toCpp(p.outShape))
      .addBool("unary", p.unary);
  if (p.unary) {
    init.addBool("unaryIsCopy", p.unaryIsCopy);
    if (p.unaryIsCopy)
      init.add("unaryCopy", toCpp(p.unaryCopy));
    else
      init.add("unaryReduce", toCpp(p.unaryReduce));
  } else {
    init.addBool("reduceA", p.reduceA).addBool("reduceB", p.reduceB);
    if (p.reduceA)
      init.add("reduceAPlan", toCpp(p.reduceAPlan));
    if (p.reduceB)
      init.add("reduceBPlan", toCpp(p.reduceBPlan));
    init.addBool("permuteA", p.permuteA).addBool("permuteB", p.permuteB);
    if (p.permuteA)
      init.add("permAPlan", toCpp(p.permAPlan));
    if (p.permuteB)
      init.add("permBPlan", toCpp(p.permBPlan));
    init.addBool("swapOperands", p.swapOperands)
        .add("gemm", toCpp(p.gemm))
        .addBool("permuteOut", p.permuteOut);
    if (p.permuteOut)
      init.add("permOutPlan", toCpp(p.permOutPlan));
  }
  init.add("tempAElements", p.tempAElements)
      .add("tempBElements", p.tempBElements)
      .add("tempOutElements", p.tempOutElements)
      .add("flops", p.flops);
  return init.str();
}

} // namespace mlir::weft
