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


def visualize_sharding(shape, spec, mesh, file=None, print_it=True):
    """Prints (and returns) the layout of a tensor of `shape` laid out as
    `spec` (a PartitionSpec) on `mesh`: for a rank-1 or rank-2 tensor a grid
    of its blocks, each naming the devices holding it and its index range;
    for other ranks one line per block."""
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
    if print_it:
        print(text, file=file)
    return text
