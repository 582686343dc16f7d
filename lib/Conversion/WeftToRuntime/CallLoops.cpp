//===- CallLoops.cpp - Runs of equal calls become loops over slots --------===//
//
// A post-pass over the converted step function, after the releases
// (docs/calls.md, "The call loop"; docs/lowering.md). weft-outline-layers
// left one statement block per call site:
//
//   // call @layer_0 at t2.mlir:40
//   weft::rt::gen::Results v20 = weft_call_layer_0(v1, v4, v6, v19);
//   weft::rt::gen::release(v19);
//   weft::rt::Tensor v21 = weft::rt::gen::takeResult(v20, 0);
//
// so the step function grows by a block per layer. Here a maximal run of
// adjacent blocks that repeats with a period (one call of each callee of
// the period, the same statements each time) becomes one C++ loop, its
// values held in an array of tensors, `weft_slots`, instead of one local
// each:
//
//   for (int i = 0; i < 46; ++i) {
//     weft::rt::gen::Results r0 = weft_call_layer_0(v1, weft_slots[3 + i],
//                                    v6, weft_slots[60 + i]);
//     weft::rt::gen::release(weft_slots[3 + i]);
//     weft_slots[61 + i] = weft::rt::gen::takeResult(r0, 0);
//   }
//
//   1. Slots. Every value a loop column reads or writes that is not the
//      same at every iteration gets a slot, so that the column's slots are
//      `base + step * i`: a column of values without slots gets a fresh
//      range (with a spare slot at each end, for the first and last layers
//      a later loop may add), one with slots must already be affine.
//   2. A slotted value's definition writes its slot: an input is read into
//      it (inputs by range: one loop per affine run of inputs), any other
//      op's result is moved into it; each use reads it, and its release
//      releases it, at the same place as the local's would be. Outputs by
//      range too. So every buffer lives exactly as long as before.
//   3. A run whose columns cannot be made affine is tried shorter (a first
//      or last iteration left flat), else left flat.
//
// A step function without calls of outlined functions, or without such a
// run, is left exactly as it was.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVectorExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::weft;
using namespace mlir::weft::lowering;

