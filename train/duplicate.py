"""Duplicate rewards for self-play: the learner is paid as the bar scores it.

Every game the learner plays is a deal that HeuristicAgent also plays at every seat (the
*baseline game*: the same cards in every hand, the same reshuffles while play agrees). When the
learner's game ends it is paid +1 if its side stood better than the same side of the baseline
game, -1 if worse and 0 if level, and nothing before: the sign of the duplicate comparison the
evaluation makes against HeuristicAgent (``train.evaluation``, the bar of docs/model_card.md),
seat by seat. The cards' luck is in both games, so what the reward measures is the learner's
play; a doubling pressure worth thousands of points counts as one deal, as the bar counts it.

The opponents are HeuristicAgent (the baseline's own agents, seeded as the baseline game's), so
the two games differ only in the learner's seat. Game ``k`` of a batch seeded ``s`` is dealt
from ``seed_of(s, k)`` as the evaluation deals its deal ``k`` of seed ``s``; the baseline games
are played a block of deals at a time on the batch's engine.
"""

from __future__ import annotations

import numpy as np

from agents import make_agent
from agents.base import decide_batch
from crates_env.engine_choice import game_batch, in_seat_layout
from crates_env.vector_env import Lineup
from train.evaluation.games import seed_of
from train.opponents import OpponentPool, PoolSeating, learner_seats

BASELINE = "heuristic"  # who the learner is compared with, and who it plays against
BLOCK = 64  # deals whose baseline games are played side by side


class DuplicateSeating(PoolSeating):
    """Self-play's seating for duplicate rewards: game ``k`` dealt from ``seed_of(seed, k)``,
    the learner at the side of ``seed_of(seed, k) % players``, HeuristicAgent at the other
    seats (seeded by game and seat, as the evaluation seeds them); ``deal_of[slot]`` is the
    deal of the game in each slot and ``baseline(deal)`` the standing of every side in that
    deal's all-HeuristicAgent game."""

    def __init__(
        self, pool: OpponentPool, env_kwargs: dict, engine: str = "auto", by_hand: bool = False
    ) -> None:
        super().__init__(pool, privileged=False)
        self.env_kwargs, self.engine, self.by_hand = env_kwargs, engine, by_hand
        self.seed, self.next_deal = 0, 0
        self.deal_of: dict[int, int] = {}
        self._standings: dict[int, np.ndarray] = {}
        self._pay: dict[int, np.ndarray] = {}

    def reset(self, seed: int | None, num_envs: int) -> None:
        if seed is not None:
            self.seed, self.next_deal = seed, 0
            self._standings.clear()
            self._pay.clear()

    def new_game(self, slot: int) -> Lineup:
        deal = self.next_deal
        self.next_deal += 1
        self.deal_of[slot] = deal
        game_seed = seed_of(self.seed, deal)
        seats = tuple(sorted(learner_seats(self.rules, game_seed)))
        agents = self._agents(deal)
        return Lineup(np.random.default_rng(game_seed), seats[0], seats, BASELINE, agents)

    def baseline(self, deal: int) -> np.ndarray:
        """float ``[sides]``: each side's standing in deal ``deal``'s all-HeuristicAgent game
        (larger is better), played with the block of deals around it the first time it is
        asked for and forgotten once read (the few of truncated games, never read, are kept:
        a float a side each)."""
        self._played(deal)
        return self._standings.pop(deal)

    def paid(self, deal: int, seat: int, hands: range) -> float:
        """What seat ``seat`` was paid over ``hands`` of deal ``deal``'s baseline game (with
        ``by_hand``; 0 for a game not compared). Kept until ``forget``."""
        self._played(deal)
        pay = self._pay[deal][:, seat]
        return float(np.nan_to_num(pay[hands.stop] - pay[hands.start]))

    def forget(self, deal: int) -> None:
        """Deal ``deal``'s game is over: its baseline game is not asked for again."""
        self._standings.pop(deal, None)
        self._pay.pop(deal, None)

    def _played(self, deal: int) -> None:
        """Deal ``deal``'s baseline game played (with the block of deals around it)."""
        if deal in self._standings:
            return
        first = deal - deal % BLOCK
        deals = range(first, first + BLOCK)
        standings, pay = self._play(deals)
        self._standings.update(zip(deals, standings, strict=True))
        if self.by_hand:
            self._pay.update(zip(deals, pay, strict=True))

    def _agents(self, deal: int) -> tuple:
        """HeuristicAgent at every seat of deal ``deal``, seeded by the deal and seat."""
        n = self.rules.num_players
        return tuple(
            make_agent(BASELINE, self.pool.table, seed=seed_of(self.seed, deal, 0, s))
            for s in range(n)
        )

    def _play(self, deals: range) -> tuple[np.ndarray, np.ndarray]:
        """The standings of the baseline games of ``deals``, side by side (``[deals, sides]``),
        and what each seat had been paid by the end of each hand (``[deals, hands + 1, seats]``:
        row h by the end of hand h, the start's pay in it, row 0 nothing; with ``by_hand``, else
        row 0 alone). A game whose
        pressures pass the compiled engine's 64-bit scores (a runaway of more than 58 pressures)
        is not compared: its standings are NaN and the learner is paid nothing for that deal
        (the block is split in halves to find it; the reference engine, exact there, would
        take longer over that one game than over the block)."""
        try:
            return self._play_on(deals, self.engine)
        except OverflowError:
            if len(deals) == 1:
                return np.full((1, self.rules.num_teams), np.nan), np.full(
                    (1, self._hands() + 1, self.rules.num_players), np.nan
                )
            half = len(deals) // 2
            parts = self._play(deals[:half]), self._play(deals[half:])
            return tuple(np.concatenate(part) for part in zip(*parts, strict=True))

    def _hands(self) -> int:
        """The hands whose pay is kept: every hand of a game on a schedule (``by_hand``)."""
        return self.rules.num_hands if self.by_hand else 0

    def _play_on(self, deals: range, engine: str) -> tuple[np.ndarray, np.ndarray]:
        """``_play`` on ``engine``."""
        # the games write the seat layout, which HeuristicAgent reads (as in the vector env)
        batch = game_batch(len(deals), engine, **in_seat_layout(self.env_kwargs), autoreset=False)
        batch.reset_as_env([np.random.default_rng(seed_of(self.seed, d)) for d in deals])
        seated = [self._agents(d) for d in deals]
        pay = np.zeros((len(deals), self._hands() + 1, self.rules.num_players))
        paid = batch.rewards.copy()  # the start's pay, as the AEC env pays it on the first step
        while not batch.game_over.all():
            live = np.flatnonzero(~batch.game_over)
            to_play = batch.to_play
            agents = [seated[i][to_play[i]] for i in live]
            actions = np.zeros(len(deals), dtype=np.int64)
            observations, masks = batch.observe(games=live), batch.legal_mask(games=live)
            actions[live] = decide_batch(agents, observations, masks.astype(bool))
            hands = batch.hands_played
            paid += batch.step(actions, active=~batch.game_over)[0]
            if self.by_hand:  # by the end of hand h: what was paid until that hand ended
                ended = np.flatnonzero(batch.hands_played > hands)
                pay[ended, batch.hands_played[ended]] = paid[ended]
        return batch.standings, pay


def duplicate_rewards(mine: np.ndarray, baseline: np.ndarray) -> np.ndarray:
    """+1 where the learner's side stood better than in the baseline game, -1 worse, 0 level
    or not compared (a NaN baseline)."""
    return np.nan_to_num(np.sign(np.asarray(mine, dtype=float) - np.asarray(baseline, dtype=float)))
