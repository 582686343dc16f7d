"""What the pipeline generators share (make_pipeline_mlp.py,
make_pipeline_1f1b.py, make_pipeline_lm.py; docs/pipeline.md): tensor
types with layouts, a writer of weft ops, the masks of the first and the
last stage, a tick's input to the rolling buffer, and the loss sum masked
to the last stage.

Every activation buffer is [S, 1, ...] over the letters "sj" + the
micro-batch's own letters: s the stage (split over "stage"), j the
micro-batch's size-1 dimension (kept: a reshape that drops it cannot split
the merged rows over "data").
"""


def ty(shape, dims, elem="f32"):
    """An `elem` tensor type of `shape`, split over the mesh axes `dims`
    (one axis name or None per dimension) on @mesh."""
    t = "x".join(str(n) for n in shape)
    t = (t + "x" + elem) if shape else elem
    if not any(dims):
        return "tensor<%s>" % t
    sh = ", ".join("{%s}" % ("\"%s\"" % x if x else "") for x in dims)
    return "tensor<%s, #weft.sharding<@mesh, [%s]>>" % (t, sh)


def mlir_float(x):
    """`x` as an MLIR float literal: Python's repr, with the ".0" MLIR needs
    before an exponent (1e-05 -> 1.0e-05)."""
    r = repr(float(x))
    if "e" in r and "." not in r:
        r = r.replace("e", ".0e")
    return r


class Writer:
    """Collects the program's lines."""

    def __init__(self):
        self.lines = []

    def emit(self, line):
        self.lines.append(line)

    def mapop(self, name, kind, spec, ops, tys, rty, scalar=None):
        attr = (" {scalar = %s : f64}" % mlir_float(scalar)
                if scalar is not None else "")
        self.emit("  %%%s = weft.map %s \"%s\" (%s)%s : (%s) -> %s" %
                  (name, kind, spec, ", ".join(ops), attr, ", ".join(tys),
                   rty))
        return "%" + name

    def einsum(self, name, spec, ops, tys, rty):
        self.emit("  %%%s = weft.einsum \"%s\" (%s) : (%s) -> %s" %
                  (name, spec, ", ".join(ops), ", ".join(tys), rty))
        return "%" + name

    def reduce(self, name, kind, spec, op, oty, rty):
        self.emit("  %%%s = weft.reduce %s \"%s\" (%s) : (%s) -> %s" %
                  (name, kind, spec, op, oty, rty))
        return "%" + name

    def write(self, path):
        with open(path, "w") as f:
            f.write("\n".join(self.lines) + "\n")


def stage_masks(w, S, vec):
    """%first and %last: 0/1 masks over the stage positions (from
    weft.iota), 1 at stage 0 and at stage S - 1."""
    w.emit("  %%pos = weft.iota : %s" % vec)
    w.mapop("npos", "neg", "s->s", ["%pos"], [vec], vec)
    w.mapop("f0", "shift", "s->s", ["%npos"], [vec], vec, 0.5)
    w.mapop("first", "step", "s->s", ["%f0"], [vec], vec)
    w.mapop("l0", "shift", "s->s", ["%pos"], [vec], vec, -(S - 1.5))
    w.mapop("last", "step", "s->s", ["%l0"], [vec], vec)


def tick_input(w, t, m, prev, src, src_ty, one, act, vec, letters):
    """Tick t's input buffer: the previous tick's buffer `prev` moved one
    stage on (weft.shift; None at tick 0) plus micro-batch t of `src`
    ([m, ...] of type `src_ty`, its slice of type `one`) in stage 0's slot
    (t < m); `vec` is the masks' type. `letters` are a micro-batch's
    letters after j ("bd" for [1, b, d]). Returns the buffer's name."""
    inj = None
    if t < m:
        w.emit("  %%xs%d = weft.slice %s dim 0 start %d : %s -> %s" %
               (t, src, t, src_ty, one))
        inj = w.mapop("inj%d" % t, "mul", "s,j%s->sj%s" % (letters, letters),
                      ["%first", "%%xs%d" % t], [vec, one], act)
    if prev is None:
        return inj
    w.emit("  %%sh%d = weft.shift %s dim 0 by 1 : %s -> %s" %
           (t, prev, act, act))
    cur = "%%sh%d" % t
    if inj:
        spec = "sj%s,sj%s->sj%s" % (letters, letters, letters)
        cur = w.mapop("in%d" % t, "add", spec, [cur, inj], [act, act], act)
    return cur


