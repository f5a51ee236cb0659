"""A :class:`~crates_env.render.replay.Replay` as one self-contained HTML page: inline SVG, CSS
and JavaScript, nothing fetched.

Each step is the layout's scene as SVG elements. Most elements come back from step to step (the
same card in the same place, the same score), so the page holds every distinct element once and
each step as the edits that turn the previous step's list of elements into its own; the script
rebuilds the lists when the page opens. Navigation: the buttons, the slider, the arrow keys,
Page Up and Page Down (a hand), Home and End; space plays and pauses. The "why" toggle (or the
W key) shows what the agent to play weighed at the step: each legal move with a network's
probability, its value estimate, a search's margins (``explain_panel``); a scripted agent shows
its move only. The served table (``crates serve``) shows its panels with the same script.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from difflib import SequenceMatcher
from html import escape
from pathlib import Path
from typing import Any

from ..actions import action_name
from ..files import atomic_write
from .layout import faces_of, layout
from .replay import Replay
from .svg import FONT, card_symbols, fragment
from .table import TableSnapshot

# The explain panel, shared with the served table (train/cli/table_page.py).
EXPLAIN_CSS = """
.explain { background: #f6f3ea; color: #1d1d1b; border-radius: 6px; padding: 8px 12px;
           margin: 0 18px 12px; max-width: 760px; font-size: 13px; }