namespace {

constexpr StringLiteral kSlots = "weft_slots";
constexpr StringLiteral kCalleePrefix = "weft_call_";
constexpr StringLiteral kRuntimePrefix = "weft::rt::gen::";
/// The longest period looked for (calls of one layer, parameters of one
/// layer, a layer's backward with its gradient bucket's statements).
constexpr size_t kMaxPeriod = 32;

emitc::CallOpaqueOp callTo(Operation *op, StringRef callee) {
  auto call = dyn_cast_or_null<emitc::CallOpaqueOp>(op);
  return call && call.getCallee() == callee ? call : emitc::CallOpaqueOp();
}

/// The integer of a literal argument (`3` in `takeResult(r, 3)`).
std::optional<int64_t> literalInt(Attribute attr) {
  auto lit = dyn_cast_or_null<emitc::OpaqueAttr>(attr);
  int64_t v;
  if (!lit || StringRef(lit.getValue()).getAsInteger(10, v))
    return std::nullopt;
  return v;
}

/// One statement of a call block after its call, relative to the block.
struct Stmt {
  enum Kind { ReleaseOperand, Take, ReleaseResult } kind;
  int index;
};

/// A call site's statements: its comment, the call, the releases of the
/// operands that die there, one takeResult per result (each followed by a
/// release when the result is unused). Or a runtime statement (`generic`):
/// its comment, one `weft::rt::gen::` call of at most one tensor result
/// (a reshape, a concatenation, a slice, a collective's start or wait),
/// the releases after it.
struct CallBlock {
  SmallVector<Operation *> ops;
  mutable emitc::CallOpaqueOp call; // An op handle: reading it is not const.
  SmallVector<Value> operands;      // The tensors, after the context; generic:
                               // every operand, as the call's args name it.
  SmallVector<Value> results; // By result index.
  SmallVector<Stmt> stmts;
  std::string key;
  bool generic = false;
};

/// The runtime functions a generic block may not be: the ones the call
/// blocks, the inputs and outputs and the releases are made of.
bool isGenericCallee(StringRef callee) {
  return callee.starts_with(kRuntimePrefix) && callee != kReleaseCallee &&
         callee != kTakeResultCallee && callee != kInputCallee &&
         callee != kOutputCallee && callee != kResultsCallee;
}

/// The statements after a block's call (b.ops ends with it), as
/// b.stmts: releases of the operands that die there first, then, for a
/// call block (`results`, the call's Results), one takeResult per result,
/// each followed by its release when the result is unused; for a runtime
/// statement (no `results`), the release of its result (b.results[0]) if
/// unused. Returns the number of takes; fails on a result taken twice.
FailureOr<unsigned> parseStmts(CallBlock &b, Value results) {
  auto columnOf = [&](Value v) -> int {
    auto it = llvm::find(b.operands, v);
    return it == b.operands.end() ? -1 : int(it - b.operands.begin());
  };
  unsigned takes = 0;
  for (Operation *next = b.ops.back()->getNextNode(); next;
       next = next->getNextNode()) {
    std::optional<Stmt> last;
    if (!b.stmts.empty())
      last = b.stmts.back();
    if (auto rel = callTo(next, kReleaseCallee)) {
      if (rel.getNumOperands() != 1)
        break;
      Value v = rel.getOperand(0);
      // A call block's result right after its take; a statement's result
      // once.
      std::optional<int> released;
      if (results && last && last->kind == Stmt::Take &&
          b.results[last->index] == v)
        released = last->index;
      else if (!results && !b.results.empty() && v == b.results[0] &&
               (!last || last->kind != Stmt::ReleaseResult))
        released = 0;
      if (released) {
        b.stmts.push_back({Stmt::ReleaseResult, *released});
      } else if (!last || last->kind == Stmt::ReleaseOperand) {
        int col = columnOf(v);
        if (col < 0)
          break;
        b.stmts.push_back({Stmt::ReleaseOperand, col});
      } else {
        break;
      }
      b.ops.push_back(next);
      continue;
    }
    auto take =
        results ? callTo(next, kTakeResultCallee) : emitc::CallOpaqueOp();
    if (!take || take.getNumOperands() != 1 || take.getOperand(0) != results ||
        !take.getArgsAttr() || take.getArgsAttr().size() != 2)
      break;
    std::optional<int64_t> k = literalInt(take.getArgsAttr()[1]);
    if (!k || *k < 0 || *k > 4096)
      break;
    if (b.results.size() <= size_t(*k))
      b.results.resize(*k + 1);
    if (b.results[*k])
      return failure();
    b.results[*k] = take.getResult(0);
    b.stmts.push_back({Stmt::Take, int(*k)});
    b.ops.push_back(next);
    ++takes;
  }
  return takes;
}

/// The part of a block's key its statements give.
std::string stmtsKey(ArrayRef<Stmt> stmts) {
  std::string key;
  for (Stmt s : stmts) {
    key += ',';
    key += std::to_string(int(s.kind));
    key += ':';
    key += std::to_string(s.index);
  }
  return key;
}

/// A runtime statement as a block (see CallBlock), or nothing. Its key is
/// the callee, the arguments (literals by their text; a string literal,
/// the op's profile label, by its kind only: a loop's statement keeps its
/// first iteration's label) and the releases.
std::optional<CallBlock> parseGeneric(Operation *op) {
  CallBlock b;
  b.generic = true;
  if (auto comment = dyn_cast<emitc::VerbatimOp>(op)) {
    if (!comment.getFmtArgs().empty() ||
        !comment.getValue().starts_with("// #"))
      return std::nullopt;
    b.ops.push_back(op);
    op = op->getNextNode();
  }
  auto call = dyn_cast_or_null<emitc::CallOpaqueOp>(op);
  if (!call || !isGenericCallee(call.getCallee()) || call.getTemplateArgs() ||
      call.getNumResults() > 1)
    return std::nullopt;
  if (call.getNumResults() == 1) {
    auto type = dyn_cast<emitc::OpaqueType>(call.getResult(0).getType());
    if (!type || type.getValue() != "weft::rt::Tensor")
      return std::nullopt;
  }
  ArrayAttr args = call.getArgsAttr();
  if (!args)
    return std::nullopt;
  b.key = "=" + call.getCallee().str() + "(";
  for (Attribute a : args) {
    if (auto index = dyn_cast<IntegerAttr>(a)) {
      if (!isa<IndexType>(index.getType()) ||
          index.getValue().getZExtValue() >= call.getNumOperands())
        return std::nullopt;
      b.key += '%';
      b.key += std::to_string(index.getValue().getZExtValue());
      b.key += ',';
      continue;
    }
    auto lit = dyn_cast<emitc::OpaqueAttr>(a);
    if (!lit)
      return std::nullopt;
    StringRef text = lit.getValue();
    b.key += text.starts_with("\"") ? "\"label\"," : text.str() + ",";
  }
  b.key += ")";
  b.call = call;
  b.ops.push_back(call);
  b.operands = llvm::to_vector(call.getOperands());
  if (call.getNumResults())
    b.results.push_back(call.getResult(0));
  (void)parseStmts(b, Value()); // No takes: cannot fail.
  b.key += stmtsKey(b.stmts);
  return b;
}

std::optional<CallBlock> parseBlock(Operation *op, Value stepCtx) {
  CallBlock b;
  if (auto comment = dyn_cast<emitc::VerbatimOp>(op)) {
    if (!comment.getFmtArgs().empty() ||
        !comment.getValue().starts_with("// call @"))
      return parseGeneric(op);
    b.ops.push_back(op);
    op = op->getNextNode();
  }
  auto call = dyn_cast_or_null<emitc::CallOpaqueOp>(op);
  if (call && b.ops.empty() && !call.getCallee().starts_with(kCalleePrefix))
    return parseGeneric(op);
  if (!call || !call.getCallee().starts_with(kCalleePrefix) ||
      call.getNumResults() != 1 || call.getTemplateArgs() ||
      call.getNumOperands() == 0 || call.getOperand(0) != stepCtx)
    return std::nullopt;
  // The arguments are the operands in order.
  ArrayAttr args = call.getArgsAttr();
  if (!args || args.size() != call.getNumOperands())
    return std::nullopt;
  for (auto [i, a] : llvm::enumerate(args)) {
    auto index = dyn_cast<IntegerAttr>(a);
    if (!index || !isa<IndexType>(index.getType()) ||
        index.getValue().getZExtValue() != i)
      return std::nullopt;
  }
  b.call = call;
  b.ops.push_back(call);
  b.operands = llvm::to_vector(call.getOperands().drop_front());
  Value results = call.getResult(0);
  FailureOr<unsigned> numUses = parseStmts(b, results);
  if (failed(numUses))
    return std::nullopt;
  // Every result taken, and the Results used by nothing else.
  if (llvm::any_of(b.results, [](Value v) { return !v; }) ||
      !llvm::hasNItems(results.getUses(), *numUses))
    return std::nullopt;
  b.key = call.getCallee().str() + "/" + std::to_string(b.operands.size()) +
          stmtsKey(b.stmts);
  return b;
}

/// A maximal repetition: items [start, start + period * count) where item
/// start + i * period + q matches item start + q.
struct Periodic {
  size_t start, period, count;
};

/// Greedy: at each position, the period whose repetitions (at least
/// `minCount`) cover the most items; `same(a, b, c, d)` says whether item d
/// is to item c as item b is to item a (equal keys, equal differences);
/// `admit(start, period, count)` may refuse a repetition.
template <typename Same, typename Admit>
SmallVector<Periodic> findPeriodic(size_t size, size_t minCount, Same same,
                                   Admit admit) {
  SmallVector<Periodic> out;
  size_t s = 0;
  while (s < size) {
    Periodic best{s, 1, 1};
    for (size_t p = 1; p <= kMaxPeriod && s + minCount * p <= size; ++p) {
      size_t n = 1;
      while (s + (n + 1) * p <= size) {
        bool ok = true;
        for (size_t q = 0; q < p && ok; ++q)
          ok = same(s + q, s + p + q, s + (n - 1) * p + q, s + n * p + q);
        if (!ok)
          break;
        ++n;
      }
      if (n >= minCount && n * p > best.count * best.period && admit(s, p, n))
        best = {s, p, n};
    }
    out.push_back(best);
    s += best.period * best.count;
  }
  return out;
}

/// How a loop's column names its value at iteration i.
struct Column {
  Value invariant;            // The same value at every iteration, or
  int64_t base = 0, step = 0; // weft_slots[base + step * i].
};

struct Slots {
  DenseMap<Value, int64_t> of;
  DenseMap<int64_t, Value> owner;
  int64_t next = 0;

