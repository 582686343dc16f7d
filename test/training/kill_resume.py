#!/usr/bin/env python3
"""Kills a training job at random points and checks every resume.

A reference run trains STEPS steps uninterrupted and records each step's
loss line. Then a restartable job is started again and again on one
checkpoint root (--resume ROOT --save-every 1 --keep 3: the same command
line every time, loading ROOT's newest checkpoint once it has one), each time killed after a random delay (while
it trains or while it saves) in one of three ways: SIGKILL to a random rank,
SIGKILL to mpirun, SIGTERM to mpirun. After each kill:

  - every rank process must be gone within --grace seconds (a rank whose
    launcher died must not keep running);
  - every published checkpoint (ROOT/step-N) must match its manifest,
    checked here with Python's zlib and numpy, independently of the
    runtime's reader: a mismatch is a torn checkpoint;
  - the next start must resume after the newest published checkpoint
    (its first step line is that step + 1), and every loss line it prints
    must equal the reference run's line for that step, bit for bit.

A job that reaches the last step starts over from an empty root. Prints the
counts and exits 1 on any failure:

  kills: N, resumes matched: M of R, torn checkpoints accepted: 0, ...
"""
import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
import zlib

import numpy as np

STEP_LINE = re.compile(r"^step (\d+) loss (\S+) lr (\S+) time")


def children(pid):
    """The pids whose parent is `pid` (from /proc)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                out.append(int(entry))
        except (OSError, IndexError, ValueError):
            pass
    return out


def state(pid):
    """The process state letter of `pid` (None when it is gone)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def alive(pid):
    return state(pid) not in (None, "Z")


def rank_of(pid):
    """The MPI world rank of process `pid` (Open MPI's environment)."""
    try:
        with open("/proc/%d/environ" % pid, "rb") as f:
            for item in f.read().split(b"\0"):
                if item.startswith(b"OMPI_COMM_WORLD_RANK="):
                    return int(item.split(b"=", 1)[1])
    except OSError:
        pass
    return None


def step_lines(text):
    """{step: (loss, lr)} of the complete step lines in `text`."""
    lines = {}
    for line in text.splitlines(keepends=True):
        if not line.endswith("\n"):
            continue  # cut by the kill
        m = STEP_LINE.match(line)
        if m:
            lines[int(m.group(1))] = (m.group(2), m.group(3))
    return lines


def verify(directory):
    """'' when `directory` matches its manifest, else what does not."""
    try:
        with open(os.path.join(directory, "manifest.json")) as f:
            manifest = json.load(f)
        for t in manifest["tensors"]:
            path = os.path.join(directory, t["file"])
            data = open(path, "rb").read()
            if len(data) != t["bytes"] or zlib.crc32(data) != t["crc32"]:
                return "%s does not match the manifest" % path
            if list(np.load(path).shape) != t["shape"]:
                return "%s: shape differs from the manifest" % path
        step = int(np.load(os.path.join(directory, "step.npy")))
        if step != manifest["step"] or not directory.endswith(
                "step-%08d" % step):
            return "%s: step %d, manifest %d" % (directory, step,
                                                 manifest["step"])
    except (OSError, ValueError, KeyError) as e:
        return "%s: %s" % (directory, e)
    return ""


