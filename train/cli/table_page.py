"""The page of the served table (``crates serve``): one HTML document, its CSS, card drawings and
script inline, that fetches nothing but the game's state from the server that sent it.

The table is drawn by the server (``crates_env.render``'s layout, as one seat sees it) and sent
as SVG elements with every state; the page adds the person's hand as buttons, the legal cards
raised and outlined and the others dimmed, the other legal moves (a suit to name, draw, pass,
announce) as buttons, the agents' moves one at a time at the server's pace, each hand's result
and the game's in words, the "why" toggle (what the shipped network would play at the person's
decision, ``crates_env.render.page``'s explain panel) and, once the game is over, the link to
its replay page.
"""

from __future__ import annotations

from html import escape

from crates_env.render.layout import CARD_FACES
from crates_env.render.page import EXPLAIN_CSS, EXPLAIN_SCRIPT
from crates_env.render.svg import FONT, card_symbols

from .seated import Tables

_CSS = """
body { margin: 0; background: #14402a; color: #f3f1ea; font-family: %(font)s; }
header { padding: 10px 18px 2px; }
h1 { font-size: 19px; margin: 0 0 4px; }
#status { font-size: 16px; font-weight: bold; margin: 4px 0; color: #ffe08a; }
#board { padding: 2px 12px; }
#board svg { width: 100%%; max-width: %(width)dpx; height: auto; display: block; }
#said { margin: 2px 18px; min-height: 1.3em; font-size: 14px; color: #d6e2d9; }
#you { padding: 4px 18px 8px; }
body[data-busy="1"] #you { opacity: 0.55; pointer-events: none; }
#hand { display: flex; flex-wrap: wrap; gap: 6px; min-height: 112px; align-items: flex-end; }
.card { width: 72px; height: 101px; padding: 0; border: 3px solid transparent;
        border-radius: 7px; background: none; cursor: pointer; }
.card svg { width: 100%%; height: 100%%; display: block; }
.card.legal { border-color: #ffb703; transform: translateY(-10px);
              box-shadow: 0 4px 10px rgba(0, 0, 0, 0.45); }
.card.legal:hover, .card.legal:focus { transform: translateY(-16px); }
.card.illegal { opacity: 0.45; filter: grayscale(0.7); cursor: not-allowed; }
#moves { display: flex; flex-wrap: wrap; gap: 8px; margin-top: 8px; }
.move { font-size: 15px; padding: 6px 14px; border-radius: 5px; border: 2px solid #ffb703;
        background: #f6f3ea; color: #1d1d1b; cursor: pointer; }
#message { color: #ffb4a2; font-weight: bold; min-height: 1.2em; margin: 6px 0 0; }
nav { display: flex; gap: 18px; align-items: center; padding: 4px 18px 10px; font-size: 14px; }
nav a { color: #ffe08a; }
#results { padding: 0 18px 18px; font-size: 14px; }
#results h2 { font-size: 15px; margin: 6px 0; }
#result { font-weight: bold; font-size: 16px; color: #ffe08a; }
"""

