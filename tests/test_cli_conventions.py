"""CLI conventions shared by every microcoder-eval subcommand: kebab-case flags (snake_case accepted),
grouped help with choices and defaults, --version, -q/-v."""
from __future__ import annotations

import logging

import pytest

from microcoder_eval.cli import build_parser, configure_output, main


def parse(*argv):
    return build_parser().parse_args(list(argv))


def test_snake_case_spelling_is_an_alias_of_the_kebab_flag():
    a = parse("evaluate", "--timeout_s", "3", "--no-functional_batch", "--sample-budget-s", "9")
    assert a.timeout_s == 3.0 and a.functional_batch is False and a.sample_budget_s == 9.0
    b = parse("evaluate")
    assert b.timeout_s == 6.0 and b.functional_batch is True  # the hidden alias does not clobber defaults
    assert "--timeout_s" not in build_parser()._subparsers._group_actions[0].choices["evaluate"].format_help()


def test_enumerated_options_show_their_choices_and_bad_values_are_one_line(capsys):
    assert main(["evaluate", "--mode", "strict", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "mode 'strict'" in err[0] and "flex, lcb" in err[0]
    assert parse("serve-reward", "--policy", "fraction").policy == "fraction"
    assert main(["serve-reward", "--policy", "partial"]) == 2
    assert "'binary' or 'fraction'" in capsys.readouterr().err


def test_help_is_grouped_with_defaults():
    sub = build_parser()._subparsers._group_actions[0].choices
    run_help = sub["run"].format_help()
    for title in ("What to sample, from which model, how, and where the completions go:",
                  "How samples are executed and judged:", "output:"):
        assert title in run_help
    assert "--backend {openai,vllm,transformers}" in run_help and "(default: openai)" in run_help
    assert "--enable-thinking {true,false}" in run_help
    build_help = sub["build-dataset"].format_help()
    assert "Inputs, filters and outputs of one dataset build (stages run in the order of the fields): dedup:" in build_help


def test_build_dataset_format_choices_match_the_readers():
    from microcoder_eval.dataset.config import BuildDatasetConfig
    from microcoder_eval.dataset.readers import FORMATS
    from dataclasses import fields

    f = next(f for f in fields(BuildDatasetConfig) if f.name == "format")
    assert set(f.metadata["choices"]) == {"auto", *FORMATS}


def test_version(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0 and capsys.readouterr().out.startswith("microcoder-eval ")


def test_quiet_and_verbose_set_logging_and_progress():
    a = parse("evaluate", "-q")
    configure_output(a)
    assert a.progress is False and logging.getLogger("microcoder_eval").level == logging.ERROR
    a = parse("-vv", "evaluate")
    configure_output(a)
    assert a.progress is True and logging.getLogger("microcoder_eval").level == logging.DEBUG
    a = parse("-v", "evaluate", "--no-progress")  # a flag before the subcommand survives it
    configure_output(a)
    assert a.verbose == 1 and logging.getLogger("microcoder_eval").level == logging.INFO
    configure_output(parse("evaluate"))
    assert logging.getLogger("microcoder_eval").level == logging.WARNING


def test_command_table_matches_what_the_modules_register():
    """``microcoder-eval --help`` lists commands from cli.COMMANDS without importing them."""
    from microcoder_eval.cli import COMMANDS

    sub = build_parser()._subparsers._group_actions[0]
    registered = {a.dest: a.help for a in sub._choices_actions}
    assert registered == {name: help_line for name, (_, help_line) in COMMANDS.items()}
    lazy = build_parser(["--help"])._subparsers._group_actions[0]
    assert {a.dest: a.help for a in lazy._choices_actions} == registered
    # naming a command registers that command's real parser
    assert "--timeout-s" in build_parser(["evaluate"])._subparsers._group_actions[0].choices["evaluate"].format_help()
    assert build_parser(["run", "--backend", "vllm"]).parse_args(["run", "--backend", "vllm"]).backend == "vllm"


def test_help_and_version_import_no_command_module():
    import subprocess
    import sys

    code = ("import sys; from microcoder_eval.cli import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "heavy = [m for m in ('numpy', 'microcoder_eval.reward', 'http.server', 'importlib.metadata',\n"
            "         'microcoder_eval.dataset.config', 'microcoder_eval.generation.config') if m in sys.modules]\n"
            "print('HEAVY', heavy)")
    out = subprocess.run([sys.executable, "-c", code, "--help"], capture_output=True, text=True).stdout
    assert "HEAVY []" in out
