"""LangChain messages: the dangling-tool-call middleware as one call.

``langchain_core`` is imported when :func:`repair_messages` is called, not when this module
is imported, so ``toolmend`` never needs LangChain installed (``pip install
toolmend[langchain]`` brings it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional, Sequence

from toolmend._api import repair

if TYPE_CHECKING:  # pragma: no cover - typing only
    from langchain_core.messages import BaseMessage

__all__ = ["repair_messages"]


def repair_messages(
    messages: Sequence["BaseMessage"],
    *,
    placeholder: Optional[str] = None,
    mark_synthetic: bool = False,
    orphans: Optional[str] = None,
    duplicates: Optional[str] = None,
) -> List["BaseMessage"]:
    """Return a new list of ``messages`` with every dangling tool call answered.

    For each ``AIMessage.tool_calls`` entry without a ``ToolMessage``, an error
    ``ToolMessage`` (``status="error"``, the call's ``tool_call_id`` and ``name``, the
    text ``toolmend.SEED_PLACEHOLDER`` or ``placeholder``) is inserted right after the calling message and its
    existing results, never at the end. Messages the repair did not touch are the same
    objects as in ``messages``; the input list is not modified. A history with nothing to
    repair gives an equal new list.

    Use it where a dangling-tool-call middleware ran, e.g. in ``wrap_model_call``::

        request = request.override(messages=repair_messages(request.messages))

    The keywords are those of :func:`toolmend.repair`.
    """
    from langchain_core.messages import BaseMessage, messages_from_dict, messages_to_dict

    originals = list(messages)
    for i, m in enumerate(originals):
        if not isinstance(m, BaseMessage):
            raise TypeError(
                f"repair_messages: messages[{i}] is a {type(m).__name__}, not a LangChain "
                "BaseMessage (for message dicts use toolmend.repair)"
            )
    dicts = messages_to_dict(originals)
    repaired, _fixed = repair(
        dicts,
        dialect="langchain",
        placeholder=placeholder,
        mark_synthetic=mark_synthetic,
        orphans=orphans,
        duplicates=duplicates,
    )
    by_dict = {id(d): m for d, m in zip(dicts, originals)}
    return [by_dict[id(d)] if id(d) in by_dict else messages_from_dict([d])[0] for d in repaired]
