"""Lint and repair a sharded corpus of JSON Lines logs on a Dask cluster.

Each shard (a ``*.jsonl`` / ``*.ndjson`` file: one conversation per line, or one message per
line) is read, linted and, when something is fixable, repaired by ``toolmend`` inside a Dask
worker; Dask does the scheduling, the fan-out over workers and the aggregation (findings per
rule). Repaired shards are written under ``--out`` with the same relative names; shards with
nothing to repair are not written. Files are opened with fsspec, so the corpus and the output
may be local folders or any fsspec URL the workers can reach (``s3://…``, ``gcs://…``).

    python dask_corpus.py CORPUS [--out DIR] [--workers 2] [--scheduler tcp://host:8786]

Without ``--scheduler`` a local cluster of ``--workers`` processes is started.
"""

from __future__ import annotations

import argparse
import json
import os
import posixpath
import sys
from typing import Any, Dict, Iterable, List, Optional, Tuple

import dask
import dask.bag as db
import fsspec
from dask.distributed import Client, LocalCluster
from fsspec.implementations.local import LocalFileSystem

import toolmend

SHARD_SUFFIXES = (".jsonl", ".ndjson")


def shards(corpus: str) -> Tuple[str, List[str]]:
    """The root of ``corpus`` (a folder or fsspec URL) and every JSON Lines file under it."""
    fs, root = fsspec.core.url_to_fs(corpus)
    local = isinstance(fs, LocalFileSystem)
    found = sorted(p for p in fs.find(root) if p.endswith(SHARD_SUFFIXES))
    if local:
        return root, found
    return fs.unstrip_protocol(root), [fs.unstrip_protocol(p) for p in found]


def mend_partition(paths: Iterable[str], root: str, out: Optional[str]) -> List[Dict[str, Any]]:
    """Lint (and repair, into ``out``) the shards of one partition; one record per shard."""
    records = []
    for path in paths:
        with fsspec.open(path, "rb") as f:
            data = f.read()
        findings = toolmend.lint(data, path=path)
        record: Dict[str, Any] = {
            "path": path,
            "bytes": len(data),
            "findings": findings,
            "fixed": 0,
            "written": None,
            "worker": os.getpid(),
        }
        safe = any(f["fix"] and f["fix"]["applicability"] == "safe" for f in findings)
        if out is not None and safe:
            repaired, fixed = toolmend.repair(data, path=path)
            record["fixed"] = len(fixed)
            if repaired != data:
                target = posixpath.join(out, posixpath.relpath(path, root))
                with fsspec.open(target, "wb", auto_mkdir=True) as f:
                    f.write(repaired)
                record["written"] = target
        records.append(record)
    return records


def run(corpus: str, out: Optional[str] = None, partitions: Optional[int] = None) -> Dict[str, Any]:
    """Mend ``corpus`` on the current Dask client and return the summary."""
    root, paths = shards(corpus)
    if not paths:
        return {"shards": 0, "findings": 0, "fixed": 0, "written": [], "by_rule": {}, "workers": 0}
    bag = db.from_sequence(paths, npartitions=partitions or min(len(paths), 64))
    records = bag.map_partitions(mend_partition, root, out)
    by_rule = records.pluck("findings").flatten().pluck("code").frequencies()
    done, rules = dask.compute(records, by_rule)
    return {
        "shards": len(done),
        "findings": sum(len(r["findings"]) for r in done),
        "fixed": sum(r["fixed"] for r in done),
        "written": sorted(r["written"] for r in done if r["written"]),
        "by_rule": dict(sorted(rules)),
        "workers": len({r["worker"] for r in done}),
        "records": done,
    }


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", help="folder or fsspec URL holding *.jsonl / *.ndjson shards")
    parser.add_argument("--out", help="write repaired shards here (same relative names)")
    parser.add_argument("--workers", type=int, default=2, help="local cluster size (default 2)")
    parser.add_argument("--scheduler", help="address of a running Dask scheduler instead")
    parser.add_argument("--partitions", type=int, help="default: one per shard, at most 64")
    args = parser.parse_args(argv)
    if args.scheduler:
        client = Client(args.scheduler)
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True)
        client = Client(cluster)
    with client:
        summary = run(args.corpus, args.out, args.partitions)
    summary.pop("records", None)
    json.dump(summary, sys.stdout, indent=2)
    print()
    # Like `toolmend lint`: 1 while findings are left (all of them without --out).
    return 1 if summary["findings"] > summary["fixed"] else 0


if __name__ == "__main__":
    sys.exit(main())
