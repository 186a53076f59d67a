"""The `knowledge-assets` command. Other tools call it exactly so:

    knowledge-assets run PATH... [--out DIR]      register documents, materialise their partitions
                                                  exit 0 all ok, 1 a document, a folder or an export
                                                  failed, 3 model calls failed
    knowledge-assets ingest FILE [--doc-id KEY]   register only
    knowledge-assets export --doc-id KEY --out DIR [--format json|csv|xlsx] [--approved]
                                                  write the seven contract files to DIR/KEY/
    knowledge-assets documents [remove DOC_ID]    list the documents and their state; remove one
    knowledge-assets store copy --to TARGET       copy the store into an empty DuckDB file or
                                                  postgresql:// store, verified table by table
    knowledge-assets --version

`--out DIR` means one thing everywhere: the folder that holds one folder per document,
`DIR/<doc_id>/`, whether `run`, `export --doc-id` or `export --approved` writes it (a folder of
several documents' exports never mixes their files, and a script reads one path whatever
wrote it), and `DIR/index.json` names each document there (files, title, revision). An export
into a DIR that still holds the flat layout `export` wrote before says so.

A bad input fails only itself (docs/decisions.md D83): a file that cannot be read, a path that
does not exist, a folder that cannot be listed, a named folder with no document in it, each
gets its `FAILED  <path>: <cause>` line and the rest of the run goes on; an export `run --out`
cannot write is named under its document's line and the next document is still exported. Any
of them makes the exit status 1, and the tally on stderr counts them. A home, or an `--out`
DIR, that cannot be written is refused before anything runs.

Output into a closed pipe (`knowledge-assets review list … | head`) ends the command quietly
with exit 141, what a shell reports for any program stopped by SIGPIPE: `set -o pipefail`
scripts see what `seq`, `grep` or `cat` give in the same pipe, and the status never says 0
for a `run` whose summary lines, failures included, nobody read.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import logging
import os
import sys
from importlib import metadata
from pathlib import Path

from knowledge_assets import documents_commands, progress, store_commands
from knowledge_assets.errors import DOCUMENT_CAUSE_CHARS, KnowledgeError, UnwritableHome, short_cause
from knowledge_assets.evaluation import eval_command
from knowledge_assets.export import FORMATS, ExportError, check_index, export_into
from knowledge_assets.ingest.document_error import DocumentError
from knowledge_assets.ingest.documents import discover_documents
from knowledge_assets.ingest.registration import register_file, register_files
from knowledge_assets.llm.model_settings import DEFAULT_TIMEOUT_S, resolve_settings
from knowledge_assets.review import review_commands
from knowledge_assets.review.approved import export_approved
from knowledge_assets.review.document_queues import RunState
from knowledge_assets.semantic_review import semantic_review_commands
from knowledge_assets.settings import cannot_write, instance_folder, split_home_warning, store_folder, store_setting
from knowledge_assets.store.backends import is_shared_store, open_store
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.registry import document_title

# Exit status of `knowledge-assets run` (docs/decisions.md, "Exit status of a run").
EXIT_OK = 0
EXIT_DOCUMENT_FAILED = 1
EXIT_FAILED_CALLS = 3
EXIT_CLOSED_PIPE = 128 + 13  # SIGPIPE's status in a shell (module docstring)
# The commands that open the store of the home (the others keep their own, or none): a home they
# cannot write is refused with one line before they start (D83).
_STORE_COMMANDS = frozenset({"run", "ingest", "export", "documents", "review", "store"})
DESCRIPTION = (
    "Turn technical documents (PDF, Markdown, reStructuredText, text, MinerU) into a glossary, "
    "formulas, rules and a domain context, each entry carrying its verbatim source span, as Dagster "
    "assets in a DuckDB store, for an expert to review and export."
)
EPILOG = "Start with `knowledge-assets run FOLDER`, then `knowledge-assets review serve`. README.md has the rest."


def _pipeline_runner():
    """The runner `eval --corpus` and `semantic-review capture` materialise documents with. It
    lives with the Dagster run control and is handed to those packages, which stay free of Dagster;
    it is imported only when a command runs it."""
    from knowledge_assets.run_control.pipeline_runner import pipeline_runner

    return pipeline_runner


def _dagster_instance():
    """The project's instance (its home, or DAGSTER_HOME), after saying once on stderr when
    the overrides split the store from the instance."""
    from knowledge_assets.instance.home import project_instance

    _refuse_unwritable(instance_folder())
    if not is_shared_store(store_setting()) and (warning := split_home_warning()):
        print(warning, file=sys.stderr)
    return project_instance()


def _refuse_unwritable(place: tuple[Path, str]) -> None:
    """A folder of the project's state (the store's, the instance's) that cannot be written is
    one error line before anything runs, not a traceback from the first write into it."""
    folder, setting = place
    if cause := cannot_write(folder):
        raise UnwritableHome(f"{folder}: cannot write there ({cause}); set {setting} to a folder you can write")


def _document_states(doc_ids: list[str]) -> dict[str, RunState]:
    """Each document's run state as the instance knows it (`failed` with its cause and when, …),
    for the review pages, which may not import the Dagster wiring themselves."""
    from knowledge_assets.instance.home import project_instance
    from knowledge_assets.run_control.document_state import partition_states

    return {doc_id: RunState(state.outcome, state.cause, state.failed_at)
            for doc_id, state in partition_states(project_instance(), doc_ids).items()}


def _in_one_connection(command):
    """The command keeps one connection to the store (Store.session), the Dagster runs it
    launches in this process included, released while a stage asks the model
    (Store.released): a second command or a review page waits seconds, not a run's length."""

    @functools.wraps(command)
    def run(args: argparse.Namespace) -> int:
        with open_store().session():
            return command(args)

    return run