  void assign(Value v, int64_t slot) {
    of[v] = slot;
    owner[slot] = v;
    next = std::max(next, slot + 1);
  }
};

/// Gives `vals` (one column over the iterations) affine slots, or fails.
bool assignColumn(ArrayRef<Value> vals, Slots &slots, Column &col) {
  if (llvm::all_equal(vals)) {
    col.invariant = vals.front();
    return true;
  }
  DenseSet<Value> seen;
  for (Value v : vals)
    if (!seen.insert(v).second)
      return false;
  SmallVector<size_t> known;
  for (auto [i, v] : llvm::enumerate(vals))
    if (slots.of.count(v))
      known.push_back(i);
  int64_t n = vals.size();
  SmallVector<int64_t> steps;
  if (known.empty()) {
    // A fresh range, a spare slot at each end.
    col.base = slots.next + 1;
    col.step = 1;
    slots.next += n + 2;
    for (auto [i, v] : llvm::enumerate(vals))
      slots.assign(v, col.base + int64_t(i));
    slots.next = std::max(slots.next, col.base + n + 1);
    return true;
  }
  if (known.size() >= 2) {
    int64_t d = slots.of[vals[known[1]]] - slots.of[vals[known[0]]];
    int64_t di = int64_t(known[1]) - int64_t(known[0]);
    if (d % di != 0)
      return false;
    steps.push_back(d / di);
  } else {
    steps = {1, -1};
  }
  for (int64_t t : steps) {
    int64_t b = slots.of[vals[known[0]]] - int64_t(known[0]) * t;
    bool ok = t != 0;
    for (int64_t i = 0; i < n && ok; ++i) {
      int64_t slot = b + i * t;
      auto it = slots.of.find(vals[i]);
      ok = slot >= 0 && (it != slots.of.end() ? it->second == slot
                                              : !slots.owner.count(slot));
    }
    if (!ok)
      continue;
    for (int64_t i = 0; i < n; ++i)
      if (!slots.of.count(vals[i]))
        slots.assign(vals[i], b + i * t);
    col.base = b;
    col.step = t;
    return true;
  }
  return false;
}

/// A run of call blocks that becomes a loop.
struct Loop {
  SmallVector<CallBlock *> blocks; // period * count, in order.
  size_t period, count;
  SmallVector<SmallVector<Column>> operands, results; // Per q, per column.
};

/// Gives the loop's columns slots (results first: their values are new),
/// or fails and leaves `slots` as it was.
bool assignLoop(Loop &loop, Slots &slots) {
  Slots trial = slots;
  auto column = [&](size_t q, auto get) {
    SmallVector<Value> vals;
    for (size_t i = 0; i < loop.count; ++i)
      vals.push_back(get(*loop.blocks[i * loop.period + q]));
    return vals;
  };
  loop.operands.assign(loop.period, {});
  loop.results.assign(loop.period, {});
  for (size_t q = 0; q < loop.period; ++q) {
    const CallBlock &first = *loop.blocks[q];
    for (size_t k = 0; k < first.results.size(); ++k) {
      Column col;
      if (!assignColumn(column(q, [&](CallBlock &b) { return b.results[k]; }),
                        trial, col) ||
          col.invariant)
        return false;
      loop.results[q].push_back(col);
    }
  }
  for (size_t q = 0; q < loop.period; ++q) {
    const CallBlock &first = *loop.blocks[q];
    for (size_t j = 0; j < first.operands.size(); ++j) {
      Column col;
      if (!assignColumn(column(q, [&](CallBlock &b) { return b.operands[j]; }),
                        trial, col))
        return false;
      loop.operands[q].push_back(col);
    }
    // A value released at every iteration differs at every iteration.
    for (Stmt s : first.stmts)
      if (s.kind == Stmt::ReleaseOperand && loop.operands[q][s.index].invariant)
        return false;
  }
  slots = std::move(trial);
  return true;
}

/// `base + step * i + ...` over (step, variable) terms, short.
std::string affine(int64_t base,
                   ArrayRef<std::pair<int64_t, StringRef>> terms) {
  std::string s = base == 0 ? "" : std::to_string(base);
  for (auto [step, var] : terms) {
    if (step == 0)
      continue;
    std::string v = var.str();
    if (step != 1 && step != -1)
      v = std::to_string(std::abs(step)) + " * " + v;
    if (!s.empty())
      s += step < 0 ? " - " : " + ";
    else if (step < 0)
      s += "-";
    s += v;
  }
  return s.empty() ? "0" : s;
}
/// `base + step * i`, short.
std::string affine(int64_t base, int64_t step, StringRef var = "i") {
  return affine(base, {{step, var}});
}

/// Runs shorter than this stay one statement each inside a loop's body
/// (the inner loop over `j` is not shorter).
constexpr size_t kMinInnerRun = 3;

std::string slotRef(int64_t slot) {
  return kSlots.str() + "[" + std::to_string(slot) + "]";
}

/// Escapes `{` for a verbatim's format string.
std::string escapeFmt(StringRef text) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '{')
      out += '{';
  }
  return out;
}

