#!/usr/bin/env python3
"""Python's repr() of JSON-like values, as the golden for ctxray's src/pyrepr.rs.

Usage: tools/oracle/pyrepr_golden.py [--out fixtures/pyrepr/golden.json]

Every record of every session file in ../shared/samples is loaded with json.loads; repr() of
each whole record is stored as [length in code points, FNV-1a 64 of its UTF-8 bytes] — the
texts of the samples are not copied. A set of hard values is stored whole.
"""
import argparse, json, math, os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SAMPLES = os.path.join(ROOT, "..", "shared", "samples")

HARD = [
    "it's", 'say "hi"', "both ' and \"", "tab\tnew\nline\r\\", "\x00\x1f\x7f\x80\x9f",
    "café naïve", "\xa0nbsp", "\u200bzero width", "\u2028\u2029", "\u3000ideographic space",
    "日本語", "emoji 😀👩‍👩‍👧", "\ue000private", "\ufeffbom", "\U000e0001tag", "\ufffe\uffff",
    {"path": "src/main.rs", "n": 3, "ok": True, "none": None, "f": 1.5, "l": [1, "a", [], {}]},
    [0.1, 1.0, 1e16, 1.5e-05, 0.0001, 123456789.125, -2.5e22, 1e-300, 3.141592653589793, 100.0],
    {"nested": {"deep": ["x", {"y": "it's \"q\""}]}}, -0.0, 12345678901234567890,
]

def fnv(s):
    h = 0xcbf29ce484222325
    for b in s.encode("utf-8", "surrogatepass"):
        h ^= b
        h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h

def walk(v, out):
    r = repr(v)
    out.append([len(r), fnv(r)])

def records(path):
    text = open(path, encoding="utf-8-sig").read()
    try:
        return [json.loads(text)]
    except ValueError:
        out = []
        for line in text.split("\n"):
            line = line.strip()
            if line:
                try:
                    out.append(json.loads(line))
                except ValueError:
                    pass
        return out

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, "fixtures", "pyrepr", "golden.json"))
    args = ap.parse_args()
    golden = {"samples": {}, "hard": []}
    for root, _, names in os.walk(SAMPLES):
        for n in sorted(names):
            if n.endswith((".json", ".jsonl")):
                p = os.path.join(root, n)
                out = []
                for r in records(p):
                    walk(r, out)
                golden["samples"][os.path.relpath(p, SAMPLES).replace(os.sep, "/")] = out
    for v in HARD:
        golden["hard"].append({"value": v, "repr": repr(v)})
    with open(args.out, "w") as f:
        json.dump(golden, f, separators=(",", ":"))
        f.write("\n")

main()
