"""The ``crates`` command line: ``crates train``, ``eval``, ``bench``, ``replay``, ``play``,
``serve`` and ``curves``.

Examples: ``crates train --config configs/default.yaml``,
``crates eval --agents heuristic greedy random --deals 2000``,
``crates bench my_pkg.bots:MyAgent``,
``crates replay --agents heuristic greedy --seed 3 --out game.html``,
``crates play --seat 0 --opponents heuristic``, ``crates serve --opponents search``,
``crates curves runs/default``.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from train.config import CHUNK_RANGES, chunk_numbers, read_yaml

DEFAULT_CONFIG = "configs/default.yaml"  # the config the package ships (train/configs)
MAX_PORT = 65535


def parse_rules(pairs: list[str]) -> dict[str, Any]:
    """``["standig_jokers=true", "deal_schedule=[2,1]"]`` -> ruleset options (YAML values)."""
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"--rule takes key=value (e.g. standig_jokers=true), not {pair!r}")
        if key.strip() in ("preset", "num_players", "players"):
            raise ValueError(f"--rule {pair}: give the table with --preset and --players")
        options[key.strip()] = read_yaml(value, f"--rule {pair}")
    return options


def default_agents(preset: str, players: int, rules: dict[str, Any]) -> list[str]:
    """The shipped network against the strongest baseline at a table the package ships a
    network for; the three baselines anywhere else."""
    from agents.shipped import SHIPPED, has_shipped_network
    from train.config import rules_of

    if has_shipped_network(rules_of(preset, players, rules)):
        return [SHIPPED, "heuristic"]
    return ["heuristic", "greedy", "random"]


def network_lines(
    specs: list[str], preset: str, players: int, rules: dict[str, Any], other_table: bool = False
) -> list[str]:
    """What each network among the agents ``specs`` name is (a search's base included): its
    file, the tables it learned and its layout, one line each (``other_table``: as
    ``make_agent``'s)."""
    from agents import PolicyAgent, Table, make_agent
    from train.config import rules_of

    table = Table.from_rules(rules_of(preset, players, rules))
    lines = []
    for spec in dict.fromkeys(specs):
        agent = make_agent(spec, table, seed=0, other_table=other_table)
        network = getattr(agent, "base_policy", agent)
        if isinstance(network, PolicyAgent):
            about = network.describe()  # it starts with the file: said once for a path
            lines.append(about if spec == str(network.path) else f"{spec}: {about}")
    return lines


def add_ray_argument(p: argparse.ArgumentParser, what: str, cpus: str = "--workers") -> None:
    """``--ray [ADDRESS]``: ``what`` as Ray tasks."""
    p.add_argument(
        "--ray",
        nargs="?",
        const="local",
        default=None,
        metavar="ADDRESS",
        help=f"{what} as Ray tasks: on the cluster at ADDRESS, or without it on RAY_ADDRESS's "
        f"cluster or a local Ray of {cpus} CPUs (pip install 'crates-rl[ray]')",
    )


def add_table_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--preset", default="crates", help="rule system (default: crates)")
    p.add_argument("--players", type=int, default=4, help="number of players (default: 4)")
    p.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="ruleset option, repeatable (e.g. --rule standig_jokers=true)",
    )
    p.add_argument("--seed", type=int, default=0)
    add_rules_file_argument(p)


def add_other_table_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--other-table",
        action="store_true",
        help="networks named by path in --agents may play a table outside the set they learned "
        "(a measurement, which the report says; the shipped network keeps to its tables)",
    )


def add_rules_file_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--rules-file",
        action="append",
        default=[],
        type=Path,
        metavar="PATH",
        help="a YAML file declaring house rules, repeatable: its rule systems are played as "
        "--preset NAME (docs/variants.md)",
    )