/// Text with `{}` placeholders and the values that fill them.
struct Fmt {
  std::string text;
  SmallVector<Value> args;

  Fmt &operator<<(StringRef s) {
    text += escapeFmt(s);
    return *this;
  }
  Fmt &value(Value v) {
    text += "{}";
    args.push_back(v);
    return *this;
  }
  /// A value: its slot when it has one, else its local.
  Fmt &tensor(Value v, const Slots &slots) {
    auto it = slots.of.find(v);
    return it != slots.of.end() ? *this << slotRef(it->second) : value(v);
  }
  void emit(OpBuilder &b, Location loc) {
    emitc::VerbatimOp::create(b, loc, b.getStringAttr(text), args);
  }
};

class CallLoopBuilder {
public:
  CallLoopBuilder(emitc::FuncOp step) : step_(step) {}
  void run();

private:
  void findLoops();
  bool validate() const;
  void emitLoop(const Loop &loop, OpBuilder &b);
  void emitGeneric(const Loop &loop, size_t q, Fmt &f);
  void rewriteUse(emitc::CallOpaqueOp call);
  void emitRanges(OpBuilder &b, StringRef what,
                  ArrayRef<std::pair<int64_t, int64_t>> items);

  emitc::FuncOp step_;
  Value ctx_;
  std::vector<CallBlock> blocks_;
  SmallVector<Loop> loops_;
  Slots slots_;
};

