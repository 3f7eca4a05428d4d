#!/usr/bin/env python3
"""Counts tokens with Python tiktoken to make the golden that ctxray's counter is tested against.

Usage: tools/oracle/tiktoken_golden.py [--assets DIR] [--out fixtures/tokens/tiktoken_golden.json]

For every session file in ../shared/samples it walks each JSON record depth-first (object values
in order, array items in order) and counts every string leaf with `encode_ordinary`, for
o200k_base and cl100k_base; it also counts a set of hard texts kept in the golden itself. The
texts of the samples are not copied: the Rust test walks the same files in the same order.

tiktoken downloads its BPE files on first use; with no network, point --assets at a directory
holding o200k_base.tiktoken and cl100k_base.tiktoken (tiktoken-rs ships them; their sha256 is
checked by tiktoken against the official files) and they are placed in tiktoken's cache.
"""
import argparse, hashlib, json, os, shutil, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SAMPLES = os.path.join(ROOT, "..", "shared", "samples")
URLS = {
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
}
HARD_TEXTS = [
    "hello world", "", " ", "\n\n\n", "    indented\n\tand tabbed", "a" * 5000, " " * 3000,
    "<|endoftext|> <|fim_prefix|> <|im_start|>", "naïve café — “quotes” ‘single’ …",
    "日本語のテキストと中文文本", "👩‍👩‍👧‍👦🏳️‍🌈😀", "1234567890 3.14159 -42 1e10 0x7fff",
    "def f(x):\n    return {'a': [1, 2, 3]}\n", '{"command":["bash","-lc","ls -la"],"timeout_ms":10000}',
    "I'm you're we'll they'd IT'S", "\r\n\r\nCRLF lines\r\n", "ẞ Ǆ ǅ ǆ İ ı", "x\u200by\u00a0z",
]

def leaves(v, out):
    if isinstance(v, str):
        out.append(v)
    elif isinstance(v, dict):
        for x in v.values():
            leaves(x, out)
    elif isinstance(v, list):
        for x in v:
            leaves(x, out)

def sample_files():
    for root, _, names in os.walk(SAMPLES):
        for n in sorted(names):
            if n.endswith((".json", ".jsonl")):
                p = os.path.join(root, n)
                yield os.path.relpath(p, SAMPLES).replace(os.sep, "/"), p

def records(path):
    text = open(path, encoding="utf-8-sig").read()
    try:
        return [json.loads(text)]
    except ValueError:
        out = []
        for line in text.split("\n"):
            line = line.strip()
            if not line:
                continue
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
        return out

def prime_cache(assets):
    cache = os.environ.get("TIKTOKEN_CACHE_DIR") or tempfile.mkdtemp(prefix="tiktoken-cache-")
    os.environ["TIKTOKEN_CACHE_DIR"] = cache
    for name, url in URLS.items():
        src = os.path.join(assets, name + ".tiktoken")
        dst = os.path.join(cache, hashlib.sha1(url.encode()).hexdigest())
        if os.path.exists(src) and not os.path.exists(dst):
            shutil.copyfile(src, dst)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--assets")
    ap.add_argument("--out", default=os.path.join(ROOT, "fixtures", "tokens", "tiktoken_golden.json"))
    args = ap.parse_args()
    if args.assets:
        prime_cache(args.assets)
    import tiktoken
    encs = {n: tiktoken.get_encoding(n) for n in URLS}
    def count(enc, s):
        try:
            return len(enc.encode_ordinary(s))
        except Exception:
            return None
    golden = {"tiktoken_version": tiktoken.__version__, "samples": {}, "texts": []}
    for rel, path in sample_files():
        strings = []
        for r in records(path):
            leaves(r, strings)
        golden["samples"][rel] = {n: [count(e, s) for s in strings] for n, e in encs.items()}
    for t in HARD_TEXTS:
        golden["texts"].append({"text": t, **{n: count(e, t) for n, e in encs.items()}})
    with open(args.out, "w") as f:
        json.dump(golden, f, separators=(",", ":"))
        f.write("\n")
    n = sum(len(v["o200k_base"]) for v in golden["samples"].values())
    print(f"{args.out}: {len(golden['samples'])} files, {n} strings, {len(HARD_TEXTS)} hard texts", file=sys.stderr)

main()