class ShowVersion(argparse.Action):
    """``--version``: the package's version and the checkout's commit, then exit (git is asked
    only then, not by every command)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        kwargs.setdefault("help", "show the version (and the git commit of a checkout) and exit")
        super().__init__(
            option_strings, argparse.SUPPRESS, nargs=0, default=argparse.SUPPRESS, **kwargs
        )

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from crates_env import provenance

        made = provenance()
        where = f" (commit {made['commit']})" if made["commit"] else ""
        print(f"{parser.prog} {made['version']}{where}")  # on stdout, as argparse's own
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="crates", description="Crates RL command line")
    parser.add_argument("--version", action=ShowVersion)
    sub = parser.add_subparsers(dest="command", required=True)

    ev = sub.add_parser("eval", help="duplicate-deal evaluation of agents against each other")
    ev.add_argument(
        "--agents",
        nargs="+",
        default=None,
        help="agent names (random, greedy, heuristic, search[:settings], shipped: the network "
        "the package ships), checkpoint paths (.zip), policy files (TorchScript .pt, exported "
        ".pt2) or classes by import path (my_pkg.bots:MyAgent) (default: shipped against "
        "heuristic on 4-player crates, otherwise heuristic, greedy, random)",
    )
    add_table_arguments(ev)
    ev.add_argument("--deals", "--games", type=int, default=200, help="deals to play")
    ev.add_argument("--workers", type=int, default=2, help="worker processes (default: 2)")
    ev.add_argument(
        "--engine",
        default="auto",
        help="the engine the games run on: auto (the compiled one wherever it plays the table "
        "and no agent looks ahead in the game), vector, or reference; the same records",
    )
    add_ray_argument(ev, "play the games")
    add_other_table_argument(ev)
    ev.add_argument("--out", type=Path, default=None, help="output folder (default: eval_out/…)")
    ev.add_argument("--no-tensorboard", action="store_true", help="skip TensorBoard scalars")
    ev.add_argument("--quiet", action="store_true", help="no progress bar")
    ev.add_argument(
        "--replays",
        type=int,
        default=0,
        metavar="K",
        help="write the replay pages of the first K games in OUT/replays (default: none)",
    )

    add_bench_parser(sub)

    rp = sub.add_parser(
        "replay", help="one game of crates eval as an HTML page to watch in a browser"
    )
    rp.add_argument(
        "--agents",
        nargs="+",
        default=None,
        help="the agents, as for crates eval (the same default)",
    )
    add_table_arguments(rp)
    add_other_table_argument(rp)
    rp.add_argument("--deal", type=int, default=0, help="the evaluation's deal (default: 0)")
    rp.add_argument(
        "--lineup",
        type=int,
        default=0,
        help="the seating of the agents, as crates eval rotates "
        "them (default: 0, the agents in the order given from seat 0)",
    )
    rp.add_argument("--out", type=Path, default=Path("replay.html"), help="the page to write")
    rp.add_argument(
        "--explain",
        action="store_true",
        help="also SearchAgent's margin for each move at its decisions, with standard errors "
        "(the page's why toggle; it costs a search at every decision)",
    )

    tr = sub.add_parser("train", help="train a MaskablePPO agent by self-play")
    tr.add_argument(
        "--config", type=Path, default=None, help="YAML config (default: the shipped default.yaml)"
    )
    tr.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config key, repeatable (e.g. --set ppo.learning_rate=1e-4)",
    )
    tr.add_argument("--resume", action="store_true", help="continue the run from its checkpoint")
    add_rules_file_argument(tr)
    tr.add_argument(
        "--backend",
        choices=("sb3", "rllib"),
        default="sb3",
        help="sb3: MaskablePPO by self-play (default); rllib: Ray RLlib's PPO against the "
        "scripted opponents (pip install 'crates-rl[ray]')",
    )
    tr.add_argument(
        "--address",
        default=None,
        help="with --backend rllib: the Ray cluster to train on (default: RAY_ADDRESS's, or a "
        "local Ray)",
    )
    add_ray_argument(tr, "expert iteration: label each round's chunks", "expert.workers")

    la = sub.add_parser(
        "label",
        help="label a share of an expert iteration round (chunks of searched games to pool)",
    )
    la.add_argument("--config", type=Path, required=True, help="the run's YAML config")
    la.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    la.add_argument("--round", type=int, default=1, help="the round to label (default: 1)")
    la.add_argument(
        "--chunks",
        default=None,
        metavar="FIRST:STOP",
        help="the chunks to label, e.g. 0:50 or 0:44,100:126 (default: the round's expert.chunks)",
    )
    la.add_argument("--workers", type=int, default=None, help="processes (default: expert.workers)")
    add_ray_argument(la, "label the chunks")

    pl = sub.add_parser("play", help="take a seat in the terminal against agents")
    pl.add_argument("--seat", type=int, default=0, help="your seat (default: 0)")
    pl.add_argument(
        "--opponents",
        nargs="+",
        default=["heuristic"],
        help="one agent for every other seat, or one per other seat in seat order",
    )
    add_table_arguments(pl)

    sv = sub.add_parser(
        "serve", help="the table in a browser: play against agents, one game per tab"
    )
    sv.add_argument("--seat", type=int, default=0, help="your seat (default: 0)")
    sv.add_argument(
        "--opponents",
        nargs="+",
        default=None,
        help="one agent for every other seat, or one per other seat in seat order, named as "
        "for crates eval (default: shipped at a table the package has a network for, otherwise "
        "heuristic)",
    )
    add_table_arguments(sv)
    sv.add_argument("--port", type=int, default=8000, help="port (default: 8000; 0: any free)")
    sv.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default: 127.0.0.1, this machine only)",
    )
    sv.add_argument(
        "--pace",
        type=float,
        default=0.8,
        help="seconds between the agents' moves on the page (default: 0.8)",
    )
    sv.add_argument(
        "--explain",
        action="store_true",
        help="SearchAgent opponents also explain their moves with their margins (the finished "
        "game's replay page; it costs a search at each decision they search)",
    )
    sv.add_argument("--open", action="store_true", help="open the table in the default browser")

    cu = sub.add_parser("curves", help="plot a training run's curves from its TensorBoard logs")
    cu.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="run folder (e.g. runs/default)")
    cu.add_argument(
        "--out",
        type=Path,
        default=None,
        help="PNG to write (default: RUN_DIR/curves.png, with --reference "
        "RUN_DIR/reference_curves.png)",
    )
    cu.add_argument(
        "--reference",
        action="store_true",
        help="draw the run's share of deals against heuristic over the reference learning "
        "curves of 4-player crates, by steps and CPU-hours (docs/benchmark.md)",
    )
    return parser


def add_bench_parser(sub) -> None:
    from train.evaluation.bench import DEALS, QUICK_DEALS, REFERENCE_DEALS, REFERENCE_SEARCH_DEALS

    be = sub.add_parser(
        "bench",
        help="the standard benchmark: agents against the reference ladder at every table "
        "(docs/benchmark.md)",
    )
    be.add_argument(
        "agents",
        nargs="*",
        metavar="AGENT",
        help="agents to bench, named as for crates eval: checkpoints (.zip), policy files "
        "(.pt, .pt2), RLlib module folders, classes by import path (my_pkg.bots:MyAgent), "
        "search with settings",
    )
    be.add_argument(
        "--tables",
        default=None,
        metavar="PRESET:PLAYERS,...",
        help="the tables (e.g. crates:3,zimbabwe:4, or covered; default: the seven 4-player "
        "rule systems)",
    )
    be.add_argument(
        "--deals",
        type=int,
        default=None,
        help=f"deals a pairing (default: {DEALS}; {REFERENCE_DEALS} with --reference)",
    )
    be.add_argument(
        "--quick",
        action="store_true",
        help=f"a first look: {QUICK_DEALS} deals a pairing, the intervals wide",
    )
    be.add_argument(
        "--search-deals",
        type=int,
        default=None,
        help="deals a pairing with search, whose games are slow (default: 0, search's rows "
        f"from the reference; {REFERENCE_SEARCH_DEALS} with --reference)",
    )
    be.add_argument("--workers", type=int, default=2, help="worker processes (default: 2)")
    be.add_argument(
        "--engine",
        default="auto",
        help="the engine the games run on, as for crates eval (default: auto)",
    )
    add_ray_argument(be, "play the games")
    be.add_argument(
        "--out",
        type=Path,
        default=None,
        help="output folder, where a stopped bench resumes (default: bench_out/<agents>)",
    )
    be.add_argument(
        "--results",
        type=Path,
        default=None,
        help="the ladder's results to read (default: the committed reference the package "
        "ships, benchmarks/reference.json)",
    )
    be.add_argument(
        "--reference",
        action="store_true",
        help="play the ladder against itself: the reference results made anew (OUT/bench.json; "
        "copy it to benchmarks/reference.json)",
    )
    be.add_argument(
        "--leaderboard",
        type=Path,
        default=None,
        metavar="PAGE.md",
        help="write the leaderboard page (and its chart beside it) from the results, play "
        "nothing (docs/leaderboard.md)",
    )
    be.add_argument("--no-tensorboard", action="store_true", help="skip TensorBoard scalars")
    be.add_argument("--quiet", action="store_true", help="no progress bar")


def main(argv: list[str] | None = None) -> int:
    from crates_env.processes import interruptible
    from crates_env.rules import register_rules_file
    from train.workers import WorkersFailed

    parser = build_parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # what a result says made it
    commands = {
        "eval": run_eval,
        "bench": run_bench,
        "replay": run_replay,
        "train": run_train,
        "label": run_label,
        "curves": run_curves,
        "play": run_play,
        "serve": run_serve,
    }
    try:
        with interruptible():
            for path in getattr(args, "rules_file", ()):
                register_rules_file(path)
            return commands[args.command](args)
    except (ValueError, WorkersFailed) as exc:  # bad input, dead workers: one clear line
        parser.exit(2, f"crates {args.command}: error: {exc}\n")
    except OSError as exc:  # a full or read-only disk, a path that cannot be written
        from train.files import write_problem

        parser.exit(1, f"crates {args.command}: error: {write_problem(exc)}\n")
    except KeyboardInterrupt:
        return 130


def eval_config(args: argparse.Namespace, **settings: Any):
    """The evaluation the table arguments and ``--agents`` name."""
    from train.evaluation import EvalConfig

    rules = parse_rules(args.rule)
    return EvalConfig(
        agents=tuple(args.agents or default_agents(args.preset, args.players, rules)),
        preset=args.preset,
        num_players=args.players,
        seed=args.seed,
        options=rules,
        other_table=args.other_table,
        **settings,
    )


def run_eval(args: argparse.Namespace) -> int:
    from train.evaluation import (
        DealLog,
        Interrupted,
        format_report,
        game_tasks,
        prepare_output,
        run,
        summarize,
        validate,
    )
    from train.evaluation.replays import write_replays

    config = eval_config(
        args, deals=args.deals, workers=args.workers, ray=args.ray, engine=args.engine
    )
    validate(config)
    for line in network_lines(
        list(config.agents), config.preset, config.num_players, config.options, config.other_table
    ):
        print(line)
    games = len(game_tasks(config))
    if not 0 <= args.replays <= games:
        raise ValueError(f"--replays takes 0..{games} (the games to play), not {args.replays}")
    out = args.out or Path("eval_out") / time.strftime("%Y%m%d-%H%M%S")
    prepare_output(out)
    log = DealLog(out / "deals.csv", config.agents)  # the finished deals, as they finish
    try:
        records = run(config, progress=not args.quiet, keep=log.add)
    except Interrupted as stop:  # Ctrl-C or kill: keep the deals played, say where
        if not stop.deals:
            print("\ninterrupted before a deal was played in every seat: nothing written",
                  file=sys.stderr)  # fmt: skip
            return 130
        report = summarize(replace(config, deals=stop.deals), stop.records)
        report.partial_of = config.deals
        print(format_report(report))
        _write_results(report, out, args, log)
        print(
            f"\ninterrupted after {stop.deals} of {config.deals} deals: the partial result is "
            f"in {out} (report.json says partial_of {config.deals}); its deals.csv pools with "
            "runs of other seeds (--seed) like any run's",
            file=sys.stderr,
        )
        return 130
    report = summarize(config, records)
    print(format_report(report))
    paths = _write_results(report, out, args, log)
    print("wrote " + ", ".join(str(p) for p in paths))
    if args.replays:
        pages = write_replays(config, out / "replays", args.replays)
        print(f"wrote {len(pages)} replay pages in {out / 'replays'} (open one in a browser)")
    return 0


def _write_results(report, out: Path, args: argparse.Namespace, log) -> list[Path]:
    """``write_outputs``; a disk that takes no more is one line under the table just shown,
    naming the files saved before it filled (deals.csv too where ``log``, the
    ``DealLog``, wrote every deal)."""
    from train.evaluation import write_outputs
    from train.files import write_problem

    written: list[Path] = []
    try:
        return write_outputs(report, out, tensorboard=not args.no_tensorboard, written=written)
    except OSError as exc:
        saved = [path.name for path in written]
        if log.kept and log.path.name not in saved:
            saved.append(log.path.name)
        said = f"saved only {', '.join(saved)} in {out}" if saved else "not saved"
        raise ValueError(f"{write_problem(exc)}; the results are the table above, {said}") from None


def run_bench(args: argparse.Namespace) -> int:
    import shlex

    from train.evaluation import bench as b
    from train.evaluation import prepare_output
    from train.evaluation.bench_report import format_bench, write_bench, write_leaderboard

    if args.leaderboard is not None:
        if args.agents or args.reference:
            raise ValueError("--leaderboard writes the page from results: name no agent")
        results = b.read_results(args.results)
        source = args.results or "benchmarks/reference.json"
        paths = write_leaderboard(results, args.leaderboard, str(source))
        print("wrote " + ", ".join(str(p) for p in paths))
        return 0
    if args.quick and args.deals is not None:
        raise ValueError(f"--quick is {b.QUICK_DEALS} deals a pairing: give it or --deals")
    reference = args.reference
    deals = args.deals or (
        b.QUICK_DEALS if args.quick else b.REFERENCE_DEALS if reference else b.DEALS
    )
    search_deals = args.search_deals
    if search_deals is None:
        search_deals = b.REFERENCE_SEARCH_DEALS if reference and not args.quick else 0
    config = b.BenchConfig(
        agents=tuple(args.agents),
        tables=b.parse_tables(args.tables) if args.tables is not None else b.BENCH_TABLES,
        deals=deals,
        search_deals=search_deals,
        quick=args.quick,
        reference=reference,
        workers=args.workers,
        ray=args.ray,
        engine=args.engine,
    )
    b.check(config)
    ladder = None if reference else b.read_results(args.results)
    out = args.out or Path("bench_out") / (
        "reference" if reference else "+".join(b.folder_name(a) for a in config.agents)
    )
    prepare_output(out)
    command = "crates " + shlex.join(args.argv)
    try:
        result = b.bench(config, out, ladder, progress=not args.quiet, command=command)
    except KeyboardInterrupt:
        print(
            f"\ninterrupted: the pairings finished are kept in {out}; the same command (with "
            f"--out {out}) plays the rest",
            file=sys.stderr,
        )
        return 130
    print(format_bench(result))
    paths = write_bench(result, out, tensorboard=not args.no_tensorboard)
    print("wrote " + ", ".join(str(p) for p in paths))
    return 0


def run_replay(args: argparse.Namespace) -> int:
    from crates_env.render import write_page
    from train.evaluation.replays import replay_game
    from train.files import check_output_file

    if args.deal < 0:
        raise ValueError(f"--deal takes a deal number >= 0, not {args.deal}")
    check_output_file(args.out, "--out")
    config = eval_config(args, deals=args.deal + 1)
    start = time.perf_counter()
    replay, _ = replay_game(config, args.deal, args.lineup, search=args.explain)
    path = write_page(replay, args.out)
    seconds = time.perf_counter() - start
    size = path.stat().st_size / 1e6
    print(f"wrote {path}: {len(replay.steps)} steps, {size:.1f} MB in {seconds:.1f} s")
    return 0


def rules_file_override(paths: list[Path]) -> list[str]:
    """A run keeps its rules file in its config (``rules_file``), so that the run's config.json
    says what it played and a resumed run needs nothing more: one file, as the key takes."""
    if len(paths) > 1:
        raise ValueError(
            f"crates train takes one --rules-file (the config's rules_file), not {len(paths)}: "
            "declare the rule systems in one file (a list of them)"
        )
    return [f"rules_file={path.resolve()}" for path in paths]


def run_train(args: argparse.Namespace) -> int:
    from agents.shipped import package_file
    from train.config import load_config
    from train.evaluation import final_table
    from train.ppo import train

    path = args.config or package_file("train", DEFAULT_CONFIG, "the default config")
    config = load_config(path, [*args.set, *rules_file_override(args.rules_file)])
    if args.address is not None and args.backend != "rllib":
        raise ValueError("--address is for --backend rllib (a Ray cluster)")
    if args.ray is not None and config.mode != "expert":
        raise ValueError(
            "--ray labels expert iteration's rounds on Ray (mode: expert); to train PPO on a "
            "Ray cluster use --backend rllib --address ADDRESS"
        )
    if config.mode == "expert":
        if args.backend != "sb3":
            raise ValueError("mode expert (expert iteration) trains on --backend sb3")
        from train.expert import train_expert

        print(f"expert iteration {config.run_dir}: {config.expert.rounds} round(s)")
        checkpoint = train_expert(config, resume=args.resume, ray=args.ray)
        print(f"checkpoint: {checkpoint}")
        print(final_table(config, checkpoint))
        return 0
    print(f"training run {config.run_dir} ({config.total_steps:,} steps, {config.num_envs} games)")
    if args.backend == "rllib":
        from train.rllib import train_rllib

        checkpoint = train_rllib(config, resume=args.resume, address=args.address)
    else:
        checkpoint = train(config, resume=args.resume)
    print(f"checkpoint: {checkpoint}")
    print(final_table(config, checkpoint))
    return 0


def run_label(args: argparse.Namespace) -> int:
    from train.config import load_config
    from train.expert import label_round, labels_folder

    config = load_config(args.config, args.set)
    if config.mode != "expert":
        raise ValueError(
            f"crates label labels the rounds of expert iteration; {args.config} trains with "
            f"mode: {config.mode} (set mode: expert and its expert section)"
        )
    if not 1 <= args.round <= config.expert.rounds:
        raise ValueError(f"--round must be from 1 to expert.rounds ({config.expert.rounds})")
    chunks = parse_chunks(args.chunks)
    if args.workers is not None and args.workers < 1:
        raise ValueError(f"--workers must be at least 1, not {args.workers}")
    folder = labels_folder(config, args.round)
    rows = chunks_done = 0
    try:
        for landed in label_round(
            config, args.round, chunks=chunks, workers=args.workers, ray=args.ray
        ):
            rows, chunks_done = rows + landed, chunks_done + 1
    except KeyboardInterrupt:  # Ctrl-C or kill: what is kept, and how to go on
        print(
            f"\ninterrupted: {chunks_done} chunk(s) labelled in this run ({rows:,} positions) "
            f"are kept in {folder}, the chunk(s) in progress are not; the same command labels "
            "the rest (finished chunks are skipped)",
            file=sys.stderr,
        )
        return 130
    print(f"labelled {rows:,} positions into {folder}")
    return 0


def parse_chunks(text: str | None) -> list[int] | None:
    """``"10:20"`` -> chunks 10 to 19 (or several ranges, ``"0:44,100:126"``); None -> None
    (``label_round`` labels the round's own)."""
    if text is None:
        return None
    try:
        return chunk_numbers(text)
    except ValueError:
        raise ValueError(f"--chunks takes {CHUNK_RANGES}; not {text!r}") from None


def run_play(args: argparse.Namespace) -> int:
    from train.cli.play import play_in_terminal

    play_in_terminal(
        seat=args.seat,
        opponents=args.opponents,
        preset=args.preset,
        num_players=args.players,
        options=parse_rules(args.rule),
        seed=args.seed,
    )
    return 0


def run_serve(args: argparse.Namespace) -> int:
    from train.cli.play import seat_specs

    # the arguments first: a wrong port is the user's first fix, with or without the web extra
    if not 0 <= args.pace <= 60:
        raise ValueError(f"--pace takes 0 to 60 seconds, not {args.pace}")
    if not 0 <= args.port <= MAX_PORT:  # the socket would take it modulo 65536, silently
        raise ValueError(f"--port takes 0 to {MAX_PORT} (0: any free port), not {args.port}")
    try:  # the web extra: only this command needs it
        from train.cli.serve import serve
    except ImportError as exc:
        raise ValueError(
            f"crates serve needs the web extra: pip install 'crates-rl[web]' ({exc})"
        ) from None
    from train.cli.seated import ServeConfig, Tables

    rules = parse_rules(args.rule)
    opponents = args.opponents or default_agents(args.preset, args.players, rules)[:1]
    config = ServeConfig(
        preset=args.preset,
        num_players=args.players,
        seat=args.seat,
        specs=seat_specs(args.players, args.seat, opponents),
        options=rules,
        seed=args.seed,
        pace=args.pace,
        search=args.explain,
    )
    for line in network_lines(opponents, args.preset, args.players, rules):
        print(line)
    serve(Tables(config), host=args.host, port=args.port, open_browser=args.open)
    return 0


def run_curves(args: argparse.Namespace) -> int:
    if args.reference:
        from train.evaluation.reference_curves import plot_reference

        path = plot_reference(args.out or args.run_dir / "reference_curves.png", args.run_dir)
        print(f"wrote {path}")
        return 0
    from train.evaluation.curves import plot_run

    path = plot_run(args.run_dir, args.out or args.run_dir / "curves.png")
    print(f"wrote {path}")
    return 0
