"The Makefile's shell settings: a recipe stops at its first failing line (make test must fail when a notebook fails)."
import subprocess


def _settings(repo_root) -> list[str]:
    "The Makefile's special-target and shell lines (SHELL, .ONESHELL, .SHELLFLAGS), as make would read them."
    lines = (repo_root/'Makefile').read_text().splitlines()
    return [l for l in lines if l.startswith(('SHELL', '.ONESHELL', '.SHELLFLAGS'))]


def test_a_failing_recipe_line_fails_the_target(repo_root, tmp_path):
    probe = tmp_path/'Makefile'
    probe.write_text('\n'.join(_settings(repo_root)) + "\nprobe:\n\tfalse\n\ttouch reached\n")
    r = subprocess.run(['make', '-s', '-f', str(probe), 'probe'], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode != 0 and not (tmp_path/'reached').exists(), r.stdout + r.stderr


def test_a_failing_command_in_a_pipe_fails_the_target(repo_root, tmp_path):
    probe = tmp_path/'Makefile'
    probe.write_text('\n'.join(_settings(repo_root)) + "\nprobe:\n\tfalse | cat\n\ttouch reached\n")
    r = subprocess.run(['make', '-s', '-f', str(probe), 'probe'], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode != 0 and not (tmp_path/'reached').exists(), r.stdout + r.stderr