void CallLoopBuilder::findLoops() {
  Block &body = step_.getBody().front();
  // Call blocks, and chains of adjacent ones.
  SmallVector<std::pair<size_t, size_t>> chains; // [begin, end) in blocks_.
  for (Operation *op = &body.front(); op;) {
    std::optional<CallBlock> b = parseBlock(op, ctx_);
    if (!b) {
      op = op->getNextNode();
      continue;
    }
    bool adjacent = !blocks_.empty() &&
                    blocks_.back().ops.back()->getNextNode() == b->ops.front();
    if (!adjacent)
      chains.push_back({blocks_.size(), blocks_.size()});
    op = b->ops.back()->getNextNode();
    blocks_.push_back(std::move(*b));
    chains.back().second = blocks_.size();
  }
  // Only a step function with calls of outlined functions (a program
  // written with layers): the others are left exactly as they were.
  if (llvm::all_of(blocks_, [](const CallBlock &b) { return b.generic; }))
    return;
  for (auto [begin, end] : chains) {
    auto same = [&](size_t a, size_t b, size_t c, size_t d) {
      (void)b;
      (void)c;
      return blocks_[begin + a].key == blocks_[begin + d].key;
    };
    // A loop holds a call of an outlined function, or repeats runtime
    // statements alone (a gradient bucket's wait and slices) three times
    // at least, two or more a period: never a pair of equal statements.
    auto admit = [&](size_t start, size_t period, size_t count) {
      for (size_t q = 0; q < period; ++q)
        if (!blocks_[begin + start + q].generic)
          return true;
      return period >= 2 && count >= 3;
    };
    for (Periodic p : findPeriodic(end - begin, 2, same, admit)) {
      if (p.count < 2)
        continue;
      // The whole run when its columns fit, else loops over its longest
      // prefixes that fit (binary search: a prefix of a run that fits
      // fits), an iteration left as blocks where not even two do.
      auto tryLoop = [&](size_t first, size_t count) {
        Loop loop;
        loop.period = p.period;
        loop.count = count;
        for (size_t i = 0; i < loop.period * loop.count; ++i)
          loop.blocks.push_back(
              &blocks_[begin + p.start + first * p.period + i]);
        if (!assignLoop(loop, slots_))
          return false;
        loops_.push_back(std::move(loop));
        return true;
      };
      size_t first = 0;
      while (first + 2 <= p.count) {
        size_t rest = p.count - first;
        if (tryLoop(first, rest))
          break;
        // Largest count in [2, rest) that fits, if any.
        size_t lo = 1, hi = rest; // lo fits (vacuously), hi does not.
        while (hi - lo > 1) {
          size_t mid = (lo + hi) / 2;
          Loop probe;
          probe.period = p.period;
          probe.count = mid;
          for (size_t i = 0; i < probe.period * probe.count; ++i)
            probe.blocks.push_back(
                &blocks_[begin + p.start + first * p.period + i]);
          Slots scratch = slots_;
          (assignLoop(probe, scratch) ? lo : hi) = mid;
        }
        if (lo >= 2 && tryLoop(first, lo))
          first += lo;
        else
          first += 1;
      }
    }
  }
}

/// Every slotted value is a call's result, and only calls use it.
bool CallLoopBuilder::validate() const {
  for (auto [v, slot] : slots_.of) {
    if (!v.getDefiningOp<emitc::CallOpaqueOp>())
      return false;
    for (Operation *user : v.getUsers())
      if (!isa<emitc::CallOpaqueOp>(user))
        return false;
  }
  return true;
}

/// The loop's q-th statement, a generic block: the first iteration's
/// statement with each operand its column's slot.
void CallLoopBuilder::emitGeneric(const Loop &loop, size_t q, Fmt &f) {
  const CallBlock &block = *loop.blocks[q];
  auto ref = [&](const Column &col) {
    if (col.invariant)
      f.tensor(col.invariant, slots_);
    else
      f << kSlots << "[" << affine(col.base, col.step) << "]";
  };
  f << "  ";
  if (!block.results.empty()) {
    ref(loop.results[q][0]);
    f << " = ";
  }
  f << block.call.getCallee() << "(";
  for (auto [n, a] : llvm::enumerate(block.call.getArgsAttr())) {
    if (n)
      f << ", ";
    if (auto index = dyn_cast<IntegerAttr>(a))
      ref(loop.operands[q][index.getValue().getZExtValue()]);
    else
      f << cast<emitc::OpaqueAttr>(a).getValue();
  }
  f << ");\n";
  for (Stmt s : block.stmts) {
    f << "  " << kReleaseCallee << "(";
    ref(s.kind == Stmt::ReleaseOperand ? loop.operands[q][s.index]
                                       : loop.results[q][0]);
    f << ");\n";
  }
}

