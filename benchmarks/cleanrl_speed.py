"""Training speed of the CleanRL-style example (docs/examples/cleanrl_ppo.py, its own PPO on
gym.make_vec's native vector env) against SB3's MaskablePPO (crates train) on the same games and
PPO settings, side by side in one run.

    python benchmarks/cleanrl_speed.py [--steps 100000] [--repeats 3]

Both: 4-player crates against HeuristicAgent at the other seats, 64 games, 64 decisions a game a
rollout, minibatches of 1,024, 4 epochs, 256x256 actor and critic, torch on the usable cores, no
warm start and no checks during the run. Learner decisions per second of whole runs (start-up
included), medians over the repeats, the two in turn; beside them decisions per CPU second of the
process (both run in one process), which other work on a shared machine disturbs less. Under
``taskset -c 1`` both run torch on one thread (the usable cores).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from crates_env.processes import usable_cores
from train.config import load_config
from train.ppo import STATE, train

ROOT = Path(__file__).resolve().parent.parent
NUM_ENVS, N_STEPS, BATCH, EPOCHS = 64, 64, 1024, 4


def example():
    path = ROOT / "docs" / "examples" / "cleanrl_ppo.py"
    spec = importlib.util.spec_from_file_location("cleanrl_ppo", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["cleanrl_ppo"] = module
    spec.loader.exec_module(module)
    return module


def timed(run, steps: int, folder: str) -> tuple[float, float]:
    """Learner decisions per second of ``run`` (which returns how many it made), wall clock and
    CPU time of this process."""
    wall, cpu = time.perf_counter(), time.process_time()
    done = run(steps, folder)
    return done / (time.perf_counter() - wall), done / (time.process_time() - cpu)


def cleanrl_run(steps: int, folder: str) -> int:
    ppo = example()
    argv = [f"--total-timesteps={steps}", f"--num-envs={NUM_ENVS}", f"--num-steps={N_STEPS}"]
    argv += [f"--num-minibatches={NUM_ENVS * N_STEPS // BATCH}", f"--update-epochs={EPOCHS}"]
    argv += [f"--threads={usable_cores()}", f"--out={folder}/policy.pt", "--opponent=heuristic"]
    args = ppo.parse_args(argv)
    ppo.train(args)
    return (steps // args.batch_size) * args.batch_size


def sb3_run(steps: int, folder: str) -> int:
    overrides = [
        'warm_start.teacher=""',
        "opponents.scripted={heuristic: 1.0}",
        f"num_envs={NUM_ENVS}",
        f"ppo.n_steps={N_STEPS}",
        f"ppo.batch_size={BATCH}",
        f"ppo.n_epochs={EPOCHS}",
        "net_arch=[256, 256]",
        f"total_steps={steps}",
        f"checkpoint_every={steps}",
        f"eval.every={10 * steps}",
        f"runs_dir={folder}",
        "run_name=sb3",
        "progress_bar=false",
    ]
    config = load_config(None, overrides)
    train(config)
    return json.loads((config.run_dir / STATE).read_text())["num_timesteps"]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=100_000)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    runs = {"cleanrl example": cleanrl_run, "sb3 (crates train)": sb3_run}
    rates: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
    for _ in range(args.repeats):
        for name, run in runs.items():
            with tempfile.TemporaryDirectory() as folder:
                wall, cpu = timed(run, args.steps, folder)
            rates[name].append((wall, cpu))
            print(f"{name}: {wall:,.0f} learner decisions/s, {cpu:,.0f} per CPU s", flush=True)
    sb3 = rates["sb3 (crates train)"]
    base = [statistics.median(rate[k] for rate in sb3) for k in (0, 1)]
    print(f"\nmedians over {args.repeats} runs of {args.steps:,} learner decisions:")
    for name, values in rates.items():
        wall, cpu = (statistics.median(rate[k] for rate in values) for k in (0, 1))
        print(
            f"  {name:20} {wall:8,.0f} /s  ({wall / base[0]:.2f} x sb3)   "
            f"{cpu:8,.0f} per CPU s  ({cpu / base[1]:.2f} x sb3)"
        )


if __name__ == "__main__":
    main()
