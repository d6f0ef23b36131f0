#!/usr/bin/env python3
"""Prints a JSON scenario of N executors in a line: e0 -> e1 -> ... -> eN-2 pass-through, and
eN-1 an effect (the size measurements of docs/inputs.md, "Size of JSON scenarios").

    tools/bench/linear_chain.py N > linear-N.json
    /usr/bin/time -f '%e s %M KB' build/bin/stepfault replay linear-N.json --plan none
"""
import json
import sys


def chain(n):
    last = "e%d" % (n - 1)
    executors = [{"id": "e%d" % i, "kind": "pass-through"} for i in range(n - 1)]
    executors.append({"id": last, "kind": "effect", "key": "done-{id}", "emit": "Done"})
    edges = [{"kind": "direct", "from": "e%d" % i, "to": "e%d" % (i + 1)} for i in range(n - 1)]
    body = {"id": "x"}
    return {
        "name": "linear-%d" % n,
        "description": "a linear chain of %d executors ending in an effect" % n,
        "input": {"type": "Item", "body": body},
        "start": "e0",
        "executors": executors,
        "edges": edges,
        "outputs": [last],
        "expect": {
            "effects": [{"key": "done-x", "value": body}],
            "outputs": [{"executor": last, "type": "Done",
                         "body": {"effect_key": "done-x", "id": "x"}}],
        },
        "max_steps": max(1000, n + 10),
    }


def main():
    if len(sys.argv) != 2 or not sys.argv[1].isdigit() or int(sys.argv[1]) < 2:
        sys.exit("usage: linear_chain.py N  (N >= 2 executors)")
    json.dump(chain(int(sys.argv[1])), sys.stdout, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