void CallLoopBuilder::emitLoop(const Loop &loop, OpBuilder &b) {
  const CallBlock &first = *loop.blocks.front();
  Fmt f;
  f << "for (int i = 0; i < " << std::to_string(loop.count) << "; ++i) {\n";
  auto ref = [&](const Column &col) {
    if (col.invariant)
      f.tensor(col.invariant, slots_);
    else
      f << kSlots << "[" << affine(col.base, col.step) << "]";
  };
  for (size_t q = 0; q < loop.period; ++q) {
    const CallBlock &block = *loop.blocks[q];
    if (block.generic) {
      emitGeneric(loop, q, f);
      continue;
    }
    std::string r = "r";
    r += std::to_string(q);
    f << "  // call " << block.call.getCallee().drop_front(kCalleePrefix.size())
      << "\n";
    f << "  " << kResultsType << " " << r << " = " << block.call.getCallee()
      << "(";
    f.value(ctx_);
    for (const Column &col : loop.operands[q]) {
      f << ", ";
      ref(col);
    }
    f << ");\n";
    // A run of takes into slots that advance by one stride per result is
    // an inner loop (a layer's saved activations: 18 takes in T2's
    // forward).
    auto takeRun = [&](size_t from) {
      size_t to = from;
      auto col = [&](size_t k) -> const Column & {
        return loop.results[q][block.stmts[k].index];
      };
      while (to < block.stmts.size() && block.stmts[to].kind == Stmt::Take &&
             !col(to).invariant &&
             block.stmts[to].index ==
                 block.stmts[from].index + int(to - from) &&
             col(to).step == col(from).step &&
             (to < from + 2 || col(to).base - col(to - 1).base ==
                                   col(from + 1).base - col(from).base))
        ++to;
      return to - from;
    };
    for (size_t k = 0; k < block.stmts.size(); ++k) {
      if (size_t n = takeRun(k); n >= kMinInnerRun) {
        const Column &c0 = loop.results[q][block.stmts[k].index];
        int64_t stride =
            loop.results[q][block.stmts[k + 1].index].base - c0.base;
        f << "  for (int j = 0; j < " << std::to_string(n) << "; ++j) {\n"
          << "    " << kSlots << "["
          << affine(c0.base, {{c0.step, "i"}, {stride, "j"}})
          << "] = " << kTakeResultCallee << "(" << r << ", "
          << affine(block.stmts[k].index, 1, "j") << ");\n  }\n";
        k += n - 1;
        continue;
      }
      Stmt s = block.stmts[k];
      switch (s.kind) {
      case Stmt::ReleaseOperand:
        f << "  " << kReleaseCallee << "(";
        ref(loop.operands[q][s.index]);
        f << ");\n";
        break;
      case Stmt::Take:
        f << "  ";
        ref(loop.results[q][s.index]);
        f << " = " << kTakeResultCallee << "(" << r << ", "
          << std::to_string(s.index) << ");\n";
        break;
      case Stmt::ReleaseResult:
        f << "  " << kReleaseCallee << "(";
        ref(loop.results[q][s.index]);
        f << ");\n";
        break;
      }
    }
  }
  f << "}";
  b.setInsertionPoint(first.ops.front());
  Fmt comment;
  comment << "// " << std::to_string(loop.count) << " x "
          << (loop.period == 1 ? "the call" : "the calls") << " at "
          << shortLoc(first.call.getLoc());
  comment.emit(b, first.call.getLoc());
  f.emit(b, first.call.getLoc());
}

/// Rebuilds `call` with its slotted operands read from their slots.
void CallLoopBuilder::rewriteUse(emitc::CallOpaqueOp call) {
  MLIRContext *ctx = call.getContext();
  SmallVector<Value> operands;
  SmallVector<int64_t> newIndex;
  for (Value v : call.getOperands()) {
    if (slots_.of.count(v)) {
      newIndex.push_back(-1);
      continue;
    }
    newIndex.push_back(operands.size());
    operands.push_back(v);
  }
  SmallVector<Attribute> args;
  if (ArrayAttr old = call.getArgsAttr()) {
    for (Attribute a : old) {
      auto index = dyn_cast<IntegerAttr>(a);
      if (!index || !isa<IndexType>(index.getType())) {
        args.push_back(a);
        continue;
      }
      int64_t i = index.getValue().getZExtValue();
      if (newIndex[i] < 0)
        args.push_back(emitc::OpaqueAttr::get(
            ctx, slotRef(slots_.of.lookup(call.getOperand(i)))));
      else
        args.push_back(IntegerAttr::get(IndexType::get(ctx), newIndex[i]));
    }
  } else {
    // No args: every operand in order.
    for (auto [i, v] : llvm::enumerate(call.getOperands()))
      args.push_back(
          newIndex[i] < 0
              ? Attribute(
                    emitc::OpaqueAttr::get(ctx, slotRef(slots_.of.lookup(v))))
              : Attribute(IntegerAttr::get(IndexType::get(ctx), newIndex[i])));
  }
  OpBuilder b(call);
  auto rebuilt = emitc::CallOpaqueOp::create(
      b, call.getLoc(), call.getResultTypes(), call.getCallee(),
      ArrayAttr::get(ctx, args), call.getTemplateArgsAttr(), operands);
  for (auto [old, now] : llvm::zip(call->getResults(), rebuilt->getResults()))
    if (auto it = slots_.of.find(old); it != slots_.of.end())
      slots_.of[now] = it->second;
  call->replaceAllUsesWith(rebuilt);
  call.erase();
}

