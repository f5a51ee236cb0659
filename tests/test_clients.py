"""The AEC env as other RL libraries take it, without adapters, over whole games: TorchRL's
``PettingZooWrapper`` and Tianshou's ``PettingZooEnv`` in a ``Collector`` with a replay buffer.
Both build their storage from the first step's infos, so the infos must be numbers of one shape
at every step (a list of hand dicts broke both at the first hand's end). They are the optional
extra ``clients``, installed by the README's test command."""

from __future__ import annotations

import pytest
import torch

EXTRA = "the optional extra clients is not installed: pip install -e '.[clients]'"
pytest.importorskip("tianshou", reason=EXTRA)
pytest.importorskip("torchrl", reason=EXTRA)

from tianshou.algorithm.multiagent.marl import MultiAgentPolicy  # noqa: E402
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm  # noqa: E402
from tianshou.data import Collector, VectorReplayBuffer  # noqa: E402
from tianshou.env import DummyVectorEnv, PettingZooEnv  # noqa: E402
from torchrl.envs.libs.pettingzoo import PettingZooWrapper  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402

from crates_env import crates_v0  # noqa: E402
from crates_env.state import HAND_ENDINGS  # noqa: E402

SHORT = {"deal_schedule": [2, 1]}  # two hands a game: many hand ends in a short rollout


WAYS = {HAND_ENDINGS.index(e) for e in ("out", "count", "pressure")}  # a Crates hand's ends


def test_torchrl_rolls_out_whole_games_with_the_state():
    aec = crates_v0.env(**SHORT)
    env = PettingZooWrapper(aec, use_mask=True, return_state=True)
    check_env_specs(env)
    env.set_seed(3)  # the deals; random play can make a two-card hand last hundreds of steps
    torch.manual_seed(0)  # the moves
    steps = 400
    rollout = env.rollout(steps, break_when_any_done=False)  # random legal moves, resets
    assert rollout.batch_size == (steps,)
    assert rollout["state"].shape == (steps, *aec.unwrapped.state_space.shape)
    games = int(rollout["next", "done"].sum())
    assert games >= 3
    info = rollout["next", "player_0", "info"]
    ended = info["hands_ended"].squeeze(-1)
    assert int(ended.sum()) >= 2 * (games - 1)  # every hand of every finished game
    points = info["hand_points"].squeeze(-2)
    assert (points[ended > 0] != 0).any(-1).all()
    assert (points[ended == 0] == 0).all()
    assert set(info["ended_by"].squeeze(-1)[ended > 0].tolist()) <= WAYS


def test_tianshou_collects_whole_games_into_a_replay_buffer():
    def make() -> PettingZooEnv:
        return PettingZooEnv(crates_v0.env(**SHORT))

    envs = DummyVectorEnv([make, make])
    probe = make()
    random_player = MARLRandomDiscreteMaskedOffPolicyAlgorithm(probe.action_space).policy
    policy = MultiAgentPolicy(dict.fromkeys(probe.agents, random_player))
    buffer = VectorReplayBuffer(4000, len(envs))
    collector = Collector(policy, envs, buffer)
    collector.reset()
    stats = collector.collect(n_episode=6)
    assert stats.n_collected_episodes == 6
    assert len(buffer) == stats.n_collected_steps
    stored = buffer[buffer.sample_indices(0)].info  # every transition stored
    assert stored.hand_points.shape == (len(buffer), 4)
    assert int(stored.hands_ended.sum()) >= 6 * 2  # the hands of the six games at least
    ended = stored.hands_ended > 0
    assert (stored.hand_points[ended] != 0).any(-1).all()
    assert set(stored.ended_by[ended].tolist()) <= WAYS
    assert (stored.hand_points[~ended] == 0).all() and (stored.went_out[~ended] == -1).all()
