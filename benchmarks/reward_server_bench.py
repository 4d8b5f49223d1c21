"""Reward server under load: 8 concurrent clients x 64 completions, one client hostile; one run.

The server (``microcoder_eval.reward_server``, the same code as ``microcoder-eval serve-reward``)
listens on loopback. Each client sends its 64 completions as OpenRLHF would, ``POST /get_reward``
with ``{query, prompts, labels}``, in requests of ``--group`` completions (a GRPO group). Honest
clients send the shipped sample completions (no TLE/MLE ones; a per-client comment makes every
program distinct, so nothing is served from the cache) and every reward is checked against the
sample's known verdict. The hostile client sends infinite loops, fork bombs, memory bombs, output
floods, attempts to kill the server, and malformed requests. Printed: request latency p50/p99 per
kind of client, throughput, how many honest items were scored correctly, 503s and the verdict mix.

    python benchmarks/reward_server_bench.py [--workers N] [--timeout 1] [--group 8]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from microcoder_eval.reward import EvaluatorReward, RewardConfig  # noqa: E402
from microcoder_eval.reward_server import ServerConfig, make_server  # noqa: E402

PROMPT = "<|im_start|>user\nSolve the problem; put the program in a ```python``` block.<|im_end|>\n<|im_start|>assistant\n"
HOSTILE = [
    "while True:\n    pass\n",
    "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
    "x = []\nwhile True:\n    x.append(bytearray(10**7))\n",
    "import sys\nwhile True:\n    sys.stdout.write('A' * 65536)\n",
    "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nos.killpg(0, signal.SIGKILL)\n",
    "import time\ntime.sleep(3600)\n",
    "import threading\nfor _ in range(10000):\n    threading.Thread(target=lambda: __import__('time').sleep(60)).start()\n",
    "import socket\ns = socket.create_connection(('127.0.0.1', PORT))\ns.sendall(b'GET /health HTTP/1.1\\r\\n\\r\\n' * 1000)\n",
]


def quantile(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def post(url: str, body: bytes) -> tuple[int, dict, float]:
    t0 = time.perf_counter()
    req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=600) as r:
            code, out = r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        code, out = e.code, json.loads(e.read() or b"{}")
    return code, out, time.perf_counter() - t0


def honest_items(records: dict, completions: list[dict], client: int, n: int) -> list[tuple[str, str, float]]:
    pool = [c for c in completions if c["expect_status"] not in ("time_limit", "memory_limit")]
    out = []
    for j in range(n):
        c = pool[(client * 17 + j) % len(pool)]
        text = c["completion"].replace("```python\n", f"```python\n# client {client} item {j}\n", 1)
        label = json.dumps({k: records[c["question_id"]][k] for k in ("public_test_cases", "private_test_cases",
                                                                      "metadata", "question_id")})
        out.append((text, label, 1.0 if c["expect_status"] == "passed" else 0.0))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=1.0, help="per-test time limit, s")
    ap.add_argument("--sample-budget", type=float, default=3.0, help="per-completion budget, s")
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--completions", type=int, default=64, help="per client")
    ap.add_argument("--group", type=int, default=8, help="completions per request")
    args = ap.parse_args()

    records = {r["question_id"]: r for r in map(json.loads, open(ROOT / "data" / "lcb_sample_problems.jsonl"))}
    completions = [json.loads(line) for line in open(ROOT / "data" / "lcb_sample_completions.jsonl")]
    reward = EvaluatorReward(RewardConfig(workers=args.workers, timeout_s=args.timeout,
                                          sample_budget_s=args.sample_budget, memory_mb=512))
    server = make_server(reward=reward, server_config=ServerConfig(host="127.0.0.1", port=0))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = server.url + "/get_reward"
    port = server.server_address[1]
    reward.executor  # sandbox workers up before the clock starts

    lat: dict[str, list[float]] = {"honest": [], "hostile": []}
    stats = {"correct": 0, "wrong": 0, "honest_items": 0, "hostile_items": 0, "http_503": 0, "hostile_4xx": 0,
             "errors": []}
    lock = threading.Lock()
    some_record = next(iter(records.values()))
    hostile_label = json.dumps({k: some_record[k] for k in ("public_test_cases", "private_test_cases", "metadata")})

    def honest(client: int) -> None:
        items = honest_items(records, completions, client, args.completions)
        for i in range(0, len(items), args.group):
            chunk = items[i:i + args.group]
            body = json.dumps({"query": [PROMPT + t for t, _, _ in chunk], "prompts": [PROMPT] * len(chunk),
                               "labels": [lab for _, lab, _ in chunk]}).encode()
            while True:
                code, out, dt = post(url, body)
                if code != 503:
                    break
                with lock:
                    stats["http_503"] += 1
                time.sleep(0.5)
            with lock:
                lat["honest"].append(dt)
                if code != 200:
                    stats["errors"].append((client, code, out))
                    continue
                for (_, _, want), got in zip(chunk, out["rewards"]):
                    stats["honest_items"] += 1
                    stats["correct" if got == want else "wrong"] += 1

    def hostile() -> None:
        for i in range(0, args.completions, args.group):
            # distinct programs (a comment), so none is answered from the cache: each one really runs
            codes = [f"# hostile {i}.{j}\n" + HOSTILE[(i + j) % len(HOSTILE)].replace("PORT", str(port))
                     for j in range(args.group)]
            body = json.dumps({"query": [PROMPT + f"```python\n{c}```" for c in codes],
                               "prompts": [PROMPT] * len(codes), "labels": [hostile_label] * len(codes)}).encode()
            code, out, dt = post(url, body)
            with lock:
                lat["hostile"].append(dt)
                stats["hostile_items"] += len(codes) if code == 200 else 0
                if code == 200 and any(r != 0.0 for r in out["rewards"]):
                    stats["errors"].append(("hostile scored", out["rewards"]))
            for junk in (b"{not json", json.dumps({"query": ["x"], "labels": []}).encode(), b"[]"):
                c, _, _ = post(url, junk)
                with lock:
                    stats["hostile_4xx"] += 400 <= c < 500

    threads = [threading.Thread(target=hostile)] + [threading.Thread(target=honest, args=(c,))
                                                    for c in range(1, args.clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    with urllib.request.urlopen(server.url + "/metrics") as r:
        verdicts = [line for line in r.read().decode().splitlines() if line.startswith("microcoder_reward_verdicts")]
    with urllib.request.urlopen(server.url + "/health") as r:
        health = json.loads(r.read())
    server.close()
    reward.close()

    total = stats["honest_items"] + stats["hostile_items"]
    print(f"reward server: {args.clients} clients x {args.completions} completions (1 hostile), "
          f"requests of {args.group}, {args.workers} sandbox workers, timeout {args.timeout}s, "
          f"sample budget {args.sample_budget}s")
    for kind in ("honest", "hostile"):
        v = lat[kind]
        print(f"  {kind:8s} requests: {len(v):4d}  latency p50 {quantile(v, 0.5):7.3f}s  p99 {quantile(v, 0.99):7.3f}s")
    print(f"  wall {wall:.2f}s, {total / wall:.1f} completions/s")
    print(f"  honest completions scored: {stats['honest_items']}, reward as labelled: {stats['correct']}, "
          f"wrong: {stats['wrong']}")
    print(f"  hostile: {stats['hostile_items']} completions scored 0, {stats['hostile_4xx']} malformed requests "
          f"answered 4xx; 503s seen: {stats['http_503']}; server healthy after: {health['status']}")
    print("  " + ", ".join(v.split("{")[1].replace('status="', "").replace('"}', "=").replace(" ", "")
                           for v in verdicts))
    if stats["errors"] or stats["wrong"]:
        print("  PROBLEMS:", stats["errors"][:5])
        sys.exit(1)


if __name__ == "__main__":
    main()