.explain p { margin: 2px 0 6px; }
.explain table { border-collapse: collapse; }
.explain td, .explain th { padding: 2px 10px 2px 0; text-align: left; }
.explain th { font-weight: normal; color: #6b6b63; }
.explain tr.chosen td { font-weight: bold; color: #c14a08; }
.explain .bar { display: inline-block; height: 9px; background: #2f6db5; margin-right: 6px;
                vertical-align: middle; }
"""
EXPLAIN_SCRIPT = """
function showExplanation(box, e) {  // e: explain_panel's data, or null
  box.replaceChildren();
  if (!e) return;
  const line = (text) => box.appendChild(document.createElement("p")).textContent = text;
  line(e.move ? `${e.who} \u2192 ${e.move}` : e.who);
  if (!e.moves) { line("its move is all it shows (a scripted agent, or a person)"); return; }
  if (e.value !== undefined) line(`value estimate ${e.value >= 0 ? "+" : ""}${e.value}` +
    " (the network's reward units; higher is better for the side to play)");
  const table = box.appendChild(document.createElement("table"));
  const head = table.insertRow();
  const columns = [["move", "move"], ["probabilities", "network's probability"],
                   ["margins", "search margin \u00b1 s.e. (points)"]];
  for (const [key, words] of columns) {
    if (key !== "move" && !e[key]) continue;
    head.appendChild(document.createElement("th")).textContent = words;
  }
  const order = e.moves.map((_, i) => i);
  const rank = e.probabilities || e.margins;
  order.sort((a, b) => rank[b] - rank[a]);
  for (const i of order) {
    const row = table.insertRow();
    row.dataset.move = e.moves[i];
    if (e.moves[i] === e.move) row.className = "chosen";
    row.insertCell().textContent = e.moves[i];
    if (e.probabilities) {
      const p = e.probabilities[i];
      row.dataset.probability = p;
      const cell = row.insertCell();
      const bar = cell.appendChild(document.createElement("span"));
      bar.className = "bar";
      bar.style.width = `${Math.round(p * 120)}px`;
      cell.appendChild(document.createTextNode(`${(100 * p).toFixed(1)}%`));
    }
    if (e.margins) row.insertCell().textContent = `${e.margins[i]} \u00b1 ${e.margin_se[i]}`;
  }
}
"""

_CSS = (
    """
body { margin: 0; background: #14402a; color: #f3f1ea; font-family: %(font)s; }
header { padding: 10px 18px 4px; }
h1 { font-size: 19px; margin: 0 0 4px; }
header p { margin: 2px 0; font-size: 13px; color: #d6e2d9; }
code { background: #0c2c1c; padding: 1px 4px; border-radius: 3px; }
#table { padding: 4px 12px; }
#table svg { width: 100%%; max-width: %(width)dpx; height: auto; display: block; }
nav { display: flex; align-items: center; gap: 8px; padding: 6px 18px 14px;
      max-width: %(width)dpx; }
nav button { font-size: 15px; min-width: 42px; padding: 4px 8px; border-radius: 4px;
             border: 1px solid #9fb8a6; background: #f6f3ea; color: #1d1d1b; cursor: pointer; }
nav input[type=range] { flex: 1; }
#where { font-size: 13px; min-width: 150px; text-align: right; }
#keys { font-size: 12px; color: #b9cbbf; margin: 0 18px 12px; }
"""
    + EXPLAIN_CSS
)

_SCRIPT = """
"use strict";
const data = JSON.parse(document.getElementById("replay-data").textContent);
const steps = [];
let ids = [];
for (const edits of data.steps) {  // each step: [at, removed, [added ids]] on the previous list
  ids = ids.slice();
  for (const [at, removed, added] of edits) ids.splice(at, removed, ...added);
  steps.push(ids);
}
const layer = document.getElementById("layer");
const slider = document.getElementById("slider");
const where = document.getElementById("where");
const play = document.getElementById("play");
slider.max = steps.length - 1;
let current = 0;
let timer = null;
function show(step) {
  current = Math.max(0, Math.min(steps.length - 1, step));
  layer.innerHTML = steps[current].map((i) => data.fragments[i]).join("");
  slider.value = current;
  where.textContent = `step ${current + 1} / ${steps.length}`;
  document.body.dataset.step = current;
  if (why.checked) showExplanation(panel, data.explain[current]);
  if (current === steps.length - 1) pause();
}
const why = document.getElementById("why");
const panel = document.getElementById("explain");
why.onchange = () => { panel.hidden = !why.checked; show(current); };
function pause() {
  if (timer !== null) clearInterval(timer);
  timer = null;
  play.textContent = "\\u25B6";
}
function toggle() {
  if (timer !== null) return pause();
  if (current === steps.length - 1) show(0);
  timer = setInterval(() => show(current + 1), 600);
  play.textContent = "\\u275A\\u275A";
}
document.getElementById("first").onclick = () => show(0);
document.getElementById("prev").onclick = () => show(current - 1);
document.getElementById("next").onclick = () => show(current + 1);
document.getElementById("last").onclick = () => show(steps.length - 1);
play.onclick = toggle;
slider.oninput = () => show(Number(slider.value));
document.addEventListener("keydown", (event) => {
  const later = data.hands.find((h) => h > current);
  const earlier = data.hands.filter((h) => h < current).pop();
  const moves = {
    ArrowLeft: current - 1, ArrowRight: current + 1, Home: 0, End: steps.length - 1,
    PageDown: later === undefined ? steps.length - 1 : later, PageUp: earlier ?? 0,
  };
  if (event.key in moves) show(moves[event.key]);
  else if (event.key === " ") toggle();
  else if (event.key === "w") { why.checked = !why.checked; why.onchange(); }
  else return;
  event.preventDefault();
});
show(0);
"""


def page_html(replay: Replay) -> str:
    """The page of ``replay``."""
    scenes = [layout(step) for step in replay.steps]
    width, height = scenes[0].width, scenes[0].height
    index: dict[str, int] = {}
    fragments: list[str] = []
    steps: list[list] = []
    previous: list[int] = []
    for scene in scenes:
        ids = []
        for shape in scene.items:
            text = fragment(shape)
            if text not in index:
                index[text] = len(fragments)
                fragments.append(text)
            ids.append(index[text])
        steps.append(_edits(previous, ids))
        previous = ids
    # the first step of each hand, for PageUp and PageDown
    hands = [i for i, step in enumerate(replay.steps) if i == 0 or not _same_hand(replay, i)]
    weighed = replay.explanations or (None,) * len(replay.steps)
    explain = [
        None if step.move is None else explain_panel(step, explanation)
        for step, explanation in zip(replay.steps, weighed, strict=True)
    ]
    data = json.dumps(
        {"fragments": fragments, "steps": steps, "hands": hands, "explain": explain},
        separators=(",", ":"),
    )
    data = data.replace("</", "<\\/")  # so the script element cannot end early
    about = "".join(f"<p>{escape(line)}</p>" for line in replay.about)
    css = _CSS % {"font": FONT, "width": width}
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<link rel="icon" href="data:,"><title>{escape(replay.title)}</title>'
        f"<style>{css}</style></head><body>"
        f"<header><h1>{escape(replay.title)}</h1>{about}</header>"
        f'<div id="table"><svg viewBox="0 0 {width} {height}" font-family="{FONT}" role="img" '
        f'aria-label="the table"><defs>{card_symbols(faces_of(scenes))}</defs>'
        '<g id="layer"></g></svg></div>'
        '<nav><button id="first" title="first step (Home)">&#xAB;</button>'
        '<button id="prev" title="previous step (&#x2190;)">&#x2039;</button>'
        '<button id="play" title="play or pause (space)">&#x25B6;</button>'
        '<button id="next" title="next step (&#x2192;)">&#x203A;</button>'
        '<button id="last" title="last step (End)">&#xBB;</button>'
        '<input id="slider" type="range" min="0" value="0" aria-label="step">'
        '<span id="where"></span>'
        '<label title="what the agent to play weighed (W)"><input id="why" type="checkbox"> '
        "why</label></nav>"
        '<section id="explain" class="explain" aria-live="polite" hidden></section>'
        '<p id="keys">keys: &#x2190; &#x2192; a step, Page Up and Page Down a hand, Home and End, '
        "space plays and pauses, W why</p>"
        f'<script id="replay-data" type="application/json">{data}</script>'
        f"<script>{EXPLAIN_SCRIPT}{_SCRIPT}</script></body></html>\n"
    )


def explain_panel(
    snap: TableSnapshot, explanation: Mapping[str, Any] | None, who: str | None = None
) -> dict[str, Any]:
    """The explain panel of the decision at ``snap`` as the page's script reads it: who decides
    (``who``, by default the seat to play and its name), the move made (``snap.move``, if
    any), and per legal move, named, what the agent weighed (``agents.Explanation.as_dict()``,
    rounded for people); without an explanation, the move alone."""
    seat = snap.to_play
    panel: dict[str, Any] = {"who": who or f"p{seat} · {snap.seats[seat].name}"}
    if snap.move is not None:
        panel["move"] = action_name(snap.move)
    if explanation:
        panel["moves"] = [action_name(a) for a in explanation["moves"]]
        for key, digits in _ROUNDED.items():
            if key in explanation:
                value = explanation[key]
                panel[key] = (
                    round(value, digits)
                    if isinstance(value, float)
                    else [round(float(x), digits) for x in value]
                )
    return panel


# the figures of an explanation, to the digits a person reads (probabilities to 4 so that the
# column still sums to 1)
_ROUNDED = {"probabilities": 4, "value": 3, "margins": 1, "margin_se": 1}


def _same_hand(replay: Replay, i: int) -> bool:
    return replay.steps[i].hand_number == replay.steps[i - 1].hand_number


def _edits(before: list[int], after: list[int]) -> list:
    """The splices (at, removed, added) that turn ``before`` into ``after``, last first so each
    index still points into ``before`` when it is applied."""
    matcher = SequenceMatcher(None, before, after, autojunk=False)
    edits = [
        [i1, i2 - i1, after[j1:j2]]
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]
    return edits[::-1]


def write_page(replay: Replay, path: str | Path) -> Path:
    """Write the page of ``replay`` to ``path`` (its folder is made if missing), whole or not
    at all."""
    return atomic_write(Path(path), page_html(replay))
