"""RLlib's single-agent env runner, sampling a rollout fragment of the learner's games as arrays
(``crates train --backend rllib``; RLlib is the optional extra ``ray``, which this module
imports).

RLlib's own runner keeps an episode object per game and, every step, runs its connector
pipelines over the batch, takes the observations and the module's outputs apart into one
item per game and appends each to its game's episode: Python work per game and step that costs
several times the compiled games themselves. ``FragmentRunner`` steps the same vector env with
the same module and the same sampling of moves (the module's exploration distribution of its
masked logits), keeps each step's batch whole (observations, moves, rewards, their
log-probabilities and the module's logits), and cuts the finished fragment into RLlib's episode
chunks once at its end, a few array slices per game: what the learner receives is what RLlib's
runner would hand it.

- Autoreset is next-step (``LearnerGames``): the step after a game ends starts the slot's next
  game, its move unused and not counted, as in RLlib's runner.
- A game running on at the fragment's end is handed over as a chunk of its episode (same id,
  its ``t_started`` where the last chunk stopped); the next fragment goes on with it.
- ``on_episode_end`` callbacks see each finished game's episode chunk (its last info is the
  game's result) and its earlier chunks, as RLlib makes them; per-step callbacks are not made.
- Sampling by episodes, without exploration, or at random (which the training never asks for)
  is RLlib's own, from freshly reset games.
"""

from __future__ import annotations

import uuid

import numpy as np
import torch
from ray.rllib.callbacks.utils import make_callback
from ray.rllib.core.columns import Columns
from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner
from ray.rllib.env.single_agent_episode import SingleAgentEpisode
from ray.rllib.utils.metrics import WEIGHTS_SEQ_NO

# what a fragment keeps of each step, [slot, ...]: the observations moved from, the moves, their
# log-probabilities and the module's logits, the rewards, the games' ends, and which slots only
# restarted a game (a move not made)
STEP_ARRAYS = (
    "obs",
    "actions",
    "logp",
    "logits",
    "rewards",
    "terminated",
    "truncated",
    "restarting",
)


