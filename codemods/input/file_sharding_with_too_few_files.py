"""TFD205: under MultiWorkerMirroredStrategy, input read from fewer files than workers, sharded by file."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fixer.facts import MULTI_WORKER
from fixer.fixes.pipeline_edits import add_helper
from fixer.prefilter import STRATEGY
from fixer.rule import Rule
from fixer.tf.file_sources import file_count, literal_worker_count
from fixer.tf.pipelines import Pipeline, auto_shard_policy, distributed_inputs, pipeline
from fixer.tf.tf1_program import runs_tensorflow_1
from fixer.types import Applicability

if TYPE_CHECKING:
    from fixer.context import RuleContext
    from fixer.types import Edit

# The policies under which a multi-worker strategy splits a file-read input by file.
_BY_FILE = (None, "AUTO", "FILE")


class FileShardingWithTooFewFiles(Rule):
    """
    ## What it does
    Under `MultiWorkerMirroredStrategy`, finds a dataset read from files (`TFRecordDataset`,
    `TextLineDataset`, `FixedLengthRecordDataset`, `Dataset.list_files`) that the strategy
    auto-shards (`strategy.experimental_distribute_dataset(ds)`, or `model.fit(ds)`) with the
    default policy (AUTO) or `AutoShardPolicy.FILE`, when the source reads fewer files than the
    cluster has workers.

    ## Why is this bad in distributed training?
    Sharding by file gives each worker its own files; with fewer files than workers some worker
    would get none, and TensorFlow refuses. Measured on TensorFlow 2.21 with 2 workers on
    127.0.0.1 (`benchmarks/probe_file_sharding_too_few_files.py`): one TFRecord file (a path, a
    one-element list or a `list_files` match) or one text file with the default AUTO policy, or
    with FILE, makes worker 0 raise `InvalidArgumentError: Could not apply FILE based sharding:
    the dataset only has 1 file(s), which is not enough for the required 2 shards/workers` and
    worker 1 `UnavailableError: Collective ops is aborted`; Keras `fit` fails the same way. Unlike
    an in-memory source, a file source with too few files does not fall back to sharding by data.
    With the DATA policy the workers read disjoint halves ([0, 2] and [1, 3]); with 2 files each
    worker reads its own file.

    ## Fix safety
    Safe: `.with_options(_shard_by_data())` is added after the file source, with a helper that
    sets `AutoShardPolicy.DATA` (measured with the options on the reader and on `list_files`: the
    two workers then read disjoint halves of the one file, the split the strategy would make of an
    in-memory source). Each worker reads the whole
    file and keeps its share, which costs I/O, not correctness. Splitting the input into at least
    as many files as workers is the other repair, and the faster one for large inputs. Display-only
    when the pipeline sets the policy itself (AUTO or FILE written out): the options are the user's.

    ## Known limits
    - The file count must be plain in the source: a literal path, a literal list of paths, or a
      `list_files` pattern without glob characters.
    - The worker count is taken from a literal TF_CONFIG in the file, and without one only a single
      file is reported (every multi-worker cluster has two workers or more).
    - Not reported: a pipeline sharded by hand (`.shard(...)`) or by the task index, the DATA or OFF
      policy, a glob pattern (its match count is not in the source), datasets built by
      `distribute_datasets_from_function` (no auto-sharding), and `tfds.load` (its file count is not
      in the source either).

    ## Runtime evidence
    `distfix validate` names this rule behind the `Could not apply FILE based sharding` error.

    ## References
    - https://www.tensorflow.org/tutorials/distribute/input#sharding
    - https://github.com/tensorflow/tensorflow/issues/36846
    """

    code = "TFD205"
    name = "file-sharding-with-too-few-files"
    message = "input read from fewer files than workers is sharded by file"
    fix_title = "Auto-shard this input by data"
    applicability = Applicability.SAFE
    triggers = ("Dataset",)
    needs = (STRATEGY,)
    facts = (MULTI_WORKER,)

    def check(self, ctx: RuleContext) -> None:
        if runs_tensorflow_1(ctx.tf.target) or not ctx.tf.strategies.uses_multi_worker:
            return
        workers = literal_worker_count(ctx.tf)
        reported: set[int] = set()
        for call, dataset in distributed_inputs(ctx.tf):
            found = pipeline(ctx.tf, dataset, call)
            if found is None or found.source is None or id(found.source) in reported or found.per_task(ctx.tf):
                continue
            policy = auto_shard_policy(ctx.tf, found)
            if policy not in _BY_FILE:
                continue
            files = file_count(ctx.tf, found.source)
            if files is None or not (files < workers if workers is not None else files == 1):
                continue
            reported.add(id(found.source))
            cluster = f"{workers} workers" if workers is not None else "2+ workers"
            ctx.report(
                found.source,
                f"{files} file(s) for {cluster}, sharded by file ({policy or 'AUTO'} policy, distributed at line "
                f"{ctx.range(call).start.line}): `Could not apply FILE based sharding`; use `AutoShardPolicy.DATA` "
                "or one file per worker",
                edits=_shard_by_data(ctx, found) if policy is None else None,
                applicability=None if policy is None else Applicability.DISPLAY_ONLY,
            )


def _shard_by_data(ctx: RuleContext, found: Pipeline) -> list[Edit] | None:
    """Edits that add the DATA policy right after the file source, with its helper."""
    assert found.source is not None
    tf, imports = ctx.import_module("tensorflow", "tf")
    helper = add_helper(ctx, "snippets/shard_by_data.py.j2", "_shard_by_data", tf=tf)
    return [*imports, *helper, ctx.insert_after(found.source, ".with_options(_shard_by_data())")]
