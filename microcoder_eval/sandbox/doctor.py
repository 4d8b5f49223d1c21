"""What isolation the sandbox gives on this machine, checked by running probes inside it."""
from __future__ import annotations

import json
import os
from typing import Any

# each probe is a solution that prints one line: what it could reach ("" = nothing)
PROBES: dict[str, tuple[str, str]] = {
    "host processes": ("the test sees only its own processes",
                       "import os\nprint(len([p for p in os.listdir('/proc') if p.isdigit()]))"),
    "host files": ("/etc/passwd, /home and the files of the evaluator's working folder are absent",
                   "import os\nc = {cwd!r}\nfiles = [os.path.join(c, e) for e in (os.listdir(c) if os.path.isdir(c) else [])\n"
                   "         if os.path.isfile(os.path.join(c, e))]\n"
                   "print(' '.join([p for p in ('/etc/passwd', '/home') if os.path.exists(p)] + files[:5]))"),
    "network": ("no interface but a down loopback",
                "import socket\ntry:\n    socket.create_connection(('1.1.1.1', 53), timeout=1); print('reachable')\n"
                "except OSError:\n    print('')"),
    "environment": ("no variable of the evaluator's environment",
                    "import os\nprint(' '.join(k for k in os.environ if k in {env!r}))"),
    "identity": ("an unprivileged uid without capabilities",
                 "import os\ncaps=[l.split()[1] for l in open('/proc/self/status') if l.startswith('CapEff')][0]\n"
                 "print('' if os.getuid() != 0 and int(caps, 16) == 0 else f'uid={{os.getuid()}} caps={{caps}}')"),
    "read-only system": ("system folders are read-only",
                         "try:\n    open('/usr/mc_probe', 'w'); print('/usr writable')\nexcept OSError:\n    print('')"),
}


def diagnose(memory_mb: int = 512) -> dict[str, Any]:
    """Start one sandbox worker, report its isolation, and run the probes inside it."""
    from microcoder_eval.config import EvalConfig
    from microcoder_eval.evaluator import Evaluator
    from microcoder_eval.problem import Problem, TestCase


    from microcoder_eval.sandbox.launch import ENV

    env_names = sorted(k for k in os.environ if k not in ENV and k != "PWD")
    out: dict[str, Any] = {"euid": os.geteuid()}
    with Evaluator(EvalConfig(workers=1, timeout_s=5, memory_mb=memory_mb)) as ev:
        out["isolation"] = ev.pool.isolation()
        probes = {}
        problem = Problem("doctor", public_tests=[TestCase("", "\n")])
        for name, (expect, code) in PROBES.items():
            req = ev._request(problem, code.format(cwd=os.getcwd(), env=set(env_names)), "flex")
            with ev.pool.worker() as w:
                reply = w.run(dict(req, input=""), deadline_s=30)
            seen = (reply.get("stdout") or reply.get("stderr") or reply.get("infra_error") or "").strip()
            # the process count: pid 1 (the sample's init) and the test itself
            ok = seen in ("1", "2") if name == "host processes" else (seen == "" and reply.get("exit") == 0)
            probes[name] = {"expected": expect, "ok": ok, "seen": seen[-300:]}
        out["probes"] = probes
    return out


def render(report: dict[str, Any]) -> str:
    iso = report["isolation"]
    lines = [f"sandbox mode: {iso['mode']}  (euid {report['euid']}, sandbox uid {iso.get('uid')})"]
    for key in ("pid_ns_per_test", "fresh_scratch_per_sample", "ipc_ns_per_sample", "proc",
                "network_isolated", "cgroup", "aggregate_memory"):
        lines.append(f"  {key:26s} {iso.get(key)}")
    for note in iso.get("notes", []):
        lines.append(f"  note: {note}")
    lines.append("probes (run as solutions inside the sandbox):")
    for name, p in report["probes"].items():
        mark = "ok  " if p["ok"] else "OPEN"
        lines.append(f"  [{mark}] {name}: {p['expected']}" + (f"  -- saw: {p['seen']}" if not p["ok"] else ""))
    return "\n".join(lines)


def main_json(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2)