def add_loss(w, t, acc, term, term_ty, vec, letters, sb):
    """Adds the last stage's slot of the per-slot loss `term` (letters
    "sj" + `letters`, reduced to [S, b] (type `sb`) by an einsum with
    %last) to the running sum `acc` (None at first). Returns the sum."""
    w.einsum("lt%d" % t, "s,sj%s->sb" % letters, ["%last", term],
             [vec, term_ty], sb)
    if acc is None:
        return "%%lt%d" % t
    return w.mapop("acc%d" % t, "add", "sb,sb->sb", [acc, "%%lt%d" % t],
                   [sb, sb], sb)


def finish_loss(w, acc, sb, scale):
    """%loss = `scale` times the sum of `acc` over [S, b]."""
    w.reduce("sum", "sum", "sb->", acc, sb, "tensor<f32>")
    w.mapop("loss", "scale", "->", ["%sum"], ["tensor<f32>"], "tensor<f32>",
            scale)


def stage_onehots(w, S, vec):
    """%oh0 .. %oh<S-1>: 0/1 masks over the stage positions, 1 at stage s
    alone (1F1B's selection of each stage's saved input)."""
    for s in range(S):
        w.mapop("ge%d" % s, "shift", "s->s", ["%pos"], [vec], vec, -(s - 0.5))
        w.mapop("a%d" % s, "step", "s->s", ["%%ge%d" % s], [vec], vec)
        w.mapop("le%d" % s, "shift", "s->s", ["%npos"], [vec], vec, s + 0.5)
        w.mapop("b%d" % s, "step", "s->s", ["%%le%d" % s], [vec], vec)
        w.mapop("oh%d" % s, "mul", "s,s->s", ["%%a%d" % s, "%%b%d" % s],
                [vec, vec], vec)


def saved_input(w, t, S, m, ins, act, vec, letters):
    """1F1B's saved input of tick t's backward half: the sum over the
    stages s whose backward micro-batch t - 2(S-1) + s lies in [0, m) of
    %oh<s> times `ins`[t - 2(S-1-s)] (stage s's own input of that
    micro-batch, from the tick that forwarded it). Returns its name."""
    spec = "sj%s" % letters
    saved = None
    for s in range(S):
        jb = t - 2 * (S - 1) + s
        if not 0 <= jb < m:
            continue
        src = ins[t - 2 * (S - 1 - s)]
        sv = w.mapop("sv%d_%d" % (t, s), "mul", "s,%s->%s" % (spec, spec),
                     ["%%oh%d" % s, src], [vec, act], act)
        if saved is None:
            saved = sv
        else:
            saved = w.mapop("sa%d_%d" % (t, s), "add", "%s,%s->%s" %
                            (spec, spec, spec), [saved, sv], [act, act], act)
    return saved


def add_grad(w, name, acc, new, spec, gty):
    """`acc` + `new` (a gradient of type `gty` accumulated over ticks, its
    letters `spec`) as %`name`; `new` itself when `acc` is None."""
    if acc is None:
        return new
    return w.mapop(name, "add", "%s,%s->%s" % (spec, spec, spec), [acc, new],
                   [gty, gty], gty)


def stage_layer_types(S, b, d, per, tp):
    """(weight type, result type) of each of a stage's `per` layers, in
    order (layer k = 1..per), for the stacked [S, d, d] weights and the
    [S, 1, b, d] activation slots (rows split over "data"). Without tensor
    parallelism every weight is split over "stage" only. With it (`tp`),
    Megatron pairs: layer k = 1, 3, ... has its output features split over
    "model" (its activations stay split), layer k + 1 its input features
    (its result is a partial sum, whole once all-reduced over "model"); an
    unpaired last layer is column split with its result gathered."""
    act = ty([S, 1, b, d], ["stage", None, "data", None])
    if not tp:
        w = ty([S, d, d], ["stage", None, None])
        return [(w, act)] * per
    w_col = ty([S, d, d], ["stage", None, "model"])
    w_row = ty([S, d, d], ["stage", "model", None])
    act_split = ty([S, 1, b, d], ["stage", None, "data", "model"])
    return [(w_col, act_split if k < per else act) if k % 2 == 1 else
            (w_row, act) for k in range(1, per + 1)]


def mesh_line(S, data, model):
    """The weft.mesh line: ["stage", "data"], plus "model" when model > 1
    (a program without tensor parallelism has no "model" axis)."""
    if model > 1:
        return 'weft.mesh @mesh ["stage" = %d, "data" = %d, "model" = %d]' % (
            S, data, model)
    return 'weft.mesh @mesh ["stage" = %d, "data" = %d]' % (S, data)
