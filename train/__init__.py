"""Training and what sits on top of it, in three groups with imports one way:

- training (the modules here):
  - ``config``: the run's YAML, every key declared with its type and default;
  - ``ppo``: ``crates train``, self-play MaskablePPO from set-up to the last checkpoint;
  - ``vec_env``: the self-play games as SB3's VecEnv, in worker processes;
  - ``selfplay``: a worker's batch of self-play games, what the learner is fed;
  - ``opponents``: who the learner meets (the pool of scripted agents and snapshots);
  - ``imitation``: the warm start, a teacher's games cloned into the policy;
  - ``shaping``: pressure shaping;
  - ``duplicate``: duplicate rewards, the learner paid against HeuristicAgent's game of the deal;
  - ``expert``: expert iteration, search labels distilled into the network round after round;
  - ``labels``: expert iteration's labels, the search's verdicts on many games, on disk;
  - ``rllib`` and ``rllib_runner``: training on Ray RLlib (the optional extra ``ray``);
  - ``metrics``: what a finished training game says, as TensorBoard scalars;
  - ``files``: a run's files, written whole or not at all;
  - ``convert``: a network to play or ship (no optimizer state), and sb3-contrib zips read
    without unpickling;
  - ``progress``: progress lines for the phases without a bar;
  - ``workers``: torch's threads, the Ray session workers run in (a worker process's
    plumbing, its cores and signals, is ``crates_env.processes``);
- ``train.evaluation``: duplicate-deal evaluation, its statistics, reports and curves; it uses
  agents and the environment and nothing of training but ``workers`` and ``config``'s rule
  checks;
- ``train.cli``: the ``crates`` command line and the terminal and browser games, over both.
"""
