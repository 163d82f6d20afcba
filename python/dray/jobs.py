"""Optimization jobs from Python: ``dray.optimize(job)`` runs a job file as ``dray optimize``
does (docs/optimization.md), as a process of its own (under ``mpirun -n ranks`` when ranks > 1),
and returns where it wrote and the values it ended at."""
import os
import shutil
import subprocess
from collections import namedtuple

JobResult = namedtuple("JobResult", "output values final_scene")
JobResult.__doc__ = ("output: the output folder; values: {scalar name: final value} (a block: its mean, under "
                     "its name); final_scene: the path of final-scene.json")


def _executable():
    """The dray command: $DRAY, else `dray` on PATH, else the build tree's (build/tools/dray beside build/python)."""
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in (os.environ.get("DRAY"), shutil.which("dray"), os.path.join(here, "..", "..", "tools", "dray")):
        if candidate and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    raise RuntimeError("the dray command was not found: set DRAY to its path (build/tools/dray)")


def optimize(job, ranks=1, output=None, force=False, resume=False, sets=None, defines=None, threads=None, echo=False):
    """Runs the job file `job` and returns a JobResult. `output` (-o), `force`, `resume`, `sets`
    ({key: value}, --set), `defines` ({name: value}, -D) and `threads` are dray optimize's options;
    `echo` prints its per-iteration lines as they come. Bad input (a bad job, an earlier run's
    folder without force or resume) raises ValueError with dray's message; a signal that ends the
    run (Ctrl-C) reaches it too, and raises KeyboardInterrupt here."""
    import json
    command = [_executable(), "optimize", os.fspath(job)]
    if ranks > 1:
        command = ["mpirun", "-n", str(int(ranks)), "--oversubscribe", "--bind-to", "none"] + command
    if output is not None:
        command += ["-o", os.fspath(output)]
    command += ["--force"] if force else []
    command += ["--resume"] if resume else []
    for k, v in (sets or {}).items():
        command += ["--set", "%s=%s" % (k, json.dumps(v.tolist() if hasattr(v, "tolist") else v))]
    for k, v in (defines or {}).items():
        command += ["-D", "%s=%s" % (k, v)]
    if threads is not None:
        command += ["--threads", str(int(threads))]
    if not echo:
        command.append("--quiet")
    env = dict(os.environ, OMPI_MCA_orte_execute_quiet=os.environ.get("OMPI_MCA_orte_execute_quiet", "1"))
    run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if echo:
        print(run.stdout, end="")
    if run.returncode == 130:
        raise KeyboardInterrupt(run.stderr.strip())
    if run.returncode == 2:
        raise ValueError(run.stderr.strip().removeprefix("dray: "))
    if run.returncode != 0:
        raise RuntimeError("dray optimize exited %d: %s" % (run.returncode, run.stderr.strip()))
    values, final = {}, None
    for line in run.stdout.splitlines():
        words = line.split()
        if line.startswith("  ") and len(words) >= 2:
            try:
                values[words[0]] = float(words[1] if words[1] != "block," else words[3])
            except (ValueError, IndexError):
                pass
        if line.startswith("wrote ") and line.endswith("final-scene.json"):
            final = line[len("wrote "):]
    return JobResult(os.path.dirname(final) if final else None, values, final)
