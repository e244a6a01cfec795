"""TFD502: every worker writes its checkpoint or model to the same path."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.fixes.checkpoint_edits import rewrite_save
from fixer.rule import Rule
from fixer.tf.checkpoints import chief_guard, multi_worker_at, per_worker, save_calls
from fixer.tf.save_locations import per_container
from fixer.types import Applicability

if TYPE_CHECKING:
    from fixer.context import RuleContext
    from fixer.tf.checkpoints import Save


class CheckpointPathSharedByWorkers(Rule):
    """
    ## What it does
    Under `MultiWorkerMirroredStrategy`, finds `model.save`, `model.save_weights`,
    `tf.train.Checkpoint.save`/`write` and `tf.train.CheckpointManager(directory=...)` that every
    worker runs with the same path.

    ## Why is this bad in distributed training?
    The workers race on the same files. Measured on TensorFlow 2.21 with two workers saving a
    `tf.train.Checkpoint`, a `.keras` model and weights to one path: one worker fails with
    `InvalidArgumentError: ... MergeV2Checkpoints ... did not exist`, and which one fails changes
    from run to run. One-file Keras saves fail otherwise (Keras 3 and tf-keras,
    `benchmarks/probe_h5_shared_path.py`): to one `.h5` path, every save of one worker raises
    `BlockingIOError` (h5py's file lock) and the file left may not load; to one `.keras` path,
    no save raises but the archive left may not load (`BadZipFile`). The message says which.

    ## Fix safety
    Unsafe. The TensorFlow-documented pattern is added: every worker still saves (saving can
    involve collectives), the chief to the real path, the others to
    `<dir>/workertemp_<task_id>/...`, which they delete right after (`_worker_path` and
    `_remove_worker_copy` helpers, generated from a template, using the strategy's cluster
    resolver). For a `CheckpointManager` only the directory is rewritten: delete the other
    workers' directories after saving. Verified on two workers: only the chief's files remain.
    A one-machine strategy has no cluster resolver (`None`, measured:
    benchmarks/probe_single_machine_cluster_resolver.py): the helper then keeps the path, and the
    fix is offered only where the strategy at the save may be a `MultiWorkerMirroredStrategy`.
    A strategy has `cluster_resolver` from TensorFlow 2.3 (the r2.2 API docs list only `extended`
    and `num_replicas_in_sync`): on an older target (`distfix target`) the finding has no fix.

    ## Known limits
    - Models are recognised from Keras constructors, model factories of the module, subclasses of
      `keras.Model`, `load_model`, any name the file calls `compile` or `fit` on (a model from a
      package the file does not see), and functions and `keras.Model` subclasses of other modules
      of the project that the file imports (followed as for TFD504; modules under `site-packages`
      are not).
    - A path is per worker when it depends on the task, directly or through what it is built from:
      a variable is followed to its bindings (`path = write_filepath(..., task_id)`,
      `d = "/ckpt" if is_chief else f".../workertemp_{task_id}"`), a parameter to what the callers
      pass, a helper to its body, an attribute (`self.ckpt_dir = worker_dir(..., task_id)` in any
      method of the class, then `CheckpointManager(ckpt, self.ckpt_dir)`) to its assignments.
      The task is also the number the file puts into TF_CONFIG's `task.index` (`"model" +
      str(n)` where TF_CONFIG's task is `{"type": "worker", "index": n}`, the same binding of `n`)
      and an environment variable named for the worker's number (`WORKER_NUMBER`, `TASK_INDEX`,
      `RANK`): every worker writes its own file. So does a path built on the host's name
      (`os.environ["SLURMD_NODENAME"]`, `HOSTNAME`, `socket.gethostname()`, `platform.node()`: a
      non-chief branch's `out + "/scratch/" + os.environ["SLURMD_NODENAME"]`), where each host
      runs one worker (one Slurm task per node, one pod).
    - A path built on a folder or file `tempfile.mkdtemp()`, `mkstemp()`, `TemporaryDirectory()` or
      `NamedTemporaryFile()` creates is the worker's own (the name is new to every process): the
      chief saving to the real folder under a chief test while the others save into a `mkdtemp()`
      folder and remove it is not reported. `tempfile.gettempdir()` is one shared folder: it is.
    - A multi-worker strategy constructed in a bare expression statement (a leftover notebook cell,
      `tf.distribute.MultiWorkerMirroredStrategy()` alone) is never bound nor used and decides
      nothing: a save under the `MirroredStrategy` the model's scope enters is one process's. So
      for every rule asking whether the module is multi-worker.
    - The strategy a local factory returns is the one its literal arguments select (`make()` with
      `def make(mode="local")` returns the `if mode == "local":` arm's `MirroredStrategy`): a save
      under it is one process's, no finding. So is an `if args.flag == "multi":` arm when the flag
      (argparse or absl) defaults to another string and no launcher of the project passes
      `--flag multi` (the program runs with the default; a launcher that passes it is reported).
    - A path in the worker's own container is not shared: SageMaker's model folder (`SM_MODEL_DIR`,
      `/opt/ml/model`, also as a flag's default), and a local absolute path (`/tmp/model`) in a script
      that a Kubeflow TFJob of the project runs (a manifest or a `kind: tfjob` component naming it:
      one pod per worker); and a temporary folder (`/tmp`, `/var/tmp`, `/dev/shm`) of a script whose
      TF_CONFIG (a literal the script sets, or a launcher's `export TF_CONFIG='{...}'`) names a
      different host at every address (another absolute path, `/data/model`, may be a network
      mount those hosts share: still reported); a relative path (`model.h5`) is then each host's
      own too. The README's run instructions count as such a TF_CONFIG (ledger10a): an `export
      TF_CONFIG='...'` line or a cluster object (JSON or a Python dict) in its code lines or a
      command line of its prose (`user@node0$ export TF_CONFIG=...`; other prose is not read),
      from a README of the script's folder or one above it whose commands name the script
      (`python src/train.py`) or, naming no `.py` file, of the multi-worker script's own folder
      (fixer/tf/readme_clusters.py). So does a docker-compose service's `environment:` TF_CONFIG
      (`TF_CONFIG: '{...}'` or `- TF_CONFIG={...}`) in a compose file of the script's folder or
      one above, when the service's image is built from a folder holding the multi-worker script
      (`build: .`) and it mounts no volume (one container per machine, ledger13a;
      fixer/tf/compose_clusters.py). So is a temporary folder or a relative path of a script that a
      Dockerfile of its folder copies into its image (`COPY main.py /code/main.py`, `COPY . /app`;
      no `VOLUME`) when no file of the project sets its cluster: whatever runs the image (a TFJob,
      an Arena job) gives each worker its own container (fix22b, kubeflow/arena;
      fixer/tf/baked_images.py). Shared storage (`gs://`,
      `s3://`, `AIP_MODEL_DIR`) and local paths of workers started as processes of one host
      (localhost, one host with several ports) are still reported.
    - Saves only the chief runs are TFD503's (under a chief test, or after an `if not chief:` whose
      body returns or ends the process: `sys.exit()`, `exit()`, `os._exit()`), and so is a manager
      only the chief saves through. A launcher's rank 0 is the chief (one worker per rank, the rank
      as task index): `comm_rank() == 0`, `MPI.COMM_WORLD.Get_rank() == 0`, `hvd.rank() == 0`,
      `int(os.environ["OMPI_COMM_WORLD_RANK"]) == 0`, and `not distributed or rank == 0`.
    - Keras `ModelCheckpoint` and `BackupAndRestore` callbacks handle this themselves and are not
      reported. Nor is `tf.saved_model.save(obj, export_dir)`: two workers exporting to one
      directory 12 times in a row raised nothing and every export loaded (measured on TensorFlow
      2.21: benchmarks/probe_saved_model_shared_path.py).

    ## Runtime evidence
    Running the original with `distfix validate --workers 2` can fail check `runs` with the
    error above (a race, not every time); the fixed script saves on both workers.

    ## References
    - https://www.tensorflow.org/tutorials/distribute/multi_worker_with_keras#model_saving_and_loading
    - https://www.tensorflow.org/tutorials/distribute/multi_worker_with_ctl#checkpoint_saving_and_restoring
    """

    code = "TFD502"
    name = "checkpoint-path-shared-by-workers"
    message = "every worker writes the same checkpoint path"
    fix_title = "Give non-chief workers a temporary path"
    applicability = Applicability.UNSAFE
    triggers = ("MultiWorkerMirroredStrategy",)

    def check(self, ctx: RuleContext) -> None:
        if not ctx.tf.strategies.uses_multi_worker:
            return
        saves = save_calls(ctx.tf)
        for save in saves:
            if (
                save.kind == "manager_save"
                or per_worker(ctx.tf, save.path)
                or chief_guard(ctx.tf, save.call) is not None
                or per_container(ctx.tf, save.path)
            ):
                continue
            if not multi_worker_at(ctx.tf, save.call):
                continue  # a branch of another strategy (a TPU-only save): one host writes
            if save.kind == "manager":
                uses = [s for s in saves if s.manager is save]
                if uses and all(chief_guard(ctx.tf, s.call) is not None for s in uses):
                    continue  # only the chief saves through it: TFD503
            ctx.report(save.call, _race_message(ctx, save), edits=rewrite_save(ctx, save))


# What two workers saving to one path of each one-file Keras format were measured to do
# (benchmarks/probe_h5_shared_path.py, Keras 3 and tf-keras alike).
_ONE_FILE_RACES = {
    ".h5": "one worker's save fails on h5py's file lock (`BlockingIOError`)",
    ".hdf5": "one worker's save fails on h5py's file lock (`BlockingIOError`)",
    ".keras": "the zip archives interleave and the file left may not load (`BadZipFile`)",
}


def _race_message(ctx: RuleContext, save: Save) -> str:
    """The finding's text: the checkpoint writer's failure for checkpoints, SavedModel folders and
    weights, what one-file formats do for a `.h5` / `.keras` path (ledger10a class 1)."""
    advice = "the chief should write it and the others a temporary copy"
    extension = _one_file_extension(ctx, save.path) if save.kind == "save" else None
    if extension is not None:
        return f"every worker writes this `{extension}` file: {_ONE_FILE_RACES[extension]}, measured; {advice}"
    return (
        "every worker writes this path: the writes race (measured: `MergeV2Checkpoints ... did not exist` "
        f"on one worker); {advice}"
    )


def _one_file_extension(ctx: RuleContext, path: cst.BaseExpression | None, depth: int = 0) -> str | None:
    """The one-file format ``path`` ends in (`.h5`, `.hdf5`, `.keras`), read from a literal, the end
    of an f-string or `+`, or the one value a name holds; None when unknown or another."""
    text: str | None = None
    if isinstance(path, cst.SimpleString) and isinstance(path.evaluated_value, str):
        text = path.evaluated_value
    elif isinstance(path, cst.FormattedString) and path.parts and isinstance(path.parts[-1], cst.FormattedStringText):
        text = path.parts[-1].value
    elif isinstance(path, cst.BinaryOperation) and isinstance(path.operator, cst.Add) and depth < 4:
        return _one_file_extension(ctx, path.right, depth + 1)
    elif isinstance(path, cst.Name) and depth < 4:
        return _one_file_extension(ctx, ctx.tf.semantic.value_of(path), depth + 1)
    if text is None:
        return None
    return next((e for e in _ONE_FILE_RACES if text.lower().endswith(e)), None)
