"""The Python API: Python values in, document bytes to the native engine, Python values out."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, TypedDict, TypeVar, Union

from toolmend import _toolmend as _native
from toolmend._toolmend import ToolmendError

__all__ = ["Data", "Finding", "Fix", "lint", "repair", "simulate"]

Data = Union[List[Any], Tuple[Any, ...], Dict[str, Any], str, bytes, bytearray, memoryview]
"""What :func:`lint` and :func:`repair` read: messages, an envelope, or a document."""

D = TypeVar("D", List[Any], Tuple[Any, ...], Dict[str, Any], str, bytes, bytearray)


class Fix(TypedDict):
    """The fix offered for a finding."""

    applicability: str
    """``safe`` (applied by default) or ``unsafe`` (needs a policy keyword)."""
    description: str
    """What the fix does."""


class Finding(TypedDict):
    """One finding, with the keys of ``toolmend lint --format json``."""

    code: str
    name: str
    severity: str
    path: str
    line: int
    column: int
    pointer: str
    conversation: Optional[int]
    message_index: Optional[int]
    tool_name: Optional[str]
    call_id: Optional[str]
    message: str
    fix: Optional[Fix]


# How far ahead a repaired list looks for an original element when reusing them: repairs
# insert, drop or move a message a few places, never far.
_LOOKAHEAD = 16


def lint(
    data: Data,
    *,
    dialect: Optional[str] = None,
    target: Optional[str] = None,
    at: Optional[str] = None,
    path: str = "-",
) -> List[Finding]:
    """Report the tool-call pairing findings of ``data``.

    ``data`` is a list of messages, a dict envelope, or ``str``/``bytes`` holding JSON or JSON
    Lines. ``dialect`` forces a dialect (one of :data:`toolmend.DIALECTS`) instead of
    detecting it; ``target`` judges every conversation by one provider's rules (one of
    :data:`toolmend.TARGETS`, as ``--target``) instead of its dialect's; ``at`` is a JSON Pointer to the conversations (``*`` matches every element),
    as ``--at``; ``path`` is the file name the findings carry (``-`` by default, and a name
    ending in ``.jsonl``/``.ndjson`` reads ``str``/``bytes`` as JSON Lines).

    Each finding is a dict with the keys ``toolmend lint --format json`` prints. For lists and
    dicts, ``pointer`` and ``message_index`` locate a finding; ``line`` and ``column`` refer
    to the JSON toolmend serialised the value to.

    Raises :class:`toolmend.ToolmendError` (a ``ValueError``) for an unknown dialect or
    target, and ``TypeError`` for data that is not JSON-serialisable.
    """
    document, input_format = _encode(data, "lint")
    text = _native.lint(
        document, path=path, dialect=dialect, target=target, at=at, input_format=input_format
    )
    return json.loads(text)


def repair(
    data: D,
    *,
    dialect: Optional[str] = None,
    target: Optional[str] = None,
    placeholder: Optional[str] = None,
    mark_synthetic: bool = False,
    orphans: Optional[str] = None,
    duplicates: Optional[str] = None,
    at: Optional[str] = None,
    path: str = "-",
) -> Tuple[D, List[Finding]]:
    """Repair ``data`` and return ``(repaired, fixed)``.

    ``repaired`` has the type ``data`` had: a list gives a new list (a tuple a tuple), a dict
    a new dict, ``str`` a ``str`` and ``bytes`` ``bytes``. Objects the repair did not touch
    are the very objects given, not copies; ``data`` itself is never modified. ``fixed`` lists
    the findings (positions those of ``data``) the repair made go away.

    As ``toolmend repair``: safe fixes are applied (a placeholder error result right after
    each dangling call); ``placeholder`` is the text template (``{id}`` and ``{name}`` are
    replaced), ``mark_synthetic`` marks inserted results where the dialect allows, and the
    unsafe policies are asked for with ``orphans`` (``keep``, ``drop``, ``note``) and
    ``duplicates`` (``keep-first``, ``keep-last``). ``dialect``, ``target``, ``at`` and
    ``path`` are as for :func:`lint`.
    """
    document, input_format = _encode(data, "repair")
    output, fixed_json = _native.repair(
        document,
        path=path,
        dialect=dialect,
        target=target,
        at=at,
        input_format=input_format,
        placeholder=placeholder,
        mark_synthetic=mark_synthetic,
        orphans=orphans,
        duplicates=duplicates,
    )
    fixed = json.loads(fixed_json)
    return _decode(data, document, output), fixed


def simulate(
    scenario: Union[Dict[str, Any], str, bytes, "os.PathLike[str]", None] = None,
    *,
    calls: Optional[Sequence[str]] = None,
    histories: Optional[Data] = None,
    strategy: Union[str, Sequence[str]] = "unguarded,guarded",
    mode: Optional[str] = None,
    direct: Union[str, Sequence[str], None] = None,
    interrupting: Union[str, Sequence[str], None] = None,
    guard: Union[str, Sequence[str], None] = None,
    approval: Union[str, Sequence[str], None] = None,
    dialect: Optional[str] = None,
    at: Optional[str] = None,
    path: str = "-",
) -> Dict[str, Any]:
    """Replay tool batches through a human-in-the-loop interrupt, as ``toolmend simulate
    --format json``, and return that JSON object (see docs/simulate.md).

    Give exactly one source of batches, as on the command line:

    * ``scenario``: a scenario (``--spec``): a dict, JSON text, or a path to a JSON file;
      it carries its own tool sets (``mode``, ``direct``, ``interrupting``, ``guard``,
      ``approval``), so those keywords are refused with it;
    * ``calls``: tool names of one ad-hoc batch in call order (ids ``c1``, ``c2``, …);
    * ``histories``: a conversation document or messages (as :func:`lint` takes); every model
      message with two or more tool calls is a batch.

    ``strategy`` is a comma-separated list or a sequence of ``unguarded``, ``guarded``,
    ``send-per-call``, ``unguarded-cached``, ``guarded-cached``, or ``all``. Tool-set keywords
    take a sequence of names or one comma-separated string.
    """
    sources = (("scenario", scenario), ("calls", calls), ("histories", histories))
    given = [name for name, v in sources if v is not None]
    if not given:
        raise ToolmendError("nothing to simulate: give scenario=, calls= or histories=")
    if len(given) > 1:
        raise ToolmendError(f"give only one of scenario=, calls=, histories= (got {', '.join(given)})")
    strategies = strategy if isinstance(strategy, str) else ",".join(strategy)
    sets = {
        "mode": mode,
        "direct": _names(direct),
        "interrupting": _names(interrupting),
        "guard": _names(guard),
        "approval": _names(approval),
    }
    if scenario is not None:
        named = [k for k, v in sets.items() if v is not None]
        if named:
            raise ToolmendError(
                f"a scenario carries its own tool sets: put {', '.join(named)} in the scenario instead"
            )
        text, source = _scenario_text(scenario)
        report = _native.simulate_scenario(text, source=source, strategy=strategies)
    elif calls is not None:
        report = _native.simulate_calls(_names(calls) or [], strategy=strategies, **sets)
    else:
        document, input_format = _encode(histories, "simulate")
        report = _native.simulate_histories(
            document,
            path=path,
            strategy=strategies,
            dialect=dialect,
            at=at,
            input_format=input_format,
            **sets,
        )
    return json.loads(report)


def _encode(data: Any, caller: str) -> Tuple[bytes, Optional[str]]:
    """The document bytes of ``data``, and the input format to force (``json`` for values)."""
    if isinstance(data, bytes):
        return data, None
    if isinstance(data, (bytearray, memoryview)):
        return bytes(data), None
    if isinstance(data, str):
        return data.encode("utf-8"), None
    if isinstance(data, (list, tuple, dict)):
        try:
            text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        except (TypeError, ValueError) as e:
            raise TypeError(
                f"toolmend.{caller}: the messages must be JSON values (dicts, lists, str, numbers, "
                f"bool, None): {e}; for LangChain message objects use toolmend.langchain"
            ) from e
        return text.encode("utf-8"), "json"
    raise TypeError(
        f"toolmend.{caller}: expected a list or dict of messages, or str/bytes holding JSON or "
        f"JSON Lines, not {type(data).__name__}"
    )


def _decode(original: Any, document: bytes, output: bytes) -> Any:
    """``output`` in the type of ``original``, reusing the objects of ``original`` it kept."""
    if isinstance(original, str):
        return original if output == document else output.decode("utf-8")
    if isinstance(original, bytearray):
        return bytearray(output)
    if isinstance(original, (bytes, memoryview)):
        return output
    if output == document:
        return type(original)(original) if isinstance(original, (list, tuple)) else dict(original)
    return _reuse(original, json.loads(output))


def _reuse(old: Any, new: Any) -> Any:
    """``new``, with every part equal to the corresponding part of ``old`` taken from ``old``."""
    if isinstance(old, dict) and isinstance(new, dict):
        return {
            k: (old[k] if k in old and _same(old[k], v) else _reuse(old.get(k), v))
            for k, v in new.items()
        }
    if isinstance(old, (list, tuple)) and isinstance(new, list):
        out = _reuse_items(old, new)
        return tuple(out) if isinstance(old, tuple) else out
    return new


def _reuse_items(old: Sequence[Any], new: List[Any]) -> List[Any]:
    """The elements of ``new``: those equal to an element of ``old`` (in order, a few places
    ahead at most) are taken from ``old``; a run of changed elements standing where as many
    elements of ``old`` were is rebuilt from them part by part; inserted ones are new."""
    matched: List[Optional[int]] = []
    i = 0
    for item in new:
        ahead = range(i, min(len(old), i + _LOOKAHEAD))
        j = next((j for j in ahead if _same(old[j], item)), None)
        matched.append(j)
        if j is not None:
            i = j + 1
    out: List[Any] = []
    k = 0
    before = -1  # the element of `old` matched last
    while k < len(new):
        j = matched[k]
        if j is not None:
            out.append(old[j])
            before = j
            k += 1
            continue
        run_end = next((r for r in range(k, len(new)) if matched[r] is not None), len(new))
        after = matched[run_end] if run_end < len(new) else len(old)
        gap = range(before + 1, after)
        if len(gap) == run_end - k:
            out.extend(_reuse(old[g], new[r]) for g, r in zip(gap, range(k, run_end)))
        else:
            out.extend(new[k:run_end])
        k = run_end
    return out


def _same(old: Any, new: Any) -> bool:
    # Equal values of the same JSON shape (a tuple is not kept where JSON made a list, and
    # 1 == 1.0 == True must not let a number change its type).
    return type(old) is type(new) and old == new


def _names(value: Union[str, Sequence[str], None]) -> Optional[List[str]]:
    if value is None:
        return None
    if isinstance(value, str):
        return value.split(",")
    return list(value)


def _scenario_text(scenario: Any) -> Tuple[str, str]:
    if isinstance(scenario, dict):
        return json.dumps(scenario), "<scenario>"
    if isinstance(scenario, bytes):
        return scenario.decode("utf-8"), "<scenario>"
    if isinstance(scenario, str):
        return scenario, "<scenario>"
    if isinstance(scenario, os.PathLike):
        source = os.fspath(scenario)
        try:
            with open(source, encoding="utf-8") as f:
                return f.read(), source
        except OSError as e:
            raise ToolmendError(f"{source}: cannot read the scenario: {e.strerror}") from e
    raise TypeError(
        "toolmend.simulate: scenario must be a dict, JSON text or a path, "
        f"not {type(scenario).__name__}"
    )