def published(root):
    if not os.path.isdir(root):
        return []
    return sorted(int(d[5:]) for d in os.listdir(root)
                  if re.fullmatch(r"step-\d+", d))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--exe", required=True)
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=300,
                    help="stop starting new kills after this long")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--min-resumes", type=int, default=1,
                    help="fail with fewer resumes checked against the "
                    "reference")
    ap.add_argument("--grace", type=float, default=10,
                    help="seconds every rank has to exit after a kill")
    ap.add_argument("--work", required=True)
    ap.add_argument("--mpirun", default="mpirun --allow-run-as-root "
                    "--oversubscribe --mca pml ob1")
    ap.add_argument("args", nargs=argparse.REMAINDER,
                    help="-- then the program's input flags")
    a = ap.parse_args()
    extra = a.args[1:] if a.args[:1] == ["--"] else a.args
    rng = random.Random(a.seed)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    mpirun = a.mpirun.split() + ["-np", str(a.np), a.exe]
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    failures = []

    # The reference: every step uninterrupted, saving as the job does; the
    # arrival times of its step lines give the length of a step with its
    # checkpoint.
    ref = subprocess.Popen(mpirun + extra + [
        "--steps", str(a.steps), "--save", os.path.join(a.work, "ref"),
        "--save-every", "1"], env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    arrivals, ref_out = [], []
    for line in ref.stdout:
        ref_out.append(line)
        if STEP_LINE.match(line):
            arrivals.append(time.time())
    ref_err = ref.stderr.read()
    if ref.wait() != 0:
        sys.exit("reference run failed:\n" + ref_err)
    reference = step_lines("".join(ref_out))
    if sorted(reference) != list(range(1, a.steps + 1)):
        sys.exit("reference run printed steps %s" % sorted(reference))
    gaps = sorted(b - c for b, c in zip(arrivals[1:], arrivals))
    step_seconds = max(0.01, gaps[len(gaps) // 2])

    root = os.path.join(a.work, "ck")
    print("reference: %d steps, %.3f s per step with its checkpoint" %
          (a.steps, step_seconds), flush=True)
    kills = resumes = matched = torn = completed = late_exits = 0
    partials_seen = 0
    how_counts = {}
    start = time.time()
    while kills < a.kills and time.time() - start < a.seconds:
        before = published(root)
        for s in before:
            problem = verify(os.path.join(root, "step-%08d" % s))
            if problem:
                torn += 1
                failures.append("published checkpoint torn: " + problem)
        resume_from = before[-1] if before else 0
        if resume_from >= a.steps:
            # Killed after its last checkpoint: the job is done.
            completed += 1
            shutil.rmtree(root, ignore_errors=True)
            continue
        args = extra + ["--resume", root, "--save-every", "1", "--keep", "3",
                        "--steps", str(a.steps - resume_from)]
        out = open(os.path.join(a.work, "run.log"), "w+")
        proc = subprocess.Popen(mpirun + args, env=env, stdout=out,
                                stderr=subprocess.STDOUT, text=True)
        # A random point of the run: after a random number of its steps
        # have printed, a random fraction of a step (with its save) later.
        target = rng.randrange(0, a.steps - resume_from)
        how = rng.choice(["rank-kill", "mpirun-kill", "mpirun-term"])
        ranks = []
        give_up = time.time() + 120
        while proc.poll() is None and time.time() < give_up:
            time.sleep(0.005)
            if not ranks:
                ranks = children(proc.pid)
            out.flush()
            with open(out.name) as f:
                if len(step_lines(f.read())) >= target:
                    break
        deadline = time.time() + rng.uniform(0, step_seconds)
        while time.time() < deadline and proc.poll() is None:
            time.sleep(0.002)
        killed = proc.poll() is None
        if killed:
            ranks = ranks or children(proc.pid)
            try:
                if how == "rank-kill" and ranks:
                    os.kill(rng.choice(ranks), signal.SIGKILL)
                elif how == "mpirun-term":
                    proc.send_signal(signal.SIGTERM)
                else:
                    how = "mpirun-kill"
                    proc.kill()
            except ProcessLookupError:
                how = "mpirun-kill"  # The rank had just exited.
                proc.kill()
            kills += 1
            how_counts[how] = how_counts.get(how, 0) + 1
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            failures.append("mpirun did not exit 60 s after %s" % how)
            proc.wait()
        gone_by = time.time() + a.grace
        while any(alive(p) for p in ranks) and time.time() < gone_by:
            time.sleep(0.05)
        left = [p for p in ranks if alive(p)]
        if left:
            late_exits += 1
            failures.append("rank process(es) %s alive %.0f s after %s" %
                            (left, a.grace, how))
            for p in left:
                try:
                    os.kill(p, signal.SIGKILL)
                except OSError:
                    pass
        out.seek(0)
        text = out.read()
        out.close()
        lines = step_lines(text)
        if before and lines:
            resumes += 1  # A resume with step lines to compare.
        if lines:
            first = min(lines)
            ok = first == resume_from + 1 and all(
                lines[t] == reference[t] for t in lines)
            if not ok:
                failures.append(
                    "start after step %d printed steps %s; differs from the "
                    "reference at %s" % (resume_from, sorted(lines), [
                        t for t in lines if lines[t] != reference.get(t)]))
            elif before:
                matched += 1
        elif before and not killed:
            failures.append("a resumed run printed no step:\n" + text)
        if os.path.isdir(root):
            partials_seen += sum(1 for d in os.listdir(root)
                                 if ".partial-" in d)
        if not killed:
            if proc.returncode != 0:
                failures.append("an unkilled run failed:\n" + text)
                break
            completed += 1
            shutil.rmtree(root, ignore_errors=True)
    print("kills: %d (%s), resumes checked: %d, resumes matched: %d, torn "
          "checkpoints accepted: %d, ranks alive after the grace: %d, "
          "completed runs: %d, staging dirs seen after kills: %d" %
          (kills, ", ".join("%s %d" % kv for kv in sorted(how_counts.items())),
           resumes, matched, torn, late_exits, completed, partials_seen))
    for f in failures[:10]:
        print("FAIL: " + f)
    if kills < a.kills:
        print("FAIL: only %d kills in %.0f s" % (kills, a.seconds))
        return 1
    if resumes < a.min_resumes:
        print("FAIL: only %d resume(s) checked" % resumes)
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
