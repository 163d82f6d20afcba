"""The documentation's examples run: every fenced block of README.md and docs/*.md that follows a
line `<!-- example -->` is run, in order per file, in a scratch folder laid out as a checkout
(scenes/, python/, tools/ linked; build/ this build tree; `dray` on PATH), with the 2-core
machine's Open MPI settings in the environment (Open MPI's own binding: `--bind-to none` is the
page's to give). `sh` blocks run under bash -e, `python` blocks under this
interpreter with PYTHONPATH=build/python. Any non-zero exit fails the test, printing the block.
Usage: examples_test.py SOURCE_DIR BUILD_DIR"""
import os
import re
import subprocess
import sys
import tempfile
import time

source, build = (os.path.abspath(p) for p in sys.argv[1:3])
MARK = "<!-- example -->"


def examples(path):
    """(line, language, code) of each marked block of the Markdown file."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out = []
    for i, line in enumerate(lines):
        if line.strip() != MARK:
            continue
        fence = re.match(r"```(\w+)\s*$", lines[i + 1]) if i + 1 < len(lines) else None
        if not fence:
            sys.exit(f"{path}:{i + 1}: {MARK} must be followed by a fenced block (```sh or ```python)")
        end = next(k for k in range(i + 2, len(lines)) if lines[k].startswith("```"))
        out.append((i + 2, fence.group(1), "\n".join(lines[i + 2:end])))
    return out


pages = [os.path.join(source, "README.md")] + sorted(
    os.path.join(source, "docs", f) for f in os.listdir(os.path.join(source, "docs")) if f.endswith(".md"))
work = tempfile.mkdtemp(prefix="dray-examples-")
for name in ("scenes", "python", "tools"):
    os.symlink(os.path.join(source, name), os.path.join(work, name))
os.symlink(build, os.path.join(work, "build"))
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_orte_execute_quiet="1", PYTHONPATH=os.path.join(build, "python"),
           PYTHONDONTWRITEBYTECODE="1", PATH=os.path.join(build, "tools") + os.pathsep + os.environ.get("PATH", ""))
failed = count = 0
for page in pages:
    for line, language, code in examples(page):
        count += 1
        where = f"{os.path.relpath(page, source)}:{line}"
        if language in ("sh", "bash"):
            command = ["bash", "-e", "-o", "pipefail", "-c", code]
        elif language == "python":
            command = [sys.executable, "-c", code]
        else:
            sys.exit(f"{where}: an example in {language}: only sh and python blocks run")
        start = time.time()
        run = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=900)
        took = time.time() - start
        if run.returncode == 0:
            print(f"ok   {where} ({language}, {took:.1f} s)")
        else:
            failed += 1
            print(f"FAIL {where} ({language}): exit {run.returncode}\n{code}\n--- stdout\n{run.stdout}\n--- stderr\n{run.stderr}")
subprocess.run(["rm", "-rf", work])
print(f"{count} examples, {failed} failed")
if count == 0:
    sys.exit("no example found: the pages mark none")
sys.exit(1 if failed else 0)
