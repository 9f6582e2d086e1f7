#!/usr/bin/env python3
"""Generate pyrandom_vectors.json, the reference outputs of CPython's random.Random.

Run once with CPython 3.11 (python3 gen_vectors.py > pyrandom_vectors.json) and commit the output:
the Go tests read the JSON and never need python3. Every method starts from a fresh Random(seed);
the "mixed" list interleaves all four methods on one generator, so a port that gets one method's
consumption of the stream wrong fails there even if each method alone looks right.
Integers are written as strings so that values above 2**53 survive any JSON reader; floats are
written as repr(), which round-trips exactly.
"""
import json
import math
import random
import sys

SEEDS = [0, 1, 13, 17, 31, 29, 37, 2**32 - 1, 2**32, 2**32 + 5, 2**53 + 1, 2**63 - 1]
BITS = [1, 5, 31, 32, 33, 53, 63, 64]
RANGES = [(1, 1), (1, 2), (1, 2000), (1, 20000), (5, 10), (0, 2**31), (1, 10_000_000), (0, 2**62), (-7, 7)]
LAMBDAS = [1 / 2.0, 1 / 40.0, 1.0, 3.5]
COUNT = 40


def one(seed):
    out = {"seed": str(seed)}
    r = random.Random(seed)
    out["random"] = [r.random() for _ in range(COUNT)]
    out["getrandbits"] = []
    for k in BITS:
        r = random.Random(seed)
        out["getrandbits"].append({"k": k, "values": [str(r.getrandbits(k)) for _ in range(COUNT)]})
    out["randint"] = []
    for a, b in RANGES:
        r = random.Random(seed)
        out["randint"].append({"a": str(a), "b": str(b), "values": [str(r.randint(a, b)) for _ in range(COUNT)]})
    out["expovariate"] = []
    for lam in LAMBDAS:
        r = random.Random(seed)
        out["expovariate"].append({"lambd": lam, "values": [r.expovariate(lam) for _ in range(COUNT)]})
    r = random.Random(seed)
    mixed = []
    for i in range(COUNT):
        op = i % 4
        if op == 0:
            mixed.append({"op": "random", "value": repr(r.random())})
        elif op == 1:
            mixed.append({"op": "getrandbits", "k": 7, "value": str(r.getrandbits(7))})
        elif op == 2:
            mixed.append({"op": "randint", "a": "1", "b": "2000", "value": str(r.randint(1, 2000))})
        else:
            mixed.append({"op": "expovariate", "lambd": 0.5, "value": repr(r.expovariate(0.5))})
    out["mixed"] = mixed
    return out


def logs():
    """math.log at the arguments expovariate gives it (1 - random()), plus edge cases, as float.hex."""
    r = random.Random(5)
    xs = [1.0, 0.5, 2.0 ** -53, 1.0 - 2.0 ** -53, 1.0 - 2.0 ** -40, 0.75, 0.99609375, 0.9921875]
    xs += [1.0 - r.random() for _ in range(3000)]
    return [[x.hex(), math.log(x).hex()] for x in xs]


def main():
    doc = {"python": sys.version.split()[0], "count": COUNT, "seeds": [one(s) for s in SEEDS], "log": logs()}
    json.dump(doc, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
