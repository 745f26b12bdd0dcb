#!/usr/bin/env python3
"""Lines up one turn's stages across processes from a HEARTH_PROBE file (see README.md here).

Each line is "<CLOCK_MONOTONIC ns> <pid> <stage>". A turn starts at the benchmark's "B0" mark;
for every later stage the first occurrence in that turn is taken, relative to B0, and the
median over all turns is printed, separately for turns sent at the leader and at the joiner.
[L] is the leader's process, [J] the joiner's turn service; other processes show their pid.
"""
import collections
import statistics
import sys


def main(path, warmup=50):
    events = []
    for line in open(path):
        stamp, pid, stage = line.rstrip("\n").split(" ", 2)
        events.append((int(stamp), int(pid), stage))
    events.sort()
    turns, current = [], None
    for event in events:
        if event[2].startswith("B0"):
            if current:
                turns.append(current)
            current = [event]
        elif current is not None:
            current.append(event)
    if current:
        turns.append(current)
    turns = turns[warmup:]
    leader = collections.Counter(p for turn in turns for _, p, s in turn if s.startswith("T2")).most_common(1)[0][0]
    groups = collections.defaultdict(lambda: collections.defaultdict(list))
    for turn in turns:
        start = turn[0][0]
        commands = [p for _, p, s in turn if s.startswith("C1 cmd answer start turn")]
        kind = "done at the leader" if commands and commands[0] == leader else "done at the joiner"
        followers = {p for _, p, s in turn if s.startswith("F5")}
        seen = set()
        for stamp, pid, stage in turn[1:]:
            role = "L" if pid == leader else "J" if pid in followers else str(pid)
            key = stage if stage.startswith("S14") else f"{stage} [{role}]"
            if key in seen:
                continue
            seen.add(key)
            groups[kind][key].append((stamp - start) / 1000)
    for kind, stages in groups.items():
        print(f"== {kind} ({len(turns)} turns in all)")
        for key, values in sorted(stages.items(), key=lambda item: statistics.median(item[1])):
            if len(values) >= 0.3 * len(turns) / 2:
                print(f"  {statistics.median(values):8.1f} µs  n={len(values):5d}  {key}")


if __name__ == "__main__":
    main(sys.argv[1])