@_in_one_connection
def cmd_ingest(args: argparse.Namespace) -> int:
    store = open_store()
    found = register_file(store, Path(args.file), args.doc_id, args.new_document)
    if not found.registered:
        print(f"{found.file.name}: {found.describe()}")
        return 0
    source = found.source
    print(f"{found.names(document_title(store, source.doc_id))}  {found.describe()}  key from {source.key_source}")
    instance = _dagster_instance()
    from knowledge_assets.run_control.launch import add_partition

    add_partition(instance, source.doc_id)
    print(f"data: {store.location}")
    return 0


def _free_dead_runs(instance) -> None:
    from knowledge_assets.run_control.stale_runs import free_dead_runs

    for dead in free_dead_runs(instance):
        partition = f" partition {dead.partition}" if dead.partition else ""
        print(f"freed the pool slots of dead run {dead.run_id} ({dead.job_name}{partition}): {dead.cause}; "
              "marked it failed", file=sys.stderr)


def _quiet_call_logs(verbose: bool) -> None:
    """Each failed call logs a warning; the summary line already counts them and names the
    first cause, so the terminal gets them only with --verbose."""
    logger = logging.getLogger("knowledge_assets")
    if verbose:
        logger.setLevel(logging.INFO)
        logger.addHandler(logging.StreamHandler(sys.stderr))
    else:
        logger.setLevel(logging.ERROR)


def _progress_lines(registered, verbose: bool) -> contextlib.AbstractContextManager:
    """A line per document per stage on stderr while the documents run, when stderr is a
    terminal; none when it is not (a script reading it gets only the tally it always got; each
    document's time is on its summary line) nor with --verbose, whose event stream says the same
    (docs/decisions.md D60)."""
    if verbose or not sys.stderr.isatty():
        return contextlib.nullcontext()
    lines = contextlib.ExitStack()
    terminal = lines.enter_context(progress.TerminalProgress(sys.stderr, {f.source.doc_id: f.file.name
                                                                          for f in registered}))
    lines.enter_context(progress.reporting(terminal))
    return lines


