"""Tagged JSON for return values (runs in the sandbox; the trusted parent decodes and compares)."""
from __future__ import annotations

import math

MAX_DEPTH = 200


def encode_value(v, depth: int = 0):
    """Keep tuple/set/dict/float specials apart from lists; anything else is opaque."""
    if depth > MAX_DEPTH:
        return {"$opaque": "nesting too deep"}
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return v if abs(v) < 2**53 else {"$int": str(v)}
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            return {"$float": repr(v)}
        return v
    t = type(v)
    if t is list:
        return [encode_value(x, depth + 1) for x in v]
    if t is tuple:
        return {"$tuple": [encode_value(x, depth + 1) for x in v]}
    if t in (set, frozenset):
        return {"$set": [encode_value(x, depth + 1) for x in v]}
    if t is dict:
        return {"$dict": [[encode_value(k, depth + 1), encode_value(x, depth + 1)] for k, x in v.items()]}
    mod = getattr(t, "__module__", "") or ""
    if mod.startswith("numpy") and hasattr(v, "tolist"):
        return encode_value(v.tolist(), depth + 1)
    if mod == "collections" or isinstance(v, (list, tuple, dict, set)):
        # deque/Counter/defaultdict/OrderedDict/namedtuple: report the plain container
        if isinstance(v, dict):
            return {"$dict": [[encode_value(k, depth + 1), encode_value(x, depth + 1)] for k, x in v.items()]}
        if isinstance(v, tuple):
            return {"$tuple": [encode_value(x, depth + 1) for x in v]}
        return [encode_value(x, depth + 1) for x in v]
    # anything else (custom classes, hostile __eq__): opaque, never equal to an expected value
    try:
        r = object.__repr__(v)
    except Exception:  # noqa: BLE001
        r = "<unrepresentable>"
    return {"$opaque": f"{t.__name__}: {r[:200]}"}
