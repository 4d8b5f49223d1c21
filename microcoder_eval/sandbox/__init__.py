"""The sandbox: the one trust boundary every path (CLI, reward, dataset builder, Ray) goes through.

Modules that run *inside* the sandbox are stdlib-only and import each other relatively, so the
folder can be bound read-only into the sandbox on its own (no project code, no data beside it):
``protocol`` (framing), ``nsutil`` (libc: namespaces, mounts, capabilities), ``limits``,
``values`` (return-value serialisation), ``child`` (per-test process set-up), ``run_flex`` and
``run_lcb`` (the two execution styles), ``zygote`` (forks fresh children, never holds a request),
``manager`` (talks to the evaluator, feeds children, collects their output).
Parent side: ``launch`` (bubblewrap command, isolation detection), ``cgroups`` (aggregate
memory/process caps), ``pool`` (workers and the pool), ``doctor`` (what isolation is active).
"""
