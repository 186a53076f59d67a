"""The `knowledge-assets` command. Other tools call it exactly so:

    knowledge-assets run PATH... [--out DIR]      register documents, materialise their partitions
    knowledge-assets ingest FILE [--doc-id KEY]   register only
    knowledge-assets export --doc-id KEY --out DIR   write the seven contract files
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from knowledge_assets.evaluation import cli as evaluation_cli
from knowledge_assets.export import ExportError, export_document
from knowledge_assets.ingest.documents import discover, identify
from knowledge_assets.ingest.errors import DocumentError
from knowledge_assets.llm.settings import SettingsError, resolve_settings
from knowledge_assets.review import cli as review_cli
from knowledge_assets.review.approved import export_approved
from knowledge_assets.semantic_review import cli as semantic_review_cli
from knowledge_assets.settings import database_path
from knowledge_assets.store.database import Store, StoreError
from knowledge_assets.store.registry import register


def _dagster_instance():
    """The instance `dagster.yaml` configures: DAGSTER_HOME, else the working directory when it
    holds a dagster.yaml (the project root), else a private one under .knowledge/."""
    import dagster as dg

    if not os.environ.get("DAGSTER_HOME"):
        home = Path.cwd() if (Path.cwd() / "dagster.yaml").is_file() else Path(".knowledge/dagster_home")
        home.mkdir(parents=True, exist_ok=True)
        os.environ["DAGSTER_HOME"] = str(home.resolve())
    return dg.DagsterInstance.get()


def cmd_ingest(args: argparse.Namespace) -> int:
    store = Store(database_path())
    try:
        registration = register(store, identify(Path(args.file), args.doc_id))
    except DocumentError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    source = registration.source
    state = f"revision {registration.revision}" + ("" if registration.changed else " (unchanged)")
    print(f"{source.doc_id}  {source.path.name}  {state}  key from {source.key_source}")
    instance = _dagster_instance()
    from knowledge_assets.defs.launch import add_partition

    add_partition(instance, source.doc_id)
    print(f"data: {store.path}")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    store = Store(database_path())
    files = discover([Path(p) for p in args.paths])
    if not files:
        print("error: no documents found in " + ", ".join(args.paths), file=sys.stderr)
        return 1
    llm = resolve_settings().describe()
    print("llm: " + ", ".join(f"{k.removeprefix('llm_')}={v}" for k, v in llm.items()))
    instance = _dagster_instance()
    from knowledge_assets.defs.launch import materialize_document

    failures = 0
    for path in files:
        started = time.perf_counter()
        try:
            source = register(store, identify(path)).source
        except DocumentError as exc:
            failures += 1
            print(f"FAILED  {exc}")
            continue
        outcome = materialize_document(instance, source.doc_id)
        elapsed = time.perf_counter() - started
        if outcome.success:
            meta = outcome.metadata
            print(
                f"ok      {source.doc_id}  {path.name}  pages={meta['parsed_chunks']['pages']} "
                f"chunks={meta['parsed_chunks']['chunks']} terms={meta['glossary']['entries']} "
                f"definitions={meta['glossary']['with_definition']} formulas={meta['formulas']['formulas']} "
                f"rules={meta['rules']['rules']} review_rows={meta['review_queue']['rows']}  {elapsed:.2f}s"
            )
            if args.out:
                export_document(store, source.doc_id, Path(args.out) / source.doc_id)
        else:
            failures += 1
            print(f"FAILED  {source.doc_id}  {outcome.error}")
    print(f"data: {store.path.resolve()} (DuckDB)")
    print(f"dagster instance: {Path(instance.root_directory).resolve()} (DAGSTER_HOME={os.environ['DAGSTER_HOME']})")
    if failures:
        print(f"{failures} of {len(files)} documents failed", file=sys.stderr)
    return 1 if failures else 0


def cmd_export(args: argparse.Namespace) -> int:
    store = Store(database_path())
    try:
        if args.approved:
            written = export_approved(store, Path(args.out), [args.doc_id] if args.doc_id else None)
        elif args.doc_id:
            written = export_document(store, args.doc_id, Path(args.out))
        else:
            raise ExportError("export needs --doc-id, or --approved for every document")
    except ExportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.approved:
        print(f"approved knowledge: wrote {len(written)} files to {Path(args.out).resolve()}")
    else:
        print(f"{args.doc_id}: wrote {', '.join(p.name for p in written)} to {Path(args.out).resolve()}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="knowledge-assets", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="register documents and materialise every asset for each")
    run.add_argument("paths", nargs="+", help="files or folders of documents")
    run.add_argument("--out", help="also export each document's contract files to OUT/<doc_id>/")
    run.set_defaults(handler=cmd_run)
    ingest = sub.add_parser("ingest", help="register a document (and its partition) only")
    ingest.add_argument("file")
    ingest.add_argument("--doc-id", help="explicit document key (default: sidecar, else content hash)")
    ingest.set_defaults(handler=cmd_ingest)
    export = sub.add_parser("export", help="write a document's seven contract files from the store")
    export.add_argument("--doc-id", help="the document (required without --approved; with it, default every document)")
    export.add_argument("--approved", action="store_true",
                        help="only approved knowledge: glossary, interpretation pack, formulas, domain context per document")
    export.add_argument("--out", required=True, help="folder to write into")
    export.set_defaults(handler=cmd_export)
    for module in (review_cli, evaluation_cli, semantic_review_cli):
        module.add_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except (StoreError, SettingsError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