/// `what` is "input" or "output": (index, slot) pairs, in order, as loops
/// over their affine runs. A run of statements repeated with constant
/// differences is a loop over i; inside its body, a run of statements that
/// advance by a constant (with equal steps in i) is a loop over j; and
/// consecutive loops over i of one shape whose starts advance by a
/// constant are a loop over k. A deep model's parameters are a table of
/// kinds by layers: one loop over the layers per kind, and the kinds
/// looped over too, whichever way the slots and indices run.
void CallLoopBuilder::emitRanges(OpBuilder &b, StringRef what,
                                 ArrayRef<std::pair<int64_t, int64_t>> items) {
  using Terms = SmallVector<std::pair<int64_t, StringRef>, 3>;
  auto stmt = [&](Fmt &f, int64_t index, const Terms &it, int64_t slot,
                  const Terms &st, StringRef indent) {
    std::string idx = affine(index, it), s = affine(slot, st);
    if (what == "input") {
      f << indent << kSlots << "[" << s << "] = " << kInputCallee << "(";
      f.value(ctx_);
      f << ", " << idx << ");\n";
    } else {
      f << indent << kOutputCallee << "(";
      f.value(ctx_);
      f << ", " << idx << ", " << kSlots << "[" << s << "]);\n";
    }
  };
  using Pair = std::pair<int64_t, int64_t>;
  auto minus = [](Pair x, Pair y) -> Pair {
    return {x.first - y.first, x.second - y.second};
  };
  auto same = [&](size_t a, size_t bb, size_t c, size_t d) {
    return minus(items[bb], items[a]) == minus(items[d], items[c]);
  };
  auto always = [](size_t, size_t, size_t) { return true; };
  // Three repetitions at least: two (index, slot) pairs are always affine,
  // and a period as long as a small model's layer count would take the
  // place of the layer's period.
  SmallVector<Periodic> loops = findPeriodic(items.size(), 3, same, always);
  auto at = [&](const Periodic &p, size_t q) { return items[p.start + q]; };
  auto stepOf = [&](const Periodic &p, size_t q) -> Pair {
    return p.count == 1 ? Pair{0, 0} : minus(at(p, p.period + q), at(p, q));
  };
  // Loops over i of one shape whose statements advance by a constant.
  auto sameLoop = [&](size_t a, size_t bb, size_t c, size_t d) {
    const Periodic *ps[] = {&loops[a], &loops[bb], &loops[c], &loops[d]};
    for (const Periodic *p : ps)
      if (p->count == 1 || p->period != ps[0]->period ||
          p->count != ps[0]->count)
        return false;
    for (size_t q = 0; q < ps[0]->period; ++q) {
      for (const Periodic *p : ps)
        if (stepOf(*p, q) != stepOf(*ps[0], q))
          return false;
      if (minus(at(*ps[1], q), at(*ps[0], q)) !=
          minus(at(*ps[3], q), at(*ps[2], q)))
        return false;
    }
    return true;
  };
  Location loc = step_.getLoc();
  for (Periodic outer : findPeriodic(
           loops.size(), 3, sameLoop,
           [](size_t, size_t period, size_t) { return period == 1; })) {
    const Periodic &p = loops[outer.start];
    bool overK = outer.count > 1;
    // Per statement of the loop's body: its advance per k.
    auto kStep = [&](size_t q) -> Pair {
      return overK ? minus(at(loops[outer.start + 1], q), at(p, q))
                   : Pair{0, 0};
    };
    Fmt f;
    if (p.count == 1) {
      for (size_t q = 0; q < p.period; ++q)
        stmt(f, at(p, q).first, {}, at(p, q).second, {}, "");
      f.text.pop_back(); // The last newline: the verbatim is one line.
      f.emit(b, loc);
      continue;
    }
    StringRef in = overK ? "  " : "";
    if (overK)
      f << "for (int k = 0; k < " << std::to_string(outer.count)
        << "; ++k) {\n";
    f << in << "for (int i = 0; i < " << std::to_string(p.count)
      << "; ++i) {\n";
    auto sameRow = [&](size_t a, size_t bb, size_t c, size_t d) {
      for (size_t x : {bb, c, d})
        if (stepOf(p, x) != stepOf(p, a) || kStep(x) != kStep(a))
          return false;
      return minus(at(p, bb), at(p, a)) == minus(at(p, d), at(p, c));
    };
    for (Periodic r : findPeriodic(p.period, kMinInnerRun, sameRow, always)) {
      std::string indent = in.str() + (r.count > 1 ? "    " : "  ");
      if (r.count > 1)
        f << in << "  for (int j = 0; j < " << std::to_string(r.count)
          << "; ++j) {\n";
      for (size_t q = r.start; q < r.start + r.period; ++q) {
        Pair j = r.count > 1 ? minus(at(p, q + r.period), at(p, q)) : Pair{};
        auto [ik, sk] = kStep(q);
        auto [ii, si] = stepOf(p, q);
        stmt(f, at(p, q).first, {{ik, "k"}, {ii, "i"}, {j.first, "j"}},
             at(p, q).second, {{sk, "k"}, {si, "i"}, {j.second, "j"}}, indent);
      }
      if (r.count > 1)
        f << in << "  }\n";
    }
    f << in << "}";
    if (overK)
      f << "\n}";
    f.emit(b, loc);
  }
}

