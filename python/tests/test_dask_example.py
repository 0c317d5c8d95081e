"""The Dask example (python/examples/dask_corpus.py) on a local cluster of two worker
processes, over a generated sharded corpus whose defects are known by construction."""

from __future__ import annotations

import importlib.util
import json
import random

import pytest
from dask.distributed import Client, LocalCluster

import toolmend
from conftest import ROOT

SHARDS = 8
ROWS = 40


def load_example():
    spec = importlib.util.spec_from_file_location("dask_corpus", ROOT / "python" / "examples" / "dask_corpus.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def row(rng: random.Random, shard: int, n: int, dangling: bool) -> str:
    cid = f"call_{shard}_{n}"
    messages = [
        {"role": "user", "content": f"question {n}"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": cid, "type": "function", "function": {"name": rng.choice(["search", "calc"]), "arguments": "{}"}}],
        },
    ]
    if not dangling:
        messages.append({"role": "tool", "tool_call_id": cid, "content": "done"})
    messages.append({"role": "assistant" if not dangling else "user", "content": "ok"})
    return json.dumps({"id": f"{shard}-{n}", "messages": messages}, separators=(",", ":"))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """Shards under two folders; shard i has i dangling calls (shard 0 is clean)."""
    root = tmp_path_factory.mktemp("corpus")
    rng = random.Random(11)
    expected = {}
    for shard in range(SHARDS):
        broken = set(rng.sample(range(ROWS), shard))
        folder = root / ("a" if shard % 2 else "b")
        folder.mkdir(exist_ok=True)
        path = folder / f"shard-{shard:02}.jsonl"
        path.write_text("".join(row(rng, shard, n, n in broken) + "\n" for n in range(ROWS)))
        expected[str(path)] = len(broken)
    (root / "notes.txt").write_text("not a shard")
    return root, expected


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as c:
            c.wait_for_workers(2, timeout=60)
            yield c


def test_lint_and_repair_on_two_workers(corpus, client, tmp_path):
    root, expected = corpus
    out = tmp_path / "mended"
    summary = load_example().run(str(root), str(out), partitions=SHARDS)
    total = sum(expected.values())
    assert summary["shards"] == SHARDS
    assert summary["findings"] == summary["fixed"] == total
    assert summary["by_rule"] == {"TM001": total}
    assert summary["workers"] >= 2, "the partitions should have run on both workers"
    per_shard = {r["path"]: len(r["findings"]) for r in summary["records"]}
    assert per_shard == expected
    written = sorted(str(p) for p in out.rglob("*.jsonl"))
    assert summary["written"] == written
    assert len(written) == SHARDS - 1  # the clean shard is not rewritten
    for path in written:
        data = open(path, "rb").read()
        assert toolmend.lint(data, path=path) == []
        assert data.count(toolmend.SEED_PLACEHOLDER.encode()) == expected[str(root / path[len(str(out)) + 1 :])]


def test_lint_only_writes_nothing(corpus, client, tmp_path):
    root, expected = corpus
    summary = load_example().run(str(root))
    assert summary["findings"] == sum(expected.values()) and summary["fixed"] == 0
    assert summary["written"] == []