_SCRIPT = """
"use strict";
const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
let game = document.body.dataset.game;
let state = null;
let shown = -1;  // the last decision whose move the page has shown
let busy = false;

function setBusy(value) {
  busy = value;
  document.body.dataset.busy = value ? "1" : "0";
}
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const say = (text) => { $("message").textContent = text; };

async function call(method, path, body) {
  const init = {method, headers: {}};
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    return {ok: false, status: 0, data: {error: "the server does not answer: is it running?"}};
  }
  const fallback = {error: `the server answered ${response.status}`};
  const data = await response.json().catch(() => fallback);
  return {ok: response.ok, status: response.status, data};
}

function face(kind) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 50 70");
  svg.setAttribute("aria-hidden", "true");
  const use = svg.appendChild(document.createElementNS(SVG, "use"));
  use.setAttribute("href", kind === null ? "#back" : `#k${kind}`);
  return svg;
}

function button(className, label, action, legal) {
  const b = document.createElement("button");
  b.className = className;
  b.title = label;
  b.setAttribute("aria-label", label);
  if (action !== null) b.dataset.action = action;
  if (!legal) b.setAttribute("aria-disabled", "true");
  b.onclick = () => (action === null ? say("that card is face down") : play(action));
  return b;
}

function drawControls(s) {
  const hand = $("hand");
  hand.replaceChildren();
  for (const card of s.hand) {
    const legal = s.yours && card.legal;
    const label = legal ? `play ${card.name}` : `${card.name}: not playable now`;
    const b = button(`card ${legal ? "legal" : "illegal"}`, label, card.action, legal);
    b.appendChild(face(card.kind));
    hand.appendChild(b);
  }
  const moves = $("moves");
  moves.replaceChildren();
  for (const move of s.moves) {
    moves.appendChild(button("move", move.words, move.action, true)).textContent = move.words;
  }
}

function drawExplanation() {
  const panel = $("explain");
  panel.hidden = !$("why").checked;
  if (panel.hidden || !state) return;
  if (state.explain) return showExplanation(panel, state.explain);
  panel.replaceChildren();
  const words = !state.adviser ? "no network reads this table: nothing to explain here"
    : "the network explains your decisions; wait for your move";
  panel.appendChild(document.createElement("p")).textContent = words;
}

async function show(next) {
  setBusy(true);
  for (const step of next.steps) {
    if (step.decision <= shown) continue;
    $("layer").innerHTML = step.table;
    $("said").textContent = step.said;
    shown = step.decision;
    if (next.pace > 0) await sleep(1000 * next.pace);
  }
  state = next;
  shown = next.decision - 1;
  $("layer").innerHTML = next.table;
  $("status").textContent = next.status;
  drawControls(next);
  $("hands").replaceChildren(...next.hands.map((words) => {
    const item = document.createElement("li");
    item.textContent = words;
    return item;
  }));
  $("result").textContent = next.result || "";
  $("replay").hidden = !next.over;
  $("replay").href = `/game/${game}/replay`;
  drawExplanation();
  document.body.dataset.decision = next.decision;
  setBusy(false);
}

async function play(action) {
  if (busy || !state) return;
  setBusy(true);
  const answer = await call("POST", `/api/games/${game}/move`, {decision: state.decision, action});
  if (answer.ok) {
    say("");
    return show(answer.data);
  }
  if (answer.status === 409) {  // the game moved on elsewhere (another tab): show it as it is
    const now = await call("GET", `/api/games/${game}`);
    if (now.ok) await show(now.data);
  }
  say(answer.data.error);
  setBusy(false);
}

async function start() {
  setBusy(true);
  const answer = game ? await call("GET", `/api/games/${game}`) : await call("POST", "/api/games");
  if (!answer.ok) {  // no game to show: its words where the table would be, not dimmed below it
    $("board").hidden = true;
    setBusy(false);
    return say(answer.data.error);
  }
  if (!game) {
    game = answer.data.game;
    document.body.dataset.game = game;
    history.replaceState(null, "", `/game/${game}`);
  }
  await show(answer.data);
}

$("why").onchange = drawExplanation;
start();
"""


def table_page(tables: Tables, game_id: str | None) -> str:
    """The page of game ``game_id``, or (None) the page that starts a game of its own."""
    c = tables.config
    width, height = tables.size
    others = ", ".join(f"p{s} {name}" for s, name in sorted(c.specs.items()))
    title = f"{c.preset}, {c.num_players} players: you at p{c.seat}"
    css = _CSS % {"font": FONT, "width": width} + EXPLAIN_CSS
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<link rel="icon" href="data:,"><title>{escape(title)}</title>'
        f"<style>{css}</style></head>"
        f'<body data-game="{escape(game_id or "")}" data-busy="1">'
        f"<header><h1>{escape(title)}</h1><p>against {escape(others)}</p>"
        '<p id="status" role="status"></p></header>'
        f'<div id="board"><svg viewBox="0 0 {width} {height}" font-family="{FONT}" role="img" '
        f'aria-label="the table as your seat sees it"><defs>{card_symbols(CARD_FACES)}</defs>'
        '<g id="layer"></g></svg></div>'
        '<p id="said" aria-live="polite"></p>'
        '<section id="you"><div id="hand" role="group" aria-label="your hand"></div>'
        '<div id="moves" role="group" aria-label="your other moves"></div>'
        '<p id="message" role="alert"></p></section>'
        '<nav><label title="what the network would play here, move by move">'
        '<input id="why" type="checkbox"> why: the network\'s view of your move</label>'
        '<a id="replay" hidden>open the finished game as a replay page</a>'
        '<a href="/">a new game</a></nav>'
        '<section id="explain" class="explain" aria-live="polite" hidden></section>'
        '<section id="results"><h2>hands</h2><ol id="hands"></ol><p id="result"></p></section>'
        f"<script>{EXPLAIN_SCRIPT}{_SCRIPT}</script></body></html>\n"
    )


def missing_page(message: str) -> str:
    """The page of a game the server does not hold: why, and a way to a new one."""
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<link rel="icon" href="data:,"><title>no such game</title></head>'
        f'<body><p>{escape(message)}</p><p><a href="/">start a new game</a></p></body></html>\n'
    )
