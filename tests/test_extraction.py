from microcoder_eval.extraction import extract_code, fenced_blocks


def test_last_complete_python_block_wins():
    text = "first\n```python\nprint(1)\n```\nthen better\n```py\nprint(2)\n```\n"
    assert extract_code(text) == "print(2)"


def test_language_variants_and_bare_fence():
    for lang in ("python", "py", "python3", "Python", ""):
        assert extract_code(f"x\n```{lang}\nprint(3)\n```") == "print(3)"


def test_non_python_block_ignored():
    assert extract_code("```cpp\nint main(){}\n```\n```python\nprint(4)\n```\n```text\nout\n```") == "print(4)"


def test_think_block_ignored():
    text = "<think>\n```python\nprint('draft')\n```\n</think>\nAnswer:\n```python\nprint('final')\n```"
    assert extract_code(text) == "print('final')"
    # reasoning only (answer missing) -> no code, even though the reasoning had a block
    assert extract_code("<think>```python\nprint(1)\n```</think> I give up") is None


def test_truncated_block_does_not_count():
    assert extract_code("```python\nprint(1)\n```\n```python\nprint(2") == "print(1)"
    assert extract_code("```python\nprint(2") is None


def test_no_code_and_empty_block():
    assert extract_code("I cannot solve this.") is None
    assert extract_code("```python\n\n```") is None
    assert extract_code("") is None and extract_code(None) is None


def test_lcb_extraction_rule():
    text = "```python\na=1\n```\nprose ``` inline\n```python\nb=2\n```"
    assert extract_code(text, mode="lcb") == "b=2"
    assert extract_code("one ``` only", mode="lcb") is None
    # LCB takes text between the last two ``` lines, even if that is prose
    assert extract_code("```python\nx=1\n```\nsee ``` here", mode="lcb") is None
    assert extract_code("```python\nx=1\n```\nsee ``` here") == "x=1"


def test_fenced_blocks_longer_fences():
    blocks = fenced_blocks("````python\nprint('```')\n````")
    assert blocks == [("python", "print('```')")]


def test_completion_cut_off_while_reasoning_has_no_code():
    assert extract_code("<think>\nlet me try\n```python\nprint('draft')\n```\nhmm") is None
    assert extract_code("reasoning from the prompt's open tag\n```python\nx=1\n```\n</think>\nno code") is None


# ---------------------------------------------------------------- fences where LCB finds them (issue 12)
ECHOED_PROMPT = (
    "You will be given a question (problem specification) and will generate a correct Python program.\n"
    "### Format: Read the inputs from stdin solve the problem and write the answer to stdout.\n"
    "```python\n# YOUR CODE HERE\n```\n\n### Answer: (use the provided format with backticks)\n\n"
)


def test_fence_opening_mid_line_after_echoed_prompt():
    text = ECHOED_PROMPT + " Assistant: ```python\nn = int(input())\nprint(n * 2)\n```\n"
    assert extract_code(text) == "n = int(input())\nprint(n * 2)"
    # LiveCodeBench's extractor finds the same block
    assert extract_code(text, mode="lcb") == "n = int(input())\nprint(n * 2)"
    assert extract_code("Here it is: ```py\nprint(1)\n```") == "print(1)"


def test_prose_mentioning_fences_does_not_open_a_block():
    assert extract_code("use ``` fences\n```python\nprint(1)\n```") == "print(1)"
    assert extract_code("inline ```x``` span\n```python\nprint(2)\n```") == "print(2)"


def test_placeholder_block_never_beats_a_real_one():
    # the echoed prompt's placeholder comes last in order of fences here, and is only a comment
    text = "```python\nprint('answer')\n```\nPrompt echo:\n```python\n# YOUR CODE HERE\n```"
    assert extract_code(text) == "print('answer')"
    assert extract_code("```python\n# YOUR CODE HERE\n```") is None


def test_best_candidate_among_several_blocks():
    # last complete block that parses wins ...
    assert extract_code("```python\nprint(1)\n```\n```python\nprint(2)\n```") == "print(2)"
    # ... a broken last block loses to an earlier valid one ...
    assert extract_code("```python\nprint(1)\n```\n```python\ndef f(:\n```") == "print(1)"
    # ... a bare-fenced sample output after the answer does not replace it ...
    assert extract_code("```python\nprint(int(input()) * 2)\n```\nOutput:\n```\n6\n```") == "print(int(input()) * 2)"
    # ... and when nothing parses, the last attempt is judged (as the syntax error it is)
    assert extract_code("```python\ndef f(:\n```\n```python\nwhile\n```") == "while"
