"""The evaluator as an RL reward: a TRL ``reward_funcs`` callable and a verl ``compute_score``.

Reward policy (``RewardConfig``):
* ``binary``: 1.0 when every (selected) test passes, else 0.0.
* ``fraction``: passed tests / selected tests (all tests are run).
* ``no_code_reward`` replaces the reward when the completion has no closed python block;
  ``syntax_error_reward`` when the extracted code does not compile.
* infrastructure failures (sandbox died twice, no tests) give ``None``: TRL turns it into NaN
  and leaves the sample out of the group statistics instead of zeroing the batch.
* ``max_tests`` > 0 runs a deterministic, seeded subset of each problem's tests.
Per-sample verdicts of the last call are in ``reward.last_results`` and, under TRL, logged as
completion-table columns (``log_extra``) plus pass-rate / verdict-mix metrics (``log_metric``).

verl may load this file by path (``custom_reward_function.path=.../reward.py``) as a module that is
not in ``sys.modules``. Annotations are therefore evaluated (no ``from __future__ import
annotations``: ``dataclasses`` looks string annotations up in ``sys.modules[cls.__module__]``), and
a copy loaded that way hands verl's calls to the installed ``microcoder_eval.reward`` so one
process keeps one warm evaluator.
"""
import atexit
import hashlib
import json
import random
import threading
from collections import Counter, OrderedDict
from dataclasses import dataclass, field, fields
from typing import Any, Callable, Sequence

from microcoder_eval.config import EvalConfig
from microcoder_eval.errors import UserError
from microcoder_eval.executors import make_executor
from microcoder_eval.extraction import extract_code
from microcoder_eval.problem import Problem
from microcoder_eval.test_formats import problem_from_row
from microcoder_eval.verdict import SampleResult, Status

POLICIES = ("binary", "fraction")


@dataclass
class RewardConfig:
    """Reward policy and the sandbox settings used to compute it.

    (Metadata holds ``help`` only: microcoder-train hands it to TRL's argument parser as is.)
    """

    policy: str = field(default="binary", metadata={"help": "'binary' (1 if all tests pass) or 'fraction' (share of tests passed)."})
    no_code_reward: float = field(default=0.0, metadata={"help": "Reward for a completion with no closed python code block (a format penalty if negative)."})
    syntax_error_reward: float = field(default=0.0, metadata={"help": "Reward when the extracted code does not compile."})
    max_tests: int = field(default=0, metadata={"help": "Run at most this many tests per problem (0 = all), chosen deterministically from seed and question_id."})
    seed: int = field(default=0, metadata={"help": "Seed for the test subset."})
    timeout_s: float = field(default=6.0, metadata={"help": "Per-test time limit in seconds."})
    sample_budget_s: float = field(default=30.0, metadata={"help": "Wall-clock budget per completion over all its tests, so a hung sample cannot stall the trainer (0 = timeout_s x tests)."})
    memory_mb: int = field(default=4096, metadata={"help": "Memory cap per test process, MiB."})
    workers: int = field(default=0, metadata={"help": "Sandbox workers (0 = one per CPU core)."})
    mode: str = field(default="flex", metadata={"help": "Comparison mode: 'flex' or 'lcb'."})
    executor: str = field(default="local", metadata={"help": "'local' sandbox pool or 'ray' to offload execution to a Ray cluster."})
    ray_address: str | None = field(default=None, metadata={"help": "Ray address for executor='ray'."})
    cache_size: int = field(default=65536, metadata={"help": "Results cached by (problem, extracted code); 0 disables the cache."})

    def __post_init__(self) -> None:
        if self.policy not in POLICIES:
            raise UserError(f"reward policy {self.policy!r} is unknown; use 'binary' or 'fraction'")
        if self.max_tests < 0:
            raise UserError(f"max_tests={self.max_tests} must be >= 0 (0 = all tests)")
        if self.cache_size < 0:
            raise UserError(f"cache_size={self.cache_size} must be >= 0")
        self.eval_config()  # validates the sandbox fields with EvalConfig's messages

    def eval_config(self) -> EvalConfig:
        return EvalConfig(mode=self.mode, timeout_s=self.timeout_s, memory_mb=self.memory_mb, workers=self.workers,
                          all_tests=self.policy == "fraction", sample_budget_s=self.sample_budget_s,
                          executor=self.executor, ray_address=self.ray_address)