@_in_one_connection
def cmd_run(args: argparse.Namespace) -> int:
    _quiet_call_logs(args.verbose)
    if args.llm_timeout is not None:
        os.environ["KNOWLEDGE_LLM_TIMEOUT_S"] = str(args.llm_timeout)
    out = Path(args.out) if args.out else None
    if out is not None:
        _refuse_export_root(out)
    store = open_store()
    discovery = discover_documents([Path(p) for p in args.paths])
    for problem in discovery.problems:
        print(f"FAILED  {problem}")
    files = discovery.files
    if not files:
        print(_lost_tally(0, 0, len(discovery.problems), 0, 0), file=sys.stderr)
        return EXIT_DOCUMENT_FAILED
    llm = resolve_settings().describe()
    print("llm: " + ", ".join(f"{k.removeprefix('llm_')}={v}" for k, v in llm.items()))
    instance = _dagster_instance()
    from knowledge_assets.run_control.document_state import call_figures, kept_figure
    from knowledge_assets.run_control.launch import materialize_documents

    failures = degraded = exports = refused = 0
    registered = []
    for found in register_files(store, files, new_document=args.new_document):
        if isinstance(found, DocumentError):
            failures += 1
            print(f"FAILED  {found}")
        elif not found.registered:
            print(f"alias   {found.file.name}: {found.describe()}")
        else:
            registered.append(found)
    _free_dead_runs(instance)
    # One run for the whole folder where the partitions allow it (run_control/launch.py).
    with _progress_lines(registered, args.verbose):
        outcomes = materialize_documents(instance, [found.source.doc_id for found in registered],
                                         verbose=args.verbose)
    for found in registered:
        source = found.source
        outcome = outcomes[source.doc_id]
        names = f"{found.names(document_title(store, source.doc_id))}  {found.describe()}"
        if not outcome.success:
            failures += 1
            cause = short_cause(outcome.error or "failed", DOCUMENT_CAUSE_CHARS)
            print(f"FAILED  {names}: {cause}")
            continue
        meta = outcome.metadata
        failed_calls, unanswered, cause = call_figures(meta)
        kept = kept_figure(meta)
        degraded += failed_calls > 0
        status = "ok     " if failed_calls == 0 else "PARTIAL"
        print(
            f"{status} {names}  pages={meta['parsed_chunks']['pages']} "
            f"chunks={meta['parsed_chunks']['chunks']} terms={meta['glossary']['entries']} "
            f"definitions={meta['glossary']['with_definition']} formulas={meta['formulas']['formulas']} "
            f"rules={meta['rules']['rules']} review_rows={meta['review_queue']['rows']} "
            f"failed_calls={failed_calls} unanswered={unanswered}"
            + (f" kept_from_earlier_run={kept}" if kept else "") + f"  {outcome.seconds:.2f}s"
            + (f"  first failure: {short_cause(cause)}" if cause else "")
        )
        if out is not None:
            exports += 1
            refused += not _exported(store, out, source.doc_id)
    print(f"data: {store.location} ({store.engine})")
    print(f"dagster instance: {Path(instance.root_directory).resolve()}")
    if failures or discovery.problems or refused:
        print(_lost_tally(failures, len(files), len(discovery.problems), refused, exports), file=sys.stderr)
        return EXIT_DOCUMENT_FAILED
    if degraded:
        print(f"{degraded} of {len(files)} documents completed with failed model calls; "
              "a re-run asks those calls again", file=sys.stderr)
        return EXIT_FAILED_CALLS
    return EXIT_OK


def _refuse_export_root(out: Path) -> None:
    """`run --out DIR` refuses, before anything runs, a DIR no document could be exported to:
    one that cannot be written, or whose index.json is not an export's."""
    if cause := cannot_write(out):
        raise ExportError(f"{out}: cannot write there ({cause}); export to a folder you can write")
    check_index(out)


def _exported(store: Store, out: Path, doc_id: str) -> bool:
    """The document exported into `out`, or its refusal named on the line under its summary
    line: the documents after it are exported all the same (D83)."""
    try:
        export_into(store, out, doc_id)
    except ExportError as exc:
        print(f"NOT EXPORTED  {exc}")
        return False
    except OSError as exc:
        print(f"NOT EXPORTED  {exc.filename}: cannot write the export ({exc.strerror})")
        return False
    return True


def _lost_tally(failed: int, documents: int, folders: int, refused: int, exports: int) -> str:
    """The run's losses in one line: documents failed, folders that gave none, exports refused."""
    parts = [f"{failed} of {documents} documents failed"] if failed else []
    parts += [f"{folders} folder{'s' if folders != 1 else ''} gave no documents"] if folders else []
    parts += [f"{refused} of {exports} exports refused"] if refused else []
    return "; ".join(parts)


@_in_one_connection
def cmd_export(args: argparse.Namespace) -> int:
    store = open_store()
    out = Path(args.out)
    if args.approved:
        check_index(out)
        approved = export_approved(store, out, [args.doc_id] if args.doc_id else None, args.format)
        for doc_id in approved.nothing_approved:
            print(f"{doc_id}: nothing approved yet, not exported")
        written = approved.written
    elif args.doc_id:
        _name_the_flat_layout(out)
        written = export_into(store, out, args.doc_id, args.format)
    else:
        raise ExportError("export needs --doc-id, or --approved for every document")
    if args.approved:
        print(f"approved knowledge: wrote {len(written)} files to {out.resolve()}")
    else:
        print(f"{args.doc_id}: wrote {', '.join(p.name for p in written)} to {written[0].parent.resolve()}")
    return 0


