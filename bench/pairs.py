#!/usr/bin/env python3
"""Times commands side by side: each round runs every command once, in turn, so that the
machine's load and state weigh on all of them alike (hyperfine runs each command's runs
back to back; the ratios differ, bench/README says by how much). Prints, for each
command, the median wall time and the median cpu time (user + sys, from wait4) over the
rounds, and both as a multiple of the first command's.

    bench/pairs.py [--runs N] COMMAND...

Each COMMAND is one string, split as a shell would split it (no shell runs it); its output
goes to /dev/null.
"""

import argparse
import os
import shlex
import statistics
import time

WARMUP = 3


def run(argv):
    """Runs argv once; returns its (wall, cpu) seconds."""
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        try:
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {shlex.join(argv)}")
    return wall, usage.ru_utime + usage.ru_stime


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("commands", nargs="+")
    args = parser.parse_args()
    argvs = [shlex.split(c) for c in args.commands]
    times = [[] for _ in argvs]
    for round_ in range(WARMUP + args.runs):
        for argv, kept in zip(argvs, times):
            measured = run(argv)
            if round_ >= WARMUP:
                kept.append(measured)
    medians = [
        (statistics.median(w for w, _ in t), statistics.median(c for _, c in t)) for t in times
    ]
    base_wall, base_cpu = medians[0]
    for command, (wall, cpu) in zip(args.commands, medians):
        print(
            f"{wall * 1e3:8.2f} ms wall ({wall / base_wall:4.2f} x)"
            f"  {cpu * 1e3:8.2f} ms cpu ({cpu / base_cpu:4.2f} x)  {command}"
        )


if __name__ == "__main__":
    main()
