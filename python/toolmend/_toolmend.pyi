"""Type stubs of the native module (python/rust/). Use the wrappers in ``toolmend``."""

from os import PathLike
from typing import List, Optional, Tuple, Union

__version__: str
SEED_PLACEHOLDER: str
DIALECTS: List[str]
TARGETS: List[str]

class ToolmendError(ValueError):
    """A request toolmend cannot carry out; the message is the command line's."""

def main(args: List[Union[str, PathLike[str]]]) -> int: ...
def lint(
    data: bytes,
    *,
    path: str,
    dialect: Optional[str] = None,
    target: Optional[str] = None,
    at: Optional[str] = None,
    input_format: Optional[str] = None,
) -> str: ...
def repair(
    data: bytes,
    *,
    path: str,
    dialect: Optional[str] = None,
    target: Optional[str] = None,
    at: Optional[str] = None,
    input_format: Optional[str] = None,
    placeholder: Optional[str] = None,
    mark_synthetic: bool = False,
    orphans: Optional[str] = None,
    duplicates: Optional[str] = None,
) -> Tuple[bytes, str]: ...
def simulate_scenario(text: str, *, source: str, strategy: str) -> str: ...
def simulate_calls(
    names: List[str],
    *,
    strategy: str,
    mode: Optional[str] = None,
    direct: Optional[List[str]] = None,
    interrupting: Optional[List[str]] = None,
    guard: Optional[List[str]] = None,
    approval: Optional[List[str]] = None,
) -> str: ...
def simulate_histories(
    data: bytes,
    *,
    path: str,
    strategy: str,
    dialect: Optional[str] = None,
    at: Optional[str] = None,
    input_format: Optional[str] = None,
    mode: Optional[str] = None,
    direct: Optional[List[str]] = None,
    interrupting: Optional[List[str]] = None,
    guard: Optional[List[str]] = None,
    approval: Optional[List[str]] = None,
) -> str: ...