void CallLoopBuilder::run() {
  if (step_.getNumArguments() != 1)
    return;
  ctx_ = step_.getArgument(0);
  findLoops();
  if (loops_.empty() || !validate())
    return;
  Block &body = step_.getBody().front();
  DenseSet<Operation *> inLoop;
  for (const Loop &loop : loops_)
    for (CallBlock *block : loop.blocks)
      inLoop.insert(block->ops.begin(), block->ops.end());

  // The slotted values in the body's order.
  SmallVector<Value> slotted;
  for (Operation &op : body)
    for (Value r : op.getResults())
      if (slots_.of.count(r))
        slotted.push_back(r);

  OpBuilder b(step_.getContext());
  b.setInsertionPointToStart(&body);
  Fmt decl;
  decl << "std::vector<weft::rt::Tensor> " << kSlots << "("
       << std::to_string(slots_.next) << ");";
  decl.emit(b, step_.getLoc());

  // Releases after the last output: the slots' go with the array.
  Operation *lastOutput = nullptr;
  for (Operation &op : body)
    if (callTo(&op, kOutputCallee))
      lastOutput = &op;

  SmallVector<std::pair<int64_t, int64_t>> inputs, outputs;
  Operation *firstOutput = nullptr;
  SmallVector<Operation *> erase;
  SetVector<Operation *> users;
  // `weft_slots[k] = std::move(v);` right after v's definition.
  auto moveIntoSlot = [&](Value v, Operation *def, int64_t slot) {
    b.setInsertionPointAfter(def);
    Fmt f;
    f << slotRef(slot) << " = std::move(";
    f.value(v) << ");";
    f.emit(b, def->getLoc());
  };
  for (Value v : slotted) {
    int64_t slot = slots_.of.lookup(v);
    Operation *def = v.getDefiningOp();
    if (inLoop.contains(def)) {
      // Written by its loop.
    } else if (auto in = callTo(def, kInputCallee)) {
      std::optional<int64_t> index =
          in.getArgsAttr() && in.getArgsAttr().size() == 2
              ? literalInt(in.getArgsAttr()[1])
              : std::nullopt;
      if (index) {
        inputs.push_back({*index, slot});
        erase.push_back(def);
      } else {
        moveIntoSlot(v, def, slot);
      }
    } else {
      moveIntoSlot(v, def, slot);
    }
    for (Operation *user : v.getUsers()) {
      if (inLoop.contains(user) || isa<emitc::VerbatimOp>(user))
        continue;
      if (callTo(user, kReleaseCallee)) {
        bool atEnd = lastOutput && lastOutput->isBeforeInBlock(user);
        if (!atEnd) {
          b.setInsertionPoint(user);
          Fmt f;
          f << kReleaseCallee << "(" << slotRef(slot) << ");";
          f.emit(b, user->getLoc());
        }
        erase.push_back(user);
      } else if (auto out = callTo(user, kOutputCallee)) {
        std::optional<int64_t> index =
            out.getArgsAttr() && out.getArgsAttr().size() == 3
                ? literalInt(out.getArgsAttr()[1])
                : std::nullopt;
        if (!index) {
          users.insert(user);
          continue;
        }
        outputs.push_back({*index, slot});
        if (!firstOutput || user->isBeforeInBlock(firstOutput))
          firstOutput = user;
        erase.push_back(user);
      } else {
        users.insert(user);
      }
    }
  }
  for (const Loop &loop : loops_)
    emitLoop(loop, b);
  for (Operation *user : users)
    if (!llvm::is_contained(erase, user))
      rewriteUse(cast<emitc::CallOpaqueOp>(user));

  llvm::sort(inputs);
  b.setInsertionPointAfter(&body.front()); // After the declaration.
  emitRanges(b, "input", inputs);
  // Outputs in the order of their indices, where the first was.
  llvm::sort(outputs);
  if (firstOutput) {
    b.setInsertionPoint(firstOutput);
    emitRanges(b, "output", outputs);
  }

  // The loops' blocks, last first (a block's values are used only after).
  SmallVector<Operation *> dead(erase.begin(), erase.end());
  for (const Loop &loop : loops_)
    for (CallBlock *block : loop.blocks)
      dead.append(block->ops.begin(), block->ops.end());
  llvm::sort(dead,
             [](Operation *a, Operation *b) { return b->isBeforeInBlock(a); });
  dead.erase(std::unique(dead.begin(), dead.end()), dead.end());
  for (Operation *op : dead) {
    op->dropAllUses();
    op->erase();
  }
}

} // namespace

void lowering::formCallLoops(emitc::FuncOp step) {
  CallLoopBuilder(step).run();
}
