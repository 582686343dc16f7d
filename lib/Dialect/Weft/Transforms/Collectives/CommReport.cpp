//===- CommReport.cpp - the weft-comm-report pass -------------------------===//
//
// One entry per collective of a partitioned program, with the bytes each
// device sends (ring formulas, recomputed from the types and the mesh, so a
// hand-written local program is reported the same way), and totals.
//
//===----------------------------------------------------------------------===//

#include "weft/Dialect/Weft/IR/FuncUtils.h"
#include "weft/Dialect/Weft/IR/Limits.h"
#include "weft/Dialect/Weft/IR/MeshLayout.h"
#include "weft/Dialect/Weft/IR/MeshUtils.h"
#include "weft/Dialect/Weft/Transforms/Passes.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

#define DEBUG_TYPE "weft-comm-report"

namespace mlir::weft {
#define GEN_PASS_DEF_WEFTCOMMREPORT
#include "weft/Dialect/Weft/Transforms/Passes.h.inc"
} // namespace mlir::weft

using namespace mlir;
using namespace mlir::weft;

namespace {

struct Entry {
  /// `axes` as `{"a", "b"}`; `axesKey` as `a,b`.
  std::string kind, axes, axesKey, reduction, reason, location, shapeIn,
      shapeOut;
  SmallVector<StringRef> axisNames;
  int64_t elements = 0;
  int64_t bytes = 0;
  /// Compute ops overlapping it (weft.async); -1 when synchronous.
  int64_t overlap = -1;
  /// The root's group position (root collectives); -1 otherwise.
  int64_t root = -1;
  /// The layer call it was inlined from (callSiteKey of the outermost call
  /// site) and the function called, or empty.
  std::string call, callee;
};

/// Collectives and bytes of one call site (and the function it called)
/// or of one function (and its call sites with collectives).
struct Tally {
  int64_t collectives = 0, bytes = 0;
  StringRef callee;
  llvm::SetVector<StringRef> calls;
};

static int64_t numElements(RankedTensorType t) {
  int64_t n = 1;
  for (int64_t s : t.getShape())
    n *= s;
  return n;
}

static std::string shapeStr(RankedTensorType t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(t.getShape(), os, "x");
  os << "x" << t.getElementType();
  return s;
}

struct WeftCommReportPass
    : public mlir::weft::impl::WeftCommReportBase<WeftCommReportPass> {
  using WeftCommReportBase::WeftCommReportBase;

  void runOnOperation() override {
    SymbolTableCollection tables;
    std::vector<Entry> entries;
    llvm::StringMap<std::string> calleeOf = readCallSites(getOperation());
    WalkResult walk = getOperation().walk([&](Operation *op) -> WalkResult {
      auto collective = dyn_cast<CollectiveOpInterface>(op);
      if (!collective || !collective.communicates())
        return WalkResult::advance();
      auto mesh = lookupMesh(op, collective.getMeshAttr(), tables);
      if (failed(mesh))
        return WalkResult::interrupt();
      Entry e;
      e.kind = op->getName().stripDialect().str();
      for (StringRef axis : collective.getAxisNames())
        e.axisNames.push_back(axis);
      e.axes = axesStr(e.axisNames);
      e.axesKey = llvm::join(e.axisNames, ",");
      int64_t p = Mesh(*mesh).getGroupSize(e.axisNames);
      auto in = cast<RankedTensorType>(op->getOperand(0).getType());
      auto out = cast<RankedTensorType>(op->getResult(0).getType());
      e.elements = numElements(in);
      e.shapeIn = shapeStr(in);
      e.shapeOut = shapeStr(out);
      // The ring formulas of the runtime collective the op is.
      e.bytes = int64_t(collective.getBytesPerDevice(p) + 0.5);
      if (std::optional<ReductionKind> kind = collective.getReduction())
        e.reduction = stringifyReductionKind(*kind).str();
      if (std::optional<int64_t> root = collective.getRootPosition())
        e.root = *root;
      if (auto reason = op->getAttrOfType<StringAttr>(kReasonAttr))
        e.reason = reason.getValue().str();
      if (auto overlap = op->getAttrOfType<IntegerAttr>(kAsyncAttr))
        e.overlap = overlap.getInt();
      if (LocationAttr call = outermostCallSite(op->getLoc())) {
        e.call = callSiteKey(call);
        auto it = calleeOf.find(e.call);
        e.callee = it != calleeOf.end() ? it->second : "?";
      }
      if (auto loc = dyn_cast<FileLineColLoc>(op->getLoc()))
        e.location = llvm::formatv("{0}:{1}:{2}", loc.getFilename(),
                                   loc.getLine(), loc.getColumn())
                         .str();
      entries.push_back(std::move(e));
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();

    std::string error;
    auto file = openOutputFile(output, &error);
    if (!file) {
      getOperation().emitError() << "cannot write the report: " << error;
      return signalPassFailure();
    }
    llvm::raw_ostream &os = file->os();
    int64_t total = 0;
    llvm::MapVector<StringRef, int64_t> perAxes;
    // By layer call and by function called, in program order; `outside`
    // the collectives of ops written in the entry (the embedding, the head,
    // the gradients' constraints to their parameters' layouts).
    llvm::MapVector<StringRef, Tally> perCall, perCallee;
    Tally outside;
    for (const Entry &e : entries) {
      total += e.bytes;
      perAxes[StringRef(json ? e.axesKey : e.axes)] += e.bytes;
      Tally &site = e.call.empty() ? outside : perCall[e.call];
      site.collectives += 1;
      site.bytes += e.bytes;
      site.callee = e.callee;
      if (e.call.empty())
        continue;
      Tally &fn = perCallee[e.callee];
      fn.collectives += 1;
      fn.bytes += e.bytes;
      fn.calls.insert(e.call);
    }
    // Calls of each function (with collectives or not): every call the
    // inliner recorded, also where several share a line (a pipeline's
    // ticks all call at the first layer call's line).
    llvm::StringMap<int64_t> callsOf;
    if (auto sites =
            getOperation()->getAttrOfType<DictionaryAttr>(kCallSitesAttr))
      for (NamedAttribute entry : sites)
        if (auto calls = dyn_cast<ArrayAttr>(entry.getValue()))
          callsOf[entry.getName().getValue()] += calls.size();
    if (json) {
      llvm::json::Array list;
      for (const Entry &e : entries) {
        llvm::json::Object o{
            {"kind", e.kind},         {"axes", llvm::json::Array(e.axisNames)},
            {"elements", e.elements}, {"bytes_per_device", e.bytes},
            {"input", e.shapeIn},     {"output", e.shapeOut},
            {"reason", e.reason},     {"location", e.location}};
        if (!e.reduction.empty())
          o["reduction"] = e.reduction;
        if (e.overlap >= 0)
          o["overlap_ops"] = e.overlap;
        if (e.root >= 0)
          o["root"] = e.root;
        if (!e.call.empty()) {
          o["call"] = e.call;
          o["callee"] = e.callee;
        }
        list.push_back(std::move(o));
      }
      llvm::json::Object byAxis;
      for (auto &[axis, bytes] : perAxes)
        byAxis[axis] = bytes;
      llvm::json::Object report{{"collectives", std::move(list)},
                                {"bytes_per_device_by_axes", std::move(byAxis)},
                                {"total_bytes_per_device", total}};
      if (!profile.empty())
        report["machine_profile"] = profile;
      if (!perCall.empty()) {
        llvm::json::Array calls, callees;
        for (auto &[call, t] : perCall)
          calls.push_back(llvm::json::Object{{"call", call},
                                             {"callee", t.callee},
                                             {"collectives", t.collectives},
                                             {"bytes_per_device", t.bytes}});
        for (auto &[callee, t] : perCallee)
          callees.push_back(llvm::json::Object{
              {"callee", callee},
              {"calls", callsOf.lookup(callee)},
              {"calls_with_collectives", int64_t(t.calls.size())},
              {"collectives", t.collectives},
              {"bytes_per_device", t.bytes}});
        report["by_call"] = std::move(calls);
        report["by_callee"] = std::move(callees);
        report["outside_calls"] =
            llvm::json::Object{{"collectives", outside.collectives},
                               {"bytes_per_device", outside.bytes}};
      }
      os << llvm::formatv("{0:2}", llvm::json::Value(std::move(report)))
         << "\n";
    } else {
      os << llvm::formatv("{0,-20} {1,-20} {2,-16} {3,-16} {4,12}  {5}\n",
                          "collective", "axes", "input", "output",
                          "bytes/device", "reason");
      for (const Entry &e : entries)
        os << llvm::formatv(
            "{0,-20} {1,-20} {2,-16} {3,-16} {4,12}  {5}\n",
            e.kind + (e.reduction.empty() ? "" : "(" + e.reduction + ")") +
                (e.root < 0 ? "" : " root " + std::to_string(e.root)),
            e.axes, e.shapeIn, e.shapeOut, e.bytes,
            e.overlap < 0 ? e.reason
                          : llvm::formatv("{0} [async, overlaps {1} op(s)]",
                                          e.reason, e.overlap)
                                .str());
      for (auto &[axis, bytes] : perAxes)
        os << llvm::formatv("total over {0,-20} {1,14} bytes/device\n", axis,
                            bytes);
      os << llvm::formatv("total {0} collective(s), {1} bytes/device "
                          "({2:F1} KiB)\n",
                          entries.size(), total, double(total) / 1024);
      if (!profile.empty())
        os << "plan priced with machine profile '" << profile << "'\n";
      // Only for programs with layer calls: the others' reports are
      // unchanged.
      if (!perCall.empty()) {
        auto line = [&](const Twine &label, const Tally &t) {
          os << llvm::formatv("  {0,-40} {1,5} collective(s) {2,14} "
                              "bytes/device\n",
                              label.str(), t.collectives, t.bytes);
        };
        os << "by layer call (its forward and backward ops):\n";
        for (auto &[call, t] : perCall)
          line("@" + t.callee + " at " + call, t);
        os << "by function called:\n";
        for (auto &[callee, t] : perCallee)
          line("@" + callee + ", " + Twine(callsOf.lookup(callee)) + " call(s)",
               t);
        line("outside calls", outside);
      }
    }
    file->keep();
    markAllAnalysesPreserved();
  }
};
} // namespace
