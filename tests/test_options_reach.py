"Every option of an operation reaches the command line, Python and sweep plans with one name and one default."
from dataclasses import fields

import pytest
import typer

from benchnb.cli import build_app
from benchnb.options import default_of


def _commands(cmd, path=()):
    subs = getattr(cmd, 'commands', None)
    if subs is None:
        yield ' '.join(path), cmd
        return
    for name, sub in subs.items(): yield from _commands(sub, path + (name,))


def _options_type(cmd):
    fn = cmd.callback
    while fn is not None and not hasattr(fn, 'options_type'): fn = getattr(fn, '__wrapped__', None)
    return getattr(fn, 'options_type', None)


COMMANDS = {path: (cmd, t) for path, cmd in _commands(typer.main.get_command(build_app(None)))
            if (t := _options_type(cmd)) is not None}
plain = lambda v: list(v) if isinstance(v, (tuple, list)) else v


def test_every_family_has_option_commands():
    assert {p.split()[0] for p in COMMANDS} >= {'cells', 'plism', 'translator', 'results'}, sorted(COMMANDS)


@pytest.mark.parametrize('path', sorted(COMMANDS))
def test_command_options_are_the_fields(path):
    cmd, cls = COMMANDS[path]
    params = {p.name: p for p in cmd.params}
    for f in fields(cls):
        if not f.metadata.get('cli', True): continue
        assert f.name in params, f"{path}: field {f.name} of {cls.__name__} has no command-line option"
        d = default_of(f)
        if d is ...: continue
        got = params[f.name].default
        got = got() if callable(got) else got
        assert plain(got) == plain(d) or (got is None and d is None), \
            f"{path} --{f.name}: command default {got!r} but {cls.__name__} says {d!r}"


def _unit_kinds():
    from benchnb.sweeps.plan import unit_kinds
    return {n: unit_kinds.entry(n).obj for n in unit_kinds.names()}


def test_sweep_options_share_the_commands_defaults():
    "Where a unit kind's plan option has the name of a field of its family's operations, the default is the same."
    by_family = {}
    for path, (cmd, cls) in COMMANDS.items():
        for f in fields(cls):
            if (d := default_of(f)) is not ...: by_family.setdefault(path.split()[0], {}).setdefault(f.name, set()).add(
                repr(plain(d)))
    checked = 0
    for name, kind in _unit_kinds().items():
        fam = getattr(kind, 'owner', None) or getattr(kind, 'family', None) or name
        for opt, (_, default) in (kind.options or {}).items():
            cli = by_family.get(fam, {}).get(opt)
            if not cli or len(cli) > 1: continue          # not a command option, or commands differ by design
            assert {repr(plain(default))} == cli, f"unit kind {name!r} option {opt!r}: plan default {default!r}, " \
                                                  f"command default {cli}"
            checked += 1
    assert checked >= 10, checked
