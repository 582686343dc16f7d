"""Running a compiled weft executable from Python: `Executable.run` returns
its outputs as numpy arrays, `Executable.train` streams the training
executable's `step T loss L` lines through a progress bar and returns the
loss curve (docs/python.md, "Running and training").

The executable is an MPI program; it is launched as
`mpirun -np N [launcher_args] EXE ...`, N the mesh's device count (read from
the executable's --help unless given). Inputs given as numpy arrays are
written to .npy files in a private temporary directory; outputs are read
back from the executable's --output-dir (written by rank 0, each file
published atomically).
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from .errors import WeftcError

_STEP = re.compile(r"^step (\d+) loss (\S+) lr (\S+) time (\S+) ms")
_RANKS = re.compile(r"^mesh .*: (\d+) rank\(s\)$", re.M)


def _default_launcher(ranks):
    """mpirun with the options a single host needs: more ranks than cores
    (--oversubscribe), root in a container (--allow-run-as-root), and the
    ob1 point-to-point layer, which starts fastest on one host."""
    args = ["mpirun", "-np", str(ranks)]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--allow-run-as-root")
    args += ["--oversubscribe", "--mca", "pml", "ob1"]
    return args


class TrainResult:
    """What `Executable.train` returns: `steps` and `losses` (the logged
    steps, in order), `outputs` (name -> numpy array, the final values of
    the program's outputs, when `outputs=True`) and the full `log`."""

    def __init__(self, steps, losses, outputs, log):
        self.steps = steps
        self.losses = losses
        self.outputs = outputs
        self.log = log

    def plot(self, path, title="loss", ylabel="loss"):
        """Writes the loss curve as an SVG picture (no plotting library
        needed; written atomically) and returns `path`."""
        from .visualize import _escape, _write_atomically
        if not self.losses:
            raise ValueError("no logged step to plot")
        w, h, m = 640, 360, 48
        x0, x1 = min(self.steps), max(self.steps)
        y0, y1 = min(self.losses), max(self.losses)
        if y1 == y0:
            y1 = y0 + 1
        if x1 == x0:
            x1 = x0 + 1

        def px(step, loss):
            return (m + (w - 2 * m) * (step - x0) / (x1 - x0),
                    h - m - (h - 2 * m) * (loss - y0) / (y1 - y0))

        points = " ".join("%.1f,%.1f" % px(s, v)
                          for s, v in zip(self.steps, self.losses))
        out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" '
               'height="%d" font-family="sans-serif" font-size="12">' % (w, h),
               '<text x="%d" y="20">%s</text>' % (m, _escape(title)),
               '<rect x="%d" y="%d" width="%d" height="%d" fill="none" '
               'stroke="black"/>' % (m, m, w - 2 * m, h - 2 * m),
               '<polyline fill="none" stroke="#1f77b4" stroke-width="1.5" '
               'points="%s"/>' % points,
               '<text x="%d" y="%d">%g</text>' % (4, m + 4, y1),
               '<text x="%d" y="%d">%g</text>' % (4, h - m + 4, y0),
               '<text x="%d" y="%d">step %d</text>' % (m, h - m + 18, x0),
               '<text x="%d" y="%d" text-anchor="end">step %d</text>' % (
                   w - m, h - m + 18, x1),
               '<text x="%d" y="%d" text-anchor="middle">%s</text>' % (
                   w // 2, h - 8, _escape(ylabel) + " by step"),
               "</svg>"]
        _write_atomically(path, "\n".join(out) + "\n")
        return path

    def __repr__(self):
        last = ("%g" % self.losses[-1]) if self.losses else "none"
        return "TrainResult(%d logged step(s), last loss %s)" % (
            len(self.steps), last)


class Executable:
    """A weft executable (what `weftc` or `Program.build` writes).

    `ranks`: the number of MPI ranks (default: the mesh's device count, from
    the executable's --help). `launcher`: the command before the executable
    (default `mpirun -np N ...` as above; a list). `env`: extra environment
    variables for the run (e.g. {"OPENBLAS_NUM_THREADS": "1"}).
    """

    def __init__(self, path, ranks=None, launcher=None, env=None):
        self.path = os.path.abspath(path)
        if not os.access(self.path, os.X_OK):
            raise FileNotFoundError("%s: not an executable" % self.path)
        self._help = None
        self.ranks = ranks if ranks is not None else self._mesh_ranks()
        self.launcher = (list(launcher) if launcher is not None else
                         _default_launcher(self.ranks))
        self.env = dict(env or {})

    def help(self):
        """The executable's --help text: its mesh, inputs and outputs."""
        if self._help is None:
            proc = subprocess.run([self.path, "--help"], capture_output=True,
                                  text=True)
            self._help = proc.stdout + proc.stderr
        return self._help

    def _mesh_ranks(self):
        m = _RANKS.search(self.help())
        if not m:
            raise ValueError("%s: no 'mesh ...: N rank(s)' line in its --help; "
                             "pass ranks=" % self.path)
        return int(m.group(1))

    # ------------------------------------------------------------------
    def _command(self, args):
        return self.launcher + [self.path] + list(args)

    def _environ(self):
        env = dict(os.environ)
        env.update(self.env)
        return env

    @staticmethod
    def _input_args(inputs, directory):
        """--input NAME=FILE for each input; arrays are saved to .npy."""
        import numpy as np
        args = []
        for name, value in (inputs or {}).items():
            if isinstance(value, (str, os.PathLike)):
                path = os.fspath(value)
            else:
                path = os.path.join(directory, "in-%s.npy" % name)
                np.save(path, np.asarray(value))
            args += ["--input", "%s=%s" % (name, path)]
        return args

    @staticmethod
    def _read_outputs(directory):
        import numpy as np
        return {f[:-4]: np.load(os.path.join(directory, f))
                for f in sorted(os.listdir(directory)) if f.endswith(".npy")}

    def run(self, inputs=None, random_inputs=None, args=()):
        """Runs the program once; returns {output name: numpy array}.

        `inputs`: name -> numpy array or .npy path (global arrays; every rank
        reads its block). `random_inputs`: a seed for the inputs not given
        (the executable's counter RNG). `args`: more executable options.
        """
        with tempfile.TemporaryDirectory(prefix="weft-run-") as d:
            out = os.path.join(d, "out")
            extra = self._input_args(inputs, d)
            if random_inputs is not None:
                extra += ["--random-inputs", str(int(random_inputs))]
            command = self._command(extra + ["--output-dir", out] +
                                    list(args))
            proc = subprocess.run(command, capture_output=True, text=True,
                                  env=self._environ())
            if proc.returncode != 0:
                raise WeftcError(command, proc.returncode,
                                 (proc.stderr + proc.stdout).strip())
            return self._read_outputs(out)

    def train(self, steps, inputs=None, tokens=None, lr=None, init=None,
              init_seed=None, save=None, load=None, log_every=1,
              outputs=False, progress=True, args=(), file=None):
        """Trains for `steps` steps; returns a TrainResult.

        `inputs`: name -> numpy array or .npy path (parameters and batches;
        a batch with a leading step dimension feeds one slice per step).
        `tokens`: a flat token file (uint16 by default; see the executable's
        --tokens). `init`: the executable's --init SPEC for parameters not
        given. `save`/`load`: checkpoint directories. `outputs=True` also
        returns the final outputs (the updated parameters among them).
        `progress`: a progress bar on `file` (default stderr) with the step,
        the loss and the step time; on a terminal it redraws one line,
        elsewhere it prints about 20 lines per run. A failed run raises
        WeftcError with the executable's diagnostics.
        """
        file = sys.stderr if file is None else file
        with tempfile.TemporaryDirectory(prefix="weft-train-") as d:
            extra = ["--steps", str(int(steps)), "--log-every",
                     str(int(log_every))]
            extra += self._input_args(inputs, d)
            if tokens is not None:
                extra += ["--tokens", os.fspath(tokens)]
            if lr is not None:
                extra += ["--lr", repr(float(lr))]
            if init is not None:
                extra += ["--init", init]
            if init_seed is not None:
                extra += ["--init-seed", str(int(init_seed))]
            if save is not None:
                extra += ["--save", os.fspath(save)]
            if load is not None:
                extra += ["--load", os.fspath(load)]
            out = os.path.join(d, "out")
            if outputs:
                extra += ["--output-dir", out]
            command = self._command(extra + list(args))
            bar = _Progress(int(steps), file) if progress else None
            log, done, losses = [], [], []
            proc = subprocess.Popen(command, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True,
                                    env=self._environ())
            for line in proc.stdout:
                log.append(line)
                m = _STEP.match(line)
                if m:
                    done.append(int(m.group(1)))
                    losses.append(float(m.group(2)))
                    if bar:
                        bar.update(done[-1], losses[-1], float(m.group(4)))
            err = proc.stderr.read()
            code = proc.wait()
            if bar:
                bar.close()
            if code != 0:
                raise WeftcError(command, code, (err + "".join(log)).strip())
            result_outputs = self._read_outputs(out) if outputs else None
            return TrainResult(done, losses, result_outputs,
                               "".join(log) + err)


class _Progress:
    """A text progress bar: `step 12/100 [####......] loss 3.21 1.2 ms/step`."""

    WIDTH = 24

    def __init__(self, total, file):
        self.total = max(total, 1)
        self.file = file
        self.tty = hasattr(file, "isatty") and file.isatty()
        self.every = max(1, self.total // 20)
        self.start = time.time()
        self.last = None

    def update(self, step, loss, ms):
        self.last = (step, loss, ms)
        if not self.tty and step % self.every and step != self.total:
            return
        filled = self.WIDTH * min(step, self.total) // self.total
        text = "step %d/%d [%s%s] loss %.6g %.3g ms/step" % (
            step, self.total, "#" * filled, "." * (self.WIDTH - filled), loss,
            ms)
        if self.tty:
            width = shutil.get_terminal_size((80, 20)).columns - 1
            self.file.write("\r" + text[:width])
        else:
            self.file.write(text + "\n")
        self.file.flush()

    def close(self):
        if self.tty and self.last is not None:
            self.file.write("\n")
        self.file.write("%d step(s) in %.1f s\n" %
                        (self.last[0] if self.last else 0,
                         time.time() - self.start))
        self.file.flush()