_NEW_DOCUMENT_HELP = ("a file registered before with other content, or a copy of a registered document, "
                      "becomes a document of its own (default: a new revision of that document, or an alias)")


def _name_the_flat_layout(out: Path) -> None:
    """`export --doc-id` wrote into DIR itself before it wrote DIR/<doc_id>/ (module docstring):
    files of that layout left in DIR are named, so nobody reads them as the new export."""
    if (out / "glossary.json").is_file():
        print(f"note: {out / 'glossary.json'} and its neighbours are an earlier export in the flat layout; "
              "exports now go to DIR/<doc_id>/", file=sys.stderr)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="knowledge-assets", description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"%(prog)s {_installed_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="register documents and materialise every asset for each")
    run.add_argument("paths", nargs="+", help="files or folders of documents")
    run.add_argument("--out", help="also export each document's contract files to OUT/<doc_id>/")
    run.add_argument("--llm-timeout", type=float, metavar="SECONDS",
                     help="seconds one model request may take "
                     f"(default KNOWLEDGE_LLM_TIMEOUT_S, else {DEFAULT_TIMEOUT_S:g})")
    run.add_argument("--verbose", action="store_true", help="show Dagster's event stream, stack traces included")
    run.add_argument("--new-document", action="store_true", help=_NEW_DOCUMENT_HELP)
    run.set_defaults(handler=cmd_run)
    ingest = sub.add_parser("ingest", help="register a document (and its partition) only")
    ingest.add_argument("file")
    ingest.add_argument("--doc-id", help="explicit document key (default: sidecar, else the registered path "
                        "or content, else content hash)")
    ingest.add_argument("--new-document", action="store_true", help=_NEW_DOCUMENT_HELP)
    ingest.set_defaults(handler=cmd_ingest)
    export = sub.add_parser("export", help="write a document's seven contract files from the store")
    export.add_argument("--doc-id", help="the document (required without --approved; with it, default every document)")
    export.add_argument("--approved", action="store_true",
                        help="only approved knowledge: glossary, interpretation pack, formulas, domain context "
                        "per document")
    export.add_argument("--out", required=True, help="folder to write into: each document in OUT/<doc_id>/, "
                        "and OUT/index.json naming them")
    export.add_argument("--format", choices=FORMATS, default="json",
                        help="json: the contract files (default); csv: a file per branch; xlsx: a workbook "
                        "per document, a sheet per branch")
    export.set_defaults(handler=cmd_export)
    documents_commands.add_commands(sub, _dagster_instance)
    store_commands.add_commands(sub)
    review_commands.add_commands(sub, _document_states)
    eval_command.add_commands(sub, _pipeline_runner)
    semantic_review_commands.add_commands(sub, _pipeline_runner)
    return parser


def _installed_version() -> str:
    try:
        return metadata.version("knowledge-assets")
    except metadata.PackageNotFoundError:
        return "(not installed: no package metadata)"


def main(argv: list[str] | None = None) -> int:
    """Every expected failure of every command is handled here, once: `error: <message>` on
    stderr and the error's exit code (knowledge_assets/errors.py). A command whose output is a
    JSON object names a `report_failure` that prints that object too (semantic-review).

    A closed stdout is handled here too, as the Python documentation says (signal module, "Note
    on SIGPIPE"): stdout is pointed at devnull, so the interpreter's last flush cannot fail
    again, and the exit is EXIT_CLOSED_PIPE. The flush is forced here, inside the handler: the
    pipe may first show as closed there, as argparse's --help does, past the command."""
    try:
        try:
            return _dispatch(build_parser().parse_args(argv))
        finally:
            sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_CLOSED_PIPE


def _dispatch(args: argparse.Namespace) -> int:
    try:
        if args.command in _STORE_COMMANDS and not is_shared_store(store_setting()):
            _refuse_unwritable(store_folder())
        return args.handler(args)
    except KnowledgeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        if report_failure := getattr(args, "report_failure", None):
            report_failure(args, exc)
        return exc.exit_code


if __name__ == "__main__":
    sys.exit(main())
