"""Training and what sits on top of it, in three groups with imports one way:

- training (the modules here): ``config`` (the run's YAML), ``ppo`` (MaskablePPO, checkpoints,
  resume), ``selfplay`` (the batched self-play VecEnv), ``imitation`` (the warm start: a teacher's
  games cloned into the policy), ``shaping`` (pressure shaping), ``workers`` (worker processes);
- ``train.evaluation``: duplicate-deal evaluation, its statistics, reports and curves; it uses
  agents and the environment and nothing of training but ``workers`` and ``config.rules_of``;
- ``train.cli``: the ``crates`` command line and the terminal game, over both.
"""
