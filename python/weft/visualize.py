"""Which device holds which block of a tensor, as text (the counterpart of
jax.debug.visualize_array_sharding).

Ranks are laid out row-major on the mesh (the last axis fastest); a
dimension split over axes (a, b) is cut into size(a) * size(b) blocks,
block index coord(a) * size(b) + coord(b), each ceil(n / blocks) long (the
last ones shorter or empty when the axes do not divide n, as weft pads).
"""

from .mesh import Mesh, make_sharding


def _ranges(n, blocks):
    size = -(-n // blocks)
    return [(min(i * size, n), min((i + 1) * size, n))
            for i in range(blocks)]


def sharding_blocks(shape, spec, mesh):
    """{block index tuple: [ranks]} for every block of the tensor."""
    sharding = make_sharding(spec, shape, mesh, "visualize_sharding")
    holders = {}
    for rank in range(mesh.devices):
        coords = mesh.coords(rank)
        key = tuple(sharding.block_index(d, coords)
                    for d in range(len(shape)))
        holders.setdefault(key, []).append(rank)
    return sharding, holders


def _label(ranks, ranges):
    devs = ("device %d" % ranks[0] if len(ranks) == 1 else
            "devices %s" % ",".join(str(r) for r in ranks))
    rng = "[%s]" % ", ".join("%d:%d" % r for r in ranges)
    return devs, rng


# One fill per device set (a block held by the same devices has the same
# colour, as JAX's rich-text view colours them).
_COLOURS = ("#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3",
            "#fdb462", "#b3de69", "#fccde5", "#d9d9d9", "#bc80bd",
            "#ccebc5", "#ffed6f")


def _escape(text):
    return (text.replace("&", "&amp;").replace("<", "&lt;")
            .replace(">", "&gt;"))


def sharding_svg(shape, spec, mesh, cell=(160, 56)):
    """The layout of a rank-1 or rank-2 tensor as an SVG picture: one
    rectangle per block, sized in proportion to the block, labelled with
    its devices and index range. Returns the SVG text."""
    shape = tuple(shape)
    if len(shape) not in (1, 2):
        raise ValueError("sharding_svg draws rank-1 and rank-2 tensors; "
                         "this one has rank %d (visualize_sharding lists "
                         "its blocks as text)" % len(shape))
    sharding, holders = sharding_blocks(shape, spec, mesh)
    ranges = [_ranges(n, sharding.blocks(d)) for d, n in enumerate(shape)]
    rows = sharding.blocks(0) if len(shape) == 2 else 1
    cols = sharding.blocks(len(shape) - 1)
    width, height = cell[0] * cols, cell[1] * rows
    colours = {}
    title = "%s %s on %r" % ("x".join(str(s) for s in shape), sharding, mesh)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="monospace" font-size="12">' % (width + 2,
                                                        height + 24),
           '<text x="1" y="14">%s</text>' % _escape(title)]
    # Block sizes in proportion: ceil-sized blocks, the last ones shorter.
    col_n = [hi - lo for lo, hi in ranges[-1]]
    row_n = [hi - lo for lo, hi in ranges[0]] if len(shape) == 2 else [1]
    xs = [0]
    for n in col_n:
        xs.append(xs[-1] + width * n / max(sum(col_n), 1))
    ys = [0]
    for n in row_n:
        ys.append(ys[-1] + height * n / max(sum(row_n), 1))
    for i in range(rows):
        for j in range(cols):
            key = (i, j) if len(shape) == 2 else (j,)
            ranks = tuple(holders[key])
            fill = colours.setdefault(ranks,
                                      _COLOURS[len(colours) % len(_COLOURS)])
            rr = ([ranges[0][i], ranges[1][j]] if len(shape) == 2 else
                  [ranges[0][j]])
            devs, rng = _label(list(ranks), rr)
            x, y = 1 + xs[j], 20 + ys[i]
            w, h = xs[j + 1] - xs[j], ys[i + 1] - ys[i]
            out.append('<g><rect x="%.1f" y="%.1f" width="%.1f" '
                       'height="%.1f" fill="%s" stroke="black"/>'
                       '<text x="%.1f" y="%.1f" text-anchor="middle">%s'
                       '</text><text x="%.1f" y="%.1f" '
                       'text-anchor="middle">%s</text></g>' % (
                           x, y, w, h, fill, x + w / 2, y + h / 2 - 2,
                           _escape(devs), x + w / 2, y + h / 2 + 12,
                           _escape(rng)))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _write_atomically(path, text):
    import os
    import tempfile
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def visualize_sharding(shape, spec, mesh, file=None, print_it=True,
                       svg=None):
    """Prints (and returns) the layout of a tensor of `shape` laid out as
    `spec` (a PartitionSpec) on `mesh`: for a rank-1 or rank-2 tensor a grid
    of its blocks, each naming the devices holding it and its index range;
    for other ranks one line per block. `svg=PATH` also writes the picture
    (sharding_svg; rank 1 and 2 only)."""
    if not isinstance(mesh, Mesh):
        raise TypeError("visualize_sharding: mesh must be a weft.Mesh")
    shape = tuple(shape)
    sharding, holders = sharding_blocks(shape, spec, mesh)
    ranges = [_ranges(n, sharding.blocks(d)) for d, n in enumerate(shape)]
    lines = ["%s %s on %r" % ("x".join(str(s) for s in shape) or "scalar",
                              sharding, mesh)]
    if len(shape) in (1, 2):
        rows = sharding.blocks(0) if len(shape) == 2 else 1
        cols = sharding.blocks(len(shape) - 1)
        cells = []
        for i in range(rows):
            row = []
            for j in range(cols):
                key = (i, j) if len(shape) == 2 else (j,)
                rr = ([ranges[0][i], ranges[1][j]] if len(shape) == 2 else
                      [ranges[0][j]])
                row.append(_label(holders[key], rr))
            cells.append(row)
        width = max(max(len(a), len(b)) for row in cells for a, b in row)
        sep = "+" + "+".join("-" * (width + 2) for _ in range(cols)) + "+"
        lines.append(sep)
        for row in cells:
            lines.append("|" + "|".join(" %-*s " % (width, a)
                                         for a, _ in row) + "|")
            lines.append("|" + "|".join(" %-*s " % (width, b)
                                         for _, b in row) + "|")
            lines.append(sep)
    else:
        for key in sorted(holders):
            devs, rng = _label(holders[key], [ranges[d][k]
                                              for d, k in enumerate(key)])
            lines.append("%s: %s" % (rng, devs))
    text = "\n".join(lines)
    if svg is not None:
        _write_atomically(svg, sharding_svg(shape, spec, mesh))
    if print_it:
        print(text, file=file)
    return text
