#!/usr/bin/env python3
"""ctxray's token accounting against Python tiktoken on the same texts, in the same run.

Usage: tools/bench/compare_tiktoken.py [--size 100M] [--format claude-code|codex|openai-chat]
                                       [--threads 2] [--venv DIR] [--assets DIR]

1. generates a session (benches/perf, cached in the system temp dir) and has ctxray count it,
   dumping every text it counted (one JSON string per line);
2. times `ctxray report --json` on the session file (read, parse, count, groups, findings,
   JSON out: the whole command);
3. times Python tiktoken's `encode_ordinary_batch` over the same texts (tokenizing only);
4. checks the totals are equal and prints ctxray's throughput as a ratio to tiktoken's.

tiktoken is installed into a virtualenv (default: ~/.cache/ctxray-bench-venv). With no network
for tiktoken's BPE download, the files tiktoken-rs ships are placed in tiktoken's cache (their
sha256 is checked by tiktoken). Not run by CI.
"""
import argparse, glob, hashlib, json, os, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"


def parse_size(s):
    mult = {"k": 1_000, "m": 1_000_000, "g": 1_000_000_000}.get(s[-1].lower(), 1)
    return int(s[:-1] if mult > 1 else s) * mult


def venv_python(venv):
    py = os.path.join(venv, "bin", "python")
    if not os.path.exists(py):
        subprocess.check_call([sys.executable, "-m", "venv", venv])
    if subprocess.call([py, "-c", "import tiktoken"], stderr=subprocess.DEVNULL) != 0:
        subprocess.check_call([py, "-m", "pip", "install", "-q", "tiktoken"])
    return py


def prime_cache(assets):
    cache = os.environ.get("TIKTOKEN_CACHE_DIR") or os.path.join(tempfile.gettempdir(), "ctxray-tiktoken-cache")
    os.makedirs(cache, exist_ok=True)
    os.environ["TIKTOKEN_CACHE_DIR"] = cache
    dst = os.path.join(cache, hashlib.sha1(URL.encode()).hexdigest())
    src = os.path.join(assets, "o200k_base.tiktoken") if assets else None
    if not src:
        found = glob.glob(os.path.expanduser("~/.cargo/registry/src/*/tiktoken-rs-*/assets/o200k_base.tiktoken"))
        src = found[0] if found else None
    if src and not os.path.exists(dst):
        shutil.copyfile(src, dst)


TIKTOKEN_RUN = r"""
import json, sys, time, tiktoken
path, threads = sys.argv[1], int(sys.argv[2])
texts = [json.loads(l) for l in open(path, encoding="utf-8")]
enc = tiktoken.get_encoding("o200k_base")
enc.encode_ordinary("warm up")
wall, cpu = time.perf_counter(), time.process_time()
tokens = sum(len(t) for t in enc.encode_ordinary_batch(texts, num_threads=threads))
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
print(json.dumps({"tokens": tokens, "wall": wall, "cpu": cpu, "version": tiktoken.__version__}))
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="100M")
    ap.add_argument("--format", default="claude-code")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--venv", default=os.path.expanduser("~/.cache/ctxray-bench-venv"))
    ap.add_argument("--assets")
    args = ap.parse_args()
    py = venv_python(args.venv)
    prime_cache(args.assets)
    work = os.path.join(tempfile.gettempdir(), "ctxray-bench")
    os.makedirs(work, exist_ok=True)
    texts = os.path.join(work, f"texts-{args.format}-{args.size}.jsonl")

    bench = subprocess.run(
        ["cargo", "bench", "--bench", "perf", "--", "--size", args.size, "--format", args.format,
         "--count-only", "--dump-texts", texts, "--dir", work],
        cwd=ROOT, check=True, capture_output=True, text=True).stdout
    print(bench.strip())
    ours = json.loads(bench.split("count_result ", 1)[1].splitlines()[0])
    ext = "json" if args.format == "openai-chat" else "jsonl"
    session = os.path.join(work, f"{args.format}-{parse_size(args.size)}.{ext}")

    start = time.perf_counter()
    before = os.times()
    out = subprocess.run([os.path.join(ROOT, "target", "release", "ctxray"), "report", "--json", "--no-cache", session],
                         check=True, capture_output=True).stdout
    report_wall = time.perf_counter() - start
    after = os.times()
    report_cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    report = json.loads(out)
    report_tokens = sum(m["tokens"] for m in report["messages"])

    theirs = json.loads(subprocess.run([py, "-c", TIKTOKEN_RUN, texts, str(args.threads)],
                                       check=True, capture_output=True, text=True).stdout)
    mb = ours["text_bytes"] / 1e6
    print(f"texts: {mb:.1f} MB, {ours['tokens']} tokens (o200k_base)")
    print(f"tiktoken {theirs['version']} encode_ordinary_batch, {args.threads} threads: "
          f"{theirs['wall']:.2f} s wall, {theirs['cpu']:.2f} s cpu, {mb / theirs['wall']:.1f} MB/s")
    print(f"ctxray counting (bpe-openai, all cores): {ours['wall']:.2f} s wall, {ours['cpu']:.2f} s cpu, "
          f"{mb / ours['wall']:.1f} MB/s -> {theirs['wall'] / ours['wall']:.2f}x tiktoken (wall), "
          f"{theirs['cpu'] / max(ours['cpu'], 1e-9):.2f}x (cpu)")
    print(f"ctxray report --json (whole command): {report_wall:.2f} s wall, {report_cpu:.2f} s cpu "
          f"-> {theirs['wall'] / report_wall:.2f}x tiktoken (wall), {theirs['cpu'] / max(report_cpu, 1e-9):.2f}x (cpu)")
    same = theirs["tokens"] == ours["tokens"] == report_tokens
    print(f"totals: tiktoken {theirs['tokens']}, ctxray {ours['tokens']}, report {report_tokens}: "
          + ("equal" if same else "DIFFERENT"))
    sys.exit(0 if same else 1)


main()