class FragmentRunner(SingleAgentEnvRunner):
    """``SingleAgentEnvRunner`` whose sampling of ``num_timesteps`` records the fragment as
    arrays and builds the episode chunks at its end (the module doc)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._games_started = False

    def _sample(
        self,
        *,
        num_timesteps: int | None = None,
        num_episodes: int | None = None,
        explore: bool,
        random_actions: bool = False,
        force_reset: bool = False,
    ) -> list[SingleAgentEpisode]:
        if num_timesteps is None or not explore or random_actions:
            self._games_started = False  # RLlib's sampling moves the games on its own way
            return super()._sample(
                num_timesteps=num_timesteps,
                num_episodes=num_episodes,
                explore=explore,
                random_actions=random_actions,
                force_reset=True,
            )
        if force_reset or not self._games_started:
            self._start_games()
        fragment = self._play(num_timesteps)
        return self._episodes(fragment)

    # ------------------------------------------------------------------ playing
    def _start_games(self) -> None:
        """Fresh games in every slot (seeded the first time), each a new episode."""
        games = self.env.env  # LearnerGames, under RLlib's DictInfoToList
        seed = self._seed if self._needs_initial_reset else None
        self._obs, _ = games.reset(seed=seed)
        self._needs_initial_reset = False
        self._restarting = np.zeros(self.num_envs, dtype=bool)  # ended: restarts next step
        # per slot, the running game's episode (id, its steps in earlier chunks), or None
        self._open: list[tuple[str, int] | None] = [
            (uuid.uuid4().hex, 0) for _ in range(self.num_envs)
        ]
        self._ongoing_episodes_for_metrics.clear()
        self._games_started = True

    def _play(self, num_timesteps: int) -> dict:
        """Step every slot until ``num_timesteps`` moves are made: each step's arrays, stacked
        ``[step, slot, ...]``, the observations one step longer (the last ones the next
        fragment starts from), and the results of the games that ended."""
        games, module = self.env.env, self.module
        dist_class = module.get_exploration_action_dist_cls()
        steps: dict[str, list] = {key: [] for key in STEP_ARRAYS}
        results: dict[tuple[int, int], dict] = {}
        made = 0
        while made < num_timesteps:
            with torch.no_grad():
                out = module.forward_exploration({Columns.OBS: torch.from_numpy(self._obs)})
                logits = out[Columns.ACTION_DIST_INPUTS]
                dist = dist_class.from_logits(logits)
                actions = dist.sample()
                logp = dist.logp(actions)
            actions = actions.numpy()
            obs, rewards, terminated, truncated, infos = games.step(actions)
            t = len(steps["obs"])
            arrays = (self._obs, actions, logp.numpy(), logits.numpy(), rewards, terminated)
            for key, value in zip(STEP_ARRAYS, (*arrays, truncated, self._restarting), strict=True):
                steps[key].append(value)
            ended = terminated | truncated
            for slot in np.flatnonzero(ended):
                results[(t, slot)] = {
                    key: value[slot] for key, value in infos.items() if not key.startswith("_")
                }
            made += self.num_envs - int(self._restarting.sum())
            self._obs, self._restarting = obs, ended
        fragment = {key: np.stack(values) for key, values in steps.items()}
        fragment["obs"] = np.concatenate([fragment["obs"], self._obs[None]])
        fragment["results"], fragment["made"] = results, made
        return fragment

    # ------------------------------------------------------------------ episodes
    def _episodes(self, fragment: dict) -> list[SingleAgentEpisode]:
        """The fragment cut into RLlib's episode chunks, in the order RLlib's runner gives
        them: the games that ended in it as they ended, then the games running on (continued by
        the next fragment) slot by slot."""
        done, ongoing = [], []
        last = len(fragment["actions"])
        ended = fragment["terminated"] | fragment["truncated"]
        for slot in range(self.num_envs):
            start = 0
            for t in np.flatnonzero(ended[:, slot] | fragment["restarting"][:, slot]):
                if fragment["restarting"][t, slot]:  # the slot's next game starts
                    self._open[slot], start = (uuid.uuid4().hex, 0), t + 1
                    continue
                done.append((t, slot, self._chunk(fragment, slot, start, t + 1)))
                self._open[slot] = None
            if self._open[slot] is not None and start < last:
                episode = self._chunk(fragment, slot, start, last)
                self._ongoing_episodes_for_metrics[episode.id_].append(episode)
                ongoing.append(episode)
                self._open[slot] = (episode.id_, episode.t)
        done.sort(key=lambda end: end[:2])
        for _, slot, episode in done:
            self._end_game(episode, slot)
        done = [episode for _, _, episode in done]
        self._done_episodes_for_metrics.extend(done)
        made = fragment["made"]
        self._log_env_steps(metric=self._metrics_num_env_steps_sampled, num_steps=made)
        self._increase_sampled_metrics(made, len(done))
        return done + ongoing

    def _chunk(self, fragment: dict, slot: int, start: int, stop: int) -> SingleAgentEpisode:
        """Slot ``slot``'s steps ``start`` to ``stop`` (excluded) as a numpy episode chunk of
        its open game; its last info is the game's result if the game ended there."""
        episode_id, before = self._open[slot]
        moves = slice(start, stop)
        last = stop - 1
        return SingleAgentEpisode(
            id_=episode_id,
            observations=np.ascontiguousarray(fragment["obs"][start : stop + 1, slot]),
            observation_space=self.env.single_observation_space,
            infos=[{}] * (stop - start) + [fragment["results"].get((last, slot), {})],
            actions=fragment["actions"][moves, slot],
            action_space=self.env.single_action_space,
            rewards=fragment["rewards"][moves, slot],
            extra_model_outputs={
                Columns.ACTION_DIST_INPUTS: np.ascontiguousarray(fragment["logits"][moves, slot]),
                Columns.ACTION_LOGP: fragment["logp"][moves, slot],
                WEIGHTS_SEQ_NO: np.full(stop - start, self._weights_seq_no),
            },
            terminated=bool(fragment["terminated"][last, slot]),
            truncated=bool(fragment["truncated"][last, slot]),
            t_started=before,
            len_lookback_buffer=0,
        )

    def _end_game(self, episode: SingleAgentEpisode, slot: int) -> None:
        make_callback(
            "on_episode_end",
            callbacks_objects=self._callbacks,
            callbacks_functions=self.config.callbacks_on_episode_end,
            kwargs=dict(
                episode=episode,
                prev_episode_chunks=self._ongoing_episodes_for_metrics[episode.id_],
                env_runner=self,
                metrics_logger=self.metrics,
                env=self.env.unwrapped,
                rl_module=self.module,
                env_index=slot,
            ),
        )