def completion_text(completion: Any) -> str:
    """A completion as TRL passes it: a string, or a list of chat messages (last assistant turn)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        return str(completion.get("content") or "")
    if isinstance(completion, list):
        parts = [m for m in completion if isinstance(m, dict) and m.get("role", "assistant") == "assistant"]
        msg = parts[-1] if parts else (completion[-1] if completion else "")
        content = msg.get("content", "") if isinstance(msg, dict) else msg
        if isinstance(content, list):  # content blocks
            return "".join(b.get("text", "") for b in content if isinstance(b, dict))
        return str(content or "")
    return "" if completion is None else str(completion)


def plain(value: Any) -> Any:
    """``value`` with numpy arrays, numpy scalars and tuples turned into lists and Python scalars.

    verl hands ``extra_info``/``ground_truth`` over as numpy object arrays (and parquet list
    columns come back as arrays inside them); hashing or parsing those as-is is wrong or fails.
    """
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (str, bytes, int, float, bool)) or value is None:
        return value
    tolist = getattr(value, "tolist", None)  # numpy arrays and numpy scalars
    if callable(tolist):
        return plain(tolist())
    return value


def _as_list(values: Any, n: int) -> list[Any]:
    """A batch argument as a list of length ``n`` (``None``, a list, or a numpy object array)."""
    if values is None:
        return [None] * n
    out = list(values)
    if len(out) != n:
        raise ValueError(f"batch argument has {len(out)} items for {n} completions")
    return out


def _problem_key(p: Problem) -> str:
    blob = json.dumps([p.question_id, p.func_name, [t.to_dict() for t in p.tests]], sort_keys=True)
    return hashlib.sha1(blob.encode()).hexdigest()


class EvaluatorReward:
    """TRL-compatible reward function backed by a long-lived (warm) evaluator."""

    def __init__(self, config: RewardConfig | None = None, executor: Any = None) -> None:
        self.config = config or RewardConfig()
        self.eval_config = self.config.eval_config()
        self.__name__ = f"microcoder_{self.config.policy}"
        self._executor = executor
        self._own_executor = executor is None
        self._atexit_registered = False
        self._lock = threading.Lock()
        self._executor_lock = threading.Lock()  # verl calls compute_score from a thread pool
        self._cache: OrderedDict[tuple[str, str], SampleResult] = OrderedDict()
        self._problems: dict[str, Problem] = {}
        self.last_results: list[SampleResult | None] = []
        self.cache_hits = 0

    # ------------------------------------------------------------------ lifecycle
    @property
    def executor(self) -> Any:
        ex = self._executor
        if ex is None:
            with self._executor_lock:  # threads racing here must not each start a pool
                if self._executor is None:
                    self._executor = make_executor(self.eval_config)
                    if not self._atexit_registered:
                        atexit.register(self.close)
                        self._atexit_registered = True
                ex = self._executor
        return ex

    def close(self) -> None:
        with self._executor_lock:
            if self._executor is not None and self._own_executor:
                self._executor.close()
                self._executor = None

    # ------------------------------------------------------------------ problems
    def _select_tests(self, p: Problem) -> Problem:
        n = self.config.max_tests
        tests = p.tests
        if not n or len(tests) <= n:
            return p
        rng = random.Random(f"{self.config.seed}:{p.question_id}")
        keep = sorted(rng.sample(range(len(tests)), n))
        chosen = [tests[i] for i in keep]
        return Problem(**{**{f.name: getattr(p, f.name) for f in fields(Problem)},
                          "public_tests": chosen, "private_tests": []})

    def problem_for(self, row: dict[str, Any]) -> Problem:
        """Problem for one dataset row (memoised: rows repeat across a GRPO group)."""
        row = plain(row)
        blob = json.dumps(row, sort_keys=True, default=str)
        key = hashlib.sha1(blob.encode()).hexdigest()
        p = self._problems.get(key)
        if p is None:
            p = self._select_tests(problem_from_row(row))
            if len(self._problems) > 100_000:
                self._problems.clear()
            self._problems[key] = p
        return p

    # ------------------------------------------------------------------ scoring
    def score_results(self, results: Sequence[SampleResult | None]) -> list[float | None]:
        out: list[float | None] = []
        for r in results:
            if r is None or r.status is Status.INFRA_ERROR:
                out.append(None)
            elif r.status is Status.NO_CODE:
                out.append(self.config.no_code_reward)
            elif r.status is Status.RUNTIME_ERROR and r.tests and "SyntaxError" in r.tests[0].detail \
                    and r.tests[0].index == 0:
                out.append(self.config.syntax_error_reward)
            elif self.config.policy == "fraction":
                out.append(r.fraction_passed)
            else:
                out.append(1.0 if r.passed else 0.0)
        return out

    def evaluate(self, problems: Sequence[Problem], texts: Sequence[str]) -> list[SampleResult | None]:
        """Judge a whole batch at once through the executor; identical (problem, code) run once."""
        mode = self.eval_config.extract_mode
        codes = [extract_code(t, mode) for t in texts]
        results: list[SampleResult | None] = [None] * len(texts)
        todo: dict[tuple[str, str], list[int]] = {}
        problem_keys: dict[int, str] = {}  # a GRPO group repeats one problem object
        for i, (p, code) in enumerate(zip(problems, codes)):
            if code is None:
                results[i] = SampleResult(p.question_id, i, Status.NO_CODE, [], len(p.tests), None,
                                          "no code block found in the completion")
                continue
            if id(p) not in problem_keys:
                problem_keys[id(p)] = _problem_key(p)
            key = (problem_keys[id(p)], code)
            with self._lock:
                hit = self._cache.get(key) if self.config.cache_size else None
            if hit is not None:
                self.cache_hits += 1
                results[i] = hit
                continue
            todo.setdefault(key, []).append(i)
        if todo:
            keys = list(todo)
            items = [(problems[todo[k][0]], k[1]) for k in keys]
            try:
                fresh = self.executor.evaluate(items, extract=False)
            except Exception:  # noqa: BLE001 - an executor failure must not zero the batch: item by item
                fresh = [self._evaluate_one(p, c) for p, c in items]
            for k, res in zip(keys, fresh):
                if res.status is not Status.INFRA_ERROR and self.config.cache_size:
                    with self._lock:
                        self._cache[k] = res
                        while len(self._cache) > self.config.cache_size:
                            self._cache.popitem(last=False)
                for i in todo[k]:
                    results[i] = res
        return results

    def _evaluate_one(self, problem: Problem, code: str) -> SampleResult:
        try:
            return self.executor.evaluate([(problem, code)], extract=False)[0]
        except Exception as e:  # noqa: BLE001 - this item's reward becomes None
            return SampleResult(problem.question_id, 0, Status.INFRA_ERROR, [], len(problem.tests), code,
                                f"executor: {type(e).__name__}: {e}"[:500])

    def __call__(self, prompts: list[Any] | None = None, completions: list[Any] | None = None,
                 completion_ids: list[Any] | None = None, trainer_state: Any = None,
                 log_extra: Callable[[str, list[Any]], None] | None = None,
                 log_metric: Callable[[str, float], None] | None = None, **columns: Any) -> list[float | None]:
        if completions is None:
            raise TypeError("reward function needs completions=")
        n = len(completions)
        columns.pop("environments", None)
        rows = [{k: v[i] for k, v in columns.items() if isinstance(v, (list, tuple)) and len(v) == n}
                for i in range(n)]
        problems: list[Problem | None] = []
        for row in rows:
            try:
                problems.append(self.problem_for(row))
            except ValueError:
                problems.append(None)
        texts = [completion_text(c) for c in completions]
        ok = [i for i, p in enumerate(problems) if p is not None]
        judged = self.evaluate([problems[i] for i in ok], [texts[i] for i in ok])  # type: ignore[misc]
        results: list[SampleResult | None] = [None] * n
        for i, r in zip(ok, judged):
            results[i] = r
        self.last_results = results
        rewards = self.score_results(results)
        if log_extra is not None:
            log_extra("verdict", [r.status.value if r else "bad_row" for r in results])
            log_extra("tests_passed", [f"{r.num_passed}/{r.num_tests}" if r else "" for r in results])
        if log_metric is not None:
            self.log_metrics(results, log_metric)
        return rewards

    @staticmethod
    def log_metrics(results: Sequence[SampleResult | None], log_metric: Callable[[str, float], None]) -> None:
        """Verdict metrics over judged completions only; unjudged ones are counted apart.

        ``verdict/pass_rate`` and ``verdict/<status>`` are shares of the judged completions;
        ``verdict/judged`` and ``verdict/unjudged`` are counts (unjudged = ``infra_error``, reward
        ``None``), ``verdict/bad_row`` counts rows whose tests could not be read, and
        ``verdict/infra_or_bad_row`` is the share of the batch that got ``None``.
        """
        n = len(results)
        valid = [r for r in results if r is not None and r.status is not Status.INFRA_ERROR]
        if valid:
            log_metric("verdict/pass_rate", sum(r.passed for r in valid) / len(valid))
            mix = Counter(r.status.value for r in valid)
            for status in Status:
                if status is not Status.INFRA_ERROR:
                    log_metric(f"verdict/{status.value}", mix.get(status.value, 0) / len(valid))
        log_metric("verdict/judged", float(len(valid)))
        log_metric("verdict/unjudged", float(sum(1 for r in results if r is not None
                                                 and r.status is Status.INFRA_ERROR)))
        log_metric("verdict/bad_row", float(sum(1 for r in results if r is None)))
        log_metric("verdict/infra_or_bad_row", (n - len(valid)) / n if n else 0.0)


# ---------------------------------------------------------------------- verl adapter
_DEFAULT: EvaluatorReward | None = None
_DEFAULT_LOCK = threading.Lock()


_CONFIGURED: dict[tuple[tuple[str, Any], ...], EvaluatorReward] = {}


def default_reward(**settings: Any) -> EvaluatorReward:
    """Process-wide reward (warm workers reused across verl calls).

    ``settings`` are ``RewardConfig`` fields (verl: ``custom_reward_function.reward_kwargs``, e.g.
    ``+reward.custom_reward_function.reward_kwargs.timeout_s=4``); other keyword arguments verl
    passes (``reward_router_address``, ...) are ignored. One reward per distinct setting.
    """
    global _DEFAULT
    names = {f.name for f in fields(RewardConfig)}
    chosen = tuple(sorted((k, v) for k, v in settings.items() if k in names))
    with _DEFAULT_LOCK:
        if not chosen:
            if _DEFAULT is None:
                _DEFAULT = EvaluatorReward()
            return _DEFAULT
        reward = _CONFIGURED.get(chosen)
        if reward is None:
            reward = _CONFIGURED[chosen] = EvaluatorReward(RewardConfig(**dict(chosen)))
        return reward


def _row_from_ground_truth(ground_truth: Any, extra_info: dict[str, Any] | None) -> dict[str, Any]:
    ground_truth = plain(ground_truth)
    extra_info = plain(extra_info) if isinstance(extra_info, dict) else None
    if isinstance(ground_truth, str) and ground_truth.lstrip().startswith("{") and "_test_cases" in ground_truth:
        try:  # build-dataset's verl export: the LCB test fields as a JSON string
            decoded = json.loads(ground_truth)
        except ValueError:
            decoded = None
        if isinstance(decoded, dict) and ("public_test_cases" in decoded or "private_test_cases" in decoded):
            ground_truth = decoded
    row: dict[str, Any] = {"ground_truth": ground_truth}
    if isinstance(ground_truth, dict) and ("public_test_cases" in ground_truth or "private_test_cases" in ground_truth):
        row = dict(ground_truth)
    if extra_info:
        for k in ("question_id", "func_name", "fn_name", "metadata", "difficulty", "platform"):
            if k in extra_info and k not in row:
                row[k] = extra_info[k]
    return row


def _verl_dict(score: float | None, r: SampleResult | None) -> dict[str, Any]:
    return {"score": 0.0 if score is None else float(score), "valid": score is not None,
            "status": r.status.value if r else "bad_ground_truth",
            "num_passed": r.num_passed if r else 0, "num_tests": r.num_tests if r else 0}


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: dict[str, Any] | None = None,
                  **kwargs: Any) -> dict[str, Any]:
    """verl ``custom_reward_function`` entry point: returns ``{"score", "valid", "status", ...}``.

    verl needs a number, so an infrastructure failure scores 0.0 with ``valid=False`` (filter on it).
    """
    return compute_score_batch([data_source], [solution_str], [ground_truth], [extra_info], **kwargs)[0]


def compute_score_batch(data_sources: Sequence[str], solution_strs: Sequence[str], ground_truths: Sequence[Any],
                        extra_infos: Sequence[dict[str, Any] | None] | None = None, **kwargs: Any) -> list[dict[str, Any]]:
    """verl ``BatchRewardManager`` entry point: one evaluator call for the whole batch.

    Keyword arguments that name ``RewardConfig`` fields configure the reward (verl's
    ``reward_kwargs``); any others are ignored."""
    reward = default_reward(**kwargs)
    solution_strs = [str(s) for s in _as_list(solution_strs, len(solution_strs))]
    ground_truths = _as_list(ground_truths, len(solution_strs))
    extra_infos = _as_list(extra_infos, len(solution_strs))  # verl passes a numpy object array
    problems: list[Problem | None] = []
    for gt, extra in zip(ground_truths, extra_infos):
        try:
            problems.append(reward.problem_for(_row_from_ground_truth(gt, extra)))
        except ValueError:
            problems.append(None)
    ok = [i for i, p in enumerate(problems) if p is not None]
    judged = reward.evaluate([problems[i] for i in ok], [solution_strs[i] for i in ok])  # type: ignore[misc]
    results: list[SampleResult | None] = [None] * len(solution_strs)
    for i, r in zip(ok, judged):
        results[i] = r
    scores = reward.score_results(results)
    return [_verl_dict(s, r) for s, r in zip(scores, results)]


if __name__ != "microcoder_eval.reward":  # loaded by file path (verl): share the installed module's evaluator
    try:
        import microcoder_eval.reward as _installed
    except ImportError:  # pragma: no cover - this file outside an installed package
        pass
    else:
        default_reward = _installed.default_reward  # noqa: F811
        compute_score = _installed.compute_score  # noqa: F811
        compute_score_batch = _installed.compute_score_batch  # noqa: F811
