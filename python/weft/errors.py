"""Errors of the weft front end, and the user's source location.

Every op the tracer emits carries the location of the user's call site, the
first stack frame outside this package; trace-time errors name the same
place, so a mistake points at the user's line, never at weft's internals.
"""

import os
import sys

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


class Location:
    """A source position: file, 1-based line and column."""

    __slots__ = ("file", "line", "col")

    def __init__(self, file, line, col=1):
        self.file = file
        self.line = line
        self.col = col

    def mlir(self):
        escaped = self.file.replace("\\", "\\\\").replace('"', '\\"')
        return 'loc("%s":%d:%d)' % (escaped, self.line, self.col)

    def __str__(self):
        return "%s:%d:%d" % (self.file, self.line, self.col)

    def __repr__(self):
        return "Location(%r, %d, %d)" % (self.file, self.line, self.col)


def _inside_package(filename):
    try:
        path = os.path.abspath(filename)
    except (TypeError, ValueError):
        return False
    # weft.nn's modules are model code: their ops carry their own lines
    # (modules.py's Attention.forward, ...), which say more than the one
    # user line `model(tokens)` that all of them would otherwise share.
    return os.path.dirname(path) == _PACKAGE_DIR and \
        os.path.basename(path) != "modules.py"


def user_location(skip=0):
    """The location of the innermost frame outside the weft package, at
    or above the caller's caller's ... (`skip` frames up from the caller)."""
    frame = sys._getframe(1 + skip)
    while frame is not None and _inside_package(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None:
        return Location("<unknown>", 0, 0)
    line = frame.f_lineno
    col = 1
    # Python 3.11+ knows the column of the instruction being executed.
    positions = getattr(frame.f_code, "co_positions", None)
    if positions is not None:
        index = frame.f_lasti // 2
        for i, pos in enumerate(positions()):
            if i == index:
                if pos[0] is not None:
                    line = pos[0]
                if pos[2] is not None:
                    col = pos[2] + 1
                break
    return Location(frame.f_code.co_filename, line, col)


class WeftError(Exception):
    """A mistake in a traced program, found at trace time.

    `location` is the user's call site; the message starts with it, as
    compilers write diagnostics ("model.py:12:5: error: ...").
    """

    def __init__(self, message, location=None):
        if location is None:
            location = user_location()
        self.location = location
        self.bare_message = message
        super().__init__("%s: error: %s" % (location, message))


class WeftcError(Exception):
    """weftc (or another weft tool) rejected a program; the message is its
    diagnostics, which name the Python file and line of the offending op."""

    def __init__(self, command, returncode, output):
        self.command = command
        self.returncode = returncode
        self.output = output
        super().__init__("%s failed (exit status %d):\n%s" %
                         (os.path.basename(command[0]), returncode, output))
