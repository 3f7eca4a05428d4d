#!/usr/bin/env python3
"""ctxray against Python tiktoken (same texts) and ccusage (same file), in the same run.

Usage: tools/bench/compare.py [--size 100M] [--format claude-code|codex|openai-chat]
                              [--threads 2] [--venv DIR] [--assets DIR]
                              [--ccusage 20.0.24,18.0.11] [--runs 3]

1. generates a session (benches/perf, cached in the system temp dir) and has ctxray count it,
   dumping every text it counted (one JSON string per line);
2. times `ctxray report --json` on the session file (read, parse, count, groups, findings,
   JSON out: the whole command);
3. times Python tiktoken's `encode_ordinary_batch` over the same texts (tokenizing only);
4. checks the totals are equal and prints ctxray's throughput as a ratio to tiktoken's;
5. for a Claude Code session, times each ccusage version's `session --json --offline` on the
   same file (put alone in a CLAUDE_CONFIG_DIR), against `ctxray report --json --no-cache`
   timed alternately with it (the fastest of `--runs` runs each), and checks that ccusage's
   sums of reported usage equal the sums of the per-message usage ctxray reports. ccusage
   sums the usage the file reports; ctxray also tokenizes every text.

tiktoken is installed into a virtualenv (default: ~/.cache/ctxray-bench-venv). With no network
for tiktoken's BPE download, the files tiktoken-rs ships are placed in tiktoken's cache (their
sha256 is checked by tiktoken). Each ccusage version is installed with npm into
~/.cache/ctxray-bench-ccusage/VERSION (from 20 on, ccusage is a native binary in an optional
package of the same version: pick a version the registry has it for). Not run by CI.
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


def timed(cmd, env=None):
    start = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, env=env).stdout
    return time.perf_counter() - start, out


def ccusage_bin(version):
    home = os.path.join(os.path.expanduser("~/.cache/ctxray-bench-ccusage"), version)
    binary = os.path.join(home, "node_modules", ".bin", "ccusage")
    if not os.path.exists(binary):
        os.makedirs(home, exist_ok=True)
        subprocess.check_call(["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", home,
                               f"ccusage@{version}"])
    return binary


def compare_ccusage(session, versions, runs, ctxray):
    config = tempfile.mkdtemp(prefix="ctxray-ccusage-")
    project = os.path.join(config, "projects", "bench")
    os.makedirs(project)
    shutil.copyfile(session, os.path.join(project, "session.jsonl"))
    env = dict(os.environ, CLAUDE_CONFIG_DIR=config)
    ours_best, report = None, None
    rows = []
    for version in versions:
        binary = ccusage_bin(version)
        best = None
        for _ in range(runs):
            wall, out = timed([binary, "session", "--json", "--offline"], env)
            best = wall if best is None else min(best, wall)
            wall, report_out = timed([ctxray, "report", "--json", "--no-cache", session])
            ours_best = wall if ours_best is None else min(ours_best, wall)
            report = report_out
        data = json.loads(out)
        sessions = data.get("session") or data.get("sessions") or []
        theirs = {k: sum(s.get(k, 0) for s in sessions)
                  for k in ("inputTokens", "outputTokens", "cacheReadTokens", "cacheCreationTokens")}
        rows.append((version, best, theirs))
    usage = {"input": 0, "output": 0, "cache_read": 0, "cache_write": 0}
    for m in json.loads(report)["messages"]:
        for k in usage:
            usage[k] += (m.get("usage") or {}).get(k) or 0
    ours = {"inputTokens": usage["input"], "outputTokens": usage["output"],
            "cacheReadTokens": usage["cache_read"], "cacheCreationTokens": usage["cache_write"]}
    shutil.rmtree(config, ignore_errors=True)
    print(f"ctxray report --json --no-cache: {ours_best:.2f} s wall (fastest of {runs * len(versions)})")
    for version, best, theirs in rows:
        verdict = "equal" if theirs == ours else f"DIFFERENT ({theirs} vs ctxray {ours})"
        print(f"ccusage {version} session --json --offline: {best:.2f} s wall (fastest of {runs}) "
              f"-> ctxray {best / ours_best:.2f}x ccusage's speed; reported usage sums: {verdict}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="100M")
    ap.add_argument("--format", default="claude-code")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--venv", default=os.path.expanduser("~/.cache/ctxray-bench-venv"))
    ap.add_argument("--assets")
    ap.add_argument("--ccusage", default="20.0.24,18.0.11")
    ap.add_argument("--runs", type=int, default=3)
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
    if args.format == "claude-code" and args.ccusage:
        compare_ccusage(session, args.ccusage.split(","), args.runs,
                        os.path.join(ROOT, "target", "release", "ctxray"))
    sys.exit(0 if same else 1)


main()
