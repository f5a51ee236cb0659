"""Rule systems as declarations (crates_env/presets.py, docs/variants.md): each declared once,
nothing else names a preset."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

import pytest

from agents.search import SearchSettings, teacher_settings
from crates_env import presets
from crates_env.rules import (
    OPTIONS,
    PRESETS,
    Ruleset,
    check_rule_system,
    make_ruleset,
    rule_system,
)

ROOT = Path(__file__).resolve().parents[1]
# A condition on a preset's name: ``preset == "crates"``, ``rules.preset in (...)``; a loop over
# presets (``for preset in PRESETS``) is not one.
PRESET_CONDITION = re.compile(r"(?<!for )(?<!, )\b(\w+\.)*preset\s*(==|!=|not\s+in\b|in\b)")
SOURCES = ("crates_env", "agents", "train", "benchmarks")


def test_the_pattern_finds_preset_conditions():
    for line in ('if preset == "crates":', "x = rules.preset in PRESETS", "a.preset != b"):
        assert PRESET_CONDITION.search(line), line
    for line in ("for preset in PRESETS:", "{p: i for i, preset in enumerate(PRESETS)}"):
        assert not PRESET_CONDITION.search(line), line


def test_no_code_tests_a_presets_name():
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for folder in SOURCES
        for path in sorted((ROOT / folder).rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if PRESET_CONDITION.search(line)
    ]
    assert found == [], "declare the rule in crates_env/presets.py instead:\n" + "\n".join(found)


def test_every_shipped_preset_is_declared_once():
    assert tuple(system.name for system in presets.BUILTIN) == PRESETS
    assert len(set(PRESETS)) == len(PRESETS)
    assert [rule_system(p) for p in PRESETS] == list(presets.BUILTIN)


@pytest.mark.parametrize("system", presets.BUILTIN, ids=lambda s: s.name)
def test_declared_rules_are_ruleset_fields_the_ruleset_takes(system):
    names = {f.name for f in fields(Ruleset)}
    for rules in (system.rules, *system.by_players.values()):
        assert set(rules) <= names
    lo, hi = system.players
    assert set(system.by_players) <= set(range(lo, hi + 1))
    for option in system.options:
        assert OPTIONS[option.name] is option


@pytest.mark.parametrize("system", presets.BUILTIN, ids=lambda s: s.name)
def test_every_shipped_declaration_passes_the_checks_of_a_house_rule(system):
    check_rule_system(system)  # the checks refuse no mechanic a shipped rule system plays


@pytest.mark.parametrize("preset", PRESETS)
def test_each_teacher_is_its_declared_search(preset):
    settings = teacher_settings(preset)
    assert isinstance(settings, SearchSettings)
    declared = rule_system(preset).search
    assert settings.z == declared.get("z", 1.0)
    assert settings.samples == declared.get("samples", 16)


def test_the_teachers_as_measured():
    # docs/agents.md's table
    assert teacher_settings("crates") == SearchSettings()
    assert teacher_settings("kreights") == SearchSettings(z=2.0, deepen=7)
    assert teacher_settings("crazy_eights") == SearchSettings(
        samples=64, stock_max=1_000_000, z=2.5, deepen=7
    )
    assert teacher_settings("zimbabwe") == SearchSettings(stock_max=1_000_000, z=2.5, deepen=7)


def test_a_ruleset_holds_the_choices_apart_from_the_resolved_rules():
    rules = make_ruleset("kreights", 3, kreights_pressure_doubling=True)
    assert rules.chosen.preset == rules.preset == "kreights"
    assert rules.chosen.num_players == rules.num_players == 3
    assert rules.option("kreights_pressure_doubling") is True
    assert rules.option("kreights_three_mutual_cancel") is True  # a default on
    assert rules.option("standig_jokers") is False  # not offered: off
    assert rules.pressure == "double" and rules.three_scoring == "kreights"
    assert not hasattr(rules, "kreights_pressure_doubling")
